/*
 * nvml_devices.c - GPU evidence from NVML: the nvml, gpus[], gpu_procs[]
 * and nvml_errors[] sections.
 *
 * Source: libnvidia-ml.so.1, loaded at run time by src/nvml/ (no build-time
 * dependency); every call runs with a deadline (nvml.h).  Not a file, so no
 * sample text: the calls and their units are in FACTS.md section 2, e.g.
 * nvmlDeviceGetPowerUsage -> 350123 (mW) becomes power_w = 350.123, and
 * nvmlPciInfo_t.busId "00000000:3B:00.0" becomes pci_bus_id "0000:3b:00.0"
 * (sysfs spelling).  Versions: every function used exists in the NVML of
 * driver R450 (CUDA 11.0) except nvmlDeviceGetTemperatureV (12.8 headers,
 * with nvmlDeviceGetTemperature as the fallback), the clock "event" names
 * (12.2; the "throttle" names before) and the recovery action (field 230,
 * 12.8).  A function the driver lacks leaves its fields absent and is named
 * in nvml.missing.  Values that a field id gives as well (ECC, violation
 * times, energy, PCIe replays, NVLink: nvml_gpu_fields.c) come from one
 * nvmlDeviceGetFieldValues call per GPU where the driver answers them, and
 * from their own calls where it does not.
 *
 * Presence: success sets a field; NOT_SUPPORTED leaves it absent (a fact);
 * NO_PERMISSION leaves it absent with a "denied" row in nvml_errors naming
 * the call; GPU_IS_LOST sets gpus[].lost = 1 and stops querying that GPU;
 * INSUFFICIENT_SIZE on process lists grows the buffer and retries, at most
 * LIST_TRIES times; any other error is a "failed" row.  A call that misses
 * its deadline leaves its fields absent, sets nvml.status = "stuck" and
 * nvml.stuck_call, and no further call is made in this run: the GPUs after
 * it are not listed.  Values that earlier calls returned are kept: they
 * came back in time.
 *
 * Without NVIDIA software the collector reports nvml.status "absent" and
 * the run goes on.  Memory health, NVLink and processes are in
 * nvml_gpu_health.c; nvml_gpu.h holds what the two share.
 */
#include "collect/collectors.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/nvml_gpu.h"
#include "core/i18n.h"

struct gd_gpu *gd_nv_gpu(struct gd_gpu_run *r)
{
	return GD_VEC_AT(r->s->gpus, struct gd_gpu, r->gi);
}

THUNK_STR(t_name, name, NVML_DEVICE_NAME_V2_BUFFER_SIZE)
THUNK_STR(t_uuid, uuid, NVML_DEVICE_UUID_V2_BUFFER_SIZE)
THUNK_STR(t_serial, serial, NVML_DEVICE_SERIAL_BUFFER_SIZE)
THUNK_U(t_minor, minor)
THUNK_U(t_numa, numa)
THUNK_ENUM(t_persistence, persistence, nvmlEnableState_t)
THUNK_ENUM(t_compute_mode, compute_mode, nvmlComputeMode_t)
THUNK_ENUM(t_pstate, pstate, nvmlPstates_t)
THUNK_ARG_U(t_temp, temp, nvmlTemperatureSensors_t)
THUNK_ARG_U(t_temp_threshold, temp_threshold, nvmlTemperatureThresholds_t)
THUNK_U(t_fan, fan)
THUNK_U(t_power, power)
THUNK_U(t_power_limit, power_limit)
THUNK_U(t_power_default_limit, power_default_limit)
THUNK_ARG_U(t_clock, clock, nvmlClockType_t)
THUNK_ARG_U(t_max_clock, max_clock, nvmlClockType_t)
THUNK_ARG_U(t_app_clock, app_clock, nvmlClockType_t)
THUNK_U(t_pcie_gen, pcie_gen)
THUNK_U(t_pcie_gen_max, pcie_gen_max)
THUNK_U(t_pcie_width, pcie_width)
THUNK_U(t_pcie_width_max, pcie_width_max)
THUNK_ARG_U(t_pcie_throughput, pcie_throughput, nvmlPcieUtilCounter_t)
THUNK_U(t_pcie_replay, pcie_replay)

