/*
 * html_axis.h - the numbers on the report's axes: value ticks at 1-2-5
 * steps in the data's unit (0, 500, 1000, 1500, 2000 MHz), and time ticks
 * at whole seconds, minutes or hours, on the host's local clock when the
 * recording carries wall time (with the date where a tick starts a new day),
 * else as time since the start ("30 s", "5 min", "2 h").  Pure arithmetic:
 * no I/O, no state.
 */
#ifndef GD_OUTPUT_HTML_AXIS_H
#define GD_OUTPUT_HTML_AXIS_H

#include <stdbool.h>
#include <stddef.h>

#define GD_AXIS_MAX_TICKS 16

struct gd_axis {
	double lo, hi;                  /* the drawn range: multiples of step */
	double step;                    /* 1, 2 or 5 times a power of ten */
	size_t n;
	double v[GD_AXIS_MAX_TICKS];    /* lo, lo + step, ..., hi */
};

/* The smallest 1-2-5 step (1, 2, 5, 10, 20, ...) of at least raw (> 0). */
double gd_nice_step(double raw);
/* Ticks over [lo, hi] (lo <= hi) with about target intervals (2..10): the
 * range is widened to multiples of the step; an empty range becomes one
 * step wide. */
void gd_axis_nice(double lo, double hi, int target, struct gd_axis *ax);
/* A tick value as people write it: "0", "500", "1500", "0.5", "2.5". */
const char *gd_axis_label(double v, double step, char *buf, size_t size);

/* Time ticks: the step is one of 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15,
 * 30 min, 1, 2, 3, 6, 12 h, 1 day (the smallest giving at most target
 * intervals over span).  With a clock (wall = uptime + offset), ticks fall
 * on multiples of the step in local time; else on multiples of the step
 * since t0. */
struct gd_time_axis {
	double t0, t1;                  /* uptime span of the recording */
	bool clock;                     /* offset known: labels are local times */
	double offset;                  /* wall time = uptime + offset */
	double step;                    /* seconds */
	bool midnight;                  /* the span crosses a local midnight */
	size_t n;
	double t[64];                   /* tick uptimes within [t0, t1] */
};

double gd_time_step(double span, int target);
void gd_time_axis(double t0, double t1, bool clock, double offset, int target, struct gd_time_axis *ta);
/* The label of tick i: "14:03:20" (steps under a minute), "14:05" (else),
 * or "30 s", "5 min", "2 h" since the start; date is set to "Dec 2"
 * where the tick is the first of a day on an axis that crosses midnight
 * (and the first tick of such an axis), else to "". */
void gd_time_label(const struct gd_time_axis *ta, size_t i, char *buf, size_t size, char *date, size_t dsize);
/* Local wall time of an uptime as "2026-12-01 14:03:20" (or "up 123.4 s"). */
const char *gd_time_point(const struct gd_time_axis *ta, double t, char *buf, size_t size);

#endif
