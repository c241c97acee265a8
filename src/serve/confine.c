/*
 * confine.c - serve's self-confinement (confine.h): no_new_privs and a
 * seccomp filter (classic BPF, no libseccomp) refusing the system calls
 * that reach into another process.  A step that the kernel or a
 * surrounding sandbox refuses is said in the note; the other still applies.
 *
 * Not Landlock, though it could forbid every write-open outside /dev: a
 * Landlock domain fails the kernel's ptrace access check on every process
 * outside it (security/landlock/ptrace.c; in 6.6 for every mode, read
 * included), which would hide the GPU jobs' /proc/<pid>/fd, io, maps and
 * syscall that the capabilities are there to open.
 */
#include "serve/confine.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/i18n.h"

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

static void add_note(char *note, size_t size, const char *what)
{
	size_t len = strlen(note);

	if (len + 3 < size)
		snprintf(note + len, size - len, "%s%s", len ? "; " : "", what);
}

#define DENY(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)

static int filter(char *why, size_t size)
{
#ifdef NATIVE_ARCH
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#ifdef __x86_64__
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1), /* the x32 ABI */
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
#endif
#ifndef __SANITIZE_ADDRESS__ /* the sanitizer build's leak check stops the threads with ptrace */
		DENY(SYS_ptrace),
#endif
		DENY(SYS_process_vm_readv),
		DENY(SYS_process_vm_writev),
		DENY(SYS_open_by_handle_at),
#ifdef SYS_pidfd_getfd
		DENY(SYS_pidfd_getfd),
#endif
#ifdef SYS_process_madvise
		DENY(SYS_process_madvise),
#endif
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { (unsigned short)(sizeof f / sizeof f[0]), f };

	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == 0)
		return 0;
	snprintf(why, size, "%s", strerror(errno));
	return -1;
#else
	snprintf(why, size, "%s", _("not built for this architecture"));
	return -1;
#endif
}

int gd_serve_confine(char *note, size_t note_size)
{
	char why[128], what[256];
	int done = 0;

	note[0] = '\0';
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) {
		done |= GD_CONFINE_NNP;
	} else {
		snprintf(what, sizeof what, _("no_new_privs: %s"), strerror(errno));
		add_note(note, note_size, what);
	}
	/* the filter needs no_new_privs (or CAP_SYS_ADMIN) */
	if (filter(why, sizeof why) == 0) {
		done |= GD_CONFINE_SECCOMP;
	} else {
		snprintf(what, sizeof what, _("seccomp filter not applied: %s"), why);
		add_note(note, note_size, what);
	}
	return done;
}
