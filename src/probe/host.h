/*
 * host.h - the host half of `gpudoctor probe`: the storage a data set sits
 * on, host memory bandwidth per NUMA node, and the power drawn at full burn.
 *
 * Each probe fills one plain struct of results.  A figure is valid only
 * when the availability beside it says GD_PROBE_OK; otherwise it is NAN and
 * why[] says, in one sentence, what stopped it ("no file of at least 8 MiB
 * under /data", "intel-rapl:0/energy_uj: permission denied (root only since
 * Linux 5.10)").  A probe never guesses and never crashes a run: every
 * function returns 0 when it ran (even when some part was unavailable) and
 * a negative errno only for a bad argument.
 *
 * Units, once: MB and GB are 10^6 and 10^9 bytes (dd's and fio's "MB/s"),
 * latencies are microseconds, power is watts, times are seconds.
 *
 *   storage   gd_probe_storage(dir, opts, &r): walks dir (files, bytes),
 *             names its filesystem (statfs(2) and the mount table through
 *             the root prefix) and the device class below it (NVMe, SSD,
 *             HDD from /sys/dev/block, network, memory); reads the largest
 *             files sequentially in 1 MiB blocks, 4 KiB blocks at random
 *             offsets (QD1, one thread), and a sample of small files whole
 *             (open, read, close), all without the page cache: O_DIRECT with
 *             aligned buffers, or posix_fadvise(DONTNEED) where O_DIRECT is
 *             refused (FUSE without direct_io, tmpfs before Linux 6.6);
 *             which one is in *_cache.  Then
 *             what it means for an epoch: bytes / sequential rate and files
 *             / files-per-second.
 *   host mem  gd_probe_host_mem(opts, &r): STREAM triad a = b + q*c per
 *             NUMA node (/sys/devices/system/node through the root prefix):
 *             one thread per CPU of the node, pinned to it, each touching
 *             its own slice of the arrays first so that the pages land on
 *             the node; best of the repetitions, 24 bytes per element
 *             (STREAM's count, no write-allocate traffic).
 *   power     gd_probe_rapl_sample() at the start of the burn, then
 *             gd_probe_power() near its end: the GPUs' power (the caller's
 *             NVML figure) plus the host's RAPL package and DRAM energy over
 *             that interval, and the BMC's whole-system reading from
 *             `ipmitool dcmi power reading` when ipmitool is installed.  The
 *             PSU capacity is configuration (probe.power_headroom's
 *             psu_capacity_w): the rule compares, the probe only measures.
 *
 * Judging (src/rules/rule_probe_host.c, pure, no I/O):
 * gd_probe_host_judge() runs probe.storage_slow, probe.small_files_slow,
 * probe.host_mem_bandwidth_low and probe.power_headroom over the results and
 * the thresholds; gd_probe_host_lines() gives per probe the achieved figure,
 * the expected one and where that came from, for the report.
 *
 * JSON (host_json.c): gd_probe_host_json() gives one object per result with
 * every figure (NAN as null) and the availabilities.
 *
 * For `gpudoctor probe` (the caller):
 *   - Nothing here keeps state between calls or touches CUDA: the functions
 *     run in the parent while the GPU child burns.  Results are plain
 *     structs (storage ~6 KiB, mem ~22 KiB): heap or stack, no release.
 *   - Storage: run it when no GPU copy test runs (it competes for PCIe and
 *     memory); it takes up to 3 x budget_s plus the walk of DIR.
 *   - Host memory: run it before or after the GPU probes, not during the
 *     pinned-copy tests (it saturates host memory on purpose).  Default
 *     arrays are 3 x up to 512 MiB; ~10 s on a 2-CPU VM, far less on a
 *     server with many cores.  stream_elems bounds it.
 *   - Power: gd_probe_rapl_sample(&o, &start) when the burn starts,
 *     gd_probe_power(&o, &(struct gd_probe_power_in){ gpu_w, ngpus, &start },
 *     &r) near its end with the GPUs' summed NVML power; it runs ipmitool
 *     (up to ipmitool_timeout_s) and does not sleep when given a start.
 *   - Then gd_probe_host_judge(&(struct gd_probe_host_results){ &st, &mem,
 *     &pw }, th, findings) (NULL members: not run) and, for the per-probe
 *     table, gd_probe_host_lines().  The thresholds (and PSU capacity,
 *     epoch length, expected memory bandwidth) come from --set and the
 *     config file like any rule's: probe.power_headroom.psu_capacity_w=3000.
 */
