/*
 * input.c - the kernel log's input back-ends: plain or gzip data from any
 * fd, and /dev/kmsg, fed to the scanner (scan.c) in large buffers.
 *
 * A regular file is mapped in 4 MiB windows (no copy: read()'s copy out of
 * the page cache is most of cat's time); gzip, pipes and standard input are
 * read 256 KiB at a time.  The magic bytes (1f 8b) decide gzip, not the
 * name, and several gzip members in a row are read as one stream.
 *
 * /dev/kmsg (Linux 3.5) gives one record per read(), its first line the
 * message and continuation lines KEY=value:
 *
 *   4,1234,5023456789,-;NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', ...
 *    SUBSYSTEM=pci
 *
 * A saved copy of it (a regular file) is read as a log file.
 *
 * Memory stays at one window or buffer (plus the longest line kept, 1 MiB)
 * however large the input; lines longer than that are cut.
 */
#include "klog/lineparse.h"

#include <pthread.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/i18n.h"

#define CHUNK (256u << 10)
#define ZIN (256u << 10)

struct src {
	int fd;
	bool gz, eof, zend;
	z_stream zs;
	unsigned char *in;
	size_t in_have;     /* plain mode: bytes of in[] not yet handed out */
};

static ssize_t read_full(int fd, void *buf, size_t n)
{
	ssize_t r;

	do
		r = read(fd, buf, n);
	while (r < 0 && errno == EINTR);
	return r;
}

/* Fills dst with up to n bytes of text; 0 at the end; -errno, or -EIO
 * with err set for a damaged gzip stream. */
static ssize_t src_read(struct src *s, char *dst, size_t n, const char *name, struct gd_err *err)
{
	if (!s->gz) {
		if (s->in_have) {
			size_t k = s->in_have < n ? s->in_have : n;

			memcpy(dst, s->in, k);
			memmove(s->in, s->in + k, s->in_have - k);
			s->in_have -= k;
			return (ssize_t)k;
		}
		{
			ssize_t r = read_full(s->fd, dst, n);

			return r < 0 ? -errno : r;
		}
	}
	s->zs.next_out = (unsigned char *)dst;
	s->zs.avail_out = (unsigned)n;
	while (s->zs.avail_out == n) {
		int zr;

		if (s->zs.avail_in == 0 && !s->eof) {
			ssize_t r = read_full(s->fd, s->in, ZIN);

			if (r < 0)
				return -errno;
			if (r == 0)
				s->eof = true;
			s->zs.next_in = s->in;
			s->zs.avail_in = (unsigned)r;
		}
		if (s->zend) {
			/* another gzip member follows, or the end */
			if (s->zs.avail_in == 0 && s->eof)
				return 0;
			if (s->zs.avail_in && s->zs.next_in[0] != 0x1f) {
				gd_err_set(err, -EIO, _("%s: junk after the end of the gzip data"), name);
				return -EIO;
			}
			if (s->zs.avail_in == 0)
				continue;
			inflateReset(&s->zs);
			s->zend = false;
		}
		if (s->zs.avail_in == 0 && s->eof) {
			gd_err_set(err, -EIO, _("%s: the gzip data ends early (truncated file)"), name);
			return -EIO;
		}
		zr = inflate(&s->zs, Z_NO_FLUSH);
		if (zr == Z_STREAM_END) {
			s->zend = true;
		} else if (zr != Z_OK && zr != Z_BUF_ERROR) {
			gd_err_set(err, -EIO, _("%s: damaged gzip data (%s)"), name, s->zs.msg ? s->zs.msg : zError(zr));
			return -EIO;
		}
	}
	return (ssize_t)(n - s->zs.avail_out);
}

/*
 * A plain regular file is mapped in windows instead of read: the scan then
 * touches the page cache directly, without read()'s copy, which is most of
 * cat's time.  Each window is unmapped before the next, so memory stays at
 * one window however large the file.  Returns 0, or -errno when mapping
 * failed before anything was fed (the caller falls back to read()).
 */
#define WINDOW (4u << 20)

