/*
 * bench_collect.c - what one collection cycle of gpudoctor costs, measured
 * in process so that process start-up does not drown it.
 *
 *   bench_collect collect CYCLES [ROOT]
 *       gd_collect_all() on ROOT (default "/") CYCLES times (one warm-up
 *       cycle first, not counted), each into a fresh snapshot that is then
 *       released, with one collector context for all of them: what `watch`,
 *       `record` and `serve` do per sample, minus printing.
 *   bench_collect serve CYCLES [ROOT]
 *       the same with the tiered process walk of serve, watch and record
 *       (gd_proc_cache_new_tiered): stat and io of every process each
 *       cycle, the rest on the slow round; warmed up past the young
 *       cycles, in which every process is read whole.  Both add the median of the
 *       per-cycle CPU times (cpu_ms_median).
 *       BENCH_LIVE=T,P (a synthetic root): before each counted cycle, and
 *       outside its CPU and wall time, the root moves as a busy node does:
 *       each GPU job thread's schedstat with probability T (it ran: its
 *       stat is read again), the stat of every GPU job process and of a
 *       share P of the others a tick of user time (their io is read).
 *   bench_collect tiered-diff WARM ROOT...
 *       for tests/scenarios/run.sh: the process table of each ROOT in turn
 *       (a scenario's t0, t1, ...) read by the tiered walk with one cache,
 *       after WARM cycles of the first ROOT (so that no process is young
 *       and most come from the slow round), against the same read whole.
 *       Prints "same N" when every table is the same but for detail_uptime_s
 *       (the rules then cannot judge otherwise), else the tiered snapshots
 *       (host, mounts, procs) as JSON lines, one per ROOT; exit 0.
 *   bench_collect once [ROOT]
 *       one gd_collect_all() with a fresh context: what bench/run.sh traces
 *       (strace) to list the files a cycle reads, for the floor below.
 *   bench_collect read CYCLES FILE...
 *       the floor in process: open, read(2) to the end and close each FILE,
 *       CYCLES times.  A FILE "DIR/[0-9]*" + "/stat" (DIR: /proc, or a root's
 *       proc) stands for the stat file of every process, listed afresh each
 *       cycle.
 *   bench_collect readlist CYCLES LIST
 *       the floor of the same files: LIST holds one "F path", "D path" or
 *       "L path" line per file a cycle opened (bench/floor_list.py, from an
 *       strace of `once`); each cycle opens, reads to the end and closes every
 *       F, lists every D with getdents64 and readlinks every L, by absolute
 *       path and without parsing anything.
 *   bench_collect exec CYCLES CMD [ARG...]
 *       runs CMD CYCLES times (fork, exec, wait) and reports the CPU time of
 *       the children and the largest peak RSS among them.
 *
 * Each mode prints one line:
 *   cycles=N cpu_ms_per_cycle=X wall_ms_per_cycle=Y peak_rss_kib=Z
 * (collect adds "source name=C wall_ms_per_cycle=X" per collector, from the
 * durations gd_collect_all records in the snapshot), where CPU is user + system time from getrusage(2) (RUSAGE_SELF, or
 * RUSAGE_CHILDREN for exec) and peak RSS is ru_maxrss.
 *
 * bench/run.sh builds this with the Makefile's flags against libgd.a.
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "collect/collect.h"
#include "model/snapshot_json.h"
#include "core/nofile.h"
#include "core/root.h"
#include "model/snapshot.h"
#include "collect/job_samples.h"
#include "nvml/nvml.h"

static double tv_ms(struct timeval tv)
{
	return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double cpu_ms(int who, long *maxrss_kib)
{
	struct rusage ru;

	getrusage(who, &ru);
	if (maxrss_kib)
		*maxrss_kib = ru.ru_maxrss;
	return tv_ms(ru.ru_utime) + tv_ms(ru.ru_stime);
}

static void report(long cycles, double cpu, double wall, long rss)
{
	printf("cycles=%ld cpu_ms_per_cycle=%.3f wall_ms_per_cycle=%.3f peak_rss_kib=%ld\n", cycles,
	       cpu / (double)cycles, wall / (double)cycles, rss);
}

/* The collectors' context as the commands build it (src/cli/cli.c
 * ctx_open): NVML opened once for every cycle, GPU jobs' threads sampled
 * from one cycle to the next on the live host only, the processes' cache
 * kept from one cycle to the next. */
