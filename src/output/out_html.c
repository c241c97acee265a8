/*
 * out_html.c - the HTML report of a recording (timeline.h): one file that
 * opens anywhere, offline.  Inline CSS and SVG, no script: the legend hides
 * and shows GPUs with checkboxes and CSS alone.  The layout and the SVG
 * attributes the tests read are described in html_report.h; the charts are
 * drawn by html_chart.c from what html_data.c gathered.
 */
#include "output/timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/i18n.h"
#include "output/html_report.h"
#include "output/output.h"
#include "output/report_util.h"
#include "output/subject.h"

void gd_html_escape(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
				fputc('?', out);
			else
				fputc(*s, out);
		}
	}
}

/* s HTML-escaped into buf (cut short when it does not fit). */
static const char *esc(char *buf, size_t size, const char *s)
{
	FILE *m = fmemopen(buf, size, "w");

	buf[0] = '\0';
	if (m) {
		gd_html_escape(m, s);
		fclose(m);
	}
	buf[size - 1] = '\0';
	return buf;
}

const char *gd_html_kind(unsigned kinds)
{
	/* TRANSLATORS: what an episode's GPUs did: idle, slowed, or both */
	static const char *const kind[] = { N_("idle"), N_("slowed"), N_("idle+slowed") };
	const char *k = gd_ep_kind_str(kinds);

	for (size_t i = 0; i < sizeof kind / sizeof kind[0]; i++)
		if (strcmp(k, kind[i]) == 0)
			return _(kind[i]);
	return k;
}

static const char css[] =
	":root{--fg:#1d2125;--muted:#5f6770;--line:#d7dbe0}"
	"*{box-sizing:border-box}"
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;padding:12px 20px 40px;"
	"color:var(--fg);max-width:1680px}"
	"h1{font-size:20px;margin:4px 0}h2{font-size:16px;margin:22px 0 6px;border-bottom:1px solid var(--line);"
	"padding-bottom:2px}h3{font-size:14px;margin:14px 0 4px}"
	"a{color:#0060a0}"
	".verdict{font-size:17px;font-weight:600;margin:8px 0 4px;padding:6px 10px;border-left:6px solid #0072b2;"
	"background:#f2f6fa}"
	".verdict.sev-critical{border-color:#d55e00;background:#fdf1ea}.verdict.sev-warning{border-color:#e69f00;"
	"background:#fdf7e8}"
	"ul.top{margin:4px 0 8px;padding-left:0;list-style:none}ul.top li{margin:2px 0}"
	".sev{display:inline-block;min-width:76px;font-weight:700;font-size:12px;letter-spacing:.03em}"
	".critical{color:#b34700}.warning{color:#8a5a00}.info{color:#005a8c}"
	"table{border-collapse:collapse;width:100%;margin:6px 0}td,th{border:1px solid var(--line);padding:3px 6px;"
	"text-align:left;vertical-align:top}th{background:#f3f4f6}tr.hl td:first-child{font-weight:700}"
	"figure{margin:6px 0 10px}figcaption{font-size:13px;color:#333;margin-bottom:2px}"
	".unit,.key{margin-left:6px;color:var(--muted)}.key i,.legend i,.scale i{display:inline-block;width:12px;"
	"height:10px;margin:0 3px 0 0;vertical-align:-1px;border-radius:2px}"
	".scale{margin-left:10px;white-space:nowrap;color:var(--muted)}.scale i{width:9px;margin:0}"
	"svg.chart{display:block;width:100%;height:auto;background:#fff;border:1px solid #e3e6ea;overflow:visible}"
	".series{fill:none;stroke-width:1.6;stroke-linejoin:round}"
	".gpu.quiet .series{stroke:#a3a9b0;stroke-width:1;opacity:.85}.gpu.hl .series{stroke-width:2.2}"
	".grid{stroke:#eceef1}.vgrid{stroke:#f2f3f5}.ref{stroke:#6b7280;stroke-dasharray:5 4}"
	".reflab{font-size:11px;text-anchor:end;fill:#4b5563;paint-order:stroke;stroke:#fff;stroke-width:3px}"
	".ylab{font-size:11px;text-anchor:end;fill:#555}.xlab,.xdate{font-size:11px;text-anchor:middle;fill:#555}"
	".xdate{font-weight:600}.lanelab{font-size:10px;text-anchor:end;fill:#777}"
	".episode.shade{fill:#e69f00;fill-opacity:.22}.episode.lane{fill:#5f6770}.gpu.hl .episode.lane{fill:var(--c)}"
	".episode.mark{fill:#e69f00}.lostin{font-size:11px;fill:#fff;font-weight:700}"
	".eplabel{font-size:11px;fill:#7a4f00;paint-order:stroke;stroke:#fff;stroke-width:3px}.endlab{font-size:12px;font-weight:700}"
	".lostmark{stroke:#000;stroke-width:1.5;stroke-dasharray:2 2}.lostlab{font-size:11px;font-weight:700}"
	".rowlab{font-size:12px;fill:#444}.rowlab.hl{font-weight:700}.striprow a:hover .rowlab{text-decoration:underline}"
	".legend{position:sticky;top:0;z-index:2;background:#fffffff0;padding:5px 0;border-bottom:1px solid var(--line);"
	"font-size:13px}"
	".legend label{cursor:pointer;margin:0 2px;padding:1px 6px;border:1px solid var(--line);border-radius:10px;"
	"user-select:none;white-space:nowrap}.legend label.hl{font-weight:700}"
	"input.tog{display:none}"
	"ul.odd{margin:4px 0;padding-left:18px}"
	".muted{color:var(--muted)}.meta{color:var(--muted);margin:0 0 6px}"
	"@media (max-width:900px){body{padding:8px}td,th{padding:2px 3px}}"
	"@media (max-width:600px){table{display:block;overflow-x:auto}.legend{position:static}}"
	"@media print{body{max-width:none;padding:0;font-size:10pt}.legend,input.tog{display:none}"
	"figure{break-inside:avoid}svg.chart{border:0}h2{break-after:avoid}"
	"*{-webkit-print-color-adjust:exact;print-color-adjust:exact}a{color:inherit;text-decoration:none}}";

