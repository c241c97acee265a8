/*
 * report.c - what the text and JSON outputs share: the exit code, value
 * formatting, and the account of what was checked and what was not.
 */
#include "output/output.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "output/report_util.h"

int gd_report_exit_code(const struct gd_findings *f)
{
	int worst = gd_findings_worst(f);

	if (worst >= GD_SEV_CRITICAL)
		return 2;
	return worst >= GD_SEV_WARNING ? 1 : 0;
}

const char *gd_fmt_value(char *buf, size_t size, double v, const char *unit)
{
	static const char *const iec[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };

	if (!unit)
		unit = "";
	if (strcmp(unit, "bytes") == 0) {
		size_t i = 0;

		while (fabs(v) >= 1024 && i + 1 < sizeof iec / sizeof iec[0]) {
			v /= 1024;
			i++;
		}
		snprintf(buf, size, i ? "%.1f %s" : "%.0f %s", v, iec[i]);
	} else if (strcmp(unit, "%") == 0) {
		snprintf(buf, size, fabs(v) < 1 && v != 0 ? "%.2f%%" : "%.1f%%", v);
	} else if (strcmp(unit, "celsius") == 0) {
		snprintf(buf, size, "%.1f °C", v);
	} else {
		int prec = v == floor(v) && fabs(v) < 1e15 ? 0 : fabs(v) < 10 ? 2 : 1;

		snprintf(buf, size, "%.*f%s%s", prec, v, unit[0] ? " " : "", unit);
	}
	return buf;
}

void gd_report_counts(const struct gd_snapshot *s, struct gd_report_counts *c)
{
	memset(c, 0, sizeof *c);
	c->cpus = s->cpu.cpus_online.ok ? s->cpu.cpus_online.v : s->cpus.n;
	GD_VEC_EACH(s->disks, const struct gd_disk, d)
		if (d->whole.ok && d->whole.v)
			c->disks++;
	GD_VEC_EACH(s->netifs, const struct gd_netif, n)
		if (strcmp(n->name, "lo") != 0)
			c->netifs++;
	c->ib_ports = s->ib_ports.n;
	c->procs = s->procs.n;
	GD_VEC_EACH(s->procs, const struct gd_proc, p)
		if (p->nvidia_fds.ok && p->nvidia_fds.v > 0)
			c->gpu_jobs++;
	c->cgroups = s->cgroups.n;
}

const char *gd_sev_label(enum gd_severity s)
{
	/* TRANSLATORS: the severity as the text report and watch show it */
	static const char *const label[] = { N_("INFO"), N_("WARNING"), N_("CRITICAL") };

	return _(label[s == GD_SEV_CRITICAL ? 2 : s == GD_SEV_WARNING ? 1 : 0]);
}

const char *gd_sev_word(enum gd_severity s)
{
	/* TRANSLATORS: the severity as the HTML report and the configuration
	 * file show it (lower case in English) */
	static const char *const word[] = { N_("info"), N_("warning"), N_("critical") };

	return _(word[s == GD_SEV_CRITICAL ? 2 : s == GD_SEV_WARNING ? 1 : 0]);
}

const char *gd_src_status_label(const char *status)
{
	/* TRANSLATORS: the state of an evidence source in "unavailable (...)" */
	static const char *const words[] = { N_("absent"), N_("denied"), N_("partial"), N_("failed"), N_("stuck") };

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcmp(status, words[i]) == 0)
			return _(words[i]);
	return status;
}

char *gd_pad(char *buf, size_t size, const char *s, size_t cols)
{
	size_t w = gd_utf8_width(s), o;

	if (!size)
		return buf;
	o = (size_t)snprintf(buf, size, "%s", s);
	if (o >= size)
		o = size - 1;
	for (; w < cols && o + 1 < size; w++)
		buf[o++] = ' ';
	buf[o] = '\0';
	return buf;
}

char *gd_rpad(char *buf, size_t size, const char *s, size_t cols)
{
	size_t w = gd_utf8_width(s), o = 0;

	if (!size)
		return buf;
	for (; w < cols && o + 1 < size; w++)
		buf[o++] = ' ';
	snprintf(buf + o, size - o, "%s", s);
	return buf;
}

bool gd_text_wraps(void)
{
	return strcmp(gd_i18n_lang(), "zh_CN") == 0;
}

