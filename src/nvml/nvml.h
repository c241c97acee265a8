/*
 * nvml.h - NVML loaded at run time, with a deadline on every call.
 *
 * gd_nvml_open() finds the library (an explicit path from --nvml or
 * GPUDOCTOR_NVML; else libnvidia-ml.so.1, then libnvidia-ml.so), resolves
 * the functions of one symbol table (nvml.c: each row lists candidate names
 * newest first), starts one worker thread and initialises NVML on it.  It
 * never fails the caller: the handle it returns carries a state (ok, absent,
 * denied, failed, stuck) and a reason a user can act on.  One open per
 * process is enough: `check` shares one handle between its snapshots.
 *
 * Every NVML call goes through gd_nvml_call(): a small function (a thunk)
 * runs on the worker thread with a private copy of the caller's struct
 * gd_nvml_io, and the copy comes back when it returns.  When a call does not
 * return within the deadline the handle becomes STUCK: the caller gets
 * GD_NVML_RC_STUCK, no further call is made (nvmlShutdown included), and the
 * worker thread is abandoned, blocked inside the driver.  It keeps its own
 * reference to the memory it may still write (the io copy, the list buffer
 * and the library); whichever side finishes last frees them.  The process
 * then ends normally; a wedged driver cannot hold the run hostage.
 */
#ifndef GD_NVML_NVML_H
#define GD_NVML_NVML_H

#include <stdbool.h>
#include <stddef.h>

#include "nvml/nvml_abi.h"

#define GD_NVML_TIMEOUT_DEFAULT_S 5.0
#define GD_NVML_SONAME "libnvidia-ml.so.1"
/* What gd_nvml_call returns when the call missed its deadline, or when an
 * earlier call did and no call is made any more.  Not an NVML code. */
#define GD_NVML_RC_STUCK (-1)

enum gd_nvml_state { GD_NVML_OK, GD_NVML_ABSENT, GD_NVML_DENIED, GD_NVML_FAILED, GD_NVML_STUCK };

/* The resolved functions; NULL when this driver lacks every candidate name
 * of the row.  Rows that differ in ABI (the v1 and v2 memory structs, the
 * v1 and v2 process structs, TemperatureV and Temperature) are separate
 * members, so a caller always knows which struct it passes. */
