/*
 * nvml_gpu_activity.c - gpu_activity[]: the sub-second activity of the GPUs
 * GPU jobs use (NVML lists a compute process on them), as copy/compute
 * overlap needs it (gpu.transfer_serialized).  Source: the NVML thread's
 * sampling between snapshots (src/nvml/nvml_act.c: GPM SM activity and PCIe
 * bytes every 100 ms on Hopper and newer, else nvmlDeviceGetPcieThroughput
 * and the newest utilisation sample), over the same window as the job
 * sampler's perf samples (job_samples.c): from one snapshot to the next.
 *
 * At each snapshot, after the nvml collector: the intervals sampled since
 * the last one are taken into this snapshot, the snapshot's own reading of
 * each such GPU (gpus[]: utilisation and PCIe throughput, read a moment
 * ago) is added as one more, and sampling starts again for the GPUs in use
 * now.  A single snapshot (gpudoctor snapshot, a fixture) has its own
 * readings only.  A GPU with neither GPM nor PCIe throughput is reported
 * here, as absent with the reason; a failing sampling call as partial.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collect/collectors.h"
#include "core/i18n.h"
#include "nvml/nvml.h"

#define MAX_JOB_GPUS 64
#define PCIE_WINDOW_US 20000

/* The live GPUs NVML lists a compute process on, at most max. */
static size_t job_gpus(const struct gd_snapshot *s, unsigned int *idx, size_t max)
{
	size_t n = 0;

	GD_VEC_EACH(s->gpus, const struct gd_gpu, g) {
		bool used = false;

		if (!g->index.ok || (g->lost.ok && g->lost.v) || n == max)
			continue;
		GD_VEC_EACH(s->gpu_procs, const struct gd_gpu_proc, p)
			if (p->gpu.ok && p->gpu.v == g->index.v && !(p->graphics.ok && p->graphics.v))
				used = true;
		if (used)
			idx[n++] = (unsigned int)g->index.v;
	}
	return n;
}

/* Sets f to v unless v is NAN (not read). */
static void known(struct gd_f64 *f, double v)
{
	if (!isnan(v))
		gd_f64_set(f, v);
}

static void push(struct gd_snapshot *s, const struct gd_nvml_act *a)
{
	struct gd_gpu_activity *r = GD_PUSH(s, gpu_activity, struct gd_gpu_activity);

	gd_u64_set(&r->gpu, a->gpu);
	gd_u64_set(&r->t_us, a->t_us);
	gd_u64_set(&r->interval_us, a->dt_us);
	GD_STRSET(r->source, a->src == GD_NVML_ACT_GPM ? "gpm" : "pcie_throughput");
	known(&r->sm_active_pct, a->sm_pct);
	known(&r->util_pct, a->util_pct);
	known(&r->pcie_rx_bytes_s, a->rx_bytes_s);
	known(&r->pcie_tx_bytes_s, a->tx_bytes_s);
	known(&r->sm_occupancy_pct, a->occupancy_pct);
	known(&r->tensor_active_pct, a->tensor_pct);
	known(&r->dram_bw_pct, a->dram_pct);
	known(&r->nvlink_rx_bytes_s, a->nvlink_rx_bytes_s);
	known(&r->nvlink_tx_bytes_s, a->nvlink_tx_bytes_s);
}

/* The snapshot's own reading of GPU idx (gpus[], the nvml collector's
 * nvmlDeviceGetUtilizationRates and nvmlDeviceGetPcieThroughput) as one
 * more interval; false when it has no PCIe throughput. */
