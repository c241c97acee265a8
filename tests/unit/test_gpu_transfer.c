/*
 * test_gpu_transfer.c - gpu.transfer_serialized and its evidence.
 *
 * The rule over hand-built windows of gpu_activity[] (copies and compute
 * taking turns fires with its numbers; overlapped, copy-only and too short
 * stay silent or unknown; GPM preferred over PCIe readings; the main
 * thread's samples heard when there are some), then the sub-second
 * sampling itself through the fake NVML, loaded through the real path: GPM
 * series in the order the fake scripts them, the PCIe fallback, a GPU with
 * neither reported with the reason, GPM samples given back at close, and
 * a sampling call that hangs named by the next call's missed deadline
 * (last: it leaves a thread asleep in the fake).  And SM activity against
 * utilisation (rules/gpu_busy.c): a GPU "100% utilised" by one thin kernel
 * is idle for gpu.idle_while_job_runs and job.waiting_for_peers.
 */
#include "testutil.h"

#include <dlfcn.h>
#include <time.h>

#include "collect/collectors.h"
#include "nvml/nvml.h"
#include "rules/thresholds.h"
#include "gpu_rules_fixture.h"

#define FAKE GD_BUILDDIR "/fake_nvml/libnvidia-ml.so.1"
#define SCEN(name) GD_SRCDIR "/tests/fake_nvml/scenarios/" name ".ini"
#define T0_US 1796134590000000ull   /* a's wall time */
#define ID "gpu.transfer_serialized"

/* ---- rule ------------------------------------------------------------------ */

/* gpu0 used by pid 4711 in both snapshots, a and b 2 s apart by the wall
 * clock too. */
static void job_gpu(struct fx *f)
{
	struct gd_snapshot *ss[2] = { &f->a, &f->b };

	for (int k = 0; k < 2; k++) {
		struct gd_gpu_proc *gp;
		struct gd_proc *p;

		healthy_gpu(ss[k], 0);
		gp = GD_PUSH(ss[k], gpu_procs, struct gd_gpu_proc);
		gd_u64_set(&gp->gpu, 0);
		gd_u64_set(&gp->pid, 4711);
		gd_u64_set(&gp->graphics, 0);
		gd_u64_set(&gp->used_mem_bytes, 1ull << 34);
		p = GD_PUSH(ss[k], procs, struct gd_proc);
		gd_u64_set(&p->pid, 4711);
		gd_u64_set(&p->ppid, 1);
		GD_STRSET(p->comm, "python");
		gd_f64_set(&ss[k]->host.wall_time_s, (double)(T0_US + 2000000ull * (uint64_t)k) / 1e6);
	}
}

/* One interval of gpu0 in b, at ms after a's wall time: busy_pct is SM
 * activity (gpm) or utilisation (pcie_throughput), rx_mb MB/s in. */
static void act(struct gd_snapshot *s, unsigned int ms, const char *src, double busy_pct, double rx_mb)
{
	struct gd_gpu_activity *r = GD_PUSH(s, gpu_activity, struct gd_gpu_activity);

	gd_u64_set(&r->gpu, 0);
	gd_u64_set(&r->t_us, T0_US + ms * 1000ull);
	gd_u64_set(&r->interval_us, 100000);
	GD_STRSET(r->source, src);
	gd_f64_set(strcmp(src, "gpm") == 0 ? &r->sm_active_pct : &r->util_pct, busy_pct);
	gd_f64_set(&r->pcie_rx_bytes_s, rx_mb * 1e6);
	gd_f64_set(&r->pcie_tx_bytes_s, 5e6);
}

/* n intervals of gpu0 in b, 100 ms apart from 100 ms on: busy[i % m] and
 * rx[i % m]. */
static void series(struct gd_snapshot *b, const char *src, size_t n, const double *busy, const double *rx, size_t m)
{
	for (size_t i = 0; i < n; i++)
		act(b, (unsigned int)(100 * (i + 1)), src, busy[i % m], rx[i % m]);
}

static const double TURNS_BUSY[2] = { 0, 96 }, TURNS_RX[2] = { 9400, 3 };

