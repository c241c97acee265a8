/*
 * out_html.c - the HTML report of a recording (timeline.h): one file that
 * opens anywhere, offline.  Inline CSS, inline SVG, no script.
 *
 * Each chart is an <svg class="chart" data-chart="gpu0"> whose series are
 * <path class="series" data-series="gpu0.util_gpu_pct" data-n="N"> (N =
 * points drawn; a missing value breaks the line), and whose episodes are
 * <rect class="episode" data-cause="io.checkpoint_stall"> with a <title>
 * and a text label.  The tests read these attributes from the DOM a real
 * browser builds.
 */
#include "output/timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output/output.h"
#include "output/rates.h"

#define CW 960.0   /* chart width */
#define CH 150.0   /* chart height */
#define ML 56.0    /* margins: left, right, top, bottom */
#define MR 12.0
#define MT 16.0
#define MB 22.0

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

struct series {
	const char *name;   /* data-series, e.g. gpu0.util_gpu_pct */
	const char *label;
	const char *color;
	double *v;          /* n values, NAN where absent */
};

struct axis {
	double t0, t1;      /* uptime span */
	size_t n;
	const double *t;    /* uptime of each sample */
};

static double xpos(const struct axis *ax, double t)
{
	double span = ax->t1 > ax->t0 ? ax->t1 - ax->t0 : 1;

	return ML + (t - ax->t0) / span * (CW - ML - MR);
}

static double ypos(double v, double ymax)
{
	if (v < 0)
		v = 0;
	if (v > ymax)
		v = ymax;
	return MT + (1 - v / ymax) * (CH - MT - MB);
}

/* A chart of up to 3 series; ref (a limit line) when finite. */
static void chart(FILE *out, const struct gd_timeline *t, const struct axis *ax, const char *id, const char *title,
		  const char *unit, double ymax, const struct series *s, size_t ns, double ref, const char *ref_label)
{
	const struct gd_episodes *e = t->episodes;

	if (!(ymax > 0) || !isfinite(ymax))
		ymax = 1;
	fprintf(out, "<figure><figcaption>");
	gd_html_escape(out, title);
	fprintf(out, " <span class=\"unit\">(%s)</span>", unit);
	for (size_t k = 0; k < ns; k++)
		fprintf(out, " <span class=\"key\" style=\"color:%s\">&#9632; %s</span>", s[k].color, s[k].label);
	fprintf(out, "</figcaption>\n<svg class=\"chart\" data-chart=\"%s\" viewBox=\"0 0 %.0f %.0f\" "
		     "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n", id, CW, CH);
	/* Episodes first, under the lines. */
	GD_VEC_EACH(e->items, const struct gd_episode, ep) {
		double x1 = xpos(ax, ep->end_s), x0 = xpos(ax, ep->end_s - ep->duration_s);
		char gpus[96];

		if (x0 < ML)
			x0 = ML;
		fprintf(out, "<rect class=\"episode\" data-cause=\"%s\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%.0f\">",
			ep->cause ? ep->cause : "none", x0, MT, fmax(x1 - x0, 1.5), CH - MT - MB);
		fprintf(out, "<title>%s %s, %.1f s: ", gd_ep_gpus_str(ep->gpus, gpus, sizeof gpus),
			gd_ep_kind_str(ep->kinds), ep->duration_s);
		gd_html_escape(out, ep->cause ? ep->cause : "no finding explains it");
		fprintf(out, "</title></rect><text class=\"eplabel\" x=\"%.1f\" y=\"%.0f\">%s</text>\n", x0 + 2, MT - 4,
			ep->cause ? ep->cause : gd_ep_kind_str(ep->kinds));
	}
	/* Axes, grid, labels. */
	for (int i = 0; i <= 4; i++) {
		double v = ymax * i / 4, y = ypos(v, ymax);

		fprintf(out, "<line class=\"grid\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			     "<text class=\"ylab\" x=\"%.0f\" y=\"%.1f\">%.4g</text>\n",
			ML, CW - MR, y, y, ML - 4, y + 4, v);
	}
	for (int i = 0; i <= 6; i++) {
		double tt = ax->t0 + (ax->t1 - ax->t0) * i / 6;

		fprintf(out, "<text class=\"xlab\" x=\"%.1f\" y=\"%.0f\">%.0f s</text>\n", xpos(ax, tt), CH - 6,
			tt - ax->t0);
	}
	if (isfinite(ref))
		fprintf(out, "<line class=\"ref\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"><title>%s</title></line>\n",
			ML, CW - MR, ypos(ref, ymax), ypos(ref, ymax), ref_label);
	for (size_t k = 0; k < ns; k++) {
		size_t pts = 0;
		bool pen = false;

		fprintf(out, "<path class=\"series\" data-series=\"%s\" stroke=\"%s\" d=\"", s[k].name, s[k].color);
		for (size_t i = 0; i < ax->n; i++) {
			if (!isfinite(s[k].v[i]) || !isfinite(ax->t[i])) {
				pen = false;
				continue;
			}
			fprintf(out, "%s%.1f,%.1f ", pen ? "L" : "M", xpos(ax, ax->t[i]), ypos(s[k].v[i], ymax));
			pen = true;
			pts++;
		}
		if (!pts)
			fputs("M0,0", out);
		fprintf(out, "\" data-n=\"%zu\"/>\n", pts);
	}
	fputs("</svg></figure>\n", out);
}

