/*
 * rule_probe.c - the verdicts of gpudoctor probe, over the probe[] rows of
 * the window's last snapshot (the probe writes them; check --from reads
 * them back from its -o file and reaches the same findings).
 *
 * Expected figures come from the GPU's siblings first: the median of the
 * other GPUs of the same model in the same run (a node of eight identical
 * GPUs needs no table to see that one burns 1.4x slower: 71% of the
 * others' median fires below 85%).  PCIe copies are judged against what
 * the trained link carries: raw payload per lane x width x 78% (measured
 * pinned copies reach 76-87% of the raw rate, PROBES.md §4.1), and the SKU
 * table's host link where the GPU is known.  A hand-written compute kernel's
 * share of the datasheet is not known before it is measured on a real GPU:
 * the SKU table (probe/sku.h, data/probe-sku.ini) gives a compute or
 * memory-bandwidth figure (row sku_expected) only once that share is in it,
 * and only a GPU without siblings is judged by it; without one, a lone GPU
 * says it is judged against siblings only.
 *
 * Example: gpu3 h2d 13.1 GB/s on a Gen5 x16 link: expected 63.0 x 0.78 =
 * 49.1 GB/s; 27% < 70% fires probe.pcie_bandwidth_low.
 */
#include "rules/rules.h"
#include "rules/rule_probe.h"

#include "core/i18n.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const NO_PROBE = N_("no probe results in the input: run gpudoctor probe");

double gd_pcie_lane_gbps(unsigned gen)
{
	static const double lane[] = { 0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.877 };

	return gen < sizeof lane / sizeof lane[0] ? lane[gen] : 0;
}

static const struct gd_snapshot *probe_snap(const struct gd_rule_ctx *rc)
{
	const struct gd_snapshot *s = gd_window_last(rc->w);

	return s && s->probe.n ? s : NULL;
}

static bool is(const struct gd_probe_row *r, const char *probe)
{
	return strcmp(r->probe, probe) == 0;
}

static bool ok(const struct gd_probe_row *r)
{
	return strcmp(r->status, "ok") == 0 && r->achieved.ok;
}

static const char *model_of(const struct gd_snapshot *s, const struct gd_probe_row *r)
{
	if (r->gpu.ok)
		GD_VEC_EACH(s->gpus, const struct gd_gpu, g)
			if (g->index.ok && g->index.v == r->gpu.v)
				return g->name;
	return "";
}

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* Median of the achieved figures of the same probe on the other GPUs of
 * the same model (p2p: every other pair); *n says how many. */
static double sibling_median(const struct gd_snapshot *s, const struct gd_probe_row *row, size_t *n)
{
	double *v = calloc(s->probe.n + 1, sizeof *v), med = NAN;
	const char *model = model_of(s, row);

	*n = 0;
	if (!v)
		return NAN;
	GD_VEC_EACH(s->probe, const struct gd_probe_row, r) {
		if (r == row || !ok(r) || strcmp(r->probe, row->probe) != 0)
			continue;
		if (!is(row, "p2p") && (strcmp(model_of(s, r), model) != 0 || (r->gpu.ok && row->gpu.ok && r->gpu.v == row->gpu.v)))
			continue;
		v[(*n)++] = r->achieved.v;
	}
	if (*n) {
		qsort(v, *n, sizeof *v, cmp_dbl);
		med = *n % 2 ? v[*n / 2] : (v[*n / 2 - 1] + v[*n / 2]) / 2;
	}
	free(v);
	return med;
}

static bool pcie_row(const struct gd_probe_row *r)
{
	return is(r, "h2d") || is(r, "d2h") || is(r, "h2d_all") || is(r, "d2h_all");
}

