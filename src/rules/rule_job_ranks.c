/*
 * rule_job_ranks.c - the verdict across the ranks of one job, from their
 * logs (job_log[] records of kind collective_progress and collective_timeout,
 * read by src/offline/joblog.c from `check --from rank0.log rank1.log ...`
 * or one launcher's combined log).
 *
 * Each rank of each process group is taken at its last watchdog line that
 * gives its last enqueued (E) and last completed (C) NCCL work.  The
 * collective the group waits in is T, the lowest "first open work" among
 * its ranks (the work a rank timed out at, else C + 1 when E > C).  A rank
 * with E < T never reached it; a rank with E >= T did.
 *
 *   job.rank_stuck (critical): ranks that never reached T while the others
 *     did and wait in it (the ranks behind are no more than those ahead; a
 *     tie of one against one names the one behind, the lowest last
 *     enqueued);
 *   job.collective_mismatch (critical): one rank alone enqueued T and two or
 *     more others never did (it issued a collective the others will never
 *     join); or, at the same SeqNum of a group, the ranks' watchdog lines
 *     name another OpType or NumelIn (NumelIn not compared for ops whose
 *     sizes may differ by rank: all-to-all, scatter, send/recv, coalesced);
 *     the ranks in the minority are named;
 *   every rank at E = -1: no collective was ever enqueued, the processes
 *     froze before the first one (a stalled filesystem, a compile on one
 *     rank), not the network: said by job.collective_timeout
 *     (gd__job_frozen).
 *
 * When every rank reached T (none behind), no rank stands out: these rules
 * stay silent and job.collective_timeout says what timed out.  The rank of
 * a line is its launcher's prefix, else the line's own [Rank N], else the
 * file's name; a file with none is one rank's log, named by its file.  The
 * same rank of the same group in two files (or on two hosts) is a conflict:
 * both are left out of the verdict and named (a rule with no finding for
 * that reason is not evaluated).  Every finding cites file:line of each
 * rank it used, in its summary (as many as fit) and as log_line evidence.
 */
#include "rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "rules/rule_job.h"
#include "rules/rule_util.h"

/* log_line evidence per finding, the rest counted in other_ranks */
#define MAX_CITED 5

struct rk {
	const struct gd_job_log *r; /* the rank's last progress line in its group */
	const char *pg;
	bool known;
	uint64_t rank;
	char host[64];
	const struct gd_job_log *clash; /* the same rank elsewhere: a conflict */
	double open;                     /* first open work, -2 when none */
};

struct ranks {
	struct rk *v;
	size_t n;
	bool frozen;          /* every rank at E = -1 */
	size_t conflicts;
	char conflict[160];   /* the first, in words */
};

static bool is(const struct gd_job_log *r, const char *kind)
{
	return strcmp(r->kind, kind) == 0;
}

/* The group of a line that names none: the only group the logs name, if
 * they name one, else "" (one group of the lines that name none). */
static const char *only_pg(const struct gd_snapshot *s, const char *kind)
{
	const char *one = NULL;

	GD_VEC_EACH(s->job_log, const struct gd_job_log, r)
		if (is(r, kind) && r->pg[0]) {
			if (one && strcmp(one, r->pg) != 0)
				return "";
			one = r->pg;
		}
	return one ? one : "";
}

static const char *pg_eff(const struct gd_job_log *r, const char *only)
{
	return r->pg[0] ? r->pg : only;
}

/* The same rank, or the same log of an unknown rank, in the same group. */
static bool same(const struct rk *k, const struct gd_job_log *r, const char *only)
{
	if (strcmp(k->pg, pg_eff(r, only)) != 0 || k->known != r->rank.ok)
		return false;
	return k->known ? k->rank == r->rank.v : strcmp(k->r->file, r->file) == 0;
}

/* The host of rank k: its line's, else another line of its file and rank's. */
static void host_of(const struct gd_snapshot *s, struct rk *k)
{
	GD_STRSET(k->host, k->r->host);
	if (k->host[0] || !k->known)
		return;
	GD_VEC_EACH(s->job_log, const struct gd_job_log, o)
		if (o->rank.ok && o->rank.v == k->rank && o->host[0] && strcmp(o->file, k->r->file) == 0) {
			GD_STRSET(k->host, o->host);
			return;
		}
}

