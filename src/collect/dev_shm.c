/*
 * dev_shm.c - /dev/shm as each GPU job sees it: /proc/<pid>/mountinfo
 * (Linux 2.6.26) and statvfs of /proc/<pid>/root/dev/shm.
 *
 *   mountinfo, one mount per line (mount points octal-escaped, "\040" = ' '):
 *     1067 1049 0:136 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=65536k
 *     id parent maj:min root mountpoint options [optional fields...] - fstype source superoptions
 *
 * A container gets its own /dev/shm (Docker's default is 64 MiB), which is
 * what PyTorch data-loader workers pass batches through, so the one that
 * matters is the one in the job's mount namespace, not gpudoctor's.  One
 * record per distinct mount namespace among GPU jobs; with no GPU job,
 * one for gpudoctor's own namespace (proc/self).
 *
 * Size comes from mountinfo's size= option; use and an exact capacity come
 * from statvfs through /proc/<pid>/root, a link into the process's mount
 * namespace on a live host.  That statvfs is only trusted when statfs says
 * the directory is tmpfs (TMPFS_MAGIC): on a fixture tree it is not, so
 * there only the mountinfo size is recorded and used_bytes stays absent, by
 * design.  Entering another user's root needs ptrace permission (root).
 */
#include "collect/collectors.h"
#include "collect/proc_pid.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"

/* include/uapi/linux/magic.h */
#define GD_TMPFS_MAGIC 0x01021994ul

static struct gd_shm *last_shm(struct gd_snapshot *s)
{
	if (s->shm.n == 0)
		return GD_PUSH(s, shm, struct gd_shm);
	return GD_VEC_AT(s->shm, struct gd_shm, s->shm.n - 1);
}

static bool octal_digit(char c)
{
	return c >= '0' && c <= '7';
}

/* Undoes the kernel's octal escapes of ' ', '\t', '\n' and '\\'. */
void gd_unescape_octal(char *dst, size_t dstsz, struct gd_slice s)
{
	size_t o = 0;

	for (size_t i = 0; i < s.n && o + 1 < dstsz; i++) {
		if (s.p[i] == '\\' && i + 3 < s.n && s.p[i + 1] <= '3' && octal_digit(s.p[i + 1]) &&
		    octal_digit(s.p[i + 2]) && octal_digit(s.p[i + 3])) {
			dst[o++] = (char)((s.p[i + 1] - '0') * 64 + (s.p[i + 2] - '0') * 8 + (s.p[i + 3] - '0'));
			i += 3;
		} else {
			dst[o++] = s.p[i];
		}
	}
	dst[o] = '\0';
}

/* "size=65536k" among the super options → bytes.  Returns 1 when found and
 * valid, 0 when there is no size= (an unlimited tmpfs), -1 when malformed. */
static int super_size(struct gd_slice opts, uint64_t *bytes)
{
	size_t i = 0;

	while (i < opts.n) {
		const char *c = memchr(opts.p + i, ',', opts.n - i);
		size_t end = c ? (size_t)(c - opts.p) : opts.n;
		struct gd_slice v = { opts.p + i + 5, 0 };
		uint64_t mult = 1, n;

		if (end - i > 5 && memcmp(opts.p + i, "size=", 5) == 0) {
			v.n = end - i - 5;
			switch (v.p[v.n - 1]) {
			case 'k':
			case 'K':
				mult = 1ull << 10;
				break;
			case 'm':
			case 'M':
				mult = 1ull << 20;
				break;
			case 'g':
			case 'G':
				mult = 1ull << 30;
				break;
			default:
				break;
			}
			if (mult > 1)
				v.n--;
			if (!gd_tok_u64(v, &n) || n > UINT64_MAX / mult)
				return -1;
			*bytes = n * mult;
			return 1;
		}
		i = end + 1;
	}
	return 0;
}

