/*
 * rule_gpu_job.c - GPUs against the jobs that use them: shared, saturated
 * and idle GPUs, and the host-side reasons a job starves its GPU (an input
 * pipeline bound by CPU, too many loader workers).  Stragglers, GPUs out of
 * step with their siblings, are in rule_gpu_straggler.c.
 *
 * gpu.shared_by_processes: in the DEFAULT compute mode several processes
 * time-slice one GPU, each getting a share.  Evidence: gpu_procs[] of the
 * GPU with their per-process SM utilisation (NVML's latest sample) and
 * compute_mode.  Fires at >= 2 processes with utilisation > 0.  Example:
 * gpu1 runs pid 4242 at 61% and pid 5120 at 33%.
 *
 * gpu.saturated (info): the GPU is busy >= 98% in every sample of the
 * window while other work waits for it: a second compute process on it, or
 * host PSI cpu some >= 40% (the host queues behind the GPU).  Example: gpu0
 * 99% and 100%, two processes.
 *
 * gpu.idle_while_job_runs: the GPU is in use (rule_gpu_pci.h: NVML lists
 * processes on it, a pid outside this pid namespace included, or more
 * than unseen_mem_bytes of its memory is used while NVML lists nobody) but
 * its utilisation averages < 40% over the window's samples.  A GPU NVML
 * lists nobody on is idle by choice, whatever /dev/nvidia* descriptors the
 * job holds; one whose process list could not be read is not guessed at
 * (unknown, when it is idle and nothing else fired).  Rules cannot see each other's
 * findings, so the host causes are recomputed here from the same evidence
 * and thresholds (explain(); the job's own causes only for a user in this
 * pid namespace): cpu.input_bound, cpu.saturated,
 * cpu.cgroup_throttled, io.saturated, io.network_fs, mem.shm_small,
 * mem.swapping; the summary names those that hold, or says none did.
 * cpu.saturated is one only when the job's own threads starve (the threads
 * of its tree that are not waiting in NCCL waited for a CPU job_wait_pct of
 * the time they wanted one; schedstat unknown: named, as it may be): a node
 * saturated by others' work while the job runs when it wants is not it.
 * Example: gpu0 at 12% and 9% (avg 10.5%) while pid 4242's loader workers
 * each burn 99% of a core: "likely cause: cpu.input_bound".
 *
 * cpu.input_bound: a starved GPU job (a GPU it uses averages below
 * gpu.idle_while_job_runs's 40%) whose process tree burns CPU: one of its
 * threads >= 90% of a core (the Python thread decoding batches, or the
 * GIL-bound main loop), or every loader worker (descendant processes not
 * holding a GPU) >= 90% of a core each; a thread whose samples are in
 * NCCL busy-polls for its peers and is never the hot thread.  Evidence: threads[] and procs[]
 * tick deltas over the window.  Example: 4 workers at 98-100% of a core,
 * GPU at 11%.
 *
 * cpu.too_many_workers: more loader workers than online CPUs (1 per CPU),
 * the CPUs saturated (cpu.saturated's busy_pct) and memory pressure rising
 * (MemAvailable falling >= 1% of MemTotal over the window, PSI memory some
 * at mem.pressure's psi_some_pct, or pages swapped).  Example: 48 workers
 * on 32 CPUs, 98% busy, MemAvailable down 3.1% in 2 s.
 */
#include "rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "model/jobs.h"
#include "rules/rule_gpu.h"
#include "rules/gpu_samples.h"
#include "rules/rule_gpu_pci.h"
#include "rules/rule_job_threads.h"
#include "rules/rule_util.h"

/* Share of one core (%) p used over the window; false without both ends. */
static bool proc_core_pct(const struct gd_snapshot *a, const struct gd_snapshot *b, const struct gd_proc *p, double dt,
			  double *pct)
{
	const struct gd_proc *q;
	uint64_t du, ds;

	if (!p->pid.ok || !b->host.clk_tck.ok || b->host.clk_tck.v == 0)
		return false;
	q = gd_proc_find(a, p->pid.v, p->starttime_ticks.ok ? p->starttime_ticks.v : 0);
	if (!q || !gd_counter_delta(q->utime_ticks, p->utime_ticks, &du) ||
	    !gd_counter_delta(q->stime_ticks, p->stime_ticks, &ds))
		return false;
	*pct = 100.0 * (double)(du + ds) / (double)b->host.clk_tck.v / dt;
	return true;
}

static bool thread_core_pct(const struct gd_snapshot *a, const struct gd_snapshot *b, const struct gd_thread *t,
			    double dt, double *pct)
{
	uint64_t du, ds;

	if (!t->pid.ok || !t->tid.ok || !b->host.clk_tck.ok || b->host.clk_tck.v == 0)
		return false;
	GD_VEC_EACH(a->threads, const struct gd_thread, q) {
		if (!q->pid.ok || !q->tid.ok || q->pid.v != t->pid.v || q->tid.v != t->tid.v)
			continue;
		if (!gd_counter_delta(q->utime_ticks, t->utime_ticks, &du) ||
		    !gd_counter_delta(q->stime_ticks, t->stime_ticks, &ds))
			return false;
		*pct = 100.0 * (double)(du + ds) / (double)b->host.clk_tck.v / dt;
		return true;
	}
	return false;
}

