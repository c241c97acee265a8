/*
 * test_rules_gpu_job.c - the rules joining GPUs with the jobs and the host
 * around them (rule_gpu_job.c, rule_gpu_straggler.c, rule_gpu_topo.c):
 * gpu.shared_by_processes, gpu.saturated, gpu.idle_while_job_runs,
 * gpu.straggler, cpu.input_bound, cpu.too_many_workers, cpu.numa_far_from_gpu
 * and net.gpu_nic_far, each firing with its evidence, clear, unknown without
 * NVML, and at its edges.
 */
#include "testutil.h"

#include <stdio.h>

/* ---- builders ------------------------------------------------------------ */

static const char *const BDF[] = { "0000:1b:00.0", "0000:43:00.0", "0000:52:00.0", "0000:61:00.0" };

static struct gd_gpu *add_gpu(struct gd_snapshot *s, uint64_t i, uint64_t util, uint64_t clock)
{
	struct gd_gpu *g = GD_PUSH(s, gpus, struct gd_gpu);

	gd_u64_set(&g->index, i);
	gd_u64_set(&g->minor_number, i);
	GD_STRSET(g->name, "NVIDIA H100 80GB HBM3");
	GD_STRSET(g->uuid, BDF[i]);   /* any stable key */
	GD_STRSET(g->pci_bus_id, BDF[i]);
	gd_u64_set(&g->compute_mode, 0);
	gd_u64_set(&g->util_gpu_pct, util);
	gd_u64_set(&g->sm_clock_mhz, clock);
	gd_u64_set(&g->nvml_procs, 0);                /* NVML's list was read: nobody yet */
	gd_u64_set(&g->mem_total_bytes, 85520809984);
	gd_u64_set(&g->mem_used_bytes, 555745280);    /* the driver's reservation alone */
	return g;
}

static void add_gproc(struct gd_snapshot *s, uint64_t gpu, uint64_t pid, uint64_t sm)
{
	struct gd_gpu_proc *p = GD_PUSH(s, gpu_procs, struct gd_gpu_proc);

	gd_u64_set(&p->gpu, gpu);
	gd_u64_set(&p->pid, pid);
	gd_u64_set(&p->sm_util_pct, sm);
	gd_u64_set(&p->used_mem_bytes, 73014444032);
	GD_VEC_EACH(s->gpus, struct gd_gpu, g)
		if (g->index.v == gpu)
			g->nvml_procs.v++;
}

static struct gd_proc *add_proc(struct gd_snapshot *s, uint64_t pid, uint64_t ppid, const char *comm, uint64_t ticks,
				const char *devs)
{
	struct gd_proc *p = GD_PUSH(s, procs, struct gd_proc);

	gd_u64_set(&p->pid, pid);
	gd_u64_set(&p->ppid, ppid);
	GD_STRSET(p->comm, comm);
	gd_u64_set(&p->starttime_ticks, 100 + pid);
	gd_u64_set(&p->utime_ticks, ticks);
	gd_u64_set(&p->stime_ticks, 0);
	gd_u64_set(&p->nvidia_fds, devs[0] ? 4 : 0);
	GD_STRSET(p->nvidia_devs, devs);
	GD_STRSET(p->cgroup, "/kubepods/pod1/job");
	GD_STRSET(p->cpus_allowed, "0-7");
	return p;
}

static void add_thread(struct gd_snapshot *s, uint64_t pid, uint64_t tid, const char *comm, uint64_t ticks)
{
	struct gd_thread *t = GD_PUSH(s, threads, struct gd_thread);

	gd_u64_set(&t->pid, pid);
	gd_u64_set(&t->tid, tid);
	GD_STRSET(t->comm, comm);
	gd_u64_set(&t->utime_ticks, ticks);
	gd_u64_set(&t->stime_ticks, 0);
}

