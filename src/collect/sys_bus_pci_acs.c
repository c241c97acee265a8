/*
 * sys_bus_pci_acs.c - what stands between GPUs (and between a GPU and a
 * NIC) on the PCIe tree: the bridges above each NVIDIA GPU and each network
 * function, with the ACS registers of their config space, and the IOMMU
 * group of each endpoint with its domain type (FACTS.md 7.2).
 *
 *   sys/bus/pci/devices/0000:43:00.0 -> ../../../devices/pci0000:38/0000:38:03.0/0000:40:00.0/0000:41:00.0/0000:43:00.0
 *   sys/bus/pci/devices/0000:41:00.0/config        4096 bytes as root, 64 unprivileged
 *       0x100: 0x14c1000d  ACS (id 0x000d), version 1, next at 0x14c
 *       0x104: 0x005f      capability: SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ ...
 *       0x106: 0x001d      control:    SrcValid+ ReqRedir+ CmpltRedir+ UpstreamFwd+
 *   sys/bus/pci/devices/0000:43:00.0/iommu_group -> ../../../../kernel/iommu_groups/42
 *   sys/kernel/iommu_groups/42/type                DMA-FQ   (identity, DMA, DMA-FQ, blocked; 5.11+)
 *
 * The GPUs and NICs are those the pci collector found in the same snapshot
 * (it runs first, collect/registry.c): their vendor and class are not read
 * twice.  Each bridge is recorded once, with how many bytes of its config space
 * could be read: the rules say "unavailable" for a short read (not root)
 * and judge the control register otherwise.  Nothing here decides whether
 * a bit matters.  A config file that is not there (a fixture tree without
 * it) leaves the bridge unread, not an error; one that cannot be opened
 * (EACCES, EIO) or holds a malformed capability list makes the source
 * partial with the first reason.
 */
#include "collect/collectors.h"
#include "collect/gpu_host.h"
#include "collect/pci_acs.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/dirlist.h"
#include "core/i18n.h"

#define DEVICES "sys/bus/pci/devices"
#define CONFIG_MAX 4096

/* ---- pure helpers (pci_acs.h) ------------------------------------------ */

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int gd_pci_acs_walk(gd_pci_cfg_read_fn rd, void *arg, size_t len, uint16_t *cap, uint16_t *ctl, struct gd_err *err)
{
	size_t off = 0x100, hops = 0;
	uint32_t h, regs;
	int rc;

	if (len < 0x104)
		return gd_err_set(err, -ENODATA, _("%zu bytes of config space: the extended capabilities (from 0x100) "
						   "were not read"), len);
	while (off) {
		if (off < 0x100 || (off & 3) || off + 4 > len)
			return gd_err_set(err, -EINVAL, _("extended capability offset 0x%zx is outside the %zu bytes "
							  "read or not aligned"), off, len);
		if (++hops > (CONFIG_MAX - 0x100) / 4)
			return gd_err_set(err, -EINVAL, _("the extended capability list loops"));
		if ((rc = rd(arg, off, &h)) < 0)
			return gd_err_set(err, rc, "0x%zx: %s", off, strerror(-rc));
		if (off == 0x100 && (h == 0 || h == 0xffffffffu))
			return 0;   /* no extended capabilities */
		if ((h & 0xffff) == GD_PCI_EXT_CAP_ACS) {
			if (off + 8 > len)
				return gd_err_set(err, -EINVAL, _("the ACS capability at 0x%zx is cut off"), off);
			if ((rc = rd(arg, off + 4, &regs)) < 0)
				return gd_err_set(err, rc, "0x%zx: %s", off + 4, strerror(-rc));
			*cap = (uint16_t)(regs & 0xffff);
			*ctl = (uint16_t)(regs >> 16);
			return 1;
		}
		off = h >> 20;
	}
	return 0;
}

static int mem_read(void *arg, size_t off, uint32_t *v)
{
	*v = le32((const uint8_t *)arg + off);
	return 0;
}

