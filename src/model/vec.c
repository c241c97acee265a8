#include "model/vec.h"

#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "model/value.h"

void *gd_vec_push(struct gd_vec *v, size_t elem_size)
{
	char *slot;

	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 8;
		v->items = gd_xreallocarray(v->items, v->cap, elem_size);
	}
	slot = (char *)v->items + v->n * elem_size;
	memset(slot, 0, elem_size);
	v->n++;
	return slot;
}

void gd_vec_release(struct gd_vec *v)
{
	if (!v)
		return;
	free(v->items);
	v->items = NULL;
	v->n = v->cap = 0;
}

void gd_vec_reset(struct gd_vec *v)
{
	v->n = 0;
}

const void *gd_vec_find_str(const struct gd_vec *v, size_t elem_size, size_t offset, const char *key)
{
	for (size_t i = 0; i < v->n; i++) {
		const char *e = (const char *)v->items + i * elem_size;

		if (strcmp(e + offset, key) == 0)
			return e;
	}
	return NULL;
}

const void *gd_vec_find_u64(const struct gd_vec *v, size_t elem_size, size_t offset, uint64_t key)
{
	for (size_t i = 0; i < v->n; i++) {
		const char *e = (const char *)v->items + i * elem_size;
		const struct gd_u64 *k = (const struct gd_u64 *)(const void *)(e + offset);

		if (k->ok && k->v == key)
			return e;
	}
	return NULL;
}
