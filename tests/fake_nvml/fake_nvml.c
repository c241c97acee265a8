/*
 * fake_nvml.c - a libnvidia-ml.so.1 for the tests, answering from a scenario.
 *
 * Built by the Makefile twice: $(BUILD)/fake_nvml/libnvidia-ml.so.1 (every
 * symbol gpudoctor resolves, the legacy names too, as real drivers export
 * them) and, with -DFAKE_NVML_OLD, $(BUILD)/fake_nvml_old/libnvidia-ml.so.1,
 * an old driver: no nvmlInit_v2, nvmlDeviceGetCount_v2, ..._HandleByIndex_v2,
 * ..._MemoryInfo_v2, ..._ComputeRunningProcesses_v2/_v3 (v1 16-byte struct
 * only), nvmlDeviceGetPciInfo_v3 (the _v2 stays, to test a fallback inside
 * one row), nvmlSystemGetCudaDriverVersion_v2, nvmlDeviceGetTemperatureV,
 * the clock "event" name (only "throttle"), nvmlDeviceGetRemappedRows and
 * the GPM functions (nvmlGpm*, from the 12.0 header on) and
 * nvmlDeviceGetGpuFabricInfoV (the 12.2 nvmlDeviceGetGpuFabricInfo stays).
 * The signatures come from src/nvml/nvml_abi.h, so the compiler checks that
 * the fake and gpudoctor agree.
 *
 * The scenario is the INI file named by GPUDOCTOR_FAKE_NVML, read at every
 * nvmlInit (no file: a driver with no GPUs):
 *
 *   [nvml]
 *   init = SUCCESS                  ; or DRIVER_NOT_LOADED, LIB_RM_VERSION_MISMATCH, ...
 *   driver_version = 550.54.15
 *   nvml_version = 12.550.54.15
 *   cuda_driver_version = 12040
 *   device_count = 2                ; default: the number of [gpuN] sections
 *   memory_version = 0x03000028     ; the nvmlMemory version this "driver" wants
 *   temperature_version = ...       ; the same for nvmlTemperature
 *   hang = nvmlInit_v2              ; that call never returns
 *
 *   include = ../base/nvml.ini      ; (anywhere) that file here, relative to
 *                                   ; this one; what this file sets replaces it
 *
 *   [gpu0]
 *   name = NVIDIA H100 80GB HBM3
 *   pci_bus_id = 00000000:3B:00.0   ; NVML spelling
 *   power_w = 350.5                 ; keys are gpudoctor's field names and
 *   temp_c = 40,60,85               ; units; a list gives one value per call
 *   fan_pct = NOT_SUPPORTED         ; an error name: the calls for it fail so
 *   procs = 100:1048576 200:2097152 ; pid:bytes ...; an indented line goes on
 *     300:1048576                   ; (inih reads lines of up to 200 bytes)
 *   procs_grow = 5                  ; the list grows by 5 at every call
 *   graphics_procs = 400:524288     ; the graphics processes, as procs (none: an
 *                                   ; empty list; procs_grow is for procs only)
 *   proc_util = 100:87:40           ; pid:sm%:mem% ...
 *   util_samples = 900:95 700:0 500:0 300:90 100:96
 *                                   ; nvmlDeviceGetSamples(GPU_UTILIZATION):
 *                                   ; age:pct ..., each sample stamped age ms
 *                                   ; before the call (oldest first)
 *   pcie_rx_kbps = ~6000000,2000    ; a list that starts with ~ cycles: 6000000,
 *                                   ; 2000, 6000000, ... (without ~ the last
 *                                   ; value repeats)
 *   gpm = 1                         ; nvmlGpmQueryDeviceSupport says supported
 *                                   ; (0 or absent: not; an error name: fails)
 *   gpm_sm_pct = ~0,95              ; what each nvmlGpmMetricsGet computes, one
 *   gpm_pcie_rx_mib_s = ~9000,3     ; value per call: SM_UTIL, PCIE_RX/TX_PER_SEC,
 *   gpm_pcie_tx_mib_s = 5           ; GRAPHICS_UTIL (gpm_graphics_pct),
 *                                   ; SM_OCCUPANCY (gpm_sm_occupancy_pct),
 *                                   ; ANY_TENSOR_UTIL (gpm_tensor_pct),
 *                                   ; DRAM_BW_UTIL (gpm_dram_bw_pct) and
 *                                   ; NVLINK_TOTAL_RX/TX_PER_SEC
 *                                   ; (gpm_nvlink_rx_mib_s, _tx_mib_s); a
 *                                   ; metric without its key answers
 *                                   ; NOT_SUPPORTED in its own nvmlReturn
 *   nvlink_links = 4                ; with nvlink_up_links, nvlink_errors
 *   field_values = NOT_SUPPORTED    ; nvmlDeviceGetFieldValues itself answers
 *                                   ; this (a driver that rejects the batch)
 *   field_error = 46@0:UNKNOWN 3:NO_PERMISSION
 *                                   ; field ID (at scopeId SCOPE, or at every
 *                                   ; one) answers the error in the batch; the
 *                                   ; call for the same value still answers
 *                                   ; from its key
 *   lost = 1                        ; every call for this GPU: GPU_IS_LOST
 *   lost_after = 10                 ; ... from its 11th call on
 *   hang = nvmlDeviceGetPowerUsage  ; that call sleeps forever on this GPU
 *   load_file = PATH                ; while PATH is not empty (the fake
 *   load.temp_c = 89                ; libcuda writes it during a burn, a test
 *                                   ; may write it itself), a key reads from
 *                                   ; load.KEY where there is one; lost and
 *   load.lost = 1                   ; hang too: the GPU is lost, or that call
 *   load.hang = nvmlDeviceGetPowerUsage ; hangs, only while PATH is not empty
 *                                   ; (a GPU lost and back: the soak test)
 *   fabric_state = 2                ; nvmlDeviceGetGpuFabricInfo(V): 0 not supported,
 *   fabric_status = UNKNOWN         ; 1 not started, 2 in progress, 3 completed (or an
 *   fabric_health_mask = 0          ; error name: the call answers it); the status (an
 *                                   ; error name or number) and the V call's mask; no
 *                                   ; fabric_state: NOT_SUPPORTED.  [nvml] fabric_version
 *                                   ; = the struct version the V call wants (default
 *                                   ; nvmlGpuFabricInfo_v2; the old build has no V)
 *   procs_file = PATH               ; the compute processes are PATH's "pid:bytes
 *                                   ; ..." (as procs), read at every call; no
 *                                   ; file or an empty one: none (a test
 *                                   ; renames a new list into place)
 *
 * nvmlDeviceGetFieldValues answers each field id gpudoctor asks from the key
 * of the call that gives the same value (NVML_FI_DEV_ECC_SBE_VOL_TOTAL from
 * ecc_corrected_volatile, NVML_FI_DEV_NVLINK_GET_STATE at scopeId L as
 * nvmlDeviceGetNvLinkState(L), ...), a per-field error where the call would
 * fail, with a poison value (0xDEADBEEF...) in every field that did not
 * answer SUCCESS; an id it does not know answers INVALID_ARGUMENT (the old
 * build does not know the 11.8 header's NVLink ids, 161, 162 and 165, nor
 * 142-145, as it has no nvmlDeviceGetRemappedRows).
 *
 * A missing key answers NOT_SUPPORTED.  GPUDOCTOR_FAKE_NVML_TRACE set: init
 * and shutdown print their counts on stderr (=calls: and every function's
 * call count, at shutdown).  fake_nvml_calls(name),
 * fake_nvml_inits(), fake_nvml_shutdowns() and fake_nvml_gpm_samples() (GPM
 * samples allocated and not freed) let a test check which symbols were
 * called, that shutdown balanced init and that every GPM sample went back.  This is a stand-in for a
 * library that has process-wide state by nature: the globals are the point.
 * Calls come from gpudoctor's one NVML thread, one at a time.
 */
