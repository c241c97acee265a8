/*
 * rule_gpu_topo.c - where GPUs sit against the CPUs and NICs that feed them.
 *
 * cpu.numa_far_from_gpu (info): a GPU process may run only on CPUs of
 * another NUMA node than its GPU, so every copy to the GPU crosses the CPU
 * interconnect and its pinned buffers land in remote memory.  Evidence: the
 * process's Cpus_allowed_list (/proc/<pid>/status), each CPU's node
 * (cpus[].numa_node), and the GPU's node from sysfs (pci_gpus[].numa_node;
 * NVML's own numa_node is the GPU's memory node on coherent systems, not
 * the slot's).  Fires when none of its allowed CPUs is on the GPU's node.
 * A one-node host is never far.  Example: pid 4242 allowed 0-3 (node 0)
 * uses gpu3 (0000:61:00.0) on node 1.
 *
 * net.gpu_nic_far (info): GPUDirect RDMA moves data between a GPU and an
 * RDMA NIC over PCIe; when the nearest RDMA NIC to a GPU is on another
 * NUMA node (socket), that traffic crosses the CPU interconnect (nvidia-smi
 * topo -m calls it SYS), which NCCL avoids by staging through host memory.
 * Evidence: the PCIe paths of pci_gpus[] and pci_nics[] (the bridges from
 * the host bridge down) and their NUMA nodes.  The distance of each pair:
 * PXB/PIX (a shared bridge below the host bridge: the same PCIe switch),
 * PHB (the same host bridge), NODE (the same NUMA node), SYS (different
 * nodes).  Fires when the nearest is SYS.  Example: gpu3 on node 1,
 * mlx5_0 (0000:3b:00.0) on node 0 is the only RDMA NIC.
 */
#include "rules/rules.h"

#include <stdio.h>
#include <string.h>

#include "core/cpulist.h"
#include "model/jobs.h"
#include "rules/rule_gpu.h"
#include "rules/rule_gpu_pci.h"

#define CPU_BYTES ((GD_CPULIST_MAX + 1) / 8)

/* Nodes of the host: from cpu.numa_nodes, else distinct cpus[] nodes. */
static size_t numa_nodes(const struct gd_snapshot *s)
{
	uint8_t seen[128] = { 0 };
	size_t n = 0;

	if (s->cpu.numa_nodes.ok)
		return (size_t)s->cpu.numa_nodes.v;
	GD_VEC_EACH(s->cpus, const struct gd_cpus, c) {
		if (c->numa_node.ok && c->numa_node.v < 1024 && !(seen[c->numa_node.v / 8] & (1u << (c->numa_node.v % 8)))) {
			seen[c->numa_node.v / 8] |= (uint8_t)(1u << (c->numa_node.v % 8));
			n++;
		}
	}
	return n;
}

/* ---- cpu.numa_far_from_gpu ------------------------------------------------ */