/* True when d descends from the process with pid root (bounded walk). */
static bool descends_from(const struct gd_snapshot *s, const struct gd_proc *d, uint64_t root)
{
	for (int depth = 0; d && depth < 64; depth++) {
		if (!d->ppid.ok || d->ppid.v == 0)
			return false;
		if (d->ppid.v == root)
			return true;
		d = gd_snapshot_proc(s, d->ppid.v);
	}
	return false;
}

/* ---- the CPU side of a starved job (cpu.input_bound, explain) -------------- */

/* True when thread tid of pid waits in NCCL by its samples (rule_job_threads.h). */
static bool thread_in_nccl(struct gd_rule_ctx *rc, const struct gd_snapshot *a, const struct gd_snapshot *b, double dt,
			   uint64_t pid, uint64_t tid)
{
	struct gd_jt_use u;

	GD_VEC_EACH(b->job_threads, const struct gd_job_thread, t)
		if (t->pid.ok && t->tid.ok && t->pid.v == pid && t->tid.v == tid)
			return gd_jt_use_of(a, b, dt, t, &u) && gd_jt_in_nccl(rc, &u);
	return false;
}

/* Whether the job's own threads are starved of CPU: of the time the threads
 * of job and its descendants wanted a CPU (schedstat run plus run-queue
 * time), the share they waited for one, into *pct.  A thread that waits in
 * NCCL is left out: it waits for its peers, on a CPU or not.  False when no
 * thread of the job has schedstat in both snapshots (unknown). */
static bool job_cpu_wait(struct gd_rule_ctx *rc, const struct gd_snapshot *a, const struct gd_snapshot *b, double dt,
			 const struct gd_proc *job, double *pct)
{
	double run = 0, wait = 0;
	bool known = false;

	*pct = NAN;
	if (!job || !job->pid.ok)
		return false;
	GD_VEC_EACH(b->job_threads, const struct gd_job_thread, t) {
		const struct gd_proc *owner;
		struct gd_jt_use u;

		if (!t->pid.ok)
			continue;
		owner = gd_snapshot_proc(b, t->pid.v);
		if (t->pid.v != job->pid.v && (!owner || !descends_from(b, owner, job->pid.v)))
			continue;
		if (!gd_jt_use_of(a, b, dt, t, &u) || isnan(u.core_pct) || isnan(u.runq_pct))
			continue;
		known = true;
		if (gd_jt_in_nccl(rc, &u))
			continue;
		run += u.core_pct;
		wait += u.runq_pct;
	}
	if (!known)
		return false;
	*pct = run + wait > 0 ? 100.0 * wait / (run + wait) : 0.0;
	return true;
}

struct input_cpu {
	double hot_thread_pct;     /* busiest thread of the job's tree */
	char hot_thread[48];       /* "pt_main_thread (tid 4242)" */
	uint64_t hot_tid;
	bool main_host_bound;      /* the hot thread is the main one, busy outside CUDA: job.host_bound's */
	double main_off_pct;       /* the main thread off a CPU, % of the window (NAN: unknown) */
	char main_waits_in[64];    /* the system call (and kernel function) it sleeps in at the end */
	size_t in_nccl;            /* threads left out as waiting in NCCL */
	size_t workers;            /* loader workers with a known CPU share */
	double workers_min_pct;    /* the least busy of them */
	double workers_avg_pct;
	bool thread_hot, workers_hot;
};

