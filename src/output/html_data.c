/*
 * html_data.c - what the HTML report draws, gathered in one pass over the
 * recording (html_report.h): the envelopes of every GPU's and the host's
 * series, each GPU's limits and name, and which GPUs stand out.
 *
 * A GPU stands out when it alone (not every GPU of the recording) has a
 * warning or critical finding of a rule, is hit by an episode that does not
 * hit every GPU, or is lost or missing from a sample after it was seen: a
 * checkpoint stall that idles all eight GPUs marks none of them, the one
 * GPU whose clock sags marks that one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "output/html_report.h"
#include "output/timeline.h"
#include "output/rates.h"
#include "output/subject.h"
#include "rules/window.h"

static const char *const hl_colors[] = { "#d55e00", "#0072b2", "#cc79a7", "#e69f00", "#009e73", "#56b4e9", "#000000" };

static void why_add(struct html_gpu *g, const char *s)
{
	size_t len = strlen(g->why);

	if (strstr(g->why, s))
		return;
	/* TRANSLATORS: the separator of a list ("4 GPUs, 8 CPUs, 2 disks") */
	snprintf(g->why + len, sizeof g->why - len, "%s%s", len ? _(", ") : "", s);
}

/* Series of GPU slot (NVML index) i, and of the host, in the stream. */
#define ACC_GS(i, m) ((size_t)(i) * GS_N + (m))
#define ACC_HS(m) ((size_t)GD_EP_MAX_GPUS * GS_N + (m))
#define ACC_NSERIES ((size_t)GD_EP_MAX_GPUS * GS_N + HS_N)
/* Samples kept as they are before the envelopes bin them, and the fine bins. */
#define ACC_RAW 4096
#define ACC_FINE (4 * HBINS)

/* A bin of the sliding ring, compact (8 bytes, not gd_env_bin's 48: the
 * history serve keeps whether the page is opened or not).  The values as
 * IEEE half floats (binary16, converted here: not every compiler has
 * _Float16 on x86) of v / RING_SCALE: 11 significant bits (0.05%, below a
 * pixel of any chart) from 0.004 to 4.2 million (a host's 400 GB/s in
 * MB/s), clamped beyond; when the minimum and the maximum came as
 * sixteenths of the bin's width (a bin is seconds wide: under a pixel of
 * the window); the mean time of its samples is the slot's, shared by the
 * series (they are sampled together). */
#define RING_SCALE 64.0
#define RING_MAX_N 127
#define RING_F16_MAX 65504.0
struct ring_bin {
	uint16_t min, max, mean;    /* half floats of v / RING_SCALE */
	uint8_t n : 7;              /* samples, at most RING_MAX_N (more: the extremes still count) */
	uint8_t min_first : 1;      /* the minimum came first (or with the maximum) */
	uint8_t dt;                 /* sixteenths of the width after the bin's start: min << 4 | max */
};

_Static_assert(sizeof(struct ring_bin) == 8, "a ring bin is 8 bytes");

/* v (finite, |v| <= RING_F16_MAX) as a half float, rounded to nearest even. */
static uint16_t half_of(double v)
{
	float f = (float)v;
	uint32_t u, sign, m, hm, rem, halfway;
	int e;

	memcpy(&u, &f, sizeof u);
	sign = u >> 16 & 0x8000;
	e = (int)(u >> 23 & 0xff) - 127 + 15;   /* the half's biased exponent */
	m = u & 0x7fffff;
	if ((u & 0x7fffffff) == 0 || e < -10)
		return (uint16_t)sign;   /* zero, or below half the smallest subnormal */
	if (e <= 0) {                    /* a subnormal half: m * 2^-24 */
		unsigned shift = (unsigned)(14 - e);

		m |= 0x800000;
		hm = m >> shift;
		rem = m & ((1u << shift) - 1);
		halfway = 1u << (shift - 1);
	} else {
		hm = (uint32_t)e << 10 | m >> 13;
		rem = m & 0x1fff;
		halfway = 0x1000;
	}
	if (rem > halfway || (rem == halfway && (hm & 1)))
		hm++;   /* a carry into the exponent is the next binade, as it should be */
	if (hm > 0x7bff)
		hm = 0x7bff;   /* the largest finite half */
	return (uint16_t)(sign | hm);
}