static void ranks_build(const struct gd_snapshot *s, struct ranks *R)
{
	size_t live = 0, neg = 0;
	const char *only = only_pg(s, "collective_progress");

	memset(R, 0, sizeof *R);
	R->v = gd_xcalloc(s->job_log.n ? s->job_log.n : 1, sizeof *R->v);
	GD_VEC_EACH(s->job_log, const struct gd_job_log, r) {
		struct rk *k = NULL;

		if (!is(r, "collective_progress") || !r->last_enqueued.ok)
			continue;
		for (size_t i = 0; i < R->n && !k; i++)
			if (same(&R->v[i], r, only))
				k = &R->v[i];
		if (!k) {
			k = &R->v[R->n++];
			k->pg = pg_eff(r, only);
			k->known = r->rank.ok;
			k->rank = r->rank.v;
		} else if (k->known && (strcmp(k->r->file, r->file) != 0 ||
					(k->r->host[0] && r->host[0] && strcmp(k->r->host, r->host) != 0))) {
			if (!k->clash && !R->conflicts++)
				snprintf(R->conflict, sizeof R->conflict, "rank %llu: %.60s:%llu, %.60s:%llu",
					 (unsigned long long)k->rank, k->r->file, (unsigned long long)k->r->line.v, r->file,
					 (unsigned long long)r->line.v);
			k->clash = r;
			continue;
		}
		k->r = r;
	}
	for (size_t i = 0; i < R->n; i++) {
		struct rk *k = &R->v[i];
		const struct gd_job_log *r = k->r;

		host_of(s, k);
		k->open = -2;
		if (r->seq.ok)
			k->open = (double)r->seq.v;
		else if (r->last_completed.ok && r->last_enqueued.v > r->last_completed.v)
			k->open = r->last_completed.v + 1;
		if (k->clash)
			continue;
		live++;
		neg += r->last_enqueued.v < 0;
	}
	R->frozen = live && neg == live;
}

static void ranks_free(struct ranks *R)
{
	free(R->v);
}

/* "rank 3 (node-a)", "rank 3", or "r3.log (one rank's log)". */
static void name_of(char *dst, size_t n, const struct rk *k)
{
	if (k->known && k->host[0])
		snprintf(dst, n, "rank %llu (%s)", (unsigned long long)k->rank, k->host);
	else if (k->known)
		snprintf(dst, n, "rank %llu", (unsigned long long)k->rank);
	else
		snprintf(dst, n, "%.100s (one rank's log)", k->r->file);
}

/* "rank 3 r3.log:12" into a summary's list of citations. */
static void cite(char *buf, size_t n, const struct rk *k)
{
	char who[128];
	size_t len = strlen(buf);

	name_of(who, sizeof who, k);
	if (len + strlen(who) + strlen(k->r->file) + 32 >= n) {
		if (!strstr(buf, "..."))
			cat(buf, n, "%s...", len ? "; " : "");
		return;
	}
	cat(buf, n, "%s%s %s:%llu", len ? "; " : "", who, k->r->file, (unsigned long long)k->r->line.v);
}

/* A summary that starts with its subject ("rank 3 ...") starts upper-case. */
static void upper1(struct gd_finding *f)
{
	if (f->summary[0] >= 'a' && f->summary[0] <= 'z')
		f->summary[0] = (char)(f->summary[0] - 'a' + 'A');
}

static void pg_words(char *dst, size_t n, const char *pg)
{
	if (pg[0])
		snprintf(dst, n, " (%s)", pg);
	else
		dst[0] = '\0';
}

/* The findings' log_line evidence: the named ranks first, then the others,
 * MAX_CITED in all, the rest counted. */
static void lines_of(struct gd_finding *f, struct rk **named, size_t nn, struct rk **others, size_t no)
{
	size_t cited = 0;

	for (size_t i = 0; i < nn + no; i++) {
		const struct rk *k = i < nn ? named[i] : others[i - nn];

		if (cited < MAX_CITED) {
			gd_finding_ev_line(f, k->r->file, (double)k->r->line.v, k->r->text);
			cited++;
		}
	}
	if (nn + no > cited)
		gd_finding_ev(f, "other_ranks", (double)(nn + no - cited), "", NAN);
}

/* One group's split at its collective T: the ranks behind and ahead. */
struct split {
	double t;
	struct rk **behind, **ahead;
	size_t nb, na;
};

