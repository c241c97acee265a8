/*
 * test_outfile.c - the one way gpudoctor opens a file it writes
 * (core/outfile.c): new files 0600, never through a symbolic link, an
 * existing file appended to or emptied and keeping its mode.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/outfile.h"

/* The paths of the test, in one directory of its own. */
struct paths {
	char dir[64], new_[96], link[96], dangling[96], absent[96];
};

static void slurp(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void test_outfile(void **state)
{
	struct stat st;
	struct paths p;
	char buf[64];
	FILE *f;
	mode_t old = umask(0);

	(void)state;
	snprintf(p.dir, sizeof p.dir, "/tmp/gd-outfile.XXXXXX");
	assert_non_null(mkdtemp(p.dir));
	snprintf(p.new_, sizeof p.new_, "%s/new", p.dir);
	snprintf(p.link, sizeof p.link, "%s/link", p.dir);
	snprintf(p.dangling, sizeof p.dangling, "%s/dangling", p.dir);
	snprintf(p.absent, sizeof p.absent, "%s/absent", p.dir);
	/* new: 0600 whatever the umask lets through */
	f = gd_outfile_fopen(p.new_, false);
	assert_non_null(f);
	fputs("one\n", f);
	fclose(f);
	assert_int_equal(stat(p.new_, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* existing: appended to, or emptied; its mode stays */
	assert_int_equal(chmod(p.new_, 0644), 0);
	f = gd_outfile_fopen(p.new_, true);
	assert_non_null(f);
	fputs("two\n", f);
	fclose(f);
	slurp(p.new_, buf, sizeof buf);
	assert_string_equal(buf, "one\ntwo\n");
	f = gd_outfile_fopen(p.new_, false);
	assert_non_null(f);
	fputs("three\n", f);
	fclose(f);
	slurp(p.new_, buf, sizeof buf);
	assert_string_equal(buf, "three\n");
	assert_int_equal(stat(p.new_, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	/* a link to a file, and a dangling one: refused, nothing written or created */
	assert_int_equal(symlink(p.new_, p.link), 0);
	assert_int_equal(gd_outfile_open(p.link, true), -ELOOP);
	assert_int_equal(gd_outfile_open(p.link, false), -ELOOP);
	slurp(p.new_, buf, sizeof buf);
	assert_string_equal(buf, "three\n");
	assert_int_equal(symlink(p.absent, p.dangling), 0);
	assert_int_equal(gd_outfile_open(p.dangling, false), -ELOOP);
	assert_int_equal(access(p.absent, F_OK), -1);
	assert_string_equal(gd_outfile_strerror(ELOOP), "a symbolic link: not written through (give the file's own name)");
	/* a directory is no file to write */
	assert_true(gd_outfile_open(p.dir, false) < 0);
	unlink(p.new_);
	unlink(p.link);
	unlink(p.dangling);
	rmdir(p.dir);
	umask(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outfile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
