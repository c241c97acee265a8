/*
 * test_episodes.c - stall episodes (rules/episodes.c) and io.checkpoint_stall
 * on hand-built series: exact episodes, durations, GPUs, kinds, periods.
 */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "rules/episodes.h"

#define MAXS 80

struct series {
	struct gd_snapshot s[MAXS];
	const struct gd_snapshot *p[MAXS];
	size_t n;
	struct gd_window w;
	struct gd_thresholds th;
};

static struct gd_gpu *gpu(struct series *se, size_t i, unsigned g)
{
	return GD_VEC_AT(se->s[i].gpus, struct gd_gpu, g);
}

/* n samples 1 s apart (uptime 1000, 1001, ...), ngpu busy GPUs at full
 * clock, each with a compute process (a job's context). */
static struct series *series_new(size_t n, unsigned ngpu)
{
	struct series *se = calloc(1, sizeof *se);

	assert_non_null(se);
	se->n = n;
	for (size_t i = 0; i < n; i++) {
		struct gd_snapshot *s = &se->s[i];

		gd_snapshot_init(s);
		gd_f64_set(&s->host.uptime_s, 1000.0 + (double)i);
		gd_f64_set(&s->host.wall_time_s, 1700000000.0 + (double)i);
		gd_u64_set(&s->host.clk_tck, 100);
		for (unsigned g = 0; g < ngpu; g++) {
			struct gd_gpu *x = GD_PUSH(s, gpus, struct gd_gpu);
			struct gd_gpu_proc *gp = GD_PUSH(s, gpu_procs, struct gd_gpu_proc);

			gd_u64_set(&x->index, g);
			gd_u64_set(&x->minor_number, g);
			gd_u64_set(&x->util_gpu_pct, 95);
			gd_u64_set(&x->sm_clock_mhz, 1980);
			gd_u64_set(&x->sm_clock_max_mhz, 1980);
			gd_u64_set(&gp->gpu, g);
			gd_u64_set(&gp->pid, 4242);
		}
		se->p[i] = s;
	}
	se->w.snaps = se->p;
	se->w.n = n;
	gd_thresholds_init(&se->th);
	return se;
}

static void series_free(struct series *se)
{
	for (size_t i = 0; i < se->n; i++)
		gd_snapshot_release(&se->s[i]);
	free(se);
}

/* Sets gpu g's utilisation to v in samples a..b. */
static void util(struct series *se, unsigned g, size_t a, size_t b, uint64_t v)
{
	for (size_t i = a; i <= b; i++)
		gd_u64_set(&gpu(se, i, g)->util_gpu_pct, v);
}

static const struct gd_episode *ep_at(const struct gd_episodes *e, size_t i)
{
	assert_true(i < e->items.n);
	return GD_VEC_AT(e->items, const struct gd_episode, i);
}

static void one_episode(void **state)
{
	struct series *se = series_new(10, 2);
	struct gd_episodes e;
	const struct gd_episode *ep;
	char buf[256];

	util(se, 0, 2, 4, 2);
	util(se, 1, 2, 4, 3);
	gd_episodes_init(&e);
	/* pid 4242 is listed on both idle GPUs: gpu.idle_while_job_runs is the cause */
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, 0, &e), 1);
	assert_string_equal(ep_at(&e, 0)->cause, "gpu.idle_while_job_runs");
	/* silenced, no finding explains the episode */
	assert_int_equal(gd_thresholds_set(&se->th, "gpu.idle_while_job_runs.util_pct", "0", &(struct gd_err){ 0 }), 0);
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, 0, &e), 1);
	ep = ep_at(&e, 0);
	assert_int_equal(ep->first, 2);
	assert_int_equal(ep->last, 4);
	assert_true(fabs(ep->start_s - 1002.0) < 1e-9);
	assert_true(fabs(ep->duration_s - 3.0) < 1e-9);
	assert_int_equal(ep->gpus, 3);
	assert_int_equal(ep->kinds, GD_EP_IDLE);
	assert_false(ep->open);
	assert_true(ep->start_wall_s.ok);
	assert_null(ep->cause);
	assert_false(e.periodic);
	assert_string_equal(gd_ep_gpus_str(ep->gpus, buf, sizeof buf), "gpu0-1");
	setenv("TZ", "UTC", 1);
	tzset();
	assert_string_equal(gd_episode_format(ep, buf, sizeof buf),
			    "22:13:22 +3.0 s gpu0-1 idle - no finding explains it");
	gd_episodes_release(&e);
	series_free(se);
}

