/* bench/procfd.c - what holding /proc/<pid>/stat open would buy and cost
 * (issue 29's note): the CPU time of open+read+close of every process's
 * stat against pread(2) on descriptors held open, and the kernel memory an
 * open, once-read procfs file keeps (its seq_file buffer).
 *
 *   make unit && build/bench/procfd [ROUNDS]   (built with the tests)
 *
 * Prints microseconds of CPU (getrusage) per file for both, and the change
 * of SUnreclaim in /proc/meminfo over 4,000 descriptors opened on
 * /proc/self/stat and read once each (run it on an idle machine: other
 * processes' slab moves the figure too). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define MAXP 65536
#define NFD 4000

static double cpu_ms(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return (double)r.ru_utime.tv_sec * 1e3 + (double)r.ru_utime.tv_usec / 1e3 + (double)r.ru_stime.tv_sec * 1e3 +
	       (double)r.ru_stime.tv_usec / 1e3;
}

static long sunreclaim_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char l[256];
	long v = -1;

	if (!f)
		return -1;
	while (fgets(l, sizeof l, f))
		if (strncmp(l, "SUnreclaim:", 11) == 0)
			v = strtol(l + 11, NULL, 10);
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	static int pids[MAXP], fds[MAXP], held[NFD];
	int rounds = argc > 1 ? atoi(argv[1]) : 200, n = 0, nheld = 0;
	struct rlimit rl = { NFD + MAXP + 64, NFD + MAXP + 64 };
	char path[64], buf[4096];
	struct dirent *e;
	DIR *d = opendir("/proc");
	double c0, c1, c2;
	long k0, k1;

	if (!d || rounds <= 0) {
		fprintf(stderr, "usage: procfd [ROUNDS]\n");
		return 2;
	}
	while ((e = readdir(d)) && n < MAXP)
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
			pids[n++] = atoi(e->d_name);
	closedir(d);
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		rl.rlim_cur = rl.rlim_max = 0;
		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}

	c0 = cpu_ms();
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < n; i++) {
			int fd;

			snprintf(path, sizeof path, "/proc/%d/stat", pids[i]);
			if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
				continue;
			if (read(fd, buf, sizeof buf) < 0)
				perror(path);
			close(fd);
		}
	c1 = cpu_ms();
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof path, "/proc/%d/stat", pids[i]);
		fds[i] = open(path, O_RDONLY | O_CLOEXEC);
	}
	c2 = cpu_ms();
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < n; i++)
			if (fds[i] >= 0 && pread(fds[i], buf, sizeof buf, 0) < 0)
				fds[i] = -1;   /* the process exited */
	printf("%d processes, %d rounds: open+read+close %.2f us CPU a file, pread on a held descriptor %.2f us\n", n,
	       rounds, (c1 - c0) * 1e3 / rounds / n, (cpu_ms() - c2) * 1e3 / rounds / n);
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);

	k0 = sunreclaim_kb();
	for (int i = 0; i < NFD; i++)
		if ((held[nheld] = open("/proc/self/stat", O_RDONLY | O_CLOEXEC)) >= 0 &&
		    pread(held[nheld], buf, sizeof buf, 0) >= 0)
			nheld++;
	k1 = sunreclaim_kb();
	printf("%d descriptors held open and read once: SUnreclaim %+ld KB, %.2f KB a descriptor\n", nheld, k1 - k0,
	       nheld ? (double)(k1 - k0) / nheld : 0.0);
	for (int i = 0; i < nheld; i++)
		close(held[i]);
	return 0;
}
