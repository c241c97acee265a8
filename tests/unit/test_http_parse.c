/*
 * test_http_parse.c - the exporter's request parser (src/serve/http_parse.c)
 * on requests as Prometheus, curl and browsers send them, requests cut at
 * every byte, pipelined requests, and malformed ones (each refused with its
 * status and a reason).
 */
#include <stdio.h>

#include "testutil.h"

#include "serve/http_parse.h"

#define LIMIT 16384

/* What Prometheus 2.42 sends (Debian's prometheus package). */
static const char prom_req[] = "GET /metrics HTTP/1.1\r\n"
			       "Host: 127.0.0.1:9835\r\n"
			       "User-Agent: Prometheus/2.42.0\r\n"
			       "Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
			       "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n"
			       "Accept-Encoding: gzip\r\n"
			       "X-Prometheus-Scrape-Timeout-Seconds: 10\r\n"
			       "\r\n";

static int parse(const char *s, struct gd_http_req *r)
{
	return gd_http_parse(s, strlen(s), LIMIT, r);
}

static void expect_refused(const char *s, int code)
{
	struct gd_http_req r;
	int rc = parse(s, &r);

	if (rc != -code)
		fail_msg("%s: got %d, want %d", s, rc, -code);
	assert_non_null(r.why);
	assert_true(strlen(r.why) > 5);
}

static void test_prometheus_request(void **state)
{
	struct gd_http_req r;
	int n = parse(prom_req, &r);

	(void)state;
	assert_int_equal(n, (int)strlen(prom_req));
	assert_int_equal(r.method, GD_HTTP_GET);
	assert_int_equal(r.path_len, 8);
	assert_memory_equal(r.path, "/metrics", 8);
	assert_int_equal(r.minor, 1);
	assert_true(r.keep_alive);
	assert_true(r.path >= prom_req && r.path < prom_req + n);
}

static void test_every_prefix_needs_more(void **state)
{
	struct gd_http_req r;
	size_t len = strlen(prom_req);

	(void)state;
	for (size_t i = 0; i < len; i++) {
		int rc = gd_http_parse(prom_req, i, LIMIT, &r);

		if (rc != 0)
			fail_msg("prefix of %zu bytes: %d (%s), want 0", i, rc, r.why ? r.why : "");
	}
	assert_int_equal(gd_http_parse(prom_req, len, LIMIT, &r), (int)len);
}

