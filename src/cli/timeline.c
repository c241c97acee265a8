/*
 * timeline.c - watch, record and report (timeline.h).
 *
 * watch and record sample the host every --interval on a monotonic schedule
 * (a slow collection does not shift later samples), and stop cleanly on
 * SIGINT or SIGTERM: the handler only sets a flag, which the loops check
 * after every sleep.  That flag is the one global of gpudoctor, as a signal
 * handler leaves no other way.
 *
 * watch keeps the last WATCH_RING snapshots: the rules run over the last
 * two seconds of them (the "active" findings), episodes over all of them;
 * episodes that have ended are kept in a history (up to WATCH_HISTORY) after
 * their samples leave the ring, so the screen lists the latest episodes and
 * their period over the whole session.  On a terminal it draws with curses
 * (tui.h); when libncursesw cannot be loaded it says so on stderr and prints
 * the plain lines it prints to a pipe.
 */
#include "cli/cli.h"
#include "cli/timeline.h"
#include "core/nofile.h"
#include "model/recording.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collect/collect.h"
#include "model/snapshot_json.h"
#include "collect/job_samples.h"
#include "core/i18n.h"
#include "core/outfile.h"
#include "nvml/nvml.h"
#include "output/output.h"
#include "output/timeline.h"
#include "rules/episodes.h"
#include "tui/tui.h"
#include "tui/view.h"

#define EXIT_CANNOT_RUN 3
#define WATCH_RING 240
#define WATCH_HISTORY 1000
#define RECENT_S 2.0

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void install_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleeps until the monotonic time t, or until a stop signal. */
static void sleep_until(double t)
{
	double now;

	while (!stop_flag && (now = mono()) < t) {
		double d = t - now;
		struct timespec ts = { (time_t)d, (long)((d - (double)(time_t)d) * 1e9) };

		if (nanosleep(&ts, NULL) < 0 && errno != EINTR)
			break;
	}
}

/* The collectors' context over an open root; NVML opened once. */
static int sampler_open(const struct gd_run_opts *o, struct gd_root *root, struct gd_collect_ctx *ctx)
{
	struct gd_err err;

	gd_err_clear(&err);
	if (gd_root_open(root, o->root ? o->root : "/", &err) < 0)
		return gd_cli_fail("%s", err.msg);
	memset(ctx, 0, sizeof *ctx);
	ctx->root = root;
	ctx->nvml_path = o->nvml_path;
	ctx->nvml_timeout_s = o->nvml_timeout_s;
	ctx->klog_lookback_s = o->lookback_s;
	ctx->nvml = gd_nvml_open(ctx->nvml_path, ctx->nvml_timeout_s);
	ctx->sampler = root->is_host ? gd_job_sampler_new() : NULL;
	gd_nofile_raise(GD_NOFILE_WANT);   /* the files the tiered walk holds (collect.h) */
	ctx->proc_cache = gd_proc_cache_new_tiered(GD_PROC_YOUNG, GD_PROC_SLOW_ROUND);
	return -1;
}

static void sampler_close(struct gd_root *root, struct gd_collect_ctx *ctx)
{
	gd_job_sampler_free(ctx->sampler);
	gd_proc_cache_free(ctx->proc_cache);
	gd_nvml_close(ctx->nvml);
	gd_root_release(root);
}

/* ---- watch ---------------------------------------------------------------- */

struct watch {
	struct gd_snapshot ring[WATCH_RING];
	const struct gd_snapshot *ptrs[WATCH_RING];
	size_t n;
	struct gd_vec history;   /* struct gd_episode, ended, time order */
	struct gd_vec shown;     /* history plus the episode going on */
	struct gd_findings f;
	struct gd_episodes e;
	struct gd_vec lines;
};