static int read_mapped(struct gd_klog_feed *f, int fd, off_t size)
{
	off_t off = 0, page = (off_t)sysconf(_SC_PAGESIZE);
	bool skipping = false;

	while (off < size) {
		off_t base = off & ~(page - 1);
		size_t wlen = (size_t)(size - base < (off_t)WINDOW ? size - base : (off_t)WINDOW);
		bool last = base + (off_t)wlen >= size;
		char *p = mmap(NULL, wlen, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, base);
		const char *s, *e, *nl;

		if (p == MAP_FAILED)
			return off == 0 ? -errno : -EIO;
		madvise(p, wlen, MADV_SEQUENTIAL);
		s = p + (off - base);
		e = p + wlen;
		if (skipping) {
			/* the rest of a cut line */
			nl = memchr(s, '\n', (size_t)(e - s));
			if (!nl) {
				munmap(p, wlen);
				off = base + (off_t)wlen;
				continue;
			}
			s = nl + 1;
			skipping = false;
		}
		if (last) {
			gd_klog_feed_buf(f, s, (size_t)(e - s));
			if (e > s && e[-1] != '\n')
				f->lines++;
			off = size;
		} else if ((nl = memrchr(s, '\n', (size_t)(e - s)))) {
			gd_klog_feed_buf(f, s, (size_t)(nl + 1 - s));
			off = base + (off_t)(nl + 1 - p);
		} else {
			gd_klog_feed_buf(f, s, (size_t)(e - s) < GD_KLOG_MAX_LINE ? (size_t)(e - s) : GD_KLOG_MAX_LINE);
			f->long_lines++;
			f->lines++;
			skipping = true;
			off = base + (off_t)wlen;
		}
		munmap(p, wlen);
	}
	gd_klog_feed_flush(f);
	return 0;
}

/*
 * The same in parallel, for files of several windows on a machine with
 * several CPUs: the filter (scan.c), which is most of the time, runs on
 * worker threads, a window each, and keeps the lines to parse; this
 * thread cuts the windows exactly as read_mapped does and feeds each
 * window's lines to the parser in file order, so events, their order and
 * the line count are the same.  At most SLOTS windows are mapped at a time;
 * a window with more than CANDS lines to parse has the rest scanned here.
 */
#define SLOTS 4
#define CANDS 16384
#define MAX_WORKERS 3

struct slot {
	char *map;
	size_t maplen;
	const char *s;          /* the piece to scan */
	size_t len;
	bool cut;               /* a cut long line: one line, one long_lines */
	bool unterminated;      /* the last piece does not end with '\n' */
	int state;              /* 0 free, 1 queued, 2 taken, 3 done */
	uint64_t seq;
	struct gd__klog_scan sc;
};

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct slot slot[SLOTS];
	uint64_t next_seq;      /* for the workers: the oldest queued first */
	bool quit;
};

static void *worker(void *arg)
{
	struct pool *p = arg;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct slot *w = NULL;

		for (int i = 0; i < SLOTS; i++)
			if (p->slot[i].state == 1 && (!w || p->slot[i].seq < w->seq))
				w = &p->slot[i];
		if (!w) {
			if (p->quit)
				break;
			pthread_cond_wait(&p->cv, &p->mu);
			continue;
		}
		w->state = 2;
		pthread_mutex_unlock(&p->mu);
		w->sc.lines = 0;
		w->sc.n = 0;
		gd__klog_scan_buf(&w->sc, w->s, w->len);
		pthread_mutex_lock(&p->mu);
		w->state = 3;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Feeds a scanned window, in order, and releases it. */
static void consume(struct gd_klog_feed *f, struct slot *w)
{
	for (size_t i = 0; i < w->sc.n; i++)
		gd_klog_feed_line(f, w->sc.c[i].p, w->sc.c[i].n);
	f->lines += w->sc.lines;
	if (w->sc.stop)
		gd_klog_feed_buf(f, w->sc.stop, (size_t)(w->s + w->len - w->sc.stop));
	if (w->cut) {
		f->long_lines++;
		f->lines++;
	}
	if (w->unterminated)
		f->lines++;
	munmap(w->map, w->maplen);
	w->map = NULL;
}

static int workers_for(off_t size)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (size < (off_t)(4 * WINDOW) || n < 2)
		return 0;
	return n > MAX_WORKERS ? MAX_WORKERS : (int)n;
}

