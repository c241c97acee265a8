/*
 * fuzz_parsers.c - libFuzzer harness over every parser of outside input.
 *
 * The first input byte picks a target, the rest is the input:
 *
 *   0 .. gd_nparsers-1   gd_parsers[i].parse over a fresh snapshot (the
 *                        buffer is NUL-terminated one past len, as
 *                        gd_root_read hands it to collectors);
 *   gd_nparsers          gd_series_load_stream over fmemopen(3) of the input
 *                        (a snapshot JSONL file, "check --from");
 *   gd_nparsers + 1      gd_thresholds_load on a memfd passed as
 *                        /proc/self/fd/N (an INI config file);
 *   gd_nparsers + 2      gd_http_parse (the exporter's request parser) over
 *                        an exact-size copy (no NUL after it), with a head
 *                        limit of 256 to 1279 bytes taken from the input's
 *                        length, checking what it returns;
 *   gd_nparsers + 3      gd_parse_proc_zoneinfo (the low watermarks the
 *                        MemAvailable estimate reads; after the others so
 *                        that no seed's index moved).
 *   gd_nparsers + 4      gd_prom_parse (an answer of the Prometheus query
 *                        API, src/fleet/prom.c), the HTTP status and the
 *                        series limit taken from the input's first and last bytes;
 *   gd_nparsers + 5      gd_ipmi_dcmi_parse (`ipmitool dcmi power reading`,
 *                        the host power probe) over an exact-size copy;
 *   gd_nparsers + 6      the PTX loader's checks before the driver's JIT
 *                        (gd_ptx_header_parse over an exact-size copy, then
 *                        gd_ptx_loadable for a driver and GPU taken from
 *                        the input) and the cleaning of a JIT log the driver
 *                        wrote (gd_ptx_log_clean with a capacity and a
 *                        reported length that may lie), checking the
 *                        cleaned line is printable and bounded.
 *   gd_nparsers + 7      gd_sku_table_parse (the probes' SKU table,
 *                        data/probe-sku.ini, and the [probe.sku] sections
 *                        of a configuration file: an odd length parses it
 *                        as one) over an exact-size copy, over the built-in
 *                        table, checking that an error names file and line
 *                        and that every figure it keeps is in range and
 *                        names its source.
 *   gd_nparsers + 8      a process's environment (/proc/<pid>/environ,
 *                        collect/job_rank.h): the scan, the identity and
 *                        the job id, with a decoy secret put first whose
 *                        bytes (not printable) must appear nowhere in the
 *                        record, every string of which must be printable
 *                        ASCII within its field.
 *   gd_nparsers + 9      gd_redact_args (secrets out of a command line,
 *                        src/core/redact.c) with '\0' or ' ' between the
 *                        arguments and an output room from the input, and
 *                        gd_printable over the result: the result fits,
 *                        and the printable copy is printable.
 *
 *   gd_nparsers + 10     gd_kstack_format (/proc/<pid>/stack of a process
 *                        in D, host.hung_tasks) over an exact-size copy
 *                        into an output room from the input, checking
 *                        the text fits and holds no newline.
 *
 * A byte beyond the last target wraps around (modulo), so every input
 * reaches some target.  Each run starts from a fresh snapshot, series or
 * threshold table and releases it, so ASan's leak check sees every loss.
 *
 * GD_FUZZ_LIST=1 in the environment makes the binary print "index name" of
 * every target and exit: make_corpus.sh builds the seed corpus from that
 * list, so the index of each seed stays right when parsers are added.
 *
 * Build and run: tests/fuzz/run.sh SECONDS (clang -fsanitize=fuzzer,address,
 * undefined; `make fuzz` runs it for 60 s).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collect/collect.h"
#include "collect/collectors.h"
#include "collect/proc_pid.h"
#include "core/printable.h"
#include "core/redact.h"
#include "klog/fmlog.h"
#include "collect/job_rank.h"
#include "collect/pci_acs.h"
#include "offline/offline.h"
#include "model/snapshot.h"
#include "model/snapshot_json.h"
#include "rules/thresholds.h"
#include "fleet/prom.h"
#include "probe/host.h"
#include "probe/probe.h"
#include "probe/ptx.h"
#include "probe/sku.h"
#include "serve/http_parse.h"
#include "../snapshot_fast_check.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
static void fuzz_ptx(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1), why[256], line[200];
	struct gd_ptx_header h;
	struct gd_err err;
	int rc;
	size_t n;

	if (!buf)
		return;
	memcpy(buf, data, size);
	gd_err_clear(&err);
	rc = gd_ptx_header_parse(buf, size, &h, &err);
	if (rc < 0 && err.msg[0] == '\0') {
		fprintf(stderr, "gd_ptx_header_parse returned %d with an empty message\n", rc);
		abort();
	}
	if (rc == 0) {
		int driver = size ? (int)data[0] * 100 : 0, cc = size > 1 ? data[1] % 130 : 0;

		why[0] = '\0';
		if (!gd_ptx_loadable(&h, driver, cc, why, sizeof why) && !why[0]) {
			fprintf(stderr, "gd_ptx_loadable refused without a reason\n");
			abort();
		}
	}
	/* the log: the capacity is the buffer, the reported length anything */
	n = gd_ptx_log_clean(buf, size, size > 2 ? (size_t)data[2] * 64 : size, line, sizeof line);
	if (n >= sizeof line || strlen(line) != n) {
		fprintf(stderr, "gd_ptx_log_clean returned %zu for a line of %zu\n", n, strlen(line));
		abort();
	}
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] >= 0x7f) {
			fprintf(stderr, "gd_ptx_log_clean left byte 0x%02x\n", (unsigned char)line[i]);
			abort();
		}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_redact(const uint8_t *data, size_t size)
{
	size_t room = size ? (size_t)data[size - 1] % 300 + 1 : 1, n, k;
	char *out = malloc(room), *pr = malloc(room);
	char sep = size && (data[0] & 1) ? ' ' : '\0';

	if (!out || !pr)
		abort();
	/* a joined line is a C string: it holds no NUL */
	n = gd_redact_args((const char *)data, sep == ' ' ? strnlen((const char *)data, size) : size, sep,
			   size && (data[0] & 2), out, room);
	if (n >= room || strlen(out) != n)
		abort();
	k = gd_printable(out, n, pr, room);
	if (k >= room || strlen(pr) != k || !gd_printable_is(pr, k))
		abort();
	free(out);
	free(pr);
}

