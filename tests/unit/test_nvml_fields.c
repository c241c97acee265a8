/*
 * test_nvml_fields.c - the field batch (collect/nvml_gpu_fields.c): one
 * nvmlDeviceGetFieldValues call per GPU takes the place of the per-link
 * NVLink calls and of the ECC, retirement, remapping, violation, energy and
 * PCIe replay calls, and every value is what its own call gives; where the
 * batch does not answer (an old driver, a refused call, a per-field error)
 * the value's own call does, with the same presence and nvml_errors rows.
 *
 * Through the fakes (tests/fake_nvml), whose call counters say which calls
 * were made; each fake answers a field from the same scenario key as the
 * call, and puts a poison value in every field that did not answer SUCCESS.
 * healthy2.ini: two H100s, 18 links each, all up; gpu0's nvlink_errors = 7.
 * The hang test comes last: it leaves a thread asleep in the fake.
 */
#include <dlfcn.h>

#include "nvml/nvml.h"
#include "testutil.h"

#define FAKE GD_BUILDDIR "/fake_nvml/libnvidia-ml.so.1"
#define FAKE_OLD GD_BUILDDIR "/fake_nvml_old/libnvidia-ml.so.1"
#define SCEN(name) GD_SRCDIR "/tests/fake_nvml/scenarios/" name ".ini"

/* Per-link calls the batch cannot replace on an 18-link GPU: DL_ECC_DATA on
 * every link, DL_CRC_FLIT and DL_CRC_DATA on links 12-17. */
#define UNBATCHED_PER_GPU (18 + 2 * 6)

/* The calls that the batch replaces, and the batch itself. */
static const char *const counted[] = {
	"nvmlDeviceGetFieldValues",
	"nvmlDeviceGetNvLinkState",
	"nvmlDeviceGetNvLinkErrorCounter",
	"nvmlDeviceGetTotalEccErrors",
	"nvmlDeviceGetEccMode",
	"nvmlDeviceGetRetiredPages",
	"nvmlDeviceGetRetiredPagesPendingStatus",
	"nvmlDeviceGetRemappedRows",
	"nvmlDeviceGetViolationStatus",
	"nvmlDeviceGetTotalEnergyConsumption",
	"nvmlDeviceGetPcieReplayCounter",
};
#define N_COUNTED (sizeof counted / sizeof counted[0])
enum { FV, STATE, COUNTER, ECC, ECC_MODE, RETIRED, PENDING, REMAP, VIOL, ENERGY, REPLAY };

/* One collection through lib (a fresh NVML handle), with the number of
 * calls of each counted function it made. */
struct run {
	struct gd_snapshot s;
	enum gd_src_status st;
	unsigned int calls[N_COUNTED];
};

static void run_collect(struct run *out, const char *lib, const char *scenario, double timeout_s)
{
	struct gd_collect_ctx ctx;
	struct gd_err err;
	unsigned int (*calls)(const char *name);
	unsigned int before[N_COUNTED];
	void *dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

	if (!dl)
		fail_msg("cannot load %s: %s (run make unit)", lib, dlerror());
	*(void **)&calls = dlsym(dl, "fake_nvml_calls");
	assert_non_null(calls);
	setenv("GPUDOCTOR_FAKE_NVML", scenario, 1);
	memset(&ctx, 0, sizeof ctx);
	ctx.nvml_path = lib;
	ctx.nvml_timeout_s = timeout_s;
	for (size_t i = 0; i < N_COUNTED; i++)
		before[i] = calls(counted[i]);
	gd_snapshot_init(&out->s);
	gd_err_clear(&err);
	out->st = gd_collect_nvml(&ctx, &out->s, &err);
	for (size_t i = 0; i < N_COUNTED; i++)
		out->calls[i] = calls(counted[i]) - before[i];
	/* the fake stays loaded: a hung call may still sleep in it */
}

static const struct gd_gpu *gpu(const struct run *r, size_t i)
{
	assert_true(i < r->s.gpus.n);
	return GD_VEC_AT(r->s.gpus, struct gd_gpu, i);
}

#define U(x, want) \
	do { \
		assert_true((x).ok); \
		assert_int_equal((x).v, (want)); \
	} while (0)

/* The values healthy2.ini gives gpu0 for everything the batch can carry
 * (the remapping values and the recovery action only where asked for). */
