/*
 * fake_cuda.c - a libcuda.so.1 for the probe tests, answering the driver
 * API from a scenario.  Built by the Makefile as
 * $(BUILD)/fake_cuda/libcuda.so.1 and loaded by gpudoctor probe through the
 * same dlopen path as the real driver (--cuda PATH or GPUDOCTOR_CUDA).  The
 * prototypes come from src/probe/cuda_abi.h, so the compiler checks that
 * the fake and gpudoctor agree.
 *
 * The scenario is the INI file named by GPUDOCTOR_FAKE_CUDA, read at cuInit
 * (no file: a driver with no device):
 *
 *   [cuda]
 *   init = SUCCESS           ; or an error number: 100 (NO_DEVICE), 34 ...
 *   driver_version = 12040
 *   jit = ok                 ; fail: every module load is INVALID_PTX with a log
 *   time_scale = 0.05        ; real seconds slept per simulated GPU second
 *
 *   [gpu0]                   ; CUDA ordinal 0
 *   pci_bus_id = 0000:1B:00.0 ; as cuDeviceGetPCIBusId prints it (NVML's
 *                            ; 00000000:1B:00.0 is the same device)
 *   name = NVIDIA H100 80GB HBM3
 *   cc = 90                  ; compute capability major*10+minor
 *   sms = 132
 *   mem_mib = 64             ; device memory the fake has (malloc'd)
 *   fp32_gflops = 51000      ; how fast the kernels and copies "run":
 *   bf16_gflops = 400000     ; simulated time = work / rate, timed by events
 *   mem_gbps = 2600
 *   h2d_gbps = 52
 *   d2h_gbps = 52
 *   shared_gbps = 0          ; > 0: copies of every GPU share this many GB/s
 *                            ; while more than one copies at once (a switch)
 *   p2p_gbps = 370
 *   slow = 1.0               ; every kernel takes this many times longer
 *   d2h_flip = 0             ; 1: one bit of every device-to-host copy of
 *                            ; 64 KiB or more flips (a link that fails under
 *                            ; bulk DMA; small reads come back intact)
 *   bad_words = 0            ; words of a large memset/fill that read back wrong
 *   hang = gd_burn_fp32      ; that kernel never finishes on this GPU
 *   xid_file = PATH          ; at the first burn launch, append xid_line to
 *   xid_line = ...           ; PATH (a kernel log the test reads as /dev/kmsg)
 *   load_file = PATH         ; "burn" from a burn's launch until other work
 *                            ; (a kernel, a copy to the GPU, a memset; reading
 *                            ; results back is not): the fake NVML's load_file
 *                            ; reads it (a GPU hot under load only)
 *
 * Simulated time: each stream keeps a clock; an operation adds its cost
 * (and sleeps time_scale of it for real, so the parent's NVML samples see
 * the probe run); events read the clock.  One lock serialises every call:
 * a stand-in for a library whose state is process-wide by nature.
 */
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probe/cuda_abi.h"

#define MAX_GPUS 16
#define MAX_ALLOCS 4096

struct gpu {
	char bus[32], name[64], hang[64], xid_file[256], xid_line[256], load_file[256];
	int cc, sms, loaded;
	double mem_mib, fp32, bf16, mem, h2d, d2h, shared, p2p, slow;
	int d2h_flip, bad_words, xid_done;
	size_t used;
	int copying;          /* copies in flight now (for shared_gbps) */
	uintptr_t memo_out, memo_in;  /* the last burn's arguments: a launch with */
	unsigned memo_iters;          /* the same ones writes the same output */
};

struct CUctx_st { int dev; };
struct CUstream_st { int dev; double t, debt; int hung; };
struct CUevent_st { double t; int recorded, hung; };
struct CUmod_st { char entries[8][32]; int n; };
struct CUfunc_st { char name[32]; };

