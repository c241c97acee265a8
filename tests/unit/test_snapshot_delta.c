/*
 * test_snapshot_delta.c - recording lines that write unchanged processes and
 * threads as references to the line before (src/model/snapshot_delta.c).
 *
 * The promise is that the reader gives back exactly what was recorded, so
 * every test writes a series through gd_rec (the writer `record` uses) and
 * compares what the reader gives, snapshot by snapshot, with the JSON of the
 * snapshots that were written.  The series has what a host's process list
 * does: sleeping processes (unchanged), busy ones (changed every line), one
 * that exits, one that starts, a pid reused by another process, a pid listed
 * twice, a record with no pid, a pid past INT64_MAX, bytes that are not
 * text, and threads and job threads that change or sleep.  Then the
 * recordings a user could make of it: plain and gzip, read in line and read
 * ahead, rotated, a piece cut from the middle, a line taken out, a line
 * damaged, and one fed to a reader of single snapshots.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <unistd.h>

#include "testutil.h"
#include "model/recording.h"
#include "model/snapshot_delta.h"
#include "model/snapshot_json.h"
#include "../snapshot_fast_check.h"

#define NSNAP 13
#define NPROC 40

/* Snapshot i of the series. */
static void make_snap(struct gd_snapshot *s, int i)
{
	gd_snapshot_init(s);
	gd_f64_set(&s->host.uptime_s, 1000.0 + i);
	gd_f64_set(&s->host.wall_time_s, 1796155200.25 + i);
	GD_STRSET(s->host.hostname, "n1");
	for (int pid = 1; pid <= NPROC; pid++) {
		struct gd_proc *p;

		if (pid == 17 && i >= 5)   /* exits */
			continue;
		p = GD_PUSH(s, procs, struct gd_proc);
		gd_u64_set(&p->pid, (uint64_t)pid);
		gd_u64_set(&p->ppid, 1);
		snprintf(p->comm, sizeof p->comm, "proc%d", pid);
		snprintf(p->cmdline, sizeof p->cmdline, "/usr/bin/proc%d --flag", pid);
		GD_STRSET(p->state, pid % 4 == 0 ? "R" : pid == 13 && i % 2 ? "D" : "S");   /* 13: only its state moves */
		gd_u64_set(&p->starttime_ticks, pid == 20 && i >= 6 ? 90000 : (uint64_t)pid * 10);
		/* a quarter busy: their CPU time moves every line */
		gd_u64_set(&p->utime_ticks, pid % 4 == 0 ? (uint64_t)(100 + i * 7) : 55);
		gd_u64_set(&p->stime_ticks, 3);
		gd_u64_set(&p->rss_bytes, (uint64_t)pid << 20);
		if (pid == 9)
			GD_STRSET(p->comm, "bad\xff\xfe");   /* written as "bad??" */
		if (pid == 31)
			p->pid.ok = false;                   /* no pid: never a reference */
		if (pid == 33)
			gd_u64_set(&p->pid, UINT64_MAX);     /* written as digits: never a reference */
	}
	if (i >= 2 && i < 4) {   /* pid 30 twice */
		struct gd_proc *p = GD_PUSH(s, procs, struct gd_proc);

		gd_u64_set(&p->pid, 30);
		GD_STRSET(p->comm, "twin");
	}
	if (i >= 3) {   /* starts */
		struct gd_proc *p = GD_PUSH(s, procs, struct gd_proc);

		gd_u64_set(&p->pid, 50);
		GD_STRSET(p->comm, "late");
		gd_u64_set(&p->utime_ticks, 1);
	}
	for (int tid = 100; tid < 106; tid++) {
		struct gd_thread *t = GD_PUSH(s, threads, struct gd_thread);
		struct gd_job_thread *j = GD_PUSH(s, job_threads, struct gd_job_thread);

		gd_u64_set(&t->pid, 100);
		gd_u64_set(&t->tid, (uint64_t)tid);
		gd_u64_set(&t->utime_ticks, tid == 100 ? (uint64_t)i : 4);
		gd_u64_set(&j->pid, 100);
		gd_u64_set(&j->tid, (uint64_t)tid);
		GD_STRSET(j->role, tid == 101 ? "nccl" : "other");
		gd_u64_set(&j->run_ns, tid == 101 ? (uint64_t)i * 1000000 : 5);
	}
	/* a section without keys, changing */
	{
		struct gd_disk *d = GD_PUSH(s, disks, struct gd_disk);

		GD_STRSET(d->name, "sda");
	}
}

