/*
 * ptx.c - PTX module headers, the driver each needs, and JIT logs.
 *
 * The table maps a PTX ISA version to the CUDA release that introduced it
 * (PTX ISA 9.0 "Table 57 PTX Release History", as quoted in
 * ../shared/reference/PROBES.md §2.1).  The driver JIT accepts PTX up to
 * the ISA of its own CUDA version; newer PTX fails with
 * CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222).
 *
 *   .version 6.4      -> CUDA 10.1 (r418)
 *   .target sm_52     -> any GPU of compute capability 5.2 or later
 *   .target sm_90a    -> that architecture only (not forward compatible)
 */
#include "probe/ptx.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { int major, minor, cuda; } isa[] = {
	{ 4, 0, 6000 }, { 4, 1, 6050 }, { 4, 2, 7000 }, { 4, 3, 7050 }, { 5, 0, 8000 }, { 6, 0, 9000 },
	{ 6, 1, 9010 }, { 6, 2, 9020 }, { 6, 3, 10000 }, { 6, 4, 10010 }, { 6, 5, 10020 }, { 7, 0, 11000 },
	{ 7, 1, 11010 }, { 7, 2, 11020 }, { 7, 3, 11030 }, { 7, 4, 11040 }, { 7, 5, 11050 }, { 7, 6, 11060 },
	{ 7, 7, 11070 }, { 7, 8, 11080 }, { 8, 0, 12000 }, { 8, 1, 12010 }, { 8, 2, 12020 }, { 8, 3, 12030 },
	{ 8, 4, 12040 }, { 8, 5, 12050 }, { 8, 6, 12070 }, { 8, 7, 12080 }, { 8, 8, 12090 }, { 9, 0, 13000 },
};

int gd_ptx_min_cuda(int major, int minor)
{
	for (size_t i = 0; i < sizeof isa / sizeof isa[0]; i++)
		if (isa[i].major == major && isa[i].minor == minor)
			return isa[i].cuda;
	return 0;
}

/* One line of text[pos..len) without its newline; returns the next pos. */
static size_t next_line(const char *text, size_t len, size_t pos, char *line, size_t size)
{
	size_t n = 0;

	while (pos < len && text[pos] != '\n' && text[pos] != '\0') {
		if (n + 1 < size)
			line[n++] = text[pos];
		pos++;
	}
	line[n] = '\0';
	return pos < len && text[pos] == '\n' ? pos + 1 : len;
}

static char *trim(char *s)
{
	char *e, *c = strstr(s, "//");

	if (c)
		*c = '\0';
	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* "6.4" -> 6, 4; false unless two small numbers and nothing else. */
static bool two_numbers(const char *s, int *a, int *b)
{
	char *end;
	long x, y;

	if (!isdigit((unsigned char)*s))
		return false;
	x = strtol(s, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return false;
	y = strtol(end + 1, &end, 10);
	if (*end || x > 99 || y > 99)
		return false;
	*a = (int)x;
	*b = (int)y;
	return true;
}

int gd_ptx_header_parse(const char *text, size_t len, struct gd_ptx_header *h, struct gd_err *err)
{
	char buf[256];
	size_t pos = 0;
	unsigned lineno = 0;
	int stage = 0;   /* 0: want .version, 1: want .target, 2: optional .address_size */

	memset(h, 0, sizeof *h);
	h->address_size = 32;
	if (!text)
		return gd_err_set(err, -EINVAL, "PTX: no text");
	while (pos < len && stage < 3) {
		char *l;

		pos = next_line(text, len, pos, buf, sizeof buf);
		lineno++;
		l = trim(buf);
		if (!*l)
			continue;
		if (stage == 0) {
			if (strncmp(l, ".version", 8) != 0 || !isspace((unsigned char)l[8]))
				return gd_err_set(err, -EINVAL, "PTX line %u: expected .version first, found \"%.40s\"",
						  lineno, l);
			if (!two_numbers(trim(l + 9), &h->isa_major, &h->isa_minor))
				return gd_err_set(err, -EINVAL, "PTX line %u: .version wants MAJOR.MINOR, found \"%.40s\"",
						  lineno, l + 9);
			stage = 1;
		} else if (stage == 1) {
			char *t, *end;
			long sm;

			if (strncmp(l, ".target", 7) != 0 || !isspace((unsigned char)l[7]))
				return gd_err_set(err, -EINVAL, "PTX line %u: expected .target after .version, found \"%.40s\"",
						  lineno, l);
			t = trim(l + 8);
			if (strncmp(t, "sm_", 3) != 0 || !isdigit((unsigned char)t[3]))
				return gd_err_set(err, -EINVAL, "PTX line %u: .target wants sm_NN, found \"%.40s\"", lineno, t);
			sm = strtol(t + 3, &end, 10);
			if (sm < 10 || sm > 999)
				return gd_err_set(err, -EINVAL, "PTX line %u: target sm_%ld is out of range", lineno, sm);
			h->sm = (int)sm;
			h->arch_specific = *end == 'a' || *end == 'f';
			if (h->arch_specific)
				end++;
			if (*end && *end != ',' && !isspace((unsigned char)*end))
				return gd_err_set(err, -EINVAL, "PTX line %u: cannot read the target \"%.40s\"", lineno, t);
			stage = 2;
		} else {
			if (strncmp(l, ".address_size", 13) == 0) {
				long a = strtol(trim(l + 13), NULL, 10);

				if (a != 32 && a != 64)
					return gd_err_set(err, -EINVAL, "PTX line %u: .address_size must be 32 or 64", lineno);
				h->address_size = (int)a;
			}
			stage = 3;
		}
	}
	if (stage < 2)
		return gd_err_set(err, -EINVAL, "PTX: the text ends before its %s directive",
				  stage == 0 ? ".version" : ".target");
	if (!gd_ptx_min_cuda(h->isa_major, h->isa_minor))
		return gd_err_set(err, -EINVAL, "PTX: ISA version %d.%d is not one this table knows", h->isa_major,
				  h->isa_minor);
	return 0;
}

bool gd_ptx_loadable(const struct gd_ptx_header *h, int driver, int cc, char *why, size_t size)
{
	int need = gd_ptx_min_cuda(h->isa_major, h->isa_minor);

	if (h->address_size != 64) {
		snprintf(why, size, "the module is 32-bit PTX; the probes need 64-bit");
		return false;
	}
	if (!need || (driver > 0 && driver < need)) {
		snprintf(why, size, "the driver supports CUDA %d.%d, older than this module's PTX %d.%d (needs CUDA %d.%d)",
			 driver / 1000, driver % 1000 / 10, h->isa_major, h->isa_minor, need / 1000, need % 1000 / 10);
		return false;
	}
	if (cc < h->sm || (h->arch_specific && cc != h->sm)) {
		snprintf(why, size, "the GPU (compute capability %d.%d) cannot run a module for sm_%d%s", cc / 10, cc % 10,
			 h->sm, h->arch_specific ? "a" : "");
		return false;
	}
	return true;
}

size_t gd_ptx_log_clean(const char *log, size_t cap, size_t reported, char *out, size_t size)
{
	size_t n = 0, lim = reported < cap ? reported : cap;
	bool space = true;   /* drops leading white space */

	if (!size)
		return 0;
	for (size_t i = 0; log && i < lim && log[i] && n + 1 < size; i++) {
		unsigned char c = (unsigned char)log[i];

		if (c < 0x20 || c >= 0x7f || c == ' ') {
			if (!space)
				out[n++] = ' ';
			space = true;
			continue;
		}
		out[n++] = (char)c;
		space = false;
	}
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	return n;
}