/* The main thread of 4711 with samples {cuda, nccl, python, framework,
 * kernel, other} over the window. */
static void main_thread(struct fx *f, const uint64_t *s1)
{
	struct gd_snapshot *ss[2] = { &f->a, &f->b };

	for (int k = 0; k < 2; k++) {
		struct gd_job_thread *t = GD_PUSH(ss[k], job_threads, struct gd_job_thread);
		struct gd_u64 *c[6] = { &t->samples_cuda, &t->samples_nccl, &t->samples_python, &t->samples_framework,
					&t->samples_kernel, &t->samples_other };

		gd_u64_set(&t->pid, 4711);
		gd_u64_set(&t->tid, 4711);
		GD_STRSET(t->comm, "python");
		GD_STRSET(t->role, "main");
		GD_STRSET(t->syscall, "running");
		gd_u64_set(&t->run_ns, 1000000000ull + (uint64_t)k * 1900000000ull);
		gd_u64_set(&t->wait_ns, 0);
		gd_u64_set(&t->sampled, 1);
		for (int i = 0; i < 6; i++)
			gd_u64_set(c[i], k ? s1[i] : 0);
	}
}

static void sampler_source(struct gd_snapshot *s, const char *name, const char *status, const char *reason)
{
	struct gd_source *src = GD_PUSH(s, sources, struct gd_source);

	GD_STRSET(src->name, name);
	GD_STRSET(src->status, status);
	GD_STRSET(src->reason, reason);
}

static void test_fires_pcie_unsampled(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *fd;

	job_gpu(f);
	series(&f->b, "pcie_throughput", 10, TURNS_BUSY, TURNS_RX, 2);
	sampler_source(&f->b, "job_samples", "denied",
		       "perf_event_open: Permission denied: run gpudoctor as root or with CAP_PERFMON");
	assert_int_equal(run_fx(f, ID, false), GD_VERDICT_FIRED);
	fd = only_finding(f);
	assert_string_equal(fd->subject, "gpu0 (0000:1b:00.0)");
	assert_ev(fd, "copy_share_pct", 50, 20);
	assert_ev(fd, "compute_share_pct", 50, 20);
	assert_ev(fd, "overlap_pct", 0, 20);
	assert_ev(fd, "intervals", 10, 8);
	assert_ev(fd, "copy_mb_per_s", 9405, 250);
	assert_string_equal(ev_get(fd, "source")->text, "pcie_throughput");
	assert_string_equal(ev_get(fd, "main_thread")->text, "not sampled");
	assert_contains(fd->summary, "copies in 50% of its 10 busy sub-second intervals, kernels in 50%, both at once "
				     "in only 0%");
	assert_contains(fd->summary, "pid 4711 (python)");
	assert_contains(fd->summary, "job_samples denied: perf_event_open: Permission denied");
	assert_contains(fd->remedy, "pin_memory=True");
	assert_contains(fd->remedy, "non_blocking=True");
	assert_contains(fd->remedy, "separate CUDA stream");
	assert_contains(fd->remedy, "prefetch");
}

static void test_main_thread(void **state)
{
	struct fx *f = *state;
	const uint64_t in_cuda[6] = { 60, 0, 20, 5, 15, 0 };
	const uint64_t in_python[6] = { 5, 0, 80, 10, 5, 0 };
	const uint64_t few[6] = { 3, 0, 1, 0, 0, 0 };
	const struct gd_finding *fd;

	/* waiting in libcuda: fires with its shares */
	job_gpu(f);
	main_thread(f, in_cuda);
	series(&f->b, "gpm", 12, TURNS_BUSY, TURNS_RX, 2);
	assert_int_equal(run_fx(f, ID, false), GD_VERDICT_FIRED);
	fd = only_finding(f);
	assert_ev(fd, "main_cuda_pct", 60, 30);
	assert_string_equal(ev_get(fd, "main_thread")->text, "60% cuda, 20% python, 15% kernel, 5% framework");
	assert_string_equal(ev_get(fd, "source")->text, "gpm");
	assert_contains(fd->summary, "has 60% of its samples in the CUDA libraries");
	/* busy in Python: job.host_bound's case, not this one */
	fx_reset(f);
	job_gpu(f);
	main_thread(f, in_python);
	series(&f->b, "gpm", 12, TURNS_BUSY, TURNS_RX, 2);
	assert_int_equal(run_fx(f, ID, false), GD_VERDICT_CLEAR);
	/* too few samples to tell: as unsampled, said so */
	fx_reset(f);
	job_gpu(f);
	main_thread(f, few);
	series(&f->b, "gpm", 12, TURNS_BUSY, TURNS_RX, 2);
	assert_int_equal(run_fx(f, ID, false), GD_VERDICT_FIRED);
	assert_string_equal(ev_get(only_finding(f), "main_thread")->text, "not sampled");
}