bool gd_probe_expected(const struct gd_snapshot *s, const struct gd_probe_row *row, double *value, char *from,
		       size_t size)
{
	size_t n;
	double med;

	if (pcie_row(row) && row->link_gen.ok && row->link_width.ok && gd_pcie_lane_gbps((unsigned)row->link_gen.v) > 0) {
		*value = gd_pcie_lane_gbps((unsigned)row->link_gen.v) * (double)row->link_width.v * GD_PROBE_PCIE_REACHED;
		snprintf(from, size, _("link Gen%llu x%llu"), (unsigned long long)row->link_gen.v,
			 (unsigned long long)row->link_width.v);
		return true;
	}
	if (pcie_row(row) && row->sku_expected.ok) {
		*value = row->sku_expected.v;
		snprintf(from, size, "%s", _("SKU table"));
		return true;
	}
	if (is(row, "mem_pattern"))
		return false;
	med = sibling_median(s, row, &n);
	if (!n && row->sku_expected.ok && !is(row, "p2p")) {
		*value = row->sku_expected.v;
		snprintf(from, size, "%s", _("SKU table"));
		return true;
	}
	if (!n)
		return false;
	*value = med;
	if (is(row, "p2p"))
		snprintf(from, size, _("median of %zu other pairs"), n);
	else
		snprintf(from, size, P_("median of %zu sibling", "median of %zu siblings", n), n);
	return true;
}

static struct gd_finding *add(struct gd_rule_ctx *rc, struct gd_findings *out, enum gd_severity sev,
			      const struct gd_probe_row *r)
{
	if (is(r, "p2p") && r->peer.ok)
		return gd_finding_add(rc, out, sev, "gpu%llu -> gpu%llu", (unsigned long long)r->gpu.v,
				      (unsigned long long)r->peer.v);
	if (r->gpu.ok)
		return gd_finding_add(rc, out, sev, "gpu%llu (%s) %s", (unsigned long long)r->gpu.v, r->pci_bus_id, r->probe);
	return gd_finding_add(rc, out, sev, "host");
}

/* What NVML saw at the end of a burn, as evidence. */
static void end_of_burn(struct gd_finding *f, const struct gd_probe_row *r)
{
	if (r->temp_c.ok)
		gd_finding_ev(f, "temp_end_of_burn", r->temp_c.v, "celsius", NAN);
	if (r->sm_clock_mhz.ok)
		gd_finding_ev(f, "sm_clock_end_of_burn", (double)r->sm_clock_mhz.v, "MHz", NAN);
	if (r->power_w.ok)
		gd_finding_ev(f, "power", r->power_w.v, "W", NAN);
}

/* Siblings' check shared by compute and memory bandwidth; a GPU without
 * siblings by its SKU figure where there is one. */
