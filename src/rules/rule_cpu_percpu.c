/*
 * rule_cpu_percpu.c - the host CPU rules that judge CPUs one by one:
 * frequency governor and NIC interrupt imbalance.  The whole-host rules
 * (saturation, background hogs, cgroup throttling) are in rule_cpu.c.
 *
 * A single-threaded step (the kernel-launch thread) or a NIC's softirqs run
 * on one CPU at a time, so one slow or overloaded CPU caps them while the
 * host-wide averages look fine.  Evidence comes from the per-CPU records
 * (cpus[]); rates are taken between the first and the last snapshot of the
 * window; thresholds come from thresholds.def (rc->th), never from this file.
 *
 * cpu.governor_powersave: a powersave or conservative governor, or a busy
 * CPU far below its maximum clock, slows every single-threaded step (the
 * kernel-launch thread).  Evidence: scaling_governor, scaling_cur_freq and
 * cpuinfo_max_freq per CPU.  Example: cpu3 80% busy at 1.2 of 3.0 GHz = 40%
 * of its maximum (threshold 60%).  intel_pstate in active mode offers only
 * powersave and performance, and its powersave still scales with load: the
 * finding says so.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "rules/rule_util.h"

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
			return gd_rule_unknown(rc, "%s", _("no cpufreq in sysfs (virtual machine?)"));
		return GD_VERDICT_CLEAR;
	}

	f = gd_finding_add(rc, out, GD_SEV_INFO, "host");
	if (ngov > 0) {
		cpu_ranges(list, sizeof list, gov_ids, ngov);
		/* TRANSLATORS: %1$zu of %2$zu CPUs, %3$s their numbers (cpu0-3,8) */
		if (powersave && conservative)
			cat(sum, sizeof sum, _("%zu of %zu CPUs (%s) use the powersave and conservative governors"), ngov,
			    b->cpus.n, list);
		else if (powersave)
			cat(sum, sizeof sum, _("%zu of %zu CPUs (%s) use the powersave governor"), ngov, b->cpus.n, list);
		else
			cat(sum, sizeof sum, _("%zu of %zu CPUs (%s) use the conservative governor"), ngov, b->cpus.n,
			    list);
		if (powersave && strcmp(driver, "intel_pstate") == 0)
			/* TRANSLATORS: follows "... use the powersave governor" */
			cat(sum, sizeof sum, "%s",
			    _(" (driver intel_pstate: in active mode its powersave still scales with load, "
			      "so the cost is smaller than the name says)"));
		gd_finding_ev_text(f, "governor", powersave && conservative ? "powersave,conservative"
						  : powersave		    ? "powersave"
									    : "conservative");
		gd_finding_ev(f, "governor_cpus", (double)ngov, "CPUs", NAN);
		gd_finding_ev_text(f, "governor_cpu_list", list);
	}
	if (nslow > 0) {
		cpu_ranges(list, sizeof list, slow_ids, nslow);
		if (ngov)
			/* TRANSLATORS: a clause added to the sentence on the governors;
			 * %1$zu CPUs, %2$s their numbers (cpu0-3,8), %3$g the threshold */
			cat(sum, sizeof sum,
			    P_("; %zu busy CPU (%s) runs below %g%% of the maximum clock",
			       "; %zu busy CPUs (%s) run below %g%% of the maximum clock", nslow),
			    nslow, list, th_freq);
		else
			/* TRANSLATORS: %1$zu CPUs, %2$s their numbers (cpu0-3,8), %3$g the threshold */
			cat(sum, sizeof sum,
			    P_("%zu busy CPU (%s) runs below %g%% of the maximum clock",
			       "%zu busy CPUs (%s) run below %g%% of the maximum clock", nslow),
			    nslow, list, th_freq);
		/* TRANSLATORS: a clause added to the sentence before it: the slowest
		 * busy CPU, its clock as a share of its maximum, its busy share */
		cat(sum, sizeof sum, _("; cpu%llu at %.0f%% while %.0f%% busy"), (unsigned long long)worst_cpu, worst,
		    worst_busy);
		gd_finding_ev(f, "slow_busy_cpus", (double)nslow, "CPUs", NAN);
		gd_finding_ev(f, "freq_pct", worst, "% of max", th_freq);
		gd_finding_ev(f, "busy_pct", worst_busy, "%", th_busy);
	}
	if (driver[0])
		gd_finding_ev_text(f, "freq_driver", driver);
	gd_finding_summary(f, _("%s."), sum);
	if (strcmp(driver, "intel_pstate") == 0)
		/* TRANSLATORS: %s is the rule's remedy (translated on its own) */
		gd_finding_remedy(f, _("%s With intel_pstate, also set energy_performance_preference to performance."),
				  _(rc->rule->remedy));
	free(gov_ids);
	free(slow_ids);
	return GD_VERDICT_FIRED;
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

	/* TRANSLATORS: %1$llu the CPU, %2$.0f its share of the interrupts of
	 * %3$s (the NIC), %4$.0f interrupts/s, %5$.0f its irq+softirq share,
	 * %6$g its threshold, %7$.0f the highest share of the other CPUs, %8$g
	 * its threshold */
	gd_finding_summary(f,
			   _("cpu%llu serves %.0f%% of %s's interrupts (%.0f/s) and spends %.0f%% of its time in "
			     "irq+softirq (threshold %g%%), while every other CPU stays at or below %.0f%% "
			     "(threshold %g%%)."),
			   (unsigned long long)l->hot_cpu, share, netif, (double)l->total / dt, hot_pct, th_hot,
			   others, th_other);
	gd_finding_remedy(f,
			  _("Spread %s's queues over more CPUs: run irqbalance, raise the RSS queue count "
			    "(ethtool -L %s combined N), or set each queue's /proc/irq/<N>/smp_affinity_list."),
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
		return gd_rule_unknown(rc, "%s", _("no NIC interrupt lines (/proc/interrupts) in the last snapshot"));
	if (!gd_window_dt(rc->w, &dt) || a->nic_irqs.n == 0)
		return gd_rule_unknown(rc, "%s", _("no NIC interrupt lines (/proc/interrupts) in the first snapshot"));
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
		return gd_rule_unknown(rc, "%s", _("no per-CPU irq/softirq ticks (/proc/stat cpuN) for the CPU serving "
						 "a NIC's interrupts"));
	return GD_VERDICT_CLEAR;
}
