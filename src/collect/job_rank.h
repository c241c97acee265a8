/*
 * job_rank.h - the pure parts of the job_ranks collector (job_rank.c): a
 * process's environment (/proc/<pid>/environ) scanned for a fixed list of
 * keys, the identity they give, the job id, and the pod UID in a cgroup
 * path.  No I/O; unit-tested and fuzzed directly.
 *
 * Only the keys below are ever looked at; the value of any other variable
 * is skipped over without being copied anywhere (an environment holds
 * tokens and passwords).  The scan keeps slices into the caller's buffer;
 * gd_job_rank_from_environ copies the values of the keys it uses into the
 * record, bytes outside printable ASCII as '?'.
 */
#ifndef GD_COLLECT_JOB_RANK_H
#define GD_COLLECT_JOB_RANK_H

#include <stdbool.h>
#include <stddef.h>

#include "core/tok.h"
#include "model/snapshot.h"

/* The keys read, and no other: the launchers' of MULTINODE.md §1
 * (torchrun, Kubeflow's PyTorchJob, DeepSpeed, Slurm, Open MPI, MPICH's
 * PMI), the pod's HOSTNAME and the NCCL settings a diagnosis needs. */
#define GD_ENV_KEYS(X) \
	X(RANK) X(LOCAL_RANK) X(WORLD_SIZE) X(LOCAL_WORLD_SIZE) X(GROUP_RANK) X(NODE_RANK) \
	X(MASTER_ADDR) X(MASTER_PORT) X(TORCHELASTIC_RUN_ID) \
	X(PET_NNODES) X(PET_NODE_RANK) X(PET_NPROC_PER_NODE) X(CROSS_RANK) \
	X(SLURM_JOB_ID) X(SLURM_STEP_ID) X(SLURM_PROCID) X(SLURM_LOCALID) X(SLURM_NODEID) X(SLURM_NTASKS) \
	X(OMPI_COMM_WORLD_RANK) X(OMPI_COMM_WORLD_SIZE) X(OMPI_COMM_WORLD_LOCAL_RANK) X(OMPI_COMM_WORLD_NODE_RANK) \
	X(PMI_RANK) X(PMI_SIZE) X(MPI_LOCALRANKID) \
	X(HOSTNAME) \
	X(NCCL_SOCKET_IFNAME) X(NCCL_IB_HCA) X(NCCL_IB_DISABLE) X(NCCL_P2P_DISABLE) X(NCCL_NET)

#define GD_ENV_ENUM(k) GD_ENV_##k,
enum gd_env_key { GD_ENV_KEYS(GD_ENV_ENUM) GD_ENV_NKEYS };
#undef GD_ENV_ENUM

/* What the scan found: the value of each key (set[k]: the key was there,
 * its value may be empty), and how the buffer was shaped. */
struct gd_environ {
	struct gd_slice v[GD_ENV_NKEYS];
	bool set[GD_ENV_NKEYS];
	size_t entries;     /* KEY=VALUE strings */
	size_t malformed;   /* strings without '=' or with an empty name (a program that wrote over
			     * its environment, as setproctitle does) */
	size_t duplicates;  /* strings of a listed key seen before: the first one is kept, as getenv
			     * and Python's os.environ keep it */
	bool unterminated;  /* the last string has no NUL (a cut read) */
};

/* The name of key k ("RANK"). */
const char *gd_env_key_name(enum gd_env_key k);

/* Scans buf[0..len): NUL-separated KEY=VALUE strings, any bytes, empty
 * strings skipped.  Never fails; e says what was there. */
void gd_environ_scan(const char *buf, size_t len, struct gd_environ *e);

/* Fills r's identity from e: rank, local rank, world size, local world
 * size from the first launcher whose rank key holds a number (RANK, else
 * SLURM_PROCID, else OMPI_COMM_WORLD_RANK, else PMI_RANK; the size and
 * local keys of that launcher only), node_rank from GROUP_RANK, NODE_RANK,
 * PET_NODE_RANK, SLURM_NODEID, OMPI_COMM_WORLD_NODE_RANK (the first
 * number), launcher, master, run id, Slurm's ids, the NCCL settings.
 * Status "ok" when a rank was found, else "no_rank"; a rank key set to
 * something that is not a number is said in r->reason.  Leaves pid, gpus,
 * pod, namespace, pod_uid and job alone (gd_job_rank_set_job after them). */
void gd_job_rank_from_environ(const struct gd_environ *e, struct gd_job_rank *r);

/* r->job from r's fields: the first of slurm:<job>.<step> (slurm:<job>
 * without a step), torchelastic:<run id> (not torchrun's default "none"),
 * master:<addr>:<port>, k8s:<namespace>/<pod>; "" when none applies. */
void gd_job_rank_set_job(struct gd_job_rank *r);

/* The pod UID in a cgroup path of a Kubernetes container: systemd driver
 * ".../kubepods-burstable-pod<uid with _>.slice/...", cgroupfs driver
 * "/kubepods/burstable/pod<uid>/<container>"; written with '-' into uid.
 * False when the path names none. */
bool gd_pod_uid_of_cgroup(const char *path, char *uid, size_t uidsz);

/* True when s is a DNS-1123 label (a namespace: [a-z0-9-], 1 to 63, no '-'
 * at either end) or, with dots allowed, a host name as a pod's is. */
bool gd_dns_name_ok(const char *s, bool dots);

#endif
