/*
 * rule_gpu_p2p.c - gpu.p2p_acs_redirect (warning): peer-to-peer traffic
 * between two GPUs, or between a GPU and an RDMA NIC (GPUDirect RDMA), that
 * a PCIe bridge or the IOMMU sends up through the CPU's root complex.
 *
 * ACS (Access Control Services, PCIe extended capability 0x000D) lets a
 * switch or root port redirect peer requests (ReqRedir) and completions
 * (CmpltRedir) upstream instead of routing them straight to the peer: the
 * data then crosses the root complex (and the IOMMU), at a fraction of the
 * bandwidth, and on some platforms NCCL hangs (NCCL's troubleshooting
 * guide; nccl issues 19, 304, 523, 2079).  An IOMMU that translates the
 * GPUs' DMA (domain type DMA or DMA-FQ, not identity) does the same to
 * peer traffic.  Example: gpu0 at 0000:43:00.0 and gpu1 at 0000:52:00.0
 * share host bridge pci0000:38; the switch port 0000:41:00.0 above gpu0
 * has ACSCtl ReqRedir+ CmpltRedir+.
 *
 * The path between two devices: the bridges of each device's sysfs path
 * (pci_gpus[].pci_path, pci_nics[].pci_path) below the deepest one they
 * share, on both sides (the downstream ports of a common switch, or each
 * side's root port and switch ports when they meet at the host bridge).
 * Pairs known to sit on different NUMA nodes under different host bridges
 * are left out: their traffic crosses the CPU interconnect anyway (SYS);
 * so are two GPUs that both have NVLinks up (their P2P takes NVLink; a
 * GPU and a NIC still meet on PCIe).
 * Evidence: pci_bridges[] (sys_bus_pci_acs.c, lspci -vvv), pci_iommu[],
 * and nvidia-smi topo -m (pci_topo[]) when no bridge was read.
 */
#include "rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collect/pci_acs.h"
#include "core/xalloc.h"
#include "rules/rule_gpu.h"
#include "rules/rule_gpu_pci.h"

#define MAX_ENDS 64

struct end {
	char name[64];          /* "gpu0 (0000:43:00.0)", "mlx5_0 (0000:3b:00.0)" */
	char shortname[32];     /* "gpu0", "mlx5_0" */
	char bdf[32];
	const char *path;
	bool gpu;
	bool nvlink;            /* NVML counts NVLinks up: GPU-to-GPU traffic takes them */
	bool numa_ok;
	uint64_t numa;
	bool has_peer;
};

/* What a redirecting bridge stands between. */
struct hit {
	char below[160];        /* the devices under it on the paths ("gpu1 (0000:43:00.0)") */
	char peers[160];        /* their peers across it ("gpu0, gpu2, mlx5_0") */
	size_t pairs;
	size_t mark;            /* the last pair counted */
};

/* Appends name to a ", "-separated list unless it is there; "..." once full. */
static void list_add(char *list, size_t size, const char *name)
{
	size_t used = strlen(list);
	char key[72];

	snprintf(key, sizeof key, "%s", name);
	if (strstr(list, key) || (used >= 3 && strcmp(list + used - 3, "...") == 0))
		return;
	if (used + strlen(name) + 6 >= size) {
		if (used + 6 < size)
			snprintf(list + used, size - used, ", ...");
		return;
	}
	snprintf(list + used, size - used, "%s%s", used ? ", " : "", name);
}

struct tally {
	size_t pairs;           /* pairs judged */
	size_t unread, short_read;
	const struct gd_pci_bridge *first_short;
	char first_unread[32];
	char unread_seen[1024];  /* "|bdf|" of each unread bridge counted */
};

static size_t shared_prefix(const char *x, const char *y, size_t *xoff, size_t *yoff)
{
	size_t n = 0, i = 0, j = 0;

	*xoff = *yoff = 0;
	while (x[i] && y[j]) {
		size_t lx = strcspn(x + i, "/"), ly = strcspn(y + j, "/");

		if (lx != ly || memcmp(x + i, y + j, lx) != 0)
			break;
		n++;
		i += lx + (x[i + lx] == '/');
		j += ly + (y[j + ly] == '/');
		*xoff = i;
		*yoff = j;
	}
	return n;
}

static const struct gd_pci_bridge *bridge_of(const struct gd_snapshot *s, const char *bdf, size_t n)
{
	GD_VEC_EACH(s->pci_bridges, const struct gd_pci_bridge, br)
		if (strlen(br->pci_bus_id) == n && strncasecmp(br->pci_bus_id, bdf, n) == 0)
			return br;
	return NULL;
}

