/*
 * test_rules_klog.c - the kernel-log rules on snapshots built in C: each
 * fires with its evidence, stays clear on a quiet log, and says unknown
 * when the kernel log could not be read.
 */
#include "testutil.h"

#include <math.h>

#include "klog/klog.h"
#include "klog/xid.h"

static void klog_ok(struct gd_snapshot *s, double span_s)
{
	struct gd_source *src = GD_PUSH(s, sources, struct gd_source);

	GD_STRSET(src->name, "klog");
	GD_STRSET(src->status, "ok");
	gd_f64_set(&s->klog_info.span_s, span_s);
}

static void klog_denied(struct gd_snapshot *s)
{
	struct gd_source *src = GD_PUSH(s, sources, struct gd_source);

	GD_STRSET(src->name, "klog");
	GD_STRSET(src->status, "denied");
	GD_STRSET(src->reason, "/dev/kmsg: Operation not permitted: run as root");
}

/* Adds the event a real line parses into. */
static void line(struct gd_snapshot *s, const char *text)
{
	struct gd_klog_event ev;

	assert_true(gd_klog_parse_line(text, strlen(text), &ev) != GD_KLOG_NONE);
	*GD_PUSH(s, klog, struct gd_klog_event) = ev;
}

static enum gd_verdict run1(const char *id, const struct gd_snapshot *s, struct gd_findings *out)
{
	gd_findings_init(out);
	return run_rule2(id, s, NULL, NULL, out);
}

static const struct gd_finding *fnd(const struct gd_findings *out, size_t i)
{
	assert_true(out->items.n > i);
	return GD_VEC_AT(out->items, struct gd_finding, i);
}

static const char *const ids[] = { "gpu.xid", "gpu.lost", "gpu.init_failed", "gpu.reset_required",
				   "gpu.pcie_link_degraded", "gpu.pcie_replays", "mem.oom_kill" };

static void test_unknown_without_log(void **state)
{
	struct gd_snapshot s;
	struct gd_findings out;

	(void)state;
	for (int pass = 0; pass < 2; pass++) {
		gd_snapshot_init(&s);
		if (pass)
			klog_denied(&s);
		for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
			assert_int_equal(run1(ids[i], &s, &out), GD_VERDICT_UNKNOWN);
			assert_non_null(strstr(GD_VEC_AT(out.unknown, struct gd_unknown, 0)->reason,
					       pass ? "root" : "no kernel log"));
			gd_findings_release(&out);
		}
		/* no EDAC and no log either */
		assert_int_equal(run1("host.memory_errors", &s, &out), GD_VERDICT_UNKNOWN);
		gd_findings_release(&out);
		gd_snapshot_release(&s);
	}
}

/* Both halves' reasons of a two-part rule, at their real lengths, reach the
 * report whole: NVML's reason and the kernel log's denial with its hint. */
