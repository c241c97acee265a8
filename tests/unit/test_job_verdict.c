/*
 * test_job_verdict.c - which rank holds a multi-node job back
 * (src/rules/job_verdict.c) on hand-built series: a slow rank, a slow node,
 * a rank slow periodically, stuck ranks (stopped, D state, gone, GPU lost,
 * no progress), every rank waiting (the network), ranks unseen, a rank
 * number on two processes, and healthy jobs that must stay silent.
 */
#include <stdio.h>

#include "testutil.h"

#include "rules/job_verdict.h"

#define NODES 4
#define PER 2
#define STEPS 40

struct job {
	struct gd_jv_rank r[NODES * PER + 2];
	struct gd_jv_point p[NODES * PER + 2][STEPS];
	struct gd_jv_finding f[8];
	struct gd_jv_input in;
};

/* A healthy 4 x 2 job: every rank computes (W 0.1, SM 0.9, CPU 1.0, R). */
static void job_init(struct job *j, size_t steps)
{
	memset(j, 0, sizeof *j);
	for (size_t i = 0; i < NODES * PER; i++) {
		struct gd_jv_rank *r = &j->r[i];

		snprintf(r->node, sizeof r->node, "node-%zu", i / PER);
		r->pid = 1000 + i;
		r->rank = (long)i;
		r->local_rank = (long)(i % PER);
		r->node_rank = (long)(i / PER);
		r->world_size = NODES * PER;
		snprintf(r->gpu, sizeof r->gpu, "%zu", i % PER);
		r->p = j->p[i];
		for (size_t t = 0; t < steps; t++)
			j->p[i][t] = (struct gd_jv_point){ .wait = 0.1, .sm = 0.9, .cpu = 1.0, .state = 'R', .seen = true,
							   .node_up = true };
	}
	j->in.nsteps = steps;
	j->in.t0 = 1765000000;
	j->in.step_s = 15;
	j->in.ranks = j->r;
	j->in.n = NODES * PER;
	j->in.findings = j->f;
	gd_jv_params_default(&j->in.par);
}

/* Steps [from, to) of every rank but those of skip (a predicate by index) wait. */
static void others_wait(struct job *j, size_t from, size_t to, size_t culprit, bool whole_node)
{
	for (size_t i = 0; i < j->in.n; i++) {
		bool c = whole_node ? i / PER == culprit / PER : i == culprit;

		for (size_t t = from; t < to; t++)
			if (!c) {
				j->p[i][t].wait = 0.62;
				j->p[i][t].sm = 0.3;
			}
	}
}

static size_t culprit(const struct gd_jv *v, size_t k)
{
	return *GD_VEC_AT(v->culprits, size_t, k);
}

static void test_healthy_silent(void **state)
{
	struct job j;
	struct gd_jv v;

	(void)state;
	job_init(&j, STEPS);
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_HEALTHY);
	assert_null(v.rule);
	assert_int_equal(v.culprits.n, 0);
	assert_int_equal(v.missing, 0);
	assert_int_equal(v.conflicts.n, 0);
	assert_int_equal(v.seen_ranks, 8);
	gd_jv_release(&v);
	/* one rank calm for one short blip while the others wait: no verdict */
	job_init(&j, STEPS);
	others_wait(&j, 10, 11, 3, false);
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_HEALTHY);
	gd_jv_release(&v);
	/* no sample at all: nothing is judged */
	job_init(&j, STEPS);
	for (size_t i = 0; i < j.in.n; i++)
		for (size_t t = 0; t < STEPS; t++)
			j.p[i][t].wait = NAN;
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_NO_DATA);
	gd_jv_release(&v);
}

static void test_slow_rank(void **state)
{
	struct job j;
	struct gd_jv v;

	(void)state;
	job_init(&j, STEPS);
	others_wait(&j, 0, STEPS, 5, false);
	j.f[0] = (struct gd_jv_finding){ "node-2", "gpu.thermal_throttle", "gpu1", false };
	j.f[1] = (struct gd_jv_finding){ "node-0", "cpu.saturated", "host", false };
	j.in.nfindings = 2;
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_SLOW);
	assert_string_equal(v.rule, "job.slow_rank");
	assert_false(v.critical);
	assert_int_equal(v.culprits.n, 1);
	assert_int_equal(culprit(&v, 0), 5);
	assert_true(v.rows[5].culprit && !v.rows[4].culprit);
	assert_false(v.whole_node);
	assert_true(fabs(v.others_wait - 0.62) < 1e-9);
	/* the cause: the culprit's node's own finding only */
	assert_int_equal(v.causes.n, 1);
	assert_string_equal(GD_VEC_AT(v.causes, struct gd_jv_finding, 0)->rule, "gpu.thermal_throttle");
	assert_int_equal(v.rows[5].episodes, 1);
	assert_true(v.rows[5].period_s == 0);
	gd_jv_release(&v);
}

