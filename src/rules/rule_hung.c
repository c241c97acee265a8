/*
 * rule_hung.c - host.hung_tasks: tasks stuck in the kernel.
 *
 * Two kinds of evidence (CAUSES.md, FACTS.md §7.3):
 *
 *   the kernel log: "INFO: task NAME:PID blocked for more than N seconds."
 *     (the hung-task detector, kernel.hung_task_timeout_secs, 120 s by
 *     default), any in the look-back.  The kernel repeats the report for the
 *     same task; one finding per task, with the count and the longest time.
 *     The scanner kept the frames of its call trace in the NVIDIA modules
 *     (klog[].trace): with any, the driver is wedged.
 *
 *   live processes: a process in D state (uninterruptible sleep) in every
 *     sample of the window for at least d_seconds (60).  The kernel does not
 *     say since when a task sleeps (schedstat's block_start exists only with
 *     kernel.sched_schedstats=1), so the time is what the samples prove: from
 *     the first of the unbroken run of samples that found the process (same
 *     pid and start time) in D to the last.  A single-threaded process whose
 *     CPU time grew inside that run ran in between and is not counted.  A
 *     window shorter than d_seconds (check's default 2 s) can never prove
 *     it: a process in D for a moment stays silent.  The driver is wedged
 *     when the process holds /dev/nvidia<N>, or sleeps in the NVIDIA module
 *     (its kernel stack names [nvidia...], or wchan is a driver function).
 *
 * Both critical.  Up to five findings of each kind.  Example: pid 4711
 * (python) in D for 90 s in os_acquire_mutex, holding /dev/nvidia0.
 */
#include "rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "klog/klog.h"
#include "rules/rule_klog.h"

#define MAX_SHOWN 5

/* Is the kernel function a driver's (os_acquire_mutex, _nv012345rm,
 * nv_ioctl, uvm_spin_loop, nvidia_ioctl)?  wchan carries no module. */
static bool nv_function(const char *fn)
{
	return strncmp(fn, "os_", 3) == 0 || strncmp(fn, "nv_", 3) == 0 || strncmp(fn, "_nv0", 4) == 0 ||
	       strncmp(fn, "uvm_", 4) == 0 || strncmp(fn, "nvidia_", 7) == 0;
}

/* ---- the kernel's reports ------------------------------------------------ */

struct report {
	const struct gd_klog_event *ev;   /* the latest report of the task */
	double longest;
	unsigned n;
	const char *trace;                /* a report with NVIDIA frames, if any */
};

/* Frames in a trace "a [nvidia] < b [nvidia] < ..." (the "..." is none). */
static double frames(const char *trace)
{
	double n = 1;

	for (const char *p = trace; (p = strstr(p, " < ")); p += 3)
		n += strcmp(p + 3, "...") != 0;
	return n;
}

static void klog_part(struct gd_rule_ctx *rc, const struct gd_snapshot *s, struct gd_findings *out,
		      enum gd_verdict *v)
{
	struct report r[MAX_SHOWN];
	size_t nr = 0, more = 0;
	char t[48];

