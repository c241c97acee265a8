/*
 * rule_gpu_link.c - GPU link rules: gpu.pcie_link_degraded, gpu.pcie_replays,
 * gpu.nvlink_errors.  The clock, power and mode rules are in rule_gpu_hw.c.
 *
 * Mechanism.  A PCIe link trained below its width or generation cuts
 * host<->GPU bandwidth; replays (link-level retransmissions) show a marginal
 * link; NVLink counts replay/recovery/CRC/ECC errors per link.  Counters
 * are cumulative, so their rate over the window is what is judged.
 *
 * Evidence and thresholds (thresholds.def, all overridable):
 *   gpu.pcie_link_degraded  (NVML side) current width < max width or
 *       generation < max generation in a sample where utilisation >=
 *       busy_pct (20%): idle GPUs drop their link to Gen1 on purpose.
 *   gpu.pcie_replays  (NVML side) replay counter rate > per_min (0).
 *   gpu.nvlink_errors  NVLink error counters rising faster than per_min (0),
 *       or fewer links up than on a sibling of the same model (boards
 *       without bridges report every link down, and bridged PCIe boards use
 *       fewer links than NVML lists: both are normal when all GPUs agree).
 *
 * Worked example: gpu1 at 87% utilisation on a link trained at Gen4 x8 of
 * Gen4 x16 -> "gpu1 is busy (87%) but its PCIe link runs at Gen4 x8 of Gen4
 * x16: 50% of its bandwidth" (busy 87 >= busy_pct 20, width 8 < 16).
 */
#include "rules/rule_gpu.h"

/* ---- gpu.pcie_link_degraded -------------------------------------------- */

/* What each side of a shared rule found; the kernel-log side (issue 4)
 * adds its own and the rule merges them. */
struct side {
	size_t judged, fired;
	char why[160];
};

/* NVML side: a busy sample whose link runs below its width or generation. */
static void pcie_degraded_from_nvml(struct gd_rule_ctx *rc, struct gd_findings *out, struct side *sd)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	const double busy = rc->th->v[GD_TH_GPU_PCIE_BUSY_PCT];
	size_t idle = 0;
	char from[64];

	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		const struct gd_gpu *bad = NULL;
		size_t busy_samples = 0;
		struct gd_finding *f;
		double cur, max;

		if (!gpu_live(g))
			continue;
		for (size_t i = 0; i < rc->w->n; i++) {
			const struct gd_gpu *x = gpu_match(rc->w->snaps[i], g);

			if (!x || !x->util_gpu_pct.ok || !x->pcie_gen.ok || !x->pcie_gen_max.ok || !x->pcie_width.ok ||
			    !x->pcie_width_max.ok)
				continue;
			if ((double)x->util_gpu_pct.v < busy) {
				idle++;
				continue;
			}
			busy_samples++;
			if (x->pcie_width.v < x->pcie_width_max.v || x->pcie_gen.v < x->pcie_gen_max.v)
				bad = x;
		}
		if (!busy_samples)
			continue;
		sd->judged++;
		if (!bad)
			continue;
		sd->fired++;
		cur = gpu_pcie_mb_per_s(bad->pcie_gen.v, bad->pcie_width.v);
		max = gpu_pcie_mb_per_s(bad->pcie_gen_max.v, bad->pcie_width_max.v);
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", gpu_name(g).s);
		gd_finding_summary(f, "%s is busy (%llu%%) but its PCIe link runs at Gen%llu x%llu of Gen%llu x%llu%s%.0f%s.",
				   gpu_name(g).s, (unsigned long long)bad->util_gpu_pct.v,
				   (unsigned long long)bad->pcie_gen.v, (unsigned long long)bad->pcie_width.v,
				   (unsigned long long)bad->pcie_gen_max.v, (unsigned long long)bad->pcie_width_max.v,
				   cur > 0 && max > 0 ? ": " : "", cur > 0 && max > 0 ? 100.0 * cur / max : 0.0,
				   cur > 0 && max > 0 ? "% of its bandwidth" : "");
		gd_finding_remedy(f, "Reseat the card, check its riser, cable and slot, and the BIOS PCIe settings "
				  "(lspci -vv -s %s shows LnkSta against LnkCap; nvidia-smi -q -d PCIE).",
				  g->pci_bus_id[0] ? g->pci_bus_id : "<bus id>");
		gd_finding_ev(f, "pcie_gen", (double)bad->pcie_gen.v, "", (double)bad->pcie_gen_max.v);
		gd_finding_ev(f, "pcie_gen_max", (double)bad->pcie_gen_max.v, "", NAN);
		gd_finding_ev(f, "pcie_width", (double)bad->pcie_width.v, "lanes", (double)bad->pcie_width_max.v);
		gd_finding_ev(f, "pcie_width_max", (double)bad->pcie_width_max.v, "lanes", NAN);
		gd_finding_ev(f, "util_gpu_pct", (double)bad->util_gpu_pct.v, "%", busy);
		if (cur > 0 && max > 0)
			gd_finding_ev(f, "bandwidth_pct", 100.0 * cur / max, "%", NAN);
	}
	if (!sd->judged && idle)
		snprintf(sd->why, sizeof sd->why, "no GPU was busy (>= %.0f%% utilisation): idle links drop their "
			 "speed on purpose", busy);
	else if (!sd->judged)
		snprintf(sd->why, sizeof sd->why, "no PCIe link generation and width %s",
			 gpu_evidence_from(b, from, sizeof from));
}

