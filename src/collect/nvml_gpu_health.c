/*
 * nvml_gpu_health.c - the nvml collector's memory health (ECC, retired
 * pages, remapped rows, recovery action), NVLink and compute processes; the
 * rest and the presence rules are in nvml_devices.c.
 *
 * Calls (FACTS.md 2.11-2.14, 2.16, 2.19): nvmlDeviceGetTotalEccErrors
 * (corrected/uncorrected x volatile/aggregate), nvmlDeviceGetRetiredPages
 * with a zero count (INSUFFICIENT_SIZE carries the page count),
 * nvmlDeviceGetRemappedRows (Ampere+; R450 drivers), field 230 through
 * nvmlDeviceGetFieldValues (12.8 headers; older drivers answer
 * INVALID_ARGUMENT or NOT_SUPPORTED: absent), nvmlDeviceGetNvLinkState and
 * ...ErrorCounter over links 0..35 (links past the last answer
 * INVALID_ARGUMENT), each taken from the GPU's field batch instead where it
 * has the value (nvml_gpu_fields.c: ECC, retirement, remapping, recovery
 * action, link states and most per-link counters in one call),
 * nvmlDeviceGetComputeRunningProcesses_v3/_v2 (24-byte
 * entries) or the v1 name (16-byte entries), the same for
 * nvmlDeviceGetGraphicsRunningProcesses (a pid in both lists is one row, a
 * compute process), and nvmlDeviceGetProcessUtilization (NOT_FOUND: no
 * sample yet).  gpus[].nvml_procs counts the rows once the compute list was
 * read; left absent when it could not be (the driver lacks the call, or it
 * failed: an nvml_errors row), the process-to-GPU mapping is unknown.
 * Example: 40 processes against a first buffer of 16 entries -> the driver
 * answers INSUFFICIENT_SIZE with 40; the retry asks for 40 + 10 + 4.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/nvml_gpu.h"
#include "core/i18n.h"
#include "core/xalloc.h"

THUNK_ENUM(t_retired_pending, retired_pending, nvmlEnableState_t)

static nvmlReturn_t t_ecc_mode(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	nvmlEnableState_t cur = 0, pending = 0;
	nvmlReturn_t rc = a->ecc_mode(io->dev, &cur, &pending);

	io->u[0] = (unsigned int)cur;
	io->u[1] = (unsigned int)pending;
	return rc;
}

static nvmlReturn_t t_ecc_total(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->ecc_total(io->dev, (nvmlMemoryErrorType_t)io->arg[0], (nvmlEccCounterType_t)io->arg[1], &io->ull);
}

/* Asks only for the count: INSUFFICIENT_SIZE carries it. */
static nvmlReturn_t t_retired_pages(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	unsigned int n = 0;
	nvmlReturn_t rc = a->retired_pages(io->dev, (nvmlPageRetirementCause_t)io->arg[0], &n, NULL);

	io->u[0] = n;
	return rc == NVML_ERROR_INSUFFICIENT_SIZE ? NVML_SUCCESS : rc;
}

static nvmlReturn_t t_remapped_rows(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->remapped_rows(io->dev, &io->u[0], &io->u[1], &io->u[2], &io->u[3]);
}

static nvmlReturn_t t_field_value(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	memset(&io->s.field, 0, sizeof io->s.field);
	io->s.field.fieldId = io->arg[0];
	return a->field_values(io->dev, 1, &io->s.field);
}

static nvmlReturn_t t_nvlink_state(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	nvmlEnableState_t st = 0;
	nvmlReturn_t rc = a->nvlink_state(io->dev, io->arg[0], &st);

	io->u[0] = (unsigned int)st;
	return rc;
}

static nvmlReturn_t t_nvlink_errors(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->nvlink_errors(io->dev, io->arg[0], (nvmlNvLinkErrorCounter_t)io->arg[1], &io->ull);
}

static nvmlReturn_t t_procs(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->procs(io->dev, &io->count, io->buf);
}

static nvmlReturn_t t_procs_v1(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->procs_v1(io->dev, &io->count, io->buf);
}

static nvmlReturn_t t_gprocs(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->gprocs(io->dev, &io->count, io->buf);
}

static nvmlReturn_t t_gprocs_v1(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->gprocs_v1(io->dev, &io->count, io->buf);
}

static nvmlReturn_t t_proc_util(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->proc_util(io->dev, io->buf, &io->count, 0);
}

