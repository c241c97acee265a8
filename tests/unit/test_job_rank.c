/*
 * test_job_rank.c - who each GPU job process is (job_ranks[]): the scan of
 * /proc/<pid>/environ (real launchers' keys, malformed and hostile input,
 * a decoy secret that must never be copied), rank and job-id precedence,
 * the pod's UID, the collector over fixture trees (ranks matched to their
 * GPUs, Kubernetes, gone, other pid namespace, a cut environment), and the
 * record through a recording's line (both readers); serve's metrics of it
 * are in test_out_prom.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "collect/job_rank.h"
#include "model/snapshot_json.h"
#include "testutil.h"
#include "fixture.h"
#include "../snapshot_fast_check.h"

#define DECOY "hunter2-decoy-7f3a"

/* Fails when the bytes of rec hold needle anywhere (a string field, or
 * what is left past a string's NUL). */
static void assert_not_in_record(const void *rec, size_t size, const char *needle)
{
	if (memmem(rec, size, needle, strlen(needle)))
		fail_msg("the record holds \"%s\"", needle);
}

/* Fails when the string hay contains needle. */
#define assert_lacks(hay, needle) \
	do { \
		if (strstr((hay), (needle))) \
			fail_msg("\"%.300s\" contains \"%s\"", (hay), (needle)); \
	} while (0)

/* scan + fill + job id over an environ given as a literal with its NULs. */
static void identity_of(const char *env, size_t n, struct gd_job_rank *r, struct gd_environ *e)
{
	memset(r, 0, sizeof *r);
	gd_environ_scan(env, n, e);
	gd_job_rank_from_environ(e, r);
	gd_job_rank_set_job(r);
}
#define ENV(lit) lit, sizeof(lit) - 1

/* torchrun's worker environment (torch/distributed/elastic/agent/server/
 * local_elastic_agent.py sets these), with secrets beside them. */
static void test_torchrun(void **state)
{
	static const char env[] = "PATH=/usr/bin\0AWS_SECRET_ACCESS_KEY=" DECOY "\0LOCAL_RANK=3\0RANK=11\0"
				  "GROUP_RANK=1\0ROLE_RANK=11\0LOCAL_WORLD_SIZE=8\0WORLD_SIZE=16\0"
				  "MASTER_ADDR=node-01.cluster\0MASTER_PORT=29500\0TORCHELASTIC_RUN_ID=job-42\0"
				  "TORCHELASTIC_RESTART_COUNT=0\0NCCL_SOCKET_IFNAME=ib0\0NCCL_IB_HCA=mlx5_0:1,mlx5_3:1\0"
				  "NCCL_IB_DISABLE=0\0HF_TOKEN=" DECOY "\0SECRET_TOKEN=" DECOY "\0";
	struct gd_job_rank r;
	struct gd_environ e;

	(void)state;
	identity_of(ENV(env), &r, &e);
	assert_string_equal(r.status, "ok");
	assert_string_equal(r.launcher, "torchelastic");
	assert_true(r.rank.ok && r.rank.v == 11);
	assert_true(r.local_rank.ok && r.local_rank.v == 3);
	assert_true(r.world_size.ok && r.world_size.v == 16);
	assert_true(r.local_world_size.ok && r.local_world_size.v == 8);
	assert_true(r.node_rank.ok && r.node_rank.v == 1);
	assert_string_equal(r.job, "torchelastic:job-42");
	assert_string_equal(r.master_addr, "node-01.cluster");
	assert_string_equal(r.nccl_socket_ifname, "ib0");
	assert_string_equal(r.nccl_ib_hca, "mlx5_0:1,mlx5_3:1");
	assert_string_equal(r.nccl_ib_disable, "0");
	assert_string_equal(r.reason, "");
	assert_int_equal(e.entries, 17);
	assert_int_equal(e.malformed, 0);
	assert_false(e.unterminated);
	assert_not_in_record(&r, sizeof r, DECOY);
}

/* srun's task environment: the rank from SLURM_PROCID, the job id from
 * job and step, which win over MASTER_ADDR (a torchrun under srun has both). */
