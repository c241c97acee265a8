/*
 * view.c - the live view's layout (view.h): model in, lines out.  No
 * curses here, so the tests read exactly what the screen shows.
 */
#include "tui/view.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "output/rates.h"
#include "output/report_util.h"
#include "output/subject.h"
#include "rules/gpu_samples.h"
#include "rules/rule_job_threads.h"
#include "rules/thresholds.h"

struct screen {
	struct gd_vec *lines;
	int cols, rows;
};

/* Copies src into dst, at most cols display columns (a Chinese character
 * takes two; UTF-8 sequences are never split), control bytes shown as '?'
 * (a comm may hold any byte). */
static void fit(char *dst, size_t dstsz, const char *src, int cols)
{
	size_t o = 0, w = 0;

	for (const unsigned char *p = (const unsigned char *)src; *p;) {
		size_t len = 1, cw = 1;
		char one[5];

		if (*p >= 0xc0)
			while (p[len] && (p[len] & 0xc0) == 0x80 && len < 4)
				len++;
		if (*p >= 0xc0) {
			memcpy(one, p, len);
			one[len] = '\0';
			cw = gd_utf8_width(one);
		}
		if (w + cw > (size_t)cols || o + len >= dstsz)
			break;
		if (*p < 0x20 || *p == 0x7f || (*p >= 0x80 && *p < 0xc0)) {
			dst[o++] = '?';
		} else {
			memcpy(dst + o, p, len);
			o += len;
		}
		p += len;
		w += cw;
	}
	dst[o] = '\0';
}

static void add(struct screen *sc, enum gd_view_attr a, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void add(struct screen *sc, enum gd_view_attr a, const char *fmt, ...)
{
	char tmp[2048];
	struct gd_view_line *l;
	va_list ap;

	if ((int)sc->lines->n >= sc->rows)
		return;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	l = gd_vec_push(sc->lines, sizeof *l);
	l->attr = a;
	fit(l->text, sizeof l->text, tmp, sc->cols);
}

const char *gd_clock_reasons_str(unsigned long long bits, char *buf, size_t size)
{
	static const struct {
		unsigned long long bit;
		const char *name;
	} names[] = {
		{ 0x1, "gpu_idle" },     { 0x2, "app_clocks" },  { 0x4, "sw_power_cap" },
		{ 0x8, "hw_slowdown" },  { 0x10, "sync_boost" }, { 0x20, "sw_thermal" },
		{ 0x40, "hw_thermal" },  { 0x80, "power_brake" }, { 0x100, "display_clocks" },
	};
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof names / sizeof names[0] && len < size; i++)
		if (bits & names[i].bit)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "," : "", names[i].name);
	return buf;
}

/* "[#####.....]" of width w for pct (0..100), or spaces when unknown. */
static const char *bar(char *buf, int w, struct gd_f64 pct)
{
	int fill = pct.ok ? (int)lround(fmin(fmax(pct.v, 0), 100) * w / 100.0) : 0;

	buf[0] = '[';
	for (int i = 0; i < w; i++)
		buf[1 + i] = !pct.ok ? ' ' : i < fill ? '#' : '.';
	buf[w + 1] = ']';
	buf[w + 2] = '\0';
	return buf;
}

static const char *u64s(char *buf, size_t size, struct gd_u64 v, const char *suffix)
{
	if (v.ok)
		snprintf(buf, size, "%llu%s", (unsigned long long)v.v, suffix);
	else
		snprintf(buf, size, "-");
	return buf;
}

static const char *pair(char *buf, size_t size, bool aok, double a, bool bok, double b, const char *unit)
{
	if (!aok)
		snprintf(buf, size, "-");
	else if (bok)
		snprintf(buf, size, "%.0f/%.0f%s", a, b, unit);
	else
		snprintf(buf, size, "%.0f%s", a, unit);
	return buf;
}

/* How a GPU's row is drawn: by the worst severity of the active findings
 * that name it (a stalled GPU at least as a warning), and marked '!' when
 * it is the odd one out: a warning or critical finding that not every GPU
 * has, or stalled while most of its siblings are not. */
