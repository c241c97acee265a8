#include "core/root.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "core/i18n.h"
#include "core/xalloc.h"

static const char *strip(const char *rel)
{
	while (*rel == '/')
		rel++;
	return *rel ? rel : ".";
}

int gd_root_open(struct gd_root *r, const char *path, struct gd_err *err)
{
	char real[PATH_MAX];

	r->dirfd = -1;
	r->is_host = false;
	if (!path || !*path)
		path = "/";
	if (snprintf(r->path, sizeof r->path, "%s", path) >= (int)sizeof r->path)
		return gd_err_set(err, -ENAMETOOLONG, _("--root %s: path too long"), path);
	r->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->dirfd < 0)
		return gd_err_set(err, -errno, "--root %s: %s", path, strerror(errno));
	r->is_host = realpath(path, real) && strcmp(real, "/") == 0;
	return 0;
}

void gd_root_release(struct gd_root *r)
{
	if (r && r->dirfd >= 0)
		close(r->dirfd);
	if (r)
		r->dirfd = -1;
}

int gd_root_openat(const struct gd_root *r, const char *rel, int flags)
{
	int fd = openat(r->dirfd, strip(rel), flags | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* Drops a buffer; a private one is wiped first. */
static void drop(char *p, size_t size, bool private)
{
	if (private)
		explicit_bzero(p, size);
	free(p);
}

/* gd_root_read, and gd_root_read_private when private: its head when the
 * file is longer than cap (1), each buffer wiped before it is let go. */
static int read_whole(const struct gd_root *r, const char *rel, char **buf, size_t *len, size_t cap, bool private)
{
	size_t n = 0, size = cap < 4096 ? cap : 4096;
	char *p;
	int fd = gd_root_openat(r, rel, O_RDONLY | O_NONBLOCK), rc = 0;

	*buf = NULL;
	if (len)
		*len = 0;
	if (fd < 0)
		return fd;
	p = gd_xmalloc(size);
	for (;;) {
		ssize_t got;

		if (n + 1 >= size) {
			char *bigger;

			if (size >= cap && private) {
				rc = 1;
				break;
			}
			if (size >= cap) {
				free(p);
				close(fd);
				return -EFBIG;
			}
			size = size * 2 > cap ? cap : size * 2;
			/* not realloc: the old block of a private file is wiped */
			bigger = gd_xmalloc(size);
			memcpy(bigger, p, n);
			drop(p, n, private);
			p = bigger;
		}
		got = read(fd, p + n, size - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = -errno;

			drop(p, n, private);
			close(fd);
			return e;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	p[n] = '\0';
	*buf = p;
	if (len)
		*len = n;
	return rc;
}

int gd_root_read(const struct gd_root *r, const char *rel, char **buf, size_t *len, size_t cap)
{
	return read_whole(r, rel, buf, len, cap, false);
}

int gd_root_read_private(const struct gd_root *r, const char *rel, char **buf, size_t *len, size_t cap)
{
	return read_whole(r, rel, buf, len, cap, true);
}

void gd_free_private(char *buf, size_t len)
{
	if (buf)
		drop(buf, len, true);
}

int gd_root_read_line(const struct gd_root *r, const char *rel, char *out, size_t outsz)
{
	char *buf;
	size_t len, i;
	int rc = gd_root_read(r, rel, &buf, &len, 1u << 20);

	if (rc < 0)
		return rc;
	for (i = 0; i < len && buf[i] != '\n'; i++)
		;
	if (i >= outsz)
		i = outsz - 1;
	memcpy(out, buf, i);
	out[i] = '\0';
	free(buf);
	return 0;
}

int gd_root_read_i64(const struct gd_root *r, const char *rel, long long *out)
{
	char line[128], *end;
	int rc = gd_root_read_line(r, rel, line, sizeof line);

	if (rc < 0)
		return rc;
	errno = 0;
	*out = strtoll(line, &end, 0);
	if (errno || end == line)
		return -EINVAL;
	while (*end == ' ' || *end == '\t')
		end++;
	return *end ? -EINVAL : 0;
}

int gd_root_read_u64(const struct gd_root *r, const char *rel, unsigned long long *out)
{
	char line[128], *end, *p;
	int rc = gd_root_read_line(r, rel, line, sizeof line);

	if (rc < 0)
		return rc;
	for (p = line; *p == ' ' || *p == '\t'; p++)
		;
	if (*p == '-')
		return -ERANGE;
	errno = 0;
	*out = strtoull(p, &end, 0);
	if (errno || end == p)
		return -EINVAL;
	while (*end == ' ' || *end == '\t')
		end++;
	return *end ? -EINVAL : 0;
}

int gd_root_readlink(const struct gd_root *r, const char *rel, char *out, size_t outsz)
{
	ssize_t n = readlinkat(r->dirfd, strip(rel), out, outsz - 1);

	if (n < 0)
		return -errno;
	out[n] = '\0';
	return (int)n;
}

DIR *gd_root_opendir(const struct gd_root *r, const char *rel)
{
	int fd = openat(r->dirfd, strip(rel), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return d;
}

int gd_root_statvfs(const struct gd_root *r, const char *rel, struct statvfs *st)
{
	int fd = gd_root_openat(r, rel, O_RDONLY | O_PATH);
	int rc;

	if (fd < 0)
		return fd;
	rc = fstatvfs(fd, st) < 0 ? -errno : 0;
	close(fd);
	return rc;
}

int gd_root_statfs_type(const struct gd_root *r, const char *rel, unsigned long *type)
{
	struct statfs st;
	int fd = gd_root_openat(r, rel, O_RDONLY | O_PATH);
	int rc;

	if (fd < 0)
		return fd;
	rc = fstatfs(fd, &st) < 0 ? -errno : 0;
	close(fd);
	if (rc == 0)
		*type = (unsigned long)st.f_type;
	return rc;
}

bool gd_root_exists(const struct gd_root *r, const char *rel)
{
	struct stat st;

	return fstatat(r->dirfd, strip(rel), &st, AT_SYMLINK_NOFOLLOW) == 0;
}
