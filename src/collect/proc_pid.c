/*
 * proc_pid.c - every process: /proc/<pid>/{stat,status,io,cgroup,cmdline},
 * the namespaces in /proc/<pid>/ns and the files it holds in /proc/<pid>/fd.
 *
 *   stat (Linux 1.0; fields through rss unchanged since 2.2):
 *     1234 (python3) S 1200 1234 1200 0 -1 4194560 52117 0 3 0 8120 950 0 0 20 0 9 0 812345 ...
 *     pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
 *     utime stime cutime cstime priority nice num_threads itrealvalue starttime vsize rss ...
 *     comm is any 15 bytes, spaces and ')' included: split after the LAST ')'.
 *   status (Uid line since 1.x):  "Uid:\t1000\t1000\t1000\t1000" (real, effective, saved, fs)
 *     and "Cpus_allowed_list:\t0-7" (2.6.26; the CPUs its affinity allows)
 *   io (2.6.20, CONFIG_TASK_IO_ACCOUNTING): "rchar: 323934931" ... "write_bytes: 323932160";
 *     another user's needs ptrace-read permission (EACCES otherwise).
 *   cgroup (2.6.24; the v2 "0::" line 4.5): "0::/system.slice/docker-ab.scope" or
 *     v1 "4:cpu,cpuacct:/docker/abc".
 *   cmdline: arguments separated by NUL bytes (empty for kernel threads).
 *   ns/mnt, ns/net (3.8): symlinks "mnt:[4026531840]", "net:[4026531992]".
 *   fd/<n>: symlinks to "/dev/nvidia0", "/mnt/data/shard-0001.tar", "socket:[1234]", ...
 *
 * GPU jobs are processes holding /dev/nvidia<N> (the per-GPU device; not
 * nvidiactl or nvidia-uvm).  An open regular file under a network or FUSE
 * mount (from snapshot->mounts, which the proc_mounts collector filled
 * before this one runs) counts into netfs_fds.  The mount table is
 * gpudoctor's own namespace's: a containerised job's paths are matched
 * against the host's mounts, which is right for bind-mounted data sets and
 * can miss mounts that exist only inside the container.
 *
 * Cheap by design: one read buffer reused for every file, getdents64 on it
 * for the fd directory, no allocation per process beyond its record.
 */
#include "collect/collectors.h"
#include "collect/proc_pid.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cpulist.h"
#include "core/i18n.h"
#include "core/xalloc.h"

#define BUF_CAP 16384

/* ---- shared helpers (proc_pid.h) ----------------------------------- */

int gd_proc_read_small(const struct gd_root *r, const char *rel, char *buf, size_t cap, size_t *len)
{
	int fd = gd_root_openat(r, rel, O_RDONLY);
	size_t n = 0;

	*len = 0;
	buf[0] = '\0';
	if (fd < 0)
		return fd;
	while (n + 1 < cap) {
		ssize_t got = read(fd, buf + n, cap - 1 - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = -errno;

			close(fd);
			return e;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return n + 1 >= cap ? 1 : 0;
}

bool gd_list_has(struct gd_slice list, char sep, const char *tok)
{
	size_t i = 0;

	while (i <= list.n) {
		const char *c = memchr(list.p + i, sep, list.n - i);
		size_t end = c ? (size_t)(c - list.p) : list.n;
		struct gd_slice item = { list.p + i, end - i };

		if (gd_tok_eq(item, tok))
			return true;
		i = end + 1;
	}
	return false;
}

bool gd_all_digits(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++)
		if (*name < '0' || *name > '9')
			return false;
	return true;
}

int gd_pid_stat_parse(const char *buf, size_t len, struct gd_pid_stat *st, struct gd_err *err)
{
	const char *open, *close;
	struct gd_slice head, rest, f[22];
	size_t n;
	struct {
		size_t idx;
		uint64_t *dst;
		const char *name;
	} nums[] = {
		{ 1, &st->ppid, "ppid" }, { 6, &st->flags, "flags" }, { 11, &st->utime, "utime" },
		{ 12, &st->stime, "stime" }, { 17, &st->num_threads, "num_threads" },
		{ 19, &st->starttime, "starttime" }, { 21, &st->rss_pages, "rss" },
	};

	memset(st, 0, sizeof *st);
	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("holds binary data (a NUL byte), not a stat line"));
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	if (len == 0)
		return gd_err_set(err, -EINVAL, _("empty"));
	open = memchr(buf, '(', len);
	close = memrchr(buf, ')', len);
	if (!open || !close || close < open)
		return gd_err_set(err, -EINVAL, _("no \"(comm)\" field"));
	head = gd_tok_trim((struct gd_slice){ buf, (size_t)(open - buf) });
	if (!gd_tok_u64(head, &st->pid))
		return gd_err_set(err, -EINVAL, _("pid \"%.*s\" is not a number"), (int)(head.n > 32 ? 32 : head.n),
				  head.p);
	gd_tok_copy(st->comm, sizeof st->comm, (struct gd_slice){ open + 1, (size_t)(close - open - 1) });
	rest.p = close + 1;
	rest.n = (size_t)(buf + len - rest.p);
	n = gd_tok_split(rest, f, 22);
	if (n < 22)
		return gd_err_set(err, -EINVAL, _("only %zu fields after the command name, 22 needed (through rss)"), n);
	if (f[0].n != 1)
		return gd_err_set(err, -EINVAL, _("state \"%.*s\" is not one letter"), (int)(f[0].n > 8 ? 8 : f[0].n),
				  f[0].p);
	gd_tok_copy(st->state, sizeof st->state, f[0]);
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
		if (!gd_tok_u64(f[nums[i].idx], nums[i].dst))
			return gd_err_set(err, -EINVAL, _("field %zu (%s) \"%.*s\" is not a number"), nums[i].idx + 3,
					  nums[i].name, (int)(f[nums[i].idx].n > 32 ? 32 : f[nums[i].idx].n),
					  f[nums[i].idx].p);
	return 0;
}