static enum gd_view_attr gpu_attr(const struct gd_view_model *m, const struct gd_snapshot *now, const struct gd_gpu *g,
				  enum gd_ep_state st, size_t nstalled, bool *odd)
{
	enum gd_severity worst = 0;
	size_t ngpu = now->gpus.n;

	*odd = st != GD_EP_NONE && ngpu > 1 && 2 * nstalled < ngpu;
	if (m->findings && g->index.ok)
		GD_VEC_EACH(m->findings->items, const struct gd_finding, x) {
			size_t same = 0;

			if (gd_subject_gpu(x->subject) != (int)g->index.v)
				continue;
			if (x->severity > worst)
				worst = x->severity;
			if (x->severity < GD_SEV_WARNING)
				continue;
			GD_VEC_EACH(m->findings->items, const struct gd_finding, y)
				same += strcmp(y->id, x->id) == 0 && gd_subject_gpu(y->subject) >= 0;
			*odd |= ngpu > 1 && same < ngpu;
		}
	if (worst == GD_SEV_CRITICAL)
		return GD_VA_CRIT;
	if (worst == GD_SEV_WARNING || st != GD_EP_NONE)
		return GD_VA_WARN;
	return worst == GD_SEV_INFO ? GD_VA_INFO : GD_VA_NORMAL;
}

/* The GPU table's columns after the index (and, 120 columns and wider, the
 * name and the bar): each as wide as its English heading's column, or as
 * its heading in the language in effect when that is wider. */
enum { GC_UTIL, GC_SM, GC_TEMP, GC_POWER, GC_MEM, GC_PCIE, GC_STATE, GC_REASONS, GC_N };

/* TRANSLATORS: watch's GPU table headings; a heading wider than its English
 * one widens its column */
static const char *const gpu_heads[GC_N] = { N_("UTIL"),   N_("SM MHz"), N_("TEMP/SLOW"), N_("POWER/LIMIT"),
					     N_("MEMORY"), N_("PCIE"),   N_("STATE"),     N_("REASONS") };

/* The columns' widths and their headings in the language in effect. */
static void gpu_columns(size_t *w, const char **heads)
{
	static const size_t minw[GC_N] = { 4, 10, 9, 11, 10, 5, 5, 0 };

	for (size_t i = 0; i < GC_N; i++) {
		size_t hw = gd_utf8_width(heads[i] = _(gpu_heads[i]));

		w[i] = hw > minw[i] ? hw : minw[i];
	}
}

/* cells[GC_N] as one row: each padded to its column (UTIL to the right),
 * one space between columns. */
static void gpu_cells(char *row, size_t size, const char *const *cells, const size_t *w)
{
	size_t o = 0;

	row[0] = '\0';
	for (size_t i = 0; i < GC_N && o + 1 < size; i++) {
		if (i) {
			row[o++] = ' ';
			row[o] = '\0';
		}
		if (i == GC_UTIL)
			gd_rpad(row + o, size - o, cells[i], w[i]);
		else
			gd_pad(row + o, size - o, cells[i], i + 1 < GC_N ? w[i] : 0);
		o += strlen(row + o);
	}
}

