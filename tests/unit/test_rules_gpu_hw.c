/*
 * test_rules_gpu_hw.c - gpu.thermal_throttle, gpu.power_brake,
 * gpu.hw_slowdown, gpu.power_capped, gpu.clocks_held_low,
 * gpu.pcie_link_degraded, gpu.pcie_replays, gpu.nvlink_errors and
 * gpu.persistence_off on snapshots built in C: fires with its numbers,
 * clear on a healthy host, unknown without NVML or without the field,
 * threshold edges, idle GPUs, lost GPUs, counters going backwards.
 */
#include "gpu_rules_fixture.h"

static const char *const hw_rules[] = { "gpu.thermal_throttle", "gpu.power_brake",	   "gpu.hw_slowdown",
					"gpu.power_capped",	"gpu.clocks_held_low",	   "gpu.pcie_link_degraded",
					"gpu.pcie_replays",	"gpu.nvlink_errors",	   "gpu.persistence_off" };
#define N_HW (sizeof hw_rules / sizeof hw_rules[0])

/* ---- every rule -------------------------------------------------------- */

static void test_healthy_all_clear(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[4], *gb[4];

	gpus2(f, 4, ga, gb);
	for (size_t i = 0; i < N_HW; i++) {
		if (run_fx(f, hw_rules[i], false) != GD_VERDICT_CLEAR)
			fail_msg("%s is not clear on the healthy host", hw_rules[i]);
	}
	assert_int_equal(f->out.items.n, 0);
	assert_int_equal(f->out.unknown.n, 0);
}

static void test_no_nvml_unknown(void **state)
{
	struct fx *f = *state;

	nvml_absent(&f->a);
	nvml_absent(&f->b);
	for (size_t i = 0; i < N_HW; i++) {
		gd_findings_release(&f->out);
		gd_findings_init(&f->out);
		if (run_fx(f, hw_rules[i], false) != GD_VERDICT_UNKNOWN)
			fail_msg("%s is not unknown without NVML", hw_rules[i]);
		assert_contains(unknown_reason(&f->out), "no GPU evidence: libnvidia-ml.so.1 not found");
	}
}

static void test_nvml_ok_no_gpus_unknown(void **state)
{
	struct fx *f = *state;

	GD_STRSET(f->b.nvml.status, "ok");
	assert_int_equal(run_fx(f, "gpu.thermal_throttle", false), GD_VERDICT_UNKNOWN);
	assert_string_equal(unknown_reason(&f->out), "NVML lists no GPUs");
}

/* ---- gpu.thermal_throttle ---------------------------------------------- */

static void test_thermal_violation_fires(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[4], *gb[4];
	const struct gd_finding *g;

	gpus2(f, 4, ga, gb);
	gd_u64_set(&ga[2]->violation_thermal_ns, 412000000000ULL);
	gd_u64_set(&gb[2]->violation_thermal_ns, 412900000000ULL); /* 0.9 s of 2 s */
	gd_u64_set(&gb[2]->sm_clock_mhz, 1410);
	assert_int_equal(run_fx(f, "gpu.thermal_throttle", false), GD_VERDICT_FIRED);
	g = only_finding(f);
	assert_int_equal(g->severity, GD_SEV_WARNING);
	assert_string_equal(g->subject, "gpu2 (0000:3b:00.0)");
	NEAR(ev_get(g, "thermal_limited_pct")->value.v, 45, 1e-9);
	NEAR(ev_get(g, "thermal_limited_pct")->threshold.v, 20, 0);
	NEAR(ev_get(g, "temp_c")->threshold.v, 84, 0);
	assert_string_equal(ev_get(g, "clock_event_reasons")->text, "none");
	assert_contains(g->summary, "thermal-limited 45% of the window");
	assert_contains(g->summary, "SM clock 1410 MHz = 71% of max 1980 MHz");
}

static void test_thermal_violation_edge(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[1], *gb[1];

	gpus2(f, 1, ga, gb);
	gd_u64_set(&gb[0]->violation_thermal_ns, 399999999); /* 19.99999% */
	assert_int_equal(run_fx(f, "gpu.thermal_throttle", false), GD_VERDICT_CLEAR);
	gd_u64_set(&gb[0]->violation_thermal_ns, 400000000); /* exactly 20% */
	assert_int_equal(run_fx(f, "gpu.thermal_throttle", false), GD_VERDICT_FIRED);
}

