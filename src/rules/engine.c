#include "rules/rule.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "offline/offline.h"
#include "probe/host.h"

const char *gd_severity_name(enum gd_severity s)
{
	switch (s) {
	case GD_SEV_CRITICAL:
		return "critical";
	case GD_SEV_WARNING:
		return "warning";
	default:
		return "info";
	}
}

void gd_findings_init(struct gd_findings *f)
{
	memset(f, 0, sizeof *f);
}

void gd_findings_release(struct gd_findings *f)
{
	if (!f)
		return;
	gd_vec_release(&f->items);
	gd_vec_release(&f->unknown);
	f->evaluated = 0;
}

int gd_findings_worst(const struct gd_findings *f)
{
	int worst = 0;

	GD_VEC_EACH(f->items, const struct gd_finding, it)
		if ((int)it->severity > worst)
			worst = (int)it->severity;
	return worst;
}

const struct gd_rule *gd_rule_find(const char *id)
{
	for (size_t i = 0; i < gd_nrules; i++)
		if (strcmp(gd_rules[i].id, id) == 0)
			return &gd_rules[i];
	/* the host probes' rules judge probe results, not windows (probe/host.h) */
	for (size_t i = 0; i < gd_probe_host_nrules; i++)
		if (strcmp(gd_probe_host_rules[i].id, id) == 0)
			return &gd_probe_host_rules[i];
	return NULL;
}

/* vsnprintf into a message buffer, cut short (if it must be) between
 * characters: a Chinese summary is three bytes a character. */
static void vformat(char *buf, size_t sz, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
static void vformat(char *buf, size_t sz, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, sz, fmt, ap);

	if (n >= 0 && (size_t)n >= sz)
		buf[gd_utf8_cut(buf, sz - 1)] = '\0';
}

struct gd_finding *gd_finding_add(struct gd_rule_ctx *rc, struct gd_findings *out, enum gd_severity sev,
				  const char *subject_fmt, ...)
{
	struct gd_finding *f = gd_vec_push(&out->items, sizeof *f);
	va_list ap;

	f->id = rc->rule->id;
	f->severity = sev;
	va_start(ap, subject_fmt);
	vsnprintf(f->subject, sizeof f->subject, subject_fmt, ap);
	va_end(ap);
	/* the registry's N_() marks: translated here, in the language of the
	 * report being made */
	gd_strlcpy(f->summary, _(rc->rule->title), sizeof f->summary);
	gd_strlcpy(f->remedy, _(rc->rule->remedy), sizeof f->remedy);
	return f;
}

void gd_finding_summary(struct gd_finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vformat(f->summary, sizeof f->summary, fmt, ap);
	va_end(ap);
}

void gd_finding_remedy(struct gd_finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vformat(f->remedy, sizeof f->remedy, fmt, ap);
	va_end(ap);
}

static struct gd_evidence *ev_slot(struct gd_finding *f, const char *name)
{
	struct gd_evidence *e;

	if (f->nev >= GD_MAX_EVIDENCE)
		return NULL;
	e = &f->ev[f->nev++];
	memset(e, 0, sizeof *e);
	gd_strlcpy(e->name, name, sizeof e->name);
	return e;
}

void gd_finding_ev(struct gd_finding *f, const char *name, double value, const char *unit, double threshold)
{
	struct gd_evidence *e = ev_slot(f, name);

	if (!e)
		return;
	if (isfinite(value))
		gd_f64_set(&e->value, value);
	gd_strlcpy(e->unit, unit ? unit : "", sizeof e->unit);
	if (isfinite(threshold))
		gd_f64_set(&e->threshold, threshold);
}

void gd_finding_ev_text(struct gd_finding *f, const char *name, const char *text)
{
	struct gd_evidence *e = ev_slot(f, name);

	if (e)
		gd_strlcpy(e->text, text, sizeof e->text);
}

void gd_finding_ev_line(struct gd_finding *f, const char *file, double line, const char *text)
{
	struct gd_evidence *e = ev_slot(f, "log_line");

	if (!e)
		return;
	if (isfinite(line))
		gd_f64_set(&e->value, line);
	gd_strlcpy(e->text, text, sizeof e->text);
	snprintf(e->source, sizeof e->source, "%.140s:%.0f", file[0] ? file : "input", isfinite(line) ? line : 0);
}

enum gd_verdict gd_rule_unknown(struct gd_rule_ctx *rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vformat(rc->why, sizeof rc->why, fmt, ap);
	va_end(ap);
	return GD_VERDICT_UNKNOWN;
}

enum gd_verdict gd_rule_run(const struct gd_rule *r, const struct gd_window *w, const struct gd_thresholds *th,
			    struct gd_findings *out)
{
	struct gd_rule_ctx rc = { .w = w, .th = th, .rule = r, .why = "" };
	enum gd_verdict v;
	double dt;

	char from[160];

