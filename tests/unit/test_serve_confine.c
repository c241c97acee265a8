/*
 * test_serve_confine.c - serve's self-confinement (src/serve/confine.c), in
 * a child process (it cannot be undone): afterwards ptrace(2),
 * process_vm_readv(2) and process_vm_writev(2) fail with EPERM (seccomp)
 * and no_new_privs is set, while files still open for reading and writing
 * as before (it takes no file access away: /proc/<pid>/fd and the like must
 * stay readable to it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#include "serve/confine.h"

/* what the child saw, one errno (0: it worked) per attempt */
struct seen {
	int done;
	int create, read_back, nnp, ptrace_me, vm_read, vm_write;
};

static int try_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0600);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static void child(const char *dir, int out)
{
	char path[600], note[600], buf[4] = "";
	struct seen s;
	struct iovec local = { buf, 1 }, remote = { buf + 1, 1 };

	memset(&s, 0, sizeof s);
	s.done = gd_serve_confine(note, sizeof note);
	snprintf(path, sizeof path, "%s/new", dir);
	s.create = try_open(path, O_WRONLY | O_CREAT);
	snprintf(path, sizeof path, "%s/old", dir);
	s.read_back = try_open(path, O_RDONLY);
	s.nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	s.ptrace_me = ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0 ? errno : 0;
	s.vm_read = syscall(SYS_process_vm_readv, getpid(), &local, 1, &remote, 1, 0) < 0 ? errno : 0;
	s.vm_write = syscall(SYS_process_vm_writev, getpid(), &local, 1, &remote, 1, 0) < 0 ? errno : 0;
	if (write(out, &s, sizeof s) != (ssize_t)sizeof s)
		_exit(2);
	_exit(0);
}

static void test_confine(void **state)
{
	char dir[] = "/tmp/gd-confine.XXXXXX", path[600];
	struct seen s;
	int p[2], st, fd;
	pid_t pid;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/old", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		child(dir, p[1]);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &s, sizeof s), (ssize_t)sizeof s);
	close(p[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	assert_true(s.done & GD_CONFINE_NNP);
	assert_int_equal(s.nnp, 1);
	assert_int_equal(s.create, 0);
	assert_int_equal(s.read_back, 0);
#if defined(__x86_64__) || defined(__aarch64__)
	assert_true(s.done & GD_CONFINE_SECCOMP);
#ifndef __SANITIZE_ADDRESS__
	assert_int_equal(s.ptrace_me, EPERM);
#endif
	assert_int_equal(s.vm_read, EPERM);
	assert_int_equal(s.vm_write, EPERM);
#endif
	unlink(path);
	snprintf(path, sizeof path, "%s/new", dir);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_confine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
