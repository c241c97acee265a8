/*
 * test_collect_cpu.c - host, /proc/stat, /proc/loadavg, cpuinfo/topology and
 * cpufreq collectors: real samples, older kernels, malformed input, sysfs
 * fixture trees built in a temporary directory, and the live machine.
 */
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void live_init(struct gd_root *root, struct gd_collect_ctx *ctx)
{
	struct gd_err err;

	assert_int_equal(gd_root_open(root, "/", &err), 0);
	ctx->root = root;
}

/* ---- /proc/uptime and host --------------------------------------------- */

static void test_uptime_sample(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_uptime, "500.44 965.35\n", &s, &err), 0);
	assert_true(s.host.uptime_s.ok);
	assert_float_equal(s.host.uptime_s.v, 500.44, 1e-9);
	/* Only the first number is required. */
	gd_snapshot_clear(&s);
	assert_int_equal(parse_lit(gd_parse_proc_uptime, "0.00", &s, &err), 0);
	assert_true(s.host.uptime_s.ok);
	assert_float_equal(s.host.uptime_s.v, 0.0, 0);
	gd_snapshot_release(&s);
}

static void test_uptime_malformed(void **state)
{
	static const char *const bad[] = { "", "\n", "abc 1.0\n", "-5.0 1.0\n", "1e400 1\n", "nan 1\n", "12x 3\n" };
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		gd_snapshot_init(&s);
		assert_true(parse_lit(gd_parse_proc_uptime, bad[i], &s, &err) < 0);
		assert_false(s.host.uptime_s.ok);
		assert_true(err.msg[0] != '\0');
		gd_snapshot_release(&s);
	}
	gd_snapshot_init(&s);
	assert_true(gd_parse_proc_uptime("12.0\0 3.0", 9, &s, &err) < 0);
	assert_contains(err.msg, "binary");
	/* A bad idle field keeps the uptime but says so. */
	assert_int_equal(parse_lit(gd_parse_proc_uptime, "12.5 idle\n", &s, &err), 1);
	assert_true(s.host.uptime_s.ok);
	assert_contains(err.msg, "idle");
	gd_snapshot_release(&s);
}

static const char mountinfo_hybrid[] =
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
static const char mountinfo_v2[] =
	"22 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
	"30 25 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n";
static const char mounts_v1[] = "rootfs / rootfs rw 0 0\n"
				"cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n"
				"cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0\n";

static void host_tree(struct tree *t, const char *mountinfo)
{
	tree_init(t, "cpu");
	tree_put(t, "proc/uptime", "1234.50 4000.00\n");
	tree_put(t, "proc/sys/kernel/hostname", "gpu-node-17\n");
	tree_put(t, "proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
	tree_put(t, "proc/4242/mountinfo", mountinfo);
	tree_link(t, "4242", "proc/self");
}

static void test_host_fixture(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	host_tree(&t, mountinfo_v2);
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_host, &t.ctx, &s, &err), GD_SRC_OK);
	assert_float_equal(s.host.uptime_s.v, 1234.5, 1e-9);
	assert_string_equal(s.host.hostname, "gpu-node-17");
	assert_string_equal(s.host.kernel, "6.1.0-18-amd64");
	assert_true(s.host.self_pid.ok);
	assert_int_equal(s.host.self_pid.v, 4242);
	assert_string_equal(s.host.cgroup_mode, "v2");
	assert_true(s.host.clk_tck.ok && s.host.clk_tck.v > 0);
	assert_true(s.host.page_size_bytes.ok && s.host.page_size_bytes.v >= 4096);
	assert_true(s.host.wall_time_s.ok && s.host.wall_time_s.v > 1e9);
	gd_snapshot_release(&s);
	tree_release(&t);

	host_tree(&t, mountinfo_hybrid);
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_host, &t.ctx, &s, &err), GD_SRC_OK);
	assert_string_equal(s.host.cgroup_mode, "hybrid");
	gd_snapshot_release(&s);
	tree_release(&t);

	/* No mountinfo: /proc/mounts is the fallback. */
	tree_init(&t, "cpu");
	tree_put(&t, "proc/uptime", "10.00 20.00\n");
	tree_put(&t, "proc/sys/kernel/hostname", "h\n");
	tree_put(&t, "proc/sys/kernel/osrelease", "3.10.0-1160.el7.x86_64\n");
	tree_put(&t, "proc/mounts", mounts_v1);
	tree_link(&t, "77", "proc/self");
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_host, &t.ctx, &s, &err), GD_SRC_OK);
	assert_string_equal(s.host.cgroup_mode, "v1");
	gd_snapshot_release(&s);
	tree_release(&t);
}

