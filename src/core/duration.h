/*
 * duration.h - durations on the command line: "2s", "500ms", "1m", "1.5", "1h".
 */
#ifndef GD_CORE_DURATION_H
#define GD_CORE_DURATION_H

#include "core/err.h"

/* Parses text into seconds; a bare number is seconds.  Rejects negative,
 * non-finite and unit-less junk ("2x") with a message naming the text. */
int gd_duration_parse(const char *text, double *seconds, struct gd_err *err);

#endif
