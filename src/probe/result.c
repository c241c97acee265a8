/*
 * result.c - probe names, and the child's shared results as probe[] rows
 * of a snapshot (the model the rules, -o, check --from and serve read).
 */
#include "probe/result.h"

#include <stdio.h>
#include <string.h>

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
