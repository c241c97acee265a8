/*
 * tok.h - one tokenizer for the kernel's text files.
 *
 * /proc and /sys files come in three shapes: whitespace tables (/proc/stat,
 * /proc/diskstats), "key: value" lists (/proc/meminfo, /proc/<pid>/status)
 * and "key value" lists (/proc/vmstat, cgroup cpu.stat).  Parsers walk lines
 * with gd_tok_line, split them with gd_tok_split or gd_tok_kv, and convert
 * numbers with the strict gd_tok_u64/gd_tok_f64, which reject trailing junk
 * and overflow instead of returning 0 (netdata's procfile, PCP's scanner).
 *
 * Slices point into the caller's buffer; nothing here allocates.
 */
#ifndef GD_CORE_TOK_H
#define GD_CORE_TOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gd_slice {
	const char *p;
	size_t n;
};

/* Line iterator over buf[0..len).  Lines exclude the '\n'. */
struct gd_lines {
	const char *p, *end;
	size_t lineno;   /* 1-based number of the line last returned */
};

void gd_lines_init(struct gd_lines *it, const char *buf, size_t len);
bool gd_tok_line(struct gd_lines *it, struct gd_slice *line);

/* Splits s at runs of spaces/tabs into at most max fields; returns the count
 * (fields past max are not counted). */
size_t gd_tok_split(struct gd_slice s, struct gd_slice *fields, size_t max);

/* Splits at the first sep character: key and value trimmed of blanks.
 * Returns false when sep is absent. */
bool gd_tok_kv(struct gd_slice s, char sep, struct gd_slice *key, struct gd_slice *val);

struct gd_slice gd_tok_trim(struct gd_slice s);
bool gd_tok_eq(struct gd_slice s, const char *lit);
bool gd_tok_prefix(struct gd_slice s, const char *lit);

/* Strict conversions: the whole slice must be the number. */
bool gd_tok_u64(struct gd_slice s, uint64_t *out);
bool gd_tok_i64(struct gd_slice s, int64_t *out);
bool gd_tok_f64(struct gd_slice s, double *out);

/* Copies a slice into a fixed buffer, truncating, always NUL-terminated. */
void gd_tok_copy(char *dst, size_t dstsz, struct gd_slice s);

/* True when buf holds a NUL byte or other binary junk that a text file of the
 * kernel never holds (used to reject garbage early with a clear reason). */
bool gd_tok_is_binary(const char *buf, size_t len);

/* Tally of a table parse that skips bad lines: lines used, lines skipped,
 * and the first skipped line with its reason (zero-initialise it). */
struct gd_tok_tally {
	size_t parsed, skipped, first_bad;
	const char *why;
};

struct gd_err;

/* Counts a skipped line; the number and reason of the first one are kept. */
void gd_tok_tally_skip(struct gd_tok_tally *t, size_t lineno, const char *why);

/* The parser result the tally stands for: 0 when nothing was skipped; 1
 * (partial) with "line N: why; K line(s) skipped" in err; -EINVAL "line N:
 * why (no usable line)" when every line was bad; -ENODATA "empty: what" when
 * there were no lines at all. */
int gd_tok_tally_result(const struct gd_tok_tally *t, const char *what, struct gd_err *err);

#endif
