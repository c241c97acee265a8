/*
 * sys_cpu.c - CPU topology: sockets, cores, NUMA nodes and the model name.
 *
 * Primary source, sysfs (2.6.16+ for topology/; node/ needs CONFIG_NUMA):
 *
 *   /sys/devices/system/cpu/cpu3/topology/physical_package_id   "0"
 *   /sys/devices/system/cpu/cpu3/topology/core_id               "1"
 *   /sys/devices/system/node/node0/cpulist                      "0-3,8-11"
 *   /sys/devices/system/cpu/cpu3/node0 -> ../../node/node0      (the same, per CPU)
 *
 * sockets is the number of distinct package ids and cores the number of
 * distinct (package, core) pairs among the CPUs in cpus[] (the online ones,
 * from /proc/stat; when that list is empty the cpuN directories are used).
 * physical_package_id is -1 where the firmware does not say (some arm64):
 * that is recorded as unknown, not as package 4294967295.
 *
 * /proc/cpuinfo (every kernel, x86 layout) gives the model name, and the
 * topology where sysfs is missing (an old container root, a fixture):
 *
 *     processor	: 0
 *     model name	: AMD EPYC 7763 64-Core Processor
 *     physical id	: 0
 *     core id		: 0
 *     cpu cores	: 64
 *
 * Values already taken from sysfs are never overwritten by cpuinfo.
 */
#include "collect/collectors.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/tok.h"
#include "core/xalloc.h"

#define CPU_DIR "sys/devices/system/cpu"
#define NODE_DIR "sys/devices/system/node"

/* ---- small helpers ----------------------------------------------------- */

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

/* A name like "cpu12" or "node3": the number after prefix, strictly. */
static bool numbered(const char *name, const char *prefix, uint64_t *n)
{
	size_t pl = strlen(prefix);
	struct gd_slice num = { name + pl, 0 };

	if (strncmp(name, prefix, pl) != 0)
		return false;
	num.n = strlen(num.p);
	return gd_tok_u64(num, n);
}

/* Reads a one-integer sysfs file strictly (decimal, no junk). */
static int read_int(const struct gd_root *root, const char *rel, int64_t *out)
{
	char line[64];
	int rc = gd_root_read_line(root, rel, line, sizeof line);
	struct gd_slice s = { line, 0 };

	if (rc < 0)
		return rc;
	s.n = strlen(line);
	return gd_tok_i64(gd_tok_trim(s), out) ? 0 : -EINVAL;
}

struct pair {
	uint64_t a, b;
};

static int pair_cmp(const void *x, const void *y)
{
	const struct pair *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return 0;
}

/* Number of distinct pairs (sorts p); with by_a only, distinct first members. */
static uint64_t distinct(struct pair *p, size_t n, bool by_a)
{
	uint64_t count = 0;

	qsort(p, n, sizeof *p, pair_cmp);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || p[i].a != p[i - 1].a || (!by_a && p[i].b != p[i - 1].b))
			count++;
	return count;
}

static int cpus_cmp(const void *x, const void *y)
{
	const struct gd_cpus *p = x, *q = y;

	return p->cpu.v < q->cpu.v ? -1 : p->cpu.v > q->cpu.v;
}

static struct gd_cpus *cpus_find(struct gd_snapshot *s, uint64_t n)
{
	GD_VEC_EACH(s->cpus, struct gd_cpus, it)
		if (it->cpu.ok && it->cpu.v == n)
			return it;
	return NULL;
}

/* ---- /proc/cpuinfo ----------------------------------------------------- */

struct cpuinfo_rec {
	struct gd_u64 processor, physical_id, core_id, cpu_cores;
};

