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
 *   cmdline: arguments separated by NUL bytes (empty for kernel threads); kept
 *     joined by spaces with secrets replaced by *** (core/redact.h).
 *   ns/mnt, ns/net (3.8): symlinks "mnt:[4026531840]", "net:[4026531992]".
 *   fd/<n>: symlinks to "/dev/nvidia0", "/mnt/data/shard-0001.tar", "socket:[1234]", ...
 *   wchan (2.6): the kernel function it sleeps in, "0" when it runs; stack
 *     (2.6.29, root only): its kernel stack.  Both read for a process in D
 *     state only (uninterruptible sleep: what host.hung_tasks judges), so a
 *     healthy host pays nothing for them.
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
 * for the fd directory, no allocation per process beyond its record.  Each
 * process's directory is opened once (O_PATH) and its files are opened
 * relative to it, its fd links relative to the fd directory, so the kernel
 * looks up one name per file instead of the whole path.  A kernel thread
 * has no files, no address space and no I/O of its own: its fd/, cmdline
 * (always empty) and io are not read, and its io counters stay absent.
 * With a cache in the context (a run of several snapshots: watch, record,
 * serve, check) what cannot change while a process lives is read once
 * (see struct gd_proc_cache below), and in the tiered walk a process's
 * stat is held open from one cycle to the next ("held files" below).
 */
#include "collect/collectors.h"
#include "collect/proc_pid.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "core/cpulist.h"
#include "core/i18n.h"
#include "core/redact.h"
#include "core/xalloc.h"
#include "model/jobs.h"

#define BUF_CAP 16384
/* How much of a command line is read: more than the field keeps (256) */
#define CMDLINE_READ 1024

/* ---- shared helpers (proc_pid.h) ----------------------------------- */

/* Reads the open fd into buf and closes it (gd_proc_read_small's body).
 * one_piece: a read that returns less than asked for is the end (see
 * gd_proc_read_at), which saves the read that would return 0. */
