/*
 * test_model.c - the snapshot's field tables, JSON round trip and loader
 * errors, the window arithmetic, and the engine's ordering and verdicts.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "model/snapshot_json.h"
#include "output/output.h"

static void fill(struct gd_snapshot *s)
{
	struct gd_disk *d;
	struct gd_proc *p;

	gd_snapshot_init(s);
	GD_STRSET(s->host.hostname, "gpu-a17");
	gd_f64_set(&s->host.uptime_s, 1234.5);
	gd_u64_set(&s->cpu.user_ticks, 0); /* zero is a value, not absence */
	gd_u64_set(&s->mem.total_bytes, UINT64_MAX); /* past INT64_MAX */
	gd_f64_set(&s->psi.cpu_some_avg10, 12.25);
	d = GD_PUSH(s, disks, struct gd_disk);
	GD_STRSET(d->name, "nvme0n1");
	gd_u64_set(&d->reads, 42);
	p = GD_PUSH(s, procs, struct gd_proc);
	gd_u64_set(&p->pid, 4711);
	GD_STRSET(p->comm, "py\xff\x01thon"); /* not UTF-8: written as '?' */
	GD_STRSET(p->cmdline, "python \"train.py\" --lr=0.1");
}

static void test_tables_cover_structs(void **state)
{
	(void)state;
	/* Every field of every record is in its table: the table's members
	 * must add up to the struct (padding aside), so a field added to a
	 * struct by hand rather than through the X-macro list is caught. */
	for (size_t i = 0; i < gd_nsections; i++) {
		const struct gd_record_desc *d = &gd_sections[i];
		size_t sum = 0;

		for (size_t j = 0; j < d->nfields; j++) {
			sum += d->fields[j].size;
			assert_true(d->fields[j].offset + d->fields[j].size <= d->size);
			assert_non_null(gd_field_find(d, d->fields[j].name));
		}
		assert_true(sum <= d->size);
		assert_true(d->size - sum < 8 * d->nfields);
		assert_ptr_equal(gd_section_find(d->name), d);
	}
	assert_null(gd_section_find("nope"));
}

static void test_json_round_trip(void **state)
{
	struct gd_snapshot a, b;
	struct gd_err err;
	json_t *j = NULL, *k = NULL;
	char *s1, *s2;

	(void)state;
	fill(&a);
	j = gd_snapshot_to_json(&a);
	assert_true(json_is_null(json_object_get(json_object_get(j, "cpu"), "nice_ticks")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "cpu"), "user_ticks")), 0);
	gd_snapshot_init(&b);
	assert_int_equal(gd_snapshot_from_json(j, &b, &err), 0);
	assert_true(b.cpu.user_ticks.ok);
	assert_int_equal(b.cpu.user_ticks.v, 0);
	assert_false(b.cpu.nice_ticks.ok);
	assert_true(b.psi.cpu_some_avg10.v == 12.25);
	assert_string_equal(b.host.hostname, "gpu-a17");
	assert_int_equal(b.disks.n, 1);
	assert_int_equal(GD_VEC_AT(b.disks, struct gd_disk, 0)->reads.v, 42);
	assert_string_equal(GD_VEC_AT(b.procs, struct gd_proc, 0)->comm, "py??thon");
	assert_string_equal(GD_VEC_AT(b.procs, struct gd_proc, 0)->cmdline, "python \"train.py\" --lr=0.1");
	/* Saving the loaded copy gives the same document again (the lossy
	 * comm aside, which was already sanitised in the first save). */
	k = gd_snapshot_to_json(&b);
	s1 = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
	s2 = json_dumps(k, JSON_SORT_KEYS | JSON_COMPACT);
	assert_string_equal(s1, s2);
	free(s1);
	free(s2);
	json_decref(j);
	json_decref(k);
	gd_snapshot_release(&a);
	gd_snapshot_release(&b);
}

static int load_text(const char *text, struct gd_series *ser, struct gd_err *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	assert_non_null(f);
	gd_err_clear(err);
	rc = gd_series_load_stream(ser, f, "run.jsonl", err);
	fclose(f);
	return rc;
}

