/*
 * usage.c - the help text of every command (`gpudoctor help CMD`, --help).
 * Kept apart from cli.c so that the option parsing reads on one screen;
 * tests/docs.sh checks that every command has one.
 */
#include "cli/cli.h"

#include <stdbool.h>
#include <string.h>

#include "core/i18n.h"
#include "serve/serve.h"

/*
 * Each help text is one message, so that a translator sees it whole and
 * keeps its layout: option names and metavariables as they are, the
 * descriptions in the same column by display width (a CJK character takes
 * two), no line wider than 80 columns (tests/i18n/cli_help_zh.sh).  These
 * are marked with N_ and translated where they are printed; the main text
 * and serve's name a default the build decides, so they are formats with
 * one %s, written by print_main and print_serve.
 */

static const char usage_check[] = N_(
	"Usage: gpudoctor check [--window DUR] [--json] [--from FILE...] [OPTIONS]\n"
	"Takes a snapshot, waits --window, takes another, and runs every rule over the two.\n"
	"\n"
	"  -w, --window DUR    time between the two snapshots (default 2s, at least 100ms; e.g. 5s)\n"
	"  -j, --json          print the diagnosis as JSON (findings, unavailable, not_evaluated, exit)\n"
	"  -f, --from FILE...  diagnose evidence captured elsewhere instead of this host; one --from\n"
	"                      takes several files (--from rank0.log rank1.log) and repeats;\n"
	"                      - reads standard input.  The kind is found from the content:\n"
	"                      snapshot JSON lines (gpudoctor snapshot --window 2s -o node.jsonl, the\n"
	"                      best), nvidia-smi -q, -q -x, --query-gpu CSV or its table, a kernel log\n"
	"                      (dmesg, journalctl -k, kern.log), lspci -vv, nvidia-bug-report.log(.gz),\n"
	"                      the job's own log (PyTorch, CUDA, NCCL, DataLoader messages: each\n"
	"                      finding names the file:line that proved it; the ranks' logs, or a\n"
	"                      launcher's combined log, are read per rank: the rank stuck behind\n"
	"                      the others, or the one out of step), dcgmi diag / dmon /\n"
	"                      health output, fragments of any of\n"
	"                      these, or a paste of several with shell prompts between them.  Files\n"
	"                      of one host merge into one snapshot (gzip and UTF-16 are read too)\n"
	"  --lookback DUR      kernel-log events this far back count (default 24h)\n"
	"  --root, --config, --set, --no-color, --nvml, --nvml-timeout as for every command\n"
	"  --lang LANG         messages in zh_CN or en, as for every command\n"
	"\n"
	"Exit status: 0 healthy, 1 warnings, 2 critical findings, 3 could not run.\n");

static const char usage_snapshot[] = N_(
	"Usage: gpudoctor snapshot [--window DUR] [-o FILE] [--root DIR]\n"
	"Prints one snapshot of all evidence as one JSON line.  With --window, takes two\n"
	"snapshots DUR apart (what `check --from` needs for rates).\n"
	"\n"
	"  -w, --window DUR    take a second snapshot DUR after the first\n"
	"  -o, --output FILE   append the lines to FILE instead of standard output\n"
	"  --lookback DUR      kernel-log events this far back go in (default 24h)\n"
	"  --root DIR          read /proc, /sys and /dev under DIR (default /)\n"
	"  --nvml PATH, --nvml-timeout DUR   as for every command (gpudoctor help)\n"
	"  --lang LANG         messages in zh_CN or en (default en: the output is data)\n"
	"\n"
	"Example:  gpudoctor snapshot --window 2s -o node.jsonl; gpudoctor check --from node.jsonl\n");