static struct gd_snapshot *ring_push(struct watch *wa)
{
	if (wa->n == WATCH_RING) {
		gd_snapshot_release(&wa->ring[0]);
		memmove(&wa->ring[0], &wa->ring[1], (WATCH_RING - 1) * sizeof wa->ring[0]);
		wa->n--;
	}
	gd_snapshot_init(&wa->ring[wa->n]);
	return &wa->ring[wa->n++];
}

static bool overlaps(const struct gd_vec *hist, const struct gd_episode *ep)
{
	GD_VEC_EACH(*hist, const struct gd_episode, h)
		if (ep->start_s <= h->end_s && h->start_s <= ep->end_s)
			return true;
	return false;
}

/* Rules over the last RECENT_S, episodes over the ring, history merged. */
static void watch_analyse(struct watch *wa, const struct gd_run_opts *o, struct gd_view_model *m)
{
	struct gd_window all = { wa->ptrs, wa->n }, recent;
	size_t k = wa->n - 1;
	const struct gd_snapshot *last = &wa->ring[wa->n - 1];

	for (size_t i = 0; i < wa->n; i++)
		wa->ptrs[i] = &wa->ring[i];
	while (k > 0 && last->host.uptime_s.ok && wa->ring[k].host.uptime_s.ok &&
	       last->host.uptime_s.v - wa->ring[k].host.uptime_s.v < RECENT_S)
		k--;
	recent.snaps = wa->ptrs + k;
	recent.n = wa->n - k;
	gd_findings_release(&wa->f);
	gd_findings_init(&wa->f);
	gd_engine_run(&recent, o->th, &wa->f);
	gd_episodes_detect(&all, o->th, 0, &wa->e);
	gd_vec_reset(&wa->shown);
	GD_VEC_EACH(wa->e.items, const struct gd_episode, ep) {
		if (ep->open || overlaps(&wa->history, ep))
			continue;
		if (wa->history.n >= WATCH_HISTORY) {
			memmove(wa->history.items, (struct gd_episode *)wa->history.items + 1,
				(wa->history.n - 1) * sizeof *ep);
			wa->history.n--;
		}
		*(struct gd_episode *)gd_vec_push(&wa->history, sizeof *ep) = *ep;
	}
	GD_VEC_EACH(wa->history, const struct gd_episode, h)
		*(struct gd_episode *)gd_vec_push(&wa->shown, sizeof *h) = *h;
	GD_VEC_EACH(wa->e.items, const struct gd_episode, ep)
		if (ep->open)
			*(struct gd_episode *)gd_vec_push(&wa->shown, sizeof *ep) = *ep;
	memset(m, 0, sizeof *m);
	m->w = &all;
	m->th = o->th;
	m->findings = &wa->f;
	m->episodes = wa->shown.items;
	m->nepisodes = wa->shown.n;
	m->periodic = gd_episodes_period(wa->shown.items, wa->shown.n, o->interval_s, o->th, &m->period_s,
					 &(double){ 0 });
	m->interval_s = o->interval_s;
}

/* tui NULL: one plain line. */
static void watch_draw(struct watch *wa, struct gd_view_model *m, struct gd_tui *tui)
{
	struct gd_window all = { wa->ptrs, wa->n };
	char line[4096];

	m->w = &all;
	if (tui) {
		int cols, rows;

		gd_tui_size(tui, &cols, &rows);
		gd_view_layout(m, cols, rows, &wa->lines);
		gd_tui_draw(tui, &wa->lines);
	} else {
		printf("%s\n", gd_view_plain(m, line, sizeof line));
		fflush(stdout);
	}
	m->w = NULL;
}

