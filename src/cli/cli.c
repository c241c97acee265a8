/*
 * cli.c - the command line: `gpudoctor [COMMAND] [OPTIONS]`.
 *
 * The only layer that talks to the user directly: it parses options, builds
 * the root and the thresholds, runs collectors, rules and outputs in order,
 * and turns the result into the exit code (0 healthy, 1 warnings,
 * 2 critical, 3 could not run).  Nothing below it prints to stdout or exits.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collect/collect.h"
#include "collect/klog.h"
#include "core/duration.h"
#include "core/i18n.h"
#include "core/outfile.h"
#include "model/recording.h"
#include "model/snapshot_json.h"
#include "collect/job_samples.h"
#include "nvml/nvml.h"
#include "offline/offline.h"
#include "output/output.h"
#include "rules/rule.h"
#include "cli/timeline.h"
#include "serve/serve.h"

#define EXIT_CANNOT_RUN 3
#define MAX_FROM 64

struct opts {
	const char *command;
	const char *root;
	const char *config;
	const char *output;
	const char *nvml_path;
	double nvml_timeout_s;
	const char *listen;
	const char *probe_results;
	const char *user;              /* serve: --user */
	double page_window_s;          /* serve --page-window; 0: the default */
	bool no_page;                  /* serve --no-page */
	const char *from[MAX_FROM];
	size_t nfrom;
	double window_s;
	double lookback_s;
	bool window_given;
	bool json;
	bool text;
	bool no_color;
	double interval_s;
	bool interval_given;
	double duration_s;
	bool duration_given;
	double max_bytes, max_age_s;   /* record: rotation */
	unsigned full_every;           /* record: --full-every (0: the default) */
	struct gd_thresholds th;
};

enum { OPT_ROOT = 256, OPT_CONFIG, OPT_SET, OPT_NO_COLOR, OPT_VERSION, OPT_NVML, OPT_NVML_TIMEOUT, OPT_LOOKBACK, OPT_LISTEN,
       OPT_MAX_SIZE, OPT_MAX_AGE, OPT_FULL_EVERY, OPT_PROBE_RESULTS, OPT_PAGE_WINDOW, OPT_NO_PAGE,
       OPT_USER };

#define IS(cmd, name) (strcmp((cmd), (name)) == 0)

static const struct option long_opts[] = {
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "set", required_argument, NULL, OPT_SET },
	{ "no-color", no_argument, NULL, OPT_NO_COLOR },
	{ "no-colour", no_argument, NULL, OPT_NO_COLOR },
	{ "window", required_argument, NULL, 'w' },
	{ "json", no_argument, NULL, 'j' },
	{ "from", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "interval", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, 'd' },
	{ "text", no_argument, NULL, 't' },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "probe-results", required_argument, NULL, OPT_PROBE_RESULTS },
	{ "user", required_argument, NULL, OPT_USER },
	{ "page-window", required_argument, NULL, OPT_PAGE_WINDOW },
	{ "no-page", no_argument, NULL, OPT_NO_PAGE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "nvml", required_argument, NULL, OPT_NVML },
	{ "nvml-timeout", required_argument, NULL, OPT_NVML_TIMEOUT },
	{ "lookback", required_argument, NULL, OPT_LOOKBACK },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "max-age", required_argument, NULL, OPT_MAX_AGE },
	{ "full-every", required_argument, NULL, OPT_FULL_EVERY },
	{ NULL, 0, NULL, 0 },
};

