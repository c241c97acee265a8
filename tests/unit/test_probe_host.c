/*
 * test_probe_host.c - the host probes (src/probe/host*.c) and their rules
 * (src/rules/rule_probe_host.c).
 *
 * The parser of `ipmitool dcmi power reading` runs over real outputs from
 * issue threads (tests/probe/host_ipmi/, MANIFEST) and over malformed input.
 * The rules run over results built in C: each fires on a scenario and stays
 * silent on a healthy one.  The probes run for real: storage on files this
 * test writes (in the build tree, on disk, and on /dev/shm, a tmpfs that
 * refuses O_DIRECT), STREAM on fixture NUMA trees whose nodes name this
 * machine's CPUs, RAPL on a fixture powercap tree, ipmitool as small
 * scripts that print a real sample, fail, or hang, and the real ipmitool
 * when installed (no BMC here: it fails, and the probe says why).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "testutil.h"

#include "core/root.h"
#include "probe/host.h"

#define IPMI_DIR GD_SRCDIR "/tests/probe/host_ipmi/"

/* ---- helpers ----------------------------------------------------------- */

static void mkdirs(const char *path)
{
	char tmp[1024];

	snprintf(tmp, sizeof tmp, "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	mkdir(tmp, 0755);
}

/* Writes root/rel with text, creating the directories. */
static void put(const char *root, const char *rel, const char *text)
{
	char path[1024], dir[1024];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void link_at(const char *root, const char *rel, const char *target)
{
	char path[1024], dir[1024];

	snprintf(path, sizeof path, "%s/%s", root, rel);
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	assert_int_equal(symlink(target, path), 0);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void rm_rf(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void write_file(const char *path, size_t size, unsigned char fill)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	unsigned char buf[65536];

	assert_true(fd >= 0);
	memset(buf, fill, sizeof buf);
	while (size) {
		size_t k = size < sizeof buf ? size : sizeof buf;

		assert_int_equal(write(fd, buf, k), (ssize_t)k);
		size -= k;
	}
	assert_int_equal(fsync(fd), 0);
	close(fd);
}

static const struct gd_finding *only_finding(const struct gd_findings *f, const char *id)
{
	const struct gd_finding *hit = NULL;
	size_t n = 0;

	GD_VEC_EACH(f->items, const struct gd_finding, it)
		if (strcmp(it->id, id) == 0) {
			hit = it;
			n++;
		}
	assert_int_equal(n, 1);
	return hit;
}

static size_t count_id(const struct gd_findings *f, const char *id)
{
	size_t n = 0;

	GD_VEC_EACH(f->items, const struct gd_finding, it)
		n += strcmp(it->id, id) == 0;
	return n;
}

static const char *unknown_of(const struct gd_findings *f, const char *id)
{
	GD_VEC_EACH(f->unknown, const struct gd_unknown, u)
		if (strcmp(u->id, id) == 0)
			return u->reason;
	return NULL;
}

static const struct gd_evidence *ev_of(const struct gd_finding *f, const char *name)
{
	for (size_t i = 0; i < f->nev; i++)
		if (strcmp(f->ev[i].name, name) == 0)
			return &f->ev[i];
	fail_msg("no evidence %s", name);
	return NULL;
}

/* ---- ipmitool dcmi power reading --------------------------------------- */

static void test_ipmi_real_samples(void **state)
{
	static const struct {
		const char *file;
		double inst, min, max, avg, period;
		bool has_state, active;
	} cases[] = {
		{ "lovoo-ipmi_exporter-18.txt", 215, 162, 276, 176, 1131466, true, true },
		{ "radiorabe-rabe-zabbix-101.txt", 197, 175, 242, 190, 123893, true, true },
		{ "openbmc-phosphor-host-ipmid-167-zero.txt", 0, 0, 0, 0, 0, true, false },
		{ "openbmc-phosphor-host-ipmid-167-fixed.txt", 360, 360, 360, 360, 0, true, false },
		{ "openbmc-openbmc-3257.txt", 319, 319, 319, 319, 0, true, false },
		/* the timestamp and "Sampling period:" on one line */
		{ "ateodorescu-home-assistant-addons-38-joined.txt", 186, 129, 386, 198, 898033, true, true },
		/* ... and the state word cut off */
		{ "ateodorescu-home-assistant-ipmi-13-supermicro.txt", 109, 38, 242, 102, 65530, false, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char path[512];
		struct gd_ipmi_power p;
		struct gd_err err;
		size_t len;
		char *buf;

		snprintf(path, sizeof path, IPMI_DIR "%s", cases[i].file);
		buf = slurp(path, &len);
		gd_err_clear(&err);
		assert_int_equal(gd_ipmi_dcmi_parse(buf, len, &p, &err), 0);
		assert_true(p.inst_w == cases[i].inst);
		assert_true(p.min_w == cases[i].min);
		assert_true(p.max_w == cases[i].max);
		assert_true(p.avg_w == cases[i].avg);
		assert_true(p.period_s == cases[i].period);
		assert_int_equal(p.has_state, cases[i].has_state);
		assert_int_equal(p.active, cases[i].active);
		free(buf);
	}
	/* ipmitool.exe on Windows (the home-assistant threads) ends lines with CRLF */
	{
		const char *crlf = "\r\n    Instantaneous power reading:                   186 Watts\r\n"
				   "    Sampling period:                          00898033 Seconds.\r\n"
				   "    Power reading state is:                   activated\r\n";
		struct gd_ipmi_power p;
		struct gd_err err;

		gd_err_clear(&err);
		assert_int_equal(gd_ipmi_dcmi_parse(crlf, strlen(crlf), &p, &err), 0);
		assert_true(p.inst_w == 186 && p.period_s == 898033);
		assert_true(p.active && isnan(p.min_w));
	}
}

static void test_ipmi_malformed(void **state)
{
	static const struct {
		const char *text;
		int rc;
		const char *msg;
	} cases[] = {
		{ "", -ENODATA, "no \"Instantaneous power reading:\" line" },
		{ "Could not open device at /dev/ipmi0\n", -ENODATA, "not ipmitool dcmi power reading output" },
		{ "    Minimum during sampling period:   38 Watts\n", -ENODATA, "Instantaneous" },
		{ "    Instantaneous power reading:   abc Watts\n", -EINVAL, "line 1: \"Instantaneous power reading:   abc Watts\"" },
		{ "\n\n    Instantaneous power reading:   215\n", -EINVAL, "line 3" },
		{ "    Instantaneous power reading:   215 kW\n", -EINVAL, "expected a whole number of Watts" },
		{ "    Instantaneous power reading:   -5 Watts\n", -EINVAL, "Watts" },
		{ "    Instantaneous power reading:   99999999999999999999999 Watts\n", -EINVAL, "Watts" },
		{ "    Instantaneous power reading:   215 Watts\n    Sampling period:   0001 Minutes\n", -EINVAL, "Seconds" },
		/* cut in the middle of the first line, as a killed ipmitool leaves it */
		{ "\n    Instantaneous power reading:           2", -EINVAL, "line 2" },
		{ "\x01\x02\x03\x00\xff binary", -EINVAL, "binary data" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct gd_ipmi_power p;
		struct gd_err err;
		size_t len = strlen(cases[i].text);

		if (cases[i].text[0] == '\x01')
			len = 16;
		gd_err_clear(&err);
		assert_int_equal(gd_ipmi_dcmi_parse(cases[i].text, len, &p, &err), cases[i].rc);
		if (!strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: \"%s\" does not hold \"%s\"", i, err.msg, cases[i].msg);
	}
}

/* ---- rules over built results ----------------------------------------- */

static void storage_healthy(struct gd_probe_storage_result *s)
{
	memset(s, 0, sizeof *s);
	snprintf(s->dir, sizeof s->dir, "/data");
	snprintf(s->fstype, sizeof s->fstype, "ext4");
	snprintf(s->media_why, sizeof s->media_why, "nvme0n1 (NVMe)");
	s->media = GD_PROBE_MEDIA_NVME;
	s->avail.state = s->seq.state = s->rnd.state = s->small.state = GD_PROBE_OK;
	s->seq_cache = s->rnd_cache = s->small_cache = GD_PROBE_CACHE_DIRECT;
	s->files = 2000;
	s->small_files = 10;
	s->bytes = 2000ull * 500000000;  /* 1 TB in 500 MB shards */
	s->seq_mb_s = 3200;
	s->rnd_lat_us = 80;
	s->small_files_s = 9000;
	s->small_mb_s = 400;
	s->epoch_read_s = (double)s->bytes / (s->seq_mb_s * 1e6);
	s->epoch_open_s = s->files / s->small_files_s;
}

static void judge(const struct gd_probe_storage_result *s, const struct gd_probe_mem_result *m,
		  const struct gd_probe_power_result *p, const struct gd_thresholds *th, struct gd_findings *f)
{
	struct gd_probe_host_results r = { s, m, p };
	struct gd_thresholds def;

	if (!th) {
		gd_thresholds_init(&def);
		th = &def;
	}
	gd_findings_init(f);
	gd_probe_host_judge(&r, th, f);
}

static void test_storage_slow_rule(void **state)
{
	struct gd_probe_storage_result s;
	struct gd_findings f;
	struct gd_thresholds th;
	struct gd_err err;
	const struct gd_finding *x;

	(void)state;
	storage_healthy(&s);
	judge(&s, NULL, NULL, NULL, &f);
	assert_int_equal(count_id(&f, "probe.storage_slow"), 0);
	assert_int_equal(count_id(&f, "probe.small_files_slow"), 0);
	assert_null(unknown_of(&f, "probe.storage_slow"));
	assert_non_null(strstr(unknown_of(&f, "probe.host_mem_bandwidth_low"), "not run"));
	gd_findings_release(&f);

	/* an NVMe device reading at 180 MB/s: below its class */
	s.seq_mb_s = 180;
	s.epoch_read_s = (double)s.bytes / (s.seq_mb_s * 1e6);
	judge(&s, NULL, NULL, NULL, &f);
	x = only_finding(&f, "probe.storage_slow");
	assert_int_equal(x->severity, GD_SEV_WARNING);
	assert_string_equal(x->subject, "/data");
	assert_non_null(strstr(x->summary, "reads 180 MB/s sequentially (floor 500)"));
	assert_non_null(strstr(x->summary, "one pass over the data set reads for 1.5 h"));
	assert_non_null(strstr(x->remedy, "PCIe link"));
	assert_true(ev_of(x, "seq_read_mb_s")->threshold.v == 500);
	assert_string_equal(ev_of(x, "cache_bypass")->text, "O_DIRECT");
	gd_findings_release(&f);

	/* the same on NFS, with a 4 ms latency: the network bounds, the seeds'
	 * remedy (local NVMe first) */
	s.media = GD_PROBE_MEDIA_NETWORK;
	snprintf(s.fstype, sizeof s.fstype, "nfs4");
	s.seq_mb_s = 85;
	s.rnd_lat_us = 4100;
	judge(&s, NULL, NULL, NULL, &f);
	x = only_finding(&f, "probe.storage_slow");
	assert_non_null(strstr(x->summary, "takes 4100 us per 4 KiB read (ceiling 3000)"));
	assert_non_null(strstr(x->remedy, "local NVMe"));
	gd_findings_release(&f);

	/* the network bounds are met: clear */
	s.seq_mb_s = 400;
	s.rnd_lat_us = 900;
	judge(&s, NULL, NULL, NULL, &f);
	assert_int_equal(count_id(&f, "probe.storage_slow"), 0);
	gd_findings_release(&f);

	/* an unclassified device is held to the network bounds */
	s.media = GD_PROBE_MEDIA_UNKNOWN;
	s.rnd_lat_us = 3500;
	judge(&s, NULL, NULL, NULL, &f);
	x = only_finding(&f, "probe.storage_slow");
	assert_non_null(strstr(x->summary, "unclassified"));
	gd_findings_release(&f);

	/* tmpfs is never slow storage */
	s.media = GD_PROBE_MEDIA_MEMORY;
	s.seq_mb_s = 1;
	judge(&s, NULL, NULL, NULL, &f);
	assert_int_equal(count_id(&f, "probe.storage_slow"), 0);
	assert_null(unknown_of(&f, "probe.storage_slow"));
	gd_findings_release(&f);

	/* the floor is a threshold: an HDD at 100 MB/s passes 80, fails 150 */
	s.media = GD_PROBE_MEDIA_HDD;
	s.seq_mb_s = 100;
	s.rnd_lat_us = 8000;
	judge(&s, NULL, NULL, NULL, &f);
	assert_int_equal(count_id(&f, "probe.storage_slow"), 0);
	gd_findings_release(&f);
	gd_thresholds_init(&th);
	assert_int_equal(gd_thresholds_set(&th, "probe.storage_slow.hdd_seq_mb_s", "150", &err), 0);
	judge(&s, NULL, NULL, &th, &f);
	assert_int_equal(count_id(&f, "probe.storage_slow"), 1);
	gd_findings_release(&f);

	/* no figure: unknown with the probe's reason, never clear */
	s.seq.state = s.rnd.state = GD_PROBE_UNAVAILABLE;
	snprintf(s.seq.why, sizeof s.seq.why, "no file of at least 8 MiB under /data");
	judge(&s, NULL, NULL, NULL, &f);
	assert_non_null(strstr(unknown_of(&f, "probe.storage_slow"), "no file of at least 8 MiB"));
	gd_findings_release(&f);

	judge(NULL, NULL, NULL, NULL, &f);
	assert_non_null(strstr(unknown_of(&f, "probe.storage_slow"), "no --data DIR"));
	assert_non_null(strstr(unknown_of(&f, "probe.small_files_slow"), "no --data DIR"));
	assert_int_equal(f.evaluated, 0);
	assert_int_equal(f.unknown.n, gd_probe_host_nrules);
	gd_findings_release(&f);
}

static void test_small_files_rule(void **state)
{
	struct gd_probe_storage_result s;
	struct gd_findings f;
	struct gd_thresholds th;
	struct gd_err err;
	const struct gd_finding *x;

	(void)state;
	/* 20,000 JPEG-sized files read at 650 files/s */
	storage_healthy(&s);
	s.files = s.small_files = 20000;
	s.bytes = 20000ull * 110000;
	s.small_files_s = 650;
	s.small_mb_s = 71;
	s.seq.state = GD_PROBE_UNAVAILABLE;
	s.epoch_read_s = NAN;
	s.epoch_open_s = s.files / s.small_files_s;
	judge(&s, NULL, NULL, NULL, &f);
	x = only_finding(&f, "probe.small_files_slow");
	assert_non_null(strstr(x->summary, "20000 small files, opened and read at 650 files/s (threshold 1000"));
	assert_non_null(strstr(x->remedy, "WebDataset"));
	assert_true(ev_of(x, "files_per_s")->threshold.v == 1000);
	gd_findings_release(&f);

	/* 5,000 files/s is fine on its own */
	s.small_files_s = 5000;
	s.epoch_open_s = s.files / s.small_files_s;
	judge(&s, NULL, NULL, NULL, &f);
	assert_int_equal(count_id(&f, "probe.small_files_slow"), 0);
	gd_findings_release(&f);

	/* a few slow side files among large shards are no problem */
	storage_healthy(&s);
	s.small_files = 12;
	s.small_files_s = 300;
	s.epoch_open_s = s.files / s.small_files_s;  /* 6.7 s of 312 s */
	judge(&s, NULL, NULL, NULL, &f);
	assert_int_equal(count_id(&f, "probe.small_files_slow"), 0);
	gd_findings_release(&f);

	/* 1.2 M files at 5,000/s: 4 min of opens against 50 s of streaming */
	storage_healthy(&s);
	s.files = s.small_files = 1200000;
	s.bytes = 1200000ull * 130000;
	s.small_files_s = 5000;
	s.epoch_read_s = (double)s.bytes / (s.seq_mb_s * 1e6);
	s.epoch_open_s = s.files / s.small_files_s;
	judge(&s, NULL, NULL, NULL, &f);
	x = only_finding(&f, "probe.small_files_slow");
	assert_non_null(strstr(x->summary, "of the time to stream the data set once"));
	assert_true(ev_of(x, "epoch_open_pct")->value.v > 400);
	gd_findings_release(&f);

	/* against a configured 2 h epoch the 4 min are 3%: clear */
	gd_thresholds_init(&th);
	assert_int_equal(gd_thresholds_set(&th, "probe.small_files_slow.epoch_s", "7200", &err), 0);
	judge(&s, NULL, NULL, &th, &f);
	assert_int_equal(count_id(&f, "probe.small_files_slow"), 0);
	gd_findings_release(&f);

	s.small.state = GD_PROBE_FAILED;
	snprintf(s.small.why, sizeof s.small.why, "/data/x: read: Input/output error");
	judge(&s, NULL, NULL, NULL, &f);
	assert_non_null(strstr(unknown_of(&f, "probe.small_files_slow"), "failed: /data/x: read: Input/output error"));
	gd_findings_release(&f);
}

static void mem_two(struct gd_probe_mem_result *m, double a, double b)
{
	memset(m, 0, sizeof *m);
	m->avail.state = GD_PROBE_OK;
	m->numa = true;
	m->nnodes = 2;
	for (int i = 0; i < 2; i++) {
		m->nodes[i].node = i;
		m->nodes[i].avail.state = GD_PROBE_OK;
		m->nodes[i].ncpus = m->nodes[i].threads = 48;
		m->nodes[i].triad_gb_s = i ? b : a;
	}
}

static void test_host_mem_rule(void **state)
{
	struct gd_probe_mem_result m;
	struct gd_findings f;
	struct gd_thresholds th;
	struct gd_err err;
	const struct gd_finding *x;

	(void)state;
	mem_two(&m, 210, 190);
	judge(NULL, &m, NULL, NULL, &f);
	assert_int_equal(count_id(&f, "probe.host_mem_bandwidth_low"), 0);
	assert_null(unknown_of(&f, "probe.host_mem_bandwidth_low"));
	gd_findings_release(&f);

	/* node1 with half its channels empty */
	mem_two(&m, 210, 98);
	judge(NULL, &m, NULL, NULL, &f);
	x = only_finding(&f, "probe.host_mem_bandwidth_low");
	assert_string_equal(x->subject, "node1");
	assert_non_null(strstr(x->summary, "98.0 GB/s, 47% of best node node0, 210.0 GB/s"));
	assert_non_null(strstr(x->remedy, "DIMM population"));
	gd_findings_release(&f);

	/* one node: nothing to compare with, unless configured */
	m.nnodes = 1;
	m.nodes[0].triad_gb_s = 150;
	judge(NULL, &m, NULL, NULL, &f);
	assert_non_null(strstr(unknown_of(&f, "probe.host_mem_bandwidth_low"), "expected_gb_s"));
	gd_findings_release(&f);
	gd_thresholds_init(&th);
	assert_int_equal(gd_thresholds_set(&th, "probe.host_mem_bandwidth_low.expected_gb_s", "307.2", &err), 0);
	judge(NULL, &m, NULL, &th, &f);
	x = only_finding(&f, "probe.host_mem_bandwidth_low");
	assert_string_equal(x->subject, "node0");
	assert_non_null(strstr(x->summary, "49% of configured 307.2 GB/s"));
	gd_findings_release(&f);
	m.nodes[0].triad_gb_s = 240;
	judge(NULL, &m, NULL, &th, &f);
	assert_int_equal(count_id(&f, "probe.host_mem_bandwidth_low"), 0);
	gd_findings_release(&f);

	/* a node that could not run is not compared; the probe's reason when
	 * none ran */
	mem_two(&m, 210, 98);
	m.nodes[1].avail.state = GD_PROBE_UNAVAILABLE;
	judge(NULL, &m, NULL, NULL, &f);
	assert_non_null(unknown_of(&f, "probe.host_mem_bandwidth_low"));
	gd_findings_release(&f);
}

static void power_at(struct gd_probe_power_result *p, double draw, const char *from)
{
	memset(p, 0, sizeof *p);
	p->avail.state = GD_PROBE_OK;
	p->draw_w = draw;
	p->gpu_w = 8 * 300;
	p->ngpus = 8;
	p->host_rapl_w = NAN;
	snprintf(p->draw_from, sizeof p->draw_from, "%s", from);
}

static void test_power_rule(void **state)
{
	struct gd_probe_power_result p;
	struct gd_findings f;
	struct gd_thresholds th;
	struct gd_err err;
	const struct gd_finding *x;

	(void)state;
	power_at(&p, 2650, "BMC (ipmitool dcmi power reading)");
	judge(NULL, NULL, &p, NULL, &f);
	assert_non_null(strstr(unknown_of(&f, "probe.power_headroom"), "psu_capacity_w"));
	assert_non_null(strstr(unknown_of(&f, "probe.power_headroom"), "2650 W"));
	gd_findings_release(&f);

	gd_thresholds_init(&th);
	assert_int_equal(gd_thresholds_set(&th, "probe.power_headroom.psu_capacity_w", "3000", &err), 0);
	judge(NULL, NULL, &p, &th, &f);
	x = only_finding(&f, "probe.power_headroom");
	assert_int_equal(x->severity, GD_SEV_WARNING);
	assert_non_null(strstr(x->summary, "draws 2650 W (BMC (ipmitool dcmi power reading)) of 3000 W PSU capacity: 12% headroom"));
	assert_true(ev_of(x, "headroom_pct")->threshold.v == 20);
	gd_findings_release(&f);

	power_at(&p, 3150, "GPUs only");
	judge(NULL, NULL, &p, &th, &f);
	x = only_finding(&f, "probe.power_headroom");
	assert_int_equal(x->severity, GD_SEV_CRITICAL);
	assert_non_null(strstr(x->summary, "the host not counted"));
	gd_findings_release(&f);

	power_at(&p, 2300, "GPUs + RAPL");
	judge(NULL, NULL, &p, &th, &f);
	assert_int_equal(count_id(&f, "probe.power_headroom"), 0);
	assert_null(unknown_of(&f, "probe.power_headroom"));
	gd_findings_release(&f);
}

static void test_report_lines(void **state)
{
	struct gd_probe_storage_result s;
	struct gd_probe_mem_result m;
	struct gd_probe_power_result p;
	struct gd_probe_host_results r = { &s, &m, &p };
	struct gd_probe_host_line lines[3];
	struct gd_thresholds th;
	struct gd_err err;
	size_t n;

	(void)state;
	storage_healthy(&s);
	s.seq_mb_s = 180;
	mem_two(&m, 210, 98);
	power_at(&p, 2650, "GPUs + RAPL");
	gd_thresholds_init(&th);
	assert_int_equal(gd_thresholds_set(&th, "probe.power_headroom.psu_capacity_w", "3000", &err), 0);
	/* 3 storage + 2 nodes + power; only 3 kept */
	n = gd_probe_host_lines(&r, &th, lines, 3);
	assert_int_equal(n, 6);
	assert_string_equal(lines[0].probe, "storage.seq_read");
	assert_true(lines[0].achieved == 180 && lines[0].expected == 500);
	assert_false(lines[0].ok);
	assert_non_null(strstr(lines[0].expected_from, "NVMe floor (probe.storage_slow.nvme_seq_mb_s)"));
	assert_string_equal(lines[1].unit, "us");
	assert_false(lines[1].higher_is_better);
	assert_true(lines[1].ok);
	assert_string_equal(lines[2].probe, "storage.small_files");
	{
		struct gd_probe_host_line all[8];

		n = gd_probe_host_lines(&r, &th, all, 8);
		assert_int_equal(n, 6);
		assert_string_equal(all[4].subject, "node1");
		assert_true(all[4].expected == 210 * 0.6);
		assert_false(all[4].ok);
		assert_true(all[3].ok);
		assert_string_equal(all[5].probe, "power.draw");
		assert_true(all[5].expected == 2400);
		assert_false(all[5].ok);
	}
}

/* ---- the storage probe on real files ----------------------------------- */

static void test_storage_real(void **state)
{
	char dir[512], path[600];
	struct gd_probe_host_opts o;
	struct gd_probe_storage_result *r = calloc(1, sizeof *r);
	uint64_t small_bytes = 0;

	(void)state;
	assert_non_null(r);
	snprintf(dir, sizeof dir, "%s/tests/probe-host-XXXXXX", GD_BUILDDIR);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/shard-000.tar", dir);
	write_file(path, 12u << 20, 0x5a);
	snprintf(path, sizeof path, "%s/img", dir);
	mkdir(path, 0755);
	for (int i = 0; i < 60; i++) {
		snprintf(path, sizeof path, "%s/img/%03d.jpg", dir, i);
		write_file(path, 4096u * (1 + i % 3) + (i % 2 ? 100 : 0), (unsigned char)i);
		small_bytes += 4096u * (1 + i % 3) + (i % 2 ? 100 : 0);
	}
	gd_probe_host_opts_init(&o);
	o.budget_s = 60;  /* every read finishes; no figure is cut by time */
	o.rand_reads = 200;
	assert_int_equal(gd_probe_storage(dir, &o, r), 0);
	assert_int_equal(r->avail.state, GD_PROBE_OK);
	assert_int_equal(r->files, 61);
	assert_int_equal(r->small_files, 60);
	assert_int_equal(r->bytes, (12u << 20) + small_bytes);
	assert_true(r->walk_complete);
	assert_int_equal(r->seq.state, GD_PROBE_OK);
	assert_int_equal(r->seq_bytes, 12u << 20);
	assert_int_equal(r->seq_files, 1);
	assert_true(r->seq_mb_s > 0);
	assert_int_not_equal(r->seq_cache, GD_PROBE_CACHE_NONE);
	assert_int_equal(r->rnd.state, GD_PROBE_OK);
	assert_int_equal(r->rnd_reads, 200);
	assert_true(r->rnd_p50_us > 0 && r->rnd_p50_us <= r->rnd_p99_us);
	assert_non_null(strstr(r->rnd_file, "shard-000.tar"));
	assert_int_equal(r->small.state, GD_PROBE_OK);
	assert_int_equal(r->small_n, 60);
	assert_int_equal(r->small_bytes, small_bytes);  /* every byte, the unaligned tails too */
	assert_true(r->small_files_s > 0);
	assert_true(isfinite(r->epoch_read_s) && isfinite(r->epoch_open_s));
	assert_true(r->fstype[0] != '\0');
	assert_true(r->mount_point[0] == '/');

	/* a walk that stops says so: the counts are then lower bounds */
	o.walk_max_files = 10;
	assert_int_equal(gd_probe_storage(dir, &o, r), 0);
	assert_int_equal(r->files, 10);
	assert_false(r->walk_complete);
	o.walk_max_files = 0;

	/* a small sample is a sample: 10 of the 60 */
	o.small_sample = 10;
	assert_int_equal(gd_probe_storage(dir, &o, r), 0);
	assert_int_equal(r->small_n, 10);
	assert_int_equal(r->small_files, 60);

	/* a smaller file than large_min is not read sequentially */
	o.large_min_bytes = 64u << 20;
	assert_int_equal(gd_probe_storage(dir, &o, r), 0);
	assert_int_equal(r->seq.state, GD_PROBE_UNAVAILABLE);
	assert_non_null(strstr(r->seq.why, "no file of at least 64 MiB"));
	assert_true(isnan(r->seq_mb_s) && isnan(r->epoch_read_s));
	rm_rf(dir);

	/* a directory that is not there */
	assert_int_equal(gd_probe_storage("/nonexistent/gd-data", &o, r), 0);
	assert_int_equal(r->avail.state, GD_PROBE_UNAVAILABLE);
	assert_non_null(strstr(r->avail.why, "/nonexistent/gd-data: No such file or directory"));
	assert_int_equal(r->small.state, GD_PROBE_UNAVAILABLE);
	assert_int_equal(gd_probe_storage(NULL, &o, r), -EINVAL);
	free(r);
}

/* tmpfs: memory, never slow; and the posix_fadvise path, asked for */
static void test_storage_tmpfs(void **state)
{
	char dir[] = "/dev/shm/gd-probe-XXXXXX", path[600];
	struct gd_probe_host_opts o;
	struct gd_probe_storage_result *r = calloc(1, sizeof *r);
	struct statfs sf;

	(void)state;
	assert_non_null(r);
	if (statfs("/dev/shm", &sf) != 0 || sf.f_type != 0x01021994) {
		/* no tmpfs /dev/shm here: the fallback is then tested by nothing */
		fail_msg("/dev/shm is not a tmpfs on this machine");
	}
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/big.bin", dir);
	write_file(path, 9u << 20, 1);
	snprintf(path, sizeof path, "%s/small.bin", dir);
	write_file(path, 5000, 2);
	gd_probe_host_opts_init(&o);
	o.budget_s = 60;
	o.rand_reads = 50;
	assert_int_equal(gd_probe_storage(dir, &o, r), 0);
	assert_string_equal(r->fstype, "tmpfs");
	assert_int_equal(r->media, GD_PROBE_MEDIA_MEMORY);
	assert_int_equal(r->seq.state, GD_PROBE_OK);
	/* tmpfs takes O_DIRECT since Linux 6.6 (and serves it from memory) */
	assert_int_not_equal(r->seq_cache, GD_PROBE_CACHE_NONE);
	assert_int_equal(r->small_bytes, 5000);

	/* the cache path: fdatasync + fadvise(DONTNEED), every byte read */
	o.no_direct = true;
	assert_int_equal(gd_probe_storage(dir, &o, r), 0);
	assert_int_equal(r->seq.state, GD_PROBE_OK);
	assert_int_equal(r->seq_cache, GD_PROBE_CACHE_FADVISE);
	assert_int_equal(r->seq_bytes, 9u << 20);
	assert_int_equal(r->rnd.state, GD_PROBE_OK);
	assert_int_equal(r->rnd_cache, GD_PROBE_CACHE_FADVISE);
	assert_int_equal(r->rnd_reads, 50);
	assert_int_equal(r->small_cache, GD_PROBE_CACHE_FADVISE);
	assert_int_equal(r->small_bytes, 5000);
	rm_rf(dir);
	free(r);
}

/* The filesystem and device class through a fixture root. */
static void test_storage_fs_fixtures(void **state)
{
	char root[] = "/tmp/gd-probe-root-XXXXXX";
	struct gd_probe_host_opts o;
	struct gd_probe_storage_result *r = calloc(1, sizeof *r);

	(void)state;
	assert_non_null(r);
	assert_non_null(mkdtemp(root));
	gd_probe_host_opts_init(&o);
	o.root = root;

	put(root, "proc/self/mounts", "sysfs /sys sysfs rw 0 0\nfs1:/export / nfs4 rw,relatime,vers=4.2 0 0\n");
	assert_int_equal(gd_probe_storage_fs(GD_BUILDDIR, &o, r), 0);
	assert_string_equal(r->fstype, "nfs4");
	assert_string_equal(r->mount_source, "fs1:/export");
	assert_int_equal(r->media, GD_PROBE_MEDIA_NETWORK);
	assert_string_equal(r->media_why, "nfs4 mount");

	put(root, "proc/self/mounts", "s3fs / fuse.s3fs rw 0 0\n");
	assert_int_equal(gd_probe_storage_fs(GD_BUILDDIR, &o, r), 0);
	assert_int_equal(r->media, GD_PROBE_MEDIA_NETWORK);
	assert_non_null(strstr(r->media_why, "FUSE"));

	/* an NVMe partition: the mount source names it, sysfs gives its disk */
	put(root, "proc/self/mounts", "/dev/nvme0n1p2 / ext4 rw 0 0\n");
	put(root, "sys/devices/pci0000:00/0000:00:01.0/nvme/nvme0/nvme0n1/nvme0n1p2/partition", "2\n");
	put(root, "sys/devices/pci0000:00/0000:00:01.0/nvme/nvme0/nvme0n1/queue/rotational", "0\n");
	link_at(root, "sys/class/block/nvme0n1p2", "../../devices/pci0000:00/0000:00:01.0/nvme/nvme0/nvme0n1/nvme0n1p2");
	link_at(root, "sys/class/block/nvme0n1", "../../devices/pci0000:00/0000:00:01.0/nvme/nvme0/nvme0n1");
	assert_int_equal(gd_probe_storage_fs(GD_BUILDDIR, &o, r), 0);
	assert_string_equal(r->fstype, "ext4");
	assert_string_equal(r->block_dev, "nvme0n1");
	assert_int_equal(r->media, GD_PROBE_MEDIA_NVME);

	/* a SATA disk that spins */
	put(root, "proc/self/mounts", "/dev/sdb1 / xfs rw 0 0\n");
	put(root, "sys/devices/pci0000:00/ata1/host0/block/sdb/sdb1/partition", "1\n");
	put(root, "sys/devices/pci0000:00/ata1/host0/block/sdb/queue/rotational", "1\n");
	link_at(root, "sys/class/block/sdb1", "../../devices/pci0000:00/ata1/host0/block/sdb/sdb1");
	link_at(root, "sys/class/block/sdb", "../../devices/pci0000:00/ata1/host0/block/sdb");
	assert_int_equal(gd_probe_storage_fs(GD_BUILDDIR, &o, r), 0);
	assert_string_equal(r->block_dev, "sdb");
	assert_int_equal(r->media, GD_PROBE_MEDIA_HDD);
	assert_string_equal(r->media_why, "sdb: queue/rotational=1");

	/* an overlay without a device: unknown, and why */
	put(root, "proc/self/mounts", "overlay / overlay rw,lowerdir=/l 0 0\n");
	assert_int_equal(gd_probe_storage_fs(GD_BUILDDIR, &o, r), 0);
	assert_int_equal(r->media, GD_PROBE_MEDIA_UNKNOWN);
	assert_non_null(strstr(r->media_why, "no block device in sysfs"));

	/* the longest mount point wins */
	put(root, "proc/self/mounts", "/dev/sdb1 / xfs rw 0 0\nfs1:/e " GD_BUILDDIR " nfs rw 0 0\n");
	assert_int_equal(gd_probe_storage_fs(GD_BUILDDIR "/tests", &o, r), 0);
	assert_string_equal(r->fstype, "nfs");
	assert_string_equal(r->mount_point, GD_BUILDDIR);
	rm_rf(root);
	free(r);
}

/* ---- STREAM ------------------------------------------------------------ */

static void test_host_mem_fixture(void **state)
{
	char root[] = "/tmp/gd-probe-numa-XXXXXX";
	struct gd_probe_host_opts o;
	struct gd_probe_mem_result *m = calloc(1, sizeof *m);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	(void)state;
	assert_non_null(m);
	assert_non_null(mkdtemp(root));
	put(root, "sys/devices/system/node/has_memory", "0-2,4\n");
	put(root, "sys/devices/system/node/node0/cpulist", "0\n");
	put(root, "sys/devices/system/node/node1/cpulist", ncpu > 1 ? "1\n" : "0\n");
	put(root, "sys/devices/system/node/node2/cpulist", "\n");     /* memory only (CXL, HBM) */
	put(root, "sys/devices/system/node/node3/cpulist", "0\n");    /* CPUs without memory */
	put(root, "sys/devices/system/node/node4/cpulist", "4000\n"); /* not a CPU of this machine */
	put(root, "sys/devices/system/node/node10/cpulist", "0-1x\n");
	gd_probe_host_opts_init(&o);
	o.root = root;
	o.stream_elems = 1u << 20;
	o.stream_reps = 3;
	assert_int_equal(gd_probe_host_mem(&o, m), 0);
	assert_int_equal(m->avail.state, GD_PROBE_OK);
	assert_true(m->numa);
	assert_int_equal(m->nnodes, 6);
	/* numbered order, not readdir's */
	assert_int_equal(m->nodes[5].node, 10);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(m->nodes[i].avail.state, GD_PROBE_OK);
		assert_int_equal(m->nodes[i].threads, 1);
		assert_int_equal(m->nodes[i].elems, 1u << 20);
		assert_true(m->nodes[i].triad_gb_s > 0 && isfinite(m->nodes[i].triad_gb_s));
		assert_true(m->nodes[i].triad_avg_gb_s <= m->nodes[i].triad_gb_s);
	}
	assert_int_equal(m->nodes[2].avail.state, GD_PROBE_UNAVAILABLE);
	assert_non_null(strstr(m->nodes[2].avail.why, "memory-only"));
	assert_non_null(strstr(m->nodes[3].avail.why, "node3 has no memory"));
	assert_non_null(strstr(m->nodes[4].avail.why, "cannot run on cpu4000"));
	assert_non_null(strstr(m->nodes[5].avail.why, "is not a CPU list"));
	rm_rf(root);

	/* no NUMA in sysfs: the host is one node */
	assert_non_null(mkdtemp(strcpy(root, "/tmp/gd-probe-numa-XXXXXX")));
	assert_int_equal(gd_probe_host_mem(&o, m), 0);
	assert_false(m->numa);
	assert_int_equal(m->nnodes, 1);
	assert_int_equal(m->nodes[0].node, -1);
	assert_int_equal(m->nodes[0].avail.state, GD_PROBE_OK);
	assert_int_equal(m->nodes[0].threads, (unsigned)ncpu);
	rm_rf(root);
	free(m);
}

/* ---- RAPL and the BMC -------------------------------------------------- */

static void rapl_zone(const char *root, const char *zone, const char *name, const char *uj, const char *max)
{
	char rel[256];

	snprintf(rel, sizeof rel, "sys/class/powercap/%s/name", zone);
	put(root, rel, name);
	snprintf(rel, sizeof rel, "sys/class/powercap/%s/energy_uj", zone);
	put(root, rel, uj);
	snprintf(rel, sizeof rel, "sys/class/powercap/%s/max_energy_range_uj", zone);
	put(root, rel, max);
}

static void test_rapl_fixture(void **state)
{
	char root[] = "/tmp/gd-probe-rapl-XXXXXX", zones[128], why[256];
	struct gd_probe_host_opts o;
	struct gd_probe_rapl_sample a, b;
	double w;

	(void)state;
	assert_non_null(mkdtemp(root));
	gd_probe_host_opts_init(&o);
	o.root = root;
	assert_int_equal(gd_probe_rapl_sample(&o, &a), 0);
	assert_int_equal(a.avail.state, GD_PROBE_UNAVAILABLE);
	assert_non_null(strstr(a.avail.why, "no /sys/class/powercap"));

	rapl_zone(root, "intel-rapl:0", "package-0\n", "1000000000\n", "262143328850\n");
	rapl_zone(root, "intel-rapl:0:0", "core\n", "500000000\n", "262143328850\n");
	rapl_zone(root, "intel-rapl:0:1", "dram\n", "200000000\n", "65712999613\n");
	/* second package about to wrap */
	rapl_zone(root, "intel-rapl:1", "package-1\n", "262143000000\n", "262143328850\n");
	rapl_zone(root, "intel-rapl-mmio:0", "package-0\n", "1000000000\n", "262143328850\n");
	put(root, "sys/class/powercap/intel-rapl/enabled", "1\n");
	assert_int_equal(gd_probe_rapl_sample(&o, &a), 0);
	assert_int_equal(a.avail.state, GD_PROBE_OK);
	assert_int_equal(a.n, 4);  /* not the mmio copy nor the control type */
	assert_string_equal(a.zone[0].path, "intel-rapl:0");
	assert_string_equal(a.zone[3].name, "package-1");

	/* 2 s later: package-0 +500 J, core +300 J (inside the package), dram
	 * +60 J, package-1 wrapped after +328850 + 399671150 uJ = 400 J */
	rapl_zone(root, "intel-rapl:0", "package-0\n", "1500000000\n", "262143328850\n");
	rapl_zone(root, "intel-rapl:0:0", "core\n", "800000000\n", "262143328850\n");
	rapl_zone(root, "intel-rapl:0:1", "dram\n", "260000000\n", "65712999613\n");
	rapl_zone(root, "intel-rapl:1", "package-1\n", "399671150\n", "262143328850\n");
	assert_int_equal(gd_probe_rapl_sample(&o, &b), 0);
	b.t = a.t + 2.0;
	w = gd_probe_rapl_watts(&a, &b, zones, sizeof zones, why, sizeof why);
	assert_true(fabs(w - (500 + 60 + 400) / 2.0) < 1e-6);
	assert_string_equal(zones, "package-0+dram+package-1");

	/* psys, where present, is the whole platform */
	rapl_zone(root, "intel-rapl:2", "psys\n", "0\n", "262143328850\n");
	assert_int_equal(gd_probe_rapl_sample(&o, &a), 0);
	rapl_zone(root, "intel-rapl:2", "psys\n", "1300000000\n", "262143328850\n");
	assert_int_equal(gd_probe_rapl_sample(&o, &b), 0);
	b.t = a.t + 2.0;
	w = gd_probe_rapl_watts(&a, &b, zones, sizeof zones, why, sizeof why);
	assert_true(fabs(w - 650) < 1e-6);
	assert_string_equal(zones, "psys");

	/* not apart in time, or a sample that failed: NAN and why */
	b.t = a.t;
	assert_true(isnan(gd_probe_rapl_watts(&a, &b, zones, sizeof zones, why, sizeof why)));
	assert_non_null(strstr(why, "not apart in time"));
	b.avail.state = GD_PROBE_UNAVAILABLE;
	snprintf(b.avail.why, sizeof b.avail.why, "denied");
	assert_true(isnan(gd_probe_rapl_watts(&a, &b, zones, sizeof zones, why, sizeof why)));
	assert_string_equal(why, "denied");
	rm_rf(root);
}

static void script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
}

static void test_power_bmc(void **state)
{
	char dir[] = "/tmp/gd-probe-ipmi-XXXXXX", tool[256], body[512];
	struct gd_probe_host_opts o;
	struct gd_probe_power_result r;
	struct gd_probe_rapl_sample none;
	struct gd_probe_power_in in = { 2400, 8, &none };

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(tool, sizeof tool, "%s/ipmitool", dir);
	gd_probe_host_opts_init(&o);
	o.root = dir;  /* no powercap under it: RAPL unavailable */
	o.ipmitool = tool;
	memset(&none, 0, sizeof none);
	gd_probe_rapl_sample(&o, &none);

	/* a BMC answering with a real sample: the whole system's draw */
	snprintf(body, sizeof body, "[ \"$*\" = \"dcmi power reading\" ] || exit 9\ncat '%s'",
		 IPMI_DIR "lovoo-ipmi_exporter-18.txt");
	script(tool, body);
	assert_int_equal(gd_probe_power(&o, &in, &r), 0);
	assert_int_equal(r.bmc.state, GD_PROBE_OK);
	assert_true(r.ipmi.inst_w == 215 && r.ipmi.max_w == 276);
	assert_int_equal(r.avail.state, GD_PROBE_OK);
	assert_true(r.draw_w == 215);
	assert_string_equal(r.draw_from, "BMC (ipmitool dcmi power reading)");
	assert_int_equal(r.rapl.state, GD_PROBE_UNAVAILABLE);
	assert_true(r.gpu_w == 2400 && r.ngpus == 8);

	/* a BMC without a power sensor: 0 W is no reading; the GPUs remain */
	snprintf(body, sizeof body, "cat '%s'", IPMI_DIR "openbmc-phosphor-host-ipmid-167-zero.txt");
	script(tool, body);
	assert_int_equal(gd_probe_power(&o, &in, &r), 0);
	assert_int_equal(r.bmc.state, GD_PROBE_UNAVAILABLE);
	assert_non_null(strstr(r.bmc.why, "0 W"));
	assert_non_null(strstr(r.bmc.why, "deactivated"));
	assert_true(r.draw_w == 2400);
	assert_string_equal(r.draw_from, "GPUs only");

	/* ipmitool failing: its message is the reason */
	script(tool, "echo 'Could not open device at /dev/ipmi0 or /dev/ipmi/0 or /dev/ipmidev/0: No such file or directory' >&2\nexit 1");
	assert_int_equal(gd_probe_power(&o, &in, &r), 0);
	assert_int_equal(r.bmc.state, GD_PROBE_UNAVAILABLE);
	assert_non_null(strstr(r.bmc.why, "exited 1: Could not open device at /dev/ipmi0"));

	/* output that is not a power reading */
	script(tool, "echo 'Invalid DCMI command'");
	assert_int_equal(gd_probe_power(&o, &in, &r), 0);
	assert_int_equal(r.bmc.state, GD_PROBE_FAILED);
	assert_non_null(strstr(r.bmc.why, "not ipmitool dcmi power reading output"));

	/* a BMC that hangs is killed at the deadline */
	script(tool, "exec sleep 30");
	o.ipmitool_timeout_s = 0.3;
	assert_int_equal(gd_probe_power(&o, &in, &r), 0);
	assert_int_equal(r.bmc.state, GD_PROBE_FAILED);
	assert_non_null(strstr(r.bmc.why, "did not answer within"));

	/* not installed */
	o.ipmitool = "/nonexistent/ipmitool";
	assert_int_equal(gd_probe_power(&o, &in, &r), 0);
	assert_int_equal(r.bmc.state, GD_PROBE_UNAVAILABLE);
	assert_non_null(strstr(r.bmc.why, "is not installed"));

	/* nothing at all: no GPU figure, no BMC */
	in.gpu_w = NAN;
	o.ipmitool = "";
	assert_int_equal(gd_probe_power(&o, &in, &r), 0);
	assert_int_equal(r.bmc.state, GD_PROBE_NOT_RUN);
	assert_int_equal(r.avail.state, GD_PROBE_UNAVAILABLE);
	assert_true(isnan(r.draw_w));
	rm_rf(dir);

	/* the real ipmitool (scripts/deps.sh installs it): this machine has no
	 * BMC device, so it fails and the probe carries its message; on a
	 * machine with a BMC it reads it */
	if (access("/usr/bin/ipmitool", X_OK) == 0) {
		o.ipmitool = NULL;
		o.ipmitool_timeout_s = 20;
		in.gpu_w = 100;
		assert_int_equal(gd_probe_power(&o, &in, &r), 0);
		if (r.bmc.state == GD_PROBE_OK)
			assert_true(r.ipmi.inst_w > 0);
		else
			assert_non_null(strstr(r.bmc.why, "ipmitool dcmi power reading exited"));
	}
}

static void test_json(void **state)
{
	struct gd_probe_storage_result s;
	struct gd_probe_mem_result m;
	struct gd_probe_host_results r = { &s, &m, NULL };
	json_t *j;

	(void)state;
	storage_healthy(&s);
	s.rnd_lat_us = NAN;
	s.rnd.state = GD_PROBE_UNAVAILABLE;
	snprintf(s.rnd.why, sizeof s.rnd.why, "no file");
	mem_two(&m, 200, 100);
	j = gd_probe_host_json(&r);
	assert_true(json_real_value(json_object_get(json_object_get(json_object_get(j, "storage"), "seq_read"), "mb_s")) == 3200);
	assert_true(json_is_null(json_object_get(json_object_get(json_object_get(j, "storage"), "rand_4k"), "lat_us")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(json_object_get(j, "storage"), "rand_4k"), "avail"), "why")), "no file");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "storage"), "media")), "nvme");
	assert_int_equal(json_array_size(json_object_get(json_object_get(j, "host_mem"), "nodes")), 2);
	assert_null(json_object_get(j, "power"));
	json_decref(j);
}

