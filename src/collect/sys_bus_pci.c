/*
 * sys_bus_pci.c - NVIDIA GPUs and network functions on the PCI bus, from
 * /sys/bus/pci/devices/<dddd:bb:dd.f>/ (sysfs PCI, Linux 2.6; link
 * attributes 4.13+ in this form, aer_dev_* 4.19+).  Evidence that does not
 * need NVML: how many GPUs sit on the bus (gpu.missing, driver.not_loaded),
 * their links and AER counts, and where GPUs and NICs hang in the PCIe tree
 * (net.gpu_nic_far, cpu.numa_far_from_gpu).
 *
 *   vendor               0x10de
 *   class                0x030200          (0x0300 VGA, 0x0302 3D; 0x02xx network)
 *   device               0x2330
 *   numa_node            0                 (-1: unknown or a one-node host)
 *   local_cpulist        0-55,112-167
 *   current_link_speed   32.0 GT/s PCIe    (kernels <= 5.6: "8 GT/s"; "Unknown speed")
 *   max_link_width       16
 *   aer_dev_correctable  RxErr 0 ... TOTAL_ERR_COR 3   (count = last token of each line)
 *   driver -> ../../../../bus/pci/drivers/nvidia
 *   sys/bus/pci/devices/0000:3b:00.0 -> ../../../devices/pci0000:38/0000:38:02.0/0000:3b:00.0
 *
 * Link attributes fail with EINVAL on functions without a PCIe capability
 * and AER files exist only under OS-native AER: both are left absent, not
 * errors.  A value that is there but malformed makes the source partial.
 * GPUs idle down to Gen1 on purpose: the current speed is a fact here, and
 * judging it is the rules' business.  See FACTS.md §4.11-4.12.
 */
#include "collect/collectors.h"
#include "collect/gpu_host.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/dirlist.h"
#include "core/cpulist.h"
#include "core/i18n.h"

#define DEVICES "sys/bus/pci/devices"

/* ---- pure helpers (gpu_host.h) -------------------------------------- */

int gd_pci_speed_parse(struct gd_slice text, double *gts, uint64_t *gen)
{
	static const struct {
		double gts;
		uint64_t gen;
	} gens[] = { { 2.5, 1 }, { 5.0, 2 }, { 8.0, 3 }, { 16.0, 4 }, { 32.0, 5 }, { 64.0, 6 }, { 128.0, 7 } };
	struct gd_slice f[3];
	size_t n;
	double v;

	text = gd_tok_trim(text);
	n = gd_tok_split(text, f, 3);
	if (n >= 1 && gd_tok_eq(f[0], "Unknown"))
		return 1;
	if (n < 2 || !gd_tok_eq(f[1], "GT/s") || !gd_tok_f64(f[0], &v) || !(v > 0) || v > 1024)
		return -EINVAL;
	*gts = v;
	*gen = 0;
	for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++)
		if (fabs(v - gens[i].gts) < 0.01)
			*gen = gens[i].gen;
	return *gen ? 0 : -EINVAL;
}

int gd_pci_aer_total(const char *buf, size_t len, const char *key, uint64_t *out, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line, f[16];

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("holds binary data (a NUL byte)"));
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		size_t n = gd_tok_split(line, f, 16);

		if (n == 0 || !gd_tok_eq(f[0], key))
			continue;
		if (n != 2 || !gd_tok_u64(f[1], out))
			return gd_err_set(err, -EINVAL, _("line %zu: %s count \"%.*s\" is not a number"), it.lineno, key,
					  (int)(line.n > 40 ? 40 : line.n), line.p);
		return 0;
	}
	return gd_err_set(err, -ENODATA, _("no %s line"), key);
}

bool gd_pci_path_of(const char *link, char *out, size_t outsz)
{
	const char *p = strstr(link, "devices/"), *last;

	out[0] = '\0';
	if (!p)
		return false;
	p += strlen("devices/");
	last = strrchr(p, '/');
	if (!last)
		return *p != '\0';   /* a device right under devices/: no bridge */
	if ((size_t)(last - p) >= outsz)
		return false;
	memcpy(out, p, (size_t)(last - p));
	out[last - p] = '\0';
	return true;
}

/* ---- parsers of gd_parsers[]: fill the last pci_gpus record ------------ */

static struct gd_pci_gpu *last_gpu(struct gd_snapshot *s)
{
	if (s->pci_gpus.n == 0)
		return GD_PUSH(s, pci_gpus, struct gd_pci_gpu);
	return GD_VEC_AT(s->pci_gpus, struct gd_pci_gpu, s->pci_gpus.n - 1);
}

static int parse_aer(const char *buf, size_t len, const char *key, struct gd_u64 *dst, struct gd_err *err)
{
	uint64_t v;
	int rc = gd_pci_aer_total(buf, len, key, &v, err);

	if (rc == 0)
		gd_u64_set(dst, v);
	return rc;
}

int gd_parse_pci_aer_correctable(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	return parse_aer(buf, len, "TOTAL_ERR_COR", &last_gpu(s)->aer_correctable, err);
}

