/*
 * spin_lib.c - a shared library that burns CPU in its own code, built by
 * tests/e2e/job_threads.sh under the names of the CUDA driver
 * (cuda/libcuda.so.1) and of NCCL (nccl/libnccl.so.2), so that the
 * sampler's attribution by mapping can be checked on a real process.
 */
void gd_spin(double seconds);

#include <time.h>

/* Spins for seconds of wall time, every instruction inside this library
 * (clock_gettime is in the vDSO: a few samples land there). */
void gd_spin(double seconds)
{
	struct timespec a, b;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (unsigned long i = 0; i < 2000000; i++)
			x += i ^ (x >> 3);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < seconds);
}
