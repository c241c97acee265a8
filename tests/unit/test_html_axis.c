/*
 * test_html_axis.c - the report's axis numbers (output/html_axis.c) and
 * envelopes (output/html_env.c): 1-2-5 value ticks on the ranges the
 * charts meet (SM clocks, temperatures, power, tiny and empty ranges), time
 * steps and clock-aligned ticks in a fixed time zone, the date where a
 * recording crosses midnight, and a one-sample stall surviving a day of
 * samples in 1024 bins.
 */
#include "testutil.h"

#include <stdio.h>
#include <time.h>

#include "output/html_axis.h"
#include "output/html_env.h"

static void assert_125(const struct gd_axis *ax)
{
	double m = ax->step / pow(10, floor(log10(ax->step) + 1e-9));

	assert_true(fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9);
	assert_true(ax->n >= 2);
	/* (cmocka's float asserts compare floats: too coarse here) */
	for (size_t i = 0; i < ax->n; i++) {
		assert_true(fabs(ax->v[i] / ax->step - round(ax->v[i] / ax->step)) < 1e-9);
		if (i)
			assert_true(fabs(ax->v[i] - ax->v[i - 1] - ax->step) < ax->step * 1e-9);
	}
}

static void value_ticks(void **state)
{
	struct gd_axis ax;
	char buf[32];

	(void)state;
	/* the example: SM clocks up to 1980 MHz */
	gd_axis_nice(0, 1980, 4, &ax);
	assert_float_equal(ax.step, 500, 0);
	assert_int_equal(ax.n, 5);
	assert_float_equal(ax.v[4], 2000, 0);
	assert_125(&ax);
	/* temperatures 45..88 with a slowdown at 87 */
	gd_axis_nice(40, 88, 4, &ax);
	assert_125(&ax);
	assert_true(ax.lo <= 40 && ax.hi >= 88);
	assert_float_equal(ax.step, 20, 0);
	/* power 0..735 W: no 519.8, no 1559 */
	gd_axis_nice(0, 735, 4, &ax);
	assert_125(&ax);
	assert_float_equal(ax.step, 200, 0);
	assert_float_equal(ax.hi, 800, 0);
	/* small and fractional ranges */
	gd_axis_nice(0, 0.15, 4, &ax);
	assert_125(&ax);
	assert_string_equal(gd_axis_label(ax.v[1], ax.step, buf, sizeof buf), "0.05");
	gd_axis_nice(0, 1.8, 4, &ax);
	assert_125(&ax);
	assert_string_equal(gd_axis_label(ax.v[1], ax.step, buf, sizeof buf), "0.5");
	/* empty, reversed and non-finite ranges still give an axis */
	gd_axis_nice(5, 5, 4, &ax);
	assert_125(&ax);
	assert_true(ax.lo <= 5 && ax.hi > 5);
	gd_axis_nice(100, 0, 4, &ax);
	assert_125(&ax);
	assert_float_equal(ax.lo, 0, 0);
	gd_axis_nice(NAN, INFINITY, 4, &ax);
	assert_125(&ax);
	/* a huge range never overruns the tick array */
	gd_axis_nice(-1e9, 3e12, 14, &ax);
	assert_125(&ax);
	assert_true(ax.n <= GD_AXIS_MAX_TICKS);
	assert_float_equal(gd_nice_step(495), 500, 0);
	assert_float_equal(gd_nice_step(2.0000000001), 2, 1e-12);
	assert_float_equal(gd_nice_step(0.3), 0.5, 1e-12);
	assert_float_equal(gd_nice_step(0), 1, 0);
}

