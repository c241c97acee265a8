/*
 * test_recording.c - appending to a recording that was cut (kill -9, power
 * loss), src/model/recording.c.
 *
 * A recording is cut at every byte offset (plain: every one within three
 * bytes of a line's end, and one in 97 elsewhere), then `record` appends two snapshots to it.  What the reader gives
 * must be a whole recording, with no note: the snapshots that were whole at
 * the cut, exactly as written and never fewer as the cut moves later, then
 * the two new ones.  A file of the other kind than its name asks for is
 * refused, with the fix; one damaged before its end (a cut member followed
 * by another, as older gpudoctor appended) is refused for appending and read
 * up to the damage, with a note.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "testutil.h"
#include "model/recording.h"
#include "model/snapshot_json.h"
#include "../snapshot_fast_check.h"

#define NSNAP 6

static void make_snap(struct gd_snapshot *s, int i)
{
	gd_snapshot_init(s);
	gd_f64_set(&s->host.uptime_s, 1000.0 + i);
	gd_f64_set(&s->host.wall_time_s, 1796155200.5 + i);
	for (int pid = 1; pid <= 8; pid++) {
		struct gd_proc *p = GD_PUSH(s, procs, struct gd_proc);

		gd_u64_set(&p->pid, (uint64_t)pid);
		snprintf(p->comm, sizeof p->comm, "p%d", pid);
		snprintf(p->cmdline, sizeof p->cmdline, "/opt/job/bin/worker --rank %d --seed %d", pid, pid * 7919);
		gd_u64_set(&p->utime_ticks, pid < 3 ? (uint64_t)(i * 13 + pid) : 40);
	}
}

static void write_to(const char *path, int from, int to)
{
	struct gd_rec rec;
	struct gd_err err;

	gd_err_clear(&err);
	if (gd_rec_open(&rec, path, 0, 0, 3, 0, &err) < 0)
		fail_msg("open %s: %s", path, err.msg);
	for (int i = from; i < to; i++) {
		struct gd_snapshot s;

		make_snap(&s, i);
		assert_int_equal(gd_rec_write(&rec, &s, 0, &err), 0);
		gd_snapshot_release(&s);
	}
	assert_int_equal(gd_rec_close(&rec, &err), 0);
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return buf;
}

static void spill(const char *path, const char *buf, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* How many of the series the recording at path holds before the two new
 * ones (snapshots 100 and 101), checking each and that there is no note. */
static size_t whole_then_new(const char *path, size_t cut)
{
	struct gd_series ser;
	struct gd_err err;
	size_t k;

	gd_series_init(&ser);
	gd_err_clear(&err);
	if (gd_series_load_jsonl(&ser, path, &err) < 0)
		fail_msg("cut at %zu: %s", cut, err.msg);
	if (ser.note[0])
		fail_msg("cut at %zu: a note: %s", cut, ser.note);
	assert_true(ser.n >= 2 && ser.n <= NSNAP + 2);
	k = ser.n - 2;
	for (size_t i = 0; i < ser.n; i++) {
		struct gd_snapshot want;
		char *a, *b;

		make_snap(&want, i < k ? (int)i : 100 + (int)(i - k));
		a = fast_check_dump(&ser.items[i]);
		b = fast_check_dump(&want);
		if (strcmp(a, b) != 0)
			fail_msg("cut at %zu: snapshot %zu differs", cut, i);
		free(a);
		free(b);
		gd_snapshot_release(&want);
	}
	gd_series_release(&ser);
	return k;
}

static void cut_everywhere(const char *name, bool plain)
{
	char path[64];
	char *full;
	size_t n, before = 0;

	snprintf(path, sizeof path, "/tmp/gd-rec-cut.%d.%s", (int)getpid(), name);
	unlink(path);
	write_to(path, 0, NSNAP);
	full = slurp(path, &n);
	for (size_t cut = 0; cut <= n; cut++) {
		size_t k;

		/* plain lines are long (about 5 KB): every offset near a line's
		 * end, and one in 97 elsewhere */
		if (plain && cut % 97 && !memchr(full + (cut > 3 ? cut - 3 : 0), '\n', (cut > 3 ? 3 : cut) + (cut + 3 <= n ? 3 : n - cut)))
			continue;

		spill(path, full, cut);
		write_to(path, 100, 102);
		k = whole_then_new(path, cut);
		if (k < before)
			fail_msg("%s cut at %zu: %zu snapshots kept, %zu at an earlier cut", name, cut, k, before);
		before = k;
	}
	/* uncut, all of them */
	assert_int_equal(before, NSNAP);
	free(full);
	unlink(path);
}

