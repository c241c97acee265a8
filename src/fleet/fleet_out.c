/*
 * fleet_out.c - the fleet's tables as text, JSON (--json) and one
 * self-contained HTML page (--html FILE).  Outputs do not compute: every
 * number comes from struct gd_fleet (fleet.c).
 */
#include "fleet/fleet.h"

#include <math.h>
#include <stdio.h>
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

static void span(double s, char *buf, size_t size)
{
	if (s >= 86400 && fmod(s, 86400) == 0)
		snprintf(buf, size, "%gd", s / 86400);
	else if (s >= 3600 && fmod(s, 3600) == 0)
		snprintf(buf, size, "%gh", s / 3600);
	else if (s >= 60 && fmod(s, 60) == 0)
		snprintf(buf, size, "%gm", s / 60);
	else
		snprintf(buf, size, "%gs", s);
}

static double pct(double a, double b)
{
	return b > 0 ? 100 * a / b : 0;
}

/* deviation in robust MADs (1.4826 x MAD estimates sigma); inf when MAD is 0 */
static double in_mads(const struct gd_fleet_outlier *o)
{
	return o->mad > 0 ? (o->value - o->median) / (1.4826 * o->mad) : o->value > o->median ? INFINITY : -INFINITY;
}

static const char *node_gpu(const char *node, const char *gpu, char *buf, size_t size)
{
	if (gpu[0])
		snprintf(buf, size, "%s gpu%s", node, gpu);
	else
		snprintf(buf, size, "%s", node);
	return buf;
}

/* s, then spaces up to cols display columns (a CJK character takes two):
 * printf's "%-Ns" for text that may be Chinese; the same bytes for ASCII. */
void gd_fleet_pad_left(FILE *out, const char *s, size_t cols)
{
	fputs(s, out);
	for (size_t w = gd_utf8_width(s); w < cols; w++)
		fputc(' ', out);
}

/* Spaces, then s, to cols display columns: "%Ns". */
void gd_fleet_pad_right(FILE *out, const char *s, size_t cols)
{
	for (size_t w = gd_utf8_width(s); w < cols; w++)
		fputc(' ', out);
	fputs(s, out);
}

static size_t max_cols(size_t cols, const char *s)
{
	size_t w = gd_utf8_width(s);

	return w > cols ? w : cols;
}

/* What the tables call a rule id: the no-cause row in the reader's words. */
static const char *rule_shown(const char *rule)
{
	return strcmp(rule, GD_FLEET_NO_CAUSE) == 0 ? _("(no cause found)") : rule;
}

/* What could not be seen of one node (text and HTML: no markup in it). */
static void blind_text(FILE *out, const struct gd_fleet_blind *x)
{
	if (x->down_now)
		fprintf(out, _("not scraped for %.0f s, no fresh evidence for %.0f s; down now"), x->down_s, x->stale_s);
	else
		fprintf(out, _("not scraped for %.0f s, no fresh evidence for %.0f s"), x->down_s, x->stale_s);
}

