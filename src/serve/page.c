/*
 * page.c - the node's own page, GET / of `gpudoctor serve`: the report's
 * HTML (out_html.c, gd_out_html_page) over the last --page-window of this
 * node, with the verdict and findings of now.
 *
 * What it keeps (the collector thread's own, struct gd_page): the series it
 * draws as sliding min/max envelopes (gd_tl_acc_new_sliding: PAGE_BINS bins
 * over the window, per series used: 8 bytes a bin, 2.4 KB a series,
 * whatever the uptime; no snapshot is kept beyond serve's window), and the
 * stall episodes of that span (at most PAGE_EPISODES; an episode is two or
 * more consecutive stalled samples of a GPU holding a job's context, as
 * serve's counters count them; its cause the most severe warning or
 * critical finding of a cycle during it, registry order within a
 * severity).  With --no-page none of it exists.
 *
 * When it is drawn: only when asked.  A request for / (or /?lang=) marks
 * its language asked for (gd_server.page_asked_ms, atomic); while that mark
 * is younger than PAGE_KEEP_S the collector thread draws the page once per
 * cycle, after publishing the metrics, and publishes it as a reference-
 * counted block like /metrics (with its gzip member); past it the page is
 * dropped.  The first request finds none: it wakes the collector
 * (page_kick), which draws it from the current window at once, and is
 * answered with a short page that reloads itself in a second.  The other
 * language's page is drawn with gettext switched, as /findings?lang= is
 * (serve.h), the rules run again over the window for its texts.
 *
 * The HTTP thread (gd_http_page) only copies the latest block, or, when
 * the result is stale, answers 503 with a short page saying what /healthz
 * says (in English, as /healthz does) after a sentence translated before
 * the threads started.  Nothing of
 * the request goes into any page: the language is one of two constants.
 */
#include "serve/serve.h"
#include "serve/gz.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "output/output.h"
#include "output/timeline.h"
#include "rules/episodes.h"
#include "rules/rule.h"

#define PAGE_BINS 301           /* 2 s bins over 10 minutes */
#define PAGE_EPISODES 64
#define PAGE_KEEP_S 60.0

struct gd_page {
	struct gd_tl_acc *acc;
	struct gd_episodes eps;   /* time order; the last one open while eps_open */
	bool eps_open;
	int cause_sev;            /* the open episode's cause's severity */
	double window_s;
};

struct gd_page *gd_page_new(const struct gd_serve_opts *o)
{
	struct gd_page *pg;

	if (o->no_page)
		return NULL;
	pg = gd_xcalloc(1, sizeof *pg);
	pg->window_s = o->page_window_s > 0 ? o->page_window_s : GD_SERVE_PAGE_WINDOW_S;
	pg->acc = gd_tl_acc_new_sliding(o->th, pg->window_s, PAGE_BINS);
	if (!pg->acc) {
		free(pg);
		return NULL;
	}
	gd_episodes_init(&pg->eps);
	return pg;
}

void gd_page_free(struct gd_page *pg)
{
	if (!pg)
		return;
	gd_tl_acc_free(pg->acc);
	gd_episodes_release(&pg->eps);
	free(pg);
}

/* Drops the episodes that ended before the span, or past PAGE_EPISODES. */
static void eps_expire(struct gd_page *pg, double now)
{
	size_t drop = 0, n = pg->eps.items.n;

	while (drop < n) {
		const struct gd_episode *ep = GD_VEC_AT(pg->eps.items, struct gd_episode, drop);

		if (n - drop <= PAGE_EPISODES && (ep->open || ep->end_s >= now - pg->window_s))
			break;
		drop++;
	}
	if (!drop)
		return;
	memmove(pg->eps.items.items, GD_VEC_AT(pg->eps.items, struct gd_episode, drop),
		(n - drop) * sizeof(struct gd_episode));
	pg->eps.items.n -= drop;
}

/* Adds the cycle's warning and critical findings to the open episode. */
static void eps_findings(struct gd_page *pg, struct gd_episode *ep, const struct gd_findings *f)
{
	GD_VEC_EACH(f->items, const struct gd_finding, x) {
		bool have = false;

		if (x->severity < GD_SEV_WARNING)
			continue;
		if (!ep->cause || (int)x->severity > pg->cause_sev) {
			ep->cause = x->id;
			pg->cause_sev = (int)x->severity;
		}
		for (size_t i = 0; i < ep->nfindings; i++)
			have = have || (strcmp(ep->findings[i].id, x->id) == 0 &&
					strcmp(ep->findings[i].subject, x->subject) == 0);
		if (have || ep->nfindings == GD_EP_MAX_FINDINGS)
			continue;
		ep->findings[ep->nfindings].id = x->id;
		ep->findings[ep->nfindings].severity = x->severity;
		GD_STRSET(ep->findings[ep->nfindings].subject, x->subject);
		GD_STRSET(ep->findings[ep->nfindings].summary, x->summary);
		ep->nfindings++;
	}
}

