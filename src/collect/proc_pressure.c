/*
 * proc_pressure.c - Pressure Stall Information: /proc/pressure/{cpu,memory,io}.
 *
 *     some avg10=0.03 avg60=0.50 avg300=0.39 total=3724141
 *     full avg10=0.03 avg60=0.50 avg300=0.38 total=3628821
 *
 * Kernel 4.20+ with CONFIG_PSI (and psi=1 where CONFIG_PSI_DEFAULT_DISABLED).
 * avg* are percentages of wall time over ~10/60/300 s; total is cumulative
 * stall time in microseconds.  "some": at least one task stalled; "full": all
 * non-idle tasks stalled.  The system-wide cpu file has no full line on
 * 4.20-5.12 and prints it as zeros since 5.13, so only its some line is used.
 * When PSI is disabled the files are absent or reading them fails with
 * EOPNOTSUPP; both are recorded as ABSENT.  Fields are found by key name.
 */
#include "collect/collectors.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "core/tok.h"

#define PSI_OFF _("PSI not enabled in this kernel (needs CONFIG_PSI and psi=1)")

struct psi_line {
	bool seen;
	struct gd_f64 avg10, avg60, avg300;
	struct gd_u64 total;
};

struct psi_file {
	struct psi_line some, full;
};

/* Parses one pressure file into out.  Returns 0, 1 (lines skipped) or < 0. */
static int parse_psi(const char *buf, size_t len, struct psi_file *out, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line, f[8], key, val;
	size_t bad = 0;
	char msg[GD_ERR_MSG_MAX];

	memset(out, 0, sizeof *out);
	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("binary data, not the text of a pressure file"));
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		size_t n = gd_tok_split(line, f, 8);
		struct psi_line *pl;
		bool line_bad = false;

		if (n == 0)
			continue;
		if (gd_tok_eq(f[0], "some")) {
			pl = &out->some;
		} else if (gd_tok_eq(f[0], "full")) {
			pl = &out->full;
		} else {
			if (!bad++)
				gd_err_set(err, -EINVAL, _("line %zu: \"%.*s\" is neither some nor full"), it.lineno,
					   (int)f[0].n, f[0].p);
			continue;
		}
		pl->seen = true;
		for (size_t i = 1; i < n && !line_bad; i++) {
			struct gd_f64 *avg = NULL;
			double d;
			uint64_t u;

			if (!gd_tok_kv(f[i], '=', &key, &val)) {
				line_bad = true;
			} else if (gd_tok_eq(key, "avg10")) {
				avg = &pl->avg10;
			} else if (gd_tok_eq(key, "avg60")) {
				avg = &pl->avg60;
			} else if (gd_tok_eq(key, "avg300")) {
				avg = &pl->avg300;
			} else if (gd_tok_eq(key, "total")) {
				if (gd_tok_u64(val, &u))
					gd_u64_set(&pl->total, u);
				else
					line_bad = true;
			}
			if (avg && gd_tok_f64(val, &d) && d >= 0 && d <= 100)
				gd_f64_set(avg, d);
			else if (avg)
				line_bad = true;
			if (line_bad && !bad++)
				gd_err_set(err, -EINVAL, _("line %zu: \"%.*s\" is not key=number"), it.lineno, (int)f[i].n,
					   f[i].p);
		}
		if (!line_bad && (!pl->avg10.ok || !pl->total.ok) && !bad++) {
			line_bad = true;
			gd_err_set(err, -EINVAL, _("line %zu: %.*s line lacks avg10 or total"), it.lineno, (int)f[0].n,
				   f[0].p);
		}
	}
	if (!out->some.seen && !out->full.seen) {
		if (bad)
			return err->code;
		return gd_err_set(err, -ENODATA, _("no some or full line"));
	}
	if (bad > 1) {
		snprintf(msg, sizeof msg, "%s", err->msg);
		gd_err_set(err, -EINVAL, _("%s (and %zu more bad lines)"), msg, bad - 1);
	}
	return bad ? 1 : 0;
}

int gd_parse_proc_pressure_cpu(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct psi_file p;
	int rc = parse_psi(buf, len, &p, err);

	if (rc < 0)
		return rc;
	if (!p.some.seen)
		return gd_err_set(err, -EINVAL, _("no some line"));
	s->psi.cpu_some_avg10 = p.some.avg10;
	s->psi.cpu_some_avg60 = p.some.avg60;
	s->psi.cpu_some_total_us = p.some.total;
	return rc;
}

/* memory and io have the same shape: some and full, avg10 and total. */
static int parse_some_full(const char *buf, size_t len, struct gd_f64 *some10, struct gd_u64 *some_total,
			   struct gd_f64 *full10, struct gd_u64 *full_total, struct gd_err *err)
{
	struct psi_file p;
	int rc = parse_psi(buf, len, &p, err);

	if (rc < 0)
		return rc;
	if (!p.some.seen)
		return gd_err_set(err, -EINVAL, _("no some line"));
	*some10 = p.some.avg10;
	*some_total = p.some.total;
	*full10 = p.full.avg10;
	*full_total = p.full.total;
	if (!p.full.seen && rc == 0) {
		gd_err_set(err, -EINVAL, _("no full line"));
		rc = 1;
	}
	return rc;
}

int gd_parse_proc_pressure_memory(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	return parse_some_full(buf, len, &s->psi.memory_some_avg10, &s->psi.memory_some_total_us,
			       &s->psi.memory_full_avg10, &s->psi.memory_full_total_us, err);
}

int gd_parse_proc_pressure_io(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	return parse_some_full(buf, len, &s->psi.io_some_avg10, &s->psi.io_some_total_us, &s->psi.io_full_avg10,
			       &s->psi.io_full_total_us, err);
}

/* How bad a status is, for choosing which reason to report. */
static int rank(enum gd_src_status st)
{
	switch (st) {
	case GD_SRC_OK:
		return 0;
	case GD_SRC_ABSENT:
		return 1;
	case GD_SRC_PARTIAL:
	case GD_SRC_DENIED:
		return 2;
	default:
		return 3;
	}
}

enum gd_src_status gd_collect_proc_pressure(const struct gd_collect_ctx *ctx, struct gd_snapshot *s,
					    struct gd_err *err)
{
	static const struct {
		const char *rel;
		gd_parse_fn parse;
	} files[] = {
		{ "proc/pressure/cpu", gd_parse_proc_pressure_cpu },
		{ "proc/pressure/memory", gd_parse_proc_pressure_memory },
		{ "proc/pressure/io", gd_parse_proc_pressure_io },
	};
	size_t nst[GD_SRC_FAILED + 1] = { 0 };
	enum gd_src_status worst = GD_SRC_OK;
	struct gd_err first;

	gd_err_clear(&first);
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		struct gd_err e;
		enum gd_src_status st;

		gd_err_clear(&e);
		st = gd_collect_file(ctx, files[i].rel, files[i].parse, s, &e);
		nst[st]++;
		/* Keep the reason of the first, most serious problem. */
		if (rank(st) > rank(worst)) {
			worst = st;
			first = e;
		}
	}
	if (nst[GD_SRC_OK] == 3)
		return GD_SRC_OK;
	if (nst[GD_SRC_ABSENT] == 3) {
		gd_err_set(err, -EOPNOTSUPP, PSI_OFF);
		return GD_SRC_ABSENT;
	}
	gd_err_set(err, first.code, "%s", first.msg);
	if (nst[GD_SRC_OK] + nst[GD_SRC_PARTIAL] > 0)
		return GD_SRC_PARTIAL;
	return worst;
}
