/*
 * util.c - values of nvidia-smi's output, shared by the offline parsers.
 *
 * nvidia-smi prints every value with its unit and a placeholder where it
 * has none; the same words appear in -q text, the boxed table and CSV:
 *
 *     GPU Current Temp                  : 34 C
 *     Used                              : 40000 MiB
 *     Fan Speed                         : N/A
 *     Power Draw                        : [Not Supported]      (CSV, XML)
 *     | ERR!  ERR!  ERR!    ERR! / ERR!|                        (table)
 *
 * N/A and Not Supported mean "no such value here" (absent, quietly); ERR!
 * and the bracketed errors mean nvidia-smi tried and failed (absent, with a
 * row in nvml_errors saying so).  Anything else that is not a number of the
 * expected unit is a malformed line.
 */
#include "offline/ofl.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/i18n.h"

struct gd_slice ofl_chomp(struct gd_slice s)
{
	while (s.n && (s.p[s.n - 1] == '\r' || s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t'))
		s.n--;
	return s;
}

bool ofl_ieq(struct gd_slice s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n == n && strncasecmp(s.p, lit, n) == 0;
}

/* Case-insensitive, as strncasecmp at every offset was: memchr finds the
 * places where the first byte matches in either case, and only there is
 * the rest compared (check --from spent most of its time here on a big
 * kernel log: ofl_line_class asks this of every line). */
bool ofl_contains(struct gd_slice s, const char *lit)
{
	size_t n = strlen(lit);
	const char *end, *a, *b;
	int lo, up;

	if (!n || n > s.n)
		return false;
	end = s.p + (s.n - n) + 1;   /* a match starts before end */
	lo = tolower((unsigned char)lit[0]);
	up = toupper((unsigned char)lit[0]);
	a = memchr(s.p, lo, (size_t)(end - s.p));
	b = lo == up ? NULL : memchr(s.p, up, (size_t)(end - s.p));
	while (a || b) {
		const char *q = !b || (a && a < b) ? a : b;

		if (strncasecmp(q + 1, lit + 1, n - 1) == 0)
			return true;
		if (q == a)
			a = memchr(a + 1, lo, (size_t)(end - (a + 1)));
		else
			b = memchr(b + 1, up, (size_t)(end - (b + 1)));
	}
	return false;
}

/* The value without surrounding blanks and one pair of brackets. */
static struct gd_slice unbracket(struct gd_slice v)
{
	v = gd_tok_trim(ofl_chomp(v));
	if (v.n >= 2 && v.p[0] == '[' && v.p[v.n - 1] == ']') {
		v.p++;
		v.n -= 2;
		v = gd_tok_trim(v);
	}
	return v;
}

bool ofl_placeholder(struct gd_slice v)
{
	v = unbracket(v);
	return v.n == 0 || ofl_ieq(v, "N/A") || ofl_ieq(v, "NA") || ofl_ieq(v, "Not Supported") ||
	       ofl_ieq(v, "Not Available") || ofl_ieq(v, "None") || ofl_ieq(v, "-");
}

bool ofl_errval(struct gd_slice v)
{
	v = unbracket(v);
	return ofl_ieq(v, "ERR!") || ofl_contains(v, "Unknown Error") || ofl_contains(v, "requires reset") ||
	       ofl_contains(v, "Insufficient Permissions") || ofl_contains(v, "GPU is lost") || ofl_ieq(v, "Unknown");
}

/* Splits "81920 MiB" / "81920MiB" / "0x0000000000000004" into the number
 * and the unit. */
static void split_unit(struct gd_slice v, struct gd_slice *num, struct gd_slice *unit)
{
	size_t i = 0;

	if (v.n > 2 && v.p[0] == '0' && (v.p[1] == 'x' || v.p[1] == 'X'))
		for (i = 2; i < v.n && isxdigit((unsigned char)v.p[i]); i++)
			;
	else
		while (i < v.n && (isdigit((unsigned char)v.p[i]) || v.p[i] == '.' || v.p[i] == '-' || v.p[i] == '+'))
			i++;
	num->p = v.p;
	num->n = i;
	*unit = gd_tok_trim((struct gd_slice){ v.p + i, v.n - i });
}

static enum ofl_v classify(struct gd_slice v)
{
	if (ofl_errval(v))
		return OFL_ERRVAL;
	if (ofl_placeholder(v))
		return OFL_ABSENT;
	return OFL_SET;
}

static bool unit_ok(struct gd_slice u, const char *unit)
{
	return u.n == 0 || (unit && ofl_ieq(u, unit));
}

enum ofl_v ofl_u64(struct gd_slice v, const char *unit, uint64_t scale, struct gd_u64 *out)
{
	struct gd_slice num, u;
	enum ofl_v c = classify(v);
	uint64_t x;

	if (c != OFL_SET)
		return c;
	v = unbracket(v);
	split_unit(v, &num, &u);
	if (!unit_ok(u, unit))
		return OFL_BAD;
	if (num.n > 2 && num.p[0] == '0' && (num.p[1] == 'x' || num.p[1] == 'X')) {
		char buf[24], *end;

		if (num.n >= sizeof buf)
			return OFL_BAD;
		memcpy(buf, num.p, num.n);
		buf[num.n] = '\0';
		x = strtoull(buf, &end, 16);
		if (*end)
			return OFL_BAD;
	} else if (!gd_tok_u64(num, &x)) {
		return OFL_BAD;
	}
	if (scale > 1 && x > UINT64_MAX / scale)
		return OFL_BAD;
	gd_u64_set(out, x * (scale ? scale : 1));
	return OFL_SET;
}

enum ofl_v ofl_f64(struct gd_slice v, const char *unit, double scale, struct gd_f64 *out)
{
	struct gd_slice num, u;
	enum ofl_v c = classify(v);
	double x;

	if (c != OFL_SET)
		return c;
	v = unbracket(v);
	split_unit(v, &num, &u);
	if (!unit_ok(u, unit) || !gd_tok_f64(num, &x) || !isfinite(x))
		return OFL_BAD;
	gd_f64_set(out, x * scale);
	return OFL_SET;
}

enum ofl_v ofl_bool(struct gd_slice v, struct gd_u64 *out)
{
	enum ofl_v c = classify(v);

	if (c != OFL_SET)
		return c;
	v = unbracket(v);
	if (ofl_ieq(v, "Enabled") || ofl_ieq(v, "On") || ofl_ieq(v, "Yes") || ofl_ieq(v, "Active"))
		gd_u64_set(out, 1);
	else if (ofl_ieq(v, "Disabled") || ofl_ieq(v, "Off") || ofl_ieq(v, "No") || ofl_ieq(v, "Not Active"))
		gd_u64_set(out, 0);
	else
		return OFL_BAD;
	return OFL_SET;
}

enum ofl_v ofl_str(struct gd_slice v, char *dst, size_t dstsz)
{
	enum ofl_v c = classify(v);

	if (c != OFL_SET)
		return c;
	gd_tok_copy(dst, dstsz, gd_tok_trim(ofl_chomp(v)));
	return OFL_SET;
}

bool ofl_bus_id(struct gd_slice v, char *dst, size_t dstsz)
{
	unsigned long dom = 0, bus, dev, fn;
	char buf[40], *p, *end;
	int colons = 0;

	v = gd_tok_trim(ofl_chomp(v));
	if (v.n == 0 || v.n >= sizeof buf)
		return false;
	memcpy(buf, v.p, v.n);
	buf[v.n] = '\0';
	for (p = buf; *p; p++) {
		if (*p == ':')
			colons++;
		else if (*p != '.' && !isxdigit((unsigned char)*p))
			return false;
	}
	p = buf;
	if (colons == 2) {
		dom = strtoul(p, &end, 16);
		if (*end != ':' || end == p || end - p > 8)
			return false;
		p = end + 1;
	} else if (colons != 1) {
		return false;
	}
	bus = strtoul(p, &end, 16);
	if (*end != ':' || end == p || end - p > 2)
		return false;
	p = end + 1;
	dev = strtoul(p, &end, 16);
	if (*end != '.' || end == p || end - p > 2 || dev > 0x1f)
		return false;
	p = end + 1;
	fn = strtoul(p, &end, 16);
	if (*end || end == p || fn > 7 || dom > 0xffff)
		return false;
	snprintf(dst, dstsz, "%04lx:%02lx:%02lx.%lx", dom, bus, dev, fn);
	return true;
}

bool ofl_find_bus_id(struct gd_slice text, char *dst, size_t dstsz)
{
	for (size_t i = 0; i < text.n; i++) {
		size_t j = i;

		if (!isxdigit((unsigned char)text.p[i]) || (i && (isxdigit((unsigned char)text.p[i - 1]) ||
								  text.p[i - 1] == ':')))
			continue;
		while (j < text.n && (isxdigit((unsigned char)text.p[j]) || text.p[j] == ':' || text.p[j] == '.'))
			j++;
		while (j > i && (text.p[j - 1] == '.' || text.p[j - 1] == ':'))
			j--;
		if (ofl_bus_id((struct gd_slice){ text.p + i, j - i }, dst, dstsz))
			return true;
	}
	return false;
}

struct gd_gpu *ofl_gpu_find(struct gd_snapshot *s, const char *uuid, const char *bus)
{
	GD_VEC_EACH(s->gpus, struct gd_gpu, g) {
		if (uuid && uuid[0] && g->uuid[0] && strcasecmp(g->uuid, uuid) == 0)
			return g;
		if (bus && bus[0] && g->pci_bus_id[0] && strcmp(g->pci_bus_id, bus) == 0)
			return g;
	}
	return NULL;
}

void ofl_note_errval(struct gd_snapshot *s, uint64_t gpu, const char *field, const char *what, size_t lineno,
		     struct gd_slice key, struct gd_slice v)
{
	struct gd_nvml_error *e = GD_PUSH(s, nvml_errors, struct gd_nvml_error);

	key = gd_tok_trim(key);
	v = gd_tok_trim(ofl_chomp(v));
	if (gpu != UINT64_MAX)
		gd_u64_set(&e->gpu, gpu);
	GD_STRSET(e->field, field);
	GD_STRSET(e->status, "failed");
	snprintf(e->reason, sizeof e->reason, _("%s line %zu: %.*s: %.*s"), what, lineno, (int)(key.n > 64 ? 64 : key.n),
		 key.p, (int)(v.n > 64 ? 64 : v.n), v.p);
}

void ofl_device_handle(struct gd_snapshot *s, struct gd_gpu *g, struct gd_slice line, const char *what, size_t lineno)
{
	bool gone = ofl_contains(line, "GPU is lost");

	/* "Unknown Error": the device is there but unreachable, the same GPU
	 * off the bus that NVML calls lost once it knows */
	if (gone || ofl_contains(line, "Unknown Error"))
		gd_u64_set(&g->lost, 1);
	if (!gone)
		ofl_note_errval(s, g->index.ok ? g->index.v : UINT64_MAX, "lost", what, lineno,
				(struct gd_slice){ "device handle", 13 }, line);
}

struct gd_gpu_proc *ofl_gpu_proc(struct gd_snapshot *s, uint64_t gpu, uint64_t pid, bool graphics)
{
	struct gd_gpu_proc *p = GD_PUSH(s, gpu_procs, struct gd_gpu_proc);

	gd_u64_set(&p->gpu, gpu);
	gd_u64_set(&p->pid, pid);
	gd_u64_set(&p->graphics, graphics);
	GD_VEC_EACH(s->gpus, struct gd_gpu, g)
		if (g->index.ok && g->index.v == gpu)
			gd_u64_set(&g->nvml_procs, (g->nvml_procs.ok ? g->nvml_procs.v : 0) + 1);
	return p;
}

void ofl_procs_listed(struct gd_gpu *g)
{
	if (!g->nvml_procs.ok)
		gd_u64_set(&g->nvml_procs, 0);
}

void ofl_nvml_ok(struct gd_snapshot *s, const char *what)
{
	if (!s->nvml.status[0])
		GD_STRSET(s->nvml.status, "ok");
	if (!s->nvml.library[0])
		GD_STRSET(s->nvml.library, what);
}

uint64_t ofl_cuda_version(double v)
{
	uint64_t major = (uint64_t)v, minor = (uint64_t)((v - (double)major) * 10 + 0.5);

	return major * 1000 + minor * 10;
}

struct gd_slice ofl_note_cut(struct gd_slice v)
{
	for (size_t i = 1; i + 1 < v.n; i++) {
		char c = v.p[i + 1], d = i + 2 < v.n ? v.p[i + 2] : '\0';

		if (v.p[i] != ' ' && v.p[i] != '\t')
			continue;
		if ((c && strchr("<#!*(", c)) || (unsigned char)c == 0xe2 || ((c == '-' || c == '=' || c == '/') && d == c))
			return gd_tok_trim((struct gd_slice){ v.p, i });
	}
	return v;
}
