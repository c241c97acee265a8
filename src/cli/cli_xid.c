/*
 * cli_xid.c - `gpudoctor xid [FILE...]`: the kernel log's GPU errors,
 * counted per GPU and code with first and last time, classified by the Xid
 * catalogue and its context rules (src/klog/).
 *
 * Files are any kernel-log front-end, plain or gzip ("-" = standard input);
 * without a file it reads the live ring buffer /dev/kmsg under --root.
 * The scan streams: the summary is kept in constant memory, and --json's
 * events[] lists at most EVENTS_PER_KEY events of one kind, device and
 * code and EVENTS_CAP in all (a storm of thousands of Xid lines is counted
 * and summarised, not listed; events_not_listed says how many were left
 * out), so memory stays small whatever the log.
 */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/i18n.h"
#include "core/printable.h"
#include "core/root.h"
#include "klog/klog.h"
#include "klog/xid.h"
#include "model/snapshot_json.h"

#define EVENTS_CAP 2000
#define EVENTS_PER_KEY 10
#define EVENT_KEYS 256
#define EXIT_CANNOT_RUN 3

const char gd_usage_xid[] = N_(
	"Usage: gpudoctor xid [FILE...] [--json] [--since TIME|DUR] [--root DIR]\n"
	"Counts the GPU errors of the kernel log (Xid, SXid, fallen off the bus) per GPU and\n"
	"code, with first and last time, the processes named, and what to do; lists AER,\n"
	"OOM-kill, hung-task, machine-check and EDAC lines too.\n"
	"\n"
	"  FILE                dmesg (with or without -T), journalctl -k (short, short-iso,\n"
	"                      short-precise), /var/log/kern.log, syslog, messages; gzip is\n"
	"                      read as such; - reads standard input.  Without FILE: the live\n"
	"                      ring buffer /dev/kmsg (needs root, CAP_SYSLOG or\n"
	"                      kernel.dmesg_restrict=0)\n"
	"  -j, --json          summary[] (pci_bus_id, uuid, code, count, first, last, severity,\n"
	"                      class, action, ...) and events[] with every parsed field (the\n"
	"                      first 10 of each kind, device and code, 2000 in all; a storm is\n"
	"                      summarised: events_not_listed counts the rest)\n"
	"  --since TIME|DUR    only events after 2026-11-30T01:00 (local time) or in the last\n"
	"                      DUR (24h, 90m); lines with boot-relative time only are kept\n"
	"  --root DIR          read /dev/kmsg under DIR (default /)\n"
	"  --lang LANG         messages in zh_CN or en, as for every command\n"
	"\n"
	"Exit status: 0 nothing above info, 1 warnings, 2 critical, 3 could not run.\n");

/* A catalogue text (an Xid's meaning, its action) in the language of the
 * messages; "" stays "" (the empty msgid is the catalogue's header). */
static const char *tr(const char *s)
{
	return s[0] ? _(s) : s;
}

/* Events listed of one kind, device and code. */
struct event_key {
	char kind[16];
	char bus[32];
	uint64_t code;
	unsigned listed;
};

struct run {
	struct gd_xid_summary sum;
	struct gd_vec events;       /* struct gd_klog_event, up to EVENTS_CAP */
	struct gd_vec keys;         /* struct event_key, up to EVENT_KEYS */
	bool list;                  /* --json: keep events for events[] */
	uint64_t dropped, untimed, nevents;
	double since;               /* NAN: no --since */
	double boot_to_wall;        /* live: wall = boot_s + this; NAN for files */
};

/* Is ev among the first EVENTS_PER_KEY of its kind, device and code?
 * (Counts it when so.)  Past EVENT_KEYS keys only EVENTS_CAP limits. */
