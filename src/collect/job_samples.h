/*
 * job_samples.h - the perf sampler that job_samples.c's collector reads:
 * per-thread task-clock sampling events of GPU jobs' threads, open from one
 * snapshot to the next, so that each snapshot carries what the threads ran
 * since the one before.  Owned by the run (check, watch, record, serve),
 * like its NVML handle; a run without one (snapshot, --root of a fixture
 * tree) reports the samples as absent.
 */
#ifndef GD_COLLECT_JOB_SAMPLES_H
#define GD_COLLECT_JOB_SAMPLES_H

#include <stddef.h>

struct gd_job_sampler;

/* Sampling period of the task clock (20 ms: 50 samples a second of a
 * thread that runs all the time) and the most threads sampled at once
 * (main and NCCL threads of GPU jobs only). */
#define GD_SAMPLE_PERIOD_NS 20000000ull
#define GD_SAMPLE_MAX_THREADS 128

struct gd_job_sampler *gd_job_sampler_new(void);
/* Closes every event; NULL is fine. */
void gd_job_sampler_free(struct gd_job_sampler *js);
/* Threads being sampled now (for tests and the benchmark). */
size_t gd_job_sampler_threads(const struct gd_job_sampler *js);

#endif