static void test_host_missing(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	char path[256];

	(void)state;
	/* Everything but the uptime missing: PARTIAL, naming what is gone. */
	tree_init(&t, "cpu");
	tree_put(&t, "proc/uptime", "10.00 20.00\n");
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_host, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_true(s.host.uptime_s.ok);
	assert_string_equal(s.host.hostname, "");
	assert_false(s.host.self_pid.ok);
	assert_string_equal(s.host.cgroup_mode, "");
	assert_contains(err.msg, "hostname");
	assert_contains(err.msg, "/proc/self");
	gd_snapshot_release(&s);
	tree_release(&t);

	/* No uptime: ABSENT even though the rest is there. */
	host_tree(&t, mountinfo_v2);
	snprintf(path, sizeof path, "%s/proc/uptime", t.dir);
	assert_int_equal(unlink(path), 0);
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_host, &t.ctx, &s, &err), GD_SRC_ABSENT);
	assert_contains(err.msg, "/proc/uptime");
	assert_false(s.host.uptime_s.ok);
	assert_string_equal(s.host.hostname, "gpu-node-17");
	gd_snapshot_release(&s);
	tree_release(&t);

	/* Garbage uptime: FAILED; proc/self a directory: not a pid. */
	tree_init(&t, "cpu");
	tree_put(&t, "proc/uptime", "up a while\n");
	tree_put(&t, "proc/self/mountinfo", mountinfo_v2);
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_host, &t.ctx, &s, &err), GD_SRC_FAILED);
	assert_contains(err.msg, "/proc/uptime");
	assert_contains(err.msg, "line 1");
	assert_false(s.host.self_pid.ok);
	assert_string_equal(s.host.cgroup_mode, "v2");
	gd_snapshot_release(&s);
	tree_release(&t);
}

static void test_host_live(void **state)
{
	struct gd_root root;
	struct gd_collect_ctx ctx;
	struct gd_snapshot s;
	struct gd_err err;
	enum gd_src_status st;

	(void)state;
	live_init(&root, &ctx);
	gd_snapshot_init(&s);
	st = run(gd_collect_host, &ctx, &s, &err);
	assert_true(st != GD_SRC_FAILED && st != GD_SRC_DENIED);
	assert_true(s.host.uptime_s.ok && s.host.uptime_s.v > 0);
	assert_true(s.host.self_pid.ok);
	assert_int_equal(s.host.self_pid.v, (uint64_t)getpid());
	assert_true(s.host.kernel[0] != '\0');
	gd_snapshot_release(&s);
	gd_root_release(&root);
}

/* ---- /proc/stat -------------------------------------------------------- */

static const char stat_sample[] = "cpu  1530 0 1350 96535 378 0 28 7 0 0\n"
				  "cpu0 368 0 492 49041 9 0 7 2 0 0\n"
				  "cpu1 1161 0 858 47494 369 0 20 5 0 0\n"
				  "intr 129466 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 1 15 0 0 0 0 99 29\n"
				  "ctxt 275685\n"
				  "btime 1796007371\n"
				  "processes 3706\n"
				  "procs_running 3\n"
				  "procs_blocked 0\n"
				  "softirq 95744 0 8787 3 758 51293 0 2 20434 0 14467\n";

static void test_stat_sample(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_cpus *c;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_stat, stat_sample, &s, &err), 0);
	assert_int_equal(s.cpu.user_ticks.v, 1530);
	assert_true(s.cpu.nice_ticks.ok);
	assert_int_equal(s.cpu.nice_ticks.v, 0);
	assert_int_equal(s.cpu.system_ticks.v, 1350);
	assert_int_equal(s.cpu.idle_ticks.v, 96535);
	assert_int_equal(s.cpu.iowait_ticks.v, 378);
	assert_int_equal(s.cpu.softirq_ticks.v, 28);
	assert_true(s.cpu.steal_ticks.ok);
	assert_int_equal(s.cpu.steal_ticks.v, 7);
	assert_int_equal(s.cpu.ctxt.v, 275685);
	assert_int_equal(s.cpu.procs_running.v, 3);
	assert_true(s.cpu.procs_blocked.ok);
	assert_int_equal(s.cpu.procs_blocked.v, 0);
	assert_int_equal(s.cpu.cpus_online.v, 2);
	assert_int_equal(s.cpus.n, 2);
	c = GD_VEC_AT(s.cpus, struct gd_cpus, 1);
	assert_int_equal(c->cpu.v, 1);
	assert_int_equal(c->user_ticks.v, 1161);
	assert_int_equal(c->iowait_ticks.v, 369);
	assert_int_equal(c->steal_ticks.v, 5);
	assert_false(c->package.ok);
	/* Parsing again into the same snapshot updates, never duplicates. */
	assert_int_equal(parse_lit(gd_parse_proc_stat, stat_sample, &s, &err), 0);
	assert_int_equal(s.cpus.n, 2);
	gd_snapshot_release(&s);
}

