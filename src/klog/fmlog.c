/*
 * fmlog.c - NVIDIA Fabric Manager's log: errors counted (fmlog.h).
 */
#include "klog/fmlog.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/i18n.h"
#include "core/printable.h"
#include "core/tok.h"
#include "klog/lineparse.h"

#define DAY_S 86400.0

struct fm_line {
	double t;            /* seconds since the epoch (local time taken as the host's), NAN: none */
	char stamp[32];      /* as written */
	char level[12];      /* ERROR, INFO, ... ("" for a journal line) */
	const char *msg;     /* the text after the level and the tid */
	size_t msg_n;
};

static bool has_ci(const char *p, size_t n, const char *lit)
{
	size_t k = strlen(lit);

	for (size_t i = 0; i + k <= n; i++)
		if (strncasecmp(p + i, lit, k) == 0)
			return true;
	return false;
}

/* The stamp's usual shape, "Feb 27 2025 15:10:02", read with the kernel
 * log's cursor instead of strptime(3): the fields strptime would give for
 * it.  false for anything else, which strptime then judges. */
static bool stamp_usual(const char *b, size_t k, struct tm *tm)
{
	struct gd_kcur c = { b + 3, b + k };
	uint64_t day, year, h, m, sec;
	int mon = k > 3 ? gd__klog_month(b) : -1;

	if (mon < 0 || !gd_kc_eat(&c, " ") || !gd_kc_num(&c, 2, &day) || !gd_kc_eat(&c, " ") ||
	    !gd_kc_num(&c, 4, &year) || !gd_kc_eat(&c, " ") || !gd_kc_num(&c, 2, &h) || !gd_kc_eat(&c, ":") ||
	    !gd_kc_num(&c, 2, &m) || !gd_kc_eat(&c, ":") || !gd_kc_num(&c, 2, &sec) || c.p != c.e || day < 1 ||
	    day > 31 || h > 23 || m > 59 || sec > 61)
		return false;
	tm->tm_mon = mon;
	tm->tm_mday = (int)day;
	tm->tm_year = (int)year - 1900;
	tm->tm_hour = (int)h;
	tm->tm_min = (int)m;
	tm->tm_sec = (int)sec;
	return true;
}

/* "[Feb 27 2025 15:10:02] " at p: its time and length (0: not one).  tc
 * (may be NULL) keeps mktime's answers by the hour (klog.h). */
static size_t stamp(const char *p, size_t n, struct fm_line *l, struct gd_klog_tcache *tc)
{
	const char *close;
	struct tm tm;
	char b[32];
	size_t k;
	const char *end;

	if (n < 22 || p[0] != '[' || !(close = memchr(p, ']', n < 32 ? n : 32)))
		return 0;
	k = (size_t)(close - p - 1);
	if (k < 20 || k > 24)
		return 0;
	memcpy(b, p + 1, k);
	b[k] = '\0';
	memset(&tm, 0, sizeof tm);
	if (!stamp_usual(b, k, &tm)) {
		end = strptime(b, "%b %d %Y %H:%M:%S", &tm);
		if (!end || *end)
			return 0;
	}
	l->t = gd__klog_mktime(&tm, tc);
	gd_strlcpy(l->stamp, b, sizeof l->stamp);
	return (size_t)(close - p) + 1;
}

/* Fabric Manager's own line: stamp, "[LEVEL]", optional "[tid N]", text. */
static bool native(const char *p, size_t n, struct fm_line *l, struct gd_klog_tcache *tc)
{
	size_t i = stamp(p, n, l, tc), j;

	if (!i)
		return false;
	while (i < n && p[i] == ' ')
		i++;
	if (i >= n || p[i] != '[')
		return false;
	for (j = i + 1; j < n && j - i - 1 < sizeof l->level - 1 && isupper((unsigned char)p[j]); j++)
		;
	if (j >= n || p[j] != ']' || j == i + 1)
		return false;
	memcpy(l->level, p + i + 1, j - i - 1);
	l->level[j - i - 1] = '\0';
	i = j + 1;
	while (i < n && p[i] == ' ')
		i++;
	if (n - i > 5 && strncmp(p + i, "[tid ", 5) == 0) {
		const char *c = memchr(p + i, ']', n - i);

		if (c)
			i = (size_t)(c - p) + 1;
		while (i < n && p[i] == ' ')
			i++;
	}
	l->msg = p + i;
	l->msg_n = n - i;
	return true;
}

/* The daemon's line in the journal or syslog: "... nv-fabricmanager[PID]: text"
 * (also the start script's, nvidia-fabricmanager-start.sh[PID]:). */
