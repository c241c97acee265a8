/*
 * cpulist.h - the kernel's CPU list format, "0-3,8-11" (bitmap_parselist):
 * Cpus_allowed_list in /proc/<pid>/status, local_cpulist of a PCI device,
 * node<N>/cpulist.  Pure; nothing here allocates.
 */
#ifndef GD_CORE_CPULIST_H
#define GD_CORE_CPULIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/tok.h"

/* The largest CPU number accepted (NR_CPUS is at most 8192 today). */
#define GD_CPULIST_MAX 8191

/* True when s is a CPU list: comma-separated N or N-M (N <= M <=
 * GD_CPULIST_MAX); an empty list is valid (no CPUs). */
bool gd_cpulist_valid(struct gd_slice s);

/* Sets bit c of bits (nbytes long, zeroed first) for every CPU c of the
 * list that fits.  Returns the number of CPUs in the list, or -1 when it is
 * not a CPU list. */
long gd_cpulist_parse(struct gd_slice s, uint8_t *bits, size_t nbytes);

static inline bool gd_cpulist_has(const uint8_t *bits, size_t nbytes, uint64_t cpu)
{
	return cpu / 8 < nbytes && (bits[cpu / 8] >> (cpu % 8)) & 1;
}

#endif
