/*
 * proc_uptime.c - host identity and clock: /proc/uptime and friends.
 *
 * /proc/uptime (every kernel) holds two numbers, seconds since boot and the
 * idle seconds summed over all CPUs:
 *
 *     500.44 965.35
 *
 * The first is the snapshot's timestamp: rules turn counter deltas into rates
 * with it, so without it the host source fails.  The rest fills host.* and is
 * best effort (a missing piece makes the source PARTIAL, never FAILED):
 *
 *   /proc/sys/kernel/hostname   "gpu-node-17"            (one line)
 *   /proc/sys/kernel/osrelease  "6.1.0-18-amd64"         (one line)
 *   /proc/self                  symlink to "3733"        (our pid, as the root sees it)
 *   /proc/self/mountinfo        "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw"
 *                               (2.6.26+; /proc/mounts as the fallback)
 *
 * cgroup_mode is "v2" when the only cgroup mounts are cgroup2 (the unified
 * hierarchy at /sys/fs/cgroup), "v1" when only cgroup (v1) controllers are
 * mounted, and "hybrid" when both are (systemd's hybrid layout puts cgroup2 at
 * /sys/fs/cgroup/unified).  clk_tck and page_size come from sysconf and the
 * wall clock from CLOCK_REALTIME: the only values not read through the root.
 */
#include "collect/collectors.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/i18n.h"
#include "core/tok.h"

/* Appends one "; "-separated reason to why. */
static void __attribute__((format(printf, 3, 4))) note(char *why, size_t sz, const char *fmt, ...)
{
	size_t n = strlen(why);
	va_list ap;

	if (n + 2 >= sz)
		return;
	if (n) {
		memcpy(why + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(why + n, sz - n, fmt, ap);
	va_end(ap);
}

int gd_parse_proc_uptime(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line, f[3];
	size_t n;
	double up, idle;

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("binary data, not the text of /proc/uptime"));
	gd_lines_init(&it, buf, len);
	if (!gd_tok_line(&it, &line) || (n = gd_tok_split(line, f, 3)) == 0)
		return gd_err_set(err, -ENODATA, _("empty file"));
	if (!gd_tok_f64(f[0], &up) || up < 0)
		return gd_err_set(err, -EINVAL, _("line 1: uptime \"%.*s\" is not a number of seconds"), (int)f[0].n,
				  f[0].p);
	gd_f64_set(&s->host.uptime_s, up);
	if (n >= 2 && (!gd_tok_f64(f[1], &idle) || idle < 0)) {
		gd_err_set(err, -EINVAL, _("line 1: idle time \"%.*s\" is not a number of seconds"), (int)f[1].n, f[1].p);
		return 1;
	}
	return 0;
}

/*
 * Scans mountinfo (mountinfo true) or mounts text for cgroup filesystems.
 * mountinfo puts the type after the " - " separator field; mounts has it as
 * the third field.  Returns "v1", "v2", "hybrid" or NULL when none is mounted.
 */
static const char *cgroup_mode_of(const char *buf, size_t len, bool mountinfo)
{
	struct gd_lines it;
	struct gd_slice line, f[16];
	bool v1 = false, v2 = false;

	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		size_t n = gd_tok_split(line, f, 16), i;
		struct gd_slice type = { NULL, 0 };

		if (mountinfo) {
			for (i = 6; i + 1 < n; i++)
				if (gd_tok_eq(f[i], "-")) {
					type = f[i + 1];
					break;
				}
		} else if (n >= 3) {
			type = f[2];
		}
		if (gd_tok_eq(type, "cgroup"))
			v1 = true;
		else if (gd_tok_eq(type, "cgroup2"))
			v2 = true;
	}
	if (v1 && v2)
		return "hybrid";
	if (v2)
		return "v2";
	return v1 ? "v1" : NULL;
}

