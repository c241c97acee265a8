/*
 * test_probe_sku.c - the probes' SKU table (src/probe/sku.c): the built-in
 * data/probe-sku.ini, lookups, the figures a probe may be judged by (only
 * where our share of the datasheet is known), [probe.sku "NAME"] sections
 * of a configuration file over it, malformed files named by file and line,
 * and the probe rules judging a lone GPU by its SKU.
 */
#include "testutil.h"

#include <stdio.h>
#include <unistd.h>

#include "probe/probe.h"
#include "probe/sku.h"
#include "rules/rule_probe.h"

static int parse(struct gd_sku_table *t, const char *text, bool config, struct gd_err *err)
{
	gd_err_clear(err);
	return gd_sku_table_parse(t, text, strlen(text), "t.ini", config, err);
}

/* The binary carries data/probe-sku.ini as it is, line for line. */
static void builtin_is_the_data_file(void **state)
{
	FILE *f = fopen(GD_SRCDIR "/data/probe-sku.ini", "r");
	static char buf[1 << 16];
	size_t n;

	(void)state;
	assert_non_null(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_string_equal(gd_sku_builtin_ini, buf);
}

static void builtin_table(void **state)
{
	struct gd_sku_table t;
	struct gd_err err;
	double v;

	(void)state;
	gd_sku_table_init(&t);
	gd_err_clear(&err);
	assert_int_equal(gd_sku_table_builtin(&t, &err), 0);
	assert_int_equal(t.n, 10);
	for (size_t i = 0; i < t.n; i++) {
		const struct gd_sku *k = &t.items[i];

		/* every SKU knows its link; every figure names its source and line */
		assert_false(isnan(k->fig[GD_SKU_PCIE_GEN]));
		assert_false(isnan(k->fig[GD_SKU_PCIE_WIDTH]));
		assert_false(isnan(k->fig[GD_SKU_MEM_GBPS]));
		for (int j = 0; j < GD_SKU_NFIG; j++) {
			if (isnan(k->fig[j]))
				continue;
			assert_contains(k->source[j], "PROBES.md 4.2");
			assert_contains(k->source[j], "(probe-sku.ini (built in):");
		}
		/* no share of a datasheet is measured yet: compute and memory
		 * bandwidth stay judged against siblings only */
		assert_false(gd_sku_expected(k, GD_PK_COMPUTE_FP32, &v));
		assert_false(gd_sku_expected(k, GD_PK_COMPUTE_BF16, &v));
		assert_false(gd_sku_expected(k, GD_PK_MEM_BANDWIDTH, &v));
		assert_false(gd_sku_expected(k, GD_PK_MEM_PATTERN, &v));
		assert_true(gd_sku_expected(k, GD_PK_H2D, &v));
	}
	/* H100 SXM5: Gen5 x16 -> 3.938 x 16 x 78% */
	assert_true(gd_sku_expected(gd_sku_find(&t, "NVIDIA H100 80GB HBM3"), GD_PK_D2H_ALL, &v));
	NEAR(v, 3.938 * 16 * 0.78, 1e-9);
	NEAR(gd_sku_find(&t, "NVIDIA H100 80GB HBM3")->fig[GD_SKU_MEM_GBPS], 3350, 0);
	/* T4: Gen3 x16 -> 0.985 x 16 x 78% */
	assert_true(gd_sku_expected(gd_sku_find(&t, "Tesla T4"), GD_PK_H2D, &v));
	NEAR(v, 0.985 * 16 * 0.78, 1e-9);
	assert_false(gd_sku_expected(NULL, GD_PK_H2D, &v));
	gd_sku_table_release(&t);
}

static void lookups(void **state)
{
	struct gd_sku_table t;
	struct gd_err err;

	(void)state;
	gd_sku_table_init(&t);
	assert_int_equal(gd_sku_table_builtin(&t, &err), 0);
	/* the name NVML reports, in any case */
	assert_string_equal(gd_sku_find(&t, "NVIDIA H100 80GB HBM3")->name, "NVIDIA H100 80GB HBM3");
	assert_string_equal(gd_sku_find(&t, "nvidia h100 pcie")->name, "NVIDIA H100 PCIe");
	/* a match: a V100 SXM2 of 16 GB is the 32 GB one's family */
	assert_string_equal(gd_sku_find(&t, "Tesla V100-SXM2-16GB")->name, "Tesla V100-SXM2-32GB");
	/* the longest match wins; an equal name before any match */
	assert_string_equal(gd_sku_find(&t, "NVIDIA H100 80GB HBM3 custom")->name, "NVIDIA H100 80GB HBM3");
	/* A10 is not A100's family, nor H200 NVL the SXM's: no guess */
	assert_null(gd_sku_find(&t, "NVIDIA A100-PCIE-40GB"));
	assert_null(gd_sku_find(&t, "NVIDIA A10G"));
	assert_null(gd_sku_find(&t, "NVIDIA H200 NVL"));
	assert_null(gd_sku_find(&t, ""));
	assert_null(gd_sku_find(&t, NULL));
	gd_sku_table_release(&t);
}

/* A configuration file over the built-in table: its other sections are the
 * thresholds'; a known name changes only what it sets, a new one adds. */
static void config_overrides(void **state)
{
	static const char conf[] =
		"; gpudoctor.conf\n"
		"[cpu.saturated]\n"
		"busy_pct = 85\n"
		"\n"
		"[probe.sku \"NVIDIA H100 80GB HBM3\"]\n"
		"compute_fp32_reached = 0.75\n"
		"reached_source = gpudoctor probe --quick on 8 H100 SXM5,\n"
		"  node a17, 2026-05-02\n"
		"\n"
		"[probe.sku \"NVIDIA B200\"]\n"
		"pcie_gen = 6\n"
		"pcie_width = 16\n"
		"source = vendor sheet\n"
		"[mem.shm_small]\n"
		"min_bytes = 1\n";
	struct gd_sku_table t;
	struct gd_err err;
	const struct gd_sku *k;
	double v;

	(void)state;
	gd_sku_table_init(&t);
	assert_int_equal(gd_sku_table_builtin(&t, &err), 0);
	assert_int_equal(parse(&t, conf, true, &err), 0);
	assert_int_equal(t.n, 11);
	k = gd_sku_find(&t, "NVIDIA H100 80GB HBM3");
	/* 67 TFLOP/s x 75% = 50250 GFLOP/s, now that the share is known */
	assert_true(gd_sku_expected(k, GD_PK_COMPUTE_FP32, &v));
	NEAR(v, 50250, 1e-6);
	assert_false(gd_sku_expected(k, GD_PK_COMPUTE_BF16, &v));
	assert_string_equal(k->source[GD_SKU_COMPUTE_FP32_REACHED],
			    "gpudoctor probe --quick on 8 H100 SXM5, node a17, 2026-05-02 (t.ini:6)");
	assert_contains(k->source[GD_SKU_MEM_GBPS], "(probe-sku.ini (built in):");
	NEAR(k->fig[GD_SKU_MEM_GBPS], 3350, 0);
	k = gd_sku_find(&t, "NVIDIA B200");
	assert_non_null(k);
	assert_true(gd_sku_expected(k, GD_PK_H2D, &v));
	NEAR(v, 7.877 * 16 * 0.78, 1e-9);
	assert_string_equal(k->source[GD_SKU_PCIE_GEN], "vendor sheet (t.ini:11)");
	assert_true(isnan(k->fig[GD_SKU_MEM_GBPS]));
	gd_sku_table_release(&t);
}

static void malformed(void **state)
{
	static const struct {
		const char *text;
		bool config;
		const char *msg;
	} bad[] = {
		{ "[probe.sku \"X\"]\npcie_gen = 7\nsource = s\n", false,
		  "t.ini:2: pcie_gen = 7: expected a whole number from 1 to 6" },
		{ "[probe.sku \"X\"]\npcie_gen = 4.5\nsource = s\n", false,
		  "t.ini:2: pcie_gen = 4.5: expected a whole number from 1 to 6" },
		{ "[probe.sku \"X\"]\npcie_width = 3\nsource = s\n", false,
		  "t.ini:2: pcie_width = 3: a PCIe link has 1, 2, 4, 8, 12, 16 or 32 lanes" },
		{ "[probe.sku \"X\"]\nmem_gbps = fast\n", false, "t.ini:2: mem_gbps = \"fast\": not a number" },
		{ "[probe.sku \"X\"]\nmem_gbps = 0\n", false, "t.ini:2: mem_gbps = 0: expected a number above 0 and at most 100000" },
		{ "[probe.sku \"X\"]\nmem_gbps = nan\n", false, "t.ini:2: mem_gbps = \"nan\": not a number" },
		{ "[probe.sku \"X\"]\ncompute_fp32_reached = 1.5\nreached_source = r\n", false,
		  "t.ini:2: compute_fp32_reached = 1.5: expected a number above 0 and at most 1" },
		{ "; a comment\n\n[probe.sku \"X\"]\npcie_gen = 5\n", false,
		  "t.ini:3: [probe.sku \"X\"] gives pcie_gen without a source = line (the datasheet or PROBES.md row it comes from)" },
		{ "[probe.sku \"X\"]\nmem_bandwidth_reached = 0.8\n", false,
		  "t.ini:1: [probe.sku \"X\"] gives mem_bandwidth_reached without a reached_source = line (the run on a real GPU that measured it)" },
		{ "[probe.sku \"X\"]\nsource = s\nmatch = X\n", false,
		  "t.ini:1: [probe.sku \"X\"] has a source = line but no datasheet figure for it to name" },
		{ "[probe.sku \"X\"]\nreached_source = r\npcie_gen = 4\nsource = s\n", false,
		  "t.ini:1: [probe.sku \"X\"] has a reached_source = line but no share (compute_fp32_reached, ...)" },
		{ "[probe.sku \"X\"]\n; nothing\n[probe.sku \"Y\"]\n", false, "t.ini:1: [probe.sku \"X\"] sets no figure" },
		{ "[probe.sku \"Y\"]\nmatch = Y\n[probe.sku \"X\"]\n", false, "t.ini:3: [probe.sku \"X\"] sets no figure" },
		{ "[probe.sku \"X\"]\nfp32 = 5\n", false,
		  "t.ini:2: unknown key \"fp32\" (keys: match, pcie_gen, pcie_width, mem_gbps, fp32_tflops, bf16_tflops, "
		  "source, compute_fp32_reached, compute_bf16_reached, mem_bandwidth_reached, reached_source)" },
		{ "pcie_gen = 5\n", false, "t.ini:1: key \"pcie_gen\" outside a [probe.sku \"NAME\"] section" },
		{ "[gpu]\npcie_gen = 5\n", false, "t.ini:1: [gpu]: expected [probe.sku \"PRODUCT NAME\"]" },
		{ "[probe.sku X]\n", false, "t.ini:1: [probe.sku X]: expected [probe.sku \"PRODUCT NAME\"], the name in double quotes" },
		{ "[probe.sku \"\"]\n", true, "t.ini:1: [probe.sku \"\"]: expected [probe.sku \"PRODUCT NAME\"], the name in double quotes" },
		{ "[probe.sku \"X\" y]\n", true, "t.ini:1: [probe.sku \"X\" y]: expected [probe.sku \"PRODUCT NAME\"], the name in double quotes" },
		{ "[probe.sku]\n", true, "t.ini:1: [probe.sku]: expected [probe.sku \"PRODUCT NAME\"], the name in double quotes" },
		{ "[probe.sku \"X\"]\nmatch = X\n\n[probe.sku \"x\"]\nmatch = Y\n", false,
		  "t.ini:4: [probe.sku \"x\"] again (the first is at line 1)" },
		{ "[probe.sku \"X\"]\nmem_gbps = 1\nmem_gbps = 2\nsource = s\n", false,
		  "t.ini:3: mem_gbps is set twice in [probe.sku \"X\"] (the first at line 2)" },
		{ "[probe.sku \"X\"]\nmatch = a\nmatch = b\n", false, "t.ini:3: match is set twice in [probe.sku \"X\"]" },
		{ "[probe.sku \"X\"]\nsource =\n", false, "t.ini:2: source is empty" },
		{ "[probe.sku \"X\"]\nmem_gbps = 1\n  2\nsource = s\n", false,
		  "t.ini:3: a line that starts with white space continues mem_gbps, which takes one line" },
		{ "[probe.sku \"X\"]\nmem_gbps 1\nsource = s\n", false,
		  "t.ini:2: malformed line (expected [probe.sku \"NAME\"] or key = value)" },
		/* inih's syntax error comes first when it is on an earlier line */
		{ "[probe.sku \"X\"]\nmem_gbps 1\nfp32 = 2\n", false,
		  "t.ini:2: malformed line (expected [probe.sku \"NAME\"] or key = value)" },
		{ "[probe.sku \"X\"]\nmem_gbps = 1\nsource = s\n[probe.sku \"Y\"\n", false,
		  "t.ini:4: malformed line (expected [probe.sku \"NAME\"] or key = value)" },
		{ "[probe.sku \"X\"]\nmem_gbps = 1\nsource = s\nx = 1\n", true,
		  "t.ini:4: unknown key \"x\" (keys: match, pcie_gen, pcie_width, mem_gbps, fp32_tflops, bf16_tflops, "
		  "source, compute_fp32_reached, compute_bf16_reached, mem_bandwidth_reached, reached_source)" },
	};
	struct gd_sku_table t;
	struct gd_err err;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		gd_sku_table_init(&t);
		if (parse(&t, bad[i].text, bad[i].config, &err) >= 0)
			fail_msg("case %zu parsed: %s", i, bad[i].text);
		if (strcmp(err.msg, bad[i].msg) != 0)
			fail_msg("case %zu: \"%s\", want \"%s\"", i, err.msg, bad[i].msg);
		gd_sku_table_release(&t);
	}
}