void gd_page_track(struct gd_page *pg, const struct gd_server *srv, const struct gd_window *w,
		   const struct gd_findings *f)
{
	const struct gd_snapshot *now = gd_window_last(w);
	const struct gd_snapshot *prev = w->n >= 2 ? w->snaps[w->n - 2] : NULL;
	double t;
	uint64_t gpus = 0;
	unsigned kinds = 0;
	struct gd_episode *ep;

	if (!pg || !now)
		return;
	gd_tl_acc_add(pg->acc, prev, now);
	if (!now->host.uptime_s.ok)
		return;
	t = now->host.uptime_s.v;
	GD_VEC_EACH(now->gpus, const struct gd_gpu, g) {
		if (!g->index.ok || g->index.v >= 64 || srv->stall[g->index.v].run < 2)
			continue;
		gpus |= 1ull << g->index.v;
		kinds |= (unsigned)gd_gpu_stall_state(now, g, srv->opts->th);
	}
	if (!gpus) {
		if (pg->eps_open)
			GD_VEC_AT(pg->eps.items, struct gd_episode, pg->eps.items.n - 1)->open = false;
		pg->eps_open = false;
		eps_expire(pg, t);
		return;
	}
	if (!pg->eps_open) {
		/* two stalled samples so far: from the interval before the first */
		ep = gd_vec_push(&pg->eps.items, sizeof *ep);
		ep->start_s = t - 2 * srv->interval_s;
		if (prev && prev->host.uptime_s.ok)
			ep->start_s = prev->host.uptime_s.v - srv->interval_s;
		if (now->host.wall_time_s.ok)
			gd_f64_set(&ep->start_wall_s, now->host.wall_time_s.v - (t - ep->start_s));
		pg->eps_open = true;
		pg->cause_sev = 0;
	}
	ep = GD_VEC_AT(pg->eps.items, struct gd_episode, pg->eps.items.n - 1);
	ep->open = true;
	ep->end_s = t;
	ep->duration_s = t - ep->start_s;
	ep->gpus |= gpus;
	ep->kinds |= kinds;
	eps_findings(pg, ep, f);
	eps_expire(pg, t);
}

static bool page_wanted(struct gd_server *srv, int slot)
{
	long long asked = atomic_load(&srv->page_asked_ms[slot]);

	return asked && gd_serve_mono_now() * 1000 - (double)asked <= PAGE_KEEP_S * 1000.0;
}

/* Draws the page over window w in the language gettext speaks now. */
static struct gd_published *page_render(struct gd_server *srv, const struct gd_window *w, bool zh)
{
	struct gd_published *p = gd_xcalloc(1, sizeof *p);
	const struct gd_snapshot *last = gd_window_last(w);
	const struct gd_snapshot *ends[2] = { last, last };
	struct gd_window w1 = { ends, 1 };
	struct gd_findings f;
	struct gd_html_page hp = { fmax(2, srv->interval_s), 0, zh ? "/?lang=en" : "/?lang=zh_CN",
				   zh ? "English" : "\xe4\xb8\xad\xe6\x96\x87" };
	struct gd_timeline t = { &w1, 0, srv->page->acc, &f, &srv->page->eps, NULL, srv->opts->th };
	FILE *m;

	pthread_mutex_lock(&srv->lock);
	hp.cycle = (unsigned long long)srv->cycles;
	pthread_mutex_unlock(&srv->lock);
	t.samples = w->n;
	gd_findings_init(&f);
	gd_engine_run(w, srv->opts->th, &f);
	m = open_memstream(&p->metrics, &p->metrics_len);
	if (!m) {
		fputs(_("gpudoctor: out of memory (open_memstream)\n"), stderr);
		abort();
	}
	gd_out_html_page(m, &t, &hp);
	if (fclose(m) != 0) {
		fputs(_("gpudoctor: out of memory rendering the page\n"), stderr);
		abort();
	}
	gd_findings_release(&f);
	p->metrics_gz = gd_gz_member(p->metrics, p->metrics_len, 6, 12, 5, &p->metrics_gz_len);
	p->mono_s = gd_serve_mono_now();
	return p;
}

void gd_page_cycle(struct gd_server *srv, const struct gd_window *w, uint64_t cycle, bool kicked)
{
	if (!srv->page)
		return;
	for (int slot = 0; slot < 2; slot++) {
		struct gd_published *p = NULL, *old;
		bool missing, fresh_enough;

		pthread_mutex_lock(&srv->lock);
		missing = srv->alt_missing;
		fresh_enough = srv->pages[slot] && srv->page_cycle[slot] == cycle;
		pthread_mutex_unlock(&srv->lock);
		if (!page_wanted(srv, slot) || (slot == 1 && missing)) {
			p = NULL;  /* unused: dropped */
		} else if (fresh_enough || (kicked && srv->pages[slot])) {
			continue;  /* at most once a cycle; a kick draws only what is missing */
		} else if (slot == 0) {
			p = page_render(srv, w, strcmp(srv->lang, "zh_CN") == 0);
		} else {
			pthread_mutex_lock(&srv->i18n_lock);
			if (gd_i18n_use(srv->alt_lang) == 0)
				p = page_render(srv, w, strcmp(srv->alt_lang, "zh_CN") == 0);
			gd_i18n_use(srv->lang);
			pthread_mutex_unlock(&srv->i18n_lock);
		}
		if (p)
			p->refs = 1;
		pthread_mutex_lock(&srv->lock);
		old = srv->pages[slot];
		srv->pages[slot] = p;
		srv->page_cycle[slot] = cycle;
		if (old && --old->refs)
			old = NULL;
		pthread_mutex_unlock(&srv->lock);
		gd_published_free(old);
	}
}