static double half_value(uint16_t h)
{
	unsigned e = h >> 10 & 0x1f, m = h & 0x3ff;
	double v = e ? ldexp(1024.0 + m, (int)e - 25) : ldexp(m, -24);

	return (h & 0x8000) ? -v : v;
}

/* What the accumulator keeps per GPU, allocated when the GPU is first seen. */
struct acc_gpu {
	struct html_gpu h;
	struct gd_tl_gpu text;
};

struct gd_tl_acc {
	const struct gd_thresholds *th;
	struct gd_envs es;
	struct acc_gpu *gpu[GD_EP_MAX_GPUS];   /* by NVML index, NULL until seen */
	uint64_t seen;
	double t0, t1, offset;
	size_t nt;
	bool oom;
	/* sliding (gd_tl_acc_new_sliding): per series a ring of nring bins of
	 * width bw, slot b % nring holding bin b (ring_b), each series
	 * allocated on its first value; es is then unused */
	size_t nring;
	double bw;
	struct ring_bin **ring;
	long long *ring_b;        /* per slot: the bin it holds, -1 none */
	uint32_t *ring_n;         /* per slot: sample times in it */
	float *ring_dt;           /* per slot: their seconds after the bin's start, summed */
	long long b_last;         /* the newest bin */
	long long slot;           /* the current sample's slot, -1: ignored */
};

/* What both kinds of accumulator start with: no time yet, no GPU seen. */
static struct gd_tl_acc *acc_start(struct gd_tl_acc *a, const struct gd_thresholds *th)
{
	a->th = th;
	a->t0 = a->t1 = a->offset = NAN;
	return a;
}

/* GPU k's record, made on its first sight; NULL when out of memory. */
static struct acc_gpu *acc_gpu(struct gd_tl_acc *a, unsigned k)
{
	struct acc_gpu *g = a->gpu[k];

	if (g)
		return g;
	if (!(g = calloc(1, sizeof *g))) {
		a->oom = true;
		return NULL;
	}
	g->h.idx = k;
	g->h.smmax = g->h.slow = g->h.limit = g->h.mem_total_gib = NAN;
	g->text.umin = g->text.smmin = INFINITY;
	g->text.tmax = g->text.pmax = -INFINITY;
	return a->gpu[k] = g;
}

struct gd_tl_acc *gd_tl_acc_new(const struct gd_thresholds *th)
{
	struct gd_tl_acc *a = calloc(1, sizeof *a);

	if (!a)
		return NULL;
	if (!gd_envs_init(&a->es, ACC_NSERIES, ACC_RAW, ACC_FINE)) {
		free(a);
		return NULL;
	}
	return acc_start(a, th);
}

struct gd_tl_acc *gd_tl_acc_new_sliding(const struct gd_thresholds *th, double span_s, size_t nbins)
{
	struct gd_tl_acc *a;

	if (!(span_s > 0) || nbins < 2)
		return NULL;
	a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->nring = nbins;
	a->bw = span_s / (double)(nbins - 1);
	a->ring = calloc(ACC_NSERIES, sizeof *a->ring);
	a->ring_b = malloc(nbins * sizeof *a->ring_b);
	a->ring_n = calloc(nbins, sizeof *a->ring_n);
	a->ring_dt = calloc(nbins, sizeof *a->ring_dt);
	if (!a->ring || !a->ring_b || !a->ring_n || !a->ring_dt) {
		gd_tl_acc_free(a);
		return NULL;
	}
	for (size_t i = 0; i < nbins; i++)
		a->ring_b[i] = -1;
	a->b_last = -1;
	a->slot = -1;
	return acc_start(a, th);
}

void gd_tl_acc_free(struct gd_tl_acc *a)
{
	if (!a)
		return;
	if (a->nring) {
		for (size_t s = 0; a->ring && s < ACC_NSERIES; s++)
			free(a->ring[s]);
		free(a->ring);
		free(a->ring_b);
		free(a->ring_n);
		free(a->ring_dt);
	} else {
		gd_envs_release(&a->es);
	}
	for (unsigned i = 0; i < GD_EP_MAX_GPUS; i++)
		free(a->gpu[i]);
	free(a);
}

