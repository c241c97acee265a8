/*
 * out_text.c - the report a person reads (REPORT.md): the verdict first,
 * each finding as what, where, the numbers, what to do; then what was
 * checked and what could not be, and why, so that "no finding" can be
 * trusted.  Colour only marks the severity words; the text reads the same
 * without it.
 *
 * In Chinese the severities read 严重, 警告, 提示, padded to the same 9
 * columns by display width, and the report is wrapped at 80 columns
 * (gd_text_out): the English layout never changes.
 *
 *   gpudoctor 0.1.0 · host gpu-a17 · kernel 6.1.0 · 16 CPUs · window 2.0 s
 *
 *   WARNING   cpu.saturated                  host
 *             All 16 CPUs are 97% busy over 2.0 s (threshold 90%).
 *             busy 97.1% (≥ 90.0%) · load per CPU 3.2
 *             → Cut CPU work per sample ...
 *
 *   checked: 20 rules over 2 snapshots · 16 CPUs, 2 disks, 3 NICs, 312 processes (1 GPU job), cgroup v2
 *   not evaluated (1 rule): io.network_fs (no GPU job found)
 *   unavailable (1 source): cpufreq (absent: no cpufreq in sysfs)
 *   1 warning  (exit 1)
 */
#include "output/output.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "offline/offline.h"
#include "output/report_util.h"
#include "output/subject.h"
#include "rules/episodes.h"
#include "rules/window.h"

static const char *sev_color(enum gd_severity s)
{
	switch (s) {
	case GD_SEV_CRITICAL:
		return "\033[1;31m";
	case GD_SEV_WARNING:
		return "\033[1;33m";
	default:
		return "\033[1;36m";
	}
}

/* Evidence names are snake_case with a unit suffix; people read words, and
 * the unit is printed with the value ("read_mb_per_s" 1.5 → "read 1.50 MB/s"). */
static void pretty_name(char *dst, size_t size, const char *name)
{
	static const char *const suffixes[] = { "_mb_per_s", "_per_s", "_per_min", "_per_hour", "_pct", "_bytes",
						"_mbps", "_gbps", "_mhz", "_kib", "_ns", "_c", "_s" };
	size_t n = strlen(name);
	const char *label;

	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		size_t k = strlen(suffixes[i]);

		if (n > k && strcmp(name + n - k, suffixes[i]) == 0) {
			n -= k;
			break;
		}
	}
	if (n >= size)
		n = size - 1;
	for (size_t i = 0; i < n; i++)
		dst[i] = name[i] == '_' ? ' ' : name[i];
	dst[n] = '\0';
	/* the label in the reader's language: scripts/po.sh lists every
	 * evidence name of the sources, labelled as here, in context "evidence" */
	label = gd_i18n_ctx("evidence", dst);
	if (label != dst)
		gd_strlcpy(dst, label, size);
}

static void print_evidence(FILE *out, const struct gd_finding *f)
{
	char name[64], val[64], th[64];
	size_t shown = 0;

	for (size_t i = 0; i < f->nev; i++)
		shown += !f->ev[i].source[0];
	if (shown)
		fputs("          ", out);
	for (size_t i = 0, k = 0; i < f->nev; i++) {
		const struct gd_evidence *e = &f->ev[i];

		if (e->source[0])
			continue;
		pretty_name(name, sizeof name, e->name);
		if (k++)
			fputs(" · ", out);
		if (e->value.ok) {
			fprintf(out, "%s %s", name, gd_fmt_value(val, sizeof val, e->value.v, e->unit));
			if (e->threshold.ok)
				fprintf(out, _(" (threshold %s)"), gd_fmt_value(th, sizeof th, e->threshold.v, e->unit));
			if (e->text[0])
				fprintf(out, " %s", e->text);
		} else {
			fprintf(out, "%s %s", name, e->text[0] ? e->text : _("n/a"));
		}
	}
	if (shown)
		fputc('\n', out);
	/* the lines that proved it, each under the finding: "train.log:1234: ..." */
	for (size_t i = 0; i < f->nev; i++)
		if (f->ev[i].source[0])
			fprintf(out, "          %s: %s\n", f->ev[i].source, f->ev[i].text);
}