int gd_cmd_watch(const struct gd_run_opts *o)
{
	struct gd_root root;
	struct gd_collect_ctx ctx;
	struct watch *wa;
	struct gd_view_model m;
	struct gd_tui *tui = NULL;
	struct gd_err err;
	bool tty = isatty(STDOUT_FILENO) && isatty(STDIN_FILENO), quit = false;
	double start, next;
	int rc;

	if ((rc = sampler_open(o, &root, &ctx)) >= 0)
		return rc;
	wa = calloc(1, sizeof *wa);
	if (!wa) {
		sampler_close(&root, &ctx);
		return gd_cli_fail(_("out of memory"));
	}
	install_stop();
	gd_err_clear(&err);
	rc = tty ? gd_tui_start(&tui, GD_TUI_SONAME, o->color, &err) : 0;
	if (rc == GD_TUI_NOLIB) {
		fprintf(stderr, _("gpudoctor: watch: %s: plain lines instead of the full screen\n"), err.msg);
	} else if (rc < 0) {
		free(wa);
		sampler_close(&root, &ctx);
		return gd_cli_fail("watch: %s", err.msg);
	}
	start = next = mono();
	while (!quit && !stop_flag) {
		gd_collect_all(&ctx, ring_push(wa));
		watch_analyse(wa, o, &m);
		watch_draw(wa, &m, tui);
		if (o->duration_s > 0 && mono() - start >= o->duration_s)
			break;
		next += o->interval_s;
		if (next < mono())
			next = mono();
		if (!tui) {
			sleep_until(next);
			continue;
		}
		for (double now = mono(); now < next && !stop_flag; now = mono()) {
			int key = gd_tui_key(tui, (int)ceil((next - now) * 1000));

			if (key == 'q' || key == 'Q') {
				quit = true;
				break;
			}
			if (key == GD_TUI_RESIZE || key == 12 /* ^L */)
				watch_draw(wa, &m, tui);
		}
	}
	gd_tui_end(tui);
	for (size_t i = 0; i < wa->n; i++)
		gd_snapshot_release(&wa->ring[i]);
	gd_vec_release(&wa->history);
	gd_vec_release(&wa->shown);
	gd_vec_release(&wa->lines);
	gd_findings_release(&wa->f);
	gd_episodes_release(&wa->e);
	free(wa);
	sampler_close(&root, &ctx);
	return 0;
}

/* ---- record --------------------------------------------------------------- */

int gd_cmd_record(const struct gd_run_opts *o)
{
	struct gd_root root;
	struct gd_collect_ctx ctx;
	struct gd_rec rec;
	struct gd_err err;
	bool progress = isatty(STDERR_FILENO);
	size_t count = 0;
	double start, next;
	int rc = 0;

	if (!o->output)
		return gd_cli_fail(_("record: name the output file with -o FILE (e.g. -o run.jsonl.gz)"));
	if ((rc = sampler_open(o, &root, &ctx)) >= 0)
		return rc;
	rc = 0;
	gd_err_clear(&err);
	start = next = mono();
	if (gd_rec_open(&rec, o->output, o->max_bytes, o->max_age_s, o->full_every, start, &err) < 0) {
		sampler_close(&root, &ctx);
		return gd_cli_fail("%s", err.msg);
	}
	if (rec.cut_bytes > 0)
		fprintf(stderr,
			_("gpudoctor record: %s ended inside a snapshot (an interrupted recording): its last %lld bytes "
			  "are taken off, and the recording goes on after the last whole one\n"),
			o->output, rec.cut_bytes);
	install_stop();
	while (!stop_flag) {
		struct gd_snapshot s;

		gd_snapshot_init(&s);
		gd_collect_all(&ctx, &s);
		if (gd_rec_write(&rec, &s, mono(), &err) < 0)
			rc = gd_cli_fail(_("writing snapshot %zu: %s"), count + 1, err.msg);
		gd_snapshot_release(&s);
		if (rc)
			break;
		count++;
		if (progress) {
			fputc('\r', stderr);
			fprintf(stderr, P_("gpudoctor record: %zu snapshot, %.0f s -> %s ",
					   "gpudoctor record: %zu snapshots, %.0f s -> %s ", count),
				count, mono() - start, o->output);
		}
		next += o->interval_s;
		if (o->duration_s > 0 && next - start > o->duration_s + 1e-6)
			break;
		sleep_until(next);
	}
	if (progress)
		fputc('\n', stderr);
	if (gd_rec_close(&rec, &err) < 0 && !rc)
		rc = gd_cli_fail("%s", err.msg);
	sampler_close(&root, &ctx);
	if (!rc) {
		/* TRANSLATORS: " (gzip)", " (stopped by a signal)" and "; rotated" may follow */
		fprintf(stderr, P_("gpudoctor: recorded %zu snapshot to %s", "gpudoctor: recorded %zu snapshots to %s",
				   count),
			count, o->output);
		if (rec.gz)
			fputs(_(" (gzip)"), stderr);
		if (stop_flag)
			fputs(_(" (stopped by a signal)"), stderr);
		if (rec.rotations)
			fprintf(stderr, P_("; rotated %u time (the previous file is %s.1)",
					   "; rotated %u times (the previous file is %s.1)", rec.rotations),
				rec.rotations, o->output);
		fputc('\n', stderr);
	}
	return rc;
}

