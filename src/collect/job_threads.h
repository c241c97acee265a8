/*
 * job_threads.h - the pure parts of the job-thread collectors
 * (job_threads.c, job_samples.c): the thread's role from its name, the
 * name of the system call a thread is blocked in, and which library a
 * sampled instruction pointer belongs to.  No I/O; unit-tested directly.
 */
#ifndef GD_COLLECT_JOB_THREADS_H
#define GD_COLLECT_JOB_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/tok.h"

/* The categories of a sample, in the order of job_threads[]' samples_*. */
enum gd_so_cat { GD_SO_CUDA, GD_SO_NCCL, GD_SO_PYTHON, GD_SO_FRAMEWORK, GD_SO_KERNEL, GD_SO_OTHER, GD_SO_NCAT };

/* The role of a thread: main (tid == pid of a GPU job), loader (any thread
 * of a descendant process that holds no GPU), else from its name:
 * pt_data_pin / pin_memory, nccl (NCCL's threads, PyTorch's pt_nccl_*),
 * pt_autograd_N, other. */
const char *gd_thread_role(const char *comm, bool first_thread, bool loader);

/* The name of system call nr on the architecture gpudoctor was built for
 * (the few a waiting thread sits in: futex, read, epoll_wait, ...), or
 * NULL when it is not one of them. */
const char *gd_syscall_name(long nr);

/* The category of the file a mapping comes from (its path in
 * /proc/<pid>/maps): libcuda.so.1 is cuda, libnccl.so.2 nccl,
 * libpython3.11.so.1.0, /usr/bin/python3.11 and the lib-dynload modules python, libtorch_cpu.so,
 * libgomp, BLAS, numpy and *.cpython-*.so framework, anything else other. */
enum gd_so_cat gd_so_category(struct gd_slice path);

/* One executable mapping of a process. */
struct gd_xmap {
	uint64_t lo, hi;
	enum gd_so_cat cat;
};

/* Parses /proc/<pid>/maps text into its executable mappings (x in perms),
 * sorted by address, into a caller-owned array grown with realloc (*maps,
 * *n, *cap).  Returns the number of lines skipped as malformed. */
size_t gd_xmaps_parse(const char *buf, size_t len, struct gd_xmap **maps, size_t *n, size_t *cap);

/* The category of instruction pointer ip among maps (GD_SO_OTHER when it
 * falls in none). */
enum gd_so_cat gd_xmaps_lookup(const struct gd_xmap *maps, size_t n, uint64_t ip);

#endif
