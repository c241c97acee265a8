/*
 * test_job_threads.c - where a GPU job's threads spend their time: the
 * parsers of /proc/<pid>/task/<tid>/{schedstat,syscall} (this machine's
 * own lines, and malformed ones), the attribution of a sampled address to
 * the library it ran in (a real /proc/<pid>/maps of a Python process),
 * thread roles, and the rules job.host_bound, job.waiting_for_peers and the
 * sharper cpu.input_bound over hand-built windows: each firing with its
 * numbers, the healthy pattern (a main thread waiting in libcuda) silent,
 * and unknown when the threads were not sampled.
 */
#include "testutil.h"

#include <stdio.h>
#include <sys/syscall.h>

#include "collect/job_threads.h"
#include "output/output.h"
#include "rules/gpu_samples.h"
#include "rules/thresholds.h"
#include "tui/view.h"

/* ---- parsers ------------------------------------------------------------- */

static void test_schedstat(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_job_thread *t;

	(void)state;
	gd_snapshot_init(&s);
	/* cat /proc/self/schedstat on this machine (Linux 6.18) */
	assert_int_equal(parse_lit(gd_parse_proc_pid_task_schedstat, "79877 65708 2\n", &s, &err), 0);
	t = GD_VEC_AT(s.job_threads, struct gd_job_thread, 0);
	assert_true(t->run_ns.ok && t->run_ns.v == 79877);
	assert_true(t->wait_ns.ok && t->wait_ns.v == 65708);
	assert_true(t->timeslices.ok && t->timeslices.v == 2);
	assert_int_equal(parse_lit(gd_parse_proc_pid_task_schedstat, "2245823381 123566331 114", &s, &err), 0);
	assert_int_equal(s.job_threads.n, 1);   /* fills the last record */
	assert_true(t->run_ns.v == 2245823381ull);
	assert_true(parse_lit(gd_parse_proc_pid_task_schedstat, "12 34\n", &s, &err) < 0);
	assert_contains(err.msg, "not three counters");
	assert_true(parse_lit(gd_parse_proc_pid_task_schedstat, "1 2 3 4\n", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_pid_task_schedstat, "1 -2 3\n", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_pid_task_schedstat, "", &s, &err) < 0);
	gd_snapshot_release(&s);
}

static void test_syscall(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_job_thread *t;
	char line[160];

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_pid_task_syscall, "running\n", &s, &err), 0);
	t = GD_VEC_AT(s.job_threads, struct gd_job_thread, 0);
	assert_string_equal(t->syscall, "running");
	/* a thread blocked in read(0, ...): cat /proc/self/syscall's shape here */
	assert_int_equal(parse_lit(gd_parse_proc_pid_task_syscall,
				   "0 0x3 0x7f46ab0a1000 0x20000 0x7f46ab132b60 0xffffffff 0x0 0x7ffd02d142f8 "
				   "0x7f46ab21b2ad\n", &s, &err), 0);
	assert_string_equal(t->syscall, gd_syscall_name(0) ? gd_syscall_name(0) : "nr0");
	snprintf(line, sizeof line, "%ld 0x7f0000001000 0x80 0x2 0x0 0x0 0x0 0x7ffd00000000 0x7f0000002000\n",
		 (long)SYS_futex);
	assert_int_equal(parse_lit(gd_parse_proc_pid_task_syscall, line, &s, &err), 0);
	assert_string_equal(t->syscall, "futex");
	assert_int_equal(parse_lit(gd_parse_proc_pid_task_syscall, "-1 0x7ffd02d142f8 0x7f46ab21b2ad\n", &s, &err), 0);
	assert_string_equal(t->syscall, "none");
	assert_int_equal(parse_lit(gd_parse_proc_pid_task_syscall, "99999 0x1 0x2\n", &s, &err), 0);
	assert_string_equal(t->syscall, "nr99999");
	assert_true(parse_lit(gd_parse_proc_pid_task_syscall, "sleeping\n", &s, &err) < 0);
	assert_contains(err.msg, "not \"running\"");
	assert_true(parse_lit(gd_parse_proc_pid_task_syscall, "202\n", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_pid_task_syscall, "-7 0x1 0x2\n", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_pid_task_syscall, "", &s, &err) < 0);
	gd_snapshot_release(&s);
}

/* ---- attribution ------------------------------------------------------------ */

