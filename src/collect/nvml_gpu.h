/*
 * nvml_gpu.h - the pieces shared by the files of the nvml collector
 * (nvml_devices.c: enumeration, identity, thermal, power, clocks, PCIe;
 * nvml_gpu_health.c: memory health, NVLink, processes).  Internal to
 * src/collect/: rules and outputs read the snapshot, never this.
 */
#ifndef GD_COLLECT_NVML_GPU_H
#define GD_COLLECT_NVML_GPU_H

#include <stdbool.h>

#include "core/err.h"
#include "model/snapshot.h"
#include "nvml/nvml.h"

#define LIST_TRIES 4   /* INSUFFICIENT_SIZE retries of a list call */
#define LIST_FIRST 16  /* first process-list buffer, in entries */

/* One GPU being collected. */
struct gd_gpu_run {
	struct gd_nvml *nv;
	struct gd_snapshot *s;
	size_t gi;          /* index of the record in s->gpus */
	unsigned int idx;   /* NVML index */
	nvmlDevice_t dev;
	bool lost;
	size_t errors;      /* rows added to nvml_errors */
};

/* The GPU record (the vector may move: never keep the pointer). */
struct gd_gpu *gd_nv_gpu(struct gd_gpu_run *r);
/* Adds an nvml_errors row (status "denied" or "failed"). */
void gd_nv_error(struct gd_gpu_run *r, const char *field, const char *what, int rc, const char *status);
/* Maps an NVML result to presence; true when the outputs are valid. */
bool gd_nv_check(struct gd_gpu_run *r, const char *field, const char *what, int rc);
/* One call for field (skipped when fnptr is NULL, the GPU is lost or NVML
 * is stuck); true when it succeeded. */
bool gd_nv_call(struct gd_gpu_run *r, const void *fnptr, const char *field, const char *what, gd_nvml_fn fn,
		struct gd_nvml_io *io);
/* A zeroed io with its two arguments. */
struct gd_nvml_io gd_nv_args(unsigned int a0, unsigned int a1);
#define IO0 gd_nv_args(0, 0)
/* A call whose io.u[0] becomes dst. */
void gd_nv_set_u(struct gd_gpu_run *r, struct gd_u64 *dst, const void *fnptr, const char *field, const char *what,
		 gd_nvml_fn fn, struct gd_nvml_io io);

void gd_gpu_collect_memory_health(struct gd_gpu_run *r, const struct gd_nvml_api *a);
void gd_gpu_collect_nvlink(struct gd_gpu_run *r, const struct gd_nvml_api *a);
void gd_gpu_collect_processes(struct gd_gpu_run *r, const struct gd_nvml_api *a);
/* nvml_gpu_samples.c: the driver's sub-second utilisation samples */
void gd_gpu_collect_samples(struct gd_gpu_run *r, const struct gd_nvml_api *a);

/* ---- thunks: small functions that run on the NVML thread (nvml.h) ----- */
#define THUNK_U(fname, member) \
	static nvmlReturn_t fname(const struct gd_nvml_api *a, struct gd_nvml_io *io) \
	{ \
		return a->member(io->dev, &io->u[0]); \
	}
#define THUNK_ARG_U(fname, member, argtype) \
	static nvmlReturn_t fname(const struct gd_nvml_api *a, struct gd_nvml_io *io) \
	{ \
		return a->member(io->dev, (argtype)io->arg[0], &io->u[0]); \
	}
#define THUNK_STR(fname, member, len) \
	static nvmlReturn_t fname(const struct gd_nvml_api *a, struct gd_nvml_io *io) \
	{ \
		_Static_assert((len) <= sizeof io->str, "buffer"); \
		return a->member(io->dev, io->str, (len)); \
	}
#define THUNK_ENUM(fname, member, etype) \
	static nvmlReturn_t fname(const struct gd_nvml_api *a, struct gd_nvml_io *io) \
	{ \
		etype v = 0; \
		nvmlReturn_t rc = a->member(io->dev, &v); \
		io->u[0] = (unsigned int)v; \
		return rc; \
	}

#endif
