/*
 * test_rules_io.c - io.saturated, io.small_reads, io.rotational, io.network_fs
 * on snapshots built in C: fires, clear, unknown, threshold edges, counters
 * going backwards, overrides.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* One disk record; counters in diskstats order. */
static struct gd_disk *disk(struct gd_snapshot *s, const char *name, int whole, int rot, uint64_t reads,
			    uint64_t sect_r, uint64_t writes, uint64_t sect_w, uint64_t io_ms, uint64_t wio_ms)
{
	struct gd_disk *d = GD_PUSH(s, disks, struct gd_disk);

	GD_STRSET(d->name, name);
	gd_u64_set(&d->whole, (uint64_t)whole);
	if (rot >= 0)
		gd_u64_set(&d->rotational, (uint64_t)rot);
	gd_u64_set(&d->reads, reads);
	gd_u64_set(&d->sectors_read, sect_r);
	gd_u64_set(&d->writes, writes);
	gd_u64_set(&d->sectors_written, sect_w);
	gd_u64_set(&d->io_ms, io_ms);
	gd_u64_set(&d->weighted_io_ms, wio_ms);
	return d;
}

/* ---- io.saturated ------------------------------------------------------ */

static void test_saturated_fires(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;

	/* The header's worked example: 1940 ms busy of 2.0 s, 62000 ms
	 * weighted, 4687500 sectors = 1.2 GB/s. */
	disk(&f->a, "nvme0n1", 1, 0, 1000, 80000, 500, 9000, 1000, 5000);
	disk(&f->b, "nvme0n1", 1, 0, 41000, 80000 + 4687500, 500, 9000, 2940, 67000);
	/* A partition and a loop device at 100% must not be findings. */
	disk(&f->a, "nvme0n1p1", 0, 0, 1000, 80000, 500, 9000, 1000, 5000);
	disk(&f->b, "nvme0n1p1", 0, 0, 41000, 80000 + 4687500, 500, 9000, 3000, 67000);
	disk(&f->a, "loop0", 1, 0, 10, 10, 0, 0, 0, 0);
	disk(&f->b, "loop0", 1, 0, 9000, 90000, 0, 0, 2000, 9000);
	assert_int_equal(run_rule2("io.saturated", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 1);
	g = FINDING(f->out, 0);
	assert_string_equal(g->id, "io.saturated");
	assert_string_equal(g->subject, "nvme0n1");
	assert_int_equal(g->severity, GD_SEV_WARNING);
	NEAR(ev_get(g, "busy_pct")->value.v, 97.0, 1e-9);
	NEAR(ev_get(g, "busy_pct")->threshold.v, 90.0, 1e-9);
	NEAR(ev_get(g, "avg_queue_depth")->value.v, 31.0, 1e-9);
	NEAR(ev_get(g, "read_mb_per_s")->value.v, 1200.0, 1e-6);
	NEAR(ev_get(g, "write_mb_per_s")->value.v, 0.0, 1e-9);
	assert_false(ev_get(g, "read_mb_per_s")->threshold.ok);
	assert_non_null(strstr(g->summary, "busy 97%"));
	assert_non_null(strstr(g->summary, "1.2 GB/s read"));
	assert_non_null(strstr(g->summary, "queue depth 31"));
}

static void test_saturated_clear(void **state)
{
	struct fx *f = *state;

	disk(&f->a, "sda", 1, 0, 100, 800, 100, 800, 1000, 2000);
	disk(&f->b, "sda", 1, 0, 300, 2400, 200, 1600, 2000, 3000); /* 50% busy */
	gd_f64_set(&f->b.psi.io_some_avg10, 2.5);
	assert_int_equal(run_rule2("io.saturated", &f->a, &f->b, NULL, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
	assert_int_equal(f->out.unknown.n, 0);
}

static void test_saturated_idle_disk_is_clear(void **state)
{
	struct fx *f = *state;

	disk(&f->a, "sdb", 1, 1, 5, 40, 5, 40, 100, 100);
	disk(&f->b, "sdb", 1, 1, 5, 40, 5, 40, 100, 100);
	assert_int_equal(run_rule2("io.saturated", &f->a, &f->b, NULL, &f->out), GD_VERDICT_CLEAR);
}

static void test_saturated_unknown(void **state)
{
	struct fx *f = *state;

	assert_int_equal(run_rule2("io.saturated", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&f->out), "/proc/diskstats"));
	assert_non_null(strstr(unknown_reason(&f->out), "/proc/pressure/io"));
}

static void test_saturated_single_snapshot_unknown(void **state)
{
	struct fx *f = *state;

	disk(&f->a, "sda", 1, 0, 100, 800, 100, 800, 1000, 2000);
	assert_int_equal(run_rule2("io.saturated", &f->a, NULL, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_int_equal(f->out.items.n, 0);
}

static void test_saturated_edge(void **state)
{
	struct fx *f = *state;
	struct gd_findings out2;

	/* 1800 ms of 2000: exactly 90% fires; 1799 ms (89.95%) does not. */
	disk(&f->a, "sda", 1, 0, 0, 0, 0, 0, 0, 0);
	disk(&f->b, "sda", 1, 0, 100, 800, 0, 0, 1800, 1800);
	assert_int_equal(run_rule2("io.saturated", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	NEAR(ev_get(FINDING(f->out, 0), "busy_pct")->value.v, 90.0, 1e-9);
	GD_VEC_AT(f->b.disks, struct gd_disk, 0)->io_ms.v = 1799;
	gd_findings_init(&out2);
	assert_int_equal(run_rule2("io.saturated", &f->a, &f->b, NULL, &out2), GD_VERDICT_CLEAR);
	assert_int_equal(out2.items.n, 0);
	gd_findings_release(&out2);
}

static void test_saturated_backwards(void **state)
{
	struct fx *f = *state;

	/* A re-created device: io_ms smaller in the later snapshot. */
	disk(&f->a, "sda", 1, 0, 100000, 800000, 0, 0, 900000, 900000);
	disk(&f->b, "sda", 1, 0, 10, 80, 0, 0, 1990, 1990);
	assert_int_equal(run_rule2("io.saturated", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_int_equal(f->out.items.n, 0);
}

static void test_saturated_psi_host(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;

	disk(&f->a, "sda", 1, 0, 0, 0, 0, 0, 0, 0);
	disk(&f->b, "sda", 1, 0, 100, 800, 0, 0, 400, 400); /* 20% */
	gd_f64_set(&f->b.psi.io_some_avg10, 30.0);          /* exactly the threshold */
	assert_int_equal(run_rule2("io.saturated", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 1);
	g = FINDING(f->out, 0);
	assert_string_equal(g->subject, "host");
	NEAR(ev_get(g, "psi_io_some_pct")->value.v, 30.0, 1e-9);
	NEAR(ev_get(g, "psi_io_some_pct")->threshold.v, 30.0, 1e-9);
	assert_string_equal(ev_get(g, "busiest_disk")->text, "sda");
	NEAR(ev_get(g, "busy_pct")->value.v, 20.0, 1e-9);
	assert_non_null(strstr(g->summary, "sda"));
}

static void test_saturated_psi_below(void **state)
{
	struct fx *f = *state;

	gd_f64_set(&f->b.psi.io_some_avg10, 29.99);
	assert_int_equal(run_rule2("io.saturated", &f->a, &f->b, NULL, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
}

static void test_saturated_psi_no_disk(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;

	gd_f64_set(&f->b.psi.io_some_avg10, 55.0);
	assert_int_equal(run_rule2("io.saturated", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	g = FINDING(f->out, 0);
	assert_string_equal(g->subject, "host");
	assert_int_equal(g->nev, 1);
	assert_non_null(strstr(g->remedy, "network filesystem"));
}

static void test_saturated_override(void **state)
{
	struct fx *f = *state;
	struct gd_thresholds th;
	struct gd_err err;

	gd_thresholds_init(&th);
	assert_int_equal(gd_thresholds_set(&th, "io.saturated.busy_pct", "50", &err), 0);
	disk(&f->a, "sda", 1, 0, 0, 0, 0, 0, 0, 0);
	disk(&f->b, "sda", 1, 0, 100, 800, 0, 0, 1200, 1200); /* 60% */
	assert_int_equal(run_rule2("io.saturated", &f->a, &f->b, &th, &f->out), GD_VERDICT_FIRED);
	NEAR(ev_get(FINDING(f->out, 0), "busy_pct")->threshold.v, 50.0, 1e-9);
}

/* ---- io.small_reads ---------------------------------------------------- */

static void test_small_reads_fires(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;

	/* 2000 reads of 8 sectors (4 KiB) in 2 s. */
	disk(&f->a, "nvme1n1", 1, 0, 5000, 40000, 0, 0, 100, 100);
	disk(&f->b, "nvme1n1", 1, 0, 7000, 56000, 0, 0, 900, 1000);
	assert_int_equal(run_rule2("io.small_reads", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 1);
	g = FINDING(f->out, 0);
	assert_string_equal(g->subject, "nvme1n1");
	NEAR(ev_get(g, "read_iops")->value.v, 1000.0, 1e-9);
	NEAR(ev_get(g, "read_iops")->threshold.v, 500.0, 1e-9);
	NEAR(ev_get(g, "avg_read_kib")->value.v, 4.0, 1e-9);
	NEAR(ev_get(g, "avg_read_kib")->threshold.v, 64.0, 1e-9);
	NEAR(ev_get(g, "read_mb_per_s")->value.v, 4.096, 1e-9);
	assert_non_null(strstr(g->summary, "1000 reads/s"));
}

static void test_small_reads_clear(void **state)
{
	struct fx *f = *state;

	/* 2000 reads of 1 MiB. */
	disk(&f->a, "nvme1n1", 1, 0, 5000, 40000, 0, 0, 100, 100);
	disk(&f->b, "nvme1n1", 1, 0, 7000, 40000 + 2000 * 2048, 0, 0, 900, 1000);
	assert_int_equal(run_rule2("io.small_reads", &f->a, &f->b, NULL, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
}

static void test_small_reads_unknown(void **state)
{
	struct fx *f = *state;

	/* Only a partition: whole disks are what the rule judges. */
	disk(&f->a, "sda1", 0, 0, 0, 0, 0, 0, 0, 0);
	disk(&f->b, "sda1", 0, 0, 9000, 9000, 0, 0, 0, 0);
	assert_int_equal(run_rule2("io.small_reads", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&f->out), "/proc/diskstats"));
}

static void test_small_reads_edges(void **state)
{
	struct fx *f = *state;
	struct gd_disk *d;
	struct gd_findings o;

	disk(&f->a, "sda", 1, 0, 0, 0, 0, 0, 0, 0);
	d = disk(&f->b, "sda", 1, 0, 1000, 1000 * 127, 0, 0, 100, 100); /* 500/s, 63.5 KiB */
	assert_int_equal(run_rule2("io.small_reads", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	NEAR(ev_get(FINDING(f->out, 0), "avg_read_kib")->value.v, 63.5, 1e-9);

	/* 999 reads in 2 s: 499.5/s, below the rate that matters. */
	d->reads.v = 999;
	d->sectors_read.v = 999 * 8;
	gd_findings_init(&o);
	assert_int_equal(run_rule2("io.small_reads", &f->a, &f->b, NULL, &o), GD_VERDICT_CLEAR);
	gd_findings_release(&o);

	/* Exactly 64 KiB per read is not small. */
	d->reads.v = 1000;
	d->sectors_read.v = 1000 * 128;
	gd_findings_init(&o);
	assert_int_equal(run_rule2("io.small_reads", &f->a, &f->b, NULL, &o), GD_VERDICT_CLEAR);
	assert_int_equal(o.items.n, 0);
	gd_findings_release(&o);
}

static void test_small_reads_backwards(void **state)
{
	struct fx *f = *state;

	disk(&f->a, "sda", 1, 0, 90000, 720000, 0, 0, 0, 0);
	disk(&f->b, "sda", 1, 0, 2000, 16000, 0, 0, 100, 100);
	assert_int_equal(run_rule2("io.small_reads", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_int_equal(f->out.items.n, 0);
}

static void test_small_reads_override(void **state)
{
	struct fx *f = *state;
	struct gd_thresholds th;
	struct gd_err err;

	/* 128 KiB reads are small for a user who packs 1 MiB records. */
	gd_thresholds_init(&th);
	assert_int_equal(gd_thresholds_set(&th, "io.small_reads.max_read_kib", "256", &err), 0);
	disk(&f->a, "sda", 1, 0, 0, 0, 0, 0, 0, 0);
	disk(&f->b, "sda", 1, 0, 2000, 2000 * 256, 0, 0, 100, 100);
	assert_int_equal(run_rule2("io.small_reads", &f->a, &f->b, NULL, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(run_rule2("io.small_reads", &f->a, &f->b, &th, &f->out), GD_VERDICT_FIRED);
	NEAR(ev_get(FINDING(f->out, 0), "avg_read_kib")->threshold.v, 256.0, 1e-9);
}

/* ---- io.rotational ----------------------------------------------------- */

static void test_rotational_fires(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;

	disk(&f->a, "sda", 1, 1, 0, 0, 0, 0, 0, 0);
	disk(&f->b, "sda", 1, 1, 300, 2400, 0, 0, 1200, 3000); /* 60% */
	disk(&f->a, "nvme0n1", 1, 0, 0, 0, 0, 0, 0, 0);
	disk(&f->b, "nvme0n1", 1, 0, 300, 2400, 0, 0, 2000, 3000); /* SSD at 100% */
	assert_int_equal(run_rule2("io.rotational", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 1);
	g = FINDING(f->out, 0);
	assert_string_equal(g->subject, "sda");
	NEAR(ev_get(g, "busy_pct")->value.v, 60.0, 1e-9);
	NEAR(ev_get(g, "busy_pct")->threshold.v, 50.0, 1e-9);
	NEAR(ev_get(g, "rotational")->value.v, 1.0, 0);
	NEAR(ev_get(g, "read_iops")->value.v, 150.0, 1e-9);
}

static void test_rotational_clear(void **state)
{
	struct fx *f = *state;

	disk(&f->a, "sda", 1, 1, 0, 0, 0, 0, 0, 0);
	disk(&f->b, "sda", 1, 1, 30, 240, 0, 0, 200, 300); /* 10% */
	disk(&f->a, "nvme0n1", 1, 0, 0, 0, 0, 0, 0, 0);
	disk(&f->b, "nvme0n1", 1, 0, 300, 2400, 0, 0, 2000, 3000);
	assert_int_equal(run_rule2("io.rotational", &f->a, &f->b, NULL, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
}

static void test_rotational_unknown(void **state)
{
	struct fx *f = *state;

	disk(&f->a, "sda", 1, -1, 0, 0, 0, 0, 0, 0);
	disk(&f->b, "sda", 1, -1, 30, 240, 0, 0, 2000, 300);
	assert_int_equal(run_rule2("io.rotational", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&f->out), "rotational"));
}

static void test_rotational_edge(void **state)
{
	struct fx *f = *state;
	struct gd_findings o;

	disk(&f->a, "sdc", 1, 1, 0, 0, 0, 0, 0, 0);
	disk(&f->b, "sdc", 1, 1, 30, 240, 0, 0, 1000, 1000); /* exactly 50% */
	assert_int_equal(run_rule2("io.rotational", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	GD_VEC_AT(f->b.disks, struct gd_disk, 0)->io_ms.v = 999;
	gd_findings_init(&o);
	assert_int_equal(run_rule2("io.rotational", &f->a, &f->b, NULL, &o), GD_VERDICT_CLEAR);
	gd_findings_release(&o);
}

static void test_rotational_backwards(void **state)
{
	struct fx *f = *state;

	disk(&f->a, "sda", 1, 1, 0, 0, 0, 0, 50000, 0);
	disk(&f->b, "sda", 1, 1, 30, 240, 0, 0, 1500, 1000);
	assert_int_equal(run_rule2("io.rotational", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_int_equal(f->out.items.n, 0);
	assert_non_null(strstr(unknown_reason(&f->out), "sda"));
}

static void test_rotational_override(void **state)
{
	struct fx *f = *state;
	struct gd_thresholds th;
	struct gd_err err;

	gd_thresholds_init(&th);
	assert_int_equal(gd_thresholds_set(&th, "io.rotational.busy_pct", "80", &err), 0);
	disk(&f->a, "sda", 1, 1, 0, 0, 0, 0, 0, 0);
	disk(&f->b, "sda", 1, 1, 300, 2400, 0, 0, 1200, 3000); /* 60% */
	assert_int_equal(run_rule2("io.rotational", &f->a, &f->b, &th, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
}

/* ---- io.network_fs ----------------------------------------------------- */

static struct gd_proc *proc(struct gd_snapshot *s, uint64_t pid, uint64_t ppid, const char *comm, uint64_t nvidia,
			    uint64_t netfs, const char *mnt, uint64_t rchar)
{
	struct gd_proc *p = GD_PUSH(s, procs, struct gd_proc);

	gd_u64_set(&p->pid, pid);
	gd_u64_set(&p->ppid, ppid);
	GD_STRSET(p->comm, comm);
	gd_u64_set(&p->starttime_ticks, 4242 + pid);
	gd_u64_set(&p->nvidia_fds, nvidia);
	gd_u64_set(&p->netfs_fds, netfs);
	GD_STRSET(p->netfs_mount, mnt);
	gd_u64_set(&p->rchar_bytes, rchar);
	gd_u64_set(&p->read_bytes, 0); /* network filesystems never count here */
	return p;
}

static void add_mount(struct gd_snapshot *s, const char *dev, const char *mp, const char *fstype)
{
	struct gd_mount *m = GD_PUSH(s, mounts, struct gd_mount);

	GD_STRSET(m->device, dev);
	GD_STRSET(m->mountpoint, mp);
	GD_STRSET(m->fstype, fstype);
}

/* A job (pid 100, holds /dev/nvidia0), its loader worker 101, and an
 * unrelated backup 200 reading the same NFS mount. */
static void netfs_world(struct fx *f, uint64_t job_bytes, uint64_t worker_bytes)
{
	proc(&f->a, 1, 0, "systemd", 0, 0, "", 0);
	proc(&f->b, 1, 0, "systemd", 0, 0, "", 0);
	proc(&f->a, 100, 1, "python", 2, 3, "/mnt/data", 1000);
	proc(&f->b, 100, 1, "python", 2, 3, "/mnt/data", 1000 + job_bytes);
	proc(&f->a, 101, 100, "pt_data_worker", 0, 1, "/mnt/data", 0);
	proc(&f->b, 101, 100, "pt_data_worker", 0, 1, "/mnt/data", worker_bytes);
	proc(&f->a, 200, 1, "rsync", 0, 5, "/mnt/data", 0);
	proc(&f->b, 200, 1, "rsync", 0, 5, "/mnt/data", 1000000000);
	add_mount(&f->b, "fs1:/export/data", "/mnt/data", "nfs4");
}

static void test_netfs_fires(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;

	netfs_world(f, 100000000, 4000000); /* 50 MB/s and 2 MB/s */
	assert_int_equal(run_rule2("io.network_fs", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 1);
	g = FINDING(f->out, 0);
	assert_string_equal(g->subject, "pid 100 (python)");
	NEAR(ev_get(g, "read_mb_per_s")->value.v, 50.0, 1e-9);
	NEAR(ev_get(g, "read_mb_per_s")->threshold.v, 10.0, 1e-9);
	NEAR(ev_get(g, "netfs_fds")->value.v, 3.0, 0);
	assert_string_equal(ev_get(g, "mount")->text, "/mnt/data");
	assert_string_equal(ev_get(g, "fstype")->text, "nfs4");
	assert_non_null(strstr(g->summary, "nfs4 /mnt/data"));
	assert_non_null(strstr(g->remedy, "/mnt/data"));
}

static void test_netfs_worker_in_job_tree(void **state)
{
	struct fx *f = *state;

	netfs_world(f, 0, 60000000); /* the worker reads 30 MB/s */
	assert_int_equal(run_rule2("io.network_fs", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 1);
	assert_string_equal(FINDING(f->out, 0)->subject, "pid 101 (pt_data_worker)");
	NEAR(ev_get(FINDING(f->out, 0), "read_mb_per_s")->value.v, 30.0, 1e-9);
}

static void test_netfs_clear(void **state)
{
	struct fx *f = *state;

	netfs_world(f, 2000000, 0); /* 1 MB/s; rsync's 500 MB/s is not a job */
	assert_int_equal(run_rule2("io.network_fs", &f->a, &f->b, NULL, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
}

static void test_netfs_unknown_no_job(void **state)
{
	struct fx *f = *state;

	proc(&f->a, 200, 1, "rsync", 0, 5, "/mnt/data", 0);
	proc(&f->b, 200, 1, "rsync", 0, 5, "/mnt/data", 1000000000);
	assert_int_equal(run_rule2("io.network_fs", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_int_equal(f->out.items.n, 0);
	assert_string_equal(unknown_reason(&f->out), "no GPU job found (no process holds /dev/nvidia*)");
}

static void test_netfs_edge(void **state)
{
	struct fx *f = *state;
	struct gd_findings o;

	netfs_world(f, 20000000, 0); /* exactly 10 MB/s */
	assert_int_equal(run_rule2("io.network_fs", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	GD_VEC_AT(f->b.procs, struct gd_proc, 1)->rchar_bytes.v -= 1;
	gd_findings_init(&o);
	assert_int_equal(run_rule2("io.network_fs", &f->a, &f->b, NULL, &o), GD_VERDICT_CLEAR);
	assert_int_equal(o.items.n, 0);
	gd_findings_release(&o);
}

static void test_netfs_backwards(void **state)
{
	struct fx *f = *state;

	netfs_world(f, 100000000, 0);
	GD_VEC_AT(f->a.procs, struct gd_proc, 1)->rchar_bytes.v = UINT64_MAX - 5;
	assert_int_equal(run_rule2("io.network_fs", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_int_equal(f->out.items.n, 0);
	assert_non_null(strstr(unknown_reason(&f->out), "pid 100 (python)"));
}

static void test_netfs_pid_reused(void **state)
{
	struct fx *f = *state;

	/* Same pid, another start time: a new process, no rate to take. */
	netfs_world(f, 100000000, 0);
	GD_VEC_AT(f->a.procs, struct gd_proc, 1)->starttime_ticks.v = 7;
	assert_int_equal(run_rule2("io.network_fs", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_int_equal(f->out.items.n, 0);
}

static void test_netfs_mount_not_in_table(void **state)
{
	struct fx *f = *state;

	netfs_world(f, 100000000, 0);
	GD_STRSET(GD_VEC_AT(f->b.mounts, struct gd_mount, 0)->mountpoint, "/elsewhere");
	assert_int_equal(run_rule2("io.network_fs", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	assert_non_null(strstr(ev_get(FINDING(f->out, 0), "fstype")->text, "unknown"));
}

static void test_netfs_override(void **state)
{
	struct fx *f = *state;
	struct gd_thresholds th;
	struct gd_err err;

	gd_thresholds_init(&th);
	assert_int_equal(gd_thresholds_set(&th, "io.network_fs.read_mb_per_s", "100", &err), 0);
	netfs_world(f, 100000000, 0); /* 50 MB/s */
	assert_int_equal(run_rule2("io.network_fs", &f->a, &f->b, &th, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_saturated_fires),
		T(test_saturated_clear),
		T(test_saturated_idle_disk_is_clear),
		T(test_saturated_unknown),
		T(test_saturated_single_snapshot_unknown),
		T(test_saturated_edge),
		T(test_saturated_backwards),
		T(test_saturated_psi_host),
		T(test_saturated_psi_below),
		T(test_saturated_psi_no_disk),
		T(test_saturated_override),
		T(test_small_reads_fires),
		T(test_small_reads_clear),
		T(test_small_reads_unknown),
		T(test_small_reads_edges),
		T(test_small_reads_backwards),
		T(test_small_reads_override),
		T(test_rotational_fires),
		T(test_rotational_clear),
		T(test_rotational_unknown),
		T(test_rotational_edge),
		T(test_rotational_backwards),
		T(test_rotational_override),
		T(test_netfs_fires),
		T(test_netfs_worker_in_job_tree),
		T(test_netfs_clear),
		T(test_netfs_unknown_no_job),
		T(test_netfs_edge),
		T(test_netfs_backwards),
		T(test_netfs_pid_reused),
		T(test_netfs_mount_not_in_table),
		T(test_netfs_override),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
