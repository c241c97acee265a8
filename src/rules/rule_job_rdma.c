/*
 * rule_job_rdma.c - net.rdma_down from what NCCL's InfiniBand transport
 * wrote in the job's log (job_log[] kinds nccl_ib_wc and nccl_ib_async,
 * src/offline/joblog.c), added to the port states and error counters that
 * rule_net.c judges.
 *
 * Mechanism.  NCCL posts its sends and receives to an RDMA queue pair; the
 * HCA reports each as a work completion whose status is an ibv_wc_status
 * (libibverbs, <infiniband/verbs.h>).  A completion in error moves the queue
 * pair into the error state: the operation failed, NCCL returns an error to
 * the communicator (or, before 2.19, its proxy thread stopped and the job
 * hung until the watchdog's time-out).  What the status says:
 *
 *   12 IBV_WC_RETRY_EXC_ERR  the transport retried and the peer never
 *      acknowledged: the path lost packets (a flapping link, a bad cable, a
 *      switch port, congestion without lossless flow control on RoCE), or the
 *      peer's node died or rebooted
 *   13 IBV_WC_RNR_RETRY_EXC_ERR  the peer never had a receive buffer ready
 *    5 IBV_WC_WR_FLUSH_ERR  requests flushed after the queue pair went into
 *      error: a consequence of an earlier error (here, or on the peer)
 *   10 IBV_WC_REM_ACCESS_ERR, 4 IBV_WC_LOC_PROT_ERR, 8 IBV_WC_LOC_ACCESS_ERR
 *      a memory registration the HCA would not use (GPUDirect RDMA's
 *      nvidia-peermem module, a peer that already tore its buffers down)
 *
 * An asynchronous event is the device's own report: "port error" (the link
 * went down or flapped), "local catastrophic error" (the HCA failed), a
 * queue pair's "catastrophic" or "access violation" error.  Events that are
 * not errors ("port active", "GID table change") make no finding.
 *
 * Thresholds: none; any completion in error is critical (the collective
 * failed), unless every one of a subject's completions was flushed
 * (warning: the first error is elsewhere); an async error event is a
 * warning, critical when the device or a queue pair is lost.
 *
 * Worked example (NVIDIA/nccl#1405): "kp-ddp-worker-0:3468:3905 [4] ...
 * NCCL WARN NET/IB : Got completion from peer 10.216.210.236<54862> with
 * status=12 opcode=0 len=0 vendor err 129 (Recv)" three times ->
 * "kp-ddp-worker-0 -> 10.216.210.236", critical, status 12 (transport retry
 * counter exceeded), messages=3.
 */
#include "rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "rules/rule_job.h"
#include "rules/rule_util.h"

/* Findings past this are counted in the last one. */
#define MAX_RDMA_SUBJECTS 8

/* ibv_wc_status_str() of libibverbs, by value. */
static const char *const wc_words[] = {
	"success",
	"local length error",
	"local QP operation error",
	"local EE context operation error",
	"local protection error",
	"Work Request Flushed Error",
	"memory management operation error",
	"bad response error",
	"local access error",
	"remote invalid request error",
	"remote access error",
	"remote operation error",
	"transport retry counter exceeded",
	"RNR retry counter exceeded",
	"local RDD violation error",
	"remote invalid RD request",
	"operation aborted",
	"invalid EE context number",
	"invalid EE context state",
	"fatal error",
	"response timeout error",
	"general error",
	"TM error",
	"TM software rendezvous",
};

static const char *gd_ibv_wc_status_str(uint64_t st)
{
	return st < sizeof wc_words / sizeof wc_words[0] ? wc_words[st] : "unknown";
}

/* What a status means for the job (translated). */
static const char *wc_meaning(uint64_t st)
{
	switch (st) {
	case 12:
		return _("the peer never acknowledged the transfer: the path between them lost packets (a flapping link, a "
			 "cable, a switch port, congestion), or the peer's node died");
	case 13:
		return _("the peer had no receive buffer ready in time");
	case 5:
		return _("requests were flushed after the connection had already failed: the first error is earlier in "
			 "the log or on the peer");
	case 4:
	case 8:
	case 10:
		return _("the HCA refused a memory registration: GPUDirect RDMA (the nvidia-peermem module) or a peer "
			 "that had already torn its buffers down");
	default:
		return _("the RDMA operation failed");
	}
}

