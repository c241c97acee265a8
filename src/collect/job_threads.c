/*
 * job_threads.c - what each thread of a GPU job is doing: for every thread
 * the threads collector found (threads[], GPU jobs and their descendants),
 *
 *   /proc/<pid>/task/<tid>/schedstat   79877 65708 2
 *       time on a CPU (ns), time runnable waiting for a CPU (ns), and the
 *       times it was scheduled (Linux 2.6.x, CONFIG_SCHED_INFO; counters,
 *       so the window's deltas say running vs waiting for a CPU vs off it);
 *   /proc/<pid>/task/<tid>/syscall     202 0x7f.. 0x80 ... 0x7ffd.. 0x7f..
 *       the system call it is blocked in ("running" when on a CPU, "-1 sp
 *       pc" when blocked outside one; ptrace access needed);
 *   /proc/<pid>/task/<tid>/wchan       futex_wait_queue
 *       the kernel function it sleeps in ("0" when running);
 *
 * and each thread's role (main, loader, pin_memory, nccl, autograd,
 * other).  It records, rules decide: the share of a window a main thread
 * spent waiting on a futex is the rules' arithmetic.  A file that does not
 * exist (a thread that exited, a kernel without schedstat) leaves its
 * fields absent; one that is denied (syscall of another user's process
 * without CAP_SYS_PTRACE) too, and the source says how many were denied.
 */
#include "collect/job_threads.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "collect/collectors.h"
#include "collect/proc_pid.h"
#include "core/i18n.h"
#include "core/xalloc.h"
#include "model/jobs.h"

#define SMALL_CAP 512

/* ---- pure helpers ------------------------------------------------------ */

static bool has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

const char *gd_thread_role(const char *comm, bool first_thread, bool loader)
{
	if (loader)
		return "loader";
	if (first_thread)
		return "main";
	if (has_prefix(comm, "pt_data_pin") || has_prefix(comm, "pin_memory"))
		return "pin_memory";
	if (strncasecmp(comm, "nccl", 4) == 0 || has_prefix(comm, "pt_nccl"))
		return "nccl";
	if (has_prefix(comm, "pt_autograd"))
		return "autograd";
	return "other";
}

const char *gd_syscall_name(long nr)
{
	static const struct {
		long nr;
		const char *name;
	} names[] = {
#define SC(n) { SYS_##n, #n },
#ifdef SYS_futex
		SC(futex)
#endif
#ifdef SYS_read
		SC(read)
#endif
#ifdef SYS_pread64
		SC(pread64)
#endif
#ifdef SYS_readv
		SC(readv)
#endif
#ifdef SYS_write
		SC(write)
#endif
#ifdef SYS_poll
		SC(poll)
#endif
#ifdef SYS_ppoll
		SC(ppoll)
#endif
#ifdef SYS_select
		SC(select)
#endif
#ifdef SYS_pselect6
		SC(pselect6)
#endif
#ifdef SYS_epoll_wait
		SC(epoll_wait)
#endif
#ifdef SYS_epoll_pwait
		SC(epoll_pwait)
#endif
#ifdef SYS_nanosleep
		SC(nanosleep)
#endif
#ifdef SYS_clock_nanosleep
		SC(clock_nanosleep)
#endif
#ifdef SYS_recvfrom
		SC(recvfrom)
#endif
#ifdef SYS_recvmsg
		SC(recvmsg)
#endif
#ifdef SYS_sendto
		SC(sendto)
#endif
#ifdef SYS_accept4
		SC(accept4)
#endif
#ifdef SYS_connect
		SC(connect)
#endif
#ifdef SYS_ioctl
		SC(ioctl)
#endif
#ifdef SYS_sched_yield
		SC(sched_yield)
#endif
#ifdef SYS_wait4
		SC(wait4)
#endif
#ifdef SYS_waitid
		SC(waitid)
#endif
#ifdef SYS_io_getevents
		SC(io_getevents)
#endif
#ifdef SYS_io_uring_enter
		SC(io_uring_enter)
#endif
#ifdef SYS_openat
		SC(openat)
#endif
#ifdef SYS_fsync
		SC(fsync)
#endif
#undef SC
	};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].nr == nr)
			return names[i].name;
	return NULL;
}

/* The file name of a path, a " (deleted)" suffix dropped. */
static struct gd_slice base_name(struct gd_slice p)
{
	static const char deleted[] = " (deleted)";
	const char *slash;