/* The legend's checkboxes: gpuN hidden everywhere when its box is off. */
static void toggle_css(FILE *out, const struct html_ctx *c)
{
	fputs("<style id=\"togcss\">", out);
	for (size_t k = 0; k < c->ngpu; k++) {
		unsigned i = c->gpu[k].idx;

		fprintf(out, "#tog%u:not(:checked)~main .gpu[data-gpu=\"%u\"]{display:none}"
			     "#tog%u:not(:checked)~main label[for=tog%u]{opacity:.45;text-decoration:line-through}",
			i, i, i, i);
	}
	fputs("</style>\n", out);
}

static void no_cause(FILE *out)
{
	fputs("<p>", out);
	gd_html_escape(out, _("No stall cause found among the rules that could be evaluated."));
	fputs("</p>\n", out);
}

/* The page's line under its title: how old the data is, the span drawn,
 * and where the same is in other forms. */
static void page_meta(FILE *out, const struct html_ctx *c, const struct gd_html_page *pg,
		      const struct gd_snapshot *last)
{
	char when[40];

	if (last->host.wall_time_s.ok) {
		time_t tt = (time_t)last->host.wall_time_s.v;
		struct tm tm;

		if (!localtime_r(&tt, &tm) || !strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm))
			snprintf(when, sizeof when, "?");
		fprintf(out, "<span class=\"data\" data-time=\"%.3f\" data-cycle=\"%llu\">", last->host.wall_time_s.v,
			(unsigned long long)pg->cycle);
		fprintf(out, _("data of %s"), when);
		fprintf(out, "</span> <span id=\"age\" data-time=\"%.3f\" hidden>(", last->host.wall_time_s.v);
		/* TRANSLATORS: the age of the node page's data, counted by its script; %s is a number */
		fprintf(out, _("%s s ago"), "<b>0</b>");
		fputs(")</span>", out);
	} else {
		fprintf(out, "<span class=\"data\" data-cycle=\"%llu\">", (unsigned long long)pg->cycle);
		fprintf(out, _("data of cycle %llu"), (unsigned long long)pg->cycle);
		fputs("</span>", out);
	}
	fputs(" &#183; ", out);
	if (c->ta.t1 - c->ta.t0 < 120)
		fprintf(out, _("the last %.0f s; refreshed every %.0f s"), c->ta.t1 - c->ta.t0, pg->refresh_s);
	else
		fprintf(out, _("the last %.0f min; refreshed every %.0f s"), (c->ta.t1 - c->ta.t0) / 60.0, pg->refresh_s);
	fputs(" &#183; <a href=\"/metrics\">/metrics</a> &#183; <a href=\"/findings\">/findings</a> &#183; ", out);
	fprintf(out, "<a href=\"%s\">%s</a>", pg->other_href, pg->other_label);
}