static bool split_group(struct ranks *R, const char *pg, struct split *sp)
{
	sp->t = -2;
	sp->nb = sp->na = 0;
	for (size_t i = 0; i < R->n; i++)
		if (!R->v[i].clash && strcmp(R->v[i].pg, pg) == 0 && R->v[i].open > -2 &&
		    (sp->t == -2 || R->v[i].open < sp->t))
			sp->t = R->v[i].open;
	if (sp->t == -2)
		return false;
	for (size_t i = 0; i < R->n; i++) {
		struct rk *k = &R->v[i];

		if (k->clash || strcmp(k->pg, pg) != 0)
			continue;
		if (k->r->last_enqueued.v < sp->t)
			sp->behind[sp->nb++] = k;
		else
			sp->ahead[sp->na++] = k;
	}
	return sp->nb && sp->na;
}

/* Calls fn for each process group (its first rank), once. */
static bool first_of_group(const struct ranks *R, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (strcmp(R->v[j].pg, R->v[i].pg) == 0)
			return false;
	return true;
}

static enum gd_verdict no_verdict(struct gd_rule_ctx *rc, const struct ranks *R)
{
	if (R->conflicts)
		return gd_rule_unknown(rc, _("the same rank in two logs (%s; %zu in all: a restarted job, or two jobs): "
					     "not merged, so no verdict across ranks"),
				       R->conflict, R->conflicts);
	return GD_VERDICT_CLEAR;
}

static void note_conflict(struct gd_finding *f, const struct ranks *R)
{
	if (R->conflicts)
		gd_finding_ev_text(f, "conflict", R->conflict);
}

/* The job's log read, its ranks, room for a split: NULL without a log. */
static const struct gd_snapshot *begin(struct gd_rule_ctx *rc, struct ranks *R, struct split *sp)
{
	const struct gd_snapshot *s = gd__job_log_read(rc);

	if (!s)
		return NULL;
	ranks_build(s, R);
	sp->behind = gd_xcalloc(R->n + 1, sizeof *sp->behind);
	sp->ahead = gd_xcalloc(R->n + 1, sizeof *sp->ahead);
	return s;
}

static enum gd_verdict end(struct gd_rule_ctx *rc, struct ranks *R, struct split *sp, size_t fired)
{
	enum gd_verdict v = fired ? GD_VERDICT_FIRED : no_verdict(rc, R);

	free(sp->behind);
	free(sp->ahead);
	ranks_free(R);
	return v;
}

static enum gd_verdict no_log(struct gd_rule_ctx *rc)
{
	return gd_rule_unknown(rc, "%s", _("no log of the job in the input: give it with check --from train.log"));
}

enum gd_verdict gd_rule_job_rank_stuck(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	struct ranks R;
	struct split sp;
	size_t fired = 0;

	if (!begin(rc, &R, &sp))
		return no_log(rc);
	for (size_t i = 0; i < R.n; i++) {
		char subj[128] = "", who[128], cites[320] = "", pg[80], hi[32];
		double amin = INFINITY, amax = -INFINITY;
		struct gd_finding *f;

		if (!first_of_group(&R, i) || !split_group(&R, R.v[i].pg, &sp))
			continue;
		/* one rank alone ahead of two or more: its extra collective */
		if (sp.na == 1 && sp.nb >= 2)
			continue;
		for (size_t j = 0; j < sp.nb; j++) {
			name_of(who, sizeof who, sp.behind[j]);
			if (j < 4)
				cat(subj, sizeof subj, "%s%s", j ? ", " : "", who);
			else if (j == 4)
				cat(subj, sizeof subj, ", ...");
			cite(cites, sizeof cites, sp.behind[j]);
		}
		for (size_t j = 0; j < sp.na; j++) {
			amin = fmin(amin, sp.ahead[j]->r->last_enqueued.v);
			amax = fmax(amax, sp.ahead[j]->r->last_enqueued.v);
			cite(cites, sizeof cites, sp.ahead[j]);
		}
		pg_words(pg, sizeof pg, R.v[i].pg);
		snprintf(hi, sizeof hi, amax > amin ? "%.0f to %.0f" : "%.0f", amin, amax);
		f = gd_finding_add(rc, out, GD_SEV_CRITICAL, "%s", subj);
		gd_finding_summary(f,
				   P_("%s never reached NCCL work %.0f%s: its last enqueued work is %.0f, while the %zu other "
				      "rank seen enqueued it (last enqueued %s) and waits in it; the job hangs on it (%s).",
				      "%s never reached NCCL work %.0f%s: its last enqueued work is %.0f, while the %zu other "
				      "ranks seen enqueued it (last enqueued %s) and wait in it; the job hangs on it (%s).",
				      sp.na),
				   subj, sp.t, pg, sp.behind[0]->r->last_enqueued.v, sp.na, hi, cites);
		upper1(f);
		gd_finding_ev(f, "last_enqueued", sp.behind[0]->r->last_enqueued.v, "", NAN);
		gd_finding_ev(f, "collective", sp.t, "", NAN);
		gd_finding_ev(f, "ranks_behind", (double)sp.nb, "", NAN);
		gd_finding_ev(f, "ranks_waiting", (double)sp.na, "", NAN);
		lines_of(f, sp.behind, sp.nb, sp.ahead, sp.na);
		note_conflict(f, &R);
		fired++;
	}
	return end(rc, &R, &sp, fired);
}

