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
 * 0000:3b:00.0 Xid 79"), its gpu (NVML index), uuid and model labels are
 * added, named as on the gpudoctor_gpus_* series so that joins work; they
 * are fixed when the series begins, so a GPU that is lost later keeps them.
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

const struct gd_gpu *gd_gpu_of_subject(const struct gd_snapshot *s, const char *subject)
{
	unsigned want[4], have[4];
	const char *p;
	char *end;

	if (!s || !subject)
		return NULL;
	if (strncmp(subject, "gpu", 3) == 0 && subject[3] >= '0' && subject[3] <= '9') {
		unsigned long idx = strtoul(subject + 3, &end, 10);

		if (*end == '\0' || *end == ' ') {
			GD_VEC_EACH(s->gpus, const struct gd_gpu, g)
				if (g->index.ok && g->index.v == idx)
					return g;
			return NULL;
		}
	}
	if (strncmp(subject, "GPU ", 4) != 0)
		return NULL;
	p = subject + 4;
	if (!pci_parse(p, want))
		return NULL;
	GD_VEC_EACH(s->gpus, const struct gd_gpu, g) {
		if (g->pci_bus_id[0] && pci_parse(g->pci_bus_id, have) && memcmp(want, have, sizeof want) == 0)
			return g;
	}
	return NULL;
}

/* The subject label of a counter: a process is named by its command, not its
 * pid ("pid 4711 (python)" -> "process (python)"), so that a month of
 * short-lived processes does not leave a series per pid. */
static void subject_key(const char *subject, char *out, size_t size)
{
	const char *paren = strstr(subject, " (");

	if (strncmp(subject, "pid ", 4) == 0 && paren && strspn(subject + 4, "0123456789") == (size_t)(paren - subject - 4))
		snprintf(out, size, "process%s", paren);
	else
		gd_strlcpy(out, subject, size);
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
		struct gd_finding_track *x;

		subject_key(f->subject, key, sizeof key);
		x = track_find(t, f, key);

		if (!x) {
			const struct gd_gpu *g = gd_gpu_of_subject(last, f->subject);

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
