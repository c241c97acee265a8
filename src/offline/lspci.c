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
 *
 * Fragments, as tickets hold them: LnkCap/LnkSta (and LnkCap2, whose
 * "Supported Link Speeds: 2.5-16GT/s" gives the fastest speed when LnkCap
 * is missing) without the device header above them (`lspci -vv | grep -i
 * gt`, three lines copied out of a block, a "LnkSta:" inside a sentence)
 * are one record without a bus id: "a PCIe device", which one is not said.
 * LnkSta's "(downgraded)" marks are kept (link_downgraded), so a fragment
 * without LnkCap still says its width is below what the device can do.
 *
 * Bridges (gpu.p2p_acs_redirect, FACTS.md 7.2): a "PCI bridge" header's
 * "Bus: primary=00, secondary=02, subordinate=05" and, as root, its
 *
 *             Capabilities: [148 v1] Access Control Services
 *                     ACSCap: SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-
 *                     ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-
 *
 * go to pci_bridges[] (source lspci); each GPU below bridges gets the
 * path of bridges above it (pci_path, outermost first) from their bus
 * ranges.  ACSCtl lines with no device above them (`lspci -vvv | grep
 * ACSCtl`) are bridges without an address.  An ACS word that is not
 * "Name+" or "Name-" is skipped with its line number.
 */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
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

/* "Speed 16GT/s, Width x16" (with or without "(ok)"): speed and width;
 * *marks gets lspci's "(downgraded)" marks (1 speed, 2 width) when it
 * printed any ("(ok)" or "(downgraded)"), else stays as it was. */
static bool link(struct gd_slice v, struct gd_f64 *speed, struct gd_u64 *gen, struct gd_u64 *width, struct gd_u64 *marks)
{
	struct gd_slice f[24];
	size_t n = gd_tok_split(v, f, 24);
	uint64_t m = 0;
	bool any = false, marked = false;

	for (size_t i = 0; i + 1 < n; i++) {
		struct gd_slice x = f[i + 1];
		uint64_t bit = ofl_ieq(f[i], "Speed") ? 1 : ofl_ieq(f[i], "Width") ? 2 : 0;

		while (x.n && (x.p[x.n - 1] == ',' || x.p[x.n - 1] == ';'))
			x.n--;
		if (bit && i + 2 < n && (gd_tok_prefix(f[i + 2], "(ok)") || gd_tok_prefix(f[i + 2], "(downgraded)"))) {
			marked = true;
			if (gd_tok_prefix(f[i + 2], "(downgraded)"))
				m |= bit;
		}
		if (bit == 1) {
			double gts;

			if (x.n > 4 && ofl_ieq((struct gd_slice){ x.p + x.n - 4, 4 }, "GT/s") &&
			    gd_tok_f64((struct gd_slice){ x.p, x.n - 4 }, &gts) && gts > 0 && gts < 1000) {
				gd_f64_set(speed, gts);
				if (gen_of(gts))
					gd_u64_set(gen, gen_of(gts));
				any = true;
			}
		} else if (bit == 2) {
			uint64_t w;

			if (x.n > 1 && (x.p[0] == 'x' || x.p[0] == 'X') && gd_tok_u64((struct gd_slice){ x.p + 1, x.n - 1 }, &w) &&
			    w <= 32) {
				gd_u64_set(width, w);
				any = true;
			}
		}
	}
	if (marks && marked && any)
		gd_u64_set(marks, m);
	return any;
}

/* LnkCap2's "Supported Link Speeds: 2.5-16GT/s, Crosslink- ...": the fastest. */
static void speeds2(struct gd_slice v, struct gd_pci_gpu *p)
{
	const char *lit = "Supported Link Speeds:";
	const char *at = memmem(v.p, v.n, lit, strlen(lit));
	struct gd_slice f[4], x;
	const char *dash;
	double gts;

	if (!at || p->link_speed_max_gts.ok)
		return;
	at += strlen(lit);
	if (gd_tok_split((struct gd_slice){ at, (size_t)(v.p + v.n - at) }, f, 4) < 1)
		return;
	x = f[0];
	while (x.n && (x.p[x.n - 1] == ',' || x.p[x.n - 1] == ';'))
		x.n--;
	dash = memchr(x.p, '-', x.n);
	if (dash)
		x = (struct gd_slice){ dash + 1, (size_t)(x.p + x.n - dash - 1) };
	if (x.n > 4 && ofl_ieq((struct gd_slice){ x.p + x.n - 4, 4 }, "GT/s") &&
	    gd_tok_f64((struct gd_slice){ x.p, x.n - 4 }, &gts) && gts > 0 && gts < 1000) {
		gd_f64_set(&p->link_speed_max_gts, gts);
		if (gen_of(gts))
			gd_u64_set(&p->link_gen_max, gen_of(gts));
	}
}

/* The link key of a line: "LnkSta:" at its start (after the indent), or,
 * in a line of prose ("the bit that matters LnkSta:\tSpeed ..."), after a
 * blank; *v gets the rest.  NULL when the line has none. */
