/*
 * html_env.c - min/max envelopes of series (html_env.h).
 */
#include "output/html_env.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

void gd_env_bin_merge(struct gd_env_bin *a, const struct gd_env_bin *b)
{
	if (!b->n)
		return;
	if (!a->n || b->min < a->min || (b->min == a->min && b->tmin < a->tmin)) {
		a->min = b->min;
		a->tmin = b->tmin;
	}
	if (!a->n || b->max > a->max || (b->max == a->max && b->tmax < a->tmax)) {
		a->max = b->max;
		a->tmax = b->tmax;
	}
	a->min_first = a->tmin <= a->tmax;
	a->sum += b->sum;
	a->tsum += b->tsum;
	a->n += b->n;
}

/* ---- streaming (gd_envs) -------------------------------------------------- */

bool gd_envs_init(struct gd_envs *es, size_t nseries, size_t raw_cap, size_t nfine)
{
	memset(es, 0, sizeof *es);
	es->nseries = nseries;
	es->raw_cap = raw_cap ? raw_cap : 1;
	es->nfine = nfine >= 2 ? nfine & ~(size_t)1 : 2;
	es->raw = calloc(nseries ? nseries : 1, sizeof *es->raw);
	es->fine = calloc(nseries ? nseries : 1, sizeof *es->fine);
	es->rt = calloc(es->raw_cap, sizeof *es->rt);
	if (!es->raw || !es->fine || !es->rt) {
		gd_envs_release(es);
		return false;
	}
	return true;
}

void gd_envs_release(struct gd_envs *es)
{
	if (!es)
		return;
	for (size_t s = 0; s < es->nseries; s++) {
		if (es->raw)
			free(es->raw[s]);
		if (es->fine)
			free(es->fine[s]);
	}
	free(es->raw);
	free(es->fine);
	free(es->rt);
	memset(es, 0, sizeof *es);
}

static void fine_add(struct gd_envs *es, size_t s, double t, double v)
{
	struct gd_env_bin one = { (float)v, (float)v, v, t, 1, true, t, t };
	double k = floor((t - es->t0) / es->w);

	/* beyond the last bin: merge pairs until it fits */
	while (k >= (double)es->nfine) {
		for (size_t j = 0; j < es->nseries; j++) {
			struct gd_env_bin *b = es->fine[j];

			if (!b)
				continue;
			for (size_t i = 0; i < es->nfine / 2; i++) {
				struct gd_env_bin m = b[2 * i];

				gd_env_bin_merge(&m, &b[2 * i + 1]);
				b[i] = m;
			}
			memset(b + es->nfine / 2, 0, es->nfine / 2 * sizeof *b);
		}
		es->w *= 2;
		k = floor((t - es->t0) / es->w);
	}
	gd_env_bin_merge(&es->fine[s][k > 0 ? (size_t)k : 0], &one);
}

/* From raw samples to fine bins: the first bins' width such that what came
 * so far fills about half of them. */
static bool go_binned(struct gd_envs *es)
{
	double lo = INFINITY, hi = -INFINITY;

	for (size_t i = 0; i < es->nraw; i++) {
		lo = fmin(lo, es->rt[i]);
		hi = fmax(hi, es->rt[i]);
	}
	es->t0 = isfinite(lo) ? lo : 0;
	es->w = isfinite(lo) && hi > lo ? 2 * (hi - lo) / (double)es->nfine : 1e-3;
	for (size_t s = 0; s < es->nseries; s++) {
		if (!es->raw[s])
			continue;
		if (!(es->fine[s] = calloc(es->nfine, sizeof *es->fine[s])))
			return false;
	}
	es->binned = true;
	for (size_t s = 0; s < es->nseries; s++) {
		if (!es->raw[s])
			continue;
		for (size_t i = 0; i < es->nraw; i++)
			if (isfinite(es->raw[s][i]))
				fine_add(es, s, es->rt[i], es->raw[s][i]);
		free(es->raw[s]);
		es->raw[s] = NULL;
	}
	free(es->rt);
	es->rt = NULL;
	return true;
}

bool gd_envs_time(struct gd_envs *es, double t)
{
	es->t = t;
	if (es->binned)
		return true;
	if (es->nraw == es->raw_cap)
		return go_binned(es);
	es->rt[es->nraw++] = t;
	return true;
}

bool gd_envs_add(struct gd_envs *es, size_t s, double v)
{
	if (s >= es->nseries || !isfinite(v) || !isfinite(es->t))
		return true;
	if (es->binned) {
		if (!es->fine[s] && !(es->fine[s] = calloc(es->nfine, sizeof *es->fine[s])))
			return false;
		fine_add(es, s, es->t, v);
		return true;
	}
	if (!es->nraw)
		return true;
	if (!es->raw[s]) {
		if (!(es->raw[s] = malloc(es->raw_cap * sizeof *es->raw[s])))
			return false;
		for (size_t i = 0; i < es->raw_cap; i++)
			es->raw[s][i] = NAN;
	}
	es->raw[s][es->nraw - 1] = v;
	return true;
}

bool gd_envs_finish(const struct gd_envs *es, const size_t *map, size_t nout, size_t nbins, double t0, double t1,
		    struct gd_env *out)
{
	double span;

	if (!gd_env_init(out, nout, nbins, t0, t1))
		return false;
	span = out->t1 - out->t0;
	for (size_t j = 0; j < nout; j++) {
		size_t s = map[j];

		if (s >= es->nseries)
			continue;
		if (!es->binned && es->raw[s]) {
			for (size_t i = 0; i < es->nraw; i++)
				gd_env_add(out, j, es->rt[i], es->raw[s][i]);
		} else if (es->binned && es->fine[s]) {
			for (size_t i = 0; i < es->nfine; i++) {
				const struct gd_env_bin *b = &es->fine[s][i];
				double tm;
				size_t k;

				if (!b->n)
					continue;
				tm = b->tsum / b->n;
				k = span > 0 ? (size_t)fmax(0, floor((tm - out->t0) / span * (double)out->nbins)) : 0;
				if (k >= out->nbins)
					k = out->nbins - 1;
				gd_env_bin_merge(&out->bins[j * out->nbins + k], b);
			}
		}
	}
	return true;
}