#include <ini.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nvml/nvml_abi.h"

#define MAX_GPUS 32
#define MAX_KV 96
#define MAX_PROCS 4096

struct kv {
	char key[48];
	char val[2048];
	unsigned int reads;
	int depth;              /* include depth it was read at (0: the file itself) */
};

struct section {
	struct kv kv[MAX_KV];
	size_t n;
	unsigned int calls;
	unsigned int proc_calls;
	unsigned int gpm_seq;
};

/* A GPM sample: the GPU it was read from and its number on that GPU. */
struct nvmlGpmSample_st {
	unsigned int dev;
	unsigned int seq;
};

struct nvmlDevice_st {
	unsigned int idx;
};

static struct section sys_sec;
static struct section gpu_sec[MAX_GPUS];
static unsigned int ngpus;
static struct nvmlDevice_st devs[MAX_GPUS];
static int inits, shutdowns, gpm_samples;
/* While a scenario loads: the directory of the file being read and how
 * deep in includes it is. */
static char ini_dir[1024];
static int ini_depth;
/* Taken where a hung call's thread and the test (or the next init) may
 * meet: the call counters, the hang check, the scenario reload. */
static pthread_mutex_t fake_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	const char *name;
	unsigned int n;
} calls[128];

/* ---- test helpers -------------------------------------------------------- */
unsigned int fake_nvml_calls(const char *name);
int fake_nvml_inits(void);
int fake_nvml_shutdowns(void);
int fake_nvml_gpm_samples(void);

unsigned int fake_nvml_calls(const char *name)
{
	unsigned int n = 0;

	pthread_mutex_lock(&fake_mu);
	for (size_t i = 0; i < sizeof calls / sizeof calls[0] && calls[i].name; i++)
		if (strcmp(calls[i].name, name) == 0)
			n = calls[i].n;
	pthread_mutex_unlock(&fake_mu);
	return n;
}

int fake_nvml_inits(void)
{
	return __atomic_load_n(&inits, __ATOMIC_SEQ_CST);
}

int fake_nvml_shutdowns(void)
{
	return __atomic_load_n(&shutdowns, __ATOMIC_SEQ_CST);
}

int fake_nvml_gpm_samples(void)
{
	return __atomic_load_n(&gpm_samples, __ATOMIC_SEQ_CST);
}

/* ---- scenario ------------------------------------------------------------ */
static int include(const char *value);

static int on_ini(void *user, const char *section, const char *name, const char *value)
{
	struct section *sec;
	unsigned int idx;
	char *end;

	(void)user;
	if (strcmp(name, "include") == 0)
		return include(value);
	if (strcmp(section, "nvml") == 0) {
		sec = &sys_sec;
	} else if (strncmp(section, "gpu", 3) == 0) {
		idx = (unsigned int)strtoul(section + 3, &end, 10);
		if (end == section + 3 || *end || idx >= MAX_GPUS)
			return 0;
		sec = &gpu_sec[idx];
		if (idx + 1 > ngpus)
			ngpus = idx + 1;
	} else {
		return 0;
	}
	/* A continuation line (indented) comes again under the same name: the
	 * value grows, joined with a space (for long process lists).  A key
	 * an included file set is replaced by the including file's. */
	for (size_t i = 0; i < sec->n; i++) {
		size_t len = strlen(sec->kv[i].val);

		if (strcmp(sec->kv[i].key, name) != 0)
			continue;
		if (ini_depth < sec->kv[i].depth) {
			snprintf(sec->kv[i].val, sizeof sec->kv[i].val, "%s", value);
			sec->kv[i].depth = ini_depth;
		} else {
			snprintf(sec->kv[i].val + len, sizeof sec->kv[i].val - len, " %s", value);
		}
		return 1;
	}
	if (sec->n >= MAX_KV)
		return 0;
	snprintf(sec->kv[sec->n].key, sizeof sec->kv[sec->n].key, "%s", name);
	snprintf(sec->kv[sec->n].val, sizeof sec->kv[sec->n].val, "%s", value);
	sec->kv[sec->n].depth = ini_depth;
	sec->n++;
	return 1;
}

/* include = FILE: reads FILE (relative to the file that names it) here. */
static int include(const char *value)
{
	char path[sizeof ini_dir], saved[sizeof ini_dir];
	char *slash;
	int rc, n;

	if (ini_depth >= 4)
		return 0;   /* a loop */
	if (value[0] == '/' || !ini_dir[0])
		n = snprintf(path, sizeof path, "%s", value);
	else
		n = snprintf(path, sizeof path, "%.500s/%.500s", ini_dir, value);
	if (n < 0 || (size_t)n >= sizeof path)
		return 0;
	memcpy(saved, ini_dir, sizeof saved);
	memcpy(ini_dir, path, sizeof ini_dir);
	slash = strrchr(ini_dir, '/');
	if (slash)
		*slash = '\0';
	else
		ini_dir[0] = '\0';
	ini_depth++;
	rc = ini_parse(path, on_ini, NULL);
	ini_depth--;
	memcpy(ini_dir, saved, sizeof saved);
	if (rc != 0)
		fprintf(stderr, "fake_nvml: include %s: %s %d\n", path, rc < 0 ? "cannot read" : "syntax error at line", rc);
	return rc == 0;
}

static nvmlReturn_t load_scenario(void)
{
	const char *path = getenv("GPUDOCTOR_FAKE_NVML");
	int rc;

	pthread_mutex_lock(&fake_mu);
	memset(&sys_sec, 0, sizeof sys_sec);
	memset(gpu_sec, 0, sizeof gpu_sec);
	ngpus = 0;
	for (unsigned int i = 0; i < MAX_GPUS; i++)
		devs[i].idx = i;
	if (!path || !*path) {
		pthread_mutex_unlock(&fake_mu);
		return NVML_SUCCESS;
	}
	snprintf(ini_dir, sizeof ini_dir, "%s", path);
	if (strrchr(ini_dir, '/'))
		*strrchr(ini_dir, '/') = '\0';
	else
		ini_dir[0] = '\0';
	ini_depth = 0;
	rc = ini_parse(path, on_ini, NULL);
	pthread_mutex_unlock(&fake_mu);
	if (rc != 0) {
		fprintf(stderr, "fake_nvml: %s: %s %d\n", path, rc < 0 ? "cannot read" : "syntax error at line", rc);
		return NVML_ERROR_UNKNOWN;
	}
	return NVML_SUCCESS;
}

static struct kv *find(struct section *sec, const char *key)
{
	for (size_t i = 0; i < sec->n; i++)
		if (strcmp(sec->kv[i].key, key) == 0)
			return &sec->kv[i];
	return NULL;
}

static const struct {
	const char *name;
	nvmlReturn_t rc;
} errors[] = {
	{ "SUCCESS", NVML_SUCCESS },
	{ "UNINITIALIZED", NVML_ERROR_UNINITIALIZED },
	{ "INVALID_ARGUMENT", NVML_ERROR_INVALID_ARGUMENT },
	{ "NOT_SUPPORTED", NVML_ERROR_NOT_SUPPORTED },
	{ "NO_PERMISSION", NVML_ERROR_NO_PERMISSION },
	{ "NOT_FOUND", NVML_ERROR_NOT_FOUND },
	{ "INSUFFICIENT_SIZE", NVML_ERROR_INSUFFICIENT_SIZE },
	{ "INSUFFICIENT_POWER", NVML_ERROR_INSUFFICIENT_POWER },
	{ "DRIVER_NOT_LOADED", NVML_ERROR_DRIVER_NOT_LOADED },
	{ "TIMEOUT", NVML_ERROR_TIMEOUT },
	{ "IRQ_ISSUE", NVML_ERROR_IRQ_ISSUE },
	{ "GPU_IS_LOST", NVML_ERROR_GPU_IS_LOST },
	{ "RESET_REQUIRED", NVML_ERROR_RESET_REQUIRED },
	{ "LIB_RM_VERSION_MISMATCH", NVML_ERROR_LIB_RM_VERSION_MISMATCH },
	{ "ARGUMENT_VERSION_MISMATCH", NVML_ERROR_ARGUMENT_VERSION_MISMATCH },
	{ "UNKNOWN", NVML_ERROR_UNKNOWN },
};

