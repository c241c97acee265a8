/*
 * rule_gpu_transfer.c - gpu.transfer_serialized: a GPU whose host-device
 * copies and kernels take turns instead of overlapping (计算-传输串行化):
 * the loop copies a batch, waits, computes it, waits, copies the next; the
 * GPU idles through every copy.
 *
 * Evidence: the window's sub-second intervals of a GPU a GPU job uses
 * (gpu_activity[]: GPM's SM activity and PCIe bytes every 100 ms where the
 * GPU has GPM, else point readings of the PCIe throughput and utilisation;
 * the GPM ones when there are any).  An interval is copying when PCIe
 * RX + TX reaches copy_mb_per_s (250 MB/s: more than kernel launches and the
 * driver's own traffic), computing when SM activity (or utilisation)
 * reaches compute_pct (10%), busy when either.  Fires when copies are in
 * copy_share_pct (20%) or more of the busy intervals, compute too (a GPU
 * that only copies has nothing to overlap), and both at once in fewer than
 * overlap_pct (20%), over min_intervals (8) busy intervals or more; and,
 * when the job's main thread was sampled (job_threads[]), when
 * main_cuda_pct (30%) or more of its samples are in the CUDA libraries: it
 * waits for the copies there (a main thread busy in Python is
 * job.host_bound's).  Unsampled, the finding says so.
 *
 * Example: gpu0, gpm, 20 busy intervals: SM 0% RX 9400 MB/s (x10), SM 96%
 * RX 3 MB/s (x10): copies 50%, compute 50%, overlap 0%: fires.  The same
 * GPU with pinned memory and a side stream reads SM 95% RX 9200 MB/s in
 * most intervals: overlap 90%, silent.
 *
 * Granularity: an interval is 100 ms (GPM) or a point reading; a loop whose
 * copy and compute phases are shorter puts both in one interval and looks
 * overlapped: the rule then misses it rather than guess.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "rules/rule_gpu.h"
#include "rules/rule_job_threads.h"
#include "rules/rule_util.h"
#include "rules/rules.h"

#define MB 1e6

struct tally {
	size_t records;       /* intervals of the GPU in the window */
	size_t busy, copy, compute, both;
	double copy_mb;       /* RX + TX (MB/s) summed over the copying intervals */
	bool gpm;             /* from GPM (else PCIe throughput readings) */
};

static void tally_gpu(struct gd_rule_ctx *rc, uint64_t gpu, struct tally *t)
{
	const struct gd_window *w = rc->w;

	memset(t, 0, sizeof *t);
	for (size_t i = 0; i < w->n; i++)
		GD_VEC_EACH(w->snaps[i]->gpu_activity, const struct gd_gpu_activity, r)
			if (r->gpu.ok && r->gpu.v == gpu && strcmp(r->source, "gpm") == 0 && gd_gpu_act_in_window(w, i, r))
				t->gpm = true;
	for (size_t i = 0; i < w->n; i++) {
		GD_VEC_EACH(w->snaps[i]->gpu_activity, const struct gd_gpu_activity, r) {
			const struct gd_f64 *busy = t->gpm ? &r->sm_active_pct : &r->util_pct;
			double mb;
			bool copy, compute;

			if (!r->gpu.ok || r->gpu.v != gpu || (strcmp(r->source, "gpm") == 0) != t->gpm ||
			    !gd_gpu_act_in_window(w, i, r))
				continue;
			t->records++;
			if (!busy->ok || (!r->pcie_rx_bytes_s.ok && !r->pcie_tx_bytes_s.ok))
				continue;   /* half a reading: neither side can be told */
			mb = ((r->pcie_rx_bytes_s.ok ? r->pcie_rx_bytes_s.v : 0) +
			      (r->pcie_tx_bytes_s.ok ? r->pcie_tx_bytes_s.v : 0)) / MB;
			copy = mb >= TH(rc, GPU_XFER_COPY_MB_PER_S);
			compute = busy->v >= TH(rc, GPU_XFER_COMPUTE_PCT);
			if (!copy && !compute)
				continue;
			t->busy++;
			t->copy += copy;
			t->compute += compute;
			t->both += copy && compute;
			if (copy)
				t->copy_mb += mb;
		}
	}
}