	p = gd_tok_trim(p);
	if (p.n >= sizeof deleted - 1 && memcmp(p.p + p.n - (sizeof deleted - 1), deleted, sizeof deleted - 1) == 0)
		p.n -= sizeof deleted - 1;
	slash = p.n ? memrchr(p.p, '/', p.n) : NULL;
	if (slash) {
		p.n -= (size_t)(slash + 1 - p.p);
		p.p = slash + 1;
	}
	return p;
}

static bool slice_has(struct gd_slice s, const char *needle)
{
	size_t m = strlen(needle);

	for (size_t i = 0; m && i + m <= s.n; i++)
		if (memcmp(s.p + i, needle, m) == 0)
			return true;
	return false;
}

enum gd_so_cat gd_so_category(struct gd_slice path)
{
	static const char *const cuda[] = { "libcuda.", "libcuda-", "libcudart", "libcublas", "libcudnn", "libnvrtc",
					    "libcufft", "libcurand", "libcusparse", "libcusolver", "libnvJitLink",
					    "libnvidia-", "libnvToolsExt", "libcupti" };
	static const char *const fw[] = { "libtorch", "libc10", "libgomp", "libiomp", "libomp.", "libopenblas",
					  "libblas", "liblapack", "libmkl", "libtbb", "libjpeg", "libpng", "libavcodec",
					  "libopencv", "libdnnl", "libshm", "libarrow" };
	struct gd_slice b = base_name(path);
	struct gd_slice full = gd_tok_trim(path);

	for (size_t i = 0; i < sizeof cuda / sizeof cuda[0]; i++)
		if (gd_tok_prefix(b, cuda[i]))
			return GD_SO_CUDA;
	if (gd_tok_prefix(b, "libnccl"))
		return GD_SO_NCCL;
	/* the interpreter, and its standard library's C modules */
	if (gd_tok_prefix(b, "libpython") || gd_tok_prefix(b, "python") || slice_has(full, "/lib-dynload/"))
		return GD_SO_PYTHON;
	for (size_t i = 0; i < sizeof fw / sizeof fw[0]; i++)
		if (gd_tok_prefix(b, fw[i]))
			return GD_SO_FRAMEWORK;
	if (slice_has(b, ".cpython-") || slice_has(b, ".abi3.") || slice_has(full, "/numpy/") ||
	    slice_has(full, "/torch/lib/") || slice_has(full, "/numpy.libs/") || slice_has(full, "/scipy.libs/"))
		return GD_SO_FRAMEWORK;
	return GD_SO_OTHER;
}

/* A run of 1-16 hex digits (no 0x, no sign), as maps writes addresses. */
static bool hex_u64(struct gd_slice s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s.n || s.n > 16)
		return false;
	for (size_t i = 0; i < s.n; i++) {
		char c = s.p[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

static int xmap_cmp(const void *a, const void *b)
{
	const struct gd_xmap *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

size_t gd_xmaps_parse(const char *buf, size_t len, struct gd_xmap **maps, size_t *n, size_t *cap)
{
	struct gd_lines it;
	struct gd_slice line;
	size_t bad = 0;

	*n = 0;
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		struct gd_slice f[6];
		struct gd_slice lo, hi, path = { "", 0 };
		size_t nf, off;
		uint64_t a = 0, b = 0;
		const char *dash;

		line = gd_tok_trim(line);
		if (!line.n)
			continue;
		nf = gd_tok_split(line, f, 5);
		dash = f[0].n ? memchr(f[0].p, '-', f[0].n) : NULL;
		if (nf < 5 || !dash || f[1].n < 4) {
			bad++;
			continue;
		}
		lo = (struct gd_slice){ f[0].p, (size_t)(dash - f[0].p) };
		hi = (struct gd_slice){ dash + 1, f[0].n - lo.n - 1 };
		if (!hex_u64(lo, &a) || !hex_u64(hi, &b) || b <= a) {
			bad++;
			continue;
		}
		if (f[1].p[2] != 'x')
			continue;
		/* the path is what follows the inode field, spaces included */
		off = (size_t)(f[4].p + f[4].n - line.p);
		if (off < line.n)
			path = gd_tok_trim((struct gd_slice){ line.p + off, line.n - off });
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			*maps = gd_xreallocarray(*maps, *cap, sizeof **maps);
		}
		(*maps)[*n].lo = a;
		(*maps)[*n].hi = b;
		(*maps)[*n].cat = path.n ? gd_so_category(path) : GD_SO_OTHER;
		(*n)++;
	}
	if (*n > 1)
		qsort(*maps, *n, sizeof **maps, xmap_cmp);
	return bad;
}

enum gd_so_cat gd_xmaps_lookup(const struct gd_xmap *maps, size_t n, uint64_t ip)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ip < maps[mid].lo)
			hi = mid;
		else if (ip >= maps[mid].hi)
			lo = mid + 1;
		else
			return maps[mid].cat;
	}
	return GD_SO_OTHER;
}

