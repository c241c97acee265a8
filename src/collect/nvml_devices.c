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
 * in nvml.missing.
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
 * the run goes on.
 */
#include "collect/collectors.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "nvml/nvml.h"

#define LIST_TRIES 4
#define LIST_FIRST 16

struct gpu_run {
	struct gd_nvml *nv;
	struct gd_snapshot *s;
	size_t gi;          /* index of the record in s->gpus */
	unsigned int idx;   /* NVML index */
	nvmlDevice_t dev;
	bool lost;
	size_t errors;      /* rows added to nvml_errors */
};

static struct gd_gpu *gpu_of(struct gpu_run *r)
{
	return GD_VEC_AT(r->s->gpus, struct gd_gpu, r->gi);
}

/* ---- thunks: run on the NVML thread, see nvml.h --------------------------- */
#define THUNK_U(fname, member) \
	static nvmlReturn_t fname(const struct gd_nvml_api *a, struct gd_nvml_io *io) \
	{ \
		return a->member(io->dev, &io->u[0]); \
	}
#define THUNK_ARG_U(fname, member, argtype) \
	static nvmlReturn_t fname(const struct gd_nvml_api *a, struct gd_nvml_io *io) \
	{ \
		return a->member(io->dev, (argtype)io->arg[0], &io->u[0]); \
	}
#define THUNK_STR(fname, member, len) \
	static nvmlReturn_t fname(const struct gd_nvml_api *a, struct gd_nvml_io *io) \
	{ \
		_Static_assert((len) <= sizeof io->str, "buffer"); \
		return a->member(io->dev, io->str, (len)); \
	}
#define THUNK_ENUM(fname, member, etype) \
	static nvmlReturn_t fname(const struct gd_nvml_api *a, struct gd_nvml_io *io) \
	{ \
		etype v = 0; \
		nvmlReturn_t rc = a->member(io->dev, &v); \
		io->u[0] = (unsigned int)v; \
		return rc; \
	}

THUNK_STR(t_name, name, NVML_DEVICE_NAME_V2_BUFFER_SIZE)
THUNK_STR(t_uuid, uuid, NVML_DEVICE_UUID_V2_BUFFER_SIZE)
THUNK_STR(t_serial, serial, NVML_DEVICE_SERIAL_BUFFER_SIZE)
THUNK_U(t_minor, minor)
THUNK_U(t_numa, numa)
THUNK_ENUM(t_persistence, persistence, nvmlEnableState_t)
THUNK_ENUM(t_compute_mode, compute_mode, nvmlComputeMode_t)
THUNK_ENUM(t_pstate, pstate, nvmlPstates_t)
THUNK_ENUM(t_retired_pending, retired_pending, nvmlEnableState_t)
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

static nvmlReturn_t t_ecc_mode(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	nvmlEnableState_t cur = 0, pending = 0;
	nvmlReturn_t rc = a->ecc_mode(io->dev, &cur, &pending);

	io->u[0] = (unsigned int)cur;
	io->u[1] = (unsigned int)pending;
	return rc;
}

static nvmlReturn_t t_ecc_total(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->ecc_total(io->dev, (nvmlMemoryErrorType_t)io->arg[0], (nvmlEccCounterType_t)io->arg[1], &io->ull);
}

/* Asks only for the count: INSUFFICIENT_SIZE carries it. */
static nvmlReturn_t t_retired_pages(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	unsigned int n = 0;
	nvmlReturn_t rc = a->retired_pages(io->dev, (nvmlPageRetirementCause_t)io->arg[0], &n, NULL);

	io->u[0] = n;
	return rc == NVML_ERROR_INSUFFICIENT_SIZE ? NVML_SUCCESS : rc;
}

static nvmlReturn_t t_remapped_rows(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->remapped_rows(io->dev, &io->u[0], &io->u[1], &io->u[2], &io->u[3]);
}

static nvmlReturn_t t_field_value(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	memset(&io->s.field, 0, sizeof io->s.field);
	io->s.field.fieldId = io->arg[0];
	return a->field_values(io->dev, 1, &io->s.field);
}

