/*
 * episodes.c - stall episodes over a series of snapshots: detection, the
 * findings active during each, and periodicity.  See episodes.h for the
 * definition and a worked example; thresholds are the "episodes" rows of
 * thresholds.def (idle_pct 10%, slow_clock_pct 80% = "SM clock >= 20% under
 * its max", min_samples 2, periodic_min 3, period_tolerance_pct 10%).
 *
 * Why these numbers: a GPU that runs a job's kernels reads well above 10%
 * utilisation in every NVML sample period; below it the GPU waits for
 * something (input, a checkpoint, a collective).  Boost clocks sit within a
 * few percent of the maximum under load; 20% under it is thermal or power
 * throttling, or clocks held low.  One sample alone is noise (a step
 * boundary); two in a row are a stall.  Checkpoints and evaluations repeat
 * every N steps, so their gaps agree to within the sampling interval.
 */
#include "rules/episodes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/i18n.h"
#include "rules/rule_gpu_pci.h"

#define TH(th, name) ((th)->v[GD_TH_##name])

void gd_episodes_init(struct gd_episodes *e)
{
	memset(e, 0, sizeof *e);
}

void gd_episodes_release(struct gd_episodes *e)
{
	if (!e)
		return;
	gd_vec_release(&e->items);
	gd_vec_release(&e->gpus);
	gd_episodes_init(e);
}

bool gd_gpu_in_use(const struct gd_snapshot *s, const struct gd_gpu *g, const struct gd_thresholds *th)
{
	enum gpci_use u = gpci_users(s, g, TH(th, GPU_IDLE_UNSEEN_MEM_BYTES)).use;

	return u == GPCI_LISTED || u == GPCI_UNSEEN;
}

enum gd_ep_state gd_gpu_stall_state(const struct gd_snapshot *s, const struct gd_gpu *g,
				    const struct gd_thresholds *th)
{
	if ((g->lost.ok && g->lost.v) || !g->util_gpu_pct.ok || !gd_gpu_in_use(s, g, th))
		return GD_EP_NONE;
	if ((double)g->util_gpu_pct.v < TH(th, EPISODES_IDLE_PCT))
		return GD_EP_IDLE;
	if (g->sm_clock_mhz.ok && g->sm_clock_max_mhz.ok && g->sm_clock_max_mhz.v > 0 &&
	    (double)g->sm_clock_mhz.v < TH(th, EPISODES_SLOW_CLOCK_PCT) / 100.0 * (double)g->sm_clock_max_mhz.v)
		return GD_EP_SLOW;
	return GD_EP_NONE;
}

static bool up(const struct gd_window *w, size_t i, double *t)
{
	const struct gd_snapshot *s = w->snaps[i];

	if (!s->host.uptime_s.ok)
		return false;
	*t = s->host.uptime_s.v;
	return true;
}

double gd_ep_span(const struct gd_window *w, size_t a, size_t b)
{
	double ta, tb, tn, step = 0;

	if (a > b || b >= w->n || !up(w, a, &ta) || !up(w, b, &tb) || tb < ta)
		return 0;
	if (a > 0 && up(w, a - 1, &tn) && tn < ta)
		step = ta - tn;
	else if (a + 1 < w->n && up(w, a + 1, &tn) && tn > ta)
		step = tn - ta;
	return tb - ta + step;
}

const char *gd_ep_gpus_str(uint64_t mask, char *buf, size_t size)
{
	size_t len = 0;
	int i = 0;

	buf[0] = '\0';
	while (i < GD_EP_MAX_GPUS) {
		int j;

		if (!(mask >> i & 1)) {
			i++;
			continue;
		}
		for (j = i; j + 1 < GD_EP_MAX_GPUS && (mask >> (j + 1) & 1); j++)
			;
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, j > i ? "%s%d-%d" : "%s%d", len ? "," : "gpu", i, j);
		i = j + 1;
	}
	if (!len)
		snprintf(buf, size, "no GPU");
	return buf;
}