static bool listable(struct run *r, const struct gd_klog_event *ev)
{
	uint64_t code = ev->code.ok ? ev->code.v : UINT64_MAX;
	struct event_key *k;

	GD_VEC_EACH(r->keys, struct event_key, it) {
		if (it->code == code && strcmp(it->kind, ev->kind) == 0 && strcmp(it->bus, ev->pci_bus_id) == 0) {
			if (it->listed >= EVENTS_PER_KEY)
				return false;
			it->listed++;
			return true;
		}
	}
	if (r->keys.n >= EVENT_KEYS)
		return true;
	k = (struct event_key *)gd_vec_push(&r->keys, sizeof *k);
	GD_STRSET(k->kind, ev->kind);
	GD_STRSET(k->bus, ev->pci_bus_id);
	k->code = code;
	k->listed = 1;
	return true;
}

static void on_event(void *arg, enum gd_klog_kind kind, const struct gd_klog_event *in)
{
	struct run *r = arg;
	struct gd_klog_event ev = *in;

	(void)kind;
	if (!ev.wall_time_s.ok && ev.boot_s.ok && !isnan(r->boot_to_wall))
		gd_f64_set(&ev.wall_time_s, ev.boot_s.v + r->boot_to_wall);
	if (!isnan(r->since)) {
		if (!ev.wall_time_s.ok)
			r->untimed++;
		else if (ev.wall_time_s.v < r->since)
			return;
	}
	r->nevents++;
	gd_xid_summary_add(&r->sum, &ev);
	if (!r->list)
		return;
	if (r->events.n >= EVENTS_CAP || !listable(r, &ev)) {
		r->dropped++;
		return;
	}
	*(struct gd_klog_event *)gd_vec_push(&r->events, sizeof ev) = ev;
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *fmt_time(char *buf, size_t sz, struct gd_f64 wall, struct gd_f64 boot, bool iso)
{
	if (wall.ok) {
		time_t t = (time_t)wall.v;
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(buf, sz, iso ? "%Y-%m-%dT%H:%M:%S%z" : "%Y-%m-%d %H:%M:%S", &tm);
	} else if (boot.ok) {
		/* the JSON's (iso) is English, as every value of it */
		snprintf(buf, sz, iso ? "%.6f s after boot" : _("%.6f s after boot"), boot.v);
	} else {
		snprintf(buf, sz, "?");
	}
	return buf;
}

static const char *sev_upper(enum gd_severity s)
{
	return s == GD_SEV_CRITICAL ? _("CRITICAL") : s == GD_SEV_WARNING ? _("WARNING") : _("INFO");
}

static int exit_of(int worst)
{
	return worst >= GD_SEV_CRITICAL ? 2 : worst >= GD_SEV_WARNING ? 1 : 0;
}

/* Worst first, then bus id, then code. */
static int by_gpu(const void *a, const void *b)
{
	const struct gd_xid_entry *x = a, *y = b;
	int c = strcmp(x->bus, y->bus);

	if (c)
		return c;
	if (strcmp(x->kind, y->kind))
		return strcmp(x->kind, y->kind);
	return (x->code > y->code) - (x->code < y->code);
}

static void print_text(struct run *r, const char *origin, uint64_t lines)
{
	char a[48], b[48], list[512] = "";
	const char *bus = NULL;
	size_t n = 0;
	/* names, bus ids and process names come from the log: printable (core/printable.h) */
	struct gd_pr pr = { 0 };

	printf(_("gpudoctor xid · %s · %llu lines · %llu events\n"), gd_pr(&pr, origin), (unsigned long long)lines,
	       (unsigned long long)r->nevents);
	GD_VEC_EACH(r->sum.entries, const struct gd_xid_entry, e) {
		const struct gd_xid_info *x = e->info;
		const char *sev = sev_upper(e->sev);

		if (!bus || strcmp(bus, e->bus) != 0) {
			bus = e->bus;
			printf("\nGPU %s%s%s%s\n", e->bus[0] ? gd_pr(&pr, e->bus) : _("(no bus id)"), e->uuid[0] ? " (" : "",
			       gd_pr(&pr, e->uuid),
			       e->uuid[0] ? ")" : "");
		}
		/* the severity's column is 9 wide on the screen, in any language */
		printf("  %-*s %s %-4llu %llu×  %s … %s\n", (int)(9 + strlen(sev) - gd_utf8_width(sev)), sev,
		       strcmp(e->kind, "sxid") ? "Xid " : "SXid", (unsigned long long)e->code, (unsigned long long)e->count,
		       fmt_time(a, sizeof a, e->first_wall, e->first_boot, false),
		       fmt_time(b, sizeof b, e->last_wall, e->last_boot, false));
		if (x)
			printf("            %s (%s) · %s · %s\n", tr(x->meaning), x->mnemonic, x->cls, x->bucket);
		else if (strcmp(e->kind, "sxid") == 0)
			printf("            %s\n", e->fatal ? _("NVSwitch error (fatal)") : _("NVSwitch error"));
		else
			printf("            %s\n", _("unknown Xid: not in gpudoctor's catalogue"));
		if (e->procs[0])
			printf(_("            processes: %s\n"), gd_pr(&pr, e->procs));
		if (e->notes[0])
			printf(_("            note: %s\n"), tr(e->notes));
		printf("            → %s\n", tr(e->action));
	}
	if (!r->sum.entries.n)
		printf("\n%s\n", _("No Xid, SXid or fallen-off-the-bus lines."));
	for (int k = GD_KLOG_AER; k < GD_KLOG_NEVENT_KINDS; k++) {
		if (!r->sum.other[k])
			continue;
		n += snprintf(list + n, sizeof list - n, "%s%llu %s", n ? ", " : "", (unsigned long long)r->sum.other[k],
			      gd_klog_kind_name((enum gd_klog_kind)k));
		n = n < sizeof list ? n : sizeof list - 1;
	}
	if (r->sum.other[GD_KLOG_INIT_FAILED])
		snprintf(list + n, sizeof list - n, "%s%llu init_failed", n ? ", " : "",
			 (unsigned long long)r->sum.other[GD_KLOG_INIT_FAILED]);
	if (list[0]) {
		putchar('\n');
		/* TRANSLATORS: %s lists counts and kinds: "3 aer, 1 oom_kill" */
		printf(_("other kernel-log events: %s\n"), list);
	}
	if (r->untimed)
		printf(_("note: %llu events carry only boot-relative time and were kept despite --since\n"),
		       (unsigned long long)r->untimed);
	gd_pr_release(&pr);
}

static json_t *num_or_null(struct gd_f64 v)
{
	return v.ok ? json_real(v.v) : json_null();
}

static json_t *event_json(const struct gd_klog_event *ev)
{
	const struct gd_record_desc *d = gd_section_find("klog");
	json_t *o = json_object();

	for (size_t i = 0; d && i < d->nfields; i++) {
		const struct gd_field *f = &d->fields[i];
		const char *p = (const char *)ev + f->offset;

		if (f->type == GD_FT_U64) {
			const struct gd_u64 *u = (const void *)p;

			if (u->ok)
				json_object_set_new(o, f->name, json_integer((json_int_t)u->v));
		} else if (f->type == GD_FT_F64) {
			const struct gd_f64 *x = (const void *)p;

			if (x->ok)
				json_object_set_new(o, f->name, json_real(x->v));
		} else if (p[0]) {
			json_object_set_new(o, f->name, gd_json_str(p));
		}
	}
	return o;
}

static void print_json(struct run *r, json_t *sources, uint64_t lines, int code)
{
	json_t *doc = json_object(), *sum = json_array(), *evs = json_array(), *other = json_object();
	char a[48];

	GD_VEC_EACH(r->sum.entries, const struct gd_xid_entry, e) {
		json_t *o = json_object(), *procs = json_array();
		const struct gd_xid_info *x = e->info;
		char *save = NULL, buf[GD_XID_PROCS];

		json_object_set_new(o, "pci_bus_id", gd_json_str(e->bus));
		json_object_set_new(o, "uuid", e->uuid[0] ? gd_json_str(e->uuid) : json_null());
		json_object_set_new(o, "index", json_null());
		json_object_set_new(o, "kind", gd_json_str(e->kind));
		json_object_set_new(o, "code", json_integer((json_int_t)e->code));
		json_object_set_new(o, "mnemonic", x ? json_string(x->mnemonic) : json_null());
		json_object_set_new(o, "meaning", x ? json_string(x->meaning) : json_null());
		json_object_set_new(o, "count", json_integer((json_int_t)e->count));
		json_object_set_new(o, "first", e->first_wall.ok || e->first_boot.ok
							? json_string(fmt_time(a, sizeof a, e->first_wall, e->first_boot, true))
							: json_null());
		json_object_set_new(o, "last", e->last_wall.ok || e->last_boot.ok
						       ? json_string(fmt_time(a, sizeof a, e->last_wall, e->last_boot, true))
						       : json_null());
		json_object_set_new(o, "first_boot_s", num_or_null(e->first_boot));
		json_object_set_new(o, "last_boot_s", num_or_null(e->last_boot));
		json_object_set_new(o, "severity", json_string(gd_severity_name(e->sev)));
		json_object_set_new(o, "class", json_string(x ? x->cls : strcmp(e->kind, "sxid") == 0 ? "NVSwitch" : "unknown"));
		json_object_set_new(o, "bucket", x ? json_string(x->bucket) : json_null());
		json_object_set_new(o, "action", gd_json_str(e->action));
		GD_STRSET(buf, e->procs);
		for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
			json_array_append_new(procs, gd_json_str(t[0] == ' ' ? t + 1 : t));
		json_object_set_new(o, "processes", procs);
		json_object_set_new(o, "notes", gd_json_str(e->notes));
		json_array_append_new(sum, o);
	}
	GD_VEC_EACH(r->events, const struct gd_klog_event, ev)
		json_array_append_new(evs, event_json(ev));
	for (int k = 1; k < GD_KLOG_NEVENT_KINDS; k++)
		json_object_set_new(other, gd_klog_kind_name((enum gd_klog_kind)k), json_integer((json_int_t)r->sum.other[k]));
	json_object_set_new(doc, "sources", sources);
	json_object_set_new(doc, "lines", json_integer((json_int_t)lines));
	json_object_set_new(doc, "summary", sum);
	json_object_set_new(doc, "counts", other);
	json_object_set_new(doc, "events", evs);
	json_object_set_new(doc, "events_not_listed", json_integer((json_int_t)r->dropped));
	json_object_set_new(doc, "exit", json_integer(code));
	json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	fputc('\n', stdout);
	json_decref(doc);
}

static int read_live(struct gd_klog_feed *f, const char *root_path)
{
	struct gd_root root;
	struct gd_err err;
	int fd, rc;

	gd_err_clear(&err);
	if (gd_root_open(&root, root_path ? root_path : "/", &err) < 0)
		return gd_cli_fail("%s", err.msg);
	fd = gd_root_openat(&root, "dev/kmsg", O_RDONLY | O_NONBLOCK);
	gd_root_release(&root);
	if (fd == -EACCES || fd == -EPERM)
		return gd_cli_fail(_("cannot read the kernel log (/dev/kmsg: %s): %s; or give a log file (journalctl -k > "
			    "k.log; gpudoctor xid k.log)"),
			    strerror(-fd), _(GD_KLOG_DENIED_HINT));
	if (fd < 0)
		return gd_cli_fail(_("/dev/kmsg: %s (no kernel ring buffer here: give a log file, e.g. /var/log/kern.log)"),
			    strerror(-fd));
	rc = gd_klog_read_kmsg(f, fd, &err);
	close(fd);
	if (rc == -EACCES || rc == -EPERM)
		return gd_cli_fail(_("cannot read the kernel log (/dev/kmsg: %s): %s"), strerror(-rc), _(GD_KLOG_DENIED_HINT));
	if (rc < 0)
		return gd_cli_fail("%s", err.msg);
	return -1;
}

int gd_cli_xid(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },   { "since", required_argument, NULL, 's' },
		{ "root", required_argument, NULL, 'r' }, { "help", no_argument, NULL, 'h' },
		{ "no-color", no_argument, NULL, 'n' }, { NULL, 0, NULL, 0 },
	};
	struct run r;
	struct gd_klog_feed f;
	struct gd_err err;
	const char *root_path = NULL;
	bool json = false;
	json_t *sources = json_array();
	char origin[512] = "";
	int c, rc = -1, nread = 0, nfiles;

	memset(&r, 0, sizeof r);
	r.since = NAN;
	r.boot_to_wall = NAN;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":js:h", opts, NULL)) != -1) {
		gd_err_clear(&err);
		switch (c) {
		case 'j':
			json = true;
			break;
		case 's':
			if (gd_klog_parse_since(optarg, (double)time(NULL), &r.since, &err) < 0) {
				json_decref(sources);
				return gd_cli_fail("--since: %s", err.msg);
			}
			break;
		case 'r':
			root_path = optarg;
			break;
		case 'n':
			break;
		case 'h':
			json_decref(sources);
			fputs(_(gd_usage_xid), stdout);
			return 0;
		case ':':
			json_decref(sources);
			return gd_cli_fail(_("option %s needs a value (see gpudoctor help xid)"), argv[optind - 1]);
		default:
			json_decref(sources);
			return gd_cli_fail(_("xid: unknown option %s (see gpudoctor help xid)"), argv[optind - 1]);
		}
	}
	gd_xid_summary_init(&r.sum);
	r.list = json;
	nfiles = argc - optind;
	gd_klog_feed_init(&f, on_event, &r, 0);
	if (nfiles == 0) {
		r.boot_to_wall = clock_s(CLOCK_REALTIME) - clock_s(CLOCK_BOOTTIME);
		rc = read_live(&f, root_path);
		GD_STRSET(origin, "/dev/kmsg");
		json_array_append_new(sources, json_string("/dev/kmsg"));
		if (rc < 0)
			nread = 1;
	}
	for (int i = optind; i < argc; i++) {
		const char *path = argv[i];
		int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
		int got;

		if (fd < 0) {
			gd_cli_fail("%s: %s", path, strerror(errno));
			continue;
		}
		gd_err_clear(&err);
		got = gd_klog_read_fd(&f, fd, strcmp(path, "-") == 0 ? "standard input" : path, &err);
		if (fd != STDIN_FILENO)
			close(fd);
		if (got < 0) {
			gd_cli_fail("%s", err.msg);
			continue;
		}
		if (got > 0)
			fprintf(stderr, _("gpudoctor: %s (what was read before is reported)\n"), err.msg);
		nread++;
		json_array_append_new(sources, json_string(path));
		snprintf(origin + strlen(origin), sizeof origin - strlen(origin), "%s%s", i > optind ? ", " : "", path);
	}
	if (!nread) {
		rc = rc >= 0 ? rc : EXIT_CANNOT_RUN;
		goto out;
	}
	gd_xid_summary_finish(&r.sum, NULL);
	if (r.sum.entries.n)
		qsort(r.sum.entries.items, r.sum.entries.n, sizeof(struct gd_xid_entry), by_gpu);
	rc = exit_of(gd_xid_summary_worst(&r.sum));
	if (json) {
		print_json(&r, sources, f.lines, rc);
		sources = NULL;
	} else {
		print_text(&r, origin, f.lines);
	}
	if (fflush(stdout) == EOF)
		rc = gd_cli_fail(_("writing the report: %s"), strerror(errno));
out:
	json_decref(sources);
	gd_xid_summary_release(&r.sum);
	gd_vec_release(&r.events);
	gd_vec_release(&r.keys);
	return rc;
}
