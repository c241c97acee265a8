/*
 * host.c - what the host probes share: names of the enums, the options'
 * defaults, availability and the clock.  The probes themselves are
 * host_storage.c, host_mem.c and host_power.c.
 */
#include "probe/host_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

const char *gd_probe_state_name(enum gd_probe_state s)
{
	switch (s) {
	case GD_PROBE_OK:
		return "ok";
	case GD_PROBE_UNAVAILABLE:
		return "unavailable";
	case GD_PROBE_FAILED:
		return "failed";
	default:
		return "not run";
	}
}

const char *gd_probe_cache_name(enum gd_probe_cache c)
{
	switch (c) {
	case GD_PROBE_CACHE_DIRECT:
		return "O_DIRECT";
	case GD_PROBE_CACHE_FADVISE:
		return "posix_fadvise(DONTNEED)";
	default:
		return "none";
	}
}

const char *gd_probe_media_name(enum gd_probe_media m)
{
	static const char *const names[] = {
		[GD_PROBE_MEDIA_UNKNOWN] = "unknown", [GD_PROBE_MEDIA_NVME] = "nvme",
		[GD_PROBE_MEDIA_SSD] = "ssd",         [GD_PROBE_MEDIA_HDD] = "hdd",
		[GD_PROBE_MEDIA_NETWORK] = "network", [GD_PROBE_MEDIA_MEMORY] = "memory",
	};

	return (unsigned)m < sizeof names / sizeof names[0] ? names[m] : "unknown";
}

void gd_probe_host_opts_init(struct gd_probe_host_opts *o)
{
	memset(o, 0, sizeof *o);
	o->budget_s = 3.0;
	o->seq_max_bytes = 1ull << 30;
	o->large_min_bytes = 8ull << 20;
	o->rand_reads = 1000;
	o->small_max_bytes = 1ull << 20;
	o->small_sample = 2000;
	o->walk_max_files = 10000000;
	o->seed = 1;
	o->stream_reps = 10;
	o->ipmitool_timeout_s = 10.0;
}

void gd__probe_opts(const struct gd_probe_host_opts *o, struct gd_probe_host_opts *out)
{
	struct gd_probe_host_opts d;

	gd_probe_host_opts_init(&d);
	if (!o) {
		*out = d;
		return;
	}
	*out = *o;
#define DEF(f) \
	if (!(out->f > 0)) \
		out->f = d.f
	DEF(budget_s);
	DEF(seq_max_bytes);
	DEF(large_min_bytes);
	DEF(rand_reads);
	DEF(small_max_bytes);
	DEF(small_sample);
	DEF(walk_max_files);
	DEF(seed);
	DEF(stream_reps);
	DEF(ipmitool_timeout_s);
#undef DEF
}

void gd__probe_ok(struct gd_probe_avail *a)
{
	a->state = GD_PROBE_OK;
	a->why[0] = '\0';
}

void gd__probe_set(struct gd_probe_avail *a, enum gd_probe_state s, const char *fmt, ...)
{
	va_list ap;

	a->state = s;
	va_start(ap, fmt);
	vsnprintf(a->why, sizeof a->why, fmt, ap);
	va_end(ap);
}

double gd__probe_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int gd__probe_root(const struct gd_probe_host_opts *o, struct gd_root *root, char *why, size_t wsz)
{
	struct gd_err err;
	int rc;

	gd_err_clear(&err);
	rc = gd_root_open(root, o && o->root ? o->root : "/", &err);
	if (rc < 0)
		snprintf(why, wsz, "%s", err.msg);
	return rc;
}