/* ---- parsers --------------------------------------------------------- */

/* The record the per-process parsers fill: the last one (a zeroed one is
 * pushed when there is none, so the fuzz harness can call them alone). */
static struct gd_proc *last_proc(struct gd_snapshot *s)
{
	if (s->procs.n == 0)
		return GD_PUSH(s, procs, struct gd_proc);
	return GD_VEC_AT(s->procs, struct gd_proc, s->procs.n - 1);
}

static void stat_to_proc(const struct gd_pid_stat *st, struct gd_proc *p, const struct gd_snapshot *s)
{
	gd_u64_set(&p->pid, st->pid);
	gd_u64_set(&p->ppid, st->ppid);
	GD_STRSET(p->comm, st->comm);
	GD_STRSET(p->state, st->state);
	gd_u64_set(&p->kthread, (st->flags & GD_PF_KTHREAD) ? 1 : 0);
	gd_u64_set(&p->utime_ticks, st->utime);
	gd_u64_set(&p->stime_ticks, st->stime);
	gd_u64_set(&p->num_threads, st->num_threads);
	gd_u64_set(&p->starttime_ticks, st->starttime);
	/* rss is in pages: without the page size it stays absent. */
	if (s->host.page_size_bytes.ok && s->host.page_size_bytes.v &&
	    st->rss_pages <= UINT64_MAX / s->host.page_size_bytes.v)
		gd_u64_set(&p->rss_bytes, st->rss_pages * s->host.page_size_bytes.v);
}

int gd_parse_proc_pid_stat(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_pid_stat st;
	struct gd_proc *p = last_proc(s);
	int rc = gd_pid_stat_parse(buf, len, &st, err);

	if (rc < 0)
		return rc;
	stat_to_proc(&st, p, s);
	return 0;
}

int gd_parse_proc_pid_status(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_proc *p = last_proc(s);
	struct gd_lines it;
	struct gd_slice line, key, val, f[4];
	uint64_t uid;
	bool have_uid = false;

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("holds binary data (a NUL byte)"));
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		if (!gd_tok_kv(line, ':', &key, &val))
			continue;
		if (gd_tok_eq(key, "Cpus_allowed_list")) {
			/* "0-7" or "0-3,8-11"; kept verbatim when it fits, else
			 * absent (a cut list would be a guess).  Rules parse it. */
			if (!gd_cpulist_valid(val))
				return gd_err_set(err, -EINVAL, _("line %zu: Cpus_allowed_list \"%.*s\" is not a CPU list"),
						  it.lineno, (int)(val.n > 40 ? 40 : val.n), val.p);
			if (val.n < sizeof p->cpus_allowed)
				gd_tok_copy(p->cpus_allowed, sizeof p->cpus_allowed, val);
			continue;
		}
		if (!gd_tok_eq(key, "Uid") || have_uid)
			continue;
		/* Real, effective, saved set, filesystem: the first is real. */
		if (gd_tok_split(val, f, 4) < 1 || !gd_tok_u64(f[0], &uid))
			return gd_err_set(err, -EINVAL, _("line %zu: Uid \"%.*s\" is not a number"), it.lineno,
					  (int)(val.n > 40 ? 40 : val.n), val.p);
		gd_u64_set(&p->uid, uid);
		have_uid = true;
	}
	return have_uid ? 0 : gd_err_set(err, -ENODATA, _("no Uid line"));
}