static int read_fd(int fd, char *buf, size_t cap, size_t *len, bool one_piece)
{
	size_t n = 0;

	*len = 0;
	buf[0] = '\0';
	if (fd < 0)
		return fd;
	while (n + 1 < cap) {
		size_t want = cap - 1 - n;
		ssize_t got = read(fd, buf + n, want);

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
		if (one_piece && (size_t)got < want)
			break;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return n + 1 >= cap ? 1 : 0;
}

int gd_proc_read_small(const struct gd_root *r, const char *rel, char *buf, size_t cap, size_t *len)
{
	return read_fd(gd_root_openat(r, rel, O_RDONLY), buf, cap, len, false);
}

int gd_proc_read_at(int dirfd, const char *rel, char *buf, size_t cap, size_t *len)
{
	int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC);

	return read_fd(fd < 0 ? -errno : fd, buf, cap, len, true);
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

/* gd_tok_split(s, f, 22) that stops at the 22nd field: a stat line has
 * 50 and more, and this runs for every process and thread. */
static size_t split22(struct gd_slice s, struct gd_slice f[22])
{
	size_t i = 0, count = 0;

	while (i < s.n && count < 22) {
		size_t start;

		while (i < s.n && (s.p[i] == ' ' || s.p[i] == '\t' || s.p[i] == '\r'))
			i++;
		if (i >= s.n)
			break;
		start = i;
		while (i < s.n && s.p[i] != ' ' && s.p[i] != '\t' && s.p[i] != '\r')
			i++;
		f[count].p = s.p + start;
		f[count++].n = i - start;
	}
	return count;
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
	n = split22(rest, f);
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

/* ---- the cache (collect.h: gd_proc_cache_new) ----------------------- */

#define CACHE_TTL 8   /* cycles; each entry is re-read after 8 + pid % 8 */

/* The strings an entry keeps, packed into one allocation in this order
 * (the last two for the tiered walk only). */
enum { S_COMM, S_CMDLINE, S_CGROUP, S_MNTNS, S_NETNS, S_CPUS, S_NVDEVS, S_NETFS, NSTR };

/* have bits: which of them (and the uid) were read without a problem. */
#define HAVE_CMDLINE (1u << S_CMDLINE)
#define HAVE_CGROUP (1u << S_CGROUP)
#define HAVE_MNTNS (1u << S_MNTNS)
#define HAVE_NETNS (1u << S_NETNS)
#define HAVE_STATUS (1u << S_CPUS)   /* a kernel thread's uid and Cpus_allowed_list */
#define HAVE_DETAIL (1u << NSTR)     /* tiered: the whole record below, from a full read */
#define HAVE_MAPS (1u << (NSTR + 1)) /* tiered: maps scanned whole, what it found in maps */
#define NIO 4                        /* io counters kept: rchar, wchar, read_bytes, write_bytes */
#define GD_HELD_MAX 2048             /* files held open at most (held_read) */
#define GD_HELD_RESERVE 1024         /* descriptors under the soft limit left to the rest */

struct cache_ent {
	uint64_t pid, starttime;
	uint64_t seen;      /* the cycle that last listed it */
	uint64_t refresh;   /* the cycle from which its files are read again */
	struct gd_u64 uid;  /* HAVE_STATUS; with HAVE_DETAIL any process's */
	unsigned have;
	char *blob;         /* NSTR strings, NUL-separated; NULL: none yet */
	/* The tiered walk (gd_proc_cache_new_tiered): the fields of the last
	 * full read, when (snapshot uptime) and what it found. */
	struct gd_u64 nvidia_fds, netfs_fds;
	double detail_t;       /* uptime of the full read; NAN: unknown */
	uint64_t born;         /* the cycle it first appeared in */
	bool job;              /* holds a GPU, or its parent did (a job's tree) */
	bool denied;           /* its fd or io was refused at the full read */
	char *maps;            /* HAVE_MAPS: "runtime\0file\0stub\0"; NULL: none of them */
	/* its io counters as the cheap cycle last read them, at CPU time io_cpu */
	struct gd_u64 io[NIO];
	uint64_t io_cpu;
	bool io_ok;
	/* what the fd directory's stat showed before its last walk: on Linux
	 * 6.2 and later procfs gives the count of open fds as its size */
	struct timespec fd_mtime;
	off_t fd_size;         /* 0: unknown (older kernels), walk every time */
	int stat_fd;           /* tiered: its stat, held open (see held_read); -1: none */
};

struct gd_proc_cache {
	struct cache_ent **v;      /* this cycle's start: sorted by pid */
	size_t n, cap;
	struct cache_ent **next;   /* the entries this cycle lists, in order */
	size_t nnext, capnext;
	bool sorted;               /* next[] came in pid order */
	uint64_t cycle;
	unsigned slow_every;       /* tiered: cycles between full reads; 0: every cycle */
	unsigned young;            /* tiered: a new process's cycles of full reads */
	/* GPU jobs' threads' waits (tiered only): last cycle's, sorted by tid,
	 * and this cycle's as job_threads lists them */
	struct thread_wait *tw, *twnext;
	size_t ntw, captw, ntwnext, captwnext;
	/* GPU jobs' threads' stat and schedstat (tiered only): last cycle's,
	 * sorted by tid, and this cycle's as the threads collector reads them
	 * (sorted by tid on the first lookup) */
	struct thread_stat *ts, *tsnext;
	size_t nts, capts, ntsnext, captsnext;
	bool tsnext_sorted;
	/* tiered: the files held open (held_read), how many at most, and
	 * whether this cycle's proc/ is procfs (where a file is never
	 * replaced by another of its name) */
	size_t held, held_max;
	bool procfs;
	dev_t proc_dev;   /* the proc/ directory they were opened under */
	ino_t proc_ino;
};

/* Double buffers: next (b, its count nb) becomes the current (a, na), the
 * old current's storage the next, empty. */
#define FLIP(a, na, capa, b, nb, capb)                                                                            \
	do {                                                                                                      \
		__typeof__(a) t_ = (a);                                                                           \
		size_t tc_ = (capa);                                                                              \
		(a) = (b);                                                                                        \
		(na) = (nb);                                                                                      \
		(capa) = (capb);                                                                                  \
		(b) = t_;                                                                                         \
		(capb) = tc_;                                                                                     \
		(nb) = 0;                                                                                         \
	} while (0)

struct thread_wait {
	uint64_t pid, tid, timeslices, run_ns;
	uint64_t read_cycle;   /* when syscall and wchan were read */
	char syscall[sizeof(((struct gd_job_thread *)0)->syscall)];
	char wchan[sizeof(((struct gd_job_thread *)0)->wchan)];
};

struct thread_stat {
	uint64_t pid, tid, utime, stime;
	uint64_t read_cycle;   /* when stat was read */
	char comm[sizeof(((struct gd_thread *)0)->comm)];
	char state[sizeof(((struct gd_thread *)0)->state)];
	char sched[GD_SCHEDSTAT_CAP];   /* this cycle's schedstat, as read */
	size_t nsched;
	int fd;                         /* its schedstat, held open; -1: none */
};

struct gd_proc_cache *gd_proc_cache_new(void)
{
	return gd_xcalloc(1, sizeof(struct gd_proc_cache));
}

struct gd_proc_cache *gd_proc_cache_new_tiered(unsigned young, unsigned slow_every)
{
	struct gd_proc_cache *c = gd_proc_cache_new();
	struct rlimit rl;

	c->slow_every = slow_every ? slow_every : 1;
	c->young = young;
	/* the files held stay GD_HELD_RESERVE under the soft limit */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur >= 2 * GD_HELD_RESERVE)
		c->held_max = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur - GD_HELD_RESERVE > GD_HELD_MAX
				      ? GD_HELD_MAX
				      : (size_t)(rl.rlim_cur - GD_HELD_RESERVE);
	return c;
}

size_t gd_proc_cache_held(const struct gd_proc_cache *c)
{
	return c ? c->held : 0;
}

/* ---- held files (the tiered walk) ----------------------------------------
 * A file read every cycle (each process's stat, each GPU-job thread's
 * schedstat) is opened once and read again from offset 0 with pread:
 * procfs makes a file's text anew for a read from offset 0 (seq_file), and
 * one held for a process or thread that exited answers ESRCH, so a recycled
 * pid is never read through it (its path is opened afresh).  One pread
 * instead of openat, read and close, and no lookup of a path: a quarter of
 * serve's CPU a cycle on /proc with a thousand processes (bench/held_files.sh,
 * bench/README.md "Stop 38").  The price is kernel memory: procfs keeps a
 * page for a file once read (about 5 KiB a held file with its open file,
 * measured in a memory cgroup), so at
 * most held_max files are held: GD_HELD_MAX, and GD_HELD_RESERVE descriptors
 * under the soft RLIMIT_NOFILE left for the rest (HTTP clients, NVML, the
 * collectors' own files); past it a file is opened and closed as before.
 * Under a --root that is not procfs a file can be replaced (written under
 * another name and renamed over it): a held file no longer linked is opened
 * again by its name.  Every held file belongs to a cache entry that a cycle
 * listed, and is closed with it. */

static void held_close(struct gd_proc_cache *c, int *fd)
{
	if (*fd < 0)
		return;
	close(*fd);
	c->held--;
	*fd = -1;
}

/* Closes every held file (a cache read under another proc/ directory). */
static void held_drop_all(struct gd_proc_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		held_close(c, &c->v[i]->stat_fd);
	for (size_t i = 0; i < c->nts; i++)
		held_close(c, &c->ts[i].fd);
	for (size_t i = 0; i < c->ntsnext; i++)
		held_close(c, &c->tsnext[i].fd);
}

void gd_proc_cache_fd_drop(struct gd_proc_cache *c, int *fd)
{
	if (c && fd)
		held_close(c, fd);
}

/* The whole of a held file, read from offset 0; rc as read_fd's, and
 * -ESTALE for a file that was replaced, -ENODATA for one that read empty. */
static int held_pread(const struct gd_proc_cache *c, int fd, char *buf, size_t cap, size_t *len)
{
	size_t n = 0;
	struct stat st;

	*len = 0;
	buf[0] = '\0';
	if (!c->procfs && (fstat(fd, &st) < 0 || st.st_nlink == 0))
		return -ESTALE;
	while (n + 1 < cap) {
		size_t want = cap - 1 - n;
		ssize_t got = pread(fd, buf + n, want, (off_t)n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		n += (size_t)got;
		if ((size_t)got < want)
			break;
	}
	if (n == 0)
		return -ENODATA;
	buf[n] = '\0';
	*len = n;
	return n + 1 >= cap ? 1 : 0;
}

/* rel under dirfd into buf (as gd_proc_read_at) through *fd, the file held
 * for it (-1: none yet): a pread of the held file, else (none, or it failed:
 * the process exited, the file was replaced) rel opened by name and held
 * while fewer than held_max are. */
static int held_read(struct gd_proc_cache *c, int *fd, int dirfd, const char *rel, char *buf, size_t cap,
		     size_t *len)
{
	int rc;

	if (*fd >= 0) {
		if ((rc = held_pread(c, *fd, buf, cap, len)) >= 0)
			return rc;
		held_close(c, fd);
	}
	if (c->held >= c->held_max)
		return gd_proc_read_at(dirfd, rel, buf, cap, len);
	*len = 0;
	buf[0] = '\0';
	if ((*fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC)) < 0) {
		rc = -errno;
		*fd = -1;
		return rc;
	}
	c->held++;
	if ((rc = held_pread(c, *fd, buf, cap, len)) < 0) {
		held_close(c, fd);
		if (rc == -ENODATA)
			rc = 0;   /* an empty file, as gd_proc_read_at reads it */
	}
	return rc;
}

bool gd_proc_cache_tiered(const struct gd_proc_cache *c)
{
	return c && c->slow_every;
}

void gd_proc_cache_free(struct gd_proc_cache *c)
{
	if (!c)
		return;
	held_drop_all(c);
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i]->blob);
		free(c->v[i]->maps);
		free(c->v[i]);
	}
	free(c->v);
	free(c->next);
	free(c->tw);
	free(c->twnext);
	free(c->ts);
	free(c->tsnext);
	free(c);
}

