/*
 * rule_net.c - network rules: net.errors, net.retransmits, net.saturated,
 * net.link_degraded, net.rdma_down.
 *
 * Mechanism.  Distributed training exchanges gradients every step and data
 * loaders may stream from remote storage; a lossy, full or slow link makes
 * every step wait for the slowest transfer.  The kernel counts per interface
 * (/proc/net/dev) packets, errors and drops; TCP counts the segments it had
 * to send again (/proc/net/snmp RetransSegs, per network namespace); sysfs
 * gives the negotiated speed and the operational state; InfiniBand/RoCE ports
 * (/sys/class/infiniband/<dev>/ports/<n>/) give their state and error
 * counters.
 *
 * Evidence and thresholds (thresholds.def, all overridable):
 *   net.errors       Δ(rx errs+drop+fifo+frame, tx errs+drop+fifo+carrier) per
 *                    Δ(rx+tx packets) >= error_pct (0.01%): a healthy link
 *                    loses less than one packet in 10^4; TCP's throughput
 *                    falls with the square root of the loss rate.
 *   net.retransmits  ΔRetransSegs / ΔOutSegs >= retrans_pct (1%), once at least
 *                    min_out_segs (200) segments left in the window (a ratio of
 *                    a handful of segments means nothing).
 *   net.saturated    max(rx, tx) bits/s >= util_pct (90%) of the link speed.
 *   net.link_degraded  a physical interface administratively up whose link is
 *                    down, or that negotiated less than the fastest speed it
 *                    supports (a bad cable or port renegotiates 100G to 25G).
 *   net.rdma_down    a port not ACTIVE (state 4) or not LinkUp (phys_state 5):
 *                    critical, NCCL falls back to TCP or stops; over a window,
 *                    rising error counters: warning.
 *
 * Worked example: eth0 at 25000 Mb/s received 5.9e9 bytes in 2.0 s: 23.6
 * Gb/s, 94% of the link -> "eth0 carried 23.6 Gb/s in, 0.4 Gb/s out over
 * 2.0 s: 94% of its 25 Gb/s link (threshold 90%)."  Its rx_drop rose by 310
 * over 1.9e6 packets: 0.016% -> net.errors names rx_drop as the main
 * contributor.
 */
#include "rules/rules.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"

#define IB_STATE_ACTIVE 4
#define IB_PHYS_LINKUP 5

static bool is_loopback(const struct gd_netif *n)
{
	/* ARPHRD_LOOPBACK is 772. */
	return strcmp(n->name, "lo") == 0 || (n->arp_type.ok && n->arp_type.v == 772);
}

static bool is_physical(const struct gd_netif *n)
{
	return n->physical.ok && n->physical.v == 1 && !is_loopback(n);
}

/* ---- net.errors -------------------------------------------------------- */

/* A named gd_u64 counter of a record (gd_netif, gd_ib_port), by offset. */
struct counter_field {
	const char *name;
	size_t off;
};

static struct gd_u64 counter_at(const void *rec, size_t off)
{
	struct gd_u64 v;

	memcpy(&v, (const char *)rec + off, sizeof v);
	return v;
}

static const struct counter_field err_counters[] = {
	{ "rx_errs", offsetof(struct gd_netif, rx_errs) },
	{ "rx_drop", offsetof(struct gd_netif, rx_drop) },
	{ "rx_fifo", offsetof(struct gd_netif, rx_fifo) },
	{ "rx_frame", offsetof(struct gd_netif, rx_frame) },
	{ "tx_errs", offsetof(struct gd_netif, tx_errs) },
	{ "tx_drop", offsetof(struct gd_netif, tx_drop) },
	{ "tx_fifo", offsetof(struct gd_netif, tx_fifo) },
	{ "tx_carrier", offsetof(struct gd_netif, tx_carrier) },
};
#define N_ERR_COUNTERS (sizeof err_counters / sizeof err_counters[0])

/* Sums the error deltas of one interface; false when a counter present on
 * both sides went backwards or none is present at all. */
