/*
 * rule_job_threads.c - where a GPU job's own time goes, from its threads
 * (job_threads[]: schedstat run and run-queue time, the system call and
 * kernel function a sleeping thread waits in, and perf task-clock samples
 * attributed to the library they ran in).
 *
 * job.host_bound: a GPU the job uses averages below gpu_util_pct (40%), or
 * below gpu_sm_active_pct (15%) of SM activity where GPM is read (a kernel
 * resident all the time keeps utilisation at 100%: rules/gpu_busy.c),
 * while the job's main thread wants main_core_pct (80% of a core) or more
 * (on a CPU or runnable waiting for one: a thread that never sleeps is not
 * waiting for the GPU, the loader or the network; whether it gets the CPU
 * is cpu.saturated's question), and outside_cuda_pct (60%) or more of its samples fall outside the
 * CUDA and NCCL libraries: the interpreter, framework CPU code, the kernel.
 * The host loop, not the GPU, sets the pace.  A main thread that spins in
 * libcuda (cudaDeviceSynchronize's spin-wait, kernel launches) waits for
 * the GPU and is not host-bound.  Example: pid 4711's main thread at 99% of
 * a core, 81% python, 12% framework, 7% cuda, gpu0 at 9%.  At least
 * min_samples (10: 0.2 s of CPU at 50 samples a second, a share to within some 15 points) are needed to say
 * where the time went; fewer, or no sampling, is unknown with the reason.
 *
 * job.waiting_for_peers: a GPU the job uses averages below gpu_util_pct
 * (40%) or gpu_sm_active_pct of SM activity (the NCCL kernel of a waiting
 * rank: 100% utilisation, 10% SM activity), nccl_pct (50%) or more of the main and NCCL threads' samples are
 * in libnccl, and no local cause of an idle GPU holds (the host causes
 * gpu.idle_while_job_runs names, cpu.saturated only when the job's own
 * threads starve, and job.host_bound): this node waits in
 * a collective for another.  Example: 74% of pid 4711's main and NCCL
 * thread samples in NCCL, gpu0 at 3%.
 */
#include "rules/rule_job_threads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "model/jobs.h"
#include "rules/rule_gpu.h"
#include "rules/rule_gpu_pci.h"
#include "rules/rule_util.h"
#include "rules/rules.h"

static const char *const cat_names[JT_NCAT] = { "cuda", "nccl", "python", "framework", "kernel", "other" };

static const struct gd_u64 *cat_field(const struct gd_job_thread *t, int k)
{
	const struct gd_u64 *f[JT_NCAT] = { &t->samples_cuda, &t->samples_nccl, &t->samples_python,
					    &t->samples_framework, &t->samples_kernel, &t->samples_other };

	return f[k];
}

static const struct gd_job_thread *jt_find(const struct gd_snapshot *s, uint64_t pid, uint64_t tid)
{
	GD_VEC_EACH(s->job_threads, const struct gd_job_thread, t)
		if (t->pid.ok && t->tid.ok && t->pid.v == pid && t->tid.v == tid)
			return t;
	return NULL;
}

bool gd_jt_use_of(const struct gd_snapshot *a, const struct gd_snapshot *b, double dt, const struct gd_job_thread *t,
		  struct gd_jt_use *u)
{
	const struct gd_job_thread *q;
	uint64_t d;

	memset(u, 0, sizeof *u);
	u->core_pct = NAN;
	u->runq_pct = NAN;
	if (!t->pid.ok || !t->tid.ok || !(q = jt_find(a, t->pid.v, t->tid.v)) || dt <= 0)
		return false;
	u->pid = t->pid.v;
	u->tid = t->tid.v;
	GD_STRSET(u->comm, t->comm);
	GD_STRSET(u->role, t->role);
	GD_STRSET(u->syscall, t->syscall);
	GD_STRSET(u->wchan, t->wchan);
	GD_STRSET(u->state, t->state);
	if (gd_counter_delta(q->run_ns, t->run_ns, &d))
		u->core_pct = 100.0 * (double)d / 1e9 / dt;
	else if (gd_counter_delta(q->cpu_clock_ns, t->cpu_clock_ns, &d))
		u->core_pct = 100.0 * (double)d / 1e9 / dt;
	if (gd_counter_delta(q->wait_ns, t->wait_ns, &d))
		u->runq_pct = 100.0 * (double)d / 1e9 / dt;
	u->busy_pct = NAN;
	if (!isnan(u->core_pct))
		u->busy_pct = fmin(100.0, u->core_pct + (isnan(u->runq_pct) ? 0.0 : u->runq_pct));
	if (q->sampled.ok && q->sampled.v && t->sampled.ok && t->sampled.v) {
		u->sampled = true;
		for (int k = 0; k < JT_NCAT; k++) {
			if (!gd_counter_delta(*cat_field(q, k), *cat_field(t, k), &d)) {
				u->sampled = false;
				break;
			}
			u->samples[k] = (double)d;
			u->total += (double)d;
		}
	}
	return true;
}

