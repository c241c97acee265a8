/*
 * test_joblog.c - the job's own log (src/offline/joblog.c) and what it
 * proves (src/rules/rule_job.c): each message kind with its numbers, ranks
 * and hosts; malformed input (truncation, CRLF, NUL bytes, a 1 MB line,
 * 50,000 lines); the loader's file:line; the rules and their subjects.
 */
#include "testutil.h"

#include "offline/offline.h"

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const struct gd_job_log *rec_of(const struct gd_snapshot *s, const char *kind, size_t nth)
{
	GD_VEC_EACH(s->job_log, const struct gd_job_log, r)
		if (strcmp(r->kind, kind) == 0 && nth-- == 0)
			return r;
	fail_msg("no %s record", kind);
	return NULL;
}

static size_t count_of(const struct gd_snapshot *s, const char *kind)
{
	size_t n = 0;

	GD_VEC_EACH(s->job_log, const struct gd_job_log, r)
		n += strcmp(r->kind, kind) == 0;
	return n;
}

static void test_oom_forms(void **state)
{
	/* the older form, the newer form (with the "capacty" typo of some
	 * releases) and the bare CUDA error */
	const char *t =
		"RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 1; 15.78 GiB total capacity; 14.56 GiB "
		"already allocated; 3.44 MiB free; 14.71 GiB reserved in total by PyTorch)\n"
		"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.70 GiB. GPU 0 has a total capacty of "
		"6.00 GiB of which 0 bytes is free. Of the allocated memory 2.93 GiB is allocated by PyTorch, and 2.30 GiB "
		"is reserved by PyTorch but unallocated.\n"
		"RuntimeError: CUDA error: out of memory\n";
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_job_log *r;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_joblog, t, &s, &err), 0);
	assert_int_equal(count_of(&s, "cuda_oom"), 3);
	r = rec_of(&s, "cuda_oom", 0);
	assert_int_equal(r->line.v, 1);
	assert_int_equal(r->gpu.v, 1);
	assert_int_equal(r->tried_bytes.v, 20ull << 20);
	assert_int_equal(r->total_bytes.v, (uint64_t)(15.78 * 1073741824.0 + 0.5));
	assert_int_equal(r->allocated_bytes.v, (uint64_t)(14.56 * 1073741824.0 + 0.5));
	assert_int_equal(r->free_bytes.v, (uint64_t)(3.44 * 1048576.0 + 0.5));
	r = rec_of(&s, "cuda_oom", 1);
	assert_int_equal(r->line.v, 2);
	assert_int_equal(r->gpu.v, 0);
	assert_int_equal(r->total_bytes.v, 6ull << 30);
	assert_true(r->free_bytes.ok);
	assert_int_equal(r->free_bytes.v, 0);
	assert_int_equal(r->allocated_bytes.v, (uint64_t)(2.93 * 1073741824.0 + 0.5));
	r = rec_of(&s, "cuda_oom", 2);
	assert_false(r->tried_bytes.ok);
	assert_false(r->total_bytes.ok);
	gd_snapshot_release(&s);
}

