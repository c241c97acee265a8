/*
 * test_klog_scan.c - the kernel-log scanner's shortcuts change no answer:
 *
 *   - the decoy filter (scan.c): an "NVRM: " line is parsed only when it can
 *     hold an event; every line of the fixture logs and the real samples
 *     that the parser recognises is still handed to it, decoys are not;
 *   - the parallel scan of a large file (input.c): the same events in the
 *     same order and the same line counts as the one-thread scan, across
 *     window boundaries, cut long lines, a window with more lines to parse
 *     than a worker keeps, and an unterminated last line;
 *   - the hourly mktime() cache (stamp.c): the same wall times as mktime.
 */
#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "klog/klog.h"
#include "klog/lineparse.h"

static void count_ev(void *arg, enum gd_klog_kind kind, const struct gd_klog_event *ev)
{
	(void)kind;
	(void)ev;
	(*(size_t *)arg)++;
}

/* Is the line handed to the parser when fed alone? */
static bool scanner_parses(const char *line, size_t n)
{
	struct gd_klog_feed f;
	size_t got = 0;

	gd_klog_feed_init(&f, count_ev, &got, 1796000000);
	gd_klog_feed_buf(&f, line, n);
	gd_klog_feed_flush(&f);
	return f.marked > 0;
}

static size_t checked_lines, event_lines;

static void check_line(const char *line, size_t n)
{
	struct gd_klog_event ev;
	char *copy = malloc(n + 1);   /* exact size: ASan sees any overread; NUL bytes kept */

	assert_non_null(copy);
	memcpy(copy, line, n);
	copy[n] = '\0';
	checked_lines++;
	if (gd_klog_parse_line(copy, n, &ev) != GD_KLOG_NONE) {
		event_lines++;
		if (!scanner_parses(copy, n))
			fail_msg("the scanner skips a line the parser recognises: %s", copy);
	}
	free(copy);
}

static void check_file(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!fp)
		return;
	while ((n = getline(&line, &cap, fp)) > 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			n--;
		check_line(line, (size_t)n);
	}
	free(line);
	fclose(fp);
}

/* Every regular file under dir (one level of subdirectories). */
static void check_dir(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[4096];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (stat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode) && depth > 0)
			check_dir(path, depth - 1);
		else if (S_ISREG(st.st_mode) && st.st_size < (4 << 20))
			check_file(path);
	}
	closedir(d);
}

