/*
 * testutil.h - shared helpers for the cmocka unit tests.
 *
 * Parsers are tested on string literals of real samples; rules on snapshots
 * built in C.  A two-snapshot window is the usual fixture: WINDOW2 gives one
 * over a and b, whose host.uptime_s must be set.
 */
#ifndef GD_TESTUTIL_H
#define GD_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

#endif
