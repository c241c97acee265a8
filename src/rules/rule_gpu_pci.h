/*
 * rule_gpu_pci.h - what the rules joining NVML with evidence from outside it
 * share (rule_driver.c, rule_gpu_health.c, rule_gpu_job.c, rule_gpu_link.c,
 * rule_gpu_straggler.c, rule_gpu_topo.c, episodes.c): whether the PCI bus
 * was read, the NVIDIA GPUs on it that NVML can be expected to see, and
 * which processes use a GPU (NVML's process lists, never /dev/nvidia*
 * descriptors).  Static inline: file-private to each user.
 */
#ifndef GD_RULES_RULE_GPU_PCI_H
#define GD_RULES_RULE_GPU_PCI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/i18n.h"
#include "rules/rules.h"

/* The status word of collector name in s ("" when it did not run). */
static inline const char *gpci_source(const struct gd_snapshot *s, const char *name)
{
	GD_VEC_EACH(s->sources, const struct gd_source, src)
		if (strcmp(src->name, name) == 0)
			return src->status;
	return "";
}

/* A record of a GPU: it has a bus id.  An lspci fragment without its
 * device header (LnkCap/LnkSta lines alone, src/offline/lspci.c) is a
 * record of "a PCIe device": a link to judge, not a GPU to count. */
static inline bool gpci_is_gpu(const struct gd_pci_gpu *p)
{
	return p->pci_bus_id[0] != '\0';
}

/* True when /sys/bus/pci was read (fully or in part), so no GPU in
 * pci_gpus[] means "no NVIDIA GPU on the bus". */
static inline bool gpci_seen(const struct gd_snapshot *s)
{
	const char *st = gpci_source(s, "pci");

	GD_VEC_EACH(s->pci_gpus, const struct gd_pci_gpu, p)
		if (gpci_is_gpu(p))
			return true;
	return strcmp(st, "ok") == 0 || strcmp(st, "partial") == 0;
}

/* A GPU handed to a virtual machine (vfio-pci, pci-stub): the host's
 * driver and NVML are not meant to see it. */
static inline bool gpci_passed_through(const struct gd_pci_gpu *p)
{
	return strcmp(p->driver, "vfio-pci") == 0 || strcmp(p->driver, "pci-stub") == 0;
}

/* A GPU of the host: a GPU record not passed through to a VM. */
static inline bool gpci_host_gpu(const struct gd_pci_gpu *p)
{
	return gpci_is_gpu(p) && !gpci_passed_through(p);
}

