/*
 * test_collect_cgroup_shm.c - /dev/shm and cgroup collectors: the mountinfo,
 * cpu.stat and memory.events parsers on real samples and malformed input;
 * v1 and v2 cgroup fixture trees (with and without a cgroup namespace);
 * /dev/shm per mount namespace of GPU jobs; and both collectors on this
 * machine (cgroup v1, hybrid).
 */
#include "fixture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/vfs.h>

static void add_job(struct gd_snapshot *s, uint64_t pid, const char *mntns, int nvidia)
{
	struct gd_proc *p = GD_PUSH(s, procs, struct gd_proc);

	gd_u64_set(&p->pid, pid);
	gd_u64_set(&p->ppid, 1);
	gd_u64_set(&p->nvidia_fds, (uint64_t)nvidia);
	GD_STRSET(p->mntns, mntns);
}

static struct gd_shm *shm_at(struct gd_snapshot *s, size_t i)
{
	assert_true(i < s->shm.n);
	return GD_VEC_AT(s->shm, struct gd_shm, i);
}

static struct gd_cgroup *cg_at(struct gd_snapshot *s, size_t i)
{
	assert_true(i < s->cgroups.n);
	return GD_VEC_AT(s->cgroups, struct gd_cgroup, i);
}

/* ---- mountinfo ---------------------------------------------------------- */

/* This machine's /proc/self/mountinfo (two /dev/shm mounts, the upper last). */
static const char mi_host[] =
	"22 27 0:21 / /proc rw,relatime - proc proc rw\n"
	"23 27 0:22 / /sys rw,relatime - sysfs sysfs rw\n"
	"24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=12334524k,nr_inodes=3083631,mode=755\n"
	"25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684096k\n"
	"26 24 0:24 / /dev/pts rw,relatime - devpts devpts rw,mode=600,ptmxmode=000\n"
	"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict,resuid=65534,resgid=65534\n"
	"30 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684096k\n"
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

/* A Docker container (systemd host, optional fields present). */
static const char mi_docker[] =
	"1049 945 0:120 / / rw,relatime master:590 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/A\n"
	"1050 1049 0:123 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n"
	"1051 1049 0:124 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755,inode64\n"
	"1055 1051 0:122 / /dev/mqueue rw,nosuid,nodev,noexec,relatime - mqueue mqueue rw\n"
	"1056 1049 0:125 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro\n"
	"1057 1056 0:30 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup rw,nsdelegate\n"
	"1058 1051 0:121 / /dev/shm rw,nosuid,nodev,noexec,relatime shared:7 master:3 - tmpfs shm rw,size=65536k,inode64\n"
	"1059 1049 259:2 /var/lib/docker/containers/ab/resolv.conf /etc/resolv.conf rw,relatime - ext4 /dev/nvme0n1p2 rw\n";