static char *dump_of(const struct gd_snapshot *s)
{
	return fast_check_dump(s);
}

/* Writes the series to path (full_every; rotating at max_bytes when > 0). */
static size_t write_series(const char *path, unsigned full_every, double max_bytes)
{
	struct gd_rec rec;
	struct gd_err err;

	unlink(path);
	assert_int_equal(gd_rec_open(&rec, path, max_bytes, 0, full_every, 0, &err), 0);
	for (int i = 0; i < NSNAP; i++) {
		struct gd_snapshot s;

		make_snap(&s, i);
		assert_int_equal(gd_rec_write(&rec, &s, 0, &err), 0);
		gd_snapshot_release(&s);
	}
	assert_int_equal(gd_rec_close(&rec, &err), 0);
	return rec.refs;
}

/* Reads path; each snapshot must be snapshot first+k of the series. */
static void read_back(const char *path, bool ahead, int first, int expect_n, const char *note_has)
{
	struct gd_jsonl_reader r;
	struct gd_snapshot s;
	struct gd_err err;
	int k = 0, rc;

	gd_err_clear(&err);
	assert_int_equal(gd_jsonl_open(&r, path, &err), 0);
	if (ahead)
		gd_jsonl_prefetch(&r);
	gd_snapshot_init(&s);
	while ((rc = gd_jsonl_next(&r, &s, &err)) > 0) {
		struct gd_snapshot want;
		char *a = dump_of(&s), *b;

		make_snap(&want, first + k);
		b = dump_of(&want);
		if (strcmp(a, b) != 0)
			fail_msg("%s: snapshot %d differs:\n%.600s\n%.600s", path, first + k, a, b);
		free(a);
		free(b);
		gd_snapshot_release(&want);
		gd_snapshot_release(&s);
		gd_snapshot_init(&s);
		k++;
	}
	gd_snapshot_release(&s);
	if (rc < 0)
		fail_msg("%s: %s", path, err.msg);
	assert_int_equal(k, expect_n);
	if (note_has && !strstr(r.note, note_has))
		fail_msg("%s: note \"%s\" lacks \"%s\"", path, r.note, note_has);
	if (!note_has && r.note[0])
		fail_msg("%s: unexpected note \"%s\"", path, r.note);
	gd_jsonl_close(&r);
}

/* The lines of a plain recording. */
static size_t lines_of(const char *path, char ***out)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, n = 0;
	char **v = NULL;

	assert_non_null(f);
	while (getline(&line, &cap, f) > 0) {
		v = realloc(v, (n + 1) * sizeof *v);
		assert_non_null(v);
		v[n++] = strdup(line);
	}
	free(line);
	fclose(f);
	*out = v;
	return n;
}

static void free_lines(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void write_lines(const char *path, char **v, size_t from, size_t to, size_t skip)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (size_t i = from; i < to; i++)
		if (i != skip)
			fputs(v[i], f);
	assert_int_equal(fclose(f), 0);
}

static long size_of(const char *path)
{
	FILE *f = fopen(path, "r");
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return n;
}

/* A new directory in dir (of "/tmp/gd-delta.XXXXXX"), a and b named in it. */
static void temp_pair(char *dir, char *a, const char *na, char *b, const char *nb)
{
	assert_non_null(mkdtemp(dir));
	snprintf(a, 64, "%s/%s", dir, na);
	snprintf(b, 64, "%s/%s", dir, nb);
}

