/*
 * bed_nccl.c - the test bed's stand-in for NCCL, built as libnccl.so.2 so
 * that gpudoctor's thread sampler attributes the time a rank spends in it to
 * NCCL by the mapping's name, as it would in a real job.  A ring all-reduce
 * of floats over TCP between the ranks of tests/multinode/: every rank sends
 * to the next and receives from the previous, N-1 times, adding what it got;
 * the sockets are non-blocking and the rank busy-polls them, as NCCL's
 * proxy and kernels poll (no poll(2), no sleep).
 *
 * ncclCommInitRank(&comm, nranks, "ADDR:PORT of the next rank", rank, port)
 * listens on port for the previous rank and connects to the next (retrying
 * until it listens); ncclAllReduce(send, recv, count, comm) sums in place;
 * ncclCommDestroy(comm).  The signatures are this bed's, not NCCL's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct bed_comm {
	int nranks, rank;
	int next_fd, prev_fd;
	float *tmp;
	size_t cap;
};

int ncclCommInitRank(struct bed_comm **out, int nranks, const char *next, int rank, int port);
int ncclAllReduce(const float *send, float *recv, size_t count, struct bed_comm *c);
void ncclCommDestroy(struct bed_comm *c);

static int nonblock(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

int ncclCommInitRank(struct bed_comm **out, int nranks, const char *next, int rank, int port)
{
	struct bed_comm *c = calloc(1, sizeof *c);
	struct sockaddr_in a = { 0 }, n = { 0 };
	char host[64];
	const char *colon = strrchr(next, ':');
	int one = 1, lfd;

	if (!c || !colon || (size_t)(colon - next) >= sizeof host)
		return -1;
	c->nranks = nranks;
	c->rank = rank;
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)port);
	if (bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 1) != 0) {
		perror("bed_nccl: listen");
		return -1;
	}
	memcpy(host, next, (size_t)(colon - next));
	host[colon - next] = '\0';
	n.sin_family = AF_INET;
	n.sin_port = htons((unsigned short)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &n.sin_addr) != 1)
		return -1;
	for (int i = 0;; i++) {
		c->next_fd = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(c->next_fd, (struct sockaddr *)&n, sizeof n) == 0)
			break;
		close(c->next_fd);
		if (i > 600) {
			fprintf(stderr, "bed_nccl: rank %d cannot reach %s\n", rank, next);
			return -1;
		}
		usleep(50000);
	}
	c->prev_fd = accept(lfd, NULL, NULL);
	close(lfd);
	if (c->prev_fd < 0)
		return -1;
	nonblock(c->next_fd);
	nonblock(c->prev_fd);
	*out = c;
	return 0;
}

/* Sends len bytes of s to the next rank while receiving len bytes from the
 * previous into r, spinning on both non-blocking sockets. */
static int exchange(struct bed_comm *c, const char *s, char *r, size_t len)
{
	size_t sent = 0, got = 0, idle = 0;

	while (sent < len || got < len) {
		size_t was = sent + got;
		ssize_t k;
		volatile unsigned long x = 0;

		/* poll in this library between system calls, as NCCL polls its
		 * flags in memory: the samples land here, not in the kernel; after
		 * a while without progress, sched_yield (the rank stays runnable, but
		 * the bed's two CPUs go to a rank with work sooner) */
		for (unsigned long i = 0; i < 20000; i++)
			x += i;
		if (++idle % 16 == 0)
			sched_yield();

		if (sent < len) {
			k = send(c->next_fd, s + sent, len - sent, MSG_NOSIGNAL);
			if (k > 0)
				sent += (size_t)k;
			else if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
				return -1;
		}
		if (got < len) {
			k = recv(c->prev_fd, r + got, len - got, 0);
			if (k > 0)
				got += (size_t)k;
			else if (k == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
				return -1;
		}
		if (sent + got != was)
			idle = 0;
	}
	return 0;
}

/* A peer gone: wait for it in here, spinning, as NCCL does until its
 * watchdog gives up (GDBED_NCCL_TIMEOUT seconds, default 300). */
static int hang(void)
{
	const char *t = getenv("GDBED_NCCL_TIMEOUT");
	struct timespec a, b;
	double limit = t ? atof(t) : 300;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (unsigned long i = 0; i < 20000; i++)
			x += i;
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((double)(b.tv_sec - a.tv_sec) < limit);
	return -1;
}

int ncclAllReduce(const float *send, float *recv, size_t count, struct bed_comm *c)
{
	float *pass;

	if (c->cap < count) {
		free(c->tmp);
		c->tmp = malloc(2 * count * sizeof *c->tmp);
		if (!c->tmp)
			return -1;
		c->cap = count;
	}
	pass = c->tmp + count;
	memcpy(pass, send, count * sizeof *send);
	if (recv != send)
		memcpy(recv, send, count * sizeof *send);
	for (int step = 0; step < c->nranks - 1; step++) {
		if (exchange(c, (const char *)pass, (char *)c->tmp, count * sizeof *send) != 0)
			return hang();
		memcpy(pass, c->tmp, count * sizeof *send);
		for (size_t i = 0; i < count; i++)
			recv[i] += pass[i];
	}
	return 0;
}

void ncclCommDestroy(struct bed_comm *c)
{
	if (!c)
		return;
	close(c->next_fd);
	close(c->prev_fd);
	free(c->tmp);
	free(c);
}
