/*
 * probe_results.c - the last probe's rows from a gpudoctor probe -o file.
 *
 * The file is JSON lines of snapshots (gd_snapshot_from_json); the one that
 * counts is the last line with a non-empty probe[] (a probe writes its
 * results into its final snapshot).  Lines are read with getline(3) and only
 * the candidate is parsed, so a long series costs one pass of reading.
 */
#include "serve/probe_results.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/snapshot_json.h"

void gd_probe_results_init(struct gd_probe_results *pr, const char *path)
{
	memset(pr, 0, sizeof *pr);
	pr->path = path;
	pr->mtime_ns = pr->size = -1;
	gd_snapshot_init(&pr->last);
}

void gd_probe_results_release(struct gd_probe_results *pr)
{
	gd_snapshot_release(&pr->last);
	pr->have = false;
}

static void load(struct gd_probe_results *pr)
{
	FILE *f = fopen(pr->path, "r");
	char *line = NULL, *best = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned long lineno = 0, best_no = 0;
	json_error_t je;
	json_t *obj;
	struct gd_err err;

	gd_probe_results_release(pr);
	gd_snapshot_init(&pr->last);
	if (!f) {
		snprintf(pr->why, sizeof pr->why, "%s: %s", pr->path, strerror(errno));
		return;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (strstr(line, "\"probe\":[{")) {
			free(best);
			best = strdup(line);
			best_no = lineno;
		}
	}
	free(line);
	fclose(f);
	if (!best) {
		snprintf(pr->why, sizeof pr->why, "%s holds no probe results (gpudoctor probe -o writes them)", pr->path);
		return;
	}
	obj = json_loads(best, 0, &je);
	free(best);
	gd_err_clear(&err);
	if (!obj || gd_snapshot_from_json(obj, &pr->last, &err) < 0) {
		snprintf(pr->why, sizeof pr->why, "%s line %lu: %.200s", pr->path, best_no, obj ? err.msg : je.text);
		json_decref(obj);
		gd_snapshot_release(&pr->last);
		gd_snapshot_init(&pr->last);
		return;
	}
	json_decref(obj);
	pr->have = true;
	pr->why[0] = '\0';
}

void gd_probe_results_apply(struct gd_probe_results *pr, struct gd_snapshot *s)
{
	struct gd_source *src;
	struct stat st;

	if (!pr->path)
		return;
	if (stat(pr->path, &st) < 0) {
		gd_probe_results_release(pr);
		pr->mtime_ns = pr->size = -1;
		snprintf(pr->why, sizeof pr->why, "%s: %s", pr->path, strerror(errno));
	} else if ((long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec != pr->mtime_ns ||
		   (long long)st.st_size != pr->size) {
		pr->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
		pr->size = (long long)st.st_size;
		load(pr);
	}
	if (pr->have)
		GD_VEC_EACH(pr->last.probe, const struct gd_probe_row, r)
			*GD_PUSH(s, probe, struct gd_probe_row) = *r;
	src = GD_PUSH(s, sources, struct gd_source);
	GD_STRSET(src->name, "probe_results");
	GD_STRSET(src->path, pr->path);
	GD_STRSET(src->status, pr->have ? "ok" : "failed");  /* it was asked for */
	GD_STRSET(src->reason, pr->why);
}
