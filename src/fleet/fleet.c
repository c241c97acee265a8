/*
 * fleet.c - the queries of `gpudoctor fleet --prometheus URL` and the
 * tables built from their answers (fleet.h).
 *
 * The query shape does the work: every query is one instant query at --at
 * whose answer is already aggregated by the server to (rule, node, GPU),
 * (model) or (node), never raw series, and whose cost is bounded whatever
 * the fleet and the range.  R is --range, S the step, LB = min(1h, R).
 *
 * Counters over a range (serve's gpudoctor_finding_onsets_total and
 * _active_seconds_total, finding_counters.c; _stall_uncaused_*):
 *
 *   fast: (C - last_over_time(C[LB] offset R)) or C
 *
 * the value at the end minus the last value before the start; a series born
 * inside the range (none before it) counts from 0, so its first onset is not
 * lost as increase() would lose it.  Two lookups per series, whatever R.
 * It needs the series at the end and no counter reset, so the nodes whose
 * exporter vanished before the end or restarted inside the range (found by
 * one query: present in the range but not now, or resets of
 * gpudoctor_collection_cycles_total) are left out of it (instance!~) and
 * counted by the full form over the counter sampled every step:
 *
 *   full: (((last_over_time(C[R:S']) - last_over_time(C[LB] offset R))
 *           or last_over_time(C[R:S'])) unless resets(C[R:S']) > 0)
 *         or increase(C[R:S'])
 *
 *   causes:   sum by (rule, job, instance, gpu) (fast or full) > 0, for
 *             onsets and active seconds; the same for the uncaused stall
 *             counters: the row "no cause found"
 *   GPUs:     count by (job, instance) (max_over_time(gpudoctor_gpus_lost[R:S'])):
 *             a host finding counts all GPUs of its node
 *   outliers: X = avg_over_time((METRIC and on(job,instance,gpu) LOADED)[R:S'])
 *             one value per busy GPU; the median and MAD per model are taken
 *             from those (evaluating X again per statistic on the server cost
 *             8 times as much: bench/fleet/run.sh)
 *   drain:    max by (job, instance, rule, subject) (gpudoctor_finding{severity="critical"})
 *   blind:    sum_over_time((up == bool 0)[R:S']) * S' for targets that
 *             export gpudoctor_build_info; the same for gpudoctor_up
 *
 * S' = max(S, R x series / budget): a subquery holds series x steps points
 * at once; NODE_POINTS (1e7) stays far below Prometheus' default
 * --query.max-samples (5e7); OUTLIER_POINTS (1e6) is spent once per outlier
 * metric, where each point is a join (the costliest points of the run).  docs/fleet.md has the cost measured and extrapolated.
 */
#include "fleet/fleet.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "model/snapshot.h"
#include "rules/rule.h"

#define NODE_POINTS 1e7      /* per subquery over node or GPU series */
#define OUTLIER_POINTS 1e6   /* per outlier metric (one query each) */
#define EXPR_MAX 16384

/* ---- categories ---------------------------------------------------------- */

struct category {
	const char *prefix;       /* a rule id or a prefix ending in '.' or '_' */
	const char *category;     /* English (JSON, npd.c compare it); the tables print _(category) */
	bool hardware;
};

static const struct category categories[] = {
	{ "gpu.ecc_", N_("GPU memory"), true },
	{ "gpu.row_remap_", N_("GPU memory"), true },
	{ "probe.gpu_memory_errors", N_("GPU memory"), true },
	{ "gpu.memory_full", N_("the job itself"), false },
	{ "gpu.memory_oversubscribed", N_("the job itself"), false },
	{ "gpu.shared_by_processes", N_("the job itself"), false },
	{ "gpu.idle_while_job_runs", N_("the job itself"), false },
	{ "gpu.saturated", N_("the job itself"), false },
	{ "gpu.transfer_serialized", N_("the job itself"), false },
	{ "gpu.persistence_off", N_("software/driver"), false },
	{ "gpu.clocks_held_low", N_("software/driver"), false },
	{ "cpu.input_bound", N_("the job itself"), false },
	{ "cpu.too_many_workers", N_("the job itself"), false },
	{ "job.", N_("the job itself"), false },
	{ "net.rdma_unused", N_("the job itself"), false },
	{ "probe.storage_slow", N_("storage"), false },
	{ "probe.small_files_slow", N_("storage"), false },
	{ "probe.host_mem_bandwidth_low", N_("host"), true },
	{ "probe.power_headroom", N_("host"), false },
	{ "probe.", N_("GPU"), true },
	{ "gpu.", N_("GPU"), true },
	{ "driver.", N_("software/driver"), false },
	{ "host.memory_errors", N_("host"), true },
	{ "host.", N_("host"), false },
	{ "cpu.", N_("host"), false },
	{ "mem.", N_("host"), false },
	{ "io.", N_("storage"), false },
	{ "net.", N_("network"), false },
};

