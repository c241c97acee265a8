/*
 * test_rules_gpu_health.c - gpu.lost, gpu.monitor_stuck, gpu.reset_required,
 * driver.version_mismatch and driver.nvml_unavailable on snapshots built in
 * C: fires with its evidence, clear, unknown without NVML, the NVML states
 * each rule leaves to another (DRIVER_NOT_LOADED, the version mismatch),
 * and malformed stuck-call text.
 */
#include "gpu_rules_fixture.h"

static void reset_out(struct fx *f)
{
	gd_findings_release(&f->out);
	gd_findings_init(&f->out);
}

static void test_healthy_all_clear(void **state)
{
	static const char *const ids[] = { "gpu.lost", "gpu.monitor_stuck", "gpu.reset_required",
					   "driver.version_mismatch", "driver.nvml_unavailable" };
	struct fx *f = *state;
	struct gd_gpu *ga[4], *gb[4];

	gpus2(f, 4, ga, gb);
	GD_STRSET(f->b.driver.version, "550.54.15");
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		if (run_fx(f, ids[i], false) != GD_VERDICT_CLEAR)
			fail_msg("%s is not clear on the healthy host", ids[i]);
	}
	assert_int_equal(f->out.items.n, 0);
}

/* ---- gpu.lost ---------------------------------------------------------- */

static void test_lost(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[4], *gb[4], *g3;
	const struct gd_finding *g;

	gpus2(f, 4, ga, gb);
	/* As the collector leaves it: identity absent, lost = 1. */
	g3 = gb[3];
	memset(g3, 0, sizeof *g3);
	gd_u64_set(&g3->index, 3);
	gd_u64_set(&g3->lost, 1);
	assert_int_equal(run_fx(f, "gpu.lost", false), GD_VERDICT_FIRED);
	g = only_finding(f);
	assert_int_equal(g->severity, GD_SEV_CRITICAL);
	assert_string_equal(g->subject, "gpu3");
	NEAR(ev_get(g, "lost")->value.v, 1, 0);
	assert_contains(g->summary, "gpu3 fell off the bus: NVML answers GPU_IS_LOST.");
}

static void test_lost_earlier_in_window(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[2], *gb[2];
	const struct gd_finding *g;

	gpus2(f, 2, ga, gb);
	gd_u64_set(&ga[1]->lost, 1);
	assert_int_equal(run_fx(f, "gpu.lost", false), GD_VERDICT_FIRED);
	g = only_finding(f);
	assert_string_equal(g->subject, "gpu1 (0000:2b:00.0)");
	assert_string_equal(ev_get(g, "uuid")->text, "GPU-3f2a9c1e-7b4d-4e8a-9c2f-1a6b5d8e0f01");
	assert_contains(g->summary, "(in an earlier snapshot of the window)");
	/* Lost in both: one finding, not two. */
	reset_out(f);
	gd_u64_set(&gb[1]->lost, 1);
	assert_int_equal(run_fx(f, "gpu.lost", false), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 1);
}

static void test_lost_no_nvml(void **state)
{
	struct fx *f = *state;

	nvml_absent(&f->b);
	assert_int_equal(run_fx(f, "gpu.lost", true), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "no GPU evidence: libnvidia-ml.so.1 not found");
}

/* ---- gpu.monitor_stuck ------------------------------------------------- */

static void stuck(struct gd_snapshot *s, const char *call)
{
	GD_STRSET(s->nvml.status, "stuck");
	GD_STRSET(s->nvml.stuck_call, call);
	gd_f64_set(&s->nvml.timeout_s, 5);
}

static void test_stuck_names_gpu(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[2], *gb[2];
	const struct gd_finding *g;

	gpus2(f, 2, ga, gb);
	stuck(&f->b, "nvmlDeviceGetPowerUsage (GPU 1)");
	assert_int_equal(run_fx(f, "gpu.monitor_stuck", false), GD_VERDICT_FIRED);
	g = only_finding(f);
	assert_int_equal(g->severity, GD_SEV_CRITICAL);
	assert_string_equal(g->subject, "gpu1 (0000:2b:00.0)");
	assert_string_equal(ev_get(g, "stuck_call")->text, "nvmlDeviceGetPowerUsage (GPU 1)");
	NEAR(ev_get(g, "timeout_s")->value.v, 5, 0);
	NEAR(ev_get(g, "stuck_snapshots")->value.v, 1, 0);
	assert_contains(g->summary, "NVML call nvmlDeviceGetPowerUsage (GPU 1) did not return within 5 s");
}

