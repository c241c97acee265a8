/*
 * window.h - the snapshots a rule looks at, and the arithmetic of counters.
 *
 * A window is a series of two or more snapshots in time order (check takes
 * two, --window apart; watch, record and serve feed longer series).  Rates
 * are taken between the first and the last snapshot, whose host.uptime_s
 * gives the elapsed time; a counter that is absent on either side or went
 * backwards (a reboot, a wrap, a re-created device) yields no rate.
 */
#ifndef GD_RULES_WINDOW_H
#define GD_RULES_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snapshot.h"

struct gd_window {
	const struct gd_snapshot *const *snaps;
	size_t n;
};

static inline const struct gd_snapshot *gd_window_first(const struct gd_window *w)
{
	return w->n ? w->snaps[0] : NULL;
}

static inline const struct gd_snapshot *gd_window_last(const struct gd_window *w)
{
	return w->n ? w->snaps[w->n - 1] : NULL;
}

/* Seconds between the first and the last snapshot, or false when they do not
 * say (no uptime, fewer than two snapshots, time not advancing). */
bool gd_window_dt(const struct gd_window *w, double *dt);

/* b - a for a counter; false when either is absent or b < a. */
bool gd_counter_delta(struct gd_u64 a, struct gd_u64 b, uint64_t *d);
/* (b - a) / dt; false as gd_counter_delta, or when dt <= 0. */
bool gd_counter_rate(struct gd_u64 a, struct gd_u64 b, double dt, double *rate);

/* Busy share (0..100) of CPU time between two sets of tick counters:
 * busy = user+nice+system+irq+softirq+steal over the sum with idle and
 * iowait.  Works for the aggregate (struct gd_cpu) and one CPU (gd_cpus). */
bool gd_cpu_busy_pct(const struct gd_cpu *a, const struct gd_cpu *b, double *pct);
bool gd_cpus_busy_pct(const struct gd_cpus *a, const struct gd_cpus *b, double *pct);
/* Share (0..100) of irq+softirq time on one CPU. */
bool gd_cpus_irq_pct(const struct gd_cpus *a, const struct gd_cpus *b, double *pct);

/* Finds the record in prev that matches cur by its string key (a disk name,
 * an interface): FIND_PREV(prev_snap, disks, struct gd_disk, name, d->name). */
#define GD_FIND_PREV(snap, vecname, type, key, value) \
	((const type *)gd_vec_find_str(&(snap)->vecname, sizeof(type), offsetof(type, key), (value)))
#define GD_FIND_PREV_U64(snap, vecname, type, key, value) \
	((const type *)gd_vec_find_u64(&(snap)->vecname, sizeof(type), offsetof(type, key), (value)))

/* The process with that pid and start time in snap (the pair identifies a
 * process across samples, since pids are reused). */
const struct gd_proc *gd_proc_find(const struct gd_snapshot *s, uint64_t pid, uint64_t starttime);

/* True when pid is a GPU job (holds /dev/nvidia<N>) or descends from one. */
bool gd_proc_in_gpu_job(const struct gd_snapshot *s, const struct gd_proc *p);

#endif
