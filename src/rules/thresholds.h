/*
 * thresholds.h - the numbers rules compare evidence with.
 *
 * One table (thresholds.def) lists them all with their defaults.  A user
 * overrides them in an INI file (inih) or with --set rule.key=value; an
 * unknown rule or key is an error that names it, never silently ignored.
 */
#ifndef GD_RULES_THRESHOLDS_H
#define GD_RULES_THRESHOLDS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

enum gd_th {
#define GD_TH(e, rule, key, def, unit, help) GD_TH_##e,
#include "rules/thresholds.def"
#undef GD_TH
	GD_TH_COUNT
};

struct gd_th_desc {
	const char *rule, *key, *unit, *help;
	double def;
};

extern const struct gd_th_desc gd_th_table[GD_TH_COUNT];

struct gd_thresholds {
	double v[GD_TH_COUNT];
};

void gd_thresholds_init(struct gd_thresholds *t);
/* Sets "rule.key" (the rule id holds a dot too: the key is after the last
 * dot) to the number in value.  Errors name the key. */
int gd_thresholds_set(struct gd_thresholds *t, const char *name, const char *value, struct gd_err *err);
/* Loads an INI file: sections are rule ids, keys are threshold keys.  When
 * missing_ok, a file that does not exist is not an error. */
int gd_thresholds_load(struct gd_thresholds *t, const char *path, bool missing_ok, struct gd_err *err);

#endif