bool gd_jt_main(const struct gd_snapshot *a, const struct gd_snapshot *b, double dt, uint64_t pid, struct gd_jt_use *u)
{
	const struct gd_job_thread *t = jt_find(b, pid, pid);

	return t && gd_jt_use_of(a, b, dt, t, u);
}

bool gd_jt_comm_samples(const struct gd_snapshot *a, const struct gd_snapshot *b, uint64_t pid, double *nccl,
			double *total)
{
	bool any = false;

	*nccl = *total = 0;
	GD_VEC_EACH(b->job_threads, const struct gd_job_thread, t) {
		struct gd_jt_use u;

		if (!t->pid.ok || t->pid.v != pid || (strcmp(t->role, "main") != 0 && strcmp(t->role, "nccl") != 0))
			continue;
		if (!gd_jt_use_of(a, b, 1.0, t, &u) || !u.sampled)
			continue;
		any = true;
		*nccl += u.samples[JT_NCCL];
		*total += u.total;
	}
	return any;
}

void gd_jt_shares(const struct gd_jt_use *u, char *buf, size_t sz)
{
	bool done[JT_NCAT] = { false };

	buf[0] = '\0';
	if (u->total <= 0)
		return;
	for (int n = 0; n < JT_NCAT; n++) {
		int best = -1;

		for (int k = 0; k < JT_NCAT; k++)
			if (!done[k] && u->samples[k] > 0 && (best < 0 || u->samples[k] > u->samples[best]))
				best = k;
		if (best < 0)
			break;
		done[best] = true;
		cat(buf, sz, "%s%.0f%% %s", buf[0] ? ", " : "", 100.0 * u->samples[best] / u->total, cat_names[best]);
	}
}

void gd_jt_sampler_why(const struct gd_snapshot *b, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s", _("the job's threads were not sampled (no job_samples source in the snapshot)"));
	GD_VEC_EACH(b->sources, const struct gd_source, src) {
		if (strcmp(src->name, "job_samples") != 0)
			continue;
		if (strcmp(src->status, "ok") == 0)
			snprintf(buf, sz, "%s", _("too few samples: the thread was sampled for only part of the window"));
		else
			snprintf(buf, sz, "job_samples %s: %s", src->status, src->reason[0] ? src->reason : src->status);
		return;
	}
}

bool gd_jt_host_bound(struct gd_rule_ctx *rc, const struct gd_jt_use *m)
{
	double outside;

	if (isnan(m->busy_pct) || m->busy_pct < TH(rc, JOB_HOST_MAIN_CORE_PCT) || !m->sampled ||
	    m->total < TH(rc, JOB_MIN_SAMPLES))
		return false;
	outside = 100.0 * (m->total - m->samples[JT_CUDA] - m->samples[JT_NCCL]) / m->total;
	return outside >= TH(rc, JOB_HOST_OUTSIDE_PCT);
}

bool gd_jt_in_nccl(struct gd_rule_ctx *rc, const struct gd_jt_use *u)
{
	return u->sampled && u->total >= TH(rc, JOB_MIN_SAMPLES) &&
	       100.0 * u->samples[JT_NCCL] / u->total >= TH(rc, JOB_PEERS_NCCL_PCT);
}

static bool peers_share(struct gd_rule_ctx *rc, const struct gd_snapshot *a, const struct gd_snapshot *b, uint64_t pid,
			double *pct, double *total)
{
	double nccl;

	*pct = NAN;
	if (!gd_jt_comm_samples(a, b, pid, &nccl, total) || *total < TH(rc, JOB_MIN_SAMPLES))
		return false;
	*pct = 100.0 * nccl / *total;
	return true;
}

