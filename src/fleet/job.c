/*
 * job.c - the queries of `gpudoctor fleet --prometheus URL --job ID`
 * (job.h).  One pass of six queries, whatever the job's size; INFO is the
 * job's ranks, R the range, S the step, M the --match matchers:
 *
 *   INFO   gpudoctor_job_rank_info{M,exported_job="ID"}
 *          or gpudoctor_job_rank_info{M,job="ID"}
 *          (the exporter's job label is exported_job unless the scrape
 *          keeps it, honor_labels: true)
 *   ranks    range  INFO: who each rank is, and the steps it was reported at
 *   threads  range  (gpudoctor_job_rank_nccl_wait_ratio{M}
 *                    or gpudoctor_job_main_thread_cpu_ratio{M}
 *                    or gpudoctor_job_main_thread_state{M} == 1)
 *                   and on(instance, pid) INFO
 *   gpus     range  (gpudoctor_gpu_activity_sm_active_ratio{M}
 *                    or gpudoctor_gpus_util_gpu_ratio{M} or gpudoctor_gpus_lost{M})
 *                   and on(instance, gpu) INFO
 *   up       range  up{M} and on(instance)
 *                   group by (instance) (last_over_time(INFO[5m]))
 *   findings instant max by (instance, rule, severity, subject)
 *                   (max_over_time(gpudoctor_finding{M}[R]))
 *                   and on(instance) last_over_time(INFO[R])
 *   links    instant max by (instance, local, peer)
 *                   (avg_over_time(gpudoctor_job_link_rtt_seconds{M}[R])
 *                    and on(instance, pid) last_over_time(INFO[R]))
 *                   (a link's far node: the node with a link from that
 *                   address)
 * up is kept at the steps where the node had a rank of the job in the 5
 * minutes before (Prometheus' lookback): a rank gone while its node is
 * still scraped is seen for those 5 minutes, enough for job.rank_stuck
 * (bench/fleet/job.sh: [R] at every step read 100 times the samples).
 * and, only when no rank matched, one more: the job ids seen in the range.
 * Every answer is per rank or per node: its size is ranks x steps points,
 * and the series are matched to the ranks here by a sorted lookup.
 */
#include "fleet/job.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "model/snapshot.h"

#define EXPR_MAX 8192
#define MAX_STEPS 11000   /* Prometheus' points per series */

void gd_fleet_job_alloc(struct gd_fleet_job *j, size_t n, size_t nsteps)
{
	j->n = n;
	j->nsteps = nsteps;
	j->ranks = gd_xcalloc(n + 1, sizeof *j->ranks);
	j->pts = gd_xcalloc((n + 1) * (nsteps + 1), sizeof *j->pts);
	for (size_t i = 0; i < n; i++) {
		j->ranks[i].p = &j->pts[i * nsteps];
		j->ranks[i].rank = j->ranks[i].local_rank = j->ranks[i].node_rank = j->ranks[i].world_size = -1;
		for (size_t t = 0; t < nsteps; t++)
			j->ranks[i].p[t] = (struct gd_jv_point){ .wait = NAN, .sm = NAN, .cpu = NAN };
	}
}

void gd_fleet_job_release(struct gd_fleet_job *j)
{
	free(j->ranks);
	free(j->pts);
	gd_vec_release(&j->findings);
	gd_vec_release(&j->seen_jobs);
	gd_vec_release(&j->links);
	gd_jv_release(&j->verdict);
	memset(j, 0, sizeof *j);
}

static int by_id(const void *a, const void *b)
{
	return strcmp(a, b);
}

void gd_fleet_job_seen_sort(struct gd_fleet_job *j)
{
	if (j->seen_jobs.n > 1)
		qsort(j->seen_jobs.items, j->seen_jobs.n, 128, by_id);
}

static int by_node_pid(const void *a, const void *b)
{
	const struct gd_jv_rank *x = a, *y = b;
	int c = strcmp(x->node, y->node);

	return c ? c : (x->pid > y->pid) - (x->pid < y->pid);
}

void gd_fleet_job_judge(struct gd_fleet_job *j)
{
	struct gd_jv_input in;

	if (j->n > 1)
		qsort(j->ranks, j->n, sizeof *j->ranks, by_node_pid);
	j->nodes = 0;
	for (size_t i = 0; i < j->n; i++)
		j->nodes += i == 0 || strcmp(j->ranks[i].node, j->ranks[i - 1].node) != 0;
	memset(&in, 0, sizeof in);
	in.nsteps = j->nsteps;
	in.t0 = j->t0;
	in.step_s = j->step_s;
	in.ranks = j->ranks;
	in.n = j->n;
	in.findings = j->findings.items;
	in.nfindings = j->findings.n;
	in.links = j->links.items;
	in.nlinks = j->links.n;
	gd_jv_params_default(&in.par);
	gd_jv_judge(&in, &j->verdict);
}

