/*
 * vec.h - a growable array of fixed-size records, owned by its container.
 *
 * The snapshot keeps unbounded sets (processes, disks, CPUs) in these.  The
 * element type is fixed by the field table that describes the section, so
 * the generic JSON code and the typed accessors agree.
 */
#ifndef GD_MODEL_VEC_H
#define GD_MODEL_VEC_H

#include <stddef.h>
#include <stdint.h>

struct gd_vec {
	void *items;
	size_t n, cap;
};

/* Appends one zeroed element of elem_size bytes and returns it. */
void *gd_vec_push(struct gd_vec *v, size_t elem_size);
void gd_vec_release(struct gd_vec *v);
/* Removes every element, keeping the allocation. */
void gd_vec_reset(struct gd_vec *v);

#define GD_VEC_AT(vec, type, i) (&((type *)(vec).items)[i])
#define GD_VEC_EACH(vec, type, it) \
	for (type *it = (type *)(vec).items; it && it < (type *)(vec).items + (vec).n; it++)

/* Finds the first element whose char array at offset equals key (NULL if
 * none).  Used to pair a disk or an interface across two snapshots. */
const void *gd_vec_find_str(const struct gd_vec *v, size_t elem_size, size_t offset, const char *key);
/* The same for a struct gd_u64 key at offset. */
const void *gd_vec_find_u64(const struct gd_vec *v, size_t elem_size, size_t offset, uint64_t key);

#endif
