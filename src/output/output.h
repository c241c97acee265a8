/*
 * output.h - render a diagnosis: text for people, JSON for programs.
 *
 * Outputs read the window and the findings and write to a stream; they
 * compute nothing that a rule should decide.
 */
#ifndef GD_OUTPUT_OUTPUT_H
#define GD_OUTPUT_OUTPUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "rules/rule.h"

#define GD_VERSION "0.1.0"

struct gd_report {
	const struct gd_window *w;
	const struct gd_findings *findings;
	bool color;
	const char *origin;   /* "live" or the --from file names */
	size_t samples;       /* the snapshots the findings came from; 0: w->n (report: w holds the
				 first and the last of them) */
};

static inline size_t gd_report_samples(const struct gd_report *r)
{
	return r->samples ? r->samples : r->w->n;
}

/* Exit code for a set of findings: 0 healthy (info only), 1 warnings, 2 critical. */
int gd_report_exit_code(const struct gd_findings *f);

void gd_out_text(FILE *out, const struct gd_report *r);
/* The JSON document of `check --json` (caller json_decref()s it). */
json_t *gd_out_json(const struct gd_report *r);

/* The Prometheus text format (0.0.4) of the window's last snapshot, generated
 * from the field tables, plus gpudoctor_finding, gpudoctor_rule_evaluated
 * and gpudoctor_collector_{duration_seconds,success} (out_prom.c). */
void gd_out_prom(FILE *out, const struct gd_report *r);
/* The metric name of a numeric field of section (base unit, _total for
 * counters) and the factor from the field's unit to it; a factor of 0 means
 * "divide by host.clk_tck".  False for labels and strings. */
bool gd_prom_metric_name(const char *section, const struct gd_field *f, char *buf, size_t size, double *scale);
/* Writes s as a label value: backslash, double quote and newline escaped,
 * bytes that are not UTF-8 written as '?'. */
void gd_prom_label_value(FILE *out, const char *s);

/* Formats one evidence value with its unit for people: "97.0%", "64.0 MiB",
 * "1.20 GB/s"; writes into buf and returns it. */
const char *gd_fmt_value(char *buf, size_t size, double v, const char *unit);

/* The configuration file of the thresholds th: every threshold under its
 * rule id, commented out with its default; values that differ from the
 * default written uncommented (out_config.c; `gpudoctor config`). */
void gd_out_config(FILE *out, const struct gd_thresholds *th);

#endif
