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
 *   gpu.pcie_link_degraded  (NVML side) current width < max width in any
 *       sample (a link keeps its width when the GPU idles: x8 of x16 is a
 *       fault busy or not), or generation < max generation in a sample
 *       where utilisation >= busy_pct (20%): idle GPUs drop their link to
 *       Gen1 on purpose.  A generation below with no utilisation to judge
 *       it by (a fragment) is an info finding asking for a reading under
 *       load.  (PCI side) lspci -vv / sysfs: LnkSta width below LnkCap's,
 *       or marked "(downgraded)", is degraded ("a PCIe device" for a
 *       fragment without its header); speed alone below, at full width, is
 *       info, never a warning.
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
#include "rules/rule_gpu_pci.h"

/* ---- gpu.pcie_link_degraded -------------------------------------------- */

/* What each side of a shared rule found; the kernel-log side (issue 4)
 * adds its own and the rule merges them. */
struct side {
	size_t judged, fired;
	char why[160];
};

/* "Gen4 x8 of Gen4 x16" / "x8 of x16" / "Gen1 of Gen4": what of the link is known. */
static void link_text(char *buf, size_t n, const struct gd_u64 *gen, const struct gd_u64 *gen_max,
		      const struct gd_u64 *width, const struct gd_u64 *width_max)
{
	bool g = gen->ok && gen_max->ok, w = width->ok && width_max->ok;

	if (g && w)
		/* TRANSLATORS: a link's state against its capability, said in "gpu1's
		 * PCIe link runs at <this>" */
		snprintf(buf, n, _("Gen%llu x%llu of Gen%llu x%llu"), (unsigned long long)gen->v,
			 (unsigned long long)width->v, (unsigned long long)gen_max->v, (unsigned long long)width_max->v);
	else if (w)
		snprintf(buf, n, _("x%llu of x%llu"), (unsigned long long)width->v, (unsigned long long)width_max->v);
	else if (g)
		snprintf(buf, n, _("Gen%llu of Gen%llu"), (unsigned long long)gen->v, (unsigned long long)gen_max->v);
	else
		snprintf(buf, n, "%s", _("below its capability"));
}

/* The info finding for a link whose speed alone is below its capability
 * with nothing to say whether the GPU was busy: what an idle link shows.
 * name is the subject as the summary says it (translated). */
static struct gd_finding *speed_only_info(struct gd_rule_ctx *rc, struct gd_findings *out, const char *subject,
					  const char *name, const char *link, const char *bus)
{
	struct gd_finding *f = gd_finding_add(rc, out, GD_SEV_INFO, "%s", subject);

	gd_finding_summary(f, _("%s's PCIe link runs at %s at full width: a link drops its speed when the GPU idles, on "
				"purpose, so this is not a fault unless it stays so under load; whether the GPU was busy "
				"is not known."), name, link);
	/* TRANSLATORS: <bus id> stands for the GPU's PCI address in a command line */
	gd_finding_remedy(f, _("Read the link again while the job runs (nvidia-smi -q -d PCIE,UTILIZATION, or lspci -vv "
			       "-s %s under load); only a link below its speed while busy, or below its width at any "
			       "time, is degraded."), bus[0] ? bus : _("<bus id>"));
	return f;
}

/* NVML side: a link below its width in any sample (width does not drop
 * when a GPU idles), or below its generation in a busy one; a generation
 * below with no utilisation to judge it by is an info finding. */
