/*
 * gpu_busy.c - how busy a GPU a job uses was over the window, as the rules
 * about an idle GPU judge it (gpu.idle_while_job_runs, job.host_bound,
 * job.waiting_for_peers, cpu.input_bound).  Pure: no I/O.
 *
 * NVML's utilisation is the share of time at least one kernel was
 * resident: one thin kernel (a NCCL kernel spinning on one SM per channel,
 * a launch-bound loop of tiny kernels) keeps it at 100% while the SMs idle.
 * Where the GPU has GPM (Hopper and newer), the window's sub-second
 * intervals (gpu_activity[], source gpm) give SM activity, the share of SMs
 * busy: a GPU idles when its utilisation is below the rule's util threshold,
 * or when GPM read gpm_min_intervals (5) or more intervals and its SM
 * activity is below the rule's sm_active_pct (15%) whatever the
 * utilisation.  Example: gpu0 at 100% utilisation, SM activity 8% over 18
 * intervals: idle, said "averages 100% utilisation but only 8% SM
 * activity".  Occupancy, tensor activity, DRAM bandwidth and NVLink bytes
 * of the same intervals are evidence that tells the two apart.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "rules/rule_gpu.h"
#include "rules/rule_gpu_pci.h"
#include "rules/rule_util.h"
#include "rules/rules.h"

bool gd_gpu_act_in_window(const struct gd_window *w, size_t i, const struct gd_gpu_activity *r)
{
	const struct gd_snapshot *a = w->snaps[0], *b = w->snaps[w->n - 1];

	if (!r->t_us.ok || !a->host.wall_time_s.ok || !b->host.wall_time_s.ok)
		return i > 0;
	return (double)r->t_us.v > a->host.wall_time_s.v * 1e6 && (double)r->t_us.v <= b->host.wall_time_s.v * 1e6;
}

struct mean {
	double sum;
	size_t n;
};

static void add(struct mean *m, const struct gd_f64 *v)
{
	if (v->ok && isfinite(v->v)) {
		m->sum += v->v;
		m->n++;
	}
}

static double value(const struct mean *m)
{
	return m->n ? m->sum / (double)m->n : NAN;
}

bool gd_gpu_busy(struct gd_rule_ctx *rc, const struct gd_gpu *g, double th_util, double th_sm, struct gd_gpu_busy *o)
{
	const struct gd_window *w = rc->w;
	struct mean sm = { 0 }, occ = { 0 }, tensor = { 0 }, dram = { 0 }, nvl = { 0 };

	memset(o, 0, sizeof *o);
	o->util = o->sm = o->occupancy = o->tensor = o->dram = o->nvlink_bytes_s = NAN;
	o->util_ok = GPU_MEAN(w, g, util_gpu_pct, &o->util);
	for (size_t i = 0; g->index.ok && i < w->n; i++) {
		GD_VEC_EACH(w->snaps[i]->gpu_activity, const struct gd_gpu_activity, r) {
			if (!r->gpu.ok || r->gpu.v != g->index.v || strcmp(r->source, "gpm") != 0 ||
			    !gd_gpu_act_in_window(w, i, r) || !r->sm_active_pct.ok)
				continue;
			add(&sm, &r->sm_active_pct);
			add(&occ, &r->sm_occupancy_pct);
			add(&tensor, &r->tensor_active_pct);
			add(&dram, &r->dram_bw_pct);
			if (r->nvlink_rx_bytes_s.ok || r->nvlink_tx_bytes_s.ok) {
				struct gd_f64 t = { .ok = true, .v = 0 };

				t.v = (r->nvlink_rx_bytes_s.ok ? r->nvlink_rx_bytes_s.v : 0) +
				      (r->nvlink_tx_bytes_s.ok ? r->nvlink_tx_bytes_s.v : 0);
				add(&nvl, &t);
			}
		}
	}
	o->gpm = (double)sm.n >= TH(rc, GPU_SM_MIN_INTERVALS) ? sm.n : 0;
	if (o->gpm) {
		o->sm = value(&sm);
		o->occupancy = value(&occ);
		o->tensor = value(&tensor);
		o->dram = value(&dram);
		o->nvlink_bytes_s = value(&nvl);
	}
	o->known = o->util_ok || o->gpm;
	o->thin = o->gpm && o->sm < th_sm && (!o->util_ok || o->util >= th_util);
	o->idle = (o->util_ok && o->util < th_util) || (o->gpm && o->sm < th_sm);
	o->level = o->thin ? o->sm : o->util_ok ? o->util : o->sm;
	return o->known;
}

const struct gd_gpu *gd_gpu_idlest(struct gd_rule_ctx *rc, const struct gd_snapshot *b, const struct gd_proc *p,
				   double th_util, double th_sm, struct gd_gpu_busy *o)
{
	const struct gd_gpu *idle = NULL;

	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		struct gd_gpu_busy x;

		if (gpu_live(g) && gpci_proc_uses(b, p, g) && gd_gpu_busy(rc, g, th_util, th_sm, &x) && x.idle &&
		    (!idle || x.level < o->level)) {
			idle = g;
			*o = x;
		}
	}
	return idle;
}

void gd_gpu_busy_now(const struct gd_gpu_busy *o, char *buf, size_t sz)
{
	if (o->thin && o->util_ok)
		/* TRANSLATORS: "... while gpu0 <this>": NVML's utilisation counts any resident kernel */
		snprintf(buf, sz, _("averages %.0f%% utilisation but only %.0f%% SM activity"), o->util, o->sm);
	else if (o->util_ok)
		/* TRANSLATORS: "... while gpu0 <this>" */
		snprintf(buf, sz, _("averages %.0f%% utilisation"), o->util);
	else
		/* TRANSLATORS: "... while gpu0 <this>" */
		snprintf(buf, sz, _("averages %.0f%% SM activity"), o->sm);
}

