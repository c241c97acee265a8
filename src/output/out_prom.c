/*
 * out_prom.c - the Prometheus text exposition format (version 0.0.4) of the
 * last snapshot of a window and of the findings, generated from the field
 * tables (gd_sections[]): no field is listed here by hand, so sections added
 * later (gpus[], the kernel log) are exported without a change to this file.
 *
 *   # HELP gpudoctor_cpus_user_seconds_total user time (ticks / host.clk_tck)
 *   # TYPE gpudoctor_cpus_user_seconds_total counter
 *   gpudoctor_cpus_user_seconds_total{cpu="0",package="0",numa_node="0"} 8123.45
 *   gpudoctor_finding{rule="cpu.saturated",severity="warning",subject="host"} 1
 *
 * Names: gpudoctor_<section>_<field>, the field's unit suffix replaced by its
 * base unit (units[] below: ticks, ms, us and ns become _seconds, khz and mhz
 * _hertz, pct _ratio, mbps _bytes_per_second ...), _total appended to
 * counters and stripped from gauges (cpu.threads_total is a gauge).
 * Labels: an array section's LABEL fields, named as the fields (a policy row
 * may narrow them); a one-record section's LABEL fields go on one
 * gpudoctor_<section>_info gauge of value 1.  Absent values have no sample,
 * never a 0; an absent label is left out.  When two records of a section
 * would carry the same labels, every record of it gets an idx label.
 *
 * gpu_activity[] (sub-second) is exported as each GPU's GPM means over the
 * last interval (gpudoctor_gpu_activity_sm_active_ratio{gpu="0"} and the like).
 * job_ranks[] is its own two families: gpudoctor_job_rank_info (who each
 * GPU job process is in its job, labels only) and
 * gpudoctor_job_rank_identity_success (whether it could be read).
 * job_sockets[] is exported as gpudoctor_job_link_rtt_seconds{pid, local,
 * peer}: the largest round trip per process and pair of addresses (ports
 * left out, so one series per link, not per connection).
 * Left out: threads[] and job_threads[] (per thread), gpu_samples[], the rest of job_sockets[], nic_irqs[] (IRQs x CPUs; the rule
 * cpu.irq_imbalance judges them), sources[] (exported as
 * gpudoctor_collector_*), and every process except GPU jobs (and their
 * descendants) and the GD_PROM_TOP_PROCS background processes that took
 * most CPU over the window: per-process series of a whole host are churn
 * that Prometheus stores for weeks.
 */
#include "output/output.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "rules/rule_job_threads.h"
#include "rules/window.h"

#define GD_PROM_TOP_PROCS 5

enum mode { EXPORT, SKIP, PROCS };

struct policy {
	const char *section;
	enum mode mode;
	const char *labels[6];  /* NULL-terminated; none listed: every LABEL field */
	const char *rename[3][2];  /* field name -> label name, where they differ */
};

static const struct policy policies[] = {
	{ "host", EXPORT, { "hostname", "kernel", "cgroup_mode", NULL }, { { NULL, NULL } } },
	{ "threads", SKIP, { NULL }, { { NULL, NULL } } },
	/* per thread, with labels (state, syscall) that change every sample */
	{ "job_threads", SKIP, { NULL }, { { NULL, NULL } } },
	/* a timestamp per record: the rules read them, not Prometheus */
	{ "gpu_samples", SKIP, { NULL }, { { NULL, NULL } } },
	{ "gpu_activity", SKIP, { NULL }, { { NULL, NULL } } },
	/* per connection: the rule names the far ones */
	{ "job_sockets", SKIP, { NULL }, { { NULL, NULL } } },
	/* its own families (job_ranks below): a fixed label set, "" when unknown */
	{ "job_ranks", SKIP, { NULL }, { { NULL, NULL } } },
	{ "nic_irqs", SKIP, { NULL }, { { NULL, NULL } } },
	{ "sources", SKIP, { NULL }, { { NULL, NULL } } },
	{ "procs", PROCS, { "pid", "comm", "nvidia_devs", NULL }, { { NULL, NULL } } },
	{ "cgroups", EXPORT, { "path", "version", "self", NULL }, { { NULL, NULL } } },
	/* Operators and dashboards know a GPU as gpu (its index) and model. */
	{ "gpus", EXPORT, { "index", "uuid", "pci_bus_id", "name", NULL }, { { "index", "gpu" }, { "name", "model" } } },
	/* the ACS registers of the bridges above GPUs and NICs (gpu.p2p_acs_redirect):
	 * the reason a config space was not read is for the rule, not a label */
	{ "pci_bridges", EXPORT, { "pci_bus_id", "source", NULL }, { { NULL, NULL } } },
	/* nvidia-smi topo -m: offline evidence only */
	{ "pci_topo", SKIP, { NULL }, { { NULL, NULL } } },
	/* gpudoctor probe's results (serve --probe-results FILE) */
	{ "probe", EXPORT, { "gpu", "probe", "peer", "unit", "status", NULL }, { { NULL, NULL } } },
};

