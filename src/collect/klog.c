/*
 * klog.c - kernel-log events (/dev/kmsg) and EDAC memory-controller counters.
 *
 * /dev/kmsg (Linux 3.5+) gives one record per read(), oldest first:
 *
 *     4,1234,5023456789,-;NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.
 *      SUBSYSTEM=pci
 *
 * opened O_NONBLOCK, read until EAGAIN; EPIPE (records overwritten while we
 * read) just goes on.  With kernel.dmesg_restrict=1 only root or CAP_SYSLOG
 * may read it (EPERM): the source is then "denied" with the fix.  The usec
 * field is on the boot clock; events older than the look-back (--lookback,
 * default 24 h) before host.uptime_s are left out, and each event's wall
 * time is host.wall_time_s minus its age.  The line parser, the marker
 * filter and the multi-line joins are src/klog/.
 *
 * AER and bandwidth lines name a PCI device; whether it is an NVIDIA GPU
 * comes from sysfs (vendor 0x10de, class 0x03xxxx) when the line did not say:
 *
 *     /sys/bus/pci/devices/0000:5d:00.0/vendor   0x10de
 *     /sys/bus/pci/devices/0000:5d:00.0/class    0x030200
 *
 * EDAC (2.6.16+; counters in this layout since 2.6.26):
 *
 *     /sys/devices/system/edac/mc/mc0/ce_count   3
 *     /sys/devices/system/edac/mc/mc0/ue_count   0
 *     /sys/devices/system/edac/mc/mc0/mc_name    Skylake Socket#0 IMC#0
 *
 * The directory is absent without an EDAC driver (most VMs): a fact.
 */
#include "collect/klog.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/collectors.h"
#include "collect/dirlist.h"
#include "core/i18n.h"
#include "core/tok.h"
#include "klog/klog.h"

#define DEFAULT_LOOKBACK_S (24.0 * 3600)

struct sink {
	struct gd_snapshot *s;
	double from_boot;       /* keep events at or after this boot time (NAN: all) */
	uint64_t kept, dropped;
};

static void keep(void *arg, enum gd_klog_kind kind, const struct gd_klog_event *ev)
{
	struct sink *k = arg;

	/* boot-time lines describe this boot, however old: they stay */
	if (!isnan(k->from_boot) && ev->boot_s.ok && ev->boot_s.v < k->from_boot && kind != GD_KLOG_GPU_UUID &&
	    kind != GD_KLOG_PCIE_BANDWIDTH && kind != GD_KLOG_INIT_FAILED)
		return;
	if (k->s->klog.n >= GD_KLOG_SNAPSHOT_CAP) {
		k->dropped++;
		return;
	}
	*GD_PUSH(k->s, klog, struct gd_klog_event) = *ev;
	k->kept++;
}

int gd_parse_klog(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_klog_feed f;
	struct sink k = { s, NAN, 0, 0 };

	gd_klog_feed_init(&f, keep, &k, 0);
	gd_klog_feed_buf(&f, buf, len);
	gd_klog_feed_flush(&f);
	if (k.dropped)
		gd_u64_set(&s->klog_info.dropped, k.dropped);
	if (len && memchr(buf, '\0', len)) {
		gd_err_set(err, -EINVAL, _("NUL bytes in the kernel log: lines around them may be lost"));
		return 1;
	}
	return 0;
}

/* Marks events on NVIDIA GPUs from sysfs where the line did not say. */
static void mark_gpus(const struct gd_root *root, struct gd_snapshot *s)
{
	GD_VEC_EACH(s->klog, struct gd_klog_event, ev) {
		char path[96];
		unsigned long long vendor, cls;

		if (ev->is_gpu.ok || !ev->pci_bus_id[0])
			continue;
		snprintf(path, sizeof path, "sys/bus/pci/devices/%s/vendor", ev->pci_bus_id);
		if (gd_root_read_u64(root, path, &vendor) < 0)
			continue;
		snprintf(path, sizeof path, "sys/bus/pci/devices/%s/class", ev->pci_bus_id);
		if (gd_root_read_u64(root, path, &cls) < 0)
			continue;
		gd_u64_set(&ev->is_gpu, vendor == 0x10de && (cls >> 16) == 0x03);
	}
}

