/*
 * test_rules_gpu_mem.c - gpu.ecc_uncorrectable, gpu.ecc_correctable_rate,
 * gpu.row_remap_pending, gpu.row_remap_failed, gpu.memory_full and
 * gpu.memory_oversubscribed on snapshots built in C: fires with its
 * numbers, clear, unknown without NVML, ECC off or fields missing,
 * threshold edges and overrides, counters going backwards.
 */
#include "gpu_rules_fixture.h"

static const char *const mem_rules[] = { "gpu.ecc_uncorrectable", "gpu.ecc_correctable_rate", "gpu.row_remap_pending",
					 "gpu.row_remap_failed",  "gpu.memory_full",	      "gpu.memory_oversubscribed" };
#define N_MEM (sizeof mem_rules / sizeof mem_rules[0])

static void reset_out(struct fx *f)
{
	gd_findings_release(&f->out);
	gd_findings_init(&f->out);
}

static void test_healthy_all_clear(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[4], *gb[4];

	gpus2(f, 4, ga, gb);
	for (size_t i = 0; i < N_MEM; i++) {
		if (run_fx(f, mem_rules[i], false) != GD_VERDICT_CLEAR)
			fail_msg("%s is not clear on the healthy host", mem_rules[i]);
	}
	assert_int_equal(f->out.items.n, 0);
}

static void test_no_nvml_unknown(void **state)
{
	struct fx *f = *state;

	nvml_absent(&f->a);
	nvml_absent(&f->b);
	for (size_t i = 0; i < N_MEM; i++) {
		reset_out(f);
		if (run_fx(f, mem_rules[i], false) != GD_VERDICT_UNKNOWN)
			fail_msg("%s is not unknown without NVML", mem_rules[i]);
		assert_contains(unknown_reason(&f->out), "no GPU evidence: ");
	}
}

/* A stuck NVML that listed no GPU says so, not "no GPUs". */
static void test_stuck_before_gpus_unknown(void **state)
{
	struct fx *f = *state;

	GD_STRSET(f->b.nvml.status, "stuck");
	GD_STRSET(f->b.nvml.reason, "nvmlInit_v2 did not return within 5 s: the driver is hung");
	assert_int_equal(run_fx(f, "gpu.memory_full", true), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "no GPU evidence: nvmlInit_v2 did not return");
}

/* ---- gpu.ecc_uncorrectable --------------------------------------------- */

static void test_ecc_uncorrectable(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[4], *gb[4];
	const struct gd_finding *g;

	gpus2(f, 4, ga, gb);
	gd_u64_set(&ga[2]->ecc_uncorrected_volatile, 1);
	gd_u64_set(&gb[2]->ecc_uncorrected_volatile, 3);
	gd_u64_set(&gb[2]->ecc_uncorrected_aggregate, 5);
	assert_int_equal(run_fx(f, "gpu.ecc_uncorrectable", false), GD_VERDICT_FIRED);
	g = only_finding(f);
	assert_int_equal(g->severity, GD_SEV_CRITICAL);
	assert_string_equal(g->subject, "gpu2 (0000:3b:00.0)");
	NEAR(ev_get(g, "ecc_uncorrected_volatile")->value.v, 3, 0);
	NEAR(ev_get(g, "ecc_uncorrected_volatile")->threshold.v, 0, 0);
	NEAR(ev_get(g, "ecc_uncorrected_new")->value.v, 2, 0);
	NEAR(ev_get(g, "ecc_uncorrected_aggregate")->value.v, 5, 0);
	assert_contains(g->summary, "3 uncorrectable ECC errors since the driver loaded, 2 of them in this window");
	assert_contains(g->remedy, "nvidia-smi -r -i 2");
}

static void test_ecc_uncorrectable_single_snapshot(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *g = healthy_gpu(&f->b, 0);

	gd_u64_set(&g->ecc_uncorrected_volatile, 1);
	assert_int_equal(run_fx(f, "gpu.ecc_uncorrectable", true), GD_VERDICT_FIRED);
	assert_int_equal(only_finding(f)->nev, 2); /* no "new" without a window */
}