static void input_cpu(struct gd_rule_ctx *rc, const struct gd_snapshot *a, const struct gd_snapshot *b, double dt,
		      const struct gd_proc *job, struct input_cpu *ic)
{
	struct gd_jt_use m;
	double sum = 0;

	memset(ic, 0, sizeof *ic);
	ic->hot_thread_pct = NAN;
	ic->workers_min_pct = NAN;
	GD_VEC_EACH(b->threads, const struct gd_thread, t) {
		const struct gd_proc *owner;
		double pct;

		if (!t->pid.ok)
			continue;
		owner = gd_snapshot_proc(b, t->pid.v);
		if (!owner || (t->pid.v != job->pid.v && !descends_from(b, owner, job->pid.v)))
			continue;
		/* a thread spinning in NCCL waits for its peers: not an input thread */
		if (t->tid.ok && thread_in_nccl(rc, a, b, dt, t->pid.v, t->tid.v)) {
			ic->in_nccl++;
			continue;
		}
		if (thread_core_pct(a, b, t, dt, &pct) && (isnan(ic->hot_thread_pct) || pct > ic->hot_thread_pct)) {
			ic->hot_thread_pct = pct;
			snprintf(ic->hot_thread, sizeof ic->hot_thread, "%.24s (tid %llu)", t->comm,
				 (unsigned long long)t->tid.v);
			ic->hot_tid = t->tid.v;
		}
	}
	ic->main_off_pct = NAN;
	if (gd_jt_main(a, b, dt, job->pid.v, &m)) {
		if (!isnan(m.core_pct))
			ic->main_off_pct = fmax(0.0, 100.0 - m.core_pct - (isnan(m.runq_pct) ? 0.0 : m.runq_pct));
		if (m.syscall[0] && strcmp(m.syscall, "running") != 0)
			snprintf(ic->main_waits_in, sizeof ic->main_waits_in, "%.15s%s%.31s", m.syscall,
				 m.wchan[0] ? " in " : "", m.wchan);
		/* a main thread busy outside CUDA is job.host_bound's finding */
		ic->main_host_bound = ic->hot_tid == job->pid.v && gd_jt_host_bound(rc, &m);
	}
	GD_VEC_EACH(b->procs, const struct gd_proc, p) {
		double pct;

		if (!descends_from(b, p, job->pid.v) || gd_proc_is_gpu_job(b, p) || !proc_core_pct(a, b, p, dt, &pct))
			continue;
		ic->workers++;
		sum += pct;
		if (isnan(ic->workers_min_pct) || pct < ic->workers_min_pct)
			ic->workers_min_pct = pct;
	}
	if (ic->workers)
		ic->workers_avg_pct = sum / (double)ic->workers;
	ic->thread_hot = !isnan(ic->hot_thread_pct) && ic->hot_thread_pct >= TH(rc, CPU_INPUT_THREAD_PCT) &&
			 !ic->main_host_bound;
	ic->workers_hot = ic->workers > 0 && ic->workers_min_pct >= TH(rc, CPU_INPUT_WORKER_PCT);
}

/* A cause's words: translated for a summary (say), as written for the
 * evidence text (explained_by stays English in every language). */
#define SAY(say, s) ((say) ? _(s) : (s))

/* Writes the host causes that hold for an idle GPU used by job (see the
 * header) into buf as "cpu.input_bound (...); io.saturated (...)"; returns
 * how many.  job NULL (a user outside this pid namespace, or unseen): the
 * host-wide causes only.  say: in the language of the report (a summary),
 * else in English (evidence). */
static size_t explain(struct gd_rule_ctx *rc, const struct gd_snapshot *a, const struct gd_snapshot *b, double dt,
		      const struct gd_proc *job, bool with_threads, bool say, char *buf, size_t sz)
{
	struct input_cpu ic;
	double busy, rate, jwait;
	size_t n = 0;
	uint64_t d1, d2;

	buf[0] = '\0';
	memset(&ic, 0, sizeof ic);
	if (job)
		input_cpu(rc, a, b, dt, job, &ic);
	if (ic.thread_hot || ic.workers_hot) {
		if (ic.workers_hot)
			/* TRANSLATORS: the host causes of an idle GPU: a rule id, then what
			 * of it holds, in parentheses; joined with "; " */
			cat(buf, sz, SAY(say, N_("cpu.input_bound (%zu loader workers each >= %.0f%% of a core)")),
			    ic.workers, ic.workers_min_pct);
		else
			cat(buf, sz, SAY(say, N_("cpu.input_bound (thread %s at %.0f%% of a core)")), ic.hot_thread,
			    ic.hot_thread_pct);
		n++;
	}
	if ((gd_cpu_busy_pct(&a->cpu, &b->cpu, &busy) && busy >= TH(rc, CPU_SATURATED_BUSY_PCT)) ||
	    (b->psi.cpu_some_avg10.ok && b->psi.cpu_some_avg10.v >= TH(rc, CPU_SATURATED_PSI_PCT))) {
		/* saturated CPUs explain the idle GPU only when the job's own
		 * threads are the ones starved (unknown: they may be) */
		if (!job_cpu_wait(rc, a, b, dt, job, &jwait))
			cat(buf, sz, "%scpu.saturated", n++ ? "; " : "");
		else if (jwait >= TH(rc, CPU_SATURATED_JOB_WAIT_PCT)) {
			cat(buf, sz, "%s", n++ ? "; " : "");
			/* TRANSLATORS: a cause of an idle GPU: cpu.saturated (the job's threads waited for a CPU <pct> of the time) */
			cat(buf, sz, SAY(say, N_("cpu.saturated (the job's threads waited for a CPU %.0f%% of the time they "
						 "wanted one)")), jwait);
		}
	}
	GD_VEC_EACH(b->cgroups, const struct gd_cgroup, cg) {
		const struct gd_cgroup *c0 = GD_FIND_PREV(a, cgroups, struct gd_cgroup, path, cg->path);

		if (!job || !c0 || strcmp(cg->path, job->cgroup) != 0 || !gd_counter_delta(c0->nr_periods, cg->nr_periods, &d1) ||
		    !gd_counter_delta(c0->nr_throttled, cg->nr_throttled, &d2) || d1 == 0)
			continue;
		if (100.0 * (double)d2 / (double)d1 >= TH(rc, CPU_CGROUP_THROTTLED_PCT)) {
			cat(buf, sz, "%s", n++ ? "; " : "");
			cat(buf, sz, SAY(say, N_("cpu.cgroup_throttled (%.0f%% of periods)")), 100.0 * (double)d2 / (double)d1);
			break;
		}
	}
	GD_VEC_EACH(b->disks, const struct gd_disk, d) {
		const struct gd_disk *d0 = GD_FIND_PREV(a, disks, struct gd_disk, name, d->name);

		if (!d0 || !(d->whole.ok && d->whole.v) || !gd_counter_rate(d0->io_ms, d->io_ms, dt, &rate))
			continue;
		if (rate / 10.0 >= TH(rc, IO_SATURATED_BUSY_PCT)) {
			cat(buf, sz, "%s", n++ ? "; " : "");
			/* TRANSLATORS: io.saturated (<disk> <percent> busy) */
			cat(buf, sz, SAY(say, N_("io.saturated (%s %.0f%% busy)")), d->name, rate / 10.0);
			break;
		}
	}
	if (job && job->netfs_fds.ok && job->netfs_fds.v > 0)
		cat(buf, sz, "%sio.network_fs (%s)", n++ ? "; " : "",
		    job->netfs_mount[0] ? job->netfs_mount : SAY(say, N_("open files")));
	GD_VEC_EACH(b->shm, const struct gd_shm, m) {
		if (!job || !m->pid.ok || m->pid.v != job->pid.v || !m->size_bytes.ok)
			continue;
		if ((double)m->size_bytes.v < TH(rc, MEM_SHM_MIN_BYTES) ||
		    (m->used_bytes.ok && m->size_bytes.v &&
		     100.0 * (double)m->used_bytes.v / (double)m->size_bytes.v >= TH(rc, MEM_SHM_USED_PCT)))
			cat(buf, sz, "%smem.shm_small (%.0f MiB)", n++ ? "; " : "", (double)m->size_bytes.v / 1048576.0);
		break;
	}
	if (gd_counter_delta(a->mem.pswpin, b->mem.pswpin, &d1) && gd_counter_delta(a->mem.pswpout, b->mem.pswpout, &d2) &&
	    (double)(d1 + d2) / dt >= TH(rc, MEM_SWAPPING_PAGES_PER_S))
		cat(buf, sz, "%smem.swapping", n++ ? "; " : "");
	if (with_threads && job && job->pid.ok)
		n += gd_jt_explain_lang(rc, a, b, dt, job->pid.v, buf, sz, say);
	return n;
}