enum gd_verdict gd_rule_cpu_numa_far_from_gpu(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	uint8_t allowed[CPU_BYTES];
	size_t fired = 0, judged = 0, nodes;
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	nodes = numa_nodes(b);
	if (nodes == 0)
		return gd_rule_unknown(rc, _("the NUMA node of each CPU is not known"));
	if (nodes == 1)
		return GD_VERDICT_CLEAR;
	GD_VEC_EACH(b->procs, const struct gd_proc, p) {
		char far[160] = "", nodes_txt[48] = "";
		uint64_t first_node = 0;
		size_t nfar = 0;
		struct gd_finding *f;

		if (!gd_proc_is_gpu_job(b, p) || !p->cpus_allowed[0] ||
		    gd_cpulist_parse((struct gd_slice){ p->cpus_allowed, strlen(p->cpus_allowed) }, allowed,
				     sizeof allowed) <= 0)
			continue;
		GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
			const struct gd_pci_gpu *pg;
			bool near = false, placed = false;

			if (!gpu_live(g) || !gpci_proc_uses(b, p, g) || !(pg = gpci_of(b, g)) || !pg->numa_node.ok)
				continue;
			GD_VEC_EACH(b->cpus, const struct gd_cpus, c) {
				if (!c->cpu.ok || !c->numa_node.ok || !gd_cpulist_has(allowed, sizeof allowed, c->cpu.v))
					continue;
				placed = true;
				near |= c->numa_node.v == pg->numa_node.v;
			}
			if (!placed)
				continue;
			judged++;
			if (near)
				continue;
			if (!nfar++)
				first_node = pg->numa_node.v;
			size_t used = strlen(far);
			/* TRANSLATORS: a list of GPUs and their NUMA nodes, said in "... but
			 * uses <list>"; the form starting ", " follows another item */
			snprintf(far + used, sizeof far - used, used ? _(", %s on node %llu") : _("%s on node %llu"),
				 gpu_name(g).s, (unsigned long long)pg->numa_node.v);
		}
		if (!nfar)
			continue;
		/* the nodes its CPUs are on */
		GD_VEC_EACH(b->cpus, const struct gd_cpus, c) {
			char one[12];

			if (!c->cpu.ok || !c->numa_node.ok || !gd_cpulist_has(allowed, sizeof allowed, c->cpu.v))
				continue;
			snprintf(one, sizeof one, "%llu", (unsigned long long)c->numa_node.v);
			if (!gpci_num_in(nodes_txt, c->numa_node.v) && strlen(nodes_txt) + strlen(one) + 2 < sizeof nodes_txt)
				snprintf(nodes_txt + strlen(nodes_txt), sizeof nodes_txt - strlen(nodes_txt), "%s%s",
					 nodes_txt[0] ? "," : "", one);
		}
		f = gd_finding_add(rc, out, rc->rule->severity, "pid %llu (%s)", (unsigned long long)p->pid.v, p->comm);
		/* TRANSLATORS: pid <pid> (<command>) may run only on CPUs <0-3> (NUMA node <0,1>) but uses <GPU list> */
		gd_finding_summary(f, _("pid %llu (%s) may run only on CPUs %s (NUMA node %s) but uses %s: its copies to "
					"the GPU cross the CPU interconnect."), (unsigned long long)p->pid.v, p->comm, p->cpus_allowed,
				   nodes_txt, far);
		gd_finding_ev_text(f, "cpus_allowed", p->cpus_allowed);
		gd_finding_ev_text(f, "cpu_nodes", nodes_txt);
		gd_finding_ev(f, "gpu_numa_node", (double)first_node, "", NAN);
		gd_finding_ev(f, "far_gpus", (double)nfar, "", NAN);
		gd_finding_remedy(f, _("Bind the job near its GPU: numactl --cpunodebind=%llu --membind=%llu, or let the "
				       "scheduler's topology manager place it (Kubernetes topologyManagerPolicy, Slurm "
				       "--gpu-bind=closest)."), (unsigned long long)first_node, (unsigned long long)first_node);
		fired++;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	(void)judged;
	return GD_VERDICT_CLEAR;
}

/* ---- net.gpu_nic_far ------------------------------------------------------------ */

enum topo_level { T_SWITCH, T_PHB, T_NODE, T_SYS };

static const char *level_name(enum topo_level l)
{
	static const char *const names[] = { "PXB", "PHB", "NODE", "SYS" };

	return names[l];
}

/* Components the two paths share from the start ("pci0000:38", then
 * bridges). */
static size_t shared_components(const char *x, const char *y)
{
	size_t n = 0;

	while (*x && *y) {
		size_t lx = strcspn(x, "/"), ly = strcspn(y, "/");

		if (lx != ly || memcmp(x, y, lx) != 0)
			break;
		n++;
		x += lx + (x[lx] == '/');
		y += ly + (y[ly] == '/');
	}
	return n;
}

static enum topo_level level_of(const struct gd_pci_gpu *g, const struct gd_pci_nic *n, size_t nodes)
{
	size_t shared = g->pci_path[0] && n->pci_path[0] ? shared_components(g->pci_path, n->pci_path) : 0;

	if (shared >= 2)
		return T_SWITCH;
	if (shared == 1)
		return T_PHB;
	if (nodes > 1 && g->numa_node.ok && n->numa_node.ok && g->numa_node.v != n->numa_node.v)
		return T_SYS;
	return T_NODE;
}

/* nvidia-smi topo -m's words, nearest first (SOC is read as SYS). */
static int topo_rank(const char *link)
{
	static const char *const words[] = { "PIX", "PXB", "PHB", "NODE", "SYS" };

	for (int i = 0; i < 5; i++)
		if (strcmp(link, words[i]) == 0)
			return i;
	return -1;
}

/* net.gpu_nic_far from nvidia-smi topo -m (pci_topo[]): a GPU row whose
 * nearest NIC column is SYS.  Returns the number of findings, or -1 when
 * the matrix has no NIC column. */
