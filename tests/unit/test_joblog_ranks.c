/*
 * test_joblog_ranks.c - the ranks' logs read per rank (src/offline/joblog.c:
 * launchers' prefixes, the watchdog's counts, the rank of a file's name) and
 * the verdict across them (src/rules/rule_job_ranks.c: job.rank_stuck,
 * job.collective_mismatch, job.collective_timeout's "every rank at -1"),
 * with the healthy cases that stay silent and malformed input.
 */
#include "testutil.h"

#include "offline/offline.h"

#include <stdio.h>

static const struct gd_job_log *nth(const struct gd_snapshot *s, const char *kind, size_t n)
{
	const struct gd_job_log *r = jl_kind(s, kind, n);

	if (!r)
		fail_msg("no %s record #%zu", kind, n);
	return r;
}

/* Loads each (name, text) pair as check --from does, into one snapshot. */
struct file {
	const char *name, *text;
};

static void load(struct gd_series *ser, const struct file *f, size_t n)
{
	struct gd_ofl o;
	struct gd_err err;

	gd_ofl_init(&o, 0);
	gd_series_init(ser);
	for (size_t i = 0; i < n; i++) {
		gd_err_clear(&err);
		assert_true(gd_ofl_load_buf(&o, ser, f[i].text, strlen(f[i].text), f[i].name, &err) >= 0);
	}
	gd_ofl_finish(&o, ser);
	assert_int_equal(ser->n, 1);
	gd_ofl_release(&o);
}

/* The verdict of rule id over the files; its findings in out. */
static enum gd_verdict verdict(const char *id, const struct file *f, size_t n, struct gd_findings *out)
{
	struct gd_series ser;
	enum gd_verdict v;

	load(&ser, f, n);
	gd_findings_release(out);
	gd_findings_init(out);
	v = run_rule2(id, &ser.items[0], NULL, NULL, out);
	gd_series_release(&ser);
	return v;
}

#define TMO(r, n, e, c) \
	"[rank" #r "]:[E1207 10:00:00.000 ProcessGroupNCCL.cpp:1537] [PG 0 Rank " #r "] Timeout at NCCL work: " #n \
	", last enqueued NCCL work: " #e ", last completed NCCL work: " #c ".\n"
#define DUMP(r, e, c) \
	"[rank" #r "]:[E1207 10:00:01.000 ProcessGroupNCCL.cpp:1890] [PG 0 Rank " #r "] Received a dump signal due to a " \
	"collective timeout from  rank 0 and we will try our best to dump the debug info. Last enqueued NCCL work: " #e \
	", last completed NCCL work: " #c ".\n"
#define WD(r, seq, op, numel) \
	"[rank" #r "]:[E1207 10:00:00.000 ProcessGroupNCCL.cpp:616] [Rank " #r "] Watchdog caught collective operation " \
	"timeout: WorkNCCL(SeqNum=" #seq ", OpType=" op ", NumelIn=" #numel ", NumelOut=" #numel \
	", Timeout(ms)=600000) ran for 600047 milliseconds before timing out.\n"