/* gpu0 at 30% utilisation with 12 GPM intervals of busy[i % m], rx[i % m]:
 * gpu.idle_while_job_runs fires; its explained_by evidence. */
static const char *idle_explained(struct fx *f, const double *busy, const double *rx, size_t m,
				  const struct gd_finding **fd)
{
	const struct gd_evidence *e;

	fx_reset(f);
	job_gpu(f);
	gd_u64_set(&GD_VEC_AT(f->a.gpus, struct gd_gpu, 0)->util_gpu_pct, 30);
	gd_u64_set(&GD_VEC_AT(f->b.gpus, struct gd_gpu, 0)->util_gpu_pct, 30);
	series(&f->b, "gpm", 12, busy, rx, m);
	assert_int_equal(run_fx(f, "gpu.idle_while_job_runs", false), GD_VERDICT_FIRED);
	*fd = only_finding(f);
	e = ev_get(*fd, "explained_by");
	assert_non_null(e);
	return e->text;
}

/* gpu.idle_while_job_runs names gpu.transfer_serialized as what explains
 * an idle GPU whose copies and kernels take turns, and not when they
 * overlap. */
static void test_idle_gpu_explained(void **state)
{
	struct fx *f = *state;
	static const double OVER_BUSY[1] = { 96 }, OVER_RX[1] = { 9400 };
	const struct gd_finding *fd;

	assert_non_null(strstr(idle_explained(f, TURNS_BUSY, TURNS_RX, 2, &fd),
			       "gpu.transfer_serialized (copies 50%, overlap 0%)"));
	if (!strstr(fd->summary, "likely cause: ") || !strstr(fd->summary, "gpu.transfer_serialized (copies 50%, overlap 0%)"))
		fail_msg("summary: %s", fd->summary);
	/* overlapped copies explain nothing */
	assert_null(strstr(idle_explained(f, OVER_BUSY, OVER_RX, 1, &fd), "transfer_serialized"));
	assert_null(strstr(fd->summary, "likely cause: "));
}

/* A fresh window of gpu0 with n GPM intervals (series) and the verdict. */
static enum gd_verdict gpm_case(struct fx *f, size_t n, const double *busy, const double *rx, size_t m)
{
	fx_reset(f);
	job_gpu(f);
	series(&f->b, "gpm", n, busy, rx, m);
	return run_fx(f, ID, false);
}

static void test_overlapped_and_one_sided(void **state)
{
	struct fx *f = *state;
	const double ov_busy[2] = { 96, 97 }, ov_rx[2] = { 9400, 3 };
	const double idle_busy[3] = { 0, 0, 96 }, idle_rx[3] = { 9400, 1, 3 };
	const double copy_busy[1] = { 0 }, copy_rx[1] = { 9400 };
	const double comp_busy[1] = { 97 }, comp_rx[1] = { 3 };

	/* copies under the kernels half the time: overlapped */
	assert_int_equal(gpm_case(f, 12, ov_busy, ov_rx, 2), GD_VERDICT_CLEAR);
	/* idle intervals are not busy: 3 copy, 3 compute, 3 idle of 9 */
	assert_int_equal(gpm_case(f, 9, idle_busy, idle_rx, 3), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "has 6 busy sub-second intervals in the window, 8 needed");
	/* 10 busy of 15: 5 copy, 5 compute */
	assert_int_equal(gpm_case(f, 15, idle_busy, idle_rx, 3), GD_VERDICT_FIRED);
	assert_ev(only_finding(f), "intervals", 10, 8);
	assert_ev(only_finding(f), "copy_share_pct", 50, 20);
	/* only copies, or only compute: nothing to overlap */
	assert_int_equal(gpm_case(f, 12, copy_busy, copy_rx, 1), GD_VERDICT_CLEAR);
	assert_int_equal(gpm_case(f, 12, comp_busy, comp_rx, 1), GD_VERDICT_CLEAR);
}

