/*
 * fabric.c - the NVSwitch fabric and its Fabric Manager, as the host shows
 * them (the GPUs' own fabric state comes from NVML: nvml_gpu_health.c).
 *
 * NVSwitches: PCI functions of vendor 0x10de, class 0x0680xx ("bridge,
 * other") in /sys/bus/pci/devices; where sysfs is not readable (or lists
 * none but the nvswitch driver does), the entries of
 * /proc/driver/nvidia-nvswitch/devices.  On a board with none, Fabric
 * Manager is not needed and nothing more is read.
 *
 * Whether Fabric Manager runs: a process whose comm is nv-fabricmanager
 * (the kernel keeps 15 bytes: "nv-fabricmanage"); else the pid file its
 * systemd unit names (/var/run/nvidia-fabricmanager/nv-fabricmanager.pid)
 * naming a live process of that name.  "Not running" is said only where
 * gpudoctor sees the host's processes: PID 1 is systemd or init.  In a
 * container's PID namespace (PID 1 is anything else) the host's daemon is
 * invisible: fm_running stays absent, with that reason.  systemd's own view
 * (the unit's state) needs its D-Bus API, which gpudoctor does not speak.
 *
 * The log: the last 1 MiB of /var/log/fabricmanager.log (FM's default
 * LOG_FILE_NAME), errors inside the kernel-log look-back (fmlog.c).
 */
#include "collect/collectors.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collect/dirlist.h"
#include "core/i18n.h"
#include "core/xalloc.h"
#include "klog/fmlog.h"

#define FM_COMM "nv-fabricmanage"
#define FM_LOG "var/log/fabricmanager.log"
#define FM_LOG_TAIL (1u << 20)
static const char *const pid_files[] = { "var/run/nvidia-fabricmanager/nv-fabricmanager.pid",
					 "run/nvidia-fabricmanager/nv-fabricmanager.pid" };

/* NVSwitch functions in sysfs; -errno when the directory cannot be read. */
static int count_sysfs(const struct gd_root *root, uint64_t *n)
{
	struct gd_dirlist l;
	int rc = gd_dirlist_read(root, "sys/bus/pci/devices", &l);

	*n = 0;
	for (size_t i = 0; rc == 0 && i < l.n; i++) {
		char p[320];
		unsigned long long vendor = 0, cls = 0;

		snprintf(p, sizeof p, "sys/bus/pci/devices/%s/vendor", l.names[i]);
		if (gd_root_read_u64(root, p, &vendor) < 0 || vendor != 0x10de)
			continue;
		snprintf(p, sizeof p, "sys/bus/pci/devices/%s/class", l.names[i]);
		if (gd_root_read_u64(root, p, &cls) == 0 && (cls >> 8) == 0x0680)
			(*n)++;
	}
	gd_dirlist_release(&l);
	return rc;
}

static bool comm_is_fm(const struct gd_root *root, const char *pid)
{
	char p[64], comm[32];

	snprintf(p, sizeof p, "proc/%s/comm", pid);
	return gd_root_read_line(root, p, comm, sizeof comm) >= 0 && strcmp(comm, FM_COMM) == 0;
}

/* Whether nv-fabricmanager is among the processes the processes collector
 * listed in this snapshot (it runs before this one); the evidence when it
 * is.  *nproc: how many were looked at. */
static bool fm_in_snapshot(const struct gd_snapshot *s, struct gd_fabric *f, unsigned long *nproc)
{
	*nproc = s->procs.n;
	GD_VEC_EACH(s->procs, const struct gd_proc, p)
		if (p->pid.ok && strcmp(p->comm, FM_COMM) == 0) {
			char pid[24];

			snprintf(pid, sizeof pid, "%llu", (unsigned long long)p->pid.v);
			gd_u64_set(&f->fm_running, 1);
			snprintf(f->fm_evidence, sizeof f->fm_evidence, _("process nv-fabricmanager (pid %s)"), pid);
			return true;
		}
	return false;
}

/* The same from /proc itself (a snapshot without processes: the collector
 * run alone): 1 found, 0 not, -errno when /proc cannot be listed. */
static int fm_in_proc(const struct gd_root *root, struct gd_fabric *f, unsigned long *nproc)
{
	struct gd_dirlist l;
	int rc = gd_dirlist_read(root, "proc", &l);

	*nproc = 0;
	for (size_t i = 0; rc == 0 && i < l.n; i++) {
		if (l.names[i][0] < '1' || l.names[i][0] > '9' || strspn(l.names[i], "0123456789") != strlen(l.names[i]))
			continue;
		(*nproc)++;
		if (comm_is_fm(root, l.names[i])) {
			gd_u64_set(&f->fm_running, 1);
			snprintf(f->fm_evidence, sizeof f->fm_evidence, _("process nv-fabricmanager (pid %s)"), l.names[i]);
			rc = 1;
		}
	}
	gd_dirlist_release(&l);
	return rc;
}