#ifndef GD_PROBE_HOST_H
#define GD_PROBE_HOST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "rules/rule.h"

/* ---- availability ------------------------------------------------------ */

enum gd_probe_state {
	GD_PROBE_NOT_RUN = 0,   /* not asked for, or not reached */
	GD_PROBE_OK,            /* ran: the figures beside it are valid */
	GD_PROBE_UNAVAILABLE,   /* could not run here (nothing to measure, no permission, no tool) */
	GD_PROBE_FAILED,        /* started and failed (an I/O error): why says */
};

struct gd_probe_avail {
	enum gd_probe_state state;
	char why[256];          /* "" when OK */
};

/* "not run", "ok", "unavailable", "failed" */
const char *gd_probe_state_name(enum gd_probe_state s);

/* How the page cache was kept out of a measurement. */
enum gd_probe_cache {
	GD_PROBE_CACHE_NONE = 0,  /* not measured */
	GD_PROBE_CACHE_DIRECT,    /* O_DIRECT with aligned buffers */
	GD_PROBE_CACHE_FADVISE,   /* O_DIRECT refused: fdatasync + posix_fadvise(DONTNEED) before reading */
};

/* "none", "O_DIRECT", "posix_fadvise(DONTNEED)" */
const char *gd_probe_cache_name(enum gd_probe_cache c);

/* What the data directory's storage is, from the mount table and sysfs. */
enum gd_probe_media {
	GD_PROBE_MEDIA_UNKNOWN = 0, /* overlay without a block device, a device sysfs does not describe */
	GD_PROBE_MEDIA_NVME,        /* a block device named nvme* */
	GD_PROBE_MEDIA_SSD,         /* another block device, queue/rotational = 0 */
	GD_PROBE_MEDIA_HDD,         /* queue/rotational = 1 (virtio disks say 1 too) */
	GD_PROBE_MEDIA_NETWORK,     /* nfs, cifs, ceph, lustre, gpfs, ... and FUSE but lxcfs */
	GD_PROBE_MEDIA_MEMORY,      /* tmpfs, ramfs: no backing store, the cache is the data */
};

/* "unknown", "nvme", "ssd", "hdd", "network", "memory" */
const char *gd_probe_media_name(enum gd_probe_media m);

/* ---- options ----------------------------------------------------------- */

/* Zero means "the default" for every number (gd_probe_host_opts_init sets
 * them explicitly, so a caller may also read them). */
struct gd_probe_host_opts {
	const char *root;          /* root prefix for /proc and /sys: NULL or "/" is this host */
	double budget_s;           /* time limit of each storage measurement (3 s) */
	uint64_t seq_max_bytes;    /* most bytes the sequential read reads (1 GiB) */
	uint64_t large_min_bytes;  /* smallest file read sequentially (8 MiB) */
	unsigned rand_reads;       /* 4 KiB random reads (1000) */
	uint64_t small_max_bytes;  /* a file of at most this size is small (1 MiB) */
	unsigned small_sample;     /* small files opened and read (2000) */
	uint64_t walk_max_files;   /* files counted before the walk stops (10,000,000) */
	unsigned seed;             /* random offsets and the sample (1: reproducible) */
	bool no_direct;            /* never try O_DIRECT: fdatasync + posix_fadvise(DONTNEED) only */
	uint64_t stream_elems;     /* STREAM array length (0: 4 x the node's last-level cache in
	                            * doubles, at least 2 M, at most 64 M) */
	unsigned stream_reps;      /* repetitions, the best one counts (10) */
	unsigned stream_max_threads; /* threads per node (0: one per CPU of the node) */
	const char *ipmitool;      /* NULL: "ipmitool" on PATH; "": do not run it */
	double ipmitool_timeout_s; /* 10 s */
};

void gd_probe_host_opts_init(struct gd_probe_host_opts *o);

/* ---- storage ----------------------------------------------------------- */

struct gd_probe_storage_result {
	struct gd_probe_avail avail;     /* the directory itself: UNAVAILABLE when it cannot be read */
	char dir[1024];                  /* as given */

	/* filesystem */
	char fstype[64];                 /* "ext4", "nfs4", "fuse.sshfs" (mount table), else statfs's name */
	unsigned long fs_magic;          /* statfs f_type */
	char mount_point[1024];          /* "" when the mount table has no line for it */
	char mount_source[256];          /* "/dev/nvme0n1p2", "server:/export" */
	char block_dev[64];              /* the whole disk under it, "nvme0n1" ("" none) */
	enum gd_probe_media media;
	char media_why[160];             /* how media was decided: "nvme0n1 (NVMe)", "nfs4 mount" */