static void test_jsonl_errors_name_line_and_column(void **state)
{
	struct gd_series ser;
	struct gd_err err;
	struct gd_snapshot a;
	char *line, *text;
	json_t *j;

	(void)state;
	gd_series_init(&ser);
	fill(&a);
	j = gd_snapshot_to_json(&a);
	line = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	gd_snapshot_release(&a);
	text = malloc(strlen(line) * 2 + 64);
	sprintf(text, "%s\n\n%s\n{\"version\":1,\"host\":{}\n", line, line);
	assert_true(load_text(text, &ser, &err) < 0);
	assert_int_equal(ser.n, 2); /* the two good lines were kept */
	assert_non_null(strstr(err.msg, "run.jsonl:4:"));
	gd_series_release(&ser);

	assert_true(load_text("{\"version\":1,\"host\":{\"uptime_s\":\"soon\"}}\n", &ser, &err) < 0);
	assert_non_null(strstr(err.msg, "run.jsonl:1:"));
	assert_non_null(strstr(err.msg, "host.uptime_s: expected a number"));
	gd_series_release(&ser);
	assert_true(load_text("{\"version\":1,\"host\":{},\"disks\":[{\"reads\":-5}]}\n", &ser, &err) < 0);
	assert_non_null(strstr(err.msg, "disks[0].reads"));
	gd_series_release(&ser);
	assert_true(load_text("{\"version\":99,\"host\":{}}\n", &ser, &err) < 0);
	assert_non_null(strstr(err.msg, "version 99"));
	gd_series_release(&ser);
	assert_true(load_text("[1,2]\n", &ser, &err) < 0);
	gd_series_release(&ser);
	assert_true(load_text("\x01\x02garbage\n", &ser, &err) < 0);
	assert_non_null(strstr(err.msg, "run.jsonl:1:"));
	gd_series_release(&ser);
	/* Unknown keys (a newer writer) are ignored. */
	assert_int_equal(load_text("{\"version\":1,\"host\":{\"future\":1},\"gpus\":[]}\n", &ser, &err), 0);
	assert_int_equal(ser.n, 1);
	gd_series_release(&ser);
	free(text);
	free(line);
}

/* Everything a reader gives for the file at path, as text: each
 * snapshot's JSON, then the result, the message and the note. */
static char *read_all(const char *path, bool ahead)
{
	struct gd_jsonl_reader r;
	struct gd_err err;
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	int rc;

	assert_non_null(m);
	gd_err_clear(&err);
	assert_int_equal(gd_jsonl_open(&r, path, &err), 0);
	if (ahead)
		gd_jsonl_prefetch(&r);
	for (;;) {
		struct gd_snapshot s;

		gd_snapshot_init(&s);
		rc = gd_jsonl_next(&r, &s, &err);
		if (rc > 0) {
			json_t *j = gd_snapshot_to_json(&s);
			char *t = json_dumps(j, JSON_COMPACT);

			fprintf(m, "%s\n", t);
			free(t);
			json_decref(j);
		}
		gd_snapshot_release(&s);
		if (rc <= 0)
			break;
	}
	fprintf(m, "rc %d: %s | note: %s\n", rc, rc < 0 ? err.msg : "", r.note);
	gd_jsonl_close(&r);
	fclose(m);
	return out;
}

/* Reading ahead on a thread gives what reading in line gives: the same
 * snapshots in order, the same error at the same line, the same note on a
 * cut last line; closing before the end stops the thread. */
static void test_jsonl_prefetch(void **state)
{
	char path[] = "/tmp/gd-test-prefetch.XXXXXX";
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	for (int variant = 0; variant < 3; variant++) {
		char *plain, *ahead;

		f = fopen(path, "w");
		assert_non_null(f);
		for (int i = 0; i < 3 * GD_JSONL_AHEAD; i++) {
			if (variant == 1 && i == 70)
				fputs("{\"version\":1,\"host\":{\"uptime_s\":\"soon\"}}\n", f);
			else
				fprintf(f, "{\"version\":1,\"host\":{\"uptime_s\":%d.5},\"disks\":[{\"name\":\"sd%c\"}]}\n", i,
					'a' + i % 26);
		}
		if (variant == 2)
			fputs("{\"version\":1,\"host\":{\"upt", f);   /* cut */
		assert_int_equal(fclose(f), 0);
		plain = read_all(path, false);
		ahead = read_all(path, true);
		assert_string_equal(plain, ahead);
		assert_non_null(strstr(plain, variant == 1 ? "rc -" : "rc 0"));
		if (variant == 2)
			assert_non_null(strstr(plain, "the last line is cut"));
		free(plain);
		free(ahead);
	}
	/* closed after one snapshot, the thread blocked on a full queue */
	{
		struct gd_jsonl_reader r;
		struct gd_snapshot s;
		struct gd_err err;

		assert_int_equal(gd_jsonl_open(&r, path, &err), 0);
		gd_jsonl_prefetch(&r);
		gd_snapshot_init(&s);
		assert_int_equal(gd_jsonl_next(&r, &s, &err), 1);
		gd_snapshot_release(&s);
		gd_jsonl_close(&r);
	}
	close(fd);
	unlink(path);
}

