/*
 * proc_interrupts.c - per-CPU interrupt counts of NIC queues:
 * /proc/interrupts (Linux 1.x; per-CPU columns since 2.4), with
 * /sys/class/net/<if>/device/msi_irqs/ (Linux 3.x) to know which IRQs are a
 * network card's.
 *
 * A header of CPU columns (offline CPUs are missing: the numbers in the
 * header, not the column positions, are the CPUs), then one line per IRQ:
 * number, one count per column, chip, hwirq-type, action names:
 *
 *                CPU0       CPU2       CPU3
 *      38:          0        400         12  PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0
 *      72:     104857          0          0  IR-PCI-MSI 1572864-edge      eth0-TxRx-0
 *     NMI:          0          0          0   Non-maskable interrupts
 *     ERR:          0
 *
 * Older kernels print chip and type as one word ("IO-APIC-edge").  Lines whose
 * number is not numeric (NMI, LOC, ERR, MIS ...) are architecture counters,
 * not IRQs, and are ignored.  A numeric line with fewer counts than CPU
 * columns is skipped and named in err (partial).
 *
 * Which IRQs are a NIC's: the vectors listed in the interface's PCI
 * function's msi_irqs/ directory; for a virtio NIC the "device" link points
 * at the virtio device (virtioN), whose parent PCI function holds msi_irqs,
 * so device/../msi_irqs is read instead.  Name matching covers the rest
 * (drivers that name vectors <ifname>-TxRx-<n>).  Only non-zero counts are
 * kept.  proc_net_dev runs first, so s->netifs is already filled.
 */
#include "collect/proc_interrupts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collectors.h"
#include "core/i18n.h"
#include "core/tok.h"
#include "core/xalloc.h"

/* True when the slice is one or more decimal digits. */
static bool all_digits(struct gd_slice s)
{
	if (!s.n)
		return false;
	for (size_t i = 0; i < s.n; i++)
		if (!isdigit((unsigned char)s.p[i]))
			return false;
	return true;
}

static bool word_char(char c)
{
	return isalnum((unsigned char)c);
}

/* True when name occurs in text with no letter or digit on either side. */
static bool has_word(struct gd_slice text, const char *name)
{
	size_t n = strlen(name);

	if (!n || n > text.n)
		return false;
	for (size_t i = 0; i + n <= text.n; i++) {
		if (memcmp(text.p + i, name, n) != 0)
			continue;
		if ((i == 0 || !word_char(text.p[i - 1])) && (i + n == text.n || !word_char(text.p[i + n])))
			return true;
	}
	return false;
}

/* The interface an IRQ line belongs to, or NULL. */
static const char *owner_of(uint64_t irq, struct gd_slice rest, const struct gd_irq_owner *owners, size_t nowners,
			    const struct gd_snapshot *s)
{
	const char *best = NULL;

	for (size_t i = 0; i < nowners; i++)
		if (owners[i].irq == irq)
			return owners[i].netif;
	GD_VEC_EACH(s->netifs, const struct gd_netif, nif) {
		if (nif->physical.ok && nif->physical.v == 0)
			continue;
		if (has_word(rest, nif->name) && (!best || strlen(nif->name) > strlen(best)))
			best = nif->name;
	}
	return best;
}

/* The action names at the end of rest: the last word, plus the words before
 * it while they end in ',' (shared IRQs: "ehci_hcd:usb1, eth0"). */
static struct gd_slice action_of(struct gd_slice rest)
{
	struct gd_slice a = gd_tok_trim(rest);
	size_t i = a.n, j;

	for (;;) {
		while (i > 0 && a.p[i - 1] != ' ' && a.p[i - 1] != '\t')
			i--;
		for (j = i; j > 0 && (a.p[j - 1] == ' ' || a.p[j - 1] == '\t'); j--)
			;
		if (j == 0 || a.p[j - 1] != ',')
			break;
		i = j;
	}
	a.p += i;
	a.n -= i;
	return a;
}

/* Parses the header line into cpu numbers; returns the column count or 0. */
static size_t parse_header(struct gd_slice line, uint64_t **cpus)
{
	size_t n = 0, cap = 0;
	uint64_t *v = NULL;
	struct gd_slice f;
	size_t i = 0;

	while (i < line.n) {
		while (i < line.n && (line.p[i] == ' ' || line.p[i] == '\t'))
			i++;
		if (i >= line.n)
			break;
		f.p = line.p + i;
		while (i < line.n && line.p[i] != ' ' && line.p[i] != '\t')
			i++;
		f.n = (size_t)(line.p + i - f.p);
		if (!gd_tok_prefix(f, "CPU") || f.n < 4) {
			free(v);
			return 0;
		}
		f.p += 3;
		f.n -= 3;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = gd_xreallocarray(v, cap, sizeof *v);
		}
		if (!all_digits(f) || !gd_tok_u64(f, &v[n])) {
			free(v);
			return 0;
		}
		n++;
	}
	if (!n)
		free(v);
	*cpus = n ? v : NULL;
	return n;
}

