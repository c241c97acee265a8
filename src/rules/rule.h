/*
 * rule.h - rules, findings and the engine that runs them.
 *
 * A rule is a pure function of a window of snapshots and the thresholds: it
 * does no I/O, so tests build snapshots in C and call it.  It answers one of
 *
 *   GD_VERDICT_CLEAR    the evidence is there and shows no problem;
 *   GD_VERDICT_FIRED    it added one or more findings;
 *   GD_VERDICT_UNKNOWN  the evidence it needs is missing (rc->why says
 *                       which); never merged into "clear" (redis syscheck).
 *
 * A finding names the rule (its stable id from CAUSES.md), a severity, the
 * subject in the words operators use (cpu3, nvme0n1, eth0, pid 4711
 * (python), /dev/shm), a one-sentence summary with numbers, its evidence as
 * numbers next to the thresholds they crossed, and the remedy.
 */
#ifndef GD_RULES_RULE_H
#define GD_RULES_RULE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/vec.h"
#include "rules/thresholds.h"
#include "rules/window.h"

enum gd_severity { GD_SEV_INFO = 1, GD_SEV_WARNING = 2, GD_SEV_CRITICAL = 3 };
const char *gd_severity_name(enum gd_severity s);

enum gd_verdict { GD_VERDICT_CLEAR, GD_VERDICT_FIRED, GD_VERDICT_UNKNOWN };

/* A rule gives up to 8; the rest is room for what is added after it (the
 * probe phase that provoked the finding, probe/result.h). */
#define GD_MAX_EVIDENCE 10

struct gd_evidence {
	char name[48];            /* snake_case, e.g. busy_pct */
	struct gd_f64 value;      /* absent for text-only evidence */
	char unit[16];            /* %, bytes, MB/s, celsius ... */
	struct gd_f64 threshold;  /* what value was compared with, if anything */
	char text[96];            /* non-numeric evidence (a governor name) */
	char source[160];         /* the line that proved it, "train.log:1234" ("": none) */
};

struct gd_finding {
	const char *id;           /* static: the rule's id */
	enum gd_severity severity;
	char subject[128];
	char summary[512];
	char remedy[512];
	struct gd_evidence ev[GD_MAX_EVIDENCE];
	size_t nev;
};

struct gd_unknown {
	const char *id;
	char reason[512];
};

struct gd_findings {
	struct gd_vec items;      /* struct gd_finding, most severe first after gd_engine_run */
	struct gd_vec unknown;    /* struct gd_unknown: rules not evaluated, and why */
	size_t evaluated;         /* rules that reached a verdict */
};

void gd_findings_init(struct gd_findings *f);
void gd_findings_release(struct gd_findings *f);
/* Worst severity present, 0 when none. */
int gd_findings_worst(const struct gd_findings *f);

struct gd_rule;

struct gd_rule_ctx {
	const struct gd_window *w;
	const struct gd_thresholds *th;
	const struct gd_rule *rule;
	char why[512];            /* set by gd_rule_unknown */
};

typedef enum gd_verdict (*gd_rule_fn)(struct gd_rule_ctx *rc, struct gd_findings *out);

struct gd_rule {
	const char *id;           /* stable, from CAUSES.md */
	enum gd_severity severity;/* the usual severity; a finding may differ */
	const char *title;        /* one line: what it detects */
	const char *remedy;       /* default remedy text */
	bool needs_window;        /* needs two or more snapshots (rates) */
	gd_rule_fn eval;
};

extern const struct gd_rule gd_rules[];
extern const size_t gd_nrules;
const struct gd_rule *gd_rule_find(const char *id);

/* Adds a finding for the rule in rc with the rule's remedy; subject is
 * printf-formatted.  Fill the rest with the helpers below. */
struct gd_finding *gd_finding_add(struct gd_rule_ctx *rc, struct gd_findings *out, enum gd_severity sev,
				  const char *subject_fmt, ...) __attribute__((format(printf, 4, 5)));
void gd_finding_summary(struct gd_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gd_finding_remedy(struct gd_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Numeric evidence; pass threshold as NAN when there is none. */
void gd_finding_ev(struct gd_finding *f, const char *name, double value, const char *unit, double threshold);
/* Text evidence. */
void gd_finding_ev_text(struct gd_finding *f, const char *name, const char *text);
/* The line of a file that proved the finding: evidence "log_line" with the
 * line number as its value, file:line as its source and the line's text. */
void gd_finding_ev_line(struct gd_finding *f, const char *file, double line, const char *text);

/* Records why the rule could not judge and returns GD_VERDICT_UNKNOWN. */
enum gd_verdict gd_rule_unknown(struct gd_rule_ctx *rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sorts the findings most severe first, keeping the order within a severity. */
void gd_findings_sort(struct gd_findings *out);
/* Runs every rule of gd_rules[] over the window; sorts findings most severe
 * first (stable within a severity: registry order). */
void gd_engine_run(const struct gd_window *w, const struct gd_thresholds *th, struct gd_findings *out);
/*
 * The engine over a series too long to hold (report of a long recording):
 * run over successive windows of it, the findings merged.  A finding is
 * kept once per rule and subject: the first one at the highest severity
 * any window gave it.  A rule is evaluated when some window evaluated it;
 * a rule no window evaluated is unknown with the last window's reason.
 * gd_engine_acc_finish() orders them as gd_engine_run does (most severe
 * first, then registry order, then the order they came): over one window,
 * the result is gd_engine_run's.
 */
struct gd_engine_acc {
	struct gd_findings f;     /* items merged so far, in the order they came */
	struct gd_vec keys;       /* struct gd_engine_key, one per item */
	bool *evaluated;          /* per gd_rules[] row */
	struct gd_unknown *why;   /* per gd_rules[] row: the last reason it was unknown */
	size_t seq, windows;
};

struct gd_engine_key {
	size_t rule, seq;
};

bool gd_engine_acc_init(struct gd_engine_acc *a);
void gd_engine_acc_release(struct gd_engine_acc *a);
void gd_engine_acc_run(struct gd_engine_acc *a, const struct gd_window *w, const struct gd_thresholds *th);
/* The merged findings into out (initialised by the caller). */
void gd_engine_acc_finish(struct gd_engine_acc *a, struct gd_findings *out);

/* Runs one rule; what gd_engine_run does per row.  For tests. */
enum gd_verdict gd_rule_run(const struct gd_rule *r, const struct gd_window *w, const struct gd_thresholds *th,
			    struct gd_findings *out);

#endif
