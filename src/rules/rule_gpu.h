/*
 * rule_gpu.h - what the GPU rule files (rule_gpu_hw.c, rule_gpu_link.c,
 * rule_gpu_mem.c, rule_gpu_health.c) share: naming a GPU, finding it again
 * in another snapshot, the unknown reasons when NVML gave nothing,
 * clock-event reason bits and PCIe link bandwidth.  Static inline: file-private to each user.
 */
#ifndef GD_RULES_RULE_GPU_H
#define GD_RULES_RULE_GPU_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "core/i18n.h"
#include "rules/rules.h"

/* Clock-event ("throttle") reason bits, FACTS.md §2.9. */
#define GPU_R_IDLE 0x1ULL
#define GPU_R_APP_CLOCKS 0x2ULL
#define GPU_R_SW_POWER_CAP 0x4ULL
#define GPU_R_HW_SLOWDOWN 0x8ULL
#define GPU_R_SYNC_BOOST 0x10ULL
#define GPU_R_SW_THERMAL 0x20ULL
#define GPU_R_HW_THERMAL 0x40ULL
#define GPU_R_POWER_BRAKE 0x80ULL
#define GPU_R_DISPLAY 0x100ULL
#define GPU_R_THERMAL_POWER \
	(GPU_R_SW_POWER_CAP | GPU_R_HW_SLOWDOWN | GPU_R_SW_THERMAL | GPU_R_HW_THERMAL | GPU_R_POWER_BRAKE)

/* "gpu0 (0000:3b:00.0)", or "gpu0" without a bus id, "gpu?" without either
 * (a fragment of nvidia-smi -q without its GPU line). */
struct gpu_name {
	char s[64];
};

static inline struct gpu_name gpu_name(const struct gd_gpu *g)
{
	struct gpu_name n;
	unsigned long long idx = g->index.ok ? (unsigned long long)g->index.v : 0;

	if (g->pci_bus_id[0])
		snprintf(n.s, sizeof n.s, "gpu%llu (%s)", idx, g->pci_bus_id);
	else if (g->index.ok)
		snprintf(n.s, sizeof n.s, "gpu%llu", idx);
	else
		snprintf(n.s, sizeof n.s, "gpu?");
	return n;
}

static inline bool gpu_live(const struct gd_gpu *g)
{
	return !(g->lost.ok && g->lost.v);
}

/* The same GPU in snapshot s: by UUID, else PCI bus id, else NVML index
 * (else g itself, when it is one of s's). */
static inline const struct gd_gpu *gpu_match(const struct gd_snapshot *s, const struct gd_gpu *g)
{
	if (!s)
		return NULL;
	if (g->uuid[0])
		return GD_FIND_PREV(s, gpus, struct gd_gpu, uuid, g->uuid);
	if (g->pci_bus_id[0])
		return GD_FIND_PREV(s, gpus, struct gd_gpu, pci_bus_id, g->pci_bus_id);
	if (g->index.ok)
		return GD_FIND_PREV_U64(s, gpus, struct gd_gpu, index, g->index.v);
	/* an unnamed GPU (a fragment of nvidia-smi -q): only itself */
	GD_VEC_EACH(s->gpus, const struct gd_gpu, x)
		if (x == g)
			return g;
	return NULL;
}

/* True (with the reason recorded) when the last snapshot lists no GPU: NVML
 * absent, failed, denied or stuck before listing one, or no GPUs at all. */
static inline bool gpu_none(struct gd_rule_ctx *rc, const struct gd_snapshot *b, enum gd_verdict *v)
{
	if (b && b->gpus.n)
		return false;
	if (!b)
		*v = gd_rule_unknown(rc, _("no snapshot"));
	else if (strcmp(b->nvml.status, "ok") != 0)
		/* TRANSLATORS: %s is the collector's reason (English, as in the
		 * snapshot) or NVML's status word (failed, denied, absent) */
		*v = gd_rule_unknown(rc, _("no GPU evidence: %s"),
				     b->nvml.reason[0] ? b->nvml.reason
						       : b->nvml.status[0] ? b->nvml.status : _("NVML not collected"));
	else
		*v = gd_rule_unknown(rc, _("NVML lists no GPUs"));
	return true;
}

/* The nvidia-smi output the GPU evidence was read from offline ("nvidia-smi
 * -q", ...: its sources[] row "offline:<kind>"), or NULL when it came from
 * NVML.  Reasons then name what the user gave, not a library never called. */
