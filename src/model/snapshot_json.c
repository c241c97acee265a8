#include "model/snapshot_json.h"

#include <stdarg.h>

#include "model/recording.h"

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

json_t *gd_snapshot_to_json(const struct gd_snapshot *s)
{
	json_t *root = json_object();

	json_object_set_new(root, "version", json_integer(GD_SNAPSHOT_VERSION));
	for (size_t i = 0; i < gd_nsections; i++) {
		const struct gd_record_desc *d = &gd_sections[i];
		const char *base = (const char *)s + d->offset;

		if (!d->is_array) {
			json_object_set_new(root, d->name, record_to_json(d, base));
		} else {
			const struct gd_vec *v = (const void *)base;
			json_t *a = json_array();

			for (size_t j = 0; j < v->n; j++)
				json_array_append_new(a, record_to_json(d, (const char *)v->items + j * d->size));
			json_object_set_new(root, d->name, a);
		}
	}
	return root;
}

int gd_snapshot_write_line(const struct gd_snapshot *s, FILE *f)
{
	json_t *o = gd_snapshot_to_json(s);
	int rc = json_dumpf(o, f, JSON_COMPACT | JSON_ENSURE_ASCII);

	json_decref(o);
	if (rc < 0 || fputc('\n', f) == EOF)
		return -EIO;
	return 0;
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

int gd_snapshot_from_json(const json_t *obj, struct gd_snapshot *s, struct gd_err *err)
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
	for (size_t i = 0; i < gd_nsections; i++) {
		const struct gd_record_desc *d = &gd_sections[i];
		const json_t *v = json_object_get(obj, d->name);
		char *base = (char *)s + d->offset;
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
			char where[64];

			snprintf(where, sizeof where, "%s[%zu]", d->name, j);
			rc = record_from_json(d, json_array_get(v, j), gd_vec_push((struct gd_vec *)(void *)base, d->size),
					      where, err);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
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
	f = gd_rec_fopen_read(path, &r->truncated, err);
	if (!f)
		return err->code;
	r->f = f;
	return 0;
}

static int next_line(struct gd_jsonl_reader *r, struct gd_snapshot *s, struct gd_err *err)
{
	ssize_t n;

	while ((n = getline(&r->line, &r->cap, r->f)) >= 0) {
		json_error_t jerr;
		json_t *o;
		size_t k = 0;
		struct gd_err e2;

		r->lineno++;
		while (k < (size_t)n && (r->line[k] == ' ' || r->line[k] == '\t' || r->line[k] == '\r' || r->line[k] == '\n'))
			k++;
		if (k == (size_t)n)
			continue;
		/* the lines gpudoctor writes: cJSON, exactly as below (snapshot_fast.c) */
		if (gd_snapshot_from_line_fast(r->line, (size_t)n, s) == 1) {
			r->count++;
			return 1;
		}
		gd_snapshot_release(s);
		gd_snapshot_init(s);
		o = json_loadb(r->line, (size_t)n, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &jerr);
		if (!o && r->line[n - 1] != '\n' && r->count) {
			/* the last line, cut, after whole ones: an interrupted recording */
			note_add(r->note, sizeof r->note,
				 _("%s:%zu: the last line is cut (an interrupted recording?): that snapshot is left out"),
				 r->name, r->lineno);
			break;
		}
		if (!o)
			return gd_err_set(err, -EINVAL, "%s:%zu:%d: %s", r->name, r->lineno, jerr.column, jerr.text);
		gd_err_clear(&e2);
		if (gd_snapshot_from_json(o, s, &e2) < 0) {
			json_decref(o);
			return gd_err_set(err, -EINVAL, "%s:%zu:1: %s", r->name, r->lineno, e2.msg);
		}
		json_decref(o);
		r->count++;
		return 1;
	}
	if (n < 0 && ferror(r->f))
		return gd_err_set(err, -EIO, _("%s: read error: %s"), r->name, strerror(errno));
	if (r->truncated) {
		note_add(r->note, sizeof r->note,
			 _("%s: the gzip data ends early (an interrupted recording?): what came before is loaded"), r->name);
		r->truncated = false;
	}
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