bool gd_mountinfo_split(struct gd_slice line, struct gd_mountinfo_line *m)
{
	struct gd_slice f[40];
	size_t n = gd_tok_split(line, f, 40), sep = 0;

	/* Optional fields ("shared:1 master:2") sit between the options and
	 * the "-" separator: find it from the seventh field on. */
	for (size_t i = 6; i < n; i++)
		if (gd_tok_eq(f[i], "-")) {
			sep = i;
			break;
		}
	if (sep == 0 || sep + 3 >= n)
		return false;
	m->root = f[3];
	m->mountpoint = f[4];
	m->fstype = f[sep + 1];
	m->source = f[sep + 2];
	m->superopts = f[sep + 3];
	return true;
}

int gd_parse_proc_pid_mountinfo(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_shm *sh = last_shm(s);
	struct gd_lines it;
	struct gd_slice line;
	struct gd_mountinfo_line m;
	char mp[512], fstype[32] = "";
	size_t entries = 0, bad = 0;
	uint64_t size = 0;
	int have_size = 0;
	bool found = false;

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("holds binary data (a NUL byte), not mountinfo"));
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		if (gd_tok_trim(line).n == 0)
			continue;
		if (!gd_mountinfo_split(line, &m)) {
			if (!bad++)
				gd_err_set(err, -EINVAL,
					   _("line %zu: not \"id parent maj:min root mountpoint options ... - fstype source options\""),
					   it.lineno);
			continue;
		}
		entries++;
		gd_unescape_octal(mp, sizeof mp, m.mountpoint);
		if (strcmp(mp, "/dev/shm") != 0)
			continue;
		/* The last entry wins: it is the one mounted on top. */
		found = true;
		gd_tok_copy(fstype, sizeof fstype, m.fstype);
		have_size = super_size(m.superopts, &size);
		if (have_size < 0 && !bad++)
			gd_err_set(err, -EINVAL, _("line %zu: size option of /dev/shm is not a number"), it.lineno);
	}
	if (entries == 0)
		return bad ? -EINVAL : gd_err_set(err, -ENODATA, _("no mount entries"));
	sh->size_bytes.ok = false;
	gd_u64_set(&sh->mounted, found ? 1 : 0);
	GD_STRSET(sh->fstype, fstype);
	if (found && have_size > 0)
		gd_u64_set(&sh->size_bytes, size);
	return bad ? 1 : 0;
}

/* ---- the collector --------------------------------------------------- */

struct shm_tally {
	size_t failed;
	int first_code;
	char first_msg[GD_ERR_MSG_MAX / 2];
};