/* qsort/bsearch comparators of the per-thread tables, by tid */
#define CMP_BY_TID(name, type)                                  \
	static int name(const void *a, const void *b)           \
	{                                                       \
		const type *x = a, *y = b;                      \
									\
		return x->tid < y->tid ? -1 : x->tid > y->tid;  \
	}
CMP_BY_TID(cmp_tw, struct thread_wait)
CMP_BY_TID(cmp_ts, struct thread_stat)

void gd_proc_cache_threads_begin(struct gd_proc_cache *c)
{
	if (!c || !c->slow_every)
		return;
	FLIP(c->tw, c->ntw, c->captw, c->twnext, c->ntwnext, c->captwnext);
	if (c->ntw > 1)
		qsort(c->tw, c->ntw, sizeof *c->tw, cmp_tw);
}

void gd_proc_cache_tasks_begin(struct gd_proc_cache *c)
{
	if (!c || !c->slow_every)
		return;
	gd_proc_cache_tasks_end(c);   /* none left if the last cycle called it */
	FLIP(c->ts, c->nts, c->capts, c->tsnext, c->ntsnext, c->captsnext);
	if (c->nts > 1)
		qsort(c->ts, c->nts, sizeof *c->ts, cmp_ts);
	c->tsnext_sorted = true;
}

/* Pushes the thread's entry; it takes *fd, the schedstat held for it. */
void gd_proc_cache_tasks_end(struct gd_proc_cache *c)
{
	if (!c || !c->slow_every)
		return;
	/* the threads of the last cycle this one did not list: exited */
	for (size_t i = 0; i < c->nts; i++)
		held_close(c, &c->ts[i].fd);
}

static void ts_push(struct gd_proc_cache *c, const struct gd_thread *th, const char *sched, size_t n,
		    uint64_t read_cycle, int *fd)
{
	struct thread_stat *x;

	if (c->ntsnext == c->captsnext) {
		c->captsnext = c->captsnext ? 2 * c->captsnext : 256;
		c->tsnext = gd_xreallocarray(c->tsnext, c->captsnext, sizeof *c->tsnext);
	}
	x = &c->tsnext[c->ntsnext];
	if (c->ntsnext && c->tsnext[c->ntsnext - 1].tid > th->tid.v)
		c->tsnext_sorted = false;
	c->ntsnext++;
	x->pid = th->pid.v;
	x->tid = th->tid.v;
	x->utime = th->utime_ticks.v;
	x->stime = th->stime_ticks.v;
	x->read_cycle = read_cycle;
	GD_STRSET(x->comm, th->comm);
	GD_STRSET(x->state, th->state);
	x->nsched = n < sizeof x->sched ? n : sizeof x->sched - 1;
	memcpy(x->sched, sched, x->nsched);
	x->sched[x->nsched] = '\0';
	x->fd = *fd;
	*fd = -1;
}

int gd_proc_cache_task_read(struct gd_proc_cache *c, uint64_t pid, uint64_t tid, int dirfd, const char *rel,
			    char *buf, size_t cap, size_t *len, int *fd)
{
	struct thread_stat key, *x;

	*fd = -1;
	if (!c || !c->slow_every)
		return gd_proc_read_at(dirfd, rel, buf, cap, len);
	key.tid = tid;
	x = c->nts ? bsearch(&key, c->ts, c->nts, sizeof *c->ts, cmp_ts) : NULL;
	if (x && x->pid == pid) {
		*fd = x->fd;   /* taken: the entry pushed this cycle holds it */
		x->fd = -1;
	}
	return held_read(c, fd, dirfd, rel, buf, cap, len);
}

bool gd_proc_cache_task_reuse(struct gd_proc_cache *c, uint64_t pid, uint64_t tid, const char *sched, size_t n,
			      struct gd_thread *th, int *fd)
{
	struct thread_stat key, *x;