int gd_parse_pci_aer_nonfatal(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	return parse_aer(buf, len, "TOTAL_ERR_NONFATAL", &last_gpu(s)->aer_nonfatal, err);
}

int gd_parse_pci_aer_fatal(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	return parse_aer(buf, len, "TOTAL_ERR_FATAL", &last_gpu(s)->aer_fatal, err);
}

int gd_parse_pci_link_speed(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_pci_gpu *g = last_gpu(s);
	struct gd_slice text = { buf, len };
	double gts;
	uint64_t gen;
	int rc;

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("holds binary data (a NUL byte)"));
	rc = gd_pci_speed_parse(text, &gts, &gen);
	if (rc < 0)
		return gd_err_set(err, rc, _("\"%.*s\" is not a link speed (\"16.0 GT/s PCIe\")"),
				  (int)(len > 40 ? 40 : len), buf);
	if (rc == 0) {
		gd_f64_set(&g->link_speed_gts, gts);
		gd_u64_set(&g->link_gen, gen);
	}
	return 0;
}

/* ---- the collector --------------------------------------------------- */

struct tally {
	size_t bad;
	char first_bad[GD_ERR_MSG_MAX / 2];
};

static void note_bad(struct tally *t, const char *bdf, const char *file, const char *why)
{
	if (!t->bad++)
		snprintf(t->first_bad, sizeof t->first_bad, "/" DEVICES "/%.16s/%.40s: %.120s", bdf, file, why);
}

static int read_num(const struct gd_root *r, const char *bdf, const char *file, uint64_t *out)
{
	char rel[256];
	unsigned long long v;
	int rc;

	snprintf(rel, sizeof rel, DEVICES "/%s/%s", bdf, file);
	rc = gd_root_read_u64(r, rel, &v);
	if (rc == 0)
		*out = v;
	return rc;
}

static void read_numa(const struct gd_root *r, const char *bdf, struct gd_u64 *dst, struct tally *t)
{
	char rel[256];
	long long v;
	int rc;

	snprintf(rel, sizeof rel, DEVICES "/%s/numa_node", bdf);
	rc = gd_root_read_i64(r, rel, &v);
	if (rc == 0 && v >= 0)
		gd_u64_set(dst, (uint64_t)v);
	else if (rc == -EINVAL || rc == -ERANGE || (rc == 0 && v < -1))
		note_bad(t, bdf, "numa_node", _("not a node number"));
}

static void read_path(const struct gd_root *r, const char *bdf, char *out, size_t outsz)
{
	char rel[256], link[1024];

	snprintf(rel, sizeof rel, DEVICES "/%s", bdf);
	if (gd_root_readlink(r, rel, link, sizeof link) <= 0 || !gd_pci_path_of(link, out, outsz))
		out[0] = '\0';
}

/* The first entry of <bdf>/<sub>/ (net/eth0, infiniband/mlx5_0) into out. */
static void first_entry(const struct gd_root *r, const char *bdf, const char *sub, char *out, size_t outsz)
{
	struct gd_dirlist l;
	char rel[256];

	snprintf(rel, sizeof rel, DEVICES "/%s/%s", bdf, sub);
	if (gd_dirlist_read(r, rel, &l) == 0 && l.n > 0)
		gd_strlcpy(out, l.names[0], outsz);
	gd_dirlist_release(&l);
}

static void read_link_attrs(const struct gd_root *r, const char *bdf, struct gd_pci_gpu *g, struct tally *t)
{
	static const char *const speed_files[2] = { "current_link_speed", "max_link_speed" };
	static const char *const width_files[2] = { "current_link_width", "max_link_width" };
	struct gd_f64 *gts[2] = { &g->link_speed_gts, &g->link_speed_max_gts };
	struct gd_u64 *gen[2] = { &g->link_gen, &g->link_gen_max };
	struct gd_u64 *width[2] = { &g->link_width, &g->link_width_max };
	char rel[256], text[64];

	for (int i = 0; i < 2; i++) {
		double v;
		uint64_t n;
		int rc;

		snprintf(rel, sizeof rel, DEVICES "/%s/%s", bdf, speed_files[i]);
		if (gd_root_read_line(r, rel, text, sizeof text) == 0) {
			rc = gd_pci_speed_parse((struct gd_slice){ text, strlen(text) }, &v, &n);
			if (rc == 0) {
				gd_f64_set(gts[i], v);
				gd_u64_set(gen[i], n);
			} else if (rc < 0) {
				note_bad(t, bdf, speed_files[i], _("not a link speed"));
			}
		}
		if (read_num(r, bdf, width_files[i], &n) == 0)
			gd_u64_set(width[i], n);
	}
}