static void single_dip_is_not_an_episode(void **state)
{
	struct series *se = series_new(8, 1);
	struct gd_episodes e;

	util(se, 0, 3, 3, 0);
	util(se, 0, 5, 5, 0);
	gd_episodes_init(&e);
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, 0, &e), 0);
	/* With min_samples 1, each dip is one episode of 1 s. */
	assert_int_equal(gd_thresholds_set(&se->th, "episodes.min_samples", "1", &(struct gd_err){ 0 }), 0);
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, 0, &e), 2);
	assert_true(fabs(ep_at(&e, 1)->duration_s - 1.0) < 1e-9);
	gd_episodes_release(&e);
	series_free(se);
}

static void no_context_no_episode(void **state)
{
	struct series *se = series_new(6, 1);
	struct gd_episodes e;

	util(se, 0, 1, 4, 0);
	for (size_t i = 0; i < se->n; i++)
		gd_vec_reset(&se->s[i].gpu_procs);
	gd_episodes_init(&e);
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, 0, &e), 0);
	assert_int_equal(e.gpus.n, 0);
	/* A GPU job holding /dev/nvidia0 open is no context: a CUDA process
	 * opens every device node it sees (issue 12's false alarm). */
	for (size_t i = 0; i < se->n; i++) {
		struct gd_proc *p = GD_PUSH(&se->s[i], procs, struct gd_proc);

		gd_u64_set(&p->pid, 77);
		gd_u64_set(&p->nvidia_fds, 3);
		GD_STRSET(p->nvidia_devs, "3,0");
		gd_u64_set(&gpu(se, i, 0)->nvml_procs, 0);
		gd_u64_set(&gpu(se, i, 0)->mem_used_bytes, 1073741824); /* the threshold: not above */
	}
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, 0, &e), 0);
	assert_int_equal(e.gpus.n, 0);
	/* Memory beyond unseen_mem_bytes with nobody listed: an unseen process. */
	for (size_t i = 0; i < se->n; i++)
		gd_u64_set(&gpu(se, i, 0)->mem_used_bytes, 1073741825);
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, 0, &e), 1);
	assert_int_equal(ep_at(&e, 0)->first, 1);
	assert_int_equal(ep_at(&e, 0)->last, 4);
	/* A pid NVML lists that is not in procs[] (another pid namespace) is a context. */
	for (size_t i = 0; i < se->n; i++) {
		struct gd_gpu_proc *gp = GD_PUSH(&se->s[i], gpu_procs, struct gd_gpu_proc);

		gd_u64_set(&gp->gpu, 0);
		gd_u64_set(&gp->pid, 123456);
		gd_u64_set(&gpu(se, i, 0)->mem_used_bytes, 0);
	}
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, 0, &e), 1);
	assert_int_equal(ep_at(&e, 0)->first, 1);
	gd_episodes_release(&e);
	series_free(se);
}

static void slowed_clock(void **state)
{
	struct series *se = series_new(8, 1);
	struct gd_episodes e;

	for (size_t i = 2; i <= 5; i++)
		gd_u64_set(&gpu(se, i, 0)->sm_clock_mhz, i == 5 ? 1700 : 1200);  /* 61%, then 86% */
	gd_episodes_init(&e);
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, 0, &e), 1);
	assert_int_equal(ep_at(&e, 0)->first, 2);
	assert_int_equal(ep_at(&e, 0)->last, 4);
	assert_int_equal(ep_at(&e, 0)->kinds, GD_EP_SLOW);
	assert_string_equal(gd_ep_kind_str(ep_at(&e, 0)->kinds), "slowed");
	/* An idle GPU at a low clock is idle, not slowed. */
	util(se, 0, 3, 4, 1);
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, 0, &e), 1);
	assert_int_equal(ep_at(&e, 0)->kinds, GD_EP_IDLE | GD_EP_SLOW);
	gd_episodes_release(&e);
	series_free(se);
}