static inline const char *gpu_offline_source(const struct gd_snapshot *b)
{
	static const struct {
		const char *source, *title;
	} kinds[] = {
		{ "offline:nvidia-smi-q", "nvidia-smi -q" },
		{ "offline:nvidia-smi-xml", "nvidia-smi -q -x" },
		{ "offline:nvidia-smi-csv", "nvidia-smi --query-gpu" },
		{ "offline:nvidia-smi", "nvidia-smi (table)" },
	};

	GD_VEC_EACH(b->sources, const struct gd_source, src) {
		for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
			if (strcmp(src->name, kinds[i].source) == 0)
				return kinds[i].title;
	}
	return NULL;
}

/* The unknown verdict when no GPU reported field: names the NVML error
 * behind it when nvml_errors has one, the nvidia-smi output that lacks it
 * offline, else says it is not supported.  what is a noun phrase, already
 * translated (the caller's _("...")). */
static inline enum gd_verdict gpu_field_unknown(struct gd_rule_ctx *rc, const struct gd_snapshot *b,
						 const char *field, const char *what)
{
	const char *smi = gpu_offline_source(b);

	GD_VEC_EACH(b->nvml_errors, const struct gd_nvml_error, e) {
		if (strcmp(e->field, field) == 0)
			/* TRANSLATORS: no <what> from NVML (<NVML status word>): <NVML's reason, English> */
			return gd_rule_unknown(rc, _("no %s from NVML (%s): %s"), what, e->status, e->reason);
	}
	if (smi)
		/* TRANSLATORS: no <what> in the <nvidia-smi -q> output (what the user gave) */
		return gd_rule_unknown(rc, _("no %s in the %s output"), what, smi);
	return gd_rule_unknown(rc, _("no %s from NVML: not supported by these GPUs or this driver"), what);
}

/* "sw_power_cap,hw_thermal" (or "none") for a reasons mask. */
static inline void gpu_reasons_text(uint64_t r, char *buf, size_t n)
{
	static const char *const names[] = { "gpu_idle", "app_clocks", "sw_power_cap", "hw_slowdown", "sync_boost",
					     "sw_thermal", "hw_thermal", "power_brake", "display_clocks" };
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (!(r & (1ULL << i)))
			continue;
		used += (size_t)snprintf(buf + used, used < n ? n - used : 0, "%s%s", used ? "," : "", names[i]);
		if (used >= n)
			return;
	}
	if (r & ~0x1FFULL && used < n)
		used += (size_t)snprintf(buf + used, n - used, "%s0x%llx", used ? "," : "",
					 (unsigned long long)(r & ~0x1FFULL));
	if (!used)
		snprintf(buf, n, "none");
}

/* OR of the reasons of g over every snapshot of the window that has it;
 * false when none reported them. */
static inline bool gpu_reasons_union(const struct gd_window *w, const struct gd_gpu *g, uint64_t *mask)
{
	bool any = false;

	*mask = 0;
	for (size_t i = 0; i < w->n; i++) {
		const struct gd_gpu *x = gpu_match(w->snaps[i], g);

		if (x && x->clock_event_reasons.ok) {
			*mask |= x->clock_event_reasons.v;
			any = true;
		}
	}
	return any;
}

/* Usable bandwidth of a PCIe link in MB/s per direction (after line
 * coding: 8b/10b for Gen1-2, 128b/130b for Gen3-5, FLIT for Gen6); 0 when
 * the generation is unknown. */
static inline double gpu_pcie_mb_per_s(uint64_t gen, uint64_t width)
{
	static const double lane[] = { 0, 250, 500, 984.6, 1969.2, 3938.5, 7563.0 };

	return gen < sizeof lane / sizeof lane[0] ? lane[gen] * (double)width : 0;
}

/* The rate of a counter of g between the first and the last snapshot of the
 * window (per second); false without a window or either value. */
static inline bool gpu_counter_rate(const struct gd_window *w, const struct gd_gpu *g, size_t off, double *rate,
				    uint64_t *delta)
{
	const struct gd_gpu *p = gpu_match(gd_window_first(w), g);
	struct gd_u64 a, b;
	double dt;

	if (!p || p == g || !gd_window_dt(w, &dt))
		return false;
	memcpy(&a, (const char *)p + off, sizeof a);
	memcpy(&b, (const char *)g + off, sizeof b);
	if (!gd_counter_delta(a, b, delta))
		return false;
	*rate = (double)*delta / dt;
	return true;
}