static struct {
	pthread_mutex_t lock;
	int inited, init_rc, driver, jit_fail, ngpus;
	double scale;
	struct gpu g[MAX_GPUS];
	struct CUctx_st ctx[MAX_GPUS];
	struct { uintptr_t p; size_t n; int dev; } alloc[MAX_ALLOCS];
	int nalloc;
	int active_copies;
} S = { .lock = PTHREAD_MUTEX_INITIALIZER };

static __thread struct CUctx_st *cur;

static int on_ini(void *u, const char *sec, const char *key, const char *val)
{
	int i;

	(void)u;
	if (strcmp(sec, "cuda") == 0) {
		if (!strcmp(key, "init"))
			S.init_rc = strcmp(val, "SUCCESS") == 0 ? 0 : atoi(val);
		else if (!strcmp(key, "driver_version"))
			S.driver = atoi(val);
		else if (!strcmp(key, "jit"))
			S.jit_fail = strcmp(val, "fail") == 0;
		else if (!strcmp(key, "time_scale"))
			S.scale = atof(val);
		return 1;
	}
	if (sscanf(sec, "gpu%d", &i) != 1 || i < 0 || i >= MAX_GPUS)
		return 1;
	if (i >= S.ngpus)
		S.ngpus = i + 1;
	struct gpu *g = &S.g[i];
#define STR(k) if (!strcmp(key, #k)) snprintf(g->k, sizeof g->k, "%s", val)
#define NUM(k, f) if (!strcmp(key, #k)) g->f = atof(val)
	STR(name); STR(hang); STR(xid_file); STR(xid_line); STR(load_file);
	if (!strcmp(key, "pci_bus_id")) snprintf(g->bus, sizeof g->bus, "%s", val);
	if (!strcmp(key, "cc")) g->cc = atoi(val);
	if (!strcmp(key, "sms")) g->sms = atoi(val);
	if (!strcmp(key, "d2h_flip")) g->d2h_flip = atoi(val);
	if (!strcmp(key, "bad_words")) g->bad_words = atoi(val);
	NUM(mem_mib, mem_mib); NUM(fp32_gflops, fp32); NUM(bf16_gflops, bf16); NUM(mem_gbps, mem);
	NUM(h2d_gbps, h2d); NUM(d2h_gbps, d2h); NUM(shared_gbps, shared); NUM(p2p_gbps, p2p); NUM(slow, slow);
	return 1;
}

static void defaults(struct gpu *g)
{
	memset(g, 0, sizeof *g);
	snprintf(g->name, sizeof g->name, "NVIDIA H100 80GB HBM3");
	g->cc = 90;
	g->sms = 132;
	g->mem_mib = 64;
	g->fp32 = 51000;
	g->bf16 = 400000;
	g->mem = 2600;
	g->h2d = g->d2h = 52;
	g->p2p = 370;
	g->slow = 1;
}

CUresult cuInit(unsigned int flags)
{
	const char *path = getenv("GPUDOCTOR_FAKE_CUDA");

	if (flags)
		return GD_CU_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&S.lock);
	if (!S.inited) {
		S.driver = 12040;
		S.scale = 0;
		for (int i = 0; i < MAX_GPUS; i++)
			defaults(&S.g[i]);
		if (!path || ini_parse(path, on_ini, NULL) != 0)
			S.init_rc = GD_CU_ERROR_NO_DEVICE;
		for (int i = 0; i < MAX_GPUS; i++)
			S.ctx[i].dev = i;
		S.inited = 1;
	}
	pthread_mutex_unlock(&S.lock);
	return S.init_rc;
}

#define NEED_INIT() do { if (!S.inited) return GD_CU_ERROR_NOT_INITIALIZED; if (S.init_rc) return S.init_rc; } while (0)
#define NEED_DEV(d) do { NEED_INIT(); if ((d) < 0 || (d) >= S.ngpus) return GD_CU_ERROR_INVALID_DEVICE; } while (0)
#define NEED_CTX() do { NEED_INIT(); if (!cur) return GD_CU_ERROR_INVALID_CONTEXT; } while (0)

