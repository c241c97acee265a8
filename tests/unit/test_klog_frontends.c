/*
 * test_klog_frontends.c - kernel-log lines under the front-ends people
 * paste them from (issue 11): dmesg -x/--decode, dmesg --time-format iso,
 * journalctl short-iso/short-precise/short-monotonic/cat/--no-hostname,
 * RFC 5424 syslog, Talos-style forwarded lines, lines pasted indented; the
 * older "GPU at ... has fallen off the bus." wording and GSP crash lines;
 * and the boot-time fallen-off event read as one event, not three.
 *
 * Where a line is synthetic (no real sample of that front-end was found)
 * the comment says so; its shape follows the tool's documented format.
 */
#include "testutil.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collect/klog.h"
#include "klog/klog.h"

static enum gd_klog_kind P(const char *line, struct gd_klog_event *ev)
{
	return gd_klog_parse_line(line, strlen(line), ev);
}

static const char xid79[] = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off "
			    "the bus.";

static void expect_xid79(const char *line, bool wall, bool boot)
{
	struct gd_klog_event ev;

	assert_int_equal(P(line, &ev), GD_KLOG_XID);
	assert_int_equal(ev.code.v, 79);
	assert_string_equal(ev.pci_bus_id, "0000:5d:00.0");
	assert_int_equal(ev.wall_time_s.ok, wall);
	assert_int_equal(ev.boot_s.ok, boot);
}

/* dmesg -x / --decode: "kern  :warn  : [  123.456] MSG" (synthetic, per
 * util-linux dmesg(1): facility and level padded, then the usual stamp). */
static void test_dmesg_decode(void **state)
{
	char line[256];
	struct gd_klog_event ev;

	(void)state;
	snprintf(line, sizeof line, "kern  :warn  : [ 1843.308145] %s", xid79);
	expect_xid79(line, false, true);
	P(line, &ev);
	assert_true(fabs(ev.boot_s.v - 1843.308145) < 1e-6);
	snprintf(line, sizeof line, "kern  :err   : [Wed Apr 22 21:30:51 2026] %s", xid79);
	expect_xid79(line, true, false);
	/* a facility word that is not one, or a level that is not one: not taken off */
	assert_int_equal(P("kernel:warn  : [ 1.0] NVRM: nothing", &ev), GD_KLOG_NONE);
}

/* dmesg --time-format iso (synthetic, util-linux format: comma before the
 * microseconds, offset with a colon), and another program's ISO line. */
static void test_dmesg_iso(void **state)
{
	char line[256];
	struct gd_klog_event ev;

	(void)state;
	snprintf(line, sizeof line, "2026-04-22T21:30:51,526447+00:00 %s", xid79);
	expect_xid79(line, true, false);
	P(line, &ev);
	assert_true(fabs(ev.wall_time_s.v - 1776893451.526447) < 1e-3);
	assert_int_equal(P("2026-04-22T21:30:51.526447+00:00 gpu-a17 nvidia-persistenced: NVRM: Xid (PCI:0000:5d:00): "
			   "79, GPU has fallen off the bus.",
			   &ev),
			 GD_KLOG_NONE);
}

/* journalctl -o short-iso, short-precise, short-monotonic, cat, and
 * --no-hostname with the lines indented as pasted (the last: real,
 * tests/offline/real/kernel-log/journalctl-k-nohostname-gsp-heartbeat.txt;
 * the others synthetic, per journalctl(1)). */
static void test_journalctl_outputs(void **state)
{
	char line[256];
	struct gd_klog_event ev;

	(void)state;
	snprintf(line, sizeof line, "2026-04-22T21:30:51+0000 gpu-a17 kernel: %s", xid79);
	expect_xid79(line, true, false);
	snprintf(line, sizeof line, "Apr 22 21:30:51.526447 gpu-a17 kernel: %s", xid79);
	assert_int_equal(P(line, &ev), GD_KLOG_XID);
	snprintf(line, sizeof line, "[ 1843.308145] gpu-a17 kernel: %s", xid79);
	expect_xid79(line, false, true);
	expect_xid79(xid79, false, false); /* -o cat */
	assert_int_equal(P("     Mar 21 21:42:01 kernel: NVRM: GPU0 _kgspRpcRecvPoll: GSP RM heartbeat timed out", &ev),
			 GD_KLOG_GSP_TIMEOUT);
}

/* RFC 5424 (synthetic, per RFC 5424 §6: <PRI>VERSION TIMESTAMP HOSTNAME
 * APP-NAME PROCID MSGID STRUCTURED-DATA MSG); another APP-NAME is not the
 * kernel's. */
static void test_rfc5424(void **state)
{
	char line[256];
	struct gd_klog_event ev;

	(void)state;
	snprintf(line, sizeof line, "<4>1 2026-04-22T21:30:51.526Z gpu-a17 kernel - - - %s", xid79);
	expect_xid79(line, true, false);
	snprintf(line, sizeof line, "<4>1 2026-04-22T21:30:51.526Z gpu-a17 kernel - - [meta seq=\"1\"] %s", xid79);
	expect_xid79(line, true, false);
	snprintf(line, sizeof line, "<30>1 2026-04-22T21:30:51.526Z gpu-a17 dcgm 812 - - %s", xid79);
	assert_int_equal(P(line, &ev), GD_KLOG_NONE);
}