static void test_mountinfo(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_shm *sh;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_pid_mountinfo, mi_docker, &s, &err), 0);
	assert_int_equal(s.shm.n, 1);
	sh = shm_at(&s, 0);
	assert_true(sh->mounted.ok && sh->mounted.v == 1);
	assert_string_equal(sh->fstype, "tmpfs");
	assert_true(sh->size_bytes.ok);
	assert_int_equal(sh->size_bytes.v, 67108864);
	assert_false(sh->used_bytes.ok);

	assert_int_equal(parse_lit(gd_parse_proc_pid_mountinfo, mi_host, &s, &err), 0);
	assert_int_equal(s.shm.n, 1);
	assert_int_equal(sh->size_bytes.v, 24684096ull * 1024);

	/* The last /dev/shm entry wins (it is on top), sizes in m and g. */
	assert_int_equal(parse_lit(gd_parse_proc_pid_mountinfo,
				   "1 0 0:1 / / rw - ext4 /dev/sda rw\n"
				   "2 1 0:2 / /dev/shm rw - tmpfs tmpfs rw,size=64m\n"
				   "3 2 0:3 / /dev/shm rw - tmpfs shm rw,size=2g,nr_inodes=10\n",
				   &s, &err),
			 0);
	assert_int_equal(sh->size_bytes.v, 2ull << 30);
	/* No size= option: mounted, size unknown. */
	assert_int_equal(parse_lit(gd_parse_proc_pid_mountinfo,
				   "1 0 0:1 / / rw - ext4 /dev/sda rw\n2 1 0:2 / /dev/shm rw - ramfs none rw\n", &s, &err),
			 0);
	assert_int_equal(sh->mounted.v, 1);
	assert_string_equal(sh->fstype, "ramfs");
	assert_false(sh->size_bytes.ok);

	/* No /dev/shm mount (the escaped "/dev/shm x" is another one). */
	assert_int_equal(parse_lit(gd_parse_proc_pid_mountinfo,
				   "1 0 0:1 / / rw - ext4 /dev/sda rw\n"
				   "2 1 0:2 / /dev/shm\\040x rw - tmpfs tmpfs rw,size=64k\n"
				   "3 1 0:3 / /dev rw - devtmpfs udev rw,size=1000k\n",
				   &s, &err),
			 0);
	assert_true(sh->mounted.ok);
	assert_int_equal(sh->mounted.v, 0);
	assert_string_equal(sh->fstype, "");
	assert_false(sh->size_bytes.ok);
	/* An escaped mount point that unescapes to /dev/shm matches. */
	assert_int_equal(parse_lit(gd_parse_proc_pid_mountinfo,
				   "2 1 0:2 / /dev/\\163hm rw - tmpfs tmpfs rw,size=8k\n", &s, &err),
			 0);
	assert_int_equal(sh->mounted.v, 1);
	assert_int_equal(sh->size_bytes.v, 8192);
	gd_snapshot_release(&s);
}

static void test_mountinfo_malformed(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_shm *sh;
	const char bin[] = "1 0 0:1 / /dev/shm rw - tmpfs\0 tmpfs rw\n";

	(void)state;
	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_proc_pid_mountinfo, "", &s, &err) < 0);
	assert_non_null(strstr(err.msg, "no mount entries"));
	sh = shm_at(&s, 0);
	assert_false(sh->mounted.ok);
	/* No "-" separator, truncated after it. */
	assert_true(parse_lit(gd_parse_proc_pid_mountinfo, "1 0 0:1 / /dev/shm rw tmpfs tmpfs rw\n", &s, &err) < 0);
	assert_non_null(strstr(err.msg, "line 1"));
	assert_true(parse_lit(gd_parse_proc_pid_mountinfo, "1 0 0:1 / /dev/shm rw - tmpfs tmpfs\n", &s, &err) < 0);
	gd_err_clear(&err);
	assert_true(gd_parse_proc_pid_mountinfo(bin, sizeof bin - 1, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "binary"));
	assert_false(sh->mounted.ok);
	/* A bad line among good ones: partial, the line named. */
	assert_int_equal(parse_lit(gd_parse_proc_pid_mountinfo,
				   "1 0 0:1 / / rw - ext4 /dev/sda rw\ngarbage\n2 1 0:2 / /dev/shm rw - tmpfs t rw,size=4k\n",
				   &s, &err),
			 1);
	assert_non_null(strstr(err.msg, "line 2"));
	assert_int_equal(sh->size_bytes.v, 4096);
	/* A size past 2^64 bytes, and a junk size: mounted, size absent. */
	assert_int_equal(parse_lit(gd_parse_proc_pid_mountinfo,
				   "2 1 0:2 / /dev/shm rw - tmpfs t rw,size=99999999999999999999k\n", &s, &err),
			 1);
	assert_non_null(strstr(err.msg, "size"));
	assert_int_equal(sh->mounted.v, 1);
	assert_false(sh->size_bytes.ok);
	assert_int_equal(parse_lit(gd_parse_proc_pid_mountinfo,
				   "2 1 0:2 / /dev/shm rw - tmpfs t rw,size=20000000000000g\n", &s, &err),
			 1);
	assert_false(sh->size_bytes.ok);
	assert_int_equal(parse_lit(gd_parse_proc_pid_mountinfo, "2 1 0:2 / /dev/shm rw - tmpfs t rw,size=k\n", &s, &err),
			 1);
	assert_false(sh->size_bytes.ok);
	assert_int_equal(s.shm.n, 1);
	gd_snapshot_release(&s);
}

/* ---- cpu.stat and memory.events ---------------------------------------- */

