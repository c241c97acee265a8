/*
 * out_json.c - the JSON document of `gpudoctor check --json`.
 *
 *   {"tool":"gpudoctor","version":"0.1.0",
 *    "host":{"name":"gpu-a17","kernel":"6.1.0","cpus":16},
 *    "window_s":2.0,"snapshots":2,"origin":"live",
 *    "findings":[{"id":"cpu.saturated","severity":"warning","subject":"host",
 *                 "summary":"...","evidence":[{"name":"busy_pct","value":97.1,
 *                 "unit":"%","threshold":90}],"remedy":"..."}],
 *                 (evidence from a log also has "source":"train.log:1234", the line)
 *    "unavailable":[{"evidence":"cpufreq","source":"/sys/...","status":"absent","reason":"..."}],
 *    "not_evaluated":[{"rule":"io.network_fs","reason":"no GPU job found ..."}],
 *    "job_ranks":[{"pid":4242,"status":"ok","job":"torchelastic:abc","rank":3,...}],
 *                 (who each GPU job process is: the snapshot's job_ranks[])
 *    "exit":1}
 *
 * Keys are snake_case; an absent value is null, never 0.
 */
#include "output/output.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "model/snapshot_json.h"
#include "rules/window.h"

static json_t *num_or_null(struct gd_f64 v)
{
	return v.ok && isfinite(v.v) ? json_real(v.v) : json_null();
}

static json_t *finding_json(const struct gd_finding *f)
{
	json_t *o = json_object(), *ev = json_array();

	json_object_set_new(o, "id", json_string(f->id));
	json_object_set_new(o, "severity", json_string(gd_severity_name(f->severity)));
	json_object_set_new(o, "subject", gd_json_str(f->subject));
	json_object_set_new(o, "summary", gd_json_str(f->summary));
	for (size_t i = 0; i < f->nev; i++) {
		const struct gd_evidence *e = &f->ev[i];
		json_t *x = json_object();

		json_object_set_new(x, "name", gd_json_str(e->name));
		json_object_set_new(x, "value", num_or_null(e->value));
		json_object_set_new(x, "unit", gd_json_str(e->unit));
		json_object_set_new(x, "threshold", num_or_null(e->threshold));
		if (e->text[0])
			json_object_set_new(x, "text", gd_json_str(e->text));
		if (e->source[0])
			json_object_set_new(x, "source", gd_json_str(e->source));
		json_array_append_new(ev, x);
	}
	json_object_set_new(o, "evidence", ev);
	json_object_set_new(o, "remedy", gd_json_str(f->remedy));
	return o;
}

/* The ids of the findings that name f's rule as their explanation (their
 * evidence explained_by starts with it), each once: REPORT.md's "explains". */
static json_t *explains(const struct gd_findings *all, const struct gd_finding *f)
{
	json_t *ids = json_array();
	size_t n = strlen(f->id);

	GD_VEC_EACH(all->items, const struct gd_finding, g) {
		bool named = false, seen = false;

		for (size_t i = 0; i < g->nev && !named; i++)
			named = strcmp(g->ev[i].name, "explained_by") == 0 && strncmp(g->ev[i].text, f->id, n) == 0 &&
				(g->ev[i].text[n] == '\0' || g->ev[i].text[n] == ' ' || g->ev[i].text[n] == ',');
		for (size_t k = 0; k < json_array_size(ids) && named; k++)
			seen = seen || strcmp(json_string_value(json_array_get(ids, k)), g->id) == 0;
		if (named && !seen && g != f)
			json_array_append_new(ids, json_string(g->id));
	}
	return ids;
}

json_t *gd_out_json(const struct gd_report *r)
{
	const struct gd_snapshot *last = gd_window_last(r->w);
	json_t *o = json_object(), *host = json_object(), *arr;
	double dt;

	json_object_set_new(o, "tool", json_string("gpudoctor"));
	json_object_set_new(o, "version", json_string(GD_VERSION));
	if (last) {
		json_object_set_new(host, "name", last->host.hostname[0] ? gd_json_str(last->host.hostname) : json_null());
		json_object_set_new(host, "kernel", last->host.kernel[0] ? gd_json_str(last->host.kernel) : json_null());
		json_object_set_new(host, "cpus", last->cpu.cpus_online.ok ? json_integer((json_int_t)last->cpu.cpus_online.v)
									  : json_null());
	}
	json_object_set_new(o, "host", host);
	json_object_set_new(o, "window_s", gd_window_dt(r->w, &dt) ? json_real(dt) : json_null());
	json_object_set_new(o, "snapshots", json_integer((json_int_t)gd_report_samples(r)));
	json_object_set_new(o, "origin", gd_json_str(r->origin ? r->origin : "live"));

	arr = json_array();
	GD_VEC_EACH(r->findings->items, const struct gd_finding, f) {
		json_t *fj = finding_json(f), *ex = explains(r->findings, f);

		if (json_array_size(ex))
			json_object_set_new(fj, "explains", ex);
		else
			json_decref(ex);
		json_array_append_new(arr, fj);
	}
	json_object_set_new(o, "findings", arr);

	arr = json_array();
	if (last) {
		GD_VEC_EACH(last->sources, const struct gd_source, s) {
			json_t *u;

			if (strcmp(s->status, "ok") == 0)
				continue;
			u = json_object();
			json_object_set_new(u, "evidence", gd_json_str(s->name));
			json_object_set_new(u, "source", gd_json_str(s->path));
			json_object_set_new(u, "status", gd_json_str(s->status));
			json_object_set_new(u, "reason", gd_json_str(s->reason));
			json_array_append_new(arr, u);
		}
	}
	if (last) {
		GD_VEC_EACH(last->nvml_errors, const struct gd_nvml_error, e) {
			json_t *u = json_object();
			char ev[64];

			if (e->gpu.ok)
				snprintf(ev, sizeof ev, "gpu%llu %s", (unsigned long long)e->gpu.v, e->field);
			else
				snprintf(ev, sizeof ev, "%s", e->field);
			json_object_set_new(u, "evidence", gd_json_str(ev));
			json_object_set_new(u, "source", gd_json_str("nvml"));
			json_object_set_new(u, "status", gd_json_str(e->status));
			json_object_set_new(u, "reason", gd_json_str(e->reason));
			json_array_append_new(arr, u);
		}
	}
	json_object_set_new(o, "unavailable", arr);

	arr = json_array();
	GD_VEC_EACH(r->findings->unknown, const struct gd_unknown, u) {
		json_t *x = json_object();

		json_object_set_new(x, "rule", json_string(u->id));
		json_object_set_new(x, "reason", gd_json_str(u->reason));
		json_array_append_new(arr, x);
	}
	json_object_set_new(o, "not_evaluated", arr);
	json_object_set_new(o, "job_ranks", last ? gd_section_to_json(last, "job_ranks") : json_array());
	json_object_set_new(o, "exit", json_integer(gd_report_exit_code(r->findings)));
	return o;
}