static void test_kinds(void **state)
{
	const char *t =
		"[rank3]:[E1206 18:44:12.715298746 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught collective operation "
		"timeout: WorkNCCL(SeqNum=7753, OpType=_REDUCE_SCATTER_BASE, NumelIn=5, NumelOut=6, Timeout(ms)=600000) ran "
		"for 600061 milliseconds before timing out.\n"
		"[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog caught collective operation timeout: "
		"WorkNCCL(SeqNum=469508, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1802212 milliseconds before timing out.\n"
		"RuntimeError: DataLoader worker (pid 4024) is killed by signal: Killed.\n"
		"RuntimeError: DataLoader worker (pid(s) 3216, 3217) exited unexpectedly\n"
		"ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).\n"
		"RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
		"RuntimeError: CUDA error: device-side assert triggered\n"
		"CUDA error: misaligned address\n"
		"RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update\n"
		"RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable\n"
		"RuntimeError: No CUDA GPUs are available\n"
		"[rank4]:[E1016 03:31:38.929 ProcessGroupNCCL.cpp:627] [Rank 4] To avoid data inconsistency, we are taking "
		"the entire process down.\n"
		"Epoch 3: loss=0.213 lr=3e-4\n";
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_job_log *r;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_joblog, t, &s, &err), 0);
	assert_int_equal(s.job_log.n, 12); /* the loss line is noise */
	r = rec_of(&s, "collective_timeout", 0);
	assert_int_equal(r->rank.v, 3);
	assert_int_equal(r->seq.v, 7753);
	assert_string_equal(r->what, "_REDUCE_SCATTER_BASE");
	NEAR(r->timeout_s.v, 600, 1e-9);
	NEAR(r->ran_s.v, 600.061, 1e-9);
	r = rec_of(&s, "collective_timeout", 1);
	assert_int_equal(r->rank.v, 1);
	assert_string_equal(r->what, "ALLREDUCE");
	r = rec_of(&s, "loader_killed", 0);
	assert_int_equal(r->pid.v, 4024);
	assert_string_equal(r->what, "Killed");
	r = rec_of(&s, "loader_killed", 1);
	assert_int_equal(r->pid.v, 3216);
	assert_string_equal(r->what, "exited unexpectedly");
	assert_int_equal(count_of(&s, "shm_exhausted"), 1);
	assert_int_equal(count_of(&s, "ecc_uncorrectable"), 1);
	assert_string_equal(rec_of(&s, "app_fault", 0)->what, "device_assert");
	assert_string_equal(rec_of(&s, "app_fault", 1)->what, "misaligned_address");
	assert_int_equal(rec_of(&s, "cuda_too_new", 0)->value.v, 11040);
	assert_int_equal(count_of(&s, "devices_busy"), 1);
	assert_int_equal(count_of(&s, "no_gpus"), 1);
	assert_int_equal(rec_of(&s, "job_died", 0)->rank.v, 4);
	gd_snapshot_release(&s);
}

static void test_nccl(void **state)
{
	const char *t =
		"gpu01:124172:124172 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
		"gpu01:124172:124172 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
		"gpu01:124172:124172 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
		"gpu01:124172:124172 [0] NCCL INFO Using network Socket\n"
		"gpu02:20868:20868 [0] NCCL INFO Using network Socket\n"
		"gpu02:20868:20914 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/Socket/0\n"
		"gpu02:20868:20914 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [receive] via NET/Socket/0\n"
		"gpu02:20868:20914 [0] NCCL INFO comm 0x7fea94008fb0 rank 1 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE\n"
		"bigo:1884:2298 [3] NCCL INFO comm 0x5645 rank 2 nRanks 3 nNodes 3 localRanks 1 localRank 0 MNNVL 0\n";
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_job_log *r;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_joblog, t, &s, &err), 0);
	r = rec_of(&s, "nccl_ib_disable", 0);
	assert_string_equal(r->host, "gpu01");
	assert_int_equal(r->pid.v, 124172);
	assert_int_equal(r->value.v, 1);
	assert_int_equal(count_of(&s, "nccl_net"), 2); /* one per host */
	assert_string_equal(rec_of(&s, "nccl_net", 1)->host, "gpu02");
	assert_string_equal(rec_of(&s, "nccl_net", 0)->what, "Socket");
	assert_int_equal(count_of(&s, "nccl_channel"), 1); /* repeated lines: one record */
	assert_string_equal(rec_of(&s, "nccl_channel", 0)->what, "Socket");
	r = rec_of(&s, "nccl_comm", 0);
	assert_int_equal(r->rank.v, 1);
	assert_int_equal(r->nranks.v, 2);
	assert_false(r->nnodes.ok);
	r = rec_of(&s, "nccl_comm", 1);
	assert_int_equal(r->nnodes.v, 3);
	assert_int_equal(r->gpu.v, 3);
	assert_string_equal(r->host, "bigo");
	assert_int_equal(count_of(&s, "nccl_host"), 1); /* the bootstrap line of gpu01 */
	gd_snapshot_release(&s);
}

