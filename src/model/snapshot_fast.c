/*
 * snapshot_fast.c - a recording's line into a snapshot through cJSON: the
 * fast path of gd_jsonl_next (snapshot_json.c), for the lines gpudoctor
 * itself writes.  jansson builds a hash table per object and parses
 * numbers twice over; cJSON keeps each object as a list, which is all the
 * field tables need, and reads a 13 KB line of an 8-GPU node in a third of
 * the time (bench/report/run.sh: report of 24 h at 1 s, 86,400 lines).
 *
 * The fast path takes a line only when it can give exactly what the jansson
 * path gives; anything else it declines (0), and the caller parses the line
 * with jansson, which accepts or rejects it with its own message.  cJSON is
 * more lenient than jansson, so before it runs a lexical check declines a
 * line with a byte outside printable ASCII (jansson checks UTF-8; gpudoctor
 * writes JSON_ENSURE_ASCII), a control character, \u0000 (jansson refuses
 * it), a number jansson would not read ("01", "1.", "1e"), or a version
 * that is not written as an integer.  While it fills the snapshot it
 * declines a key no field table names (jansson would check it for
 * duplicates; newer recordings take the slow path), a key seen twice, a
 * value of the wrong type, and a number of 2^53 or more (an integer that
 * large is exact in jansson, not in a double).  A record written as its key
 * (a number in procs[], threads[], job_threads[] or job_ranks[]:
 * snapshot_delta.h) is
 * taken as jansson's path takes it, a placeholder noted in refs, for the
 * caller to put back from the line before.  tests/unit/test_snapshot_fast.c
 * and the fuzz target snapshot.fast check that a line the fast path takes
 * gives the same snapshot as jansson's.
 */
#include "model/snapshot_json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

#define EXACT 9007199254740992.0   /* 2^53 */

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A JSON number at p (before e) as jansson reads it: -?(0|[1-9][0-9]*)
 * (.[0-9]+)?([eE][+-]?[0-9]+)?; returns its end, or NULL. */
static const char *number_end(const char *p, const char *e)
{
	if (p < e && *p == '-')
		p++;
	if (p >= e || !digit(*p))
		return NULL;
	if (*p == '0')
		p++;
	else
		while (p < e && digit(*p))
			p++;
	if (p < e && *p == '.') {
		if (++p >= e || !digit(*p))
			return NULL;
		while (p < e && digit(*p))
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		if (++p < e && (*p == '+' || *p == '-'))
			p++;
		if (p >= e || !digit(*p))
			return NULL;
		while (p < e && digit(*p))
			p++;
	}
	return p;
}

/* The lexical check above; n without the line's end. */
static bool lex_ok(const char *p, size_t n)
{
	const char *e = p + n;
	static const char head[] = "{\"version\":";

	const char *ver = p + sizeof head - 1;

	/* the version an integer: digits, then the next key */
	if (n < sizeof head || memcmp(p, head, sizeof head - 1) != 0 || !digit(*ver))
		return false;
	while (ver < e && digit(*ver))
		ver++;
	if (ver >= e || *ver != ',')
		return false;
	while (p < e) {
		unsigned char c = (unsigned char)*p;

		if (c < 0x20 || c >= 0x7f)
			return false;
		if (c == '"') {
			for (p++; p < e && *p != '"'; p++) {
				c = (unsigned char)*p;
				if (c < 0x20 || c >= 0x7f)
					return false;
				if (c != '\\')
					continue;
				if (++p >= e)
					return false;
				if (*p == 'u' && e - p >= 5 && memcmp(p + 1, "0000", 4) == 0)
					return false;
			}
			if (p >= e)
				return false;
			p++;
			continue;
		}
		if (c == '-' || digit((char)c)) {
			const char *q = number_end(p, e);

			/* the number ends where a separator starts */
			if (!q || (q < e && *q != ',' && *q != ']' && *q != '}'))
				return false;
			p = q;
			continue;
		}
		p++;
	}
	return true;
}

/* The field of d named key, looked for from *cursor on (the writer's order:
 * usually the next one). */
static const struct gd_field *field_named(const struct gd_record_desc *d, const char *key, size_t *cursor)
{
	for (size_t k = 0; k < d->nfields; k++) {
		size_t i = (*cursor + k) % d->nfields;

		if (strcmp(d->fields[i].name, key) == 0) {
			*cursor = i + 1;
			return &d->fields[i];
		}
	}
	return NULL;
}

