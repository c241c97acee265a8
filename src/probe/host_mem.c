/*
 * host_mem.c - host memory bandwidth per NUMA node: STREAM triad.
 *
 * McCalpin's triad a[i] = b[i] + q * c[i] moves 24 bytes per element (two
 * loads, one store; STREAM does not count the write-allocate read of a[],
 * so the figure is comparable with published STREAM results).  For each
 * node of /sys/devices/system/node (read through the root prefix) that has
 * CPUs and memory, one thread per CPU of node<N>/cpulist pins itself to its
 * CPU (pthread_setaffinity_np) and then writes its own slice of the three
 * arrays first: Linux places a page on the node of the CPU that first
 * touches it (the default local policy), so the arrays land on the node
 * without libnuma.  The threads run the triad stream_reps times between
 * two barriers, each timing itself; a repetition lasts from the first
 * thread's start to the last thread's end (the calling thread's clock is not
 * used: it is one thread more than there are CPUs and may be descheduled at
 * a barrier, which shortened the interval 10x on a busy 2-CPU VM).  The best
 * repetition counts (STREAM reports the best), the mean of the others is
 * kept beside it.
 *
 * Arrays are 4 x the node's last-level cache (sysfs cache/index<highest>,
 * once per distinct cache id) in doubles, at least 2 M and at most 64 M
 * elements each (Intel's guidance is 4 x the sum of the LLCs or 1 M
 * elements, whichever is larger; the cap keeps three arrays at 1.5 GiB).
 *
 * Without /sys/devices/system/node (a kernel without NUMA), the whole host
 * is one pseudo-node (-1) on the CPUs this process may run on.
 */
#include "probe/host_int.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/cpulist.h"
#include "core/tok.h"
#include "core/xalloc.h"

#define CPUBITS ((GD_CPULIST_MAX + 1) / 8)
#define MIN_ELEMS (2ull << 20)
#define MAX_ELEMS (64ull << 20)
#define TRIAD_Q 3.0

struct triad {
	double *a, *b, *c;
	uint64_t n;
	unsigned nthreads, reps;
	pthread_barrier_t bar;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int gate;           /* 0 wait, 1 go, -1 abort (not every thread started) */
};

struct worker {
	struct triad *t;
	pthread_t th;
	int cpu;
	unsigned idx;
	int pin_err;        /* 0, or the errno of pinning */
	double *t0, *t1;    /* per repetition: when this thread started and ended */
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct triad *t = w->t;
	uint64_t lo = t->n * w->idx / t->nthreads, hi = t->n * (w->idx + 1) / t->nthreads;
	cpu_set_t set;
	int gate;

	pthread_mutex_lock(&t->mu);
	while (!t->gate)
		pthread_cond_wait(&t->cv, &t->mu);
	gate = t->gate;
	pthread_mutex_unlock(&t->mu);
	if (gate < 0)
		return NULL;
	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	w->pin_err = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
	/* first touch: the pages of this slice land on this CPU's node */
	for (uint64_t i = lo; i < hi; i++) {
		t->a[i] = 0.0;
		t->b[i] = 2.0;
		t->c[i] = 1.0;
	}
	pthread_barrier_wait(&t->bar);  /* everyone pinned and touched */
	for (unsigned r = 0; r < t->reps; r++) {
		double *restrict a = t->a;
		const double *restrict b = t->b, *restrict c = t->c;

		pthread_barrier_wait(&t->bar);  /* start */
		w->t0[r] = gd__probe_now();
		for (uint64_t i = lo; i < hi; i++)
			a[i] = b[i] + TRIAD_Q * c[i];
		w->t1[r] = gd__probe_now();
		pthread_barrier_wait(&t->bar);  /* end */
	}
	return NULL;
}

