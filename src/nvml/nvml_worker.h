/*
 * nvml_worker.h - the NVML thread's shared state, internal to src/nvml/
 * (nvml.c runs the thread and its calls; nvml_act.c samples GPUs on it
 * between calls).  Nothing outside src/nvml/ includes this.
 */
#ifndef GD_NVML_WORKER_H
#define GD_NVML_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "nvml/nvml.h"

struct gd__act;

struct worker {
	pthread_mutex_t mu;
	pthread_cond_t cv;     /* CLOCK_MONOTONIC */
	int refs;              /* the handle and the thread */
	bool job, done, quit;
	gd_nvml_fn fn;
	struct gd_nvml_io io;  /* the worker's private copy while a job runs */
	nvmlReturn_t ret;
	struct gd_nvml_api api;
	void *dl;
	/* Sub-second sampling (nvml_act.c).  act is the thread's alone (its
	 * jobs and the loop between them touch it); act_paused, bg_what and
	 * bg_gpu are under mu: every call pauses the sampling, a start job
	 * asks (act_resume, the thread's) to resume it after the job, and
	 * bg_what names the sampling call in progress for a missed deadline. */
	struct gd__act *act;
	bool act_paused, act_resume;
	const char *bg_what;
	int bg_gpu;
};

/* The worker whose api a thunk was given (thunks run with &w->api). */
static inline struct worker *gd__worker_of(const struct gd_nvml_api *api)
{
	return (struct worker *)(void *)((char *)api - offsetof(struct worker, api));
}

/* nvml_act.c, on the worker thread unless said otherwise. */
struct gd__act *gd__act_new(void);
/* Frees the state (any thread: the last holder of the worker); GPM
 * samples are not freed here (gd__act_release does it, on the thread). */
void gd__act_free(struct gd__act *a);
/* Frees the GPM samples through the library (before nvmlShutdown). */
void gd__act_release(struct gd__act *a, const struct gd_nvml_api *api);
/* True when GPUs are to be sampled; *due the next reading's time. */
bool gd__act_due(const struct gd__act *a, struct timespec *due);
/* Takes the next reading (w->mu not held). */
void gd__act_step(struct worker *w);

#endif