static void test_unknown_without_samples(void **state)
{
	struct fx *f = *state;

	/* no interval at all; the source says why */
	job_gpu(f);
	sampler_source(&f->b, "gpu_activity", "absent",
		       "gpu0 not sampled: no GPM on this GPU (Hopper and newer have it), and no "
		       "nvmlDeviceGetPcieThroughput");
	assert_int_equal(run_fx(f, ID, false), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "gpu0 (0000:1b:00.0): gpu_activity absent: gpu0 not sampled: no GPM");
	/* the snapshot's own readings only (a series of separate snapshots) */
	fx_reset(f);
	job_gpu(f);
	series(&f->b, "pcie_throughput", 2, TURNS_BUSY, TURNS_RX, 2);
	assert_int_equal(run_fx(f, ID, false), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "has 2 busy sub-second intervals in the window, 8 needed");
	/* no GPU job on the GPU: nothing to judge */
	fx_reset(f);
	healthy_gpu(&f->a, 0);
	healthy_gpu(&f->b, 0);
	series(&f->b, "gpm", 12, TURNS_BUSY, TURNS_RX, 2);
	assert_int_equal(run_fx(f, ID, false), GD_VERDICT_CLEAR);
	/* no NVML: unknown with its reason */
	fx_reset(f);
	nvml_absent(&f->b);
	assert_int_equal(run_fx(f, ID, false), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&f->out), "libnvidia-ml.so.1 not found");
}

static void test_window_and_sources(void **state)
{
	struct fx *f = *state;
	const double over_busy[1] = { 96 }, over_rx[1] = { 9400 };

	/* intervals before the window (in a, or stamped before a's time) and
	 * after b's do not count */
	job_gpu(f);
	for (unsigned int i = 0; i < 12; i++)
		act(&f->a, 0, "gpm", i % 2 ? 96 : 0, i % 2 ? 3 : 9400);
	for (unsigned int i = 0; i < 12; i++)
		act(&f->b, 2100 + i, "gpm", i % 2 ? 96 : 0, i % 2 ? 3 : 9400);
	assert_int_equal(run_fx(f, ID, false), GD_VERDICT_UNKNOWN);
	/* GPM preferred: PCIe readings that look serialised are left out when
	 * GPM intervals (overlapped) exist */
	fx_reset(f);
	job_gpu(f);
	series(&f->b, "pcie_throughput", 12, TURNS_BUSY, TURNS_RX, 2);
	series(&f->b, "gpm", 12, over_busy, over_rx, 1);
	assert_int_equal(run_fx(f, ID, false), GD_VERDICT_CLEAR);
	/* a reading without PCIe bytes or without a busy share is left out */
	fx_reset(f);
	job_gpu(f);
	series(&f->b, "gpm", 12, TURNS_BUSY, TURNS_RX, 2);
	GD_VEC_EACH(f->b.gpu_activity, struct gd_gpu_activity, r) {
		if (r->t_us.v > T0_US + 400000) {
			r->pcie_rx_bytes_s.ok = false;
			r->pcie_tx_bytes_s.ok = false;
		}
	}
	assert_int_equal(run_fx(f, ID, false), GD_VERDICT_UNKNOWN);
}

