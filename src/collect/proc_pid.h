/*
 * proc_pid.h - helpers shared by the per-process collectors (proc_pid.c,
 * proc_pid_task.c, dev_shm.c, cgroup.c): the parsed form of a
 * /proc/<pid>/stat line, a read into a caller's reusable buffer (these
 * collectors run over thousands of processes every sample and must not
 * allocate per file), and small list helpers.
 */
#ifndef GD_COLLECT_PROC_PID_H
#define GD_COLLECT_PROC_PID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/root.h"
#include "core/tok.h"

/* task_struct flag of kernel threads (include/linux/sched.h). */
#define GD_PF_KTHREAD 0x00200000u

/* The fields of /proc/<pid>/stat (or task/<tid>/stat) gpudoctor uses. */
struct gd_pid_stat {
	uint64_t pid, ppid, flags, utime, stime, num_threads, starttime, rss_pages;
	char comm[64];
	char state[4];
};

/* Parses one stat line: pid, "(comm)" split at the LAST ')', then the
 * fields after it.  Returns 0, or a negative code with err saying why. */
int gd_pid_stat_parse(const char *buf, size_t len, struct gd_pid_stat *st, struct gd_err *err);

/* Reads up to cap - 1 bytes of rel into buf (NUL-terminated), *len set.
 * Returns 0 when the whole file fit, 1 when it was cut at cap - 1 bytes,
 * or -errno. */
int gd_proc_read_small(const struct gd_root *r, const char *rel, char *buf, size_t cap, size_t *len);

/* The same, rel opened relative to the directory dirfd (a pid's or a
 * task's directory: one path component to look up instead of four), for a
 * file the kernel hands out in one piece: a read that returns less than
 * the buffer's room is taken as the end, which saves the read(2) that
 * would return 0.  True of a regular file and of the /proc files made by
 * one show() call (stat, status, io, cgroup, cmdline, a task's stat,
 * schedstat, syscall, wchan); NOT of a seq_file of many records (maps,
 * mountinfo, mounts, net/...), whose reads stop at a page: read those with
 * gd_proc_read_small or gd_root_read. */
int gd_proc_read_at(int dirfd, const char *rel, char *buf, size_t cap, size_t *len);

/* True when the sep-separated list holds tok exactly ("rw,cpu,cpuacct"
 * holds "cpu"; "cpuacct" alone does not). */
bool gd_list_has(struct gd_slice list, char sep, const char *tok);

/* True when name is a non-empty run of decimal digits (a pid directory). */
bool gd_all_digits(const char *name);

/* One line of /proc/<pid>/mountinfo, split (slices into the line):
 *   id parent maj:min root mountpoint options [optional...] - fstype source superoptions
 * root and mountpoint are still octal-escaped.  False when malformed. */
struct gd_mountinfo_line {
	struct gd_slice root, mountpoint, fstype, source, superopts;
};
bool gd_mountinfo_split(struct gd_slice line, struct gd_mountinfo_line *m);

/* Copies s undoing the kernel's octal escapes ("\040" is a space),
 * truncating to dstsz, always NUL-terminated. */
void gd_unescape_octal(char *dst, size_t dstsz, struct gd_slice s);

/*
 * /proc/<pid>/stack (root only; FACTS.md §7.3), one frame a line:
 *   [<0>] os_acquire_mutex+0x1c/0x30 [nvidia]        (4.x and later: addresses hidden)
 *   [<ffffffffa09c376e>] uvm_ioctl+0xed7/0x1790 [nvidia_uvm]   (older)
 * into out as "schedule < os_acquire_mutex [nvidia] < ...", innermost
 * first, offsets dropped, the module kept.  A frame that does not fit
 * whole ends the text with "..."; a line that is no frame is skipped.
 * Returns the frames kept.
 */
size_t gd_kstack_format(const char *buf, size_t len, char *out, size_t outsz);

#endif
