/*
 * job_files.c - `gpudoctor fleet --job ID FILE...`: the ranks of one job
 * from the nodes' recordings (record's JSONL or gzip, one or more files per
 * node), for sites without Prometheus (job.h).
 *
 * Each file is read one snapshot at a time; with the snapshot before it,
 * every rank of the job in its job_ranks[] (status ok, the job id asked)
 * gives one sample: the NCCL share of its main and NCCL threads' samples
 * and its main thread's CPU and state (job_threads[], as serve exports
 * them), its GPU's SM activity (GPM, else utilisation) and whether it is
 * lost.  The rules run over each pair of snapshots, as serve runs them, and
 * the findings any pair gave are the node's own findings.  The samples are
 * then put on the steps of --range back from the newest snapshot of all
 * files (averaged within a step) and judged as Prometheus' would be.
 */
#include "fleet/job.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "model/recording.h"
#include "model/snapshot.h"
#include "model/snapshot_delta.h"
#include "model/snapshot_json.h"
#include "rules/rule.h"
#include "rules/rule_job_threads.h"

struct sample {
	size_t rank;              /* index into the ranks vec */
	double t, wait, cpu, sm;
	char state;
	bool lost;
};

struct up {
	char node[128];
	double t;
};

/* The GPU's SM activity (GPM mean, else utilisation), and whether it is lost. */
static double sm_of(const struct gd_snapshot *b, const char *gpus, bool *lost)
{
	char *end;
	unsigned long idx = strtoul(gpus, &end, 10);
	double sum = 0;
	size_t n = 0;

	*lost = false;
	if (end == gpus)
		return NAN;
	GD_VEC_EACH(b->gpu_activity, const struct gd_gpu_activity, r)
		if (r->gpu.ok && r->gpu.v == idx && strcmp(r->source, "gpm") == 0 && r->sm_active_pct.ok &&
		    isfinite(r->sm_active_pct.v)) {
			sum += r->sm_active_pct.v;
			n++;
		}
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		if (!g->index.ok || g->index.v != idx)
			continue;
		*lost = g->lost.ok && g->lost.v;
		if (!n && g->util_gpu_pct.ok)
			return (double)g->util_gpu_pct.v / 100;
	}
	return n ? sum / (double)n / 100 : NAN;
}

static void seen_job(struct gd_vec *seen, const char *job)
{
	for (size_t i = 0; i < seen->n; i++)
		if (strcmp((const char *)seen->items + 128 * i, job) == 0)
			return;
	gd_strlcpy(gd_vec_push(seen, 128), job, 128);
}

static void add_finding(struct gd_vec *v, const char *node, const struct gd_finding *f)
{
	GD_VEC_EACH(*v, const struct gd_jv_finding, x)
		if (strcmp(x->node, node) == 0 && strcmp(x->rule, f->id) == 0 && strcmp(x->subject, f->subject) == 0)
			return;
	{
		struct gd_jv_finding *x = gd_vec_push(v, sizeof *x);

		gd_strlcpy(x->node, node, sizeof x->node);
		gd_strlcpy(x->rule, f->id, sizeof x->rule);
		gd_strlcpy(x->subject, f->subject, sizeof x->subject);
		x->critical = f->severity == GD_SEV_CRITICAL;
	}
}

/* The samples of one pair of snapshots (a before b) of node. */
static void pair(const struct gd_snapshot *a, const struct gd_snapshot *b, double t, const char *node, const char *job,
		 struct gd_vec *ranks, struct gd_vec *samples, struct gd_vec *seen)
{
	double dt = b->host.uptime_s.ok && a->host.uptime_s.ok ? b->host.uptime_s.v - a->host.uptime_s.v : NAN;

