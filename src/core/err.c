#include "core/err.h"

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

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return code;
}