static void test_slurm_and_precedence(void **state)
{
	static const char srun[] = "SLURM_JOB_ID=812345\0SLURM_STEP_ID=0\0SLURM_PROCID=37\0SLURM_LOCALID=5\0"
				   "SLURM_NODEID=4\0SLURM_NTASKS=64\0SLURMD_NODENAME=gpu-112\0MASTER_ADDR=gpu-100\0"
				   "MASTER_PORT=29500\0";
	/* torchrun under srun: RANK wins over SLURM_PROCID, and the sizes
	 * come from torchrun's keys only */
	static const char both[] = "SLURM_JOB_ID=812345\0SLURM_STEP_ID=3\0SLURM_PROCID=4\0SLURM_NTASKS=8\0"
				   "SLURM_NODEID=4\0RANK=37\0LOCAL_RANK=5\0TORCHELASTIC_RUN_ID=none\0";
	static const char ompi[] = "OMPI_COMM_WORLD_RANK=9\0OMPI_COMM_WORLD_SIZE=32\0OMPI_COMM_WORLD_LOCAL_RANK=1\0"
				   "OMPI_COMM_WORLD_NODE_RANK=4\0PMI_RANK=9\0";
	static const char pmi[] = "PMI_RANK=6\0PMI_SIZE=8\0MPI_LOCALRANKID=2\0";
	struct gd_job_rank r;
	struct gd_environ e;

	(void)state;
	identity_of(ENV(srun), &r, &e);
	assert_string_equal(r.launcher, "slurm");
	assert_true(r.rank.v == 37 && r.local_rank.v == 5 && r.world_size.v == 64 && r.node_rank.v == 4);
	assert_false(r.local_world_size.ok);
	assert_true(r.slurm_procid.ok && r.slurm_procid.v == 37 && r.slurm_nodeid.v == 4);
	assert_string_equal(r.job, "slurm:812345.0");

	identity_of(ENV(both), &r, &e);
	assert_string_equal(r.launcher, "torchelastic");
	assert_true(r.rank.v == 37 && r.local_rank.v == 5);
	assert_false(r.world_size.ok);   /* not SLURM_NTASKS: another launcher's count */
	assert_true(r.node_rank.v == 4); /* SLURM_NODEID: no GROUP_RANK */
	assert_string_equal(r.job, "slurm:812345.3");

	identity_of(ENV(ompi), &r, &e);
	assert_string_equal(r.launcher, "openmpi");
	assert_true(r.rank.v == 9 && r.world_size.v == 32 && r.local_rank.v == 1 && r.node_rank.v == 4);
	assert_string_equal(r.job, "");

	identity_of(ENV(pmi), &r, &e);
	assert_string_equal(r.launcher, "pmi");
	assert_true(r.rank.v == 6 && r.world_size.v == 8 && r.local_rank.v == 2);
	assert_false(r.node_rank.ok);
}

/* The job id: torchrun's default run id "none" names nothing; then the
 * master; Kubeflow's and DeepSpeed's launchers from their own keys. */
static void test_job_id_and_launchers(void **state)
{
	static const char standalone[] = "RANK=0\0WORLD_SIZE=2\0TORCHELASTIC_RUN_ID=none\0MASTER_ADDR=127.0.0.1\0"
					 "MASTER_PORT=29400\0";
	static const char kubeflow[] = "MASTER_ADDR=pt-job-master-0\0MASTER_PORT=23456\0RANK=2\0WORLD_SIZE=4\0"
				       "PET_NNODES=4\0PET_NODE_RANK=2\0PET_NPROC_PER_NODE=1\0HOSTNAME=pt-job-worker-1\0";
	static const char deepspeed[] = "RANK=5\0LOCAL_RANK=1\0WORLD_SIZE=8\0CROSS_RANK=1\0CROSS_SIZE=2\0";
	static const char plain[] = "RANK=1\0WORLD_SIZE=2\0MASTER_ADDR=10.0.0.1\0";
	struct gd_job_rank r;
	struct gd_environ e;

	(void)state;
	identity_of(ENV(standalone), &r, &e);
	assert_string_equal(r.job, "master:127.0.0.1:29400");
	assert_string_equal(r.run_id, "none");

	identity_of(ENV(kubeflow), &r, &e);
	assert_string_equal(r.launcher, "kubeflow");
	assert_true(r.node_rank.v == 2 && r.local_world_size.v == 1);
	assert_string_equal(r.job, "master:pt-job-master-0:23456");
	assert_string_equal(r.pod, "");   /* HOSTNAME alone does not make a pod */

	identity_of(ENV(deepspeed), &r, &e);
	assert_string_equal(r.launcher, "deepspeed");

	identity_of(ENV(plain), &r, &e);
	assert_string_equal(r.launcher, "env");
	assert_string_equal(r.job, "");   /* a master without a port: no id */
	GD_STRSET(r.namespace, "team-a");
	GD_STRSET(r.pod, "trainer-7");
	gd_job_rank_set_job(&r);
	assert_string_equal(r.job, "k8s:team-a/trainer-7");
}

