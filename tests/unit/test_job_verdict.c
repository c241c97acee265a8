/*
 * test_job_verdict.c - which rank holds a multi-node job back
 * (src/rules/job_verdict.c) on hand-built series: a slow rank, a slow node,
 * a rank slow periodically, stuck ranks (stopped, D state, gone, GPU lost,
 * no progress), every rank waiting (the network), ranks unseen, a rank
 * number on two processes, and healthy jobs that must stay silent; and
 * the weaker cases of issue 26's bed: a rank starved by its loader while
 * the others wait less than half the time (named only on its own evidence:
 * its main thread off a CPU, or a slowing finding few nodes share), a rank
 * slow only lately (named at once), a node whose links are slow, and noisy
 * healthy jobs that must stay silent.
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
	struct gd_jv_link l[16];
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
	j->in.links = j->l;
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
	/* a rank missing from a few scrapes while the others wait, back at the
	 * next: not gone (the bed saw one, tests/e2e/multinode.sh) */
	job_init(&j, STEPS);
	others_wait(&j, 0, STEPS, 3, false);
	for (size_t t = 30; t < 34; t++)
		j.p[0][t] = (struct gd_jv_point){ .wait = NAN, .sm = NAN, .cpu = NAN, .node_up = true };
	gd_jv_judge(&j.in, &v);
	for (size_t k = 0; k < v.culprits.n; k++)
		assert_int_not_equal(culprit(&v, k), 0);
	assert_false(v.rows[0].gone);
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

/* The others wait w at steps [from, to); rank c waits not at all, its main
 * thread in state st (S: off a CPU outside NCCL). */
static void weak_wait(struct job *j, size_t from, size_t to, size_t c, double w, char st)
{
	for (size_t i = 0; i < j->in.n; i++)
		for (size_t t = from; t < to; t++) {
			j->p[i][t].wait = i == c ? 0 : w;
			if (i == c)
				j->p[i][t].state = st;
		}
}

static void test_loader_starved(void **state)
{
	struct job j;
	struct gd_jv v;

	(void)state;
	/* the others wait 20% (not half), rank 3 never and sleeps outside NCCL: named */
	job_init(&j, 10);
	weak_wait(&j, 0, 10, 3, 0.2, 'S');
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_SLOW);
	assert_int_equal(v.culprits.n, 1);
	assert_int_equal(culprit(&v, 0), 3);
	assert_int_equal(v.rows[3].weak_steps, 10);
	assert_int_equal(v.rows[3].slow_steps, 10);
	assert_false(v.slow_link);
	gd_jv_release(&v);
	/* the same, its main thread running (it computes, no evidence it is held): silent */
	job_init(&j, 10);
	weak_wait(&j, 0, 10, 3, 0.2, 'R');
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_HEALTHY);
	assert_int_equal(v.rows[3].slow_steps, 0);
	gd_jv_release(&v);
	/* the others barely wait (5%): nobody is held back, whatever rank 3 does */
	job_init(&j, 10);
	weak_wait(&j, 0, 10, 3, 0.05, 'S');
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_HEALTHY);
	gd_jv_release(&v);
	/* rank 3 waits a little too (10% of the others' 20%: not a quarter): silent */
	job_init(&j, 10);
	weak_wait(&j, 0, 10, 3, 0.2, 'S');
	for (size_t t = 0; t < 10; t++)
		j.p[3][t].wait = 0.1;
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_HEALTHY);
	gd_jv_release(&v);
	/* asleep at every other step (5 of 10): half of its run, as a rank that waits for its loader and computes */
	job_init(&j, 10);
	weak_wait(&j, 0, 10, 3, 0.2, 'R');
	for (size_t t = 0; t < 10; t += 2)
		j.p[3][t].state = 'S';
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_SLOW);
	assert_int_equal(culprit(&v, 0), 3);
	gd_jv_release(&v);
	/* the same, but a third of the others not waiting at all (their median still 20%): not "all the others" */
	job_init(&j, 10);
	weak_wait(&j, 0, 10, 3, 0.2, 'S');
	for (size_t t = 0; t < 10; t++)
		j.p[0][t].wait = j.p[1][t].wait = j.p[6][t].wait = 0;
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_HEALTHY);
	gd_jv_release(&v);
	/* asleep in 2 runs of 2 steps, awake between (4 of 10 asleep, never 3 in a row): silent */
	job_init(&j, 10);
	weak_wait(&j, 0, 10, 3, 0.2, 'R');
	for (size_t t = 0; t < 10; t++)
		j.p[3][t].wait = t == 2 || t == 5 ? 0.2 : 0;
	j.p[3][0].state = j.p[3][1].state = j.p[3][3].state = j.p[3][4].state = 'S';
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_HEALTHY);
	assert_int_equal(v.rows[3].slow_steps, 0);
	gd_jv_release(&v);
	/* asleep only at 4 of 10 steps: not half of them, silent */
	job_init(&j, 10);
	weak_wait(&j, 0, 10, 3, 0.2, 'R');
	for (size_t t = 0; t < 10; t += 3)
		j.p[3][t].state = 'S';
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_HEALTHY);
	assert_int_equal(v.rows[3].slow_steps, 0);
	gd_jv_release(&v);
}