/* Sliding: starts a sample at t, clearing the slots of the bins it moves
 * past; false when t is older than the ring (the sample is ignored). */
static bool ring_time(struct gd_tl_acc *a, double t)
{
	long long b = (long long)floor(t / a->bw);

	a->slot = -1;
	if (b < 0 || b <= a->b_last - (long long)a->nring)
		return false;
	if (b > a->b_last) {
		long long from = a->b_last < 0 || b - a->b_last > (long long)a->nring ? b - (long long)a->nring + 1
										    : a->b_last + 1;

		for (long long x = from; x <= b; x++) {
			size_t k = (size_t)(x % (long long)a->nring);

			a->ring_b[k] = x;
			a->ring_n[k] = 0;
			a->ring_dt[k] = 0;
			for (size_t s = 0; s < ACC_NSERIES; s++)
				if (a->ring[s])
					memset(&a->ring[s][k], 0, sizeof a->ring[s][k]);
		}
		a->b_last = b;
	}
	a->slot = (long long)(b % (long long)a->nring);
	a->ring_n[a->slot]++;
	a->ring_dt[a->slot] += (float)(t - (double)b * a->bw);
	return true;
}

static void ring_add(struct gd_tl_acc *a, size_t s, double v)
{
	struct ring_bin *b;
	double x;
	unsigned q;

	if (a->slot < 0 || s >= ACC_NSERIES || !isfinite(v))
		return;
	if (!a->ring[s] && !(a->ring[s] = calloc(a->nring, sizeof *a->ring[s]))) {
		a->oom = true;
		return;
	}
	b = &a->ring[s][a->slot];
	x = fmax(-RING_F16_MAX, fmin(RING_F16_MAX, v / RING_SCALE));
	q = (unsigned)fmin(15, fmax(0, floor((a->t1 - (double)a->ring_b[a->slot] * a->bw) / a->bw * 16)));
	if (!b->n || x < half_value(b->min)) {
		b->min = half_of(x);
		b->dt = (uint8_t)((b->dt & 0x0f) | q << 4);
		b->min_first = !b->n;
	}
	if (!b->n || x > half_value(b->max)) {
		b->max = half_of(x);
		b->dt = (uint8_t)((b->dt & 0xf0) | q);
		b->min_first = 1;
	}
	if (b->n < RING_MAX_N) {
		b->n++;
		b->mean = half_of(half_value(b->mean) + (x - half_value(b->mean)) / b->n);
	}
}

const struct gd_tl_gpu *gd_tl_acc_gpu(const struct gd_tl_acc *a, unsigned idx)
{
	return idx < GD_EP_MAX_GPUS && (a->seen >> idx & 1) ? &a->gpu[idx]->text : NULL;
}

uint64_t gd_tl_acc_seen(const struct gd_tl_acc *a)
{
	return a->seen;
}

static void env_add(struct gd_tl_acc *a, size_t s, double v)
{
	if (a->nring)
		ring_add(a, s, v);
	else if (!gd_envs_add(&a->es, s, v))
		a->oom = true;
}

/* The per-GPU summary of the text report: every sample, lost or not. */
static void text_add(struct gd_tl_gpu *x, const struct gd_gpu *g)
{
	if (g->name[0])
		GD_STRSET(x->name, g->name);
	if (g->util_gpu_pct.ok) {
		x->usum += (double)g->util_gpu_pct.v;
		x->umin = fmin(x->umin, (double)g->util_gpu_pct.v);
		x->un++;
	}
	if (g->sm_clock_mhz.ok)
		x->smmin = fmin(x->smmin, (double)g->sm_clock_mhz.v);
	if (g->temp_c.ok)
		x->tmax = fmax(x->tmax, g->temp_c.v);
	if (g->power_w.ok)
		x->pmax = fmax(x->pmax, g->power_w.v);
}