static void pcie_degraded_from_nvml(struct gd_rule_ctx *rc, struct gd_findings *out, struct side *sd)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	const double busy = rc->th->v[GD_TH_GPU_PCIE_BUSY_PCT];
	const char *smi = gpu_offline_source(b);
	size_t idle = 0;

	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		const struct gd_gpu *bad = NULL, *slow = NULL;
		size_t busy_samples = 0;
		struct gd_finding *f;
		double cur, max;
		char link[64];

		if (!gpu_live(g))
			continue;
		for (size_t i = 0; i < rc->w->n; i++) {
			const struct gd_gpu *x = gpu_match(rc->w->snaps[i], g);
			bool gen = x && x->pcie_gen.ok && x->pcie_gen_max.ok;

			if (!x)
				continue;
			if (x->pcie_width.ok && x->pcie_width_max.ok && x->pcie_width.v < x->pcie_width_max.v)
				bad = x;
			if (!gen)
				continue;
			if (!x->util_gpu_pct.ok) {
				/* "at full width": a width below is bad above */
				if (x->pcie_gen.v < x->pcie_gen_max.v && x->pcie_width.ok && x->pcie_width_max.ok)
					slow = x;
				continue;
			}
			if ((double)x->util_gpu_pct.v < busy) {
				idle++;
				continue;
			}
			busy_samples++;
			if (x->pcie_gen.v < x->pcie_gen_max.v && !bad)
				bad = x;
		}
		if (!busy_samples && !bad) {
			if (slow) {
				sd->fired++;
				link_text(link, sizeof link, &slow->pcie_gen, &slow->pcie_gen_max, &slow->pcie_width,
					  &slow->pcie_width_max);
				f = speed_only_info(rc, out, gpu_name(g).s, gpu_name(g).s, link, g->pci_bus_id);
				gd_finding_ev(f, "pcie_gen", (double)slow->pcie_gen.v, "", (double)slow->pcie_gen_max.v);
				gd_finding_ev(f, "pcie_width", (double)slow->pcie_width.v, "lanes",
					      (double)slow->pcie_width_max.v);
			}
			continue;
		}
		sd->judged++;
		if (!bad)
			continue;
		sd->fired++;
		link_text(link, sizeof link, &bad->pcie_gen, &bad->pcie_gen_max, &bad->pcie_width, &bad->pcie_width_max);
		cur = bad->pcie_gen.ok ? gpu_pcie_mb_per_s(bad->pcie_gen.v, bad->pcie_width.v) : 0;
		max = bad->pcie_gen_max.ok ? gpu_pcie_mb_per_s(bad->pcie_gen_max.v, bad->pcie_width_max.v) : 0;
		if (!(cur > 0 && max > 0) && bad->pcie_width.ok && bad->pcie_width_max.ok && bad->pcie_width_max.v &&
		    (!bad->pcie_gen.ok || !bad->pcie_gen_max.ok || bad->pcie_gen.v == bad->pcie_gen_max.v)) {
			cur = (double)bad->pcie_width.v; /* the same speed: the lanes' share */
			max = (double)bad->pcie_width_max.v;
		}
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", gpu_name(g).s);
		if (bad->util_gpu_pct.ok && (double)bad->util_gpu_pct.v >= busy && cur > 0 && max > 0)
			/* TRANSLATORS: the link's state (Gen4 x8 of Gen4 x16) and the share of its
			 * bandwidth; where that share is not known the English has a stray "0"
			 * after the link (kept: the English output may not change with this
			 * work): leave it out of the translation */
			gd_finding_summary(f, _("%s is busy (%llu%%) but its PCIe link runs at %s: %.0f%% of its "
						"bandwidth."), gpu_name(g).s, (unsigned long long)bad->util_gpu_pct.v, link,
					   100.0 * cur / max);
		else if (bad->util_gpu_pct.ok && (double)bad->util_gpu_pct.v >= busy)
			gd_finding_summary(f, _("%s is busy (%llu%%) but its PCIe link runs at %s0."), gpu_name(g).s,
					   (unsigned long long)bad->util_gpu_pct.v, link);
		else if (cur > 0 && max > 0)
			gd_finding_summary(f, _("%s's PCIe link runs at %s: %.0f%% of its bandwidth: a link keeps its width "
						"when the GPU idles, so it trained narrow (a seating, riser or slot fault)."),
					   gpu_name(g).s, link, 100.0 * cur / max);
		else
			gd_finding_summary(f, _("%s's PCIe link runs at %s0: a link keeps its width when the GPU idles, so "
						"it trained narrow (a seating, riser or slot fault)."), gpu_name(g).s, link);
		gd_finding_remedy(f, _("Reseat the card, check its riser, cable and slot, and the BIOS PCIe settings "
				       "(lspci -vv -s %s shows LnkSta against LnkCap; nvidia-smi -q -d PCIE)."),
				  g->pci_bus_id[0] ? g->pci_bus_id : _("<bus id>"));
		if (bad->pcie_gen.ok)
			gd_finding_ev(f, "pcie_gen", (double)bad->pcie_gen.v, "",
				      bad->pcie_gen_max.ok ? (double)bad->pcie_gen_max.v : NAN);
		if (bad->pcie_gen_max.ok)
			gd_finding_ev(f, "pcie_gen_max", (double)bad->pcie_gen_max.v, "", NAN);
		if (bad->pcie_width.ok)
			gd_finding_ev(f, "pcie_width", (double)bad->pcie_width.v, "lanes",
				      bad->pcie_width_max.ok ? (double)bad->pcie_width_max.v : NAN);
		if (bad->pcie_width_max.ok)
			gd_finding_ev(f, "pcie_width_max", (double)bad->pcie_width_max.v, "lanes", NAN);
		if (bad->util_gpu_pct.ok)
			gd_finding_ev(f, "util_gpu_pct", (double)bad->util_gpu_pct.v, "%", busy);
		if (cur > 0 && max > 0)
			gd_finding_ev(f, "bandwidth_pct", 100.0 * cur / max, "%", NAN);
	}
	if (!sd->judged && !sd->fired && idle)
		snprintf(sd->why, sizeof sd->why, _("no GPU was busy (>= %.0f%% utilisation): idle links drop their "
						    "speed on purpose"), busy);
	else if (!sd->judged && !sd->fired && smi)
		/* TRANSLATORS: %s names the nvidia-smi output the user gave (nvidia-smi -q) */
		snprintf(sd->why, sizeof sd->why, _("no PCIe link generation and width in the %s output"), smi);
	else if (!sd->judged && !sd->fired)
		snprintf(sd->why, sizeof sd->why, "%s", _("no PCIe link generation and width from NVML"));
}