static void test_prefixes(void **state)
{
	static const char t[] =
		"3: [E1207 10:00:00.000 ProcessGroupNCCL.cpp:1537] [PG 0 Rank 0] Timeout at NCCL work: 5, last enqueued NCCL "
		"work: 5, last completed NCCL work: 4.\n"
		"  12: [rank7]:[E1207 ProcessGroupNCCL.cpp:1537] [PG 0 Rank 7] Timeout at NCCL work: 5, last enqueued NCCL "
		"work: 6, last completed NCCL work: 4.\n"
		"[1,9]<stderr>:[E1207 ProcessGroupNCCL.cpp:1537] [PG 1 Rank 2] Timeout at NCCL work: 5, last enqueued NCCL "
		"work: 6, last completed NCCL work: 4.\n"
		"[alphagpu12:5]:[rank5]:[E213 ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank 5] Exception "
		"(either an error or timeout) detected by watchdog at work: 3744, last enqueued NCCL work: 3749, last "
		"completed NCCL work: 3743.\n"
		" 2025-02-18 12:54 [E218 ProcessGroupNCCL.cpp:1795] [PG ID 11 PG GUID 119 Rank 1] Exception (either an "
		"error or timeout) detected by watchdog at work: 216, last enqueued NCCL work: 220, last completed NCCL work: "
		"215.\n"
		"[E1207 ProcessGroupNCCL.cpp:2268] failure detected by watchdog at work sequence id: 2847 PG status: last "
		"enqueued work: -1, last completed work: -1\n"
		"[rank2]:[E1207 ProcessGroupNCCL.cpp:1890] [PG 0 Rank 2] Received a dump signal due to a collective timeout "
		"from this local rank and we will try our best to dump the debug info. Last enqueued NCCL work: 9, last "
		"completed NCCL work: 9.\n";
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_job_log *r;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_joblog, t, &s, &err), 0);
	/* srun --label's "3: " over the line's [PG 0 Rank 0] */
	r = nth(&s, "collective_progress", 0);
	assert_int_equal(r->rank.v, 3);
	assert_string_equal(r->rank_from, "prefix");
	assert_string_equal(r->pg, "PG 0");
	assert_int_equal(r->seq.v, 5);
	assert_true(r->last_enqueued.v == 5 && r->last_completed.v == 4);
	/* torchrun's [rank7]: inside srun's label: the global rank */
	assert_int_equal(nth(&s, "collective_progress", 1)->rank.v, 7);
	/* Open MPI's [job,rank]<stderr>: over the group's rank 2 */
	r = nth(&s, "collective_progress", 2);
	assert_int_equal(r->rank.v, 9);
	assert_string_equal(r->pg, "PG 1");
	/* a launcher's [host:local]: names the host, torchrun's the rank */
	r = nth(&s, "collective_progress", 3);
	assert_int_equal(r->rank.v, 5);
	assert_string_equal(r->host, "alphagpu12");
	assert_string_equal(r->pg, "PG ID 0 PG GUID 0(default_pg)");
	assert_true(r->last_enqueued.v == 3749 && r->last_completed.v == 3743 && r->seq.v == 3744);
	/* a timestamp is not srun's label: the line's own rank */
	r = nth(&s, "collective_progress", 4);
	assert_int_equal(r->rank.v, 1);
	assert_string_equal(r->rank_from, "line");
	/* no rank anywhere; -1 is kept as PyTorch's "none ever" */
	r = nth(&s, "collective_progress", 5);
	assert_false(r->rank.ok);
	assert_string_equal(r->rank_from, "");
	assert_true(r->last_enqueued.ok && r->last_enqueued.v == -1 && r->last_completed.v == -1);
	assert_int_equal(r->seq.v, 2847);
	/* "from this local rank": its own */
	r = nth(&s, "collective_progress", 6);
	assert_int_equal(r->peer_rank.v, 2);
	assert_false(r->seq.ok);
	gd_snapshot_release(&s);
}

static void test_watchdog_numbers(void **state)
{
	static const char coalesced[] = WD(1, 1, "COALESCED", 18446744073709551615);
	static const char over[] = WD(1, 1, "ALLREDUCE", 18446744073709551616);
	static const char absurd[] = "ok line\n[rank1]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 1] Timeout at NCCL work: "
				     "5, last enqueued NCCL work: 99999999999999999999999, last completed NCCL work: -7.\n";
	static const char cut[] = "[rank1]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 1] Timeout at NCCL work: 5, last "
				  "enqueued NCCL work: ";
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_job_log *r;

	(void)state;
	gd_snapshot_init(&s);
	/* PyTorch's -1 printed as 2^64 - 1: absent, no error */
	assert_int_equal(parse_lit(gd_parse_joblog, coalesced, &s, &err), 0);
	r = nth(&s, "collective_timeout", 0);
	assert_false(r->numel_in.ok);
	assert_string_equal(r->what, "COALESCED");
	gd_snapshot_clear(&s);
	/* past 2^64 - 1: absent, and the part is partial, naming the line */
	assert_int_equal(parse_lit(gd_parse_joblog, over, &s, &err), 1);
	assert_contains(err.msg, "line 1");
	assert_false(nth(&s, "collective_timeout", 0)->numel_in.ok);
	gd_snapshot_clear(&s);
	/* a count past 2^53, a negative other than -1: left out, the line named */
	assert_int_equal(parse_lit(gd_parse_joblog, absurd, &s, &err), 1);
	assert_contains(err.msg, "line 2");
	assert_contains(err.msg, "out of range");
	r = nth(&s, "collective_progress", 0);
	assert_false(r->last_enqueued.ok);
	assert_false(r->last_completed.ok);
	assert_int_equal(r->seq.v, 5);
	gd_snapshot_clear(&s);
	/* a line cut after its label: no number, no count, no error */
	assert_int_equal(parse_lit(gd_parse_joblog, cut, &s, &err), 0);
	assert_false(nth(&s, "collective_progress", 0)->last_enqueued.ok);
	gd_snapshot_release(&s);
}

