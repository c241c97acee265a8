/*
 * files.c - `gpudoctor fleet FILE...`: the fleet's tables from snapshot
 * files (`gpudoctor record -o $(hostname).jsonl`, or `snapshot` lines
 * appended over pdsh or Ansible), for sites without Prometheus.
 *
 * A file is plain JSON lines or gzip (record's default), by its first
 * bytes; gzip data that ends early or is damaged is read up to there, with
 * a warning.  One file is one node (named by its snapshots' host.hostname, else the
 * file's name).  Its lines are read one at a time into a ring of the last
 * RING snapshots; after each, the rules run over the ring as serve runs
 * them over its window, and serve's own counters (finding_counters.c: the
 * onsets and active time per (rule, severity, subject), and the stall time
 * with no finding) advance with the snapshot's clock (host.wall_time_s,
 * else host.uptime_s).  So a
 * file of any length is read in the memory of RING snapshots, and what is
 * kept across files is one entry per (rule, node, GPU) that fired, one GPU
 * count per node, and one average per GPU and outlier metric.
 *
 * Drain now: critical findings of each file's last window.  Could not see:
 * lines that are not snapshots (counted, the first one quoted) and gaps of
 * more than GAP_S between consecutive snapshots (the node was not recorded).
 */
#include "fleet/fleet.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "model/recording.h"
#include "model/snapshot_json.h"
#include "rules/episodes.h"
#include "rules/rule.h"
#include "serve/serve.h"

#define RING 3
#define GAP_S 30.0
#define MAX_GPUS 64

struct acc {
	double sum[GD_FLEET_NMETRICS];
	size_t n[GD_FLEET_NMETRICS];
	char uuid[96], model[96];
	bool seen;
};

/* The value of outlier metric k of g in the unit of its Prometheus series
 * (fleet.c's metrics[]), when g is loaded as that metric wants. */
static bool metric_of(const struct gd_gpu *g, size_t k, double *v)
{
	bool busy = g->util_gpu_pct.ok && g->util_gpu_pct.v >= 50;

	switch (k) {
	case 0:
		*v = (double)g->sm_clock_mhz.v * 1e6;
		return busy && g->sm_clock_mhz.ok;
	case 1:
		*v = g->temp_c.v;
		return busy && g->temp_c.ok;
	case 2:
		*v = g->power_w.v;
		return busy && g->power_w.ok;
	case 3:
		*v = (double)g->util_gpu_pct.v / 100;
		return g->util_gpu_pct.ok && g->nvml_procs.ok && g->nvml_procs.v > 0;
	default:
		*v = (double)g->pcie_width.v;
		return busy && g->pcie_width.ok;
	}
}

struct node {
	char name[128];
	struct gd_finding_tracks tracks;
	struct gd_stall_track stall[MAX_GPUS];
	struct gd_uncaused uncaused[MAX_GPUS];
	struct acc acc[MAX_GPUS];
	size_t ngpus;
	double gap_s;
	size_t bad_lines;
	char first_bad[160];
};

/* Advances the per-GPU stall state as serve's track_stalls does. */
static void stalls(struct node *nd, const struct gd_snapshot *s, const struct gd_thresholds *th)
{
	double t = s->host.uptime_s.ok ? s->host.uptime_s.v : NAN;

	GD_VEC_EACH(s->gpus, const struct gd_gpu, g) {
		struct gd_stall_track *st;

		if (!g->index.ok || g->index.v >= MAX_GPUS)
			continue;
		st = &nd->stall[g->index.v];
		if (gd_gpu_in_use(s, g, th))
			st->seen = true;
		if (gd_gpu_stall_state(s, g, th) == GD_EP_NONE)
			st->run = 0;
		else
			st->run++;
		st->last_s = t;
	}
}

