#include "collect/dirlist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

static int cmp_names(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

int gd_dirlist_read(const struct gd_root *root, const char *rel, struct gd_dirlist *out)
{
	DIR *d = gd_root_opendir(root, rel);
	struct dirent *de;
	size_t cap = 0;

	out->names = NULL;
	out->n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (out->n == cap) {
			cap = cap ? cap * 2 : 8;
			out->names = gd_xreallocarray(out->names, cap, sizeof *out->names);
		}
		out->names[out->n++] = gd_xstrdup(de->d_name);
	}
	closedir(d);
	if (out->n)
		qsort(out->names, out->n, sizeof *out->names, cmp_names);
	return 0;
}

void gd_dirlist_release(struct gd_dirlist *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	l->names = NULL;
	l->n = 0;
}
