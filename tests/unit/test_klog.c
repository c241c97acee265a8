/*
 * test_klog.c - the kernel-log line parser on real line shapes (every kind,
 * several driver generations, all front-ends and time stamps), the scanner
 * (markers, multi-line joins, CRLF, junk, a 1 MB line, gzip whole and
 * truncated, empty input), the Xid summary's context rules, and the
 * gd_parsers[] wrapper.
 */
#include "testutil.h"

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "collect/klog.h"
#include "klog/klog.h"
#include "klog/xid.h"

static enum gd_klog_kind P(const char *line, struct gd_klog_event *ev)
{
	return gd_klog_parse_line(line, strlen(line), ev);
}

/* ---- Xid shapes, four driver generations and MIG ------------------------ */

static void test_xid_shapes(void **state)
{
	struct gd_klog_event ev;

	(void)state;
	assert_int_equal(P("[ 5023.456789] NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.", &ev),
			 GD_KLOG_XID);
	assert_string_equal(ev.kind, "xid");
	assert_int_equal(ev.code.v, 79);
	assert_string_equal(ev.pci_bus_id, "0000:5d:00.0");
	assert_false(ev.pid.ok);
	assert_string_equal(ev.process, "");
	assert_string_equal(ev.text, "GPU has fallen off the bus.");
	assert_true(ev.boot_s.ok);
	assert_true(fabs(ev.boot_s.v - 5023.456789) < 1e-6);

	assert_int_equal(P("NVRM: Xid (PCI:0000:3B:00 GPU-I:01 GPU-CI:00): 13, pid=4711, name=python3 train.py, Graphics SM Warp Exception", &ev), GD_KLOG_XID);
	assert_string_equal(ev.pci_bus_id, "0000:3b:00.0");
	assert_int_equal(ev.gpu_instance.v, 1);
	assert_true(ev.compute_instance.ok);
	assert_int_equal(ev.compute_instance.v, 0);
	assert_int_equal(ev.pid.v, 4711);
	assert_string_equal(ev.process, "python3 train.py");
	assert_false(ev.boot_s.ok);

	/* R4xx: pid only */
	assert_int_equal(P("[  77.1] NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.", &ev), GD_KLOG_XID);
	assert_string_equal(ev.pci_bus_id, "0000:10:1c.0");
	assert_int_equal(ev.pid.v, 1896);
	assert_string_equal(ev.process, "");
	/* R3xx: no pid */
	assert_int_equal(P("NVRM: Xid (PCI:0000:08:00): 31, Ch 0000003b, intr 10000000. MMU Fault: ENGINE GRAPHICS", &ev), GD_KLOG_XID);
	assert_int_equal(ev.code.v, 31);
	assert_false(ev.pid.ok);
	/* very old: no PCI: */
	assert_int_equal(P("NVRM: Xid (0000:01:00): 13, 0005 00000000 0000502d 00001b0c 00000004 00000000", &ev), GD_KLOG_XID);
	assert_string_equal(ev.pci_bus_id, "0000:01:00.0");
	/* 154 and its action */
	assert_int_equal(P("NVRM: Xid (PCI:0000:5d:00): 154, pid='<unknown>', name=<unknown>, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)", &ev), GD_KLOG_XID);
	assert_int_equal(ev.action_code.v, 2);
	assert_string_equal(ev.detail, "Node Reboot Required");
	/* not an Xid: text after the marker is wrong */
	assert_int_equal(P("NVRM: Xid (PCI:zz): 13, x", &ev), GD_KLOG_NONE);
	assert_int_equal(P("NVRM: Xid (PCI:0000:5d:00): , pid=1", &ev), GD_KLOG_NONE);
	assert_int_equal(P("NVRM: Xid (PCI:0000:5d:00", &ev), GD_KLOG_NONE);
	assert_int_equal(P("NVRM: Xid (PCI:0000:5d:00): 99999999999999999999999, x", &ev), GD_KLOG_NONE);
}

static void test_driver_lines(void **state)
{
	struct gd_klog_event ev;

	(void)state;
	assert_int_equal(P("NVRM: GPU at PCI:0000:5d:00: GPU-6f3e0c4a-0d5e-4c1e-9a2b-3c4d5e6f7a8b", &ev), GD_KLOG_GPU_UUID);
	assert_string_equal(ev.uuid, "GPU-6f3e0c4a-0d5e-4c1e-9a2b-3c4d5e6f7a8b");
	assert_string_equal(ev.pci_bus_id, "0000:5d:00.0");
	assert_int_equal(P("NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.", &ev), GD_KLOG_FALLEN_OFF_BUS);
	assert_string_equal(ev.pci_bus_id, "0000:3b:00.0");
	assert_int_equal(P("NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x31:0x40:2712)", &ev), GD_KLOG_INIT_FAILED);
	assert_string_equal(ev.pci_bus_id, "0000:3b:00.0");
	assert_int_equal(P("NVRM: RmInitAdapter failed! (0x26:0x56:1474)", &ev), GD_KLOG_INIT_FAILED);
	assert_string_equal(ev.pci_bus_id, "");
	assert_int_equal(P("NVRM: The NVIDIA probe routine failed for 1 device(s).", &ev), GD_KLOG_INIT_FAILED);
	assert_int_equal(P("NVRM: GPU0 _kgspRpcRecvPoll: GSP RPC timeout after 45s waiting for fn 76", &ev), GD_KLOG_GSP_TIMEOUT);
	assert_int_equal(P("NVRM: GPU 0000:01:00.0: GSP-RM heartbeat timed out", &ev), GD_KLOG_GSP_TIMEOUT);
	assert_string_equal(ev.pci_bus_id, "0000:01:00.0");
	assert_int_equal(P("NVRM: GPU0 _kgspLogXid119: ********** GSP Timeout **********", &ev), GD_KLOG_NONE);
	assert_int_equal(P("NVRM: nvAssertOkFailedNoLog: Assertion failed: GPU lost from the bus [NV_ERR_RESET_REQUIRED] (0x00000061) returned from x", &ev),
			 GD_KLOG_RESET_REQUIRED);
	/* the driver's resource-free assertion (open-gpu-kernel-modules#1045): the GPU by its number, the status named */
	assert_int_equal(P("NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: (status == NV_OK) || (status == "
			   "NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_client.c:844",
			   &ev),
			 GD_KLOG_RESET_REQUIRED);
	assert_string_equal(ev.detail, "NV_ERR_GPU_IN_FULLCHIP_RESET");
	assert_true(ev.rm_gpu.ok);
	assert_int_equal(ev.rm_gpu.v, 0);
	assert_int_equal(P("NVRM: nvAssertFailedNoLog: Assertion failed: (status == NV_OK) || (status == "
			   "NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_server.c:259",
			   &ev),
			 GD_KLOG_RESET_REQUIRED);
	assert_false(ev.rm_gpu.ok);
	assert_int_equal(P("NVRM: GPU12 nvAssertFailedNoLog: Assertion failed: (status == NV_OK) || (status == "
			   "NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_client.c:844",
			   &ev),
			 GD_KLOG_RESET_REQUIRED);
	assert_int_equal(ev.rm_gpu.v, 12);
	/* "GPU0" only as the driver's number: not "GPU0x..." nor a word that starts with it */
	assert_int_equal(P("NVRM: GPU0x12 nvAssertFailedNoLog: (status == NV_ERR_GPU_IN_FULLCHIP_RESET)", &ev),
			 GD_KLOG_RESET_REQUIRED);
	assert_false(ev.rm_gpu.ok);
	assert_int_equal(P("NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: 0 @ kernel_gsp.c:1446", &ev), GD_KLOG_NONE);
	assert_string_equal(ev.detail, "");
	assert_int_equal(P("NVRM: The NVIDIA GPU 0000:5d:00.0", &ev), GD_KLOG_CTX_PROBE_GPU);
	assert_int_equal(P("NVRM: fallen off the bus and is not responding to commands.", &ev), GD_KLOG_CTX_FALLEN_OFF);
	assert_int_equal(P("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.104.05", &ev), GD_KLOG_NONE);
	assert_int_equal(P("nvidia-nvswitch3: SXid (PCI:0000:c5:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error (First)", &ev),
			 GD_KLOG_SXID);
	assert_int_equal(ev.code.v, 12028);
	assert_string_equal(ev.severity, "non-fatal");
	assert_string_equal(ev.process, "nvidia-nvswitch3");
	assert_int_equal(P("nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 30 LTSSM Fault Up", &ev), GD_KLOG_SXID);
	assert_string_equal(ev.severity, "fatal");
	assert_int_equal(P("nvidia-nvswitch3: SXid (PCI:0000:c5:00.0): 12028, Data {0x00000000, 0x00000000}", &ev), GD_KLOG_NONE);
}

