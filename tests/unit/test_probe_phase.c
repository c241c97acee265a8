/*
 * test_probe_phase.c - the probe phase of each sample and of each finding
 * (src/probe/result.c): the labels the child's state gives, and findings of
 * the load rules tagged with the phase that provoked them (evidence
 * during_probe), on hand-built series.
 */
#include "testutil.h"

#include <stdio.h>

#include "probe/probe.h"
#include "probe/result.h"

static void label_of(const struct gd_probe_shm *shm, const int *idx, const char *want)
{
	char buf[GD_PROBE_PHASE_MAX];

	gd_probe_phase_label(shm, idx, buf, sizeof buf);
	if (strcmp(buf, want) != 0)
		fail_msg("label \"%s\", want \"%s\"", buf, want);
}

static void labels(void **state)
{
	static struct gd_probe_shm shm;
	int idx[3] = { 0, 1, 2 }, far[3] = { 4, 6, 7 };
	char small[12];

	(void)state;
	memset(&shm, 0, sizeof shm);
	shm.ngpus = 3;
	for (int i = 0; i < 3; i++)
		shm.gpu[i].phase = GD_PK_NONE;
	/* before the child starts: its main phase is still 0, no GPU runs */
	label_of(&shm, idx, "");
	shm.phase = GD_PK_SETUP;
	label_of(&shm, idx, "setup");
	for (int i = 0; i < 3; i++)
		shm.gpu[i].phase = GD_PK_SETUP;
	label_of(&shm, idx, "setup");
	for (int i = 0; i < 3; i++)
		shm.gpu[i].phase = GD_PK_COMPUTE_FP32;
	label_of(&shm, idx, "compute_fp32");
	shm.gpu[2].phase = GD_PK_NONE;   /* gpu2 done, at the barrier */
	label_of(&shm, idx, "compute_fp32 gpu0-1");
	shm.gpu[0].phase = GD_PK_COMPUTE_BF16;
	shm.gpu[1].phase = GD_PK_MEM_BANDWIDTH;
	shm.gpu[2].phase = GD_PK_MEM_BANDWIDTH;
	label_of(&shm, idx, "compute_bf16 gpu0, mem_bandwidth gpu1-2");
	label_of(&shm, far, "compute_bf16 gpu4, mem_bandwidth gpu6-7");
	/* one GPU copies alone: NVML indices, not the child's order */
	shm.gpu[0].phase = GD_PK_NONE;
	shm.gpu[1].phase = GD_PK_H2D;
	shm.gpu[2].phase = GD_PK_NONE;
	label_of(&shm, far, "h2d gpu6");
	/* between two probes: the main thread is still "in set-up", but a
	 * probe has run, so nothing is named */
	shm.gpu[1].phase = GD_PK_NONE;
	shm.gpu[1].res[GD_PK_H2D].status = GD_PR_OK;
	label_of(&shm, idx, "");
	shm.phase = GD_PK_P2P;
	label_of(&shm, idx, "p2p");
	shm.phase = GD_PK_NONE;
	label_of(&shm, idx, "");
	/* a small buffer: cut, terminated */
	for (int i = 0; i < 3; i++)
		shm.gpu[i].phase = GD_PK_H2D_ALL;
	shm.gpu[2].phase = GD_PK_D2H_ALL;
	gd_probe_phase_label(&shm, idx, small, sizeof small);
	assert_string_equal(small, "h2d_all gpu");
	/* one GPU: every probe runs on all of them */
	shm.ngpus = 1;
	label_of(&shm, idx, "h2d_all");
}

/* gpu g of s at temp_c (slowdown at 87 °C; 84 °C and above fires
 * gpu.thermal_throttle), persistence on or off. */
static void gpu_at(struct gd_snapshot *s, unsigned g, double temp_c, bool persistence)
{
	struct gd_gpu *x = GD_PUSH(s, gpus, struct gd_gpu);

	memset(x, 0, sizeof *x);
	gd_u64_set(&x->index, g);
	GD_STRSET(x->name, "NVIDIA H100 80GB HBM3");
	gd_f64_set(&x->temp_c, temp_c);
	gd_f64_set(&x->temp_slowdown_c, 87);
	gd_u64_set(&x->persistence_mode, persistence);
}

struct series {
	struct gd_snapshot s[5];
	const struct gd_snapshot *p[5];
	struct gd_window w;
};

/* Five samples: before the probe, two in the burn, one under gpu0's copies,
 * the last after the end.  gpu0 is hot throughout (before the probe too),
 * gpu1 only in the burn, gpu2 from the copies on; gpu3's persistence goes
 * off in the burn (not a rule of load: never tagged). */
