/*
 * stamp.c - the time stamps that open a kernel-log line, in every front-end
 * parse.c reads (see its header for the shapes), and --since.
 */
#include "klog/lineparse.h"

#include "core/duration.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/i18n.h"

int gd__klog_month(const char *p)
{
	static const char m[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

	for (int i = 0; i < 12; i++)
		if (memcmp(m + 3 * i, p, 3) == 0)
			return i;
	return -1;
}

/* HH:MM:SS[.frac] */
static bool hms(struct gd_kcur *c, struct tm *tm, double *frac)
{
	uint64_t h, m, s;
	struct gd_kcur t = *c;

	if (!gd_kc_num(&t, 2, &h) || !gd_kc_eat(&t, ":") || !gd_kc_num(&t, 2, &m) || !gd_kc_eat(&t, ":") || !gd_kc_num(&t, 2, &s) || h > 23 ||
	    m > 59 || s > 60)
		return false;
	tm->tm_hour = (int)h;
	tm->tm_min = (int)m;
	tm->tm_sec = (int)s;
	*frac = 0;
	if (t.p < t.e && (*t.p == '.' || *t.p == ',')) { /* ",": dmesg --time-format iso */
		double d = 0.1;

		t.p++;
		if (t.p >= t.e || !isdigit((unsigned char)*t.p))
			return false;
		while (t.p < t.e && isdigit((unsigned char)*t.p)) {
			*frac += (*t.p - '0') * d;
			d /= 10;
			t.p++;
		}
	}
	*c = t;
	return true;
}

static double local_time_raw(struct tm *tm)
{
	time_t t;

	tm->tm_isdst = -1;
	t = mktime(tm);
	return t == (time_t)-1 ? -1 : (double)t;
}

double gd__klog_mktime(struct tm *tm, struct gd_klog_tcache *tc)
{
	struct tm h;
	double b;
	unsigned i;

	if (!tc || tm->tm_min < 0 || tm->tm_min > 59 || tm->tm_sec < 0 || tm->tm_sec > 60)
		return local_time_raw(tm);
	for (i = 0; i < 2; i++)
		if (tc->e[i].ok && tc->e[i].hour == tm->tm_hour && tc->e[i].mday == tm->tm_mday &&
		    tc->e[i].mon == tm->tm_mon && tc->e[i].year == tm->tm_year)
			return (double)(tc->e[i].base + tm->tm_min * 60 + tm->tm_sec);
	h = *tm;
	h.tm_min = 0;
	h.tm_sec = 0;
	if ((b = local_time_raw(&h)) < 0)
		return local_time_raw(tm);
	h = *tm;
	h.tm_min = 59;
	h.tm_sec = 59;
	if (local_time_raw(&h) != b + 3599)
		return local_time_raw(tm);   /* the zone changes inside this hour (Lord Howe: on the half hour) */
	i = tc->next++ & 1;
	tc->e[i].year = tm->tm_year;
	tc->e[i].mon = tm->tm_mon;
	tc->e[i].mday = tm->tm_mday;
	tc->e[i].hour = tm->tm_hour;
	tc->e[i].base = (long long)b;
	tc->e[i].ok = true;
	return b + tm->tm_min * 60 + tm->tm_sec;
}



/* "[ 5023.456789]" and an optional caller id "[ T812]" after it. */
bool gd__klog_boot_stamp(struct gd_kcur *c, struct gd_klog_event *ev)
{
	struct gd_kcur t = *c;
	double s;

	if (!gd_kc_eat(&t, "["))
		return false;
	gd_kc_skip_sp(&t);
	if (!gd_kc_fnum(&t, &s) || !gd_kc_eat(&t, "]"))
		return false;
	gd_f64_set(&ev->boot_s, s);
	if (gd_kc_at(&t, "[")) {
		const char *rb = memchr(t.p, ']', (size_t)(t.e - t.p) < 16 ? (size_t)(t.e - t.p) : 16);

		if (rb)
			t.p = rb + 1;
	}
	gd_kc_skip_sp(&t);
	*c = t;
	return true;
}

/* "4,1234,5023456789,-[,caller=T1];" */
bool gd__klog_kmsg_prefix(struct gd_kcur *c, struct gd_klog_event *ev)
{
	struct gd_kcur t = *c;
	uint64_t pri, seq, usec;
	const char *semi;

	if (!gd_kc_num(&t, 4, &pri) || !gd_kc_eat(&t, ",") || !gd_kc_num(&t, 20, &seq) || !gd_kc_eat(&t, ",") || !gd_kc_num(&t, 20, &usec) ||
	    !gd_kc_eat(&t, ","))
		return false;
	semi = memchr(t.p, ';', (size_t)(t.e - t.p) < 64 ? (size_t)(t.e - t.p) : 64);
	if (!semi)
		return false;
	gd_f64_set(&ev->boot_s, (double)usec / 1e6);
	c->p = semi + 1;
	return true;
}

/* "[Mon Nov 30 01:02:03 2026]" (dmesg -T). */
bool gd__klog_ctime_stamp(struct gd_kcur *c, struct gd_klog_event *ev, struct gd_klog_tcache *tc)
{
	struct gd_kcur t = *c;
	struct tm tm;
	uint64_t d, y;
	double frac, w;
	int mon;

	memset(&tm, 0, sizeof tm);
	if (!gd_kc_eat(&t, "[") || t.e - t.p < 24 || t.p[3] != ' ' || (mon = gd__klog_month(t.p + 4)) < 0)
		return false;
	t.p += 8;
	gd_kc_skip_sp(&t);
	if (!gd_kc_num(&t, 2, &d) || !gd_kc_eat(&t, " ") || !hms(&t, &tm, &frac) || !gd_kc_eat(&t, " ") || !gd_kc_num(&t, 4, &y) ||
	    !gd_kc_eat(&t, "]"))
		return false;
	tm.tm_year = (int)y - 1900;
	tm.tm_mon = mon;
	tm.tm_mday = (int)d;
	if ((w = gd__klog_mktime(&tm, tc)) < 0)
		return false;
	gd_f64_set(&ev->wall_time_s, w + frac);
	gd_kc_skip_sp(&t);
	*c = t;
	return true;
}

/* "2026-11-30T01:02:03[.frac][Z|+0100|+01:00]" then a space. */
bool gd__klog_iso_stamp(struct gd_kcur *c, struct gd_klog_event *ev, struct gd_klog_tcache *tc)
{
	struct gd_kcur t = *c;
	struct tm tm;
	uint64_t y, mo, d;
	double frac, w;

	memset(&tm, 0, sizeof tm);
	if (!gd_kc_num(&t, 4, &y) || !gd_kc_eat(&t, "-") || !gd_kc_num(&t, 2, &mo) || !gd_kc_eat(&t, "-") || !gd_kc_num(&t, 2, &d) ||
	    (!gd_kc_eat(&t, "T") && !gd_kc_eat(&t, " ")) || !hms(&t, &tm, &frac) || mo < 1 || mo > 12 || d < 1 || d > 31)
		return false;
	tm.tm_year = (int)y - 1900;
	tm.tm_mon = (int)mo - 1;
	tm.tm_mday = (int)d;
	if (gd_kc_eat(&t, "Z")) {
		w = (double)timegm(&tm);
	} else if (t.p < t.e && (*t.p == '+' || *t.p == '-')) {
		int sign = *t.p == '-' ? -1 : 1;
		uint64_t oh, om;

		t.p++;
		if (!gd_kc_num(&t, 2, &oh))
			return false;
		gd_kc_eat(&t, ":");
		if (!gd_kc_num(&t, 2, &om))
			return false;
		w = (double)timegm(&tm) - sign * (double)(oh * 3600 + om * 60);
	} else {
		if ((w = gd__klog_mktime(&tm, tc)) < 0)
			return false;
	}
	if (!gd_kc_eat(&t, " "))
		return false;
	gd_f64_set(&ev->wall_time_s, w + frac);
	*c = t;
	return true;
}

/* "Nov 30 01:02:03[.frac] " (no year: computed for 2000). */
bool gd__klog_syslog_stamp(struct gd_kcur *c, struct gd_klog_event *ev, bool *no_year, struct gd_klog_tcache *tc)
{
	struct gd_kcur t = *c;
	struct tm tm;
	uint64_t d;
	double frac, w;
	int mon;

	memset(&tm, 0, sizeof tm);
	if (t.e - t.p < 15 || t.p[3] != ' ' || (mon = gd__klog_month(t.p)) < 0)
		return false;
	t.p += 4;
	gd_kc_skip_sp(&t);
	if (!gd_kc_num(&t, 2, &d) || !gd_kc_eat(&t, " ") || !hms(&t, &tm, &frac) || !gd_kc_eat(&t, " "))
		return false;
	tm.tm_year = 100;
	tm.tm_mon = mon;
	tm.tm_mday = (int)d;
	if (no_year && (w = gd__klog_mktime(&tm, tc)) >= 0) {
		gd_f64_set(&ev->wall_time_s, w + frac);
		*no_year = true;
	}
	*c = t;
	return true;
}

/* After a syslog stamp: "HOST kernel: ".  False for another program. */
bool gd__klog_kernel_tag(struct gd_kcur *c)
{
	const char *sp = memchr(c->p, ' ', (size_t)(c->e - c->p));
	struct gd_kcur t;

	t = *c;
	if (gd_kc_eat(&t, "kernel:")) { /* journalctl --no-hostname */
		gd_kc_skip_sp(&t);
		*c = t;
		return true;
	}
	if (!sp)
		return false;
	t.p = sp + 1;
	t.e = c->e;
	if (!gd_kc_eat(&t, "kernel:"))
		return false;
	gd_kc_skip_sp(&t);
	*c = t;
	return true;
}

int gd_klog_parse_since(const char *text, double now_wall, double *since, struct gd_err *err)
{
	struct gd_kcur c = { text, text + strlen(text) };
	struct tm tm;
	uint64_t y, mo, d, h = 0, mi = 0, s = 0;
	double w;
	struct gd_err derr;

	gd_err_clear(&derr);
	if (gd_duration_parse(text, &w, &derr) == 0) {
		*since = now_wall - w;
		return 0;
	}
	memset(&tm, 0, sizeof tm);
	if (!gd_kc_num(&c, 4, &y) || !gd_kc_eat(&c, "-") || !gd_kc_num(&c, 2, &mo) || !gd_kc_eat(&c, "-") || !gd_kc_num(&c, 2, &d) || mo < 1 ||
	    mo > 12 || d < 1 || d > 31 || y < 1970)
		goto bad;
	if (gd_kc_eat(&c, "T") || gd_kc_eat(&c, " ")) {
		if (!gd_kc_num(&c, 2, &h) || !gd_kc_eat(&c, ":") || !gd_kc_num(&c, 2, &mi) || h > 23 || mi > 59)
			goto bad;
		if (gd_kc_eat(&c, ":") && (!gd_kc_num(&c, 2, &s) || s > 60))
			goto bad;
	}
	if (c.p != c.e)
		goto bad;
	tm.tm_year = (int)y - 1900;
	tm.tm_mon = (int)mo - 1;
	tm.tm_mday = (int)d;
	tm.tm_hour = (int)h;
	tm.tm_min = (int)mi;
	tm.tm_sec = (int)s;
	if ((w = local_time_raw(&tm)) < 0)
		goto bad;
	*since = w;
	return 0;
bad:
	return gd_err_set(err, -EINVAL,
			  _("\"%s\" is neither a time (2026-11-30T01:00, local time) nor a duration (24h, 90m)"), text);
}