static const char usage_watch[] = N_(
	"Usage: gpudoctor watch [--interval DUR] [--duration DUR] [OPTIONS]\n"
	"A live full-screen view, redrawn every --interval: one row per GPU (utilisation,\n"
	"SM clock vs max, temperature vs slowdown, power vs limit, memory, PCIe gen x width,\n"
	"clock-event reasons), host bars (CPU, iowait, PSI, memory, disk and network\n"
	"throughput), the findings of the rules over the last 2 s with their remedies, and\n"
	"the latest stall episodes (and their period).  q quits.  When standard output is not\n"
	"a terminal it prints one plain line per interval instead.\n"
	"\n"
	"  -i, --interval DUR  time between samples (default 500ms)\n"
	"  -d, --duration DUR  stop after DUR (default: until q, SIGINT or SIGTERM)\n"
	"  --lookback DUR      kernel-log events this far back count (default 24h)\n"
	"  --root, --config, --set, --no-color, --nvml, --nvml-timeout as for every command\n"
	"  --lang LANG         messages in zh_CN or en, as for every command\n");

static const char usage_record[] = N_(
	"Usage: gpudoctor record -o FILE [--interval DUR] [--duration DUR] [OPTIONS]\n"
	"Appends one snapshot per --interval to FILE as a JSON line, gzip-compressed unless\n"
	"FILE ends in .jsonl (zcat reads it), flushed at once (a crash loses at most one\n"
	"sample; report and check --from load the rest with a note).  Shows progress on a\n"
	"terminal; stops cleanly on SIGINT (Ctrl-C) or SIGTERM.  Render it with gpudoctor report.\n"
	"\n"
	"  -o, --output FILE   the recording (appended to); FILE.jsonl: plain JSON lines\n"
	"  -i, --interval DUR  time between snapshots (default 1s)\n"
	"  -d, --duration DUR  stop after DUR (default 10m; 0: until interrupted)\n"
	"  --lookback DUR      kernel-log events this far back go in (default 24h)\n"
	"  --max-size SIZE     past SIZE on disk (500M, 2G) FILE becomes FILE.1 (replacing an\n"
	"                      older FILE.1) and a new FILE starts: at most about 2 x SIZE\n"
	"  --max-age DUR       the same after DUR (6h, 1d)\n"
	"  --full-every N      every Nth line holds every process and thread in full (default\n"
	"                      60); in between, one unchanged since the line before is written\n"
	"                      as its pid or tid (\"version\": 2; report puts it back); 1: all\n"
	"                      lines in full, for tools that read the lines themselves\n"
	"  --root DIR, --nvml PATH, --nvml-timeout DUR   as for every command\n"
	"  --lang LANG         messages in zh_CN or en (default en: the output is data)\n"
	"\n"
	"Example:  gpudoctor record -o run.jsonl.gz --duration 30m; gpudoctor report run.jsonl.gz -o run.html\n");

static const char usage_report[] = N_(
	"Usage: gpudoctor report FILE... [-o OUT] [--text | --json] [OPTIONS]\n"
	"Renders a recording (JSON lines from gpudoctor record or snapshot): the verdict,\n"
	"a heat strip per GPU over the whole recording, one chart per metric with every GPU\n"
	"in it (utilisation, SM clock, temperature, power, PCIe, memory; the GPUs that stand\n"
	"out in colour), the stall episodes with their cause and period, host CPU, PSI, disk,\n"
	"network and memory on the same time axis, and the findings of every rule over the\n"
	"whole series.  The default is one self-contained HTML file (inline SVG, no script,\n"
	"no network).  Exit status 0 when the report was written, 3 when it could not be.\n"
	"\n"
	"  -o, --output OUT    write to OUT (default standard output)\n"
	"  -t, --text          a text report for a terminal instead of HTML\n"
	"  -j, --json          the episodes and the diagnosis as JSON instead of HTML\n"
	"  --config, --set     thresholds, as for every command (also episodes.*)\n"
	"  --lang LANG         messages in zh_CN or en, as for every command\n");

static const char usage_fields[] = N_(
	"Usage: gpudoctor fields\n"
	"Prints every section and field of a snapshot as Markdown tables: name, type,\n"
	"unit, kind (gauge, counter, label) and meaning.  docs/evidence.md is this output.\n"
	"\n"
	"  --lang LANG         messages in zh_CN or en, as for every command\n");