static void test_window_arithmetic(void **state)
{
	struct gd_snapshot a, b;
	const struct gd_snapshot *snaps[2] = { &a, &b };
	struct gd_window w = { snaps, 2 };
	struct gd_u64 x = { 10, true }, y = { 30, true }, none = { 0, false };
	double dt, r, pct;

	(void)state;
	pair_init(&a, &b, 2.0);
	assert_true(gd_window_dt(&w, &dt));
	assert_true(dt == 2.0);
	assert_true(gd_counter_rate(x, y, dt, &r));
	assert_true(r == 10.0);
	assert_false(gd_counter_rate(y, x, dt, &r)); /* backwards: no rate */
	assert_false(gd_counter_rate(none, y, dt, &r));
	w.n = 1;
	assert_false(gd_window_dt(&w, &dt));
	gd_u64_set(&a.cpu.user_ticks, 100);
	gd_u64_set(&b.cpu.user_ticks, 190);
	gd_u64_set(&a.cpu.nice_ticks, 0);
	gd_u64_set(&b.cpu.nice_ticks, 0);
	gd_u64_set(&a.cpu.system_ticks, 0);
	gd_u64_set(&b.cpu.system_ticks, 0);
	gd_u64_set(&a.cpu.irq_ticks, 0);
	gd_u64_set(&b.cpu.irq_ticks, 0);
	gd_u64_set(&a.cpu.softirq_ticks, 0);
	gd_u64_set(&b.cpu.softirq_ticks, 0);
	gd_u64_set(&a.cpu.idle_ticks, 1000);
	gd_u64_set(&b.cpu.idle_ticks, 1010);
	assert_true(gd_cpu_busy_pct(&a.cpu, &b.cpu, &pct));
	assert_true(fabs(pct - 90.0) < 1e-9);
	gd_snapshot_release(&a);
	gd_snapshot_release(&b);
}

static void test_engine_one_snapshot_marks_window_rules(void **state)
{
	struct gd_snapshot a;
	const struct gd_snapshot *snaps[1] = { &a };
	struct gd_window w = { snaps, 1 };
	struct gd_thresholds th;
	struct gd_findings f;
	bool saw = false;

	(void)state;
	gd_snapshot_init(&a);
	gd_thresholds_init(&th);
	gd_findings_init(&f);
	gd_engine_run(&w, &th, &f);
	/* Nothing to judge: every rule is either unknown or clear, none fired. */
	assert_int_equal(f.items.n, 0);
	assert_int_equal(f.unknown.n + f.evaluated, gd_nrules);
	GD_VEC_EACH(f.unknown, const struct gd_unknown, u)
		if (strcmp(u->id, "mem.swapping") == 0) {
			saw = true;
			assert_non_null(strstr(u->reason, "two snapshots"));
		}
	assert_true(saw);
	gd_findings_release(&f);
	gd_snapshot_release(&a);
}

static void test_rule_ids_are_unique_and_catalogued(void **state)
{
	(void)state;
	for (size_t i = 0; i < gd_nrules; i++) {
		assert_non_null(strchr(gd_rules[i].id, '.'));
		assert_true(strlen(gd_rules[i].remedy) > 20);
		for (size_t j = i + 1; j < gd_nrules; j++)
			assert_string_not_equal(gd_rules[i].id, gd_rules[j].id);
	}
	/* Every threshold belongs to a rule in the registry, or to episode
	 * detection (rules/episodes.h), which is not a rule. */
	for (size_t t = 0; t < GD_TH_COUNT; t++)
		if (strcmp(gd_th_table[t].rule, "episodes") != 0)
			assert_non_null(gd_rule_find(gd_th_table[t].rule));
}

