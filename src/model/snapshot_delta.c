/*
 * snapshot_delta.c - the keyed sections of a recording's lines, and the
 * references of a line to the line before (snapshot_delta.h).
 */
#include "model/snapshot_delta.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/xalloc.h"

struct keyed {
	const char *section, *key;
	size_t snap_offset, key_offset, size;
};

static const struct keyed keyed[GD_DELTA_NSEC] = {
	{ "procs", "pid", offsetof(struct gd_snapshot, procs), offsetof(struct gd_proc, pid), sizeof(struct gd_proc) },
	{ "threads", "tid", offsetof(struct gd_snapshot, threads), offsetof(struct gd_thread, tid),
	  sizeof(struct gd_thread) },
	{ "job_threads", "tid", offsetof(struct gd_snapshot, job_threads), offsetof(struct gd_job_thread, tid),
	  sizeof(struct gd_job_thread) },
	{ "job_ranks", "pid", offsetof(struct gd_snapshot, job_ranks), offsetof(struct gd_job_rank, pid),
	  sizeof(struct gd_job_rank) },
};

struct pos {
	uint64_t key;
	size_t at;
};

int gd_delta_slot(const struct gd_record_desc *d)
{
	for (int i = 0; i < GD_DELTA_NSEC; i++)
		if (d->offset == keyed[i].snap_offset)
			return i;
	return -1;
}

const char *gd_delta_key_name(int slot)
{
	return keyed[slot].key;
}

static struct gd_vec *sec_of(struct gd_snapshot *s, int slot)
{
	return (struct gd_vec *)(void *)((char *)s + keyed[slot].snap_offset);
}

static const struct gd_vec *csec_of(const struct gd_snapshot *s, int slot)
{
	return (const struct gd_vec *)(const void *)((const char *)s + keyed[slot].snap_offset);
}

const struct gd_u64 *gd_delta_key(int slot, const void *rec)
{
	return (const struct gd_u64 *)(const void *)((const char *)rec + keyed[slot].key_offset);
}

void gd_delta_refs_init(struct gd_delta_refs *r)
{
	memset(r, 0, sizeof *r);
}

void gd_delta_refs_release(struct gd_delta_refs *r)
{
	for (int i = 0; i < GD_DELTA_NSEC; i++)
		gd_vec_release(&r->sec[i]);
	gd_delta_refs_init(r);
}

void gd_delta_ref_push(struct gd_delta_refs *r, struct gd_snapshot *s, int slot, uint64_t key)
{
	struct gd_vec *v = sec_of(s, slot);
	void *rec = gd_vec_push(v, keyed[slot].size);
	struct gd_delta_ref *ref = gd_vec_push(&r->sec[slot], sizeof *ref);

	gd_u64_set((struct gd_u64 *)(void *)((char *)rec + keyed[slot].key_offset), key);
	ref->index = v->n - 1;
	ref->key = key;
	r->n++;
}

void gd_delta_base_init(struct gd_delta_base *b)
{
	memset(b, 0, sizeof *b);
}

void gd_delta_base_release(struct gd_delta_base *b)
{
	for (int i = 0; i < GD_DELTA_NSEC; i++) {
		gd_vec_release(&b->sec[i]);
		gd_vec_release(&b->idx[i]);
	}
	gd_delta_base_init(b);
}

void gd_delta_base_forget(struct gd_delta_base *b)
{
	for (int i = 0; i < GD_DELTA_NSEC; i++) {
		gd_vec_reset(&b->sec[i]);
		gd_vec_reset(&b->idx[i]);
	}
	b->have = false;
}