int gd_parse_proc_pid_io(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_proc *p = last_proc(s);
	const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "rchar", offsetof(struct gd_proc, rchar_bytes) },
		{ "wchar", offsetof(struct gd_proc, wchar_bytes) },
		{ "read_bytes", offsetof(struct gd_proc, read_bytes) },
		{ "write_bytes", offsetof(struct gd_proc, write_bytes) },
	};
	struct gd_lines it;
	struct gd_slice line, key, val;
	size_t found = 0, bad = 0;

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("holds binary data (a NUL byte)"));
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		uint64_t v;

		if (gd_tok_trim(line).n == 0)
			continue;
		if (!gd_tok_kv(line, ':', &key, &val)) {
			if (!bad++)
				gd_err_set(err, -EINVAL, _("line %zu: no \"key: value\""), it.lineno);
			continue;
		}
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
			if (!gd_tok_eq(key, keys[i].key))
				continue;
			if (!gd_tok_u64(val, &v)) {
				if (!bad++)
					gd_err_set(err, -EINVAL, _("line %zu: %s \"%.*s\" is not a number"), it.lineno,
						   keys[i].key, (int)(val.n > 32 ? 32 : val.n), val.p);
				break;
			}
			gd_u64_set((struct gd_u64 *)(void *)((char *)p + keys[i].off), v);
			found++;
			break;
		}
	}
	if (found == 0)
		return bad ? -EINVAL : gd_err_set(err, -ENODATA, _("no rchar, wchar, read_bytes or write_bytes"));
	return bad ? 1 : 0;
}

int gd_parse_proc_pid_cgroup(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_proc *p = last_proc(s);
	struct gd_lines it;
	struct gd_slice line, v2 = { NULL, 0 }, v1 = { NULL, 0 };
	size_t bad = 0;

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("holds binary data (a NUL byte)"));
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		const char *c1, *c2;
		struct gd_slice hier, ctrl, path;

		if (line.n == 0)
			continue;
		/* hierarchy-id:controller-list:path; the path may hold ':'. */
		c1 = memchr(line.p, ':', line.n);
		c2 = c1 ? memchr(c1 + 1, ':', (size_t)(line.p + line.n - c1 - 1)) : NULL;
		if (!c2 || c2 + 1 >= line.p + line.n || c2[1] != '/') {
			if (!bad++)
				gd_err_set(err, -EINVAL, _("line %zu: not \"id:controllers:/path\""), it.lineno);
			continue;
		}
		hier = (struct gd_slice){ line.p, (size_t)(c1 - line.p) };
		ctrl = (struct gd_slice){ c1 + 1, (size_t)(c2 - c1 - 1) };
		path = (struct gd_slice){ c2 + 1, (size_t)(line.p + line.n - c2 - 1) };
		if (gd_tok_eq(hier, "0") && ctrl.n == 0)
			v2 = path;
		else if (!v1.p && gd_list_has(ctrl, ',', "cpu"))
			v1 = path;
	}
	if (v2.p)
		gd_tok_copy(p->cgroup, sizeof p->cgroup, v2);
	else if (v1.p)
		gd_tok_copy(p->cgroup, sizeof p->cgroup, v1);
	else
		return bad ? -EINVAL : gd_err_set(err, -ENODATA, _("no v2 \"0::\" line and no v1 cpu controller"));
	return bad ? 1 : 0;
}

/* ---- the collector --------------------------------------------------- */

struct tally {
	size_t denied;      /* processes whose fd or io was not readable */
	size_t malformed;   /* files that did not parse */
	char first_bad[GD_ERR_MSG_MAX / 2];
	bool netfs_any;     /* any network/FUSE mount at all: else skip matching */
};

static bool is_netfs(const char *fstype)
{
	static const char *const names[] = {
		"nfs", "nfs4", "cifs", "smb3", "smbfs", "ceph", "lustre", "gpfs", "glusterfs", "beegfs", "9p",
	};

	/* lxcfs is a local FUSE filesystem that LXC mounts over /proc files. */
	if (strncmp(fstype, "fuse.", 5) == 0)
		return strcmp(fstype, "fuse.lxcfs") != 0;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(fstype, names[i]) == 0)
			return true;
	return false;
}

/* The network/FUSE mount that path lies on (longest mount point prefix over
 * all mounts; later entries win ties, as an overmount hides the one below),
 * or NULL when the file is local. */