#undef SAY

/* The host causes of an idle GPU (explain() without the job's own thread
 * causes), for job.waiting_for_peers's "no local cause". */
size_t gd__gpu_job_host_causes(struct gd_rule_ctx *rc, const struct gd_snapshot *a, const struct gd_snapshot *b,
			       double dt, const struct gd_proc *job, char *buf, size_t sz)
{
	return explain(rc, a, b, dt, job, false, false, buf, sz);
}

/* ---- gpu.shared_by_processes ---------------------------------------------- */

enum gd_verdict gd_rule_gpu_shared_by_processes(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	double min = TH(rc, GPU_SHARED_MIN_PROCS);
	size_t fired = 0;
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		char pids[96] = "";
		size_t active = 0, listed = 0;
		struct gd_finding *f;
		struct gpu_name nm = gpu_name(g);

		if (!gpu_live(g) || !g->index.ok || (g->compute_mode.ok && g->compute_mode.v != 0))
			continue;
		GD_VEC_EACH(b->gpu_procs, const struct gd_gpu_proc, gp) {
			if (!gp->gpu.ok || gp->gpu.v != g->index.v)
				continue;
			listed++;
			if (gp->sm_util_pct.ok && gp->sm_util_pct.v > 0) {
				active++;
				cat(pids, sizeof pids, "%s%llu:%llu%%", pids[0] ? " " : "", (unsigned long long)gp->pid.v,
				    (unsigned long long)gp->sm_util_pct.v);
			}
		}
		if ((double)active < min)
			continue;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", nm.s);
		/* TRANSLATORS: <n> processes compute on gpu1 at once (pid:SM% 4242:61% 5120:33%) ... */
		gd_finding_summary(f, _("%zu processes compute on %s at once (pid:SM%% %s) in the DEFAULT compute mode: "
					"they time-slice it."), active, nm.s, pids);
		gd_finding_ev(f, "active_processes", (double)active, "", min);
		gd_finding_ev(f, "listed_processes", (double)listed, "", NAN);
		gd_finding_ev_text(f, "pid_sm_pct", pids);
		fired++;
	}
	return fired ? GD_VERDICT_FIRED : GD_VERDICT_CLEAR;
}

/* ---- gpu.saturated ------------------------------------------------------------ */

