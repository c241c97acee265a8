/*
 * html_chart.c - the SVG of the HTML report (html_report.h): the GPU heat
 * strips, the per-metric charts with every GPU, the host charts and the
 * detail charts of the GPUs that stand out.  Every chart maps time the same
 * way (HML .. HW - HMR), so a stall lines up from the strips down to the
 * host's disk.
 */
#include <math.h>
#include <string.h>

#include "core/i18n.h"
#include "output/html_report.h"
#include "output/output.h"

#define PW (HW - HML - HMR)

struct frame {
	double h, mt, mb;        /* height, margins top and bottom */
	struct gd_axis y;
};

static double xat(const struct html_ctx *c, double t)
{
	double span = c->ta.t1 - c->ta.t0;

	return HML + (span > 0 ? (t - c->ta.t0) / span : 0.5) * PW;
}

static double yat(const struct frame *f, double v)
{
	double r = f->y.hi - f->y.lo;

	if (v < f->y.lo)
		v = f->y.lo;
	if (v > f->y.hi)
		v = f->y.hi;
	return f->mt + (1 - (r > 0 ? (v - f->y.lo) / r : 0)) * (f->h - f->mt - f->mb);
}

/* Vertical grid at each time tick over the plot; labels with their
 * baseline at label_y (0: none). */
static void time_ticks(const struct html_ctx *c, const struct frame *f, double label_y)
{
	FILE *out = c->out;

	for (size_t i = 0; i < c->ta.n; i++) {
		char lab[32], date[32];
		double x = xat(c, c->ta.t[i]);

		fprintf(out, "<line class=\"vgrid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\"/>", x, x, f->mt,
			f->h - f->mb);
		if (!(label_y > 0))
			continue;
		gd_time_label(&c->ta, i, lab, sizeof lab, date, sizeof date);
		fprintf(out, "<text class=\"xlab\" data-t=\"%.3f\" x=\"%.1f\" y=\"%.0f\">%s</text>", c->ta.t[i], x,
			label_y, lab);
		if (date[0])
			fprintf(out, "<text class=\"xdate\" x=\"%.1f\" y=\"%.0f\">%s</text>", x, label_y + 12, date);
	}
	fputc('\n', out);
}

static void value_ticks(const struct html_ctx *c, const struct frame *f)
{
	for (size_t i = 0; i < f->y.n; i++) {
		char lab[32];
		double y = yat(f, f->y.v[i]);

		fprintf(c->out, "<line class=\"grid\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>"
				"<text class=\"ylab\" data-v=\"%g\" x=\"%.0f\" y=\"%.1f\">%s</text>\n",
			HML, HW - HMR, y, y, f->y.v[i], HML - 6, y + 4, gd_axis_label(f->y.v[i], f->y.step, lab, sizeof lab));
	}
}

static void svg_open(const struct html_ctx *c, const char *chart, const char *extra, const struct frame *f)
{
	fprintf(c->out, "<svg class=\"chart\" data-chart=\"%s\"%s viewBox=\"0 0 %.0f %.0f\" "
			"xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n", chart, extra, HW, f->h);
}

/* One series as a path through each bin's min and max (in the order they
 * came), broken where samples are missing for longer than a few intervals. */
static void series_path(const struct html_ctx *c, size_t s, const struct frame *f, const char *name, const char *cls,
			const char *stroke)
{
	const struct gd_env *e = &c->env;
	double binw = (e->t1 - e->t0) / (double)e->nbins, prev_t = NAN, gap = 3 * c->dt + 2 * binw;
	size_t pts = 0;
	uint64_t n = 0;

	fprintf(c->out, "<path class=\"%s\" data-series=\"%s\"%s%s%s d=\"", cls, name, stroke ? " stroke=\"" : "",
		stroke ? stroke : "", stroke ? "\"" : "");
	for (size_t k = 0; k < e->nbins; k++) {
		const struct gd_env_bin *b = gd_env_bin(e, s, k);
		double tm, x;

		if (!b->n)
			continue;
		tm = b->tsum / b->n;
		x = xat(c, tm);
		fputc(isfinite(prev_t) && tm - prev_t <= gap ? 'L' : 'M', c->out);
		if (b->n == 1 || b->min == b->max) {
			fprintf(c->out, "%.1f %.1f", x, yat(f, b->n == 1 ? b->min : b->sum / b->n));
			pts++;
		} else {
			double a = b->min_first ? b->min : b->max, z = b->min_first ? b->max : b->min;

			fprintf(c->out, "%.1f %.1fV%.1f", x, yat(f, a), yat(f, z));
			pts += 2;
		}
		prev_t = tm;
		n += b->n;
	}
	if (!pts)
		fputs("M0 0", c->out);
	fprintf(c->out, "\" data-n=\"%llu\" data-pts=\"%zu\"/>\n", (unsigned long long)n, pts);
}

