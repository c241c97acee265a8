/*
 * serve.h - `gpudoctor serve`: a Prometheus exporter.
 *
 * A collector thread samples the host every interval into a ring of the last
 * few snapshots (a struct gd_window over them), runs the rules, renders the
 * metrics text and the findings JSON once, and publishes that result as one
 * immutable, reference-counted block (struct gd_published).  HTTP requests
 * (http.c) only copy the latest block: a scrape never reads
 * /proc or calls a collector.  A block older than the deadline is withdrawn:
 * /metrics then carries only the exporter's own metrics with gpudoctor_up 0,
 * /findings and /healthz answer 503.
 *
 * Languages: the process speaks one (English unless serve --lang); a
 * request for /findings?lang=zh_CN (or lang=en under --lang zh_CN) marks
 * that the other one was asked for (gd_server.alt_asked_ms, atomic), and
 * while that mark is younger than GD_SERVE_ALT_KEEP_S the collector thread,
 * after its cycle, switches gettext's language (gd_i18n_use: the process's
 * LANGUAGE variable), runs the rules over the same window again, renders
 * that /findings document and switches back; it is published beside the
 * other (gd_server.alt).  Only the collector thread switches, holding
 * gd_server.i18n_lock; the HTTP thread never calls gettext (nor strerror,
 * which reads the environment too), and the main thread holds the lock
 * for its own messages.  Until the first such document exists, the answer
 * is the process's language with a field saying so (http.c).
 *
 * The node page (GET /, page.c) is drawn the same way: by the collector
 * thread, only while a request asked for it in the last minute, once per
 * cycle, published as a reference-counted block per language (pages[]);
 * its history is sliding min/max envelopes (gd_page), none with --no-page.
 */
#ifndef GD_SERVE_SERVE_H
#define GD_SERVE_SERVE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "rules/thresholds.h"

#define GD_SERVE_DEFAULT_LISTEN "127.0.0.1:9835"
#define GD_SERVE_MAX_SNAPS 64
/* How long after the last request in the other language it is rendered. */
#define GD_SERVE_ALT_KEEP_S 600

struct gd_serve_opts {
	const char *listen;       /* HOST:PORT, [V6]:PORT; port 0 picks one */
	const char *root;         /* --root, "/" when NULL */
	double interval_s;        /* between collection cycles */
	double window_s;          /* span of the window the rules see */
	const struct gd_thresholds *th;
	const char *nvml_path;    /* --nvml or GPUDOCTOR_NVML; NULL: the default search */
	double nvml_timeout_s;    /* --nvml-timeout; 0: the default */
	double lookback_s;        /* --lookback; 0: the default */
	const char *probe_results; /* --probe-results: a gpudoctor probe -o file, or NULL */
	const char *user;         /* --user: the user it becomes after binding, or NULL */
	double page_window_s;     /* --page-window: the span the page draws; 0: the default */
	bool no_page;             /* --no-page: no GET /, no history kept */
};

/* The span the node page (GET /, page.c) draws by default. */
#define GD_SERVE_PAGE_WINDOW_S 600.0

/* One collection cycle's rendered result; never changed once published. */
struct gd_published {
	unsigned refs;            /* under gd_server.lock */
	char *metrics;            /* text format 0.0.4 of the evidence and findings */
	size_t metrics_len;
	char *metrics_gz;         /* the same as one gzip member (gz.h), or NULL;
				   /metrics's: made by the HTTP thread (the only
				   one that reads it) at the first scrape that
				   takes gzip, not every cycle */
	size_t metrics_gz_len;
	bool gz_failed;           /* zlib could not make it: send it plain */
	char *findings;           /* the JSON document of check --json, one line */
	size_t findings_len;
	double mono_s;            /* CLOCK_MONOTONIC at the end of the cycle */
};

/* Stall episodes of one GPU, counted as the samples come (rules/episodes.h
 * defines an episode: two or more consecutive stalled samples). */
