/*
 * fuzz_joblog_ranks.c - libFuzzer harness for the ranks' logs: the
 * launchers' prefixes and the watchdog's lines (src/offline/joblog.c), the
 * rank of a file's name, and the verdict across ranks that reads them
 * (src/rules/rule_job_ranks.c, job.collective_timeout).
 *
 * The first input byte picks how the rest is used:
 *
 *   even   the rest is a job's log: parsed into a snapshot, every record
 *          checked (a rank and where it came from go together, a count of
 *          the watchdog is -1 or a whole number up to 2^53, strings end in
 *          NUL), then job.rank_stuck, job.collective_mismatch and
 *          job.collective_timeout run over it and every finding is checked
 *          (a subject, a summary, at most GD_MAX_EVIDENCE evidence);
 *   odd    each line of the rest is put between one of the launchers'
 *          prefixes (the byte's upper bits pick it) and a watchdog line
 *          whose numbers come from the line, then read as above; the rest
 *          is also a file's name for gd_joblog_rank_of_name.
 *
 * Built and run by tests/fuzz/run.sh next to fuzz_parsers (seeds in
 * tests/fuzz/seeds-fuzz_joblog_ranks/).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/snapshot.h"
#include "offline/offline.h"
#include "rules/rule.h"
#include "rules/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_str(const char *s, size_t n)
{
	if (!memchr(s, '\0', n))
		abort();
}

static void check_records(const struct gd_snapshot *s)
{
	GD_VEC_EACH(s->job_log, const struct gd_job_log, r) {
		check_str(r->kind, sizeof r->kind);
		check_str(r->text, sizeof r->text);
		check_str(r->pg, sizeof r->pg);
		check_str(r->host, sizeof r->host);
		check_str(r->rank_from, sizeof r->rank_from);
		if (r->rank.ok != (r->rank_from[0] != '\0'))
			abort();
		if (r->rank_from[0] && strcmp(r->rank_from, "prefix") != 0 && strcmp(r->rank_from, "line") != 0)
			abort();
		if (r->last_enqueued.ok && (r->last_enqueued.v < -1 || r->last_enqueued.v > 9007199254740992.0 ||
					    r->last_enqueued.v != floor(r->last_enqueued.v)))
			abort();
		if (r->last_completed.ok && (r->last_completed.v < -1 || r->last_completed.v > 9007199254740992.0))
			abort();
		if (r->numel_in.ok && r->numel_in.v == UINT64_MAX)
			abort();
	}
}

static void run_rules(const struct gd_snapshot *s)
{
	static const char *const ids[] = { "job.rank_stuck", "job.collective_mismatch", "job.collective_timeout" };
	const struct gd_snapshot *snaps[1] = { s };
	struct gd_window w = { snaps, 1 };
	struct gd_thresholds th;

	gd_thresholds_init(&th);
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		const struct gd_rule *r = gd_rule_find(ids[i]);
		struct gd_findings out;

		if (!r)
			abort();
		gd_findings_init(&out);
		(void)gd_rule_run(r, &w, &th, &out);
		for (size_t j = 0; j < out.items.n; j++) {
			const struct gd_finding *f = GD_VEC_AT(out.items, struct gd_finding, j);

			if (!f->subject[0] || !f->summary[0] || f->nev > GD_MAX_EVIDENCE)
				abort();
			check_str(f->summary, sizeof f->summary);
		}
		gd_findings_release(&out);
	}
}

static void read_log(const char *buf, size_t len)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_source *src;

	gd_snapshot_init(&s);
	gd_err_clear(&err);
	if (gd_parse_joblog(buf, len, &s, &err) >= 0) {
		check_records(&s);
		src = GD_PUSH(&s, sources, struct gd_source);
		memset(src, 0, sizeof *src);
		GD_STRSET(src->name, "offline:job-log");
		GD_STRSET(src->status, "ok");
		run_rules(&s);
	} else if (!err.msg[0]) {
		abort(); /* a failure says why */
	}
	gd_snapshot_release(&s);
}

/* Lines of the input, each wrapped in a launcher's prefix and a watchdog line. */
static void wrapped(uint8_t pick, const char *in, size_t n)
{
	static const char *const pre[] = { "[rank%.*s]:", "%.*s: ", "[1,%.*s]<stderr>:", "[host:%.*s]:[rank3]:",
					   "(RayWorkerWrapper pid=%.*s) ", "%.*s" };
	static const char *const body[] = {
		"[PG 0 Rank 1] Timeout at NCCL work: %.*s, last enqueued NCCL work: %.*s, last completed NCCL work: %.*s.\n",
		"[PG ID %.*s PG GUID 0(default_pg) Rank 2] Received a dump signal due to a collective timeout from  rank %.*s "
		"and we will try our best. Last enqueued NCCL work: %.*s, last completed NCCL work: -1.\n",
		"[Rank 4] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%.*s, OpType=ALLREDUCE, NumelIn=%.*s, "
		"NumelOut=%.*s, Timeout(ms)=600000) ran for 600013 milliseconds before timing out.\n",
	};
	size_t cap = n * 8 + 4096, len = 0;
	char *out = malloc(cap), name[256];
	const char *p = in, *e = in + n;

	if (!out)
		return;
	while (p < e && len + 1024 + (size_t)(e - p) * 4 < cap) {
		const char *nl = memchr(p, '\n', (size_t)(e - p)), *q = nl ? nl : e;
		int f = (int)(q - p), a = f / 3, b = f / 3, c = f - 2 * (f / 3);

		len += (size_t)snprintf(out + len, cap - len, pre[(pick >> 1) % 6], f > 24 ? 24 : f, p);
		len += (size_t)snprintf(out + len, cap - len, body[(pick >> 4) % 3], a, p, b, p + a, c, p + a + b);
		p = nl ? nl + 1 : e;
	}
	read_log(out, len);
	free(out);
	if (n < sizeof name) {
		uint64_t r;

		memcpy(name, in, n);
		name[n] = '\0';
		if (gd_joblog_rank_of_name(name, &r) && r > UINT32_MAX)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		wrapped(data[0], (const char *)data + 1, size - 1);
	else
		read_log((const char *)data + 1, size - 1);
	return 0;
}
