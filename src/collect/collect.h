/*
 * collect.h - the collector interface.
 *
 * A collector reads one evidence source through the root (never an absolute
 * path), parses it, and fills its part of the snapshot.  It never decides
 * anything, never prints, keeps no statics and never exits.  It returns how
 * the source fared:
 *
 *   GD_SRC_OK       read and parsed;
 *   GD_SRC_ABSENT   the source does not exist here (no PSI in this kernel, no
 *                   InfiniBand): a fact, not an error;
 *   GD_SRC_DENIED   permission denied (err says what would grant it);
 *   GD_SRC_PARTIAL  some of it was read (err says what was not);
 *   GD_SRC_FAILED   malformed or unreadable (err names file and line).
 *
 * Each collector is split into a pure parse function over a buffer,
 *
 *   int gd_parse_<x>(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err);
 *
 * returning 0 (parsed), 1 (parsed with lines skipped; err says which) or a
 * negative code (nothing usable; err says why), and a thin reader that gets
 * the bytes from the root.  Parse functions are listed in gd_parsers[] so
 * the unit tests and the fuzz harness reach every one of them.
 */
#ifndef GD_COLLECT_COLLECT_H
#define GD_COLLECT_COLLECT_H

#include <stddef.h>

#include "core/err.h"
#include "core/root.h"
#include "model/snapshot.h"

struct gd_nvml;
struct gd_job_sampler;
struct gd_proc_cache;

struct gd_collect_ctx {
	const struct gd_root *root;
	const char *nvml_path;   /* --nvml or GPUDOCTOR_NVML; NULL: the default search */
	double nvml_timeout_s;   /* --nvml-timeout; 0: the default (5 s) */
	struct gd_nvml *nvml;    /* NVML opened once for all snapshots of a run (the
				  * CLI's); NULL: the collector opens and closes its own */
	double klog_lookback_s;   /* kernel-log events this far back (0: 24 h) */
	struct gd_job_sampler *sampler; /* perf sampling of GPU jobs' threads from one
					 * snapshot to the next (collect/job_samples.h), owned
					 * by the run; NULL: not sampled (a single snapshot) */
	struct gd_proc_cache *proc_cache; /* what does not change while a process lives,
					   * kept from one snapshot to the next (below:
					   * gd_proc_cache_new), owned by the run; NULL:
					   * every file read every snapshot */
};

typedef enum gd_src_status (*gd_collect_fn)(const struct gd_collect_ctx *ctx, struct gd_snapshot *s,
					   struct gd_err *err);

struct gd_collector {
	const char *name;   /* stable: appears in JSON and metrics */
	const char *path;   /* what it reads, for messages */
	gd_collect_fn collect;
};

extern const struct gd_collector gd_collectors[];
extern const size_t gd_ncollectors;

typedef int (*gd_parse_fn)(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err);

struct gd_parser {
	const char *name;   /* the file it parses, e.g. "proc/meminfo" */
	gd_parse_fn parse;
};

extern const struct gd_parser gd_parsers[];
extern const size_t gd_nparsers;

/* What the processes collector keeps from one snapshot to the next
 * (collect/proc_pid.c), owned by the run and put in its context's
 * proc_cache.  Per process, keyed by pid and start time (a recycled pid has
 * another start time), the files that do not change while the process
 * lives: cmdline, cgroup, the mnt and net namespace links, and a kernel
 * thread's status (uid and CPU affinity).  An entry is dropped as soon as a
 * snapshot does not list its pid, read afresh when the command name changes
 * (an exec), and read afresh anyway every 8 to 15 snapshots (by pid), so a
 * process that moves to another cgroup or namespace or rewrites its argv is
 * seen within that many.  Only a file that was read and parsed without a
 * problem is kept: one that was missing, denied or malformed is read, and
 * reported, every time. */
struct gd_proc_cache *gd_proc_cache_new(void);
/* The same for a run that lasts (serve, watch, record): the tiered walk.
 * Every cycle reads each process's stat (CPU, state, threads), and its io
 * when its CPU time moved since the io was read (one that did not run did
 * next to no I/O: its counters stand); the rest of its record (status,
 * cgroup, cmdline, namespaces, the fd walk) is read whole when the
 * process appears, every cycle while it is young
 * (its first `young` cycles: a job opens its GPU after it starts), in a
 * GPU job's tree, named by NVML's process list of the cycle (a context made
 * late in a process's life is seen at once) or in D state, and otherwise
 * once every slow_every cycles, spread over the cycles by pid.  A GPU job's
 * threads' stat, and what each was blocked in, are read again at least once
 * every slow_every cycles too.  A GPU job's process past its young cycles
 * walks its fds only when the fd directory's stat changed (Linux 6.2 and
 * later count the open fds there; older kernels: every cycle) or on its
 * slow round.  A record that is not read whole repeats
 * its last full read, with detail_uptime_s saying when that was (a
 * constant between full reads: a recording's delta lines do not grow).
 * The files read every cycle (each process's stat, each GPU-job thread's
 * schedstat) are held open and read again from offset 0, within a budget
 * of the soft RLIMIT_NOFILE (proc_pid.c, "held files"; gd_nofile_raise). */