static const struct gd_mount *netfs_mount_of(const struct gd_snapshot *s, const char *path)
{
	const struct gd_mount *best = NULL;
	size_t bestlen = 0;

	GD_VEC_EACH(s->mounts, const struct gd_mount, m) {
		size_t n = strlen(m->mountpoint);

		if (n == 0 || m->mountpoint[0] != '/')
			continue;
		if (n == 1)
			n = 0;   /* "/" is a prefix of every path */
		else if (strncmp(path, m->mountpoint, n) != 0 || (path[n] != '/' && path[n] != '\0'))
			continue;
		if (!best || n >= bestlen) {
			best = m;
			bestlen = n;
		}
	}
	return best && is_netfs(best->fstype) ? best : NULL;
}

/* "/dev/nvidia<digits>" → minor; nvidiactl, nvidia-uvm, nvidia-caps are not GPUs. */
static bool nvidia_minor(const char *target, uint64_t *minor)
{
	struct gd_slice d;

	if (strncmp(target, "/dev/nvidia", 11) != 0)
		return false;
	d = (struct gd_slice){ target + 11, strlen(target + 11) };
	return d.n > 0 && d.p[0] >= '0' && d.p[0] <= '9' && gd_tok_u64(d, minor);
}

static void note_bad(struct tally *t, const char *rel, const struct gd_err *e)
{
	if (!t->malformed++)
		snprintf(t->first_bad, sizeof t->first_bad, "/%.80s: %.160s", rel, e->msg);
}

/* Walks proc/<pid>/fd with getdents64 over buf.  Returns false when the
 * directory could not be opened (errno-style code in *e). */
static bool walk_fds(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_proc *p, unsigned long long pid,
		     char *buf, struct tally *t, int *e)
{
	char rel[96], target[4096];
	uint64_t seen[4] = { 0 };   /* minors 0..255 */
	uint64_t nv = 0, nf = 0, minor;
	ssize_t got;
	int fd, n;

	snprintf(rel, sizeof rel, "proc/%llu/fd", pid);
	fd = gd_root_openat(ctx->root, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		*e = fd;
		return false;
	}
	while ((got = getdents64(fd, buf, BUF_CAP)) > 0) {
		for (ssize_t off = 0; off < got;) {
			const struct dirent64 *de = (const struct dirent64 *)(void *)(buf + off);

			uint64_t fdno;

			off += de->d_reclen;
			if (!gd_tok_u64((struct gd_slice){ de->d_name, strlen(de->d_name) }, &fdno))
				continue;   /* "." and ".." */
			snprintf(rel, sizeof rel, "proc/%llu/fd/%llu", pid, (unsigned long long)fdno);
			n = gd_root_readlink(ctx->root, rel, target, sizeof target);
			if (n == -EACCES || n == -EPERM) {
				/* The directory lists but its links are
				 * refused (ptrace access checks): what the
				 * process holds is unknown, not zero. */
				close(fd);
				*e = n;
				return false;
			}
			if (n <= 0)
				continue;   /* closed meanwhile */
			if (nvidia_minor(target, &minor)) {
				nv++;
				if (minor < 256)
					seen[minor / 64] |= 1ull << (minor % 64);
			} else if (t->netfs_any && target[0] == '/') {
				const struct gd_mount *m = netfs_mount_of(s, target);

				if (m && nf++ == 0)
					GD_STRSET(p->netfs_mount, m->mountpoint);
			}
		}
	}
	close(fd);
	gd_u64_set(&p->nvidia_fds, nv);
	gd_u64_set(&p->netfs_fds, nf);
	for (unsigned i = 0; i < 256; i++) {
		size_t used = strlen(p->nvidia_devs);

		if (seen[i / 64] & (1ull << (i % 64)))
			snprintf(p->nvidia_devs + used, sizeof p->nvidia_devs - used, "%s%u", used ? "," : "", i);
	}
	return true;
}

/* Reads one file of the process into buf and runs parse over it. */
static int read_parse(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, unsigned long long pid, const char *file,
		      gd_parse_fn parse, char *buf, struct tally *t)
{
	char rel[96];
	size_t len;
	struct gd_err e;
	int rc;

	snprintf(rel, sizeof rel, "proc/%llu/%s", pid, file);
	rc = gd_proc_read_small(ctx->root, rel, buf, BUF_CAP, &len);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		/* Cut at the last full line: status on a host with thousands of
		 * CPUs can outgrow the buffer after the lines we need. */
		char *nl = memrchr(buf, '\n', len);

		len = nl ? (size_t)(nl - buf + 1) : len;
	}
	gd_err_clear(&e);
	rc = parse(buf, len, s, &e);
	if (rc != 0 && e.code != -ENODATA)
		note_bad(t, rel, &e);
	return rc;
}

