/*
 * lspci.c - `lspci -vv` (any of -D, -nn, -vvv, -xxx) into pci_gpus[]: the
 * NVIDIA display functions and their PCIe link.
 *
 *     3b:00.0 3D controller [0302]: NVIDIA Corporation GA100 [A100 SXM4 80GB] [10de:20b2] (rev a1)
 *             NUMA node: 0
 *             Capabilities: [68] Express (v2) Endpoint, MSI 00
 *                     LnkCap: Port #0, Speed 16GT/s, Width x16, ASPM not supported
 *                     LnkSta: Speed 2.5GT/s (downgraded), Width x8 (downgraded)
 *             Kernel driver in use: nvidia
 *
 * pciutils 3.6 (2018) added "(ok)"/"(downgraded)" after LnkSta's values;
 * older ones print "Speed 8GT/s, Width x16, TrErr- ...".  Only functions of
 * class VGA, 3D or Display from NVIDIA are kept (not the audio function, not
 * NVSwitch bridges).  A current link below the maximum is recorded as it is:
 * GPUs drop to Gen1 when idle, so it is for the rules, with utilisation, to
 * judge (FACTS.md §2.10).
 */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "offline/offline.h"
#include "offline/ofl.h"

static uint64_t gen_of(double gts)
{
	static const double speeds[] = { 2.5, 5, 8, 16, 32, 64 };

	for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
		if (fabs(gts - speeds[i]) < 0.01)
			return i + 1;
	return 0;
}

/* "Speed 16GT/s, Width x16" (with or without "(ok)"): speed and width. */
static bool link(struct gd_slice v, struct gd_f64 *speed, struct gd_u64 *gen, struct gd_u64 *width)
{
	struct gd_slice f[24];
	size_t n = gd_tok_split(v, f, 24);
	bool any = false;

	for (size_t i = 0; i + 1 < n; i++) {
		struct gd_slice x = f[i + 1];

		while (x.n && (x.p[x.n - 1] == ',' || x.p[x.n - 1] == ';'))
			x.n--;
		if (ofl_ieq(f[i], "Speed")) {
			double gts;

			if (x.n > 4 && ofl_ieq((struct gd_slice){ x.p + x.n - 4, 4 }, "GT/s") &&
			    gd_tok_f64((struct gd_slice){ x.p, x.n - 4 }, &gts) && gts > 0 && gts < 1000) {
				gd_f64_set(speed, gts);
				if (gen_of(gts))
					gd_u64_set(gen, gen_of(gts));
				any = true;
			}
		} else if (ofl_ieq(f[i], "Width")) {
			uint64_t w;

			if (x.n > 1 && (x.p[0] == 'x' || x.p[0] == 'X') && gd_tok_u64((struct gd_slice){ x.p + 1, x.n - 1 }, &w) &&
			    w <= 32) {
				gd_u64_set(width, w);
				any = true;
			}
		}
	}
	return any;
}

/* A device header line at column 0: "3b:00.0 3D controller: NVIDIA ..." */
static bool header(struct gd_slice line, char *bus, size_t busz, struct gd_slice *rest)
{
	size_t i = 0;

	while (i < line.n && line.p[i] != ' ')
		i++;
	if (i == line.n || !ofl_bus_id((struct gd_slice){ line.p, i }, bus, busz))
		return false;
	*rest = (struct gd_slice){ line.p + i + 1, line.n - i - 1 };
	return true;
}

static uint64_t class_of(struct gd_slice rest)
{
	if (gd_tok_prefix(rest, "VGA compatible controller"))
		return 0x030000;
	if (gd_tok_prefix(rest, "3D controller"))
		return 0x030200;
	if (gd_tok_prefix(rest, "Display controller"))
		return 0x038000;
	return 0;
}

int gd_parse_lspci(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_tok_tally t = { 0, 0, 0, NULL };
	struct gd_pci_gpu *cur = NULL;
	struct gd_lines it;
	struct gd_slice line;
	size_t devices = 0;
	int rc;

	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		struct gd_slice rest, k, v, tl;
		char bus[32];

		line = ofl_chomp(line);
		if (!line.n)
			continue;
		if (gd_tok_is_binary(line.p, line.n)) {
			gd_tok_tally_skip(&t, it.lineno, "binary bytes");
			continue;
		}
		if (line.p[0] != ' ' && line.p[0] != '\t') {
			cur = NULL;
			if (!header(line, bus, sizeof bus, &rest))
				continue;
			devices++;
			t.parsed++;
			if (!class_of(rest) || !ofl_contains(rest, "NVIDIA"))
				continue;
			cur = (struct gd_pci_gpu *)(uintptr_t)gd_vec_find_str(&s->pci_gpus, sizeof *cur, offsetof(struct gd_pci_gpu, pci_bus_id), bus);
			if (!cur) {
				cur = GD_PUSH(s, pci_gpus, struct gd_pci_gpu);
				GD_STRSET(cur->pci_bus_id, bus);
			}
			gd_u64_set(&cur->pci_class, class_of(rest));
			for (size_t i = 0; i + 10 <= rest.n; i++) {
				uint64_t id;

				if (strncmp(rest.p + i, "[10de:", 6) == 0 && rest.p[i + 10] == ']') {
					char hex[8];

					memcpy(hex, rest.p + i + 6, 4);
					hex[4] = '\0';
					if (sscanf(hex, "%4llx", (unsigned long long *)&id) == 1)
						gd_u64_set(&cur->device_id, id);
				}
			}
			continue;
		}
		if (!cur)
			continue;
		tl = gd_tok_trim(line);
		if (!gd_tok_kv(tl, ':', &k, &v))
			continue;
		if (ofl_ieq(k, "LnkCap")) {
			if (!link(v, &cur->link_speed_max_gts, &cur->link_gen_max, &cur->link_width_max))
				gd_tok_tally_skip(&t, it.lineno, "LnkCap without Speed and Width");
		} else if (ofl_ieq(k, "LnkSta")) {
			if (!link(v, &cur->link_speed_gts, &cur->link_gen, &cur->link_width))
				gd_tok_tally_skip(&t, it.lineno, "LnkSta without Speed and Width");
		} else if (ofl_ieq(k, "Kernel driver in use")) {
			gd_tok_copy(cur->driver, sizeof cur->driver, v);
		} else if (ofl_ieq(k, "NUMA node")) {
			uint64_t n;

			if (gd_tok_u64(v, &n))
				gd_u64_set(&cur->numa_node, n);
		}
	}
	if (!devices)
		return gd_err_set(err, -EINVAL, "no PCI device line (\"3b:00.0 3D controller: ...\"): not lspci output");
	rc = gd_tok_tally_result(&t, "lspci", err);
	return rc < 0 && s->pci_gpus.n ? 1 : rc;
}
