/*
 * cli_fleet.c - `gpudoctor fleet --prometheus URL`: the options, the files
 * that hold secrets (read here, never taken from argv), libcurl loaded for
 * this command only, and the output (src/fleet/).
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/duration.h"
#include "core/i18n.h"
#include "core/outfile.h"
#include "core/printable.h"
#include "core/xalloc.h"
#include "fleet/fleet.h"
#include "fleet/job.h"
#include "rules/thresholds.h"

#define EXIT_CANNOT_RUN 3
#define SECRET_MAX 8192

/* Marked whole for the catalogue; printed as _(gd_usage_fleet). */
const char gd_usage_fleet[] = N_(
	"Usage: gpudoctor fleet --prometheus URL [OPTIONS]\n"
	"       gpudoctor fleet FILE... [--json] [--html FILE]\n"
	"       gpudoctor fleet --job ID (--prometheus URL | FILE...) [OPTIONS]\n"
	"The fleet's stall causes from what every node's `gpudoctor serve` told\n"
	"Prometheus (or Thanos, VictoriaMetrics, Mimir): a cause table (category, rule,\n"
	"onsets, GPUs and nodes affected, GPU-hours, share), outlier GPUs per model,\n"
	"nodes to drain now, repeat offenders, and what it could not see.\n"
	"\n"
	"  --prometheus URL       the API's base: http://prom:9090,\n"
	"                         http://mimir/prometheus\n"
	"  --range DUR            how far back from --at (default 7d; s, m, h, d, w)\n"
	"  --at TIME              the end: Unix seconds or 2026-12-01T14:00:00Z\n"
	"                         (default now)\n"
	"  --match LABEL=VALUE    only series with this label (repeatable): cluster=a,\n"
	"                         job=gpu; also LABEL!=V, LABEL=~RE, LABEL!~RE\n"
	"  --step DUR             resolution of the few subqueries (default range/10000,\n"
	"                         at least 15s)\n"
	"  --limit N              series per answer; more is an error (default 20000)\n"
	"  --timeout DUR          per query, sent to the server too (default 60s)\n"
	"  --repeat N             onsets of hardware findings that make a repeat offender\n"
	"                         (default 2)\n"
	"  --mad-k K              outliers: deviation beyond K robust MADs (default 3.5)\n"
	"  --min-siblings N       outliers: GPUs of a model needed to judge (default 4)\n"
	"  -j, --json             the tables as one JSON document\n"
	"  --html FILE            also write them as a self-contained HTML page\n"
	"  --stats                ask the server how many samples each query read\n"
	"  --bearer-token-file F  Authorization: Bearer <the file's first line>\n"
	"  --basic-auth USER      basic authentication, with --password-file F\n"
	"  --header 'K: V'        an extra header (repeatable): 'X-Scope-OrgID: team'\n"
	"  --ca-file F            trust these CAs for https\n"
	"  --insecure             do not verify the server's certificate\n"
	"  --lang LANG            messages in zh_CN or en, as for every command\n"
	"\n"
	"  --job ID               one multi-node job (its id as gpudoctor_job_rank_info\n"
	"                         gives it: slurm:123.0, torchelastic:RUN, master:H:P):\n"
	"                         which rank holds the others back, from every rank's\n"
	"                         series over --range (default 10m): job.slow_rank,\n"
	"                         job.rank_stuck, no rank stands out, ranks unseen.\n"
	"                         Exit 0 none, 1 a warning, 2 a rank stuck, 3 could not\n"
	"                         run or judge (an unknown id lists the ids seen)\n"
	"  FILE...                snapshot JSONL files, one per node (gpudoctor record -o\n"
	"                         $(hostname).jsonl), read one snapshot at a time: the\n"
	"                         same tables, for sites without Prometheus\n"
	"\n"
	"HTTP goes through libcurl (libcurl.so.4 or GPUDOCTOR_LIBCURL), loaded only here.\n"
	"Exit status: 0 the tables were made, 3 could not run (a query failed: the\n"
	"message says which and why).\n");

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;
	int n;

	fputs("gpudoctor fleet: ", stderr);
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	/* the server's error strings are in it: made printable (core/printable.h) */
	if (n >= 0)
		gd_printable_fputs(msg, stderr);
	free(msg);
	fputc('\n', stderr);
	return EXIT_CANNOT_RUN;
}

