/*
 * html_env.h - a series downsampled for drawing: the recording's span cut
 * into a fixed number of bins, and per bin the minimum, the maximum (and
 * which came first), the mean and the mean time of the samples that fell in
 * it (an M4-style envelope).  Drawn as min and max per bin, a one-second
 * stall in a day of samples still reaches the bottom of its chart, and the
 * page's size depends on the bins, never on the samples.
 *
 * Memory: nseries * nbins * sizeof(struct gd_env_bin), whatever the length
 * of the recording; samples are added one at a time, in any order.
 */
#ifndef GD_OUTPUT_HTML_ENV_H
#define GD_OUTPUT_HTML_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gd_env_bin {
	float min, max;
	double sum, tsum;
	uint32_t n;
	bool min_first;            /* the minimum came before the maximum */
	double tmin, tmax;         /* when they came */
};

struct gd_env {
	size_t nbins, nseries;
	double t0, t1;             /* the span the bins cover */
	struct gd_env_bin *bins;   /* nseries * nbins, series-major */
};

/* Allocates the bins; false when out of memory. */
bool gd_env_init(struct gd_env *e, size_t nseries, size_t nbins, double t0, double t1);
void gd_env_release(struct gd_env *e);
/* Adds one sample of series s at uptime t (ignored when v is not finite). */
void gd_env_add(struct gd_env *e, size_t s, double t, double v);
/* Bin of series s, or NULL when out of range. */
const struct gd_env_bin *gd_env_bin(const struct gd_env *e, size_t s, size_t b);
/* Samples of series s, and its minimum and maximum (false: no sample). */
bool gd_env_range(const struct gd_env *e, size_t s, double *lo, double *hi, uint64_t *count);
/* Its mean over the samples (NAN when none). */
double gd_env_mean(const struct gd_env *e, size_t s);
/* Adds bin b into bin a (the samples of both). */
void gd_env_bin_merge(struct gd_env_bin *a, const struct gd_env_bin *b);

/*
 * The same gathered while a recording streams past, before its end (t1) is
 * known.  The first raw_cap samples are kept as they are (a time and a
 * double per series, series allocated on their first value); past them the
 * samples go into nfine bins per series from the first time on, whose
 * width doubles (pairs of bins merged) whenever a sample falls beyond the
 * last.  gd_envs_finish() then fills an ordinary envelope over [t0, t1]:
 * from the raw samples exactly as gd_env_add() would have, or each fine bin
 * (at least two per bin of the result, as the width stays under twice
 * (t1 - t0) / nfine) into the bin of its samples' mean time.
 *
 * Memory: at most raw_cap * 8 * (1 + series used) bytes, then
 * nfine * sizeof(struct gd_env_bin) per series used, whatever the length.
 */
struct gd_envs {
	size_t nseries, raw_cap, nraw, nfine;
	double *rt;                /* raw: the samples' times */
	double **raw;              /* raw: per series, NULL until its first value (NAN: none) */
	struct gd_env_bin **fine;  /* binned: per series, NULL until its first value */
	bool binned;
	double t0, w;              /* binned: the first bin's start and the bins' width */
	double t;                  /* the current sample's time */
};

bool gd_envs_init(struct gd_envs *es, size_t nseries, size_t raw_cap, size_t nfine);
void gd_envs_release(struct gd_envs *es);
/* Starts a sample at time t; false when out of memory. */
bool gd_envs_time(struct gd_envs *es, double t);
/* Series s of the current sample (ignored when v is not finite); false when
 * out of memory. */
bool gd_envs_add(struct gd_envs *es, size_t s, double v);
/* Initialises out over [t0, t1] with nbins bins and nout series, series j
 * from the stream's map[j], and fills it; false when out of memory. */
bool gd_envs_finish(const struct gd_envs *es, const size_t *map, size_t nout, size_t nbins, double t0, double t1,
		    struct gd_env *out);

#endif
