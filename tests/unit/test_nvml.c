/*
 * test_nvml.c - the NVML loader and the nvml collector against the fake
 * libnvidia-ml.so.1 (tests/fake_nvml/), loaded through the real path: the
 * collector's ctx.nvml_path, as --nvml and GPUDOCTOR_NVML set it.
 *
 * The test also dlopen()s each fake itself to read its call counters (which
 * symbols were called, and whether nvmlShutdown balanced nvmlInit).  The
 * hang tests come last: they leave a thread asleep inside the fake.
 */
#include <dlfcn.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/snapshot_json.h"
#include "nvml/nvml.h"
#include "testutil.h"

#define FAKE GD_BUILDDIR "/fake_nvml/libnvidia-ml.so.1"
#define FAKE_OLD GD_BUILDDIR "/fake_nvml_old/libnvidia-ml.so.1"
#define SCEN(name) GD_SRCDIR "/tests/fake_nvml/scenarios/" name ".ini"

struct fake {
	void *dl;
	unsigned int (*calls)(const char *name);
	int (*inits)(void);
	int (*shutdowns)(void);
};

struct fakes {
	struct fake cur, old;
};

static void fake_open(struct fake *f, const char *path)
{
	f->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!f->dl)
		fail_msg("cannot load the fake NVML %s: %s (run make unit)", path, dlerror());
	*(void **)&f->calls = dlsym(f->dl, "fake_nvml_calls");
	*(void **)&f->inits = dlsym(f->dl, "fake_nvml_inits");
	*(void **)&f->shutdowns = dlsym(f->dl, "fake_nvml_shutdowns");
	assert_non_null(f->calls);
	assert_non_null(f->inits);
	assert_non_null(f->shutdowns);
}

static int setup(void **state)
{
	struct fakes *f = calloc(1, sizeof *f);

	fake_open(&f->cur, FAKE);
	fake_open(&f->old, FAKE_OLD);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fakes *f = *state;

	/* The fakes stay loaded: an abandoned thread may still sleep in one. */
	free(f);
	return 0;
}

static enum gd_src_status collect(const char *lib, const char *scenario, double timeout_s, struct gd_snapshot *s,
				  struct gd_err *err)
{
	struct gd_collect_ctx ctx;

	memset(&ctx, 0, sizeof ctx);
	ctx.nvml_path = lib;
	ctx.nvml_timeout_s = timeout_s;
	if (scenario)
		setenv("GPUDOCTOR_FAKE_NVML", scenario, 1);
	else
		unsetenv("GPUDOCTOR_FAKE_NVML");
	gd_snapshot_init(s);
	gd_err_clear(err);
	return gd_collect_nvml(&ctx, s, err);
}

static struct gd_gpu *gpu(struct gd_snapshot *s, size_t i)
{
	assert_true(i < s->gpus.n);
	return GD_VEC_AT(s->gpus, struct gd_gpu, i);
}

#define U(x, want) \
	do { \
		assert_true((x).ok); \
		assert_int_equal((x).v, (want)); \
	} while (0)
#define F(x, want) \
	do { \
		assert_true((x).ok); \
		assert_float_equal((x).v, (want), 1e-9); \
	} while (0)

static const struct gd_nvml_error *error_for(const struct gd_snapshot *s, uint64_t g, const char *field)
{
	GD_VEC_EACH(s->nvml_errors, struct gd_nvml_error, e)
		if (e->gpu.ok && e->gpu.v == g && strcmp(e->field, field) == 0)
			return e;
	return NULL;
}

