/*
 * proc_pid_maps.c - the CUDA runtime each GPU job maps, from /proc/<pid>/maps
 * (Linux 2.0; this layout since 2.6).  One line per mapping:
 *
 *   address           perms offset  dev    inode    pathname
 *   7f2c4a000000-7f2c4a0c8000 r-xp 00000000 103:02 1835123  /usr/local/cuda-12.4/lib64/libcudart.so.12.4.127
 *   7f1b20000000-7f1b20090000 r-xp 00000000 00:31 5517  /opt/conda/lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12
 *   7f0c10000000-7f0c10080000 r-xp 00000000 00:31 88  /usr/lib/python3/dist-packages/torch/lib/libcudart-9335f6a2.so.12
 *
 * The path is the mapped file itself (symlinks resolved), so a system CUDA
 * shows its full version and a pip wheel only its soname major.  A process
 * that links cudart statically (nvcc's default) maps none: cuda_runtime
 * stays absent.  Only GPU jobs are read (gd_proc_is_gpu_job), in a 64 KiB
 * buffer reused across them, so a PyTorch process's ~1 MB of maps costs no
 * allocation.  Another user's maps need ptrace-read access (EACCES
 * otherwise): the source is then denied for that process.
 *
 * The same pass looks for the CUDA toolkit's stub libcuda.so
 * (gd_cuda_stub_file): a program that found it instead of the driver's
 * libcuda.so.1 gets CUDA_ERROR_STUB_LIBRARY and no GPU, so it opens no
 * /dev/nvidia* and NVML does not list it.  That is why, beyond GPU jobs,
 * the maps of processes in a mount namespace other than pid 1's (or,
 * where that cannot be read, gpudoctor's own: proc/self) (a
 * container's, where the missing NVIDIA runtime mounts are the usual
 * cause) are read too, at most STUB_SCAN_CAP of them per cycle, for the
 * stub alone (their libcudart is not a GPU job's and is not recorded).
 */
#include "collect/collectors.h"
#include "collect/gpu_host.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "model/jobs.h"

#define BUF_CAP 65536
#define STUB_SCAN_CAP 256

/* ---- pure helpers (gpu_host.h) -------------------------------------- */

/* A maps line's path, trimmed, without the kernel's " (deleted)" mark. */
static struct gd_slice mapped_path(struct gd_slice path)
{
	static const char deleted[] = " (deleted)";

	path = gd_tok_trim(path);
	if (path.n >= sizeof deleted - 1 &&
	    memcmp(path.p + path.n - (sizeof deleted - 1), deleted, sizeof deleted - 1) == 0)
		path.n -= sizeof deleted - 1;
	return path;
}

bool gd_cudart_version(struct gd_slice path, char *ver, size_t versz)
{
	const char *base;
	size_t i;

	path = mapped_path(path);
	base = memrchr(path.p, '/', path.n);
	base = base ? base + 1 : path.p;
	path.n -= (size_t)(base - path.p);
	path.p = base;
	if (path.n < 9 || memcmp(path.p, "libcudart", 9) != 0)
		return false;
	i = 9;
	if (i < path.n && path.p[i] == '-') {   /* a wheel's hash: libcudart-9335f6a2.so.12 */
		for (i++; i < path.n && path.p[i] != '.'; i++)
			;
	}
	if (path.n - i < 4 || memcmp(path.p + i, ".so.", 4) != 0)
		return false;
	i += 4;
	if (i >= path.n || path.p[i] < '0' || path.p[i] > '9' || path.p[path.n - 1] == '.')
		return false;
	for (size_t k = i; k < path.n; k++)
		if (!((path.p[k] >= '0' && path.p[k] <= '9') || (path.p[k] == '.' && path.p[k - 1] != '.')))
			return false;
	if (path.n - i >= versz)
		return false;
	gd_tok_copy(ver, versz, (struct gd_slice){ path.p + i, path.n - i });
	return true;
}

bool gd_cuda_stub_file(struct gd_slice path)
{
	static const char lib[] = "libcuda.so", stubs[] = "/stubs/";
	const char *base;
	size_t bn;

	path = mapped_path(path);
	base = memrchr(path.p, '/', path.n);
	base = base ? base + 1 : path.p;
	bn = path.n - (size_t)(base - path.p);
	if (bn < sizeof lib - 1 || memcmp(base, lib, sizeof lib - 1) != 0)
		return false;
	if (bn == sizeof lib - 1)
		return true;   /* plain libcuda.so: the driver's is always versioned */
	if (base[sizeof lib - 1] != '.')
		return false;  /* libcuda.sox, not a libcuda.so.N */
	return (size_t)(base - path.p) >= sizeof stubs - 1 &&
	       memcmp(base - (sizeof stubs - 1), stubs, sizeof stubs - 1) == 0;
}