static void fuzz_kstack(const uint8_t *data, size_t size)
{
	size_t room = size ? (size_t)data[size - 1] % 300 + 1 : 1;
	char *in = malloc(size ? size : 1), *out = malloc(room);

	if (!in || !out)
		abort();
	if (size)
		memcpy(in, data, size);
	gd_kstack_format(in, size, out, room);
	if (strnlen(out, room) >= room || strchr(out, '\n'))
		abort();
	free(in);
	free(out);
}

/* A bridge's config space (sys_bus_pci_acs.c): the ACS capability is
 * found, absent, or the list is said to be malformed; never a read past
 * len (ASan). */
static void fuzz_pci_config(const uint8_t *data, size_t size)
{
	uint8_t *cfg = malloc(size ? size : 1);
	uint16_t cap = 0, ctl = 0;
	struct gd_err err;
	int rc;

	if (!cfg)
		abort();
	if (size)
		memcpy(cfg, data, size);
	gd_err_clear(&err);
	rc = gd_pci_acs_find(cfg, size, &cap, &ctl, &err);
	if (rc > 1 || (rc < 0 && !err.msg[0]))
		abort();
	free(cfg);
}

static const struct gd_parser nvsmi_topo = { "offline nvidia-smi topo -m", gd_parse_nvsmi_topo };