size_t gd_jt_explain_lang(struct gd_rule_ctx *rc, const struct gd_snapshot *a, const struct gd_snapshot *b, double dt,
			  uint64_t pid, char *buf, size_t sz, bool say)
{
	struct gd_jt_use m;
	double pct, total;
	size_t n = 0;

	if (gd_jt_main(a, b, dt, pid, &m) && gd_jt_host_bound(rc, &m)) {
		char shares[96];

		gd_jt_shares(&m, shares, sizeof shares);
		cat(buf, sz, "%s", buf[0] ? "; " : "");
		cat(buf, sz, say ? _("job.host_bound (main thread at %.0f%% of a core: %s)")
				 : "job.host_bound (main thread at %.0f%% of a core: %s)",
		    m.busy_pct, shares);
		n++;
	}
	if (peers_share(rc, a, b, pid, &pct, &total) && pct >= TH(rc, JOB_PEERS_NCCL_PCT)) {
		cat(buf, sz, "%s", buf[0] ? "; " : "");
		cat(buf, sz, say ? _("job.waiting_for_peers (%.0f%% of the main and NCCL threads' samples in NCCL)")
				 : "job.waiting_for_peers (%.0f%% of the main and NCCL threads' samples in NCCL)",
		    pct);
		n++;
	}
	return n;
}

size_t gd_jt_explain(struct gd_rule_ctx *rc, const struct gd_snapshot *a, const struct gd_snapshot *b, double dt,
		     uint64_t pid, char *buf, size_t sz)
{
	return gd_jt_explain_lang(rc, a, b, dt, pid, buf, sz, true);
}

/* The start the two rules share: the window's ends and length, or false
 * with *v the verdict when the rule cannot judge. */
static bool begin(struct gd_rule_ctx *rc, const struct gd_snapshot **a, const struct gd_snapshot **b, double *dt,
		  enum gd_verdict *v)
{
	*a = gd_window_first(rc->w);
	*b = gd_window_last(rc->w);
	*dt = 0;
	if (gpu_none(rc, *b, v))
		return false;
	if (!gd_window_dt(rc->w, dt)) {
		*v = gd_rule_unknown(rc, "%s", _("needs a window"));
		return false;
	}
	return true;
}

/* Remembers the first process whose threads were not sampled, and why. */
struct unsampled {
	size_t n;
	char who[96];
	char why[GD_ERR_MSG_MAX];
};

static void note_unsampled(struct unsampled *u, const struct gd_snapshot *b, const struct gd_proc *p)
{
	if (u->n++)
		return;
	gd_jt_sampler_why(b, u->why, sizeof u->why);
	snprintf(u->who, sizeof u->who, "pid %llu (%s)", (unsigned long long)p->pid.v, p->comm);
}

/* ---- job.host_bound ------------------------------------------------------- */

