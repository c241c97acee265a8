/*
 * timeline.h - the commands over time: watch (live view), record (a JSONL
 * series) and report (HTML, text or JSON of a recording).  cli.c parses the
 * options and calls these; like cli.c they print and return exit codes.
 */
#ifndef GD_CLI_TIMELINE_H
#define GD_CLI_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "rules/thresholds.h"

struct gd_run_opts {
	const char *root;            /* --root, NULL for / */
	const char *nvml_path;       /* --nvml or GPUDOCTOR_NVML */
	double nvml_timeout_s;
	double lookback_s;           /* --lookback: kernel-log events this far back */
	const struct gd_thresholds *th;
	double interval_s;           /* --interval */
	double duration_s;           /* --duration; 0: until interrupted */
	double max_bytes, max_age_s; /* record: --max-size, --max-age (0: none) */
	unsigned full_every;         /* record: --full-every (0: GD_REC_FULL_EVERY) */
	const char *output;          /* -o */
	bool json, text, color;
	const char *const *inputs;   /* report: the recordings */
	size_t ninputs;
};

int gd_cmd_watch(const struct gd_run_opts *o);
int gd_cmd_record(const struct gd_run_opts *o);
int gd_cmd_report(const struct gd_run_opts *o);

#endif