static void accumulate(struct node *nd, const struct gd_snapshot *s)
{
	size_t n = 0;

	GD_VEC_EACH(s->gpus, const struct gd_gpu, g) {
		struct acc *a;
		double v;

		n++;
		if (!g->index.ok || g->index.v >= MAX_GPUS)
			continue;
		a = &nd->acc[g->index.v];
		if (!a->seen || (!a->uuid[0] && g->uuid[0])) {
			gd_strlcpy(a->uuid, g->uuid, sizeof a->uuid);
			gd_strlcpy(a->model, g->name, sizeof a->model);
		}
		a->seen = true;
		for (size_t k = 0; k < GD_FLEET_NMETRICS; k++)
			if (metric_of(g, k, &v)) {
				a->sum[k] += v;
				a->n[k]++;
			}
	}
	if (n > nd->ngpus)
		nd->ngpus = n;
}

static void add_entry(struct gd_vec *ents, const char *rule, const char *node, const char *gpu, double ons, double act)
{
	struct gd_fleet_entry *e = NULL;

	if (ons <= 0 && act <= 0)
		return;
	GD_VEC_EACH(*ents, struct gd_fleet_entry, x)
		if (strcmp(x->rule, rule) == 0 && strcmp(x->node, node) == 0 && strcmp(x->gpu, gpu) == 0)
			e = x;
	if (!e) {
		e = gd_vec_push(ents, sizeof *e);
		gd_strlcpy(e->rule, rule, sizeof e->rule);
		gd_strlcpy(e->node, node, sizeof e->node);
		gd_strlcpy(e->gpu, gpu, sizeof e->gpu);
	}
	e->ons += ons;
	e->act += act;
}

/* A recording's next snapshot (fleet.h).  A line that is not one is
 * counted, the first described, and the references of the line after it
 * cannot be resolved (the base is forgotten). */
int gd_fleet_rec_next(struct gd_fleet_rec *r, struct gd_snapshot *s, struct gd_err *err)
{
	ssize_t len;

	if (!r->base_set) {
		gd_delta_base_init(&r->base);
		r->base_set = true;
	}
	while ((len = gd_getline_max(&r->line, &r->cap, r->fp, GD_LINE_MAX)) >= 0 || len == -2) {
		json_error_t je;
		json_t *doc;
		struct gd_err e2;

		r->lineno++;
		if (len == -2)
			return gd_err_set(err, -EFBIG,
					  _("%s:%zu: a line longer than %d MiB, more than any snapshot takes: not a "
					    "gpudoctor recording"),
					  r->path, r->lineno, GD_LINE_MAX_MIB);
		if (strspn(r->line, " \t\r\n") == (size_t)len)
			continue;
		doc = json_loadb(r->line, (size_t)len, 0, &je);
		gd_snapshot_release(s);
		gd_snapshot_init(s);
		gd_err_clear(&e2);
		if (!doc)
			gd_delta_base_forget(&r->base);
		if (doc && gd_snapshot_from_json_after(doc, s, &r->base, NULL, &e2) == 0) {
			json_decref(doc);
			return 1;
		}
		if (!r->bad++)
			snprintf(r->first_bad, sizeof r->first_bad, _("line %zu: %.120s"), r->lineno, doc ? e2.msg : je.text);
		json_decref(doc);
	}
	return 0;
}

void gd_fleet_rec_release(struct gd_fleet_rec *r)
{
	free(r->line);
	r->line = NULL;
	if (r->base_set)
		gd_delta_base_release(&r->base);
	r->base_set = false;
}

/* Reads one node's file; its results go into ents, ng, vals[] and f. */
static int one_file(const char *path, const struct gd_thresholds *th,
		    struct gd_fleet *f, struct gd_vec *ents, struct gd_vec *ng, struct gd_vec *vals,
		    struct gd_vec *warnings, struct gd_err *err)
{
	int cut = 0;   /* the gzip data ends early or is damaged */
	FILE *fp = strcmp(path, "-") == 0 ? stdin : gd_rec_fopen_read(path, &cut, NULL, err);
	struct gd_snapshot ring[RING];
	const struct gd_snapshot *order[RING];
	struct node *nd = gd_xcalloc(1, sizeof *nd);
	struct gd_findings last;
	size_t count = 0, next = 0, good = 0;
	double prev_t = NAN, first_t = NAN;
	char gpu[16];
	struct gd_fleet_rec rec = { .fp = fp, .path = path };
	bool too_long;
	int rv;