	GD_VEC_EACH(b->job_ranks, const struct gd_job_rank, r) {
		struct gd_jv_rank *x = NULL;
		struct sample *s;
		struct gd_jt_use u;
		double nccl, total;

		if (!r->pid.ok || strcmp(r->status, "ok") != 0 || !r->rank.ok)
			continue;
		seen_job(seen, r->job);
		if (strcmp(r->job, job) != 0)
			continue;
		for (size_t i = 0; i < ranks->n && !x; i++) {
			struct gd_jv_rank *y = GD_VEC_AT(*ranks, struct gd_jv_rank, i);

			if (y->pid == r->pid.v && strcmp(y->node, node) == 0)
				x = y;
		}
		if (!x) {
			x = gd_vec_push(ranks, sizeof *x);
			gd_strlcpy(x->node, node, sizeof x->node);
			x->pid = r->pid.v;
		}
		x->rank = (long)r->rank.v;
		x->local_rank = r->local_rank.ok ? (long)r->local_rank.v : -1;
		x->node_rank = r->node_rank.ok ? (long)r->node_rank.v : -1;
		x->world_size = r->world_size.ok ? (long)r->world_size.v : -1;
		gd_strlcpy(x->gpu, r->gpus, sizeof x->gpu);
		s = gd_vec_push(samples, sizeof *s);
		s->rank = (size_t)(x - (struct gd_jv_rank *)ranks->items);
		s->t = t;
		s->wait = s->cpu = NAN;
		if (gd_jt_comm_samples(a, b, r->pid.v, &nccl, &total) && total > 0)
			s->wait = nccl / total;
		if (isfinite(dt) && dt > 0 && gd_jt_main(a, b, dt, r->pid.v, &u)) {
			if (isfinite(u.core_pct))
				s->cpu = u.core_pct / 100;
			s->state = u.state[0] == 't' ? 'T' : u.state[0];
		}
		s->sm = sm_of(b, r->gpus, &s->lost);
	}
}

static int one_file(const char *path, const char *job, const struct gd_thresholds *th, struct gd_vec *ranks,
		    struct gd_vec *samples, struct gd_vec *ups, struct gd_vec *findings, struct gd_vec *seen,
		    struct gd_vec *warnings, struct gd_err *err)
{
	int cut = 0;
	FILE *fp = strcmp(path, "-") == 0 ? stdin : gd_rec_fopen_read(path, &cut, NULL, err);
	struct gd_snapshot ring[2];
	struct gd_fleet_rec rec = { .fp = fp, .path = path };
	char node[128] = "";
	size_t have = 0, good = 0;
	int rv;

	if (!fp)
		return err->code;
	gd_snapshot_init(&ring[0]);
	gd_snapshot_init(&ring[1]);
	while ((rv = gd_fleet_rec_next(&rec, &ring[have % 2], err)) > 0) {
		struct gd_snapshot *s = &ring[have % 2], *prev = &ring[(have + 1) % 2];
		double t;

		good++;
		if (!node[0]) {
			const char *b = strrchr(path, '/');

			gd_strlcpy(node, s->host.hostname[0] ? s->host.hostname : b ? b + 1 : path, sizeof node);
		}
		t = s->host.wall_time_s.ok ? s->host.wall_time_s.v : NAN;
		have++;
		if (!isfinite(t))
			continue;
		{
			struct up *u = gd_vec_push(ups, sizeof *u);

			gd_strlcpy(u->node, node, sizeof u->node);
			u->t = t;
		}
		if (have >= 2) {
			const struct gd_snapshot *order[2] = { prev, s };
			struct gd_window w = { order, 2 };
			struct gd_findings fs;

			pair(prev, s, t, node, job, ranks, samples, seen);
			gd_findings_init(&fs);
			gd_engine_run(&w, th, &fs);
			GD_VEC_EACH(fs.items, const struct gd_finding, f)
				if (f->severity != GD_SEV_INFO)
					add_finding(findings, node, f);
			gd_findings_release(&fs);
		}
	}
	gd_fleet_rec_release(&rec);
	gd_snapshot_release(&ring[0]);
	gd_snapshot_release(&ring[1]);
	if (fp != stdin)
		fclose(fp);
	if (rv < 0)
		return rv;
	if (!good)
		return gd_err_set(err, -EINVAL, _("%s: no snapshot in it"), path);
	if (cut || rec.bad) {
		struct gd_prom_warning *wn = gd_vec_push(warnings, sizeof *wn);
		char msg[300];

		if (cut)
			snprintf(msg, sizeof msg, _("%s: the gzip data ends early or is damaged: what came before is loaded"), path);
		else
			snprintf(msg, sizeof msg, _("%zu lines are not snapshots, first %s"), rec.bad, rec.first_bad);
		wn->query = gd_xstrdup(path);
		wn->text = gd_xstrdup(msg);
	}
	return 0;
}