/* A unit of the field tables: which name suffixes carry it, what replaces
 * them, and the factor to the base unit (0: divide by host.clk_tck). */
struct unit {
	const char *unit;
	const char *suffix[3];
	const char *base;
	double scale;
};

static const struct unit units[] = {
	{ "ticks", { "_ticks", NULL }, "_seconds", 0 },
	{ "seconds", { "_seconds", "_s", NULL }, "_seconds", 1 },
	{ "ms", { "_ms", NULL }, "_seconds", 1e-3 },
	{ "us", { "_us", NULL }, "_seconds", 1e-6 },
	{ "ns", { "_ns", NULL }, "_seconds", 1e-9 },
	{ "bytes", { "_bytes", NULL }, "_bytes", 1 },
	{ "sectors", { "_sectors", NULL }, "_bytes", 512 },
	{ "kib", { "_kib", NULL }, "_bytes", 1024 },
	{ "mib", { "_mib", NULL }, "_bytes", 1048576 },
	{ "hz", { "_hz", NULL }, "_hertz", 1 },
	{ "khz", { "_khz", NULL }, "_hertz", 1e3 },
	{ "mhz", { "_mhz", NULL }, "_hertz", 1e6 },
	{ "mbps", { "_mbps", NULL }, "_bytes_per_second", 1e6 / 8 },
	{ "gbps", { "_gbps", NULL }, "_bytes_per_second", 1e9 / 8 },
	{ "kilobytes/s", { "_kbps", "_kbs", NULL }, "_bytes_per_second", 1e3 },
	{ "pct", { "_pct", NULL }, "_ratio", 1e-2 },
	{ "celsius", { "_celsius", "_c", NULL }, "_celsius", 1 },
	{ "watts", { "_watts", "_w", NULL }, "_watts", 1 },
	{ "mj", { "_mj", NULL }, "_joules", 1e-3 },
	{ "joules", { "_joules", "_j", NULL }, "_joules", 1 },
};

static bool ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && strcmp(s + n - m, suf) == 0;
}

static const struct policy *policy_of(const char *section)
{
	for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++)
		if (strcmp(policies[i].section, section) == 0)
			return &policies[i];
	return NULL;
}

bool gd_prom_metric_name(const char *section, const struct gd_field *f, char *buf, size_t size, double *scale)
{
	char stem[96];
	const char *base = "";
	size_t n;

	if (f->kind == GD_FK_LABEL || f->type == GD_FT_STR)
		return false;
	gd_strlcpy(stem, f->name, sizeof stem);
	*scale = 1;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		const struct unit *u = &units[i];

		if (strcmp(u->unit, f->unit) != 0)
			continue;
		*scale = u->scale;
		base = u->base;
		for (size_t j = 0; j < 3 && u->suffix[j]; j++)
			if (ends_with(stem, u->suffix[j])) {
				stem[strlen(stem) - strlen(u->suffix[j])] = '\0';
				break;
			}
		/* "sectors_read": the unit leads the name */
		if (strcmp(u->unit, "sectors") == 0 && strncmp(stem, "sectors_", 8) == 0)
			memmove(stem, stem + 8, strlen(stem + 8) + 1);
		break;
	}
	/* a gauge must not end in _total (Prometheus naming), a counter must */
	if (f->kind != GD_FK_COUNTER && !base[0] && ends_with(stem, "_total"))
		stem[strlen(stem) - 6] = '\0';
	/* _count is the suffix of histograms and summaries: a gauge that counts
	 * things is named by them ("device_count" -> "devices") */
	if (f->kind != GD_FK_COUNTER && !base[0] && ends_with(stem, "_count")) {
		stem[strlen(stem) - 6] = '\0';
		strcat(stem, "s");
	}
	n = (size_t)snprintf(buf, size, "gpudoctor_%s_%s%s%s", section, stem, base,
			     f->kind == GD_FK_COUNTER ? "_total" : "");
	return n < size;
}