/* ---- report --------------------------------------------------------------- */

/* "gpudoctor: wrote run.html: 600 snapshots, 2 episodes, 1 finding": two
 * counts with a plural each, so the findings are a message of their own. */
static void wrote(const char *path, size_t snaps, size_t episodes, size_t findings)
{
	char fs[64];

	snprintf(fs, sizeof fs, P_("%zu finding", "%zu findings", findings), findings);
	/* TRANSLATORS: the last %s is "%zu finding(s)" */
	fprintf(stderr, P_("gpudoctor: wrote %s: %zu snapshots, %zu episode, %s\n",
			   "gpudoctor: wrote %s: %zu snapshots, %zu episodes, %s\n", episodes),
		path, snaps, episodes, fs);
}

/*
 * report streams the recording: one snapshot is parsed at a time and kept in
 * a ring of the last REPORT_RING; the rules run over the ring every
 * REPORT_STEP snapshots once it is full (and once at the end), their
 * findings merged (gd_engine_acc); episodes are found as the snapshots go
 * by (gd_ep_stream: a few bytes per sample), and what the page and the text
 * draw is gathered into bounded envelopes (gd_tl_acc).  A recording of up
 * to REPORT_RING snapshots is analysed whole, as check analyses a window.
 * Memory: the ring (REPORT_RING snapshots), about 24 + GPUs bytes per
 * sample for the episodes, and the envelopes (a few MB), whatever the
 * length.
 */
#define REPORT_RING 600
#define REPORT_STEP 300

struct report {
	const struct gd_run_opts *o;
	struct gd_snapshot *ring;       /* REPORT_RING, circular from head */
	const struct gd_snapshot **ptrs;/* the ring in time order */
	size_t head, n, total, last_run, skipped;
	struct gd_snapshot first;       /* the series' first, once it left the ring */
	bool have_first;
	struct gd_engine_acc eng;
	struct gd_ep_stream *eps;
	struct gd_tl_acc *acc;
};

static struct gd_window ring_window(struct report *r)
{
	for (size_t i = 0; i < r->n; i++)
		r->ptrs[i] = &r->ring[(r->head + i) % REPORT_RING];
	return (struct gd_window){ r->ptrs, r->n };
}

static const struct gd_snapshot *ring_last(const struct report *r)
{
	return r->n ? &r->ring[(r->head + r->n - 1) % REPORT_RING] : NULL;
}