/* Lines inih cannot hold, bytes it cannot see, a name too long for NVML:
 * each refused with the line; the length is the only bound on the text. */
static void malformed_bytes(void **state)
{
	struct gd_sku_table t;
	struct gd_err err;
	char line[400];
	static const char nul[] = "[probe.sku \"X\"]\nmatch = a\0b\n";

	(void)state;
	gd_sku_table_init(&t);
	snprintf(line, sizeof line, "[probe.sku \"X\"]\nsource = %0250d\n", 0);
	assert_true(parse(&t, line, false, &err) < 0);
	assert_string_equal(err.msg, "t.ini:2: the line is longer than 199 bytes");
	gd_err_clear(&err);
	assert_true(gd_sku_table_parse(&t, nul, sizeof nul - 1, "t.ini", false, &err) < 0);
	assert_string_equal(err.msg, "t.ini:2: the line holds a NUL byte");
	snprintf(line, sizeof line, "[probe.sku \"%0100d\"]\n", 0);
	assert_true(parse(&t, line, false, &err) < 0);
	assert_string_equal(err.msg, "t.ini:1: [probe.sku ...]: a product name is at most 95 bytes");
	/* the text ends where len says, without a NUL or a newline */
	gd_err_clear(&err);
	assert_int_equal(gd_sku_table_parse(&t, "[probe.sku \"X\"]\nmatch = Xyz", 26, "t.ini", false, &err), 0);
	assert_string_equal(t.items[0].match, "Xy");
	/* a BOM, CRLF line ends and inline comments, as inih reads them */
	assert_int_equal(parse(&t, "\xEF\xBB\xBF[probe.sku \"Z\"]\r\npcie_gen = 4 ; Gen4\r\nsource = s\r\n", false, &err), 0);
	NEAR(gd_sku_find(&t, "Z")->fig[GD_SKU_PCIE_GEN], 4, 0);
	/* an empty text is an empty table */
	assert_int_equal(gd_sku_table_parse(&t, "", 0, "t.ini", false, &err), 0);
	gd_sku_table_release(&t);
}

