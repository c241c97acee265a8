/*
 * job_rank.c - who each GPU job process is in its distributed job
 * (job_ranks[]): a fixed list of keys of /proc/<pid>/environ (job_rank.h),
 * and in Kubernetes the pod's name and namespace seen through
 * /proc/<pid>/root, never any other variable of the environment.
 *
 *   /proc/<pid>/environ: the environment the process was started with,
 *   NUL-separated KEY=VALUE strings (not what it set itself afterwards);
 *   mode 0400, and the kernel asks for ptrace-read access: another user's
 *   needs root, or CAP_DAC_READ_SEARCH with CAP_SYS_PTRACE (serve's unit,
 *   deploy/systemd/gpudoctor.service, has both).
 *
 * One record per process NVML lists on a GPU (gpu_procs[]), with the GPUs
 * it is listed on; its DataLoader workers inherit the environment but are
 * not listed, so they are not ranks.  Where NVML listed no processes (no
 * driver, or it failed), the processes that hold /dev/nvidia<N> and whose
 * parent does not are taken instead, with no GPU named.
 *
 * The NVIDIA driver does not translate pids into pid namespaces: NVML gives
 * host pids (NVIDIA/nvidia-docker#1483).  When the /proc read here is not
 * the host's (its pid 1 is in another pid namespace than the initial one),
 * those pids name other processes or none: the records say other_pidns and
 * nothing is read from them.
 *
 * The environment is read into a buffer of at most 4 MiB (ARG_MAX is
 * usually 2 MiB for arguments and environment together), which is wiped
 * before it is freed, so no other variable lingers in gpudoctor's memory.
 */
#include "collect/collectors.h"
#include "collect/job_rank.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "model/jobs.h"

#define ENVIRON_CAP (4u << 20)
/* include/linux/proc_ns.h: PROC_PID_INIT_INO, the initial pid namespace */
#define PID_INIT_NS "pid:[4026531836]"

/* ---- the pure parts (job_rank.h) -------------------------------------- */

#define GD_ENV_NAME(k) #k,
static const char *const key_names[GD_ENV_NKEYS] = { GD_ENV_KEYS(GD_ENV_NAME) };
#undef GD_ENV_NAME

const char *gd_env_key_name(enum gd_env_key k)
{
	return (unsigned)k < GD_ENV_NKEYS ? key_names[k] : "";
}

static int key_of(const char *p, size_t n)
{
	for (int k = 0; k < GD_ENV_NKEYS; k++)
		if (strlen(key_names[k]) == n && memcmp(key_names[k], p, n) == 0)
			return k;
	return -1;
}

void gd_environ_scan(const char *buf, size_t len, struct gd_environ *e)
{
	size_t i = 0;

	memset(e, 0, sizeof *e);
	while (i < len) {
		const char *s = buf + i, *nul = memchr(s, '\0', len - i);
		size_t n = nul ? (size_t)(nul - s) : len - i;
		const char *eq = memchr(s, '=', n);
		int k;

		i += n + 1;
		if (!nul)
			e->unterminated = true;
		if (n == 0)
			continue;
		if (!eq || eq == s) {
			e->malformed++;
			continue;
		}
		e->entries++;
		if ((k = key_of(s, (size_t)(eq - s))) < 0)
			continue;   /* another variable: not looked at */
		if (e->set[k]) {
			e->duplicates++;
			continue;
		}
		e->set[k] = true;
		e->v[k].p = eq + 1;
		e->v[k].n = n - (size_t)(eq - s) - 1;
	}
}

