/*
 * nvml_gpu_fields.c - one nvmlDeviceGetFieldValues call per GPU per cycle,
 * holding the values of many calls the nvml collector would otherwise make
 * one by one (issue 16: 1,348 NVML calls per cycle for 8 GPUs, 75% of them
 * per-link NVLink calls).
 *
 * Only fields whose value is the value of a call gpudoctor makes anyway go in
 * (nvml/nvml_abi.h has the ids and the header each comes from):
 *
 *   field                                  instead of
 *   1 ECC_CURRENT                          nvmlDeviceGetEccMode (current)
 *   3-6 ECC_{SBE,DBE}_{VOL,AGG}_TOTAL      nvmlDeviceGetTotalEccErrors x 4
 *   29, 30 RETIRED_SBE, _DBE               nvmlDeviceGetRetiredPages (count) x 2
 *   31 RETIRED_PENDING                     nvmlDeviceGetRetiredPagesPendingStatus
 *   74-77, 79 PERF_POLICY_*                nvmlDeviceGetViolationStatus x 5 (ns)
 *   83 TOTAL_ENERGY_CONSUMPTION            nvmlDeviceGetTotalEnergyConsumption (mJ)
 *   94 PCIE_REPLAY_COUNTER                 nvmlDeviceGetPcieReplayCounter
 *   142-145 REMAPPED_*                     nvmlDeviceGetRemappedRows
 *   230 GET_GPU_RECOVERY_ACTION            (was a call of its own)
 *   per link L < 36, scopeId = L:
 *   165 NVLINK_GET_STATE                   nvmlDeviceGetNvLinkState(L)
 *   L < 12: the Lx ids of CRC_FLIT,        nvmlDeviceGetNvLinkErrorCounter(L,
 *     CRC_DATA, REPLAY, RECOVERY             DL_CRC_FLIT ... DL_RECOVERY)
 *   L >= 12: 161, 162 ERROR_DL_REPLAY,     ...(L, DL_REPLAY), (L, DL_RECOVERY)
 *     _DL_RECOVERY
 *
 * Not batched, so still asked per link: DL_ECC_DATA (its per-link ids take a
 * lane in scopeId), DL_CRC_FLIT and DL_CRC_DATA of links 12 and up (no id;
 * 163 ..._ERROR_DL_CRC does not say which CRC counter it is); and the power
 * reading (nvmlDeviceGetPowerUsage is the 1 s average on Ampere and later,
 * the instant value before, two fields), temperatures, clocks, utilisation.
 * For an 8-GPU H100 node with 18 links up that is 8 batches and 240 per-link
 * counter calls a cycle where there were 1,008 NVLink and 128 other calls.
 *
 * Presence is the collector's, unchanged: a field that answers SUCCESS with
 * an integer is the value; any other answer, or a batch the driver lacks or
 * refuses (NOT_SUPPORTED, INVALID_ARGUMENT, any error), sends the value to
 * its own call, which decides as it always has (a value, absent, an
 * nvml_errors row naming that call, a lost GPU).  A field's value is never
 * read unless it answered SUCCESS ("value is undefined if nvmlReturn !=
 * NVML_SUCCESS", nvml.h).  One exception, for NVLink: a field that answered
 * on some link of this GPU is one the driver knows, so its INVALID_ARGUMENT
 * or NOT_SUPPORTED on another link is about that link (past the last one, or
 * a counter the link lacks) and is taken as the per-link call's same answer;
 * without it a 12-link A100 would ask 24 links past its last one in person.
 * Example: healthy H100, link 17: 165@17 answers 1 (active), 161@17 and
 * 162@17 answer 0, and DL_CRC_FLIT, DL_CRC_DATA and DL_ECC_DATA of link 17
 * are three nvmlDeviceGetNvLinkErrorCounter calls; link 20: 165@20 answers
 * INVALID_ARGUMENT while links 0-17 answered, so link 20 does not exist.
 */
#include <stdlib.h>
#include <string.h>

#include "collect/nvml_gpu.h"
#include "core/xalloc.h"

