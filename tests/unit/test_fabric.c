/*
 * test_fabric.c - the NVSwitch fabric: Fabric Manager's log parser on real
 * line shapes and on malformed input, gpu.fabric_not_ready on each of its
 * kinds of evidence (and silent on boards without a fabric), and
 * gpu.nvswitch_errors per switch and code (gpu.xid leaves SXid lines to it).
 */
#include "fixture.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

#include "klog/fmlog.h"
#include "klog/klog.h"

/* real lines (tests/offline/real/MANIFEST.md names their sources) */
static const char fm_fatal[] = "[Jul 23 2024 07:53:55] [ERROR] [tid 841] detected NVSwitch fatal error 20034 on fid 0 "
			       "on NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 33\n";
static const char fm_nonfatal[] = "[Feb 27 2025 15:10:02] [ERROR] [tid 12727] detected NVSwitch non-fatal error 12028 on "
				  "fid 0 on NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 61\n";
static const char fm_info[] = "[Feb 25 2025 13:59:45] [INFO] [tid 1803] Received an inband message:  Message header "
			      "details: magic Id:adbc request Id:1fdba18d7da4ef9e status:0 type:4 length:14\n"
			      "Message payload details:Team release request: Team Handle:99c9f23d49236386 Flags:0\n\n";
static const char fm_journal[] = "Nov 05 13:55:26 node1 systemd[1]: Starting NVIDIA fabric manager service...\n"
				 "Nov 05 13:55:26 node1 nv-fabricmanager[104230]: fabric manager NVIDIA GPU driver interface "
				 "version 550.127.05 don't match with driver version 550.120. Please update with matching "
				 "NVIDIA driver package.\n";
static const char fm_nothing[] = "Sep 18 03:19:01 ubuntu2404 nvidia-fabricmanager-start.sh[4756]: request to query NVSwitch "
				 "device information from NVSwitch driver failed with error:WARNING Nothing to do "
				 "[NV_WARN_NOTHING_TO_DO]\n";

static int fm(const char *text, double now, double lookback, struct gd_fabric *f, struct gd_err *err)
{
	memset(f, 0, sizeof *f);
	gd_err_clear(err);
	return gd_fmlog_parse(text, strlen(text), now, lookback, f, err);
}

static void test_fmlog_lines(void **state)
{
	struct gd_fabric f;
	struct gd_err err;
	char buf[2048];

	(void)state;
	assert_true(gd_fmlog_is_line(fm_fatal, strlen(fm_fatal) - 1));
	assert_true(gd_fmlog_is_line(fm_journal + 77, strlen(fm_journal + 77)));
	assert_false(gd_fmlog_is_line("Message payload details:Team release request", 44));
	/* a fatal report counts, and is the latest */
	assert_int_equal(fm(fm_fatal, NAN, 86400, &f, &err), 0);
	assert_int_equal(f.fm_log_errors.v, 1);
	assert_int_equal(f.fm_log_fatal.v, 1);
	assert_string_equal(f.fm_log_last_time, "Jul 23 2024 07:53:55");
	assert_non_null(strstr(f.fm_log_last, "fatal error 20034"));
	/* INFO lines and their next lines, a non-fatal report: no error */
	snprintf(buf, sizeof buf, "%s%s", fm_info, fm_nonfatal);
	assert_int_equal(fm(buf, NAN, 86400, &f, &err), 0);
	assert_int_equal(f.fm_log_errors.v, 0);
	assert_int_equal(f.fm_log_nonfatal.v, 1);
	assert_int_equal(f.fm_log_lines.v, 3);
	/* the journal: the daemon's line says it failed; systemd's lines are not its */
	assert_int_equal(fm(fm_journal, NAN, 86400, &f, &err), 0);
	assert_int_equal(f.fm_log_errors.v, 1);
	assert_int_equal(f.fm_log_fatal.v, 0);
	assert_string_equal(f.fm_log_last_time, "Nov 05 13:55:26");
	/* NV_WARN_NOTHING_TO_DO: a board without NVSwitches, not a fault */
	assert_int_equal(fm(fm_nothing, NAN, 86400, &f, &err), 0);
	assert_int_equal(f.fm_log_errors.v, 0);
}

