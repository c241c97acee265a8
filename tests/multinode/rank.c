/*
 * rank.c - one rank of the test bed's job (tests/multinode/): a real
 * process doing steps of work and a ring all-reduce inside the bed's
 * libnccl.so.2 (bed_nccl.c), as a training rank would.
 *
 *   rank NEXT_ADDR:PORT PORT CTL_DIR STEP_MS SECONDS
 *
 * RANK and WORLD_SIZE come from the environment (with the launcher's other
 * variables, which gpudoctor reads from /proc/<pid>/environ).  Each step:
 * ask the loader worker (a child process) for a batch and wait for it in
 * read(2); "compute" STEP_MS of CPU time (the GPU's work: CTL_DIR/busy is
 * non-empty meanwhile, the fake NVML's load_file, so the node's GPU looks
 * busy exactly while this rank works); all-reduce 16 KiB in NCCL, spinning.
 * CTL_DIR/procs gets "PID:BYTES" at the start (the fake NVML's procs_file).
 * CTL_DIR/slow and CTL_DIR/loader, read every step, scale the compute and
 * the loader's work per batch (a throttled GPU, a starved loader).  Ends by
 * itself after SECONDS, or when a peer goes away.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct bed_comm;
int ncclCommInitRank(struct bed_comm **out, int nranks, const char *next, int rank, int port);
int ncclAllReduce(const float *send, float *recv, size_t count, struct bed_comm *c);
void ncclCommDestroy(struct bed_comm *c);

#define COUNT 4096
#define LOADER_MS 2.0

static double clock_s(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Burns ms of this thread's CPU time (a fixed amount of work, however
 * long the CPU takes to give it). */
static void burn(double ms)
{
	volatile unsigned long x = 0;
	double end = clock_s(CLOCK_THREAD_CPUTIME_ID) + ms / 1000.0;

	while (clock_s(CLOCK_THREAD_CPUTIME_ID) < end)
		for (unsigned long i = 0; i < 20000; i++)
			x += i ^ (x >> 3);
}

/* The number in dir/name, or 1 when there is none. */
static double factor(const char *dir, const char *name)
{
	char path[512], buf[32];
	double v = 1;
	int fd;
	ssize_t n;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n > 0) {
		buf[n] = '\0';
		v = atof(buf);
	}
	return v > 0 ? v : 1;
}

static void loader(int fd, const char *dir)
{
	char c;

	prctl(PR_SET_NAME, "pt_data_worker");
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (read(fd, &c, 1) == 1) {
		burn(LOADER_MS * factor(dir, "loader"));
		if (write(fd, &c, 1) != 1)
			break;
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	static float buf[COUNT];
	struct bed_comm *comm;
	const char *r = getenv("RANK"), *w = getenv("WORLD_SIZE");
	char path[512], line[64];
	int sv[2], busy, fd, rank, world;
	double step_ms, end;
	pid_t kid;

	if (argc != 6 || !r || !w) {
		fprintf(stderr, "usage: RANK=R WORLD_SIZE=N rank NEXT_ADDR:PORT PORT CTL_DIR STEP_MS SECONDS\n");
		return 2;
	}
	rank = atoi(r);
	world = atoi(w);
	step_ms = atof(argv[4]);
	end = clock_s(CLOCK_MONOTONIC) + atof(argv[5]);
	snprintf(path, sizeof path, "%s/busy", argv[3]);
	busy = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	snprintf(path, sizeof path, "%s/procs.tmp", argv[3]);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (busy < 0 || fd < 0) {
		perror("rank: ctl");
		return 1;
	}
	snprintf(line, sizeof line, "%d:1073741824\n", (int)getpid());
	if (write(fd, line, strlen(line)) < 0 || close(fd) != 0)
		return 1;
	{
		char final[512];

		snprintf(final, sizeof final, "%s/procs", argv[3]);
		if (rename(path, final) != 0)
			return 1;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return 1;
	kid = fork();
	if (kid == 0) {
		close(sv[0]);
		loader(sv[1], argv[3]);
	}
	close(sv[1]);
	if (ncclCommInitRank(&comm, world, argv[1], rank, atoi(argv[2])) != 0) {
		fprintf(stderr, "rank %d: init failed\n", rank);
		return 1;
	}
	for (int i = 0; i < COUNT; i++)
		buf[i] = (float)rank;
	while (clock_s(CLOCK_MONOTONIC) < end) {
		char c = 'b';

		if (write(sv[0], &c, 1) != 1 || read(sv[0], &c, 1) != 1)
			break;
		if (pwrite(busy, "1\n", 2, 0) != 2)
			break;
		burn(step_ms * factor(argv[3], "slow"));
		if (ftruncate(busy, 0) != 0)
			break;
		if (ncclAllReduce(buf, buf, COUNT, comm) != 0)
			break;
		for (int i = 0; i < COUNT; i++)
			buf[i] /= (float)world;
	}
	if (ftruncate(busy, 0) != 0)
		perror("rank: busy");
	ncclCommDestroy(comm);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	return 0;
}
