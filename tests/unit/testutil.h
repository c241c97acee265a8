/*
 * testutil.h - shared helpers for the cmocka unit tests.
 *
 * Parsers are tested on string literals of real samples; rules on snapshots
 * built in C.  A two-snapshot window is the usual fixture: WINDOW2 gives one
 * over a and b, whose host.uptime_s must be set.
 */
#ifndef GD_TESTUTIL_H
#define GD_TESTUTIL_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
/* cmocka.h needs the headers above first. */
#include <cmocka.h>

#include "collect/collectors.h"
#include "model/snapshot.h"
#include "rules/rule.h"
#include "rules/rules.h"

/* Runs a parser over a NUL-terminated literal. */
static inline int parse_lit(gd_parse_fn fn, const char *text, struct gd_snapshot *s, struct gd_err *err)
{
	gd_err_clear(err);
	return fn(text, strlen(text), s, err);
}

/* Two snapshots dt seconds apart, zeroed, with uptime set. */
/* The nth job_log[] record of a kind (0 the first), NULL when there is none. */
static inline const struct gd_job_log *jl_kind(const struct gd_snapshot *s, const char *kind, size_t nth)
{
	GD_VEC_EACH(s->job_log, const struct gd_job_log, r)
		if (strcmp(r->kind, kind) == 0 && nth-- == 0)
			return r;
	return NULL;
}

static inline void pair_init(struct gd_snapshot *a, struct gd_snapshot *b, double dt)
{
	gd_snapshot_init(a);
	gd_snapshot_init(b);
	gd_f64_set(&a->host.uptime_s, 1000.0);
	gd_f64_set(&b->host.uptime_s, 1000.0 + dt);
	gd_u64_set(&a->host.clk_tck, 100);
	gd_u64_set(&b->host.clk_tck, 100);
}

/* Runs the rule with that id over (a, b) and default thresholds (or th). */
static inline enum gd_verdict run_rule2(const char *id, const struct gd_snapshot *a, const struct gd_snapshot *b,
					 const struct gd_thresholds *th, struct gd_findings *out)
{
	const struct gd_snapshot *snaps[2] = { a, b };
	struct gd_window w = { snaps, b ? 2 : 1 };
	struct gd_thresholds def;
	const struct gd_rule *r = gd_rule_find(id);

	assert_non_null(r);
	if (!th) {
		gd_thresholds_init(&def);
		th = &def;
	}
	return gd_rule_run(r, &w, th, out);
}

/* The evidence named name of finding f (fails the test when absent). */
static inline const struct gd_evidence *ev_get(const struct gd_finding *f, const char *name)
{
	for (size_t i = 0; i < f->nev; i++)
		if (strcmp(f->ev[i].name, name) == 0)
			return &f->ev[i];
	fail_msg("finding %s has no evidence \"%s\"", f->id, name);
	return NULL;
}

#define FINDING(out, i) GD_VEC_AT((out).items, struct gd_finding, i)

/* Evidence name of finding f has value val and threshold th (each within
 * 1e-9); a macro, so that a failure names the test's line. */
#define assert_ev(f, name, val, th) \
	do { \
		assert_float_equal(ev_get((f), (name))->value.v, (val), 1e-9); \
		assert_float_equal(ev_get((f), (name))->threshold.v, (th), 1e-9); \
	} while (0)

/* Fails unless |x - want| <= eps, naming the expression. */
#define NEAR(x, want, eps) \
	do { \
		double x_ = (x), w_ = (want); \
		if (!(fabs(x_ - w_) <= (eps))) \
			fail_msg("%s = %.9g, want %.9g", #x, x_, w_); \
	} while (0)

/* Fails unless the string hay contains needle. */
#define assert_contains(hay, needle) \
	do { \
		if (!strstr((hay), (needle))) \
			fail_msg("\"%s\" does not contain \"%s\"", (hay), (needle)); \
	} while (0)

/* The rule-test fixture: snapshots a and b 2 s apart (pair_init) and the
 * findings, set up and released by cmocka around each test, so a failed
 * assertion leaks nothing:
 *	cmocka_unit_test_setup_teardown(test_x, fx_setup, fx_teardown) */
struct fx {
	struct gd_snapshot a, b;
	struct gd_findings out;
};

static inline int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);

	if (!f)
		return -1;
	pair_init(&f->a, &f->b, 2.0);
	gd_findings_init(&f->out);
	*state = f;
	return 0;
}

static inline int fx_teardown(void **state)
{
	struct fx *f = *state;

	gd_snapshot_release(&f->a);
	gd_snapshot_release(&f->b);
	gd_findings_release(&f->out);
	free(f);
	return 0;
}

/* Starts the next case of a test on the fixture: releases a, b and the
 * findings and sets them up afresh, as fx_setup did. */
static inline void fx_reset(struct fx *f)
{
	gd_snapshot_release(&f->a);
	gd_snapshot_release(&f->b);
	gd_findings_release(&f->out);
	pair_init(&f->a, &f->b, 2.0);
	gd_findings_init(&f->out);
}

/* Releases a test's own pair of snapshots and its findings. */
static inline void release(struct gd_snapshot *a, struct gd_snapshot *b, struct gd_findings *out)
{
	gd_snapshot_release(a);
	gd_snapshot_release(b);
	gd_findings_release(out);
}

/* The one finding in out (fails unless exactly one). */
static inline const struct gd_finding *one_finding(const struct gd_findings *out)
{
	assert_int_equal(out->items.n, 1);
	return GD_VEC_AT(out->items, struct gd_finding, 0);
}

/* Rule id over (a, b; b NULL: a alone) gives before under th, and after
 * once threshold key is set to value (which must be accepted). */
static inline void assert_override(const char *id, const struct gd_snapshot *a, const struct gd_snapshot *b,
				   struct gd_thresholds *th, struct gd_findings *out, const char *key,
				   const char *value, enum gd_verdict before, enum gd_verdict after)
{
	struct gd_err err;

	assert_int_equal(run_rule2(id, a, b, th, out), before);
	assert_int_equal(gd_thresholds_set(th, key, value, &err), 0);
	assert_int_equal(run_rule2(id, a, b, th, out), after);
}

/* The reason of the one unknown verdict in out (fails unless exactly one). */
static inline const char *unknown_reason(const struct gd_findings *out)
{
	assert_int_equal(out->unknown.n, 1);
	return GD_VEC_AT(out->unknown, struct gd_unknown, 0)->reason;
}

#endif
