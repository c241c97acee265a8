/*
 * rule_cpu.c - the host CPU rules that judge the whole host or one process:
 * saturation, background hogs and cgroup CPU throttling.  The per-CPU rules
 * (frequency governor, NIC interrupt imbalance) are in rule_cpu_percpu.c.
 *
 * A GPU is fed by CPU threads: the data loader decodes and augments, the
 * training loop launches kernels, the NIC's softirqs move the collective
 * traffic.  Each rule below names one way those threads lose their CPU.
 * Rates are taken between the first and the last snapshot of the window;
 * thresholds come from thresholds.def (rc->th), never from this file.
 *
 * cpu.saturated: every CPU is busy, so no thread of the job gets a core
 * when it needs one.  Evidence: the all-CPU busy share from /proc/stat
 * (user+nice+system+irq+softirq+steal over all ticks), PSI cpu some avg10
 * (share of time at least one runnable task waited) and load1 per CPU.
 * Fires at busy >= 90% or PSI >= 40%: below 90% a loader still finds idle
 * cores; 40% of time with a task waiting means latency, not just load.
 * Example: 16 CPUs, 3104 of 3200 ticks busy over 2.0 s = 97%, PSI 55%.
 *
 * cpu.background_hogs: processes outside every GPU job's process tree (a
 * package update, an indexer, a backup) take cores or disk bandwidth from
 * the job.  Evidence: per process, (utime+stime) ticks / USER_HZ / dt as a
 * share of one core, and (read_bytes+write_bytes) / dt from /proc/<pid>/io.
 * Fires at >= 25% of a core or >= 50 MB/s for one process, or >= 10% of all
 * CPUs for all of them together.  Example: rsync with 170 ticks over 2.0 s at
 * USER_HZ 100 = 85% of a core, 240 MB written = 120 MB/s.  serve, watch and
 * record read a process's fds on a slower round (collect.h): a hog whose
 * fds are older than the window carries fds_age_s, its threshold the window.
 *
 * cpu.cgroup_throttled: a CFS quota (docker --cpus, Kubernetes CPU limits)
 * stops every thread of the group for the rest of a period once the quota
 * is spent, however idle the host.  Evidence: cpu.stat nr_periods,
 * nr_throttled, throttled_usec and the quota.  Fires when >= 5% of the
 * periods in the window were throttled.  Example: 20 periods, 8 throttled =
 * 40%, 0.6 s throttled, quota 200000/100000 us = 2 cores.
 */
#include "rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "model/jobs.h"
#include "rules/rule_util.h"

/* Online CPUs: /proc/stat's count, else the per-CPU records; 0 if unknown. */
static size_t ncpus_of(const struct gd_snapshot *s)
{
	if (s->cpu.cpus_online.ok && s->cpu.cpus_online.v > 0)
		return (size_t)s->cpu.cpus_online.v;
	return s->cpus.n;
}

/* ---- cpu.saturated ------------------------------------------------------ */