	if (!c || !c->slow_every || !c->nts || n >= GD_SCHEDSTAT_CAP)
		return false;
	key.tid = tid;
	x = bsearch(&key, c->ts, c->nts, sizeof *c->ts, cmp_ts);
	/* the same thread, its schedstat the same to the nanosecond (not run,
	 * not waiting for a CPU), and its stat read within a slow round */
	if (!x || x->pid != pid || x->nsched != n || memcmp(x->sched, sched, n) != 0 ||
	    c->cycle - x->read_cycle >= c->slow_every)
		return false;
	gd_u64_set(&th->pid, pid);
	gd_u64_set(&th->tid, tid);
	GD_STRSET(th->comm, x->comm);
	GD_STRSET(th->state, x->state);
	gd_u64_set(&th->utime_ticks, x->utime);
	gd_u64_set(&th->stime_ticks, x->stime);
	ts_push(c, th, sched, n, x->read_cycle, fd);
	return true;
}

void gd_proc_cache_task_keep(struct gd_proc_cache *c, const struct gd_thread *th, const char *sched, size_t n,
			     int *fd)
{
	if (!c || !c->slow_every || !th->pid.ok || !th->tid.ok || !th->utime_ticks.ok || !th->stime_ticks.ok ||
	    n >= GD_SCHEDSTAT_CAP)
		return;
	ts_push(c, th, sched, n, c->cycle, fd);
}

bool gd_proc_cache_task_sched(struct gd_proc_cache *c, uint64_t pid, uint64_t tid, char *buf, size_t cap,
			      size_t *len)
{
	struct thread_stat key, *x;

	if (!c || !c->slow_every || !c->ntsnext || cap == 0)
		return false;
	if (!c->tsnext_sorted) {
		qsort(c->tsnext, c->ntsnext, sizeof *c->tsnext, cmp_ts);
		c->tsnext_sorted = true;
	}
	key.tid = tid;
	x = bsearch(&key, c->tsnext, c->ntsnext, sizeof *c->tsnext, cmp_ts);
	if (!x || x->pid != pid || x->nsched >= cap)
		return false;
	memcpy(buf, x->sched, x->nsched + 1);
	*len = x->nsched;
	return true;
}

static void tw_push(struct gd_proc_cache *c, const struct gd_job_thread *jt, uint64_t read_cycle)
{
	struct thread_wait *w;

	if (c->ntwnext == c->captwnext) {
		c->captwnext = c->captwnext ? 2 * c->captwnext : 256;
		c->twnext = gd_xreallocarray(c->twnext, c->captwnext, sizeof *c->twnext);
	}
	w = &c->twnext[c->ntwnext++];
	w->pid = jt->pid.v;
	w->tid = jt->tid.v;
	w->timeslices = jt->timeslices.v;
	w->run_ns = jt->run_ns.v;
	w->read_cycle = read_cycle;
	GD_STRSET(w->syscall, jt->syscall);
	GD_STRSET(w->wchan, jt->wchan);
}

bool gd_proc_cache_thread_reuse(struct gd_proc_cache *c, struct gd_job_thread *jt)
{
	struct thread_wait key, *w;

	if (!c || !c->slow_every || !c->ntw || !jt->pid.ok || !jt->tid.ok || !jt->timeslices.ok || !jt->run_ns.ok)
		return false;
	key.tid = jt->tid.v;
	w = bsearch(&key, c->tw, c->ntw, sizeof *c->tw, cmp_tw);
	/* the same thread, not scheduled since, and read within a slow round */
	if (!w || w->pid != jt->pid.v || w->timeslices != jt->timeslices.v || w->run_ns != jt->run_ns.v ||
	    c->cycle - w->read_cycle >= c->slow_every)
		return false;
	GD_STRSET(jt->syscall, w->syscall);
	GD_STRSET(jt->wchan, w->wchan);
	tw_push(c, jt, w->read_cycle);
	return true;
}

void gd_proc_cache_thread_keep(struct gd_proc_cache *c, const struct gd_job_thread *jt)
{
	/* only a whole read: a denied syscall is read, and counted, every cycle */
	if (!c || !c->slow_every || !jt->pid.ok || !jt->tid.ok || !jt->timeslices.ok || !jt->run_ns.ok ||
	    !jt->syscall[0])
		return;
	tw_push(c, jt, c->cycle);
}

static int cmp_ent(const void *a, const void *b);

/* pid's entry as this cycle began (v[], sorted by pid); NULL if none or no
 * cache. */
static struct cache_ent *cache_find(const struct gd_proc_cache *c, uint64_t pid)
{
	struct cache_ent key = { .pid = pid }, *kp = &key, **found;

	if (!c || !c->n)
		return NULL;
	found = bsearch(&kp, c->v, c->n, sizeof *c->v, cmp_ent);
	return found ? *found : NULL;
}

/* The tiered cache's entry of a process listed this cycle, NULL if none. */
static struct cache_ent *tiered_ent(const struct gd_proc_cache *c, uint64_t pid, uint64_t starttime)
{
	struct cache_ent *e = c && c->slow_every ? cache_find(c, pid) : NULL;

	if (!e || e->starttime != starttime || e->seen != c->cycle)
		return NULL;
	return e;
}

bool gd_proc_cache_maps(const struct gd_proc_cache *c, uint64_t pid, uint64_t starttime, struct gd_proc *p)
{
	const struct cache_ent *e = tiered_ent(c, pid, starttime);
	const char *m;

	/* young: a job maps its CUDA runtime at its first CUDA call */
	if (!e || !(e->have & HAVE_MAPS) || c->cycle - e->born < c->young)
		return false;
	if ((m = e->maps) != NULL) {
		GD_STRSET(p->cuda_runtime, m);
		m += strlen(m) + 1;
		GD_STRSET(p->cuda_runtime_file, m);
		m += strlen(m) + 1;
		GD_STRSET(p->cuda_stub, m);
	}
	return true;
}