static bool redirects(const struct gd_pci_bridge *br)
{
	return br->acs_ctl.ok && (br->acs_ctl.v & GD_ACS_REDIRECT);
}

/* The ends: host GPUs and RDMA NICs with a known path. */
static size_t ends_of(const struct gd_snapshot *b, struct end *e, size_t max)
{
	size_t n = 0;

	GD_VEC_EACH(b->pci_gpus, const struct gd_pci_gpu, g) {
		const struct gd_gpu *ng;

		if (n == max || !gpci_host_gpu(g) || !g->pci_path[0])
			continue;
		memset(&e[n], 0, sizeof e[n]);
		ng = gpci_nvml_gpu(b, g->pci_bus_id);
		if (ng)
			snprintf(e[n].name, sizeof e[n].name, "%s", gpu_name(ng).s);
		else
			snprintf(e[n].name, sizeof e[n].name, "gpu at %s", g->pci_bus_id);
		GD_STRSET(e[n].bdf, g->pci_bus_id);
		if (ng && ng->index.ok)
			snprintf(e[n].shortname, sizeof e[n].shortname, "gpu%llu", (unsigned long long)ng->index.v);
		else
			GD_STRSET(e[n].shortname, g->pci_bus_id);
		e[n].path = g->pci_path;
		e[n].gpu = true;
		e[n].nvlink = ng && ng->nvlink_up_links.ok && ng->nvlink_up_links.v > 0;
		e[n].numa_ok = g->numa_node.ok;
		e[n].numa = g->numa_node.v;
		n++;
	}
	GD_VEC_EACH(b->pci_nics, const struct gd_pci_nic, c) {
		if (n == max || !c->rdma_device[0] || !c->pci_path[0])
			continue;
		memset(&e[n], 0, sizeof e[n]);
		snprintf(e[n].name, sizeof e[n].name, "%.24s (%.24s)", c->rdma_device, c->pci_bus_id);
		GD_STRSET(e[n].bdf, c->pci_bus_id);
		GD_STRSET(e[n].shortname, c->rdma_device);
		e[n].path = c->pci_path;
		e[n].numa_ok = c->numa_node.ok;
		e[n].numa = c->numa_node.v;
		n++;
	}
	return n;
}

/* The bridges of x's path after offset off (the side of the pair that is
 * x's): each one's record is judged, and a redirecting one notes the pair. */
static void walk(const struct gd_snapshot *b, const struct end *x, size_t off, const struct end *y, size_t pair_mark,
		 struct hit *hits, struct tally *t)
{
	const char *p = x->path + off;

	while (*p) {
		size_t n = strcspn(p, "/");
		const struct gd_pci_bridge *br;

		if (n && strncmp(p, "pci", 3) != 0) {
			br = bridge_of(b, p, n);
			if (!br || !br->config_bytes.ok) {
				char key[40];

				snprintf(key, sizeof key, "|%.*s|", (int)(n < 32 ? n : 32), p);
				if (!strstr(t->unread_seen, key)) {
					if (strlen(t->unread_seen) + strlen(key) < sizeof t->unread_seen)
						strcat(t->unread_seen, key);
					if (!t->unread++)
						snprintf(t->first_unread, sizeof t->first_unread, "%.*s", (int)(n < 31 ? n : 31), p);
				}
			} else if (br->config_bytes.v < 0x104) {
				if (!t->short_read++)
					t->first_short = br;
			} else if (redirects(br)) {
				struct hit *h = &hits[br - (const struct gd_pci_bridge *)b->pci_bridges.items];

				list_add(h->below, sizeof h->below, x->name);
				list_add(h->peers, sizeof h->peers, y->shortname);
				if (h->mark != pair_mark) {
					h->mark = pair_mark;
					h->pairs++;
				}
			}
		}
		p += n + (p[n] == '/');
	}
}