static void assert_gpu0_values(const struct gd_gpu *g, bool remapping, bool recovery)
{
	U(g->ecc_mode, 1);
	U(g->ecc_corrected_volatile, 2);
	U(g->ecc_uncorrected_volatile, 0);
	U(g->ecc_corrected_aggregate, 17);
	U(g->ecc_uncorrected_aggregate, 0);
	U(g->retired_pages_sbe, 0);
	U(g->retired_pages_dbe, 0);
	U(g->retired_pages_pending, 0);
	U(g->violation_power_ns, 9007199254740993ULL); /* > 2^53: an integer all the way */
	U(g->violation_thermal_ns, 0);
	U(g->violation_sync_boost_ns, 0);
	U(g->violation_board_limit_ns, 0);
	U(g->violation_reliability_ns, 0);
	U(g->energy_mj, 123456789012ULL);
	U(g->pcie_replays, 3);
	assert_int_equal(g->recovery_action.ok, recovery);
	U(g->nvlink_links, 18);
	U(g->nvlink_up_links, 18);
	U(g->nvlink_errors, 7);
	assert_int_equal(g->remap_corrected.ok, remapping);
	if (remapping) {
		U(g->remap_corrected, 1);
		U(g->remap_failure, 0);
	}
}

static size_t rows_for(const struct gd_snapshot *s, uint64_t g, const char *field, const char *status,
		       const char *what)
{
	size_t n = 0;

	GD_VEC_EACH(s->nvml_errors, struct gd_nvml_error, e)
		if (e->gpu.v == g && strcmp(e->field, field) == 0 && strcmp(e->status, status) == 0 &&
		    strncmp(e->reason, what, strlen(what)) == 0)
			n++;
	return n;
}

/* ---- the batch answers ---------------------------------------------------------- */
static void test_batch(void **state)
{
	struct run r;

	(void)state;
	run_collect(&r, FAKE, SCEN("healthy2"), 0);
	assert_int_equal(r.st, GD_SRC_OK);
	assert_int_equal(r.s.nvml_errors.n, 0);
	assert_gpu0_values(gpu(&r, 0), true, true);
	U(gpu(&r, 0)->recovery_action, 0);
	U(gpu(&r, 1)->nvlink_errors, 0);
	U(gpu(&r, 1)->nvlink_up_links, 18);
	/* One batch per GPU (the recovery action rides in it); no state call,
	 * no ECC, retirement, remapping, violation, energy or replay call;
	 * per link only the counters without a field id. */
	assert_int_equal(r.calls[FV], 2);
	assert_int_equal(r.calls[STATE], 0);
	assert_int_equal(r.calls[COUNTER], 2 * UNBATCHED_PER_GPU);
	for (size_t i = ECC; i < N_COUNTED; i++)
		assert_int_equal(r.calls[i], 0);
	gd_snapshot_release(&r.s);
}

/* ---- an old driver: no 11.8-header NVLink ids, no remapping -------------------- */
static void test_old_driver(void **state)
{
	struct run r;

	(void)state;
	run_collect(&r, FAKE_OLD, SCEN("healthy2"), 0);
	assert_int_equal(r.st, GD_SRC_OK);
	assert_int_equal(r.s.nvml_errors.n, 0);
	/* The same values through the per-link calls where the ids are unknown. */
	assert_gpu0_values(gpu(&r, 0), false, true);
	assert_int_equal(r.calls[FV], 2);
	/* 165 unknown: every link's state from nvmlDeviceGetNvLinkState (36
	 * asked, 18 answer); 161 and 162 unknown: links 12-17 ask all five
	 * counters; links 0-11 ask DL_ECC_DATA only (the Lx ids answered). */
	assert_int_equal(r.calls[STATE], 2 * NVML_NVLINK_MAX_LINKS);
	assert_int_equal(r.calls[COUNTER], 2 * (6 * 5 + 12));
	assert_int_equal(r.calls[ECC], 0); /* ids 3-6 are in every header */
	assert_int_equal(r.calls[VIOL], 0);
	assert_int_equal(r.calls[REMAP], 0); /* the old driver has neither */
	gd_snapshot_release(&r.s);
}

/* ---- the batch refused as a whole: every value from its own call --------------- */
static void test_refused(void **state)
{
	struct run r;

	(void)state;
	run_collect(&r, FAKE, SCEN("fields_refused"), 0);
	assert_gpu0_values(gpu(&r, 0), true, false);
	U(gpu(&r, 1)->nvlink_links, 18);
	/* The recovery action has no other call: NOT_SUPPORTED leaves it
	 * absent without a word; the call's INVALID_ARGUMENT is a failure of
	 * the recovery action's own call, as it was before the batch. */
	assert_false(gpu(&r, 1)->recovery_action.ok);
	assert_int_equal(r.st, GD_SRC_PARTIAL);
	assert_int_equal(r.s.nvml_errors.n, 1);
	assert_int_equal(rows_for(&r.s, 1, "recovery_action", "failed", "nvmlDeviceGetFieldValues(230): "), 1);
	/* per GPU: the batch, then the recovery action's own call */
	assert_int_equal(r.calls[FV], 2 * 2);
	assert_int_equal(r.calls[STATE], 2 * NVML_NVLINK_MAX_LINKS);
	assert_int_equal(r.calls[COUNTER], 2 * 18 * NVML_NVLINK_ERROR_COUNT);
	assert_int_equal(r.calls[ECC], 2 * 4);
	assert_int_equal(r.calls[ECC_MODE], 2);
	assert_int_equal(r.calls[RETIRED], 2 * 2);
	assert_int_equal(r.calls[PENDING], 2);
	assert_int_equal(r.calls[REMAP], 2);
	assert_int_equal(r.calls[VIOL], 2 * 5);
	assert_int_equal(r.calls[ENERGY], 2);
	assert_int_equal(r.calls[REPLAY], 2);
	gd_snapshot_release(&r.s);
}