static nvmlReturn_t t_driver_version(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	_Static_assert(NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE <= sizeof io->str, "buffer");
	return a->driver_version(io->str, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE);
}

static nvmlReturn_t t_nvml_version(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->nvml_version(io->str, NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE);
}

static nvmlReturn_t t_cuda_version(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->cuda_version(&io->i);
}

static nvmlReturn_t t_count(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->count(&io->u[0]);
}

static nvmlReturn_t t_handle(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->handle(io->arg[0], &io->dev);
}

static nvmlReturn_t t_pci(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->pci(io->dev, &io->s.pci);
}

static nvmlReturn_t t_mig_mode(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->mig_mode(io->dev, &io->u[0], &io->u[1]);
}

static nvmlReturn_t t_temp_v(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	io->s.temp.version = nvmlTemperature_v1;
	io->s.temp.sensorType = NVML_TEMPERATURE_GPU;
	return a->temp_v(io->dev, &io->s.temp);
}

static nvmlReturn_t t_util(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->util(io->dev, &io->s.util);
}

static nvmlReturn_t t_mem_v2(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	io->s.mem_v2.version = nvmlMemory_v2;
	return a->mem_v2(io->dev, &io->s.mem_v2);
}

static nvmlReturn_t t_mem_v1(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->mem_v1(io->dev, &io->s.mem_v1);
}

static nvmlReturn_t t_energy(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->energy(io->dev, &io->ull);
}

static nvmlReturn_t t_clock_reasons(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->clock_reasons(io->dev, &io->ull);
}

static nvmlReturn_t t_violation(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->violation(io->dev, (nvmlPerfPolicyType_t)io->arg[0], &io->s.viol);
}

/* ---- calling with presence ------------------------------------------------- */
void gd_nv_error(struct gd_gpu_run *r, const char *field, const char *what, int rc, const char *status)
{
	struct gd_nvml_error *e = GD_PUSH(r->s, nvml_errors, struct gd_nvml_error);
	char desc[200];

	gd_u64_set(&e->gpu, r->idx);
	GD_STRSET(e->field, field);
	GD_STRSET(e->status, status);
	gd_u64_set(&e->code, (uint64_t)rc);
	gd_nvml_describe(r->nv, rc, desc, sizeof desc);
	snprintf(e->reason, sizeof e->reason, "%s: %s", what, desc);
	r->errors++;
}

/* Maps an NVML result to presence; true when the outputs are valid. */
bool gd_nv_check(struct gd_gpu_run *r, const char *field, const char *what, int rc)
{
	switch (rc) {
	case NVML_SUCCESS:
		return true;
	case GD_NVML_RC_STUCK:
	case NVML_ERROR_NOT_SUPPORTED:
	case NVML_ERROR_FUNCTION_NOT_FOUND:
		return false;
	case NVML_ERROR_GPU_IS_LOST:
		r->lost = true;
		gd_u64_set(&gd_nv_gpu(r)->lost, 1);
		return false;
	case NVML_ERROR_NO_PERMISSION:
		gd_nv_error(r, field, what, rc, "denied");
		return false;
	default:
		gd_nv_error(r, field, what, rc, "failed");
		return false;
	}
}

/* One call for field; false (and nothing to read) unless it succeeded. */
/*
 * Calls whose answer does not change while NVML stays initialised: asked
 * once per GPU and argument in a run of many cycles (watch, record, serve),
 * the answer kept by src/nvml/ (gd_nvml_cached).  Only answers that came
 * back are kept: a denied or failed call is asked again, and its nvml_errors
 * row comes again.  nvmlDeviceGetName is not among them: it is each cycle's
 * first call on the GPU, so a GPU lost since is seen before any kept answer
 * is used (a lost GPU shows what a cycle without the cache would show).
 */