static void test_thresholds(void **state)
{
	struct fx *f = *state;
	struct gd_thresholds th;
	const double some_busy[4] = { 0, 96, 96, 96 }, some_rx[4] = { 9400, 3, 3, 9400 };

	/* 12 intervals: copy 6 (3 alone, 3 with compute), compute 9; overlap 3/12 = 25% */
	job_gpu(f);
	series(&f->b, "gpm", 12, some_busy, some_rx, 4);
	gd_thresholds_init(&th);
	assert_override(ID, &f->a, &f->b, &th, &f->out, "gpu.transfer_serialized.overlap_pct", "30", GD_VERDICT_CLEAR,
			GD_VERDICT_FIRED);
	gd_thresholds_init(&th);
	gd_findings_release(&f->out);
	gd_findings_init(&f->out);
	assert_override(ID, &f->a, &f->b, &th, &f->out, "gpu.transfer_serialized.min_intervals", "13",
			GD_VERDICT_CLEAR, GD_VERDICT_UNKNOWN);
	/* a copy rate threshold above 9.4 GB/s: no interval copies */
	fx_reset(f);
	job_gpu(f);
	series(&f->b, "gpm", 20, TURNS_BUSY, TURNS_RX, 2);
	gd_thresholds_init(&th);
	assert_override(ID, &f->a, &f->b, &th, &f->out, "gpu.transfer_serialized.copy_mb_per_s", "10000",
			GD_VERDICT_FIRED, GD_VERDICT_CLEAR);
}

/* ---- SM activity: a resident kernel is not a busy GPU --------------------- */

/* gpu0 at util% in both snapshots with n GPM intervals at sm% SM activity
 * (3% occupancy, no tensor work, 2% DRAM bandwidth); the verdict of id. */
static enum gd_verdict thin_case(struct fx *f, const char *id, unsigned int util, size_t n, double sm)
{
	fx_reset(f);
	job_gpu(f);
	gd_u64_set(&GD_VEC_AT(f->a.gpus, struct gd_gpu, 0)->util_gpu_pct, util);
	gd_u64_set(&GD_VEC_AT(f->b.gpus, struct gd_gpu, 0)->util_gpu_pct, util);
	for (size_t i = 0; i < n; i++) {
		struct gd_gpu_activity *r;

		act(&f->b, (unsigned int)(100 * (i + 1)), "gpm", sm, 1);
		r = GD_VEC_AT(f->b.gpu_activity, struct gd_gpu_activity, f->b.gpu_activity.n - 1);
		gd_f64_set(&r->sm_occupancy_pct, 3);
		gd_f64_set(&r->tensor_active_pct, 0);
		gd_f64_set(&r->dram_bw_pct, 2);
	}
	return run_fx(f, id, false);
}

/* "util 100% but SM activity 8%": gpu.idle_while_job_runs says it, with the
 * GPM evidence; a GPU whose SMs are busy, or too few intervals, or a lower
 * threshold: silent. */
static void test_thin_kernel(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *fd;
	struct gd_thresholds th;

	assert_int_equal(thin_case(f, "gpu.idle_while_job_runs", 100, 18, 8), GD_VERDICT_FIRED);
	fd = only_finding(f);
	assert_contains(fd->summary, "gpu0 (0000:1b:00.0) averaged 100% utilisation but only 8% SM activity over 2.0 s "
				     "(threshold 15%: utilisation counts any resident kernel, the SMs mostly idled) "
				     "while pid 4711 (python) uses it");
	assert_ev(fd, "util_pct", 100, 40);
	assert_ev(fd, "sm_active_pct", 8, 15);
	assert_ev(fd, "sm_occupancy_pct", 3, NAN);
	assert_ev(fd, "tensor_active_pct", 0, NAN);
	assert_ev(fd, "gpm_intervals", 18, NAN);
	/* the SMs busy */
	assert_int_equal(thin_case(f, "gpu.idle_while_job_runs", 100, 18, 70), GD_VERDICT_CLEAR);
	/* 4 intervals, 5 needed: utilisation alone judges */
	assert_int_equal(thin_case(f, "gpu.idle_while_job_runs", 100, 4, 8), GD_VERDICT_CLEAR);
	/* low utilisation and low SM activity: the usual phrase, SM activity as evidence */
	assert_int_equal(thin_case(f, "gpu.idle_while_job_runs", 20, 18, 8), GD_VERDICT_FIRED);
	fd = only_finding(f);
	assert_contains(fd->summary, "averaged 20% utilisation over 2.0 s (threshold 40%) while");
	assert_ev(fd, "sm_active_pct", 8, 15);
	/* the thresholds are the user's */
	thin_case(f, "gpu.idle_while_job_runs", 100, 18, 8);
	gd_thresholds_init(&th);
	assert_override("gpu.idle_while_job_runs", &f->a, &f->b, &th, &f->out, "gpu.idle_while_job_runs.sm_active_pct",
			"5", GD_VERDICT_FIRED, GD_VERDICT_CLEAR);
	thin_case(f, "gpu.idle_while_job_runs", 100, 18, 8);
	gd_thresholds_init(&th);
	assert_override("gpu.idle_while_job_runs", &f->a, &f->b, &th, &f->out,
			"gpu.idle_while_job_runs.gpm_min_intervals", "19", GD_VERDICT_FIRED, GD_VERDICT_CLEAR);
	/* gpu.saturated: host tasks wait for CPU and gpu0 is "100% busy"; only
	 * with its SMs busy is it the bottleneck */
	for (int k = 0; k < 2; k++) {
		thin_case(f, "gpu.saturated", 100, 18, k ? 90 : 8);
		gd_f64_set(&f->b.psi.cpu_some_avg10, 60);
		assert_int_equal(run_fx(f, "gpu.saturated", false), k ? GD_VERDICT_FIRED : GD_VERDICT_CLEAR);
	}
	assert_ev(only_finding(f), "sm_active_pct", 90, 15);
}

