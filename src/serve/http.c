/*
 * http.c - the HTTP front of `gpudoctor serve` on libmicrohttpd.
 *
 *   GET /metrics    Prometheus text format 0.0.4
 *   GET /findings   the JSON document of `check --json` (503 when stale)
 *   GET /healthz    "ok" (200), or why not (503: no sample yet, or stale)
 *
 * HEAD is answered like GET without the body; any other method gets 405
 * with an Allow header, any other path 404.  Limits, so that a flood or a
 * slow client cannot starve Prometheus: at most CONN_LIMIT connections, at
 * most PER_IP_LIMIT from one address, POOL_BYTES of memory per connection
 * (headers beyond it are refused with 431 or 414 by libmicrohttpd, the body
 * is never read), and TIMEOUT_S of inactivity before a connection is closed.
 * One epoll thread serves every connection; a request only copies the
 * published result, so it takes microseconds.
 */
#include "serve/serve.h"

#include <errno.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/xalloc.h"
#include "output/output.h"

#define CONN_LIMIT 256
#define PER_IP_LIMIT 32
#define POOL_BYTES (32 * 1024)
#define TIMEOUT_S 10

static const char ct_metrics[] = "text/plain; version=0.0.4; charset=utf-8";

char *gd_http_metrics(struct gd_server *srv, size_t *len)
{
	double age, cpu, cycle;
	struct gd_published *p = gd_serve_acquire(srv, &age);
	bool fresh = gd_serve_fresh(srv, p, age), rss_ok;
	struct rusage ru;
	uint64_t cycles, rss;
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);

	if (!m) {
		fputs("gpudoctor: out of memory (open_memstream)\n", stderr);
		abort();
	}
	pthread_mutex_lock(&srv->lock);
	cycles = srv->cycles;
	cycle = srv->cycle_s;
	rss_ok = srv->rss_ok;
	rss = srv->rss_bytes;
	pthread_mutex_unlock(&srv->lock);
	getrusage(RUSAGE_SELF, &ru);
	cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	      (double)ru.ru_stime.tv_usec / 1e6;
	fprintf(m,
		"# HELP gpudoctor_up 1 when the evidence below is fresh; 0 when no cycle finished within the deadline "
		"(%g s) and it is withdrawn\n# TYPE gpudoctor_up gauge\ngpudoctor_up %d\n",
		srv->deadline_s, fresh ? 1 : 0);
	fprintf(m, "# HELP gpudoctor_build_info the gpudoctor version\n# TYPE gpudoctor_build_info gauge\n"
		   "gpudoctor_build_info{version=\"%s\"} 1\n", GD_VERSION);
	if (p)
		fprintf(m, "# HELP gpudoctor_sample_age_seconds age of the latest collection cycle's result\n"
			   "# TYPE gpudoctor_sample_age_seconds gauge\ngpudoctor_sample_age_seconds %.6f\n", age);
	fprintf(m, "# HELP gpudoctor_collection_cycles_total collection cycles completed\n"
		   "# TYPE gpudoctor_collection_cycles_total counter\ngpudoctor_collection_cycles_total %llu\n",
		(unsigned long long)cycles);
	if (cycles)
		fprintf(m, "# HELP gpudoctor_collection_duration_seconds time the last cycle took (collect, rules, "
			   "render)\n# TYPE gpudoctor_collection_duration_seconds gauge\n"
			   "gpudoctor_collection_duration_seconds %.6f\n", cycle);
	fprintf(m, "# HELP process_cpu_seconds_total user and system CPU time of the exporter\n"
		   "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total %.6f\n", cpu);
	if (rss_ok)
		fprintf(m, "# HELP process_resident_memory_bytes resident memory of the exporter\n"
			   "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes %llu\n",
			(unsigned long long)rss);
	if (fresh)
		fwrite(p->metrics, 1, p->metrics_len, m);
	gd_serve_release(srv, p);
	if (fclose(m) != 0) {
		fputs("gpudoctor: out of memory rendering /metrics\n", stderr);
		abort();
	}
	return buf;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *type, char *body, size_t len,
			     bool owned)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(len, body, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned code, const char *s)
{
	return reply(c, code, "text/plain; charset=utf-8", (char *)s, strlen(s), false);
}

static enum MHD_Result findings(struct gd_server *srv, struct MHD_Connection *c)
{
	double age;
	struct gd_published *p = gd_serve_acquire(srv, &age);
	enum MHD_Result ret;

	if (!gd_serve_fresh(srv, p, age)) {
		gd_serve_release(srv, p);
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "application/json",
			     (char *)"{\"error\":\"no fresh sample: the collector has not finished a cycle within its "
				     "deadline\"}\n",
			     strlen("{\"error\":\"no fresh sample: the collector has not finished a cycle within its "
				    "deadline\"}\n"),
			     false);
	}
	ret = reply(c, MHD_HTTP_OK, "application/json", gd_xstrndup(p->findings, p->findings_len), p->findings_len,
		    true);
	gd_serve_release(srv, p);
	return ret;
}

static enum MHD_Result healthz(struct gd_server *srv, struct MHD_Connection *c)
{
	double age;
	struct gd_published *p = gd_serve_acquire(srv, &age);
	bool fresh = gd_serve_fresh(srv, p, age);
	char msg[160];

	gd_serve_release(srv, p);
	if (fresh)
		return text(c, MHD_HTTP_OK, "ok\n");
	if (!p)
		snprintf(msg, sizeof msg, "no sample yet\n");
	else
		snprintf(msg, sizeof msg, "stale: the last sample is %.1f s old (deadline %g s)\n", age, srv->deadline_s);
	return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", gd_xstrdup(msg), strlen(msg), true);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct gd_server *srv = cls;
	size_t len;
	char *body;

	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed: use GET\n");
	if (*upload_data_size)  /* a GET with a body: refuse rather than read it */
		return text(c, MHD_HTTP_BAD_REQUEST, "a GET request has no body\n");
	if (strcmp(url, "/metrics") == 0) {
		body = gd_http_metrics(srv, &len);
		return reply(c, MHD_HTTP_OK, ct_metrics, body, len, true);
	}
	if (strcmp(url, "/findings") == 0)
		return findings(srv, c);
	if (strcmp(url, "/healthz") == 0)
		return healthz(srv, c);
	return text(c, MHD_HTTP_NOT_FOUND, "not found: try /metrics, /findings or /healthz\n");
}

struct MHD_Daemon *gd_http_start(struct gd_server *srv, int fd, struct gd_err *err)
{
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_EPOLL_INTERNAL_THREAD, 0, NULL, NULL, handle, srv, MHD_OPTION_LISTEN_SOCKET, fd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONN_LIMIT, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned)PER_IP_LIMIT, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)POOL_BYTES,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)TIMEOUT_S, MHD_OPTION_END);

	if (!d)
		gd_err_set(err, -EIO, "cannot start the HTTP server (libmicrohttpd)");
	return d;
}

void gd_http_stop(struct MHD_Daemon *d)
{
	MHD_stop_daemon(d);
}
