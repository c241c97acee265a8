/*
 * rates.h - what a timeline shows of the host between two snapshots: CPU
 * busy and iowait shares, disk and network throughput.  Shared by the live
 * view (watch) and the HTML report; computes no verdict.
 */
#ifndef GD_OUTPUT_RATES_H
#define GD_OUTPUT_RATES_H

#include "model/snapshot.h"

struct gd_host_rates {
	struct gd_f64 cpu_busy_pct;   /* all CPUs, 0..100 */
	struct gd_f64 iowait_pct;     /* share of CPU time idle waiting for I/O */
	struct gd_f64 disk_read_bps;  /* bytes/s, whole disks (no loop, ram, zram) */
	struct gd_f64 disk_write_bps;
	struct gd_f64 net_rx_bps;     /* bytes/s, interfaces other than lo */
	struct gd_f64 net_tx_bps;
};

/* Rates from a to b (b later); a field stays absent when either side lacks
 * it, a counter went backwards or the uptime did not advance. */
void gd_host_rates(const struct gd_snapshot *a, const struct gd_snapshot *b, struct gd_host_rates *r);

/* "1.2 GB/s", "350 MB/s", "12 kB/s", "0 B/s" into buf. */
const char *gd_fmt_rate(char *buf, size_t size, double bytes_per_s);

#endif
