/*
 * rule_cpu.c - the host CPU rules: saturation, background hogs, frequency
 * governor, cgroup CPU throttling and NIC interrupt imbalance.
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
 * USER_HZ 100 = 85% of a core, 240 MB written = 120 MB/s.
 *
 * cpu.governor_powersave: a powersave or conservative governor, or a busy
 * CPU far below its maximum clock, slows every single-threaded step (the
 * kernel-launch thread).  Evidence: scaling_governor, scaling_cur_freq and
 * cpuinfo_max_freq per CPU.  Example: cpu3 80% busy at 1.2 of 3.0 GHz = 40%
 * of its maximum (threshold 60%).  intel_pstate in active mode offers only
 * powersave and performance, and its powersave still scales with load: the
 * finding says so.
 *
 * cpu.cgroup_throttled: a CFS quota (docker --cpus, Kubernetes CPU limits)
 * stops every thread of the group for the rest of a period once the quota
 * is spent, however idle the host.  Evidence: cpu.stat nr_periods,
 * nr_throttled, throttled_usec and the quota.  Fires when >= 5% of the
 * periods in the window were throttled.  Example: 20 periods, 8 throttled =
 * 40%, 0.6 s throttled, quota 200000/100000 us = 2 cores.
 *
 * cpu.irq_imbalance: all queues of a NIC interrupt one CPU, whose
 * irq+softirq time then caps the network throughput.  Evidence: the NIC's
 * lines of /proc/interrupts per CPU, and per-CPU irq+softirq ticks.  Fires
 * when the CPU serving most of a NIC's interrupts spends >= 50% in
 * irq+softirq while every other CPU spends < 10%.  Example: cpu3 takes 98%
 * of eth0's 41000 interrupts/s and is 63% in irq+softirq; others <= 2%.
 */
#include "rules/rules.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "model/jobs.h"

#define TH(rc, name) ((rc)->th->v[GD_TH_##name])

/* Appends to a summary being built in buf. */
static void __attribute__((format(printf, 3, 4))) cat(char *buf, size_t sz, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= sz)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, sz - len, fmt, ap);
	va_end(ap);
}

