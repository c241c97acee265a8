/*
 * xid.h - the Xid catalogue and the per-GPU, per-code summary with its
 * context rules (FACTS.md §3.2-3.5).
 *
 * The summary is built event by event (gd_xid_summary_add, in log order) so
 * that `gpudoctor xid` keeps it in constant memory however long the log, and
 * the gpu.xid rule builds the same from a snapshot's klog[] events.
 *
 * Context:
 *   - a storm: storm_count events of one code on one GPU inside
 *     storm_window_s (default 10 in 60 s) raises info to warning;
 *   - Xid 45 within follow_s (5 s) after another Xid on the GPU, or after
 *     an OOM kill, is secondary (info, "follow the other one");
 *   - after an Xid 79 (or "fallen off the bus") a GPU is lost: what follows
 *     on it is a consequence, reported as such (info);
 *   - 48/63/64/94/95 depend on the row-remap state, which NVML gives
 *     (gd_xid_row_remap_state: NVML's remap state of the GPU at that bus id in
 *     the snapshot, unknown without NVML, said so in the action);
 *   - 154 names the recovery action the driver requires: its latest value
 *     on the GPU decides severity and action.
 */
#ifndef GD_KLOG_XID_H
#define GD_KLOG_XID_H

#include <stdbool.h>
#include <stdint.h>

#include "model/snapshot.h"
#include "model/vec.h"
#include "rules/rule.h"

struct gd_xid_info {
	unsigned code;
	const char *mnemonic;
	const char *meaning;      /* marked N_(): a person reads _(meaning) */
	const char *cls;          /* APP, DRV, HW, MEM, BUS, NVL, THERM, PWR, GSP, info */
	enum gd_severity sev;     /* before context */
	const char *bucket;       /* the catalogue's immediate resolution bucket */
	const char *action;       /* what the operator does; N_(), read as _(action) */
};

/* The catalogue row of code, or NULL when gpudoctor does not know it. */
const struct gd_xid_info *gd_xid_lookup(uint64_t code);

/* Row-remap state of a GPU, as NVML will give it. */
enum gd_remap_state { GD_REMAP_UNKNOWN, GD_REMAP_NONE, GD_REMAP_PENDING, GD_REMAP_FAILED };

/*
 * The hook for the NVML branch: the row-remap state of the GPU at bus_id
 * in snapshot s (NULL: none).  Until NVML fields exist in the snapshot it
 * answers GD_REMAP_UNKNOWN, and the actions of 48/63/64/94/95 say so.
 */
enum gd_remap_state gd_xid_row_remap_state(const struct gd_snapshot *s, const char *bus_id);

#define GD_XID_STORM_RING 64
#define GD_XID_PROCS 160

struct gd_xid_entry {
	char kind[8];             /* "xid" or "sxid" */
	char bus[32];
	char uuid[64];
	uint64_t code;
	uint64_t count;
	struct gd_f64 first_boot, first_wall, last_boot, last_wall;
	char procs[GD_XID_PROCS]; /* "python (4711), torchrun (4700)" */
	size_t nprocs;
	const struct gd_xid_info *info;
	uint64_t secondary;       /* Xid 45s that followed another Xid or a kill */
	uint64_t after_lost;      /* events after the GPU fell off the bus */
	uint64_t storm_max;       /* most events inside one storm window */
	uint64_t fatal;           /* SXid: lines marked Fatal */
	double ring[GD_XID_STORM_RING];
	size_t ring_n;
	struct gd_u64 action_code; /* Xid 154: the latest */
	char action_name[64];
	bool pseudo;              /* a "fallen off the bus" without an Xid 79 line */
	/* after gd_xid_summary_finish */
	enum gd_severity sev;
	char action[384];         /* translated: _(info->action) or a note of the context */
	char notes[512];          /* translated (a Chinese character is three bytes) */
};

struct gd_xid_gpu {
	char bus[32];
	char uuid[64];
	bool lost;
	struct gd_f64 lost_boot, lost_wall;
	uint64_t last_code;
	double last_t;
	bool have_last;
};

struct gd_xid_summary {
	struct gd_vec entries;    /* struct gd_xid_entry */
	struct gd_vec gpus;       /* struct gd_xid_gpu */
	unsigned storm_count;
	double storm_window_s, follow_s;
	double last_kill_t;
	bool have_kill;
	uint64_t other[16];       /* events of each gd_klog_kind (not Xid) */
};

void gd_xid_summary_init(struct gd_xid_summary *sum);
void gd_xid_summary_release(struct gd_xid_summary *sum);
void gd_xid_summary_add(struct gd_xid_summary *sum, const struct gd_klog_event *ev);
/* Applies the context rules and the catalogue; snap gives the row-remap
 * state (may be NULL). */
void gd_xid_summary_finish(struct gd_xid_summary *sum, const struct gd_snapshot *snap);
/* Worst severity over the entries, 0 when none. */
int gd_xid_summary_worst(const struct gd_xid_summary *sum);

#endif