	/* the data set */
	uint64_t files;                  /* regular files under dir */
	uint64_t bytes;                  /* their sizes, summed */
	uint64_t small_files;            /* of them, at most small_max_bytes */
	bool walk_complete;              /* false: stopped at walk_max_files, after 10 x budget_s, or on
	                                  * an unreadable directory: files, bytes and the epoch figures
	                                  * are then lower bounds */

	/* sequential read of the largest files, 1 MiB blocks */
	struct gd_probe_avail seq;
	enum gd_probe_cache seq_cache;
	double seq_mb_s;                 /* MB/s */
	uint64_t seq_bytes;              /* bytes read */
	double seq_s;                    /* seconds it took */
	unsigned seq_files;              /* files read */

	/* 4 KiB random reads at aligned offsets of the largest file, QD1 */
	struct gd_probe_avail rnd;
	enum gd_probe_cache rnd_cache;
	double rnd_lat_us;               /* mean latency, µs */
	double rnd_p50_us, rnd_p99_us;
	double rnd_iops;                 /* reads per second (1 / mean at QD1) */
	unsigned rnd_reads;
	char rnd_file[1024];             /* the file read */

	/* small files opened, read whole and closed, one thread */
	struct gd_probe_avail small;
	enum gd_probe_cache small_cache;
	double small_files_s;            /* files per second */
	double small_mb_s;               /* MB/s while doing so */
	unsigned small_n;                /* files read */
	uint64_t small_bytes;
	double small_s;

	/* an epoch: reading every byte once at seq_mb_s, opening every file
	 * once at small_files_s (NAN when the figure it needs is missing) */
	double epoch_read_s;
	double epoch_open_s;
};

/* Runs the storage probe on dir.  Returns 0 (r->avail says whether it
 * ran), or -EINVAL for a NULL argument. */
int gd_probe_storage(const char *dir, const struct gd_probe_host_opts *o, struct gd_probe_storage_result *r);

/* The filesystem part alone (no reads): fills fstype .. media_why from
 * statfs(dir) and the mount table and sysfs under the root prefix. */
int gd_probe_storage_fs(const char *dir, const struct gd_probe_host_opts *o, struct gd_probe_storage_result *r);

/* ---- host memory bandwidth --------------------------------------------- */

#define GD_PROBE_MAX_NODES 64

struct gd_probe_mem_node {
	int node;                        /* N of nodeN; -1: the whole host (no NUMA in sysfs) */
	struct gd_probe_avail avail;
	unsigned ncpus;                  /* CPUs of the node */
	unsigned threads;                /* threads run, one per CPU up to stream_max_threads */
	uint64_t elems;                  /* array length: 3 arrays of doubles */
	double triad_gb_s;               /* GB/s, best repetition, 24 B per element */
	double triad_avg_gb_s;           /* GB/s, mean of the repetitions after the first */
};

struct gd_probe_mem_result {
	struct gd_probe_avail avail;     /* OK when at least one node measured */
	bool numa;                       /* false: /sys/devices/system/node absent, one pseudo-node */
	size_t nnodes;
	struct gd_probe_mem_node nodes[GD_PROBE_MAX_NODES];
};

int gd_probe_host_mem(const struct gd_probe_host_opts *o, struct gd_probe_mem_result *r);

/* ---- power ------------------------------------------------------------- */

#define GD_PROBE_MAX_RAPL 16

struct gd_probe_rapl_zone {
	char path[64];                   /* "intel-rapl:0", "intel-rapl:0:1" */
	char name[32];                   /* "package-0", "dram", "psys" */
	uint64_t energy_uj;
	uint64_t max_energy_uj;          /* max_energy_range_uj: where the counter wraps */
};

struct gd_probe_rapl_sample {
	struct gd_probe_avail avail;
	double t;                        /* CLOCK_MONOTONIC seconds */
	size_t n;
	struct gd_probe_rapl_zone zone[GD_PROBE_MAX_RAPL];
};

/* Reads every /sys/class/powercap/intel-rapl* zone (intel-rapl-mmio and
 * AMD's, which the kernel also names intel-rapl, included). */
int gd_probe_rapl_sample(const struct gd_probe_host_opts *o, struct gd_probe_rapl_sample *s);

/* Watts between two samples: package zones plus DRAM zones (psys, where
 * present, is the whole platform and is used alone instead).  Counters that
 * wrapped are unwrapped with max_energy_uj.  Returns NAN (and why) when the
 * samples do not fit together. */