static enum gd_so_cat cat_of(const char *path)
{
	return gd_so_category((struct gd_slice){ path, strlen(path) });
}

static void test_categories(void **state)
{
	(void)state;
	assert_int_equal(cat_of("/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05"), GD_SO_CUDA);
	assert_int_equal(cat_of("/tmp/gd/cuda/libcuda.so.1"), GD_SO_CUDA);
	assert_int_equal(cat_of("/opt/conda/lib/python3.11/site-packages/nvidia/cublas/lib/libcublasLt.so.12"),
			 GD_SO_CUDA);
	assert_int_equal(cat_of("/usr/lib/python3/dist-packages/torch/lib/libcudart-9335f6a2.so.12"), GD_SO_CUDA);
	assert_int_equal(cat_of("/opt/conda/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2"), GD_SO_NCCL);
	assert_int_equal(cat_of("/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0"), GD_SO_PYTHON);
	assert_int_equal(cat_of("/root/.pyenv/versions/3.11.7/bin/python3.11"), GD_SO_PYTHON);
	assert_int_equal(cat_of("/root/.pyenv/versions/3.11.7/lib/python3.11/lib-dynload/math.cpython-311-x86_64-linux-gnu.so"),
			 GD_SO_PYTHON);
	assert_int_equal(cat_of("/opt/conda/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so"), GD_SO_FRAMEWORK);
	assert_int_equal(cat_of("/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0"), GD_SO_FRAMEWORK);
	assert_int_equal(cat_of("/opt/conda/lib/python3.11/site-packages/numpy/core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so"),
			 GD_SO_FRAMEWORK);
	assert_int_equal(cat_of("/opt/conda/lib/python3.11/site-packages/numpy.libs/libopenblas64_p-r0-15028c96.3.21.so"),
			 GD_SO_FRAMEWORK);
	assert_int_equal(cat_of("/usr/lib/x86_64-linux-gnu/libc.so.6"), GD_SO_OTHER);
	assert_int_equal(cat_of("/usr/lib/x86_64-linux-gnu/libcudaxyz (deleted)"), GD_SO_OTHER);
	assert_int_equal(cat_of("/tmp/gd/libcuda.so.1 (deleted)"), GD_SO_CUDA);
	assert_int_equal(cat_of("[vdso]"), GD_SO_OTHER);
	assert_int_equal(cat_of(""), GD_SO_OTHER);
}

/* /proc/<pid>/maps of a python3.11 process on this machine (cut), with a
 * mapping of the test's own libcuda.so.1 added. */
static const char MAPS[] =
	"563031706000-563031707000 r--p 00000000 fe:00 18624                      /root/.pyenv/versions/3.11.7/bin/python3.11\n"
	"563031707000-563031708000 r-xp 00001000 fe:00 18624                      /root/.pyenv/versions/3.11.7/bin/python3.11\n"
	"7f55a00f1000-7f55a00fa000 r-xp 00003000 fe:00 21675                      /root/.pyenv/versions/3.11.7/lib/python3.11/lib-dynload/math.cpython-311-x86_64-linux-gnu.so\n"
	"7f55a0105000-7f55a0122000 r-xp 00004000 fe:00 333207                     /usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1\n"
	"7f55a1000000-7f55a1001000 r-xp 00001000 fe:00 99                         /tmp/gd e2e/cuda/libcuda.so.1\n"
	"7f55a2000000-7f55a2100000 rw-p 00000000 00:00 0 \n"
	"7ffd0c5f1000-7ffd0c5f3000 r-xp 00000000 00:00 0                          [vdso]\n"
	"this line is not a mapping\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";

