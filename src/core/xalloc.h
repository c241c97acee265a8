/*
 * xalloc.h - allocation that never returns NULL.
 *
 * gpudoctor is short-lived or restartable; running out of memory aborts with
 * a message instead of threading ENOMEM through every branch (htop's XUtils).
 * Sizes are overflow-checked.
 */
#ifndef GD_CORE_XALLOC_H
#define GD_CORE_XALLOC_H

#include <stddef.h>

void *gd_xmalloc(size_t size);
void *gd_xcalloc(size_t n, size_t size);
void *gd_xreallocarray(void *p, size_t n, size_t size);
char *gd_xstrdup(const char *s);
char *gd_xstrndup(const char *s, size_t n);

#endif