static const struct category *category_of(const char *rule)
{
	for (size_t i = 0; i < sizeof categories / sizeof categories[0]; i++) {
		const char *p = categories[i].prefix;
		size_t n = strlen(p);
		bool prefix = p[n - 1] == '.' || p[n - 1] == '_';

		if (prefix ? strncmp(rule, p, n) == 0 : strcmp(rule, p) == 0)
			return &categories[i];
	}
	return NULL;
}

const char *gd_fleet_category(const char *rule)
{
	const struct category *c = category_of(rule);

	return c ? c->category : N_("other");
}

const char *gd_fleet_remedy(const char *rule, const char *unknown)
{
	const struct gd_rule *r = gd_rule_find(rule);

	if (!r || !r->remedy)
		return unknown;
	return r->remedy[0] ? _(r->remedy) : r->remedy;  /* _("") would be the catalogue's header */
}

bool gd_fleet_is_hardware(const char *rule)
{
	const struct category *c = category_of(rule);

	return c && c->hardware;
}

/* ---- building expressions ------------------------------------------------ */

struct q {
	struct gd_prom *p;
	const struct gd_fleet_opts *o;
	char match[1024];         /* the --match matchers, comma-joined, or "" */
	char r[32], s[32];        /* the range and step as PromQL durations */
	char lb[32];              /* how far before the range a counter's start value is looked for */
};

/* name{matchers,extra} */
static void sel(const struct q *q, char *buf, size_t size, const char *name, const char *extra)
{
	bool a = q->match[0], b = extra && extra[0];

	snprintf(buf, size, "%s{%s%s%s}", name, q->match, a && b ? "," : "", b ? extra : "");
}

static void duration(char *buf, size_t size, double s)
{
	snprintf(buf, size, "%llds", (long long)llround(s));
}

/* The counter name over the range, the cheap form: two instant lookups per
 * series (now, and the last sample of the hour before the range's start),
 * for the nodes whose exporter neither restarted nor vanished in the range;
 * extra narrows the selector (instance!~"..."). */
static void delta_fast(const struct q *q, char *buf, size_t size, const char *name, const char *extra)
{
	char c[3000];

	sel(q, c, sizeof c, name, extra);
	snprintf(buf, size, "((%s - last_over_time(%s[%s] offset %s)) or %s)", c, c, q->lb, q->r, c);
}

/* The full form, for the nodes that restarted (resets) or vanished before
 * the end (no sample now): the counter sampled every step (a subquery whose
 * step keeps series x steps bounded), so the cost does not grow with the
 * range; increase() over those samples where the exporter restarted. */
static void delta_full(const struct q *q, char *buf, size_t size, const char *name, const char *extra,
		       const char *step)
{
	char c[3000];

	sel(q, c, sizeof c, name, extra);
	snprintf(buf, size,
		 "((((last_over_time(%s[%s:%s]) - last_over_time(%s[%s] offset %s)) or last_over_time(%s[%s:%s])) "
		 "unless resets(%s[%s:%s]) > 0) or increase(%s[%s:%s]))",
		 c, q->r, step, c, q->lb, q->r, c, q->r, step, c, q->r, step, c, q->r, step);
}

/* The step of a subquery over n series: at most budget points held at once. */
static void step_for(const struct q *q, double n, double budget, char *buf, size_t size)
{
	double st = fmax(q->o->step_s, ceil(q->o->range_s * fmax(n, 1) / budget));

	snprintf(buf, size, "%llds", (long long)llround(st));
}

