/*
 * jobs.c - GPU-job membership of processes (see jobs.h).
 */
#include "model/jobs.h"

#include <stdint.h>
#include <stdlib.h>

#include "core/xalloc.h"

/* Deeper process trees than this are not followed: a ppid cycle in a
 * corrupt or hand-edited snapshot must not loop forever. */
#define MAX_DEPTH 64

bool gd_proc_is_gpu_job(const struct gd_snapshot *s, const struct gd_proc *p)
{
	if (p->nvidia_fds.ok && p->nvidia_fds.v > 0)
		return true;
	return s && p->pid.ok && gd_snapshot_nvml_lists(s, p->pid.v);
}

bool gd_snapshot_nvml_lists(const struct gd_snapshot *s, uint64_t pid)
{
	GD_VEC_EACH(s->gpu_procs, const struct gd_gpu_proc, g)
		if (g->pid.ok && g->pid.v == pid)
			return true;
	return false;
}

static bool has_parent(const struct gd_proc *p)
{
	return p->ppid.ok && p->ppid.v != 0 && !(p->pid.ok && p->ppid.v == p->pid.v);
}

bool gd_snapshot_in_gpu_job(const struct gd_snapshot *s, const struct gd_proc *p)
{
	for (int depth = 0; p && depth < MAX_DEPTH; depth++) {
		if (gd_proc_is_gpu_job(s, p))
			return true;
		if (!has_parent(p))
			return false;
		p = gd_snapshot_proc(s, p->ppid.v);
	}
	return false;
}

struct pid_idx {
	uint64_t pid;
	size_t i;
};

static int cmp_pid(const void *a, const void *b)
{
	const struct pid_idx *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static const struct pid_idx *lookup(const struct pid_idx *idx, size_t n, uint64_t pid)
{
	struct pid_idx key = { pid, 0 };

	return n ? bsearch(&key, idx, n, sizeof *idx, cmp_pid) : NULL;
}

/* marks[] states while resolving: 0 unknown, 1 in a job, 2 not. */
size_t gd_snapshot_gpu_job_marks(const struct gd_snapshot *s, unsigned char *marks)
{
	const struct gd_proc *procs = s->procs.items;
	size_t n = s->procs.n, nidx = 0, jobs = 0;
	struct pid_idx *idx;

	if (n == 0)
		return 0;
	idx = gd_xcalloc(n, sizeof *idx);
	for (size_t i = 0; i < n; i++) {
		marks[i] = 0;
		if (procs[i].pid.ok) {
			idx[nidx].pid = procs[i].pid.v;
			idx[nidx++].i = i;
		}
		if (gd_proc_is_gpu_job(s, &procs[i])) {
			marks[i] = 1;
			jobs++;
		}
	}
	qsort(idx, nidx, sizeof *idx, cmp_pid);
	for (size_t i = 0; i < n; i++) {
		size_t path[MAX_DEPTH], depth = 0, cur = i;
		unsigned char result = 2;

		while (marks[cur] == 0 && depth < MAX_DEPTH) {
			const struct pid_idx *parent;

			path[depth++] = cur;
			if (!has_parent(&procs[cur]))
				break;
			parent = lookup(idx, nidx, procs[cur].ppid.v);
			if (!parent)
				break;
			cur = parent->i;
		}
		if (marks[cur] != 0)
			result = marks[cur];
		for (size_t k = 0; k < depth; k++)
			marks[path[k]] = result;
	}
	/* Turn the states into 1/0. */
	for (size_t i = 0; i < n; i++)
		marks[i] = marks[i] == 1;
	free(idx);
	return jobs;
}
