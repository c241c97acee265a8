/*
 * rates.c - host rates between two snapshots for timelines (rates.h).
 */
#include "output/rates.h"

#include <stdio.h>
#include <string.h>

#include "rules/window.h"

static bool disk_counts(const struct gd_disk *d)
{
	return d->whole.ok && d->whole.v == 1 && strncmp(d->name, "loop", 4) != 0 &&
	       strncmp(d->name, "ram", 3) != 0 && strncmp(d->name, "zram", 4) != 0;
}

static void iowait(const struct gd_cpu *a, const struct gd_cpu *b, struct gd_f64 *out)
{
	const struct gd_u64 *ta[] = { &a->user_ticks, &a->nice_ticks, &a->system_ticks, &a->idle_ticks,
				      &a->iowait_ticks, &a->irq_ticks, &a->softirq_ticks, &a->steal_ticks };
	const struct gd_u64 *tb[] = { &b->user_ticks, &b->nice_ticks, &b->system_ticks, &b->idle_ticks,
				      &b->iowait_ticks, &b->irq_ticks, &b->softirq_ticks, &b->steal_ticks };
	uint64_t d, total = 0, wait = 0;

	for (size_t i = 0; i < sizeof ta / sizeof ta[0]; i++) {
		if (!gd_counter_delta(*ta[i], *tb[i], &d))
			return;
		total += d;
		if (ta[i] == &a->iowait_ticks)
			wait = d;
	}
	if (total)
		gd_f64_set(out, 100.0 * (double)wait / (double)total);
}

void gd_host_rates(const struct gd_snapshot *a, const struct gd_snapshot *b, struct gd_host_rates *r)
{
	double dt, pct, rd = 0, wr = 0, rx = 0, tx = 0, v;
	bool disks = false, nets = false;

	memset(r, 0, sizeof *r);
	if (!a->host.uptime_s.ok || !b->host.uptime_s.ok || b->host.uptime_s.v <= a->host.uptime_s.v)
		return;
	dt = b->host.uptime_s.v - a->host.uptime_s.v;
	if (gd_cpu_busy_pct(&a->cpu, &b->cpu, &pct))
		gd_f64_set(&r->cpu_busy_pct, pct);
	iowait(&a->cpu, &b->cpu, &r->iowait_pct);
	GD_VEC_EACH(b->disks, const struct gd_disk, d) {
		const struct gd_disk *p;

		if (!disk_counts(d) || !(p = GD_FIND_PREV(a, disks, struct gd_disk, name, d->name)))
			continue;
		if (gd_counter_rate(p->sectors_read, d->sectors_read, dt, &v)) {
			rd += v * 512.0;
			disks = true;
		}
		if (gd_counter_rate(p->sectors_written, d->sectors_written, dt, &v)) {
			wr += v * 512.0;
			disks = true;
		}
	}
	if (disks) {
		gd_f64_set(&r->disk_read_bps, rd);
		gd_f64_set(&r->disk_write_bps, wr);
	}
	GD_VEC_EACH(b->netifs, const struct gd_netif, n) {
		const struct gd_netif *p;

		if (strcmp(n->name, "lo") == 0 || !(p = GD_FIND_PREV(a, netifs, struct gd_netif, name, n->name)))
			continue;
		if (gd_counter_rate(p->rx_bytes, n->rx_bytes, dt, &v)) {
			rx += v;
			nets = true;
		}
		if (gd_counter_rate(p->tx_bytes, n->tx_bytes, dt, &v)) {
			tx += v;
			nets = true;
		}
	}
	if (nets) {
		gd_f64_set(&r->net_rx_bps, rx);
		gd_f64_set(&r->net_tx_bps, tx);
	}
}

const char *gd_fmt_rate(char *buf, size_t size, double bps)
{
	if (bps >= 1e9)
		snprintf(buf, size, "%.1f GB/s", bps / 1e9);
	else if (bps >= 1e6)
		snprintf(buf, size, "%.0f MB/s", bps / 1e6);
	else if (bps >= 1e3)
		snprintf(buf, size, "%.0f kB/s", bps / 1e3);
	else
		snprintf(buf, size, "%.0f B/s", bps);
	return buf;
}