/* The kind as JSON writes it (an enum value, never translated): N_() marks
 * it for the line gd_episode_format writes, which translates it. */
const char *gd_ep_kind_str(unsigned kinds)
{
	if ((kinds & GD_EP_IDLE) && (kinds & GD_EP_SLOW))
		/* TRANSLATORS: an episode's kind: its GPUs were idle, or slowed (low clocks), or both */
		return N_("idle+slowed");
	return (kinds & GD_EP_SLOW) ? N_("slowed") : N_("idle");
}

const char *gd_episode_format(const struct gd_episode *ep, char *buf, size_t size)
{
	char when[32], gpus[96];
	size_t len;

	if (ep->start_wall_s.ok) {
		time_t t = (time_t)ep->start_wall_s.v;
		struct tm tm;

		if (localtime_r(&t, &tm))
			strftime(when, sizeof when, "%H:%M:%S", &tm);
		else
			/* TRANSLATORS: when an episode began: seconds since boot */
			snprintf(when, sizeof when, _("up %.1f s"), ep->start_s);
	} else {
		snprintf(when, sizeof when, _("up %.1f s"), ep->start_s);
	}
	gd_ep_gpus_str(ep->gpus, gpus, sizeof gpus);
	if (ep->open)
		/* TRANSLATORS: an episode line: %1$s when it began, %2$.1f its
		 * length so far, %3$s its GPUs (gpu0-3), %4$s its kind (idle, slowed) */
		len = (size_t)snprintf(buf, size, _("%s +%.1f s (ongoing) %s %s"), when, ep->duration_s, gpus,
				       _(gd_ep_kind_str(ep->kinds)));
	else
		/* TRANSLATORS: an episode line: %1$s when it began, %2$.1f its
		 * length, %3$s its GPUs (gpu0-3), %4$s its kind (idle, slowed) */
		len = (size_t)snprintf(buf, size, _("%s +%.1f s %s %s"), when, ep->duration_s, gpus,
				       _(gd_ep_kind_str(ep->kinds)));
	if (len >= size)
		return buf;
	if (ep->cause) {
		for (size_t i = 0; i < ep->nfindings; i++)
			if (ep->findings[i].id == ep->cause) {
				snprintf(buf + len, size - len, " - %s: %s", ep->cause, ep->findings[i].summary);
				break;
			}
	} else if (ep->nfindings) {
		/* TRANSLATORS: follows an episode line; the ids of info findings follow */
		len += (size_t)snprintf(buf + len, size - len, "%s", _(" - no warning; info:"));
		for (size_t i = 0; i < ep->nfindings && len < size; i++)
			len += (size_t)snprintf(buf + len, size - len, " %s", ep->findings[i].id);
	} else if (ep->nfindings == 0) {
		snprintf(buf + len, size - len, "%s", _(" - no finding explains it"));
	}
	return buf;
}

/* ---- detection ---------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n) (sorts v); n > 0. */
static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The engine over samples first-1 .. last+1: the findings active during the
 * episode, most severe first; the cause is the first warning or worse. */
static void findings_over(const struct gd_window *sub, const struct gd_thresholds *th, struct gd_episode *ep);

static void attach_findings(const struct gd_window *w, const struct gd_thresholds *th, struct gd_episode *ep)
{
	size_t lo = ep->first ? ep->first - 1 : 0, hi = ep->last + 1 < w->n ? ep->last + 1 : ep->last;
	struct gd_window sub = { w->snaps + lo, hi - lo + 1 };

	findings_over(&sub, th, ep);
}