static int by_key_at(const void *a, const void *b)
{
	const struct pos *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/* Keeps n records at src in *dst, reusing its allocation. */
static void vec_copy(struct gd_vec *dst, const void *src, size_t n, size_t size)
{
	if (n > dst->cap) {
		dst->items = gd_xreallocarray(dst->items, n, size);
		dst->cap = n;
	}
	if (n)
		memcpy(dst->items, src, n * size);
	dst->n = n;
}

void gd_delta_base_set(struct gd_delta_base *b, const struct gd_snapshot *s)
{
	for (int i = 0; i < GD_DELTA_NSEC; i++) {
		const struct gd_vec *v = csec_of(s, i);
		size_t m = 0;

		vec_copy(&b->sec[i], v->items, v->n, keyed[i].size);
		if (v->n > b->idx[i].cap) {
			b->idx[i].items = gd_xreallocarray(b->idx[i].items, v->n, sizeof(struct pos));
			b->idx[i].cap = v->n;
		}
		for (size_t k = 0; k < v->n; k++) {
			const struct gd_u64 *key = gd_delta_key(i, (const char *)v->items + k * keyed[i].size);

			if (key->ok)
				((struct pos *)b->idx[i].items)[m++] = (struct pos){ key->v, k };
		}
		b->idx[i].n = m;
		if (m > 1)
			qsort(b->idx[i].items, m, sizeof(struct pos), by_key_at);
	}
	b->at = s->host.wall_time_s.ok ? s->host.wall_time_s : s->host.uptime_s;
	b->have = true;
}

const void *gd_delta_base_find(const struct gd_delta_base *b, int slot, uint64_t key, bool unique)
{
	const struct pos *p = b->idx[slot].items;
	size_t lo = 0, hi = b->idx[slot].n;

	/* the first (lowest position) with key */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == b->idx[slot].n || p[lo].key != key)
		return NULL;
	if (unique && lo + 1 < b->idx[slot].n && p[lo + 1].key == key)
		return NULL;
	return (const char *)b->sec[slot].items + p[lo].at * keyed[slot].size;
}

int gd_delta_resolve(const struct gd_delta_base *b, const struct gd_delta_refs *r, struct gd_snapshot *s,
		     const char *where, struct gd_err *err)
{
	const char *w = where ? where : "", *colon = where ? ": " : "";

	if (b->have && r->after.ok && !(b->at.ok && b->at.v == r->after.v))
		return gd_err_set(err, -EINVAL,
				  _("%s%swritten after the line of %.6f, but the line before it here is of %.6f (lines taken "
				    "out of the recording?)"),
				  w, colon, r->after.v, b->at.ok ? b->at.v : NAN);
	for (int i = 0; i < GD_DELTA_NSEC; i++) {
		struct gd_vec *v = sec_of(s, i);

		GD_VEC_EACH(r->sec[i], const struct gd_delta_ref, ref) {
			const void *rec = b->have ? gd_delta_base_find(b, i, ref->key, false) : NULL;

			if (!rec && !b->have)
				return gd_err_set(err, -EINVAL,
						  _("%s%s%s[%zu] is %s %" PRIu64 " as in the line before, which was not read "
						    "(a piece cut from a recording, or a line before it was bad?)"),
						  w, colon, keyed[i].section, ref->index,
						  keyed[i].key, ref->key);
			if (!rec)
				return gd_err_set(err, -EINVAL,
						  _("%s%s%s[%zu] is %s %" PRIu64 " as in the line before, which has no such "
						    "record (the recording is damaged)"),
						  w, colon, keyed[i].section, ref->index,
						  keyed[i].key, ref->key);
			memcpy((char *)v->items + ref->index * keyed[i].size, rec, keyed[i].size);
		}
	}
	return 0;
}

int gd_delta_apply(struct gd_delta_base *b, const struct gd_delta_refs *r, struct gd_snapshot *s, const char *where,
		   struct gd_err *err)
{
	if (r->n && gd_delta_resolve(b, r, s, where, err) < 0) {
		gd_delta_base_forget(b);
		return err->code;
	}
	gd_delta_base_set(b, s);
	return 0;
}

bool gd_delta_same_written(const struct gd_record_desc *d, const void *a, const void *b)
{
	for (size_t i = 0; i < d->nfields; i++) {
		const struct gd_field *f = &d->fields[i];
		const char *p = (const char *)a + f->offset, *q = (const char *)b + f->offset;

		switch (f->type) {
		case GD_FT_U64: {
			const struct gd_u64 *x = (const void *)p, *y = (const void *)q;

			if (x->ok != y->ok || (x->ok && x->v != y->v))
				return false;
			break;
		}
		case GD_FT_F64: {
			const struct gd_f64 *x = (const void *)p, *y = (const void *)q;
			bool wx = x->ok && isfinite(x->v), wy = y->ok && isfinite(y->v);

			if (wx != wy || (wx && memcmp(&x->v, &y->v, sizeof x->v) != 0))
				return false;
			break;
		}
		case GD_FT_STR:
			if (strncmp(p, q, f->size) != 0)
				return false;
			break;
		}
	}
	return true;
}
