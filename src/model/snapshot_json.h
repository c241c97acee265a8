/*
 * snapshot_json.h - a snapshot as one JSON object (one line of a JSONL file).
 *
 * Generic over the field tables: absent numbers and empty strings are written
 * as null.  Loading ignores keys it does not know (written by a newer
 * gpudoctor) and rejects values of the wrong type with a message naming the
 * section and key; jansson's own parse errors carry line and column.
 */
#ifndef GD_MODEL_SNAPSHOT_JSON_H
#define GD_MODEL_SNAPSHOT_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "model/snapshot.h"
#include "model/snapshot_delta.h"

/* A JSON string of p[0..n); bytes that are not valid UTF-8 text (a comm
 * may hold any byte) are written as '?'.  Never NULL. */
json_t *gd_json_string(const char *p, size_t n);
#define gd_json_str(s) gd_json_string((s), strlen(s))

/* Returns a new JSON object (caller json_decref()s it). */
json_t *gd_snapshot_to_json(const struct gd_snapshot *s);
/* One section of s as the snapshot's JSON has it (an array of records, or
 * one record); NULL when there is no section of that name. */
json_t *gd_section_to_json(const struct gd_snapshot *s, const char *name);
/* Writes the snapshot as one compact JSON line to f; 0 or -errno. */
int gd_snapshot_write_line(const struct gd_snapshot *s, FILE *f);
/* The same as a recording's next line (snapshot_delta.h): unless whole, a
 * record prev has, written the same, is written as its key; then s becomes
 * prev (forgotten when the write fails).  *refs (may be NULL): how many. */
int gd_snapshot_write_line_after(const struct gd_snapshot *s, struct gd_delta_base *prev, bool whole, FILE *f,
				 size_t *refs);
/* Fills s (initialised by the caller) from obj; 0 or negative with err set.
 * A record written as a reference to the line before is an error. */
int gd_snapshot_from_json(const json_t *obj, struct gd_snapshot *s, struct gd_err *err);
/* The same, with references: each becomes a placeholder in s, noted in refs
 * (initialised by the caller) for gd_delta_resolve. */
int gd_snapshot_from_json_refs(const json_t *obj, struct gd_snapshot *s, struct gd_delta_refs *refs,
			       struct gd_err *err);
/* The next line of a recording read on its own (fleet FILE): references
 * put back from base, then s becomes base (base forgotten on an error, so
 * the lines after a bad one are not put back from a line before it).
 * where (or NULL) begins a message. */
int gd_snapshot_from_json_after(const json_t *obj, struct gd_snapshot *s, struct gd_delta_base *base,
				const char *where, struct gd_err *err);

/* A growable list of loaded snapshots. */
struct gd_series {
	struct gd_snapshot *items;
	size_t n, cap;
	char note[512];   /* what loading left out, and why ("": nothing): an interrupted recording */
};

void gd_series_init(struct gd_series *ser);
void gd_series_release(struct gd_series *ser);
/* Appends a zeroed snapshot and returns it. */
struct gd_snapshot *gd_series_push(struct gd_series *ser);

/* Reads a JSONL file of snapshots ("-" = standard input), plain or gzip
 * (by its first bytes), and appends them.  Blank lines are skipped.
 * Errors name file, line, column and reason.  A file whose last line is
 * cut after whole ones, or whose gzip data ends early (a recording
 * interrupted by power loss or kill -9), loads what is whole, and
 * ser->note says what was left out. */
int gd_series_load_jsonl(struct gd_series *ser, const char *path, struct gd_err *err);
/* The same from an open stream; name is used in messages. */
int gd_series_load_stream(struct gd_series *ser, FILE *f, const char *name, struct gd_err *err);

/*
 * One snapshot at a time, as gd_series_load_jsonl reads them (report of a
 * long recording streams it): open, then next() until it returns 0 (the
 * end) or less (an error, in err); note says what was left out, as
 * gd_series's.  Holds one line of the file.
 */
struct gd_jsonl_prefetch;
struct gd_jsonl_reader {
	FILE *f;
	bool own, gz;                   /* gz: a gzip file */
	int cut;                        /* gd_rec_fopen_read's: the gzip data ends early or is damaged */
	char name[4096];
	char *line;
	size_t cap, lineno, count;
	char note[512];
	struct gd_jsonl_prefetch *pf;   /* reading ahead on a thread (NULL: not) */
	struct gd_delta_base base;      /* the line before, for its references */
	size_t skipped;                 /* lines left out: their line before is not here */
	char skip_why[640];             /* the first one's reason */
};

int gd_jsonl_open(struct gd_jsonl_reader *r, const char *path, struct gd_err *err);
/* 1: s (initialised by the caller) holds the next snapshot; 0: the end. */
int gd_jsonl_next(struct gd_jsonl_reader *r, struct gd_snapshot *s, struct gd_err *err);
void gd_jsonl_close(struct gd_jsonl_reader *r);
/* From now on a thread of r's own reads and parses the lines ahead (up to
 * GD_JSONL_AHEAD snapshots), so that parsing the next snapshots overlaps
 * what the caller does with this one; next() gives the same snapshots,
 * errors and note in the same order.  Before the first next().  r's fields
 * other than note are the thread's until next() has returned 0 or less;
 * close() stops it. */
void gd_jsonl_prefetch(struct gd_jsonl_reader *r);
#define GD_JSONL_AHEAD 32

/* A string of decimal digits (a u64 the writer wrote as one) into *out. */
bool gd_u64_of_digits(const char *s, uint64_t *out);

/* One line of a recording (n bytes, its newline included or not) into s
 * (initialised) and refs (initialised) through cJSON, for the lines
 * gpudoctor writes: 1 when taken, with exactly what
 * gd_snapshot_from_json_refs gives for it; 0 when declined (s and refs may
 * hold part of it: release them), and the jansson path must read it
 * (snapshot_fast.c says which lines). */
int gd_snapshot_from_line_fast(const char *line, size_t n, struct gd_snapshot *s, struct gd_delta_refs *refs);

#endif