static void findings_over(const struct gd_window *sub, const struct gd_thresholds *th, struct gd_episode *ep)
{
	struct gd_findings f;

	gd_findings_init(&f);
	gd_engine_run(sub, th, &f);
	GD_VEC_EACH(f.items, const struct gd_finding, it) {
		struct gd_ep_finding *ef;

		if (ep->nfindings >= GD_EP_MAX_FINDINGS)
			break;
		ef = &ep->findings[ep->nfindings++];
		ef->id = it->id;
		ef->severity = it->severity;
		gd_strlcpy(ef->subject, it->subject, sizeof ef->subject);
		gd_strlcpy(ef->summary, it->summary, sizeof ef->summary);
		if (!ep->cause && it->severity >= GD_SEV_WARNING)
			ep->cause = it->id;
	}
	gd_findings_release(&f);
}

bool gd_episodes_period(const struct gd_episode *eps, size_t k, double step, const struct gd_thresholds *th,
			double *period_s, double *dev_s)
{
	double *gaps, m, dev = 0;
	bool periodic = false;

	if (k < 3 || (double)k < TH(th, EPISODES_PERIODIC_MIN))
		return false;
	gaps = calloc(2 * (k - 1), sizeof *gaps);
	if (!gaps)
		return false;
	for (size_t i = 0; i + 1 < k; i++)
		gaps[i] = gaps[k - 1 + i] = eps[i + 1].start_s - eps[i].start_s;
	m = median(gaps + (k - 1), k - 1);
	for (size_t i = 0; i + 1 < k; i++)
		dev = fmax(dev, fabs(gaps[i] - m));
	if (m > 0 && dev <= fmax(TH(th, EPISODES_PERIOD_TOLERANCE_PCT) / 100.0 * m, step)) {
		periodic = true;
		*period_s = m;
		*dev_s = dev;
	}
	free(gaps);
	return periodic;
}

/* The median interval between samples of the window (0 when unknown). */
static double median_step(const struct gd_window *w)
{
	double *ints = calloc(w->n, sizeof *ints), a, b, m = 0;
	size_t nint = 0;

	if (!ints)
		return 0;
	for (size_t i = 0; i + 1 < w->n; i++)
		if (up(w, i, &a) && up(w, i + 1, &b) && b > a)
			ints[nint++] = b - a;
	if (nint)
		m = median(ints, nint);
	free(ints);
	return m;
}

/* Marks, per GPU slot, the samples that belong to a stalled run of at least
 * min samples; counts the runs and their length in gpus[]. */
static void mark_runs(const struct gd_window *w, size_t ng, const unsigned *idx, unsigned char *st, size_t min,
		      struct gd_episodes *e)
{
	size_t n = w->n;

	for (size_t g = 0; g < ng; g++) {
		struct gd_ep_gpu *eg = gd_vec_push(&e->gpus, sizeof *eg);
		unsigned char *row = st + g * n;

		eg->index = idx[g];
		for (size_t i = 0; i < n;) {
			size_t j = i;

			if (!(row[i] & 3)) {
				i++;
				continue;
			}
			while (j + 1 < n && (row[j + 1] & 3))
				j++;
			if (j - i + 1 >= min) {
				for (size_t k = i; k <= j; k++)
					row[k] |= 4;
				eg->episodes++;
				eg->stalled_s += gd_ep_span(w, i, j);
			}
			i = j + 1;
		}
	}
}

/* All episodes, else those of the most frequent cause. */
static void find_period(double step, const struct gd_thresholds *th, struct gd_episodes *e)
{
	const struct gd_episode *eps = e->items.items;
	struct gd_episode *sub;
	const char *best = NULL;
	size_t nbest = 0, k = 0;

	if (gd_episodes_period(eps, e->items.n, step, th, &e->period_s, &e->period_dev_s)) {
		e->periodic = true;
		return;
	}
	for (size_t i = 0; i < e->items.n; i++) {
		size_t c = 0;

		for (size_t j = 0; j < e->items.n && eps[i].cause; j++)
			c += eps[j].cause == eps[i].cause;
		if (c > nbest) {
			nbest = c;
			best = eps[i].cause;
		}
	}
	if (!best || nbest == e->items.n || !(sub = calloc(nbest, sizeof *sub)))
		return;
	for (size_t i = 0; i < e->items.n; i++)
		if (eps[i].cause == best)
			sub[k++] = eps[i];
	if (gd_episodes_period(sub, k, step, th, &e->period_s, &e->period_dev_s)) {
		e->periodic = true;
		e->period_cause = best;
	}
	free(sub);
}