#define GD_NVML_FN(name) __typeof__(name) *
struct gd_nvml_api {
	GD_NVML_FN(nvmlInit_v2) init;
	GD_NVML_FN(nvmlShutdown) shutdown;
	GD_NVML_FN(nvmlErrorString) error_string;
	GD_NVML_FN(nvmlSystemGetDriverVersion) driver_version;
	GD_NVML_FN(nvmlSystemGetNVMLVersion) nvml_version;
	GD_NVML_FN(nvmlSystemGetCudaDriverVersion_v2) cuda_version;
	GD_NVML_FN(nvmlDeviceGetCount_v2) count;
	GD_NVML_FN(nvmlDeviceGetHandleByIndex_v2) handle;
	GD_NVML_FN(nvmlDeviceGetName) name;
	GD_NVML_FN(nvmlDeviceGetUUID) uuid;
	GD_NVML_FN(nvmlDeviceGetSerial) serial;
	GD_NVML_FN(nvmlDeviceGetPciInfo_v3) pci;
	GD_NVML_FN(nvmlDeviceGetMinorNumber) minor;
	GD_NVML_FN(nvmlDeviceGetNumaNodeId) numa;
	GD_NVML_FN(nvmlDeviceGetPersistenceMode) persistence;
	GD_NVML_FN(nvmlDeviceGetComputeMode) compute_mode;
	GD_NVML_FN(nvmlDeviceGetMigMode) mig_mode;
	GD_NVML_FN(nvmlDeviceGetTemperatureV) temp_v;
	GD_NVML_FN(nvmlDeviceGetTemperature) temp;
	GD_NVML_FN(nvmlDeviceGetTemperatureThreshold) temp_threshold;
	GD_NVML_FN(nvmlDeviceGetFanSpeed) fan;
	GD_NVML_FN(nvmlDeviceGetUtilizationRates) util;
	GD_NVML_FN(nvmlDeviceGetMemoryInfo_v2) mem_v2;
	GD_NVML_FN(nvmlDeviceGetMemoryInfo) mem_v1;
	GD_NVML_FN(nvmlDeviceGetPowerUsage) power;
	GD_NVML_FN(nvmlDeviceGetEnforcedPowerLimit) power_limit;
	GD_NVML_FN(nvmlDeviceGetPowerManagementDefaultLimit) power_default_limit;
	GD_NVML_FN(nvmlDeviceGetTotalEnergyConsumption) energy;
	GD_NVML_FN(nvmlDeviceGetClockInfo) clock;
	GD_NVML_FN(nvmlDeviceGetMaxClockInfo) max_clock;
	GD_NVML_FN(nvmlDeviceGetApplicationsClock) app_clock;
	GD_NVML_FN(nvmlDeviceGetPerformanceState) pstate;
	GD_NVML_FN(nvmlDeviceGetCurrentClocksEventReasons) clock_reasons;
	GD_NVML_FN(nvmlDeviceGetViolationStatus) violation;
	GD_NVML_FN(nvmlDeviceGetCurrPcieLinkGeneration) pcie_gen;
	GD_NVML_FN(nvmlDeviceGetMaxPcieLinkGeneration) pcie_gen_max;
	GD_NVML_FN(nvmlDeviceGetCurrPcieLinkWidth) pcie_width;
	GD_NVML_FN(nvmlDeviceGetMaxPcieLinkWidth) pcie_width_max;
	GD_NVML_FN(nvmlDeviceGetPcieThroughput) pcie_throughput;
	GD_NVML_FN(nvmlDeviceGetPcieReplayCounter) pcie_replay;
	GD_NVML_FN(nvmlDeviceGetEccMode) ecc_mode;
	GD_NVML_FN(nvmlDeviceGetTotalEccErrors) ecc_total;
	GD_NVML_FN(nvmlDeviceGetRetiredPages) retired_pages;
	GD_NVML_FN(nvmlDeviceGetRetiredPagesPendingStatus) retired_pending;
	GD_NVML_FN(nvmlDeviceGetRemappedRows) remapped_rows;
	GD_NVML_FN(nvmlDeviceGetFieldValues) field_values;
	GD_NVML_FN(nvmlDeviceGetNvLinkState) nvlink_state;
	GD_NVML_FN(nvmlDeviceGetNvLinkErrorCounter) nvlink_errors;
	GD_NVML_FN(nvmlDeviceGetComputeRunningProcesses_v3) procs;
	GD_NVML_FN(nvmlDeviceGetComputeRunningProcesses) procs_v1;
	GD_NVML_FN(nvmlDeviceGetGraphicsRunningProcesses_v3) gprocs;
	GD_NVML_FN(nvmlDeviceGetGraphicsRunningProcesses) gprocs_v1;
	GD_NVML_FN(nvmlDeviceGetProcessUtilization) proc_util;
	GD_NVML_FN(nvmlDeviceGetSamples) samples;
	GD_NVML_FN(nvmlGpmQueryDeviceSupport) gpm_support;
	GD_NVML_FN(nvmlGpmSampleAlloc) gpm_alloc;
	GD_NVML_FN(nvmlGpmSampleFree) gpm_free;
	GD_NVML_FN(nvmlGpmSampleGet) gpm_get;
	GD_NVML_FN(nvmlGpmMetricsGet) gpm_metrics;
	GD_NVML_FN(nvmlDeviceGetGpuFabricInfoV) fabric_v;
	GD_NVML_FN(nvmlDeviceGetGpuFabricInfo) fabric;
};

/* What one call takes to the worker thread and brings back, by value.  A
 * thunk reads its inputs (dev, arg) and writes its outputs here.  buf is a
 * list buffer the caller allocates (count elements in, count out): if the
 * call gets stuck, the abandoned call owns buf and gd_nvml_call sets it to
 * NULL, so the caller's free(io->buf) stays correct either way. */