static void test_rule_table(void **state)
{
	(void)state;
	/* ids from CAUSES.md; gd_rule_find knows them (--set checks them) */
	assert_int_equal(gd_probe_host_nrules, 4);
	assert_non_null(gd_rule_find("probe.storage_slow"));
	assert_non_null(gd_rule_find("probe.small_files_slow"));
	assert_non_null(gd_rule_find("probe.host_mem_bandwidth_low"));
	assert_non_null(gd_rule_find("probe.power_headroom"));
	for (size_t i = 0; i < gd_probe_host_nrules; i++)
		assert_true(strlen(gd_probe_host_rules[i].remedy) > 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipmi_real_samples), cmocka_unit_test(test_ipmi_malformed),
		cmocka_unit_test(test_storage_slow_rule), cmocka_unit_test(test_small_files_rule),
		cmocka_unit_test(test_host_mem_rule),     cmocka_unit_test(test_power_rule),
		cmocka_unit_test(test_report_lines),      cmocka_unit_test(test_storage_real),
		cmocka_unit_test(test_storage_tmpfs),     cmocka_unit_test(test_storage_fs_fixtures),
		cmocka_unit_test(test_host_mem_fixture),  cmocka_unit_test(test_rapl_fixture),
		cmocka_unit_test(test_power_bmc),         cmocka_unit_test(test_json),
		cmocka_unit_test(test_rule_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