/* The last drawn value of a series and its position, for an end label. */
static bool series_end(const struct html_ctx *c, size_t s, double *t, double *v)
{
	for (size_t k = c->env.nbins; k-- > 0;) {
		const struct gd_env_bin *b = gd_env_bin(&c->env, s, k);

		if (b->n) {
			*t = b->tsum / b->n;
			*v = b->sum / b->n;
			return true;
		}
	}
	return false;
}

static void ep_title(FILE *out, const struct html_ctx *c, const struct gd_episode *ep)
{
	char g[96], when[40];

	fprintf(out, "<title>%s %s %s, %.1f s: ", gd_time_point(&c->ta, ep->start_s, when, sizeof when),
		gd_ep_gpus_str(ep->gpus, g, sizeof g), gd_html_kind(ep->kinds), ep->duration_s);
	gd_html_escape(out, ep->cause ? ep->cause : _("no finding explains it"));
	fputs("</title>", out);
}

static double ep_x0(const struct html_ctx *c, const struct gd_episode *ep)
{
	return fmax(HML, xat(c, ep->end_s - ep->duration_s));
}

/* A stretch of one GPU's own stalled samples within an episode that hit it:
 * what the GPU's lane, strip and detail charts mark (an episode of gpu0-7
 * that lasts an hour because gpu2 was slowed for the hour marks the other
 * GPUs only where they stalled themselves). */
struct run {
	double t0, t1;
	const struct gd_episode *ep;
};

typedef void run_fn(struct html_ctx *c, size_t k, const struct run *r, const void *arg);

static void run_emit(struct html_ctx *c, size_t k, double t0, double t1, run_fn *fn, const void *arg)
{
	const struct html_gpu *g = &c->gpu[k];

	GD_VEC_EACH(c->t->episodes->items, const struct gd_episode, ep) {
		struct run r = { t0, t1, ep };

		if (!(ep->gpus >> g->idx & 1) || t1 < ep->end_s - ep->duration_s || t0 > ep->end_s)
			continue;
		r.t0 = fmax(t0, ep->end_s - ep->duration_s);
		r.t1 = fmin(t1, ep->end_s);
		fn(c, k, &r, arg);
		return;
	}
}

static void gpu_runs(struct html_ctx *c, size_t k, run_fn *fn, const void *arg)
{
	const struct gd_env *e = &c->env;
	const struct html_gpu *g = &c->gpu[k];
	double binw = (e->t1 - e->t0) / (double)e->nbins, gap = 3 * c->dt + binw, r0 = 0, r1 = 0, last = -INFINITY;
	bool in = false;

	if (!c->t->th) {
		GD_VEC_EACH(c->t->episodes->items, const struct gd_episode, ep) {
			struct run r = { ep->end_s - ep->duration_s, ep->end_s, ep };

			if (ep->gpus >> g->idx & 1)
				fn(c, k, &r, arg);
		}
		return;
	}
	for (size_t b = 0; b < e->nbins; b++) {
		const struct gd_env_bin *x = gd_env_bin(e, html_gs(c, k, GS_STALL), b);
		double tm;

		if (!x->n) {
			if (in && e->t0 + binw * (double)b - last > gap) {
				run_emit(c, k, r0, r1, fn, arg);
				in = false;
			}
			continue;
		}
		tm = x->tsum / x->n;
		if (x->max > 0.5) {
			if (!in) {
				/* a sample stands for the interval before it */
				r0 = x->tmax - (x->n == 1 ? c->dt : 0);
				in = true;
			}
			r1 = x->min > 0.5 ? fmax(tm, fmin(e->t0 + binw * (double)(b + 1), c->ta.t1)) : x->tmax;
			last = tm;
		} else if (in) {
			run_emit(c, k, r0, r1, fn, arg);
			in = false;
		}
	}
	if (in)
		run_emit(c, k, r0, r1, fn, arg);
}

