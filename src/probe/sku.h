/*
 * sku.h - what each GPU model's datasheet says its host link is, for the
 * PCIe probes' expected figure when NVML cannot say (PROBES.md §4.2).
 */
#ifndef GD_PROBE_SKU_H
#define GD_PROBE_SKU_H

struct gd_sku {
	const char *match;        /* substring of the NVML/CUDA product name */
	unsigned pcie_gen, pcie_width;
	double mem_spec_gbps;     /* datasheet memory bandwidth (read + write traffic) */
	const char *source;
};

/* The row whose match the name contains (longest match), or NULL. */
const struct gd_sku *gd_sku_find(const char *name);

#endif