static void test_ecc_off_unknown(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *g = healthy_gpu(&f->b, 0);

	gd_u64_set(&g->ecc_mode, 0);
	g->ecc_uncorrected_volatile.ok = false;
	assert_int_equal(run_fx(f, "gpu.ecc_uncorrectable", true), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "ECC is off on 1 GPUs");
}

/* ---- gpu.ecc_correctable_rate ------------------------------------------ */

static void test_ecc_correctable_rate(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[2], *gb[2];
	const struct gd_finding *g;

	gpus2(f, 2, ga, gb);
	gd_u64_set(&ga[1]->ecc_corrected_volatile, 1200);
	gd_u64_set(&gb[1]->ecc_corrected_volatile, 1260);
	assert_int_equal(run_fx(f, "gpu.ecc_correctable_rate", false), GD_VERDICT_FIRED);
	g = only_finding(f);
	assert_int_equal(g->severity, GD_SEV_WARNING);
	NEAR(ev_get(g, "ecc_corrected_per_hour")->value.v, 108000, 1e-6);
	NEAR(ev_get(g, "ecc_corrected_per_hour")->threshold.v, 100, 0);
	NEAR(ev_get(g, "ecc_corrected_new")->value.v, 60, 0);
	NEAR(ev_get(g, "window_s")->value.v, 2, 1e-9);
}

static void test_ecc_correctable_edge_and_override(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[1], *gb[1];
	struct gd_thresholds th;
	struct gd_err err;

	gd_f64_set(&f->b.host.uptime_s, f->a.host.uptime_s.v + 3600);
	gpus2(f, 1, ga, gb);
	gd_u64_set(&gb[0]->ecc_corrected_volatile, 100); /* exactly 100 in an hour: not above */
	assert_int_equal(run_fx(f, "gpu.ecc_correctable_rate", false), GD_VERDICT_CLEAR);
	gd_u64_set(&gb[0]->ecc_corrected_volatile, 101);
	assert_int_equal(run_fx(f, "gpu.ecc_correctable_rate", false), GD_VERDICT_FIRED);
	gd_thresholds_init(&th);
	assert_int_equal(gd_thresholds_set(&th, "gpu.ecc_correctable_rate.per_hour", "500", &err), 0);
	assert_int_equal(run_rule2("gpu.ecc_correctable_rate", &f->a, &f->b, &th, &f->out), GD_VERDICT_CLEAR);
}

static void test_ecc_correctable_reload_unknown(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[1], *gb[1];

	gpus2(f, 1, ga, gb);
	gd_u64_set(&ga[0]->ecc_corrected_volatile, 900);
	gd_u64_set(&gb[0]->ecc_corrected_volatile, 0); /* the driver reloaded between */
	assert_int_equal(run_fx(f, "gpu.ecc_correctable_rate", false), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "corrected ECC counter in both snapshots");
	reset_out(f);
	assert_int_equal(run_fx(f, "gpu.ecc_correctable_rate", true), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "needs two snapshots");
}

/* ---- gpu.row_remap_pending, gpu.row_remap_failed ----------------------- */

static void test_remap_pending(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[4], *gb[4];
	const struct gd_finding *g;

	gpus2(f, 4, ga, gb);
	gd_u64_set(&gb[3]->remap_pending, 1);
	gd_u64_set(&gb[3]->remap_uncorrected, 1);
	gd_u64_set(&gb[1]->retired_pages_pending, 1); /* the pre-Ampere mechanism */
	gb[1]->remap_pending.ok = false;
	assert_int_equal(run_fx(f, "gpu.row_remap_pending", true), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 2);
	g = FINDING(f->out, 0);
	assert_string_equal(g->subject, "gpu1 (0000:2b:00.0)");
	assert_contains(g->summary, "has retired pages waiting for a GPU reset");
	g = FINDING(f->out, 1);
	assert_int_equal(g->severity, GD_SEV_CRITICAL);
	NEAR(ev_get(g, "remap_pending")->value.v, 1, 0);
	NEAR(ev_get(g, "remap_uncorrected")->value.v, 1, 0);
	assert_contains(g->summary, "has a row remap waiting");
	assert_contains(g->remedy, "nvidia-smi -r -i 3");
}

