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

static int open_file(struct gd_rec *r, double now, struct gd_err *err)
{
	r->gz = gd_rec_name_is_gzip(r->path);
	r->opened = now;
	if (!r->gz) {
		r->f = fopen(r->path, "a");
		if (!r->f)
			return gd_err_set(err, -errno, "%s: %s", r->path, strerror(errno));
		return 0;
	}
	r->z = gzopen(r->path, "ab6");
	if (!r->z)
		return gd_err_set(err, errno ? -errno : -ENOMEM, "%s: %s", r->path, errno ? strerror(errno) : _("cannot start zlib"));
	r->f = fopencookie(r->z, "w", (cookie_io_functions_t){ NULL, gz_write, NULL, gz_close_w });
	if (!r->f) {
		gzclose(r->z);
		r->z = NULL;
		return gd_err_set(err, -ENOMEM, _("%s: out of memory"), r->path);
	}
	return 0;
}

int gd_rec_open(struct gd_rec *r, const char *path, double max_bytes, double max_age_s, double now, struct gd_err *err)
{
	memset(r, 0, sizeof *r);
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
	return rc;
}

int gd_rec_write(struct gd_rec *r, const struct gd_snapshot *s, double now, struct gd_err *err)
{
	struct stat st;

	if (gd_snapshot_write_line(s, r->f) < 0 || fflush(r->f) == EOF ||
	    (r->gz && gzflush((gzFile)r->z, Z_SYNC_FLUSH) != Z_OK))
		return gd_err_set(err, -EIO, "%s: %s", r->path, strerror(errno ? errno : EIO));
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
	return close_file(r, err);
}

/* ---- reading ------------------------------------------------------------ */

struct gz_reader {
	gzFile z;
	bool *truncated;
};

static ssize_t gz_read(void *cookie, char *buf, size_t n)
{
	struct gz_reader *g = cookie;
	int got, zerr;

	got = gzread(g->z, buf, (unsigned)(n > (1u << 30) ? 1u << 30 : n));
	if (got > 0)
		return got;
	gzerror(g->z, &zerr);
	if (got == 0 && zerr != Z_BUF_ERROR)
		return 0;
	if (zerr == Z_BUF_ERROR) {
		/* "unexpected end of file": an interrupted recording; what was
		 * there has been delivered */
		if (g->truncated)
			*g->truncated = true;
		return 0;
	}
	errno = EIO;
	return -1;
}

static int gz_close_r(void *cookie)
{
	struct gz_reader *g = cookie;
	int rc = gzclose(g->z);

	free(g);
	return rc == Z_OK || rc == Z_BUF_ERROR ? 0 : EOF;
}

FILE *gd_rec_fopen_read(const char *path, bool *truncated, struct gd_err *err)
{
	unsigned char magic[2] = { 0, 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct gz_reader *g;
	FILE *f;

	if (truncated)
		*truncated = false;
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
	if (!g || !(g->z = gzdopen(fd, "rb"))) {
		free(g);
		close(fd);
		gd_err_set(err, -ENOMEM, _("%s: cannot start zlib"), path);
		return NULL;
	}
	gzbuffer(g->z, 256u << 10);
	g->truncated = truncated;
	f = fopencookie(g, "r", (cookie_io_functions_t){ gz_read, NULL, NULL, gz_close_r });
	if (!f) {
		gzclose(g->z);
		free(g);
		gd_err_set(err, -ENOMEM, _("%s: out of memory"), path);
	}
	return f;
}