static void collect_one(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, unsigned long long pid, char *buf,
			struct tally *t)
{
	struct gd_pid_stat st;
	struct gd_proc *p;
	struct gd_err e;
	char rel[96];
	size_t len;
	bool denied = false;
	int rc, fe;

	snprintf(rel, sizeof rel, "proc/%llu/stat", pid);
	if (gd_proc_read_small(ctx->root, rel, buf, BUF_CAP, &len) < 0)
		return;   /* exited between readdir and open */
	gd_err_clear(&e);
	if (gd_pid_stat_parse(buf, len, &st, &e) < 0) {
		note_bad(t, rel, &e);
		return;
	}
	p = GD_PUSH(s, procs, struct gd_proc);
	stat_to_proc(&st, p, s);

	read_parse(ctx, s, pid, "status", gd_parse_proc_pid_status, buf, t);
	rc = read_parse(ctx, s, pid, "io", gd_parse_proc_pid_io, buf, t);
	if (rc == -EACCES || rc == -EPERM)
		denied = true;
	read_parse(ctx, s, pid, "cgroup", gd_parse_proc_pid_cgroup, buf, t);

	snprintf(rel, sizeof rel, "proc/%llu/cmdline", pid);
	if (gd_proc_read_small(ctx->root, rel, p->cmdline, sizeof p->cmdline, &len) >= 0) {
		for (size_t i = 0; i < len; i++)
			if (p->cmdline[i] == '\0' || p->cmdline[i] == '\n')
				p->cmdline[i] = ' ';
		while (len && p->cmdline[len - 1] == ' ')
			p->cmdline[--len] = '\0';
	}
	snprintf(rel, sizeof rel, "proc/%llu/ns/mnt", pid);
	if (gd_root_readlink(ctx->root, rel, p->mntns, sizeof p->mntns) < 0)
		p->mntns[0] = '\0';
	snprintf(rel, sizeof rel, "proc/%llu/ns/net", pid);
	if (gd_root_readlink(ctx->root, rel, p->netns, sizeof p->netns) < 0)
		p->netns[0] = '\0';

	if (!(st.flags & GD_PF_KTHREAD) && !walk_fds(ctx, s, p, pid, buf, t, &fe) && (fe == -EACCES || fe == -EPERM))
		denied = true;
	if (denied)
		t->denied++;
}

enum gd_src_status gd_collect_processes(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct tally t = { 0 };
	struct dirent *de;
	char *buf;
	DIR *d = gd_root_opendir(ctx->root, "proc");
	size_t before = s->procs.n;
	const char *hint;

	if (!d) {
		int e = -errno;

		gd_err_set(err, e, "/proc: %s", strerror(-e));
		return gd_src_status_of_errno(e);
	}
	GD_VEC_EACH(s->mounts, const struct gd_mount, m)
		if (is_netfs(m->fstype))
			t.netfs_any = true;
	buf = gd_xmalloc(BUF_CAP);
	while ((de = readdir(d)) != NULL) {
		uint64_t pid;

		if (gd_all_digits(de->d_name) && gd_tok_u64((struct gd_slice){ de->d_name, strlen(de->d_name) }, &pid))
			collect_one(ctx, s, (unsigned long long)pid, buf, &t);
	}
	closedir(d);
	free(buf);

	/* The advice depends on who we are: as root, what is left unreadable
	 * is refused by the kernel itself (a sandbox, Yama, another pid
	 * namespace's init), and "run as root" would be wrong. */
	hint = geteuid() == 0 ? _("refused by the kernel even to root") : _("run as root for process attribution");
	if (t.denied && t.malformed)
		gd_err_set(err, -EACCES,
			   P_("fd/io of %zu process not readable (%s); %zu files malformed, first %s",
			      "fd/io of %zu processes not readable (%s); %zu files malformed, first %s", t.denied),
			   t.denied, hint, t.malformed, t.first_bad);
	else if (t.denied)
		gd_err_set(err, -EACCES, P_("fd/io of %zu process not readable (%s)", "fd/io of %zu processes not readable (%s)",
					    t.denied),
			   t.denied, hint);
	else if (t.malformed)
		gd_err_set(err, -EINVAL, _("%zu files malformed, first %s"), t.malformed, t.first_bad);
	else
		return GD_SRC_OK;
	return s->procs.n > before ? GD_SRC_PARTIAL : GD_SRC_FAILED;
}