/* PCI side (lspci -vv, sysfs): LnkSta below LnkCap in width, or marked
 * "(downgraded)" in width, is degraded; speed alone below, at full width,
 * is what an idle link shows: an info finding (lspci readings only), never
 * a warning.  A record whose width is not known to be full or narrow says
 * nothing.  GPUs NVML gives a link for are judged by the NVML side. */
static void pcie_degraded_from_pci(struct gd_rule_ctx *rc, struct gd_findings *out, struct side *sd)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	bool lspci = false;

	if (!b)
		return;
	GD_VEC_EACH(b->sources, const struct gd_source, src)
		lspci = lspci || strcmp(src->name, "offline:lspci") == 0;
	GD_VEC_EACH(b->pci_gpus, const struct gd_pci_gpu, p) {
		const struct gd_gpu *nv = gpci_nvml_gpu(b, p->pci_bus_id);
		bool marks = p->link_downgraded.ok, narrow, full, slow;
		char subject[64], name[96], link[96];
		struct gd_finding *f;

		if (nv && nv->pcie_width.ok && nv->pcie_width_max.ok)
			continue;
		narrow = p->link_width.ok && ((p->link_width_max.ok && p->link_width.v < p->link_width_max.v) ||
					      (marks && (p->link_downgraded.v & 2)));
		full = p->link_width.ok && !narrow && (p->link_width_max.ok || marks);
		slow = p->link_speed_gts.ok &&
		       ((p->link_speed_max_gts.ok && p->link_speed_gts.v + 0.01 < p->link_speed_max_gts.v) ||
			(marks && (p->link_downgraded.v & 1)));
		if (!narrow && !full)
			continue;
		/* the subject (a label value: never translated), and the same as a
		 * summary says it */
		if (p->pci_bus_id[0]) {
			snprintf(subject, sizeof subject, "gpu at %s", p->pci_bus_id);
			/* TRANSLATORS: a GPU NVML does not name, by its PCI address, as the subject of a summary */
			snprintf(name, sizeof name, _("gpu at %s"), p->pci_bus_id);
		} else {
			snprintf(subject, sizeof subject, "a PCIe device");
			/* TRANSLATORS: an lspci fragment's device (no address), as the subject of a summary */
			snprintf(name, sizeof name, "%s", _("a PCIe device"));
		}
		if (full && slow) {
			if (lspci) {
				sd->fired++;
				if (p->link_speed_max_gts.ok)
					/* TRANSLATORS: said in "<gpu>'s PCIe link runs at <this> at full width" */
					snprintf(link, sizeof link, _("%.4g of %.4g GT/s (x%llu)"), p->link_speed_gts.v,
						 p->link_speed_max_gts.v, (unsigned long long)p->link_width.v);
				else
					snprintf(link, sizeof link, _("%.4g GT/s, marked downgraded (x%llu)"),
						 p->link_speed_gts.v, (unsigned long long)p->link_width.v);
				f = speed_only_info(rc, out, subject, name, link, p->pci_bus_id);
				gd_finding_ev(f, "link_speed_gts", p->link_speed_gts.v, "GT/s",
					      p->link_speed_max_gts.ok ? p->link_speed_max_gts.v : NAN);
				gd_finding_ev(f, "link_width", (double)p->link_width.v, "lanes",
					      p->link_width_max.ok ? (double)p->link_width_max.v : NAN);
			}
			continue;
		}
		sd->judged++;
		if (!narrow)
			continue;
		sd->fired++;
		if (p->link_width_max.ok)
			/* TRANSLATORS: said in "<gpu>'s PCIe link runs at <this>" */
			snprintf(link, sizeof link, _("x%llu of x%llu lanes"), (unsigned long long)p->link_width.v,
				 (unsigned long long)p->link_width_max.v);
		else
			snprintf(link, sizeof link, _("x%llu lanes, marked downgraded by lspci (the device has more)"),
				 (unsigned long long)p->link_width.v);
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", subject);
		gd_finding_summary(f, _("%s's PCIe link runs at %s: a link keeps its width when the GPU idles, so "
					"it trained narrow (a seating, riser or slot fault)."), name, link);
		gd_finding_remedy(f, _("Reseat the card, check its riser, cable and slot, and the BIOS PCIe settings "
				       "(lspci -vv -s %s shows LnkSta against LnkCap)."),
				  p->pci_bus_id[0] ? p->pci_bus_id : _("<bus id>"));
		gd_finding_ev(f, "link_width", (double)p->link_width.v, "lanes",
			      p->link_width_max.ok ? (double)p->link_width_max.v : NAN);
		if (p->link_width_max.ok)
			gd_finding_ev(f, "link_width_max", (double)p->link_width_max.v, "lanes", NAN);
		if (p->link_speed_gts.ok)
			gd_finding_ev(f, "link_speed_gts", p->link_speed_gts.v, "GT/s",
				      p->link_speed_max_gts.ok ? p->link_speed_max_gts.v : NAN);
		if (p->link_speed_max_gts.ok)
			gd_finding_ev(f, "link_speed_max_gts", p->link_speed_max_gts.v, "GT/s", NAN);
		if (marks)
			gd_finding_ev_text(f, "lspci_marks", (p->link_downgraded.v & 3) == 3 ? "speed,width downgraded"
							  : p->link_downgraded.v & 2 ? "width downgraded"
							  : p->link_downgraded.v & 1 ? "speed downgraded" : "ok");
	}
}

