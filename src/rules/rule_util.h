/*
 * rule_util.h - what rule files that write their own summaries share
 * (rule_cpu.c, rule_cpu_percpu.c, rule_gpu_job.c, rule_gpu_straggler.c,
 * rule_mem.c): TH() for a threshold of the rule context, and cat() to
 * append to a summary being built.  Static inline: file-private to each user.
 */
#ifndef GD_RULES_RULE_UTIL_H
#define GD_RULES_RULE_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rules/rules.h"

#define TH(rc, name) ((rc)->th->v[GD_TH_##name])

/* Appends to a summary being built in buf. */
static inline void __attribute__((format(printf, 3, 4))) cat(char *buf, size_t sz, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= sz)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, sz - len, fmt, ap);
	va_end(ap);
}

#endif
