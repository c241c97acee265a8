/*
 * rule_gpu_mem.c - GPU memory rules: gpu.ecc_uncorrectable,
 * gpu.ecc_correctable_rate, gpu.row_remap_pending, gpu.row_remap_failed,
 * gpu.memory_full, gpu.memory_oversubscribed.
 *
 * Mechanism.  HBM fails gradually: corrected (single-bit) errors rise, then
 * uncorrectable ones kill the job that touched them.  Ampere and newer
 * remap a failing row to a spare at the next GPU reset (remapped rows;
 * "pending" until then, "failure" when no spare was left); older GPUs
 * retire pages at the next driver load, up to a fixed table.  NVML counts
 * ECC errors per driver load (volatile) and over the board's life
 * (aggregate).  Apart from faults, a job that fills device memory is one
 * allocation away from failing, and with unified memory it pages over PCIe
 * instead: bandwidth falls from TB/s to GB/s and the GPU waits.
 *
 * Evidence and thresholds (thresholds.def, all overridable):
 *   gpu.ecc_uncorrectable  volatile uncorrected count > 0 (it is reset at
 *       each driver load, so > 0 means since this load): critical.  Where
 *       the driver splits them, the finding says which memory (on-chip SRAM
 *       or device DRAM/HBM); aggregate uncorrectable SRAM errors above
 *       sram_aggregate_max (4), or the driver's "SRAM Threshold Exceeded",
 *       is NVIDIA's usual replacement line: critical, with the remedy to
 *       replace the GPU, even when the volatile count is 0.
 *   gpu.ecc_correctable_rate  volatile corrected count rising faster than
 *       per_hour (100/h) over the window: warning.
 *   gpu.row_remap_pending  remap pending or retired pages pending: critical.
 *   gpu.row_remap_failed  remap failure flag, or SBE + DBE retired pages >=
 *       retired_pages_max (64, the page-retirement table): critical.
 *   gpu.memory_full  used / total >= used_pct (95%): warning.
 *   gpu.memory_oversubscribed  used >= used_pct (95%), PCIe RX+TX >=
 *       pcie_link_pct (25%) of the current link's bandwidth per direction,
 *       and utilisation < util_max_pct (50%): warning.
 *
 * Worked example: gpu1 at Gen5 x16 (63 GB/s per direction) with 81.9 of
 * 85.5 GB in use (95.8%), PCIe RX 14.6 GB/s + TX 8.2 GB/s = 22.8 GB/s = 36% of
 * the link, utilisation 18% -> gpu.memory_oversubscribed (and
 * gpu.memory_full).
 */
#include "rules/rule_gpu.h"

/* ---- gpu.ecc_uncorrectable --------------------------------------------- */

/* ", 3 in SRAM, 0 in DRAM": where the errors were, when the driver says. */
static void ecc_where(char *buf, size_t n, const struct gd_u64 *sram, const struct gd_u64 *dram)
{
	buf[0] = '\0';
	if (sram->ok && dram->ok)
		/* TRANSLATORS: where the ECC errors were, a parenthesis after "gpu1 has
		 * 3 uncorrectable ECC errors since the driver loaded" */
		snprintf(buf, n, _(" (%llu in on-chip SRAM, %llu in device memory)"), (unsigned long long)sram->v,
			 (unsigned long long)dram->v);
	else if (sram->ok)
		snprintf(buf, n, _(" (%llu in on-chip SRAM)"), (unsigned long long)sram->v);
	else if (dram->ok)
		snprintf(buf, n, _(" (%llu in device memory)"), (unsigned long long)dram->v);
}

/* Past NVIDIA's replacement line: aggregate SRAM uncorrectable errors above
 * sram_aggregate_max, or the driver's own "SRAM threshold exceeded". */
static bool ecc_sram_over(const struct gd_gpu *g, double max)
{
	return (g->ecc_uncorrected_aggregate_sram.ok && (double)g->ecc_uncorrected_aggregate_sram.v > max) ||
	       (g->ecc_sram_threshold_exceeded.ok && g->ecc_sram_threshold_exceeded.v);
}