static void test_remap_pending_unknown(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *g = healthy_gpu(&f->b, 0);

	g->remap_pending.ok = g->retired_pages_pending.ok = false;
	assert_int_equal(run_fx(f, "gpu.row_remap_pending", true), GD_VERDICT_UNKNOWN);
}

static void test_remap_failed(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *g = healthy_gpu(&f->b, 0);
	const struct gd_finding *x;

	gd_u64_set(&g->remap_failure, 1);
	gd_u64_set(&g->remap_uncorrected, 8);
	assert_int_equal(run_fx(f, "gpu.row_remap_failed", true), GD_VERDICT_FIRED);
	x = only_finding(f);
	assert_int_equal(x->severity, GD_SEV_CRITICAL);
	NEAR(ev_get(x, "remap_failure")->value.v, 1, 0);
	NEAR(ev_get(x, "remap_uncorrected")->value.v, 8, 0);
	assert_contains(x->summary, "could not remap a failing memory row");
}

static void test_retired_pages_edge(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *g = healthy_gpu(&f->b, 0);

	g->remap_failure.ok = false; /* a V100: no row remapping */
	gd_u64_set(&g->retired_pages_sbe, 60);
	gd_u64_set(&g->retired_pages_dbe, 3);
	assert_int_equal(run_fx(f, "gpu.row_remap_failed", true), GD_VERDICT_CLEAR);
	gd_u64_set(&g->retired_pages_dbe, 4); /* 64: the table is full */
	assert_int_equal(run_fx(f, "gpu.row_remap_failed", true), GD_VERDICT_FIRED);
	NEAR(ev_get(only_finding(f), "retired_pages")->value.v, 64, 0);
	NEAR(ev_get(only_finding(f), "retired_pages")->threshold.v, 64, 0);
}

/* ---- gpu.memory_full --------------------------------------------------- */

static void test_memory_full(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[2], *gb[2];
	struct gd_gpu_proc *p;
	struct gd_proc *pr;
	const struct gd_finding *g;

	gpus2(f, 2, ga, gb);
	gd_u64_set(&gb[1]->mem_used_bytes, 83886080000ULL);
	p = GD_PUSH(&f->b, gpu_procs, struct gd_gpu_proc);
	gd_u64_set(&p->gpu, 1);
	gd_u64_set(&p->pid, 4242);
	gd_u64_set(&p->used_mem_bytes, 83349209088ULL);
	p = GD_PUSH(&f->b, gpu_procs, struct gd_gpu_proc);
	gd_u64_set(&p->gpu, 1);
	gd_u64_set(&p->pid, 5151);
	gd_u64_set(&p->used_mem_bytes, 1ULL << 29);
	pr = GD_PUSH(&f->b, procs, struct gd_proc);
	gd_u64_set(&pr->pid, 4242);
	GD_STRSET(pr->comm, "python");
	assert_int_equal(run_fx(f, "gpu.memory_full", true), GD_VERDICT_FIRED);
	g = only_finding(f);
	assert_string_equal(g->subject, "gpu1 (0000:2b:00.0)");
	NEAR(ev_get(g, "mem_used_pct")->value.v, 83886080000.0 / 85520809984.0 * 100, 1e-9);
	NEAR(ev_get(g, "mem_used_pct")->threshold.v, 95, 0);
	NEAR(ev_get(g, "top_pid")->value.v, 4242, 0);
	NEAR(ev_get(g, "top_pid_bytes")->value.v, 83349209088.0, 0);
	assert_contains(g->summary, "83.9 of 85.5 GB device memory in use (98.1%); pid 4242 (python) holds 83.3 GB");
}

static void test_memory_full_edge(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *g = healthy_gpu(&f->b, 0);

	gd_u64_set(&g->mem_total_bytes, 1000);
	gd_u64_set(&g->mem_used_bytes, 949);
	assert_int_equal(run_fx(f, "gpu.memory_full", true), GD_VERDICT_CLEAR);
	gd_u64_set(&g->mem_used_bytes, 950);
	assert_int_equal(run_fx(f, "gpu.memory_full", true), GD_VERDICT_FIRED);
	assert_int_equal(only_finding(f)->nev, 3); /* no process list: no top_pid */
	reset_out(f);
	gd_u64_set(&g->mem_total_bytes, 0); /* nonsense total: not judged */
	assert_int_equal(run_fx(f, "gpu.memory_full", true), GD_VERDICT_UNKNOWN);
}