enum gd_verdict gd_rule_cpu_saturated(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	double th_busy = TH(rc, CPU_SATURATED_BUSY_PCT), th_psi = TH(rc, CPU_SATURATED_PSI_PCT);
	double busy = NAN, psi = NAN, load = NAN, dt = 0;
	size_t n = ncpus_of(b);
	bool have_busy, hot_busy, hot_psi;
	struct gd_finding *f;
	char sum[512] = "";

	have_busy = gd_window_dt(rc->w, &dt) && gd_cpu_busy_pct(&a->cpu, &b->cpu, &busy);
	if (b->psi.cpu_some_avg10.ok)
		psi = b->psi.cpu_some_avg10.v;
	hot_busy = have_busy && busy >= th_busy;
	hot_psi = !isnan(psi) && psi >= th_psi;
	if (!have_busy && !hot_psi)
		return gd_rule_unknown(rc, "%s",
				       isnan(psi) ? _("no /proc/stat CPU counters in both snapshots")
						  : _("no /proc/stat CPU counters in both snapshots (PSI cpu some alone is "
						      "below its threshold)"));
	if (!hot_busy && !hot_psi)
		return GD_VERDICT_CLEAR;
	if (b->cpu.load1.ok && n > 0)
		load = b->cpu.load1.v / (double)n;

	f = gd_finding_add(rc, out, rc->rule->severity, "host");
	if (have_busy && hot_psi && !hot_busy) {
		/* PSI's average covers the last 10 s, the window may be shorter
		 * and quieter: say which evidence fired, so the two numbers do
		 * not read as a contradiction. */
		cat(sum, sizeof sum, _("Runnable tasks waited for a CPU %.0f%% of the last 10 s (PSI cpu some, threshold "
				       "%g%%), though the %.1f s window measured the CPUs %.0f%% busy"),
		    psi, th_psi, dt, busy);
	} else if (have_busy) {
		if (n == 1)
			cat(sum, sizeof sum, _("The only CPU is %.0f%% busy over %.1f s (threshold %g%%)"), busy, dt,
			    th_busy);
		else if (n > 1)
			cat(sum, sizeof sum, _("All %zu CPUs are %.0f%% busy over %.1f s (threshold %g%%)"), n, busy, dt,
			    th_busy);
		else
			cat(sum, sizeof sum, _("The CPUs are %.0f%% busy over %.1f s (threshold %g%%)"), busy, dt,
			    th_busy);
		if (!isnan(psi))
			/* TRANSLATORS: a clause added to the sentence before it */
			cat(sum, sizeof sum, _("; PSI cpu some %.0f%%"), psi);
	} else {
		cat(sum, sizeof sum, _("Runnable tasks waited for a CPU %.0f%% of the last 10 s "
				       "(PSI cpu some, threshold %g%%)"), psi, th_psi);
	}
	if (!isnan(load))
		/* TRANSLATORS: a clause added to the sentence before it */
		cat(sum, sizeof sum, _("; load %.1f per CPU"), load);
	/* TRANSLATORS: a finding's summary, %s the sentence made of the
	 * messages above it: add the full stop */
	gd_finding_summary(f, _("%s."), sum);
	gd_finding_ev(f, "busy_pct", busy, "%", th_busy);
	if (!isnan(psi))
		gd_finding_ev(f, "psi_cpu_some_pct", psi, "%", th_psi);
	if (!isnan(load))
		gd_finding_ev(f, "load_per_cpu", load, "", NAN);
	return GD_VERDICT_FIRED;
}

/* ---- cpu.background_hogs ------------------------------------------------ */

#define HOGS_MAX 5

struct hog {
	const struct gd_proc *p;
	double core_pct;    /* % of one core; NAN when unknown */
	double io_mbps;     /* storage MB/s; NAN when unknown */
	double score;       /* rank: how far past its thresholds */
};

/* Keeps the HOGS_MAX highest scores, highest first. */
static void top_insert(struct hog *top, size_t *n, const struct hog *h)
{
	size_t i;

	if (*n == HOGS_MAX && h->score <= top[HOGS_MAX - 1].score)
		return;
	i = *n < HOGS_MAX ? (*n)++ : HOGS_MAX - 1;
	while (i > 0 && top[i - 1].score < h->score) {
		top[i] = top[i - 1];
		i--;
	}
	top[i] = *h;
}

/* The same process (pid and start time) in the first snapshot; the lists are
 * usually in the same order, so try the same index first. */
static const struct gd_proc *proc_prev(const struct gd_snapshot *a, size_t i, const struct gd_proc *p)
{
	uint64_t st = p->starttime_ticks.ok ? p->starttime_ticks.v : 0;

	if (i < a->procs.n) {
		const struct gd_proc *q = GD_VEC_AT(a->procs, const struct gd_proc, i);

		if (q->pid.ok && q->pid.v == p->pid.v && q->starttime_ticks.ok && p->starttime_ticks.ok &&
		    q->starttime_ticks.v == st)
			return q;
	}
	return gd_proc_find(a, p->pid.v, st);
}