enum gd_src_status gd_collect_klog(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	double lookback = ctx->klog_lookback_s > 0 ? ctx->klog_lookback_s : DEFAULT_LOOKBACK_S;
	struct sink k = { s, NAN, 0, 0 };
	struct gd_klog_feed f;
	int fd, rc;

	GD_STRSET(s->klog_info.source, "/dev/kmsg");
	gd_f64_set(&s->klog_info.lookback_s, lookback);
	if (s->host.uptime_s.ok) {
		k.from_boot = s->host.uptime_s.v - lookback;
		gd_f64_set(&s->klog_info.span_s, fmin(lookback, s->host.uptime_s.v));
	}
	fd = gd_root_openat(ctx->root, "dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		if (fd == -EACCES || fd == -EPERM)
			gd_err_set(err, fd, "/dev/kmsg: %s: %s", strerror(-fd), _(GD_KLOG_DENIED_HINT));
		else
			gd_err_set(err, fd, "/dev/kmsg: %s", strerror(-fd));
		return gd_src_status_of_errno(fd);
	}
	gd_klog_feed_init(&f, keep, &k, s->host.wall_time_s.ok ? s->host.wall_time_s.v : 0);
	rc = gd_klog_read_kmsg(&f, fd, err);
	close(fd);
	if (rc == -EACCES || rc == -EPERM)
		gd_err_set(err, rc, "/dev/kmsg: %s: %s", strerror(-rc), _(GD_KLOG_DENIED_HINT));
	gd_u64_set(&s->klog_info.lines, f.lines);
	gd_u64_set(&s->klog_info.events, k.kept);
	gd_u64_set(&s->klog_info.dropped, k.dropped);
	if (s->host.uptime_s.ok && s->host.wall_time_s.ok)
		GD_VEC_EACH(s->klog, struct gd_klog_event, ev)
			if (ev->boot_s.ok && !ev->wall_time_s.ok)
				gd_f64_set(&ev->wall_time_s, s->host.wall_time_s.v - (s->host.uptime_s.v - ev->boot_s.v));
	mark_gpus(ctx->root, s);
	if (rc < 0)
		return s->klog.n || f.lines ? GD_SRC_PARTIAL : gd_src_status_of_errno(rc);
	return GD_SRC_OK;
}

enum gd_src_status gd_collect_edac(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_dirlist l;
	int rc = gd_dirlist_read(ctx->root, "sys/devices/system/edac/mc", &l);
	bool partial = false;

	if (rc < 0) {
		gd_dirlist_release(&l);
		gd_err_set(err, rc, _("/sys/devices/system/edac/mc: %s (no EDAC driver loaded)"), strerror(-rc));
		return gd_src_status_of_errno(rc);
	}
	for (size_t i = 0; i < l.n; i++) {
		char path[128];
		unsigned long long v;
		struct gd_edac *e;

		if (strncmp(l.names[i], "mc", 2) != 0 || !l.names[i][2])
			continue;
		e = GD_PUSH(s, edac, struct gd_edac);
		GD_STRSET(e->mc, l.names[i]);
		snprintf(path, sizeof path, "sys/devices/system/edac/mc/%s/mc_name", l.names[i]);
		gd_root_read_line(ctx->root, path, e->name, sizeof e->name);
		snprintf(path, sizeof path, "sys/devices/system/edac/mc/%s/ce_count", l.names[i]);
		if (gd_root_read_u64(ctx->root, path, &v) == 0)
			gd_u64_set(&e->ce_count, v);
		else
			partial = true;
		snprintf(path, sizeof path, "sys/devices/system/edac/mc/%s/ue_count", l.names[i]);
		if (gd_root_read_u64(ctx->root, path, &v) == 0)
			gd_u64_set(&e->ue_count, v);
		else
			partial = true;
	}
	gd_dirlist_release(&l);
	if (!s->edac.n) {
		gd_err_set(err, -ENOENT, _("/sys/devices/system/edac/mc: no memory controllers"));
		return GD_SRC_ABSENT;
	}
	if (partial) {
		gd_err_set(err, -EIO, _("/sys/devices/system/edac/mc: some ce_count/ue_count files unreadable"));
		return GD_SRC_PARTIAL;
	}
	return GD_SRC_OK;
}

