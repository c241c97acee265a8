/*
 * gpu.c - the probe's child process: every selected GPU at once, one
 * thread each, as a real job loads them; then the peer pairs.
 *
 * Each thread retains its GPU's primary context (what nvbandwidth does; it
 * avoids the cuCtxCreate v2 -> v4 change), with BLOCKING_SYNC so a wait
 * does not spin a CPU, loads the basic module and, where the GPU and driver
 * allow, the tensor module, then runs the probes in order.  A barrier
 * between probes keeps the GPUs in step: the burn runs on all of them at
 * once, host<->device copies run one GPU at a time ("alone") and then on
 * all at once (a shared PCIe switch shows up only then).
 *
 * Kernels do a fixed amount of work per launch and the host loops launches
 * against the probe's length; waits poll cuEventQuery.  Before each probe
 * the thread writes its phase and deadline to shared memory; the parent
 * kills the process when a deadline passes (there is no call that cancels a
 * kernel).  Results go to shared memory as they are measured.
 */
#include "probe/probe.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probe/cuda.h"
#include "probe/ptx.h"

#define BURN_BLOCK 256
#define BURN_ITERS 32768u        /* FMA rounds per launch (8 FMAs each) */
#define BF16_BLOCK 128
#define BF16_ITERS 8192u
#define BATCH_TARGET_S 0.05      /* a timed batch of launches lasts about this */
#define COPY_MAX (256ull << 20)  /* bytes per copy at most */
#define P2P_MAX (64ull << 20)
#define HEADROOM_MIN (256ull << 20)

struct gpu_ctx {
	struct gd_probe_shm *shm;
	struct gd_cuda *cu;
	struct gd_probe_gpu *g;
	int me;
	pthread_barrier_t *bar;
	CUdevice dev;
	CUcontext ctx;
	bool ctx_ok;
	CUmodule base, tensor;
	CUfunction f_burn, f_copy, f_fill, f_check_addr, f_check_const, f_bf16;
	CUstream st;
	CUevent e0, e1;
	CUdeviceptr copy_buf;     /* kept for peer copies */
	size_t copy_bytes;
};

double gd_probe_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void set_phase(struct gpu_ctx *c, int pk, double len_s)
{
	c->g->phase_deadline = gd_probe_now() + len_s + c->shm->budget_s;
	c->g->phase = pk;
	if (pk >= 0)
		c->g->res[pk].status = GD_PR_RUNNING;
}

static bool want(const struct gpu_ctx *c, int pk)
{
	return (c->shm->want & (1u << pk)) != 0;
}

/* Records a CUDA failure of probe pk (or of the GPU when pk < 0). */
static void cu_fail(struct gpu_ctx *c, int pk, const char *what, CUresult rc)
{
	char eb[96];
	char *dst = pk >= 0 ? c->g->res[pk].reason : c->g->error;
	size_t n = pk >= 0 ? sizeof c->g->res[pk].reason : sizeof c->g->error;

	snprintf(dst, n, "%s: %s", what, gd_cuda_strerror(c->cu, rc, eb, sizeof eb));
	if (pk >= 0)
		c->g->res[pk].status = GD_PR_FAILED;
}

/* Waits for an event by polling (no spinning driver wait). */
static CUresult wait_event(struct gpu_ctx *c, CUevent e)
{
	struct timespec ts = { 0, 200000 };
	CUresult rc;

	while ((rc = c->cu->api.event_query(e)) == GD_CU_ERROR_NOT_READY)
		nanosleep(&ts, NULL);
	return rc;
}

static CUresult elapsed_s(struct gpu_ctx *c, double *s)
{
	float ms = 0;
	CUresult rc = wait_event(c, c->e1);

	if (rc == GD_CU_SUCCESS)
		rc = c->cu->api.event_elapsed(&ms, c->e0, c->e1);
	*s = ms / 1e3;
	return rc;
}

