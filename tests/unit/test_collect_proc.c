/*
 * test_collect_proc.c - the per-process collectors: /proc/<pid>/{stat,status,
 * io,cgroup} parsers on real samples, older kernels and malformed input; the
 * processes and threads collectors over fixture trees (fd symlinks to
 * /dev/nvidia<N> and to files on an NFS mount); GPU-job membership; and
 * both collectors on this machine.
 */
#include "fixture.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/jobs.h"

/* ---- fixture trees ----------------------------------------------------- */

/* A stat line of this machine's kernel (6.x, 52 fields) for pid/comm/ppid,
 * with flags, utime, stime, threads, starttime and rss pages. */
static void stat_line(char *out, size_t n, unsigned pid, const char *comm, char state, unsigned ppid, unsigned flags,
		      unsigned utime, unsigned stime, unsigned threads, unsigned start, unsigned rss)
{
	snprintf(out, n,
		 "%u (%s) %c %u %u %u 0 -1 %u 69479 675213 0 706 %u %u 1192 709 20 0 %u 0 %u 50475008 %u "
		 "18446744073709551615 1 1 0 0 0 0 0 4096 1256 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		 pid, comm, state, ppid, pid, pid, flags, utime, stime, threads, start, rss);
}

static struct gd_proc *proc_at(struct gd_snapshot *s, size_t i)
{
	assert_true(i < s->procs.n);
	return GD_VEC_AT(s->procs, struct gd_proc, i);
}

static struct gd_proc *proc_by_pid(struct gd_snapshot *s, uint64_t pid)
{
	GD_VEC_EACH(s->procs, struct gd_proc, p)
		if (p->pid.ok && p->pid.v == pid)
			return p;
	fail_msg("no process %llu in the snapshot", (unsigned long long)pid);
	return NULL;
}

/* ---- stat -------------------------------------------------------------- */

/* /proc/1/stat of this machine (kernel 6.18). */
static const char stat_init[] =
	"1 (process_api) S 0 0 0 0 -1 4194560 69479 675213 0 706 77 260 1192 709 20 0 13 0 24 50475008 4533 "
	"18446744073709551615 1 1 0 0 0 0 0 4096 1256 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

static void test_stat_real(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_proc *p;

	(void)state;
	gd_snapshot_init(&s);
	gd_u64_set(&s.host.page_size_bytes, 4096);
	assert_int_equal(parse_lit(gd_parse_proc_pid_stat, stat_init, &s, &err), 0);
	assert_int_equal(s.procs.n, 1);
	p = proc_at(&s, 0);
	assert_true(p->pid.ok && p->pid.v == 1);
	assert_string_equal(p->comm, "process_api");
	assert_string_equal(p->state, "S");
	assert_true(p->ppid.ok && p->ppid.v == 0);
	assert_true(p->kthread.ok && p->kthread.v == 0);
	assert_int_equal(p->utime_ticks.v, 77);
	assert_int_equal(p->stime_ticks.v, 260);
	assert_int_equal(p->num_threads.v, 13);
	assert_int_equal(p->starttime_ticks.v, 24);
	assert_true(p->rss_bytes.ok);
	assert_int_equal(p->rss_bytes.v, 4533ull * 4096);
	/* Not read by this parser: stays absent. */
	assert_false(p->uid.ok);
	assert_false(p->nvidia_fds.ok);

	/* A second parse fills the same (last) record, not a new one. */
	assert_int_equal(parse_lit(gd_parse_proc_pid_stat, stat_init, &s, &err), 0);
	assert_int_equal(s.procs.n, 1);
	gd_snapshot_release(&s);
}

static void test_stat_comm_parens(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	char line[512];

	(void)state;
	gd_snapshot_init(&s);
	/* comm "(a) b)": parentheses and a space inside the parentheses. */
	stat_line(line, sizeof line, 42, "(a) b)", 'R', 7, 0x400000, 11, 22, 3, 999, 10);
	assert_int_equal(parse_lit(gd_parse_proc_pid_stat, line, &s, &err), 0);
	assert_string_equal(proc_at(&s, 0)->comm, "(a) b)");
	assert_string_equal(proc_at(&s, 0)->state, "R");
	assert_int_equal(proc_at(&s, 0)->ppid.v, 7);
	assert_int_equal(proc_at(&s, 0)->utime_ticks.v, 11);
	assert_int_equal(proc_at(&s, 0)->stime_ticks.v, 22);
	assert_int_equal(proc_at(&s, 0)->num_threads.v, 3);
	assert_int_equal(proc_at(&s, 0)->starttime_ticks.v, 999);
	/* No page size known: rss stays absent rather than counted in pages. */
	assert_false(proc_at(&s, 0)->rss_bytes.ok);

	/* "a) S 1 (" - a comm that looks like the start of the fields. */
	stat_line(line, sizeof line, 43, "a) S 1 (", 'D', 9, 0, 1, 2, 1, 5, 0);
	assert_int_equal(parse_lit(gd_parse_proc_pid_stat, line, &s, &err), 0);
	assert_string_equal(proc_at(&s, 0)->comm, "a) S 1 (");
	assert_string_equal(proc_at(&s, 0)->state, "D");
	assert_int_equal(proc_at(&s, 0)->pid.v, 43);
	assert_int_equal(proc_at(&s, 0)->ppid.v, 9);
	gd_snapshot_release(&s);
}

static void test_stat_kthread_and_old(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	/* /proc/2/stat of this machine: flags 2129984 = 0x208040 has PF_KTHREAD. */
	const char kthreadd[] = "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 24 0 0 "
				"18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	/* Linux 2.6.18 (RHEL 5): 41 fields, "I" state does not exist yet. */
	const char old26[] = "2345 (python) S 1 2345 2345 0 -1 4202752 1504 0 0 0 120 35 0 0 15 0 4 0 98765 "
			     "205721600 8123 4294967295 134512640 134516428 3215046656 3215045692 10867202 0 0 "
			     "4096 2 3222434100 0 0 17 0 0 0\n";
	/* Linux 2.4: 39 fields, no trailing newline. */
	const char old24[] = "77 (bash) S 1 77 77 1025 77 256 301 1590 0 2 5 3 7 9 15 0 0 0 1234 2641920 371 "
			     "4294967295 134512640 135099008 3221224432 3221223580 1074774718 0 65536 3686404 "
			     "1266761467 3222406666 0 0 17 0";

	(void)state;
	gd_snapshot_init(&s);
	gd_u64_set(&s.host.page_size_bytes, 4096);
	assert_int_equal(parse_lit(gd_parse_proc_pid_stat, kthreadd, &s, &err), 0);
	assert_int_equal(proc_at(&s, 0)->kthread.v, 1);
	assert_true(proc_at(&s, 0)->kthread.ok);
	assert_int_equal(proc_at(&s, 0)->rss_bytes.v, 0);
	assert_true(proc_at(&s, 0)->rss_bytes.ok);

	GD_PUSH(&s, procs, struct gd_proc);
	assert_int_equal(parse_lit(gd_parse_proc_pid_stat, old26, &s, &err), 0);
	assert_int_equal(s.procs.n, 2);
	assert_int_equal(proc_at(&s, 1)->pid.v, 2345);
	assert_int_equal(proc_at(&s, 1)->kthread.v, 0);
	assert_int_equal(proc_at(&s, 1)->utime_ticks.v, 120);
	assert_int_equal(proc_at(&s, 1)->num_threads.v, 4);
	assert_int_equal(proc_at(&s, 1)->starttime_ticks.v, 98765);
	assert_int_equal(proc_at(&s, 1)->rss_bytes.v, 8123ull * 4096);
	/* The first record was not touched. */
	assert_int_equal(proc_at(&s, 0)->pid.v, 2);

	assert_int_equal(parse_lit(gd_parse_proc_pid_stat, old24, &s, &err), 0);
	assert_int_equal(proc_at(&s, 1)->pid.v, 77);
	assert_string_equal(proc_at(&s, 1)->comm, "bash");
	assert_int_equal(proc_at(&s, 1)->stime_ticks.v, 3);
	assert_int_equal(proc_at(&s, 1)->rss_bytes.v, 371ull * 4096);
	gd_snapshot_release(&s);
}

static void test_stat_malformed(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	char line[512];
	const char nul[] = "1 (a\0b) S 0 0 0 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 5 0 7 0";

	(void)state;
	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_proc_pid_stat, "", &s, &err) < 0);
	assert_non_null(strstr(err.msg, "empty"));
	assert_true(parse_lit(gd_parse_proc_pid_stat, "\n", &s, &err) < 0);
	/* Truncated after utime: fewer than the 22 fields through rss. */
	assert_true(parse_lit(gd_parse_proc_pid_stat, "1 (init) S 0 1 1 0 -1 4194560 1 2 3 4 77 260", &s, &err) < 0);
	assert_non_null(strstr(err.msg, "fields"));
	assert_true(parse_lit(gd_parse_proc_pid_stat, "1 init S 0 1 1 0", &s, &err) < 0);
	assert_non_null(strstr(err.msg, "comm"));
	assert_true(parse_lit(gd_parse_proc_pid_stat, "1 ) init ( S 0", &s, &err) < 0);
	/* Binary junk with a NUL byte. */
	gd_err_clear(&err);
	assert_true(gd_parse_proc_pid_stat(nul, sizeof nul - 1, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "binary"));
	/* A pid that is not a number. */
	stat_line(line, sizeof line, 1, "x", 'S', 0, 0, 1, 2, 1, 5, 7);
	line[0] = 'q';
	assert_true(parse_lit(gd_parse_proc_pid_stat, line, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "pid"));
	/* utime past 2^64. */
	assert_true(parse_lit(gd_parse_proc_pid_stat,
			      "1 (a) S 0 0 0 0 -1 0 0 0 0 0 99999999999999999999 2 0 0 20 0 1 0 5 0 7 0", &s, &err) < 0);
	assert_non_null(strstr(err.msg, "utime"));
	/* A negative or junk field. */
	assert_true(parse_lit(gd_parse_proc_pid_stat, "1 (a) S 0 0 0 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 5 0 -7 0", &s,
			      &err) < 0);
	assert_non_null(strstr(err.msg, "rss"));
	assert_true(parse_lit(gd_parse_proc_pid_stat, "1 (a) S 0 0 0 0 -1 0 0 0 0 0 1 2x 0 0 20 0 1 0 5 0 7 0", &s,
			      &err) < 0);
	assert_non_null(strstr(err.msg, "stime"));
	/* A state of more than one letter. */
	assert_true(parse_lit(gd_parse_proc_pid_stat, "1 (a) SS 0 0 0 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 5 0 7 0", &s,
			      &err) < 0);
	assert_non_null(strstr(err.msg, "state"));
	/* Nothing was set on the record by the failures. */
	assert_int_equal(s.procs.n, 1);
	assert_false(proc_at(&s, 0)->pid.ok);
	assert_false(proc_at(&s, 0)->utime_ticks.ok);
	gd_snapshot_release(&s);
}