static nvmlReturn_t t_nvlink_state(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	nvmlEnableState_t st = 0;
	nvmlReturn_t rc = a->nvlink_state(io->dev, io->arg[0], &st);

	io->u[0] = (unsigned int)st;
	return rc;
}

static nvmlReturn_t t_nvlink_errors(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->nvlink_errors(io->dev, io->arg[0], (nvmlNvLinkErrorCounter_t)io->arg[1], &io->ull);
}

static nvmlReturn_t t_procs(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->procs(io->dev, &io->count, io->buf);
}

static nvmlReturn_t t_procs_v1(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->procs_v1(io->dev, &io->count, io->buf);
}

static nvmlReturn_t t_proc_util(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->proc_util(io->dev, io->buf, &io->count, 0);
}

/* ---- calling with presence ------------------------------------------------- */
static void add_error(struct gpu_run *r, const char *field, const char *what, int rc, const char *status)
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
static bool check(struct gpu_run *r, const char *field, const char *what, int rc)
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
		gd_u64_set(&gpu_of(r)->lost, 1);
		return false;
	case NVML_ERROR_NO_PERMISSION:
		add_error(r, field, what, rc, "denied");
		return false;
	default:
		add_error(r, field, what, rc, "failed");
		return false;
	}
}

/* One call for field; false (and nothing to read) unless it succeeded. */
static bool call(struct gpu_run *r, const void *fnptr, const char *field, const char *what, gd_nvml_fn fn,
		 struct gd_nvml_io *io)
{
	if (!fnptr || r->lost || gd_nvml_state(r->nv) == GD_NVML_STUCK)
		return false;
	io->dev = r->dev;
	return check(r, field, what, gd_nvml_call(r->nv, what, (int)r->idx, fn, io));
}

static struct gd_nvml_io io_arg(unsigned int a0, unsigned int a1)
{
	struct gd_nvml_io io;

	memset(&io, 0, sizeof io);
	io.arg[0] = a0;
	io.arg[1] = a1;
	return io;
}

#define IO0 io_arg(0, 0)

static void set_u(struct gpu_run *r, struct gd_u64 *dst, const void *fnptr, const char *field, const char *what,
		  gd_nvml_fn fn, struct gd_nvml_io io)
{
	if (call(r, fnptr, field, what, fn, &io))
		gd_u64_set(dst, io.u[0]);
}

/* ---- per GPU ------------------------------------------------------------- */
static void collect_identity(struct gpu_run *r, const struct gd_nvml_api *a)
{
	struct gd_nvml_io io = IO0;
	struct gd_gpu *g = gpu_of(r);

	if (call(r, a->name, "name", "nvmlDeviceGetName", t_name, &io))
		GD_STRSET(g->name, io.str);
	io = IO0;
	if (call(r, a->uuid, "uuid", "nvmlDeviceGetUUID", t_uuid, &io))
		GD_STRSET(g->uuid, io.str);
	io = IO0;
	if (call(r, a->serial, "serial", "nvmlDeviceGetSerial", t_serial, &io))
		GD_STRSET(g->serial, io.str);
	io = IO0;
	if (call(r, a->pci, "pci_bus_id", "nvmlDeviceGetPciInfo", t_pci, &io)) {
		const nvmlPciInfo_t *p = &io.s.pci;

		/* sysfs spelling; NVML's busId has the function 0 too. */
		snprintf(g->pci_bus_id, sizeof g->pci_bus_id, p->domain > 0xffff ? "%08x:%02x:%02x.0" : "%04x:%02x:%02x.0",
			 p->domain, p->bus & 0xff, p->device & 0x1f);
	}
	set_u(r, &g->minor_number, a->minor, "minor_number", "nvmlDeviceGetMinorNumber", t_minor, IO0);
	set_u(r, &g->numa_node, a->numa, "numa_node", "nvmlDeviceGetNumaNodeId", t_numa, IO0);
	set_u(r, &g->persistence_mode, a->persistence, "persistence_mode", "nvmlDeviceGetPersistenceMode",
	      t_persistence, IO0);
	set_u(r, &g->compute_mode, a->compute_mode, "compute_mode", "nvmlDeviceGetComputeMode", t_compute_mode, IO0);
	set_u(r, &g->mig_mode, a->mig_mode, "mig_mode", "nvmlDeviceGetMigMode", t_mig_mode, IO0);
}