static int read_parallel(struct gd_klog_feed *f, int fd, off_t size, int nworkers)
{
	off_t off = 0, page = (off_t)sysconf(_SC_PAGESIZE);
	bool skipping = false;
	struct pool p;
	pthread_t th[MAX_WORKERS];
	int started = 0, rc = 0;
	uint64_t seq = 0, next_feed = 0;

	memset(&p, 0, sizeof p);
	for (int i = 0; i < SLOTS; i++) {
		p.slot[i].sc.c = malloc(CANDS * sizeof *p.slot[i].sc.c);
		p.slot[i].sc.cap = CANDS;
		if (!p.slot[i].sc.c) {
			for (int j = 0; j < i; j++)
				free(p.slot[j].sc.c);
			return -ENOMEM;
		}
	}
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	for (; started < nworkers; started++)
		if (pthread_create(&th[started], NULL, worker, &p) != 0)
			break;
	pthread_mutex_lock(&p.mu);
	while (started && (off < size || next_feed < seq)) {
		struct slot *w = NULL, *oldest = NULL;

		for (int i = 0; i < SLOTS; i++) {
			if (p.slot[i].state == 0 && !w)
				w = &p.slot[i];
			if (p.slot[i].state && p.slot[i].seq == next_feed)
				oldest = &p.slot[i];
		}
		if (oldest && oldest->state == 3) {
			pthread_mutex_unlock(&p.mu);
			consume(f, oldest);
			pthread_mutex_lock(&p.mu);
			oldest->state = 0;
			next_feed++;
			continue;
		}
		if (!w || off >= size) {
			pthread_cond_wait(&p.cv, &p.mu);
			continue;
		}
		pthread_mutex_unlock(&p.mu);
		{
			/* the next window, cut as read_mapped cuts it */
			off_t base = off & ~(page - 1);
			size_t wlen = (size_t)(size - base < (off_t)WINDOW ? size - base : (off_t)WINDOW);
			bool last = base + (off_t)wlen >= size;
			char *m = mmap(NULL, wlen, PROT_READ, MAP_PRIVATE, fd, base);
			const char *s, *e, *nl;

			if (m == MAP_FAILED) {
				rc = off == 0 ? -errno : -EIO;
				pthread_mutex_lock(&p.mu);
				break;
			}
			madvise(m, wlen, MADV_SEQUENTIAL);
			s = m + (off - base);
			e = m + wlen;
			w->map = m;
			w->maplen = wlen;
			w->cut = w->unterminated = false;
			w->s = s;
			w->len = 0;
			if (skipping) {
				nl = memchr(s, '\n', (size_t)(e - s));
				if (!nl) {
					/* all of it the rest of a cut line: nothing to scan */
					off = base + (off_t)wlen;
					goto queue;
				}
				s = nl + 1;
				skipping = false;
			}
			w->s = s;
			if (last) {
				w->len = (size_t)(e - s);
				w->unterminated = e > s && e[-1] != '\n';
				off = size;
			} else if ((nl = memrchr(s, '\n', (size_t)(e - s)))) {
				w->len = (size_t)(nl + 1 - s);
				off = base + (off_t)(nl + 1 - m);
			} else {
				w->len = (size_t)(e - s) < GD_KLOG_MAX_LINE ? (size_t)(e - s) : GD_KLOG_MAX_LINE;
				w->cut = true;
				skipping = true;
				off = base + (off_t)wlen;
			}
queue:
			pthread_mutex_lock(&p.mu);
			w->seq = seq++;
			w->state = 1;
			pthread_cond_broadcast(&p.cv);
		}
	}
	p.quit = true;
	pthread_cond_broadcast(&p.cv);
	pthread_mutex_unlock(&p.mu);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	/* on a failure, what was scanned is still fed, in order */
	for (; next_feed < seq; next_feed++)
		for (int i = 0; i < SLOTS; i++)
			if (p.slot[i].state && p.slot[i].seq == next_feed) {
				if (p.slot[i].state != 3) {
					p.slot[i].sc.lines = p.slot[i].sc.n = 0;
					gd__klog_scan_buf(&p.slot[i].sc, p.slot[i].s, p.slot[i].len);
				}
				consume(f, &p.slot[i]);
				p.slot[i].state = 0;
			}
	for (int i = 0; i < SLOTS; i++)
		free(p.slot[i].sc.c);
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	if (!started)
		return read_mapped(f, fd, size);
	if (rc == 0)
		gd_klog_feed_flush(f);
	return rc;
}

int gd_klog_read_fd(struct gd_klog_feed *f, int fd, const char *name, struct gd_err *err)
{
	return gd__klog_read_fd_workers(f, fd, name, err, -1);
}

