/*
 * test_rules_mem.c - the mem.* host rules on snapshots built in C: each
 * fires with its evidence, stays clear on healthy values, says unknown
 * without evidence, and turns at its thresholds.
 */
#include "testutil.h"

#include <math.h>

#define GIB 1073741824ULL
#define MIB 1048576ULL

static void set_meminfo(struct gd_snapshot *s, uint64_t total, uint64_t avail)
{
	gd_u64_set(&s->mem.total_bytes, total);
	gd_u64_set(&s->mem.available_bytes, avail);
	gd_u64_set(&s->mem.free_bytes, avail / 2);
}

static struct gd_shm *add_shm(struct gd_snapshot *s, uint64_t pid, const char *mntns, bool job, uint64_t size,
			      uint64_t used)
{
	struct gd_shm *r = GD_PUSH(s, shm, struct gd_shm);

	gd_u64_set(&r->pid, pid);
	GD_STRSET(r->mntns, mntns);
	gd_u64_set(&r->gpu_job, job);
	gd_u64_set(&r->mounted, 1);
	GD_STRSET(r->fstype, "tmpfs");
	gd_u64_set(&r->size_bytes, size);
	gd_u64_set(&r->used_bytes, used);
	return r;
}

static struct gd_cgroup *add_memcg(struct gd_snapshot *s, const char *path, uint64_t cur, uint64_t max,
				   uint64_t oom_kill)
{
	struct gd_cgroup *c = GD_PUSH(s, cgroups, struct gd_cgroup);

	GD_STRSET(c->path, path);
	GD_STRSET(c->memory_path, path);
	GD_STRSET(c->version, "v2");
	gd_u64_set(&c->pid, 4711);
	gd_u64_set(&c->self, 0);
	gd_u64_set(&c->mem_current_bytes, cur);
	gd_u64_set(&c->mem_max_bytes, max);
	gd_u64_set(&c->mem_events_oom_kill, oom_kill);
	return c;
}

/* ---- mem.pressure ------------------------------------------------------- */

static void test_pressure_fires(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	set_meminfo(&x->b, 64 * GIB, 2 * GIB);
	gd_f64_set(&x->b.psi.memory_some_avg10, 14.0);
	gd_f64_set(&x->b.psi.memory_full_avg10, 3.0);
	/* One snapshot is enough. */
	assert_int_equal(run_rule2("mem.pressure", &x->b, NULL, NULL, &x->out), GD_VERDICT_FIRED);
	f = one_finding(&x->out);
	assert_string_equal(f->subject, "host");
	assert_ev(f, "available_pct", 3.125, 5.0);
	assert_float_equal(ev_get(f, "available_bytes")->value.v, 2.0 * GIB, 1e-3);
	assert_ev(f, "psi_memory_some_pct", 14.0, 10.0);
	assert_float_equal(ev_get(f, "psi_memory_full_pct")->value.v, 3.0, 1e-9);
	assert_non_null(strstr(f->summary, "Only 3.1% of memory is available (2 GiB of 64 GiB; threshold 5%)"));
}