/* The process NVML lists as the GPU's compute user with the most device
 * memory, among b's processes; NULL when none. */
static const struct gd_proc *job_on(const struct gd_snapshot *b, const struct gd_gpu *g)
{
	const struct gd_proc *best = NULL;
	uint64_t most = 0;

	GD_VEC_EACH(b->gpu_procs, const struct gd_gpu_proc, gp) {
		uint64_t mem = gp->used_mem_bytes.ok ? gp->used_mem_bytes.v : 0;

		if (!gp->gpu.ok || gp->gpu.v != g->index.v || !gp->pid.ok || (gp->graphics.ok && gp->graphics.v))
			continue;
		GD_VEC_EACH(b->procs, const struct gd_proc, p)
			if (p->pid.ok && p->pid.v == gp->pid.v && (!best || mem > most)) {
				best = p;
				most = mem;
			}
	}
	return best;
}

/* Why g has too few intervals to judge, for the unknown verdict. */
static void why_few(struct gd_rule_ctx *rc, const struct gd_snapshot *b, const struct gd_gpu *g, const struct tally *t,
		    char *buf, size_t sz)
{
	GD_VEC_EACH(b->sources, const struct gd_source, src) {
		if (strcmp(src->name, "gpu_activity") == 0 && strcmp(src->status, "ok") != 0) {
			snprintf(buf, sz, _("%s: gpu_activity %s: %s"), gpu_name(g).s, src->status,
				 src->reason[0] ? src->reason : src->status);
			return;
		}
	}
	snprintf(buf, sz,
		 P_("%s has %zu busy sub-second interval in the window, %g needed (the NVML thread samples every 100 ms "
		    "between the snapshots of one run: check --window 2s or longer, watch, record, serve)",
		    "%s has %zu busy sub-second intervals in the window, %g needed (the NVML thread samples every 100 ms "
		    "between the snapshots of one run: check --window 2s or longer, watch, record, serve)",
		    t->busy),
		 gpu_name(g).s, t->busy, TH(rc, GPU_XFER_MIN_INTERVALS));
}

/* What the window says of GPU g used by p: -1 too few busy intervals, 0
 * copies and kernels overlap (or one is missing, or the main thread is busy
 * elsewhere), 1 they take turns. */
struct judged {
	struct tally t;
	struct gd_jt_use m;
	double copy, compute, both, cuda;
	bool sampled;
	char shares[96];
};

static int judge(struct gd_rule_ctx *rc, const struct gd_snapshot *a, const struct gd_snapshot *b, double dt,
		 const struct gd_gpu *g, const struct gd_proc *p, struct judged *j)
{
	memset(j, 0, sizeof *j);
	j->cuda = NAN;
	tally_gpu(rc, g->index.v, &j->t);
	if ((double)j->t.busy < TH(rc, GPU_XFER_MIN_INTERVALS))
		return -1;
	j->copy = 100.0 * (double)j->t.copy / (double)j->t.busy;
	j->compute = 100.0 * (double)j->t.compute / (double)j->t.busy;
	j->both = 100.0 * (double)j->t.both / (double)j->t.busy;
	if (j->copy < TH(rc, GPU_XFER_COPY_SHARE_PCT) || j->compute < TH(rc, GPU_XFER_COPY_SHARE_PCT) ||
	    j->both >= TH(rc, GPU_XFER_OVERLAP_PCT))
		return 0;
	j->sampled = gd_jt_main(a, b, dt, p->pid.v, &j->m) && j->m.sampled && j->m.total >= TH(rc, JOB_MIN_SAMPLES);
	if (j->sampled) {
		j->cuda = 100.0 * j->m.samples[JT_CUDA] / j->m.total;
		if (j->cuda < TH(rc, GPU_XFER_MAIN_CUDA_PCT))
			return 0;   /* the main thread is busy elsewhere: not waiting for copies */
		gd_jt_shares(&j->m, j->shares, sizeof j->shares);
	}
	return 1;
}