static void collect_thermal_power(struct gpu_run *r, const struct gd_nvml_api *a)
{
	struct gd_nvml_io io = IO0;
	struct gd_gpu *g = gpu_of(r);
	bool have_temp = false;

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
			check(r, "temp_c", "nvmlDeviceGetTemperatureV", rc);
			have_temp = true; /* answered: do not ask twice */
		}
	}
	io = io_arg(NVML_TEMPERATURE_GPU, 0);
	if (!have_temp && call(r, a->temp, "temp_c", "nvmlDeviceGetTemperature", t_temp, &io))
		gd_f64_set(&g->temp_c, io.u[0]);
	io = io_arg(NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, 0);
	if (call(r, a->temp_threshold, "temp_slowdown_c", "nvmlDeviceGetTemperatureThreshold", t_temp_threshold, &io))
		gd_f64_set(&g->temp_slowdown_c, io.u[0]);
	io = io_arg(NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, 0);
	if (call(r, a->temp_threshold, "temp_shutdown_c", "nvmlDeviceGetTemperatureThreshold", t_temp_threshold, &io))
		gd_f64_set(&g->temp_shutdown_c, io.u[0]);
	set_u(r, &g->fan_pct, a->fan, "fan_pct", "nvmlDeviceGetFanSpeed", t_fan, IO0);
	io = IO0;
	if (call(r, a->power, "power_w", "nvmlDeviceGetPowerUsage", t_power, &io))
		gd_f64_set(&g->power_w, io.u[0] / 1000.0);
	io = IO0;
	if (call(r, a->power_limit, "power_limit_w", "nvmlDeviceGetEnforcedPowerLimit", t_power_limit, &io))
		gd_f64_set(&g->power_limit_w, io.u[0] / 1000.0);
	io = IO0;
	if (call(r, a->power_default_limit, "power_default_limit_w", "nvmlDeviceGetPowerManagementDefaultLimit",
		 t_power_default_limit, &io))
		gd_f64_set(&g->power_default_limit_w, io.u[0] / 1000.0);
	io = IO0;
	if (call(r, a->energy, "energy_mj", "nvmlDeviceGetTotalEnergyConsumption", t_energy, &io))
		gd_u64_set(&g->energy_mj, io.ull);
}

static void collect_util_memory(struct gpu_run *r, const struct gd_nvml_api *a)
{
	struct gd_nvml_io io = IO0;
	struct gd_gpu *g = gpu_of(r);
	bool done = false;

	if (call(r, a->util, "util_gpu_pct", "nvmlDeviceGetUtilizationRates", t_util, &io)) {
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
			check(r, "mem_used_bytes", "nvmlDeviceGetMemoryInfo_v2", rc);
			done = true;
		}
	}
	io = IO0;
	if (!done && call(r, a->mem_v1, "mem_used_bytes", "nvmlDeviceGetMemoryInfo", t_mem_v1, &io)) {
		gd_u64_set(&g->mem_used_bytes, io.s.mem_v1.used);
		gd_u64_set(&g->mem_total_bytes, io.s.mem_v1.total);
	}
}

