/*
 * out_config.c - the configuration file, written from the thresholds table.
 *
 * `gpudoctor config` prints it, and the build writes /etc/gpudoctor.conf
 * with it (`gpudoctor config --config /dev/null`), so the installed sample
 * lists every threshold of src/rules/thresholds.def with its default and
 * cannot drift from the binary.  One section per rule id (in the order the
 * table first names it), each key commented out with its default:
 *
 *   [cpu.saturated]
 *   # warning: all CPUs busy ...
 *   # busy_pct (%): all-CPU busy share over the window
 *   #busy_pct = 90
 *
 * A value in force that differs from the default (from --config or --set)
 * is written uncommented, so `gpudoctor config --config old.conf` carries
 * a file's settings over into the current list of thresholds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "output/output.h"
#include "output/report_util.h"
#include "rules/thresholds.h"

/* The shortest %g form that reads back as the same double (1073741824, not
 * 1.07374e+09; 0.01, not 0.01000000000000000021). */
static void fmt_number(char *buf, size_t size, double v)
{
	for (int prec = 6; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* True when an earlier row of the table already named rule (its section is
 * written there, with all its keys). */
static bool seen_before(size_t row)
{
	for (size_t i = 0; i < row; i++)
		if (strcmp(gd_th_table[i].rule, gd_th_table[row].rule) == 0)
			return true;
	return false;
}

static void write_section(FILE *out, const struct gd_thresholds *th, const char *rule)
{
	const struct gd_rule *r = gd_rule_find(rule);
	char def[40], cur[40];

	fprintf(out, "\n[%s]\n", rule);
	if (r)
		fprintf(out, "# %s: %s\n", gd_sev_word(r->severity), _(r->title));
	else if (strcmp(rule, "episodes") == 0)
		fprintf(out, "# %s\n", _("stall episodes over a series (watch, record, report, serve): not a rule"));
	for (size_t i = 0; i < GD_TH_COUNT; i++) {
		const struct gd_th_desc *d = &gd_th_table[i];

		if (strcmp(d->rule, rule) != 0)
			continue;
		fmt_number(def, sizeof def, d->def);
		fprintf(out, "# %s (%s): %s\n", d->key, d->unit, _(d->help));
		if (th->v[i] == d->def || (isnan(th->v[i]) && isnan(d->def))) {
			fprintf(out, "#%s = %s\n", d->key, def);
		} else {
			fmt_number(cur, sizeof cur, th->v[i]);
			fprintf(out, "%s = %s\n", d->key, cur);
			fprintf(out, _("# (default %s)\n"), def);
		}
	}
}

void gd_out_config(FILE *out, const struct gd_thresholds *th)
{
	/* TRANSLATORS: the head of the configuration file: every line a comment
	 * (starting with "#"), at most 76 columns */
	fputs(_("# gpudoctor.conf - the thresholds of gpudoctor's rules, in INI form.\n"
		"#\n"
		"# Written by `gpudoctor config` from the thresholds table of the binary:\n"
		"# every threshold is listed under its rule id with its default, commented\n"
		"# out.  To change one, uncomment its line and edit the number.  A section\n"
		"# or key gpudoctor does not know is an error that names it.\n"
		"#\n"
		"# gpudoctor reads /etc/gpudoctor.conf when it exists; --config FILE reads\n"
		"# another file instead, --set RULE.KEY=VALUE overrides one value for one\n"
		"# run, and `gpudoctor rules` shows the values in force.  See gpudoctor(1).\n"),
	      out);
	for (size_t i = 0; i < GD_TH_COUNT; i++)
		if (!seen_before(i))
			write_section(out, th, gd_th_table[i].rule);
}
