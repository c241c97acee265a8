/*
 * result.c - probe names, the child's shared results as probe[] rows of a
 * snapshot (the model the rules, -o, check --from and serve read), and the
 * probe phase each finding of a probe run was provoked by (result.h).
 */
#include "probe/result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "rules/episodes.h"

static const char *const pk_names[GD_PK_COUNT] = {
	"compute_fp32", "compute_bf16", "mem_bandwidth", "mem_pattern", "h2d", "d2h", "h2d_all", "d2h_all",
};

const char *gd_pk_name(int pk)
{
	if (pk >= 0 && pk < GD_PK_COUNT)
		return pk_names[pk];
	return pk == GD_PK_P2P ? "p2p" : pk == GD_PK_SETUP ? "setup" : "none";
}

int gd_pk_by_name(const char *name)
{
	for (int pk = 0; pk < GD_PK_COUNT; pk++)
		if (strcmp(name, pk_names[pk]) == 0)
			return pk;
	return strcmp(name, "p2p") == 0 ? GD_PK_P2P : GD_PK_NONE;
}

const char *gd_pk_unit(int pk)
{
	return pk == GD_PK_COMPUTE_FP32 || pk == GD_PK_COMPUTE_BF16 ? "GFLOP/s" : "GB/s";
}

const char *gd_pr_status_name(int st)
{
	static const char *const n[] = { "not_run", "running", "ok", "failed", "skipped", "hung" };

	return st >= 0 && st <= GD_PR_HUNG ? n[st] : "not_run";
}

static void fill(struct gd_probe_row *row, const struct gd_probe_res *r, const char *probe, const char *unit)
{
	GD_STRSET(row->probe, probe);
	GD_STRSET(row->unit, unit);
	GD_STRSET(row->status, gd_pr_status_name(r->status));
	if (r->status == GD_PR_OK || r->achieved > 0)
		gd_f64_set(&row->achieved, r->achieved);
	if (r->checked) {
		gd_u64_set(&row->errors, r->errors);
		gd_u64_set(&row->checked, r->checked);
	}
	if (r->digest)
		snprintf(row->digest, sizeof row->digest, "%016llx", (unsigned long long)r->digest);
	if (r->seconds > 0)
		gd_f64_set(&row->seconds, r->seconds);
	GD_STRSET(row->reason, r->reason);
}

size_t gd_probe_rows(const struct gd_probe_shm *shm, const int *nvml_index, double finished_s,
		     struct gd_snapshot *s)
{
	size_t before = s->probe.n;

	for (int i = 0; i < shm->ngpus; i++) {
		const struct gd_probe_gpu *g = &shm->gpu[i];

		for (int pk = 0; pk < GD_PK_COUNT; pk++) {
			struct gd_probe_row *row;

			if (!(shm->want & (1u << pk)))
				continue;
			if ((pk == GD_PK_H2D_ALL || pk == GD_PK_D2H_ALL) && shm->ngpus < 2)
				continue;
			row = GD_PUSH(s, probe, struct gd_probe_row);
			memset(row, 0, sizeof *row);
			gd_u64_set(&row->gpu, (uint64_t)nvml_index[i]);
			GD_STRSET(row->pci_bus_id, g->bus_id);
			fill(row, &g->res[pk], gd_pk_name(pk), gd_pk_unit(pk));
			if (g->res[pk].status == GD_PR_NOT_RUN && !row->reason[0] && g->error[0])
				GD_STRSET(row->reason, g->error);
			gd_f64_set(&row->finished_s, finished_s);
		}
		if (!(shm->want & GD_PROBE_WANT_P2P))
			continue;
		for (int j = 0; j < shm->ngpus; j++) {
			struct gd_probe_row *row;

			if (i == j || g->p2p[j].status == GD_PR_NOT_RUN)
				continue;
			row = GD_PUSH(s, probe, struct gd_probe_row);
			memset(row, 0, sizeof *row);
			gd_u64_set(&row->gpu, (uint64_t)nvml_index[i]);
			gd_u64_set(&row->peer, (uint64_t)nvml_index[j]);
			GD_STRSET(row->pci_bus_id, g->bus_id);
			fill(row, &g->p2p[j], "p2p", "GB/s");
			gd_f64_set(&row->finished_s, finished_s);
		}
	}
	return s->probe.n - before;
}

/* ---- phases ---------------------------------------------------------------- */

