/*
 * fixture.h - fixture trees for the collector unit tests.
 *
 * A tree is a fresh directory /tmp/gd-test-<tag>-<pid>-XXXXXX opened as a
 * gd_root, so a collector reads "proc/..." and "sys/..." from files the test
 * wrote.  tree_release removes it; a test that fails an assertion never
 * reaches tree_release, so every test binary that uses trees passes
 * tree_sweep as its group teardown: it removes whatever this process left.
 *
 *	struct tree t;
 *
 *	tree_init(&t, "cpu");
 *	tree_put(&t, "proc/uptime", "350735.47 234388.90\n");
 *	assert_int_equal(run(gd_collect_uptime, &t.ctx, &s, &err), GD_SRC_OK);
 *	tree_release(&t);
 *	...
 *	return cmocka_run_group_tests(tests, NULL, tree_sweep);
 */
#ifndef GD_TEST_FIXTURE_H
#define GD_TEST_FIXTURE_H

#include "testutil.h"

#include <dirent.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/collect.h"
#include "core/root.h"

struct tree {
	char dir[64];
	struct gd_root root;
	struct gd_collect_ctx ctx;
};

/* Creates the tree's directory (tag names the test file) and opens it. */
static inline void tree_init(struct tree *t, const char *tag)
{
	struct gd_err err;
	int n;

	memset(t, 0, sizeof *t);
	n = snprintf(t->dir, sizeof t->dir, "/tmp/gd-test-%s-%ld-XXXXXX", tag, (long)getpid());
	assert_true(n > 0 && (size_t)n < sizeof t->dir);
	assert_non_null(mkdtemp(t->dir));
	gd_err_clear(&err);
	assert_int_equal(gd_root_open(&t->root, t->dir, &err), 0);
	assert_false(t->root.is_host);
	t->ctx.root = &t->root;
}

/* Creates every missing directory above rel (and rel itself when whole). */
static inline void tree_mkdirs(struct tree *t, const char *rel, bool whole)
{
	char path[512];
	size_t base = strlen(t->dir) + 1;

	snprintf(path, sizeof path, "%s/%s", t->dir, rel);
	for (char *p = path + base; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	if (whole)
		mkdir(path, 0755);
}

/* Writes n bytes of text (NULs allowed) to rel, creating its directories. */
static inline void tree_putn(struct tree *t, const char *rel, const char *text, size_t n)
{
	char path[512];
	FILE *f;

	tree_mkdirs(t, rel, false);
	snprintf(path, sizeof path, "%s/%s", t->dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static inline void tree_put(struct tree *t, const char *rel, const char *text)
{
	tree_putn(t, rel, text, strlen(text));
}

/* rel -> target (target as written: relative, as sysfs's own links are). */
static inline void tree_link(struct tree *t, const char *target, const char *rel)
{
	char path[512];

	tree_mkdirs(t, rel, false);
	snprintf(path, sizeof path, "%s/%s", t->dir, rel);
	assert_int_equal(symlink(target, path), 0);
}

static inline int tree_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void tree_release(struct tree *t)
{
	gd_root_release(&t->root);
	assert_int_equal(nftw(t->dir, tree_rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* Group teardown: removes the trees this process left behind (a test that
 * failed before its tree_release).  Only names with this pid are touched, so
 * other test processes running at the same time keep theirs. */
static inline int tree_sweep(void **state)
{
	char mark[32], path[320];
	DIR *d = opendir("/tmp");
	struct dirent *e;

	(void)state;
	if (!d)
		return 0;
	snprintf(mark, sizeof mark, "-%ld-", (long)getpid());
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "gd-test-", 8) != 0 || !strstr(e->d_name + 8, mark))
			continue;
		snprintf(path, sizeof path, "/tmp/%s", e->d_name);
		nftw(path, tree_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	}
	closedir(d);
	return 0;
}

/* Runs a collector; prints the reason when it is not OK. */
static inline enum gd_src_status run(gd_collect_fn fn, const struct gd_collect_ctx *ctx, struct gd_snapshot *s,
				     struct gd_err *err)
{
	enum gd_src_status st;

	gd_err_clear(err);
	st = fn(ctx, s, err);
	if (st != GD_SRC_OK)
		print_message("  [%s] %s\n", gd_src_status_name(st), err->msg);
	return st;
}

#endif
