/*
 * test_probe.c - the probe's pure parts: PTX headers and the driver a module
 * needs, JIT-log cleaning, the generated modules themselves, the CUDA loader
 * on a library that is not a driver, and the probe rules on hand-built rows.
 */
#include "testutil.h"

#include <stdio.h>

#include "probe/cuda.h"
#include "probe/ptx.h"
#include "rules/rule_probe.h"

static void ptx_header_of_generated_modules(void **state)
{
	struct gd_ptx_header h;
	struct gd_err err;
	char why[256];

	(void)state;
	assert_int_equal(gd_ptx_header_parse(gd_ptx_base, strlen(gd_ptx_base), &h, &err), 0);
	assert_int_equal(h.isa_major, 6);
	assert_int_equal(h.isa_minor, 4);
	assert_int_equal(h.sm, 52);
	assert_int_equal(h.address_size, 64);
	assert_true(gd_ptx_loadable(&h, 10010, 52, why, sizeof why));
	assert_true(gd_ptx_loadable(&h, 12040, 90, why, sizeof why));
	assert_false(gd_ptx_loadable(&h, 10000, 90, why, sizeof why));
	assert_string_equal(why, "the driver supports CUDA 10.0, older than this module's PTX 6.4 (needs CUDA 10.1)");
	assert_non_null(strstr(gd_ptx_base, ".visible .entry gd_burn_fp32("));
	assert_non_null(strstr(gd_ptx_base, ".visible .entry gd_check_addr("));
	assert_int_equal(gd_ptx_header_parse(gd_ptx_tensor, strlen(gd_ptx_tensor), &h, &err), 0);
	assert_int_equal(h.isa_major * 10 + h.isa_minor, 70);
	assert_int_equal(h.sm, 80);
	assert_false(gd_ptx_loadable(&h, 12040, 75, why, sizeof why));
	assert_string_equal(why, "the GPU (compute capability 7.5) cannot run a module for sm_80");
	assert_non_null(strstr(gd_ptx_tensor, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
}

static void ptx_header_errors(void **state)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "", "PTX: the text ends before its .version directive" },
		{ "// only a comment\n\n", "PTX: the text ends before its .version directive" },
		{ ".target sm_52\n", "PTX line 1: expected .version first, found \".target sm_52\"" },
		{ ".version 6\n.target sm_52\n", "PTX line 1: .version wants MAJOR.MINOR, found \"6\"" },
		{ ".version 6.4\n", "PTX: the text ends before its .target directive" },
		{ ".version 6.4\n.entry x()\n", "PTX line 2: expected .target after .version, found \".entry x()\"" },
		{ ".version 6.4\n.target compute_52\n", "PTX line 2: .target wants sm_NN, found \"compute_52\"" },
		{ ".version 6.4\n.target sm_5\n", "PTX line 2: target sm_5 is out of range" },
		{ ".version 6.4\n.target sm_52x\n", "PTX line 2: cannot read the target \"sm_52x\"" },
		{ ".version 6.4\n.target sm_52\n.address_size 48\n", "PTX line 3: .address_size must be 32 or 64" },
		{ ".version 3.1\n.target sm_52\n", "PTX: ISA version 3.1 is not one this table knows" },
	};
	struct gd_ptx_header h;
	struct gd_err err;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		gd_err_clear(&err);
		assert_true(gd_ptx_header_parse(bad[i].text, strlen(bad[i].text), &h, &err) < 0);
		assert_string_equal(err.msg, bad[i].msg);
	}
	/* arch-specific targets run on that GPU only; 32-bit PTX is refused */
	gd_err_clear(&err);
	assert_int_equal(gd_ptx_header_parse(".version 8.0\n.target sm_90a\n.address_size 64\n", 45, &h, &err), 0);
	{
		char why[200];

		assert_true(h.arch_specific);
		assert_true(gd_ptx_loadable(&h, 12000, 90, why, sizeof why));
		assert_false(gd_ptx_loadable(&h, 12000, 100, why, sizeof why));
		assert_int_equal(gd_ptx_header_parse(".version 6.4\n.target sm_52\n", 27, &h, &err), 0);
		assert_false(gd_ptx_loadable(&h, 12000, 90, why, sizeof why));
		assert_string_equal(why, "the module is 32-bit PTX; the probes need 64-bit");
	}
	/* the length bounds the text: no NUL needed */
	assert_true(gd_ptx_header_parse(".version 6.4\n.target sm_52\n", 13, &h, &err) < 0);
}