static void test_fmlog_lookback(void **state)
{
	struct gd_fabric f;
	struct gd_err err;
	char buf[2048];
	struct tm tm = { .tm_year = 2025 - 1900, .tm_mon = 1, .tm_mday = 27, .tm_hour = 16, .tm_isdst = -1 };
	double now = (double)mktime(&tm);

	(void)state;
	/* from the log's own end: the 2024 line is months before the 2025 one */
	snprintf(buf, sizeof buf, "%s%s", fm_fatal, "[Feb 27 2025 15:10:02] [ERROR] [tid 9] failed to find the GPU handle 1 in the multicast team request setup 2.\n");
	assert_int_equal(fm(buf, NAN, 86400, &f, &err), 0);
	assert_int_equal(f.fm_log_errors.v, 1);
	assert_int_equal(f.fm_log_fatal.v, 0);
	/* from the sample's clock: an hour after the 2025 line */
	assert_int_equal(fm(buf, now, 86400, &f, &err), 0);
	assert_int_equal(f.fm_log_errors.v, 1);
	/* a day later, nothing; no look-back, both */
	assert_int_equal(fm(buf, now + 86400, 86400, &f, &err), 0);
	assert_int_equal(f.fm_log_errors.v, 0);
	assert_int_equal(fm(buf, NAN, 0, &f, &err), 0);
	assert_int_equal(f.fm_log_errors.v, 2);

	/* Every shape of stamp gets the same time, whether the common one
	 * (read without strptime) or another (strptime): at 16:00 with an
	 * hour of look-back, the lines one second each side of 15:00 fall
	 * each on its side; lines after the clock count; the 29th of
	 * February 2025 is the 1st of March for both readers (mktime). */
	snprintf(buf, sizeof buf, "%s",
		 "[Feb 27 2025 15:00:01] [ERROR] in, usual shape\n"
		 "[Feb 27 2025 14:59:59] [ERROR] out, usual shape\n"
		 "[feb 27 2025 15:00:01] [ERROR] in, lower case month\n"
		 "[FEB 27 2025 14:59:59] [ERROR] out, upper case month\n"
		 "[Feb  27 2025 14:59:59] [ERROR] out, two spaces\n"
		 "[Feb 27 2025 15:00:60] [ERROR] in, a leap second\n"
		 "[Feb 29 2025 15:00:01] [ERROR] in, the 1st of March\n"
		 "[Feb 28 2025 15:00:00] [ERROR] in, tomorrow\n");
	assert_int_equal(fm(buf, now, 3600, &f, &err), 0);
	assert_int_equal(f.fm_log_lines.v, 8);
	assert_int_equal(f.fm_log_errors.v, 5);
	assert_string_equal(f.fm_log_last, "in, tomorrow");
	/* a day back from the log's own end (the 1st of March, 15:00:01):
	 * only the 28th's line (15:00:00) is a second too old */
	assert_int_equal(fm(buf, NAN, 86400, &f, &err), 0);
	assert_int_equal(f.fm_log_errors.v, 1);
	assert_string_equal(f.fm_log_last, "in, the 1st of March");
}