/* The first host finding (not a gpu.* rule) active during the episode: what
 * the host charts shade it for; NULL when none. */
static const char *host_cause(const struct gd_episode *ep)
{
	for (size_t i = 0; i < ep->nfindings; i++)
		if (strncmp(ep->findings[i].id, "gpu.", 4) != 0)
			return ep->findings[i].id;
	return NULL;
}

/* Cause labels above a chart, left out where they would overlap the one
 * before (a periodic stall over a day labels its first few). */
static void ep_labels(const struct html_ctx *c, const struct frame *f, uint64_t only_gpus, bool host)
{
	double next_free = 0;
	char g[96], lab[160];

	GD_VEC_EACH(c->t->episodes->items, const struct gd_episode, ep) {
		const char *cause = ep->cause;
		double x0 = ep_x0(c, ep);
		size_t len;

		if (only_gpus && !(ep->gpus & only_gpus))
			continue;
		if (host) {
			if (!(cause = host_cause(ep)))
				continue;
			snprintf(lab, sizeof lab, "%s", cause);
		} else if (only_gpus) {
			snprintf(lab, sizeof lab, "%s", cause ? cause : gd_html_kind(ep->kinds));
		} else {
			snprintf(lab, sizeof lab, "%s %s", gd_ep_gpus_str(ep->gpus, g, sizeof g),
				 cause ? cause : gd_html_kind(ep->kinds));
		}
		/* about 6.2 px a column at 11 px (a Chinese character takes two) */
		len = gd_utf8_width(lab);
		if (x0 < next_free)
			continue;
		if (x0 + (double)len * 6.2 > HW)
			x0 = HW - (double)len * 6.2;
		fprintf(c->out, "<text class=\"eplabel\" x=\"%.1f\" y=\"%.0f\">", x0 + 1, f->mt - 4);
		gd_html_escape(c->out, lab);
		fputs("</text>\n", c->out);
		next_free = x0 + (double)len * 6.2 + 8;
	}
}

struct run_style {
	const char *cls;
	double y, h;
};

static void run_rect(struct html_ctx *c, size_t k, const struct run *r, const void *arg)
{
	const struct run_style *st = arg;
	double x0 = fmax(HML, xat(c, r->t0)), x1 = xat(c, r->t1);

	fprintf(c->out, "<rect class=\"episode %s\" data-gpu=\"%u\" data-cause=\"%s\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"%.1f\">",
		st->cls, c->gpu[k].idx, r->ep->cause ? r->ep->cause : "none", x0, st->y, fmax(x1 - x0, 1.5), st->h);
	ep_title(c->out, c, r->ep);
	fputs("</rect>", c->out);
}

/* ---- the heat strips ---------------------------------------------------- */

/* Blues, idle (dark) .. busy (pale): a single hue that reads by lightness
 * alone, so every colour-vision type sees the dark stall; a healthy busy
 * GPU stays a calm pale row. */
static const char *const heat[] = { "#08306b", "#08468b", "#0d5aa6", "#1f6eb3", "#3282bf", "#4a95ca",
				    "#65a8d4", "#83badd", "#a2cbe5", "#bfdbed", "#dbe9f6" };

/* The heat colour of each bin of GPU k's strip (0..10, 11 lost, -1 none).
 * A sample stands for the interval before it (episodes.h), so a bin with
 * no sample of its own takes the colour of the next sample, when that one
 * came within a few intervals. */