/* A call's value, or the field batch's value of fid when it has one. */
static void set_u_or_field(struct gd_gpu_run *r, unsigned int fid, struct gd_u64 *dst, const void *fnptr,
			   const char *field, const char *what, gd_nvml_fn fn, struct gd_nvml_io io)
{
	uint64_t v;

	if (gd_nv_field(r, fid, &v))
		gd_u64_set(dst, v);
	else
		gd_nv_set_u(r, dst, fnptr, field, what, fn, io);
}

/* The recovery action (field 230, no call of its own): the batch's answer
 * when the batch was read, else a call for the one field.  A driver older
 * than the field answers INVALID_ARGUMENT or NOT_SUPPORTED for it: absent. */
static void collect_recovery_action(struct gd_gpu_run *r, const struct gd_nvml_api *a)
{
	static const char what[] = "nvmlDeviceGetFieldValues(230)";
	struct gd_nvml_io io = gd_nv_args(NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, 0);
	const nvmlFieldValue_t *f = gd_nv_field_entry(r, NVML_FI_DEV_GET_GPU_RECOVERY_ACTION);

	if (f)
		io.s.field = *f;
	else if (!gd_nv_call(r, a->field_values, "recovery_action", what, t_field_value, &io))
		return;
	f = &io.s.field;
	if (f->nvmlReturn == NVML_ERROR_INVALID_ARGUMENT || !gd_nv_check(r, "recovery_action", what, f->nvmlReturn))
		return;
	if (f->valueType == NVML_VALUE_TYPE_UNSIGNED_INT)
		gd_u64_set(&gd_nv_gpu(r)->recovery_action, f->value.uiVal);
	else if (f->valueType == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG)
		gd_u64_set(&gd_nv_gpu(r)->recovery_action, f->value.ullVal);
	else if (f->valueType == NVML_VALUE_TYPE_SIGNED_INT && f->value.siVal >= 0)
		gd_u64_set(&gd_nv_gpu(r)->recovery_action, (uint64_t)f->value.siVal);
}

void gd_gpu_collect_memory_health(struct gd_gpu_run *r, const struct gd_nvml_api *a)
{
	static const struct {
		size_t off;
		const char *field;
		nvmlMemoryErrorType_t type;
		nvmlEccCounterType_t counter;
		unsigned int fid;
	} ecc[] = {
		{ offsetof(struct gd_gpu, ecc_corrected_volatile), "ecc_corrected_volatile",
		  NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, NVML_FI_DEV_ECC_SBE_VOL_TOTAL },
		{ offsetof(struct gd_gpu, ecc_uncorrected_volatile), "ecc_uncorrected_volatile",
		  NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, NVML_FI_DEV_ECC_DBE_VOL_TOTAL },
		{ offsetof(struct gd_gpu, ecc_corrected_aggregate), "ecc_corrected_aggregate",
		  NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC, NVML_FI_DEV_ECC_SBE_AGG_TOTAL },
		{ offsetof(struct gd_gpu, ecc_uncorrected_aggregate), "ecc_uncorrected_aggregate",
		  NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC, NVML_FI_DEV_ECC_DBE_AGG_TOTAL },
	};
	static const unsigned int remap_ids[] = { NVML_FI_DEV_REMAPPED_COR, NVML_FI_DEV_REMAPPED_UNC,
						  NVML_FI_DEV_REMAPPED_PENDING, NVML_FI_DEV_REMAPPED_FAILURE };
	struct gd_nvml_io io = IO0;
	struct gd_gpu *g = gd_nv_gpu(r);
	uint64_t remap[4] = { 0, 0, 0, 0 };
	bool batched = true;

	set_u_or_field(r, NVML_FI_DEV_ECC_CURRENT, &g->ecc_mode, a->ecc_mode, "ecc_mode", "nvmlDeviceGetEccMode",
		       t_ecc_mode, IO0);
	for (size_t i = 0; i < sizeof ecc / sizeof ecc[0]; i++) {
		struct gd_u64 *dst = (struct gd_u64 *)(void *)((char *)g + ecc[i].off);
		uint64_t v;

		io = gd_nv_args(ecc[i].type, ecc[i].counter);
		if (gd_nv_field(r, ecc[i].fid, &v))
			gd_u64_set(dst, v);
		else if (gd_nv_call(r, a->ecc_total, ecc[i].field, "nvmlDeviceGetTotalEccErrors", t_ecc_total, &io))
			gd_u64_set(dst, io.ull);
	}
	set_u_or_field(r, NVML_FI_DEV_RETIRED_SBE, &g->retired_pages_sbe, a->retired_pages, "retired_pages_sbe",
		       "nvmlDeviceGetRetiredPages", t_retired_pages,
		       gd_nv_args(NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, 0));
	set_u_or_field(r, NVML_FI_DEV_RETIRED_DBE, &g->retired_pages_dbe, a->retired_pages, "retired_pages_dbe",
		       "nvmlDeviceGetRetiredPages", t_retired_pages,
		       gd_nv_args(NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, 0));
	set_u_or_field(r, NVML_FI_DEV_RETIRED_PENDING, &g->retired_pages_pending, a->retired_pending,
		       "retired_pages_pending", "nvmlDeviceGetRetiredPagesPendingStatus", t_retired_pending, IO0);
	/* The four remapping values come together, from the batch or the call. */
	for (size_t i = 0; i < 4; i++)
		batched = batched && gd_nv_field(r, remap_ids[i], &remap[i]);
	io = IO0;
	if (!batched && gd_nv_call(r, a->remapped_rows, "remap_corrected", "nvmlDeviceGetRemappedRows",
				   t_remapped_rows, &io)) {
		for (size_t i = 0; i < 4; i++)
			remap[i] = io.u[i];
		batched = true;
	}
	if (batched) {
		gd_u64_set(&g->remap_corrected, remap[0]);
		gd_u64_set(&g->remap_uncorrected, remap[1]);
		gd_u64_set(&g->remap_pending, remap[2] != 0);
		gd_u64_set(&g->remap_failure, remap[3] != 0);
	}
	collect_recovery_action(r, a);
}