void gd_fleet_print_text(FILE *out, const struct gd_fleet *f, const struct gd_prom *p, const char *url)
{
	/* the cause table's columns: at least as wide as the English ones, and
	 * as their headings in the language in use */
	static const size_t cw0[8] = { 16, 26, 7, 5, 6, 10, 7, 7 };
	const char *head[8] = { _("category"), _("rule"), _("onsets"), _("GPUs"),
				_("nodes"), _("GPU-hours"), _("share"), _("onsets%") };
	size_t cw[8];
	char at[32], r[32], b[200];
	/* label values, rule ids and warnings come from the Prometheus server
	 * (or a node's file): every one goes through P (core/printable.h) */
	struct gd_pr pr = { 0 };

#define P(s) gd_pr(&pr, (s))
	for (size_t k = 0; k < 8; k++)
		cw[k] = max_cols(cw0[k], head[k]);
	iso_time(f->at, at, sizeof at);
	span(f->range_s, r, sizeof r);
	fprintf(out, _("gpudoctor fleet: %s, %s back from %s: %zu nodes, %zu GPUs\n\n"), P(url), r, at, f->nodes, f->gpus);
	fprintf(out, _("Causes (share: of %.4f GPU-hours, the sum of the rows; of %.0f onsets)\n"), f->total_hours,
		f->total_onsets);
	for (size_t k = 0; k < 8; k++) {
		if (k)
			fputc(' ', out);
		if (k < 2)
			gd_fleet_pad_left(out, head[k], cw[k]);
		else
			gd_fleet_pad_right(out, head[k], cw[k]);
	}
	fputc('\n', out);
	GD_VEC_EACH(f->causes, const struct gd_fleet_cause, c) {
		gd_fleet_pad_left(out, P(_(c->category)), cw[0]);
		fputc(' ', out);
		gd_fleet_pad_left(out, P(rule_shown(c->rule)), cw[1]);
		fprintf(out, " %*.0f %*zu %*zu %*.4f %*.1f%% %*.1f%%\n", (int)cw[2], c->onsets, (int)cw[3], c->gpus,
			(int)cw[4], c->nodes, (int)cw[5], c->gpu_hours, (int)cw[6] - 1, pct(c->gpu_hours, f->total_hours),
			(int)cw[7] - 1, pct(c->onsets, f->total_onsets));
	}
	fprintf(out, _("\nOutliers (busy GPUs against the median of their model; beyond %g robust MADs)\n"), f->mad_k);
	if (!f->outliers.n)
		fputs(_("  none\n"), out);
	GD_VEC_EACH(f->outliers, const struct gd_fleet_outlier, o) {
		double z = in_mads(o);

		char mads[48];

		if (isfinite(z))
			snprintf(mads, sizeof mads, _("%+.1f MADs"), z);
		else
			snprintf(mads, sizeof mads, "%s", _("MAD 0: the others agree"));
		fputs("  ", out);
		gd_fleet_pad_left(out, P(node_gpu(o->node, o->gpu, b, sizeof b)), 28);
		fputc(' ', out);
		fprintf(out, _("%s: %.1f %s, median of %zu %s %.1f, %+.1f %s (%s)\n"), P(_(o->metric)), o->value, P(o->unit),
			o->siblings, P(o->model), o->median, o->value - o->median, P(o->unit), mads);
	}
	fprintf(out, _("\nDrain now (critical findings active at %s)\n"), at);
	if (!f->drain.n)
		fputs(_("  none\n"), out);
	GD_VEC_EACH(f->drain, const struct gd_fleet_drain, d) {
		fputs("  ", out);
		gd_fleet_pad_left(out, P(d->node), 22);
		fputc(' ', out);
		gd_fleet_pad_left(out, P(d->rule), 22);
		fprintf(out, " %s: %s\n", P(d->subject), P(d->remedy));
	}
	fprintf(out, _("\nRepeat offenders (hardware findings that began %g times or more)\n"), f->repeat_min);
	if (!f->repeat.n)
		fputs(_("  none\n"), out);
	GD_VEC_EACH(f->repeat, const struct gd_fleet_repeat, x) {
		fputs("  ", out);
		gd_fleet_pad_left(out, P(node_gpu(x->node, x->gpu, b, sizeof b)), 28);
		fputc(' ', out);
		fprintf(out, _("%3.0f onsets: %s\n"), x->onsets, P(x->rules));
	}
	fputs(_("\nCould not see\n"), out);
	if (!f->blind.n && !p->warnings.n)
		fputs(_("  nothing: every node was scraped and fresh\n"), out);
	GD_VEC_EACH(f->blind, const struct gd_fleet_blind, x) {
		fputs("  ", out);
		gd_fleet_pad_left(out, P(x->node), 22);
		fputc(' ', out);
		blind_text(out, x);
		fputc('\n', out);
	}
	GD_VEC_EACH(p->warnings, const struct gd_prom_warning, w)
		fprintf(out, _("  warning (query %s): %s\n"), P(w->query), P(w->text));
	fprintf(out, _("\n%zu queries, %.3f s, %zu bytes"), p->queries, p->seconds, p->bytes);
	if (p->samples > 0)
		fprintf(out, _(", %.0f samples read"), p->samples);
	fputc('\n', out);
#undef P
	gd_pr_release(&pr);
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The Prometheus side of an answer in JSON, shared by fleet and fleet
 * --job: doc's "warnings" and "cost" (queries, seconds, bytes, samples
 * read with --stats, and each query's own). */
void gd_prom_cost_json(json_t *doc, const struct gd_prom *p)
{
	json_t *a = json_array();

	GD_VEC_EACH(p->warnings, const struct gd_prom_warning, w)
		json_array_append_new(a, json_pack("{s:s,s:s}", "query", w->query, "warning", w->text));
	json_object_set_new(doc, "warnings", a);
	json_object_set_new(doc, "cost", json_pack("{s:I,s:f,s:I}", "queries", (json_int_t)p->queries, "seconds",
						   p->seconds, "bytes", (json_int_t)p->bytes));
	if (p->samples >= 0 && p->stats)
		json_object_set_new(json_object_get(doc, "cost"), "samples", json_real(p->samples));
	a = json_array();
	GD_VEC_EACH(p->costs, const struct gd_prom_cost, c) {
		json_t *x = json_pack("{s:s,s:f,s:I,s:I}", "query", c->query, "seconds", c->seconds, "bytes",
				      (json_int_t)c->bytes, "series", (json_int_t)c->series);

		json_object_set_new(x, "samples", c->samples >= 0 ? json_real(c->samples) : json_null());
		json_array_append_new(a, x);
	}
	json_object_set_new(json_object_get(doc, "cost"), "per_query", a);
}

json_t *gd_fleet_json(const struct gd_fleet *f, const struct gd_prom *p, const char *url)
{
	json_t *doc = json_object(), *a;
	char at[32];

	iso_time(f->at, at, sizeof at);
	json_object_set_new(doc, "prometheus", json_string(url));
	json_object_set_new(doc, "at", json_string(at));
	json_object_set_new(doc, "range_s", json_real(f->range_s));
	json_object_set_new(doc, "nodes", json_integer((json_int_t)f->nodes));
	json_object_set_new(doc, "gpus", json_integer((json_int_t)f->gpus));
	json_object_set_new(doc, "total_gpu_hours", num(f->total_hours));
	json_object_set_new(doc, "total_onsets", num(f->total_onsets));
	json_object_set_new(doc, "share_denominator", json_string("the sum of the rows' GPU-hours (a GPU-hour under two findings counts in both)"));
	a = json_array();
	GD_VEC_EACH(f->causes, const struct gd_fleet_cause, c)
		json_array_append_new(a, json_pack("{s:s,s:s,s:f,s:I,s:I,s:f,s:f}", "category", c->category, "rule", c->rule,
						   "onsets", c->onsets, "gpus", (json_int_t)c->gpus, "nodes",
						   (json_int_t)c->nodes, "gpu_hours", c->gpu_hours, "share",
						   pct(c->gpu_hours, f->total_hours) / 100));
	json_object_set_new(doc, "causes", a);
	a = json_array();
	GD_VEC_EACH(f->outliers, const struct gd_fleet_outlier, o) {
		json_t *x = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:f,s:f,s:f,s:I}", "node", o->node, "gpu", o->gpu, "uuid",
				      o->uuid, "model", o->model, "metric", o->metric, "unit", o->unit, "value", o->value,
				      "median", o->median, "deviation", o->value - o->median, "siblings",
				      (json_int_t)o->siblings);

		json_object_set_new(x, "mad", num(o->mad));
		json_object_set_new(x, "deviation_mads", num(in_mads(o)));
		json_array_append_new(a, x);
	}
	json_object_set_new(doc, "outliers", a);
	a = json_array();
	GD_VEC_EACH(f->drain, const struct gd_fleet_drain, d)
		json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:s}", "node", d->node, "rule", d->rule, "subject",
						   d->subject, "remedy", d->remedy));
	json_object_set_new(doc, "drain", a);
	a = json_array();
	GD_VEC_EACH(f->repeat, const struct gd_fleet_repeat, x)
		json_array_append_new(a, json_pack("{s:s,s:s,s:f,s:s}", "node", x->node, "gpu", x->gpu, "onsets",
						   x->onsets, "rules", x->rules));
	json_object_set_new(doc, "repeat_offenders", a);
	a = json_array();
	GD_VEC_EACH(f->blind, const struct gd_fleet_blind, x)
		json_array_append_new(a, json_pack("{s:s,s:f,s:f,s:b}", "node", x->node, "not_scraped_s", x->down_s,
						   "not_fresh_s", x->stale_s, "down_now", x->down_now));
	json_object_set_new(doc, "could_not_see", a);
	gd_prom_cost_json(doc, p);
	return doc;
}

