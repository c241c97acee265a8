/*
 * test_collect_mem.c - /proc/pressure, /proc/meminfo and /proc/vmstat:
 * real samples, older kernels, malformed input, fixture roots and the live
 * machine.
 */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- /proc/pressure ---------------------------------------------------- */

/* 5.13+: cpu has a full line of zeros. */
static const char psi_cpu[] = "some avg10=0.20 avg60=0.21 avg300=0.21 total=3141731\n"
			      "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
/* 4.20-5.12: cpu has no full line. */
static const char psi_cpu_old[] = "some avg10=12.50 avg60=3.00 avg300=1.00 total=987654321\n";
static const char psi_mem[] = "some avg10=0.03 avg60=0.50 avg300=0.39 total=3724141\n"
			      "full avg10=0.02 avg60=0.50 avg300=0.38 total=3628821\n";
static const char psi_io[] = "some avg10=1.00 avg60=0.00 avg300=0.00 total=10\n"
			     "full avg10=0.50 avg60=0.00 avg300=0.00 total=5\n";

static void test_psi_samples(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_pressure_cpu, psi_cpu, &s, &err), 0);
	assert_float_equal(s.psi.cpu_some_avg10.v, 0.20, 1e-9);
	assert_float_equal(s.psi.cpu_some_avg60.v, 0.21, 1e-9);
	assert_int_equal(s.psi.cpu_some_total_us.v, 3141731);
	assert_int_equal(parse_lit(gd_parse_proc_pressure_cpu, psi_cpu_old, &s, &err), 0);
	assert_float_equal(s.psi.cpu_some_avg10.v, 12.5, 1e-9);
	assert_int_equal(s.psi.cpu_some_total_us.v, 987654321);

	assert_int_equal(parse_lit(gd_parse_proc_pressure_memory, psi_mem, &s, &err), 0);
	assert_float_equal(s.psi.memory_some_avg10.v, 0.03, 1e-9);
	assert_float_equal(s.psi.memory_full_avg10.v, 0.02, 1e-9);
	assert_int_equal(s.psi.memory_some_total_us.v, 3724141);
	assert_int_equal(s.psi.memory_full_total_us.v, 3628821);

	assert_int_equal(parse_lit(gd_parse_proc_pressure_io, psi_io, &s, &err), 0);
	assert_float_equal(s.psi.io_some_avg10.v, 1.0, 1e-9);
	assert_float_equal(s.psi.io_full_avg10.v, 0.5, 1e-9);
	assert_int_equal(s.psi.io_some_total_us.v, 10);
	assert_int_equal(s.psi.io_full_total_us.v, 5);
	/* io must not have touched memory. */
	assert_int_equal(s.psi.memory_full_total_us.v, 3628821);
	gd_snapshot_release(&s);

	/* Unknown extra keys are ignored. */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_pressure_io,
				   "some avg10=0.00 avg60=0.00 avg300=0.00 total=0 avg1=9\n"
				   "full avg10=0.00 avg60=0.00 avg300=0.00 total=7\n",
				   &s, &err),
			 0);
	assert_true(s.psi.io_some_total_us.ok);
	assert_int_equal(s.psi.io_full_total_us.v, 7);
	gd_snapshot_release(&s);
}