/* Ops whose NumelIn may differ by rank. */
static bool sizes_vary(const char *op)
{
	static const char *const v[] = { "ALLTOALL", "SCATTER", "SEND", "RECV", "COALESCED", "UNKNOWN", "GATHER" };

	if (strstr(op, "REDUCE_SCATTER") || strstr(op, "ALLGATHER"))
		return false;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (strstr(op, v[i]))
			return true;
	return !op[0];
}

/* The group of a watchdog "Watchdog caught" line: its own, else the next
 * progress line of its file and rank at the same work. */
static const char *pg_of_timeout(const struct gd_snapshot *s, const struct gd_job_log *w)
{
	if (w->pg[0] || !w->rank.ok)
		return w->pg;
	GD_VEC_EACH(s->job_log, const struct gd_job_log, r)
		if (is(r, "collective_progress") && r->rank.ok && r->rank.v == w->rank.v && r->seq.ok && r->seq.v == w->seq.v &&
		    r->line.v > w->line.v && strcmp(r->file, w->file) == 0)
			return r->pg;
	return "";
}

/* One rank's watchdog line at one (group, SeqNum). */
struct said {
	const struct gd_job_log *r;
	const char *pg;
	bool taken;
};

static bool same_rank(const struct gd_job_log *a, const struct gd_job_log *b)
{
	if (a->rank.ok != b->rank.ok)
		return false;
	return a->rank.ok ? a->rank.v == b->rank.v : strcmp(a->file, b->file) == 0;
}

static bool agree(const struct gd_job_log *a, const struct gd_job_log *b, bool sizes)
{
	if (strcmp(a->what, b->what) != 0)
		return false;
	return !sizes || !a->numel_in.ok || !b->numel_in.ok || a->numel_in.v == b->numel_in.v;
}

static void rk_of(struct rk *k, const struct gd_snapshot *s, const struct gd_job_log *r)
{
	memset(k, 0, sizeof *k);
	k->r = r;
	k->pg = r->pg;
	k->known = r->rank.ok;
	k->rank = r->rank.v;
	host_of(s, k);
}