static void collect_clocks(struct gpu_run *r, const struct gd_nvml_api *a)
{
	static const struct {
		size_t off;
		const char *field;
		nvmlPerfPolicyType_t policy;
	} viol[] = {
		{ offsetof(struct gd_gpu, violation_power_ns), "violation_power_ns", NVML_PERF_POLICY_POWER },
		{ offsetof(struct gd_gpu, violation_thermal_ns), "violation_thermal_ns", NVML_PERF_POLICY_THERMAL },
		{ offsetof(struct gd_gpu, violation_sync_boost_ns), "violation_sync_boost_ns", NVML_PERF_POLICY_SYNC_BOOST },
		{ offsetof(struct gd_gpu, violation_board_limit_ns), "violation_board_limit_ns",
		  NVML_PERF_POLICY_BOARD_LIMIT },
		{ offsetof(struct gd_gpu, violation_reliability_ns), "violation_reliability_ns",
		  NVML_PERF_POLICY_RELIABILITY },
	};
	struct gd_nvml_io io;
	struct gd_gpu *g = gpu_of(r);

	set_u(r, &g->sm_clock_mhz, a->clock, "sm_clock_mhz", "nvmlDeviceGetClockInfo", t_clock, io_arg(NVML_CLOCK_SM, 0));
	set_u(r, &g->mem_clock_mhz, a->clock, "mem_clock_mhz", "nvmlDeviceGetClockInfo", t_clock,
	      io_arg(NVML_CLOCK_MEM, 0));
	set_u(r, &g->sm_clock_max_mhz, a->max_clock, "sm_clock_max_mhz", "nvmlDeviceGetMaxClockInfo", t_max_clock,
	      io_arg(NVML_CLOCK_SM, 0));
	set_u(r, &g->mem_clock_max_mhz, a->max_clock, "mem_clock_max_mhz", "nvmlDeviceGetMaxClockInfo", t_max_clock,
	      io_arg(NVML_CLOCK_MEM, 0));
	set_u(r, &g->app_sm_clock_mhz, a->app_clock, "app_sm_clock_mhz", "nvmlDeviceGetApplicationsClock", t_app_clock,
	      io_arg(NVML_CLOCK_SM, 0));
	set_u(r, &g->pstate, a->pstate, "pstate", "nvmlDeviceGetPerformanceState", t_pstate, IO0);
	io = IO0;
	if (call(r, a->clock_reasons, "clock_event_reasons", "nvmlDeviceGetCurrentClocksEventReasons", t_clock_reasons,
		 &io))
		gd_u64_set(&g->clock_event_reasons, io.ull);
	for (size_t i = 0; i < sizeof viol / sizeof viol[0]; i++) {
		io = io_arg(viol[i].policy, 0);
		if (call(r, a->violation, viol[i].field, "nvmlDeviceGetViolationStatus", t_violation, &io))
			gd_u64_set((struct gd_u64 *)(void *)((char *)g + viol[i].off), io.s.viol.violationTime);
	}
}

static void collect_pcie(struct gpu_run *r, const struct gd_nvml_api *a)
{
	struct gd_gpu *g = gpu_of(r);

	set_u(r, &g->pcie_gen, a->pcie_gen, "pcie_gen", "nvmlDeviceGetCurrPcieLinkGeneration", t_pcie_gen, IO0);
	set_u(r, &g->pcie_gen_max, a->pcie_gen_max, "pcie_gen_max", "nvmlDeviceGetMaxPcieLinkGeneration",
	      t_pcie_gen_max, IO0);
	set_u(r, &g->pcie_width, a->pcie_width, "pcie_width", "nvmlDeviceGetCurrPcieLinkWidth", t_pcie_width, IO0);
	set_u(r, &g->pcie_width_max, a->pcie_width_max, "pcie_width_max", "nvmlDeviceGetMaxPcieLinkWidth",
	      t_pcie_width_max, IO0);
	set_u(r, &g->pcie_tx_kbps, a->pcie_throughput, "pcie_tx_kbps", "nvmlDeviceGetPcieThroughput", t_pcie_throughput,
	      io_arg(NVML_PCIE_UTIL_TX_BYTES, 0));
	set_u(r, &g->pcie_rx_kbps, a->pcie_throughput, "pcie_rx_kbps", "nvmlDeviceGetPcieThroughput", t_pcie_throughput,
	      io_arg(NVML_PCIE_UTIL_RX_BYTES, 0));
	set_u(r, &g->pcie_replays, a->pcie_replay, "pcie_replays", "nvmlDeviceGetPcieReplayCounter", t_pcie_replay, IO0);
}

