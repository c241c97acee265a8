/*
 * test_rules_hung.c - host.hung_tasks on snapshots built in C (the kernel's
 * reports grouped per task, NVIDIA frames or none; a process in D across the
 * window, in the driver or not; in D for a moment, one that ran in between,
 * a window shorter than the threshold: silent; nothing read: unknown) and
 * gd_kstack_format on real and malformed /proc/<pid>/stack text.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "collect/proc_pid.h"

static void source(struct gd_snapshot *s, const char *name, const char *status)
{
	struct gd_source *src = GD_PUSH(s, sources, struct gd_source);

	GD_STRSET(src->name, name);
	GD_STRSET(src->status, status);
}

static struct gd_proc *proc(struct gd_snapshot *s, uint64_t pid, const char *comm, const char *state, uint64_t cpu,
			    uint64_t threads)
{
	struct gd_proc *p = GD_PUSH(s, procs, struct gd_proc);

	gd_u64_set(&p->pid, pid);
	gd_u64_set(&p->starttime_ticks, 5000);
	GD_STRSET(p->comm, comm);
	GD_STRSET(p->state, state);
	gd_u64_set(&p->utime_ticks, cpu);
	gd_u64_set(&p->stime_ticks, 10);
	gd_u64_set(&p->num_threads, threads);
	return p;
}

static struct gd_klog_event *hung(struct gd_snapshot *s, uint64_t pid, const char *name, double secs, const char *trace)
{
	struct gd_klog_event *e = GD_PUSH(s, klog, struct gd_klog_event);

	GD_STRSET(e->kind, "hung_task");
	gd_u64_set(&e->pid, pid);
	GD_STRSET(e->process, name);
	gd_f64_set(&e->duration_s, secs);
	gd_f64_set(&e->boot_s, 900);
	GD_STRSET(e->trace, trace);
	return e;
}

/* a and b 90 s apart, both sources read */
static int setup90(void **state)
{
	struct fx *f;

	fx_setup(state);
	f = *state;
	gd_f64_set(&f->b.host.uptime_s, 1090);
	source(&f->a, "processes", "ok");
	source(&f->b, "processes", "ok");
	source(&f->b, "klog", "ok");
	return 0;
}