enum gd_verdict gd_rule_gpu_ecc_uncorrectable(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	const double sram_max = rc->th->v[GD_TH_GPU_ECC_SRAM_AGGREGATE_MAX];
	size_t judged = 0, fired = 0, ecc_off = 0;
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		struct gd_finding *f;
		char rise[64] = "", where[96], awhere[96];
		bool vol, over;
		double rate;
		uint64_t d = 0;

		if (!gpu_live(g))
			continue;
		vol = g->ecc_uncorrected_volatile.ok;
		over = ecc_sram_over(g, sram_max);
		if (!vol && !over) {
			ecc_off += g->ecc_mode.ok && g->ecc_mode.v == 0;
			if (g->ecc_uncorrected_aggregate_sram.ok || g->ecc_sram_threshold_exceeded.ok)
				judged++;
			continue;
		}
		judged++;
		if ((!vol || g->ecc_uncorrected_volatile.v == 0) && !over)
			continue;
		fired++;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", gpu_name(g).s);
		ecc_where(where, sizeof where, &g->ecc_uncorrected_volatile_sram, &g->ecc_uncorrected_volatile_dram);
		ecc_where(awhere, sizeof awhere, &g->ecc_uncorrected_aggregate_sram, &g->ecc_uncorrected_aggregate_dram);
		if (vol && g->ecc_uncorrected_volatile.v &&
		    gpu_counter_rate(rc->w, g, offsetof(struct gd_gpu, ecc_uncorrected_volatile), &rate, &d) && d)
			/* TRANSLATORS: after the count and where (above) of "gpu1 has 3
			 * uncorrectable ECC errors since the driver loaded<where><this>." */
			snprintf(rise, sizeof rise, _(", %llu of them in this window"), (unsigned long long)d);
		if (vol && g->ecc_uncorrected_volatile.v && over)
			gd_finding_summary(f, _("%s has %llu uncorrectable ECC errors since the driver loaded%s%s. Its "
						"uncorrectable SRAM errors over its life are past NVIDIA's usual replacement "
						"line."),
					   gpu_name(g).s, (unsigned long long)g->ecc_uncorrected_volatile.v, where, rise);
		else if (vol && g->ecc_uncorrected_volatile.v)
			gd_finding_summary(f, _("%s has %llu uncorrectable ECC errors since the driver loaded%s%s."),
					   gpu_name(g).s, (unsigned long long)g->ecc_uncorrected_volatile.v, where, rise);
		else
			gd_finding_summary(f, _("%s has %llu uncorrectable SRAM ECC errors over its life%s, past NVIDIA's "
						"usual replacement line (more than %.0f, or the driver's SRAM threshold flag)."),
					   gpu_name(g).s, (unsigned long long)g->ecc_uncorrected_aggregate_sram.v, awhere,
					   sram_max);
		if (over)
			gd_finding_remedy(f, _("Drain the GPU and have it replaced: uncorrectable errors in on-chip SRAM "
					       "cannot be repaired by row remapping; run the vendor's field diagnostics for "
					       "the RMA (nvidia-smi -q -d ECC shows the counts)."));
		else
			gd_finding_remedy(f, _("Drain the GPU's jobs and reset it (nvidia-smi -r -i %llu), then check "
					       "remapped rows and retired pages (nvidia-smi -q -d ROW_REMAPPER,PAGE_RETIREMENT); "
					       "replace the GPU if the errors recur."), (unsigned long long)g->index.v);
		if (vol)
			gd_finding_ev(f, "ecc_uncorrected_volatile", (double)g->ecc_uncorrected_volatile.v, "errors", 0);
		if (g->ecc_uncorrected_volatile_sram.ok)
			gd_finding_ev(f, "ecc_uncorrected_volatile_sram", (double)g->ecc_uncorrected_volatile_sram.v, "errors",
				      NAN);
		if (g->ecc_uncorrected_volatile_dram.ok)
			gd_finding_ev(f, "ecc_uncorrected_volatile_dram", (double)g->ecc_uncorrected_volatile_dram.v, "errors",
				      NAN);
		if (rise[0])
			gd_finding_ev(f, "ecc_uncorrected_new", (double)d, "errors", NAN);
		if (g->ecc_uncorrected_aggregate.ok)
			gd_finding_ev(f, "ecc_uncorrected_aggregate", (double)g->ecc_uncorrected_aggregate.v, "errors",
				      NAN);
		if (g->ecc_uncorrected_aggregate_sram.ok)
			gd_finding_ev(f, "ecc_uncorrected_aggregate_sram", (double)g->ecc_uncorrected_aggregate_sram.v,
				      "errors", sram_max);
		if (g->ecc_sram_threshold_exceeded.ok)
			gd_finding_ev(f, "ecc_sram_threshold_exceeded", (double)g->ecc_sram_threshold_exceeded.v, "", NAN);
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (!judged && ecc_off)
		return gd_rule_unknown(rc, _("ECC is off on %zu GPUs: no ECC counters (nvidia-smi -e 1 enables it at the "
					     "next reboot)"), ecc_off);
	if (!judged)
		return gpu_field_unknown(rc, b, "ecc_uncorrected_volatile", _("uncorrected ECC counter"));
	return GD_VERDICT_CLEAR;
}

