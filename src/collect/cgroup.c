/*
 * cgroup.c - CPU quota, throttling and memory limits of the cgroups GPU jobs
 * (and gpudoctor itself) run in.
 *
 * Which group: /proc/<pid>/cgroup ("0::/kubepods/pod1/ctr" on v2; on v1 one
 * line per hierarchy, "4:cpu,cpuacct:/docker/abc", "9:memory:/docker/abc").
 * Where it is mounted: /proc/self/mountinfo, the "cgroup2" entry for v2
 * and the "cgroup" entries whose super options hold "cpu" and "memory" for
 * v1 ("35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory").
 * The group's directory is <mount point>/<path less the mount's root>; in
 * a container with a cgroup namespace the path is "/" and the group is the
 * mount root.  A hybrid host (v1 controllers plus an empty unified
 * hierarchy) counts as v1, where the controllers are.
 *
 *   v2 (Linux 4.5; memory.high/events 4.5, cpu.max 4.15):
 *     cpu.max "max 100000" (max: unlimited) | cpu.stat "nr_periods 51\nnr_throttled 7\nthrottled_usec 80321"
 *     memory.current "3649536" | memory.max "max" | memory.high "max"
 *     memory.events "low 0\nhigh 12\nmax 3\noom 0\noom_kill 0"
 *   v1 (cfs bandwidth 3.2; memory.oom_control's oom_kill line 4.13):
 *     cpu.cfs_quota_us "-1" (unlimited) | cpu.cfs_period_us "100000"
 *     cpu.stat "nr_periods 0\nnr_throttled 0\nthrottled_time 0" (ns)
 *     memory.usage_in_bytes | memory.limit_in_bytes "9223372036854771712" (unlimited)
 *     memory.failcnt (times at the limit) | memory.oom_control "oom_kill_disable 0\nunder_oom 0\noom_kill 0"
 *
 * A file that does not exist (the root group has no cpu.max; a controller
 * not enabled in the subtree) leaves its field absent: not an error.
 */
#include "collect/collectors.h"
#include "collect/proc_pid.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"

/* v1 prints "unlimited" as LONG_MAX rounded down to a page; anything this
 * large is no limit a host could reach. */
#define V1_UNLIMITED (1ull << 62)

static struct gd_cgroup *last_cgroup(struct gd_snapshot *s)
{
	if (s->cgroups.n == 0)
		return GD_PUSH(s, cgroups, struct gd_cgroup);
	return GD_VEC_AT(s->cgroups, struct gd_cgroup, s->cgroups.n - 1);
}

struct kv_key {
	const char *key;
	size_t off;      /* of the struct gd_u64 in struct gd_cgroup */
	uint64_t div;    /* the file's unit over the field's */
};

/* Parses flat "key value" lines into the last cgroup record; unknown keys
 * (new kernels add some) are skipped. */
static int parse_flat(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err,
		      const struct kv_key *keys, size_t nkeys)
{
	struct gd_cgroup *cg = last_cgroup(s);
	struct gd_lines it;
	struct gd_slice line, f[3];
	size_t lines = 0, bad = 0;

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("holds binary data (a NUL byte)"));
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		uint64_t v;

		if (gd_tok_trim(line).n == 0)
			continue;
		if (gd_tok_split(line, f, 3) != 2) {
			if (!bad++)
				gd_err_set(err, -EINVAL, _("line %zu: not \"key value\""), it.lineno);
			continue;
		}
		lines++;
		for (size_t i = 0; i < nkeys; i++) {
			if (!gd_tok_eq(f[0], keys[i].key))
				continue;
			if (!gd_tok_u64(f[1], &v)) {
				if (!bad++)
					gd_err_set(err, -EINVAL, _("line %zu: %s \"%.*s\" is not a number"), it.lineno,
						   keys[i].key, (int)(f[1].n > 32 ? 32 : f[1].n), f[1].p);
				break;
			}
			gd_u64_set((struct gd_u64 *)(void *)((char *)cg + keys[i].off), v / keys[i].div);
			break;
		}
	}
	if (lines == 0)
		return bad ? -EINVAL : gd_err_set(err, -ENODATA, _("empty"));
	return bad ? 1 : 0;
}