static void test_stat_old_kernels(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	/* 2.4: four counters. */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_stat, "cpu  100 2 30 400\ncpu0 100 2 30 400\nctxt 9\n", &s, &err),
			 0);
	assert_int_equal(s.cpu.idle_ticks.v, 400);
	assert_false(s.cpu.iowait_ticks.ok);
	assert_false(s.cpu.steal_ticks.ok);
	assert_false(s.cpu.procs_running.ok);
	assert_false(GD_VEC_AT(s.cpus, struct gd_cpus, 0)->iowait_ticks.ok);
	gd_snapshot_release(&s);
	/* 2.6.0: seven. */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_stat, "cpu  1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7\n", &s, &err), 0);
	assert_int_equal(s.cpu.softirq_ticks.v, 7);
	assert_false(s.cpu.steal_ticks.ok);
	gd_snapshot_release(&s);
	/* 2.6.11: eight. */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_stat, "cpu  1 2 3 4 5 6 7 8\ncpu0 1 2 3 4 5 6 7 8\n", &s, &err), 0);
	assert_int_equal(s.cpu.steal_ticks.v, 8);
	assert_int_equal(GD_VEC_AT(s.cpus, struct gd_cpus, 0)->steal_ticks.v, 8);
	gd_snapshot_release(&s);
	/* A future kernel with an 11th counter and sparse CPU numbers. */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_stat, "cpu 1 2 3 4 5 6 7 8 9 10 11\ncpu0 1 1 1 1\ncpu7 2 2 2 2\n", &s,
				   &err),
			 0);
	assert_int_equal(s.cpus.n, 2);
	assert_int_equal(GD_VEC_AT(s.cpus, struct gd_cpus, 1)->cpu.v, 7);
	assert_int_equal(s.cpu.cpus_online.v, 2);
	gd_snapshot_release(&s);
}

static void test_stat_malformed(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	/* A bad counter skips that line only. */
	assert_int_equal(parse_lit(gd_parse_proc_stat, "cpu  1 2 3 4\ncpu0 1 2 x 4\ncpu1 1 2 3 4\n", &s, &err), 1);
	assert_contains(err.msg, "line 2");
	assert_int_equal(s.cpus.n, 1);
	assert_int_equal(GD_VEC_AT(s.cpus, struct gd_cpus, 0)->cpu.v, 1);
	gd_snapshot_release(&s);

	/* Past 2^64, truncated lines, odd names, several problems. */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_stat,
				   "cpu  18446744073709551616 0 0 0\ncpu0 1 2\ncpufoo 1 2 3 4\nctxt\nprocs_running 3\n",
				   &s, &err),
			 1);
	assert_contains(err.msg, "line 1");
	assert_contains(err.msg, "3 more");
	assert_false(s.cpu.user_ticks.ok);
	assert_false(s.cpu.ctxt.ok);
	assert_int_equal(s.cpu.procs_running.v, 3);
	assert_int_equal(s.cpus.n, 0);
	gd_snapshot_release(&s);

	/* Nothing usable. */
	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_proc_stat, "", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_stat, "intr 1 2 3\nbtime 5\n", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_stat, "cpu 1 2\n", &s, &err) < 0);
	assert_contains(err.msg, "line 1");
	assert_true(gd_parse_proc_stat("cpu  1 2 3 4\0\xff\xfe", 15, &s, &err) < 0);
	assert_contains(err.msg, "binary");
	assert_false(s.cpu.user_ticks.ok);
	gd_snapshot_release(&s);
}

/* ---- /proc/loadavg ----------------------------------------------------- */