static int gpu_nic_far_topo(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_snapshot *b)
{
	size_t nics = 0;
	int fired = 0;
	char seen_nics[512] = "";

	GD_VEC_EACH(b->pci_topo, const struct gd_pci_topo, c) {
		char key[40];

		if (strncmp(c->b, "GPU", 3) == 0)
			continue;
		snprintf(key, sizeof key, "|%s|", c->b);
		if (!strstr(seen_nics, key) && strlen(seen_nics) + strlen(key) < sizeof seen_nics) {
			strcat(seen_nics, key);
			nics++;
		}
	}
	if (!nics)
		return -1;
	for (size_t i = 0; i < b->pci_topo.n; i++) {
		const struct gd_pci_topo *row = GD_VEC_AT(b->pci_topo, const struct gd_pci_topo, i), *best = NULL;
		char subject[40];
		struct gd_finding *f;
		bool first = true;

		for (size_t j = 0; j < i; j++)   /* each GPU row once */
			first &= strcmp(GD_VEC_AT(b->pci_topo, const struct gd_pci_topo, j)->a, row->a) != 0;
		if (!first)
			continue;
		GD_VEC_EACH(b->pci_topo, const struct gd_pci_topo, c) {
			if (strcmp(c->a, row->a) != 0 || strncmp(c->b, "GPU", 3) == 0 || topo_rank(c->link) < 0)
				continue;
			if (!best || topo_rank(c->link) < topo_rank(best->link))
				best = c;
		}
		if (!best || strcmp(best->link, "SYS") != 0)
			continue;
		snprintf(subject, sizeof subject, "gpu%s", row->a + 3);
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", subject);
		/* TRANSLATORS: <gpu4> reaches its nearest RDMA NIC, <mlx5_0>, only across the CPU interconnect (SYS in
		 * nvidia-smi topo -m) */
		gd_finding_summary(f, _("%s reaches its nearest RDMA NIC, %s, only across the CPU interconnect (SYS in "
					"nvidia-smi topo -m): GPUDirect RDMA is slow or off for it."), subject,
				   best->b_device[0] ? best->b_device : best->b);
		gd_finding_ev_text(f, "distance", "SYS");
		gd_finding_ev_text(f, "nearest_rdma", best->b_device[0] ? best->b_device : best->b);
		gd_finding_ev(f, "rdma_nics", (double)nics, "", NAN);
		fired++;
	}
	return fired;
}

enum gd_verdict gd_rule_net_gpu_nic_far(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	size_t nodes, rdma = 0, fired = 0;

	if (!b)
		return gd_rule_unknown(rc, _("no snapshot"));
	GD_VEC_EACH(b->pci_nics, const struct gd_pci_nic, n)
		rdma += n->rdma_device[0] != '\0';
	if (!rdma && b->pci_topo.n) {
		int t = gpu_nic_far_topo(rc, out, b);

		if (t >= 0)
			return t ? GD_VERDICT_FIRED : GD_VERDICT_CLEAR;
	}
	if (!gpci_seen(b))
		return gd_rule_unknown(rc, _("no PCI evidence (/sys/bus/pci/devices not read)"));
	if (!rdma || !gpci_host_gpus(b))
		return GD_VERDICT_CLEAR;   /* nothing to pair */
	nodes = numa_nodes(b);
	GD_VEC_EACH(b->pci_gpus, const struct gd_pci_gpu, g) {
		const struct gd_pci_nic *best = NULL;
		enum topo_level lv = T_SYS;
		const struct gd_gpu *ng;
		char subject[96], name[128];
		struct gd_finding *f;

		if (gpci_passed_through(g))
			continue;
		GD_VEC_EACH(b->pci_nics, const struct gd_pci_nic, n) {
			enum topo_level l;

			if (!n->rdma_device[0])
				continue;
			l = level_of(g, n, nodes);
			if (!best || l < lv) {
				best = n;
				lv = l;
			}
		}
		if (!best || lv != T_SYS)
			continue;
		ng = gpci_nvml_gpu(b, g->pci_bus_id);
		/* the subject (a label value: never translated), and the same as the
		 * summary says it */
		if (ng) {
			snprintf(subject, sizeof subject, "%s", gpu_name(ng).s);
			snprintf(name, sizeof name, "%s", subject);
		} else {
			snprintf(subject, sizeof subject, "gpu at %s", g->pci_bus_id);
			snprintf(name, sizeof name, _("gpu at %s"), g->pci_bus_id);
		}
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", subject);
		/* TRANSLATORS: <gpu> on NUMA node <n> reaches its nearest RDMA NIC, <mlx5_0> (<PCI address>, node
		 * <n>), only across the CPU interconnect (<SYS: nvidia-smi topo -m's word>) */
		gd_finding_summary(f, _("%s on NUMA node %llu reaches its nearest RDMA NIC, %s (%s, node %llu), only across "
					"the CPU interconnect (%s): GPUDirect RDMA is slow or off for it."), name,
				   (unsigned long long)g->numa_node.v, best->rdma_device, best->pci_bus_id,
				   (unsigned long long)best->numa_node.v, level_name(lv));
		gd_finding_ev_text(f, "distance", level_name(lv));
		gd_finding_ev_text(f, "nearest_rdma", best->rdma_device);
		gd_finding_ev(f, "gpu_numa_node", (double)g->numa_node.v, "", NAN);
		gd_finding_ev(f, "nic_numa_node", (double)best->numa_node.v, "", NAN);
		gd_finding_ev(f, "rdma_nics", (double)rdma, "", NAN);
		fired++;
	}
	return fired ? GD_VERDICT_FIRED : GD_VERDICT_CLEAR;
}