static void test_rank_of_name(void **state)
{
	uint64_t r = 0;

	(void)state;
	assert_true(gd_joblog_rank_of_name("rank3.log", &r) && r == 3);
	assert_true(gd_joblog_rank_of_name("/logs/train_rank_12.txt", &r) && r == 12);
	assert_true(gd_joblog_rank_of_name("out.RANK-7", &r) && r == 7);
	assert_false(gd_joblog_rank_of_name("/logs/rank9/out.log", &r)); /* the last component only */
	assert_false(gd_joblog_rank_of_name("frank.log", &r));
	assert_false(gd_joblog_rank_of_name("rank99999999999.log", &r)); /* past 2^32 */
	assert_false(gd_joblog_rank_of_name("", &r));
}

static void test_stuck(void **state)
{
	/* per-rank files; rank 2's line names no rank: its file's name does */
	const struct file f[] = {
		{ "rank0.log", "step 1 loss=2.0\n" WD(0, 42, "ALLREDUCE", 8) TMO(0, 42, 43, 41) },
		{ "rank1.log", TMO(1, 42, 43, 41) },
		{ "logs/rank2.log", "[E ProcessGroupNCCL.cpp:1890] Received a dump signal due to a collective timeout from "
				    "rank 0. Last enqueued NCCL work: 41, last completed NCCL work: 41.\n" },
		{ "rank3.log", TMO(3, 42, 44, 41) },
	};
	struct gd_findings out;
	const struct gd_finding *x;

	(void)state;
	gd_findings_init(&out);
	assert_int_equal(verdict("job.rank_stuck", f, 4, &out), GD_VERDICT_FIRED);
	assert_int_equal(out.items.n, 1);
	x = FINDING(out, 0);
	assert_int_equal(x->severity, GD_SEV_CRITICAL);
	assert_string_equal(x->subject, "rank 2");
	assert_true(ev_get(x, "last_enqueued")->value.v == 41 && ev_get(x, "collective")->value.v == 42);
	assert_true(ev_get(x, "ranks_waiting")->value.v == 3);
	/* every rank it used, file:line */
	assert_contains(x->summary, "logs/rank2.log:1");
	assert_contains(x->summary, "rank0.log:3");
	assert_contains(x->summary, "rank1.log:1");
	assert_contains(x->summary, "rank3.log:1");
	assert_contains(x->summary, "43 to 44");
	assert_string_equal(ev_get(x, "log_line")->source, "logs/rank2.log:1");
	assert_int_equal(verdict("job.collective_mismatch", f, 4, &out), GD_VERDICT_CLEAR);

	/* two ranks apart: the lower one */
	assert_int_equal(verdict("job.rank_stuck", (const struct file[]){ { "a.log", TMO(0, 7, 7, 6) DUMP(1, 6, 6) } }, 1,
				 &out),
			 GD_VERDICT_FIRED);
	assert_string_equal(FINDING(out, 0)->subject, "rank 1");
	gd_findings_release(&out);
}