void gd_proc_cache_maps_keep(struct gd_proc_cache *c, uint64_t pid, uint64_t starttime, const struct gd_proc *p)
{
	struct cache_ent *e = tiered_ent(c, pid, starttime);
	size_t a, b, d;

	if (!e)
		return;
	free(e->maps);
	e->maps = NULL;
	e->have |= HAVE_MAPS;
	if (!p->cuda_runtime[0] && !p->cuda_stub[0])
		return;
	a = strlen(p->cuda_runtime) + 1;
	b = strlen(p->cuda_runtime_file) + 1;
	d = strlen(p->cuda_stub) + 1;
	e->maps = gd_xmalloc(a + b + d);
	memcpy(e->maps, p->cuda_runtime, a);
	memcpy(e->maps + a, p->cuda_runtime_file, b);
	memcpy(e->maps + a + b, p->cuda_stub, d);
}

size_t gd_proc_cache_size(const struct gd_proc_cache *c)
{
	return c ? c->n : 0;
}

static const char *ent_str(const struct cache_ent *e, int which)
{
	const char *p = e->blob;

	if (!p)
		return "";
	for (int i = 0; i < which; i++)
		p += strlen(p) + 1;
	return p;
}

/* Packs the strings into the entry (one allocation). */
static void ent_store(struct cache_ent *e, const char *const str[NSTR])
{
	size_t len[NSTR], total = 0;
	char *p;

	for (int i = 0; i < NSTR; i++)
		total += (len[i] = strlen(str[i])) + 1;
	p = gd_xmalloc(total);
	free(e->blob);
	e->blob = p;
	for (int i = 0; i < NSTR; i++) {
		memcpy(p, str[i], len[i] + 1);
		p += len[i] + 1;
	}
}

static int cmp_ent(const void *a, const void *b)
{
	const struct cache_ent *x = *(const struct cache_ent *const *)a, *y = *(const struct cache_ent *const *)b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void cache_begin(struct gd_proc_cache *c)
{
	if (!c)
		return;
	c->cycle++;
	c->nnext = 0;
	c->sorted = true;
}

/* Drops the entries this cycle did not list; next[] becomes v[]. */
static void cache_end(struct gd_proc_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i]->seen != c->cycle) {
			held_close(c, &c->v[i]->stat_fd);
			free(c->v[i]->blob);
			free(c->v[i]->maps);
			free(c->v[i]);
		}
	if (!c->sorted)
		qsort(c->next, c->nnext, sizeof *c->next, cmp_ent);
	FLIP(c->v, c->n, c->cap, c->next, c->nnext, c->capnext);
}

/* The entry of this process (e: cache_find's, or NULL for a new pid), its
 * have bits cleared when it is new, its pid was recycled (another start
 * time), it exec'ed (another comm) or it is due for a refresh.  NULL without
 * a cache, and for a pid listed twice in one cycle (read, not cached, the
 * second time). */
static struct cache_ent *cache_get(struct gd_proc_cache *c, struct cache_ent *e, uint64_t pid, uint64_t starttime,
				   const char *comm)
{
	if (!c)
		return NULL;
	if (e && e->seen == c->cycle)
		return NULL;
	if (!e) {
		e = gd_xcalloc(1, sizeof *e);
		e->pid = pid;
		e->born = c->cycle;
		e->stat_fd = -1;
	}
	if (e->starttime != starttime)
		e->born = c->cycle;   /* a recycled pid: a new process */
	if (!e->blob || e->starttime != starttime || strcmp(ent_str(e, S_COMM), comm) != 0 || c->cycle >= e->refresh) {
		e->have = 0;
		e->starttime = starttime;
		if (c->slow_every)   /* the next cycle that is pid's modulo slow_every */
			e->refresh = c->cycle + 1 + (pid + c->slow_every - (c->cycle + 1) % c->slow_every) % c->slow_every;
		else
			e->refresh = c->cycle + CACHE_TTL + pid % CACHE_TTL;
		free(e->blob);
		e->blob = NULL;
		free(e->maps);
		e->maps = NULL;
	}
	e->seen = c->cycle;
	if (c->nnext == c->capnext) {
		c->capnext = c->capnext ? c->capnext * 2 : 256;
		c->next = gd_xreallocarray(c->next, c->capnext, sizeof *c->next);
	}
	if (c->nnext && c->next[c->nnext - 1]->pid > pid)
		c->sorted = false;
	c->next[c->nnext++] = e;
	return e;
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

/* Counts a file of process pid that did not parse; the first one names it. */
static void note_bad(struct tally *t, unsigned long long pid, const char *file, const struct gd_err *e)
{
	char rel[96];

	if (t->malformed++)
		return;
	snprintf(rel, sizeof rel, "proc/%llu/%s", pid, file);
	snprintf(t->first_bad, sizeof t->first_bad, "/%.80s: %.160s", rel, e->msg);
}

/* Walks the process's fd directory with getdents64 over buf, reading each
 * link relative to it.  Returns false when the directory could not be
 * opened or its links are refused (errno-style code in *e). */
static bool walk_fds(int pidfd, struct gd_snapshot *s, struct gd_proc *p, char *buf, struct tally *t, int *e)
{
	char target[4096];
	uint64_t seen[4] = { 0 };   /* minors 0..255 */
	uint64_t nv = 0, nf = 0, minor;
	ssize_t got, n;
	int fd = openat(pidfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		*e = -errno;
		return false;
	}
	while ((got = getdents64(fd, buf, BUF_CAP)) > 0) {
		for (ssize_t off = 0; off < got;) {
			const struct dirent64 *de = (const struct dirent64 *)(void *)(buf + off);

			off += de->d_reclen;
			if (!gd_all_digits(de->d_name))
				continue;   /* "." and ".." */
			n = readlinkat(fd, de->d_name, target, sizeof target - 1);
			if (n < 0 && (errno == EACCES || errno == EPERM)) {
				/* The directory lists but its links are
				 * refused (ptrace access checks): what the
				 * process holds is unknown, not zero. */
				*e = -errno;
				close(fd);
				return false;
			}
			if (n <= 0)
				continue;   /* closed meanwhile */
			target[n] = '\0';
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
	for (unsigned i = 0; nv && i < 256; i++) {
		size_t used = strlen(p->nvidia_devs);

		if (seen[i / 64] & (1ull << (i % 64)))
			snprintf(p->nvidia_devs + used, sizeof p->nvidia_devs - used, "%s%u", used ? "," : "", i);
	}
	return true;
}

/* Reads one file of the process (relative to its directory) into buf and
 * runs parse over it. */
static int read_parse(int pidfd, unsigned long long pid, const char *file, gd_parse_fn parse, struct gd_snapshot *s,
		      char *buf, struct tally *t)
{
	size_t len;
	struct gd_err e;
	int rc = gd_proc_read_at(pidfd, file, buf, BUF_CAP, &len);

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
		note_bad(t, pid, file, &e);
	return rc;
}

size_t gd_kstack_format(const char *buf, size_t len, char *out, size_t outsz)
{
	const char *p = buf, *e = buf + len;
	size_t n = 0, frames = 0;

	if (!outsz)
		return 0;
	out[0] = '\0';
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p)), *le = nl ? nl : e, *sym, *se, *mod = NULL, *me = NULL;
		size_t need;

		while (p < le && *p == ' ')
			p++;
		if (le - p >= 2 && p[0] == '[' && p[1] == '<') {
			const char *q = memchr(p, ']', (size_t)(le - p));

			p = q ? q + 1 : le;
			while (p < le && *p == ' ')
				p++;
		}
		sym = p;
		while (p < le && (isalnum((unsigned char)*p) || *p == '_' || *p == '.'))
			p++;
		se = p;
		if (se > sym && p < le && *p == '+') {
			const char *lb = memchr(p, '[', (size_t)(le - p));

			if (lb && le[-1] == ']' && le - lb > 2) {
				mod = lb;
				me = le;
				for (const char *q = lb + 1; q < le - 1; q++)
					if (!isalnum((unsigned char)*q) && *q != '_' && *q != '-')
						mod = NULL;
			}
		}
		p = nl ? nl + 1 : e;
		if (se == sym || se == le || *se != '+')
			continue;   /* no frame: a blank line, a word without an offset */
		need = (n ? 3 : 0) + (size_t)(se - sym) + (mod ? 1 + (size_t)(me - mod) : 0);
		if (n + need + 7 > outsz) {   /* room kept for " < ..." */
			if (n + 7 <= outsz)
				memcpy(out + n, n ? " < ..." : "...", n ? 7 : 4);
			return frames;
		}
		if (n) {
			memcpy(out + n, " < ", 3);
			n += 3;
		}
		memcpy(out + n, sym, (size_t)(se - sym));
		n += (size_t)(se - sym);
		if (mod) {
			out[n++] = ' ';
			memcpy(out + n, mod, (size_t)(me - mod));
			n += (size_t)(me - mod);
		}
		out[n] = '\0';
		frames++;
	}
	return frames;
}

