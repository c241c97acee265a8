/*
 * value.h - scalars that know whether they exist.
 *
 * Zero is a value, never "unknown" (libuv's meminfo returning 0 for a missing
 * key is the trap this avoids).  Every numeric field of the snapshot is one of
 * these; rules test .ok before they read .v.
 */
#ifndef GD_MODEL_VALUE_H
#define GD_MODEL_VALUE_H

#include <stdbool.h>
#include <stdint.h>

struct gd_u64 {
	uint64_t v;
	bool ok;
};

struct gd_f64 {
	double v;
	bool ok;
};

static inline void gd_u64_set(struct gd_u64 *x, uint64_t v)
{
	x->v = v;
	x->ok = true;
}

static inline void gd_f64_set(struct gd_f64 *x, double v)
{
	x->v = v;
	x->ok = true;
}

static inline struct gd_f64 gd_f64_of(double v)
{
	struct gd_f64 x = { v, true };

	return x;
}

static inline struct gd_f64 gd_f64_none(void)
{
	struct gd_f64 x = { 0, false };

	return x;
}

#endif
