/*
 * test_snapshot_fast.c - the cJSON fast path of a recording's lines
 * (src/model/snapshot_fast.c) against the jansson path it stands in for.
 *
 * A line the fast path takes must give the very snapshot jansson gives
 * (compared as the JSON gpudoctor writes back): a snapshot with every field
 * of every section set (integers past INT64_MAX as the writer's digit strings,
 * negative and fractional reals, strings with quotes, backslashes, control
 * characters and non-ASCII text, written \u-escaped), one with every field
 * absent, and every line of the recordings in tests/offline.  Lines jansson
 * would read otherwise, or refuse, must be declined so that jansson judges
 * them: leading zeros, "1.", a version written as a real, \u0000, raw
 * UTF-8, a control character, a key seen twice, an unknown key, a wrong
 * type, an integer of 2^53 or more, a cut line.  Records written as
 * references to the line before give the same references both ways.
 */
#include <glob.h>
#include <stdio.h>

#include "testutil.h"
#include "../snapshot_fast_check.h"

/* 1 when the fast path takes line, and then it gives what jansson gives. */
static int same(const char *line, size_t n)
{
	char *fast, *want;
	int r = fast_check_line(line, n, &fast, &want);

	if (r == 0 && !want)
		fail_msg("the fast path took a line jansson refuses: %.200s", line);
	if (r == 0)
		fail_msg("fast and jansson differ:\n%.400s\n%.400s", fast, want);
	free(fast);
	free(want);
	return r == 1;
}

/* gd_snapshot_write_line's line of s, in a new buffer. */
static char *line_of(const struct gd_snapshot *s, size_t *n)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, n);

	assert_non_null(m);
	assert_int_equal(gd_snapshot_write_line(s, m), 0);
	assert_int_equal(fclose(m), 0);
	return buf;
}

/* Every field of record rec of d set, varied by k. */
static void fill_record(const struct gd_record_desc *d, char *rec, unsigned int k)
{
	static const char *const text[] = { "plain", "q\"uote\\back/slash", "tab\there\nnewline\x01",
					    "Ünïcödé 卡顿 \xf0\x9f\x98\x80" };

	for (size_t i = 0; i < d->nfields; i++) {
		const struct gd_field *f = &d->fields[i];
		char *p = rec + f->offset;

		switch (f->type) {
		case GD_FT_U64:
			/* small, large, the largest a double holds exactly, past
			 * INT64_MAX (written as digits) */
			gd_u64_set((struct gd_u64 *)(void *)p, (uint64_t[]){ 0, 123456789012ull, 9007199254740991ull,
									   UINT64_MAX }[(k + i) % 4]);
			break;
		case GD_FT_F64:
			gd_f64_set((struct gd_f64 *)(void *)p, (double[]){ -1.5, 0.1, 1796155200.123456, 1e-300 }[(k + i) % 4]);
			break;
		case GD_FT_STR:
			gd_strlcpy(p, text[(k + i) % 4], f->size);
			break;
		}
	}
}

static void test_every_field(void **state)
{
	struct gd_snapshot s;
	size_t n;
	char *line;

	(void)state;
	gd_snapshot_init(&s);
	for (size_t i = 0; i < gd_nsections; i++) {
		const struct gd_record_desc *d = &gd_sections[i];
		char *base = (char *)&s + d->offset;

		if (!d->is_array) {
			fill_record(d, base, (unsigned int)i);
			continue;
		}
		for (unsigned int k = 0; k < 3; k++)
			fill_record(d, gd_vec_push((struct gd_vec *)(void *)base, d->size), k);
	}
	line = line_of(&s, &n);
	assert_int_equal(same(line, n), 1);
	free(line);
	gd_snapshot_release(&s);
	/* every field absent: the bare host */
	gd_snapshot_init(&s);
	gd_f64_set(&s.host.uptime_s, 5);
	line = line_of(&s, &n);
	assert_int_equal(same(line, n), 1);
	free(line);
	gd_snapshot_release(&s);
}

/* The recordings among the fixtures, line by line: what the fast path
 * takes is what jansson gives. */
static void test_fixtures(void **state)
{
	glob_t g;
	size_t lines = 0, taken = 0;

	(void)state;
	assert_int_equal(glob(GD_SRCDIR "/tests/offline/*/*.jsonl", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 10);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;

		assert_non_null(f);
		while ((n = getline(&line, &cap, f)) > 0) {
			lines++;
			taken += (size_t)same(line, (size_t)n);
		}
		free(line);
		fclose(f);
	}
	globfree(&g);
	/* the recordings gpudoctor wrote take the fast path */
	assert_true(lines >= 20);
	if (taken * 2 < lines)
		fail_msg("the fast path took only %zu of %zu fixture lines", taken, lines);
}

