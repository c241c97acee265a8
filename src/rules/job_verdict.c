/*
 * job_verdict.c - which rank(s) hold a multi-node job back (job_verdict.h).
 */
#include "rules/job_verdict.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/xalloc.h"

static const struct gd_jv_rule jv_rules[] = {
	{ "job.slow_rank",
	  N_("Across the nodes of a job, most ranks wait in collectives while one rank (or one node's ranks) does not: it sets the job's pace."),
	  N_("Fix what the rank's node's own findings name (thermal, loader, CPU, link), or replace the node; the other ranks' waiting is the proof."),
	  false },
	{ "job.rank_stuck",
	  N_("Across the nodes of a job, the other ranks wait while one rank's process is gone, stopped, in D state, its GPU lost, or making no progress."),
	  N_("The job hangs on this rank: look at its node (host.hung_tasks, gpu.lost, the rank's own log), then restart the job without that node."),
	  true },
};

const struct gd_jv_rule *gd_jv_rule_find(const char *id)
{
	for (size_t i = 0; i < sizeof jv_rules / sizeof jv_rules[0]; i++)
		if (strcmp(jv_rules[i].id, id) == 0)
			return &jv_rules[i];
	return NULL;
}

void gd_jv_params_default(struct gd_jv_params *p)
{
	p->wait_hi = 0.5;
	p->wait_lo = 0.2;
	p->others_share = 2.0 / 3.0;
	p->sustained = 0.5;
	p->idle = 0.02;
	p->wait_weak = 0.1;
	p->weak_ratio = 0.25;
	p->link_rtt_s = 0.01;
	p->link_ratio = 4;
	p->min_steps = 2;
}

void gd_jv_release(struct gd_jv *v)
{
	gd_vec_release(&v->culprits);
	gd_vec_release(&v->conflicts);
	gd_vec_release(&v->causes);
	free(v->rows);
	memset(v, 0, sizeof *v);
}

/* The rank's node as an index into names (added when new). */
static size_t node_index(const char **names, size_t *n, const char *node)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(names[i], node) == 0)
			return i;
	names[*n] = node;
	return (*n)++;
}