static void test_host_lines(void **state)
{
	struct gd_klog_event ev;

	(void)state;
	assert_int_equal(P("[ 1500.1] nvidia 0000:5d:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)", &ev), GD_KLOG_AER);
	assert_string_equal(ev.severity, "corrected");
	assert_string_equal(ev.detail, "Physical Layer, Receiver ID");
	assert_int_equal(ev.is_gpu.v, 1);
	/* 4.x: no "AER:" */
	assert_int_equal(P("pcieport 0000:00:01.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, id=0008(Requester ID)", &ev),
			 GD_KLOG_AER);
	assert_string_equal(ev.severity, "nonfatal");
	assert_string_equal(ev.process, "pcieport");
	assert_false(ev.is_gpu.ok);
	assert_int_equal(P("nvidia 0000:5d:00.0: AER: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Completer ID)", &ev), GD_KLOG_AER);
	assert_string_equal(ev.severity, "fatal");
	assert_int_equal(P("pcieport 0000:5c:00.0: AER:   device [10de:2330] error status/mask=00000001/0000e000", &ev), GD_KLOG_CTX_AER_DEVICE);
	assert_int_equal(P("nvidia 0000:5d:00.0: AER:    [ 0] RxErr                  (First)", &ev), GD_KLOG_CTX_AER_BIT);
	assert_string_equal(ev.detail, "RxErr");
	assert_int_equal(P("pcieport 0000:5c:00.0: AER: Corrected error received: 0000:5d:00.0", &ev), GD_KLOG_NONE);

	assert_int_equal(P("pci 0000:5d:00.0: 126.016 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x8 link at 0000:5c:00.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)", &ev),
			 GD_KLOG_PCIE_BANDWIDTH);
	assert_true(fabs(ev.bandwidth_gbps.v - 126.016) < 1e-9);
	assert_true(fabs(ev.capable_gbps.v - 252.048) < 1e-9);
	assert_string_equal(ev.limit_at, "0000:5c:00.0");
	/* 4.17 wording, not limited */
	assert_int_equal(P("mlx5_core 0000:41:00.0: 63.008 Gb/s available PCIe bandwidth (8 GT/s x8 link)", &ev), GD_KLOG_PCIE_BANDWIDTH);
	assert_string_equal(ev.limit_at, "");

	assert_int_equal(P("Out of memory: Killed process 5123 (python) total-vm:98765432kB, anon-rss:65432100kB, file-rss:1234kB, shmem-rss:0kB, UID:1000 pgtables:130000kB oom_score_adj:0", &ev),
			 GD_KLOG_OOM_KILL);
	assert_int_equal(ev.pid.v, 5123);
	assert_string_equal(ev.process, "python");
	assert_int_equal(ev.anon_rss_bytes.v, 65432100ULL * 1024);
	assert_int_equal(ev.total_vm_bytes.v, 98765432ULL * 1024);
	assert_int_equal(P("Memory cgroup out of memory: Killed process 77 (pt_data_worker:0) total-vm:1kB, anon-rss:2kB, file-rss:0kB, shmem-rss:0kB", &ev),
			 GD_KLOG_OOM_KILL);
	assert_string_equal(ev.process, "pt_data_worker:0");
	assert_string_equal(ev.detail, "memory cgroup limit");
	/* 4.x: "Kill process ... score" is the prelude; "Killed process" the kill */
	assert_int_equal(P("Out of memory: Kill process 1234 (python) score 950 or sacrifice child", &ev), GD_KLOG_NONE);
	assert_int_equal(P("Killed process 1234 (python) total-vm:10kB, anon-rss:8kB, file-rss:0kB, shmem-rss:0kB", &ev), GD_KLOG_OOM_KILL);
	assert_int_equal(P("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/k,task_memcg=/kubepods/pod1,task=python,pid=1234,uid=0", &ev),
			 GD_KLOG_CTX_OOM);
	assert_string_equal(ev.detail, "CONSTRAINT_MEMCG /kubepods/pod1");
	assert_int_equal(ev.pid.v, 1234);

	assert_int_equal(P("INFO: task kworker/u64:3:6001 blocked for more than 122 seconds.", &ev), GD_KLOG_HUNG_TASK);
	assert_string_equal(ev.process, "kworker/u64:3");
	assert_int_equal(ev.pid.v, 6001);
	assert_true(fabs(ev.duration_s.v - 122) < 1e-9);

	assert_int_equal(P("mce: [Hardware Error]: CPU 3: Machine Check: 0 Bank 7: cc00008000010090", &ev), GD_KLOG_MCE);
	assert_string_equal(ev.severity, "corrected");
	assert_int_equal(P("mce: [Hardware Error]: CPU 1: Machine Check Exception: 5 Bank 2: be00000000800400", &ev), GD_KLOG_MCE);
	assert_string_equal(ev.severity, "uncorrected");
	assert_int_equal(P("mce: [Hardware Error]: Machine check events logged", &ev), GD_KLOG_MCE);
	assert_string_equal(ev.severity, "logged");
	assert_int_equal(P("mce: Uncorrected hardware memory error in user-access at 3c47e7b000", &ev), GD_KLOG_MCE);
	assert_string_equal(ev.severity, "uncorrected");
	assert_int_equal(P("[Hardware Error]: Corrected error, no action required.", &ev), GD_KLOG_MCE);
	assert_int_equal(P("mce: [Hardware Error]: PROCESSOR 0:50654 TIME 1732932123 SOCKET 1 APIC 0 microcode 2006906", &ev), GD_KLOG_CTX_MCE_SOCKET);
	assert_int_equal(ev.socket.v, 1);

	assert_int_equal(P("EDAC MC0: 1 CE memory read error on CPU_SrcID#0_MC#0_Chan#1_DIMM#0 (channel:1 slot:0 page:0x1a2b3c offset:0x0 grain:32 syndrome:0x0 - err_code:0x0000:0x009f socket:0 imc:0 rank:0)", &ev),
			 GD_KLOG_EDAC);
	assert_int_equal(ev.mc.v, 0);
	assert_int_equal(ev.count.v, 1);
	assert_string_equal(ev.severity, "CE");
	assert_string_equal(ev.dimm, "CPU_SrcID#0_MC#0_Chan#1_DIMM#0");
	assert_int_equal(ev.socket.v, 0);
	assert_int_equal(ev.channel.v, 1);
	/* older sb_edac wording, and a UE */
	assert_int_equal(P("EDAC sbridge MC1: 3 UE memory read error on CPU#1Channel#2_DIMM#0 (channel:2 slot:0 page:0x0 offset:0x0 grain:32 syndrome:0x0 - area:DRAM err_code:0001:0090 socket:1 channel_mask:4 rank:0)", &ev),
			 GD_KLOG_EDAC);
	assert_int_equal(ev.mc.v, 1);
	assert_int_equal(ev.count.v, 3);
	assert_string_equal(ev.severity, "UE");
	assert_int_equal(ev.socket.v, 1);
	assert_int_equal(ev.channel.v, 2);
	assert_int_equal(P("EDAC MC: Ver: 3.0.0", &ev), GD_KLOG_NONE);
}

