/*
 * test_rules_cpu.c - the cpu.* host rules on snapshots built in C: each
 * fires with its evidence, stays clear on healthy values, says unknown
 * without evidence, and turns at its thresholds.
 */
#include "testutil.h"

#include <math.h>

/* ---- builders ----------------------------------------------------------- */

/* Aggregate /proc/stat counters: busy ticks in user, the rest idle. */
static void set_cpu(struct gd_snapshot *s, uint64_t busy, uint64_t idle)
{
	struct gd_cpu *c = &s->cpu;

	gd_u64_set(&c->user_ticks, busy);
	gd_u64_set(&c->nice_ticks, 0);
	gd_u64_set(&c->system_ticks, 0);
	gd_u64_set(&c->idle_ticks, idle);
	gd_u64_set(&c->iowait_ticks, 0);
	gd_u64_set(&c->irq_ticks, 0);
	gd_u64_set(&c->softirq_ticks, 0);
	gd_u64_set(&c->steal_ticks, 0);
}

/* One cpuN line: user, irq, softirq and idle ticks. */
static struct gd_cpus *add_cpus(struct gd_snapshot *s, uint64_t cpu, uint64_t user, uint64_t irq, uint64_t softirq,
				uint64_t idle)
{
	struct gd_cpus *c = GD_PUSH(s, cpus, struct gd_cpus);

	gd_u64_set(&c->cpu, cpu);
	gd_u64_set(&c->user_ticks, user);
	gd_u64_set(&c->nice_ticks, 0);
	gd_u64_set(&c->system_ticks, 0);
	gd_u64_set(&c->idle_ticks, idle);
	gd_u64_set(&c->iowait_ticks, 0);
	gd_u64_set(&c->irq_ticks, irq);
	gd_u64_set(&c->softirq_ticks, softirq);
	gd_u64_set(&c->steal_ticks, 0);
	return c;
}

static void set_freq(struct gd_cpus *c, const char *gov, const char *driver, uint64_t cur, uint64_t max)
{
	GD_STRSET(c->governor, gov);
	GD_STRSET(c->freq_driver, driver);
	gd_u64_set(&c->cur_khz, cur);
	gd_u64_set(&c->max_khz, max);
}

static struct gd_proc *add_proc(struct gd_snapshot *s, uint64_t pid, uint64_t ppid, const char *comm,
				const char *cmdline, uint64_t ticks, uint64_t io_bytes)
{
	struct gd_proc *p = GD_PUSH(s, procs, struct gd_proc);

	gd_u64_set(&p->pid, pid);
	gd_u64_set(&p->ppid, ppid);
	GD_STRSET(p->comm, comm);
	GD_STRSET(p->cmdline, cmdline);
	gd_u64_set(&p->kthread, 0);
	gd_u64_set(&p->starttime_ticks, 5000 + pid);
	gd_u64_set(&p->utime_ticks, ticks);
	gd_u64_set(&p->stime_ticks, 0);
	gd_u64_set(&p->read_bytes, 0);
	gd_u64_set(&p->write_bytes, io_bytes);
	gd_u64_set(&p->nvidia_fds, 0);
	return p;
}

/* A process in both snapshots: ticks and io_bytes used within the window. */
static void add_proc2(struct gd_snapshot *a, struct gd_snapshot *b, uint64_t pid, uint64_t ppid, const char *comm,
		      const char *cmdline, uint64_t ticks, uint64_t io_bytes)
{
	add_proc(a, pid, ppid, comm, cmdline, 1000, 1000000);
	add_proc(b, pid, ppid, comm, cmdline, 1000 + ticks, 1000000 + io_bytes);
}

static struct gd_cgroup *add_cgroup(struct gd_snapshot *s, const char *path, uint64_t periods, uint64_t throttled,
				    uint64_t throttled_us)
{
	struct gd_cgroup *c = GD_PUSH(s, cgroups, struct gd_cgroup);

	GD_STRSET(c->path, path);
	GD_STRSET(c->version, "v2");
	gd_u64_set(&c->pid, 4711);
	gd_u64_set(&c->self, 0);
	gd_u64_set(&c->cpu_quota_us, 200000);
	gd_u64_set(&c->cpu_period_us, 100000);
	gd_u64_set(&c->nr_periods, periods);
	gd_u64_set(&c->nr_throttled, throttled);
	gd_u64_set(&c->throttled_us, throttled_us);
	return c;
}