static void series_init(struct series *x)
{
	static const double hot[5][4] = {
		{ 90, 40, 40, 40 }, { 90, 89, 40, 40 }, { 90, 89, 40, 40 }, { 90, 40, 88, 40 }, { 90, 40, 88, 40 },
	};

	for (int i = 0; i < 5; i++) {
		gd_snapshot_init(&x->s[i]);
		gd_f64_set(&x->s[i].host.uptime_s, 100 + i);
		for (unsigned g = 0; g < 4; g++)
			gpu_at(&x->s[i], g, hot[i][g], !(g == 3 && i > 0));
		x->p[i] = &x->s[i];
	}
	x->w.snaps = x->p;
	x->w.n = 5;
}

static void series_release(struct series *x)
{
	for (int i = 0; i < 5; i++)
		gd_snapshot_release(&x->s[i]);
}

/* The during_probe text of the finding id on a subject starting with
 * subject: NULL when it has none; fails when there is no such finding. */
static const char *during(const struct gd_findings *f, const char *id, const char *subject)
{
	size_t n = 0;
	const char *tag = NULL;

	GD_VEC_EACH(f->items, const struct gd_finding, x) {
		if (strcmp(x->id, id) != 0 || strncmp(x->subject, subject, strlen(subject)) != 0)
			continue;
		n++;
		for (size_t i = 0; i < x->nev; i++)
			if (strcmp(x->ev[i].name, "during_probe") == 0)
				tag = x->ev[i].text;
	}
	if (n != 1)
		fail_msg("%zu findings %s for %s, want 1", n, id, subject);
	return tag;
}

static void tags(void **state)
{
	static const char *const phase[5] = { "", "compute_fp32", "compute_fp32", "h2d gpu0", "" };
	struct series x;
	struct gd_thresholds th;
	struct gd_findings f;
	size_t before;

	(void)state;
	series_init(&x);
	gd_thresholds_init(&th);
	gd_findings_init(&f);
	gd_engine_run(&x.w, &th, &f);
	before = f.items.n;
	/* the whole series sees gpu0 and gpu2 hot at its end, not gpu1 */
	assert_null(during(&f, "gpu.thermal_throttle", "gpu0"));
	assert_null(during(&f, "gpu.thermal_throttle", "gpu2"));
	gd_probe_tag_phases(&x.w, phase, &th, &f);
	/* gpu1, hot under the burn only: added, with its phase */
	assert_int_equal(f.items.n, before + 1);
	assert_string_equal(during(&f, "gpu.thermal_throttle", "gpu1"), "compute_fp32");
	/* gpu2 from the copies on: the finding of the whole series, tagged */
	assert_string_equal(during(&f, "gpu.thermal_throttle", "gpu2"), "h2d gpu0");
	/* gpu0 was hot before the probe: not provoked by it */
	assert_null(during(&f, "gpu.thermal_throttle", "gpu0"));
	/* persistence is not a rule of load */
	assert_null(during(&f, "gpu.persistence_off", "gpu3"));
	/* most severe first still */
	for (size_t i = 1; i < f.items.n; i++)
		assert_true(FINDING(f, i - 1)->severity >= FINDING(f, i)->severity);
	gd_findings_release(&f);
	series_release(&x);
}

/* Outside a probe every label is "": the findings stay as they are. */
static void no_phase_no_change(void **state)
{
	static const char *const none[5] = { "", "", "", "", "" };
	struct series x;
	struct gd_thresholds th;
	struct gd_findings f, g;

	(void)state;
	series_init(&x);
	gd_thresholds_init(&th);
	gd_findings_init(&f);
	gd_findings_init(&g);
	gd_engine_run(&x.w, &th, &f);
	gd_engine_run(&x.w, &th, &g);
	gd_probe_tag_phases(&x.w, none, &th, &g);
	assert_int_equal(f.items.n, g.items.n);
	for (size_t i = 0; i < f.items.n; i++) {
		assert_string_equal(FINDING(f, i)->id, FINDING(g, i)->id);
		assert_int_equal(FINDING(f, i)->nev, FINDING(g, i)->nev);
	}
	/* a phase in every sample: nothing was there before, so gpu0 is
	 * tagged by the first phase */
	{
		static const char *const all[5] = { "setup", "compute_fp32", "compute_fp32", "h2d gpu0", "d2h gpu0" };

		gd_probe_tag_phases(&x.w, all, &th, &f);
		assert_string_equal(during(&f, "gpu.thermal_throttle", "gpu0"), "setup");
		assert_string_equal(during(&f, "gpu.thermal_throttle", "gpu2"), "h2d gpu0");
	}
	gd_findings_release(&f);
	gd_findings_release(&g);
	series_release(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(labels),
		cmocka_unit_test(tags),
		cmocka_unit_test(no_phase_no_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