CUresult cuDriverGetVersion(int *v)
{
	if (!v)
		return GD_CU_ERROR_INVALID_VALUE;
	*v = S.driver ? S.driver : 12040;
	return 0;
}

CUresult cuDeviceGetCount(int *n) { NEED_INIT(); *n = S.ngpus; return 0; }
CUresult cuDeviceGet(CUdevice *d, int o) { NEED_DEV(o); *d = o; return 0; }

CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
	NEED_DEV(d);
	snprintf(name, (size_t)len, "%s", S.g[d].name);
	return 0;
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute a, CUdevice d)
{
	NEED_DEV(d);
	switch (a) {
	case GD_CU_ATTR_CC_MAJOR: *pi = S.g[d].cc / 10; return 0;
	case GD_CU_ATTR_CC_MINOR: *pi = S.g[d].cc % 10; return 0;
	case GD_CU_ATTR_MULTIPROCESSOR_COUNT: *pi = S.g[d].sms; return 0;
	default: *pi = 0; return 0;
	}
}

CUresult cuDeviceGetPCIBusId(char *bus, int len, CUdevice d)
{
	NEED_DEV(d);
	if (len < 13)
		return GD_CU_ERROR_INVALID_VALUE;
	snprintf(bus, (size_t)len, "%s", S.g[d].bus);
	return 0;
}

CUresult cuDeviceTotalMem_v2(size_t *b, CUdevice d) { NEED_DEV(d); *b = (size_t)(S.g[d].mem_mib * 1048576); return 0; }
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { NEED_DEV(d); *c = &S.ctx[d]; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { NEED_DEV(d); return 0; }
CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice d, unsigned int f) { NEED_DEV(d); return f > 0x1f ? GD_CU_ERROR_INVALID_VALUE : 0; }
CUresult cuCtxSetCurrent(CUcontext c) { NEED_INIT(); cur = c; return 0; }
CUresult cuCtxSynchronize(void) { NEED_CTX(); return 0; }

CUresult cuMemGetInfo_v2(size_t *f, size_t *t)
{
	NEED_CTX();
	*t = (size_t)(S.g[cur->dev].mem_mib * 1048576);
	*f = *t - S.g[cur->dev].used;
	return 0;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	struct gpu *g;
	void *m;
	CUresult rc = 0;

	NEED_CTX();
	if (!n)
		return GD_CU_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&S.lock);
	g = &S.g[cur->dev];
	if (g->used + n > (size_t)(g->mem_mib * 1048576) || S.nalloc >= MAX_ALLOCS || !(m = calloc(1, n))) {
		rc = GD_CU_ERROR_OUT_OF_MEMORY;
	} else {
		S.alloc[S.nalloc].p = (uintptr_t)m;
		S.alloc[S.nalloc].n = n;
		S.alloc[S.nalloc++].dev = cur->dev;
		g->used += n;
		*p = (CUdeviceptr)(uintptr_t)m;
	}
	pthread_mutex_unlock(&S.lock);
	return rc;
}

CUresult cuMemFree_v2(CUdeviceptr p)
{
	CUresult rc = GD_CU_ERROR_INVALID_VALUE;

	NEED_INIT();
	pthread_mutex_lock(&S.lock);
	for (int i = 0; i < S.nalloc; i++)
		if (S.alloc[i].p == (uintptr_t)p) {
			S.g[S.alloc[i].dev].used -= S.alloc[i].n;
			free((void *)S.alloc[i].p);
			S.alloc[i] = S.alloc[--S.nalloc];
			rc = 0;
			break;
		}
	pthread_mutex_unlock(&S.lock);
	return rc;
}

/* The device allocation p points into, with at least n bytes from p. */
static int dev_ok(CUdeviceptr p, size_t n)
{
	int ok = 0;

	pthread_mutex_lock(&S.lock);
	for (int i = 0; i < S.nalloc; i++)
		if ((uintptr_t)p >= S.alloc[i].p && (uintptr_t)p + n <= S.alloc[i].p + S.alloc[i].n)
			ok = 1;
	pthread_mutex_unlock(&S.lock);
	return ok;
}

