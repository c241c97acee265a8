/*
 * proc_vmstat.c - virtual memory event counters: /proc/vmstat (2.6.0+).
 *
 *     pswpin 0
 *     pswpout 0
 *     allocstall_dma 0
 *     allocstall_dma32 0
 *     allocstall_normal 0
 *     allocstall_movable 0
 *     pgmajfault 976
 *     oom_kill 0
 *
 * "name value" lines, found by name (their order and set change between
 * kernels).  oom_kill appeared in 4.13; before 4.8 direct-reclaim stalls were
 * one "allocstall" counter, since then one allocstall_<zone> per zone, summed
 * here.  Names we do not keep are only checked for the "name value" shape.
 */
#include "collect/collectors.h"

#include <errno.h>
#include <stdio.h>

#include "core/i18n.h"
#include "core/tok.h"

int gd_parse_proc_vmstat(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line, f[3];
	size_t bad = 0, used = 0, nstall = 0;
	uint64_t stall = 0;
	bool stall_bad = false;
	char msg[GD_ERR_MSG_MAX];

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("binary data, not the text of /proc/vmstat"));
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		size_t n = gd_tok_split(line, f, 3);
		struct gd_u64 *dst = NULL;
		bool is_stall;
		uint64_t v;

		if (n == 0)
			continue;
		is_stall = gd_tok_eq(f[0], "allocstall") || gd_tok_prefix(f[0], "allocstall_");
		if (n != 2) {
			if (!bad++)
				gd_err_set(err, -EINVAL, _("line %zu: \"%.*s\" is not \"name value\""), it.lineno,
					   (int)(line.n > 80 ? 80 : line.n), line.p);
			continue;
		}
		if (gd_tok_eq(f[0], "pswpin"))
			dst = &s->mem.pswpin;
		else if (gd_tok_eq(f[0], "pswpout"))
			dst = &s->mem.pswpout;
		else if (gd_tok_eq(f[0], "pgmajfault"))
			dst = &s->mem.pgmajfault;
		else if (gd_tok_eq(f[0], "oom_kill"))
			dst = &s->mem.oom_kill;
		else if (!is_stall)
			continue;
		if (!gd_tok_u64(f[1], &v)) {
			if (!bad++)
				gd_err_set(err, -EINVAL, _("line %zu: %.*s is \"%.*s\", not a number"), it.lineno,
					   (int)f[0].n, f[0].p, (int)f[1].n, f[1].p);
			stall_bad |= is_stall;
			continue;
		}
		if (dst) {
			gd_u64_set(dst, v);
		} else if (stall > UINT64_MAX - v) {
			if (!bad++)
				gd_err_set(err, -EINVAL, _("line %zu: the allocstall counters overflow 64 bits"), it.lineno);
			stall_bad = true;
		} else {
			stall += v;
			nstall++;
		}
		used++;
	}
	/* A sum missing one of its zones would be a guess: leave it absent. */
	if (nstall && !stall_bad)
		gd_u64_set(&s->mem.allocstall, stall);
	if (!used) {
		if (bad)
			return err->code;
		return gd_err_set(err, -ENODATA, _("none of pswpin, pswpout, pgmajfault, oom_kill, allocstall found"));
	}
	if (bad > 1) {
		snprintf(msg, sizeof msg, "%s", err->msg);
		gd_err_set(err, -EINVAL, _("%s (and %zu more bad lines)"), msg, bad - 1);
	}
	return bad ? 1 : 0;
}

enum gd_src_status gd_collect_proc_vmstat(const struct gd_collect_ctx *ctx, struct gd_snapshot *s,
					  struct gd_err *err)
{
	return gd_collect_file(ctx, "proc/vmstat", gd_parse_proc_vmstat, s, err);
}