static void test_thermal_temp_edge(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[1], *gb[1];
	const struct gd_finding *g;

	gpus2(f, 1, ga, gb);
	gd_f64_set(&gb[0]->temp_c, 83.9);
	assert_int_equal(run_fx(f, "gpu.thermal_throttle", true), GD_VERDICT_CLEAR);
	gd_f64_set(&gb[0]->temp_c, 84); /* slowdown 87 - 3 */
	assert_int_equal(run_fx(f, "gpu.thermal_throttle", true), GD_VERDICT_FIRED);
	g = only_finding(f);
	NEAR(ev_get(g, "temp_c")->value.v, 84, 0);
	NEAR(ev_get(g, "temp_slowdown_c")->value.v, 87, 0);
	assert_contains(g->summary, "84 °C, slowdown at 87 °C");
}

static void test_thermal_reasons_severity(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[2], *gb[2];

	gpus2(f, 2, ga, gb);
	gd_u64_set(&gb[0]->clock_event_reasons, 0x20);		 /* sw_thermal: warning */
	gd_u64_set(&ga[1]->clock_event_reasons, 0x40 | 0x8); /* hw_thermal in the first sample only */
	assert_int_equal(run_fx(f, "gpu.thermal_throttle", false), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 2);
	assert_int_equal(FINDING(f->out, 0)->severity, GD_SEV_WARNING);
	assert_string_equal(ev_get(FINDING(f->out, 0), "clock_event_reasons")->text, "sw_thermal");
	assert_int_equal(FINDING(f->out, 1)->severity, GD_SEV_CRITICAL);
	assert_string_equal(ev_get(FINDING(f->out, 1), "clock_event_reasons")->text, "hw_slowdown,hw_thermal");
}

static void test_thermal_unknown_names_nvml_error(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *g = healthy_gpu(&f->b, 0);
	struct gd_nvml_error *e;

	g->temp_c.ok = g->temp_slowdown_c.ok = g->clock_event_reasons.ok = false;
	g->violation_thermal_ns.ok = false;
	e = GD_PUSH(&f->b, nvml_errors, struct gd_nvml_error);
	gd_u64_set(&e->gpu, 0);
	GD_STRSET(e->field, "temp_c");
	GD_STRSET(e->status, "denied");
	GD_STRSET(e->reason, "nvmlDeviceGetTemperature: Insufficient Permissions");
	assert_int_equal(run_fx(f, "gpu.thermal_throttle", true), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "(denied): nvmlDeviceGetTemperature: Insufficient Permissions");
}

static void test_thermal_lost_gpu_skipped(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *g = healthy_gpu(&f->b, 0);

	gd_u64_set(&g->lost, 1);
	gd_f64_set(&g->temp_c, 95);
	assert_int_equal(run_fx(f, "gpu.thermal_throttle", true), GD_VERDICT_UNKNOWN);
	assert_int_equal(f->out.items.n, 0);
}

static void test_thermal_counter_backwards_no_rate(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[1], *gb[1];

	gpus2(f, 1, ga, gb);
	gd_u64_set(&ga[0]->violation_thermal_ns, 9000000000ULL);
	gd_u64_set(&gb[0]->violation_thermal_ns, 5); /* driver reloaded */
	assert_int_equal(run_fx(f, "gpu.thermal_throttle", false), GD_VERDICT_CLEAR);
}

/* ---- gpu.power_brake, gpu.hw_slowdown ---------------------------------- */

static void test_power_brake(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[2], *gb[2];
	const struct gd_finding *g;

	gpus2(f, 2, ga, gb);
	gd_u64_set(&gb[1]->clock_event_reasons, 0x88);
	gd_f64_set(&gb[1]->power_w, 265.2);
	assert_int_equal(run_fx(f, "gpu.power_brake", false), GD_VERDICT_FIRED);
	g = only_finding(f);
	assert_int_equal(g->severity, GD_SEV_CRITICAL);
	assert_string_equal(g->subject, "gpu1 (0000:2b:00.0)");
	assert_string_equal(ev_get(g, "clock_event_reasons")->text, "hw_slowdown,power_brake");
	NEAR(ev_get(g, "samples_hit")->value.v, 1, 0);
	NEAR(ev_get(g, "power_w")->value.v, 265.2, 1e-9);
	assert_contains(g->summary, "in 1 of 2 samples");
	/* The power brake's hw_slowdown bit is not a second finding. */
	gd_findings_release(&f->out);
	gd_findings_init(&f->out);
	assert_int_equal(run_fx(f, "gpu.hw_slowdown", false), GD_VERDICT_CLEAR);
}

