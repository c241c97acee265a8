/*
 * test_gz.c - gzip members of /metrics (src/serve/gz.c): each decodes with
 * zlib's inflate to the input, and two members one after the other decode
 * to the two inputs joined, as Prometheus (Go's compress/gzip) reads them.
 */
#include <stdio.h>
#include <zlib.h>

#include "testutil.h"

#include "serve/gz.h"

/* Inflates every gzip member in z[0..zlen) into out; returns the bytes. */
static size_t gunzip_all(const char *z, size_t zlen, char *out, size_t cap)
{
	size_t used = 0, got = 0;

	while (used < zlen) {
		z_stream s = { 0 };
		int rc;

		assert_int_equal(inflateInit2(&s, 16 + 15), Z_OK);
		s.next_in = (Bytef *)(uintptr_t)(z + used);
		s.avail_in = (uInt)(zlen - used);
		s.next_out = (Bytef *)(out + got);
		s.avail_out = (uInt)(cap - got);
		rc = inflate(&s, Z_FINISH);
		if (rc != Z_STREAM_END)
			fail_msg("member at byte %zu: inflate %d (%s)", used, rc, s.msg ? s.msg : "");
		used += s.total_in;
		got += s.total_out;
		inflateEnd(&s);
	}
	return got;
}

static char *metrics_text(size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);

	assert_non_null(m);
	for (int i = 0; i < 400; i++)
		fprintf(m, "gpudoctor_cpus_user_seconds_total{cpu=\"%d\"} %d.%02d\n", i % 128, 1000 + i * 37, i % 100);
	fclose(m);
	return buf;
}

static void test_round_trip(void **state)
{
	size_t len, zlen, n;
	char *text = metrics_text(&len);
	char *z = gd_gz_member(text, len, 6, 12, 5, &zlen);
	char *out = malloc(len + 1);

	(void)state;
	assert_non_null(z);
	assert_non_null(out);
	assert_true(zlen < len / 3);  /* Prometheus text compresses well */
	assert_int_equal((unsigned char)z[0], 0x1f);
	assert_int_equal((unsigned char)z[1], 0x8b);
	n = gunzip_all(z, zlen, out, len + 1);
	assert_int_equal(n, len);
	assert_memory_equal(out, text, len);
	free(out);
	free(z);
	free(text);
}

static void test_two_members(void **state)
{
	static const char own[] = "# TYPE gpudoctor_up gauge\ngpudoctor_up 1\n";
	size_t len, za, zb, n;
	char *text = metrics_text(&len);
	char *a = gd_gz_member(own, sizeof own - 1, 1, 9, 1, &za);
	char *b = gd_gz_member(text, len, 6, 12, 5, &zb);
	char *joined = malloc(za + zb), *out = malloc(sizeof own + len);

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	memcpy(joined, a, za);
	memcpy(joined + za, b, zb);
	n = gunzip_all(joined, za + zb, out, sizeof own + len);
	assert_int_equal(n, sizeof own - 1 + len);
	assert_memory_equal(out, own, sizeof own - 1);
	assert_memory_equal(out + sizeof own - 1, text, len);
	free(a);
	free(b);
	free(joined);
	free(out);
	free(text);
}

static void test_empty_and_bad(void **state)
{
	size_t zlen = 0;
	char out[4];
	char *z = gd_gz_member("", 0, 6, 12, 5, &zlen);

	(void)state;
	assert_non_null(z);
	assert_true(zlen >= 18);  /* header, an empty final block, CRC and size */
	assert_int_equal(gunzip_all(z, zlen, out, sizeof out), 0);
	free(z);
	/* parameters zlib refuses: NULL, not a crash */
	assert_null(gd_gz_member("x", 1, 42, 12, 5, &zlen));
	assert_null(gd_gz_member("x", 1, 6, 3, 5, &zlen));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_two_members),
		cmocka_unit_test(test_empty_and_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