static double ratio(double v, double th)
{
	return isnan(v) ? 0 : v / (th > 0 ? th : 1);
}

static void hog_finding(struct gd_rule_ctx *rc, struct gd_findings *out, const struct hog *h, size_t njobs,
			double total, size_t ncpus)
{
	double th_core = TH(rc, CPU_HOGS_PROC_CORE_PCT), th_io = TH(rc, CPU_HOGS_IO_MBPS);
	double th_total = TH(rc, CPU_HOGS_TOTAL_PCT);
	unsigned long long pid = (unsigned long long)h->p->pid.v;
	const char *comm = h->p->comm[0] ? h->p->comm : "?";
	bool cpu_hot = h->core_pct >= th_core, io_hot = h->io_mbps >= th_io;
	struct gd_finding *f = gd_finding_add(rc, out, rc->rule->severity, "pid %llu (%s)", pid, comm);
	bool io_shown = io_hot || (!isnan(h->io_mbps) && !cpu_hot);
	char sum[512] = "", who[256];
	double dt;

	/* who: the process as its names are, never translated */
	if (h->p->cmdline[0])
		snprintf(who, sizeof who, "pid %llu (%s) `%.100s`", pid, comm, h->p->cmdline);
	else
		snprintf(who, sizeof who, "pid %llu (%s)", pid, comm);
	if (njobs == 0)
		/* TRANSLATORS: the first clause of a summary; the next names a process */
		cat(sum, sizeof sum, "%s", _("No GPU job found, so every process counts as background; "));
	if (!isnan(h->core_pct))
		/* TRANSLATORS: %1$s names a process: pid 4711 (rsync) `rsync -a ...` */
		cat(sum, sizeof sum, _("%s takes %.0f%% of a core"), who, h->core_pct);
	else if (io_shown)
		/* TRANSLATORS: %1$s names a process: pid 4711 (rsync) `rsync -a ...` */
		cat(sum, sizeof sum, _("%s does %.0f MB/s of storage I/O"), who, h->io_mbps);
	else
		cat(sum, sizeof sum, "%s", who);
	if (cpu_hot)
		/* TRANSLATORS: follows the number it is the threshold of */
		cat(sum, sizeof sum, _(" (threshold %g%%)"), th_core);
	if (io_shown && !isnan(h->core_pct))
		/* TRANSLATORS: follows "%s takes %.0f%% of a core" */
		cat(sum, sizeof sum, _(" and %.0f MB/s of storage I/O"), h->io_mbps);
	if (io_hot)
		/* TRANSLATORS: follows the number it is the threshold of */
		cat(sum, sizeof sum, _(" (threshold %g MB/s)"), th_io);
	if (njobs > 0)
		/* TRANSLATORS: ends the clause on the process's CPU and I/O */
		cat(sum, sizeof sum, "%s", _(" outside every GPU job"));
	if (!isnan(total))
		/* TRANSLATORS: a clause added to the sentence before it */
		cat(sum, sizeof sum, _("; background processes together take %.0f%% of the %zu CPUs (threshold %g%%)"),
		    total, ncpus, th_total);
	gd_finding_summary(f, _("%s."), sum);
	/* TRANSLATORS: %1$.100s is the process's command line, %2$llu %3$llu %4$llu its pid */
	gd_finding_remedy(f,
			  _("Stop or reschedule `%.100s` (pid %llu) while jobs run, or lower its priority: "
			    "renice -n 19 -p %llu; ionice -c 3 -p %llu."),
			  h->p->cmdline[0] ? h->p->cmdline : comm, pid, pid, pid);
	if (!isnan(h->core_pct))
		gd_finding_ev(f, "cpu_core_pct", h->core_pct, "% of a core", th_core);
	if (!isnan(h->io_mbps))
		gd_finding_ev(f, "io_mb_per_s", h->io_mbps, "MB/s", th_io);
	if (!isnan(total))
		gd_finding_ev(f, "background_total_pct", total, "% of all CPUs", th_total);
	gd_finding_ev(f, "gpu_jobs", (double)njobs, "", NAN);
	/* serve, watch and record read a process's fds (what makes it a GPU
	 * job) on a slower round: say how old they are when older than the
	 * window, as the process may have opened a GPU since. */
	if (h->p->detail_uptime_s.ok && gd_window_dt(rc->w, &dt) && gd_window_last(rc->w)->host.uptime_s.ok) {
		double age = gd_window_last(rc->w)->host.uptime_s.v - h->p->detail_uptime_s.v;

		if (age > dt)
			gd_finding_ev(f, "fds_age_s", age, "s", dt);
	}
}

