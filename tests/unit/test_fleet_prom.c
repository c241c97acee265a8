/*
 * test_fleet_prom.c - the Prometheus answer parser of `gpudoctor fleet`
 * (src/fleet/prom.c) on answers Prometheus wrote (tests/exporter/fixtures/
 * prom-answers/, sources in MANIFEST) and on malformed ones; the rule
 * categories of the cause table; the GPU a finding's subject names
 * (src/serve/finding_counters.c).
 */
#include <stdio.h>

#include "testutil.h"

#include "fleet/fleet.h"
#include "fleet/prom.h"
#include "serve/serve.h"

static char *slurp(const char *name, size_t *len)
{
	char path[512];
	FILE *f;
	char *buf = malloc(1 << 16);

	snprintf(path, sizeof path, "%s/tests/exporter/fixtures/prom-answers/%s", GD_SRCDIR, name);
	f = fopen(path, "r");
	assert_non_null(f);
	*len = fread(buf, 1, (1 << 16) - 1, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static int parse_file(const char *name, long status, size_t limit, struct gd_prom_result *r, struct gd_err *err)
{
	size_t len;
	char *b = slurp(name, &len);
	int rc;

	gd_err_clear(err);
	rc = gd_prom_parse(status, b, len, limit, r, err);
	free(b);
	return rc;
}

static void test_docs_example(void **state)
{
	struct gd_prom_result r;
	struct gd_err err;

	(void)state;
	assert_int_equal(parse_file("200-docs-example.json", 200, 0, &r, &err), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(gd_prom_label(&r.s[0], "instance"), "localhost:9090");
	assert_string_equal(gd_prom_label(&r.s[1], "job"), "node");
	assert_string_equal(gd_prom_label(&r.s[1], "nosuch"), "");
	assert_true(r.s[0].v == 1 && r.s[1].v == 0);
	assert_int_equal(r.n_warn, 0);
	gd_prom_result_release(&r);
}

static void test_real_answers(void **state)
{
	struct gd_prom_result r;
	struct gd_err err;

	(void)state;
	assert_int_equal(parse_file("200-vector-stats.json", 200, 0, &r, &err), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(gd_prom_label(&r.s[0], "__name__"), "up");
	assert_true(r.samples >= 1);
	gd_prom_result_release(&r);
	assert_int_equal(parse_file("200-vector.json", 200, 0, &r, &err), 0);
	assert_true(r.samples < 0);  /* not asked */
	gd_prom_result_release(&r);
	assert_int_equal(parse_file("200-scalar.json", 200, 0, &r, &err), 0);
	assert_int_equal(r.n, 1);
	assert_true(r.s[0].v == 1);
	gd_prom_result_release(&r);
	assert_int_equal(parse_file("200-vector-inf.json", 200, 0, &r, &err), 0);
	assert_true(isinf(r.s[0].v) && r.s[0].v > 0);
	gd_prom_result_release(&r);
	assert_int_equal(parse_file("200-count-over-time.json", 200, 0, &r, &err), 0);
	assert_true(r.s[0].v == 4);
	gd_prom_result_release(&r);
}

static void test_real_errors(void **state)
{
	struct gd_prom_result r;
	struct gd_err err;

	(void)state;
	assert_true(parse_file("400-bad_data.json", 400, 0, &r, &err) < 0);
	assert_non_null(strstr(err.msg, "HTTP 400, bad_data: invalid parameter \"query\": 1:25: parse error"));
	assert_true(parse_file("422-execution.json", 422, 0, &r, &err) < 0);
	assert_non_null(strstr(err.msg, "HTTP 422, execution: query processing would load too many samples"));
	/* the limit: two series, limit 1 */
	assert_true(parse_file("200-docs-example.json", 200, 1, &r, &err) < 0);
	assert_non_null(strstr(err.msg, "2 series, more than the limit of 1"));
	assert_int_equal(parse_file("200-docs-example.json", 200, 2, &r, &err), 0);
	gd_prom_result_release(&r);
}

static int parse_lit_prom(long status, const char *body, struct gd_prom_result *r, struct gd_err *err)
{
	gd_err_clear(err);
	return gd_prom_parse(status, body, strlen(body), 0, r, err);
}

static void test_malformed(void **state)
{
	static const struct {
		long status;
		const char *body, *want;
	} cases[] = {
		{ 200, "", "not a JSON object (line 1" },
		{ 200, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[", "not a JSON object" },
		{ 200, "[1,2]", "not an object" },
		{ 200, "{\"status\":\"success\"}", "no data.resultType" },
		{ 200, "{\"status\":\"success\",\"data\":{\"resultType\":\"string\",\"result\":[1,\"x\"]}}", "got string" },
		{ 200, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{}}]}}",
		  "result 0 has no values array" },
		{ 200, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"value\":[1,\"1\"]}]}}",
		  "result 0 has no metric" },
		{ 200, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[1,1]}]}}",
		  "no [time, \"value\"]" },
		{ 200, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[1,\"x\"]}]}}",
		  "no [time, \"value\"]" },
		{ 200, "{\"status\":\"error\",\"errorType\":\"internal\",\"error\":\"boom\"}", "HTTP 200, internal: boom" },
		{ 502, "<html><body>502 Bad Gateway</body></html>\n", "HTTP 502: <html><body>502 Bad Gateway" },
		{ 401, "Unauthorized\n", "HTTP 401 (authentication refused" },
		{ 404, "404 page not found\n", "no Prometheus API at this URL" },
		{ 503, "{\"status\":\"error\",\"errorType\":\"timeout\",\"error\":\"query timed out\"}", "timeout: query timed out" },
		{ 200, "{\"status\":\"success\",\"status\":\"success\"}", "not a JSON object" },  /* duplicate key */
	};
	struct gd_prom_result r;
	struct gd_err err;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = parse_lit_prom(cases[i].status, cases[i].body, &r, &err);

		if (rc >= 0 || !strstr(err.msg, cases[i].want))
			fail_msg("case %zu: rc %d, message \"%s\", want \"%s\"", i, rc, err.msg, cases[i].want);
		assert_null(r.doc);
	}
}