static void test_hw_slowdown(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[4], *gb[4];
	const struct gd_finding *g;

	gpus2(f, 4, ga, gb);
	gd_u64_set(&ga[3]->clock_event_reasons, 0x8);
	gd_u64_set(&gb[3]->clock_event_reasons, 0x8);
	gd_u64_set(&gb[2]->clock_event_reasons, 0x48); /* thermal: gpu.thermal_throttle's */
	assert_int_equal(run_fx(f, "gpu.hw_slowdown", false), GD_VERDICT_FIRED);
	g = only_finding(f);
	assert_string_equal(g->subject, "gpu3 (0000:4b:00.0)");
	NEAR(ev_get(g, "samples_hit")->value.v, 2, 0);
	assert_int_equal(g->severity, GD_SEV_CRITICAL);
}

static void test_reasons_absent_unknown(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[1], *gb[1];

	gpus2(f, 1, ga, gb);
	ga[0]->clock_event_reasons.ok = gb[0]->clock_event_reasons.ok = false;
	assert_int_equal(run_fx(f, "gpu.power_brake", false), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "no clock-event reasons from NVML");
}

/* Read offline from the nvidia-smi table, the reason names that output, not
 * a library that was never called. */
static void test_reasons_absent_offline_names_the_output(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[1], *gb[1];
	struct gd_source *src;

	gpus2(f, 1, ga, gb);
	ga[0]->clock_event_reasons.ok = gb[0]->clock_event_reasons.ok = false;
	src = GD_PUSH(&f->b, sources, struct gd_source);
	GD_STRSET(src->name, "offline:nvidia-smi");
	GD_STRSET(src->status, "ok");
	assert_int_equal(run_fx(f, "gpu.power_brake", false), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "no clock-event reasons in the nvidia-smi (table) output");
	assert_null(strstr(unknown_reason(&f->out), "NVML"));
}

/* ---- gpu.power_capped -------------------------------------------------- */

static void test_power_capped_lowered_limit(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[1], *gb[1];
	const struct gd_finding *g;

	gpus2(f, 1, ga, gb);
	gd_u64_set(&ga[0]->violation_power_ns, 73000000000ULL);
	gd_u64_set(&gb[0]->violation_power_ns, 74700000000ULL); /* 1.7 s of 2 s x 95% busy */
	gd_f64_set(&gb[0]->power_limit_w, 450);
	gd_f64_set(&gb[0]->power_w, 449.1);
	gd_u64_set(&gb[0]->clock_event_reasons, 0x4);
	assert_int_equal(run_fx(f, "gpu.power_capped", false), GD_VERDICT_FIRED);
	g = only_finding(f);
	assert_int_equal(g->severity, GD_SEV_WARNING);
	NEAR(ev_get(g, "power_limited_pct")->value.v, 1.7 / (2 * 0.95) * 100, 1e-9);
	NEAR(ev_get(g, "power_limited_pct")->threshold.v, 50, 0);
	NEAR(ev_get(g, "power_limit_w")->value.v, 450, 0);
	NEAR(ev_get(g, "power_limit_w")->threshold.v, 700, 0);
	assert_string_equal(ev_get(g, "clock_event_reasons")->text, "sw_power_cap");
	assert_contains(g->remedy, "nvidia-smi -i 0 -pl 700");
	assert_contains(g->summary, "below the default 700 W");
}

static void test_power_capped_default_is_info(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[1], *gb[1];

	gpus2(f, 1, ga, gb);
	gd_u64_set(&gb[0]->violation_power_ns, 1000000000ULL); /* 1 s of 1.9 s busy */
	assert_int_equal(run_fx(f, "gpu.power_capped", false), GD_VERDICT_FIRED);
	assert_int_equal(only_finding(f)->severity, GD_SEV_INFO);
	assert_contains(only_finding(f)->summary, "a power-bound workload at the default limit");
}

