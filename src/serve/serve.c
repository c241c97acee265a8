/*
 * serve.c - the collector thread, publishing, the listening socket and the
 * life cycle of `gpudoctor serve`.
 *
 * Threads: the main thread (waits for SIGINT/SIGTERM with sigtimedwait, the
 * signals blocked in every thread, so no handler and no global flag), the
 * collector thread (below), and the HTTP thread's epoll loop (http.c).
 * They share one struct gd_server; its mutex guards the pointer to the
 * latest result, the reference counts and the counters.
 *
 * One cycle, every interval: collect a snapshot into the ring (the oldest is
 * released), run the rules over the window of the ring's snapshots in time
 * order, render metrics (out_prom.c) and the findings JSON (out_json.c),
 * read the exporter's own RSS, publish.  Worked example: --interval 1s
 * --window 2s keeps 3 snapshots, rates span 2 s, and a result is withdrawn
 * when it is older than max(3 x 1 s, 1 s + 2 s) = 3 s.
 *
 * The one absolute path: /proc/self/statm, the exporter's own resident
 * memory (process_resident_memory_bytes), which is not evidence about the
 * host and must not follow --root.
 */
#include "serve/serve.h"
#include "serve/confine.h"
#include "core/nofile.h"
#include "serve/probe_results.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <malloc.h>
#include <math.h>
#include <netdb.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "collect/collect.h"
#include "core/xalloc.h"
#include "collect/job_samples.h"
#include "core/i18n.h"
#include "nvml/nvml.h"
#include "rules/episodes.h"
#include "output/output.h"
#include "rules/rule.h"

#define JOIN_WAIT_S 5

double gd_serve_mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void gd_published_free(struct gd_published *p)
{
	if (!p)
		return;
	free(p->metrics);
	free(p->metrics_gz);
	free(p->findings);
	free(p);
}

/* The result in *slot with a reference taken; *missing (when not NULL)
 * says whether the other language has no catalogue. */
static struct gd_published *acquire(struct gd_server *srv, struct gd_published *const *slot, double *age_s,
				    bool *missing)
{
	struct gd_published *p;

	pthread_mutex_lock(&srv->lock);
	p = *slot;
	if (p)
		p->refs++;
	if (missing)
		*missing = srv->alt_missing;
	pthread_mutex_unlock(&srv->lock);
	*age_s = p ? gd_serve_mono_now() - p->mono_s : INFINITY;
	return p;
}

struct gd_published *gd_serve_acquire(struct gd_server *srv, double *age_s)
{
	return acquire(srv, &srv->cur, age_s, NULL);
}

void gd_serve_release(struct gd_server *srv, struct gd_published *p)
{
	bool last;

	if (!p)
		return;
	pthread_mutex_lock(&srv->lock);
	last = --p->refs == 0;
	pthread_mutex_unlock(&srv->lock);
	if (last)
		gd_published_free(p);
}

struct gd_published *gd_serve_acquire_alt(struct gd_server *srv, double *age_s, bool *missing)
{
	return acquire(srv, &srv->alt, age_s, missing);
}

void gd_serve_want_alt(struct gd_server *srv)
{
	atomic_store(&srv->alt_asked_ms, (long long)(gd_serve_mono_now() * 1000) + 1);
	pthread_mutex_lock(&srv->lock);
	if (!srv->alt && !srv->alt_missing && !srv->alt_kick) {
		srv->alt_kick = true;
		pthread_cond_broadcast(&srv->wake);
	}
	pthread_mutex_unlock(&srv->lock);
}

bool gd_serve_fresh(const struct gd_server *srv, const struct gd_published *p, double age_s)
{
	return p && age_s <= srv->deadline_s;
}

/* Makes p (NULL: none) the latest result, or the latest in the other
 * language when alt. */