/* At one (group, SeqNum), ranks whose op or size differs from the most. */
static size_t op_mismatch(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_snapshot *s,
			  const struct ranks *R)
{
	size_t n = 0, fired = 0;
	struct said *v = gd_xcalloc(s->job_log.n ? s->job_log.n : 1, sizeof *v);

	GD_VEC_EACH(s->job_log, const struct gd_job_log, r) {
		bool dup = false;
		const char *pg;

		if (!is(r, "collective_timeout") || !r->seq.ok || !r->what[0])
			continue;
		pg = pg_of_timeout(s, r);
		for (size_t i = 0; i < n && !dup; i++)
			dup = same_rank(v[i].r, r) && v[i].r->seq.v == r->seq.v && strcmp(v[i].pg, pg) == 0;
		if (!dup)
			v[n++] = (struct said){ r, pg, false };
	}
	for (size_t i = 0; i < n; i++) {
		size_t idx[64], m = 0, best = 0, bestn = 0, odd = 0;
		bool sizes, tie = false;
		struct rk minority[8], rest[8], *mp[8], *rp[8];
		size_t nm = 0, nr = 0;
		char subj[128] = "", cites[320] = "", pg[80], who[128];
		struct gd_finding *f;

		if (v[i].taken)
			continue;
		/* a line whose group is not known joins the group of its SeqNum
		 * when the others name one group only */
		{
			const char *one = NULL;
			bool many = false;

			for (size_t j = i; j < n; j++)
				if (!v[j].taken && v[j].r->seq.v == v[i].r->seq.v && v[j].pg[0]) {
					many = many || (one && strcmp(one, v[j].pg) != 0);
					one = v[j].pg;
				}
			for (size_t j = i; j < n && one && !many; j++)
				if (!v[j].taken && v[j].r->seq.v == v[i].r->seq.v && !v[j].pg[0])
					v[j].pg = one;
		}
		for (size_t j = i; j < n && m < 64; j++)
			if (!v[j].taken && v[j].r->seq.v == v[i].r->seq.v && strcmp(v[j].pg, v[i].pg) == 0) {
				v[j].taken = true;
				idx[m++] = j;
			}
		sizes = !sizes_vary(v[i].r->what);
		for (size_t a = 0; a < m; a++) {
			size_t c = 0;

			for (size_t b = 0; b < m; b++)
				c += agree(v[idx[a]].r, v[idx[b]].r, sizes);
			if (c > bestn) {
				bestn = c;
				best = idx[a];
				tie = false;
			} else if (c == bestn && !agree(v[idx[a]].r, v[best].r, sizes)) {
				tie = true;
			}
		}
		for (size_t a = 0; a < m; a++)
			odd += !agree(v[idx[a]].r, v[best].r, sizes);
		if (m < 2 || !odd)
			continue;
		for (size_t a = 0; a < m; a++) {
			bool out_of_step = tie || !agree(v[idx[a]].r, v[best].r, sizes);

			if (out_of_step && nm < 8) {
				rk_of(&minority[nm], s, v[idx[a]].r);
				mp[nm] = &minority[nm];
				name_of(who, sizeof who, mp[nm]);
				if (nm < 4)
					cat(subj, sizeof subj, "%s%s", nm ? ", " : "", who);
				else if (nm == 4)
					cat(subj, sizeof subj, ", ...");
				nm++;
			} else if (!out_of_step && nr < 8) {
				rk_of(&rest[nr], s, v[idx[a]].r);
				rp[nr] = &rest[nr];
				nr++;
			}
		}
		for (size_t a = 0; a < nm; a++)
			cite(cites, sizeof cites, mp[a]);
		for (size_t a = 0; a < nr; a++)
			cite(cites, sizeof cites, rp[a]);
		pg_words(pg, sizeof pg, v[i].pg);
		f = gd_finding_add(rc, out, GD_SEV_CRITICAL, "%s", subj);
		if (tie)
			gd_finding_summary(f, _("The ranks disagree on collective SeqNum %llu%s: %s; a program bug, not hardware: "
						"the ranks took different code paths (%s)."),
					   (unsigned long long)v[i].r->seq.v, pg, subj, cites);
		else {
			char ni[32] = "?", no[32] = "?";

			if (mp[0]->r->numel_in.ok)
				snprintf(ni, sizeof ni, "%llu", (unsigned long long)mp[0]->r->numel_in.v);
			if (v[best].r->numel_in.ok)
				snprintf(no, sizeof no, "%llu", (unsigned long long)v[best].r->numel_in.v);
			gd_finding_summary(f, _("%s ran %s (NumelIn %s) as collective SeqNum %llu%s where the other ranks ran %s "
						"(NumelIn %s); a program bug, not hardware: the ranks took different code paths (%s)."),
					   subj, mp[0]->r->what, ni, (unsigned long long)v[i].r->seq.v, pg, v[best].r->what, no,
					   cites);
			upper1(f);
		}
		gd_finding_ev(f, "seq", (double)v[i].r->seq.v, "", NAN);
		if (mp[0]->r->numel_in.ok)
			gd_finding_ev(f, "numel_in", (double)mp[0]->r->numel_in.v, "", NAN);
		if (!tie && v[best].r->numel_in.ok)
			gd_finding_ev(f, "others_numel_in", (double)v[best].r->numel_in.v, "", NAN);
		gd_finding_ev_text(f, "op", mp[0]->r->what);
		lines_of(f, mp, nm, rp, nr);
		note_conflict(f, R);
		fired++;
	}
	free(v);
	return fired;
}

