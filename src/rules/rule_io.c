/*
 * rule_io.c - storage rules: io.saturated, io.small_reads, io.rotational,
 * io.network_fs.
 *
 * Mechanism.  A training job reads its data set through the page cache from a
 * block device or a network filesystem; when the device cannot keep up, the
 * loader workers block in D state, the batches arrive late and the GPUs wait.
 * The kernel counts for each block device (/proc/diskstats) the time it had
 * at least one request in flight (io_ticks, our io_ms) and the integral of
 * the queue depth over time (weighted_io_ms); PSI io (/proc/pressure/io)
 * says how much of the time some task waited for I/O, whatever the device.
 *
 * Evidence and thresholds (thresholds.def, all overridable):
 *   io.saturated    busy = Δio_ms / (dt * 1000) >= busy_pct (90%): the disk had
 *                   I/O in flight nearly all the time.  NVMe devices serve many
 *                   requests in parallel and reach 100% busy before their real
 *                   limit, so the queue depth and throughput are evidence too.
 *                   Without a busy disk, PSI io some avg10 >= psi_some_pct
 *                   (30%) gives one "host" finding: tasks wait for I/O
 *                   somewhere (often a network filesystem, which has no disk).
 *   io.small_reads  reads/s >= min_reads_per_s (500) with an average read
 *                   < max_read_kib (64 KiB): many small files, each an open
 *                   plus a short read; packed shards read 1 MiB or more a go.
 *   io.rotational   a rotational disk (an HDD: ~100-200 random reads/s) busy
 *                   >= busy_pct (50%): at half busy it already queues.
 *   io.network_fs   a GPU job holding files on a network or FUSE filesystem
 *                   reads >= read_mb_per_s (10 MB/s) through syscalls.  Reads
 *                   from NFS, Ceph or FUSE never reach a block device, so
 *                   read_bytes stays 0: the rate is of rchar.
 *
 * Worked example: between two snapshots 2.0 s apart nvme0n1's io_ms rose by
 * 1940, weighted_io_ms by 62000 and sectors_read by 4687500: busy 97%, queue
 * depth 31, 1.2 GB/s read -> "nvme0n1 was busy 97% of 2.0 s (threshold 90%),
 * queue depth 31, 1.2 GB/s read, 0 B/s written."  If its reads rose by 40000
 * at the same time (20000 reads/s of 60 KiB each), io.small_reads fires too.
 *
 * Rates are taken between the first and the last snapshot of the window;
 * disks are paired by name, processes by pid and start time.  A counter that
 * went backwards (a re-created device, a reboot) gives no rate and no finding.
 */
#include "rules/rules.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"

#define SECTOR_BYTES 512.0

/* Formats a byte rate for a summary: "1.2 GB/s", "350 MB/s", "12 kB/s". */
static void fmt_rate(char *buf, size_t sz, double bytes_per_s)
{
	if (bytes_per_s >= 1e9)
		snprintf(buf, sz, "%.1f GB/s", bytes_per_s / 1e9);
	else if (bytes_per_s >= 1e6)
		snprintf(buf, sz, "%.0f MB/s", bytes_per_s / 1e6);
	else if (bytes_per_s >= 1e3)
		snprintf(buf, sz, "%.0f kB/s", bytes_per_s / 1e3);
	else
		snprintf(buf, sz, "%.0f B/s", bytes_per_s);
}

/* ---- disks ------------------------------------------------------------ */

/* What one whole disk did between two snapshots; *_ok say what is known. */
struct disk_delta {
	bool busy_ok, qd_ok, rd_ok, wr_ok, reads_ok;
	bool idle;                    /* no request completed, no busy time */
	double busy_pct, queue_depth; /* 0..100; average requests in flight */
	double read_bps, write_bps;
	double reads_per_s;
	uint64_t dreads, dsectors_read;
};