/* Bytes of the character at p (1 for a byte that does not start a whole
 * UTF-8 sequence) and its display columns in *cols.  An escape sequence
 * (ESC [ ... final byte) is one unit of no width. */
static size_t unit_at(const char *p, size_t n, size_t *cols)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t len = u[0] < 0x80 ? 1 : (u[0] >> 5) == 6 ? 2 : (u[0] >> 4) == 14 ? 3 : (u[0] >> 3) == 30 ? 4 : 1;
	char one[5];

	if (u[0] == 0x1b && n > 1 && u[1] == '[') {
		size_t i = 2;

		while (i < n && !(u[i] >= 0x40 && u[i] <= 0x7e))
			i++;
		*cols = 0;
		return i < n ? i + 1 : n;
	}
	if (len > n)
		len = 1;
	for (size_t i = 1; i < len; i++)
		if ((u[i] & 0xc0) != 0x80)
			len = 1;
	memcpy(one, p, len);
	one[len] = '\0';
	*cols = gd_utf8_width(one);
	return len;
}

/* Marks that may not start a line (closing) or end one (opening). */
static bool in_set(const char *p, size_t len, const char *set)
{
	for (const char *s = set; *s;) {
		size_t k = 1;

		while (((unsigned char)s[k] & 0xc0) == 0x80)
			k++;
		if (k == len && memcmp(s, p, len) == 0)
			return true;
		s += k;
	}
	return false;
}

/* Whether the space at s[i] sits between a number and its unit ("85.0 °C",
 * "1410 MHz"): the two stay on one line. */
static bool number_unit(const char *s, size_t i, size_t n)
{
	static const char *const units[] = { "°C", "MHz", "KiB", "MiB", "GiB", "TiB", "kB/s", "MB/s", "GB/s", "B/s",
					     "GB", "MB", "ms", "s", "W", "%" };

	if (!i || s[i - 1] < '0' || s[i - 1] > '9')
		return false;
	for (size_t k = 0; k < sizeof units / sizeof units[0]; k++) {
		size_t len = strlen(units[k]);

		if (i + 1 + len <= n && memcmp(s + i + 1, units[k], len) == 0 &&
		    (i + 1 + len == n || !((s[i + 1 + len] >= 'a' && s[i + 1 + len] <= 'z') ||
					   (s[i + 1 + len] >= 'A' && s[i + 1 + len] <= 'Z'))))
			return true;
	}
	return false;
}

static const char closing[] = "，。、；：！？）》」』】”’,.;:!?)]}%";
static const char opening[] = "（《「『【“‘([{";

static void wrap_line(FILE *out, const char *s, size_t n, size_t cols)
{
	size_t lead = 0, cont, pos = 0, cw, len;
	bool first = true;

	{
		size_t w = 0;

		for (size_t i = 0; i < n; i += len) {
			len = unit_at(s + i, n - i, &cw);
			w += cw;
		}
		if (w <= cols) {
			fwrite(s, 1, n, out);
			fputc('\n', out);
			return;
		}
	}
	while (lead < n && s[lead] == ' ')
		lead++;
	cont = lead;
	if (n - lead >= 4 && memcmp(s + lead, "\xe2\x86\x92 ", 4) == 0)
		cont += 2;
	else if (n - lead >= 3 && memcmp(s + lead, "-> ", 3) == 0)
		cont += 3;
	else if (lead < 10)
		cont = lead + 2;   /* a list's items stay apart from their continuation */
	if (cont > cols / 2)
		cont = cols / 2;
	while (pos < n) {
		size_t avail = first ? cols : cols - cont, w = 0, i = pos, brk = 0, end, next;
		bool prev_wide = false, prev_open = false;

		/* the first line's indentation is no place to break */
		if (first)
			for (; i < n && s[i] == ' '; i++)
				w++;
		while (i < n) {
			len = unit_at(s + i, n - i, &cw);
			if (s[i] == ' ') {
				if (!number_unit(s, i, n))
					brk = i;
			}
			else if (i > pos && (cw == 2 || prev_wide) && !prev_open && !in_set(s + i, len, closing))
				brk = i;
			if (w + cw > avail)
				break;
			if (s[i] != 0x1b) {
				w += cw;
				prev_wide = cw == 2;
				prev_open = in_set(s + i, len, opening);
			}
			i += len;
		}
		if (i >= n) {
			end = next = n;
		} else if (brk > pos) {
			end = next = brk;
		} else {
			end = next = i > pos ? i : pos + len;   /* one character wider than the line: it goes alone */
		}
		while (end > pos && s[end - 1] == ' ')
			end--;
		if (!first)
			fprintf(out, "%*s", (int)cont, "");
		fwrite(s + pos, 1, end - pos, out);
		fputc('\n', out);
		while (next < n && s[next] == ' ')
			next++;
		pos = next;
		first = false;
	}
}