static void test_round_trip(void **state)
{
	char dir[] = "/tmp/gd-delta.XXXXXX", plain[64], gz[64], whole[64];
	char **v;
	size_t n, refs;
	long size_delta, size_whole;

	(void)state;
	temp_pair(dir, plain, "r.jsonl", gz, "r.jsonl.gz");
	snprintf(whole, sizeof whole, "%s/w.jsonl", dir);
	refs = write_series(plain, 4, 0);
	/* the sleeping processes and threads, not the busy, new, reused,
	 * twinned, keyless or huge ones */
	assert_true(refs > (NSNAP - 4) * 20);
	assert_int_equal(write_series(gz, 4, 0), refs);
	assert_int_equal(write_series(whole, 1, 0), 0);
	read_back(plain, false, 0, NSNAP, NULL);
	read_back(plain, true, 0, NSNAP, NULL);
	read_back(gz, false, 0, NSNAP, NULL);
	read_back(gz, true, 0, NSNAP, NULL);
	read_back(whole, false, 0, NSNAP, NULL);

	/* lines 0, 4, 8, 12 whole; the others version 2 with "after" */
	n = lines_of(plain, &v);
	assert_int_equal(n, NSNAP);
	for (size_t i = 0; i < n; i++) {
		char after[64];

		snprintf(after, sizeof after, "{\"version\":2,\"after\":%.17g,", 1796155200.25 + (double)i - 1);
		if (i % 4 == 0)
			assert_true(strncmp(v[i], "{\"version\":1,\"host\"", 19) == 0);
		else if (strncmp(v[i], after, 22) != 0)
			fail_msg("line %zu starts %.60s", i, v[i]);
		/* pid 30 while it was twinned, and the line after: written whole */
		if (i == 3 || i == 4)
			assert_non_null(strstr(v[i], "\"pid\":30,"));
	}
	/* sleeping processes as their pids, a busy one whole */
	assert_non_null(strstr(v[1], "\"procs\":[1,2,3,{\"pid\":4,"));
	free_lines(v, n);

	size_delta = size_of(plain);
	size_whole = size_of(whole);
	if (!(size_delta * 10 < size_whole * 7))
		fail_msg("%ld bytes with references, %ld without", size_delta, size_whole);
	unlink(plain);
	unlink(gz);
	unlink(whole);
	rmdir(dir);
}

/* A rotated recording: each file begins whole, and both read back. */
static void test_rotation(void **state)
{
	char dir[] = "/tmp/gd-delta.XXXXXX", path[64], old[64];
	char **v;
	size_t n, n1;

	(void)state;
	temp_pair(dir, path, "r.jsonl", old, "r.jsonl.1");
	/* past 60 KB: a few lines a file */
	write_series(path, 100, 60000);
	n1 = lines_of(old, &v);
	assert_true(n1 >= 2 && n1 < NSNAP);
	assert_true(strncmp(v[0], "{\"version\":1,", 13) == 0);
	assert_true(strncmp(v[1], "{\"version\":2,", 13) == 0);
	free_lines(v, n1);
	n = lines_of(path, &v);
	assert_true(n >= 1);
	assert_true(strncmp(v[0], "{\"version\":1,", 13) == 0);
	free_lines(v, n);
	read_back(path, false, NSNAP - (int)n, (int)n, NULL);
	unlink(path);
	unlink(old);
	rmdir(dir);
}

/* Pieces of a recording: what can be put back is, the rest is left out
 * with a note, never filled from a line that is not the one before. */
static void test_pieces(void **state)
{
	char dir[] = "/tmp/gd-delta.XXXXXX", path[64], piece[64];
	char **v;
	size_t n;

	(void)state;
	temp_pair(dir, path, "r.jsonl", piece, "p.jsonl");
	write_series(path, 4, 0);
	n = lines_of(path, &v);

	/* cut from line 2 on: lines 2 and 3 left out, 4.. read */
	write_lines(piece, v, 2, n, (size_t)-1);
	read_back(piece, false, 4, NSNAP - 4, "2 lines are left out");
	read_back(piece, true, 4, NSNAP - 4, "which was not read");

	/* line 5 taken out: 6 and 7 cannot be put back (6 was written after
	 * 5), 8 is whole */
	write_lines(piece, v, 0, n, 5);
	{
		/* and what is read after the gap is the series from 8 */
		struct gd_series ser;
		struct gd_err err;
		char *a, *b;
		struct gd_snapshot want;

		gd_series_init(&ser);
		assert_int_equal(gd_series_load_jsonl(&ser, piece, &err), 0);
		assert_int_equal(ser.n, NSNAP - 3);
		for (size_t k = 0; k < ser.n; k++) {
			make_snap(&want, k < 5 ? (int)k : (int)k + 3);
			a = dump_of(&ser.items[k]);
			b = dump_of(&want);
			assert_string_equal(a, b);
			free(a);
			free(b);
			gd_snapshot_release(&want);
		}
		if (!strstr(ser.note, "2 lines are left out") || !strstr(ser.note, "lines taken out of the recording"))
			fail_msg("note: %s", ser.note);
		gd_series_release(&ser);
	}
	free_lines(v, n);
	unlink(path);
	unlink(piece);
	rmdir(dir);
}

