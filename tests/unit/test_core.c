/*
 * test_core.c - the tokenizer, the root, durations and threshold config.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/duration.h"
#include "core/err.h"
#include "core/i18n.h"
#include "core/root.h"
#include "core/tok.h"
#include "rules/thresholds.h"

static struct gd_slice sl(const char *s)
{
	struct gd_slice x = { s, strlen(s) };

	return x;
}

static void test_tok_split_and_kv(void **state)
{
	struct gd_slice f[5], k, v;
	size_t n = gd_tok_split(sl("  cpu0  12\t34 56 78 "), f, 5);

	(void)state;
	assert_int_equal(n, 5);
	assert_true(gd_tok_eq(f[0], "cpu0"));
	assert_true(gd_tok_eq(f[4], "78"));
	/* More fields than room: the count is capped. */
	assert_int_equal(gd_tok_split(sl("a b c d e f"), f, 4), 4);
	assert_true(gd_tok_kv(sl("MemTotal:   16384 kB"), ':', &k, &v));
	assert_true(gd_tok_eq(k, "MemTotal"));
	assert_true(gd_tok_eq(v, "16384 kB"));
	assert_false(gd_tok_kv(sl("no separator"), ':', &k, &v));
}

static void test_tok_numbers_strict(void **state)
{
	uint64_t u;
	int64_t i;
	double d;

	(void)state;
	assert_true(gd_tok_u64(sl("18446744073709551615"), &u));
	assert_true(u == UINT64_MAX);
	assert_false(gd_tok_u64(sl("18446744073709551616"), &u)); /* 2^64 overflows */
	assert_false(gd_tok_u64(sl("-1"), &u));
	assert_false(gd_tok_u64(sl("12x"), &u));
	assert_false(gd_tok_u64(sl(""), &u));
	assert_true(gd_tok_i64(sl("-1"), &i));
	assert_int_equal(i, -1);
	assert_true(gd_tok_f64(sl("0.25"), &d));
	assert_true(d == 0.25);
	assert_false(gd_tok_f64(sl("nan"), &d));
	assert_false(gd_tok_f64(sl("1e999"), &d));
}

static void test_tok_lines(void **state)
{
	const char *text = "one\ntwo\n\nfour";
	struct gd_lines it;
	struct gd_slice line;
	int n = 0;

	(void)state;
	gd_lines_init(&it, text, strlen(text));
	while (gd_tok_line(&it, &line))
		n++;
	assert_int_equal(n, 4);
	assert_int_equal(it.lineno, 4);
	assert_true(gd_tok_eq(line, "four"));
	assert_true(gd_tok_is_binary("a\0b", 3));
	assert_false(gd_tok_is_binary("ab", 2));
}

/* The tally behind the 0 / 1 (partial) / negative result of table parsers:
 * the first skipped line and its reason are reported, not the last. */
static void test_tok_tally(void **state)
{
	struct gd_tok_tally t = { 0 };
	struct gd_err err;

	(void)state;
	gd_err_clear(&err);
	assert_int_equal(gd_tok_tally_result(&t, "no devices listed", &err), -ENODATA);
	assert_string_equal(err.msg, "empty: no devices listed");

	gd_err_clear(&err);
	gd_tok_tally_skip(&t, 3, "malformed number");
	gd_tok_tally_skip(&t, 7, "fewer than 14 fields");
	assert_int_equal(t.skipped, 2);
	assert_int_equal(gd_tok_tally_result(&t, "no devices listed", &err), -EINVAL);
	assert_string_equal(err.msg, "line 3: malformed number (no usable line)");

	gd_err_clear(&err);
	t.parsed = 5;
	assert_int_equal(gd_tok_tally_result(&t, "no devices listed", &err), 1);
	assert_int_equal(err.code, -EINVAL);
	assert_string_equal(err.msg, "line 3: malformed number; 2 line(s) skipped");

	gd_err_clear(&err);
	t = (struct gd_tok_tally){ .parsed = 1 };
	assert_int_equal(gd_tok_tally_result(&t, "no devices listed", &err), 0);
	assert_int_equal(err.code, 0);
	assert_string_equal(err.msg, "");
}

static void test_root_reads_relative(void **state)
{
	char dir[] = "/tmp/gd-root-XXXXXX", path[256];
	struct gd_root r;
	struct gd_err err;
	char *buf, line[64];
	size_t len;
	unsigned long long u;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/proc", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/proc/uptime", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("1000.50 300.00\n", f);
	fclose(f);
	assert_int_equal(gd_root_open(&r, dir, &err), 0);
	assert_false(r.is_host);
	/* Leading slashes are ignored: the path stays under the root. */
	assert_int_equal(gd_root_read(&r, "/proc/uptime", &buf, &len, 1 << 20), 0);
	assert_int_equal(len, 15);
	free(buf);
	assert_int_equal(gd_root_read_line(&r, "proc/uptime", line, sizeof line), 0);
	assert_string_equal(line, "1000.50 300.00");
	assert_int_equal(gd_root_read_u64(&r, "proc/uptime", &u), -EINVAL);
	assert_int_equal(gd_root_read(&r, "proc/missing", &buf, &len, 1 << 20), -ENOENT);
	assert_null(buf);
	/* A file past the cap is refused, not truncated silently. */
	assert_int_equal(gd_root_read(&r, "proc/uptime", &buf, &len, 8), -EFBIG);
	gd_root_release(&r);
	unlink(path);
	snprintf(path, sizeof path, "%s/proc", dir);
	rmdir(path);
	rmdir(dir);
	assert_true(gd_root_open(&r, "/nonexistent-gd-root", &err) < 0);
	assert_non_null(strstr(err.msg, "/nonexistent-gd-root"));
	assert_int_equal(gd_root_open(&r, "/", &err), 0);
	assert_true(r.is_host);
	gd_root_release(&r);
}