static void jit_log_clean(void **state)
{
	char out[64];
	const char log[] = "  ptxas fatal   : Unresolved extern\n\tfunction 'f'\x01\xff  \n";

	(void)state;
	assert_int_equal(gd_ptx_log_clean(log, sizeof log, sizeof log, out, sizeof out),
			 strlen("ptxas fatal : Unresolved extern function 'f'"));
	assert_string_equal(out, "ptxas fatal : Unresolved extern function 'f'");
	/* a reported length beyond the buffer is capped by the capacity */
	assert_int_equal(gd_ptx_log_clean("abcdef", 3, 1000, out, sizeof out), 3);
	assert_string_equal(out, "abc");
	/* an output buffer smaller than the line truncates it */
	assert_int_equal(gd_ptx_log_clean("abcdef", 6, 6, out, 4), 3);
	assert_string_equal(out, "abc");
	assert_int_equal(gd_ptx_log_clean(NULL, 0, 0, out, sizeof out), 0);
	assert_string_equal(out, "");
}

static void cuda_open_errors(void **state)
{
	struct gd_cuda cu;
	char eb[64];

	(void)state;
	assert_int_equal(gd_cuda_open(&cu, "/nonexistent/libcuda.so.1"), -1);
	assert_non_null(strstr(cu.reason, "cannot load the CUDA driver /nonexistent/libcuda.so.1"));
	gd_cuda_close(&cu);
	/* a real library that is not a driver: every symbol is named missing */
	assert_int_equal(gd_cuda_open(&cu, "libz.so.1"), -1);
	assert_non_null(strstr(cu.reason, "libz.so.1 lacks cuInit, cuDriverGetVersion"));
	gd_cuda_close(&cu);
	assert_string_equal(gd_cuda_strerror(NULL, 222, eb, sizeof eb), "CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222)");
	assert_string_equal(gd_cuda_strerror(NULL, 12345, eb, sizeof eb), "CUDA error (12345)");
}

static struct gd_probe_row *row(struct gd_snapshot *s, unsigned gpu, const char *probe, double v)
{
	struct gd_probe_row *r = GD_PUSH(s, probe, struct gd_probe_row);

	memset(r, 0, sizeof *r);
	gd_u64_set(&r->gpu, gpu);
	snprintf(r->pci_bus_id, sizeof r->pci_bus_id, "0000:%02x:00.0", gpu + 0x10);
	GD_STRSET(r->probe, probe);
	GD_STRSET(r->status, "ok");
	GD_STRSET(r->unit, "GB/s");
	gd_f64_set(&r->achieved, v);
	return r;
}

static void gpus(struct gd_snapshot *s, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++) {
		struct gd_gpu *g = GD_PUSH(s, gpus, struct gd_gpu);

		memset(g, 0, sizeof *g);
		gd_u64_set(&g->index, i);
		GD_STRSET(g->name, name);
	}
}

static size_t fired(const struct gd_rule *rule, const struct gd_snapshot *s, const char *subject)
{
	const struct gd_snapshot *arr[1] = { s };
	struct gd_window w = { arr, 1 };
	struct gd_thresholds th;
	struct gd_findings f;
	size_t n = 0;

	gd_thresholds_init(&th);
	gd_findings_init(&f);
	gd_rule_run(rule, &w, &th, &f);
	GD_VEC_EACH(f.items, const struct gd_finding, x)
		n += strcmp(x->subject, subject) == 0;
	gd_findings_release(&f);
	return n;
}