static void test_pressure_clear_unknown(void **state)
{
	struct fx *x = *state;

	set_meminfo(&x->b, 64 * GIB, 32 * GIB);
	gd_f64_set(&x->b.psi.memory_some_avg10, 0.0);
	assert_int_equal(run_rule2("mem.pressure", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	assert_int_equal(x->out.items.n, 0);
	assert_int_equal(x->out.evaluated, 1);

	fx_reset(x);
	assert_int_equal(run_rule2("mem.pressure", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&x->out), "MemAvailable"));

	/* Kernel < 3.14: MemTotal without MemAvailable, PSI calm: unknown. */
	fx_reset(x);
	gd_u64_set(&x->b.mem.total_bytes, 64 * GIB);
	gd_f64_set(&x->b.psi.memory_some_avg10, 1.0);
	assert_int_equal(run_rule2("mem.pressure", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);

	/* ... but PSI high fires on its own. */
	fx_reset(x);
	gd_f64_set(&x->b.psi.memory_some_avg10, 25.0);
	assert_int_equal(run_rule2("mem.pressure", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	assert_false(ev_get(FINDING(x->out, 0), "available_pct")->value.ok);
}

static void test_pressure_edges(void **state)
{
	struct fx *x = *state;

	set_meminfo(&x->b, 1000000, 50000);  /* exactly 5%: not below */
	assert_int_equal(run_rule2("mem.pressure", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	set_meminfo(&x->b, 1000000, 49999);
	assert_int_equal(run_rule2("mem.pressure", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);

	fx_reset(x);
	set_meminfo(&x->b, 1000000, 500000);
	gd_f64_set(&x->b.psi.memory_some_avg10, 9.99);
	assert_int_equal(run_rule2("mem.pressure", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	gd_f64_set(&x->b.psi.memory_some_avg10, 10.0);
	assert_int_equal(run_rule2("mem.pressure", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	assert_non_null(strstr(FINDING(x->out, 0)->summary, "PSI memory some 10% (threshold 10%)"));
}

/* ---- mem.swapping ------------------------------------------------------- */

/* On the fixture's fresh pair (2 s apart): in and outp pages swapped. */
static void swap_fixture(struct gd_snapshot *a, struct gd_snapshot *b, uint64_t in, uint64_t outp)
{
	gd_u64_set(&a->mem.pswpin, 1000);
	gd_u64_set(&a->mem.pswpout, 500);
	gd_u64_set(&b->mem.pswpin, 1000 + in);
	gd_u64_set(&b->mem.pswpout, 500 + outp);
	gd_u64_set(&b->host.page_size_bytes, 4096);
}

static void test_swapping(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	swap_fixture(&x->a, &x->b, 600, 100);
	assert_int_equal(run_rule2("mem.swapping", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_string_equal(f->subject, "host");
	assert_float_equal(ev_get(f, "swap_in_pages_per_s")->value.v, 300.0, 1e-9);
	assert_float_equal(ev_get(f, "swap_out_pages_per_s")->value.v, 50.0, 1e-9);
	assert_ev(f, "swap_pages_per_s", 350.0, 100.0);
	assert_non_null(strstr(f->summary, "350 pages/s (300 in, 50 out; threshold 100 pages/s), 1.4 MB/s"));

	fx_reset(x);
	swap_fixture(&x->a, &x->b, 0, 4);
	assert_int_equal(run_rule2("mem.swapping", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	assert_int_equal(x->out.items.n, 0);

	/* Edges: 200 pages in 2 s is exactly 100/s. */
	fx_reset(x);
	swap_fixture(&x->a, &x->b, 150, 50);
	assert_int_equal(run_rule2("mem.swapping", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	fx_reset(x);
	swap_fixture(&x->a, &x->b, 150, 49);
	assert_int_equal(run_rule2("mem.swapping", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);

	/* Counters missing, or going backwards, or one snapshot. */
	fx_reset(x);
	swap_fixture(&x->a, &x->b, 600, 100);
	x->a.mem.pswpout.ok = false;
	assert_int_equal(run_rule2("mem.swapping", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&x->out), "pswpin/pswpout"));
	fx_reset(x);
	swap_fixture(&x->a, &x->b, 600, 100);
	x->b.mem.pswpin.v = 10;
	assert_int_equal(run_rule2("mem.swapping", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
	fx_reset(x);
	swap_fixture(&x->a, &x->b, 600, 100);
	assert_int_equal(run_rule2("mem.swapping", &x->b, NULL, NULL, &x->out), GD_VERDICT_UNKNOWN);
}

/* ---- mem.shm_small ------------------------------------------------------ */

static void add_job_proc(struct gd_snapshot *s, uint64_t pid, const char *comm)
{
	struct gd_proc *p = GD_PUSH(s, procs, struct gd_proc);

	gd_u64_set(&p->pid, pid);
	gd_u64_set(&p->ppid, 1);
	GD_STRSET(p->comm, comm);
	gd_u64_set(&p->nvidia_fds, 4);
}

static void test_shm_fires(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	add_job_proc(&x->b, 4711, "python");
	add_shm(&x->b, 0, "mnt:[4026531841]", false, 32 * GIB, 1 * GIB);
	add_shm(&x->b, 4711, "mnt:[4026532999]", true, 64 * MIB, 60 * MIB);
	assert_int_equal(run_rule2("mem.shm_small", &x->b, NULL, NULL, &x->out), GD_VERDICT_FIRED);
	f = one_finding(&x->out);
	assert_string_equal(f->subject, "/dev/shm (pid 4711, python)");
	assert_float_equal(ev_get(f, "size_bytes")->value.v, 64.0 * MIB, 1e-3);
	assert_float_equal(ev_get(f, "size_bytes")->threshold.v, 1.0 * GIB, 1e-3);
	assert_ev(f, "used_pct", 93.75, 90.0);
	assert_non_null(strstr(f->summary, "is 64 MiB (threshold 1 GiB) and 94% used (60 MiB; threshold 90%)"));
	assert_non_null(strstr(f->remedy, "--shm-size"));
	assert_non_null(strstr(f->remedy, "64 MiB"));

	/* gpudoctor's own namespace, full; a second record of the same job
	 * namespace is reported once. */
	fx_reset(x);
	add_shm(&x->b, 0, "mnt:[4026531841]", false, 8 * GIB, 8 * GIB);
	add_shm(&x->b, 4711, "mnt:[4026532999]", true, 64 * MIB, 0);
	add_shm(&x->b, 4712, "mnt:[4026532999]", true, 64 * MIB, 0);
	assert_int_equal(run_rule2("mem.shm_small", &x->b, NULL, NULL, &x->out), GD_VERDICT_FIRED);
	assert_int_equal(x->out.items.n, 2);
	assert_string_equal(FINDING(x->out, 0)->subject, "/dev/shm");
	assert_float_equal(ev_get(FINDING(x->out, 0), "used_pct")->value.v, 100.0, 1e-9);
	assert_string_equal(FINDING(x->out, 1)->subject, "/dev/shm (pid 4711)");
}

static void test_shm_clear_unknown(void **state)
{
	struct fx *x = *state;

	add_shm(&x->b, 0, "mnt:[1]", false, 32 * GIB, 1 * GIB);
	add_shm(&x->b, 4711, "mnt:[2]", true, 16 * GIB, 100 * MIB);
	/* Not mounted in the job: writes go to the parent filesystem. */
	add_shm(&x->b, 4800, "mnt:[3]", true, 0, 0)->mounted.v = 0;
	assert_int_equal(run_rule2("mem.shm_small", &x->b, NULL, NULL, &x->out), GD_VERDICT_CLEAR);
	assert_int_equal(x->out.items.n, 0);

	fx_reset(x);
	assert_int_equal(run_rule2("mem.shm_small", &x->b, NULL, NULL, &x->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&x->out), "no /dev/shm record"));

	/* statvfs failed: a record without size. */
	fx_reset(x);
	add_shm(&x->b, 0, "mnt:[1]", false, 0, 0)->size_bytes.ok = false;
	assert_int_equal(run_rule2("mem.shm_small", &x->b, NULL, NULL, &x->out), GD_VERDICT_UNKNOWN);
}

static void test_shm_edges(void **state)
{
	struct fx *x = *state;

	add_shm(&x->b, 0, "mnt:[1]", false, GIB, 0);          /* exactly 1 GiB */
	assert_int_equal(run_rule2("mem.shm_small", &x->b, NULL, NULL, &x->out), GD_VERDICT_CLEAR);
	GD_VEC_AT(x->b.shm, struct gd_shm, 0)->size_bytes.v = GIB - 1;
	assert_int_equal(run_rule2("mem.shm_small", &x->b, NULL, NULL, &x->out), GD_VERDICT_FIRED);

	fx_reset(x);
	add_shm(&x->b, 0, "mnt:[1]", false, 10 * GIB, 9 * GIB);  /* exactly 90% */
	assert_int_equal(run_rule2("mem.shm_small", &x->b, NULL, NULL, &x->out), GD_VERDICT_FIRED);
	fx_reset(x);
	add_shm(&x->b, 0, "mnt:[1]", false, 10 * GIB, 9 * GIB - 1);
	assert_int_equal(run_rule2("mem.shm_small", &x->b, NULL, NULL, &x->out), GD_VERDICT_CLEAR);
}

/* ---- mem.cgroup_near_limit ---------------------------------------------- */

static void test_cgroup_near_limit(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	add_memcg(&x->a, "/docker/abc", 900000000, 1000000000, 0);
	add_memcg(&x->b, "/docker/abc", 950000000, 1000000000, 0);
	assert_int_equal(run_rule2("mem.cgroup_near_limit", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_string_equal(f->subject, "/docker/abc");
	assert_int_equal(f->severity, GD_SEV_WARNING);
	assert_ev(f, "used_pct", 95.0, 90.0);
	assert_float_equal(ev_get(f, "current_bytes")->value.v, 950000000.0, 1e-3);
	assert_float_equal(ev_get(f, "max_bytes")->value.v, 1000000000.0, 1e-3);
	assert_float_equal(ev_get(f, "oom_kills")->value.v, 0.0, 1e-9);
	assert_non_null(strstr(f->summary, "(95%, threshold 90%)"));
	assert_non_null(strstr(f->remedy, "953.7 MiB"));

	/* An OOM kill in the window: critical, even below the limit share. */
	fx_reset(x);
	add_memcg(&x->a, "/docker/abc", 500000000, 1000000000, 3);
	add_memcg(&x->b, "/docker/abc", 400000000, 1000000000, 4);
	assert_int_equal(run_rule2("mem.cgroup_near_limit", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_int_equal(f->severity, GD_SEV_CRITICAL);
	assert_float_equal(ev_get(f, "oom_kills")->value.v, 1.0, 1e-9);
	assert_float_equal(ev_get(f, "oom_kills_total")->value.v, 4.0, 1e-9);
	assert_non_null(strstr(f->summary, "killed 1 process in it"));

	/* One snapshot: a historic count is only noted. */
	fx_reset(x);
	add_memcg(&x->b, "/docker/abc", 500000000, 1000000000, 3);
	assert_int_equal(run_rule2("mem.cgroup_near_limit", &x->b, NULL, NULL, &x->out), GD_VERDICT_CLEAR);
	GD_VEC_AT(x->b.cgroups, struct gd_cgroup, 0)->mem_current_bytes.v = 960000000;
	assert_int_equal(run_rule2("mem.cgroup_near_limit", &x->b, NULL, NULL, &x->out), GD_VERDICT_FIRED);
	assert_int_equal(FINDING(x->out, 0)->severity, GD_SEV_WARNING);
	assert_non_null(strstr(FINDING(x->out, 0)->summary, "3 OOM kills before the window"));
}

static void test_cgroup_clear_unknown_edges(void **state)
{
	struct fx *x = *state;

	add_memcg(&x->a, "/job", 400000000, 1000000000, 0);
	add_memcg(&x->b, "/job", 500000000, 1000000000, 0);
	add_memcg(&x->b, "/unlimited", 500000000, 0, 0)->mem_max_bytes.ok = false;
	assert_int_equal(run_rule2("mem.cgroup_near_limit", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	assert_int_equal(x->out.items.n, 0);

	fx_reset(x);
	assert_int_equal(run_rule2("mem.cgroup_near_limit", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&x->out), "memory.current"));

	fx_reset(x);
	add_memcg(&x->b, "/job", 900000000, 1000000000, 0);      /* exactly 90% */
	assert_int_equal(run_rule2("mem.cgroup_near_limit", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	GD_VEC_AT(x->b.cgroups, struct gd_cgroup, 0)->mem_current_bytes.v = 899999999;
	assert_int_equal(run_rule2("mem.cgroup_near_limit", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
}

/* ---- overrides ---------------------------------------------------------- */

static void test_overrides(void **state)
{
	struct fx *x = *state;
	struct gd_thresholds th;

	gd_thresholds_init(&th);
	set_meminfo(&x->b, 64 * GIB, 2 * GIB);
	assert_override("mem.pressure", &x->b, NULL, &th, &x->out, "mem.pressure.available_pct", "3",
			GD_VERDICT_FIRED, GD_VERDICT_CLEAR);

	fx_reset(x);
	add_shm(&x->b, 4711, "mnt:[2]", true, 64 * MIB, 0);
	assert_override("mem.shm_small", &x->b, NULL, &th, &x->out, "mem.shm_small.min_bytes", "67108864",
			GD_VERDICT_FIRED, GD_VERDICT_CLEAR);

	fx_reset(x);
	swap_fixture(&x->a, &x->b, 20, 20);  /* 20 pages/s */
	assert_override("mem.swapping", &x->a, &x->b, &th, &x->out, "mem.swapping.pages_per_s", "20",
			GD_VERDICT_CLEAR, GD_VERDICT_FIRED);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_pressure_fires),
		T(test_pressure_clear_unknown),
		T(test_pressure_edges),
		T(test_swapping),
		T(test_shm_fires),
		T(test_shm_clear_unknown),
		T(test_shm_edges),
		T(test_cgroup_near_limit),
		T(test_cgroup_clear_unknown_edges),
		T(test_overrides),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