int gd_version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		unsigned long x = 0, y = 0;

		while (*a >= '0' && *a <= '9')
			x = x * 10 + (unsigned long)(*a++ - '0');
		while (*b >= '0' && *b <= '9')
			y = y * 10 + (unsigned long)(*b++ - '0');
		if (x != y)
			return x < y ? -1 : 1;
		if (*a == '.')
			a++;
		else if (*a)
			a++;
		if (*b == '.')
			b++;
		else if (*b)
			b++;
	}
	return 0;
}

/* ---- the scanner ------------------------------------------------------- */

struct scan {
	char best[16];       /* newest runtime seen so far */
	char best_file[256]; /* the file it is in */
	char stub[256];      /* the toolkit's stub libcuda, when mapped */
	size_t lineno;       /* lines scanned so far */
	size_t bad;          /* malformed lines */
	char why[160];       /* the first of them */
};

/* Scans whole lines of buf[0..len). */
static void scan_lines(const char *buf, size_t len, struct scan *sc)
{
	struct gd_lines it;
	struct gd_slice line, f[6], path;

	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		size_t n;
		char ver[16];

		sc->lineno++;
		if (gd_tok_trim(line).n == 0)
			continue;
		n = gd_tok_split(line, f, 6);
		if (n < 5 || !memchr(f[0].p, '-', f[0].n) || f[1].n != 4) {
			if (!sc->bad++)
				snprintf(sc->why, sizeof sc->why, _("line %zu: not \"address perms offset dev inode [path]\""),
					 sc->lineno);
			continue;
		}
		if (n < 6)
			continue;   /* anonymous mapping */
		/* The path runs to the end of the line and may hold spaces. */
		path = gd_tok_trim((struct gd_slice){ f[5].p, (size_t)(line.p + line.n - f[5].p) });
		if (gd_cudart_version(path, ver, sizeof ver) && (!sc->best[0] || gd_version_cmp(ver, sc->best) > 0)) {
			GD_STRSET(sc->best, ver);
			gd_tok_copy(sc->best_file, sizeof sc->best_file, path);
		}
		if (!sc->stub[0] && gd_cuda_stub_file(path))
			gd_tok_copy(sc->stub, sizeof sc->stub, path);
	}
}

int gd_parse_proc_pid_maps(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_proc *p = s->procs.n ? GD_VEC_AT(s->procs, struct gd_proc, s->procs.n - 1)
				       : GD_PUSH(s, procs, struct gd_proc);
	struct scan sc = { .best = "" };

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("holds binary data (a NUL byte)"));
	scan_lines(buf, len, &sc);
	if (sc.best[0]) {
		GD_STRSET(p->cuda_runtime, sc.best);
		GD_STRSET(p->cuda_runtime_file, sc.best_file);
	}
	if (sc.stub[0])
		GD_STRSET(p->cuda_stub, sc.stub);
	if (sc.bad) {
		gd_err_set(err, -EINVAL, _("%s (%zu malformed line(s))"), sc.why, sc.bad);
		return sc.lineno > sc.bad ? 1 : -EINVAL;
	}
	return 0;
}

/* ---- the collector --------------------------------------------------- */

/* Streams proc/<pid>/maps through buf; returns 0 or -errno of the open. */
static int scan_file(const struct gd_root *r, uint64_t pid, char *buf, struct scan *sc)
{
	char rel[64];
	size_t have = 0;
	int fd;

	snprintf(rel, sizeof rel, "proc/%llu/maps", (unsigned long long)pid);
	fd = gd_root_openat(r, rel, O_RDONLY);
	if (fd < 0)
		return fd;
	for (;;) {
		ssize_t got = read(fd, buf + have, BUF_CAP - have);
		char *nl;

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			int e = got < 0 ? -errno : 0;

			if (have)
				scan_lines(buf, have, sc);   /* a last line without '\n' */
			close(fd);
			return e;
		}
		have += (size_t)got;
		nl = memrchr(buf, '\n', have);
		if (!nl) {
			if (have == BUF_CAP) {   /* a line longer than the buffer: not maps */
				if (!sc->bad++)
					snprintf(sc->why, sizeof sc->why, _("a line longer than %d bytes"), BUF_CAP);
				have = 0;
			}
			continue;
		}
		scan_lines(buf, (size_t)(nl - buf + 1), sc);
		have -= (size_t)(nl - buf + 1);
		memmove(buf, nl + 1, have);
	}
}