static void strip_colours(const struct html_ctx *c, size_t k, int *cols)
{
	const struct gd_env *e = &c->env;
	double binw = (e->t1 - e->t0) / (double)e->nbins, gap = 3 * c->dt + binw, next_t = INFINITY;
	int next = -1;

	for (size_t b = e->nbins; b-- > 0;) {
		const struct gd_env_bin *w = gd_env_bin(e, html_gs(c, k, GS_WORK), b);
		const struct gd_env_bin *l = gd_env_bin(e, html_gs(c, k, GS_LOST), b);

		cols[b] = -1;
		if (w->n) {
			cols[b] = (int)lround(fmin(fmax(w->sum / w->n, 0), 100) / 10);
			next_t = w->tsum / w->n;
		} else if (l->n && l->max > 0) {
			cols[b] = 11;
			next_t = l->tsum / l->n;
		} else if (next >= 0 && next_t - (e->t0 + binw * (double)b) <= gap) {
			cols[b] = next;
		}
		if (w->n || (l->n && l->max > 0))
			next = cols[b];
		else if (cols[b] < 0)
			next = -1;
	}
}

void gd_html_strip(struct html_ctx *c)
{
	FILE *out = c->out;
	const double row = 22, lane = 4, top = 8;
	struct frame f = { .h = top + row * (double)c->ngpu + 30, .mt = top, .mb = 30 };
	const struct gd_env *e = &c->env;
	int cols[HBINS];

	fputs("<figure class=\"stripfig\"><figcaption>", out);
	/* a message of ours, no markup in it: written as it is (its apostrophe too) */
	if (c->live)
		fputs(_("Each GPU over the last minutes: how busy at full clock (the lower of utilisation and SM clock as a "
			"share of its maximum: dark is idle or slowed), its stalls marked beneath in orange, black where "
			"the GPU was lost.  A row links to the GPU's details."),
		      out);
	else
	fputs(_("Each GPU over the whole recording: how busy at full clock (the lower of utilisation and SM clock as a "
		"share of its maximum: dark is idle or slowed), its stalls marked beneath in orange, black where the GPU "
		"was lost.  A row links to the GPU's details."),
	      out);
	fputs(" <span class=\"scale\">0%", out);
	for (size_t i = 0; i < sizeof heat / sizeof heat[0]; i++)
		fprintf(out, "<i style=\"background:%s\"></i>", heat[i]);
	fputs("100%</span></figcaption>\n", out);
	svg_open(c, "strip", "", &f);
	time_ticks(c, &f, f.h - f.mb + 13);
	for (size_t k = 0; k < c->ngpu; k++) {
		const struct html_gpu *g = &c->gpu[k];
		double y = top + row * (double)k;
		size_t run0 = 0;
		int run_c = -2;

		fprintf(out, "<g class=\"striprow%s\" data-gpu=\"%u\"><a href=\"#gpu%u\">", g->hl ? " hl" : "", g->idx,
			g->idx);
		fprintf(out, "<title>gpu%u ", g->idx);
		gd_html_escape(out, g->name);
		if (g->why[0]) {
			fputs(": ", out);
			gd_html_escape(out, g->why);
		}
		fprintf(out, "</title><text class=\"rowlab%s\" x=\"4\" y=\"%.0f\"%s%s%s>gpu%u%s</text>", g->hl ? " hl" : "",
			y + 12, g->hl ? " fill=\"" : "", g->hl ? g->color : "", g->hl ? "\"" : "", g->idx,
			g->hl ? " \xe2\x97\x80" : "");
		strip_colours(c, k, cols);
		/* runs of one colour become one rect: a day in a few hundred */
		for (size_t b = 0; b <= e->nbins; b++) {
			int col = b < e->nbins ? cols[b] : -1;

			if (b < e->nbins && col == run_c)
				continue;
			if (run_c >= 0) {
				double x0 = HML + PW * (double)run0 / (double)e->nbins;
				double x1 = HML + PW * (double)b / (double)e->nbins;

				fprintf(out, "<rect class=\"heat%s\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\"/>",
					run_c == 11 ? " lost" : "", x0, y, x1 - x0 + 0.3, row - lane - 3,
					run_c == 11 ? "#000" : heat[run_c]);
				if (run_c == 11 && x1 - x0 > 40)
					fprintf(out, "<text class=\"lostin\" x=\"%.1f\" y=\"%.0f\">%s</text>", x0 + 4, y + 11,
						_("lost"));
			}
			run0 = b;
			run_c = col;
		}
		fputs("</a>\n", out);
		gpu_runs(c, k, run_rect, &(struct run_style){ "mark", y + row - lane - 2, lane });
		fputs("</g>\n", out);
	}
	fputs("</svg></figure>\n", out);
}