void gd_text_wrap(FILE *out, const char *text, size_t len, size_t cols)
{
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;

		if (nl)
			wrap_line(out, text + i, n, cols);
		else
			fwrite(text + i, 1, n, out);   /* no newline at the end: as it was */
		i += n + (nl != NULL);
	}
}

/* 80 columns, or $COLUMNS when it is a number of at least 40 (as ls and man
 * read it): a wider terminal, or a script that wants whole lines. */
static size_t text_cols(void)
{
	const char *c = getenv("COLUMNS");
	char *end;
	unsigned long v;

	if (!c || !*c)
		return 80;
	v = strtoul(c, &end, 10);
	return *end || v < 40 ? 80 : (size_t)v;
}

void gd_text_out(FILE *out, gd_text_fn *fn, const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	if (!gd_text_wraps() || !(m = open_memstream(&buf, &len))) {
		fn(out, arg);
		return;
	}
	fn(m, arg);
	if (fclose(m) == 0)
		gd_text_wrap(out, buf, len, text_cols());
	free(buf);
}

/* Appends text to buf (of size bytes, used bytes at *at), cut to fit. */
static void put(char *buf, size_t size, size_t *at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t size, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*at >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *at, size - *at, fmt, ap);
	va_end(ap);
	*at = n < 0 ? *at : *at + (size_t)n >= size ? size - 1 : *at + (size_t)n;
}

const char *gd_job_rank_short(const struct gd_job_rank *r, char *buf, size_t size)
{
	size_t at = 0;

	buf[0] = '\0';
	if (!r->rank.ok)
		return buf;
	if (r->world_size.ok)
		/* TRANSLATORS: a process's rank in its distributed job, of how many: "rank 3/16" */
		put(buf, size, &at, _("rank %llu/%llu"), (unsigned long long)r->rank.v, (unsigned long long)r->world_size.v);
	else
		put(buf, size, &at, _("rank %llu"), (unsigned long long)r->rank.v);
	return buf;
}

const char *gd_job_rank_desc(const struct gd_job_rank *r, char *buf, size_t size)
{
	size_t at = 0;

	buf[0] = '\0';
	if (r->rank.ok) {
		gd_job_rank_short(r, buf, size);
		at = strlen(buf);
		if (r->local_rank.ok && r->node_rank.ok)
			/* TRANSLATORS: after "rank 3/16": its rank on its node, and its node's index */
			put(buf, size, &at, _(" (local %llu, node %llu)"), (unsigned long long)r->local_rank.v,
			    (unsigned long long)r->node_rank.v);
		else if (r->local_rank.ok)
			put(buf, size, &at, _(" (local %llu)"), (unsigned long long)r->local_rank.v);
		else if (r->node_rank.ok)
			put(buf, size, &at, _(" (node %llu)"), (unsigned long long)r->node_rank.v);
		put(buf, size, &at, " · ");
	}
	if (r->job[0])
		put(buf, size, &at, "%s · ", r->job);
	if (r->gpus[0]) {
		put(buf, size, &at, "gpu");
		for (const char *g = r->gpus; *g; g++)
			if (*g == ',')
				put(buf, size, &at, ",gpu");
			else
				put(buf, size, &at, "%c", *g);
		put(buf, size, &at, " · ");
	}
	put(buf, size, &at, "pid %llu", (unsigned long long)r->pid.v);
	if (r->pod[0] && r->namespace[0])
		/* TRANSLATORS: a Kubernetes pod, namespace/name */
		put(buf, size, &at, _(" · pod %s/%s"), r->namespace, r->pod);
	else if (r->pod[0])
		put(buf, size, &at, _(" · pod %s"), r->pod);
	if (strcmp(r->status, "ok") != 0 && strcmp(r->status, "no_rank") != 0)
		/* TRANSLATORS: why a process's identity in its job is not known: its state and the reason */
		put(buf, size, &at, _(" · identity not read (%s: %s)"), r->status, r->reason);
	return buf;
}
