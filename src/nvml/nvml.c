/*
 * nvml.c - the NVML loader: dlopen, one symbol table, one worker thread with
 * a deadline on every call, init and a balanced shutdown.  See nvml.h.
 *
 * Why a worker thread: when a GPU wedges, NVML calls against it can block
 * for minutes (FACTS.md 1.1).  A monitor that blocks with it serves nothing
 * or stale numbers; gpudoctor instead reports the call that did not return
 * (gpu.monitor_stuck) and finishes the run.  A blocked thread cannot be
 * cancelled safely inside a driver, so it is abandoned: it holds a reference
 * to the shared state (struct worker) and frees it if it ever returns after
 * the handle was closed.  The library is then never dlclose()d under it.
 */
#include "nvml/nvml.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "model/snapshot.h"
#include "nvml/nvml_worker.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define INIT_NOT_REACHED (-2)

/* ---- the symbol table ---------------------------------------------------- */
struct sym_row {
	const char *names[4]; /* candidates, newest first, NULL-terminated */
	bool required;
	size_t off;           /* offset of the pointer in struct gd_nvml_api */
	const char *group;    /* rows of one group are alternatives (other ABIs) */
};

#define REQ(member, ...) { { __VA_ARGS__, NULL }, true, offsetof(struct gd_nvml_api, member), NULL }
#define OPT(member, ...) { { __VA_ARGS__, NULL }, false, offsetof(struct gd_nvml_api, member), NULL }
#define ALT(group, member, ...) { { __VA_ARGS__, NULL }, false, offsetof(struct gd_nvml_api, member), group }

