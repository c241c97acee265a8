#include "core/tok.h"
#include "core/err.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"

void gd_lines_init(struct gd_lines *it, const char *buf, size_t len)
{
	it->p = buf;
	it->end = buf + len;
	it->lineno = 0;
}

bool gd_tok_line(struct gd_lines *it, struct gd_slice *line)
{
	const char *nl;

	if (it->p >= it->end)
		return false;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	line->p = it->p;
	line->n = (size_t)((nl ? nl : it->end) - it->p);
	it->p = nl ? nl + 1 : it->end;
	it->lineno++;
	return true;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

size_t gd_tok_split(struct gd_slice s, struct gd_slice *fields, size_t max)
{
	size_t i = 0, count = 0;

	while (i < s.n) {
		size_t start;

		while (i < s.n && blank(s.p[i]))
			i++;
		if (i >= s.n)
			break;
		start = i;
		while (i < s.n && !blank(s.p[i]))
			i++;
		if (count < max) {
			fields[count].p = s.p + start;
			fields[count].n = i - start;
		}
		count++;
	}
	return count < max ? count : max;
}

struct gd_slice gd_tok_trim(struct gd_slice s)
{
	while (s.n && blank(s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n && blank(s.p[s.n - 1]))
		s.n--;
	return s;
}

bool gd_tok_kv(struct gd_slice s, char sep, struct gd_slice *key, struct gd_slice *val)
{
	const char *c = memchr(s.p, sep, s.n);

	if (!c)
		return false;
	key->p = s.p;
	key->n = (size_t)(c - s.p);
	val->p = c + 1;
	val->n = s.n - key->n - 1;
	*key = gd_tok_trim(*key);
	*val = gd_tok_trim(*val);
	return true;
}

bool gd_tok_eq(struct gd_slice s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n == n && memcmp(s.p, lit, n) == 0;
}

bool gd_tok_prefix(struct gd_slice s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n >= n && memcmp(s.p, lit, n) == 0;
}

bool gd_tok_u64(struct gd_slice s, uint64_t *out)
{
	char tmp[32], *end;
	unsigned long long v;

	if (s.n == 0 || s.n >= sizeof tmp || s.p[0] == '-' || s.p[0] == '+' || blank(s.p[0]))
		return false;
	memcpy(tmp, s.p, s.n);
	tmp[s.n] = '\0';
	errno = 0;
	v = strtoull(tmp, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

bool gd_tok_i64(struct gd_slice s, int64_t *out)
{
	char tmp[32], *end;
	long long v;

	if (s.n == 0 || s.n >= sizeof tmp || blank(s.p[0]))
		return false;
	memcpy(tmp, s.p, s.n);
	tmp[s.n] = '\0';
	errno = 0;
	v = strtoll(tmp, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

bool gd_tok_f64(struct gd_slice s, double *out)
{
	char tmp[64], *end;
	double v;

	if (s.n == 0 || s.n >= sizeof tmp || blank(s.p[0]))
		return false;
	memcpy(tmp, s.p, s.n);
	tmp[s.n] = '\0';
	errno = 0;
	v = strtod(tmp, &end);
	if (errno || *end || !isfinite(v))
		return false;
	*out = v;
	return true;
}

void gd_tok_copy(char *dst, size_t dstsz, struct gd_slice s)
{
	size_t n = s.n < dstsz - 1 ? s.n : dstsz - 1;

	memcpy(dst, s.p, n);
	dst[n] = '\0';
}

bool gd_tok_is_binary(const char *buf, size_t len)
{
	return memchr(buf, '\0', len) != NULL;
}

void gd_tok_tally_skip(struct gd_tok_tally *t, size_t lineno, const char *why)
{
	if (!t->skipped++) {
		t->first_bad = lineno;
		t->why = why;
	}
}

int gd_tok_tally_result(const struct gd_tok_tally *t, const char *what, struct gd_err *err)
{
	const char *why = t->why ? t->why : _("malformed line");

	if (!t->skipped && !t->parsed)
		return gd_err_set(err, -ENODATA, _("empty: %s"), what);
	if (!t->parsed)
		return gd_err_set(err, -EINVAL, _("line %zu: %s (no usable line)"), t->first_bad, why);
	if (t->skipped) {
		gd_err_set(err, -EINVAL, _("line %zu: %s; %zu line(s) skipped"), t->first_bad, why, t->skipped);
		return 1;
	}
	return 0;
}
