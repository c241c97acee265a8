/*
 * cli_npd.c - `gpudoctor check --npd CONDITION [--serve URL]`: the
 * node-problem-detector plugin mode (src/fleet/npd.h).  One line of at most
 * 80 bytes on stdout, exit 0 OK / 1 problem / 2 unknown; it asks the node's
 * `gpudoctor serve` (default http://127.0.0.1:9835) for /findings through
 * libcurl, with a deadline (--timeout, default 3s) under NPD's 5 s.
 * With --serve-user USER the answer counts only when the server's socket
 * belongs to root or USER (fleet/peer.h, checked once connected and before
 * the request goes out): a local user who bound the port while serve was
 * down gets "unknown", never a verdict.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/duration.h"
#include "core/i18n.h"
#include "fleet/http_curl.h"
#include "fleet/npd.h"
#include "fleet/peer.h"

#define NPD_UNKNOWN 2

const char gd_usage_npd[] = N_(
	"Usage: gpudoctor check --npd CONDITION [--serve URL] [--serve-user USER]\n"
	"                                        [--timeout DUR]\n"
	"A node-problem-detector custom plugin: reads the verdict of this node's\n"
	"`gpudoctor serve` (GET URL/findings) and prints one line of at most 80 bytes,\n"
	"the worst finding for CONDITION, leading with its rule id and subject.\n"
	"\n"
	"  CONDITION        gpu-unhealthy (a critical GPU finding), gpu-degraded (a GPU\n"
	"                   warning), node-unhealthy (a critical host, network, storage or\n"
	"                   driver finding)\n"
	"  --serve URL      the exporter (default http://127.0.0.1:9835)\n"
	"  --serve-user USER  trust only a server on this host whose socket belongs to\n"
	"                   root or USER (e.g. gpudoctor, the unit's user); anything\n"
	"                   else that holds the port is unknown\n"
	"  --timeout DUR    deadline of the request (default 3s)\n"
	"  --lang LANG      messages in zh_CN or en, as for every command\n"
	"\n"
	"Exit status (NPD's protocol): 0 OK, 1 problem, 2 unknown (serve not answering,\n"
	"its evidence stale, or a bad answer).\n");

static int unknown(const char *msg)
{
	char line[GD_NPD_MAX + 1];

	gd_npd_cut(msg, line, GD_NPD_MAX);
	printf("%s\n", line);
	return NPD_UNKNOWN;
}

/* --serve-user: who may answer */
struct trust {
	const char *user;
	bool known;      /* user exists (a DynamicUser= one only while its service runs) */
	uid_t uid;
	char why[300];
};

static int trusted(void *arg, const char *peer_ip, int peer_port, const char *local_ip, int local_port)
{
	struct trust *t = arg;
	struct gd_err err;
	uint32_t uid;

	gd_err_clear(&err);
	if (gd_tcp_peer_uid(peer_ip, peer_port, local_ip, local_port, &uid, &err) < 0) {
		snprintf(t->why, sizeof t->why, _("cannot tell who serves %s:%d (%s)"), peer_ip ? peer_ip : "?",
			 peer_port, err.msg);
		return -1;
	}
	if (uid == 0 || (t->known && uid == t->uid))
		return 0;
	snprintf(t->why, sizeof t->why, _("uid %u holds %s:%d, not root or %s"), (unsigned)uid, peer_ip,
		 peer_port, t->user);
	return -1;
}

int gd_cli_npd(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "npd", required_argument, NULL, 'n' }, { "serve", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' }, { "help", no_argument, NULL, 'h' },
		{ "serve-user", required_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	const char *serve = "http://127.0.0.1:9835";
	struct gd_http_opts ho;
	struct gd_http_client *c;
	struct gd_http_reply r;
	struct gd_err err;
	char url[512], msg[1200], line[GD_NPD_MAX + 1];
	json_t *doc;
	struct trust trust;
	int cond = -1, ch, rc;

	memset(&ho, 0, sizeof ho);
	memset(&trust, 0, sizeof trust);
	ho.timeout_s = 3;
	ho.max_body = 16 << 20;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (ch) {
		case 'n':
			cond = gd_npd_condition(optarg);
			if (cond < 0)
				return unknown(_("unknown: --npd takes gpu-unhealthy, gpu-degraded or node-unhealthy"));
			break;
		case 's':
			serve = optarg;
			break;
		case 'u':
			trust.user = optarg;
			break;
		case 't':
			if (gd_duration_parse(optarg, &ho.timeout_s, &err) < 0 || ho.timeout_s <= 0)
				return unknown(_("unknown: --timeout takes a duration such as 3s"));
			break;
		case 'h':
			fputs(_(gd_usage_npd), stdout);
			return 0;
		default:
			snprintf(msg, sizeof msg, _("unknown: option %s does not apply to check --npd"), argv[optind - 1]);
			return unknown(msg);
		}
	}
	if (cond < 0 || optind < argc)
		return unknown(_("unknown: usage: gpudoctor check --npd CONDITION [--serve URL]"));
	if (trust.user) {
		const struct passwd *pw = getpwnam(trust.user);

		trust.known = pw != NULL;
		trust.uid = pw ? pw->pw_uid : 0;
		ho.peer_check = trusted;
		ho.peer_arg = &trust;
		ho.peer_why = trust.why;
	}
	gd_err_clear(&err);
	c = gd_http_client_new(NULL, &err);
	if (!c) {
		snprintf(msg, sizeof msg, "unknown: %s", err.msg);
		return unknown(msg);
	}
	snprintf(url, sizeof url, "%s%sfindings", serve, serve[0] && serve[strlen(serve) - 1] == '/' ? "" : "/");
	rc = gd_http_post(c, url, NULL, &ho, &r, &err);
	gd_http_client_free(c);
	if (rc == -EACCES && trust.why[0]) {
		/* "unknown: untrusted:" stays in every language: NHC's check reads it */
		snprintf(msg, sizeof msg, "unknown: untrusted: %s", trust.why);
		return unknown(msg);
	}
	if (rc < 0) {
		snprintf(msg, sizeof msg, _("unknown: gpudoctor serve not answering: %s"), err.msg);
		return unknown(msg);
	}
	if (r.status != 200) {
		if (r.status == 503)
			snprintf(msg, sizeof msg, _("unknown: %s answered HTTP %ld (its evidence is stale)"), url, r.status);
		else
			snprintf(msg, sizeof msg, _("unknown: %s answered HTTP %ld"), url, r.status);
		gd_http_reply_release(&r);
		return unknown(msg);
	}
	doc = json_loadb(r.body, r.len, 0, NULL);
	gd_http_reply_release(&r);
	if (!doc)
		return unknown(_("unknown: /findings is not JSON"));
	rc = gd_npd_judge(doc, (enum gd_npd_condition)cond, line);
	json_decref(doc);
	printf("%s\n", line);
	return rc;
}