/* ---- gpu.ecc_correctable_rate ------------------------------------------ */

enum gd_verdict gd_rule_gpu_ecc_correctable_rate(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	const double th = rc->th->v[GD_TH_GPU_ECC_CORRECTED_PER_HOUR];
	size_t judged = 0, fired = 0;
	enum gd_verdict v;
	double dt = 0;

	if (gpu_none(rc, b, &v))
		return v;
	gd_window_dt(rc->w, &dt);
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		struct gd_finding *f;
		double rate;
		uint64_t d;

		if (!gpu_live(g) ||
		    !gpu_counter_rate(rc->w, g, offsetof(struct gd_gpu, ecc_corrected_volatile), &rate, &d))
			continue;
		judged++;
		if (!(rate * 3600 > th))
			continue;
		fired++;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", gpu_name(g).s);
		gd_finding_summary(f, _("%s counted %llu new corrected ECC errors in %.0f s: %.0f per hour (%llu since the "
					"driver loaded)."), gpu_name(g).s, (unsigned long long)d, dt, rate * 3600,
				   (unsigned long long)g->ecc_corrected_volatile.v);
		gd_finding_ev(f, "ecc_corrected_per_hour", rate * 3600, "1/h", th);
		gd_finding_ev(f, "ecc_corrected_new", (double)d, "errors", NAN);
		gd_finding_ev(f, "ecc_corrected_volatile", (double)g->ecc_corrected_volatile.v, "errors", NAN);
		gd_finding_ev(f, "window_s", dt, "s", NAN);
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (!judged)
		return gpu_field_unknown(rc, b, "ecc_corrected_volatile", _("corrected ECC counter in both snapshots"));
	return GD_VERDICT_CLEAR;
}

/* ---- gpu.row_remap_pending, gpu.row_remap_failed ----------------------- */

enum gd_verdict gd_rule_gpu_row_remap_pending(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	size_t judged = 0, fired = 0;
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		bool remap, pages;
		struct gd_finding *f;

		if (!gpu_live(g) || (!g->remap_pending.ok && !g->retired_pages_pending.ok))
			continue;
		judged++;
		remap = g->remap_pending.ok && g->remap_pending.v;
		pages = g->retired_pages_pending.ok && g->retired_pages_pending.v;
		if (!remap && !pages)
			continue;
		fired++;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", gpu_name(g).s);
		if (remap && pages)
			gd_finding_summary(f, _("%s has a row remap and retired pages waiting for a GPU reset: until then the "
						"faulty memory stays in use."), gpu_name(g).s);
		else if (remap)
			gd_finding_summary(f, _("%s has a row remap waiting for a GPU reset: until then the faulty memory "
						"stays in use."), gpu_name(g).s);
		else
			gd_finding_summary(f, _("%s has retired pages waiting for a GPU reset: until then the faulty memory "
						"stays in use."), gpu_name(g).s);
		gd_finding_remedy(f, _("Drain the GPU's jobs and reset it (nvidia-smi -r -i %llu) or reboot the node, so "
				       "the remap takes effect."), (unsigned long long)g->index.v);
		if (g->remap_pending.ok)
			gd_finding_ev(f, "remap_pending", (double)g->remap_pending.v, "", NAN);
		if (g->retired_pages_pending.ok)
			gd_finding_ev(f, "retired_pages_pending", (double)g->retired_pages_pending.v, "", NAN);
		if (g->remap_corrected.ok)
			gd_finding_ev(f, "remap_corrected", (double)g->remap_corrected.v, "rows", NAN);
		if (g->remap_uncorrected.ok)
			gd_finding_ev(f, "remap_uncorrected", (double)g->remap_uncorrected.v, "rows", NAN);
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (!judged)
		return gpu_field_unknown(rc, b, "remap_pending", _("row-remapping or page-retirement state"));
	return GD_VERDICT_CLEAR;
}