enum gd_verdict gd_rule_cpu_background_hogs(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	double th_core = TH(rc, CPU_HOGS_PROC_CORE_PCT), th_io = TH(rc, CPU_HOGS_IO_MBPS);
	double dt, clk, total_core = 0, total = NAN;
	struct hog hogs[HOGS_MAX], busiest[HOGS_MAX];
	size_t nhogs = 0, nbusiest = 0, nbg = 0, npaired = 0, njobs, ncpus = ncpus_of(b);
	const struct hog *list;
	size_t nlist;
	unsigned char *marks;

	if (!gd_window_dt(rc->w, &dt))
		return gd_rule_unknown(rc, "%s", _("needs two snapshots with advancing uptime"));
	if (!b->host.clk_tck.ok || b->host.clk_tck.v == 0)
		return gd_rule_unknown(rc, "%s", _("no clock tick rate (USER_HZ) to convert process CPU times"));
	if (a->procs.n == 0)
		return gd_rule_unknown(rc, "%s", _("no process list (/proc/<pid>/stat) in the first snapshot"));
	if (b->procs.n == 0)
		return gd_rule_unknown(rc, "%s", _("no process list (/proc/<pid>/stat) in the last snapshot"));
	clk = (double)b->host.clk_tck.v;
	marks = gd_xcalloc(b->procs.n, 1);
	njobs = gd_snapshot_gpu_job_marks(b, marks);
	for (size_t i = 0; i < b->procs.n; i++) {
		const struct gd_proc *p = GD_VEC_AT(b->procs, const struct gd_proc, i), *q;
		struct hog h = { p, NAN, NAN, 0 };
		uint64_t du, ds, dr, dw;

		if (!p->pid.ok || marks[i] || (p->kthread.ok && p->kthread.v == 1) ||
		    (b->host.self_pid.ok && p->pid.v == b->host.self_pid.v))
			continue;
		nbg++;
		q = proc_prev(a, i, p);
		if (!q)
			continue;
		if (gd_counter_delta(q->utime_ticks, p->utime_ticks, &du) &&
		    gd_counter_delta(q->stime_ticks, p->stime_ticks, &ds))
			h.core_pct = 100.0 * (double)(du + ds) / (clk * dt);
		if (gd_counter_delta(q->read_bytes, p->read_bytes, &dr) &&
		    gd_counter_delta(q->write_bytes, p->write_bytes, &dw))
			h.io_mbps = (double)(dr + dw) / 1e6 / dt;
		if (isnan(h.core_pct) && isnan(h.io_mbps))
			continue;
		npaired++;
		if (!isnan(h.core_pct))
			total_core += h.core_pct;
		if (h.core_pct >= th_core || h.io_mbps >= th_io) {
			h.score = fmax(ratio(h.core_pct, th_core), ratio(h.io_mbps, th_io));
			top_insert(hogs, &nhogs, &h);
		}
		if (h.core_pct > 0) {
			h.score = h.core_pct;
			top_insert(busiest, &nbusiest, &h);
		}
	}
	free(marks);
	if (nbg == 0)
		return GD_VERDICT_CLEAR;
	if (npaired == 0)
		return gd_rule_unknown(rc, "%s",
				       _("no process outside the GPU jobs has CPU or I/O counters in both snapshots"));
	if (ncpus > 0)
		total = total_core / (double)ncpus;
	/* Without a single hog, the busiest background processes make up the
	 * total that crossed its threshold. */
	list = nhogs ? hogs : busiest;
	nlist = nhogs ? nhogs : (total >= TH(rc, CPU_HOGS_TOTAL_PCT) ? nbusiest : 0);
	if (nlist == 0)
		return GD_VERDICT_CLEAR;
	for (size_t i = 0; i < nlist; i++)
		hog_finding(rc, out, &list[i], njobs, total, ncpus);
	return GD_VERDICT_FIRED;
}