/* Takes s (its contents move into the ring); false when out of memory. */
static bool report_push(struct report *r, struct gd_snapshot *s)
{
	const struct gd_snapshot *prev = ring_last(r);
	struct gd_window w;
	bool ok;

	if (prev && prev->host.uptime_s.ok && s->host.uptime_s.ok && s->host.uptime_s.v < prev->host.uptime_s.v) {
		/* time order is what every rule and chart assumes */
		r->skipped++;
		gd_snapshot_release(s);
		return true;
	}
	if (r->n == REPORT_RING) {
		struct gd_snapshot *old = &r->ring[r->head];

		if (r->total == REPORT_RING) {
			r->first = *old;
			r->have_first = true;
		} else {
			gd_snapshot_release(old);
		}
		r->head = (r->head + 1) % REPORT_RING;
		r->n--;
	}
	r->ring[(r->head + r->n) % REPORT_RING] = *s;
	gd_snapshot_init(s);
	prev = r->n ? &r->ring[(r->head + r->n - 1) % REPORT_RING] : NULL;
	r->n++;
	r->total++;
	w = ring_window(r);
	ok = gd_tl_acc_add(r->acc, prev, gd_window_last(&w));
	ok = gd_ep_stream_push(r->eps, &w, r->total - r->n) && ok;
	if (r->total >= REPORT_RING && (r->total - REPORT_RING) % REPORT_STEP == 0) {
		gd_engine_acc_run(&r->eng, &w, r->o->th);
		r->last_run = r->total;
	}
	return ok;
}

/* The readers in the order of their first snapshots' uptimes. */
struct input {
	struct gd_jsonl_reader rd;
	struct gd_snapshot s;      /* the next snapshot */
	int state;                 /* 1: s holds one; 0: the end */
};

static int by_first(const void *a, const void *b)
{
	const struct input *x = *(const struct input *const *)a, *y = *(const struct input *const *)b;
	double u = x->state > 0 && x->s.host.uptime_s.ok ? x->s.host.uptime_s.v : 0;
	double v = y->state > 0 && y->s.host.uptime_s.ok ? y->s.host.uptime_s.v : 0;

	return u < v ? -1 : u > v ? 1 : x < y ? -1 : x > y;
}

static int report_read(struct report *r, char *note, size_t note_size, struct gd_err *err)
{
	const struct gd_run_opts *o = r->o;
	struct input *in = calloc(o->ninputs, sizeof *in);
	struct input **order = calloc(o->ninputs, sizeof *order);
	size_t opened = 0;
	int rc = 0;

	if (!in || !order) {
		free(in);
		free(order);
		return gd_err_set(err, -ENOMEM, _("out of memory"));
	}
	for (; opened < o->ninputs && rc == 0; opened++) {
		order[opened] = &in[opened];
		gd_snapshot_init(&in[opened].s);
		if ((rc = gd_jsonl_open(&in[opened].rd, o->inputs[opened], err)) < 0)
			break;
		/* parsing the next snapshots (most of report's time) overlaps the rules */
		gd_jsonl_prefetch(&in[opened].rd);
		rc = in[opened].state = gd_jsonl_next(&in[opened].rd, &in[opened].s, err);
		rc = rc < 0 ? rc : 0;
	}
	if (rc == 0)
		qsort(order, o->ninputs, sizeof *order, by_first);
	for (size_t i = 0; i < o->ninputs && rc == 0; i++) {
		struct input *x = order[i];

		while (x->state > 0 && rc == 0) {
			if (!report_push(r, &x->s))
				rc = gd_err_set(err, -ENOMEM, _("out of memory"));
			else if ((x->state = gd_jsonl_next(&x->rd, &x->s, err)) < 0)
				rc = x->state;
		}
	}
	for (size_t i = 0; i < opened; i++) {
		struct input *x = &in[i];

		if (x->rd.note[0]) {
			size_t len = strlen(note);

			snprintf(note + len, note_size - len, "%s%s", len ? "; " : "", x->rd.note);
		}
		gd_snapshot_release(&x->s);
		gd_jsonl_close(&x->rd);
	}
	free(in);
	free(order);
	return rc;
}

