/*
 * tests/snapshot_fast_check.h - the differential check of the cJSON fast
 * path of a recording's lines (src/model/snapshot_fast.c) against jansson,
 * shared by tests/unit/test_snapshot_fast.c and the fuzz harness.
 */
#ifndef GD_TESTS_SNAPSHOT_FAST_CHECK_H
#define GD_TESTS_SNAPSHOT_FAST_CHECK_H

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
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

/* out with a formatted tail (up to 63 bytes) appended; NULL stays NULL. */
static inline char *fast_check_append(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline char *fast_check_append(char *out, const char *fmt, ...)
{
	va_list ap;
	size_t n;
	char *more;

	if (!out)
		return NULL;
	n = strlen(out);
	if (!(more = realloc(out, n + 64))) {
		free(out);
		return NULL;
	}
	va_start(ap, fmt);
	vsnprintf(more + n, 64, fmt, ap);
	va_end(ap);
	return more;
}

/* The references a line made, appended to out as " after=T slot:index=key". */
static inline char *fast_check_refs(char *out, const struct gd_delta_refs *refs)
{
	if (refs->after.ok)
		out = fast_check_append(out, " after=%.17g", refs->after.v);
	for (int i = 0; i < GD_DELTA_NSEC; i++)
		GD_VEC_EACH(refs->sec[i], const struct gd_delta_ref, r)
			out = fast_check_append(out, " %d:%zu=%llu", i, r->index, (unsigned long long)r->key);
	return out;
}

/* The snapshot jansson makes of line, written back, and its references;
 * NULL when it refuses. */
static inline char *fast_check_slow(const char *line, size_t n)
{
	struct gd_snapshot s;
	struct gd_delta_refs refs;
	struct gd_err err;
	json_error_t jerr;
	json_t *o = json_loadb(line, n, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &jerr);
	char *out = NULL;

	if (!o)
		return NULL;
	gd_snapshot_init(&s);
	gd_delta_refs_init(&refs);
	if (gd_snapshot_from_json_refs(o, &s, &refs, &err) == 0)
		out = fast_check_refs(fast_check_dump(&s), &refs);
	json_decref(o);
	gd_delta_refs_release(&refs);
	gd_snapshot_release(&s);
	return out;
}

/* -1 when the fast path declines line; else whether what it gives is what
 * jansson gives (*fast, *want: the two, for a message; free both). */
static inline int fast_check_line(const char *line, size_t n, char **fast, char **want)
{
	struct gd_snapshot s;
	struct gd_delta_refs refs;
	int taken;

	*fast = *want = NULL;
	gd_snapshot_init(&s);
	gd_delta_refs_init(&refs);
	taken = gd_snapshot_from_line_fast(line, n, &s, &refs);
	if (taken == 1) {
		*fast = fast_check_refs(fast_check_dump(&s), &refs);
		*want = fast_check_slow(line, n);
	}
	gd_delta_refs_release(&refs);
	gd_snapshot_release(&s);
	if (taken != 1)
		return -1;
	return *want && strcmp(*fast, *want) == 0;
}

#endif