static struct gd_finding *subject_finding(struct gd_findings *out, size_t from, const char *subj)
{
	for (size_t i = from; i < out->items.n; i++) {
		struct gd_finding *f = (struct gd_finding *)out->items.items + i;

		if (strcmp(f->subject, subj) == 0)
			return f;
	}
	return NULL;
}

static struct gd_evidence *ev_of(struct gd_finding *f, const char *name)
{
	for (size_t i = 0; i < f->nev; i++)
		if (strcmp(f->ev[i].name, name) == 0)
			return &f->ev[i];
	return NULL;
}

/* "node023 -> 10.1.3.201", "peer 10.1.3.201" (no host in the line). */
static void wc_subject(char *dst, size_t n, const struct gd_job_log *r)
{
	if (r->host[0])
		snprintf(dst, n, "%s -> %s", r->host, r->peer[0] ? r->peer : "?");
	else
		snprintf(dst, n, "peer %s", r->peer[0] ? r->peer : "?");
}

static void wc_fill(struct gd_finding *f, const struct gd_job_log *r, size_t msgs, uint64_t first_bad)
{
	const char *hca = r->hca[0] ? r->hca : NULL;

	if (first_bad != 5)
		/* TRANSLATORS: %1$s the peer's address, %2$llu the ibv_wc_status, %3$s its name in
		 * libibverbs' words (kept in English), %4$s what it means, %5$s where it was (file:line) */
		gd_finding_summary(f, _("NCCL's RDMA transport got a completion error from peer %s: status %llu (%s): "
					"%s (%s)."),
				   r->peer[0] ? r->peer : "?", (unsigned long long)first_bad, gd_ibv_wc_status_str(first_bad),
				   wc_meaning(first_bad), r->file);
	else
		gd_finding_summary(f, _("NCCL's RDMA transport got completions from peer %s only with status 5 (%s): %s "
					"(%s)."),
				   r->peer[0] ? r->peer : "?", gd_ibv_wc_status_str(5), wc_meaning(5), r->file);
	if (hca)
		gd_finding_remedy(f, _("Check the link of %s and of the peer %s: ibstat on both (State Active, Physical "
				       "state LinkUp), their port error counters (perfquery -x, ibqueryerrors), the cables "
				       "and switch ports, and the kernel log of both nodes; restart the job without a node "
				       "whose link keeps failing."),
				  hca, r->peer[0] ? r->peer : "?");
	else
		gd_finding_remedy(f, _("Check the links of this node and of the peer %s: ibstat on both (State Active, "
				       "Physical state LinkUp), their port error counters (perfquery -x, ibqueryerrors), "
				       "the cables and switch ports, and the kernel log of both nodes (the line names no "
				       "HCA: NCCL_DEBUG=INFO shows which one NCCL uses); restart the job without a node "
				       "whose link keeps failing."),
				  r->peer[0] ? r->peer : "?");
	gd_finding_ev(f, "messages", (double)msgs, "", NAN);
	gd_finding_ev(f, "wc_status", (double)first_bad, "", NAN);
	gd_finding_ev_text(f, "status", gd_ibv_wc_status_str(first_bad));
	gd_finding_ev_text(f, "peer", r->peer);
	if (hca)
		gd_finding_ev_text(f, "hca", hca);
	if (r->what[0])
		gd_finding_ev_text(f, "op", r->what);
	gd_finding_ev_line(f, r->file, (double)r->line.v, r->text);
}

/* One finding per host and peer; the status named is the first that was
 * not a flush (a flush follows the error that caused it). */
static size_t wc_findings(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_snapshot *s)
{
	size_t from = out->items.n, more = 0;

	GD_VEC_EACH(s->job_log, const struct gd_job_log, r) {
		char subj[160];
		size_t msgs = 0;
		uint64_t bad = 5;
		const struct gd_job_log *first = NULL, *shown;
		struct gd_finding *f;

		if (strcmp(r->kind, "nccl_ib_wc") != 0)
			continue;
		wc_subject(subj, sizeof subj, r);
		if (subject_finding(out, from, subj))
			continue;
		GD_VEC_EACH(s->job_log, const struct gd_job_log, q) {
			char qs[160];

			if (strcmp(q->kind, "nccl_ib_wc") != 0)
				continue;
			wc_subject(qs, sizeof qs, q);
			if (strcmp(qs, subj) != 0)
				continue;
			msgs++;
			if (!first && q->wc_status.ok && q->wc_status.v != 5) {
				first = q;
				bad = q->wc_status.v;
			}
		}
		if (out->items.n - from >= MAX_RDMA_SUBJECTS) {
			more++;
			continue;
		}
		shown = first ? first : r;
		f = gd_finding_add(rc, out, first ? GD_SEV_CRITICAL : GD_SEV_WARNING, "%s", subj);
		wc_fill(f, shown, msgs, first ? bad : (r->wc_status.ok ? r->wc_status.v : 5));
	}
	if (more && out->items.n > from)
		gd_finding_ev((struct gd_finding *)out->items.items + out->items.n - 1, "other_subjects", (double)more, "",
			      NAN);
	return out->items.n - from;
}