static void test_unnamed_log_and_host(void **state)
{
	const struct file f[] = {
		{ "worker.log", "Received a dump signal due to a collective timeout from  rank 0. Last enqueued NCCL work: "
				"99, last completed NCCL work: 99.\n" },
		{ "combined.out", "0: node-a:11:11 [0] NCCL INFO comm 0x1 rank 0 nranks 3 cudaDev 0 - Init COMPLETE\n"
				  "1: node-b:12:12 [0] NCCL INFO comm 0x2 rank 1 nranks 3 cudaDev 0 - Init COMPLETE\n"
				  "0: Timeout at NCCL work: 100, last enqueued NCCL work: 100, last completed NCCL work: 99.\n"
				  "1: Timeout at NCCL work: 100, last enqueued NCCL work: 100, last completed NCCL work: 99.\n" },
	};
	struct gd_findings out;

	(void)state;
	gd_findings_init(&out);
	assert_int_equal(verdict("job.rank_stuck", f, 2, &out), GD_VERDICT_FIRED);
	assert_string_equal(FINDING(out, 0)->subject, "worker.log (one rank's log)");
	assert_contains(FINDING(out, 0)->summary, "rank 1 (node-b) combined.out:4");
	assert_contains(FINDING(out, 0)->summary, "rank 0 (node-a) combined.out:3");
	gd_findings_release(&out);
}

static void test_mismatch(void **state)
{
	struct gd_findings out;
	const struct gd_finding *x;
	/* one rank alone enqueued work 17 */
	const struct file extra[] = { { "mpi.log", "[1,1]<stderr>:[PG 0 Rank 1] Timeout at NCCL work: 17, last enqueued NCCL "
						  "work: 17, last completed NCCL work: 16.\n" DUMP(0, 16, 16) DUMP(2, 16, 16)
						  DUMP(3, 16, 16) } };
	/* another op at the same SeqNum */
	const struct file op[] = { { "t.log", WD(0, 9, "ALLREDUCE", 64) WD(1, 9, "ALLREDUCE", 64) WD(2, 9, "ALLREDUCE", 64)
						      WD(3, 9, "BROADCAST", 64) TMO(0, 9, 9, 8) TMO(3, 9, 9, 8) } };
	/* another size of the same op */
	const struct file size[] = { { "t.log", WD(0, 9, "ALLREDUCE", 64) WD(1, 9, "ALLREDUCE", 64)
							WD(2, 9, "ALLREDUCE", 32) } };
	/* all-to-all sizes may differ by rank: no finding */
	const struct file a2a[] = { { "t.log", WD(0, 9, "ALLTOALL_BASE", 64) WD(1, 9, "ALLTOALL_BASE", 32) } };

	(void)state;
	gd_findings_init(&out);
	assert_int_equal(verdict("job.collective_mismatch", extra, 1, &out), GD_VERDICT_FIRED);
	x = FINDING(out, 0);
	assert_string_equal(x->subject, "rank 1");
	assert_true(ev_get(x, "last_enqueued")->value.v == 17 && ev_get(x, "others_last_enqueued")->value.v == 16);
	assert_contains(x->summary, "mpi.log:1");
	assert_contains(x->summary, "mpi.log:4");
	/* the one ahead is not a stuck rank */
	assert_int_equal(verdict("job.rank_stuck", extra, 1, &out), GD_VERDICT_CLEAR);

	/* the time-out does not say "none stands out" when the ops differ */
	assert_int_equal(verdict("job.collective_timeout", op, 1, &out), GD_VERDICT_FIRED);
	for (size_t i = 0; i < out.items.n; i++)
		assert_null(strstr(FINDING(out, i)->summary, "none stands out"));
	assert_int_equal(verdict("job.collective_mismatch", op, 1, &out), GD_VERDICT_FIRED);
	assert_int_equal(out.items.n, 1);
	assert_string_equal(FINDING(out, 0)->subject, "rank 3");
	assert_string_equal(ev_get(FINDING(out, 0), "op")->text, "BROADCAST");
	assert_contains(FINDING(out, 0)->summary, "where the other ranks ran ALLREDUCE");

	assert_int_equal(verdict("job.collective_mismatch", size, 1, &out), GD_VERDICT_FIRED);
	assert_string_equal(FINDING(out, 0)->subject, "rank 2");
	assert_true(ev_get(FINDING(out, 0), "numel_in")->value.v == 32);
	assert_true(ev_get(FINDING(out, 0), "others_numel_in")->value.v == 64);

	assert_int_equal(verdict("job.collective_mismatch", a2a, 1, &out), GD_VERDICT_CLEAR);
	gd_findings_release(&out);
}