/* ---- a healthy 2-GPU host --------------------------------------------------- */
static void test_healthy(void **state)
{
	struct fakes *f = *state;
	struct gd_snapshot s;
	struct gd_err err;
	int inits = f->cur.inits(), shutdowns = f->cur.shutdowns();
	struct gd_gpu *g;
	const struct gd_gpu_proc *p;

	assert_int_equal(collect(FAKE, SCEN("healthy2"), 0, &s, &err), GD_SRC_OK);
	assert_string_equal(s.nvml.status, "ok");
	assert_string_equal(s.nvml.library, FAKE);
	assert_string_equal(s.nvml.driver_version, "550.54.15");
	assert_string_equal(s.nvml.nvml_version, "12.550.54.15");
	U(s.nvml.cuda_driver_version, 12040);
	U(s.nvml.device_count, 2);
	F(s.nvml.timeout_s, GD_NVML_TIMEOUT_DEFAULT_S);
	assert_string_equal(s.nvml.missing, "");
	assert_string_equal(s.nvml.init_error, "");
	assert_int_equal(s.gpus.n, 2);
	assert_int_equal(s.nvml_errors.n, 0);

	g = gpu(&s, 0);
	U(g->index, 0);
	assert_string_equal(g->name, "NVIDIA H100 80GB HBM3");
	assert_string_equal(g->uuid, "GPU-5f1c4b2e-8d3a-4c1b-9e7f-2a6d8c0b1e34");
	assert_string_equal(g->serial, "1654922012345");
	assert_string_equal(g->pci_bus_id, "0000:3b:00.0");
	U(g->minor_number, 0);
	assert_false(g->numa_node.ok); /* NOT_SUPPORTED */
	assert_false(g->fan_pct.ok);   /* NOT_SUPPORTED: absent, not 0 */
	U(g->lost, 0);
	U(g->persistence_mode, 1);
	U(g->compute_mode, 0);
	U(g->mig_mode, 0);
	F(g->temp_c, 45);
	F(g->temp_slowdown_c, 87);
	F(g->temp_shutdown_c, 92);
	U(g->util_gpu_pct, 98);
	U(g->util_mem_pct, 61);
	U(g->mem_total_bytes, 85520809984ULL);
	U(g->mem_used_bytes, 71303168000ULL);
	F(g->power_w, 350.5);
	F(g->power_limit_w, 700);
	F(g->power_default_limit_w, 700);
	U(g->energy_mj, 123456789012ULL);
	U(g->sm_clock_mhz, 1980);
	U(g->sm_clock_max_mhz, 1980);
	U(g->mem_clock_mhz, 2619);
	U(g->mem_clock_max_mhz, 2619);
	U(g->app_sm_clock_mhz, 1755);
	U(g->pstate, 0);
	U(g->clock_event_reasons, 0x4);
	U(g->violation_power_ns, 9007199254740993ULL); /* > 2^53: no double on the way */
	U(g->violation_thermal_ns, 0);
	U(g->violation_reliability_ns, 0);
	U(g->pcie_gen, 5);
	U(g->pcie_gen_max, 5);
	U(g->pcie_width, 16);
	U(g->pcie_width_max, 16);
	U(g->pcie_tx_kbps, 1200000);
	U(g->pcie_rx_kbps, 3400000);
	U(g->pcie_replays, 3);
	U(g->ecc_mode, 1);
	U(g->ecc_corrected_volatile, 2);
	U(g->ecc_uncorrected_volatile, 0);
	U(g->ecc_corrected_aggregate, 17);
	U(g->retired_pages_sbe, 0);
	U(g->retired_pages_pending, 0);
	U(g->remap_corrected, 1);
	U(g->remap_uncorrected, 0);
	U(g->remap_pending, 0);
	U(g->remap_failure, 0);
	U(g->recovery_action, 0);
	U(g->nvlink_links, 18);
	U(g->nvlink_up_links, 18);
	U(g->nvlink_errors, 7);

	g = gpu(&s, 1);
	assert_string_equal(g->pci_bus_id, "0000:5d:00.0");
	U(g->compute_mode, 3);
	F(g->power_w, 71.25);
	U(g->pcie_gen, 1);
	U(g->clock_event_reasons, 0x1);

	assert_int_equal(s.gpu_procs.n, 2);
	p = GD_VEC_AT(s.gpu_procs, struct gd_gpu_proc, 0);
	U(p->gpu, 0);
	U(p->pid, 4242);
	U(p->used_mem_bytes, 68719476736ULL);
	U(p->sm_util_pct, 97);
	U(p->mem_util_pct, 55);
	p = GD_VEC_AT(s.gpu_procs, struct gd_gpu_proc, 1);
	U(p->pid, 4243);
	assert_false(p->sm_util_pct.ok); /* no sample for it */

	/* Newest names were used, the legacy ones never. */
	assert_true(f->cur.calls("nvmlInit_v2") > 0);
	assert_int_equal(f->cur.calls("nvmlInit"), 0);
	assert_true(f->cur.calls("nvmlDeviceGetComputeRunningProcesses_v3") > 0);
	assert_int_equal(f->cur.calls("nvmlDeviceGetComputeRunningProcesses"), 0);
	assert_int_equal(f->cur.calls("nvmlDeviceGetMemoryInfo"), 0);
	assert_int_equal(f->cur.calls("nvmlDeviceGetTemperature"), 0);
	assert_int_equal(f->cur.calls("nvmlDeviceGetCurrentClocksThrottleReasons"), 0);
	assert_int_equal(f->cur.calls("nvmlDeviceGetPciInfo_v2"), 0);
	/* One init, one balanced shutdown. */
	assert_int_equal(f->cur.inits() - inits, 1);
	assert_int_equal(f->cur.shutdowns() - shutdowns, 1);
	gd_snapshot_release(&s);
}

