/*
 * job_samples.c - where a GPU job's threads spend their CPU time, sampled
 * from outside the job: one perf_event_open(2) software event
 * (PERF_COUNT_SW_TASK_CLOCK, so it works in VMs and without a PMU) per
 * main and NCCL thread (the threads the rules read: job_threads.h roles), a
 * sample every GD_SAMPLE_PERIOD_NS of the thread's own run time, each
 * sample its instruction pointer (PERF_SAMPLE_IP | PERF_SAMPLE_TID) in a
 * small ring buffer (mmap, 2 data pages) the kernel fills while gpudoctor
 * sleeps.  At each snapshot the rings are drained and every sample is
 * attributed to the executable mapping its IP falls in (/proc/<pid>/maps,
 * read only for processes that have new samples): the CUDA libraries,
 * NCCL, the interpreter, framework CPU libraries, the kernel (the
 * record's cpumode) or the rest (job_threads.h).  The counts go into
 * job_threads[] (collect/job_threads.c made the records), cumulative since
 * the thread's event was opened, with the counter's own task-clock total.
 *
 * Cost: no thread of gpudoctor runs while the job runs; the kernel takes
 * one sample per 20 ms of a thread's CPU time (an interrupt it serves
 * anyway for the scheduler tick), and a snapshot drains at most
 * GD_SAMPLE_MAX_THREADS rings of 8 KiB.  bench/bench_collect measures it.
 *
 * Permission: sampling another user's thread needs CAP_PERFMON (or root,
 * CAP_SYS_ADMIN) or kernel.perf_event_paranoid <= 1 (<= 2 for one's own
 * processes, user space only).  A denied open makes the source "denied"
 * with the paranoid level and the fix, never a guess; a kernel without
 * perf events (ENOSYS, ENOENT) makes it "absent".  When kernel samples are
 * refused but user ones allowed, it samples user space and says so.
 */
#include "collect/job_samples.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collect/collectors.h"
#include "collect/job_threads.h"
#include "core/i18n.h"
#include "core/xalloc.h"

#define DATA_PAGES 2
#define MAPS_CAP (4u << 20)

struct slot {
	uint64_t pid, tid;
	int fd;
	void *ring;              /* 1 + DATA_PAGES pages */
	uint64_t counts[GD_SO_NCAT];
	uint64_t lost;
	uint64_t *ips;           /* user-space IPs drained, not yet attributed */
	size_t nips, capips;
	bool seen;               /* still a GPU job's thread in this snapshot */
};

struct gd_job_sampler {
	struct slot *slots;
	size_t n, cap;
	size_t page;
	bool user_only;          /* kernel samples were refused */
	struct gd_xmap *maps;    /* scratch: one process's executable mappings */
	size_t nmaps, capmaps;
};

struct gd_job_sampler *gd_job_sampler_new(void)
{
	struct gd_job_sampler *js = gd_xcalloc(1, sizeof *js);

	js->page = (size_t)sysconf(_SC_PAGESIZE);
	return js;
}

static void slot_close(struct gd_job_sampler *js, struct slot *sl)
{
	if (sl->ring)
		munmap(sl->ring, (1 + DATA_PAGES) * js->page);
	if (sl->fd >= 0)
		close(sl->fd);
	free(sl->ips);
}

void gd_job_sampler_free(struct gd_job_sampler *js)
{
	if (!js)
		return;
	for (size_t i = 0; i < js->n; i++)
		slot_close(js, &js->slots[i]);
	free(js->slots);
	free(js->maps);
	free(js);
}

size_t gd_job_sampler_threads(const struct gd_job_sampler *js)
{
	return js ? js->n : 0;
}