static void test_cpu_stat(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_cgroup *cg;
	/* v2, kernel 6.x with the cpu controller enabled. */
	const char v2[] = "usage_usec 9120335\nuser_usec 7001234\nsystem_usec 2119101\ncore_sched.force_idle_usec 0\n"
			  "nr_periods 512\nnr_throttled 77\nthrottled_usec 4123456\nnr_bursts 0\nburst_usec 0\n";
	/* v2 without the cpu controller: only the usage keys. */
	const char v2_nocpu[] = "usage_usec 100\nuser_usec 60\nsystem_usec 40\n";
	/* v1 (this machine). */
	const char v1[] = "nr_periods 10\nnr_throttled 2\nthrottled_time 123456789\nnr_bursts 0\nburst_time 0\n";

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_cgroup_cpu_stat, v2, &s, &err), 0);
	cg = cg_at(&s, 0);
	assert_int_equal(cg->nr_periods.v, 512);
	assert_int_equal(cg->nr_throttled.v, 77);
	assert_int_equal(cg->throttled_us.v, 4123456);

	gd_snapshot_clear(&s);
	assert_int_equal(parse_lit(gd_parse_cgroup_cpu_stat, v2_nocpu, &s, &err), 0);
	cg = cg_at(&s, 0);
	assert_false(cg->nr_periods.ok);
	assert_false(cg->throttled_us.ok);

	/* v1 throttled_time is in ns. */
	assert_int_equal(parse_lit(gd_parse_cgroup_cpu_stat, v1, &s, &err), 0);
	assert_int_equal(cg->nr_periods.v, 10);
	assert_int_equal(cg->nr_throttled.v, 2);
	assert_int_equal(cg->throttled_us.v, 123456);
	assert_int_equal(s.cgroups.n, 1);

	/* Malformed: skipped line named; huge; empty; binary. */
	assert_int_equal(parse_lit(gd_parse_cgroup_cpu_stat, "nr_periods 5\nnr_throttled x\n", &s, &err), 1);
	assert_non_null(strstr(err.msg, "line 2"));
	assert_int_equal(cg->nr_periods.v, 5);
	assert_int_equal(cg->nr_throttled.v, 2);
	assert_int_equal(parse_lit(gd_parse_cgroup_cpu_stat, "nr_periods 5 6\n", &s, &err), -EINVAL);
	assert_int_equal(parse_lit(gd_parse_cgroup_cpu_stat, "nr_periods 18446744073709551616\nnr_throttled 1\n", &s,
				   &err),
			 1);
	assert_int_equal(cg->nr_periods.v, 5);
	assert_true(parse_lit(gd_parse_cgroup_cpu_stat, "", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_cgroup_cpu_stat, "\n\n", &s, &err) < 0);
	gd_err_clear(&err);
	assert_true(gd_parse_cgroup_cpu_stat("nr_periods 1\0\n", 14, &s, &err) < 0);
	gd_snapshot_release(&s);
}

static void test_memory_events(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_cgroup *cg;
	const char v2[] = "low 0\nhigh 12\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n";
	/* Linux 4.x before oom_group_kill; and v1 memory.oom_control. */
	const char v2_old[] = "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n";
	const char oom_control[] = "oom_kill_disable 0\nunder_oom 1\noom_kill 4\n";

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_cgroup_memory_events, v2, &s, &err), 0);
	cg = cg_at(&s, 0);
	assert_int_equal(cg->mem_events_high.v, 12);
	assert_int_equal(cg->mem_events_max.v, 3);
	assert_int_equal(cg->mem_events_oom.v, 1);
	assert_int_equal(cg->mem_events_oom_kill.v, 1);
	assert_int_equal(parse_lit(gd_parse_cgroup_memory_events, v2_old, &s, &err), 0);
	assert_true(cg->mem_events_high.ok);
	assert_int_equal(cg->mem_events_high.v, 0);

	gd_snapshot_clear(&s);
	assert_int_equal(parse_lit(gd_parse_cgroup_memory_events, oom_control, &s, &err), 0);
	cg = cg_at(&s, 0);
	assert_int_equal(cg->mem_events_oom_kill.v, 4);
	assert_false(cg->mem_events_oom.ok);   /* under_oom is not a count */
	assert_false(cg->mem_events_high.ok);

	assert_int_equal(parse_lit(gd_parse_cgroup_memory_events, "high 1\noom -1\n", &s, &err), 1);
	assert_non_null(strstr(err.msg, "oom"));
	assert_true(parse_lit(gd_parse_cgroup_memory_events, "", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_cgroup_memory_events, "max\n", &s, &err) < 0);
	gd_snapshot_release(&s);
}