/* ---- gpu.memory_oversubscribed ----------------------------------------- */

static struct gd_gpu *paging_gpu(struct fx *f)
{
	struct gd_gpu *g = healthy_gpu(&f->b, 0);

	gd_u64_set(&g->mem_used_bytes, 84000000000ULL);
	gd_u64_set(&g->pcie_rx_kbps, 13671875); /* 14.0 GB/s */
	gd_u64_set(&g->pcie_tx_kbps, 7812500);	/* 8.0 GB/s */
	gd_u64_set(&g->util_gpu_pct, 18);
	return g;
}

static void test_oversubscribed(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;

	paging_gpu(f);
	assert_int_equal(run_fx(f, "gpu.memory_oversubscribed", true), GD_VERDICT_FIRED);
	g = only_finding(f);
	NEAR(ev_get(g, "pcie_mb_per_s")->value.v, 22000, 1e-6);
	NEAR(ev_get(g, "pcie_link_pct")->value.v, 22000 / (3938.5 * 16) * 100, 1e-9);
	NEAR(ev_get(g, "pcie_link_pct")->threshold.v, 25, 0);
	NEAR(ev_get(g, "util_gpu_pct")->threshold.v, 50, 0);
	assert_contains(g->summary, "22.0 GB/s over PCIe (35% of its Gen5 x16 link) while only 18% busy");
}

static void test_oversubscribed_not(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *g = paging_gpu(f);

	gd_u64_set(&g->util_gpu_pct, 50); /* busy: the GPU is not waiting */
	assert_int_equal(run_fx(f, "gpu.memory_oversubscribed", true), GD_VERDICT_CLEAR);
	gd_u64_set(&g->util_gpu_pct, 18);
	gd_u64_set(&g->pcie_rx_kbps, 1000000); /* little traffic */
	assert_int_equal(run_fx(f, "gpu.memory_oversubscribed", true), GD_VERDICT_CLEAR);
	gd_u64_set(&g->pcie_rx_kbps, 13671875);
	gd_u64_set(&g->mem_used_bytes, 80000000000ULL); /* 93.5% */
	assert_int_equal(run_fx(f, "gpu.memory_oversubscribed", true), GD_VERDICT_CLEAR);
	/* The same traffic on a Gen3 x16 link is 140% of it (the 20 ms sample is noisy). */
	gd_u64_set(&g->mem_used_bytes, 84000000000ULL);
	gd_u64_set(&g->pcie_gen, 3);
	assert_int_equal(run_fx(f, "gpu.memory_oversubscribed", true), GD_VERDICT_FIRED);
}

static void test_oversubscribed_unknown(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *g = paging_gpu(f);

	g->pcie_rx_kbps.ok = false;
	assert_int_equal(run_fx(f, "gpu.memory_oversubscribed", true), GD_VERDICT_UNKNOWN);
	reset_out(f);
	gd_u64_set(&g->pcie_rx_kbps, 1);
	gd_u64_set(&g->pcie_gen, 9); /* a generation we do not know: no bandwidth, no guess */
	assert_int_equal(run_fx(f, "gpu.memory_oversubscribed", true), GD_VERDICT_UNKNOWN);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)
	const struct CMUnitTest tests[] = {
		T(test_healthy_all_clear),
		T(test_no_nvml_unknown),
		T(test_stuck_before_gpus_unknown),
		T(test_ecc_uncorrectable),
		T(test_ecc_uncorrectable_single_snapshot),
		T(test_ecc_off_unknown),
		T(test_ecc_correctable_rate),
		T(test_ecc_correctable_edge_and_override),
		T(test_ecc_correctable_reload_unknown),
		T(test_remap_pending),
		T(test_remap_pending_unknown),
		T(test_remap_failed),
		T(test_retired_pages_edge),
		T(test_memory_full),
		T(test_memory_full_edge),
		T(test_oversubscribed),
		T(test_oversubscribed_not),
		T(test_oversubscribed_unknown),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