size_t gd_episodes_detect(const struct gd_window *w, const struct gd_thresholds *th, unsigned flags,
			  struct gd_episodes *e)
{
	size_t n = w->n, ng = 0, min;
	unsigned idx[GD_EP_MAX_GPUS];
	uint64_t seen = 0;
	unsigned char *st;

	gd_episodes_release(e);
	e->samples = n;
	if (n < 2)
		return 0;
	min = TH(th, EPISODES_MIN_SAMPLES) >= 1 ? (size_t)TH(th, EPISODES_MIN_SAMPLES) : 1;
	/* The GPUs that held a job's context in some sample, by index. */
	for (size_t i = 0; i < n; i++)
		GD_VEC_EACH(w->snaps[i]->gpus, const struct gd_gpu, g)
			if (g->index.ok && g->index.v < GD_EP_MAX_GPUS && gd_gpu_in_use(w->snaps[i], g, th))
				seen |= 1ull << g->index.v;
	for (unsigned b = 0; b < GD_EP_MAX_GPUS; b++)
		if (seen >> b & 1)
			idx[ng++] = b;
	if (!ng)
		return 0;
	st = calloc(ng * n, 1);
	if (!st)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct gd_snapshot *s = w->snaps[i];

		if (!s->host.uptime_s.ok)
			continue;
		GD_VEC_EACH(s->gpus, const struct gd_gpu, g)
			for (size_t k = 0; k < ng; k++)
				if (g->index.ok && g->index.v == idx[k])
					st[k * n + i] = (unsigned char)gd_gpu_stall_state(s, g, th);
	}
	mark_runs(w, ng, idx, st, min, e);
	for (size_t i = 0; i < n;) {
		struct gd_episode *ep;
		size_t j;
		bool any = false;

		for (size_t k = 0; k < ng && !any; k++)
			any = st[k * n + i] & 4;
		if (!any) {
			i++;
			continue;
		}
		ep = gd_vec_push(&e->items, sizeof *ep);
		ep->first = i;
		for (j = i; j < n; j++) {
			bool hit = false;

			for (size_t k = 0; k < ng; k++)
				if (st[k * n + j] & 4) {
					hit = true;
					ep->gpus |= 1ull << idx[k];
					ep->kinds |= st[k * n + j] & 3;
				}
			if (!hit)
				break;
		}
		ep->last = j - 1;
		ep->open = ep->last == n - 1;
		ep->start_s = w->snaps[ep->first]->host.uptime_s.v;
		ep->end_s = w->snaps[ep->last]->host.uptime_s.v;
		ep->start_wall_s = gd_f64_none();
		if (w->snaps[ep->first]->host.wall_time_s.ok)
			ep->start_wall_s = w->snaps[ep->first]->host.wall_time_s;
		ep->duration_s = gd_ep_span(w, ep->first, ep->last);
		if (!(flags & GD_EP_NO_FINDINGS))
			attach_findings(w, th, ep);
		i = j;
	}
	free(st);
	find_period(median_step(w), th, e);
	return e->items.n;
}

/* ---- streaming ------------------------------------------------------------ */

struct ep_row {
	struct gd_f64 up, wall;
};

struct gd_ep_stream {
	const struct gd_thresholds *th;
	unsigned flags;
	size_t min, n, cursor;
	struct gd_vec rows;                 /* struct ep_row per sample */
	struct gd_vec st[GD_EP_MAX_GPUS];   /* unsigned char per sample, from the first GPU seen */
	uint64_t present, inuse;
	size_t run_start[GD_EP_MAX_GPUS], run_len[GD_EP_MAX_GPUS];
	bool open, oom;
	struct gd_episode cur;
	struct gd_vec items;                /* struct gd_episode */
};