/* ---- the front-ends and their clocks ------------------------------------ */

static void test_front_ends(void **state)
{
	struct gd_klog_event ev;
	bool no_year;
	const char *x = "NVRM: Xid (PCI:0000:5d:00): 13, pid=4711, name=python, Graphics Exception";
	char line[512];
	struct tm tm;
	time_t t;

	(void)state;
	/* /dev/kmsg */
	snprintf(line, sizeof line, "4,1234,5023456789,-,caller=T812;%s", x);
	assert_int_equal(P(line, &ev), GD_KLOG_XID);
	assert_true(fabs(ev.boot_s.v - 5023.456789) < 1e-6);
	/* dmesg with a caller id */
	snprintf(line, sizeof line, "[ 5023.456789][ T812] %s", x);
	assert_int_equal(P(line, &ev), GD_KLOG_XID);
	assert_int_equal(ev.pid.v, 4711);
	/* dmesg -T */
	snprintf(line, sizeof line, "[Mon Nov 30 01:02:03 2026] %s", x);
	assert_int_equal(P(line, &ev), GD_KLOG_XID);
	assert_true(ev.wall_time_s.ok);
	assert_false(ev.boot_s.ok);
	t = (time_t)ev.wall_time_s.v;
	localtime_r(&t, &tm);
	assert_int_equal(tm.tm_year, 126);
	assert_int_equal(tm.tm_mon, 10);
	assert_int_equal(tm.tm_mday, 30);
	assert_int_equal(tm.tm_hour, 1);
	/* short-iso, both offset forms, and Z */
	snprintf(line, sizeof line, "2026-11-30T01:02:03+0100 gpu-a17 kernel: %s", x);
	assert_int_equal(P(line, &ev), GD_KLOG_XID);
	assert_true(fabs(ev.wall_time_s.v - 1795996923.0) < 1e-6);
	snprintf(line, sizeof line, "2026-11-30T01:02:03.250000+01:00 gpu-a17 kernel: [ 812.5] %s", x);
	assert_int_equal(P(line, &ev), GD_KLOG_XID);
	assert_true(fabs(ev.wall_time_s.v - 1795996923.25) < 1e-6);
	assert_true(fabs(ev.boot_s.v - 812.5) < 1e-9);   /* both kept */
	snprintf(line, sizeof line, "2026-11-30T00:02:03Z gpu-a17 kernel: %s", x);
	assert_int_equal(P(line, &ev), GD_KLOG_XID);
	assert_true(fabs(ev.wall_time_s.v - 1795996923.0) < 1e-6);
	/* journalctl short and short-precise, kern.log with the dmesg stamp: no year */
	snprintf(line, sizeof line, "Nov 30 01:02:03 gpu-a17 kernel: %s", x);
	assert_int_equal(P(line, &ev), GD_KLOG_XID);
	assert_false(ev.wall_time_s.ok);
	assert_int_equal(gd_klog_parse_line_ex(line, strlen(line), &ev, &no_year), GD_KLOG_XID);
	assert_true(no_year);
	assert_true(ev.wall_time_s.ok);
	snprintf(line, sizeof line, "Nov  3 01:02:03.123456 gpu-a17 kernel: [ 5023.456789] %s", x);
	assert_int_equal(gd_klog_parse_line_ex(line, strlen(line), &ev, &no_year), GD_KLOG_XID);
	assert_true(no_year);
	assert_true(ev.boot_s.ok);
	assert_true(fabs(ev.wall_time_s.v - floor(ev.wall_time_s.v) - 0.123456) < 1e-6);
	/* syslog lines of other programs are not kernel evidence */
	snprintf(line, sizeof line, "Nov 30 01:02:03 gpu-a17 python[4711]: %s", x);
	assert_int_equal(P(line, &ev), GD_KLOG_NONE);
	assert_false(ev.wall_time_s.ok);
	/* the ISO stamp of another program's line is not kept either */
	snprintf(line, sizeof line, "2026-11-30T01:02:03+01:00 gpu-a17 nv-hostengine: %s", x);
	assert_int_equal(P(line, &ev), GD_KLOG_NONE);
	assert_false(ev.wall_time_s.ok);
	snprintf(line, sizeof line, "2026-11-30T01:02:03Z gpu-a17 python[4711]: %s", x);
	assert_int_equal(P(line, &ev), GD_KLOG_NONE);
	assert_false(ev.wall_time_s.ok);
	/* CRLF */
	snprintf(line, sizeof line, "[ 1.5] %s\r", x);
	assert_int_equal(P(line, &ev), GD_KLOG_XID);
	assert_string_equal(ev.text, "Graphics Exception");
	/* malformed stamps still give the event, without a time */
	snprintf(line, sizeof line, "[ 12x.5] %s", x);
	assert_int_equal(P(line, &ev), GD_KLOG_XID);
	assert_false(ev.boot_s.ok);
	assert_int_equal(P("", &ev), GD_KLOG_NONE);
	assert_int_equal(P("[", &ev), GD_KLOG_NONE);
	assert_int_equal(P("Nov 30", &ev), GD_KLOG_NONE);
	assert_int_equal(P("4,1,2,", &ev), GD_KLOG_NONE);
}