static void gpu_rows(struct screen *sc, const struct gd_view_model *m, const struct gd_snapshot *now, bool wide)
{
	char util[16], sm[24], temp[24], pw[24], mem[32], pcie[16], rs[160], b[40], head[512], name[64];
	size_t nstalled = 0, w[GC_N];
	const char *heads[GC_N];

	if (!now->gpus.n) {
		const char *st = now->nvml.status[0] ? now->nvml.status : _("not read");

		if (now->nvml.reason[0])
			add(sc, GD_VA_DIM, _("no GPUs: NVML %s: %s"), st, now->nvml.reason);
		else
			add(sc, GD_VA_DIM, _("no GPUs: NVML %s"), st);
		return;
	}
	gpu_columns(w, heads);
	gpu_cells(head, sizeof head, heads, w);
	if (wide)
		add(sc, GD_VA_HEAD, "GPU %s %-22s %s", gd_pad(name, sizeof name, _("NAME"), 20), "", head);
	else
		add(sc, GD_VA_HEAD, "GPU %s", head);
	GD_VEC_EACH(now->gpus, const struct gd_gpu, g)
		nstalled += gd_gpu_stall_state(now, g, m->th) != GD_EP_NONE;
	GD_VEC_EACH(now->gpus, const struct gd_gpu, g) {
		enum gd_ep_state st = gd_gpu_stall_state(now, g, m->th);
		bool odd;
		enum gd_view_attr attr = gpu_attr(m, now, g, st, nstalled, &odd);
		char idx[8], row[512], state[32];
		const char *cells[GC_N];

		u64s(idx, sizeof idx, g->index, "");
		if (g->lost.ok && g->lost.v) {
			add(sc, GD_VA_CRIT, _("%-3s lost: NVML answers GPU_IS_LOST (fell off the bus) !"), idx);
			continue;
		}
		/* TRANSLATORS: a GPU's state in watch's table (idle, slowed) */
		snprintf(state, sizeof state, "%s%s", st == GD_EP_IDLE ? _("idle") : st == GD_EP_SLOW ? _("slow") : "",
			 odd ? "!" : "");
		u64s(util, sizeof util, g->util_gpu_pct, "%");
		pair(sm, sizeof sm, g->sm_clock_mhz.ok, (double)g->sm_clock_mhz.v, g->sm_clock_max_mhz.ok,
		     (double)g->sm_clock_max_mhz.v, "");
		pair(temp, sizeof temp, g->temp_c.ok, g->temp_c.v, g->temp_slowdown_c.ok, g->temp_slowdown_c.v, "C");
		pair(pw, sizeof pw, g->power_w.ok, g->power_w.v, g->power_limit_w.ok, g->power_limit_w.v, "W");
		pair(mem, sizeof mem, g->mem_used_bytes.ok, (double)g->mem_used_bytes.v / 1073741824.0,
		     g->mem_total_bytes.ok, (double)g->mem_total_bytes.v / 1073741824.0, "G");
		if (g->pcie_gen.ok && g->pcie_width.ok)
			snprintf(pcie, sizeof pcie, "%llux%llu", (unsigned long long)g->pcie_gen.v,
				 (unsigned long long)g->pcie_width.v);
		else
			snprintf(pcie, sizeof pcie, "-");
		if (g->clock_event_reasons.ok)
			gd_clock_reasons_str(g->clock_event_reasons.v, rs, sizeof rs);
		else
			snprintf(rs, sizeof rs, "-");
		cells[GC_UTIL] = util;
		cells[GC_SM] = sm;
		cells[GC_TEMP] = temp;
		cells[GC_POWER] = pw;
		cells[GC_MEM] = mem;
		cells[GC_PCIE] = pcie;
		cells[GC_STATE] = state;
		cells[GC_REASONS] = rs;
		gpu_cells(row, sizeof row, cells, w);
		if (wide) {
			struct gd_f64 u = { (double)g->util_gpu_pct.v, g->util_gpu_pct.ok };
			char fitted[64];

			fit(fitted, sizeof fitted, g->name, 20);
			add(sc, attr, "%-3s %s %s %s", idx, gd_pad(name, sizeof name, fitted, 20), bar(b, 20, u), row);
		} else {
			add(sc, attr, "%-3s %s", idx, row);
		}
	}
}