/* s inside a PromQL double-quoted string */
static void quote(const char *s, char *out, size_t size)
{
	size_t n = 0;

	for (; *s && n + 3 < size; s++) {
		if (*s == '"' || *s == '\\')
			out[n++] = '\\';
		out[n++] = *s == '\n' ? ' ' : *s;
	}
	out[n] = '\0';
}

static long label_long(const struct gd_prom_sample *s, const char *name)
{
	const char *v = gd_prom_label(s, name);
	char *end;
	long x;

	if (!v[0])
		return -1;
	x = strtol(v, &end, 10);
	return *end || x < 0 ? -1 : x;
}

/* The job id of a rank_info series: exported_job when the scrape renamed it. */
static const char *job_of(const struct gd_prom_sample *s)
{
	const char *e = gd_prom_label(s, "exported_job");

	return e[0] ? e : gd_prom_label(s, "job");
}

/* The first rank of node (ranks sorted by node, pid), or n. */
static size_t node_first(const struct gd_fleet_job *j, const char *node)
{
	size_t lo = 0, hi = j->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(j->ranks[mid].node, node) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < j->n && strcmp(j->ranks[lo].node, node) == 0 ? lo : j->n;
}

static struct gd_jv_rank *rank_of(struct gd_fleet_job *j, const char *node, uint64_t pid)
{
	struct gd_jv_rank key;

	gd_strlcpy(key.node, node, sizeof key.node);
	key.pid = pid;
	return j->n ? bsearch(&key, j->ranks, j->n, sizeof *j->ranks, by_node_pid) : NULL;
}

static uint64_t pid_of(const struct gd_prom_sample *s)
{
	return strtoull(gd_prom_label(s, "pid"), NULL, 10);
}

/* The step of time t, or SIZE_MAX outside the range. */
static size_t step_of(const struct gd_fleet_job *j, double t)
{
	double k = round((t - j->t0) / j->step_s);

	return k >= 0 && k < (double)j->nsteps ? (size_t)k : (size_t)-1;
}

enum what { W_WAIT, W_CPU, W_STATE, W_SM, W_UTIL, W_LOST, W_UP };

static void put(struct gd_jv_point *p, enum what w, double v, const char *state)
{
	switch (w) {
	case W_WAIT:
		p->wait = v;
		break;
	case W_CPU:
		p->cpu = v;
		break;
	case W_STATE:
		p->state = state[0];
		break;
	case W_SM:
		p->sm = v;
		break;
	case W_UTIL:
		if (!isfinite(p->sm))
			p->sm = v;
		break;
	case W_LOST:
		p->gpu_lost = v > 0;
		break;
	case W_UP:
		p->node_up = v > 0;
		break;
	}
}

/* Puts the points of series s into rank r (one rank) or into every rank of
 * node (gpu "": all; else those on that GPU). */
static void spread(struct gd_fleet_job *j, const struct gd_prom_sample *s, enum what w, struct gd_jv_rank *r,
		   const char *node, const char *gpu)
{
	const char *state = gd_prom_label(s, "state");
	size_t first = r ? 0 : node_first(j, node);
	double t, v;

	for (size_t k = 0; gd_prom_point(s, k, &t, &v); k++) {
		size_t st = step_of(j, t);

		if (st == (size_t)-1)
			continue;
		if (r) {
			put(&r->p[st], w, v, state);
			continue;
		}
		for (size_t i = first; i < j->n && strcmp(j->ranks[i].node, node) == 0; i++)
			if (!gpu || strcmp(j->ranks[i].gpu, gpu) == 0)
				put(&j->ranks[i].p[st], w, v, state);
	}
}