/* Malformed input: nothing known, truncation, CRLF, NUL bytes inside a
 * line, a 1 MB line, 50,000 lines. */
static void test_malformed(void **state)
{
	static const char crlf[] = "loss 1.0\r\nRuntimeError: CUDA error: an illegal memory access was encountered\r\n";
	static const char nul[] = "x\0y CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 8.00 GiB total capacity;\0 "
				  "1.0 GiB free;)\n";
	static const char cut[] = "CUDA out of memory. Tried to allocate 2.0";
	struct gd_snapshot s;
	struct gd_err err;
	size_t big = 1u << 20, n;
	char *buf;

	(void)state;
	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_joblog, "Epoch 1 loss 2.3\nall good\n", &s, &err) < 0);
	assert_contains(err.msg, "no line of a job's log");
	assert_int_equal(s.job_log.n, 0);
	assert_true(parse_lit(gd_parse_joblog, "", &s, &err) < 0);
	/* a training loop's progress is a job's log with nothing to keep */
	assert_int_equal(parse_lit(gd_parse_joblog, "{'loss': 2.31, 'learning_rate': 1e-05, 'epoch': 0.1}\n", &s, &err), 0);
	assert_int_equal(s.job_log.n, 0);

	assert_int_equal(parse_lit(gd_parse_joblog, crlf, &s, &err), 0);
	assert_int_equal(rec_of(&s, "app_fault", 0)->line.v, 2);
	assert_null(strchr(rec_of(&s, "app_fault", 0)->text, '\r'));
	gd_snapshot_clear(&s);

	gd_err_clear(&err);
	assert_int_equal(gd_parse_joblog(nul, sizeof nul - 1, &s, &err), 0);
	assert_int_equal(rec_of(&s, "cuda_oom", 0)->total_bytes.v, 8ull << 30);
	assert_non_null(strstr(rec_of(&s, "cuda_oom", 0)->text, "y CUDA")); /* the NUL became a blank */
	gd_snapshot_clear(&s);

	assert_int_equal(parse_lit(gd_parse_joblog, cut, &s, &err), 0);
	assert_false(rec_of(&s, "cuda_oom", 0)->tried_bytes.ok); /* "2.0" with no unit: not a size */
	gd_snapshot_clear(&s);

	/* a 1 MB line with the message at its end: found, the excerpt cut */
	buf = malloc(big + 128);
	assert_non_null(buf);
	memset(buf, 'a', big);
	n = big + (size_t)snprintf(buf + big, 128, " RuntimeError: No CUDA GPUs are available\n");
	gd_err_clear(&err);
	assert_int_equal(gd_parse_joblog(buf, n, &s, &err), 0);
	assert_int_equal(s.job_log.n, 1);
	assert_string_equal(rec_of(&s, "no_gpus", 0)->text, "No CUDA GPUs are available");
	free(buf);
	gd_snapshot_clear(&s);

	/* 50,000 lines of watchdog messages: the first 4096 kept, the rest
	 * counted (partial, naming the last line) */
	{
		static const char line[] = "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, "
					   "OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600001 milliseconds before timing out.\n";
		size_t ll = sizeof line - 1, lines = 50000;

		buf = malloc(ll * lines);
		assert_non_null(buf);
		for (size_t i = 0; i < lines; i++)
			memcpy(buf + i * ll, line, ll);
		gd_err_clear(&err);
		assert_int_equal(gd_parse_joblog(buf, ll * lines, &s, &err), 1);
		assert_int_equal(s.job_log.n, 4096);
		assert_contains(err.msg, "line 50000");
		assert_int_equal(rec_of(&s, "collective_timeout", 4095)->line.v, 4096);
		free(buf);
	}
	gd_snapshot_release(&s);
}