struct gd_stall_track {
	bool seen;                /* the GPU held a job's context at least once */
	unsigned run;             /* consecutive stalled samples up to the latest */
	double last_s;            /* host.uptime_s of the latest sample */
	uint64_t episodes;        /* episodes begun since the server started */
	double stalled_s;         /* their length so far, seconds */
};

/* Onsets and active time of one (rule, severity, subject): finding_counters.c. */
#define GD_FINDING_TRACKS_MAX 512
struct gd_finding_track {
	const char *rule;         /* static: the rule's id */
	int severity;             /* enum gd_severity */
	char subject[128];
	bool has_gpu;             /* the subject names a GPU: labels gpu, uuid, model */
	uint64_t gpu;
	char uuid[96], model[96];
	uint64_t onsets;
	double active_s;
	bool active, seen;        /* present in the latest cycle / in the one being counted */
	double last_s;            /* monotonic time of the latest cycle it was present in */
};

struct gd_finding_tracks {
	struct gd_finding_track *v;
	size_t n, cap;
	uint64_t dropped;         /* findings not counted: GD_FINDING_TRACKS_MAX reached */
};

/* Stall time of one GPU while no warning or critical finding was active on
 * the node: the fleet's "no cause found" row. */
struct gd_uncaused {
	uint64_t episodes;
	double seconds;
	bool in;                  /* in such a stretch at the latest cycle */
	double last_s;            /* monotonic time of the latest cycle of it */
};

struct gd_snapshot;
struct gd_findings;
struct gd_stall_track;
struct gd_gpu;
/* The GPU of snapshot s that a finding's subject names ("gpu3", "gpu3
 * (0000:3b:00.0)", "GPU 0000:3b:00.0 ..."), or NULL. */
const struct gd_gpu *gd_gpu_of_subject(const struct gd_snapshot *s, const char *subject);
/* Counts one cycle's findings (deduplicated) at monotonic time mono_s. */
void gd_finding_tracks_update(struct gd_finding_tracks *t, const struct gd_findings *fs, const struct gd_snapshot *last,
			      double mono_s);
/* The two counter families and the dropped counter, in text format 0.0.4. */
void gd_finding_tracks_write(FILE *m, const struct gd_finding_tracks *t);
void gd_finding_tracks_release(struct gd_finding_tracks *t);
/* Advances u[0..n) from the stall state st[0..n) and the cycle's findings. */
void gd_uncaused_update(struct gd_uncaused *u, const struct gd_stall_track *st, size_t n, const struct gd_findings *fs,
			double mono_s);
void gd_uncaused_write(FILE *m, const struct gd_uncaused *u, const struct gd_stall_track *st, size_t n);

struct gd_server {
	pthread_mutex_t lock;
	pthread_mutex_t i18n_lock; /* held while gettext's language is not the process's */
	char lang[8];             /* the process's language: "en" or "zh_CN" (set before the threads) */
	char alt_lang[8];         /* the other one */
	struct gd_published *alt; /* findings only, in alt_lang; NULL: none (under lock) */
	bool alt_kick;            /* a request found no alt: render it now (under lock) */
	bool alt_missing;         /* alt_lang has no catalogue installed (under lock) */
	_Atomic long long alt_asked_ms;  /* monotonic ms of the latest request for alt_lang; 0: none */
	pthread_cond_t wake;      /* CLOCK_MONOTONIC; signalled on stop */
	bool stop;
	struct gd_published *cur; /* latest result, or NULL */
	uint64_t cycles;          /* collection cycles done */
	double cycle_s;           /* duration of the last cycle */
	bool rss_ok;
	uint64_t rss_bytes;       /* exporter's resident memory after the last cycle */
	double interval_s, deadline_s;
	size_t nsnaps;            /* ring size: snapshots in a full window */
	const struct gd_serve_opts *opts;
	struct gd_stall_track stall[64];  /* by NVML index; the collector thread's own */
	struct gd_finding_tracks ftrack;  /* the collector thread's own */
	struct gd_uncaused uncaused[64];  /* by NVML index, as stall[] */
	/* the node page (page.c): [0] in lang, [1] in alt_lang */
	struct gd_page *page;     /* the collector thread's own; NULL with --no-page */
	struct gd_published *pages[2];   /* html in metrics, its gzip in metrics_gz; under lock */
	uint64_t page_cycle[2];   /* the cycle each was drawn in (under lock) */
	bool page_kick;           /* a request found no page: draw it now (under lock) */
	_Atomic long long page_asked_ms[2];  /* monotonic ms of the latest request; 0: none */
	char page_stale_msg[2][200], page_wait_msg[2][120], page_none_msg[2][160];  /* set before the threads */
};