/* Truncation at every length of a long line never reads past it (ASan). */
/*
 * A line cut anywhere (a ring buffer record cut at its size, a log file
 * whose last line was half written, a paste) must never invent evidence.
 * The contract of gd_klog_parse_line for the first k bytes of a line whose
 * whole parse is (K, E):
 *
 *  1. nothing past the k bytes is read: the result is the same whatever
 *     follows them in memory (the line's real rest, or '9's; and ASan sees an
 *     exact-size heap copy);
 *  2. it is GD_KLOG_NONE (ev.kind empty; the other fields are unspecified)
 *     or K itself: a cut line is never taken for another message;
 *  3. for K, each field of the event is
 *       - absent or empty (the cut came before it, or cut what delimits it),
 *       - E's value, or
 *       - for a field the cut falls inside: a prefix of E's (a string a
 *         prefix of E's string; a number whose decimal digits are a prefix
 *         of E's, for byte counts of the kB the line states; "126.0" of
 *         126.016), or
 *       - a string read to the end of the cut line, because the key or the
 *         terminator after it was cut ("name=x," gives process "x,"; the
 *         Xid text "pi" when the cut falls in "pid="), or
 *       - "unknown" for a severity whose evidence was cut off (an MCE
 *         status);
 *  4. all k bytes give exactly E.
 */
static const char *const trunc_lines[] = {
	"2026-11-30T01:02:03.250000+01:00 gpu-a17 kernel: [ 812.5] NVRM: Xid (PCI:0000:3b:00 GPU-I:01 GPU-CI:00): 154, pid=1, name=x, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)",
	"nvidia 0000:5d:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)",
	"pci 0000:5d:00.0: 126.016 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x8 link at 0000:5c:00.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)",
	"EDAC sbridge MC1: 3 UE memory read error on CPU#1Channel#2_DIMM#0 (channel:2 slot:0 socket:1)",
	"Out of memory: Killed process 5123 (python) total-vm:98765432kB, anon-rss:65432100kB",
	"[Mon Nov 30 01:02:03 2026] INFO: task python:6001 blocked for more than 120 seconds.",
	"mce: [Hardware Error]: CPU 3: Machine Check: 0 Bank 7: cc00008000010090",
	"oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),task_memcg=/x,task=python,pid=1234,uid=0",
	/* uncorrected (bit 61); cut one digit short it must not read as corrected */
	"mce: [Hardware Error]: CPU 0: Machine Check: 0 Bank 7: be00000000800400",
};
static const enum gd_klog_kind trunc_kinds[] = {
	GD_KLOG_XID, GD_KLOG_AER, GD_KLOG_PCIE_BANDWIDTH, GD_KLOG_EDAC,
	GD_KLOG_OOM_KILL, GD_KLOG_HUNG_TASK, GD_KLOG_MCE, GD_KLOG_CTX_OOM,
	GD_KLOG_MCE,
};

static bool is_prefix(const char *pre, const char *s)
{
	return strncmp(pre, s, strlen(pre)) == 0;
}

/* Contract 3 for one field; the value as text in got and want. */
static bool trunc_field_ok(const struct gd_field *fl, const struct gd_klog_event *ev, const struct gd_klog_event *whole,
			   const char *cut, size_t k, char *got, char *want, size_t sz)
{
	const char *a = (const char *)ev + fl->offset, *b = (const char *)whole + fl->offset;

	if (fl->type == GD_FT_STR) {
		size_t n = strlen(a);

		gd_strlcpy(got, a, sz);
		gd_strlcpy(want, b, sz);
		return is_prefix(a, b) || (n <= k && memcmp(cut + k - n, a, n) == 0) ||
		       (strcmp(fl->name, "severity") == 0 && strcmp(a, "unknown") == 0);
	}
	if (fl->type == GD_FT_U64) {
		const struct gd_u64 *x = (const void *)a, *y = (const void *)b;
		uint64_t scale = strcmp(fl->unit, "bytes") == 0 ? 1024 : 1;

		snprintf(got, sz, x->ok ? "%" PRIu64 : "absent", x->v);
		snprintf(want, sz, y->ok ? "%" PRIu64 : "absent", y->v);
		if (!x->ok || (y->ok && x->v == y->v))
			return true;
		if (!y->ok || x->v % scale || y->v % scale)
			return false;
		snprintf(got, sz, "%" PRIu64, x->v / scale);
		snprintf(want, sz, "%" PRIu64, y->v / scale);
		return is_prefix(got, want);
	} else {
		const struct gd_f64 *x = (const void *)a, *y = (const void *)b;

		snprintf(got, sz, x->ok ? "%.15g" : "absent", x->v);
		snprintf(want, sz, y->ok ? "%.15g" : "absent", y->v);
		return !x->ok || (y->ok && is_prefix(got, want));
	}
}