static void test_frozen_and_healthy(void **state)
{
	const struct file frozen[] = { { "rank0.log", DUMP(0, -1, -1) }, { "rank1.log", DUMP(1, -1, -1) } };
	const struct file reached[] = { { "t.log", WD(0, 5, "ALLREDUCE", 1) TMO(0, 5, 5, 4) DUMP(1, 5, 4) DUMP(2, 5, 4)
							   DUMP(3, 5, 4) } };
	const struct file healthy[] = { { "rank0.log", "[rank0]:{'loss': 2.31, 'epoch': 0.1}\n" },
					{ "rank1.log", "[rank1]:{'loss': 2.30, 'epoch': 0.1}\n" } };
	/* a group that completed all it enqueued has no open collective */
	const struct file idle[] = { { "t.log", DUMP(0, 233659, 233659) DUMP(1, 233659, 233659) } };
	static const char *const ids[] = { "job.rank_stuck", "job.collective_mismatch", "job.collective_timeout" };
	struct gd_findings out;
	const struct gd_finding *x;

	(void)state;
	gd_findings_init(&out);
	assert_int_equal(verdict("job.collective_timeout", frozen, 2, &out), GD_VERDICT_FIRED);
	x = FINDING(out, 0);
	assert_string_equal(x->subject, "every rank");
	assert_contains(x->summary, "not on the network");
	assert_contains(x->summary, "rank1.log:1");
	assert_true(ev_get(x, "ranks_seen")->value.v == 2);
	assert_int_equal(verdict("job.rank_stuck", frozen, 2, &out), GD_VERDICT_CLEAR);

	/* one rank timed out, the others reached the same work: no rank stands
	 * out, only the time-out is said */
	assert_int_equal(verdict("job.rank_stuck", reached, 1, &out), GD_VERDICT_CLEAR);
	assert_int_equal(verdict("job.collective_mismatch", reached, 1, &out), GD_VERDICT_CLEAR);
	assert_int_equal(verdict("job.collective_timeout", reached, 1, &out), GD_VERDICT_FIRED);
	assert_int_equal(out.items.n, 1);
	assert_string_equal(FINDING(out, 0)->subject, "rank 0");
	assert_true(ev_get(FINDING(out, 0), "ranks_reached")->value.v == 4);
	assert_contains(FINDING(out, 0)->summary, "none stands out");

	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(verdict(ids[i], healthy, 2, &out), GD_VERDICT_CLEAR);
		assert_int_equal(verdict(ids[i], idle, 1, &out), GD_VERDICT_CLEAR);
	}
	gd_findings_release(&out);
}

static void test_conflict(void **state)
{
	/* rank 1 in two files (a restarted job): neither is used */
	const struct file f[] = { { "run1/rank1.log", TMO(1, 20, 20, 19) },
				  { "run2/rank1.log", DUMP(1, 3, 3) },
				  { "run2/rank0.log", TMO(0, 4, 4, 3) } };
	/* ... and when other ranks still give a verdict, it names the conflict */
	const struct file g[] = { { "a.log", TMO(0, 8, 8, 7) TMO(2, 8, 9, 7) DUMP(3, 7, 7) },
				  { "b.log", DUMP(0, 1, 1) } };
	struct gd_findings out;

	(void)state;
	gd_findings_init(&out);
	assert_int_equal(verdict("job.rank_stuck", f, 3, &out), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&out), "rank 1: run1/rank1.log:1, run2/rank1.log:1");
	assert_contains(unknown_reason(&out), "not merged");
	assert_int_equal(verdict("job.collective_mismatch", f, 3, &out), GD_VERDICT_UNKNOWN);

	assert_int_equal(verdict("job.rank_stuck", g, 2, &out), GD_VERDICT_FIRED);
	assert_string_equal(FINDING(out, 0)->subject, "rank 3");
	assert_string_equal(ev_get(FINDING(out, 0), "conflict")->text, "rank 0: a.log:1, b.log:1");
	gd_findings_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefixes),   cmocka_unit_test(test_watchdog_numbers),
		cmocka_unit_test(test_rank_of_name), cmocka_unit_test(test_stuck),
		cmocka_unit_test(test_unnamed_log_and_host), cmocka_unit_test(test_mismatch),
		cmocka_unit_test(test_frozen_and_healthy), cmocka_unit_test(test_conflict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
