/*
 * test_collect_node_exporter.c - collectors on node_exporter's own fixture
 * files (tests/collect/node_exporter/, sources in its MANIFEST.md):
 *
 *   - an InfiniBand device whose counters read "N/A (no PMA)" has them
 *     absent, quietly (the collector is ok, not partial);
 *   - a /proc/meminfo without MemAvailable (before 3.14) gets available_bytes
 *     estimated as si_mem_available did, with the low watermarks of
 *     /proc/zoneinfo, and says so (mem.available_estimated, the
 *     mem.pressure evidence); without zoneinfo low counts as 0;
 *   - /proc/zoneinfo that is malformed gets a clear error.
 */
#include "fixture.h"

#include <errno.h>

#define NE GD_SRCDIR "/tests/collect/node_exporter"
#define KIB 1024.0

static void open_root(struct gd_root *root, struct gd_collect_ctx *ctx, const char *dir)
{
	struct gd_err err;

	gd_err_clear(&err);
	assert_int_equal(gd_root_open(root, dir, &err), 0);
	memset(ctx, 0, sizeof *ctx);
	ctx->root = root;
}

static const struct gd_ib_port *port_of(const struct gd_snapshot *s, const char *dev, uint64_t n)
{
	GD_VEC_EACH(s->ib_ports, const struct gd_ib_port, p)
		if (strcmp(p->device, dev) == 0 && p->port.ok && p->port.v == n)
			return p;
	fail_msg("no port %s/%llu", dev, (unsigned long long)n);
	return NULL;
}

static void test_ib_no_pma_is_absent(void **state)
{
	struct gd_root root;
	struct gd_collect_ctx ctx;
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_ib_port *p;

	(void)state;
	open_root(&root, &ctx, NE);
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_infiniband(&ctx, &s, &err), GD_SRC_OK);
	assert_string_equal(err.msg, "");
	p = port_of(&s, "i40iw0", 1);
	assert_string_equal(p->state_name, "ACTIVE");
	assert_true(p->rate_gbps.ok && p->rate_gbps.v == 10);
	assert_false(p->symbol_error.ok);
	assert_false(p->link_downed.ok);
	assert_false(p->port_xmit_data_bytes.ok);
	/* the mlx4 ports beside it keep their numbers */
	p = port_of(&s, "mlx4_0", 1);
	assert_true(p->port_xmit_data_bytes.ok);
	gd_snapshot_release(&s);
	gd_root_release(&root);
}

/* The fixture's numbers (kB) and si_mem_available of 3.14 over them. */
static double expected_avail(double low_bytes)
{
	double free_b = 225472 * KIB, pc = (213412 + 145676) * KIB, sr = 44772 * KIB;

	return free_b - low_bytes + pc - fmin(pc / 2, low_bytes) + sr - fmin(sr / 2, low_bytes);
}

static void test_meminfo_without_memavailable(void **state)
{
	struct gd_root root;
	struct gd_collect_ctx ctx;
	struct gd_snapshot s;
	struct gd_err err;
	double page = (double)sysconf(_SC_PAGESIZE), low = (11 + 1600 + 23461 + 0 + 0) * page;

	(void)state;
	open_root(&root, &ctx, NE);
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_collect_proc_meminfo(&ctx, &s, &err), GD_SRC_OK);
	assert_true(s.mem.available_estimated.ok && s.mem.available_estimated.v == 1);
	assert_true(s.mem.low_watermark_bytes.ok);
	assert_float_equal((double)s.mem.low_watermark_bytes.v, low, 0.5);
	assert_true(s.mem.available_bytes.ok);
	assert_float_equal((double)s.mem.available_bytes.v, expected_avail(low), 1.0);
	assert_float_equal((double)s.mem.file_lru_bytes.v, (213412 + 145676) * KIB, 0.5);
	gd_snapshot_release(&s);

	/* the parser alone (no zoneinfo): low taken as 0 */
	{
		char *buf;
		size_t len;

		assert_int_equal(gd_root_read(&root, "proc/meminfo", &buf, &len, 1 << 20), 0);
		gd_snapshot_init(&s);
		gd_err_clear(&err);
		assert_int_equal(gd_parse_proc_meminfo(buf, len, &s, &err), 0);
		free(buf);
		assert_true(s.mem.available_estimated.ok);
		assert_false(s.mem.low_watermark_bytes.ok);
		assert_float_equal((double)s.mem.available_bytes.v, expected_avail(0), 1.0);
		gd_snapshot_release(&s);
	}
	gd_root_release(&root);

	/* a kernel with MemAvailable: nothing estimated */
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_int_equal(parse_lit(gd_parse_proc_meminfo,
				   "MemTotal: 1000 kB\nMemFree: 10 kB\nMemAvailable: 500 kB\nActive(file): 100 kB\n"
				   "Inactive(file): 100 kB\nSReclaimable: 9 kB\n",
				   &s, &err),
			 0);
	assert_false(s.mem.available_estimated.ok);
	assert_int_equal(s.mem.available_bytes.v, 500 * 1024);
	gd_snapshot_release(&s);
}

static void test_zoneinfo_malformed(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_proc_zoneinfo, "", &s, &err) < 0);
	assert_non_null(strstr(err.msg, "no zone"));
	assert_true(parse_lit(gd_parse_proc_zoneinfo, "Node 0, zone Normal\n  pages free 5\n        low      many\n", &s, &err) < 0);
	assert_non_null(strstr(err.msg, "line 3"));
	assert_true(parse_lit(gd_parse_proc_zoneinfo, "Node 0, zone Normal\n  pages free 5\n", &s, &err) < 0);
	assert_true(gd_parse_proc_zoneinfo("Node 0\n\0\xff", 9, &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_zoneinfo, "Node 0, zone Normal\n        low      99999999999999999999\n", &s, &err) < 0);
	assert_false(s.mem.low_watermark_bytes.ok);
	assert_int_equal(parse_lit(gd_parse_proc_zoneinfo, "Node 0, zone DMA\n        low 3\nNode 0, zone Normal\n        low 5\n", &s, &err), 0);
	assert_int_equal(s.mem.low_watermark_bytes.v, 8 * (uint64_t)sysconf(_SC_PAGESIZE));
	gd_snapshot_release(&s);
}

static void test_pressure_says_estimated(void **state)
{
	struct gd_snapshot b;
	struct gd_findings out;
	const struct gd_finding *f;

	(void)state;
	gd_snapshot_init(&b);
	gd_f64_set(&b.host.uptime_s, 100);
	gd_u64_set(&b.mem.total_bytes, 64ull << 30);
	gd_u64_set(&b.mem.available_bytes, 1ull << 30);
	gd_u64_set(&b.mem.available_estimated, 1);
	gd_u64_set(&b.mem.low_watermark_bytes, 90ull << 20);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("mem.pressure", &b, NULL, NULL, &out), GD_VERDICT_FIRED);
	f = one_finding(&out);
	assert_non_null(strstr(f->summary, "estimated: this kernel has no MemAvailable"));
	assert_non_null(strstr(ev_get(f, "available_source")->text, "low watermarks from /proc/zoneinfo"));
	assert_float_equal(ev_get(f, "low_watermark_bytes")->value.v, 90.0 * (1 << 20), 0.5);
	gd_findings_release(&out);
	gd_snapshot_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ib_no_pma_is_absent),
		cmocka_unit_test(test_meminfo_without_memavailable),
		cmocka_unit_test(test_zoneinfo_malformed),
		cmocka_unit_test(test_pressure_says_estimated),
	};

	return cmocka_run_group_tests(tests, NULL, tree_sweep);
}
