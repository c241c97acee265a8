/*
 * job.h - `gpudoctor fleet --job ID`: every rank of one multi-node job over
 * the last minutes, gathered from Prometheus (job.c: one pass of a few range
 * queries, never a query per rank) or from the nodes' recordings
 * (job_files.c), judged by src/rules/job_verdict.c and printed as text,
 * JSON or HTML (job_out.c).
 */
#ifndef GD_FLEET_JOB_H
#define GD_FLEET_JOB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/err.h"
#include "fleet/fleet.h"
#include "fleet/prom.h"
#include "model/vec.h"
#include "rules/job_verdict.h"

struct gd_fleet_job {
	char job[128];
	double t0, step_s, range_s, at;
	size_t nsteps;
	struct gd_jv_rank *ranks;   /* n, sorted by node then pid */
	size_t n;
	struct gd_jv_point *pts;    /* n x nsteps; ranks[i].p points into it */
	struct gd_vec findings;     /* struct gd_jv_finding: the job's nodes' findings in the range */
	struct gd_vec seen_jobs;    /* char[128]: the job ids seen, when none matched */
	struct gd_vec links;        /* struct gd_jv_link: the TCP links between its nodes, mean RTT over the range */
	size_t nodes;
	struct gd_jv verdict;
};

/* Gathers the job's ranks through p (set up by the caller; p->at is the
 * end) over o->range_s every o->step_s (0: from the range) and judges them.
 * 0; -ENOENT when no rank of the job was seen (seen_jobs lists what was);
 * other negatives with err set when a query failed. */
int gd_fleet_job_run(struct gd_prom *p, const struct gd_fleet_opts *o, const char *job, struct gd_fleet_job *j,
		     struct gd_err *err);

/* The same from recordings (record's JSONL or gzip), one or more per node:
 * each snapshot's job_ranks[] and job_threads[]. */
struct gd_thresholds;
int gd_fleet_job_files(char *const *paths, size_t n, const struct gd_fleet_opts *o, const char *job,
		       const struct gd_thresholds *th, struct gd_fleet_job *j, struct gd_vec *warnings, struct gd_err *err);

/* Sizes j for n ranks of nsteps (points zeroed: nothing known) and, after
 * the ranks are filled, sorts them, judges them. */
void gd_fleet_job_alloc(struct gd_fleet_job *j, size_t n, size_t nsteps);
void gd_fleet_job_judge(struct gd_fleet_job *j);
/* Sorts seen_jobs (the ids seen when none matched). */
void gd_fleet_job_seen_sort(struct gd_fleet_job *j);
void gd_fleet_job_release(struct gd_fleet_job *j);

/* job_out.c; the exit status of the verdict: 0 nothing holds the job back,
 * 1 a warning (a slow rank, the collective, a conflict), 2 a rank stuck. */
void gd_fleet_job_print_text(FILE *out, const struct gd_fleet_job *j, const struct gd_prom *p, const char *src);
json_t *gd_fleet_job_json(const struct gd_fleet_job *j, const struct gd_prom *p, const char *src);
void gd_fleet_job_print_html(FILE *out, const struct gd_fleet_job *j, const struct gd_prom *p, const char *src);
int gd_fleet_job_exit(const struct gd_fleet_job *j);

#endif