static void test_no_event_line_skipped(void **state)
{
	/* shapes the filter must keep: every way nvrm() and message() find an
	 * event in a line that holds "NVRM: " */
	static const char *const keep[] = {
		"[ 1.0] NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
		"Nov 30 01:02:03 h kernel: NVRM: GPU at PCI:0000:5d:00: GPU-6f3e0c4a-0d5e-4c1e-9a2b-3c4d5e6f7a8b",
		"[ 2.0] NVRM: GPU at 0000:01:00.0 has fallen off the bus.",
		"[ 2.1] NVRM: The NVIDIA GPU 0000:5d:00.0",
		"[ 2.1] NVRM: fallen off the bus and is not responding to commands.",
		"[ 3.0] NVRM: GPU 0000:5d:00.0: GPU has fallen off the bus.",
		"[ 4.0] NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x31:0x40:2712)",
		"[ 4.1] NVRM: rm_init_adapter failed, device minor number 0",
		"[ 4.2] NVRM: The NVIDIA probe routine failed for 1 device(s).",
		"[ 5.0] NVRM: GPU 0000:3b:00.0: _kgspBootGspRm: status NV_ERR_RESET_REQUIRED",
		"[ 6.0] NVRM: GPU0 _kgspRpcRecvPoll: GSP RPC timeout after 45 s",
		"[ 6.1] NVRM: GPU0 _kgspIsHeartbeatTimedOut: Heartbeat timed out, GSP RPC",
		"[ 6.2] NVRM: GPU0 kgspHealthCheck: GSP Timeout waiting for RPC",
		"[ 6.3] NVRM: GPU0 GSP RPC TIMEOUT function 76",
		"[ 6.4] NVRM: GPU0 RPC timedout: GSP",
		"[ 7.0] NVRM: GPU0 GSP-CrashCat Report: GSP task watchdog",
		"[ 7.1] NVRM: nvAssertFailedNoLog: Assertion failed: (status == NV_OK) || (status == "
		"NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_server.c:259",
		/* the driver marker past the message's first 48 bytes: message()'s
		 * other readers see the line */
		"[ 8.0] mce: [Hardware Error]: CPU 3: Machine Check: 0 Bank 7: cc00008000010090 NVRM: x",
		"[ 8.1] mce: a very long machine check preamble of more than forty-eight bytes NVRM: x Corrected error",
		"[ 8.2] a message that is more than forty-eight bytes long before it NVRM: x Fatal machine check",
		"[ 8.3] nvidia 0000:5d:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID) NVRM: ",
		"[ 8.4] some-driver-name-that-is-long 0000:5d:00.0: AER:   device [10de:2330] error status/mask=1/2 NVRM: x",
		"[ 9.1] Out of memory: Killed process 4711 (python) total-vm:1kB, anon-rss:2kB NVRM: x",
	};
	/* shapes it must drop (the point of it): driver lines that are no event */
	static const char *const drop[] = {
		"Nov 30 01:02:03 h kernel: [ 1.0] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  550.127.05  Release Build",
		"[ 1.1] NVRM: Persistence mode is deprecated and will be removed in a future release.",
		"[ 1.2] NVRM: API mismatch: the client has the version 550.90.07, but",
		"[ 1.3] NVRM: nvAssertOkFailedNoLog: Assertion failed: Requested object not found [NV_ERR_OBJECT_NOT_FOUND] (0x00000057)",
		"[ 1.4] NVRM: GPU Board Serial Number: 1652321012345",
		"[ 1.5] NVRM: nvidia-nvswitch0: Probing device 0000:c5:00.0, Vendor Id = 0x10de, Device Id = 0x22a3",
	};

	(void)state;
	for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
		struct gd_klog_event ev;

		if (gd_klog_parse_line(keep[i], strlen(keep[i]), &ev) == GD_KLOG_NONE)
			fail_msg("the parser finds nothing in %s", keep[i]);
		check_line(keep[i], strlen(keep[i]));
	}
	for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
		if (scanner_parses(drop[i], strlen(drop[i])))
			fail_msg("a decoy driver line is parsed: %s", drop[i]);
	/* every line of the fixture logs, the real samples and the scenarios */
	check_dir(GD_SRCDIR "/tests/klog", 0);
	check_dir(GD_SRCDIR "/tests/offline", 1);
	check_dir(GD_SRCDIR "/tests/offline/real", 1);
	check_dir(GD_SRCDIR "/tests/scenarios", 3);
	print_message("%zu lines checked, %zu of them events\n", checked_lines, event_lines);
	assert_true(event_lines > 100);
}

/* ---- the parallel scan -------------------------------------------------- */

struct rec {
	char kind[16], bus[32], text[64];
	double boot;
};

struct recs {
	struct rec *r;
	size_t n, cap;
};

static void record_ev(void *arg, enum gd_klog_kind kind, const struct gd_klog_event *ev)
{
	struct recs *v = arg;

	(void)kind;
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 1024;
		v->r = realloc(v->r, v->cap * sizeof *v->r);
		assert_non_null(v->r);
	}
	memset(&v->r[v->n], 0, sizeof v->r[v->n]);
	GD_STRSET(v->r[v->n].kind, ev->kind);
	GD_STRSET(v->r[v->n].bus, ev->pci_bus_id);
	GD_STRSET(v->r[v->n].text, ev->text);
	v->r[v->n].boot = ev->boot_s.ok ? ev->boot_s.v : -1;
	v->n++;
}

static void put(FILE *fp, size_t *n, const char *line)
{
	fputs(line, fp);
	*n += strlen(line);
}

static void read_with(const char *path, int workers, struct recs *v, struct gd_klog_feed *f)
{
	struct gd_err err;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	gd_err_clear(&err);
	memset(v, 0, sizeof *v);
	gd_klog_feed_init(f, record_ev, v, 1796000000);
	assert_int_equal(gd__klog_read_fd_workers(f, fd, path, &err, workers), 0);
	close(fd);
}