static void td(FILE *out, const char *s)
{
	fputs("<td>", out);
	gd_html_escape(out, s);
	fputs("</td>", out);
}

void gd_fleet_print_html(FILE *out, const struct gd_fleet *f, const struct gd_prom *p, const char *url)
{
	char at[32], r[32], b[200];

	iso_time(f->at, at, sizeof at);
	span(f->range_s, r, sizeof r);
	fprintf(out, "<!DOCTYPE html>\n<html%s><head><meta charset=\"utf-8\"><title>gpudoctor fleet</title><style>"
		     "body{font:14px sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
		     "padding:2px 8px;text-align:left}td.n{text-align:right}</style></head><body>\n<h1>gpudoctor fleet</h1>\n<p>",
		strcmp(gd_i18n_lang(), "zh_CN") == 0 ? " lang=\"zh-CN\"" : "");
	gd_html_escape(out, url);
	fprintf(out, _(", %s back from %s: %zu nodes, %zu GPUs"), r, at, f->nodes, f->gpus);
	fprintf(out, "</p>\n<h2>%s</h2><p>", _("Causes"));
	fprintf(out, _("Share: of %.4f GPU-hours, the sum of the rows."), f->total_hours);
	fputs("</p>\n", out);
	fprintf(out, "<table><tr><th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th></tr>\n",
		_("category"), _("rule"), _("onsets"), _("GPUs"), _("nodes"), _("GPU-hours"), _("share"));
	GD_VEC_EACH(f->causes, const struct gd_fleet_cause, c) {
		fputs("<tr>", out);
		td(out, _(c->category));
		td(out, rule_shown(c->rule));
		fprintf(out, "<td class=n>%.0f</td><td class=n>%zu</td><td class=n>%zu</td><td class=n>%.4f</td>"
			     "<td class=n>%.1f%%</td></tr>\n",
			c->onsets, c->gpus, c->nodes, c->gpu_hours, pct(c->gpu_hours, f->total_hours));
	}
	fprintf(out, "</table>\n<h2>%s</h2>\n<table><tr><th>GPU</th><th>%s</th><th>%s</th><th>%s</th>"
		     "<th>%s</th><th>%s</th><th>MADs</th></tr>\n",
		_("Outliers"), _("model"), _("metric"), _("value"), _("median"), _("deviation"));
	GD_VEC_EACH(f->outliers, const struct gd_fleet_outlier, o) {
		fputs("<tr>", out);
		td(out, node_gpu(o->node, o->gpu, b, sizeof b));
		td(out, o->model);
		td(out, _(o->metric));
		fprintf(out, "<td class=n>%.1f %s</td><td class=n>%.1f</td><td class=n>%+.1f</td><td class=n>%+.1f</td></tr>\n",
			o->value, o->unit, o->median, o->value - o->median, in_mads(o));
	}
	fprintf(out, "</table>\n<h2>%s</h2>\n<table><tr><th>%s</th><th>%s</th><th>%s</th><th>%s</th></tr>\n",
		_("Drain now"), _("node"), _("rule"), _("subject"), _("remedy"));
	GD_VEC_EACH(f->drain, const struct gd_fleet_drain, d) {
		fputs("<tr>", out);
		td(out, d->node);
		td(out, d->rule);
		td(out, d->subject);
		td(out, d->remedy);
		fputs("</tr>\n", out);
	}
	fprintf(out, "</table>\n<h2>%s</h2>\n<table><tr><th>%s</th><th>%s</th><th>%s</th></tr>\n",
		_("Repeat offenders"), _("node / GPU"), _("onsets"), _("rules"));
	GD_VEC_EACH(f->repeat, const struct gd_fleet_repeat, x) {
		fputs("<tr>", out);
		td(out, node_gpu(x->node, x->gpu, b, sizeof b));
		fprintf(out, "<td class=n>%.0f</td>", x->onsets);
		td(out, x->rules);
		fputs("</tr>\n", out);
	}
	fprintf(out, "</table>\n<h2>%s</h2>\n<ul>\n", _("Could not see"));
	GD_VEC_EACH(f->blind, const struct gd_fleet_blind, x) {
		fputs("<li>", out);
		gd_html_escape(out, x->node);
		fputs(": ", out);
		blind_text(out, x);
		fputs("</li>\n", out);
	}
	GD_VEC_EACH(p->warnings, const struct gd_prom_warning, w) {
		fprintf(out, "<li>%s (", _("warning"));
		gd_html_escape(out, w->query);
		fputs("): ", out);
		gd_html_escape(out, w->text);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n</body></html>\n", out);
}
