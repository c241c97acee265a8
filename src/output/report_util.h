/*
 * report_util.h - counts of what a snapshot covered, for the closing account.
 */
#ifndef GD_OUTPUT_REPORT_UTIL_H
#define GD_OUTPUT_REPORT_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "model/snapshot.h"

struct gd_report_counts {
	uint64_t cpus;
	size_t disks, netifs, ib_ports, procs, gpu_jobs, cgroups;
};

void gd_report_counts(const struct gd_snapshot *s, struct gd_report_counts *c);

#endif