static void publish_to(struct gd_server *srv, struct gd_published *p, bool alt)
{
	struct gd_published *old, **slot = alt ? &srv->alt : &srv->cur;
	bool last = false;

	if (p)
		p->refs = 1;  /* the server's own reference */
	pthread_mutex_lock(&srv->lock);
	old = *slot;
	*slot = p;
	if (old)
		last = --old->refs == 0;
	pthread_mutex_unlock(&srv->lock);
	if (last)
		gd_published_free(old);
}

static void publish(struct gd_server *srv, struct gd_published *p)
{
	publish_to(srv, p, false);
}

/* Resident memory of this process from /proc/self/statm (field 2, pages). */
static bool self_rss(uint64_t *bytes)
{
	char buf[128];
	unsigned long long size, res;
	ssize_t n;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &size, &res) != 2)
		return false;
	*bytes = (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
	return true;
}

/* Renders one cycle's result over the window. */
/* Advances the per-GPU stall counters with the newest snapshot. */
static void track_stalls(struct gd_server *srv, const struct gd_snapshot *now)
{
	double t = now->host.uptime_s.ok ? now->host.uptime_s.v : NAN;

	GD_VEC_EACH(now->gpus, const struct gd_gpu, g) {
		struct gd_stall_track *st;

		if (!g->index.ok || g->index.v >= sizeof srv->stall / sizeof srv->stall[0])
			continue;
		st = &srv->stall[g->index.v];
		if (gd_gpu_in_use(now, g, srv->opts->th))
			st->seen = true;
		if (gd_gpu_stall_state(now, g, srv->opts->th) == GD_EP_NONE) {
			st->run = 0;
		} else {
			st->run++;
			if (st->run == 2)
				st->episodes++;
			if (st->run >= 2 && isfinite(t) && isfinite(st->last_s) && t > st->last_s)
				st->stalled_s += t - st->last_s;
		}
		st->last_s = t;
	}
}

static void write_stalls(FILE *m, const struct gd_server *srv)
{
	static const char *const fam[][3] = {
		{ "gpudoctor_gpu_stall_episodes_total", "counter",
		  "stall episodes (a GPU holding a job's context idle or slowed for two samples or more) since the exporter started" },
		{ "gpudoctor_gpu_stalled_seconds_total", "counter", "seconds spent in those stall episodes" },
		{ "gpudoctor_gpu_stalled", "gauge", "1 while the GPU is in a stall episode" },
	};

	for (size_t k = 0; k < 3; k++) {
		bool head = false;

		for (size_t i = 0; i < sizeof srv->stall / sizeof srv->stall[0]; i++) {
			const struct gd_stall_track *st = &srv->stall[i];

			if (!st->seen)
				continue;
			if (!head)
				fprintf(m, "# HELP %s %s\n# TYPE %s %s\n", fam[k][0], fam[k][2], fam[k][0], fam[k][1]);
			head = true;
			if (k == 0)
				fprintf(m, "%s{gpu=\"%zu\"} %llu\n", fam[k][0], i, (unsigned long long)st->episodes);
			else if (k == 1)
				fprintf(m, "%s{gpu=\"%zu\"} %.3f\n", fam[k][0], i, st->stalled_s);
			else
				fprintf(m, "%s{gpu=\"%zu\"} %d\n", fam[k][0], i, st->run >= 2);
		}
	}
}

/* The findings JSON of report r, one line, into p. */
static void render_findings(struct gd_published *p, const struct gd_report *r)
{
	json_t *doc = gd_out_json(r);
	char *js = json_dumps(doc, JSON_COMPACT | JSON_ENSURE_ASCII);

	json_decref(doc);
	if (!js) {
		fputs(_("gpudoctor: out of memory rendering findings\n"), stderr);
		abort();
	}
	p->findings_len = strlen(js) + 1;
	p->findings = gd_xmalloc(p->findings_len + 1);
	memcpy(p->findings, js, p->findings_len - 1);
	p->findings[p->findings_len - 1] = '\n';
	p->findings[p->findings_len] = '\0';
	free(js);
}

static struct gd_published *render(struct gd_server *srv, const struct gd_window *w)
{
	struct gd_published *p = gd_xcalloc(1, sizeof *p);
	struct gd_findings f;
	struct gd_report r = { w, &f, false, "live", 0 };
	FILE *m;