static bool never_changes(const char *what)
{
	static const char *const fixed[] = {
		"nvmlDeviceGetUUID", "nvmlDeviceGetSerial", "nvmlDeviceGetPciInfo", "nvmlDeviceGetMinorNumber",
		"nvmlDeviceGetNumaNodeId", "nvmlDeviceGetTemperatureThreshold", "nvmlDeviceGetPowerManagementDefaultLimit",
		"nvmlDeviceGetMaxClockInfo", "nvmlDeviceGetMaxPcieLinkGeneration", "nvmlDeviceGetMaxPcieLinkWidth",
	};

	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		if (strcmp(fixed[i], what) == 0)
			return true;
	return false;
}

bool gd_nv_call(struct gd_gpu_run *r, const void *fnptr, const char *field, const char *what, gd_nvml_fn fn,
		struct gd_nvml_io *io)
{
	bool fixed;

	if (!fnptr || r->lost || gd_nvml_state(r->nv) == GD_NVML_STUCK)
		return false;
	fixed = never_changes(what);
	if (fixed && gd_nvml_cached(r->nv, (int)r->idx, what, io->arg[0], io))
		return true;
	io->dev = r->dev;
	if (!gd_nv_check(r, field, what, gd_nvml_call(r->nv, what, (int)r->idx, fn, io)))
		return false;
	if (fixed)
		gd_nvml_cache_put(r->nv, (int)r->idx, what, io->arg[0], io);
	return true;
}

struct gd_nvml_io gd_nv_args(unsigned int a0, unsigned int a1)
{
	struct gd_nvml_io io;

	memset(&io, 0, sizeof io);
	io.arg[0] = a0;
	io.arg[1] = a1;
	return io;
}

void gd_nv_set_u(struct gd_gpu_run *r, struct gd_u64 *dst, const void *fnptr, const char *field, const char *what,
		 gd_nvml_fn fn, struct gd_nvml_io io)
{
	if (gd_nv_call(r, fnptr, field, what, fn, &io))
		gd_u64_set(dst, io.u[0]);
}

/* ---- per GPU ------------------------------------------------------------- */
static void collect_identity(struct gd_gpu_run *r, const struct gd_nvml_api *a)
{
	struct gd_nvml_io io = IO0;
	struct gd_gpu *g = gd_nv_gpu(r);

	if (gd_nv_call(r, a->name, "name", "nvmlDeviceGetName", t_name, &io))
		GD_STRSET(g->name, io.str);
	io = IO0;
	if (gd_nv_call(r, a->uuid, "uuid", "nvmlDeviceGetUUID", t_uuid, &io))
		GD_STRSET(g->uuid, io.str);
	io = IO0;
	if (gd_nv_call(r, a->serial, "serial", "nvmlDeviceGetSerial", t_serial, &io))
		GD_STRSET(g->serial, io.str);
	io = IO0;
	if (gd_nv_call(r, a->pci, "pci_bus_id", "nvmlDeviceGetPciInfo", t_pci, &io)) {
		const nvmlPciInfo_t *p = &io.s.pci;

		/* sysfs spelling; NVML's busId has the function 0 too. */
		snprintf(g->pci_bus_id, sizeof g->pci_bus_id, p->domain > 0xffff ? "%08x:%02x:%02x.0" : "%04x:%02x:%02x.0",
			 p->domain, p->bus & 0xff, p->device & 0x1f);
	}
	gd_nv_set_u(r, &g->minor_number, a->minor, "minor_number", "nvmlDeviceGetMinorNumber", t_minor, IO0);
	gd_nv_set_u(r, &g->numa_node, a->numa, "numa_node", "nvmlDeviceGetNumaNodeId", t_numa, IO0);
	gd_nv_set_u(r, &g->persistence_mode, a->persistence, "persistence_mode", "nvmlDeviceGetPersistenceMode",
		    t_persistence, IO0);
	gd_nv_set_u(r, &g->compute_mode, a->compute_mode, "compute_mode", "nvmlDeviceGetComputeMode",
		    t_compute_mode, IO0);
	gd_nv_set_u(r, &g->mig_mode, a->mig_mode, "mig_mode", "nvmlDeviceGetMigMode", t_mig_mode, IO0);
}

