#include "collect/collect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void gd_collect_all(const struct gd_collect_ctx *ctx, struct gd_snapshot *s)
{
	for (size_t i = 0; i < gd_ncollectors; i++) {
		const struct gd_collector *c = &gd_collectors[i];
		struct gd_err err;
		struct gd_source *src;
		double t0 = now_s();
		enum gd_src_status st;

		gd_err_clear(&err);
		st = c->collect(ctx, s, &err);
		src = GD_PUSH(s, sources, struct gd_source);
		GD_STRSET(src->name, c->name);
		GD_STRSET(src->path, c->path);
		GD_STRSET(src->status, gd_src_status_name(st));
		if (st != GD_SRC_OK)
			GD_STRSET(src->reason, err.msg[0] ? err.msg : gd_src_status_name(st));
		gd_f64_set(&src->duration_s, now_s() - t0);
	}
}

enum gd_src_status gd_parse_status(int rc)
{
	if (rc < 0)
		return GD_SRC_FAILED;
	return rc > 0 ? GD_SRC_PARTIAL : GD_SRC_OK;
}

enum gd_src_status gd_collect_file(const struct gd_collect_ctx *ctx, const char *rel, gd_parse_fn parse,
				   struct gd_snapshot *s, struct gd_err *err)
{
	char *buf;
	size_t len;
	int rc = gd_root_read(ctx->root, rel, &buf, &len, GD_READ_CAP);
	char msg[GD_ERR_MSG_MAX];

	if (rc < 0) {
		gd_err_set(err, rc, "/%s: %s", rel[0] == '/' ? rel + 1 : rel, strerror(-rc));
		return gd_src_status_of_errno(rc);
	}
	rc = parse(buf, len, s, err);
	free(buf);
	if (rc != 0 && err->msg[0]) {
		/* Prefix the parser's message with the path it came from. */
		snprintf(msg, sizeof msg, "%s", err->msg);
		gd_err_set(err, err->code, "/%s: %s", rel[0] == '/' ? rel + 1 : rel, msg);
	}
	return gd_parse_status(rc);
}