static void host_rows(struct screen *sc, const struct gd_window *w, bool wide)
{
	const struct gd_snapshot *now = gd_window_last(w);
	struct gd_host_rates r;
	struct gd_f64 mem_pct = { 0, false };
	char b[40], x[32], y[32], psi[96] = "", cpu[32], memlab[32];
	int bw = wide ? 20 : 10;
	size_t lw;

	memset(&r, 0, sizeof r);
	if (w->n >= 2)
		gd_host_rates(w->snaps[w->n - 2], now, &r);
	if (now->psi.cpu_some_avg10.ok || now->psi.io_some_avg10.ok || now->psi.memory_some_avg10.ok)
		snprintf(psi, sizeof psi, "  PSI cpu %.1f io %.1f mem %.1f", now->psi.cpu_some_avg10.v,
			 now->psi.io_some_avg10.v, now->psi.memory_some_avg10.v);
	/* the two bars start in the same column: the labels padded alike */
	lw = gd_utf8_width(_("CPU"));
	if (gd_utf8_width(_("MEM")) > lw)
		lw = gd_utf8_width(_("MEM"));
	gd_pad(cpu, sizeof cpu, _("CPU"), lw);
	gd_pad(memlab, sizeof memlab, _("MEM"), lw);
	if (r.cpu_busy_pct.ok)
		add(sc, GD_VA_NORMAL, _("%s %s %3.0f%%  iowait %.0f%%%s"), cpu, bar(b, bw, r.cpu_busy_pct), r.cpu_busy_pct.v,
		    r.iowait_pct.ok ? r.iowait_pct.v : 0.0, psi);
	else
		add(sc, GD_VA_NORMAL, _("%s %s   -   iowait -%s"), cpu, bar(b, bw, r.cpu_busy_pct), psi);
	if (now->mem.total_bytes.ok && now->mem.available_bytes.ok && now->mem.total_bytes.v)
		gd_f64_set(&mem_pct, 100.0 - 100.0 * (double)now->mem.available_bytes.v / (double)now->mem.total_bytes.v);
	{
		char disk[96], net[96];

		snprintf(disk, sizeof disk, "%s", _("  disk -"));
		snprintf(net, sizeof net, "%s", _("  net -"));
		if (r.disk_read_bps.ok)
			snprintf(disk, sizeof disk, _("  disk r %s w %s"), gd_fmt_rate(x, sizeof x, r.disk_read_bps.v),
				 gd_fmt_rate(y, sizeof y, r.disk_write_bps.v));
		if (r.net_rx_bps.ok)
			snprintf(net, sizeof net, _("  net rx %s tx %s"), gd_fmt_rate(x, sizeof x, r.net_rx_bps.v),
				 gd_fmt_rate(y, sizeof y, r.net_tx_bps.v));
		if (mem_pct.ok)
			add(sc, GD_VA_NORMAL, _("%s %s %3.0f%% of %.0fG%s%s"), memlab, bar(b, bw, mem_pct), mem_pct.v,
			    (double)now->mem.total_bytes.v / 1073741824.0, disk, net);
		else
			add(sc, GD_VA_NORMAL, "%s %s   -%s%s", memlab, bar(b, bw, mem_pct), disk, net);
	}
}

/* A line per GPU job's main thread (a rank): where it spent the last
 * interval; and a line per GPU whose sub-second samples held a stall the
 * interval's reading hides.  At most GD_VIEW_JOBS ranks. */
