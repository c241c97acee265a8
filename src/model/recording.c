/*
 * recording.c - the recording file (recording.h): gzip or plain JSON lines,
 * written a snapshot at a time and rotated by size or age; and its reader.
 */
#include "model/recording.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/i18n.h"
#include "core/outfile.h"
#include "core/xalloc.h"
#include "model/snapshot_json.h"

int gd_rec_parse_size(const char *text, double *bytes, struct gd_err *err)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (end == text || errno || !(v > 0))
		return gd_err_set(err, -EINVAL, _("\"%s\" is not a size (500M, 2G)"), text);
	switch (*end) {
	case 'k': case 'K': v *= 1024; end++; break;
	case 'm': case 'M': v *= 1024.0 * 1024; end++; break;
	case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
	case 't': case 'T': v *= 1024.0 * 1024 * 1024 * 1024; end++; break;
	default: break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v < 4096)
		return gd_err_set(err, -EINVAL, _("\"%s\" is not a size of at least 4 KiB (500M, 2G)"), text);
	*bytes = v;
	return 0;
}

bool gd_rec_name_is_gzip(const char *path)
{
	size_t n = strlen(path);

	return !(n >= 6 && strcmp(path + n - 6, ".jsonl") == 0);
}

/* ---- writing through zlib: a FILE whose writes go to gzwrite ----------- */

static ssize_t gz_write(void *cookie, const char *buf, size_t n)
{
	int w;

	if (n == 0)
		return 0;
	w = gzwrite((gzFile)cookie, buf, (unsigned)(n > (1u << 30) ? 1u << 30 : n));
	return w <= 0 ? -1 : (ssize_t)w;
}

static int gz_close_w(void *cookie)
{
	return gzclose((gzFile)cookie) == Z_OK ? 0 : EOF;
}

/* ---- appending to a recording that was cut ------------------------------
 *
 * A recording stopped by kill -9 or power loss ends in the middle of a
 * snapshot: a plain one with a line without its newline, a gzip one with a
 * member that has no end (the stream after the last Z_SYNC_FLUSH, and maybe
 * part of the next line's deflate data).  Appended to as it is, the next
 * line would be glued to the cut one, and the next gzip member would follow
 * a member that never ends, which no decoder reads past (report said "read
 * error" and loaded nothing).  So before appending, the cut snapshot is
 * taken off: a plain file is cut after its last newline; a gzip file is
 * inflated to its end (once, at start: about a second for 300 MB), and when
 * its last member has no end it is cut at the last block boundary that
 * closes a line (where a Z_SYNC_FLUSH left it, byte-aligned) and closed as
 * deflate and gzip close a stream: an empty final stored block and the
 * trailer (CRC-32 and length of what the member holds).  zcat then reads
 * the file whole, and the new member after it. */

/* The file's last bytes from a line's end on: cut (plain). */
static int cut_plain(int fd, off_t size, struct gd_rec *r, struct gd_err *err)
{
	char buf[4096];
	off_t end = size;

	while (end > 0) {
		size_t n = end > (off_t)sizeof buf ? sizeof buf : (size_t)end;
		ssize_t got = pread(fd, buf, n, end - (off_t)n);

		if (got != (ssize_t)n)
			return gd_err_set(err, -EIO, "%s: %s", r->path, strerror(got < 0 ? errno : EIO));
		for (size_t i = n; i > 0; i--)
			if (buf[i - 1] == '\n') {
				end -= (off_t)(n - i);
				goto found;
			}
		end -= (off_t)n;
	}
found:
	if (end == size)
		return 0;
	if (ftruncate(fd, end) < 0)
		return gd_err_set(err, -errno, "%s: %s", r->path, strerror(errno));
	r->cut_bytes = (long long)(size - end);
	return 0;
}