bool gd_tl_acc_add(struct gd_tl_acc *a, const struct gd_snapshot *prev, const struct gd_snapshot *s)
{
	double t;
	uint64_t here = 0;

	GD_VEC_EACH(s->gpus, const struct gd_gpu, g)
		if (g->index.ok && g->index.v < GD_EP_MAX_GPUS) {
			struct acc_gpu *x = acc_gpu(a, (unsigned)g->index.v);

			if (!x)
				return false;
			a->seen |= 1ull << g->index.v;
			text_add(&x->text, g);
		}
	if (!s->host.uptime_s.ok)
		return !a->oom;
	t = s->host.uptime_s.v;
	if (!isfinite(a->t0))
		a->t0 = t;
	a->t1 = t;
	a->nt++;
	if (!isfinite(a->offset) && s->host.wall_time_s.ok)
		a->offset = s->host.wall_time_s.v - t;
	if (a->nring) {
		if (!ring_time(a, t))
			return !a->oom;
	} else if (!gd_envs_time(&a->es, t)) {
		a->oom = true;
		return false;
	}
	GD_VEC_EACH(s->gpus, const struct gd_gpu, g) {
		struct html_gpu *hg;
		unsigned k;
		double util = NAN, smp = NAN;

		if (!g->index.ok || g->index.v >= GD_EP_MAX_GPUS)
			continue;
		k = (unsigned)g->index.v;
		hg = &a->gpu[k]->h;    /* made above */
		here |= 1ull << k;
		hg->seen_yet = true;
		if (g->lost.ok && g->lost.v) {
			env_add(a, ACC_GS(k, GS_LOST), 1);
			if (!hg->lost)
				hg->lost_at = t;
			hg->lost = true;
			continue;
		}
		env_add(a, ACC_GS(k, GS_LOST), 0);
		if (g->name[0])
			GD_STRSET(hg->name, g->name);
		if (g->pci_bus_id[0])
			GD_STRSET(hg->pci, g->pci_bus_id);
		if (g->sm_clock_max_mhz.ok && g->sm_clock_max_mhz.v)
			hg->smmax = (double)g->sm_clock_max_mhz.v;
		if (g->temp_slowdown_c.ok)
			hg->slow = g->temp_slowdown_c.v;
		if (g->power_limit_w.ok)
			hg->limit = g->power_limit_w.v;
		if (g->mem_total_bytes.ok)
			hg->mem_total_gib = (double)g->mem_total_bytes.v / 1073741824.0;
		if (g->util_gpu_pct.ok)
			util = (double)g->util_gpu_pct.v;
		if (g->sm_clock_mhz.ok) {
			env_add(a, ACC_GS(k, GS_SMMHZ), (double)g->sm_clock_mhz.v);
			if (g->sm_clock_max_mhz.ok && g->sm_clock_max_mhz.v)
				smp = fmin(100, 100.0 * (double)g->sm_clock_mhz.v / (double)g->sm_clock_max_mhz.v);
		}
		env_add(a, ACC_GS(k, GS_UTIL), util);
		env_add(a, ACC_GS(k, GS_SMPCT), smp);
		/* busy at full clock: an idle GPU and a slowed one both read low */
		env_add(a, ACC_GS(k, GS_WORK), isfinite(util) && isfinite(smp) ? fmin(util, smp) : isfinite(util) ? util : smp);
		if (a->th)
			env_add(a, ACC_GS(k, GS_STALL), gd_gpu_stall_state(s, g, a->th) != GD_EP_NONE ? 1 : 0);
		if (g->temp_c.ok)
			env_add(a, ACC_GS(k, GS_TEMP), g->temp_c.v);
		if (g->power_w.ok)
			env_add(a, ACC_GS(k, GS_POWER), g->power_w.v);
		if (g->mem_used_bytes.ok)
			env_add(a, ACC_GS(k, GS_MEM), (double)g->mem_used_bytes.v / 1073741824.0);
		if (g->pcie_tx_kbps.ok || g->pcie_rx_kbps.ok)
			env_add(a, ACC_GS(k, GS_PCIE),
				((g->pcie_tx_kbps.ok ? (double)g->pcie_tx_kbps.v : 0) +
				 (g->pcie_rx_kbps.ok ? (double)g->pcie_rx_kbps.v : 0)) / 1000.0);
	}
	/* a GPU seen before that NVML no longer lists has fallen off too */
	for (unsigned k = 0; k < GD_EP_MAX_GPUS; k++) {
		struct html_gpu *hg = a->gpu[k] ? &a->gpu[k]->h : NULL;

		if ((here >> k & 1) || !hg || !hg->seen_yet)
			continue;
		env_add(a, ACC_GS(k, GS_LOST), 1);
		if (!hg->lost)
			hg->lost_at = t;
		hg->lost = true;
	}
	if (prev) {
		struct gd_host_rates r;

		gd_host_rates(prev, s, &r);
		if (r.cpu_busy_pct.ok)
			env_add(a, ACC_HS(HS_CPU), r.cpu_busy_pct.v);
		if (r.iowait_pct.ok)
			env_add(a, ACC_HS(HS_IOWAIT), r.iowait_pct.v);
		if (r.disk_read_bps.ok)
			env_add(a, ACC_HS(HS_DISK_R), r.disk_read_bps.v / 1e6);
		if (r.disk_write_bps.ok)
			env_add(a, ACC_HS(HS_DISK_W), r.disk_write_bps.v / 1e6);
		if (r.net_rx_bps.ok)
			env_add(a, ACC_HS(HS_NET_RX), r.net_rx_bps.v / 1e6);
		if (r.net_tx_bps.ok)
			env_add(a, ACC_HS(HS_NET_TX), r.net_tx_bps.v / 1e6);
	}
	if (s->psi.cpu_some_avg10.ok)
		env_add(a, ACC_HS(HS_PSI_CPU), s->psi.cpu_some_avg10.v);
	if (s->psi.io_some_avg10.ok)
		env_add(a, ACC_HS(HS_PSI_IO), s->psi.io_some_avg10.v);
	if (s->psi.memory_some_avg10.ok)
		env_add(a, ACC_HS(HS_PSI_MEM), s->psi.memory_some_avg10.v);
	if (s->mem.total_bytes.ok && s->mem.available_bytes.ok && s->mem.total_bytes.v)
		env_add(a, ACC_HS(HS_MEM), 100.0 - 100.0 * (double)s->mem.available_bytes.v / (double)s->mem.total_bytes.v);
	return !a->oom;
}