static int ranks_from(struct gd_fleet_job *j, const struct gd_prom_result *r)
{
	size_t n = 0;

	/* one rank per (instance, pid); a series whose labels changed adds its steps */
	gd_fleet_job_alloc(j, r->n, j->nsteps);
	for (size_t i = 0; i < r->n; i++) {
		const struct gd_prom_sample *s = &r->s[i];
		struct gd_jv_rank *x = NULL;
		double t, v;

		for (size_t k = 0; k < n && !x; k++)
			if (j->ranks[k].pid == pid_of(s) && strcmp(j->ranks[k].node, gd_prom_label(s, "instance")) == 0)
				x = &j->ranks[k];
		if (!x) {
			x = &j->ranks[n++];
			gd_strlcpy(x->node, gd_prom_label(s, "instance"), sizeof x->node);
			x->pid = pid_of(s);
		}
		x->rank = label_long(s, "rank");
		x->local_rank = label_long(s, "local_rank");
		x->node_rank = label_long(s, "node_rank");
		x->world_size = label_long(s, "world_size");
		gd_strlcpy(x->gpu, gd_prom_label(s, "gpu"), sizeof x->gpu);
		if (!j->job[0])
			gd_strlcpy(j->job, job_of(s), sizeof j->job);
		for (size_t k = 0; gd_prom_point(s, k, &t, &v); k++) {
			size_t st = step_of(j, t);

			if (st != (size_t)-1)
				x->p[st].seen = true;
		}
	}
	j->n = n;
	if (n > 1)
		qsort(j->ranks, n, sizeof *j->ranks, by_node_pid);
	return 0;
}

int gd_fleet_job_run(struct gd_prom *p, const struct gd_fleet_opts *o, const char *job, struct gd_fleet_job *j,
		     struct gd_err *err)
{
	char m[1100], jq[400], info[3200], info_r[3300], r[32], *e = gd_xmalloc(EXPR_MAX);
	struct gd_prom_result res = { 0 };
	double step = o->step_s > 0 ? o->step_s : fmax(15, ceil(o->range_s / 60));
	int rv;

	memset(j, 0, sizeof *j);
	if ((rv = gd_fleet_matchers(o, m, sizeof m, err)) < 0)
		goto out;
	if (m[0])
		strcat(m, ",");
	quote(job, jq, sizeof jq);
	snprintf(r, sizeof r, "%llds", (long long)llround(o->range_s));
	snprintf(info, sizeof info, "(gpudoctor_job_rank_info{%sexported_job=\"%s\"} or gpudoctor_job_rank_info{%sjob=\"%s\"})",
		 m, jq, m, jq);
	snprintf(info_r, sizeof info_r,
		 "(last_over_time(gpudoctor_job_rank_info{%sexported_job=\"%s\"}[%s]) or "
		 "last_over_time(gpudoctor_job_rank_info{%sjob=\"%s\"}[%s]))",
		 m, jq, r, m, jq, r);
	j->step_s = step;
	j->range_s = o->range_s;
	j->at = p->at;
	j->nsteps = (size_t)floor(o->range_s / step) + 1;
	if (j->nsteps > MAX_STEPS) {
		rv = gd_err_set(err, -EINVAL, _("--range / --step gives %zu steps, more than Prometheus' %d points per series"),
				j->nsteps, MAX_STEPS);
		goto out;
	}
	j->t0 = p->at - (double)(j->nsteps - 1) * step;

	if ((rv = gd_prom_query_range(p, "ranks", info, j->t0, step, &res, err)) < 0)
		goto out;
	ranks_from(j, &res);
	gd_prom_result_release(&res);
	if (!j->n) {
		/* which jobs there were, to say so */
		snprintf(e, EXPR_MAX, "count by (exported_job, job) (last_over_time(gpudoctor_job_rank_info%s%.*s%s[%s]))",
			 m[0] ? "{" : "", m[0] ? (int)strlen(m) - 1 : 0, m, m[0] ? "}" : "", r);
		if ((rv = gd_prom_query(p, "job ids seen", e, &res, err)) < 0)
			goto out;
		for (size_t i = 0; i < res.n; i++) {
			char *id = gd_vec_push(&j->seen_jobs, 128);

			gd_strlcpy(id, job_of(&res.s[i]), 128);
		}
		gd_prom_result_release(&res);
		gd_fleet_job_seen_sort(j);
		gd_strlcpy(j->job, job, sizeof j->job);
		rv = -ENOENT;
		goto out;
	}

	snprintf(e, EXPR_MAX,
		 "(gpudoctor_job_rank_nccl_wait_ratio{%.*s} or gpudoctor_job_main_thread_cpu_ratio{%.*s} or "
		 "gpudoctor_job_main_thread_state{%.*s} == 1) and on(instance, pid) %s",
		 (int)strlen(m) - (m[0] != 0), m, (int)strlen(m) - (m[0] != 0), m, (int)strlen(m) - (m[0] != 0), m, info);
	if ((rv = gd_prom_query_range(p, "threads", e, j->t0, step, &res, err)) < 0)
		goto out;
	for (size_t i = 0; i < res.n; i++) {
		const char *name = gd_prom_label(&res.s[i], "__name__");
		struct gd_jv_rank *x = rank_of(j, gd_prom_label(&res.s[i], "instance"), pid_of(&res.s[i]));
		enum what w = strstr(name, "nccl_wait") ? W_WAIT : strstr(name, "cpu_ratio") ? W_CPU : W_STATE;

		if (x)
			spread(j, &res.s[i], w, x, NULL, NULL);
	}
	gd_prom_result_release(&res);