/* A process in D state: where it sleeps (wchan) and, for root, its kernel
 * stack.  "0" (running again by now) leaves wchan absent. */
static void read_blocked(int pidfd, struct gd_proc *p, char *buf)
{
	size_t len;

	if (gd_proc_read_at(pidfd, "wchan", buf, 256, &len) >= 0) {
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
			len--;
		buf[len] = '\0';
		if (len && strcmp(buf, "0") != 0)
			GD_STRSET(p->wchan, buf);
	}
	if (gd_proc_read_at(pidfd, "stack", buf, BUF_CAP, &len) >= 0)
		gd_kstack_format(buf, len, p->kstack, sizeof p->kstack);
}

/* readlinkat of the pid directory's rel into out (emptied on failure). */
static bool read_link(int pidfd, const char *rel, char *out, size_t outsz)
{
	ssize_t n = readlinkat(pidfd, rel, out, outsz - 1);

	out[n > 0 ? n : 0] = '\0';
	return n >= 0;
}

/* The tiered walk: whether the cached record of a process in the previous
 * cycle's list says it belongs to a GPU job's tree. */
static bool cache_was_job(const struct gd_proc_cache *c, uint64_t pid)
{
	const struct cache_ent *e = pid ? cache_find(c, pid) : NULL;

	return e && e->job;
}

/* The tiered walk: whether this cycle must read all of the process's files
 * (else its stat and io are read and the rest comes from its entry). */
static bool tiered_full(const struct gd_proc_cache *c, const struct cache_ent *ce, const struct gd_pid_stat *st,
			const struct gd_snapshot *s)
{
	if (!ce || !(ce->have & HAVE_DETAIL))
		return true;   /* new, recycled, exec'ed or due on the slow round */
	if (ce->job || cache_was_job(c, st->ppid))
		return true;   /* a GPU job's tree: read whole every cycle */
	if (c->cycle - ce->born < c->young)
		return true;   /* young: a job opens its GPU seconds after it starts */
	if (gd_snapshot_nvml_lists(s, st->pid))
		return true;   /* NVML's list of this cycle (collected before the
				  processes) names it: a context made late */
	return strcmp(st->state, "D") == 0;   /* host.hung_tasks wants it now */
}

/* The io counters a cache entry keeps (gd_parse_proc_pid_io's). */
static struct gd_u64 *io_field(struct gd_proc *p, size_t i)
{
	struct gd_u64 *f[NIO] = { &p->rchar_bytes, &p->wchar_bytes, &p->read_bytes, &p->write_bytes };

	return f[i];
}

/* The counters of p as ce's last read of them, at CPU time cpu (ok: read
 * whole; else read them again next cycle).  Both the cheap cycle and the
 * full read keep them, so a counter never steps back to an older read. */
static void io_keep(struct cache_ent *ce, struct gd_proc *p, uint64_t cpu, bool ok)
{
	for (size_t i = 0; i < NIO; i++)
		ce->io[i] = *io_field(p, i);
	ce->io_cpu = cpu;
	ce->io_ok = ok;
}

/* The tiered walk's cheap cycle of one process: the record of its last full
 * read with this cycle's stat and io. */
