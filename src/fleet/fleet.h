/*
 * fleet.h - `gpudoctor fleet`: a cluster's stall causes from what every
 * node's `gpudoctor serve` told Prometheus (fleet.c), rendered as text, JSON
 * or HTML (fleet_out.c).
 *
 * What it answers, over --range up to --at:
 *   causes    one row per rule, shaped like the Llama 3 paper's table:
 *             category, rule, onsets, GPUs and nodes affected, GPU-hours
 *             under the finding, and its share of the rows' sum; a row
 *             "no cause found" for stall time on GPUs with no finding
 *   outliers  busy GPUs whose SM clock, temperature, power, utilisation or
 *             PCIe link width deviate from the median of their model's GPUs
 *             by more than --mad-k robust MADs
 *   drain     nodes with active critical findings at --at, with the remedy
 *   repeat    nodes and GPUs whose hardware findings began --repeat times
 *   blind     nodes that Prometheus could not scrape (up == 0) or whose
 *             exporter had no fresh evidence (gpudoctor_up == 0), for how
 *             long, and the queries answered with warnings
 */
#ifndef GD_FLEET_FLEET_H
#define GD_FLEET_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/err.h"
#include "fleet/prom.h"
#include "model/snapshot_delta.h"
#include "model/vec.h"

#define GD_FLEET_MAX_MATCH 16

struct gd_fleet_opts {
	const char *prometheus;   /* base URL */
	double range_s;           /* --range, default 7 d */
	double at;                /* --at, Unix seconds */
	const char *match[GD_FLEET_MAX_MATCH];  /* LABEL=VALUE (or LABEL=~RE, LABEL!=V) */
	size_t nmatch;
	double step_s;            /* resolution of the subqueries; 0: from the range */
	size_t limit;             /* series per answer */
	double timeout_s;
	double repeat_min;        /* onsets that make a repeat offender */
	double mad_k;             /* outlier cut, robust MADs */
	size_t min_siblings;      /* GPUs of a model needed to judge outliers */
	bool stats;
};

struct gd_fleet_cause {
	const char *category;     /* English, as in JSON; the tables print _(category) */
	char rule[64];
	double onsets;
	size_t gpus, nodes;
	double gpu_hours;
};

struct gd_fleet_outlier {
	char node[128], gpu[16], uuid[96], model[96];
	const char *metric, *unit;  /* English (JSON); the tables print _(metric) */
	double value, median, mad;  /* in unit; mad is the raw median absolute deviation */
	size_t siblings;
};

struct gd_fleet_drain {
	char node[128], rule[64], subject[128];
	const char *remedy;       /* in the language in use (gd_fleet_remedy) */
};

struct gd_fleet_repeat {
	char node[128], gpu[16], uuid[96];  /* gpu "": the node as a whole */
	double onsets;
	char rules[256];
};

struct gd_fleet_blind {
	char node[128];
	double down_s;            /* seconds Prometheus could not scrape it */
	double stale_s;           /* seconds its exporter reported gpudoctor_up 0 */
	bool down_now;
};

struct gd_fleet {
	double at, range_s, step_s;
	size_t nodes, gpus;       /* seen in the range */
	struct gd_vec causes;     /* struct gd_fleet_cause, most GPU-hours first; last: no cause found */
	double total_hours, total_onsets;
	struct gd_vec outliers;   /* struct gd_fleet_outlier */
	struct gd_vec drain;      /* struct gd_fleet_drain */
	struct gd_vec repeat;     /* struct gd_fleet_repeat */
	struct gd_vec blind;      /* struct gd_fleet_blind */
	double repeat_min, mad_k;
};

/* What a roll-up counts per (rule, node, GPU): onsets and active seconds
 * (gpu "": the node as a whole, e.g. a host finding); and a node's GPUs. */
struct gd_fleet_entry {
	char rule[64], node[128], gpu[16];
	double ons, act;
};

struct gd_fleet_ngpu {
	char node[128];
	size_t n;
};

