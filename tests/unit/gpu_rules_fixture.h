/*
 * gpu_rules_fixture.h - GPUs for the GPU rule tests: a healthy, busy H100
 * SXM as NVML reports it mid-epoch (the same values as
 * tests/scenarios/base/nvml.ini), which each test then breaks.
 *
 *	struct gd_gpu *g[4];
 *
 *	gpus2(f, 4, ga, gb);          (the same 4 GPUs in f->a and f->b)
 *	gd_u64_set(&gb[2]->clock_event_reasons, 0x20);
 */
#ifndef GD_TEST_GPU_RULES_FIXTURE_H
#define GD_TEST_GPU_RULES_FIXTURE_H

#include "testutil.h"

#include <stdio.h>

static inline struct gd_gpu *healthy_gpu(struct gd_snapshot *s, uint64_t idx)
{
	struct gd_gpu *g = GD_PUSH(s, gpus, struct gd_gpu);
	char buf[64];

	GD_STRSET(s->nvml.status, "ok");
	GD_STRSET(s->nvml.driver_version, "550.54.15");
	GD_STRSET(s->nvml.nvml_version, "12.550.54.15");
	gd_u64_set(&g->index, idx);
	GD_STRSET(g->name, "NVIDIA H100 80GB HBM3");
	snprintf(buf, sizeof buf, "GPU-3f2a9c1e-7b4d-4e8a-9c2f-1a6b5d8e0f%02llu", (unsigned long long)idx);
	GD_STRSET(g->uuid, buf);
	snprintf(buf, sizeof buf, "0000:%02llx:00.0", (unsigned long long)(0x1b + 0x10 * idx));
	GD_STRSET(g->pci_bus_id, buf);
	gd_u64_set(&g->lost, 0);
	gd_u64_set(&g->persistence_mode, 1);
	gd_u64_set(&g->compute_mode, 0);
	gd_f64_set(&g->temp_c, 60);
	gd_f64_set(&g->temp_slowdown_c, 87);
	gd_f64_set(&g->temp_shutdown_c, 92);
	gd_u64_set(&g->util_gpu_pct, 95);
	gd_u64_set(&g->util_mem_pct, 58);
	gd_u64_set(&g->mem_used_bytes, 73551314944ULL);
	gd_u64_set(&g->mem_total_bytes, 85520809984ULL);
	gd_f64_set(&g->power_w, 550);
	gd_f64_set(&g->power_limit_w, 700);
	gd_f64_set(&g->power_default_limit_w, 700);
	gd_u64_set(&g->sm_clock_mhz, 1980);
	gd_u64_set(&g->sm_clock_max_mhz, 1980);
	gd_u64_set(&g->app_sm_clock_mhz, 1980);
	gd_u64_set(&g->clock_event_reasons, 0);
	gd_u64_set(&g->violation_power_ns, 0);
	gd_u64_set(&g->violation_thermal_ns, 0);
	gd_u64_set(&g->pcie_gen, 5);
	gd_u64_set(&g->pcie_gen_max, 5);
	gd_u64_set(&g->pcie_width, 16);
	gd_u64_set(&g->pcie_width_max, 16);
	gd_u64_set(&g->pcie_tx_kbps, 1850000);
	gd_u64_set(&g->pcie_rx_kbps, 2400000);
	gd_u64_set(&g->pcie_replays, 0);
	gd_u64_set(&g->ecc_mode, 1);
	gd_u64_set(&g->ecc_corrected_volatile, 0);
	gd_u64_set(&g->ecc_uncorrected_volatile, 0);
	gd_u64_set(&g->ecc_corrected_aggregate, 0);
	gd_u64_set(&g->ecc_uncorrected_aggregate, 0);
	gd_u64_set(&g->retired_pages_sbe, 0);
	gd_u64_set(&g->retired_pages_dbe, 0);
	gd_u64_set(&g->retired_pages_pending, 0);
	gd_u64_set(&g->remap_corrected, 0);
	gd_u64_set(&g->remap_uncorrected, 0);
	gd_u64_set(&g->remap_pending, 0);
	gd_u64_set(&g->remap_failure, 0);
	gd_u64_set(&g->recovery_action, 0);
	gd_u64_set(&g->nvlink_links, 18);
	gd_u64_set(&g->nvlink_up_links, 18);
	gd_u64_set(&g->nvlink_errors, 0);
	return g;
}

/* n healthy GPUs in both snapshots of the fixture; ga/gb point at them
 * (taken after every push: the vectors may move while they grow). */
static inline void gpus2(struct fx *f, size_t n, struct gd_gpu **ga, struct gd_gpu **gb)
{
	for (size_t i = 0; i < n; i++) {
		healthy_gpu(&f->a, i);
		healthy_gpu(&f->b, i);
	}
	for (size_t i = 0; i < n; i++) {
		ga[i] = GD_VEC_AT(f->a.gpus, struct gd_gpu, i);
		gb[i] = GD_VEC_AT(f->b.gpus, struct gd_gpu, i);
	}
}

/* No NVML at all, as on a host without the driver. */
static inline void nvml_absent(struct gd_snapshot *s)
{
	GD_STRSET(s->nvml.status, "absent");
	GD_STRSET(s->nvml.reason, "libnvidia-ml.so.1 not found (no NVIDIA driver, or a container without the NVIDIA "
				  "runtime)");
}

/* Runs rule id over the fixture's pair (b only when single). */
static inline enum gd_verdict run_fx(struct fx *f, const char *id, bool single)
{
	return single ? run_rule2(id, &f->b, NULL, NULL, &f->out) : run_rule2(id, &f->a, &f->b, NULL, &f->out);
}

/* The single finding of the fixture's output. */
static inline const struct gd_finding *only_finding(struct fx *f)
{
	assert_int_equal(f->out.items.n, 1);
	return FINDING(f->out, 0);
}

#endif