int gd_pci_acs_find(const uint8_t *cfg, size_t len, uint16_t *cap, uint16_t *ctl, struct gd_err *err)
{
	return gd_pci_acs_walk(mem_read, (void *)(uintptr_t)cfg, len, cap, ctl, err);
}

void gd_acs_bits_text(uint64_t v, char *out, size_t outsz)
{
	static const char *const words[] = { "SrcValid", "TransBlk", "ReqRedir", "CmpltRedir",
					     "UpstreamFwd", "EgressCtrl", "DirectTrans" };
	size_t used = 0;

	if (!outsz)
		return;
	out[0] = '\0';
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		int n;

		if (!(v & (1u << i)))
			continue;
		n = snprintf(out + used, outsz - used, "%s%s+", used ? " " : "", words[i]);
		if (n < 0 || (size_t)n >= outsz - used) {
			out[used] = '\0';   /* whole words only */
			return;
		}
		used += (size_t)n;
	}
}

/* ---- the collector ------------------------------------------------------ */

#define GD_FIND_BDF(s, vecname, type, bdf) gd_vec_find_str(&(s)->vecname, sizeof(type), offsetof(type, pci_bus_id), (bdf))

struct tally {
	size_t bad;
	char first_bad[GD_ERR_MSG_MAX / 2];
};

static void note_bad(struct tally *t, const char *bdf, const char *why)
{
	if (!t->bad++)
		snprintf(t->first_bad, sizeof t->first_bad, "/" DEVICES "/%.16s/config: %.160s", bdf, why);
}

static bool known_bridge(const struct gd_snapshot *s, const char *bdf)
{
	GD_VEC_EACH(s->pci_bridges, const struct gd_pci_bridge, b)
		if (strcmp(b->pci_bus_id, bdf) == 0)
			return true;
	return false;
}

/* A config file read a dword at a time (gd_pci_acs_walk's reader): a
 * sysfs config file is not memory, each dword read from it is a
 * config-space access (MMIO on bare metal, a trap to the hypervisor in a
 * VM: 12.9 ms of CPU for a whole 4 KiB file in one, bench/README.md), and
 * the walk needs a few of its 1,024.  short: a read came back short (64
 * bytes for a reader without CAP_SYS_ADMIN). */
struct cfg_file {
	int fd;
	bool short_read;
};

static int file_read(void *arg, size_t off, uint32_t *v)
{
	struct cfg_file *f = arg;
	uint8_t b[4];
	ssize_t n = pread(f->fd, b, sizeof b, (off_t)off);

	if (n < 0)
		return -errno;
	if (n < 4) {
		f->short_read = true;
		return -ENODATA;
	}
	*v = le32(b);
	return 0;
}

static void read_bridge(const struct gd_root *r, const char *bdf, struct gd_snapshot *s, struct tally *t)
{
	struct gd_pci_bridge *b = GD_PUSH(s, pci_bridges, struct gd_pci_bridge);
	char rel[256], *buf = NULL;
	size_t len = 0;
	uint16_t cap, ctl;
	struct gd_err e;
	struct cfg_file f = { -1, false };
	struct stat st;
	int rc;

	GD_STRSET(b->pci_bus_id, bdf);
	GD_STRSET(b->source, "sysfs");
	snprintf(rel, sizeof rel, DEVICES "/%s/config", bdf);
	gd_err_clear(&e);
	rc = f.fd = gd_root_openat(r, rel, O_RDONLY | O_CLOEXEC);
	if (f.fd >= 0 && fstat(f.fd, &st) == 0 && st.st_size >= 0x104) {
		len = st.st_size > CONFIG_MAX ? CONFIG_MAX : (size_t)st.st_size;
		rc = gd_pci_acs_walk(file_read, &f, len, &cap, &ctl, &e);
	}
	if (f.fd >= 0)
		close(f.fd);
	if (f.fd < 0 || len == 0 || f.short_read) {
		/* no extended space to walk (64 bytes, 256): the file whole */
		rc = gd_root_read(r, rel, &buf, &len, 2 * CONFIG_MAX);   /* room for the NUL and the end */
		if (rc == -ENOENT)
			return;   /* no config file in this tree: not read */
		if (rc < 0) {
			GD_STRSET(b->reason, strerror(-rc));
			note_bad(t, bdf, strerror(-rc));
			return;
		}
		gd_err_clear(&e);
		rc = gd_pci_acs_find((const uint8_t *)buf, len, &cap, &ctl, &e);
		free(buf);
	}
	gd_u64_set(&b->config_bytes, len);
	if (rc == 1) {
		gd_u64_set(&b->acs_cap, cap);
		gd_u64_set(&b->acs_ctl, ctl);
	} else if (rc < 0 && rc != -ENODATA) {   /* malformed, or a read that failed */
		GD_STRSET(b->reason, e.msg);
		note_bad(t, bdf, e.msg);
	}
}

