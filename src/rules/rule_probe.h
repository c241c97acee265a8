/*
 * rule_probe.h - what a probe's figure is judged against (rule_probe.c),
 * shared by the probe rules and the probe report.
 */
#ifndef GD_RULES_RULE_PROBE_H
#define GD_RULES_RULE_PROBE_H

#include <stddef.h>

#include "model/snapshot.h"

/* The share of a PCIe link's raw payload rate that pinned copies reach
 * (PROBES.md §4.1: Gen4 x16 31.5 GB/s raw, 25-27 measured; Gen5 63, 50-55). */
#define GD_PROBE_PCIE_REACHED 0.78

/* Raw payload GB/s per lane of PCIe generation gen (0 when unknown). */
double gd_pcie_lane_gbps(unsigned gen);

/* The expected figure of row in snapshot s and where it comes from
 * ("link Gen5 x16", "median of 7 siblings", "SKU table"), or false when
 * nothing gives one (a lone GPU's compute figure). */
bool gd_probe_expected(const struct gd_snapshot *s, const struct gd_probe_row *row, double *value, char *from,
		       size_t size);

#endif
