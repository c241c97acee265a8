#include "rules/window.h"

#include <stddef.h>

#include "model/jobs.h"

bool gd_window_dt(const struct gd_window *w, double *dt)
{
	const struct gd_snapshot *a = gd_window_first(w), *b = gd_window_last(w);

	if (w->n < 2 || !a->host.uptime_s.ok || !b->host.uptime_s.ok)
		return false;
	*dt = b->host.uptime_s.v - a->host.uptime_s.v;
	return *dt > 0;
}

bool gd_counter_delta(struct gd_u64 a, struct gd_u64 b, uint64_t *d)
{
	if (!a.ok || !b.ok || b.v < a.v)
		return false;
	*d = b.v - a.v;
	return true;
}

bool gd_counter_rate(struct gd_u64 a, struct gd_u64 b, double dt, double *rate)
{
	uint64_t d;

	if (dt <= 0 || !gd_counter_delta(a, b, &d))
		return false;
	*rate = (double)d / dt;
	return true;
}

/* The tick fields share names in struct gd_cpu and struct gd_cpus. */
#define TICKS(c) \
	{ (c)->user_ticks, (c)->nice_ticks, (c)->system_ticks, (c)->irq_ticks, (c)->softirq_ticks, \
	  (c)->steal_ticks, (c)->idle_ticks, (c)->iowait_ticks }

enum { T_USER, T_NICE, T_SYSTEM, T_IRQ, T_SOFTIRQ, T_STEAL, T_IDLE, T_IOWAIT, T_N };

static bool ticks_share(const struct gd_u64 *a, const struct gd_u64 *b, unsigned first, unsigned last, double *pct)
{
	uint64_t part = 0, total = 0, d;

	for (unsigned i = 0; i < T_N; i++) {
		/* iowait may be absent on ancient kernels and can even go
		 * backwards; count it as zero rather than losing the sample. */
		if (!gd_counter_delta(a[i], b[i], &d)) {
			if (i == T_IOWAIT || i == T_STEAL)
				continue;
			return false;
		}
		total += d;
		if (i >= first && i <= last)
			part += d;
	}
	if (total == 0)
		return false;
	*pct = 100.0 * (double)part / (double)total;
	return true;
}

bool gd_cpu_busy_pct(const struct gd_cpu *a, const struct gd_cpu *b, double *pct)
{
	struct gd_u64 ta[T_N] = TICKS(a), tb[T_N] = TICKS(b);

	return ticks_share(ta, tb, T_USER, T_STEAL, pct);
}

bool gd_cpus_busy_pct(const struct gd_cpus *a, const struct gd_cpus *b, double *pct)
{
	struct gd_u64 ta[T_N] = TICKS(a), tb[T_N] = TICKS(b);

	return ticks_share(ta, tb, T_USER, T_STEAL, pct);
}

bool gd_cpus_irq_pct(const struct gd_cpus *a, const struct gd_cpus *b, double *pct)
{
	struct gd_u64 ta[T_N] = TICKS(a), tb[T_N] = TICKS(b);

	return ticks_share(ta, tb, T_IRQ, T_SOFTIRQ, pct);
}

const struct gd_proc *gd_proc_find(const struct gd_snapshot *s, uint64_t pid, uint64_t starttime)
{
	const struct gd_proc *p = gd_snapshot_proc(s, pid);

	return p && (!p->starttime_ticks.ok || p->starttime_ticks.v == starttime) ? p : NULL;
}

bool gd_proc_in_gpu_job(const struct gd_snapshot *s, const struct gd_proc *p)
{
	return gd_snapshot_in_gpu_job(s, p);
}
