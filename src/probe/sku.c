/*
 * sku.c - the per-SKU table of the probes: host link and memory datasheet
 * figures.  Sources (../shared/reference/PROBES.md §4.2): NVIDIA datasheet
 * tables mirrored at archive-lib.hpctech.co.jp (H100 SXM/PCIe),
 * glennklockwood.com (A100, H100), thundercompute.com (A100 variants),
 * mullet.se (L40S), sysrqmts.com (T4, A10), aiminingco (H200).  Only the
 * host link is used for a verdict (copies reach a known share of it,
 * §4.1); the memory figure is printed for reference: what share of it a
 * copy kernel reaches is not confirmed, so memory bandwidth is judged
 * against siblings.
 */
#include "probe/sku.h"

#include <string.h>

static const struct gd_sku skus[] = {
	{ "H100 80GB HBM3", 5, 16, 3350, "H100 SXM5 datasheet" },
	{ "H100 PCIe", 5, 16, 2000, "H100 PCIe datasheet" },
	{ "H200", 5, 16, 4800, "H200 SXM datasheet" },
	{ "A100-SXM4-40GB", 4, 16, 1555, "A100 datasheet" },
	{ "A100-SXM4-80GB", 4, 16, 2039, "A100 80GB datasheet" },
	{ "A100 80GB PCIe", 4, 16, 1935, "A100 80GB PCIe datasheet" },
	{ "L40S", 4, 16, 864, "L40S datasheet" },
	{ "A10", 4, 16, 600, "A10 datasheet" },
	{ "T4", 3, 16, 320, "T4 datasheet" },
	{ "V100", 3, 16, 900, "V100 SXM2 datasheet" },
};

const struct gd_sku *gd_sku_find(const char *name)
{
	const struct gd_sku *best = NULL;

	for (size_t i = 0; name && i < sizeof skus / sizeof skus[0]; i++)
		if (strstr(name, skus[i].match) && (!best || strlen(skus[i].match) > strlen(best->match)))
			best = &skus[i];
	return best;
}
