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
 * (gpudoctor(1), PRIVILEGES).
 */
#ifndef GD_SERVE_CONFINE_H
#define GD_SERVE_CONFINE_H

#include <stddef.h>

enum {
	GD_CONFINE_NNP = 1,      /* no_new_privs set */
	GD_CONFINE_SECCOMP = 2,  /* the system calls above refused */
};

/* Confines the calling thread (and the threads it creates later); returns
 * the GD_CONFINE_* that took effect, with note saying what did not and why
 * ("" when all did). */
int gd_serve_confine(char *note, size_t note_size);

#endif