static void test_psi_malformed(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	/* memory without its full line: PARTIAL, some kept. */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_pressure_memory, "some avg10=1.00 avg60=0 avg300=0 total=4\n", &s,
				   &err),
			 1);
	assert_contains(err.msg, "no full line");
	assert_int_equal(s.psi.memory_some_total_us.v, 4);
	assert_false(s.psi.memory_full_total_us.ok);
	gd_snapshot_release(&s);

	/* Bad values: not a number, over 100 %, past 2^64, truncated. */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_pressure_io,
				   "some avg10=abc avg60=0.00 avg300=0.00 total=5\n"
				   "full avg10=0.00 avg60=0.00 avg300=0.00 total=18446744073709551616\n",
				   &s, &err),
			 1);
	assert_contains(err.msg, "line 1");
	assert_contains(err.msg, "avg10=abc");
	assert_contains(err.msg, "1 more");
	assert_false(s.psi.io_some_avg10.ok);
	assert_false(s.psi.io_full_total_us.ok);
	assert_float_equal(s.psi.io_full_avg10.v, 0.0, 0);
	assert_true(s.psi.io_full_avg10.ok);
	gd_snapshot_release(&s);

	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_pressure_cpu, "some avg10=100.01 avg60=0 avg300=0 total=1\n", &s, &err),
			 1);
	assert_false(s.psi.cpu_some_avg10.ok);
	assert_int_equal(parse_lit(gd_parse_proc_pressure_cpu, "some avg10=0.00 avg60\n", &s, &err), 1);
	assert_contains(err.msg, "avg60");
	assert_int_equal(parse_lit(gd_parse_proc_pressure_cpu, "some avg10=0.00\n", &s, &err), 1);
	assert_contains(err.msg, "lacks");
	assert_int_equal(parse_lit(gd_parse_proc_pressure_cpu, psi_cpu_old, &s, &err), 0);
	assert_int_equal(parse_lit(gd_parse_proc_pressure_cpu, "bogus 1 2\nsome avg10=1 avg60=1 avg300=1 total=2\n", &s,
				   &err),
			 1);
	assert_contains(err.msg, "bogus");
	gd_snapshot_release(&s);

	/* Nothing usable. */
	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_proc_pressure_cpu, "", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_pressure_cpu, "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", &s, &err) <
		    0);
	assert_contains(err.msg, "no some line");
	assert_true(parse_lit(gd_parse_proc_pressure_memory, "nonsense\n", &s, &err) < 0);
	assert_true(gd_parse_proc_pressure_io("some avg10=0.00\0\0", 17, &s, &err) < 0);
	assert_contains(err.msg, "binary");
	assert_false(s.psi.cpu_some_avg10.ok);
	assert_false(s.psi.memory_some_avg10.ok);
	assert_false(s.psi.io_some_avg10.ok);
	gd_snapshot_release(&s);
}

static void test_psi_collector(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	tree_init(&t, "mem");
	/* PSI disabled: no files. */
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_proc_pressure, &t.ctx, &s, &err), GD_SRC_ABSENT);
	assert_string_equal(err.msg, "PSI not enabled in this kernel (needs CONFIG_PSI and psi=1)");
	gd_snapshot_release(&s);

	tree_put(&t, "proc/pressure/cpu", psi_cpu);
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_proc_pressure, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_contains(err.msg, "/proc/pressure/");
	assert_int_equal(s.psi.cpu_some_total_us.v, 3141731);
	gd_snapshot_release(&s);

	tree_put(&t, "proc/pressure/memory", psi_mem);
	tree_put(&t, "proc/pressure/io", psi_io);
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_proc_pressure, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.psi.io_full_total_us.v, 5);
	gd_snapshot_release(&s);

	tree_put(&t, "proc/pressure/memory", "some avg10=x avg60=0 avg300=0 total=1\nfull avg10=0 avg60=0 avg300=0 total=1\n");
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_proc_pressure, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_contains(err.msg, "/proc/pressure/memory: line 1");
	gd_snapshot_release(&s);

	tree_put(&t, "proc/pressure/cpu", "garbage\n");
	tree_put(&t, "proc/pressure/memory", "garbage\n");
	tree_put(&t, "proc/pressure/io", "garbage\n");
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_proc_pressure, &t.ctx, &s, &err), GD_SRC_FAILED);
	assert_contains(err.msg, "garbage");
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* ---- /proc/meminfo ----------------------------------------------------- */

static const char meminfo_sample[] = "MemTotal:       24684096 kB\n"
				     "MemFree:        24184872 kB\n"
				     "MemAvailable:   24368672 kB\n"
				     "Buffers:            5168 kB\n"
				     "Cached:           368312 kB\n"
				     "SwapCached:            0 kB\n"
				     "Active(anon):       1512 kB\n"
				     "SwapTotal:             0 kB\n"
				     "SwapFree:              0 kB\n"
				     "Dirty:               168 kB\n"
				     "Writeback:             0 kB\n"
				     "Shmem:              8788 kB\n"
				     "VmallocTotal:   34359738367 kB\n"
				     "HardwareCorrupted:     4 kB\n"
				     "HugePages_Total:       0\n"
				     "Hugepagesize:       2048 kB\n"
				     "DirectMap1G:    25165824 kB\n";

/* 3.10 (RHEL 7 before the backport): no MemAvailable, no HardwareCorrupted. */
static const char meminfo_old[] = "MemTotal:        1017324 kB\n"
				  "MemFree:          616048 kB\n"
				  "Buffers:            2092 kB\n"
				  "Cached:           245948 kB\n"
				  "SwapTotal:       2097148 kB\n"
				  "SwapFree:        2097148 kB\n"
				  "Dirty:                 8 kB\n";