static void time_ticks(void **state)
{
	struct gd_time_axis ta;
	char lab[32], date[32];

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	assert_float_equal(gd_time_step(39, 8), 5, 0);
	assert_float_equal(gd_time_step(599, 10), 60, 0);
	assert_float_equal(gd_time_step(86390, 10), 10800, 0);
	assert_float_equal(gd_time_step(3 * 86400, 10), 43200, 0);
	/* no clock: seconds since the start, whole steps: 0, 5, ... 35 s */
	gd_time_axis(5000, 5039, false, 0, 8, &ta);
	assert_float_equal(ta.step, 5, 0);
	assert_int_equal(ta.n, 8);
	gd_time_label(&ta, 1, lab, sizeof lab, date, sizeof date);
	assert_string_equal(lab, "5 s");
	assert_string_equal(date, "");
	gd_time_axis(0, 7200, false, 0, 10, &ta);
	gd_time_label(&ta, 1, lab, sizeof lab, date, sizeof date);
	assert_string_equal(lab, "15 min");
	/* a clock: ticks on multiples of the step in local time; 14:03:17
	 * start -> first tick 14:03:20 */
	{
		double wall0 = 1796133797.0;   /* 2026-12-01 14:03:17 UTC */
		double up0 = 1000;

		gd_time_axis(up0, up0 + 39, true, wall0 - up0, 8, &ta);
		assert_true(ta.clock);
		assert_false(ta.midnight);
		assert_float_equal(ta.step, 5, 0);
		assert_float_equal(ta.t[0], up0 + 3, 1e-9);
		gd_time_label(&ta, 0, lab, sizeof lab, date, sizeof date);
		assert_string_equal(lab, "14:03:20");
		assert_string_equal(date, "");
		gd_time_point(&ta, up0, lab, sizeof lab);
		assert_string_equal(lab, "2026-12-01 14:03:17");
	}
	/* a day from 20:00: 3 h steps, dated where a day starts */
	{
		double wall0 = 1796155200.0;   /* 2026-12-01 20:00:00 UTC */
		size_t dated = 0;

		gd_time_axis(100000, 100000 + 86390, true, wall0 - 100000, 10, &ta);
		assert_true(ta.midnight);
		assert_float_equal(ta.step, 10800, 0);
		for (size_t i = 0; i < ta.n; i++) {
			gd_time_label(&ta, i, lab, sizeof lab, date, sizeof date);
			if (date[0]) {
				dated++;
				assert_true(i == 0 || strcmp(lab, "00:00") == 0);
			}
			if (i == 0)
				assert_string_equal(date, "Dec 1");
			if (strcmp(lab, "00:00") == 0)
				assert_string_equal(date, "Dec 2");
		}
		assert_int_equal(dated, 2);
	}
	/* another zone: the ticks follow local time (UTC+5:30 starts at
	 * 01:30 local; 3 h ticks fall on 03:00, 06:00 local) */
	setenv("TZ", "IST-5:30", 1);
	tzset();
	gd_time_axis(100000, 100000 + 86390, true, 1796155200.0 - 100000, 10, &ta);
	gd_time_label(&ta, 0, lab, sizeof lab, date, sizeof date);
	assert_string_equal(lab, "03:00");
	setenv("TZ", "UTC", 1);
	tzset();
}

static void envelope(void **state)
{
	struct gd_env e;
	double lo, hi;
	uint64_t n;
	size_t dips = 0;

	(void)state;
	/* a day at 1 s into 1024 bins: 86400 samples of 97%, one of 0% */
	assert_true(gd_env_init(&e, 2, 1024, 0, 86399));
	for (int t = 0; t < 86400; t++) {
		gd_env_add(&e, 0, t, t == 43200 ? 0 : 97);
		gd_env_add(&e, 1, t, NAN);   /* absent values are not samples */
	}
	assert_true(gd_env_range(&e, 0, &lo, &hi, &n));
	assert_int_equal(n, 86400);
	assert_float_equal(lo, 0, 0);
	assert_float_equal(hi, 97, 0);
	assert_false(gd_env_range(&e, 1, NULL, NULL, &n));
	assert_int_equal(n, 0);
	assert_true(isnan(gd_env_mean(&e, 1)));
	for (size_t b = 0; b < e.nbins; b++) {
		const struct gd_env_bin *x = gd_env_bin(&e, 0, b);

		assert_true(x->n >= 84 && x->n <= 85);
		if (x->min == 0) {
			dips++;
			assert_float_equal(x->max, 97, 0);
			assert_true(x->min_first == (x->tmin <= x->tmax));
		}
	}
	assert_int_equal(dips, 1);
	assert_null(gd_env_bin(&e, 2, 0));
	assert_null(gd_env_bin(&e, 0, 1024));
	/* samples outside the span land in the edge bins */
	gd_env_add(&e, 0, -50, 10);
	gd_env_add(&e, 0, 1e9, 20);
	assert_int_equal(gd_env_bin(&e, 0, 0)->n, 86);
	assert_float_equal(gd_env_bin(&e, 0, 1023)->max, 97, 0);
	gd_env_release(&e);
	gd_env_release(&e);   /* idempotent */
	gd_env_release(NULL);
	/* a span of zero: one instant, every sample in the first bin */
	assert_true(gd_env_init(&e, 1, 16, 5, 5));
	gd_env_add(&e, 0, 5, 1);
	gd_env_add(&e, 0, 5, 3);
	assert_int_equal(gd_env_bin(&e, 0, 0)->n, 2);
	assert_float_equal(gd_env_mean(&e, 0), 2, 1e-12);
	gd_env_release(&e);
}