#define GD_VIEW_JOBS 4
static void job_rows(struct screen *sc, const struct gd_view_model *m)
{
	const struct gd_snapshot *now = gd_window_last(m->w), *prev;
	const struct gd_window last2 = { m->w->snaps + m->w->n - 2, 2 };
	size_t shown = 0, more = 0;
	double dt, idle = m->th ? m->th->v[GD_TH_GPU_IDLE_UTIL_PCT] : 40;

	if (m->w->n < 2)
		return;
	prev = m->w->snaps[m->w->n - 2];
	if (!prev->host.uptime_s.ok || !now->host.uptime_s.ok || (dt = now->host.uptime_s.v - prev->host.uptime_s.v) <= 0)
		return;
	GD_VEC_EACH(now->job_threads, const struct gd_job_thread, t) {
		struct gd_jt_use u;
		char shares[128], core[16] = "-", wait[96] = "", rank[48];

		if (strcmp(t->role, "main") != 0 || !gd_jt_use_of(prev, now, dt, t, &u))
			continue;
		if (shown >= GD_VIEW_JOBS) {
			more++;
			continue;
		}
		shown++;
		snprintf(shares, sizeof shares, "%s", _("not sampled"));
		if (u.sampled && u.total > 0)
			gd_jt_shares(&u, shares, sizeof shares);
		if (!isnan(u.core_pct))
			snprintf(core, sizeof core, "%.0f%%", u.core_pct);
		if (u.syscall[0] && strcmp(u.syscall, "running") != 0)
			snprintf(wait, sizeof wait, _(" | waits in %.15s"), u.syscall);
		rank[0] = '\0';
		GD_VEC_EACH(now->job_ranks, const struct gd_job_rank, r)
			if (r->pid.ok && r->pid.v == u.pid)
				gd_job_rank_short(r, rank, sizeof rank);
		if (rank[0])
			/* TRANSLATORS: watch's line of a GPU job's main thread: its pid, name
			 * and rank ("rank 3/16"), how much of a core it used, where its time went */
			add(sc, GD_VA_NORMAL, _("JOB pid %llu (%s) %s, main thread %s of a core: %s%s"),
			    (unsigned long long)u.pid, u.comm, rank, core, shares, wait);
		else
			/* TRANSLATORS: watch's line of a GPU job's main thread: its pid and
			 * name, how much of a core it used, where its time went */
			add(sc, GD_VA_NORMAL, _("JOB pid %llu (%s) main thread %s of a core: %s%s"),
			    (unsigned long long)u.pid, u.comm, core, shares, wait);
	}
	if (more)
		add(sc, GD_VA_DIM, P_("JOB ... and %zu more rank", "JOB ... and %zu more ranks", more), more);
	GD_VEC_EACH(now->gpus, const struct gd_gpu, g) {
		struct gd_gpu_samples_sum gs;

		if (g->index.ok && gd_gpu_samples_window(&last2, g->index.v, idle, &gs) && gs.stall_ms > 0)
			add(sc, GD_VA_WARN,
			    _("GPU %llu stalled %.0f ms in the last interval: %zu samples every %.0f ms, min %.0f%%, mean %.0f%%"),
			    (unsigned long long)g->index.v, gs.stall_ms, gs.n, gs.period_ms, gs.min, gs.mean);
	}
}

static enum gd_view_attr sev_attr(enum gd_severity s)
{
	return s == GD_SEV_CRITICAL ? GD_VA_CRIT : s == GD_SEV_WARNING ? GD_VA_WARN : GD_VA_INFO;
}

size_t gd_view_layout(const struct gd_view_model *m, int cols, int rows, struct gd_vec *lines)
{
	struct screen sc = { lines, cols < 1 ? 1 : cols, rows < 0 ? 0 : rows };
	const struct gd_snapshot *now = gd_window_last(m->w);
	const struct gd_findings *f = m->findings;
	size_t nf = f ? f->items.n : 0, neps_show, nf_show;
	int fixed, room;
	bool wide = cols >= 120, remedies;
	char buf[1024];

	gd_vec_reset(lines);
	if (!now) {
		add(&sc, GD_VA_TITLE, "%s", _("gpudoctor watch: waiting for the first sample"));
		return lines->n;
	}
	add(&sc, GD_VA_TITLE,
	    P_("gpudoctor watch | host %s | up %.1f s | %zu GPU | every %.1f s",
	       "gpudoctor watch | host %s | up %.1f s | %zu GPUs | every %.1f s", now->gpus.n),
	    now->host.hostname[0] ? now->host.hostname : "?", now->host.uptime_s.ok ? now->host.uptime_s.v : 0.0,
	    now->gpus.n, m->interval_s);
	gpu_rows(&sc, m, now, wide);
	host_rows(&sc, m->w, wide);
	job_rows(&sc, m);

	/* What is left below the fixed part: two headers and the footer. */
	fixed = (int)lines->n + 3;
	room = sc.rows - fixed;
	neps_show = m->nepisodes ? m->nepisodes : 1;
	if (neps_show > 4)
		neps_show = 4;
	if (room - (int)neps_show < 1 && neps_show > 1)
		neps_show = 1;
	room -= (int)neps_show;
	nf_show = nf ? nf : 1;
	remedies = nf && (int)(2 * nf) <= room;
	if (!remedies && (int)nf > room)
		nf_show = room > 1 ? (size_t)room - 1 : 0;  /* leave a line for "... and N more" */

	add(&sc, GD_VA_HEAD, _("FINDINGS (%zu)"), nf);
	if (!nf)
		add(&sc, GD_VA_DIM, _("  none among the %zu rules evaluated"), f ? f->evaluated : 0);
	for (size_t i = 0; i < nf && i < nf_show; i++) {
		const struct gd_finding *x = GD_VEC_AT(f->items, const struct gd_finding, i);
		char sev[64];

		/* the severity column is 8 columns wide, whatever the language */
		gd_pad(sev, sizeof sev, gd_sev_label(x->severity), 8);
		add(&sc, sev_attr(x->severity), "%s %s %s: %s", sev, x->id, x->subject, x->summary);
		if (remedies)
			add(&sc, GD_VA_DIM, "  -> %s", x->remedy);
	}
	if (nf > nf_show && nf)
		add(&sc, GD_VA_DIM, _("  ... and %zu more"), nf - nf_show);

	if (m->periodic)
		add(&sc, GD_VA_HEAD, _("EPISODES (%zu, every %.1f s)"), m->nepisodes, m->period_s);
	else
		add(&sc, GD_VA_HEAD, _("EPISODES (%zu)"), m->nepisodes);
	if (!m->nepisodes)
		add(&sc, GD_VA_DIM, "%s", _("  no stall yet"));
	for (size_t k = 0; k < m->nepisodes && k < neps_show; k++) {
		const struct gd_episode *ep = &m->episodes[m->nepisodes - 1 - k];   /* newest first */

		add(&sc, ep->cause ? GD_VA_WARN : GD_VA_NORMAL, "%s", gd_episode_format(ep, buf, sizeof buf));
	}
	add(&sc, GD_VA_DIM,
	    P_("q quit | %zu samples | %zu rule not evaluated", "q quit | %zu samples | %zu rules not evaluated",
	       f ? f->unknown.n : 0),
	    m->w->n, f ? f->unknown.n : 0);
	return lines->n;
}