static void collect_thermal_power(struct gd_gpu_run *r, const struct gd_nvml_api *a)
{
	struct gd_nvml_io io = IO0;
	struct gd_gpu *g = gd_nv_gpu(r);
	bool have_temp = false;
	uint64_t v;

	/* TemperatureV when the driver has it and accepts our struct version;
	 * the older call otherwise. */
	if (a->temp_v && !r->lost && gd_nvml_state(r->nv) != GD_NVML_STUCK) {
		int rc;

		io.dev = r->dev;
		rc = gd_nvml_call(r->nv, "nvmlDeviceGetTemperatureV", (int)r->idx, t_temp_v, &io);
		if (rc == NVML_SUCCESS) {
			gd_f64_set(&g->temp_c, io.s.temp.temperature);
			have_temp = true;
		} else if (rc != NVML_ERROR_ARGUMENT_VERSION_MISMATCH || !a->temp) {
			gd_nv_check(r, "temp_c", "nvmlDeviceGetTemperatureV", rc);
			have_temp = true; /* answered: do not ask twice */
		}
	}
	io = gd_nv_args(NVML_TEMPERATURE_GPU, 0);
	if (!have_temp && gd_nv_call(r, a->temp, "temp_c", "nvmlDeviceGetTemperature", t_temp, &io))
		gd_f64_set(&g->temp_c, io.u[0]);
	io = gd_nv_args(NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, 0);
	if (gd_nv_call(r, a->temp_threshold, "temp_slowdown_c", "nvmlDeviceGetTemperatureThreshold",
		       t_temp_threshold, &io))
		gd_f64_set(&g->temp_slowdown_c, io.u[0]);
	io = gd_nv_args(NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, 0);
	if (gd_nv_call(r, a->temp_threshold, "temp_shutdown_c", "nvmlDeviceGetTemperatureThreshold",
		       t_temp_threshold, &io))
		gd_f64_set(&g->temp_shutdown_c, io.u[0]);
	gd_nv_set_u(r, &g->fan_pct, a->fan, "fan_pct", "nvmlDeviceGetFanSpeed", t_fan, IO0);
	io = IO0;
	if (gd_nv_call(r, a->power, "power_w", "nvmlDeviceGetPowerUsage", t_power, &io))
		gd_f64_set(&g->power_w, io.u[0] / 1000.0);
	io = IO0;
	if (gd_nv_call(r, a->power_limit, "power_limit_w", "nvmlDeviceGetEnforcedPowerLimit", t_power_limit, &io))
		gd_f64_set(&g->power_limit_w, io.u[0] / 1000.0);
	io = IO0;
	if (gd_nv_call(r, a->power_default_limit, "power_default_limit_w",
		       "nvmlDeviceGetPowerManagementDefaultLimit", t_power_default_limit, &io))
		gd_f64_set(&g->power_default_limit_w, io.u[0] / 1000.0);
	io = IO0;
	if (gd_nv_field(r, NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION, &v))
		gd_u64_set(&g->energy_mj, v);
	else if (gd_nv_call(r, a->energy, "energy_mj", "nvmlDeviceGetTotalEnergyConsumption", t_energy, &io))
		gd_u64_set(&g->energy_mj, io.ull);
}

static void collect_util_memory(struct gd_gpu_run *r, const struct gd_nvml_api *a)
{
	struct gd_nvml_io io = IO0;
	struct gd_gpu *g = gd_nv_gpu(r);
	bool done = false;

	if (gd_nv_call(r, a->util, "util_gpu_pct", "nvmlDeviceGetUtilizationRates", t_util, &io)) {
		gd_u64_set(&g->util_gpu_pct, io.s.util.gpu);
		gd_u64_set(&g->util_mem_pct, io.s.util.memory);
	}
	if (a->mem_v2 && !r->lost && gd_nvml_state(r->nv) != GD_NVML_STUCK) {
		int rc;

		io = IO0;
		io.dev = r->dev;
		rc = gd_nvml_call(r->nv, "nvmlDeviceGetMemoryInfo_v2", (int)r->idx, t_mem_v2, &io);
		if (rc == NVML_SUCCESS) {
			gd_u64_set(&g->mem_used_bytes, io.s.mem_v2.used);
			gd_u64_set(&g->mem_total_bytes, io.s.mem_v2.total);
			done = true;
		} else if (rc != NVML_ERROR_ARGUMENT_VERSION_MISMATCH || !a->mem_v1) {
			gd_nv_check(r, "mem_used_bytes", "nvmlDeviceGetMemoryInfo_v2", rc);
			done = true;
		}
	}
	io = IO0;
	if (!done && gd_nv_call(r, a->mem_v1, "mem_used_bytes", "nvmlDeviceGetMemoryInfo", t_mem_v1, &io)) {
		gd_u64_set(&g->mem_used_bytes, io.s.mem_v1.used);
		gd_u64_set(&g->mem_total_bytes, io.s.mem_v1.total);
	}
}

