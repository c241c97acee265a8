/*
 * job_verdict.h - which rank(s) hold a multi-node job back: the verdict of
 * `gpudoctor fleet --job ID`, from every rank's time series over a range
 * (fleet gathers them from Prometheus or from recordings; this decides).
 * Pure: no I/O, no clock; unit-tested with hand-built series
 * (tests/unit/test_job_verdict.c).
 *
 * At each step t of the range, with W(r, t) a rank's share of its main and
 * NCCL threads' samples that wait in NCCL:
 *   the others wait   at least 2/3 (others_share) of the ranks on the other
 *                     nodes with a sample (the other ranks, for a one-node
 *                     job) have W >= wait_hi (0.5), or their median M does
 *   r is slow         W(r) < wait_lo (0.2) while the others wait; or, when
 *                     the others wait less (M >= wait_weak, 0.1, 2/3 of them
 *                     at wait_weak / 2 or more, and W(r) at most weak_ratio
 *                     (1/4) of M) for min_steps + 1 judged steps in a row or
 *                     more, with evidence of its own that it is held
 *                     elsewhere: its main thread asleep outside NCCL (state
 *                     S: waiting for its loader, a file) at half of that
 *                     run's steps and at min_steps + 1 at least, or its node
 *                     has a slowing finding (GPU clocks, PCIe, CPU quota or
 *                     heat, input bound, swapping) that at most a third of
 *                     the job's nodes have
 *   r is stuck        the others wait while r's process is gone (no longer
 *                     reported while its node still is), stopped (state T),
 *                     in D state, its GPU lost, or making no progress (its
 *                     main thread under 2% of a core, its GPU under 2% SM
 *                     activity and W < wait_lo)
 * and over the range:
 *   job.rank_stuck    stuck at the last min_steps steps it was judged
 *   job.slow_rank     slow in at least half (sustained) of the steps it was
 *                     judged, or in two or more episodes of min_steps steps
 *                     or more (named with their period when the starts are
 *                     regular: the longest gap at most 1.5 x the shortest);
 *                     not when more than a third of the ranks would be named
 *                     or, sooner, slow at each of the last min_steps + 1
 *                     steps it was judged, the others waiting for it
 *                     (M >= wait_hi) at each
 *   a slow link       none of those, and the TCP connections between the
 *                     job's nodes (links[]) that are slow (a round trip of
 *                     link_rtt, 10 ms, or more and at least link_ratio (4)
 *                     times the median link's) all touch one node, at least
 *                     two of them: its ranks are job.slow_rank's culprits
 *                     (a shaped or failing NIC slows the connections to it
 *                     and from it; the two ends of one link cannot be told
 *                     apart)
 *   no rank stands out  none of those, and in at least half of the steps
 *                     2/3 of all ranks wait: the network or the collective
 *   healthy           otherwise: nothing is said
 * Rank numbers seen on two processes (node, pid) are a conflict, reported and
 * never merged: the verdict is then withheld.  Ranks below WORLD_SIZE never
 * seen are listed, and so are the node ranks with none of their ranks.
 */
#ifndef GD_RULES_JOB_VERDICT_H
#define GD_RULES_JOB_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/vec.h"

/* One rank at one step.  NAN / 0 / false: not known at that step. */
struct gd_jv_point {
	double wait;              /* NCCL share of main+NCCL thread samples, 0..1 */
	double sm;                /* its GPU's SM activity, 0..1 */
	double cpu;               /* its main thread, share of one core */
	char state;               /* its main thread's state letter (R S D T ...) */
	bool seen;                /* its process was reported at this step */
	bool node_up;             /* its node was reported (scraped) at this step */
	bool gpu_lost;
};

struct gd_jv_rank {
	char node[128];           /* instance or host name */
	uint64_t pid;
	long rank, local_rank, node_rank, world_size;  /* -1: unknown */
	char gpu[16];
	struct gd_jv_point *p;    /* nsteps points, owned by the caller */
};

/* An active finding of a node (its own evidence, cited as the cause). */
struct gd_jv_finding {
	char node[128], rule[64], subject[128];
	bool critical;
};