static enum gd_verdict vs_siblings(struct gd_rule_ctx *rc, struct gd_findings *out, const char *const *probes,
				   double pct)
{
	const struct gd_snapshot *s = probe_snap(rc);
	bool any = false, judged = false, fired = false;

	if (!s)
		return gd_rule_unknown(rc, "%s", _(NO_PROBE));
	GD_VEC_EACH(s->probe, const struct gd_probe_row, r) {
		size_t n;
		double med;
		bool mine = false;

		for (size_t i = 0; probes[i]; i++)
			mine = mine || is(r, probes[i]);
		if (!mine || !ok(r))
			continue;
		any = true;
		med = sibling_median(s, r, &n);
		if (!n && r->sku_expected.ok && r->sku_expected.v > 0) {
			/* no sibling: the SKU's figure, where our share of it is known */
			judged = true;
			if (r->achieved.v < r->sku_expected.v * pct / 100) {
				struct gd_finding *f = add(rc, out, GD_SEV_WARNING, r);

				gd_finding_summary(f, _("%s reached %.0f %s, %.0f%% of the %.0f %s the SKU table expects of this model "
							"(no same-model sibling to compare with)."),
						   r->probe, r->achieved.v, r->unit, 100 * r->achieved.v / r->sku_expected.v,
						   r->sku_expected.v, r->unit);
				gd_finding_ev(f, "achieved", r->achieved.v, r->unit, r->sku_expected.v * pct / 100);
				gd_finding_ev(f, "sku_expected", r->sku_expected.v, r->unit, NAN);
				gd_finding_ev(f, "pct_of_sku", 100 * r->achieved.v / r->sku_expected.v, "%", pct);
				end_of_burn(f, r);
				fired = true;
			}
			continue;
		}
		if (!n || !(med > 0))
			continue;
		judged = true;
		if (r->achieved.v < med * pct / 100) {
			struct gd_finding *f = add(rc, out, GD_SEV_WARNING, r);

			gd_finding_summary(f, P_("%s reached %.0f %s, %.0f%% of the median of its %zu same-model sibling (%.0f %s).",
						 "%s reached %.0f %s, %.0f%% of the median of its %zu same-model siblings (%.0f %s).",
						 n),
					   r->probe, r->achieved.v, r->unit, 100 * r->achieved.v / med, n, med, r->unit);
			gd_finding_ev(f, "achieved", r->achieved.v, r->unit, med * pct / 100);
			gd_finding_ev(f, "siblings_median", med, r->unit, NAN);
			gd_finding_ev(f, "pct_of_siblings", 100 * r->achieved.v / med, "%", pct);
			end_of_burn(f, r);
			fired = true;
		}
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (!any)
		return gd_rule_unknown(rc, _("no %s figure in the probe results (not run, or failed)"), probes[0]);
	if (!judged)
		return gd_rule_unknown(rc, _("one GPU of its model: %s is judged against siblings only (the datasheet "
					     "share of our kernels is not measured yet)"), probes[0]);
	return GD_VERDICT_CLEAR;
}

enum gd_verdict gd_rule_probe_gpu_compute_slow(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	static const char *const p[] = { "compute_fp32", "compute_bf16", NULL };

	return vs_siblings(rc, out, p, rc->th->v[GD_TH_PROBE_COMPUTE_SIBLING_PCT]);
}

enum gd_verdict gd_rule_probe_gpu_mem_bandwidth_low(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	static const char *const p[] = { "mem_bandwidth", NULL };

	return vs_siblings(rc, out, p, rc->th->v[GD_TH_PROBE_MEMBW_SIBLING_PCT]);
}

/* The digest most GPUs of r's model computed for r's probe, and how many. */
static const char *majority_digest(const struct gd_snapshot *s, const struct gd_probe_row *row, size_t *votes)
{
	const char *best = NULL;

	*votes = 0;
	GD_VEC_EACH(s->probe, const struct gd_probe_row, a) {
		size_t n = 0;

		if (!a->digest[0] || strcmp(a->probe, row->probe) != 0 || strcmp(model_of(s, a), model_of(s, row)) != 0)
			continue;
		GD_VEC_EACH(s->probe, const struct gd_probe_row, b)
			if (strcmp(b->probe, a->probe) == 0 && strcmp(b->digest, a->digest) == 0 &&
			    strcmp(model_of(s, b), model_of(s, row)) == 0)
				n++;
		if (n > *votes) {
			*votes = n;
			best = a->digest;
		}
	}
	return best;
}

enum gd_verdict gd_rule_probe_gpu_compute_mismatch(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *s = probe_snap(rc);
	bool any = false, fired = false;

	if (!s)
		return gd_rule_unknown(rc, "%s", _(NO_PROBE));
	GD_VEC_EACH(s->probe, const struct gd_probe_row, r) {
		size_t votes;
		const char *maj;
		bool differs;

		if (!is(r, "compute_fp32") && !is(r, "compute_bf16"))
			continue;
		if (!r->checked.ok && !r->digest[0])
			continue;
		any = true;
		maj = majority_digest(s, r, &votes);
		differs = r->digest[0] && maj && votes >= 2 && strcmp(maj, r->digest) != 0;
		if ((r->errors.ok && r->errors.v > 0) || differs) {
			struct gd_finding *f = add(rc, out, GD_SEV_CRITICAL, r);

			if (r->errors.ok && r->errors.v > 0)
				gd_finding_summary(f, _("The %s burn gave different results for the same inputs: %llu of %llu results "
							"differ from its first run."), r->probe, (unsigned long long)r->errors.v,
						   (unsigned long long)r->checked.v);
			else
				gd_finding_summary(f, _("The %s burn's results differ from those of %zu same-model GPUs given the same "
							"inputs."), r->probe, votes);
			if (r->errors.ok)
				gd_finding_ev(f, "results_differing", (double)r->errors.v, "", 0);
			if (r->checked.ok)
				gd_finding_ev(f, "results_compared", (double)r->checked.v, "", NAN);
			if (differs)
				gd_finding_ev_text(f, "digest_vs_siblings", r->digest);
			fired = true;
		}
	}
	if (fired)
		return GD_VERDICT_FIRED;
	return any ? GD_VERDICT_CLEAR : gd_rule_unknown(rc, "%s", _("no compute burn in the probe results"));
}

enum gd_verdict gd_rule_probe_gpu_hung(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *s = probe_snap(rc);
	bool fired = false;

	if (!s)
		return gd_rule_unknown(rc, "%s", _(NO_PROBE));
	GD_VEC_EACH(s->probe, const struct gd_probe_row, r) {
		struct gd_finding *f;

		if (strcmp(r->status, "hung") != 0)
			continue;
		f = add(rc, out, GD_SEV_CRITICAL, r);
		gd_finding_summary(f, _("The %s probe did not finish within its deadline; the probe's process was killed."),
				   r->probe);
		gd_finding_ev_text(f, "probe", r->probe);
		if (r->reason[0])
			gd_finding_ev_text(f, "reason", r->reason);
		fired = true;
	}
	return fired ? GD_VERDICT_FIRED : GD_VERDICT_CLEAR;
}

/* ECC uncorrected count of GPU idx rising from the first snapshot to the
 * last: the probe's window. */
static bool ecc_rise(const struct gd_window *w, uint64_t idx, uint64_t *d)
{
	const struct gd_snapshot *a = gd_window_first(w), *b = gd_window_last(w);
	const struct gd_gpu *ga = NULL, *gb = NULL;

	if (!a || !b || a == b)
		return false;
	GD_VEC_EACH(a->gpus, const struct gd_gpu, g)
		if (g->index.ok && g->index.v == idx)
			ga = g;
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g)
		if (g->index.ok && g->index.v == idx)
			gb = g;
	return ga && gb && gd_counter_delta(ga->ecc_uncorrected_volatile, gb->ecc_uncorrected_volatile, d) && *d > 0;
}