	GD_VEC_EACH(s->klog, const struct gd_klog_event, ev) {
		size_t i;

		if (!is(ev, GD_KLOG_HUNG_TASK))
			continue;
		for (i = 0; i < nr; i++)
			if (r[i].ev->pid.v == ev->pid.v && strcmp(r[i].ev->process, ev->process) == 0)
				break;
		if (i == nr) {
			if (nr == MAX_SHOWN) {
				more++;
				continue;
			}
			memset(&r[nr], 0, sizeof r[nr]);
			r[nr].trace = "";
			nr++;
		}
		r[i].ev = ev;
		r[i].n++;
		if (ev->duration_s.ok && ev->duration_s.v > r[i].longest)
			r[i].longest = ev->duration_s.v;
		if (ev->trace[0])
			r[i].trace = ev->trace;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct gd_klog_event *ev = r[i].ev;
		struct gd_finding *f = gd_finding_add(rc, out, GD_SEV_CRITICAL, "pid %llu (%s)",
						      (unsigned long long)ev->pid.v, ev->process);

		if (r[i].trace[0]) {
			/* TRANSLATORS: The kernel reported pid <pid> (<name>) blocked for more than <s> s, last <when>
			 * (<n> reports); its call trace runs through the NVIDIA driver (<frames>): ... */
			gd_finding_summary(f, P_("The kernel reported pid %llu (%s) blocked for more than %.0f s, last %s (%u report); its call trace runs through the NVIDIA driver (%s): the driver is wedged.",
						 "The kernel reported pid %llu (%s) blocked for more than %.0f s, last %s (%u reports); its call trace runs through the NVIDIA driver (%s): the driver is wedged.",
						 r[i].n),
					   (unsigned long long)ev->pid.v, ev->process, r[i].longest, when(t, sizeof t, ev),
					   r[i].n, r[i].trace);
			gd_finding_remedy(f, "%s", _("The NVIDIA driver is wedged: drain the node, then reset the GPU (nvidia-smi -r) or reboot; nvidia-smi and NVML calls will likely hang too (gpu.monitor_stuck)."));
			gd_finding_ev(f, "nvidia_frames", frames(r[i].trace), "", NAN);
			gd_finding_ev_text(f, "nvidia_trace", r[i].trace);
		} else {
			gd_finding_summary(f, P_("The kernel reported pid %llu (%s) blocked for more than %.0f s, last %s (%u report); no frame of its call trace is in the NVIDIA modules: the trace in the kernel log names the subsystem.",
						 "The kernel reported pid %llu (%s) blocked for more than %.0f s, last %s (%u reports); no frame of its call trace is in the NVIDIA modules: the trace in the kernel log names the subsystem.",
						 r[i].n),
					   (unsigned long long)ev->pid.v, ev->process, r[i].longest, when(t, sizeof t, ev),
					   r[i].n);
		}
		gd_finding_ev(f, "blocked_s", r[i].longest, "seconds", NAN);
		gd_finding_ev(f, "reports", r[i].n, "", NAN);
		if (i == 0 && more)
			gd_finding_ev(f, "other_tasks", (double)more, "", NAN);
		*v = GD_VERDICT_FIRED;
	}
}

/* ---- live processes in D -------------------------------------------------- */

/* Seconds the samples prove p (in the last snapshot, in D) has slept; 0
 * when fewer than two samples found it there without a break. */
static double d_seconds(const struct gd_window *w, const struct gd_proc *p)
{
	const struct gd_snapshot *last = gd_window_last(w);
	const struct gd_proc *first = p;
	size_t k = w->n - 1;

	if (!last->host.uptime_s.ok || !p->pid.ok)
		return 0;
	while (k > 0) {
		const struct gd_snapshot *s = w->snaps[k - 1];
		const struct gd_proc *q = gd_proc_find(s, p->pid.v, p->starttime_ticks.v);

		if (!q || strcmp(q->state, "D") != 0 || !s->host.uptime_s.ok)
			break;
		first = q;
		k--;
	}
	if (first == p)
		return 0;
	if (p->num_threads.ok && p->num_threads.v == 1 && first->utime_ticks.ok && first->stime_ticks.ok &&
	    p->utime_ticks.ok && p->stime_ticks.ok &&
	    p->utime_ticks.v + p->stime_ticks.v > first->utime_ticks.v + first->stime_ticks.v)
		return 0;   /* it ran in between */
	return last->host.uptime_s.v - w->snaps[k]->host.uptime_s.v;
}

/* The stack from its first frame in an NVIDIA module on (the part that
 * says what the evidence's short text must show), else all of it. */
static const char *stack_from_nv(const char *stack)
{
	const char *m = strstr(stack, "[nvidia"), *b;

	if (!m)
		return stack;
	for (b = m; b > stack && !(b - stack >= 3 && memcmp(b - 3, " < ", 3) == 0); b--)
		;
	return b;
}

