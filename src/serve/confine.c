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
#include <grp.h>
#include <inttypes.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/err.h"
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

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

/* capget/capset of the calling thread: 64 bits, permitted and effective */
static int caps_get(uint64_t *eff, uint64_t *prm)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof d);
	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	*eff = (uint64_t)d[1].effective << 32 | d[0].effective;
	*prm = (uint64_t)d[1].permitted << 32 | d[0].permitted;
	return 0;
}

static int caps_set(uint64_t keep)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof d);
	d[0].effective = d[0].permitted = (uint32_t)keep;
	d[1].effective = d[1].permitted = (uint32_t)(keep >> 32);
	return (int)syscall(SYS_capset, &h, d);
}

/* NAME, or UID[:GID] (GID: the user's own group, else the same number) */
static int who(const char *user, uid_t *uid, gid_t *gid, struct gd_err *err)
{
	struct passwd *pw = getpwnam(user);
	char *end;
	unsigned long u, g;

	if (pw) {
		*uid = pw->pw_uid;
		*gid = pw->pw_gid;
		return 0;
	}
	errno = 0;
	u = strtoul(user, &end, 10);
	if (end == user || errno || u >= (uid_t)-1 || (*end && *end != ':') || user[0] == '-')
		return gd_err_set(err, -EINVAL, _("--user %s: no such user (a name, or UID[:GID])"), user);
	g = u;
	if (*end == ':') {
		char *gend;

		errno = 0;
		g = strtoul(end + 1, &gend, 10);
		if (gend == end + 1 || *gend || errno || g >= (gid_t)-1 || end[1] == '-')
			return gd_err_set(err, -EINVAL, _("--user %s: no such user (a name, or UID[:GID])"), user);
	} else if ((pw = getpwuid((uid_t)u)) != NULL) {
		g = pw->pw_gid;
	}
	*uid = (uid_t)u;
	*gid = (gid_t)g;
	return 0;
}

int gd_serve_become(const char *user, struct gd_err *err)
{
	static const int keep_caps[] = { CAP_DAC_READ_SEARCH, CAP_SYS_PTRACE, CAP_SYSLOG, CAP_PERFMON };
	uint64_t eff, prm, keep = 0, eff2, prm2;
	uid_t uid = 0;
	gid_t gid = 0;
	int rc = who(user, &uid, &gid, err);

	if (rc < 0)
		return rc;
	if (uid == 0)
		return gd_err_set(err, -EINVAL, _("--user %s: that is root; name the user serve should become"), user);
	if (geteuid() == uid && getuid() == uid)
		return 0;
	if (geteuid() != 0)
		return gd_err_set(err, -EPERM, _("--user %s: only a process started as root can become another user "
					       "(this one runs as uid %u)"), user, (unsigned)geteuid());
	if (caps_get(&eff, &prm) < 0)
		return gd_err_set(err, -errno, _("--user %s: cannot read the capabilities: %s"), user, strerror(errno));
	for (size_t i = 0; i < sizeof keep_caps / sizeof keep_caps[0]; i++)
		if (prm >> keep_caps[i] & 1)
			keep |= UINT64_C(1) << keep_caps[i];
	/* the permitted set survives setuid(2) with keepcaps; the effective
	 * one is cleared and set again from it below */
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 || setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
	    setresuid(uid, uid, uid) < 0)
		return gd_err_set(err, -errno, _("--user %s: cannot become uid %u gid %u: %s (it needs CAP_SETUID and "
					       "CAP_SETGID)"), user, (unsigned)uid, (unsigned)gid, strerror(errno));
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0 || caps_set(keep) < 0 ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return gd_err_set(err, -errno, _("--user %s: cannot keep only its own capabilities: %s"), user,
				  strerror(errno));
	/* what took effect, read back: uid 0 cannot come back, and nothing
	 * beyond the kept capabilities is held */
	if (caps_get(&eff2, &prm2) < 0 || eff2 != keep || prm2 != keep || setresuid(0, 0, 0) == 0 || getuid() != uid ||
	    getgid() != gid)
		return gd_err_set(err, -EPERM, _("--user %s: the change did not hold (capabilities %#" PRIx64 " of %#" PRIx64
					       ")"), user, prm2, keep);
	return 0;
}