/* ---- the charts with every GPU ------------------------------------------ */

struct metric {
	const char *id, *title, *unit, *field;
	enum html_gs s;
	double lo, hi;            /* fixed range, or NAN: from the data */
};

/* Reference lines of a metric: one per distinct value over the GPUs. */
static void metric_refs(const struct html_ctx *c, const struct metric *m, const struct frame *f)
{
	double done[8];
	size_t nd = 0;

	for (size_t k = 0; k < c->ngpu; k++) {
		const struct html_gpu *g = &c->gpu[k];
		double v = m->s == GS_TEMP ? g->slow : m->s == GS_POWER ? g->limit : m->s == GS_MEM ? g->mem_total_gib
						       : NAN;
		/* TRANSLATORS: a reference line of a chart: the slowdown temperature, the power limit, the total memory */
		const char *what = m->s == GS_TEMP ? _("slowdown") : m->s == GS_POWER ? _("limit") : _("total");
		bool dup = false;

		if (!isfinite(v))
			continue;
		for (size_t i = 0; i < nd; i++)
			dup |= fabs(done[i] - v) < 0.5;
		if (dup || nd == 8)
			continue;
		done[nd++] = v;
		fprintf(c->out, "<line class=\"ref\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>"
				"<text class=\"reflab\" x=\"%.0f\" y=\"%.1f\">%s %.0f %s</text>\n",
			HML, HW - HMR, yat(f, v), yat(f, v), HW - HMR - 4, yat(f, v) + 12, what, v, m->unit);
	}
}

static void metric_range(const struct html_ctx *c, const struct metric *m, double *lo, double *hi)
{
	double a = INFINITY, z = -INFINITY;

	for (size_t k = 0; k < c->ngpu; k++) {
		double l, h;
		const struct html_gpu *g = &c->gpu[k];

		if (gd_env_range(&c->env, html_gs(c, k, m->s), &l, &h, NULL)) {
			a = fmin(a, l);
			z = fmax(z, h);
		}
		if (m->s == GS_TEMP && isfinite(g->slow))
			z = fmax(z, g->slow);
		if (m->s == GS_POWER && isfinite(g->limit))
			z = fmax(z, g->limit);
		if (m->s == GS_MEM && isfinite(g->mem_total_gib))
			z = fmax(z, g->mem_total_gib);
	}
	if (!isfinite(a)) {
		a = 0;
		z = 1;
	}
	/* temperatures start near the data, the rest from zero */
	*lo = m->s == GS_TEMP ? fmax(0, a - 5) : fmin(0, a);
	*hi = z;
}

/* Height of one GPU's stall lane under a metric chart: 4 units, 2 past 16
 * GPUs so that 64 lanes stay a strip. */
static double lane_pitch(const struct html_ctx *c)
{
	return c->ngpu > 16 ? 2 : 4;
}

static void gpu_group(struct html_ctx *c, size_t k, const struct metric *m, const struct frame *f, double lane_y)
{
	const struct html_gpu *g = &c->gpu[k];
	FILE *out = c->out;
	char name[48];
	double t, v;

	fprintf(out, "<g class=\"gpu %s\" data-gpu=\"%u\"%s%s%s><title>gpu%u ", g->hl ? "hl" : "quiet", g->idx,
		g->hl ? " style=\"--c:" : "", g->hl ? g->color : "", g->hl ? "\"" : "", g->idx);
	gd_html_escape(out, g->name);
	if (g->why[0]) {
		fputs(": ", out);
		gd_html_escape(out, g->why);
	}
	fputs("</title>\n", out);
	/* this GPU's part of the episodes: marks in its own lane under the plot */
	gpu_runs(c, k, run_rect, &(struct run_style){ "lane", lane_y + lane_pitch(c) * (double)k, lane_pitch(c) - 1 });
	if (g->lost) {
		double x = xat(c, g->lost_at);

		fprintf(out, "<line class=\"lostmark\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\"/>"
			     "<text class=\"lostlab\" x=\"%.1f\" y=\"%.0f\">",
			x, x, f->mt, f->h - f->mb, x + 4, (f->mt + f->h - f->mb) / 2 + 12.0 * (double)(k % 4));
		fprintf(out, _("gpu%u lost"), g->idx);
		fputs("</text>\n", out);
	}
	snprintf(name, sizeof name, "gpu%u.%s", g->idx, m->field);
	series_path(c, html_gs(c, k, m->s), f, name, "series", g->hl ? g->color : NULL);
	if (g->hl && series_end(c, html_gs(c, k, m->s), &t, &v))
		fprintf(out, "<text class=\"endlab\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\">gpu%u</text>\n", xat(c, t) + 4,
			yat(f, v) + 4, g->color, g->idx);
	fputs("</g>\n", out);
}