static void overlapping_gpus_and_counters(void **state)
{
	struct series *se = series_new(12, 3);
	struct gd_episodes e;
	const struct gd_ep_gpu *g;

	util(se, 0, 2, 4, 0);
	util(se, 2, 4, 6, 0);   /* overlaps gpu0's at sample 4 */
	util(se, 0, 9, 10, 0);
	gd_episodes_init(&e);
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, 0, &e), 2);
	assert_int_equal(ep_at(&e, 0)->first, 2);
	assert_int_equal(ep_at(&e, 0)->last, 6);
	assert_true(fabs(ep_at(&e, 0)->duration_s - 5.0) < 1e-9);
	assert_int_equal(ep_at(&e, 0)->gpus, 5);  /* gpu0 and gpu2 */
	assert_int_equal(ep_at(&e, 1)->gpus, 1);
	assert_int_equal(e.gpus.n, 3);
	g = GD_VEC_AT(e.gpus, const struct gd_ep_gpu, 0);
	assert_int_equal(g->index, 0);
	assert_int_equal(g->episodes, 2);
	assert_true(fabs(g->stalled_s - 5.0) < 1e-9);
	g = GD_VEC_AT(e.gpus, const struct gd_ep_gpu, 1);
	assert_int_equal(g->episodes, 0);
	assert_true(g->stalled_s == 0);
	g = GD_VEC_AT(e.gpus, const struct gd_ep_gpu, 2);
	assert_int_equal(g->episodes, 1);
	assert_true(fabs(g->stalled_s - 3.0) < 1e-9);
	gd_episodes_release(&e);
	series_free(se);
}

static void periodic(void **state)
{
	struct series *se = series_new(64, 1);
	struct gd_episodes e;

	/* Stalls at 5, 20, 35, 50 (15 s apart; the third one a sample late). */
	util(se, 0, 5, 7, 0);
	util(se, 0, 20, 22, 0);
	util(se, 0, 36, 38, 0);
	util(se, 0, 50, 52, 0);
	gd_episodes_init(&e);
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, GD_EP_NO_FINDINGS, &e), 4);
	assert_true(e.periodic);
	assert_true(fabs(e.period_s - 15.0) < 1e-9);
	assert_true(fabs(e.period_dev_s - 1.0) < 1e-9);
	/* Move the last one far off: no period. */
	util(se, 0, 50, 52, 95);
	util(se, 0, 60, 62, 0);
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, GD_EP_NO_FINDINGS, &e), 4);
	assert_false(e.periodic);
	/* Two episodes are never periodic. */
	util(se, 0, 36, 38, 95);
	util(se, 0, 60, 62, 95);
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, GD_EP_NO_FINDINGS, &e), 2);
	assert_false(e.periodic);
	gd_episodes_release(&e);
	series_free(se);
}

static void open_at_end_and_uptime_gaps(void **state)
{
	struct series *se = series_new(6, 1);
	struct gd_episodes e;

	util(se, 0, 3, 5, 0);
	gd_episodes_init(&e);
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, 0, &e), 1);
	assert_true(ep_at(&e, 0)->open);
	/* A sample without a clock breaks the run. */
	se->s[4].host.uptime_s.ok = false;
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, 0, &e), 0);
	/* One snapshot: nothing. */
	se->w.n = 1;
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, 0, &e), 0);
	gd_episodes_release(&e);
	series_free(se);
}

/* gpu0..1 idle at samples 4..9 while sdb writes 12 GB. */
static struct series *checkpoint_series(uint64_t sectors_per_s)
{
	struct series *se = series_new(14, 2);

	util(se, 0, 4, 9, 1);
	util(se, 1, 4, 9, 0);
	for (size_t i = 0; i < se->n; i++) {
		struct gd_disk *d = GD_PUSH(&se->s[i], disks, struct gd_disk);
		uint64_t w = 1000;

		GD_STRSET(d->name, "sdb");
		gd_u64_set(&d->whole, 1);
		gd_u64_set(&d->rotational, 1);
		for (size_t k = 1; k <= i; k++)
			w += (k >= 4 && k <= 9) ? sectors_per_s : 10;
		gd_u64_set(&d->sectors_written, w);
	}
	return se;
}