	snprintf(e, EXPR_MAX,
		 "(gpudoctor_gpu_activity_sm_active_ratio{%.*s} or gpudoctor_gpus_util_gpu_ratio{%.*s} or "
		 "gpudoctor_gpus_lost{%.*s}) and on(instance, gpu) %s",
		 (int)strlen(m) - (m[0] != 0), m, (int)strlen(m) - (m[0] != 0), m, (int)strlen(m) - (m[0] != 0), m, info);
	if ((rv = gd_prom_query_range(p, "gpus", e, j->t0, step, &res, err)) < 0)
		goto out;
	/* SM activity first, so that utilisation only fills the steps without it */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < res.n; i++) {
			const char *name = gd_prom_label(&res.s[i], "__name__");
			enum what w = strstr(name, "sm_active") ? W_SM : strstr(name, "util_gpu") ? W_UTIL : W_LOST;

			if ((w == W_UTIL) == (pass == 0))
				continue;
			spread(j, &res.s[i], w, NULL, gd_prom_label(&res.s[i], "instance"), gd_prom_label(&res.s[i], "gpu"));
		}
	gd_prom_result_release(&res);

	snprintf(e, EXPR_MAX,
		 "up{%.*s} and on(instance) group by (instance) (last_over_time(gpudoctor_job_rank_info{%sexported_job=\"%s\"}[5m]) "
		 "or last_over_time(gpudoctor_job_rank_info{%sjob=\"%s\"}[5m]))",
		 (int)strlen(m) - (m[0] != 0), m, m, jq, m, jq);
	if ((rv = gd_prom_query_range(p, "up", e, j->t0, step, &res, err)) < 0)
		goto out;
	for (size_t i = 0; i < res.n; i++)
		spread(j, &res.s[i], W_UP, NULL, gd_prom_label(&res.s[i], "instance"), NULL);
	gd_prom_result_release(&res);

	snprintf(e, EXPR_MAX,
		 "max by (instance, rule, severity, subject) (max_over_time(gpudoctor_finding{%.*s}[%s])) and on(instance) %s",
		 (int)strlen(m) - (m[0] != 0), m, r, info_r);
	if ((rv = gd_prom_query(p, "findings", e, &res, err)) < 0)
		goto out;
	for (size_t i = 0; i < res.n; i++) {
		struct gd_jv_finding *f = gd_vec_push(&j->findings, sizeof *f);

		gd_strlcpy(f->node, gd_prom_label(&res.s[i], "instance"), sizeof f->node);
		gd_strlcpy(f->rule, gd_prom_label(&res.s[i], "rule"), sizeof f->rule);
		gd_strlcpy(f->subject, gd_prom_label(&res.s[i], "subject"), sizeof f->subject);
		f->critical = strcmp(gd_prom_label(&res.s[i], "severity"), "critical") == 0;
	}
	gd_prom_result_release(&res);

	snprintf(e, EXPR_MAX,
		 "max by (instance, local, peer) (avg_over_time(gpudoctor_job_link_rtt_seconds{%.*s}[%s]) and on(instance, pid) %s)",
		 (int)strlen(m) - (m[0] != 0), m, r, info_r);
	if ((rv = gd_prom_query(p, "links", e, &res, err)) < 0)
		goto out;
	for (size_t i = 0; i < res.n; i++) {
		struct gd_jv_link *l = gd_vec_push(&j->links, sizeof *l);

		memset(l, 0, sizeof *l);
		gd_strlcpy(l->node, gd_prom_label(&res.s[i], "instance"), sizeof l->node);
		l->rtt_s = res.s[i].v;
		for (size_t k = 0; k < res.n && !l->peer_node[0]; k++)
			if (strcmp(gd_prom_label(&res.s[k], "local"), gd_prom_label(&res.s[i], "peer")) == 0)
				gd_strlcpy(l->peer_node, gd_prom_label(&res.s[k], "instance"), sizeof l->peer_node);
	}
	gd_prom_result_release(&res);
	gd_fleet_job_judge(j);
	rv = 0;
out:
	gd_prom_result_release(&res);
	free(e);
	return rv;
}