enum gd_verdict gd_rule_probe_gpu_memory_errors(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *s = probe_snap(rc);
	bool fired = false, any = false;
	uint64_t seen[64] = { 0 };

	if (!s)
		return gd_rule_unknown(rc, "%s", _(NO_PROBE));
	GD_VEC_EACH(s->probe, const struct gd_probe_row, r) {
		uint64_t d = 0;
		bool copy = pcie_row(r), ecc;
		struct gd_finding *f;

		if (!is(r, "mem_pattern") && !copy)
			continue;
		any = true;
		ecc = r->gpu.ok && r->gpu.v < 64 && !seen[r->gpu.v] && ecc_rise(rc->w, r->gpu.v, &d);
		if (!(r->errors.ok && r->errors.v > 0) && !ecc)
			continue;
		if (ecc)
			seen[r->gpu.v] = 1;
		f = add(rc, out, GD_SEV_CRITICAL, r);
		if (r->errors.ok && r->errors.v > 0)
			gd_finding_summary(f, copy ? _("%s copies came back altered: %llu of %llu words differ from what was written "
						       "(the link or the GPU's memory corrupts data).")
						   : _("The %s test read back what it did not write: %llu of %llu words wrong."),
					   r->probe, (unsigned long long)r->errors.v, (unsigned long long)r->checked.v);
		else
			gd_finding_summary(f, _("Uncorrectable ECC errors rose by %llu while the probe ran."), (unsigned long long)d);
		if (r->errors.ok)
			gd_finding_ev(f, "words_wrong", (double)r->errors.v, "", 0);
		if (r->checked.ok)
			gd_finding_ev(f, "words_checked", (double)r->checked.v, "", NAN);
		if (ecc)
			gd_finding_ev(f, "ecc_uncorrected_during_probe", (double)d, "", 0);
		fired = true;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	return any ? GD_VERDICT_CLEAR : gd_rule_unknown(rc, "%s", _("no memory pattern test or copy in the probe results"));
}

enum gd_verdict gd_rule_probe_pcie_bandwidth_low(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *s = probe_snap(rc);
	double link_pct = rc->th->v[GD_TH_PROBE_PCIE_LINK_PCT], sib_pct = rc->th->v[GD_TH_PROBE_PCIE_SIBLING_PCT];
	bool any = false, fired = false;

	if (!s)
		return gd_rule_unknown(rc, "%s", _(NO_PROBE));
	GD_VEC_EACH(s->probe, const struct gd_probe_row, r) {
		double exp = NAN, med;
		char from[64] = "";
		size_t n = 0;
		bool low_link, low_sib;
		struct gd_finding *f;

		if (!pcie_row(r) || !ok(r))
			continue;
		any = true;
		if (!gd_probe_expected(s, r, &exp, from, sizeof from))
			exp = NAN;
		med = is(r, "h2d") || is(r, "d2h") ? sibling_median(s, r, &n) : NAN;
		low_link = !isnan(exp) && r->achieved.v < exp * link_pct / 100;
		low_sib = n >= 2 && r->achieved.v < med * sib_pct / 100;
		if (!low_link && !low_sib)
			continue;
		f = add(rc, out, GD_SEV_WARNING, r);
		if (low_link)
			gd_finding_summary(f, _("%s copies ran at %.1f GB/s, %.0f%% of the %.1f GB/s the %s carries."), r->probe,
					   r->achieved.v, 100 * r->achieved.v / exp, exp, from);
		else
			gd_finding_summary(f, _("%s copies ran at %.1f GB/s, %.0f%% of the median of %zu siblings (%.1f GB/s)."),
					   r->probe, r->achieved.v, 100 * r->achieved.v / med, n, med);
		gd_finding_ev(f, "achieved", r->achieved.v, "GB/s", low_link ? exp * link_pct / 100 : med * sib_pct / 100);
		if (!isnan(exp))
			gd_finding_ev(f, "link_expected", exp, "GB/s", NAN);
		if (n)
			gd_finding_ev(f, "siblings_median", med, "GB/s", NAN);
		if (r->link_gen.ok)
			gd_finding_ev(f, "link_gen", (double)r->link_gen.v, "", NAN);
		if (r->link_width.ok)
			gd_finding_ev(f, "link_width", (double)r->link_width.v, "lanes", NAN);
		fired = true;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	return any ? GD_VERDICT_CLEAR : gd_rule_unknown(rc, "%s", _("no host<->device copy figure in the probe results"));
}

enum gd_verdict gd_rule_probe_p2p_bandwidth_low(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *s = probe_snap(rc);
	double pct = rc->th->v[GD_TH_PROBE_P2P_PCT];
	bool any = false, judged = false, fired = false;

	if (!s)
		return gd_rule_unknown(rc, "%s", _(NO_PROBE));
	GD_VEC_EACH(s->probe, const struct gd_probe_row, r) {
		size_t n;
		double med;
		struct gd_finding *f;

		if (!is(r, "p2p") || !ok(r))
			continue;
		any = true;
		med = sibling_median(s, r, &n);
		if (n < 2)
			continue;
		judged = true;
		if (r->achieved.v >= med * pct / 100)
			continue;
		f = add(rc, out, GD_SEV_WARNING, r);
		gd_finding_summary(f, _("Peer copies ran at %.1f GB/s, %.0f%% of the median of the node's %zu other pairs "
					"(%.1f GB/s)."), r->achieved.v, 100 * r->achieved.v / med, n, med);
		gd_finding_ev(f, "achieved", r->achieved.v, "GB/s", med * pct / 100);
		gd_finding_ev(f, "pairs_median", med, "GB/s", NAN);
		fired = true;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (!any)
		return gd_rule_unknown(rc, "%s", _("no peer copy in the probe results (one GPU, or no pair can reach another)"));
	return judged ? GD_VERDICT_CLEAR
		      : gd_rule_unknown(rc, "%s", _("fewer than three peer pairs: no median to judge by"));
}
