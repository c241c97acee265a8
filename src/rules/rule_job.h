/*
 * rule_job.h - what rule_job.c (the job's own log) lends rule_dcgmi.c
 * (dcgmi's output), which reads the same job_log[] records: one finding per
 * subject for the records of one kind, and the job-log halves of the rules
 * that both files add to.
 */
#ifndef GD_RULES_RULE_JOB_H
#define GD_RULES_RULE_JOB_H

#include <stdbool.h>
#include <stddef.h>

#include "core/i18n.h"
#include "rules/rules.h"

/* _() of a string kept elsewhere (a rule's remedy, a table's text): "" stays
 * "", since dgettext("") is the catalogue's header. */
static inline const char *tr(const char *s)
{
	return s[0] ? _(s) : s;
}

/* Writes a finding's summary (and numbers) from the first record of its subject. */
typedef void (*gd__job_fill_fn)(struct gd_rule_ctx *rc, struct gd_finding *f, const struct gd_job_log *r);

/* One finding per subject for the records of that kind in s (at most eight,
 * the rest counted): fill() writes it from the first record, later ones are
 * counted in "messages"; each names its first line.  gpu: the subject is the
 * GPU a record names.  Returns the findings added. */
size_t gd__job_per_subject(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_snapshot *s,
			   const char *kind, enum gd_severity sev, bool gpu, gd__job_fill_fn fill);

/* The rule with what the job's log proves (rule_job.c); rule_dcgmi.c adds
 * dcgmi's verdicts to them as gd_rule_job_gpu_ecc_uncorrectable and
 * gd_rule_job_driver_nvml_unavailable. */
enum gd_verdict gd_rule_joblog_gpu_ecc_uncorrectable(struct gd_rule_ctx *rc, struct gd_findings *out);
enum gd_verdict gd_rule_joblog_driver_nvml_unavailable(struct gd_rule_ctx *rc, struct gd_findings *out);

/* The last snapshot when it holds a job log that was read, else NULL
 * (rule_job.c); the verdict across ranks (rule_job_ranks.c) reads it too. */
const struct gd_snapshot *gd__job_log_read(const struct gd_rule_ctx *rc);

/* The ranks of the logs that all reached work seq of their group, none
 * behind (rule_job_ranks.c): their count, 0 when fewer than two or one is
 * behind. */
size_t gd__job_reached(const struct gd_snapshot *s, uint64_t seq);

/* job.collective_timeout's finding when every rank of the logs shows last
 * enqueued work -1 (rule_job_ranks.c): 1 when added, else 0. */
size_t gd__job_frozen(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_snapshot *s, bool died);

#endif
