/*
 * sku.c - the probes' SKU table (sku.h): data/probe-sku.ini as the build
 * embeds it, and the [probe.sku "NAME"] sections of the configuration file,
 * read with inih.
 *
 * Debian's inih calls the handler without a line number, and an error found
 * there must still name the line: the parser hands inih its lines itself
 * (ini_parse_stream), one per call, so the count of lines handed over is the
 * line the handler is called for.  The reader also sees each raw line as
 * inih will, which is how it knows where a section starts (inih truncates
 * section names at 50 bytes and says nothing of empty sections) and when a
 * line continues the value before it (INI_ALLOW_MULTILINE).
 *
 * A section's figures are checked when the section ends and applied then,
 * all or none: a figure without its source never reaches the table.
 *
 * Example: "[probe.sku "NVIDIA H100 80GB HBM3"]" with pcie_gen = 5,
 * pcie_width = 16 gives h2d 3.938 x 16 x 0.78 = 49.1 GB/s; with
 * mem_gbps = 3350 and mem_bandwidth_reached = 0.8 it gives mem_bandwidth
 * 2680 GB/s; without a share, mem_bandwidth has no SKU figure.
 */
#include "probe/sku.h"

#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "probe/probe.h"
#include "rules/rule_probe.h"

#define CONFIG_MAX (4u << 20)   /* a configuration file larger than this is not one */

static const struct {
	const char *key;
	double hi;                  /* 0 < value <= hi */
	bool integer;
} figs[GD_SKU_NFIG] = {
	[GD_SKU_PCIE_GEN] = { "pcie_gen", 6, true },
	[GD_SKU_PCIE_WIDTH] = { "pcie_width", 32, true },
	[GD_SKU_MEM_GBPS] = { "mem_gbps", 100000, false },
	[GD_SKU_FP32_TFLOPS] = { "fp32_tflops", 100000, false },
	[GD_SKU_BF16_TFLOPS] = { "bf16_tflops", 100000, false },
	[GD_SKU_COMPUTE_FP32_REACHED] = { "compute_fp32_reached", 1, false },
	[GD_SKU_COMPUTE_BF16_REACHED] = { "compute_bf16_reached", 1, false },
	[GD_SKU_MEM_BANDWIDTH_REACHED] = { "mem_bandwidth_reached", 1, false },
};
#define DATASHEET_BITS ((1u << GD_SKU_FIRST_SHARE) - 1)

/* The section being read. */
struct sec {
	bool open, ours;          /* a header was read; it is [probe.sku "..."] */
	char name[GD_SKU_NAME_MAX];
	unsigned line;            /* of its header */
	unsigned set;             /* bit per figure it sets */
	double fig[GD_SKU_NFIG];
	unsigned fig_line[GD_SKU_NFIG];
	char match[GD_SKU_NAME_MAX];
	char source[GD_SKU_SOURCE_MAX], reached_source[GD_SKU_SOURCE_MAX];
	char last_key[32];        /* the key a continuation line continues */
};

struct seen {
	char name[GD_SKU_NAME_MAX];
	unsigned line;
};

struct parse {
	struct gd_sku_table *t;
	const char *file;
	bool config;
	const char *p, *end;      /* the text not yet handed to inih */
	unsigned line;            /* lines handed over */
	bool cont;                /* the last line continues the value before it */
	bool prev_name;           /* inih holds a key such a line would continue */
	struct sec s;
	struct seen *seen;        /* the sections of this file, for duplicates */
	size_t nseen, capseen;
	struct gd_err *err;
	int rc;
	unsigned err_at;          /* the lines handed over when it was found */
	bool in_handler;          /* found by on_key: inih counts that line as its error too */
	bool handling;            /* on_key runs */
};