static void test_maps(void **state)
{
	struct gd_xmap *maps = NULL;
	size_t n = 0, cap = 0, bad;

	(void)state;
	bad = gd_xmaps_parse(MAPS, sizeof MAPS - 1, &maps, &n, &cap);
	assert_int_equal(bad, 1);
	assert_int_equal(n, 6);   /* the executable ones */
	assert_int_equal(gd_xmaps_lookup(maps, n, 0x563031707abcull), GD_SO_PYTHON);
	assert_int_equal(gd_xmaps_lookup(maps, n, 0x563031706abcull), GD_SO_OTHER);   /* r--p: not in the table */
	assert_int_equal(gd_xmaps_lookup(maps, n, 0x7f55a00f1000ull), GD_SO_PYTHON);
	assert_int_equal(gd_xmaps_lookup(maps, n, 0x7f55a0121fffull), GD_SO_OTHER);
	assert_int_equal(gd_xmaps_lookup(maps, n, 0x7f55a1000800ull), GD_SO_CUDA);    /* a path with a space */
	assert_int_equal(gd_xmaps_lookup(maps, n, 0x7f55a1001000ull), GD_SO_OTHER);   /* one past its end */
	assert_int_equal(gd_xmaps_lookup(maps, n, 0x10ull), GD_SO_OTHER);
	assert_int_equal(gd_xmaps_lookup(NULL, 0, 0x10ull), GD_SO_OTHER);
	/* reused buffer, malformed input */
	assert_int_equal(gd_xmaps_parse("zz-1 r-xp 0 0 0 /x\n1-0 r-xp 0 0 0 /y\n1-2 r-xp\n", 45, &maps, &n, &cap), 3);
	assert_int_equal(n, 0);
	free(maps);
}

static void test_roles(void **state)
{
	(void)state;
	assert_string_equal(gd_thread_role("python", true, false), "main");
	assert_string_equal(gd_thread_role("pt_main_thread", true, false), "main");
	assert_string_equal(gd_thread_role("pt_data_worker", true, true), "loader");
	assert_string_equal(gd_thread_role("python", false, true), "loader");
	assert_string_equal(gd_thread_role("pt_data_pin", false, false), "pin_memory");
	assert_string_equal(gd_thread_role("NCCL Progress 3", false, false), "nccl");
	assert_string_equal(gd_thread_role("pt_nccl_watchdg", false, false), "nccl");
	assert_string_equal(gd_thread_role("pt_autograd_0", false, false), "autograd");
	assert_string_equal(gd_thread_role("cuda-EvtHandlr", false, false), "other");
}

/* ---- rules --------------------------------------------------------------- */

static void add_gpu(struct gd_snapshot *s, uint64_t util)
{
	struct gd_gpu *g = GD_PUSH(s, gpus, struct gd_gpu);
	struct gd_gpu_proc *p = GD_PUSH(s, gpu_procs, struct gd_gpu_proc);

	GD_STRSET(s->nvml.status, "ok");
	gd_u64_set(&g->index, 0);
	GD_STRSET(g->uuid, "GPU-0");
	GD_STRSET(g->pci_bus_id, "0000:1b:00.0");
	gd_u64_set(&g->util_gpu_pct, util);
	gd_u64_set(&g->nvml_procs, 1);
	gd_u64_set(&p->gpu, 0);
	gd_u64_set(&p->pid, 4711);
	gd_u64_set(&p->used_mem_bytes, 1u << 30);
}

static void add_proc(struct gd_snapshot *s, uint64_t pid, uint64_t ppid, const char *comm)
{
	struct gd_proc *p = GD_PUSH(s, procs, struct gd_proc);

	gd_u64_set(&p->pid, pid);
	gd_u64_set(&p->ppid, ppid);
	GD_STRSET(p->comm, comm);
	gd_u64_set(&p->starttime_ticks, 100 + pid);
	gd_u64_set(&p->utime_ticks, 0);
	gd_u64_set(&p->stime_ticks, 0);
	gd_u64_set(&p->nvidia_fds, 0);
}

/* A thread with run_ns and the samples {cuda, nccl, python, framework,
 * kernel, other} cumulative up to this snapshot. */
static void add_jt(struct gd_snapshot *s, uint64_t pid, uint64_t tid, const char *role, const char *syscall,
		   uint64_t run_ns, const uint64_t *samples)
{
	struct gd_job_thread *t = GD_PUSH(s, job_threads, struct gd_job_thread);
	struct gd_thread *th = GD_PUSH(s, threads, struct gd_thread);

	gd_u64_set(&t->pid, pid);
	gd_u64_set(&t->tid, tid);
	GD_STRSET(t->comm, "python");
	GD_STRSET(t->role, role);
	GD_STRSET(t->syscall, syscall);
	if (strcmp(syscall, "futex") == 0)
		GD_STRSET(t->wchan, "futex_wait_queue");
	gd_u64_set(&t->run_ns, run_ns);
	gd_u64_set(&t->wait_ns, 0);
	gd_u64_set(&th->pid, pid);
	gd_u64_set(&th->tid, tid);
	GD_STRSET(th->comm, "python");
	gd_u64_set(&th->utime_ticks, run_ns / 10000000);
	gd_u64_set(&th->stime_ticks, 0);
	if (!samples) {
		gd_u64_set(&t->sampled, 0);
		return;
	}
	gd_u64_set(&t->sampled, 1);
	gd_u64_set(&t->samples_cuda, samples[0]);
	gd_u64_set(&t->samples_nccl, samples[1]);
	gd_u64_set(&t->samples_python, samples[2]);
	gd_u64_set(&t->samples_framework, samples[3]);
	gd_u64_set(&t->samples_kernel, samples[4]);
	gd_u64_set(&t->samples_other, samples[5]);
}

