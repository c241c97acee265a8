#include "model/snapshot_json.h"

#include <stdarg.h>

#include "model/recording.h"
#include "model/snapshot_delta.h"

#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/xalloc.h"

/* Strings read from /proc (a comm, a command line) may hold any byte; JSON
 * needs UTF-8, so invalid text is written with each non-ASCII byte as '?'. */
json_t *gd_json_string(const char *p, size_t n)
{
	json_t *v = json_stringn(p, n);
	char *tmp;

	if (v)
		return v;
	tmp = gd_xstrndup(p, n);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)tmp[i] >= 0x80 || (unsigned char)tmp[i] < 0x20)
			tmp[i] = '?';
	v = json_stringn(tmp, n);
	free(tmp);
	return v;
}

bool gd_u64_of_digits(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

static json_t *record_to_json(const struct gd_record_desc *d, const char *rec)
{
	json_t *o = json_object();

	for (size_t i = 0; i < d->nfields; i++) {
		const struct gd_field *f = &d->fields[i];
		const char *p = rec + f->offset;
		json_t *v = NULL;

		switch (f->type) {
		case GD_FT_U64: {
			const struct gd_u64 *x = (const void *)p;

			/* JSON integers in jansson are signed 64-bit: larger
			 * counters are written as a string of digits, which
			 * loads back exactly. */
			if (x->ok && x->v <= INT64_MAX) {
				v = json_integer((json_int_t)x->v);
			} else if (x->ok) {
				char digits[24];

				snprintf(digits, sizeof digits, "%" PRIu64, x->v);
				v = json_string(digits);
			}
			break;
		}
		case GD_FT_F64: {
			const struct gd_f64 *x = (const void *)p;

			if (x->ok && isfinite(x->v))
				v = json_real(x->v);
			break;
		}
		case GD_FT_STR:
			if (p[0])
				v = gd_json_string(p, strnlen(p, f->size));
			break;
		}
		json_object_set_new(o, f->name, v ? v : json_null());
	}
	return o;
}

/* s as JSON; with prev (the line before, as written), a record of a keyed
 * section that prev has once, written the same, is written as its key
 * (snapshot_delta.h), and *refs counts them. */
static json_t *to_json(const struct gd_snapshot *s, const struct gd_delta_base *prev, size_t *refs)
{
	json_t *root = json_object();
	json_t *ver = json_integer(1);

	*refs = 0;
	json_object_set_new(root, "version", ver);
	/* right after "version" (the fast path looks for it first); taken out
	 * again when no record became a reference */
	if (prev && prev->have && prev->at.ok && isfinite(prev->at.v))
		json_object_set_new(root, "after", json_real(prev->at.v));
	for (size_t i = 0; i < gd_nsections; i++) {
		const struct gd_record_desc *d = &gd_sections[i];
		const char *base = (const char *)s + d->offset;
		int slot = prev && prev->have ? gd_delta_slot(d) : -1;

		if (!d->is_array) {
			json_object_set_new(root, d->name, record_to_json(d, base));
		} else {
			const struct gd_vec *v = (const void *)base;
			json_t *a = json_array();

			for (size_t j = 0; j < v->n; j++) {
				const char *rec = (const char *)v->items + j * d->size;
				const struct gd_u64 *key = slot < 0 ? NULL : gd_delta_key(slot, rec);
				const void *was = key && key->ok && key->v <= INT64_MAX
							  ? gd_delta_base_find(prev, slot, key->v, true)
							  : NULL;

				if (was && gd_delta_same_written(d, was, rec)) {
					json_array_append_new(a, json_integer((json_int_t)key->v));
					++*refs;
				} else {
					json_array_append_new(a, record_to_json(d, rec));
				}
			}
			json_object_set_new(root, d->name, a);
		}
	}
	if (*refs)
		json_integer_set(ver, GD_SNAPSHOT_VERSION);
	else
		json_object_del(root, "after");
	return root;
}

json_t *gd_section_to_json(const struct gd_snapshot *s, const char *name)
{
	const struct gd_record_desc *d = gd_section_find(name);
	const struct gd_vec *v;
	json_t *a;

	if (!d)
		return NULL;
	if (!d->is_array)
		return record_to_json(d, (const char *)s + d->offset);
	v = (const struct gd_vec *)(const void *)((const char *)s + d->offset);
	a = json_array();
	for (size_t j = 0; j < v->n; j++)
		json_array_append_new(a, record_to_json(d, (const char *)v->items + j * d->size));
	return a;
}

json_t *gd_snapshot_to_json(const struct gd_snapshot *s)
{
	size_t refs;

	return to_json(s, NULL, &refs);
}

static int dump_line(json_t *o, FILE *f)
{
	int rc = json_dumpf(o, f, JSON_COMPACT | JSON_ENSURE_ASCII);

	json_decref(o);
	if (rc < 0 || fputc('\n', f) == EOF)
		return -EIO;
	return 0;
}

int gd_snapshot_write_line(const struct gd_snapshot *s, FILE *f)
{
	return dump_line(gd_snapshot_to_json(s), f);
}

int gd_snapshot_write_line_after(const struct gd_snapshot *s, struct gd_delta_base *prev, bool whole, FILE *f,
				 size_t *refs)
{
	size_t n = 0;
	int rc = dump_line(to_json(s, whole ? NULL : prev, &n), f);

	if (refs)
		*refs = n;
	if (rc < 0)
		gd_delta_base_forget(prev);
	else
		gd_delta_base_set(prev, s);
	return rc;
}

static int record_from_json(const struct gd_record_desc *d, const json_t *o, char *rec, const char *where,
			    struct gd_err *err)
{
	if (!json_is_object(o))
		return gd_err_set(err, -EINVAL, _("%s: expected an object"), where);
	for (size_t i = 0; i < d->nfields; i++) {
		const struct gd_field *f = &d->fields[i];
		const json_t *v = json_object_get(o, f->name);
		char *p = rec + f->offset;

		if (!v || json_is_null(v))
			continue;
		switch (f->type) {
		case GD_FT_U64: {
			struct gd_u64 *x = (void *)p;

			if (json_is_integer(v) && json_integer_value(v) >= 0)
				gd_u64_set(x, (uint64_t)json_integer_value(v));
			else if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 9.2e18)
				gd_u64_set(x, (uint64_t)json_real_value(v));
			else if (json_is_string(v) && gd_u64_of_digits(json_string_value(v), &x->v))
				x->ok = true;
			else
				return gd_err_set(err, -EINVAL, _("%s.%s: expected a non-negative integer"), where, f->name);
			break;
		}
		case GD_FT_F64: {
			struct gd_f64 *x = (void *)p;

			if (!json_is_number(v))
				return gd_err_set(err, -EINVAL, _("%s.%s: expected a number"), where, f->name);
			gd_f64_set(x, json_number_value(v));
			break;
		}
		case GD_FT_STR:
			if (!json_is_string(v))
				return gd_err_set(err, -EINVAL, _("%s.%s: expected a string"), where, f->name);
			gd_strlcpy(p, json_string_value(v), f->size);
			break;
		}
	}
	return 0;
}