/* ---- status, io, cgroup ------------------------------------------------- */

static void test_status(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const char status[] = "Name:\tpython3\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4700\nNgid:\t0\n"
			      "Pid:\t4700\nPPid:\t4600\nTracerPid:\t0\nUid:\t1000\t1001\t1002\t1003\n"
			      "Gid:\t1000\t1000\t1000\t1000\nFDSize:\t256\nThreads:\t9\n";

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_pid_status, status, &s, &err), 0);
	assert_true(proc_at(&s, 0)->uid.ok);
	assert_int_equal(proc_at(&s, 0)->uid.v, 1000);
	assert_int_equal(parse_lit(gd_parse_proc_pid_status, "Name:\tgrep\nUid:\t0\t0\t0\t0\n", &s, &err), 0);
	assert_int_equal(proc_at(&s, 0)->uid.v, 0);
	assert_int_equal(s.procs.n, 1);

	/* Missing Uid, malformed Uid, binary, empty. */
	assert_true(parse_lit(gd_parse_proc_pid_status, "Name:\tx\nGid:\t0\t0\t0\t0\n", &s, &err) < 0);
	assert_non_null(strstr(err.msg, "Uid"));
	assert_true(parse_lit(gd_parse_proc_pid_status, "Name:\tx\nUid:\tabc\t0\n", &s, &err) < 0);
	assert_non_null(strstr(err.msg, "line 2"));
	assert_true(parse_lit(gd_parse_proc_pid_status, "Uid:\t99999999999999999999999\t0\t0\t0\n", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_pid_status, "Uid:\n", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_pid_status, "", &s, &err) < 0);
	gd_err_clear(&err);
	assert_true(gd_parse_proc_pid_status("Uid:\t0\0\t0\n", 10, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "binary"));
	/* The earlier value survives failed parses. */
	assert_int_equal(proc_at(&s, 0)->uid.v, 0);
	gd_snapshot_release(&s);
}

static void test_io(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_proc *p;
	const char io[] = "rchar: 323934931\nwchar: 323929600\nsyscr: 632687\nsyscw: 632675\n"
			  "read_bytes: 4096\nwrite_bytes: 323932160\ncancelled_write_bytes: 0\n";
	/* Without CONFIG_TASK_IO_ACCOUNTING's storage counters (2.6.20 era
	 * builds that only had the syscall counters). */
	const char io_chars[] = "rchar: 6976\nwchar: 0\nsyscr: 10\nsyscw: 0\n";

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_pid_io, io, &s, &err), 0);
	p = proc_at(&s, 0);
	assert_int_equal(p->rchar_bytes.v, 323934931);
	assert_int_equal(p->wchar_bytes.v, 323929600);
	assert_int_equal(p->read_bytes.v, 4096);
	assert_int_equal(p->write_bytes.v, 323932160);
	assert_true(p->read_bytes.ok && p->write_bytes.ok);

	gd_snapshot_clear(&s);
	assert_int_equal(parse_lit(gd_parse_proc_pid_io, io_chars, &s, &err), 0);
	p = proc_at(&s, 0);
	assert_true(p->rchar_bytes.ok);
	assert_int_equal(p->rchar_bytes.v, 6976);
	assert_true(p->wchar_bytes.ok);
	assert_int_equal(p->wchar_bytes.v, 0);
	assert_false(p->read_bytes.ok);
	assert_false(p->write_bytes.ok);

	/* A malformed line is skipped and named; the rest is kept. */
	gd_snapshot_clear(&s);
	assert_int_equal(parse_lit(gd_parse_proc_pid_io, "rchar: 5\nwchar: 12x\nread_bytes: 7\n", &s, &err), 1);
	assert_non_null(strstr(err.msg, "line 2"));
	p = proc_at(&s, 0);
	assert_int_equal(p->rchar_bytes.v, 5);
	assert_false(p->wchar_bytes.ok);
	assert_int_equal(p->read_bytes.v, 7);
	assert_int_equal(parse_lit(gd_parse_proc_pid_io, "rchar: 5\ngarbage\n", &s, &err), 1);
	assert_non_null(strstr(err.msg, "line 2"));
	assert_int_equal(parse_lit(gd_parse_proc_pid_io, "rchar: 18446744073709551616\nwchar: 1\n", &s, &err), 1);
	assert_int_equal(proc_at(&s, 0)->rchar_bytes.v, 5);

	assert_true(parse_lit(gd_parse_proc_pid_io, "", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_pid_io, "syscr: 1\n", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_pid_io, "rchar: x\n", &s, &err) < 0);
	gd_err_clear(&err);
	assert_true(gd_parse_proc_pid_io("rchar: 1\0\n", 10, &s, &err) < 0);
	gd_snapshot_release(&s);
}

static void test_cgroup_lines(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	/* This machine: v1 controllers plus the empty unified hierarchy. */
	const char hybrid[] = "9:name=systemd:/\n8:pids:/\n7:blkio:/\n6:freezer:/\n5:devices:/\n"
			      "4:memory:/process_api/ad4e0d7f3f9f733fc6a41fdb4c5cab2a\n3:cpuset:/\n2:cpuacct:/\n"
			      "1:cpu:/\n0::/\n";
	const char v1[] = "12:pids:/docker/abc\n11:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n"
			  "3:cpuset:/docker/abc\n";
	const char v1_cpuset_only[] = "3:cpuset:/x\n2:cpuacct:/y\n";

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_pid_cgroup, "0::/system.slice/docker-ab12.scope\n", &s, &err), 0);
	assert_string_equal(proc_at(&s, 0)->cgroup, "/system.slice/docker-ab12.scope");
	assert_int_equal(parse_lit(gd_parse_proc_pid_cgroup, v1, &s, &err), 0);
	assert_string_equal(proc_at(&s, 0)->cgroup, "/docker/abc");
	assert_int_equal(parse_lit(gd_parse_proc_pid_cgroup, "1:cpu:/\n", &s, &err), 0);
	assert_string_equal(proc_at(&s, 0)->cgroup, "/");
	/* The v2 line wins when there is one. */
	assert_int_equal(parse_lit(gd_parse_proc_pid_cgroup, "4:cpu:/a\n0::/b\n", &s, &err), 0);
	assert_string_equal(proc_at(&s, 0)->cgroup, "/b");
	assert_int_equal(parse_lit(gd_parse_proc_pid_cgroup, hybrid, &s, &err), 0);
	assert_string_equal(proc_at(&s, 0)->cgroup, "/");
	/* A path with a colon. */
	assert_int_equal(parse_lit(gd_parse_proc_pid_cgroup, "0::/k8s/pod:1\n", &s, &err), 0);
	assert_string_equal(proc_at(&s, 0)->cgroup, "/k8s/pod:1");

	/* cpuacct and cpuset are not "cpu". */
	assert_true(parse_lit(gd_parse_proc_pid_cgroup, v1_cpuset_only, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "cpu"));
	assert_true(parse_lit(gd_parse_proc_pid_cgroup, "", &s, &err) < 0);
	/* Malformed lines are skipped and named. */
	assert_int_equal(parse_lit(gd_parse_proc_pid_cgroup, "garbage\n0::/c\n", &s, &err), 1);
	assert_non_null(strstr(err.msg, "line 1"));
	assert_string_equal(proc_at(&s, 0)->cgroup, "/c");
	assert_true(parse_lit(gd_parse_proc_pid_cgroup, "0:/x\n", &s, &err) < 0);
	gd_err_clear(&err);
	assert_true(gd_parse_proc_pid_cgroup("0::/a\0b\n", 8, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "binary"));
	assert_string_equal(proc_at(&s, 0)->cgroup, "/c");
	gd_snapshot_release(&s);
}

/* ---- GPU-job membership ------------------------------------------------ */

static struct gd_proc *add_proc(struct gd_snapshot *s, uint64_t pid, uint64_t ppid, int nvidia)
{
	struct gd_proc *p = GD_PUSH(s, procs, struct gd_proc);

	gd_u64_set(&p->pid, pid);
	gd_u64_set(&p->ppid, ppid);
	if (nvidia >= 0)
		gd_u64_set(&p->nvidia_fds, (uint64_t)nvidia);
	return p;
}