	if (!fp) {
		free(nd);
		return err->code;
	}
	for (size_t i = 0; i < RING; i++)
		gd_snapshot_init(&ring[i]);
	gd_findings_init(&last);
	while ((rv = gd_fleet_rec_next(&rec, &ring[next], err)) > 0) {
		struct gd_snapshot *s = &ring[next];
		struct gd_window w;
		double t;

		if (!nd->name[0]) {
			const char *b = strrchr(path, '/');

			gd_strlcpy(nd->name, s->host.hostname[0] ? s->host.hostname : b ? b + 1 : path, sizeof nd->name);
		}
		/* the wall clock (what record writes); a fixture tree's uptime stands still */
		t = s->host.wall_time_s.ok ? s->host.wall_time_s.v : s->host.uptime_s.ok ? s->host.uptime_s.v : NAN;
		if (!isfinite(first_t))
			first_t = t;
		if (s->host.wall_time_s.ok && s->host.wall_time_s.v > f->at)
			f->at = s->host.wall_time_s.v;
		if (isfinite(t) && isfinite(prev_t) && t - prev_t > GAP_S)
			nd->gap_s += t - prev_t;
		prev_t = t;
		good++;
		next = (next + 1) % RING;
		if (count < RING)
			count++;
		for (size_t i = 0; i < count; i++)
			order[i] = &ring[(next + RING - count + i) % RING];
		w.snaps = order;
		w.n = count;
		stalls(nd, s, th);
		accumulate(nd, s);
		gd_findings_release(&last);
		gd_findings_init(&last);
		gd_engine_run(&w, th, &last);
		if (isfinite(t)) {
			gd_finding_tracks_update(&nd->tracks, &last, s, t);
			gd_uncaused_update(nd->uncaused, nd->stall, MAX_GPUS, &last, t);
		}
	}
	too_long = rv == -EFBIG;
	nd->bad_lines = rec.bad;
	memcpy(nd->first_bad, rec.first_bad, sizeof nd->first_bad);
	gd_fleet_rec_release(&rec);
	if (fp != stdin)
		fclose(fp);
	if (too_long)
		goto fail;
	if (!good) {
		if (nd->bad_lines)
			gd_err_set(err, -EINVAL, _("%s: no snapshot in it (%s)"), path, nd->first_bad);
		else
			gd_err_set(err, -EINVAL, _("%s: no snapshot in it"), path);
		goto fail;
	}
	/* the node's results */
	for (size_t i = 0; i < nd->tracks.n; i++) {
		const struct gd_finding_track *x = &nd->tracks.v[i];

		snprintf(gpu, sizeof gpu, "%llu", (unsigned long long)x->gpu);
		add_entry(ents, x->rule, nd->name, x->has_gpu ? gpu : "", (double)x->onsets, x->active_s);
	}
	for (size_t i = 0; i < MAX_GPUS; i++) {
		snprintf(gpu, sizeof gpu, "%zu", i);
		if (nd->stall[i].seen)
			add_entry(ents, GD_FLEET_NO_CAUSE, nd->name, gpu, (double)nd->uncaused[i].episodes,
				  nd->uncaused[i].seconds);
		for (size_t k = 0; nd->acc[i].seen && k < GD_FLEET_NMETRICS; k++) {
			struct gd_fleet_value *v;

			if (!nd->acc[i].n[k])
				continue;
			v = gd_vec_push(&vals[k], sizeof *v);
			gd_strlcpy(v->node, nd->name, sizeof v->node);
			gd_strlcpy(v->gpu, gpu, sizeof v->gpu);
			gd_strlcpy(v->uuid, nd->acc[i].uuid, sizeof v->uuid);
			gd_strlcpy(v->model, nd->acc[i].model, sizeof v->model);
			v->v = nd->acc[i].sum[k] / (double)nd->acc[i].n[k];
		}
	}
	{
		struct gd_fleet_ngpu *x = gd_vec_push(ng, sizeof *x);

		gd_strlcpy(x->node, nd->name, sizeof x->node);
		x->n = nd->ngpus;
	}
	f->nodes++;
	f->gpus += nd->ngpus;
	if (isfinite(prev_t) && isfinite(first_t) && prev_t - first_t > f->range_s)
		f->range_s = prev_t - first_t;
	GD_VEC_EACH(last.items, const struct gd_finding, fi) {
		struct gd_fleet_drain *d;

		if (fi->severity != GD_SEV_CRITICAL)
			continue;
		d = gd_vec_push(&f->drain, sizeof *d);
		gd_strlcpy(d->node, nd->name, sizeof d->node);
		gd_strlcpy(d->rule, fi->id, sizeof d->rule);
		gd_strlcpy(d->subject, fi->subject, sizeof d->subject);
		d->remedy = gd_fleet_remedy(fi->id, "");
	}
	if (nd->gap_s > 0) {
		struct gd_fleet_blind *b = gd_vec_push(&f->blind, sizeof *b);

		gd_strlcpy(b->node, nd->name, sizeof b->node);
		b->down_s = nd->gap_s;
	}
	if (cut) {
		struct gd_prom_warning *wn = gd_vec_push(warnings, sizeof *wn);
		char msg[600];

		if (cut == GD_REC_ENDS_EARLY)
			snprintf(msg, sizeof msg,
				 _("%s: the gzip data ends early (an interrupted recording?): what came before is loaded"), path);
		else
			snprintf(msg, sizeof msg,
				 _("%s: the gzip data is damaged after line %zu (a recording cut and then appended to by an older "
				   "gpudoctor?): what came before is loaded"),
				 path, good);
		wn->query = gd_xstrdup(path);
		wn->text = gd_xstrdup(msg);
	}
	if (nd->bad_lines) {
		struct gd_prom_warning *wn = gd_vec_push(warnings, sizeof *wn);
		char msg[300];

		snprintf(msg, sizeof msg, _("%zu lines are not snapshots, first %s"), nd->bad_lines, nd->first_bad);
		wn->query = gd_xstrdup(path);
		wn->text = gd_xstrdup(msg);
	}
	gd_findings_release(&last);
	for (size_t i = 0; i < RING; i++)
		gd_snapshot_release(&ring[i]);
	gd_finding_tracks_release(&nd->tracks);
	free(nd);
	return 0;
fail:
	gd_findings_release(&last);
	for (size_t i = 0; i < RING; i++)
		gd_snapshot_release(&ring[i]);
	gd_finding_tracks_release(&nd->tracks);
	free(nd);
	return err ? err->code : -EINVAL;
}

int gd_fleet_files(char *const *paths, size_t n, const struct gd_fleet_opts *o, const struct gd_thresholds *th,
		   struct gd_fleet *f, struct gd_vec *warnings, struct gd_err *err)
{
	struct gd_vec ents = { 0 }, ng = { 0 }, vals[GD_FLEET_NMETRICS] = { { 0 } };
	int rc = 0;

	memset(f, 0, sizeof *f);
	f->at = 0;  /* the newest snapshot's wall time */
	f->repeat_min = o->repeat_min;
	f->mad_k = o->mad_k;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = one_file(paths[i], th, f, &ents, &ng, vals, warnings, err);
	if (rc == 0) {
		gd_fleet_build(f, &ents, &ng, o);
		for (size_t k = 0; k < GD_FLEET_NMETRICS; k++)
			gd_fleet_judge(f, k, vals[k].items, vals[k].n, o);
	}
	gd_vec_release(&ents);
	gd_vec_release(&ng);
	for (size_t k = 0; k < GD_FLEET_NMETRICS; k++)
		gd_vec_release(&vals[k]);
	return rc;
}