/* A LABEL=VALUE matcher as PromQL (LABEL="VALUE"); =~, != and !~ pass. */
static int matcher(const char *m, char *out, size_t size, struct gd_err *err)
{
	size_t n = strspn(m, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	const char *op = m + n, *v;
	size_t olen;
	char *o = out;

	if (n == 0 || (m[0] >= '0' && m[0] <= '9'))
		return gd_err_set(err, -EINVAL, _("--match %s: expected LABEL=VALUE (e.g. cluster=a, job=gpudoctor)"), m);
	if (strncmp(op, "=~", 2) == 0 || strncmp(op, "!=", 2) == 0 || strncmp(op, "!~", 2) == 0)
		olen = 2;
	else if (op[0] == '=')
		olen = 1;
	else
		return gd_err_set(err, -EINVAL, _("--match %s: expected LABEL=VALUE, LABEL!=VALUE, LABEL=~RE or LABEL!~RE"),
				  m);
	v = op + olen;
	if (strlen(m) * 2 + 8 > size)
		return gd_err_set(err, -EINVAL, _("--match %s: too long"), m);
	o += sprintf(o, "%.*s%.*s\"", (int)n, m, (int)olen, op);
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			*o++ = '\\';
		if (*v == '\n') {
			*o++ = '\\';
			*o++ = 'n';
			continue;
		}
		*o++ = *v;
	}
	*o++ = '"';
	*o = '\0';
	return 0;
}

int gd_fleet_matchers(const struct gd_fleet_opts *o, char *buf, size_t size, struct gd_err *err)
{
	buf[0] = '\0';
	for (size_t i = 0; i < o->nmatch; i++) {
		char m[512];
		size_t len = strlen(buf);
		int rv;

		if ((rv = matcher(o->match[i], m, sizeof m, err)) < 0)
			return rv;
		if (len + strlen(m) + 2 >= size)
			return gd_err_set(err, -EINVAL, _("--match: too many or too long"));
		snprintf(buf + len, size - len, "%s%s", len ? "," : "", m);
	}
	return 0;
}

/* s as an RE2 literal inside a PromQL double-quoted string: regex
 * metacharacters get a backslash, which the string needs doubled. */
static void regex_quote(const char *s, char *out, size_t size)
{
	size_t n = 0;

	for (; *s && n + 4 < size; s++) {
		if (strchr(".+*?()|[]{}^$\\", *s)) {
			out[n++] = '\\';
			out[n++] = '\\';
		} else if (*s == '"') {
			out[n++] = '\\';
		}
		out[n++] = *s;
	}
	out[n] = '\0';
}

/* ---- helpers over answers ----------------------------------------------- */

static void node_of(const struct gd_prom_sample *s, char *buf, size_t size)
{
	gd_strlcpy(buf, gd_prom_label(s, "instance"), size);
}

#define entry gd_fleet_entry
#define ngpu gd_fleet_ngpu
#define NO_CAUSE GD_FLEET_NO_CAUSE

/* qsort of a vector that may be empty (its items NULL: qsort's argument may not be) */
static void sort_vec(struct gd_vec *v, size_t size, int (*cmp)(const void *, const void *))
{
	if (v->n > 1)
		qsort(v->items, v->n, size, cmp);
}

static int by_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->rule, y->rule);

	if (!c)
		c = strcmp(x->node, y->node);
	if (!c)
		c = strcmp(x->gpu, y->gpu);
	return c;
}

static struct entry *entry_get(struct gd_vec *v, const char *rule, const char *node, const char *gpu)
{
	struct entry *e;

	GD_VEC_EACH(*v, struct entry, x)
		if (strcmp(x->rule, rule) == 0 && strcmp(x->node, node) == 0 && strcmp(x->gpu, gpu) == 0)
			return x;
	e = gd_vec_push(v, sizeof *e);
	gd_strlcpy(e->rule, rule, sizeof e->rule);
	gd_strlcpy(e->node, node, sizeof e->node);
	gd_strlcpy(e->gpu, gpu, sizeof e->gpu);
	return e;
}

static size_t gpus_of(const struct gd_vec *ng, const char *node)
{
	GD_VEC_EACH(*ng, const struct ngpu, x)
		if (strcmp(x->node, node) == 0)
			return x->n;
	return 0;
}

static int query(struct q *q, const char *name, const char *expr, struct gd_prom_result *r, struct gd_err *err)
{
	return gd_prom_query(q->p, name, expr, r, err);
}

/* Adds the answer r (by rule, instance, gpu) to the entries, into ons or act;
 * rule_name overrides the rule label (the no-cause row). */
static void add_entries(struct gd_vec *v, const struct gd_prom_result *r, bool act, const char *rule_name)
{
	for (size_t i = 0; i < r->n; i++) {
		char node[128];
		struct entry *e;

		if (!isfinite(r->s[i].v))
			continue;
		node_of(&r->s[i], node, sizeof node);
		e = entry_get(v, rule_name ? rule_name : gd_prom_label(&r->s[i], "rule"), node,
			      gd_prom_label(&r->s[i], "gpu"));
		if (act)
			e->act += r->s[i].v;
		else
			e->ons += r->s[i].v;
	}
}