static void test_duration(void **state)
{
	double s;
	struct gd_err err;

	(void)state;
	assert_int_equal(gd_duration_parse("2s", &s, &err), 0);
	assert_true(s == 2.0);
	assert_int_equal(gd_duration_parse("500ms", &s, &err), 0);
	assert_true(s == 0.5);
	assert_int_equal(gd_duration_parse("1m", &s, &err), 0);
	assert_true(s == 60.0);
	assert_int_equal(gd_duration_parse("1.5", &s, &err), 0);
	assert_true(s == 1.5);
	assert_true(gd_duration_parse("2x", &s, &err) < 0);
	assert_non_null(strstr(err.msg, "unknown unit"));
	assert_true(gd_duration_parse("-1s", &s, &err) < 0);
	assert_true(gd_duration_parse("", &s, &err) < 0);
}

static void test_thresholds_set_and_load(void **state)
{
	struct gd_thresholds t;
	struct gd_err err;
	char path[] = "/tmp/gd-conf-XXXXXX";
	int fd;
	const char *ini = "; site overrides\n[cpu.saturated]\nbusy_pct = 95\n[mem.swapping]\npages_per_s=50\n";

	(void)state;
	gd_thresholds_init(&t);
	assert_true(t.v[GD_TH_CPU_SATURATED_BUSY_PCT] == 90);
	assert_int_equal(gd_thresholds_set(&t, "cpu.saturated.busy_pct", "80", &err), 0);
	assert_true(t.v[GD_TH_CPU_SATURATED_BUSY_PCT] == 80);
	assert_true(gd_thresholds_set(&t, "cpu.saturated.nope", "1", &err) < 0);
	assert_non_null(strstr(err.msg, "unknown key \"nope\""));
	assert_true(gd_thresholds_set(&t, "cpu.nothing.busy_pct", "1", &err) < 0);
	assert_non_null(strstr(err.msg, "unknown rule \"cpu.nothing\""));
	assert_true(gd_thresholds_set(&t, "cpu.saturated.busy_pct", "lots", &err) < 0);
	assert_true(gd_thresholds_set(&t, "nodot", "1", &err) < 0);

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, ini, strlen(ini)), (ssize_t)strlen(ini));
	close(fd);
	gd_thresholds_init(&t);
	assert_int_equal(gd_thresholds_load(&t, path, false, &err), 0);
	assert_true(t.v[GD_TH_CPU_SATURATED_BUSY_PCT] == 95);
	assert_true(t.v[GD_TH_MEM_SWAPPING_PAGES_PER_S] == 50);

	/* An unknown key in the file is an error naming file and section. */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "[io.saturated]\nbusy = 3\n", 24), 24);
	close(fd);
	assert_true(gd_thresholds_load(&t, path, false, &err) < 0);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "unknown key \"busy\""));
	/* A line that is not INI. */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "[io.saturated\n", 14), 14);
	close(fd);
	assert_true(gd_thresholds_load(&t, path, false, &err) < 0);
	unlink(path);
	assert_int_equal(gd_thresholds_load(&t, path, true, &err), 0);
	assert_true(gd_thresholds_load(&t, path, false, &err) < 0);
}

/* Display widths and cuts of UTF-8 text: CJK characters take two columns,
 * a cut never splits a character, whatever the locale. */
static void test_utf8_width_fit_cut(void **state)
{
	const char *zh = "过热降频 85 °C";  /* 4 CJK (3 bytes each), ASCII, a 2-byte ° */
	struct gd_err err;
	char big[700];

	(void)state;
	assert_int_equal(gd_utf8_width("gpu0"), 4);
	assert_int_equal(gd_utf8_width(zh), 8 + 4 + 2);
	assert_int_equal(gd_utf8_width(""), 0);
	/* 3 columns hold one CJK character (2), not two */
	assert_int_equal(gd_utf8_fit(zh, 3), 3);
	assert_int_equal(gd_utf8_fit(zh, 8), 12);
	assert_int_equal(gd_utf8_fit(zh, 100), strlen(zh));
	/* a cut inside 降 (bytes 6..8) backs up to its start; a whole one stays */
	assert_int_equal(gd_utf8_cut(zh, 7), 6);
	assert_int_equal(gd_utf8_cut(zh, 8), 6);
	assert_int_equal(gd_utf8_cut(zh, 9), 9);
	assert_int_equal(gd_utf8_cut("abc", 2), 2);
	/* inside the two bytes of ° */
	assert_int_equal(gd_utf8_cut(zh, strlen(zh) - 2), strlen(zh) - 3);
	/* a message longer than its buffer is cut between characters */
	for (size_t i = 0; i + 3 < sizeof big; i += 3)
		memcpy(big + i, "频", 3);
	big[sizeof big - 1 - (sizeof big - 1) % 3] = 0;
	gd_err_set(&err, -EINVAL, "xy%s", big);
	assert_int_equal((strlen(err.msg) - 2) % 3, 0);
	assert_true(strlen(err.msg) > 500);
	assert_int_equal(gd_utf8_cut(err.msg, strlen(err.msg)), strlen(err.msg));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tok_split_and_kv),   cmocka_unit_test(test_tok_numbers_strict),
		cmocka_unit_test(test_tok_lines),          cmocka_unit_test(test_root_reads_relative),
		cmocka_unit_test(test_tok_tally),          cmocka_unit_test(test_utf8_width_fit_cut),
		cmocka_unit_test(test_duration),           cmocka_unit_test(test_thresholds_set_and_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