/* NVIDIA GPUs on the bus that are not passed through to a VM. */
static inline size_t gpci_host_gpus(const struct gd_snapshot *s)
{
	size_t n = 0;

	GD_VEC_EACH(s->pci_gpus, const struct gd_pci_gpu, p)
		n += gpci_host_gpu(p);
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

/* True when the comma-separated list of numbers "0,1,3" (NUMA nodes) holds m. */
static inline bool gpci_num_in(const char *list, uint64_t m)
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

/* ---- which processes use a GPU ----------------------------------------------
 *
 * NVML's process lists (gpu_procs[], compute and graphics) are the only
 * evidence of which GPU a process uses.  /dev/nvidia<N> descriptors are
 * not: a CUDA process opens every device node it can see and its loader
 * workers inherit them, so they only say which processes are GPU jobs
 * (model/jobs.h).  A GPU is then
 *   - used (GPCI_LISTED): NVML lists processes on it; a listed pid that is
 *     not in procs[] belongs to another pid namespace (NVML gives host
 *     pids, gpudoctor may run in a container): still a user;
 *   - used by an unseen process (GPCI_UNSEEN): nobody listed, or the list
 *     not read, but more device memory in use than unseen_bytes (the
 *     driver's own reservation is ~0.5 GiB);
 *   - idle by choice (GPCI_IDLE): the list was read (gpus[].nvml_procs) and
 *     names nobody, memory near the reservation;
 *   - unknown (GPCI_UNKNOWN): the list was not read: never guessed from
 *     file descriptors. */
enum gpci_use { GPCI_UNKNOWN, GPCI_IDLE, GPCI_LISTED, GPCI_UNSEEN };

struct gpci_users {
	enum gpci_use use;
	size_t listed;               /* gpu_procs[] rows of the GPU */
	size_t outside;              /* of them, pids not in procs[] */
	const struct gd_proc *first; /* the first listed pid found in procs[], or NULL */
	uint64_t first_pid;          /* the first listed pid (0: none known) */
	char text[256];              /* "pid 4242 (python) 68.0 GiB SM 12%, pid 88123 (outside ...)" */
};

static inline const struct gd_proc *gpci_proc_of(const struct gd_snapshot *s, uint64_t pid)
{
	GD_VEC_EACH(s->procs, const struct gd_proc, p)
		if (p->pid.ok && p->pid.v == pid)
			return p;
	return NULL;
}

static inline struct gpci_users gpci_users(const struct gd_snapshot *s, const struct gd_gpu *g, double unseen_bytes)
{
	struct gpci_users u;
	size_t len = 0;
	bool cut = false;

	memset(&u, 0, sizeof u);
	if (!g->index.ok)
		return u;
	GD_VEC_EACH(s->gpu_procs, const struct gd_gpu_proc, gp) {
		const struct gd_proc *p;
		char one[128];
		size_t n;

		if (!gp->gpu.ok || gp->gpu.v != g->index.v)
			continue;
		u.listed++;
		if (!gp->pid.ok)
			continue; /* a row without a pid still says the GPU is used */
		p = gpci_proc_of(s, gp->pid.v);
		if (!u.first_pid)
			u.first_pid = gp->pid.v;
		if (p && !u.first)
			u.first = p;
		u.outside += !p && s->procs.n;
		n = (size_t)snprintf(one, sizeof one, "%spid %llu (%s)", len ? ", " : "", (unsigned long long)gp->pid.v,
				     p ? p->comm : s->procs.n ? "outside this pid namespace" : "no process list");
		if (gp->graphics.ok && gp->graphics.v && n < sizeof one)
			n += (size_t)snprintf(one + n, sizeof one - n, " graphics");
		if (gp->used_mem_bytes.ok && n < sizeof one)
			n += (size_t)snprintf(one + n, sizeof one - n, " %.1f GiB",
					      (double)gp->used_mem_bytes.v / 1073741824.0);
		if (gp->sm_util_pct.ok && n < sizeof one)
			n += (size_t)snprintf(one + n, sizeof one - n, " SM %llu%%", (unsigned long long)gp->sm_util_pct.v);
		if (len + n + 1 < sizeof u.text) {
			memcpy(u.text + len, one, n + 1);
			len += n;
		} else if (!cut && len + 6 <= sizeof u.text) {
			memcpy(u.text + len, ", ...", 6);
			len += 5;
			cut = true;
		}
	}
	if (u.listed)
		u.use = GPCI_LISTED;
	else if (g->mem_used_bytes.ok && (double)g->mem_used_bytes.v > unseen_bytes)
		u.use = GPCI_UNSEEN;
	else if (g->nvml_procs.ok)
		u.use = GPCI_IDLE;
	return u;
}

/* Why the process list of g is not known (GPCI_UNKNOWN), for a reason
 * (translated; NVML's own reason stays as the collector wrote it). */
static inline void gpci_unmapped_reason(const struct gd_snapshot *s, const struct gd_gpu *g, char *buf, size_t sz)
{
	GD_VEC_EACH(s->nvml_errors, const struct gd_nvml_error, e)
		if (e->gpu.ok && g->index.ok && e->gpu.v == g->index.v && strcmp(e->field, "gpu_procs") == 0) {
			snprintf(buf, sz, "%s", e->reason);
			return;
		}
	if (strstr(s->nvml.missing, "ComputeRunningProcesses"))
		snprintf(buf, sz, "%s", _("this driver lacks nvmlDeviceGetComputeRunningProcesses"));
	else
		snprintf(buf, sz, "%s", _("NVML's process list of the GPU was not read"));
}

/* True when NVML lists process p on GPU g. */
static inline bool gpci_proc_uses(const struct gd_snapshot *s, const struct gd_proc *p, const struct gd_gpu *g)
{
	if (!p->pid.ok || !g->index.ok)
		return false;
	GD_VEC_EACH(s->gpu_procs, const struct gd_gpu_proc, gp)
		if (gp->pid.ok && gp->pid.v == p->pid.v && gp->gpu.ok && gp->gpu.v == g->index.v)
			return true;
	return false;
}

#endif
