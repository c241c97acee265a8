/*
 * outfile.c - opening a file gpudoctor writes (outfile.h).
 */
#include "core/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/i18n.h"

int gd_outfile_open(const char *path, bool append)
{
	int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC | (append ? O_APPEND : 0);
	struct stat st;
	int fd;

	/* O_EXCL: a name that exists (a link too, dangling or not) is not created over */
	fd = open(path, flags | O_CREAT | O_EXCL, GD_OUTFILE_MODE);
	if (fd >= 0 || errno != EEXIST)
		return fd >= 0 ? fd : -errno;
	fd = open(path, flags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || (!append && S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0)) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

FILE *gd_outfile_fopen(const char *path, bool append)
{
	int fd = gd_outfile_open(path, append);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, append ? "a" : "w");
	if (!f) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

const char *gd_outfile_strerror(int errnum)
{
	if (errnum == ELOOP)
		return _("a symbolic link: not written through (give the file's own name)");
	return strerror(errnum);
}