/* Mean of a gauge of g (a struct gd_u64 or gd_f64 at off, as type says) over
 * the window's samples in which g is live and the value present; false when
 * none has it.  Call it as GPU_MEAN(w, g, util_gpu_pct, &avg). */
static inline bool gpu_gauge_mean(const struct gd_window *w, const struct gd_gpu *g, size_t off, bool is_f64,
				  double *avg)
{
	double sum = 0;
	size_t n = 0;

	for (size_t i = 0; i < w->n; i++) {
		const struct gd_gpu *x = gpu_match(w->snaps[i], g);
		struct gd_u64 u;
		struct gd_f64 f;

		if (!x || !gpu_live(x))
			continue;
		if (is_f64) {
			memcpy(&f, (const char *)x + off, sizeof f);
			if (f.ok) {
				sum += f.v;
				n++;
			}
		} else {
			memcpy(&u, (const char *)x + off, sizeof u);
			if (u.ok) {
				sum += (double)u.v;
				n++;
			}
		}
	}
	if (!n)
		return false;
	*avg = sum / (double)n;
	return true;
}

#define GPU_MEAN(w, g, field, avg) \
	gpu_gauge_mean((w), (g), offsetof(struct gd_gpu, field), \
		       __builtin_types_compatible_p(__typeof__(((struct gd_gpu *)0)->field), struct gd_f64), (avg))

/* How busy GPU g was over the window (gpu_busy.c): its mean utilisation
 * and, from the window's GPM intervals (at least gpm_min_intervals), its
 * mean SM activity, occupancy, tensor activity, DRAM bandwidth and NVLink
 * bytes (NAN where unknown).  idle: utilisation below th_util, or SM
 * activity below th_sm; thin: idle by SM activity alone (utilisation at or
 * above th_util, or unknown); level: the figure that says it (SM activity
 * when thin, else utilisation). */
struct gd_gpu_busy {
	bool known, util_ok, idle, thin;
	size_t gpm;               /* GPM intervals with SM activity (0: below the minimum) */
	double util, sm, occupancy, tensor, dram, nvlink_bytes_s, level;
};
/* False when neither utilisation nor enough GPM intervals are known. */
bool gd_gpu_busy(struct gd_rule_ctx *rc, const struct gd_gpu *g, double th_util, double th_sm, struct gd_gpu_busy *o);
/* The GPU process p uses that idles most, or NULL; *o how busy it was. */
const struct gd_gpu *gd_gpu_idlest(struct gd_rule_ctx *rc, const struct gd_snapshot *b, const struct gd_proc *p,
				   double th_util, double th_sm, struct gd_gpu_busy *o);
/* "averages 9% utilisation", "averages 100% utilisation but only 8% SM
 * activity": for "... while gpu0 <this>". */
void gd_gpu_busy_now(const struct gd_gpu_busy *o, char *buf, size_t sz);
/* "averaged 12% utilisation over 2.0 s (threshold 40%)", or with SM
 * activity as above: for "gpu0 <this> while ...". */
void gd_gpu_busy_over(const struct gd_gpu_busy *o, double dt, double th_util, double th_sm, char *buf, size_t sz);
/* The GPM evidence of o (none without GPM): sm_active_pct against th_sm,
 * occupancy, tensor activity, DRAM bandwidth, NVLink MB/s, intervals. */
void gd_gpu_busy_ev(struct gd_finding *f, const struct gd_gpu_busy *o, double th_sm);
/* Whether sub-second record r of the window's snapshot i falls in the
 * window: after the first snapshot's wall time and at or before the last's
 * (each interval is in the snapshot that followed it, so without wall
 * times: not in the first). */
bool gd_gpu_act_in_window(const struct gd_window *w, size_t i, const struct gd_gpu_activity *r);

/* Whether the window shows GPU g's copies and kernels taking turns, as
 * gpu.transfer_serialized judges it (rule_gpu_transfer.c): its copy and
 * overlap shares of the busy intervals then.  For gpu.idle_while_job_runs,
 * which names it as what explains an idle GPU. */
bool gd_xfer_serialized(struct gd_rule_ctx *rc, const struct gd_gpu *g, double *copy_pct, double *overlap_pct);

#endif