static void fm_process(const struct gd_root *root, const struct gd_snapshot *s, struct gd_fabric *f)
{
	char init[32] = "", pid[24];
	unsigned long nproc = 0;
	int rc = s->procs.n ? fm_in_snapshot(s, f, &nproc) : fm_in_proc(root, f, &nproc);

	if (rc > 0)
		return;
	if (rc < 0) {
		snprintf(f->fm_reason, sizeof f->fm_reason, "/proc: %s", strerror(-rc));
		return;
	}
	for (size_t i = 0; i < sizeof pid_files / sizeof pid_files[0]; i++)
		if (gd_root_read_line(root, pid_files[i], pid, sizeof pid) >= 0 && pid[0]) {
			snprintf(f->fm_evidence, sizeof f->fm_evidence,
				 _("/%s names pid %s, which is not an nv-fabricmanager process"), pid_files[i], pid);
			if (strspn(pid, "0123456789") == strlen(pid) && comm_is_fm(root, pid)) {
				gd_u64_set(&f->fm_running, 1);   /* hidden from the listing (hidepid) */
				return;
			}
			gd_u64_set(&f->fm_running, 0);
			return;
		}
	if (gd_root_read_line(root, "proc/1/comm", init, sizeof init) < 0 ||
	    (strcmp(init, "systemd") != 0 && strcmp(init, "init") != 0)) {
		snprintf(f->fm_reason, sizeof f->fm_reason,
			 _("PID 1 is \"%s\", not systemd or init: gpudoctor sees a container's processes, not the host's nv-fabricmanager"),
			 init[0] ? init : "?");
		return;
	}
	gd_u64_set(&f->fm_running, 0);
	snprintf(f->fm_evidence, sizeof f->fm_evidence,
		 _("no nv-fabricmanager among %lu processes, no pid file (PID 1 is %s)"), nproc, init);
}

/* The log's last FM_LOG_TAIL bytes, from the first whole line. */
static int fm_log(const struct gd_collect_ctx *ctx, struct gd_fabric *f, struct gd_err *err)
{
	int fd = gd_root_openat(ctx->root, FM_LOG, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	char *buf;
	ssize_t got;
	size_t n = 0, skip = 0;
	off_t from;
	struct gd_err perr;
	int rc;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	from = st.st_size > (off_t)FM_LOG_TAIL ? st.st_size - (off_t)FM_LOG_TAIL : 0;
	buf = gd_xmalloc(FM_LOG_TAIL + 1);
	while (n < FM_LOG_TAIL && (got = pread(fd, buf + n, FM_LOG_TAIL - n, from + (off_t)n)) > 0)
		n += (size_t)got;
	close(fd);
	buf[n] = '\0';
	if (from > 0) {
		char *nl = memchr(buf, '\n', n);

		skip = nl ? (size_t)(nl - buf) + 1 : n;
	}
	gd_err_clear(&perr);
	GD_STRSET(f->fm_log, "/" FM_LOG);
	rc = gd_fmlog_parse(buf + skip, n - skip, (double)time(NULL),
			    ctx->klog_lookback_s > 0 ? ctx->klog_lookback_s : 86400.0, f, &perr);
	free(buf);
	if (rc < 0 && n - skip == 0)
		rc = 0;   /* an empty log: nothing reported */
	if (rc != 0)
		gd_err_set(err, rc < 0 ? -EINVAL : 1, "/%s: %s", FM_LOG, perr.msg);
	return rc < 0 ? -EINVAL : rc;
}

enum gd_src_status gd_collect_fabric(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_fabric *f = &s->fabric;
	struct gd_dirlist l;
	uint64_t n = 0;
	int rs = count_sysfs(ctx->root, &n), rp;

	if (rs == 0 && n)
		gd_u64_set(&f->nvswitches, n);
	rp = gd_dirlist_read(ctx->root, "proc/driver/nvidia-nvswitch/devices", &l);
	if (rp == 0 && l.n && (rs < 0 || !n))
		gd_u64_set(&f->nvswitches, l.n);
	else if (rs == 0 && !n)
		gd_u64_set(&f->nvswitches, 0);
	gd_dirlist_release(&l);
	if (!f->nvswitches.ok) {
		gd_err_set(err, rs, _("/sys/bus/pci/devices: %s, and no /proc/driver/nvidia-nvswitch/devices"),
			   strerror(-rs));
		return gd_src_status_of_errno(rs);
	}
	if (!f->nvswitches.v) {
		GD_STRSET(f->fm_reason, _("no NVSwitch on this board: Fabric Manager is not needed"));
		return GD_SRC_OK;
	}
	fm_process(ctx->root, s, f);
	rp = fm_log(ctx, f, err);
	if (rp < 0 && rp != -ENOENT) {
		if (!err->msg[0])
			gd_err_set(err, rp, "/%s: %s", FM_LOG, strerror(-rp));
		return GD_SRC_PARTIAL;
	}
	if (rp > 0 || !f->fm_running.ok) {
		if (!err->msg[0])
			gd_err_set(err, 1, _("whether nv-fabricmanager runs: %s"), f->fm_reason);
		return GD_SRC_PARTIAL;
	}
	return GD_SRC_OK;
}
