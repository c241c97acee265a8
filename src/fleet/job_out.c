/*
 * job_out.c - the verdict of `gpudoctor fleet --job ID` as text, JSON
 * (--json) and HTML (--html FILE): the verdict line first, then one row
 * per rank (node, rank, NCCL wait share, SM activity, main thread state
 * and CPU, what it was found doing, its node's own findings).  Outputs do
 * not compute: the numbers come from struct gd_fleet_job and its verdict.
 */
#include "fleet/job.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/i18n.h"
#include "core/printable.h"
#include "output/output.h"
#include "output/timeline.h"

static void iso_time(double t, char *buf, size_t size)
{
	time_t s = (time_t)t;
	struct tm tm;

	gmtime_r(&s, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The reasons a rank is stuck (job_verdict.h), marked for the catalogue. */
static const char *const stuck_reasons[] __attribute__((unused)) = {
	N_("process gone"), N_("stopped (T)"), N_("in D state"), N_("GPU lost"), N_("no progress"),
};

static const char *kind_name(enum gd_jv_kind k)
{
	static const char *const names[] = { "no_data", "healthy", "slow_rank", "rank_stuck", "no_rank_stands_out",
					     "conflict" };

	return names[k];
}

static const char *pct(double v, char *buf, size_t size)
{
	if (isfinite(v))
		snprintf(buf, size, "%.0f%%", 100 * v);
	else
		snprintf(buf, size, "-");
	return buf;
}

/* What row i was found doing (in the language in use). */
static const char *status_of(const struct gd_fleet_job *j, size_t i, char *buf, size_t size)
{
	const struct gd_jv_row *r = &j->verdict.rows[i];

	if (r->conflict)
		snprintf(buf, size, "%s", _("rank number conflict"));
	else if (r->culprit && r->stuck_why)
		snprintf(buf, size, _("STUCK: %s"), _(r->stuck_why));
	else if (r->culprit && r->link_rtt_s > 0)
		snprintf(buf, size, _("SLOW LINK: %.0f ms round trip"), 1e3 * r->link_rtt_s);
	else if (r->culprit && r->period_s > 0)
		snprintf(buf, size, _("SLOW: %zu times %.0f s, every %.0f s"), r->episodes, r->episode_s, r->period_s);
	else if (r->culprit)
		snprintf(buf, size, _("SLOW: %zu of %zu steps"), r->slow_steps, r->judged);
	else if (r->gone)
		snprintf(buf, size, "%s", _("process gone"));
	else if (isfinite(r->wait) && r->wait >= 0.5)
		snprintf(buf, size, "%s", _("waits"));
	else
		snprintf(buf, size, "%s", isfinite(r->wait) ? _("computes") : _("no samples"));
	return buf;
}

/* The findings of node, "rule subject, ..." (English ids), or "-". */
static void node_findings(const struct gd_fleet_job *j, const char *node, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	GD_VEC_EACH(j->findings, const struct gd_jv_finding, f) {
		if (strcmp(f->node, node) != 0 || strcmp(f->rule, "job.waiting_for_peers") == 0)
			continue;
		len = strlen(buf);
		if (len + strlen(f->rule) + strlen(f->subject) + 8 >= size)
			break;
		snprintf(buf + len, size - len, "%s%s %s", len ? ", " : "", f->rule, f->subject);
	}
	if (!buf[0])
		snprintf(buf, size, "-");
}

#define CAUSES_SHOWN 6  /* in the verdict line; --json has them all */

static void causes_text(const struct gd_jv *v, char *buf, size_t size)
{
	size_t len, k = 0;

	buf[0] = '\0';
	GD_VEC_EACH(v->causes, const struct gd_jv_finding, f) {
		len = strlen(buf);
		if (k == CAUSES_SHOWN || len + strlen(f->rule) + strlen(f->subject) + strlen(f->node) + 40 >= size) {
			snprintf(buf + len, size - len, _(" and %zu more"), v->causes.n - k);
			break;
		}
		snprintf(buf + len, size - len, "%s%s %s (%s)", len ? ", " : "", f->rule, f->subject, f->node);
		k++;
	}
}

/* "rank 5 on node-c" or "ranks 5, 6 on node-c"; several nodes: "rank 5 on a, rank 9 on b". */
static void culprits_text(const struct gd_fleet_job *j, char *buf, size_t size)
{
	const struct gd_jv *v = &j->verdict;
	size_t len;

	buf[0] = '\0';
	if (v->whole_node) {
		const struct gd_jv_rank *r0 = &j->ranks[*GD_VEC_AT(v->culprits, size_t, 0)];

		snprintf(buf, size, _("the ranks of %s ("), r0->node);
		GD_VEC_EACH(v->culprits, const size_t, c) {
			len = strlen(buf);
			snprintf(buf + len, size - len, "%s%ld", c == v->culprits.items ? "" : ", ", j->ranks[*c].rank);
		}
		len = strlen(buf);
		snprintf(buf + len, size - len, ")");
		return;
	}
	GD_VEC_EACH(v->culprits, const size_t, c) {
		len = strlen(buf);
		if (len + 160 >= size)
			break;
		snprintf(buf + len, size - len, _("%srank %ld on %s"), len ? ", " : "", j->ranks[*c].rank, j->ranks[*c].node);
	}
}

/* The verdict as one line (no newline), in the language in use. */
static void verdict_line(const struct gd_fleet_job *j, char *buf, size_t size)
{
	const struct gd_jv *v = &j->verdict;
	char who[1024], causes[1024], w[16];
	size_t len;

	causes_text(v, causes, sizeof causes);
	switch (v->kind) {
	case GD_JV_NO_DATA:
		snprintf(buf, size,
			 _("cannot judge: no NCCL wait share was reported for the job's ranks (is `serve` sampling its "
			   "threads? see job_samples in its snapshot)"));
		return;
	case GD_JV_HEALTHY:
		snprintf(buf, size, _("no rank holds the job back: %zu ranks on %zu nodes"), j->n, j->nodes);
		return;
	case GD_JV_CONFLICT: {
		const struct gd_jv_conflict *c = GD_VEC_AT(v->conflicts, struct gd_jv_conflict, 0);

		snprintf(buf, size,
			 _("no verdict: rank %ld is claimed by %s pid %llu and by %s pid %llu (%zu such ranks): a restarted "
			   "job, or two jobs sharing one id; not merged"),
			 c->rank, j->ranks[c->a].node, (unsigned long long)j->ranks[c->a].pid, j->ranks[c->b].node,
			 (unsigned long long)j->ranks[c->b].pid, v->conflicts.n);
		return;
	}
	case GD_JV_COLLECTIVE:
		snprintf(buf, size,
			 _("no rank stands out: every rank waits in NCCL (2/3 of them in %.0f%% of the steps): the network or "
			   "the collective itself"),
			 100 * v->waiting_share);
		len = strlen(buf);
		if (causes[0])
			snprintf(buf + len, size - len, _("; the nodes' network findings: %s"), causes);
		else
			snprintf(buf + len, size - len, "%s",
				 _("; no node has a net.* finding: check the fabric (net.rdma_unused, net.rdma_down, switch "
				   "ports) and the collective's size"));
		return;
	case GD_JV_SLOW:
	case GD_JV_STUCK:
		break;
	}
	culprits_text(j, who, sizeof who);
	if (v->kind == GD_JV_STUCK) {
		const struct gd_jv_row *r = &v->rows[*GD_VEC_AT(v->culprits, size_t, 0)];

		snprintf(buf, size, _("job.rank_stuck critical: %s is stuck (%s) while the other ranks wait in NCCL (%s, median)"),
			 who, _(r->stuck_why), pct(v->others_wait, w, sizeof w));
	} else {
		const struct gd_jv_row *r = &v->rows[*GD_VEC_AT(v->culprits, size_t, 0)];
		char x[32];

		if (v->slow_link)
			snprintf(buf, size,
				 _("job.slow_rank warning: %s holds the job back: its node's links are slow (%zu of the job's "
				   "TCP links, all to or from it, up to %.0f ms round trip against %.1f ms for the median link)"),
				 who, v->slow_links, 1e3 * r->link_rtt_s, 1e3 * v->median_link_rtt_s);
		else
			snprintf(buf, size,
				 _("job.slow_rank warning: %s holds the job back: it waits %s in NCCL while the other ranks wait "
				   "%s (median)"),
				 who, pct(r->wait, x, sizeof x), pct(v->others_wait, w, sizeof w));
		len = strlen(buf);
		if (r->period_s > 0)
			snprintf(buf + len, size - len, _("; slow %zu times for %.0f s, every %.0f s"), r->episodes, r->episode_s,
				 r->period_s);
		else if (r->episodes >= 2)
			snprintf(buf + len, size - len, _("; slow %zu times for %.0f s"), r->episodes, r->episode_s);
	}
	len = strlen(buf);
	if (causes[0])
		snprintf(buf + len, size - len, _("; its node's own findings: %s"), causes);
	else if (v->kind == GD_JV_STUCK)
		snprintf(buf + len, size - len, "%s",
			 _("; its node has no finding of its own: look at the rank's process itself (py-spy dump, its log)"));
	else
		snprintf(buf + len, size - len, "%s",
			 _("; its node has no finding of its own: look at the rank's own work (its data, its step)"));
}

static void unseen_line(const struct gd_fleet_job *j, char *buf, size_t size)
{
	const struct gd_jv *v = &j->verdict;
	size_t len;

	buf[0] = '\0';
	if (!v->missing)
		return;
	snprintf(buf, size, _("%zu of %ld ranks never reported (ranks %s"), v->missing, v->world_size, v->missing_ranks);
	len = strlen(buf);
	if (v->missing_nodes[0])
		snprintf(buf + len, size - len, _("; node ranks %s"), v->missing_nodes);
	len = strlen(buf);
	snprintf(buf + len, size - len, "%s", _("): the verdict depends on them"));
}

static size_t down_steps(const struct gd_fleet_job *j, size_t i)
{
	size_t n = 0;

	for (size_t t = 0; t < j->nsteps; t++)
		n += !j->ranks[i].p[t].node_up;
	return n;
}

static void state_text(const struct gd_jv_row *r, char *buf, size_t size)
{
	if (r->state)
		snprintf(buf, size, "%c", r->state);
	else
		snprintf(buf, size, "-");
}

static void head_line(FILE *out, const struct gd_fleet_job *j, const char *src)
{
	char at[32];

	iso_time(j->at, at, sizeof at);
	fprintf(out, _("gpudoctor fleet --job %s: %s, %.0f s back from %s every %.0f s: %zu ranks on %zu nodes"), j->job, src,
		j->range_s, at, j->step_s, j->n, j->nodes);
}

static void job_text(FILE *out, const struct gd_fleet_job *j, const struct gd_prom *p, const char *src)
{
	char line[4096], a[16], b[16], c[16], st[8], status[96], fnd[512];

	if (!j->n) {
		fprintf(out, _("gpudoctor fleet: no rank of job %s in the range; job ids seen:"), j->job);
		if (!j->seen_jobs.n)
			fprintf(out, " %s", _("none"));
		for (size_t i = 0; i < j->seen_jobs.n; i++)
			fprintf(out, " %s", (const char *)j->seen_jobs.items + 128 * i);
		fputc('\n', out);
		return;
	}
	verdict_line(j, line, sizeof line);
	fprintf(out, "%s\n", line);
	unseen_line(j, line, sizeof line);
	if (line[0])
		fprintf(out, "%s\n", line);
	head_line(out, j, src);
	fputs("\n\n", out);
	{
		/* the headings in the language in use, to the English columns' widths */
		const char *h[11] = { _("node"), _("rank"), _("local"), "pid", "gpu", _("wait"), "SM", "CPU", _("st"),
				      _("status"), _("own findings") };
		static const size_t w[11] = { 22, 5, 5, 7, 4, 5, 5, 5, 4, 28, 0 };

		for (size_t k = 0; k < 11; k++) {
			fputs(k == 0 ? "" : k == 9 ? "  " : " ", out);
			if (k == 0 || k >= 9)
				gd_fleet_pad_left(out, h[k], k == 10 ? 0 : w[k]);
			else
				gd_fleet_pad_right(out, h[k], w[k]);
		}
		fputc('\n', out);
	}
	for (size_t i = 0; i < j->n; i++) {
		const struct gd_jv_rank *r = &j->ranks[i];
		const struct gd_jv_row *row = &j->verdict.rows[i];

		state_text(row, st, sizeof st);
		node_findings(j, r->node, fnd, sizeof fnd);
		status_of(j, i, status, sizeof status);
		fprintf(out, "%-22s %5ld %5ld %7llu %4s %5s %5s %5s %4s  ", r->node, r->rank, r->local_rank,
			(unsigned long long)r->pid, r->gpu[0] ? r->gpu : "-", pct(row->wait, a, sizeof a),
			pct(row->sm, b, sizeof b), pct(row->cpu, c, sizeof c), st);
		gd_fleet_pad_left(out, status, 28);
		fprintf(out, " %s\n", fnd);
	}
	for (size_t i = 0; i < j->n; i++) {
		size_t d = down_steps(j, i);

		if ((i == 0 || strcmp(j->ranks[i].node, j->ranks[i - 1].node) != 0) && d)
			fprintf(out, _("could not see %s for %.0f s (not scraped or not recorded)\n"), j->ranks[i].node,
				(double)d * j->step_s);
	}
	GD_VEC_EACH(p->warnings, const struct gd_prom_warning, w)
		fprintf(out, _("  warning (query %s): %s\n"), w->query, w->text);
	if (!p->queries)
		return;  /* recordings */
	fprintf(out, _("\n%zu queries, %.3f s, %zu bytes"), p->queries, p->seconds, p->bytes);
	if (p->samples > 0)
		fprintf(out, _(", %.0f samples read"), p->samples);
	fputc('\n', out);
}

/* The text is made in memory and shown through gd_printable_fputs: node
 * names, job ids and Prometheus warnings come from the servers and the
 * ranks' environments, and none of their bytes may reach a terminal as an
 * escape sequence (issue 31). */
void gd_fleet_job_print_text(FILE *out, const struct gd_fleet_job *j, const struct gd_prom *p, const char *src)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem) {
		job_text(out, j, p, src);
		return;
	}
	job_text(mem, j, p, src);
	if (fclose(mem) == 0 && buf)
		gd_printable_fputs(buf, out);
	free(buf);
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *gd_fleet_job_json(const struct gd_fleet_job *j, const struct gd_prom *p, const char *src)
{
	const struct gd_jv *v = &j->verdict;
	json_t *doc = json_object(), *a, *vd;
	char at[32], line[4096], status[96], st[8];

	iso_time(j->at, at, sizeof at);
	json_object_set_new(doc, "job", json_string(j->job));
	json_object_set_new(doc, "source", json_string(src));
	json_object_set_new(doc, "at", json_string(at));
	json_object_set_new(doc, "range_s", json_real(j->range_s));
	json_object_set_new(doc, "step_s", json_real(j->step_s));
	json_object_set_new(doc, "steps", json_integer((json_int_t)j->nsteps));
	json_object_set_new(doc, "nodes", json_integer((json_int_t)j->nodes));
	json_object_set_new(doc, "ranks_seen", json_integer((json_int_t)j->n));
	if (!j->n) {
		a = json_array();
		for (size_t i = 0; i < j->seen_jobs.n; i++)
			json_array_append_new(a, json_string((const char *)j->seen_jobs.items + 128 * i));
		json_object_set_new(doc, "job_ids_seen", a);
	}
	vd = json_object();
	json_object_set_new(vd, "kind", json_string(kind_name(v->kind)));
	json_object_set_new(vd, "rule", v->rule ? json_string(v->rule) : json_null());
	json_object_set_new(vd, "severity", json_string(v->critical ? "critical" : v->rule ? "warning" : "none"));
	if (j->n) {
		verdict_line(j, line, sizeof line);
		json_object_set_new(vd, "text", json_string(line));
	}
	a = json_array();
	GD_VEC_EACH(v->culprits, const size_t, c) {
		const struct gd_jv_rank *r = &j->ranks[*c];
		const struct gd_jv_row *row = &v->rows[*c];
		char subject[200];
		json_t *x;

		snprintf(subject, sizeof subject, "%s/rank %ld", r->node, r->rank);
		x = json_pack("{s:s,s:s,s:I,s:I,s:I,s:I}", "subject", subject, "node", r->node, "rank", (json_int_t)r->rank,
			      "pid", (json_int_t)r->pid, "slow_steps", (json_int_t)row->slow_steps, "episodes",
			      (json_int_t)row->episodes);
		json_object_set_new(x, "stuck", row->stuck_why ? json_string(row->stuck_why) : json_null());
		json_object_set_new(x, "wait", num(row->wait));
		json_object_set_new(x, "period_s", row->period_s > 0 ? json_real(row->period_s) : json_null());
		json_object_set_new(x, "episode_s", row->episode_s > 0 ? json_real(row->episode_s) : json_null());
		json_object_set_new(x, "link_rtt_s", row->link_rtt_s > 0 ? json_real(row->link_rtt_s) : json_null());
		json_object_set_new(x, "weak_steps", json_integer((json_int_t)row->weak_steps));
		json_array_append_new(a, x);
	}
	json_object_set_new(vd, "culprits", a);
	json_object_set_new(vd, "whole_node", json_boolean(v->whole_node));
	json_object_set_new(vd, "others_wait", num(v->others_wait));
	json_object_set_new(vd, "waiting_share", num(v->waiting_share));
	json_object_set_new(vd, "slow_link", json_boolean(v->slow_link));
	json_object_set_new(vd, "slow_links", json_integer((json_int_t)v->slow_links));
	json_object_set_new(vd, "median_link_rtt_s", num(v->median_link_rtt_s));
	a = json_array();
	GD_VEC_EACH(v->causes, const struct gd_jv_finding, f)
		json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:s}", "node", f->node, "rule", f->rule, "subject", f->subject,
						   "severity", f->critical ? "critical" : "warning"));
	json_object_set_new(vd, "causes", a);
	json_object_set_new(vd, "world_size", v->world_size >= 0 ? json_integer(v->world_size) : json_null());
	json_object_set_new(vd, "missing", json_integer((json_int_t)v->missing));
	json_object_set_new(vd, "missing_ranks", json_string(v->missing_ranks));
	json_object_set_new(vd, "missing_node_ranks", json_string(v->missing_nodes));
	json_object_set_new(vd, "depends_on_unseen", json_boolean(v->missing > 0));
	a = json_array();
	GD_VEC_EACH(v->conflicts, const struct gd_jv_conflict, c)
		json_array_append_new(a, json_pack("{s:I,s:[{s:s,s:I},{s:s,s:I}]}", "rank", (json_int_t)c->rank, "claimed_by",
						   "node", j->ranks[c->a].node, "pid", (json_int_t)j->ranks[c->a].pid, "node",
						   j->ranks[c->b].node, "pid", (json_int_t)j->ranks[c->b].pid));
	json_object_set_new(vd, "conflicts", a);
	json_object_set_new(doc, "verdict", vd);
	a = json_array();
	for (size_t i = 0; i < j->n; i++) {
		const struct gd_jv_rank *r = &j->ranks[i];
		const struct gd_jv_row *row = &v->rows[i];
		json_t *x = json_pack("{s:s,s:I,s:s}", "node", r->node, "pid", (json_int_t)r->pid, "gpu", r->gpu), *fa;

		json_object_set_new(x, "rank", r->rank >= 0 ? json_integer(r->rank) : json_null());
		json_object_set_new(x, "local_rank", r->local_rank >= 0 ? json_integer(r->local_rank) : json_null());
		json_object_set_new(x, "node_rank", r->node_rank >= 0 ? json_integer(r->node_rank) : json_null());
		json_object_set_new(x, "wait", num(row->wait));
		json_object_set_new(x, "sm", num(row->sm));
		json_object_set_new(x, "cpu", num(row->cpu));
		state_text(row, st, sizeof st);
		json_object_set_new(x, "state", json_string(st));
		json_object_set_new(x, "status", json_string(status_of(j, i, status, sizeof status)));
		json_object_set_new(x, "judged_steps", json_integer((json_int_t)row->judged));
		json_object_set_new(x, "slow_steps", json_integer((json_int_t)row->slow_steps));
		json_object_set_new(x, "stuck_steps", json_integer((json_int_t)row->stuck_steps));
		json_object_set_new(x, "not_seen_s", json_real((double)down_steps(j, i) * j->step_s));
		fa = json_array();
		GD_VEC_EACH(j->findings, const struct gd_jv_finding, f)
			if (strcmp(f->node, r->node) == 0)
				json_array_append_new(fa, json_pack("{s:s,s:s}", "rule", f->rule, "subject", f->subject));
		json_object_set_new(x, "findings", fa);
		json_array_append_new(a, x);
	}
	json_object_set_new(doc, "ranks", a);
	gd_prom_cost_json(doc, p);
	return doc;
}