bool gd_xfer_serialized(struct gd_rule_ctx *rc, const struct gd_gpu *g, double *copy_pct, double *overlap_pct)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	const struct gd_proc *p;
	struct judged j;
	double dt = 0;

	if (!g->index.ok || !(p = job_on(b, g)))
		return false;
	gd_window_dt(rc->w, &dt);
	if (judge(rc, a, b, dt, g, p, &j) != 1)
		return false;
	*copy_pct = j.copy;
	*overlap_pct = j.both;
	return true;
}

enum gd_verdict gd_rule_gpu_transfer_serialized(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	double dt = 0;
	size_t fired = 0, unjudged = 0;
	char why[512] = "";
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	gd_window_dt(rc->w, &dt);
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		const struct gd_proc *p;
		struct gd_finding *f;
		struct judged j;
		int r;

		if (!g->index.ok || !gpu_live(g) || !(p = job_on(b, g)))
			continue;
		r = judge(rc, a, b, dt, g, p, &j);
		if (r < 0) {
			if (!unjudged++)
				why_few(rc, b, g, &j.t, why, sizeof why);
			continue;
		}
		if (r == 0)
			continue;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", gpu_name(g).s);
		if (j.sampled) {
			gd_finding_summary(f, _("%s takes turns between host-device copies and compute: copies in %.0f%% of its "
						"%zu busy sub-second intervals, kernels in %.0f%%, both at once in only %.0f%% "
						"(threshold %g%%), from %s; the main thread of pid %llu (%s) has %.0f%% of "
						"its samples in the CUDA libraries (%s)."),
					   gpu_name(g).s, j.copy, j.t.busy, j.compute, j.both, TH(rc, GPU_XFER_OVERLAP_PCT),
					   j.t.gpm ? "gpm" : "pcie_throughput", (unsigned long long)p->pid.v, p->comm, j.cuda,
					   j.shares);
		} else {
			char jwhy[GD_ERR_MSG_MAX];

			gd_jt_sampler_why(b, jwhy, sizeof jwhy);
			gd_finding_summary(f, _("%s takes turns between host-device copies and compute: copies in %.0f%% of its "
						"%zu busy sub-second intervals, kernels in %.0f%%, both at once in only %.0f%% "
						"(threshold %g%%), from %s; whether the main thread of pid %llu (%s) waits in "
						"the CUDA libraries is not known: %s."),
					   gpu_name(g).s, j.copy, j.t.busy, j.compute, j.both, TH(rc, GPU_XFER_OVERLAP_PCT),
					   j.t.gpm ? "gpm" : "pcie_throughput", (unsigned long long)p->pid.v, p->comm, jwhy);
		}
		gd_finding_ev(f, "copy_share_pct", j.copy, "% of busy", TH(rc, GPU_XFER_COPY_SHARE_PCT));
		gd_finding_ev(f, "compute_share_pct", j.compute, "% of busy", TH(rc, GPU_XFER_COPY_SHARE_PCT));
		gd_finding_ev(f, "overlap_pct", j.both, "% of busy", TH(rc, GPU_XFER_OVERLAP_PCT));
		gd_finding_ev(f, "intervals", (double)j.t.busy, "", TH(rc, GPU_XFER_MIN_INTERVALS));
		gd_finding_ev(f, "copy_mb_per_s", j.t.copy_mb / (double)j.t.copy, "MB/s", TH(rc, GPU_XFER_COPY_MB_PER_S));
		gd_finding_ev_text(f, "source", j.t.gpm ? "gpm" : "pcie_throughput");
		if (j.sampled) {
			gd_finding_ev(f, "main_cuda_pct", j.cuda, "% of samples", TH(rc, GPU_XFER_MAIN_CUDA_PCT));
			gd_finding_ev_text(f, "main_thread", j.shares);
		} else {
			gd_finding_ev_text(f, "main_thread", "not sampled");
		}
		fired++;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (unjudged)
		return gd_rule_unknown(rc, "%s", why);
	return GD_VERDICT_CLEAR;
}