static void set_cpu(struct gd_snapshot *s, uint64_t busy, uint64_t idle)
{
	gd_u64_set(&s->cpu.user_ticks, busy);
	gd_u64_set(&s->cpu.nice_ticks, 0);
	gd_u64_set(&s->cpu.system_ticks, 0);
	gd_u64_set(&s->cpu.idle_ticks, idle);
	gd_u64_set(&s->cpu.iowait_ticks, 0);
	gd_u64_set(&s->cpu.irq_ticks, 0);
	gd_u64_set(&s->cpu.softirq_ticks, 0);
	gd_u64_set(&s->cpu.steal_ticks, 0);
	gd_u64_set(&s->cpu.cpus_online, 8);
}

/* A job (pid 4242 on GPUs 0-3, four loader workers 4301-4304) at util[]
 * in both snapshots; workers use wticks each over the 2 s window (200 =
 * 100% of a core at USER_HZ 100); the main thread mticks. */
static void job(struct gd_snapshot *a, struct gd_snapshot *b, const uint64_t *util, const uint64_t *clk, uint64_t wticks,
		uint64_t mticks)
{
	struct gd_snapshot *ss[2] = { a, b };

	for (int k = 0; k < 2; k++) {
		struct gd_snapshot *s = ss[k];

		GD_STRSET(s->nvml.status, "ok");
		set_cpu(s, 1000 + (uint64_t)k * 600, 10000 + (uint64_t)k * 1000);
		for (uint64_t i = 0; i < 4; i++) {
			add_gpu(s, i, util[i], clk[i]);
			add_gproc(s, i, 4242, util[i]);
		}
		add_proc(s, 4242, 4200, "python", 1000 + (uint64_t)k * mticks, "0,1,2,3");
		add_thread(s, 4242, 4242, "python", 900 + (uint64_t)k * mticks);
		for (uint64_t w = 0; w < 4; w++) {
			add_proc(s, 4301 + w, 4242, "pt_data_worker", 500 + (uint64_t)k * wticks, "");
			add_thread(s, 4301 + w, 4301 + w, "pt_data_worker", 500 + (uint64_t)k * wticks);
		}
	}
}

static const uint64_t BUSY[4] = { 96, 95, 97, 94 }, IDLE[4] = { 12, 9, 15, 11 };
static const uint64_t CLK[4] = { 1980, 1980, 1980, 1980 };

static enum gd_verdict run2(const char *id, struct fx *x)
{
	return run_rule2(id, &x->a, &x->b, NULL, &x->out);
}

static void nvml_absent(struct fx *x)
{
	GD_STRSET(x->a.nvml.status, "absent");
	GD_STRSET(x->b.nvml.status, "absent");
	GD_STRSET(x->b.nvml.reason, "libnvidia-ml.so.1: not found");
}

/* ---- gpu.shared_by_processes ------------------------------------------------ */

static void test_shared(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	job(&x->a, &x->b, BUSY, CLK, 100, 100);
	assert_int_equal(run2("gpu.shared_by_processes", x), GD_VERDICT_CLEAR);
	add_gproc(&x->b, 1, 5120, 0);   /* listed, idle: not sharing yet */
	assert_int_equal(run2("gpu.shared_by_processes", x), GD_VERDICT_CLEAR);
	GD_VEC_AT(x->b.gpu_procs, struct gd_gpu_proc, x->b.gpu_procs.n - 1)->sm_util_pct.v = 33;
	assert_int_equal(run2("gpu.shared_by_processes", x), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_string_equal(f->subject, "gpu1 (0000:43:00.0)");
	NEAR(ev_get(f, "active_processes")->value.v, 2, 0);
	NEAR(ev_get(f, "active_processes")->threshold.v, 2, 0);
	assert_string_equal(ev_get(f, "pid_sm_pct")->text, "4242:95% 5120:33%");
	/* EXCLUSIVE_PROCESS mode: not time-slicing */
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	gd_u64_set(&GD_VEC_AT(x->b.gpus, struct gd_gpu, 1)->compute_mode, 3);
	assert_int_equal(run2("gpu.shared_by_processes", x), GD_VERDICT_CLEAR);
}

static void test_shared_unknown(void **state)
{
	struct fx *x = *state;

	nvml_absent(x);
	assert_int_equal(run2("gpu.shared_by_processes", x), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&x->out), "no GPU evidence: libnvidia-ml.so.1");
}

/* ---- gpu.saturated ------------------------------------------------------------ */

