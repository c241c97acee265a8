/*
 * rule_job_threads.h - a GPU job's thread over a window, from
 * job_threads[] (schedstat, syscall, wchan and perf samples): what the
 * rules about where the job's time goes share (rule_job_threads.c:
 * job.host_bound, job.waiting_for_peers; rule_gpu_job.c: cpu.input_bound
 * and the causes gpu.idle_while_job_runs names).  Pure: no I/O.
 */
#ifndef GD_RULES_RULE_JOB_THREADS_H
#define GD_RULES_RULE_JOB_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules/rule.h"

/* The sample categories, as job_threads[]' samples_* fields. */
enum { JT_CUDA, JT_NCCL, JT_PYTHON, JT_FRAMEWORK, JT_KERNEL, JT_OTHER, JT_NCAT };

struct gd_jt_use {
	uint64_t pid, tid;
	char comm[32], role[16], syscall[16], wchan[32], state[16];
	double core_pct;          /* on a CPU, % of one core over the window; NAN: unknown */
	double runq_pct;          /* runnable, waiting for a CPU; NAN: unknown */
	double busy_pct;          /* on a CPU or waiting for one (at most 100); NAN: unknown */
	bool sampled;             /* the sample deltas below are known */
	double samples[JT_NCAT];
	double total;
};

/* The window of the thread t of b (its record in a found by pid and tid).
 * False when a has no record of it. */
bool gd_jt_use_of(const struct gd_snapshot *a, const struct gd_snapshot *b, double dt, const struct gd_job_thread *t,
		  struct gd_jt_use *u);

/* The main thread (tid == pid) of GPU job process pid over the window. */
bool gd_jt_main(const struct gd_snapshot *a, const struct gd_snapshot *b, double dt, uint64_t pid,
		struct gd_jt_use *u);

/* Sums the samples of pid's main and NCCL threads over the window; false
 * when none of them was sampled in both snapshots. */
bool gd_jt_comm_samples(const struct gd_snapshot *a, const struct gd_snapshot *b, uint64_t pid, double *nccl,
			double *total);

/* "78% python, 14% framework, 8% cuda": the non-zero shares of u's samples,
 * largest first. */
void gd_jt_shares(const struct gd_jt_use *u, char *buf, size_t sz);

/* Why the samples are missing: the job_samples source's status and reason
 * in b ("absent: not sampled: ..."), or "no samples" when it was fine. */
void gd_jt_sampler_why(const struct gd_snapshot *b, char *buf, size_t sz);

/* The job's own causes of an idle GPU that job.host_bound and
 * job.waiting_for_peers find, as "job.host_bound (...)" parts appended to
 * buf for gpu.idle_while_job_runs; returns how many.  The parts are in the
 * reader's language when say (a summary), else in English (an evidence
 * text, which does not change with the language); gd_jt_explain says them. */
size_t gd_jt_explain_lang(struct gd_rule_ctx *rc, const struct gd_snapshot *a, const struct gd_snapshot *b, double dt,
			  uint64_t pid, char *buf, size_t sz, bool say);
size_t gd_jt_explain(struct gd_rule_ctx *rc, const struct gd_snapshot *a, const struct gd_snapshot *b, double dt,
		     uint64_t pid, char *buf, size_t sz);

/* True when pid's main thread is busy outside CUDA/NCCL by job.host_bound's
 * thresholds (the GPU side not judged here). */
bool gd_jt_host_bound(struct gd_rule_ctx *rc, const struct gd_jt_use *m);

/* True when u's samples say the thread waits in NCCL: at least min_samples,
 * job.waiting_for_peers's nccl_pct or more of them in libnccl.  Such a
 * thread waits for its peers whatever CPU it burns (NCCL busy-polls): it is
 * not a hot input thread, and its wait for a CPU starves nothing. */
bool gd_jt_in_nccl(struct gd_rule_ctx *rc, const struct gd_jt_use *u);

/* The host causes of an idle GPU that gpu.idle_while_job_runs names
 * (rule_gpu_job.c), without the two above: job.waiting_for_peers fires only
 * when none holds. */
size_t gd__gpu_job_host_causes(struct gd_rule_ctx *rc, const struct gd_snapshot *a, const struct gd_snapshot *b,
			       double dt, const struct gd_proc *job, char *buf, size_t sz);

#endif
