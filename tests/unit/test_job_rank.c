/*
 * test_job_rank.c - who each GPU job process is (job_ranks[]): the record
 * through a recording's line (both readers); serve's metrics of it are in
 * test_out_prom.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "model/snapshot_json.h"
#include "testutil.h"
#include "../snapshot_fast_check.h"

/* A ranked torchrun process on GPU 3, one denied and one without a rank. */
static void three_ranks(struct gd_snapshot *s)
{
	struct gd_job_rank *r = GD_PUSH(s, job_ranks, struct gd_job_rank);

	gd_u64_set(&r->pid, 4242);
	GD_STRSET(r->status, "ok");
	GD_STRSET(r->job, "torchelastic:abc");
	GD_STRSET(r->launcher, "torchelastic");
	gd_u64_set(&r->rank, 3);
	gd_u64_set(&r->local_rank, 3);
	gd_u64_set(&r->world_size, 16);
	gd_u64_set(&r->node_rank, 0);
	GD_STRSET(r->gpus, "3");
	GD_STRSET(r->run_id, "abc");
	GD_STRSET(r->nccl_ib_hca, "mlx5_0:1,mlx5_1:1");
	r = GD_PUSH(s, job_ranks, struct gd_job_rank);
	gd_u64_set(&r->pid, 4300);
	GD_STRSET(r->status, "denied");
	GD_STRSET(r->reason, "proc/4300/environ: Permission denied");
	GD_STRSET(r->gpus, "1");
	r = GD_PUSH(s, job_ranks, struct gd_job_rank);
	gd_u64_set(&r->pid, 4400);
	GD_STRSET(r->status, "no_rank");
	GD_STRSET(r->gpus, "0,1");
}

/* The section goes through a recording's line and back, on jansson's path
 * and on the fast one alike. */
static void test_job_ranks_roundtrip(void **state)
{
	struct gd_snapshot s, back;
	char *line = NULL, *fast, *want;
	size_t n = 0;
	FILE *m = open_memstream(&line, &n);
	json_error_t jerr;
	json_t *o;
	struct gd_err err;
	const struct gd_job_rank *r;

	(void)state;
	gd_snapshot_init(&s);
	gd_f64_set(&s.host.uptime_s, 10);
	three_ranks(&s);
	assert_non_null(m);
	assert_int_equal(gd_snapshot_write_line(&s, m), 0);
	assert_int_equal(fclose(m), 0);
	assert_contains(line, "\"job_ranks\":[{\"pid\":4242,\"status\":\"ok\"");
	assert_int_equal(fast_check_line(line, n, &fast, &want), 1);
	free(fast);
	free(want);
	o = json_loadb(line, n, JSON_DISABLE_EOF_CHECK, &jerr);
	assert_non_null(o);
	gd_snapshot_init(&back);
	assert_int_equal(gd_snapshot_from_json(o, &back, &err), 0);
	assert_int_equal(back.job_ranks.n, 3);
	r = GD_VEC_AT(back.job_ranks, struct gd_job_rank, 0);
	assert_string_equal(r->job, "torchelastic:abc");
	assert_true(r->rank.ok && r->rank.v == 3 && r->world_size.v == 16 && r->node_rank.ok && r->node_rank.v == 0);
	assert_false(r->slurm_procid.ok);
	assert_string_equal(r->nccl_ib_hca, "mlx5_0:1,mlx5_1:1");
	r = GD_VEC_AT(back.job_ranks, struct gd_job_rank, 1);
	assert_string_equal(r->status, "denied");
	assert_false(r->rank.ok);
	json_decref(o);
	free(line);
	gd_snapshot_release(&back);
	gd_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_ranks_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
