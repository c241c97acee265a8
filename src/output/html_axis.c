/*
 * html_axis.c - nice ticks for values and time (html_axis.h).
 *
 * Worked example: SM clocks 1100..1980 MHz, target 4 intervals: the raw
 * step (1980 - 0) / 4 = 495 rounds up to 500, so the axis from 0 reads
 * 0, 500, 1000, 1500, 2000.  A recording of 40 s with target 8 takes a 5 s
 * step (the smallest of the table giving at most 8 intervals); on a clock
 * that started at 14:03:17 its ticks are 14:03:20, 14:03:25, ...
 */
#include "output/html_axis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/i18n.h"

double gd_nice_step(double raw)
{
	double p, m;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	p = pow(10, floor(log10(raw)));
	m = raw / p;
	/* a tolerance so that 2.0000000001 stays 2 */
	if (m <= 1 + 1e-9)
		return p;
	if (m <= 2 + 1e-9)
		return 2 * p;
	if (m <= 5 + 1e-9)
		return 5 * p;
	return 10 * p;
}

void gd_axis_nice(double lo, double hi, int target, struct gd_axis *ax)
{
	double step;

	if (target < 2)
		target = 2;
	if (target > GD_AXIS_MAX_TICKS - 2)
		target = GD_AXIS_MAX_TICKS - 2;
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	if (hi < lo) {
		double x = lo;

		lo = hi;
		hi = x;
	}
	if (hi - lo < 1e-12)
		hi = lo + (fabs(lo) > 0 ? fabs(lo) * 0.1 : 1);
	step = gd_nice_step((hi - lo) / target);
	/* widening can add up to two steps: keep within the tick array */
	while ((ceil(hi / step - 1e-9) - floor(lo / step + 1e-9)) > GD_AXIS_MAX_TICKS - 1)
		step = gd_nice_step(step * 1.5);
	ax->step = step;
	ax->lo = floor(lo / step + 1e-9) * step;
	ax->hi = ceil(hi / step - 1e-9) * step;
	ax->n = 0;
	for (double v = ax->lo; v <= ax->hi + step * 1e-6 && ax->n < GD_AXIS_MAX_TICKS; v += step)
		ax->v[ax->n++] = fabs(v) < step * 1e-9 ? 0 : round(v / step) * step;
	ax->hi = ax->v[ax->n - 1];
}

const char *gd_axis_label(double v, double step, char *buf, size_t size)
{
	int dec = 0;

	for (double s = step; s < 1 - 1e-9 && dec < 6; s *= 10)
		dec++;
	if (fabs(v) < step * 1e-9)
		v = 0;
	snprintf(buf, size, "%.*f", dec, v);
	return buf;
}

static const double time_steps[] = { 1,    2,    5,    10,   15,    30,    60,    120,   300,  600,
				      900,  1800, 3600, 7200, 10800, 21600, 43200, 86400 };

double gd_time_step(double span, int target)
{
	size_t n = sizeof time_steps / sizeof time_steps[0];

	if (target < 1)
		target = 1;
	for (size_t i = 0; i < n; i++)
		if (span / time_steps[i] <= target + 1e-9)
			return time_steps[i];
	return time_steps[n - 1] * ceil(span / time_steps[n - 1] / target);
}

static long gmtoff_at(double wall)
{
	time_t tt = (time_t)floor(wall);
	struct tm tm;

	return localtime_r(&tt, &tm) ? tm.tm_gmtoff : 0;
}

static int yday_at(double wall, int *year)
{
	time_t tt = (time_t)floor(wall);
	struct tm tm;

	if (!localtime_r(&tt, &tm))
		return -1;
	*year = tm.tm_year;
	return tm.tm_yday;
}

void gd_time_axis(double t0, double t1, bool clock, double offset, int target, struct gd_time_axis *ta)
{
	double first, step, span;
	int y0 = 0, y1 = 0;

	memset(ta, 0, sizeof *ta);
	if (!isfinite(t0))
		t0 = 0;
	if (!isfinite(t1) || t1 < t0)
		t1 = t0;
	ta->t0 = t0;
	ta->t1 = t1;
	ta->clock = clock && isfinite(offset);
	ta->offset = ta->clock ? offset : 0;
	span = t1 - t0 > 0 ? t1 - t0 : 1;
	step = gd_time_step(span, target);
	while (span / step > 62)
		step *= 2;
	ta->step = step;
	if (ta->clock) {
		double w0 = t0 + offset;
		long off = gmtoff_at(w0);

		first = ceil((w0 + (double)off) / step - 1e-9) * step - (double)off - offset;
		ta->midnight = yday_at(t0 + offset, &y0) != yday_at(t1 + offset, &y1) || y0 != y1;
	} else {
		first = t0;
	}
	for (double t = first; t <= t1 + 1e-6 && ta->n < sizeof ta->t / sizeof ta->t[0]; t += step)
		ta->t[ta->n++] = t;
}

void gd_time_label(const struct gd_time_axis *ta, size_t i, char *buf, size_t size, char *date, size_t dsize)
{
	double t = ta->t[i];

	date[0] = '\0';
	if (ta->clock) {
		time_t tt = (time_t)llround(t + ta->offset);
		struct tm tm;

		if (!localtime_r(&tt, &tm)) {
			snprintf(buf, size, "?");
			return;
		}
		strftime(buf, size, ta->step < 60 ? "%H:%M:%S" : "%H:%M", &tm);
		if (ta->midnight) {
			int y = 0, yprev = 0;
			bool newday = i == 0 || yday_at(ta->t[i - 1] + ta->offset, &yprev) != yday_at(t + ta->offset, &y) ||
				      y != yprev;

			if (newday)
				/* TRANSLATORS: strftime's format of a date under a time tick ("Jan 5") */
				strftime(date, dsize, _("%b %-d"), &tm);
		}
		return;
	}
	t -= ta->t0;
	if (ta->step >= 3600)
		snprintf(buf, size, "%.0f h", t / 3600);
	else if (ta->step >= 60)
		snprintf(buf, size, "%.0f min", t / 60);
	else
		snprintf(buf, size, "%.0f s", t);
}

const char *gd_time_point(const struct gd_time_axis *ta, double t, char *buf, size_t size)
{
	if (ta->clock) {
		time_t tt = (time_t)llround(t + ta->offset);
		struct tm tm;

		if (localtime_r(&tt, &tm) && strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm))
			return buf;
	}
	snprintf(buf, size, _("up %.1f s"), t);
	return buf;
}