CUresult cuMemHostAlloc(void **pp, size_t n, unsigned int f)
{
	NEED_INIT();
	(void)f;
	return n && (*pp = calloc(1, n)) ? 0 : GD_CU_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemFreeHost(void *p) { NEED_INIT(); free(p); return 0; }

/* load_file says whether the GPU's latest work is a burn (written when that
 * changes only). */
static void load(struct gpu *g, int burning)
{
	FILE *f;

	if (!g->load_file[0] || g->loaded == burning)
		return;
	g->loaded = burning;
	if ((f = fopen(g->load_file, "w"))) {
		if (burning)
			fputs("burn\n", f);
		fclose(f);
	}
}

/* Device memory of the current GPU changed: the next burn recomputes; and
 * that was not a burn. */
static void dirty(void)
{
	S.g[cur->dev].memo_out = 0;
	load(&S.g[cur->dev], 0);
}

/* Advances the stream's clock by s simulated seconds. */
static void spend(CUstream st, double s)
{
	if (!st)
		return;
	st->t += s;
	/* real time is slept in steps of 5 ms or more: many tiny sleeps would
	 * cost more in system calls than they sleep */
	st->debt += S.scale > 0 && s > 0 ? s * S.scale : 0;
	if (st->debt >= 0.005) {
		struct timespec ts = { (time_t)st->debt, (long)((st->debt - (double)(time_t)st->debt) * 1e9) };

		nanosleep(&ts, NULL);
		st->debt = 0;
	}
}

static double copy_rate(int dev, double rate)
{
	double r = rate;

	pthread_mutex_lock(&S.lock);
	if (S.g[dev].shared > 0 && S.active_copies > 1 && S.g[dev].shared / S.active_copies < r)
		r = S.g[dev].shared / S.active_copies;
	pthread_mutex_unlock(&S.lock);
	return r;
}

static void copies_in_flight(int d)
{
	pthread_mutex_lock(&S.lock);
	S.active_copies += d;
	pthread_mutex_unlock(&S.lock);
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream st)
{
	NEED_CTX();
	if (!dev_ok(dst, n) || !src)
		return GD_CU_ERROR_INVALID_VALUE;
	copies_in_flight(1);
	dirty();
	memcpy((void *)(uintptr_t)dst, src, n);
	spend(st, (double)n / (copy_rate(cur->dev, S.g[cur->dev].h2d) * 1e9));
	copies_in_flight(-1);
	return 0;
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream st)
{
	NEED_CTX();
	if (!dev_ok(src, n) || !dst)
		return GD_CU_ERROR_INVALID_VALUE;
	copies_in_flight(1);
	memcpy(dst, (void *)(uintptr_t)src, n);
	if (S.g[cur->dev].d2h_flip && n >= 65536)
		((unsigned char *)dst)[n / 2] ^= 0x10;
	spend(st, (double)n / (copy_rate(cur->dev, S.g[cur->dev].d2h) * 1e9));
	copies_in_flight(-1);
	return 0;
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream st)
{
	NEED_CTX();
	if (!dev_ok(dst, n) || !dev_ok(src, n))
		return GD_CU_ERROR_INVALID_VALUE;
	dirty();
	memmove((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
	spend(st, (double)n / (S.g[cur->dev].mem * 1e9));
	return 0;
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n, CUstream st)
{
	NEED_CTX();
	if (!dc || !sc || !dev_ok(dst, n) || !dev_ok(src, n))
		return GD_CU_ERROR_INVALID_VALUE;
	for (int i = 0; i < S.ngpus; i++)
		S.g[i].memo_out = 0;
	memmove((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
	spend(st, (double)n / (S.g[sc->dev].p2p * 1e9));
	return 0;
}

/* A large region written with a pattern keeps bad_words wrong words. */
static void corrupt(uint32_t *w, size_t n)
{
	int bad = S.g[cur->dev].bad_words;

	if (n < (1u << 18))
		return;
	for (int i = 0; i < bad; i++)
		w[(n / (size_t)(bad + 1)) * (size_t)(i + 1)] ^= 1u << (i % 32);
}

CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, CUstream st)
{
	uint32_t *w = (uint32_t *)(uintptr_t)dst;

	NEED_CTX();
	if (!dev_ok(dst, n * 4))
		return GD_CU_ERROR_INVALID_VALUE;
	dirty();
	for (size_t i = 0; i < n; i++)
		w[i] = v;
	corrupt(w, n);
	spend(st, (double)n * 4 / (S.g[cur->dev].mem * 1e9));
	return 0;
}

CUresult cuDeviceCanAccessPeer(int *can, CUdevice a, CUdevice b)
{
	NEED_DEV(a);
	NEED_DEV(b);
	*can = a != b && S.g[a].p2p > 0 && S.g[b].p2p > 0;
	return 0;
}

CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int f)
{
	NEED_CTX();
	return !peer || f ? GD_CU_ERROR_INVALID_VALUE : 0;
}

CUresult cuStreamCreate(CUstream *st, unsigned int f)
{
	NEED_CTX();
	(void)f;
	if (!(*st = calloc(1, sizeof **st)))
		return GD_CU_ERROR_OUT_OF_MEMORY;
	(*st)->dev = cur->dev;
	return 0;
}

static void hang_forever(void)
{
	for (;;)
		pause();
}

CUresult cuStreamSynchronize(CUstream st) { NEED_CTX(); if (st && st->hung) hang_forever(); return 0; }
CUresult cuStreamQuery(CUstream st) { NEED_CTX(); return st && st->hung ? GD_CU_ERROR_NOT_READY : 0; }
CUresult cuStreamDestroy_v2(CUstream st) { NEED_INIT(); free(st); return 0; }
CUresult cuEventCreate(CUevent *e, unsigned int f) { NEED_CTX(); (void)f; return (*e = calloc(1, sizeof **e)) ? 0 : GD_CU_ERROR_OUT_OF_MEMORY; }

CUresult cuEventRecord(CUevent e, CUstream st)
{
	NEED_CTX();
	if (!e)
		return GD_CU_ERROR_INVALID_VALUE;
	e->t = st ? st->t : 0;
	e->hung = st ? st->hung : 0;
	e->recorded = 1;
	return 0;
}

CUresult cuEventQuery(CUevent e) { NEED_CTX(); return e->hung ? GD_CU_ERROR_NOT_READY : 0; }
CUresult cuEventSynchronize(CUevent e) { NEED_CTX(); if (e->hung) hang_forever(); return 0; }

CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
	NEED_INIT();
	if (!a || !b || !a->recorded || !b->recorded)
		return GD_CU_ERROR_INVALID_VALUE;
	if (a->hung || b->hung)
		return GD_CU_ERROR_NOT_READY;
	*ms = (float)((b->t - a->t) * 1e3);
	return 0;
}

CUresult cuEventDestroy_v2(CUevent e) { NEED_INIT(); free(e); return 0; }

/* The CUDA version whose JIT first took this PTX ISA (as src/probe/ptx.c). */
static int isa_cuda(int major, int minor)
{
	static const int t[][3] = { { 6, 3, 10000 }, { 6, 4, 10010 }, { 6, 5, 10020 }, { 7, 0, 11000 },
				    { 7, 8, 11080 }, { 8, 0, 12000 }, { 8, 4, 12040 } };

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (t[i][0] == major && t[i][1] == minor)
			return t[i][2];
	return 99999;
}

static void write_log(unsigned int n, CUjit_option *o, void **v, const char *msg)
{
	char *buf = NULL;
	size_t cap = 0;
	unsigned int size_slot = n;

	for (unsigned int i = 0; i < n; i++) {
		if (o[i] == GD_CU_JIT_ERROR_LOG_BUFFER)
			buf = v[i];
		if (o[i] == GD_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) {
			cap = (size_t)v[i];
			size_slot = i;
		}
	}
	if (!buf || !cap)
		return;
	snprintf(buf, cap, "%s", msg);
	if (size_slot < n)
		v[size_slot] = (void *)(strlen(buf) + 1);
}

CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned int n, CUjit_option *o, void **v)
{
	const char *t = image, *p;
	int major = 0, minor = 0, sm = 0;
	struct CUmod_st *mod;

	NEED_CTX();
	if (!image)
		return GD_CU_ERROR_INVALID_VALUE;
	if (S.jit_fail) {
		write_log(n, o, v, "ptxas fatal   : Unresolved extern function 'gd_fake_missing'\n\x01trailing");
		return GD_CU_ERROR_INVALID_PTX;
	}
	if (!(p = strstr(t, ".version ")) || sscanf(p, ".version %d.%d", &major, &minor) != 2)
		return GD_CU_ERROR_INVALID_IMAGE;
	if (isa_cuda(major, minor) > S.driver) {
		write_log(n, o, v, "ptxas application ptx input, line 1; fatal   : Unsupported .version; current version is lower");
		return GD_CU_ERROR_UNSUPPORTED_PTX_VERSION;
	}
	if (!(p = strstr(t, ".target sm_")) || sscanf(p, ".target sm_%d", &sm) != 1)
		return GD_CU_ERROR_INVALID_IMAGE;
	if (sm > S.g[cur->dev].cc)
		return GD_CU_ERROR_NO_BINARY_FOR_GPU;
	if (!(mod = calloc(1, sizeof *mod)))
		return GD_CU_ERROR_OUT_OF_MEMORY;
	for (p = t; (p = strstr(p, ".entry ")) && mod->n < 8; p += 7)
		sscanf(p, ".entry %31[A-Za-z0-9_]", mod->entries[mod->n++]);
	*m = mod;
	return 0;
}

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	NEED_CTX();
	for (int i = 0; m && i < m->n; i++)
		if (strcmp(m->entries[i], name) == 0) {
			if (!(*f = calloc(1, sizeof **f)))
				return GD_CU_ERROR_OUT_OF_MEMORY;
			snprintf((*f)->name, sizeof (*f)->name, "%s", name);
			return 0;
		}
	return GD_CU_ERROR_NOT_FOUND;
}