static void collect_clocks(struct gd_gpu_run *r, const struct gd_nvml_api *a)
{
	static const struct {
		size_t off;
		const char *field;
		nvmlPerfPolicyType_t policy;
		unsigned int fid;
	} viol[] = {
		{ offsetof(struct gd_gpu, violation_power_ns), "violation_power_ns", NVML_PERF_POLICY_POWER,
		  NVML_FI_DEV_PERF_POLICY_POWER },
		{ offsetof(struct gd_gpu, violation_thermal_ns), "violation_thermal_ns", NVML_PERF_POLICY_THERMAL,
		  NVML_FI_DEV_PERF_POLICY_THERMAL },
		{ offsetof(struct gd_gpu, violation_sync_boost_ns), "violation_sync_boost_ns", NVML_PERF_POLICY_SYNC_BOOST,
		  NVML_FI_DEV_PERF_POLICY_SYNC_BOOST },
		{ offsetof(struct gd_gpu, violation_board_limit_ns), "violation_board_limit_ns",
		  NVML_PERF_POLICY_BOARD_LIMIT, NVML_FI_DEV_PERF_POLICY_BOARD_LIMIT },
		{ offsetof(struct gd_gpu, violation_reliability_ns), "violation_reliability_ns",
		  NVML_PERF_POLICY_RELIABILITY, NVML_FI_DEV_PERF_POLICY_RELIABILITY },
	};
	struct gd_nvml_io io;
	struct gd_gpu *g = gd_nv_gpu(r);

	gd_nv_set_u(r, &g->sm_clock_mhz, a->clock, "sm_clock_mhz", "nvmlDeviceGetClockInfo", t_clock,
		    gd_nv_args(NVML_CLOCK_SM, 0));
	gd_nv_set_u(r, &g->mem_clock_mhz, a->clock, "mem_clock_mhz", "nvmlDeviceGetClockInfo", t_clock,
		    gd_nv_args(NVML_CLOCK_MEM, 0));
	gd_nv_set_u(r, &g->sm_clock_max_mhz, a->max_clock, "sm_clock_max_mhz", "nvmlDeviceGetMaxClockInfo",
		    t_max_clock, gd_nv_args(NVML_CLOCK_SM, 0));
	gd_nv_set_u(r, &g->mem_clock_max_mhz, a->max_clock, "mem_clock_max_mhz", "nvmlDeviceGetMaxClockInfo",
		    t_max_clock, gd_nv_args(NVML_CLOCK_MEM, 0));
	gd_nv_set_u(r, &g->app_sm_clock_mhz, a->app_clock, "app_sm_clock_mhz", "nvmlDeviceGetApplicationsClock",
		    t_app_clock, gd_nv_args(NVML_CLOCK_SM, 0));
	gd_nv_set_u(r, &g->pstate, a->pstate, "pstate", "nvmlDeviceGetPerformanceState", t_pstate, IO0);
	io = IO0;
	if (gd_nv_call(r, a->clock_reasons, "clock_event_reasons", "nvmlDeviceGetCurrentClocksEventReasons",
		       t_clock_reasons, &io))
		gd_u64_set(&g->clock_event_reasons, io.ull);
	for (size_t i = 0; i < sizeof viol / sizeof viol[0]; i++) {
		struct gd_u64 *dst = (struct gd_u64 *)(void *)((char *)g + viol[i].off);
		uint64_t v;

		io = gd_nv_args(viol[i].policy, 0);
		if (gd_nv_field(r, viol[i].fid, &v))
			gd_u64_set(dst, v);
		else if (gd_nv_call(r, a->violation, viol[i].field, "nvmlDeviceGetViolationStatus", t_violation, &io))
			gd_u64_set(dst, io.s.viol.violationTime);
	}
}