/* The bridges of a pci_path ("pci0000:38/0000:38:03.0/0000:40:00.0"): every
 * component but the host bridge. */
static void read_path_bridges(const struct gd_root *r, const char *path, struct gd_snapshot *s, struct tally *t)
{
	const char *p = path;

	while (*p) {
		size_t n = strcspn(p, "/");
		char bdf[32];

		if (n > 0 && n < sizeof bdf && strncmp(p, "pci", 3) != 0) {
			memcpy(bdf, p, n);
			bdf[n] = '\0';
			if (!known_bridge(s, bdf))
				read_bridge(r, bdf, s, t);
		}
		p += n + (p[n] == '/');
	}
}

static void read_iommu(const struct gd_root *r, const char *bdf, struct gd_snapshot *s)
{
	struct gd_pci_iommu *m = GD_PUSH(s, pci_iommu, struct gd_pci_iommu);
	char rel[256], link[512], type[32];
	const char *base;
	unsigned long long g;

	GD_STRSET(m->pci_bus_id, bdf);
	snprintf(rel, sizeof rel, DEVICES "/%s/iommu_group", bdf);
	if (gd_root_readlink(r, rel, link, sizeof link) <= 0)
		return;   /* no IOMMU translates this device */
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (sscanf(base, "%llu", &g) != 1)
		return;
	gd_u64_set(&m->group, g);
	snprintf(rel, sizeof rel, "sys/kernel/iommu_groups/%llu/type", g);
	if (gd_root_read_line(r, rel, type, sizeof type) == 0)
		GD_STRSET(m->type, type);
}

enum gd_src_status gd_collect_pci_acs(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_dirlist devs;
	struct tally t = { 0 };
	int st = gd_pci_list(ctx->root, &devs, err);

	if (st) {
		gd_dirlist_release(&devs);
		return (enum gd_src_status)st;
	}
	/* The GPUs and NICs are the pci collector's, which ran before this one
	 * and read every function's vendor and class: not read again.  The
	 * listing keeps the bus order (and this source's own errors). */
	for (size_t i = 0; i < devs.n; i++) {
		const char *bdf = devs.names[i];
		char rel[256], link[1024], path[256];

		if (!GD_FIND_BDF(s, pci_gpus, struct gd_pci_gpu, bdf) && !GD_FIND_BDF(s, pci_nics, struct gd_pci_nic, bdf))
			continue;   /* neither a GPU nor a NIC */
		snprintf(rel, sizeof rel, DEVICES "/%s", bdf);
		if (gd_root_readlink(ctx->root, rel, link, sizeof link) > 0 && gd_pci_path_of(link, path, sizeof path))
			read_path_bridges(ctx->root, path, s, &t);
		read_iommu(ctx->root, bdf, s);
	}
	gd_dirlist_release(&devs);
	if (t.bad) {
		gd_err_set(err, -EINVAL, _("%s (%zu bridge(s) not read)"), t.first_bad, t.bad);
		return GD_SRC_PARTIAL;
	}
	return GD_SRC_OK;
}