/* The cause table from the entries (sorted): per rule, distinct nodes, GPUs
 * (a host-level entry, gpu "", stands for all GPUs of its node). */
static void build_causes(struct gd_fleet *f, struct gd_vec *ents, const struct gd_vec *ng)
{
	struct entry *e = ents->items;
	size_t n = ents->n;

	sort_vec(ents, sizeof *e, by_entry);
	for (size_t i = 0; i < n;) {
		struct gd_fleet_cause *c = gd_vec_push(&f->causes, sizeof *c);
		size_t j = i;

		gd_strlcpy(c->rule, e[i].rule, sizeof c->rule);
		c->category = strcmp(e[i].rule, NO_CAUSE) == 0 ? N_("none") : gd_fleet_category(e[i].rule);
		while (j < n && strcmp(e[j].rule, e[i].rule) == 0) {
			size_t k = j, host = 0, gpus = 0, all = gpus_of(ng, e[j].node);

			while (k < n && strcmp(e[k].rule, e[i].rule) == 0 && strcmp(e[k].node, e[j].node) == 0) {
				double share = e[k].gpu[0] ? 1.0 : (double)all;

				c->onsets += e[k].ons;
				c->gpu_hours += e[k].act * share / 3600;
				if (e[k].gpu[0])
					gpus++;
				else
					host = 1;
				k++;
			}
			c->nodes++;
			c->gpus += host ? (all > gpus ? all : gpus) : gpus;
			j = k;
		}
		i = j;
	}
}

static int by_hours(const void *a, const void *b)
{
	const struct gd_fleet_cause *x = a, *y = b;
	bool nx = strcmp(x->rule, NO_CAUSE) == 0, ny = strcmp(y->rule, NO_CAUSE) == 0;

	if (nx != ny)
		return nx - ny;  /* the no-cause row last */
	if (x->gpu_hours != y->gpu_hours)
		return x->gpu_hours < y->gpu_hours ? 1 : -1;
	if (x->onsets != y->onsets)
		return x->onsets < y->onsets ? 1 : -1;
	return strcmp(x->rule, y->rule);
}

/* Repeat offenders from the onset entries of hardware rules. */
static void build_repeat(struct gd_fleet *f, const struct gd_vec *ents, const struct gd_fleet_opts *o)
{
	struct gd_vec agg = { 0 };  /* struct gd_fleet_repeat: nodes (gpu "") and GPUs */

	GD_VEC_EACH(*ents, const struct entry, e) {
		if (e->ons <= 0 || !gd_fleet_is_hardware(e->rule))
			continue;
		for (int level = 0; level < 2; level++) {
			const char *gpu = level ? e->gpu : "";
			struct gd_fleet_repeat *r = NULL;
			size_t len;

			if (level && !e->gpu[0])
				continue;
			GD_VEC_EACH(agg, struct gd_fleet_repeat, x)
				if (strcmp(x->node, e->node) == 0 && strcmp(x->gpu, gpu) == 0)
					r = x;
			if (!r) {
				r = gd_vec_push(&agg, sizeof *r);
				gd_strlcpy(r->node, e->node, sizeof r->node);
				gd_strlcpy(r->gpu, gpu, sizeof r->gpu);
			}
			r->onsets += e->ons;
			len = strlen(r->rules);
			if (!strstr(r->rules, e->rule) && len + strlen(e->rule) + 2 < sizeof r->rules)
				snprintf(r->rules + len, sizeof r->rules - len, "%s%s", len ? " " : "", e->rule);
		}
	}
	GD_VEC_EACH(agg, struct gd_fleet_repeat, x) {
		double most = 0;

		if (llround(x->onsets) < llround(o->repeat_min))
			continue;
		/* a node is listed for itself only when no single GPU explains it */
		GD_VEC_EACH(agg, const struct gd_fleet_repeat, y)
			if (!x->gpu[0] && y->gpu[0] && strcmp(y->node, x->node) == 0 && y->onsets > most)
				most = y->onsets;
		if (!x->gpu[0] && most >= x->onsets)
			continue;
		*(struct gd_fleet_repeat *)gd_vec_push(&f->repeat, sizeof *x) = *x;
	}
	gd_vec_release(&agg);
}

