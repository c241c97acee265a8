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
	int n;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof err->msg) {
		/* cut short: drop the last character if it was cut in two (UTF-8) */
		size_t end = sizeof err->msg - 1, k = end;

		while (k > 0 && ((unsigned char)err->msg[k - 1] & 0xc0) == 0x80)
			k--;
		if (k > 0 && (unsigned char)err->msg[k - 1] >= 0xc0) {
			unsigned char c = (unsigned char)err->msg[k - 1];
			size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;

			if (end - (k - 1) < len)
				err->msg[k - 1] = '\0';
		}
	}
	return code;
}