static void test_power_capped_edges(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[1], *gb[1];

	gpus2(f, 1, ga, gb);
	gd_u64_set(&ga[0]->util_gpu_pct, 100);
	gd_u64_set(&gb[0]->util_gpu_pct, 100);
	gd_u64_set(&gb[0]->violation_power_ns, 999999999); /* 49.99999% */
	gd_u64_set(&gb[0]->clock_event_reasons, 0x4);	    /* the counter wins over one sample */
	assert_int_equal(run_fx(f, "gpu.power_capped", false), GD_VERDICT_CLEAR);
	gd_u64_set(&gb[0]->violation_power_ns, 1000000000); /* 50% */
	assert_int_equal(run_fx(f, "gpu.power_capped", false), GD_VERDICT_FIRED);
}

static void test_power_capped_idle_and_reason_fallback(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[1], *gb[1];

	gpus2(f, 1, ga, gb);
	/* Idle: not judged busy, even fully power-limited. */
	gd_u64_set(&ga[0]->util_gpu_pct, 10);
	gd_u64_set(&gb[0]->util_gpu_pct, 10);
	gd_u64_set(&gb[0]->violation_power_ns, 2000000000);
	assert_int_equal(run_fx(f, "gpu.power_capped", false), GD_VERDICT_CLEAR);
	/* One snapshot: no counter rate, so the reason of the busy sample. */
	gd_u64_set(&gb[0]->util_gpu_pct, 90);
	gd_u64_set(&gb[0]->clock_event_reasons, 0x4);
	assert_int_equal(run_fx(f, "gpu.power_capped", true), GD_VERDICT_FIRED);
	for (size_t i = 0; i < only_finding(f)->nev; i++)
		assert_string_not_equal(only_finding(f)->ev[i].name, "power_limited_pct");
	assert_contains(only_finding(f)->summary, "reason sw_power_cap");
}

/* ---- gpu.clocks_held_low ----------------------------------------------- */

static void test_clocks_held_low_fires(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[2], *gb[2];
	const struct gd_finding *g;

	gpus2(f, 2, ga, gb);
	for (int i = 0; i < 2; i++) {
		struct gd_gpu *x = i ? gb[1] : ga[1];

		gd_u64_set(&x->sm_clock_mhz, 1095);
		gd_u64_set(&x->app_sm_clock_mhz, 1095);
		gd_u64_set(&x->clock_event_reasons, 0x2);
	}
	gd_u64_set(&ga[1]->util_gpu_pct, 97);
	assert_int_equal(run_fx(f, "gpu.clocks_held_low", false), GD_VERDICT_FIRED);
	g = only_finding(f);
	assert_string_equal(g->subject, "gpu1 (0000:2b:00.0)");
	NEAR(ev_get(g, "sm_clock_pct")->value.v, 1095.0 / 1980 * 100, 1e-9);
	NEAR(ev_get(g, "sm_clock_pct")->threshold.v, 70, 0);
	NEAR(ev_get(g, "util_gpu_pct")->value.v, 95, 0); /* the lower sample */
	NEAR(ev_get(g, "app_sm_clock_mhz")->value.v, 1095, 0);
	assert_string_equal(ev_get(g, "clock_event_reasons")->text, "app_clocks");
	assert_contains(g->summary, "application clocks set to 1095 MHz");
	assert_contains(g->remedy, "nvidia-smi -i 1 -rac");
}

static void test_clocks_held_low_not_every_sample(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[1], *gb[1];

	gpus2(f, 1, ga, gb);
	gd_u64_set(&gb[0]->sm_clock_mhz, 1000); /* only the last sample is low */
	assert_int_equal(run_fx(f, "gpu.clocks_held_low", false), GD_VERDICT_CLEAR);
	assert_int_equal(run_fx(f, "gpu.clocks_held_low", true), GD_VERDICT_FIRED);
}