static void le32(unsigned char *p, uLong v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* The gzip file's last member, when it has no end, cut and closed. */
static int cut_gzip(int fd, off_t size, struct gd_rec *r, struct gd_err *err)
{
	z_stream zs;
	unsigned char *in = malloc(1u << 16), *out = malloc(1u << 16), last = '\n';
	off_t pos = 0, member = 0;
	struct { bool ok; off_t at; uLong crc, len; } good = { false, 0, 0, 0 };
	uLong crc = crc32(0, Z_NULL, 0), len = 0;
	int rc = 0, zrc = Z_OK;

	memset(&zs, 0, sizeof zs);
	if (!in || !out || inflateInit2(&zs, 15 + 16) != Z_OK) {
		free(in);
		free(out);
		return gd_err_set(err, -ENOMEM, _("%s: cannot start zlib"), r->path);
	}
	for (;;) {
		size_t made;

		if (zs.avail_in == 0) {
			ssize_t got = pread(fd, in, 1u << 16, pos);

			if (got < 0) {
				rc = gd_err_set(err, -errno, "%s: %s", r->path, strerror(errno));
				goto out;
			}
			if (got == 0)
				break;   /* the end, inside a member when zrc is not Z_STREAM_END */
			pos += got;
			zs.next_in = in;
			zs.avail_in = (uInt)got;
		}
		zs.next_out = out;
		zs.avail_out = 1u << 16;
		zrc = inflate(&zs, Z_BLOCK);
		made = (1u << 16) - zs.avail_out;
		if (made) {
			crc = crc32(crc, out, (uInt)made);
			len += made;
			last = out[made - 1];
		}
		if (zrc == Z_STREAM_END) {
			/* a whole member; another may follow */
			member = pos - zs.avail_in;
			inflateReset(&zs);
			crc = crc32(0, Z_NULL, 0);
			len = 0;
			good.ok = false;
			if (zs.avail_in == 0 && member == size)
				break;
			continue;
		}
		if (zrc == Z_BUF_ERROR && zs.avail_in == 0)
			continue;
		if (zrc != Z_OK) {
			rc = gd_err_set(err, -EINVAL,
					_("%s: the gzip data is damaged at byte %lld, before its end: not appending to it (record "
					  "to another file; report reads what comes before the damage)"),
					r->path, (long long)(pos - zs.avail_in));
			goto out;
		}
		/* at a block boundary, byte-aligned, a line closed: where a
		 * Z_SYNC_FLUSH leaves the stream */
		if ((zs.data_type & 128) && (zs.data_type & 7) == 0 && !(zs.data_type & 64) && len && last == '\n') {
			good.ok = true;
			good.at = pos - zs.avail_in;
			good.crc = crc;
			good.len = len;
		}
	}
	if (zrc == Z_STREAM_END || member == size)
		goto out;   /* whole */
	{
		/* the final empty stored block (BFINAL 1, BTYPE 00, LEN 0,
		 * NLEN ~0), then CRC-32 and ISIZE */
		unsigned char tail[13] = { 0x01, 0x00, 0x00, 0xff, 0xff };
		off_t at = good.ok ? good.at : member;

		le32(tail + 5, good.crc);
		le32(tail + 9, good.len & 0xffffffffu);
		if (ftruncate(fd, at) < 0 ||
		    (good.ok && pwrite(fd, tail, sizeof tail, at) != (ssize_t)sizeof tail)) {
			rc = gd_err_set(err, -errno, "%s: %s", r->path, strerror(errno ? errno : EIO));
			goto out;
		}
		r->cut_bytes = (long long)(size - at);
	}
out:
	inflateEnd(&zs);
	free(in);
	free(out);
	return rc;
}

/* Before appending to r->path: the kind of what is there must be the
 * name's, and a cut snapshot at its end is taken off. */
static int prepare_append(struct gd_rec *r, struct gd_err *err)
{
	int fd = open(r->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);   /* never through a link (core/outfile.h) */
	unsigned char magic[2] = { 0, 0 };
	struct stat st;
	bool gz;
	int rc;

	r->cut_bytes = 0;
	if (fd < 0)
		return errno == ENOENT ? 0 : gd_err_set(err, -errno, "%s: %s", r->path, gd_outfile_strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return 0;
	}
	/* a cut as early as its first byte is still gzip */
	gz = pread(fd, magic, 2, 0) >= 1 && magic[0] == 0x1f && (st.st_size < 2 || magic[1] == 0x8b);
	if (gz != r->gz) {
		close(fd);
		return gd_err_set(err, -EINVAL,
				  r->gz ? _("%s holds plain JSON lines, and this name asks for gzip: append to it under a name "
					    "ending in .jsonl, or record to another file")
					: _("%s holds gzip data, and a name ending in .jsonl asks for plain lines: append to it "
					    "under another name (run.jsonl.gz), or record to another file"),
				  r->path);
	}
	rc = gz ? cut_gzip(fd, st.st_size, r, err) : cut_plain(fd, st.st_size, r, err);
	close(fd);
	return rc;
}

static int open_file(struct gd_rec *r, double now, struct gd_err *err)
{
	int fd;

	r->gz = gd_rec_name_is_gzip(r->path);
	r->opened = now;
	if (prepare_append(r, err) < 0)
		return err->code;
	if (!r->gz) {
		r->f = gd_outfile_fopen(r->path, true);
		if (!r->f)
			return gd_err_set(err, -errno, "%s: %s", r->path, gd_outfile_strerror(errno));
		return 0;
	}
	fd = gd_outfile_open(r->path, true);
	if (fd < 0)
		return gd_err_set(err, fd, "%s: %s", r->path, gd_outfile_strerror(-fd));
	r->z = gzdopen(fd, "ab6");
	if (!r->z) {
		close(fd);
		return gd_err_set(err, -ENOMEM, "%s: %s", r->path, _("cannot start zlib"));
	}
	r->f = fopencookie(r->z, "w", (cookie_io_functions_t){ NULL, gz_write, NULL, gz_close_w });
	if (!r->f) {
		gzclose(r->z);
		r->z = NULL;
		return gd_err_set(err, -ENOMEM, _("%s: out of memory"), r->path);
	}
	return 0;
}

int gd_rec_open(struct gd_rec *r, const char *path, double max_bytes, double max_age_s, unsigned full_every,
		double now, struct gd_err *err)
{
	memset(r, 0, sizeof *r);
	gd_delta_base_init(&r->prev);
	r->full_every = full_every ? full_every : GD_REC_FULL_EVERY;
	if (strlen(path) + 3 > sizeof r->path)
		return gd_err_set(err, -ENAMETOOLONG, _("%s: name too long"), path);
	gd_strlcpy(r->path, path, sizeof r->path);
	r->max_bytes = max_bytes;
	r->max_age_s = max_age_s;
	return open_file(r, now, err);
}

static int close_file(struct gd_rec *r, struct gd_err *err)
{
	int rc = 0;

	if (r->f && fclose(r->f) == EOF)
		rc = gd_err_set(err, -EIO, "%s: %s", r->path, strerror(errno ? errno : EIO));
	r->f = NULL;
	r->z = NULL;
	/* the next file starts whole */
	r->lines = 0;
	gd_delta_base_forget(&r->prev);
	return rc;
}

int gd_rec_write(struct gd_rec *r, const struct gd_snapshot *s, double now, struct gd_err *err)
{
	struct stat st;
	size_t refs = 0;

	if (gd_snapshot_write_line_after(s, &r->prev, r->lines % r->full_every == 0, r->f, &refs) < 0 ||
	    fflush(r->f) == EOF || (r->gz && gzflush((gzFile)r->z, Z_SYNC_FLUSH) != Z_OK)) {
		gd_delta_base_forget(&r->prev);
		return gd_err_set(err, -EIO, "%s: %s", r->path, strerror(errno ? errno : EIO));
	}
	r->lines++;
	r->refs += refs;
	if (!(r->max_bytes > 0 && stat(r->path, &st) == 0 && (double)st.st_size >= r->max_bytes) &&
	    !(r->max_age_s > 0 && now - r->opened >= r->max_age_s))
		return 0;
	{
		char old[sizeof r->path + 2];

		snprintf(old, sizeof old, "%s.1", r->path);
		if (close_file(r, err) < 0)
			return err->code;
		if (rename(r->path, old) < 0)
			return gd_err_set(err, -errno, "%s -> %s: %s", r->path, old, strerror(errno));
		r->rotations++;
		return open_file(r, now, err);
	}
}

int gd_rec_close(struct gd_rec *r, struct gd_err *err)
{
	int rc = close_file(r, err);

	gd_delta_base_release(&r->prev);
	return rc;
}

/* ---- reading ------------------------------------------------------------ */

/* gzip members in a row, inflated straight from the file (not gzread: on
 * damaged data gzread drops what it decoded in the same call, so a
 * recording damaged near its start loaded nothing). */
#define GZ_IN (256u << 10)

struct gz_reader {
	int fd;
	z_stream zs;
	bool in_member, done;
	int *cut;
	unsigned char in[GZ_IN];
};

/* More input; false at the end of the file (or an error: errno). */
static bool gz_fill(struct gz_reader *g)
{
	ssize_t got;

	do
		got = read(g->fd, g->in, GZ_IN);
	while (got < 0 && errno == EINTR);
	if (got <= 0)
		return false;
	g->zs.next_in = g->in;
	g->zs.avail_in = (uInt)got;
	return true;
}

static ssize_t gz_read(void *cookie, char *buf, size_t n)
{
	struct gz_reader *g = cookie;

	if (g->done || n == 0)
		return 0;
	g->zs.next_out = (unsigned char *)buf;
	g->zs.avail_out = (uInt)(n > (1u << 30) ? 1u << 30 : n);
	while (g->zs.next_out == (unsigned char *)buf) {
		int rc;

		if (g->zs.avail_in == 0) {
			errno = 0;
			if (!gz_fill(g)) {
				if (errno)
					return -1;
				/* the end of the file: inside a member, an
				 * interrupted recording (what was there has
				 * been delivered) */
				if (g->in_member && g->cut)
					*g->cut = GD_REC_ENDS_EARLY;
				g->done = true;
				break;
			}
		}
		if (!g->in_member) {
			/* another member, or trailing bytes that are not one
			 * (ignored, as gzip does) */
			if (g->zs.avail_in >= 1 && g->zs.next_in[0] != 0x1f) {
				g->done = true;
				break;
			}
			g->in_member = true;
		}
		rc = inflate(&g->zs, Z_NO_FLUSH);
		if (rc == Z_STREAM_END) {
			inflateReset(&g->zs);
			g->in_member = false;
			continue;
		}
		if (rc == Z_OK || (rc == Z_BUF_ERROR && g->zs.avail_in == 0))
			continue;
		/* damaged (a cut member appended to by an older gpudoctor):
		 * what came before is delivered */
		if (g->cut)
			*g->cut = GD_REC_DAMAGED;
		g->done = true;
		break;
	}
	return (ssize_t)((char *)g->zs.next_out - buf);
}

static int gz_close_r(void *cookie)
{
	struct gz_reader *g = cookie;
	int rc = close(g->fd);

	inflateEnd(&g->zs);
	free(g);
	return rc == 0 ? 0 : EOF;
}

FILE *gd_rec_fopen_read(const char *path, int *cut, bool *gz, struct gd_err *err)
{
	unsigned char magic[2] = { 0, 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct gz_reader *g;
	FILE *f;

	if (cut)
		*cut = 0;
	if (gz)
		*gz = false;
	if (fd < 0) {
		gd_err_set(err, -errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (pread(fd, magic, 2, 0) != 2 || magic[0] != 0x1f || magic[1] != 0x8b) {
		f = fdopen(fd, "r");
		if (!f) {
			gd_err_set(err, -errno, "%s: %s", path, strerror(errno));
			close(fd);
		}
		return f;
	}
	g = calloc(1, sizeof *g);
	if (!g || inflateInit2(&g->zs, 15 + 16) != Z_OK) {
		free(g);
		close(fd);
		gd_err_set(err, -ENOMEM, _("%s: cannot start zlib"), path);
		return NULL;
	}
	g->fd = fd;
	g->cut = cut;
	if (gz)
		*gz = true;
	f = fopencookie(g, "r", (cookie_io_functions_t){ gz_read, NULL, NULL, gz_close_r });
	if (!f) {
		gz_close_r(g);
		gd_err_set(err, -ENOMEM, _("%s: out of memory"), path);
	}
	return f;
}

ssize_t gd_getline_max(char **line, size_t *cap, FILE *f, size_t max)
{
	size_t n = 0;
	ssize_t rc;
	int c;

	flockfile(f);
	for (;;) {
		c = getc_unlocked(f);
		if (c == EOF)
			break;
		if (n >= max) {
			ungetc(c, f);
			rc = -2;
			goto out;
		}
		if (n + 2 > *cap) {
			size_t want = *cap ? *cap * 2 : 256;

			if (want > max + 2)
				want = max + 2;
			*line = gd_xreallocarray(*line, want, 1);
			*cap = want;
		}
		(*line)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	rc = n ? (ssize_t)n : -1;
out:
	if (*line)
		(*line)[n] = '\0';
	funlockfile(f);
	return rc;
}
