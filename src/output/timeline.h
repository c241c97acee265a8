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
#include <stdio.h>

#include "rules/episodes.h"
#include "rules/rule.h"

struct gd_timeline {
	const struct gd_window *w;           /* the series, in time order */
	const struct gd_findings *findings;  /* the engine over the whole series */
	const struct gd_episodes *episodes;
	const char *origin;                  /* the file(s) it came from */
	const struct gd_thresholds *th;      /* the episodes' thresholds: which samples of a GPU
						stalled (NULL: whole episodes are drawn) */
};

/* One self-contained HTML document: no network, inline CSS and SVG, no
 * script.  Every string from a snapshot is HTML-escaped. */
void gd_out_html(FILE *out, const struct gd_timeline *t);
/* The report for a terminal: per-GPU summary, episodes with their cause and
 * period, then the findings as `check` prints them. */
void gd_out_timeline_text(FILE *out, const struct gd_timeline *t, bool color);
/* {"samples","span_s","episodes":[...],"periodic","period_s","gpus":[...],
 *  "diagnosis":{check --json}}; caller json_decref()s it. */
json_t *gd_out_timeline_json(const struct gd_timeline *t);

/* Writes s with & < > " ' escaped. */
void gd_html_escape(FILE *out, const char *s);

#endif