static void test_truncated_everywhere(void **state)
{
	const struct gd_record_desc *d = gd_section_find("klog");
	struct gd_klog_event whole, ev, ev_rest, ev_nines;
	char got[300], want[300];

	(void)state;
	assert_non_null(d);
	assert_int_equal(sizeof trunc_lines / sizeof trunc_lines[0], sizeof trunc_kinds / sizeof trunc_kinds[0]);
	for (size_t i = 0; i < sizeof trunc_lines / sizeof trunc_lines[0]; i++) {
		const char *line = trunc_lines[i];
		size_t n = strlen(line), events = 0;
		enum gd_klog_kind kind = gd_klog_parse_line(line, n, &whole);
		char *nines = malloc(n + 1);

		assert_non_null(nines);
		assert_int_equal(kind, trunc_kinds[i]);
		for (size_t k = 0; k <= n; k++) {
			char *copy = malloc(k ? k : 1);
			enum gd_klog_kind kk, k_rest, k_nines;

			assert_non_null(copy);
			memcpy(copy, line, k);
			memcpy(nines, line, k);
			memset(nines + k, '9', n - k);
			nines[n] = '\0';
			kk = gd_klog_parse_line(copy, k, &ev);        /* exact-size heap copy: ASan sees any overread */
			k_rest = gd_klog_parse_line(line, k, &ev_rest);   /* the line's real rest follows */
			k_nines = gd_klog_parse_line(nines, k, &ev_nines); /* '9's follow */
			free(copy);
			if (kk != k_rest || kk != k_nines || memcmp(&ev, &ev_rest, sizeof ev) != 0 ||
			    memcmp(&ev, &ev_nines, sizeof ev) != 0)
				fail_msg("line %zu cut at %zu: the result depends on the bytes after the cut", i, k);
			if (kk == GD_KLOG_NONE) {
				if (ev.kind[0])
					fail_msg("line %zu cut at %zu: no event but kind \"%s\"", i, k, ev.kind);
				continue;
			}
			if (kk != kind)
				fail_msg("line %zu cut at %zu: kind %d, the whole line is %d", i, k, (int)kk, (int)kind);
			if (k < n)
				events++;
			for (size_t f = 0; f < d->nfields; f++)
				if (!trunc_field_ok(&d->fields[f], &ev, &whole, line, k, got, want, sizeof got))
					fail_msg("line %zu cut at %zu: %s is \"%s\", the whole line's \"%s\"", i, k,
						 d->fields[f].name, got, want);
		}
		free(nines);
		/* all of it: exactly the whole line's event */
		assert_int_equal(gd_klog_parse_line(line, n, &ev), kind);
		assert_memory_equal(&ev, &whole, sizeof ev);
		/* the checks above saw events from cut lines, not only NONE */
		if (events == 0)
			fail_msg("line %zu: no cut of it gives an event", i);
	}
}

/* ---- the scanner --------------------------------------------------------- */

struct got {
	struct gd_klog_event ev[64];
	int n;
};

static void collect(void *arg, enum gd_klog_kind kind, const struct gd_klog_event *ev)
{
	struct got *g = arg;

	(void)kind;
	if (g->n < 64)
		g->ev[g->n++] = *ev;
}

static void feed_text(struct got *g, struct gd_klog_feed *f, const char *text)
{
	memset(g, 0, sizeof *g);
	gd_klog_feed_init(f, collect, g, 1796011323.0);
	gd_klog_feed_buf(f, text, strlen(text));
	gd_klog_feed_flush(f);
}

/* ---- hung tasks and their call traces through the NVIDIA modules -------- */

/* The three frame shapes, and lines that look like frames but are none. */
static void test_hung_frames(void **state)
{
	struct gd_klog_event ev;

	(void)state;
	assert_int_equal(P("[ 7510.131288]  os_acquire_rwlock_read+0x35/0x50 [nvidia]", &ev), GD_KLOG_CTX_TRACE_NV);
	assert_string_equal(ev.trace, "os_acquire_rwlock_read [nvidia]");
	assert_int_equal(P("[ 7510.133677]  ? _nv052958rm+0x2cc/0x360 [nvidia]", &ev), GD_KLOG_CTX_TRACE_NV);
	assert_string_equal(ev.trace, "?_nv052958rm [nvidia]");
	assert_int_equal(P("[  721.028422]  [<ffffffffa09c376e>] uvm_gpu_retain_by_uuid+0x1e/0x40 [nvidia_uvm]", &ev),
			 GD_KLOG_CTX_TRACE_NV);
	assert_string_equal(ev.trace, "uvm_gpu_retain_by_uuid [nvidia_uvm]");
	assert_int_equal(P("Jul 04 22:10:09 pop-os kernel:  nv_ioctl+0x1c/0x30 [nvidia]", &ev), GD_KLOG_CTX_TRACE_NV);
	assert_string_equal(ev.trace, "nv_ioctl [nvidia]");
	/* malformed: no offset, another module, text after the module, no symbol,
	 * a cut address, the module not closed, a bare module tag */
	assert_int_equal(P("[ 1.0]  os_acquire_mutex [nvidia]", &ev), GD_KLOG_NONE);
	assert_int_equal(P("[ 1.0]  amdgpu_cs_ioctl+0x1/0x2 [amdgpu]", &ev), GD_KLOG_NONE);
	assert_int_equal(P("[ 1.0]  os_acquire_mutex+0x1c/0x30 [nvidia] extra", &ev), GD_KLOG_NONE);
	assert_int_equal(P("[ 1.0]  +0x1c/0x30 [nvidia]", &ev), GD_KLOG_NONE);
	assert_int_equal(P("[ 1.0]  [<ffffffffa09c37 uvm_x+0x1/0x2 [nvidia_uvm]", &ev), GD_KLOG_NONE);
	assert_int_equal(P("[ 1.0]  os_x+0x1/0x2 [nvidia", &ev), GD_KLOG_NONE);
	assert_int_equal(P("[ 1.0] [nvidia]", &ev), GD_KLOG_NONE);
	assert_int_equal(P("[ 1.0] [drm] Initialized nvidia-drm 0.0.0 for 0000:01:00.0 on minor 1 [nvidia-drm]", &ev),
			 GD_KLOG_NONE);
	/* malformed hung-task lines: no pid, no colon */
	assert_int_equal(P("INFO: task python: blocked for more than 120 seconds.", &ev), GD_KLOG_NONE);
	assert_int_equal(P("INFO: task python blocked for more than 120 seconds.", &ev), GD_KLOG_NONE);
	/* a comm with a colon and brackets of its own (nvidia-container-cli's) */
	assert_int_equal(P("[  721.028170] INFO: task nvc:[driver]:5403 blocked for more than 120 seconds.", &ev),
			 GD_KLOG_HUNG_TASK);
	assert_string_equal(ev.process, "nvc:[driver]");
	assert_int_equal(ev.pid.v, 5403);
}

/* The scanner folds a report's NVIDIA frames into it; frames of a later
 * trace (seconds after) and frames with no report before them do not. */
