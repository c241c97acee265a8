/*
 * rule_klog.h - what the kernel-log rule files (rule_klog.c,
 * rule_klog_reset.c) share: whether the kernel log was read (else the
 * rule is "not evaluated" with the reason), an event's kind, and when it
 * was logged, for a summary.  Static inline: file-private to each user.
 */
#ifndef GD_RULES_RULE_KLOG_H
#define GD_RULES_RULE_KLOG_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/i18n.h"
#include "klog/klog.h"
#include "rules/rules.h"

static inline const struct gd_source *klog_source(const struct gd_snapshot *s, const char *name)
{
	GD_VEC_EACH(s->sources, const struct gd_source, src)
		if (strcmp(src->name, name) == 0)
			return src;
	return NULL;
}

static inline bool klog_usable(const struct gd_source *src)
{
	return src && (strcmp(src->status, "ok") == 0 || strcmp(src->status, "partial") == 0);
}

/* NULL (and rc->why set) when the kernel log was not read. */
static inline const struct gd_snapshot *klog_or_unknown(struct gd_rule_ctx *rc, enum gd_verdict *v)
{
	const struct gd_snapshot *s = gd_window_last(rc->w);
	const struct gd_source *src = klog_source(s, "klog");

	if (klog_usable(src))
		return s;
	if (src)
		/* TRANSLATORS: (<the klog collector's status word>: <its reason, English>) */
		*v = gd_rule_unknown(rc, _("the kernel log was not read (%s: %s)"), src->status,
				     src->reason[0] ? src->reason : _("no reason given"));
	else
		*v = gd_rule_unknown(rc, _("no kernel log in this snapshot (give one: check --from kern.log)"));
	return NULL;
}

static inline bool is(const struct gd_klog_event *ev, enum gd_klog_kind k)
{
	return strcmp(ev->kind, gd_klog_kind_name(k)) == 0;
}

/* When an event was logged, for a summary: the local time, else the
 * seconds since boot, else that it is unknown. */
static inline const char *when(char *buf, size_t sz, const struct gd_klog_event *ev)
{
	if (ev->wall_time_s.ok) {
		time_t t = (time_t)ev->wall_time_s.v;
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(buf, sz, "%Y-%m-%d %H:%M:%S", &tm);
	} else if (ev->boot_s.ok) {
		/* TRANSLATORS: when a kernel-log line was written, as "first <this>", "GPU ... fell off the bus <this>" */
		snprintf(buf, sz, _("%.0f s after boot"), ev->boot_s.v);
	} else {
		snprintf(buf, sz, "%s", _("at an unknown time"));
	}
	return buf;
}

#endif