	gd_findings_init(&f);
	gd_engine_run(w, srv->opts->th, &f);
	m = open_memstream(&p->metrics, &p->metrics_len);
	if (!m) {
		fputs(_("gpudoctor: out of memory (open_memstream)\n"), stderr);
		abort();
	}
	gd_out_prom(m, &r);
	gd_page_track(srv->page, srv, w, &f);
	write_stalls(m, srv);
	gd_finding_tracks_update(&srv->ftrack, &f, gd_window_last(w), gd_serve_mono_now());
	gd_finding_tracks_write(m, &srv->ftrack);
	gd_uncaused_update(srv->uncaused, srv->stall, 64, &f, gd_serve_mono_now());
	gd_uncaused_write(m, srv->uncaused, srv->stall, 64);
	if (fclose(m) != 0) {
		fputs(_("gpudoctor: out of memory rendering metrics\n"), stderr);
		abort();
	}
	render_findings(p, &r);
	gd_findings_release(&f);
	return p;
}

/* The other language's /findings over the same window, when it was asked
 * for within GD_SERVE_ALT_KEEP_S; else the one published is withdrawn.
 * The rules run again with gettext switched: their summaries and remedies
 * are formatted as they run. */
static void render_alt(struct gd_server *srv, const struct gd_window *w)
{
	long long asked = atomic_load(&srv->alt_asked_ms);
	struct gd_published *p = NULL;
	struct gd_findings f;
	struct gd_report r = { w, &f, false, "live", 0 };
	bool missing = false;

	pthread_mutex_lock(&srv->lock);
	missing = srv->alt_missing;
	pthread_mutex_unlock(&srv->lock);
	if (missing)
		return;
	if (!asked || gd_serve_mono_now() * 1000 - (double)asked > GD_SERVE_ALT_KEEP_S * 1000.0) {
		if (srv->alt)
			publish_to(srv, NULL, true);
		return;
	}
	pthread_mutex_lock(&srv->i18n_lock);
	if (gd_i18n_use(srv->alt_lang) == 0) {
		p = gd_xcalloc(1, sizeof *p);
		gd_findings_init(&f);
		gd_engine_run(w, srv->opts->th, &f);
		render_findings(p, &r);
		gd_findings_release(&f);
		p->mono_s = gd_serve_mono_now();
	} else {
		missing = true;  /* no catalogue: said once, in the process's language */
	}
	gd_i18n_use(srv->lang);
	pthread_mutex_unlock(&srv->i18n_lock);
	if (missing) {
		pthread_mutex_lock(&srv->lock);
		srv->alt_missing = true;
		pthread_mutex_unlock(&srv->lock);
		fprintf(stderr, _("gpudoctor: /findings?lang=%s asked for, but no %s message catalogue is installed: "
				  "answering in the language of the process\n"),
			srv->alt_lang, srv->alt_lang);
		return;
	}
	publish_to(srv, p, true);
}

enum wake { WAKE_TIME, WAKE_STOP, WAKE_ALT, WAKE_PAGE };

/* Waits until the monotonic time `until`, a stop, or a request for the
 * other language that found no rendering of it (the kick is taken). */
static enum wake wait_until(struct gd_server *srv, double until)
{
	struct timespec ts = { (time_t)until, (long)((until - floor(until)) * 1e9) };
	enum wake why = WAKE_TIME;

	pthread_mutex_lock(&srv->lock);
	while (!srv->stop && !srv->alt_kick && !srv->page_kick && gd_serve_mono_now() < until)
		if (pthread_cond_timedwait(&srv->wake, &srv->lock, &ts) == ETIMEDOUT)
			break;
	if (srv->stop) {
		why = WAKE_STOP;
	} else if (srv->alt_kick) {
		srv->alt_kick = false;
		why = WAKE_ALT;
	} else if (srv->page_kick) {
		srv->page_kick = false;
		why = WAKE_PAGE;
	}
	pthread_mutex_unlock(&srv->lock);
	return why;
}