/* Options that only some commands take are rejected elsewhere, by name. */
static bool allowed(const char *cmd, int opt)
{
	switch (opt) {
	case 'j':
		return IS(cmd, "check") || IS(cmd, "report");
	case 'f':
		return IS(cmd, "check");
	case 'o':
		return IS(cmd, "snapshot") || IS(cmd, "record") || IS(cmd, "report");
	case 'i':
		return IS(cmd, "watch") || IS(cmd, "record") || IS(cmd, "serve");
	case 'd':
		return IS(cmd, "watch") || IS(cmd, "record");
	case OPT_MAX_SIZE:
	case OPT_MAX_AGE:
	case OPT_FULL_EVERY:
		return IS(cmd, "record");
	case 't':
		return IS(cmd, "report");
	case 'w':
		return IS(cmd, "check") || IS(cmd, "snapshot") || IS(cmd, "serve");
	case OPT_LOOKBACK:
		return IS(cmd, "check") || IS(cmd, "snapshot") || IS(cmd, "watch") || IS(cmd, "record") || IS(cmd, "serve");
	case OPT_LISTEN:
	case OPT_PROBE_RESULTS:
	case OPT_USER:
	case OPT_PAGE_WINDOW:
	case OPT_NO_PAGE:
		return IS(cmd, "serve");
	default:
		return true;
	}
}

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct opts *o, const char ***sets, size_t *nsets)
{
	int c;
	struct gd_err err;

	o->command = "check";
	if (argc > 1 && argv[1][0] != '-') {
		o->command = argv[1];
		argv++;
		argc--;
	}
	if (strcmp(o->command, "help") == 0) {
		if (gd_cli_help(stdout, argc > 1 ? argv[1] : NULL) < 0)
			return gd_cli_fail(_("help: unknown command \"%s\""), argv[1]);
		return 0;
	}
	if (strcmp(o->command, "version") == 0)
		return gd_cli_version(stdout, getenv("GPUDOCTOR_NVML"));
	if (!gd_cli_command(o->command))
		return gd_cli_fail(_("unknown command \"%s\" (commands: check, snapshot, watch, record, report, serve, xid, fleet, probe, rules, "
			    "fields, config, help, version)"), o->command);
	o->window_s = 2.0;
	o->interval_s = IS(o->command, "watch") ? 0.5 : 1.0;
	o->duration_s = IS(o->command, "record") ? 600 : 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":w:jf:o:hi:d:t", long_opts, NULL)) != -1) {
		if (c != '?' && c != ':' && !allowed(o->command, c))
			return gd_cli_fail(_("%s: option %s does not apply to this command (see gpudoctor help)"), o->command,
				    argv[optind - 1]);
		gd_err_clear(&err);
		switch (c) {
		case OPT_ROOT:
			o->root = optarg;
			break;
		case OPT_CONFIG:
			o->config = optarg;
			break;
		case OPT_SET:
			(*sets)[(*nsets)++] = optarg;
			break;
		case OPT_NO_COLOR:
			o->no_color = true;
			break;
		case OPT_NVML:
			o->nvml_path = optarg;
			break;
		case OPT_NVML_TIMEOUT:
			if (gd_duration_parse(optarg, &o->nvml_timeout_s, &err) < 0)
				return gd_cli_fail("--nvml-timeout: %s", err.msg);
			if (o->nvml_timeout_s <= 0 || o->nvml_timeout_s > 600)
				return gd_cli_fail(_("--nvml-timeout %s: between 1ms and 10m"), optarg);
			break;
		case 'w':
			if (gd_duration_parse(optarg, &o->window_s, &err) < 0)
				return gd_cli_fail("--window: %s", err.msg);
			if (o->window_s > 3600)
				return gd_cli_fail(_("--window %s: at most 1h"), optarg);
			/* /proc/stat and /proc/<pid>/stat count 10 ms ticks: over a
			 * few ticks one busy tick reads as 100% */
			if (o->window_s < 0.1)
				return gd_cli_fail(_("--window %s: at least 100ms (CPU counters tick every 10 ms; a shorter "
					    "window gives noise, not rates)"), optarg);
			o->window_given = true;
			break;
		case OPT_LOOKBACK:
			if (gd_duration_parse(optarg, &o->lookback_s, &err) < 0)
				return gd_cli_fail("--lookback: %s", err.msg);
			if (o->lookback_s <= 0)
				return gd_cli_fail(_("--lookback %s: must be more than 0"), optarg);
			break;
		case OPT_LISTEN:
			o->listen = optarg;
			break;
		case OPT_PROBE_RESULTS:
			o->probe_results = optarg;
			break;
		case OPT_USER:
			o->user = optarg;
			break;
		case OPT_PAGE_WINDOW:
			if (gd_duration_parse(optarg, &o->page_window_s, &err) < 0)
				return gd_cli_fail("--page-window: %s", err.msg);
			if (o->page_window_s < 10 || o->page_window_s > 86400)
				return gd_cli_fail(_("--page-window %s: between 10s and 1d"), optarg);
			break;
		case OPT_NO_PAGE:
			o->no_page = true;
			break;
		case 'i':
			if (gd_duration_parse(optarg, &o->interval_s, &err) < 0)
				return gd_cli_fail("--interval: %s", err.msg);
			if (o->interval_s < 0.05 || o->interval_s > 3600)
				return gd_cli_fail(_("--interval %s: between 50ms and 1h"), optarg);
			break;
		case 'd':
			if (gd_duration_parse(optarg, &o->duration_s, &err) < 0)
				return gd_cli_fail("--duration: %s", err.msg);
			break;
		case OPT_MAX_SIZE:
			if (gd_rec_parse_size(optarg, &o->max_bytes, &err) < 0)
				return gd_cli_fail("--max-size: %s", err.msg);
			break;
		case OPT_MAX_AGE:
			if (gd_duration_parse(optarg, &o->max_age_s, &err) < 0 || o->max_age_s <= 0)
				return gd_cli_fail("--max-age: %s", err.msg[0] ? err.msg : _("must be more than 0"));
			break;
		case OPT_FULL_EVERY: {
			char *end;
			unsigned long n;

			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (optarg[0] < '0' || optarg[0] > '9' || *end || errno || n < 1 || n > 1000000)
				return gd_cli_fail(_("--full-every %s: a count of snapshots from 1 to 1000000"), optarg);
			o->full_every = (unsigned)n;
			break;
		}
		case 't':
			o->text = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'f':
			if (o->nfrom >= MAX_FROM)
				return gd_cli_fail(_("--from: at most %d files"), MAX_FROM);
			o->from[o->nfrom++] = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'h':
			gd_cli_help(stdout, o->command);
			return 0;
		case OPT_VERSION:
			return gd_cli_version(stdout, o->nvml_path ? o->nvml_path : getenv("GPUDOCTOR_NVML"));
		case ':':
			return gd_cli_fail(_("option %s needs a value (see gpudoctor help %s)"), argv[optind - 1], o->command);
		default:
			return gd_cli_fail(_("unknown option %s (see gpudoctor help %s)"), argv[optind - 1], o->command);
		}
	}
	if (IS(o->command, "report")) {
		while (optind < argc && o->nfrom < MAX_FROM)
			o->from[o->nfrom++] = argv[optind++];
		if (o->text && o->json)
			return gd_cli_fail(_("report: --text and --json exclude each other"));
	}
	/* check --from rank0.log rank1.log ...: the words after --from are files too */
	if (IS(o->command, "check") && o->nfrom) {
		while (optind < argc && o->nfrom < MAX_FROM)
			o->from[o->nfrom++] = argv[optind++];
		if (optind < argc)
			return gd_cli_fail(_("--from: at most %d files"), MAX_FROM);
	}
	if (IS(o->command, "serve") && o->interval_s < 0.1)
		return gd_cli_fail(_("serve: --interval must be at least 100ms"));
	if (strcmp(o->command, "serve") == 0 && o->window_given && o->window_s < o->interval_s)
		return gd_cli_fail(_("serve: --window must be at least --interval"));
	if (optind < argc)
		return gd_cli_fail(_("unexpected argument \"%s\" (see gpudoctor help %s)"), argv[optind], o->command);
	return -1;
}