static void test_gpu_job_marks(void **state)
{
	struct gd_snapshot s;
	unsigned char marks[8];

	(void)state;
	gd_snapshot_init(&s);
	add_proc(&s, 1, 0, 0);      /* init */
	add_proc(&s, 50, 40, 0);    /* grandchild of the job, listed before it */
	add_proc(&s, 40, 30, -1);   /* child, fd dir unreadable */
	add_proc(&s, 30, 1, 2);     /* the GPU job */
	add_proc(&s, 60, 1, 0);     /* unrelated */
	add_proc(&s, 70, 80, 0);    /* a ppid cycle 70 -> 80 -> 70 */
	add_proc(&s, 80, 70, 0);
	add_proc(&s, 90, 999, 0);   /* parent not in the snapshot */

	assert_int_equal(gd_snapshot_gpu_job_marks(&s, marks), 1);
	assert_int_equal(marks[0], 0);
	assert_int_equal(marks[1], 1);
	assert_int_equal(marks[2], 1);
	assert_int_equal(marks[3], 1);
	assert_int_equal(marks[4], 0);
	assert_int_equal(marks[5], 0);
	assert_int_equal(marks[6], 0);
	assert_int_equal(marks[7], 0);
	for (size_t i = 0; i < s.procs.n; i++) {
		const struct gd_proc *p = proc_at(&s, i);

		assert_int_equal(gd_snapshot_in_gpu_job(&s, p), marks[i]);
	}
	gd_snapshot_release(&s);
}

/* gd_snapshot_proc: binary search in the collector's pid order, and the
 * same answers (by a full search) in any other order. */
static void test_snapshot_proc_lookup(void **state)
{
	struct gd_snapshot up, down;

	(void)state;
	gd_snapshot_init(&up);
	gd_snapshot_init(&down);
	for (uint64_t pid = 3; pid <= 3000; pid += 7)
		add_proc(&up, pid, 1, 0);
	for (size_t i = up.procs.n; i-- > 0;)
		add_proc(&down, proc_at(&up, i)->pid.v, 1, 0);
	assert_int_equal(up.procs.n, down.procs.n);
	for (uint64_t pid = 0; pid <= 3010; pid++) {
		const struct gd_proc *a = gd_snapshot_proc(&up, pid), *b = gd_snapshot_proc(&down, pid);

		if (pid >= 3 && pid <= 3000 && (pid - 3) % 7 == 0) {
			assert_non_null(a);
			assert_non_null(b);
			assert_int_equal(a->pid.v, pid);
			assert_int_equal(b->pid.v, pid);
			assert_ptr_equal(a, proc_by_pid(&up, pid));
		} else {
			assert_null(a);
			assert_null(b);
		}
	}
	/* A record without a pid is never found, wherever it sits. */
	GD_VEC_AT(up.procs, struct gd_proc, 10)->pid.ok = false;
	assert_null(gd_snapshot_proc(&up, 3 + 10 * 7));
	assert_null(gd_snapshot_proc(&up, 0));
	assert_non_null(gd_snapshot_proc(&up, 3 + 11 * 7));
	gd_snapshot_release(&up);
	gd_snapshot_release(&down);
}

/* ---- the processes and threads collectors on a fixture tree ------------ */

static void put_proc(struct tree *t, unsigned pid, const char *comm, unsigned ppid, unsigned flags)
{
	char rel[128], line[512];

	stat_line(line, sizeof line, pid, comm, 'S', ppid, flags, 100 + pid, 10, 2, 5000 + pid, 256);
	snprintf(rel, sizeof rel, "proc/%u/stat", pid);
	tree_put(t, rel, line);
	snprintf(rel, sizeof rel, "proc/%u/status", pid);
	tree_put(t, rel, "Name:\tx\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t1000\t1000\t1000\t1000\n");
	snprintf(rel, sizeof rel, "proc/%u/io", pid);
	tree_put(t, rel, "rchar: 100\nwchar: 200\nsyscr: 1\nsyscw: 1\nread_bytes: 300\nwrite_bytes: 400\n"
			 "cancelled_write_bytes: 0\n");
	snprintf(rel, sizeof rel, "proc/%u/cgroup", pid);
	tree_put(t, rel, "0::/user.slice/job\n");
	snprintf(rel, sizeof rel, "proc/%u/ns/mnt", pid);
	tree_link(t, "mnt:[4026531840]", rel);
	snprintf(rel, sizeof rel, "proc/%u/ns/net", pid);
	tree_link(t, "net:[4026531992]", rel);
}

static void put_fd(struct tree *t, unsigned pid, unsigned fd, const char *target)
{
	char rel[128];

	snprintf(rel, sizeof rel, "proc/%u/fd/%u", pid, fd);
	tree_link(t, target, rel);
}

static void put_task(struct tree *t, unsigned pid, unsigned tid, const char *comm, char state, unsigned utime)
{
	char rel[128], line[512];

	stat_line(line, sizeof line, tid, comm, state, 1, 0x40, utime, 3, 2, 5000, 256);
	snprintf(rel, sizeof rel, "proc/%u/task/%u/stat", pid, tid);
	tree_put(t, rel, line);
}

static void build_tree(struct tree *t)
{
	const char cmdline[] = "python3\0train.py\0--batch-size\0" "064\0";

	tree_init(t, "proc");
	/* The mount table the proc_mounts collector reads first: an NFS data
	 * set with a local disk mounted inside it. */
	tree_put(t, "proc/self/mounts",
		 "/dev/vda / ext4 rw,relatime 0 0\n"
		 "proc /proc proc rw,relatime 0 0\n"
		 "nfs1:/export/data /mnt/data nfs4 rw,relatime,vers=4.2,rsize=1048576 0 0\n"
		 "/dev/nvme0n1 /mnt/data/local ext4 rw,relatime 0 0\n");

	/* 100: the GPU job. */
	put_proc(t, 100, "python3", 1, 0x400100);
	tree_putn(t, "proc/100/cmdline", cmdline, sizeof cmdline - 1);
	put_fd(t, 100, 0, "/dev/pts/0");
	put_fd(t, 100, 3, "/dev/nvidia0");
	put_fd(t, 100, 4, "/mnt/data/shard-0001.tar");
	put_fd(t, 100, 5, "/dev/nvidiactl");
	put_fd(t, 100, 6, "socket:[12345]");
	put_fd(t, 100, 7, "/mnt/data/local/cache.bin");
	put_fd(t, 100, 8, "/mnt/database/x");   /* not under /mnt/data */
	put_fd(t, 100, 9, "/dev/nvidia-uvm");
	put_task(t, 100, 100, "python3", 'S', 50);
	put_task(t, 100, 101, "pt_data_worker", 'R', 9000);

	/* 200: its child, on two GPUs (nvidia3 twice). */
	put_proc(t, 200, "pt_worker (1)", 100, 0x400040);
	put_fd(t, 200, 3, "/dev/nvidia3");
	put_fd(t, 200, 4, "/dev/nvidia1");
	put_fd(t, 200, 5, "/dev/nvidia3");
	put_fd(t, 200, 6, "/mnt/data/shard-0002.tar (deleted)");
	put_task(t, 200, 200, "pt_worker", 'D', 70);

	/* 300: a kernel thread; its fd directory is not walked. */
	put_proc(t, 300, "kworker/0:1", 2, 0x04208060);
	put_fd(t, 300, 3, "/dev/nvidia0");
	put_task(t, 300, 300, "kworker/0:1", 'I', 0);

	/* 600: an unrelated process, with threads that are not read. */
	put_proc(t, 600, "sshd", 1, 0x400100);
	put_fd(t, 600, 3, "/var/log/auth.log");
	put_task(t, 600, 600, "sshd", 'S', 1);

	/* 400: exited between readdir and open (directory without files). */
	tree_mkdirs(t, "proc/400/fd", true);
	/* Not a pid. */
	tree_mkdirs(t, "proc/sys/kernel", true);
}

/* The collector writes processes in ascending pid order whatever order
 * the directory lists them in (here created shuffled, so no filesystem's
 * readdir gives them ascending). */
static void test_processes_pid_order(void **state)
{
	static const unsigned pids[] = { 907, 12, 4410, 88, 3, 1500, 640, 29, 2048, 301, 77, 9999, 5, 1210, 460 };
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	struct dirent *de;
	uint64_t last = 0;
	bool ascending = true;
	char path[128];
	DIR *d;

	(void)state;
	tree_init(&t, "order");
	for (size_t i = 0; i < sizeof pids / sizeof pids[0]; i++)
		put_proc(&t, pids[i], "p", 1, 0);
	/* the premise: readdir does not already list them in order */
	snprintf(path, sizeof path, "%s/proc", t.dir);
	d = opendir(path);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		unsigned long long v;

		if (sscanf(de->d_name, "%llu", &v) != 1)
			continue;
		if (v < last)
			ascending = false;
		last = v;
	}
	closedir(d);
	assert_false(ascending);

	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_processes, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.procs.n, sizeof pids / sizeof pids[0]);
	for (size_t i = 1; i < s.procs.n; i++)
		assert_true(proc_at(&s, i - 1)->pid.v < proc_at(&s, i)->pid.v);
	for (size_t i = 0; i < sizeof pids / sizeof pids[0]; i++)
		assert_int_equal(gd_snapshot_proc(&s, pids[i])->pid.v, pids[i]);
	gd_snapshot_release(&s);
	tree_release(&t);
}