/* Two snapshots on one open handle: one init for the run. */
static void test_shared_handle(void **state)
{
	struct fakes *f = *state;
	struct gd_collect_ctx ctx;
	struct gd_snapshot a, b;
	struct gd_err err;
	int inits = f->cur.inits(), shutdowns = f->cur.shutdowns();

	setenv("GPUDOCTOR_FAKE_NVML", SCEN("healthy2"), 1);
	memset(&ctx, 0, sizeof ctx);
	ctx.nvml = gd_nvml_open(FAKE, 2.0);
	gd_snapshot_init(&a);
	gd_snapshot_init(&b);
	assert_int_equal(gd_collect_nvml(&ctx, &a, &err), GD_SRC_OK);
	assert_int_equal(gd_collect_nvml(&ctx, &b, &err), GD_SRC_OK);
	assert_int_equal(b.gpus.n, 2);
	F(b.nvml.timeout_s, 2.0);
	assert_int_equal(f->cur.inits() - inits, 1);
	assert_int_equal(f->cur.shutdowns() - shutdowns, 0);
	gd_nvml_close(ctx.nvml);
	assert_int_equal(f->cur.shutdowns() - shutdowns, 1);
	gd_snapshot_release(&a);
	gd_snapshot_release(&b);
}

/* Every field of one record equal, presence included. */
static void assert_record_equal(const struct gd_record_desc *d, const char *x, const char *y)
{
	for (size_t i = 0; i < d->nfields; i++) {
		const struct gd_field *fl = &d->fields[i];
		const char *p = x + fl->offset, *q = y + fl->offset;

		switch (fl->type) {
		case GD_FT_U64: {
			const struct gd_u64 *u = (const void *)p, *v = (const void *)q;

			if (u->ok != v->ok || (u->ok && u->v != v->v))
				fail_msg("%s.%s differs after the round trip", d->name, fl->name);
			break;
		}
		case GD_FT_F64: {
			const struct gd_f64 *u = (const void *)p, *v = (const void *)q;

			if (u->ok != v->ok || (u->ok && u->v != v->v))
				fail_msg("%s.%s differs after the round trip", d->name, fl->name);
			break;
		}
		case GD_FT_STR:
			if (strcmp(p, q) != 0)
				fail_msg("%s.%s: \"%s\" became \"%s\"", d->name, fl->name, p, q);
			break;
		}
	}
}