static void test_weak_own_finding(void **state)
{
	struct job j;
	struct gd_jv v;

	(void)state;
	/* the others wait 25%, rank 5 computes (R) on a thermally throttled node: named, the cause cited */
	job_init(&j, 10);
	weak_wait(&j, 0, 10, 5, 0.25, 'R');
	j.f[0] = (struct gd_jv_finding){ "node-2", "gpu.thermal_throttle", "gpu1", false };
	j.in.nfindings = 1;
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_SLOW);
	assert_int_equal(v.culprits.n, 1);
	assert_int_equal(culprit(&v, 0), 5);
	assert_int_equal(v.causes.n, 1);
	gd_jv_release(&v);
	/* a finding that waiting ranks show too (an idle GPU) is no evidence: silent */
	j.f[0] = (struct gd_jv_finding){ "node-2", "gpu.idle_while_job_runs", "gpu1", false };
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_HEALTHY);
	gd_jv_release(&v);
	/* nor a net.* finding (a link slows both its ends) */
	j.f[0] = (struct gd_jv_finding){ "node-2", "net.remote_data_latency", "pid 1005 (rank)", false };
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_HEALTHY);
	gd_jv_release(&v);
	/* a slowing finding on two of the four nodes singles none out: silent */
	j.f[0] = (struct gd_jv_finding){ "node-2", "cpu.cgroup_throttled", "pid 1005", false };
	j.f[1] = (struct gd_jv_finding){ "node-0", "cpu.cgroup_throttled", "pid 1000", false };
	j.in.nfindings = 2;
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_HEALTHY);
	gd_jv_release(&v);
}

static void test_slow_now(void **state)
{
	struct job j;
	struct gd_jv v;

	(void)state;
	/* slow only at the last 3 of 40 steps, the others waiting 62%: named now */
	job_init(&j, STEPS);
	others_wait(&j, STEPS - 3, STEPS, 6, false);
	for (size_t t = STEPS - 3; t < STEPS; t++)
		j.p[6][t].wait = 0.02;
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_SLOW);
	assert_int_equal(v.culprits.n, 1);
	assert_int_equal(culprit(&v, 0), 6);
	assert_int_equal(v.rows[6].slow_steps, 3);
	gd_jv_release(&v);
	/* the last 2 only: not yet */
	job_init(&j, STEPS);
	others_wait(&j, STEPS - 2, STEPS, 6, false);
	for (size_t t = STEPS - 2; t < STEPS; t++)
		j.p[6][t].wait = 0.02;
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_HEALTHY);
	gd_jv_release(&v);
	/* the last 3 on the weaker evidence (the others at 20%, rank 6 asleep): not at once */
	job_init(&j, STEPS);
	weak_wait(&j, STEPS - 3, STEPS, 6, 0.2, 'S');
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_HEALTHY);
	assert_int_equal(v.rows[6].slow_steps, 3);
	gd_jv_release(&v);
}

/* Link k from node a to node b with a round trip of rtt seconds. */
static void link(struct job *j, size_t k, int a, int b, double rtt)
{
	snprintf(j->l[k].node, sizeof j->l[k].node, "node-%d", a);
	if (b >= 0)
		snprintf(j->l[k].peer_node, sizeof j->l[k].peer_node, "node-%d", b);
	else
		j->l[k].peer_node[0] = '\0';
	j->l[k].rtt_s = rtt;
	if (k + 1 > j->in.nlinks)
		j->in.nlinks = k + 1;
}

/* A ring of the 4 nodes, each with a link to the next and to the previous,
 * 0.3 ms round trips. */
static void ring(struct job *j)
{
	for (int x = 0; x < NODES; x++) {
		link(j, (size_t)(2 * x), x, (x + 1) % NODES, 0.0003);
		link(j, (size_t)(2 * x + 1), x, (x + NODES - 1) % NODES, 0.0003);
	}
}