void gd_prom_label_value(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned char c = *p;
		size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		bool valid = len > 0;

		for (size_t i = 1; valid && i < len; i++)
			valid = (p[i] & 0xc0) == 0x80;
		/* no overlong forms, surrogates or code points past U+10FFFF */
		if (valid && len == 2)
			valid = c >= 0xc2;
		if (valid && len == 3)
			valid = !(c == 0xe0 && p[1] < 0xa0) && !(c == 0xed && p[1] >= 0xa0);
		if (valid && len == 4)
			valid = !(c == 0xf0 && p[1] < 0x90) && c <= 0xf4 && !(c == 0xf4 && p[1] >= 0x90);
		if (!valid) {
			fputc('?', out);
			p++;
			continue;
		}
		if (c == '\\')
			fputs("\\\\", out);
		else if (c == '"')
			fputs("\\\"", out);
		else if (c == '\n')
			fputs("\\n", out);
		else
			fwrite(p, 1, len, out);
		p += len;
	}
}

/* HELP text: backslash and newline escaped. */
static void help_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

static void print_value(FILE *out, double v)
{
	if (isnan(v))
		fputs("NaN", out);
	else if (isinf(v))
		fputs(v > 0 ? "+Inf" : "-Inf", out);
	else
		fprintf(out, "%.15g", v);
}

static bool label_wanted(const struct policy *pol, const struct gd_field *f)
{
	if (f->kind != GD_FK_LABEL)
		return false;
	if (!pol || !pol->labels[0])
		return true;
	for (size_t i = 0; i < 6 && pol->labels[i]; i++)
		if (strcmp(pol->labels[i], f->name) == 0)
			return true;
	return false;
}

/* The label name of field f under the policy (its field name unless renamed). */
static const char *label_name(const struct policy *pol, const struct gd_field *f)
{
	for (size_t i = 0; pol && i < 3 && pol->rename[i][0]; i++)
		if (strcmp(pol->rename[i][0], f->name) == 0)
			return pol->rename[i][1];
	return f->name;
}

static void memstream_failed(void)
{
	fputs("gpudoctor: out of memory (open_memstream)\n", stderr);
	abort();
}

/* Writes {a="x",b="y"} (or nothing) for one record into a new string. */
static char *labels_of(const struct gd_record_desc *d, const struct policy *pol, const void *rec)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	bool any = false;

	if (!m)
		memstream_failed();
	for (size_t i = 0; i < d->nfields; i++) {
		const struct gd_field *f = &d->fields[i];
		const char *p = (const char *)rec + f->offset;
		const struct gd_u64 *u = (const void *)p;

		if (!label_wanted(pol, f))
			continue;
		if (f->type == GD_FT_STR ? !p[0] : f->type != GD_FT_U64 || !u->ok)
			continue;
		fprintf(m, "%s%s=\"", any ? "," : "{", label_name(pol, f));
		if (f->type == GD_FT_STR)
			gd_prom_label_value(m, p);
		else
			fprintf(m, "%" PRIu64, u->v);
		fputc('"', m);
		any = true;
	}
	if (any)
		fputc('}', m);
	if (fclose(m) != 0)
		memstream_failed();
	return buf;
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* True when two records' label sets are equal (they would be one series). */
static bool labels_collide(char **labels, size_t n)
{
	char **tmp;
	bool dup = false;

	if (n < 2)
		return false;
	tmp = gd_xreallocarray(NULL, n, sizeof *tmp);
	memcpy(tmp, labels, n * sizeof *tmp);
	qsort(tmp, n, sizeof *tmp, by_str);
	for (size_t i = 1; i < n && !dup; i++)
		dup = strcmp(tmp[i - 1], tmp[i]) == 0;
	free(tmp);
	return dup;
}

/* Appends idx="i" to each record's labels. */
static void add_idx(char **labels, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(labels[i]);
		char *s = gd_xmalloc(len + 32);

		if (len)
			snprintf(s, len + 32, "%.*s,idx=\"%zu\"}", (int)(len - 1), labels[i], i);
		else
			snprintf(s, len + 32, "{idx=\"%zu\"}", i);
		free(labels[i]);
		labels[i] = s;
	}
}