#define TARGET_SERIES (gd_nparsers)
#define TARGET_THRESHOLDS (gd_nparsers + 1)
#define TARGET_HTTP (gd_nparsers + 2)
#define TARGET_ZONEINFO (gd_nparsers + 3)
#define TARGET_PROM (gd_nparsers + 4)
#define TARGET_IPMI (gd_nparsers + 5)
#define TARGET_PTX (gd_nparsers + 6)
#define TARGET_SKU (gd_nparsers + 7)
#define TARGET_ENVIRON (gd_nparsers + 8)
#define TARGET_REDACT (gd_nparsers + 9)
#define TARGET_KSTACK (gd_nparsers + 10)
#define TARGET_FMLOG (gd_nparsers + 11)
#define TARGET_PCI_CONFIG (gd_nparsers + 12)
#define TARGET_TOPO (gd_nparsers + 13)
#define NTARGETS (gd_nparsers + 14)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *list = getenv("GD_FUZZ_LIST");

	(void)argc;
	(void)argv;
	if (!list || strcmp(list, "1") != 0)
		return 0;
	for (size_t i = 0; i < gd_nparsers; i++)
		printf("%zu %s\n", i, gd_parsers[i].name);
	printf("%zu snapshot.jsonl\n", (size_t)TARGET_SERIES);
	printf("%zu thresholds.ini\n", (size_t)TARGET_THRESHOLDS);
	printf("%zu http request\n", (size_t)TARGET_HTTP);
	printf("%zu proc/zoneinfo\n", (size_t)TARGET_ZONEINFO);
	printf("%zu prometheus answer\n", (size_t)TARGET_PROM);
	printf("%zu ipmitool dcmi power reading\n", (size_t)TARGET_IPMI);
	printf("%zu ptx module\n", (size_t)TARGET_PTX);
	printf("%zu probe sku table\n", (size_t)TARGET_SKU);
	printf("%zu proc/<pid>/environ\n", (size_t)TARGET_ENVIRON);
	printf("%zu command line redaction\n", (size_t)TARGET_REDACT);
	printf("%zu proc/<pid>/stack\n", (size_t)TARGET_KSTACK);
	printf("%zu fabricmanager.log\n", (size_t)TARGET_FMLOG);
	printf("%zu pci config space\n", (size_t)TARGET_PCI_CONFIG);
	printf("%zu offline nvidia-smi topo -m\n", (size_t)TARGET_TOPO);
	fflush(stdout);
	exit(0);
}

static void fuzz_parser(const struct gd_parser *p, const uint8_t *data, size_t size)
{
	struct gd_snapshot s;
	struct gd_err err;
	char *buf = malloc(size + 1);
	int rc;

	if (!buf)
		return;
	memcpy(buf, data, size);
	buf[size] = '\0';
	gd_snapshot_init(&s);
	gd_err_clear(&err);
	rc = p->parse(buf, size, &s, &err);
	/* The contract: a failure or a partial parse always says why. */
	if (rc != 0 && err.msg[0] == '\0') {
		fprintf(stderr, "parser %s returned %d with an empty message\n", p->name, rc);
		abort();
	}
	if (rc > 1) {
		fprintf(stderr, "parser %s returned %d (expected 0, 1 or negative)\n", p->name, rc);
		abort();
	}
	gd_snapshot_release(&s);
	free(buf);
}

/* Differential: a line the cJSON fast path takes (snapshot_fast.c) must be
 * one jansson reads into the same snapshot. */
static void fast_vs_jansson(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *e = p + size;

	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(e - p);
		char *fast, *want;

		if (fast_check_line(p, n, &fast, &want) == 0) {
			fprintf(stderr, "the fast path and jansson disagree on a line:\n%.*s\nfast:    %s\njansson: %s\n",
				(int)n, p, fast, want ? want : "(refused)");
			abort();
		}
		free(fast);
		free(want);
		p += n;
	}
}

static void fuzz_series(const uint8_t *data, size_t size)
{
	struct gd_series ser;
	struct gd_err err;
	FILE *f;
	int rc;

	if (size == 0)
		return; /* fmemopen(3) of 0 bytes is EINVAL on older glibc */
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return;
	gd_series_init(&ser);
	gd_err_clear(&err);
	rc = gd_series_load_stream(&ser, f, "fuzz.jsonl", &err);
	if (rc < 0 && err.msg[0] == '\0') {
		fprintf(stderr, "gd_series_load_stream returned %d with an empty message\n", rc);
		abort();
	}
	gd_series_release(&ser);
	fclose(f);
	fast_vs_jansson(data, size);
}

static void fuzz_thresholds(const uint8_t *data, size_t size)
{
	struct gd_thresholds t;
	struct gd_err err;
	char path[64];
	int fd = memfd_create("gd-fuzz-ini", MFD_CLOEXEC);
	int rc;

	if (fd < 0)
		return;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return;
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	gd_thresholds_init(&t);
	gd_err_clear(&err);
	rc = gd_thresholds_load(&t, path, false, &err);
	if (rc < 0 && err.msg[0] == '\0') {
		fprintf(stderr, "gd_thresholds_load returned %d with an empty message\n", rc);
		abort();
	}
	close(fd);
}