/* A main thread spinning in NCCL while the NCCL kernel keeps gpu0 "100%
 * utilised" at 10% SM activity: job.waiting_for_peers, which utilisation
 * alone would miss. */
static void test_thin_kernel_peers(void **state)
{
	struct fx *f = *state;
	static const uint64_t in_nccl[6] = { 2, 80, 10, 0, 8, 0 };
	const struct gd_finding *fd;

	thin_case(f, "job.waiting_for_peers", 100, 18, 10);
	main_thread(f, in_nccl);
	assert_int_equal(run_fx(f, "job.waiting_for_peers", false), GD_VERDICT_FIRED);
	fd = only_finding(f);
	assert_contains(fd->summary, "while gpu0 (0000:1b:00.0) averages 100% utilisation but only 10% SM activity and no "
				     "local cause is found");
	assert_ev(fd, "gpu_util_pct", 100, 40);
	assert_ev(fd, "sm_active_pct", 10, 15);
	/* the same with the SMs busy: the GPU works, nobody waits */
	thin_case(f, "job.waiting_for_peers", 100, 18, 80);
	main_thread(f, in_nccl);
	assert_int_equal(run_fx(f, "job.waiting_for_peers", false), GD_VERDICT_CLEAR);
}

/* ---- the sampler, through the fake NVML ----------------------------------- */