struct gd_nvml_io {
	nvmlDevice_t dev;
	unsigned int arg[2];
	unsigned int u[4];
	int i;
	unsigned long long ull;
	char str[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
	union {
		nvmlMemory_t mem_v1;
		nvmlMemory_v2_t mem_v2;
		nvmlTemperature_t temp;
		nvmlUtilization_t util;
		nvmlPciInfo_t pci;
		nvmlViolationTime_t viol;
		nvmlFieldValue_t field;
		nvmlGpuFabricInfo_t fabric;
		nvmlGpuFabricInfoV_t fabric_v;
	} s;
	void *buf;
	unsigned int count;
};

typedef nvmlReturn_t (*gd_nvml_fn)(const struct gd_nvml_api *api, struct gd_nvml_io *io);

/*
 * Answers that do not change while NVML stays initialised (a GPU's UUID,
 * serial, PCI address, thresholds, maximum clocks: collect/nvml_devices.c
 * names them), kept per GPU index, call and first argument for the life of
 * nv, so that a run of many cycles asks them once.  gd_nvml_cached copies
 * a kept answer into io (its dev and arguments stay) and says whether there
 * was one; gd_nvml_cache_put keeps io's answer.
 */
struct gd_nvml;
bool gd_nvml_cached(struct gd_nvml *nv, int gpu, const char *what, unsigned int arg, struct gd_nvml_io *io);
void gd_nvml_cache_put(struct gd_nvml *nv, int gpu, const char *what, unsigned int arg, const struct gd_nvml_io *io);

struct gd_nvml;

/* Never NULL.  path: an explicit library (NULL or "": the default search);
 * timeout_s <= 0: GD_NVML_TIMEOUT_DEFAULT_S. */
struct gd_nvml *gd_nvml_open(const char *path, double timeout_s);
/* Balanced nvmlShutdown and dlclose; when stuck, neither (see above). */
void gd_nvml_close(struct gd_nvml *nv);

enum gd_nvml_state gd_nvml_state(const struct gd_nvml *nv);
const char *gd_nvml_state_name(enum gd_nvml_state st);
/* Why the state is not ok ("" when ok). */
const char *gd_nvml_reason(const struct gd_nvml *nv);
/* The library loaded, or the last name tried. */
const char *gd_nvml_library(const struct gd_nvml *nv);
/* The init result: NVML_SUCCESS, an NVML error, or GD_NVML_RC_STUCK; -2 when
 * init was not reached (no library, symbols missing). */
int gd_nvml_init_rc(const struct gd_nvml *nv);
/* Optional functions this driver lacks, comma-separated ("" when none). */
const char *gd_nvml_missing(const struct gd_nvml *nv);
/* Row i of the loader's symbol table (false past its end): the names tried,
 * newest first, NULL-terminated; whether the row is required; the group of
 * alternatives it belongs to (NULL: none); the offset of its pointer in
 * struct gd_nvml_api.  For the tests that check the table against NVIDIA's
 * libraries (tests/nvidia/). */
bool gd_nvml_sym_row(size_t i, const char *const **names, bool *required, const char **group, size_t *off);
/* The call that missed its deadline ("" when none). */
const char *gd_nvml_stuck_call(const struct gd_nvml *nv);
double gd_nvml_timeout(const struct gd_nvml *nv);
/* The resolved functions, for presence checks (NULL: not supported by this
 * driver).  Only call them through gd_nvml_call. */
const struct gd_nvml_api *gd_nvml_api(const struct gd_nvml *nv);

/* Runs fn on the worker with a copy of *io and copies the result back.
 * Returns fn's nvmlReturn_t, or GD_NVML_RC_STUCK.  what (e.g.
 * "nvmlDeviceGetPowerUsage") and gpu (-1: none) name the call in the reason
 * when it gets stuck. */
int gd_nvml_call(struct gd_nvml *nv, const char *what, int gpu, gd_nvml_fn fn, struct gd_nvml_io *io);

/*
 * Sub-second activity of GPUs (nvml_act.c): what copy/compute overlap needs,
 * sampled on the NVML thread every GD_NVML_ACT_PERIOD_MS while no caller
 * is calling, from gd_nvml_act_start to the next gd_nvml_call (any call
 * pauses it: a snapshot's own calls never wait behind a sample).  Per GPU,
 * from GPM where nvmlGpmQueryDeviceSupport says so (SM activity and PCIe
 * bytes between two GPM samples), else a point reading: nvmlDeviceGet-
 * PcieThroughput (KB/s over the driver's 20 ms window) and the newest of
 * the driver's utilisation samples (nvmlDeviceGetSamples).  A sampling
 * call that does not return leaves the thread inside the driver: the next
 * gd_nvml_call misses its deadline and names that call.
 *
 *	gd_nvml_act_take(nv, &acts, &n);     intervals since the last start
 *	gd_nvml_act_start(nv, gpus, ngpus);  sample these until the next call
 */
#define GD_NVML_ACT_PERIOD_MS 100   /* GPM needs >= 100 ms between samples */
#define GD_NVML_ACT_MAX 600         /* intervals kept per GPU (the newest): 60 s */

enum gd_nvml_act_src { GD_NVML_ACT_NONE, GD_NVML_ACT_GPM, GD_NVML_ACT_PCIE };

/* One interval of one GPU.  Absent values are NAN. */
struct gd_nvml_act {
	unsigned int gpu;             /* NVML index */
	enum gd_nvml_act_src src;
	unsigned long long t_us;      /* its end, CPU wall clock, microseconds since the epoch */
	unsigned long long dt_us;     /* its length (GPM: between the samples; PCIe: the 20 ms window) */
	double sm_pct;                /* GPM: SM activity */
	double util_pct;              /* PCIe: the newest utilisation sample */
	double rx_bytes_s, tx_bytes_s;/* PCIe bytes to and from the GPU per second */
	/* GPM only, NAN where the GPU or driver does not compute it: */
	double occupancy_pct;         /* warps resident vs the maximum */
	double tensor_pct;            /* time the SMs did any tensor operation */
	double dram_pct;              /* DRAM bandwidth vs the maximum */
	double nvlink_rx_bytes_s, nvlink_tx_bytes_s; /* over all NVLinks */
};

/* A GPU to sample (gpu, in) and how (the rest, out). */
struct gd_nvml_act_gpu {
	unsigned int gpu;
	enum gd_nvml_act_src src;     /* NONE: neither GPM nor PCIe throughput (why) */
	int rc;                       /* the first sampling call that failed since the previous start */
	char what[40];                /* that call ("" when none) */
	char why[160];
};

/* Samples gpus[0..n) from now on (n = 0: stops); fills their src, why, and
 * the error of the previous run.  Returns the call's result (NVML_SUCCESS,
 * or GD_NVML_RC_STUCK). */
int gd_nvml_act_start(struct gd_nvml *nv, struct gd_nvml_act_gpu *gpus, size_t n);
/* The intervals sampled since the last start, oldest first per GPU, in a
 * new array the caller frees (*out NULL when none).  Returns as above. */
int gd_nvml_act_take(struct gd_nvml *nv, struct gd_nvml_act **out, size_t *n);

/* "NO_PERMISSION" for NVML_ERROR_NO_PERMISSION, "SUCCESS", "DEADLINE_MISSED"
 * for GD_NVML_RC_STUCK, "ERROR_<n>" for codes this build does not know. */
const char *gd_nvml_error_name(int rc);
/* "Insufficient Permissions (NVML_ERROR_NO_PERMISSION, 4)": nvmlErrorString's
 * text when it can still be asked, our name and the number. */
void gd_nvml_describe(struct gd_nvml *nv, int rc, char *out, size_t outsz);

#endif
