/*
 * test_nvml_cache.c - the answers that never change while NVML stays
 * initialised (collect/nvml_devices.c's never_changes, kept by src/nvml/)
 * are asked once in a run of many cycles, and the cycles after the first
 * hold the same values as the first; a GPU's name is asked every cycle.
 * Through the fake NVML (its call counts), one gd_nvml for three cycles, as
 * watch, record and serve hold it.
 */
#include "testutil.h"

#include <dlfcn.h>

#include "collect/collect.h"
#include "nvml/nvml.h"

#define FAKE GD_BUILDDIR "/fake_nvml/libnvidia-ml.so.1"
#define SCEN GD_SRCDIR "/tests/scenarios/0001-healthy-8gpu/nvml.ini"

static void test_fixed_answers_asked_once(void **state)
{
	struct gd_collect_ctx ctx;
	struct gd_snapshot s[3];
	struct gd_err err;
	unsigned int (*calls)(const char *name);
	void *dl;
	unsigned int uuid0, name0, thr0, power0;

	(void)state;
	setenv("GPUDOCTOR_FAKE_NVML", SCEN, 1);
	memset(&ctx, 0, sizeof ctx);
	ctx.nvml_path = FAKE;
	ctx.nvml = gd_nvml_open(FAKE, 5);
	assert_non_null(ctx.nvml);
	dl = dlopen(FAKE, RTLD_NOW | RTLD_NOLOAD);
	assert_non_null(dl);
	*(void **)&calls = dlsym(dl, "fake_nvml_calls");
	assert_non_null(calls);
	uuid0 = calls("nvmlDeviceGetUUID");
	name0 = calls("nvmlDeviceGetName");
	thr0 = calls("nvmlDeviceGetTemperatureThreshold");
	power0 = calls("nvmlDeviceGetPowerUsage");
	for (int i = 0; i < 3; i++) {
		gd_snapshot_init(&s[i]);
		gd_err_clear(&err);
		assert_int_equal(gd_collect_nvml(&ctx, &s[i], &err), GD_SRC_OK);
		assert_int_equal(s[i].gpus.n, 8);
	}
	assert_int_equal(calls("nvmlDeviceGetUUID") - uuid0, 8);              /* once per GPU */
	assert_int_equal(calls("nvmlDeviceGetTemperatureThreshold") - thr0, 16); /* two thresholds per GPU */
	assert_int_equal(calls("nvmlDeviceGetName") - name0, 24);             /* every cycle */
	assert_int_equal(calls("nvmlDeviceGetPowerUsage") - power0, 24);      /* a measurement: every cycle */
	for (int i = 1; i < 3; i++)
		for (size_t g = 0; g < 8; g++) {
			const struct gd_gpu *a = GD_VEC_AT(s[0].gpus, struct gd_gpu, g), *b = GD_VEC_AT(s[i].gpus, struct gd_gpu, g);

			assert_string_equal(a->uuid, b->uuid);
			assert_true(a->uuid[0]);
			assert_string_equal(a->serial, b->serial);
			assert_string_equal(a->pci_bus_id, b->pci_bus_id);
			assert_int_equal(a->minor_number.ok, b->minor_number.ok);
			assert_int_equal(a->minor_number.v, b->minor_number.v);
			assert_int_equal(a->numa_node.ok, b->numa_node.ok);
			assert_true(b->temp_slowdown_c.ok && b->temp_slowdown_c.v == a->temp_slowdown_c.v);
			assert_true(b->temp_shutdown_c.ok && b->temp_shutdown_c.v == a->temp_shutdown_c.v);
			assert_int_equal(a->sm_clock_max_mhz.v, b->sm_clock_max_mhz.v);
			assert_int_equal(a->mem_clock_max_mhz.v, b->mem_clock_max_mhz.v);
			assert_int_equal(a->pcie_gen_max.ok, b->pcie_gen_max.ok);
			assert_int_equal(a->pcie_width_max.v, b->pcie_width_max.v);
			assert_int_equal(a->power_default_limit_w.ok, b->power_default_limit_w.ok);
		}
	for (int i = 0; i < 3; i++)
		gd_snapshot_release(&s[i]);
	gd_nvml_close(ctx.nvml);
	/* the fake stays loaded: dlclose would unload it under a thread */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_answers_asked_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