static void test_hung_scanner(void **state)
{
	struct got g;
	struct gd_klog_feed f;

	(void)state;
	feed_text(&g, &f,
		  "[  100.0]  os_alone+0x1/0x2 [nvidia]\n"
		  "[ 7510.129324] INFO: task gdscheck:509579 blocked for more than 120 seconds.\n"
		  "[ 7510.129968]       Tainted: P           OE     5.15.0-141-generic #151-Ubuntu\n"
		  "[ 7510.131227] Call Trace:\n"
		  "[ 7510.131238]  __schedule+0x24e/0x590\n"
		  "[ 7510.131288]  os_acquire_rwlock_read+0x35/0x50 [nvidia]\n"
		  "[ 7510.132138]  _nv051482rm+0x10/0x40 [nvidia]\n"
		  "[ 7510.133677]  ? _nv052958rm+0x2cc/0x360 [nvidia]\n"
		  "[ 7600.0]  os_later_warning+0x1/0x2 [nvidia]\n"
		  "[ 7700.0] INFO: task lvm:1233013 blocked for more than 241 seconds.\n"
		  "[ 7700.1]  __schedule+0x24e/0x590\n"
		  "[ 7700.2]  io_schedule+0x1/0x2\n");
	assert_int_equal(g.n, 2);
	assert_string_equal(g.ev[0].kind, "hung_task");
	assert_string_equal(g.ev[0].process, "gdscheck");
	assert_string_equal(g.ev[0].trace, "os_acquire_rwlock_read [nvidia] < _nv051482rm [nvidia] < ?_nv052958rm [nvidia]");
	assert_string_equal(g.ev[1].process, "lvm");
	assert_string_equal(g.ev[1].trace, "");
	assert_true(fabs(g.ev[1].duration_s.v - 241) < 1e-9);

	/* a long trace is cut at a whole frame and says so */
	{
		char big[8192];
		size_t n = (size_t)snprintf(big, sizeof big, "[ 10.0] INFO: task python:7 blocked for more than 120 seconds.\n");

		for (int i = 0; i < 40; i++)
			n += (size_t)snprintf(big + n, sizeof big - n, "[ 10.1]  uvm_frame_number_%02d+0x1/0x2 [nvidia_uvm]\n", i);
		feed_text(&g, &f, big);
		assert_int_equal(g.n, 1);
		assert_true(strlen(g.ev[0].trace) < sizeof g.ev[0].trace);
		assert_non_null(strstr(g.ev[0].trace, "uvm_frame_number_00 [nvidia_uvm] < "));
		assert_string_equal(g.ev[0].trace + strlen(g.ev[0].trace) - 6, " < ...");
	}
}

static void test_scanner_joins(void **state)
{
	struct got g;
	struct gd_klog_feed f;

	(void)state;
	feed_text(&g, &f,
		  "[    2.1] NVRM: The NVIDIA GPU 0000:5d:00.0\n"
		  "[    2.1] NVRM: (PCI ID: 10de:2330) installed in this system has\n"
		  "[    2.1] NVRM: fallen off the bus and is not responding to commands.\n"
		  "[ 1500.0] pcieport 0000:5c:00.0: AER: Corrected error received: 0000:5d:00.0\n"
		  "[ 1500.1] pcieport 0000:5c:00.0: AER: PCIe Bus Error: severity=Corrected, type=Data Link Layer, (Transmitter ID)\n"
		  "[ 1500.2] pcieport 0000:5c:00.0: AER:   device [10de:1af1] error status/mask=00001000/00002000\n"
		  "[ 1500.3] pcieport 0000:5c:00.0: AER:    [12] Timeout               \n"
		  "[ 2000.1] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),task_memcg=/kubepods/pod1,task=python,pid=5123,uid=0\r\n"
		  "[ 2000.2] Memory cgroup out of memory: Killed process 5123 (python) total-vm:1kB, anon-rss:2kB, file-rss:0kB, shmem-rss:0kB\r\n"
		  "[ 3000.0] mce: [Hardware Error]: CPU 3: Machine Check: 0 Bank 7: cc00008000010090\n"
		  "[ 3000.1] mce: [Hardware Error]: PROCESSOR 0:50654 TIME 1732932123 SOCKET 1 APIC 0 microcode 2006906\n"
		  "[ 3000.2] usb 1-1: new high-speed USB device number 7 using xhci_hcd\n"
		  "[ 3600.0] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.");
	assert_int_equal(g.n, 5);
	assert_string_equal(g.ev[0].kind, "fallen_off_bus");
	assert_string_equal(g.ev[0].pci_bus_id, "0000:5d:00.0");
	assert_string_equal(g.ev[1].kind, "aer");
	assert_int_equal(g.ev[1].is_gpu.v, 1);                    /* from the device line */
	assert_string_equal(g.ev[1].detail, "Data Link Layer, Transmitter ID; Timeout");
	assert_string_equal(g.ev[2].kind, "oom_kill");
	assert_string_equal(g.ev[2].detail, "CONSTRAINT_MEMCG /kubepods/pod1");
	assert_string_equal(g.ev[3].kind, "mce");
	assert_int_equal(g.ev[3].socket.v, 1);
	assert_string_equal(g.ev[4].kind, "xid");                 /* the last line has no '\n' */
	assert_int_equal(f.lines, 12);   /* gd_klog_feed_buf counts newlines; read_fd adds an unterminated last line */
}

/* Shapes seen in real pastes (values changed): dmesg's indented continuation
 * lines of the boot-time fallen-off form carry no stamp, and dmesg -r and
 * lines echoed into /dev/kmsg start with a syslog priority. */
static void test_real_dmesg_shapes(void **state)
{
	struct got g;
	struct gd_klog_feed f;
	struct gd_klog_event ev;

	(void)state;
	feed_text(&g, &f,
		  "[ 1712.204311] NVRM: The NVIDIA GPU 0000:c4:00.0\n"
		  "               NVRM: (PCI ID: 10de:2335) installed in this system has\n"
		  "               NVRM: fallen off the bus and is not responding to commands.\n"
		  "[ 1712.331508] NVRM: The NVIDIA probe routine failed for 1 device(s).\n"
		  "<3>[4102933.250117] NVRM: Xid (PCI:0003:00:00): 119, pid=902211, name=nvc:[driver], Timeout after 6s of waiting "
		  "for RPC response from GPU3 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20802a02 0x8).\n");
	/* two events, not three: "The NVIDIA probe routine failed" right after
	 * the fallen-off form is the driver ending that same event (issue 11:
	 * reading it as a second fault, gpu.init_failed, tripled one fact) */
	assert_int_equal(g.n, 2);
	assert_string_equal(g.ev[0].kind, "fallen_off_bus");
	assert_string_equal(g.ev[0].pci_bus_id, "0000:c4:00.0");
	assert_true(g.ev[0].boot_s.ok);                          /* the stamp of "The NVIDIA GPU" line */
	assert_true(g.ev[0].boot_s.v > 1712.2 && g.ev[0].boot_s.v < 1712.3);
	assert_string_equal(g.ev[1].kind, "xid");
	assert_int_equal(g.ev[1].code.v, 119);
	assert_string_equal(g.ev[1].pci_bus_id, "0003:00:00.0");
	assert_true(g.ev[1].boot_s.ok);
	assert_true(g.ev[1].boot_s.v > 4102933.2 && g.ev[1].boot_s.v < 4102933.3);
	assert_int_equal(g.ev[1].pid.v, 902211);
	assert_string_equal(g.ev[1].process, "nvc:[driver]");
	assert_int_equal(P("<6>[ 5.25] NVRM: Xid (PCI:0000:01:00): 13, pid=1, name=a, Graphics", &ev), GD_KLOG_XID);
	assert_true(ev.boot_s.ok && ev.boot_s.v == 5.25);
	/* not a priority: the message is still read, without a stamp */
	assert_int_equal(P("<999>[ 5.25] NVRM: Xid (PCI:0000:01:00): 13, pid=1, name=a, Graphics", &ev), GD_KLOG_XID);
	assert_false(ev.boot_s.ok);
}