static void fail(struct parse *st, unsigned line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(struct parse *st, unsigned line, const char *fmt, ...)
{
	char msg[GD_ERR_MSG_MAX];
	va_list ap;

	if (st->rc < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	st->rc = gd_err_set(st->err, -EINVAL, "%s:%u: %s", st->file, line, msg);
	st->err_at = st->line;
	st->in_handler = st->handling;
}

void gd_sku_table_init(struct gd_sku_table *t)
{
	memset(t, 0, sizeof *t);
}

void gd_sku_table_release(struct gd_sku_table *t)
{
	if (!t)
		return;
	free(t->items);
	gd_sku_table_init(t);
}

static struct gd_sku *find_name(struct gd_sku_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcasecmp(t->items[i].name, name) == 0)
			return &t->items[i];
	return NULL;
}

static struct gd_sku *add_sku(struct gd_sku_table *t, const char *name)
{
	struct gd_sku *k;

	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->items = gd_xreallocarray(t->items, t->cap, sizeof *t->items);
	}
	k = &t->items[t->n++];
	memset(k, 0, sizeof *k);
	snprintf(k->name, sizeof k->name, "%s", name);
	for (int i = 0; i < GD_SKU_NFIG; i++)
		k->fig[i] = NAN;
	return k;
}

/* ---- the end of a section: check it, then apply it ----------------------- */

static void finish(struct parse *st)
{
	struct sec *s = &st->s;
	struct gd_sku *k;
	unsigned sheet = s->set & DATASHEET_BITS, shares = s->set & ~DATASHEET_BITS;
	int first_sheet = sheet ? __builtin_ctz(sheet) : 0, first_share = shares ? __builtin_ctz(shares) : 0;

	if (!s->open || !s->ours || st->rc < 0)
		return;
	s->open = false;
	if (!s->set && !s->match[0] && !s->source[0] && !s->reached_source[0]) {
		fail(st, s->line, _("[probe.sku \"%s\"] sets no figure"), s->name);
		return;
	}
	if (sheet && !s->source[0]) {
		/* TRANSLATORS: %2$s is a key (mem_gbps); "source =" is the key to add, not translated */
		fail(st, s->line, _("[probe.sku \"%s\"] gives %s without a source = line (the datasheet or PROBES.md row it comes from)"),
		     s->name, figs[first_sheet].key);
		return;
	}
	if (shares && !s->reached_source[0]) {
		fail(st, s->line,
		     _("[probe.sku \"%s\"] gives %s without a reached_source = line (the run on a real GPU that measured it)"),
		     s->name, figs[first_share].key);
		return;
	}
	if (s->source[0] && !sheet) {
		fail(st, s->line, _("[probe.sku \"%s\"] has a source = line but no datasheet figure for it to name"), s->name);
		return;
	}
	if (s->reached_source[0] && !shares) {
		fail(st, s->line, _("[probe.sku \"%s\"] has a reached_source = line but no share (compute_fp32_reached, ...)"),
		     s->name);
		return;
	}
	if (!(k = find_name(st->t, s->name)))
		k = add_sku(st->t, s->name);
	if (s->match[0])
		snprintf(k->match, sizeof k->match, "%s", s->match);
	for (int i = 0; i < GD_SKU_NFIG; i++) {
		if (!(s->set & (1u << i)))
			continue;
		k->fig[i] = s->fig[i];
		snprintf(k->source[i], sizeof k->source[i], "%.*s (%s:%u)", 180,
			 i < GD_SKU_FIRST_SHARE ? s->source : s->reached_source, st->file, s->fig_line[i]);
	}
}