/* ---- outliers ------------------------------------------------------------ */

struct metric {
	const char *name;         /* what the table calls it (English: JSON, query names; printed as _(name)) */
	const char *series;
	const char *loaded;       /* the filter that makes a sample count: under load */
	const char *unit;
	double scale;             /* series unit -> shown unit */
	double floor;             /* deviation below this (in the series' unit) is never an outlier */
};

static const struct metric metrics[] = {
	{ N_("SM clock under load"), "gpudoctor_gpus_sm_clock_hertz", "gpudoctor_gpus_util_gpu_ratio", "MHz", 1e-6, 15e6 },
	{ N_("temperature under load"), "gpudoctor_gpus_temp_celsius", "gpudoctor_gpus_util_gpu_ratio", "C", 1, 3 },
	{ N_("power under load"), "gpudoctor_gpus_power_watts", "gpudoctor_gpus_util_gpu_ratio", "W", 1, 20 },
	{ N_("utilisation while a job holds it"), "gpudoctor_gpus_util_gpu_ratio", "gpudoctor_gpus_nvml_procs", "%", 100,
	  0.05 },
	{ N_("PCIe link width under load"), "gpudoctor_gpus_pcie_width", "gpudoctor_gpus_util_gpu_ratio", "lanes", 1, 0.5 },
};

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n) (sorted in place); NAN when n is 0. */
static double median_of(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof *v, by_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const char *gd_fleet_metric_name(size_t k)
{
	return k < GD_FLEET_NMETRICS ? metrics[k].name : "?";
}

void gd_fleet_judge(struct gd_fleet *f, size_t k, const struct gd_fleet_value *vals, size_t n,
		    const struct gd_fleet_opts *o)
{
	const struct metric *m = &metrics[k];
	double *v = gd_xreallocarray(NULL, n + 1, sizeof *v), *dev = gd_xreallocarray(NULL, n + 1, sizeof *dev);

	for (size_t i = 0; i < n; i++) {
		size_t cnt = 0, seen = 0;
		double md, mad;

		/* once per model: at its first GPU */
		for (size_t j = 0; j < i; j++)
			seen += strcmp(vals[j].model, vals[i].model) == 0;
		if (seen)
			continue;
		for (size_t j = i; j < n; j++)
			if (strcmp(vals[j].model, vals[i].model) == 0)
				v[cnt++] = vals[j].v;
		if (cnt < o->min_siblings)
			continue;
		md = median_of(v, cnt);
		for (size_t j = 0; j < cnt; j++)
			dev[j] = fabs(v[j] - md);
		mad = median_of(dev, cnt);
		for (size_t j = i; j < n; j++) {
			struct gd_fleet_outlier *x;

			if (strcmp(vals[j].model, vals[i].model) != 0 || !(fabs(vals[j].v - md) > o->mad_k * 1.4826 * mad + m->floor))
				continue;
			x = gd_vec_push(&f->outliers, sizeof *x);
			gd_strlcpy(x->node, vals[j].node, sizeof x->node);
			gd_strlcpy(x->gpu, vals[j].gpu, sizeof x->gpu);
			gd_strlcpy(x->uuid, vals[j].uuid, sizeof x->uuid);
			gd_strlcpy(x->model, vals[j].model, sizeof x->model);
			x->metric = m->name;
			x->unit = m->unit;
			x->value = vals[j].v * m->scale;
			x->median = md * m->scale;
			x->mad = mad * m->scale;
			x->siblings = cnt;
		}
	}
	free(v);
	free(dev);
}

/* One query per metric: X per busy GPU (one value each, labelled with its
 * model); the medians and MADs per model are taken here from those values,
 * a few thousand numbers, rather than by the server, which would evaluate
 * X (the costly subquery) again for each of them. */
static int outliers_of(struct q *q, struct gd_fleet *f, const struct metric *m, const char *step,
		       struct gd_err *err)
{
	char *x = gd_xmalloc(EXPR_MAX), s1[1200], s2[1200], name[96];
	struct gd_prom_result r = { 0 };
	struct gd_fleet_value *vals = NULL;
	size_t nv = 0;
	int rv;

	sel(q, s1, sizeof s1, m->series, NULL);
	sel(q, s2, sizeof s2, m->loaded, NULL);
	/* utilisation counts while a job holds the GPU; the others while busy */
	snprintf(x, EXPR_MAX, "avg_over_time((%s and on(job,instance,gpu) (%s %s))[%s:%s])", s1, s2,
		 strcmp(m->loaded, "gpudoctor_gpus_nvml_procs") == 0 ? "> 0" : ">= 0.5", q->r, step);
	snprintf(name, sizeof name, "outliers %s", m->name);
	if ((rv = query(q, name, x, &r, err)) < 0)
		goto out;
	vals = gd_xreallocarray(NULL, r.n + 1, sizeof *vals);
	for (size_t i = 0; i < r.n; i++) {
		struct gd_fleet_value *gv = &vals[nv];

		if (!isfinite(r.s[i].v))
			continue;
		node_of(&r.s[i], gv->node, sizeof gv->node);
		gd_strlcpy(gv->gpu, gd_prom_label(&r.s[i], "gpu"), sizeof gv->gpu);
		gd_strlcpy(gv->uuid, gd_prom_label(&r.s[i], "uuid"), sizeof gv->uuid);
		gd_strlcpy(gv->model, gd_prom_label(&r.s[i], "model"), sizeof gv->model);
		gv->v = r.s[i].v;
		nv++;
	}
	gd_fleet_judge(f, (size_t)(m - metrics), vals, nv, q->o);
	rv = 0;
out:
	gd_prom_result_release(&r);
	free(vals);
	free(x);
	return rv;
}

/* ---- the run --------------------------------------------------------------- */

static int blind_of(struct q *q, struct gd_fleet *f, struct gd_err *err)
{
	char up[1200], gup[1200], bi[1200], step[32], *e = gd_xmalloc(EXPR_MAX);
	struct gd_prom_result r[3] = { { 0 } };
	double st;
	int rv;

	step_for(q, (double)f->nodes, NODE_POINTS, step, sizeof step);
	st = strtod(step, NULL);
	sel(q, up, sizeof up, "up", NULL);
	sel(q, gup, sizeof gup, "gpudoctor_up", NULL);
	sel(q, bi, sizeof bi, "gpudoctor_build_info", NULL);
	snprintf(e, EXPR_MAX,
		 "(sum_over_time((%s == bool 0)[%s:%s]) * %g > 0) and on(job,instance) last_over_time(%s[%s])", up, q->r,
		 step, st, bi, q->r);
	if ((rv = query(q, "not scraped (up == 0)", e, &r[0], err)) < 0)
		goto out;
	snprintf(e, EXPR_MAX, "sum_over_time((%s == bool 0)[%s:%s]) * %g > 0", gup, q->r, step, st);
	if ((rv = query(q, "no fresh evidence (gpudoctor_up == 0)", e, &r[1], err)) < 0)
		goto out;
	snprintf(e, EXPR_MAX, "(%s == 0) and on(job,instance) last_over_time(%s[%s])", up, bi, q->r);
	if ((rv = query(q, "down now", e, &r[2], err)) < 0)
		goto out;
	for (int k = 0; k < 3; k++) {
		for (size_t i = 0; i < r[k].n; i++) {
			char node[128];
			struct gd_fleet_blind *b = NULL;

			node_of(&r[k].s[i], node, sizeof node);
			GD_VEC_EACH(f->blind, struct gd_fleet_blind, x)
				if (strcmp(x->node, node) == 0)
					b = x;
			if (!b) {
				b = gd_vec_push(&f->blind, sizeof *b);
				gd_strlcpy(b->node, node, sizeof b->node);
			}
			if (k == 0)
				b->down_s += r[k].s[i].v;
			else if (k == 1)
				b->stale_s += r[k].s[i].v;
			else
				b->down_now = true;
		}
	}
	rv = 0;
out:
	for (int k = 0; k < 3; k++)
		gd_prom_result_release(&r[k]);
	free(e);
	return rv;
}

static int by_blind(const void *a, const void *b)
{
	return strcmp(((const struct gd_fleet_blind *)a)->node, ((const struct gd_fleet_blind *)b)->node);
}

static int by_drain(const void *a, const void *b)
{
	const struct gd_fleet_drain *x = a, *y = b;
	int c = strcmp(x->node, y->node);

	return c ? c : strcmp(x->rule, y->rule) ? strcmp(x->rule, y->rule) : strcmp(x->subject, y->subject);
}

static int by_repeat(const void *a, const void *b)
{
	const struct gd_fleet_repeat *x = a, *y = b;

	if (x->onsets != y->onsets)
		return x->onsets < y->onsets ? 1 : -1;
	return strcmp(x->node, y->node) ? strcmp(x->node, y->node) : strcmp(x->gpu, y->gpu);
}

void gd_fleet_build(struct gd_fleet *f, struct gd_vec *ents, const struct gd_vec *ng, const struct gd_fleet_opts *o)
{
	build_causes(f, ents, ng);
	sort_vec(&f->causes, sizeof(struct gd_fleet_cause), by_hours);
	GD_VEC_EACH(f->causes, const struct gd_fleet_cause, c) {
		f->total_hours += c->gpu_hours;
		f->total_onsets += c->onsets;
	}
	if (!f->causes.n || strcmp(((struct gd_fleet_cause *)f->causes.items)[f->causes.n - 1].rule, NO_CAUSE) != 0) {
		struct gd_fleet_cause *c = gd_vec_push(&f->causes, sizeof *c);

		gd_strlcpy(c->rule, NO_CAUSE, sizeof c->rule);
		c->category = N_("none");
	}
	build_repeat(f, ents, o);
	sort_vec(&f->repeat, sizeof(struct gd_fleet_repeat), by_repeat);
}

int gd_fleet_run(struct gd_prom *p, const struct gd_fleet_opts *o, struct gd_fleet *f, struct gd_err *err)
{
	struct q q = { p, o, "", "", "", "" };
	char *e = gd_xmalloc(EXPR_MAX), *d = gd_xmalloc(EXPR_MAX), s[1200], step[32];
	struct gd_prom_result r = { 0 };
	struct gd_vec ents = { 0 }, ng = { 0 };
	char nstep[32], gstep[32], fstep[32] = "", special_in[8300] = "", special_out[8300] = "";
	double n_now;
	bool full_all = false;
	int rv;

	memset(f, 0, sizeof *f);
	f->at = o->at;
	f->range_s = o->range_s;
	f->step_s = o->step_s;
	f->repeat_min = o->repeat_min;
	f->mad_k = o->mad_k;
	if ((rv = gd_fleet_matchers(o, q.match, sizeof q.match, err)) < 0)
		goto out;
	duration(q.r, sizeof q.r, o->range_s);
	duration(q.s, sizeof q.s, o->step_s);
	duration(q.lb, sizeof q.lb, fmin(3600, o->range_s));

	/* the nodes and their GPUs: sized by an instant count, then subqueries
	 * whose step keeps series x steps under NODE_POINTS */
	sel(&q, s, sizeof s, "gpudoctor_build_info", NULL);
	snprintf(e, EXPR_MAX, "count(%s)", s);
	if ((rv = query(&q, "nodes now", e, &r, err)) < 0)
		goto out;
	n_now = r.n ? r.s[0].v : 0;
	gd_prom_result_release(&r);
	step_for(&q, n_now * 8, NODE_POINTS, gstep, sizeof gstep);
	step_for(&q, n_now, NODE_POINTS, nstep, sizeof nstep);
	snprintf(e, EXPR_MAX, "count by (job, instance) (max_over_time(%s[%s:%s]) or %s)", s, q.r, nstep, s);
	if ((rv = query(&q, "nodes", e, &r, err)) < 0)
		goto out;
	f->nodes = r.n;
	gd_prom_result_release(&r);
	/* the nodes whose counters need the full form: gone before the end, or restarted */
	{
		char cyc[1200], rx[8192] = "";

		sel(&q, cyc, sizeof cyc, "gpudoctor_collection_cycles_total", NULL);
		snprintf(e, EXPR_MAX,
			 "(count by (job, instance) (max_over_time(%s[%s:%s])) unless on(job, instance) %s) "
			 "or count by (job, instance) (resets(%s[%s:%s]) > 0)",
			 s, q.r, nstep, s, cyc, q.r, nstep);
		if ((rv = query(&q, "nodes gone or restarted", e, &r, err)) < 0)
			goto out;
		for (size_t i = 0; i < r.n && strlen(rx) < 4096; i++) {
			size_t len = strlen(rx);

			if (len)
				rx[len++] = '|';
			regex_quote(gd_prom_label(&r.s[i], "instance"), rx + len, sizeof rx - len);
		}
		full_all = r.n > 0 && strlen(rx) >= 4096;  /* too many: the full form for all */
		/* about 30 counter series per node (finding_counters.c, docs/fleet.md) */
		step_for(&q, 30.0 * (double)(full_all ? f->nodes : r.n), NODE_POINTS, fstep, sizeof fstep);
		if (r.n && !full_all) {
			snprintf(special_in, sizeof special_in, "instance=~\"%s\"", rx);
			snprintf(special_out, sizeof special_out, "instance!~\"%s\"", rx);
		}
		gd_prom_result_release(&r);
	}
	sel(&q, s, sizeof s, "gpudoctor_gpus_lost", NULL);
	/* by GPU index: a lost GPU's series lose their uuid and model labels */
	snprintf(e, EXPR_MAX, "count by (job, instance) (count by (job, instance, gpu) (max_over_time(%s[%s:%s]) or %s))", s,
		 q.r, gstep, s);
	if ((rv = query(&q, "GPUs per node", e, &r, err)) < 0)
		goto out;
	for (size_t i = 0; i < r.n; i++) {
		struct ngpu *x = gd_vec_push(&ng, sizeof *x);

		node_of(&r.s[i], x->node, sizeof x->node);
		x->n = (size_t)r.s[i].v;
		f->gpus += x->n;
	}
	gd_prom_result_release(&r);

	/* the cause table and repeat offenders */
	static const struct {
		const char *name, *series;
		bool act, no_cause;
	} counters[] = {
		{ "causes: onsets", "gpudoctor_finding_onsets_total", false, false },
		{ "causes: active seconds", "gpudoctor_finding_active_seconds_total", true, false },
		{ "no cause found: episodes", "gpudoctor_gpu_stall_uncaused_episodes_total", false, true },
		{ "no cause found: seconds", "gpudoctor_gpu_stall_uncaused_seconds_total", true, true },
	};
	for (size_t k = 0; k < sizeof counters / sizeof counters[0]; k++) {
		for (int full = 0; full < 2; full++) {
			char name[96];

			if (full ? !(full_all || special_in[0]) : full_all)
				continue;
			if (full)
				delta_full(&q, d, EXPR_MAX, counters[k].series, special_in, fstep);
			else
				delta_fast(&q, d, EXPR_MAX, counters[k].series, special_out);
			snprintf(e, EXPR_MAX, "sum by (%sjob, instance, gpu) (%s) > 0", counters[k].no_cause ? "" : "rule, ", d);
			snprintf(name, sizeof name, "%s%s", counters[k].name, full ? " (nodes gone or restarted)" : "");
			if ((rv = query(&q, name, e, &r, err)) < 0)
				goto out;
			add_entries(&ents, &r, counters[k].act, counters[k].no_cause ? NO_CAUSE : NULL);
			gd_prom_result_release(&r);
		}
	}
	gd_fleet_build(f, &ents, &ng, o);

	/* outliers */
	{
		step_for(&q, (double)f->gpus, OUTLIER_POINTS, step, sizeof step);
		for (size_t k = 0; k < sizeof metrics / sizeof metrics[0]; k++)
			if ((rv = outliers_of(&q, f, &metrics[k], step, err)) < 0)
				goto out;
	}

	/* drain now */
	sel(&q, s, sizeof s, "gpudoctor_finding", "severity=\"critical\"");
	snprintf(e, EXPR_MAX, "max by (job, instance, rule, subject) (%s)", s);
	if ((rv = query(&q, "drain now", e, &r, err)) < 0)
		goto out;
	for (size_t i = 0; i < r.n; i++) {
		struct gd_fleet_drain *x = gd_vec_push(&f->drain, sizeof *x);

		node_of(&r.s[i], x->node, sizeof x->node);
		gd_strlcpy(x->rule, gd_prom_label(&r.s[i], "rule"), sizeof x->rule);
		gd_strlcpy(x->subject, gd_prom_label(&r.s[i], "subject"), sizeof x->subject);
		x->remedy = gd_fleet_remedy(x->rule, _("(a rule this gpudoctor does not know: see the node's /findings)"));
	}
	gd_prom_result_release(&r);
	sort_vec(&f->drain, sizeof(struct gd_fleet_drain), by_drain);

	if ((rv = blind_of(&q, f, err)) < 0)
		goto out;
	sort_vec(&f->blind, sizeof(struct gd_fleet_blind), by_blind);
	rv = 0;
out:
	gd_vec_release(&ents);
	gd_vec_release(&ng);
	free(e);
	free(d);
	return rv;
}

void gd_fleet_release(struct gd_fleet *f)
{
	gd_vec_release(&f->causes);
	gd_vec_release(&f->outliers);
	gd_vec_release(&f->drain);
	gd_vec_release(&f->repeat);
	gd_vec_release(&f->blind);
}