static void fuzz_http(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	size_t limit = 256 + size % 1024;
	struct gd_http_req r;
	int rc;

	if (!buf)
		return;
	memcpy(buf, data, size);
	rc = gd_http_parse(buf, size, limit, &r);
	if (rc > 0) {
		bool inside = r.path >= buf && r.path_len <= (size_t)rc && r.path <= buf + rc - r.path_len;
		bool root = r.path_len == 1 && r.path[0] == '/';  /* absolute form without a path */

		if ((size_t)rc > size || (size_t)rc > limit || r.path_len == 0 || !(inside || root)) {
			fprintf(stderr, "gd_http_parse returned %d for %zu bytes (limit %zu), path of %zu bytes %s\n", rc,
				size, limit, r.path_len, inside ? "inside the head" : "outside the head");
			abort();
		}
	}
	if (rc < 0 && (!r.why || (rc != -400 && rc != -414 && rc != -431 && rc != -505))) {
		fprintf(stderr, "gd_http_parse refused with %d (%s)\n", rc, r.why ? r.why : "no reason");
		abort();
	}
	if (rc == 0 && size >= limit) {
		fprintf(stderr, "gd_http_parse asked for more than its limit (%zu of %zu bytes)\n", size, limit);
		abort();
	}
	free(buf);
}

static void fuzz_ipmi(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	struct gd_ipmi_power p;
	struct gd_err err;
	int rc;

	if (!buf)
		return;
	memcpy(buf, data, size);
	gd_err_clear(&err);
	rc = gd_ipmi_dcmi_parse(buf, size, &p, &err);
	if (rc < 0 && err.msg[0] == '\0') {
		fprintf(stderr, "gd_ipmi_dcmi_parse returned %d with an empty message\n", rc);
		abort();
	}
	if (rc == 0 && !(p.inst_w >= 0)) {
		fprintf(stderr, "gd_ipmi_dcmi_parse succeeded without an instantaneous reading\n");
		abort();
	}
	free(buf);
}

static const struct gd_parser zoneinfo = { "proc/zoneinfo", gd_parse_proc_zoneinfo };
/* Fabric Manager's log (klog/fmlog.c), offline and live */
static const struct gd_parser fmlog = { "fabricmanager.log", gd_parse_fmlog };
/* An answer of the Prometheus query API (src/fleet/prom.c): a failure
 * always says why, and a success holds no more than the limit. */
static void fuzz_prom(const uint8_t *data, size_t size)
{
	struct gd_prom_result r;
	struct gd_err err;
	long status = size && data[0] & 1 ? 400 : 200;
	size_t limit = size ? data[size - 1] % 8 : 0;
	int rc;

	gd_err_clear(&err);
	rc = gd_prom_parse(status, (const char *)data, size, limit, &r, &err);
	if (rc < 0 && err.msg[0] == '\0') {
		fprintf(stderr, "gd_prom_parse returned %d with an empty message\n", rc);
		abort();
	}
	if (rc == 0 && limit && r.n > limit) {
		fprintf(stderr, "gd_prom_parse kept %zu samples over a limit of %zu\n", r.n, limit);
		abort();
	}
	if (rc == 0)
		for (size_t i = 0; i < r.n; i++) {
			double t, v;

			(void)gd_prom_label(&r.s[i], "instance");
			for (size_t k = 0; gd_prom_point(&r.s[i], k, &t, &v); k++)
				;  /* a matrix's points (fleet --job) */
		}
	gd_prom_result_release(&r);
}