/* [probe.sku "NAME"]: text is what lies between the brackets. */
static void open_section(struct parse *st, const char *text, size_t len)
{
	struct sec *s = &st->s;
	const char *q, *close, *end = text + len;

	memset(s, 0, sizeof *s);
	s->open = true;
	s->line = st->line;
	for (int i = 0; i < GD_SKU_NFIG; i++)
		s->fig[i] = NAN;
	if (len < 9 || strncmp(text, "probe.sku", 9) != 0 ||
	    (len > 9 && text[9] != ' ' && text[9] != '\t' && text[9] != '"')) {
		if (!st->config)
			fail(st, st->line, _("[%.*s]: expected [probe.sku \"PRODUCT NAME\"]"), (int)(len > 80 ? 80 : len), text);
		return;
	}
	s->ours = true;
	for (q = text + 9; q < end && (*q == ' ' || *q == '\t'); q++)
		;
	close = q < end && *q == '"' ? memchr(q + 1, '"', (size_t)(end - q - 1)) : NULL;
	if (close) {
		const char *after = close + 1;

		while (after < end && (*after == ' ' || *after == '\t'))
			after++;
		if (after != end)
			close = NULL;
	}
	if (!close || close == q + 1) {
		fail(st, st->line, _("[%.*s]: expected [probe.sku \"PRODUCT NAME\"], the name in double quotes"),
		     (int)(len > 80 ? 80 : len), text);
		return;
	}
	if ((size_t)(close - q - 1) >= sizeof s->name) {
		fail(st, st->line, _("[probe.sku ...]: a product name is at most %zu bytes"), sizeof s->name - 1);
		return;
	}
	memcpy(s->name, q + 1, (size_t)(close - q - 1));
	for (size_t i = 0; i < st->nseen; i++)
		if (strcasecmp(st->seen[i].name, s->name) == 0) {
			fail(st, st->line, _("[probe.sku \"%s\"] again (the first is at line %u)"), s->name, st->seen[i].line);
			return;
		}
	if (st->nseen == st->capseen) {
		st->capseen = st->capseen ? st->capseen * 2 : 16;
		st->seen = gd_xreallocarray(st->seen, st->capseen, sizeof *st->seen);
	}
	memcpy(st->seen[st->nseen].name, s->name, sizeof s->name);
	st->seen[st->nseen++].line = st->line;
}

/* ---- the lines, as inih sees them ---------------------------------------- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* inih's find_chars_or_comment: the first of chars (or end), stopping at an
 * inline comment (';' after white space). */
static const char *find_chars(const char *s, const char *chars)
{
	bool was_space = false;

	while (*s && !strchr(chars, *s) && !(was_space && *s == ';')) {
		was_space = is_space(*s);
		s++;
	}
	return s;
}

/* What the raw line is to inih: a comment, a continuation, a section header
 * (which ends the section before it) or a key. */
static void look(struct parse *st, const char *line)
{
	const char *start = line, *e;

	if (st->line == 1 && strncmp(start, "\xEF\xBB\xBF", 3) == 0)
		start += 3;
	while (is_space(*start))
		start++;
	st->cont = false;
	if (*start == '\0' || *start == ';' || *start == '#')
		return;
	if (st->prev_name && start > line) {
		st->cont = true;
		return;
	}
	if (*start == '[') {
		e = find_chars(start + 1, "]");
		if (*e != ']')
			return;   /* inih says so: "malformed line" */
		finish(st);
		if (st->rc == 0)
			open_section(st, start + 1, (size_t)(e - start - 1));
		st->prev_name = false;
		return;
	}
	e = find_chars(start, "=:");
	if (*e == '=' || *e == ':')
		st->prev_name = true;
}

static char *reader(char *str, int num, void *stream)
{
	struct parse *st = stream;
	const char *nl;
	size_t n;

	if (st->rc < 0 || st->p >= st->end)
		return NULL;
	nl = memchr(st->p, '\n', (size_t)(st->end - st->p));
	n = nl ? (size_t)(nl - st->p) + 1 : (size_t)(st->end - st->p);
	st->line++;
	if (n >= (size_t)num) {
		fail(st, st->line, _("the line is longer than %d bytes"), num - 1);
		return NULL;
	}
	if (memchr(st->p, '\0', n)) {
		fail(st, st->line, "%s", _("the line holds a NUL byte"));
		return NULL;
	}
	memcpy(str, st->p, n);
	str[n] = '\0';
	st->p += n;
	look(st, str);
	return st->rc < 0 ? NULL : str;
}

/* ---- keys ------------------------------------------------------------------ */

static void set_text(struct parse *st, char *dst, size_t size, const char *key, const char *value, bool append)
{
	size_t have = append ? strlen(dst) : 0, add = strlen(value);

	if (!add && !append) {
		fail(st, st->line, _("%s is empty"), key);
		return;
	}
	if (have + (append ? 1 : 0) + add >= size) {
		fail(st, st->line, _("%s is longer than %zu bytes"), key, size - 1);
		return;
	}
	if (append)
		dst[have++] = ' ';
	memcpy(dst + have, value, add + 1);
}