/* A damaged line: its reference names a pid the line before lacks. */
static void test_damaged(void **state)
{
	char path[] = "/tmp/gd-delta-bad.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct gd_series ser;
	struct gd_err err;

	(void)state;
	assert_non_null(f);
	fputs("{\"version\":1,\"host\":{\"uptime_s\":1.0},\"procs\":[{\"pid\":4,\"comm\":\"a\"}]}\n", f);
	fputs("{\"version\":2,\"after\":1.0,\"host\":{\"uptime_s\":2.0},\"procs\":[4]}\n", f);
	fputs("{\"version\":2,\"after\":2.0,\"host\":{\"uptime_s\":3.0},\"procs\":[5]}\n", f);
	fputs("{\"version\":2,\"after\":3.0,\"host\":{\"uptime_s\":4.0},\"procs\":[4]}\n", f);
	fputs("{\"version\":1,\"host\":{\"uptime_s\":5.0},\"procs\":[]}\n", f);
	assert_int_equal(fclose(f), 0);
	gd_series_init(&ser);
	assert_int_equal(gd_series_load_jsonl(&ser, path, &err), 0);
	assert_int_equal(ser.n, 3);
	assert_string_equal(GD_VEC_AT(ser.items[1].procs, struct gd_proc, 0)->comm, "a");
	if (!strstr(ser.note, "2 lines are left out") || !strstr(ser.note, ":3: procs[0] is pid 5") ||
	    !strstr(ser.note, "the recording is damaged"))
		fail_msg("note: %s", ser.note);
	gd_series_release(&ser);
	unlink(path);
}

/* A reader of single snapshots (check --from FILE.json) refuses a line
 * that needs the line before, saying why; the line-by-line reader of
 * fleet FILE puts it back, and after a bad line does not. */
static void test_single_and_after(void **state)
{
	static const char *const lines[] = {
		"{\"version\":1,\"host\":{\"uptime_s\":1.0},\"procs\":[{\"pid\":4,\"comm\":\"a\"}]}",
		"{\"version\":2,\"after\":1.0,\"host\":{\"uptime_s\":2.0},\"procs\":[4]}",
		"{\"version\":2,\"after\":2.0,\"host\":{\"uptime_s\":3.0},\"procs\":[{}}",   /* bad */
		"{\"version\":2,\"after\":3.0,\"host\":{\"uptime_s\":4.0},\"procs\":[4]}",
	};
	struct gd_delta_base base;
	struct gd_err err;

	(void)state;
	gd_delta_base_init(&base);
	for (size_t i = 0; i < 4; i++) {
		json_error_t je;
		json_t *o = json_loads(lines[i], 0, &je);
		struct gd_snapshot s;
		int rc;

		gd_snapshot_init(&s);
		gd_err_clear(&err);
		if (i == 1) {
			assert_int_equal(gd_snapshot_from_json(o, &s, &err), -EINVAL);
			assert_non_null(strstr(err.msg, "procs[0]: pid 4 as in the snapshot before"));
			gd_snapshot_release(&s);
			gd_snapshot_init(&s);
		}
		if (!o) {
			assert_int_equal(i, 2);
			gd_delta_base_forget(&base);   /* as fleet does on a bad line */
			continue;
		}
		rc = gd_snapshot_from_json_after(o, &s, &base, "n1.jsonl", &err);
		if (i == 3) {
			assert_int_equal(rc, -EINVAL);
			assert_non_null(strstr(err.msg, "n1.jsonl: procs[0] is pid 4 as in the line before, which was not read"));
		} else {
			assert_int_equal(rc, 0);
			assert_string_equal(GD_VEC_AT(s.procs, struct gd_proc, 0)->comm, "a");
		}
		json_decref(o);
		gd_snapshot_release(&s);
	}
	gd_delta_base_release(&base);
}