enum gd_verdict gd_rule_gpu_saturated(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	double th = TH(rc, GPU_SATURATED_UTIL_PCT), th_psi = TH(rc, GPU_SATURATED_PSI_PCT);
	double th_sm = TH(rc, GPU_SATURATED_SM_PCT);
	size_t fired = 0, judged = 0;
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		double lo = INFINITY;
		size_t samples = 0, procs = 0;
		bool psi_hot = b->psi.cpu_some_avg10.ok && b->psi.cpu_some_avg10.v >= th_psi;
		struct gpu_name nm = gpu_name(g);
		struct gd_gpu_busy busy;
		struct gd_finding *f;

		for (size_t i = 0; i < rc->w->n; i++) {
			const struct gd_gpu *x = gpu_match(rc->w->snaps[i], g);

			if (x && gpu_live(x) && x->util_gpu_pct.ok) {
				samples++;
				lo = fmin(lo, (double)x->util_gpu_pct.v);
			}
		}
		if (!samples)
			continue;
		judged++;
		GD_VEC_EACH(b->gpu_procs, const struct gd_gpu_proc, gp)
			procs += gp->gpu.ok && g->index.ok && gp->gpu.v == g->index.v;
		if (lo < th || (procs < 2 && !psi_hot))
			continue;
		/* a kernel resident all the time, the SMs mostly idle (GPM): not a
		 * bottleneck, whatever utilisation says */
		if (gd_gpu_busy(rc, g, th, th_sm, &busy) && busy.gpm && busy.sm < th_sm)
			continue;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", nm.s);
		if (procs >= 2)
			gd_finding_summary(f, _("%s was at least %.0f%% busy in all %zu samples (threshold %g%%) while other "
						"processes share it: the GPU is the bottleneck."), nm.s, lo, samples, th);
		else
			gd_finding_summary(f, _("%s was at least %.0f%% busy in all %zu samples (threshold %g%%) while host "
						"tasks wait for CPU: the GPU is the bottleneck."), nm.s, lo, samples, th);
		gd_finding_ev(f, "util_min_pct", lo, "%", th);
		gd_gpu_busy_ev(f, &busy, th_sm);
		gd_finding_ev(f, "processes", (double)procs, "", NAN);
		if (b->psi.cpu_some_avg10.ok)
			gd_finding_ev(f, "psi_cpu_some_pct", b->psi.cpu_some_avg10.v, "%", th_psi);
		fired++;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	return judged ? GD_VERDICT_CLEAR : gpu_field_unknown(rc, b, "util_gpu_pct", _("GPU utilisation"));
}

/* ---- gpu.idle_while_job_runs ----------------------------------------------------- */

/* "pid 4242 (python) uses it", "pid 88123 (outside this pid namespace) and 1
 * other process use it", "no process NVML lists uses it, yet 30.0 GiB ...":
 * said in "gpu0 averaged 12% utilisation ... while <this>". */
static void users_phrase(const struct gpci_users *u, const struct gd_gpu *g, double unseen, char *buf, size_t sz)
{
	if (u->use == GPCI_UNSEEN && g->nvml_procs.ok)
		/* TRANSLATORS: the phrases below end "gpu0 averaged 12% utilisation over 2.0 s (threshold 40%) while <phrase>" */
		snprintf(buf, sz, _("no process NVML lists uses it, yet %.1f GiB of its memory is in use (threshold "
				    "%.1f GiB): a process gpudoctor cannot see uses it"),
			 (double)g->mem_used_bytes.v / 1073741824.0, unseen / 1073741824.0);
	else if (u->use == GPCI_UNSEEN)
		snprintf(buf, sz, _("NVML's process list could not be read, yet %.1f GiB of its memory is in use "
				    "(threshold %.1f GiB): a process gpudoctor cannot see uses it"),
			 (double)g->mem_used_bytes.v / 1073741824.0, unseen / 1073741824.0);
	else if (u->first && u->listed == 1)
		snprintf(buf, sz, _("pid %llu (%s) uses it"), (unsigned long long)u->first->pid.v, u->first->comm);
	else if (u->first)
		/* TRANSLATORS: pid <pid> (<command>) and <n> other process(es) use it */
		snprintf(buf, sz, P_("pid %llu (%s) and %zu other process use it",
				     "pid %llu (%s) and %zu other processes use it", u->listed - 1),
			 (unsigned long long)u->first->pid.v, u->first->comm, u->listed - 1);
	else if (u->listed == 1)
		snprintf(buf, sz, _("pid %llu (NVML's pid, outside this pid namespace) uses it"),
			 (unsigned long long)u->first_pid);
	else
		snprintf(buf, sz, P_("pid %llu (NVML's pid, outside this pid namespace) and %zu other process use it",
				     "pid %llu (NVML's pid, outside this pid namespace) and %zu other processes use it",
				     u->listed - 1),
			 (unsigned long long)u->first_pid, u->listed - 1);
}