static void test_clocks_held_low_excluded(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *g = healthy_gpu(&f->b, 0);

	gd_u64_set(&g->sm_clock_mhz, 1385); /* 69.9% */
	gd_u64_set(&g->clock_event_reasons, 0x4);
	assert_int_equal(run_fx(f, "gpu.clocks_held_low", true), GD_VERDICT_CLEAR); /* a power reason */
	gd_u64_set(&g->clock_event_reasons, 0);
	gd_u64_set(&g->util_gpu_pct, 49);
	assert_int_equal(run_fx(f, "gpu.clocks_held_low", true), GD_VERDICT_CLEAR); /* not busy */
	gd_u64_set(&g->util_gpu_pct, 50);
	gd_u64_set(&g->sm_clock_mhz, 1386); /* 70% */
	assert_int_equal(run_fx(f, "gpu.clocks_held_low", true), GD_VERDICT_CLEAR);
	gd_u64_set(&g->sm_clock_mhz, 1385);
	assert_int_equal(run_fx(f, "gpu.clocks_held_low", true), GD_VERDICT_FIRED);
	g = GD_VEC_AT(f->b.gpus, struct gd_gpu, 0);
	g->clock_event_reasons.ok = false;
	gd_findings_release(&f->out);
	gd_findings_init(&f->out);
	assert_int_equal(run_fx(f, "gpu.clocks_held_low", true), GD_VERDICT_UNKNOWN);
}

/* ---- gpu.pcie_link_degraded -------------------------------------------- */

static void test_pcie_degraded_busy(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[4], *gb[4];
	const struct gd_finding *g;

	gpus2(f, 4, ga, gb);
	gd_u64_set(&gb[2]->pcie_gen, 3);
	gd_u64_set(&gb[2]->pcie_width, 8);
	/* gpu3 idles at Gen1, on purpose: never flagged. */
	for (int i = 0; i < 2; i++) {
		struct gd_gpu *x = i ? gb[3] : ga[3];

		gd_u64_set(&x->util_gpu_pct, 0);
		gd_u64_set(&x->pcie_gen, 1);
	}
	assert_int_equal(run_fx(f, "gpu.pcie_link_degraded", false), GD_VERDICT_FIRED);
	g = only_finding(f);
	assert_string_equal(g->subject, "gpu2 (0000:3b:00.0)");
	NEAR(ev_get(g, "pcie_gen")->value.v, 3, 0);
	NEAR(ev_get(g, "pcie_gen")->threshold.v, 5, 0);
	NEAR(ev_get(g, "pcie_width")->value.v, 8, 0);
	NEAR(ev_get(g, "pcie_width")->threshold.v, 16, 0);
	NEAR(ev_get(g, "bandwidth_pct")->value.v, 984.6 * 8 / (3938.5 * 16) * 100, 1e-9);
	assert_contains(g->summary, "Gen3 x8 of Gen5 x16");
	assert_contains(g->remedy, "lspci -vv -s 0000:3b:00.0");
}

static void test_pcie_idle_only_unknown(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *g = healthy_gpu(&f->b, 0);

	gd_u64_set(&g->util_gpu_pct, 19);
	gd_u64_set(&g->pcie_gen, 1);
	assert_int_equal(run_fx(f, "gpu.pcie_link_degraded", true), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "no GPU was busy (>= 20% utilisation)");
	gd_findings_release(&f->out);
	gd_findings_init(&f->out);
	gd_u64_set(&g->util_gpu_pct, 20); /* busy from 20% */
	assert_int_equal(run_fx(f, "gpu.pcie_link_degraded", true), GD_VERDICT_FIRED);
}

static void test_pcie_width_only(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *g = healthy_gpu(&f->b, 0);

	gd_u64_set(&g->pcie_width, 8);
	assert_int_equal(run_fx(f, "gpu.pcie_link_degraded", true), GD_VERDICT_FIRED);
	NEAR(ev_get(only_finding(f), "bandwidth_pct")->value.v, 50, 1e-9);
}

/* Width below its maximum warns at idle too (a link keeps its width when
 * the GPU idles; only its speed drops): x4 of x16 at 0% utilisation. */