static void td(FILE *out, const char *s, const char *cls)
{
	fprintf(out, "<td%s>", cls);
	gd_html_escape(out, s);
	fputs("</td>", out);
}

void gd_fleet_job_print_html(FILE *out, const struct gd_fleet_job *j, const struct gd_prom *p, const char *src)
{
	char line[4096], a[16], status[96], st[8], fnd[512], n[32];

	fprintf(out, "<!DOCTYPE html>\n<html%s><head><meta charset=\"utf-8\"><title>gpudoctor fleet --job</title><style>"
		     "body{font:14px sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
		     "padding:2px 8px;text-align:left}td.n{text-align:right}tr.c{background:#fdd}p.v{font-weight:bold}"
		     "</style></head><body>\n<h1>gpudoctor fleet --job ",
		strcmp(gd_i18n_lang(), "zh_CN") == 0 ? " lang=\"zh-CN\"" : "");
	gd_html_escape(out, j->job);
	fputs("</h1>\n<p class=v>", out);
	verdict_line(j, line, sizeof line);
	gd_html_escape(out, j->n ? line : _("no rank of the job in the range"));
	fputs("</p>\n", out);
	unseen_line(j, line, sizeof line);
	if (line[0]) {
		fputs("<p>", out);
		gd_html_escape(out, line);
		fputs("</p>\n", out);
	}
	fputs("<p>", out);
	{
		char *h = NULL;
		size_t hn = 0;
		FILE *m = open_memstream(&h, &hn);

		if (m) {
			head_line(m, j, src);
			fclose(m);
			gd_html_escape(out, h);
		}
		free(h);
	}
	fprintf(out, "</p>\n<table><tr><th>%s</th><th>%s</th><th>%s</th><th>pid</th><th>GPU</th><th>%s</th><th>SM</th>"
		     "<th>CPU</th><th>%s</th><th>%s</th><th>%s</th></tr>\n",
		_("node"), _("rank"), _("local"), _("wait"), _("st"), _("status"), _("own findings"));
	for (size_t i = 0; i < j->n; i++) {
		const struct gd_jv_rank *r = &j->ranks[i];
		const struct gd_jv_row *row = &j->verdict.rows[i];

		fprintf(out, "<tr%s>", row->culprit || row->conflict ? " class=c" : "");
		td(out, r->node, "");
		snprintf(n, sizeof n, "%ld", r->rank);
		td(out, n, " class=n");
		snprintf(n, sizeof n, "%ld", r->local_rank);
		td(out, n, " class=n");
		snprintf(n, sizeof n, "%llu", (unsigned long long)r->pid);
		td(out, n, " class=n");
		td(out, r->gpu, "");
		td(out, pct(row->wait, a, sizeof a), " class=n");
		td(out, pct(row->sm, a, sizeof a), " class=n");
		td(out, pct(row->cpu, a, sizeof a), " class=n");
		state_text(row, st, sizeof st);
		td(out, st, "");
		td(out, status_of(j, i, status, sizeof status), "");
		node_findings(j, r->node, fnd, sizeof fnd);
		td(out, fnd, "");
		fputs("</tr>\n", out);
	}
	fprintf(out, "</table>\n<p>");
	fprintf(out, _("%zu queries, %.3f s, %zu bytes"), p->queries, p->seconds, p->bytes);
	fputs("</p>\n</body></html>\n", out);
}

int gd_fleet_job_exit(const struct gd_fleet_job *j)
{
	switch (j->verdict.kind) {
	case GD_JV_STUCK:
		return 2;
	case GD_JV_SLOW:
	case GD_JV_COLLECTIVE:
	case GD_JV_CONFLICT:
		return 1;
	case GD_JV_NO_DATA:
		return 3;
	case GD_JV_HEALTHY:
		break;
	}
	return j->verdict.missing ? 1 : 0;
}
