/*
 * test_rules_net.c - net.errors, net.retransmits, net.saturated,
 * net.link_degraded, net.rdma_down on snapshots built in C: fires, clear,
 * unknown, threshold edges, counters going backwards, overrides.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* An interface with every /proc/net/dev counter at zero but the given ones. */
static struct gd_netif *netif(struct gd_snapshot *s, const char *name, int physical, uint64_t rx_bytes,
			      uint64_t rx_packets, uint64_t tx_bytes, uint64_t tx_packets)
{
	struct gd_netif *n = GD_PUSH(s, netifs, struct gd_netif);

	GD_STRSET(n->name, name);
	gd_u64_set(&n->rx_bytes, rx_bytes);
	gd_u64_set(&n->rx_packets, rx_packets);
	gd_u64_set(&n->tx_bytes, tx_bytes);
	gd_u64_set(&n->tx_packets, tx_packets);
	gd_u64_set(&n->rx_errs, 0);
	gd_u64_set(&n->rx_drop, 0);
	gd_u64_set(&n->rx_fifo, 0);
	gd_u64_set(&n->rx_frame, 0);
	gd_u64_set(&n->tx_errs, 0);
	gd_u64_set(&n->tx_drop, 0);
	gd_u64_set(&n->tx_fifo, 0);
	gd_u64_set(&n->tx_colls, 0);
	gd_u64_set(&n->tx_carrier, 0);
	gd_u64_set(&n->physical, (uint64_t)physical);
	gd_u64_set(&n->arp_type, strcmp(name, "lo") == 0 ? 772 : 1);
	gd_u64_set(&n->admin_up, 1);
	GD_STRSET(n->operstate, strcmp(name, "lo") == 0 ? "unknown" : "up");
	return n;
}

/* ---- net.errors -------------------------------------------------------- */