static void ctx_open(struct gd_collect_ctx *ctx, const struct gd_root *root, bool tiered)
{
	memset(ctx, 0, sizeof *ctx);
	ctx->root = root;
	ctx->nvml_path = getenv("GPUDOCTOR_NVML");
	ctx->nvml = gd_nvml_open(ctx->nvml_path, 0);
	ctx->sampler = root->is_host ? gd_job_sampler_new() : NULL;
	if (tiered)
		gd_nofile_raise(GD_NOFILE_WANT);   /* as serve, watch and record */
	ctx->proc_cache = tiered ? gd_proc_cache_new_tiered(GD_PROC_YOUNG, GD_PROC_SLOW_ROUND) : gd_proc_cache_new();
}

static void ctx_close(struct gd_collect_ctx *ctx)
{
	gd_proc_cache_free(ctx->proc_cache);
	gd_job_sampler_free(ctx->sampler);
	gd_nvml_close(ctx->nvml);
}

/* BENCH_LIVE: what moves between two cycles (see the top). */
struct live {
	double pt, pp;
	char **thr, **job, **oth;   /* paths: job threads' schedstat, job and other processes' stat */
	size_t nthr, njob, noth;
	unsigned seed;
};

static void live_add(char ***v, size_t *n, const char *root, unsigned long long pid, unsigned long long tid)
{
	char path[512];
	char **nv = realloc(*v, (*n + 1) * sizeof **v);

	if (tid)
		snprintf(path, sizeof path, "%s/proc/%llu/task/%llu/schedstat", root, pid, tid);
	else
		snprintf(path, sizeof path, "%s/proc/%llu/stat", root, pid);
	if (!nv || !(nv[*n] = strdup(path))) {
		*v = nv;
		return;
	}
	*v = nv;
	(*n)++;
}

/* The lists from a snapshot of the root; false when BENCH_LIVE is unset. */
static bool live_init(struct live *l, const char *root, const struct gd_snapshot *s)
{
	const char *env = getenv("BENCH_LIVE");

	memset(l, 0, sizeof *l);
	if (!env || sscanf(env, "%lf,%lf", &l->pt, &l->pp) != 2)
		return false;
	if (strcmp(root, "/") == 0) {   /* the files it rewrites are a synthetic root's */
		fputs("bench_collect: BENCH_LIVE is for a synthetic root, not /: ignored\n", stderr);
		return false;
	}
	l->seed = 29;
	GD_VEC_EACH(s->job_threads, const struct gd_job_thread, jt)
		live_add(&l->thr, &l->nthr, root, (unsigned long long)jt->pid.v, (unsigned long long)jt->tid.v);
	GD_VEC_EACH(s->procs, const struct gd_proc, p) {
		bool job = false;

		GD_VEC_EACH(s->job_threads, const struct gd_job_thread, jt)
			job = job || jt->pid.v == p->pid.v;
		if (job)
			live_add(&l->job, &l->njob, root, (unsigned long long)p->pid.v, 0);
		else
			live_add(&l->oth, &l->noth, root, (unsigned long long)p->pid.v, 0);
	}
	return true;
}

static void live_free(struct live *l)
{
	for (size_t i = 0; i < l->nthr; i++)
		free(l->thr[i]);
	for (size_t i = 0; i < l->njob; i++)
		free(l->job[i]);
	for (size_t i = 0; i < l->noth; i++)
		free(l->oth[i]);
	free(l->thr);
	free(l->job);
	free(l->oth);
}

/* Rewrites path with its field k (0: the first) larger by by: the fields
 * after the ")" of a stat line (k 11: utime), or of a schedstat line. */
static void bump(const char *path, int k, unsigned long long by)
{
	char buf[4096], out[4096];
	FILE *f = fopen(path, "r");
	size_t n, o;
	char *rest, *save = NULL, *tok;
	int i = 0;

	if (!f)
		return;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	rest = strrchr(buf, ')');
	rest = rest ? rest + 1 : buf;
	o = (size_t)(rest - buf);
	memcpy(out, buf, o);
	for (tok = strtok_r(rest, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save), i++) {
		const char *sep = o ? " " : "";
		int w = i == k ? snprintf(out + o, sizeof out - o, "%s%llu", sep, strtoull(tok, NULL, 10) + by)
			       : snprintf(out + o, sizeof out - o, "%s%s", sep, tok);

		if (w < 0 || (size_t)w >= sizeof out - o - 1)
			return;   /* not a line this rewrites: left as it is */
		o += (size_t)w;
	}
	out[o++] = '\n';
	if (!(f = fopen(path, "w")))
		return;
	fwrite(out, 1, o, f);
	fclose(f);
}