#define GD_PROC_YOUNG 10
#define GD_PROC_SLOW_ROUND 30
struct gd_proc_cache *gd_proc_cache_new_tiered(unsigned young, unsigned slow_every);
void gd_proc_cache_free(struct gd_proc_cache *c);   /* NULL is fine */
/* Whether c is a tiered cache (false for a plain one or NULL). */
bool gd_proc_cache_tiered(const struct gd_proc_cache *c);
/* A tiered cache also keeps what each GPU-job thread was blocked in
 * (job_threads' syscall and wchan) from one cycle to the next.  A thread
 * whose schedstat shows it was not scheduled since (the same timeslices and
 * run time) is blocked in the same call, so its two files are not read
 * again; a thread that ran is read, and every thread at least once per
 * slow round.  job_threads calls _begin once per cycle, then for each
 * thread _reuse (true: syscall and wchan filled from the last read) or,
 * after reading them, _keep.  A plain cache or NULL keeps nothing. */
struct gd_job_thread;
void gd_proc_cache_threads_begin(struct gd_proc_cache *c);
bool gd_proc_cache_thread_reuse(struct gd_proc_cache *c, struct gd_job_thread *jt);
void gd_proc_cache_thread_keep(struct gd_proc_cache *c, const struct gd_job_thread *jt);
/* And each GPU-job thread's stat (comm, state, CPU ticks).  The threads
 * collector reads a thread's schedstat first; one whose schedstat is the
 * same as last cycle's, to the nanosecond, did not run and did not wait for
 * a CPU, so its stat is as read then: not read again, but within a slow
 * round.  Per cycle: _tasks_begin, then per thread _task_reuse (true: th
 * filled from the last read) or, after reading stat, _task_keep; job_threads
 * then takes the schedstat of this cycle from _task_sched (true: buf holds
 * it, as read) instead of reading it again.  A plain cache or NULL keeps
 * nothing (every _task_ call false). */
#define GD_SCHEDSTAT_CAP 96
struct gd_thread;
void gd_proc_cache_tasks_begin(struct gd_proc_cache *c);
/* The thread's schedstat (rel, "<tid>/schedstat" under dirfd, its task
 * directory) into buf, as gd_proc_read_at reads it, through the file held
 * for it since an earlier cycle (a tiered cache holds files it reads every
 * cycle open: see proc_pid.c); *fd is then the file, which _task_reuse or
 * _task_keep take (*fd = -1), and which the caller gives to
 * gd_proc_cache_fd_drop when neither did. */
int gd_proc_cache_task_read(struct gd_proc_cache *c, uint64_t pid, uint64_t tid, int dirfd, const char *rel,
			    char *buf, size_t cap, size_t *len, int *fd);
bool gd_proc_cache_task_reuse(struct gd_proc_cache *c, uint64_t pid, uint64_t tid, const char *sched, size_t n,
			      struct gd_thread *th, int *fd);
void gd_proc_cache_task_keep(struct gd_proc_cache *c, const struct gd_thread *th, const char *sched, size_t n,
			     int *fd);
void gd_proc_cache_fd_drop(struct gd_proc_cache *c, int *fd);
/* After the last thread of the cycle: closes the files of the threads the
 * cycle did not list (they exited). */
void gd_proc_cache_tasks_end(struct gd_proc_cache *c);
bool gd_proc_cache_task_sched(struct gd_proc_cache *c, uint64_t pid, uint64_t tid, char *buf, size_t cap,
			      size_t *len);
/* And what a process's maps showed (cuda_runtime, its file, cuda_stub):
 * the cuda_runtime collector scans a process's maps (a PyTorch process's
 * are about 1 MB) while it is young, then once per slow round; in between
 * _maps fills p from the last whole scan (true) and _maps_keep records
 * one.  Keyed by pid and start time; an exec or the slow round drops it.
 * A plain cache or NULL keeps nothing. */
struct gd_proc;
bool gd_proc_cache_maps(const struct gd_proc_cache *c, uint64_t pid, uint64_t starttime, struct gd_proc *p);
void gd_proc_cache_maps_keep(struct gd_proc_cache *c, uint64_t pid, uint64_t starttime, const struct gd_proc *p);
/* Processes it holds, and files it holds open (for tests and the benchmark). */
size_t gd_proc_cache_size(const struct gd_proc_cache *c);
size_t gd_proc_cache_held(const struct gd_proc_cache *c);

/* Runs every collector in order and records each one's status, reason and
 * duration in s->sources.  Never fails: missing evidence is recorded. */
void gd_collect_all(const struct gd_collect_ctx *ctx, struct gd_snapshot *s);

/* Reads rel through the root and runs parse over it: the common body of a
 * one-file collector.  Maps read errors to absent/denied/failed with a
 * reason naming the path. */
enum gd_src_status gd_collect_file(const struct gd_collect_ctx *ctx, const char *rel, gd_parse_fn parse,
				   struct gd_snapshot *s, struct gd_err *err);

/* Maps a parse result (0, 1, negative) to a source status. */
enum gd_src_status gd_parse_status(int rc);

#endif