static uint64_t fnv1a(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

static uint64_t words_differ(const uint32_t *a, const uint32_t *b, size_t n)
{
	uint64_t d = 0;

	for (size_t i = 0; i < n; i++)
		d += a[i] != b[i];
	return d;
}

/* ---- set-up -------------------------------------------------------------- */

static CUresult load_module(struct gpu_ctx *c, const char *ptx, CUmodule *mod, char *why, size_t size)
{
	char log[4096] = "", clean[240], eb[96];
	CUjit_option opt[2] = { GD_CU_JIT_ERROR_LOG_BUFFER, GD_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
	void *val[2] = { log, (void *)(size_t)sizeof log };
	CUresult rc = c->cu->api.module_load(mod, ptx, 2, opt, val);

	if (rc != GD_CU_SUCCESS) {
		gd_ptx_log_clean(log, sizeof log, (size_t)val[1], clean, sizeof clean);
		snprintf(why, size, "the driver's JIT refused the module: %s%s%s",
			 gd_cuda_strerror(c->cu, rc, eb, sizeof eb), clean[0] ? ": " : "", clean);
		*mod = NULL;
	}
	return rc;
}

/* Whether the module text can load here; why not into why. */
static bool module_ok(struct gpu_ctx *c, const char *ptx, char *why, size_t size)
{
	struct gd_ptx_header h;
	struct gd_err err;

	gd_err_clear(&err);
	if (gd_ptx_header_parse(ptx, strlen(ptx), &h, &err) < 0) {
		snprintf(why, size, "%.250s", err.msg);
		return false;
	}
	return gd_ptx_loadable(&h, c->cu->driver_version, c->g->cc, why, size);
}

static bool setup(struct gpu_ctx *c)
{
	struct gd_probe_gpu *g = c->g;
	char why[300];
	CUresult rc;
	int v = 0;

	set_phase(c, GD_PK_SETUP, 60);
	c->dev = g->ordinal;
	c->cu->api.device_name(g->name, sizeof g->name, c->dev);
	if (c->cu->api.attribute(&v, GD_CU_ATTR_CC_MAJOR, c->dev) == GD_CU_SUCCESS)
		g->cc = v * 10;
	if (c->cu->api.attribute(&v, GD_CU_ATTR_CC_MINOR, c->dev) == GD_CU_SUCCESS)
		g->cc += v;
	if (c->cu->api.attribute(&v, GD_CU_ATTR_MULTIPROCESSOR_COUNT, c->dev) == GD_CU_SUCCESS)
		g->sms = v;
	if (g->sms <= 0)
		g->sms = 1;
	{
		size_t t = 0;

		if (c->cu->api.total_mem(&t, c->dev) == GD_CU_SUCCESS)
			g->mem_total_bytes = t;
	}
	/* flags only take effect before the context is first made active */
	c->cu->api.ctx_set_flags(c->dev, GD_CU_CTX_SCHED_BLOCKING_SYNC);
	if ((rc = c->cu->api.ctx_retain(&c->ctx, c->dev)) != GD_CU_SUCCESS) {
		cu_fail(c, -1, "cuDevicePrimaryCtxRetain", rc);
		return false;
	}
	c->ctx_ok = true;
	if ((rc = c->cu->api.ctx_set_current(c->ctx)) != GD_CU_SUCCESS) {
		cu_fail(c, -1, "cuCtxSetCurrent", rc);
		return false;
	}
	if (!module_ok(c, gd_ptx_base, why, sizeof why)) {
		snprintf(g->error, sizeof g->error, "basic module not loaded: %.270s", why);
		return false;
	}
	if (load_module(c, gd_ptx_base, &c->base, why, sizeof why) != GD_CU_SUCCESS) {
		snprintf(g->error, sizeof g->error, "basic module: %.280s", why);
		return false;
	}
	if ((rc = c->cu->api.module_function(&c->f_burn, c->base, "gd_burn_fp32")) != GD_CU_SUCCESS ||
	    (rc = c->cu->api.module_function(&c->f_copy, c->base, "gd_copy")) != GD_CU_SUCCESS ||
	    (rc = c->cu->api.module_function(&c->f_fill, c->base, "gd_fill_addr")) != GD_CU_SUCCESS ||
	    (rc = c->cu->api.module_function(&c->f_check_addr, c->base, "gd_check_addr")) != GD_CU_SUCCESS ||
	    (rc = c->cu->api.module_function(&c->f_check_const, c->base, "gd_check_const")) != GD_CU_SUCCESS) {
		cu_fail(c, -1, "cuModuleGetFunction", rc);
		return false;
	}
	if (want(c, GD_PK_COMPUTE_BF16)) {
		if (!module_ok(c, gd_ptx_tensor, why, sizeof why)) {
			g->res[GD_PK_COMPUTE_BF16].status = GD_PR_SKIPPED;
			snprintf(g->res[GD_PK_COMPUTE_BF16].reason, sizeof g->res[0].reason, "no tensor module: %.175s", why);
		} else if (load_module(c, gd_ptx_tensor, &c->tensor, why, sizeof why) != GD_CU_SUCCESS ||
			   c->cu->api.module_function(&c->f_bf16, c->tensor, "gd_burn_bf16") != GD_CU_SUCCESS) {
			g->res[GD_PK_COMPUTE_BF16].status = GD_PR_FAILED;
			snprintf(g->res[GD_PK_COMPUTE_BF16].reason, sizeof g->res[0].reason, "tensor module: %.180s", why);
			c->f_bf16 = NULL;
		}
	}
	if ((rc = c->cu->api.stream_create(&c->st, GD_CU_STREAM_NON_BLOCKING)) != GD_CU_SUCCESS ||
	    (rc = c->cu->api.event_create(&c->e0, GD_CU_EVENT_DEFAULT)) != GD_CU_SUCCESS ||
	    (rc = c->cu->api.event_create(&c->e1, GD_CU_EVENT_DEFAULT)) != GD_CU_SUCCESS) {
		cu_fail(c, -1, "cuStreamCreate/cuEventCreate", rc);
		return false;
	}
	return true;
}

/* ---- compute burns ------------------------------------------------------- */

/* Runs launches of f in timed batches for shm->burn_s of GPU time; after
 * each batch the output is read back and compared with the first launch's. */
static void burn(struct gpu_ctx *c, int pk, CUfunction f, unsigned block, unsigned iters, size_t out_words,
		 double flop_per_launch, const void *in_host, size_t in_bytes)
{
	struct gd_probe_res *r = &c->g->res[pk];
	unsigned grid = (unsigned)c->g->sms * 4;
	size_t out_bytes = out_words * 4;
	CUdeviceptr in = 0, out = 0;
	uint32_t *first = NULL, *cur = NULL;
	double gpu_s = 0, flop = 0, t_end;
	unsigned batch = 1;
	CUresult rc;
	void *args[3] = { &out, &in, &iters };

	set_phase(c, pk, c->shm->burn_s * 2);
	if ((rc = c->cu->api.mem_alloc(&in, in_bytes)) != GD_CU_SUCCESS ||
	    (rc = c->cu->api.mem_alloc(&out, out_bytes)) != GD_CU_SUCCESS) {
		cu_fail(c, pk, "cuMemAlloc", rc);
		goto out;
	}
	if ((rc = c->cu->api.host_alloc((void **)&first, out_bytes, 0)) != GD_CU_SUCCESS ||
	    (rc = c->cu->api.host_alloc((void **)&cur, out_bytes, 0)) != GD_CU_SUCCESS) {
		cu_fail(c, pk, "cuMemHostAlloc", rc);
		goto out;
	}
	if ((rc = c->cu->api.h2d(in, in_host, in_bytes, c->st)) != GD_CU_SUCCESS) {
		cu_fail(c, pk, "cuMemcpyHtoDAsync", rc);
		goto out;
	}
	t_end = gd_probe_now() + c->shm->burn_s * 1.5;
	for (int round = 0; !c->shm->stop; round++) {
		double s;

		c->cu->api.event_record(c->e0, c->st);
		for (unsigned i = 0; i < batch; i++)
			if ((rc = c->cu->api.launch(f, grid, 1, 1, block, 1, 1, 0, c->st, args, NULL)) != GD_CU_SUCCESS)
				break;
		if (rc != GD_CU_SUCCESS) {
			cu_fail(c, pk, "cuLaunchKernel", rc);
			goto out;
		}
		c->cu->api.event_record(c->e1, c->st);
		if ((rc = elapsed_s(c, &s)) != GD_CU_SUCCESS) {
			cu_fail(c, pk, "kernel", rc);
			goto out;
		}
		if ((rc = c->cu->api.d2h(round ? cur : first, out, out_bytes, c->st)) != GD_CU_SUCCESS ||
		    (rc = c->cu->api.stream_sync(c->st)) != GD_CU_SUCCESS) {
			cu_fail(c, pk, "cuMemcpyDtoHAsync", rc);
			goto out;
		}
		if (round == 0) {
			r->digest = fnv1a(first, out_bytes);
		} else {
			r->errors += words_differ(first, cur, out_words);
			r->checked += out_words;
			gpu_s += s;
			flop += flop_per_launch * batch;
			r->seconds = gpu_s;
			r->achieved = gpu_s > 0 ? flop / gpu_s / 1e9 : 0;
		}
		if (round > 0 && (gpu_s >= c->shm->burn_s || gd_probe_now() >= t_end))
			break;
		if (s < BATCH_TARGET_S && batch < 4096)
			batch *= 2;
	}
	r->status = r->achieved > 0 ? GD_PR_OK : c->shm->stop ? GD_PR_NOT_RUN : GD_PR_FAILED;
	if (r->status != GD_PR_OK && !r->reason[0])
		snprintf(r->reason, sizeof r->reason, "stopped before a timed batch finished");
out:
	if (first)
		c->cu->api.host_free(first);
	if (cur)
		c->cu->api.host_free(cur);
	if (in)
		c->cu->api.mem_free(in);
	if (out)
		c->cu->api.mem_free(out);
}

static void burn_fp32(struct gpu_ctx *c)
{
	size_t threads = (size_t)c->g->sms * 4 * BURN_BLOCK;
	float *in = calloc(threads, sizeof *in);

	for (size_t i = 0; i < threads; i++)
		in[i] = (float)(i % 1024) / 1024.0f;
	burn(c, GD_PK_COMPUTE_FP32, c->f_burn, BURN_BLOCK, BURN_ITERS, threads,
	     (double)threads * BURN_ITERS * 8 * 2, in, threads * sizeof *in);
	free(in);
}

static void burn_bf16(struct gpu_ctx *c)
{
	size_t threads = (size_t)c->g->sms * 4 * BF16_BLOCK;
	uint32_t in[32 * 6];

	/* bf16 pairs of small values: 0x3c00 = 1/128 ... so sums stay finite */
	for (size_t i = 0; i < 32 * 6; i++)
		in[i] = (uint32_t)(0x3c00 + (i % 16)) << 16 | (uint32_t)(0x3c00 + (i % 7));
	burn(c, GD_PK_COMPUTE_BF16, c->f_bf16, BF16_BLOCK, BF16_ITERS, threads * 8,
	     (double)(threads / 32) * BF16_ITERS * 2 * 4096, in, sizeof in);
}

/* ---- device memory ------------------------------------------------------- */

static void mem_bandwidth(struct gpu_ctx *c)
{
	struct gd_probe_res *r = &c->g->res[GD_PK_MEM_BANDWIDTH];
	size_t free_b = 0, total = 0, bytes;
	CUdeviceptr src = 0, dst = 0;
	unsigned long long n16;
	unsigned reps = 1;
	CUresult rc;
	void *args[3] = { &dst, &src, &n16 };

	set_phase(c, GD_PK_MEM_BANDWIDTH, 10);
	c->cu->api.mem_info(&free_b, &total);
	bytes = free_b / 8 < (1ull << 30) ? free_b / 8 : (1ull << 30);
	bytes &= ~(size_t)4095;
	n16 = bytes / 16;
	if (!bytes || (rc = c->cu->api.mem_alloc(&src, bytes)) != GD_CU_SUCCESS ||
	    (rc = c->cu->api.mem_alloc(&dst, bytes)) != GD_CU_SUCCESS) {
		cu_fail(c, GD_PK_MEM_BANDWIDTH, "cuMemAlloc", bytes ? rc : GD_CU_ERROR_OUT_OF_MEMORY);
		goto out;
	}
	c->cu->api.memset32(src, 0x5a5a5a5a, bytes / 4, c->st);
	for (int round = 0; round < 8 && !c->shm->stop; round++) {
		double s;

		c->cu->api.event_record(c->e0, c->st);
		for (unsigned i = 0; i < reps; i++)
			if ((rc = c->cu->api.launch(c->f_copy, (unsigned)c->g->sms * 8, 1, 1, 256, 1, 1, 0, c->st, args,
						   NULL)) != GD_CU_SUCCESS)
				break;
		if (rc != GD_CU_SUCCESS) {
			cu_fail(c, GD_PK_MEM_BANDWIDTH, "cuLaunchKernel", rc);
			goto out;
		}
		c->cu->api.event_record(c->e1, c->st);
		if ((rc = elapsed_s(c, &s)) != GD_CU_SUCCESS) {
			cu_fail(c, GD_PK_MEM_BANDWIDTH, "copy kernel", rc);
			goto out;
		}
		if (round > 0 && s > 0) {   /* the first round warms up */
			double gbps = (double)bytes * reps / s / 1e9;

			if (gbps > r->achieved)   /* the best round, as DCGM judges */
				r->achieved = gbps;
			r->seconds += s;
		}
		if (s < BATCH_TARGET_S / 5 && reps < 1024)
			reps *= 2;
	}
	r->status = r->achieved > 0 ? GD_PR_OK : GD_PR_FAILED;
out:
	if (src)
		c->cu->api.mem_free(src);
	if (dst)
		c->cu->api.mem_free(dst);
}

static CUresult check_words(struct gpu_ctx *c, CUfunction f, CUdeviceptr p, unsigned long long n, unsigned pat,
			    CUdeviceptr errs, uint32_t *bad)
{
	void *args[4] = { &p, &n, &pat, &errs };
	CUresult rc;

	*bad = 0;
	if ((rc = c->cu->api.memset32(errs, 0, 1, c->st)) != GD_CU_SUCCESS ||
	    (rc = c->cu->api.launch(f, (unsigned)c->g->sms * 8, 1, 1, 256, 1, 1, 0, c->st, args, NULL)) !=
		    GD_CU_SUCCESS ||
	    (rc = c->cu->api.d2h(bad, errs, 4, c->st)) != GD_CU_SUCCESS)
		return rc;
	return c->cu->api.stream_sync(c->st);
}

/* Writes and checks patterns over most of the free memory. */
static void mem_pattern(struct gpu_ctx *c)
{
	static const unsigned consts[] = { 0x00000000u, 0xffffffffu, 0xaaaaaaaau, 0x55555555u };
	struct gd_probe_res *r = &c->g->res[GD_PK_MEM_PATTERN];
	size_t free_b = 0, total = 0, bytes, head;
	CUdeviceptr p = 0, errs = 0;
	unsigned long long n;
	double t0, t_end;
	uint32_t *bad = NULL;
	CUresult rc = GD_CU_SUCCESS;

	set_phase(c, GD_PK_MEM_PATTERN, c->shm->pattern_s + 30);
	c->cu->api.mem_info(&free_b, &total);
	head = total / 32 > HEADROOM_MIN ? total / 32 : HEADROOM_MIN;
	bytes = (size_t)((double)free_b * c->shm->mem_fraction);
	if (free_b > head && bytes > free_b - head)
		bytes = free_b - head;
	if (free_b <= head)
		bytes = free_b / 2;
	/* less and less on OUT_OF_MEMORY, down to half of the first try */
	for (size_t floor = bytes / 2; bytes >= floor && bytes >= 4096; bytes -= bytes / 16) {
		bytes &= ~(size_t)4095;
		if ((rc = c->cu->api.mem_alloc(&p, bytes)) == GD_CU_SUCCESS)
			break;
		p = 0;
		if (rc != GD_CU_ERROR_OUT_OF_MEMORY)
			break;
	}
	if (!p) {
		cu_fail(c, GD_PK_MEM_PATTERN, "cuMemAlloc of the pattern region", rc);
		return;
	}
	c->g->mem_tested_bytes = bytes;
	n = bytes / 4;
	if ((rc = c->cu->api.mem_alloc(&errs, 4)) != GD_CU_SUCCESS ||
	    (rc = c->cu->api.host_alloc((void **)&bad, 4, 0)) != GD_CU_SUCCESS) {
		cu_fail(c, GD_PK_MEM_PATTERN, "cuMemAlloc", rc);
		goto out;
	}
	t0 = gd_probe_now();
	t_end = t0 + c->shm->pattern_s;
	do {
		for (size_t i = 0; i < 6 && !c->shm->stop; i++) {
			unsigned pat = i < 4 ? consts[i] : (i == 4 ? 0x9e3779b9u : 0x61c88647u);
			CUfunction chk = i < 4 ? c->f_check_const : c->f_check_addr;

			if (i < 4) {
				rc = c->cu->api.memset32(p, pat, n, c->st);
			} else {
				void *args[3] = { &p, &n, &pat };

				rc = c->cu->api.launch(c->f_fill, (unsigned)c->g->sms * 8, 1, 1, 256, 1, 1, 0, c->st, args,
						       NULL);
			}
			if (rc != GD_CU_SUCCESS || (rc = check_words(c, chk, p, n, pat, errs, bad)) != GD_CU_SUCCESS) {
				cu_fail(c, GD_PK_MEM_PATTERN, "pattern pass", rc);
				goto out;
			}
			r->errors += *bad;
			r->checked += n;
		}
	} while (!c->shm->stop && gd_probe_now() < t_end);
	r->seconds = gd_probe_now() - t0;
	r->achieved = r->seconds > 0 ? (double)r->checked * 4 * 2 / r->seconds / 1e9 : 0;
	r->status = GD_PR_OK;
out:
	if (bad)
		c->cu->api.host_free(bad);
	if (errs)
		c->cu->api.mem_free(errs);
	c->cu->api.mem_free(p);
}

/* ---- host <-> device ----------------------------------------------------- */

/* Times reps copies one way; d2h copies are checked against the pattern
 * the host wrote (the device holds what h2d put there). */
static void copies(struct gpu_ctx *c, int pk, bool d2h)
{
	struct gd_probe_res *r = &c->g->res[pk];
	size_t free_b = 0, total = 0, bytes;
	void *host = NULL, *back = NULL;
	CUdeviceptr dev = 0;
	CUresult rc;
	const int reps = 8;

	set_phase(c, pk, 20);
	c->cu->api.mem_info(&free_b, &total);
	bytes = free_b / 16 < COPY_MAX ? free_b / 16 : COPY_MAX;
	bytes &= ~(size_t)4095;
	if (!bytes || (rc = c->cu->api.mem_alloc(&dev, bytes)) != GD_CU_SUCCESS) {
		cu_fail(c, pk, "cuMemAlloc", bytes ? rc : GD_CU_ERROR_OUT_OF_MEMORY);
		return;
	}
	if ((rc = c->cu->api.host_alloc(&host, bytes, GD_CU_MEMHOSTALLOC_PORTABLE)) != GD_CU_SUCCESS ||
	    (rc = c->cu->api.host_alloc(&back, bytes, GD_CU_MEMHOSTALLOC_PORTABLE)) != GD_CU_SUCCESS) {
		cu_fail(c, pk, "cuMemHostAlloc (pinned)", rc);
		goto out;
	}
	for (size_t i = 0; i < bytes / 4; i++)
		((uint32_t *)host)[i] = (uint32_t)i * 2654435761u ^ 0x5bd1e995u;
	/* warm-up: idle links train down and take a moment to come back */
	if ((rc = c->cu->api.h2d(dev, host, bytes, c->st)) != GD_CU_SUCCESS ||
	    (rc = c->cu->api.stream_sync(c->st)) != GD_CU_SUCCESS) {
		cu_fail(c, pk, "cuMemcpyHtoDAsync", rc);
		goto out;
	}
	c->cu->api.event_record(c->e0, c->st);
	for (int i = 0; i < reps; i++) {
		rc = d2h ? c->cu->api.d2h(back, dev, bytes, c->st) : c->cu->api.h2d(dev, host, bytes, c->st);
		if (rc != GD_CU_SUCCESS) {
			cu_fail(c, pk, d2h ? "cuMemcpyDtoHAsync" : "cuMemcpyHtoDAsync", rc);
			goto out;
		}
	}
	c->cu->api.event_record(c->e1, c->st);
	if ((rc = elapsed_s(c, &r->seconds)) != GD_CU_SUCCESS) {
		cu_fail(c, pk, "copy", rc);
		goto out;
	}
	if (!d2h && ((rc = c->cu->api.d2h(back, dev, bytes, c->st)) != GD_CU_SUCCESS ||
		     (rc = c->cu->api.stream_sync(c->st)) != GD_CU_SUCCESS)) {
		cu_fail(c, pk, "cuMemcpyDtoHAsync", rc);
		goto out;
	}
	r->errors = words_differ(host, back, bytes / 4);
	r->checked = bytes / 4;
	r->achieved = r->seconds > 0 ? (double)bytes * reps / r->seconds / 1e9 : 0;
	r->status = r->achieved > 0 ? GD_PR_OK : GD_PR_FAILED;
out:
	if (host)
		c->cu->api.host_free(host);
	if (back)
		c->cu->api.host_free(back);
	c->cu->api.mem_free(dev);
}

/* ---- the thread of one GPU ----------------------------------------------- */

static void *gpu_thread(void *arg)
{
	struct gpu_ctx *c = arg;
	bool ok = c->g->ordinal >= 0 && setup(c);
	int n = c->shm->ngpus;

	if (ok && c->cu->api.ctx_set_current(c->ctx) != GD_CU_SUCCESS)
		ok = false;
	c->g->phase = GD_PK_NONE;
	pthread_barrier_wait(c->bar);
	if (ok && want(c, GD_PK_COMPUTE_FP32) && !c->shm->stop)
		burn_fp32(c);
	c->g->phase = GD_PK_NONE;   /* waiting at the barrier is not this GPU's doing */
	pthread_barrier_wait(c->bar);
	if (ok && want(c, GD_PK_COMPUTE_BF16) && c->f_bf16 && !c->shm->stop)
		burn_bf16(c);
	c->g->phase = GD_PK_NONE;
	pthread_barrier_wait(c->bar);
	if (ok && want(c, GD_PK_MEM_BANDWIDTH) && !c->shm->stop)
		mem_bandwidth(c);
	if (ok && want(c, GD_PK_MEM_PATTERN) && !c->shm->stop)
		mem_pattern(c);
	c->g->phase = GD_PK_NONE;
	/* alone: one GPU at a time */
	for (int t = 0; t < n; t++) {
		pthread_barrier_wait(c->bar);
		if (t == c->me && ok && want(c, GD_PK_H2D) && !c->shm->stop)
			copies(c, GD_PK_H2D, false);
		if (t == c->me && ok && want(c, GD_PK_D2H) && !c->shm->stop)
			copies(c, GD_PK_D2H, true);
		c->g->phase = GD_PK_NONE;
	}
	pthread_barrier_wait(c->bar);
	if (ok && want(c, GD_PK_H2D_ALL) && n > 1 && !c->shm->stop)
		copies(c, GD_PK_H2D_ALL, false);
	c->g->phase = GD_PK_NONE;
	pthread_barrier_wait(c->bar);
	if (ok && want(c, GD_PK_D2H_ALL) && n > 1 && !c->shm->stop)
		copies(c, GD_PK_D2H_ALL, true);
	c->g->phase = GD_PK_NONE;
	if (ok) {
		/* a buffer for the peer copies, kept until the end */
		size_t free_b = 0, total = 0;

		c->cu->api.mem_info(&free_b, &total);
		c->copy_bytes = free_b / 16 < P2P_MAX ? free_b / 16 : P2P_MAX;
		c->copy_bytes &= ~(size_t)4095;
		if (!c->copy_bytes || c->cu->api.mem_alloc(&c->copy_buf, c->copy_bytes) != GD_CU_SUCCESS)
			c->copy_buf = 0;
	}
	/* probes never run stay "not run"; those that set-up failed say why */
	for (int pk = 0; pk < GD_PK_COUNT; pk++)
		if (!ok && want(c, pk) && c->g->res[pk].status == GD_PR_NOT_RUN) {
			c->g->res[pk].status = GD_PR_FAILED;
			snprintf(c->g->res[pk].reason, sizeof c->g->res[pk].reason, "%.195s",
				 c->g->error[0] ? c->g->error : "the GPU could not be set up");
		}
	return NULL;
}

/* ---- peers (the child's main thread, after the GPU threads) -------------- */

static void p2p(struct gd_probe_shm *shm, struct gd_cuda *cu, struct gpu_ctx *cs, int n)
{
	shm->phase = GD_PK_P2P;
	for (int i = 0; i < n && !shm->stop; i++) {
		for (int j = 0; j < n && !shm->stop; j++) {
			struct gd_probe_res *r = &shm->gpu[i].p2p[j];
			struct gpu_ctx *a = &cs[i], *b = &cs[j];
			size_t bytes = a->copy_bytes < b->copy_bytes ? a->copy_bytes : b->copy_bytes;
			int can = 0;
			double s;
			CUresult rc;
			char eb[96];

			if (i == j || !a->copy_buf || !b->copy_buf)
				continue;
			shm->phase_deadline = gd_probe_now() + 10 + shm->budget_s;
			if (cu->api.can_peer(&can, a->dev, b->dev) != GD_CU_SUCCESS || !can) {
				r->status = GD_PR_SKIPPED;
				snprintf(r->reason, sizeof r->reason, "the driver says gpu%d cannot reach gpu%d", i, j);
				continue;
			}
			r->status = GD_PR_RUNNING;
			cu->api.ctx_set_current(a->ctx);
			rc = cu->api.enable_peer(b->ctx, 0);
			if (rc != GD_CU_SUCCESS && rc != GD_CU_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
				r->status = GD_PR_FAILED;
				snprintf(r->reason, sizeof r->reason, "cuCtxEnablePeerAccess: %s",
					 gd_cuda_strerror(cu, rc, eb, sizeof eb));
				continue;
			}
			cu->api.peer_copy(b->copy_buf, b->ctx, a->copy_buf, a->ctx, bytes, a->st);  /* warm-up */
			cu->api.event_record(a->e0, a->st);
			for (int k = 0; k < 4; k++)
				rc = cu->api.peer_copy(b->copy_buf, b->ctx, a->copy_buf, a->ctx, bytes, a->st);
			cu->api.event_record(a->e1, a->st);
			if (rc == GD_CU_SUCCESS)
				rc = elapsed_s(a, &s);
			if (rc != GD_CU_SUCCESS) {
				r->status = GD_PR_FAILED;
				snprintf(r->reason, sizeof r->reason, "cuMemcpyPeerAsync: %s",
					 gd_cuda_strerror(cu, rc, eb, sizeof eb));
				continue;
			}
			r->seconds = s;
			r->achieved = s > 0 ? (double)bytes * 4 / s / 1e9 : 0;
			r->status = r->achieved > 0 ? GD_PR_OK : GD_PR_FAILED;
		}
	}
	shm->phase = GD_PK_NONE;
}

static void release(struct gd_cuda *cu, struct gpu_ctx *c)
{
	if (!c->ctx_ok)
		return;
	cu->api.ctx_set_current(c->ctx);
	if (c->copy_buf)
		cu->api.mem_free(c->copy_buf);
	if (c->e0)
		cu->api.event_destroy(c->e0);
	if (c->e1)
		cu->api.event_destroy(c->e1);
	if (c->st)
		cu->api.stream_destroy(c->st);
	if (c->tensor)
		cu->api.module_unload(c->tensor);
	if (c->base)
		cu->api.module_unload(c->base);
	cu->api.ctx_set_current(NULL);
	cu->api.ctx_release(c->dev);
}

/* Bus ids compared as numbers: CUDA prints "0000:1B:00.0", NVML
 * "00000000:1B:00.0" (PROBES.md §1.2). */
static bool same_bus(const char *a, const char *b)
{
	unsigned d1, b1, s1, f1, d2, b2, s2, f2;

	return sscanf(a, "%x:%x:%x.%x", &d1, &b1, &s1, &f1) == 4 && sscanf(b, "%x:%x:%x.%x", &d2, &b2, &s2, &f2) == 4 &&
	       d1 == d2 && b1 == b2 && s1 == s2 && f1 == f2;
}

int gd_probe_child(struct gd_probe_shm *shm)
{
	struct gd_cuda cu;
	struct gpu_ctx cs[GD_PROBE_MAX_GPUS];
	pthread_t th[GD_PROBE_MAX_GPUS];
	pthread_barrier_t bar;
	int n = shm->ngpus, count = 0;

	shm->phase = GD_PK_SETUP;
	shm->phase_deadline = gd_probe_now() + 60 + shm->budget_s;
	if (gd_cuda_open(&cu, shm->cuda_path) < 0) {
		snprintf(shm->fatal, sizeof shm->fatal, "%s", cu.reason);
		snprintf(shm->cuda_library, sizeof shm->cuda_library, "%s", cu.lib ? cu.library : "");
		shm->cuda_init_error = cu.init_error;
		gd_cuda_close(&cu);
		return 3;
	}
	shm->driver_version = cu.driver_version;
	snprintf(shm->cuda_library, sizeof shm->cuda_library, "%s", cu.library);
	if (cu.api.device_count(&count) != GD_CU_SUCCESS || count <= 0) {
		snprintf(shm->fatal, sizeof shm->fatal, "the CUDA driver (%s) counts no device", cu.library);
		gd_cuda_close(&cu);
		return 3;
	}
	shm->cuda_devices = count;
	for (int i = 0; i < n; i++) {
		shm->gpu[i].ordinal = -1;
		for (int o = 0; o < count; o++) {
			char bus[32] = "";
			CUdevice d;

			if (cu.api.device_get(&d, o) == GD_CU_SUCCESS &&
			    cu.api.pci_bus_id(bus, sizeof bus, d) == GD_CU_SUCCESS && same_bus(bus, shm->gpu[i].bus_id))
				shm->gpu[i].ordinal = d;
		}
		if (shm->gpu[i].ordinal < 0) {
			char bus[sizeof shm->gpu[i].bus_id];

			memcpy(bus, shm->gpu[i].bus_id, sizeof bus);
			bus[sizeof bus - 1] = '\0';
			snprintf(shm->gpu[i].error, sizeof shm->gpu[i].error,
				 "CUDA lists no device at %s (CUDA_VISIBLE_DEVICES or a container may hide it)", bus);
		}
	}
	pthread_barrier_init(&bar, NULL, (unsigned)n);
	memset(cs, 0, sizeof cs);
	for (int i = 0; i < n; i++) {
		cs[i] = (struct gpu_ctx){ .shm = shm, .cu = &cu, .g = &shm->gpu[i], .me = i, .bar = &bar };
		if (pthread_create(&th[i], NULL, gpu_thread, &cs[i]) != 0) {
			snprintf(shm->fatal, sizeof shm->fatal, "cannot start a thread: %s", strerror(errno));
			return 3;   /* the process ends: the driver frees what it holds */
		}
	}
	/* from here each GPU's thread has its own phases and deadlines (its
	 * own setup included): the process-wide setup deadline would kill a
	 * probe longer than it */
	shm->phase = GD_PK_NONE;
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&bar);
	if ((shm->want & GD_PROBE_WANT_P2P) && n > 1)
		p2p(shm, &cu, cs, n);
	for (int i = 0; i < n; i++)
		release(&cu, &cs[i]);
	gd_cuda_close(&cu);
	shm->done = 1;
	return 0;
}