void gd_probe_phase_label(const struct gd_probe_shm *shm, const int *nvml_index, char *buf, size_t size)
{
	size_t len = 0;
	bool started = false;

	buf[0] = '\0';
	/* GPU phases in the order they run: the set-up, then the probes */
	for (int k = 0; k <= GD_PK_COUNT && len < size; k++) {
		int pk = k == 0 ? GD_PK_SETUP : k - 1, n = 0;
		uint64_t mask = 0;
		char gpus[64];
		int w;

		for (int i = 0; i < shm->ngpus; i++)
			if (shm->gpu[i].phase == pk) {
				n++;
				if (nvml_index[i] >= 0 && nvml_index[i] < GD_EP_MAX_GPUS)
					mask |= 1ull << nvml_index[i];
			}
		if (!n)
			continue;
		if (n < shm->ngpus)
			gd_ep_gpus_str(mask, gpus, sizeof gpus);
		w = snprintf(buf + len, size - len, "%s%s%s%s", len ? ", " : "", gd_pk_name(pk), n < shm->ngpus ? " " : "",
			     n < shm->ngpus ? gpus : "");
		len = w < 0 ? size : len + (size_t)w;
	}
	if (buf[0])
		return;
	if (shm->phase == GD_PK_P2P) {
		snprintf(buf, size, "%s", gd_pk_name(GD_PK_P2P));
		return;
	}
	/* the child's main thread is in set-up until the peer copies: only
	 * before any GPU has begun a probe is that what runs */
	for (int i = 0; i < shm->ngpus && !started; i++)
		for (int pk = 0; pk < GD_PK_COUNT; pk++)
			started = started || shm->gpu[i].res[pk].status != GD_PR_NOT_RUN;
	if (shm->phase == GD_PK_SETUP && !started)
		snprintf(buf, size, "%s", gd_pk_name(GD_PK_SETUP));
}

/* The rules whose evidence is the state of the GPUs and the host that load
 * brings out: heat, power, clocks, the links, memory errors, Xid.  The
 * others judge jobs and the software around them, which the probe's own
 * load would fool (the burn saturates a GPU on purpose, the memory test
 * fills it, the GPUs copy one at a time): for them no phase is named. */
static const char *const load_rules[] = {
	"gpu.thermal_throttle", "gpu.power_brake", "gpu.hw_slowdown", "gpu.power_capped", "gpu.clocks_held_low",
	"gpu.pcie_link_degraded", "gpu.pcie_replays", "gpu.nvlink_errors", "gpu.lost", "gpu.monitor_stuck",
	"gpu.reset_required", "gpu.ecc_uncorrectable", "gpu.ecc_correctable_rate", "gpu.row_remap_pending",
	"gpu.row_remap_failed", "gpu.xid", "host.cpu_thermal_throttle", "host.inlet_temp", "host.memory_errors",
};

static bool load_rule(const char *id)
{
	for (size_t i = 0; i < sizeof load_rules / sizeof load_rules[0]; i++)
		if (strcmp(id, load_rules[i]) == 0)
			return true;
	return false;
}

static bool same(const struct gd_finding *a, const struct gd_finding *b)
{
	return strcmp(a->id, b->id) == 0 && strcmp(a->subject, b->subject) == 0;
}

static bool holds(const struct gd_findings *f, const struct gd_finding *x)
{
	GD_VEC_EACH(f->items, const struct gd_finding, y)
		if (same(x, y))
			return true;
	return false;
}

/* The engine over snapshots a..b of w. */
static void engine_over(const struct gd_window *w, size_t a, size_t b, const struct gd_thresholds *th,
			struct gd_findings *out)
{
	struct gd_window sub = { w->snaps + a, b - a + 1 };

	gd_findings_init(out);
	gd_engine_run(&sub, th, out);
}

void gd_probe_tag_phases(const struct gd_window *w, const char *const *phase, const struct gd_thresholds *th,
			 struct gd_findings *f)
{
	struct gd_findings before, added;
	bool *tagged;
	size_t first = 0;

	while (first < w->n && !phase[first][0])
		first++;
	if (first == w->n)
		return;   /* no sample inside a phase */
	gd_findings_init(&before);
	gd_findings_init(&added);
	/* what the samples before the first phase give was there already */
	if (first > 0)
		engine_over(w, 0, first - 1, th, &before);
	tagged = gd_xcalloc(f->items.n + 1, sizeof *tagged);
	for (size_t i = first, j; i < w->n; i = j + 1) {
		struct gd_findings seg;

		for (j = i; j + 1 < w->n && strcmp(phase[j + 1], phase[i]) == 0; j++)
			;
		if (!phase[i][0])
			continue;   /* between two probes */
		engine_over(w, i, j, th, &seg);
		GD_VEC_EACH(seg.items, struct gd_finding, x) {
			bool whole = false;

			if (!load_rule(x->id) || holds(&before, x))
				continue;
			for (size_t k = 0; k < f->items.n; k++) {
				struct gd_finding *y = GD_VEC_AT(f->items, struct gd_finding, k);

				if (!same(x, y))
					continue;
				whole = true;
				if (!tagged[k])
					gd_finding_ev_text(y, "during_probe", phase[i]);
				tagged[k] = true;
			}
			if (!whole && !holds(&added, x)) {
				gd_finding_ev_text(x, "during_probe", phase[i]);
				*(struct gd_finding *)gd_vec_push(&added.items, sizeof *x) = *x;
			}
		}
		gd_findings_release(&seg);
	}
	GD_VEC_EACH(added.items, const struct gd_finding, x)
		*(struct gd_finding *)gd_vec_push(&f->items, sizeof *x) = *x;
	gd_findings_sort(f);
	free(tagged);
	gd_findings_release(&added);
	gd_findings_release(&before);
}