/* A test helper of the fake (it stays loaded: a thread may sleep in it). */
static void *fake_sym(const char *name)
{
	void *dl = dlopen(FAKE, RTLD_NOW | RTLD_LOCAL);
	void *p;

	if (!dl)
		fail_msg("cannot load the fake NVML %s: %s (run make unit)", FAKE, dlerror());
	p = dlsym(dl, name);
	assert_non_null(p);
	return p;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* One snapshot's nvml and gpu_activity collectors with the shared handle;
 * returns gpu_activity's status, err its reason. */
static enum gd_src_status cycle(struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	gd_snapshot_init(s);
	gd_err_clear(err);
	assert_int_equal(gd_collect_nvml(ctx, s, err), GD_SRC_OK);
	gd_err_clear(err);
	return gd_collect_gpu_activity(ctx, s, err);
}

static size_t count_src(const struct gd_snapshot *s, uint64_t gpu, const char *src)
{
	size_t n = 0;

	GD_VEC_EACH(s->gpu_activity, const struct gd_gpu_activity, r)
		n += r->gpu.v == gpu && strcmp(r->source, src) == 0;
	return n;
}

static void test_sampler(void **state)
{
	int (*gpm_samples)(void);
	int (*shutdowns)(void);
	const double want_sm[4] = { 0, 0, 95, 96 }, want_rx[4] = { 9000, 9100, 3, 2 }, want_occ[4] = { 0, 0, 41, 42 };
	const double want_tensor[4] = { 0, 0, 63, 64 }, want_dram[4] = { 1, 1, 55, 56 };
	struct gd_collect_ctx ctx;
	struct gd_snapshot s;
	struct gd_err err;
	size_t gpm = 0, pcie1 = 0, k = 0;
	int shut0;

	(void)state;
	*(void **)&gpm_samples = fake_sym("fake_nvml_gpm_samples");
	*(void **)&shutdowns = fake_sym("fake_nvml_shutdowns");
	shut0 = shutdowns();
	setenv("GPUDOCTOR_FAKE_NVML", SCEN("activity"), 1);
	memset(&ctx, 0, sizeof ctx);
	ctx.nvml_path = FAKE;
	ctx.nvml = gd_nvml_open(FAKE, 5);
	assert_int_equal(gd_nvml_state(ctx.nvml), GD_NVML_OK);
	/* the first snapshot: its own readings only, sampling starts; gpu2
	 * can be sampled with nothing */
	assert_int_equal(cycle(&ctx, &s, &err), GD_SRC_PARTIAL);
	assert_contains(err.msg, "gpu2 not sampled: no GPM on this GPU (Hopper and newer have it), and "
				 "nvmlDeviceGetPcieThroughput: NVML_ERROR_NOT_SUPPORTED");
	assert_int_equal(count_src(&s, 0, "pcie_throughput"), 1);   /* gpus[]'s reading */
	assert_int_equal(count_src(&s, 0, "gpm"), 0);
	assert_int_equal(count_src(&s, 2, "pcie_throughput"), 0);
	gd_snapshot_release(&s);
	assert_int_equal(gpm_samples(), 2);   /* gpu0's pair */
	/* later snapshots take what the NVML thread sampled in between: gpu0's
	 * GPM intervals in the fake's order, gpu1's PCIe readings */
	for (int tries = 0; tries < 300 && (gpm < 9 || pcie1 < 3); tries++) {
		nap_ms(150);
		assert_int_equal(cycle(&ctx, &s, &err), GD_SRC_PARTIAL);
		GD_VEC_EACH(s.gpu_activity, const struct gd_gpu_activity, r) {
			if (r->gpu.v == 0 && strcmp(r->source, "gpm") == 0) {
				NEAR(r->sm_active_pct.v, want_sm[k % 4], 1e-9);
				NEAR(r->pcie_rx_bytes_s.v, want_rx[k % 4] * 1048576.0, 1e-3);
				NEAR(r->sm_occupancy_pct.v, want_occ[k % 4], 1e-9);
				NEAR(r->tensor_active_pct.v, want_tensor[k % 4], 1e-9);
				NEAR(r->dram_bw_pct.v, want_dram[k % 4], 1e-9);
				NEAR(r->nvlink_rx_bytes_s.v, 12 * 1048576.0, 1e-3);
				assert_false(r->nvlink_tx_bytes_s.ok);   /* NOT_SUPPORTED in its own nvmlReturn */
				assert_true(r->interval_us.ok && r->interval_us.v >= 90000);
				assert_false(r->util_pct.ok);
				k++;
				gpm++;
			} else if (r->gpu.v == 1) {
				assert_string_equal(r->source, "pcie_throughput");
				assert_false(r->sm_active_pct.ok);
				assert_false(r->sm_occupancy_pct.ok);
				assert_true(r->pcie_rx_bytes_s.v == 6e9 || r->pcie_rx_bytes_s.v == 2e6);
				assert_true(r->pcie_tx_bytes_s.v == 1e7);
				pcie1++;
			}
			assert_true(r->gpu.v != 2);
		}
		gd_snapshot_release(&s);
	}
	assert_true(gpm >= 9);
	assert_true(pcie1 >= 3);
	gd_nvml_close(ctx.nvml);
	assert_int_equal(gpm_samples(), 0);   /* given back before nvmlShutdown */
	assert_int_equal(shutdowns(), shut0 + 1);
}

/* The newest utilisation sample rides on gpu1's readings between
 * snapshots (96: the fake's newest). */
static void test_sampler_util(void **state)
{
	struct gd_collect_ctx ctx;
	struct gd_snapshot s;
	struct gd_err err;
	size_t seen = 0;

	(void)state;
	setenv("GPUDOCTOR_FAKE_NVML", SCEN("activity"), 1);
	memset(&ctx, 0, sizeof ctx);
	ctx.nvml_path = FAKE;
	ctx.nvml = gd_nvml_open(FAKE, 5);
	cycle(&ctx, &s, &err);
	gd_snapshot_release(&s);
	for (int tries = 0; tries < 300 && !seen; tries++) {
		nap_ms(150);
		cycle(&ctx, &s, &err);
		GD_VEC_EACH(s.gpu_activity, const struct gd_gpu_activity, r) {
			/* the collector's own reading carries util_gpu_pct (50) */
			if (r->gpu.v == 1 && r->util_pct.ok && r->util_pct.v != 50) {
				NEAR(r->util_pct.v, 96, 1e-9);
				seen++;
			}
		}
		gd_snapshot_release(&s);
	}
	assert_true(seen > 0);
	gd_nvml_close(ctx.nvml);
}

/* Without a handle kept between snapshots: the own readings, and why the
 * rest is missing. */
static void test_no_shared_handle(void **state)
{
	struct gd_collect_ctx ctx;
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	setenv("GPUDOCTOR_FAKE_NVML", SCEN("activity"), 1);
	memset(&ctx, 0, sizeof ctx);
	ctx.nvml_path = FAKE;
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_nvml(&ctx, &s, &err), GD_SRC_OK);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_gpu_activity(&ctx, &s, &err), GD_SRC_PARTIAL);
	assert_contains(err.msg, "1 of 3 GPUs in use have no PCIe throughput reading");
	assert_int_equal(s.gpu_activity.n, 2);
	gd_snapshot_release(&s);
}