static const char *lnk_key(struct gd_slice tl, struct gd_slice *v)
{
	static const char *const keys[] = { "LnkCap:", "LnkSta:", "LnkCap2:", "LnkSta2:" };

	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		size_t n = strlen(keys[i]);
		const char *at = memmem(tl.p, tl.n, keys[i], n);

		if (!at || (at != tl.p && at[-1] != ' ' && at[-1] != '\t'))
			continue;
		*v = gd_tok_trim((struct gd_slice){ at + n, (size_t)(tl.p + tl.n - at - n) });
		return keys[i];
	}
	return NULL;
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

/* "SrcValid+ TransBlk- ReqRedir+ ...": the bits marked '+' (pci_acs.h);
 * false when a word is not Name+ / Name- of ACS. */
static bool acs_words(struct gd_slice v, uint64_t *bits)
{
	static const char *const words[] = { "SrcValid", "TransBlk", "ReqRedir", "CmpltRedir",
					     "UpstreamFwd", "EgressCtrl", "DirectTrans" };
	struct gd_slice f[16];
	size_t n = gd_tok_split(v, f, 16), known = 0;

	*bits = 0;
	for (size_t i = 0; i < n; i++) {
		struct gd_slice w = f[i];
		size_t k;
		char sign;

		if (w.n < 2)
			return false;
		sign = w.p[w.n - 1];
		w.n--;
		if (sign != '+' && sign != '-')
			return false;
		for (k = 0; k < sizeof words / sizeof words[0]; k++)
			if (gd_tok_eq(w, words[k]))
				break;
		if (k == sizeof words / sizeof words[0])
			continue;   /* a newer pciutils' word: not one of the seven */
		known++;
		if (sign == '+')
			*bits |= 1u << k;
	}
	return known > 0;
}

/* "Bus: primary=00, secondary=02, subordinate=05, sec-latency=0" */
static void bus_range(struct gd_slice v, struct gd_pci_bridge *b)
{
	static const char *const keys[2] = { "secondary=", "subordinate=" };
	struct gd_u64 *dst[2] = { &b->secondary_bus, &b->subordinate_bus };

	for (int i = 0; i < 2; i++) {
		const char *at = memmem(v.p, v.n, keys[i], strlen(keys[i]));
		unsigned x;

		if (at && sscanf(at + strlen(keys[i]), "%2x", &x) == 1)
			gd_u64_set(dst[i], x);
	}
}

/* The path of bridges above each GPU, from the bus ranges of the bridges
 * of its domain: the widest range first ("pci0000:00/0000:00:03.0/0000:02:00.0"). */
static void gpu_paths(struct gd_snapshot *s)
{
	GD_VEC_EACH(s->pci_gpus, struct gd_pci_gpu, g) {
		const struct gd_pci_bridge *chain[16];
		size_t n = 0, used;
		unsigned bus;

		if (g->pci_path[0] || strlen(g->pci_bus_id) != 12 || sscanf(g->pci_bus_id + 5, "%2x", &bus) != 1)
			continue;
		GD_VEC_EACH(s->pci_bridges, const struct gd_pci_bridge, b) {
			if (n < 16 && b->secondary_bus.ok && b->subordinate_bus.ok && strlen(b->pci_bus_id) == 12 &&
			    strncmp(b->pci_bus_id, g->pci_bus_id, 4) == 0 && b->secondary_bus.v <= bus &&
			    bus <= b->subordinate_bus.v)
				chain[n++] = b;
		}
		if (!n)
			continue;
		for (size_t i = 1; i < n; i++)   /* widest (outermost) first */
			for (size_t j = i; j > 0; j--) {
				const struct gd_pci_bridge *x = chain[j - 1], *y = chain[j];

				if (x->subordinate_bus.v - x->secondary_bus.v >= y->subordinate_bus.v - y->secondary_bus.v)
					break;
				chain[j - 1] = y;
				chain[j] = x;
			}
		used = (size_t)snprintf(g->pci_path, sizeof g->pci_path, "pci%.4s:%.2s", chain[0]->pci_bus_id,
					chain[0]->pci_bus_id + 5);
		for (size_t i = 0; i < n && used < sizeof g->pci_path; i++)
			used += (size_t)snprintf(g->pci_path + used, sizeof g->pci_path - used, "/%s", chain[i]->pci_bus_id);
		if (used >= sizeof g->pci_path)
			g->pci_path[0] = '\0';
	}
}

/* The record of a fragment without a device header ("a PCIe device"). */
static struct gd_pci_gpu *unnamed(struct gd_snapshot *s)
{
	struct gd_pci_gpu *p = (struct gd_pci_gpu *)(uintptr_t)gd_vec_find_str(&s->pci_gpus, sizeof *p,
									   offsetof(struct gd_pci_gpu, pci_bus_id), "");

	return p ? p : GD_PUSH(s, pci_gpus, struct gd_pci_gpu);
}

/* An ACSCap/ACSCtl line, or a bridge's "Bus:" line: into the bridge whose
 * header is above it, or (ACSCtl with no header at all) a bridge without
 * an address.  True when the line was one of them. */