static void test_loadavg(void **state)
{
	static const char *const bad[] = { "", "0.07 0.04\n", "a b c 1/2 3\n", "-1 0 0 1/2 3\n", "inf 1 1 1/2 3\n" };
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_loadavg, "0.07 0.04 0.01 1/80 3702\n", &s, &err), 0);
	assert_float_equal(s.cpu.load1.v, 0.07, 1e-9);
	assert_float_equal(s.cpu.load5.v, 0.04, 1e-9);
	assert_float_equal(s.cpu.load15.v, 0.01, 1e-9);
	assert_int_equal(s.cpu.threads_total.v, 80);
	gd_snapshot_release(&s);

	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_loadavg, "12.50 8.00 4.25 1-80 5\n", &s, &err), 1);
	assert_float_equal(s.cpu.load1.v, 12.5, 1e-9);
	assert_false(s.cpu.threads_total.ok);
	assert_contains(err.msg, "1-80");
	assert_int_equal(parse_lit(gd_parse_proc_loadavg, "1 2 3 1/99999999999999999999999 5", &s, &err), 1);
	assert_false(s.cpu.threads_total.ok);
	gd_snapshot_release(&s);

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		gd_snapshot_init(&s);
		assert_true(parse_lit(gd_parse_proc_loadavg, bad[i], &s, &err) < 0);
		assert_false(s.cpu.load1.ok);
		assert_true(err.msg[0] != '\0');
		gd_snapshot_release(&s);
	}
	gd_snapshot_init(&s);
	assert_true(gd_parse_proc_loadavg("0.1\0 0.2 0.3 1/2 3", 18, &s, &err) < 0);
	gd_snapshot_release(&s);
}

/* ---- /proc/cpuinfo ----------------------------------------------------- */

static const char cpuinfo_epyc[] = "processor\t: 0\n"
				   "vendor_id\t: AuthenticAMD\n"
				   "cpu family\t: 25\n"
				   "model\t\t: 17\n"
				   "model name\t: AMD EPYC\n"
				   "cpu MHz\t\t: 2596.142\n"
				   "physical id\t: 0\n"
				   "siblings\t: 2\n"
				   "core id\t\t: 0\n"
				   "cpu cores\t: 2\n"
				   "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep\n"
				   "power management:\n"
				   "\n"
				   "processor\t: 1\n"
				   "vendor_id\t: AuthenticAMD\n"
				   "model name\t: AMD EPYC\n"
				   "physical id\t: 0\n"
				   "siblings\t: 2\n"
				   "core id\t\t: 1\n"
				   "cpu cores\t: 2\n"
				   "power management:\n"
				   "\n";

/* Two sockets, one core each, two hyperthreads per core. */
static const char cpuinfo_2s_ht[] = "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n"
				    "physical id\t: 0\ncore id\t\t: 0\ncpu cores\t: 1\n\n"
				    "processor\t: 1\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n"
				    "physical id\t: 1\ncore id\t\t: 0\ncpu cores\t: 1\n\n"
				    "processor\t: 2\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n"
				    "physical id\t: 0\ncore id\t\t: 0\ncpu cores\t: 1\n\n"
				    "processor\t: 3\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n"
				    "physical id\t: 1\ncore id\t\t: 0\ncpu cores\t: 1\n\n";

/* arm64 (Grace): no model name, no topology keys. */
static const char cpuinfo_arm64[] = "processor\t: 0\nBogoMIPS\t: 2000.00\nFeatures\t: fp asimd evtstrm\n"
				    "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\n"
				    "CPU part\t: 0xd4f\nCPU revision\t: 0\n\n"
				    "processor\t: 1\nBogoMIPS\t: 2000.00\nCPU implementer\t: 0x41\n\n";