/* Talos / forwarded: "HOST: kern: LEVEL: [RFC3339]: MSG" (real,
 * tests/offline/real/kernel-log/talos-forwarded-xid154-reset-required.txt). */
static void test_forwarded(void **state)
{
	struct gd_klog_event ev;

	(void)state;
	assert_int_equal(P("192.168.11.119: kern: warning: [2026-04-22T21:30:51.870495804Z]: NVRM: Xid (PCI:0000:0b:00): "
			   "154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)",
			   &ev),
			 GD_KLOG_XID);
	assert_int_equal(ev.code.v, 154);
	assert_int_equal(ev.action_code.v, 1);
	assert_true(ev.wall_time_s.ok && fabs(ev.wall_time_s.v - 1776893451.870496) < 1e-3);
}

/* The older one-line wordings and GSP crash lines (real: Bumblebee #554,
 * open-gpu-kernel-modules #1045). */
static void test_old_fallen_off_and_gsp(void **state)
{
	struct gd_klog_event ev;

	(void)state;
	assert_int_equal(P("[   49.261458] NVRM: GPU at 0000:01:00.0 has fallen off the bus.", &ev), GD_KLOG_FALLEN_OFF_BUS);
	assert_string_equal(ev.pci_bus_id, "0000:01:00.0");
	assert_int_equal(P("NVRM: GPU at PCI:0000:3b:00: GPU has fallen off the bus.", &ev), GD_KLOG_FALLEN_OFF_BUS);
	assert_string_equal(ev.pci_bus_id, "0000:3b:00.0");
	assert_int_equal(P("NVRM: GPU at PCI:0000:3b:00: GPU-6f3e0c4a-0d5e-4c1e-9a2b-3c4d5e6f7a8b", &ev), GD_KLOG_GPU_UUID);
	assert_int_equal(P("Jun 12 16:25:44 fedora-box kernel: NVRM: GPU0 kgspHealthCheck_TU102: ****** GSP-CrashCat "
			   "Report *******",
			   &ev),
			 GD_KLOG_GSP_TIMEOUT);
	assert_int_equal(P("Jun 12 16:25:44 fedora-box kernel: NVRM:     RISC-V CSR State:", &ev), GD_KLOG_NONE);
}

/* The whole CrashCat report through the scanner (real, as above): one GSP
 * failure, from its first line; libos's "GSP task watchdog timeout" inside
 * it has no marker and is not read on its own. */
static void test_gsp_crashcat_report(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	size_t gsp = 0;
	int fd = open(GD_SRCDIR "/tests/offline/real/kernel-log/journalctl-short-gsp-crashcat.txt", O_RDONLY);

	(void)state;
	assert_true(fd >= 0);
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	assert_true(gd_klog_snapshot_from_fd(&s, fd, "t", 0, &err) >= 0);
	close(fd);
	GD_VEC_EACH(s.klog, struct gd_klog_event, ev) {
		assert_string_equal(ev->kind, "gsp_timeout");
		assert_non_null(strstr(ev->text, "GSP-CrashCat Report"));
		gsp++;
	}
	assert_int_equal(gsp, 1);
	gd_snapshot_release(&s);
}

/* The boot-time fallen-off form and the probe failure after it are one
 * event (real: NVSentinel #155); a probe failure on its own stays one. */
static void test_fallen_off_one_event(void **state)
{
	static const char boot[] = "[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
				   "               NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
				   "               NVRM: fallen off the bus and is not responding to commands.\n"
				   "[ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).\n";
	static const char probe[] = "[ 12.0] NVRM: The NVIDIA probe routine failed for 1 device(s).\n";
	const char *texts[2] = { boot, probe };

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct gd_snapshot s;
		struct gd_err err;
		int fd = memfd_create("klog", 0);
		size_t fell = 0, init = 0;

		assert_true(fd >= 0);
		assert_int_equal(write(fd, texts[i], strlen(texts[i])), (ssize_t)strlen(texts[i]));
		lseek(fd, 0, SEEK_SET);
		gd_snapshot_init(&s);
		gd_err_clear(&err);
		assert_true(gd_klog_snapshot_from_fd(&s, fd, "t", 0, &err) >= 0);
		close(fd);
		GD_VEC_EACH(s.klog, struct gd_klog_event, ev) {
			fell += strcmp(ev->kind, "fallen_off_bus") == 0;
			init += strcmp(ev->kind, "init_failed") == 0;
		}
		assert_int_equal(fell, i == 0 ? 1 : 0);
		assert_int_equal(init, i == 0 ? 0 : 1);
		gd_snapshot_release(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dmesg_decode),	  cmocka_unit_test(test_dmesg_iso),
		cmocka_unit_test(test_journalctl_outputs), cmocka_unit_test(test_rfc5424),
		cmocka_unit_test(test_forwarded),	  cmocka_unit_test(test_old_fallen_off_and_gsp),
		cmocka_unit_test(test_fallen_off_one_event), cmocka_unit_test(test_gsp_crashcat_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
