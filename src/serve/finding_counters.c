/*
 * finding_counters.c - per-finding counters of `gpudoctor serve`, made for
 * roll-ups over weeks (issue 14, item 1):
 *
 *   gpudoctor_finding_onsets_total{rule,severity,subject[,gpu,uuid,model]}
 *       times the finding began (absent in one cycle, present in the next)
 *   gpudoctor_finding_active_seconds_total{...}
 *       seconds it was active, summed between consecutive cycles in which it
 *       was present (the monotonic clock of the collector thread)
 *
 * A fleet's month is then increase()-like arithmetic over two counters
 * (src/fleet/) instead of a subquery over the 0/1 gauge gpudoctor_finding,
 * whose series vanish while a finding is inactive and on every failed
 * scrape.  A series, once begun, stays until the exporter exits, so its
 * value before and after a range can be compared.
 *
 * Worked example, --interval 1s: a GPU is hot in cycles 10-69 (60 cycles)
 * and again in 100-109.  After cycle 69 onsets = 1 and active = 59 s (the
 * first cycle adds nothing: no time has passed in the finding yet); after
 * cycle 109 onsets = 2 and active = 68 s.
 *
 * The GPU labels: when the subject names a GPU of the snapshot, as the rules
 * spell it ("gpu3", "gpu3 (0000:3b:00.0)", "GPU 0000:3b:00.0", "GPU
 * 0000:3b:00.0 Xid 79"), the subject becomes "gpu3" (+ " Xid 79") and its
 * gpu (NVML index), uuid and model labels are added, named as on the
 * gpudoctor_gpus_* series so that joins work; they are fixed when the
 * series begins, so a GPU that is lost later keeps them.
 *
 * A process subject is counted under its command, "pid 4711 (python)" as
 * "process (python)" (two of its processes at once are one onset).
 *
 * Cardinality (docs/fleet.md): one series pair per (rule, severity,
 * subject) that has fired since the exporter started, at most
 * GD_FINDING_TRACKS_MAX; beyond that new ones are counted in
 * gpudoctor_finding_series_dropped_total instead.
 */
#include "serve/serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "output/output.h"
#include "rules/rule.h"

/* Reads DOMAIN:BUS:DEV.FN (hex) at s; false when s does not start with one. */
static bool pci_parse(const char *s, unsigned v[4])
{
	int n = 0;

	if (sscanf(s, "%x:%x:%x.%x%n", &v[0], &v[1], &v[2], &v[3], &n) != 4 || n < 7)
		return false;
	return true;
}

/* The GPU that subject names and where the rest of the subject begins
 * (after "gpu3", "gpu3 (0000:3b:00.0)" or "GPU 0000:3b:00.0"). */
static const struct gd_gpu *gpu_named(const struct gd_snapshot *s, const char *subject, const char **rest)
{
	unsigned want[4], have[4];
	char *end;
	int n = 0;

	if (!s || !subject)
		return NULL;
	if (strncmp(subject, "gpu", 3) == 0 && subject[3] >= '0' && subject[3] <= '9') {
		unsigned long idx = strtoul(subject + 3, &end, 10);

		if (*end != '\0' && *end != ' ')
			return NULL;
		if (strncmp(end, " (", 2) == 0 && strchr(end, ')'))
			end = strchr(end, ')') + 1;
		*rest = end;
		GD_VEC_EACH(s->gpus, const struct gd_gpu, g)
			if (g->index.ok && g->index.v == idx)
				return g;
		return NULL;
	}
	if (strncmp(subject, "GPU ", 4) != 0 || !pci_parse(subject + 4, want))
		return NULL;
	sscanf(subject + 4, "%*x:%*x:%*x.%*x%n", &n);
	*rest = subject + 4 + n;
	GD_VEC_EACH(s->gpus, const struct gd_gpu, g) {
		if (g->pci_bus_id[0] && pci_parse(g->pci_bus_id, have) && memcmp(want, have, sizeof want) == 0)
			return g;
	}
	return NULL;
}