enum gd_verdict gd_rule_gpu_pcie_link_degraded_nvml(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	struct side nv = { 0, 0, "" };
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	pcie_degraded_from_nvml(rc, out, &nv);
	if (nv.fired)
		return GD_VERDICT_FIRED;
	if (!nv.judged)
		return gd_rule_unknown(rc, "%s", nv.why);
	return GD_VERDICT_CLEAR;
}

/* ---- gpu.pcie_replays -------------------------------------------------- */

/* NVML side: the replay counter over the window. */
static void pcie_replays_from_nvml(struct gd_rule_ctx *rc, struct gd_findings *out, struct side *sd)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	const double th = rc->th->v[GD_TH_GPU_PCIE_REPLAYS_PER_MIN];
	char from[64];

	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		struct gd_finding *f;
		double rate;
		uint64_t d;

		if (!gpu_live(g) || !gpu_counter_rate(rc->w, g, offsetof(struct gd_gpu, pcie_replays), &rate, &d))
			continue;
		sd->judged++;
		if (!(rate * 60 > th))
			continue;
		sd->fired++;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", gpu_name(g).s);
		gd_finding_summary(f, "%s's PCIe link replayed %llu times in the window (%.1f per minute; %llu since the "
				   "driver loaded): a marginal link.", gpu_name(g).s, (unsigned long long)d, rate * 60,
				   (unsigned long long)g->pcie_replays.v);
		gd_finding_ev(f, "replays_per_min", rate * 60, "1/min", th);
		gd_finding_ev(f, "replays", (double)d, "replays", NAN);
		gd_finding_ev(f, "pcie_replays", (double)g->pcie_replays.v, "replays", NAN);
	}
	if (!sd->judged)
		snprintf(sd->why, sizeof sd->why, "no PCIe replay counter in two samples %s",
			 gpu_evidence_from(b, from, sizeof from));
}

enum gd_verdict gd_rule_gpu_pcie_replays_nvml(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	struct side nv = { 0, 0, "" };
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	pcie_replays_from_nvml(rc, out, &nv);
	if (nv.fired)
		return GD_VERDICT_FIRED;
	if (!nv.judged)
		return gpu_field_unknown(rc, b, "pcie_replays", "PCIe replay counter in two samples");
	return GD_VERDICT_CLEAR;
}

/* ---- gpu.nvlink_errors ------------------------------------------------- */

/* Most links up on a GPU of the same model, itself included (bridged
 * boards come in sets). */
static uint64_t sibling_up(const struct gd_snapshot *s, const struct gd_gpu *g)
{
	uint64_t most = 0;

	GD_VEC_EACH(s->gpus, const struct gd_gpu, x) {
		if (strcmp(x->name, g->name) == 0 && x->nvlink_up_links.ok && x->nvlink_up_links.v > most)
			most = x->nvlink_up_links.v;
	}
	return most;
}

enum gd_verdict gd_rule_gpu_nvlink_errors(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	const double th = rc->th->v[GD_TH_GPU_NVLINK_ERRORS_PER_MIN];
	size_t judged = 0, fired = 0;
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		bool have_rate, have_links, rising, down;
		struct gd_finding *f;
		double rate = 0;
		uint64_t d = 0;

		if (!gpu_live(g))
			continue;
		have_rate = gpu_counter_rate(rc->w, g, offsetof(struct gd_gpu, nvlink_errors), &rate, &d);
		have_links = g->nvlink_links.ok && g->nvlink_up_links.ok && g->nvlink_links.v > 0;
		if (!have_rate && !have_links)
			continue;
		judged++;
		rising = have_rate && rate * 60 > th;
		down = have_links && g->nvlink_up_links.v < sibling_up(b, g);
		if (!rising && !down)
			continue;
		fired++;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", gpu_name(g).s);
		if (down && rising)
			gd_finding_summary(f, "%s has %llu of %llu NVLink links up (a sibling of the same model has %llu), "
					   "and its NVLink error counters rose by %llu (%.1f per minute).", gpu_name(g).s,
					   (unsigned long long)g->nvlink_up_links.v, (unsigned long long)g->nvlink_links.v,
					   (unsigned long long)sibling_up(b, g), (unsigned long long)d, rate * 60);
		else if (down)
			gd_finding_summary(f, "%s has %llu of %llu NVLink links up (a sibling of the same model has %llu).",
					   gpu_name(g).s, (unsigned long long)g->nvlink_up_links.v,
					   (unsigned long long)g->nvlink_links.v, (unsigned long long)sibling_up(b, g));
		else
			gd_finding_summary(f, "%s's NVLink error counters (replay, recovery, CRC, ECC) rose by %llu in the "
					   "window: %.1f per minute.", gpu_name(g).s, (unsigned long long)d, rate * 60);
		gd_finding_remedy(f, "Check the NVLink state and counters (nvidia-smi nvlink -s -i %llu; nvidia-smi "
				  "nvlink -e -i %llu), reseat the bridge or check the baseboard, and schedule "
				  "maintenance.", (unsigned long long)g->index.v, (unsigned long long)g->index.v);
		if (have_rate) {
			gd_finding_ev(f, "nvlink_errors_per_min", rate * 60, "1/min", th);
			gd_finding_ev(f, "nvlink_errors_new", (double)d, "errors", NAN);
		}
		if (have_links) {
			gd_finding_ev(f, "nvlink_up_links", (double)g->nvlink_up_links.v, "links",
				      (double)sibling_up(b, g));
			gd_finding_ev(f, "nvlink_links", (double)g->nvlink_links.v, "links", NAN);
		}
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (!judged)
		return gpu_field_unknown(rc, b, "nvlink_links", "NVLink state or error counters");
	return GD_VERDICT_CLEAR;
}