static void round_trip(const struct gd_snapshot *s)
{
	static const char *const sections[] = { "nvml", "gpus", "gpu_procs", "nvml_errors" };
	json_t *o = gd_snapshot_to_json(s);
	char *text = json_dumps(o, JSON_COMPACT);
	json_error_t jerr;
	json_t *back = json_loads(text, 0, &jerr);
	struct gd_snapshot t;
	struct gd_err err;

	assert_non_null(back);
	gd_snapshot_init(&t);
	assert_int_equal(gd_snapshot_from_json(back, &t, &err), 0);
	for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
		const struct gd_record_desc *d = gd_section_find(sections[i]);

		assert_non_null(d);
		if (!d->is_array) {
			assert_record_equal(d, (const char *)s + d->offset, (const char *)&t + d->offset);
			continue;
		}
		const struct gd_vec *u = (const void *)((const char *)s + d->offset);
		const struct gd_vec *v = (const void *)((const char *)&t + d->offset);

		assert_int_equal(u->n, v->n);
		for (size_t j = 0; j < u->n; j++)
			assert_record_equal(d, (const char *)u->items + j * d->size, (const char *)v->items + j * d->size);
	}
	/* Absent is null in JSON, never 0. */
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(o, "gpus"), 0), "fan_pct")));
	free(text);
	json_decref(o);
	json_decref(back);
	gd_snapshot_release(&t);
}

static void test_json_round_trip(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	collect(FAKE, SCEN("healthy2"), 0, &s, &err);
	assert_int_equal(s.gpus.n, 2);
	round_trip(&s);
	gd_snapshot_release(&s);
	collect(FAKE, SCEN("errors"), 0, &s, &err);
	assert_true(s.nvml_errors.n > 0);
	round_trip(&s);
	gd_snapshot_release(&s);
}

/* ---- errors map to presence --------------------------------------------------- */
static void test_not_supported_denied_failed(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_nvml_error *e;
	struct gd_gpu *g;

	(void)state;
	assert_int_equal(collect(FAKE, SCEN("errors"), 0, &s, &err), GD_SRC_PARTIAL);
	assert_non_null(strstr(err.msg, "nvml_errors"));
	g = gpu(&s, 0);
	F(g->temp_c, 52);
	F(g->power_limit_w, 400);
	assert_false(g->fan_pct.ok);
	assert_null(error_for(&s, 0, "fan_pct")); /* NOT_SUPPORTED is a fact, not an error */
	assert_false(g->power_w.ok);
	e = error_for(&s, 0, "power_w");
	assert_non_null(e);
	assert_string_equal(e->status, "denied");
	U(e->code, NVML_ERROR_NO_PERMISSION);
	assert_non_null(strstr(e->reason, "nvmlDeviceGetPowerUsage"));
	assert_non_null(strstr(e->reason, "Insufficient Permissions"));
	assert_false(g->ecc_corrected_volatile.ok);
	e = error_for(&s, 0, "ecc_corrected_volatile");
	assert_non_null(e);
	assert_string_equal(e->status, "failed");
	U(e->code, NVML_ERROR_UNKNOWN);
	e = error_for(&s, 0, "gpu_procs");
	assert_non_null(e);
	assert_string_equal(e->status, "denied");
	gd_snapshot_release(&s);
}

static void test_lost(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_gpu *g;

	(void)state;
	collect(FAKE, SCEN("errors"), 0, &s, &err);
	assert_int_equal(s.gpus.n, 3);
	U(gpu(&s, 0)->lost, 0);
	/* Lost before enumeration: listed, marked, nothing else. */
	g = gpu(&s, 1);
	U(g->index, 1);
	U(g->lost, 1);
	assert_string_equal(g->name, "");
	assert_false(g->temp_c.ok);
	/* Lost mid-run: what came before stays, what came after is absent. */
	g = gpu(&s, 2);
	U(g->lost, 1);
	assert_string_equal(g->name, "NVIDIA A100-SXM4-80GB");
	assert_string_equal(g->pci_bus_id, "0000:47:00.0");
	assert_false(g->temp_c.ok);
	assert_false(g->power_w.ok);
	assert_null(error_for(&s, 1, "index")); /* lost is evidence, not an error row */
	gd_snapshot_release(&s);
}