enum gd_verdict gd_rule_job_host_bound(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a, *b;
	double th_gpu = TH(rc, JOB_HOST_GPU_UTIL_PCT), th_sm = TH(rc, JOB_HOST_GPU_SM_PCT), dt;
	size_t fired = 0;
	struct unsampled un = { 0 };
	enum gd_verdict v;

	if (!begin(rc, &a, &b, &dt, &v))
		return v;
	GD_VEC_EACH(b->procs, const struct gd_proc, p) {
		const struct gd_gpu *g;
		struct gd_jt_use m;
		struct gd_finding *f;
		struct gd_gpu_busy busy;
		double outside;
		char shares[128], how[128];

		if (!p->pid.ok || !gd_proc_is_gpu_job(b, p) || !(g = gd_gpu_idlest(rc, b, p, th_gpu, th_sm, &busy)))
			continue;
		if (!gd_jt_main(a, b, dt, p->pid.v, &m) || isnan(m.busy_pct) ||
		    m.busy_pct < TH(rc, JOB_HOST_MAIN_CORE_PCT))
			continue;
		if (!m.sampled || m.total < TH(rc, JOB_MIN_SAMPLES)) {
			note_unsampled(&un, b, p);
			continue;
		}
		if (!gd_jt_host_bound(rc, &m))
			continue;
		outside = 100.0 * (m.total - m.samples[JT_CUDA] - m.samples[JT_NCCL]) / m.total;
		gd_jt_shares(&m, shares, sizeof shares);
		gd_gpu_busy_now(&busy, how, sizeof how);
		f = gd_finding_add(rc, out, rc->rule->severity, "pid %llu (%s)", (unsigned long long)p->pid.v, p->comm);
		gd_finding_summary(f, _("The main thread of pid %llu (%s) wants %.0f%% of a core (threshold %g%%: %.0f%% on a "
					"CPU, %.0f%% waiting for one), %.0f%% of its samples outside the CUDA and NCCL "
					"libraries (%s), while %s %s: the host loop cannot launch GPU "
					"work fast enough."), (unsigned long long)p->pid.v, p->comm, m.busy_pct,
				   TH(rc, JOB_HOST_MAIN_CORE_PCT), m.core_pct, isnan(m.runq_pct) ? 0.0 : m.runq_pct, outside,
				   shares, gpu_name(g).s, how);
		gd_finding_ev(f, "main_core_pct", m.busy_pct, "% of a core", TH(rc, JOB_HOST_MAIN_CORE_PCT));
		gd_finding_ev(f, "outside_cuda_pct", outside, "% of samples", TH(rc, JOB_HOST_OUTSIDE_PCT));
		gd_finding_ev(f, "python_pct", 100.0 * m.samples[JT_PYTHON] / m.total, "% of samples", NAN);
		gd_finding_ev(f, "cuda_pct", 100.0 * m.samples[JT_CUDA] / m.total, "% of samples", NAN);
		gd_finding_ev(f, "samples", m.total, "", TH(rc, JOB_MIN_SAMPLES));
		if (busy.util_ok)
			gd_finding_ev(f, "gpu_util_pct", busy.util, "%", th_gpu);
		gd_gpu_busy_ev(f, &busy, th_sm);
		gd_finding_ev_text(f, "main_thread", shares);
		fired++;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (un.n)
		return gd_rule_unknown(rc, _("the main thread of %s is busy while its GPU idles, but where its time goes is "
					     "not known: %s"), un.who, un.why);
	return GD_VERDICT_CLEAR;
}

/* ---- job.waiting_for_peers ------------------------------------------------- */

enum gd_verdict gd_rule_job_waiting_for_peers(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a, *b;
	double th_gpu = TH(rc, JOB_PEERS_GPU_UTIL_PCT), th_sm = TH(rc, JOB_PEERS_GPU_SM_PCT), dt;
	size_t fired = 0;
	struct unsampled un = { 0 };
	enum gd_verdict v;

	if (!begin(rc, &a, &b, &dt, &v))
		return v;
	GD_VEC_EACH(b->procs, const struct gd_proc, p) {
		const struct gd_gpu *g;
		struct gd_jt_use m;
		struct gd_finding *f;
		struct gd_gpu_busy busy;
		double pct, total;
		char local[512] = "", how[128];

		if (!p->pid.ok || !gd_proc_is_gpu_job(b, p) || !(g = gd_gpu_idlest(rc, b, p, th_gpu, th_sm, &busy)))
			continue;
		if (!peers_share(rc, a, b, p->pid.v, &pct, &total)) {
			/* a thread that sleeps in a collective is not sampled:
			 * unknown only when nothing was sampled at all */
			if (!gd_jt_comm_samples(a, b, p->pid.v, &pct, &total))
				note_unsampled(&un, b, p);
			continue;
		}
		if (pct < TH(rc, JOB_PEERS_NCCL_PCT))
			continue;
		if (gd__gpu_job_host_causes(rc, a, b, dt, p, local, sizeof local) ||
		    (gd_jt_main(a, b, dt, p->pid.v, &m) && gd_jt_host_bound(rc, &m)))
			continue;   /* a local cause explains the idle GPU */
		f = gd_finding_add(rc, out, rc->rule->severity, "pid %llu (%s)", (unsigned long long)p->pid.v, p->comm);
		gd_gpu_busy_now(&busy, how, sizeof how);
		gd_finding_summary(f, _("%.0f%% of the samples of pid %llu (%s)'s main and NCCL threads are in NCCL "
					"(threshold %g%%) while %s %s and no local cause is found: "
					"this node waits in a collective for another rank."), pct,
				   (unsigned long long)p->pid.v, p->comm, TH(rc, JOB_PEERS_NCCL_PCT), gpu_name(g).s, how);
		gd_finding_ev(f, "nccl_pct", pct, "% of samples", TH(rc, JOB_PEERS_NCCL_PCT));
		gd_finding_ev(f, "samples", total, "", TH(rc, JOB_MIN_SAMPLES));
		if (busy.util_ok)
			gd_finding_ev(f, "gpu_util_pct", busy.util, "%", th_gpu);
		gd_gpu_busy_ev(f, &busy, th_sm);
		fired++;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (un.n)
		return gd_rule_unknown(rc, _("%s's GPU idles, but whether its threads wait in NCCL is not known: %s"), un.who,
				       un.why);
	return GD_VERDICT_CLEAR;
}