static bool own_reading(struct gd_snapshot *s, unsigned int idx)
{
	struct gd_nvml_act a;
	struct timespec now;

	GD_VEC_EACH(s->gpus, const struct gd_gpu, g) {
		if (!g->index.ok || g->index.v != idx)
			continue;
		if (!g->pcie_rx_kbps.ok && !g->pcie_tx_kbps.ok)
			return false;
		clock_gettime(CLOCK_REALTIME, &now);
		memset(&a, 0, sizeof a);
		a.gpu = idx;
		a.src = GD_NVML_ACT_PCIE;
		a.t_us = (unsigned long long)now.tv_sec * 1000000ull + (unsigned long long)now.tv_nsec / 1000;
		a.dt_us = PCIE_WINDOW_US;
		a.sm_pct = NAN;
		a.util_pct = g->util_gpu_pct.ok ? (double)g->util_gpu_pct.v : NAN;
		a.rx_bytes_s = g->pcie_rx_kbps.ok ? (double)g->pcie_rx_kbps.v * 1000.0 : NAN;
		a.tx_bytes_s = g->pcie_tx_kbps.ok ? (double)g->pcie_tx_kbps.v * 1000.0 : NAN;
		a.occupancy_pct = a.tensor_pct = a.dram_pct = NAN;
		a.nvlink_rx_bytes_s = a.nvlink_tx_bytes_s = NAN;
		push(s, &a);
		return true;
	}
	return false;
}

/* Appends part to the reasons in buf, "; " between. */
static void add_why(char *buf, size_t sz, const char *part)
{
	size_t len = strlen(buf);

	if (len + 3 < sz)
		snprintf(buf + len, sz - len, "%s%s", len ? "; " : "", part);
}

enum gd_src_status gd_collect_gpu_activity(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_nvml *nv = ctx->nvml;
	unsigned int idx[MAX_JOB_GPUS];
	struct gd_nvml_act_gpu st[MAX_JOB_GPUS];
	size_t n = job_gpus(s, idx, MAX_JOB_GPUS), own = 0, none = 0, failed = 0, denied = 0;
	bool live = nv && gd_nvml_state(nv) == GD_NVML_OK;
	char why[GD_ERR_MSG_MAX] = "";

	if (live) {
		struct gd_nvml_act *acts = NULL;
		size_t nacts = 0;

		if (gd_nvml_act_take(nv, &acts, &nacts) == NVML_SUCCESS)
			for (size_t i = 0; i < nacts; i++)
				push(s, &acts[i]);
		free(acts);
	}
	for (size_t i = 0; i < n; i++)
		own += own_reading(s, idx[i]);
	if (!live) {
		/* NVML's own source says why it is not ok; without a handle
		 * kept from one snapshot to the next nothing samples between */
		if (n && !nv && own < n) {
			gd_err_set(err, -ENOENT, _("%zu of %zu GPUs in use have no PCIe throughput reading, and no NVML "
				     "handle is kept between snapshots to sample them"), n - own, n);
			return own ? GD_SRC_PARTIAL : GD_SRC_ABSENT;
		}
		return GD_SRC_OK;
	}
	for (size_t i = 0; i < n; i++) {
		memset(&st[i], 0, sizeof st[i]);
		st[i].gpu = idx[i];
	}
	if (gd_nvml_act_start(nv, st, n) != NVML_SUCCESS || !n)
		return GD_SRC_OK;   /* stuck: the nvml source says so at the next snapshot */
	for (size_t i = 0; i < n; i++) {
		char part[256];

		if (st[i].src == GD_NVML_ACT_NONE) {
			none++;
			snprintf(part, sizeof part, _("gpu%u not sampled: %s"), st[i].gpu, st[i].why);
			add_why(why, sizeof why, part);
		}
		if (st[i].rc != NVML_SUCCESS) {
			failed++;
			denied += st[i].rc == NVML_ERROR_NO_PERMISSION;
			snprintf(part, sizeof part, "gpu%u: %s: NVML_ERROR_%s", st[i].gpu, st[i].what,
				 gd_nvml_error_name(st[i].rc));
			add_why(why, sizeof why, part);
		}
	}
	if (!none && !failed)
		return GD_SRC_OK;
	gd_err_set(err, denied ? -EACCES : none ? -ENOENT : -EIO, "%s", why);
	if (none == n && !own)
		return GD_SRC_ABSENT;
	if (denied == n)
		return GD_SRC_DENIED;
	return GD_SRC_PARTIAL;
}