static void fuzz_sku(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	struct gd_sku_table t;
	struct gd_err err;
	int rc;

	if (!buf)
		return;
	memcpy(buf, data, size);
	gd_sku_table_init(&t);
	gd_err_clear(&err);
	if (gd_sku_table_builtin(&t, &err) < 0) {
		fprintf(stderr, "the built-in SKU table does not parse: %s\n", err.msg);
		abort();
	}
	rc = gd_sku_table_parse(&t, buf, size, "fuzz.ini", size % 2 == 1, &err);
	if (rc < 0 && strncmp(err.msg, "fuzz.ini:", 9) != 0) {
		fprintf(stderr, "gd_sku_table_parse returned %d with \"%s\" (no file:line)\n", rc, err.msg);
		abort();
	}
	for (size_t i = 0; i < t.n; i++) {
		const struct gd_sku *k = &t.items[i];
		double v;

		if (!k->name[0] || gd_sku_find(&t, k->name) == NULL) {
			fprintf(stderr, "SKU %zu has no name, or its name does not find it\n", i);
			abort();
		}
		for (int j = 0; j < GD_SKU_NFIG; j++)
			if (!isnan(k->fig[j]) && (!(k->fig[j] > 0) || !k->source[j][0])) {
				fprintf(stderr, "SKU \"%s\" figure %d = %g (source \"%s\")\n", k->name, j, k->fig[j],
					k->source[j]);
				abort();
			}
		for (int pk = 0; pk < GD_PK_COUNT; pk++)
			if (gd_sku_expected(k, pk, &v) && !(v > 0 && isfinite(v))) {
				fprintf(stderr, "SKU \"%s\" expects %g of probe %d\n", k->name, v, pk);
				abort();
			}
	}
	gd_sku_table_release(&t);
	free(buf);
}

/* The environment scan: a decoy variable first (a value no field could
 * hold as written: its bytes are not printable), then the input. */
static void fuzz_environ(const uint8_t *data, size_t size)
{
	static const char decoy[] = "SECRET_TOKEN=\x01\x02" "decoy";
	char *buf = malloc(sizeof decoy + size);
	struct gd_environ e;
	struct gd_job_rank r;

	if (!buf)
		return;
	memcpy(buf, decoy, sizeof decoy);   /* with its NUL */
	memcpy(buf + sizeof decoy, data, size);
	memset(&r, 0, sizeof r);
	gd_environ_scan(buf, sizeof decoy + size, &e);
	gd_job_rank_from_environ(&e, &r);
	gd_job_rank_set_job(&r);
	if (memmem(&r, sizeof r, "\x01\x02", 2)) {
		fprintf(stderr, "the decoy's bytes are in the record\n");
		abort();
	}
	for (size_t i = 0; i < gd_nsections; i++) {
		const struct gd_record_desc *d = &gd_sections[i];

		if (strcmp(d->name, "job_ranks") != 0)
			continue;
		for (size_t k = 0; k < d->nfields; k++) {
			const char *f = (const char *)&r + d->fields[k].offset;
			size_t n;

			if (d->fields[k].type != GD_FT_STR)
				continue;
			n = strnlen(f, d->fields[k].size);
			if (n == d->fields[k].size) {
				fprintf(stderr, "job_ranks.%s is not terminated\n", d->fields[k].name);
				abort();
			}
			for (size_t j = 0; j < n; j++)
				if ((unsigned char)f[j] < 0x20 || (unsigned char)f[j] >= 0x7f) {
					fprintf(stderr, "job_ranks.%s holds byte 0x%02x\n", d->fields[k].name,
						(unsigned char)f[j]);
					abort();
				}
		}
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t target;

	if (size < 1)
		return 0;
	target = data[0] % NTARGETS;
	data++;
	size--;
	if (target < gd_nparsers)
		fuzz_parser(&gd_parsers[target], data, size);
	else if (target == TARGET_SERIES)
		fuzz_series(data, size);
	else if (target == TARGET_THRESHOLDS)
		fuzz_thresholds(data, size);
	else if (target == TARGET_HTTP)
		fuzz_http(data, size);
	else if (target == TARGET_ZONEINFO)
		fuzz_parser(&zoneinfo, data, size);
	else if (target == TARGET_PROM)
		fuzz_prom(data, size);
	else if (target == TARGET_IPMI)
		fuzz_ipmi(data, size);
	else if (target == TARGET_PTX)
		fuzz_ptx(data, size);
	else if (target == TARGET_REDACT)
		fuzz_redact(data, size);
	else if (target == TARGET_KSTACK)
		fuzz_kstack(data, size);
	else if (target == TARGET_FMLOG)
		fuzz_parser(&fmlog, data, size);
	else if (target == TARGET_SKU)
		fuzz_sku(data, size);
	else if (target == TARGET_PCI_CONFIG)
		fuzz_pci_config(data, size);
	else if (target == TARGET_TOPO)
		fuzz_parser(&nvsmi_topo, data, size);
	else
		fuzz_environ(data, size);
	return 0;
}