struct gd_ep_stream *gd_ep_stream_new(const struct gd_thresholds *th, unsigned flags)
{
	struct gd_ep_stream *es = calloc(1, sizeof *es);

	if (!es)
		return NULL;
	es->th = th;
	es->flags = flags;
	es->min = TH(th, EPISODES_MIN_SAMPLES) >= 1 ? (size_t)TH(th, EPISODES_MIN_SAMPLES) : 1;
	return es;
}

void gd_ep_stream_free(struct gd_ep_stream *es)
{
	if (!es)
		return;
	gd_vec_release(&es->rows);
	for (size_t k = 0; k < GD_EP_MAX_GPUS; k++)
		gd_vec_release(&es->st[k]);
	gd_vec_release(&es->items);
	free(es);
}

static const struct ep_row *row(const struct gd_ep_stream *es, size_t i)
{
	return &((const struct ep_row *)es->rows.items)[i];
}

/* gd_ep_span over the rows. */
static double span_rows(const struct gd_ep_stream *es, size_t a, size_t b)
{
	double step = 0;

	if (a > b || b >= es->n || !row(es, a)->up.ok || !row(es, b)->up.ok || row(es, b)->up.v < row(es, a)->up.v)
		return 0;
	if (a > 0 && row(es, a - 1)->up.ok && row(es, a - 1)->up.v < row(es, a)->up.v)
		step = row(es, a)->up.v - row(es, a - 1)->up.v;
	else if (a + 1 < es->n && row(es, a + 1)->up.ok && row(es, a + 1)->up.v > row(es, a)->up.v)
		step = row(es, a + 1)->up.v - row(es, a)->up.v;
	return row(es, b)->up.v - row(es, a)->up.v + step;
}

static unsigned char *st_at(struct gd_ep_stream *es, size_t k, size_t i)
{
	return &((unsigned char *)es->st[k].items)[i];
}

/* Ends the episode going on at its last sample; hi: the sample after it
 * (or the last), lo..hi cut to what recent holds. */
static void close_episode(struct gd_ep_stream *es, size_t last, size_t hi, const struct gd_window *recent, size_t base)
{
	struct gd_episode *ep = gd_vec_push(&es->items, sizeof *ep);
	size_t lo = es->cur.first ? es->cur.first - 1 : 0;

	*ep = es->cur;
	es->open = false;
	ep->last = last;
	ep->start_s = row(es, ep->first)->up.v;
	ep->end_s = row(es, last)->up.v;
	ep->start_wall_s = row(es, ep->first)->wall;
	if (!(es->flags & GD_EP_NO_FINDINGS) && recent->n && hi >= base && hi < base + recent->n) {
		struct gd_window sub;

		if (lo < base)
			lo = base;
		sub.snaps = recent->snaps + (lo - base);
		sub.n = hi - lo + 1;
		findings_over(&sub, es->th, ep);
	}
}

/* Samples settled: cursor .. upto-1. */
static void settle(struct gd_ep_stream *es, size_t upto, const struct gd_window *recent, size_t base)
{
	for (; es->cursor < upto; es->cursor++) {
		size_t j = es->cursor;
		uint64_t gpus = 0;
		unsigned kinds = 0;

		for (size_t k = 0; k < GD_EP_MAX_GPUS; k++) {
			unsigned char v;

			if (!(es->present >> k & 1))
				continue;
			v = *st_at(es, k, j);
			if (v & 4) {
				gpus |= 1ull << k;
				kinds |= v & 3;
			}
		}
		if (gpus) {
			if (!es->open) {
				memset(&es->cur, 0, sizeof es->cur);
				es->cur.first = j;
				es->open = true;
			}
			es->cur.gpus |= gpus;
			es->cur.kinds |= kinds;
		} else if (es->open) {
			close_episode(es, j - 1, j, recent, base);
		}
	}
}