/* ---- cpu.cgroup_throttled ----------------------------------------------- */

enum gd_verdict gd_rule_cpu_cgroup_throttled(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	double th = TH(rc, CPU_CGROUP_THROTTLED_PCT), dt = 0;
	size_t nstat = 0, nfired = 0;

	gd_window_dt(rc->w, &dt);
	GD_VEC_EACH(b->cgroups, const struct gd_cgroup, c) {
		const struct gd_cgroup *prev;
		uint64_t dper, dthr, dus;
		double pct, secs = NAN, cores = NAN;
		struct gd_finding *f;
		char sum[512] = "", own[48] = "";

		if (!c->path[0] || rc->w->n < 2)
			continue;
		prev = GD_FIND_PREV(a, cgroups, struct gd_cgroup, path, c->path);
		if (!prev || !gd_counter_delta(prev->nr_periods, c->nr_periods, &dper) ||
		    !gd_counter_delta(prev->nr_throttled, c->nr_throttled, &dthr))
			continue;
		nstat++;
		if (!c->cpu_quota_us.ok || dper == 0)
			continue;
		pct = 100.0 * (double)dthr / (double)dper;
		if (pct < th)
			continue;
		if (gd_counter_delta(prev->throttled_us, c->throttled_us, &dus))
			secs = (double)dus / 1e6;
		if (c->cpu_period_us.ok && c->cpu_period_us.v > 0)
			cores = (double)c->cpu_quota_us.v / (double)c->cpu_period_us.v;

		f = gd_finding_add(rc, out, rc->rule->severity, "%s", c->path);
		if (c->self.ok && c->self.v == 1)
			/* TRANSLATORS: follows a cgroup's path: the cgroup gpudoctor runs in */
			snprintf(own, sizeof own, "%s", _(" (gpudoctor's own)"));
		else if (c->pid.ok)
			snprintf(own, sizeof own, " (pid %llu)", (unsigned long long)c->pid.v);
		/* TRANSLATORS: %1$s the cgroup's path, %2$s "" or " (gpudoctor's own)" or " (pid 4711)" */
		cat(sum, sizeof sum, _("The cgroup %s%s was throttled in %.0f%% of its %llu CPU periods (threshold %g%%)"),
		    c->path, own, pct, (unsigned long long)dper, th);
		if (!isnan(secs))
			/* TRANSLATORS: a clause added to the sentence before it: throttled time, window length */
			cat(sum, sizeof sum, _(", %.2f s in all over %.1f s"), secs, dt);
		if (!isnan(cores))
			/* TRANSLATORS: a clause added to the sentence before it */
			cat(sum, sizeof sum, _("; its quota is %g cores"), cores);
		gd_finding_summary(f, _("%s."), sum);
		if (!isnan(cores))
			gd_finding_remedy(f,
					  _("Raise the container's CPU limit above its quota of %g cores (docker --cpus, "
					    "Kubernetes resources.limits.cpu) or lower its thread count (DataLoader "
					    "num_workers, OMP_NUM_THREADS) to fit."),
					  cores);
		gd_finding_ev(f, "throttled_pct", pct, "% of periods", th);
		if (!isnan(secs))
			gd_finding_ev(f, "throttled_s", secs, "s", NAN);
		if (!isnan(cores))
			gd_finding_ev(f, "quota_cores", cores, "cores", NAN);
		nfired++;
	}
	if (nstat == 0)
		return gd_rule_unknown(rc, "%s", _("no cgroup record has cpu.stat counters (nr_periods, nr_throttled) "
						 "in both snapshots"));
	return nfired ? GD_VERDICT_FIRED : GD_VERDICT_CLEAR;
}