static void test_pcie_width_idle(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *g = healthy_gpu(&f->b, 0);
	const struct gd_finding *x;

	gd_u64_set(&g->util_gpu_pct, 0);
	gd_u64_set(&g->pcie_gen, 1);
	gd_u64_set(&g->pcie_width, 4);
	assert_int_equal(run_fx(f, "gpu.pcie_link_degraded", true), GD_VERDICT_FIRED);
	x = only_finding(f);
	assert_int_equal(x->severity, GD_SEV_WARNING);
	assert_contains(x->summary, "x4 of Gen5 x16");
	assert_contains(x->summary, "keeps its width when the GPU idles");
	NEAR(ev_get(x, "pcie_width")->value.v, 4, 0);
}

/* A fragment (no utilisation): width full, generation below -> info that
 * asks for a reading under load, never a warning; the GPU is "gpu?". */
static void test_pcie_speed_only_fragment(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *g = healthy_gpu(&f->b, 0);
	const struct gd_finding *x;

	g->util_gpu_pct.ok = false;
	g->index.ok = false;
	g->uuid[0] = g->pci_bus_id[0] = '\0';
	gd_u64_set(&g->pcie_gen, 1);
	assert_int_equal(run_fx(f, "gpu.pcie_link_degraded", true), GD_VERDICT_FIRED);
	x = only_finding(f);
	assert_int_equal(x->severity, GD_SEV_INFO);
	assert_string_equal(x->subject, "gpu?");
	assert_contains(x->remedy, "under load");
	gd_findings_release(&f->out);
	gd_findings_init(&f->out);

	/* the width not read: "at full width" cannot be said */
	g->pcie_width.ok = false;
	assert_int_not_equal(run_fx(f, "gpu.pcie_link_degraded", true), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 0);
}

/* lspci -vv without NVML: a fragment without its header ("a PCIe device")
 * whose width lspci marks "(downgraded)" warns; speed alone below at full
 * width is info; a named GPU NVML gives a link for is judged by NVML only. */
static void test_pcie_lspci(void **state)
{
	struct fx *f = *state;
	struct gd_pci_gpu *p = GD_PUSH(&f->b, pci_gpus, struct gd_pci_gpu);
	struct gd_source *src = GD_PUSH(&f->b, sources, struct gd_source);
	const struct gd_finding *x;

	GD_STRSET(src->name, "offline:lspci");
	gd_f64_set(&p->link_speed_gts, 5);
	gd_u64_set(&p->link_width, 1);
	gd_u64_set(&p->link_downgraded, 3);
	assert_int_equal(run_fx(f, "gpu.pcie_link_degraded", true), GD_VERDICT_FIRED);
	x = only_finding(f);
	assert_int_equal(x->severity, GD_SEV_WARNING);
	assert_string_equal(x->subject, "a PCIe device");
	assert_contains(x->summary, "x1 lanes, marked downgraded");
	gd_findings_release(&f->out);
	gd_findings_init(&f->out);

	gd_f64_set(&p->link_speed_gts, 2.5);
	gd_f64_set(&p->link_speed_max_gts, 16);
	gd_u64_set(&p->link_width, 16);
	gd_u64_set(&p->link_width_max, 16);
	gd_u64_set(&p->link_downgraded, 1);
	assert_int_equal(run_fx(f, "gpu.pcie_link_degraded", true), GD_VERDICT_FIRED);
	x = only_finding(f);
	assert_int_equal(x->severity, GD_SEV_INFO);
	assert_contains(x->summary, "2.5 of 16 GT/s");
	gd_findings_release(&f->out);
	gd_findings_init(&f->out);

	/* "(downgraded)" marks without a width read ("Width x??"), or no
	 * Width at all: neither "x0 lanes" nor "at full width" */
	p->link_width.ok = p->link_width_max.ok = p->link_speed_max_gts.ok = false;
	gd_u64_set(&p->link_downgraded, 3);
	assert_int_equal(run_fx(f, "gpu.pcie_link_degraded", true), GD_VERDICT_UNKNOWN);
	assert_int_equal(f->out.items.n, 0);
	gd_u64_set(&p->link_downgraded, 1);
	assert_int_equal(run_fx(f, "gpu.pcie_link_degraded", true), GD_VERDICT_UNKNOWN);
	assert_int_equal(f->out.items.n, 0);
	gd_u64_set(&p->link_width, 16);
	gd_u64_set(&p->link_width_max, 16);
	gd_f64_set(&p->link_speed_max_gts, 16);

	/* full speed and width: judged, clear */
	gd_f64_set(&p->link_speed_gts, 16);
	gd_u64_set(&p->link_downgraded, 0);
	assert_int_equal(run_fx(f, "gpu.pcie_link_degraded", true), GD_VERDICT_CLEAR);

	/* the same GPU in NVML at full width: lspci's x8 is not judged twice */
	healthy_gpu(&f->b, 0);
	GD_STRSET(p->pci_bus_id, "0000:1b:00.0");
	gd_u64_set(&p->link_width, 8);
	assert_int_equal(run_fx(f, "gpu.pcie_link_degraded", true), GD_VERDICT_CLEAR);
}