/* ---- cgroup fixture trees ---------------------------------------------- */

static const char mi_v2[] =
	"27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
	"22 27 0:21 / /proc rw,relatime shared:5 - proc proc rw\n"
	"31 23 0:28 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 "
	"rw,nsdelegate,memory_recursiveprot\n";

static void test_cgroup_v2_tree(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_cgroup *cg;

	(void)state;
	tree_init(&t, "cgshm");
	tree_put(&t, "proc/self/mountinfo", mi_v2);
	tree_put(&t, "proc/self/cgroup", "0::/user.slice/gd.scope\n");
	tree_put(&t, "sys/fs/cgroup/user.slice/gd.scope/cpu.max", "max 100000\n");
	tree_put(&t, "sys/fs/cgroup/user.slice/gd.scope/cpu.stat", "usage_usec 5\nuser_usec 3\nsystem_usec 2\n");
	tree_put(&t, "sys/fs/cgroup/user.slice/gd.scope/memory.current", "3649536\n");
	tree_put(&t, "sys/fs/cgroup/user.slice/gd.scope/memory.max", "max\n");
	tree_put(&t, "sys/fs/cgroup/user.slice/gd.scope/memory.high", "max\n");
	tree_put(&t, "sys/fs/cgroup/user.slice/gd.scope/memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
	/* Two GPU processes in one container group, one that exited. */
	tree_put(&t, "proc/100/cgroup", "0::/docker/abc\n");
	tree_put(&t, "proc/101/cgroup", "0::/docker/abc\n");
	tree_put(&t, "sys/fs/cgroup/docker/abc/cpu.max", "200000 100000\n");
	tree_put(&t, "sys/fs/cgroup/docker/abc/cpu.stat",
		 "usage_usec 9\nuser_usec 5\nsystem_usec 4\nnr_periods 600\nnr_throttled 90\nthrottled_usec 812345\n");
	tree_put(&t, "sys/fs/cgroup/docker/abc/memory.current", "1073741824\n");
	tree_put(&t, "sys/fs/cgroup/docker/abc/memory.max", "2147483648\n");
	tree_put(&t, "sys/fs/cgroup/docker/abc/memory.high", "1932735283\n");
	tree_put(&t, "sys/fs/cgroup/docker/abc/memory.events", "low 0\nhigh 12\nmax 3\noom 1\noom_kill 1\n");

	gd_snapshot_init(&s);
	gd_u64_set(&s.host.self_pid, 4242);
	add_job(&s, 100, "", 1);
	add_job(&s, 101, "", 2);
	add_job(&s, 102, "", 1);   /* exited: no cgroup file */
	add_job(&s, 103, "", 0);   /* not a GPU job */
	assert_int_equal(run(gd_collect_cgroups, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.cgroups.n, 2);

	cg = cg_at(&s, 0);
	assert_string_equal(cg->version, "v2");
	assert_string_equal(cg->path, "/docker/abc");
	assert_string_equal(cg->memory_path, "/docker/abc");
	assert_int_equal(cg->pid.v, 100);
	assert_int_equal(cg->self.v, 0);
	assert_true(cg->cpu_quota_us.ok);
	assert_int_equal(cg->cpu_quota_us.v, 200000);
	assert_int_equal(cg->cpu_period_us.v, 100000);
	assert_int_equal(cg->nr_periods.v, 600);
	assert_int_equal(cg->nr_throttled.v, 90);
	assert_int_equal(cg->throttled_us.v, 812345);
	assert_int_equal(cg->mem_current_bytes.v, 1073741824);
	assert_int_equal(cg->mem_max_bytes.v, 2147483648);
	assert_int_equal(cg->mem_high_bytes.v, 1932735283);
	assert_int_equal(cg->mem_events_high.v, 12);
	assert_int_equal(cg->mem_events_oom_kill.v, 1);

	cg = cg_at(&s, 1);
	assert_string_equal(cg->path, "/user.slice/gd.scope");
	assert_int_equal(cg->self.v, 1);
	assert_int_equal(cg->pid.v, 4242);   /* proc/self is no link here */
	assert_false(cg->cpu_quota_us.ok);   /* "max" */
	assert_int_equal(cg->cpu_period_us.v, 100000);
	assert_false(cg->nr_periods.ok);     /* cpu controller not enabled */
	assert_int_equal(cg->mem_current_bytes.v, 3649536);
	assert_false(cg->mem_max_bytes.ok);
	assert_false(cg->mem_high_bytes.ok);
	assert_true(cg->mem_events_oom.ok);
	gd_snapshot_release(&s);

	/* A malformed file and a missing group directory: partial. */
	tree_put(&t, "sys/fs/cgroup/docker/abc/memory.max", "lots\n");
	tree_put(&t, "proc/102/cgroup", "0::/docker/gone\n");
	gd_snapshot_init(&s);
	add_job(&s, 100, "", 1);
	add_job(&s, 102, "", 1);
	assert_int_equal(run(gd_collect_cgroups, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_non_null(strstr(err.msg, "/sys/fs/cgroup/docker/abc/memory.max"));
	assert_non_null(strstr(err.msg, "1 more"));
	assert_int_equal(s.cgroups.n, 3);
	assert_false(cg_at(&s, 0)->mem_max_bytes.ok);
	assert_true(cg_at(&s, 0)->mem_current_bytes.ok);
	gd_snapshot_release(&s);
	tree_release(&t);
}

static void test_cgroup_namespaces(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_cgroup *cg;

	(void)state;
	/* A container with a cgroup namespace: path "/", the group is the
	 * mount root. */
	tree_init(&t, "cgshm");
	tree_put(&t, "proc/self/mountinfo", mi_docker);
	tree_put(&t, "proc/self/cgroup", "0::/\n");
	tree_put(&t, "sys/fs/cgroup/cpu.max", "400000 100000\n");
	tree_put(&t, "sys/fs/cgroup/memory.current", "123\n");
	tree_put(&t, "sys/fs/cgroup/memory.max", "8589934592\n");
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_cgroups, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.cgroups.n, 1);
	cg = cg_at(&s, 0);
	assert_string_equal(cg->version, "v2");
	assert_string_equal(cg->path, "/");
	assert_int_equal(cg->self.v, 1);
	assert_int_equal(cg->cpu_quota_us.v, 400000);
	assert_int_equal(cg->mem_current_bytes.v, 123);
	assert_int_equal(cg->mem_max_bytes.v, 8589934592);
	assert_false(cg->mem_high_bytes.ok);   /* no file */
	gd_snapshot_release(&s);
	tree_release(&t);

	/* No cgroup namespace: the mount's root is the container's group, and
	 * a group outside it cannot be reached. */
	tree_init(&t, "cgshm");
	tree_put(&t, "proc/self/mountinfo",
		 "1 0 0:1 / / rw - overlay overlay rw\n"
		 "2 1 0:30 /docker/abc /sys/fs/cgroup ro - cgroup2 cgroup rw\n");
	tree_put(&t, "proc/self/cgroup", "0::/docker/abc\n");
	tree_put(&t, "proc/100/cgroup", "0::/docker/other\n");
	tree_put(&t, "sys/fs/cgroup/memory.current", "456\n");
	gd_snapshot_init(&s);
	add_job(&s, 100, "", 1);
	assert_int_equal(run(gd_collect_cgroups, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_non_null(strstr(err.msg, "outside"));
	assert_int_equal(s.cgroups.n, 2);
	assert_int_equal(cg_at(&s, 1)->self.v, 1);
	assert_int_equal(cg_at(&s, 1)->mem_current_bytes.v, 456);
	gd_snapshot_release(&s);
	tree_release(&t);
}

static void test_cgroup_v1_tree(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_cgroup *cg;
	const char cpu[] = "sys/fs/cgroup/cpu,cpuacct/docker/abc/";
	const char mem[] = "sys/fs/cgroup/memory/docker/abc/";
	char rel[256];

	(void)state;
	tree_init(&t, "cgshm");
	tree_put(&t, "proc/self/mountinfo",
		 "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
		 "31 23 0:28 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755\n"
		 "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:10 - cgroup cgroup rw,cpu,cpuacct\n"
		 "33 31 0:30 / /sys/fs/cgroup/cpuset rw,relatime shared:11 - cgroup cgroup rw,cpuset\n"
		 "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:13 - cgroup cgroup rw,memory\n"
		 "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n");
	/* gpudoctor in the root groups; a GPU job in a container. */
	tree_put(&t, "proc/self/cgroup", "11:memory:/\n4:cpu,cpuacct:/\n3:cpuset:/\n0::/\n");
	tree_put(&t, "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
	tree_put(&t, "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
	tree_put(&t, "sys/fs/cgroup/cpu,cpuacct/cpu.stat", "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n");
	tree_put(&t, "sys/fs/cgroup/memory/memory.usage_in_bytes", "3649536\n");
	tree_put(&t, "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
	tree_put(&t, "sys/fs/cgroup/memory/memory.failcnt", "0\n");
	/* Linux < 4.13: oom_control without the oom_kill line. */
	tree_put(&t, "sys/fs/cgroup/memory/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\n");

	tree_put(&t, "proc/100/cgroup", "11:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n3:cpuset:/docker/abc\n0::/\n");
	snprintf(rel, sizeof rel, "%scpu.cfs_quota_us", cpu);
	tree_put(&t, rel, "200000\n");
	snprintf(rel, sizeof rel, "%scpu.cfs_period_us", cpu);
	tree_put(&t, rel, "100000\n");
	snprintf(rel, sizeof rel, "%scpu.stat", cpu);
	tree_put(&t, rel, "nr_periods 50\nnr_throttled 5\nthrottled_time 123456789\nnr_bursts 0\nburst_time 0\n");
	snprintf(rel, sizeof rel, "%smemory.usage_in_bytes", mem);
	tree_put(&t, rel, "4000000000\n");
	snprintf(rel, sizeof rel, "%smemory.limit_in_bytes", mem);
	tree_put(&t, rel, "4294967296\n");
	snprintf(rel, sizeof rel, "%smemory.failcnt", mem);
	tree_put(&t, rel, "7\n");
	snprintf(rel, sizeof rel, "%smemory.oom_control", mem);
	tree_put(&t, rel, "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");

	gd_snapshot_init(&s);
	add_job(&s, 100, "", 1);
	assert_int_equal(run(gd_collect_cgroups, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.cgroups.n, 2);
	cg = cg_at(&s, 0);
	assert_string_equal(cg->version, "v1");
	assert_string_equal(cg->path, "/docker/abc");
	assert_string_equal(cg->memory_path, "/docker/abc");
	assert_int_equal(cg->cpu_quota_us.v, 200000);
	assert_int_equal(cg->cpu_period_us.v, 100000);
	assert_int_equal(cg->nr_periods.v, 50);
	assert_int_equal(cg->nr_throttled.v, 5);
	assert_int_equal(cg->throttled_us.v, 123456);
	assert_int_equal(cg->mem_current_bytes.v, 4000000000);
	assert_int_equal(cg->mem_max_bytes.v, 4294967296);
	assert_false(cg->mem_high_bytes.ok);
	assert_int_equal(cg->mem_events_max.v, 7);
	assert_int_equal(cg->mem_events_oom_kill.v, 2);

	cg = cg_at(&s, 1);
	assert_string_equal(cg->version, "v1");
	assert_string_equal(cg->path, "/");
	assert_int_equal(cg->self.v, 1);
	assert_false(cg->cpu_quota_us.ok);    /* -1 */
	assert_true(cg->cpu_period_us.ok);
	assert_false(cg->mem_max_bytes.ok);   /* 2^63 - 4096: unlimited */
	assert_int_equal(cg->mem_current_bytes.v, 3649536);
	assert_true(cg->mem_events_max.ok);
	assert_false(cg->mem_events_oom_kill.ok);
	gd_snapshot_release(&s);

	/* Broken number: partial, file named. */
	snprintf(rel, sizeof rel, "%smemory.failcnt", mem);
	tree_put(&t, rel, "seven\n");
	gd_snapshot_init(&s);
	add_job(&s, 100, "", 1);
	assert_int_equal(run(gd_collect_cgroups, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_non_null(strstr(err.msg, "memory.failcnt"));
	assert_false(cg_at(&s, 0)->mem_events_max.ok);
	gd_snapshot_release(&s);
	tree_release(&t);
}

static void test_cgroup_absent(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	tree_init(&t, "cgshm");
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_cgroups, &t.ctx, &s, &err), GD_SRC_ABSENT);
	assert_non_null(strstr(err.msg, "mountinfo"));
	tree_put(&t, "proc/self/mountinfo", "1 0 0:1 / / rw - ext4 /dev/sda rw\n");
	assert_int_equal(run(gd_collect_cgroups, &t.ctx, &s, &err), GD_SRC_ABSENT);
	assert_non_null(strstr(err.msg, "no cgroup2 mount"));
	/* Mounted, but our own cgroup file is missing. */
	tree_put(&t, "proc/self/mountinfo", mi_v2);
	assert_int_equal(run(gd_collect_cgroups, &t.ctx, &s, &err), GD_SRC_ABSENT);
	assert_non_null(strstr(err.msg, "/proc/self/cgroup"));
	assert_int_equal(s.cgroups.n, 0);
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* ---- dev_shm fixture trees --------------------------------------------- */

static void test_shm_tree(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_shm *sh;

	(void)state;
	tree_init(&t, "cgshm");
	tree_put(&t, "proc/self/mountinfo", mi_docker);
	tree_link(&t, "mnt:[4026532001]", "proc/self/ns/mnt");

	/* No GPU job: gpudoctor's own namespace. */
	gd_snapshot_init(&s);
	gd_u64_set(&s.host.self_pid, 4242);
	add_job(&s, 50, "mnt:[1]", 0);
	assert_int_equal(run(gd_collect_dev_shm, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.shm.n, 1);
	sh = shm_at(&s, 0);
	assert_int_equal(sh->pid.v, 4242);
	assert_string_equal(sh->mntns, "mnt:[4026532001]");
	assert_true(sh->gpu_job.ok);
	assert_int_equal(sh->gpu_job.v, 0);
	assert_int_equal(sh->mounted.v, 1);
	assert_string_equal(sh->fstype, "tmpfs");
	assert_int_equal(sh->size_bytes.v, 67108864);
	/* A fixture is no tmpfs: statvfs is not trusted, use stays absent. */
	assert_false(sh->used_bytes.ok);
	gd_snapshot_release(&s);

	/* GPU jobs: 100 and 101 share a namespace, 102 has its own without a
	 * /dev/shm mount, 103 exited. */
	tree_put(&t, "proc/100/mountinfo", mi_docker);
	tree_put(&t, "proc/101/mountinfo", mi_docker);
	tree_put(&t, "proc/102/mountinfo", "1 0 0:1 / / rw - ext4 /dev/sda rw\n3 1 0:3 / /dev rw - devtmpfs udev rw\n");
	gd_snapshot_init(&s);
	add_job(&s, 100, "mnt:[4026532500]", 1);
	add_job(&s, 101, "mnt:[4026532500]", 1);
	add_job(&s, 102, "mnt:[4026532600]", 2);
	add_job(&s, 103, "mnt:[4026532700]", 1);
	add_job(&s, 104, "mnt:[4026532800]", 0);
	assert_int_equal(run(gd_collect_dev_shm, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.shm.n, 2);
	sh = shm_at(&s, 0);
	assert_int_equal(sh->pid.v, 100);
	assert_string_equal(sh->mntns, "mnt:[4026532500]");
	assert_int_equal(sh->gpu_job.v, 1);
	assert_int_equal(sh->size_bytes.v, 67108864);
	sh = shm_at(&s, 1);
	assert_int_equal(sh->pid.v, 102);
	assert_true(sh->mounted.ok);
	assert_int_equal(sh->mounted.v, 0);
	assert_false(sh->size_bytes.ok);
	gd_snapshot_release(&s);

	/* A malformed mountinfo: partial, the file named. */
	tree_put(&t, "proc/100/mountinfo", "junk\n1 0 0:1 / /dev/shm rw - tmpfs t rw,size=1k\n");
	gd_snapshot_init(&s);
	add_job(&s, 100, "mnt:[4026532500]", 1);
	assert_int_equal(run(gd_collect_dev_shm, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_non_null(strstr(err.msg, "/proc/100/mountinfo"));
	assert_int_equal(shm_at(&s, 0)->size_bytes.v, 1024);
	gd_snapshot_release(&s);
	tree_release(&t);

	/* Nothing at all. */
	tree_init(&t, "cgshm");
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_dev_shm, &t.ctx, &s, &err), GD_SRC_ABSENT);
	assert_int_equal(s.shm.n, 0);
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* ---- this machine ------------------------------------------------------ */

/* What /proc/self/cgroup implies: v1 when a cpu or memory controller line
 * is there (this machine: hybrid, counted as v1). */
static const char *expected_version(void)
{
	char line[512];
	const char *v = "v2";
	FILE *f = fopen("/proc/self/cgroup", "r");

	assert_non_null(f);
	while (fgets(line, sizeof line, f))
		if (strstr(line, ":memory:") || strstr(line, ":cpu:") || strstr(line, ":cpu,") || strstr(line, ",cpu:"))
			v = "v1";
	fclose(f);
	return v;
}

static void test_live(void **state)
{
	struct gd_root root;
	struct gd_collect_ctx ctx;
	struct gd_snapshot s;
	struct gd_err err;
	enum gd_src_status st;
	struct gd_cgroup *cg;
	struct gd_shm *sh;
	struct statfs sf;

	(void)state;
	assert_int_equal(gd_root_open(&root, "/", &err), 0);
	memset(&ctx, 0, sizeof ctx);   /* no NVML, no sampler, no cache */
	ctx.root = &root;
	gd_snapshot_init(&s);
	run(gd_collect_proc_mounts, &ctx, &s, &err);
	st = run(gd_collect_processes, &ctx, &s, &err);
	assert_true(st == GD_SRC_OK || st == GD_SRC_PARTIAL);

	st = run(gd_collect_cgroups, &ctx, &s, &err);
	assert_true(st == GD_SRC_OK || st == GD_SRC_PARTIAL);
	assert_true(s.cgroups.n >= 1);
	cg = cg_at(&s, s.cgroups.n - 1);
	assert_int_equal(cg->self.v, 1);
	assert_int_equal(cg->pid.v, (uint64_t)getpid());
	assert_string_equal(cg->version, expected_version());
	assert_true(cg->mem_current_bytes.ok);
	assert_true(cg->mem_current_bytes.v > 0);
	assert_true(cg->cpu_period_us.ok);

	st = run(gd_collect_dev_shm, &ctx, &s, &err);
	assert_true(st == GD_SRC_OK || st == GD_SRC_PARTIAL);
	assert_true(s.shm.n >= 1);
	if (statfs("/dev/shm", &sf) == 0 && (unsigned long)sf.f_type == 0x01021994ul) {
		/* No GPU here: the record is our own namespace's. */
		sh = shm_at(&s, 0);
		if (sh->gpu_job.v == 0) {
			assert_int_equal(sh->pid.v, (uint64_t)getpid());
			assert_int_equal(sh->mounted.v, 1);
			assert_string_equal(sh->fstype, "tmpfs");
			assert_true(sh->size_bytes.ok && sh->size_bytes.v > 0);
			assert_true(sh->used_bytes.ok);
			assert_true(sh->used_bytes.v <= sh->size_bytes.v);
			assert_int_equal(strncmp(sh->mntns, "mnt:[", 5), 0);
		}
	}
	gd_snapshot_release(&s);
	gd_root_release(&root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mountinfo),
		cmocka_unit_test(test_mountinfo_malformed),
		cmocka_unit_test(test_cpu_stat),
		cmocka_unit_test(test_memory_events),
		cmocka_unit_test(test_cgroup_v2_tree),
		cmocka_unit_test(test_cgroup_namespaces),
		cmocka_unit_test(test_cgroup_v1_tree),
		cmocka_unit_test(test_cgroup_absent),
		cmocka_unit_test(test_shm_tree),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, tree_sweep);
}