static void test_processes_fixture(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_proc *p;

	(void)state;
	build_tree(&t);
	gd_snapshot_init(&s);
	gd_u64_set(&s.host.page_size_bytes, 4096);
	assert_int_equal(run(gd_collect_proc_mounts, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.mounts.n, 4);
	assert_int_equal(run(gd_collect_processes, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.procs.n, 4);

	p = proc_by_pid(&s, 100);
	assert_string_equal(p->comm, "python3");
	assert_int_equal(p->ppid.v, 1);
	assert_int_equal(p->kthread.v, 0);
	assert_int_equal(p->uid.v, 1000);
	assert_int_equal(p->utime_ticks.v, 200);
	assert_int_equal(p->rss_bytes.v, 256ull * 4096);
	assert_int_equal(p->rchar_bytes.v, 100);
	assert_int_equal(p->write_bytes.v, 400);
	assert_string_equal(p->cmdline, "python3 train.py --batch-size 064");
	assert_string_equal(p->cgroup, "/user.slice/job");
	assert_string_equal(p->mntns, "mnt:[4026531840]");
	assert_string_equal(p->netns, "net:[4026531992]");
	assert_true(p->nvidia_fds.ok);
	assert_int_equal(p->nvidia_fds.v, 1);
	assert_string_equal(p->nvidia_devs, "0");
	assert_true(p->netfs_fds.ok);
	assert_int_equal(p->netfs_fds.v, 1);
	assert_string_equal(p->netfs_mount, "/mnt/data");

	p = proc_by_pid(&s, 200);
	assert_string_equal(p->comm, "pt_worker (1)");
	assert_int_equal(p->nvidia_fds.v, 3);
	assert_string_equal(p->nvidia_devs, "1,3");
	assert_int_equal(p->netfs_fds.v, 1);
	assert_string_equal(p->cmdline, "");   /* no cmdline file */

	p = proc_by_pid(&s, 300);
	assert_int_equal(p->kthread.v, 1);
	assert_false(p->nvidia_fds.ok);
	assert_false(p->netfs_fds.ok);

	p = proc_by_pid(&s, 600);
	assert_true(p->nvidia_fds.ok);
	assert_int_equal(p->nvidia_fds.v, 0);
	assert_string_equal(p->nvidia_devs, "");
	assert_int_equal(p->netfs_fds.v, 0);
	assert_string_equal(p->netfs_mount, "");

	/* Threads of the job and its child only; the kernel thread and sshd
	 * are not read. */
	assert_int_equal(run(gd_collect_threads, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.threads.n, 3);
	{
		const struct gd_thread *th = GD_VEC_AT(s.threads, struct gd_thread, 0);
		bool saw_worker = false;

		GD_VEC_EACH(s.threads, const struct gd_thread, x) {
			assert_true(x->pid.v == 100 || x->pid.v == 200);
			if (x->tid.v == 101) {
				saw_worker = true;
				assert_int_equal(x->pid.v, 100);
				assert_string_equal(x->comm, "pt_data_worker");
				assert_string_equal(x->state, "R");
				assert_int_equal(x->utime_ticks.v, 9000);
				assert_int_equal(x->stime_ticks.v, 3);
			}
		}
		assert_true(saw_worker);
		assert_true(th->tid.ok);
	}
	gd_snapshot_release(&s);

	/* Without mounts (proc_mounts did not run) nothing counts as netfs,
	 * and the GPU fds are still found. */
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_processes, &t.ctx, &s, &err), GD_SRC_OK);
	p = proc_by_pid(&s, 100);
	assert_int_equal(p->netfs_fds.v, 0);
	assert_int_equal(p->nvidia_fds.v, 1);
	assert_false(p->rss_bytes.ok);   /* no page size */
	gd_snapshot_release(&s);
	tree_release(&t);
}

static void test_processes_broken(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	build_tree(&t);
	/* A malformed stat (skipped) and a malformed io (kept, io absent). */
	tree_put(&t, "proc/500/stat", "500 (bad) S 1 2 3");
	put_proc(&t, 700, "badio", 1, 0);
	tree_put(&t, "proc/700/io", "rchar: lots\n");
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_processes, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_non_null(strstr(err.msg, "2 files malformed"));
	assert_non_null(strstr(err.msg, "/proc/"));
	assert_int_equal(s.procs.n, 5);
	assert_false(proc_by_pid(&s, 700)->rchar_bytes.ok);
	assert_int_equal(proc_by_pid(&s, 700)->uid.v, 1000);
	gd_snapshot_release(&s);
	tree_release(&t);

	/* A proc directory without a process (a root of proc/uptime alone):
	 * nothing to sort, nothing read (UBSan: no qsort of NULL). */
	tree_init(&t, "proc");
	tree_put(&t, "proc/uptime", "12345.67 23456.78\n");
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_processes, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.procs.n, 0);
	gd_snapshot_release(&s);
	tree_release(&t);

	/* No proc directory at all. */
	tree_init(&t, "proc");
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_processes, &t.ctx, &s, &err), GD_SRC_ABSENT);
	assert_non_null(strstr(err.msg, "/proc"));
	/* No processes: no GPU job, no threads, and that is fine. */
	assert_int_equal(run(gd_collect_threads, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.threads.n, 0);
	gd_snapshot_release(&s);
	tree_release(&t);
}