static int load_thresholds(struct opts *o, const char **sets, size_t nsets)
{
	struct gd_err err;

	gd_err_clear(&err);
	gd_thresholds_init(&o->th);
	if (gd_thresholds_load(&o->th, o->config ? o->config : GD_DEFAULT_CONFIG, !o->config, &err) < 0)
		return gd_cli_fail("%s", err.msg);
	for (size_t i = 0; i < nsets; i++) {
		char name[128];
		const char *eq = strchr(sets[i], '=');

		if (!eq || (size_t)(eq - sets[i]) >= sizeof name)
			return gd_cli_fail(_("--set %s: expected RULE.KEY=VALUE, e.g. cpu.saturated.busy_pct=95"), sets[i]);
		memcpy(name, sets[i], (size_t)(eq - sets[i]));
		name[eq - sets[i]] = '\0';
		if (gd_thresholds_set(&o->th, name, eq + 1, &err) < 0)
			return gd_cli_fail("%s", err.msg);
	}
	return -1;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int open_root(const struct opts *o, struct gd_root *root)
{
	struct gd_err err;

	gd_err_clear(&err);
	if (gd_root_open(root, o->root ? o->root : "/", &err) < 0)
		return gd_cli_fail("%s", err.msg);
	return -1;
}

/* The collectors' context; NVML is opened once for every snapshot of the
 * run (one nvmlInit per process), and closed by ctx_close. */
static void ctx_open(const struct opts *o, const struct gd_root *root, struct gd_collect_ctx *ctx)
{
	memset(ctx, 0, sizeof *ctx);
	ctx->root = root;
	ctx->nvml_path = o->nvml_path ? o->nvml_path : getenv("GPUDOCTOR_NVML");
	ctx->nvml_timeout_s = o->nvml_timeout_s;
	ctx->klog_lookback_s = o->lookback_s;
	ctx->nvml = gd_nvml_open(ctx->nvml_path, ctx->nvml_timeout_s);
	/* GPU jobs' threads are sampled from one snapshot to the next (live only) */
	ctx->sampler = root->is_host ? gd_job_sampler_new() : NULL;
	ctx->proc_cache = gd_proc_cache_new();
}

static void ctx_close(struct gd_collect_ctx *ctx)
{
	gd_nvml_close(ctx->nvml);
	ctx->nvml = NULL;
	gd_job_sampler_free(ctx->sampler);
	ctx->sampler = NULL;
	gd_proc_cache_free(ctx->proc_cache);
	ctx->proc_cache = NULL;
}

static int cmd_snapshot(const struct opts *o)
{
	struct gd_root root;
	struct gd_collect_ctx ctx;
	FILE *out = stdout;
	int rc = -1, n = o->window_given ? 2 : 1;

	if ((rc = open_root(o, &root)) >= 0)
		return rc;
	if (o->output && !(out = gd_outfile_fopen(o->output, true))) {
		rc = gd_cli_fail("%s: %s", o->output, gd_outfile_strerror(errno));
		goto release_root;
	}
	ctx_open(o, &root, &ctx);
	for (int i = 0; i < n; i++) {
		struct gd_snapshot s;

		if (i)
			sleep_s(o->window_s);
		gd_snapshot_init(&s);
		gd_collect_all(&ctx, &s);
		if (gd_snapshot_write_line(&s, out) < 0 || fflush(out) == EOF)
			rc = gd_cli_fail(_("writing the snapshot: %s"), strerror(errno));
		gd_snapshot_release(&s);
		if (rc >= 0)
			break;
	}
	ctx_close(&ctx);
	if (out != stdout && fclose(out) == EOF && rc < 0)
		rc = gd_cli_fail("%s: %s", o->output, strerror(errno));
release_root:
	gd_root_release(&root);
	return rc < 0 ? 0 : rc;
}

/* Sorts a loaded series by uptime (files may come in any order). */
static int by_uptime(const void *a, const void *b)
{
	const struct gd_snapshot *x = a, *y = b;
	double u = x->host.uptime_s.ok ? x->host.uptime_s.v : 0, v = y->host.uptime_s.ok ? y->host.uptime_s.v : 0;

	return (u > v) - (u < v);
}

static int diagnose(const struct opts *o, struct gd_series *ser, const char *origin)
{
	const struct gd_snapshot **snaps = calloc(ser->n, sizeof *snaps);
	struct gd_window w = { NULL, ser->n };
	struct gd_findings f;
	struct gd_report r = { 0 };
	int code;

	if (!snaps)
		return gd_cli_fail(_("out of memory"));
	for (size_t i = 0; i < ser->n; i++)
		snaps[i] = &ser->items[i];
	w.snaps = snaps;
	gd_findings_init(&f);
	gd_engine_run(&w, &o->th, &f);
	r.w = &w;
	r.findings = &f;
	r.origin = origin;
	r.color = !o->no_color && !getenv("NO_COLOR") && isatty(STDOUT_FILENO);
	code = gd_report_exit_code(&f);
	if (o->json) {
		json_t *doc = gd_out_json(&r);

		json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_ENSURE_ASCII);
		fputc('\n', stdout);
		json_decref(doc);
	} else {
		gd_out_text(stdout, &r);
	}
	if (fflush(stdout) == EOF)
		code = gd_cli_fail(_("writing the report: %s"), strerror(errno));
	gd_findings_release(&f);
	free(snaps);
	return code;
}

