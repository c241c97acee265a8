/*
 * tests/snapshot_fast_check.h - the differential check of the cJSON fast
 * path of a recording's lines (src/model/snapshot_fast.c) against jansson,
 * shared by tests/unit/test_snapshot_fast.c and the fuzz harness.
 */
#ifndef GD_TESTS_SNAPSHOT_FAST_CHECK_H
#define GD_TESTS_SNAPSHOT_FAST_CHECK_H

#include <jansson.h>
#include <stdlib.h>

#include "model/snapshot_json.h"

/* s as the JSON gpudoctor writes, in a new string. */
static inline char *fast_check_dump(const struct gd_snapshot *s)
{
	json_t *w = gd_snapshot_to_json(s);
	char *out = json_dumps(w, JSON_COMPACT | JSON_ENSURE_ASCII);

	json_decref(w);
	return out;
}

/* The snapshot jansson makes of line, written back; NULL when it refuses. */
static inline char *fast_check_slow(const char *line, size_t n)
{
	struct gd_snapshot s;
	struct gd_err err;
	json_error_t jerr;
	json_t *o = json_loadb(line, n, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &jerr);
	char *out = NULL;

	if (!o)
		return NULL;
	gd_snapshot_init(&s);
	if (gd_snapshot_from_json(o, &s, &err) == 0)
		out = fast_check_dump(&s);
	json_decref(o);
	gd_snapshot_release(&s);
	return out;
}

/* -1 when the fast path declines line; else whether what it gives is what
 * jansson gives (*fast, *want: the two, for a message; free both). */
static inline int fast_check_line(const char *line, size_t n, char **fast, char **want)
{
	struct gd_snapshot s;
	int taken;

	*fast = *want = NULL;
	gd_snapshot_init(&s);
	taken = gd_snapshot_from_line_fast(line, n, &s);
	if (taken == 1) {
		*fast = fast_check_dump(&s);
		*want = fast_check_slow(line, n);
	}
	gd_snapshot_release(&s);
	if (taken != 1)
		return -1;
	return *want && strcmp(*fast, *want) == 0;
}

#endif