enum gd_verdict gd_rule_gpu_idle_while_job_runs(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	double th = TH(rc, GPU_IDLE_UTIL_PCT), th_sm = TH(rc, GPU_IDLE_SM_PCT), unseen = TH(rc, GPU_IDLE_UNSEEN_MEM_BYTES), dt = 0;
	size_t fired = 0, held = 0, judged = 0, unmapped = 0;
	char unmapped_why[320] = "";
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	if (!gd_window_dt(rc->w, &dt))
		return gd_rule_unknown(rc, _("needs a window"));
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		struct gpci_users u;
		struct gd_gpu_samples_sum gs;
		struct gd_gpu_busy busy;
		bool have_avg;
		char why[384], said[512], who[256], how[256];
		struct gpu_name nm = gpu_name(g);
		double xcopy, xoverlap;
		bool host;
		struct gd_finding *f;

		if (!gpu_live(g))
			continue;
		u = gpci_users(b, g, unseen);
		have_avg = gd_gpu_busy(rc, g, th, th_sm, &busy);
		if (u.use == GPCI_UNKNOWN) {
			if (!have_avg || busy.idle) {
				if (!unmapped++)
					gpci_unmapped_reason(b, g, unmapped_why, sizeof unmapped_why);
			}
			continue;
		}
		if (u.use == GPCI_IDLE)
			continue; /* nobody uses it: idle by choice */
		held++;
		if (!have_avg)
			continue;
		judged++;
		if (!busy.idle)
			continue;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", nm.s);
		users_phrase(&u, g, unseen, who, sizeof who);
		gd_gpu_busy_over(&busy, dt, th, th_sm, how, sizeof how);
		/* the causes twice: in the report's language for the summary,
		 * in English for the evidence */
		host = explain(rc, a, b, dt, u.first, true, false, why, sizeof why) &&
		       explain(rc, a, b, dt, u.first, true, true, said, sizeof said);
		if (gd_xfer_serialized(rc, g, &xcopy, &xoverlap)) {
			/* the job's own cause: its copies and kernels take turns */
			size_t wl = strlen(why), sl = strlen(said);

			snprintf(why + wl, sizeof why - wl, "%sgpu.transfer_serialized (copies %.0f%%, overlap %.0f%%)",
				 wl ? "; " : "", xcopy, xoverlap);
			/* TRANSLATORS: a cause of an idle GPU: gpu.transfer_serialized (copies <pct>, overlap <pct>) */
			snprintf(said + sl, sizeof said - sl, _("%sgpu.transfer_serialized (copies %.0f%%, overlap %.0f%%)"),
				 sl ? "; " : "", xcopy, xoverlap);
			/* TRANSLATORS: <gpu> <how busy it was> while <who uses it>; likely cause: <rule ids with what holds> */
			gd_finding_summary(f, _("%s %s while %s; likely cause: %s."), nm.s, how, who, said);
		} else if (host)
			/* TRANSLATORS: <gpu> <how busy it was> while <who uses it>; likely host cause: <rule ids with what holds> */
			gd_finding_summary(f, _("%s %s while %s; likely host cause: %s."), nm.s, how, who, said);
		else
			/* TRANSLATORS: <gpu> <how busy it was> while <who uses it>; no host cause found ... */
			gd_finding_summary(f, _("%s %s while %s; no host cause found (CPU, cgroup quota, storage, /dev/shm "
						"and swap look fine): suspect the job itself (small batches, synchronisation, "
						"a slow peer)."), nm.s, how, who);
		if (busy.util_ok)
			gd_finding_ev(f, "util_pct", busy.util, "%", th);
		gd_gpu_busy_ev(f, &busy, th_sm);
		if (u.first || u.first_pid) /* the pid the summary names */
			gd_finding_ev(f, "pid", (double)(u.first ? u.first->pid.v : u.first_pid), "", NAN);
		gd_finding_ev(f, "processes", (double)u.listed, "", NAN);
		if (u.outside)
			gd_finding_ev(f, "outside_pid_namespace", (double)u.outside, "", NAN);
		if (u.use == GPCI_UNSEEN)
			gd_finding_ev(f, "mem_used_bytes", (double)g->mem_used_bytes.v, "bytes", unseen);
		if (g->index.ok && gd_gpu_samples_window(rc->w, g->index.v, th, &gs))
			gd_finding_ev(f, "stall_ms", gs.stall_ms, "ms", NAN);
		gd_finding_ev_text(f, "nvml_users", u.text[0] ? u.text : "none listed");
		gd_finding_ev_text(f, "explained_by", why[0] ? why : "none found");
		fired++;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (held && !judged)
		return gpu_field_unknown(rc, b, "util_gpu_pct", _("GPU utilisation"));
	if (unmapped)
		return gd_rule_unknown(rc, P_("%zu idle GPU, but which processes use it is not known: %s (/dev/nvidia* "
					      "descriptors say only which processes are GPU jobs, not which GPU they use)",
					      "%zu idle GPUs, but which processes use them is not known: %s (/dev/nvidia* "
					      "descriptors say only which processes are GPU jobs, not which GPU they use)",
					      unmapped),
				       unmapped, unmapped_why);
	return GD_VERDICT_CLEAR;
}