static void test_threads_cap(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	char line[512], rel[128];

	(void)state;
	tree_init(&t, "proc");
	stat_line(line, sizeof line, 9, "w", 'S', 1, 0, 1, 1, 1, 1, 1);
	for (unsigned tid = 1; tid <= 4100; tid++) {
		snprintf(rel, sizeof rel, "proc/9/task/%u/stat", tid);
		tree_put(&t, rel, line);
	}
	gd_snapshot_init(&s);
	add_proc(&s, 9, 1, 1);
	assert_int_equal(run(gd_collect_threads, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_int_equal(s.threads.n, 4096);
	assert_non_null(strstr(err.msg, "4 not read"));
	gd_snapshot_release(&s);
	tree_release(&t);

	/* A malformed thread stat is skipped and named, its siblings kept. */
	tree_init(&t, "proc");
	tree_put(&t, "proc/9/task/9/stat", line);
	tree_put(&t, "proc/9/task/12/stat", "12 (w) S 1");
	gd_snapshot_init(&s);
	add_proc(&s, 9, 1, 1);
	assert_int_equal(run(gd_collect_threads, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_int_equal(s.threads.n, 1);
	assert_non_null(strstr(err.msg, "1 stat files malformed, first /proc/9/task/12/stat: only"));
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* ---- the cache from one snapshot to the next --------------------------- */

/* One snapshot of the processes collector over t, with t's context. */
static enum gd_src_status snap_procs(struct tree *t, struct gd_snapshot *s)
{
	struct gd_err err;

	gd_snapshot_init(s);
	return run(gd_collect_processes, &t->ctx, s, &err);
}

static void relink(struct tree *t, const char *target, const char *rel)
{
	char path[512];

	snprintf(path, sizeof path, "%s/%s", t->dir, rel);
	assert_int_equal(unlink(path), 0);
	tree_link(t, target, rel);
}

static void rm_tree_at(struct tree *t, const char *rel)
{
	char path[512];

	snprintf(path, sizeof path, "%s/%s", t->dir, rel);
	assert_int_equal(nftw(path, tree_rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static void test_cache_lifetime_files(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_proc *p;
	char line[512];
	const char cmd2[] = "python3\0serve.py\0";
	int i;

	(void)state;
	build_tree(&t);
	t.ctx.proc_cache = gd_proc_cache_new();
	assert_int_equal(snap_procs(&t, &s), GD_SRC_OK);
	/* 100, 200, 300 and 600; 400 has no stat */
	assert_int_equal(gd_proc_cache_size(t.ctx.proc_cache), 4);
	assert_string_equal(proc_by_pid(&s, 100)->cmdline, "python3 train.py --batch-size 064");
	gd_snapshot_release(&s);

	/* 100 changes what cannot change while it lives, and what can. */
	tree_putn(&t, "proc/100/cmdline", cmd2, sizeof cmd2 - 1);
	tree_put(&t, "proc/100/cgroup", "0::/elsewhere\n");
	relink(&t, "mnt:[4026532999]", "proc/100/ns/mnt");
	tree_put(&t, "proc/100/status", "Name:\tx\nUid:\t1001\t1001\t1001\t1001\n");
	tree_put(&t, "proc/100/io", "rchar: 555\nwchar: 1\nread_bytes: 2\nwrite_bytes: 3\n");
	/* 200 had no cmdline: a file that could not be read is not kept */
	tree_putn(&t, "proc/200/cmdline", cmd2, sizeof cmd2 - 1);
	assert_int_equal(snap_procs(&t, &s), GD_SRC_OK);
	p = proc_by_pid(&s, 100);
	assert_string_equal(p->cmdline, "python3 train.py --batch-size 064");
	assert_string_equal(p->cgroup, "/user.slice/job");
	assert_string_equal(p->mntns, "mnt:[4026531840]");
	assert_int_equal(p->uid.v, 1001);
	assert_int_equal(p->rchar_bytes.v, 555);
	assert_int_equal(p->nvidia_fds.v, 1);
	assert_string_equal(proc_by_pid(&s, 200)->cmdline, "python3 serve.py");
	gd_snapshot_release(&s);

	/* The pid is recycled: another start time, another process. */
	stat_line(line, sizeof line, 100, "python3", 'S', 1, 0x400100, 1, 1, 2, 99999, 256);
	tree_put(&t, "proc/100/stat", line);
	assert_int_equal(snap_procs(&t, &s), GD_SRC_OK);
	p = proc_by_pid(&s, 100);
	assert_string_equal(p->cmdline, "python3 serve.py");
	assert_string_equal(p->cgroup, "/elsewhere");
	assert_string_equal(p->mntns, "mnt:[4026532999]");
	gd_snapshot_release(&s);

	/* 600 execs: same pid and start time, another command name. */
	tree_putn(&t, "proc/600/cmdline", cmd2, sizeof cmd2 - 1);
	assert_int_equal(snap_procs(&t, &s), GD_SRC_OK);
	assert_string_equal(proc_by_pid(&s, 600)->cmdline, "python3 serve.py");
	gd_snapshot_release(&s);
	tree_putn(&t, "proc/600/cmdline", "bash", 5);
	assert_int_equal(snap_procs(&t, &s), GD_SRC_OK);
	assert_string_equal(proc_by_pid(&s, 600)->cmdline, "python3 serve.py");
	gd_snapshot_release(&s);
	stat_line(line, sizeof line, 600, "bash", 'S', 1, 0x400100, 701, 10, 2, 5600, 256);
	tree_put(&t, "proc/600/stat", line);
	assert_int_equal(snap_procs(&t, &s), GD_SRC_OK);
	assert_string_equal(proc_by_pid(&s, 600)->comm, "bash");
	assert_string_equal(proc_by_pid(&s, 600)->cmdline, "bash");
	gd_snapshot_release(&s);

	/* A process that moves cgroup without an exec is seen within 16
	 * snapshots, not at the next one. */
	tree_put(&t, "proc/100/cgroup", "0::/moved\n");
	assert_int_equal(snap_procs(&t, &s), GD_SRC_OK);
	assert_string_equal(proc_by_pid(&s, 100)->cgroup, "/elsewhere");
	gd_snapshot_release(&s);
	for (i = 0; i < 16; i++) {
		bool moved;

		assert_int_equal(snap_procs(&t, &s), GD_SRC_OK);
		moved = strcmp(proc_by_pid(&s, 100)->cgroup, "/moved") == 0;
		gd_snapshot_release(&s);
		if (moved)
			break;
	}
	assert_true(i < 16);

	/* An exited process leaves the cache. */
	rm_tree_at(&t, "proc/600");
	assert_int_equal(snap_procs(&t, &s), GD_SRC_OK);
	assert_int_equal(s.procs.n, 3);
	assert_int_equal(gd_proc_cache_size(t.ctx.proc_cache), 3);
	gd_snapshot_release(&s);
	gd_proc_cache_free(t.ctx.proc_cache);
	tree_release(&t);
}

static void test_cache_problems_and_kthreads(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_proc *p;

	(void)state;
	build_tree(&t);
	t.ctx.proc_cache = gd_proc_cache_new();
	/* A malformed cgroup file is reported by every snapshot, not once. */
	put_proc(&t, 700, "badcg", 1, 0x400100);
	tree_put(&t, "proc/700/cgroup", "garbage\n");
	/* The kernel thread's io and cmdline are never read (it has neither). */
	tree_put(&t, "proc/300/cmdline", "not\0a\0kernel\0thread\0");
	for (int i = 0; i < 2; i++) {
		gd_snapshot_init(&s);
		assert_int_equal(run(gd_collect_processes, &t.ctx, &s, &err), GD_SRC_PARTIAL);
		assert_non_null(strstr(err.msg, "1 files malformed, first /proc/700/cgroup"));
		assert_string_equal(proc_by_pid(&s, 700)->cgroup, "");
		p = proc_by_pid(&s, 300);
		assert_int_equal(p->kthread.v, 1);
		assert_false(p->rchar_bytes.ok);
		assert_false(p->write_bytes.ok);
		assert_string_equal(p->cmdline, "");
		assert_int_equal(p->uid.v, 1000);
		assert_string_equal(p->cgroup, "/user.slice/job");
		gd_snapshot_release(&s);
	}
	/* Fixed, it is read at once. */
	tree_put(&t, "proc/700/cgroup", "0::/fixed\n");
	assert_int_equal(snap_procs(&t, &s), GD_SRC_OK);
	assert_string_equal(proc_by_pid(&s, 700)->cgroup, "/fixed");
	gd_snapshot_release(&s);
	/* A kernel thread's status is kept too; a user process's is not. */
	tree_put(&t, "proc/300/status", "Name:\tx\nUid:\t7\t7\t7\t7\n");
	tree_put(&t, "proc/700/status", "Name:\tx\nUid:\t7\t7\t7\t7\n");
	assert_int_equal(snap_procs(&t, &s), GD_SRC_OK);
	assert_int_equal(proc_by_pid(&s, 300)->uid.v, 1000);
	assert_int_equal(proc_by_pid(&s, 700)->uid.v, 7);
	gd_snapshot_release(&s);
	gd_proc_cache_free(t.ctx.proc_cache);

	/* Without a cache every snapshot reads every file. */
	t.ctx.proc_cache = NULL;
	assert_int_equal(snap_procs(&t, &s), GD_SRC_OK);
	assert_int_equal(proc_by_pid(&s, 300)->uid.v, 7);
	assert_string_equal(proc_by_pid(&s, 300)->cmdline, "");
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* Many snapshots over a changing process table: the cache holds exactly
 * the processes of the last one, whatever order readdir lists them in. */
static void test_cache_churn(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	char rel[64];

	(void)state;
	tree_init(&t, "proc");
	t.ctx.proc_cache = gd_proc_cache_new();
	for (unsigned round = 0; round < 6; round++) {
		for (unsigned k = 0; k < 40; k++) {
			unsigned pid = 1000 + (k * 37 + round * 11) % 300;

			snprintf(rel, sizeof rel, "proc/%u/stat", pid);
			if (!gd_root_exists(&t.root, rel))
				put_proc(&t, pid, "w", 1, 0x400100);
		}
		if (round % 2) {   /* every other round, a third exit */
			for (unsigned pid = 1000; pid < 1300; pid += 3) {
				snprintf(rel, sizeof rel, "proc/%u", pid);
				if (gd_root_exists(&t.root, rel))
					rm_tree_at(&t, rel);
			}
		}
		assert_int_equal(snap_procs(&t, &s), GD_SRC_OK);
		assert_int_equal(gd_proc_cache_size(t.ctx.proc_cache), s.procs.n);
		GD_VEC_EACH(s.procs, const struct gd_proc, p)
			assert_string_equal(p->cgroup, "/user.slice/job");
		gd_snapshot_release(&s);
	}
	gd_proc_cache_free(t.ctx.proc_cache);
	tree_release(&t);
}

/* ---- the tiered walk (serve, watch, record) ---------------------------- */

/* One cycle of the tiered walk at uptime up. */
static enum gd_src_status snap_at(struct tree *t, struct gd_snapshot *s, double up)
{
	struct gd_err err;

	gd_snapshot_init(s);
	gd_f64_set(&s->host.uptime_s, up);
	return run(gd_collect_processes, &t->ctx, s, &err);
}

static void test_tiered_walk(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_proc *p;
	char line[512];
	const char cmd2[] = "stress\0--cpu\0" "1\0";
	double up = 100;
	int i, n;

	(void)state;
	build_tree(&t);
	t.ctx.proc_cache = gd_proc_cache_new_tiered(4, 4);
	/* A process is read whole in its first 4 cycles (young), then on
	 * the slow round: 600 % 4 == 0, cycles 4, 8, 12... */
	for (i = 1; i <= 5; i++) {
		assert_int_equal(snap_at(&t, &s, up++), GD_SRC_OK);
		assert_true(proc_by_pid(&s, 600)->detail_uptime_s.ok == (i == 5));
		assert_false(proc_by_pid(&s, 100)->detail_uptime_s.ok);
		gd_snapshot_release(&s);
	}
	/* 600 (sshd, no GPU) starts burning CPU, writing, and opens a GPU;
	 * the job 100 opens another GPU. */
	stat_line(line, sizeof line, 600, "sshd", 'R', 1, 0x400100, 90000, 10, 2, 5600, 256);
	tree_put(&t, "proc/600/stat", line);
	tree_put(&t, "proc/600/io", "rchar: 9\nwchar: 9\nread_bytes: 0\nwrite_bytes: 777000000\n");
	put_fd(&t, 600, 9, "/dev/nvidia2");
	put_fd(&t, 100, 10, "/dev/nvidia5");
	/* A new process appears, burning. */
	put_proc(&t, 800, "stress", 1, 0x400100);
	tree_putn(&t, "proc/800/cmdline", cmd2, sizeof cmd2 - 1);
	stat_line(line, sizeof line, 800, "stress", 'R', 1, 0x400100, 5000, 0, 1, 7000, 256);
	tree_put(&t, "proc/800/stat", line);

	/* 600 % 4 == 0: due at cycles 8 and 12; this is cycle 6 */
	assert_int_equal(snap_at(&t, &s, up++), GD_SRC_OK);
	p = proc_by_pid(&s, 600);
	assert_int_equal(p->utime_ticks.v, 90000);   /* stat: every cycle */
	assert_string_equal(p->state, "R");
	assert_int_equal(p->write_bytes.v, 777000000);   /* io: every cycle */
	assert_int_equal(p->nvidia_fds.v, 0);   /* fds: the slow round's */
	assert_int_equal(p->uid.v, 1000);
	assert_string_equal(p->cgroup, "/user.slice/job");
	assert_true(p->detail_uptime_s.ok);
	assert_true(p->detail_uptime_s.v >= up - 5 && p->detail_uptime_s.v < up - 1);
	p = proc_by_pid(&s, 100);   /* a GPU job: whole every cycle */
	assert_int_equal(p->nvidia_fds.v, 2);
	assert_false(p->detail_uptime_s.ok);
	assert_false(proc_by_pid(&s, 200)->detail_uptime_s.ok);   /* the job's child */
	p = proc_by_pid(&s, 800);   /* new: whole at once */
	assert_int_equal(p->utime_ticks.v, 5000);
	assert_string_equal(p->cmdline, "stress --cpu 1");
	assert_false(p->detail_uptime_s.ok);
	gd_snapshot_release(&s);

	/* Within the slow round (4 cycles) 600's GPU is seen, its age gone. */
	for (i = 0; i < 4; i++) {
		bool seen;

		assert_int_equal(snap_at(&t, &s, up++), GD_SRC_OK);
		p = proc_by_pid(&s, 600);
		seen = p->nvidia_fds.ok && p->nvidia_fds.v == 1;
		assert_true(seen != p->detail_uptime_s.ok);
		gd_snapshot_release(&s);
		if (seen)
			break;
	}
	assert_true(i < 4);

	/* io between full reads: read when the process ran (its CPU time
	 * moved), else the counters of its last read stand, the full read's
	 * once it came (a counter never steps back) */
	for (i = 0; i < 6; i++) {
		assert_int_equal(snap_at(&t, &s, up++), GD_SRC_OK);
		gd_snapshot_release(&s);
	}
	tree_put(&t, "proc/800/io", "rchar: 9\nwchar: 9\nread_bytes: 0\nwrite_bytes: 778000000\n");
	for (i = 0, n = 0; i < 8; i++) {
		assert_int_equal(snap_at(&t, &s, up++), GD_SRC_OK);
		p = proc_by_pid(&s, 800);
		if (!p->detail_uptime_s.ok)   /* its full read */
			n++;
		assert_int_equal(p->write_bytes.v, n ? 778000000 : 400);
		gd_snapshot_release(&s);
	}
	assert_int_equal(n, 2);
	stat_line(line, sizeof line, 800, "stress", 'R', 1, 0x400100, 5001, 0, 1, 7000, 256);
	tree_put(&t, "proc/800/stat", line);
	tree_put(&t, "proc/800/io", "rchar: 9\nwchar: 9\nread_bytes: 0\nwrite_bytes: 779000000\n");
	assert_int_equal(snap_at(&t, &s, up++), GD_SRC_OK);
	assert_int_equal(proc_by_pid(&s, 800)->write_bytes.v, 779000000);
	gd_snapshot_release(&s);

	/* A process in D state is read whole at once (wchan for host.hung_tasks). */
	for (i = 0; i < 6; i++) {
		assert_int_equal(snap_at(&t, &s, up++), GD_SRC_OK);
		gd_snapshot_release(&s);
	}
	stat_line(line, sizeof line, 800, "stress", 'D', 1, 0x400100, 5000, 0, 1, 7000, 256);
	tree_put(&t, "proc/800/stat", line);
	tree_put(&t, "proc/800/wchan", "io_schedule\n");
	assert_int_equal(snap_at(&t, &s, up++), GD_SRC_OK);
	assert_string_equal(proc_by_pid(&s, 800)->wchan, "io_schedule");
	assert_false(proc_by_pid(&s, 800)->detail_uptime_s.ok);
	gd_snapshot_release(&s);

	/* An exited process leaves the cache; a recycled pid is a new process. */
	rm_tree_at(&t, "proc/600");
	assert_int_equal(snap_at(&t, &s, up++), GD_SRC_OK);
	assert_int_equal(gd_proc_cache_size(t.ctx.proc_cache), s.procs.n);
	gd_snapshot_release(&s);
	gd_proc_cache_free(t.ctx.proc_cache);
	tree_release(&t);
}

/* The young cycles and the slow round apart (2 and 8): a process past
 * its young cycles is read whole only on its slow round, unless NVML's
 * process list of the cycle names it (a CUDA context made late in its
 * life), from when on it is a GPU job, read whole every cycle. */
static void test_tiered_young_slow_nvml(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_gpu_proc *g;
	double up = 100;
	int i;

	(void)state;
	build_tree(&t);
	t.ctx.proc_cache = gd_proc_cache_new_tiered(2, 8);
	/* 600 % 8 == 0: whole in cycles 1 and 2 (young), then at cycle 8 */
	for (i = 1; i <= 9; i++) {
		assert_int_equal(snap_at(&t, &s, up++), GD_SRC_OK);
		assert_true(proc_by_pid(&s, 600)->detail_uptime_s.ok == !(i <= 2 || i == 8));
		gd_snapshot_release(&s);
	}
	/* 600 opens a GPU: not seen while NVML does not list it ... */
	put_fd(&t, 600, 9, "/dev/nvidia2");
	assert_int_equal(snap_at(&t, &s, up++), GD_SRC_OK);
	assert_true(proc_by_pid(&s, 600)->detail_uptime_s.ok);
	assert_int_equal(proc_by_pid(&s, 600)->nvidia_fds.v, 0);
	gd_snapshot_release(&s);
	/* ... and at once when it does */
	gd_snapshot_init(&s);
	gd_f64_set(&s.host.uptime_s, up++);
	g = GD_PUSH(&s, gpu_procs, struct gd_gpu_proc);
	gd_u64_set(&g->gpu, 2);
	gd_u64_set(&g->pid, 600);
	assert_int_equal(run(gd_collect_processes, &t.ctx, &s, &err), GD_SRC_OK);
	assert_false(proc_by_pid(&s, 600)->detail_uptime_s.ok);
	assert_int_equal(proc_by_pid(&s, 600)->nvidia_fds.v, 1);
	gd_snapshot_release(&s);
	/* a GPU job now: whole every cycle, listed or not */
	for (i = 0; i < 3; i++) {
		assert_int_equal(snap_at(&t, &s, up++), GD_SRC_OK);
		assert_false(proc_by_pid(&s, 600)->detail_uptime_s.ok);
		assert_int_equal(proc_by_pid(&s, 600)->nvidia_fds.v, 1);
		gd_snapshot_release(&s);
	}
	gd_proc_cache_free(t.ctx.proc_cache);
	tree_release(&t);
}

/* build_tree with a tiered cache of slow round 4, or a plain one. */
static void tree_cached(struct tree *t, bool tiered)
{
	build_tree(t);
	t->ctx.proc_cache = tiered ? gd_proc_cache_new_tiered(4, 4) : gd_proc_cache_new();
}

static void tree_cached_release(struct tree *t)
{
	gd_proc_cache_free(t->ctx.proc_cache);
	tree_release(t);
}

/* The tiered cache's job-thread waits: a thread that was not scheduled
 * since the last cycle (schedstat unchanged) keeps the system call and
 * wchan read then, so a changed syscall file is not seen until the thread
 * runs or the slow round comes; a plain cache reads them every cycle. */
static const char *main_syscall(struct tree *t, struct gd_snapshot *s, double up)
{
	struct gd_err err;
	const char *sc = NULL;

	assert_int_equal(snap_at(t, s, up), GD_SRC_OK);
	assert_int_equal(run(gd_collect_threads, &t->ctx, s, &err), GD_SRC_OK);
	assert_int_equal(run(gd_collect_job_threads, &t->ctx, s, &err), GD_SRC_OK);
	GD_VEC_EACH(s->job_threads, struct gd_job_thread, jt)
		if (jt->tid.v == 100) {
			sc = jt->syscall;
			assert_string_equal(jt->wchan, strcmp(sc, "futex") == 0 ? "futex_wait_queue" : "do_sys_poll");
		}
	assert_non_null(sc);
	return sc;
}

static void test_tiered_thread_waits(void **state)
{
	static const char futex[] = "202 0x7f00 0x80 0x0 0x0 0x0 0x0 0x7ffd00 0x7f10\n",
			  poll[] = "7 0x7f00 0x1 0x3e8 0x0 0x0 0x0 0x7ffd00 0x7f10\n";
	struct tree t;
	struct gd_snapshot s;
	double up = 100;
	int i;

	(void)state;
	for (int tiered = 1; tiered >= 0; tiered--) {
		tree_cached(&t, tiered);
		tree_put(&t, "proc/100/task/100/schedstat", "5000000 200000 40\n");
		tree_put(&t, "proc/100/task/100/syscall", futex);
		tree_put(&t, "proc/100/task/100/wchan", "futex_wait_queue");
		assert_string_equal(main_syscall(&t, &s, up++), "futex");
		gd_snapshot_release(&s);
		/* not scheduled since: the same wait (tiered), read again (plain) */
		tree_put(&t, "proc/100/task/100/syscall", poll);
		tree_put(&t, "proc/100/task/100/wchan", "do_sys_poll");
		assert_string_equal(main_syscall(&t, &s, up++), tiered ? "futex" : "poll");
		gd_snapshot_release(&s);
		/* it ran: read again */
		tree_put(&t, "proc/100/task/100/schedstat", "5100000 200000 41\n");
		assert_string_equal(main_syscall(&t, &s, up++), "poll");
		gd_snapshot_release(&s);
		/* a wait that changed without a timeslice (cannot happen, but the
		 * slow round bounds what a stale read could cost): seen within 4 */
		tree_put(&t, "proc/100/task/100/syscall", futex);
		tree_put(&t, "proc/100/task/100/wchan", "futex_wait_queue");
		for (i = 0; i < 4; i++) {
			bool seen = strcmp(main_syscall(&t, &s, up++), "futex") == 0;

			gd_snapshot_release(&s);
			if (seen)
				break;
		}
		assert_true(tiered ? i > 0 && i < 4 : i == 0);
		tree_cached_release(&t);
	}
}

/* The tiered cache's job-thread stat: a thread whose schedstat did not
 * move since the last cycle keeps the stat read then (its state and CPU
 * ticks), so a changed stat file, or a removed one, is not seen until the
 * schedstat moves or the slow round comes; job_threads takes the schedstat
 * the threads collector read.  A plain cache reads every file every cycle. */
static const struct gd_thread *thread_of(const struct gd_snapshot *s, uint64_t tid)
{
	GD_VEC_EACH(s->threads, const struct gd_thread, th)
		if (th->tid.v == tid)
			return th;
	return NULL;
}

static void threads_at(struct tree *t, struct gd_snapshot *s, double up)
{
	struct gd_err err;

	assert_int_equal(snap_at(t, s, up), GD_SRC_OK);
	assert_int_equal(run(gd_collect_threads, &t->ctx, s, &err), GD_SRC_OK);
}

static void test_tiered_thread_stat(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	const struct gd_thread *th;
	struct gd_err err;
	double up = 100;
	char path[512];
	int i;

	(void)state;
	for (int tiered = 1; tiered >= 0; tiered--) {
		tree_cached(&t, tiered);
		put_task(&t, 100, 101, "pt_worker", 'S', 10);
		tree_put(&t, "proc/100/task/101/schedstat", "7000000 1000 12\n");
		threads_at(&t, &s, up++);
		assert_non_null(th = thread_of(&s, 101));
		assert_string_equal(th->state, "S");
		gd_snapshot_release(&s);

		/* not scheduled since: the stat of the last cycle (tiered) */
		put_task(&t, 100, 101, "pt_worker", 'R', 90);
		threads_at(&t, &s, up++);
		assert_non_null(th = thread_of(&s, 101));
		assert_string_equal(th->state, tiered ? "S" : "R");
		assert_int_equal(th->utime_ticks.v, tiered ? 10 : 90);
		/* job_threads parses the schedstat this cycle read, not the file's now */
		tree_put(&t, "proc/100/task/101/schedstat", "7000000 1000 13\n");
		assert_int_equal(run(gd_collect_job_threads, &t.ctx, &s, &err), GD_SRC_OK);
		GD_VEC_EACH(s.job_threads, struct gd_job_thread, jt)
			if (jt->tid.v == 101)
				assert_int_equal(jt->timeslices.v, tiered ? 12 : 13);
		gd_snapshot_release(&s);

		/* its schedstat moved (above): stat read again */
		threads_at(&t, &s, up++);
		assert_non_null(th = thread_of(&s, 101));
		assert_string_equal(th->state, "R");
		assert_int_equal(th->utime_ticks.v, 90);
		gd_snapshot_release(&s);

		/* a stat gone without a schedstat change: the thread as it was
		 * (tiered) until the slow round reads it (within 4 cycles) */
		snprintf(path, sizeof path, "%s/proc/100/task/101/stat", t.dir);
		assert_int_equal(unlink(path), 0);
		for (i = 0; i < 5; i++) {
			bool listed;

			threads_at(&t, &s, up++);
			listed = thread_of(&s, 101) != NULL;
			gd_snapshot_release(&s);
			if (!listed)
				break;
		}
		assert_true(tiered ? i > 0 && i < 4 : i == 0);
		tree_cached_release(&t);
	}
}

/* The tiered cache's fd walk of a GPU job: past its young cycles, walked
 * again only when the fd directory's stat changed (procfs: the count of
 * open fds; here its modification time) or on the slow round.  A link
 * changed behind a restored time is not seen until the slow round; a new
 * link is seen at once.  A plain cache walks every cycle. */
static const struct gd_proc *job_at(struct tree *t, struct gd_snapshot *s, double up)
{
	assert_int_equal(snap_at(t, s, up), GD_SRC_OK);
	return proc_by_pid(s, 100);
}

static void test_tiered_fd_walk(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	const struct gd_proc *p;
	struct stat st;
	struct timespec times[2];
	char dir[512];
	double up = 100;
	int i;

	(void)state;
	for (int tiered = 1; tiered >= 0; tiered--) {
		tree_cached(&t, tiered);
		snprintf(dir, sizeof dir, "%s/proc/100/fd", t.dir);
		for (i = 1; i <= 5; i++) {   /* cycle 4 is pid 100's slow round */
			assert_non_null(p = job_at(&t, &s, up++));
			assert_string_equal(p->nvidia_devs, "0");
			gd_snapshot_release(&s);
		}
		/* fd 3 closed and another GPU opened under the same number, the
		 * directory's time put back: cycle 6, not young, not its round */
		assert_int_equal(stat(dir, &st), 0);
		relink(&t, "/dev/nvidia2", "proc/100/fd/3");
		times[0] = st.st_atim;
		times[1] = st.st_mtim;
		assert_int_equal(utimensat(AT_FDCWD, dir, times, 0), 0);
		assert_non_null(p = job_at(&t, &s, up++));
		assert_string_equal(p->nvidia_devs, tiered ? "0" : "2");
		gd_snapshot_release(&s);
		for (i = 0; i < 4; i++) {   /* the slow round walks it: cycle 8 */
			bool seen;

			assert_non_null(p = job_at(&t, &s, up++));
			seen = strcmp(p->nvidia_devs, "2") == 0;
			gd_snapshot_release(&s);
			if (seen)
				break;
		}
		assert_true(tiered ? i > 0 && i < 4 : i == 0);
		/* a second GPU opened: the directory changed, walked at once */
		put_fd(&t, 100, 10, "/dev/nvidia1");
		assert_non_null(p = job_at(&t, &s, up++));
		assert_string_equal(p->nvidia_devs, "1,2");
		assert_int_equal(p->nvidia_fds.v, 2);
		gd_snapshot_release(&s);
		tree_cached_release(&t);
	}
}

/* The tiered cache's maps: read every cycle while the process is young,
 * then once per slow round; a plain cache reads them every cycle. */
static const char *job_runtime(struct tree *t, struct gd_snapshot *s, double up)
{
	struct gd_err err;

	assert_int_equal(snap_at(t, s, up), GD_SRC_OK);
	assert_int_equal(run(gd_collect_cuda_runtime, &t->ctx, s, &err), GD_SRC_OK);
	return proc_by_pid(s, 100)->cuda_runtime;
}

static void test_tiered_maps(void **state)
{
	static const char m124[] = "7f2c4a000000-7f2c4a0c8000 r-xp 00000000 103:02 1835123 "
				   "/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127\n",
			  m128[] = "7f2c4a000000-7f2c4a0c8000 r-xp 00000000 103:02 1835124 "
				   "/usr/local/cuda-12.8/lib64/libcudart.so.12.8.90\n";
	struct tree t;
	struct gd_snapshot s;
	double up = 100;
	int i;

	(void)state;
	for (int tiered = 1; tiered >= 0; tiered--) {
		tree_cached(&t, tiered);
		tree_put(&t, "proc/100/maps", "");
		/* young: read every cycle (a job maps its runtime at its first CUDA call) */
		assert_string_equal(job_runtime(&t, &s, up++), "");
		gd_snapshot_release(&s);
		tree_put(&t, "proc/100/maps", m124);
		assert_string_equal(job_runtime(&t, &s, up++), "12.4.127");
		gd_snapshot_release(&s);
		for (i = 0; i < 4; i++) {
			assert_string_equal(job_runtime(&t, &s, up++), "12.4.127");
			gd_snapshot_release(&s);
		}
		/* grown up: the last scan stands until the slow round (4 cycles) */
		tree_put(&t, "proc/100/maps", m128);
		for (i = 0; i < 5; i++) {
			bool seen = strcmp(job_runtime(&t, &s, up++), "12.8.90") == 0;

			if (!seen)
				assert_string_equal(proc_by_pid(&s, 100)->cuda_runtime_file,
						    "/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127");
			gd_snapshot_release(&s);
			if (seen)
				break;
		}
		assert_true(tiered ? i > 0 && i < 5 : i == 0);
		tree_cached_release(&t);
	}
}

/* ---- this machine ------------------------------------------------------ */

static void test_processes_live(void **state)
{
	struct gd_root root;
	struct gd_collect_ctx ctx;
	struct gd_snapshot s;
	struct gd_err err;
	enum gd_src_status st;
	struct gd_proc *me;

	(void)state;
	assert_int_equal(gd_root_open(&root, "/", &err), 0);
	memset(&ctx, 0, sizeof ctx);   /* no NVML, no sampler, no cache */
	ctx.root = &root;
	gd_snapshot_init(&s);
	gd_u64_set(&s.host.page_size_bytes, (uint64_t)sysconf(_SC_PAGESIZE));
	run(gd_collect_proc_mounts, &ctx, &s, &err);
	st = run(gd_collect_processes, &ctx, &s, &err);
	assert_true(st == GD_SRC_OK || st == GD_SRC_PARTIAL);
	assert_true(s.procs.n >= 2);
	me = proc_by_pid(&s, (uint64_t)getpid());
	assert_string_equal(me->comm, "test_collect_pr");   /* comm is 15 bytes */
	assert_int_equal(me->uid.v, getuid());
	assert_true(me->rss_bytes.ok && me->rss_bytes.v > 0);
	assert_true(me->nvidia_fds.ok);
	assert_non_null(strstr(me->cmdline, "test_collect_proc"));
	assert_int_equal(strncmp(me->mntns, "mnt:[", 5), 0);
	/* pid 2 is kthreadd where the pid namespace is the host's. */
	GD_VEC_EACH(s.procs, const struct gd_proc, p)
		if (p->pid.v == 2 && strcmp(p->comm, "kthreadd") == 0)
			assert_int_equal(p->kthread.v, 1);
	st = run(gd_collect_threads, &ctx, &s, &err);
	assert_true(st == GD_SRC_OK || st == GD_SRC_PARTIAL);
	gd_snapshot_release(&s);
	gd_root_release(&root);
}

/* ---- held files (the tiered walk reads a file held open with pread) ---- */

static struct gd_proc *proc_by_pid_or_null(struct gd_snapshot *s, uint64_t pid)
{
	GD_VEC_EACH(s->procs, struct gd_proc, p)
		if (p->pid.ok && p->pid.v == pid)
			return p;
	return NULL;
}

/* Removes rel (a directory with what it holds) from the tree. */
static void tree_rm(struct tree *t, const char *rel)
{
	char path[512];

	snprintf(path, sizeof path, "%s/%s", t->dir, rel);
	assert_int_equal(nftw(path, tree_rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* Descriptors this process holds. */
static size_t fds_open(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;   /* opendir's own */
}

/* Writes text to rel under a new name, then renames it over rel (a file
 * replaced at once: the held file of the old one is no longer linked). */
static void tree_replace(struct tree *t, const char *rel, const char *text)
{
	char tmp[600], path[512];

	snprintf(path, sizeof path, "%s/%s", t->dir, rel);
	snprintf(tmp, sizeof tmp, "%s.new", path);
	FILE *f = fopen(tmp, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(tmp, path), 0);
}

static uint64_t utime_of(struct gd_snapshot *s, uint64_t pid)
{
	return proc_by_pid(s, pid)->utime_ticks.v;
}

/* Under a --root tree: each process's stat and each GPU-job thread's
 * schedstat are held from the first cycle; a file rewritten in place and
 * one replaced by rename are both read as they are now; a process or a
 * thread that is gone has its file closed the next cycle; freeing the
 * cache closes the rest. */
static void test_tiered_held_files(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	char line[512];
	size_t base, held;
	double up = 100;

	(void)state;
	base = fds_open();
	tree_cached(&t, true);
	base++;   /* the tree's root */
	tree_put(&t, "proc/100/task/100/schedstat", "5000000 200000 40\n");
	tree_put(&t, "proc/100/task/101/schedstat", "9000000 100 90\n");
	tree_put(&t, "proc/200/task/200/schedstat", "70000 0 3\n");
	threads_at(&t, &s, up++);
	/* 100, 200, 300, 600 (400 has no stat), and the three job threads */
	assert_int_equal(gd_proc_cache_held(t.ctx.proc_cache), 7);
	assert_int_equal(fds_open(), base + 7);
	assert_int_equal(utime_of(&s, 600), 700);
	gd_snapshot_release(&s);

	/* rewritten in place, then replaced: both seen, still 7 held */
	stat_line(line, sizeof line, 600, "sshd", 'R', 1, 0x400100, 800, 10, 2, 5600, 256);
	tree_put(&t, "proc/600/stat", line);
	threads_at(&t, &s, up++);
	assert_int_equal(utime_of(&s, 600), 800);
	gd_snapshot_release(&s);
	stat_line(line, sizeof line, 600, "sshd", 'R', 1, 0x400100, 900, 10, 2, 5600, 256);
	tree_replace(&t, "proc/600/stat", line);
	tree_replace(&t, "proc/100/task/101/schedstat", "9900000 100 91\n");
	put_task(&t, 100, 101, "pt_data_worker", 'R', 9100);
	threads_at(&t, &s, up++);
	assert_int_equal(utime_of(&s, 600), 900);
	assert_int_equal(thread_of(&s, 101)->utime_ticks.v, 9100);   /* its schedstat moved */
	assert_int_equal(gd_proc_cache_held(t.ctx.proc_cache), 7);
	assert_int_equal(fds_open(), base + 7);
	gd_snapshot_release(&s);

	/* 600 exits, and the job's thread 101 */
	tree_rm(&t, "proc/600");
	tree_rm(&t, "proc/100/task/101");
	threads_at(&t, &s, up++);
	assert_null(proc_by_pid_or_null(&s, 600));
	assert_null(thread_of(&s, 101));
	held = gd_proc_cache_held(t.ctx.proc_cache);
	assert_int_equal(held, 5);
	assert_int_equal(fds_open(), base + 5);
	gd_snapshot_release(&s);

	/* many cycles: nothing more held, nothing leaked */
	for (int i = 0; i < 40; i++) {
		threads_at(&t, &s, up++);
		gd_snapshot_release(&s);
	}
	assert_int_equal(gd_proc_cache_held(t.ctx.proc_cache), held);
	assert_int_equal(fds_open(), base + held);
	tree_cached_release(&t);
	assert_int_equal(fds_open(), base - 1);
}

/* One cache given another tree (as a test's cycles, each its own tree):
 * the new tree's files are read, not the ones held under the old. */
static void test_tiered_held_other_tree(void **state)
{
	struct tree a, b;
	struct gd_snapshot s;
	struct gd_proc_cache *c;
	char line[512];
	double up = 100;

	(void)state;
	tree_cached(&a, true);
	build_tree(&b);
	c = a.ctx.proc_cache;
	b.ctx.proc_cache = c;
	stat_line(line, sizeof line, 600, "sshd", 'R', 1, 0x400100, 4321, 10, 2, 5600, 256);
	tree_put(&b, "proc/600/stat", line);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(snap_at(&a, &s, up++), GD_SRC_OK);
		assert_int_equal(utime_of(&s, 600), 700);
		gd_snapshot_release(&s);
		assert_true(gd_proc_cache_held(c) >= 4);
		assert_int_equal(snap_at(&b, &s, up++), GD_SRC_OK);
		assert_int_equal(utime_of(&s, 600), 4321);
		gd_snapshot_release(&s);
	}
	b.ctx.proc_cache = NULL;
	tree_release(&b);
	tree_cached_release(&a);
}

/* A soft limit of open files under twice the reserve: nothing is held,
 * and the cycles read the same as with files held. */
static void test_tiered_held_none_under_low_limit(void **state)
{
	struct rlimit old, low;
	struct tree ta, tb, *t[2] = { &ta, &tb };
	struct gd_snapshot s[2];
	char line[512];
	double up = 100;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	for (int i = 0; i < 2; i++) {
		if (i == 1) {
			low = old;
			low.rlim_cur = 1024;
			assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
		}
		tree_cached(t[i], true);
		if (i == 1)
			assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
		tree_put(t[i], "proc/100/task/101/schedstat", "9000000 100 90\n");
	}
	for (int c = 0; c < 6; c++) {
		for (int i = 0; i < 2; i++) {
			stat_line(line, sizeof line, 600, "sshd", 'R', 1, 0x400100, 700 + 10 * (unsigned)c, 10, 2, 5600,
				  256);
			tree_put(t[i], "proc/600/stat", line);
			threads_at(t[i], &s[i], up);
		}
		up++;
		assert_int_equal(gd_proc_cache_held(t[1]->ctx.proc_cache), 0);
		assert_true(gd_proc_cache_held(t[0]->ctx.proc_cache) > 0);
		assert_int_equal(s[0].procs.n, s[1].procs.n);
		for (size_t k = 0; k < s[0].procs.n; k++) {
			const struct gd_proc *a = GD_VEC_AT(s[0].procs, struct gd_proc, k),
					     *b = GD_VEC_AT(s[1].procs, struct gd_proc, k);

			assert_int_equal(a->pid.v, b->pid.v);
			assert_int_equal(a->utime_ticks.v, b->utime_ticks.v);
			assert_string_equal(a->state, b->state);
		}
		assert_int_equal(utime_of(&s[0], 600), 700 + 10 * (unsigned)c);
		assert_int_equal(s[0].threads.n, s[1].threads.n);
		for (int i = 0; i < 2; i++)
			gd_snapshot_release(&s[i]);
	}
	for (int i = 0; i < 2; i++)
		tree_cached_release(t[i]);
}

/* On this machine's procfs: a held stat is made anew by each read (our
 * own CPU time grows through it), and a child that exits and is reaped
 * is not listed and its file is closed. */
static void test_tiered_held_live(void **state)
{
	struct gd_root root;
	struct gd_collect_ctx ctx;
	struct gd_snapshot s;
	struct gd_err err;
	uint64_t cpu0, cpu1;
	size_t held0;
	pid_t child;
	int p[2];
	char c;

	(void)state;
	assert_int_equal(pipe(p), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close(p[1]);
		(void)!read(p[0], &c, 1);   /* until the parent closes its end */
		_exit(0);
	}
	close(p[0]);
	assert_int_equal(gd_root_open(&root, "/", &err), 0);
	memset(&ctx, 0, sizeof ctx);
	ctx.root = &root;
	ctx.proc_cache = gd_proc_cache_new_tiered(GD_PROC_YOUNG, GD_PROC_SLOW_ROUND);
	for (int i = 0; i < 2; i++) {   /* past the first cycle: held */
		gd_snapshot_init(&s);
		run(gd_collect_processes, &ctx, &s, &err);
		if (i == 0)
			gd_snapshot_release(&s);
	}
	assert_non_null(proc_by_pid_or_null(&s, (uint64_t)child));
	held0 = gd_proc_cache_held(ctx.proc_cache);
	assert_true(held0 >= 2);
	cpu0 = utime_of(&s, (uint64_t)getpid()) + proc_by_pid(&s, (uint64_t)getpid())->stime_ticks.v;
	gd_snapshot_release(&s);
	/* burn CPU until procfs counts at least 3 more ticks */
	for (;;) {
		struct timespec ts;
		volatile uint64_t x = 0;

		for (int k = 0; k < 1000000; k++)
			x += (uint64_t)k;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		if (ts.tv_sec * 100 + ts.tv_nsec / 10000000 >= (long)cpu0 + 5)
			break;
	}
	close(p[1]);
	assert_int_equal(waitpid(child, NULL, 0), child);
	gd_snapshot_init(&s);
	run(gd_collect_processes, &ctx, &s, &err);
	assert_null(proc_by_pid_or_null(&s, (uint64_t)child));
	cpu1 = utime_of(&s, (uint64_t)getpid()) + proc_by_pid(&s, (uint64_t)getpid())->stime_ticks.v;
	assert_true(cpu1 >= cpu0 + 3);
	assert_true(gd_proc_cache_held(ctx.proc_cache) < held0 + 8);   /* others may come and go */
	gd_snapshot_release(&s);
	gd_proc_cache_free(ctx.proc_cache);
	gd_root_release(&root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_real),
		cmocka_unit_test(test_stat_comm_parens),
		cmocka_unit_test(test_stat_kthread_and_old),
		cmocka_unit_test(test_stat_malformed),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_io),
		cmocka_unit_test(test_cgroup_lines),
		cmocka_unit_test(test_gpu_job_marks),
		cmocka_unit_test(test_snapshot_proc_lookup),
		cmocka_unit_test(test_processes_pid_order),
		cmocka_unit_test(test_processes_fixture),
		cmocka_unit_test(test_processes_broken),
		cmocka_unit_test(test_threads_cap),
		cmocka_unit_test(test_cache_lifetime_files),
		cmocka_unit_test(test_cache_problems_and_kthreads),
		cmocka_unit_test(test_cache_churn),
		cmocka_unit_test(test_tiered_walk),
		cmocka_unit_test(test_tiered_young_slow_nvml),
		cmocka_unit_test(test_tiered_thread_waits),
		cmocka_unit_test(test_tiered_thread_stat),
		cmocka_unit_test(test_tiered_fd_walk),
		cmocka_unit_test(test_tiered_maps),
		cmocka_unit_test(test_processes_live),
		cmocka_unit_test(test_tiered_held_files),
		cmocka_unit_test(test_tiered_held_other_tree),
		cmocka_unit_test(test_tiered_held_none_under_low_limit),
		cmocka_unit_test(test_tiered_held_live),
	};

	return cmocka_run_group_tests(tests, NULL, tree_sweep);
}