/* Device fields, asked at scopeId 0 and kept at v[i] in this order. */
static const unsigned int dev_ids[] = {
	NVML_FI_DEV_ECC_CURRENT,
	NVML_FI_DEV_ECC_SBE_VOL_TOTAL,
	NVML_FI_DEV_ECC_DBE_VOL_TOTAL,
	NVML_FI_DEV_ECC_SBE_AGG_TOTAL,
	NVML_FI_DEV_ECC_DBE_AGG_TOTAL,
	NVML_FI_DEV_RETIRED_SBE,
	NVML_FI_DEV_RETIRED_DBE,
	NVML_FI_DEV_RETIRED_PENDING,
	NVML_FI_DEV_PERF_POLICY_POWER,
	NVML_FI_DEV_PERF_POLICY_THERMAL,
	NVML_FI_DEV_PERF_POLICY_SYNC_BOOST,
	NVML_FI_DEV_PERF_POLICY_BOARD_LIMIT,
	NVML_FI_DEV_PERF_POLICY_RELIABILITY,
	NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION,
	NVML_FI_DEV_PCIE_REPLAY_COUNTER,
	NVML_FI_DEV_REMAPPED_COR,
	NVML_FI_DEV_REMAPPED_UNC,
	NVML_FI_DEV_REMAPPED_PENDING,
	NVML_FI_DEV_REMAPPED_FAILURE,
	NVML_FI_DEV_GET_GPU_RECOVERY_ACTION,
};
#define N_DEV (sizeof dev_ids / sizeof dev_ids[0])

/* The field id of a link's slot, 0 when none.  The Lx ids carry the link
 * (L0-L5 and L6-L11 in two ranges); the scopeId is the link as well. */
static unsigned int nvlink_id(unsigned int link, unsigned int slot)
{
	static const unsigned int lx[GD_NVL_BATCHED][2] = {
		[NVML_NVLINK_ERROR_DL_REPLAY] = { NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L0,
						  NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L6 },
		[NVML_NVLINK_ERROR_DL_RECOVERY] = { NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L0,
						    NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L6 },
		[NVML_NVLINK_ERROR_DL_CRC_FLIT] = { NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L0,
						    NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L6 },
		[NVML_NVLINK_ERROR_DL_CRC_DATA] = { NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L0,
						    NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L6 },
	};
	unsigned int c = slot - 1;

	if (slot == GD_NVL_STATE)
		return NVML_FI_DEV_NVLINK_GET_STATE;
	if (link < GD_NVML_FI_LX_LINKS)
		return lx[c][link / 6] + link % 6;
	if (c == NVML_NVLINK_ERROR_DL_REPLAY)
		return NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY;
	if (c == NVML_NVLINK_ERROR_DL_RECOVERY)
		return NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY;
	return 0;
}

/* One bit per field family: a slot's Lx ids and its scoped id are two. */
static unsigned int family(unsigned int link, unsigned int slot)
{
	return 1u << (slot == GD_NVL_STATE || link < GD_NVML_FI_LX_LINKS ? slot : slot + GD_NVL_SLOTS);
}

/* A SUCCESS answer as an unsigned integer; false for any other answer or a
 * type that is not a whole count. */
bool gd_nv_value_u64(unsigned int type, const nvmlValue_t *x, uint64_t *v)
{
	switch (type) {
	case NVML_VALUE_TYPE_UNSIGNED_INT:
		*v = x->uiVal;
		return true;
	case NVML_VALUE_TYPE_UNSIGNED_LONG:
		*v = x->ulVal;
		return true;
	case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
		*v = x->ullVal;
		return true;
	case NVML_VALUE_TYPE_UNSIGNED_SHORT:
		*v = x->usVal;
		return true;
	case NVML_VALUE_TYPE_SIGNED_INT:
		*v = (uint64_t)x->siVal;
		return x->siVal >= 0;
	case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
		*v = (uint64_t)x->sllVal;
		return x->sllVal >= 0;
	case NVML_VALUE_TYPE_DOUBLE:
		if (!(x->dVal >= 0 && x->dVal <= 1e9))
			return false;
		*v = (uint64_t)(x->dVal + 0.5);
		return true;
	default:
		return false;
	}
}

static bool as_u64(const nvmlFieldValue_t *f, uint64_t *v)
{
	return f->nvmlReturn == NVML_SUCCESS && gd_nv_value_u64(f->valueType, &f->value, v);
}