static void print_header(FILE *out, const struct gd_report *r)
{
	const struct gd_snapshot *last = gd_window_last(r->w);
	double dt;

	fprintf(out, "gpudoctor %s", GD_VERSION);
	if (last && last->host.hostname[0])
		fprintf(out, _(" · host %s"), last->host.hostname);
	if (last && last->host.kernel[0])
		fprintf(out, _(" · kernel %s"), last->host.kernel);
	if (last && last->cpu.cpus_online.ok)
		fprintf(out, _(" · %llu CPUs"), (unsigned long long)last->cpu.cpus_online.v);
	if (last && last->gpus.n) {
		const struct gd_gpu *g0 = last->gpus.items;
		bool same = true;

		GD_VEC_EACH(last->gpus, const struct gd_gpu, g)
			same = same && strcmp(g->name, g0->name) == 0;
		if (same && g0->name[0])
			fprintf(out, " · %zu× %s", last->gpus.n, g0->name);
		else
			fprintf(out, _(" · %zu GPUs"), last->gpus.n);
	}
	if (last && last->nvml.driver_version[0]) {
		fprintf(out, _(" · driver %s"), last->nvml.driver_version);
		if (last->nvml.cuda_driver_version.ok)
			fprintf(out, " (CUDA %llu.%llu)", (unsigned long long)last->nvml.cuda_driver_version.v / 1000,
				(unsigned long long)last->nvml.cuda_driver_version.v % 1000 / 10);
	}
	if (gd_window_dt(r->w, &dt))
		fprintf(out, _(" · window %.1f s"), dt);
	else if (gd_report_samples(r) < 2)
		fputs(_(" · one snapshot (no rates)"), out);
	else
		fprintf(out, _(" · %zu snapshots without advancing uptime (no rates)"), gd_report_samples(r));
	if (r->origin && strcmp(r->origin, "live") != 0)
		fprintf(out, _(" · from %s"), r->origin);
	fputs("\n\n", out);
}

/* Evidence captured elsewhere (check --from nvidia-smi -q, dmesg ...) lacks
 * what a snapshot holds: say what to capture to diagnose further. */
static void print_capture_hint(FILE *out, const struct gd_snapshot *s)
{
	static const struct {
		const char *prefix, *what;
	} kinds[] = { { "offline:nvidia-smi", "nvidia-smi -q" }, { "offline:kernel-log", "dmesg" },
		      { "offline:lspci", "lspci -vv" } };
	char desc[160], missing[96] = "";
	size_t used = 0;

	if (!gd_ofl_describe(s, desc, sizeof desc))
		return;
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		bool have = false;

		GD_VEC_EACH(s->sources, const struct gd_source, src)
			if (strncmp(src->name, kinds[k].prefix, strlen(kinds[k].prefix)) == 0 &&
			    strcmp(src->status, "failed") != 0)
				have = true;
		if (!have)
			used += (size_t)snprintf(missing + used, used < sizeof missing ? sizeof missing - used : 0, "%s%s",
						 used ? _(", ") : "", kinds[k].what);
	}
	if (!used && s->cpu.cpus_online.ok)
		return;
	if (used)
		fprintf(out, _("to diagnose further, capture: gpudoctor snapshot --window 2s -o node.jsonl (or %s)\n"),
			missing);
	else
		fputs(_("to diagnose further, capture: gpudoctor snapshot --window 2s -o node.jsonl\n"), out);
}

/* True when u[i] is the first rule with its reason (it heads the group). */
static bool reason_first(const struct gd_unknown *u, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (strcmp(u[j].reason, u[i].reason) == 0)
			return false;
	return true;
}