static void load_files(void **state)
{
	char path[] = "/tmp/gd-sku-XXXXXX";
	int fd = mkstemp(path);
	static const char conf[] = "[cpu.saturated]\nbusy_pct = 91\n[probe.sku \"Tesla T4\"]\nmem_bandwidth_reached = 0.8\n"
				   "reached_source = measured\n";
	struct gd_sku_table t;
	struct gd_thresholds th;
	struct gd_err err;
	double v;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, conf, sizeof conf - 1), (ssize_t)(sizeof conf - 1));
	close(fd);
	gd_sku_table_init(&t);
	assert_int_equal(gd_sku_table_builtin(&t, &err), 0);
	gd_err_clear(&err);
	assert_int_equal(gd_sku_table_load(&t, path, false, &err), 0);
	assert_true(gd_sku_expected(gd_sku_find(&t, "Tesla T4"), GD_PK_MEM_BANDWIDTH, &v));
	NEAR(v, 320 * 0.8, 1e-9);
	/* the thresholds' reader leaves the SKU sections to the probe */
	gd_thresholds_init(&th);
	gd_err_clear(&err);
	assert_int_equal(gd_thresholds_load(&th, path, false, &err), 0);
	NEAR(th.v[GD_TH_CPU_SATURATED_BUSY_PCT], 91, 0);
	unlink(path);
	/* a missing file: nothing when it may be missing, else the error */
	assert_int_equal(gd_sku_table_load(&t, "/nonexistent/gpudoctor.conf", true, &err), 0);
	assert_true(gd_sku_table_load(&t, "/nonexistent/gpudoctor.conf", false, &err) < 0);
	assert_string_equal(err.msg, "/nonexistent/gpudoctor.conf: No such file or directory");
	gd_sku_table_release(&t);
}