static const struct gd_gpu *gpu_at(const struct gd_snapshot *s, unsigned idx)
{
	return GD_FIND_PREV_U64(s, gpus, struct gd_gpu, index, idx);
}

static double vmax(const double *v, size_t n, double floor_)
{
	double m = floor_;

	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]) && v[i] > m)
			m = v[i];
	return m;
}

static void gpu_charts(FILE *out, const struct gd_timeline *t, const struct axis *ax, unsigned idx, double *buf)
{
	const struct gd_window *w = t->w;
	double *util = buf, *sm = buf + ax->n, *temp = buf + 2 * ax->n, *pw = buf + 3 * ax->n;
	double smmax = NAN, slow = NAN, limit = NAN;
	const char *name = "";
	char id[32], nm[4][48];

	for (size_t i = 0; i < w->n; i++) {
		const struct gd_gpu *g = gpu_at(w->snaps[i], idx);

		util[i] = sm[i] = temp[i] = pw[i] = NAN;
		if (!g || (g->lost.ok && g->lost.v))
			continue;
		name = g->name[0] ? g->name : name;
		if (g->util_gpu_pct.ok)
			util[i] = (double)g->util_gpu_pct.v;
		if (g->sm_clock_mhz.ok)
			sm[i] = (double)g->sm_clock_mhz.v;
		if (g->temp_c.ok)
			temp[i] = g->temp_c.v;
		if (g->power_w.ok)
			pw[i] = g->power_w.v;
		if (g->sm_clock_max_mhz.ok)
			smmax = (double)g->sm_clock_max_mhz.v;
		if (g->temp_slowdown_c.ok)
			slow = g->temp_slowdown_c.v;
		if (g->power_limit_w.ok)
			limit = g->power_limit_w.v;
	}
	fprintf(out, "<section class=\"gpu\" id=\"gpu%u\"><h2>gpu%u ", idx, idx);
	gd_html_escape(out, name);
	fputs("</h2>\n", out);
	snprintf(id, sizeof id, "gpu%u", idx);
	snprintf(nm[0], sizeof nm[0], "gpu%u.util_gpu_pct", idx);
	snprintf(nm[1], sizeof nm[1], "gpu%u.sm_clock_mhz", idx);
	snprintf(nm[2], sizeof nm[2], "gpu%u.temp_c", idx);
	snprintf(nm[3], sizeof nm[3], "gpu%u.power_w", idx);
	{
		struct series su = { nm[0], "utilisation", "#1f77b4", util };
		struct series ss = { nm[1], "SM clock", "#2ca02c", sm };
		struct series st = { nm[2], "temperature", "#d62728", temp };
		struct series sp = { nm[3], "power", "#9467bd", pw };

		chart(out, t, ax, id, "Utilisation", "%", 100, &su, 1, NAN, "");
		chart(out, t, ax, id, "SM clock", "MHz", vmax(sm, ax->n, isfinite(smmax) ? smmax : 1) * 1.05, &ss, 1,
		      smmax, "maximum SM clock");
		chart(out, t, ax, id, "Temperature", "°C", vmax(temp, ax->n, isfinite(slow) ? slow : 1) + 5, &st, 1,
		      slow, "slowdown temperature");
		chart(out, t, ax, id, "Power", "W", vmax(pw, ax->n, isfinite(limit) ? limit : 1) * 1.05, &sp, 1, limit,
		      "power limit");
	}
	fputs("</section>\n", out);
}

