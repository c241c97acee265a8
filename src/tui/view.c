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

#include "output/rates.h"
#include "output/subject.h"

struct screen {
	struct gd_vec *lines;
	int cols, rows;
};

/* Copies src into dst, at most cols characters (UTF-8 sequences are never
 * split), control bytes shown as '?' (a comm may hold any byte). */
static void fit(char *dst, size_t dstsz, const char *src, int cols)
{
	size_t o = 0;
	int chars = 0;

	for (const unsigned char *p = (const unsigned char *)src; *p;) {
		size_t len = 1;

		if (*p >= 0xc0)
			while (p[len] && (p[len] & 0xc0) == 0x80 && len < 4)
				len++;
		if (chars >= cols || o + len >= dstsz)
			break;
		if (*p < 0x20 || *p == 0x7f || (*p >= 0x80 && *p < 0xc0)) {
			dst[o++] = '?';
		} else {
			memcpy(dst + o, p, len);
			o += len;
		}
		p += len;
		chars++;
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

static void gpu_rows(struct screen *sc, const struct gd_view_model *m, const struct gd_snapshot *now, bool wide)
{
	char util[16], sm[24], temp[24], pw[24], mem[32], pcie[16], rs[160], b[40];
	size_t nstalled = 0;

	if (!now->gpus.n) {
		add(sc, GD_VA_DIM, "no GPUs: NVML %s%s%s", now->nvml.status[0] ? now->nvml.status : "not read",
		    now->nvml.reason[0] ? ": " : "", now->nvml.reason);
		return;
	}
	if (wide)
		add(sc, GD_VA_HEAD, "GPU %-20s %-22s UTIL SM MHz     TEMP/SLOW POWER/LIMIT MEMORY     PCIE  STATE REASONS",
		    "NAME", "");
	else
		add(sc, GD_VA_HEAD, "GPU UTIL SM MHz     TEMP/SLOW POWER/LIMIT MEMORY     PCIE  STATE REASONS");
	GD_VEC_EACH(now->gpus, const struct gd_gpu, g)
		nstalled += gd_gpu_stall_state(now, g, m->th) != GD_EP_NONE;
	GD_VEC_EACH(now->gpus, const struct gd_gpu, g) {
		enum gd_ep_state st = gd_gpu_stall_state(now, g, m->th);
		bool odd;
		enum gd_view_attr attr = gpu_attr(m, now, g, st, nstalled, &odd);
		char idx[8], row[512], state[8];

		u64s(idx, sizeof idx, g->index, "");
		if (g->lost.ok && g->lost.v) {
			add(sc, GD_VA_CRIT, "%-3s lost: NVML answers GPU_IS_LOST (fell off the bus) !", idx);
			continue;
		}
		snprintf(state, sizeof state, "%s%s", st == GD_EP_IDLE ? "idle" : st == GD_EP_SLOW ? "slow" : "",
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
		snprintf(row, sizeof row, "%4s %-10s %-9s %-11s %-10s %-5s %-5s %s", util, sm, temp, pw, mem, pcie,
			 state, rs);
		if (wide) {
			struct gd_f64 u = { (double)g->util_gpu_pct.v, g->util_gpu_pct.ok };
			char name[24];

			fit(name, sizeof name, g->name, 20);
			add(sc, attr, "%-3s %-20s %s %s", idx, name, bar(b, 20, u), row);
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
	char b[40], x[32], y[32], psi[96] = "";
	int bw = wide ? 20 : 10;

	memset(&r, 0, sizeof r);
	if (w->n >= 2)
		gd_host_rates(w->snaps[w->n - 2], now, &r);
	if (now->psi.cpu_some_avg10.ok || now->psi.io_some_avg10.ok || now->psi.memory_some_avg10.ok)
		snprintf(psi, sizeof psi, "  PSI cpu %.1f io %.1f mem %.1f", now->psi.cpu_some_avg10.v,
			 now->psi.io_some_avg10.v, now->psi.memory_some_avg10.v);
	if (r.cpu_busy_pct.ok)
		add(sc, GD_VA_NORMAL, "CPU %s %3.0f%%  iowait %.0f%%%s", bar(b, bw, r.cpu_busy_pct), r.cpu_busy_pct.v,
		    r.iowait_pct.ok ? r.iowait_pct.v : 0.0, psi);
	else
		add(sc, GD_VA_NORMAL, "CPU %s   -   iowait -%s", bar(b, bw, r.cpu_busy_pct), psi);
	if (now->mem.total_bytes.ok && now->mem.available_bytes.ok && now->mem.total_bytes.v)
		gd_f64_set(&mem_pct, 100.0 - 100.0 * (double)now->mem.available_bytes.v / (double)now->mem.total_bytes.v);
	{
		char disk[96] = "  disk -", net[96] = "  net -";

		if (r.disk_read_bps.ok)
			snprintf(disk, sizeof disk, "  disk r %s w %s", gd_fmt_rate(x, sizeof x, r.disk_read_bps.v),
				 gd_fmt_rate(y, sizeof y, r.disk_write_bps.v));
		if (r.net_rx_bps.ok)
			snprintf(net, sizeof net, "  net rx %s tx %s", gd_fmt_rate(x, sizeof x, r.net_rx_bps.v),
				 gd_fmt_rate(y, sizeof y, r.net_tx_bps.v));
		if (mem_pct.ok)
			add(sc, GD_VA_NORMAL, "MEM %s %3.0f%% of %.0fG%s%s", bar(b, bw, mem_pct), mem_pct.v,
			    (double)now->mem.total_bytes.v / 1073741824.0, disk, net);
		else
			add(sc, GD_VA_NORMAL, "MEM %s   -%s%s", bar(b, bw, mem_pct), disk, net);
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
		add(&sc, GD_VA_TITLE, "gpudoctor watch: waiting for the first sample");
		return lines->n;
	}
	add(&sc, GD_VA_TITLE, "gpudoctor watch | host %s | up %.1f s | %zu GPU%s | every %.1f s",
	    now->host.hostname[0] ? now->host.hostname : "?", now->host.uptime_s.ok ? now->host.uptime_s.v : 0.0,
	    now->gpus.n, now->gpus.n == 1 ? "" : "s", m->interval_s);
	gpu_rows(&sc, m, now, wide);
	host_rows(&sc, m->w, wide);

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

	add(&sc, GD_VA_HEAD, "FINDINGS (%zu)", nf);
	if (!nf)
		add(&sc, GD_VA_DIM, "  none among the %zu rules evaluated", f ? f->evaluated : 0);
	for (size_t i = 0; i < nf && i < nf_show; i++) {
		const struct gd_finding *x = GD_VEC_AT(f->items, const struct gd_finding, i);
		char sev[16];

		snprintf(sev, sizeof sev, "%s", gd_severity_name(x->severity));
		for (char *p = sev; *p; p++)
			*p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
		add(&sc, sev_attr(x->severity), "%-8s %s %s: %s", sev, x->id, x->subject, x->summary);
		if (remedies)
			add(&sc, GD_VA_DIM, "  -> %s", x->remedy);
	}
	if (nf > nf_show && nf)
		add(&sc, GD_VA_DIM, "  ... and %zu more", nf - nf_show);

	if (m->periodic)
		add(&sc, GD_VA_HEAD, "EPISODES (%zu, every %.1f s)", m->nepisodes, m->period_s);
	else
		add(&sc, GD_VA_HEAD, "EPISODES (%zu)", m->nepisodes);
	if (!m->nepisodes)
		add(&sc, GD_VA_DIM, "  no stall yet");
	for (size_t k = 0; k < m->nepisodes && k < neps_show; k++) {
		const struct gd_episode *ep = &m->episodes[m->nepisodes - 1 - k];   /* newest first */

		add(&sc, ep->cause ? GD_VA_WARN : GD_VA_NORMAL, "%s", gd_episode_format(ep, buf, sizeof buf));
	}
	add(&sc, GD_VA_DIM, "q quit | %zu samples | %zu rule%s not evaluated", m->w->n, f ? f->unknown.n : 0,
	    f && f->unknown.n == 1 ? "" : "s");
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