/* A lone GPU: judged by its SKU figure where our share is known, else the
 * rule says it is judged against siblings only. */
static void rule_lone_gpu_by_sku(void **state)
{
	struct gd_snapshot s;
	const struct gd_snapshot *arr[1] = { &s };
	struct gd_window w = { arr, 1 };
	struct gd_thresholds th;
	struct gd_findings f;
	struct gd_probe_row *r;
	struct gd_gpu *g;
	double e;
	char from[64];

	(void)state;
	gd_snapshot_init(&s);
	g = GD_PUSH(&s, gpus, struct gd_gpu);
	memset(g, 0, sizeof *g);
	gd_u64_set(&g->index, 0);
	GD_STRSET(g->name, "NVIDIA H100 80GB HBM3");
	r = GD_PUSH(&s, probe, struct gd_probe_row);
	memset(r, 0, sizeof *r);
	gd_u64_set(&r->gpu, 0);
	GD_STRSET(r->pci_bus_id, "0000:1b:00.0");
	GD_STRSET(r->probe, "compute_fp32");
	GD_STRSET(r->status, "ok");
	GD_STRSET(r->unit, "GFLOP/s");
	gd_f64_set(&r->achieved, 40000);
	gd_thresholds_init(&th);
	/* no share known: no SKU figure, and the rule says why it cannot judge */
	gd_findings_init(&f);
	assert_int_equal(gd_rule_run(gd_rule_find("probe.gpu_compute_slow"), &w, &th, &f), GD_VERDICT_UNKNOWN);
	assert_contains(GD_VEC_AT(f.unknown, struct gd_unknown, 0)->reason, "judged against siblings only");
	assert_false(gd_probe_expected(&s, r, &e, from, sizeof from));
	gd_findings_release(&f);
	/* 67 TFLOP/s x 75% = 50250; 40000 is 80% < 85%: fires */
	gd_f64_set(&r->sku_expected, 50250);
	assert_true(gd_probe_expected(&s, r, &e, from, sizeof from));
	NEAR(e, 50250, 0);
	assert_string_equal(from, "SKU table");
	gd_findings_init(&f);
	assert_int_equal(gd_rule_run(gd_rule_find("probe.gpu_compute_slow"), &w, &th, &f), GD_VERDICT_FIRED);
	assert_int_equal(f.items.n, 1);
	assert_string_equal(FINDING(f, 0)->subject, "gpu0 (0000:1b:00.0) compute_fp32");
	assert_contains(FINDING(f, 0)->summary, "80% of the 50250 GFLOP/s the SKU table expects of this model");
	assert_ev(FINDING(f, 0), "achieved", 40000, 50250 * 0.85);
	gd_findings_release(&f);
	/* 43000: 85.6%: clear (the threshold edge) */
	r->achieved.v = 43000;
	gd_findings_init(&f);
	assert_int_equal(gd_rule_run(gd_rule_find("probe.gpu_compute_slow"), &w, &th, &f), GD_VERDICT_CLEAR);
	gd_findings_release(&f);
	/* with a sibling, the sibling's figure judges and the SKU waits */
	g = GD_PUSH(&s, gpus, struct gd_gpu);
	memset(g, 0, sizeof *g);
	gd_u64_set(&g->index, 1);
	GD_STRSET(g->name, "NVIDIA H100 80GB HBM3");
	r = GD_PUSH(&s, probe, struct gd_probe_row);
	*r = *(struct gd_probe_row *)s.probe.items;
	gd_u64_set(&r->gpu, 1);
	r->achieved.v = 43500;
	assert_true(gd_probe_expected(&s, r, &e, from, sizeof from));
	NEAR(e, 43000, 0);
	assert_string_equal(from, "median of 1 sibling");
	gd_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(builtin_is_the_data_file),
		cmocka_unit_test(builtin_table),
		cmocka_unit_test(lookups),
		cmocka_unit_test(config_overrides),
		cmocka_unit_test(malformed),
		cmocka_unit_test(malformed_bytes),
		cmocka_unit_test(load_files),
		cmocka_unit_test(rule_lone_gpu_by_sku),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