/* A value as text: bytes outside printable ASCII become '?'. */
static void copy_val(char *dst, size_t dstsz, struct gd_slice v)
{
	size_t n = v.n < dstsz - 1 ? v.n : dstsz - 1;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v.p[i];

		dst[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	dst[n] = '\0';
}

#define COPY(e, field, key) \
	do { \
		if ((e)->set[GD_ENV_##key]) \
			copy_val((field), sizeof(field), (e)->v[GD_ENV_##key]); \
	} while (0)

/* The value of k when it is set to a decimal number. */
static bool num_of(const struct gd_environ *e, int k, struct gd_u64 *out)
{
	uint64_t v;

	if (k >= GD_ENV_NKEYS || !e->set[k] || !gd_tok_u64(e->v[k], &v))
		return false;
	gd_u64_set(out, v);
	return true;
}

static void note(struct gd_job_rank *r, const char *text)
{
	size_t n = strlen(r->reason);

	if (n + 3 < sizeof r->reason)
		snprintf(r->reason + n, sizeof r->reason - n, "%s%s", n ? "; " : "", text);
}

#define NONE GD_ENV_NKEYS
static const struct family {
	const char *launcher;   /* NULL: from the keys beside RANK */
	int rank, local_rank, size, local_size, local_size2;
} families[] = {
	{ NULL, GD_ENV_RANK, GD_ENV_LOCAL_RANK, GD_ENV_WORLD_SIZE, GD_ENV_LOCAL_WORLD_SIZE, GD_ENV_PET_NPROC_PER_NODE },
	{ "slurm", GD_ENV_SLURM_PROCID, GD_ENV_SLURM_LOCALID, GD_ENV_SLURM_NTASKS, NONE, NONE },
	{ "openmpi", GD_ENV_OMPI_COMM_WORLD_RANK, GD_ENV_OMPI_COMM_WORLD_LOCAL_RANK, GD_ENV_OMPI_COMM_WORLD_SIZE, NONE,
	  NONE },
	{ "pmi", GD_ENV_PMI_RANK, GD_ENV_MPI_LOCALRANKID, GD_ENV_PMI_SIZE, NONE, NONE },
};

void gd_job_rank_from_environ(const struct gd_environ *e, struct gd_job_rank *r)
{
	static const int node_keys[] = { GD_ENV_GROUP_RANK, GD_ENV_NODE_RANK, GD_ENV_PET_NODE_RANK, GD_ENV_SLURM_NODEID,
					 GD_ENV_OMPI_COMM_WORLD_NODE_RANK };
	const struct family *f = NULL;
	char why[96];

	for (size_t i = 0; i < sizeof families / sizeof families[0] && !f; i++) {
		if (num_of(e, families[i].rank, &r->rank)) {
			f = &families[i];
		} else if (e->set[families[i].rank]) {
			snprintf(why, sizeof why, _("%s is not a number"), key_names[families[i].rank]);
			note(r, why);
		}
	}
	if (f) {
		num_of(e, f->local_rank, &r->local_rank);
		num_of(e, f->size, &r->world_size);
		if (!num_of(e, f->local_size, &r->local_world_size))
			num_of(e, f->local_size2, &r->local_world_size);
		if (f->launcher)
			GD_STRSET(r->launcher, f->launcher);
		else if (e->set[GD_ENV_TORCHELASTIC_RUN_ID])
			GD_STRSET(r->launcher, "torchelastic");
		else if (e->set[GD_ENV_PET_NNODES] || e->set[GD_ENV_PET_NODE_RANK] || e->set[GD_ENV_PET_NPROC_PER_NODE])
			GD_STRSET(r->launcher, "kubeflow");
		else if (e->set[GD_ENV_CROSS_RANK])
			GD_STRSET(r->launcher, "deepspeed");
		else
			GD_STRSET(r->launcher, "env");
	}
	for (size_t i = 0; i < sizeof node_keys / sizeof node_keys[0]; i++)
		if (num_of(e, node_keys[i], &r->node_rank))
			break;
	GD_STRSET(r->status, f ? "ok" : "no_rank");
	COPY(e, r->master_addr, MASTER_ADDR);
	COPY(e, r->master_port, MASTER_PORT);
	COPY(e, r->run_id, TORCHELASTIC_RUN_ID);
	COPY(e, r->slurm_job_id, SLURM_JOB_ID);
	COPY(e, r->slurm_step_id, SLURM_STEP_ID);
	num_of(e, GD_ENV_SLURM_PROCID, &r->slurm_procid);
	num_of(e, GD_ENV_SLURM_NODEID, &r->slurm_nodeid);
	COPY(e, r->nccl_socket_ifname, NCCL_SOCKET_IFNAME);
	COPY(e, r->nccl_ib_hca, NCCL_IB_HCA);
	COPY(e, r->nccl_ib_disable, NCCL_IB_DISABLE);
	COPY(e, r->nccl_p2p_disable, NCCL_P2P_DISABLE);
	COPY(e, r->nccl_net, NCCL_NET);
}

void gd_job_rank_set_job(struct gd_job_rank *r)
{
	char id[sizeof r->master_addr + sizeof r->master_port + sizeof r->run_id + 64];

	if (r->slurm_job_id[0] && r->slurm_step_id[0])
		snprintf(id, sizeof id, "slurm:%s.%s", r->slurm_job_id, r->slurm_step_id);
	else if (r->slurm_job_id[0])
		snprintf(id, sizeof id, "slurm:%s", r->slurm_job_id);
	else if (r->run_id[0] && strcmp(r->run_id, "none") != 0)
		snprintf(id, sizeof id, "torchelastic:%s", r->run_id);
	else if (r->master_addr[0] && r->master_port[0])
		snprintf(id, sizeof id, "master:%s:%s", r->master_addr, r->master_port);
	else if (r->namespace[0] && r->pod[0])
		snprintf(id, sizeof id, "k8s:%s/%s", r->namespace, r->pod);
	else
		id[0] = '\0';
	GD_STRSET(r->job, id);
}

static bool hexish(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-' || c == '_';
}

bool gd_pod_uid_of_cgroup(const char *path, char *uid, size_t uidsz)
{
	const char *p = strstr(path, "kubepods");

	/* "pod" then 36 characters: 32 hex digits and 4 separators */
	while (p && (p = strstr(p, "pod")) != NULL) {
		size_t n = 0, seps = 0;

		p += 3;
		for (; n < 36 && hexish(p[n]); n++)
			if (p[n] == '-' || p[n] == '_')
				seps++;
		if (n == 36 && seps == 4 && !hexish(p[36]) && uidsz > 36) {
			for (size_t i = 0; i < 36; i++)
				uid[i] = p[i] == '_' ? '-' : p[i];
			uid[36] = '\0';
			return true;
		}
	}
	return false;
}

bool gd_dns_name_ok(const char *s, bool dots)
{
	size_t n = strlen(s);

	if (n == 0 || n > (dots ? 253 : 63) || s[0] == '-' || s[n - 1] == '-' || s[0] == '.' || s[n - 1] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || (dots && s[i] == '.')))
			return false;
	return true;
}

/* ---- the collector ------------------------------------------------------ */

/* A small file through the process's root, its first line when it is a
 * DNS name (dots: a host name); "" otherwise. */
static void read_name(const struct gd_root *root, uint64_t pid, const char *path, bool dots, char *out, size_t outsz)
{
	char rel[160];

	snprintf(rel, sizeof rel, "proc/%" PRIu64 "/root/%s", pid, path);
	if (gd_root_read_line(root, rel, out, outsz) < 0 || !gd_dns_name_ok(out, dots))
		out[0] = '\0';
}

/* The pod of a process: its UID from its cgroup, its namespace from the
 * service-account mount, its name from its /etc/hostname (or HOSTNAME),
 * read only when the process is in a pod (a UID or a namespace found). */
static void pod_of(const struct gd_collect_ctx *ctx, const struct gd_proc *p, const struct gd_environ *e,
		   struct gd_job_rank *r)
{
	uint64_t pid = r->pid.v;

	if (p && p->cgroup[0])
		gd_pod_uid_of_cgroup(p->cgroup, r->pod_uid, sizeof r->pod_uid);
	read_name(ctx->root, pid, "var/run/secrets/kubernetes.io/serviceaccount/namespace", false, r->namespace,
		  sizeof r->namespace);
	/* /var/run is often a link to /run, which would be resolved in
	 * gpudoctor's own root, not the process's */
	if (!r->namespace[0])
		read_name(ctx->root, pid, "run/secrets/kubernetes.io/serviceaccount/namespace", false, r->namespace,
			  sizeof r->namespace);
	if (!r->pod_uid[0] && !r->namespace[0])
		return;
	read_name(ctx->root, pid, "etc/hostname", true, r->pod, sizeof r->pod);
	if (!r->pod[0] && e && e->set[GD_ENV_HOSTNAME]) {
		copy_val(r->pod, sizeof r->pod, e->v[GD_ENV_HOSTNAME]);
		if (!gd_dns_name_ok(r->pod, true))
			r->pod[0] = '\0';
	}
}

struct pid_gpu {
	uint64_t pid, gpu;
	bool has_gpu;
};

static int by_pid_gpu(const void *a, const void *b)
{
	const struct pid_gpu *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

/* The GPU job processes, as (pid, gpu) pairs sorted: NVML's lists, else
 * the processes holding /dev/nvidia<N> whose parent does not. */
static size_t job_pids(const struct gd_snapshot *s, struct pid_gpu **out)
{
	bool listed = false;
	size_t n = 0;
	struct pid_gpu *v;

	GD_VEC_EACH(s->gpus, const struct gd_gpu, g)
		listed = listed || g->nvml_procs.ok;
	v = gd_xcalloc(s->gpu_procs.n + s->procs.n + 1, sizeof *v);
	if (listed) {
		GD_VEC_EACH(s->gpu_procs, const struct gd_gpu_proc, gp)
			if (gp->pid.ok && gp->gpu.ok)
				v[n++] = (struct pid_gpu){ gp->pid.v, gp->gpu.v, true };
	} else {
		GD_VEC_EACH(s->procs, const struct gd_proc, p) {
			const struct gd_proc *parent;

			if (!p->pid.ok || !gd_proc_is_gpu_job(NULL, p))
				continue;
			parent = p->ppid.ok ? gd_snapshot_proc(s, p->ppid.v)
					    : NULL;
			if (!parent || !gd_proc_is_gpu_job(NULL, parent))
				v[n++] = (struct pid_gpu){ p->pid.v, 0, false };
		}
	}
	qsort(v, n, sizeof *v, by_pid_gpu);
	*out = v;
	return n;
}

struct tally {
	size_t jobs, denied, other, failed;
	char first[GD_ERR_MSG_MAX / 2];
};

static void first_reason(struct tally *t, const char *reason)
{
	if (!t->first[0])
		gd_strlcpy(t->first, reason, sizeof t->first);
}

/* Reads one process's identity into r (pid and gpus set). */
static void one(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_job_rank *r, struct tally *t)
{
	const struct gd_proc *p = gd_snapshot_proc(s, r->pid.v);
	struct gd_environ e;
	char *buf, rel[64];
	size_t len;
	int rc;

	snprintf(rel, sizeof rel, "proc/%" PRIu64 "/environ", r->pid.v);
	rc = gd_root_read_private(ctx->root, rel, &buf, &len, ENVIRON_CAP + 1);

	if (rc == -ENOENT || rc == -ESRCH) {
		GD_STRSET(r->status, "gone");
		snprintf(r->reason, sizeof r->reason, _("/proc/%llu/environ: the process exited before it was read"),
			 (unsigned long long)r->pid.v);
		return;
	}
	if (rc == -EACCES || rc == -EPERM) {
		GD_STRSET(r->status, "denied");
		snprintf(r->reason, sizeof r->reason,
			 _("/proc/%llu/environ: %s (another user's process: needs root, or CAP_SYS_PTRACE and "
			   "CAP_DAC_READ_SEARCH)"),
			 (unsigned long long)r->pid.v, strerror(-rc));
		t->denied++;
		first_reason(t, r->reason);
		pod_of(ctx, p, NULL, r);   /* the UID still comes from the cgroup */
		return;
	}
	if (rc < 0) {
		GD_STRSET(r->status, "failed");
		snprintf(r->reason, sizeof r->reason, "/proc/%" PRIu64 "/environ: %s", r->pid.v, strerror(-rc));
		t->failed++;
		first_reason(t, r->reason);
		return;
	}
	gd_environ_scan(buf, len, &e);
	gd_job_rank_from_environ(&e, r);
	if (!e.entries)
		note(r, _("empty environment (an exited process, or one that cleared it)"));
	if (rc == 1)
		note(r, _("environment longer than 4 MiB: the keys past it were not read"));
	pod_of(ctx, p, &e, r);
	gd_job_rank_set_job(r);
	gd_free_private(buf, len);
}

/* Whether the /proc read here is the host's: 1 yes (its pid 1 is in the
 * initial pid namespace), 0 another's (view names it), -1 not known. */
static int host_view(const struct gd_root *root, char *view, size_t size)
{
	if (gd_root_readlink(root, "proc/1/ns/pid", view, size) < 0 || strncmp(view, "pid:[", 5) != 0)
		return -1;
	return strcmp(view, PID_INIT_NS) == 0;
}

/* The GPUs of pid: v[i..) while the pid is the same, as "0,1"; returns the
 * index past them. */
static size_t gpus_of(const struct pid_gpu *v, size_t n, size_t i, char *out, size_t size)
{
	size_t j = i, at = 0;

	out[0] = '\0';
	for (; j < n && v[j].pid == v[i].pid; j++) {
		if (!v[j].has_gpu || (j > i && v[j].gpu == v[j - 1].gpu) || at >= size - 1)
			continue;
		at += (size_t)snprintf(out + at, size - at, "%s%" PRIu64, at ? "," : "", v[j].gpu);
	}
	return j;
}

enum gd_src_status gd_collect_job_ranks(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct pid_gpu *v;
	size_t n = job_pids(s, &v);
	struct tally t = { 0 };
	char view[64] = "";
	int host = n ? host_view(ctx->root, view, sizeof view) : -1;

	for (size_t i = 0; i < n;) {
		struct gd_job_rank *r = GD_PUSH(s, job_ranks, struct gd_job_rank);
		bool listed;

		gd_u64_set(&r->pid, v[i].pid);
		i = gpus_of(v, n, i, r->gpus, sizeof r->gpus);
		t.jobs++;
		listed = s->procs.n == 0 ||
			 gd_snapshot_proc(s, r->pid.v);
		if (host == 0 || (!listed && host < 0)) {
			/* NVML's pids are the host's */
			GD_STRSET(r->status, "other_pidns");
			if (host == 0)
				snprintf(r->reason, sizeof r->reason,
					 _("NVML gives host pids, and this /proc shows the pid namespace %s, not the host's: "
					   "run gpudoctor in the host's pid namespace (hostPID: true, --pid=host)"),
					 view);
			else
				snprintf(r->reason, sizeof r->reason,
					 _("NVML lists pid %llu, which this /proc does not have: a process of another pid "
					   "namespace (NVML gives host pids), or one that just exited"),
					 (unsigned long long)r->pid.v);
			/* a /proc not the host's is a deployment the source
			 * says; one pid outside it is a fact of the record */
			if (host == 0) {
				t.other++;
				first_reason(&t, r->reason);
			}
			continue;
		}
		one(ctx, s, r, &t);
	}
	free(v);
	if (t.jobs && t.denied == t.jobs) {
		gd_err_set(err, -EACCES, _("environment of %zu GPU job process(es) not readable: %s"), t.denied, t.first);
		return GD_SRC_DENIED;
	}
	if (t.denied || t.other || t.failed) {
		gd_err_set(err, -EACCES, _("identity of %zu of %zu GPU job processes not read: %s"),
			   t.denied + t.other + t.failed, t.jobs, t.first);
		return GD_SRC_PARTIAL;
	}
	return GD_SRC_OK;
}