int gd_parse_cgroup_cpu_stat(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	static const struct kv_key keys[] = {
		{ "nr_periods", offsetof(struct gd_cgroup, nr_periods), 1 },
		{ "nr_throttled", offsetof(struct gd_cgroup, nr_throttled), 1 },
		{ "throttled_usec", offsetof(struct gd_cgroup, throttled_us), 1 },      /* v2 */
		{ "throttled_time", offsetof(struct gd_cgroup, throttled_us), 1000 },   /* v1, ns */
	};

	return parse_flat(buf, len, s, err, keys, sizeof keys / sizeof keys[0]);
}

/* Also reads v1 memory.oom_control, whose only key of these is oom_kill. */
int gd_parse_cgroup_memory_events(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	static const struct kv_key keys[] = {
		{ "high", offsetof(struct gd_cgroup, mem_events_high), 1 },
		{ "max", offsetof(struct gd_cgroup, mem_events_max), 1 },
		{ "oom", offsetof(struct gd_cgroup, mem_events_oom), 1 },
		{ "oom_kill", offsetof(struct gd_cgroup, mem_events_oom_kill), 1 },
	};

	return parse_flat(buf, len, s, err, keys, sizeof keys / sizeof keys[0]);
}

/* ---- the collector --------------------------------------------------- */

struct hier {
	char mount[512];   /* "" when not mounted */
	char root[512];    /* the mount's root inside the hierarchy, usually "/" */
};

struct hiers {
	struct hier v2, cpu, mem;
};

/* A process's groups, from /proc/<pid>/cgroup. */
struct cg_paths {
	char v2[512], cpu[512], mem[512];
	bool has_v2, has_cpu, has_mem;
};

struct cg_tally {
	size_t problems;
	int first_code;
	char first_msg[GD_ERR_MSG_MAX / 2];
};

static void note(struct cg_tally *t, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void note(struct cg_tally *t, int code, const char *fmt, ...)
{
	va_list ap;

	if (t->problems++)
		return;
	t->first_code = code;
	va_start(ap, fmt);
	vsnprintf(t->first_msg, sizeof t->first_msg, fmt, ap);
	va_end(ap);
}

static void find_hiers(const char *buf, size_t len, struct hiers *h)
{
	struct gd_lines it;
	struct gd_slice line;
	struct gd_mountinfo_line m;

	memset(h, 0, sizeof *h);
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		struct hier *dst[2] = { NULL, NULL };

		if (!gd_mountinfo_split(line, &m))
			continue;
		if (gd_tok_eq(m.fstype, "cgroup2") && !h->v2.mount[0]) {
			dst[0] = &h->v2;
		} else if (gd_tok_eq(m.fstype, "cgroup")) {
			if (!h->cpu.mount[0] && gd_list_has(m.superopts, ',', "cpu"))
				dst[0] = &h->cpu;
			if (!h->mem.mount[0] && gd_list_has(m.superopts, ',', "memory"))
				dst[1] = &h->mem;
		}
		for (int i = 0; i < 2; i++) {
			if (!dst[i])
				continue;
			gd_unescape_octal(dst[i]->mount, sizeof dst[i]->mount, m.mountpoint);
			gd_unescape_octal(dst[i]->root, sizeof dst[i]->root, m.root);
		}
	}
}

/* Reads /proc/<pid>/cgroup (rel) into p; returns 0 or -errno. */
static int read_paths(const struct gd_collect_ctx *ctx, const char *rel, struct cg_paths *p)
{
	char buf[4096];
	size_t len;
	struct gd_lines it;
	struct gd_slice line;
	int rc = gd_proc_read_small(ctx->root, rel, buf, sizeof buf, &len);

	memset(p, 0, sizeof *p);
	if (rc < 0)
		return rc;
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		const char *c1 = memchr(line.p, ':', line.n), *c2;
		struct gd_slice ctrl, path;

		c2 = c1 ? memchr(c1 + 1, ':', (size_t)(line.p + line.n - c1 - 1)) : NULL;
		if (!c2)
			continue;
		ctrl = (struct gd_slice){ c1 + 1, (size_t)(c2 - c1 - 1) };
		path = (struct gd_slice){ c2 + 1, (size_t)(line.p + line.n - c2 - 1) };
		if (path.n == 0 || path.p[0] != '/')
			continue;
		if (ctrl.n == 0 && c1 - line.p == 1 && line.p[0] == '0') {
			gd_tok_copy(p->v2, sizeof p->v2, path);
			p->has_v2 = true;
		}
		if (!p->has_cpu && gd_list_has(ctrl, ',', "cpu")) {
			gd_tok_copy(p->cpu, sizeof p->cpu, path);
			p->has_cpu = true;
		}
		if (!p->has_mem && gd_list_has(ctrl, ',', "memory")) {
			gd_tok_copy(p->mem, sizeof p->mem, path);
			p->has_mem = true;
		}
	}
	return 0;
}