enum gd_verdict gd_rule_gpu_pcie_link_degraded_nvml(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	struct side nv = { 0, 0, "" }, pci = { 0, 0, "" };
	enum gd_verdict v;

	pcie_degraded_from_pci(rc, out, &pci);
	if (!pci.fired && gpu_none(rc, b, &v))
		return pci.judged ? GD_VERDICT_CLEAR : v;
	if (b && b->gpus.n)
		pcie_degraded_from_nvml(rc, out, &nv);
	if (nv.fired || pci.fired)
		return GD_VERDICT_FIRED;
	if (!nv.judged && !pci.judged)
		return gd_rule_unknown(rc, "%s", nv.why[0] ? nv.why : _("no PCIe link reading"));
	return GD_VERDICT_CLEAR;
}

/* ---- gpu.pcie_replays -------------------------------------------------- */

/* NVML side: the replay counter over the window. */
static void pcie_replays_from_nvml(struct gd_rule_ctx *rc, struct gd_findings *out, struct side *sd)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	const double th = rc->th->v[GD_TH_GPU_PCIE_REPLAYS_PER_MIN];
	const char *smi = gpu_offline_source(b);

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
		gd_finding_summary(f, _("%s's PCIe link replayed %llu times in the window (%.1f per minute; %llu since the "
					"driver loaded): a marginal link."), gpu_name(g).s, (unsigned long long)d, rate * 60,
				   (unsigned long long)g->pcie_replays.v);
		gd_finding_ev(f, "replays_per_min", rate * 60, "1/min", th);
		gd_finding_ev(f, "replays", (double)d, "replays", NAN);
		gd_finding_ev(f, "pcie_replays", (double)g->pcie_replays.v, "replays", NAN);
	}
	if (!sd->judged && smi)
		/* TRANSLATORS: %s names the nvidia-smi output the user gave (nvidia-smi -q) */
		snprintf(sd->why, sizeof sd->why, _("no PCIe replay counter in two samples in the %s output"), smi);
	else if (!sd->judged)
		snprintf(sd->why, sizeof sd->why, "%s", _("no PCIe replay counter in two samples from NVML"));
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
		return gpu_field_unknown(rc, b, "pcie_replays", _("PCIe replay counter in two samples"));
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

/* True when no other GPU of g's model is in s: siblings cannot say how
 * many links it should have up. */
static bool lone_model(const struct gd_snapshot *s, const struct gd_gpu *g)
{
	GD_VEC_EACH(s->gpus, const struct gd_gpu, x)
		if (x != g && strcmp(x->name, g->name) == 0)
			return false;
	return true;
}

/* The counters of `nvidia-smi nvlink -e` read once (an offline snapshot):
 * errors since they were last reset, no rate: info. */
