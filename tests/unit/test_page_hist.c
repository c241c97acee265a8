/*
 * test_page_hist.c - the history serve's node page draws
 * (gd_tl_acc_new_sliding, output/html_data.c): bounded min/max envelopes
 * over the last span only.  Five hours of samples a second apart into a
 * 100-second ring of 51 bins: the envelope holds the last 100 s (an early
 * spike is gone), a one-sample dip inside it survives to the bottom, the
 * bins line up with the time axis, a GPU lost inside the span is marked at
 * its sample and one lost before it at the span's start, and a sample
 * older than the ring is ignored.  The ring's compact bins (half floats,
 * sixteenths of a bin for the times) keep a value to 0.05%, from a GPU's
 * watts to a host's 400 GB/s, and which of the minimum and maximum came
 * first.
 */
#include "testutil.h"

#include "output/html_report.h"
#include "output/timeline.h"
#include "rules/episodes.h"

#define SPAN 100.0
#define BINS 51

static void sample(struct gd_tl_acc *a, struct gd_snapshot *prev, struct gd_snapshot *s, double t, double util,
		   bool lost1)
{
	struct gd_gpu *g;

	gd_snapshot_release(s);
	gd_snapshot_init(s);
	gd_f64_set(&s->host.uptime_s, t);
	for (unsigned i = 0; i < 2; i++) {
		g = gd_vec_push(&s->gpus, sizeof *g);
		gd_u64_set(&g->index, i);
		if (i == 1 && lost1) {
			gd_u64_set(&g->lost, 1);
			continue;
		}
		gd_u64_set(&g->util_gpu_pct, i == 0 ? (uint64_t)util : 90);
		gd_u64_set(&g->sm_clock_mhz, 1980);
		gd_u64_set(&g->sm_clock_max_mhz, 1980);
	}
	assert_true(gd_tl_acc_add(a, prev, s));
}

static void gather(const struct gd_tl_acc *a, struct gd_snapshot *last, struct html_ctx *c, struct gd_findings *f,
		   struct gd_episodes *e)
{
	const struct gd_snapshot *one[1] = { last };
	struct gd_window w = { one, 1 };
	struct gd_timeline t = { &w, 1, a, f, e, NULL, NULL };

	assert_true(gd_html_gather(c, &t));
}

static void sliding_keeps_the_span(void **state)
{
	struct gd_tl_acc *a = gd_tl_acc_new_sliding(NULL, SPAN, BINS);
	struct gd_snapshot s[2];
	struct gd_findings f;
	struct gd_episodes e;
	struct html_ctx *c = calloc(1, sizeof *c);
	double lo, hi, t = 0;
	uint64_t n;

	(void)state;
	assert_non_null(a);
	assert_non_null(c);
	gd_findings_init(&f);
	gd_episodes_init(&e);
	gd_snapshot_init(&s[0]);
	gd_snapshot_init(&s[1]);
	for (int i = 0; i <= 18000; i++) {
		t = 1000 + i;
		/* a spike long before the span, a one-sample dip inside it;
		 * gpu1 lost 30 s before the end */
		sample(a, i ? &s[(i + 1) % 2] : NULL, &s[i % 2], t, i == 100 ? 100 : i == 18000 - 40 ? 0 : 50,
		       i >= 18000 - 30);
	}
	gather(a, &s[18000 % 2], c, &f, &e);
	assert_int_equal(c->ngpu, 2);
	assert_true(c->env.nbins <= BINS);
	/* the axis is the bins' span: the last SPAN seconds and one bin */
	assert_true(c->ta.t1 >= t && c->ta.t1 - t <= SPAN / (BINS - 1) + 1e-9);
	assert_true(c->ta.t0 >= t - SPAN - SPAN / (BINS - 1) - 1e-9 && c->ta.t0 <= t - SPAN + 1e-9);
	assert_true(fabs(c->env.t0 - c->ta.t0) < 1e-9 && fabs(c->env.t1 - c->ta.t1) < 1e-9);
	assert_true(gd_env_range(&c->env, html_gs(c, 0, GS_UTIL), &lo, &hi, &n));
	assert_float_equal(lo, 0, 0);    /* the dip survives */
	assert_float_equal(hi, 50, 0);   /* the early spike is gone */
	assert_true(n >= SPAN - 1 && n <= SPAN + SPAN / (BINS - 1) + 1);
	assert_true(c->gpu[1].lost);
	assert_true(fabs(c->gpu[1].lost_at - (t - 30)) < 1e-9);
	gd_html_ctx_release(c);

	/* a sample older than the ring is ignored; the envelope is unchanged */
	sample(a, NULL, &s[0], t - 10 * SPAN, 100, false);
	gather(a, &s[1], c, &f, &e);
	assert_true(gd_env_range(&c->env, html_gs(c, 0, GS_UTIL), &lo, &hi, &n));
	assert_float_equal(hi, 50, 0);
	gd_html_ctx_release(c);

	/* gpu1 lost since long before the span: marked from its start */
	{
		struct gd_tl_acc *b = gd_tl_acc_new_sliding(NULL, SPAN, BINS);

		for (int i = 0; i <= 1000; i++)
			sample(b, i ? &s[(i + 1) % 2] : NULL, &s[i % 2], 5000 + i, 50, i >= 10);
		gather(b, &s[1000 % 2], c, &f, &e);
		assert_true(c->gpu[1].lost);
		assert_true(fabs(c->gpu[1].lost_at - c->ta.t0) < 1e-9);
		gd_html_ctx_release(c);
		gd_tl_acc_free(b);
	}
	gd_snapshot_release(&s[0]);
	gd_snapshot_release(&s[1]);
	gd_findings_release(&f);
	gd_episodes_release(&e);
	gd_tl_acc_free(a);
	free(c);
}