/* A TCP connection of the job between two nodes: the node whose rank holds
 * it, the node its far end is on ("" when no node of the job has that
 * address), and its largest smoothed round trip over the range. */
struct gd_jv_link {
	char node[128], peer_node[128];
	double rtt_s;
};

struct gd_jv_params {
	double wait_hi, wait_lo, others_share, sustained, idle;
	double wait_weak, weak_ratio, link_rtt_s, link_ratio;
	size_t min_steps;
};

struct gd_jv_input {
	size_t nsteps;
	double t0, step_s;        /* the time of step 0 (Unix s) and the spacing */
	const struct gd_jv_rank *ranks;
	size_t n;
	const struct gd_jv_finding *findings;
	size_t nfindings;
	const struct gd_jv_link *links;
	size_t nlinks;
	struct gd_jv_params par;
};

enum gd_jv_kind {
	GD_JV_NO_DATA,            /* no rank had a sample */
	GD_JV_HEALTHY,            /* no rank holds the others back */
	GD_JV_SLOW,               /* job.slow_rank */
	GD_JV_STUCK,              /* job.rank_stuck */
	GD_JV_COLLECTIVE,         /* every rank waits the same: network or collective */
	GD_JV_CONFLICT,           /* one rank number on two processes */
};

/* Why a rank is stuck (English keys; the outputs translate them). */
#define GD_JV_GONE "process gone"
#define GD_JV_STOPPED "stopped (T)"
#define GD_JV_DSTATE "in D state"
#define GD_JV_GPU_LOST "GPU lost"
#define GD_JV_NO_PROGRESS "no progress"

struct gd_jv_row {            /* per rank, in the order of the input */
	double wait, sm, cpu;     /* means over the steps with a sample; NAN none */
	char state;               /* the last known state letter, or 0 */
	size_t judged, slow_steps, stuck_steps, episodes;
	size_t weak_steps;        /* of slow_steps, those judged on the weaker evidence */
	double link_rtt_s;        /* a slow link's culprit: its slowest link's round trip; 0 none */
	double period_s, episode_s;  /* slow periodically: start to start, mean length; 0 none */
	const char *stuck_why;    /* GD_JV_* of its last stuck step, or NULL */
	bool culprit, conflict, gone;
};

struct gd_jv_conflict {
	long rank;
	size_t a, b;              /* indices of two processes claiming it */
};

struct gd_jv {
	enum gd_jv_kind kind;
	const char *rule;         /* "job.slow_rank", "job.rank_stuck" or NULL */
	bool critical;
	struct gd_vec culprits;   /* size_t: indices of the ranks named, ascending */
	double others_wait;       /* median of the other ranks' mean W, 0..1, over the culprits' steps */
	double waiting_share;     /* COLLECTIVE: share of steps where 2/3 of all ranks waited */
	struct gd_jv_row *rows;   /* n */
	size_t n, judged_steps;
	long world_size;          /* the largest WORLD_SIZE reported; -1 none */
	size_t seen_ranks, missing;  /* distinct rank numbers seen; below world_size not seen */
	char missing_ranks[256];  /* "12-15, 40" (cut with "..." when long) */
	char missing_nodes[256];  /* node ranks with none of their ranks seen */
	bool whole_node;          /* the culprits are every seen rank of one node */
	bool slow_link;           /* SLOW: named by its links (link_rtt_s, slow_links, median_link_rtt_s) */
	size_t slow_links;
	double median_link_rtt_s;
	struct gd_vec conflicts;  /* struct gd_jv_conflict */
	struct gd_vec causes;     /* struct gd_jv_finding: the culprits' nodes' own findings,
				     or (COLLECTIVE) every node's net.* findings */
};

void gd_jv_params_default(struct gd_jv_params *p);
/* Judges in into out (released with gd_jv_release). */
void gd_jv_judge(const struct gd_jv_input *in, struct gd_jv *out);
void gd_jv_release(struct gd_jv *v);

/* Cross-node rules: not in gd_rules[] (the single-node engine cannot judge
 * them), looked up by gd_jv_rule_find; title and remedy N_() marked. */
struct gd_jv_rule {
	const char *id, *title, *remedy;
	bool critical;
};
const struct gd_jv_rule *gd_jv_rule_find(const char *id);

#endif