static void test_parallel_same_as_sequential(void **state)
{
	char path[] = "/tmp/gd-klog-scan.XXXXXX";
	int fd = mkstemp(path);
	FILE *fp;
	size_t n = 0, i = 0;
	char line[256];
	struct recs a, b;
	struct gd_klog_feed fa, fb;

	(void)state;
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	assert_non_null(fp);
	/* 30 MB: noise with events and decoys every few lines, so that events
	 * straddle every window boundary */
	while (n < (30u << 20)) {
		switch (i % 7) {
		case 0:
			snprintf(line, sizeof line, "[%10zu.000001] NVRM: Xid (PCI:0000:%02zx:00): 13, pid=%zu, name=p, Graphics Exception\n",
				 i, i % 256, i);
			break;
		case 3:
			snprintf(line, sizeof line, "[%10zu.000002] NVRM: nvAssertOkFailedNoLog: Assertion failed: x @ y.c:%zu\n", i, i);
			break;
		default:
			snprintf(line, sizeof line, "[%10zu.000003] docker0: port %zu(veth%07zx) entered blocking state\n", i, i % 40, i);
			break;
		}
		put(fp, &n, line);
		i++;
		if (i == 20000) {
			/* a 2 MB line, inside a window */
			put(fp, &n, "[ 1.0] NVRM: Xid (PCI:0000:01:00): 31, long ");
			for (int k = 0; k < (2 << 20) / 64; k++)
				put(fp, &n, "x123456789012345678901234567890123456789012345678901234567890123");
			put(fp, &n, "\n");
		}
		if (i == 90000) {
			/* a 9 MB line: windows with no newline at all (cut at GD_KLOG_MAX_LINE) */
			for (int k = 0; k < (9 << 20) / 64; k++)
				put(fp, &n, "y123456789012345678901234567890123456789012345678901234567890123");
			put(fp, &n, " NVRM: Xid (PCI:0000:02:00): 31, past the cut\n");
		}
		if (i == 150000) {
			/* 40,000 event lines in a row: more than a worker keeps per window */
			for (int k = 0; k < 40000; k++) {
				snprintf(line, sizeof line, "[%d.5] NVRM: GPU at PCI:0000:%02x:00: GPU-%08d-0000-0000-0000-000000000000\n", k,
					 k % 256, k);
				put(fp, &n, line);
			}
		}
	}
	put(fp, &n, "[ 9.9] NVRM: Xid (PCI:0000:03:00): 79, pid='<unknown>', name=<unknown>, unterminated");
	assert_int_equal(fclose(fp), 0);

	read_with(path, 0, &a, &fa);
	read_with(path, 3, &b, &fb);
	unlink(path);
	assert_true(a.n > 50000);
	assert_int_equal(a.n, b.n);
	assert_int_equal(fa.lines, fb.lines);
	assert_int_equal(fa.long_lines, fb.long_lines);
	assert_int_equal(fa.long_lines, 1);   /* the 9 MB line; the 2 MB one fits a window */
	assert_int_equal(fa.marked, fb.marked);
	for (size_t k = 0; k < a.n; k++)
		if (memcmp(&a.r[k], &b.r[k], sizeof a.r[k]) != 0)
			fail_msg("event %zu differs: %s %s '%s' against %s %s '%s'", k, a.r[k].kind, a.r[k].bus, a.r[k].text,
				 b.r[k].kind, b.r[k].bus, b.r[k].text);
	assert_string_equal(a.r[a.n - 1].bus, "0000:03:00.0");   /* the unterminated last line */
	free(a.r);
	free(b.r);
}

/* ---- the mktime cache --------------------------------------------------- */

static void test_mktime_cache(void **state)
{
	struct gd_klog_tcache tc;
	static const char *const zones[] = { "UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe" };

	(void)state;
	for (size_t z = 0; z < sizeof zones / sizeof zones[0]; z++) {
		setenv("TZ", zones[z], 1);
		tzset();
		memset(&tc, 0, sizeof tc);
		/* every 7 minutes 13 s over two years (DST changes included) */
		for (time_t t = 1767225600; t < 1767225600 + 2 * 365 * 86400; t += 7 * 60 + 13) {
			struct tm tm, a, b;
			time_t want;

			localtime_r(&t, &tm);
			a = tm;
			b = tm;
			b.tm_isdst = -1;
			want = mktime(&b);
			if (gd__klog_mktime(&a, &tc) != (double)want)
				fail_msg("%s: %04d-%02d-%02d %02d:%02d:%02d: cached %.0f, mktime %lld", zones[z], tm.tm_year + 1900,
					 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, gd__klog_mktime(&a, &tc),
					 (long long)want);
		}
	}
	unsetenv("TZ");
	tzset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_event_line_skipped),
		cmocka_unit_test(test_parallel_same_as_sequential),
		cmocka_unit_test(test_mktime_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