static void test_slow_node(void **state)
{
	struct job j;
	struct gd_jv v;

	(void)state;
	job_init(&j, STEPS);
	others_wait(&j, 0, STEPS, 6, true);
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_SLOW);
	assert_int_equal(v.culprits.n, 2);
	assert_int_equal(culprit(&v, 0), 6);
	assert_int_equal(culprit(&v, 1), 7);
	assert_true(v.whole_node);
	gd_jv_release(&v);
}

static void test_slow_periodic(void **state)
{
	struct job j;
	struct gd_jv v;

	(void)state;
	/* 30 s (2 steps of 15 s) slow every 150 s (10 steps): 4 episodes */
	job_init(&j, STEPS);
	for (size_t e = 0; e < 4; e++)
		others_wait(&j, 3 + 10 * e, 5 + 10 * e, 2, false);
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_SLOW);
	assert_int_equal(v.culprits.n, 1);
	assert_int_equal(culprit(&v, 0), 2);
	assert_int_equal(v.rows[2].episodes, 4);
	assert_true(fabs(v.rows[2].period_s - 150) < 1e-9);
	assert_true(fabs(v.rows[2].episode_s - 30) < 1e-9);
	gd_jv_release(&v);
	/* irregular episodes: named, without a period */
	job_init(&j, STEPS);
	others_wait(&j, 2, 4, 2, false);
	others_wait(&j, 8, 10, 2, false);
	others_wait(&j, 30, 32, 2, false);
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_SLOW);
	assert_int_equal(v.rows[2].episodes, 3);
	assert_true(v.rows[2].period_s == 0);
	gd_jv_release(&v);
}

static void stuck_case(char st, bool gone, bool lost, bool idle, const char *why)
{
	struct job j;
	struct gd_jv v;

	job_init(&j, STEPS);
	others_wait(&j, 20, STEPS, 3, false);
	for (size_t t = 20; t < STEPS; t++) {
		struct gd_jv_point *p = &j.p[3][t];

		p->wait = NAN;  /* a stopped or gone thread has no samples */
		p->cpu = 0;
		if (st)
			p->state = st;
		if (gone)
			p->seen = false;
		if (lost)
			p->gpu_lost = true;
		if (idle) {
			p->state = 'S';
			p->sm = 0;
			p->wait = 0.05;
		}
	}
	j.f[0] = (struct gd_jv_finding){ "node-1", "host.hung_tasks", "host", true };
	j.in.nfindings = 1;
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_STUCK);
	assert_string_equal(v.rule, "job.rank_stuck");
	assert_true(v.critical);
	assert_int_equal(v.culprits.n, 1);
	assert_int_equal(culprit(&v, 0), 3);
	assert_string_equal(v.rows[3].stuck_why, why);
	assert_int_equal(v.causes.n, 1);
	assert_true(v.others_wait > 0.6);
	gd_jv_release(&v);
}

static void test_stuck(void **state)
{
	(void)state;
	stuck_case('T', false, false, false, GD_JV_STOPPED);
	stuck_case('D', false, false, false, GD_JV_DSTATE);
	stuck_case(0, true, false, false, GD_JV_GONE);
	stuck_case(0, false, true, false, GD_JV_GPU_LOST);
	stuck_case(0, false, false, true, GD_JV_NO_PROGRESS);
}

static void test_stuck_needs_waiting_others(void **state)
{
	struct job j;
	struct gd_jv v;

	(void)state;
	/* a rank stopped while the others go on computing: not what holds them */
	job_init(&j, STEPS);
	for (size_t t = 20; t < STEPS; t++)
		j.p[3][t] = (struct gd_jv_point){ .wait = NAN, .sm = 0, .cpu = 0, .state = 'T', .seen = true, .node_up = true };
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_HEALTHY);
	gd_jv_release(&v);
	/* a stuck spell that ended before the range did: not stuck now */
	job_init(&j, STEPS);
	others_wait(&j, 10, 20, 3, false);
	for (size_t t = 10; t < 20; t++)
		j.p[3][t].state = 'D';
	gd_jv_judge(&j.in, &v);
	assert_int_not_equal(v.kind, GD_JV_STUCK);
	gd_jv_release(&v);
	/* a node not scraped is not a gone rank */
	job_init(&j, STEPS);
	others_wait(&j, 20, STEPS, 3, false);
	for (size_t t = 20; t < STEPS; t++)
		j.p[3][t] = (struct gd_jv_point){ .wait = NAN, .sm = NAN, .cpu = NAN };
	gd_jv_judge(&j.in, &v);
	assert_int_not_equal(v.kind, GD_JV_STUCK);
	gd_jv_release(&v);
}