/* Two samples a bin: power and PCIe throughput as given, util down then up. */
static void sliding_bins_keep_values(void **state)
{
	struct gd_tl_acc *a = gd_tl_acc_new_sliding(NULL, SPAN, BINS);
	struct gd_snapshot s[2];
	struct gd_findings f;
	struct gd_episodes e;
	struct html_ctx *c = calloc(1, sizeof *c);
	const double watts[] = { 412.37, 0.5, 699.9, 87.25 };
	const uint64_t kbps[] = { 400000000, 1, 25000, 1000000000000ull };   /* 400 GB/s; past the clamp */
	double lo, hi, mean;
	uint64_t n;
	size_t s_pow, s_pcie, s_util;
	const struct gd_env_bin *b;

	(void)state;
	assert_non_null(a);
	assert_non_null(c);
	gd_findings_init(&f);
	gd_episodes_init(&e);
	gd_snapshot_init(&s[0]);
	gd_snapshot_init(&s[1]);
	for (int i = 0; i < 4; i++) {
		struct gd_gpu *g;

		gd_snapshot_release(&s[i % 2]);
		gd_snapshot_init(&s[i % 2]);
		gd_f64_set(&s[i % 2].host.uptime_s, 2000 + i);   /* bins 2 s wide: 0-1, 2-3 */
		g = gd_vec_push(&s[i % 2].gpus, sizeof *g);
		gd_u64_set(&g->index, 0);
		gd_f64_set(&g->power_w, watts[i]);
		gd_u64_set(&g->pcie_tx_kbps, kbps[i]);
		gd_u64_set(&g->util_gpu_pct, i == 0 ? 90 : i == 1 ? 10 : i == 2 ? 10 : 90);
		assert_true(gd_tl_acc_add(a, NULL, &s[i % 2]));
	}
	gather(a, &s[1], c, &f, &e);
	s_pow = html_gs(c, 0, GS_POWER);
	s_pcie = html_gs(c, 0, GS_PCIE);
	s_util = html_gs(c, 0, GS_UTIL);
	assert_true(gd_env_range(&c->env, s_pow, &lo, &hi, &n));
	assert_int_equal(n, 4);
	assert_true(fabs(lo - 0.5) <= 0.5 * 5e-4);
	assert_true(fabs(hi - 699.9) <= 699.9 * 5e-4);
	mean = gd_env_mean(&c->env, s_pow);
	assert_true(fabs(mean - (412.37 + 0.5 + 699.9 + 87.25) / 4) <= 300 * 1e-3);
	assert_true(gd_env_range(&c->env, s_pcie, &lo, &hi, &n));
	assert_true(fabs(lo - 0.001) <= 0.001 * 0.02);   /* 1 kB/s, below the half float's normal range */
	assert_true(hi >= 4.19e6 && hi <= 4.2e6);         /* a billion MB/s clamps at 4.19 million */
	/* the first bin (90 then 10): the maximum first; the second (10 then 90): the minimum */
	for (size_t k = 0, seen = 0; k < c->env.nbins; k++) {
		b = gd_env_bin(&c->env, s_util, k);
		if (!b || !b->n)
			continue;
		assert_int_equal(b->n, 2);
		assert_true(b->min_first == (seen == 1));
		assert_true(seen ? b->tmin < b->tmax : b->tmax < b->tmin);
		assert_true(b->tsum / b->n > c->env.t0 && b->tsum / b->n < c->env.t1);
		seen++;
	}
	gd_html_ctx_release(c);
	gd_snapshot_release(&s[0]);
	gd_snapshot_release(&s[1]);
	gd_findings_release(&f);
	gd_episodes_release(&e);
	gd_tl_acc_free(a);
	free(c);
}

static void sliding_refuses_nonsense(void **state)
{
	(void)state;
	assert_null(gd_tl_acc_new_sliding(NULL, 0, BINS));
	assert_null(gd_tl_acc_new_sliding(NULL, SPAN, 1));
	assert_null(gd_tl_acc_new_sliding(NULL, NAN, BINS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sliding_keeps_the_span),
		cmocka_unit_test(sliding_bins_keep_values),
		cmocka_unit_test(sliding_refuses_nonsense),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