/* Why rank r is stuck at point p (and before it, was seen), or NULL. */
static const char *stuck_why(const struct gd_jv_point *p, bool was_seen, const struct gd_jv_params *par)
{
	if (p->seen && p->gpu_lost)
		return GD_JV_GPU_LOST;
	if (p->seen && (p->state == 'T' || p->state == 't'))
		return GD_JV_STOPPED;
	if (p->seen && p->state == 'D')
		return GD_JV_DSTATE;
	if ((!p->seen && p->node_up && was_seen) || (p->seen && p->state == 'Z'))
		return GD_JV_GONE;
	if (p->seen && isfinite(p->cpu) && p->cpu < par->idle && isfinite(p->sm) && p->sm < par->idle &&
	    !(isfinite(p->wait) && p->wait >= par->wait_lo))
		return GD_JV_NO_PROGRESS;
	return NULL;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct rank_key {
	long rank;
	size_t i;
};

static int by_rank(const void *a, const void *b)
{
	const struct rank_key *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* Appends "a-b" or "a" to buf, comma-separated, "..." once full. */
static void add_range(char *buf, size_t size, long a, long b)
{
	size_t len = strlen(buf);
	char part[48];

	if (len && strcmp(buf + len - 3, "...") == 0)
		return;
	if (a == b)
		snprintf(part, sizeof part, "%s%ld", len ? ", " : "", a);
	else
		snprintf(part, sizeof part, "%s%ld-%ld", len ? ", " : "", a, b);
	if (len + strlen(part) + 6 >= size)
		snprintf(buf + len, size - len, "%s...", len ? ", " : "");
	else
		snprintf(buf + len, size - len, "%s", part);
}

/* The ranks (or node ranks) in [0, n) whose have[] is false, as ranges. */
static size_t missing_of(const bool *have, long n, char *buf, size_t size)
{
	size_t count = 0;

	buf[0] = '\0';
	for (long i = 0; i < n; i++) {
		long j = i;

		if (have[i])
			continue;
		while (j + 1 < n && !have[j + 1])
			j++;
		add_range(buf, size, i, j);
		count += (size_t)(j - i + 1);
		i = j;
	}
	return count;
}

#define MAX_WORLD (1L << 20)

static void unseen(const struct gd_jv_input *in, struct gd_jv *v)
{
	long ws = -1, nodes = 0, per_node = 0;
	bool *have;

	for (size_t i = 0; i < in->n; i++)
		if (in->ranks[i].world_size > ws)
			ws = in->ranks[i].world_size;
	v->world_size = ws;
	if (ws <= 0 || ws > MAX_WORLD)
		return;
	have = gd_xcalloc((size_t)ws, sizeof *have);
	for (size_t i = 0; i < in->n; i++)
		if (in->ranks[i].rank >= 0 && in->ranks[i].rank < ws)
			have[in->ranks[i].rank] = true;
	v->missing = missing_of(have, ws, v->missing_ranks, sizeof v->missing_ranks);
	v->seen_ranks = (size_t)ws - v->missing;
	/* node ranks: as many as the job's largest node holds ranks per node */
	for (size_t i = 0; i < in->n; i++) {
		long c = 0, nr = in->ranks[i].node_rank;

		if (nr < 0)
			continue;
		for (size_t j = 0; j < in->n; j++)
			c += in->ranks[j].node_rank == nr;
		if (c > per_node)
			per_node = c;
	}
	if (per_node > 0 && v->missing) {
		nodes = (ws + per_node - 1) / per_node;
		memset(have, 0, (size_t)ws * sizeof *have);
		for (size_t i = 0; i < in->n; i++)
			if (in->ranks[i].node_rank >= 0 && in->ranks[i].node_rank < nodes)
				have[in->ranks[i].node_rank] = true;
		missing_of(have, nodes, v->missing_nodes, sizeof v->missing_nodes);
	}
	free(have);
}

static void conflicts(const struct gd_jv_input *in, struct gd_jv *v)
{
	struct rank_key *k = gd_xreallocarray(NULL, in->n + 1, sizeof *k);
	size_t m = 0;

	for (size_t i = 0; i < in->n; i++)
		if (in->ranks[i].rank >= 0)
			k[m++] = (struct rank_key){ in->ranks[i].rank, i };
	qsort(k, m, sizeof *k, by_rank);
	for (size_t i = 0; i + 1 < m; i++) {
		const struct gd_jv_rank *a = &in->ranks[k[i].i], *b = &in->ranks[k[i + 1].i];
		struct gd_jv_conflict *c;

		if (k[i].rank != k[i + 1].rank || (a->pid == b->pid && strcmp(a->node, b->node) == 0))
			continue;
		c = gd_vec_push(&v->conflicts, sizeof *c);
		c->rank = k[i].rank;
		c->a = k[i].i;
		c->b = k[i + 1].i;
		v->rows[k[i].i].conflict = v->rows[k[i + 1].i].conflict = true;
	}
	free(k);
}

static double mean_of(const struct gd_jv_point *p, size_t n, size_t off)
{
	double sum = 0;
	size_t c = 0;

	for (size_t t = 0; t < n; t++) {
		double x;

		memcpy(&x, (const char *)&p[t] + off, sizeof x);
		if (isfinite(x)) {
			sum += x;
			c++;
		}
	}
	return c ? sum / (double)c : NAN;
}

/* The slow episodes of row r: runs of at least min_steps slow steps, and
 * their period when there are two or more at regular starts. */
static void episodes(const bool *slow, size_t n, const struct gd_jv_input *in, struct gd_jv_row *r)
{
	size_t starts[64], lens[64], ne = 0;

	for (size_t t = 0; t < n;) {
		size_t u = t;

		if (!slow[t]) {
			t++;
			continue;
		}
		while (u < n && slow[u])
			u++;
		if (u - t >= in->par.min_steps && ne < 64) {
			starts[ne] = t;
			lens[ne++] = u - t;
		}
		t = u;
	}
	r->episodes = ne;
	if (ne >= 2) {
		double lo = INFINITY, hi = 0, sum = 0, len = 0;

		for (size_t e = 1; e < ne; e++) {
			double gap = (double)(starts[e] - starts[e - 1]);

			lo = fmin(lo, gap);
			hi = fmax(hi, gap);
			sum += gap;
		}
		for (size_t e = 0; e < ne; e++)
			len += (double)lens[e];
		r->episode_s = len / (double)ne * in->step_s;
		if (hi <= 1.5 * lo)
			r->period_s = sum / (double)(ne - 1) * in->step_s;
	}
}

static bool has_culprit(const struct gd_jv *v, size_t i)
{
	GD_VEC_EACH(v->culprits, const size_t, c)
		if (*c == i)
			return true;
	return false;
}


struct wv {
	double w;
	size_t i;
};

static int by_w(const void *a, const void *b)
{
	const struct wv *x = a, *y = b;

	return (x->w > y->w) - (x->w < y->w);
}

static int by_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* The k-th (from 0) of the sorted s[0..m) that is not at one of the sorted
 * positions ex[0..ne). */
static double kth_left(const struct wv *s, const size_t *ex, size_t ne, size_t k)
{
	size_t idx = k;

	for (size_t e = 0; e < ne; e++)
		if (ex[e] <= idx)
			idx++;
	return s[idx].w;
}

/* med[i * T + t]: the median W of the others of rank i at step t (the ranks
 * of the other nodes; the other ranks for a one-node job), NAN with none. */
static void others_medians(const struct gd_jv_input *in, const size_t *node, size_t nn, double *med)
{
	size_t n = in->n, T = in->nsteps;
	struct wv *s = gd_xreallocarray(NULL, n + 1, sizeof *s);
	size_t *pos = gd_xreallocarray(NULL, n + 1, sizeof *pos), *ex = gd_xreallocarray(NULL, n + 1, sizeof *ex);
	/* the ranks in the order of their nodes, and where each node's begin */
	size_t *by_node = gd_xreallocarray(NULL, n + 1, sizeof *by_node), *first = gd_xcalloc(nn + 2, sizeof *first);

	for (size_t i = 0; i < n; i++)
		first[node[i] + 1]++;
	for (size_t x = 0; x < nn; x++)
		first[x + 1] += first[x];
	{
		size_t *fill = gd_xreallocarray(NULL, nn + 1, sizeof *fill);

		memcpy(fill, first, nn * sizeof *fill);
		for (size_t i = 0; i < n; i++)
			by_node[fill[node[i]]++] = i;
		free(fill);
	}
	for (size_t t = 0; t < T; t++) {
		size_t m = 0;

		for (size_t i = 0; i < n; i++) {
			pos[i] = (size_t)-1;
			if (isfinite(in->ranks[i].p[t].wait))
				s[m++] = (struct wv){ in->ranks[i].p[t].wait, i };
		}
		qsort(s, m, sizeof *s, by_w);
		for (size_t k = 0; k < m; k++)
			pos[s[k].i] = k;
		for (size_t i = 0; i < n; i++) {
			size_t ne = 0, left;

			if (nn > 1) {
				for (size_t k = first[node[i]]; k < first[node[i] + 1]; k++)
					if (pos[by_node[k]] != (size_t)-1)
						ex[ne++] = pos[by_node[k]];
			} else if (pos[i] != (size_t)-1) {
				ex[ne++] = pos[i];
			}
			qsort(ex, ne, sizeof *ex, by_size);
			left = m - ne;
			if (!left)
				med[i * T + t] = NAN;
			else if (left % 2)
				med[i * T + t] = kth_left(s, ex, ne, left / 2);
			else
				med[i * T + t] = (kth_left(s, ex, ne, left / 2 - 1) + kth_left(s, ex, ne, left / 2)) / 2;
		}
	}
	free(s);
	free(pos);
	free(ex);
	free(by_node);
	free(first);
}

/* The findings that slow a node's own ranks down: its GPU's clocks, its
 * PCIe link, its CPUs' quota or heat, its input pipeline, its memory.  Not
 * job.waiting_for_peers (the others' waiting), not net.* (a link slows both
 * its ends alike), not what a waiting rank shows too (gpu.idle_while_job_runs,
 * job.host_bound: a rank that waits leaves its GPU idle). */
static const char *const slowing[] = {
	"gpu.thermal_throttle", "gpu.power_brake", "gpu.hw_slowdown", "gpu.power_capped", "gpu.clocks_held_low",
	"gpu.straggler", "gpu.pcie_link_degraded", "gpu.pcie_replays", "cpu.input_bound", "cpu.cgroup_throttled",
	"host.cpu_thermal_throttle", "mem.swapping",
};

static bool is_slowing(const char *rule)
{
	for (size_t k = 0; k < sizeof slowing / sizeof slowing[0]; k++)
		if (strcmp(rule, slowing[k]) == 0)
			return true;
	return false;
}

/* own[x]: node x has a finding that slows it (slowing[]) and that at most a
 * third of the job's nodes have (a cause every node shares does not single
 * one out). */
static void own_causes(const struct gd_jv_input *in, const char **names, size_t nn, bool *own)
{
	for (size_t f = 0; f < in->nfindings; f++) {
		const struct gd_jv_finding *x = &in->findings[f];
		size_t with = 0, at = nn;

		if (!is_slowing(x->rule))
			continue;
		for (size_t k = 0; k < nn; k++) {
			bool has = false;

			for (size_t g = 0; g < in->nfindings && !has; g++)
				has = strcmp(in->findings[g].node, names[k]) == 0 && strcmp(in->findings[g].rule, x->rule) == 0;
			with += has;
			if (strcmp(names[k], x->node) == 0)
				at = k;
		}
		if (at < nn && (double)with <= fmax(1, (double)nn / 3))
			own[at] = true;
	}
}

/* The node every slow link touches (at least two slow links, one such
 * node), as an index into names, or nn; *slow and *median say what. */
static size_t slow_link_node(const struct gd_jv_input *in, const char **names, size_t nn, size_t *slow, double *median,
			     double *worst)
{
	double *r = gd_xreallocarray(NULL, in->nlinks + 1, sizeof *r);
	size_t m = 0, found = nn, hits = 0;

	*slow = 0;
	*median = NAN;
	*worst = 0;
	for (size_t l = 0; l < in->nlinks; l++)
		if (isfinite(in->links[l].rtt_s) && in->links[l].rtt_s > 0)
			r[m++] = in->links[l].rtt_s;
	if (m) {
		qsort(r, m, sizeof *r, by_double);
		*median = m % 2 ? r[m / 2] : (r[m / 2 - 1] + r[m / 2]) / 2;
	}
	free(r);
	if (m < 3)
		return nn;
	for (size_t k = 0; k < nn; k++) {
		size_t touch = 0, all = 0;
		double w = 0;

		for (size_t l = 0; l < in->nlinks; l++) {
			const struct gd_jv_link *x = &in->links[l];

			if (!(isfinite(x->rtt_s) && x->rtt_s >= in->par.link_rtt_s && x->rtt_s >= in->par.link_ratio * *median))
				continue;
			all++;
			if (strcmp(x->node, names[k]) == 0 || strcmp(x->peer_node, names[k]) == 0) {
				touch++;
				w = fmax(w, x->rtt_s);
			}
		}
		*slow = all;
		if (all >= 2 && touch == all) {
			found = k;
			hits++;
			*worst = w;
		}
	}
	return hits == 1 ? found : nn;
}

/* Whether row names a slow rank: slow in at least half (sustained) of the
 * steps it was judged, in two episodes or more, or slow now.  Slow mostly
 * on the weaker evidence, it must also have been slow min_steps + 1 judged
 * steps in a row (longest): a rank held back stays held, a healthy rank on
 * a crowded host is caught asleep at scattered steps. */
static bool is_slow(const struct gd_jv_row *row, bool now, size_t longest, const struct gd_jv_params *par)
{
	if (2 * row->weak_steps > row->slow_steps && longest < par->min_steps + 1)
		return now;
	return (row->slow_steps >= par->min_steps && (double)row->slow_steps >= par->sustained * (double)row->judged) ||
	       row->episodes >= 2 || now;
}

void gd_jv_judge(const struct gd_jv_input *in, struct gd_jv *v)
{
	const struct gd_jv_params *par = &in->par;
	size_t n = in->n, T = in->nsteps, nn = 0, wait_steps = 0, data_steps = 0;
	const char **names = gd_xreallocarray(NULL, n + 1, sizeof *names);
	size_t *node = gd_xreallocarray(NULL, n + 1, sizeof *node);
	/* per step and node: ranks with a W sample, and those waiting */
	size_t *known = NULL, *waiting = NULL, *trace = NULL;
	bool *slow = gd_xcalloc(T + 1, sizeof *slow), *judged = gd_xcalloc(T + 1, sizeof *judged);
	bool *stuck_mask = gd_xcalloc((n + 1) * (T + 1), sizeof *stuck_mask), *cul_steps = gd_xcalloc(T + 1, sizeof *cul_steps);
	bool *slow_mask = gd_xcalloc((n + 1) * (T + 1), sizeof *slow_mask);
	bool *ongoing = gd_xcalloc(n + 1, sizeof *ongoing), *own = NULL;
	size_t *longest = gd_xcalloc(n + 1, sizeof *longest);
	double *med = gd_xreallocarray(NULL, (n + 1) * (T + 1), sizeof *med);
	size_t nslow = 0, nstuck = 0, link_node;
	double worst = 0;

	memset(v, 0, sizeof *v);
	v->world_size = -1;
	v->n = n;
	v->others_wait = NAN;
	v->rows = gd_xcalloc(n + 1, sizeof *v->rows);
	v->judged_steps = 0;
	for (size_t i = 0; i < n; i++)
		node[i] = node_index(names, &nn, in->ranks[i].node);
	known = gd_xcalloc((nn + 1) * (T + 1), sizeof *known);
	waiting = gd_xcalloc((nn + 1) * (T + 1), sizeof *waiting);
	trace = gd_xcalloc((nn + 1) * (T + 1), sizeof *trace);
	for (size_t t = 0; t < T; t++) {
		size_t k = 0, w = 0;

		for (size_t i = 0; i < n; i++) {
			const struct gd_jv_point *p = &in->ranks[i].p[t];

			if (!isfinite(p->wait))
				continue;
			known[node[i] * T + t]++;
			trace[node[i] * T + t] += p->wait >= par->wait_weak / 2;
			k++;
			if (p->wait >= par->wait_hi) {
				waiting[node[i] * T + t]++;
				w++;
			}
		}
		if (k >= 2) {
			data_steps++;
			if ((double)w >= par->others_share * (double)k)
				wait_steps++;
		}
	}
	conflicts(in, v);
	unseen(in, v);
	others_medians(in, node, nn, med);
	own = gd_xcalloc(nn + 1, sizeof *own);
	own_causes(in, names, nn, own);

	/* per rank: its slow and stuck steps */
	for (size_t i = 0; i < n; i++) {
		const struct gd_jv_rank *r = &in->ranks[i];
		struct gd_jv_row *row = &v->rows[i];
		bool was_seen = false;
		size_t run = 0, strong_run = 0, slow_run = 0, last_seen = 0;
		bool *strong = gd_xcalloc(T + 1, sizeof *strong), *cand = gd_xcalloc(T + 1, sizeof *cand);

		/* a process is gone only past its last sample: a rank missing from
		 * one scrape and back at the next is not gone (a scrape that
		 * missed it, a cycle that could not read it) */
		for (size_t t = 0; t < T; t++)
			if (r->p[t].seen)
				last_seen = t + 1;

		row->wait = mean_of(r->p, T, offsetof(struct gd_jv_point, wait));
		row->sm = mean_of(r->p, T, offsetof(struct gd_jv_point, sm));
		row->cpu = mean_of(r->p, T, offsetof(struct gd_jv_point, cpu));
		for (size_t t = 0; t < T; t++) {
			const struct gd_jv_point *p = &r->p[t];
			size_t ok = 0, wt = 0, tr = 0;
			double m = med[i * T + t];
			const char *why;

			slow[t] = judged[t] = false;
			if (p->seen && p->state)
				row->state = p->state;
			if (!p->seen && !p->node_up)
				continue;  /* nothing known of it here */
			/* the others: the ranks of the other nodes, or of this one when it is the only node */
			for (size_t x = 0; x < nn; x++) {
				if (x == node[i] && nn > 1)
					continue;
				ok += known[x * T + t];
				wt += waiting[x * T + t];
				tr += trace[x * T + t];
			}
			if (nn == 1 && isfinite(p->wait)) {
				ok--;
				wt -= p->wait >= par->wait_hi;
				tr -= p->wait >= par->wait_weak / 2;
			}
			if (!ok)
				goto next;
			judged[t] = true;
			row->judged++;
			strong[t] = (double)wt >= par->others_share * (double)ok || (isfinite(m) && m >= par->wait_hi);
			/* the others wait less: r must not wait at all (judged by its runs below) */
			cand[t] = !strong[t] && isfinite(m) && m >= par->wait_weak &&
				  (double)tr >= par->others_share * (double)ok && isfinite(p->wait) &&
				  p->wait < par->wait_lo && p->wait <= par->weak_ratio * m && p->seen;
			if (!strong[t])
				goto next;
			why = strong[t] ? stuck_why(p, was_seen && t >= last_seen, par) : NULL;
			if (why) {
				stuck_mask[i * T + t] = true;
				row->stuck_steps++;
				row->stuck_why = why;
			} else if (isfinite(p->wait) && p->wait < par->wait_lo) {
				slow[t] = slow_mask[i * T + t] = true;
				row->slow_steps++;
			}
next:
			if (p->seen)
				was_seen = true;
			if (!p->seen && p->node_up && was_seen && t >= last_seen)
				row->gone = true;
		}
		/* the weaker evidence: a run of min_steps + 1 judged steps or more
		 * where r does not wait while the others wait a little, and
		 * evidence that it is held elsewhere: its main thread asleep
		 * outside NCCL at half of them or more (min_steps + 1 at
		 * least), or its node's own
		 * slowing finding (a healthy rank on a crowded host is caught
		 * asleep at scattered steps, a rank held back stays held) */
		for (size_t t = 0; t < T;) {
			size_t u = t, len = 0, asleep = 0;

			if (!cand[t]) {
				t++;
				continue;
			}
			for (; u < T && (cand[u] || !judged[u]); u++)
				if (cand[u]) {
					len++;
					asleep += r->p[u].state == 'S';
				}
			if (len >= par->min_steps + 1 && ((asleep >= par->min_steps + 1 && 2 * asleep >= len) || own[node[i]]))
				for (size_t k = t; k < u; k++)
					if (cand[k]) {
						slow[k] = slow_mask[i * T + k] = true;
						row->slow_steps++;
						row->weak_steps++;
					}
			t = u;
		}
		for (size_t t = 0; t < T; t++) {
			if (!judged[t])
				continue;
			slow_run = slow_mask[i * T + t] ? slow_run + 1 : 0;
			if (slow_run > longest[i])
				longest[i] = slow_run;
		}
		free(cand);
		/* stuck: the last min_steps judged steps */
		for (size_t t = T; t-- > 0;) {
			if (!judged[t])
				continue;
			if (!stuck_mask[i * T + t])
				break;
			run++;
		}
		if (run < par->min_steps || !row->stuck_steps)
			row->stuck_why = NULL;
		/* slow now: the last min_steps + 1 judged steps, the others waiting for it at each */
		for (size_t t = T; t-- > 0;) {
			if (!judged[t])
				continue;
			if (!(slow_mask[i * T + t] && strong[t] && isfinite(med[i * T + t]) && med[i * T + t] >= par->wait_hi))
				break;
			strong_run++;
		}
		ongoing[i] = strong_run >= par->min_steps + 1;
		episodes(slow, T, in, row);
		free(strong);
	}

	/* the culprits: stuck first; slow only when few */
	for (size_t i = 0; i < n; i++)
		nstuck += v->rows[i].stuck_why != NULL;
	for (size_t i = 0; i < n; i++) {
		const struct gd_jv_row *row = &v->rows[i];

		nslow += !row->stuck_why && is_slow(row, ongoing[i], longest[i], par);
	}
	if (v->conflicts.n) {
		v->kind = GD_JV_CONFLICT;
	} else if (nstuck) {
		v->kind = GD_JV_STUCK;
		v->rule = "job.rank_stuck";
		v->critical = true;
		for (size_t i = 0; i < n; i++)
			if (v->rows[i].stuck_why)
				*(size_t *)gd_vec_push(&v->culprits, sizeof(size_t)) = i;
	} else if (nslow && (double)nslow <= fmax(1, (double)n / 3)) {
		v->kind = GD_JV_SLOW;
		v->rule = "job.slow_rank";
		for (size_t i = 0; i < n; i++) {
			if (is_slow(&v->rows[i], ongoing[i], longest[i], par))
				*(size_t *)gd_vec_push(&v->culprits, sizeof(size_t)) = i;
		}
	} else if ((link_node = slow_link_node(in, names, nn, &v->slow_links, &v->median_link_rtt_s, &worst)) < nn) {
		v->kind = GD_JV_SLOW;
		v->rule = "job.slow_rank";
		v->slow_link = true;
		for (size_t i = 0; i < n; i++)
			if (node[i] == link_node) {
				v->rows[i].link_rtt_s = worst;
				*(size_t *)gd_vec_push(&v->culprits, sizeof(size_t)) = i;
			}
	} else if (data_steps >= par->min_steps && (double)wait_steps >= par->sustained * (double)data_steps) {
		v->kind = GD_JV_COLLECTIVE;
	} else {
		v->kind = data_steps ? GD_JV_HEALTHY : GD_JV_NO_DATA;
	}
	v->waiting_share = data_steps ? (double)wait_steps / (double)data_steps : NAN;
	for (size_t t = 0; t < T; t++)
		judged[t] = false;

	/* the proof: the others' waiting over the culprits' slow or stuck steps */
	if (v->culprits.n) {
		double *m = gd_xreallocarray(NULL, n + 1, sizeof *m);
		size_t nm = 0;
		const char *first = in->ranks[*GD_VEC_AT(v->culprits, size_t, 0)].node;
		size_t on_node = 0, culprits_there = 0;

		GD_VEC_EACH(v->culprits, const size_t, c) {
			const struct gd_jv_rank *r = &in->ranks[*c];

			v->rows[*c].culprit = true;
			culprits_there += strcmp(r->node, first) == 0;
			for (size_t t = 0; t < T; t++)
				if (v->slow_link || (v->kind == GD_JV_STUCK ? stuck_mask[*c * T + t] : slow_mask[*c * T + t]))
					cul_steps[t] = true;
		}
		for (size_t i = 0; i < n; i++)
			on_node += strcmp(in->ranks[i].node, first) == 0;
		v->whole_node = nn > 1 && on_node > 1 && culprits_there == v->culprits.n && on_node == v->culprits.n;
		for (size_t i = 0; i < n; i++) {
			double sum = 0;
			size_t c = 0;

			if (has_culprit(v, i))
				continue;
			for (size_t t = 0; t < T; t++)
				if (cul_steps[t] && isfinite(in->ranks[i].p[t].wait)) {
					sum += in->ranks[i].p[t].wait;
					c++;
				}
			if (c)
				m[nm++] = sum / (double)c;
		}
		if (nm) {
			qsort(m, nm, sizeof *m, by_double);
			v->others_wait = nm % 2 ? m[nm / 2] : (m[nm / 2 - 1] + m[nm / 2]) / 2;
		}
		free(m);
	}

	/* the causes: the culprits' nodes' own findings, or the network's */
	for (size_t f = 0; f < in->nfindings; f++) {
		const struct gd_jv_finding *x = &in->findings[f];
		bool take = false;

		if (v->kind == GD_JV_COLLECTIVE) {
			take = strncmp(x->rule, "net.", 4) == 0;
		} else if (v->culprits.n && strcmp(x->rule, "job.waiting_for_peers") != 0) {
			GD_VEC_EACH(v->culprits, const size_t, c)
				take = take || strcmp(in->ranks[*c].node, x->node) == 0;
		}
		if (take)
			*(struct gd_jv_finding *)gd_vec_push(&v->causes, sizeof *x) = *x;
	}
	v->judged_steps = data_steps;
	free(names);
	free(node);
	free(known);
	free(waiting);
	free(trace);
	free(slow);
	free(judged);
	free(stuck_mask);
	free(slow_mask);
	free(cul_steps);
	free(ongoing);
	free(longest);
	free(own);
	free(med);
}