static const char usage_rules[] = N_(
	"Usage: gpudoctor rules\n"
	"Lists every rule (id, severity, what it detects) and its thresholds with their\n"
	"current values (after --config and --set), in the form --set accepts.\n"
	"\n"
	"  --lang LANG         messages in zh_CN or en, as for every command\n");

static const char usage_config[] = N_(
	"Usage: gpudoctor config [--config FILE] [--set RULE.KEY=VALUE...]\n"
	"Prints a configuration file (INI) with every threshold under its rule id,\n"
	"commented out with its default and explained; a value in force (after --config\n"
	"and --set) that differs from the default is written uncommented.  The installed\n"
	"/etc/gpudoctor.conf is `gpudoctor config --config /dev/null`.\n"
	"\n"
	"  --lang LANG         messages in zh_CN or en, as for every command\n"
	"\n"
	"Example:  gpudoctor config --config old.conf > new.conf   (old settings, current keys)\n");

static void print_main(FILE *out)
{
	fprintf(out, _(
	"Usage: gpudoctor [COMMAND] [OPTIONS]\n"
	"Tells why a GPU server stalls, with the numbers, and what to do about it.\n"
	"\n"
	"Commands:\n"
	"  check       sample the host for --window, diagnose, print findings (the default)\n"
	"  snapshot    print one snapshot of all evidence as a JSON line\n"
	"  watch       live view: GPUs, host, active findings and stall episodes\n"
	"  record      append a snapshot every --interval to a JSONL file (-o)\n"
	"  report      render a recording: HTML timelines (-o run.html), --text or --json\n"
	"  serve       a Prometheus exporter: /metrics, /findings, /healthz, and a page at /\n"
	"  rules       list the rules, their severities and thresholds\n"
	"  fields      list every field of a snapshot (Markdown), from the model's field tables\n"
	"  config      print a configuration file: every threshold, commented, with its default\n"
	"  xid [FILE]  count the kernel log's GPU errors (Xid) per GPU and code, say what to do\n"
	"  fleet       the fleet's stall causes, outliers and nodes to drain, from Prometheus\n"
	"  probe       load the GPUs on purpose (burn, memory, PCIe, P2P) and judge each one\n"
	"  help [CMD]  show help for a command\n"
	"  version     print the version, the commit and the optional libraries found\n"
	"\n"
	"Options for every command:\n"
	"  --root DIR          read /proc, /sys and /dev under DIR (default /)\n"
	"  --config FILE       thresholds in INI form (default %s if it exists)\n"
	"  --set RULE.KEY=VAL  override one threshold, e.g. --set cpu.saturated.busy_pct=95\n"
	"  --no-color          no colour (also when NO_COLOR is set or stdout is not a terminal)\n"
	"  --nvml PATH         the NVML library to load (default: GPUDOCTOR_NVML, else libnvidia-ml.so.1)\n"
	"  --nvml-timeout DUR  deadline of each NVML call (default 5s); a call past it is reported\n"
	"                      as a stuck driver and no further NVML call is made\n"
	"  --lang LANG         the language of the messages: zh_CN or en (default: the\n"
	"                      locale's; English for --json, snapshot, record and serve)\n"
	"  -h, --help          this help\n"
	"\n"
	"Exit status: 0 healthy, 1 warnings, 2 critical findings, 3 could not run.\n"
	"See gpudoctor(1), and docs/ in the source tree.\n"), GD_DEFAULT_CONFIG);
}