static void test_no_rank_stands_out(void **state)
{
	struct job j;
	struct gd_jv v;

	(void)state;
	job_init(&j, STEPS);
	for (size_t i = 0; i < j.in.n; i++)
		for (size_t t = 0; t < STEPS; t++)
			j.p[i][t].wait = 0.55 + 0.01 * (double)(i % 3);
	j.f[0] = (struct gd_jv_finding){ "node-1", "net.rdma_unused", "job", false };
	j.f[1] = (struct gd_jv_finding){ "node-2", "gpu.thermal_throttle", "gpu0", false };
	j.f[2] = (struct gd_jv_finding){ "node-3", "net.retransmits", "host", false };
	j.in.nfindings = 3;
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_COLLECTIVE);
	assert_null(v.rule);
	assert_int_equal(v.culprits.n, 0);
	assert_true(v.waiting_share == 1);
	assert_int_equal(v.causes.n, 2);  /* the net.* findings, not the thermal one */
	assert_string_equal(GD_VEC_AT(v.causes, struct gd_jv_finding, 0)->rule, "net.rdma_unused");
	assert_string_equal(GD_VEC_AT(v.causes, struct gd_jv_finding, 1)->rule, "net.retransmits");
	gd_jv_release(&v);
	/* half the ranks calm: too many to name, not a slow rank */
	job_init(&j, STEPS);
	for (size_t i = 0; i < 4; i++)
		for (size_t t = 0; t < STEPS; t++)
			j.p[i][t].wait = 0.7;
	gd_jv_judge(&j.in, &v);
	assert_int_not_equal(v.kind, GD_JV_SLOW);
	assert_int_equal(v.culprits.n, 0);
	gd_jv_release(&v);
}

static void test_unseen(void **state)
{
	struct job j;
	struct gd_jv v;

	(void)state;
	/* node 2 (ranks 4, 5) never reported, and rank 7 neither */
	job_init(&j, STEPS);
	for (size_t i = 0; i < NODES * PER; i++)
		j.r[i].world_size = 8;
	j.r[4] = j.r[6];
	j.r[5] = j.r[7];
	j.r[4].p = j.p[4];
	j.r[5].p = j.p[5];
	j.in.n = 6;
	j.r[5].rank = 6;
	j.r[4].rank = 6;
	j.r[4].local_rank = 0;
	j.r[4].pid = 5000;
	gd_jv_judge(&j.in, &v);
	/* rank 6 twice (node-3 pid 5000 and 1007): a conflict */
	assert_int_equal(v.kind, GD_JV_CONFLICT);
	assert_int_equal(v.conflicts.n, 1);
	assert_int_equal(GD_VEC_AT(v.conflicts, struct gd_jv_conflict, 0)->rank, 6);
	assert_true(v.rows[4].conflict && v.rows[5].conflict && !v.rows[0].conflict);
	assert_int_equal(v.culprits.n, 0);
	assert_int_equal(v.world_size, 8);
	assert_int_equal(v.missing, 3);
	assert_string_equal(v.missing_ranks, "4-5, 7");
	assert_string_equal(v.missing_nodes, "2");
	gd_jv_release(&v);
	/* without the conflict: the healthy verdict still lists the unseen */
	j.in.n = 5;
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_HEALTHY);
	assert_int_equal(v.missing, 3);
	assert_int_equal(v.seen_ranks, 5);
	gd_jv_release(&v);
}

static void test_rules_known(void **state)
{
	(void)state;
	assert_true(gd_jv_rule_find("job.rank_stuck")->critical);
	assert_false(gd_jv_rule_find("job.slow_rank")->critical);
	assert_null(gd_jv_rule_find("job.nosuch"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_silent),
		cmocka_unit_test(test_slow_rank),
		cmocka_unit_test(test_slow_node),
		cmocka_unit_test(test_slow_periodic),
		cmocka_unit_test(test_stuck),
		cmocka_unit_test(test_stuck_needs_waiting_others),
		cmocka_unit_test(test_no_rank_stands_out),
		cmocka_unit_test(test_unseen),
		cmocka_unit_test(test_rules_known),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