struct cpu_use {
	const struct gd_proc *p;
	uint64_t ticks;
};

static int by_ticks_desc(const void *a, const void *b)
{
	const struct cpu_use *x = a, *y = b;

	return (x->ticks < y->ticks) - (x->ticks > y->ticks);
}

/* The processes worth a series: GPU jobs and the top CPU users over w. */
static size_t pick_procs(const struct gd_window *w, const struct gd_proc **out, size_t cap)
{
	const struct gd_snapshot *first = gd_window_first(w), *last = gd_window_last(w);
	struct cpu_use *bg = gd_xreallocarray(NULL, last->procs.n + 1, sizeof *bg);
	size_t n = 0, nbg = 0;

	GD_VEC_EACH(last->procs, const struct gd_proc, p) {
		const struct gd_proc *q;
		uint64_t a, b;

		if (gd_proc_in_gpu_job(last, p)) {
			if (n < cap)
				out[n++] = p;
			continue;
		}
		if ((p->kthread.ok && p->kthread.v) || w->n < 2 || !p->starttime_ticks.ok)
			continue;
		q = gd_proc_find(first, p->pid.v, p->starttime_ticks.v);
		if (!q || !p->utime_ticks.ok || !p->stime_ticks.ok || !q->utime_ticks.ok || !q->stime_ticks.ok)
			continue;
		a = q->utime_ticks.v + q->stime_ticks.v;
		b = p->utime_ticks.v + p->stime_ticks.v;
		if (b > a)
			bg[nbg++] = (struct cpu_use){ p, b - a };
	}
	qsort(bg, nbg, sizeof *bg, by_ticks_desc);
	for (size_t i = 0; i < nbg && i < GD_PROM_TOP_PROCS && n < cap; i++)
		out[n++] = bg[i].p;
	free(bg);
	return n;
}

static void family_head(FILE *out, const char *name, const struct gd_field *f, const char *type)
{
	fprintf(out, "# HELP %s ", name);
	help_text(out, f->help);
	if (strcmp(f->unit, "ticks") == 0)
		fputs(" (ticks / host.clk_tck)", out);
	fprintf(out, "\n# TYPE %s %s\n", name, type);
}

/* One family per numeric field over the records recs[0..n). */
static void section_fields(FILE *out, const struct gd_record_desc *d, const void *const *recs, char **labels, size_t n,
			   const struct gd_snapshot *last)
{
	for (size_t i = 0; i < d->nfields; i++) {
		const struct gd_field *f = &d->fields[i];
		char name[160];
		double scale;
		bool head = false;

		if (!gd_prom_metric_name(d->name, f, name, sizeof name, &scale))
			continue;
		if (scale == 0) {  /* ticks: no USER_HZ, no seconds */
			if (!last->host.clk_tck.ok || !last->host.clk_tck.v)
				continue;
			scale = 1.0 / (double)last->host.clk_tck.v;
		}
		for (size_t r = 0; r < n; r++) {
			const char *p = (const char *)recs[r] + f->offset;
			const struct gd_u64 *u = (const void *)p;
			const struct gd_f64 *x = (const void *)p;

			if (f->type == GD_FT_U64 ? !u->ok : !x->ok)
				continue;
			if (!head) {
				family_head(out, name, f, f->kind == GD_FK_COUNTER ? "counter" : "gauge");
				head = true;
			}
			fprintf(out, "%s%s ", name, labels[r]);
			if (f->type == GD_FT_U64 && scale == 1)
				fprintf(out, "%" PRIu64, u->v);
			else
				print_value(out, (f->type == GD_FT_U64 ? (double)u->v : x->v) * scale);
			fputc('\n', out);
		}
	}
}

