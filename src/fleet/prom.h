/*
 * prom.h - a client of the Prometheus HTTP API (/api/v1/query), as
 * Prometheus, Thanos, VictoriaMetrics and Mimir serve it.
 *
 * Every query is an instant query at one time (--at) with the server-side
 * bounds timeout= and limit=, sent as a POST form; the answer's envelope is
 * checked (status, errorType/error, warnings, infos) by gd_prom_parse, a
 * pure function of the body that the fuzzer and the malformed-input tests
 * call directly.
 */
#ifndef GD_FLEET_PROM_H
#define GD_FLEET_PROM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "fleet/http_curl.h"
#include "model/vec.h"

struct gd_prom_sample {
	json_t *metric;           /* the labels object (a reference of the result) */
	double v;                 /* a vector's value (NAN in a matrix) */
	json_t *values;           /* a matrix's [[t, "v"], ...] (a reference), else NULL */
};

struct gd_prom_result {
	struct gd_prom_sample *s;
	size_t n;
	json_t *doc;              /* the whole answer, owning every metric */
	char **warnings;          /* warnings[] and infos[] of the answer, n_warn of them */
	size_t n_warn;
	double samples;           /* data.stats.samples.totalQueryableSamples, or -1 */
};

/* Parses one answer of /api/v1/query (HTTP status, body).  0 with out set
 * (release it with gd_prom_result_release), or negative with err saying
 * what the server or its answer got wrong, in the server's own words where
 * it gave some.  More than limit series (limit > 0) is an error. */
int gd_prom_parse(long status, const char *body, size_t len, size_t limit, struct gd_prom_result *out,
		  struct gd_err *err);
void gd_prom_result_release(struct gd_prom_result *r);
/* Point k of a matrix series s: false past its end or when malformed. */
bool gd_prom_point(const struct gd_prom_sample *s, size_t k, double *t, double *v);
/* The value of label name of s, or "" when it has none. */
const char *gd_prom_label(const struct gd_prom_sample *s, const char *name);

struct gd_prom_warning {
	char *query;              /* the name of the query it came with */
	char *text;
};

struct gd_prom_cost {
	char *query;              /* its name */
	double seconds, samples;  /* samples: -1 unless asked (stats) */
	size_t bytes, series;
};

struct gd_prom {
	struct gd_http_client *http;
	const char *base;         /* --prometheus, without a trailing slash */
	struct gd_http_opts http_opts;
	double at;                /* evaluation time, Unix seconds */
	double timeout_s;         /* sent as timeout= and used as the transfer limit */
	size_t limit;             /* sent as limit=; more series is an error */
	bool stats;               /* ask for stats=all (samples read) */
	struct gd_vec warnings;   /* struct gd_prom_warning */
	struct gd_vec costs;      /* struct gd_prom_cost, one per query answered */
	/* the cost of the run, for --json and docs/fleet.md */
	size_t queries;
	double seconds, samples;
	size_t bytes;
};

/* Runs expr (name: what it is for, in messages and warnings).  0 with out
 * set, negative with err set. */
int gd_prom_query(struct gd_prom *p, const char *name, const char *expr, struct gd_prom_result *out,
		  struct gd_err *err);
/* The same as a range query (/api/v1/query_range) from start to p->at every
 * step_s: a matrix, one gd_prom_sample per series with its values. */
int gd_prom_query_range(struct gd_prom *p, const char *name, const char *expr, double start, double step_s,
			struct gd_prom_result *out, struct gd_err *err);
void gd_prom_release(struct gd_prom *p);

#endif
