/*
 * proc_net_snmp.c - TCP counters: the Tcp: section of /proc/net/snmp
 * (Linux 2.2) and TCPTimeouts from the TcpExt: section of /proc/net/netstat
 * (2.6; TCPTimeouts is there since 2.6.12).
 *
 * Both files are pairs of lines with the same prefix, names then values:
 *
 *     Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors
 *     Tcp: 1 200 120000 -1 15 2 0 0 0 527 366 0 0 2 0
 *     TcpExt: SyncookiesSent SyncookiesRecv ... TCPTimeouts ...
 *     TcpExt: 0 0 ... 3 ...
 *
 * Values are mapped by name, never by position: kernels add columns
 * (InCsumErrors in 3.10) and sections.  MaxConn is signed (-1 means "no
 * limit"), so columns we do not keep may be negative; the ones we keep must
 * be unsigned.  A value line whose count differs from its header line is an
 * error naming the line.  Both reflect the reader's network namespace.
 *
 * The collector reads both; a missing netstat (very old or stripped kernels)
 * still gives the snmp counters, reported as partial with the reason.
 */
#include "collect/collectors.h"
#include "core/tok.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/i18n.h"

#define SNMP_MAX_COLS 256

struct tcp_key {
	const char *name;
	size_t offset;   /* of a struct gd_u64 in struct gd_tcp */
};

static const struct tcp_key snmp_tcp_keys[] = {
	{ "ActiveOpens", offsetof(struct gd_tcp, active_opens) },
	{ "PassiveOpens", offsetof(struct gd_tcp, passive_opens) },
	{ "CurrEstab", offsetof(struct gd_tcp, curr_estab) },
	{ "InSegs", offsetof(struct gd_tcp, in_segs) },
	{ "OutSegs", offsetof(struct gd_tcp, out_segs) },
	{ "RetransSegs", offsetof(struct gd_tcp, retrans_segs) },
	{ "InErrs", offsetof(struct gd_tcp, in_errs) },
	{ "OutRsts", offsetof(struct gd_tcp, out_rsts) },
	{ NULL, 0 },
};

static const struct tcp_key netstat_tcpext_keys[] = {
	{ "TCPTimeouts", offsetof(struct gd_tcp, timeouts) },
	{ NULL, 0 },
};

/*
 * Finds the header/value pair of lines starting with prefix (e.g. "Tcp:")
 * and stores the named values of keys into tcp.  Returns 0, or a negative
 * code with err naming the line.
 */
static int parse_pair(const char *buf, size_t len, const char *prefix, const struct tcp_key *keys,
		      struct gd_tcp *tcp, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line, hdr = { NULL, 0 };
	struct gd_slice names[SNMP_MAX_COLS], vals[SNMP_MAX_COLS];
	size_t nn, nv, hdr_line = 0;

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("binary data, not a table of counters"));
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		if (!gd_tok_prefix(line, prefix))
			continue;
		line.p += strlen(prefix);
		line.n -= strlen(prefix);
		if (!hdr.p) {
			hdr = line;
			hdr_line = it.lineno;
			continue;
		}
		nn = gd_tok_split(hdr, names, SNMP_MAX_COLS);
		nv = gd_tok_split(line, vals, SNMP_MAX_COLS);
		if (nn != nv)
			return gd_err_set(err, -EINVAL, _("line %zu: %zu values under %zu names (line %zu)"),
					  it.lineno, nv, nn, hdr_line);
		for (size_t i = 0; i < nv; i++) {
			const struct tcp_key *k;
			uint64_t u;
			int64_t sv;

			for (k = keys; k->name && !gd_tok_eq(names[i], k->name); k++)
				;
			if (k->name) {
				if (!gd_tok_u64(vals[i], &u))
					return gd_err_set(err, -EINVAL, _("line %zu: %s: malformed value \"%.*s\""),
							  it.lineno, k->name, (int)(vals[i].n > 32 ? 32 : vals[i].n),
							  vals[i].p);
				gd_u64_set((struct gd_u64 *)((char *)tcp + k->offset), u);
			} else if (!gd_tok_u64(vals[i], &u) && !gd_tok_i64(vals[i], &sv)) {
				return gd_err_set(err, -EINVAL, _("line %zu: %.*s: malformed value \"%.*s\""), it.lineno,
						  (int)(names[i].n > 32 ? 32 : names[i].n), names[i].p,
						  (int)(vals[i].n > 32 ? 32 : vals[i].n), vals[i].p);
			}
		}
		return 0;
	}
	if (hdr.p)
		return gd_err_set(err, -EINVAL, _("line %zu: %s header without a value line"), hdr_line, prefix);
	return gd_err_set(err, -ENOENT, _("no %s lines"), prefix);
}

/* Parses into a scratch copy so a failure leaves the snapshot untouched. */
static int parse_into(const char *buf, size_t len, const char *prefix, const struct tcp_key *keys,
		      struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_tcp tcp = s->tcp;
	int rc = parse_pair(buf, len, prefix, keys, &tcp, err);

	if (rc == 0)
		s->tcp = tcp;
	return rc;
}

int gd_parse_proc_net_snmp(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	return parse_into(buf, len, "Tcp:", snmp_tcp_keys, s, err);
}

int gd_parse_proc_net_netstat(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	return parse_into(buf, len, "TcpExt:", netstat_tcpext_keys, s, err);
}

static bool usable(enum gd_src_status st)
{
	return st == GD_SRC_OK || st == GD_SRC_PARTIAL;
}

enum gd_src_status gd_collect_proc_net_snmp(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_err nerr;
	enum gd_src_status st, nst;

	st = gd_collect_file(ctx, "proc/net/snmp", gd_parse_proc_net_snmp, s, err);
	gd_err_clear(&nerr);
	nst = gd_collect_file(ctx, "proc/net/netstat", gd_parse_proc_net_netstat, s, &nerr);
	if (st == GD_SRC_OK && nst == GD_SRC_OK)
		return GD_SRC_OK;
	if (usable(st) && !usable(nst)) {
		gd_err_set(err, nerr.code, _("%s (tcp.timeouts absent)"), nerr.msg);
		return GD_SRC_PARTIAL;
	}
	if (!usable(st) && usable(nst)) {
		char msg[GD_ERR_MSG_MAX];

		gd_strlcpy(msg, err->msg, sizeof msg);
		gd_err_set(err, err->code, _("%s (only tcp.timeouts read)"), msg);
		return GD_SRC_PARTIAL;
	}
	return st;
}