/* Malformed environments: strings without '=' or without a name (a
 * program that wrote over its environment), a missing final NUL, empty
 * strings, duplicates (the first wins, as getenv), binary junk in a value,
 * a rank key that is not a number. */
static void test_malformed(void **state)
{
	static const char junk[] = "\0\0python train.py --lr 3e-4   \0=oops\0RANK=4\0RANK=9\0"
				   "MASTER_ADDR=a\x01" "b\xff\0WORLD_SIZE= 8\0LOCAL_RANK=-1\0NODE_RANK=2";
	static const char notnum[] = "RANK=abc\0SLURM_PROCID=2\0SLURM_JOB_ID=7\0";
	static const char none[] = "HOME=/root\0PATH=/bin\0";
	struct gd_job_rank r;
	struct gd_environ e;

	(void)state;
	identity_of(ENV(junk), &r, &e);
	assert_int_equal(e.malformed, 2);
	assert_int_equal(e.duplicates, 1);
	assert_true(e.unterminated);
	assert_true(r.rank.ok && r.rank.v == 4);
	assert_false(r.world_size.ok);   /* " 8": not a number */
	assert_false(r.local_rank.ok);
	assert_true(r.node_rank.ok && r.node_rank.v == 2);   /* the unterminated last string */
	assert_string_equal(r.master_addr, "a?b?");

	identity_of(ENV(notnum), &r, &e);
	assert_string_equal(r.status, "ok");
	assert_string_equal(r.launcher, "slurm");
	assert_true(r.rank.v == 2);
	assert_string_equal(r.reason, "RANK is not a number");

	identity_of(ENV(none), &r, &e);
	assert_string_equal(r.status, "no_rank");
	assert_string_equal(r.launcher, "");

	identity_of("", 0, &r, &e);
	assert_string_equal(r.status, "no_rank");
	assert_int_equal(e.entries, 0);
	identity_of("RANK", 4, &r, &e);   /* a key cut before its '=' */
	assert_int_equal(e.malformed, 1);
	assert_false(r.rank.ok);
}

/* A value longer than its field is cut, never overruns; a huge environ
 * with the keys at its end is scanned whole. */
static void test_long_values(void **state)
{
	size_t big = 3u << 20, n = 0;
	char *env = malloc(big + 4096);
	struct gd_job_rank r;
	struct gd_environ e;

	(void)state;
	assert_non_null(env);
	for (int i = 0; n < big; i++)
		n += (size_t)sprintf(env + n, "JUNK%d=%0200d", i, i) + 1;
	n += (size_t)sprintf(env + n, "MASTER_ADDR=%0300d", 7) + 1;
	n += (size_t)sprintf(env + n, "RANK=63") + 1;
	identity_of(env, n, &r, &e);
	assert_true(r.rank.ok && r.rank.v == 63);
	assert_int_equal(strlen(r.master_addr), sizeof r.master_addr - 1);
	free(env);
}

static void test_pod_uid(void **state)
{
	char uid[64];

	(void)state;
	assert_true(gd_pod_uid_of_cgroup("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-"
					 "pod1b2c3d4e_5f60_4a7b_8c9d_0e1f2a3b4c5d.slice/cri-containerd-abc.scope",
					 uid, sizeof uid));
	assert_string_equal(uid, "1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d");
	assert_true(gd_pod_uid_of_cgroup("/kubepods/burstable/pod1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d/0123abcd",
					 uid, sizeof uid));
	assert_string_equal(uid, "1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d");
	assert_false(gd_pod_uid_of_cgroup("/kubepods/pod1/job", uid, sizeof uid));
	assert_false(gd_pod_uid_of_cgroup("/system.slice/pod1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d", uid, sizeof uid));
	assert_false(gd_pod_uid_of_cgroup("/kubepods/pod1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d0/x", uid, sizeof uid));
	assert_true(gd_dns_name_ok("team-a", false));
	assert_false(gd_dns_name_ok("Team", false));
	assert_false(gd_dns_name_ok("-a", false));
	assert_false(gd_dns_name_ok("a.b", false));
	assert_true(gd_dns_name_ok("trainer-0.svc", true));
	assert_false(gd_dns_name_ok("", true));
}

