/*
 * episodes.h - stall episodes over a series of snapshots (CAUSES.md,
 * "Episodes").
 *
 * A stall episode is a stretch of time in which a GPU that holds a job's
 * context is idle (utilisation below episodes.idle_pct) or slowed (SM clock
 * below episodes.slow_clock_pct of its maximum while busy) for at least
 * episodes.min_samples consecutive samples.  A GPU holds a job's context when
 * NVML lists a process on it (gpu_procs[], a pid outside this pid namespace
 * included), or lists nobody while more than
 * gpu.idle_while_job_runs.unseen_mem_bytes of its memory is in use (an unseen
 * process).  /dev/nvidia<minor> descriptors do not count: a CUDA process
 * opens every device node it sees, so a GPU nobody uses is idle by choice.
 *
 * Each GPU's stalled runs are found first; an episode is a maximal stretch
 * of samples covered by the runs of one or more GPUs (the GPUs it hit).
 * A sample stands for the interval that ends at it (NVML's utilisation is a
 * share of the period just before the call), so an episode over samples
 * a..b starts at sample a, ends at sample b and lasts
 * uptime(b) - uptime(a) + the interval before a (after a, for the first
 * sample of the series): eight idle samples one second apart last 8 s.
 *
 * The findings active during an episode are those of the rule engine run
 * over the samples a-1 .. b+1 (the episode and one sample either side).  Its
 * cause is the most severe of them that is at least a warning (registry order
 * within a severity), or none.
 *
 * Episodes repeat with a period when there are at least
 * episodes.periodic_min of them and every gap between consecutive starts is
 * within max(period_tolerance_pct of the median gap, the median sample
 * interval) of the median gap; the period is the median gap.  When all
 * episodes together do not repeat, those of the most frequent cause are
 * tried alone (a checkpoint every 60 s among unrelated slowdowns).
 *
 * Worked example: samples 1 s apart; gpu0 and gpu1 hold contexts; both read
 * 2% utilisation at uptime 110..117 (8 samples) and 170..177, 230..237:
 * three episodes of 8.0 s hitting gpu0-1, gaps 60 s and 60 s: periodic,
 * every 60 s.
 *
 * For the exporter (serve): gd_episodes_detect() over its window, with
 * GD_EP_NO_FINDINGS when only the counts are wanted, gives per GPU the
 * number of episodes and the stalled seconds (episodes.gpus[]).  It is pure:
 * no I/O, no state beyond the struct the caller owns.
 */
#ifndef GD_RULES_EPISODES_H
#define GD_RULES_EPISODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules/rule.h"

/* What a stalled GPU sample was; episodes carry the union of their samples'. */
enum gd_ep_state { GD_EP_NONE = 0, GD_EP_IDLE = 1, GD_EP_SLOW = 2 };

#define GD_EP_MAX_FINDINGS 6
#define GD_EP_MAX_GPUS 64     /* NVML indices 0..63 are tracked */

struct gd_ep_finding {
	const char *id;            /* static: the rule's id */
	enum gd_severity severity;
	char subject[64];
	char summary[256];
};

struct gd_episode {
	size_t first, last;        /* indices in the window of the first and last stalled sample */
	double start_s, end_s;     /* their host.uptime_s */
	struct gd_f64 start_wall_s;/* host.wall_time_s of the first, when known */
	double duration_s;
	uint64_t gpus;             /* bit i: NVML index i was stalled in it */
	unsigned kinds;            /* GD_EP_IDLE | GD_EP_SLOW */
	bool open;                 /* it reaches the last sample: still going */
	const char *cause;         /* id of the explaining finding, or NULL */
	size_t nfindings;
	struct gd_ep_finding findings[GD_EP_MAX_FINDINGS];
};

/* Per GPU: its own stalled runs (for serve's counters). */
struct gd_ep_gpu {
	unsigned index;            /* NVML index */
	size_t episodes;           /* stalled runs of this GPU */
	double stalled_s;          /* their total length */
};

