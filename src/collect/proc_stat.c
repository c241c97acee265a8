/*
 * proc_stat.c - CPU time counters: /proc/stat.
 *
 *     cpu  1530 0 1350 96535 378 0 28 7 0 0
 *     cpu0 368 0 492 49041 9 0 7 2 0 0
 *     cpu1 1161 0 858 47494 369 0 20 5 0 0
 *     intr 129466 0 0 0 ...
 *     ctxt 275685
 *     btime 1796007371
 *     processes 3706
 *     procs_running 3
 *     procs_blocked 0
 *
 * The cpu lines count USER_HZ ticks in this order: user, nice, system, idle
 * (every kernel), iowait (2.5.41), irq and softirq (2.6.0), steal (2.6.11),
 * guest (2.6.24), guest_nice (2.6.33).  guest and guest_nice are already
 * inside user and nice, so only the first eight are kept.  A kernel that
 * prints fewer fields leaves the later ones absent, not 0.  Offline CPUs have
 * no cpuN line, so cpus_online is the number of cpuN lines.
 * procs_running and procs_blocked appeared in 2.5.45.
 */
#include "collect/collectors.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "core/i18n.h"
#include "core/tok.h"

/* name + up to 10 counters, plus one to notice more. */
#define MAXF 12
/* The counters we keep: user .. steal. */
#define NTICKS 8

static void set_total(struct gd_cpu *c, const uint64_t *v, size_t n)
{
	struct gd_u64 *f[NTICKS] = { &c->user_ticks, &c->nice_ticks, &c->system_ticks, &c->idle_ticks,
				     &c->iowait_ticks, &c->irq_ticks, &c->softirq_ticks, &c->steal_ticks };

	for (size_t i = 0; i < n && i < NTICKS; i++)
		gd_u64_set(f[i], v[i]);
}

static void set_one(struct gd_cpus *c, const uint64_t *v, size_t n)
{
	struct gd_u64 *f[NTICKS] = { &c->user_ticks, &c->nice_ticks, &c->system_ticks, &c->idle_ticks,
				     &c->iowait_ticks, &c->irq_ticks, &c->softirq_ticks, &c->steal_ticks };

	for (size_t i = 0; i < n && i < NTICKS; i++)
		gd_u64_set(f[i], v[i]);
}

/* The cpus[] entry for logical CPU n, pushed when not there yet. */
static struct gd_cpus *cpus_get(struct gd_snapshot *s, uint64_t n)
{
	struct gd_cpus *c;

	GD_VEC_EACH(s->cpus, struct gd_cpus, it)
		if (it->cpu.ok && it->cpu.v == n)
			return it;
	c = GD_PUSH(s, cpus, struct gd_cpus);
	gd_u64_set(&c->cpu, n);
	return c;
}

/* Remembers the first bad line in err; counts the rest. */
static void __attribute__((format(printf, 4, 5))) bad_line(struct gd_err *err, size_t *bad, size_t lineno,
							   const char *fmt, ...)
{
	char msg[GD_ERR_MSG_MAX];
	va_list ap;

	if ((*bad)++)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	gd_err_set(err, -EINVAL, "line %zu: %s", lineno, msg);
}

static int finish(struct gd_err *err, size_t bad)
{
	char msg[GD_ERR_MSG_MAX];

	if (bad > 1) {
		snprintf(msg, sizeof msg, "%s", err->msg);
		gd_err_set(err, -EINVAL, _("%s (and %zu more bad lines)"), msg, bad - 1);
	}
	return bad ? 1 : 0;
}

int gd_parse_proc_stat(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line, f[MAXF];
	size_t bad = 0, used = 0;
	uint64_t online = 0;

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("binary data, not the text of /proc/stat"));
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		size_t n = gd_tok_split(line, f, MAXF), i;
		uint64_t v[MAXF], cpu = 0;
		bool total, ok = true;

		if (n == 0)
			continue;
		if (gd_tok_prefix(f[0], "cpu")) {
			struct gd_slice num = { f[0].p + 3, f[0].n - 3 };

			total = num.n == 0;
			if (!total && !gd_tok_u64(num, &cpu)) {
				bad_line(err, &bad, it.lineno, _("\"%.*s\" is not a CPU name"), (int)f[0].n, f[0].p);
				continue;
			}
			if (!total)
				online++;
			if (n < 5) {
				bad_line(err, &bad, it.lineno, _("%.*s has %zu counters, fewer than the 4 of any kernel"),
					 (int)f[0].n, f[0].p, n - 1);
				continue;
			}
			for (i = 1; i < n && ok; i++)
				ok = gd_tok_u64(f[i], &v[i - 1]);
			if (!ok) {
				bad_line(err, &bad, it.lineno, _("counter %zu of %.*s, \"%.*s\", is not a number"), i - 1,
					 (int)f[0].n, f[0].p, (int)f[i - 1].n, f[i - 1].p);
				continue;
			}
			if (total)
				set_total(&s->cpu, v, n - 1);
			else
				set_one(cpus_get(s, cpu), v, n - 1);
			used++;
		} else if (gd_tok_eq(f[0], "ctxt") || gd_tok_eq(f[0], "procs_running") ||
			   gd_tok_eq(f[0], "procs_blocked")) {
			struct gd_u64 *dst = gd_tok_eq(f[0], "ctxt")            ? &s->cpu.ctxt
					     : gd_tok_eq(f[0], "procs_running") ? &s->cpu.procs_running
										: &s->cpu.procs_blocked;

			if (n != 2 || !gd_tok_u64(f[1], &v[0])) {
				bad_line(err, &bad, it.lineno, _("%.*s needs one number"), (int)f[0].n, f[0].p);
				continue;
			}
			gd_u64_set(dst, v[0]);
			used++;
		}
	}
	if (online)
		gd_u64_set(&s->cpu.cpus_online, online);
	if (!used) {
		if (bad)
			return err->code;
		return gd_err_set(err, -ENODATA, _("no cpu, ctxt or procs_* lines"));
	}
	return finish(err, bad);
}

enum gd_src_status gd_collect_proc_stat(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	return gd_collect_file(ctx, "proc/stat", gd_parse_proc_stat, s, err);
}