/* ---- per-field errors ------------------------------------------------------------ */
static void test_field_errors(void **state)
{
	struct run r;
	const struct gd_gpu *g;

	(void)state;
	run_collect(&r, FAKE, SCEN("fields_errors"), 0);
	assert_int_equal(r.st, GD_SRC_PARTIAL);
	/* gpu0: the three values whose field failed come from their calls (a
	 * poisoned field value taken instead would show), nothing else asks */
	g = gpu(&r, 0);
	U(g->ecc_corrected_volatile, 2);
	U(g->nvlink_errors, 7);
	U(g->nvlink_links, 18);
	U(g->nvlink_up_links, 18);
	/* the recovery action has no call of its own: absent, never 0, and a
	 * denied row as the single-field call would give */
	assert_false(g->recovery_action.ok);
	assert_int_equal(rows_for(&r.s, 0, "recovery_action", "denied", "nvmlDeviceGetFieldValues(230): "), 1);
	/* gpu1: a counter the field says link 1 lacks is left out, as the
	 * call's NOT_SUPPORTED would be; link 3 does not exist */
	g = gpu(&r, 1);
	U(g->nvlink_errors, 0);
	U(g->nvlink_links, 17);
	U(g->nvlink_up_links, 17);
	/* denied in the field and in the call: absent, one row naming the call */
	assert_false(g->ecc_uncorrected_aggregate.ok);
	assert_int_equal(rows_for(&r.s, 1, "ecc_uncorrected_aggregate", "denied", "nvmlDeviceGetTotalEccErrors: "), 1);
	U(g->ecc_corrected_aggregate, 0);
	assert_int_equal(r.s.nvml_errors.n, 2);
	assert_int_equal(r.calls[FV], 2);
	assert_int_equal(r.calls[ECC], 1 + 1);
	assert_int_equal(r.calls[STATE], 1);                                 /* gpu0 link 5 */
	assert_int_equal(r.calls[COUNTER], UNBATCHED_PER_GPU + 1             /* gpu0: + link 0's replays */
					   + UNBATCHED_PER_GPU - 1);         /* gpu1: link 3's DL_ECC_DATA */
	gd_snapshot_release(&r.s);
}

/* ---- a GPU lost after its batch: the batch's values go with it ------------------ */
static void test_lost_after_batch(void **state)
{
	struct run r;
	const struct gd_gpu *g;

	(void)state;
	run_collect(&r, FAKE, SCEN("fields_lost"), 0);
	/* both batches were asked (else lost_after no longer falls right after
	 * gpu0's: count its identity calls again) */
	assert_int_equal(r.calls[FV], 2);
	g = gpu(&r, 0);
	U(g->lost, 1);
	assert_false(g->temp_c.ok); /* the call that found it lost */
	assert_false(g->energy_mj.ok);
	assert_false(g->violation_power_ns.ok);
	assert_false(g->ecc_corrected_volatile.ok);
	assert_false(g->remap_corrected.ok);
	assert_false(g->recovery_action.ok);
	assert_false(g->nvlink_links.ok);
	assert_false(g->nvlink_errors.ok);
	U(gpu(&r, 1)->nvlink_links, 18);
	gd_snapshot_release(&r.s);
}

/* ---- a call that misses its deadline after the batch (last: leaves a thread
 * asleep in the fake) ---------------------------------------------------------------- */
static void test_stuck_after_batch(void **state)
{
	struct run r;
	const struct gd_gpu *g;

	(void)state;
	run_collect(&r, FAKE, SCEN("fields_hang"), 0.3);
	assert_string_equal(r.s.nvml.status, "stuck");
	assert_int_equal(r.s.gpus.n, 1);
	assert_int_equal(r.calls[FV], 1);
	/* what came back before the hung call stays; the batch came back too,
	 * but its values are the fields of calls after the hung one: absent */
	g = gpu(&r, 0);
	assert_true(g->temp_c.ok);
	assert_false(g->power_w.ok);
	assert_false(g->energy_mj.ok);
	assert_false(g->ecc_corrected_volatile.ok);
	assert_false(g->nvlink_links.ok);
	assert_false(g->recovery_action.ok);
	gd_snapshot_release(&r.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_old_driver),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_field_errors),
		cmocka_unit_test(test_lost_after_batch),
		cmocka_unit_test(test_stuck_after_batch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
