/*
 * result.h - the child's results (struct gd_probe_shm) as probe[] rows.
 */
#ifndef GD_PROBE_RESULT_H
#define GD_PROBE_RESULT_H

#include "model/snapshot.h"
#include "probe/probe.h"

/* Appends one row per GPU and probe asked for (and per peer pair that ran)
 * to s->probe; nvml_index[i] is the NVML index of shm->gpu[i].  Returns the
 * rows added.  The caller adds what NVML saw (link, temperature, clocks) and
 * the SKU figures. */
size_t gd_probe_rows(const struct gd_probe_shm *shm, const int *nvml_index, double finished_s,
		     struct gd_snapshot *s);

/* The enum gd_pk of a probe name ("h2d"), or GD_PK_NONE. */
int gd_pk_by_name(const char *name);

#endif
