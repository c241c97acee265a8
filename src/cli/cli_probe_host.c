/*
 * cli_probe_host.c - runs the host probes for `gpudoctor probe` and puts
 * their results into its report.  See cli_probe_host.h.
 */
#include "cli/cli_probe_host.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "model/snapshot_json.h"

#define MAX_LINES 32

void gd_cli_host_init(struct gd_cli_host *h, const char *root, const char *data, unsigned want)
{
	memset(h, 0, sizeof *h);
	gd_probe_host_opts_init(&h->opts);
	h->opts.root = root;
	h->data = data;
	h->want = want & GD_PROBE_WANT_HOST;
	if (!data)
		h->want &= ~GD_PROBE_WANT_STORAGE;
}

void gd_cli_host_release(struct gd_cli_host *h)
{
	free(h->storage);
	free(h->mem);
	free(h->power);
	h->storage = NULL;
	h->mem = NULL;
	h->power = NULL;
}

void gd_cli_host_burn_start(struct gd_cli_host *h)
{
	if (!(h->want & GD_PROBE_WANT_POWER) || h->rapl0_taken)
		return;
	gd_probe_rapl_sample(&h->opts, &h->rapl0);
	h->rapl0_taken = true;
}

void gd_cli_host_burn_end(struct gd_cli_host *h, double gpu_w, unsigned ngpus)
{
	struct gd_probe_power_in in = { gpu_w, ngpus, h->rapl0_taken ? &h->rapl0 : NULL };

	if (!(h->want & GD_PROBE_WANT_POWER) || h->power)
		return;
	h->power = gd_xcalloc(1, sizeof *h->power);
	gd_probe_power(&h->opts, &in, h->power);
}

void gd_cli_host_run(struct gd_cli_host *h, FILE *progress)
{
	if (h->want & GD_PROBE_WANT_STORAGE) {
		if (progress) {
			fputs("\r\033[K", progress);
			fprintf(progress, _("probe: storage under %s"), h->data);
			fflush(progress);
		}
		h->storage = gd_xcalloc(1, sizeof *h->storage);
		gd_probe_storage(h->data, &h->opts, h->storage);
	}
	if (h->want & GD_PROBE_WANT_HOST_MEM) {
		if (progress) {
			fputs("\r\033[K", progress);
			fputs(_("probe: host memory bandwidth (STREAM triad)"), progress);
			fflush(progress);
		}
		h->mem = gd_xcalloc(1, sizeof *h->mem);
		gd_probe_host_mem(&h->opts, h->mem);
	}
	if (progress)
		fputs("\r\033[K", progress), fflush(progress);
}

bool gd_cli_host_ran(const struct gd_cli_host *h)
{
	return h->storage || h->mem || h->power;
}

static struct gd_probe_host_results results(const struct gd_cli_host *h)
{
	struct gd_probe_host_results r = { h->storage, h->mem, h->power };

	return r;
}

void gd_cli_host_judge(const struct gd_cli_host *h, const struct gd_thresholds *th, struct gd_findings *out)
{
	struct gd_probe_host_results r = results(h);

	if (gd_cli_host_ran(h))
		gd_probe_host_judge(&r, th, out);
}

void gd_cli_pad(FILE *out, const char *s, size_t cols)
{
	fputs(s, out);
	for (size_t w = gd_utf8_width(s); w < cols; w++)
		fputc(' ', out);
}

const char *gd_cli_probe_status(const char *status)
{
	/* the status words of the probe rows and of the host lines */
	static const char *const words[] = { N_("ok"), N_("low"), N_("failed"), N_("hung"), N_("skipped"),
					     N_("not_run"), N_("not run"), N_("running"), N_("unavailable") };

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcmp(status, words[i]) == 0)
			return _(words[i]);
	return status;
}

static void fmt_num(char *buf, size_t n, double v, const char *unit)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f %s", v, unit);
}

void gd_cli_host_print(const struct gd_cli_host *h, const struct gd_thresholds *th, FILE *out)
{
	struct gd_probe_host_line lines[MAX_LINES];
	struct gd_probe_host_results r = results(h);
	size_t n;

	if (!gd_cli_host_ran(h))
		return;
	n = gd_probe_host_lines(&r, th, lines, MAX_LINES);
	fputs(_("host probes:\n"), out);
	for (size_t i = 0; i < n && i < MAX_LINES; i++) {
		const struct gd_probe_host_line *l = &lines[i];
		char ach[48], exp[160] = "";

		fmt_num(ach, sizeof ach, l->achieved, l->unit);
		if (!isnan(l->expected))
			snprintf(exp, sizeof exp, _("expected %s %.1f (%s)"), l->higher_is_better ? ">=" : "<=", l->expected,
				 l->expected_from);
		fprintf(out, "  %-20s ", l->probe);
		gd_cli_pad(out, l->subject, 12);
		fprintf(out, " %-16s ", ach);
		gd_cli_pad(out, exp, 48);
		fprintf(out, " %s", gd_cli_probe_status(l->avail.state != GD_PROBE_OK ? gd_probe_state_name(l->avail.state)
							: l->ok ? "ok" : "low"));
		if (l->avail.why[0])
			fprintf(out, " (%s)", l->avail.why);
		fputc('\n', out);
	}
	fputc('\n', out);
}

json_t *gd_cli_host_json(const struct gd_cli_host *h, const struct gd_thresholds *th)
{
	struct gd_probe_host_line lines[MAX_LINES];
	struct gd_probe_host_results r = results(h);
	json_t *doc = json_object(), *arr = json_array();
	size_t n = gd_probe_host_lines(&r, th, lines, MAX_LINES);

	json_object_set_new(doc, "results", gd_probe_host_json(&r));
	for (size_t i = 0; i < n && i < MAX_LINES; i++) {
		const struct gd_probe_host_line *l = &lines[i];
		json_t *o = json_object();

		json_object_set_new(o, "probe", json_string(l->probe));
		json_object_set_new(o, "rule", json_string(l->rule));
		json_object_set_new(o, "subject", gd_json_str(l->subject));
		json_object_set_new(o, "status", json_string(gd_probe_state_name(l->avail.state)));
		json_object_set_new(o, "achieved", isnan(l->achieved) ? json_null() : json_real(l->achieved));
		json_object_set_new(o, "unit", json_string(l->unit));
		json_object_set_new(o, "expected", isnan(l->expected) ? json_null() : json_real(l->expected));
		json_object_set_new(o, "expected_from", gd_json_str(l->expected_from));
		json_object_set_new(o, "ok", json_boolean(l->ok));
		if (l->avail.why[0])
			json_object_set_new(o, "reason", gd_json_str(l->avail.why));
		json_array_append_new(arr, o);
	}
	json_object_set_new(doc, "lines", arr);
	return doc;
}