static void test_stuck_init_and_malformed(void **state)
{
	struct fx *f = *state;

	stuck(&f->a, "nvmlInit_v2");
	stuck(&f->b, "nvmlDeviceGetTemperature (GPU x)");
	assert_int_equal(run_fx(f, "gpu.monitor_stuck", false), GD_VERDICT_FIRED);
	assert_string_equal(only_finding(f)->subject, "nvml");
	NEAR(ev_get(only_finding(f), "stuck_snapshots")->value.v, 2, 0);
	reset_out(f);
	stuck(&f->b, "nvmlDeviceGetTemperature (GPU 7)"); /* a GPU it did not list */
	assert_int_equal(run_fx(f, "gpu.monitor_stuck", true), GD_VERDICT_FIRED);
	assert_string_equal(only_finding(f)->subject, "gpu7");
	reset_out(f);
	stuck(&f->b, "nvmlDeviceGetTemperature (GPU 99999999999999999999)");
	assert_int_equal(run_fx(f, "gpu.monitor_stuck", true), GD_VERDICT_FIRED);
	assert_string_equal(only_finding(f)->subject, "nvml");
}

static void test_stuck_unknown_and_clear(void **state)
{
	struct fx *f = *state;

	nvml_absent(&f->a);
	nvml_absent(&f->b);
	assert_int_equal(run_fx(f, "gpu.monitor_stuck", false), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "no GPU evidence: libnvidia-ml.so.1");
	reset_out(f);
	GD_STRSET(f->b.nvml.status, "ok");
	assert_int_equal(run_fx(f, "gpu.monitor_stuck", false), GD_VERDICT_CLEAR);
}

/* ---- gpu.reset_required ------------------------------------------------ */

static void test_reset_required(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *ga[4], *gb[4];
	const struct gd_finding *g;

	gpus2(f, 4, ga, gb);
	gd_u64_set(&gb[0]->recovery_action, 1);
	gd_u64_set(&gb[2]->recovery_action, 2);
	assert_int_equal(run_fx(f, "gpu.reset_required", false), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 2);
	g = FINDING(f->out, 0);
	assert_int_equal(g->severity, GD_SEV_CRITICAL);
	NEAR(ev_get(g, "recovery_action")->value.v, 1, 0);
	assert_string_equal(ev_get(g, "action")->text, "GPU reset");
	assert_contains(g->remedy, "nvidia-smi -r -i 0");
	g = FINDING(f->out, 1);
	assert_string_equal(ev_get(g, "action")->text, "node reboot");
	assert_contains(g->remedy, "reboot it");
}

static void test_reset_required_unknown_action(void **state)
{
	struct fx *f = *state;
	struct gd_gpu *g = healthy_gpu(&f->b, 0);

	gd_u64_set(&g->recovery_action, 77); /* a newer driver's value */
	assert_int_equal(run_fx(f, "gpu.reset_required", true), GD_VERDICT_FIRED);
	assert_string_equal(ev_get(only_finding(f), "action")->text, "unknown action");
	reset_out(f);
	g = GD_VEC_AT(f->b.gpus, struct gd_gpu, 0);
	g->recovery_action.ok = false; /* older driver: no field 230 */
	assert_int_equal(run_fx(f, "gpu.reset_required", true), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "field 230");
}

/* ---- driver.version_mismatch ------------------------------------------- */

static void init_failed(struct gd_snapshot *s, const char *status, const char *err, const char *reason)
{
	GD_STRSET(s->nvml.library, "libnvidia-ml.so.1");
	GD_STRSET(s->nvml.status, status);
	GD_STRSET(s->nvml.init_error, err);
	GD_STRSET(s->nvml.reason, reason);
}

static void test_version_mismatch_init(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;

	init_failed(&f->b, "failed", "LIB_RM_VERSION_MISMATCH",
		    "nvmlInit: Driver/library version mismatch (NVML_ERROR_LIB_RM_VERSION_MISMATCH, 18)");
	GD_STRSET(f->b.driver.version, "550.54.15");
	assert_int_equal(run_fx(f, "driver.version_mismatch", true), GD_VERDICT_FIRED);
	g = only_finding(f);
	assert_int_equal(g->severity, GD_SEV_CRITICAL);
	assert_string_equal(g->subject, "driver");
	assert_string_equal(ev_get(g, "init_error")->text, "LIB_RM_VERSION_MISMATCH");
	assert_string_equal(ev_get(g, "kernel_module_version")->text, "550.54.15");
	assert_contains(g->summary, "does not match the loaded nvidia kernel module (version 550.54.15)");
	/* The same state is not also driver.nvml_unavailable. */
	reset_out(f);
	assert_int_equal(run_fx(f, "driver.nvml_unavailable", true), GD_VERDICT_CLEAR);
}

static void test_version_mismatch_module(void **state)
{
	struct fx *f = *state;

	healthy_gpu(&f->b, 0);
	GD_STRSET(f->b.driver.version, "535.104.05");
	assert_int_equal(run_fx(f, "driver.version_mismatch", true), GD_VERDICT_FIRED);
	assert_contains(only_finding(f)->summary, "kernel module is version 535.104.05 but NVML is 12.550.54.15");
	reset_out(f);
	GD_STRSET(f->b.driver.version, "50.54.15"); /* a suffix, but not at a dot */
	assert_int_equal(run_fx(f, "driver.version_mismatch", true), GD_VERDICT_FIRED);
	reset_out(f);
	GD_STRSET(f->b.driver.version, "550.54.15");
	assert_int_equal(run_fx(f, "driver.version_mismatch", true), GD_VERDICT_CLEAR);
}

