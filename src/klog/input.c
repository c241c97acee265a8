/*
 * input.c - the kernel log's input back-ends: plain or gzip data from any
 * fd, and /dev/kmsg, fed to the scanner (scan.c) in large buffers.
 *
 * A regular file is mapped in 32 MiB windows (no copy: read()'s copy out of
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
#include "klog/klog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

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
				gd_err_set(err, -EIO, "%s: junk after the end of the gzip data", name);
				return -EIO;
			}
			if (s->zs.avail_in == 0)
				continue;
			inflateReset(&s->zs);
			s->zend = false;
		}
		if (s->zs.avail_in == 0 && s->eof) {
			gd_err_set(err, -EIO, "%s: the gzip data ends early (truncated file)", name);
			return -EIO;
		}
		zr = inflate(&s->zs, Z_NO_FLUSH);
		if (zr == Z_STREAM_END) {
			s->zend = true;
		} else if (zr != Z_OK && zr != Z_BUF_ERROR) {
			gd_err_set(err, -EIO, "%s: damaged gzip data (%s)", name, s->zs.msg ? s->zs.msg : zError(zr));
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
#define WINDOW (32u << 20)

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

int gd_klog_read_fd(struct gd_klog_feed *f, int fd, const char *name, struct gd_err *err)
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
			int m = read_mapped(f, fd, st.st_size);

			if (m == 0)
				return 0;
			if (m == -EIO)
				return gd_err_set(err, -EIO, "%s: could not map the rest of the file", name);
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
		return gd_err_set(err, -ENOMEM, "%s: out of memory", name);
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
			rc = gd_err_set(err, -ENOMEM, "%s: cannot start zlib", name);
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
		return gd_err_set(err, -ENOMEM, "/dev/kmsg: out of memory");
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