static void test_saturated(void **state)
{
	struct fx *x = *state;
	const uint64_t hot[4] = { 99, 95, 97, 94 };
	const struct gd_finding *f;

	job(&x->a, &x->b, hot, CLK, 100, 100);
	/* one process, host calm: busy but nobody waits */
	assert_int_equal(run2("gpu.saturated", x), GD_VERDICT_CLEAR);
	gd_f64_set(&x->b.psi.cpu_some_avg10, 55);
	assert_int_equal(run2("gpu.saturated", x), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_int_equal(f->severity, GD_SEV_INFO);
	assert_string_equal(f->subject, "gpu0 (0000:1b:00.0)");
	NEAR(ev_get(f, "util_min_pct")->value.v, 99, 0);
	NEAR(ev_get(f, "util_min_pct")->threshold.v, 98, 0);
	/* one sample below the threshold: not the whole window */
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	GD_VEC_AT(x->a.gpus, struct gd_gpu, 0)->util_gpu_pct.v = 97;
	assert_int_equal(run2("gpu.saturated", x), GD_VERDICT_CLEAR);
}

/* ---- gpu.idle_while_job_runs ---------------------------------------------------- */

static void test_idle_no_cause(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	job(&x->a, &x->b, IDLE, CLK, 100, 100);
	assert_int_equal(run2("gpu.idle_while_job_runs", x), GD_VERDICT_FIRED);
	assert_int_equal(x->out.items.n, 4);
	f = FINDING(x->out, 1);
	assert_string_equal(f->subject, "gpu1 (0000:43:00.0)");
	NEAR(ev_get(f, "util_pct")->value.v, 9, 1e-9);
	NEAR(ev_get(f, "util_pct")->threshold.v, 40, 0);
	NEAR(ev_get(f, "pid")->value.v, 4242, 0);
	assert_string_equal(ev_get(f, "explained_by")->text, "none found");
	assert_contains(f->summary, "no host cause found");
}

static void test_idle_explained(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	job(&x->a, &x->b, IDLE, CLK, 198, 100);   /* workers at 99% of a core */
	assert_int_equal(run2("gpu.idle_while_job_runs", x), GD_VERDICT_FIRED);
	const struct gd_evidence *e;

	f = FINDING(x->out, 0);
	e = ev_get(f, "explained_by");
	assert_non_null(e);
	assert_true(strncmp(e->text, "cpu.input_bound (4 loader workers", 33) == 0);
	assert_contains(f->summary, "likely host cause: cpu.input_bound");
}

static void test_idle_edges(void **state)
{
	struct fx *x = *state;
	uint64_t edge[4] = { 40, 40, 40, 40 };

	/* exactly at the threshold: not idle; averaged over the window */
	job(&x->a, &x->b, edge, CLK, 100, 100);
	assert_int_equal(run2("gpu.idle_while_job_runs", x), GD_VERDICT_CLEAR);
	GD_VEC_AT(x->a.gpus, struct gd_gpu, 2)->util_gpu_pct.v = 30;   /* avg 35 */
	assert_int_equal(run2("gpu.idle_while_job_runs", x), GD_VERDICT_FIRED);
	NEAR(ev_get(FINDING(x->out, 0), "util_pct")->value.v, 35, 1e-9);
	/* an idle GPU nobody holds is not a waiting job */
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	gd_vec_reset(&x->b.gpu_procs);
	GD_VEC_AT(x->b.procs, struct gd_proc, 0)->nvidia_devs[0] = '\0';
	assert_int_equal(run2("gpu.idle_while_job_runs", x), GD_VERDICT_CLEAR);
}

static void test_idle_unknown(void **state)
{
	struct fx *x = *state;

	nvml_absent(x);
	assert_int_equal(run2("gpu.idle_while_job_runs", x), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&x->out), "no GPU evidence");
}

/* Which GPU a job uses (issue 12): NVML's process list, not /dev/nvidia* fds. */

static void reset_out(struct fx *x)
{
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
}