/* Streamed: under raw_cap samples exactly gd_env_add's bins; past it, a
 * day at 1 s binned as it comes keeps every sample, the extremes, the mean
 * and the one-second dip, in the bin of its time or the next. */
static void envelope_streamed(void **state)
{
	struct gd_envs es;
	struct gd_env a, b;
	size_t map[2] = { 1, 0 }, dip = 0;
	double lo, hi;
	uint64_t n;

	(void)state;
	assert_true(gd_envs_init(&es, 2, 500, 64));
	assert_true(gd_env_init(&a, 2, 32, 0, 299));
	for (int t = 0; t < 300; t++) {
		double v = t % 7 == 0 ? t : 50.0 - t % 13;

		assert_true(gd_envs_time(&es, t));
		assert_true(gd_envs_add(&es, 0, v));
		gd_env_add(&a, 1, t, v);
		if (t % 3 == 0) {
			assert_true(gd_envs_add(&es, 1, -v));
			gd_env_add(&a, 0, t, -v);
		}
	}
	assert_false(es.binned);
	assert_true(gd_envs_finish(&es, map, 2, 32, 0, 299, &b));
	for (size_t s = 0; s < 2; s++)
		for (size_t k = 0; k < 32; k++) {
			const struct gd_env_bin *x = gd_env_bin(&a, s, k), *y = gd_env_bin(&b, s, k);

			assert_int_equal(x->n, y->n);
			assert_true(x->min == y->min && x->max == y->max && x->sum == y->sum && x->tsum == y->tsum &&
				    x->min_first == y->min_first);
		}
	gd_env_release(&a);
	gd_env_release(&b);
	gd_envs_release(&es);

	assert_true(gd_envs_init(&es, 1, 4096, 4096));
	for (int t = 0; t < 86400; t++) {
		assert_true(gd_envs_time(&es, t));
		assert_true(gd_envs_add(&es, 0, t == 43200 ? 0 : 97));
	}
	assert_true(es.binned);
	map[0] = 0;
	assert_true(gd_envs_finish(&es, map, 1, 1024, 0, 86399, &b));
	assert_true(gd_env_range(&b, 0, &lo, &hi, &n));
	assert_int_equal(n, 86400);
	assert_float_equal(lo, 0, 0);
	assert_float_equal(hi, 97, 0);
	assert_float_equal(gd_env_mean(&b, 0), (97.0 * 86399) / 86400, 1e-9);
	for (size_t k = 0; k < 1024; k++)
		if (gd_env_bin(&b, 0, k)->min == 0) {
			dip++;
			assert_true(k + 1 >= 43200 * 1024 / 86399 && k <= 43200 * 1024 / 86399 + 1);
			assert_float_equal(gd_env_bin(&b, 0, k)->tmin, 43200, 0);
		}
	assert_int_equal(dip, 1);
	gd_env_release(&b);
	gd_envs_release(&es);
	gd_envs_release(&es);   /* idempotent */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(value_ticks),
		cmocka_unit_test(time_ticks),
		cmocka_unit_test(envelope),
		cmocka_unit_test(envelope_streamed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