/* One busy GPU's average of an outlier metric (in the series' unit). */
struct gd_fleet_value {
	char node[128], gpu[16], uuid[96], model[96];
	double v;
};

#define GD_FLEET_NO_CAUSE "(no cause found)"
#define GD_FLEET_NMETRICS 5
/* The name of outlier metric k (0 .. GD_FLEET_NMETRICS-1). */
const char *gd_fleet_metric_name(size_t k);

/* Builds the cause table and the repeat offenders of f from the entries
 * (sorted in place) and the nodes' GPU counts. */
void gd_fleet_build(struct gd_fleet *f, struct gd_vec *entries, const struct gd_vec *ngpus,
		    const struct gd_fleet_opts *o);
/* Adds the outliers of metric k among vals[0..n) (struct gd_fleet_value). */
void gd_fleet_judge(struct gd_fleet *f, size_t k, const struct gd_fleet_value *vals, size_t n,
		    const struct gd_fleet_opts *o);

/* The category of a rule id in the paper's terms: GPU, GPU memory, host,
 * network, storage, software/driver, the job itself. */
const char *gd_fleet_category(const char *rule);
/* The remedy of a rule in the language in use (the rule table's text,
 * translated), or unknown when no rule has that id. */
const char *gd_fleet_remedy(const char *rule, const char *unknown);
/* True for the rules whose repeats point at hardware (repeat offenders). */
bool gd_fleet_is_hardware(const char *rule);

/* The --match matchers of o as PromQL, comma-joined ("" for none). */
int gd_fleet_matchers(const struct gd_fleet_opts *o, char *buf, size_t size, struct gd_err *err);

/* Runs the queries through p (set up by the caller) and fills f.  0, or
 * negative with err set when a query failed. */
int gd_fleet_run(struct gd_prom *p, const struct gd_fleet_opts *o, struct gd_fleet *f, struct gd_err *err);
void gd_fleet_release(struct gd_fleet *f);

/* files.c: the same tables from snapshot files (record/snapshot JSONL), one
 * file per node, read one snapshot at a time. */
struct gd_thresholds;
/* The snapshots of one recording, one line after another (fleet FILE and
 * fleet --job FILE): each line within GD_LINE_MAX, each put back from the
 * line before (record's references).  Set fp and path, the rest zero;
 * gd_fleet_rec_release frees what it holds (not fp). */
struct gd_fleet_rec {
	FILE *fp;
	const char *path;
	char *line;
	size_t cap, lineno;
	size_t bad;              /* lines that are not snapshots */
	char first_bad[160];     /* "line N: why" of the first of them */
	bool base_set;
	struct gd_delta_base base;
};

/* The next snapshot into s (released and made anew first): 1, or 0 at the
 * end, or -EFBIG for a line longer than GD_LINE_MAX (err says so: not a
 * recording; reading stops). */
int gd_fleet_rec_next(struct gd_fleet_rec *r, struct gd_snapshot *s, struct gd_err *err);
void gd_fleet_rec_release(struct gd_fleet_rec *r);

int gd_fleet_files(char *const *paths, size_t n, const struct gd_fleet_opts *o, const struct gd_thresholds *th,
		   struct gd_fleet *f, struct gd_vec *warnings, struct gd_err *err);

/* fleet_out.c; s padded to cols display columns (a CJK character takes
 * two), on the right (left-aligned) or on the left (right-aligned). */
void gd_fleet_pad_left(FILE *out, const char *s, size_t cols);
/* doc's "warnings" and "cost" from the queries p made (fleet_out.c). */
void gd_prom_cost_json(json_t *doc, const struct gd_prom *p);
void gd_fleet_pad_right(FILE *out, const char *s, size_t cols);
void gd_fleet_print_text(FILE *out, const struct gd_fleet *f, const struct gd_prom *p, const char *url);
json_t *gd_fleet_json(const struct gd_fleet *f, const struct gd_prom *p, const char *url);
void gd_fleet_print_html(FILE *out, const struct gd_fleet *f, const struct gd_prom *p, const char *url);

#endif