static void test_scanner_junk(void **state)
{
	struct got g;
	struct gd_klog_feed f;
	char junk[4096];
	char *big;
	size_t n = 1 << 20;

	(void)state;
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (char)(i * 131 + 7);
	memset(&g, 0, sizeof g);
	gd_klog_feed_init(&f, collect, &g, 0);
	gd_klog_feed_buf(&f, junk, sizeof junk);
	gd_klog_feed_flush(&f);
	assert_int_equal(g.n, 0);

	/* a 1 MB line that ends with a marker, then a real one */
	big = malloc(n + 200);
	memset(big, 'a', n);
	memcpy(big + n - 40, "NVRM: Xid (PCI:0000:5d:00): 13, x\n", 34);
	memcpy(big + n - 6, "\n[ 1.0] NVRM: Xid (PCI:0000:5d:00): 31, pid=1, name=x, y\n", 57);
	feed_text(&g, &f, "");
	gd_klog_feed_buf(&f, big, n + 51);
	gd_klog_feed_flush(&f);
	/* the marker sits 1 MB into a line that is not a kernel line: only the real one counts */
	assert_int_equal(g.n, 1);
	assert_int_equal(g.ev[0].code.v, 31);
	assert_int_equal(f.lines, 3);   /* the marker line, an empty one, the real one */
	free(big);
}

