/*
 * prom.c - instant queries against the Prometheus HTTP API (prom.h).
 *
 * The envelope (docs/querying/api.md, web/api/v1/api.go):
 *
 *   {"status":"success","data":{"resultType":"vector","result":[
 *     {"metric":{"rule":"gpu.lost"},"value":[1764590000.123,"2"]}]},
 *    "warnings":["..."],"infos":["..."]}
 *   {"status":"error","errorType":"bad_data","error":"parse error ..."}
 *
 * Sample values are strings ("NaN", "+Inf", "1e-07": Go's formatting);
 * errors come as 400 bad_data, 422 execution, 503 timeout, and answers from
 * proxies or auth in front of the server (401, 403, 502, 504) may have no
 * JSON at all: their first line is quoted instead.
 */
#include "fleet/prom.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/i18n.h"
#include "core/xalloc.h"

/* The first line of a non-JSON body, at most 160 bytes, control bytes as '?'. */
static void first_line(const char *body, size_t len, char *out, size_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < len && body[i] != '\n' && n + 1 < size && n < 160; i++)
		out[n++] = (unsigned char)body[i] < 0x20 ? '?' : body[i];
	out[n] = '\0';
}

static const char *status_hint(long status)
{
	switch (status) {
	case 401:
	case 403:
		return _(" (authentication refused: check --bearer-token-file, --basic-auth and --password-file)");
	case 404:
		return _(" (no Prometheus API at this URL: give the base, e.g. http://host:9090 or http://mimir/prometheus)");
	case 405:
		return _(" (the server refuses POST)");
	default:
		return "";
	}
}

static bool parse_value(const json_t *pair, double *v)
{
	const char *s;
	char *end;

	if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_number(json_array_get(pair, 0)))
		return false;
	s = json_string_value(json_array_get(pair, 1));
	if (!s || !s[0])
		return false;
	*v = strtod(s, &end);
	return *end == '\0';
}

int gd_prom_parse(long status, const char *body, size_t len, size_t limit, struct gd_prom_result *out,
		  struct gd_err *err)
{
	json_error_t je;
	json_t *doc, *data, *res, *w;
	const char *st, *type;
	char line[192];

	memset(out, 0, sizeof *out);
	out->samples = -1;
	doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc || !json_is_object(doc)) {
		first_line(body, len, line, sizeof line);
		if (status < 200 || status > 299)
			gd_err_set(err, -EPROTO, "HTTP %ld%s: %s", status, status_hint(status),
				   line[0] ? line : _("(empty body)"));
		else
			gd_err_set(err, -EPROTO, _("the answer is not a JSON object (line %d, column %d: %s): %s"), je.line,
				   je.column, doc ? _("not an object") : je.text, line[0] ? line : _("(empty body)"));
		json_decref(doc);
		return err ? err->code : -EPROTO;
	}
	out->doc = doc;
	for (int k = 0; k < 2; k++) {
		w = json_object_get(doc, k ? "infos" : "warnings");
		for (size_t i = 0; json_is_array(w) && i < json_array_size(w); i++) {
			const char *t = json_string_value(json_array_get(w, i));

			if (!t)
				continue;
			out->warnings = gd_xreallocarray(out->warnings, out->n_warn + 1, sizeof *out->warnings);
			out->warnings[out->n_warn++] = gd_xstrdup(t);
		}
	}
	st = json_string_value(json_object_get(doc, "status"));
	if (!st || strcmp(st, "success") != 0 || status < 200 || status > 299) {
		const char *et = json_string_value(json_object_get(doc, "errorType"));
		const char *e = json_string_value(json_object_get(doc, "error"));

		gd_err_set(err, -EPROTO, _("Prometheus answered HTTP %ld, %s%s%s%s"), status, et ? et : _("no errorType"),
			   e ? ": " : "", e ? e : "", status_hint(status));
		goto fail;
	}
	data = json_object_get(doc, "data");
	type = json_string_value(json_object_get(data, "resultType"));
	res = json_object_get(data, "result");
	if (!type) {
		gd_err_set(err, -EPROTO, _("the answer has no data.resultType"));
		goto fail;
	}
	if (strcmp(type, "scalar") == 0) {
		out->s = gd_xcalloc(1, sizeof *out->s);
		if (!parse_value(res, &out->s[0].v)) {
			gd_err_set(err, -EPROTO, _("a scalar answer without [time, \"value\"]"));
			goto fail;
		}
		out->n = 1;
		return 0;
	}
	if ((strcmp(type, "vector") != 0 && strcmp(type, "matrix") != 0) || !json_is_array(res)) {
		gd_err_set(err, -EPROTO, _("expected data.resultType vector or matrix with a result array, got %s"), type);
		goto fail;
	}
	if (limit && json_array_size(res) > limit) {
		gd_err_set(err, -E2BIG,
			   _("%zu series, more than the limit of %zu: narrow the fleet with --match or raise --limit"),
			   json_array_size(res), limit);
		goto fail;
	}
	out->s = gd_xcalloc(json_array_size(res) + 1, sizeof *out->s);
	for (size_t i = 0; i < json_array_size(res); i++) {
		const json_t *r = json_array_get(res, i);
		json_t *m = json_object_get(r, "metric");

		if (!json_is_object(m)) {
			gd_err_set(err, -EPROTO, _("result %zu has no metric object"), i);
			goto fail;
		}
		if (json_object_get(r, "histogram") || json_object_get(r, "histograms"))
			continue;  /* native histograms: none of ours */
		if (type[0] == 'm') {
			json_t *vals = json_object_get(r, "values");

			if (!json_is_array(vals)) {
				gd_err_set(err, -EPROTO, _("result %zu has no values array"), i);
				goto fail;
			}
			out->s[out->n].v = NAN;
			out->s[out->n].values = vals;
			out->s[out->n++].metric = m;
			continue;
		}
		if (!parse_value(json_object_get(r, "value"), &out->s[out->n].v)) {
			gd_err_set(err, -EPROTO, _("result %zu has no [time, \"value\"] pair"), i);
			goto fail;
		}
		out->s[out->n++].metric = m;
	}
	{
		json_t *tqs = json_object_get(json_object_get(json_object_get(data, "stats"), "samples"),
					      "totalQueryableSamples");

		if (json_is_number(tqs))
			out->samples = json_number_value(tqs);
	}
	return 0;