/* An element of a keyed array written as its key (snapshot_delta.h), as
 * record_from_json reads a u64: an integer, or a number jansson read as a
 * real (the fast path cannot tell them apart). */
static bool ref_key(const json_t *v, uint64_t *key)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*key = (uint64_t)json_integer_value(v);
		return true;
	}
	if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 9.2e18) {
		*key = (uint64_t)json_real_value(v);
		return true;
	}
	return false;
}

int gd_snapshot_from_json_refs(const json_t *obj, struct gd_snapshot *s, struct gd_delta_refs *refs,
			       struct gd_err *err)
{
	const json_t *ver;

	if (!json_is_object(obj))
		return gd_err_set(err, -EINVAL, _("not a snapshot: expected a JSON object"));
	ver = json_object_get(obj, "version");
	if (!json_is_integer(ver) || !json_object_get(obj, "host"))
		return gd_err_set(err, -EINVAL, _("not a gpudoctor snapshot: no \"version\" and \"host\" keys"));
	if (json_integer_value(ver) > GD_SNAPSHOT_VERSION || json_integer_value(ver) < 1)
		return gd_err_set(err, -EINVAL, _("snapshot version %lld is not supported (this gpudoctor reads up to %d)"),
				  (long long)json_integer_value(ver), GD_SNAPSHOT_VERSION);
	if (refs && json_object_get(obj, "after")) {
		const json_t *after = json_object_get(obj, "after");

		if (!json_is_number(after))
			return gd_err_set(err, -EINVAL, _("after: expected a number"));
		gd_f64_set(&refs->after, json_number_value(after));
	}
	for (size_t i = 0; i < gd_nsections; i++) {
		const struct gd_record_desc *d = &gd_sections[i];
		const json_t *v = json_object_get(obj, d->name);
		char *base = (char *)s + d->offset;
		int slot = gd_delta_slot(d);
		int rc;

		if (!v || json_is_null(v))
			continue;
		if (!d->is_array) {
			rc = record_from_json(d, v, base, d->name, err);
			if (rc < 0)
				return rc;
			continue;
		}
		if (!json_is_array(v))
			return gd_err_set(err, -EINVAL, _("%s: expected an array"), d->name);
		for (size_t j = 0; j < json_array_size(v); j++) {
			const json_t *e = json_array_get(v, j);
			char where[64];
			uint64_t key;

			snprintf(where, sizeof where, "%s[%zu]", d->name, j);
			if (slot >= 0 && json_is_number(e) && ref_key(e, &key)) {
				if (!refs)
					return gd_err_set(err, -EINVAL,
							  _("%s: %s %" PRIu64 " as in the snapshot before: this line belongs "
							    "to a recording; read the whole recording"),
							  where, gd_delta_key_name(slot), key);
				gd_delta_ref_push(refs, s, slot, key);
				continue;
			}
			rc = record_from_json(d, e, gd_vec_push((struct gd_vec *)(void *)base, d->size), where, err);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

int gd_snapshot_from_json(const json_t *obj, struct gd_snapshot *s, struct gd_err *err)
{
	return gd_snapshot_from_json_refs(obj, s, NULL, err);
}

int gd_snapshot_from_json_after(const json_t *obj, struct gd_snapshot *s, struct gd_delta_base *base,
				const char *where, struct gd_err *err)
{
	struct gd_delta_refs refs;
	int rc;

	gd_delta_refs_init(&refs);
	rc = gd_snapshot_from_json_refs(obj, s, &refs, err);
	if (rc == 0)
		rc = gd_delta_apply(base, &refs, s, where, err);
	else
		gd_delta_base_forget(base);
	gd_delta_refs_release(&refs);
	return rc;
}

void gd_series_init(struct gd_series *ser)
{
	memset(ser, 0, sizeof *ser);
}

void gd_series_release(struct gd_series *ser)
{
	if (!ser)
		return;
	for (size_t i = 0; i < ser->n; i++)
		gd_snapshot_release(&ser->items[i]);
	free(ser->items);
	gd_series_init(ser);
}

struct gd_snapshot *gd_series_push(struct gd_series *ser)
{
	if (ser->n == ser->cap) {
		ser->cap = ser->cap ? ser->cap * 2 : 4;
		ser->items = gd_xreallocarray(ser->items, ser->cap, sizeof *ser->items);
	}
	gd_snapshot_init(&ser->items[ser->n]);
	return &ser->items[ser->n++];
}

static void note_add(char *note, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note_add(char *note, size_t size, const char *fmt, ...)
{
	size_t n = strlen(note);
	va_list ap;

	if (n && n + 2 < size) {
		memcpy(note + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(note + n, size - n, fmt, ap);
	va_end(ap);
}

static void reader_on(struct gd_jsonl_reader *r, FILE *f, bool own, const char *name)
{
	memset(r, 0, sizeof *r);
	r->f = f;
	r->own = own;
	gd_strlcpy(r->name, name, sizeof r->name);
}

int gd_jsonl_open(struct gd_jsonl_reader *r, const char *path, struct gd_err *err)
{
	FILE *f;

	if (strcmp(path, "-") == 0) {
		reader_on(r, stdin, false, "<stdin>");
		return 0;
	}
	reader_on(r, NULL, true, path);
	f = gd_rec_fopen_read(path, &r->cut, &r->gz, err);
	if (!f)
		return err->code;
	r->f = f;
	return 0;
}

/* The note on the lines left out because the line before them was not
 * there to put their references back from. */
static void note_skipped(struct gd_jsonl_reader *r)
{
	if (!r->skipped)
		return;
	note_add(r->note, sizeof r->note,
		 P_("%zu line is left out: it refers to the line before it, which is not there as it was written "
		    "(the first: %s)",
		    "%zu lines are left out: they refer to the line before them, which is not there as it was "
		    "written (the first: %s)",
		    r->skipped),
		 r->skipped, r->skip_why);
	r->skipped = 0;
}

/* s's references (refs) put back from the line before: 1, or 0 when they
 * cannot be (the line is left out, and the lines after it up to a whole
 * one). */
static int after_line(struct gd_jsonl_reader *r, struct gd_snapshot *s, const struct gd_delta_refs *refs)
{
	char where[sizeof r->name + 32];
	struct gd_err e;

	snprintf(where, sizeof where, "%s:%zu", r->name, r->lineno);
	gd_err_clear(&e);
	if (gd_delta_apply(&r->base, refs, s, where, &e) < 0) {
		if (!r->skipped)
			gd_strlcpy(r->skip_why, e.msg, sizeof r->skip_why);
		r->skipped++;
		return 0;
	}
	r->count++;
	return 1;
}

/* A line that is not a snapshot, in gzip data damaged further on (a cut
 * member that an older gpudoctor appended to: after the cut, inflate
 * decodes the next member against the cut one's tables and window, which
 * gives text-like garbage, newlines and all, until the lengths disagree at
 * its end).  Reads the rest to find out; then the line and what follows
 * are the damage, and what came before is kept. */
static bool gzip_damaged(struct gd_jsonl_reader *r)
{
	char buf[1 << 14];

	if (!r->gz)
		return false;   /* plain lines (a pipe, too): the line is the error */
	if (r->cut != GD_REC_DAMAGED)
		while (fread(buf, 1, sizeof buf, r->f) == sizeof buf)
			;
	return r->cut == GD_REC_DAMAGED;
}

static int next_line(struct gd_jsonl_reader *r, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_delta_refs refs;
	ssize_t n;

	gd_delta_refs_init(&refs);
	while ((n = getline(&r->line, &r->cap, r->f)) >= 0) {
		json_error_t jerr;
		json_t *o;
		size_t k = 0;
		struct gd_err e2;
		int rc;

		r->lineno++;
		while (k < (size_t)n && (r->line[k] == ' ' || r->line[k] == '\t' || r->line[k] == '\r' || r->line[k] == '\n'))
			k++;
		if (k == (size_t)n)
			continue;
		gd_delta_refs_release(&refs);
		/* the lines gpudoctor writes: cJSON, exactly as below (snapshot_fast.c) */
		if (gd_snapshot_from_line_fast(r->line, (size_t)n, s, &refs) == 1) {
			rc = after_line(r, s, &refs);
			goto taken;
		}
		gd_snapshot_release(s);
		gd_snapshot_init(s);
		gd_delta_refs_release(&refs);
		o = json_loadb(r->line, (size_t)n, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &jerr);
		if (!o && gzip_damaged(r)) {
			r->lineno--;
			break;
		}
		if (!o && r->line[n - 1] != '\n' && r->count) {
			/* the last line, cut, after whole ones: an interrupted recording */
			note_add(r->note, sizeof r->note,
				 _("%s:%zu: the last line is cut (an interrupted recording?): that snapshot is left out"),
				 r->name, r->lineno);
			break;
		}
		if (!o) {
			gd_delta_refs_release(&refs);
			return gd_err_set(err, -EINVAL, "%s:%zu:%d: %s", r->name, r->lineno, jerr.column, jerr.text);
		}
		gd_err_clear(&e2);
		if (gd_snapshot_from_json_refs(o, s, &refs, &e2) < 0 && gzip_damaged(r)) {
			json_decref(o);
			r->lineno--;
			break;
		}
		if (e2.code < 0) {
			json_decref(o);
			gd_delta_refs_release(&refs);
			return gd_err_set(err, -EINVAL, "%s:%zu:1: %s", r->name, r->lineno, e2.msg);
		}
		json_decref(o);
		rc = after_line(r, s, &refs);
taken:
		if (rc) {
			gd_delta_refs_release(&refs);
			return rc;
		}
		gd_snapshot_release(s);
		gd_snapshot_init(s);
	}
	gd_delta_refs_release(&refs);
	note_skipped(r);
	if (n < 0 && ferror(r->f))
		return gd_err_set(err, -EIO, _("%s: read error: %s"), r->name, strerror(errno));
	if (r->cut == GD_REC_ENDS_EARLY)
		note_add(r->note, sizeof r->note,
			 _("%s: the gzip data ends early (an interrupted recording?): what came before is loaded"), r->name);
	else if (r->cut == GD_REC_DAMAGED)
		note_add(r->note, sizeof r->note,
			 _("%s: the gzip data is damaged after line %zu (a recording cut and then appended to by an older "
			   "gpudoctor?): what came before is loaded"),
			 r->name, r->lineno);
	r->cut = 0;
	return 0;
}

/* ---- reading ahead ------------------------------------------------------- */

struct slot {
	struct gd_snapshot s;
	struct gd_err err;
	int rc;
};

struct gd_jsonl_prefetch {
	pthread_mutex_t mu;
	pthread_cond_t more, room;   /* a slot filled; a slot freed (or stop) */
	struct slot slots[GD_JSONL_AHEAD];
	size_t head, n;
	bool stop, ended;            /* close() asks; the thread has given its last */
	pthread_t t;
};

static void *ahead(void *arg)
{
	struct gd_jsonl_reader *r = arg;
	struct gd_jsonl_prefetch *pf = r->pf;
	int rc;

	do {
		struct slot x;

		gd_snapshot_init(&x.s);
		gd_err_clear(&x.err);
		x.rc = rc = next_line(r, &x.s, &x.err);
		pthread_mutex_lock(&pf->mu);
		while (pf->n == GD_JSONL_AHEAD && !pf->stop)
			pthread_cond_wait(&pf->room, &pf->mu);
		if (pf->stop) {
			pthread_mutex_unlock(&pf->mu);
			gd_snapshot_release(&x.s);
			break;
		}
		pf->slots[(pf->head + pf->n++) % GD_JSONL_AHEAD] = x;
		pthread_cond_signal(&pf->more);
		pthread_mutex_unlock(&pf->mu);
	} while (rc > 0);
	return NULL;
}

void gd_jsonl_prefetch(struct gd_jsonl_reader *r)
{
	struct gd_jsonl_prefetch *pf = gd_xcalloc(1, sizeof *pf);

	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->more, NULL);
	pthread_cond_init(&pf->room, NULL);
	r->pf = pf;
	if (pthread_create(&pf->t, NULL, ahead, r) != 0) {
		/* no thread: read in this one, as without */
		pthread_cond_destroy(&pf->room);
		pthread_cond_destroy(&pf->more);
		pthread_mutex_destroy(&pf->mu);
		free(pf);
		r->pf = NULL;
	}
}

/* Stops and joins r's thread, releasing what it read ahead. */
static void prefetch_end(struct gd_jsonl_reader *r)
{
	struct gd_jsonl_prefetch *pf = r->pf;

	if (!pf)
		return;
	pthread_mutex_lock(&pf->mu);
	pf->stop = true;
	pthread_cond_broadcast(&pf->room);
	pthread_mutex_unlock(&pf->mu);
	pthread_join(pf->t, NULL);
	for (size_t i = 0; i < pf->n; i++)
		gd_snapshot_release(&pf->slots[(pf->head + i) % GD_JSONL_AHEAD].s);
	pthread_cond_destroy(&pf->room);
	pthread_cond_destroy(&pf->more);
	pthread_mutex_destroy(&pf->mu);
	free(pf);
	r->pf = NULL;
}

int gd_jsonl_next(struct gd_jsonl_reader *r, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_jsonl_prefetch *pf = r->pf;
	struct slot x;

	if (!pf)
		return next_line(r, s, err);
	if (pf->ended)
		return 0;
	pthread_mutex_lock(&pf->mu);
	while (pf->n == 0)
		pthread_cond_wait(&pf->more, &pf->mu);
	x = pf->slots[pf->head];
	pf->head = (pf->head + 1) % GD_JSONL_AHEAD;
	pf->n--;
	pthread_cond_signal(&pf->room);
	pthread_mutex_unlock(&pf->mu);
	if (x.rc <= 0) {
		/* the thread's last: it has ended; its note is whole */
		gd_snapshot_release(&x.s);
		pthread_join(pf->t, NULL);
		pf->stop = true;
		pf->ended = true;
		if (x.rc < 0)
			*err = x.err;
		return x.rc;
	}
	*s = x.s;
	return x.rc;
}

void gd_jsonl_close(struct gd_jsonl_reader *r)
{
	if (r->pf && r->pf->ended) {
		struct gd_jsonl_prefetch *pf = r->pf;

		pthread_cond_destroy(&pf->room);
		pthread_cond_destroy(&pf->more);
		pthread_mutex_destroy(&pf->mu);
		free(pf);
		r->pf = NULL;
	}
	prefetch_end(r);
	if (r->own && r->f)
		fclose(r->f);
	free(r->line);
	r->line = NULL;
	r->f = NULL;
	gd_delta_base_release(&r->base);
}

/* The reader's snapshots appended to ser, its note to ser's. */
static int load_reader(struct gd_series *ser, struct gd_jsonl_reader *r, struct gd_err *err)
{
	int rc;

	while ((rc = gd_jsonl_next(r, gd_series_push(ser), err)) > 0)
		;
	gd_snapshot_release(&ser->items[--ser->n]);
	if (r->note[0])
		note_add(ser->note, sizeof ser->note, "%s", r->note);
	gd_jsonl_close(r);
	return rc;
}

int gd_series_load_stream(struct gd_series *ser, FILE *f, const char *name, struct gd_err *err)
{
	struct gd_jsonl_reader r;

	reader_on(&r, f, false, name);
	return load_reader(ser, &r, err);
}

int gd_series_load_jsonl(struct gd_series *ser, const char *path, struct gd_err *err)
{
	struct gd_jsonl_reader r;

	if (gd_jsonl_open(&r, path, err) < 0)
		return err->code;
	return load_reader(ser, &r, err);
}