	if (r->needs_window && !gd_window_dt(w, &dt) && w->n && gd_ofl_describe(gd_window_last(w), from, sizeof from)) {
		/* evidence captured elsewhere: say what it was, and that it has no rates */
		if (w->n < 2 && from[0])
			/* TRANSLATORS: %s says what the evidence was (a recording, a
			 * paste of nvidia-smi ...) */
			v = gd_rule_unknown(&rc, _("one sample from %s: no rates"), from);
		else if (w->n < 2)
			v = gd_rule_unknown(&rc, _("one sample from the input: no rates"));
		else if (from[0])
			/* TRANSLATORS: %1$zu samples from %2$s (what the evidence was) */
			v = gd_rule_unknown(&rc, _("%zu samples from %s without a boot-time clock: no rates"), w->n,
					    from);
		else
			v = gd_rule_unknown(&rc, _("%zu samples from the input without a boot-time clock: no rates"),
					    w->n);
	} else if (r->needs_window && !gd_window_dt(w, &dt))
		v = gd_rule_unknown(&rc, "%s",
				    w->n < 2 ? _("needs two snapshots taken some time apart (a window); got one")
					     : _("needs two snapshots taken some time apart (a window); got snapshots "
						 "without advancing uptime"));
	else
		v = r->eval(&rc, out);
	if (v == GD_VERDICT_UNKNOWN) {
		struct gd_unknown *u = gd_vec_push(&out->unknown, sizeof *u);

		u->id = r->id;
		gd_strlcpy(u->reason, rc.why[0] ? rc.why : _("evidence unavailable"), sizeof u->reason);
	} else {
		out->evaluated++;
	}
	return v;
}

/* Insertion sort: stable (registry order within a severity) and the list is
 * short. */
void gd_findings_sort(struct gd_findings *out)
{
	struct gd_vec *v = &out->items;
	struct gd_finding *f = v->items, tmp;

	for (size_t i = 1; i < v->n; i++) {
		size_t j = i;

		tmp = f[i];
		while (j > 0 && f[j - 1].severity < tmp.severity) {
			f[j] = f[j - 1];
			j--;
		}
		f[j] = tmp;
	}
}

void gd_engine_run(const struct gd_window *w, const struct gd_thresholds *th, struct gd_findings *out)
{
	for (size_t i = 0; i < gd_nrules; i++)
		gd_rule_run(&gd_rules[i], w, th, out);
	gd_findings_sort(out);
}

/* ---- over successive windows ---------------------------------------------- */

bool gd_engine_acc_init(struct gd_engine_acc *a)
{
	memset(a, 0, sizeof *a);
	gd_findings_init(&a->f);
	a->evaluated = calloc(gd_nrules ? gd_nrules : 1, sizeof *a->evaluated);
	a->why = calloc(gd_nrules ? gd_nrules : 1, sizeof *a->why);
	if (!a->evaluated || !a->why) {
		gd_engine_acc_release(a);
		return false;
	}
	return true;
}

void gd_engine_acc_release(struct gd_engine_acc *a)
{
	if (!a)
		return;
	gd_findings_release(&a->f);
	gd_vec_release(&a->keys);
	free(a->evaluated);
	free(a->why);
	memset(a, 0, sizeof *a);
}

void gd_engine_acc_run(struct gd_engine_acc *a, const struct gd_window *w, const struct gd_thresholds *th)
{
	struct gd_findings tmp;

	a->windows++;
	for (size_t i = 0; i < gd_nrules; i++) {
		gd_findings_init(&tmp);
		if (gd_rule_run(&gd_rules[i], w, th, &tmp) != GD_VERDICT_UNKNOWN)
			a->evaluated[i] = true;
		else if (tmp.unknown.n)
			a->why[i] = ((const struct gd_unknown *)tmp.unknown.items)[tmp.unknown.n - 1];
		GD_VEC_EACH(tmp.items, const struct gd_finding, x) {
			struct gd_finding *old = NULL;

			GD_VEC_EACH(a->f.items, struct gd_finding, y)
				if (y->id == x->id && strcmp(y->subject, x->subject) == 0) {
					old = y;
					break;
				}
			if (old) {
				if (x->severity > old->severity)
					*old = *x;
				continue;
			}
			*(struct gd_finding *)gd_vec_push(&a->f.items, sizeof *x) = *x;
			*(struct gd_engine_key *)gd_vec_push(&a->keys, sizeof(struct gd_engine_key)) =
				(struct gd_engine_key){ i, a->seq++ };
		}
		gd_findings_release(&tmp);
	}
}

static bool key_before(const struct gd_finding *f, const struct gd_engine_key *k, size_t x, size_t y)
{
	if (f[x].severity != f[y].severity)
		return f[x].severity > f[y].severity;
	if (k[x].rule != k[y].rule)
		return k[x].rule < k[y].rule;
	return k[x].seq < k[y].seq;
}

void gd_engine_acc_finish(struct gd_engine_acc *a, struct gd_findings *out)
{
	struct gd_finding *f = a->f.items.items;
	struct gd_engine_key *k = a->keys.items;
	size_t n = a->f.items.n;

	/* insertion sort of both arrays together: few findings */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && key_before(f, k, j, j - 1); j--) {
			struct gd_finding tf = f[j];
			struct gd_engine_key tk = k[j];

			f[j] = f[j - 1];
			f[j - 1] = tf;
			k[j] = k[j - 1];
			k[j - 1] = tk;
		}
	for (size_t i = 0; i < n; i++)
		*(struct gd_finding *)gd_vec_push(&out->items, sizeof *f) = f[i];
	for (size_t i = 0; i < gd_nrules; i++) {
		if (a->evaluated[i]) {
			out->evaluated++;
		} else if (a->windows) {
			struct gd_unknown *u = gd_vec_push(&out->unknown, sizeof *u);

			*u = a->why[i];
			if (!u->id)
				u->id = gd_rules[i].id;
		}
	}
}