static void one_section(FILE *out, const struct gd_record_desc *d, const struct gd_window *w)
{
	const struct gd_snapshot *last = gd_window_last(w);
	const struct policy *pol = policy_of(d->name);
	const char *base = (const char *)last + d->offset;
	const void **recs;
	char **labels;
	size_t n = 0;

	if (pol && pol->mode == SKIP)
		return;
	if (d->is_array) {
		const struct gd_vec *v = (const void *)base;

		recs = gd_xreallocarray(NULL, v->n + 1, sizeof *recs);
		if (pol && pol->mode == PROCS) {
			n = pick_procs(w, (const struct gd_proc **)recs, v->n);
		} else {
			for (size_t i = 0; i < v->n; i++)
				recs[n++] = (const char *)v->items + i * d->size;
		}
	} else {
		recs = gd_xreallocarray(NULL, 1, sizeof *recs);
		recs[n++] = base;
	}
	labels = gd_xreallocarray(NULL, n + 1, sizeof *labels);
	for (size_t i = 0; i < n; i++)
		labels[i] = labels_of(d, pol, recs[i]);
	if (d->is_array && labels_collide(labels, n))
		add_idx(labels, n);
	if (!d->is_array) {
		/* identity strings of a one-record section: an info metric */
		if (labels[0][0])
			fprintf(out, "# HELP gpudoctor_%s_info identity of the %s section (labels)\n"
				"# TYPE gpudoctor_%s_info gauge\ngpudoctor_%s_info%s 1\n",
				d->name, d->name, d->name, d->name, labels[0]);
		labels[0][0] = '\0';
	}
	section_fields(out, d, (const void *const *)recs, labels, n, last);
	for (size_t i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	free(recs);
}

static bool finding_seen(const struct gd_findings *fs, const struct gd_finding *f)
{
	GD_VEC_EACH(fs->items, const struct gd_finding, g) {
		if (g == f)
			return false;
		if (strcmp(g->id, f->id) == 0 && g->severity == f->severity && strcmp(g->subject, f->subject) == 0)
			return true;
	}
	return false;
}

static void findings(FILE *out, const struct gd_findings *fs)
{
	fputs("# HELP gpudoctor_finding 1 while a rule's finding about a subject is active\n"
	      "# TYPE gpudoctor_finding gauge\n", out);
	GD_VEC_EACH(fs->items, const struct gd_finding, f) {
		if (finding_seen(fs, f))
			continue;
		fputs("gpudoctor_finding{rule=\"", out);
		gd_prom_label_value(out, f->id);
		fprintf(out, "\",severity=\"%s\",subject=\"", gd_severity_name(f->severity));
		gd_prom_label_value(out, f->subject);
		fputs("\"} 1\n", out);
	}
	fputs("# HELP gpudoctor_rule_evaluated 1 when the rule reached a verdict, 0 when its evidence was missing\n"
	      "# TYPE gpudoctor_rule_evaluated gauge\n", out);
	for (size_t i = 0; i < gd_nrules; i++) {
		bool unknown = false;

		GD_VEC_EACH(fs->unknown, const struct gd_unknown, u)
			unknown = unknown || strcmp(u->id, gd_rules[i].id) == 0;
		fputs("gpudoctor_rule_evaluated{rule=\"", out);
		gd_prom_label_value(out, gd_rules[i].id);
		fprintf(out, "\"} %d\n", unknown ? 0 : 1);
	}
}

static void collectors(FILE *out, const struct gd_snapshot *s)
{
	fputs("# HELP gpudoctor_collector_duration_seconds time the collector took in the last cycle\n"
	      "# TYPE gpudoctor_collector_duration_seconds gauge\n", out);
	GD_VEC_EACH(s->sources, const struct gd_source, src) {
		if (!src->duration_s.ok)
			continue;
		fputs("gpudoctor_collector_duration_seconds{collector=\"", out);
		gd_prom_label_value(out, src->name);
		fputs("\"} ", out);
		print_value(out, src->duration_s.v);
		fputc('\n', out);
	}
	fputs("# HELP gpudoctor_collector_success 1 when the source was read (ok) or is known not to exist here "
	      "(absent); 0 when denied, partial or failed\n"
	      "# TYPE gpudoctor_collector_success gauge\n", out);
	GD_VEC_EACH(s->sources, const struct gd_source, src) {
		fputs("gpudoctor_collector_success{collector=\"", out);
		gd_prom_label_value(out, src->name);
		fprintf(out, "\"} %d\n", strcmp(src->status, "ok") == 0 || strcmp(src->status, "absent") == 0);
	}
}

/* Where each GPU job's main thread spent the last interval: its CPU share
 * and the share of its samples per category (rule_job_threads.h), one
 * series per rank and category: labels pid, comm, category only. */
static void job_main_threads(FILE *out, const struct gd_window *w)
{
	static const char *const cats[JT_NCAT] = { "cuda", "nccl", "python", "framework", "kernel", "other" };
	static const char *const help[2] = {
		"# HELP gpudoctor_job_main_thread_cpu_ratio share of one core the main thread of a GPU job ran over "
		"the last interval (schedstat)\n# TYPE gpudoctor_job_main_thread_cpu_ratio gauge\n",
		"# HELP gpudoctor_job_main_thread_samples_ratio share of the main thread's perf samples over the last "
		"interval in each category (cuda, nccl, python, framework, kernel, other)\n"
		"# TYPE gpudoctor_job_main_thread_samples_ratio gauge\n",
	};
	const struct gd_snapshot *a, *b;
	double dt;

	if (!w || w->n < 2)
		return;
	a = w->snaps[w->n - 2];
	b = w->snaps[w->n - 1];
	if (!a->host.uptime_s.ok || !b->host.uptime_s.ok || (dt = b->host.uptime_s.v - a->host.uptime_s.v) <= 0)
		return;
	/* one family after the other: a family's samples must not be split */
	for (int fam = 0; fam < 2; fam++) {
		bool head = false;

		GD_VEC_EACH(b->job_threads, const struct gd_job_thread, t) {
			struct gd_jt_use u;

			if (strcmp(t->role, "main") != 0 || !gd_jt_use_of(a, b, dt, t, &u) ||
			    (fam == 0 ? isnan(u.core_pct) : !u.sampled || u.total <= 0))
				continue;
			if (!head)
				fputs(help[fam], out);
			head = true;
			for (int k = 0; k < (fam == 0 ? 1 : JT_NCAT); k++) {
				fprintf(out, "gpudoctor_job_main_thread_%s_ratio{pid=\"%" PRIu64 "\",comm=\"",
					fam == 0 ? "cpu" : "samples", u.pid);
				gd_prom_label_value(out, u.comm);
				if (fam == 1)
					fprintf(out, "\",category=\"%s", cats[k]);
				fputs("\"} ", out);
				print_value(out, fam == 0 ? u.core_pct / 100.0 : u.samples[k] / u.total);
				fputc('\n', out);
			}
		}
	}
}

/* Per rank, what `gpudoctor fleet --job` compares across nodes: the share
 * of its main and NCCL threads' samples that were in NCCL over the last
 * interval (what job.waiting_for_peers judges on one node), and its main
 * thread's scheduler state, one series per state (R, S, D, T, Z: 1 for the
 * current one, 0 for the others, so no series comes and goes with it). */
static void job_rank_waits(FILE *out, const struct gd_window *w)
{
	static const char states[] = "RSDTZ";
	const struct gd_snapshot *a, *b;

	if (!w || w->n < 2)
		return;
	a = w->snaps[w->n - 2];
	b = w->snaps[w->n - 1];
	for (int fam = 0; fam < 2; fam++) {
		bool head = false;

		GD_VEC_EACH(b->job_threads, const struct gd_job_thread, t) {
			double nccl, total;
			char st;

			if (strcmp(t->role, "main") != 0 || !t->pid.ok || !t->tid.ok || t->tid.v != t->pid.v)
				continue;
			if (fam == 0 && (!gd_jt_comm_samples(a, b, t->pid.v, &nccl, &total) || total <= 0))
				continue;
			st = t->state[0] == 't' ? 'T' : t->state[0] == 'X' ? 'Z' : t->state[0] == 'I' ? 'S' : t->state[0];
			if (fam == 1 && !strchr(states, st ? st : '?'))
				continue;
			if (!head)
				fputs(fam == 0 ? "# HELP gpudoctor_job_rank_nccl_wait_ratio share of a GPU job's main and NCCL "
						 "threads' samples in NCCL over the last interval (waiting for its peers)\n"
						 "# TYPE gpudoctor_job_rank_nccl_wait_ratio gauge\n"
					       : "# HELP gpudoctor_job_main_thread_state 1 for the scheduler state of a GPU job's "
						 "main thread (R, S, D uninterruptible, T stopped, Z gone), 0 for the others\n"
						 "# TYPE gpudoctor_job_main_thread_state gauge\n",
				      out);
			head = true;
			if (fam == 0) {
				fprintf(out, "gpudoctor_job_rank_nccl_wait_ratio{pid=\"%" PRIu64 "\"} ", t->pid.v);
				print_value(out, nccl / total);
				fputc('\n', out);
				continue;
			}
			for (const char *c = states; *c; c++)
				fprintf(out, "gpudoctor_job_main_thread_state{pid=\"%" PRIu64 "\",state=\"%c\"} %d\n", t->pid.v, *c,
					*c == st);
		}
	}
}

/* Who each GPU job process is in its distributed job (job_ranks[]): one
 * gpudoctor_job_rank_info series per process whose rank was read, with a
 * fixed label set ("" where a label is not known) and pid, so PromQL can
 * join it on (instance, pid) to the per-rank signals above; and, for every
 * process, whether its identity could be read (1: read, with or without a
 * rank; 0: denied, another pid namespace, gone), the status as a label. */
static void job_ranks(FILE *out, const struct gd_snapshot *s)
{
	bool head = false;

	GD_VEC_EACH(s->job_ranks, const struct gd_job_rank, r) {
		const struct {
			const char *name;
			const struct gd_u64 *v;
		} nums[] = { { "rank", &r->rank }, { "local_rank", &r->local_rank }, { "world_size", &r->world_size },
			     { "node_rank", &r->node_rank } };

		if (!r->pid.ok || strcmp(r->status, "ok") != 0 || !r->rank.ok)
			continue;
		if (!head)
			fputs("# HELP gpudoctor_job_rank_info who a GPU job process is in its distributed job (from a fixed "
			      "list of its environment's keys); labels only, empty when not known\n"
			      "# TYPE gpudoctor_job_rank_info gauge\n", out);
		head = true;
		fputs("gpudoctor_job_rank_info{job=\"", out);
		gd_prom_label_value(out, r->job);
		for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
			fprintf(out, "\",%s=\"", nums[k].name);
			if (nums[k].v->ok)
				fprintf(out, "%" PRIu64, nums[k].v->v);
		}
		fputs("\",gpu=\"", out);
		gd_prom_label_value(out, r->gpus);
		fputs("\",pod=\"", out);
		gd_prom_label_value(out, r->pod);
		fputs("\",namespace=\"", out);
		gd_prom_label_value(out, r->namespace);
		fprintf(out, "\",pid=\"%" PRIu64 "\"} 1\n", r->pid.v);
	}
	head = false;
	GD_VEC_EACH(s->job_ranks, const struct gd_job_rank, r) {
		if (!r->pid.ok)
			continue;
		if (!head)
			fputs("# HELP gpudoctor_job_rank_identity_success 1 when a GPU job process's identity was read (status "
			      "ok, or no_rank: none of the rank keys set); 0 when denied, in another pid namespace, or gone\n"
			      "# TYPE gpudoctor_job_rank_identity_success gauge\n", out);
		head = true;
		fprintf(out, "gpudoctor_job_rank_identity_success{pid=\"%" PRIu64 "\",status=\"", r->pid.v);
		gd_prom_label_value(out, r->status);
		fprintf(out, "\"} %d\n", strcmp(r->status, "ok") == 0 || strcmp(r->status, "no_rank") == 0);
	}
}