static void verdict(FILE *out, const struct html_ctx *c)
{
	const struct gd_findings *f = c->t->findings;
	size_t count[4] = { 0 }, shown = 0;
	int code = gd_report_exit_code(f);
	const char *cls = code == 2 ? "critical" : code == 1 ? "warning" : "healthy";

	GD_VEC_EACH(f->items, const struct gd_finding, x)
		count[x->severity]++;
	fprintf(out, "<p class=\"verdict sev-%s\" data-exit=\"%d\">", cls, code);
	fprintf(out, GD_VERDICT_FMT(count[GD_SEV_WARNING]), count[GD_SEV_CRITICAL], count[GD_SEV_WARNING],
		count[GD_SEV_INFO], code);
	fputs("</p>\n", out);
	if (!f->items.n) {
		no_cause(out);
		return;
	}
	fputs("<ul class=\"top\">\n", out);
	GD_VEC_EACH(f->items, const struct gd_finding, x) {
		int g = gd_subject_gpu(x->subject);

		if (shown++ == 6) {
			fputs("<li class=\"muted\"><a href=\"#findings\">", out);
			fprintf(out, _("and %zu more"), f->items.n - 6);
			fputs("</a></li>\n", out);
			break;
		}
		fprintf(out, "<li data-rule=\"%s\"><span class=\"sev %s\">%s</span> <b>%s</b> ", x->id,
			gd_severity_name(x->severity), gd_sev_word(x->severity), x->id);
		if (g >= 0)
			fprintf(out, "<a href=\"#gpu%d\">", g);
		gd_html_escape(out, x->subject);
		fputs(g >= 0 ? "</a>: " : ": ", out);
		gd_html_escape(out, x->summary);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

static void odd_list(FILE *out, const struct html_ctx *c)
{
	char when[40];

	if (!c->nhl) {
		fputs("<p class=\"odd-none\">", out);
		gd_html_escape(out, c->ngpu == 1 ? _("No GPU stands out from the others (one GPU): what happened, happened to "
						      "all of them alike.")
						  : _("No GPU stands out from the others: what happened, happened to all of "
						      "them alike."));
		fputs("</p>\n", out);
		return;
	}
	fputs("<ul class=\"odd\">\n", out);
	for (size_t k = 0; k < c->ngpu; k++) {
		const struct html_gpu *g = &c->gpu[k];

		if (!g->hl)
			continue;
		fprintf(out, "<li data-gpu=\"%u\"><a href=\"#gpu%u\" style=\"color:%s\"><b>gpu%u</b></a> ", g->idx, g->idx,
			g->color, g->idx);
		gd_html_escape(out, g->why);
		if (g->neps) {
			fputs(" &#183; ", out);
			fprintf(out, P_("%zu episode, %.0f s stalled", "%zu episodes, %.0f s stalled", g->neps), g->neps,
				g->stalled_s);
		}
		if (g->lost) {
			fputs(" &#183; ", out);
			fprintf(out, _("lost from %s"), gd_time_point(&c->ta, g->lost_at, when, sizeof when));
		}
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

/* <th> cells of the headings, translated, then the row's end. */
static void th_row(FILE *out, const char *const *heads, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fputs("<th>", out);
		gd_html_escape(out, _(heads[i]));
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
}

static void gpu_table(FILE *out, struct html_ctx *c)
{
	/* TRANSLATORS: the headings of the HTML report's GPU table */
	static const char *const heads[] = { N_("name"), "PCI", N_("utilisation mean (min)"), N_("SM clock min / max"),
					     N_("temperature max / slowdown"), N_("power max / limit"), N_("episodes"),
					     N_("stands out") };

	fputs("<section id=\"gpus\"><h2>GPUs</h2>\n<table class=\"gpus\"><tr><th>GPU</th>", out);
	th_row(out, heads, sizeof heads / sizeof heads[0]);
	for (size_t k = 0; k < c->ngpu; k++) {
		const struct html_gpu *g = &c->gpu[k];
		double ulo = NAN, smlo = NAN, thi = NAN, phi = NAN;

		gd_env_range(&c->env, html_gs(c, k, GS_UTIL), &ulo, NULL, NULL);
		gd_env_range(&c->env, html_gs(c, k, GS_SMMHZ), &smlo, NULL, NULL);
		gd_env_range(&c->env, html_gs(c, k, GS_TEMP), NULL, &thi, NULL);
		gd_env_range(&c->env, html_gs(c, k, GS_POWER), NULL, &phi, NULL);
		/* the row is the GPU's details when it has no detail charts */
		if (g->hl)
			fprintf(out, "<tr class=\"hl\" data-gpu=\"%u\"><td><a href=\"#gpu%u\">gpu%u</a></td><td>", g->idx,
				g->idx, g->idx);
		else
			fprintf(out, "<tr id=\"gpu%u\" data-gpu=\"%u\"><td>gpu%u</td><td>", g->idx, g->idx, g->idx);
		gd_html_escape(out, g->name);
		fputs("</td><td>", out);
		gd_html_escape(out, g->pci);
		fprintf(out, "</td><td>%.0f%% (%.0f%%)</td><td>%.0f / %.0f MHz</td><td>%.0f / %.0f \xc2\xb0""C</td>"
			     "<td>%.0f / %.0f W</td><td>%zu, %.0f s</td><td>",
			gd_env_mean(&c->env, html_gs(c, k, GS_UTIL)), ulo, smlo, g->smmax, thi, g->slow, phi, g->limit,
			g->neps, g->stalled_s);
		gd_html_escape(out, g->why[0] ? g->why : _("no"));
		fputs("</td></tr>\n", out);
	}
	fputs("</table></section>\n", out);
}
static void findings_table(FILE *out, const struct gd_findings *f, bool live)
{
	char val[64], th[64];

	/* TRANSLATORS: the headings of the HTML report's findings table */
	static const char *const heads[] = { N_("severity"), N_("rule"), N_("subject"), N_("what"), N_("evidence"),
					     N_("remedy") };

	fputs("<section id=\"findings\"><h2>", out);
	fprintf(out, live ? _("Active findings (%zu)") : _("Findings over the whole recording (%zu)"), f->items.n);
	fputs("</h2>\n", out);
	if (!f->items.n) {
		no_cause(out);
	} else {
		fputs("<table class=\"findings\"><tr>", out);
		th_row(out, heads, sizeof heads / sizeof heads[0]);
	}
	GD_VEC_EACH(f->items, const struct gd_finding, x) {
		fprintf(out, "<tr data-rule=\"%s\"><td class=\"%s\">%s</td><td>%s</td><td>", x->id,
			gd_severity_name(x->severity), gd_sev_word(x->severity), x->id);
		gd_html_escape(out, x->subject);
		fputs("</td><td>", out);
		gd_html_escape(out, x->summary);
		fputs("</td><td>", out);
		for (size_t i = 0; i < x->nev; i++) {
			const struct gd_evidence *e = &x->ev[i];

			gd_html_escape(out, e->name);
			fputc(' ', out);
			if (e->value.ok)
				gd_html_escape(out, gd_fmt_value(val, sizeof val, e->value.v, e->unit));
			if (e->threshold.ok) {
				char t[96];

				snprintf(t, sizeof t, _(" (threshold %s)"), gd_fmt_value(th, sizeof th, e->threshold.v, e->unit));
				gd_html_escape(out, t);
			}
			if (e->text[0]) {
				fputc(' ', out);
				gd_html_escape(out, e->text);
			}
			fputs("<br>", out);
		}
		fputs("</td><td>", out);
		gd_html_escape(out, x->remedy);
		fputs("</td></tr>\n", out);
	}
	if (f->items.n)
		fputs("</table>\n", out);
	if (f->unknown.n) {
		fputs("<p class=\"muted\">", out);
		gd_html_escape(out, _("Not evaluated: "));
		GD_VEC_EACH(f->unknown, const struct gd_unknown, u) {
			char why[600];

			/* TRANSLATORS: the separator of the HTML report's list of rules not evaluated */
			fprintf(out, "%s%s", u == f->unknown.items ? "" : _("; "), u->id);
			snprintf(why, sizeof why, _(" (%s)"), u->reason);
			gd_html_escape(out, why);
		}
		fputs("</p>\n", out);
	}
	fputs("</section>\n", out);
}

static void episodes_table(FILE *out, const struct gd_episodes *e)
{
	char buf[96];

	/* TRANSLATORS: the headings of the HTML report's episodes table */
	static const char *const heads[] = { N_("start"), N_("length"), "GPUs", N_("kind"), N_("cause"),
					     N_("findings during it") };

	fputs("<section id=\"episodes\"><h2>", out);
	fprintf(out, _("Stall episodes (%zu)"), e->items.n);
	fputs("</h2>\n", out);
	if (e->periodic) {
		fprintf(out, "<p class=\"periodic\" data-period=\"%.1f\">", e->period_s);
		if (e->period_cause)
			/* TRANSLATORS: the rule id of the cause, the period and its deviation */
			fprintf(out, _("The episodes caused by %s repeat every %.1f s (&#177;%.1f s): periodic stalls point at "
				       "checkpoints, evaluation or logging."),
				e->period_cause, e->period_s, e->period_dev_s);
		else
			fprintf(out, _("They repeat every %.1f s (&#177;%.1f s): periodic stalls point at checkpoints, "
				       "evaluation or logging."),
				e->period_s, e->period_dev_s);
		fputs("</p>\n", out);
	}
	if (!e->items.n) {
		fputs("<p>", out);
		fputs(_("No GPU holding a job's context was idle or slowed for two samples in a row."), out);
		fputs("</p></section>\n", out);
		return;
	}
	fputs("<table class=\"episodes\"><tr>", out);
	th_row(out, heads, sizeof heads / sizeof heads[0]);
	GD_VEC_EACH(e->items, const struct gd_episode, ep) {
		fprintf(out, "<tr data-cause=\"%s\"><td>", ep->cause ? ep->cause : "none");
		fprintf(out, _("up %.1f s"), ep->start_s);
		if (ep->start_wall_s.ok) {
			time_t tt = (time_t)ep->start_wall_s.v;
			struct tm tm;
			char when[40];

			if (localtime_r(&tt, &tm) && strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm))
				fprintf(out, "<br>%s", when);
		}
		fprintf(out, "</td><td>%.1f s%s</td><td>%s</td><td>%s</td><td>%s</td><td>", ep->duration_s,
			ep->open ? _(" (ongoing)") : "", gd_ep_gpus_str(ep->gpus, buf, sizeof buf),
			gd_html_kind(ep->kinds), ep->cause ? ep->cause : _("none found"));
		for (size_t i = 0; i < ep->nfindings; i++) {
			fprintf(out, "<b>%s</b> ", ep->findings[i].id);
			gd_html_escape(out, ep->findings[i].subject);
			fputs(": ", out);
			gd_html_escape(out, ep->findings[i].summary);
			fputs("<br>", out);
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</table></section>\n", out);
}

/* The rank identity of the GPU jobs (snapshot job_ranks): who each GPU
 * process is in its distributed job. */
static void ranks_table(FILE *out, const struct gd_snapshot *last)
{
	/* TRANSLATORS: the headings of the node page's table of GPU job processes */
	static const char *const heads[] = { "pid", N_("status"), N_("job"), N_("launcher"), N_("rank"),
					     N_("local rank"), N_("world size"), N_("node rank"), "GPUs" };
	char n[4][24];

	fputs("<section id=\"ranks\"><h2>", out);
	fprintf(out, _("GPU job processes (%zu)"), last->job_ranks.n);
	fputs("</h2>\n", out);
	if (!last->job_ranks.n) {
		fputs("<p class=\"muted\">", out);
		gd_html_escape(out, _("No process holds a GPU context, or NVML lists none."));
		fputs("</p></section>\n", out);
		return;
	}
	fputs("<table class=\"ranks\"><tr>", out);
	th_row(out, heads, sizeof heads / sizeof heads[0]);
	GD_VEC_EACH(last->job_ranks, const struct gd_job_rank, r) {
		const struct gd_u64 *v[4] = { &r->rank, &r->local_rank, &r->world_size, &r->node_rank };

		for (size_t i = 0; i < 4; i++)
			if (v[i]->ok)
				snprintf(n[i], sizeof n[i], "%llu", (unsigned long long)v[i]->v);
			else
				snprintf(n[i], sizeof n[i], "-");
		fprintf(out, "<tr data-pid=\"%llu\"><td>%llu</td><td>", (unsigned long long)r->pid.v,
			(unsigned long long)r->pid.v);
		gd_html_escape(out, r->status);
		if (r->reason[0]) {
			fputs(" <span class=\"muted\">", out);
			gd_html_escape(out, r->reason);
			fputs("</span>", out);
		}
		fputs("</td><td>", out);
		gd_html_escape(out, r->job);
		fputs("</td><td>", out);
		gd_html_escape(out, r->launcher);
		fprintf(out, "</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>", n[0], n[1], n[2], n[3]);
		gd_html_escape(out, r->gpus);
		fputs("</td></tr>\n", out);
	}
	fputs("</table></section>\n", out);
}

/* The node page's script: every data-refresh seconds it fetches the page
 * again and swaps its <main> (the legend's boxes, outside it, keep their
 * state), and counts the data's age each second.  Without script the
 * page's <noscript> meta refresh reloads it whole.  From or to a short
 * page (being drawn, withdrawn: page.c) it reloads the whole page.  A
 * constant: nothing of a request or a snapshot is in it. */
const char gd_html_page_script[] =
	"(function(){var b=document.body,R=1000*(+b.dataset.refresh||5);"
	"function age(){var e=document.getElementById('age');if(!e)return;"
	"var s=Math.round(Date.now()/1000-(+e.dataset.time));e.hidden=!(s>=0&&s<86400);"
	"e.querySelector('b').textContent=s}"
	"function swap(){fetch(location.href,{cache:'no-store'}).then(function(r){return r.text()})"
	".then(function(h){var d=new DOMParser().parseFromString(h,'text/html'),m=d.querySelector('main'),"
	"t=d.getElementById('togcss'),o=document.getElementById('togcss');if(!m)return;"
	"if(!t||!o){location.reload();return}document.querySelector('main').replaceWith(m);o.replaceWith(t);"
	"b.dataset.swaps=(+b.dataset.swaps||0)+1;age()}).catch(function(){})}"
	"setInterval(age,1000);setInterval(swap,R);age()})();";

void gd_out_html(FILE *out, const struct gd_timeline *t)
{
	gd_out_html_page(out, t, NULL);
}

void gd_out_html_page(FILE *out, const struct gd_timeline *t, const struct gd_html_page *pg)
{
	const struct gd_window *w = t->w;
	const struct gd_snapshot *last = gd_window_last(w);
	struct html_ctx *c = calloc(1, sizeof *c);
	char a[40], b[40], e[4096];

	/* the page's language: the browser picks the Chinese glyphs for zh-CN */
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"%s\"><head><meta charset=\"utf-8\">"
		     "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">",
		strcmp(gd_i18n_lang(), "zh_CN") == 0 ? "zh-CN" : "en");
	if (pg)
		fprintf(out, "<noscript><meta http-equiv=\"refresh\" content=\"%.0f\"></noscript>", pg->refresh_s);
	fputs("<title>", out);
	gd_html_escape(out, pg ? _("gpudoctor: the node's diagnosis") : _("gpudoctor report"));
	if (last && last->host.hostname[0]) {
		fputs(": ", out);
		gd_html_escape(out, last->host.hostname);
	}
	fprintf(out, "</title><style>%s</style>\n", css);
	if (!c || !last || !gd_html_gather(c, t)) {
		fputs("</head><body><h1>", out);
		gd_html_escape(out, _("gpudoctor report"));
		fputs("</h1><p class=\"muted\">", out);
		gd_html_escape(out, last ? _("Out of memory.") : _("No snapshots."));
		fputs("</p></body></html>\n", out);
		if (c)
			gd_html_ctx_release(c);
		free(c);
		return;
	}
	c->out = out;
	c->live = pg != NULL;
	toggle_css(out, c);
	if (pg)
		fprintf(out, "</head><body data-refresh=\"%.0f\">\n", pg->refresh_s);
	else
		fputs("</head><body>\n", out);
	for (size_t k = 0; k < c->ngpu; k++)
		fprintf(out, "<input type=\"checkbox\" class=\"tog\" id=\"tog%u\" checked>", c->gpu[k].idx);
	fputs("\n<main>\n<h1>", out);
	gd_html_escape(out, pg ? _("gpudoctor: the node's diagnosis") : _("gpudoctor report"));
	if (last->host.hostname[0]) {
		fputs(" &#8212; ", out);
		gd_html_escape(out, last->host.hostname);
	}
	fprintf(out, "</h1>\n<p class=\"meta\">gpudoctor %s &#183; ", GD_VERSION);
	fprintf(out, P_("%zu GPU", "%zu GPUs", c->ngpu), c->ngpu);
	fputs(" &#183; ", out);
	/* TRANSLATORS: the samples of the recording, its first and last instant and its length in seconds */
	if (pg)
		page_meta(out, c, pg, last);
	else
	fprintf(out, c->ta.clock ? _("%zu samples from %s to %s (%.0f s, local time)") : _("%zu samples from %s to %s (%.0f s)"),
		t->samples, gd_time_point(&c->ta, c->ta.t0, a, sizeof a), gd_time_point(&c->ta, c->ta.t1, b, sizeof b),
		c->ta.t1 - c->ta.t0);
	fputs(" &#183; ", out);
	fprintf(out, _("kernel %s"), esc(e, sizeof e, last->host.kernel[0] ? last->host.kernel : "?"));
	if (t->origin && !pg) {
		fputs(" &#183; ", out);
		fprintf(out, _("from %s"), esc(e, sizeof e, t->origin));
	}
	fputs("</p>\n<section id=\"summary\">\n", out);
	verdict(out, c);
	if (c->ngpu) {
		gd_html_strip(c);
		odd_list(out, c);
	} else {
		char st[64];

		esc(st, sizeof st, last->nvml.status[0] ? last->nvml.status : _("not read"));
		fputs("<p class=\"muted\">", out);
		if (last->nvml.reason[0])
			fprintf(out, _("No GPU in the recording (NVML %s: %s)."), st, esc(e, sizeof e, last->nvml.reason));
		else
			fprintf(out, _("No GPU in the recording (NVML %s)."), st);
		fputs("</p>\n", out);
	}
	fputs("</section>\n", out);
	gd_html_metric_charts(c);
	gd_html_host_charts(c);
	if (c->nhl)
		fprintf(out, "<section id=\"details\"><h2>%s</h2>\n", _("The GPUs that stand out"));
	for (size_t k = 0; k < c->ngpu; k++) {
		const struct html_gpu *g = &c->gpu[k];

		if (!g->hl)
			continue;
		fprintf(out, "<section class=\"gpu-detail\" id=\"gpu%u\"><h3 style=\"color:%s\">gpu%u ", g->idx, g->color,
			g->idx);
		gd_html_escape(out, g->name);
		fputs(" <span class=\"muted\">", out);
		gd_html_escape(out, g->why);
		fputs("</span></h3>\n", out);
		gd_html_gpu_details(c, k);
		fputs("</section>\n", out);
	}
	if (c->nhl)
		fputs("</section>\n", out);
	if (c->ngpu)
		gpu_table(out, c);
	episodes_table(out, t->episodes);
	if (pg)
		ranks_table(out, last);
	findings_table(out, t->findings, pg != NULL);
	fputs("</main>", out);
	if (pg)
		fprintf(out, "<script>%s</script>", gd_html_page_script);
	fputs("</body></html>\n", out);
	gd_html_ctx_release(c);
	free(c);
}