/* Functions are freed with their module in a real driver; the fake leaks
 * nothing the test would see, as the probe child exits right after. */
CUresult cuModuleUnload(CUmodule m) { NEED_INIT(); free(m); return 0; }

static void xid(struct gpu *g)
{
	int fd;

	if (g->xid_done || !g->xid_file[0])
		return;
	g->xid_done = 1;
	if ((fd = open(g->xid_file, O_WRONLY | O_APPEND)) >= 0) {
		if (write(fd, g->xid_line, strlen(g->xid_line)) < 0 || write(fd, "\n", 1) < 0)
			perror("fake_cuda: xid_file");
		close(fd);
	}
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
			unsigned int by, unsigned int bz, unsigned int shm, CUstream st, void **a, void **extra)
{
	struct gpu *g;
	size_t threads = (size_t)gx * gy * gz * bx * by * bz;
	double cost = 0;

	NEED_CTX();
	(void)shm;
	(void)extra;
	if (!f || !a || !threads)
		return GD_CU_ERROR_INVALID_VALUE;
	g = &S.g[cur->dev];
	if (g->hang[0] && strcmp(g->hang, f->name) == 0) {
		if (st)
			st->hung = 1;
		return 0;
	}
	if (strcmp(f->name, "gd_burn_fp32") == 0) {
		float *out = (float *)(uintptr_t)*(CUdeviceptr *)a[0];
		const float *in = (const float *)(uintptr_t)*(CUdeviceptr *)a[1];
		unsigned iters = *(unsigned *)a[2];

		if (!dev_ok((CUdeviceptr)(uintptr_t)out, threads * 4) || !dev_ok((CUdeviceptr)(uintptr_t)in, threads * 4))
			return GD_CU_ERROR_ILLEGAL_ADDRESS;
		if (g->memo_out != (uintptr_t)out || g->memo_in != (uintptr_t)in || g->memo_iters != iters)
			for (size_t i = 0; i < threads; i++)
				out[i] = in[i] * 0.5f + (float)iters * 1e-6f;
		g->memo_out = (uintptr_t)out;
		g->memo_in = (uintptr_t)in;
		g->memo_iters = iters;
		cost = (double)threads * iters * 16 / (g->fp32 * 1e9);
		xid(g);
	} else if (strcmp(f->name, "gd_burn_bf16") == 0) {
		float *out = (float *)(uintptr_t)*(CUdeviceptr *)a[0];
		unsigned iters = *(unsigned *)a[2];

		if (!dev_ok((CUdeviceptr)(uintptr_t)out, threads * 32))
			return GD_CU_ERROR_ILLEGAL_ADDRESS;
		if (g->memo_out != (uintptr_t)out || g->memo_iters != iters)
			for (size_t i = 0; i < threads * 8; i++)
				out[i] = (float)(i % 48) * (float)iters;
		g->memo_out = (uintptr_t)out;
		g->memo_in = 0;
		g->memo_iters = iters;
		cost = (double)(threads / 32) * iters * 8192 / (g->bf16 * 1e9);
	} else if (strcmp(f->name, "gd_copy") == 0) {
		CUdeviceptr d = *(CUdeviceptr *)a[0], s = *(CUdeviceptr *)a[1];
		unsigned long long n = *(unsigned long long *)a[2] * 16;

		if (!dev_ok(d, n) || !dev_ok(s, n))
			return GD_CU_ERROR_ILLEGAL_ADDRESS;
		dirty();
		memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n);
		cost = (double)n / (g->mem * 1e9);
	} else if (strcmp(f->name, "gd_fill_addr") == 0 || strcmp(f->name, "gd_check_addr") == 0 ||
		   strcmp(f->name, "gd_check_const") == 0) {
		uint32_t *w = (uint32_t *)(uintptr_t)*(CUdeviceptr *)a[0];
		unsigned long long n = *(unsigned long long *)a[1];
		unsigned pat = *(unsigned *)a[2];
		int fill = strcmp(f->name, "gd_fill_addr") == 0, addr = strcmp(f->name, "gd_check_const") != 0;
		uint32_t bad = 0;

		if (!dev_ok((CUdeviceptr)(uintptr_t)w, n * 4) || (!fill && !dev_ok(*(CUdeviceptr *)a[3], 4)))
			return GD_CU_ERROR_ILLEGAL_ADDRESS;
		dirty();
		for (unsigned long long i = 0; i < n; i++) {
			uint32_t want = addr ? ((uint32_t)i * 2654435761u) ^ (uint32_t)(i >> 32) ^ pat : pat;

			if (fill)
				w[i] = want;
			else
				bad += w[i] != want;
		}
		if (fill)
			corrupt(w, n);
		else
			*(uint32_t *)(uintptr_t)*(CUdeviceptr *)a[3] += bad;
		cost = (double)n * 4 / (g->mem * 1e9);
	} else {
		return GD_CU_ERROR_INVALID_VALUE;
	}
	load(g, strncmp(f->name, "gd_burn_", 8) == 0);
	spend(st, cost * (g->slow > 0 ? g->slow : 1));
	return 0;
}

CUresult cuGetErrorName(CUresult e, const char **s)
{
	switch (e) {
	case 0: *s = "CUDA_SUCCESS"; return 0;
	case 100: *s = "CUDA_ERROR_NO_DEVICE"; return 0;
	case 218: *s = "CUDA_ERROR_INVALID_PTX"; return 0;
	case 222: *s = "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"; return 0;
	default: *s = NULL; return GD_CU_ERROR_INVALID_VALUE;
	}
}

CUresult cuGetErrorString(CUresult e, const char **s) { return cuGetErrorName(e, s); }