static void test_fmlog_malformed(void **state)
{
	struct gd_fabric f;
	struct gd_err err;
	char buf[2048];
	static const char nul[] = "[Jul 23 2024 07:53:55] [ERROR] \0 x\n";

	(void)state;
	/* not a Fabric Manager log at all */
	assert_true(fm("hello\nworld\n", NAN, 86400, &f, &err) < 0);
	assert_non_null(strstr(err.msg, "no Fabric Manager line"));
	assert_false(f.fm_log_errors.ok);
	assert_true(fm("", NAN, 86400, &f, &err) < 0);
	/* binary data */
	memset(&f, 0, sizeof f);
	gd_err_clear(&err);
	assert_true(gd_fmlog_parse(nul, sizeof nul - 1, NAN, 86400, &f, &err) < 0);
	assert_non_null(strstr(err.msg, "binary"));
	/* a broken time stamp, a line with no level: partial, the line named, the rest counted */
	snprintf(buf, sizeof buf, "%s[Feb 30 2025 25:61:00] [ERROR] [tid 1] x\n[Jul 23 2024 07:53:55] no level\n", fm_fatal);
	assert_int_equal(fm(buf, NAN, 0, &f, &err), 1);
	assert_non_null(strstr(err.msg, "line 2"));
	assert_int_equal(f.fm_log_errors.v, 1);
	/* a level that is not a word, a tid without its bracket, a cut line */
	assert_true(fm("[Jul 23 2024 07:53:55] [] [tid 1] x\n", NAN, 0, &f, &err) != 0);
	assert_int_equal(fm("[Jul 23 2024 07:53:55] [ERROR] [tid 841 detected NVSwitch fatal error\n", NAN, 0, &f, &err), 0);
	assert_int_equal(f.fm_log_fatal.v, 1);
	assert_true(fm("[Jul 23 2024 07:5", NAN, 0, &f, &err) < 0);
	/* a journal tag without its colon */
	assert_true(fm("Nov 05 13:55:26 node1 nv-fabricmanager[104230] no colon\n", NAN, 0, &f, &err) < 0);
}

/* ---- the rules ------------------------------------------------------------------ */

static enum gd_verdict run1(const char *id, const struct gd_snapshot *s, struct gd_findings *out)
{
	gd_findings_init(out);
	return run_rule2(id, s, NULL, NULL, out);
}

static void source(struct gd_snapshot *s, const char *name, const char *status)
{
	struct gd_source *src = GD_PUSH(s, sources, struct gd_source);

	GD_STRSET(src->name, name);
	GD_STRSET(src->status, status);
}

static struct gd_gpu *gpu(struct gd_snapshot *s, unsigned idx)
{
	struct gd_gpu *g = GD_PUSH(s, gpus, struct gd_gpu);

	gd_u64_set(&g->index, idx);
	snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "0000:%02x:00.0", 0x18 + idx);
	return g;
}

/* The collector on a tree: an NVSwitch, and nv-fabricmanager found among
 * the processes the processes collector listed in the snapshot, or in
 * /proc when the snapshot has none (the collector run alone). */