static void test_values_and_warnings(void **state)
{
	struct gd_prom_result r;
	struct gd_err err;
	const char *body =
		"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		"{\"metric\":{\"a\":\"1\"},\"value\":[1.5,\"NaN\"]},{\"metric\":{\"a\":\"2\"},\"value\":[1.5,\"-Inf\"]},"
		"{\"metric\":{\"a\":\"3\"},\"value\":[1.5,\"1e-07\"]},"
		"{\"metric\":{\"a\":\"4\"},\"histogram\":[1.5,{\"count\":\"2\"}]}]},"
		"\"warnings\":[\"partial response\"],\"infos\":[\"metric might not be a counter\",7]}";

	(void)state;
	assert_int_equal(parse_lit_prom(200, body, &r, &err), 0);
	assert_int_equal(r.n, 3);  /* the histogram sample is left out */
	assert_true(isnan(r.s[0].v));
	assert_true(isinf(r.s[1].v) && r.s[1].v < 0);
	assert_true(r.s[2].v > 0.99e-7 && r.s[2].v < 1.01e-7);
	assert_int_equal(r.n_warn, 2);
	assert_string_equal(r.warnings[0], "partial response");
	assert_string_equal(r.warnings[1], "metric might not be a counter");
	gd_prom_result_release(&r);
}

/* A range query's matrix (the shape Prometheus 2.42 answered fleet --job
 * with): its points, read one at a time; a malformed point ends the series. */
static void test_matrix(void **state)
{
	static const char body[] =
		"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
		"{\"metric\":{\"__name__\":\"gpudoctor_job_rank_nccl_wait_ratio\",\"instance\":\"node0002:9835\","
		"\"job\":\"gpudoctor\",\"pid\":\"10201\"},\"values\":[[1796600985,\"0.02\"],[1796601000,\"0.6\"]]},"
		"{\"metric\":{\"pid\":\"1\"},\"values\":[[1796601000,\"NaN\"],[1796601015,7]]}]}}";
	struct gd_prom_result r;
	struct gd_err err;
	double t, v;

	(void)state;
	assert_int_equal(parse_lit_prom(200, body, &r, &err), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(gd_prom_label(&r.s[0], "pid"), "10201");
	assert_true(isnan(r.s[0].v));
	assert_true(gd_prom_point(&r.s[0], 0, &t, &v) && t == 1796600985 && v == 0.02);
	assert_true(gd_prom_point(&r.s[0], 1, &t, &v) && t == 1796601000 && v == 0.6);
	assert_false(gd_prom_point(&r.s[0], 2, &t, &v));
	assert_true(gd_prom_point(&r.s[1], 0, &t, &v) && isnan(v));
	assert_false(gd_prom_point(&r.s[1], 1, &t, &v));  /* a value that is not a string */
	gd_prom_result_release(&r);
}

/* The range answer Prometheus wrote for fleet --job's threads query. */
static void test_real_matrix(void **state)
{
	struct gd_prom_result r;
	struct gd_err err;
	double t, v;
	size_t k;

	(void)state;
	assert_int_equal(parse_file("200-range-matrix.json", 200, 0, &r, &err), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(gd_prom_label(&r.s[1], "pid"), "10201");
	for (k = 0; gd_prom_point(&r.s[1], k, &t, &v); k++)
		assert_true(v == 0.02 && t == 1796601555 + 15.0 * (double)k);
	assert_int_equal(k, 4);
	gd_prom_result_release(&r);
}

static void test_categories(void **state)
{
	(void)state;
	assert_string_equal(gd_fleet_category("gpu.lost"), "GPU");
	assert_string_equal(gd_fleet_category("gpu.ecc_uncorrectable"), "GPU memory");
	assert_string_equal(gd_fleet_category("gpu.row_remap_pending"), "GPU memory");
	assert_string_equal(gd_fleet_category("gpu.memory_full"), "the job itself");
	assert_string_equal(gd_fleet_category("job.collective_timeout"), "the job itself");
	assert_string_equal(gd_fleet_category("driver.version_mismatch"), "software/driver");
	assert_string_equal(gd_fleet_category("net.rdma_down"), "network");
	assert_string_equal(gd_fleet_category("io.network_fs"), "storage");
	assert_string_equal(gd_fleet_category("mem.pressure"), "host");
	assert_string_equal(gd_fleet_category("host.memory_errors"), "host");
	assert_string_equal(gd_fleet_category("nosuch"), "other");
	assert_true(gd_fleet_is_hardware("gpu.thermal_throttle"));
	assert_true(gd_fleet_is_hardware("host.memory_errors"));
	assert_false(gd_fleet_is_hardware("gpu.memory_full"));
	assert_false(gd_fleet_is_hardware("cpu.saturated"));
	/* every rule of the registry has a category of the paper's table */
	for (size_t i = 0; i < gd_nrules; i++)
		if (strcmp(gd_fleet_category(gd_rules[i].id), "other") == 0)
			fail_msg("rule %s has no category", gd_rules[i].id);
}

static void test_gpu_of_subject(void **state)
{
	struct gd_snapshot s;
	struct gd_gpu *g;

	(void)state;
	gd_snapshot_init(&s);
	for (int i = 0; i < 2; i++) {
		g = gd_vec_push(&s.gpus, sizeof *g);
		g->index = (struct gd_u64){ (uint64_t)(i + 2), true };
		snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "0000:%02x:00.0", i ? 0x5d : 0x3b);
	}
	g = GD_VEC_AT(s.gpus, struct gd_gpu, 0);
	assert_ptr_equal(gd_gpu_of_subject(&s, "gpu2"), g);
	assert_ptr_equal(gd_gpu_of_subject(&s, "gpu2 (0000:3b:00.0)"), g);
	assert_ptr_equal(gd_gpu_of_subject(&s, "GPU 0000:3b:00.0"), g);
	assert_ptr_equal(gd_gpu_of_subject(&s, "GPU 00000000:3B:00.0 Xid 79"), g);
	assert_ptr_equal(gd_gpu_of_subject(&s, "GPU 0000:5d:00.0"), GD_VEC_AT(s.gpus, struct gd_gpu, 1));
	assert_null(gd_gpu_of_subject(&s, "gpu7"));
	assert_null(gd_gpu_of_subject(&s, "gpu2x"));
	assert_null(gd_gpu_of_subject(&s, "GPU ?"));
	assert_null(gd_gpu_of_subject(&s, "host"));
	assert_null(gd_gpu_of_subject(&s, "pid 4711 (python)"));
	gd_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_docs_example),	 cmocka_unit_test(test_real_answers),
		cmocka_unit_test(test_real_errors),	 cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_values_and_warnings), cmocka_unit_test(test_categories),
		cmocka_unit_test(test_gpu_of_subject),	 cmocka_unit_test(test_matrix), cmocka_unit_test(test_real_matrix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
