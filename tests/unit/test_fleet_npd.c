/*
 * test_fleet_npd.c - the node-problem-detector plugin verdict
 * (src/fleet/npd.c): NPD's protocol as NPD reads it (exit 0 OK, 1 problem,
 * 2 unknown; a message of at most 80 bytes, here never cut inside a UTF-8
 * character), the worst finding of the condition first, leading with the
 * rule id and the subject.
 */
#include <jansson.h>

#include "testutil.h"

#include "fleet/npd.h"

/* true when s is valid UTF-8 */
static bool utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = *p < 0x80 ? 0 : (*p >> 5) == 6 ? 1 : (*p >> 4) == 14 ? 2 : (*p >> 3) == 30 ? 3 : 9;

		if (n == 9)
			return false;
		for (size_t i = 1; i <= n; i++)
			if ((p[i] & 0xc0) != 0x80)
				return false;
		p += n + 1;
	}
	return true;
}

static void test_cut(void **state)
{
	char in[200], out[GD_NPD_MAX + 1];

	(void)state;
	/* 79 ASCII bytes, then a 2-byte character across the 80th byte */
	memset(in, 'a', 79);
	strcpy(in + 79, "\xc2\xb0" "C more");
	assert_int_equal(gd_npd_cut(in, out, GD_NPD_MAX), 79);
	assert_true(utf8_ok(out));
	/* 78 ASCII + the 2-byte character ends at byte 80: kept whole */
	memset(in, 'a', 78);
	strcpy(in + 78, "\xc2\xb0" "C more");
	assert_int_equal(gd_npd_cut(in, out, GD_NPD_MAX), 80);
	assert_memory_equal(out + 78, "\xc2\xb0", 2);
	/* a 3-byte character (CJK) cut after its first and second byte */
	for (int k = 78; k <= 79; k++) {
		memset(in, 'b', (size_t)k);
		strcpy(in + k, "\xe5\x8d\xa1\xe9\xa1\xbf");  /* 卡顿 */
		assert_int_equal(gd_npd_cut(in, out, GD_NPD_MAX), (size_t)k);
		assert_true(utf8_ok(out));
	}
	/* a 4-byte character cut after its third byte */
	memset(in, 'c', 77);
	strcpy(in + 77, "\xf0\x9f\x94\xa5!");
	assert_int_equal(gd_npd_cut(in, out, GD_NPD_MAX), 77);
	/* newlines and tabs become spaces; trailing space is trimmed */
	assert_int_equal(gd_npd_cut("a\nb\tc  ", out, GD_NPD_MAX), 5);
	assert_string_equal(out, "a b c");
	assert_int_equal(gd_npd_cut("short", out, GD_NPD_MAX), 5);
}

static json_t *doc_of(const char *js)
{
	json_t *d = json_loads(js, 0, NULL);

	assert_non_null(d);
	return d;
}

static void test_judge(void **state)
{
	char line[GD_NPD_MAX + 1];
	json_t *d = doc_of("{\"findings\":["
			   "{\"id\":\"mem.pressure\",\"severity\":\"warning\",\"subject\":\"host\",\"summary\":\"x\"},"
			   "{\"id\":\"gpu.thermal_throttle\",\"severity\":\"warning\",\"subject\":\"gpu1 (0000:43:00.0)\","
			   "\"summary\":\"gpu1 runs at 86 \\u00b0C, 1 \\u00b0C under its slowdown point of 87 \\u00b0C, and "
			   "spends 45% of the window thermal-limited\"},"
			   "{\"id\":\"gpu.lost\",\"severity\":\"critical\",\"subject\":\"gpu0\",\"summary\":\"NVML answers GPU_IS_LOST.\"},"
			   "{\"id\":\"driver.not_loaded\",\"severity\":\"critical\",\"subject\":\"driver\",\"summary\":\"no driver\"}]}");
	json_t *ok = doc_of("{\"findings\":[{\"id\":\"gpu.persistence_off\",\"severity\":\"info\",\"subject\":\"gpu0\"}]}");
	json_t *bad = doc_of("{\"host\":\"x\"}");

	(void)state;
	assert_int_equal(gd_npd_judge(d, GD_NPD_GPU_UNHEALTHY, line), 1);
	assert_string_equal(line, "gpu.lost gpu0: NVML answers GPU_IS_LOST.");
	assert_int_equal(gd_npd_judge(d, GD_NPD_GPU_DEGRADED, line), 1);
	assert_true(strncmp(line, "gpu.thermal_throttle gpu1 (0000:43:00.0): gpu1 runs at 86 ", 57) == 0);
	assert_true(strlen(line) <= GD_NPD_MAX && utf8_ok(line));
	assert_int_equal(gd_npd_judge(d, GD_NPD_NODE_UNHEALTHY, line), 1);
	assert_string_equal(line, "driver.not_loaded driver: no driver");
	assert_int_equal(gd_npd_judge(ok, GD_NPD_GPU_UNHEALTHY, line), 0);
	assert_int_equal(gd_npd_judge(ok, GD_NPD_GPU_DEGRADED, line), 0);
	assert_int_equal(gd_npd_judge(bad, GD_NPD_GPU_UNHEALTHY, line), 2);
	assert_int_equal(gd_npd_condition("gpu-degraded"), GD_NPD_GPU_DEGRADED);
	assert_int_equal(gd_npd_condition("GPU"), -1);
	json_decref(d);
	json_decref(ok);
	json_decref(bad);
}

/* A process named with escape sequences (issue 31): the line NPD shows
 * holds none of them, whatever the finding says. */
static void test_judge_escapes(void **state)
{
	char line[GD_NPD_MAX + 1];
	json_t *d = doc_of("{\"findings\":[{\"id\":\"job.host_bound\",\"severity\":\"critical\","
			   "\"subject\":\"pid 7 (\\u001b[2J\\u001b]0;pwn\\u0007)\",\"summary\":\"x\\u009b2J\\ty\"}]}");

	(void)state;
	assert_int_equal(gd_npd_judge(d, GD_NPD_NODE_UNHEALTHY, line), 1);
	assert_string_equal(line, "job.host_bound pid 7 (?[2J?]0;pwn?): x?2J y");
	assert_null(strchr(line, 0x1b));
	json_decref(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_judge_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
