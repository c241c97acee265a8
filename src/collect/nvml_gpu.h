/*
 * nvml_gpu.h - the pieces shared by the files of the nvml collector
 * (nvml_devices.c: enumeration, identity, thermal, power, clocks, PCIe;
 * nvml_gpu_health.c: memory health, NVLink, processes).  Internal to
 * src/collect/: rules and outputs read the snapshot, never this.
 */
#ifndef GD_COLLECT_NVML_GPU_H
#define GD_COLLECT_NVML_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "model/snapshot.h"
#include "nvml/nvml.h"

#define LIST_TRIES 4   /* INSUFFICIENT_SIZE retries of a list call */
#define LIST_FIRST 16  /* first process-list buffer, in entries */

/* NVLink values the field batch can hold, per link: the state, then the
 * counters of nvmlNvLinkErrorCounter_t below GD_NVL_BATCHED (DL_ECC_DATA has
 * no per-link field id). */
#define GD_NVL_STATE 0
#define GD_NVL_COUNTER(c) (1 + (c))
#define GD_NVL_BATCHED 4
#define GD_NVL_SLOTS (1 + GD_NVL_BATCHED)

/* An NVML value of that nvmlValueType_t as a count: unsigned ones as they
 * are, signed ones when not negative, a double rounded when in 0..1e9
 * (field values, samples).  false: none of those. */
bool gd_nv_value_u64(unsigned int type, const nvmlValue_t *x, uint64_t *v);

/*
 * One nvmlDeviceGetFieldValues call per GPU per cycle (nvml_gpu_fields.c):
 * the answers, kept for the collectors of this GPU's cycle, which take a
 * value from it when its field answered and ask their own call otherwise.
 */
struct gd_nv_fields {
	nvmlFieldValue_t *v;   /* n answers (NULL: not asked, or the call got stuck) */
	unsigned int n;
	bool read;             /* the call answered SUCCESS */
	unsigned int known;    /* the NVLink fields (bits, nvml_gpu_fields.c) that answered on some link */
	short at[NVML_NVLINK_MAX_LINKS][GD_NVL_SLOTS]; /* index in v; -1: not asked */
};

/* One GPU being collected. */
struct gd_gpu_run {
	struct gd_nvml *nv;
	struct gd_snapshot *s;
	size_t gi;          /* index of the record in s->gpus */
	unsigned int idx;   /* NVML index */
	nvmlDevice_t dev;
	bool lost;
	size_t errors;      /* rows added to nvml_errors */
	struct gd_nv_fields fields;
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

/* ---- the field batch (nvml_gpu_fields.c) ------------------------------- */
/* What gd_nv_field_nvlink returns when the batch has no answer for the link:
 * ask the per-link call.  Not an NVML code. */
#define GD_NV_FIELD_ASK (-100)
/* Asks this GPU's batch: once per GPU per cycle, before its first reader.
 * Leaves r->fields empty when the driver lacks the call or it failed (every
 * value then comes from its own call); GPU_IS_LOST marks the GPU lost. */
void gd_nv_fields_read(struct gd_gpu_run *r, const struct gd_nvml_api *a);
/* Frees the answers. */
void gd_nv_fields_release(struct gd_gpu_run *r);
/* The batch's value of device field id: true when the field answered
 * SUCCESS with an integer and the GPU is neither lost nor stuck; false
 * otherwise, and the caller asks its call, which decides (a value, absent,
 * an nvml_errors row) as it does without a batch. */
bool gd_nv_field(struct gd_gpu_run *r, unsigned int id, uint64_t *v);
/* The batch's entry for device field id (NULL: no batch, or not asked). */
const nvmlFieldValue_t *gd_nv_field_entry(const struct gd_gpu_run *r, unsigned int id);
/* A link's slot (GD_NVL_STATE, GD_NVL_COUNTER(c)): NVML_SUCCESS with *v (the
 * state as nvmlEnableState_t); INVALID_ARGUMENT or NOT_SUPPORTED when the
 * field answered that while answering SUCCESS on another link of this GPU
 * (so the driver knows the field and the answer is the link's: what the
 * per-link call says of a link past the last or a counter it lacks);
 * GD_NV_FIELD_ASK otherwise. */
int gd_nv_field_nvlink(struct gd_gpu_run *r, unsigned int link, unsigned int slot, uint64_t *v);

void gd_gpu_collect_memory_health(struct gd_gpu_run *r, const struct gd_nvml_api *a);
void gd_gpu_collect_nvlink(struct gd_gpu_run *r, const struct gd_nvml_api *a);
/* The GPU's NVSwitch fabric registration (nvml_gpu_health.c). */
void gd_gpu_collect_fabric(struct gd_gpu_run *r, const struct gd_nvml_api *a);
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
