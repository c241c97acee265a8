/*
 * test_out_config.c - the configuration file `gpudoctor config` writes (and
 * the build installs as /etc/gpudoctor.conf) is every threshold of the
 * table, once, in its rule's section, commented out with its default; with
 * every line uncommented it loads back (gd_thresholds_load, inih) to the
 * defaults exactly, and a value that differs is written uncommented and
 * loads back to that value.
 */
#include "testutil.h"

#include <stdio.h>
#include <unistd.h>

#include "output/output.h"

/* The file for th, as one malloc'd string. */
static char *config_text(const struct gd_thresholds *th)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	gd_out_config(f, th);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Writes text to a temporary file, with "#key = " lines uncommented when
 * uncomment; returns its path in path (caller unlinks). */
static void write_conf(const char *text, bool uncomment, char *path, size_t size)
{
	int fd;
	FILE *f;
	const char *p = text;

	snprintf(path, size, "/tmp/gd-test-config.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);

		/* a commented setting is "#key = value": no space after '#' */
		if (uncomment && p[0] == '#' && n > 1 && p[1] >= 'a' && p[1] <= 'z' && memchr(p, '=', n))
			fwrite(p + 1, 1, n - 1, f);
		else
			fwrite(p, 1, n, f);
		p += n;
	}
	assert_int_equal(fclose(f), 0);
}

/* Counts the lines of text equal to line. */
static int count_lines(const char *text, const char *line)
{
	size_t n = strlen(line);
	int c = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, line, n) == 0 && (p[n] == '\n' || !p[n]))
			c++;
	return c;
}

static void test_every_threshold_once_in_its_section(void **state)
{
	struct gd_thresholds th;
	char *text, want[256];

	(void)state;
	gd_thresholds_init(&th);
	text = config_text(&th);
	for (size_t i = 0; i < GD_TH_COUNT; i++) {
		const char *sec, *key, *next;

		snprintf(want, sizeof want, "[%s]", gd_th_table[i].rule);
		assert_int_equal(count_lines(text, want), 1);
		/* the key is commented out in that section, before the next one */
		sec = strstr(text, want);
		next = strstr(sec + 1, "\n[");
		snprintf(want, sizeof want, "\n#%s = ", gd_th_table[i].key);
		key = strstr(sec, want);
		assert_non_null(key);
		assert_true(!next || key < next);
	}
	/* inih reads at most INI_MAX_LINE (200) bytes of a line and the rest
	 * as another line: a longer comment would turn into a key = value */
	for (const char *p = text, *e; p && *p; p = e ? e + 1 : NULL) {
		e = strchr(p, '\n');
		if ((e ? (size_t)(e - p) : strlen(p)) >= 200)
			fail_msg("a line of %zu bytes (inih cuts at 200): %.60s...", e ? (size_t)(e - p) : strlen(p), p);
	}
	/* nothing is set: no line starts with a key */
	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		assert_false(*p >= 'a' && *p <= 'z');
	free(text);
}

static void test_uncommented_loads_to_defaults(void **state)
{
	struct gd_thresholds th, loaded;
	struct gd_err err;
	char *text, path[64];

	(void)state;
	gd_thresholds_init(&th);
	text = config_text(&th);
	write_conf(text, true, path, sizeof path);
	/* every value away from its default first, so the load must set each */
	for (size_t i = 0; i < GD_TH_COUNT; i++)
		loaded.v[i] = gd_th_table[i].def + 1;
	gd_err_clear(&err);
	assert_int_equal(gd_thresholds_load(&loaded, path, false, &err), 0);
	for (size_t i = 0; i < GD_TH_COUNT; i++)
		if (loaded.v[i] != gd_th_table[i].def)
			fail_msg("%s.%s loaded back as %.17g, default %.17g", gd_th_table[i].rule, gd_th_table[i].key,
				 loaded.v[i], gd_th_table[i].def);
	unlink(path);
	free(text);
}

static void test_changed_value_written_and_read_back(void **state)
{
	struct gd_thresholds th, loaded;
	struct gd_err err;
	char *text, path[64];

	(void)state;
	gd_thresholds_init(&th);
	gd_err_clear(&err);
	assert_int_equal(gd_thresholds_set(&th, "mem.shm_small.min_bytes", "2147483648", &err), 0);
	assert_int_equal(gd_thresholds_set(&th, "net.errors.error_pct", "0.02", &err), 0);
	text = config_text(&th);
	assert_int_equal(count_lines(text, "min_bytes = 2147483648"), 1);
	assert_int_equal(count_lines(text, "error_pct = 0.02"), 1);
	assert_int_equal(count_lines(text, "#min_bytes = 1073741824"), 0);
	write_conf(text, false, path, sizeof path);
	gd_thresholds_init(&loaded);
	assert_int_equal(gd_thresholds_load(&loaded, path, false, &err), 0);
	assert_memory_equal(loaded.v, th.v, sizeof th.v);
	unlink(path);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_threshold_once_in_its_section),
		cmocka_unit_test(test_uncommented_loads_to_defaults),
		cmocka_unit_test(test_changed_value_written_and_read_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
