/*
 * jobs.h - which processes of a snapshot belong to a GPU job.
 *
 * A GPU job is a process that holds a /dev/nvidia<N> file descriptor
 * (proc.nvidia_fds > 0) or that NVML lists as a compute process on a GPU
 * (gpu_procs[]: it holds a CUDA context even where its fds are unreadable,
 * e.g. gpudoctor not root); its descendants (data-loader workers,
 * launchers' children) belong to the job too.  Both the collectors (which read threads,
 * /dev/shm and cgroups of GPU jobs only) and the rules need this, so it lives
 * in the model: pure, no I/O.
 */
#ifndef GD_MODEL_JOBS_H
#define GD_MODEL_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snapshot.h"

/* True when p holds /dev/nvidia<N> itself, or its pid is in s->gpu_procs
 * (s may be NULL: then the fds alone decide).  The one test every layer
 * uses: collectors (threads, /dev/shm, cgroups, CUDA runtimes) and rules. */
bool gd_proc_is_gpu_job(const struct gd_snapshot *s, const struct gd_proc *p);

/* True when NVML's process list in s (s->gpu_procs) names pid. */
bool gd_snapshot_nvml_lists(const struct gd_snapshot *s, uint64_t pid);

/* True when p is a GPU job or descends from one (parent chain through
 * s->procs, bounded so a ppid cycle in a corrupt snapshot cannot loop).
 * One call is O(depth * procs); use gd_snapshot_gpu_job_marks for all. */
bool gd_snapshot_in_gpu_job(const struct gd_snapshot *s, const struct gd_proc *p);

/* Sets marks[i] (s->procs.n bytes, caller-owned) to 1 when procs[i] is a
 * GPU job or descends from one, else 0, in O(n log n).  Returns the number
 * of processes that are GPU jobs themselves. */
size_t gd_snapshot_gpu_job_marks(const struct gd_snapshot *s, unsigned char *marks);

#endif