/* ---- parsers (gd_parsers[]): fill the last job_threads[] record -------- */

/* buf without its trailing newlines and blanks. */
static struct gd_slice one_line(const char *buf, size_t len)
{
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	return gd_tok_trim((struct gd_slice){ buf, len });
}

static struct gd_job_thread *last_job_thread(struct gd_snapshot *s)
{
	if (!s->job_threads.n)
		return GD_PUSH(s, job_threads, struct gd_job_thread);
	return GD_VEC_AT(s->job_threads, struct gd_job_thread, s->job_threads.n - 1);
}

int gd_parse_proc_pid_task_schedstat(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_slice f[4];
	uint64_t v[3];
	struct gd_job_thread *t;

	if (gd_tok_split(one_line(buf, len), f, 4) != 3 || !gd_tok_u64(f[0], &v[0]) ||
	    !gd_tok_u64(f[1], &v[1]) || !gd_tok_u64(f[2], &v[2])) {
		gd_err_set(err, -EINVAL, _("not three counters (run ns, wait ns, timeslices): \"%.40s\""), len ? buf : "");
		return -EINVAL;
	}
	t = last_job_thread(s);
	gd_u64_set(&t->run_ns, v[0]);
	gd_u64_set(&t->wait_ns, v[1]);
	gd_u64_set(&t->timeslices, v[2]);
	return 0;
}

int gd_parse_proc_pid_task_syscall(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_slice t = one_line(buf, len), f[2];
	struct gd_job_thread *jt;
	int64_t nr;
	const char *name;

	if (gd_tok_eq(t, "running")) {
		GD_STRSET(last_job_thread(s)->syscall, "running");
		return 0;
	}
	/* "nr arg1 .. arg6 sp pc" (9 fields) or "-1 sp pc" (3) */
	if (gd_tok_split(t, f, 2) < 2 || !gd_tok_i64(f[0], &nr) || nr < -1 || !gd_tok_prefix(f[1], "0x")) {
		gd_err_set(err, -EINVAL, _("not \"running\" nor \"NR 0x...\": \"%.40s\""), buf);
		return -EINVAL;
	}
	jt = last_job_thread(s);
	if (nr == -1) {
		GD_STRSET(jt->syscall, "none");
		return 0;
	}
	name = gd_syscall_name((long)nr);
	if (name)
		GD_STRSET(jt->syscall, name);
	else
		snprintf(jt->syscall, sizeof jt->syscall, "nr%lld", (long long)nr);
	return 0;
}

/* ---- the collector ------------------------------------------------------ */

struct pid_kind {
	uint64_t pid;
	bool loader;   /* a descendant of a GPU job that holds no GPU itself */
};

