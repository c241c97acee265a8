/*
 * out_timeline.c - a recording for a terminal (report --text) and for
 * scripts (report --json): per-GPU summary, episodes, period, findings.
 *
 *   gpudoctor report · host gpu-a17 · 40 samples over 39.0 s · from run.jsonl
 *   gpu0 NVIDIA H100 80GB HBM3: utilisation mean 71% (min 2%), SM clock min 1980 MHz,
 *        temperature max 45 °C, power max 351 W; 3 episodes, 24.0 s stalled
 *   episodes: 3, every 15.0 s (±1.0 s)
 *     22:13:24 +6.0 s gpu0-1 idle - io.checkpoint_stall: Every GPU was idle ...
 *   (then the findings as `check` prints them)
 */
#include "output/timeline.h"

#include <math.h>
#include <string.h>

#include "core/i18n.h"
#include "core/printable.h"
#include "model/snapshot_json.h"
#include "output/output.h"
#include "output/report_util.h"

static double span(const struct gd_window *w)
{
	const struct gd_snapshot *a = gd_window_first(w), *b = gd_window_last(w);

	return a && b && a->host.uptime_s.ok && b->host.uptime_s.ok ? b->host.uptime_s.v - a->host.uptime_s.v : 0;
}

static const struct gd_ep_gpu *ep_gpu(const struct gd_episodes *e, unsigned idx)
{
	GD_VEC_EACH(e->gpus, const struct gd_ep_gpu, g)
		if (g->index == idx)
			return g;
	return NULL;
}

static void gpu_summary(FILE *out, const struct gd_timeline *t, unsigned idx)
{
	const struct gd_tl_gpu *x = gd_tl_acc_gpu(t->acc, idx);
	const struct gd_ep_gpu *eg = ep_gpu(t->episodes, idx);

	struct gd_pr pr = { 0 };

	if (!x)
		return;
	fprintf(out, "gpu%u %s:", idx, gd_pr(&pr, x->name));   /* text from outside: core/printable.h */
	gd_pr_release(&pr);
	if (x->un)
		fprintf(out, _(" utilisation mean %.0f%% (min %.0f%%),"), x->usum / (double)x->un, x->umin);
	if (isfinite(x->smmin))
		fprintf(out, _(" SM clock min %.0f MHz,"), x->smmin);
	if (isfinite(x->tmax))
		fprintf(out, _(" temperature max %.0f °C,"), x->tmax);
	if (isfinite(x->pmax))
		fprintf(out, _(" power max %.0f W,"), x->pmax);
	if (eg)
		fprintf(out, P_(" %zu episode, %.1f s stalled", " %zu episodes, %.1f s stalled", eg->episodes), eg->episodes,
			eg->stalled_s);
	fputc('\n', out);
}

static void timeline_text(FILE *out, const struct gd_timeline *t, bool color)
{
	const struct gd_window *w = t->w;
	const struct gd_snapshot *last = gd_window_last(w);
	const struct gd_episodes *e = t->episodes;
	uint64_t seen = gd_tl_acc_seen(t->acc);
	char line[1024];
	struct gd_report r = { w, t->findings, color, t->origin, t->samples };
	struct gd_pr pr = { 0 };   /* every string from outside goes through P (core/printable.h) */

#define P(s) gd_pr(&pr, (s))
	fprintf(out, _("gpudoctor report · host %s · %zu samples over %.1f s"),
		last && last->host.hostname[0] ? P(last->host.hostname) : "?", t->samples, span(w));
	if (t->origin)
		fprintf(out, _(" · from %s"), P(t->origin));
	fputc('\n', out);
	if (!seen) {
		const char *st = last && last->nvml.status[0] ? last->nvml.status : _("not read");

		if (last && last->nvml.reason[0])
			fprintf(out, _("no GPU in the recording (NVML %s: %s)\n"), P(st), P(last->nvml.reason));
		else
			fprintf(out, _("no GPU in the recording (NVML %s)\n"), P(st));
	}
	for (unsigned g = 0; g < GD_EP_MAX_GPUS; g++)
		if (seen >> g & 1)
			gpu_summary(out, t, g);
	fprintf(out, _("episodes: %zu"), e->items.n);
	if (e->periodic)
		/* TRANSLATORS: the rule id that causes the episodes (or "all"), their period and its deviation */
		fprintf(out, _(", %s every %.1f s (±%.1f s)"), e->period_cause ? e->period_cause : _("all"), e->period_s,
			e->period_dev_s);
	fputc('\n', out);
	GD_VEC_EACH(e->items, const struct gd_episode, ep) {
		fprintf(out, "  %s\n", P(gd_episode_format(ep, line, sizeof line)));
		if (ep->nfindings > 1) {
			fputs("    ", out);
			fputs(_("during it:"), out);
			for (size_t i = 0; i < ep->nfindings; i++)
				fprintf(out, "%s %s (%s)", i ? "," : "", P(ep->findings[i].id), P(ep->findings[i].subject));
			fputc('\n', out);
		}
	}
	fputc('\n', out);
#undef P
	gd_pr_release(&pr);
	gd_out_text(out, &r);
}