/* ---- gpu.pcie_replays -------------------------------------------------- */

static void test_pcie_replays(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[2], *gb[2];
	const struct gd_finding *g;

	gpus2(f, 2, ga, gb);
	gd_u64_set(&ga[1]->pcie_replays, 120);
	gd_u64_set(&gb[1]->pcie_replays, 168);
	gd_u64_set(&ga[0]->pcie_replays, 7); /* old replays, none new: fine */
	gd_u64_set(&gb[0]->pcie_replays, 7);
	assert_int_equal(run_fx(f, "gpu.pcie_replays", false), GD_VERDICT_FIRED);
	g = only_finding(f);
	assert_string_equal(g->subject, "gpu1 (0000:2b:00.0)");
	NEAR(ev_get(g, "replays_per_min")->value.v, 1440, 1e-9);
	NEAR(ev_get(g, "replays_per_min")->threshold.v, 0, 0);
	NEAR(ev_get(g, "replays")->value.v, 48, 0);
	NEAR(ev_get(g, "pcie_replays")->value.v, 168, 0);
}

static void test_pcie_replays_needs_window(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[1], *gb[1];

	gpus2(f, 1, ga, gb);
	assert_int_equal(run_fx(f, "gpu.pcie_replays", true), GD_VERDICT_UNKNOWN);
	gd_findings_release(&f->out);
	gd_findings_init(&f->out);
	gd_u64_set(&ga[0]->pcie_replays, 50);
	gd_u64_set(&gb[0]->pcie_replays, 3); /* went backwards: no rate */
	assert_int_equal(run_fx(f, "gpu.pcie_replays", false), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "PCIe replay counter");
}

/* ---- gpu.nvlink_errors ------------------------------------------------- */

static void test_nvlink_errors_rising_and_down(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[2], *gb[2];
	const struct gd_finding *g;

	gpus2(f, 2, ga, gb);
	gd_u64_set(&ga[1]->nvlink_errors, 310);
	gd_u64_set(&gb[1]->nvlink_errors, 2710);
	gd_u64_set(&gb[1]->nvlink_up_links, 17);
	assert_int_equal(run_fx(f, "gpu.nvlink_errors", false), GD_VERDICT_FIRED);
	g = only_finding(f);
	NEAR(ev_get(g, "nvlink_errors_per_min")->value.v, 72000, 1e-9);
	NEAR(ev_get(g, "nvlink_errors_new")->value.v, 2400, 0);
	NEAR(ev_get(g, "nvlink_up_links")->value.v, 17, 0);
	NEAR(ev_get(g, "nvlink_up_links")->threshold.v, 18, 0);
	assert_contains(g->summary, "17 of 18 NVLink links up");
	assert_contains(g->remedy, "nvidia-smi nvlink -e -i 1");
}

static void test_nvlink_no_bridge_is_clear(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[2], *gb[2];

	gpus2(f, 2, ga, gb);
	/* PCIe boards without a bridge: every link down on every GPU. */
	for (int i = 0; i < 2; i++) {
		gd_u64_set(&ga[i]->nvlink_up_links, 0);
		gd_u64_set(&gb[i]->nvlink_up_links, 0);
	}
	assert_int_equal(run_fx(f, "gpu.nvlink_errors", false), GD_VERDICT_CLEAR);
	/* ... but one GPU with none up among bridged siblings is flagged. */
	gd_u64_set(&gb[0]->nvlink_up_links, 4);
	assert_int_equal(run_fx(f, "gpu.nvlink_errors", false), GD_VERDICT_FIRED);
	assert_string_equal(only_finding(f)->subject, "gpu1 (0000:2b:00.0)");
	assert_contains(only_finding(f)->summary, "0 of 18 NVLink links up (a sibling of the same model has 4)");
}