/* Durations with days and weeks, which range needs (7d, 30d, 2w). */
static int long_duration(const char *s, double *out, struct gd_err *err)
{
	size_t n = strlen(s);
	char *end;

	if (n > 1 && (s[n - 1] == 'd' || s[n - 1] == 'w')) {
		double v = strtod(s, &end);

		if (end != s + n - 1 || !isfinite(v) || v <= 0)
			return gd_err_set(err, -EINVAL, _("%s: expected a duration such as 7d, 30d, 2w, 12h"), s);
		*out = v * (s[n - 1] == 'd' ? 86400 : 604800);
		return 0;
	}
	return gd_duration_parse(s, out, err);
}

static int parse_at(const char *s, double *out)
{
	struct tm tm;
	char *end;
	const char *rest;

	*out = strtod(s, &end);
	if (end != s && *end == '\0' && isfinite(*out) && *out > 0)
		return 0;
	memset(&tm, 0, sizeof tm);
	rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!rest || (strcmp(rest, "Z") != 0 && strcmp(rest, "") != 0))
		return -EINVAL;
	*out = (double)timegm(&tm);
	return 0;
}

/* The first line of a secret file, without its newline; NULL with msg set. */
static char *read_secret(const char *path, char *msg, size_t size)
{
	FILE *fp = fopen(path, "re");
	char *buf;
	size_t n;

	if (!fp) {
		snprintf(msg, size, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = gd_xmalloc(SECRET_MAX + 1);
	n = fread(buf, 1, SECRET_MAX, fp);
	fclose(fp);
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (!buf[0]) {
		snprintf(msg, size, _("%s: empty"), path);
		free(buf);
		return NULL;
	}
	return buf;
}

/* The three forms of one fleet result (the tables, or a job's verdict):
 * printed by print_forms, whichever the result is. */
struct forms {
	json_t *(*json)(const void *x, const struct gd_prom *p, const char *src);
	void (*text)(FILE *out, const void *x, const struct gd_prom *p, const char *src);
	void (*html)(FILE *out, const void *x, const struct gd_prom *p, const char *src);
};

static json_t *fleet_json(const void *x, const struct gd_prom *p, const char *src) { return gd_fleet_json(x, p, src); }
static void fleet_text(FILE *out, const void *x, const struct gd_prom *p, const char *src) { gd_fleet_print_text(out, x, p, src); }
static void fleet_html(FILE *out, const void *x, const struct gd_prom *p, const char *src) { gd_fleet_print_html(out, x, p, src); }
static json_t *job_json(const void *x, const struct gd_prom *p, const char *src) { return gd_fleet_job_json(x, p, src); }
static void job_text(FILE *out, const void *x, const struct gd_prom *p, const char *src) { gd_fleet_job_print_text(out, x, p, src); }
static void job_html(FILE *out, const void *x, const struct gd_prom *p, const char *src) { gd_fleet_job_print_html(out, x, p, src); }

static const struct forms fleet_forms = { fleet_json, fleet_text, fleet_html };
static const struct forms job_forms = { job_json, job_text, job_html };

/* Prints x as JSON (stdout) or text (on text_out), then as HTML into the
 * file html when given (made as every output file is: 0600 when new, never
 * through a link); 0, or the exit status of a failure. */
static int print_forms(const struct forms *fm, const void *x, const struct gd_prom *p, const char *src, bool json,
		       FILE *text_out, const char *html)
{
	if (json) {
		json_t *doc = fm->json(x, p, src);

		json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_ENSURE_ASCII);
		fputc('\n', stdout);
		json_decref(doc);
	} else {
		fm->text(text_out, x, p, src);
	}
	if (html) {
		FILE *fp = gd_outfile_fopen(html, false);

		if (!fp)
			return fail("--html %s: %s", html, gd_outfile_strerror(errno));
		fm->html(fp, x, p, src);
		if (fclose(fp) != 0)
			return fail("--html %s: %s", html, strerror(errno));
	}
	return 0;
}

/* Prints the tables of f in the chosen forms; the exit status. */
static int print_all(const struct gd_fleet *f, const struct gd_prom *p, const char *src, bool json, const char *html)
{
	return print_forms(&fleet_forms, f, p, src, json, stdout, html);
}

/* Prints the verdict of fleet --job; the exit status.  A job id that
 * matches nothing (-ENOENT) lists the ids seen, on stderr as text. */
static int print_job(int rc, const struct gd_fleet_job *j, const struct gd_prom *p, const char *src, bool json,
		     const char *html)
{
	int prc;

	if (rc == -ENOENT) {
		print_forms(&job_forms, j, p, src, json, stderr, NULL);
		return EXIT_CANNOT_RUN;
	}
	prc = print_forms(&job_forms, j, p, src, json, stdout, html);
	return prc ? prc : gd_fleet_job_exit(j);
}

/* `gpudoctor fleet --job ID FILE...`: the nodes' recordings. */
static int job_files(char **paths, size_t n, const struct gd_fleet_opts *o, const char *job, bool json,
		     const char *html)
{
	struct gd_thresholds th;
	struct gd_prom p;
	struct gd_fleet_job j;
	struct gd_err err;
	char src[64];
	int rc;

	memset(&p, 0, sizeof p);
	gd_err_clear(&err);
	gd_thresholds_init(&th);
	snprintf(src, sizeof src, P_("%zu recording", "%zu recordings", n), n);
	rc = gd_fleet_job_files(paths, n, o, job, &th, &j, &p.warnings, &err);
	if (rc < 0 && rc != -ENOENT)
		rc = fail("%s", err.msg);
	else
		rc = print_job(rc, &j, &p, src, json, html);
	gd_fleet_job_release(&j);
	gd_prom_release(&p);
	return rc;
}

/* `gpudoctor fleet FILE...`: one snapshot JSONL file per node. */
static int from_files(char **paths, size_t n, const struct gd_fleet_opts *o, bool json, const char *html)
{
	struct gd_thresholds th;
	struct gd_prom p;
	struct gd_fleet f;
	struct gd_err err;
	char src[64];
	int rc;

	memset(&p, 0, sizeof p);
	gd_err_clear(&err);
	gd_thresholds_init(&th);
	snprintf(src, sizeof src, P_("%zu snapshot file", "%zu snapshot files", n), n);
	if (gd_fleet_files(paths, n, o, &th, &f, &p.warnings, &err) < 0) {
		rc = fail("%s", err.msg);
	} else {
		rc = print_all(&f, &p, src, json, html);
	}
	gd_fleet_release(&f);
	gd_prom_release(&p);
	return rc;
}

enum {
	O_PROM = 256, O_RANGE, O_AT, O_MATCH, O_STEP, O_LIMIT, O_TIMEOUT, O_REPEAT, O_MADK, O_MINSIB, O_HTML, O_STATS,
	O_BEARER, O_BASIC, O_PWFILE, O_HEADER, O_CA, O_INSECURE, O_JOB,
};

int gd_cli_fleet(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "prometheus", required_argument, NULL, O_PROM }, { "range", required_argument, NULL, O_RANGE },
		{ "at", required_argument, NULL, O_AT },	   { "match", required_argument, NULL, O_MATCH },
		{ "step", required_argument, NULL, O_STEP },	   { "limit", required_argument, NULL, O_LIMIT },
		{ "timeout", required_argument, NULL, O_TIMEOUT }, { "repeat", required_argument, NULL, O_REPEAT },
		{ "mad-k", required_argument, NULL, O_MADK },	   { "min-siblings", required_argument, NULL, O_MINSIB },
		{ "json", no_argument, NULL, 'j' },		   { "html", required_argument, NULL, O_HTML },
		{ "stats", no_argument, NULL, O_STATS },	   { "bearer-token-file", required_argument, NULL, O_BEARER },
		{ "basic-auth", required_argument, NULL, O_BASIC }, { "password-file", required_argument, NULL, O_PWFILE },
		{ "header", required_argument, NULL, O_HEADER },   { "ca-file", required_argument, NULL, O_CA },
		{ "insecure", no_argument, NULL, O_INSECURE },	   { "help", no_argument, NULL, 'h' },
		{ "job", required_argument, NULL, O_JOB },
		{ NULL, 0, NULL, 0 },
	};
	struct gd_fleet_opts o = { .range_s = 7 * 86400, .limit = 20000, .timeout_s = 60, .repeat_min = 2,
				   .mad_k = 3.5, .min_siblings = 4 };
	struct gd_prom p;
	struct gd_fleet f;
	struct gd_err err;
	const char *html = NULL, *token_file = NULL, *pw_file = NULL, *job = NULL;
	bool range_given = false, step_given = false;
	char *token = NULL, *password = NULL, *base = NULL, msg[600];
	bool json = false;
	int c, rc = EXIT_CANNOT_RUN;

	memset(&p, 0, sizeof p);
	gd_err_clear(&err);
	o.at = (double)time(NULL);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", lo, NULL)) != -1) {
		char *end;
		double v;

		switch (c) {
		case O_PROM:
			o.prometheus = optarg;
			break;
		case O_RANGE:
		case O_STEP:
		case O_TIMEOUT:
			if (long_duration(optarg, &v, &err) < 0 || v <= 0)
				return fail("--%s: %s", c == O_RANGE ? "range" : c == O_STEP ? "step" : "timeout",
					    err.msg[0] ? err.msg : _("must be more than 0"));
			*(c == O_RANGE ? &o.range_s : c == O_STEP ? &o.step_s : &o.timeout_s) = v;
			range_given = range_given || c == O_RANGE;
			step_given = step_given || c == O_STEP;
			break;
		case O_JOB:
			if (!optarg[0] || strlen(optarg) >= 128)
				return fail(_("--job %s: expected a job id (1 to 127 bytes)"), optarg);
			job = optarg;
			break;
		case O_AT:
			if (parse_at(optarg, &o.at) < 0)
				return fail(_("--at %s: expected Unix seconds or 2026-12-01T14:00:00Z"), optarg);
			break;
		case O_MATCH:
			if (o.nmatch == GD_FLEET_MAX_MATCH)
				return fail(_("--match: at most %d"), GD_FLEET_MAX_MATCH);
			o.match[o.nmatch++] = optarg;
			break;
		case O_LIMIT:
		case O_MINSIB:
			v = strtod(optarg, &end);
			if (*end || v < 1 || v > 1e7 || v != floor(v))
				return fail(_("--%s %s: expected a whole number from 1"), c == O_LIMIT ? "limit" : "min-siblings",
					    optarg);
			*(c == O_LIMIT ? &o.limit : &o.min_siblings) = (size_t)v;
			break;
		case O_REPEAT:
		case O_MADK:
			v = strtod(optarg, &end);
			if (*end || !isfinite(v) || v <= 0)
				return fail(_("--%s %s: expected a number above 0"), c == O_REPEAT ? "repeat" : "mad-k", optarg);
			*(c == O_REPEAT ? &o.repeat_min : &o.mad_k) = v;
			break;
		case 'j':
			json = true;
			break;
		case O_HTML:
			html = optarg;
			break;
		case O_STATS:
			o.stats = true;
			break;
		case O_BEARER:
			token_file = optarg;
			break;
		case O_BASIC:
			p.http_opts.user = optarg;
			break;
		case O_PWFILE:
			pw_file = optarg;
			break;
		case O_HEADER:
			if (!strchr(optarg, ':') || optarg[0] == ':')
				return fail(_("--header %s: expected 'Name: value'"), optarg);
			if (p.http_opts.nheaders == GD_HTTP_MAX_HEADERS)
				return fail(_("--header: at most %d"), GD_HTTP_MAX_HEADERS);
			p.http_opts.headers[p.http_opts.nheaders++] = optarg;
			break;
		case O_CA:
			p.http_opts.ca_file = optarg;
			break;
		case O_INSECURE:
			p.http_opts.insecure = true;
			break;
		case 'h':
			fputs(_(gd_usage_fleet), stdout);
			return 0;
		case ':':
			return fail(_("option %s needs a value"), argv[optind - 1]);
		default:
			return fail(_("unknown option %s (see gpudoctor fleet --help)"), argv[optind - 1]);
		}
	}
	if (optind < argc && o.prometheus)
		return fail(_("%s: give either --prometheus URL or snapshot files, not both"), argv[optind]);
	if (job && !range_given)
		o.range_s = 600;
	if (optind < argc && job)
		return job_files(argv + optind, (size_t)(argc - optind), &o, job, json, html);
	if (optind < argc)
		return from_files(argv + optind, (size_t)(argc - optind), &o, json, html);
	if (!o.prometheus)
		return fail(_("--prometheus URL is needed (e.g. --prometheus http://prometheus:9090)"));
	if (strncmp(o.prometheus, "http://", 7) != 0 && strncmp(o.prometheus, "https://", 8) != 0)
		return fail(_("--prometheus %s: expected an http:// or https:// URL"), o.prometheus);
	if (pw_file && !p.http_opts.user)
		return fail(_("--password-file needs --basic-auth USER"));
	if (p.http_opts.user && !pw_file)
		return fail(_("--basic-auth needs --password-file F (a password is never taken from the command line)"));
	if (token_file && p.http_opts.user)
		return fail(_("--bearer-token-file and --basic-auth exclude each other"));
	if (!step_given)
		o.step_s = job ? 0 : fmax(15, ceil(o.range_s / 10000));
	if (token_file && !(token = read_secret(token_file, msg, sizeof msg)))
		return fail("--bearer-token-file %s", msg);
	if (pw_file && !(password = read_secret(pw_file, msg, sizeof msg))) {
		free(token);
		return fail("--password-file %s", msg);
	}
	p.http_opts.bearer_token = token;
	p.http_opts.password = password;
	/* the server's own timeout (503) should answer first; then ours */
	p.http_opts.timeout_s = fmin(2 * o.timeout_s, o.timeout_s + 5);
	p.http = gd_http_client_new(NULL, &err);
	if (!p.http) {
		fail("%s", err.msg);
		goto out;
	}
	base = gd_xstrdup(o.prometheus);
	while (base[0] && base[strlen(base) - 1] == '/')
		base[strlen(base) - 1] = '\0';
	p.base = base;
	p.at = o.at;
	p.timeout_s = o.timeout_s;
	p.limit = o.limit;
	p.stats = o.stats;
	p.samples = 0;
	if (job) {
		struct gd_fleet_job j;
		int jr = gd_fleet_job_run(&p, &o, job, &j, &err);

		if (jr < 0 && jr != -ENOENT)
			rc = fail("%s", err.msg);
		else
			rc = print_job(jr, &j, &p, base, json, html);
		gd_fleet_job_release(&j);
		goto out;
	}
	if (gd_fleet_run(&p, &o, &f, &err) < 0) {
		fail("%s", err.msg);
		gd_fleet_release(&f);
		goto out;
	}
	rc = print_all(&f, &p, base, json, html);
	gd_fleet_release(&f);
out:
	gd_prom_release(&p);
	gd_http_client_free(p.http);
	free(base);
	if (token) {
		memset(token, 0, strlen(token));
		free(token);
	}
	if (password) {
		memset(password, 0, strlen(password));
		free(password);
	}
	return rc;
}