static void live_step(struct live *l)
{
	for (size_t i = 0; i < l->nthr; i++)
		if ((double)rand_r(&l->seed) / RAND_MAX < l->pt) {
			bump(l->thr[i], 0, 1000000);   /* run ns */
			bump(l->thr[i], 2, 1);         /* timeslices */
		}
	for (size_t i = 0; i < l->njob; i++)
		bump(l->job[i], 11, 1);
	for (size_t i = 0; i < l->noth; i++)
		if ((double)rand_r(&l->seed) / RAND_MAX < l->pp)
			bump(l->oth[i], 11, 1);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int bench_collect(long cycles, const char *rootpath, bool tiered)
{
	struct gd_root root;
	struct gd_collect_ctx ctx;
	struct gd_err err;
	double c0, w0;
	long rss = 0;
	double *per = calloc(gd_ncollectors, sizeof *per), *each = calloc((size_t)cycles, sizeof *each), c1;
	double c_live = 0, w_live = 0;
	struct live live;
	bool live_on = false;

	if (!per || !each) {
		free(per);
		free(each);
		return 1;
	}

	gd_err_clear(&err);
	if (gd_root_open(&root, rootpath, &err) < 0) {
		fprintf(stderr, "bench_collect: %s\n", err.msg);
		free(per);
		free(each);
		return 1;
	}
	ctx_open(&ctx, &root, tiered);
	c0 = cpu_ms(RUSAGE_SELF, NULL);
	w0 = now_ms();
	c1 = c0;
	memset(&live, 0, sizeof live);
	/* warm-up, not counted: one cycle (the cache filled), or for the
	 * tiered walk past its young cycles (every process is read whole in them) */
	for (long i = tiered ? -(long)GD_PROC_YOUNG - 1 : -1; i < cycles; i++) {
		struct gd_snapshot s;
		double ci;

		if (i == 0) { /* the warm-up cycle is not counted */
			c0 = c1 = cpu_ms(RUSAGE_SELF, NULL);
			w0 = now_ms();
		}
		if (live_on && i >= 0) {   /* the root moves, outside the cycle's times */
			double w = now_ms();

			live_step(&live);
			w_live += now_ms() - w;
			ci = cpu_ms(RUSAGE_SELF, NULL);
			c_live += ci - c1;
			c1 = ci;
		}
		gd_snapshot_init(&s);
		gd_collect_all(&ctx, &s);
		ci = cpu_ms(RUSAGE_SELF, NULL);
		if (i >= 0)
			each[i] = ci - c1;
		c1 = ci;
		if (i == -1 && !live_on)
			live_on = live_init(&live, rootpath, &s);
		/* gd_collect_all records one source per collector, in order. */
		for (size_t k = 0; i >= 0 && k < s.sources.n && k < gd_ncollectors; k++) {
			const struct gd_source *src = GD_VEC_AT(s.sources, struct gd_source, k);

			if (src->duration_s.ok)
				per[k] += src->duration_s.v * 1e3;
		}
		gd_snapshot_release(&s);
	}
	c0 = cpu_ms(RUSAGE_SELF, &rss) - c0 - c_live;
	report(cycles, c0, now_ms() - w0 - w_live, rss);
	if (live_on)
		printf("live: %zu job threads (moved with probability %g), %zu job processes, %zu others (%g)\n",
		       live.nthr, live.pt, live.njob, live.noth, live.pp);
	live_free(&live);
	qsort(each, (size_t)cycles, sizeof *each, cmp_dbl);
	printf("cpu_ms_median=%.3f\n", each[cycles / 2]);
	free(each);
	for (size_t k = 0; k < gd_ncollectors; k++)
		printf("source name=%s wall_ms_per_cycle=%.4f\n", gd_collectors[k].name, per[k] / (double)cycles);
	free(per);
	ctx_close(&ctx);
	gd_root_release(&root);
	return 0;
}

/* The collectors a process table needs: uptime (ages), mounts (netfs). */
static void collect_procs(const struct gd_collect_ctx *ctx, struct gd_snapshot *s)
{
	static const char *const names[] = { "host", "proc_mounts", "processes" };

	for (size_t k = 0; k < gd_ncollectors; k++)
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
			if (strcmp(gd_collectors[k].name, names[i]) == 0) {
				struct gd_err err;

				gd_err_clear(&err);
				gd_collectors[k].collect(ctx, s, &err);
			}
}

/* The procs of s as JSON without detail_uptime_s. */
static json_t *procs_json(const struct gd_snapshot *s)
{
	json_t *j = gd_snapshot_to_json(s), *procs = json_incref(json_object_get(j, "procs")), *p;
	size_t i;

	json_decref(j);
	json_array_foreach(procs, i, p)
		json_object_del(p, "detail_uptime_s");
	return procs;
}

static int bench_tiered_diff(long warm, char **roots, int nroots)
{
	struct gd_collect_ctx tiered = { 0 }, full = { 0 };
	struct gd_snapshot *snaps = calloc((size_t)nroots, sizeof *snaps);
	struct gd_root root;
	struct gd_err err;
	bool same = true;

	if (!snaps)
		return 1;
	tiered.proc_cache = gd_proc_cache_new_tiered(GD_PROC_YOUNG, GD_PROC_SLOW_ROUND);
	for (int k = 0; k < nroots; k++) {
		struct gd_snapshot whole;
		json_t *a, *b;

		gd_err_clear(&err);
		if (gd_root_open(&root, roots[k], &err) < 0) {
			fprintf(stderr, "bench_collect: %s\n", err.msg);
			return 1;
		}
		tiered.root = full.root = &root;
		for (long i = 0; k == 0 && i < warm; i++) {
			struct gd_snapshot w;

			gd_snapshot_init(&w);
			collect_procs(&tiered, &w);
			gd_snapshot_release(&w);
		}
		gd_snapshot_init(&snaps[k]);
		collect_procs(&tiered, &snaps[k]);
		gd_snapshot_init(&whole);
		collect_procs(&full, &whole);
		a = procs_json(&snaps[k]);
		b = procs_json(&whole);
		if (!json_equal(a, b))
			same = false;
		json_decref(a);
		json_decref(b);
		gd_snapshot_release(&whole);
		gd_root_release(&root);
	}
	if (same)
		printf("same %d\n", nroots);
	for (int k = 0; k < nroots; k++) {
		if (!same)
			gd_snapshot_write_line(&snaps[k], stdout);
		gd_snapshot_release(&snaps[k]);
	}
	free(snaps);
	gd_proc_cache_free(tiered.proc_cache);
	return 0;
}

/* One cycle with a fresh context (what bench/run.sh traces). */
static int bench_once(const char *rootpath)
{
	struct gd_root root;
	struct gd_collect_ctx ctx;
	struct gd_snapshot s;
	struct gd_err err;

	gd_err_clear(&err);
	if (gd_root_open(&root, rootpath, &err) < 0) {
		fprintf(stderr, "bench_collect: %s\n", err.msg);
		return 1;
	}
	ctx_open(&ctx, &root, false);
	gd_snapshot_init(&s);
	gd_collect_all(&ctx, &s);
	printf("procs=%zu threads=%zu job_threads=%zu\n", s.procs.n, s.threads.n, s.job_threads.n);
	gd_snapshot_release(&s);
	ctx_close(&ctx);
	gd_root_release(&root);
	return 0;
}

static void read_one(const char *path, char *buf, size_t size)
{
	/* O_NONBLOCK: /dev/kmsg ends a read with EAGAIN, not by blocking */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return;
	while (read(fd, buf, size) > 0)
		;
	close(fd);
}

/* The stat file of every process under dir ("/proc", or a root's). */
static void read_all_pid_stat(const char *dir, char *buf, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4400];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "%s/%s/stat", dir, e->d_name);
		read_one(path, buf, size);
	}
	closedir(d);
}