int gd__klog_read_fd_workers(struct gd_klog_feed *f, int fd, const char *name, struct gd_err *err, int workers)
{
	struct src s;
	char *buf;
	size_t cap = CHUNK + GD_KLOG_MAX_LINE, have = 0;
	bool skipping = false, any = false;
	int rc = 0;
	ssize_t r;

	{
		struct stat st;
		unsigned char magic[2];

		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
		    pread(fd, magic, 2, 0) >= 1 && !(magic[0] == 0x1f && st.st_size >= 2 && magic[1] == 0x8b)) {
			int nw = workers < 0 ? workers_for(st.st_size) : workers > MAX_WORKERS ? MAX_WORKERS : workers;
			int m = nw ? read_parallel(f, fd, st.st_size, nw) : read_mapped(f, fd, st.st_size);

			if (m == 0)
				return 0;
			if (m == -EIO)
				return gd_err_set(err, -EIO, _("%s: could not map the rest of the file"), name);
			/* not mappable: read it */
			if (lseek(fd, 0, SEEK_SET) < 0)
				return gd_err_set(err, -errno, "%s: %s", name, strerror(errno));
		}
	}
	memset(&s, 0, sizeof s);
	s.fd = fd;
	buf = malloc(cap + 64);
	s.in = malloc(ZIN);
	if (!buf || !s.in) {
		free(buf);
		free(s.in);
		return gd_err_set(err, -ENOMEM, _("%s: out of memory"), name);
	}
	/* the magic bytes decide, not the name */
	r = read_full(fd, s.in, ZIN);
	if (r < 0) {
		rc = gd_err_set(err, -errno, "%s: %s", name, strerror(errno));
		goto out;
	}
	if (r >= 2 && s.in[0] == 0x1f && s.in[1] == 0x8b) {
		s.gz = true;
		if (inflateInit2(&s.zs, 15 + 16) != Z_OK) {
			rc = gd_err_set(err, -ENOMEM, _("%s: cannot start zlib"), name);
			goto out;
		}
		s.zs.next_in = s.in;
		s.zs.avail_in = (unsigned)r;
	} else {
		s.in_have = (size_t)r;
		if (r == 0)
			s.eof = true;
	}
	for (;;) {
		char *nl;

		r = src_read(&s, buf + have, CHUNK, name, err);
		if (r < 0) {
			if (!err->msg[0])
				gd_err_set(err, (int)r, "%s: %s", name, strerror((int)-r));
			rc = any || have ? 1 : (int)r;
			break;
		}
		if (r == 0)
			break;
		any = true;
		if (skipping) {
			/* the rest of a cut line */
			char *e = memchr(buf + have, '\n', (size_t)r);

			if (!e)
				continue;
			size_t rest = (size_t)(buf + have + r - (e + 1));

			memmove(buf + have, e + 1, rest);
			r = (ssize_t)rest;
			skipping = false;
		}
		have += (size_t)r;
		nl = memrchr(buf, '\n', have);
		if (nl) {
			size_t used = (size_t)(nl - buf) + 1;

			gd_klog_feed_buf(f, buf, used);
			memmove(buf, buf + used, have - used);
			have -= used;
		} else if (have >= GD_KLOG_MAX_LINE) {
			gd_klog_feed_buf(f, buf, have);
			f->long_lines++;
			f->lines++;
			have = 0;
			skipping = true;
		}
	}
	if (have && !skipping) {
		gd_klog_feed_buf(f, buf, have);
		f->lines++;
	}
	gd_klog_feed_flush(f);
out:
	if (s.gz)
		inflateEnd(&s.zs);
	free(buf);
	free(s.in);
	return rc;
}

int gd_klog_read_kmsg(struct gd_klog_feed *f, int fd, struct gd_err *err)
{
	char *rec;
	uint64_t lost = 0;
	int rc = 0;
	struct stat st;

	/* A saved copy of the device (cat /dev/kmsg > file, or a fixture tree's
	 * dev/kmsg) holds many records per read(): read it as a log file,
	 * whose scanner knows the record format too. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		return gd_klog_read_fd(f, fd, "/dev/kmsg", err);
	rec = malloc(16384);
	if (!rec)
		return gd_err_set(err, -ENOMEM, _("/dev/kmsg: out of memory"));
	for (;;) {
		ssize_t r = read(fd, rec, 16384);
		char *nl;

		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE) {
				lost++;   /* overwritten while we read: the next read goes on */
				continue;
			}
			if (errno == EAGAIN)
				break;
			rc = gd_err_set(err, -errno, "/dev/kmsg: %s", strerror(errno));
			break;
		}
		if (r == 0)
			break;
		/* one record: the first line; continuation lines carry KEY=value */
		nl = memchr(rec, '\n', (size_t)r);
		gd_klog_feed_buf(f, rec, nl ? (size_t)(nl - rec) : (size_t)r);
		f->lines++;
	}
	(void)lost;
	gd_klog_feed_flush(f);
	free(rec);
	return rc;
}