static void report_bridge(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_pci_bridge *br,
			  const struct hit *h)
{
	char bits[96], cap[96];
	struct gd_finding *f;

	gd_acs_bits_text(br->acs_ctl.v & GD_ACS_REDIRECT, bits, sizeof bits);
	f = gd_finding_add(rc, out, rc->rule->severity, "bridge %s", br->pci_bus_id[0] ? br->pci_bus_id : "?");
	/* TRANSLATORS: PCIe bridge <address>, above <gpu1 (0000:43:00.0)>, has ACS <ReqRedir+ CmpltRedir+> enabled:
	 * its peer-to-peer traffic with <gpu0, gpu2, mlx5_0> ... */
	gd_finding_summary(f, _("PCIe bridge %s, above %s, has ACS %s enabled: its peer-to-peer traffic with %s (GPU "
				"to GPU, GPUDirect RDMA) is sent up through the CPU's root complex, which is slower, and "
				"NCCL may hang."), br->pci_bus_id, h->below, bits, h->peers);
	gd_finding_ev_text(f, "acs_ctl", bits);
	gd_finding_ev(f, "acs_ctl_bits", (double)br->acs_ctl.v, "", NAN);
	if (br->acs_cap.ok) {
		gd_acs_bits_text(br->acs_cap.v, cap, sizeof cap);
		gd_finding_ev_text(f, "acs_cap", cap);
	}
	gd_finding_ev(f, "peer_pairs", (double)h->pairs, "", NAN);
	gd_finding_ev_text(f, "source", br->source);
	gd_finding_remedy(f, _("Disable ACS redirection on this port: in the BIOS (PCIe ACS control: disabled), or "
			       "as root after each boot with setpci -s %s ECAP_ACS+6.w=0000; NCCL_P2P_DISABLE=1 is "
			       "only a stopgap that gives up P2P bandwidth."), br->pci_bus_id);
}

/* ACSCtl lines whose bridge is not on a known path (a paste of
 * `lspci -vvv | grep ACSCtl`, or bridges without the devices below them). */
static bool report_unplaced(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_snapshot *b)
{
	size_t n = 0, on = 0;
	char names[160] = "", bits[96] = "";
	struct gd_finding *f;

	GD_VEC_EACH(b->pci_bridges, const struct gd_pci_bridge, br) {
		if (strcmp(br->source, "lspci") != 0 || !br->acs_ctl.ok)
			continue;
		n++;
		if (!redirects(br))
			continue;
		if (!on++)
			gd_acs_bits_text(br->acs_ctl.v & GD_ACS_REDIRECT, bits, sizeof bits);
		if (br->pci_bus_id[0] && strlen(names) + strlen(br->pci_bus_id) + 3 < sizeof names)
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? ", " : "",
				 br->pci_bus_id);
	}
	if (!on)
		return false;
	f = gd_finding_add(rc, out, rc->rule->severity, "lspci");
	if (names[0])
		/* TRANSLATORS: <n> of the <m> bridges with an ACSCtl line ... (<bus ids>) */
		gd_finding_summary(f, _("%zu of the %zu PCIe bridges with an ACSCtl line have ACS %s enabled (%s): "
					"peer-to-peer traffic through them goes up to the CPU's root complex, slower, and "
					"NCCL may hang; the output does not show which GPUs sit below them."), on, n, bits,
				   names);
	else
		gd_finding_summary(f, _("%zu of the %zu ACSCtl lines show ACS %s enabled: peer-to-peer traffic "
					"through those bridges goes up to the CPU's root complex, slower, and NCCL may "
					"hang; the lines do not say which bridges they are (lspci -vvv without grep "
					"does)."), on, n, bits);
	gd_finding_ev(f, "redirecting_bridges", (double)on, "", NAN);
	gd_finding_ev(f, "acs_bridges", (double)n, "", NAN);
	gd_finding_ev_text(f, "acs_ctl", bits);
	gd_finding_remedy(f, _("Disable ACS on the PCIe switch ports in the BIOS, or as root after each boot with "
			       "setpci -s <bridge> ECAP_ACS+6.w=0000 for each of them (lspci -vvv names them); "
			       "NCCL_P2P_DISABLE=1 is only a stopgap that gives up P2P bandwidth."));
	return true;
}

static bool report_iommu(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_snapshot *b,
			 const struct end *e, size_t ne)
{
	char list[256] = "", type[16] = "", one[96];
	size_t n = 0;
	struct gd_finding *f;

	for (size_t i = 0; i < ne; i++) {
		if (!e[i].gpu || !e[i].has_peer)
			continue;
		GD_VEC_EACH(b->pci_iommu, const struct gd_pci_iommu, m) {
			if (strcasecmp(m->pci_bus_id, e[i].bdf) != 0 || !m->group.ok ||
			    (strcmp(m->type, "DMA") != 0 && strcmp(m->type, "DMA-FQ") != 0))
				continue;
			if (!n++)
				GD_STRSET(type, m->type);
			snprintf(one, sizeof one, "%.63s group %llu", e[i].name, (unsigned long long)m->group.v);
			list_add(list, sizeof list, one);
		}
	}
	if (!n)
		return false;
	f = gd_finding_add(rc, out, rc->rule->severity, "iommu");
	/* TRANSLATORS: The IOMMU translates the DMA of <n> GPU(s) (<gpu0 (..) group 42, ...>; domain type <DMA-FQ>) */
	gd_finding_summary(f, _("The IOMMU translates the DMA of %zu GPU(s) (%s; domain type %s, not identity): their "
				"peer-to-peer and GPUDirect RDMA traffic goes through the root complex for translation, "
				"slower, and NCCL may hang."), n, list, type);
	gd_finding_ev(f, "translated_gpus", (double)n, "", NAN);
	gd_finding_ev_text(f, "iommu_type", type);
	gd_finding_remedy(f, _("Boot with iommu=pt (with intel_iommu=on or amd_iommu=on) so the GPUs' DMA passes "
			       "through untranslated, on bare metal; in a virtual machine that passes GPUs through, "
			       "the translation is needed."));
	return true;
}