static void test_version_mismatch_unknown(void **state)
{
	struct fx *f = *state;

	nvml_absent(&f->b);
	assert_int_equal(run_fx(f, "driver.version_mismatch", true), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "NVML did not start");
}

/* ---- driver.nvml_unavailable ------------------------------------------- */

static void pci_gpu(struct gd_snapshot *s, const char *bus, const char *driver)
{
	struct gd_pci_gpu *p = GD_PUSH(s, pci_gpus, struct gd_pci_gpu);

	GD_STRSET(p->pci_bus_id, bus);
	GD_STRSET(p->driver, driver);
}

static void test_nvml_denied(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;

	init_failed(&f->b, "denied", "NO_PERMISSION",
		    "nvmlInit: Insufficient Permissions (NVML_ERROR_NO_PERMISSION, 4): no access to /dev/nvidiactl");
	assert_int_equal(run_fx(f, "driver.nvml_unavailable", true), GD_VERDICT_FIRED);
	g = only_finding(f);
	assert_int_equal(g->severity, GD_SEV_WARNING);
	assert_string_equal(g->subject, "nvml");
	assert_string_equal(ev_get(g, "nvml_status")->text, "denied");
	assert_string_equal(ev_get(g, "init_error")->text, "NO_PERMISSION");
	assert_contains(g->summary, "NVML is installed but denied");
	assert_contains(g->remedy, "/dev/nvidiactl");
}

static void test_nvml_absent_with_pci_gpus(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;

	nvml_absent(&f->b);
	pci_gpu(&f->b, "0000:1b:00.0", "nvidia");
	pci_gpu(&f->b, "0000:2b:00.0", "nvidia");
	pci_gpu(&f->b, "0000:3b:00.0", "vfio-pci"); /* passed through to a VM: not ours */
	assert_int_equal(run_fx(f, "driver.nvml_unavailable", true), GD_VERDICT_FIRED);
	g = only_finding(f);
	NEAR(ev_get(g, "pci_gpus")->value.v, 2, 0);
	assert_contains(g->summary, "2 NVIDIA GPUs sit on the PCI bus with the nvidia driver, but NVML is absent");
}

static void test_nvml_absent_judgements(void **state)
{
	struct fx *f = *state;
	struct gd_source *src;

	nvml_absent(&f->b);
	assert_int_equal(run_fx(f, "driver.nvml_unavailable", true), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "no PCI evidence of NVIDIA GPUs");
	reset_out(f);
	src = GD_PUSH(&f->b, sources, struct gd_source);
	GD_STRSET(src->name, "pci");
	GD_STRSET(src->status, "ok");
	assert_int_equal(run_fx(f, "driver.nvml_unavailable", true), GD_VERDICT_CLEAR); /* no GPUs at all */
	pci_gpu(&f->b, "0000:1b:00.0", "");
	assert_int_equal(run_fx(f, "driver.nvml_unavailable", true), GD_VERDICT_CLEAR); /* no driver bound */
	GD_STRSET(f->b.nvml.init_error, "DRIVER_NOT_LOADED");
	pci_gpu(&f->b, "0000:2b:00.0", "nvidia");
	assert_int_equal(run_fx(f, "driver.nvml_unavailable", true), GD_VERDICT_CLEAR); /* driver.not_loaded's */
	GD_STRSET(f->b.nvml.status, "");
	assert_int_equal(run_fx(f, "driver.nvml_unavailable", true), GD_VERDICT_UNKNOWN);
}

static void test_nvml_failed_enumeration(void **state)
{
	struct fx *f = *state;

	init_failed(&f->b, "failed", "", "nvmlDeviceGetCount: Unknown Error (NVML_ERROR_UNKNOWN, 999)");
	assert_int_equal(run_fx(f, "driver.nvml_unavailable", true), GD_VERDICT_FIRED);
	assert_contains(only_finding(f)->summary, "NVML is installed but failed: nvmlDeviceGetCount: Unknown Error");
	reset_out(f);
	GD_STRSET(f->b.nvml.status, "stuck"); /* gpu.monitor_stuck's */
	assert_int_equal(run_fx(f, "driver.nvml_unavailable", true), GD_VERDICT_CLEAR);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)
	const struct CMUnitTest tests[] = {
		T(test_healthy_all_clear),
		T(test_lost),
		T(test_lost_earlier_in_window),
		T(test_lost_no_nvml),
		T(test_stuck_names_gpu),
		T(test_stuck_init_and_malformed),
		T(test_stuck_unknown_and_clear),
		T(test_reset_required),
		T(test_reset_required_unknown_action),
		T(test_version_mismatch_init),
		T(test_version_mismatch_module),
		T(test_version_mismatch_unknown),
		T(test_nvml_denied),
		T(test_nvml_absent_with_pci_gpus),
		T(test_nvml_absent_judgements),
		T(test_nvml_failed_enumeration),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