static bool record_fast(const struct gd_record_desc *d, const cJSON *o, char *rec)
{
	unsigned char seen[256];
	size_t cursor = 0;

	if (!cJSON_IsObject(o) || d->nfields > sizeof seen)
		return false;
	memset(seen, 0, d->nfields);
	for (const cJSON *v = o->child; v; v = v->next) {
		const struct gd_field *f = v->string ? field_named(d, v->string, &cursor) : NULL;
		char *p;

		if (!f || seen[f - d->fields]++)
			return false;
		if (cJSON_IsNull(v))
			continue;
		p = rec + f->offset;
		switch (f->type) {
		case GD_FT_U64: {
			struct gd_u64 *x = (void *)p;

			if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < EXACT)
				gd_u64_set(x, (uint64_t)v->valuedouble);
			else if (cJSON_IsString(v) && gd_u64_of_digits(v->valuestring, &x->v))
				x->ok = true;
			else
				return false;
			break;
		}
		case GD_FT_F64:
			if (!cJSON_IsNumber(v) || !(fabs(v->valuedouble) < EXACT))
				return false;
			gd_f64_set((struct gd_f64 *)(void *)p, v->valuedouble);
			break;
		case GD_FT_STR:
			if (!cJSON_IsString(v))
				return false;
			gd_strlcpy(p, v->valuestring, f->size);
			break;
		}
	}
	return true;
}

static const struct gd_record_desc *section_named(const char *key, size_t *cursor)
{
	for (size_t k = 0; k < gd_nsections; k++) {
		size_t i = (*cursor + k) % gd_nsections;

		if (strcmp(gd_sections[i].name, key) == 0) {
			*cursor = i + 1;
			return &gd_sections[i];
		}
	}
	return NULL;
}

static bool fill(const cJSON *root, struct gd_snapshot *s, struct gd_delta_refs *refs)
{
	unsigned char seen[64];
	size_t cursor = 0;
	bool version = false, host = false, after = false;

	if (!cJSON_IsObject(root) || gd_nsections > sizeof seen)
		return false;
	memset(seen, 0, gd_nsections);
	for (const cJSON *v = root->child; v; v = v->next) {
		const struct gd_record_desc *d;
		char *base;
		int slot;

		if (!v->string)
			return false;
		if (strcmp(v->string, "version") == 0) {
			if (version || !cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > GD_SNAPSHOT_VERSION)
				return false;
			version = true;
			continue;
		}
		if (strcmp(v->string, "after") == 0) {
			if (after || !cJSON_IsNumber(v) || !(fabs(v->valuedouble) < EXACT))
				return false;
			gd_f64_set(&refs->after, v->valuedouble);
			after = true;
			continue;
		}
		if (!(d = section_named(v->string, &cursor)) || seen[d - gd_sections]++)
			return false;
		host |= strcmp(d->name, "host") == 0;
		if (cJSON_IsNull(v))
			continue;
		base = (char *)s + d->offset;
		if (!d->is_array) {
			if (!record_fast(d, v, base))
				return false;
			continue;
		}
		if (!cJSON_IsArray(v))
			return false;
		slot = gd_delta_slot(d);
		for (const cJSON *x = v->child; x; x = x->next) {
			/* a record as in the line before, written as its key */
			if (slot >= 0 && cJSON_IsNumber(x)) {
				if (!(x->valuedouble >= 0 && x->valuedouble < EXACT))
					return false;
				gd_delta_ref_push(refs, s, slot, (uint64_t)x->valuedouble);
				continue;
			}
			if (!record_fast(d, x, gd_vec_push((struct gd_vec *)(void *)base, d->size)))
				return false;
		}
	}
	return version && host;
}

int gd_snapshot_from_line_fast(const char *line, size_t n, struct gd_snapshot *s, struct gd_delta_refs *refs)
{
	cJSON *root;
	bool ok;

	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	if (!lex_ok(line, n))
		return 0;
	if (!(root = cJSON_ParseWithLengthOpts(line, n, NULL, 0)))
		return 0;
	ok = fill(root, s, refs);
	cJSON_Delete(root);
	return ok ? 1 : 0;
}