static void collect_cached(int procfd, struct gd_snapshot *s, const char *name, unsigned long long pid,
			   const struct gd_pid_stat *st, struct cache_ent *ce, char *buf, struct tally *t)
{
	struct gd_proc *p = GD_PUSH(s, procs, struct gd_proc);
	char rel[40];
	int rc;

	stat_to_proc(st, p, s);
	p->uid = ce->uid;
	p->nvidia_fds = ce->nvidia_fds;
	p->netfs_fds = ce->netfs_fds;
	GD_STRSET(p->cmdline, ent_str(ce, S_CMDLINE));
	GD_STRSET(p->cgroup, ent_str(ce, S_CGROUP));
	GD_STRSET(p->mntns, ent_str(ce, S_MNTNS));
	GD_STRSET(p->netns, ent_str(ce, S_NETNS));
	GD_STRSET(p->cpus_allowed, ent_str(ce, S_CPUS));
	GD_STRSET(p->nvidia_devs, ent_str(ce, S_NVDEVS));
	GD_STRSET(p->netfs_mount, ent_str(ce, S_NETFS));
	if (s->host.uptime_s.ok && !isnan(ce->detail_t) && s->host.uptime_s.v > ce->detail_t)
		gd_f64_set(&p->detail_uptime_s, ce->detail_t);
	if (!(st->flags & GD_PF_KTHREAD)) {
		/* io when the process ran: the rates of cpu.background_hogs and
		 * io.netfs_stall are taken over the window.  One that was not on
		 * a CPU for a tick since the counters were read did next to no
		 * I/O, and its counters stand until it runs or its full read (a
		 * process in D is read whole) */
		uint64_t cpu = st->utime + st->stime;
		size_t len;
		struct gd_err e;

		if (ce->io_ok && ce->io_cpu == cpu) {
			for (size_t i = 0; i < NIO; i++)
				*io_field(p, i) = ce->io[i];
		} else {
			snprintf(rel, sizeof rel, "%.32s/io", name);   /* a pid: digits */
			rc = gd_proc_read_at(procfd, rel, buf, BUF_CAP, &len);
			if (rc == -EACCES || rc == -EPERM)
				ce->denied = true;
			gd_err_clear(&e);
			if (rc >= 0 && (rc = gd_parse_proc_pid_io(buf, len, s, &e)) != 0 && e.code != -ENODATA)
				note_bad(t, pid, "io", &e);
			io_keep(ce, p, cpu, rc == 0);
		}
	}
	if (ce->denied)
		t->denied++;
}

/* The tiered walk's fd walk of a process read whole every cycle (a GPU
 * job's tree): the fd directory's stat (one call) into st, and true when
 * it shows the same open fds as before the last walk, which then stands:
 * procfs (Linux 6.2 and later) gives the directory the count of open fds
 * as its size, and a test root's directory changes its modification time
 * with every link.  A process not yet past its young cycles, one due for
 * its full read, one whose walk was refused, a kernel without the count
 * (size 0) and every plain cache walk.  What a count cannot see (one file
 * closed, another opened between two cycles) is seen on the slow round. */
static bool fds_unchanged(const struct gd_proc_cache *c, const struct cache_ent *ce, int pidfd, struct stat *st)
{
	if (!c || !c->slow_every || !ce)
		return false;
	if (fstatat(pidfd, "fd", st, 0) < 0) {
		memset(st, 0, sizeof *st);
		return false;
	}
	return (ce->have & HAVE_DETAIL) && !ce->denied && c->cycle - ce->born >= c->young && st->st_size > 0 &&
	       st->st_size == ce->fd_size && st->st_mtim.tv_sec == ce->fd_mtime.tv_sec &&
	       st->st_mtim.tv_nsec == ce->fd_mtime.tv_nsec;
}

static void collect_one(int procfd, struct gd_snapshot *s, const char *name, unsigned long long pid, char *buf,
			struct tally *t, struct gd_proc_cache *cache)
{
	struct gd_pid_stat st;
	struct gd_proc *p;
	struct cache_ent *ce, *found = cache_find(cache, pid);
	struct gd_err e;
	size_t len, bad_before = t->malformed;
	bool denied = false, kthread, tiered = cache && cache->slow_every;
	unsigned have = 0, got = 0;
	int rc, fe, pidfd = -1, io_rc = -1, sfd = -1, *held = &sfd;
	struct stat fdst = { 0 };