static void test_output_json_and_exit(void **state)
{
	struct gd_snapshot a, b;
	const struct gd_snapshot *snaps[2] = { &a, &b };
	struct gd_window w = { snaps, 2 };
	struct gd_findings f;
	struct gd_rule_ctx rc = { .w = &w, .rule = &gd_rules[0] };
	struct gd_finding *x;
	struct gd_source *src;
	struct gd_report r = { &w, &f, false, "live", 0 };
	json_t *doc, *ev;
	char buf[64];
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	(void)state;
	pair_init(&a, &b, 2.0);
	src = GD_PUSH(&b, sources, struct gd_source);
	GD_STRSET(src->name, "cpufreq");
	GD_STRSET(src->status, "absent");
	GD_STRSET(src->reason, "no cpufreq");
	gd_findings_init(&f);
	assert_int_equal(gd_report_exit_code(&f), 0);
	x = gd_finding_add(&rc, &f, GD_SEV_WARNING, "host");
	gd_finding_ev(x, "busy_pct", 97.5, "%", 90);
	gd_finding_ev(x, "load_per_cpu", 3.0, "", NAN);
	assert_int_equal(gd_report_exit_code(&f), 1);
	doc = gd_out_json(&r);
	assert_int_equal(json_integer_value(json_object_get(doc, "exit")), 1);
	ev = json_array_get(json_object_get(json_array_get(json_object_get(doc, "findings"), 0), "evidence"), 1);
	assert_true(json_is_null(json_object_get(ev, "threshold")));
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(doc, "unavailable"), 0), "evidence")),
			    "cpufreq");
	json_decref(doc);
	mem = open_memstream(&text, &len);
	gd_out_text(mem, &r);
	fclose(mem);
	assert_non_null(strstr(text, "WARNING   cpu.saturated"));
	assert_non_null(strstr(text, "busy 97.5% (threshold 90.0%)"));
	assert_non_null(strstr(text, "unavailable (1 source): cpufreq (absent: no cpufreq)"));
	assert_non_null(strstr(text, "(exit 1)"));
	free(text);
	assert_string_equal(gd_fmt_value(buf, sizeof buf, 67108864, "bytes"), "64.0 MiB");
	gd_findings_release(&f);
	gd_snapshot_release(&a);
	gd_snapshot_release(&b);
}

/* Eight findings of one rule on single GPUs print as one "gpu0-3,5" block
 * with the per-GPU numbers side by side; a finding whose explained_by names
 * another finding is linked to it in text, and listed in its "explains" in
 * JSON. */
static void test_output_groups_and_links(void **state)
{
	struct gd_snapshot a, b;
	const struct gd_snapshot *snaps[2] = { &a, &b };
	struct gd_window w = { snaps, 2 };
	struct gd_findings f;
	struct gd_rule_ctx idle = { .w = &w, .rule = gd_rule_find("gpu.idle_while_job_runs") };
	struct gd_rule_ctx input = { .w = &w, .rule = gd_rule_find("cpu.input_bound") };
	struct gd_report r = { &w, &f, false, "live", 0 };
	static const int gpus[] = { 0, 1, 2, 3, 5 };
	struct gd_finding *x;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	json_t *doc, *ex;

	(void)state;
	assert_non_null(idle.rule);
	assert_non_null(input.rule);
	pair_init(&a, &b, 2.0);
	gd_findings_init(&f);
	for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
		x = gd_finding_add(&idle, &f, GD_SEV_WARNING, "gpu%d (0000:%02x:00.0)", gpus[i], 16 + gpus[i]);
		gd_finding_ev(x, "util_pct", 10.0 + gpus[i], "%", 40);
		gd_finding_ev_text(x, "explained_by", "cpu.input_bound (4 loader workers)");
	}
	x = gd_finding_add(&input, &f, GD_SEV_WARNING, "pid 4242 (python)");
	mem = open_memstream(&text, &len);
	gd_out_text(mem, &r);
	fclose(mem);
	assert_non_null(strstr(text, "gpu.idle_while_job_runs        gpu0-3,5 (5 GPUs)\n"));
	assert_non_null(strstr(text, "util: gpu0 10.0% · gpu1 11.0% · gpu2 12.0% · gpu3 13.0% · gpu5 15.0%\n"));
	assert_non_null(strstr(text, "explained by cpu.input_bound ↓\n"));
	assert_null(strstr(text, "gpu1 (0000:11:00.0)"));   /* grouped, not repeated */
	assert_non_null(strstr(text, "0 critical, 6 warnings, 0 info"));
	free(text);
	doc = gd_out_json(&r);
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 6);   /* JSON keeps every finding */
	ex = json_object_get(json_array_get(json_object_get(doc, "findings"), 5), "explains");
	assert_int_equal(json_array_size(ex), 1);
	assert_string_equal(json_string_value(json_array_get(ex, 0)), "gpu.idle_while_job_runs");
	assert_null(json_object_get(json_array_get(json_object_get(doc, "findings"), 0), "explains"));
	json_decref(doc);
	gd_findings_release(&f);
	gd_snapshot_release(&a);
	gd_snapshot_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_cover_structs),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_jsonl_errors_name_line_and_column),
		cmocka_unit_test(test_jsonl_prefetch),
		cmocka_unit_test(test_window_arithmetic),
		cmocka_unit_test(test_engine_one_snapshot_marks_window_rules),
		cmocka_unit_test(test_rule_ids_are_unique_and_catalogued),
		cmocka_unit_test(test_output_json_and_exit),
		cmocka_unit_test(test_output_groups_and_links),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