/* Online CPUs: /proc/stat's count, else the per-CPU records; 0 if unknown. */
static size_t ncpus_of(const struct gd_snapshot *s)
{
	if (s->cpu.cpus_online.ok && s->cpu.cpus_online.v > 0)
		return (size_t)s->cpu.cpus_online.v;
	return s->cpus.n;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Writes CPU numbers as ranges, "cpu0-3,8,10-11"; sorts ids in place.  A
 * list too long for buf ends in "...". */
static void cpu_ranges(char *buf, size_t sz, uint64_t *ids, size_t n)
{
	size_t i = 0;

	qsort(ids, n, sizeof *ids, cmp_u64);
	snprintf(buf, sz, "cpu");
	while (i < n) {
		size_t j = i;
		char part[48];

		while (j + 1 < n && ids[j + 1] <= ids[j] + 1)
			j++;
		if (j == i)
			snprintf(part, sizeof part, "%s%llu", i ? "," : "", (unsigned long long)ids[i]);
		else
			snprintf(part, sizeof part, "%s%llu-%llu", i ? "," : "", (unsigned long long)ids[i],
				 (unsigned long long)ids[j]);
		if (strlen(buf) + strlen(part) + 4 >= sz) {
			cat(buf, sz, "...");
			return;
		}
		cat(buf, sz, "%s", part);
		i = j + 1;
	}
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
		return gd_rule_unknown(rc, "no /proc/stat CPU counters in both snapshots%s",
				       isnan(psi) ? "" : " (PSI cpu some alone is below its threshold)");
	if (!hot_busy && !hot_psi)
		return GD_VERDICT_CLEAR;
	if (b->cpu.load1.ok && n > 0)
		load = b->cpu.load1.v / (double)n;

	f = gd_finding_add(rc, out, rc->rule->severity, "host");
	if (have_busy && hot_psi && !hot_busy) {
		/* PSI's average covers the last 10 s, the window may be shorter
		 * and quieter: say which evidence fired, so the two numbers do
		 * not read as a contradiction. */
		cat(sum, sizeof sum, "Runnable tasks waited for a CPU %.0f%% of the last 10 s (PSI cpu some, threshold "
		    "%g%%), though the %.1f s window measured the CPUs %.0f%% busy", psi, th_psi, dt, busy);
	} else if (have_busy) {
		if (n == 1)
			cat(sum, sizeof sum, "The only CPU is");
		else if (n > 1)
			cat(sum, sizeof sum, "All %zu CPUs are", n);
		else
			cat(sum, sizeof sum, "The CPUs are");
		cat(sum, sizeof sum, " %.0f%% busy over %.1f s (threshold %g%%)", busy, dt, th_busy);
		if (!isnan(psi))
			cat(sum, sizeof sum, "; PSI cpu some %.0f%%", psi);
	} else {
		cat(sum, sizeof sum, "Runnable tasks waited for a CPU %.0f%% of the last 10 s "
		    "(PSI cpu some, threshold %g%%)", psi, th_psi);
	}
	if (!isnan(load))
		cat(sum, sizeof sum, "; load %.1f per CPU", load);
	gd_finding_summary(f, "%s.", sum);
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
	char sum[512] = "";

	if (njobs == 0)
		cat(sum, sizeof sum, "No GPU job found, so every process counts as background; ");
	cat(sum, sizeof sum, "pid %llu (%s)", pid, comm);
	if (h->p->cmdline[0])
		cat(sum, sizeof sum, " `%.100s`", h->p->cmdline);
	if (!isnan(h->core_pct))
		cat(sum, sizeof sum, " takes %.0f%% of a core", h->core_pct);
	if (cpu_hot)
		cat(sum, sizeof sum, " (threshold %g%%)", th_core);
	if (io_hot || (!isnan(h->io_mbps) && !cpu_hot))
		cat(sum, sizeof sum, "%s %.0f MB/s of storage I/O", isnan(h->core_pct) ? " does" : " and",
		    h->io_mbps);
	if (io_hot)
		cat(sum, sizeof sum, " (threshold %g MB/s)", th_io);
	if (njobs > 0)
		cat(sum, sizeof sum, " outside every GPU job");
	if (!isnan(total))
		cat(sum, sizeof sum, "; background processes together take %.0f%% of the %zu CPUs (threshold %g%%)",
		    total, ncpus, th_total);
	gd_finding_summary(f, "%s.", sum);
	gd_finding_remedy(f,
			  "Stop or reschedule `%.100s` (pid %llu) while jobs run, or lower its priority: "
			  "renice -n 19 -p %llu; ionice -c 3 -p %llu.",
			  h->p->cmdline[0] ? h->p->cmdline : comm, pid, pid, pid);
	if (!isnan(h->core_pct))
		gd_finding_ev(f, "cpu_core_pct", h->core_pct, "% of a core", th_core);
	if (!isnan(h->io_mbps))
		gd_finding_ev(f, "io_mb_per_s", h->io_mbps, "MB/s", th_io);
	if (!isnan(total))
		gd_finding_ev(f, "background_total_pct", total, "% of all CPUs", th_total);
	gd_finding_ev(f, "gpu_jobs", (double)njobs, "", NAN);
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
		return gd_rule_unknown(rc, "needs two snapshots with advancing uptime");
	if (!b->host.clk_tck.ok || b->host.clk_tck.v == 0)
		return gd_rule_unknown(rc, "no clock tick rate (USER_HZ) to convert process CPU times");
	if (a->procs.n == 0 || b->procs.n == 0)
		return gd_rule_unknown(rc, "no process list (/proc/<pid>/stat) in the %s snapshot",
				       a->procs.n == 0 ? "first" : "last");
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
		return gd_rule_unknown(rc, "no process outside the GPU jobs has CPU or I/O counters in both snapshots");
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

/* ---- cpu.governor_powersave --------------------------------------------- */

static bool slow_governor(const char *g)
{
	return strcmp(g, "powersave") == 0 || strcmp(g, "conservative") == 0;
}

enum gd_verdict gd_rule_cpu_governor_powersave(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	double th_freq = TH(rc, CPU_GOVERNOR_FREQ_PCT), th_busy = TH(rc, CPU_GOVERNOR_BUSY_PCT);
	double dt, worst = NAN, worst_busy = NAN;
	uint64_t *gov_ids, *slow_ids, worst_cpu = 0;
	size_t ngov = 0, nslow = 0;
	bool have_window = gd_window_dt(rc->w, &dt), any = false, powersave = false, conservative = false;
	char driver[32] = "", list[96], sum[512] = "";
	struct gd_finding *f;

	gov_ids = gd_xcalloc(b->cpus.n + 1, sizeof *gov_ids);
	slow_ids = gd_xcalloc(b->cpus.n + 1, sizeof *slow_ids);
	GD_VEC_EACH(b->cpus, const struct gd_cpus, c) {
		const struct gd_cpus *prev;
		double busy, pct;

		if (!c->cpu.ok)
			continue;
		if (c->governor[0] || (c->cur_khz.ok && c->max_khz.ok))
			any = true;
		if (!driver[0] && c->freq_driver[0])
			GD_STRSET(driver, c->freq_driver);
		if (slow_governor(c->governor)) {
			gov_ids[ngov++] = c->cpu.v;
			powersave |= c->governor[0] == 'p';
			conservative |= c->governor[0] == 'c';
		}
		/* The clock half needs the CPU's busy share: two snapshots. */
		if (!have_window || !c->cur_khz.ok || !c->max_khz.ok || c->max_khz.v == 0)
			continue;
		prev = GD_FIND_PREV_U64(a, cpus, struct gd_cpus, cpu, c->cpu.v);
		if (!prev || !gd_cpus_busy_pct(prev, c, &busy) || busy < th_busy)
			continue;
		pct = 100.0 * (double)c->cur_khz.v / (double)c->max_khz.v;
		if (pct >= th_freq)
			continue;
		slow_ids[nslow++] = c->cpu.v;
		if (isnan(worst) || pct < worst) {
			worst = pct;
			worst_busy = busy;
			worst_cpu = c->cpu.v;
		}
	}
	if (!any || (ngov == 0 && nslow == 0)) {
		free(gov_ids);
		free(slow_ids);
		if (!any)
			return gd_rule_unknown(rc, "no cpufreq in sysfs (virtual machine?)");
		return GD_VERDICT_CLEAR;
	}

	f = gd_finding_add(rc, out, GD_SEV_INFO, "host");
	if (ngov > 0) {
		const char *gov = powersave && conservative ? "powersave and conservative governors"
				  : powersave		    ? "powersave governor"
							    : "conservative governor";

		cpu_ranges(list, sizeof list, gov_ids, ngov);
		cat(sum, sizeof sum, "%zu of %zu CPUs (%s) use the %s", ngov, b->cpus.n, list, gov);
		if (powersave && strcmp(driver, "intel_pstate") == 0)
			cat(sum, sizeof sum,
			    " (driver intel_pstate: in active mode its powersave still scales with load, "
			    "so the cost is smaller than the name says)");
		gd_finding_ev_text(f, "governor", powersave && conservative ? "powersave,conservative"
						  : powersave		    ? "powersave"
									    : "conservative");
		gd_finding_ev(f, "governor_cpus", (double)ngov, "CPUs", NAN);
		gd_finding_ev_text(f, "governor_cpu_list", list);
	}
	if (nslow > 0) {
		cpu_ranges(list, sizeof list, slow_ids, nslow);
		cat(sum, sizeof sum, "%s%zu busy CPU%s (%s) run%s below %g%% of the maximum clock",
		    ngov ? "; " : "", nslow, nslow == 1 ? "" : "s", list, nslow == 1 ? "s" : "", th_freq);
		cat(sum, sizeof sum, "; cpu%llu at %.0f%% while %.0f%% busy", (unsigned long long)worst_cpu, worst,
		    worst_busy);
		gd_finding_ev(f, "slow_busy_cpus", (double)nslow, "CPUs", NAN);
		gd_finding_ev(f, "freq_pct", worst, "% of max", th_freq);
		gd_finding_ev(f, "busy_pct", worst_busy, "%", th_busy);
	}
	if (driver[0])
		gd_finding_ev_text(f, "freq_driver", driver);
	gd_finding_summary(f, "%s.", sum);
	if (strcmp(driver, "intel_pstate") == 0)
		gd_finding_remedy(f, "%s With intel_pstate, also set energy_performance_preference to performance.",
				  rc->rule->remedy);
	free(gov_ids);
	free(slow_ids);
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
		char sum[512] = "";

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
		cat(sum, sizeof sum, "The cgroup %s", c->path);
		if (c->self.ok && c->self.v == 1)
			cat(sum, sizeof sum, " (gpudoctor's own)");
		else if (c->pid.ok)
			cat(sum, sizeof sum, " (pid %llu)", (unsigned long long)c->pid.v);
		cat(sum, sizeof sum, " was throttled in %.0f%% of its %llu CPU periods (threshold %g%%)", pct,
		    (unsigned long long)dper, th);
		if (!isnan(secs))
			cat(sum, sizeof sum, ", %.2f s in all over %.1f s", secs, dt);
		if (!isnan(cores))
			cat(sum, sizeof sum, "; its quota is %g cores", cores);
		gd_finding_summary(f, "%s.", sum);
		if (!isnan(cores))
			gd_finding_remedy(f,
					  "Raise the container's CPU limit above its quota of %g cores (docker --cpus, "
					  "Kubernetes resources.limits.cpu) or lower its thread count (DataLoader "
					  "num_workers, OMP_NUM_THREADS) to fit.",
					  cores);
		gd_finding_ev(f, "throttled_pct", pct, "% of periods", th);
		if (!isnan(secs))
			gd_finding_ev(f, "throttled_s", secs, "s", NAN);
		if (!isnan(cores))
			gd_finding_ev(f, "quota_cores", cores, "cores", NAN);
		nfired++;
	}
	if (nstat == 0)
		return gd_rule_unknown(rc, "no cgroup record has cpu.stat counters (nr_periods, nr_throttled) "
					   "in both snapshots");
	return nfired ? GD_VERDICT_FIRED : GD_VERDICT_CLEAR;
}

/* ---- cpu.irq_imbalance -------------------------------------------------- */

/* Highest CPU number accepted in a NIC IRQ record: bounds the per-CPU sums. */
#define IRQ_CPU_MAX 65535

/* The same IRQ line and CPU in the first snapshot (same index first). */
static const struct gd_nic_irq *irq_prev(const struct gd_snapshot *a, size_t i, const struct gd_nic_irq *r)
{
	if (i < a->nic_irqs.n) {
		const struct gd_nic_irq *q = GD_VEC_AT(a->nic_irqs, const struct gd_nic_irq, i);

		if (q->cpu.ok && q->cpu.v == r->cpu.v && strcmp(q->irq, r->irq) == 0)
			return q;
	}
	GD_VEC_EACH(a->nic_irqs, const struct gd_nic_irq, q)
		if (q->cpu.ok && q->cpu.v == r->cpu.v && strcmp(q->irq, r->irq) == 0)
			return q;
	return NULL;
}

/* irq+softirq share of one CPU over the window; false when not known. */
static bool cpu_irq_pct(const struct gd_snapshot *a, const struct gd_cpus *c, double *pct)
{
	const struct gd_cpus *prev = c->cpu.ok ? GD_FIND_PREV_U64(a, cpus, struct gd_cpus, cpu, c->cpu.v) : NULL;

	return prev && gd_cpus_irq_pct(prev, c, pct);
}

struct nic_load {
	uint64_t total, hot_count, hot_cpu;
};

/* Sums the NIC's interrupts per CPU over the window and finds the CPU that
 * served most of them. */
static struct nic_load nic_load(const struct gd_snapshot *a, const struct gd_snapshot *b, const char *netif,
				uint64_t *sums, size_t nsums)
{
	struct nic_load l = { 0, 0, 0 };

	memset(sums, 0, nsums * sizeof *sums);
	for (size_t j = 0; j < b->nic_irqs.n; j++) {
		const struct gd_nic_irq *r = GD_VEC_AT(b->nic_irqs, const struct gd_nic_irq, j), *q;
		uint64_t d;

		if (strcmp(r->netif, netif) != 0 || !r->cpu.ok || r->cpu.v >= nsums)
			continue;
		q = irq_prev(a, j, r);
		if (!q || !gd_counter_delta(q->count, r->count, &d))
			continue;
		sums[r->cpu.v] += d;
		l.total += d;
	}
	for (size_t c = 0; c < nsums; c++) {
		if (sums[c] > l.hot_count) {
			l.hot_count = sums[c];
			l.hot_cpu = c;
		}
	}
	return l;
}

static void irq_finding(struct gd_rule_ctx *rc, struct gd_findings *out, const char *netif,
			const struct nic_load *l, double hot_pct, double others, double dt)
{
	double th_hot = TH(rc, CPU_IRQ_HOT_PCT), th_other = TH(rc, CPU_IRQ_OTHER_PCT);
	double share = 100.0 * (double)l->hot_count / (double)l->total;
	struct gd_finding *f = gd_finding_add(rc, out, rc->rule->severity, "%s", netif);

	gd_finding_summary(f,
			   "cpu%llu serves %.0f%% of %s's interrupts (%.0f/s) and spends %.0f%% of its time in "
			   "irq+softirq (threshold %g%%), while every other CPU stays at or below %.0f%% "
			   "(threshold %g%%).",
			   (unsigned long long)l->hot_cpu, share, netif, (double)l->total / dt, hot_pct, th_hot,
			   others, th_other);
	gd_finding_remedy(f,
			  "Spread %s's queues over more CPUs: run irqbalance, raise the RSS queue count "
			  "(ethtool -L %s combined N), or set each queue's /proc/irq/<N>/smp_affinity_list.",
			  netif, netif);
	gd_finding_ev(f, "hot_cpu", (double)l->hot_cpu, "", NAN);
	gd_finding_ev(f, "hot_cpu_irq_pct", hot_pct, "%", th_hot);
	gd_finding_ev(f, "others_max_irq_pct", others, "%", th_other);
	gd_finding_ev(f, "nic_irq_share_pct", share, "%", NAN);
	gd_finding_ev(f, "nic_irqs_per_s", (double)l->total / dt, "1/s", NAN);
}

enum gd_verdict gd_rule_cpu_irq_imbalance(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	double th_hot = TH(rc, CPU_IRQ_HOT_PCT), th_other = TH(rc, CPU_IRQ_OTHER_PCT), dt;
	size_t nsums = 0, nfired = 0, nmissing = 0;
	struct gd_vec done = { 0 };
	uint64_t *sums;

	if (b->nic_irqs.n == 0)
		return gd_rule_unknown(rc, "no NIC interrupt lines (/proc/interrupts) in the last snapshot");
	if (!gd_window_dt(rc->w, &dt) || a->nic_irqs.n == 0)
		return gd_rule_unknown(rc, "no NIC interrupt lines (/proc/interrupts) in the first snapshot");
	GD_VEC_EACH(b->nic_irqs, const struct gd_nic_irq, r)
		if (r->cpu.ok && r->cpu.v <= IRQ_CPU_MAX && r->cpu.v + 1 > nsums)
			nsums = (size_t)r->cpu.v + 1;
	sums = gd_xcalloc(nsums + 1, sizeof *sums);
	GD_VEC_EACH(b->nic_irqs, const struct gd_nic_irq, r) {
		const struct gd_cpus *hot;
		struct nic_load l;
		double hot_pct, others = 0, pct;
		size_t nothers = 0;
		char *name;

		if (!r->netif[0] || gd_vec_find_str(&done, sizeof r->netif, 0, r->netif))
			continue;
		name = gd_vec_push(&done, sizeof r->netif);
		memcpy(name, r->netif, sizeof r->netif);
		l = nic_load(a, b, r->netif, sums, nsums);
		if (l.total == 0)
			continue;   /* no interrupts in the window: nothing piles up */
		hot = GD_FIND_PREV_U64(b, cpus, struct gd_cpus, cpu, l.hot_cpu);
		if (!hot || !cpu_irq_pct(a, hot, &hot_pct)) {
			nmissing++;
			continue;
		}
		GD_VEC_EACH(b->cpus, const struct gd_cpus, c) {
			if (c == hot || !cpu_irq_pct(a, c, &pct))
				continue;
			nothers++;
			others = fmax(others, pct);
		}
		/* With a single CPU there is nowhere to spread the queues. */
		if (nothers == 0 || hot_pct < th_hot || others >= th_other)
			continue;
		irq_finding(rc, out, r->netif, &l, hot_pct, others, dt);
		nfired++;
	}
	gd_vec_release(&done);
	free(sums);
	if (nfired)
		return GD_VERDICT_FIRED;
	if (nmissing)
		return gd_rule_unknown(rc, "no per-CPU irq/softirq ticks (/proc/stat cpuN) for the CPU serving "
					   "a NIC's interrupts");
	return GD_VERDICT_CLEAR;
}