static void add_irq(struct gd_snapshot *s, const char *irq, const char *netif, uint64_t cpu, uint64_t count)
{
	struct gd_nic_irq *r = GD_PUSH(s, nic_irqs, struct gd_nic_irq);

	GD_STRSET(r->irq, irq);
	GD_STRSET(r->name, netif);
	GD_STRSET(r->netif, netif);
	gd_u64_set(&r->cpu, cpu);
	gd_u64_set(&r->count, count);
}

/* ---- cpu.saturated ------------------------------------------------------ */

/* On the fixture's fresh pair (2 s apart): busy of the of ticks busy. */
static void saturated_fixture(struct gd_snapshot *a, struct gd_snapshot *b, uint64_t busy, uint64_t of)
{
	set_cpu(a, 10000, 50000);
	set_cpu(b, 10000 + busy, 50000 + (of - busy));
	gd_u64_set(&b->cpu.cpus_online, 16);
	gd_f64_set(&b->cpu.load1, 32.0);
}

static void test_saturated_fires(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	saturated_fixture(&x->a, &x->b, 3104, 3200);
	gd_f64_set(&x->b.psi.cpu_some_avg10, 55.0);
	assert_int_equal(run_rule2("cpu.saturated", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	f = one_finding(&x->out);
	assert_string_equal(f->subject, "host");
	assert_int_equal(f->severity, GD_SEV_WARNING);
	assert_ev(f, "busy_pct", 97.0, 90.0);
	assert_ev(f, "psi_cpu_some_pct", 55.0, 40.0);
	assert_float_equal(ev_get(f, "load_per_cpu")->value.v, 2.0, 1e-9);
	assert_false(ev_get(f, "load_per_cpu")->threshold.ok);
	assert_non_null(strstr(f->summary, "All 16 CPUs are 97% busy over 2.0 s (threshold 90%)"));
	assert_non_null(strstr(f->summary, "PSI cpu some 55%"));
}

static void test_saturated_psi_only(void **state)
{
	struct fx *x = *state;

	/* No /proc/stat counters, but PSI says tasks wait: fires on PSI. */
	gd_f64_set(&x->b.psi.cpu_some_avg10, 40.0);
	assert_int_equal(run_rule2("cpu.saturated", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	assert_false(ev_get(FINDING(x->out, 0), "busy_pct")->value.ok);
	assert_float_equal(ev_get(FINDING(x->out, 0), "psi_cpu_some_pct")->value.v, 40.0, 1e-9);
}

static void test_saturated_clear(void **state)
{
	struct fx *x = *state;

	saturated_fixture(&x->a, &x->b, 1600, 3200);
	gd_f64_set(&x->b.psi.cpu_some_avg10, 5.0);
	assert_int_equal(run_rule2("cpu.saturated", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	assert_int_equal(x->out.items.n, 0);
	assert_int_equal(x->out.evaluated, 1);
}

static void test_saturated_unknown(void **state)
{
	struct fx *x = *state;

	gd_f64_set(&x->b.psi.cpu_some_avg10, 5.0);
	assert_int_equal(run_rule2("cpu.saturated", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&x->out), "no /proc/stat CPU counters in both snapshots"));
	assert_int_equal(x->out.items.n, 0);

	/* One snapshot: no rate. */
	fx_reset(x);
	saturated_fixture(&x->a, &x->b, 3104, 3200);
	assert_int_equal(run_rule2("cpu.saturated", &x->b, NULL, NULL, &x->out), GD_VERDICT_UNKNOWN);
}

static void test_saturated_edges(void **state)
{
	struct fx *x = *state;

	saturated_fixture(&x->a, &x->b, 900, 1000);  /* exactly 90% */
	assert_int_equal(run_rule2("cpu.saturated", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);

	fx_reset(x);
	saturated_fixture(&x->a, &x->b, 899, 1000);  /* 89.9% */
	assert_int_equal(run_rule2("cpu.saturated", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);

	fx_reset(x);
	saturated_fixture(&x->a, &x->b, 500, 1000);
	gd_f64_set(&x->b.psi.cpu_some_avg10, 39.99);
	assert_int_equal(run_rule2("cpu.saturated", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	gd_f64_set(&x->b.psi.cpu_some_avg10, 40.0);
	assert_int_equal(run_rule2("cpu.saturated", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	/* Fired on PSI alone while the window was quiet: the summary says so
	 * rather than "the CPUs are 50% busy (threshold 90%)". */
	assert_non_null(strstr(FINDING(x->out, 0)->summary, "last 10 s"));
	assert_non_null(strstr(FINDING(x->out, 0)->summary, "window measured the CPUs 50% busy"));
}

/* ---- cpu.background_hogs ------------------------------------------------ */

/* On the fixture's fresh pair: a GPU job (pid 100) with a busy loader
 * worker (101), a kernel thread, and gpudoctor itself (300), all of which
 * must be ignored. */
static void hogs_fixture(struct gd_snapshot *a, struct gd_snapshot *b, bool with_job)
{
	gd_u64_set(&b->cpu.cpus_online, 16);
	gd_u64_set(&b->host.self_pid, 300);
	add_proc2(a, b, 1, 0, "systemd", "/sbin/init", 1, 0);
	add_proc2(a, b, 2, 0, "kthreadd", "", 150, 0);
	gd_u64_set(&GD_VEC_AT(a->procs, struct gd_proc, 1)->kthread, 1);
	gd_u64_set(&GD_VEC_AT(b->procs, struct gd_proc, 1)->kthread, 1);
	add_proc2(a, b, 100, 1, "python", "python train.py", 190, 0);
	add_proc2(a, b, 101, 100, "pt_data_worker", "python train.py", 180, 300000000);
	if (with_job) {
		gd_u64_set(&GD_VEC_AT(a->procs, struct gd_proc, 2)->nvidia_fds, 3);
		gd_u64_set(&GD_VEC_AT(b->procs, struct gd_proc, 2)->nvidia_fds, 3);
	}
	add_proc2(a, b, 300, 1, "gpudoctor", "gpudoctor check", 160, 0);
}

static void test_hogs_fires(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	hogs_fixture(&x->a, &x->b, true);
	add_proc2(&x->a, &x->b, 200, 1, "rsync", "rsync -a /data /backup", 170, 240000000);
	assert_int_equal(run_rule2("cpu.background_hogs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	f = one_finding(&x->out);
	assert_string_equal(f->subject, "pid 200 (rsync)");
	assert_ev(f, "cpu_core_pct", 85.0, 25.0);
	assert_ev(f, "io_mb_per_s", 120.0, 50.0);
	/* systemd 0.5% + rsync 85% of a core, over 16 CPUs. */
	assert_float_equal(ev_get(f, "background_total_pct")->value.v, 85.5 / 16, 1e-9);
	assert_float_equal(ev_get(f, "gpu_jobs")->value.v, 1, 1e-9);
	assert_non_null(strstr(f->summary, "rsync -a /data /backup"));
	assert_null(strstr(f->summary, "No GPU job"));
	assert_non_null(strstr(f->remedy, "renice -n 19 -p 200"));
}

/* serve's tiered walk: the hog's fds read 6 s before a 2 s window's end
 * are said to be that old; read within the window, nothing is added. */
static void test_hogs_fds_age(void **state)
{
	struct fx *x = *state;
	struct gd_proc *p;

	hogs_fixture(&x->a, &x->b, true);
	add_proc2(&x->a, &x->b, 200, 1, "rsync", "rsync -a /data /backup", 170, 240000000);
	p = GD_VEC_AT(x->b.procs, struct gd_proc, x->b.procs.n - 1);
	gd_f64_set(&p->detail_uptime_s, x->b.host.uptime_s.v - 6.0);
	assert_int_equal(run_rule2("cpu.background_hogs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	assert_ev(one_finding(&x->out), "fds_age_s", 6.0, 2.0);

	fx_reset(x);
	hogs_fixture(&x->a, &x->b, true);
	add_proc2(&x->a, &x->b, 200, 1, "rsync", "rsync -a /data /backup", 170, 240000000);
	p = GD_VEC_AT(x->b.procs, struct gd_proc, x->b.procs.n - 1);
	gd_f64_set(&p->detail_uptime_s, x->b.host.uptime_s.v - 1.0);
	assert_int_equal(run_rule2("cpu.background_hogs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	for (size_t i = 0; i < one_finding(&x->out)->nev; i++)
		assert_string_not_equal(one_finding(&x->out)->ev[i].name, "fds_age_s");
}

static void test_hogs_no_job(void **state)
{
	struct fx *x = *state;

	/* Without a GPU job, the would-be job processes are background too. */
	hogs_fixture(&x->a, &x->b, false);
	assert_int_equal(run_rule2("cpu.background_hogs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	assert_int_equal(x->out.items.n, 2);
	assert_string_equal(FINDING(x->out, 0)->subject, "pid 100 (python)");
	assert_string_equal(FINDING(x->out, 1)->subject, "pid 101 (pt_data_worker)");
	assert_float_equal(ev_get(FINDING(x->out, 1), "io_mb_per_s")->value.v, 150.0, 1e-9);
	assert_float_equal(ev_get(FINDING(x->out, 0), "gpu_jobs")->value.v, 0, 1e-9);
	assert_true(strncmp(FINDING(x->out, 0)->summary, "No GPU job found", 16) == 0);
}

static void test_hogs_io_only_and_top5(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	hogs_fixture(&x->a, &x->b, true);
	add_proc2(&x->a, &x->b, 400, 1, "restic", "restic backup /", 0, 100000000);
	assert_int_equal(run_rule2("cpu.background_hogs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_string_equal(f->subject, "pid 400 (restic)");
	assert_float_equal(ev_get(f, "io_mb_per_s")->value.v, 50.0, 1e-9);
	assert_float_equal(ev_get(f, "cpu_core_pct")->value.v, 0.0, 1e-9);

	/* Seven hogs: the five worst are reported, worst first. */
	fx_reset(x);
	hogs_fixture(&x->a, &x->b, true);
	for (uint64_t i = 0; i < 7; i++)
		add_proc2(&x->a, &x->b, 500 + i, 1, "stress", "stress -c 1", 60 + 10 * i, 0);
	assert_int_equal(run_rule2("cpu.background_hogs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	assert_int_equal(x->out.items.n, 5);
	assert_string_equal(FINDING(x->out, 0)->subject, "pid 506 (stress)");
	assert_string_equal(FINDING(x->out, 4)->subject, "pid 502 (stress)");
	assert_float_equal(ev_get(FINDING(x->out, 0), "cpu_core_pct")->value.v, 60.0, 1e-9);
}

static void test_hogs_total_only(void **state)
{
	struct fx *x = *state;

	/* 4 CPUs, two processes at 20% of a core each: 10% of all CPUs. */
	hogs_fixture(&x->a, &x->b, true);
	gd_u64_set(&x->b.cpu.cpus_online, 4);
	GD_VEC_AT(x->b.procs, struct gd_proc, 0)->utime_ticks.v = 1000; /* systemd idle */
	add_proc2(&x->a, &x->b, 600, 1, "updatedb", "updatedb", 40, 0);
	add_proc2(&x->a, &x->b, 601, 1, "apt", "apt-get upgrade", 40, 0);
	assert_int_equal(run_rule2("cpu.background_hogs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	assert_int_equal(x->out.items.n, 2);
	assert_float_equal(ev_get(FINDING(x->out, 0), "background_total_pct")->value.v, 10.0, 1e-9);
	assert_float_equal(ev_get(FINDING(x->out, 0), "background_total_pct")->threshold.v, 10.0, 1e-9);
	assert_float_equal(ev_get(FINDING(x->out, 1), "cpu_core_pct")->value.v, 20.0, 1e-9);

	/* 39 + 40 ticks: 9.875% of all CPUs, just below. */
	fx_reset(x);
	hogs_fixture(&x->a, &x->b, true);
	gd_u64_set(&x->b.cpu.cpus_online, 4);
	GD_VEC_AT(x->b.procs, struct gd_proc, 0)->utime_ticks.v = 1000;
	add_proc2(&x->a, &x->b, 600, 1, "updatedb", "updatedb", 39, 0);
	add_proc2(&x->a, &x->b, 601, 1, "apt", "apt-get upgrade", 40, 0);
	assert_int_equal(run_rule2("cpu.background_hogs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
}

static void test_hogs_edges(void **state)
{
	struct fx *x = *state;

	hogs_fixture(&x->a, &x->b, true);
	add_proc2(&x->a, &x->b, 200, 1, "tar", "tar c /data", 50, 99999999); /* 25.0%, 49.99 MB/s */
	assert_int_equal(run_rule2("cpu.background_hogs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	assert_int_equal(x->out.items.n, 1);
	assert_float_equal(ev_get(FINDING(x->out, 0), "cpu_core_pct")->value.v, 25.0, 1e-9);

	fx_reset(x);
	hogs_fixture(&x->a, &x->b, true);
	add_proc2(&x->a, &x->b, 200, 1, "tar", "tar c /data", 49, 99999999); /* 24.5%, 49.99 MB/s */
	assert_int_equal(run_rule2("cpu.background_hogs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	assert_int_equal(x->out.items.n, 0);
}

static void test_hogs_clear_and_pid_reuse(void **state)
{
	struct fx *x = *state;

	hogs_fixture(&x->a, &x->b, true);
	/* pid 200 was reused: another start time, so no rate is taken. */
	add_proc(&x->a, 200, 1, "old", "old", 10, 0);
	add_proc(&x->b, 200, 1, "new", "new", 100000, 0);
	GD_VEC_AT(x->b.procs, struct gd_proc, x->b.procs.n - 1)->starttime_ticks.v = 99999;
	assert_int_equal(run_rule2("cpu.background_hogs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	assert_int_equal(x->out.items.n, 0);
}

static void test_hogs_unknown(void **state)
{
	struct fx *x = *state;

	assert_int_equal(run_rule2("cpu.background_hogs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&x->out), "no process list"));

	fx_reset(x);
	hogs_fixture(&x->a, &x->b, true);
	x->b.host.clk_tck.ok = false;
	assert_int_equal(run_rule2("cpu.background_hogs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&x->out), "clock tick"));

	/* Processes without CPU or I/O counters. */
	fx_reset(x);
	add_proc2(&x->a, &x->b, 200, 1, "x", "x", 100, 0);
	GD_VEC_AT(x->a.procs, struct gd_proc, 0)->utime_ticks.ok = false;
	GD_VEC_AT(x->a.procs, struct gd_proc, 0)->write_bytes.ok = false;
	assert_int_equal(run_rule2("cpu.background_hogs", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&x->out), "counters in both snapshots"));
}

/* ---- cpu.governor_powersave --------------------------------------------- */

static void test_governor_fires(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	for (uint64_t i = 0; i < 4; i++)
		set_freq(add_cpus(&x->b, i, 0, 0, 0, 100), "powersave", "intel_pstate", 3000000, 3000000);
	/* A single snapshot is enough for the governor half. */
	assert_int_equal(run_rule2("cpu.governor_powersave", &x->b, NULL, NULL, &x->out), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_int_equal(f->severity, GD_SEV_INFO);
	assert_string_equal(f->subject, "host");
	assert_string_equal(ev_get(f, "governor")->text, "powersave");
	assert_float_equal(ev_get(f, "governor_cpus")->value.v, 4, 1e-9);
	assert_string_equal(ev_get(f, "governor_cpu_list")->text, "cpu0-3");
	assert_string_equal(ev_get(f, "freq_driver")->text, "intel_pstate");
	assert_non_null(strstr(f->summary, "4 of 4 CPUs (cpu0-3) use the powersave governor"));
	assert_non_null(strstr(f->summary, "intel_pstate"));
	assert_non_null(strstr(f->remedy, "energy_performance_preference"));

	fx_reset(x);
	for (uint64_t i = 0; i < 8; i++)
		set_freq(add_cpus(&x->b, i, 0, 0, 0, 100),
			 i < 3 ? "powersave" : i == 5 ? "conservative" : "performance", "acpi-cpufreq", 2000000,
			 3000000);
	assert_int_equal(run_rule2("cpu.governor_powersave", &x->b, NULL, NULL, &x->out), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_string_equal(ev_get(f, "governor_cpu_list")->text, "cpu0-2,5");
	assert_string_equal(ev_get(f, "governor")->text, "powersave,conservative");
	assert_null(strstr(f->summary, "intel_pstate"));
}

/* On the fixture's fresh pair, moved to 1 s apart: cpu0 busy (user of 100
 * ticks) at cur of 3.0 GHz, governor schedutil. */
static void freq_fixture(struct gd_snapshot *a, struct gd_snapshot *b, uint64_t busy, uint64_t cur)
{
	gd_f64_set(&b->host.uptime_s, a->host.uptime_s.v + 1.0);
	set_freq(add_cpus(a, 0, 1000, 0, 0, 1000), "schedutil", "acpi-cpufreq", cur, 3000000);
	set_freq(add_cpus(b, 0, 1000 + busy, 0, 0, 1000 + 100 - busy), "schedutil", "acpi-cpufreq", cur, 3000000);
	set_freq(add_cpus(a, 1, 0, 0, 0, 1000), "schedutil", "acpi-cpufreq", 800000, 3000000);
	set_freq(add_cpus(b, 1, 0, 0, 0, 1100), "schedutil", "acpi-cpufreq", 800000, 3000000);
}

static void test_governor_slow_busy_cpu(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	freq_fixture(&x->a, &x->b, 80, 1200000);
	assert_int_equal(run_rule2("cpu.governor_powersave", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	f = one_finding(&x->out);
	assert_float_equal(ev_get(f, "slow_busy_cpus")->value.v, 1, 1e-9);
	assert_ev(f, "freq_pct", 40.0, 60.0);
	assert_float_equal(ev_get(f, "busy_pct")->value.v, 80.0, 1e-9);
	assert_non_null(strstr(f->summary, "cpu0 at 40% while 80% busy"));

	/* One snapshot: the busy share is unknown, only the governor counts. */
	fx_reset(x);
	freq_fixture(&x->a, &x->b, 80, 1200000);
	assert_int_equal(run_rule2("cpu.governor_powersave", &x->b, NULL, NULL, &x->out), GD_VERDICT_CLEAR);
}

static void test_governor_edges(void **state)
{
	struct fx *x = *state;

	freq_fixture(&x->a, &x->b, 80, 1800000); /* exactly 60% of max */
	assert_int_equal(run_rule2("cpu.governor_powersave", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);

	fx_reset(x);
	freq_fixture(&x->a, &x->b, 80, 1799999);
	assert_int_equal(run_rule2("cpu.governor_powersave", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);

	fx_reset(x);
	freq_fixture(&x->a, &x->b, 50, 1200000); /* exactly 50% busy counts as busy */
	assert_int_equal(run_rule2("cpu.governor_powersave", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);

	fx_reset(x);
	freq_fixture(&x->a, &x->b, 49, 1200000);
	assert_int_equal(run_rule2("cpu.governor_powersave", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
}

static void test_governor_clear_unknown(void **state)
{
	struct fx *x = *state;

	for (uint64_t i = 0; i < 4; i++) {
		set_freq(add_cpus(&x->a, i, 0, 0, 0, 100), "performance", "intel_pstate", 3500000, 3500000);
		set_freq(add_cpus(&x->b, i, 200, 0, 0, 100), "performance", "intel_pstate", 3500000, 3500000);
	}
	assert_int_equal(run_rule2("cpu.governor_powersave", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	assert_int_equal(x->out.items.n, 0);

	/* A VM: /proc/stat lines but no cpufreq. */
	fx_reset(x);
	add_cpus(&x->a, 0, 0, 0, 0, 100);
	add_cpus(&x->b, 0, 200, 0, 0, 100);
	assert_int_equal(run_rule2("cpu.governor_powersave", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&x->out), "no cpufreq in sysfs"));
}

/* ---- cpu.cgroup_throttled ----------------------------------------------- */

static void test_throttled_fires(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	add_cgroup(&x->a, "/kubepods/pod1/c1", 100, 10, 1000000);
	add_cgroup(&x->b, "/kubepods/pod1/c1", 120, 18, 1600000);
	assert_int_equal(run_rule2("cpu.cgroup_throttled", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	f = one_finding(&x->out);
	assert_string_equal(f->subject, "/kubepods/pod1/c1");
	assert_ev(f, "throttled_pct", 40.0, 5.0);
	assert_float_equal(ev_get(f, "throttled_s")->value.v, 0.6, 1e-9);
	assert_float_equal(ev_get(f, "quota_cores")->value.v, 2.0, 1e-9);
	assert_non_null(strstr(f->summary, "40% of its 20 CPU periods"));
	assert_non_null(strstr(f->remedy, "quota of 2 cores"));
}

static void test_throttled_clear_unknown(void **state)
{
	struct fx *x = *state;
	struct gd_cgroup *c;

	add_cgroup(&x->a, "/job", 100, 10, 1000000);
	add_cgroup(&x->b, "/job", 120, 10, 1000000);
	/* No quota: throttle counts mean nothing here. */
	add_cgroup(&x->a, "/noquota", 100, 0, 0)->cpu_quota_us.ok = false;
	c = add_cgroup(&x->b, "/noquota", 120, 20, 0);
	c->cpu_quota_us.ok = false;
	assert_int_equal(run_rule2("cpu.cgroup_throttled", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	assert_int_equal(x->out.items.n, 0);

	fx_reset(x);
	assert_int_equal(run_rule2("cpu.cgroup_throttled", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&x->out), "cpu.stat"));

	/* Records without cpu.stat counters (v1 without the cpu controller). */
	fx_reset(x);
	add_cgroup(&x->a, "/job", 0, 0, 0)->nr_periods.ok = false;
	add_cgroup(&x->b, "/job", 0, 0, 0)->nr_periods.ok = false;
	assert_int_equal(run_rule2("cpu.cgroup_throttled", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
}

static void test_throttled_edges(void **state)
{
	struct fx *x = *state;

	add_cgroup(&x->a, "/job", 100, 10, 0);
	add_cgroup(&x->b, "/job", 120, 11, 0);  /* 1 of 20 = 5% */
	assert_int_equal(run_rule2("cpu.cgroup_throttled", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);

	fx_reset(x);
	add_cgroup(&x->a, "/job", 100, 10, 0);
	add_cgroup(&x->b, "/job", 121, 11, 0);  /* 1 of 21 = 4.8% */
	assert_int_equal(run_rule2("cpu.cgroup_throttled", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
}

/* ---- cpu.irq_imbalance -------------------------------------------------- */

/* On the fixture's fresh pair, 4 CPUs over 2 s at 100 Hz (200 ticks each);
 * hot_irq and other_irq are the irq+softirq ticks of cpu3 and of the others;
 * eth0's interrupts go to cpu3 (hot_count) and cpu2 (100000 - hot_count). */
static void irq_fixture(struct gd_snapshot *a, struct gd_snapshot *b, uint64_t hot_irq, uint64_t other_irq,
			uint64_t hot_count)
{
	for (uint64_t i = 0; i < 4; i++) {
		uint64_t irq = i == 3 ? hot_irq : other_irq;

		add_cpus(a, i, 500, 100, 100, 5000);
		add_cpus(b, i, 500, 100 + irq / 4, 100 + irq - irq / 4, 5000 + 200 - irq);
	}
	for (uint64_t i = 0; i < 4; i++) {
		add_irq(a, "45", "eth0", i, 1000);
		add_irq(a, "46", "eth0", i, 1000);
	}
	add_irq(b, "45", "eth0", 0, 1000);
	add_irq(b, "45", "eth0", 1, 1000);
	add_irq(b, "45", "eth0", 2, 1000 + (100000 - hot_count));
	add_irq(b, "45", "eth0", 3, 1000 + hot_count / 2);
	add_irq(b, "46", "eth0", 0, 1000);
	add_irq(b, "46", "eth0", 1, 1000);
	add_irq(b, "46", "eth0", 2, 1000);
	add_irq(b, "46", "eth0", 3, 1000 + hot_count - hot_count / 2);
}

static void test_irq_fires(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	irq_fixture(&x->a, &x->b, 126, 4, 98000);
	assert_int_equal(run_rule2("cpu.irq_imbalance", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);
	f = one_finding(&x->out);
	assert_string_equal(f->subject, "eth0");
	assert_float_equal(ev_get(f, "hot_cpu")->value.v, 3, 1e-9);
	assert_ev(f, "hot_cpu_irq_pct", 63.0, 50.0);
	assert_ev(f, "others_max_irq_pct", 2.0, 10.0);
	assert_float_equal(ev_get(f, "nic_irq_share_pct")->value.v, 98.0, 1e-9);
	assert_float_equal(ev_get(f, "nic_irqs_per_s")->value.v, 50000.0, 1e-9);
	assert_non_null(strstr(f->summary, "cpu3 serves 98% of eth0's interrupts"));
	assert_non_null(strstr(f->remedy, "ethtool -L eth0"));
}

static void test_irq_edges(void **state)
{
	struct fx *x = *state;

	irq_fixture(&x->a, &x->b, 100, 19, 98000);  /* hot exactly 50%, others 9.5% */
	assert_int_equal(run_rule2("cpu.irq_imbalance", &x->a, &x->b, NULL, &x->out), GD_VERDICT_FIRED);

	fx_reset(x);
	irq_fixture(&x->a, &x->b, 99, 4, 98000);    /* hot 49.5% */
	assert_int_equal(run_rule2("cpu.irq_imbalance", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);

	fx_reset(x);
	irq_fixture(&x->a, &x->b, 126, 20, 98000);  /* others exactly 10%: not "below" */
	assert_int_equal(run_rule2("cpu.irq_imbalance", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
}

static void test_irq_clear_unknown(void **state)
{
	struct fx *x = *state;

	irq_fixture(&x->a, &x->b, 12, 10, 50000);
	assert_int_equal(run_rule2("cpu.irq_imbalance", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);
	assert_int_equal(x->out.items.n, 0);

	/* A single CPU: nowhere to spread the queues to. */
	fx_reset(x);
	add_cpus(&x->a, 0, 0, 0, 0, 100);
	add_cpus(&x->b, 0, 0, 0, 150, 150);
	add_irq(&x->a, "45", "eth0", 0, 1000);
	add_irq(&x->b, "45", "eth0", 0, 90000);
	assert_int_equal(run_rule2("cpu.irq_imbalance", &x->a, &x->b, NULL, &x->out), GD_VERDICT_CLEAR);

	fx_reset(x);
	add_cpus(&x->a, 0, 0, 0, 0, 100);
	add_cpus(&x->b, 0, 0, 0, 0, 300);
	assert_int_equal(run_rule2("cpu.irq_imbalance", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&x->out), "no NIC interrupt lines"));

	/* Interrupt counts without per-CPU ticks. */
	fx_reset(x);
	irq_fixture(&x->a, &x->b, 126, 4, 98000);
	gd_vec_reset(&x->a.cpus);
	assert_int_equal(run_rule2("cpu.irq_imbalance", &x->a, &x->b, NULL, &x->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&x->out), "irq/softirq ticks"));
}

/* ---- overrides ---------------------------------------------------------- */

static void test_overrides(void **state)
{
	struct fx *x = *state;
	struct gd_thresholds th;
	struct gd_err err;

	gd_thresholds_init(&th);
	saturated_fixture(&x->a, &x->b, 3104, 3200);
	assert_int_equal(gd_thresholds_set(&th, "cpu.saturated.busy_pct", "98", &err), 0);
	assert_override("cpu.saturated", &x->a, &x->b, &th, &x->out, "cpu.saturated.busy_pct", "95",
			GD_VERDICT_CLEAR, GD_VERDICT_FIRED);
	assert_float_equal(ev_get(FINDING(x->out, 0), "busy_pct")->threshold.v, 95.0, 1e-9);

	fx_reset(x);
	add_cgroup(&x->a, "/job", 100, 10, 0);
	add_cgroup(&x->b, "/job", 120, 12, 0);  /* 10% */
	assert_override("cpu.cgroup_throttled", &x->a, &x->b, &th, &x->out, "cpu.cgroup_throttled.throttled_pct",
			"20", GD_VERDICT_FIRED, GD_VERDICT_CLEAR);

	fx_reset(x);
	hogs_fixture(&x->a, &x->b, true);
	add_proc2(&x->a, &x->b, 200, 1, "tar", "tar c /data", 30, 0);  /* 15% of a core */
	assert_override("cpu.background_hogs", &x->a, &x->b, &th, &x->out, "cpu.background_hogs.proc_core_pct",
			"15", GD_VERDICT_CLEAR, GD_VERDICT_FIRED);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_saturated_fires),
		T(test_saturated_psi_only),
		T(test_saturated_clear),
		T(test_saturated_unknown),
		T(test_saturated_edges),
		T(test_hogs_fires),
		T(test_hogs_fds_age),
		T(test_hogs_no_job),
		T(test_hogs_io_only_and_top5),
		T(test_hogs_total_only),
		T(test_hogs_edges),
		T(test_hogs_clear_and_pid_reuse),
		T(test_hogs_unknown),
		T(test_governor_fires),
		T(test_governor_slow_busy_cpu),
		T(test_governor_edges),
		T(test_governor_clear_unknown),
		T(test_throttled_fires),
		T(test_throttled_clear_unknown),
		T(test_throttled_edges),
		T(test_irq_fires),
		T(test_irq_edges),
		T(test_irq_clear_unknown),
		T(test_overrides),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