static void test_errors_fires(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;
	struct gd_netif *n;

	netif(&f->a, "eth0", 1, 0, 1000, 0, 1000);
	n = netif(&f->b, "eth0", 1, 0, 1001000, 0, 901000);
	n->rx_drop.v = 300;
	n->rx_errs.v = 4;
	/* Loopback with errors is skipped. */
	netif(&f->a, "lo", 0, 0, 0, 0, 0);
	n = netif(&f->b, "lo", 0, 0, 10, 0, 10);
	n->tx_drop.v = 10;
	assert_int_equal(run_rule2("net.errors", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 1);
	g = FINDING(f->out, 0);
	assert_string_equal(g->subject, "eth0");
	NEAR(ev_get(g, "error_pct")->value.v, 100.0 * 304.0 / 1900000.0, 1e-12);
	NEAR(ev_get(g, "error_pct")->threshold.v, 0.01, 1e-12);
	NEAR(ev_get(g, "errors")->value.v, 304, 0);
	NEAR(ev_get(g, "packets")->value.v, 1900000, 0);
	assert_string_equal(ev_get(g, "top_counter")->text, "rx_drop (300)");
	assert_non_null(strstr(g->summary, "mostly rx_drop"));
	assert_non_null(strstr(g->remedy, "ethtool -G eth0"));
}

static void test_errors_clear(void **state)
{
	struct fx *f = *state;

	netif(&f->a, "eth0", 1, 0, 1000, 0, 1000);
	netif(&f->b, "eth0", 1, 0, 1001000, 0, 901000);
	assert_int_equal(run_rule2("net.errors", &f->a, &f->b, NULL, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
}

static void test_errors_unknown(void **state)
{
	struct fx *f = *state;

	netif(&f->a, "lo", 0, 0, 0, 0, 0);
	netif(&f->b, "lo", 0, 0, 10, 0, 10);
	assert_int_equal(run_rule2("net.errors", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&f->out), "/proc/net/dev"));
}

static void test_errors_edge(void **state)
{
	struct fx *f = *state;
	struct gd_findings o;
	struct gd_netif *n;

	/* 100 errors in 10^6 packets: exactly 0.01%. */
	netif(&f->a, "eth0", 1, 0, 0, 0, 0);
	n = netif(&f->b, "eth0", 1, 0, 500000, 0, 500000);
	n->tx_carrier.v = 100;
	assert_int_equal(run_rule2("net.errors", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	assert_string_equal(ev_get(FINDING(f->out, 0), "top_counter")->text, "tx_carrier (100)");
	n->tx_carrier.v = 99;
	gd_findings_init(&o);
	assert_int_equal(run_rule2("net.errors", &f->a, &f->b, NULL, &o), GD_VERDICT_CLEAR);
	assert_int_equal(o.items.n, 0);
	gd_findings_release(&o);
}

static void test_errors_without_packets(void **state)
{
	struct fx *f = *state;
	struct gd_netif *n;

	/* A link that only fails: every event was an error. */
	netif(&f->a, "eth1", 1, 0, 0, 0, 0);
	n = netif(&f->b, "eth1", 1, 0, 0, 0, 0);
	n->rx_frame.v = 3;
	assert_int_equal(run_rule2("net.errors", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	NEAR(ev_get(FINDING(f->out, 0), "error_pct")->value.v, 100.0, 0);
}

static void test_errors_backwards(void **state)
{
	struct fx *f = *state;
	struct gd_netif *n;

	/* The driver was reloaded: counters restart from zero. */
	n = netif(&f->a, "eth0", 1, 0, 9000000, 0, 9000000);
	n->rx_drop.v = 500;
	n = netif(&f->b, "eth0", 1, 0, 9100000, 0, 9100000);
	n->rx_drop.v = 20;
	assert_int_equal(run_rule2("net.errors", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_int_equal(f->out.items.n, 0);
}

static void test_errors_override(void **state)
{
	struct fx *f = *state;
	struct gd_thresholds th;
	struct gd_err err;
	struct gd_netif *n;

	gd_thresholds_init(&th);
	assert_int_equal(gd_thresholds_set(&th, "net.errors.error_pct", "1", &err), 0);
	netif(&f->a, "eth0", 1, 0, 0, 0, 0);
	n = netif(&f->b, "eth0", 1, 0, 500000, 0, 500000);
	n->rx_drop.v = 5000; /* 0.5% */
	assert_int_equal(run_rule2("net.errors", &f->a, &f->b, &th, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(run_rule2("net.errors", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
}

/* ---- net.retransmits --------------------------------------------------- */

static void tcp(struct gd_snapshot *s, uint64_t out_segs, uint64_t retrans, int64_t timeouts)
{
	gd_u64_set(&s->tcp.out_segs, out_segs);
	gd_u64_set(&s->tcp.retrans_segs, retrans);
	if (timeouts >= 0)
		gd_u64_set(&s->tcp.timeouts, (uint64_t)timeouts);
}

static void test_retrans_fires(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;

	tcp(&f->a, 500000, 1000, 30);
	tcp(&f->b, 510000, 1250, 37);
	assert_int_equal(run_rule2("net.retransmits", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 1);
	g = FINDING(f->out, 0);
	assert_string_equal(g->subject, "host");
	NEAR(ev_get(g, "retrans_pct")->value.v, 2.5, 1e-12);
	NEAR(ev_get(g, "retrans_pct")->threshold.v, 1.0, 0);
	NEAR(ev_get(g, "retrans_segs")->value.v, 250, 0);
	NEAR(ev_get(g, "out_segs")->value.v, 10000, 0);
	NEAR(ev_get(g, "out_segs")->threshold.v, 200, 0);
	NEAR(ev_get(g, "timeouts")->value.v, 7, 0);
	assert_non_null(strstr(g->summary, "in this network namespace"));
	assert_non_null(strstr(g->summary, "2.50%"));
}

static void test_retrans_no_timeouts(void **state)
{
	struct fx *f = *state;

	/* Kernels or namespaces without TcpExt: no timeouts evidence. */
	tcp(&f->a, 0, 0, -1);
	tcp(&f->b, 10000, 250, -1);
	assert_int_equal(run_rule2("net.retransmits", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(FINDING(f->out, 0)->nev, 3);
}

static void test_retrans_clear(void **state)
{
	struct fx *f = *state;

	tcp(&f->a, 500000, 1000, 30);
	tcp(&f->b, 510000, 1050, 30);
	assert_int_equal(run_rule2("net.retransmits", &f->a, &f->b, NULL, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
}

static void test_retrans_unknown(void **state)
{
	struct fx *f = *state;

	assert_int_equal(run_rule2("net.retransmits", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&f->out), "/proc/net/snmp"));
}

static void test_retrans_edges(void **state)
{
	struct fx *f = *state;
	struct gd_findings o;

	/* 200 segments (the minimum) with 2 retransmitted: 1%, fires. */
	tcp(&f->a, 0, 0, 0);
	tcp(&f->b, 200, 2, 0);
	assert_int_equal(run_rule2("net.retransmits", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	/* 99 of 10000: 0.99%. */
	tcp(&f->b, 10000, 99, 0);
	gd_findings_init(&o);
	assert_int_equal(run_rule2("net.retransmits", &f->a, &f->b, NULL, &o), GD_VERDICT_CLEAR);
	gd_findings_release(&o);
	/* 199 segments: too few to judge, even with 50% retransmitted. */
	tcp(&f->b, 199, 100, 0);
	gd_findings_init(&o);
	assert_int_equal(run_rule2("net.retransmits", &f->a, &f->b, NULL, &o), GD_VERDICT_CLEAR);
	assert_int_equal(o.items.n, 0);
	gd_findings_release(&o);
}

static void test_retrans_backwards(void **state)
{
	struct fx *f = *state;

	tcp(&f->a, 900000, 5000, 0);
	tcp(&f->b, 10000, 2500, 0);
	assert_int_equal(run_rule2("net.retransmits", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_int_equal(f->out.items.n, 0);
}

static void test_retrans_override(void **state)
{
	struct fx *f = *state;
	struct gd_thresholds th;
	struct gd_err err;

	gd_thresholds_init(&th);
	assert_int_equal(gd_thresholds_set(&th, "net.retransmits.retrans_pct", "5", &err), 0);
	tcp(&f->a, 0, 0, 0);
	tcp(&f->b, 10000, 250, 0);
	assert_int_equal(run_rule2("net.retransmits", &f->a, &f->b, &th, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(gd_thresholds_set(&th, "net.retransmits.min_out_segs", "20000", &err), 0);
	assert_int_equal(gd_thresholds_set(&th, "net.retransmits.retrans_pct", "1", &err), 0);
	assert_int_equal(run_rule2("net.retransmits", &f->a, &f->b, &th, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
}

/* ---- net.saturated ----------------------------------------------------- */

static void test_saturated_fires(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;
	struct gd_netif *n;

	/* The header's example: 5.9e9 bytes in 2.0 s on a 25G link. */
	netif(&f->a, "eth0", 1, 1000, 0, 1000, 0);
	n = netif(&f->b, "eth0", 1, 1000 + 5900000000ULL, 0, 1000 + 100000000, 0);
	gd_u64_set(&n->speed_mbps, 25000);
	/* A bridge at "100%" of a made-up speed is virtual: ignored. */
	netif(&f->a, "br0", 0, 0, 0, 0, 0);
	n = netif(&f->b, "br0", 0, 9000000000ULL, 0, 0, 0);
	gd_u64_set(&n->speed_mbps, 10);
	assert_int_equal(run_rule2("net.saturated", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 1);
	g = FINDING(f->out, 0);
	assert_string_equal(g->subject, "eth0");
	NEAR(ev_get(g, "rx_gbps")->value.v, 23.6, 1e-9);
	NEAR(ev_get(g, "tx_gbps")->value.v, 0.4, 1e-9);
	NEAR(ev_get(g, "speed_gbps")->value.v, 25.0, 0);
	NEAR(ev_get(g, "util_pct")->value.v, 94.4, 1e-9);
	NEAR(ev_get(g, "util_pct")->threshold.v, 90.0, 0);
	assert_non_null(strstr(g->summary, "94% of its 25 Gb/s link"));
}

static void test_saturated_tx(void **state)
{
	struct fx *f = *state;
	struct gd_netif *n;

	netif(&f->a, "ens1f0", 1, 0, 0, 0, 0);
	n = netif(&f->b, "ens1f0", 1, 0, 0, 2450000000ULL, 0); /* 9.8 Gb/s out */
	gd_u64_set(&n->speed_mbps, 10000);
	assert_int_equal(run_rule2("net.saturated", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	NEAR(ev_get(FINDING(f->out, 0), "util_pct")->value.v, 98.0, 1e-9);
}

static void test_saturated_clear(void **state)
{
	struct fx *f = *state;
	struct gd_netif *n;

	netif(&f->a, "eth0", 1, 0, 0, 0, 0);
	n = netif(&f->b, "eth0", 1, 625000000, 0, 625000000, 0); /* 2.5 Gb/s: 10% */
	gd_u64_set(&n->speed_mbps, 25000);
	assert_int_equal(run_rule2("net.saturated", &f->a, &f->b, NULL, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
}

static void test_saturated_unknown(void **state)
{
	struct fx *f = *state;

	/* Link down: the kernel reports no speed (-1, stored as absent). */
	netif(&f->a, "eth0", 1, 0, 0, 0, 0);
	netif(&f->b, "eth0", 1, 625000000, 0, 625000000, 0);
	assert_int_equal(run_rule2("net.saturated", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&f->out), "speed"));
}

static void test_saturated_edge(void **state)
{
	struct fx *f = *state;
	struct gd_findings o;
	struct gd_netif *n;

	/* 90% of 25 Gb/s for 2 s = 5.625e9 bytes. */
	netif(&f->a, "eth0", 1, 0, 0, 0, 0);
	n = netif(&f->b, "eth0", 1, 5625000000ULL, 0, 0, 0);
	gd_u64_set(&n->speed_mbps, 25000);
	assert_int_equal(run_rule2("net.saturated", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	n->rx_bytes.v -= 1;
	gd_findings_init(&o);
	assert_int_equal(run_rule2("net.saturated", &f->a, &f->b, NULL, &o), GD_VERDICT_CLEAR);
	gd_findings_release(&o);
}

static void test_saturated_backwards(void **state)
{
	struct fx *f = *state;
	struct gd_netif *n;

	netif(&f->a, "eth0", 1, 9000000000000ULL, 0, 0, 0);
	n = netif(&f->b, "eth0", 1, 6000000000ULL, 0, 0, 0);
	gd_u64_set(&n->speed_mbps, 25000);
	assert_int_equal(run_rule2("net.saturated", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_int_equal(f->out.items.n, 0);
}

static void test_saturated_override(void **state)
{
	struct fx *f = *state;
	struct gd_thresholds th;
	struct gd_err err;
	struct gd_netif *n;

	gd_thresholds_init(&th);
	assert_int_equal(gd_thresholds_set(&th, "net.saturated.util_pct", "95", &err), 0);
	netif(&f->a, "eth0", 1, 0, 0, 0, 0);
	n = netif(&f->b, "eth0", 1, 5900000000ULL, 0, 0, 0); /* 94.4% */
	gd_u64_set(&n->speed_mbps, 25000);
	assert_int_equal(run_rule2("net.saturated", &f->a, &f->b, &th, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
}

/* ---- net.link_degraded (one snapshot) ---------------------------------- */

static struct gd_netif *mklink(struct gd_snapshot *s, const char *name, int admin_up, const char *oper,
			     int64_t speed, int64_t max_speed)
{
	struct gd_netif *n = netif(s, name, 1, 0, 0, 0, 0);

	n->admin_up.v = (uint64_t)admin_up;
	GD_STRSET(n->operstate, oper);
	if (speed >= 0)
		gd_u64_set(&n->speed_mbps, (uint64_t)speed);
	if (max_speed >= 0)
		gd_u64_set(&n->max_speed_mbps, (uint64_t)max_speed);
	return n;
}

static void test_link_fires_slow(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;

	mklink(&f->a, "eth0", 1, "up", 25000, 100000);
	assert_int_equal(run_rule2("net.link_degraded", &f->a, NULL, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 1);
	g = FINDING(f->out, 0);
	assert_string_equal(g->subject, "eth0");
	assert_int_equal(g->severity, GD_SEV_WARNING);
	NEAR(ev_get(g, "speed_mbps")->value.v, 25000, 0);
	NEAR(ev_get(g, "speed_mbps")->threshold.v, 100000, 0);
	NEAR(ev_get(g, "max_speed_mbps")->value.v, 100000, 0);
	assert_non_null(strstr(g->summary, "25000 Mb/s"));
}

static void test_link_fires_down(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;

	mklink(&f->a, "eth1", 1, "down", -1, 100000);
	mklink(&f->a, "eth2", 1, "lowerlayerdown", -1, -1);
	mklink(&f->a, "eth3", 0, "down", -1, 100000); /* switched off on purpose */
	assert_int_equal(run_rule2("net.link_degraded", &f->a, NULL, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 2);
	g = FINDING(f->out, 0);
	assert_string_equal(g->subject, "eth1");
	assert_non_null(strstr(g->summary, "link down"));
	assert_string_equal(ev_get(g, "operstate")->text, "down");
	assert_string_equal(ev_get(FINDING(f->out, 1), "operstate")->text, "lowerlayerdown");
}

static void test_link_clear(void **state)
{
	struct fx *f = *state;

	mklink(&f->a, "eth0", 1, "up", 100000, 100000);
	mklink(&f->a, "eth1", 1, "up", 25000, -1); /* no ethtool maximum: state only */
	assert_int_equal(run_rule2("net.link_degraded", &f->a, NULL, NULL, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
}

static void test_link_edge(void **state)
{
	struct fx *f = *state;
	struct gd_netif *n = mklink(&f->a, "eth0", 1, "up", 99999, 100000);

	assert_int_equal(run_rule2("net.link_degraded", &f->a, NULL, NULL, &f->out), GD_VERDICT_FIRED);
	n->speed_mbps.v = 100000;
	gd_findings_release(&f->out);
	gd_findings_init(&f->out);
	assert_int_equal(run_rule2("net.link_degraded", &f->a, NULL, NULL, &f->out), GD_VERDICT_CLEAR);
}

static void test_link_unknown(void **state)
{
	struct fx *f = *state;
	struct gd_netif *n;

	netif(&f->a, "lo", 0, 0, 0, 0, 0);
	n = netif(&f->a, "veth1a2b", 0, 0, 0, 0, 0);
	GD_STRSET(n->operstate, "down");
	assert_int_equal(run_rule2("net.link_degraded", &f->a, NULL, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&f->out), "operstate"));
}

static void test_link_uses_last_snapshot(void **state)
{
	struct fx *f = *state;

	mklink(&f->a, "eth0", 1, "down", -1, 100000);
	mklink(&f->b, "eth0", 1, "up", 100000, 100000);
	assert_int_equal(run_rule2("net.link_degraded", &f->a, &f->b, NULL, &f->out), GD_VERDICT_CLEAR);
}

/* ---- net.rdma_down ----------------------------------------------------- */

static struct gd_ib_port *ib(struct gd_snapshot *s, const char *dev, uint64_t port, uint64_t state_code,
			     const char *state_name, uint64_t phys, const char *phys_name)
{
	struct gd_ib_port *p = GD_PUSH(s, ib_ports, struct gd_ib_port);

	GD_STRSET(p->device, dev);
	gd_u64_set(&p->port, port);
	GD_STRSET(p->link_layer, "InfiniBand");
	gd_u64_set(&p->state, state_code);
	GD_STRSET(p->state_name, state_name);
	gd_u64_set(&p->phys_state, phys);
	GD_STRSET(p->phys_state_name, phys_name);
	gd_f64_set(&p->rate_gbps, 400);
	gd_u64_set(&p->symbol_error, 0);
	gd_u64_set(&p->port_rcv_errors, 0);
	gd_u64_set(&p->link_error_recovery, 0);
	gd_u64_set(&p->link_downed, 0);
	gd_u64_set(&p->port_xmit_discards, 0);
	gd_u64_set(&p->local_link_integrity_errors, 0);
	gd_u64_set(&p->excessive_buffer_overrun_errors, 0);
	return p;
}

static void test_rdma_fires_down(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;

	ib(&f->a, "mlx5_0", 1, 4, "ACTIVE", 5, "LinkUp");
	ib(&f->a, "mlx5_1", 1, 1, "DOWN", 3, "Disabled");
	assert_int_equal(run_rule2("net.rdma_down", &f->a, NULL, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 1);
	g = FINDING(f->out, 0);
	assert_string_equal(g->subject, "mlx5_1 port 1");
	assert_int_equal(g->severity, GD_SEV_CRITICAL);
	NEAR(ev_get(g, "state")->value.v, 1, 0);
	NEAR(ev_get(g, "state")->threshold.v, 4, 0);
	NEAR(ev_get(g, "phys_state")->value.v, 3, 0);
	NEAR(ev_get(g, "phys_state")->threshold.v, 5, 0);
	assert_string_equal(ev_get(g, "state_name")->text, "DOWN");
	assert_string_equal(ev_get(g, "phys_state_name")->text, "Disabled");
	assert_non_null(strstr(g->summary, "state DOWN"));
}

static void test_rdma_fires_polling(void **state)
{
	struct fx *f = *state;

	/* ACTIVE is impossible without LinkUp; INIT with Polling: no peer. */
	ib(&f->a, "mlx5_0", 1, 2, "INIT", 2, "Polling");
	assert_int_equal(run_rule2("net.rdma_down", &f->a, NULL, NULL, &f->out), GD_VERDICT_FIRED);
	assert_non_null(strstr(FINDING(f->out, 0)->summary, "Polling"));
}

static void test_rdma_fires_errors(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;
	struct gd_ib_port *p;

	p = ib(&f->a, "mlx5_0", 1, 4, "ACTIVE", 5, "LinkUp");
	p->symbol_error.v = 100;
	p = ib(&f->b, "mlx5_0", 1, 4, "ACTIVE", 5, "LinkUp");
	p->symbol_error.v = 112;
	p->link_downed.v = 1;
	assert_int_equal(run_rule2("net.rdma_down", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 1);
	g = FINDING(f->out, 0);
	assert_int_equal(g->severity, GD_SEV_WARNING);
	assert_string_equal(g->subject, "mlx5_0 port 1");
	NEAR(ev_get(g, "symbol_error")->value.v, 12, 0);
	NEAR(ev_get(g, "link_downed")->value.v, 1, 0);
	assert_int_equal(g->nev, 2);
	assert_non_null(strstr(g->summary, "symbol_error +12, link_downed +1"));
}

static void test_rdma_clear(void **state)
{
	struct fx *f = *state;
	struct gd_ib_port *p;

	p = ib(&f->a, "mlx5_0", 1, 4, "ACTIVE", 5, "LinkUp");
	p->symbol_error.v = 100;
	p->port_xmit_wait.v = 5; /* congestion, not an error */
	p = ib(&f->b, "mlx5_0", 1, 4, "ACTIVE", 5, "LinkUp");
	p->symbol_error.v = 100;
	p->port_xmit_wait.v = 900000;
	assert_int_equal(run_rule2("net.rdma_down", &f->a, &f->b, NULL, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(run_rule2("net.rdma_down", &f->b, NULL, NULL, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
}

static void test_rdma_edge(void **state)
{
	struct fx *f = *state;

	/* One symbol error in the window is enough. */
	ib(&f->a, "mlx5_0", 1, 4, "ACTIVE", 5, "LinkUp");
	ib(&f->b, "mlx5_0", 1, 4, "ACTIVE", 5, "LinkUp")->port_rcv_errors.v = 1;
	assert_int_equal(run_rule2("net.rdma_down", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	NEAR(ev_get(FINDING(f->out, 0), "port_rcv_errors")->value.v, 1, 0);
}

static void test_rdma_unknown(void **state)
{
	struct fx *f = *state;

	assert_int_equal(run_rule2("net.rdma_down", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&f->out), "no RDMA devices"));
}

static void test_rdma_backwards(void **state)
{
	struct fx *f = *state;
	struct gd_ib_port *p;

	/* perfquery -R reset the counters between the snapshots. */
	p = ib(&f->a, "mlx5_0", 1, 4, "ACTIVE", 5, "LinkUp");
	p->symbol_error.v = 65535;
	p = ib(&f->b, "mlx5_0", 1, 4, "ACTIVE", 5, "LinkUp");
	p->symbol_error.v = 0;
	assert_int_equal(run_rule2("net.rdma_down", &f->a, &f->b, NULL, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_errors_fires),
		T(test_errors_clear),
		T(test_errors_unknown),
		T(test_errors_edge),
		T(test_errors_without_packets),
		T(test_errors_backwards),
		T(test_errors_override),
		T(test_retrans_fires),
		T(test_retrans_no_timeouts),
		T(test_retrans_clear),
		T(test_retrans_unknown),
		T(test_retrans_edges),
		T(test_retrans_backwards),
		T(test_retrans_override),
		T(test_saturated_fires),
		T(test_saturated_tx),
		T(test_saturated_clear),
		T(test_saturated_unknown),
		T(test_saturated_edge),
		T(test_saturated_backwards),
		T(test_saturated_override),
		T(test_link_fires_slow),
		T(test_link_fires_down),
		T(test_link_clear),
		T(test_link_edge),
		T(test_link_unknown),
		T(test_link_uses_last_snapshot),
		T(test_rdma_fires_down),
		T(test_rdma_fires_polling),
		T(test_rdma_fires_errors),
		T(test_rdma_clear),
		T(test_rdma_edge),
		T(test_rdma_unknown),
		T(test_rdma_backwards),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