static void test_meminfo(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_meminfo, meminfo_sample, &s, &err), 0);
	assert_int_equal(s.mem.total_bytes.v, 24684096ull * 1024);
	assert_int_equal(s.mem.free_bytes.v, 24184872ull * 1024);
	assert_int_equal(s.mem.available_bytes.v, 24368672ull * 1024);
	assert_int_equal(s.mem.buffers_bytes.v, 5168ull * 1024);
	assert_int_equal(s.mem.cached_bytes.v, 368312ull * 1024);
	assert_int_equal(s.mem.shmem_bytes.v, 8788ull * 1024);
	assert_int_equal(s.mem.dirty_bytes.v, 168ull * 1024);
	assert_true(s.mem.writeback_bytes.ok);
	assert_int_equal(s.mem.writeback_bytes.v, 0);
	assert_true(s.mem.swap_total_bytes.ok);
	assert_true(s.mem.swap_free_bytes.ok);
	assert_int_equal(s.mem.hardware_corrupted_bytes.v, 4096);
	gd_snapshot_release(&s);

	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_meminfo, meminfo_old, &s, &err), 0);
	assert_false(s.mem.available_bytes.ok);
	assert_false(s.mem.shmem_bytes.ok);
	assert_false(s.mem.hardware_corrupted_bytes.ok);
	assert_int_equal(s.mem.swap_total_bytes.v, 2097148ull * 1024);
	gd_snapshot_release(&s);
}

static void test_meminfo_malformed(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_meminfo,
				   "MemTotal:       1000 kB\n"
				   "MemFree:        abc kB\n"
				   "Cached:         5\n"
				   "Buffers:        18014398509481984 kB\n"
				   "Dirty:          99999999999999999999999 kB\n"
				   "Mem\n",
				   &s, &err),
			 1);
	assert_contains(err.msg, "line 2");
	assert_contains(err.msg, "MemFree");
	assert_contains(err.msg, "4 more");
	assert_int_equal(s.mem.total_bytes.v, 1024000);
	assert_false(s.mem.free_bytes.ok);
	assert_false(s.mem.cached_bytes.ok);
	assert_false(s.mem.buffers_bytes.ok);
	assert_false(s.mem.dirty_bytes.ok);
	gd_snapshot_release(&s);

	/* No MemTotal: PARTIAL. */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_meminfo, "MemFree: 5 kB\n", &s, &err), 1);
	assert_contains(err.msg, "MemTotal");
	assert_int_equal(s.mem.free_bytes.v, 5120);
	gd_snapshot_release(&s);

	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_proc_meminfo, "", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_meminfo, "Foo: 1 kB\nBar: 2 kB\n", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_meminfo, "MemTotal: x kB\n", &s, &err) < 0);
	assert_contains(err.msg, "line 1");
	assert_true(gd_parse_proc_meminfo("MemTotal: 1 kB\n\0\xff", 17, &s, &err) < 0);
	assert_contains(err.msg, "binary");
	assert_false(s.mem.total_bytes.ok);
	gd_snapshot_release(&s);
}

/* ---- /proc/vmstat ------------------------------------------------------ */

static const char vmstat_sample[] = "nr_free_pages 6046218\n"
				    "nr_dirty 42\n"
				    "pgpgin 473180\n"
				    "pswpin 11\n"
				    "pswpout 22\n"
				    "pgfault 1204716\n"
				    "pgmajfault 976\n"
				    "allocstall_dma 0\n"
				    "allocstall_dma32 1\n"
				    "allocstall_normal 40\n"
				    "allocstall_movable 2\n"
				    "allocstall_device 0\n"
				    "pgskip_normal 0\n"
				    "oom_kill 3\n"
				    "compact_stall 0\n";

/* 4.4: one allocstall, no oom_kill. */
static const char vmstat_old[] = "pswpin 0\npswpout 0\npgmajfault 5\nallocstall 42\npgrotated 7\n";

static void test_vmstat(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_vmstat, vmstat_sample, &s, &err), 0);
	assert_int_equal(s.mem.pswpin.v, 11);
	assert_int_equal(s.mem.pswpout.v, 22);
	assert_int_equal(s.mem.pgmajfault.v, 976);
	assert_int_equal(s.mem.oom_kill.v, 3);
	assert_int_equal(s.mem.allocstall.v, 43);
	gd_snapshot_release(&s);

	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_vmstat, vmstat_old, &s, &err), 0);
	assert_int_equal(s.mem.allocstall.v, 42);
	assert_false(s.mem.oom_kill.ok);
	assert_true(s.mem.pswpin.ok);
	assert_int_equal(s.mem.pswpin.v, 0);
	gd_snapshot_release(&s);

	/* No allocstall at all (a kernel without it): absent, not 0. */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_vmstat, "pgmajfault 1\n", &s, &err), 0);
	assert_false(s.mem.allocstall.ok);
	gd_snapshot_release(&s);
}