/* nvidia-smi topo -m's PCIe pairs (PIX, PXB, PHB) in words: "GPU0-GPU1 PIX, GPU0-NIC0 PXB". */
static size_t topo_pcie_pairs(const struct gd_snapshot *b, char *out, size_t outsz)
{
	size_t n = 0;

	out[0] = '\0';
	GD_VEC_EACH(b->pci_topo, const struct gd_pci_topo, c) {
		bool pcie = strcmp(c->link, "PIX") == 0 || strcmp(c->link, "PXB") == 0 || strcmp(c->link, "PHB") == 0;

		/* each GPU pair once: the row's index below the column's */
		if (!pcie || (strncmp(c->b, "GPU", 3) == 0 && atoi(c->a + 3) >= atoi(c->b + 3)))
			continue;
		if (n++ < 4 && strlen(out) + strlen(c->a) + strlen(c->b) + 16 < outsz)
			snprintf(out + strlen(out), outsz - strlen(out), "%s%s-%s %s", out[0] ? ", " : "", c->a,
				 c->b_device[0] ? c->b_device : c->b, c->link);
	}
	return n;
}

enum gd_verdict gd_rule_gpu_p2p_acs_redirect(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	struct end e[MAX_ENDS];
	struct tally t = { 0 };
	size_t ne, nb, fired = 0, pair_mark = 0;
	struct hit *hits;
	char topo[200];
	size_t ntopo;

	if (!b)
		return gd_rule_unknown(rc, _("no snapshot"));
	ne = ends_of(b, e, MAX_ENDS);
	nb = b->pci_bridges.n;
	hits = nb ? gd_xcalloc(nb, sizeof *hits) : NULL;
	for (size_t i = 0; i < ne; i++) {
		for (size_t j = i + 1; j < ne; j++) {
			size_t xo, yo, shared;

			if ((!e[i].gpu && !e[j].gpu) || (e[i].nvlink && e[j].nvlink))
				continue;   /* two NICs; two GPUs that talk over NVLink */
			shared = shared_prefix(e[i].path, e[j].path, &xo, &yo);
			if (!shared && e[i].numa_ok && e[j].numa_ok && e[i].numa != e[j].numa)
				continue;   /* across sockets: SYS, the interconnect anyway */
			e[i].has_peer = e[j].has_peer = true;
			t.pairs++;
			pair_mark++;
			walk(b, &e[i], xo, &e[j], pair_mark, hits, &t);
			walk(b, &e[j], yo, &e[i], pair_mark, hits, &t);
		}
	}
	for (size_t i = 0; i < nb; i++)
		if (hits[i].pairs) {
			report_bridge(rc, out, GD_VEC_AT(b->pci_bridges, const struct gd_pci_bridge, i), &hits[i]);
			fired++;
		}
	free(hits);
	fired += report_iommu(rc, out, b, e, ne);
	if (!fired && !t.pairs)
		fired += report_unplaced(rc, out, b);
	if (fired)
		return GD_VERDICT_FIRED;
	if (t.short_read)
		return gd_rule_unknown(rc, _("the config space of bridge %s reads only %llu bytes (not as root): its ACS "
					     "control is unavailable"), t.first_short->pci_bus_id,
				       (unsigned long long)t.first_short->config_bytes.v);
	if (t.unread)
		return gd_rule_unknown(rc, _("the config space of %zu bridge(s) on the paths between GPUs was not read "
					     "(%s first)"), t.unread, t.first_unread);
	if (!t.pairs && (ntopo = topo_pcie_pairs(b, topo, sizeof topo)))
		return gd_rule_unknown(rc, _("nvidia-smi topo -m shows %zu PCIe peer path(s) (%s%s) but not the ACS "
					     "control of their bridges: sudo lspci -vvv shows it"), ntopo, topo,
				       ntopo > 4 ? ", ..." : "");
	if (!t.pairs && !gpci_seen(b) && !b->pci_bridges.n)
		return gd_rule_unknown(rc, _("no PCI evidence (/sys/bus/pci/devices not read)"));
	return GD_VERDICT_CLEAR;
}