/* The host's mount namespace into buf: pid 1's, or, where pid 1's link
 * cannot be read (a sandbox whose pid 1 is in another user namespace),
 * gpudoctor's own (proc/self); "" when neither is known. */
static const char *host_mntns(const struct gd_collect_ctx *ctx, const struct gd_snapshot *s, char *buf, size_t size)
{
	buf[0] = '\0';
	GD_VEC_EACH(s->procs, const struct gd_proc, p)
		if (p->pid.ok && p->pid.v == 1 && p->mntns[0]) {
			snprintf(buf, size, "%s", p->mntns);
			return buf;
		}
	if (gd_root_readlink(ctx->root, "proc/self/ns/mnt", buf, size) < 0)
		buf[0] = '\0';
	return buf;
}

/* A user process in another mount namespace than pid 1's: a container's. */
static bool in_container(const struct gd_proc *p, const char *host_ns)
{
	return host_ns[0] && p->mntns[0] && strcmp(p->mntns, host_ns) != 0 && !(p->kthread.ok && p->kthread.v);
}

enum gd_src_status gd_collect_cuda_runtime(const struct gd_collect_ctx *ctx, struct gd_snapshot *s,
					   struct gd_err *err)
{
	size_t jobs = 0, denied = 0, bad = 0, failed = 0, others = 0;
	char first[GD_ERR_MSG_MAX / 2] = "";
	char *buf = NULL;
	char ns_buf[64];
	const char *host_ns = host_mntns(ctx, s, ns_buf, sizeof ns_buf);

	for (size_t i = 0; i < s->procs.n; i++) {
		struct gd_proc *p = GD_VEC_AT(s->procs, struct gd_proc, i);
		struct scan sc = { .best = "" };
		bool job;
		int rc;

		if (!p->pid.ok)
			continue;
		job = gd_proc_is_gpu_job(s, p);
		if (!job && !(in_container(p, host_ns) && others++ < STUB_SCAN_CAP))
			continue;
		/* serve, watch, record: the last whole scan, within a slow round */
		if (p->starttime_ticks.ok && gd_proc_cache_maps(ctx->proc_cache, p->pid.v, p->starttime_ticks.v, p)) {
			jobs += job;
			continue;
		}
		if (!buf)
			buf = gd_xmalloc(BUF_CAP);
		rc = scan_file(ctx->root, p->pid.v, buf, &sc);
		if (sc.stub[0])
			GD_STRSET(p->cuda_stub, sc.stub);
		if (!job) {
			/* no maps file (a root without one): nothing mapped, kept */
			if ((rc == 0 || rc == -ENOENT) && !sc.bad && p->starttime_ticks.ok)
				gd_proc_cache_maps_keep(ctx->proc_cache, p->pid.v, p->starttime_ticks.v, p);
			continue;   /* the stub alone; its errors are not a GPU job's */
		}
		jobs++;
		if (rc == -ENOENT || rc == -ESRCH)
			continue;   /* exited since the process list */
		if (rc == -EACCES || rc == -EPERM) {
			denied++;
			continue;
		}
		if (rc < 0) {
			if (!failed++ && !first[0])
				snprintf(first, sizeof first, "/proc/%llu/maps: %s", (unsigned long long)p->pid.v,
					 strerror(-rc));
			continue;
		}
		if (sc.best[0]) {
			GD_STRSET(p->cuda_runtime, sc.best);
			GD_STRSET(p->cuda_runtime_file, sc.best_file);
		}
		if (sc.bad && !bad++ && !first[0])
			snprintf(first, sizeof first, "/proc/%llu/maps: %s", (unsigned long long)p->pid.v, sc.why);
		else if (!sc.bad && p->starttime_ticks.ok)
			gd_proc_cache_maps_keep(ctx->proc_cache, p->pid.v, p->starttime_ticks.v, p);
	}
	free(buf);
	if (denied && denied == jobs) {
		gd_err_set(err, -EACCES, _("maps of %zu GPU job(s) not readable (needs root or CAP_SYS_PTRACE)"), denied);
		return GD_SRC_DENIED;
	}
	if (denied) {
		gd_err_set(err, -EACCES, _("maps of %zu of %zu GPU jobs not readable (needs root)"), denied, jobs);
		return GD_SRC_PARTIAL;
	}
	if (bad || failed) {
		gd_err_set(err, -EINVAL, "%s", first);
		return GD_SRC_PARTIAL;
	}
	return GD_SRC_OK;
}