static nvmlReturn_t t_fields(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	return a->field_values(io->dev, (int)io->count, io->buf);
}

void gd_nv_fields_read(struct gd_gpu_run *r, const struct gd_nvml_api *a)
{
	struct gd_nv_fields *b = &r->fields;
	struct gd_nvml_io io = IO0;
	nvmlFieldValue_t *v;
	unsigned int n = 0;
	int rc;

	memset(b, 0, sizeof *b);
	memset(b->at, -1, sizeof b->at);
	if (!a->field_values || r->lost || gd_nvml_state(r->nv) == GD_NVML_STUCK)
		return;
	v = gd_xcalloc(N_DEV + NVML_NVLINK_MAX_LINKS * GD_NVL_SLOTS, sizeof *v);
	for (size_t i = 0; i < N_DEV; i++)
		v[n++].fieldId = dev_ids[i];
	for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; link++)
		for (unsigned int slot = 0; slot < GD_NVL_SLOTS; slot++) {
			unsigned int id = nvlink_id(link, slot);

			if (!id)
				continue;
			v[n].fieldId = id;
			v[n].scopeId = link;
			b->at[link][slot] = (short)n++;
		}
	io.buf = v;
	io.count = n;
	io.dev = r->dev;
	rc = gd_nvml_call(r->nv, "nvmlDeviceGetFieldValues", (int)r->idx, t_fields, &io);
	b->v = io.buf; /* NULL when the call got stuck: the abandoned call owns it */
	b->n = n;
	if (rc == NVML_ERROR_GPU_IS_LOST)
		gd_nv_check(r, "index", "nvmlDeviceGetFieldValues", rc);
	if (rc != NVML_SUCCESS || !b->v)
		return;
	b->read = true;
	for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; link++)
		for (unsigned int slot = 0; slot < GD_NVL_SLOTS; slot++)
			if (b->at[link][slot] >= 0 && b->v[b->at[link][slot]].nvmlReturn == NVML_SUCCESS)
				b->known |= family(link, slot);
}

void gd_nv_fields_release(struct gd_gpu_run *r)
{
	free(r->fields.v);
	memset(&r->fields, 0, sizeof r->fields);
}

/* The batch may be used: read, and the GPU neither lost nor stuck since (a
 * value after a call that missed its deadline stays absent, as its call's
 * would). */
static bool usable(const struct gd_gpu_run *r)
{
	return r->fields.read && !r->lost && gd_nvml_state(r->nv) != GD_NVML_STUCK;
}

const nvmlFieldValue_t *gd_nv_field_entry(const struct gd_gpu_run *r, unsigned int id)
{
	if (!usable(r))
		return NULL;
	for (size_t i = 0; i < N_DEV; i++)
		if (dev_ids[i] == id)
			return &r->fields.v[i];
	return NULL;
}

bool gd_nv_field(struct gd_gpu_run *r, unsigned int id, uint64_t *v)
{
	const nvmlFieldValue_t *f = gd_nv_field_entry(r, id);

	return f && as_u64(f, v);
}

int gd_nv_field_nvlink(struct gd_gpu_run *r, unsigned int link, unsigned int slot, uint64_t *v)
{
	const nvmlFieldValue_t *f;

	if (!usable(r) || link >= NVML_NVLINK_MAX_LINKS || slot >= GD_NVL_SLOTS || r->fields.at[link][slot] < 0)
		return GD_NV_FIELD_ASK;
	f = &r->fields.v[r->fields.at[link][slot]];
	if (as_u64(f, v))
		/* 2 is NVML_NVLINK_STATE_SLEEP, which nvmlEnableState_t has no
		 * word for: the per-link call says what it is. */
		return slot == GD_NVL_STATE && *v > NVML_FEATURE_ENABLED ? GD_NV_FIELD_ASK : NVML_SUCCESS;
	if ((f->nvmlReturn == NVML_ERROR_INVALID_ARGUMENT || f->nvmlReturn == NVML_ERROR_NOT_SUPPORTED) &&
	    (r->fields.known & family(link, slot)))
		return (int)f->nvmlReturn;
	return GD_NV_FIELD_ASK;
}