/* check --from: the kind from the content, file:line of each record (also
 * after a prompt splits the paste), a traceback among kernel-log lines. */
static void test_load(void **state)
{
	const char *paste = "$ python train.py\n"
			    "step 10 loss 2.1\n"
			    "RuntimeError: CUDA error: an illegal memory access was encountered\n"
			    "$ dmesg | tail -3\n"
			    "[ 5023.456789] NVRM: Xid (PCI:0000:5d:00): 13, pid=4242, name=python, Graphics Exception\n"
			    "[ 5023.456790] RuntimeError: CUDA error: uncorrectable ECC error encountered\n";
	struct gd_ofl o;
	struct gd_series ser;
	struct gd_err err;
	const struct gd_snapshot *s;

	(void)state;
	assert_int_equal(gd_ofl_detect("epoch 1\nNo CUDA GPUs are available\n", 35), GD_OFL_JOBLOG);
	gd_ofl_init(&o, 0);
	gd_series_init(&ser);
	gd_err_clear(&err);
	assert_int_equal(gd_ofl_load_buf(&o, &ser, paste, strlen(paste), "ticket.txt", &err), 0);
	gd_ofl_finish(&o, &ser);
	assert_int_equal(ser.n, 1);
	s = &ser.items[0];
	assert_int_equal(s->job_log.n, 2);
	assert_string_equal(rec_of(s, "app_fault", 0)->file, "ticket.txt");
	assert_int_equal(rec_of(s, "app_fault", 0)->line.v, 3);
	assert_int_equal(rec_of(s, "ecc_uncorrectable", 0)->line.v, 6);
	assert_true(s->klog.n >= 1); /* the kernel log was read too */
	gd_series_release(&ser);
	gd_ofl_release(&o);
}

/* A snapshot as check --from gives it: a job-log source and these records. */
static struct gd_job_log *add(struct gd_snapshot *s, const char *kind, uint64_t line)
{
	struct gd_job_log *r = GD_PUSH(s, job_log, struct gd_job_log);
	struct gd_source *src;
	bool have = false;

	memset(r, 0, sizeof *r);
	GD_STRSET(r->kind, kind);
	GD_STRSET(r->file, "train.log");
	gd_u64_set(&r->line, line);
	snprintf(r->text, sizeof r->text, "line %llu", (unsigned long long)line);
	GD_VEC_EACH(s->sources, struct gd_source, x)
		have = have || strcmp(x->name, "offline:job-log") == 0;
	if (!have) {
		src = GD_PUSH(s, sources, struct gd_source);
		GD_STRSET(src->name, "offline:job-log");
		GD_STRSET(src->status, "ok");
	}
	return r;
}