static void test_declines(void **state)
{
	static const char plain[] = "{\"version\":1,\"host\":{\"hostname\":\"n1\",\"uptime_s\":12.5,\"self_pid\":null},"
				    "\"procs\":[{\"pid\":7,\"comm\":\"a\\\"b\"}],\"disks\":null}\n";
	static const char *const lines[] = {
		"{\"version\":1,\"host\":{\"uptime_s\":01}}",            /* leading zero */
		"{\"version\":1,\"host\":{\"uptime_s\":1.}}",            /* no digit after the point */
		"{\"version\":1,\"host\":{\"uptime_s\":1e}}",            /* no exponent */
		"{\"version\":1.0,\"host\":{}}",                          /* version a real */
		"{\"version\":1,\"host\":{\"hostname\":\"a\\u0000b\"}}",  /* NUL */
		"{\"version\":1,\"host\":{\"hostname\":\"caf\xc3\xa9\"}}", /* raw UTF-8 */
		"{\"version\":1,\"host\":{\"hostname\":\"a\x01\"}}",      /* a control character */
		"{\"version\":1,\"host\":{\"hostname\":\"a\",\"hostname\":\"b\"}}", /* a key twice */
		"{\"version\":1,\"host\":{},\"host\":{}}",
		"{\"version\":1,\"host\":{\"from_the_future\":1}}",       /* unknown keys */
		"{\"version\":1,\"host\":{},\"future_section\":[]}",
		"{\"version\":1,\"host\":{\"uptime_s\":\"5\"}}",          /* wrong types */
		"{\"version\":1,\"host\":{\"hostname\":5}}",
		"{\"version\":1,\"host\":[]}",
		"{\"version\":1,\"cpus\":{}, \"host\":{}}",
		"{\"version\":1,\"host\":{\"self_pid\":-1}}",
		"{\"version\":1,\"host\":{\"self_pid\":9007199254740993}}", /* past 2^53 */
		"{\"version\":1,\"host\":{\"uptime_s\":1e300}}",
		"{\"version\":1,\"cpu\":{}}",                              /* no host */
		"{\"version\":99,\"host\":{}}",                            /* a newer version */
		"{\"version\":1,\"host\":{\"hostname\":\"cut",             /* cut */
		"[1,2]",
		"",
	};

	(void)state;
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		struct gd_snapshot s;
		struct gd_delta_refs refs;

		gd_snapshot_init(&s);
		gd_delta_refs_init(&refs);
		if (gd_snapshot_from_line_fast(lines[i], strlen(lines[i]), &s, &refs) != 0)
			fail_msg("the fast path took %s", lines[i]);
		gd_delta_refs_release(&refs);
		gd_snapshot_release(&s);
	}
	/* and a plain one it takes, null values and all */
	assert_int_equal(same(plain, strlen(plain)), 1);
}

/* A record written as its key (snapshot_delta.h): the fast path notes the
 * same references as jansson, in the same places; a key jansson would not
 * read as one (negative, past 2^53, in a section without keys) is declined
 * for jansson to judge. */
static void test_references(void **state)
{
	static const char *const taken[] = {
		"{\"version\":2,\"host\":{},\"procs\":[7,{\"pid\":8,\"comm\":\"x\"},9],\"threads\":[12],"
		"\"job_threads\":[{\"tid\":3},4]}",
		"{\"version\":2,\"host\":{},\"procs\":[7.0,0,1e3]}",   /* numbers jansson reads as reals */
		"{\"version\":1,\"host\":{},\"procs\":[5]}",         /* a version 1 line: read the same */
	};
	static const char *const declined[] = {
		"{\"version\":2,\"host\":{},\"procs\":[-1]}",
		"{\"version\":2,\"host\":{},\"procs\":[9007199254740993]}",
		"{\"version\":2,\"host\":{},\"disks\":[3]}",
		"{\"version\":2,\"host\":{},\"procs\":[\"7\"]}",
		"{\"version\":2,\"host\":{},\"procs\":[true]}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++)
		if (same(taken[i], strlen(taken[i])) != 1)
			fail_msg("the fast path declined %s", taken[i]);
	for (size_t i = 0; i < sizeof declined / sizeof declined[0]; i++) {
		struct gd_snapshot s;
		struct gd_delta_refs refs;

		gd_snapshot_init(&s);
		gd_delta_refs_init(&refs);
		if (gd_snapshot_from_line_fast(declined[i], strlen(declined[i]), &s, &refs) != 0)
			fail_msg("the fast path took %s", declined[i]);
		gd_delta_refs_release(&refs);
		gd_snapshot_release(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_field),
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_declines),
		cmocka_unit_test(test_references),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
