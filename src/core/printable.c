/*
 * printable.c - text from outside made safe for a terminal (printable.h).
 */
#include "core/printable.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

/* Bytes of the character at s[0..n) when it is one to keep as it is, else
 * 0 (*len: the bytes it takes, 1 for a stray byte). */
static size_t keep_len(const unsigned char *s, size_t n, size_t *len)
{
	unsigned c = s[0], cp;
	size_t k = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;

	*len = 1;
	if (c < 0x80)
		return c >= 0x20 && c != 0x7f ? 1 : 0;
	if (!k || k > n)
		return 0;
	cp = k == 2 ? c & 0x1f : k == 3 ? c & 0x0f : c & 0x07;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	*len = k;
	/* overlong forms, surrogates, beyond U+10FFFF, and the C1 controls */
	if ((k == 2 && cp < 0x80) || (k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return k;
}

bool gd_printable_is(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len;

	for (size_t i = 0; i < n; i += len) {
		if (u[i] >= 0x20 && u[i] < 0x7f) {
			len = 1;
			continue;
		}
		if (!keep_len(u + i, n - i, &len))
			return false;
	}
	return true;
}

size_t gd_printable(const char *s, size_t n, char *out, size_t size)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0, len, k;

	if (!size)
		return 0;
	for (size_t i = 0; i < n; i += len) {
		k = keep_len(u + i, n - i, &len);
		if (o + (k ? k : 1) >= size)
			break;
		if (k) {
			memcpy(out + o, s + i, k);
			o += k;
		} else {
			out[o++] = '?';
		}
	}
	out[o] = '\0';
	return o;
}

void gd_printable_fputs(const char *s, FILE *out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), len, k;

	for (size_t i = 0; i < n; i += len) {
		k = u[i] == '\n' ? 1 : keep_len(u + i, n - i, &len);
		if (u[i] == '\n')
			len = 1;
		if (k)
			fwrite(s + i, 1, k, out);
		else
			fputc('?', out);
	}
}

const char *gd_pr(struct gd_pr *pr, const char *s)
{
	size_t n;
	char *c;

	if (!s)
		return s;
	n = strlen(s);
	if (gd_printable_is(s, n))
		return s;
	c = gd_xmalloc(n + 1);
	gd_printable(s, n, c, n + 1);
	if (pr->n == pr->cap) {
		pr->cap = pr->cap ? 2 * pr->cap : 8;
		pr->copies = gd_xreallocarray(pr->copies, pr->cap, sizeof *pr->copies);
	}
	pr->copies[pr->n++] = c;
	return c;
}

void gd_pr_release(struct gd_pr *pr)
{
	for (size_t i = 0; i < pr->n; i++)
		free(pr->copies[i]);
	free(pr->copies);
	pr->copies = NULL;
	pr->n = pr->cap = 0;
}