static void test_insufficient_size(void **state)
{
	struct fakes *f = *state;
	struct gd_snapshot s;
	struct gd_err err;
	unsigned int calls = f->cur.calls("nvmlDeviceGetComputeRunningProcesses_v3");
	size_t n0 = 0, n1 = 0;
	const struct gd_nvml_error *e;

	collect(FAKE, SCEN("procs"), 0, &s, &err);
	GD_VEC_EACH(s.gpu_procs, struct gd_gpu_proc, p)
	{
		if (p->gpu.v == 0) {
			U(p->pid, 1001 + n0);
			if (p->pid.v == 1040) {
				assert_false(p->used_mem_bytes.ok); /* NVML_VALUE_NOT_AVAILABLE */
				U(p->sm_util_pct, 90);
			} else {
				assert_true(p->used_mem_bytes.ok);
			}
			n0++;
		} else {
			n1++;
		}
	}
	assert_int_equal(n0, 40);
	assert_int_equal(n1, 0);
	/* gpu1's list never fits: a bounded retry and a failed row. */
	e = error_for(&s, 1, "gpu_procs");
	assert_non_null(e);
	assert_string_equal(e->status, "failed");
	assert_non_null(strstr(e->reason, "kept growing"));
	/* gpu0: two calls; gpu1: the retry bound. */
	assert_true(f->cur.calls("nvmlDeviceGetComputeRunningProcesses_v3") - calls <= 2 + 4);
	assert_true(f->cur.calls("nvmlDeviceGetComputeRunningProcesses_v3") - calls >= 2 + 2);
	gd_snapshot_release(&s);
}

/* ---- an old driver: only the older names ------------------------------------- */
static void test_old_symbols(void **state)
{
	struct fakes *f = *state;
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_gpu *g;
	const struct gd_gpu_proc *p;
	int inits = f->old.inits(), shutdowns = f->old.shutdowns();

	assert_int_equal(collect(FAKE_OLD, SCEN("healthy2"), 0, &s, &err), GD_SRC_OK);
	assert_string_equal(s.nvml.status, "ok");
	assert_int_equal(s.gpus.n, 2);
	g = gpu(&s, 0);
	assert_string_equal(g->pci_bus_id, "0000:3b:00.0");  /* _v3 -> _v2 in one row */
	F(g->temp_c, 45);                                    /* nvmlDeviceGetTemperature */
	U(g->mem_used_bytes, 71303168000ULL);                /* nvmlDeviceGetMemoryInfo */
	U(g->clock_event_reasons, 0x4);                      /* ...ThrottleReasons */
	U(s.nvml.cuda_driver_version, 12040);
	assert_false(g->remap_corrected.ok);                 /* no nvmlDeviceGetRemappedRows */
	assert_false(g->remap_pending.ok);
	assert_non_null(strstr(s.nvml.missing, "nvmlDeviceGetRemappedRows"));
	/* absent from NVIDIA's 535.261.03 too (tests/nvidia/symbols.sh): reported,
	 * and the rest of the GPU read as before */
	assert_non_null(strstr(s.nvml.missing, "nvmlDeviceGetNumaNodeId"));
	assert_false(g->numa_node.ok);
	/* The v1 names filled in for the newer ones: not reported missing. */
	assert_null(strstr(s.nvml.missing, "MemoryInfo"));
	assert_null(strstr(s.nvml.missing, "Temperature"));
	assert_null(strstr(s.nvml.missing, "Processes"));
	assert_int_equal(s.gpu_procs.n, 2); /* the 16-byte v1 struct */
	p = GD_VEC_AT(s.gpu_procs, struct gd_gpu_proc, 1);
	U(p->pid, 4243);
	U(p->used_mem_bytes, 1073741824ULL);
	assert_true(f->old.calls("nvmlInit") > 0);
	assert_true(f->old.calls("nvmlDeviceGetComputeRunningProcesses") > 0);
	assert_true(f->old.calls("nvmlDeviceGetCount") > 0);
	assert_true(f->old.calls("nvmlDeviceGetHandleByIndex") > 0);
	assert_int_equal(f->old.inits() - inits, 1);
	assert_int_equal(f->old.shutdowns() - shutdowns, 1);
	gd_snapshot_release(&s);
}