static void host_charts(FILE *out, const struct gd_timeline *t, const struct axis *ax, double *buf)
{
	const struct gd_window *w = t->w;
	size_t n = ax->n;
	double *v[6];

	for (int k = 0; k < 6; k++)
		v[k] = buf + (size_t)k * n;
	for (size_t i = 0; i < n; i++) {
		struct gd_host_rates r;

		for (int k = 0; k < 6; k++)
			v[k][i] = NAN;
		if (!i)
			continue;
		gd_host_rates(w->snaps[i - 1], w->snaps[i], &r);
		if (r.cpu_busy_pct.ok)
			v[0][i] = r.cpu_busy_pct.v;
		if (r.iowait_pct.ok)
			v[1][i] = r.iowait_pct.v;
		if (r.disk_read_bps.ok) {
			v[2][i] = r.disk_read_bps.v / 1e6;
			v[3][i] = r.disk_write_bps.v / 1e6;
		}
		if (r.net_rx_bps.ok) {
			v[4][i] = r.net_rx_bps.v / 1e6;
			v[5][i] = r.net_tx_bps.v / 1e6;
		}
	}
	fputs("<section class=\"host\" id=\"host\"><h2>Host</h2>\n", out);
	{
		struct series cpu[2] = { { "host:cpu_busy_pct", "busy", "#1f77b4", v[0] },
					 { "host:iowait_pct", "iowait", "#ff7f0e", v[1] } };
		struct series io[2] = { { "host:disk_read_mb_per_s", "read", "#2ca02c", v[2] },
					{ "host:disk_write_mb_per_s", "write", "#d62728", v[3] } };
		struct series net[2] = { { "host:net_rx_mb_per_s", "received", "#17becf", v[4] },
					 { "host:net_tx_mb_per_s", "sent", "#9467bd", v[5] } };

		chart(out, t, ax, "host", "CPU", "%", 100, cpu, 2, NAN, "");
		chart(out, t, ax, "host", "Disk I/O (whole disks)", "MB/s",
		      fmax(vmax(v[2], n, 1), vmax(v[3], n, 1)) * 1.1, io, 2, NAN, "");
		chart(out, t, ax, "host", "Network (all but lo)", "MB/s",
		      fmax(vmax(v[4], n, 1), vmax(v[5], n, 1)) * 1.1, net, 2, NAN, "");
	}
	fputs("</section>\n", out);
}

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1000px}"
	"h1{font-size:20px}h2{font-size:16px;margin:18px 0 4px}"
	"table{border-collapse:collapse;width:100%;margin:6px 0}td,th{border:1px solid #ccc;padding:3px 6px;"
	"text-align:left;vertical-align:top}th{background:#f3f3f3}"
	"figure{margin:4px 0}figcaption{font-size:12px;color:#444}.unit,.key{margin-left:6px}"
	"svg.chart{width:100%;height:auto;background:#fff;border:1px solid #ddd}"
	".series{fill:none;stroke-width:1.5}.grid{stroke:#eee}.ref{stroke:#999;stroke-dasharray:4 3}"
	".ylab{font-size:10px;text-anchor:end;fill:#666}.xlab{font-size:10px;text-anchor:middle;fill:#666}"
	".episode{fill:#f5a623;fill-opacity:.25}.eplabel{font-size:10px;fill:#b36b00}"
	".critical{color:#b00020;font-weight:bold}.warning{color:#b36b00;font-weight:bold}.info{color:#06c}"
	".muted{color:#777}";

static void findings_table(FILE *out, const struct gd_findings *f)
{
	char val[64], th[64];

	fprintf(out, "<section id=\"findings\"><h2>Findings over the whole recording (%zu)</h2>\n", f->items.n);
	if (!f->items.n)
		fputs("<p>No stall cause found among the rules that could be evaluated.</p>\n", out);
	else
		fputs("<table class=\"findings\"><tr><th>severity</th><th>rule</th><th>subject</th><th>what</th>"
		      "<th>evidence</th><th>remedy</th></tr>\n", out);
	GD_VEC_EACH(f->items, const struct gd_finding, x) {
		fprintf(out, "<tr data-rule=\"%s\"><td class=\"%s\">%s</td><td>%s</td><td>", x->id,
			gd_severity_name(x->severity), gd_severity_name(x->severity), x->id);
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
				fputs(" (threshold ", out);
				gd_html_escape(out, gd_fmt_value(th, sizeof th, e->threshold.v, e->unit));
				fputc(')', out);
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
		fputs("<p class=\"muted\">Not evaluated: ", out);
		GD_VEC_EACH(f->unknown, const struct gd_unknown, u) {
			fprintf(out, "%s%s (", u == f->unknown.items ? "" : "; ", u->id);
			gd_html_escape(out, u->reason);
			fputc(')', out);
		}
		fputs("</p>\n", out);
	}
	fputs("</section>\n", out);
}