static void rules_siblings_and_link(void **state)
{
	struct gd_snapshot s;
	double e;
	char from[64];

	(void)state;
	gd_snapshot_init(&s);
	gpus(&s, 4, "NVIDIA H100 80GB HBM3");
	for (unsigned i = 0; i < 4; i++)
		row(&s, i, "compute_fp32", i == 2 ? 36000 : 51000);
	/* 36000 / 51000 = 70.6% < 85% of the median of the other three */
	assert_int_equal(fired(gd_rule_find("probe.gpu_compute_slow"), &s, "gpu2 (0000:12:00.0) compute_fp32"), 1);
	assert_int_equal(fired(gd_rule_find("probe.gpu_compute_slow"), &s, "gpu0 (0000:10:00.0) compute_fp32"), 0);
	/* 44000: 86% of 51000: clear (the threshold edge) */
	((struct gd_probe_row *)s.probe.items)[2].achieved.v = 44000;
	assert_int_equal(fired(gd_rule_find("probe.gpu_compute_slow"), &s, "gpu2 (0000:12:00.0) compute_fp32"), 0);
	/* a Gen4 x16 link carries 1.969 x 16 x 0.78 = 24.6 GB/s; 17 is 69% */
	{
		struct gd_probe_row *r = row(&s, 1, "h2d", 17);

		gd_u64_set(&r->link_gen, 4);
		gd_u64_set(&r->link_width, 16);
		assert_true(gd_probe_expected(&s, r, &e, from, sizeof from));
		assert_true(fabs(e - 1.969 * 16 * 0.78) < 1e-9);
		assert_string_equal(from, "link Gen4 x16");
		assert_int_equal(fired(gd_rule_find("probe.pcie_bandwidth_low"), &s, "gpu1 (0000:11:00.0) h2d"), 1);
		r->achieved.v = 17.5;  /* 71%: clear */
		assert_int_equal(fired(gd_rule_find("probe.pcie_bandwidth_low"), &s, "gpu1 (0000:11:00.0) h2d"), 0);
	}
	gd_snapshot_release(&s);
}

static void rules_mismatch_hung_unknown(void **state)
{
	struct gd_snapshot s;
	struct gd_probe_row *r;
	const struct gd_snapshot *arr[1];
	struct gd_window w;
	struct gd_thresholds th;
	struct gd_findings f;

	(void)state;
	gd_snapshot_init(&s);
	gpus(&s, 3, "NVIDIA A100-SXM4-80GB");
	for (unsigned i = 0; i < 3; i++) {
		r = row(&s, i, "compute_fp32", 19000);
		GD_STRSET(r->digest, i == 1 ? "00000000deadbeef" : "0123456789abcdef");
		gd_u64_set(&r->errors, 0);
		gd_u64_set(&r->checked, 1000);
	}
	assert_int_equal(fired(gd_rule_find("probe.gpu_compute_mismatch"), &s, "gpu1 (0000:11:00.0) compute_fp32"), 1);
	assert_int_equal(fired(gd_rule_find("probe.gpu_compute_mismatch"), &s, "gpu0 (0000:10:00.0) compute_fp32"), 0);
	r = row(&s, 2, "mem_pattern", 100);
	GD_STRSET(r->status, "hung");
	assert_int_equal(fired(gd_rule_find("probe.gpu_hung"), &s, "gpu2 (0000:12:00.0) mem_pattern"), 1);
	gd_snapshot_release(&s);
	/* no probe rows: unknown, never clear */
	gd_snapshot_init(&s);
	arr[0] = &s;
	w.snaps = arr;
	w.n = 1;
	gd_thresholds_init(&th);
	gd_findings_init(&f);
	assert_int_equal(gd_rule_run(gd_rule_find("probe.gpu_hung"), &w, &th, &f), GD_VERDICT_UNKNOWN);
	gd_findings_release(&f);
	gd_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ptx_header_of_generated_modules),
		cmocka_unit_test(ptx_header_errors),
		cmocka_unit_test(jit_log_clean),
		cmocka_unit_test(cuda_open_errors),
		cmocka_unit_test(rules_siblings_and_link),
		cmocka_unit_test(rules_mismatch_hung_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