/* `check --json` when no input gave evidence: still a document, with no
 * findings, each input's reason in unavailable[] and exit 3. */
static void print_no_evidence_json(const char *origin, const struct gd_source *bad, size_t nbad)
{
	json_t *doc = json_object(), *arr = json_array();

	json_object_set_new(doc, "tool", json_string("gpudoctor"));
	json_object_set_new(doc, "version", json_string(GD_VERSION));
	json_object_set_new(doc, "host", json_object());
	json_object_set_new(doc, "window_s", json_null());
	json_object_set_new(doc, "snapshots", json_integer(0));
	json_object_set_new(doc, "origin", gd_json_str(origin));
	json_object_set_new(doc, "findings", json_array());
	for (size_t i = 0; i < nbad; i++) {
		json_t *u = json_object();

		json_object_set_new(u, "evidence", gd_json_str(bad[i].name));
		json_object_set_new(u, "source", gd_json_str(bad[i].path));
		json_object_set_new(u, "status", gd_json_str(bad[i].status));
		json_object_set_new(u, "reason", gd_json_str(bad[i].reason));
		json_array_append_new(arr, u);
	}
	json_object_set_new(doc, "unavailable", arr);
	json_object_set_new(doc, "not_evaluated", json_array());
	json_object_set_new(doc, "exit", json_integer(EXIT_CANNOT_RUN));
	json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	fputc('\n', stdout);
	fflush(stdout);
	json_decref(doc);
}