int gd_parse_proc_interrupts_nics(const char *buf, size_t len, const struct gd_irq_owner *owners, size_t nowners,
				  struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line = { NULL, 0 }, key, val, *f = NULL;
	uint64_t *cpus = NULL, *counts = NULL;
	size_t ncpu = 0, skipped = 0, first_bad = 0, parsed = 0;
	int rc = 0;

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("binary data, not an interrupt table"));
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line) && gd_tok_trim(line).n == 0)
		;
	if (it.lineno == 0 || gd_tok_trim(line).n == 0)
		return gd_err_set(err, -EINVAL, _("empty file"));
	ncpu = parse_header(line, &cpus);
	if (!ncpu)
		return gd_err_set(err, -EINVAL, _("line %zu: not a header of CPU columns"), it.lineno);
	f = gd_xcalloc(ncpu + 1, sizeof *f);
	counts = gd_xcalloc(ncpu, sizeof *counts);
	while (gd_tok_line(&it, &line)) {
		struct gd_slice rest = { NULL, 0 };
		const char *netif;
		uint64_t irq;
		size_t n;
		bool bad = false;

		if (!gd_tok_kv(line, ':', &key, &val) || !all_digits(key))
			continue;   /* NMI, LOC, ERR ... or a blank line */
		n = gd_tok_split(val, f, ncpu + 1);
		if (!gd_tok_u64(key, &irq) || n < ncpu)
			bad = true;
		for (size_t i = 0; !bad && i < ncpu; i++)
			if (!gd_tok_u64(f[i], &counts[i]))
				bad = true;
		if (bad) {
			if (!skipped++)
				first_bad = it.lineno;
			continue;
		}
		parsed++;
		if (n > ncpu) {
			rest.p = f[ncpu].p;
			rest.n = (size_t)(val.p + val.n - rest.p);
		}
		netif = owner_of(irq, rest, owners, nowners, s);
		if (!netif)
			continue;
		for (size_t i = 0; i < ncpu; i++) {
			struct gd_nic_irq *r;

			if (!counts[i])
				continue;
			r = GD_PUSH(s, nic_irqs, struct gd_nic_irq);
			gd_tok_copy(r->irq, sizeof r->irq, key);
			gd_tok_copy(r->name, sizeof r->name, action_of(rest));
			GD_STRSET(r->netif, netif);
			gd_u64_set(&r->cpu, cpus[i]);
			gd_u64_set(&r->count, counts[i]);
		}
	}
	if (skipped && !parsed)
		rc = gd_err_set(err, -EINVAL, _("line %zu: fewer counts than CPU columns, or a malformed count (no usable line)"),
				first_bad);
	else if (skipped) {
		gd_err_set(err, -EINVAL, _("line %zu: fewer counts than CPU columns, or a malformed count; %zu line(s) skipped"),
			   first_bad, skipped);
		rc = 1;
	}
	free(f);
	free(counts);
	free(cpus);
	return rc;
}

int gd_parse_proc_interrupts(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	return gd_parse_proc_interrupts_nics(buf, len, NULL, 0, s, err);
}

/* ---- collector ----------------------------------------------------------- */

/* Adds every numeric entry of directory rel as an IRQ of netif; returns
 * false when the directory cannot be opened. */
static bool add_msi_irqs(const struct gd_root *root, const char *rel, const char *netif, struct gd_vec *owners)
{
	DIR *d = gd_root_opendir(root, rel);
	struct dirent *de;

	if (!d)
		return false;
	while ((de = readdir(d)) != NULL) {
		struct gd_slice name = { de->d_name, strlen(de->d_name) };
		struct gd_irq_owner *o;
		uint64_t irq;

		if (!all_digits(name) || !gd_tok_u64(name, &irq))
			continue;
		o = gd_vec_push(owners, sizeof *o);
		o->irq = irq;
		GD_STRSET(o->netif, netif);
	}
	closedir(d);
	return true;
}

static void list_owners(const struct gd_root *root, const struct gd_snapshot *s, struct gd_vec *owners)
{
	GD_VEC_EACH(s->netifs, const struct gd_netif, nif) {
		char path[160], link[256];
		const char *base;

		if (!nif->name[0] || strchr(nif->name, '/') || strcmp(nif->name, ".") == 0 ||
		    strcmp(nif->name, "..") == 0 || (nif->physical.ok && nif->physical.v == 0))
			continue;
		snprintf(path, sizeof path, "sys/class/net/%s/device/msi_irqs", nif->name);
		if (add_msi_irqs(root, path, nif->name, owners))
			continue;
		snprintf(path, sizeof path, "sys/class/net/%s/device", nif->name);
		if (gd_root_readlink(root, path, link, sizeof link) < 0)
			continue;
		base = strrchr(link, '/');
		base = base ? base + 1 : link;
		if (strncmp(base, "virtio", 6) != 0)
			continue;
		snprintf(path, sizeof path, "sys/class/net/%s/device/../msi_irqs", nif->name);
		add_msi_irqs(root, path, nif->name, owners);
	}
}

enum gd_src_status gd_collect_proc_interrupts(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_vec owners = { NULL, 0, 0 };
	char *buf;
	size_t len;
	char msg[GD_ERR_MSG_MAX];
	int rc = gd_root_read(ctx->root, "proc/interrupts", &buf, &len, GD_READ_CAP);

	if (rc < 0) {
		gd_err_set(err, rc, "/proc/interrupts: %s", strerror(-rc));
		return gd_src_status_of_errno(rc);
	}
	list_owners(ctx->root, s, &owners);
	rc = gd_parse_proc_interrupts_nics(buf, len, owners.items, owners.n, s, err);
	free(buf);
	gd_vec_release(&owners);
	if (rc != 0) {
		gd_strlcpy(msg, err->msg, sizeof msg);
		gd_err_set(err, err->code, "/proc/interrupts: %s", msg);
		return gd_parse_status(rc);
	}
	if (s->netifs.n == 0) {
		gd_err_set(err, -ENOENT, _("no network interfaces known (proc_net_dev failed?): NIC interrupts cannot be identified"));
		return GD_SRC_PARTIAL;
	}
	return GD_SRC_OK;
}
