/*
 * proc_loadavg.c - load averages: /proc/loadavg (every kernel).
 *
 *     0.07 0.04 0.01 1/80 3702
 *
 * 1-, 5- and 15-minute load averages (tasks in R and D state), then
 * running/total scheduling entities (threads), then the last pid created.
 * threads_total is the number after the '/'.
 */
#include "collect/collectors.h"

#include <errno.h>

#include "core/i18n.h"
#include "core/tok.h"

int gd_parse_proc_loadavg(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line, f[6], running, total;
	struct gd_f64 *load[3] = { &s->cpu.load1, &s->cpu.load5, &s->cpu.load15 };
	size_t n;
	double v[3];
	uint64_t threads, r;

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("binary data, not the text of /proc/loadavg"));
	gd_lines_init(&it, buf, len);
	if (!gd_tok_line(&it, &line) || (n = gd_tok_split(line, f, 6)) == 0)
		return gd_err_set(err, -ENODATA, _("empty file"));
	if (n < 3)
		return gd_err_set(err, -EINVAL, _("line 1: %zu fields, expected \"load1 load5 load15 running/total lastpid\""),
				  n);
	for (size_t i = 0; i < 3; i++)
		if (!gd_tok_f64(f[i], &v[i]) || v[i] < 0)
			return gd_err_set(err, -EINVAL, _("line 1: load average \"%.*s\" is not a number"), (int)f[i].n,
					  f[i].p);
	for (size_t i = 0; i < 3; i++)
		gd_f64_set(load[i], v[i]);
	if (n < 4) {
		gd_err_set(err, -EINVAL, _("line 1: no running/total field after the load averages"));
		return 1;
	}
	if (!gd_tok_kv(f[3], '/', &running, &total) || !gd_tok_u64(running, &r) || !gd_tok_u64(total, &threads)) {
		gd_err_set(err, -EINVAL, _("line 1: \"%.*s\" is not running/total"), (int)f[3].n, f[3].p);
		return 1;
	}
	gd_u64_set(&s->cpu.threads_total, threads);
	return 0;
}

enum gd_src_status gd_collect_proc_loadavg(const struct gd_collect_ctx *ctx, struct gd_snapshot *s,
					   struct gd_err *err)
{
	return gd_collect_file(ctx, "proc/loadavg", gd_parse_proc_loadavg, s, err);
}