static int cmd_check(const struct opts *o)
{
	struct gd_series ser;
	struct gd_err err;
	int rc = -1;
	char origin[512] = "";

	gd_series_init(&ser);
	gd_err_clear(&err);
	if (o->nfrom) {
		/* each file's kind comes from its content (src/offline): snapshot
		 * lines go to ser as they are; nvidia-smi, kernel logs, lspci and
		 * bug reports become offline snapshots appended after them */
		struct gd_ofl ofl;
		struct gd_source bad[MAX_FROM];
		size_t failed = 0, nbad = 0;

		gd_ofl_init(&ofl, o->lookback_s);
		for (size_t i = 0; i < o->nfrom; i++) {
			size_t before = ser.n;
			int r = gd_ofl_load_file(&ofl, &ser, o->from[i], &err);

			if (r < 0) {
				fprintf(stderr, "gpudoctor: %s\n", err.msg);
				failed++;
			} else if (r > 0) {
				fprintf(stderr, _("gpudoctor: %s (what could be read is diagnosed)\n"), err.msg);
			}
			/* The report says it too (unavailable[]), not only stderr:
			 * a file read in part, or not at all. */
			if (r != 0) {
				memset(&bad[nbad], 0, sizeof bad[nbad]);
				GD_STRSET(bad[nbad].name, "input");
				GD_STRSET(bad[nbad].path, o->from[i]);
				GD_STRSET(bad[nbad].status, r > 0 || ser.n > before ? "partial" : "failed");
				GD_STRSET(bad[nbad].reason, err.msg);
				nbad++;
			}
			gd_err_clear(&err);
			snprintf(origin + strlen(origin), sizeof origin - strlen(origin), "%s%s", i ? ", " : "",
				 o->from[i]);
		}
		if (ser.note[0])
			fprintf(stderr, _("gpudoctor: note: %s\n"), ser.note);
		if (ser.n)
			qsort(ser.items, ser.n, sizeof *ser.items, by_uptime);
		if (failed < o->nfrom)
			gd_ofl_finish(&ofl, &ser);
		gd_ofl_release(&ofl);
		if (!ser.n) {
			if (o->json)
				print_no_evidence_json(origin, bad, nbad);
			rc = gd_cli_fail(_("%s: no evidence could be read"), origin);
			goto out;
		}
		for (size_t i = 0; i < nbad; i++)
			*GD_PUSH(&ser.items[ser.n - 1], sources, struct gd_source) = bad[i];
		rc = diagnose(o, &ser, origin);
	} else {
		struct gd_root root;
		struct gd_collect_ctx ctx;

		if ((rc = open_root(o, &root)) >= 0)
			goto out;
		/* a --root without proc/ (a typo, the wrong mount) would read
		 * nothing and report a healthy host */
		if (!gd_root_exists(&root, "proc")) {
			rc = gd_cli_fail(_("--root %s: no proc/ under it: point --root at the host's / (e.g. /host)"),
				  root.path);
			gd_root_release(&root);
			goto out;
		}
		ctx_open(o, &root, &ctx);
		gd_collect_all(&ctx, gd_series_push(&ser));
		sleep_s(o->window_s);
		gd_collect_all(&ctx, gd_series_push(&ser));
		ctx_close(&ctx);
		gd_root_release(&root);
		rc = diagnose(o, &ser, "live");
	}
out:
	gd_series_release(&ser);
	return rc;
}