static void fail(struct shm_tally *t, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(struct shm_tally *t, int code, const char *fmt, ...)
{
	va_list ap;

	if (t->failed++)
		return;
	t->first_code = code;
	va_start(ap, fmt);
	vsnprintf(t->first_msg, sizeof t->first_msg, fmt, ap);
	va_end(ap);
}

/* Fills the last shm record from <base>/mountinfo and statvfs of
 * <base>/root/dev/shm; base is "proc/<pid>" or "proc/self".  Drops the
 * record when the process has exited. */
static void shm_one(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, const char *base, struct shm_tally *t)
{
	char rel[96];
	char *buf;
	size_t len;
	struct gd_err e;
	struct gd_shm *sh;
	struct statvfs vfs;
	unsigned long type;
	int rc;

	snprintf(rel, sizeof rel, "%s/mountinfo", base);
	rc = gd_root_read(ctx->root, rel, &buf, &len, GD_READ_CAP);
	if (rc == -ENOENT || rc == -ESRCH) {
		s->shm.n--;   /* exited: nothing to say about its namespace */
		if (strcmp(base, "proc/self") == 0)
			fail(t, rc, "/%s: %s", rel, strerror(-rc));
		return;
	}
	if (rc < 0) {
		fail(t, rc, "/%s: %s", rel, strerror(-rc));
		return;
	}
	gd_err_clear(&e);
	rc = gd_parse_proc_pid_mountinfo(buf, len, s, &e);
	free(buf);
	if (rc != 0)
		fail(t, rc < 0 ? rc : -EINVAL, "/%s: %s", rel, e.msg);
	sh = GD_VEC_AT(s->shm, struct gd_shm, s->shm.n - 1);
	if (!sh->mounted.ok || !sh->mounted.v)
		return;
	snprintf(rel, sizeof rel, "%s/root/dev/shm", base);
	if (gd_root_statfs_type(ctx->root, rel, &type) < 0 || type != GD_TMPFS_MAGIC)
		return;
	if (gd_root_statvfs(ctx->root, rel, &vfs) < 0)
		return;
	gd_u64_set(&sh->size_bytes, (uint64_t)vfs.f_blocks * vfs.f_frsize);
	gd_u64_set(&sh->used_bytes, (uint64_t)(vfs.f_blocks - vfs.f_bfree) * vfs.f_frsize);
}

static bool mntns_seen(const struct gd_snapshot *s, size_t from, const char *mntns)
{
	if (!mntns[0])
		return false;   /* unknown namespace: cannot tell two apart */
	for (size_t i = from; i < s->shm.n; i++)
		if (strcmp(GD_VEC_AT(s->shm, struct gd_shm, i)->mntns, mntns) == 0)
			return true;
	return false;
}

enum gd_src_status gd_collect_dev_shm(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct shm_tally t = { 0 };
	size_t first = s->shm.n, jobs = 0;
	char base[64], link[32];

	for (size_t i = 0; i < s->procs.n; i++) {
		const struct gd_proc *p = GD_VEC_AT(s->procs, struct gd_proc, i);
		struct gd_shm *sh;

		if (!p->pid.ok || !p->nvidia_fds.ok || p->nvidia_fds.v == 0)
			continue;
		jobs++;
		if (mntns_seen(s, first, p->mntns))
			continue;
		sh = GD_PUSH(s, shm, struct gd_shm);
		gd_u64_set(&sh->pid, p->pid.v);
		GD_STRSET(sh->mntns, p->mntns);
		gd_u64_set(&sh->gpu_job, 1);
		snprintf(base, sizeof base, "proc/%llu", (unsigned long long)p->pid.v);
		shm_one(ctx, s, base, &t);
	}
	if (jobs == 0) {
		struct gd_shm *sh = GD_PUSH(s, shm, struct gd_shm);
		uint64_t pid;

		/* proc/self is a link to our pid on a live host; a fixture may
		 * make it a plain directory, then host.self_pid says. */
		if (gd_root_readlink(ctx->root, "proc/self", link, sizeof link) > 0 &&
		    gd_tok_u64((struct gd_slice){ link, strlen(link) }, &pid))
			gd_u64_set(&sh->pid, pid);
		else if (s->host.self_pid.ok)
			sh->pid = s->host.self_pid;
		if (gd_root_readlink(ctx->root, "proc/self/ns/mnt", sh->mntns, sizeof sh->mntns) < 0)
			sh->mntns[0] = '\0';
		gd_u64_set(&sh->gpu_job, 0);
		shm_one(ctx, s, "proc/self", &t);
	}
	if (t.failed == 0)
		return GD_SRC_OK;
	if (t.failed > 1)
		gd_err_set(err, t.first_code, _("%s (and %zu more namespaces)"), t.first_msg, t.failed - 1);
	else
		gd_err_set(err, t.first_code, "%s", t.first_msg);
	if (s->shm.n == first)
		return gd_src_status_of_errno(t.first_code);
	for (size_t i = first; i < s->shm.n; i++)
		if (GD_VEC_AT(s->shm, struct gd_shm, i)->mounted.ok)
			return GD_SRC_PARTIAL;
	return t.first_code == -EACCES || t.first_code == -EPERM ? GD_SRC_DENIED : GD_SRC_FAILED;
}