/* A link's state: the field batch's answer, else nvmlDeviceGetNvLinkState.
 * Returns the NVML result; *active on SUCCESS. */
static int link_state(struct gd_gpu_run *r, const struct gd_nvml_api *a, unsigned int link, bool *active)
{
	struct gd_nvml_io io = gd_nv_args(link, 0);
	uint64_t v = 0;
	int rc = gd_nv_field_nvlink(r, link, GD_NVL_STATE, &v);

	if (rc == GD_NV_FIELD_ASK) {
		if (!a->nvlink_state)
			return NVML_ERROR_NOT_SUPPORTED;
		io.dev = r->dev;
		rc = gd_nvml_call(r->nv, "nvmlDeviceGetNvLinkState", (int)r->idx, t_nvlink_state, &io);
		v = io.u[0];
	}
	*active = v == NVML_FEATURE_ENABLED;
	return rc;
}

/* Counter c of a link: the field batch's answer, else
 * nvmlDeviceGetNvLinkErrorCounter. */
static int link_counter(struct gd_gpu_run *r, const struct gd_nvml_api *a, unsigned int link, unsigned int c,
			uint64_t *v)
{
	struct gd_nvml_io io = gd_nv_args(link, c);
	int rc = c < GD_NVL_BATCHED ? gd_nv_field_nvlink(r, link, GD_NVL_COUNTER(c), v) : GD_NV_FIELD_ASK;

	if (rc != GD_NV_FIELD_ASK)
		return rc;
	if (!a->nvlink_errors)
		return NVML_ERROR_NOT_SUPPORTED;
	io.dev = r->dev;
	rc = gd_nvml_call(r->nv, "nvmlDeviceGetNvLinkErrorCounter", (int)r->idx, t_nvlink_errors, &io);
	*v = io.ull;
	return rc;
}

void gd_gpu_collect_nvlink(struct gd_gpu_run *r, const struct gd_nvml_api *a)
{
	struct gd_gpu *g = gd_nv_gpu(r);
	uint64_t links = 0, up = 0, errors = 0;
	bool any_errors = false;

	for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
		bool active = false;
		int rc;

		if (r->lost || gd_nvml_state(r->nv) == GD_NVML_STUCK)
			return;
		rc = link_state(r, a, link, &active);
		/* Links past the last answer INVALID_ARGUMENT or NOT_SUPPORTED. */
		if (rc == NVML_ERROR_INVALID_ARGUMENT || rc == NVML_ERROR_NOT_SUPPORTED) {
			if (link == 0)
				return;
			continue;
		}
		if (!gd_nv_check(r, "nvlink_up_links", "nvmlDeviceGetNvLinkState", rc))
			return;
		links++;
		if (!active)
			continue;
		up++;
		for (unsigned int c = 0; c < NVML_NVLINK_ERROR_COUNT; c++) {
			uint64_t v = 0;

			rc = link_counter(r, a, link, c, &v);
			if (rc == NVML_SUCCESS) {
				errors += v;
				any_errors = true;
			} else if (rc != NVML_ERROR_NOT_SUPPORTED && rc != NVML_ERROR_INVALID_ARGUMENT &&
				   !gd_nv_check(r, "nvlink_errors", "nvmlDeviceGetNvLinkErrorCounter", rc)) {
				return;
			}
		}
	}
	if (links) {
		gd_u64_set(&g->nvlink_links, links);
		gd_u64_set(&g->nvlink_up_links, up);
	}
	if (any_errors)
		gd_u64_set(&g->nvlink_errors, errors);
}

