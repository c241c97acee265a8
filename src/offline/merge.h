/*
 * merge.h - merging what the offline outputs said (merge.c), for the loader
 * (load.c).  Internal to src/offline/.
 */
#ifndef GD_OFFLINE_MERGE_H
#define GD_OFFLINE_MERGE_H

#include "model/snapshot.h"
#include "offline/offline.h"

/* Copies into dst every field and record dst lacks and src has; records
 * merge by key (GPUs by UUID or bus id, PCI functions by bus id, GPU
 * processes by pid and GPU). */
void ofl_merge_snapshot(struct gd_snapshot *dst, struct gd_snapshot *src);

/* Merges t, one part of that kind, into o's instants (see merge.c). */
void ofl_merge_part(struct gd_ofl *o, enum gd_ofl_kind kind, struct gd_snapshot *t);

#endif