/* Written the same: what the JSON would say, not the struct's bytes. */
static void test_same_written(void **state)
{
	const struct gd_record_desc *host = gd_section_find("host"), *procs = gd_section_find("procs");
	struct gd_host a, b;
	struct gd_proc p, q;

	(void)state;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	gd_f64_set(&a.uptime_s, NAN);           /* written null, as an absent one */
	b.uptime_s.v = 7;                       /* absent, whatever its value */
	assert_true(gd_delta_same_written(host, &a, &b));
	gd_f64_set(&b.uptime_s, 7);
	assert_false(gd_delta_same_written(host, &a, &b));
	gd_f64_set(&a.uptime_s, 7);
	assert_true(gd_delta_same_written(host, &a, &b));
	gd_f64_set(&a.uptime_s, 7.000000000000001);
	assert_false(gd_delta_same_written(host, &a, &b));

	memset(&p, 0, sizeof p);
	memset(&q, 0, sizeof q);
	GD_STRSET(p.comm, "x");
	GD_STRSET(q.comm, "x");
	q.comm[5] = 'z';                        /* past the end of the text */
	assert_true(gd_delta_same_written(procs, &p, &q));
	GD_STRSET(q.state, "D");
	assert_false(gd_delta_same_written(procs, &p, &q));
	GD_STRSET(q.state, "");
	q.utime_ticks.v = 9;                    /* absent */
	assert_true(gd_delta_same_written(procs, &p, &q));
	gd_u64_set(&q.utime_ticks, 0);
	assert_false(gd_delta_same_written(procs, &p, &q));
}

/* The recordings among the fixtures (gpudoctor's own, of real hosts and
 * scenarios), written again with references and read back: the same
 * snapshots. */
static void test_fixture_recordings(void **state)
{
	glob_t g;
	char path[] = "/tmp/gd-delta-fx.XXXXXX";
	int fd = mkstemp(path);
	size_t refs = 0, snaps = 0;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(glob(GD_SRCDIR "/tests/offline/*/*.jsonl", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 10);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct gd_series in, out;
		struct gd_rec rec;
		struct gd_err err;

		gd_series_init(&in);
		gd_series_init(&out);
		if (gd_series_load_jsonl(&in, g.gl_pathv[i], &err) < 0) {
			gd_series_release(&in);
			continue;   /* a fixture of a bad file */
		}
		unlink(path);
		assert_int_equal(gd_rec_open(&rec, path, 0, 0, 3, 0, &err), 0);
		for (size_t k = 0; k < in.n; k++)
			assert_int_equal(gd_rec_write(&rec, &in.items[k], 0, &err), 0);
		assert_int_equal(gd_rec_close(&rec, &err), 0);
		refs += rec.refs;
		assert_int_equal(gd_series_load_jsonl(&out, path, &err), 0);
		assert_int_equal(out.n, in.n);
		for (size_t k = 0; k < in.n; k++) {
			char *a = dump_of(&in.items[k]), *b = dump_of(&out.items[k]);

			if (strcmp(a, b) != 0)
				fail_msg("%s: snapshot %zu differs after references", g.gl_pathv[i], k);
			free(a);
			free(b);
		}
		snaps += in.n;
		gd_series_release(&in);
		gd_series_release(&out);
	}
	globfree(&g);
	unlink(path);
	assert_true(snaps >= 20);
	assert_true(refs > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_rotation),
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_single_and_after),
		cmocka_unit_test(test_same_written),
		cmocka_unit_test(test_fixture_recordings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
