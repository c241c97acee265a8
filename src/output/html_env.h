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

#endif