static void *collector_main(void *arg)
{
	struct gd_server *srv = arg;
	struct gd_root root;
	struct gd_collect_ctx ctx;
	struct gd_snapshot *ring = gd_xcalloc(srv->nsnaps, sizeof *ring);
	const struct gd_snapshot **order = gd_xcalloc(srv->nsnaps, sizeof *order);
	size_t count = 0, next = 0;
	struct gd_err err;
	struct gd_probe_results probe;

	gd_probe_results_init(&probe, srv->opts->probe_results);
	gd_err_clear(&err);
	/* opened again here: the thread owns its root (checked in gd_serve_run) */
	if (gd_root_open(&root, srv->opts->root ? srv->opts->root : "/", &err) < 0) {
		fprintf(stderr, "gpudoctor: %s\n", err.msg);
		goto out;
	}
	/* NVML is opened once for the life of the server, not per cycle. */
	memset(&ctx, 0, sizeof ctx);
	ctx.root = &root;
	ctx.nvml_path = srv->opts->nvml_path;
	ctx.nvml_timeout_s = srv->opts->nvml_timeout_s;
	ctx.klog_lookback_s = srv->opts->lookback_s;
	ctx.nvml = gd_nvml_open(ctx.nvml_path, ctx.nvml_timeout_s);
	ctx.sampler = root.is_host ? gd_job_sampler_new() : NULL;
	ctx.proc_cache = gd_proc_cache_new_tiered(GD_PROC_YOUNG, GD_PROC_SLOW_ROUND);
	for (size_t i = 0; i < srv->nsnaps; i++)
		gd_snapshot_init(&ring[i]);
	for (;;) {
		double t0 = gd_serve_mono_now(), dt;
		struct gd_window w;
		enum wake why;
		struct gd_published *p;
		uint64_t rss = 0;
		bool rss_ok;

		gd_snapshot_release(&ring[next]);
		gd_snapshot_init(&ring[next]);
		gd_collect_all(&ctx, &ring[next]);
		gd_probe_results_apply(&probe, &ring[next]);
		next = (next + 1) % srv->nsnaps;
		if (count < srv->nsnaps)
			count++;
		for (size_t i = 0; i < count; i++)
			order[i] = &ring[(next + srv->nsnaps - count + i) % srv->nsnaps];
		track_stalls(srv, order[count - 1]);
		w.snaps = order;
		w.n = count;
		p = render(srv, &w);
		/* give back the free pages of this thread's malloc arena: a cycle's
		 * many small allocations (directory listings, snapshot sections)
		 * otherwise leave the arena's top fragmented, and the RSS of a
		 * long-running serve creeps up without a leak (tests/exporter/soak);
		 * every 4th cycle: a trim walks the arena (about 3 ms on the soak's
		 * live root), too much for every cycle */
		if (srv->cycles % 4 == 3)
			malloc_trim(0);
		rss_ok = self_rss(&rss);
		p->mono_s = gd_serve_mono_now();
		dt = p->mono_s - t0;
		publish(srv, p);
		pthread_mutex_lock(&srv->lock);
		srv->cycles++;
		srv->cycle_s = dt;
		srv->rss_ok = rss_ok;
		srv->rss_bytes = rss;
		pthread_mutex_unlock(&srv->lock);
		render_alt(srv, &w);
		gd_page_cycle(srv, &w, srv->cycles, false);
		/* a request for the other language, or for a page not drawn, is
		 * answered from this window */
		while ((why = wait_until(srv, t0 + srv->interval_s)) == WAKE_ALT || why == WAKE_PAGE)
			if (why == WAKE_ALT)
				render_alt(srv, &w);
			else
				gd_page_cycle(srv, &w, srv->cycles, true);
		if (why == WAKE_STOP)
			break;
	}
	for (size_t i = 0; i < srv->nsnaps; i++)
		gd_snapshot_release(&ring[i]);
	gd_job_sampler_free(ctx.sampler);
	gd_proc_cache_free(ctx.proc_cache);
	gd_nvml_close(ctx.nvml);
	gd_root_release(&root);
	gd_finding_tracks_release(&srv->ftrack);
out:
	gd_probe_results_release(&probe);
	free(order);
	free(ring);
	return NULL;
}