static void nvlink_count_once(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_gpu *g)
{
	struct gd_finding *f = gd_finding_add(rc, out, GD_SEV_INFO, "%s", gpu_name(g).s);

	gd_finding_summary(f, _("%s's NVLink links counted %llu errors (replay, recovery, CRC) since their counters were "
				"last reset; one reading gives no rate."),
			   gpu_name(g).s, (unsigned long long)g->nvlink_errors.v);
	gd_finding_remedy(f, _("Read the counters again a few minutes later under load (nvidia-smi nvlink -e -i %llu): "
			       "counters that keep rising mean a degrading link; reseat the bridge or check the "
			       "baseboard, and schedule maintenance."),
			  (unsigned long long)(g->index.ok ? g->index.v : 0));
	gd_finding_ev(f, "nvlink_errors", (double)g->nvlink_errors.v, "errors", NAN);
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
		bool have_rate, have_links, rising, down, lone = false;
		struct gd_finding *f;
		double rate = 0;
		uint64_t d = 0;

		if (!gpu_live(g))
			continue;
		have_rate = gpu_counter_rate(rc->w, g, offsetof(struct gd_gpu, nvlink_errors), &rate, &d);
		have_links = g->nvlink_links.ok && g->nvlink_up_links.ok && g->nvlink_links.v > 0;
		if (!have_rate && !have_links && !g->nvlink_errors.ok)
			continue;
		judged++;
		rising = have_rate && rate * 60 > th;
		down = have_links && g->nvlink_up_links.v < sibling_up(b, g);
		/* an SXM GPU with no sibling in the input: every link of an SXM
		 * board is wired, so some up and some not is a fault */
		if (have_links && !down && lone_model(b, g) && strstr(g->name, "SXM") && g->nvlink_up_links.v > 0 &&
		    g->nvlink_up_links.v < g->nvlink_links.v)
			down = lone = true;
		if (!rising && !down) {
			if (!have_rate && gd_window_first(rc->w) == b && g->nvlink_errors.ok && g->nvlink_errors.v > 0) {
				nvlink_count_once(rc, out, g);
				fired++;
			}
			continue;
		}
		fired++;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", gpu_name(g).s);
		if (down && rising)
			gd_finding_summary(f, _("%s has %llu of %llu NVLink links up (a sibling of the same model has %llu), "
						"and its NVLink error counters rose by %llu (%.1f per minute)."), gpu_name(g).s,
					   (unsigned long long)g->nvlink_up_links.v, (unsigned long long)g->nvlink_links.v,
					   (unsigned long long)sibling_up(b, g), (unsigned long long)d, rate * 60);
		else if (lone)
			gd_finding_summary(f, _("%s has %llu of %llu NVLink links up: an SXM board wires every link, so the "
						"others are down."),
					   gpu_name(g).s, (unsigned long long)g->nvlink_up_links.v,
					   (unsigned long long)g->nvlink_links.v);
		else if (down)
			gd_finding_summary(f, _("%s has %llu of %llu NVLink links up (a sibling of the same model has %llu)."),
					   gpu_name(g).s, (unsigned long long)g->nvlink_up_links.v,
					   (unsigned long long)g->nvlink_links.v, (unsigned long long)sibling_up(b, g));
		else
			gd_finding_summary(f, _("%s's NVLink error counters (replay, recovery, CRC, ECC) rose by %llu in the "
						"window: %.1f per minute."), gpu_name(g).s, (unsigned long long)d, rate * 60);
		gd_finding_remedy(f, _("Check the NVLink state and counters (nvidia-smi nvlink -s -i %llu; nvidia-smi "
				       "nvlink -e -i %llu), reseat the bridge or check the baseboard, and schedule "
				       "maintenance."), (unsigned long long)g->index.v, (unsigned long long)g->index.v);
		if (have_rate) {
			gd_finding_ev(f, "nvlink_errors_per_min", rate * 60, "1/min", th);
			gd_finding_ev(f, "nvlink_errors_new", (double)d, "errors", NAN);
		}
		if (have_links) {
			gd_finding_ev(f, "nvlink_up_links", (double)g->nvlink_up_links.v, "links",
				      (double)(lone ? g->nvlink_links.v : sibling_up(b, g)));
			gd_finding_ev(f, "nvlink_links", (double)g->nvlink_links.v, "links", NAN);
		}
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (!judged)
		return gpu_field_unknown(rc, b, "nvlink_links", _("NVLink state or error counters"));
	return GD_VERDICT_CLEAR;
}