/* One item of the account's list, after the separator when it is not the first. */
static void item(FILE *out, const char **sep, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void item(FILE *out, const char **sep, const char *fmt, ...)
{
	va_list ap;

	fputs(*sep, out);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	/* TRANSLATORS: the separator of a list ("4 GPUs, 8 CPUs, 2 disks") */
	*sep = _(", ");
}

/* Ranked processes first, by rank; then the others by pid. */
static int by_rank(const void *a, const void *b)
{
	const struct gd_job_rank *x = *(const struct gd_job_rank *const *)a, *y = *(const struct gd_job_rank *const *)b;

	if (x->rank.ok != y->rank.ok)
		return x->rank.ok ? -1 : 1;
	if (x->rank.ok && x->rank.v != y->rank.v)
		return x->rank.v < y->rank.v ? -1 : 1;
	return x->pid.v < y->pid.v ? -1 : x->pid.v > y->pid.v;
}

/* A line per GPU job process that is a rank of a distributed job, or
 * whose identity could not be read (job_ranks[]); a process without rank
 * keys (a job on this node alone) or one that exited has none.  At most 8. */
static void print_job_ranks(FILE *out, const struct gd_snapshot *s)
{
	const struct gd_job_rank **show = NULL;
	size_t n = 0;
	char line[640];

	GD_VEC_EACH(s->job_ranks, const struct gd_job_rank, r) {
		if (!r->pid.ok || strcmp(r->status, "no_rank") == 0 || strcmp(r->status, "gone") == 0 ||
		    (strcmp(r->status, "ok") == 0 && !r->rank.ok))
			continue;
		show = gd_xreallocarray(show, n + 1, sizeof *show);
		show[n++] = r;
	}
	if (n)
		qsort(show, n, sizeof *show, by_rank);
	for (size_t i = 0; i < n; i++) {
		if (i == 8) {
			fputs("  ", out);
			fprintf(out, _("... and %zu more (--json lists them all)"), n - 8);
			fputc('\n', out);
			break;
		}
		/* TRANSLATORS: a GPU job process in its distributed job: "job rank 3/16 (local 3,
		 * node 0) · torchelastic:abc · gpu3 · pid 4242" */
		fprintf(out, _("job %s\n"), gd_job_rank_desc(show[i], line, sizeof line));
	}
	free(show);
}

static void print_account(FILE *out, const struct gd_report *r)
{
	const struct gd_snapshot *last = gd_window_last(r->w);
	struct gd_report_counts c;
	const char *sep = "";
	int n;

	if (last) {
		print_job_ranks(out, last);
		gd_report_counts(last, &c);
		fprintf(out, P_("checked: %zu of %zu rules over %zu snapshot · ", "checked: %zu of %zu rules over %zu snapshots · ",
				gd_report_samples(r)),
			r->findings->evaluated, gd_nrules, gd_report_samples(r));
		/* Only what the evidence covered: offline input (nvidia-smi -q, a
		 * kernel log) has no CPUs or disks to count. */
		if (last->gpus.n)
			item(out, &sep, P_("%zu GPU", "%zu GPUs", last->gpus.n), last->gpus.n);
		if (c.cpus)
			item(out, &sep, _("%llu CPUs"), (unsigned long long)c.cpus);
		if (last->disks.n)
			item(out, &sep, P_("%zu disk", "%zu disks", c.disks), c.disks);
		if (last->netifs.n)
			item(out, &sep, P_("%zu NIC", "%zu NICs", c.netifs), c.netifs);
		if (c.ib_ports)
			item(out, &sep, P_("%zu RDMA port", "%zu RDMA ports", c.ib_ports), c.ib_ports);
		if (c.procs)
			item(out, &sep, P_("%zu processes (%zu GPU job)", "%zu processes (%zu GPU jobs)", c.gpu_jobs), c.procs,
			     c.gpu_jobs);
		/* source names /dev/kmsg even when it could not be opened;
		 * lines is set only once the log was read */
		if (last->klog.n || last->klog_info.lines.ok)
			item(out, &sep, "%s", _("kernel log"));
		if (last->host.cgroup_mode[0])
			item(out, &sep, "cgroup %s", last->host.cgroup_mode);
		fputc('\n', out);
	}
	/* Rules that share a reason are listed together under it: one line
	 * when a single reason covers them all, else one indented line per
	 * reason, so that a long account (offline input: most rules lack their
	 * evidence) stays readable. */
	if (r->findings->unknown.n) {
		const struct gd_unknown *u = r->findings->unknown.items;
		size_t nu = r->findings->unknown.n, groups = 0;

		for (size_t i = 0; i < nu; i++)
			groups += reason_first(u, i);
		fprintf(out, P_("not evaluated (%zu rule):", "not evaluated (%zu rules):", nu), nu);
		for (size_t i = 0; i < nu; i++) {
			if (!reason_first(u, i))
				continue;
			fprintf(out, "%s%s", groups > 1 ? "\n  " : " ", u[i].id);
			for (size_t j = i + 1; j < nu; j++)
				if (strcmp(u[j].reason, u[i].reason) == 0)
					fprintf(out, ", %s", u[j].id);
			/* TRANSLATORS: a reason after what it is about: "io.checkpoint_stall (needs ...)" */
			fprintf(out, _(" (%s)"), u[i].reason);
		}
		fputc('\n', out);
	}
	/* Evidence that could not be read, the same way: one line, or one
	 * indented line per source when there are several. */
	n = 0;
	if (last) {
		GD_VEC_EACH(last->sources, const struct gd_source, s)
			n += strcmp(s->status, "ok") != 0;
	}
	if (n) {
		fprintf(out, P_("unavailable (%d source):", "unavailable (%d sources):", (unsigned long)n), n);
		GD_VEC_EACH(last->sources, const struct gd_source, s) {
			if (strcmp(s->status, "ok") != 0) {
				fputs(n > 1 ? "\n  " : " ", out);
				/* TRANSLATORS: a source that could not be read: its name, state and why */
				fprintf(out, _("%s (%s: %s)"), s->name, gd_src_status_label(s->status), s->reason);
			}
		}
		fputc('\n', out);
	}
	/* Values the GPU's tools tried and failed to read (NVML errors,
	 * nvidia-smi's ERR! cells): what each was and why. */
	if (last && last->nvml_errors.n) {
		size_t k = 0;

		fprintf(out, P_("could not read (%zu value):", "could not read (%zu values):", last->nvml_errors.n),
			last->nvml_errors.n);
		GD_VEC_EACH(last->nvml_errors, const struct gd_nvml_error, e) {
			if (k++ == 8) {
				fputs("\n  ", out);
				fprintf(out, _("... and %zu more (--json lists them all)"), last->nvml_errors.n - 8);
				break;
			}
			if (e->gpu.ok)
				fprintf(out, "\n  gpu%llu %s (%s: %s)", (unsigned long long)e->gpu.v, e->field, e->status, e->reason);
			else
				fprintf(out, "\n  %s (%s: %s)", e->field, e->status, e->reason);
		}
		fputc('\n', out);
	}
	if (last)
		print_capture_hint(out, last);
}

/* The GPU index of a subject "gpuN ..." (a rule's GPU subject), or -1. */
static int gpu_of_subject(const char *subject)
{
	return gd_subject_gpu(subject);
}

/* How many findings from f on are the same rule and severity on single GPUs,
 * so that the report shows one block for "gpu0-7" instead of eight. */
static size_t gpu_group_len(const struct gd_finding *f, size_t left)
{
	size_t n = 1;

	if (gpu_of_subject(f[0].subject) < 0)
		return 1;
	while (n < left && strcmp(f[n].id, f[0].id) == 0 && f[n].severity == f[0].severity &&
	       gpu_of_subject(f[n].subject) >= 0)
		n++;
	return n;
}

/* "explained by <id> ↓/↑" when the finding names another finding of this
 * report as its explanation (evidence explained_by, e.g. gpu.idle_while_job_runs). */
static void print_link(FILE *out, const struct gd_findings *all, const struct gd_finding *f)
{
	const struct gd_finding *items = all->items.items;

	for (size_t i = 0; i < f->nev; i++) {
		if (strcmp(f->ev[i].name, "explained_by") != 0)
			continue;
		for (size_t k = 0; k < all->items.n; k++) {
			size_t n = strlen(items[k].id);

			if (&items[k] != f && strncmp(f->ev[i].text, items[k].id, n) == 0 &&
			    (f->ev[i].text[n] == '\0' || f->ev[i].text[n] == ' ' || f->ev[i].text[n] == ',')) {
				fputs("          ", out);
				/* TRANSLATORS: the rule id of the finding that explains this one, and an arrow to it */
				fprintf(out, _("explained by %s %s"), items[k].id, &items[k] > f ? "↓" : "↑");
				fputc('\n', out);
				return;
			}
		}
	}
}

static void text_report(FILE *out, const struct gd_report *r)
{
	size_t count[4] = { 0 };
	char sev[64];
	int exit_code = gd_report_exit_code(r->findings);
	const struct gd_finding *items = r->findings->items.items;
	size_t nitems = r->findings->items.n;

	print_header(out, r);
	for (size_t i = 0; i < nitems;) {
		const struct gd_finding *f = &items[i];
		size_t n = gpu_group_len(f, nitems - i);
		char subject[160], gpus[64], val[64];
		uint64_t mask = 0;

		/* the severity column is 9 columns wide, whatever the language */
		gd_pad(sev, sizeof sev, gd_sev_label(f->severity), 9);
		count[f->severity] += n;
		snprintf(subject, sizeof subject, "%s", f->subject);
		if (n > 1) {
			for (size_t k = 0; k < n; k++)
				mask |= 1ull << gpu_of_subject(f[k].subject);
			/* TRANSLATORS: a group of GPUs with the same finding: "gpu0-7 (8 GPUs)" */
			snprintf(subject, sizeof subject, _("%s (%zu GPUs)"), gd_ep_gpus_str(mask, gpus, sizeof gpus), n);
		}
		if (r->color)
			fprintf(out, "%s%s\033[0m %-30s %s\n", sev_color(f->severity), sev, f->id, subject);
		else
			fprintf(out, "%s %-30s %s\n", sev, f->id, subject);
		fprintf(out, "          %s\n", f->summary);
		print_evidence(out, f);
		if (n > 1 && f->nev && f->ev[0].value.ok) {
			/* the first evidence of every GPU of the group, side by side */
			pretty_name(val, sizeof val, f->ev[0].name);
			fprintf(out, "          %s:", val);
			for (size_t k = 0; k < n; k++)
				if (f[k].nev && f[k].ev[0].value.ok)
					fprintf(out, "%s gpu%d %s", k ? " ·" : "", gpu_of_subject(f[k].subject),
						gd_fmt_value(val, sizeof val, f[k].ev[0].value.v, f[k].ev[0].unit));
			fputc('\n', out);
		}
		print_link(out, r->findings, f);
		fprintf(out, "          → %s\n\n", f->remedy);
		i += n;
	}
	if (!nitems) {
		fputs(_("No stall cause found among the rules that could be evaluated."), out);
		fputs("\n\n", out);
	}
	print_account(out, r);
	fprintf(out, GD_VERDICT_FMT(count[GD_SEV_WARNING]), count[GD_SEV_CRITICAL], count[GD_SEV_WARNING],
		count[GD_SEV_INFO], exit_code);
	fputc('\n', out);
}

static void text_fn(FILE *out, const void *r)
{
	text_report(out, r);
}

void gd_out_text(FILE *out, const struct gd_report *r)
{
	/* Chinese is laid out for 80 columns: written whole, then wrapped */
	gd_text_out(out, text_fn, r);
}