static void collect_memory_health(struct gpu_run *r, const struct gd_nvml_api *a)
{
	static const struct {
		size_t off;
		const char *field;
		nvmlMemoryErrorType_t type;
		nvmlEccCounterType_t counter;
	} ecc[] = {
		{ offsetof(struct gd_gpu, ecc_corrected_volatile), "ecc_corrected_volatile",
		  NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC },
		{ offsetof(struct gd_gpu, ecc_uncorrected_volatile), "ecc_uncorrected_volatile",
		  NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC },
		{ offsetof(struct gd_gpu, ecc_corrected_aggregate), "ecc_corrected_aggregate",
		  NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC },
		{ offsetof(struct gd_gpu, ecc_uncorrected_aggregate), "ecc_uncorrected_aggregate",
		  NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC },
	};
	struct gd_nvml_io io = IO0;
	struct gd_gpu *g = gpu_of(r);

	set_u(r, &g->ecc_mode, a->ecc_mode, "ecc_mode", "nvmlDeviceGetEccMode", t_ecc_mode, IO0);
	for (size_t i = 0; i < sizeof ecc / sizeof ecc[0]; i++) {
		io = io_arg(ecc[i].type, ecc[i].counter);
		if (call(r, a->ecc_total, ecc[i].field, "nvmlDeviceGetTotalEccErrors", t_ecc_total, &io))
			gd_u64_set((struct gd_u64 *)(void *)((char *)g + ecc[i].off), io.ull);
	}
	set_u(r, &g->retired_pages_sbe, a->retired_pages, "retired_pages_sbe", "nvmlDeviceGetRetiredPages",
	      t_retired_pages, io_arg(NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, 0));
	set_u(r, &g->retired_pages_dbe, a->retired_pages, "retired_pages_dbe", "nvmlDeviceGetRetiredPages",
	      t_retired_pages, io_arg(NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, 0));
	set_u(r, &g->retired_pages_pending, a->retired_pending, "retired_pages_pending",
	      "nvmlDeviceGetRetiredPagesPendingStatus", t_retired_pending, IO0);
	io = IO0;
	if (call(r, a->remapped_rows, "remap_corrected", "nvmlDeviceGetRemappedRows", t_remapped_rows, &io)) {
		gd_u64_set(&g->remap_corrected, io.u[0]);
		gd_u64_set(&g->remap_uncorrected, io.u[1]);
		gd_u64_set(&g->remap_pending, io.u[2] != 0);
		gd_u64_set(&g->remap_failure, io.u[3] != 0);
	}
	io = io_arg(NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, 0);
	/* A driver older than the field answers INVALID_ARGUMENT or
	 * NOT_SUPPORTED for it: absent. */
	if (call(r, a->field_values, "recovery_action", "nvmlDeviceGetFieldValues(230)", t_field_value, &io) &&
	    io.s.field.nvmlReturn != NVML_ERROR_INVALID_ARGUMENT &&
	    check(r, "recovery_action", "nvmlDeviceGetFieldValues(230)", io.s.field.nvmlReturn)) {
		const nvmlFieldValue_t *f = &io.s.field;

		if (f->valueType == NVML_VALUE_TYPE_UNSIGNED_INT)
			gd_u64_set(&g->recovery_action, f->value.uiVal);
		else if (f->valueType == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG)
			gd_u64_set(&g->recovery_action, f->value.ullVal);
		else if (f->valueType == NVML_VALUE_TYPE_SIGNED_INT && f->value.siVal >= 0)
			gd_u64_set(&g->recovery_action, (uint64_t)f->value.siVal);
	}
}