/* Removes every gpu_procs[] row of GPU gpu in both snapshots. */
static void unlist(struct fx *x, uint64_t gpu)
{
	struct gd_snapshot *ss[2] = { &x->a, &x->b };

	for (int k = 0; k < 2; k++) {
		struct gd_vec *v = &ss[k]->gpu_procs;
		size_t n = 0;

		for (size_t i = 0; i < v->n; i++) {
			struct gd_gpu_proc *p = GD_VEC_AT(*v, struct gd_gpu_proc, i);

			if (p->gpu.v != gpu)
				*GD_VEC_AT(*v, struct gd_gpu_proc, n++) = *p;
		}
		v->n = n;
		GD_VEC_AT(ss[k]->gpus, struct gd_gpu, gpu)->nvml_procs.v = 0;
	}
}

static void test_idle_fd_holders_are_not_users(void **state)
{
	struct fx *x = *state;
	const uint64_t one[4] = { 97, 0, 0, 0 };

	/* pid 4242 holds all four device nodes but NVML lists it on gpu0 only:
	 * gpu1-3 are idle by choice */
	job(&x->a, &x->b, one, CLK, 100, 100);
	for (uint64_t g = 1; g < 4; g++)
		unlist(x, g);
	assert_string_equal(GD_VEC_AT(x->b.procs, struct gd_proc, 0)->nvidia_devs, "0,1,2,3");
	assert_int_equal(run2("gpu.idle_while_job_runs", x), GD_VERDICT_CLEAR);
	assert_int_equal(run2("gpu.straggler", x), GD_VERDICT_CLEAR);
	assert_int_equal(run2("cpu.input_bound", x), GD_VERDICT_CLEAR);
	/* listed on gpu2 too (a rank on it): that one is idle while used */
	add_gproc(&x->a, 2, 4242, 0);
	add_gproc(&x->b, 2, 4242, 0);
	assert_int_equal(run2("gpu.idle_while_job_runs", x), GD_VERDICT_FIRED);
	assert_int_equal(x->out.items.n, 1);
	assert_string_equal(FINDING(x->out, 0)->subject, "gpu2 (0000:52:00.0)");
	assert_string_equal(ev_get(FINDING(x->out, 0), "nvml_users")->text, "pid 4242 (python) 68.0 GiB SM 0%");
	assert_contains(FINDING(x->out, 0)->summary, "while pid 4242 (python) uses it;");
}