/* Which GPUs stand out, and why (see the top of the file). */
static void mark_outliers(struct html_ctx *c, const int *pos)
{
	const struct gd_findings *f = c->t->findings;
	const struct gd_episodes *e = c->t->episodes;

	GD_VEC_EACH(f->items, const struct gd_finding, x) {
		int n = gd_subject_gpu(x->subject);
		size_t same = 0;

		if (n < 0 || pos[n] < 0)
			continue;
		c->gpu[pos[n]].nfindings++;
		if ((int)x->severity > c->gpu[pos[n]].worst)
			c->gpu[pos[n]].worst = (int)x->severity;
		if (x->severity < GD_SEV_WARNING)
			continue;
		GD_VEC_EACH(f->items, const struct gd_finding, y)
			if (strcmp(y->id, x->id) == 0 && gd_subject_gpu(y->subject) >= 0)
				same++;
		if (same < c->ngpu || c->ngpu == 1) {
			c->gpu[pos[n]].hl = true;
			why_add(&c->gpu[pos[n]], x->id);
		}
	}
	GD_VEC_EACH(e->items, const struct gd_episode, ep) {
		for (size_t k = 0; k < c->ngpu; k++) {
			struct html_gpu *g = &c->gpu[k];

			if (!(ep->gpus >> g->idx & 1))
				continue;
			g->neps++;
			g->stalled_s += ep->duration_s;
			if ((ep->gpus & c->seen) != c->seen || c->ngpu == 1) {
				g->hl = true;
				why_add(g, ep->cause ? ep->cause : _("stall episodes, no cause found"));
			}
		}
	}
	for (size_t k = 0; k < c->ngpu; k++) {
		struct html_gpu *g = &c->gpu[k];

		if (g->lost) {
			g->hl = true;
			if (!strstr(g->why, "gpu.lost"))
				why_add(g, _("lost (fell off the bus or left NVML's list)"));
		}
		if (g->hl)
			g->color = hl_colors[c->nhl++ % (sizeof hl_colors / sizeof hl_colors[0])];
		else
			g->color = "#9aa0a6";
	}
}

/* Sliding: the envelope of the bins the ring holds, oldest first, over
 * exactly their span (the strip maps bins to x as the time axis does). */