/* The group's directory under the mount, relative to the root; false when
 * the group lies outside what this namespace's mount shows. */
static bool group_dir(const struct hier *h, const char *path, char *dir, size_t dirsz)
{
	size_t rl = strlen(h->root);
	const char *rest = path;

	if (!h->mount[0] || strstr(path, "/..") != NULL)
		return false;
	if (!(rl == 1 && h->root[0] == '/')) {
		if (strncmp(path, h->root, rl) != 0 || (path[rl] != '/' && path[rl] != '\0'))
			return false;
		rest = path + rl;
	}
	if (strcmp(rest, "/") == 0)
		rest = "";
	return snprintf(dir, dirsz, "%s%s", h->mount, rest) < (int)dirsz;
}

/* Reads one number (or "max") from dir/file.  Returns 1 with *v set, 2 for
 * "max", 0 when the file does not exist, -1 when it failed (noted). */
static int read_value(const struct gd_collect_ctx *ctx, const char *dir, const char *file, int64_t *v,
		      struct cg_tally *t)
{
	char rel[1100], line[64];
	int rc;

	snprintf(rel, sizeof rel, "%s/%s", dir, file);
	rc = gd_root_read_line(ctx->root, rel, line, sizeof line);
	if (rc == -ENOENT)
		return 0;
	if (rc < 0) {
		note(t, rc, "%s: %s", rel, strerror(-rc));
		return -1;
	}
	if (strcmp(line, "max") == 0)
		return 2;
	if (!gd_tok_i64(gd_tok_trim((struct gd_slice){ line, strlen(line) }), v)) {
		note(t, -EINVAL, _("%s: \"%s\" is not a number"), rel, line);
		return -1;
	}
	return 1;
}

/* Reads dir/file whole and runs parse over it into the last record. */
static void read_flat(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, const char *dir, const char *file,
		      gd_parse_fn parse, struct cg_tally *t)
{
	char rel[1100], buf[4096];
	size_t len;
	struct gd_err e;
	int rc;

	snprintf(rel, sizeof rel, "%s/%s", dir, file);
	rc = gd_proc_read_small(ctx->root, rel, buf, sizeof buf, &len);
	if (rc == -ENOENT)
		return;
	if (rc < 0) {
		note(t, rc, "%s: %s", rel, strerror(-rc));
		return;
	}
	gd_err_clear(&e);
	if (parse(buf, len, s, &e) != 0)
		note(t, e.code ? e.code : -EINVAL, "%s: %s", rel, e.msg);
}

/* Reads dir/file into f when it holds a number >= 0.  "max", a missing
 * file and, where minus_one_unlimited, v1's -1 leave f absent; any other
 * negative number is malformed. */
static void read_field(const struct gd_collect_ctx *ctx, const char *dir, const char *file, struct gd_u64 *f,
		       bool minus_one_unlimited, struct cg_tally *t)
{
	int64_t v = 0;

	if (read_value(ctx, dir, file, &v, t) != 1)
		return;
	if (v >= 0)
		gd_u64_set(f, (uint64_t)v);
	else if (!(v == -1 && minus_one_unlimited))
		note(t, -EINVAL, _("%s/%s: %lld is negative"), dir, file, (long long)v);
}