/* Applies the records: counts, packages and sockets/cores where absent. */
static void cpuinfo_apply(const struct cpuinfo_rec *r, size_t n, struct gd_snapshot *s)
{
	struct pair *p = gd_xcalloc(n ? n : 1, sizeof *p);
	size_t with_pkg = 0, with_core = 0, with_cores = 0;

	if (!s->cpu.cpus_online.ok && n)
		gd_u64_set(&s->cpu.cpus_online, n);
	for (size_t i = 0; i < n; i++) {
		struct gd_cpus *c = r[i].processor.ok ? cpus_find(s, r[i].processor.v) : NULL;

		with_pkg += r[i].physical_id.ok;
		with_core += r[i].physical_id.ok && r[i].core_id.ok;
		with_cores += r[i].physical_id.ok && r[i].cpu_cores.ok;
		if (c && r[i].physical_id.ok && !c->package.ok)
			c->package = r[i].physical_id;
	}
	/*
	 * Counts only when every processor said, and cpuinfo lists the CPUs
	 * cpus[] does: a count over some of them is a guess.
	 */
	if (n && with_pkg == n && (!s->cpus.n || s->cpus.n == n)) {
		for (size_t i = 0; i < n; i++)
			p[i] = (struct pair){ r[i].physical_id.v, r[i].core_id.ok ? r[i].core_id.v : 0 };
		if (!s->cpu.sockets.ok)
			gd_u64_set(&s->cpu.sockets, distinct(p, n, true));
		if (!s->cpu.cores.ok && with_core == n) {
			gd_u64_set(&s->cpu.cores, distinct(p, n, false));
		} else if (!s->cpu.cores.ok && with_cores == n) {
			/* No core ids: sum "cpu cores" over the distinct packages. */
			uint64_t cores = 0;

			for (size_t i = 0; i < n; i++)
				p[i] = (struct pair){ r[i].physical_id.v, r[i].cpu_cores.v };
			qsort(p, n, sizeof *p, pair_cmp);
			for (size_t i = 0; i < n; i++)
				if (i == 0 || p[i].a != p[i - 1].a)
					cores += p[i].b;
			gd_u64_set(&s->cpu.cores, cores);
		}
	}
	free(p);
}

int gd_parse_proc_cpuinfo(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line, key, val;
	struct cpuinfo_rec *r = NULL;
	size_t n = 0, cap = 0, bad = 0;
	bool model = false;
	char msg[GD_ERR_MSG_MAX];

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("binary data, not the text of /proc/cpuinfo"));
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		struct gd_u64 *dst = NULL;
		uint64_t v;

		if (gd_tok_trim(line).n == 0)
			continue;
		if (!gd_tok_kv(line, ':', &key, &val)) {
			if (!bad++)
				gd_err_set(err, -EINVAL, _("line %zu: \"%.*s\" is not \"key : value\""), it.lineno,
					   (int)(line.n > 80 ? 80 : line.n), line.p);
			continue;
		}
		if (gd_tok_eq(key, "model name")) {
			if (!model && !s->cpu.model[0])
				gd_tok_copy(s->cpu.model, sizeof s->cpu.model, val);
			model = true;
			continue;
		}
		if (gd_tok_eq(key, "processor")) {
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				r = gd_xreallocarray(r, cap, sizeof *r);
			}
			memset(&r[n++], 0, sizeof *r);
			dst = &r[n - 1].processor;
		} else if (n && gd_tok_eq(key, "physical id")) {
			dst = &r[n - 1].physical_id;
		} else if (n && gd_tok_eq(key, "core id")) {
			dst = &r[n - 1].core_id;
		} else if (n && gd_tok_eq(key, "cpu cores")) {
			dst = &r[n - 1].cpu_cores;
		} else {
			continue;
		}
		if (!gd_tok_u64(val, &v)) {
			if (!bad++)
				gd_err_set(err, -EINVAL, _("line %zu: %.*s is \"%.*s\", not a number"), it.lineno,
					   (int)key.n, key.p, (int)(val.n > 40 ? 40 : val.n), val.p);
			continue;
		}
		gd_u64_set(dst, v);
	}
	cpuinfo_apply(r, n, s);
	free(r);
	if (!n && !model) {
		if (bad)
			return err->code;
		return gd_err_set(err, -ENODATA, _("no processor or model name lines"));
	}
	if (bad > 1) {
		snprintf(msg, sizeof msg, "%s", err->msg);
		gd_err_set(err, -EINVAL, _("%s (and %zu more bad lines)"), msg, bad - 1);
	}
	return bad ? 1 : 0;
}