static bool ring_finish(const struct gd_tl_acc *a, const size_t *map, size_t nout, struct html_ctx *c)
{
	long long first = a->b_last - (long long)a->nring + 1, b0;
	size_t nb, nt = 0;
	double t0, t1;

	if (a->b_last < 0) {
		c->dt = 1;
		gd_time_axis(0, 0, false, 0, 10, &c->ta);
		return gd_env_init(&c->env, nout, 1, 0, 0);
	}
	b0 = (long long)floor(a->t0 / a->bw);
	if (first < b0)
		first = b0;
	nb = (size_t)(a->b_last - first + 1);
	t0 = (double)first * a->bw;
	t1 = (double)(a->b_last + 1) * a->bw;
	if (!gd_env_init(&c->env, nout, nb, t0, t1))
		return false;
	for (size_t k = 0; k < nb; k++) {
		size_t slot = (size_t)((first + (long long)k) % (long long)a->nring);

		if (a->ring_b[slot] != first + (long long)k)
			continue;
		nt += a->ring_n[slot];
		for (size_t j = 0; j < nout; j++) {
			const struct ring_bin *r = a->ring[map[j]] ? &a->ring[map[j]][slot] : NULL;
			struct gd_env_bin *e = &c->env.bins[j * nb + k];
			double bt = (double)(first + (long long)k) * a->bw, sixteenth = a->bw / 16;

			if (!r || !r->n)
				continue;
			e->min = (float)(half_value(r->min) * RING_SCALE);
			e->max = (float)(half_value(r->max) * RING_SCALE);
			e->sum = half_value(r->mean) * RING_SCALE * r->n;
			e->n = r->n;
			e->tmin = bt + ((r->dt >> 4) + 0.5) * sixteenth;
			e->tmax = bt + ((r->dt & 0x0f) + 0.5) * sixteenth;
			e->tsum = (double)r->n * (bt + (double)a->ring_dt[slot] / (double)a->ring_n[slot]);
			e->min_first = r->min_first;
		}
	}
	c->dt = nt > 1 ? (fmin(a->t1, t1) - fmax(a->t0, t0)) / (double)(nt - 1) : a->bw;
	if (!(c->dt > 0))
		c->dt = a->bw;
	gd_time_axis(t0, t1, isfinite(a->offset), a->offset, 10, &c->ta);
	return true;
}

bool gd_html_gather(struct html_ctx *c, const struct gd_timeline *t)
{
	const struct gd_tl_acc *a = t->acc;
	int pos[GD_EP_MAX_GPUS];
	size_t map[GD_EP_MAX_GPUS * GS_N + HS_N];
	double t0 = a->t0, t1 = a->t1;

	memset(c, 0, sizeof *c);
	c->t = t;
	c->seen = a->seen;
	for (int i = 0; i < GD_EP_MAX_GPUS; i++)
		pos[i] = -1;
	if (!isfinite(t0))
		t0 = t1 = 0;
	for (unsigned i = 0; i < GD_EP_MAX_GPUS; i++) {
		if (!(c->seen >> i & 1))
			continue;
		pos[i] = (int)c->ngpu;
		c->gpu[c->ngpu] = a->gpu[i]->h;
		for (unsigned m = 0; m < GS_N; m++)
			map[c->ngpu * GS_N + m] = ACC_GS(i, m);
		c->ngpu++;
	}
	for (unsigned m = 0; m < HS_N; m++)
		map[c->ngpu * GS_N + m] = ACC_HS(m);
	if (a->nring) {
		if (a->oom || !ring_finish(a, map, c->ngpu * GS_N + HS_N, c))
			return false;
		for (size_t k = 0; k < c->ngpu; k++)  /* lost before the span: from its start */
			if (c->gpu[k].lost && c->gpu[k].lost_at < c->ta.t0)
				c->gpu[k].lost_at = c->ta.t0;
	} else {
		c->dt = a->nt > 1 ? (t1 - t0) / (double)(a->nt - 1) : 1;
		gd_time_axis(t0, t1, isfinite(a->offset), a->offset, 10, &c->ta);
		if (a->oom || !gd_envs_finish(&a->es, map, c->ngpu * GS_N + HS_N, HBINS, t0, t1, &c->env))
			return false;
	}
	mark_outliers(c, pos);
	return true;
}

void gd_html_ctx_release(struct html_ctx *c)
{
	gd_env_release(&c->env);
}
