#include "core/duration.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"

int gd_duration_parse(const char *text, double *seconds, struct gd_err *err)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = { { "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "m", 60 }, { "h", 3600 } };
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (end == text || errno || !isfinite(v) || v < 0)
		return gd_err_set(err, -EINVAL, _("\"%s\" is not a duration (examples: 2s, 500ms, 1m)"), text);
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcmp(end, units[i].unit) == 0) {
			*seconds = v * units[i].scale;
			return 0;
		}
	}
	return gd_err_set(err, -EINVAL, _("\"%s\": unknown unit \"%s\" (use ms, s, m or h)"), text, end);
}