static void put_pid(struct tree *t, unsigned pid, const char *comm)
{
	char rel[64], line[256];

	snprintf(line, sizeof line, "%u (%s) S 1 %u %u 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 4 0 1000 "
		 "100000000 2000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		 pid, comm, pid, pid);
	snprintf(rel, sizeof rel, "proc/%u/stat", pid);
	tree_put(t, rel, line);
	snprintf(rel, sizeof rel, "proc/%u/comm", pid);
	snprintf(line, sizeof line, "%s\n", comm);
	tree_put(t, rel, line);
}

static void fabric_of(struct tree *t, bool procs_first, struct gd_snapshot *s)
{
	struct gd_err err;

	gd_snapshot_init(s);
	if (procs_first)
		assert_int_equal(run(gd_collect_processes, &t->ctx, s, &err), GD_SRC_OK);
	run(gd_collect_fabric, &t->ctx, s, &err);
}

static void test_fabric_collector_fm_process(void **state)
{
	struct tree t;
	struct gd_snapshot s;

	(void)state;
	tree_init(&t, "fabric");
	tree_put(&t, "sys/devices/pci0000:00/0000:05:00.0/vendor", "0x10de\n");
	tree_put(&t, "sys/devices/pci0000:00/0000:05:00.0/class", "0x068000\n");
	tree_mkdirs(&t, "sys/bus/pci/devices/x", false);
	tree_link(&t, "../../../devices/pci0000:00/0000:05:00.0", "sys/bus/pci/devices/0000:05:00.0");
	put_pid(&t, 1, "systemd");
	put_pid(&t, 300, "sshd");
	put_pid(&t, 4100, "nv-fabricmanage");   /* comm is cut at 15 characters */
	for (int procs_first = 0; procs_first < 2; procs_first++) {
		fabric_of(&t, procs_first, &s);
		assert_int_equal(s.fabric.nvswitches.v, 1);
		assert_true(s.fabric.fm_running.ok);
		assert_int_equal(s.fabric.fm_running.v, 1);
		assert_string_equal(s.fabric.fm_evidence, "process nv-fabricmanager (pid 4100)");
		gd_snapshot_release(&s);
	}
	/* stopped: not among the 2 processes, either way */
	{
		char dir[128];

		snprintf(dir, sizeof dir, "%s/proc/4100", t.dir);
		assert_int_equal(nftw(dir, tree_rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	}
	for (int procs_first = 0; procs_first < 2; procs_first++) {
		fabric_of(&t, procs_first, &s);
		assert_true(s.fabric.fm_running.ok);
		assert_int_equal(s.fabric.fm_running.v, 0);
		assert_non_null(strstr(s.fabric.fm_evidence, "no nv-fabricmanager among 2 processes"));
		gd_snapshot_release(&s);
	}
	tree_release(&t);
}

static void test_fabric_rule(void **state)
{
	struct gd_snapshot s;
	struct gd_findings out;
	const struct gd_finding *f;

	(void)state;
	/* nothing read: not evaluated, and says so */
	gd_snapshot_init(&s);
	assert_int_equal(run1("gpu.fabric_not_ready", &s, &out), GD_VERDICT_UNKNOWN);
	gd_findings_release(&out);
	/* a driver without the call */
	GD_STRSET(s.nvml.missing, "nvmlDeviceGetGpuFabricInfoV");
	gpu(&s, 0);
	assert_int_equal(run1("gpu.fabric_not_ready", &s, &out), GD_VERDICT_UNKNOWN);
	gd_findings_release(&out);
	/* no NVSwitch, GPUs outside any fabric (state 0, or the call unsupported): clear */
	gd_u64_set(&s.fabric.nvswitches, 0);
	gd_u64_set(&gpu(&s, 1)->fabric_state, 0);
	assert_int_equal(run1("gpu.fabric_not_ready", &s, &out), GD_VERDICT_CLEAR);
	gd_findings_release(&out);
	/* completed with SUCCESS: clear; with an error: fired, the code named */
	gd_u64_set(&GD_VEC_AT(s.gpus, struct gd_gpu, 1)->fabric_state, 3);
	gd_u64_set(&GD_VEC_AT(s.gpus, struct gd_gpu, 1)->fabric_status, 0);
	assert_int_equal(run1("gpu.fabric_not_ready", &s, &out), GD_VERDICT_CLEAR);
	gd_findings_release(&out);
	gd_u64_set(&GD_VEC_AT(s.gpus, struct gd_gpu, 1)->fabric_status, 999);
	assert_int_equal(run1("gpu.fabric_not_ready", &s, &out), GD_VERDICT_FIRED);
	f = GD_VEC_AT(out.items, struct gd_finding, 0);
	assert_string_equal(f->subject, "gpu1 (0000:19:00.0)");
	assert_non_null(strstr(f->summary, "UNKNOWN"));
	assert_int_equal(f->severity, GD_SEV_CRITICAL);
	gd_findings_release(&out);
	/* NVSwitches, Fabric Manager not running */
	gd_u64_set(&GD_VEC_AT(s.gpus, struct gd_gpu, 1)->fabric_status, 0);
	gd_u64_set(&s.fabric.nvswitches, 6);
	assert_int_equal(run1("gpu.fabric_not_ready", &s, &out), GD_VERDICT_CLEAR);   /* unknown whether it runs */
	gd_findings_release(&out);
	gd_u64_set(&s.fabric.fm_running, 0);
	GD_STRSET(s.fabric.fm_evidence, "no nv-fabricmanager among 300 processes");
	assert_int_equal(run1("gpu.fabric_not_ready", &s, &out), GD_VERDICT_FIRED);
	f = GD_VEC_AT(out.items, struct gd_finding, 0);
	assert_string_equal(f->subject, "nv-fabricmanager");
	assert_non_null(strstr(f->summary, "6 NVSwitches"));
	gd_findings_release(&out);
	gd_u64_set(&s.fabric.fm_running, 1);
	assert_int_equal(run1("gpu.fabric_not_ready", &s, &out), GD_VERDICT_CLEAR);
	gd_findings_release(&out);
	/* the log */
	gd_u64_set(&s.fabric.fm_log_errors, 2);
	gd_u64_set(&s.fabric.fm_log_fatal, 1);
	GD_STRSET(s.fabric.fm_log, "/var/log/fabricmanager.log");
	assert_int_equal(run1("gpu.fabric_not_ready", &s, &out), GD_VERDICT_FIRED);
	f = GD_VEC_AT(out.items, struct gd_finding, 0);
	assert_string_equal(f->subject, "/var/log/fabricmanager.log");
	assert_non_null(strstr(f->summary, "2 errors (1 fatal)"));
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

static void test_nvswitch_rule(void **state)
{
	static const char *const lines[] = {
		"[6781753.400584] nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 LTSSM Fault Up",
		"[6781753.404587] nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 63 LTSSM Fault Up",
		"[6781753.408138] nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 62 LTSSM Fault Up",
		"[6781753.408139] nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 63 LTSSM Fault Up",
		"nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error (First)",
	};
	struct gd_snapshot s;
	struct gd_findings out;
	const struct gd_finding *f;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(run1("gpu.nvswitch_errors", &s, &out), GD_VERDICT_UNKNOWN);
	gd_findings_release(&out);
	source(&s, "klog", "ok");
	assert_int_equal(run1("gpu.nvswitch_errors", &s, &out), GD_VERDICT_CLEAR);
	gd_findings_release(&out);
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		struct gd_klog_event ev;

		assert_int_equal(gd_klog_parse_line(lines[i], strlen(lines[i]), &ev), GD_KLOG_SXID);
		*GD_PUSH(&s, klog, struct gd_klog_event) = ev;
	}
	assert_int_equal(run1("gpu.nvswitch_errors", &s, &out), GD_VERDICT_FIRED);
	assert_int_equal(out.items.n, 3);
	f = GD_VEC_AT(out.items, struct gd_finding, 1);
	assert_string_equal(f->subject, "NVSwitch 0000:05:00.0 SXid 20034");
	assert_int_equal(f->severity, GD_SEV_CRITICAL);
	assert_non_null(strstr(f->summary, "3 times"));
	assert_non_null(strstr(f->summary, "links 63,62."));
	f = GD_VEC_AT(out.items, struct gd_finding, 2);
	assert_string_equal(f->subject, "NVSwitch 0000:05:00.0 SXid 12028");
	assert_int_equal(f->severity, GD_SEV_WARNING);
	gd_findings_release(&out);
	/* the same lines are not gpu.xid's */
	assert_int_equal(run1("gpu.xid", &s, &out), GD_VERDICT_CLEAR);
	assert_int_equal(out.items.n, 0);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmlog_lines),
		cmocka_unit_test(test_fmlog_lookback),
		cmocka_unit_test(test_fmlog_malformed),
		cmocka_unit_test(test_fabric_collector_fm_process),
		cmocka_unit_test(test_fabric_rule),
		cmocka_unit_test(test_nvswitch_rule),
	};

	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, tree_sweep);
}