static void fill_v2(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, const char *dir, struct cg_tally *t)
{
	struct gd_cgroup *cg = last_cgroup(s);
	char rel[1100], line[128];
	struct gd_slice f[3];
	uint64_t u;
	int rc;

	snprintf(rel, sizeof rel, "%s/cpu.max", dir);
	rc = gd_root_read_line(ctx->root, rel, line, sizeof line);
	if (rc == 0) {
		struct gd_slice l = { line, strlen(line) };
		uint64_t quota = 0;
		bool unlimited = false;

		if (gd_tok_split(l, f, 3) == 2 && gd_tok_u64(f[1], &u) &&
		    ((unlimited = gd_tok_eq(f[0], "max")) || gd_tok_u64(f[0], &quota))) {
			/* "max": unlimited, the quota stays absent. */
			if (!unlimited)
				gd_u64_set(&cg->cpu_quota_us, quota);
			gd_u64_set(&cg->cpu_period_us, u);
		} else {
			note(t, -EINVAL, _("%s: \"%s\" is not \"QUOTA PERIOD\""), rel, line);
		}
	} else if (rc != -ENOENT) {
		note(t, rc, "%s: %s", rel, strerror(-rc));
	}
	read_flat(ctx, s, dir, "cpu.stat", gd_parse_cgroup_cpu_stat, t);
	read_field(ctx, dir, "memory.current", &cg->mem_current_bytes, false, t);
	read_field(ctx, dir, "memory.max", &cg->mem_max_bytes, false, t);
	read_field(ctx, dir, "memory.high", &cg->mem_high_bytes, false, t);
	read_flat(ctx, s, dir, "memory.events", gd_parse_cgroup_memory_events, t);
}

static void fill_v1(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, const char *cpudir, const char *memdir,
		    struct cg_tally *t)
{
	struct gd_cgroup *cg = last_cgroup(s);

	if (cpudir) {
		/* -1 is unlimited: the quota stays absent. */
		read_field(ctx, cpudir, "cpu.cfs_quota_us", &cg->cpu_quota_us, true, t);
		read_field(ctx, cpudir, "cpu.cfs_period_us", &cg->cpu_period_us, false, t);
		read_flat(ctx, s, cpudir, "cpu.stat", gd_parse_cgroup_cpu_stat, t);
	}
	if (memdir) {
		read_field(ctx, memdir, "memory.usage_in_bytes", &cg->mem_current_bytes, false, t);
		read_field(ctx, memdir, "memory.limit_in_bytes", &cg->mem_max_bytes, false, t);
		if (cg->mem_max_bytes.ok && cg->mem_max_bytes.v >= V1_UNLIMITED)
			cg->mem_max_bytes.ok = false;
		read_field(ctx, memdir, "memory.failcnt", &cg->mem_events_max, false, t);
		read_flat(ctx, s, memdir, "memory.oom_control", gd_parse_cgroup_memory_events, t);
	}
}

static bool same_group(const struct gd_cgroup *a, const char *version, const char *path, const char *mpath)
{
	return strcmp(a->version, version) == 0 && strcmp(a->path, path) == 0 && strcmp(a->memory_path, mpath) == 0;
}