static const struct sym_row sym_table[] = {
	REQ(init, "nvmlInit_v2", "nvmlInit"),
	REQ(shutdown, "nvmlShutdown"),
	REQ(count, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"),
	REQ(handle, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"),
	OPT(error_string, "nvmlErrorString"),
	OPT(driver_version, "nvmlSystemGetDriverVersion"),
	OPT(nvml_version, "nvmlSystemGetNVMLVersion"),
	OPT(cuda_version, "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"),
	OPT(name, "nvmlDeviceGetName"),
	OPT(uuid, "nvmlDeviceGetUUID"),
	OPT(serial, "nvmlDeviceGetSerial"),
	/* The unversioned nvmlDeviceGetPciInfo has an older layout: not used. */
	OPT(pci, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"),
	OPT(minor, "nvmlDeviceGetMinorNumber"),
	OPT(numa, "nvmlDeviceGetNumaNodeId"),
	OPT(persistence, "nvmlDeviceGetPersistenceMode"),
	OPT(compute_mode, "nvmlDeviceGetComputeMode"),
	OPT(mig_mode, "nvmlDeviceGetMigMode"),
	ALT("temperature", temp_v, "nvmlDeviceGetTemperatureV"),
	ALT("temperature", temp, "nvmlDeviceGetTemperature"),
	OPT(temp_threshold, "nvmlDeviceGetTemperatureThreshold"),
	OPT(fan, "nvmlDeviceGetFanSpeed"),
	OPT(util, "nvmlDeviceGetUtilizationRates"),
	ALT("memory", mem_v2, "nvmlDeviceGetMemoryInfo_v2"),
	ALT("memory", mem_v1, "nvmlDeviceGetMemoryInfo"),
	OPT(power, "nvmlDeviceGetPowerUsage"),
	OPT(power_limit, "nvmlDeviceGetEnforcedPowerLimit"),
	OPT(power_default_limit, "nvmlDeviceGetPowerManagementDefaultLimit"),
	OPT(energy, "nvmlDeviceGetTotalEnergyConsumption"),
	OPT(clock, "nvmlDeviceGetClockInfo"),
	OPT(max_clock, "nvmlDeviceGetMaxClockInfo"),
	OPT(app_clock, "nvmlDeviceGetApplicationsClock"),
	OPT(pstate, "nvmlDeviceGetPerformanceState"),
	OPT(clock_reasons, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"),
	OPT(violation, "nvmlDeviceGetViolationStatus"),
	OPT(pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration"),
	OPT(pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration"),
	OPT(pcie_width, "nvmlDeviceGetCurrPcieLinkWidth"),
	OPT(pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth"),
	OPT(pcie_throughput, "nvmlDeviceGetPcieThroughput"),
	OPT(pcie_replay, "nvmlDeviceGetPcieReplayCounter"),
	OPT(ecc_mode, "nvmlDeviceGetEccMode"),
	OPT(ecc_total, "nvmlDeviceGetTotalEccErrors"),
	OPT(retired_pages, "nvmlDeviceGetRetiredPages"),
	OPT(retired_pending, "nvmlDeviceGetRetiredPagesPendingStatus"),
	OPT(remapped_rows, "nvmlDeviceGetRemappedRows"),
	OPT(field_values, "nvmlDeviceGetFieldValues"),
	OPT(nvlink_state, "nvmlDeviceGetNvLinkState"),
	OPT(nvlink_errors, "nvmlDeviceGetNvLinkErrorCounter"),
	/* _v3 and _v2 take the 24-byte v2 struct; the v1 name the 16-byte one. */
	ALT("processes", procs, "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"),
	ALT("processes", procs_v1, "nvmlDeviceGetComputeRunningProcesses"),
	ALT("graphics processes", gprocs, "nvmlDeviceGetGraphicsRunningProcesses_v3",
	    "nvmlDeviceGetGraphicsRunningProcesses_v2"),
	ALT("graphics processes", gprocs_v1, "nvmlDeviceGetGraphicsRunningProcesses"),
	OPT(proc_util, "nvmlDeviceGetProcessUtilization"),
	OPT(samples, "nvmlDeviceGetSamples"),
	/* GPM (already in the 11.8 header of Debian's libnvidia-ml-dev, R520; answers on Hopper and newer) */
	OPT(gpm_support, "nvmlGpmQueryDeviceSupport"),
	OPT(gpm_alloc, "nvmlGpmSampleAlloc"),
	OPT(gpm_free, "nvmlGpmSampleFree"),
	OPT(gpm_get, "nvmlGpmSampleGet"),
	OPT(gpm_metrics, "nvmlGpmMetricsGet"),
	/* the NVSwitch fabric state (12.2 header; the versioned call from 12.4) */
	ALT("fabric", fabric_v, "nvmlDeviceGetGpuFabricInfoV"),
	ALT("fabric", fabric, "nvmlDeviceGetGpuFabricInfo"),
};

/* ---- the worker: struct worker is in nvml_worker.h ----------------------- */
struct gd_nvml {
	struct worker *w;
	pthread_t thread;
	bool have_thread, inited;
	enum gd_nvml_state state;
	int init_rc;
	double timeout_s;
	char library[256];
	char reason[1024];
	char missing[1024];
	char stuck_call[128];
	struct nvml_kept *kept;   /* gd_nvml_cached's answers */
	size_t nkept, capkept;
};

struct nvml_kept {
	int gpu;
	unsigned int arg;
	const char *what;        /* a string literal of the caller's */
	struct gd_nvml_io io;
};

/* Frees the shared state when the last holder lets go.  Called with mu
 * held; unlocks it. */
static void worker_unref(struct worker *w)
{
	bool last = --w->refs == 0;

	pthread_mutex_unlock(&w->mu);
	if (!last)
		return;
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w->io.buf); /* non-NULL only when an abandoned call owned it */
	gd__act_free(w->act);
	if (w->dl)
		dlclose(w->dl);
	free(w);
}

/* Between calls the thread samples the GPUs gd_nvml_act_start named, one
 * GPU per turn of the loop, so that a call waits behind one reading at
 * most; a call pauses the sampling until the next start. */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct timespec due, now;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->job && !w->quit) {
			if (w->act_paused || !gd__act_due(w->act, &due)) {
				pthread_cond_wait(&w->cv, &w->mu);
				continue;
			}
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > due.tv_sec || (now.tv_sec == due.tv_sec && now.tv_nsec >= due.tv_nsec)) {
				pthread_mutex_unlock(&w->mu);
				gd__act_step(w);
				pthread_mutex_lock(&w->mu);
			} else {
				pthread_cond_timedwait(&w->cv, &w->mu, &due);
			}
		}
		if (w->quit && !w->job)
			break;
		pthread_mutex_unlock(&w->mu);
		/* The io copy is ours alone until done is set. */
		w->ret = w->fn(&w->api, &w->io);
		pthread_mutex_lock(&w->mu);
		if (w->act_resume)
			w->act_paused = false;
		w->act_resume = false;
		w->job = false;
		w->done = true;
		pthread_cond_broadcast(&w->cv);
	}
	worker_unref(w);
	return NULL;
}

static void deadline_after(struct timespec *ts, double s)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += (time_t)s;
	ts->tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

int gd_nvml_call(struct gd_nvml *nv, const char *what, int gpu, gd_nvml_fn fn, struct gd_nvml_io *io)
{
	struct worker *w = nv->w;
	struct timespec dl;
	int rc = 0;

	if (nv->state == GD_NVML_STUCK || !nv->have_thread)
		return GD_NVML_RC_STUCK;
	deadline_after(&dl, nv->timeout_s);
	pthread_mutex_lock(&w->mu);
	w->act_paused = true;
	w->io = *io;
	w->fn = fn;
	w->done = false;
	w->job = true;
	pthread_cond_broadcast(&w->cv);
	while (!w->done && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&w->cv, &w->mu, &dl);
	if (!w->done) {
		/* Abandoned: the worker keeps its copy and the list buffer. */
		const char *bg = w->bg_what;
		int bg_gpu = w->bg_gpu;

		pthread_mutex_unlock(&w->mu);
		io->buf = NULL;
		nv->state = GD_NVML_STUCK;
		if (bg) {
			/* the thread never got to this call: a sampling call hangs */
			snprintf(nv->stuck_call, sizeof nv->stuck_call, "%s (GPU %d)", bg, bg_gpu);
			snprintf(nv->reason, sizeof nv->reason,
				 _("%s (sub-second sampling) did not return within %g s: the driver is hung; no further "
				   "NVML calls were made"), nv->stuck_call, nv->timeout_s);
			return GD_NVML_RC_STUCK;
		}
		if (gpu >= 0)
			snprintf(nv->stuck_call, sizeof nv->stuck_call, "%s (GPU %d)", what, gpu);
		else
			snprintf(nv->stuck_call, sizeof nv->stuck_call, "%s", what);
		snprintf(nv->reason, sizeof nv->reason,
			 _("%s did not return within %g s: the driver is hung; no further NVML calls were made"),
			 nv->stuck_call, nv->timeout_s);
		return GD_NVML_RC_STUCK;
	}
	*io = w->io;
	w->io.buf = NULL;
	rc = (int)w->ret;
	pthread_mutex_unlock(&w->mu);
	return rc;
}

/* ---- loading ------------------------------------------------------------- */
static void *try_dlopen(struct gd_nvml *nv, const char *name, bool *not_found)
{
	void *h;

	GD_STRSET(nv->library, name);
	dlerror();
	h = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();

		*not_found = strchr(name, '/') ? access(name, F_OK) != 0 && errno == ENOENT
					       : !e || strstr(e, "No such file") != NULL ||
						 strstr(e, strerror(ENOENT)) != NULL; /* dlerror() speaks the locale */
		snprintf(nv->reason, sizeof nv->reason, "%s", e ? e : _("dlopen failed"));
	}
	return h;
}

static void *open_library(struct gd_nvml *nv, const char *path)
{
	static const char *const names[] = { GD_NVML_SONAME, "libnvidia-ml.so" };
	bool not_found = true;
	void *h;

	if (path && path[0]) {
		h = try_dlopen(nv, path, &not_found);
		if (!h && not_found) {
			nv->state = GD_NVML_ABSENT;
			snprintf(nv->reason, sizeof nv->reason, _("%s: no such file (given by --nvml or GPUDOCTOR_NVML)"),
				 path);
		} else if (!h) {
			nv->state = GD_NVML_FAILED;
		}
		return h;
	}
	for (size_t i = 0; i < N(names); i++) {
		bool nf = true;

		h = try_dlopen(nv, names[i], &nf);
		if (h)
			return h;
		not_found = not_found && nf;
		if (!nf)
			break; /* present but unloadable: say why, do not hide it */
	}
	if (not_found) {
		nv->state = GD_NVML_ABSENT;
		GD_STRSET(nv->library, GD_NVML_SONAME);
		snprintf(nv->reason, sizeof nv->reason,
			 _("%s not found (no NVIDIA driver, or a container without the NVIDIA runtime)"), GD_NVML_SONAME);
	} else {
		nv->state = GD_NVML_FAILED;
	}
	return NULL;
}

static void append(char *dst, size_t dstsz, const char *word)
{
	size_t n = strlen(dst);

	snprintf(dst + n, dstsz - n, "%s%s", n ? ", " : "", word);
}

/* Resolves every row; returns false (with the reason set) when a required
 * row has none of its names. */
static bool resolve(struct gd_nvml *nv, void *dl, struct gd_nvml_api *api)
{
	char req_missing[512] = "";
	bool found[N(sym_table)];

	for (size_t i = 0; i < N(sym_table); i++) {
		const struct sym_row *r = &sym_table[i];
		void *p = NULL;

		for (size_t k = 0; r->names[k] && !p; k++)
			p = dlsym(dl, r->names[k]);
		found[i] = p != NULL;
		/* POSIX: a function pointer and void * have the same size. */
		memcpy((char *)api + r->off, &p, sizeof p);
		if (!p && r->required) {
			char alts[160] = "";

			for (size_t k = 0; r->names[k]; k++)
				snprintf(alts + strlen(alts), sizeof alts - strlen(alts), "%s%s", k ? "/" : "",
					 r->names[k]);
			append(req_missing, sizeof req_missing, alts);
		}
	}
	for (size_t i = 0; i < N(sym_table); i++) {
		bool alt_found = false;

		if (found[i] || sym_table[i].required)
			continue;
		for (size_t j = 0; sym_table[i].group && j < N(sym_table); j++)
			if (found[j] && sym_table[j].group && strcmp(sym_table[j].group, sym_table[i].group) == 0)
				alt_found = true;
		if (!alt_found)
			append(nv->missing, sizeof nv->missing, sym_table[i].names[0]);
	}
	if (req_missing[0]) {
		snprintf(nv->reason, sizeof nv->reason, _("%s lacks required NVML functions: %s"), nv->library,
			 req_missing);
		return false;
	}
	return true;
}

static nvmlReturn_t do_init(const struct gd_nvml_api *api, struct gd_nvml_io *io)
{
	return api->init();
}

static nvmlReturn_t do_shutdown(const struct gd_nvml_api *api, struct gd_nvml_io *io)
{
	gd__act_release(gd__worker_of(api)->act, api);   /* GPM samples go back first */
	return api->shutdown();
}

static nvmlReturn_t do_error_string(const struct gd_nvml_api *api, struct gd_nvml_io *io)
{
	const char *s = api->error_string((nvmlReturn_t)io->i);

	GD_STRSET(io->str, s ? s : "");
	return NVML_SUCCESS;
}

static bool start_worker(struct gd_nvml *nv, void *dl, const struct gd_nvml_api *api)
{
	struct worker *w = gd_xcalloc(1, sizeof *w);
	pthread_condattr_t ca;
	int rc;

	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	w->api = *api;
	w->dl = dl;
	w->act = gd__act_new();
	w->refs = 2;
	nv->w = w;
	rc = pthread_create(&nv->thread, NULL, worker_main, w);
	if (rc != 0) {
		w->refs = 1;
		snprintf(nv->reason, sizeof nv->reason, _("cannot start the NVML thread: %s"), strerror(rc));
		return false;
	}
	nv->have_thread = true;
	return true;
}

static void init_library(struct gd_nvml *nv)
{
	struct gd_nvml_io io;
	char desc[256];

	memset(&io, 0, sizeof io);
	nv->init_rc = gd_nvml_call(nv, "nvmlInit_v2", -1, do_init, &io);
	if (nv->init_rc == NVML_SUCCESS) {
		nv->inited = true;
		return;
	}
	if (nv->init_rc == GD_NVML_RC_STUCK)
		return; /* state and reason set by gd_nvml_call */
	gd_nvml_describe(nv, nv->init_rc, desc, sizeof desc);
	switch (nv->init_rc) {
	case NVML_ERROR_DRIVER_NOT_LOADED:
		nv->state = GD_NVML_ABSENT;
		snprintf(nv->reason, sizeof nv->reason, _("nvmlInit: %s: the nvidia kernel module is not loaded"), desc);
		break;
	case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
		nv->state = GD_NVML_FAILED;
		snprintf(nv->reason, sizeof nv->reason,
			 _("nvmlInit: %s: %s does not match the loaded nvidia kernel module (driver/library version "
			   "mismatch; compare /proc/driver/nvidia/version)"),
			 desc, nv->library);
		break;
	case NVML_ERROR_NO_PERMISSION:
		nv->state = GD_NVML_DENIED;
		snprintf(nv->reason, sizeof nv->reason, _("nvmlInit: %s: no access to /dev/nvidiactl or /dev/nvidia*"),
			 desc);
		break;
	default:
		nv->state = GD_NVML_FAILED;
		snprintf(nv->reason, sizeof nv->reason, "nvmlInit: %s", desc);
		break;
	}
}

struct gd_nvml *gd_nvml_open(const char *path, double timeout_s)
{
	struct gd_nvml *nv = gd_xcalloc(1, sizeof *nv);
	struct gd_nvml_api api;
	void *dl;

	nv->timeout_s = timeout_s > 0 ? timeout_s : GD_NVML_TIMEOUT_DEFAULT_S;
	nv->init_rc = INIT_NOT_REACHED;
	nv->state = GD_NVML_OK;
	memset(&api, 0, sizeof api);
	dl = open_library(nv, path);
	if (!dl)
		return nv;
	if (!resolve(nv, dl, &api)) {
		nv->state = GD_NVML_FAILED;
		dlclose(dl);
		return nv;
	}
	if (!start_worker(nv, dl, &api)) {
		nv->state = GD_NVML_FAILED;
		return nv;
	}
	nv->reason[0] = '\0';
	init_library(nv);
	return nv;
}

void gd_nvml_close(struct gd_nvml *nv)
{
	struct gd_nvml_io io;

	if (!nv)
		return;
	memset(&io, 0, sizeof io);
	if (nv->inited && nv->state != GD_NVML_STUCK)
		gd_nvml_call(nv, "nvmlShutdown", -1, do_shutdown, &io);
	if (nv->w) {
		pthread_mutex_lock(&nv->w->mu);
		nv->w->quit = true;
		pthread_cond_broadcast(&nv->w->cv);
		if (nv->state == GD_NVML_STUCK || !nv->have_thread) {
			/* The thread, if it ever returns, frees what is left. */
			if (nv->have_thread)
				pthread_detach(nv->thread);
			worker_unref(nv->w);
		} else {
			pthread_mutex_unlock(&nv->w->mu);
			pthread_join(nv->thread, NULL);
			pthread_mutex_lock(&nv->w->mu);
			worker_unref(nv->w);
		}
	}
	free(nv->kept);
	free(nv);
}

bool gd_nvml_cached(struct gd_nvml *nv, int gpu, const char *what, unsigned int arg, struct gd_nvml_io *io)
{
	for (size_t i = 0; i < nv->nkept; i++) {
		const struct nvml_kept *k = &nv->kept[i];

		if (k->gpu == gpu && k->arg == arg && strcmp(k->what, what) == 0) {
			nvmlDevice_t dev = io->dev;
			unsigned int a0 = io->arg[0], a1 = io->arg[1];

			*io = k->io;
			io->dev = dev;
			io->arg[0] = a0;
			io->arg[1] = a1;
			return true;
		}
	}
	return false;
}

void gd_nvml_cache_put(struct gd_nvml *nv, int gpu, const char *what, unsigned int arg, const struct gd_nvml_io *io)
{
	if (nv->nkept == nv->capkept) {
		nv->capkept = nv->capkept ? 2 * nv->capkept : 32;
		nv->kept = gd_xreallocarray(nv->kept, nv->capkept, sizeof *nv->kept);
	}
	nv->kept[nv->nkept].gpu = gpu;
	nv->kept[nv->nkept].arg = arg;
	nv->kept[nv->nkept].what = what;
	nv->kept[nv->nkept].io = *io;
	nv->kept[nv->nkept].io.buf = NULL;
	nv->nkept++;
}

/* ---- accessors ------------------------------------------------------------ */
bool gd_nvml_sym_row(size_t i, const char *const **names, bool *required, const char **group, size_t *off)
{
	if (i >= N(sym_table))
		return false;
	*names = sym_table[i].names;
	*required = sym_table[i].required;
	*group = sym_table[i].group;
	*off = sym_table[i].off;
	return true;
}

enum gd_nvml_state gd_nvml_state(const struct gd_nvml *nv)
{
	return nv->state;
}

const char *gd_nvml_state_name(enum gd_nvml_state st)
{
	static const char *const names[] = { "ok", "absent", "denied", "failed", "stuck" };

	return (unsigned)st < N(names) ? names[st] : "failed";
}

const char *gd_nvml_reason(const struct gd_nvml *nv)
{
	return nv->reason;
}

const char *gd_nvml_library(const struct gd_nvml *nv)
{
	return nv->library;
}

int gd_nvml_init_rc(const struct gd_nvml *nv)
{
	return nv->init_rc;
}

const char *gd_nvml_missing(const struct gd_nvml *nv)
{
	return nv->missing;
}

const char *gd_nvml_stuck_call(const struct gd_nvml *nv)
{
	return nv->stuck_call;
}

double gd_nvml_timeout(const struct gd_nvml *nv)
{
	return nv->timeout_s;
}

const struct gd_nvml_api *gd_nvml_api(const struct gd_nvml *nv)
{
	static const struct gd_nvml_api none;

	return nv->w ? &nv->w->api : &none;
}

const char *gd_nvml_error_name(int rc)
{
	static const char *const names[] = {
		"SUCCESS", "UNINITIALIZED", "INVALID_ARGUMENT", "NOT_SUPPORTED", "NO_PERMISSION",
		"ALREADY_INITIALIZED", "NOT_FOUND", "INSUFFICIENT_SIZE", "INSUFFICIENT_POWER",
		"DRIVER_NOT_LOADED", "TIMEOUT", "IRQ_ISSUE", "LIBRARY_NOT_FOUND", "FUNCTION_NOT_FOUND",
		"CORRUPTED_INFOROM", "GPU_IS_LOST", "RESET_REQUIRED", "OPERATING_SYSTEM", "LIB_RM_VERSION_MISMATCH",
		"IN_USE", "MEMORY", "NO_DATA", "VGPU_ECC_NOT_SUPPORTED", "INSUFFICIENT_RESOURCES",
		"FREQ_NOT_SUPPORTED", "ARGUMENT_VERSION_MISMATCH", "DEPRECATED", "NOT_READY", "GPU_NOT_FOUND",
		"INVALID_STATE", "RESET_TYPE_NOT_SUPPORTED",
	};

	if (rc == GD_NVML_RC_STUCK)
		return "DEADLINE_MISSED";
	if (rc == NVML_ERROR_UNKNOWN)
		return "UNKNOWN";
	if (rc >= 0 && (size_t)rc < N(names))
		return names[rc];
	return "ERROR_OTHER";
}

void gd_nvml_describe(struct gd_nvml *nv, int rc, char *out, size_t outsz)
{
	struct gd_nvml_io io;
	const char *name = gd_nvml_error_name(rc);

	memset(&io, 0, sizeof io);
	io.i = rc;
	if (rc >= 0 && gd_nvml_api(nv)->error_string &&
	    gd_nvml_call(nv, "nvmlErrorString", -1, do_error_string, &io) == NVML_SUCCESS && io.str[0])
		snprintf(out, outsz, "%s (NVML_ERROR_%s, %d)", io.str, name, rc);
	else
		snprintf(out, outsz, "NVML_ERROR_%s (%d)", name, rc);
}
