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

static void gather_series(struct html_ctx *c, const int *pos)
{
	const struct gd_window *w = c->t->w;

	for (size_t i = 0; i < w->n; i++) {
		const struct gd_snapshot *s = w->snaps[i];
		double t;
		uint64_t here = 0;

		if (!s->host.uptime_s.ok)
			continue;
		t = s->host.uptime_s.v;
		GD_VEC_EACH(s->gpus, const struct gd_gpu, g) {
			struct html_gpu *hg;
			size_t k;
			double util = NAN, smp = NAN;

			if (!g->index.ok || g->index.v >= GD_EP_MAX_GPUS || pos[g->index.v] < 0)
				continue;
			k = (size_t)pos[g->index.v];
			hg = &c->gpu[k];
			here |= 1ull << g->index.v;
			hg->seen_yet = true;
			if (g->lost.ok && g->lost.v) {
				gd_env_add(&c->env, html_gs(c, k, GS_LOST), t, 1);
				if (!hg->lost)
					hg->lost_at = t;
				hg->lost = true;
				continue;
			}
			gd_env_add(&c->env, html_gs(c, k, GS_LOST), t, 0);
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
				gd_env_add(&c->env, html_gs(c, k, GS_SMMHZ), t, (double)g->sm_clock_mhz.v);
				if (g->sm_clock_max_mhz.ok && g->sm_clock_max_mhz.v)
					smp = fmin(100, 100.0 * (double)g->sm_clock_mhz.v / (double)g->sm_clock_max_mhz.v);
			}
			gd_env_add(&c->env, html_gs(c, k, GS_UTIL), t, util);
			gd_env_add(&c->env, html_gs(c, k, GS_SMPCT), t, smp);
			/* busy at full clock: an idle GPU and a slowed one both read low */
			gd_env_add(&c->env, html_gs(c, k, GS_WORK), t,
				   isfinite(util) && isfinite(smp) ? fmin(util, smp) : isfinite(util) ? util : smp);
			if (c->t->th)
				gd_env_add(&c->env, html_gs(c, k, GS_STALL), t,
					   gd_gpu_stall_state(s, g, c->t->th) != GD_EP_NONE ? 1 : 0);
			if (g->temp_c.ok)
				gd_env_add(&c->env, html_gs(c, k, GS_TEMP), t, g->temp_c.v);
			if (g->power_w.ok)
				gd_env_add(&c->env, html_gs(c, k, GS_POWER), t, g->power_w.v);
			if (g->mem_used_bytes.ok)
				gd_env_add(&c->env, html_gs(c, k, GS_MEM), t, (double)g->mem_used_bytes.v / 1073741824.0);
			if (g->pcie_tx_kbps.ok || g->pcie_rx_kbps.ok)
				gd_env_add(&c->env, html_gs(c, k, GS_PCIE), t,
					   ((g->pcie_tx_kbps.ok ? (double)g->pcie_tx_kbps.v : 0) +
					    (g->pcie_rx_kbps.ok ? (double)g->pcie_rx_kbps.v : 0)) / 1000.0);
		}
		/* a GPU seen before that NVML no longer lists has fallen off too */
		for (size_t k = 0; k < c->ngpu; k++) {
			struct html_gpu *hg = &c->gpu[k];

			if (here >> hg->idx & 1)
				continue;
			if (hg->seen_yet) {
				gd_env_add(&c->env, html_gs(c, k, GS_LOST), t, 1);
				if (!hg->lost)
					hg->lost_at = t;
				hg->lost = true;
			}
		}
		if (i) {
			struct gd_host_rates r;

			gd_host_rates(w->snaps[i - 1], s, &r);
			if (r.cpu_busy_pct.ok)
				gd_env_add(&c->env, html_hs(c, HS_CPU), t, r.cpu_busy_pct.v);
			if (r.iowait_pct.ok)
				gd_env_add(&c->env, html_hs(c, HS_IOWAIT), t, r.iowait_pct.v);
			if (r.disk_read_bps.ok)
				gd_env_add(&c->env, html_hs(c, HS_DISK_R), t, r.disk_read_bps.v / 1e6);
			if (r.disk_write_bps.ok)
				gd_env_add(&c->env, html_hs(c, HS_DISK_W), t, r.disk_write_bps.v / 1e6);
			if (r.net_rx_bps.ok)
				gd_env_add(&c->env, html_hs(c, HS_NET_RX), t, r.net_rx_bps.v / 1e6);
			if (r.net_tx_bps.ok)
				gd_env_add(&c->env, html_hs(c, HS_NET_TX), t, r.net_tx_bps.v / 1e6);
		}
		if (s->psi.cpu_some_avg10.ok)
			gd_env_add(&c->env, html_hs(c, HS_PSI_CPU), t, s->psi.cpu_some_avg10.v);
		if (s->psi.io_some_avg10.ok)
			gd_env_add(&c->env, html_hs(c, HS_PSI_IO), t, s->psi.io_some_avg10.v);
		if (s->psi.memory_some_avg10.ok)
			gd_env_add(&c->env, html_hs(c, HS_PSI_MEM), t, s->psi.memory_some_avg10.v);
		if (s->mem.total_bytes.ok && s->mem.available_bytes.ok && s->mem.total_bytes.v)
			gd_env_add(&c->env, html_hs(c, HS_MEM), t,
				   100.0 - 100.0 * (double)s->mem.available_bytes.v / (double)s->mem.total_bytes.v);
	}
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

bool gd_html_gather(struct html_ctx *c, const struct gd_timeline *t)
{
	const struct gd_window *w = t->w;
	int pos[GD_EP_MAX_GPUS];
	double t0 = NAN, t1 = NAN, offset = NAN;
	size_t nt = 0;

	memset(c, 0, sizeof *c);
	c->t = t;
	for (int i = 0; i < GD_EP_MAX_GPUS; i++)
		pos[i] = -1;
	for (size_t i = 0; i < w->n; i++) {
		const struct gd_snapshot *s = w->snaps[i];

		if (s->host.uptime_s.ok) {
			if (!isfinite(t0))
				t0 = s->host.uptime_s.v;
			t1 = s->host.uptime_s.v;
			nt++;
			if (!isfinite(offset) && s->host.wall_time_s.ok)
				offset = s->host.wall_time_s.v - s->host.uptime_s.v;
		}
		GD_VEC_EACH(s->gpus, const struct gd_gpu, g)
			if (g->index.ok && g->index.v < GD_EP_MAX_GPUS)
				c->seen |= 1ull << g->index.v;
	}
	if (!isfinite(t0))
		t0 = t1 = 0;
	for (unsigned i = 0; i < GD_EP_MAX_GPUS; i++) {
		if (!(c->seen >> i & 1))
			continue;
		pos[i] = (int)c->ngpu;
		c->gpu[c->ngpu].idx = i;
		c->gpu[c->ngpu].smmax = c->gpu[c->ngpu].slow = c->gpu[c->ngpu].limit = NAN;
		c->gpu[c->ngpu].mem_total_gib = NAN;
		c->ngpu++;
	}
	c->dt = nt > 1 ? (t1 - t0) / (double)(nt - 1) : 1;
	gd_time_axis(t0, t1, isfinite(offset), offset, 10, &c->ta);
	if (!gd_env_init(&c->env, c->ngpu * GS_N + HS_N, HBINS, t0, t1))
		return false;
	gather_series(c, pos);
	mark_outliers(c, pos);
	return true;
}

void gd_html_ctx_release(struct html_ctx *c)
{
	gd_env_release(&c->env);
}