static double *map_array(uint64_t n)
{
	void *p = mmap(NULL, n * sizeof(double), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Runs the triad on cpus[0..ncpu); fills nd's figures and availability. */
static void run_triad(const int *cpus, unsigned ncpu, uint64_t n, unsigned reps, struct gd_probe_mem_node *nd)
{
	struct triad t = { .n = n, .nthreads = ncpu, .reps = reps };
	struct worker *w;
	double best = INFINITY, sum = 0;
	unsigned started = 0, counted = 0;
	bool ok = true;

	t.a = map_array(n);
	t.b = map_array(n);
	t.c = map_array(n);
	if (!t.a || !t.b || !t.c) {
		gd__probe_set(&nd->avail, GD_PROBE_FAILED, "cannot map 3 arrays of %llu MiB: %s",
			      (unsigned long long)(n * sizeof(double) >> 20), strerror(errno));
		goto unmap;
	}
	w = gd_xcalloc(ncpu, sizeof *w);
	pthread_barrier_init(&t.bar, NULL, ncpu + 1);
	pthread_mutex_init(&t.mu, NULL);
	pthread_cond_init(&t.cv, NULL);
	for (unsigned i = 0; i < ncpu; i++) {
		w[i] = (struct worker){ .t = &t, .cpu = cpus[i], .idx = i };
		w[i].t0 = gd_xcalloc(reps, sizeof(double));
		w[i].t1 = gd_xcalloc(reps, sizeof(double));
		if (pthread_create(&w[i].th, NULL, worker_main, &w[i]) != 0)
			break;
		started++;
	}
	/* the threads wait at the gate until all are there: if one could not
	 * start, the others leave before the barrier that counts them all */
	pthread_mutex_lock(&t.mu);
	t.gate = started == ncpu ? 1 : -1;
	pthread_cond_broadcast(&t.cv);
	pthread_mutex_unlock(&t.mu);
	if (started < ncpu) {
		gd__probe_set(&nd->avail, GD_PROBE_FAILED, "could start only %u of %u threads", started, ncpu);
		ok = false;
	}
	if (ok) {
		pthread_barrier_wait(&t.bar);
		for (unsigned r = 0; r < reps; r++) {
			pthread_barrier_wait(&t.bar);
			pthread_barrier_wait(&t.bar);
		}
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(w[i].th, NULL);
	/* A repetition lasts from the first thread's start to the last one's
	 * end, as the threads saw it: the calling thread may be descheduled at
	 * a barrier (it is one more thread than there are CPUs), so its own
	 * clock would shorten the interval. */
	for (unsigned r = 0; ok && r < reps; r++) {
		double lo = INFINITY, hi = -INFINITY, dt;

		for (unsigned i = 0; i < ncpu; i++) {
			lo = w[i].t0[r] < lo ? w[i].t0[r] : lo;
			hi = w[i].t1[r] > hi ? w[i].t1[r] : hi;
		}
		dt = hi - lo;
		if (dt < best)
			best = dt;
		if (r > 0) {
			sum += dt;
			counted++;
		}
	}
	pthread_mutex_destroy(&t.mu);
	pthread_cond_destroy(&t.cv);
	pthread_barrier_destroy(&t.bar);
	for (unsigned i = 0; i < started && ok; i++)
		if (w[i].pin_err) {
			gd__probe_set(&nd->avail, GD_PROBE_UNAVAILABLE, "cannot run on cpu%d: %s", w[i].cpu,
				      strerror(w[i].pin_err));
			ok = false;
			break;
		}
	if (ok) {
		double q = TRIAD_Q;
		uint64_t probe[3] = { 0, n / 2, n - 1 };

		for (int i = 0; i < 3; i++)
			if (t.a[probe[i]] != 2.0 + q * 1.0) {
				gd__probe_set(&nd->avail, GD_PROBE_FAILED, "triad result wrong at element %llu",
					      (unsigned long long)probe[i]);
				ok = false;
			}
	}
	if (ok) {
		nd->threads = ncpu;
		nd->elems = n;
		nd->triad_gb_s = 24.0 * (double)n / best / 1e9;
		nd->triad_avg_gb_s = counted ? 24.0 * (double)n / (sum / counted) / 1e9 : nd->triad_gb_s;
		gd__probe_ok(&nd->avail);
	}
	for (unsigned i = 0; i < ncpu; i++) {
		free(w[i].t0);
		free(w[i].t1);
	}
	free(w);
unmap:
	if (t.a)
		munmap(t.a, n * sizeof(double));
	if (t.b)
		munmap(t.b, n * sizeof(double));
	if (t.c)
		munmap(t.c, n * sizeof(double));
}

/* Last-level cache bytes of the CPUs in bits: the highest cache index of
 * each CPU, counted once per distinct (level, id).  0 when sysfs says
 * nothing. */
static uint64_t llc_bytes(const struct gd_root *root, const uint8_t *bits)
{
	unsigned long long seen[64];
	size_t nseen = 0;
	uint64_t total = 0;

	for (unsigned cpu = 0; cpu <= GD_CPULIST_MAX; cpu++) {
		char rel[128], line[64];
		unsigned long long id = 0;
		int idx;
		bool dup = false;

		if (!gd_cpulist_has(bits, CPUBITS, cpu))
			continue;
		for (idx = 7; idx >= 0; idx--) {
			snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/cache/index%d/size", cpu, idx);
			if (gd_root_read_line(root, rel, line, sizeof line) >= 0)
				break;
		}
		if (idx < 0)
			continue;
		snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/cache/index%d/id", cpu, idx);
		if (gd_root_read_u64(root, rel, &id) < 0)
			id = cpu;  /* no id: count it per CPU, an overestimate at worst */
		for (size_t i = 0; i < nseen; i++)
			dup = dup || seen[i] == id;
		if (dup)
			continue;
		if (nseen < sizeof seen / sizeof seen[0])
			seen[nseen++] = id;
		{
			char *end;
			unsigned long long v = strtoull(line, &end, 10);

			if (*end == 'K')
				v <<= 10;
			else if (*end == 'M')
				v <<= 20;
			total += v;
		}
	}
	return total;
}

static void probe_node(const struct gd_root *root, const struct gd_probe_host_opts *o, const uint8_t *bits,
		       struct gd_probe_mem_node *nd)
{
	int *cpus = gd_xcalloc(GD_CPULIST_MAX + 1, sizeof *cpus);
	unsigned n = 0;
	uint64_t elems = o->stream_elems;

	for (unsigned c = 0; c <= GD_CPULIST_MAX; c++)
		if (gd_cpulist_has(bits, CPUBITS, c))
			cpus[n++] = (int)c;
	nd->ncpus = n;
	if (!n) {
		gd__probe_set(&nd->avail, GD_PROBE_UNAVAILABLE, "memory-only node: no CPUs to run the triad on");
		free(cpus);
		return;
	}
	if (o->stream_max_threads && n > o->stream_max_threads)
		n = o->stream_max_threads;
	if (!elems) {
		elems = 4 * llc_bytes(root, bits) / sizeof(double);
		if (elems < MIN_ELEMS)
			elems = MIN_ELEMS;
		if (elems > MAX_ELEMS)
			elems = MAX_ELEMS;
	}
	if (elems < n)
		elems = n;
	run_triad(cpus, n, elems, o->stream_reps, nd);
	free(cpus);
}

static void node_clear(struct gd_probe_mem_node *nd, int node)
{
	memset(nd, 0, sizeof *nd);
	nd->node = node;
	nd->triad_gb_s = nd->triad_avg_gb_s = NAN;
}

int gd_probe_host_mem(const struct gd_probe_host_opts *opts, struct gd_probe_mem_result *r)
{
	struct gd_probe_host_opts o;
	struct gd_root root;
	char why[256], line[4096];
	uint8_t *bits, *mem = NULL;
	bool mem_known = false;
	DIR *d;
	struct dirent *e;
	size_t ok = 0;

	if (!r)
		return -EINVAL;
	gd__probe_opts(opts, &o);
	memset(r, 0, sizeof *r);
	if (gd__probe_root(&o, &root, why, sizeof why) < 0) {
		gd__probe_set(&r->avail, GD_PROBE_UNAVAILABLE, "%s", why);
		return 0;
	}
	bits = gd_xcalloc(1, CPUBITS);
	d = gd_root_opendir(&root, "sys/devices/system/node");
	if (!d) {
		cpu_set_t set;

		/* no NUMA: the host is one node, on the CPUs we may use */
		r->numa = false;
		r->nnodes = 1;
		node_clear(&r->nodes[0], -1);
		if (sched_getaffinity(0, sizeof set, &set) == 0)
			for (unsigned c = 0; c < CPU_SETSIZE && c <= GD_CPULIST_MAX; c++)
				if (CPU_ISSET(c, &set))
					bits[c / 8] |= (uint8_t)(1u << (c % 8));
		probe_node(&root, &o, bits, &r->nodes[0]);
		ok = r->nodes[0].avail.state == GD_PROBE_OK;
		goto done;
	}
	r->numa = true;
	if (gd_root_read_line(&root, "sys/devices/system/node/has_memory", line, sizeof line) >= 0) {
		mem = gd_xcalloc(1, CPUBITS);
		mem_known = gd_cpulist_parse((struct gd_slice){ line, strlen(line) }, mem, CPUBITS) >= 0;
	}
	/* readdir order is the directory's: collect the numbers, then sort */
	{
		int ids[GD_PROBE_MAX_NODES];
		size_t nids = 0;

		while ((e = readdir(d))) {
			char *end;
			long id;

			if (strncmp(e->d_name, "node", 4) != 0 || !e->d_name[4])
				continue;
			id = strtol(e->d_name + 4, &end, 10);
			if (*end || id < 0 || id > GD_CPULIST_MAX || nids == GD_PROBE_MAX_NODES)
				continue;
			ids[nids++] = (int)id;
		}
		for (size_t i = 1; i < nids; i++)
			for (size_t j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
				int t = ids[j];

				ids[j] = ids[j - 1];
				ids[j - 1] = t;
			}
		for (size_t i = 0; i < nids; i++) {
			struct gd_probe_mem_node *nd = &r->nodes[r->nnodes++];
			char rel[96];

			node_clear(nd, ids[i]);
			snprintf(rel, sizeof rel, "sys/devices/system/node/node%d/cpulist", ids[i]);
			memset(bits, 0, CPUBITS);
			if (gd_root_read_line(&root, rel, line, sizeof line) < 0) {
				line[0] = '\0';  /* an empty file: no CPUs */
			}
			if (gd_cpulist_parse((struct gd_slice){ line, strlen(line) }, bits, CPUBITS) < 0) {
				gd__probe_set(&nd->avail, GD_PROBE_UNAVAILABLE, "%s: \"%.60s\" is not a CPU list", rel,
					      line);
				continue;
			}
			if (mem_known && !gd_cpulist_has(mem, CPUBITS, (uint64_t)ids[i])) {
				gd__probe_set(&nd->avail, GD_PROBE_UNAVAILABLE,
					      "node%d has no memory of its own (not in has_memory)", ids[i]);
				continue;
			}
			probe_node(&root, &o, bits, nd);
			ok += nd->avail.state == GD_PROBE_OK;
		}
	}
	closedir(d);
	if (!r->nnodes)
		gd__probe_set(&r->avail, GD_PROBE_UNAVAILABLE, "sys/devices/system/node lists no node");
done:
	if (ok)
		gd__probe_ok(&r->avail);
	else if (r->nnodes)
		gd__probe_set(&r->avail, GD_PROBE_UNAVAILABLE, "no node could be measured: %s", r->nodes[0].avail.why);
	free(bits);
	free(mem);
	gd_root_release(&root);
	return 0;
}