/* ---- a kernel-log file as a snapshot (check --from) ---------------------- */

static double ev_time(const struct gd_klog_event *ev, bool wall)
{
	if (wall)
		return ev->wall_time_s.ok ? ev->wall_time_s.v : NAN;
	return ev->boot_s.ok ? ev->boot_s.v : NAN;
}

int gd_klog_snapshot_from_fd(struct gd_snapshot *s, int fd, const char *name, double lookback_s,
			     struct gd_err *err)
{
	struct sink k = { s, NAN, 0, 0 };
	struct gd_klog_feed f;
	struct gd_source *src;
	double first = NAN, last = NAN;
	bool wall = false;
	size_t j = 0, older = 0;
	int rc;

	if (lookback_s <= 0)
		lookback_s = DEFAULT_LOOKBACK_S;
	gd_klog_feed_init(&f, keep, &k, 0);
	rc = gd_klog_read_fd(&f, fd, name, err);
	if (rc < 0)
		return rc;
	/* the file's own clock: its last event is "now"; wall time when any line has it */
	GD_VEC_EACH(s->klog, const struct gd_klog_event, ev)
		if (ev->wall_time_s.ok)
			wall = true;
	GD_VEC_EACH(s->klog, const struct gd_klog_event, ev) {
		double t = ev_time(ev, wall);

		if (!isnan(t) && (isnan(last) || t > last))
			last = t;
	}
	/* keep the look-back before it (events without that clock stay) */
	for (size_t i = 0; i < s->klog.n; i++) {
		struct gd_klog_event *ev = GD_VEC_AT(s->klog, struct gd_klog_event, i);
		double t = ev_time(ev, wall);

		enum gd_klog_kind kind = gd_klog_kind_of(ev->kind);

		if (!isnan(t) && !isnan(last) && t < last - lookback_s && kind != GD_KLOG_GPU_UUID &&
		    kind != GD_KLOG_PCIE_BANDWIDTH && kind != GD_KLOG_INIT_FAILED) {
			older++;
			continue;
		}
		if (!isnan(t) && (isnan(first) || t < first))
			first = t;
		if (j != i)
			*GD_VEC_AT(s->klog, struct gd_klog_event, j) = *ev;
		j++;
	}
	s->klog.n = j;
	GD_STRSET(s->klog_info.source, name);
	gd_f64_set(&s->klog_info.lookback_s, lookback_s);
	if (!isnan(first))
		gd_f64_set(&s->klog_info.span_s, last - first);
	gd_u64_set(&s->klog_info.lines, f.lines);
	gd_u64_set(&s->klog_info.events, j);
	gd_u64_set(&s->klog_info.dropped, k.dropped);
	gd_u64_set(&s->klog_info.older, older);
	if (!isnan(last)) {
		if (wall)
			gd_f64_set(&s->host.wall_time_s, last);
		else
			gd_f64_set(&s->host.uptime_s, last);
	}
	src = GD_PUSH(s, sources, struct gd_source);
	GD_STRSET(src->name, "klog");
	GD_STRSET(src->path, name);
	GD_STRSET(src->status, gd_src_status_name(rc ? GD_SRC_PARTIAL : GD_SRC_OK));
	if (rc)
		GD_STRSET(src->reason, err->msg);
	return rc;
}
