/*
 * proc_pid_task.c - per-thread CPU of GPU jobs and their descendants:
 * /proc/<pid>/task/<tid>/stat (Linux 2.6.0), the same format as
 * /proc/<pid>/stat:
 *
 *   4711 (pt_data_worker) R 4700 4700 4600 0 -1 4194368 ... 91234 1203 ...
 *
 * The one data-loader or launcher thread pegged at 100% of a core is what
 * the input-bound rule looks for, and a process total hides it.  Only GPU
 * jobs (processes holding /dev/nvidia<N>) and their process trees are read,
 * which keeps this cheap; past GD_MAX_THREADS threads the rest are dropped
 * and the source says so.
 *
 * In the tiered walk (serve, watch, record) a thread's schedstat is read
 * first, and its stat only when the schedstat moved since the last cycle
 * (it ran, or waited for a CPU) or its slow round came (collect.h): most of
 * a training job's hundreds of threads sleep in a pool, and a thread that
 * was not scheduled has the state and the CPU ticks it had.  job_threads
 * takes the schedstat read here.  The schedstat is held open from one
 * cycle to the next (proc_pid.c, "held files").
 */
#include "collect/collectors.h"
#include "collect/proc_pid.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "model/jobs.h"

#define GD_MAX_THREADS 4096
#define STAT_CAP 1024

struct task_tally {
	size_t dropped;     /* threads past the cap */
	size_t unreadable;  /* task directories that could not be listed */
	size_t malformed;
	char first_bad[GD_ERR_MSG_MAX / 2];
};

static void read_tasks(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, uint64_t pid, char *buf,
		       struct task_tally *t)
{
	char rel[96], sched[GD_SCHEDSTAT_CAP];
	struct dirent *de;
	DIR *d;
	bool tiered = gd_proc_cache_tiered(ctx->proc_cache);
	size_t nsched = 0;

	snprintf(rel, sizeof rel, "proc/%llu/task", (unsigned long long)pid);
	d = gd_root_opendir(ctx->root, rel);
	if (!d) {
		if (errno != ENOENT && errno != ESRCH)
			t->unreadable++;
		return;   /* ENOENT: the process exited */
	}
	while ((de = readdir(d)) != NULL) {
		struct gd_pid_stat st;
		struct gd_thread *th, kept;
		struct gd_err e;
		uint64_t tid;
		size_t len;
		char name[48];
		int sfd = -1;   /* the schedstat held for the thread */

		if (!gd_tok_u64((struct gd_slice){ de->d_name, strlen(de->d_name) }, &tid))
			continue;   /* "." and ".." */
		if (s->threads.n >= GD_MAX_THREADS) {
			t->dropped++;
			continue;
		}
		if (tiered) {
			snprintf(name, sizeof name, "%llu/schedstat", (unsigned long long)tid);
			if (gd_proc_cache_task_read(ctx->proc_cache, pid, tid, dirfd(d), name, sched, sizeof sched,
						    &nsched, &sfd) < 0)
				nsched = sizeof sched;   /* none (no schedstat): stat, and job_threads reads */
			memset(&kept, 0, sizeof kept);
			if (gd_proc_cache_task_reuse(ctx->proc_cache, pid, tid, sched, nsched, &kept, &sfd)) {
				*GD_PUSH(s, threads, struct gd_thread) = kept;
				continue;
			}
		}
		/* <tid>/stat relative to the task directory */
		snprintf(name, sizeof name, "%llu/stat", (unsigned long long)tid);
		if (gd_proc_read_at(dirfd(d), name, buf, STAT_CAP, &len) < 0) {
			gd_proc_cache_fd_drop(ctx->proc_cache, &sfd);
			continue;   /* the thread exited */
		}
		gd_err_clear(&e);
		if (gd_pid_stat_parse(buf, len, &st, &e) < 0) {
			if (!t->malformed++)
				snprintf(t->first_bad, sizeof t->first_bad, "/proc/%llu/task/%.60s: %.160s",
					 (unsigned long long)pid, name, e.msg);
			gd_proc_cache_fd_drop(ctx->proc_cache, &sfd);
			continue;
		}
		th = GD_PUSH(s, threads, struct gd_thread);
		gd_u64_set(&th->pid, pid);
		gd_u64_set(&th->tid, st.pid);
		GD_STRSET(th->comm, st.comm);
		GD_STRSET(th->state, st.state);
		gd_u64_set(&th->utime_ticks, st.utime);
		gd_u64_set(&th->stime_ticks, st.stime);
		if (tiered)
			gd_proc_cache_task_keep(ctx->proc_cache, th, sched, nsched, &sfd);
		gd_proc_cache_fd_drop(ctx->proc_cache, &sfd);   /* not kept */
	}
	closedir(d);
}

enum gd_src_status gd_collect_threads(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct task_tally t = { 0 };
	unsigned char *marks;
	char buf[STAT_CAP];
	size_t n = s->procs.n;

	gd_proc_cache_tasks_begin(ctx->proc_cache);
	if (n == 0) {
		gd_proc_cache_tasks_end(ctx->proc_cache);
		return GD_SRC_OK;   /* no processes, hence no GPU job */
	}
	marks = gd_xmalloc(n);
	if (gd_snapshot_gpu_job_marks(s, marks) == 0) {
		gd_proc_cache_tasks_end(ctx->proc_cache);
		free(marks);
		return GD_SRC_OK;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gd_proc *p = GD_VEC_AT(s->procs, struct gd_proc, i);

		if (marks[i] && p->pid.ok && !(p->kthread.ok && p->kthread.v))
			read_tasks(ctx, s, p->pid.v, buf, &t);
	}
	gd_proc_cache_tasks_end(ctx->proc_cache);
	free(marks);
	if (t.dropped) {
		gd_err_set(err, -E2BIG, _("GPU jobs have more than %d threads: %zu not read"), GD_MAX_THREADS, t.dropped);
		return GD_SRC_PARTIAL;
	}
	if (t.unreadable || t.malformed) {
		if (t.malformed)
			gd_err_set(err, -EINVAL, _("%zu task directories not readable, %zu stat files malformed, first %s"),
				   t.unreadable, t.malformed, t.first_bad);
		else
			gd_err_set(err, -EACCES, _("%zu task directories of GPU jobs not readable"), t.unreadable);
		return GD_SRC_PARTIAL;
	}
	return GD_SRC_OK;
}