static bool acs_line(struct gd_snapshot *s, struct gd_slice tl, size_t lineno, bool headed, size_t bridge,
		     struct gd_tok_tally *t)
{
	struct gd_slice k, v;
	struct gd_pci_bridge *b = bridge < s->pci_bridges.n ? GD_VEC_AT(s->pci_bridges, struct gd_pci_bridge, bridge) : NULL;
	bool ctl;
	uint64_t bits;

	if (!gd_tok_kv(tl, ':', &k, &v))
		return false;
	if (gd_tok_eq(k, "Bus") && b) {
		bus_range(v, b);
		return true;
	}
	ctl = gd_tok_eq(k, "ACSCtl");
	if (!ctl && !gd_tok_eq(k, "ACSCap"))
		return false;
	if (!acs_words(v, &bits)) {
		gd_tok_tally_skip(t, lineno, ctl ? _("ACSCtl without SrcValid+/- ... words") : _("ACSCap without SrcValid+/- ... words"));
		return true;
	}
	t->parsed++;
	if (!b && !headed && ctl) {
		b = GD_PUSH(s, pci_bridges, struct gd_pci_bridge);
		GD_STRSET(b->source, "lspci");
	}
	if (!b)
		return true;   /* ACS of a function that is not a bridge */
	gd_u64_set(ctl ? &b->acs_ctl : &b->acs_cap, bits);
	return true;
}

int gd_parse_lspci(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_tok_tally t = { 0, 0, 0, NULL };
	struct gd_pci_gpu *cur = NULL;
	struct gd_lines it;
	struct gd_slice line;
	size_t devices = 0, links = 0, acs = 0;
	bool other = false; /* under the header of a device that is not an NVIDIA GPU */
	bool headed = false; /* under a device header (any device) */
	size_t bridge = SIZE_MAX; /* pci_bridges[] index of the bridge whose header is above */
	int rc;

	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		struct gd_slice rest, k, v, tl;
		const char *lk;
		char bus[32];

		line = ofl_chomp(line);
		if (!line.n)
			continue;
		if (gd_tok_is_binary(line.p, line.n)) {
			gd_tok_tally_skip(&t, it.lineno, _("binary bytes"));
			continue;
		}
		tl = gd_tok_trim(line);
		lk = lnk_key(tl, &v);
		if (line.p[0] != ' ' && line.p[0] != '\t' && header(line, bus, sizeof bus, &rest)) {
			cur = NULL;
			devices++;
			t.parsed++;
			headed = true;
			bridge = SIZE_MAX;
			if (gd_tok_prefix(rest, "PCI bridge")) {
				struct gd_pci_bridge *b = GD_PUSH(s, pci_bridges, struct gd_pci_bridge);

				GD_STRSET(b->pci_bus_id, bus);
				GD_STRSET(b->source, "lspci");
				bridge = s->pci_bridges.n - 1;
			}
			other = !class_of(rest) || !ofl_contains(rest, "NVIDIA");
			if (other)
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
		if (line.p[0] != ' ' && line.p[0] != '\t') {
			cur = NULL; /* prose between devices, or after them */
			other = false;
			headed = false;
			bridge = SIZE_MAX;
		}
		if (acs_line(s, tl, it.lineno, headed, bridge, &t)) {
			acs++;
			continue;
		}
		/* a fragment: link lines without a device header above them */
		if (!cur && !other && lk)
			cur = unnamed(s);
		if (!cur)
			continue;
		if (lk) {
			struct gd_pci_gpu *p = cur;

			links++;
			t.parsed++;
			if (strcmp(lk, "LnkCap:") == 0) {
				if (!link(v, &p->link_speed_max_gts, &p->link_gen_max, &p->link_width_max, NULL))
					gd_tok_tally_skip(&t, it.lineno, _("LnkCap without Speed and Width"));
			} else if (strcmp(lk, "LnkSta:") == 0) {
				if (!link(v, &p->link_speed_gts, &p->link_gen, &p->link_width, &p->link_downgraded))
					gd_tok_tally_skip(&t, it.lineno, _("LnkSta without Speed and Width"));
			} else if (strcmp(lk, "LnkCap2:") == 0) {
				speeds2(v, p);
			}
			continue;
		}
		if (!gd_tok_kv(tl, ':', &k, &v))
			continue;
		if (ofl_ieq(k, "Kernel driver in use")) {
			gd_tok_copy(cur->driver, sizeof cur->driver, v);
		} else if (ofl_ieq(k, "NUMA node")) {
			uint64_t n;

			if (gd_tok_u64(v, &n))
				gd_u64_set(&cur->numa_node, n);
		}
	}
	if (!devices && !links && !acs)
		return gd_err_set(err, -EINVAL, _("no PCI device line (\"3b:00.0 3D controller: ...\") and no LnkCap/LnkSta "
				    "or ACSCtl line: not lspci output"));
	gpu_paths(s);
	rc = gd_tok_tally_result(&t, "lspci", err);
	return rc < 0 && s->pci_gpus.n ? 1 : rc;
}