/* An error name (with or without NVML_ERROR_), else -1. */
static int error_of(const char *v)
{
	if (strncmp(v, "NVML_ERROR_", 11) == 0)
		v += 11;
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
		if (strcmp(errors[i].name, v) == 0)
			return (int)errors[i].rc;
	return -1;
}

static void count_call(const char *fn)
{
	size_t i;

	pthread_mutex_lock(&fake_mu);
	for (i = 0; i < sizeof calls / sizeof calls[0] && calls[i].name; i++)
		if (strcmp(calls[i].name, fn) == 0)
			break;
	if (i < sizeof calls / sizeof calls[0]) {
		calls[i].name = fn;
		calls[i].n++;
	}
	pthread_mutex_unlock(&fake_mu);
}

static struct kv *keyed(struct section *sec, const char *key);

static void maybe_hang(struct section *sec, const char *fn)
{
	struct kv *h;
	int hang;

	/* Locked: the next nvmlInit (another test) rereads the scenario while
	 * this thread sleeps. */
	pthread_mutex_lock(&fake_mu);
	h = keyed(sec, "hang");
	hang = h && strcmp(h->val, fn) == 0;
	pthread_mutex_unlock(&fake_mu);
	if (hang)
		for (;;)
			sleep(1000);
}

/* Every function starts here: count, hang, check init. */
static nvmlReturn_t enter_sys(const char *fn)
{
	count_call(fn);
	maybe_hang(&sys_sec, fn);
	return inits > shutdowns ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
}

static nvmlReturn_t enter(const char *fn, nvmlDevice_t d, struct section **sec)
{
	nvmlReturn_t rc = enter_sys(fn);
	struct kv *k;

	if (rc != NVML_SUCCESS)
		return rc;
	if (!d || d < devs || d >= devs + MAX_GPUS || d->idx >= ngpus)
		return NVML_ERROR_INVALID_ARGUMENT;
	*sec = &gpu_sec[d->idx];
	maybe_hang(*sec, fn);
	(*sec)->calls++;
	if ((k = keyed(*sec, "lost")) && strcmp(k->val, "1") == 0)
		return NVML_ERROR_GPU_IS_LOST;
	if ((k = find(*sec, "lost_after")) && (*sec)->calls > strtoul(k->val, NULL, 0))
		return NVML_ERROR_GPU_IS_LOST;
	return NVML_SUCCESS;
}

/* load.KEY while the GPU is under load (load_file not empty), else NULL. */
static struct kv *under_load(struct section *sec, const char *key)
{
	struct kv *lf = find(sec, "load_file");
	char name[sizeof lf->key];
	struct stat st;

	if (!lf || stat(lf->val, &st) != 0 || st.st_size == 0)
		return NULL;
	snprintf(name, sizeof name, "load.%s", key);
	return find(sec, name);
}

/* The key's entry: load.KEY while under load and there is one, else KEY. */
static struct kv *keyed(struct section *sec, const char *key)
{
	struct kv *k = under_load(sec, key);

	return k ? k : find(sec, key);
}

/* The text of key for this call: the next element of a comma list. */
static nvmlReturn_t text(struct section *sec, const char *key, char *out, size_t outsz)
{
	struct kv *k = under_load(sec, key);
	const char *p;
	int e;

	if (!k)
		k = find(sec, key);
	if (!k)
		return NVML_ERROR_NOT_SUPPORTED;
	if ((e = error_of(k->val)) >= 0)
		return (nvmlReturn_t)e;
	p = k->val;
	if (*p == '~') {   /* a cycle */
		unsigned int n = 1;

		for (const char *q = ++p; (q = strchr(q, ',')); q++)
			n++;
		for (unsigned int i = 0; i < k->reads % n; i++)
			p = strchr(p, ',') + 1;
	} else {
		for (unsigned int i = 0; i < k->reads && strchr(p, ','); i++)
			p = strchr(p, ',') + 1;
	}
	k->reads++;
	snprintf(out, outsz, "%.*s", (int)strcspn(p, ","), p);
	if ((e = error_of(out)) >= 0)
		return (nvmlReturn_t)e;
	return NVML_SUCCESS;
}

/* A number in gpudoctor's unit times scale (e.g. watts -> mW). */
static nvmlReturn_t num(struct section *sec, const char *key, double scale, unsigned long long *out)
{
	char buf[64], *end;
	nvmlReturn_t rc = text(sec, key, buf, sizeof buf);

	if (rc != NVML_SUCCESS)
		return rc;
	if (scale == 1.0) {
		*out = strtoull(buf, &end, 0);
	} else {
		double v = strtod(buf, &end) * scale;

		*out = (unsigned long long)(v + 0.5);
	}
	if (end == buf || *end) {
		fprintf(stderr, "fake_nvml: %s = %s: not a number\n", key, buf);
		return NVML_ERROR_UNKNOWN;
	}
	return NVML_SUCCESS;
}

static nvmlReturn_t num_u(struct section *sec, const char *key, double scale, unsigned int *out)
{
	unsigned long long v = 0;
	nvmlReturn_t rc = num(sec, key, scale, &v);

	if (rc == NVML_SUCCESS)
		*out = (unsigned int)v;
	return rc;
}

static nvmlReturn_t str_out(struct section *sec, const char *key, char *out, unsigned int length)
{
	char buf[256];
	nvmlReturn_t rc = text(sec, key, buf, sizeof buf);

	if (rc != NVML_SUCCESS)
		return rc;
	if (!out)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (strlen(buf) >= length)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(out, buf, strlen(buf) + 1);
	return NVML_SUCCESS;
}

#define DEV_PROLOGUE(fn) \
	struct section *sec = NULL; \
	nvmlReturn_t rc = enter(fn, device, &sec); \
	if (rc != NVML_SUCCESS) \
		return rc