static void print_serve(FILE *out)
{
	fprintf(out, _(
	"Usage: gpudoctor serve [--listen HOST:PORT] [--interval DUR] [--window DUR] [OPTIONS]\n"
	"Samples the host every --interval, runs every rule over the last --window, and\n"
	"serves the latest result over HTTP until SIGINT or SIGTERM:\n"
	"  GET /metrics   Prometheus text format (evidence in base units, gpudoctor_finding)\n"
	"  GET /findings  the JSON document of check --json (?lang=zh_CN: its summaries\n"
	"                 and remedies in Chinese; the first answer may still be English)\n"
	"  GET /healthz   200 ok, or 503 when no fresh sample exists\n"
	"  GET /          the node's page for a browser: verdict, findings with evidence\n"
	"                 and remedy, every GPU's and the host's charts over --page-window,\n"
	"                 stall episodes, the GPU jobs' ranks; refreshes itself (?lang=zh_CN)\n"
	"A result older than max(3 x interval, interval + 2s) is withdrawn: /metrics keeps\n"
	"only gpudoctor_up 0 and the exporter's own metrics.  /metrics is gzip-encoded for\n"
	"clients that accept it.  Limits: 256 connections (32 per address; when full, the\n"
	"one idle longest makes room), request heads of 16 KiB, 10 s to send one, 10 s idle.\n"
	"\n"
	"  --listen HOST:PORT  address to bind (default %s; [::1]:9835 for IPv6,\n"
	"                      0.0.0.0:9835 for every interface, port 0 picks a free one)\n"
	"  --interval DUR      time between collection cycles (default 1s; 100ms to 1h)\n"
	"  -w, --window DUR    span of the rates the rules judge (default 2s; at least --interval)\n"
	"  --probe-results FILE  export the last gpudoctor probe's results from its -o FILE\n"
	"                      (gpudoctor_probe_*{gpu,probe}, re-read when the file changes)\n"
	"  --lookback DUR      kernel-log events this far back count (default 24h)\n"
	"  --user USER         started as root: become USER (name or UID[:GID]) after binding,\n"
	"                      keeping only the capabilities it reads with (gpudoctor(1),\n"
	"                      PRIVILEGES); the DaemonSet runs --user 65534\n"
	"  --page-window DUR   span the page at / draws (default 10m; 10s to 1d); drawn\n"
	"                      only while someone looks, at most once per --interval\n"
	"  --no-page           serve no page at / and keep no history for it\n"
	"  --root, --config, --set as for every command\n"
	"  --lang LANG         messages in zh_CN or en (default en: the output is data)\n"
	"\n"
	"Example:  gpudoctor serve --listen 0.0.0.0:9835 --root /host\n"), GD_SERVE_DEFAULT_LISTEN);
}

/* The help text of cmd as marked (untranslated); NULL for an unknown
 * command and for those print_main and print_serve write. */
static const char *text_of(const char *cmd)
{
	if (strcmp(cmd, "check") == 0)
		return usage_check;
	if (strcmp(cmd, "snapshot") == 0)
		return usage_snapshot;
	if (strcmp(cmd, "rules") == 0)
		return usage_rules;
	if (strcmp(cmd, "fields") == 0)
		return usage_fields;
	if (strcmp(cmd, "config") == 0)
		return usage_config;
	if (strcmp(cmd, "xid") == 0)
		return gd_usage_xid;
	if (strcmp(cmd, "fleet") == 0)
		return gd_usage_fleet;
	if (strcmp(cmd, "probe") == 0)
		return gd_usage_probe;
	if (strcmp(cmd, "watch") == 0)
		return usage_watch;
	if (strcmp(cmd, "record") == 0)
		return usage_record;
	if (strcmp(cmd, "report") == 0)
		return usage_report;
	return NULL;
}

bool gd_cli_command(const char *cmd)
{
	return strcmp(cmd, "serve") == 0 || text_of(cmd);
}

int gd_cli_help(FILE *out, const char *cmd)
{
	const char *t;

	if (!cmd) {
		print_main(out);
		return 0;
	}
	if (strcmp(cmd, "serve") == 0) {
		print_serve(out);
		return 0;
	}
	if (!(t = text_of(cmd)))
		return -1;
	fputs(_(t), out);
	return 0;
}