/* ---- sysfs ------------------------------------------------------------- */

/* With no CPU list from /proc/stat, one entry per cpuN directory. */
static void list_sysfs_cpus(const struct gd_root *root, struct gd_snapshot *s)
{
	DIR *d = gd_root_opendir(root, CPU_DIR);
	struct dirent *de;
	uint64_t n;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (numbered(de->d_name, "cpu", &n) && !cpus_find(s, n))
			gd_u64_set(&GD_PUSH(s, cpus, struct gd_cpus)->cpu, n);
	closedir(d);
	if (s->cpus.n)
		qsort(s->cpus.items, s->cpus.n, sizeof(struct gd_cpus), cpus_cmp);
}

static void sysfs_topology(const struct gd_root *root, struct gd_snapshot *s, char *why, size_t whysz)
{
	struct pair *p = gd_xcalloc(s->cpus.n ? s->cpus.n : 1, sizeof *p);
	size_t n = 0, missing = 0;
	char rel[128];

	GD_VEC_EACH(s->cpus, struct gd_cpus, c) {
		int64_t pkg, core;
		int rc;

		snprintf(rel, sizeof rel, CPU_DIR "/cpu%llu/topology/physical_package_id",
			 (unsigned long long)c->cpu.v);
		rc = read_int(root, rel, &pkg);
		if (rc == 0 && pkg < 0)
			rc = -ENODATA;
		if (rc == 0) {
			gd_u64_set(&c->package, (uint64_t)pkg);
			snprintf(rel, sizeof rel, CPU_DIR "/cpu%llu/topology/core_id", (unsigned long long)c->cpu.v);
			rc = read_int(root, rel, &core);
			if (rc == 0 && core < 0)
				rc = -ENODATA;
			if (rc == 0)
				p[n++] = (struct pair){ (uint64_t)pkg, (uint64_t)core };
		}
		if (rc < 0 && !missing++)
			note(why, whysz, "/%s: %s", rel,
			     rc == -EINVAL ? _("not an integer") : rc == -ENODATA ? _("-1 (unknown)") : strerror(-rc));
	}
	if (!s->cpus.n)
		note(why, whysz, _("no cpuN directory in /%s"), CPU_DIR);
	if (missing > 1)
		note(why, whysz, _("topology unreadable for %zu of %zu CPUs"), missing, s->cpus.n);
	if (n && !missing) {
		gd_u64_set(&s->cpu.cores, distinct(p, n, false));
		gd_u64_set(&s->cpu.sockets, distinct(p, n, true));
	}
	free(p);
}

/* Assigns node to the CPUs of a cpulist ("0-3,8-11", "" for none). */
static bool apply_cpulist(struct gd_snapshot *s, const char *list, uint64_t node)
{
	struct gd_slice all = { list, strlen(list) }, part, lo, hi;

	all = gd_tok_trim(all);
	while (all.n) {
		const char *comma = memchr(all.p, ',', all.n);
		uint64_t a, b;

		part.p = all.p;
		part.n = comma ? (size_t)(comma - all.p) : all.n;
		all.p += part.n + (comma ? 1 : 0);
		all.n -= part.n + (comma ? 1 : 0);
		if (gd_tok_kv(part, '-', &lo, &hi)) {
			if (!gd_tok_u64(lo, &a) || !gd_tok_u64(hi, &b) || b < a)
				return false;
		} else if (gd_tok_u64(gd_tok_trim(part), &a)) {
			b = a;
		} else {
			return false;
		}
		GD_VEC_EACH(s->cpus, struct gd_cpus, c)
			if (c->cpu.v >= a && c->cpu.v <= b)
				gd_u64_set(&c->numa_node, node);
	}
	return true;
}

