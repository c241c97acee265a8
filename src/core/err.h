/*
 * err.h - a user-ready error message carried up the call stack.
 *
 * Functions that can fail for reasons the user must hear about (malformed
 * content, an unreadable file) return a negative code and fill a struct gd_err
 * with one complete sentence naming the file and, where known, the line
 * (git's "strbuf *err" habit).  Environment facts (a file that does not exist
 * on this kernel) are not errors: collectors record them as source status.
 */
#ifndef GD_CORE_ERR_H
#define GD_CORE_ERR_H

#include <stdarg.h>

#define GD_ERR_MSG_MAX 512

struct gd_err {
	int code;                   /* 0 when clear, else a negative errno-like code */
	char msg[GD_ERR_MSG_MAX];   /* user-ready text; empty when clear */
};

void gd_err_clear(struct gd_err *err);
/* Sets err (which may be NULL) and returns code, so callers can write
 * "return gd_err_set(err, -EINVAL, "...", ...);". */
int gd_err_set(struct gd_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