struct gd_episodes {
	struct gd_vec items;       /* struct gd_episode, in time order */
	struct gd_vec gpus;        /* struct gd_ep_gpu, GPUs seen holding a context, by index */
	bool periodic;
	double period_s;           /* the median gap between starts, when periodic */
	double period_dev_s;       /* the largest deviation of a gap from it */
	const char *period_cause;  /* NULL: all episodes repeat; else only those with this cause do */
	size_t samples;            /* snapshots looked at */
};

void gd_episodes_init(struct gd_episodes *e);
void gd_episodes_release(struct gd_episodes *e);

/* Skip the rule engine per episode (cause and findings stay empty). */
#define GD_EP_NO_FINDINGS 1u

/* Finds the episodes of the window (time order; n >= 2 for any episode) into
 * e (initialised by the caller; previous contents are released).  Returns the
 * number of episodes. */
size_t gd_episodes_detect(const struct gd_window *w, const struct gd_thresholds *th, unsigned flags,
			  struct gd_episodes *e);

/*
 * The same over a series that streams past one snapshot at a time (report
 * of a long recording), holding per sample only its times and one byte per
 * GPU (about 24 + GPUs bytes), and the episodes found.  Push each snapshot
 * with the window of the last snapshots the caller keeps (recent, ending
 * with the new one; base: the index in the series of recent->snaps[0]).
 * A sample's stall is settled min_samples - 1 samples after it, so an
 * episode ends when its next sample is settled: its findings are the
 * engine's over samples first-1 .. last+1 as gd_episodes_detect's, cut to
 * the snapshots recent still holds then (an episode longer than the
 * caller's window: the findings of its end).  With every snapshot in
 * recent, the result is gd_episodes_detect's.
 */
struct gd_ep_stream;
struct gd_ep_stream *gd_ep_stream_new(const struct gd_thresholds *th, unsigned flags);
void gd_ep_stream_free(struct gd_ep_stream *es);
/* False when out of memory (the episodes are then incomplete). */
bool gd_ep_stream_push(struct gd_ep_stream *es, const struct gd_window *recent, size_t base);
/* Settles the rest and fills e (initialised by the caller; previous
 * contents are released) as gd_episodes_detect does; recent and base as
 * for the last push.  Returns the number of episodes. */
size_t gd_ep_stream_finish(struct gd_ep_stream *es, const struct gd_window *recent, size_t base,
			   struct gd_episodes *e);

/* Whether the starts of eps[0..k) (time order) repeat with a period, as
 * defined above; step is the sampling interval.  For callers that keep
 * episodes longer than their window (watch). */
bool gd_episodes_period(const struct gd_episode *eps, size_t k, double step, const struct gd_thresholds *th,
			double *period_s, double *dev_s);

/* True when g holds a job's context as defined above (rule_gpu_pci.h's
 * gpci_users: listed, or an unseen user): the GPUs episodes are kept for. */
bool gd_gpu_in_use(const struct gd_snapshot *s, const struct gd_gpu *g, const struct gd_thresholds *th);
/* The stall state of one GPU in one snapshot (GD_EP_NONE when it holds no
 * job's context as defined above, is lost, or its utilisation is unknown). */
enum gd_ep_state gd_gpu_stall_state(const struct gd_snapshot *s, const struct gd_gpu *g,
				    const struct gd_thresholds *th);
/* Length of the stretch over samples a..b of the window, as defined above;
 * 0 when the uptimes do not say. */
double gd_ep_span(const struct gd_window *w, size_t a, size_t b);

/* "gpu0-3,6" for a mask; writes into buf and returns it. */
const char *gd_ep_gpus_str(uint64_t mask, char *buf, size_t size);
/* "idle", "slowed" or "idle+slowed". */
const char *gd_ep_kind_str(unsigned kinds);
/* One line: "14:03:12 +8.2 s gpu0-7 idle - io.checkpoint_stall: <summary>"
 * (the time is local wall time, else "up 1234.5 s"). */
const char *gd_episode_format(const struct gd_episode *ep, char *buf, size_t size);

#endif