/* Adds (or marks) the group of the process whose cgroup file is rel. */
static void add_group(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, size_t first, const struct hiers *h,
		      const char *rel, const struct gd_u64 *pid, bool self, struct cg_tally *t)
{
	struct cg_paths p;
	struct gd_cgroup *cg;
	const char *version, *path, *mpath;
	char cpudir[1040], memdir[1040];
	bool v1cpu, v1mem;
	int rc = read_paths(ctx, rel, &p);

	if (rc < 0) {
		if (self || (rc != -ENOENT && rc != -ESRCH))
			note(t, rc, "/%s: %s", rel, strerror(-rc));
		return;
	}
	v1cpu = p.has_cpu && group_dir(&h->cpu, p.cpu, cpudir, sizeof cpudir);
	v1mem = p.has_mem && group_dir(&h->mem, p.mem, memdir, sizeof memdir);
	if ((p.has_cpu && h->cpu.mount[0]) || (p.has_mem && h->mem.mount[0])) {
		version = "v1";
		path = p.has_cpu ? p.cpu : "";
		mpath = p.has_mem ? p.mem : "";
	} else if (p.has_v2 && h->v2.mount[0]) {
		version = "v2";
		path = mpath = p.v2;
	} else {
		note(t, -ENOENT, "/%s: %s", rel, _("no group on a mounted cpu or memory hierarchy"));
		return;
	}
	for (size_t i = first; i < s->cgroups.n; i++) {
		cg = GD_VEC_AT(s->cgroups, struct gd_cgroup, i);
		if (same_group(cg, version, path, mpath)) {
			if (self)
				gd_u64_set(&cg->self, 1);
			return;
		}
	}
	cg = GD_PUSH(s, cgroups, struct gd_cgroup);
	GD_STRSET(cg->version, version);
	GD_STRSET(cg->path, path);
	GD_STRSET(cg->memory_path, mpath);
	cg->pid = *pid;
	gd_u64_set(&cg->self, self ? 1 : 0);
	if (version[1] == '2') {
		if (!group_dir(&h->v2, p.v2, cpudir, sizeof cpudir)) {
			note(t, -ENOENT, "cgroup %s: %s", p.v2, _("outside the cgroup2 mount this namespace sees"));
			return;
		}
		if (!gd_root_exists(ctx->root, cpudir)) {
			note(t, -ENOENT, "%s: %s", cpudir, _("cgroup directory not found"));
			return;
		}
		fill_v2(ctx, s, cpudir, t);
		return;
	}
	if ((p.has_cpu && h->cpu.mount[0] && !v1cpu) || (p.has_mem && h->mem.mount[0] && !v1mem))
		note(t, -ENOENT, "cgroup %s: %s", p.has_mem ? p.mem : p.cpu, _("outside the v1 mount this namespace sees"));
	if (v1cpu && !gd_root_exists(ctx->root, cpudir)) {
		note(t, -ENOENT, "%s: %s", cpudir, _("cgroup directory not found"));
		v1cpu = false;
	}
	if (v1mem && !gd_root_exists(ctx->root, memdir)) {
		note(t, -ENOENT, "%s: %s", memdir, _("cgroup directory not found"));
		v1mem = false;
	}
	fill_v1(ctx, s, v1cpu ? cpudir : NULL, v1mem ? memdir : NULL, t);
}

enum gd_src_status gd_collect_cgroups(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct cg_tally t = { 0 };
	struct hiers h;
	struct gd_u64 self_pid = s->host.self_pid;
	char *buf, rel[64], link[32];
	size_t len, first = s->cgroups.n;
	uint64_t pid;
	int rc = gd_root_read(ctx->root, "proc/self/mountinfo", &buf, &len, GD_READ_CAP);

	if (rc < 0) {
		gd_err_set(err, rc, "/proc/self/mountinfo: %s", strerror(-rc));
		return gd_src_status_of_errno(rc);
	}
	find_hiers(buf, len, &h);
	free(buf);
	if (!h.v2.mount[0] && !h.cpu.mount[0] && !h.mem.mount[0]) {
		gd_err_set(err, -ENOENT, _("no cgroup2 mount and no v1 cpu or memory mount in /proc/self/mountinfo"));
		return GD_SRC_ABSENT;
	}
	GD_VEC_EACH(s->procs, const struct gd_proc, p) {
		if (!p->pid.ok || !p->nvidia_fds.ok || p->nvidia_fds.v == 0)
			continue;
		snprintf(rel, sizeof rel, "proc/%llu/cgroup", (unsigned long long)p->pid.v);
		add_group(ctx, s, first, &h, rel, &p->pid, false, &t);
	}
	if (gd_root_readlink(ctx->root, "proc/self", link, sizeof link) > 0 &&
	    gd_tok_u64((struct gd_slice){ link, strlen(link) }, &pid))
		gd_u64_set(&self_pid, pid);
	add_group(ctx, s, first, &h, "proc/self/cgroup", &self_pid, true, &t);

	if (t.problems == 0)
		return GD_SRC_OK;
	if (t.problems > 1)
		gd_err_set(err, t.first_code, _("%s (and %zu more problems)"), t.first_msg, t.problems - 1);
	else
		gd_err_set(err, t.first_code, "%s", t.first_msg);
	return s->cgroups.n > first ? GD_SRC_PARTIAL : gd_src_status_of_errno(t.first_code);
}
