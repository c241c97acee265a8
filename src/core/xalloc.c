#include "core/xalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die_oom(size_t n)
{
	fprintf(stderr, "gpudoctor: out of memory (asked for %zu bytes)\n", n);
	abort();
}

void *gd_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die_oom(size);
	return p;
}

void *gd_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die_oom(n * size);
	return p;
}

void *gd_xreallocarray(void *p, size_t n, size_t size)
{
	void *q;

	if (size && n > SIZE_MAX / size)
		die_oom(SIZE_MAX);
	q = realloc(p, (n && size) ? n * size : 1);
	if (!q)
		die_oom(n * size);
	return q;
}

char *gd_xstrdup(const char *s)
{
	return gd_xstrndup(s, strlen(s));
}

char *gd_xstrndup(const char *s, size_t n)
{
	char *p = gd_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}
