/*
 * lineparse.h - internals shared by the kernel-log line parser (parse.c) and
 * its time-stamp readers (stamp.c): a cursor over one line and the stamps.
 * Not part of the klog API (klog.h).
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

/* ---- time stamps (stamp.c): each eats its prefix and fills ev's times ---- */

bool gd__klog_boot_stamp(struct gd_kcur *c, struct gd_klog_event *ev);   /* [ 5023.456789] */
bool gd__klog_kmsg_prefix(struct gd_kcur *c, struct gd_klog_event *ev);  /* 4,1234,5023456789,-; */
bool gd__klog_ctime_stamp(struct gd_kcur *c, struct gd_klog_event *ev);  /* [Mon Nov 30 01:02:03 2026] */
bool gd__klog_iso_stamp(struct gd_kcur *c, struct gd_klog_event *ev);    /* 2026-11-30T01:02:03+01:00 */
bool gd__klog_syslog_stamp(struct gd_kcur *c, struct gd_klog_event *ev, bool *no_year); /* Nov 30 01:02:03 */
bool gd__klog_kernel_tag(struct gd_kcur *c);                             /* HOST kernel: */

#endif