/* A driver that rejects our struct versions: the older calls answer. */
static void test_struct_version_fallback(void **state)
{
	struct fakes *f = *state;
	struct gd_snapshot s;
	struct gd_err err;
	unsigned int v2 = f->cur.calls("nvmlDeviceGetMemoryInfo_v2"), v1 = f->cur.calls("nvmlDeviceGetMemoryInfo");

	assert_int_equal(collect(FAKE, SCEN("struct_version"), 0, &s, &err), GD_SRC_OK);
	U(gpu(&s, 0)->mem_used_bytes, 1048576);
	U(gpu(&s, 0)->mem_total_bytes, 85520809984ULL);
	F(gpu(&s, 0)->temp_c, 47);
	assert_int_equal(f->cur.calls("nvmlDeviceGetMemoryInfo_v2") - v2, 1);
	assert_int_equal(f->cur.calls("nvmlDeviceGetMemoryInfo") - v1, 1);
	U(gpu(&s, 0)->fabric_state, 3);     /* nvmlDeviceGetGpuFabricInfo after the V call's mismatch */
	U(gpu(&s, 0)->fabric_status, 0);
	assert_false(gpu(&s, 0)->fabric_health_mask.ok);
	assert_int_equal(s.nvml_errors.n, 0);
	gd_snapshot_release(&s);
}

/* The fabric states: the V call with its mask; NOT_SUPPORTED absent and
 * silent; a denied answer an nvml_errors row; the old driver's 12.2 call. */
static void test_fabric_states(void **state)
{
	struct fakes *f = *state;
	struct gd_snapshot s;
	struct gd_err err;
	unsigned int old_calls = f->old.calls("nvmlDeviceGetGpuFabricInfo");
	const struct gd_nvml_error *e;

	assert_int_equal(collect(FAKE, SCEN("fabric"), 0, &s, &err), GD_SRC_PARTIAL);
	assert_int_equal(s.gpus.n, 5);
	U(gpu(&s, 0)->fabric_state, 3);
	U(gpu(&s, 0)->fabric_status, 0);
	U(gpu(&s, 0)->fabric_health_mask, 0x10);
	U(gpu(&s, 1)->fabric_state, 2);
	assert_false(gpu(&s, 1)->fabric_status.ok);   /* only once completed */
	U(gpu(&s, 2)->fabric_state, 3);
	U(gpu(&s, 2)->fabric_status, 999);
	assert_false(gpu(&s, 3)->fabric_state.ok);
	assert_null(error_for(&s, 3, "fabric_state"));
	assert_false(gpu(&s, 4)->fabric_state.ok);
	assert_non_null(e = error_for(&s, 4, "fabric_state"));
	assert_string_equal(e->status, "denied");
	assert_non_null(strstr(e->reason, "nvmlDeviceGetGpuFabricInfoV"));
	gd_snapshot_release(&s);
	assert_int_equal(collect(FAKE_OLD, SCEN("fabric"), 0, &s, &err), GD_SRC_PARTIAL);
	U(gpu(&s, 1)->fabric_state, 2);
	U(gpu(&s, 2)->fabric_status, 999);
	assert_false(gpu(&s, 0)->fabric_health_mask.ok);
	assert_null(strstr(s.nvml.missing, "Fabric"));
	assert_true(f->old.calls("nvmlDeviceGetGpuFabricInfo") > old_calls);
	gd_snapshot_release(&s);
}