static bool async_error(const char *what)
{
	return strstr(what, "error") || strstr(what, "catastrophic") || strstr(what, "fatal");
}

static bool async_lost(const char *what)
{
	return strstr(what, "catastrophic") || strstr(what, "fatal");
}

/* One finding per host, device and event. */
static size_t async_findings(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_snapshot *s)
{
	size_t from = out->items.n, more = 0;

	GD_VEC_EACH(s->job_log, const struct gd_job_log, r) {
		char subj[160], ev[96];
		struct gd_finding *f;
		struct gd_evidence *m;
		const char *dev = r->hca[0] ? r->hca : NULL, *at = strstr(r->text, "Got async event : ");

		/* the event judged from the line: "what" may be cut */
		if (strcmp(r->kind, "nccl_ib_async") != 0 || !async_error(r->text))
			continue;
		snprintf(subj, sizeof subj, "%s%s%s%s", r->host, r->host[0] && dev ? " " : "", dev ? dev : "",
			 !r->host[0] && !dev ? "the job's RDMA device" : "");
		if ((f = subject_finding(out, from, subj)) && (m = ev_of(f, "messages"))) {
			m->value.v++;
			continue;
		}
		if (out->items.n - from >= MAX_RDMA_SUBJECTS) {
			more++;
			continue;
		}
		snprintf(ev, sizeof ev, "%s", at ? at + 18 : r->what);
		f = gd_finding_add(rc, out, async_lost(r->text) ? GD_SEV_CRITICAL : GD_SEV_WARNING, "%s", subj);
		/* TRANSLATORS: %1$s the device (mlx5_0:1, or "its RDMA device"), %2$s the event in
		 * libibverbs' words (port error; kept in English), %3$s file */
		gd_finding_summary(f, _("NCCL's RDMA device %s reported an asynchronous event: %s (%s)."),
				   dev ? dev : _("(not named)"), ev, r->file);
		if (async_lost(r->text))
			gd_finding_remedy(f, "%s",
					  _("The HCA or a connection on it failed: drain the node, check the HCA's firmware "
					    "and the kernel log (mlx5_core), reset the device or reboot; replace it if it "
					    "repeats."));
		else if (strstr(r->text, "port error"))
			gd_finding_remedy(f, "%s",
					  _("The port's link went down or flapped: check the cable or optic and the switch "
					    "port (ibstat, perfquery -x, the switch's log); a log full of these is a "
					    "flapping link."));
		else
			gd_finding_remedy(f, "%s",
					  _("A queue pair on the device failed: see the completion errors next to it, and "
					    "the HCA's kernel log (mlx5_core)."));
		gd_finding_ev(f, "messages", 1, "", NAN);
		gd_finding_ev_text(f, "event", ev);
		if (dev)
			gd_finding_ev_text(f, "hca", dev);
		gd_finding_ev_line(f, r->file, (double)r->line.v, r->text);
	}
	if (more && out->items.n > from)
		gd_finding_ev((struct gd_finding *)out->items.items + out->items.n - 1, "other_subjects", (double)more, "",
			      NAN);
	return out->items.n - from;
}

enum gd_verdict gd_rule_job_net_rdma_down(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	enum gd_verdict v = gd_rule_net_rdma_down(rc, out);
	const struct gd_snapshot *s = gd__job_log_read(rc);
	size_t n = 0;

	if (!s)
		return v;
	n += wc_findings(rc, out, s);
	n += async_findings(rc, out, s);
	if (!n)
		return v;
	rc->why[0] = '\0';
	return GD_VERDICT_FIRED;
}