static bool disk_counts(const struct gd_disk *d)
{
	if (!d->whole.ok || d->whole.v != 1)
		return false;
	/* Loop devices mirror a file on another disk; ram and zram are
	 * memory: neither is storage a job could wait on by itself. */
	return strncmp(d->name, "loop", 4) != 0 && strncmp(d->name, "ram", 3) != 0 &&
	       strncmp(d->name, "zram", 4) != 0;
}

/* Fills dd for cur against its match in first; false when there is none. */
static bool disk_delta(const struct gd_snapshot *first, const struct gd_disk *cur, double dt,
		       struct disk_delta *dd)
{
	const struct gd_disk *prev = GD_FIND_PREV(first, disks, struct gd_disk, name, cur->name);
	uint64_t dio, dw, dsw, dwrites;
	double v;

	memset(dd, 0, sizeof *dd);
	if (!prev)
		return false;
	if (gd_counter_delta(prev->io_ms, cur->io_ms, &dio)) {
		v = 100.0 * (double)dio / (dt * 1000.0);
		/* io_ticks is sampled at jiffy granularity: a hair over 100%
		 * is rounding, not a faster-than-time disk. */
		dd->busy_pct = v > 100.0 ? 100.0 : v;
		dd->busy_ok = true;
	}
	if (gd_counter_delta(prev->weighted_io_ms, cur->weighted_io_ms, &dw)) {
		dd->queue_depth = (double)dw / (dt * 1000.0);
		dd->qd_ok = true;
	}
	if (gd_counter_delta(prev->sectors_read, cur->sectors_read, &dd->dsectors_read)) {
		dd->read_bps = (double)dd->dsectors_read * SECTOR_BYTES / dt;
		dd->rd_ok = true;
	}
	if (gd_counter_delta(prev->sectors_written, cur->sectors_written, &dsw)) {
		dd->write_bps = (double)dsw * SECTOR_BYTES / dt;
		dd->wr_ok = true;
	}
	if (gd_counter_delta(prev->reads, cur->reads, &dd->dreads)) {
		dd->reads_per_s = (double)dd->dreads / dt;
		dd->reads_ok = true;
	}
	dd->idle = dd->busy_ok && dio == 0 && dd->reads_ok && dd->dreads == 0 &&
		   gd_counter_delta(prev->writes, cur->writes, &dwrites) && dwrites == 0;
	return true;
}

/* ---- io.saturated ------------------------------------------------------ */

static void add_saturated_disk(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_disk *d,
			       const struct disk_delta *dd, double dt, double th)
{
	struct gd_finding *f = gd_finding_add(rc, out, rc->rule->severity, "%s", d->name);
	char rd[32], wr[32], qd[96] = "";

	fmt_rate(rd, sizeof rd, dd->read_bps);
	fmt_rate(wr, sizeof wr, dd->write_bps);
	if (dd->qd_ok)
		/* TRANSLATORS: a clause added to the summary below: average requests in flight */
		snprintf(qd, sizeof qd, _(", queue depth %.*f"), dd->queue_depth < 10 ? 1 : 0, dd->queue_depth);
	/* TRANSLATORS: %1$s the disk, %2$.0f%% busy, %3$.1f s the window, %4$.0f%%
	 * the threshold, %5$s "" or the queue-depth clause, %6$s read and %7$s
	 * written per second (1.2 GB/s) */
	gd_finding_summary(f, _("%s was busy %.0f%% of %.1f s (threshold %.0f%%)%s, %s read, %s written."), d->name,
			   dd->busy_pct, dt, th, qd, dd->rd_ok ? rd : "? B/s", dd->wr_ok ? wr : "? B/s");
	gd_finding_ev(f, "busy_pct", dd->busy_pct, "%", th);
	if (dd->qd_ok)
		gd_finding_ev(f, "avg_queue_depth", dd->queue_depth, "requests", NAN);
	if (dd->rd_ok)
		gd_finding_ev(f, "read_mb_per_s", dd->read_bps / 1e6, "MB/s", NAN);
	if (dd->wr_ok)
		gd_finding_ev(f, "write_mb_per_s", dd->write_bps / 1e6, "MB/s", NAN);
	if (d->rotational.ok && d->rotational.v == 1)
		gd_finding_remedy(f, _("%s is a rotational disk: move hot data and checkpoints to local NVMe SSD, or "
					"cache the data set in RAM."), d->name);
}

