/*
 * confine.h - what `gpudoctor serve` forbids itself at start, before its
 * threads exist (so they inherit it), whatever privileges it was given: it
 * reads the host and reaches into no process, so a flaw in its HTTP server
 * cannot be turned into ptrace or process_vm_writev against the host's
 * processes, even where the surrounding sandbox allows them (a container
 * runtime's default seccomp profile does, to a holder of CAP_SYS_PTRACE).
 *
 *   no_new_privs   no execve(2) can gain a privilege (a setuid binary, file
 *                  capabilities);
 *   seccomp        ptrace(2), process_vm_readv(2), process_vm_writev(2),
 *                  pidfd_getfd(2), process_madvise(2) and
 *                  open_by_handle_at(2) fail with EPERM, as does every
 *                  system call of another ABI (32-bit, x32).  (The ASan
 *                  build keeps ptrace: LeakSanitizer stops threads with it.)
 *
 * The capabilities it was given keep opening what they open for reading
 * (gpudoctor(1), PRIVILEGES).  With --user it first leaves uid 0
 * (gd_serve_become).
 */
#ifndef GD_SERVE_CONFINE_H
#define GD_SERVE_CONFINE_H

#include <stddef.h>

struct gd_err;

enum {
	GD_CONFINE_NNP = 1,      /* no_new_privs set */
	GD_CONFINE_SECCOMP = 2,  /* the system calls above refused */
};

/* Confines the calling thread (and the threads it creates later); returns
 * the GD_CONFINE_* that took effect, with note saying what did not and why
 * ("" when all did). */
int gd_serve_confine(char *note, size_t note_size);

/* The capabilities serve keeps when it becomes another user: each opens one
 * kind of evidence (gpudoctor(1), PRIVILEGES); every other one is lost. */
#define GD_SERVE_KEEP_CAPS "cap_dac_read_search, cap_sys_ptrace, cap_syslog, cap_perfmon"

/* --user: a process started as root (a container: Kubernetes grants added
 * capabilities only to uid 0) becomes USER (a name, or UID[:GID]) keeping
 * only those of the capabilities above that it holds, with no supplementary
 * groups, no inheritable or ambient capabilities, and not dumpable.  Files
 * of root's that only their owner may write (/proc/PID/mem of root's
 * processes) are then out of its reach.  Must run before any thread exists
 * (capabilities belong to a thread).  Negative, with err set, when it cannot
 * be done in full: serve then does not start. */
int gd_serve_become(const char *user, struct gd_err *err);

#endif