static int cmd_serve(const struct opts *o)
{
	struct gd_serve_opts so = { o->listen, o->root, o->interval_s, o->window_s, &o->th,
				    o->nvml_path ? o->nvml_path : getenv("GPUDOCTOR_NVML"), o->nvml_timeout_s,
				    o->lookback_s, o->probe_results, o->user, o->page_window_s, o->no_page };
	struct gd_err err;

	if (!o->window_given && so.window_s < so.interval_s)
		so.window_s = 2 * so.interval_s;
	gd_err_clear(&err);
	if (gd_serve_run(&so, &err) < 0)
		return gd_cli_fail("%s", err.msg);
	return 0;
}

static int cmd_rules(const struct opts *o)
{
	for (size_t i = 0; i < gd_nrules; i++) {
		const struct gd_rule *r = &gd_rules[i];

		printf("%-26s %-8s %s\n", r->id, gd_severity_name(r->severity), _(r->title));
		for (size_t t = 0; t < GD_TH_COUNT; t++)
			if (strcmp(gd_th_table[t].rule, r->id) == 0)
				printf("    --set %s.%s=%g   (%s; %s)\n", r->id, gd_th_table[t].key, o->th.v[t],
				       gd_th_table[t].unit, _(gd_th_table[t].help));
	}
	printf("%-26s %-8s %s\n", "episodes", "-", _("Stall episodes over a series (watch, report, serve): not a rule."));
	for (size_t t = 0; t < GD_TH_COUNT; t++)
		if (strcmp(gd_th_table[t].rule, "episodes") == 0)
			printf("    --set episodes.%s=%g   (%s; %s)\n", gd_th_table[t].key, o->th.v[t], gd_th_table[t].unit,
			       _(gd_th_table[t].help));
	return 0;
}

