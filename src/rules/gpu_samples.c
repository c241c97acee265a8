/*
 * gpu_samples.c - see gpu_samples.h.  Example: samples every 167 ms of
 * 95 96 0 0 94 96 %, below 40%: n 6, mean 63.5, min 0, stall 2 x 167 =
 * 333 ms: a third of a second in which no kernel ran, inside a 1 s
 * interval whose utilisation reading said 95%.
 */
#include "rules/gpu_samples.h"

#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

struct pt {
	uint64_t t;
	uint64_t v;
};

static int pt_cmp(const void *a, const void *b)
{
	const struct pt *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

static int gap_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

bool gd_gpu_samples_window(const struct gd_window *w, uint64_t gpu, double below_pct, struct gd_gpu_samples_sum *out)
{
	const struct gd_snapshot *a, *b;
	double t0, t1, sum = 0, *gaps;
	size_t cap = 0, n = 0, u = 0, run = 0, longest = 0;
	struct pt *p;

	memset(out, 0, sizeof *out);
	if (!w || w->n < 2)
		return false;
	a = w->snaps[0];
	b = w->snaps[w->n - 1];
	if (!a->host.wall_time_s.ok || !b->host.wall_time_s.ok)
		return false;
	t0 = a->host.wall_time_s.v * 1e6;
	t1 = b->host.wall_time_s.v * 1e6;
	for (size_t i = 0; i < w->n; i++)
		cap += w->snaps[i]->gpu_samples.n;
	if (!cap)
		return false;
	p = gd_xcalloc(cap, sizeof *p);
	for (size_t i = 0; i < w->n; i++) {
		GD_VEC_EACH(w->snaps[i]->gpu_samples, const struct gd_gpu_sample, s) {
			if (!s->gpu.ok || s->gpu.v != gpu || !s->t_us.ok || !s->util_pct.ok || (double)s->t_us.v <= t0 ||
			    (double)s->t_us.v > t1)
				continue;
			p[n].t = s->t_us.v;
			p[n++].v = s->util_pct.v;
		}
	}
	qsort(p, n, sizeof *p, pt_cmp);
	for (size_t i = 0; i < n; i++)   /* one of each timestamp */
		if (!u || p[i].t != p[u - 1].t)
			p[u++] = p[i];
	if (u < 2) {
		free(p);
		return false;
	}
	gaps = gd_xcalloc(u - 1, sizeof *gaps);
	out->min = (double)p[0].v;
	for (size_t i = 0; i < u; i++) {
		sum += (double)p[i].v;
		if ((double)p[i].v < out->min)
			out->min = (double)p[i].v;
		run = (double)p[i].v < below_pct ? run + 1 : 0;
		if (run > longest)
			longest = run;
		if (i)
			gaps[i - 1] = (double)(p[i].t - p[i - 1].t) / 1e3;
	}
	qsort(gaps, u - 1, sizeof *gaps, gap_cmp);
	out->n = u;
	out->mean = sum / (double)u;
	out->period_ms = gaps[(u - 1) / 2];
	out->stall_ms = (double)longest * out->period_ms;
	free(gaps);
	free(p);
	return true;
}