int gd_cmd_report(const struct gd_run_opts *o)
{
	struct report *r;
	struct gd_err err;
	const struct gd_snapshot *ends[2];
	struct gd_window w, all;
	struct gd_findings f;
	struct gd_episodes e;
	struct gd_timeline t;
	char origin[512] = "", note[1024] = "";
	FILE *out = stdout;
	int rc = 0;

	if (!o->ninputs)
		return gd_cli_fail(_("report: name the recording, e.g. gpudoctor report run.jsonl -o run.html"));
	for (size_t i = 0; i < o->ninputs; i++)
		snprintf(origin + strlen(origin), sizeof origin - strlen(origin), "%s%s", i ? ", " : "", o->inputs[i]);
	r = calloc(1, sizeof *r);
	if (!r || !(r->ring = calloc(REPORT_RING, sizeof *r->ring)) || !(r->ptrs = calloc(REPORT_RING, sizeof *r->ptrs)) ||
	    !gd_engine_acc_init(&r->eng) || !(r->eps = gd_ep_stream_new(o->th, 0)) || !(r->acc = gd_tl_acc_new(o->th))) {
		rc = gd_cli_fail(_("out of memory"));
		goto out;
	}
	r->o = o;
	gd_err_clear(&err);
	if (report_read(r, note, sizeof note, &err) < 0) {
		rc = gd_cli_fail("%s", err.msg);
		goto out;
	}
	if (note[0])
		fprintf(stderr, _("gpudoctor: note: %s\n"), note);
	if (r->skipped)
		fprintf(stderr, P_("gpudoctor: note: %zu snapshot out of time order left out\n",
				   "gpudoctor: note: %zu snapshots out of time order left out\n", r->skipped),
			r->skipped);
	if (!r->total) {
		rc = gd_cli_fail(_("%s: no snapshots in the recording"), origin);
		goto out;
	}
	all = ring_window(r);
	if (r->last_run != r->total)
		gd_engine_acc_run(&r->eng, &all, o->th);
	gd_findings_init(&f);
	gd_episodes_init(&e);
	gd_engine_acc_finish(&r->eng, &f);
	gd_ep_stream_finish(r->eps, &all, r->total - r->n, &e);
	/* the first and the last snapshot: the header's host, span and rates */
	ends[0] = r->have_first ? &r->first : all.snaps[0];
	ends[1] = gd_window_last(&all);
	w.snaps = ends;
	w.n = ends[0] == ends[1] ? 1 : 2;
	t.w = &w;
	t.samples = r->total;
	t.acc = r->acc;
	t.findings = &f;
	t.episodes = &e;
	t.origin = origin;
	t.th = o->th;
	if (o->output && !(out = gd_outfile_fopen(o->output, false))) {
		rc = gd_cli_fail("%s: %s", o->output, gd_outfile_strerror(errno));
	} else {
		if (o->json) {
			json_t *doc = gd_out_timeline_json(&t);

			json_dumpf(doc, out, JSON_INDENT(1) | JSON_ENSURE_ASCII);
			fputc('\n', out);
			json_decref(doc);
		} else if (o->text) {
			gd_out_timeline_text(out, &t, o->color && !o->output);
		} else {
			gd_out_html(out, &t);
		}
		if ((out == stdout ? fflush(out) : fclose(out)) == EOF)
			rc = gd_cli_fail("%s: %s", o->output ? o->output : _("standard output"), strerror(errno));
		else if (o->output)
			wrote(o->output, r->total, e.items.n, f.items.n);
	}
	gd_findings_release(&f);
	gd_episodes_release(&e);
out:
	if (r) {
		for (size_t i = 0; r->ring && i < r->n; i++)
			gd_snapshot_release(&r->ring[(r->head + i) % REPORT_RING]);
		if (r->have_first)
			gd_snapshot_release(&r->first);
		free(r->ring);
		free(r->ptrs);
		gd_engine_acc_release(&r->eng);
		gd_ep_stream_free(r->eps);
		gd_tl_acc_free(r->acc);
		free(r);
	}
	return rc;
}