enum gd_verdict gd_rule_gpu_row_remap_failed(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	const double max = rc->th->v[GD_TH_GPU_RETIRED_PAGES_MAX];
	size_t judged = 0, fired = 0;
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		bool have_pages = g->retired_pages_sbe.ok || g->retired_pages_dbe.ok, failed, full;
		struct gd_finding *f;
		double pages;

		if (!gpu_live(g) || (!g->remap_failure.ok && !have_pages))
			continue;
		judged++;
		pages = (double)((g->retired_pages_sbe.ok ? g->retired_pages_sbe.v : 0) +
				 (g->retired_pages_dbe.ok ? g->retired_pages_dbe.v : 0));
		failed = g->remap_failure.ok && g->remap_failure.v;
		full = have_pages && pages >= max;
		if (!failed && !full)
			continue;
		fired++;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", gpu_name(g).s);
		if (failed && full)
			gd_finding_summary(f, _("%s could not remap a failing memory row (no spare row left), and its "
						"page-retirement table is full."), gpu_name(g).s);
		else if (failed)
			gd_finding_summary(f, _("%s could not remap a failing memory row (no spare row left)."),
					   gpu_name(g).s);
		else
			gd_finding_summary(f, _("%s has retired %.0f pages, the most it can (%.0f): it cannot retire more."),
					   gpu_name(g).s, pages, max);
		if (g->remap_failure.ok)
			gd_finding_ev(f, "remap_failure", (double)g->remap_failure.v, "", NAN);
		if (have_pages)
			gd_finding_ev(f, "retired_pages", pages, "pages", max);
		if (g->remap_uncorrected.ok)
			gd_finding_ev(f, "remap_uncorrected", (double)g->remap_uncorrected.v, "rows", NAN);
		if (g->remap_corrected.ok)
			gd_finding_ev(f, "remap_corrected", (double)g->remap_corrected.v, "rows", NAN);
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (!judged)
		return gpu_field_unknown(rc, b, "remap_failure", _("row-remapping failure flag or retired pages"));
	return GD_VERDICT_CLEAR;
}

/* ---- gpu.memory_full --------------------------------------------------- */

/* The compute process that holds the most memory on GPU idx. */
static const struct gd_gpu_proc *top_proc(const struct gd_snapshot *s, uint64_t idx)
{
	const struct gd_gpu_proc *best = NULL;

	GD_VEC_EACH(s->gpu_procs, const struct gd_gpu_proc, p) {
		if (p->gpu.ok && p->gpu.v == idx && p->used_mem_bytes.ok && p->pid.ok &&
		    (!best || p->used_mem_bytes.v > best->used_mem_bytes.v))
			best = p;
	}
	return best;
}

static bool used_pct(const struct gd_gpu *g, double *pct)
{
	if (!g->mem_used_bytes.ok || !g->mem_total_bytes.ok || !g->mem_total_bytes.v)
		return false;
	*pct = 100.0 * (double)g->mem_used_bytes.v / (double)g->mem_total_bytes.v;
	return true;
}