static int bench_read(long cycles, char **files, int nfiles)
{
	static const char all_pids[] = "/[0-9]*/stat";
	size_t size = 1 << 16;
	char *buf = malloc(size);
	double c0, w0;
	long rss = 0;

	if (!buf)
		return 1;
	c0 = cpu_ms(RUSAGE_SELF, NULL);
	w0 = now_ms();
	for (long i = 0; i < cycles; i++)
		for (int k = 0; k < nfiles; k++) {
			size_t n = strlen(files[k]), m = sizeof all_pids - 1;

			if (n > m && strcmp(files[k] + n - m, all_pids) == 0) {
				char dir[4096];

				snprintf(dir, sizeof dir, "%.*s", (int)(n - m), files[k]);
				read_all_pid_stat(dir, buf, size);
			} else {
				read_one(files[k], buf, size);
			}
		}
	c0 = cpu_ms(RUSAGE_SELF, &rss) - c0;
	report(cycles, c0, now_ms() - w0, rss);
	free(buf);
	return 0;
}

struct entry {
	char op;      /* 'F' read, 'D' list, 'L' readlink */
	char *path;
};

static int bench_readlist(long cycles, const char *list)
{
	FILE *f = fopen(list, "r");
	struct entry *v = NULL;
	size_t n = 0, cap = 0, size = 1 << 16;
	char line[4200], *buf = malloc(size);
	double c0, w0;
	long rss = 0;

	if (!f || !buf) {
		fprintf(stderr, "bench_collect: %s: %s\n", list, strerror(errno));
		free(buf);
		if (f)
			fclose(f);
		return 1;
	}
	while (fgets(line, sizeof line, f)) {
		size_t len = strcspn(line, "\n");

		line[len] = '\0';
		if (len < 3 || line[1] != ' ' || !strchr("FDL", line[0]))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			v = realloc(v, cap * sizeof *v);
			if (!v)
				return 1;
		}
		v[n].op = line[0];
		v[n++].path = strdup(line + 2);
	}
	fclose(f);
	c0 = cpu_ms(RUSAGE_SELF, NULL);
	w0 = now_ms();
	for (long i = 0; i < cycles; i++)
		for (size_t k = 0; k < n; k++) {
			int fd;

			switch (v[k].op) {
			case 'F':
				read_one(v[k].path, buf, size);
				break;
			case 'D':
				fd = open(v[k].path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
				if (fd < 0)
					break;
				while (getdents64(fd, buf, size) > 0)
					;
				close(fd);
				break;
			default:
				if (readlink(v[k].path, buf, size) < 0)
					break;
			}
		}
	c0 = cpu_ms(RUSAGE_SELF, &rss) - c0;
	report(cycles, c0, now_ms() - w0, rss);
	printf("files=%zu\n", n);
	for (size_t k = 0; k < n; k++)
		free(v[k].path);
	free(v);
	free(buf);
	return 0;
}