const char *gd_view_plain(const struct gd_view_model *m, char *buf, size_t size)
{
	const struct gd_snapshot *now = gd_window_last(m->w);
	struct gd_host_rates r;
	size_t len = 0;

#define APPEND(...) \
	do { \
		if (len < size) \
			len += (size_t)snprintf(buf + len, size - len, __VA_ARGS__); \
	} while (0)
	buf[0] = '\0';
	if (!now)
		return buf;
	APPEND("up %.1f", now->host.uptime_s.ok ? now->host.uptime_s.v : 0.0);
	GD_VEC_EACH(now->gpus, const struct gd_gpu, g) {
		APPEND(" | gpu%llu", (unsigned long long)g->index.v);
		if (g->lost.ok && g->lost.v) {
			APPEND(" lost");
			continue;
		}
		if (g->util_gpu_pct.ok)
			APPEND(" %llu%%", (unsigned long long)g->util_gpu_pct.v);
		if (g->sm_clock_mhz.ok)
			APPEND(" %lluMHz", (unsigned long long)g->sm_clock_mhz.v);
		if (g->temp_c.ok)
			APPEND(" %.0fC", g->temp_c.v);
		if (g->power_w.ok)
			APPEND(" %.0fW", g->power_w.v);
		if (gd_gpu_stall_state(now, g, m->th) != GD_EP_NONE)
			APPEND(" %s", gd_gpu_stall_state(now, g, m->th) == GD_EP_IDLE ? "idle" : "slow");
	}
	if (m->w->n >= 2) {
		gd_host_rates(m->w->snaps[m->w->n - 2], now, &r);
		if (r.cpu_busy_pct.ok)
			APPEND(" | cpu %.0f%% iowait %.0f%%", r.cpu_busy_pct.v, r.iowait_pct.ok ? r.iowait_pct.v : 0.0);
	}
	APPEND(" | findings:");
	if (!m->findings || !m->findings->items.n)
		APPEND(" none");
	else
		GD_VEC_EACH(m->findings->items, const struct gd_finding, x)
			APPEND(" %s(%s)", x->id, x->subject);
	APPEND(" | episodes: %zu", m->nepisodes);
	if (m->periodic)
		APPEND(" every %.1f s", m->period_s);
#undef APPEND
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = '?';
	return buf;
}