const struct gd_gpu *gd_gpu_of_subject(const struct gd_snapshot *s, const char *subject)
{
	const char *rest;

	return gpu_named(s, subject, &rest);
}

/* The subject label of a counter: a GPU by its NVML index, however the rule
 * spelled it ("gpu3 (0000:3b:00.0)" and "GPU 0000:3b:00.0" are both "gpu3";
 * "GPU 0000:3b:00.0 Xid 79" is "gpu3 Xid 79"), so that one GPU's onsets are
 * not counted twice under two spellings; a process by its command, not its
 * pid ("pid 4711 (python)" -> "process (python)"), so that a month of
 * short-lived processes does not leave a series per pid. */
static const struct gd_gpu *subject_key(const struct gd_snapshot *s, const char *subject, char *out, size_t size)
{
	const char *paren = strstr(subject, " ("), *rest = "";
	const struct gd_gpu *g = gpu_named(s, subject, &rest);

	if (g && g->index.ok)
		snprintf(out, size, "gpu%llu%s", (unsigned long long)g->index.v, rest);
	else if (strncmp(subject, "pid ", 4) == 0 && paren &&
		 strspn(subject + 4, "0123456789") == (size_t)(paren - subject - 4))
		snprintf(out, size, "process%s", paren);
	else
		gd_strlcpy(out, subject, size);
	return g && g->index.ok ? g : NULL;
}

static struct gd_finding_track *track_find(struct gd_finding_tracks *t, const struct gd_finding *f, const char *key)
{
	for (size_t i = 0; i < t->n; i++) {
		struct gd_finding_track *x = &t->v[i];

		if (x->severity == (int)f->severity && strcmp(x->rule, f->id) == 0 && strcmp(x->subject, key) == 0)
			return x;
	}
	return NULL;
}

void gd_finding_tracks_update(struct gd_finding_tracks *t, const struct gd_findings *fs, const struct gd_snapshot *last,
			      double mono_s)
{
	for (size_t i = 0; i < t->n; i++)
		t->v[i].seen = false;
	GD_VEC_EACH(fs->items, const struct gd_finding, f) {
		char key[sizeof t->v[0].subject];
		const struct gd_gpu *g = subject_key(last, f->subject, key, sizeof key);
		struct gd_finding_track *x = track_find(t, f, key);

		if (!x) {
			if (t->n >= GD_FINDING_TRACKS_MAX) {
				t->dropped++;
				continue;
			}
			if (t->n == t->cap) {
				t->cap = t->cap ? 2 * t->cap : 16;
				t->v = gd_xreallocarray(t->v, t->cap, sizeof *t->v);
			}
			x = &t->v[t->n++];
			memset(x, 0, sizeof *x);
			x->rule = f->id;
			x->severity = (int)f->severity;
			gd_strlcpy(x->subject, key, sizeof x->subject);
			if (g) {
				x->has_gpu = g->index.ok;
				x->gpu = g->index.ok ? g->index.v : 0;
				gd_strlcpy(x->uuid, g->uuid, sizeof x->uuid);
				gd_strlcpy(x->model, g->name, sizeof x->model);
			}
		}
		if (x->seen)  /* the same finding twice in one cycle */
			continue;
		x->seen = true;
		if (x->active)
			x->active_s += mono_s > x->last_s ? mono_s - x->last_s : 0;
		else
			x->onsets++;
		x->active = true;
		x->last_s = mono_s;
	}
	for (size_t i = 0; i < t->n; i++)
		if (!t->v[i].seen)
			t->v[i].active = false;
}