static bool journal(const char *p, size_t n, struct fm_line *l)
{
	static const char *const tags[] = { "nv-fabricmanager[", "nvidia-fabricmanager-start.sh[" };

	for (size_t k = 0; k < sizeof tags / sizeof tags[0]; k++) {
		size_t tl = strlen(tags[k]);

		for (size_t i = 0; i + tl <= n && i < 96; i++) {
			const char *c;

			if (strncmp(p + i, tags[k], tl) != 0)
				continue;
			c = memchr(p + i + tl, ':', n - i - tl);
			if (!c || c[-1] != ']' || (size_t)(c - p) + 1 > n)
				return false;
			l->t = NAN;
			l->stamp[0] = '\0';
			if (i >= 15 && i < 40) {
				size_t sn = i < 16 ? i : 15;

				memcpy(l->stamp, p, sn);
				l->stamp[sn] = '\0';
			}
			l->level[0] = '\0';
			l->msg = c + 1;
			l->msg_n = n - (size_t)(c + 1 - p);
			while (l->msg_n && *l->msg == ' ')
				l->msg++, l->msg_n--;
			return true;
		}
	}
	return false;
}

bool gd_fmlog_is_line(const char *p, size_t n)
{
	struct fm_line l;

	return native(p, n, &l, NULL) || journal(p, n, &l);
}

static bool is_error(const struct fm_line *l)
{
	if (l->level[0])
		return strcmp(l->level, "ERROR") == 0 || strcmp(l->level, "CRITICAL") == 0 ||
		       strcmp(l->level, "FATAL") == 0;
	return has_ci(l->msg, l->msg_n, "error") || has_ci(l->msg, l->msg_n, "failed") ||
	       has_ci(l->msg, l->msg_n, "abort") || has_ci(l->msg, l->msg_n, "don't match") ||
	       has_ci(l->msg, l->msg_n, "doesn't match");
}

static bool non_fatal(const struct fm_line *l)
{
	return has_ci(l->msg, l->msg_n, "non-fatal") || has_ci(l->msg, l->msg_n, "non fatal") ||
	       has_ci(l->msg, l->msg_n, "nonfatal");
}

int gd_fmlog_parse(const char *buf, size_t len, double now_s, double lookback_s, struct gd_fabric *f,
		   struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line;
	uint64_t lines = 0, fm = 0, errors = 0, fatal = 0, nonfatal = 0, bad = 0, lineno = 0;
	double newest = NAN;
	struct gd_klog_tcache tc = { 0 };

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("holds binary data (a NUL byte)"));
	/* the newest time stamp, when the look-back counts from the log's end */
	if (isnan(now_s) && lookback_s > 0) {
		gd_lines_init(&it, buf, len);
		while (gd_tok_line(&it, &line)) {
			struct fm_line l;

			if (native(line.p, line.n, &l, &tc) && !isnan(l.t) && (isnan(newest) || l.t > newest))
				newest = l.t;
		}
		now_s = newest;
	}
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		struct fm_line l;
		size_t n = line.n;

		lineno++;
		while (n && (line.p[n - 1] == '\r' || line.p[n - 1] == ' '))
			n--;
		if (!n)
			continue;
		lines++;
		memset(&l, 0, sizeof l);
		l.t = NAN;
		if (!native(line.p, n, &l, &tc)) {
			struct fm_line sl;
			size_t k;

			if (journal(line.p, n, &l)) {
				fm++;
			} else {
				/* "[Feb 30 2025 ...]", "[Feb 27 2025 15:10:02] no level": a
				 * broken line of the log; other text: a message's next line */
				memset(&sl, 0, sizeof sl);
				if (n > 12 && line.p[0] == '[' && isupper((unsigned char)line.p[1]) &&
				    (k = strspn(line.p + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")) == 3 &&
				    line.p[4] == ' ' && isdigit((unsigned char)line.p[5])) {
					if (!bad++)
						gd_err_set(err, 1, _("line %llu: not a Fabric Manager line ([Mon DD YYYY HH:MM:SS] [LEVEL] ...)"),
							   (unsigned long long)lineno);
				}
				continue;
			}
		} else {
			fm++;
		}
		if (!is_error(&l) || has_ci(l.msg, l.msg_n, "NV_WARN_NOTHING_TO_DO"))
			continue;
		if (lookback_s > 0 && !isnan(now_s) && !isnan(l.t) && l.t < now_s - lookback_s)
			continue;
		if (has_ci(l.msg, l.msg_n, "detected NVSwitch") && non_fatal(&l)) {
			nonfatal++;
			continue;
		}
		errors++;
		if (has_ci(l.msg, l.msg_n, "fatal") && !non_fatal(&l))
			fatal++;
		gd_printable(l.msg, l.msg_n, f->fm_log_last, sizeof f->fm_log_last);
		GD_STRSET(f->fm_log_last_time, l.stamp);
	}
	if (!fm)
		return gd_err_set(err, -EINVAL, _("no Fabric Manager line ([Mon DD YYYY HH:MM:SS] [LEVEL] [tid N] ..., or nv-fabricmanager[PID]: ...)"));
	gd_u64_set(&f->fm_log_lines, lines);
	gd_u64_set(&f->fm_log_errors, errors);
	gd_u64_set(&f->fm_log_fatal, fatal);
	gd_u64_set(&f->fm_log_nonfatal, nonfatal);
	return bad ? 1 : 0;
}

int gd_parse_fmlog(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	return gd_fmlog_parse(buf, len, NAN, DAY_S, &s->fabric, err);
}