enum gd_verdict gd_rule_gpu_memory_full(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	const double th = rc->th->v[GD_TH_GPU_MEMORY_FULL_PCT];
	size_t judged = 0, fired = 0;
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		const struct gd_gpu_proc *tp;
		struct gd_finding *f;
		char who[96] = "";
		double pct;

		if (!gpu_live(g) || !used_pct(g, &pct))
			continue;
		judged++;
		if (pct < th)
			continue;
		fired++;
		tp = g->index.ok ? top_proc(b, g->index.v) : NULL;
		if (tp) {
			const struct gd_proc *pr = gd_snapshot_proc(b, tp->pid.v);

			if (pr && pr->comm[0])
				/* TRANSLATORS: a clause at the end of "gpu0 has 79.1 of 80.0 GB device
				 * memory in use (98.9%)<this>.": the process that holds the most */
				snprintf(who, sizeof who, _("; pid %llu (%s) holds %.1f GB"), (unsigned long long)tp->pid.v,
					 pr->comm, (double)tp->used_mem_bytes.v / 1e9);
			else
				snprintf(who, sizeof who, _("; pid %llu holds %.1f GB"), (unsigned long long)tp->pid.v,
					 (double)tp->used_mem_bytes.v / 1e9);
		}
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", gpu_name(g).s);
		gd_finding_summary(f, _("%s has %.1f of %.1f GB device memory in use (%.1f%%)%s."), gpu_name(g).s,
				   (double)g->mem_used_bytes.v / 1e9, (double)g->mem_total_bytes.v / 1e9, pct, who);
		gd_finding_ev(f, "mem_used_pct", pct, "%", th);
		gd_finding_ev(f, "mem_used_bytes", (double)g->mem_used_bytes.v, "bytes", NAN);
		gd_finding_ev(f, "mem_total_bytes", (double)g->mem_total_bytes.v, "bytes", NAN);
		if (tp) {
			gd_finding_ev(f, "top_pid", (double)tp->pid.v, "", NAN);
			gd_finding_ev(f, "top_pid_bytes", (double)tp->used_mem_bytes.v, "bytes", NAN);
		}
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (!judged)
		return gpu_field_unknown(rc, b, "mem_used_bytes", _("device memory use"));
	return GD_VERDICT_CLEAR;
}

/* ---- gpu.memory_oversubscribed ----------------------------------------- */

enum gd_verdict gd_rule_gpu_memory_oversubscribed(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	const double used_th = rc->th->v[GD_TH_GPU_OVERSUB_USED_PCT], link_th = rc->th->v[GD_TH_GPU_OVERSUB_PCIE_PCT];
	const double util_th = rc->th->v[GD_TH_GPU_OVERSUB_UTIL_PCT];
	size_t judged = 0, fired = 0;
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		double pct, link, mbps, link_pct;
		struct gd_finding *f;

		if (!gpu_live(g) || !used_pct(g, &pct) || !g->pcie_tx_kbps.ok || !g->pcie_rx_kbps.ok ||
		    !g->pcie_gen.ok || !g->pcie_width.ok || !g->util_gpu_pct.ok)
			continue;
		link = gpu_pcie_mb_per_s(g->pcie_gen.v, g->pcie_width.v);
		if (link <= 0)
			continue;
		judged++;
		/* NVML's KB are 1024 bytes. */
		mbps = (double)(g->pcie_tx_kbps.v + g->pcie_rx_kbps.v) * 1024.0 / 1e6;
		link_pct = 100.0 * mbps / link;
		if (pct < used_th || link_pct < link_th || (double)g->util_gpu_pct.v >= util_th)
			continue;
		fired++;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", gpu_name(g).s);
		gd_finding_summary(f, _("%s is %.1f%% full and moves %.1f GB/s over PCIe (%.0f%% of its Gen%llu x%llu link) "
					"while only %llu%% busy: device memory pages over PCIe."), gpu_name(g).s, pct, mbps / 1e3,
				   link_pct, (unsigned long long)g->pcie_gen.v, (unsigned long long)g->pcie_width.v,
				   (unsigned long long)g->util_gpu_pct.v);
		gd_finding_ev(f, "mem_used_pct", pct, "%", used_th);
		gd_finding_ev(f, "pcie_link_pct", link_pct, "%", link_th);
		gd_finding_ev(f, "pcie_mb_per_s", mbps, "MB/s", NAN);
		gd_finding_ev(f, "util_gpu_pct", (double)g->util_gpu_pct.v, "%", util_th);
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (!judged)
		return gpu_field_unknown(rc, b, "pcie_rx_kbps", _("memory use with PCIe throughput, link and utilisation"));
	return GD_VERDICT_CLEAR;
}