fail:
	gd_prom_result_release(out);
	return err ? err->code : -EPROTO;
}

void gd_prom_result_release(struct gd_prom_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_warn; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r->s);
	json_decref(r->doc);
	memset(r, 0, sizeof *r);
}

bool gd_prom_point(const struct gd_prom_sample *s, size_t k, double *t, double *v)
{
	const json_t *pair = s->values ? json_array_get(s->values, k) : NULL;

	if (!pair || !parse_value(pair, v))
		return false;
	*t = json_number_value(json_array_get(pair, 0));
	return true;
}

const char *gd_prom_label(const struct gd_prom_sample *s, const char *name)
{
	const char *v = s->metric ? json_string_value(json_object_get(s->metric, name)) : NULL;

	return v ? v : "";
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run_query(struct gd_prom *p, const char *name, const char *expr, double start, double step_s,
		     struct gd_prom_result *out, struct gd_err *err)
{
	char url[1200], head[160], when[96];
	char *q = gd_http_escape(p->http, expr), *form;
	struct gd_http_reply r;
	size_t n = strlen(q) + 256;
	double t0 = now_s();
	struct gd_err e2;
	size_t r_len;
	int rc;

	form = gd_xmalloc(n);
	if (step_s > 0)
		snprintf(when, sizeof when, "start=%.3f&end=%.3f&step=%gs", start, p->at, step_s);
	else
		snprintf(when, sizeof when, "time=%.3f", p->at);
	snprintf(form, n, "query=%s&%s&timeout=%gs&limit=%zu%s", q, when, p->timeout_s, p->limit + 1,
		 p->stats ? "&stats=all" : "");
	free(q);
	snprintf(url, sizeof url, "%s/api/v1/%s", p->base, step_s > 0 ? "query_range" : "query");
	gd_err_clear(&e2);
	rc = gd_http_post(p->http, url, form, &p->http_opts, &r, &e2);
	if (rc == 0 && (r.status == 405 || r.status == 501)) {
		/* a server or proxy that refuses POST: the same as a GET, as
		 * Prometheus' own Go client falls back (client_golang DoGetFallback) */
		size_t un = strlen(url) + strlen(form) + 2;
		char *get = gd_xmalloc(un);

		snprintf(get, un, "%s?%s", url, form);
		gd_http_reply_release(&r);
		rc = gd_http_post(p->http, get, NULL, &p->http_opts, &r, &e2);
		free(get);
	}
	free(form);
	p->queries++;
	p->seconds += now_s() - t0;
	if (rc < 0)
		return gd_err_set(err, rc, _("query %s: %s"), name, e2.msg);
	p->bytes += r.len;
	r_len = r.len;
	/* limit+1 asked: one series more than the limit says the result was cut
	 * (or the server ignores limit=, as before Prometheus 3.0) */
	rc = gd_prom_parse(r.status, r.body, r.len, p->limit, out, &e2);
	gd_http_reply_release(&r);
	if (rc < 0) {
		snprintf(head, sizeof head, _("query %s"), name);
		return gd_err_set(err, rc, "%s: %s", head, e2.msg);
	}
	if (out->samples >= 0)
		p->samples += out->samples;
	{
		struct gd_prom_cost *c = gd_vec_push(&p->costs, sizeof *c);

		c->query = gd_xstrdup(name);
		c->seconds = now_s() - t0;
		c->samples = out->samples;
		c->bytes = r_len;
		c->series = out->n;
	}
	for (size_t i = 0; i < out->n_warn; i++) {
		struct gd_prom_warning *w = gd_vec_push(&p->warnings, sizeof *w);

		w->query = gd_xstrdup(name);
		w->text = gd_xstrdup(out->warnings[i]);
	}
	return 0;
}

int gd_prom_query(struct gd_prom *p, const char *name, const char *expr, struct gd_prom_result *out,
		  struct gd_err *err)
{
	return run_query(p, name, expr, 0, 0, out, err);
}

int gd_prom_query_range(struct gd_prom *p, const char *name, const char *expr, double start, double step_s,
			struct gd_prom_result *out, struct gd_err *err)
{
	return run_query(p, name, expr, start, step_s > 0 ? step_s : 15, out, err);
}

void gd_prom_release(struct gd_prom *p)
{
	GD_VEC_EACH(p->warnings, struct gd_prom_warning, w) {
		free(w->query);
		free(w->text);
	}
	gd_vec_release(&p->warnings);
	GD_VEC_EACH(p->costs, struct gd_prom_cost, c)
		free(c->query);
	gd_vec_release(&p->costs);
}