/* ---- init failures and no library ---------------------------------------------- */
static void test_driver_not_loaded(void **state)
{
	struct fakes *f = *state;
	struct gd_snapshot s;
	struct gd_err err;
	unsigned int shut = f->cur.calls("nvmlShutdown");

	assert_int_equal(collect(FAKE, SCEN("init_not_loaded"), 0, &s, &err), GD_SRC_ABSENT);
	assert_string_equal(s.nvml.status, "absent");
	assert_string_equal(s.nvml.init_error, "DRIVER_NOT_LOADED");
	assert_non_null(strstr(s.nvml.reason, "kernel module is not loaded"));
	assert_non_null(strstr(err.msg, "Driver Not Loaded"));
	assert_int_equal(s.gpus.n, 0);
	assert_false(s.nvml.device_count.ok);
	assert_int_equal(f->cur.calls("nvmlShutdown") - shut, 0); /* no init, no shutdown */
	gd_snapshot_release(&s);
}

static void test_version_mismatch(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	assert_int_equal(collect(FAKE, SCEN("version_mismatch"), 0, &s, &err), GD_SRC_FAILED);
	assert_string_equal(s.nvml.status, "failed");
	assert_string_equal(s.nvml.init_error, "LIB_RM_VERSION_MISMATCH");
	assert_non_null(strstr(s.nvml.reason, "version mismatch"));
	assert_int_equal(s.gpus.n, 0);
	gd_snapshot_release(&s);
}

static void test_no_library(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	assert_int_equal(collect("/nonexistent/libnvidia-ml.so.1", NULL, 0, &s, &err), GD_SRC_ABSENT);
	assert_string_equal(s.nvml.status, "absent");
	assert_non_null(strstr(s.nvml.reason, "/nonexistent/libnvidia-ml.so.1"));
	assert_int_equal(s.gpus.n, 0);
	assert_string_equal(s.nvml.init_error, "");
	gd_snapshot_release(&s);

	/* A file that is not a library: failed, with the loader's reason. */
	assert_int_equal(collect(SCEN("healthy2"), NULL, 0, &s, &err), GD_SRC_FAILED);
	assert_string_equal(s.nvml.status, "failed");
	assert_true(strlen(s.nvml.reason) > 0);
	gd_snapshot_release(&s);

	/* A library without NVML in it: the required functions are listed. */
	assert_int_equal(collect("libm.so.6", NULL, 0, &s, &err), GD_SRC_FAILED);
	assert_non_null(strstr(s.nvml.reason, "nvmlInit_v2/nvmlInit"));
	assert_non_null(strstr(s.nvml.reason, "nvmlDeviceGetCount_v2/nvmlDeviceGetCount"));
	gd_snapshot_release(&s);
}

/* A driver with no GPUs and no scenario: ok, an empty list. */
static void test_no_gpus(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	assert_int_equal(collect(FAKE, NULL, 0, &s, &err), GD_SRC_OK);
	U(s.nvml.device_count, 0);
	assert_int_equal(s.gpus.n, 0);
	gd_snapshot_release(&s);
}

static void test_error_names(void **state)
{
	(void)state;
	assert_string_equal(gd_nvml_error_name(NVML_ERROR_NO_PERMISSION), "NO_PERMISSION");
	assert_string_equal(gd_nvml_error_name(NVML_ERROR_GPU_IS_LOST), "GPU_IS_LOST");
	assert_string_equal(gd_nvml_error_name(NVML_ERROR_RESET_TYPE_NOT_SUPPORTED), "RESET_TYPE_NOT_SUPPORTED");
	assert_string_equal(gd_nvml_error_name(NVML_ERROR_UNKNOWN), "UNKNOWN");
	assert_string_equal(gd_nvml_error_name(31), "ERROR_OTHER");
	assert_string_equal(gd_nvml_error_name(GD_NVML_RC_STUCK), "DEADLINE_MISSED");
}