static void test_vmstat_malformed(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	/* One bad zone: the sum would be a guess, so it stays absent. */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_vmstat,
				   "pswpin 1\nallocstall_dma32 x\nallocstall_normal 4\npswpout\noom_kill 18446744073709551616\n",
				   &s, &err),
			 1);
	assert_contains(err.msg, "line 2");
	assert_contains(err.msg, "allocstall_dma32");
	assert_contains(err.msg, "2 more");
	assert_false(s.mem.allocstall.ok);
	assert_false(s.mem.pswpout.ok);
	assert_false(s.mem.oom_kill.ok);
	assert_int_equal(s.mem.pswpin.v, 1);
	gd_snapshot_release(&s);

	/* The sum overflowing 64 bits. */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_vmstat,
				   "allocstall_normal 18446744073709551615\nallocstall_movable 1\npgmajfault 3\n", &s,
				   &err),
			 1);
	assert_contains(err.msg, "overflow");
	assert_false(s.mem.allocstall.ok);
	gd_snapshot_release(&s);

	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_proc_vmstat, "", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_vmstat, "nr_free_pages 1\npgfault 2\n", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_proc_vmstat, "pswpin -1\n", &s, &err) < 0);
	assert_contains(err.msg, "line 1");
	assert_true(gd_parse_proc_vmstat("pswpin 1\0pswpout 2\n", 19, &s, &err) < 0);
	assert_contains(err.msg, "binary");
	assert_false(s.mem.pswpin.ok);
	gd_snapshot_release(&s);
}

static void test_mem_collectors(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	tree_init(&t, "mem");
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_proc_meminfo, &t.ctx, &s, &err), GD_SRC_ABSENT);
	assert_contains(err.msg, "/proc/meminfo");
	assert_int_equal(run(gd_collect_proc_vmstat, &t.ctx, &s, &err), GD_SRC_ABSENT);
	tree_put(&t, "proc/meminfo", meminfo_old);
	tree_put(&t, "proc/vmstat", "pswpin x\n");
	assert_int_equal(run(gd_collect_proc_meminfo, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.mem.total_bytes.v, 1017324ull * 1024);
	assert_int_equal(run(gd_collect_proc_vmstat, &t.ctx, &s, &err), GD_SRC_FAILED);
	assert_contains(err.msg, "/proc/vmstat: line 1");
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* ---- the live machine -------------------------------------------------- */

static void test_mem_live(void **state)
{
	struct gd_root root;
	struct gd_collect_ctx ctx;
	struct gd_snapshot s;
	struct gd_err err;
	enum gd_src_status st;

	(void)state;
	assert_int_equal(gd_root_open(&root, "/", &err), 0);
	ctx.root = &root;
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_proc_meminfo, &ctx, &s, &err), GD_SRC_OK);
	assert_true(s.mem.total_bytes.ok && s.mem.total_bytes.v > 0);
	assert_true(s.mem.free_bytes.v <= s.mem.total_bytes.v);
	assert_int_equal(run(gd_collect_proc_vmstat, &ctx, &s, &err), GD_SRC_OK);
	assert_true(s.mem.pgmajfault.ok);
	st = run(gd_collect_proc_pressure, &ctx, &s, &err);
	assert_true(st == GD_SRC_OK || st == GD_SRC_ABSENT);
	if (st == GD_SRC_OK) {
		assert_true(s.psi.cpu_some_total_us.ok);
		assert_true(s.psi.memory_full_total_us.ok);
		assert_true(s.psi.io_some_avg10.ok);
	}
	gd_snapshot_release(&s);
	gd_root_release(&root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_psi_samples),
		cmocka_unit_test(test_psi_malformed),
		cmocka_unit_test(test_psi_collector),
		cmocka_unit_test(test_meminfo),
		cmocka_unit_test(test_meminfo_malformed),
		cmocka_unit_test(test_vmstat),
		cmocka_unit_test(test_vmstat_malformed),
		cmocka_unit_test(test_mem_collectors),
		cmocka_unit_test(test_mem_live),
	};

	return cmocka_run_group_tests(tests, NULL, tree_sweep);
}
