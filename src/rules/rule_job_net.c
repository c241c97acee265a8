/*
 * rule_job_net.c - net.remote_data_latency: a GPU job reads its data (or
 * talks to a service) over TCP connections whose round-trip time is long,
 * so every small read waits on the distance.  Evidence: job_sockets[] (the
 * kernel's tcp_info of the sockets the job and its loader workers hold):
 * an established connection, not over loopback, whose smoothed RTT is at
 * least rtt_ms (10 ms: a LAN answers in well under 1 ms, another city in
 * 10-40 ms) and that moved bytes over the window (an idle keep-alive to a
 * far API is not in the job's way).  One finding per process, naming the
 * far peer with the longest RTT.  Example: pid 4711 (python) reads from
 * 10.8.0.5:9000 at 42 ms RTT (min 40 ms), 3 connections >= 10 ms.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "model/jobs.h"
#include "rules/rule_util.h"
#include "rules/rules.h"
#include "rules/window.h"

static bool loopback(const char *peer)
{
	return strncmp(peer, "127.", 4) == 0 || strncmp(peer, "[::1]", 5) == 0 || strncmp(peer, "[::ffff:127.", 12) == 0;
}

/* True when the connection moved data over the window (or is new and has). */
static bool active(const struct gd_snapshot *a, const struct gd_job_socket *js)
{
	uint64_t d1 = 0, d2 = 0;

	GD_VEC_EACH(a->job_sockets, const struct gd_job_socket, q) {
		if (!q->inode.ok || q->inode.v != js->inode.v)
			continue;
		gd_counter_delta(q->bytes_acked, js->bytes_acked, &d1);
		gd_counter_delta(q->bytes_received, js->bytes_received, &d2);
		return d1 + d2 > 0;
	}
	return (js->bytes_acked.ok && js->bytes_acked.v) || (js->bytes_received.ok && js->bytes_received.v);
}

static const struct gd_source *source(const struct gd_snapshot *s, const char *name)
{
	GD_VEC_EACH(s->sources, const struct gd_source, src)
		if (strcmp(src->name, name) == 0)
			return src;
	return NULL;
}

enum gd_verdict gd_rule_net_remote_data_latency(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	const struct gd_source *src;
	double th = TH(rc, NET_REMOTE_RTT_MS);
	size_t fired = 0;

	if (!b || rc->w->n < 2)
		return gd_rule_unknown(rc, "%s", _("needs a window"));
	src = source(b, "job_sockets");
	if (src && strcmp(src->status, "ok") != 0 && strcmp(src->status, "partial") != 0)
		return gd_rule_unknown(rc, _("the GPU jobs' TCP connections were not read: job_sockets %s: %s"), src->status,
				       src->reason[0] ? src->reason : src->status);
	GD_VEC_EACH(b->procs, const struct gd_proc, p) {
		const struct gd_job_socket *worst = NULL;
		size_t far = 0;
		struct gd_finding *f;

		if (!p->pid.ok)
			continue;
		GD_VEC_EACH(b->job_sockets, const struct gd_job_socket, js) {
			if (!js->pid.ok || js->pid.v != p->pid.v || !js->rtt_us.ok || !(js->state.ok && js->state.v == 1) ||
			    loopback(js->peer) || (double)js->rtt_us.v / 1e3 < th || !active(a, js))
				continue;
			far++;
			if (!worst || js->rtt_us.v > worst->rtt_us.v)
				worst = js;
		}
		if (!worst)
			continue;
		f = gd_finding_add(rc, out, rc->rule->severity, "pid %llu (%s)", (unsigned long long)p->pid.v, p->comm);
		gd_finding_summary(f, P_("pid %llu (%s) of a GPU job moves data over %zu TCP connection with a round-trip "
					 "time of %g ms or more; the farthest, to %s, at %.1f ms (lowest seen %.2f ms): every "
					 "request waits on the distance.",
					 "pid %llu (%s) of a GPU job moves data over %zu TCP connections with a round-trip "
					 "time of %g ms or more; the farthest, to %s, at %.1f ms (lowest seen %.2f ms): every "
					 "request waits on the distance.", far),
				   (unsigned long long)p->pid.v, p->comm, far, th, worst->peer, (double)worst->rtt_us.v / 1e3,
				   worst->min_rtt_us.ok ? (double)worst->min_rtt_us.v / 1e3 : (double)worst->rtt_us.v / 1e3);
		gd_finding_ev(f, "rtt_ms", (double)worst->rtt_us.v / 1e3, "ms", th);
		if (worst->min_rtt_us.ok)
			gd_finding_ev(f, "min_rtt_ms", (double)worst->min_rtt_us.v / 1e3, "ms", NAN);
		gd_finding_ev(f, "connections", (double)far, "", NAN);
		gd_finding_ev_text(f, "peer", worst->peer);
		gd_finding_ev_text(f, "local", worst->local);
		fired++;
	}
	return fired ? GD_VERDICT_FIRED : GD_VERDICT_CLEAR;
}