static void checkpoint_stall_fires_and_is_the_cause(void **state)
{
	/* 3906250 sectors/s = 2.0 GB/s; 6 idle samples = 6 s = 12 GB. */
	struct series *se = checkpoint_series(3906250);
	struct gd_findings f;
	struct gd_episodes e;
	const struct gd_finding *x;
	char buf[512];

	gd_findings_init(&f);
	assert_int_equal(gd_rule_run(gd_rule_find("io.checkpoint_stall"), &se->w, &se->th, &f), GD_VERDICT_FIRED);
	assert_int_equal(f.items.n, 1);
	x = FINDING(f, 0);
	assert_string_equal(x->subject, "sdb");
	assert_true(fabs(ev_get(x, "written_bytes")->value.v - 12e9) < 1);
	assert_true(fabs(ev_get(x, "idle_s")->value.v - 6.0) < 1e-9);
	assert_true(fabs(ev_get(x, "write_mb_per_s")->value.v - 2000.0) < 1e-6);
	assert_string_equal(x->summary, "Every GPU was idle for 6.0 s from uptime 1004.0 s while 12.0 GB were "
					"written to sdb (rotational) at 2.0 GB/s.");
	gd_findings_release(&f);

	gd_episodes_init(&e);
	assert_int_equal(gd_episodes_detect(&se->w, &se->th, 0, &e), 1);
	assert_string_equal(ep_at(&e, 0)->cause, "io.checkpoint_stall");
	setenv("TZ", "UTC", 1);
	tzset();
	assert_string_equal(gd_episode_format(ep_at(&e, 0), buf, sizeof buf),
			    "22:13:24 +6.0 s gpu0-1 idle - io.checkpoint_stall: Every GPU was idle for 6.0 s from "
			    "uptime 1004.0 s while 12.0 GB were written to sdb (rotational) at 2.0 GB/s.");
	gd_episodes_release(&e);

	/* Two snapshots: not evaluated. */
	se->w.n = 2;
	gd_findings_init(&f);
	assert_int_equal(gd_rule_run(gd_rule_find("io.checkpoint_stall"), &se->w, &se->th, &f), GD_VERDICT_UNKNOWN);
	assert_int_equal(f.unknown.n, 1);
	gd_findings_release(&f);
	series_free(se);
}

static void checkpoint_stall_clear_and_unknown(void **state)
{
	struct series *se = checkpoint_series(10000);  /* 30 MB: no burst */
	struct gd_findings f;

	gd_findings_init(&f);
	assert_int_equal(gd_rule_run(gd_rule_find("io.checkpoint_stall"), &se->w, &se->th, &f), GD_VERDICT_CLEAR);
	gd_findings_release(&f);
	series_free(se);

	/* A burst while one GPU still works is not a checkpoint stall. */
	se = checkpoint_series(3906250);
	util(se, 1, 4, 9, 60);
	gd_findings_init(&f);
	assert_int_equal(gd_rule_run(gd_rule_find("io.checkpoint_stall"), &se->w, &se->th, &f), GD_VERDICT_CLEAR);
	gd_findings_release(&f);
	series_free(se);

	/* A 1 s idle stretch is shorter than idle_s. */
	se = checkpoint_series(3906250);
	util(se, 0, 5, 9, 95);
	util(se, 1, 5, 9, 95);
	gd_findings_init(&f);
	assert_int_equal(gd_rule_run(gd_rule_find("io.checkpoint_stall"), &se->w, &se->th, &f), GD_VERDICT_CLEAR);
	gd_findings_release(&f);
	series_free(se);

	/* No GPUs: unknown. */
	se = series_new(5, 0);
	gd_findings_init(&f);
	assert_int_equal(gd_rule_run(gd_rule_find("io.checkpoint_stall"), &se->w, &se->th, &f), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(GD_VEC_AT(f.unknown, struct gd_unknown, 0)->reason, "no GPU utilisation"));
	gd_findings_release(&f);
	series_free(se);
}

/* A deterministic pseudo-random series (xorshift, fixed seeds): runs of
 * idle, slowed and busy samples on 3 GPUs, some samples without uptime, a
 * GPU that appears late. */