bool gd_ep_stream_push(struct gd_ep_stream *es, const struct gd_window *recent, size_t base)
{
	const struct gd_snapshot *s = gd_window_last(recent);
	unsigned char now[GD_EP_MAX_GPUS] = { 0 };
	struct ep_row *r;
	size_t i = es->n;

	if (!s)
		return !es->oom;
	r = gd_vec_push(&es->rows, sizeof *r);
	r->up = s->host.uptime_s;
	r->wall = s->host.wall_time_s;
	GD_VEC_EACH(s->gpus, const struct gd_gpu, g) {
		size_t k;

		if (!g->index.ok || g->index.v >= GD_EP_MAX_GPUS)
			continue;
		k = (size_t)g->index.v;
		if (gd_gpu_in_use(s, g, es->th))
			es->inuse |= 1ull << k;
		if (!(es->present >> k & 1)) {
			es->present |= 1ull << k;
			for (size_t j = 0; j < i; j++)
				*(unsigned char *)gd_vec_push(&es->st[k], 1) = 0;
		}
		if (s->host.uptime_s.ok)
			now[k] = (unsigned char)gd_gpu_stall_state(s, g, es->th);
	}
	es->n++;
	for (size_t k = 0; k < GD_EP_MAX_GPUS; k++) {
		if (!(es->present >> k & 1))
			continue;
		*(unsigned char *)gd_vec_push(&es->st[k], 1) = now[k];
		if (!(now[k] & 3)) {
			es->run_len[k] = 0;
			continue;
		}
		if (!es->run_len[k]++)
			es->run_start[k] = i;
		if (es->run_len[k] == es->min)
			for (size_t j = es->run_start[k]; j <= i; j++)
				*st_at(es, k, j) |= 4;
		else if (es->run_len[k] > es->min)
			*st_at(es, k, i) |= 4;
	}
	settle(es, i + 2 > es->min ? i + 2 - es->min : 0, recent, base);
	return !es->oom;
}

size_t gd_ep_stream_finish(struct gd_ep_stream *es, const struct gd_window *recent, size_t base,
			   struct gd_episodes *e)
{
	double *ints, m = 0;
	size_t nint = 0;

	gd_episodes_release(e);
	e->samples = es->n;
	if (es->n < 2)
		return 0;
	settle(es, es->n, recent, base);
	if (es->open)
		close_episode(es, es->n - 1, es->n - 1, recent, base);
	e->items = es->items;
	memset(&es->items, 0, sizeof es->items);
	GD_VEC_EACH(e->items, struct gd_episode, ep) {
		ep->open = ep->last == es->n - 1;
		ep->duration_s = span_rows(es, ep->first, ep->last);
	}
	/* per GPU in use: its own runs, as mark_runs counts them */
	for (size_t k = 0; k < GD_EP_MAX_GPUS; k++) {
		struct gd_ep_gpu *eg;

		if (!(es->inuse >> k & 1))
			continue;
		eg = gd_vec_push(&e->gpus, sizeof *eg);
		eg->index = (unsigned)k;
		for (size_t i = 0; i < es->n;) {
			size_t j = i;

			if (!(*st_at(es, k, i) & 3)) {
				i++;
				continue;
			}
			while (j + 1 < es->n && (*st_at(es, k, j + 1) & 3))
				j++;
			if (j - i + 1 >= es->min) {
				eg->episodes++;
				eg->stalled_s += span_rows(es, i, j);
			}
			i = j + 1;
		}
	}
	if (!es->inuse)
		return 0;
	ints = calloc(es->n, sizeof *ints);
	if (ints) {
		for (size_t i = 0; i + 1 < es->n; i++)
			if (row(es, i)->up.ok && row(es, i + 1)->up.ok && row(es, i + 1)->up.v > row(es, i)->up.v)
				ints[nint++] = row(es, i + 1)->up.v - row(es, i)->up.v;
		if (nint)
			m = median(ints, nint);
		free(ints);
	}
	find_period(m, es->th, e);
	return e->items.n;
}