static void live_part(struct gd_rule_ctx *rc, struct gd_findings *out, enum gd_verdict *v)
{
	const struct gd_snapshot *s = gd_window_last(rc->w);
	double th = rc->th->v[GD_TH_HOST_HUNG_D_SECONDS];
	unsigned shown = 0;

	GD_VEC_EACH(s->procs, const struct gd_proc, p) {
		struct gd_finding *f;
		bool holds, in_nv;
		double d;
		const char *where;

		if (strcmp(p->state, "D") != 0 || (d = d_seconds(rc->w, p)) < th || shown++ >= MAX_SHOWN)
			continue;
		holds = p->nvidia_fds.ok && p->nvidia_fds.v > 0;
		in_nv = strstr(p->kstack, "[nvidia") || (p->wchan[0] && nv_function(p->wchan));
		where = p->wchan[0] ? p->wchan : _("an unknown kernel function");
		f = gd_finding_add(rc, out, GD_SEV_CRITICAL, "pid %llu (%s)", (unsigned long long)p->pid.v, p->comm);
		if (holds && in_nv)
			/* TRANSLATORS: pid <pid> (<name>) ... for <s> s in <kernel function>, inside the NVIDIA driver,
			 * holding /dev/nvidia<minor numbers> */
			gd_finding_summary(f, _("pid %llu (%s) has been in uninterruptible sleep (D) for at least %.0f s in %s, inside the NVIDIA driver, holding /dev/nvidia%s: the driver is wedged."),
					   (unsigned long long)p->pid.v, p->comm, d, where,
					   p->nvidia_devs[0] ? p->nvidia_devs : "*");
		else if (holds)
			gd_finding_summary(f, _("pid %llu (%s) has been in uninterruptible sleep (D) for at least %.0f s in %s, holding /dev/nvidia%s: the NVIDIA driver is likely wedged."),
					   (unsigned long long)p->pid.v, p->comm, d, where,
					   p->nvidia_devs[0] ? p->nvidia_devs : "*");
		else if (in_nv)
			gd_finding_summary(f, _("pid %llu (%s) has been in uninterruptible sleep (D) for at least %.0f s in %s, inside the NVIDIA driver: the driver is wedged."),
					   (unsigned long long)p->pid.v, p->comm, d, where);
		else if (p->kstack[0])
			gd_finding_summary(f, _("pid %llu (%s) has been in uninterruptible sleep (D) for at least %.0f s in %s; its kernel stack names the subsystem: %s."),
					   (unsigned long long)p->pid.v, p->comm, d, where, p->kstack);
		else
			gd_finding_summary(f, _("pid %llu (%s) has been in uninterruptible sleep (D) for at least %.0f s in %s (its kernel stack is readable by root only)."),
					   (unsigned long long)p->pid.v, p->comm, d, where);
		if (holds || in_nv)
			gd_finding_remedy(f, "%s", _("The NVIDIA driver is wedged: drain the node, then reset the GPU (nvidia-smi -r) or reboot; nvidia-smi and NVML calls will likely hang too (gpu.monitor_stuck)."));
		gd_finding_ev(f, "d_state_s", d, "seconds", th);
		if (p->wchan[0])
			gd_finding_ev_text(f, "wchan", p->wchan);
		if (p->kstack[0])
			gd_finding_ev_text(f, "kernel_stack", stack_from_nv(p->kstack));
		if (holds)
			gd_finding_ev(f, "nvidia_fds", (double)p->nvidia_fds.v, "", NAN);
		*v = GD_VERDICT_FIRED;
	}
}

enum gd_verdict gd_rule_host_hung_tasks(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *s = gd_window_last(rc->w);
	const struct gd_source *kl = klog_source(s, "klog"), *pr = klog_source(s, "processes");
	enum gd_verdict v = GD_VERDICT_CLEAR;

	if (!klog_usable(kl) && !klog_usable(pr)) {
		if (kl)
			/* TRANSLATORS: (<the klog collector's status word>: <its reason, English>) */
			return gd_rule_unknown(rc, _("neither the kernel log (%s: %s) nor the processes were read"),
					       kl->status, kl->reason[0] ? kl->reason : _("no reason given"));
		return gd_rule_unknown(rc, _("no kernel log and no processes in this snapshot (give one: check --from kern.log)"));
	}
	if (klog_usable(kl))
		klog_part(rc, s, out, &v);
	if (klog_usable(pr))
		live_part(rc, out, &v);
	return v;
}