static void test_idle_outside_namespace(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	/* gpudoctor in a container: NVML's host pids are not in procs[] */
	job(&x->a, &x->b, IDLE, CLK, 100, 100);
	for (int k = 0; k < 2; k++)
		GD_VEC_EACH(k ? x->b.gpu_procs : x->a.gpu_procs, struct gd_gpu_proc, p)
			p->pid.v = 88120 + p->gpu.v;
	assert_int_equal(run2("gpu.idle_while_job_runs", x), GD_VERDICT_FIRED);
	assert_int_equal(x->out.items.n, 4);
	f = FINDING(x->out, 3);
	assert_string_equal(f->subject, "gpu3 (0000:61:00.0)");
	NEAR(ev_get(f, "pid")->value.v, 88123, 0);
	NEAR(ev_get(f, "processes")->value.v, 1, 0);
	NEAR(ev_get(f, "outside_pid_namespace")->value.v, 1, 0);
	assert_string_equal(ev_get(f, "nvml_users")->text, "pid 88123 (outside this pid namespace) 68.0 GiB SM 11%");
	assert_contains(f->summary, "while pid 88123 (NVML's pid, outside this pid namespace) uses it; no host cause");
	/* the job's own causes are not looked for (its workers are not known) */
	fx_reset(x);
	job(&x->a, &x->b, IDLE, CLK, 198, 100);   /* workers at 99%, but of pid 4242 */
	for (int k = 0; k < 2; k++)
		GD_VEC_EACH(k ? x->b.gpu_procs : x->a.gpu_procs, struct gd_gpu_proc, p)
			p->pid.v = 88120 + p->gpu.v;
	assert_int_equal(run2("gpu.idle_while_job_runs", x), GD_VERDICT_FIRED);
	assert_string_equal(ev_get(FINDING(x->out, 0), "explained_by")->text, "none found");
	/* a busy GPU used from outside is not idle */
	reset_out(x);
	for (int k = 0; k < 2; k++)
		GD_VEC_EACH(k ? x->b.gpus : x->a.gpus, struct gd_gpu, g)
			g->util_gpu_pct.v = 90;
	assert_int_equal(run2("gpu.idle_while_job_runs", x), GD_VERDICT_CLEAR);
	/* listed first from outside, then pid 4242: the pid evidence is the one the summary names */
	fx_reset(x);
	job(&x->a, &x->b, IDLE, CLK, 100, 100);
	GD_VEC_AT(x->a.gpu_procs, struct gd_gpu_proc, 0)->pid.v = 88120;
	GD_VEC_AT(x->b.gpu_procs, struct gd_gpu_proc, 0)->pid.v = 88120;
	add_gproc(&x->a, 0, 4242, 0);
	add_gproc(&x->b, 0, 4242, 0);
	assert_int_equal(run2("gpu.idle_while_job_runs", x), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_string_equal(f->subject, "gpu0 (0000:1b:00.0)");
	assert_contains(f->summary, "while pid 4242 (python) and 1 other process use it;");
	NEAR(ev_get(f, "pid")->value.v, 4242, 0);
	NEAR(ev_get(f, "processes")->value.v, 2, 0);
	NEAR(ev_get(f, "outside_pid_namespace")->value.v, 1, 0);
}

static void test_idle_unseen_user(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;
	const uint64_t busy3[4] = { 96, 95, 97, 2 };

	job(&x->a, &x->b, busy3, CLK, 100, 100);
	unlist(x, 3);
	/* exactly unseen_mem_bytes (1 GiB) in use: still the driver's, idle by choice */
	GD_VEC_AT(x->a.gpus, struct gd_gpu, 3)->mem_used_bytes.v = 1073741824;
	GD_VEC_AT(x->b.gpus, struct gd_gpu, 3)->mem_used_bytes.v = 1073741824;
	assert_int_equal(run2("gpu.idle_while_job_runs", x), GD_VERDICT_CLEAR);
	/* 30 GiB in use, nobody listed: an unseen process */
	GD_VEC_AT(x->b.gpus, struct gd_gpu, 3)->mem_used_bytes.v = 32212254720;
	assert_int_equal(run2("gpu.idle_while_job_runs", x), GD_VERDICT_FIRED);
	assert_int_equal(x->out.items.n, 1);
	f = FINDING(x->out, 0);
	assert_string_equal(f->subject, "gpu3 (0000:61:00.0)");
	assert_ev(f, "mem_used_bytes", 32212254720.0, 1073741824.0);
	NEAR(ev_get(f, "processes")->value.v, 0, 0);
	for (size_t i = 0; i < f->nev; i++)
		assert_string_not_equal(f->ev[i].name, "pid");   /* nobody to name */
	assert_string_equal(ev_get(f, "nvml_users")->text, "none listed");
	assert_contains(f->summary, "while no process NVML lists uses it, yet 30.0 GiB of its memory is in use "
				    "(threshold 1.0 GiB): a process gpudoctor cannot see uses it;");
	/* the threshold is a rule key */
	reset_out(x);
	{
		struct gd_thresholds th;

		gd_thresholds_init(&th);
		assert_override("gpu.idle_while_job_runs", &x->a, &x->b, &th, &x->out,
				"gpu.idle_while_job_runs.unseen_mem_bytes", "40000000000", GD_VERDICT_FIRED,
				GD_VERDICT_CLEAR);
	}
}

static void test_idle_mapping_unknown(void **state)
{
	struct fx *x = *state;
	const uint64_t busy3[4] = { 96, 95, 97, 2 };
	struct gd_nvml_error *e;

	/* NVML's process query failed on gpu3: never guessed from pid 4242's fds */
	job(&x->a, &x->b, busy3, CLK, 100, 100);
	unlist(x, 3);
	GD_VEC_AT(x->a.gpus, struct gd_gpu, 3)->nvml_procs.ok = false;
	GD_VEC_AT(x->b.gpus, struct gd_gpu, 3)->nvml_procs.ok = false;
	e = GD_PUSH(&x->b, nvml_errors, struct gd_nvml_error);
	gd_u64_set(&e->gpu, 3);
	GD_STRSET(e->field, "gpu_procs");
	GD_STRSET(e->status, "failed");
	GD_STRSET(e->reason, "nvmlDeviceGetComputeRunningProcesses_v3: Unknown Error");
	assert_int_equal(run2("gpu.idle_while_job_runs", x), GD_VERDICT_UNKNOWN);
	assert_string_equal(unknown_reason(&x->out),
			    "1 idle GPU, but which processes use it is not known: "
			    "nvmlDeviceGetComputeRunningProcesses_v3: Unknown Error (/dev/nvidia* descriptors say "
			    "only which processes are GPU jobs, not which GPU they use)");
	assert_int_equal(run2("gpu.straggler", x), GD_VERDICT_CLEAR);
	/* a busy GPU needs no mapping to be not idle */
	reset_out(x);
	GD_VEC_AT(x->a.gpus, struct gd_gpu, 3)->util_gpu_pct.v = 90;
	GD_VEC_AT(x->b.gpus, struct gd_gpu, 3)->util_gpu_pct.v = 90;
	assert_int_equal(run2("gpu.idle_while_job_runs", x), GD_VERDICT_CLEAR);
}

/* ---- gpu.straggler ---------------------------------------------------------------- */

static void test_straggler_clock(void **state)
{
	struct fx *x = *state;
	const uint64_t slow[4] = { 1980, 1980, 1980, 1410 };
	const struct gd_finding *f;

	job(&x->a, &x->b, BUSY, slow, 100, 100);
	assert_int_equal(run2("gpu.straggler", x), GD_VERDICT_FIRED);
	assert_int_equal(x->out.items.n, 1);
	f = FINDING(x->out, 0);
	assert_string_equal(f->subject, "gpu3 (0000:61:00.0)");
	NEAR(ev_get(f, "clock_pct_of_median")->value.v, 100.0 * 1410 / 1980, 1e-9);
	NEAR(ev_get(f, "clock_pct_of_median")->threshold.v, 85, 0);
	NEAR(ev_get(f, "siblings_median_mhz")->value.v, 1980, 0);
}

static void test_straggler_edges(void **state)
{
	struct fx *x = *state;
	const uint64_t edge[4] = { 2000, 2000, 2000, 1700 };   /* exactly 85% */
	uint64_t util[4] = { 96, 95, 97, 60 };                  /* 36 points off */

	job(&x->a, &x->b, BUSY, edge, 100, 100);
	assert_int_equal(run2("gpu.straggler", x), GD_VERDICT_CLEAR);
	gd_snapshot_clear(&x->a);
	gd_snapshot_clear(&x->b);
	pair_init(&x->a, &x->b, 2.0);
	job(&x->a, &x->b, util, CLK, 100, 100);
	assert_int_equal(run2("gpu.straggler", x), GD_VERDICT_FIRED);
	NEAR(ev_get(FINDING(x->out, 0), "util_diff_pct")->value.v, -36, 1e-9);
	/* 30 points off is not more than 30 */
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	GD_VEC_AT(x->a.gpus, struct gd_gpu, 3)->util_gpu_pct.v = 66;
	GD_VEC_AT(x->b.gpus, struct gd_gpu, 3)->util_gpu_pct.v = 66;
	assert_int_equal(run2("gpu.straggler", x), GD_VERDICT_CLEAR);
}

/* ---- cpu.input_bound -------------------------------------------------------------- */

static void test_input_bound_workers(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	job(&x->a, &x->b, IDLE, CLK, 196, 100);   /* 98% of a core each */
	assert_int_equal(run2("cpu.input_bound", x), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_string_equal(f->subject, "pid 4242 (python)");
	NEAR(ev_get(f, "workers")->value.v, 4, 0);
	NEAR(ev_get(f, "workers_min_core_pct")->value.v, 98, 1e-9);
	NEAR(ev_get(f, "workers_min_core_pct")->threshold.v, 90, 0);
	NEAR(ev_get(f, "gpu_util_pct")->value.v, 9, 1e-9);
}

static void test_input_bound_thread_and_edges(void **state)
{
	struct fx *x = *state;

	/* one worker below 90%: the workers are not all busy; the main
	 * thread at 95% is */
	job(&x->a, &x->b, IDLE, CLK, 196, 190);
	GD_VEC_AT(x->b.procs, struct gd_proc, 1)->utime_ticks.v = 500 + 178;   /* 89% */
	assert_int_equal(run2("cpu.input_bound", x), GD_VERDICT_FIRED);
	NEAR(ev_get(FINDING(x->out, 0), "hot_thread_core_pct")->value.v, 98, 1e-9);
	assert_contains(FINDING(x->out, 0)->summary, "Thread");
	/* a fed GPU: the busy CPU is not a bottleneck */
	gd_snapshot_clear(&x->a);
	gd_snapshot_clear(&x->b);
	pair_init(&x->a, &x->b, 2.0);
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	job(&x->a, &x->b, BUSY, CLK, 198, 198);
	assert_int_equal(run2("cpu.input_bound", x), GD_VERDICT_CLEAR);
}

/* ---- cpu.too_many_workers ------------------------------------------------------------ */

static void test_too_many_workers(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	job(&x->a, &x->b, BUSY, CLK, 100, 100);
	for (uint64_t w = 0; w < 6; w++) {   /* 10 workers on 8 CPUs */
		add_proc(&x->a, 4400 + w, 4242, "pt_data_worker", 100, "");
		add_proc(&x->b, 4400 + w, 4242, "pt_data_worker", 150, "");
	}
	set_cpu(&x->a, 1000, 10000);
	set_cpu(&x->b, 1000 + 1560, 10000 + 40);   /* 97.5% busy */
	gd_u64_set(&x->a.mem.total_bytes, 100ull << 30);
	gd_u64_set(&x->b.mem.total_bytes, 100ull << 30);
	gd_u64_set(&x->a.mem.available_bytes, 40ull << 30);
	gd_u64_set(&x->b.mem.available_bytes, 40ull << 30);
	/* memory steady: no finding */
	assert_int_equal(run2("cpu.too_many_workers", x), GD_VERDICT_CLEAR);
	x->b.mem.available_bytes.v = 38ull << 30;   /* 2% of RAM gone */
	assert_int_equal(run2("cpu.too_many_workers", x), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	NEAR(ev_get(f, "workers")->value.v, 10, 0);
	NEAR(ev_get(f, "workers")->threshold.v, 8, 0);
	NEAR(ev_get(f, "busy_pct")->value.v, 97.5, 1e-9);
	NEAR(ev_get(f, "available_drop_pct")->value.v, 2, 1e-9);
	/* 8 workers on 8 CPUs is not more than the CPUs */
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	x->b.procs.n -= 2;
	assert_int_equal(run2("cpu.too_many_workers", x), GD_VERDICT_CLEAR);
}

/* ---- cpu.numa_far_from_gpu and net.gpu_nic_far ------------------------------------------ */

static void two_nodes(struct gd_snapshot *s, uint64_t gpu0_node)
{
	struct gd_source *src = GD_PUSH(s, sources, struct gd_source);
	struct gd_pci_nic *n = GD_PUSH(s, pci_nics, struct gd_pci_nic);

	GD_STRSET(src->name, "pci");
	GD_STRSET(src->status, "ok");
	gd_u64_set(&s->cpu.numa_nodes, 2);
	for (uint64_t c = 0; c < 8; c++) {
		struct gd_cpus *cp = GD_PUSH(s, cpus, struct gd_cpus);

		gd_u64_set(&cp->cpu, c);
		gd_u64_set(&cp->numa_node, c / 4);
	}
	for (size_t i = 0; i < 4; i++) {
		struct gd_pci_gpu *p = GD_PUSH(s, pci_gpus, struct gd_pci_gpu);

		GD_STRSET(p->pci_bus_id, BDF[i]);
		GD_STRSET(p->driver, "nvidia");
		gd_u64_set(&p->numa_node, i == 0 ? gpu0_node : 0);
		snprintf(p->pci_path, sizeof p->pci_path, "%s/0000:38:0%zu.0/0000:4%zu:00.0",
			 i == 0 ? "pci0000:16" : "pci0000:38", i + 2, i);
	}
	GD_STRSET(n->pci_bus_id, "0000:3b:00.0");
	GD_STRSET(n->rdma_device, "mlx5_0");
	GD_STRSET(n->netif, "ib0");
	gd_u64_set(&n->numa_node, 0);
	GD_STRSET(n->pci_path, "pci0000:38/0000:38:02.0");
}

static void test_numa_far(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	job(&x->a, &x->b, BUSY, CLK, 100, 100);
	two_nodes(&x->b, 1);
	assert_int_equal(run_rule2("cpu.numa_far_from_gpu", &x->b, NULL, NULL, &x->out), GD_VERDICT_CLEAR);
	GD_STRSET(GD_VEC_AT(x->b.procs, struct gd_proc, 0)->cpus_allowed, "0-3");
	assert_int_equal(run_rule2("cpu.numa_far_from_gpu", &x->b, NULL, NULL, &x->out), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_int_equal(f->severity, GD_SEV_INFO);
	assert_string_equal(f->subject, "pid 4242 (python)");
	assert_string_equal(ev_get(f, "cpus_allowed")->text, "0-3");
	assert_string_equal(ev_get(f, "cpu_nodes")->text, "0");
	NEAR(ev_get(f, "gpu_numa_node")->value.v, 1, 0);
	NEAR(ev_get(f, "far_gpus")->value.v, 1, 0);
	assert_contains(f->remedy, "--cpunodebind=1");
	/* one CPU on the GPU's node is enough */
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	GD_STRSET(GD_VEC_AT(x->b.procs, struct gd_proc, 0)->cpus_allowed, "0-4");
	assert_int_equal(run_rule2("cpu.numa_far_from_gpu", &x->b, NULL, NULL, &x->out), GD_VERDICT_CLEAR);
}

static void test_gpu_nic_far(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	job(&x->a, &x->b, BUSY, CLK, 100, 100);
	two_nodes(&x->b, 0);   /* gpu0 on another host bridge of the same node */
	assert_int_equal(run_rule2("net.gpu_nic_far", &x->b, NULL, NULL, &x->out), GD_VERDICT_CLEAR);
	GD_VEC_AT(x->b.pci_gpus, struct gd_pci_gpu, 0)->numa_node.v = 1;
	assert_int_equal(run_rule2("net.gpu_nic_far", &x->b, NULL, NULL, &x->out), GD_VERDICT_FIRED);
	assert_int_equal(x->out.items.n, 1);
	f = FINDING(x->out, 0);
	assert_string_equal(f->subject, "gpu0 (0000:1b:00.0)");
	assert_string_equal(ev_get(f, "distance")->text, "SYS");
	assert_string_equal(ev_get(f, "nearest_rdma")->text, "mlx5_0");
	NEAR(ev_get(f, "gpu_numa_node")->value.v, 1, 0);
	/* a second RDMA NIC on node 1 is near enough */
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	{
		struct gd_pci_nic *n = GD_PUSH(&x->b, pci_nics, struct gd_pci_nic);

		GD_STRSET(n->rdma_device, "mlx5_1");
		gd_u64_set(&n->numa_node, 1);
		GD_STRSET(n->pci_path, "pci0000:16/0000:16:05.0");
	}
	assert_int_equal(run_rule2("net.gpu_nic_far", &x->b, NULL, NULL, &x->out), GD_VERDICT_CLEAR);
	/* without PCI evidence: unknown */
	gd_snapshot_clear(&x->b);
	assert_int_equal(run_rule2("net.gpu_nic_far", &x->b, NULL, NULL, &x->out), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&x->out), "no PCI evidence");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_shared),
		T(test_shared_unknown),
		T(test_saturated),
		T(test_idle_no_cause),
		T(test_idle_explained),
		T(test_idle_edges),
		T(test_idle_unknown),
		T(test_idle_fd_holders_are_not_users),
		T(test_idle_outside_namespace),
		T(test_idle_unseen_user),
		T(test_idle_mapping_unknown),
		T(test_straggler_clock),
		T(test_straggler_edges),
		T(test_input_bound_workers),
		T(test_input_bound_thread_and_edges),
		T(test_too_many_workers),
		T(test_numa_far),
		T(test_gpu_nic_far),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