static void test_unknown_reason_whole(void **state)
{
	struct gd_snapshot s;
	struct gd_findings out;
	struct gd_source *src;
	const char *why;

	(void)state;
	gd_snapshot_init(&s);
	GD_STRSET(s.nvml.reason, "libnvidia-ml.so.1 not found (no NVIDIA driver, or a container without the "
				 "NVIDIA runtime)");
	src = GD_PUSH(&s, sources, struct gd_source);
	GD_STRSET(src->name, "klog");
	GD_STRSET(src->status, "denied");
	GD_STRSET(src->reason, "/dev/kmsg: Operation not permitted: " GD_KLOG_DENIED_HINT);
	assert_int_equal(run1("gpu.lost", &s, &out), GD_VERDICT_UNKNOWN);
	why = GD_VEC_AT(out.unknown, struct gd_unknown, 0)->reason;
	assert_non_null(strstr(why, "NVIDIA runtime"));
	assert_non_null(strstr(why, "kernel.dmesg_restrict=0)"));
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

static void test_clear_on_quiet_log(void **state)
{
	struct gd_snapshot s;
	struct gd_findings out;

	(void)state;
	gd_snapshot_init(&s);
	klog_ok(&s, 3600);
	line(&s, "NVRM: GPU at PCI:0000:5d:00: GPU-6f3e0c4a-0d5e-4c1e-9a2b-3c4d5e6f7a8b");
	/* a bandwidth line of a NIC (not a GPU) and a GPU at full speed */
	line(&s, "pci 0000:41:00.0: 63.008 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x8 link at 0000:40:01.0 (capable of 126.016 Gb/s with 8.0 GT/s PCIe x16 link)");
	line(&s, "nvidia 0000:5d:00.0: 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe x16 link)");
	line(&s, "pcieport 0000:00:01.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)");
	line(&s, "EDAC MC0: 1 CE memory read error on DIMM_A1 (channel:0 slot:0 socket:0)");
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		assert_int_equal(run1(ids[i], &s, &out), GD_VERDICT_CLEAR);
		assert_int_equal(out.items.n, 0);
		gd_findings_release(&out);
	}
	assert_int_equal(run1("host.memory_errors", &s, &out), GD_VERDICT_CLEAR);   /* 1 CE/h <= 10 */
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

static void test_gpu_rules_fire(void **state)
{
	struct gd_snapshot s;
	struct gd_findings out;

	(void)state;
	gd_snapshot_init(&s);
	klog_ok(&s, 7200);
	line(&s, "[ 10.0] pci 0000:5d:00.0: 126.016 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x8 link at 0000:5c:00.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)");
	line(&s, "[ 11.0] NVRM: GPU at PCI:0000:5d:00: GPU-6f3e0c4a-0d5e-4c1e-9a2b-3c4d5e6f7a8b");
	line(&s, "[ 12.0] NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x31:0x40:2712)");
	line(&s, "[ 20.0] NVRM: Xid (PCI:0000:5d:00): 13, pid=4711, name=python, Graphics Exception");
	line(&s, "[ 20.5] NVRM: Xid (PCI:0000:5d:00): 13, pid=4711, name=python, Graphics Exception");
	line(&s, "[ 21.0] NVRM: Xid (PCI:0000:5d:00): 45, pid=4711, name=python, Ch 00000010");
	line(&s, "[ 30.0] nvidia 0000:5d:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)");
	line(&s, "[ 31.0] nvidia 0000:5d:00.0: AER: PCIe Bus Error: severity=Corrected, type=Data Link Layer, (Transmitter ID)");
	line(&s, "[ 40.0] NVRM: Xid (PCI:0000:86:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.");
	line(&s, "[ 40.1] NVRM: Xid (PCI:0000:86:00): 13, pid=1, name=x, y");
	line(&s, "[ 41.0] NVRM: Xid (PCI:0000:86:00): 154, pid='<unknown>', name=<unknown>, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)");
	line(&s, "[ 50.0] Out of memory: Killed process 5123 (python) total-vm:98765432kB, anon-rss:65432100kB, file-rss:1234kB, shmem-rss:0kB");

	assert_int_equal(run1("gpu.xid", &s, &out), GD_VERDICT_FIRED);
	/* 13 x2 (warning), 45 secondary (info), 79 (critical), 13 after 79 (info), 154 (critical) */
	assert_int_equal(out.items.n, 5);
	{
		bool seen13 = false;
		int crit = 0;

		GD_VEC_EACH(out.items, const struct gd_finding, f)
			crit += f->severity == GD_SEV_CRITICAL;
		assert_int_equal(crit, 2);   /* 79 and 154 */

		GD_VEC_EACH(out.items, const struct gd_finding, f)
			if (strcmp(f->subject, "GPU 0000:5d:00.0 Xid 13") == 0) {
				seen13 = true;
				assert_int_equal(f->severity, GD_SEV_WARNING);
				assert_true(fabs(ev_get(f, "count")->value.v - 2) < 1e-9);
				assert_string_equal(ev_get(f, "uuid")->text, "GPU-6f3e0c4a-0d5e-4c1e-9a2b-3c4d5e6f7a8b");
				assert_non_null(strstr(f->summary, "python (4711)"));
			}
		assert_true(seen13);
	}
	gd_findings_release(&out);

	assert_int_equal(run1("gpu.lost", &s, &out), GD_VERDICT_FIRED);
	assert_int_equal(out.items.n, 1);
	assert_string_equal(fnd(&out, 0)->subject, "GPU 0000:86:00.0");
	assert_true(fabs(ev_get(fnd(&out, 0), "later_xids")->value.v - 2) < 1e-9);
	gd_findings_release(&out);

	assert_int_equal(run1("gpu.init_failed", &s, &out), GD_VERDICT_FIRED);
	assert_string_equal(fnd(&out, 0)->subject, "GPU 0000:3b:00.0");
	gd_findings_release(&out);

	assert_int_equal(run1("gpu.reset_required", &s, &out), GD_VERDICT_FIRED);
	assert_int_equal(out.items.n, 1);
	assert_true(fabs(ev_get(fnd(&out, 0), "recovery_action")->value.v - 2) < 1e-9);
	assert_non_null(strstr(fnd(&out, 0)->remedy, "reboot the node"));
	gd_findings_release(&out);

	assert_int_equal(run1("gpu.pcie_link_degraded", &s, &out), GD_VERDICT_FIRED);
	assert_true(fabs(ev_get(fnd(&out, 0), "bandwidth_pct")->value.v - 50) < 0.01);
	assert_string_equal(ev_get(fnd(&out, 0), "limited_at")->text, "0000:5c:00.0");
	gd_findings_release(&out);

	assert_int_equal(run1("gpu.pcie_replays", &s, &out), GD_VERDICT_FIRED);
	assert_int_equal(out.items.n, 1);
	assert_int_equal(fnd(&out, 0)->severity, GD_SEV_WARNING);
	assert_true(fabs(ev_get(fnd(&out, 0), "aer_corrected")->value.v - 2) < 1e-9);
	assert_true(fabs(ev_get(fnd(&out, 0), "aer_per_hour")->value.v - 1) < 1e-9);
	gd_findings_release(&out);

	assert_int_equal(run1("mem.oom_kill", &s, &out), GD_VERDICT_FIRED);
	assert_string_equal(fnd(&out, 0)->subject, "pid 5123 (python)");
	assert_true(fabs(ev_get(fnd(&out, 0), "anon_rss_bytes")->value.v - 65432100.0 * 1024) < 1);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

static void test_reset_required_clears_and_gsp(void **state)
{
	struct gd_snapshot s;
	struct gd_findings out;

	(void)state;
	gd_snapshot_init(&s);
	klog_ok(&s, 3600);
	line(&s, "[ 41.0] NVRM: Xid (PCI:0000:86:00): 154, pid=1, name=x, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)");
	line(&s, "[ 90.0] NVRM: Xid (PCI:0000:86:00): 154, pid=1, name=x, GPU recovery action changed from 0x1 (GPU Reset Required) to 0x0 (None)");
	assert_int_equal(run1("gpu.reset_required", &s, &out), GD_VERDICT_CLEAR);   /* the latest says none */
	gd_findings_release(&out);
	line(&s, "[ 95.0] NVRM: GPU 0000:86:00.0: GSP-RM heartbeat timed out");
	assert_int_equal(run1("gpu.reset_required", &s, &out), GD_VERDICT_FIRED);
	assert_true(fabs(ev_get(fnd(&out, 0), "gsp_timeouts")->value.v - 1) < 1e-9);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

/* The resource-free assertions that name NV_ERR_GPU_IN_FULLCHIP_RESET
 * (real lines: open-gpu-kernel-modules#1045): the lines of one event are
 * one finding on the GPU they name, unnamed lines join the only GPU named;
 * two GPUs named are two findings and the unnamed lines then stand apart;
 * a plain NV_ERR_RESET_REQUIRED line stays its own finding. */
static void test_reset_required_fullchip_asserts(void **state)
{
	static const char gpu0[] = "Jun 12 16:31:50 fedora-box kernel: NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: "
				   "(status == NV_OK) || (status == NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_client.c:844";
	static const char unnamed[] = "Jun 12 16:31:50 fedora-box kernel: NVRM: nvAssertFailedNoLog: Assertion failed: "
				      "(status == NV_OK) || (status == NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_server.c:259";
	static const char gpu1[] = "Jun 12 16:31:51 fedora-box kernel: NVRM: GPU1 nvAssertFailedNoLog: Assertion failed: "
				   "(status == NV_OK) || (status == NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_client.c:844";
	struct gd_snapshot s;
	struct gd_findings out;

	(void)state;
	gd_snapshot_init(&s);
	klog_ok(&s, 3600);
	for (int i = 0; i < 2; i++) {
		line(&s, gpu0);
		line(&s, unnamed);
		line(&s, unnamed);
	}
	assert_int_equal(run1("gpu.reset_required", &s, &out), GD_VERDICT_FIRED);
	assert_int_equal(out.items.n, 1);
	assert_string_equal(fnd(&out, 0)->subject, "GPU0");
	assert_int_equal(fnd(&out, 0)->severity, GD_SEV_CRITICAL);
	assert_true(fabs(ev_get(fnd(&out, 0), "assert_lines")->value.v - 6) < 1e-9);
	assert_non_null(strstr(fnd(&out, 0)->summary, "6 times"));
	assert_null(strstr(fnd(&out, 0)->summary, "NV_ERR_RESET_REQUIRED"));
	gd_findings_release(&out);

	line(&s, gpu1);
	line(&s, "[ 5.0] NVRM: GPU 0000:3b:00.0: _kgspBootGspRm: status NV_ERR_RESET_REQUIRED");
	assert_int_equal(run1("gpu.reset_required", &s, &out), GD_VERDICT_FIRED);
	assert_int_equal(out.items.n, 4);
	assert_string_equal(fnd(&out, 0)->subject, "GPU 0000:3b:00.0");        /* NV_ERR_RESET_REQUIRED */
	assert_true(fabs(ev_get(fnd(&out, 0), "reset_required_lines")->value.v - 1) < 1e-9);
	assert_string_equal(fnd(&out, 1)->subject, "GPU0");
	assert_true(fabs(ev_get(fnd(&out, 1), "assert_lines")->value.v - 2) < 1e-9);
	assert_string_equal(fnd(&out, 2)->subject, "GPU1");
	assert_true(fabs(ev_get(fnd(&out, 2), "assert_lines")->value.v - 1) < 1e-9);
	assert_string_equal(fnd(&out, 3)->subject, "GPU (not named in the log)");
	assert_true(fabs(ev_get(fnd(&out, 3), "assert_lines")->value.v - 4) < 1e-9);
	gd_findings_release(&out);
	gd_snapshot_release(&s);

	/* the check that the rule reads: no assertion, no finding */
	gd_snapshot_init(&s);
	klog_ok(&s, 3600);
	line(&s, "[ 1.0] NVRM: GPU0 RmInitAdapter failed! (0x22:0x56:884)");
	assert_int_equal(run1("gpu.reset_required", &s, &out), GD_VERDICT_CLEAR);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

static void test_memory_errors(void **state)
{
	struct gd_snapshot a, b;
	struct gd_findings out;
	struct gd_edac *e;

	(void)state;
	/* CE lines: 36 in 2 h = 18/h > 10 */
	gd_snapshot_init(&b);
	klog_ok(&b, 7200);
	for (int i = 0; i < 36; i++)
		line(&b, "EDAC MC0: 1 CE memory read error on CPU_SrcID#0_MC#0_Chan#1_DIMM#0 (channel:1 slot:0 socket:0)");
	gd_findings_init(&out);
	assert_int_equal(run_rule2("host.memory_errors", &b, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_int_equal(fnd(&out, 0)->severity, GD_SEV_WARNING);
	assert_true(fabs(ev_get(fnd(&out, 0), "ce_per_hour")->value.v - 18) < 1e-9);
	assert_string_equal(fnd(&out, 0)->subject, "CPU_SrcID#0_MC#0_Chan#1_DIMM#0");
	gd_findings_release(&out);
	/* one UE line: critical */
	line(&b, "EDAC MC1: 1 UE memory read error on DIMM_B2 (channel:2 slot:0 socket:1)");
	gd_findings_init(&out);
	assert_int_equal(run_rule2("host.memory_errors", &b, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_int_equal(fnd(&out, 0)->severity, GD_SEV_CRITICAL);
	assert_true(fabs(ev_get(fnd(&out, 0), "socket")->value.v - 1) < 1e-9);
	gd_findings_release(&out);
	gd_snapshot_release(&b);

	/* EDAC counters only (no log): ue_count rising in the window is critical */
	pair_init(&a, &b, 2);
	e = GD_PUSH(&a, edac, struct gd_edac);
	GD_STRSET(e->mc, "mc0");
	gd_u64_set(&e->ce_count, 0);
	gd_u64_set(&e->ue_count, 0);
	e = GD_PUSH(&b, edac, struct gd_edac);
	GD_STRSET(e->mc, "mc0");
	gd_u64_set(&e->ce_count, 0);
	gd_u64_set(&e->ue_count, 0);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("host.memory_errors", &a, &b, NULL, &out), GD_VERDICT_CLEAR);
	gd_findings_release(&out);
	gd_u64_set(&e->ue_count, 1);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("host.memory_errors", &a, &b, NULL, &out), GD_VERDICT_FIRED);
	assert_true(fabs(ev_get(fnd(&out, 0), "ue_new")->value.v - 1) < 1e-9);
	gd_findings_release(&out);
	gd_snapshot_release(&a);
	gd_snapshot_release(&b);
}

/* Xids 48/63/64/94/95 take NVML's row-remap state of the GPU at their bus
 * id, whatever the spelling of the address. */
static void test_xid_row_remap_state(void **state)
{
	struct gd_snapshot s;
	struct gd_gpu *g;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(gd_xid_row_remap_state(&s, "0000:5d:00"), GD_REMAP_UNKNOWN);
	g = GD_PUSH(&s, gpus, struct gd_gpu);
	GD_STRSET(g->pci_bus_id, "00000000:5D:00.0");
	assert_int_equal(gd_xid_row_remap_state(&s, "0000:5d:00"), GD_REMAP_UNKNOWN);
	gd_u64_set(&g->remap_pending, 0);
	gd_u64_set(&g->remap_failure, 0);
	assert_int_equal(gd_xid_row_remap_state(&s, "0000:5d:00"), GD_REMAP_NONE);
	gd_u64_set(&g->remap_pending, 1);
	assert_int_equal(gd_xid_row_remap_state(&s, "0000:5d:00"), GD_REMAP_PENDING);
	assert_int_equal(gd_xid_row_remap_state(&s, "0000:5e:00"), GD_REMAP_UNKNOWN);
	gd_u64_set(&g->remap_failure, 1);
	assert_int_equal(gd_xid_row_remap_state(&s, "0000:5d:00.0"), GD_REMAP_FAILED);
	assert_int_equal(gd_xid_row_remap_state(&s, "garbage"), GD_REMAP_UNKNOWN);
	assert_int_equal(gd_xid_row_remap_state(&s, NULL), GD_REMAP_UNKNOWN);
	gd_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_without_log),
		cmocka_unit_test(test_unknown_reason_whole),
		cmocka_unit_test(test_clear_on_quiet_log),
		cmocka_unit_test(test_gpu_rules_fire),
		cmocka_unit_test(test_reset_required_clears_and_gsp),
		cmocka_unit_test(test_reset_required_fullchip_asserts),
		cmocka_unit_test(test_memory_errors),
		cmocka_unit_test(test_xid_row_remap_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