/* A list call with INSUFFICIENT_SIZE retries: fills io->buf (owned by the
 * caller afterwards) and io->count.  The first try uses first elements
 * (0: a sizing call with no buffer). */
static bool list_call(struct gd_gpu_run *r, const void *fnptr, const char *field, const char *what, gd_nvml_fn fn,
		      size_t elem, unsigned int first, struct gd_nvml_io *io)
{
	unsigned int cap = first;
	int rc = NVML_ERROR_INSUFFICIENT_SIZE;

	*io = IO0;
	if (!fnptr)
		return false;
	for (int tries = 0; tries < LIST_TRIES && rc == NVML_ERROR_INSUFFICIENT_SIZE; tries++) {
		if (r->lost || gd_nvml_state(r->nv) == GD_NVML_STUCK)
			return false;
		free(io->buf);
		io->buf = cap ? gd_xcalloc(cap, elem) : NULL;
		io->count = cap;
		io->dev = r->dev;
		rc = gd_nvml_call(r->nv, what, (int)r->idx, fn, io);
		if (rc == NVML_ERROR_INSUFFICIENT_SIZE)
			cap = io->count + io->count / 4 + 4; /* the list is racy: headroom */
	}
	if (rc == NVML_ERROR_INSUFFICIENT_SIZE) {
		struct gd_nvml_error *e = GD_PUSH(r->s, nvml_errors, struct gd_nvml_error);

		gd_u64_set(&e->gpu, r->idx);
		GD_STRSET(e->field, field);
		GD_STRSET(e->status, "failed");
		gd_u64_set(&e->code, NVML_ERROR_INSUFFICIENT_SIZE);
		snprintf(e->reason, sizeof e->reason, _("%s: the list kept growing (%u entries after %d tries)"), what,
			 io->count, LIST_TRIES);
		r->errors++;
		return false;
	}
	if (rc == NVML_ERROR_NOT_FOUND) { /* sampling calls: no samples yet */
		io->count = 0;
		return true;
	}
	if (!gd_nv_check(r, field, what, rc))
		return false;
	if (io->count > cap)
		io->count = cap;
	return true;
}

/* One process list (compute or graphics) into gpu_procs[]: a pid already
 * listed on this GPU since first is not added twice.  True when read. */
static bool collect_proc_list(struct gd_gpu_run *r, const void *fn3, const void *fn1, const char *field, const char *what3,
			      const char *what1, gd_nvml_fn t3, gd_nvml_fn t1, bool graphics, size_t first)
{
	struct gd_nvml_io io;
	bool v1 = !fn3, ok;

	ok = list_call(r, v1 ? fn1 : fn3, field, v1 ? what1 : what3, v1 ? t1 : t3,
		       v1 ? sizeof(nvmlProcessInfo_v1_t) : sizeof(nvmlProcessInfo_t), LIST_FIRST, &io);
	for (unsigned int i = 0; ok && i < io.count; i++) {
		unsigned int pid = v1 ? ((nvmlProcessInfo_v1_t *)io.buf)[i].pid : ((nvmlProcessInfo_t *)io.buf)[i].pid;
		unsigned long long mem = v1 ? ((nvmlProcessInfo_v1_t *)io.buf)[i].usedGpuMemory
					    : ((nvmlProcessInfo_t *)io.buf)[i].usedGpuMemory;
		struct gd_gpu_proc *p;
		bool dup = false;

		for (size_t k = first; k < r->s->gpu_procs.n && !dup; k++)
			dup = GD_VEC_AT(r->s->gpu_procs, struct gd_gpu_proc, k)->pid.v == pid;
		if (dup)
			continue;
		p = GD_PUSH(r->s, gpu_procs, struct gd_gpu_proc);
		gd_u64_set(&p->gpu, r->idx);
		gd_u64_set(&p->pid, pid);
		gd_u64_set(&p->graphics, graphics);
		if (mem != NVML_VALUE_NOT_AVAILABLE)
			gd_u64_set(&p->used_mem_bytes, mem);
	}
	free(io.buf);
	return ok;
}

