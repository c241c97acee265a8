/*
 * probe.h - the GPU probes: what the parent asks, what the child measures.
 *
 * The GPU work runs in a child process forked before any CUDA call (CUDA
 * state does not survive fork, and a kernel or driver call that hangs can
 * only be ended by ending its process).  Parent and child share one
 * anonymous mapping, struct gd_probe_shm: the parent writes the request
 * (which GPUs, which probes, how long), the child writes each result as it
 * is measured, the phase it is in and that phase's deadline.  What the child
 * wrote survives its death, so a probe killed at its deadline still reports
 * every figure measured before it.
 *
 * Figures: bandwidth in GB/s (10^9 bytes of payload per second: bytes
 * copied, not read + written, as nvbandwidth counts), compute in GFLOP/s
 * (an FMA is 2 FLOP; an m16n8k16 mma 4096 per warp).
 */
#ifndef GD_PROBE_PROBE_H
#define GD_PROBE_PROBE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#define GD_PROBE_MAX_GPUS 16

/* The GPU probes, in the order they run. */
enum gd_pk {
	GD_PK_COMPUTE_FP32,
	GD_PK_COMPUTE_BF16,
	GD_PK_MEM_BANDWIDTH,
	GD_PK_MEM_PATTERN,
	GD_PK_H2D,
	GD_PK_D2H,
	GD_PK_H2D_ALL,
	GD_PK_D2H_ALL,
	GD_PK_COUNT
};
#define GD_PK_SETUP (-2)    /* phase: context, modules, buffers */
#define GD_PK_P2P (-3)      /* phase: peer copies (the child's main thread) */
#define GD_PK_NONE (-1)

/* Probe names as the report, -o and Prometheus give them. */
const char *gd_pk_name(int pk);
/* The unit of a probe's figure: "GFLOP/s" or "GB/s". */
const char *gd_pk_unit(int pk);

enum gd_pr_status { GD_PR_NOT_RUN, GD_PR_RUNNING, GD_PR_OK, GD_PR_FAILED, GD_PR_SKIPPED, GD_PR_HUNG };
const char *gd_pr_status_name(int st);

struct gd_probe_res {
	int status;               /* enum gd_pr_status */
	double achieved;          /* GB/s or GFLOP/s; 0 until measured */
	uint64_t errors;          /* words that read back wrong, results that differ */
	uint64_t checked;         /* words or results compared */
	uint64_t digest;          /* compute: FNV-1a of the first result */
	double seconds;           /* GPU time measured */
	char reason[200];         /* why failed or skipped */
};

struct gd_probe_gpu {
	/* in: from the parent */
	char bus_id[32];          /* dddd:bb:dd.f from NVML, lower case */
	/* out: from the child */
	int ordinal;              /* CUDA device ordinal; -1 not found */
	char name[64];
	int cc;                   /* compute capability major*10+minor */
	int sms;
	uint64_t mem_total_bytes, mem_tested_bytes;
	volatile int phase;       /* enum gd_pk, GD_PK_SETUP, GD_PK_NONE */
	volatile double phase_deadline;  /* CLOCK_MONOTONIC seconds */
	char error[300];          /* the GPU could not be probed at all: why */
	struct gd_probe_res res[GD_PK_COUNT];
	struct gd_probe_res p2p[GD_PROBE_MAX_GPUS];  /* to gpu[j] */
};

struct gd_probe_shm {
	/* in */
	int ngpus;
	unsigned want;            /* bit (1u << pk) per probe; GD_PROBE_WANT_P2P */
	double burn_s;            /* seconds of each compute burn */
	double pattern_s;         /* seconds of memory patterns (at least one pass) */
	double budget_s;          /* deadline of one phase beyond its own length */
	double mem_fraction;      /* of free device memory the pattern test takes */
	char cuda_path[256];
	volatile sig_atomic_t stop;  /* the parent asks the child to finish early */
	/* out */
	int driver_version;
	int cuda_devices;
	char fatal[512];          /* the child could not start: no driver, no device */
	char cuda_library[256];   /* the libcuda file loaded ("" none) */
	int cuda_init_error;      /* cuInit's CUresult when it failed (34: the toolkit's stub) */
	volatile int phase;       /* the child's main thread: GD_PK_SETUP, GD_PK_P2P, NONE */
	volatile double phase_deadline;
	volatile int done;
	struct gd_probe_gpu gpu[GD_PROBE_MAX_GPUS];
};
#define GD_PROBE_WANT_P2P (1u << 30)

/* The child's work: opens the driver, probes every gpu[] at once (one
 * thread each), then the peer pairs; returns the exit status for _exit. */
int gd_probe_child(struct gd_probe_shm *shm);

/* CLOCK_MONOTONIC in seconds. */
double gd_probe_now(void);

#endif