static void collect_cgroup_mode(const struct gd_root *root, struct gd_snapshot *s, char *why, size_t whysz)
{
	static const char *const files[] = { "proc/self/mountinfo", "proc/mounts" };
	int rc = 0;

	for (size_t i = 0; i < 2; i++) {
		char *buf;
		size_t len;
		const char *mode;

		rc = gd_root_read(root, files[i], &buf, &len, GD_READ_CAP);
		if (rc < 0)
			continue;
		mode = cgroup_mode_of(buf, len, i == 0);
		free(buf);
		if (mode) {
			GD_STRSET(s->host.cgroup_mode, mode);
			return;
		}
		note(why, whysz, _("no cgroup filesystem mounted (/%s)"), files[i]);
		return;
	}
	note(why, whysz, _("cgroup mode unknown: /proc/self/mountinfo and /proc/mounts: %s"), strerror(-rc));
}

/* Reads a one-line string file into dst (dstsz bytes); notes failures. */
static void read_label(const struct gd_root *root, const char *rel, char *dst, size_t dstsz, char *why,
		       size_t whysz)
{
	int rc = gd_root_read_line(root, rel, dst, dstsz);

	if (rc < 0) {
		dst[0] = '\0';
		note(why, whysz, "/%s: %s", rel, strerror(-rc));
	} else if (!dst[0]) {
		note(why, whysz, _("/%s is empty"), rel);
	}
}

static void collect_self_pid(const struct gd_root *root, struct gd_snapshot *s, char *why, size_t whysz)
{
	char link[64];
	uint64_t pid;
	int rc = gd_root_readlink(root, "proc/self", link, sizeof link);
	struct gd_slice sl;

	if (rc < 0) {
		note(why, whysz, "readlink /proc/self: %s", strerror(-rc));
		return;
	}
	sl.p = link;
	sl.n = strlen(link);
	if (!gd_tok_u64(sl, &pid) || pid == 0) {
		note(why, whysz, _("/proc/self links to \"%s\", not a pid"), link);
		return;
	}
	gd_u64_set(&s->host.self_pid, pid);
}

enum gd_src_status gd_collect_host(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	char why[GD_ERR_MSG_MAX] = "";
	struct timespec ts;
	long v;
	enum gd_src_status st = gd_collect_file(ctx, "proc/uptime", gd_parse_proc_uptime, s, err);

	if (clock_gettime(CLOCK_REALTIME, &ts) == 0)
		gd_f64_set(&s->host.wall_time_s, (double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
	else
		note(why, sizeof why, "clock_gettime(CLOCK_REALTIME): %s", strerror(errno));
	read_label(ctx->root, "proc/sys/kernel/hostname", s->host.hostname, sizeof s->host.hostname, why,
		   sizeof why);
	read_label(ctx->root, "proc/sys/kernel/osrelease", s->host.kernel, sizeof s->host.kernel, why, sizeof why);
	v = sysconf(_SC_CLK_TCK);
	if (v > 0)
		gd_u64_set(&s->host.clk_tck, (uint64_t)v);
	else
		note(why, sizeof why, _("sysconf(_SC_CLK_TCK) failed"));
	v = sysconf(_SC_PAGESIZE);
	if (v > 0)
		gd_u64_set(&s->host.page_size_bytes, (uint64_t)v);
	else
		note(why, sizeof why, _("sysconf(_SC_PAGESIZE) failed"));
	collect_self_pid(ctx->root, s, why, sizeof why);
	collect_cgroup_mode(ctx->root, s, why, sizeof why);

	/* Without the uptime the snapshot has no timestamp: that status wins. */
	if (st == GD_SRC_ABSENT || st == GD_SRC_DENIED || st == GD_SRC_FAILED)
		return st;
	if (st == GD_SRC_PARTIAL) {
		if (why[0]) {
			char msg[GD_ERR_MSG_MAX];

			snprintf(msg, sizeof msg, "%s", err->msg);
			gd_err_set(err, -EINVAL, "%s; %s", msg, why);
		}
		return st;
	}
	if (why[0]) {
		gd_err_set(err, -ENOENT, "%s", why);
		return GD_SRC_PARTIAL;
	}
	return GD_SRC_OK;
}