	if (tiered) {
		char rel[40];

		/* the stat held in the pid's entry (held_read), or for a new pid
		 * in sfd until its entry is made; else one lookup of "<pid>/stat"
		 * from /proc, no directory opened */
		snprintf(rel, sizeof rel, "%.32s/stat", name);   /* a pid: digits */
		if (found && found->seen != cache->cycle)
			held = &found->stat_fd;
		if (held_read(cache, held, procfd, rel, buf, BUF_CAP, &len) < 0)
			return;   /* exited between readdir and open (held_read closed it) */
	} else {
		pidfd = openat(procfd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (pidfd < 0)
			return;   /* exited between readdir and open */
		if (gd_proc_read_at(pidfd, "stat", buf, BUF_CAP, &len) < 0) {
			close(pidfd);
			return;
		}
	}
	gd_err_clear(&e);
	if (gd_pid_stat_parse(buf, len, &st, &e) < 0) {
		note_bad(t, pid, "stat", &e);
		if (pidfd >= 0)
			close(pidfd);
		if (tiered)
			held_close(cache, held);
		return;
	}
	ce = cache_get(cache, found, pid, st.starttime, st.comm);
	if (tiered && ce && held == &sfd) {
		ce->stat_fd = sfd;   /* a new entry's (-1 before) */
		sfd = -1;
	}
	if (tiered)
		held_close(cache, &sfd);   /* a pid listed twice */
	if (tiered && !tiered_full(cache, ce, &st, s)) {
		collect_cached(procfd, s, name, pid, &st, ce, buf, t);
		return;
	}
	if (pidfd < 0 && (pidfd = openat(procfd, name, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;   /* exited meanwhile */
	p = GD_PUSH(s, procs, struct gd_proc);
	stat_to_proc(&st, p, s);
	kthread = (st.flags & GD_PF_KTHREAD) != 0;
	if (ce)
		have = ce->have;

	if (kthread && (have & HAVE_STATUS)) {
		p->uid = ce->uid;
		GD_STRSET(p->cpus_allowed, ent_str(ce, S_CPUS));
	} else if (read_parse(pidfd, pid, "status", gd_parse_proc_pid_status, s, buf, t) == 0 && kthread) {
		got |= HAVE_STATUS;
	}
	if (!kthread) {
		io_rc = read_parse(pidfd, pid, "io", gd_parse_proc_pid_io, s, buf, t);
		if (io_rc == -EACCES || io_rc == -EPERM)
			denied = true;
	}
	if (have & HAVE_CGROUP)
		GD_STRSET(p->cgroup, ent_str(ce, S_CGROUP));
	else if (read_parse(pidfd, pid, "cgroup", gd_parse_proc_pid_cgroup, s, buf, t) == 0)
		got |= HAVE_CGROUP;

	/* A kernel thread's cmdline is always empty (it has no argv). */
	if (have & HAVE_CMDLINE) {
		GD_STRSET(p->cmdline, ent_str(ce, S_CMDLINE));
	} else if (!kthread && (rc = gd_proc_read_at(pidfd, "cmdline", buf, CMDLINE_READ, &len)) >= 0) {
		/* Secrets out before the line is kept (core/redact.h): nothing
		 * downstream (findings, /metrics, recordings, reports) ever holds
		 * one.  Read past what is kept, so that a value cut by the
		 * field's length is still seen as the value of its option. */
		for (size_t i = 0; i < len; i++)
			if (buf[i] == '\n')
				buf[i] = ' ';
		len = gd_redact_args(buf, len, '\0', rc > 0, p->cmdline, sizeof p->cmdline);
		while (len && p->cmdline[len - 1] == ' ')
			p->cmdline[--len] = '\0';
		got |= HAVE_CMDLINE;
	} else if (kthread) {
		got |= HAVE_CMDLINE;
	}
	if (have & HAVE_MNTNS)
		GD_STRSET(p->mntns, ent_str(ce, S_MNTNS));
	else if (read_link(pidfd, "ns/mnt", p->mntns, sizeof p->mntns))
		got |= HAVE_MNTNS;
	if (have & HAVE_NETNS)
		GD_STRSET(p->netns, ent_str(ce, S_NETNS));
	else if (read_link(pidfd, "ns/net", p->netns, sizeof p->netns))
		got |= HAVE_NETNS;

	if (!kthread && fds_unchanged(cache, ce, pidfd, &fdst)) {
		p->nvidia_fds = ce->nvidia_fds;
		p->netfs_fds = ce->netfs_fds;
		GD_STRSET(p->nvidia_devs, ent_str(ce, S_NVDEVS));
		GD_STRSET(p->netfs_mount, ent_str(ce, S_NETFS));
	} else if (!kthread && !walk_fds(pidfd, s, p, buf, t, &fe) && (fe == -EACCES || fe == -EPERM)) {
		denied = true;
	}
	if (strcmp(st.state, "D") == 0)
		read_blocked(pidfd, p, buf);
	close(pidfd);
	if (denied)
		t->denied++;
	if (ce && (got || tiered)) {
		const char *str[NSTR] = { st.comm, p->cmdline, p->cgroup, p->mntns, p->netns, p->cpus_allowed,
					  p->nvidia_devs, p->netfs_mount };

		ce->have = have | got;
		if ((got & HAVE_STATUS) || tiered)
			ce->uid = p->uid;
		ent_store(ce, str);
	}
	if (ce && tiered) {
		/* What the cheap cycles repeat until the next full read; a file
		 * that did not parse keeps the process on full reads, so it is
		 * reported every cycle as without the tiers. */
		ce->nvidia_fds = p->nvidia_fds;
		ce->netfs_fds = p->netfs_fds;
		ce->fd_size = fdst.st_size;
		ce->fd_mtime = fdst.st_mtim;
		ce->detail_t = s->host.uptime_s.ok ? s->host.uptime_s.v : NAN;
		ce->denied = denied;
		ce->job = (p->nvidia_fds.ok && p->nvidia_fds.v > 0) || gd_snapshot_nvml_lists(s, pid) || cache_was_job(cache, st.ppid);
		io_keep(ce, p, st.utime + st.stime, !kthread && io_rc == 0);
		if (t->malformed == bad_before)
			ce->have |= HAVE_DETAIL;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

enum gd_src_status gd_collect_processes(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct tally t = { 0 };
	struct dirent *de;
	struct gd_vec pids = { 0 };   /* uint64_t */
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
	/* In ascending pid order, whatever order readdir gives (procfs gives
	 * it; a directory tree given as --root does not): gd_snapshot_proc
	 * finds a process by binary search. */
	while ((de = readdir(d)) != NULL) {
		uint64_t pid;

		if (gd_all_digits(de->d_name) && gd_tok_u64((struct gd_slice){ de->d_name, strlen(de->d_name) }, &pid))
			*(uint64_t *)gd_vec_push(&pids, sizeof pid) = pid;
	}
	if (pids.n > 1)
		qsort(pids.items, pids.n, sizeof(uint64_t), cmp_u64);
	if (gd_proc_cache_tiered(ctx->proc_cache)) {
		struct gd_proc_cache *c = ctx->proc_cache;
		struct statfs sf;
		struct stat pst;

		/* procfs never replaces a file it holds (held_pread) */
		c->procfs = fstatfs(dirfd(d), &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
		/* a held file belongs to the proc/ it was opened under: one cache
		 * given another tree (a test's cycles, each its own tree) reads
		 * the new tree's files */
		if (fstat(dirfd(d), &pst) < 0)
			memset(&pst, 0, sizeof pst);
		if (pst.st_dev != c->proc_dev || pst.st_ino != c->proc_ino || pst.st_ino == 0) {
			held_drop_all(c);
			c->proc_dev = pst.st_dev;
			c->proc_ino = pst.st_ino;
		}
	}
	buf = gd_xmalloc(BUF_CAP);
	cache_begin(ctx->proc_cache);
	GD_VEC_EACH(pids, const uint64_t, pid) {
		char name[24];

		snprintf(name, sizeof name, "%llu", (unsigned long long)*pid);
		collect_one(dirfd(d), s, name, (unsigned long long)*pid, buf, &t, ctx->proc_cache);
	}
	cache_end(ctx->proc_cache);
	closedir(d);
	free(buf);
	gd_vec_release(&pids);

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