struct timeline_arg {
	const struct gd_timeline *t;
	bool color;
};

static void timeline_fn(FILE *out, const void *arg)
{
	const struct timeline_arg *a = arg;

	timeline_text(out, a->t, a->color);
}

void gd_out_timeline_text(FILE *out, const struct gd_timeline *t, bool color)
{
	struct timeline_arg a = { t, color };

	/* Chinese: wrapped at 80 columns as check's report */
	gd_text_out(out, timeline_fn, &a);
}

json_t *gd_out_timeline_json(const struct gd_timeline *t)
{
	const struct gd_episodes *e = t->episodes;
	struct gd_report r = { t->w, t->findings, false, t->origin, t->samples };
	json_t *doc = json_object(), *eps = json_array(), *gpus = json_array();

	json_object_set_new(doc, "samples", json_integer((json_int_t)t->samples));
	json_object_set_new(doc, "span_s", json_real(span(t->w)));
	GD_VEC_EACH(e->items, const struct gd_episode, ep) {
		json_t *o = json_object(), *g = json_array(), *f = json_array();

		json_object_set_new(o, "start_uptime_s", json_real(ep->start_s));
		json_object_set_new(o, "start_wall_s", ep->start_wall_s.ok ? json_real(ep->start_wall_s.v) : json_null());
		json_object_set_new(o, "end_uptime_s", json_real(ep->end_s));
		json_object_set_new(o, "duration_s", json_real(ep->duration_s));
		for (unsigned b = 0; b < GD_EP_MAX_GPUS; b++)
			if (ep->gpus >> b & 1)
				json_array_append_new(g, json_integer(b));
		json_object_set_new(o, "gpus", g);
		json_object_set_new(o, "kind", json_string(gd_ep_kind_str(ep->kinds)));
		json_object_set_new(o, "open", json_boolean(ep->open));
		json_object_set_new(o, "cause", ep->cause ? json_string(ep->cause) : json_null());
		for (size_t i = 0; i < ep->nfindings; i++) {
			json_t *x = json_object();

			json_object_set_new(x, "id", json_string(ep->findings[i].id));
			json_object_set_new(x, "severity", json_string(gd_severity_name(ep->findings[i].severity)));
			json_object_set_new(x, "subject", gd_json_str(ep->findings[i].subject));
			json_object_set_new(x, "summary", gd_json_str(ep->findings[i].summary));
			json_array_append_new(f, x);
		}
		json_object_set_new(o, "findings", f);
		json_array_append_new(eps, o);
	}
	json_object_set_new(doc, "episodes", eps);
	json_object_set_new(doc, "periodic", json_boolean(e->periodic));
	json_object_set_new(doc, "period_s", e->periodic ? json_real(e->period_s) : json_null());
	json_object_set_new(doc, "period_cause", e->period_cause ? json_string(e->period_cause) : json_null());
	GD_VEC_EACH(e->gpus, const struct gd_ep_gpu, g) {
		json_t *o = json_object();

		json_object_set_new(o, "index", json_integer(g->index));
		json_object_set_new(o, "episodes", json_integer((json_int_t)g->episodes));
		json_object_set_new(o, "stalled_s", json_real(g->stalled_s));
		json_array_append_new(gpus, o);
	}
	json_object_set_new(doc, "gpus", gpus);
	json_object_set_new(doc, "diagnosis", gd_out_json(&r));
	return doc;
}