/* Splits HOST:PORT or [HOST]:PORT and opens a non-blocking listening socket. */
static int listen_on(const char *spec, char *shown, size_t shown_size, struct gd_err *err)
{
	char host[256];
	const char *colon = strrchr(spec, ':'), *h = spec, *port;
	size_t hlen;
	struct addrinfo hints, *res = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	char hb[NI_MAXHOST], pb[NI_MAXSERV];
	int fd, one = 1, rc;

	if (!colon || !colon[1])
		return gd_err_set(err, -EINVAL, _("--listen %s: expected HOST:PORT, e.g. 127.0.0.1:9835 or [::1]:9835"),
				  spec);
	port = colon + 1;
	if (strspn(port, "0123456789") != strlen(port) || strlen(port) > 5 || atoi(port) > 65535)
		return gd_err_set(err, -EINVAL, _("--listen %s: the port must be a number from 0 to 65535"), spec);
	hlen = (size_t)(colon - spec);
	if (hlen >= 2 && spec[0] == '[' && spec[hlen - 1] == ']') {
		h = spec + 1;
		hlen -= 2;
	}
	if (hlen == 0 || hlen >= sizeof host)
		return gd_err_set(err, -EINVAL, _("--listen %s: expected HOST:PORT (an address to bind; 0.0.0.0 for all)"),
				  spec);
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	rc = getaddrinfo(host, colon + 1, &hints, &res);
	if (rc != 0)
		return gd_err_set(err, -EINVAL, "--listen %s: %s", spec, gai_strerror(rc));
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = gd_err_set(err, -errno, _("--listen %s: socket: %s"), spec, strerror(errno));
		freeaddrinfo(res);
		return rc;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, res->ai_addr, res->ai_addrlen) < 0 || listen(fd, 128) < 0) {
		rc = gd_err_set(err, -errno, "--listen %s: %s", spec, strerror(errno));
		freeaddrinfo(res);
		close(fd);
		return rc;
	}
	freeaddrinfo(res);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
	    getnameinfo((struct sockaddr *)&ss, sl, hb, sizeof hb, pb, sizeof pb, NI_NUMERICHOST | NI_NUMERICSERV) == 0)
		snprintf(shown, shown_size, ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", hb, pb);
	else
		snprintf(shown, shown_size, "%s", spec);
	return fd;
}