/* ---- hangs (last: they leave a thread asleep in the fake) ----------------------- */
static void test_hang(void **state)
{
	struct fakes *f = *state;
	struct gd_collect_ctx ctx;
	struct gd_snapshot s, t;
	struct gd_err err;
	struct gd_gpu *g;
	unsigned int shut = f->cur.calls("nvmlShutdown"), limit = f->cur.calls("nvmlDeviceGetEnforcedPowerLimit");
	unsigned int power;

	setenv("GPUDOCTOR_FAKE_NVML", SCEN("hang"), 1);
	memset(&ctx, 0, sizeof ctx);
	ctx.nvml = gd_nvml_open(FAKE, 0.5);
	power = f->cur.calls("nvmlDeviceGetPowerUsage");
	gd_snapshot_init(&s);
	assert_int_equal(gd_collect_nvml(&ctx, &s, &err), GD_SRC_PARTIAL);
	assert_string_equal(s.nvml.status, "stuck");
	assert_string_equal(s.nvml.stuck_call, "nvmlDeviceGetPowerUsage (GPU 0)");
	assert_non_null(strstr(s.nvml.reason, "did not return within 0.5 s"));
	assert_non_null(strstr(err.msg, "nvmlDeviceGetPowerUsage"));
	/* gpu0 keeps what came back in time; the hung call's value is absent;
	 * gpu1 was never asked. */
	assert_int_equal(s.gpus.n, 1);
	g = gpu(&s, 0);
	F(g->temp_c, 45);
	assert_false(g->power_w.ok);
	assert_false(g->power_limit_w.ok);
	assert_string_equal(s.nvml.driver_version, "550.54.15");
	assert_int_equal(f->cur.calls("nvmlDeviceGetPowerUsage") - power, 1);
	assert_int_equal(f->cur.calls("nvmlDeviceGetEnforcedPowerLimit") - limit, 0);

	/* The next snapshot of the run makes no call at all. */
	power = f->cur.calls("nvmlDeviceGetCount_v2");
	gd_snapshot_init(&t);
	assert_int_equal(gd_collect_nvml(&ctx, &t, &err), GD_SRC_FAILED);
	assert_string_equal(t.nvml.status, "stuck");
	assert_int_equal(t.gpus.n, 0);
	assert_int_equal(f->cur.calls("nvmlDeviceGetCount_v2") - power, 0);
	gd_nvml_close(ctx.nvml);
	assert_int_equal(f->cur.calls("nvmlShutdown") - shut, 0); /* never called into a hung driver */
	round_trip(&s);
	gd_snapshot_release(&s);
	gd_snapshot_release(&t);
}

static void test_init_hang(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	assert_int_equal(collect(FAKE, SCEN("init_hang"), 0.3, &s, &err), GD_SRC_FAILED);
	assert_string_equal(s.nvml.status, "stuck");
	assert_non_null(strstr(s.nvml.stuck_call, "nvmlInit_v2"));
	assert_string_equal(s.nvml.init_error, "");
	assert_int_equal(s.gpus.n, 0);
	gd_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_names),
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_shared_handle),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_not_supported_denied_failed),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_insufficient_size),
		cmocka_unit_test(test_old_symbols),
		cmocka_unit_test(test_struct_version_fallback),
		cmocka_unit_test(test_fabric_states),
		cmocka_unit_test(test_driver_not_loaded),
		cmocka_unit_test(test_version_mismatch),
		cmocka_unit_test(test_no_library),
		cmocka_unit_test(test_no_gpus),
		cmocka_unit_test(test_hang),
		cmocka_unit_test(test_init_hang),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
