/*
 * job_load.c - the GPU-job stand-ins of tests/e2e/job_threads.sh (listed
 * by the fake NVML as the compute process of a GPU):
 *
 *   job_load spin LIB SECONDS       the main thread spins inside LIB
 *                                   (dlopen: libcuda.so.1, libnccl.so.2)
 *   job_load futex SECONDS WORKERS  the main thread sleeps on a futex
 *                                   while WORKERS child processes (loader
 *                                   workers: they hold no GPU) burn CPU
 *   job_load spinwork LIB SECONDS WORKERS
 *                                   the main thread spins inside LIB while
 *                                   WORKERS child processes burn CPU at
 *                                   nice 19 (loader workers that lose the
 *                                   CPU to everything else on the host)
 *
 * Every mode ends by itself after SECONDS, even if nobody kills it.
 */
#include <dlfcn.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void burn(double seconds)
{
	volatile unsigned long x = 0;
	double end = now() + seconds;

	while (now() < end)
		for (unsigned long i = 0; i < 2000000; i++)
			x += i ^ (x >> 3);
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "spin") == 0) {
		void *h = dlopen(argv[2], RTLD_NOW);
		void (*spin)(double);

		if (!h) {
			fprintf(stderr, "job_load: %s\n", dlerror());
			return 1;
		}
		*(void **)&spin = dlsym(h, "gd_spin");
		if (!spin) {
			fprintf(stderr, "job_load: %s has no gd_spin\n", argv[2]);
			return 1;
		}
		spin(atof(argv[3]));
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "spinwork") == 0) {
		void *h = dlopen(argv[2], RTLD_NOW);
		void (*spin)(double);
		double secs = atof(argv[3]);
		int n = atoi(argv[4]);
		pid_t kids[16];

		if (!h || !(*(void **)&spin = dlsym(h, "gd_spin"))) {
			fprintf(stderr, "job_load: %s: no gd_spin\n", argv[2]);
			return 1;
		}
		for (int i = 0; i < n && i < 16; i++) {
			kids[i] = fork();
			if (kids[i] == 0) {
				if (setpriority(PRIO_PROCESS, 0, 19) != 0)
					perror("setpriority");
				burn(secs);
				_exit(0);
			}
		}
		spin(secs);
		for (int i = 0; i < n && i < 16; i++) {
			kill(kids[i], SIGTERM);
			waitpid(kids[i], NULL, 0);
		}
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "futex") == 0) {
		double secs = atof(argv[2]);
		int n = atoi(argv[3]);
		pid_t kids[16];
		unsigned int word = 0;
		struct timespec ts = { (time_t)secs, 0 };

		for (int i = 0; i < n && i < 16; i++) {
			kids[i] = fork();
			if (kids[i] == 0) {
				burn(secs);
				_exit(0);
			}
		}
		/* nobody wakes it: it sleeps in futex_wait until the timeout */
		syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
		for (int i = 0; i < n && i < 16; i++) {
			kill(kids[i], SIGTERM);
			waitpid(kids[i], NULL, 0);
		}
		return 0;
	}
	fprintf(stderr, "usage: job_load spin LIB SECONDS | job_load futex SECONDS WORKERS | "
			"job_load spinwork LIB SECONDS WORKERS\n");
	return 2;
}