/* A sampling call that never returns: the next call misses its deadline
 * and names it.  Last: the NVML thread stays asleep in the fake. */
static void test_sampler_hang(void **state)
{
	unsigned int (*calls)(const char *);
	struct gd_collect_ctx ctx;
	struct gd_snapshot s;
	struct gd_err err;
	unsigned int before;

	(void)state;
	*(void **)&calls = fake_sym("fake_nvml_calls");
	before = calls("nvmlGpmSampleGet");
	setenv("GPUDOCTOR_FAKE_NVML", SCEN("activity_hang"), 1);
	memset(&ctx, 0, sizeof ctx);
	ctx.nvml_path = FAKE;
	ctx.nvml = gd_nvml_open(FAKE, 0.5);
	assert_int_equal(cycle(&ctx, &s, &err), GD_SRC_OK);
	gd_snapshot_release(&s);
	for (int tries = 0; tries < 600 && calls("nvmlGpmSampleGet") == before; tries++)
		nap_ms(50);
	assert_true(calls("nvmlGpmSampleGet") > before);
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	gd_collect_nvml(&ctx, &s, &err);
	assert_int_equal(gd_nvml_state(ctx.nvml), GD_NVML_STUCK);
	assert_string_equal(gd_nvml_stuck_call(ctx.nvml), "nvmlGpmSampleGet (GPU 0)");
	assert_contains(gd_nvml_reason(ctx.nvml), "(sub-second sampling) did not return within 0.5 s");
	gd_err_clear(&err);
	assert_int_equal(gd_collect_gpu_activity(&ctx, &s, &err), GD_SRC_OK);   /* nvml says it */
	gd_snapshot_release(&s);
	gd_nvml_close(ctx.nvml);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fires_pcie_unsampled, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_main_thread, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_idle_gpu_explained, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_overlapped_and_one_sided, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_unknown_without_samples, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_window_and_sources, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_thresholds, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_thin_kernel, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_thin_kernel_peers, fx_setup, fx_teardown),
		cmocka_unit_test(test_sampler),
		cmocka_unit_test(test_sampler_util),
		cmocka_unit_test(test_no_shared_handle),
		cmocka_unit_test(test_sampler_hang),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