/* A ranked torchrun process on GPU 3, one denied and one without a rank. */
static void three_ranks(struct gd_snapshot *s)
{
	struct gd_job_rank *r = GD_PUSH(s, job_ranks, struct gd_job_rank);

	gd_u64_set(&r->pid, 4242);
	GD_STRSET(r->status, "ok");
	GD_STRSET(r->job, "torchelastic:abc");
	GD_STRSET(r->launcher, "torchelastic");
	gd_u64_set(&r->rank, 3);
	gd_u64_set(&r->local_rank, 3);
	gd_u64_set(&r->world_size, 16);
	gd_u64_set(&r->node_rank, 0);
	GD_STRSET(r->gpus, "3");
	GD_STRSET(r->run_id, "abc");
	GD_STRSET(r->nccl_ib_hca, "mlx5_0:1,mlx5_1:1");
	r = GD_PUSH(s, job_ranks, struct gd_job_rank);
	gd_u64_set(&r->pid, 4300);
	GD_STRSET(r->status, "denied");
	GD_STRSET(r->reason, "proc/4300/environ: Permission denied");
	GD_STRSET(r->gpus, "1");
	r = GD_PUSH(s, job_ranks, struct gd_job_rank);
	gd_u64_set(&r->pid, 4400);
	GD_STRSET(r->status, "no_rank");
	GD_STRSET(r->gpus, "0,1");
}

/* The section goes through a recording's line and back, on jansson's path
 * and on the fast one alike. */
static void test_job_ranks_roundtrip(void **state)
{
	struct gd_snapshot s, back;
	char *line = NULL, *fast, *want;
	size_t n = 0;
	FILE *m = open_memstream(&line, &n);
	json_error_t jerr;
	json_t *o;
	struct gd_err err;
	const struct gd_job_rank *r;

	(void)state;
	gd_snapshot_init(&s);
	gd_f64_set(&s.host.uptime_s, 10);
	three_ranks(&s);
	assert_non_null(m);
	assert_int_equal(gd_snapshot_write_line(&s, m), 0);
	assert_int_equal(fclose(m), 0);
	assert_contains(line, "\"job_ranks\":[{\"pid\":4242,\"status\":\"ok\"");
	assert_int_equal(fast_check_line(line, n, &fast, &want), 1);
	free(fast);
	free(want);
	o = json_loadb(line, n, JSON_DISABLE_EOF_CHECK, &jerr);
	assert_non_null(o);
	gd_snapshot_init(&back);
	assert_int_equal(gd_snapshot_from_json(o, &back, &err), 0);
	assert_int_equal(back.job_ranks.n, 3);
	r = GD_VEC_AT(back.job_ranks, struct gd_job_rank, 0);
	assert_string_equal(r->job, "torchelastic:abc");
	assert_true(r->rank.ok && r->rank.v == 3 && r->world_size.v == 16 && r->node_rank.ok && r->node_rank.v == 0);
	assert_false(r->slurm_procid.ok);
	assert_string_equal(r->nccl_ib_hca, "mlx5_0:1,mlx5_1:1");
	r = GD_VEC_AT(back.job_ranks, struct gd_job_rank, 1);
	assert_string_equal(r->status, "denied");
	assert_false(r->rank.ok);
	json_decref(o);
	free(line);
	gd_snapshot_release(&back);
	gd_snapshot_release(&s);
}

/* ---- the collector over fixture trees ---------------------------------- */

/* NVML's lists: pid on gpu, for each pair; every GPU's list was read. */
static void listed(struct gd_snapshot *s, const unsigned (*pairs)[2], size_t n, unsigned ngpus)
{
	for (unsigned g = 0; g < ngpus; g++) {
		struct gd_gpu *gpu = GD_PUSH(s, gpus, struct gd_gpu);

		gd_u64_set(&gpu->index, g);
		gd_u64_set(&gpu->nvml_procs, 1);
	}
	for (size_t i = 0; i < n; i++) {
		struct gd_gpu_proc *gp = GD_PUSH(s, gpu_procs, struct gd_gpu_proc);

		gd_u64_set(&gp->gpu, pairs[i][1]);
		gd_u64_set(&gp->pid, pairs[i][0]);
	}
}