static void test_klog_reports(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;

	hung(&f->b, 4711, "python", 122, "os_acquire_mutex [nvidia] < _nv036345rm [nvidia]");
	hung(&f->b, 4711, "python", 245, "");   /* the kernel's second report of the task */
	hung(&f->b, 812, "lvm", 120, "");
	assert_int_equal(run_rule2("host.hung_tasks", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 2);
	g = FINDING(f->out, 0);
	assert_string_equal(g->subject, "pid 4711 (python)");
	NEAR(ev_get(g, "blocked_s")->value.v, 245, 0);
	NEAR(ev_get(g, "reports")->value.v, 2, 0);
	NEAR(ev_get(g, "nvidia_frames")->value.v, 2, 0);
	assert_contains(g->summary, "the driver is wedged");
	assert_contains(g->remedy, "nvidia-smi -r");
	g = FINDING(f->out, 1);
	assert_string_equal(g->subject, "pid 812 (lvm)");
	assert_contains(g->summary, "no frame of its call trace is in the NVIDIA modules");
	assert_true(strstr(g->summary, "wedged") == NULL);
}

static void test_d_in_driver(void **state)
{
	struct fx *f = *state;
	struct gd_proc *p;
	const struct gd_finding *g;

	proc(&f->a, 4400, "python", "D", 800, 1);
	p = proc(&f->b, 4400, "python", "D", 800, 1);
	GD_STRSET(p->wchan, "os_acquire_mutex");
	GD_STRSET(p->kstack, "__schedule < schedule < __mutex_lock < os_acquire_mutex [nvidia] < rm_ioctl [nvidia]");
	gd_u64_set(&p->nvidia_fds, 1);
	GD_STRSET(p->nvidia_devs, "0");
	assert_int_equal(run_rule2("host.hung_tasks", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 1);
	g = FINDING(f->out, 0);
	assert_ev(g, "d_state_s", 90, 60);
	assert_string_equal(ev_get(g, "kernel_stack")->text, "os_acquire_mutex [nvidia] < rm_ioctl [nvidia]");
	assert_contains(g->summary, "inside the NVIDIA driver, holding /dev/nvidia0: the driver is wedged");
}

static void test_d_elsewhere(void **state)
{
	struct fx *f = *state;
	struct gd_proc *p;
	const struct gd_finding *g;

	proc(&f->a, 77, "rsync", "D", 3, 4);
	p = proc(&f->b, 77, "rsync", "D", 9, 4);   /* other threads ran: counted */
	GD_STRSET(p->wchan, "rpc_wait_bit_killable");
	GD_STRSET(p->kstack, "rpc_wait_bit_killable < __rpc_execute < nfs4_proc_getattr");
	assert_int_equal(run_rule2("host.hung_tasks", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	g = FINDING(f->out, 0);
	assert_contains(g->summary, "its kernel stack names the subsystem: rpc_wait_bit_killable");
	assert_true(strstr(g->summary, "NVIDIA") == NULL);
}

/* Silent: D only now; D then S; a single thread whose CPU time grew; the
 * pid reused by another process; a window shorter than the threshold. */
static void test_silent(void **state)
{
	struct fx *f = *state;
	struct gd_proc *p;

	proc(&f->b, 1, "a", "D", 0, 1);
	proc(&f->a, 2, "b", "S", 0, 1);
	proc(&f->b, 2, "b", "D", 0, 1);
	proc(&f->a, 3, "c", "D", 100, 1);
	proc(&f->b, 3, "c", "D", 101, 1);
	proc(&f->a, 4, "d", "D", 0, 1);
	p = proc(&f->b, 4, "d", "D", 0, 1);
	gd_u64_set(&p->starttime_ticks, 9000);
	assert_int_equal(run_rule2("host.hung_tasks", &f->a, &f->b, NULL, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);

	fx_reset(f);
	source(&f->a, "processes", "ok");
	source(&f->b, "processes", "ok");
	proc(&f->a, 5, "e", "D", 0, 1);
	proc(&f->b, 5, "e", "D", 0, 1);   /* 2 s of D under a 60 s threshold */
	assert_int_equal(run_rule2("host.hung_tasks", &f->a, &f->b, NULL, &f->out), GD_VERDICT_CLEAR);
}

static void test_unknown(void **state)
{
	struct fx *f = *state;

	fx_reset(f);
	source(&f->b, "klog", "denied");
	assert_int_equal(run_rule2("host.hung_tasks", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
}

/* ---- /proc/<pid>/stack --------------------------------------------------- */

static void test_kstack_format(void **state)
{
	char out[256], small[40];
	const char *new_k = "[<0>] __schedule+0x2d2/0x870\n[<0>] os_acquire_mutex+0x1c/0x30 [nvidia]\n";
	const char *old_k = "[<ffffffffc33d41c2>] uvm_spin_loop+0xb2/0xe0 [nvidia_uvm]\n"
			    "[<ffffffffffffffff>] 0xffffffffffffffff\n";
	const char *junk = "\n[<0>]\nno frame here\n[<0>] +0x1/0x2\n[<0>] sym+0x1/0x2 [bad module!]\n[<0>] tail+0x1/0x2";

	(void)state;
	assert_int_equal(gd_kstack_format(new_k, strlen(new_k), out, sizeof out), 2);
	assert_string_equal(out, "__schedule < os_acquire_mutex [nvidia]");
	assert_int_equal(gd_kstack_format(old_k, strlen(old_k), out, sizeof out), 1);
	assert_string_equal(out, "uvm_spin_loop [nvidia_uvm]");
	/* malformed lines are skipped; a bad module tag is left off the frame */
	assert_int_equal(gd_kstack_format(junk, strlen(junk), out, sizeof out), 2);
	assert_string_equal(out, "sym < tail");
	assert_int_equal(gd_kstack_format("", 0, out, sizeof out), 0);
	assert_string_equal(out, "");
	/* cut at a whole frame, marked */
	assert_int_equal(gd_kstack_format(new_k, strlen(new_k), small, sizeof small), 1);
	assert_string_equal(small, "__schedule < ...");
	assert_int_equal(gd_kstack_format(new_k, strlen(new_k), small, 8), 0);
	assert_string_equal(small, "...");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup90, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_klog_reports), T(test_d_in_driver), T(test_d_elsewhere), T(test_silent), T(test_unknown),
		cmocka_unit_test(test_kstack_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