static void labels(FILE *m, const struct gd_finding_track *x)
{
	fputs("{rule=\"", m);
	gd_prom_label_value(m, x->rule);
	fprintf(m, "\",severity=\"%s\",subject=\"", gd_severity_name((enum gd_severity)x->severity));
	gd_prom_label_value(m, x->subject);
	fputc('"', m);
	if (x->has_gpu) {
		fprintf(m, ",gpu=\"%llu\"", (unsigned long long)x->gpu);
		if (x->uuid[0]) {
			fputs(",uuid=\"", m);
			gd_prom_label_value(m, x->uuid);
			fputc('"', m);
		}
		if (x->model[0]) {
			fputs(",model=\"", m);
			gd_prom_label_value(m, x->model);
			fputc('"', m);
		}
	}
	fputc('}', m);
}

void gd_finding_tracks_write(FILE *m, const struct gd_finding_tracks *t)
{
	fputs("# HELP gpudoctor_finding_onsets_total times a rule's finding about a subject began since the exporter "
	      "started\n# TYPE gpudoctor_finding_onsets_total counter\n", m);
	for (size_t i = 0; i < t->n; i++) {
		fputs("gpudoctor_finding_onsets_total", m);
		labels(m, &t->v[i]);
		fprintf(m, " %llu\n", (unsigned long long)t->v[i].onsets);
	}
	fputs("# HELP gpudoctor_finding_active_seconds_total seconds a rule's finding about a subject was active since "
	      "the exporter started\n# TYPE gpudoctor_finding_active_seconds_total counter\n", m);
	for (size_t i = 0; i < t->n; i++) {
		fputs("gpudoctor_finding_active_seconds_total", m);
		labels(m, &t->v[i]);
		fprintf(m, " %.3f\n", t->v[i].active_s);
	}
	fprintf(m, "# HELP gpudoctor_finding_series_dropped_total findings not counted because %d (rule, severity, "
		   "subject) series exist already\n# TYPE gpudoctor_finding_series_dropped_total counter\n"
		   "gpudoctor_finding_series_dropped_total %llu\n",
		GD_FINDING_TRACKS_MAX, (unsigned long long)t->dropped);
}

void gd_finding_tracks_release(struct gd_finding_tracks *t)
{
	free(t->v);
	memset(t, 0, sizeof *t);
}

/* ---- stall time without a cause ------------------------------------------ */

void gd_uncaused_update(struct gd_uncaused *u, const struct gd_stall_track *st, size_t n, const struct gd_findings *fs,
			double mono_s)
{
	bool caused = false;

	GD_VEC_EACH(fs->items, const struct gd_finding, f)
		caused = caused || f->severity >= GD_SEV_WARNING;
	for (size_t i = 0; i < n; i++) {
		if (!st[i].seen || st[i].run < 2 || caused) {
			u[i].in = false;
			continue;
		}
		if (u[i].in) {
			u[i].seconds += mono_s > u[i].last_s ? mono_s - u[i].last_s : 0;
		} else {
			u[i].episodes++;
			u[i].in = true;
		}
		u[i].last_s = mono_s;
	}
}

void gd_uncaused_write(FILE *m, const struct gd_uncaused *u, const struct gd_stall_track *st, size_t n)
{
	bool head = false;

	for (int k = 0; k < 2; k++) {
		head = false;
		for (size_t i = 0; i < n; i++) {
			if (!st[i].seen)
				continue;
			if (!head && k == 0)
				fputs("# HELP gpudoctor_gpu_stall_uncaused_episodes_total stall episodes, or parts of them, in which "
				      "no warning or critical finding was active on the node\n"
				      "# TYPE gpudoctor_gpu_stall_uncaused_episodes_total counter\n", m);
			if (!head && k == 1)
				fputs("# HELP gpudoctor_gpu_stall_uncaused_seconds_total seconds of those\n"
				      "# TYPE gpudoctor_gpu_stall_uncaused_seconds_total counter\n", m);
			head = true;
			if (k == 0)
				fprintf(m, "gpudoctor_gpu_stall_uncaused_episodes_total{gpu=\"%zu\"} %llu\n", i,
					(unsigned long long)u[i].episodes);
			else
				fprintf(m, "gpudoctor_gpu_stall_uncaused_seconds_total{gpu=\"%zu\"} %.3f\n", i, u[i].seconds);
		}
	}
}