/* Opens and maps the sampling event of tid; 0 or -errno. */
static int slot_open(struct gd_job_sampler *js, struct slot *sl, uint64_t pid, uint64_t tid)
{
	struct perf_event_attr a;
	int fd;

	memset(sl, 0, sizeof *sl);
	sl->fd = -1;
	sl->pid = pid;
	sl->tid = tid;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = GD_SAMPLE_PERIOD_NS;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	a.exclude_hv = 1;
	a.exclude_kernel = js->user_only;
	fd = (int)syscall(SYS_perf_event_open, &a, (pid_t)tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !js->user_only) {
		a.exclude_kernel = 1;
		fd = (int)syscall(SYS_perf_event_open, &a, (pid_t)tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			js->user_only = true;
	}
	if (fd < 0)
		return -errno;
	sl->ring = mmap(NULL, (1 + DATA_PAGES) * js->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (sl->ring == MAP_FAILED) {
		int e = -errno;

		sl->ring = NULL;
		close(fd);
		return e;
	}
	sl->fd = fd;
	return 0;
}

/* Drains sl's ring into sl->ips / counts (kernel and lost). */
static void slot_drain(struct gd_job_sampler *js, struct slot *sl)
{
	struct perf_event_mmap_page *meta = sl->ring;
	const unsigned char *data = (const unsigned char *)sl->ring + js->page;
	uint64_t size = (uint64_t)DATA_PAGES * js->page;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;

	while (tail < head) {
		struct perf_event_header h;
		unsigned char rec[64];

		for (size_t i = 0; i < sizeof h; i++)
			((unsigned char *)&h)[i] = data[(tail + i) % size];
		if (h.size < sizeof h || tail + h.size > head)
			break;
		if (h.size <= sizeof rec) {
			for (size_t i = 0; i < h.size; i++)
				rec[i] = data[(tail + i) % size];
			if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof h + 16) {
				uint64_t ip;

				memcpy(&ip, rec + sizeof h, sizeof ip);
				if ((h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
					sl->counts[GD_SO_KERNEL]++;
				} else {
					if (sl->nips == sl->capips) {
						sl->capips = sl->capips ? sl->capips * 2 : 64;
						sl->ips = gd_xreallocarray(sl->ips, sl->capips, sizeof *sl->ips);
					}
					sl->ips[sl->nips++] = ip;
				}
			} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof h + 16) {
				uint64_t lost;

				memcpy(&lost, rec + sizeof h + 8, sizeof lost);
				sl->lost += lost;
			}
		}
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The slot of tid among the first n (sorted) slots, or NULL. */
static struct slot *slot_find(struct gd_job_sampler *js, size_t n, uint64_t pid, uint64_t tid)
{
	struct slot key;

	key.pid = pid;
	key.tid = tid;
	return n ? bsearch(&key, js->slots, n, sizeof *js->slots, slot_cmp) : NULL;
}

/* Attributes the pending user-space IPs of every slot of one pid, reading
 * its maps once.  A process whose maps cannot be read (it exited) leaves
 * its samples as other. */
static void attribute(const struct gd_collect_ctx *ctx, struct gd_job_sampler *js, size_t from, size_t to)
{
	bool any = false;
	char rel[48];
	char *buf = NULL;
	size_t len = 0;

	for (size_t i = from; i < to; i++)
		any |= js->slots[i].nips > 0;
	if (!any)
		return;
	snprintf(rel, sizeof rel, "proc/%llu/maps", (unsigned long long)js->slots[from].pid);
	js->nmaps = 0;
	if (gd_root_read(ctx->root, rel, &buf, &len, MAPS_CAP) == 0) {
		gd_xmaps_parse(buf, len, &js->maps, &js->nmaps, &js->capmaps);
		free(buf);
	}
	for (size_t i = from; i < to; i++) {
		struct slot *sl = &js->slots[i];

		for (size_t k = 0; k < sl->nips; k++)
			sl->counts[gd_xmaps_lookup(js->maps, js->nmaps, sl->ips[k])]++;
		sl->nips = 0;
	}
}

static void fill(struct gd_job_thread *jt, const struct slot *sl)
{
	struct gd_u64 *c[GD_SO_NCAT] = { &jt->samples_cuda, &jt->samples_nccl, &jt->samples_python,
					 &jt->samples_framework, &jt->samples_kernel, &jt->samples_other };
	uint64_t clock;

	gd_u64_set(&jt->sampled, 1);
	for (int k = 0; k < GD_SO_NCAT; k++)
		gd_u64_set(c[k], sl->counts[k]);
	gd_u64_set(&jt->samples_lost, sl->lost);
	if (read(sl->fd, &clock, sizeof clock) == (ssize_t)sizeof clock)
		gd_u64_set(&jt->cpu_clock_ns, clock);
}

/* The threads sampled: the main thread of each GPU job process and NCCL's,
 * whose samples the rules read (job.host_bound, job.waiting_for_peers);
 * loader workers and the rest are judged by their schedstat time alone,
 * so an 8-rank node samples some tens of threads, not hundreds. */
static bool sampled_role(const struct gd_job_thread *jt)
{
	return strcmp(jt->role, "main") == 0 || strcmp(jt->role, "nccl") == 0;
}

/* Another user's threads need CAP_PERFMON (or root) whatever the paranoid
 * level; one's own need kernel.perf_event_paranoid <= 2 (user space), <= 1
 * (kernel too). */
static void denied_reason(const struct gd_collect_ctx *ctx, int e, char *buf, size_t sz)
{
	long long paranoid = 0;
	char level[64] = "";

	if (gd_root_read_i64(ctx->root, "proc/sys/kernel/perf_event_paranoid", &paranoid) == 0)
		snprintf(level, sizeof level, " (kernel.perf_event_paranoid = %lld)", paranoid);
	snprintf(buf, sz, _("perf_event_open: %s%s: run gpudoctor as root or with CAP_PERFMON (a container: --cap-add "
		   "PERFMON); as the job's own user, perf_event_paranoid 2 allows user-space samples, 1 kernel ones too"),
		 strerror(-e), level);
}

enum gd_src_status gd_collect_job_samples(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_job_sampler *js = ctx->sampler;
	size_t w, failed = 0, capped = 0, denied = 0;
	int first_err = 0;

	if (!ctx->root->is_host) {
		gd_err_set(err, -ENOENT, _("not sampled: the root is not this host's / (a fixture or a copied tree): its "
			     "threads cannot be sampled"));
		return s->job_threads.n ? GD_SRC_ABSENT : GD_SRC_OK;
	}
	if (!js) {
		if (s->job_threads.n)
			gd_err_set(err, -ENOENT, _("not sampled: a single snapshot has no window to sample over (check, "
				     "watch, record and serve sample the job's threads)"));
		return s->job_threads.n ? GD_SRC_ABSENT : GD_SRC_OK;
	}
	/* drain every ring, then attribute per process */
	for (size_t i = 0; i < js->n; i++) {
		js->slots[i].seen = false;
		slot_drain(js, &js->slots[i]);
	}
	for (size_t i = 0, j; i < js->n; i = j) {
		for (j = i + 1; j < js->n && js->slots[j].pid == js->slots[i].pid; j++)
			;
		attribute(ctx, js, i, j);
	}
	/* report the sampled threads, open the new ones */
	{
		size_t before = js->n;

		GD_VEC_EACH(s->job_threads, struct gd_job_thread, jt) {
			struct slot *sl;
			int rc;

			if (!jt->pid.ok || !jt->tid.ok || !sampled_role(jt))
				continue;   /* sampled stays absent */
			sl = slot_find(js, before, jt->pid.v, jt->tid.v);
			if (!sl) {   /* opened in this loop, not yet sorted in */
				for (size_t k = before; k < js->n; k++)
					if (js->slots[k].pid == jt->pid.v && js->slots[k].tid == jt->tid.v)
						sl = &js->slots[k];
			}
			if (sl) {
				sl->seen = true;
				fill(jt, sl);
				continue;
			}
			gd_u64_set(&jt->sampled, 0);
			if (js->n >= GD_SAMPLE_MAX_THREADS) {
				capped++;
				continue;
			}
			if (js->n == js->cap) {
				js->cap = js->cap ? js->cap * 2 : 32;
				js->slots = gd_xreallocarray(js->slots, js->cap, sizeof *js->slots);
			}
			rc = slot_open(js, &js->slots[js->n], jt->pid.v, jt->tid.v);
			if (rc < 0) {
				if (rc == -ESRCH)
					continue;   /* the thread exited */
				failed++;
				denied += rc == -EACCES || rc == -EPERM;
				if (!first_err)
					first_err = rc;
				continue;
			}
			js->slots[js->n].seen = true;
			fill(jt, &js->slots[js->n]);
			js->n++;
		}
		if (js->n > 1)
			qsort(js->slots, js->n, sizeof *js->slots, slot_cmp);
	}
	/* close the events of threads that are gone */
	w = 0;
	for (size_t i = 0; i < js->n; i++) {
		if (js->slots[i].seen)
			js->slots[w++] = js->slots[i];
		else
			slot_close(js, &js->slots[i]);
	}
	js->n = w;
	if (failed && !js->n) {
		char why[GD_ERR_MSG_MAX];

		if (denied) {
			denied_reason(ctx, first_err, why, sizeof why);
			gd_err_set(err, first_err, "%s", why);
			return GD_SRC_DENIED;
		}
		gd_err_set(err, first_err, _("perf_event_open of %zu threads failed: %s"), failed, strerror(-first_err));
		return gd_src_status_of_errno(first_err) == GD_SRC_ABSENT ? GD_SRC_ABSENT : GD_SRC_FAILED;
	}
	if (failed || capped) {
		gd_err_set(err, failed ? first_err : -E2BIG, _("%zu threads not sampled (%zu past the cap of %d%s%s)"),
			   failed + capped, capped, GD_SAMPLE_MAX_THREADS, failed ? "; perf_event_open: " : "",
			   failed ? strerror(-first_err) : "");
		return GD_SRC_PARTIAL;
	}
	if (js->user_only && js->n) {
		gd_err_set(err, -EACCES, _("user-space samples only: kernel samples refused (kernel.perf_event_paranoid "
			     "> 1 without CAP_PERFMON): time in system calls counts as other"));
		return GD_SRC_PARTIAL;
	}
	return GD_SRC_OK;
}