static void test_forms(void **state)
{
	struct gd_http_req r;

	(void)state;
	/* query string cut off the path; HEAD; bare LF line ends */
	assert_true(parse("HEAD /findings?x=1&y=%00 HTTP/1.1\nHost: a\n\n", &r) > 0);
	assert_int_equal(r.method, GD_HTTP_HEAD);
	assert_int_equal(r.path_len, 9);
	assert_memory_equal(r.path, "/findings", 9);
	assert_int_equal(r.query_len, 9);
	assert_memory_equal(r.query, "x=1&y=%00", 9);
	assert_true(parse("GET /findings?lang=zh_CN HTTP/1.1\r\nHost: a\r\n\r\n", &r) > 0);
	assert_int_equal(r.query_len, 10);
	assert_memory_equal(r.query, "lang=zh_CN", 10);
	assert_true(parse("GET /findings HTTP/1.1\r\nHost: a\r\n\r\n", &r) > 0);
	assert_int_equal(r.query_len, 0);
	/* HTTP/1.0: no Host needed, closes unless keep-alive is asked */
	assert_true(parse("GET /healthz HTTP/1.0\r\n\r\n", &r) > 0);
	assert_int_equal(r.minor, 0);
	assert_false(r.keep_alive);
	assert_true(parse("GET /healthz HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", &r) > 0);
	assert_true(r.keep_alive);
	assert_true(parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: TE, close\r\n\r\n", &r) > 0);
	assert_false(r.keep_alive);
	assert_true(parse("GET /healthz HTTP/1.0\r\nConnection: close, keep-alive\r\n\r\n", &r) > 0);
	assert_false(r.keep_alive);  /* close wins */
	assert_true(parse("GET /healthz HTTP/1.0\r\nConnection: close\r\nConnection: keep-alive\r\n\r\n", &r) > 0);
	assert_false(r.keep_alive);  /* two field lines are one list */
	/* absolute form */
	assert_true(parse("GET http://node7:9835/metrics?a HTTP/1.1\r\nHost: node7\r\n\r\n", &r) > 0);
	assert_int_equal(r.path_len, 8);
	assert_memory_equal(r.path, "/metrics", 8);
	assert_true(parse("GET HTTP://node7 HTTP/1.1\r\nHost: node7\r\n\r\n", &r) > 0);
	assert_int_equal(r.path_len, 1);
	/* other methods parse, to be answered 405; a body makes them close */
	assert_true(parse("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", &r) > 0);
	assert_int_equal(r.method, GD_HTTP_OTHER);
	assert_true(r.keep_alive);
	assert_true(parse("POST /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nx=1", &r) > 0);
	assert_int_equal(r.method, GD_HTTP_OTHER);
	assert_false(r.keep_alive);
	assert_true(parse("get /metrics HTTP/1.1\r\nHost: a\r\n\r\n", &r) > 0);
	assert_int_equal(r.method, GD_HTTP_OTHER);  /* methods are case-sensitive */
	/* Content-Length: 0 is no body; empty lines before the request line */
	assert_true(parse("\r\n\r\nGET /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 000\r\n\r\n", &r) > 0);
	assert_int_equal(r.method, GD_HTTP_GET);
	/* HTTP/1.2 is served as 1.x; empty field values are allowed */
	assert_true(parse("GET /metrics HTTP/1.2\r\nHost: a\r\nX-Empty:\r\n\r\n", &r) > 0);
}

static void test_pipelined(void **state)
{
	char two[2 * sizeof prom_req];
	struct gd_http_req r;
	size_t len = strlen(prom_req);
	int n;

	(void)state;
	snprintf(two, sizeof two, "%s%s", prom_req, prom_req);
	n = gd_http_parse(two, 2 * len, LIMIT, &r);
	assert_int_equal(n, (int)len);  /* the first only */
	n = gd_http_parse(two + n, len, LIMIT, &r);
	assert_int_equal(n, (int)len);
	assert_memory_equal(r.path, "/metrics", 8);
}

static void test_malformed(void **state)
{
	(void)state;
	expect_refused("NOT HTTP AT ALL\r\n\r\n", 400);
	expect_refused("GET /metrics\r\n\r\n", 400);              /* HTTP/0.9 */
	expect_refused("GET  /metrics HTTP/1.1\r\nHost: a\r\n\r\n", 400);
	expect_refused("GET /metrics HTTP/1.1 \r\nHost: a\r\n\r\n", 400);
	expect_refused("GET metrics HTTP/1.1\r\nHost: a\r\n\r\n", 400);
	expect_refused("GET /metrics HTTP/1.1\r\n\r\n", 400);     /* no Host */
	expect_refused("GET /metrics HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400);
	expect_refused("GET /metrics HTTP/1.1\r\nHost : a\r\n\r\n", 400);
	expect_refused("GET /metrics HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", 400);
	expect_refused("GET /metrics HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", 400);
	expect_refused("GET /metrics HTTP/1.1\r\nHost: a\rb\r\n\r\n", 400);
	expect_refused("GET /metrics HTTP/1.1\r\nHost: a\r\nX: \x01\r\n\r\n", 400);
	expect_refused("GET /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello", 400);
	expect_refused("GET /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400);
	expect_refused("GET /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n", 400);
	expect_refused("HEAD /metrics HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", 400);
	expect_refused("GET /metrics HTTP/2.0\r\nHost: a\r\n\r\n", 505);
	expect_refused("GET /metrics HTTP/x.1\r\nHost: a\r\n\r\n", 400);
	expect_refused("GET /metrics HTTP/1.10\r\nHost: a\r\n\r\n", 400);
	/* refused before the head is complete: it cannot become a request */
	expect_refused("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 400);  /* a TLS ClientHello */
	expect_refused("G\xc3\x89T /", 400);
}

static void test_nul_bytes(void **state)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: a\0b\r\n\r\n";
	static const char early[] = "GET /met\0";
	struct gd_http_req r;

	(void)state;
	assert_int_equal(gd_http_parse(req, sizeof req - 1, LIMIT, &r), -400);
	assert_int_equal(gd_http_parse(early, sizeof early - 1, LIMIT, &r), -400);
}

static void test_limits(void **state)
{
	size_t big = 2 * LIMIT;
	char *buf = malloc(big + 64);
	struct gd_http_req r;
	int n;

	(void)state;
	assert_non_null(buf);
	/* a target longer than the limit: 414 once the limit is reached */
	memcpy(buf, "GET /", 5);
	memset(buf + 5, 'a', big - 5);
	assert_int_equal(gd_http_parse(buf, LIMIT - 1, LIMIT, &r), 0);
	assert_int_equal(gd_http_parse(buf, LIMIT, LIMIT, &r), -414);
	assert_int_equal(gd_http_parse(buf, big, LIMIT, &r), -414);
	/* header fields longer than the limit: 431 */
	n = snprintf(buf, 64, "GET /metrics HTTP/1.1\r\nHost: a\r\nX-Big: ");
	memset(buf + n, 'b', big - (size_t)n);
	assert_int_equal(gd_http_parse(buf, LIMIT - 1, LIMIT, &r), 0);
	assert_int_equal(gd_http_parse(buf, LIMIT, LIMIT, &r), -431);
	/* a head that ends exactly at the limit is served */
	n = snprintf(buf, 64, "GET /metrics HTTP/1.1\r\nHost: a\r\nX-Big: ");
	memset(buf + n, 'b', LIMIT - 4 - (size_t)n);
	memcpy(buf + LIMIT - 4, "\r\n\r\n", 4);
	assert_int_equal(gd_http_parse(buf, LIMIT, LIMIT, &r), LIMIT);
	free(buf);
}

static void test_accept_encoding(void **state)
{
	static const struct {
		const char *value;
		bool gzip;
	} cases[] = {
		{ "gzip", true },
		{ "GZIP", true },
		{ "x-gzip", true },
		{ "deflate, gzip;q=1.0, *;q=0.5", true },
		{ "br;q=1.0, gzip;q=0.8", true },
		{ "*", true },
		{ "identity", false },
		{ "br, deflate", false },
		{ "gzip;q=0", false },
		{ "gzip; q=0.000", false },
		{ "gzip;q=0.001", true },
		{ "gzip;q=0, *", false },  /* the explicit refusal wins */
		{ "*;q=0", false },
		{ "gzipx", false },
		{ "", false },
	};
	char req[256];
	struct gd_http_req r;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(req, sizeof req, "GET /metrics HTTP/1.1\r\nHost: a\r\nAccept-Encoding: %s\r\n\r\n",
			 cases[i].value);
		assert_true(parse(req, &r) > 0);
		if (r.gzip != cases[i].gzip)
			fail_msg("Accept-Encoding: %s gave gzip=%d", cases[i].value, r.gzip);
	}
	assert_true(parse("GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n", &r) > 0);
	assert_false(r.gzip);
	/* what Prometheus sends */
	assert_true(parse(prom_req, &r) > 0);
	assert_true(r.gzip);
}

static void test_empty(void **state)
{
	struct gd_http_req r;

	(void)state;
	assert_int_equal(gd_http_parse("", 0, LIMIT, &r), 0);
	assert_int_equal(gd_http_parse("\r\n", 2, LIMIT, &r), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prometheus_request),
		cmocka_unit_test(test_every_prefix_needs_more),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_pipelined),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_nul_bytes),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_accept_encoding),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