void gd_published_free(struct gd_published *p);

/* page.c: the node page.  gd_page_new: its history (NULL with --no-page);
 * gd_page_track: adds the cycle's newest snapshot of w and its findings f
 * (after the stall counters moved); gd_page_cycle: draws the pages asked
 * for that this cycle has not drawn (kicked: only those missing), drops
 * those nobody asked for lately; gd_page_stale_formats: the HTTP thread's
 * messages in both languages (before the threads: it switches gettext). */
struct gd_page;
struct gd_window;
struct gd_page *gd_page_new(const struct gd_serve_opts *o);
void gd_page_free(struct gd_page *pg);
void gd_page_track(struct gd_page *pg, const struct gd_server *srv, const struct gd_window *w,
		   const struct gd_findings *f);
void gd_page_cycle(struct gd_server *srv, const struct gd_window *w, uint64_t cycle, bool kicked);
void gd_page_stale_formats(struct gd_server *srv);
/* The body of GET / in language want ("en", "zh_CN"; NULL: the process's):
 * the latest page (gzip-encoded when gzip and it can be: *gzipped), a page
 * saying it is being drawn, or (503) the withdrawn state; sets *code and
 * *lang (a Content-Language). */
char *gd_http_page(struct gd_server *srv, const char *want, bool gzip, unsigned *code, size_t *len, bool *gzipped,
		   const char **lang);

/* Runs until SIGINT or SIGTERM.  0 after a clean stop; negative with err
 * set when it cannot start (address in use, bad --listen, no root). */
int gd_serve_run(const struct gd_serve_opts *o, struct gd_err *err);

/* The latest result with a reference taken (NULL before the first), and its
 * release.  age_s is set to its age in seconds. */
struct gd_published *gd_serve_acquire(struct gd_server *srv, double *age_s);
/* The same for the findings in srv->alt_lang (NULL when there are none);
 * *missing is set when that language has no catalogue installed. */
struct gd_published *gd_serve_acquire_alt(struct gd_server *srv, double *age_s, bool *missing);
/* Called by the HTTP thread for a request in srv->alt_lang: marks it asked
 * for now, and wakes the collector when no rendering exists yet. */
void gd_serve_want_alt(struct gd_server *srv);
void gd_serve_release(struct gd_server *srv, struct gd_published *p);
/* True when a result of age age_s may still be served. */
bool gd_serve_fresh(const struct gd_server *srv, const struct gd_published *p, double age_s);
double gd_serve_mono_now(void);

/* http.c: the HTTP front.  Serves the non-blocking listening socket fd from
 * its own thread; returns an opaque server that then owns fd, or NULL with
 * err set (fd is then still the caller's).  gd_http_stop closes every
 * connection and fd, and frees the server. */
struct gd_http;
struct gd_http *gd_http_start(struct gd_server *srv, int fd, struct gd_err *err);
void gd_http_stop(struct gd_http *h);
/* Renders the /metrics body: the exporter's own metrics, then the published
 * evidence when fresh.  Returns a malloc'd buffer and its length.  With
 * gzip, the body is gzip-encoded when it can be (*gzipped says so): a small
 * member of the own metrics, then the published member. */
char *gd_http_metrics(struct gd_server *srv, bool gzip, size_t *len, bool *gzipped);

#endif