static void legend(const struct html_ctx *c)
{
	FILE *out = c->out;

	fprintf(out, "<div class=\"legend\">%s", _("GPUs (click to hide or show):"));
	for (size_t k = 0; k < c->ngpu; k++) {
		const struct html_gpu *g = &c->gpu[k];

		fprintf(out, " <label for=\"tog%u\" class=\"%s\" data-gpu=\"%u\"><i style=\"background:%s\"></i>gpu%u</label>",
			g->idx, g->hl ? "hl" : "quiet", g->idx, g->color, g->idx);
	}
	fprintf(out, " <span class=\"muted\">&#8212; %s</span></div>\n",
		_("grey: nothing stands out; coloured: see the strip above"));
}

void gd_html_metric_charts(struct html_ctx *c)
{
	static const struct metric metrics[] = {
		{ "util", N_("Utilisation"), "%", "util_gpu_pct", GS_UTIL, 0, 100 },
		{ "smclock", N_("SM clock, share of its maximum"), "%", "sm_clock_pct", GS_SMPCT, 0, 100 },
		{ "temp", N_("Temperature, against the slowdown temperature"), "\xc2\xb0""C", "temp_c", GS_TEMP, NAN, NAN },
		{ "power", N_("Power, against the limit"), "W", "power_w", GS_POWER, NAN, NAN },
		{ "pcie", N_("PCIe throughput, transmit + receive"), "MB/s", "pcie_mb_per_s", GS_PCIE, NAN, NAN },
		{ "mem", N_("Memory in use"), "GiB", "mem_used_gib", GS_MEM, NAN, NAN },
	};
	FILE *out = c->out;

	if (!c->ngpu)
		return;
	fprintf(out, "<section id=\"metrics\"><h2>%s</h2>\n", _("Every GPU, metric by metric"));
	legend(c);
	for (size_t i = 0; i < sizeof metrics / sizeof metrics[0]; i++) {
		const struct metric *m = &metrics[i];
		double lanes = c->t->episodes->items.n ? lane_pitch(c) * (double)c->ngpu + 4 : 0, lo, hi;
		struct frame f = { .mt = 18 };
		bool any = false;

		for (size_t k = 0; k < c->ngpu; k++)
			any |= gd_env_range(&c->env, html_gs(c, k, m->s), NULL, NULL, NULL);
		if (!any) {
			fprintf(out, "<p class=\"muted nodata\" data-chart=\"%s\">", m->id);
			gd_html_escape(out, _(m->title));
			fputs(_(": not in the recording (no GPU reported it)."), out);
			fputs("</p>\n", out);
			continue;
		}
		f.mb = 30 + lanes;
		f.h = 170 + lanes;
		metric_range(c, m, &lo, &hi);
		if (isfinite(m->lo)) {
			lo = m->lo;
			hi = m->hi;
		}
		gd_axis_nice(lo, hi, 4, &f.y);
		fprintf(out, "<figure class=\"metric\" id=\"m-%s\"><figcaption>", m->id);
		gd_html_escape(out, _(m->title));
		fprintf(out, " <span class=\"unit\">(%s)</span></figcaption>\n", m->unit);
		svg_open(c, m->id, "", &f);
		value_ticks(c, &f);
		time_ticks(c, &f, f.h - 30 + 13);
		if (c->t->episodes->items.n)
			fprintf(out, "<text class=\"lanelab\" x=\"%.0f\" y=\"%.0f\">%s</text>\n", HML - 6,
				f.h - f.mb + 3 + lanes / 2 + 4, _("stalls"));
		metric_refs(c, m, &f);
		ep_labels(c, &f, 0, false);
		/* quiet GPUs first, so the ones that stand out are drawn on top */
		for (int pass = 0; pass < 2; pass++)
			for (size_t k = 0; k < c->ngpu; k++)
				if (c->gpu[k].hl == (pass == 1))
					gpu_group(c, k, m, &f, f.h - f.mb + 3);
		fputs("</svg></figure>\n", out);
	}
	fputs("</section>\n", out);
}

