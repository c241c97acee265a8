/*
 * timeline.h - a recorded series rendered: the HTML report (inline SVG
 * timelines, episodes shaded and labelled, the findings table), its text
 * form for a terminal, and a JSON form for scripts.  They read the series,
 * the findings of the engine over the whole series and the episodes; they
 * decide nothing.
 */
#ifndef GD_OUTPUT_TIMELINE_H
#define GD_OUTPUT_TIMELINE_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "rules/episodes.h"
#include "rules/rule.h"

/*
 * What the outputs draw of a whole series, gathered one snapshot at a time
 * as a recording streams past (html_data.c): the envelopes of every GPU's
 * and the host's series (html_env.h's gd_envs: bounded whatever the
 * length), each GPU's limits, name and loss, and the text report's per-GPU
 * summary.  About 4 MB for 8 GPUs.
 */
struct gd_tl_acc;

/* The text report's summary of one GPU over the series. */
struct gd_tl_gpu {
	char name[64];
	double usum, umin, smmin, tmax, pmax;  /* umin.. INFINITY / -INFINITY when never read */
	size_t un;
};

struct gd_tl_acc *gd_tl_acc_new(const struct gd_thresholds *th);
/* The same over a sliding span (serve's page): only the last span_s
 * seconds, in nbins bins of span_s / (nbins - 1) each, kept per series used
 * (nbins * 8 bytes a series, values as half floats: 0.05%, whatever the
 * run's length); NULL when out of memory or span_s <= 0.  Samples must
 * come in time order. */
struct gd_tl_acc *gd_tl_acc_new_sliding(const struct gd_thresholds *th, double span_s, size_t nbins);
void gd_tl_acc_free(struct gd_tl_acc *a);
/* Adds s (prev: the snapshot before it, NULL for the first); false when out
 * of memory (what came before stays). */
bool gd_tl_acc_add(struct gd_tl_acc *a, const struct gd_snapshot *prev, const struct gd_snapshot *s);
/* NVML indices seen, and the summary of one (NULL when never seen). */
uint64_t gd_tl_acc_seen(const struct gd_tl_acc *a);
const struct gd_tl_gpu *gd_tl_acc_gpu(const struct gd_tl_acc *a, unsigned idx);

struct gd_timeline {
	const struct gd_window *w;           /* the first and the last snapshot of the series (one when
						there is one) */
	size_t samples;                      /* snapshots in the series */
	const struct gd_tl_acc *acc;         /* the series gathered */
	const struct gd_findings *findings;  /* the engine over the series (sliding windows) */
	const struct gd_episodes *episodes;
	const char *origin;                  /* the file(s) it came from */
	const struct gd_thresholds *th;      /* the episodes' thresholds: which samples of a GPU
						stalled (NULL: whole episodes are drawn) */
};

/* One self-contained HTML document: no network, inline CSS and SVG, no
 * script.  Every string from a snapshot is HTML-escaped. */
void gd_out_html(FILE *out, const struct gd_timeline *t);
/* serve's node page (GET /): the report's document over the last minutes
 * (acc sliding, episodes and findings of now) with the data's time and
 * age, links to /metrics, /findings and the other language, the GPU job
 * processes' rank identity, a <noscript> meta refresh and
 * gd_html_page_script, which fetches the page again and swaps its <main>. */
struct gd_html_page {
	double refresh_s;
	unsigned long long cycle;  /* the exporter's collection cycle */
	const char *other_href;    /* the page in the other language: a constant */
	const char *other_label;   /* its name, HTML */
};
void gd_out_html_page(FILE *out, const struct gd_timeline *t, const struct gd_html_page *pg);
extern const char gd_html_page_script[];
/* The report for a terminal: per-GPU summary, episodes with their cause and
 * period, then the findings as `check` prints them. */
void gd_out_timeline_text(FILE *out, const struct gd_timeline *t, bool color);
/* {"samples","span_s","episodes":[...],"periodic","period_s","gpus":[...],
 *  "diagnosis":{check --json}}; caller json_decref()s it. */
json_t *gd_out_timeline_json(const struct gd_timeline *t);

/* Writes s with & < > " ' escaped. */
void gd_html_escape(FILE *out, const char *s);

#endif
