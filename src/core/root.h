/*
 * root.h - every path under /proc, /sys and /dev is opened relative to a root.
 *
 * The root is a directory file descriptor ("--root DIR", default "/").  A
 * collector names a path such as "proc/meminfo" (a leading '/' is accepted and
 * ignored) and never opens an absolute path itself.  Tests point the root at
 * a fixture tree; a container deployment points it at the host's mounted /.
 * PCP calls the same idea linux_statspath, node_exporter --path.procfs.
 *
 * All functions return 0 or a positive count on success and -errno on failure,
 * so callers can map ENOENT to "absent" and EACCES to "denied".
 */
#ifndef GD_CORE_ROOT_H
#define GD_CORE_ROOT_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/statvfs.h>

#include "core/err.h"

/* Largest file gd_root_read reads whole; /proc/interrupts on a 1,000-CPU host
 * stays well below it. */
#define GD_READ_CAP (64u << 20)

struct gd_root {
	int dirfd;
	char path[4096];
	bool is_host;   /* the root is "/" itself: live namespaces can be entered */
};

int gd_root_open(struct gd_root *r, const char *path, struct gd_err *err);
void gd_root_release(struct gd_root *r);

/* Opens rel relative to the root; returns an fd or -errno. */
int gd_root_openat(const struct gd_root *r, const char *rel, int flags);

/* Reads the whole of rel into a new NUL-terminated buffer (*buf, owned by the
 * caller, free()).  Returns 0 or -errno; -EFBIG past cap bytes. */
int gd_root_read(const struct gd_root *r, const char *rel, char **buf, size_t *len, size_t cap);

/* The same for a file that holds secrets (/proc/<pid>/environ): at most
 * cap - 1 bytes, returning 1 when the file is longer (its head is in
 * *buf), and every buffer it lets go of is wiped first.  Free *buf with
 * gd_free_private(*buf, *len), which wipes it. */
int gd_root_read_private(const struct gd_root *r, const char *rel, char **buf, size_t *len, size_t cap);
void gd_free_private(char *buf, size_t len);

/* Reads a small file (first line, trailing newline removed) into out. */
int gd_root_read_line(const struct gd_root *r, const char *rel, char *out, size_t outsz);

/* Parses a small file holding one integer (decimal, or 0x hex). */
int gd_root_read_u64(const struct gd_root *r, const char *rel, unsigned long long *out);
int gd_root_read_i64(const struct gd_root *r, const char *rel, long long *out);

/* readlink(2) relative to the root; the result is NUL-terminated. */
int gd_root_readlink(const struct gd_root *r, const char *rel, char *out, size_t outsz);

/* opendir(3) relative to the root; NULL with errno set on failure. */
DIR *gd_root_opendir(const struct gd_root *r, const char *rel);

int gd_root_statvfs(const struct gd_root *r, const char *rel, struct statvfs *st);
int gd_root_statfs_type(const struct gd_root *r, const char *rel, unsigned long *type);

/* True when rel exists (any type, symlinks not followed). */
bool gd_root_exists(const struct gd_root *r, const char *rel);

#endif