static const struct gd_job_rank *rank_of(const struct gd_snapshot *s, uint64_t pid)
{
	GD_VEC_EACH(s->job_ranks, const struct gd_job_rank, r)
		if (r->pid.ok && r->pid.v == pid)
			return r;
	fail_msg("no job_ranks record for pid %llu", (unsigned long long)pid);
	return NULL;
}

/* Ranks matched to the GPUs NVML lists them on (one record per process,
 * its GPUs in order), a process without rank keys, one that exited, one
 * in a pod (its hostname, the namespace behind /run, the UID from its
 * cgroup), and no other variable anywhere in the snapshot's line. */
static void test_collect(void **state)
{
	static const unsigned pairs[][2] = { { 300, 2 }, { 100, 1 }, { 100, 0 }, { 200, 1 }, { 400, 3 }, { 100, 0 } };
	static const char rank0[] = "RANK=0\0LOCAL_RANK=0\0WORLD_SIZE=16\0MASTER_ADDR=10.1.0.1\0MASTER_PORT=29500\0"
				    "GROUP_RANK=0\0DB_PASSWORD=" DECOY "\0";
	static const char pod[] = "RANK=3\0WORLD_SIZE=4\0HOSTNAME=ignored\0TOKEN=" DECOY "\0";
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_proc *p;
	const struct gd_job_rank *r;
	json_t *j;
	char *line;

	(void)state;
	tree_init(&t, "jobrank");
	tree_putn(&t, "proc/100/environ", rank0, sizeof rank0 - 1);
	tree_put(&t, "proc/200/environ", "HOME=/home/a\0PATH=/bin\0");
	tree_putn(&t, "proc/400/environ", pod, sizeof pod - 1);
	tree_put(&t, "proc/400/root/etc/hostname", "trainer-3\n");
	tree_put(&t, "proc/400/root/run/secrets/kubernetes.io/serviceaccount/namespace", "team-a");
	tree_put(&t, "proc/400/root/run/secrets/kubernetes.io/serviceaccount/token", DECOY);
	gd_snapshot_init(&s);
	listed(&s, pairs, sizeof pairs / sizeof pairs[0], 4);
	for (unsigned pid = 100; pid <= 300; pid += 100)
		gd_u64_set(&GD_PUSH(&s, procs, struct gd_proc)->pid, pid);
	p = GD_PUSH(&s, procs, struct gd_proc);
	gd_u64_set(&p->pid, 400);
	GD_STRSET(p->cgroup, "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-"
			     "pod0a1b2c3d_4e5f_6071_8293_a4b5c6d7e8f9.slice/cri-containerd-1.scope");
	assert_int_equal(run(gd_collect_job_ranks, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.job_ranks.n, 4);
	r = GD_VEC_AT(s.job_ranks, struct gd_job_rank, 0);
	assert_true(r->pid.v == 100);   /* by pid */
	assert_string_equal(r->status, "ok");
	assert_string_equal(r->gpus, "0,1");
	assert_string_equal(r->job, "master:10.1.0.1:29500");
	r = rank_of(&s, 200);
	assert_string_equal(r->status, "no_rank");
	assert_string_equal(r->gpus, "1");
	r = rank_of(&s, 300);
	assert_string_equal(r->status, "gone");   /* listed by the process collector, gone since */
	assert_contains(r->reason, "/proc/300/environ");
	r = rank_of(&s, 400);
	assert_string_equal(r->pod, "trainer-3");
	assert_string_equal(r->namespace, "team-a");
	assert_string_equal(r->pod_uid, "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9");
	assert_string_equal(r->job, "k8s:team-a/trainer-3");
	j = gd_snapshot_to_json(&s);
	line = json_dumps(j, JSON_COMPACT);
	assert_non_null(line);
	assert_lacks(line, DECOY);
	assert_lacks(line, "DB_PASSWORD");
	free(line);
	json_decref(j);
	GD_VEC_EACH(s.job_ranks, const struct gd_job_rank, x)
		assert_not_in_record(x, sizeof *x, DECOY);
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* A /proc of another pid namespace than the host's: NVML's pids are the
 * host's, so nothing is read from them; a pid the process list lacks; an
 * environment that cannot be read; each said in the record and the source. */
static void test_other_pidns_and_failed(void **state)
{
	static const unsigned pairs[][2] = { { 100, 0 } }, two[][2] = { { 100, 0 }, { 3810773, 0 } };
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_job_rank *r;

	(void)state;
	tree_init(&t, "jobrank");
	tree_put(&t, "proc/100/environ", "RANK=0");
	tree_link(&t, "pid:[4026532511]", "proc/1/ns/pid");
	gd_snapshot_init(&s);
	listed(&s, pairs, 1, 1);
	assert_int_equal(run(gd_collect_job_ranks, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_contains(err.msg, "1 of 1");
	r = rank_of(&s, 100);
	assert_string_equal(r->status, "other_pidns");
	assert_contains(r->reason, "pid:[4026532511]");
	assert_false(r->rank.ok);
	gd_snapshot_release(&s);
	tree_release(&t);

	/* whose /proc is not known: a pid NVML lists that the process list
	 * does not have is in another pid namespace, or just exited */
	tree_init(&t, "jobrank");
	tree_put(&t, "proc/100/environ", "RANK=0");
	gd_snapshot_init(&s);
	listed(&s, two, 2, 1);
	gd_u64_set(&GD_PUSH(&s, procs, struct gd_proc)->pid, 100);
	assert_int_equal(run(gd_collect_job_ranks, &t.ctx, &s, &err), GD_SRC_OK);   /* said in the record */
	assert_string_equal(rank_of(&s, 100)->status, "ok");
	r = rank_of(&s, 3810773);
	assert_string_equal(r->status, "other_pidns");
	assert_contains(r->reason, "NVML lists pid 3810773");
	gd_snapshot_release(&s);
	tree_release(&t);

	/* the host's /proc: such a pid exited; an environment that cannot
	 * be read (here a directory) is failed */
	tree_init(&t, "jobrank");
	tree_link(&t, "pid:[4026531836]", "proc/1/ns/pid");
	tree_mkdirs(&t, "proc/100/environ", true);
	gd_snapshot_init(&s);
	listed(&s, two, 2, 1);
	gd_u64_set(&GD_PUSH(&s, procs, struct gd_proc)->pid, 100);
	assert_int_equal(run(gd_collect_job_ranks, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	r = rank_of(&s, 100);
	assert_string_equal(r->status, "failed");
	assert_contains(r->reason, "/proc/100/environ");
	assert_string_equal(rank_of(&s, 3810773)->status, "gone");
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* No NVML list: the processes holding /dev/nvidia<N> whose parent does
 * not (a DataLoader worker inherits the descriptors and the environment,
 * and is not a rank); an environment over 4 MiB is read up to there, and
 * that is said. */
static void test_without_nvml_and_cut(void **state)
{
	size_t big = (4u << 20) + 100;
	char *env = malloc(big);
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_proc *p;
	const struct gd_job_rank *r;

	(void)state;
	assert_non_null(env);
	memset(env, 'x', big);
	memcpy(env, "HOME=", 5);
	memcpy(env + big - 8, "\0RANK=6", 8);   /* past the cut */
	tree_init(&t, "jobrank");
	tree_putn(&t, "proc/500/environ", env, big);
	tree_put(&t, "proc/501/environ", "RANK=5");
	free(env);
	gd_snapshot_init(&s);
	p = GD_PUSH(&s, procs, struct gd_proc);
	gd_u64_set(&p->pid, 500);
	gd_u64_set(&p->ppid, 1);
	gd_u64_set(&p->nvidia_fds, 4);
	p = GD_PUSH(&s, procs, struct gd_proc);
	gd_u64_set(&p->pid, 501);
	gd_u64_set(&p->ppid, 500);
	gd_u64_set(&p->nvidia_fds, 4);
	assert_int_equal(run(gd_collect_job_ranks, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.job_ranks.n, 1);
	r = rank_of(&s, 500);
	assert_string_equal(r->gpus, "");
	assert_string_equal(r->status, "no_rank");
	assert_false(r->rank.ok);
	assert_contains(r->reason, "4 MiB");
	gd_snapshot_release(&s);
	tree_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_torchrun),
		cmocka_unit_test(test_slurm_and_precedence),
		cmocka_unit_test(test_job_id_and_launchers),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_long_values),
		cmocka_unit_test(test_pod_uid),
		cmocka_unit_test(test_collect),
		cmocka_unit_test(test_other_pidns_and_failed),
		cmocka_unit_test(test_without_nvml_and_cut),
		cmocka_unit_test(test_job_ranks_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, tree_sweep);
}
