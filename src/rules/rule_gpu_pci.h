/*
 * rule_gpu_pci.h - what the rules joining NVML with evidence from outside it
 * share (rule_driver.c, rule_gpu_job.c, rule_gpu_straggler.c,
 * rule_gpu_topo.c): whether the PCI bus was read, the NVIDIA GPUs on it
 * that NVML can be expected to see, the GPUs a process uses and the
 * processes that use a GPU.  Static inline: file-private to each user.
 */
#ifndef GD_RULES_RULE_GPU_PCI_H
#define GD_RULES_RULE_GPU_PCI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rules/rules.h"

/* The status word of collector name in s ("" when it did not run). */
static inline const char *gpci_source(const struct gd_snapshot *s, const char *name)
{
	GD_VEC_EACH(s->sources, const struct gd_source, src)
		if (strcmp(src->name, name) == 0)
			return src->status;
	return "";
}

/* True when /sys/bus/pci was read (fully or in part), so an empty
 * pci_gpus[] means "no NVIDIA GPU on the bus". */
static inline bool gpci_seen(const struct gd_snapshot *s)
{
	const char *st = gpci_source(s, "pci");

	return s->pci_gpus.n > 0 || strcmp(st, "ok") == 0 || strcmp(st, "partial") == 0;
}

/* A GPU handed to a virtual machine (vfio-pci, pci-stub): the host's
 * driver and NVML are not meant to see it. */
static inline bool gpci_passed_through(const struct gd_pci_gpu *p)
{
	return strcmp(p->driver, "vfio-pci") == 0 || strcmp(p->driver, "pci-stub") == 0;
}

/* NVIDIA GPUs on the bus that are not passed through to a VM. */
static inline size_t gpci_host_gpus(const struct gd_snapshot *s)
{
	size_t n = 0;

	GD_VEC_EACH(s->pci_gpus, const struct gd_pci_gpu, p)
		n += !gpci_passed_through(p);
	return n;
}

/* The NVML GPU at that PCI address (case-insensitive: NVML prints upper
 * case hex, sysfs lower), or NULL. */
static inline const struct gd_gpu *gpci_nvml_gpu(const struct gd_snapshot *s, const char *bdf)
{
	GD_VEC_EACH(s->gpus, const struct gd_gpu, g)
		if (g->pci_bus_id[0] && strcasecmp(g->pci_bus_id, bdf) == 0)
			return g;
	return NULL;
}

/* The sysfs record of an NVML GPU, or NULL. */
static inline const struct gd_pci_gpu *gpci_of(const struct gd_snapshot *s, const struct gd_gpu *g)
{
	if (!g->pci_bus_id[0])
		return NULL;
	GD_VEC_EACH(s->pci_gpus, const struct gd_pci_gpu, p)
		if (strcasecmp(p->pci_bus_id, g->pci_bus_id) == 0)
			return p;
	return NULL;
}

/* True when the comma-separated minors "0,1,3" hold m. */
static inline bool gpci_minor_in(const char *list, uint64_t m)
{
	char want[24];
	size_t n;

	n = (size_t)snprintf(want, sizeof want, "%llu", (unsigned long long)m);
	for (const char *p = list; *p;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);

		if (len == n && memcmp(p, want, n) == 0)
			return true;
		p += len + (c ? 1 : 0);
	}
	return false;
}

/* True when process p uses GPU g: NVML lists it on g, or it holds g's
 * /dev/nvidia<minor>. */
static inline bool gpci_proc_uses(const struct gd_snapshot *s, const struct gd_proc *p, const struct gd_gpu *g)
{
	if (!p->pid.ok)
		return false;
	GD_VEC_EACH(s->gpu_procs, const struct gd_gpu_proc, gp)
		if (gp->pid.ok && gp->pid.v == p->pid.v && gp->gpu.ok && g->index.ok && gp->gpu.v == g->index.v)
			return true;
	return g->minor_number.ok && p->nvidia_devs[0] && gpci_minor_in(p->nvidia_devs, g->minor_number.v);
}

/* The first process of the last snapshot that uses g (lowest pid first in
 * NVML's list), or NULL. */
static inline const struct gd_proc *gpci_holder_of(const struct gd_snapshot *b, const struct gd_gpu *g,
						   size_t *nholders)
{
	const struct gd_proc *first = NULL;

	*nholders = 0;
	GD_VEC_EACH(b->procs, const struct gd_proc, p) {
		if (!gpci_proc_uses(b, p, g))
			continue;
		if (!first)
			first = p;
		(*nholders)++;
	}
	return first;
}

#endif