/* ---- cpu.input_bound --------------------------------------------------------------- */

enum gd_verdict gd_rule_cpu_input_bound(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	double th_idle = TH(rc, GPU_IDLE_UTIL_PCT), th_sm = TH(rc, GPU_IDLE_SM_PCT), dt = 0;
	size_t fired = 0, starved = 0, measured = 0;
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	if (!gd_window_dt(rc->w, &dt))
		return gd_rule_unknown(rc, _("needs a window"));
	GD_VEC_EACH(b->procs, const struct gd_proc, p) {
		const struct gd_gpu *idle;
		struct gd_gpu_busy busy;
		struct input_cpu ic;
		struct gd_finding *f;
		char how[128];

		if (!gd_proc_is_gpu_job(b, p) || !(idle = gd_gpu_idlest(rc, b, p, th_idle, th_sm, &busy)))
			continue;
		starved++;
		input_cpu(rc, a, b, dt, p, &ic);
		if (!isnan(ic.hot_thread_pct) || ic.workers || ic.in_nccl)
			measured++;
		if (!ic.thread_hot && !ic.workers_hot)
			continue;
		f = gd_finding_add(rc, out, rc->rule->severity, "pid %llu (%s)", (unsigned long long)p->pid.v, p->comm);
		gd_gpu_busy_now(&busy, how, sizeof how);
		if (ic.workers_hot && !isnan(ic.main_off_pct) && ic.main_waits_in[0])
			/* TRANSLATORS: ... waits off a CPU 80% of the window (<system call> in <kernel function>) ... */
			gd_finding_summary(f, _("All %zu loader workers of pid %llu (%s) burn at least %.0f%% of a core "
						"(threshold %g%%) while its main thread waits off a CPU %.0f%% of the window "
						"(%s) and %s %s: the main thread waits for batches "
						"the workers cannot make fast enough (too few workers, or too much work per "
						"batch)."),
					   ic.workers, (unsigned long long)p->pid.v, p->comm, ic.workers_min_pct,
					   TH(rc, CPU_INPUT_WORKER_PCT), ic.main_off_pct, ic.main_waits_in, gpu_name(idle).s, how);
		else if (ic.workers_hot && !isnan(ic.main_off_pct))
			gd_finding_summary(f, _("All %zu loader workers of pid %llu (%s) burn at least %.0f%% of a core "
						"(threshold %g%%) while its main thread waits off a CPU %.0f%% of the window "
						"and %s %s: the main thread waits for batches the "
						"workers cannot make fast enough (too few workers, or too much work per batch)."),
					   ic.workers, (unsigned long long)p->pid.v, p->comm, ic.workers_min_pct,
					   TH(rc, CPU_INPUT_WORKER_PCT), ic.main_off_pct, gpu_name(idle).s, how);
		else if (ic.workers_hot)
			gd_finding_summary(f, _("All %zu loader workers of pid %llu (%s) burn at least %.0f%% of a core "
						"(threshold %g%%) while %s %s: the input pipeline "
						"cannot keep up."), ic.workers, (unsigned long long)p->pid.v, p->comm,
					   ic.workers_min_pct, TH(rc, CPU_INPUT_WORKER_PCT), gpu_name(idle).s, how);
		else
			/* TRANSLATORS: Thread <name (tid N)> of pid <pid> (<command>)'s process tree ... */
			gd_finding_summary(f, _("Thread %s of pid %llu (%s)'s process tree runs at %.0f%% of a core "
						"(threshold %g%%) while %s %s: one thread feeds the "
						"GPU and cannot keep up."), ic.hot_thread, (unsigned long long)p->pid.v, p->comm,
					   ic.hot_thread_pct, TH(rc, CPU_INPUT_THREAD_PCT), gpu_name(idle).s, how);
		if (!isnan(ic.hot_thread_pct)) {
			gd_finding_ev(f, "hot_thread_core_pct", ic.hot_thread_pct, "% of a core", TH(rc, CPU_INPUT_THREAD_PCT));
			gd_finding_ev_text(f, "hot_thread", ic.hot_thread);
		}
		if (ic.workers) {
			gd_finding_ev(f, "workers", (double)ic.workers, "", NAN);
			gd_finding_ev(f, "workers_min_core_pct", ic.workers_min_pct, "% of a core", TH(rc, CPU_INPUT_WORKER_PCT));
		}
		if (!isnan(ic.main_off_pct))
			gd_finding_ev(f, "main_off_cpu_pct", ic.main_off_pct, "% of the window", NAN);
		if (ic.main_waits_in[0])
			gd_finding_ev_text(f, "main_waits_in", ic.main_waits_in);
		if (busy.util_ok)
			gd_finding_ev(f, "gpu_util_pct", busy.util, "%", th_idle);
		gd_gpu_busy_ev(f, &busy, th_sm);
		fired++;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (starved && !measured)
		return gd_rule_unknown(rc, _("a GPU job starves its GPU but the CPU of its threads and workers is not "
					     "known (threads and processes in both snapshots are needed)"));
	return GD_VERDICT_CLEAR;
}

/* ---- cpu.too_many_workers ------------------------------------------------------------ */

enum gd_verdict gd_rule_cpu_too_many_workers(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	double ratio = TH(rc, CPU_WORKERS_PER_CPU), busy = NAN, drop_pct = NAN, dt = 0;
	size_t cpus, workers = 0, jobs;
	unsigned char *marks;
	bool psi_hot, swapping = false, mem_rising, have_busy;
	uint64_t d1, d2;
	struct gd_finding *f;
	char mem[160] = "";

	if (!b || !gd_window_dt(rc->w, &dt))
		return gd_rule_unknown(rc, _("needs a window"));
	cpus = b->cpu.cpus_online.ok && b->cpu.cpus_online.v ? (size_t)b->cpu.cpus_online.v : b->cpus.n;
	if (!cpus)
		return gd_rule_unknown(rc, _("the number of online CPUs is not known"));
	if (!b->procs.n)
		return gd_rule_unknown(rc, _("no process list"));
	marks = gd_xcalloc(b->procs.n, 1);
	jobs = gd_snapshot_gpu_job_marks(b, marks);
	for (size_t i = 0; i < b->procs.n; i++)
		workers += marks[i] && !gd_proc_is_gpu_job(b, GD_VEC_AT(b->procs, struct gd_proc, i));
	free(marks);
	if (!jobs || (double)workers <= ratio * (double)cpus)
		return GD_VERDICT_CLEAR;
	have_busy = gd_cpu_busy_pct(&a->cpu, &b->cpu, &busy);
	if (!have_busy)
		return gd_rule_unknown(rc, _("%zu loader workers on %zu CPUs, but CPU busy time is not known"), workers,
				       cpus);
	if (a->mem.available_bytes.ok && b->mem.available_bytes.ok && b->mem.total_bytes.ok && b->mem.total_bytes.v)
		drop_pct = 100.0 * ((double)a->mem.available_bytes.v - (double)b->mem.available_bytes.v) /
			   (double)b->mem.total_bytes.v;
	psi_hot = b->psi.memory_some_avg10.ok && b->psi.memory_some_avg10.v >= TH(rc, MEM_PRESSURE_PSI_PCT);
	if (gd_counter_delta(a->mem.pswpin, b->mem.pswpin, &d1) && gd_counter_delta(a->mem.pswpout, b->mem.pswpout, &d2))
		swapping = d1 + d2 > 0;
	mem_rising = (!isnan(drop_pct) && drop_pct >= TH(rc, CPU_WORKERS_MEM_DROP_PCT)) || psi_hot || swapping;
	if (busy < TH(rc, CPU_SATURATED_BUSY_PCT) || !mem_rising)
		return GD_VERDICT_CLEAR;
	if (!isnan(drop_pct) && drop_pct >= TH(rc, CPU_WORKERS_MEM_DROP_PCT))
		/* TRANSLATORS: the signs of memory pressure, a list in the parentheses of
		 * "... and memory pressure rises (<list>)"; the forms starting ", " follow
		 * another item */
		cat(mem, sizeof mem, _("MemAvailable fell by %.1f%% of RAM in %.1f s"), drop_pct, dt);
	if (psi_hot)
		cat(mem, sizeof mem, mem[0] ? _(", PSI memory some %.0f%%") : _("PSI memory some %.0f%%"),
		    b->psi.memory_some_avg10.v);
	if (swapping)
		cat(mem, sizeof mem, "%s", mem[0] ? _(", pages are swapped") : _("pages are swapped"));
	f = gd_finding_add(rc, out, rc->rule->severity, "host");
	gd_finding_summary(f, P_("%zu loader workers of %zu GPU job process run on %zu CPUs (%.1f per CPU, threshold "
				 "%g), the CPUs are %.0f%% busy and memory pressure rises (%s): the workers fight for CPU "
				 "and RAM.",
				 "%zu loader workers of %zu GPU job processes run on %zu CPUs (%.1f per CPU, threshold "
				 "%g), the CPUs are %.0f%% busy and memory pressure rises (%s): the workers fight for CPU "
				 "and RAM.", jobs),
			   workers, jobs, cpus, (double)workers / (double)cpus, ratio, busy, mem);
	gd_finding_ev(f, "workers", (double)workers, "", ratio * (double)cpus);
	gd_finding_ev(f, "cpus", (double)cpus, "", NAN);
	gd_finding_ev(f, "busy_pct", busy, "%", TH(rc, CPU_SATURATED_BUSY_PCT));
	if (!isnan(drop_pct))
		gd_finding_ev(f, "available_drop_pct", drop_pct, "% of RAM", TH(rc, CPU_WORKERS_MEM_DROP_PCT));
	return GD_VERDICT_FIRED;
}