void gd_gpu_collect_processes(struct gd_gpu_run *r, const struct gd_nvml_api *a)
{
	struct gd_nvml_io io;
	size_t first_proc = r->s->gpu_procs.n;
	bool listed;

	listed = collect_proc_list(r, (const void *)a->procs, (const void *)a->procs_v1, "gpu_procs",
				   "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses",
				   t_procs, t_procs_v1, false, first_proc);
	collect_proc_list(r, (const void *)a->gprocs, (const void *)a->gprocs_v1, "gpu_procs.graphics",
			  "nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses", t_gprocs,
			  t_gprocs_v1, true, first_proc);
	if (listed)
		gd_u64_set(&gd_nv_gpu(r)->nvml_procs, r->s->gpu_procs.n - first_proc);
	if (r->s->gpu_procs.n == first_proc)
		return;
	/* Per-process samples: the newest one of each listed pid. */
	if (list_call(r, a->proc_util, "gpu_procs.sm_util_pct", "nvmlDeviceGetProcessUtilization", t_proc_util,
		      sizeof(nvmlProcessUtilizationSample_t), 0, &io)) {
		const nvmlProcessUtilizationSample_t *sm = io.buf;

		for (size_t k = first_proc; k < r->s->gpu_procs.n; k++) {
			struct gd_gpu_proc *p = GD_VEC_AT(r->s->gpu_procs, struct gd_gpu_proc, k);
			const nvmlProcessUtilizationSample_t *best = NULL;

			for (unsigned int i = 0; i < io.count; i++)
				if (sm[i].pid == p->pid.v && (!best || sm[i].timeStamp >= best->timeStamp))
					best = &sm[i];
			if (best) {
				gd_u64_set(&p->sm_util_pct, best->smUtil);
				gd_u64_set(&p->mem_util_pct, best->memUtil);
			}
		}
	}
	free(io.buf);
}

/* ---- the NVSwitch fabric ----------------------------------------------------- */

static nvmlReturn_t t_fabric_v(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	memset(&io->s.fabric_v, 0, sizeof io->s.fabric_v);
	io->s.fabric_v.version = nvmlGpuFabricInfo_v2;
	return a->fabric_v(io->dev, &io->s.fabric_v);
}

static nvmlReturn_t t_fabric(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	memset(&io->s.fabric, 0, sizeof io->s.fabric);
	return a->fabric(io->dev, &io->s.fabric);
}

/*
 * The GPU's registration with the NVSwitch fabric: the versioned call (a
 * health mask too), else the 12.2 one.  A driver that has the versioned
 * name but not our struct version (ARGUMENT_VERSION_MISMATCH) is asked the
 * old call.  NOT_SUPPORTED (a GPU without a fabric, a consumer board) and a
 * driver without either call leave the fields absent: no fabric to judge.
 * A state the header does not name is kept as it came.
 */
void gd_gpu_collect_fabric(struct gd_gpu_run *r, const struct gd_nvml_api *a)
{
	static const char what_v[] = "nvmlDeviceGetGpuFabricInfoV", what[] = "nvmlDeviceGetGpuFabricInfo";
	struct gd_nvml_io io = IO0;
	struct gd_gpu *g;
	int rc;

	if (r->lost || gd_nvml_state(r->nv) == GD_NVML_STUCK)
		return;
	if (a->fabric_v) {
		io.dev = r->dev;
		rc = gd_nvml_call(r->nv, what_v, (int)r->idx, t_fabric_v, &io);
		if (rc != NVML_ERROR_ARGUMENT_VERSION_MISMATCH || !a->fabric) {
			if (!gd_nv_check(r, "fabric_state", what_v, rc))
				return;
			g = gd_nv_gpu(r);
			gd_u64_set(&g->fabric_state, io.s.fabric_v.state);
			if (io.s.fabric_v.state == NVML_GPU_FABRIC_STATE_COMPLETED)
				gd_u64_set(&g->fabric_status, (uint64_t)(unsigned)io.s.fabric_v.status);
			gd_u64_set(&g->fabric_health_mask, io.s.fabric_v.healthMask);
			return;
		}
	}
	io = IO0;
	if (!gd_nv_call(r, a->fabric, "fabric_state", what, t_fabric, &io))
		return;
	g = gd_nv_gpu(r);
	gd_u64_set(&g->fabric_state, io.s.fabric.state);
	if (io.s.fabric.state == NVML_GPU_FABRIC_STATE_COMPLETED)
		gd_u64_set(&g->fabric_status, (uint64_t)(unsigned)io.s.fabric.status);
}