static int cmd_fields(void)
{
	static const char *const kinds[] = { "gauge", "counter", "label" };
	static const char *const types[] = { "integer", "number", "string" };

	puts("# Snapshot fields\n");
	puts("Generated by `gpudoctor fields` from the field tables in `src/model/snapshot.h`.");
	puts("Absent values are `null` in JSON, never 0.");
	puts("Counters count since boot; rules use their rates over a window.");
	for (size_t i = 0; i < gd_nsections; i++) {
		const struct gd_record_desc *d = &gd_sections[i];

		printf("\n## `%s`%s\n\n", d->name, d->is_array ? " (array)" : "");
		puts("| field | type | unit | kind | meaning |");
		puts("|---|---|---|---|---|");
		for (size_t j = 0; j < d->nfields; j++) {
			const struct gd_field *f = &d->fields[j];

			printf("| %s | %s | %s | %s | %s |\n", f->name, types[f->type], f->unit[0] ? f->unit : "",
			       kinds[f->kind], f->help);
		}
	}
	return 0;
}

/* watch, record, report: timeline.c, with the options they take. */
static int cmd_timeline(const struct opts *o)
{
	struct gd_run_opts r;

	memset(&r, 0, sizeof r);
	r.root = o->root;
	r.nvml_path = o->nvml_path ? o->nvml_path : getenv("GPUDOCTOR_NVML");
	r.nvml_timeout_s = o->nvml_timeout_s;
	r.lookback_s = o->lookback_s;
	r.th = &o->th;
	r.interval_s = o->interval_s;
	r.duration_s = o->duration_s;
	r.max_bytes = o->max_bytes;
	r.max_age_s = o->max_age_s;
	r.full_every = o->full_every;
	r.output = o->output;
	r.json = o->json;
	r.text = o->text;
	r.color = !o->no_color && !getenv("NO_COLOR") && isatty(STDOUT_FILENO);
	r.inputs = o->from;
	r.ninputs = o->nfrom;
	if (IS(o->command, "watch"))
		return gd_cmd_watch(&r);
	if (IS(o->command, "record"))
		return gd_cmd_record(&r);
	return gd_cmd_report(&r);
}

int gd_cli_main(int argc, char **argv)
{
	struct opts o;
	const char **sets = calloc((size_t)argc + 1, sizeof *sets);
	size_t nsets = 0;
	int rc;

	if (!sets)
		return EXIT_CANNOT_RUN;
	argc = gd_cli_lang(argc, argv);
	if (argc < 0) {
		free(sets);
		return EXIT_CANNOT_RUN;
	}
	if (argc > 1 && strcmp(argv[1], "xid") == 0) {
		free(sets);
		return gd_cli_xid(argc - 1, argv + 1);
	}
	if (argc > 1 && strcmp(argv[1], "fleet") == 0) {
		free(sets);
		return gd_cli_fleet(argc - 1, argv + 1);
	}
	for (int i = 2; argc > 2 && strcmp(argv[1], "check") == 0 && i < argc; i++)
		if (strcmp(argv[i], "--npd") == 0 || strncmp(argv[i], "--npd=", 6) == 0) {
			free(sets);
			return gd_cli_npd(argc - 1, argv + 1);
		}
	if (argc > 1 && strcmp(argv[1], "probe") == 0) {
		free(sets);
		return gd_cli_probe(argc - 1, argv + 1);
	}
	memset(&o, 0, sizeof o);
	rc = parse_args(argc, argv, &o, &sets, &nsets);
	if (rc < 0)
		rc = load_thresholds(&o, sets, nsets);
	free(sets);
	if (rc >= 0)
		return rc;
	if (strcmp(o.command, "snapshot") == 0)
		return cmd_snapshot(&o);
	if (strcmp(o.command, "rules") == 0)
		return cmd_rules(&o);
	if (strcmp(o.command, "fields") == 0)
		return cmd_fields();
	if (IS(o.command, "config")) {
		gd_out_config(stdout, &o.th);
		return fflush(stdout) == EOF ? gd_cli_fail(_("writing the configuration: %s"), strerror(errno)) : 0;
	}
	if (IS(o.command, "watch") || IS(o.command, "record") || IS(o.command, "report"))
		return cmd_timeline(&o);
	if (strcmp(o.command, "serve") == 0)
		return cmd_serve(&o);
	return cmd_check(&o);
}