static void collect_pcie(struct gd_gpu_run *r, const struct gd_nvml_api *a)
{
	struct gd_gpu *g = gd_nv_gpu(r);
	uint64_t v;

	gd_nv_set_u(r, &g->pcie_gen, a->pcie_gen, "pcie_gen", "nvmlDeviceGetCurrPcieLinkGeneration", t_pcie_gen,
		    IO0);
	gd_nv_set_u(r, &g->pcie_gen_max, a->pcie_gen_max, "pcie_gen_max", "nvmlDeviceGetMaxPcieLinkGeneration",
		    t_pcie_gen_max, IO0);
	gd_nv_set_u(r, &g->pcie_width, a->pcie_width, "pcie_width", "nvmlDeviceGetCurrPcieLinkWidth", t_pcie_width,
		    IO0);
	gd_nv_set_u(r, &g->pcie_width_max, a->pcie_width_max, "pcie_width_max", "nvmlDeviceGetMaxPcieLinkWidth",
		    t_pcie_width_max, IO0);
	gd_nv_set_u(r, &g->pcie_tx_kbps, a->pcie_throughput, "pcie_tx_kbps", "nvmlDeviceGetPcieThroughput",
		    t_pcie_throughput, gd_nv_args(NVML_PCIE_UTIL_TX_BYTES, 0));
	gd_nv_set_u(r, &g->pcie_rx_kbps, a->pcie_throughput, "pcie_rx_kbps", "nvmlDeviceGetPcieThroughput",
		    t_pcie_throughput, gd_nv_args(NVML_PCIE_UTIL_RX_BYTES, 0));
	if (gd_nv_field(r, NVML_FI_DEV_PCIE_REPLAY_COUNTER, &v))
		gd_u64_set(&g->pcie_replays, v);
	else
		gd_nv_set_u(r, &g->pcie_replays, a->pcie_replay, "pcie_replays", "nvmlDeviceGetPcieReplayCounter",
			    t_pcie_replay, IO0);
}

static void collect_gpu(struct gd_nvml *nv, struct gd_snapshot *s, unsigned int idx, size_t *errors)
{
	const struct gd_nvml_api *a = gd_nvml_api(nv);
	struct gd_gpu_run r = { .nv = nv, .s = s, .gi = s->gpus.n, .idx = idx };
	struct gd_gpu *g = GD_PUSH(s, gpus, struct gd_gpu);
	struct gd_nvml_io io = gd_nv_args(idx, 0);
	int rc;

	gd_u64_set(&g->index, idx);
	rc = gd_nvml_call(nv, "nvmlDeviceGetHandleByIndex", (int)idx, t_handle, &io);
	if (rc == GD_NVML_RC_STUCK) {
		s->gpus.n--; /* nothing known: not listed */
		return;
	}
	gd_u64_set(&g->lost, 0);
	if (!gd_nv_check(&r, "index", "nvmlDeviceGetHandleByIndex", rc)) {
		*errors += r.errors;
		return;
	}
	r.dev = io.dev;
	collect_identity(&r, a);
	/* after the name, each cycle's first call: a GPU lost since is seen
	 * there, as without the batch */
	gd_nv_fields_read(&r, a);
	collect_thermal_power(&r, a);
	collect_util_memory(&r, a);
	collect_clocks(&r, a);
	collect_pcie(&r, a);
	gd_gpu_collect_memory_health(&r, a);
	gd_gpu_collect_nvlink(&r, a);
	gd_gpu_collect_fabric(&r, a);
	gd_nv_fields_release(&r);
	gd_gpu_collect_processes(&r, a);
	gd_gpu_collect_samples(&r, a);
	*errors += r.errors;
}