static void set_fig(struct parse *st, int i, const char *value)
{
	struct sec *s = &st->s;
	char *end;
	double v;

	if (s->set & (1u << i)) {
		fail(st, st->line, _("%s is set twice in [probe.sku \"%s\"] (the first at line %u)"), figs[i].key, s->name,
		     s->fig_line[i]);
		return;
	}
	errno = 0;
	v = strtod(value, &end);
	if (errno || end == value || *end || !isfinite(v)) {
		fail(st, st->line, _("%s = \"%s\": not a number"), figs[i].key, value);
		return;
	}
	if (!(v > 0 && v <= figs[i].hi) || (figs[i].integer && v != floor(v))) {
		fail(st, st->line, figs[i].integer ? _("%s = %s: expected a whole number from 1 to %.0f")
						   : _("%s = %s: expected a number above 0 and at most %g"),
		     figs[i].key, value, figs[i].hi);
		return;
	}
	if (i == GD_SKU_PCIE_WIDTH && v != 1 && v != 2 && v != 4 && v != 8 && v != 12 && v != 16 && v != 32) {
		fail(st, st->line, _("pcie_width = %s: a PCIe link has 1, 2, 4, 8, 12, 16 or 32 lanes"), value);
		return;
	}
	s->fig[i] = v;
	s->fig_line[i] = st->line;
	s->set |= 1u << i;
}

static int key_of(struct parse *st, const char *key, const char *value)
{
	struct sec *s = &st->s;

	if (st->rc < 0)
		return 0;
	if (!s->open) {
		if (st->config)
			return 1;   /* the thresholds' reader says what is wrong */
		fail(st, st->line, _("key \"%s\" outside a [probe.sku \"NAME\"] section"), key);
		return 0;
	}
	if (!s->ours)
		return 1;
	if (st->cont) {
		if (strcmp(key, s->last_key) == 0 && strcmp(key, "source") == 0)
			set_text(st, s->source, sizeof s->source, key, value, true);
		else if (strcmp(key, s->last_key) == 0 && strcmp(key, "reached_source") == 0)
			set_text(st, s->reached_source, sizeof s->reached_source, key, value, true);
		else
			fail(st, st->line, _("a line that starts with white space continues %s, which takes one line"), key);
		return st->rc == 0;
	}
	snprintf(s->last_key, sizeof s->last_key, "%s", key);
	if (strcmp(key, "source") == 0 || strcmp(key, "reached_source") == 0 || strcmp(key, "match") == 0) {
		char *dst = key[0] == 's' ? s->source : key[0] == 'r' ? s->reached_source : s->match;
		size_t size = key[0] == 'm' ? sizeof s->match : sizeof s->source;

		if (dst[0])
			fail(st, st->line, _("%s is set twice in [probe.sku \"%s\"]"), key, s->name);
		else
			set_text(st, dst, size, key, value, false);
		return st->rc == 0;
	}
	for (int i = 0; i < GD_SKU_NFIG; i++)
		if (strcmp(key, figs[i].key) == 0) {
			set_fig(st, i, value);
			return st->rc == 0;
		}
	fail(st, st->line,
	     _("unknown key \"%s\" (keys: match, pcie_gen, pcie_width, mem_gbps, fp32_tflops, bf16_tflops, source, "
	       "compute_fp32_reached, compute_bf16_reached, mem_bandwidth_reached, reached_source)"),
	     key);
	return 0;
}

static int on_key(void *user, const char *section, const char *key, const char *value)
{
	struct parse *st = user;
	int ok;

	(void)section;   /* the reader knows the section, untruncated */
	st->handling = true;
	ok = key_of(st, key, value);
	st->handling = false;
	return ok;
}

int gd_sku_table_parse(struct gd_sku_table *t, const char *text, size_t len, const char *name, bool config,
		       struct gd_err *err)
{
	struct parse st;
	int rc;