static void test_slow_link(void **state)
{
	struct job j;
	struct gd_jv v;

	(void)state;
	/* node 2's NIC shaped: its link to node 3 and node 1's link to it are slow, every rank waits */
	job_init(&j, 10);
	others_wait(&j, 0, 10, 99, false);
	ring(&j);
	j.l[4].rtt_s = 0.4;   /* node-2 -> node-3 */
	j.l[2].rtt_s = 0.12;  /* node-1 -> node-2 */
	j.f[0] = (struct gd_jv_finding){ "node-2", "net.remote_data_latency", "pid 1004 (rank)", false };
	j.f[1] = (struct gd_jv_finding){ "node-1", "net.remote_data_latency", "pid 1002 (rank)", false };
	j.in.nfindings = 2;
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_SLOW);
	assert_string_equal(v.rule, "job.slow_rank");
	assert_true(v.slow_link);
	assert_int_equal(v.slow_links, 2);
	assert_true(fabs(v.median_link_rtt_s - 0.0003) < 1e-9);
	assert_int_equal(v.culprits.n, 2);
	assert_int_equal(culprit(&v, 0), 4);
	assert_int_equal(culprit(&v, 1), 5);
	assert_true(v.whole_node);
	assert_true(fabs(v.rows[4].link_rtt_s - 0.4) < 1e-9);
	assert_int_equal(v.causes.n, 1);
	assert_string_equal(GD_VEC_AT(v.causes, struct gd_jv_finding, 0)->node, "node-2");
	gd_jv_release(&v);
	/* one slow link: its two ends cannot be told apart, no node named (the network) */
	j.l[2].rtt_s = 0.0003;
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_COLLECTIVE);
	assert_false(v.slow_link);
	gd_jv_release(&v);
	/* two slow links with no node in common: the network, no node named */
	j.l[0].rtt_s = 0.2;   /* node-0 -> node-1 */
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_COLLECTIVE);
	gd_jv_release(&v);
	/* every link slow alike (a far site): none is slow against the median */
	for (size_t k = 0; k < 8; k++)
		j.l[k].rtt_s = 0.04;
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_COLLECTIVE);
	gd_jv_release(&v);
	/* slow links under 10 ms are not slow, however far above the median */
	ring(&j);
	j.l[4].rtt_s = 0.008;
	j.l[2].rtt_s = 0.008;
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_COLLECTIVE);
	gd_jv_release(&v);
	/* a slow link's far end on no node of the job, and the other touching node 2: named by its links */
	ring(&j);
	j.l[4].rtt_s = 0.4;
	link(&j, 8, 2, -1, 0.3);
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_SLOW);
	assert_true(v.slow_link && v.whole_node);
	gd_jv_release(&v);
	/* a rank that does not wait comes first: named by its waiting, not by links */
	others_wait(&j, 0, 10, 1, false);
	for (size_t t = 0; t < 10; t++)
		j.p[1][t].wait = 0.02;
	gd_jv_judge(&j.in, &v);
	assert_int_equal(v.kind, GD_JV_SLOW);
	assert_false(v.slow_link);
	assert_int_equal(culprit(&v, 0), 1);
	gd_jv_release(&v);
}

/* A healthy job on a crowded host, as the bed's healthy trials look with
 * 5 steps in the range: every rank's W is 0 half of the time, else 12.5% or
 * 25% (a few samples per window), its main thread caught asleep at one step
 * in 16 (the bed's healthy ranks: one in 16 to 48), its links at 0.2-2 ms:
 * no culprit in 500 such ranges. */
static void test_noisy_healthy_silent(void **state)
{
	struct job j;
	struct gd_jv v;
	uint32_t x = 12345;

	(void)state;
	for (int trial = 0; trial < 500; trial++) {
		job_init(&j, 5);
		for (size_t i = 0; i < j.in.n; i++)
			for (size_t t = 0; t < 5; t++) {
				x = x * 1103515245u + 12345u;
				j.p[i][t].wait = (x >> 16) % 4 < 2 ? 0 : (double)((x >> 16) % 4 - 1) * 0.125;
				x = x * 1103515245u + 12345u;
				j.p[i][t].state = (x >> 16) % 16 == 0 ? 'S' : 'R';
			}
		ring(&j);
		for (size_t k = 0; k < 8; k++) {
			x = x * 1103515245u + 12345u;
			j.l[k].rtt_s = 0.0002 + (double)((x >> 16) % 100) * 0.00002;
		}
		gd_jv_judge(&j.in, &v);
		assert_int_equal(v.culprits.n, 0);
		gd_jv_release(&v);
	}
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
		cmocka_unit_test(test_loader_starved),
		cmocka_unit_test(test_weak_own_finding),
		cmocka_unit_test(test_slow_now),
		cmocka_unit_test(test_slow_link),
		cmocka_unit_test(test_noisy_healthy_silent),
		cmocka_unit_test(test_rules_known),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