static void collect_nvlink(struct gpu_run *r, const struct gd_nvml_api *a)
{
	struct gd_gpu *g = gpu_of(r);
	uint64_t links = 0, up = 0, errors = 0;
	bool any_errors = false;

	for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS && a->nvlink_state; link++) {
		struct gd_nvml_io io = io_arg(link, 0);
		int rc;

		if (r->lost || gd_nvml_state(r->nv) == GD_NVML_STUCK)
			return;
		io.dev = r->dev;
		rc = gd_nvml_call(r->nv, "nvmlDeviceGetNvLinkState", (int)r->idx, t_nvlink_state, &io);
		/* Links past the last answer INVALID_ARGUMENT or NOT_SUPPORTED. */
		if (rc == NVML_ERROR_INVALID_ARGUMENT || rc == NVML_ERROR_NOT_SUPPORTED) {
			if (link == 0)
				return;
			continue;
		}
		if (!check(r, "nvlink_up_links", "nvmlDeviceGetNvLinkState", rc))
			return;
		links++;
		if (io.u[0] != NVML_FEATURE_ENABLED)
			continue;
		up++;
		for (unsigned int c = 0; c < NVML_NVLINK_ERROR_COUNT && a->nvlink_errors; c++) {
			io = io_arg(link, c);
			io.dev = r->dev;
			rc = gd_nvml_call(r->nv, "nvmlDeviceGetNvLinkErrorCounter", (int)r->idx, t_nvlink_errors, &io);
			if (rc == NVML_SUCCESS) {
				errors += io.ull;
				any_errors = true;
			} else if (rc != NVML_ERROR_NOT_SUPPORTED && rc != NVML_ERROR_INVALID_ARGUMENT &&
				   !check(r, "nvlink_errors", "nvmlDeviceGetNvLinkErrorCounter", rc)) {
				return;
			}
		}
	}
	if (links) {
		gd_u64_set(&g->nvlink_links, links);
		gd_u64_set(&g->nvlink_up_links, up);
	}
	if (any_errors)
		gd_u64_set(&g->nvlink_errors, errors);
}

/* A list call with INSUFFICIENT_SIZE retries: fills io->buf (owned by the
 * caller afterwards) and io->count.  The first try uses first elements
 * (0: a sizing call with no buffer). */
static bool list_call(struct gpu_run *r, const void *fnptr, const char *field, const char *what, gd_nvml_fn fn,
		      size_t elem, unsigned int first, struct gd_nvml_io *io)
{
	unsigned int cap = first;
	int rc = NVML_ERROR_INSUFFICIENT_SIZE;

	*io = IO0;
	if (!fnptr)
		return false;
	for (int tries = 0; tries < LIST_TRIES && rc == NVML_ERROR_INSUFFICIENT_SIZE; tries++) {
		if (r->lost || gd_nvml_state(r->nv) == GD_NVML_STUCK)
			return false;
		free(io->buf);
		io->buf = cap ? gd_xcalloc(cap, elem) : NULL;
		io->count = cap;
		io->dev = r->dev;
		rc = gd_nvml_call(r->nv, what, (int)r->idx, fn, io);
		if (rc == NVML_ERROR_INSUFFICIENT_SIZE)
			cap = io->count + io->count / 4 + 4; /* the list is racy: headroom */
	}
	if (rc == NVML_ERROR_INSUFFICIENT_SIZE) {
		struct gd_nvml_error *e = GD_PUSH(r->s, nvml_errors, struct gd_nvml_error);

		gd_u64_set(&e->gpu, r->idx);
		GD_STRSET(e->field, field);
		GD_STRSET(e->status, "failed");
		gd_u64_set(&e->code, NVML_ERROR_INSUFFICIENT_SIZE);
		snprintf(e->reason, sizeof e->reason, "%s: the list kept growing (%u entries after %d tries)", what,
			 io->count, LIST_TRIES);
		r->errors++;
		return false;
	}
	if (rc == NVML_ERROR_NOT_FOUND) { /* sampling calls: no samples yet */
		io->count = 0;
		return true;
	}
	if (!check(r, field, what, rc))
		return false;
	if (io->count > cap)
		io->count = cap;
	return true;
}