static bool netif_errors(const struct gd_netif *a, const struct gd_netif *b, uint64_t *errors, size_t *top,
			 uint64_t *top_d)
{
	size_t present = 0;

	*errors = 0;
	*top_d = 0;
	*top = 0;
	for (size_t i = 0; i < N_ERR_COUNTERS; i++) {
		struct gd_u64 ca = counter_at(a, err_counters[i].off), cb = counter_at(b, err_counters[i].off);
		uint64_t d;

		if (!ca.ok || !cb.ok)
			continue;
		if (!gd_counter_delta(ca, cb, &d))
			return false;
		present++;
		*errors += d;
		if (d > *top_d) {
			*top_d = d;
			*top = i;
		}
	}
	return present > 0;
}

enum gd_verdict gd_rule_net_errors(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	const double th = rc->th->v[GD_TH_NET_ERRORS_PCT];
	size_t judged = 0, fired = 0;
	double dt;

	if (!gd_window_dt(rc->w, &dt))
		return gd_rule_unknown(rc, "%s", _("needs two snapshots some time apart (uptime)"));
	GD_VEC_EACH(b->netifs, const struct gd_netif, n) {
		const struct gd_netif *p = GD_FIND_PREV(a, netifs, struct gd_netif, name, n->name);
		uint64_t drx, dtx, errors, packets, top_d;
		struct gd_finding *f;
		char top_txt[96];
		size_t top;
		double pct;

		if (is_loopback(n) || !p || !gd_counter_delta(p->rx_packets, n->rx_packets, &drx) ||
		    !gd_counter_delta(p->tx_packets, n->tx_packets, &dtx) ||
		    !netif_errors(p, n, &errors, &top, &top_d))
			continue;
		judged++;
		packets = drx + dtx;
		if (errors == 0)
			continue;
		/* Errors with no packet at all: everything that happened failed. */
		pct = packets ? 100.0 * (double)errors / (double)packets : 100.0;
		if (pct < th)
			continue;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", n->name);
		/* TRANSLATORS: %1$s the interface, %2$llu errors and drops, %3$llu
		 * packets, %4$.1f s the window, %5$.3f%% their share, %6$g%% the
		 * threshold, %7$s the counter that rose most (rx_drop), %8$llu by how much */
		gd_finding_summary(f, _("%s counted %llu errors and drops in %llu packets over %.1f s: %.3f%% (threshold "
					"%g%%), mostly %s (%llu)."), n->name, (unsigned long long)errors,
				   (unsigned long long)packets, dt, pct, th, err_counters[top].name,
				   (unsigned long long)top_d);
		gd_finding_ev(f, "error_pct", pct, "%", th);
		gd_finding_ev(f, "errors", (double)errors, "packets", NAN);
		gd_finding_ev(f, "packets", (double)packets, "packets", NAN);
		snprintf(top_txt, sizeof top_txt, "%s (%llu)", err_counters[top].name, (unsigned long long)top_d);
		gd_finding_ev_text(f, "top_counter", top_txt);
		if (strstr(err_counters[top].name, "drop") || strstr(err_counters[top].name, "fifo"))
			gd_finding_remedy(f, _("%s drops packets it has no room for: raise its ring buffers (ethtool -g "
						"%s; ethtool -G %s rx N) and spread its interrupts over CPUs."), n->name,
					  n->name, n->name);
		fired++;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (judged == 0)
		return gd_rule_unknown(rc, "%s",
				       _("no interface packet and error counters in both snapshots (/proc/net/dev)"));
	return GD_VERDICT_CLEAR;
}

/* ---- net.retransmits --------------------------------------------------- */

enum gd_verdict gd_rule_net_retransmits(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	const double th = rc->th->v[GD_TH_NET_RETRANS_PCT];
	const double th_segs = rc->th->v[GD_TH_NET_RETRANS_MIN_SEGS];
	uint64_t dout, dretr, dto;
	struct gd_finding *f;
	char to[128] = "";
	double dt, pct;

	if (!gd_window_dt(rc->w, &dt))
		return gd_rule_unknown(rc, "%s", _("needs two snapshots some time apart (uptime)"));
	if (!gd_counter_delta(a->tcp.out_segs, b->tcp.out_segs, &dout) ||
	    !gd_counter_delta(a->tcp.retrans_segs, b->tcp.retrans_segs, &dretr))
		return gd_rule_unknown(rc, "%s", _("no TCP OutSegs/RetransSegs counters rising in both snapshots "
						 "(/proc/net/snmp)"));
	if ((double)dout < th_segs || dout == 0)
		return GD_VERDICT_CLEAR;
	pct = 100.0 * (double)dretr / (double)dout;
	if (pct < th)
		return GD_VERDICT_CLEAR;
	f = gd_finding_add(rc, out, rc->rule->severity, "host");
	if (gd_counter_delta(a->tcp.timeouts, b->tcp.timeouts, &dto))
		/* TRANSLATORS: a clause added to the summary below */
		snprintf(to, sizeof to, _(", %llu retransmission timeouts"), (unsigned long long)dto);
	/* TRANSLATORS: %1$llu of %2$llu segments, %3$.1f s the window, %4$.2f%%
	 * their share, %5$g%% the threshold, %6$s "" or the timeouts clause */
	gd_finding_summary(f, _("TCP in this network namespace retransmitted %llu of %llu segments over %.1f s: %.2f%% "
				"(threshold %g%%)%s."), (unsigned long long)dretr, (unsigned long long)dout, dt, pct, th, to);
	gd_finding_ev(f, "retrans_pct", pct, "%", th);
	gd_finding_ev(f, "retrans_segs", (double)dretr, "segments", NAN);
	gd_finding_ev(f, "out_segs", (double)dout, "segments", th_segs);
	if (to[0])
		gd_finding_ev(f, "timeouts", (double)dto, "", NAN);
	return GD_VERDICT_FIRED;
}

/* ---- net.saturated ----------------------------------------------------- */

enum gd_verdict gd_rule_net_saturated(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	const double th = rc->th->v[GD_TH_NET_SATURATED_PCT];
	size_t judged = 0, fired = 0;
	double dt;

	if (!gd_window_dt(rc->w, &dt))
		return gd_rule_unknown(rc, "%s", _("needs two snapshots some time apart (uptime)"));
	GD_VEC_EACH(b->netifs, const struct gd_netif, n) {
		const struct gd_netif *p = GD_FIND_PREV(a, netifs, struct gd_netif, name, n->name);
		double rx, tx, link_bps, util;
		struct gd_finding *f;

		if (!is_physical(n) || !n->speed_mbps.ok || n->speed_mbps.v == 0 || !p ||
		    !gd_counter_rate(p->rx_bytes, n->rx_bytes, dt, &rx) ||
		    !gd_counter_rate(p->tx_bytes, n->tx_bytes, dt, &tx))
			continue;
		judged++;
		rx *= 8;
		tx *= 8;
		link_bps = (double)n->speed_mbps.v * 1e6;
		util = 100.0 * (rx > tx ? rx : tx) / link_bps;
		if (util < th)
			continue;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", n->name);
		/* TRANSLATORS: %1$s the interface, %2$.1f in, %3$.1f out, %4$.1f s the
		 * window, %5$.0f%% of the link, %6$g its speed, %7$.0f%% the threshold */
		gd_finding_summary(f, _("%s carried %.1f Gb/s in, %.1f Gb/s out over %.1f s: %.0f%% of its %g Gb/s link "
					"(threshold %.0f%%)."), n->name, rx / 1e9, tx / 1e9, dt, util, link_bps / 1e9, th);
		gd_finding_ev(f, "rx_gbps", rx / 1e9, "Gb/s", NAN);
		gd_finding_ev(f, "tx_gbps", tx / 1e9, "Gb/s", NAN);
		gd_finding_ev(f, "speed_gbps", link_bps / 1e9, "Gb/s", NAN);
		gd_finding_ev(f, "util_pct", util, "%", th);
		fired++;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (judged == 0)
		return gd_rule_unknown(rc, "%s", _("no physical interface with a link speed (/sys/class/net/*/speed) and "
						 "byte counters in both snapshots (/proc/net/dev)"));
	return GD_VERDICT_CLEAR;
}

/* ---- net.link_degraded ------------------------------------------------- */

enum gd_verdict gd_rule_net_link_degraded(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	size_t judged = 0, fired = 0;

	if (!b)
		return gd_rule_unknown(rc, "%s", _("no snapshot"));
	GD_VEC_EACH(b->netifs, const struct gd_netif, n) {
		struct gd_finding *f;
		bool down;

		if (!is_physical(n) || !n->admin_up.ok)
			continue;
		if (n->admin_up.v != 1) /* switched off on purpose */
			continue;
		if (!n->operstate[0])
			continue;
		judged++;
		down = strcmp(n->operstate, "down") == 0 || strcmp(n->operstate, "lowerlayerdown") == 0;
		if (down) {
			f = gd_finding_add(rc, out, rc->rule->severity, "%s", n->name);
			/* TRANSLATORS: %1$s the interface, %2$s its operstate (down, lowerlayerdown) */
			gd_finding_summary(f, _("%s: link down although the interface is administratively up (operstate "
						"%s)."), n->name, n->operstate);
			gd_finding_ev_text(f, "operstate", n->operstate);
			if (n->max_speed_mbps.ok)
				gd_finding_ev(f, "max_speed_mbps", (double)n->max_speed_mbps.v, "Mb/s", NAN);
			gd_finding_remedy(f, _("Bring the link up: check the cable or optic, the switch port and its "
						"configuration (ip link show %s; ethtool %s)."), n->name, n->name);
			fired++;
			continue;
		}
		/* The supported maximum comes from ethtool; without it only the
		 * state is judged. */
		if (!n->speed_mbps.ok || !n->max_speed_mbps.ok || n->speed_mbps.v >= n->max_speed_mbps.v)
			continue;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", n->name);
		gd_finding_summary(f, _("%s negotiated %llu Mb/s, below the %llu Mb/s it supports."), n->name,
				   (unsigned long long)n->speed_mbps.v, (unsigned long long)n->max_speed_mbps.v);
		gd_finding_ev(f, "speed_mbps", (double)n->speed_mbps.v, "Mb/s", (double)n->max_speed_mbps.v);
		gd_finding_ev(f, "max_speed_mbps", (double)n->max_speed_mbps.v, "Mb/s", NAN);
		gd_finding_ev_text(f, "operstate", n->operstate);
		fired++;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (judged == 0)
		return gd_rule_unknown(rc, "%s", _("no physical interface with an operational state and admin flag "
						 "(/sys/class/net/*/operstate, flags)"));
	return GD_VERDICT_CLEAR;
}

/* ---- net.rdma_down ----------------------------------------------------- */

static const struct counter_field ib_err_counters[] = {
	{ "symbol_error", offsetof(struct gd_ib_port, symbol_error) },
	{ "port_rcv_errors", offsetof(struct gd_ib_port, port_rcv_errors) },
	{ "link_downed", offsetof(struct gd_ib_port, link_downed) },
	{ "link_error_recovery", offsetof(struct gd_ib_port, link_error_recovery) },
	{ "local_link_integrity_errors", offsetof(struct gd_ib_port, local_link_integrity_errors) },
	{ "excessive_buffer_overrun_errors", offsetof(struct gd_ib_port, excessive_buffer_overrun_errors) },
	{ "port_xmit_discards", offsetof(struct gd_ib_port, port_xmit_discards) },
};
#define N_IB_ERR_COUNTERS (sizeof ib_err_counters / sizeof ib_err_counters[0])

static const struct gd_ib_port *ib_find(const struct gd_snapshot *s, const struct gd_ib_port *p)
{
	GD_VEC_EACH(s->ib_ports, const struct gd_ib_port, q)
		if (strcmp(q->device, p->device) == 0 && q->port.ok == p->port.ok && q->port.v == p->port.v)
			return q;
	return NULL;
}

static void rdma_down_finding(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_ib_port *p)
{
	struct gd_finding *f = gd_finding_add(rc, out, GD_SEV_CRITICAL, "%s port %llu", p->device,
					      (unsigned long long)p->port.v);
	char st[48] = "?", ph[48] = "?";

	/* "1: DOWN" in sysfs: the name when the collector kept it, else the code. */
	if (p->state_name[0])
		snprintf(st, sizeof st, "%s", p->state_name);
	else if (p->state.ok)
		snprintf(st, sizeof st, "%llu", (unsigned long long)p->state.v);
	if (p->phys_state_name[0])
		snprintf(ph, sizeof ph, "%s", p->phys_state_name);
	else if (p->phys_state.ok)
		snprintf(ph, sizeof ph, "%llu", (unsigned long long)p->phys_state.v);
	/* TRANSLATORS: %1$s the device (mlx5_0), %2$llu its port, %3$s its state
	 * (DOWN, INIT), %4$s its physical state (Polling, Disabled) */
	gd_finding_summary(f, _("RDMA %s port %llu is not usable: state %s (want ACTIVE), physical state %s (want "
				"LinkUp)."), p->device, (unsigned long long)p->port.v, st, ph);
	if (p->state.ok)
		gd_finding_ev(f, "state", (double)p->state.v, "", IB_STATE_ACTIVE);
	if (p->state_name[0])
		gd_finding_ev_text(f, "state_name", p->state_name);
	if (p->phys_state.ok)
		gd_finding_ev(f, "phys_state", (double)p->phys_state.v, "", IB_PHYS_LINKUP);
	if (p->phys_state_name[0])
		gd_finding_ev_text(f, "phys_state_name", p->phys_state_name);
	if (p->link_layer[0])
		gd_finding_ev_text(f, "link_layer", p->link_layer);
}

enum gd_verdict gd_rule_net_rdma_down(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	size_t judged = 0, fired = 0;
	double dt = 0;
	bool window;

	if (!b || b->ib_ports.n == 0)
		return gd_rule_unknown(rc, "%s", _("no RDMA devices (/sys/class/infiniband is empty or absent)"));
	window = gd_window_dt(rc->w, &dt);
	GD_VEC_EACH(b->ib_ports, const struct gd_ib_port, p) {
		const struct gd_ib_port *prev;
		uint64_t d[N_IB_ERR_COUNTERS];
		bool rising = false;
		struct gd_finding *f;
		char what[256];
		size_t len = 0;

		if (!p->state.ok && !p->phys_state.ok)
			continue;
		judged++;
		if ((p->state.ok && p->state.v != IB_STATE_ACTIVE) ||
		    (p->phys_state.ok && p->phys_state.v != IB_PHYS_LINKUP)) {
			rdma_down_finding(rc, out, p);
			fired++;
			continue;
		}
		prev = window ? ib_find(a, p) : NULL;
		if (!prev)
			continue;
		for (size_t i = 0; i < N_IB_ERR_COUNTERS; i++) {
			/* A counter reset (perfquery -R) goes backwards: no delta. */
			if (!gd_counter_delta(counter_at(prev, ib_err_counters[i].off),
					      counter_at(p, ib_err_counters[i].off), &d[i]))
				d[i] = 0;
			rising |= d[i] > 0;
		}
		if (!rising)
			continue;
		f = gd_finding_add(rc, out, GD_SEV_WARNING, "%s port %llu", p->device, (unsigned long long)p->port.v);
		what[0] = '\0';
		for (size_t i = 0; i < N_IB_ERR_COUNTERS; i++) {
			if (!d[i])
				continue;
			gd_finding_ev(f, ib_err_counters[i].name, (double)d[i], "", NAN);
			if (len < sizeof what)
				len += (size_t)snprintf(what + len, sizeof what - len, "%s%s +%llu", len ? ", " : "",
							ib_err_counters[i].name, (unsigned long long)d[i]);
		}
		/* TRANSLATORS: %1$s the device (mlx5_0), %2$llu its port, %3$.1f s the
		 * window, %4$s the counters that rose (symbol_error +12, ...) */
		gd_finding_summary(f, _("RDMA %s port %llu is up but counted errors over %.1f s: %s."), p->device,
				   (unsigned long long)p->port.v, dt, what);
		gd_finding_remedy(f, _("The link is active but unhealthy: check the cable or optic and the switch port of "
					"%s port %llu (ibstat; perfquery -x), and replace the cable if symbol errors keep "
					"rising."),
				  p->device, (unsigned long long)p->port.v);
		fired++;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (judged == 0)
		return gd_rule_unknown(rc, "%s",
				       _("no RDMA port reports its state (/sys/class/infiniband/*/ports/*/state)"));
	return GD_VERDICT_CLEAR;
}