static void read_aer(const struct gd_root *r, const char *bdf, struct gd_pci_gpu *g, struct tally *t)
{
	static const struct {
		const char *file, *key;
		size_t off;
	} files[] = {
		{ "aer_dev_correctable", "TOTAL_ERR_COR", offsetof(struct gd_pci_gpu, aer_correctable) },
		{ "aer_dev_nonfatal", "TOTAL_ERR_NONFATAL", offsetof(struct gd_pci_gpu, aer_nonfatal) },
		{ "aer_dev_fatal", "TOTAL_ERR_FATAL", offsetof(struct gd_pci_gpu, aer_fatal) },
	};
	char rel[256];

	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char *buf = NULL;
		size_t len;
		uint64_t v;
		struct gd_err e;

		snprintf(rel, sizeof rel, DEVICES "/%s/%s", bdf, files[i].file);
		if (gd_root_read(r, rel, &buf, &len, 1u << 16) < 0)
			continue;   /* no AER capability, or firmware-first AER */
		gd_err_clear(&e);
		if (gd_pci_aer_total(buf, len, files[i].key, &v, &e) == 0)
			gd_u64_set((struct gd_u64 *)(void *)((char *)g + files[i].off), v);
		else
			note_bad(t, bdf, files[i].file, e.msg);
		free(buf);
	}
}

static void read_gpu(const struct gd_root *r, const char *bdf, uint64_t cls, struct gd_snapshot *s, struct tally *t)
{
	struct gd_pci_gpu *g = GD_PUSH(s, pci_gpus, struct gd_pci_gpu);
	char rel[256], link[512], text[256];
	uint64_t v;

	GD_STRSET(g->pci_bus_id, bdf);
	gd_u64_set(&g->pci_class, cls);
	if (read_num(r, bdf, "device", &v) == 0)
		gd_u64_set(&g->device_id, v);
	snprintf(rel, sizeof rel, DEVICES "/%s/driver", bdf);
	if (gd_root_readlink(r, rel, link, sizeof link) > 0) {
		const char *base = strrchr(link, '/');

		GD_STRSET(g->driver, base ? base + 1 : link);
	}
	read_numa(r, bdf, &g->numa_node, t);
	snprintf(rel, sizeof rel, DEVICES "/%s/local_cpulist", bdf);
	if (gd_root_read_line(r, rel, text, sizeof text) == 0) {
		if (gd_cpulist_valid((struct gd_slice){ text, strlen(text) }))
			GD_STRSET(g->local_cpus, text);
		else
			note_bad(t, bdf, "local_cpulist", _("not a CPU list"));
	}
	read_link_attrs(r, bdf, g, t);
	read_aer(r, bdf, g, t);
	read_path(r, bdf, g->pci_path, sizeof g->pci_path);
}

static void read_nic(const struct gd_root *r, const char *bdf, uint64_t cls, struct gd_snapshot *s, struct tally *t)
{
	struct gd_pci_nic *n = GD_PUSH(s, pci_nics, struct gd_pci_nic);

	GD_STRSET(n->pci_bus_id, bdf);
	gd_u64_set(&n->pci_class, cls);
	first_entry(r, bdf, "net", n->netif, sizeof n->netif);
	first_entry(r, bdf, "infiniband", n->rdma_device, sizeof n->rdma_device);
	read_numa(r, bdf, &n->numa_node, t);
	read_path(r, bdf, n->pci_path, sizeof n->pci_path);
}

int gd_pci_list(const struct gd_root *r, struct gd_dirlist *devs, struct gd_err *err)
{
	int rc = gd_dirlist_read(r, DEVICES, devs);

	if (rc < 0) {
		gd_err_set(err, rc, "/" DEVICES ": %s", rc == -ENOENT ? _("no PCI bus in sysfs") : strerror(-rc));
		return (int)gd_src_status_of_errno(rc);
	}
	return 0;
}

enum gd_src_status gd_collect_pci(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_dirlist devs;
	struct tally t = { 0 };
	size_t unreadable = 0;
	int st = gd_pci_list(ctx->root, &devs, err);

	if (st) {
		gd_dirlist_release(&devs);
		return (enum gd_src_status)st;
	}
	for (size_t i = 0; i < devs.n; i++) {
		const char *bdf = devs.names[i];
		uint64_t vendor = 0, cls = 0;

		int rv = read_num(ctx->root, bdf, "vendor", &vendor), rcl = read_num(ctx->root, bdf, "class", &cls);

		if (rv < 0 || rcl < 0) {
			if (rv != -ENOENT && rcl != -ENOENT)
				unreadable++;   /* ENOENT: unplugged since the listing */
			continue;
		}
		if (vendor == GD_PCI_VENDOR_NVIDIA && (cls >> 16) == 0x03)
			read_gpu(ctx->root, bdf, cls, s, &t);
		else if ((cls >> 16) == 0x02)
			read_nic(ctx->root, bdf, cls, s, &t);
	}
	gd_dirlist_release(&devs);
	if (t.bad) {
		gd_err_set(err, -EINVAL, _("%s (%zu malformed attribute(s))"), t.first_bad, t.bad);
		return GD_SRC_PARTIAL;
	}
	if (unreadable) {
		gd_err_set(err, -EIO, _("vendor or class of %zu PCI function(s) not readable"), unreadable);
		return GD_SRC_PARTIAL;
	}
	return GD_SRC_OK;
}