/* ---- host charts and GPU details: a few series, episodes shaded -------- */

struct line {
	size_t s;
	const char *name, *label, *color;
};

static void small_chart(struct html_ctx *c, const char *chart, const char *title, const char *unit, double lo,
			double hi, const struct line *l, size_t nl, double ref, const char *ref_label, int gk, bool host)
{
	FILE *out = c->out;
	struct frame f = { .h = 130, .mt = 18, .mb = 30 };
	bool any = false;

	for (size_t i = 0; i < nl; i++) {
		double a, z;

		if (!gd_env_range(&c->env, l[i].s, &a, &z, NULL))
			continue;
		any = true;
		if (!isfinite(hi) || z > hi)
			hi = isfinite(hi) ? fmax(hi, z) : z;
	}
	if (isfinite(ref))
		hi = fmax(hi, ref);
	if (!isfinite(hi) || hi <= lo)
		hi = lo + 1;
	gd_axis_nice(lo, hi, 4, &f.y);
	fprintf(out, "<figure class=\"small\"><figcaption>");
	gd_html_escape(out, title);
	fprintf(out, " <span class=\"unit\">(%s)</span>", unit);
	for (size_t i = 0; i < nl; i++)
		fprintf(out, " <span class=\"key\"><i style=\"background:%s\"></i>%s</span>", l[i].color, _(l[i].label));
	if (!any)
		fprintf(out, " <span class=\"muted\">&#8212; %s</span>", _("not in the recording"));
	fputs("</figcaption>\n", out);
	svg_open(c, chart, "", &f);
	/* episodes first, under the lines: this GPU's part of those that hit
	 * it, or those a host finding explains */
	if (gk >= 0) {
		fprintf(out, "<g class=\"gpu\" data-gpu=\"%u\">", c->gpu[gk].idx);
		gpu_runs(c, (size_t)gk, run_rect, &(struct run_style){ "shade", f.mt, f.h - f.mt - f.mb });
		fputs("</g>\n", out);
	}
	GD_VEC_EACH(c->t->episodes->items, const struct gd_episode, ep) {
		const char *cause;
		double x0 = ep_x0(c, ep), x1 = xat(c, ep->end_s);

		if (!host || !(cause = host_cause(ep)))
			continue;
		fprintf(out, "<rect class=\"episode shade\" data-host=\"1\" data-cause=\"%s\" x=\"%.1f\" y=\"%.0f\" "
			     "width=\"%.1f\" height=\"%.0f\">",
			cause, x0, f.mt, fmax(x1 - x0, 1.5), f.h - f.mt - f.mb);
		ep_title(out, c, ep);
		fputs("</rect>\n", out);
	}
	value_ticks(c, &f);
	time_ticks(c, &f, f.h - f.mb + 17);
	ep_labels(c, &f, gk >= 0 ? 1ull << c->gpu[gk].idx : 0, host);
	if (isfinite(ref))
		fprintf(out, "<line class=\"ref\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			     "<text class=\"reflab\" x=\"%.0f\" y=\"%.1f\">%s</text>\n",
			HML, HW - HMR, yat(&f, ref), yat(&f, ref), HW - HMR - 4, yat(&f, ref) + 12, ref_label);
	for (size_t i = 0; i < nl; i++)
		series_path(c, l[i].s, &f, l[i].name, "series", l[i].color);
	fputs("</svg></figure>\n", out);
}