/* addr ("10.0.0.1:29500", "[fe80::1]:29500") without its port, into buf. */
static void addr_host(const char *addr, char *buf, size_t size)
{
	const char *colon = strrchr(addr, ':');
	size_t len = colon && (addr[0] != '[' || colon[-1] == ']') ? (size_t)(colon - addr) : strlen(addr);

	snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), addr);
}

/* The round trip of each GPU job's TCP links to other hosts (job_sockets[]:
 * established, not loopback): per process and pair of addresses the largest
 * smoothed RTT, so that `fleet --job` can find the node every slow link of
 * a job touches (a shaped or failing NIC slows the connections to it and
 * from it). */
static void job_links(FILE *out, const struct gd_snapshot *s)
{
	bool head = false;

	GD_VEC_EACH(s->job_sockets, const struct gd_job_socket, js) {
		char local[64], peer[64];
		uint64_t rtt = 0;
		bool first = true;

		if (!js->pid.ok || !js->rtt_us.ok || !(js->state.ok && js->state.v == 1) || !js->local[0] || !js->peer[0] ||
		    strncmp(js->peer, "127.", 4) == 0 || strncmp(js->peer, "[::1]", 5) == 0 ||
		    strncmp(js->peer, "[::ffff:127.", 12) == 0)
			continue;
		addr_host(js->local, local, sizeof local);
		addr_host(js->peer, peer, sizeof peer);
		/* once per (pid, local, peer): the first socket of the pair prints the largest */
		GD_VEC_EACH(s->job_sockets, const struct gd_job_socket, q) {
			char l2[64], p2[64];

			if (!q->pid.ok || q->pid.v != js->pid.v || !q->rtt_us.ok || !(q->state.ok && q->state.v == 1))
				continue;
			addr_host(q->local, l2, sizeof l2);
			addr_host(q->peer, p2, sizeof p2);
			if (strcmp(l2, local) != 0 || strcmp(p2, peer) != 0)
				continue;
			if (q < js) {
				first = false;
				break;
			}
			if (q->rtt_us.v > rtt)
				rtt = q->rtt_us.v;
		}
		if (!first)
			continue;
		if (!head)
			fputs("# HELP gpudoctor_job_link_rtt_seconds largest smoothed round trip (tcpi_rtt) of a GPU job's "
			      "established TCP connections from a local address to a far one\n"
			      "# TYPE gpudoctor_job_link_rtt_seconds gauge\n", out);
		head = true;
		fprintf(out, "gpudoctor_job_link_rtt_seconds{pid=\"%" PRIu64 "\",local=\"", js->pid.v);
		gd_prom_label_value(out, local);
		fputs("\",peer=\"", out);
		gd_prom_label_value(out, peer);
		fputs("\"} ", out);
		print_value(out, (double)rtt / 1e6);
		fputc('\n', out);
	}
}

