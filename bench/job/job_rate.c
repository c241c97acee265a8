/*
 * job_rate.c - the work rate of a spinning "GPU job" for
 * bench/job_sampler.sh: counts loop iterations until the thread has used
 * SECONDS of its own CPU time (CLOCK_THREAD_CPUTIME_ID, so other load on
 * the machine does not count) and prints iterations per CPU-second.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3, t0 = cpu_s(), t;
	volatile unsigned long x = 0;
	unsigned long long it = 0;

	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i ^ (x >> 3);
		it += 100000;
	} while ((t = cpu_s() - t0) < secs);
	printf("%.0f\n", (double)it / t);
	return 0;
}
