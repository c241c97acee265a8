#include "core/err.h"

#include "core/i18n.h"

#include <stdio.h>
#include <string.h>

void gd_err_clear(struct gd_err *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}

int gd_err_set(struct gd_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof err->msg)
		/* cut short: not inside a character (UTF-8) */
		err->msg[gd_utf8_cut(err->msg, sizeof err->msg - 1)] = '\0';
	return code;
}