enum gd_verdict gd_rule_io_saturated(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	const double th = rc->th->v[GD_TH_IO_SATURATED_BUSY_PCT];
	const double th_psi = rc->th->v[GD_TH_IO_SATURATED_PSI_PCT];
	const struct gd_disk *busiest = NULL;
	double dt, busiest_pct = -1;
	size_t judged = 0, fired = 0;

	if (!gd_window_dt(rc->w, &dt))
		return gd_rule_unknown(rc, "%s", _("needs two snapshots some time apart (uptime)"));
	GD_VEC_EACH(b->disks, const struct gd_disk, d) {
		struct disk_delta dd;

		if (!disk_counts(d) || !disk_delta(a, d, dt, &dd) || !dd.busy_ok)
			continue;
		judged++;
		if (dd.idle)
			continue;
		if (dd.busy_pct > busiest_pct) {
			busiest_pct = dd.busy_pct;
			busiest = d;
		}
		if (dd.busy_pct >= th) {
			add_saturated_disk(rc, out, d, &dd, dt, th);
			fired++;
		}
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (b->psi.io_some_avg10.ok && b->psi.io_some_avg10.v >= th_psi) {
		struct gd_finding *f = gd_finding_add(rc, out, rc->rule->severity, "host");

		if (busiest)
			/* TRANSLATORS: %1$.0f%% PSI io some, %2$.0f%% its threshold, %3$s the busiest disk, %4$.0f%% its busy share */
			gd_finding_summary(f, _("Tasks waited for I/O %.0f%% of the last 10 s (PSI io some, threshold "
						"%.0f%%); the busiest disk, %s, was busy %.0f%%."),
					   b->psi.io_some_avg10.v, th_psi, busiest->name, busiest_pct);
		else
			gd_finding_summary(f, _("Tasks waited for I/O %.0f%% of the last 10 s (PSI io some, threshold "
						"%.0f%%); no disk was busy over the window."),
					   b->psi.io_some_avg10.v, th_psi);
		gd_finding_ev(f, "psi_io_some_pct", b->psi.io_some_avg10.v, "%", th_psi);
		if (busiest) {
			gd_finding_ev_text(f, "busiest_disk", busiest->name);
			gd_finding_ev(f, "busy_pct", busiest_pct, "%", th);
		} else {
			gd_finding_remedy(f, "%s",
					  _("No local disk explains the wait: look for a network filesystem "
					    "(io.network_fs) or swap, and stage the data set to local SSD."));
		}
		return GD_VERDICT_FIRED;
	}
	if (judged == 0 && !b->psi.io_some_avg10.ok)
		return gd_rule_unknown(rc, "%s", _("no disk busy time in both snapshots (/proc/diskstats) and no PSI io "
						 "(/proc/pressure/io)"));
	return GD_VERDICT_CLEAR;
}

/* ---- io.small_reads ---------------------------------------------------- */

enum gd_verdict gd_rule_io_small_reads(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	const double th_kib = rc->th->v[GD_TH_IO_SMALL_READS_MAX_KIB];
	const double th_iops = rc->th->v[GD_TH_IO_SMALL_READS_MIN_IOPS];
	size_t judged = 0, fired = 0;
	double dt;

	if (!gd_window_dt(rc->w, &dt))
		return gd_rule_unknown(rc, "%s", _("needs two snapshots some time apart (uptime)"));
	GD_VEC_EACH(b->disks, const struct gd_disk, d) {
		struct disk_delta dd;
		struct gd_finding *f;
		char rd[32];
		double kib;

		if (!disk_counts(d) || !disk_delta(a, d, dt, &dd) || !dd.reads_ok || !dd.rd_ok)
			continue;
		judged++;
		if (dd.dreads == 0 || dd.reads_per_s < th_iops)
			continue;
		kib = (double)dd.dsectors_read * SECTOR_BYTES / (double)dd.dreads / 1024.0;
		if (kib >= th_kib)
			continue;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", d->name);
		fmt_rate(rd, sizeof rd, dd.read_bps);
		/* TRANSLATORS: %1$s the disk, %2$.0f reads/s, %3$.0f its threshold,
		 * %4$.1f KiB per read, %5$.0f its threshold, %6$s the read rate (12 MB/s) */
		gd_finding_summary(f, _("%s served %.0f reads/s (threshold %.0f) of %.1f KiB on average (threshold %.0f "
					"KiB), %s in all."), d->name, dd.reads_per_s, th_iops, kib, th_kib, rd);
		gd_finding_ev(f, "read_iops", dd.reads_per_s, "reads/s", th_iops);
		gd_finding_ev(f, "avg_read_kib", kib, "KiB", th_kib);
		gd_finding_ev(f, "read_mb_per_s", dd.read_bps / 1e6, "MB/s", NAN);
		if (dd.busy_ok)
			gd_finding_ev(f, "busy_pct", dd.busy_pct, "%", NAN);
		fired++;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (judged == 0)
		return gd_rule_unknown(rc, "%s", _("no disk read counters in both snapshots (/proc/diskstats)"));
	return GD_VERDICT_CLEAR;
}

/* ---- io.rotational ----------------------------------------------------- */

enum gd_verdict gd_rule_io_rotational(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	const double th = rc->th->v[GD_TH_IO_ROTATIONAL_BUSY_PCT];
	const char *unjudged = NULL;
	size_t known = 0, fired = 0;
	double dt;

	if (!gd_window_dt(rc->w, &dt))
		return gd_rule_unknown(rc, "%s", _("needs two snapshots some time apart (uptime)"));
	GD_VEC_EACH(b->disks, const struct gd_disk, d) {
		struct disk_delta dd;
		struct gd_finding *f;

		if (!disk_counts(d) || !d->rotational.ok)
			continue;
		known++;
		if (d->rotational.v != 1)
			continue;
		if (!disk_delta(a, d, dt, &dd) || !dd.busy_ok) {
			unjudged = d->name;
			continue;
		}
		if (dd.busy_pct < th)
			continue;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", d->name);
		gd_finding_summary(f, _("%s is a rotational disk (HDD) busy %.0f%% of %.1f s (threshold %.0f%%)."),
				   d->name, dd.busy_pct, dt, th);
		gd_finding_ev(f, "busy_pct", dd.busy_pct, "%", th);
		gd_finding_ev(f, "rotational", 1, "", NAN);
		if (dd.reads_ok)
			gd_finding_ev(f, "read_iops", dd.reads_per_s, "reads/s", NAN);
		if (dd.rd_ok)
			gd_finding_ev(f, "read_mb_per_s", dd.read_bps / 1e6, "MB/s", NAN);
		fired++;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (known == 0)
		return gd_rule_unknown(rc, "%s",
				       _("no disk says whether it is rotational (/sys/block/*/queue/rotational)"));
	if (unjudged)
		return gd_rule_unknown(rc, _("no busy time in both snapshots for rotational disk %s (/proc/diskstats)"),
				       unjudged);
	return GD_VERDICT_CLEAR;
}

/* ---- io.network_fs ----------------------------------------------------- */

static const char *mount_fstype(const struct gd_snapshot *s, const char *mountpoint)
{
	const struct gd_mount *m = GD_FIND_PREV(s, mounts, struct gd_mount, mountpoint, mountpoint);

	return m && m->fstype[0] ? m->fstype : NULL;
}

enum gd_verdict gd_rule_io_network_fs(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	const double th = rc->th->v[GD_TH_IO_NETFS_READ_MBPS];
	const struct gd_proc *unjudged = NULL;
	size_t jobs = 0, fired = 0;
	double dt;

	if (!gd_window_dt(rc->w, &dt))
		return gd_rule_unknown(rc, "%s", _("needs two snapshots some time apart (uptime)"));
	GD_VEC_EACH(b->procs, const struct gd_proc, p) {
		const struct gd_proc *prev;
		const char *fstype, *mnt;
		struct gd_finding *f;
		char rd[32], where[320];
		double rate;

		if (!p->pid.ok || !gd_proc_in_gpu_job(b, p))
			continue;
		jobs++;
		if (!p->netfs_fds.ok || p->netfs_fds.v == 0)
			continue;
		/* Without a start time the pid alone has to do. */
		prev = p->starttime_ticks.ok ? gd_proc_find(a, p->pid.v, p->starttime_ticks.v)
					     : gd_snapshot_proc(a, p->pid.v);
		if (!prev || !gd_counter_rate(prev->rchar_bytes, p->rchar_bytes, dt, &rate)) {
			unjudged = p;
			continue;
		}
		if (rate / 1e6 < th)
			continue;
		mnt = p->netfs_mount[0] ? p->netfs_mount : "?";
		fstype = mount_fstype(b, p->netfs_mount);
		f = gd_finding_add(rc, out, rc->rule->severity, "pid %llu (%s)", (unsigned long long)p->pid.v,
				   p->comm);
		fmt_rate(rd, sizeof rd, rate);
		if (fstype)
			snprintf(where, sizeof where, "%s %s", fstype, mnt);
		else
			/* TRANSLATORS: where a GPU job holds files: %s is the mount point */
			snprintf(where, sizeof where, _("network filesystem %s"), mnt);
		/* TRANSLATORS: %1$llu the pid, %2$s its name, %3$s the read rate
		 * (12 MB/s), %4$.0f the threshold, %5$llu open files, %6$s where:
		 * the filesystem type and mount point (nfs4 /mnt/data) */
		gd_finding_summary(f,
				   P_("GPU job pid %llu (%s) read %s (threshold %.0f MB/s) while holding %llu open file on %s.",
				      "GPU job pid %llu (%s) read %s (threshold %.0f MB/s) while holding %llu open files on %s.",
				      (unsigned long)p->netfs_fds.v),
				   (unsigned long long)p->pid.v, p->comm, rd, th, (unsigned long long)p->netfs_fds.v, where);
		gd_finding_ev(f, "read_mb_per_s", rate / 1e6, "MB/s", th);
		gd_finding_ev(f, "netfs_fds", (double)p->netfs_fds.v, "files", NAN);
		gd_finding_ev_text(f, "mount", mnt);
		gd_finding_ev_text(f, "fstype", fstype ? fstype : "unknown (not in gpudoctor's mount table)");
		if (p->netfs_mount[0])
			gd_finding_remedy(f, _("Stage the data set from %s to local SSD before training (local SSD > Ceph "
						"> other network storage)."), p->netfs_mount);
		fired++;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (jobs == 0)
		return gd_rule_unknown(rc, "%s", _("no GPU job found (no process holds /dev/nvidia*)"));
	if (unjudged)
		/* TRANSLATORS: %1$llu and %2$llu the same pid, %3$s its name */
		return gd_rule_unknown(rc, _("no read counters (/proc/%llu/io rchar) in both snapshots for GPU job pid "
					     "%llu (%s), which holds files on a network filesystem"),
				       (unsigned long long)unjudged->pid.v, (unsigned long long)unjudged->pid.v,
				       unjudged->comm);
	return GD_VERDICT_CLEAR;
}