static void test_cpuinfo(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_cpuinfo, cpuinfo_epyc, &s, &err), 0);
	assert_string_equal(s.cpu.model, "AMD EPYC");
	assert_int_equal(s.cpu.cpus_online.v, 2);
	assert_int_equal(s.cpu.sockets.v, 1);
	assert_int_equal(s.cpu.cores.v, 2);
	gd_snapshot_release(&s);

	/* cpus[] from /proc/stat gets its packages; values already set stay. */
	gd_snapshot_init(&s);
	for (uint64_t i = 0; i < 4; i++)
		gd_u64_set(&GD_PUSH(&s, cpus, struct gd_cpus)->cpu, i);
	gd_u64_set(&s.cpu.cpus_online, 4);
	gd_u64_set(&s.cpu.cores, 99);
	assert_int_equal(parse_lit(gd_parse_proc_cpuinfo, cpuinfo_2s_ht, &s, &err), 0);
	assert_string_equal(s.cpu.model, "Intel(R) Xeon(R) Platinum 8480+");
	assert_int_equal(s.cpu.sockets.v, 2);
	assert_int_equal(s.cpu.cores.v, 99);
	assert_int_equal(GD_VEC_AT(s.cpus, struct gd_cpus, 3)->package.v, 1);
	assert_true(GD_VEC_AT(s.cpus, struct gd_cpus, 2)->package.ok);
	assert_int_equal(GD_VEC_AT(s.cpus, struct gd_cpus, 2)->package.v, 0);
	gd_snapshot_release(&s);

	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_cpuinfo, cpuinfo_2s_ht, &s, &err), 0);
	assert_int_equal(s.cpu.cores.v, 2);
	gd_snapshot_release(&s);

	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_cpuinfo, cpuinfo_arm64, &s, &err), 0);
	assert_string_equal(s.cpu.model, "");
	assert_int_equal(s.cpu.cpus_online.v, 2);
	assert_false(s.cpu.sockets.ok);
	assert_false(s.cpu.cores.ok);
	gd_snapshot_release(&s);

	/* No core ids: cores from "cpu cores" per package. */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_cpuinfo,
				   "processor : 0\nphysical id : 0\ncpu cores : 8\n"
				   "processor : 1\nphysical id : 1\ncpu cores : 8\n"
				   "processor : 2\nphysical id : 1\ncpu cores : 8\n",
				   &s, &err),
			 0);
	assert_int_equal(s.cpu.sockets.v, 2);
	assert_int_equal(s.cpu.cores.v, 16);
	gd_snapshot_release(&s);
}

static void test_cpuinfo_malformed(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	/* A bad physical id: no socket count (it would be over some CPUs). */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_cpuinfo,
				   "processor : 0\nmodel name : X\nphysical id : zero\ncore id : 0\n"
				   "processor : 1\nphysical id : 0\ncore id : 1\ntruncated line\n",
				   &s, &err),
			 1);
	assert_contains(err.msg, "line 3");
	assert_contains(err.msg, "1 more");
	assert_false(s.cpu.sockets.ok);
	assert_string_equal(s.cpu.model, "X");
	gd_snapshot_release(&s);

	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_cpuinfo, "processor : 99999999999999999999999\n", &s, &err), 1);
	assert_true(parse_lit(gd_parse_proc_cpuinfo, "", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_cpuinfo, "vendor_id : GenuineIntel\n", &s, &err) < 0);
	assert_true(gd_parse_proc_cpuinfo("processor : 0\0\1\2", 16, &s, &err) < 0);
	assert_contains(err.msg, "binary");
	gd_snapshot_release(&s);
}

/* ---- sysfs topology fixture -------------------------------------------- */

#define CPUD "sys/devices/system/cpu/"
#define NODED "sys/devices/system/node/"

/* Four CPUs: packages 0,0,1,1; cores 0,1,0,1; nodes 0 (0-1) and 1 (2-3). */
static void topo_tree(struct tree *t, bool numa)
{
	static const char *const pkg[] = { "0\n", "0\n", "1\n", "1\n" };
	static const char *const core[] = { "0\n", "1\n", "0\n", "1\n" };
	char rel[128];

	tree_init(t, "cpu");
	for (int i = 0; i < 4; i++) {
		snprintf(rel, sizeof rel, CPUD "cpu%d/topology/physical_package_id", i);
		tree_put(t, rel, pkg[i]);
		snprintf(rel, sizeof rel, CPUD "cpu%d/topology/core_id", i);
		tree_put(t, rel, core[i]);
	}
	tree_put(t, CPUD "online", "0-3\n");
	if (numa) {
		tree_put(t, NODED "node0/cpulist", "0-1\n");
		tree_put(t, NODED "node1/cpulist", "2,3\n");
		tree_put(t, NODED "online", "0-1\n");
	}
	tree_put(t, "proc/cpuinfo", "processor : 0\nmodel name : Fixture CPU\nphysical id : 7\ncore id : 7\n");
}

static void push_cpus(struct gd_snapshot *s, int n)
{
	for (int i = 0; i < n; i++)
		gd_u64_set(&GD_PUSH(s, cpus, struct gd_cpus)->cpu, (uint64_t)i);
}