static void test_rules_fault_timeout(void **state)
{
	struct gd_snapshot s;
	struct gd_findings out;
	const struct gd_finding *f;
	struct gd_job_log *r;

	(void)state;
	gd_snapshot_init(&s);
	gd_findings_init(&out);
	/* no job log: not evaluated, and says how to give one */
	assert_int_equal(run_rule2("job.app_fault", &s, NULL, NULL, &out), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&out), "check --from train.log");
	gd_findings_release(&out);

	r = add(&s, "app_fault", 120);
	GD_STRSET(r->what, "illegal_address");
	gd_u64_set(&r->rank, 3);
	r = add(&s, "app_fault", 130);
	GD_STRSET(r->what, "illegal_address");
	gd_u64_set(&r->rank, 3);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("job.app_fault", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	f = one_finding(&out);
	assert_int_equal(f->severity, GD_SEV_WARNING);
	assert_string_equal(f->subject, "rank 3");
	assert_contains(f->summary, "not a hardware fault");
	assert_float_equal(ev_get(f, "messages")->value.v, 2, 1e-9);
	assert_float_equal(ev_get(f, "log_line")->value.v, 120, 1e-9);
	assert_string_equal(ev_get(f, "log_line")->source, "train.log:120");
	gd_findings_release(&out);

	/* timeouts: grouped by collective, ranks in the subject; the job's
	 * death makes it critical */
	for (uint64_t rank = 0; rank < 3; rank++) {
		r = add(&s, "collective_timeout", 200 + rank);
		GD_STRSET(r->what, "ALLREDUCE");
		gd_u64_set(&r->seq, 1580);
		gd_u64_set(&r->rank, rank == 2 ? 4 : rank);
		gd_f64_set(&r->timeout_s, 600);
		gd_f64_set(&r->ran_s, 600.06);
	}
	gd_findings_init(&out);
	assert_int_equal(run_rule2("job.collective_timeout", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	f = one_finding(&out);
	assert_int_equal(f->severity, GD_SEV_WARNING);
	assert_string_equal(f->subject, "ranks 0, 1, 4");
	assert_ev(f, "timeout_s", 600, NAN);
	assert_float_equal(ev_get(f, "messages")->value.v, 3, 1e-9);
	gd_findings_release(&out);
	add(&s, "job_died", 210);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("job.collective_timeout", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_int_equal(one_finding(&out)->severity, GD_SEV_CRITICAL);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

static void test_rules_catalogued(void **state)
{
	struct gd_snapshot s;
	struct gd_findings out;
	const struct gd_finding *f;
	struct gd_job_log *r;

	(void)state;
	gd_snapshot_init(&s);
	r = add(&s, "cuda_oom", 7);
	gd_u64_set(&r->gpu, 0);
	gd_u64_set(&r->rank, 2);
	GD_STRSET(r->host, "node-a");
	gd_u64_set(&r->tried_bytes, 2ull << 30);
	gd_u64_set(&r->total_bytes, 80ull << 30);
	gd_u64_set(&r->free_bytes, 1ull << 30);
	gd_u64_set(&r->allocated_bytes, 75ull << 30);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("gpu.memory_full", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	f = one_finding(&out);
	assert_string_equal(f->subject, "cuda:0 (rank 2 (node-a))");
	assert_ev(f, "used_pct", 100.0 * 79 / 80, 95);
	assert_float_equal(ev_get(f, "tried_bytes")->value.v, 2.0 * (1u << 30), 1e-3);
	gd_findings_release(&out);

	add(&s, "ecc_uncorrectable", 9);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("gpu.ecc_uncorrectable", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_int_equal(one_finding(&out)->severity, GD_SEV_CRITICAL);
	assert_string_equal(one_finding(&out)->subject, "the job");
	gd_findings_release(&out);

	/* a worker killed: job.loader_worker_killed, until a shared-memory
	 * message makes it mem.shm_small */
	r = add(&s, "loader_killed", 11);
	GD_STRSET(r->what, "Killed");
	gd_u64_set(&r->pid, 4024);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("job.loader_worker_killed", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_contains(one_finding(&out)->summary, "OOM killer");
	gd_findings_release(&out);
	add(&s, "shm_exhausted", 10);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("job.loader_worker_killed", &s, NULL, NULL, &out), GD_VERDICT_CLEAR);
	assert_int_equal(run_rule2("mem.shm_small", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_string_equal(one_finding(&out)->id, "mem.shm_small");
	gd_findings_release(&out);

	/* without such messages the rule's own verdict stands */
	gd_snapshot_clear(&s);
	add(&s, "app_fault", 1);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("driver.cuda_too_new", &s, NULL, NULL, &out), GD_VERDICT_UNKNOWN);
	assert_int_equal(out.items.n, 0);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

static void test_rule_rdma(void **state)
{
	struct gd_snapshot s;
	struct gd_findings out;
	struct gd_job_log *r;

	(void)state;
	gd_snapshot_init(&s);
	/* sockets on one host without a node count: not evaluated */
	r = add(&s, "nccl_net", 4);
	GD_STRSET(r->what, "Socket");
	GD_STRSET(r->host, "gpu01");
	gd_findings_init(&out);
	assert_int_equal(run_rule2("net.rdma_unused", &s, NULL, NULL, &out), GD_VERDICT_UNKNOWN);
	gd_findings_release(&out);
	/* a second host: multi-node on sockets */
	r = add(&s, "nccl_net", 5);
	GD_STRSET(r->what, "Socket");
	GD_STRSET(r->host, "gpu02");
	gd_findings_init(&out);
	assert_int_equal(run_rule2("net.rdma_unused", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_string_equal(one_finding(&out)->subject, "gpu01, gpu02");
	assert_float_equal(ev_get(one_finding(&out), "hosts")->value.v, 2, 1e-9);
	gd_findings_release(&out);
	/* the same job on IB is healthy, socket bootstrap lines or not */
	gd_snapshot_clear(&s);
	r = add(&s, "nccl_net", 4);
	GD_STRSET(r->what, "IB");
	GD_STRSET(r->host, "gpu01");
	r = add(&s, "nccl_comm", 5);
	gd_u64_set(&r->nnodes, 2);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("net.rdma_unused", &s, NULL, NULL, &out), GD_VERDICT_CLEAR);
	/* one node on sockets: NCCL uses no network */
	gd_snapshot_clear(&s);
	r = add(&s, "nccl_net", 4);
	GD_STRSET(r->what, "Socket");
	r = add(&s, "nccl_comm", 5);
	gd_u64_set(&r->nnodes, 1);
	assert_int_equal(run_rule2("net.rdma_unused", &s, NULL, NULL, &out), GD_VERDICT_CLEAR);
	assert_int_equal(out.items.n, 0);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

/* gd_joblog_messages' fast path (a whole-buffer look for its trigger words)
 * must never miss a message the parser keeps: on every fixture and real
 * sample, it says yes exactly when gd_parse_joblog keeps a record. */
static void test_messages_agrees_with_parser(void **state)
{
	static const char *const pats[] = { GD_SRCDIR "/tests/offline/[0-9]*/*", GD_SRCDIR "/tests/offline/real/*/*.txt",
					    GD_SRCDIR "/tests/klog/*" };
	size_t files = 0, with = 0;

	(void)state;
	for (size_t p = 0; p < sizeof pats / sizeof pats[0]; p++) {
		glob_t g;

		if (glob(pats[p], 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			FILE *f = fopen(g.gl_pathv[i], "rb");
			char *buf = NULL;
			size_t n = 0, cap = 0, got;
			struct gd_snapshot s;
			struct gd_err err;
			bool kept;

			assert_non_null(f);
			do {
				if (n == cap)
					buf = realloc(buf, cap = cap ? cap * 2 : 65536);
				assert_non_null(buf);
				got = fread(buf + n, 1, cap - n, f);
				n += got;
			} while (got);
			fclose(f);
			gd_snapshot_init(&s);
			gd_err_clear(&err);
			(void)gd_parse_joblog(buf, n, &s, &err);
			kept = s.job_log.n > 0;
			if (kept != gd_joblog_messages(buf, n))
				fail_msg("%s: the parser keeps %zu messages, gd_joblog_messages says %s", g.gl_pathv[i],
					 s.job_log.n, kept ? "none" : "some");
			files++;
			with += kept;
			gd_snapshot_release(&s);
			free(buf);
		}
		globfree(&g);
	}
	/* the fixtures hold job logs and other outputs: both answers are tested */
	assert_true(files > 100);
	assert_true(with > 20 && with < files);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oom_forms),   cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_nccl),        cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_load),        cmocka_unit_test(test_rules_fault_timeout),
		cmocka_unit_test(test_rules_catalogued), cmocka_unit_test(test_rule_rdma),
		cmocka_unit_test(test_messages_agrees_with_parser),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