static const uint64_t ZERO[6] = { 0, 0, 0, 0, 0, 0 };

/* pid 4711 on gpu0 at util; its main thread ran main_ns in the 2 s window
 * with the samples s1 (s0 = 0 at the start). */
static void job(struct fx *x, uint64_t util, uint64_t main_ns, const uint64_t *s1, const char *syscall)
{
	add_gpu(&x->a, util);
	add_gpu(&x->b, util);
	add_proc(&x->a, 4711, 1, "python");
	add_proc(&x->b, 4711, 1, "python");
	add_jt(&x->a, 4711, 4711, "main", "running", 1000000000, s1 ? ZERO : NULL);
	add_jt(&x->b, 4711, 4711, "main", syscall, 1000000000 + main_ns, s1);
}

static void sampler_source(struct gd_snapshot *s, const char *status, const char *reason)
{
	struct gd_source *src = GD_PUSH(s, sources, struct gd_source);

	GD_STRSET(src->name, "job_samples");
	GD_STRSET(src->status, status);
	GD_STRSET(src->reason, reason);
}

static void test_host_bound(void **state)
{
	struct fx *x = *state;
	const uint64_t py[6] = { 7, 0, 81, 12, 0, 0 };
	const struct gd_finding *f;

	job(x, 9, 1980000000, py, "running");   /* 99% of a core */
	assert_int_equal(run_rule2("job.host_bound", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_string_equal(f->subject, "pid 4711 (python)");
	assert_ev(f, "main_core_pct", 99, 80);
	assert_ev(f, "outside_cuda_pct", 93, 60);
	NEAR(ev_get(f, "python_pct")->value.v, 81, 1e-9);
	NEAR(ev_get(f, "cuda_pct")->value.v, 7, 1e-9);
	assert_string_equal(ev_get(f, "main_thread")->text, "81% python, 12% framework, 7% cuda");
	assert_contains(f->summary, "99% of a core");
	assert_contains(f->summary, "gpu0 (0000:1b:00.0) averages 9%");
	/* gpu.idle_while_job_runs names it */
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	assert_int_equal(run_rule2("gpu.idle_while_job_runs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	assert_contains(FINDING(x->out, 0)->summary, "job.host_bound (main thread at 99% of a core: 81% python");
	/* cpu.input_bound leaves the main thread to job.host_bound */
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	assert_int_equal(run_rule2("cpu.input_bound", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
}

static void test_host_bound_healthy_and_edges(void **state)
{
	struct fx *x = *state;
	const uint64_t in_cuda[6] = { 80, 0, 10, 5, 5, 0 };
	const uint64_t py[6] = { 7, 0, 81, 12, 0, 0 };
	const uint64_t few[6] = { 1, 0, 5, 2, 0, 0 };

	/* the healthy pattern: the main thread waits in libcuda, the GPU busy */
	job(x, 97, 1980000000, in_cuda, "running");
	assert_int_equal(run_rule2("job.host_bound", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	assert_int_equal(run_rule2("job.waiting_for_peers", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	/* busy in libcuda while the GPU idles: waiting for the GPU, not host-bound */
	fx_reset(x);
	job(x, 9, 1980000000, in_cuda, "running");
	assert_int_equal(run_rule2("job.host_bound", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	/* the GPU busy: the host loop keeps up */
	fx_reset(x);
	job(x, 90, 1980000000, py, "running");
	assert_int_equal(run_rule2("job.host_bound", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	/* the main thread below 80% of a core */
	fx_reset(x);
	job(x, 9, 1500000000, py, "running");
	assert_int_equal(run_rule2("job.host_bound", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	/* at the threshold: fires */
	fx_reset(x);
	job(x, 9, 1600000000, py, "running");
	assert_int_equal(run_rule2("job.host_bound", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	/* too few samples: unknown */
	fx_reset(x);
	job(x, 9, 1980000000, few, "running");
	sampler_source(&x->b, "ok", "");
	assert_int_equal(run_rule2("job.host_bound", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&x->out), "too few samples");
}

static void test_host_bound_unsampled(void **state)
{
	struct fx *x = *state;

	job(x, 9, 1980000000, NULL, "running");
	sampler_source(&x->b, "denied", "perf_event_open: Permission denied (kernel.perf_event_paranoid = 2): run "
			"gpudoctor as root or with CAP_PERFMON");
	assert_int_equal(run_rule2("job.host_bound", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&x->out), "pid 4711 (python) is busy while its GPU idles");
	assert_contains(unknown_reason(&x->out), "job_samples denied: perf_event_open: Permission denied");
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	assert_int_equal(run_rule2("job.waiting_for_peers", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&x->out), "CAP_PERFMON");
	/* without NVML: not judged */
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	GD_STRSET(x->b.nvml.status, "absent");
	assert_int_equal(run_rule2("job.host_bound", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
}

static void test_waiting_for_peers(void **state)
{
	struct fx *x = *state;
	const uint64_t main1[6] = { 10, 30, 10, 0, 0, 0 };
	const uint64_t nccl1[6] = { 0, 40, 0, 0, 2, 0 };
	const struct gd_finding *f;

	/* the main thread at 25% of a core, an NCCL thread spinning */
	job(x, 3, 500000000, main1, "running");
	add_jt(&x->a, 4711, 4720, "nccl", "running", 0, ZERO);
	add_jt(&x->b, 4711, 4720, "nccl", "running", 840000000, nccl1);
	assert_int_equal(run_rule2("job.waiting_for_peers", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_string_equal(f->subject, "pid 4711 (python)");
	/* (30 + 40) of (50 + 42) samples */
	NEAR(ev_get(f, "nccl_pct")->value.v, 100.0 * 70 / 92, 1e-9);
	assert_ev(f, "samples", 92, 10);
	assert_contains(f->summary, "no local cause is found");
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	assert_int_equal(run_rule2("gpu.idle_while_job_runs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	assert_contains(FINDING(x->out, 0)->summary, "job.waiting_for_peers (76% of the main and NCCL");
	/* the host's CPUs saturated by others' work, the job's threads not
	 * starved (no run-queue wait): still waiting for its peers */
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	gd_f64_set(&x->b.psi.cpu_some_avg10, 80);
	assert_int_equal(run_rule2("job.waiting_for_peers", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	assert_int_equal(run_rule2("gpu.idle_while_job_runs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	assert_true(strstr(FINDING(x->out, 0)->summary, "cpu.saturated") == NULL);
	/* the NCCL thread waits for a CPU most of the window: it spins in
	 * NCCL, so the wait starves nothing */
	GD_VEC_AT(x->b.job_threads, struct gd_job_thread, 1)->wait_ns.v = 1500000000;
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	assert_int_equal(run_rule2("job.waiting_for_peers", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	/* a loader thread of the job waits for a CPU 60% of the time it wants
	 * one: the job is starved, and the saturated CPUs are the local cause */
	add_jt(&x->a, 4711, 4740, "other", "running", 0, NULL);
	add_jt(&x->b, 4711, 4740, "other", "running", 400000000, NULL);
	GD_VEC_AT(x->b.job_threads, struct gd_job_thread, 2)->wait_ns.v = 600000000;
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	assert_int_equal(run_rule2("job.waiting_for_peers", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	assert_int_equal(run_rule2("gpu.idle_while_job_runs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	assert_contains(FINDING(x->out, 0)->summary,
			"cpu.saturated (the job's threads waited for a CPU 60% of the time they wanted one)");
	/* below job_wait_pct (20% < 25%): not starved */
	GD_VEC_AT(x->b.job_threads, struct gd_job_thread, 2)->wait_ns.v = 100000000;
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	assert_int_equal(run_rule2("job.waiting_for_peers", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	/* no schedstat for the job's threads: whether they starve is unknown,
	 * and the saturated CPUs may be the cause */
	GD_VEC_EACH(x->b.job_threads, struct gd_job_thread, t)
		t->wait_ns.ok = false;
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	assert_int_equal(run_rule2("job.waiting_for_peers", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	/* other threads (a loader) do not count */
	fx_reset(x);
	job(x, 3, 500000000, ZERO, "futex");
	add_jt(&x->a, 4711, 4730, "other", "running", 0, ZERO);
	add_jt(&x->b, 4711, 4730, "other", "running", 840000000, nccl1);
	assert_int_equal(run_rule2("job.waiting_for_peers", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
}

/* The main thread at 99% of a core: spinning in NCCL it waits for its
 * peers (no cpu.input_bound, job.waiting_for_peers fires); busy in Python
 * it is the job's own work (cpu.input_bound's hot thread when job.host_bound
 * does not claim it). */
static void test_input_bound_main_in_nccl(void **state)
{
	struct fx *x = *state;
	const uint64_t spin[6] = { 0, 95, 0, 0, 3, 2 };
	const uint64_t py_cuda[6] = { 60, 0, 40, 0, 0, 0 };

	job(x, 3, 1980000000, spin, "running");
	assert_int_equal(run_rule2("cpu.input_bound", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	assert_int_equal(run_rule2("job.waiting_for_peers", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	/* the same thread busy outside NCCL (40% python, 60% cuda: not
	 * job.host_bound's 60% outside): cpu.input_bound's hot thread */
	fx_reset(x);
	job(x, 3, 1980000000, py_cuda, "running");
	assert_int_equal(run_rule2("cpu.input_bound", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	assert_contains(FINDING(x->out, 0)->summary, "runs at 99% of a core");
	/* unsampled: judged by its CPU alone, as before */
	fx_reset(x);
	job(x, 3, 1980000000, NULL, "running");
	assert_int_equal(run_rule2("cpu.input_bound", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
}

static void test_input_bound_main_waits(void **state)
{
	struct fx *x = *state;
	const uint64_t idle_main[6] = { 1, 0, 1, 0, 0, 0 };
	const struct gd_finding *f;

	/* the main thread sleeps in a futex (4% of a core) while two loader
	 * workers burn 99% each */
	job(x, 8, 80000000, idle_main, "futex");
	for (uint64_t w = 0; w < 2; w++) {
		struct gd_snapshot *ss[2] = { &x->a, &x->b };

		for (int k = 0; k < 2; k++) {
			add_proc(ss[k], 4801 + w, 4711, "pt_data_worker");
			GD_VEC_AT(ss[k]->procs, struct gd_proc, ss[k]->procs.n - 1)->utime_ticks.v = 100 + (uint64_t)k * 198;
		}
	}
	assert_int_equal(run_rule2("cpu.input_bound", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	NEAR(ev_get(f, "workers")->value.v, 2, 0);
	NEAR(ev_get(f, "main_off_cpu_pct")->value.v, 96, 1e-9);
	assert_string_equal(ev_get(f, "main_waits_in")->text, "futex in futex_wait_queue");
	assert_contains(f->summary, "its main thread waits off a CPU 96% of the window (futex in futex_wait_queue)");
	assert_int_equal(run_rule2("job.host_bound", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
}


/* ---- sub-second GPU samples, the watch line, the metric ------------------- */

static void add_sample(struct gd_snapshot *s, uint64_t gpu, uint64_t t_us, uint64_t pct)
{
	struct gd_gpu_sample *g = GD_PUSH(s, gpu_samples, struct gd_gpu_sample);

	gd_u64_set(&g->gpu, gpu);
	gd_u64_set(&g->t_us, t_us);
	gd_u64_set(&g->util_pct, pct);
}

static void test_gpu_samples_window(void **state)
{
	struct fx *x = *state;
	const struct gd_snapshot *snaps[2] = { &x->a, &x->b };
	struct gd_window w = { snaps, 2 };
	struct gd_gpu_samples_sum gs;
	const uint64_t t0 = 1796134590000000ull;   /* a's wall time, in us */
	const uint64_t pct[6] = { 95, 96, 0, 0, 94, 96 };

	gd_f64_set(&x->a.host.wall_time_s, (double)t0 / 1e6);
	gd_f64_set(&x->b.host.wall_time_s, (double)t0 / 1e6 + 1.0);
	assert_false(gd_gpu_samples_window(&w, 0, 40, &gs));
	/* before the window (a's look-back): left out */
	add_sample(&x->a, 0, t0 - 500000, 0);
	add_sample(&x->a, 0, t0, 0);
	/* six samples 1/6 s apart inside the 1 s window, the first three in
	 * both snapshots (the look-backs overlap) */
	for (int i = 0; i < 6; i++) {
		add_sample(&x->b, 0, t0 + 166666 * (uint64_t)(i + 1), pct[i]);
		if (i < 3)
			add_sample(&x->a, 0, t0 + 166666 * (uint64_t)(i + 1), pct[i]);
	}
	add_sample(&x->b, 1, t0 + 1000, 0);   /* another GPU */
	assert_true(gd_gpu_samples_window(&w, 0, 40, &gs));
	assert_int_equal(gs.n, 6);
	NEAR(gs.mean, (95 + 96 + 0 + 0 + 94 + 96) / 6.0, 1e-9);
	NEAR(gs.min, 0, 0);
	NEAR(gs.period_ms, 166.666, 1e-9);
	NEAR(gs.stall_ms, 2 * 166.666, 1e-9);
	assert_true(gd_gpu_samples_window(&w, 0, 0, &gs));
	NEAR(gs.stall_ms, 0, 0);
	assert_false(gd_gpu_samples_window(&w, 1, 40, &gs));   /* one sample */
	assert_false(gd_gpu_samples_window(&w, 7, 40, &gs));
}

static void test_watch_and_metric(void **state)
{
	struct fx *x = *state;
	const uint64_t py[6] = { 7, 0, 81, 12, 0, 0 };
	const struct gd_snapshot *snaps[2] = { &x->a, &x->b };
	struct gd_window w = { snaps, 2 };
	struct gd_thresholds th;
	struct gd_findings none;
	struct gd_view_model m;
	struct gd_report r = { &w, &none, false, "test", 0 };
	struct gd_vec lines = { 0 };
	bool job_line = false, stall_line = false;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	const uint64_t t0 = 1796134590000000ull;

	job(x, 9, 1980000000, py, "running");
	gd_f64_set(&x->a.host.wall_time_s, (double)t0 / 1e6);
	gd_f64_set(&x->b.host.wall_time_s, (double)t0 / 1e6 + 2.0);
	for (int i = 1; i <= 10; i++)
		add_sample(&x->b, 0, t0 + 200000 * (uint64_t)i, i == 4 ? 0 : 95);
	gd_thresholds_init(&th);
	gd_findings_init(&none);
	memset(&m, 0, sizeof m);
	m.w = &w;
	m.th = &th;
	m.findings = &none;
	m.interval_s = 2;
	gd_view_layout(&m, 160, 40, &lines);
	GD_VEC_EACH(lines, const struct gd_view_line, l) {
		job_line |= strcmp(l->text, "JOB pid 4711 (python) main thread 99% of a core: 81% python, 12% framework, "
				   "7% cuda") == 0;
		stall_line |= strncmp(l->text, "GPU 0 stalled 200 ms in the last interval: 10 samples every 200 ms", 66) == 0;
	}
	assert_true(job_line);
	assert_true(stall_line);
	gd_vec_release(&lines);
	mem = open_memstream(&buf, &len);
	assert_non_null(mem);
	gd_out_prom(mem, &r);
	assert_int_equal(fclose(mem), 0);
	assert_contains(buf, "gpudoctor_job_main_thread_cpu_ratio{pid=\"4711\",comm=\"python\"} 0.99\n");
	assert_contains(buf, "gpudoctor_job_main_thread_samples_ratio{pid=\"4711\",comm=\"python\",category=\"python\"} 0.81\n");
	assert_contains(buf, "category=\"nccl\"} 0\n");
	assert_true(strstr(buf, "gpudoctor_job_threads_") == NULL);   /* per-thread series left out */
	assert_true(strstr(buf, "gpudoctor_gpu_samples_") == NULL);
	free(buf);
	gd_findings_release(&none);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedstat),
		cmocka_unit_test(test_syscall),
		cmocka_unit_test(test_categories),
		cmocka_unit_test(test_maps),
		cmocka_unit_test(test_roles),
		T(test_host_bound),
		T(test_host_bound_healthy_and_edges),
		T(test_host_bound_unsampled),
		T(test_waiting_for_peers),
		T(test_input_bound_main_in_nccl),
		T(test_input_bound_main_waits),
		T(test_gpu_samples_window),
		T(test_watch_and_metric),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