void gd_html_host_charts(struct html_ctx *c)
{
	/* TRANSLATORS: the keys of the host charts' lines */
	const struct line cpu[] = { { html_hs(c, HS_CPU), "host:cpu_busy_pct", N_("busy"), "#0072b2" },
				    { html_hs(c, HS_IOWAIT), "host:iowait_pct", "iowait", "#d55e00" } };
	const struct line psi[] = { { html_hs(c, HS_PSI_CPU), "host:psi_cpu_some_pct", "cpu", "#0072b2" },
				    { html_hs(c, HS_PSI_IO), "host:psi_io_some_pct", "io", "#d55e00" },
				    { html_hs(c, HS_PSI_MEM), "host:psi_memory_some_pct", "memory", "#cc79a7" } };
	const struct line disk[] = { { html_hs(c, HS_DISK_R), "host:disk_read_mb_per_s", N_("read"), "#009e73" },
				     { html_hs(c, HS_DISK_W), "host:disk_write_mb_per_s", N_("write"), "#d55e00" } };
	const struct line net[] = { { html_hs(c, HS_NET_RX), "host:net_rx_mb_per_s", N_("received"), "#56b4e9" },
				    { html_hs(c, HS_NET_TX), "host:net_tx_mb_per_s", N_("sent"), "#cc79a7" } };
	const struct line mem[] = { { html_hs(c, HS_MEM), "host:mem_used_pct", N_("in use (not available)"), "#0072b2" } };

	fprintf(c->out, "<section class=\"host\" id=\"host\"><h2>%s</h2>\n<p class=\"muted\">%s</p>\n",
		_("Host, on the same time axis"), _("Shaded: the stall episodes a host finding explains."));
	small_chart(c, "host", "CPU", "%", 0, 100, cpu, 2, NAN, "", -1, true);
	small_chart(c, "host", _("Pressure stall (PSI some, 10 s average)"), "%", 0, NAN, psi, 3, NAN, "", -1, true);
	small_chart(c, "host", _("Disk I/O (whole disks)"), "MB/s", 0, NAN, disk, 2, NAN, "", -1, true);
	small_chart(c, "host", _("Network (all but lo)"), "MB/s", 0, NAN, net, 2, NAN, "", -1, true);
	small_chart(c, "host", _("Memory"), "%", 0, 100, mem, 1, NAN, "", -1, true);
	fputs("</section>\n", c->out);
}

void gd_html_gpu_details(struct html_ctx *c, size_t k)
{
	const struct html_gpu *g = &c->gpu[k];
	char id[16], n[4][48], ref[3][48];

	snprintf(id, sizeof id, "gpu%u", g->idx);
	snprintf(n[0], sizeof n[0], "gpu%u.util_gpu_pct", g->idx);
	snprintf(n[1], sizeof n[1], "gpu%u.sm_clock_mhz", g->idx);
	snprintf(n[2], sizeof n[2], "gpu%u.temp_c", g->idx);
	snprintf(n[3], sizeof n[3], "gpu%u.power_w", g->idx);
	snprintf(ref[0], sizeof ref[0], _("maximum %.0f MHz"), g->smmax);
	snprintf(ref[1], sizeof ref[1], _("slowdown %.0f \xc2\xb0""C"), g->slow);
	snprintf(ref[2], sizeof ref[2], _("limit %.0f W"), g->limit);
	{
		/* TRANSLATORS: the keys of a GPU's detail charts */
		struct line u = { html_gs(c, k, GS_UTIL), n[0], N_("utilisation"), g->color };
		struct line s = { html_gs(c, k, GS_SMMHZ), n[1], "SM clock", g->color };
		struct line t = { html_gs(c, k, GS_TEMP), n[2], N_("temperature"), g->color };
		struct line p = { html_gs(c, k, GS_POWER), n[3], N_("power"), g->color };
		double tlo = NAN;

		gd_env_range(&c->env, html_gs(c, k, GS_TEMP), &tlo, NULL, NULL);
		small_chart(c, id, _("Utilisation"), "%", 0, 100, &u, 1, NAN, "", (int)k, false);
		small_chart(c, id, _("SM clock"), "MHz", 0, NAN, &s, 1, g->smmax, ref[0], (int)k, false);
		small_chart(c, id, _("Temperature"), "\xc2\xb0""C", isfinite(tlo) ? fmax(0, tlo - 5) : 0, NAN, &t, 1,
			    g->slow, ref[1], (int)k, false);
		small_chart(c, id, _("Power"), "W", 0, NAN, &p, 1, g->limit, ref[2], (int)k, false);
	}
}
