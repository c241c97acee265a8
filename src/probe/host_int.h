/*
 * host_int.h - what the host probes' files share: availability setters, the
 * monotonic clock, options with defaults filled in, and the root prefix.
 */
#ifndef GD_PROBE_HOST_INT_H
#define GD_PROBE_HOST_INT_H

#include "core/root.h"
#include "probe/host.h"

void gd__probe_ok(struct gd_probe_avail *a);
void gd__probe_set(struct gd_probe_avail *a, enum gd_probe_state s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
double gd__probe_now(void);
/* Copies o (or the defaults when NULL) with every zero replaced by its
 * default. */
void gd__probe_opts(const struct gd_probe_host_opts *o, struct gd_probe_host_opts *out);
/* Opens the root prefix of o: 0, or -errno with why filled. */
int gd__probe_root(const struct gd_probe_host_opts *o, struct gd_root *root, char *why, size_t wsz);

#endif
