/*
 * lineparse.h - internals shared by the kernel-log line parser (parse.c, and
 * parse_host.c for the host's messages) and its time-stamp readers
 * (stamp.c): a cursor over one line, the fields read from it, the stamps
 * and the host-message readers.  Not part of the klog API (klog.h).
 */
#ifndef GD_KLOG_LINEPARSE_H
#define GD_KLOG_LINEPARSE_H

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "klog/klog.h"

/* ---- a cursor over the line --------------------------------------------- */

struct gd_kcur {
	const char *p, *e;
};

static inline bool gd_kc_at(const struct gd_kcur *c, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(c->e - c->p) >= n && memcmp(c->p, lit, n) == 0;
}

static inline bool gd_kc_eat(struct gd_kcur *c, const char *lit)
{
	if (!gd_kc_at(c, lit))
		return false;
	c->p += strlen(lit);
	return true;
}

static inline void gd_kc_skip_sp(struct gd_kcur *c)
{
	while (c->p < c->e && *c->p == ' ')
		c->p++;
}

static inline const char *gd_kc_find(const char *p, const char *e, const char *lit)
{
	return p < e ? memmem(p, (size_t)(e - p), lit, strlen(lit)) : NULL;
}

/* Reads up to max decimal digits; false when there is none or it overflows. */
static inline bool gd_kc_num(struct gd_kcur *c, size_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	while (c->p + i < c->e && i < max && isdigit((unsigned char)c->p[i])) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(c->p[i] - '0');
		i++;
	}
	if (!i)
		return false;
	c->p += i;
	*out = v;
	return true;
}

/* "123.456" (digits, optional fraction) as a double. */
static inline bool gd_kc_fnum(struct gd_kcur *c, double *out)
{
	uint64_t ip, fp;
	const char *f;
	double d = 1;

	if (!gd_kc_num(c, 12, &ip))
		return false;
	*out = (double)ip;
	if (c->p < c->e && *c->p == '.') {
		c->p++;
		f = c->p;
		if (!gd_kc_num(c, 9, &fp))
			return false;
		for (const char *q = f; q < c->p; q++)
			d *= 10;
		*out += (double)fp / d;
		while (c->p < c->e && isdigit((unsigned char)*c->p))
			c->p++;
	}
	return true;
}

/* ---- fields of the message ---------------------------------------------- */

static inline bool gd_kc_is_hex(char ch)
{
	return isxdigit((unsigned char)ch) != 0;
}

/* The event's text: the message from p to e, cut to fit. */
static inline void gd_kc_text(struct gd_klog_event *ev, const char *p, const char *e)
{
	size_t n = (size_t)(e - p);

	if (n >= sizeof ev->text)
		n = sizeof ev->text - 1;
	memcpy(ev->text, p, n);
	ev->text[n] = '\0';
}

/* [p, e) into dst as a string, cut to fit (nothing when e <= p). */
static inline void gd_kc_copy(char *dst, size_t sz, const char *p, const char *e)
{
	size_t n = p < e ? (size_t)(e - p) : 0;

	if (n >= sz)
		n = sz - 1;
	memcpy(dst, p, n);
	dst[n] = '\0';
}

/* Value after "key" (e.g. "socket:") as a number. */
static inline bool gd_kc_keyed_u64(const char *p, const char *e, const char *key, struct gd_u64 *out)
{
	const char *k = gd_kc_find(p, e, key);
	struct gd_kcur c;
	uint64_t v;

	if (!k)
		return false;
	c.p = k + strlen(key);
	c.e = e;
	if (!gd_kc_num(&c, 19, &v))
		return false;
	gd_u64_set(out, v);
	return true;
}

/* ---- time stamps (stamp.c): each eats its prefix and fills ev's times ---- */
/* tc (may be NULL) keeps mktime()'s answers by the hour (klog.h). */

struct tm;
/* The month (0-11) whose English abbreviation ("Jan") opens p, -1 if none;
 * p holds at least 3 bytes. */
int gd__klog_month(const char *p);
/* Local time tm (tm_isdst is set to -1) in seconds since the epoch, -1 if
 * it has none. */
double gd__klog_mktime(struct tm *tm, struct gd_klog_tcache *tc);
bool gd__klog_boot_stamp(struct gd_kcur *c, struct gd_klog_event *ev);   /* [ 5023.456789] */
bool gd__klog_kmsg_prefix(struct gd_kcur *c, struct gd_klog_event *ev);  /* 4,1234,5023456789,-; */
bool gd__klog_ctime_stamp(struct gd_kcur *c, struct gd_klog_event *ev, struct gd_klog_tcache *tc); /* [Mon Nov 30 01:02:03 2026] */
bool gd__klog_iso_stamp(struct gd_kcur *c, struct gd_klog_event *ev, struct gd_klog_tcache *tc);   /* 2026-11-30T01:02:03+01:00 */
bool gd__klog_syslog_stamp(struct gd_kcur *c, struct gd_klog_event *ev, bool *no_year, struct gd_klog_tcache *tc); /* Nov 30 01:02:03 */
bool gd__klog_kernel_tag(struct gd_kcur *c);                             /* HOST kernel: */

/* gd_klog_parse_line_ex with a time cache (the scanner's). */
enum gd_klog_kind gd__klog_parse_line_tc(const char *line, size_t n, struct gd_klog_event *ev, bool *no_year,
					 struct gd_klog_tcache *tc);

/* ---- the scan without the parse (scan.c, for input.c's parallel scan) ---- */

struct gd__klog_cand {
	const char *p;
	size_t n;
};

struct gd__klog_scan {
	uint64_t lines;               /* newlines seen (added to) */
	struct gd__klog_cand *c;      /* the lines gd_klog_feed_buf would parse, in order */
	size_t n, cap;
	const char *stop;             /* NULL, or where c[] filled up: the rest is not scanned */
};

/* What gd_klog_feed_buf does to buf, less the parse: the lines it would
 * parse go to s->c (feed them with gd_klog_feed_line, in order), the
 * newlines to s->lines.  Touches nothing but s. */
void gd__klog_scan_buf(struct gd__klog_scan *s, const char *buf, size_t len);

/* gd_klog_read_fd with a given number of scanning threads for a mapped
 * file (0: none; -1: by the file's size and the CPUs, as gd_klog_read_fd). */
int gd__klog_read_fd_workers(struct gd_klog_feed *f, int fd, const char *name, struct gd_err *err, int workers);

/* ---- host messages (parse_host.c): c holds the message, prefixes gone ---- */

enum gd_klog_kind gd__klog_oom(struct gd_kcur c, const char *k, struct gd_klog_event *ev);   /* Killed process */
enum gd_klog_kind gd__klog_oom_ctx(struct gd_kcur c, struct gd_klog_event *ev);              /* oom-kill: */
enum gd_klog_kind gd__klog_hung(struct gd_kcur c, const char *b, struct gd_klog_event *ev);  /* INFO: task */
enum gd_klog_kind gd__klog_mce(struct gd_kcur c, struct gd_klog_event *ev);                  /* machine check */
enum gd_klog_kind gd__klog_frame_nv(struct gd_kcur c, struct gd_klog_event *ev);             /* sym+0x1/0x2 [nvidia] */
enum gd_klog_kind gd__klog_edac(struct gd_kcur c, const char *e, struct gd_klog_event *ev);  /* EDAC */

#endif