	memset(&st, 0, sizeof st);
	st.t = t;
	st.file = name;
	st.config = config;
	st.p = text;
	st.end = text + len;
	st.err = err;
	rc = ini_parse_stream(reader, &st, on_key, &st);
	if (st.rc == 0)
		finish(&st);   /* the last section ends with the text */
	free(st.seen);
	/* the first error found: inih's syntax error (not the line our handler
	 * refused, which inih counts too), unless ours came first */
	if (rc > 0 && !(st.rc < 0 && st.in_handler && (unsigned)rc == st.err_at) && (st.rc == 0 || (unsigned)rc <= st.err_at))
		return gd_err_set(err, -EINVAL, _("%s:%d: malformed line (expected [probe.sku \"NAME\"] or key = value)"), name,
				  rc);
	if (st.rc < 0)
		return st.rc;
	if (rc < 0)
		return gd_err_set(err, -ENOMEM, _("%s: inih could not parse it (%d)"), name, rc);
	return 0;
}

int gd_sku_table_builtin(struct gd_sku_table *t, struct gd_err *err)
{
	return gd_sku_table_parse(t, gd_sku_builtin_ini, strlen(gd_sku_builtin_ini), "probe-sku.ini (built in)", false,
				  err);
}

int gd_sku_table_load(struct gd_sku_table *t, const char *path, bool missing_ok, struct gd_err *err)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;
	int rc;

	if (!f) {
		if (missing_ok && errno == ENOENT)
			return 0;
		return gd_err_set(err, -errno, "%s: %s", path, strerror(errno));
	}
	buf = gd_xmalloc(CONFIG_MAX);
	n = fread(buf, 1, CONFIG_MAX, f);
	if (ferror(f)) {
		rc = gd_err_set(err, -EIO, "%s: %s", path, strerror(errno));
	} else if (n == CONFIG_MAX) {
		rc = gd_err_set(err, -EFBIG, _("%s: larger than %u MiB: not a configuration file"), path, CONFIG_MAX >> 20);
	} else {
		rc = gd_sku_table_parse(t, buf, n, path, true, err);
	}
	free(buf);
	fclose(f);
	return rc;
}

const struct gd_sku *gd_sku_find(const struct gd_sku_table *t, const char *product)
{
	const struct gd_sku *best = NULL;

	if (!product || !product[0])
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		if (strcasecmp(t->items[i].name, product) == 0)
			return &t->items[i];
	for (size_t i = 0; i < t->n; i++) {
		const struct gd_sku *k = &t->items[i];

		if (k->match[0] && strstr(product, k->match) && (!best || strlen(k->match) > strlen(best->match)))
			best = k;
	}
	return best;
}

static bool product(const struct gd_sku *k, int fig, int share, double scale, double *value)
{
	if (isnan(k->fig[fig]) || isnan(k->fig[share]))
		return false;
	*value = k->fig[fig] * scale * k->fig[share];
	return true;
}

bool gd_sku_expected(const struct gd_sku *k, int pk, double *value)
{
	if (!k)
		return false;
	switch (pk) {
	case GD_PK_COMPUTE_FP32:
		return product(k, GD_SKU_FP32_TFLOPS, GD_SKU_COMPUTE_FP32_REACHED, 1000, value);
	case GD_PK_COMPUTE_BF16:
		return product(k, GD_SKU_BF16_TFLOPS, GD_SKU_COMPUTE_BF16_REACHED, 1000, value);
	case GD_PK_MEM_BANDWIDTH:
		return product(k, GD_SKU_MEM_GBPS, GD_SKU_MEM_BANDWIDTH_REACHED, 1, value);
	case GD_PK_H2D:
	case GD_PK_D2H:
	case GD_PK_H2D_ALL:
	case GD_PK_D2H_ALL:
		if (isnan(k->fig[GD_SKU_PCIE_GEN]) || isnan(k->fig[GD_SKU_PCIE_WIDTH]))
			return false;
		*value = gd_pcie_lane_gbps((unsigned)k->fig[GD_SKU_PCIE_GEN]) * k->fig[GD_SKU_PCIE_WIDTH] *
			 GD_PROBE_PCIE_REACHED;
		return true;
	default:
		return false;
	}
}
