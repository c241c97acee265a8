/*
 * npd.c - the NPD custom-plugin verdict (npd.h): pure functions of the
 * /findings document of `gpudoctor serve`.
 */
#include "fleet/npd.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/printable.h"
#include "core/xalloc.h"

#include "fleet/fleet.h"

static const char *const names[] = { "gpu-unhealthy", "gpu-degraded", "node-unhealthy" };

int gd_npd_condition(const char *s)
{
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	return -1;
}

size_t gd_npd_cut(const char *in, char *out, size_t max)
{
	char *tmp = gd_xmalloc(max + 1);
	size_t n = 0;

	for (; in[n] && n < max; n++)
		tmp[n] = in[n] == '\n' || in[n] == '\t' || in[n] == '\r' ? ' ' : in[n];
	/* cut inside a character (the next byte continues it): drop its
	 * continuation bytes already copied, then its lead byte */
	if (in[n] && ((unsigned char)in[n] & 0xc0) == 0x80) {
		while (n > 0 && ((unsigned char)tmp[n - 1] & 0xc0) == 0x80)
			n--;
		if (n > 0 && ((unsigned char)tmp[n - 1] & 0xc0) == 0xc0)
			n--;
	}
	/* a process's name or command line in a finding: no escape sequence
	 * reaches whoever reads the line (core/printable.h); never longer */
	n = gd_printable(tmp, n, out, max + 1);
	free(tmp);
	/* trailing spaces would be trimmed by NPD anyway */
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	return n;
}

static bool is_gpu(const char *id)
{
	const char *cat = gd_fleet_category(id);

	return strcmp(cat, "GPU") == 0 || strcmp(cat, "GPU memory") == 0;
}

int gd_npd_judge(const json_t *doc, enum gd_npd_condition c, char line[GD_NPD_MAX + 1])
{
	const json_t *fs = json_object_get(doc, "findings");
	const json_t *best = NULL;
	int best_sev = 0;
	char buf[1024];
	size_t i;
	json_t *f;

	if (!json_is_array(fs)) {
		gd_npd_cut("unknown: the /findings answer has no findings array", line, GD_NPD_MAX);
		return 2;
	}
	json_array_foreach(fs, i, f) {
		const char *id = json_string_value(json_object_get(f, "id"));
		const char *sev = json_string_value(json_object_get(f, "severity"));
		int s = !sev ? 0 : strcmp(sev, "critical") == 0 ? 3 : strcmp(sev, "warning") == 0 ? 2 : 1;
		bool want;

		if (!id)
			continue;
		switch (c) {
		case GD_NPD_GPU_UNHEALTHY:
			want = s == 3 && is_gpu(id);
			break;
		case GD_NPD_GPU_DEGRADED:
			want = s == 2 && is_gpu(id);
			break;
		default:
			want = s == 3 && !is_gpu(id);
			break;
		}
		if (want && s > best_sev) {
			best = f;
			best_sev = s;
		}
	}
	if (!best) {
		snprintf(buf, sizeof buf, "ok: no %s finding", c == GD_NPD_GPU_UNHEALTHY ? "critical GPU"
							    : c == GD_NPD_GPU_DEGRADED ? "GPU warning"
										      : "critical host");
		gd_npd_cut(buf, line, GD_NPD_MAX);
		return 0;
	}
	{
		const char *id = json_string_value(json_object_get(best, "id"));
		const char *subj = json_string_value(json_object_get(best, "subject"));
		const char *sum = json_string_value(json_object_get(best, "summary"));

		snprintf(buf, sizeof buf, "%s %s: %s", id, subj ? subj : "?", sum ? sum : "");
	}
	gd_npd_cut(buf, line, GD_NPD_MAX);
	return 1;
}