enum gd_verdict gd_rule_job_collective_mismatch(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	struct ranks R;
	struct split sp;
	size_t fired = 0;
	const struct gd_snapshot *s = begin(rc, &R, &sp);

	if (!s)
		return no_log(rc);
	for (size_t i = 0; i < R.n; i++) {
		char who[128], cites[320] = "", pg[80];
		struct gd_finding *f;
		const struct rk *k;

		if (!first_of_group(&R, i) || !split_group(&R, R.v[i].pg, &sp) || sp.na != 1 || sp.nb < 2)
			continue;
		k = sp.ahead[0];
		name_of(who, sizeof who, k);
		cite(cites, sizeof cites, k);
		for (size_t j = 0; j < sp.nb; j++)
			cite(cites, sizeof cites, sp.behind[j]);
		pg_words(pg, sizeof pg, R.v[i].pg);
		f = gd_finding_add(rc, out, GD_SEV_CRITICAL, "%s", who);
		gd_finding_summary(f,
				   _("%s alone enqueued NCCL work %.0f%s (last enqueued %.0f) while the %zu other ranks seen never "
				     "did (last enqueued %.0f): it issued a collective the others will never join; a program "
				     "bug, not hardware (%s)."),
				   who, sp.t, pg, k->r->last_enqueued.v, sp.nb, sp.behind[0]->r->last_enqueued.v, cites);
		upper1(f);
		gd_finding_ev(f, "last_enqueued", k->r->last_enqueued.v, "", NAN);
		gd_finding_ev(f, "others_last_enqueued", sp.behind[0]->r->last_enqueued.v, "", NAN);
		gd_finding_ev(f, "collective", sp.t, "", NAN);
		lines_of(f, sp.ahead, 1, sp.behind, sp.nb);
		note_conflict(f, &R);
		fired++;
	}
	fired += op_mismatch(rc, out, s, &R);
	return end(rc, &R, &sp, fired);
}

size_t gd__job_reached(const struct gd_snapshot *s, uint64_t seq)
{
	struct ranks R;
	struct split sp;
	size_t n = 0;
	const char *op = NULL;

	/* ranks that ran different ops at that work: job.collective_mismatch's */
	GD_VEC_EACH(s->job_log, const struct gd_job_log, r)
		if (is(r, "collective_timeout") && r->seq.ok && r->seq.v == seq) {
			if (op && strcmp(op, r->what) != 0)
				return 0;
			op = r->what;
		}
	ranks_build(s, &R);
	sp.behind = gd_xcalloc(R.n + 1, sizeof *sp.behind);
	sp.ahead = gd_xcalloc(R.n + 1, sizeof *sp.ahead);
	for (size_t i = 0; i < R.n && !n; i++)
		if (first_of_group(&R, i) && !split_group(&R, R.v[i].pg, &sp) && sp.t == (double)seq && !sp.nb &&
		    sp.na >= 2)
			n = sp.na;
	free(sp.behind);
	free(sp.ahead);
	ranks_free(&R);
	return n;
}

size_t gd__job_frozen(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_snapshot *s, bool died)
{
	struct ranks R;
	struct rk **all;
	char cites[320] = "";
	size_t n = 0;
	struct gd_finding *f;

	ranks_build(s, &R);
	if (!R.frozen) {
		ranks_free(&R);
		return 0;
	}
	all = gd_xcalloc(R.n, sizeof *all);
	for (size_t i = 0; i < R.n; i++)
		if (!R.v[i].clash) {
			all[n++] = &R.v[i];
			cite(cites, sizeof cites, &R.v[i]);
		}
	f = gd_finding_add(rc, out, died ? GD_SEV_CRITICAL : GD_SEV_WARNING, "%s", n > 1 ? "every rank" : "the job");
	gd_finding_summary(f,
			   P_("The %zu rank seen never enqueued an NCCL collective (last enqueued work -1): the process "
			      "froze before the first one, on a stalled filesystem or a compile on one rank, not on the "
			      "network (%s).",
			      "The %zu ranks seen never enqueued an NCCL collective (last enqueued work -1 on every one): "
			      "the processes froze before the first one, on a stalled filesystem or a compile on one rank, "
			      "not on the network (%s).",
			      n),
			   n, cites);
	gd_finding_remedy(f, "%s",
			  _("Look at what the ranks did before their first collective: data or checkpoint loading from a "
			    "shared filesystem (io.* findings, D-state threads), a torch.compile or JIT on one rank, a rank "
			    "that crashed at start-up; not the network."));
	gd_finding_ev(f, "ranks_seen", (double)n, "", NAN);
	lines_of(f, all, n, NULL, 0);
	note_conflict(f, &R);
	free(all);
	ranks_free(&R);
	return 1;
}
