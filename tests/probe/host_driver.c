/*
 * host_driver.c - runs the host probes of src/probe/host.h from a shell
 * test and prints their results, the rules' findings and the report lines
 * as one JSON object (jq reads it).  A test tool, not a command: `gpudoctor
 * probe --data DIR` is the user's way in.
 *
 *   probe_host_driver [--data DIR] [--mem] [--power] [--gpu-w W]
 *                     [--root DIR] [--budget S] [--seq-max BYTES]
 *                     [--large-min BYTES] [--rand-reads N]
 *                     [--small-sample N] [--small-max BYTES]
 *                     [--stream-elems N] [--stream-reps N] [--threads N]
 *                     [--ipmitool PATH] [--no-direct] [--set rule.key=value]...
 *   probe_host_driver --parse-ipmi FILE   (gd_ipmi_dcmi_parse alone)
 *
 * Exits 0 when it ran, 2 on a usage error, 3 when --parse-ipmi refused
 * the input (the message on stderr).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/root.h"
#include "probe/host.h"
#include "rules/thresholds.h"

static int usage(void)
{
	fprintf(stderr, "usage: probe_host_driver [--data DIR] [--mem] [--power] [--gpu-w W] [--root DIR] ...\n"
			"       probe_host_driver --parse-ipmi FILE\n");
	return 2;
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static int parse_ipmi(const char *path)
{
	struct gd_root root;
	struct gd_ipmi_power p;
	struct gd_err err;
	char *buf = NULL;
	size_t len = 0;
	int rc;
	json_t *o;

	gd_err_clear(&err);
	if (gd_root_open(&root, path[0] == '/' ? "/" : ".", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 2;
	}
	rc = gd_root_read(&root, path, &buf, &len, 1 << 20);
	gd_root_release(&root);
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(-rc));
		return 2;
	}
	rc = gd_ipmi_dcmi_parse(buf, len, &p, &err);
	free(buf);
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", path, err.msg);
		return 3;
	}
	o = json_pack("{s:o,s:o,s:o,s:o,s:o,s:b,s:b}", "inst_w", num(p.inst_w), "min_w", num(p.min_w), "max_w",
		      num(p.max_w), "avg_w", num(p.avg_w), "period_s", num(p.period_s), "active", p.active,
		      "has_state", p.has_state);
	json_dumpf(o, stdout, JSON_SORT_KEYS | JSON_REAL_PRECISION(10));
	putchar('\n');
	json_decref(o);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "data", required_argument, NULL, 'd' },         { "mem", no_argument, NULL, 'm' },
		{ "power", no_argument, NULL, 'p' },              { "gpu-w", required_argument, NULL, 'g' },
		{ "root", required_argument, NULL, 'r' },         { "budget", required_argument, NULL, 'b' },
		{ "seq-max", required_argument, NULL, 'S' },      { "large-min", required_argument, NULL, 'L' },
		{ "rand-reads", required_argument, NULL, 'R' },   { "small-sample", required_argument, NULL, 'n' },
		{ "small-max", required_argument, NULL, 'M' },    { "stream-elems", required_argument, NULL, 'e' },
		{ "stream-reps", required_argument, NULL, 'E' },  { "threads", required_argument, NULL, 't' },
		{ "ipmitool", required_argument, NULL, 'i' },     { "set", required_argument, NULL, 's' },
		{ "parse-ipmi", required_argument, NULL, 'P' },   { "no-direct", no_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	struct gd_probe_host_opts o;
	struct gd_thresholds th;
	struct gd_probe_storage_result *st = NULL;
	struct gd_probe_mem_result *mem = NULL;
	struct gd_probe_power_result *pw = NULL;
	struct gd_probe_host_results res = { NULL, NULL, NULL };
	struct gd_probe_host_line lines[80];
	struct gd_findings f;
	struct gd_err err;
	const char *data = NULL;
	bool do_mem = false, do_power = false;
	double gpu_w = NAN;
	json_t *out, *jf, *ju, *jl;
	size_t nl;
	int c;

	gd_probe_host_opts_init(&o);
	gd_thresholds_init(&th);
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': data = optarg; break;
		case 'm': do_mem = true; break;
		case 'p': do_power = true; break;
		case 'g': gpu_w = strtod(optarg, NULL); break;
		case 'r': o.root = optarg; break;
		case 'b': o.budget_s = strtod(optarg, NULL); break;
		case 'S': o.seq_max_bytes = strtoull(optarg, NULL, 10); break;
		case 'L': o.large_min_bytes = strtoull(optarg, NULL, 10); break;
		case 'R': o.rand_reads = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'n': o.small_sample = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'M': o.small_max_bytes = strtoull(optarg, NULL, 10); break;
		case 'e': o.stream_elems = strtoull(optarg, NULL, 10); break;
		case 'E': o.stream_reps = (unsigned)strtoul(optarg, NULL, 10); break;
		case 't': o.stream_max_threads = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'i': o.ipmitool = optarg; break;
		case 's': {
			char name[128], *eq = strchr(optarg, '=');

			if (!eq || (size_t)(eq - optarg) >= sizeof name)
				return usage();
			memcpy(name, optarg, (size_t)(eq - optarg));
			name[eq - optarg] = '\0';
			gd_err_clear(&err);
			if (gd_thresholds_set(&th, name, eq + 1, &err) < 0) {
				fprintf(stderr, "%s\n", err.msg);
				return 2;
			}
			break;
		}
		case 'D': o.no_direct = true; break;
		case 'P': return parse_ipmi(optarg);
		default: return usage();
		}
	}
	if (optind != argc)
		return usage();
	if (data) {
		st = calloc(1, sizeof *st);
		if (!st || gd_probe_storage(data, &o, st) < 0)
			return 2;
		res.storage = st;
	}
	if (do_mem) {
		mem = calloc(1, sizeof *mem);
		if (!mem || gd_probe_host_mem(&o, mem) < 0)
			return 2;
		res.mem = mem;
	}
	if (do_power) {
		struct gd_probe_power_in in = { gpu_w, isfinite(gpu_w) ? 1 : 0, NULL };

		pw = calloc(1, sizeof *pw);
		if (!pw || gd_probe_power(&o, &in, pw) < 0)
			return 2;
		res.power = pw;
	}
	gd_findings_init(&f);
	gd_probe_host_judge(&res, &th, &f);
	out = json_object();
	json_object_set_new(out, "results", gd_probe_host_json(&res));
	jf = json_array();
	GD_VEC_EACH(f.items, const struct gd_finding, it) {
		json_t *ev = json_object();

		for (size_t i = 0; i < it->nev; i++)
			json_object_set_new(ev, it->ev[i].name,
					    it->ev[i].value.ok ? json_real(it->ev[i].value.v) : json_string(it->ev[i].text));
		json_array_append_new(jf, json_pack("{s:s,s:s,s:s,s:s,s:s,s:o}", "id", it->id, "severity",
						    gd_severity_name(it->severity), "subject", it->subject, "summary",
						    it->summary, "remedy", it->remedy, "evidence", ev));
	}
	json_object_set_new(out, "findings", jf);
	ju = json_array();
	GD_VEC_EACH(f.unknown, const struct gd_unknown, u)
		json_array_append_new(ju, json_pack("{s:s,s:s}", "id", u->id, "reason", u->reason));
	json_object_set_new(out, "unknown", ju);
	json_object_set_new(out, "evaluated", json_integer((json_int_t)f.evaluated));
	nl = gd_probe_host_lines(&res, &th, lines, sizeof lines / sizeof lines[0]);
	jl = json_array();
	for (size_t i = 0; i < nl && i < sizeof lines / sizeof lines[0]; i++)
		json_array_append_new(jl, json_pack("{s:s,s:s,s:s,s:s,s:o,s:s,s:o,s:s,s:b,s:b}", "probe", lines[i].probe,
						    "rule", lines[i].rule, "subject", lines[i].subject, "state",
						    gd_probe_state_name(lines[i].avail.state), "achieved",
						    num(lines[i].achieved), "unit", lines[i].unit, "expected",
						    num(lines[i].expected), "expected_from", lines[i].expected_from,
						    "higher_is_better", lines[i].higher_is_better, "ok", lines[i].ok));
	json_object_set_new(out, "lines", jl);
	json_dumpf(out, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	putchar('\n');
	json_decref(out);
	gd_findings_release(&f);
	free(st);
	free(mem);
	free(pw);
	return 0;
}