static void collect_system(struct gd_nvml *nv, struct gd_snapshot *s)
{
	const struct gd_nvml_api *a = gd_nvml_api(nv);
	struct gd_nvml_io io = IO0;

	if (a->driver_version && gd_nvml_call(nv, "nvmlSystemGetDriverVersion", -1, t_driver_version, &io) == 0)
		GD_STRSET(s->nvml.driver_version, io.str);
	io = IO0;
	if (a->nvml_version && gd_nvml_call(nv, "nvmlSystemGetNVMLVersion", -1, t_nvml_version, &io) == 0)
		GD_STRSET(s->nvml.nvml_version, io.str);
	io = IO0;
	if (a->cuda_version && gd_nvml_call(nv, "nvmlSystemGetCudaDriverVersion", -1, t_cuda_version, &io) == 0 &&
	    io.i > 0)
		gd_u64_set(&s->nvml.cuda_driver_version, (uint64_t)io.i);
}

static enum gd_src_status collect_with(struct gd_nvml *nv, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_nvml_io io = IO0;
	size_t errors = 0;
	int rc;

	GD_STRSET(s->nvml.library, gd_nvml_library(nv));
	gd_f64_set(&s->nvml.timeout_s, gd_nvml_timeout(nv));
	GD_STRSET(s->nvml.missing, gd_nvml_missing(nv));
	if (gd_nvml_init_rc(nv) > 0)
		GD_STRSET(s->nvml.init_error, gd_nvml_error_name(gd_nvml_init_rc(nv)));
	if (gd_nvml_state(nv) == GD_NVML_OK) {
		collect_system(nv, s);
		rc = gd_nvml_call(nv, "nvmlDeviceGetCount", -1, t_count, &io);
		if (rc == NVML_SUCCESS) {
			gd_u64_set(&s->nvml.device_count, io.u[0]);
			for (unsigned int i = 0; i < io.u[0] && gd_nvml_state(nv) == GD_NVML_OK; i++)
				collect_gpu(nv, s, i, &errors);
		} else if (rc != GD_NVML_RC_STUCK) {
			char desc[200];

			gd_nvml_describe(nv, rc, desc, sizeof desc);
			GD_STRSET(s->nvml.status, "failed");
			snprintf(s->nvml.reason, sizeof s->nvml.reason, "nvmlDeviceGetCount: %s", desc);
			gd_err_set(err, -EIO, "%s", s->nvml.reason);
			return GD_SRC_FAILED;
		}
	}
	GD_STRSET(s->nvml.status, gd_nvml_state_name(gd_nvml_state(nv)));
	GD_STRSET(s->nvml.reason, gd_nvml_reason(nv));
	GD_STRSET(s->nvml.stuck_call, gd_nvml_stuck_call(nv));
	switch (gd_nvml_state(nv)) {
	case GD_NVML_OK:
		if (!errors)
			return GD_SRC_OK;
		gd_err_set(err, -EIO, _("%zu GPU fields denied or failed (see nvml_errors)"), errors);
		return GD_SRC_PARTIAL;
	case GD_NVML_ABSENT:
		gd_err_set(err, -ENOENT, "%s", gd_nvml_reason(nv));
		return GD_SRC_ABSENT;
	case GD_NVML_DENIED:
		gd_err_set(err, -EACCES, "%s", gd_nvml_reason(nv));
		return GD_SRC_DENIED;
	case GD_NVML_STUCK:
		/* Partial when GPUs were listed before the call that hung. */
		gd_err_set(err, -ETIMEDOUT, "%s", gd_nvml_reason(nv));
		return s->gpus.n ? GD_SRC_PARTIAL : GD_SRC_FAILED;
	default:
		gd_err_set(err, -EIO, "%s", gd_nvml_reason(nv));
		return GD_SRC_FAILED;
	}
}

enum gd_src_status gd_collect_nvml(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_nvml *own = NULL;
	enum gd_src_status st;

	if (!ctx->nvml)
		own = gd_nvml_open(ctx->nvml_path, ctx->nvml_timeout_s);
	st = collect_with(ctx->nvml ? ctx->nvml : own, s, err);
	gd_nvml_close(own);
	return st;
}