static void test_cut_gzip(void **state)
{
	(void)state;
	cut_everywhere("rec", false);
}

static void test_cut_plain(void **state)
{
	(void)state;
	cut_everywhere("jsonl", true);
}

static void test_kind_and_damage(void **state)
{
	char gz[64], plain[64], bad[64];
	char *a, *b;
	size_t na, nb;
	struct gd_rec rec;
	struct gd_err err;
	struct gd_series ser;

	(void)state;
	snprintf(gz, sizeof gz, "/tmp/gd-rec-kind.%d.rec", (int)getpid());
	snprintf(plain, sizeof plain, "/tmp/gd-rec-kind.%d.jsonl", (int)getpid());
	snprintf(bad, sizeof bad, "/tmp/gd-rec-bad.%d.rec", (int)getpid());
	unlink(gz);
	unlink(plain);
	write_to(gz, 0, NSNAP);
	write_to(plain, 0, NSNAP);
	a = slurp(gz, &na);
	b = slurp(plain, &nb);
	/* the other kind under each name */
	spill(plain, a, na);
	spill(gz, b, nb);
	assert_int_equal(gd_rec_open(&rec, plain, 0, 0, 0, 0, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "holds gzip data"));
	assert_int_equal(gd_rec_open(&rec, gz, 0, 0, 0, 0, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "holds plain JSON lines"));

	/* a member cut after its third line, then a whole one: what an older
	 * gpudoctor left when it appended to a cut recording */
	{
		char *cat = malloc(na * 2);
		size_t cut, n3;

		/* 20 bytes into the fourth line: a recording of three ends
		 * with a final block (2 bytes) and the trailer (8) */
		unlink(bad);
		write_to(bad, 0, 3);
		free(slurp(bad, &n3));
		cut = n3 - 10 + 20;

		assert_non_null(cat);
		memcpy(cat, a, cut);
		memcpy(cat + cut, a, na);
		spill(bad, cat, cut + na);
		free(cat);
	}
	assert_int_equal(gd_rec_open(&rec, bad, 0, 0, 0, 0, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "damaged at byte"));
	gd_series_init(&ser);
	if (gd_series_load_jsonl(&ser, bad, &err) != 0)
		fail_msg("load: %s", err.msg);
	if (ser.n != 3 || !strstr(ser.note, "damaged after line 3"))
		fail_msg("%zu snapshots, note: %s", ser.n, ser.note);
	gd_series_release(&ser);
	free(a);
	free(b);
	unlink(gz);
	unlink(plain);
	unlink(bad);
}

/* gd_getline_max: getline(3) up to a bound, NUL bytes kept, the last line
 * without its '\n', and -2 (the rest unread) past the bound. */
static void test_getline_max(void **state)
{
	static const char data[] = "abc\n\nx\0y\n0123456789\ntail";
	FILE *f = fmemopen((void *)data, sizeof data - 1, "r");
	char *line = NULL;
	size_t cap = 0;

	(void)state;
	assert_non_null(f);
	assert_int_equal(gd_getline_max(&line, &cap, f, 10), 4);
	assert_string_equal(line, "abc\n");
	assert_int_equal(gd_getline_max(&line, &cap, f, 10), 1);
	assert_int_equal(gd_getline_max(&line, &cap, f, 10), 4);
	assert_memory_equal(line, "x\0y\n", 4);
	/* 11 bytes with its '\n': one over */
	assert_int_equal(gd_getline_max(&line, &cap, f, 10), -2);
	assert_true(cap <= 12);
	assert_int_equal(fgetc(f), '\n');   /* the rest was not read */
	assert_int_equal(gd_getline_max(&line, &cap, f, 10), 4);
	assert_string_equal(line, "tail");
	assert_int_equal(gd_getline_max(&line, &cap, f, 10), -1);
	assert_false(ferror(f));
	fclose(f);
	free(line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_gzip),
		cmocka_unit_test(test_cut_plain),
		cmocka_unit_test(test_kind_and_damage),
		cmocka_unit_test(test_getline_max),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
