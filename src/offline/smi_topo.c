/*
 * smi_topo.c - `nvidia-smi topo -m` (the GPUDirect topology matrix) into
 * pci_topo[]: one record per GPU row and column, with the link between them.
 *
 *             GPU0    GPU1    NIC0    CPU Affinity    NUMA Affinity   GPU NUMA ID
 *     GPU0     X      PIX     PXB     0-55,112-167    0               N/A
 *     GPU1    PIX      X      PXB     0-55,112-167    0               N/A
 *     NIC0    PXB     PXB      X
 *
 *     Legend:
 *       X    = Self
 *       SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
 *       NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
 *       PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
 *       PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
 *       PIX  = Connection traversing at most a single PCIe bridge
 *       NV#  = Connection traversing a bonded set of # NVLinks
 *
 *     NIC Legend:
 *       NIC0: mlx5_0
 *
 * Cells are separated by tabs (newer drivers) or blanks (older ones, and
 * pastes); the columns after the devices (CPU Affinity, NUMA Affinity, GPU
 * NUMA ID) are optional and may be missing.  Older drivers name NICs in the
 * header (mlx5_0, mlx4_0) instead of NIC<n> and a legend, and print SOC for
 * what is now SYS.  Only GPU rows are kept: the matrix is symmetric.  A row
 * with a cell that is not a link word is skipped with its line number.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "offline/offline.h"
#include "offline/ofl.h"

#define MAX_COLS 72

static bool link_word(struct gd_slice w)
{
	static const char *const words[] = { "X", "PIX", "PXB", "PHB", "NODE", "SYS", "SOC" };

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (gd_tok_eq(w, words[i]))
			return true;
	if (w.n >= 3 && w.n <= 5 && w.p[0] == 'N' && w.p[1] == 'V') {
		for (size_t i = 2; i < w.n; i++)
			if (w.p[i] < '0' || w.p[i] > '9')
				return false;
		return true;
	}
	return false;
}

static bool is_gpu(struct gd_slice w)
{
	if (w.n < 4 || w.n > 6 || memcmp(w.p, "GPU", 3) != 0)
		return false;
	for (size_t i = 3; i < w.n; i++)
		if (w.p[i] < '0' || w.p[i] > '9')
			return false;
	return true;
}

/* The header: device names up to "CPU" (of CPU Affinity) or the end. */
static size_t header_cols(struct gd_slice *f, size_t n, char (*cols)[32])
{
	size_t c = 0;

	if (n == 0 || !is_gpu(f[0]))
		return 0;
	for (size_t i = 0; i < n && c < MAX_COLS; i++) {
		if (gd_tok_eq(f[i], "CPU") || gd_tok_eq(f[i], "NUMA") || gd_tok_eq(f[i], "GPU"))
			break;
		gd_tok_copy(cols[c++], sizeof cols[0], f[i]);
	}
	return c;
}

static void legend(struct gd_snapshot *s, size_t first, struct gd_slice name, struct gd_slice dev)
{
	char nm[32];

	gd_tok_copy(nm, sizeof nm, name);
	for (size_t i = first; i < s->pci_topo.n; i++) {
		struct gd_pci_topo *c = GD_VEC_AT(s->pci_topo, struct gd_pci_topo, i);

		if (strcmp(c->b, nm) == 0)
			gd_tok_copy(c->b_device, sizeof c->b_device, dev);
	}
}

int gd_parse_nvsmi_topo(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_tok_tally t = { 0, 0, 0, NULL };
	char cols[MAX_COLS][32];
	size_t ncols = 0, first = s->pci_topo.n, rows = 0;
	struct gd_lines it;
	struct gd_slice line;

	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		struct gd_slice f[MAX_COLS + 8], tl = gd_tok_trim(ofl_chomp(line));
		size_t n;

		if (!tl.n)
			continue;
		if (gd_tok_is_binary(tl.p, tl.n)) {
			gd_tok_tally_skip(&t, it.lineno, _("binary bytes"));
			continue;
		}
		n = gd_tok_split(tl, f, MAX_COLS + 8);
		/* "NIC0: mlx5_0" of the NIC Legend */
		if (n == 2 && f[0].n > 4 && memcmp(f[0].p, "NIC", 3) == 0 && f[0].p[f[0].n - 1] == ':') {
			legend(s, first, (struct gd_slice){ f[0].p, f[0].n - 1 }, f[1]);
			continue;
		}
		/* a header: GPU0 then another device or the affinity columns */
		if (gd_tok_eq(f[0], "GPU0") && (n == 1 || is_gpu(f[1]) || gd_tok_eq(f[1], "CPU") || gd_tok_prefix(f[1], "NIC") ||
						 gd_tok_prefix(f[1], "mlx"))) {
			ncols = header_cols(f, n, cols);   /* a header (a new matrix) */
			continue;
		}
		if (!ncols || n < 2 || !is_gpu(f[0]))
			continue;
		if (n < ncols + 1) {
			gd_tok_tally_skip(&t, it.lineno, _("a row with fewer cells than the header has devices"));
			continue;
		}
		{
			bool ok = true;

			for (size_t i = 0; i < ncols; i++)
				ok &= link_word(f[1 + i]);
			if (!ok) {
				gd_tok_tally_skip(&t, it.lineno, _("a cell that is not X, NV#, PIX, PXB, PHB, NODE or SYS"));
				continue;
			}
		}
		rows++;
		t.parsed++;
		for (size_t i = 0; i < ncols; i++) {
			struct gd_pci_topo *c;
			uint64_t node;

			if (gd_tok_eq(f[1 + i], "X"))
				continue;
			c = GD_PUSH(s, pci_topo, struct gd_pci_topo);
			gd_tok_copy(c->a, sizeof c->a, f[0]);
			GD_STRSET(c->b, cols[i]);
			if (!is_gpu((struct gd_slice){ cols[i], strlen(cols[i]) }) && strncmp(cols[i], "NIC", 3) != 0)
				GD_STRSET(c->b_device, cols[i]);   /* an old header names the NIC itself */
			gd_tok_copy(c->link, sizeof c->link, f[1 + i]);
			if (gd_tok_eq(f[1 + i], "SOC"))
				GD_STRSET(c->link, "SYS");
			/* CPU Affinity, then NUMA Affinity */
			if (n >= ncols + 3 && gd_tok_u64(f[ncols + 2], &node))
				gd_u64_set(&c->a_numa_node, node);
		}
	}
	if (!rows && !t.skipped)
		return gd_err_set(err, -EINVAL, _("no matrix (a header \"GPU0 GPU1 ... CPU Affinity\" and rows \"GPU0 X "
				    "PIX ...\"): not nvidia-smi topo -m"));
	return gd_tok_tally_result(&t, "nvidia-smi topo -m", err);
}