/* The GPM figures of each sampled GPU (gpu_activity[], source gpm) averaged
 * over the last interval, one series per GPU and figure, label gpu only:
 * SM activity next to utilisation tells a busy GPU from one thin kernel. */
static void gpu_activity_means(FILE *out, const struct gd_snapshot *b)
{
	static const struct {
		const char *name, *help;
		size_t off;
		double scale;
	} fig[] = {
#define FIG(n, h, f, sc) { n, h, offsetof(struct gd_gpu_activity, f), sc }
		FIG("sm_active_ratio", "share of the SMs busy (GPM SM activity)", sm_active_pct, 0.01),
		FIG("sm_occupancy_ratio", "warps resident against the maximum (GPM)", sm_occupancy_pct, 0.01),
		FIG("tensor_active_ratio", "share of time the SMs ran tensor-core operations (GPM)", tensor_active_pct, 0.01),
		FIG("dram_bw_ratio", "device-memory bandwidth used against the maximum (GPM)", dram_bw_pct, 0.01),
		FIG("nvlink_rx_bytes_per_second", "NVLink bytes read per second, all links (GPM)", nvlink_rx_bytes_s, 1),
		FIG("nvlink_tx_bytes_per_second", "NVLink bytes written per second, all links (GPM)", nvlink_tx_bytes_s, 1),
#undef FIG
	};

	for (size_t k = 0; k < sizeof fig / sizeof fig[0]; k++) {
		bool head = false;

		GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
			double sum = 0;
			size_t n = 0;

			if (!g->index.ok)
				continue;
			GD_VEC_EACH(b->gpu_activity, const struct gd_gpu_activity, r) {
				struct gd_f64 v;

				if (!r->gpu.ok || r->gpu.v != g->index.v || strcmp(r->source, "gpm") != 0)
					continue;
				memcpy(&v, (const char *)r + fig[k].off, sizeof v);
				if (v.ok && isfinite(v.v)) {
					sum += v.v;
					n++;
				}
			}
			if (!n)
				continue;
			if (!head)
				fprintf(out, "# HELP gpudoctor_gpu_activity_%s %s over the last interval\n# TYPE gpudoctor_gpu_activity_%s gauge\n",
					fig[k].name, fig[k].help, fig[k].name);
			head = true;
			fprintf(out, "gpudoctor_gpu_activity_%s{gpu=\"%" PRIu64 "\"} ", fig[k].name, g->index.v);
			print_value(out, sum / (double)n * fig[k].scale);
			fputc('\n', out);
		}
	}
}

void gd_out_prom(FILE *out, const struct gd_report *r)
{
	const struct gd_snapshot *last = gd_window_last(r->w);

	if (!last)
		return;
	for (size_t i = 0; i < gd_nsections; i++)
		one_section(out, &gd_sections[i], r->w);
	job_main_threads(out, r->w);
	job_rank_waits(out, r->w);
	job_ranks(out, last);
	job_links(out, last);
	gpu_activity_means(out, last);
	findings(out, r->findings);
	collectors(out, last);
}