void gd_page_stale_formats(struct gd_server *srv)
{
	for (int slot = 0; slot < 2; slot++) {
		if (gd_i18n_use(slot ? srv->alt_lang : srv->lang) < 0)
			continue;
		/* TRANSLATORS: the node page when its data is withdrawn; /healthz's English words follow */
		snprintf(srv->page_stale_msg[slot], sizeof srv->page_stale_msg[slot], "%s",
			 _("The diagnosis is withdrawn: no collection cycle finished within its deadline."));
		snprintf(srv->page_wait_msg[slot], sizeof srv->page_wait_msg[slot], "%s",
			 _("Drawing the page: it appears in a second."));
		snprintf(srv->page_none_msg[slot], sizeof srv->page_none_msg[slot], "%s",
			 _("no sample yet: the first collection cycle has not finished"));
	}
	gd_i18n_use(srv->lang);
}

/* A short page of the HTTP thread: one message, reloading itself. */
static char *short_page(const char *lang, const char *cls, const char *msg, double refresh_s, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);

	if (!m)
		abort();
	fprintf(m, "<!DOCTYPE html>\n<html lang=\"%s\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
		   "content=\"width=device-width,initial-scale=1\"><noscript><meta http-equiv=\"refresh\" content=\"%.0f\">"
		   "</noscript><title>gpudoctor</title><style>body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;"
		   "padding:12px 20px;max-width:1680px}.verdict{font-size:17px;font-weight:600;padding:6px 10px;"
		   "border-left:6px solid #d55e00;background:#fdf1ea}.verdict.wait{border-color:#0072b2;"
		   "background:#f2f6fa}</style></head><body data-refresh=\"%.0f\"><main><h1>gpudoctor</h1>"
		   "<p class=\"verdict %s\">",
		lang, refresh_s, refresh_s, cls);
	gd_html_escape(m, msg);
	fprintf(m, "</p><p><a href=\"/metrics\">/metrics</a> &#183; <a href=\"/findings\">/findings</a> &#183; "
		   "<a href=\"/healthz\">/healthz</a></p></main><script>%s</script></body></html>\n",
		gd_html_page_script);
	if (fclose(m) != 0)
		abort();
	return buf;
}

char *gd_http_page(struct gd_server *srv, const char *want, bool gzip, unsigned *code, size_t *len, bool *gzipped,
		   const char **lang)
{
	int slot = want && strcmp(want, srv->lang) != 0 ? 1 : 0;
	double age;
	struct gd_published *cur, *p;
	bool missing, fresh;
	char msg[400], *buf;
	const char *hl;

	pthread_mutex_lock(&srv->lock);
	missing = srv->alt_missing;
	pthread_mutex_unlock(&srv->lock);
	if (slot == 1 && missing)
		slot = 0;
	*lang = hl = strcmp(slot ? srv->alt_lang : srv->lang, "zh_CN") == 0 ? "zh-CN" : "en";
	*gzipped = false;
	atomic_store(&srv->page_asked_ms[slot], (long long)(gd_serve_mono_now() * 1000) + 1);
	cur = gd_serve_acquire(srv, &age);
	fresh = gd_serve_fresh(srv, cur, age);
	gd_serve_release(srv, cur);
	if (!fresh) {
		*code = 503;
		/* what /healthz says, after it in the page's language */
		if (cur)
			snprintf(msg, sizeof msg, "%s (stale: the last sample is %.1f s old, deadline %g s)",
				 srv->page_stale_msg[slot], age, srv->deadline_s);
		else
			snprintf(msg, sizeof msg, "%s (no sample yet)", srv->page_none_msg[slot]);
		return short_page(hl, "stale", msg, fmax(2, srv->interval_s), len);
	}
	pthread_mutex_lock(&srv->lock);
	p = srv->pages[slot];
	if (p)
		p->refs++;
	else if (!srv->page_kick) {
		srv->page_kick = true;
		pthread_cond_broadcast(&srv->wake);
	}
	pthread_mutex_unlock(&srv->lock);
	if (!p) {
		*code = 200;
		return short_page(hl, "wait", srv->page_wait_msg[slot], 1, len);
	}
	*code = 200;
	if (gzip && p->metrics_gz) {
		buf = gd_xmalloc(p->metrics_gz_len);
		memcpy(buf, p->metrics_gz, p->metrics_gz_len);
		*len = p->metrics_gz_len;
		*gzipped = true;
	} else {
		buf = gd_xmalloc(p->metrics_len + 1);
		memcpy(buf, p->metrics, p->metrics_len);
		*len = p->metrics_len;
	}
	gd_serve_release(srv, p);
	return buf;
}