/* The cpuN/nodeM link, for CPUs a cpulist did not place. */
static void node_links(const struct gd_root *root, struct gd_snapshot *s)
{
	char rel[128];

	GD_VEC_EACH(s->cpus, struct gd_cpus, c) {
		DIR *d;
		struct dirent *de;
		uint64_t node;

		if (c->numa_node.ok)
			continue;
		snprintf(rel, sizeof rel, CPU_DIR "/cpu%llu", (unsigned long long)c->cpu.v);
		d = gd_root_opendir(root, rel);
		if (!d)
			continue;
		while ((de = readdir(d)))
			if (numbered(de->d_name, "node", &node)) {
				gd_u64_set(&c->numa_node, node);
				break;
			}
		closedir(d);
	}
}

static void sysfs_numa(const struct gd_root *root, struct gd_snapshot *s, char *why, size_t whysz)
{
	DIR *d = gd_root_opendir(root, NODE_DIR);
	struct dirent *de;
	uint64_t nodes = 0, node, unplaced = 0;
	bool lists_ok = true;
	char rel[128], list[4096];

	if (!d) {
		note(why, whysz, "/" NODE_DIR ": %s", errno == ENOENT ? _("absent (kernel without CONFIG_NUMA?)") :
								      strerror(errno));
		return;
	}
	while ((de = readdir(d))) {
		int rc;

		if (!numbered(de->d_name, "node", &node))
			continue;
		nodes++;
		snprintf(rel, sizeof rel, NODE_DIR "/node%llu/cpulist", (unsigned long long)node);
		rc = gd_root_read_line(root, rel, list, sizeof list);
		if (rc < 0 || !apply_cpulist(s, list, node)) {
			if (lists_ok)
				note(why, whysz, "/%s: %s", rel, rc < 0 ? strerror(-rc) : _("not a CPU list"));
			lists_ok = false;
		}
	}
	closedir(d);
	if (nodes)
		gd_u64_set(&s->cpu.numa_nodes, nodes);
	else
		note(why, whysz, _("no nodeN directory in /%s"), NODE_DIR);
	if (!lists_ok)
		node_links(root, s);
	GD_VEC_EACH(s->cpus, struct gd_cpus, c)
		unplaced += !c->numa_node.ok;
	if (nodes && unplaced)
		note(why, whysz, _("%llu CPUs in no NUMA node"), (unsigned long long)unplaced);
}

enum gd_src_status gd_collect_cpu_topology(const struct gd_collect_ctx *ctx, struct gd_snapshot *s,
					   struct gd_err *err)
{
	char why[GD_ERR_MSG_MAX] = "";
	bool sysfs = gd_root_exists(ctx->root, CPU_DIR), info = false;
	char *buf;
	size_t len;
	int rc;

	if (sysfs) {
		if (s->cpus.n == 0)
			list_sysfs_cpus(ctx->root, s);
		sysfs_topology(ctx->root, s, why, sizeof why);
	} else {
		note(why, sizeof why, _("/%s absent: topology from /proc/cpuinfo"), CPU_DIR);
	}
	sysfs_numa(ctx->root, s, why, sizeof why);

	rc = gd_root_read(ctx->root, "proc/cpuinfo", &buf, &len, GD_READ_CAP);
	if (rc == 0) {
		struct gd_err perr;

		gd_err_clear(&perr);
		rc = gd_parse_proc_cpuinfo(buf, len, s, &perr);
		free(buf);
		info = rc >= 0;
		if (rc != 0)
			note(why, sizeof why, "/proc/cpuinfo: %s", perr.msg);
	} else {
		note(why, sizeof why, "/proc/cpuinfo: %s", strerror(-rc));
	}
	/* No "model name" is normal on arm64 (Grace): the field stays absent. */
	if (!sysfs && !info && !s->cpu.numa_nodes.ok) {
		gd_err_set(err, -ENOENT, "%s", why);
		return GD_SRC_ABSENT;
	}
	if (why[0]) {
		gd_err_set(err, -EINVAL, "%s", why);
		return GD_SRC_PARTIAL;
	}
	return GD_SRC_OK;
}
