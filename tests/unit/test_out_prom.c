/*
 * test_out_prom.c - the Prometheus output: names and units from the field
 * tables, counters, label escaping, absent values, the process selection,
 * findings and collector metrics.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "output/output.h"
#include "testutil.h"

/* Renders gd_out_prom over (a, b) or just b, with findings f. */
static char *render(const struct gd_snapshot *a, const struct gd_snapshot *b, const struct gd_findings *f)
{
	const struct gd_snapshot *snaps[2] = { a ? a : b, b };
	struct gd_window w = { a ? snaps : snaps + 1, a ? 2 : 1 };
	struct gd_findings none;
	struct gd_report r = { &w, f ? f : &none, false, "test", 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	gd_findings_init(&none);
	gd_out_prom(m, &r);
	assert_int_equal(fclose(m), 0);
	gd_findings_release(&none);
	return buf;
}

static void assert_has(const char *text, const char *line)
{
	if (!strstr(text, line))
		fail_msg("output lacks \"%s\":\n%s", line, text);
}

static void assert_lacks(const char *text, const char *what)
{
	if (strstr(text, what))
		fail_msg("output has \"%s\":\n%s", what, text);
}

static void name_of(const char *section, const char *field, const char *want, double want_scale)
{
	const struct gd_record_desc *d = gd_section_find(section);
	const struct gd_field *f;
	char buf[160];
	double scale = -1;

	assert_non_null(d);
	f = gd_field_find(d, field);
	assert_non_null(f);
	assert_true(gd_prom_metric_name(section, f, buf, sizeof buf, &scale));
	assert_string_equal(buf, want);
	assert_true(fabs(scale - want_scale) <= 1e-12 * fabs(want_scale));
}

static void test_names_and_units(void **state)
{
	const struct gd_record_desc *d = gd_section_find("cpus");
	char buf[160];
	double scale;

	(void)state;
	name_of("cpus", "user_ticks", "gpudoctor_cpus_user_seconds_total", 0);
	name_of("cpus", "cur_khz", "gpudoctor_cpus_cur_hertz", 1e3);
	name_of("cpus", "core_throttle_count", "gpudoctor_cpus_core_throttle_count_total", 1);
	name_of("cpu", "threads_total", "gpudoctor_cpu_threads", 1);
	name_of("cpu", "ctxt", "gpudoctor_cpu_ctxt_total", 1);
	name_of("host", "uptime_s", "gpudoctor_host_uptime_seconds", 1);
	name_of("psi", "cpu_some_avg10", "gpudoctor_psi_cpu_some_avg10_ratio", 0.01);
	name_of("psi", "io_full_total_us", "gpudoctor_psi_io_full_total_seconds_total", 1e-6);
	name_of("disks", "read_ms", "gpudoctor_disks_read_seconds_total", 1e-3);
	name_of("disks", "sectors_read", "gpudoctor_disks_read_bytes_total", 512);
	name_of("disks", "sectors_written", "gpudoctor_disks_written_bytes_total", 512);
	name_of("netifs", "speed_mbps", "gpudoctor_netifs_speed_bytes_per_second", 125000);
	name_of("netifs", "rx_bytes", "gpudoctor_netifs_rx_bytes_total", 1);
	name_of("ib_ports", "rate_gbps", "gpudoctor_ib_ports_rate_bytes_per_second", 1.25e8);
	name_of("sensors", "temp_c", "gpudoctor_sensors_temp_celsius", 1);
	name_of("mem", "pswpin", "gpudoctor_mem_pswpin_total", 1);
	name_of("cgroups", "throttled_us", "gpudoctor_cgroups_throttled_seconds_total", 1e-6);
	/* labels and strings are not metrics */
	assert_false(gd_prom_metric_name("cpus", gd_field_find(d, "cpu"), buf, sizeof buf, &scale));
	assert_false(gd_prom_metric_name("cpus", gd_field_find(d, "governor"), buf, sizeof buf, &scale));
	/* too small a buffer is refused, not truncated */
	assert_false(gd_prom_metric_name("cpus", gd_field_find(d, "user_ticks"), buf, 10, &scale));
}

/* Every numeric field of every section gets a legal name, unique overall. */
static void test_every_section_legal_and_unique(void **state)
{
	char (*names)[160] = calloc(1024, sizeof *names);
	size_t n = 0;

	(void)state;
	assert_non_null(names);
	for (size_t i = 0; i < gd_nsections; i++) {
		const struct gd_record_desc *d = &gd_sections[i];

		for (size_t j = 0; j < d->nfields; j++) {
			double scale;
			char *p;

			if (!gd_prom_metric_name(d->name, &d->fields[j], names[n], sizeof names[n], &scale))
				continue;
			for (p = names[n]; *p; p++)
				if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
					fail_msg("illegal metric name %s", names[n]);
			if (d->fields[j].kind != GD_FK_COUNTER && strstr(names[n], "_total") &&
			    strcmp(names[n] + strlen(names[n]) - 6, "_total") == 0)
				fail_msg("gauge %s ends in _total", names[n]);
			for (size_t k = 0; k < n; k++)
				if (strcmp(names[k], names[n]) == 0)
					fail_msg("metric %s twice", names[n]);
			assert_true(++n < 1024);
		}
	}
	assert_true(n > 100);
	free(names);
}

static void test_label_escaping(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(m);
	gd_prom_label_value(m, "a\"b\\c\nd");
	fputc('|', m);
	gd_prom_label_value(m, "Inlet Temp 25\xc2\xb0" "C");  /* valid UTF-8 stays */
	fputc('|', m);
	gd_prom_label_value(m, "x\xff\xfey");                 /* stray bytes */
	fputc('|', m);
	gd_prom_label_value(m, "\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80!");  /* overlong, surrogate, > U+10FFFF */
	fputc('|', m);
	gd_prom_label_value(m, "\xe2\x82");                    /* truncated sequence */
	assert_int_equal(fclose(m), 0);
	assert_string_equal(buf, "a\\\"b\\\\c\\nd|Inlet Temp 25\xc2\xb0" "C|x??y|?????????" "!|??");
	free(buf);
}

/* GPUs carry the labels dashboards and alerts use: gpu, model, uuid,
 * pci_bus_id (the fields index and name renamed), and nothing else. */
static void test_gpu_labels(void **state)
{
	struct gd_snapshot b;
	struct gd_gpu *g;
	char *text;

	(void)state;
	gd_snapshot_init(&b);
	gd_f64_set(&b.host.uptime_s, 100);
	g = GD_PUSH(&b, gpus, struct gd_gpu);
	gd_u64_set(&g->index, 3);
	GD_STRSET(g->name, "NVIDIA H200");
	GD_STRSET(g->uuid, "GPU-1");
	GD_STRSET(g->pci_bus_id, "0000:1b:00.0");
	GD_STRSET(g->serial, "123");
	gd_f64_set(&g->temp_c, 61);
	text = render(NULL, &b, NULL);
	assert_has(text, "gpudoctor_gpus_temp_celsius{gpu=\"3\",model=\"NVIDIA H200\",uuid=\"GPU-1\",pci_bus_id=\"0000:1b:00.0\"} 61\n");
	assert_lacks(text, "serial=");
	assert_lacks(text, "index=");
	free(text);
	gd_snapshot_release(&b);
}

static void test_values_counters_absent(void **state)
{
	struct gd_snapshot s;
	struct gd_cpus *c0, *c1;
	struct gd_disk *d;
	char *out;

	(void)state;
	gd_snapshot_init(&s);
	gd_u64_set(&s.host.clk_tck, 100);
	GD_STRSET(s.host.hostname, "gpu-a17");
	gd_u64_set(&s.host.self_pid, 99);
	c0 = GD_PUSH(&s, cpus, struct gd_cpus);
	gd_u64_set(&c0->cpu, 0);
	gd_u64_set(&c0->user_ticks, 250);
	gd_u64_set(&c0->cur_khz, 2400000);
	GD_STRSET(c0->governor, "performance");
	c1 = GD_PUSH(&s, cpus, struct gd_cpus);
	gd_u64_set(&c1->cpu, 1);
	gd_u64_set(&c1->user_ticks, 0);  /* zero is a value */
	/* c1 has no frequency: no sample, not 0 */
	d = GD_PUSH(&s, disks, struct gd_disk);
	GD_STRSET(d->name, "nvme0n1");
	gd_u64_set(&d->whole, 1);
	gd_u64_set(&d->sectors_read, 4);
	gd_f64_set(&s.psi.cpu_some_avg10, 12.5);
	gd_f64_set(&s.cpu.load1, NAN);
	out = render(NULL, &s, NULL);
	assert_has(out, "# TYPE gpudoctor_cpus_user_seconds_total counter\n");
	assert_has(out, "# HELP gpudoctor_cpus_user_seconds_total user time (ticks / host.clk_tck)\n");
	assert_has(out, "gpudoctor_cpus_user_seconds_total{cpu=\"0\",governor=\"performance\"} 2.5\n");
	assert_has(out, "gpudoctor_cpus_user_seconds_total{cpu=\"1\"} 0\n");
	assert_has(out, "gpudoctor_cpus_cur_hertz{cpu=\"0\",governor=\"performance\"} 2400000000\n");
	assert_lacks(out, "gpudoctor_cpus_cur_hertz{cpu=\"1\"}");
	assert_has(out, "# TYPE gpudoctor_cpus_cur_hertz gauge\n");
	assert_has(out, "gpudoctor_disks_read_bytes_total{name=\"nvme0n1\",whole=\"1\"} 2048\n");
	assert_has(out, "gpudoctor_psi_cpu_some_avg10_ratio 0.125\n");
	assert_has(out, "gpudoctor_cpu_load1 NaN\n");
	assert_has(out, "gpudoctor_host_info{hostname=\"gpu-a17\"} 1\n");
	assert_lacks(out, "self_pid");
	/* a field absent in every record has no family at all */
	assert_lacks(out, "gpudoctor_cpus_max_hertz");
	assert_lacks(out, "gpudoctor_mem_");
	free(out);

	/* without USER_HZ, ticks cannot become seconds: no sample */
	s.host.clk_tck.ok = false;
	out = render(NULL, &s, NULL);
	assert_lacks(out, "user_seconds_total");
	assert_has(out, "gpudoctor_cpus_cur_hertz");
	free(out);
	gd_snapshot_release(&s);
}

/* Two records with the same labels would be one series: idx tells them apart. */
static void test_colliding_labels(void **state)
{
	struct gd_snapshot s;
	char *out;

	(void)state;
	gd_snapshot_init(&s);
	for (int i = 0; i < 2; i++) {
		struct gd_sensor *x = GD_PUSH(&s, sensors, struct gd_sensor);

		GD_STRSET(x->source, "hwmon");
		GD_STRSET(x->chip, "coretemp");
		GD_STRSET(x->label, "Core 0");
		gd_f64_set(&x->temp_c, 40 + i);
	}
	out = render(NULL, &s, NULL);
	assert_has(out, "gpudoctor_sensors_temp_celsius{source=\"hwmon\",chip=\"coretemp\",label=\"Core 0\",idx=\"0\"} 40\n");
	assert_has(out, "gpudoctor_sensors_temp_celsius{source=\"hwmon\",chip=\"coretemp\",label=\"Core 0\",idx=\"1\"} 41\n");
	free(out);
	gd_snapshot_release(&s);
}

static struct gd_proc *add_proc(struct gd_snapshot *s, uint64_t pid, const char *comm, uint64_t ticks, bool gpu)
{
	struct gd_proc *p = GD_PUSH(s, procs, struct gd_proc);

	gd_u64_set(&p->pid, pid);
	gd_u64_set(&p->ppid, 1);
	gd_u64_set(&p->starttime_ticks, 1000 + pid);
	gd_u64_set(&p->kthread, 0);
	GD_STRSET(p->comm, comm);
	GD_STRSET(p->cmdline, "a very long command line that must not become a label");
	gd_u64_set(&p->utime_ticks, ticks);
	gd_u64_set(&p->stime_ticks, 0);
	gd_u64_set(&p->nvidia_fds, gpu ? 2 : 0);
	if (gpu)
		GD_STRSET(p->nvidia_devs, "0,1");
	return p;
}

static void test_procs_selection(void **state)
{
	struct gd_snapshot a, b;
	char *out, name[32];

	(void)state;
	pair_init(&a, &b, 1.0);
	add_proc(&a, 10, "py\"th\\on", 100, true);
	add_proc(&b, 10, "py\"th\\on", 150, true);
	/* eight background processes: 7 used CPU, the top five are kept */
	for (uint64_t i = 0; i < 8; i++) {
		snprintf(name, sizeof name, "bg%u", (unsigned)i);
		add_proc(&a, 100 + i, name, 0, false);
		add_proc(&b, 100 + i, name, i * 10, false);
	}
	/* a kernel thread busier than all of them is left out */
	gd_u64_set(&add_proc(&a, 2, "kworker", 0, false)->kthread, 1);
	gd_u64_set(&add_proc(&b, 2, "kworker", 500, false)->kthread, 1);
	out = render(&a, &b, NULL);
	assert_has(out, "gpudoctor_procs_utime_seconds_total{pid=\"10\",comm=\"py\\\"th\\\\on\",nvidia_devs=\"0,1\"} 1.5\n");
	for (unsigned i = 3; i < 8; i++) {
		snprintf(name, sizeof name, "comm=\"bg%u\"} ", i);
		assert_has(out, name);
	}
	assert_lacks(out, "comm=\"bg2\"");
	assert_lacks(out, "comm=\"bg0\"");
	assert_lacks(out, "kworker");
	assert_lacks(out, "very long command");
	free(out);
	/* one snapshot: no rates, so only GPU jobs */
	out = render(NULL, &b, NULL);
	assert_has(out, "pid=\"10\"");
	assert_lacks(out, "bg7");
	free(out);
	gd_snapshot_release(&a);
	gd_snapshot_release(&b);
}

static void test_findings_and_collectors(void **state)
{
	struct gd_snapshot s;
	struct gd_findings f;
	struct gd_finding *x;
	struct gd_unknown *u;
	struct gd_source *src;
	char *out;

	(void)state;
	gd_snapshot_init(&s);
	gd_findings_init(&f);
	x = gd_vec_push(&f.items, sizeof *x);
	x->id = "cpu.background_hogs";
	x->severity = GD_SEV_WARNING;
	GD_STRSET(x->subject, "pid 7 (a\"b)");
	x = gd_vec_push(&f.items, sizeof *x);  /* the same series again: one sample */
	x->id = "cpu.background_hogs";
	x->severity = GD_SEV_WARNING;
	GD_STRSET(x->subject, "pid 7 (a\"b)");
	x = gd_vec_push(&f.items, sizeof *x);
	x->id = "mem.cgroup_near_limit";
	x->severity = GD_SEV_CRITICAL;
	GD_STRSET(x->subject, "/job");
	u = gd_vec_push(&f.unknown, sizeof *u);
	u->id = "net.rdma_down";
	src = GD_PUSH(&s, sources, struct gd_source);
	GD_STRSET(src->name, "proc_stat");
	GD_STRSET(src->status, "ok");
	gd_f64_set(&src->duration_s, 0.00025);
	src = GD_PUSH(&s, sources, struct gd_source);
	GD_STRSET(src->name, "infiniband");
	GD_STRSET(src->status, "absent");
	src = GD_PUSH(&s, sources, struct gd_source);
	GD_STRSET(src->name, "cgroups");
	GD_STRSET(src->status, "denied");
	out = render(NULL, &s, &f);
	assert_has(out, "# TYPE gpudoctor_finding gauge\n");
	assert_has(out, "gpudoctor_finding{rule=\"cpu.background_hogs\",severity=\"warning\",subject=\"pid 7 (a\\\"b)\"} 1\n");
	{
		const char *first = strstr(out, "gpudoctor_finding{rule=\"cpu.background_hogs\"");

		assert_null(strstr(first + 1, "gpudoctor_finding{rule=\"cpu.background_hogs\""));
	}
	assert_has(out, "gpudoctor_finding{rule=\"mem.cgroup_near_limit\",severity=\"critical\",subject=\"/job\"} 1\n");
	assert_has(out, "gpudoctor_rule_evaluated{rule=\"net.rdma_down\"} 0\n");
	assert_has(out, "gpudoctor_rule_evaluated{rule=\"cpu.saturated\"} 1\n");
	assert_has(out, "gpudoctor_collector_duration_seconds{collector=\"proc_stat\"} 0.00025\n");
	assert_lacks(out, "gpudoctor_collector_duration_seconds{collector=\"infiniband\"}");
	assert_has(out, "gpudoctor_collector_success{collector=\"proc_stat\"} 1\n");
	assert_has(out, "gpudoctor_collector_success{collector=\"infiniband\"} 1\n");
	assert_has(out, "gpudoctor_collector_success{collector=\"cgroups\"} 0\n");
	/* sources are not exported as a section of their own */
	assert_lacks(out, "gpudoctor_sources_");
	free(out);
	gd_findings_release(&f);
	gd_snapshot_release(&s);
}

/* Each GPU's GPM figures averaged over the last interval; PCIe readings
 * and a figure no interval has give no series. */
static void test_gpu_activity_means(void **state)
{
	struct gd_snapshot b;
	char *text;

	(void)state;
	gd_snapshot_init(&b);
	gd_f64_set(&b.host.uptime_s, 100);
	for (unsigned int i = 0; i < 2; i++)
		gd_u64_set(&GD_PUSH(&b, gpus, struct gd_gpu)->index, i);
	for (int k = 0; k < 3; k++) {
		struct gd_gpu_activity *r = GD_PUSH(&b, gpu_activity, struct gd_gpu_activity);

		gd_u64_set(&r->gpu, 0);
		GD_STRSET(r->source, k < 2 ? "gpm" : "pcie_throughput");
		gd_f64_set(&r->sm_active_pct, k == 0 ? 6 : k == 1 ? 10 : 99);
		if (k == 1)
			gd_f64_set(&r->nvlink_rx_bytes_s, 2e9);
	}
	text = render(NULL, &b, NULL);
	assert_has(text, "# TYPE gpudoctor_gpu_activity_sm_active_ratio gauge\n"
			 "gpudoctor_gpu_activity_sm_active_ratio{gpu=\"0\"} 0.08\n");
	assert_has(text, "gpudoctor_gpu_activity_nvlink_rx_bytes_per_second{gpu=\"0\"} 2000000000\n");
	assert_lacks(text, "gpudoctor_gpu_activity_sm_active_ratio{gpu=\"1\"}");
	assert_lacks(text, "gpudoctor_gpu_activity_tensor_active_ratio");
	free(text);
	gd_snapshot_release(&b);
}

/* job_ranks[]: one info series per ranked process with the fixed label
 * set ("" where unknown) and pid; whether each identity could be read;
 * nothing of the section as generic series. */
static void test_job_ranks(void **state)
{
	struct gd_snapshot s;
	struct gd_job_rank *r;
	char *text;

	(void)state;
	gd_snapshot_init(&s);
	gd_f64_set(&s.host.uptime_s, 10);
	r = GD_PUSH(&s, job_ranks, struct gd_job_rank);
	gd_u64_set(&r->pid, 4242);
	GD_STRSET(r->status, "ok");
	GD_STRSET(r->job, "torchelastic:a\"b");
	gd_u64_set(&r->rank, 3);
	gd_u64_set(&r->world_size, 16);
	gd_u64_set(&r->node_rank, 0);
	GD_STRSET(r->gpus, "3");
	r = GD_PUSH(&s, job_ranks, struct gd_job_rank);
	gd_u64_set(&r->pid, 4300);
	GD_STRSET(r->status, "denied");
	GD_STRSET(r->reason, "proc/4300/environ: Permission denied");
	r = GD_PUSH(&s, job_ranks, struct gd_job_rank);
	gd_u64_set(&r->pid, 4400);
	GD_STRSET(r->status, "no_rank");
	text = render(NULL, &s, NULL);
	assert_has(text, "# TYPE gpudoctor_job_rank_info gauge\n");
	assert_has(text, "gpudoctor_job_rank_info{job=\"torchelastic:a\\\"b\",rank=\"3\",local_rank=\"\",world_size=\"16\","
			 "node_rank=\"0\",gpu=\"3\",pod=\"\",namespace=\"\",pid=\"4242\"} 1\n");
	assert_lacks(text, "pid=\"4300\"} 1");
	assert_lacks(text, "pid=\"4400\"} 1");
	assert_has(text, "gpudoctor_job_rank_identity_success{pid=\"4242\",status=\"ok\"} 1\n");
	assert_has(text, "gpudoctor_job_rank_identity_success{pid=\"4300\",status=\"denied\"} 0\n");
	assert_has(text, "gpudoctor_job_rank_identity_success{pid=\"4400\",status=\"no_rank\"} 1\n");
	assert_lacks(text, "gpudoctor_job_ranks_");
	free(text);
	gd_snapshot_release(&s);
}

/* Per rank, for fleet --job: the NCCL share of the main and NCCL threads'
 * samples over the interval, and the main thread's state as five series. */
static void test_job_rank_waits(void **state)
{
	struct gd_snapshot a, b;
	char *text;

	(void)state;
	pair_init(&a, &b, 1.0);
	for (int k = 0; k < 2; k++) {
		struct gd_snapshot *s = k ? &b : &a;
		struct gd_job_thread *t = GD_PUSH(s, job_threads, struct gd_job_thread);

		gd_u64_set(&t->pid, 77);
		gd_u64_set(&t->tid, 77);
		GD_STRSET(t->role, "main");
		GD_STRSET(t->state, k ? "t" : "R");
		gd_u64_set(&t->sampled, 1);
		gd_u64_set(&t->samples_nccl, k ? 160 : 100);
		gd_u64_set(&t->samples_python, k ? 240 : 200);
		gd_u64_set(&t->samples_cuda, 0);
		gd_u64_set(&t->samples_framework, 0);
		gd_u64_set(&t->samples_kernel, 0);
		gd_u64_set(&t->samples_other, 0);
		t = GD_PUSH(s, job_threads, struct gd_job_thread);  /* its NCCL thread */
		gd_u64_set(&t->pid, 77);
		gd_u64_set(&t->tid, 78);
		GD_STRSET(t->role, "nccl");
		gd_u64_set(&t->sampled, 1);
		gd_u64_set(&t->samples_nccl, k ? 20 : 0);
		gd_u64_set(&t->samples_python, 0);
		gd_u64_set(&t->samples_cuda, 0);
		gd_u64_set(&t->samples_framework, 0);
		gd_u64_set(&t->samples_kernel, 0);
		gd_u64_set(&t->samples_other, 0);
	}
	text = render(&a, &b, NULL);
	assert_has(text, "# TYPE gpudoctor_job_rank_nccl_wait_ratio gauge\n");
	assert_has(text, "gpudoctor_job_rank_nccl_wait_ratio{pid=\"77\"} 0.666666666666667\n");  /* (60 + 20) / 120 */
	assert_has(text, "gpudoctor_job_main_thread_state{pid=\"77\",state=\"T\"} 1\n");
	assert_has(text, "gpudoctor_job_main_thread_state{pid=\"77\",state=\"R\"} 0\n");
	assert_lacks(text, "pid=\"78\"");
	free(text);
	/* one snapshot: no interval, no series */
	text = render(NULL, &b, NULL);
	assert_lacks(text, "gpudoctor_job_rank_nccl_wait_ratio{");
	free(text);
	gd_snapshot_release(&a);
	gd_snapshot_release(&b);
}

/* The job's TCP links for fleet --job: per process and pair of addresses
 * (ports left out) the largest RTT of its established connections; not
 * loopback, not a connection being set up. */
static void sock(struct gd_snapshot *s, uint64_t pid, const char *local, const char *peer, uint64_t state, uint64_t rtt_us)
{
	struct gd_job_socket *js = GD_PUSH(s, job_sockets, struct gd_job_socket);

	gd_u64_set(&js->pid, pid);
	gd_u64_set(&js->state, state);
	GD_STRSET(js->local, local);
	GD_STRSET(js->peer, peer);
	gd_u64_set(&js->rtt_us, rtt_us);
}

static void test_job_links(void **state)
{
	struct gd_snapshot s;
	char *text;

	(void)state;
	gd_snapshot_init(&s);
	gd_f64_set(&s.host.uptime_s, 10);
	sock(&s, 77, "10.0.0.3:41000", "10.0.0.4:29600", 1, 300);
	sock(&s, 77, "10.0.0.3:41002", "10.0.0.4:29601", 1, 412000);   /* the same pair: the largest counts */
	sock(&s, 77, "10.0.0.3:29600", "10.0.0.2:52000", 1, 250);
	sock(&s, 77, "127.0.0.1:5000", "127.0.0.1:29500", 1, 20);      /* loopback */
	sock(&s, 77, "10.0.0.3:41004", "10.0.0.9:29600", 2, 900000);   /* syn-sent */
	sock(&s, 77, "[fe80::1]:41006", "[fe80::2]:29600", 1, 1000);
	text = render(NULL, &s, NULL);
	assert_has(text, "# TYPE gpudoctor_job_link_rtt_seconds gauge\n");
	assert_has(text, "gpudoctor_job_link_rtt_seconds{pid=\"77\",local=\"10.0.0.3\",peer=\"10.0.0.4\"} 0.412\n");
	assert_has(text, "gpudoctor_job_link_rtt_seconds{pid=\"77\",local=\"10.0.0.3\",peer=\"10.0.0.2\"} 0.00025\n");
	assert_has(text, "gpudoctor_job_link_rtt_seconds{pid=\"77\",local=\"[fe80::1]\",peer=\"[fe80::2]\"} 0.001\n");
	assert_lacks(text, "peer=\"127.0.0.1\"");
	assert_lacks(text, "peer=\"10.0.0.9\"");
	assert_lacks(text, "0.0003\n");
	free(text);
	gd_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_and_units),
		cmocka_unit_test(test_every_section_legal_and_unique),
		cmocka_unit_test(test_label_escaping),
		cmocka_unit_test(test_gpu_labels),
		cmocka_unit_test(test_values_counters_absent),
		cmocka_unit_test(test_colliding_labels),
		cmocka_unit_test(test_procs_selection),
		cmocka_unit_test(test_findings_and_collectors),
		cmocka_unit_test(test_gpu_activity_means),
		cmocka_unit_test(test_job_ranks),
		cmocka_unit_test(test_job_rank_waits),
		cmocka_unit_test(test_job_links),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
