/*
 * metrics.c - the body of GET /metrics: the exporter's own metrics, rendered
 * per scrape (up, sample age, cycles, cycle duration, CPU seconds, RSS), then
 * the evidence, findings and stall counters the collector thread published
 * for its last cycle (serve.c), when that is still fresh.
 *
 * With gzip the body is two gzip members: the own lines compressed per
 * scrape with a tiny deflate state (level 1, 512-byte window: the lines are
 * about 1 KB), then the member the collector thread compressed once for the
 * cycle (gz.h).  Without a fresh result there is only the first.
 *
 * This runs in the HTTP thread, which never calls gettext (serve.h: the
 * collector thread may be switching the language): the metric names and
 * HELP lines are English by design, and so are the two messages below.
 */
#include "serve/serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/xalloc.h"
#include "output/output.h"
#include "serve/gz.h"

char *gd_http_metrics(struct gd_server *srv, bool gzip, size_t *len, bool *gzipped)
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
	/* the cycle's member, made at its first scrape that takes gzip (most
	 * cycles are never scraped: Prometheus asks every 15 s or so) */
	if (gzip && fresh && !p->metrics_gz && !p->gz_failed &&
	    !(p->metrics_gz = gd_gz_member(p->metrics, p->metrics_len, 6, 12, 5, &p->metrics_gz_len)))
		p->gz_failed = true;
	gzip = gzip && (!fresh || p->metrics_gz);
	if (fresh && !gzip)
		fwrite(p->metrics, 1, p->metrics_len, m);
	if (fclose(m) != 0) {
		fputs("gpudoctor: out of memory rendering /metrics\n", stderr);
		abort();
	}
	*gzipped = false;
	if (gzip) {
		/* the own lines as a small member, then the cycle's member */
		size_t zlen;
		char *z = gd_gz_member(buf, *len, 1, 9, 1, &zlen);

		if (z) {
			free(buf);
			buf = z;
			*len = zlen;
			if (fresh) {
				buf = gd_xreallocarray(buf, zlen + p->metrics_gz_len, 1);
				memcpy(buf + zlen, p->metrics_gz, p->metrics_gz_len);
				*len += p->metrics_gz_len;
			}
			*gzipped = true;
		} else if (fresh) {
			buf = gd_xreallocarray(buf, *len + p->metrics_len, 1);
			memcpy(buf + *len, p->metrics, p->metrics_len);
			*len += p->metrics_len;
		}
	}
	gd_serve_release(srv, p);
	return buf;
}