static void test_nvlink_threshold_override(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[1], *gb[1];
	struct gd_thresholds th;
	struct gd_err err;

	gpus2(f, 1, ga, gb);
	gd_u64_set(&gb[0]->nvlink_errors, 10); /* 300 per minute */
	gd_thresholds_init(&th);
	assert_int_equal(gd_thresholds_set(&th, "gpu.nvlink_errors.per_min", "300", &err), 0);
	assert_int_equal(run_rule2("gpu.nvlink_errors", &f->a, &f->b, &th, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(gd_thresholds_set(&th, "gpu.nvlink_errors.per_min", "299", &err), 0);
	assert_int_equal(run_rule2("gpu.nvlink_errors", &f->a, &f->b, &th, &f->out), GD_VERDICT_FIRED);
}

/* ---- gpu.persistence_off ----------------------------------------------- */

static void persistence(struct fx *f, size_t n, const int *off, const char *want)
{
	struct gd_gpu *ga[8], *gb[8];
	const struct gd_finding *g;
	size_t k = 0;

	gpus2(f, n, ga, gb);
	for (size_t i = 0; off[i] >= 0; i++, k++)
		gd_u64_set(&gb[off[i]]->persistence_mode, 0);
	assert_int_equal(run_fx(f, "gpu.persistence_off", true), GD_VERDICT_FIRED);
	g = only_finding(f);
	assert_int_equal(g->severity, GD_SEV_INFO);
	assert_string_equal(g->subject, want);
	assert_string_equal(ev_get(g, "gpu_list")->text, want);
	NEAR(ev_get(g, "gpus_off")->value.v, (double)k, 0);
	NEAR(ev_get(g, "gpus")->value.v, (double)n, 0);
}

static void test_persistence_all(void **state)
{
	const int off[] = { 0, 1, 2, 3, -1 };

	persistence(*state, 4, off, "gpu0-3");
}

static void test_persistence_some(void **state)
{
	const int off[] = { 0, 2, -1 };

	persistence(*state, 4, off, "gpu0,2");
}

static void test_persistence_runs(void **state)
{
	const int off[] = { 0, 1, 2, 5, 7, -1 };

	persistence(*state, 8, off, "gpu0-2,5,7");
}

static void test_persistence_unknown(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *g = healthy_gpu(&f->b, 0);

	g->persistence_mode.ok = false;
	assert_int_equal(run_fx(f, "gpu.persistence_off", true), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "persistence mode");
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)
	const struct CMUnitTest tests[] = {
		T(test_healthy_all_clear),
		T(test_no_nvml_unknown),
		T(test_nvml_ok_no_gpus_unknown),
		T(test_thermal_violation_fires),
		T(test_thermal_violation_edge),
		T(test_thermal_temp_edge),
		T(test_thermal_reasons_severity),
		T(test_thermal_unknown_names_nvml_error),
		T(test_thermal_lost_gpu_skipped),
		T(test_thermal_counter_backwards_no_rate),
		T(test_power_brake),
		T(test_hw_slowdown),
		T(test_reasons_absent_unknown),
		T(test_reasons_absent_offline_names_the_output),
		T(test_power_capped_lowered_limit),
		T(test_power_capped_default_is_info),
		T(test_power_capped_edges),
		T(test_power_capped_idle_and_reason_fallback),
		T(test_clocks_held_low_fires),
		T(test_clocks_held_low_not_every_sample),
		T(test_clocks_held_low_excluded),
		T(test_pcie_degraded_busy),
		T(test_pcie_idle_only_unknown),
		T(test_pcie_width_only),
		T(test_pcie_width_idle),
		T(test_pcie_speed_only_fragment),
		T(test_pcie_lspci),
		T(test_pcie_replays),
		T(test_pcie_replays_needs_window),
		T(test_nvlink_errors_rising_and_down),
		T(test_nvlink_no_bridge_is_clear),
		T(test_nvlink_threshold_override),
		T(test_persistence_all),
		T(test_persistence_some),
		T(test_persistence_runs),
		T(test_persistence_unknown),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