/* Writes text to a temporary file, gzip-compressed when gz; returns an fd. */
static int temp_with(const char *text, size_t len, bool gz, size_t cut)
{
	char path[] = "/tmp/gd-test-klog-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	if (gz) {
		uLongf zn = compressBound(len) + 64;
		unsigned char *z = malloc(zn);
		z_stream zs;

		memset(&zs, 0, sizeof zs);
		assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
		zs.next_in = (unsigned char *)text;
		zs.avail_in = (unsigned)len;
		zs.next_out = z;
		zs.avail_out = (unsigned)zn;
		assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
		zn = zs.total_out;
		deflateEnd(&zs);
		assert_int_equal(write(fd, z, zn - cut), (ssize_t)(zn - cut));
		free(z);
	} else {
		assert_int_equal(write(fd, text, len), (ssize_t)len);
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

static void test_read_fd_gzip(void **state)
{
	size_t len = 0, cap = 4 << 20;
	char *text = malloc(cap);
	struct got g;
	struct gd_klog_feed f;
	struct gd_err err;
	int fd, rc;

	(void)state;
	/* ~3 MB: 40,000 ordinary lines, an Xid every 10,000 */
	for (int i = 0; i < 40000; i++)
		len += (size_t)snprintf(text + len, cap - len,
					i % 10000 == 9999 ? "[%6d.000000] NVRM: Xid (PCI:0000:5d:00): 13, pid=%d, name=x, y\n"
							  : "[%6d.000000] usb 1-1.4: new high-speed USB device number %d using xhci_hcd\n",
					i, i);
	for (int mode = 0; mode < 3; mode++) {
		fd = temp_with(text, len, mode > 0, mode == 2 ? 200 : 0);
		memset(&g, 0, sizeof g);
		gd_err_clear(&err);
		gd_klog_feed_init(&f, collect, &g, 0);
		rc = gd_klog_read_fd(&f, fd, "t.log", &err);
		close(fd);
		if (mode < 2) {
			assert_int_equal(rc, 0);
			assert_int_equal(g.n, 4);
			assert_int_equal(f.lines, 40000);
		} else {
			/* truncated gzip: what came before is kept, the message says why */
			assert_int_equal(rc, 1);
			assert_non_null(strstr(err.msg, "ends early"));
			assert_true(g.n >= 3);
		}
	}
	/* empty input */
	fd = temp_with("", 0, false, 0);
	memset(&g, 0, sizeof g);
	gd_klog_feed_init(&f, collect, &g, 0);
	assert_int_equal(gd_klog_read_fd(&f, fd, "empty.log", &err), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(f.lines, 0);
	close(fd);
	/* not gzip after all: damaged stream */
	fd = temp_with("\x1f\x8b\x08\x00garbage garbage garbage", 27, false, 0);
	gd_err_clear(&err);
	gd_klog_feed_init(&f, collect, &g, 0);
	rc = gd_klog_read_fd(&f, fd, "bad.gz", &err);
	assert_true(rc != 0);
	assert_non_null(strstr(err.msg, "bad.gz"));
	close(fd);
	free(text);
}

/* ---- the summary and its context ----------------------------------------- */

static struct gd_klog_event xid_ev(const char *bus, unsigned code, double t, uint64_t pid)
{
	struct gd_klog_event ev;

	memset(&ev, 0, sizeof ev);
	GD_STRSET(ev.kind, "xid");
	GD_STRSET(ev.pci_bus_id, bus);
	gd_u64_set(&ev.code, code);
	gd_f64_set(&ev.boot_s, t);
	if (pid)
		gd_u64_set(&ev.pid, pid);
	GD_STRSET(ev.process, "python");
	return ev;
}

static const struct gd_xid_entry *entry(const struct gd_xid_summary *s, const char *bus, unsigned code)
{
	GD_VEC_EACH(s->entries, const struct gd_xid_entry, e)
		if (e->code == code && strcmp(e->bus, bus) == 0)
			return e;
	fail_msg("no entry %s/%u", bus, code);
	return NULL;
}

static void test_summary_context(void **state)
{
	struct gd_xid_summary s;
	struct gd_klog_event ev;

	(void)state;
	gd_xid_summary_init(&s);
	/* lone 45 on A; 13 then 45 on B; a storm of 31 on C; 79 then 13 on D; unknown 999 */
	ev = xid_ev("0000:0a:00.0", 45, 10, 1);
	gd_xid_summary_add(&s, &ev);
	ev = xid_ev("0000:0b:00.0", 13, 20, 2);
	gd_xid_summary_add(&s, &ev);
	ev = xid_ev("0000:0b:00.0", 45, 21, 2);
	gd_xid_summary_add(&s, &ev);
	for (int i = 0; i < 12; i++) {
		ev = xid_ev("0000:0c:00.0", 43, 100 + i, 3);
		gd_xid_summary_add(&s, &ev);
	}
	ev = xid_ev("0000:0d:00.0", 79, 200, 0);
	gd_xid_summary_add(&s, &ev);
	ev = xid_ev("0000:0d:00.0", 13, 201, 4);
	gd_xid_summary_add(&s, &ev);
	ev = xid_ev("0000:0e:00.0", 999, 300, 5);
	gd_xid_summary_add(&s, &ev);
	ev = xid_ev("0000:0e:00.0", 154, 301, 0);
	gd_u64_set(&ev.action_code, 1);
	GD_STRSET(ev.detail, "GPU Reset Required");
	gd_xid_summary_add(&s, &ev);
	gd_xid_summary_finish(&s, NULL);

	assert_int_equal(entry(&s, "0000:0a:00.0", 45)->sev, GD_SEV_INFO);
	assert_int_equal(entry(&s, "0000:0a:00.0", 45)->secondary, 0);
	assert_int_equal(entry(&s, "0000:0b:00.0", 45)->secondary, 1);
	assert_non_null(strstr(entry(&s, "0000:0b:00.0", 45)->notes, "secondary"));
	assert_int_equal(entry(&s, "0000:0b:00.0", 13)->sev, GD_SEV_WARNING);
	assert_int_equal(entry(&s, "0000:0c:00.0", 43)->count, 12);
	assert_int_equal(entry(&s, "0000:0c:00.0", 43)->sev, GD_SEV_WARNING);   /* info raised by the storm */
	assert_non_null(strstr(entry(&s, "0000:0c:00.0", 43)->notes, "storm: 10 within 60 s"));
	assert_int_equal(entry(&s, "0000:0d:00.0", 79)->sev, GD_SEV_CRITICAL);
	assert_int_equal(entry(&s, "0000:0d:00.0", 13)->sev, GD_SEV_INFO);     /* after 79 */
	assert_int_equal(entry(&s, "0000:0e:00.0", 999)->sev, GD_SEV_WARNING);
	assert_null(entry(&s, "0000:0e:00.0", 999)->info);
	assert_int_equal(entry(&s, "0000:0e:00.0", 154)->sev, GD_SEV_CRITICAL);
	assert_non_null(strstr(entry(&s, "0000:0e:00.0", 154)->action, "GPU Reset Required"));
	assert_int_equal(gd_xid_summary_worst(&s), GD_SEV_CRITICAL);
	gd_xid_summary_release(&s);

	/* the catalogue: codes from the table, unknown ones absent */
	assert_string_equal(gd_xid_lookup(79)->bucket, "RESTART_BM");
	assert_int_equal(gd_xid_lookup(48)->sev, GD_SEV_CRITICAL);
	assert_null(gd_xid_lookup(12345));
	assert_int_equal(gd_xid_row_remap_state(NULL, "0000:0a:00.0"), GD_REMAP_UNKNOWN);
}

/* ---- the parser in gd_parsers[] and the file snapshot --------------------- */

static void test_parser_registry_and_snapshot(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_parser *p = NULL;
	const char *log = "[ 10.0] NVRM: Xid (PCI:0000:5d:00): 13, pid=1, name=x, y\n"
			  "[ 99999.0] Out of memory: Killed process 5 (x) total-vm:1kB, anon-rss:1kB\n"
			  "[ 100000.0] NVRM: Xid (PCI:0000:5d:00): 31, pid=1, name=x, y\n";
	int fd;
	char since_err[] = "yesterday";
	double since;

	(void)state;
	for (size_t i = 0; i < gd_nparsers; i++)
		if (gd_parsers[i].parse == gd_parse_klog)
			p = &gd_parsers[i];
	assert_non_null(p);
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_klog, log, &s, &err), 0);
	assert_int_equal(s.klog.n, 3);
	assert_int_equal(gd_parse_klog("a\0b NVRM: Xid (PCI:0000:5d:00): 13, x\n", 38, &s, &err), 1);
	assert_non_null(strstr(err.msg, "NUL"));
	gd_snapshot_release(&s);

	/* a file: the look-back (24 h) runs back from its last line */
	gd_snapshot_init(&s);
	fd = temp_with(log, strlen(log), true, 0);
	gd_err_clear(&err);
	assert_int_equal(gd_klog_snapshot_from_fd(&s, fd, "k.log.gz", 0, &err), 0);
	close(fd);
	assert_int_equal(s.klog.n, 2);   /* the Xid at 10 s is 27.7 h before the last line */
	assert_true(s.host.uptime_s.ok);
	assert_true(fabs(s.host.uptime_s.v - 100000.0) < 1e-9);
	assert_string_equal(GD_VEC_AT(s.sources, struct gd_source, 0)->name, "klog");
	assert_string_equal(GD_VEC_AT(s.sources, struct gd_source, 0)->status, "ok");
	gd_snapshot_release(&s);

	assert_int_equal(gd_klog_parse_since("24h", 1000000.0, &since, &err), 0);
	assert_true(fabs(since - (1000000.0 - 86400)) < 1e-9);
	assert_int_equal(gd_klog_parse_since("2026-11-30T01:00", 0, &since, &err), 0);
	assert_true(since > 1796000000.0 && since < 1796100000.0);
	assert_true(gd_klog_parse_since(since_err, 0, &since, &err) < 0);
	assert_non_null(strstr(err.msg, "yesterday"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xid_shapes),
		cmocka_unit_test(test_driver_lines),
		cmocka_unit_test(test_host_lines),
		cmocka_unit_test(test_front_ends),
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_scanner_joins),
		cmocka_unit_test(test_real_dmesg_shapes),
		cmocka_unit_test(test_scanner_junk),
		cmocka_unit_test(test_read_fd_gzip),
		cmocka_unit_test(test_summary_context),
		cmocka_unit_test(test_parser_registry_and_snapshot),
		cmocka_unit_test(test_hung_frames),
		cmocka_unit_test(test_hung_scanner),
	};

	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