static uint32_t rnd(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static struct series *random_series(uint32_t seed)
{
	struct series *se = series_new(MAXS, 3);
	uint32_t x = seed;

	for (unsigned g = 0; g < 3; g++)
		for (size_t i = 0; i < se->n;) {
			size_t len = 1 + rnd(&x) % 6, k = rnd(&x) % 4;

			for (size_t j = i; j < i + len && j < se->n; j++) {
				if (k == 0)
					gd_u64_set(&gpu(se, j, g)->util_gpu_pct, 2);
				else if (k == 1)
					gd_u64_set(&gpu(se, j, g)->sm_clock_mhz, 900);
			}
			i += len;
		}
	for (size_t i = 0; i < se->n; i++) {
		if (rnd(&x) % 29 == 0)
			se->s[i].host.uptime_s.ok = false;
		if (i < 7)  /* gpu2 is not listed at first */
			se->s[i].gpus.n = 2;
	}
	return se;
}

/* Streams se with the last keep snapshots as the window (0: all). */
static void stream(struct series *se, size_t keep, struct gd_episodes *e)
{
	struct gd_ep_stream *es = gd_ep_stream_new(&se->th, 0);
	struct gd_window w = { se->p, 0 };
	size_t base = 0;

	assert_non_null(es);
	for (size_t i = 0; i < se->n; i++) {
		base = keep && i + 1 > keep ? i + 1 - keep : 0;
		w.snaps = se->p + base;
		w.n = i + 1 - base;
		assert_true(gd_ep_stream_push(es, &w, base));
	}
	gd_ep_stream_finish(es, &w, base, e);
	gd_ep_stream_free(es);
}

static void same_episodes(const struct gd_episodes *a, const struct gd_episodes *b, bool findings)
{
	assert_int_equal(a->items.n, b->items.n);
	assert_int_equal(a->samples, b->samples);
	for (size_t i = 0; i < a->items.n; i++) {
		const struct gd_episode *x = ep_at(a, i), *y = ep_at(b, i);

		assert_int_equal(x->first, y->first);
		assert_int_equal(x->last, y->last);
		assert_true(x->start_s == y->start_s && x->end_s == y->end_s && x->duration_s == y->duration_s);
		assert_int_equal(x->start_wall_s.ok, y->start_wall_s.ok);
		assert_true(x->gpus == y->gpus);
		assert_int_equal(x->kinds, y->kinds);
		assert_int_equal(x->open, y->open);
		if (!findings)
			continue;
		assert_true(x->cause == y->cause);
		assert_int_equal(x->nfindings, y->nfindings);
		for (size_t k = 0; k < x->nfindings; k++) {
			assert_string_equal(x->findings[k].id, y->findings[k].id);
			assert_string_equal(x->findings[k].summary, y->findings[k].summary);
		}
	}
	assert_int_equal(a->gpus.n, b->gpus.n);
	for (size_t i = 0; i < a->gpus.n; i++) {
		const struct gd_ep_gpu *x = GD_VEC_AT(a->gpus, const struct gd_ep_gpu, i);
		const struct gd_ep_gpu *y = GD_VEC_AT(b->gpus, const struct gd_ep_gpu, i);

		assert_int_equal(x->index, y->index);
		assert_int_equal(x->episodes, y->episodes);
		assert_true(x->stalled_s == y->stalled_s);
	}
	/* (whether the episodes of one cause repeat depends on the causes) */
	if (findings || (!a->period_cause && !b->period_cause)) {
		assert_int_equal(a->periodic, b->periodic);
		assert_true(a->period_s == b->period_s && a->period_cause == b->period_cause);
	}
}

/* The streaming detector finds what gd_episodes_detect finds: with every
 * snapshot in its window, findings included; with the last 12, the same
 * episodes. */
static void stream_matches_detect(void **state)
{
	size_t total = 0;

	for (uint32_t seed = 1; seed <= 40; seed++) {
		struct series *se = random_series(seed * 2654435761u);

		for (double min = 1; min <= 3; min++) {
			struct gd_episodes a, b, c;

			se->th.v[GD_TH_EPISODES_MIN_SAMPLES] = min;
			gd_episodes_init(&a);
			gd_episodes_init(&b);
			gd_episodes_init(&c);
			gd_episodes_detect(&se->w, &se->th, 0, &a);
			stream(se, 0, &b);
			stream(se, 12, &c);
			same_episodes(&a, &b, true);
			same_episodes(&a, &c, false);
			total += a.items.n;
			gd_episodes_release(&a);
			gd_episodes_release(&b);
			gd_episodes_release(&c);
		}
		series_free(se);
	}
	assert_true(total > 100);  /* the series do hold episodes */
}

/* The engine over one window through gd_engine_acc is gd_engine_run; over
 * two overlapping windows a finding is kept once. */
static void engine_acc_one_and_two_windows(void **state)
{
	struct series *se = checkpoint_series(3906250);
	struct gd_findings f, g;
	struct gd_engine_acc acc;
	struct gd_window half = { se->p, 8 };

	gd_findings_init(&f);
	gd_findings_init(&g);
	gd_engine_run(&se->w, &se->th, &f);
	assert_true(gd_engine_acc_init(&acc));
	gd_engine_acc_run(&acc, &se->w, &se->th);
	gd_engine_acc_finish(&acc, &g);
	assert_true(f.items.n > 0);
	assert_int_equal(f.items.n, g.items.n);
	assert_int_equal(f.unknown.n, g.unknown.n);
	assert_int_equal(f.evaluated, g.evaluated);
	for (size_t i = 0; i < f.items.n; i++) {
		const struct gd_finding *x = GD_VEC_AT(f.items, const struct gd_finding, i);
		const struct gd_finding *y = GD_VEC_AT(g.items, const struct gd_finding, i);

		assert_string_equal(x->id, y->id);
		assert_string_equal(x->subject, y->subject);
		assert_string_equal(x->summary, y->summary);
	}
	for (size_t i = 0; i < f.unknown.n; i++)
		assert_string_equal(GD_VEC_AT(f.unknown, const struct gd_unknown, i)->reason,
				    GD_VEC_AT(g.unknown, const struct gd_unknown, i)->reason);
	gd_engine_acc_release(&acc);
	gd_findings_release(&g);

	/* the first 8 samples, then all: each finding once, io.checkpoint_stall
	 * (which the first window cannot see whole) from the second */
	gd_findings_init(&g);
	assert_true(gd_engine_acc_init(&acc));
	gd_engine_acc_run(&acc, &half, &se->th);
	gd_engine_acc_run(&acc, &se->w, &se->th);
	gd_engine_acc_finish(&acc, &g);
	assert_int_equal(f.items.n, g.items.n);
	for (size_t i = 0; i < g.items.n; i++) {
		const struct gd_finding *x = GD_VEC_AT(g.items, const struct gd_finding, i);

		for (size_t j = 0; j < i; j++)
			assert_false(strcmp(x->id, GD_VEC_AT(g.items, const struct gd_finding, j)->id) == 0 &&
				     strcmp(x->subject, GD_VEC_AT(g.items, const struct gd_finding, j)->subject) == 0);
	}
	assert_non_null(gd_rule_find("io.checkpoint_stall"));
	assert_true(g.evaluated >= f.evaluated);
	gd_engine_acc_release(&acc);
	gd_findings_release(&g);
	gd_findings_release(&f);
	series_free(se);
}

static void gpus_str(void **state)
{
	char buf[64];

	assert_string_equal(gd_ep_gpus_str(0x1, buf, sizeof buf), "gpu0");
	assert_string_equal(gd_ep_gpus_str(0xff, buf, sizeof buf), "gpu0-7");
	assert_string_equal(gd_ep_gpus_str(0x2d, buf, sizeof buf), "gpu0,2-3,5");
	assert_string_equal(gd_ep_gpus_str(1ull << 63, buf, sizeof buf), "gpu63");
	assert_string_equal(gd_ep_gpus_str(0, buf, sizeof buf), "no GPU");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_episode),
		cmocka_unit_test(single_dip_is_not_an_episode),
		cmocka_unit_test(no_context_no_episode),
		cmocka_unit_test(slowed_clock),
		cmocka_unit_test(overlapping_gpus_and_counters),
		cmocka_unit_test(periodic),
		cmocka_unit_test(open_at_end_and_uptime_gaps),
		cmocka_unit_test(checkpoint_stall_fires_and_is_the_cause),
		cmocka_unit_test(checkpoint_stall_clear_and_unknown),
		cmocka_unit_test(gpus_str),
		cmocka_unit_test(stream_matches_detect),
		cmocka_unit_test(engine_acc_one_and_two_windows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