static int bench_exec(long cycles, char **argv)
{
	double c0 = cpu_ms(RUSAGE_CHILDREN, NULL), w0 = now_ms();
	long rss = 0;

	for (long i = 0; i < cycles; i++) {
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			perror("bench_collect: fork");
			return 1;
		}
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);

			if (null >= 0)
				dup2(null, STDOUT_FILENO);
			execvp(argv[0], argv);
			_exit(127);
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status) > 2) {
			fprintf(stderr, "bench_collect: %s failed (status %d)\n", argv[0], status);
			return 1;
		}
	}
	c0 = cpu_ms(RUSAGE_CHILDREN, &rss) - c0;
	report(cycles, c0, now_ms() - w0, rss);
	return 0;
}

int main(int argc, char **argv)
{
	long cycles = argc > 2 ? strtol(argv[2], NULL, 10) : 0;

	if (argc >= 2 && strcmp(argv[1], "once") == 0)
		return bench_once(argc > 2 ? argv[2] : "/");
	if (argc > 3 && strcmp(argv[1], "tiered-diff") == 0)
		return bench_tiered_diff(cycles, argv + 3, argc - 3);
	if (argc < 3 || cycles <= 0) {
		fprintf(stderr, "usage: bench_collect collect|serve CYCLES [ROOT] | once [ROOT] | tiered-diff WARM ROOT... | read CYCLES FILE... |\n"
				"       readlist CYCLES LIST | exec CYCLES CMD [ARG...]\n");
		return 2;
	}
	if (strcmp(argv[1], "collect") == 0)
		return bench_collect(cycles, argc > 3 ? argv[3] : "/", false);
	if (strcmp(argv[1], "serve") == 0)
		return bench_collect(cycles, argc > 3 ? argv[3] : "/", true);
	if (strcmp(argv[1], "readlist") == 0 && argc > 3)
		return bench_readlist(cycles, argv[3]);
	if (strcmp(argv[1], "read") == 0 && argc > 3)
		return bench_read(cycles, argv + 3, argc - 3);
	if (strcmp(argv[1], "exec") == 0 && argc > 3)
		return bench_exec(cycles, argv + 3);
	fprintf(stderr, "bench_collect: unknown mode %s\n", argv[1]);
	return 2;
}