static void test_topology_fixture(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	topo_tree(&t, true);
	gd_snapshot_init(&s);
	push_cpus(&s, 4);
	assert_int_equal(run(gd_collect_cpu_topology, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.cpu.sockets.v, 2);
	assert_int_equal(s.cpu.cores.v, 4);
	assert_int_equal(s.cpu.numa_nodes.v, 2);
	assert_string_equal(s.cpu.model, "Fixture CPU");
	/* sysfs wins over cpuinfo's "physical id : 7". */
	assert_int_equal(GD_VEC_AT(s.cpus, struct gd_cpus, 0)->package.v, 0);
	assert_int_equal(GD_VEC_AT(s.cpus, struct gd_cpus, 3)->package.v, 1);
	assert_int_equal(GD_VEC_AT(s.cpus, struct gd_cpus, 1)->numa_node.v, 0);
	assert_int_equal(GD_VEC_AT(s.cpus, struct gd_cpus, 2)->numa_node.v, 1);
	assert_int_equal(GD_VEC_AT(s.cpus, struct gd_cpus, 3)->numa_node.v, 1);
	gd_snapshot_release(&s);

	/* Empty cpus[] (no /proc/stat): the cpuN directories are the list. */
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_cpu_topology, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.cpus.n, 4);
	assert_int_equal(GD_VEC_AT(s.cpus, struct gd_cpus, 2)->cpu.v, 2);
	assert_int_equal(s.cpu.cores.v, 4);
	gd_snapshot_release(&s);
	tree_release(&t);

	/* Only CPUs 2 and 3 online: one socket, two cores. */
	topo_tree(&t, true);
	gd_snapshot_init(&s);
	gd_u64_set(&GD_PUSH(&s, cpus, struct gd_cpus)->cpu, 2);
	gd_u64_set(&GD_PUSH(&s, cpus, struct gd_cpus)->cpu, 3);
	assert_int_equal(run(gd_collect_cpu_topology, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.cpu.sockets.v, 1);
	assert_int_equal(s.cpu.cores.v, 2);
	gd_snapshot_release(&s);
	tree_release(&t);
}

static void test_topology_broken(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	char path[256];

	(void)state;
	/* No node directory: PARTIAL, the rest still read. */
	topo_tree(&t, false);
	gd_snapshot_init(&s);
	push_cpus(&s, 4);
	assert_int_equal(run(gd_collect_cpu_topology, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_contains(err.msg, "node");
	assert_false(s.cpu.numa_nodes.ok);
	assert_int_equal(s.cpu.sockets.v, 2);
	gd_snapshot_release(&s);
	tree_release(&t);

	/*
	 * As root EACCES cannot be provoked: a package id that is a directory
	 * (EISDIR), a core id that is garbage, a package of -1 instead.
	 */
	topo_tree(&t, true);
	snprintf(path, sizeof path, "%s/" CPUD "cpu1/topology/physical_package_id", t.dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	tree_put(&t, CPUD "cpu2/topology/core_id", "\x01garbage\n");
	tree_put(&t, CPUD "cpu3/topology/physical_package_id", "-1\n");
	gd_snapshot_init(&s);
	push_cpus(&s, 4);
	assert_int_equal(run(gd_collect_cpu_topology, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_contains(err.msg, "cpu1/topology/physical_package_id");
	assert_contains(err.msg, "3 of 4 CPUs");
	assert_false(s.cpu.sockets.ok);
	assert_false(s.cpu.cores.ok);
	assert_true(GD_VEC_AT(s.cpus, struct gd_cpus, 0)->package.ok);
	/* cpu1 and cpu3 fall back to cpuinfo only where it knows them: not here. */
	assert_false(GD_VEC_AT(s.cpus, struct gd_cpus, 3)->package.ok);
	assert_int_equal(s.cpu.numa_nodes.v, 2);
	gd_snapshot_release(&s);
	tree_release(&t);

	/* A cpulist that is a directory: the cpuN/nodeM links place the CPUs. */
	topo_tree(&t, true);
	snprintf(path, sizeof path, "%s/" NODED "node1/cpulist", t.dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	tree_link(&t, "../../node/node1", CPUD "cpu2/node1");
	gd_snapshot_init(&s);
	push_cpus(&s, 4);
	assert_int_equal(run(gd_collect_cpu_topology, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_contains(err.msg, "node1/cpulist");
	assert_contains(err.msg, "1 CPUs in no NUMA node");
	assert_int_equal(GD_VEC_AT(s.cpus, struct gd_cpus, 2)->numa_node.v, 1);
	assert_false(GD_VEC_AT(s.cpus, struct gd_cpus, 3)->numa_node.ok);
	gd_snapshot_release(&s);
	tree_release(&t);
}

static void test_topology_fallback(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	/* No sysfs: cpuinfo gives the topology; still PARTIAL (no NUMA). */
	tree_init(&t, "cpu");
	tree_put(&t, "proc/cpuinfo", cpuinfo_2s_ht);
	gd_snapshot_init(&s);
	push_cpus(&s, 4);
	assert_int_equal(run(gd_collect_cpu_topology, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_contains(err.msg, "/proc/cpuinfo");
	assert_int_equal(s.cpu.sockets.v, 2);
	assert_int_equal(s.cpu.cores.v, 2);
	assert_int_equal(GD_VEC_AT(s.cpus, struct gd_cpus, 1)->package.v, 1);
	gd_snapshot_release(&s);
	tree_release(&t);

	/* Nothing at all: ABSENT. */
	tree_init(&t, "cpu");
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_cpu_topology, &t.ctx, &s, &err), GD_SRC_ABSENT);
	assert_contains(err.msg, "cpuinfo");
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* ---- cpufreq fixture --------------------------------------------------- */

static void freq_cpu(struct tree *t, int cpu, const char *gov, const char *cur)
{
	char rel[128];

	snprintf(rel, sizeof rel, CPUD "cpu%d/cpufreq/scaling_governor", cpu);
	tree_put(t, rel, gov);
	snprintf(rel, sizeof rel, CPUD "cpu%d/cpufreq/scaling_driver", cpu);
	tree_put(t, rel, "intel_pstate\n");
	snprintf(rel, sizeof rel, CPUD "cpu%d/cpufreq/scaling_cur_freq", cpu);
	tree_put(t, rel, cur);
	snprintf(rel, sizeof rel, CPUD "cpu%d/cpufreq/cpuinfo_max_freq", cpu);
	tree_put(t, rel, "3800000\n");
}

static void throttle_cpu(struct tree *t, int cpu, const char *core, const char *pkg)
{
	char rel[128];

	snprintf(rel, sizeof rel, CPUD "cpu%d/thermal_throttle/core_throttle_count", cpu);
	tree_put(t, rel, core);
	snprintf(rel, sizeof rel, CPUD "cpu%d/thermal_throttle/package_throttle_count", cpu);
	tree_put(t, rel, pkg);
}

static void test_cpufreq_fixture(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_cpus *c;

	(void)state;
	tree_init(&t, "cpu");
	freq_cpu(&t, 0, "performance\n", "2000000\n");
	freq_cpu(&t, 1, "powersave\n", "800000\n");
	throttle_cpu(&t, 0, "0\n", "12\n");
	throttle_cpu(&t, 1, "3\n", "12\n");
	gd_snapshot_init(&s);
	push_cpus(&s, 2);
	assert_int_equal(run(gd_collect_cpufreq, &t.ctx, &s, &err), GD_SRC_OK);
	c = GD_VEC_AT(s.cpus, struct gd_cpus, 0);
	assert_string_equal(c->governor, "performance");
	assert_string_equal(c->freq_driver, "intel_pstate");
	assert_int_equal(c->cur_khz.v, 2000000);
	assert_int_equal(c->max_khz.v, 3800000);
	assert_true(c->core_throttle_count.ok);
	assert_int_equal(c->core_throttle_count.v, 0);
	assert_int_equal(c->package_throttle_count.v, 12);
	c = GD_VEC_AT(s.cpus, struct gd_cpus, 1);
	assert_string_equal(c->governor, "powersave");
	assert_int_equal(c->cur_khz.v, 800000);
	assert_int_equal(c->core_throttle_count.v, 3);
	gd_snapshot_release(&s);

	/* A CPU without cpufreq among ones with it. */
	gd_snapshot_init(&s);
	push_cpus(&s, 3);
	assert_int_equal(run(gd_collect_cpufreq, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_contains(err.msg, "2 of 3");
	gd_snapshot_release(&s);
	tree_release(&t);
}

static void test_cpufreq_absent_and_broken(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_cpus *c;
	char path[256];

	(void)state;
	/* A VM: the cpu directory without cpufreq or thermal_throttle. */
	tree_init(&t, "cpu");
	tree_put(&t, CPUD "cpu0/topology/core_id", "0\n");
	tree_put(&t, CPUD "cpufreq/boost", "0\n");
	gd_snapshot_init(&s);
	push_cpus(&s, 1);
	assert_int_equal(run(gd_collect_cpufreq, &t.ctx, &s, &err), GD_SRC_ABSENT);
	assert_string_equal(err.msg, "no cpufreq in /sys/devices/system/cpu (virtual machine or driver not loaded)");
	gd_snapshot_release(&s);

	/* No CPU list at all. */
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_cpufreq, &t.ctx, &s, &err), GD_SRC_ABSENT);
	gd_snapshot_release(&s);

	/* thermal_throttle only: the counts, and PARTIAL for the missing cpufreq. */
	throttle_cpu(&t, 0, "5\n", "6\n");
	gd_snapshot_init(&s);
	push_cpus(&s, 1);
	assert_int_equal(run(gd_collect_cpufreq, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_contains(err.msg, "no cpufreq");
	c = GD_VEC_AT(s.cpus, struct gd_cpus, 0);
	assert_int_equal(c->core_throttle_count.v, 5);
	assert_int_equal(c->package_throttle_count.v, 6);
	assert_false(c->cur_khz.ok);
	gd_snapshot_release(&s);
	tree_release(&t);

	/* "<unknown>" frequency, a governor that is a directory, a huge count. */
	tree_init(&t, "cpu");
	freq_cpu(&t, 0, "schedutil\n", "<unknown>\n");
	freq_cpu(&t, 1, "x\n", "1000000\n");
	snprintf(path, sizeof path, "%s/" CPUD "cpu1/cpufreq/scaling_governor", t.dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	throttle_cpu(&t, 1, "18446744073709551616\n", "1\n");
	gd_snapshot_init(&s);
	push_cpus(&s, 2);
	assert_int_equal(run(gd_collect_cpufreq, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_contains(err.msg, "cpu0/cpufreq/scaling_cur_freq");
	assert_contains(err.msg, "2 more");
	c = GD_VEC_AT(s.cpus, struct gd_cpus, 0);
	assert_string_equal(c->governor, "schedutil");
	assert_false(c->cur_khz.ok);
	assert_int_equal(c->max_khz.v, 3800000);
	c = GD_VEC_AT(s.cpus, struct gd_cpus, 1);
	assert_string_equal(c->governor, "");
	assert_int_equal(c->cur_khz.v, 1000000);
	assert_false(c->core_throttle_count.ok);
	assert_int_equal(c->package_throttle_count.v, 1);
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* ---- the live machine -------------------------------------------------- */

static void test_cpu_live(void **state)
{
	struct gd_root root;
	struct gd_collect_ctx ctx;
	struct gd_snapshot s;
	struct gd_err err;
	enum gd_src_status st;

	(void)state;
	live_init(&root, &ctx);
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_proc_stat, &ctx, &s, &err), GD_SRC_OK);
	assert_true(s.cpu.user_ticks.ok && s.cpu.idle_ticks.ok && s.cpu.ctxt.ok);
	assert_int_equal(s.cpus.n, s.cpu.cpus_online.v);
	assert_int_equal(s.cpu.cpus_online.v, (uint64_t)sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(run(gd_collect_proc_loadavg, &ctx, &s, &err), GD_SRC_OK);
	assert_true(s.cpu.load1.ok && s.cpu.threads_total.ok && s.cpu.threads_total.v > 0);

	st = run(gd_collect_cpu_topology, &ctx, &s, &err);
	assert_true(st != GD_SRC_FAILED && st != GD_SRC_DENIED);
	if (st == GD_SRC_OK) {
		assert_true(s.cpu.sockets.ok && s.cpu.sockets.v >= 1);
		assert_true(s.cpu.cores.ok && s.cpu.cores.v >= s.cpu.sockets.v);
		assert_true(s.cpu.cores.v <= s.cpu.cpus_online.v);
		assert_true(s.cpu.numa_nodes.ok);
	}

	st = run(gd_collect_cpufreq, &ctx, &s, &err);
	assert_true(st != GD_SRC_FAILED && st != GD_SRC_DENIED);
	if (st == GD_SRC_OK)
		assert_true(GD_VEC_AT(s.cpus, struct gd_cpus, 0)->cur_khz.ok);
	gd_snapshot_release(&s);
	gd_root_release(&root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uptime_sample),
		cmocka_unit_test(test_uptime_malformed),
		cmocka_unit_test(test_host_fixture),
		cmocka_unit_test(test_host_missing),
		cmocka_unit_test(test_host_live),
		cmocka_unit_test(test_stat_sample),
		cmocka_unit_test(test_stat_old_kernels),
		cmocka_unit_test(test_stat_malformed),
		cmocka_unit_test(test_loadavg),
		cmocka_unit_test(test_cpuinfo),
		cmocka_unit_test(test_cpuinfo_malformed),
		cmocka_unit_test(test_topology_fixture),
		cmocka_unit_test(test_topology_broken),
		cmocka_unit_test(test_topology_fallback),
		cmocka_unit_test(test_cpufreq_fixture),
		cmocka_unit_test(test_cpufreq_absent_and_broken),
		cmocka_unit_test(test_cpu_live),
	};

	return cmocka_run_group_tests(tests, NULL, tree_sweep);
}
