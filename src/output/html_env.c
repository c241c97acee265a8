/*
 * html_env.c - min/max envelopes of series (html_env.h).
 */
#include "output/html_env.h"

#include <math.h>
#include <stdlib.h>

bool gd_env_init(struct gd_env *e, size_t nseries, size_t nbins, double t0, double t1)
{
	e->nbins = nbins ? nbins : 1;
	e->nseries = nseries;
	e->t0 = t0;
	e->t1 = t1 > t0 ? t1 : t0;
	e->bins = calloc(e->nbins * (nseries ? nseries : 1), sizeof *e->bins);
	return e->bins != NULL;
}

void gd_env_release(struct gd_env *e)
{
	if (!e)
		return;
	free(e->bins);
	e->bins = NULL;
}

void gd_env_add(struct gd_env *e, size_t s, double t, double v)
{
	struct gd_env_bin *b;
	double span = e->t1 - e->t0;
	size_t k;

	if (s >= e->nseries || !isfinite(v) || !isfinite(t))
		return;
	k = span > 0 ? (size_t)fmax(0, floor((t - e->t0) / span * (double)e->nbins)) : 0;
	if (k >= e->nbins)
		k = e->nbins - 1;
	b = &e->bins[s * e->nbins + k];
	if (!b->n || v < b->min) {
		b->min = (float)v;
		b->tmin = t;
	}
	if (!b->n || v > b->max) {
		b->max = (float)v;
		b->tmax = t;
	}
	b->min_first = b->tmin <= b->tmax;
	b->sum += v;
	b->tsum += t;
	b->n++;
}

const struct gd_env_bin *gd_env_bin(const struct gd_env *e, size_t s, size_t b)
{
	return s < e->nseries && b < e->nbins ? &e->bins[s * e->nbins + b] : NULL;
}

bool gd_env_range(const struct gd_env *e, size_t s, double *lo, double *hi, uint64_t *count)
{
	double a = INFINITY, z = -INFINITY;
	uint64_t n = 0;

	for (size_t k = 0; s < e->nseries && k < e->nbins; k++) {
		const struct gd_env_bin *b = &e->bins[s * e->nbins + k];

		if (!b->n)
			continue;
		a = fmin(a, b->min);
		z = fmax(z, b->max);
		n += b->n;
	}
	if (lo)
		*lo = a;
	if (hi)
		*hi = z;
	if (count)
		*count = n;
	return n > 0;
}

double gd_env_mean(const struct gd_env *e, size_t s)
{
	double sum = 0;
	uint64_t n = 0;

	for (size_t k = 0; s < e->nseries && k < e->nbins; k++) {
		sum += e->bins[s * e->nbins + k].sum;
		n += e->bins[s * e->nbins + k].n;
	}
	return n ? sum / (double)n : NAN;
}