int gd_fleet_job_files(char *const *paths, size_t n, const struct gd_fleet_opts *o, const char *job,
		       const struct gd_thresholds *th, struct gd_fleet_job *j, struct gd_vec *warnings, struct gd_err *err)
{
	struct gd_vec ranks = { 0 }, samples = { 0 }, ups = { 0 };
	double end = -INFINITY, step;
	size_t *cnt = NULL;
	int rc = 0;

	memset(j, 0, sizeof *j);
	gd_strlcpy(j->job, job, sizeof j->job);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = one_file(paths[i], job, th, &ranks, &samples, &ups, &j->findings, &j->seen_jobs, warnings, err);
	if (rc < 0)
		goto out;
	GD_VEC_EACH(ups, const struct up, u)
		end = fmax(end, u->t);
	if (!ranks.n || !isfinite(end)) {
		gd_fleet_job_seen_sort(j);
		rc = -ENOENT;
		goto out;
	}
	gd_vec_release(&j->seen_jobs);
	step = o->step_s > 0 ? o->step_s : fmax(1, ceil(o->range_s / 60));
	j->step_s = step;
	j->range_s = o->range_s;
	j->at = end;
	gd_fleet_job_alloc(j, ranks.n, (size_t)floor(o->range_s / step) + 1);
	j->t0 = end - (double)(j->nsteps - 1) * step;
	memcpy(j->ranks, ranks.items, ranks.n * sizeof *j->ranks);
	cnt = gd_xcalloc(ranks.n * j->nsteps * 3 + 1, sizeof *cnt);
	for (size_t i = 0; i < ranks.n; i++)
		j->ranks[i].p = &j->pts[i * j->nsteps];
	GD_VEC_EACH(samples, const struct sample, s) {
		double k = round((s->t - j->t0) / step);
		struct gd_jv_point *p;
		size_t *c;
		const double v[3] = { s->wait, s->cpu, s->sm };
		double *dst[3];

		if (k < 0 || k >= (double)j->nsteps)
			continue;
		p = &j->ranks[s->rank].p[(size_t)k];
		c = &cnt[(s->rank * j->nsteps + (size_t)k) * 3];
		dst[0] = &p->wait;
		dst[1] = &p->cpu;
		dst[2] = &p->sm;
		p->seen = true;
		p->gpu_lost = p->gpu_lost || s->lost;
		if (s->state)
			p->state = s->state;
		for (int f = 0; f < 3; f++) {
			if (!isfinite(v[f]))
				continue;
			/* a running mean of the samples in this step */
			*dst[f] = c[f] ? (*dst[f] * (double)c[f] + v[f]) / (double)(c[f] + 1) : v[f];
			c[f]++;
		}
	}
	/* a node is up at the steps it has a snapshot in */
	GD_VEC_EACH(ups, const struct up, u) {
		double k = round((u->t - j->t0) / step);

		if (k < 0 || k >= (double)j->nsteps)
			continue;
		for (size_t i = 0; i < ranks.n; i++)
			if (strcmp(j->ranks[i].node, u->node) == 0)
				j->ranks[i].p[(size_t)k].node_up = true;
	}
	gd_fleet_job_judge(j);
out:
	free(cnt);
	gd_vec_release(&ranks);
	gd_vec_release(&samples);
	gd_vec_release(&ups);
	return rc;
}
