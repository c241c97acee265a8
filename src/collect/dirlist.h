/*
 * dirlist.h - a directory listing through the root, sorted in version order
 * ("hwmon2" before "hwmon10"), for the sysfs collectors that walk classes of
 * devices (infiniband ports, thermal zones, hwmon chips).  Sorting makes the
 * snapshot's arrays stable from one sample to the next.
 */
#ifndef GD_COLLECT_DIRLIST_H
#define GD_COLLECT_DIRLIST_H

#include <stddef.h>

#include "core/root.h"

struct gd_dirlist {
	char **names;   /* owned: gd_dirlist_release frees them */
	size_t n;
};

/* Lists rel relative to the root, without names starting with '.'.
 * Returns 0 or -errno (the list is then empty, and still safe to release). */
int gd_dirlist_read(const struct gd_root *root, const char *rel, struct gd_dirlist *out);
void gd_dirlist_release(struct gd_dirlist *l);

#endif
