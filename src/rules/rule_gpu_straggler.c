/*
 * rule_gpu_straggler.c - gpu.straggler: a GPU out of step with its siblings
 * (the other rules of GPUs against jobs are in rule_gpu_job.c).
 *
 * One GPU slower than its same-model siblings holds every synchronous
 * step back.  Evidence: the average SM clock of GPUs under
 * load (avg utilisation >= 50%) against the median of the other loaded
 * GPUs of the same model (< 85% fires), and the average utilisation of each
 * GPU of one job (grouped by the cgroup of the process NVML lists on it)
 * against the median of the job's other GPUs of the same model (off by > 30
 * points fires; needs 3 GPUs, as with 2 neither is the odd one).  A GPU NVML
 * lists nobody on belongs to no job, whatever /dev/nvidia* descriptors the
 * job's processes hold (a CUDA process opens them all): an idle spare is
 * idle by choice, not out of step.  So does a GPU whose only users are
 * outside this pid namespace (their cgroups cannot be read), or unseen.
 * Example: gpu3 at 1410 MHz while the other three run at 1980 (71%).
 */
#include "rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "rules/rule_gpu.h"
#include "rules/rule_gpu_pci.h"
#include "rules/rule_util.h"

/* ---- gpu.straggler -------------------------------------------------------------- */

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* Median of vals[0..n) without index skip (n - 1 values). */
static double median_without(const double *vals, size_t n, size_t skip, double *tmp)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (i != skip && !isnan(vals[i]))
			tmp[m++] = vals[i];
	if (!m)
		return NAN;
	qsort(tmp, m, sizeof *tmp, cmp_dbl);
	return m % 2 ? tmp[m / 2] : (tmp[m / 2 - 1] + tmp[m / 2]) / 2;
}

/* The job a GPU belongs to: the cgroup of the first process NVML lists on
 * it that is in procs[], else its parent pid; "" when there is none. */
static void job_key(const struct gd_snapshot *b, const struct gd_gpu *g, char *key, size_t sz)
{
	struct gpci_users u = gpci_users(b, g, 0); /* only its users matter here */
	const struct gd_proc *p = u.first;

	key[0] = '\0';
	if (p && p->cgroup[0])
		snprintf(key, sz, "%s", p->cgroup);
	else if (p && p->ppid.ok)
		snprintf(key, sz, "ppid %llu", (unsigned long long)p->ppid.v);
}

enum gd_verdict gd_rule_gpu_straggler(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	double th_clk = TH(rc, GPU_STRAGGLER_CLOCK_PCT), th_diff = TH(rc, GPU_STRAGGLER_UTIL_DIFF);
	double th_busy = TH(rc, GPU_STRAGGLER_BUSY_PCT);
	size_t n, fired = 0;
	const struct gd_gpu *gs;
	double *util, *clk, *tmp, *vals;
	char (*keys)[256];
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	n = b->gpus.n;
	gs = b->gpus.items;
	util = gd_xcalloc(n, sizeof *util);
	clk = gd_xcalloc(n, sizeof *clk);
	vals = gd_xcalloc(n, sizeof *vals);
	tmp = gd_xcalloc(n, sizeof *tmp);
	keys = gd_xcalloc(n, sizeof *keys);
	for (size_t i = 0; i < n; i++) {
		if (!gpu_live(&gs[i]) || !GPU_MEAN(rc->w, &gs[i], util_gpu_pct, &util[i]))
			util[i] = NAN;
		if (!gpu_live(&gs[i]) || !GPU_MEAN(rc->w, &gs[i], sm_clock_mhz, &clk[i]))
			clk[i] = NAN;
		job_key(b, &gs[i], keys[i], sizeof keys[i]);
	}
	for (size_t i = 0; i < n; i++) {
		double med_clk = NAN, med_util = NAN;
		size_t sib_loaded = 0, sib_job = 0;
		bool slow = false, off = false;
		struct gpu_name nm = gpu_name(&gs[i]);
		struct gd_finding *f;

		/* siblings under load, same model: the clock comparison */
		for (size_t k = 0; k < n; k++) {
			bool same = k != i && strcmp(gs[k].name, gs[i].name) == 0;

			vals[k] = same && util[k] >= th_busy ? clk[k] : NAN;
			sib_loaded += !isnan(vals[k]);
		}
		if (!isnan(clk[i]) && util[i] >= th_busy && sib_loaded >= 1) {
			med_clk = median_without(vals, n, i, tmp);
			slow = med_clk > 0 && clk[i] < med_clk * th_clk / 100.0;
		}
		/* the same job's GPUs of the same model: the utilisation comparison */
		for (size_t k = 0; k < n; k++) {
			bool same = k != i && keys[i][0] && strcmp(keys[k], keys[i]) == 0 &&
				    strcmp(gs[k].name, gs[i].name) == 0;

			vals[k] = same ? util[k] : NAN;
			sib_job += same && !isnan(util[k]);
		}
		if (!isnan(util[i]) && sib_job >= 2) {
			med_util = median_without(vals, n, i, tmp);
			off = fabs(util[i] - med_util) > th_diff;
		}
		if (!slow && !off)
			continue;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", nm.s);
		if (slow)
			/* TRANSLATORS: %s after the count of siblings is the GPU model (NVIDIA H100 80GB HBM3) */
			gd_finding_summary(f, _("%s runs at %.0f MHz under load, %.0f%% of the %.0f MHz median of its %zu "
						"loaded %s siblings (threshold %g%%): every synchronous step waits for it."), nm.s,
					   clk[i], 100.0 * clk[i] / med_clk, med_clk, sib_loaded, gs[i].name, th_clk);
		else
			gd_finding_summary(f, _("%s averages %.0f%% utilisation while the job's other %zu %s GPUs have a "
						"median of %.0f%% (off by more than %g points): one GPU is out of step."), nm.s,
					   util[i], sib_job, gs[i].name, med_util, th_diff);
		if (slow) {
			gd_finding_ev(f, "clock_pct_of_median", 100.0 * clk[i] / med_clk, "%", th_clk);
			gd_finding_ev(f, "sm_clock_mhz", clk[i], "MHz", NAN);
			gd_finding_ev(f, "siblings_median_mhz", med_clk, "MHz", NAN);
		}
		if (off) {
			gd_finding_ev(f, "util_diff_pct", util[i] - med_util, "points", th_diff);
			gd_finding_ev(f, "siblings_median_util_pct", med_util, "%", NAN);
		}
		if (!isnan(util[i]))
			gd_finding_ev(f, "util_pct", util[i], "%", NAN);
		fired++;
	}
	free(util);
	free(clk);
	free(vals);
	free(tmp);
	free(keys);
	return fired ? GD_VERDICT_FIRED : GD_VERDICT_CLEAR;
}