/* ---- lifecycle ------------------------------------------------------------- */
static nvmlReturn_t do_init(const char *fn)
{
	nvmlReturn_t rc;
	char v[64];

	count_call(fn);
	rc = load_scenario();
	if (rc != NVML_SUCCESS)
		return rc;
	maybe_hang(&sys_sec, fn);
	if (text(&sys_sec, "init", v, sizeof v) != NVML_SUCCESS && find(&sys_sec, "init"))
		return (nvmlReturn_t)error_of(find(&sys_sec, "init")->val);
	__atomic_add_fetch(&inits, 1, __ATOMIC_SEQ_CST);
	if (getenv("GPUDOCTOR_FAKE_NVML_TRACE"))
		fprintf(stderr, "fake_nvml: %s: inits=%d shutdowns=%d\n", fn, inits, shutdowns);
	return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlInit_v2(void)
{
	return do_init("nvmlInit_v2");
}
#endif

nvmlReturn_t nvmlInit(void)
{
	return do_init("nvmlInit");
}

/* GPUDOCTOR_FAKE_NVML_TRACE=calls: every function's call count so far, on
 * stderr at shutdown, as "fake_nvml: calls NAME N" (bench/nvml/run.sh). */
static void dump_calls(void)
{
	const char *t = getenv("GPUDOCTOR_FAKE_NVML_TRACE");

	if (!t || strcmp(t, "calls") != 0)
		return;
	pthread_mutex_lock(&fake_mu);
	for (size_t i = 0; i < sizeof calls / sizeof calls[0] && calls[i].name; i++)
		fprintf(stderr, "fake_nvml: calls %s %u\n", calls[i].name, calls[i].n);
	pthread_mutex_unlock(&fake_mu);
}

nvmlReturn_t nvmlShutdown(void)
{
	count_call("nvmlShutdown");
	dump_calls();
	if (shutdowns < inits)
		__atomic_add_fetch(&shutdowns, 1, __ATOMIC_SEQ_CST);
	if (getenv("GPUDOCTOR_FAKE_NVML_TRACE"))
		fprintf(stderr, "fake_nvml: nvmlShutdown: inits=%d shutdowns=%d\n", inits, shutdowns);
	return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t result)
{
	switch (result) {
	case NVML_SUCCESS:
		return "Success";
	case NVML_ERROR_NOT_SUPPORTED:
		return "Not Supported";
	case NVML_ERROR_NO_PERMISSION:
		return "Insufficient Permissions";
	case NVML_ERROR_DRIVER_NOT_LOADED:
		return "Driver Not Loaded";
	case NVML_ERROR_GPU_IS_LOST:
		return "GPU is lost";
	case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
		return "RM has detected an NVML/RM version mismatch.";
	case NVML_ERROR_INSUFFICIENT_SIZE:
		return "Insufficient Size";
	case NVML_ERROR_ARGUMENT_VERSION_MISMATCH:
		return "Argument version mismatch";
	default:
		return "Unknown Error";
	}
}

/* ---- system ----------------------------------------------------------------- */
nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
	nvmlReturn_t rc = enter_sys("nvmlSystemGetDriverVersion");

	return rc != NVML_SUCCESS ? rc : str_out(&sys_sec, "driver_version", version, length);
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
	nvmlReturn_t rc = enter_sys("nvmlSystemGetNVMLVersion");

	return rc != NVML_SUCCESS ? rc : str_out(&sys_sec, "nvml_version", version, length);
}

static nvmlReturn_t cuda_version(const char *fn, int *v)
{
	unsigned int u = 0;
	nvmlReturn_t rc = enter_sys(fn);

	if (rc == NVML_SUCCESS && (rc = num_u(&sys_sec, "cuda_driver_version", 1, &u)) == NVML_SUCCESS)
		*v = (int)u;
	return rc;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion)
{
	return cuda_version("nvmlSystemGetCudaDriverVersion_v2", cudaDriverVersion);
}
#endif

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)
{
	return cuda_version("nvmlSystemGetCudaDriverVersion", cudaDriverVersion);
}

static unsigned int device_count(void)
{
	unsigned int n = ngpus;

	num_u(&sys_sec, "device_count", 1, &n);
	return n > MAX_GPUS ? MAX_GPUS : n;
}

static nvmlReturn_t get_count(const char *fn, unsigned int *n)
{
	nvmlReturn_t rc = enter_sys(fn);

	if (rc == NVML_SUCCESS)
		*n = device_count();
	return rc;
}

static nvmlReturn_t get_handle(const char *fn, unsigned int index, nvmlDevice_t *device)
{
	nvmlReturn_t rc = enter_sys(fn);
	struct kv *k;

	if (rc != NVML_SUCCESS)
		return rc;
	if (index >= device_count() || index >= ngpus)
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((k = find(&gpu_sec[index], "handle")) && error_of(k->val) > 0)
		return (nvmlReturn_t)error_of(k->val);
	if ((k = find(&gpu_sec[index], "lost")) && strcmp(k->val, "1") == 0)
		return NVML_ERROR_GPU_IS_LOST;
	*device = &devs[index];
	return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
	return get_count("nvmlDeviceGetCount_v2", deviceCount);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	return get_handle("nvmlDeviceGetHandleByIndex_v2", index, device);
}
#endif

nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount)
{
	return get_count("nvmlDeviceGetCount", deviceCount);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
	return get_handle("nvmlDeviceGetHandleByIndex", index, device);
}

/* ---- identity and modes ------------------------------------------------------ */
#define STR_FN(fname, key) \
	nvmlReturn_t fname(nvmlDevice_t device, char *out, unsigned int length) \
	{ \
		DEV_PROLOGUE(#fname); \
		return str_out(sec, key, out, length); \
	}
#define U_FN(fname, key, scale) \
	nvmlReturn_t fname(nvmlDevice_t device, unsigned int *out) \
	{ \
		DEV_PROLOGUE(#fname); \
		return num_u(sec, key, scale, out); \
	}

STR_FN(nvmlDeviceGetName, "name")
STR_FN(nvmlDeviceGetUUID, "uuid")
STR_FN(nvmlDeviceGetSerial, "serial")
U_FN(nvmlDeviceGetMinorNumber, "minor_number", 1)
/* not in the old build: NVIDIA's 535.261.03 does not export it either */
#ifndef FAKE_NVML_OLD
U_FN(nvmlDeviceGetNumaNodeId, "numa_node", 1)
#endif
U_FN(nvmlDeviceGetFanSpeed, "fan_pct", 1)
U_FN(nvmlDeviceGetPowerUsage, "power_w", 1000)
U_FN(nvmlDeviceGetEnforcedPowerLimit, "power_limit_w", 1000)
U_FN(nvmlDeviceGetPowerManagementDefaultLimit, "power_default_limit_w", 1000)
U_FN(nvmlDeviceGetCurrPcieLinkGeneration, "pcie_gen", 1)
U_FN(nvmlDeviceGetMaxPcieLinkGeneration, "pcie_gen_max", 1)
U_FN(nvmlDeviceGetCurrPcieLinkWidth, "pcie_width", 1)
U_FN(nvmlDeviceGetMaxPcieLinkWidth, "pcie_width_max", 1)
U_FN(nvmlDeviceGetPcieReplayCounter, "pcie_replays", 1)

static nvmlReturn_t pci_info(const char *fn, nvmlDevice_t device, nvmlPciInfo_t *pci)
{
	char buf[64];
	unsigned int dom, bus, dev, func;
	DEV_PROLOGUE(fn);

	if ((rc = text(sec, "pci_bus_id", buf, sizeof buf)) != NVML_SUCCESS)
		return rc;
	if (sscanf(buf, "%x:%x:%x.%x", &dom, &bus, &dev, &func) != 4)
		return NVML_ERROR_UNKNOWN;
	memset(pci, 0, sizeof *pci);
	pci->domain = dom;
	pci->bus = bus;
	pci->device = dev;
	pci->pciDeviceId = 0x233010DE;
	snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.0", dom, bus, dev);
	snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", dom & 0xffff, bus, dev);
	return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
	return pci_info("nvmlDeviceGetPciInfo_v3", device, pci);
}
#endif

nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
	return pci_info("nvmlDeviceGetPciInfo_v2", device, pci);
}

#define ENUM_FN(fname, etype, key) \
	nvmlReturn_t fname(nvmlDevice_t device, etype *out) \
	{ \
		unsigned int v = 0; \
		DEV_PROLOGUE(#fname); \
		if ((rc = num_u(sec, key, 1, &v)) == NVML_SUCCESS) \
			*out = (etype)v; \
		return rc; \
	}

ENUM_FN(nvmlDeviceGetPersistenceMode, nvmlEnableState_t, "persistence_mode")
ENUM_FN(nvmlDeviceGetComputeMode, nvmlComputeMode_t, "compute_mode")
ENUM_FN(nvmlDeviceGetPerformanceState, nvmlPstates_t, "pstate")
ENUM_FN(nvmlDeviceGetRetiredPagesPendingStatus, nvmlEnableState_t, "retired_pages_pending")

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode)
{
	DEV_PROLOGUE("nvmlDeviceGetMigMode");
	if ((rc = num_u(sec, "mig_mode", 1, currentMode)) == NVML_SUCCESS)
		*pendingMode = *currentMode;
	return rc;
}

/* ---- thermal, utilisation, memory ------------------------------------------- */
static __attribute__((unused)) unsigned int wanted_version(const char *key, unsigned int ours)
{
	unsigned int v = ours;

	num_u(&sys_sec, key, 1, &v);
	return v;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_t *temperature)
{
	unsigned int t = 0;
	DEV_PROLOGUE("nvmlDeviceGetTemperatureV");

	if (temperature->version != wanted_version("temperature_version", nvmlTemperature_v1))
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	if (temperature->sensorType != NVML_TEMPERATURE_GPU)
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((rc = num_u(sec, "temp_c", 1, &t)) == NVML_SUCCESS)
		temperature->temperature = (int)t;
	return rc;
}
#endif

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType, unsigned int *temp)
{
	DEV_PROLOGUE("nvmlDeviceGetTemperature");
	if (sensorType != NVML_TEMPERATURE_GPU)
		return NVML_ERROR_INVALID_ARGUMENT;
	return num_u(sec, "temp_c", 1, temp);
}

nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device, nvmlTemperatureThresholds_t thresholdType,
					       unsigned int *temp)
{
	DEV_PROLOGUE("nvmlDeviceGetTemperatureThreshold");
	if (thresholdType == NVML_TEMPERATURE_THRESHOLD_SLOWDOWN)
		return num_u(sec, "temp_slowdown_c", 1, temp);
	if (thresholdType == NVML_TEMPERATURE_THRESHOLD_SHUTDOWN)
		return num_u(sec, "temp_shutdown_c", 1, temp);
	return NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization)
{
	DEV_PROLOGUE("nvmlDeviceGetUtilizationRates");
	if ((rc = num_u(sec, "util_gpu_pct", 1, &utilization->gpu)) != NVML_SUCCESS)
		return rc;
	return num_u(sec, "util_mem_pct", 1, &utilization->memory);
}

static nvmlReturn_t memory(struct section *sec, unsigned long long *total, unsigned long long *used)
{
	nvmlReturn_t rc = num(sec, "mem_total_bytes", 1, total);

	return rc != NVML_SUCCESS ? rc : num(sec, "mem_used_bytes", 1, used);
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *mem)
{
	DEV_PROLOGUE("nvmlDeviceGetMemoryInfo_v2");
	if (mem->version != wanted_version("memory_version", nvmlMemory_v2))
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	if ((rc = memory(sec, &mem->total, &mem->used)) == NVML_SUCCESS) {
		mem->reserved = 0;
		mem->free = mem->total - mem->used;
	}
	return rc;
}
#endif

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *mem)
{
	DEV_PROLOGUE("nvmlDeviceGetMemoryInfo");
	if ((rc = memory(sec, &mem->total, &mem->used)) == NVML_SUCCESS)
		mem->free = mem->total - mem->used;
	return rc;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy)
{
	DEV_PROLOGUE("nvmlDeviceGetTotalEnergyConsumption");
	return num(sec, "energy_mj", 1, energy);
}

/* ---- clocks -------------------------------------------------------------------- */
static nvmlReturn_t clock_of(struct section *sec, nvmlClockType_t type, const char *sm, const char *mem,
			     unsigned int *out)
{
	if (type == NVML_CLOCK_SM)
		return num_u(sec, sm, 1, out);
	if (type == NVML_CLOCK_MEM && mem)
		return num_u(sec, mem, 1, out);
	return NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
	DEV_PROLOGUE("nvmlDeviceGetClockInfo");
	return clock_of(sec, type, "sm_clock_mhz", "mem_clock_mhz", clock);
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
	DEV_PROLOGUE("nvmlDeviceGetMaxClockInfo");
	return clock_of(sec, type, "sm_clock_max_mhz", "mem_clock_max_mhz", clock);
}

nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t device, nvmlClockType_t clockType, unsigned int *clockMHz)
{
	DEV_PROLOGUE("nvmlDeviceGetApplicationsClock");
	return clock_of(sec, clockType, "app_sm_clock_mhz", NULL, clockMHz);
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *clocksEventReasons)
{
	DEV_PROLOGUE("nvmlDeviceGetCurrentClocksEventReasons");
	return num(sec, "clock_event_reasons", 1, clocksEventReasons);
}
#endif

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *clocksThrottleReasons)
{
	DEV_PROLOGUE("nvmlDeviceGetCurrentClocksThrottleReasons");
	return num(sec, "clock_event_reasons", 1, clocksThrottleReasons);
}

static nvmlReturn_t violation(struct section *sec, nvmlPerfPolicyType_t perfPolicyType, unsigned long long *ns)
{
	static const char *const keys[] = { "violation_power_ns", "violation_thermal_ns", "violation_sync_boost_ns",
					    "violation_board_limit_ns", NULL, "violation_reliability_ns" };

	if ((unsigned int)perfPolicyType >= sizeof keys / sizeof keys[0] || !keys[perfPolicyType])
		return NVML_ERROR_NOT_SUPPORTED;
	return num(sec, keys[perfPolicyType], 1, ns);
}

nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t device, nvmlPerfPolicyType_t perfPolicyType,
					  nvmlViolationTime_t *violTime)
{
	DEV_PROLOGUE("nvmlDeviceGetViolationStatus");
	violTime->referenceTime = 1700000000000000ULL;
	return violation(sec, perfPolicyType, &violTime->violationTime);
}

/* ---- PCIe, ECC, retirement, remapping ---------------------------------------- */
nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, nvmlPcieUtilCounter_t counter, unsigned int *value)
{
	DEV_PROLOGUE("nvmlDeviceGetPcieThroughput");
	return num_u(sec, counter == NVML_PCIE_UTIL_TX_BYTES ? "pcie_tx_kbps" : "pcie_rx_kbps", 1, value);
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current, nvmlEnableState_t *pending)
{
	unsigned int v = 0;
	DEV_PROLOGUE("nvmlDeviceGetEccMode");

	if ((rc = num_u(sec, "ecc_mode", 1, &v)) == NVML_SUCCESS)
		*current = *pending = (nvmlEnableState_t)v;
	return rc;
}

static nvmlReturn_t ecc_total(struct section *sec, nvmlMemoryErrorType_t errorType, nvmlEccCounterType_t counterType,
			      unsigned long long *eccCounts)
{
	char key[64];

	snprintf(key, sizeof key, "ecc_%s_%s", errorType == NVML_MEMORY_ERROR_TYPE_CORRECTED ? "corrected" : "uncorrected",
		 counterType == NVML_VOLATILE_ECC ? "volatile" : "aggregate");
	return num(sec, key, 1, eccCounts);
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
					 nvmlEccCounterType_t counterType, unsigned long long *eccCounts)
{
	DEV_PROLOGUE("nvmlDeviceGetTotalEccErrors");
	return ecc_total(sec, errorType, counterType, eccCounts);
}

nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause, unsigned int *pageCount,
				       unsigned long long *addresses)
{
	unsigned int n = 0;
	DEV_PROLOGUE("nvmlDeviceGetRetiredPages");

	rc = num_u(sec, cause == NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR ? "retired_pages_dbe" : "retired_pages_sbe",
		   1, &n);
	if (rc != NVML_SUCCESS)
		return rc;
	if (*pageCount < n) {
		*pageCount = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (unsigned int i = 0; addresses && i < n; i++)
		addresses[i] = 0x1000ULL * (i + 1);
	*pageCount = n;
	return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows, unsigned int *uncRows,
				       unsigned int *isPending, unsigned int *failureOccurred)
{
	DEV_PROLOGUE("nvmlDeviceGetRemappedRows");
	if ((rc = num_u(sec, "remap_corrected", 1, corrRows)) != NVML_SUCCESS ||
	    (rc = num_u(sec, "remap_uncorrected", 1, uncRows)) != NVML_SUCCESS ||
	    (rc = num_u(sec, "remap_pending", 1, isPending)) != NVML_SUCCESS)
		return rc;
	return num_u(sec, "remap_failure", 1, failureOccurred);
}
#endif

/* ---- NVLink -------------------------------------------------------------------- */
static nvmlReturn_t nvlink_state(struct section *sec, unsigned int link, nvmlEnableState_t *isActive)
{
	unsigned int links = 0, up = 0;
	nvmlReturn_t rc;

	if ((rc = num_u(sec, "nvlink_links", 1, &links)) != NVML_SUCCESS)
		return rc;
	if (link >= links)
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((rc = num_u(sec, "nvlink_up_links", 1, &up)) != NVML_SUCCESS)
		return rc;
	*isActive = link < up ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t *isActive)
{
	DEV_PROLOGUE("nvmlDeviceGetNvLinkState");
	return nvlink_state(sec, link, isActive);
}

static nvmlReturn_t nvlink_counter(struct section *sec, unsigned int link, nvmlNvLinkErrorCounter_t counter,
				   unsigned long long *counterValue)
{
	unsigned long long total = 0;
	nvmlReturn_t rc;

	if ((rc = num(sec, "nvlink_errors", 1, &total)) != NVML_SUCCESS)
		return rc;
	/* All on link 0's replay counter; the rest read 0. */
	*counterValue = link == 0 && counter == NVML_NVLINK_ERROR_DL_REPLAY ? total : 0;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link, nvmlNvLinkErrorCounter_t counter,
					     unsigned long long *counterValue)
{
	DEV_PROLOGUE("nvmlDeviceGetNvLinkErrorCounter");
	return nvlink_counter(sec, link, counter, counterValue);
}

/* ---- field values --------------------------------------------------------------- */
/* The per-link NVLink error counter field ids (link in the id, L0-L11), as
 * counter * 100 + link; -1 for another id. */
static int lx_counter(unsigned int id)
{
	static const struct {
		unsigned int l0, l6;
		nvmlNvLinkErrorCounter_t counter;
	} lx[] = {
		{ NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L0, NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L6,
		  NVML_NVLINK_ERROR_DL_CRC_FLIT },
		{ NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L0, NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L6,
		  NVML_NVLINK_ERROR_DL_CRC_DATA },
		{ NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L0, NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L6,
		  NVML_NVLINK_ERROR_DL_REPLAY },
		{ NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L0, NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L6,
		  NVML_NVLINK_ERROR_DL_RECOVERY },
	};

	for (size_t i = 0; i < sizeof lx / sizeof lx[0]; i++) {
		if (id >= lx[i].l0 && id < lx[i].l0 + 6)
			return (int)lx[i].counter * 100 + (int)(id - lx[i].l0);
		if (id >= lx[i].l6 && id < lx[i].l6 + 6)
			return (int)lx[i].counter * 100 + 6 + (int)(id - lx[i].l6);
	}
	return -1;
}

/* One field, from the key its call answers from (the same reads, so a list
 * advances as the call's would). */
static nvmlReturn_t field_answer(struct section *sec, nvmlFieldValue_t *f)
{
	nvmlValue_t *v = &f->value;
	int lx = lx_counter(f->fieldId);

	f->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
	if (lx >= 0) /* the 12.9 header: the link in scopeId too */
		return f->scopeId == (unsigned int)lx % 100
			       ? nvlink_counter(sec, f->scopeId, (nvmlNvLinkErrorCounter_t)(lx / 100), &v->ullVal)
			       : NVML_ERROR_INVALID_ARGUMENT;
	switch (f->fieldId) {
	case NVML_FI_DEV_ECC_SBE_VOL_TOTAL:
	case NVML_FI_DEV_ECC_DBE_VOL_TOTAL:
	case NVML_FI_DEV_ECC_SBE_AGG_TOTAL:
	case NVML_FI_DEV_ECC_DBE_AGG_TOTAL:
		return ecc_total(sec, (f->fieldId - NVML_FI_DEV_ECC_SBE_VOL_TOTAL) % 2, (f->fieldId - 3) / 2, &v->ullVal);
	case NVML_FI_DEV_PERF_POLICY_POWER:
	case NVML_FI_DEV_PERF_POLICY_THERMAL:
	case NVML_FI_DEV_PERF_POLICY_SYNC_BOOST:
	case NVML_FI_DEV_PERF_POLICY_BOARD_LIMIT:
	case NVML_FI_DEV_PERF_POLICY_RELIABILITY:
		return violation(sec, f->fieldId - NVML_FI_DEV_PERF_POLICY_POWER, &v->ullVal);
	case NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION:
		return num(sec, "energy_mj", 1, &v->ullVal);
	default:
		break;
	}
	f->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
	switch (f->fieldId) {
	case NVML_FI_DEV_ECC_CURRENT:
		return num_u(sec, "ecc_mode", 1, &v->uiVal);
	case NVML_FI_DEV_RETIRED_SBE:
		return num_u(sec, "retired_pages_sbe", 1, &v->uiVal);
	case NVML_FI_DEV_RETIRED_DBE:
		return num_u(sec, "retired_pages_dbe", 1, &v->uiVal);
	case NVML_FI_DEV_RETIRED_PENDING:
		return num_u(sec, "retired_pages_pending", 1, &v->uiVal);
	case NVML_FI_DEV_PCIE_REPLAY_COUNTER:
		return num_u(sec, "pcie_replays", 1, &v->uiVal);
	case NVML_FI_DEV_GET_GPU_RECOVERY_ACTION:
		return num_u(sec, "recovery_action", 1, &v->uiVal);
#ifndef FAKE_NVML_OLD
	case NVML_FI_DEV_REMAPPED_COR:
		return num_u(sec, "remap_corrected", 1, &v->uiVal);
	case NVML_FI_DEV_REMAPPED_UNC:
		return num_u(sec, "remap_uncorrected", 1, &v->uiVal);
	case NVML_FI_DEV_REMAPPED_PENDING:
		return num_u(sec, "remap_pending", 1, &v->uiVal);
	case NVML_FI_DEV_REMAPPED_FAILURE:
		return num_u(sec, "remap_failure", 1, &v->uiVal);
	case NVML_FI_DEV_NVLINK_GET_STATE: {
		nvmlEnableState_t st = NVML_FEATURE_DISABLED;
		nvmlReturn_t rc = nvlink_state(sec, f->scopeId, &st);

		if (rc == NVML_SUCCESS)
			v->uiVal = st == NVML_FEATURE_ENABLED; /* NVML_NVLINK_STATE_ACTIVE 1, _INACTIVE 0 */
		return rc;
	}
	case NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY:
	case NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY:
		f->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
		return nvlink_counter(sec, f->scopeId,
				      f->fieldId == NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY ? NVML_NVLINK_ERROR_DL_REPLAY
										: NVML_NVLINK_ERROR_DL_RECOVERY,
				      &v->ullVal);
#endif
	default:
		/* an id this "driver" does not know (the old build: the 11.8
		 * header's NVLink ids, and 142-145, as it lacks
		 * nvmlDeviceGetRemappedRows) */
		return NVML_ERROR_INVALID_ARGUMENT;
	}
}

/* field_error = ID[@SCOPE]:ERROR ...: the error forced on this field, or -1. */
static int field_error(struct section *sec, const nvmlFieldValue_t *f)
{
	struct kv *k = find(sec, "field_error");
	const char *p = k ? k->val : "";

	while (*p) {
		char tok[64], *colon, *at;
		size_t n = strcspn(p, " \t");

		snprintf(tok, sizeof tok, "%.*s", (int)n, p);
		p += n;
		p += strspn(p, " \t");
		if (!(colon = strchr(tok, ':')))
			continue;
		*colon = '\0';
		at = strchr(tok, '@');
		if (strtoul(tok, NULL, 10) == f->fieldId && (!at || strtoul(at + 1, NULL, 10) == f->scopeId))
			return error_of(colon + 1);
	}
	return -1;
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values)
{
	struct kv *k;
	DEV_PROLOGUE("nvmlDeviceGetFieldValues");

	if ((k = find(sec, "field_values")) && error_of(k->val) > 0)
		return (nvmlReturn_t)error_of(k->val);
	if (valuesCount < 0 || (valuesCount > 0 && !values))
		return NVML_ERROR_INVALID_ARGUMENT;
	for (int i = 0; i < valuesCount; i++) {
		nvmlFieldValue_t *f = &values[i];
		int forced = field_error(sec, f);

		f->timestamp = 1700000000000000LL;
		f->latencyUsec = 0;
		f->nvmlReturn = forced >= 0 ? (nvmlReturn_t)forced : field_answer(sec, f);
		if (f->nvmlReturn != NVML_SUCCESS)
			f->value.ullVal = 0xDEADBEEFDEADBEEFULL; /* "undefined": a reader must not take it */
	}
	return NVML_SUCCESS;
}

/* ---- processes ------------------------------------------------------------------ */
/* Parses "pid:a[:b] ..." into up to max entries; returns how many. */
static size_t triples(const char *v, unsigned int *pid, unsigned long long *a, unsigned long long *b, size_t max)
{
	size_t n = 0;

	while (*v && n < max) {
		char *end;

		while (*v == ' ' || *v == '\t')
			v++;
		if (!*v)
			break;
		pid[n] = (unsigned int)strtoul(v, &end, 10);
		a[n] = b[n] = 0;
		if (*end == ':')
			a[n] = strtoull(end + 1, &end, 10);
		if (*end == ':')
			b[n] = strtoull(end + 1, &end, 10);
		if (end == v)
			break;
		v = end;
		n++;
	}
	return n;
}

/* procs_file = PATH: the list in PATH now (as procs); none when it cannot
 * be read.  The test replaces PATH with rename(2), so a read sees one list. */
static size_t procs_from_file(const char *path, unsigned int *pid, unsigned long long *a, unsigned long long *b,
			      size_t max)
{
	static char buf[65536];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (char *c = buf; *c; c++)
		if (*c == '\n')
			*c = ' ';
	return triples(buf, pid, a, b, max);
}

static nvmlReturn_t proc_list(const char *fn, nvmlDevice_t device, unsigned int *infoCount, void *infos, int v1,
			      const char *key)
{
	static unsigned int pid[MAX_PROCS];
	static unsigned long long mem[MAX_PROCS], unused[MAX_PROCS];
	unsigned int grow = 0;
	size_t n = 0;
	struct kv *k;
	DEV_PROLOGUE(fn);

	if ((k = find(sec, key))) {
		if (error_of(k->val) >= 0)
			return (nvmlReturn_t)error_of(k->val);
		n = triples(k->val, pid, mem, unused, MAX_PROCS);
	}
	if (strcmp(key, "procs") == 0 && find(sec, "procs_file"))
		n = procs_from_file(find(sec, "procs_file")->val, pid, mem, unused, MAX_PROCS);
	if (strcmp(key, "procs") == 0) {
		num_u(sec, "procs_grow", 1, &grow);
		sec->proc_calls++;
	}
	for (unsigned int i = 0; i < grow * sec->proc_calls && n < MAX_PROCS; i++, n++) {
		pid[n] = 100000 + (unsigned int)n;
		mem[n] = 1ULL << 20;
	}
	if (*infoCount < n || (n && !infos)) {
		*infoCount = (unsigned int)n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (size_t i = 0; i < n; i++) {
		if (v1) {
			nvmlProcessInfo_v1_t *p = (nvmlProcessInfo_v1_t *)infos + i;

			p->pid = pid[i];
			p->usedGpuMemory = mem[i];
		} else {
			nvmlProcessInfo_t *p = (nvmlProcessInfo_t *)infos + i;

			p->pid = pid[i];
			p->usedGpuMemory = mem[i];
			p->gpuInstanceId = p->computeInstanceId = 0xFFFFFFFFu;
		}
	}
	*infoCount = (unsigned int)n;
	return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
						     nvmlProcessInfo_t *infos)
{
	return proc_list("nvmlDeviceGetComputeRunningProcesses_v3", device, infoCount, infos, 0, "procs");
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
						     nvmlProcessInfo_t *infos)
{
	return proc_list("nvmlDeviceGetComputeRunningProcesses_v2", device, infoCount, infos, 0, "procs");
}
#endif

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
						  nvmlProcessInfo_v1_t *infos)
{
	return proc_list("nvmlDeviceGetComputeRunningProcesses", device, infoCount, infos, 1, "procs");
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
						      nvmlProcessInfo_t *infos)
{
	return proc_list("nvmlDeviceGetGraphicsRunningProcesses_v3", device, infoCount, infos, 0, "graphics_procs");
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
						      nvmlProcessInfo_t *infos)
{
	return proc_list("nvmlDeviceGetGraphicsRunningProcesses_v2", device, infoCount, infos, 0, "graphics_procs");
}
#endif

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
						   nvmlProcessInfo_v1_t *infos)
{
	return proc_list("nvmlDeviceGetGraphicsRunningProcesses", device, infoCount, infos, 1, "graphics_procs");
}

nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t *utilization,
					     unsigned int *processSamplesCount, unsigned long long lastSeenTimeStamp)
{
	static unsigned int pid[MAX_PROCS];
	static unsigned long long sm[MAX_PROCS], mem[MAX_PROCS];
	size_t n;
	struct kv *k;
	DEV_PROLOGUE("nvmlDeviceGetProcessUtilization");

	(void)lastSeenTimeStamp;
	if (!(k = find(sec, "proc_util")))
		return NVML_ERROR_NOT_SUPPORTED;
	if (error_of(k->val) >= 0)
		return (nvmlReturn_t)error_of(k->val);
	n = triples(k->val, pid, sm, mem, MAX_PROCS);
	if (!n)
		return NVML_ERROR_NOT_FOUND;
	if (!utilization || *processSamplesCount < n) {
		*processSamplesCount = (unsigned int)n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (size_t i = 0; i < n; i++) {
		memset(&utilization[i], 0, sizeof utilization[i]);
		utilization[i].pid = pid[i];
		utilization[i].timeStamp = 1700000000000000ULL + i;
		utilization[i].smUtil = (unsigned int)sm[i];
		utilization[i].memUtil = (unsigned int)mem[i];
	}
	*processSamplesCount = (unsigned int)n;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetSamples(nvmlDevice_t device, nvmlSamplingType_t type, unsigned long long lastSeenTimeStamp,
				  nvmlValueType_t *sampleValType, unsigned int *sampleCount, nvmlSample_t *samples)
{
	static unsigned int age[MAX_PROCS];
	static unsigned long long pct[MAX_PROCS], unused[MAX_PROCS];
	unsigned long long now_us;
	struct timespec ts;
	size_t n, m = 0;
	struct kv *k;
	DEV_PROLOGUE("nvmlDeviceGetSamples");

	if (type != NVML_GPU_UTILIZATION_SAMPLES || !(k = find(sec, "util_samples")))
		return NVML_ERROR_NOT_SUPPORTED;
	if (error_of(k->val) >= 0)
		return (nvmlReturn_t)error_of(k->val);
	clock_gettime(CLOCK_REALTIME, &ts);
	now_us = (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000;
	n = triples(k->val, age, pct, unused, MAX_PROCS);
	for (size_t i = 0; i < n; i++) {
		unsigned long long t = now_us - (unsigned long long)age[i] * 1000ull;

		if (t <= lastSeenTimeStamp)
			continue;
		if (samples) {
			if (m >= *sampleCount)
				return NVML_ERROR_INSUFFICIENT_SIZE;
			samples[m].timeStamp = t;
			samples[m].sampleValue.uiVal = (unsigned int)pct[i];
		}
		m++;
	}
	if (!m)
		return NVML_ERROR_NOT_FOUND;
	*sampleValType = NVML_VALUE_TYPE_UNSIGNED_INT;
	*sampleCount = (unsigned int)m;
	return NVML_SUCCESS;
}

/* ---- GPM ------------------------------------------------------------------------ */
#ifndef FAKE_NVML_OLD
/* A number of key for this call, as a double. */
static nvmlReturn_t dbl(struct section *sec, const char *key, double *out)
{
	char buf[64], *end;
	nvmlReturn_t rc = text(sec, key, buf, sizeof buf);

	if (rc != NVML_SUCCESS)
		return rc;
	*out = strtod(buf, &end);
	if (end == buf || *end) {
		fprintf(stderr, "fake_nvml: %s = %s: not a number\n", key, buf);
		return NVML_ERROR_UNKNOWN;
	}
	return NVML_SUCCESS;
}

/* gpm = 1: supported; 0 or absent: not (a pre-Hopper GPU); an error name:
 * the calls fail with it. */
static nvmlReturn_t gpm_state(struct section *sec, unsigned int *on)
{
	struct kv *k = find(sec, "gpm");

	*on = 0;
	if (!k)
		return NVML_SUCCESS;
	if (error_of(k->val) >= 0)
		return (nvmlReturn_t)error_of(k->val);
	*on = (unsigned int)strtoul(k->val, NULL, 0);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t *gpmSupport)
{
	unsigned int on = 0;
	DEV_PROLOGUE("nvmlGpmQueryDeviceSupport");

	if (!gpmSupport)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (gpmSupport->version != NVML_GPM_SUPPORT_VERSION)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	if ((rc = gpm_state(sec, &on)) != NVML_SUCCESS)
		return rc;
	gpmSupport->isSupportedDevice = on != 0;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *gpmSample)
{
	nvmlReturn_t rc = enter_sys("nvmlGpmSampleAlloc");

	if (rc != NVML_SUCCESS)
		return rc;
	if (!gpmSample)
		return NVML_ERROR_INVALID_ARGUMENT;
	*gpmSample = calloc(1, sizeof **gpmSample);
	if (!*gpmSample)
		return NVML_ERROR_MEMORY;
	__atomic_add_fetch(&gpm_samples, 1, __ATOMIC_SEQ_CST);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t gpmSample)
{
	nvmlReturn_t rc = enter_sys("nvmlGpmSampleFree");

	if (rc != NVML_SUCCESS)
		return rc;
	if (!gpmSample)
		return NVML_ERROR_INVALID_ARGUMENT;
	free(gpmSample);
	__atomic_sub_fetch(&gpm_samples, 1, __ATOMIC_SEQ_CST);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t gpmSample)
{
	unsigned int on = 0;
	DEV_PROLOGUE("nvmlGpmSampleGet");

	if (!gpmSample)
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((rc = gpm_state(sec, &on)) != NVML_SUCCESS)
		return rc;
	if (!on)
		return NVML_ERROR_NOT_SUPPORTED;
	gpmSample->dev = device->idx;
	gpmSample->seq = ++sec->gpm_seq;
	return NVML_SUCCESS;
}

/* Each call computes the next value of every metric's list. */
nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *m)
{
	static const struct {
		unsigned int id;
		const char *key;
	} keys[] = {
		{ NVML_GPM_METRIC_GRAPHICS_UTIL, "gpm_graphics_pct" },
		{ NVML_GPM_METRIC_SM_UTIL, "gpm_sm_pct" },
		{ NVML_GPM_METRIC_SM_OCCUPANCY, "gpm_sm_occupancy_pct" },
		{ NVML_GPM_METRIC_PCIE_TX_PER_SEC, "gpm_pcie_tx_mib_s" },
		{ NVML_GPM_METRIC_PCIE_RX_PER_SEC, "gpm_pcie_rx_mib_s" },
		{ NVML_GPM_METRIC_ANY_TENSOR_UTIL, "gpm_tensor_pct" },
		{ NVML_GPM_METRIC_DRAM_BW_UTIL, "gpm_dram_bw_pct" },
		{ NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, "gpm_nvlink_rx_mib_s" },
		{ NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, "gpm_nvlink_tx_mib_s" },
	};
	nvmlReturn_t rc = enter_sys("nvmlGpmMetricsGet");
	struct section *sec;

	if (rc != NVML_SUCCESS)
		return rc;
	if (!m)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (m->version != NVML_GPM_METRICS_GET_VERSION)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	/* two samples of one GPU, the second taken after the first */
	if (!m->sample1 || !m->sample2 || m->sample1->dev != m->sample2->dev || !m->sample1->seq ||
	    m->sample2->seq <= m->sample1->seq || m->sample1->dev >= ngpus || m->numMetrics > NVML_GPM_METRIC_MAX)
		return NVML_ERROR_INVALID_ARGUMENT;
	sec = &gpu_sec[m->sample1->dev];
	for (unsigned int i = 0; i < m->numMetrics; i++) {
		nvmlGpmMetric_t *x = &m->metrics[i];

		x->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
		x->value = 0;
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
			if (keys[k].id == x->metricId)
				x->nvmlReturn = dbl(sec, keys[k].key, &x->value);
	}
	return NVML_SUCCESS;
}
#endif

/* ---- the NVSwitch fabric ------------------------------------------------------ */
/* fabric_state (0-3, or an error name the call answers), fabric_status (an
 * error name or a number: the fabric's nvmlReturn_t), fabric_health_mask
 * (mask NULL: the 12.2 struct has none), into either struct's fields. */
static nvmlReturn_t fabric_of(struct section *sec, unsigned char *uuid, nvmlReturn_t *status, unsigned int *clique,
			      nvmlGpuFabricState_t *state, unsigned int *mask)
{
	struct kv *k = find(sec, "fabric_status");
	unsigned int st = 0;
	nvmlReturn_t rc = num_u(sec, "fabric_state", 1, &st);

	if (rc != NVML_SUCCESS)
		return rc;
	memset(uuid, 0x5a, NVML_GPU_FABRIC_UUID_LEN);
	*status = NVML_SUCCESS;
	if (k)
		*status = error_of(k->val) >= 0 ? (nvmlReturn_t)error_of(k->val) : (nvmlReturn_t)strtoul(k->val, NULL, 0);
	*clique = 1;
	*state = (nvmlGpuFabricState_t)st;
	if (mask) {
		*mask = 0;
		num_u(sec, "fabric_health_mask", 1, mask);
	}
	return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfoV_t *info)
{
	DEV_PROLOGUE("nvmlDeviceGetGpuFabricInfoV");

	if (!info)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (info->version != wanted_version("fabric_version", nvmlGpuFabricInfo_v2))
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	return fabric_of(sec, info->clusterUuid, &info->status, &info->cliqueId, &info->state, &info->healthMask);
}
#endif

nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t *info)
{
	DEV_PROLOGUE("nvmlDeviceGetGpuFabricInfo");

	if (!info)
		return NVML_ERROR_INVALID_ARGUMENT;
	return fabric_of(sec, info->clusterUuid, &info->status, &info->cliqueId, &info->state, NULL);
}