int gd_serve_run(const struct gd_serve_opts *o, struct gd_err *err)
{
	struct gd_server srv;
	struct gd_root probe;
	pthread_condattr_t ca;
	pthread_t tid;
	sigset_t sigs, old;
	struct gd_http *d;
	struct timespec ts;
	char shown[300], note[600];
	int fd, rc = 0, sig;

	memset(&srv, 0, sizeof srv);
	atomic_init(&srv.alt_asked_ms, 0);
	srv.opts = o;
	/* the process's language and the other one; switching to it once now,
	 * before any thread, makes the locale set-up gd_i18n_use may do on a
	 * first switch (setlocale) happen here: later switches only set the
	 * LANGUAGE variable, in the collector thread */
	snprintf(srv.lang, sizeof srv.lang, "%s", gd_i18n_lang());
	snprintf(srv.alt_lang, sizeof srv.alt_lang, "%s", strcmp(srv.lang, "zh_CN") == 0 ? "en" : "zh_CN");
	if (gd_i18n_use(srv.alt_lang) < 0)
		srv.alt_missing = true;
	gd_i18n_use(srv.lang);
	atomic_init(&srv.page_asked_ms[0], 0);
	atomic_init(&srv.page_asked_ms[1], 0);
	gd_page_stale_formats(&srv);
	srv.interval_s = o->interval_s;
	srv.deadline_s = fmax(3 * o->interval_s, o->interval_s + 2);
	srv.nsnaps = (size_t)lround(o->window_s / o->interval_s) + 1;
	if (srv.nsnaps < 2)
		srv.nsnaps = 2;
	if (srv.nsnaps > GD_SERVE_MAX_SNAPS)
		srv.nsnaps = GD_SERVE_MAX_SNAPS;
	if (gd_root_open(&probe, o->root ? o->root : "/", err) < 0)
		return err->code;
	gd_root_release(&probe);
	fd = listen_on(o->listen ? o->listen : GD_SERVE_DEFAULT_LISTEN, shown, sizeof shown, err);
	if (fd < 0)
		return fd;
	/* room for the files the tiered walk holds open (collect.h), raised
	 * while a privilege to raise it up to the hard limit may still be held */
	gd_nofile_raise(GD_NOFILE_WANT);
	/* before any thread: they inherit it (confine.h) */
	if (o->user && gd_serve_become(o->user, err) < 0) {
		close(fd);
		return err->code;
	}
	gd_serve_confine(note, sizeof note);
	if (note[0])
		fprintf(stderr, _("gpudoctor: serve: %s\n"), note);

	/* every thread inherits the mask: the signals wait for sigtimedwait */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, &old);

	pthread_mutex_init(&srv.lock, NULL);
	pthread_mutex_init(&srv.i18n_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&srv.wake, &ca);
	pthread_condattr_destroy(&ca);
	srv.page = gd_page_new(o);  /* the collector thread's, freed here after it */
	if (pthread_create(&tid, NULL, collector_main, &srv) != 0) {
		close(fd);
		rc = gd_err_set(err, -EAGAIN, _("cannot start the collector thread"));
		goto out;
	}
	d = gd_http_start(&srv, fd, err);
	if (d) {
		/* the collector may switch the language: messages under its lock */
		pthread_mutex_lock(&srv.i18n_lock);
		fprintf(stderr, _("gpudoctor: serving http://%s/metrics (interval %gs, window %gs, %zu snapshots)\n"),
			shown, o->interval_s, (double)(srv.nsnaps - 1) * o->interval_s, srv.nsnaps);
		if (srv.page)
			fprintf(stderr, _("gpudoctor: the node's page: http://%s/ (the last %g s)\n"), shown,
				o->page_window_s > 0 ? o->page_window_s : GD_SERVE_PAGE_WINDOW_S);
		pthread_mutex_unlock(&srv.i18n_lock);
		do {
			struct timespec tick = { 1, 0 };

			sig = sigtimedwait(&sigs, NULL, &tick);
		} while (sig < 0);
		pthread_mutex_lock(&srv.i18n_lock);
		fprintf(stderr, _("gpudoctor: %s: stopping\n"), strsignal(sig));
		pthread_mutex_unlock(&srv.i18n_lock);
		gd_http_stop(d);
	} else {
		close(fd);
		rc = err->code ? err->code : -EIO;
	}
	pthread_mutex_lock(&srv.lock);
	srv.stop = true;
	pthread_cond_broadcast(&srv.wake);
	pthread_mutex_unlock(&srv.lock);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += JOIN_WAIT_S;
	if (pthread_timedjoin_np(tid, NULL, &ts) != 0) {
		/* a collector blocked in the kernel (a hung mount): leave it to
		 * exit(); it switches the language only after a cycle, so not now */
		fprintf(stderr, _("gpudoctor: the collector thread did not stop within %d s; exiting without it\n"),
			JOIN_WAIT_S);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return rc;
	}
	gd_published_free(srv.cur);
	gd_published_free(srv.alt);
	gd_published_free(srv.pages[0]);
	gd_published_free(srv.pages[1]);
out:
	gd_page_free(srv.page);
	pthread_cond_destroy(&srv.wake);
	pthread_mutex_destroy(&srv.i18n_lock);
	pthread_mutex_destroy(&srv.lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}