void gd_gpu_busy_over(const struct gd_gpu_busy *o, double dt, double th_util, double th_sm, char *buf, size_t sz)
{
	if (o->thin && o->util_ok)
		/* TRANSLATORS: "gpu0 <this> while pid 4242 (python) uses it": utilisation counts any resident kernel */
		snprintf(buf, sz, _("averaged %.0f%% utilisation but only %.0f%% SM activity over %.1f s (threshold %g%%: "
				    "utilisation counts any resident kernel, the SMs mostly idled)"),
			 o->util, o->sm, dt, th_sm);
	else if (o->util_ok)
		/* TRANSLATORS: "gpu0 <this> while pid 4242 (python) uses it" */
		snprintf(buf, sz, _("averaged %.0f%% utilisation over %.1f s (threshold %g%%)"), o->util, dt, th_util);
	else
		/* TRANSLATORS: "gpu0 <this> while pid 4242 (python) uses it" */
		snprintf(buf, sz, _("averaged %.0f%% SM activity over %.1f s (threshold %g%%)"), o->sm, dt, th_sm);
}

void gd_gpu_busy_ev(struct gd_finding *f, const struct gd_gpu_busy *o, double th_sm)
{
	if (!o->gpm)
		return;
	gd_finding_ev(f, "sm_active_pct", o->sm, "%", th_sm);
	if (!isnan(o->occupancy))
		gd_finding_ev(f, "sm_occupancy_pct", o->occupancy, "%", NAN);
	if (!isnan(o->tensor))
		gd_finding_ev(f, "tensor_active_pct", o->tensor, "%", NAN);
	if (!isnan(o->dram))
		gd_finding_ev(f, "dram_bw_pct", o->dram, "%", NAN);
	if (!isnan(o->nvlink_bytes_s))
		gd_finding_ev(f, "nvlink_mb_per_s", o->nvlink_bytes_s / 1e6, "MB/s", NAN);
	gd_finding_ev(f, "gpm_intervals", (double)o->gpm, "", NAN);
}