static int pid_kind_cmp(const void *a, const void *b)
{
	const struct pid_kind *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

struct jt_tally {
	size_t denied, malformed;
	char first_bad[GD_ERR_MSG_MAX / 2];
};

/* Runs parse over rel's len bytes in buf for the last job_threads[] record. */
static void parse_one(struct gd_snapshot *s, const char *rel, gd_parse_fn parse, const char *buf, size_t len,
		      struct jt_tally *t)
{
	struct gd_err e;

	gd_err_clear(&e);
	if (parse(buf, len, s, &e) < 0 && !t->malformed++)
		snprintf(t->first_bad, sizeof t->first_bad, "/%.80s: %.160s", rel, e.msg);
}

/* Reads rel into buf and parses it (parse_one); a missing file (exited
 * thread, kernel without the file) leaves the fields absent. */
static void read_one(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, const char *rel, gd_parse_fn parse,
		     char *buf, struct jt_tally *t)
{
	size_t len;
	int rc = gd_proc_read_small(ctx->root, rel, buf, SMALL_CAP, &len);

	if (rc < 0) {
		if (rc == -EACCES || rc == -EPERM)
			t->denied++;
		return;
	}
	parse_one(s, rel, parse, buf, len, t);
}

enum gd_src_status gd_collect_job_threads(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct pid_kind *kinds;
	unsigned char *marks;
	size_t nk = 0;
	struct jt_tally t = { 0 };
	char buf[SMALL_CAP], rel[112];

	if (!s->threads.n || !s->procs.n)
		return GD_SRC_OK;   /* no GPU job, no thread of one */
	marks = gd_xcalloc(s->procs.n, 1);
	kinds = gd_xcalloc(s->procs.n, sizeof *kinds);
	gd_snapshot_gpu_job_marks(s, marks);
	for (size_t i = 0; i < s->procs.n; i++) {
		const struct gd_proc *p = GD_VEC_AT(s->procs, struct gd_proc, i);

		if (marks[i] && p->pid.ok) {
			kinds[nk].pid = p->pid.v;
			kinds[nk++].loader = !gd_proc_is_gpu_job(s, p);
		}
	}
	free(marks);
	qsort(kinds, nk, sizeof *kinds, pid_kind_cmp);
	gd_proc_cache_threads_begin(ctx->proc_cache);
	for (size_t i = 0; i < s->threads.n; i++) {
		const struct gd_thread *th = GD_VEC_AT(s->threads, struct gd_thread, i);
		struct pid_kind key, *k;
		struct gd_job_thread *jt;
		unsigned long long pid, tid;
		size_t n;

		if (!th->pid.ok || !th->tid.ok)
			continue;
		key.pid = th->pid.v;
		k = bsearch(&key, kinds, nk, sizeof *kinds, pid_kind_cmp);
		if (!k)
			continue;
		pid = th->pid.v;
		tid = th->tid.v;
		jt = GD_PUSH(s, job_threads, struct gd_job_thread);
		gd_u64_set(&jt->pid, pid);
		gd_u64_set(&jt->tid, tid);
		GD_STRSET(jt->comm, th->comm);
		GD_STRSET(jt->state, th->state);
		GD_STRSET(jt->role, gd_thread_role(th->comm, tid == pid, k->loader));
		snprintf(rel, sizeof rel, "proc/%llu/task/%llu/schedstat", pid, tid);
		if (gd_proc_cache_task_sched(ctx->proc_cache, pid, tid, buf, sizeof buf, &n))
			parse_one(s, rel, gd_parse_proc_pid_task_schedstat, buf, n, &t);   /* read by the threads collector */
		else
			read_one(ctx, s, rel, gd_parse_proc_pid_task_schedstat, buf, &t);
		if (th->state[0] == 'R') {
			/* on a CPU (or about to be): no system call to wait in, no
			 * wchan; two reads saved per busy thread */
			GD_STRSET(jt->syscall, "running");
			continue;
		}
		/* not scheduled since the last cycle: the same wait (serve, watch, record) */
		if (gd_proc_cache_thread_reuse(ctx->proc_cache, jt))
			continue;
		snprintf(rel, sizeof rel, "proc/%llu/task/%llu/syscall", pid, tid);
		read_one(ctx, s, rel, gd_parse_proc_pid_task_syscall, buf, &t);
		snprintf(rel, sizeof rel, "proc/%llu/task/%llu/wchan", pid, tid);
		if (gd_proc_read_small(ctx->root, rel, buf, SMALL_CAP, &n) >= 0) {
			struct gd_slice w = one_line(buf, n);

			/* "0": running, or wchan hidden (kptr_restrict) */
			if (w.n && !gd_tok_eq(w, "0"))
				gd_tok_copy(jt->wchan, sizeof jt->wchan, w);
		}
		gd_proc_cache_thread_keep(ctx->proc_cache, jt);
	}
	free(kinds);
	if (t.malformed) {
		gd_err_set(err, -EINVAL, _("%zu task files malformed, first %s"), t.malformed, t.first_bad);
		return GD_SRC_PARTIAL;
	}
	if (t.denied) {
		gd_err_set(err, -EACCES, _("%zu task files of GPU jobs denied (syscall needs ptrace access: run as the "
			     "job's user or as root)"), t.denied);
		return GD_SRC_PARTIAL;
	}
	return GD_SRC_OK;
}