static void collect_processes(struct gpu_run *r, const struct gd_nvml_api *a)
{
	struct gd_nvml_io io;
	bool v1 = !a->procs;
	size_t first_proc = r->s->gpu_procs.n;

	if (list_call(r, v1 ? (const void *)a->procs_v1 : (const void *)a->procs, "gpu_procs",
		      v1 ? "nvmlDeviceGetComputeRunningProcesses" : "nvmlDeviceGetComputeRunningProcesses_v3",
		      v1 ? t_procs_v1 : t_procs, v1 ? sizeof(nvmlProcessInfo_v1_t) : sizeof(nvmlProcessInfo_t),
		      LIST_FIRST, &io)) {
		for (unsigned int i = 0; i < io.count; i++) {
			struct gd_gpu_proc *p = GD_PUSH(r->s, gpu_procs, struct gd_gpu_proc);
			unsigned long long mem;

			gd_u64_set(&p->gpu, r->idx);
			if (v1) {
				gd_u64_set(&p->pid, ((nvmlProcessInfo_v1_t *)io.buf)[i].pid);
				mem = ((nvmlProcessInfo_v1_t *)io.buf)[i].usedGpuMemory;
			} else {
				gd_u64_set(&p->pid, ((nvmlProcessInfo_t *)io.buf)[i].pid);
				mem = ((nvmlProcessInfo_t *)io.buf)[i].usedGpuMemory;
			}
			if (mem != NVML_VALUE_NOT_AVAILABLE)
				gd_u64_set(&p->used_mem_bytes, mem);
		}
	}
	free(io.buf);
	if (r->s->gpu_procs.n == first_proc)
		return;
	/* Per-process samples: the newest one of each listed pid. */
	if (list_call(r, a->proc_util, "gpu_procs.sm_util_pct", "nvmlDeviceGetProcessUtilization", t_proc_util,
		      sizeof(nvmlProcessUtilizationSample_t), 0, &io)) {
		const nvmlProcessUtilizationSample_t *sm = io.buf;

		for (size_t k = first_proc; k < r->s->gpu_procs.n; k++) {
			struct gd_gpu_proc *p = GD_VEC_AT(r->s->gpu_procs, struct gd_gpu_proc, k);
			const nvmlProcessUtilizationSample_t *best = NULL;

			for (unsigned int i = 0; i < io.count; i++)
				if (sm[i].pid == p->pid.v && (!best || sm[i].timeStamp >= best->timeStamp))
					best = &sm[i];
			if (best) {
				gd_u64_set(&p->sm_util_pct, best->smUtil);
				gd_u64_set(&p->mem_util_pct, best->memUtil);
			}
		}
	}
	free(io.buf);
}

static void collect_gpu(struct gd_nvml *nv, struct gd_snapshot *s, unsigned int idx, size_t *errors)
{
	const struct gd_nvml_api *a = gd_nvml_api(nv);
	struct gpu_run r = { nv, s, s->gpus.n, idx, NULL, false, 0 };
	struct gd_gpu *g = GD_PUSH(s, gpus, struct gd_gpu);
	struct gd_nvml_io io = io_arg(idx, 0);
	int rc;

	gd_u64_set(&g->index, idx);
	rc = gd_nvml_call(nv, "nvmlDeviceGetHandleByIndex", (int)idx, t_handle, &io);
	if (rc == GD_NVML_RC_STUCK) {
		s->gpus.n--; /* nothing known: not listed */
		return;
	}
	gd_u64_set(&g->lost, 0);
	if (!check(&r, "index", "nvmlDeviceGetHandleByIndex", rc)) {
		*errors += r.errors;
		return;
	}
	r.dev = io.dev;
	collect_identity(&r, a);
	collect_thermal_power(&r, a);
	collect_util_memory(&r, a);
	collect_clocks(&r, a);
	collect_pcie(&r, a);
	collect_memory_health(&r, a);
	collect_nvlink(&r, a);
	collect_processes(&r, a);
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
		gd_err_set(err, -EIO, "%zu GPU fields denied or failed (see nvml_errors)", errors);
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