double gd_probe_rapl_watts(const struct gd_probe_rapl_sample *a, const struct gd_probe_rapl_sample *b,
			   char *zones, size_t zsz, char *why, size_t wsz);

/* `ipmitool dcmi power reading`, parsed. */
struct gd_ipmi_power {
	double inst_w, min_w, max_w, avg_w;   /* NAN when the line is absent */
	double period_s;                      /* sampling period, NAN when absent */
	bool active;                          /* "Power reading state is: activated" */
	bool has_state;                       /* the state line was there */
};

/* Parses the output; 0 with p filled, or -EINVAL / -ENODATA with err
 * naming the line (a reading that says "deactivated" is not an error: the
 * caller sees active false). */
int gd_ipmi_dcmi_parse(const char *buf, size_t len, struct gd_ipmi_power *p, struct gd_err *err);

struct gd_probe_power_in {
	double gpu_w;                    /* the selected GPUs' power at full burn, summed (NAN: unknown) */
	unsigned ngpus;                  /* how many GPUs that sums */
	const struct gd_probe_rapl_sample *rapl_start; /* taken at the start of the burn; NULL: sample
	                                                * over budget_s inside gd_probe_power */
};

struct gd_probe_power_result {
	struct gd_probe_avail avail;     /* OK when some draw figure exists */
	double gpu_w;                    /* as given */
	unsigned ngpus;

	struct gd_probe_avail rapl;
	double host_rapl_w;              /* RAPL package + DRAM watts over the interval */
	double rapl_interval_s;
	char rapl_zones[128];            /* "package-0+package-1+dram" */

	struct gd_probe_avail bmc;
	struct gd_ipmi_power ipmi;       /* the BMC's whole-system reading */

	double draw_w;                   /* what the PSUs carry: the BMC's instantaneous reading
	                                  * when there is one, else GPUs + RAPL, else GPUs alone */
	char draw_from[64];              /* "BMC (ipmitool dcmi power reading)", "GPUs + RAPL", "GPUs only" */
};

int gd_probe_power(const struct gd_probe_host_opts *o, const struct gd_probe_power_in *in,
		   struct gd_probe_power_result *r);

/* ---- judging (rule_probe_host.c: pure) --------------------------------- */

/* NULL members were not run. */
struct gd_probe_host_results {
	const struct gd_probe_storage_result *storage;
	const struct gd_probe_mem_result *mem;
	const struct gd_probe_power_result *power;
};

/* The four probe rules, as rows like gd_rules[] (ids from CAUSES.md). */
extern const struct gd_rule gd_probe_host_rules[];
extern const size_t gd_probe_host_nrules;

/* Runs the four rules over the results: findings into out->items, rules
 * that could not judge into out->unknown with the reason ("not run: no
 * --data DIR", "no PSU capacity configured"), out->evaluated counted. */
void gd_probe_host_judge(const struct gd_probe_host_results *r, const struct gd_thresholds *th,
			 struct gd_findings *out);

/* One line of the report per probe figure: achieved against expected. */
struct gd_probe_host_line {
	const char *probe;               /* "storage.seq_read", "storage.rand_4k", "storage.small_files",
	                                  * "host_mem.triad", "power.draw" */
	const char *rule;                /* the rule that judges it */
	char subject[64];                /* "/data", "node0", "host" */
	struct gd_probe_avail avail;
	double achieved;                 /* NAN unless avail OK */
	const char *unit;                /* "MB/s", "us", "files/s", "GB/s", "W" */
	double expected;                 /* the bound it was held to (NAN: none) */
	bool higher_is_better;           /* false for latency and power draw */
	char expected_from[96];          /* "nvme class (probe.storage_slow.nvme_seq_mb_s)", "best node (node1)",
	                                  * "80% of PSU capacity 3000 W (config)" */
	bool ok;                         /* achieved meets expected (true when there is no expected) */
};

/* Fills up to max lines; returns how many there are (may exceed max). */
size_t gd_probe_host_lines(const struct gd_probe_host_results *r, const struct gd_thresholds *th,
			   struct gd_probe_host_line *lines, size_t max);

/* ---- JSON (host_json.c) ------------------------------------------------ */

/* {"storage": {...}, "host_mem": {...}, "power": {...}} with only the
 * members that were run; a new reference (json_decref it). */
json_t *gd_probe_host_json(const struct gd_probe_host_results *r);

#endif