static void episodes_table(FILE *out, const struct gd_episodes *e)
{
	char buf[96];

	fprintf(out, "<section id=\"episodes\"><h2>Stall episodes (%zu)</h2>\n", e->items.n);
	if (e->periodic)
		fprintf(out, "<p class=\"periodic\" data-period=\"%.1f\">%s%s repeat every %.1f s (&#177;%.1f s): "
			     "periodic stalls point at checkpoints, evaluation or logging.</p>\n",
			e->period_s, e->period_cause ? "The episodes caused by " : "They",
			e->period_cause ? e->period_cause : "", e->period_s, e->period_dev_s);
	if (!e->items.n) {
		fputs("<p>No GPU holding a job's context was idle or slowed for two samples in a row.</p></section>\n", out);
		return;
	}
	fputs("<table class=\"episodes\"><tr><th>start</th><th>length</th><th>GPUs</th><th>kind</th><th>cause</th>"
	      "<th>findings during it</th></tr>\n", out);
	GD_VEC_EACH(e->items, const struct gd_episode, ep) {
		fprintf(out, "<tr data-cause=\"%s\"><td>up %.1f s", ep->cause ? ep->cause : "none", ep->start_s);
		if (ep->start_wall_s.ok) {
			time_t tt = (time_t)ep->start_wall_s.v;
			struct tm tm;
			char when[40];

			if (localtime_r(&tt, &tm) && strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm))
				fprintf(out, "<br>%s", when);
		}
		fprintf(out, "</td><td>%.1f s%s</td><td>%s</td><td>%s</td><td>%s</td><td>", ep->duration_s,
			ep->open ? " (ongoing)" : "", gd_ep_gpus_str(ep->gpus, buf, sizeof buf),
			gd_ep_kind_str(ep->kinds), ep->cause ? ep->cause : "none found");
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

void gd_out_html(FILE *out, const struct gd_timeline *t)
{
	const struct gd_window *w = t->w;
	const struct gd_snapshot *first = gd_window_first(w), *last = gd_window_last(w);
	struct axis ax = { 0, 0, w->n, NULL };
	double *tv = calloc(w->n ? w->n : 1, sizeof *tv), *buf = calloc(6 * (w->n ? w->n : 1), sizeof *buf);
	uint64_t seen = 0;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width\"><title>gpudoctor report", out);
	if (last && last->host.hostname[0]) {
		fputs(": ", out);
		gd_html_escape(out, last->host.hostname);
	}
	fprintf(out, "</title><style>%s</style></head><body>\n<h1>gpudoctor report", css);
	if (last && last->host.hostname[0]) {
		fputs(" &#8212; ", out);
		gd_html_escape(out, last->host.hostname);
	}
	fputs("</h1>\n<p class=\"muted\">", out);
	if (!tv || !buf || !first) {
		fputs("No snapshots.</p></body></html>\n", out);
		free(tv);
		free(buf);
		return;
	}
	for (size_t i = 0; i < w->n; i++) {
		tv[i] = w->snaps[i]->host.uptime_s.ok ? w->snaps[i]->host.uptime_s.v : NAN;
		GD_VEC_EACH(w->snaps[i]->gpus, const struct gd_gpu, g)
			if (g->index.ok && g->index.v < GD_EP_MAX_GPUS)
				seen |= 1ull << g->index.v;
	}
	ax.t0 = isfinite(tv[0]) ? tv[0] : 0;
	ax.t1 = isfinite(tv[w->n - 1]) ? tv[w->n - 1] : ax.t0;
	ax.t = tv;
	fprintf(out, "gpudoctor %s &#183; %zu samples over %.1f s &#183; kernel ", GD_VERSION, w->n, ax.t1 - ax.t0);
	gd_html_escape(out, last->host.kernel[0] ? last->host.kernel : "?");
	if (t->origin) {
		fputs(" &#183; from ", out);
		gd_html_escape(out, t->origin);
	}
	fputs("</p>\n", out);
	episodes_table(out, t->episodes);
	if (!seen) {
		fputs("<p class=\"muted\">No GPU in the recording (NVML ", out);
		gd_html_escape(out, last->nvml.status[0] ? last->nvml.status : "not read");
		if (last->nvml.reason[0]) {
			fputs(": ", out);
			gd_html_escape(out, last->nvml.reason);
		}
		fputs(").</p>\n", out);
	}
	for (unsigned g = 0; g < GD_EP_MAX_GPUS; g++)
		if (seen >> g & 1)
			gpu_charts(out, t, &ax, g, buf);
	host_charts(out, t, &ax, buf);
	findings_table(out, t->findings);
	fputs("</body></html>\n", out);
	free(tv);
	free(buf);
}
