/*
 * rule_checkpoint.c - io.checkpoint_stall: write bursts while every GPU waits.
 *
 * Mechanism.  A training job that saves a checkpoint synchronously stops
 * every rank until the state (often tens of GB) is on disk: all GPUs drop to
 * idle for the length of the write, and the disk shows a burst of written
 * sectors at the same moment.  On a slow target (an HDD, a network disk) the
 * stall lasts seconds to minutes and repeats every N steps.
 *
 * Evidence: a series of three or more snapshots (watch, record, serve, or
 * check --from a recording; with two the rule is not evaluated: one window
 * cannot tell a burst inside an idle stretch from a steady write).  For each
 * stretch of samples in which every GPU whose utilisation is known reads
 * below episodes.idle_pct (10%) and at least one of them holds a job's
 * context (see episodes.h), lasting at least idle_s (2 s, measured as
 * episodes are), the bytes each whole disk wrote over the stretch
 * (diskstats sectors_written x 512, from the sample before the stretch to
 * its last sample).  A disk that wrote at least burst_bytes (1 GB) fires.
 * Thresholds in thresholds.def; 1 GB is a small model's checkpoint, and
 * 2 s is more than a step boundary.
 *
 * Worked example: samples 1 s apart; gpu0-7 idle at uptime 110..117 (8.0 s);
 * sdb (rotational) sectors_written rose by 23437500 between uptime 109 and
 * 117: 12.0 GB at 1.5 GB/s -> "Every GPU was idle for 8.0 s from uptime
 * 110.0 s while 12.0 GB were written to sdb (rotational) at 1.5 GB/s."  The
 * finding names the largest burst and counts the others.
 */
#include "rules/episodes.h"
#include "rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"

#define TH(rc, name) ((rc)->th->v[GD_TH_##name])

/* Every GPU with a known utilisation is idle, one holds a job's context. */
static bool all_idle(const struct gd_snapshot *s, const struct gd_thresholds *th, bool *known)
{
	size_t ngpu = 0;
	bool job = false;

	GD_VEC_EACH(s->gpus, const struct gd_gpu, g) {
		if ((g->lost.ok && g->lost.v) || !g->util_gpu_pct.ok)
			continue;
		*known = true;
		ngpu++;
		if ((double)g->util_gpu_pct.v >= th->v[GD_TH_EPISODES_IDLE_PCT])
			return false;
		job = job || gd_gpu_in_use(s, g, th);
	}
	return s->host.uptime_s.ok && ngpu && job;
}

static bool disk_counts(const struct gd_disk *d)
{
	return d->whole.ok && d->whole.v == 1 && strncmp(d->name, "loop", 4) != 0 &&
	       strncmp(d->name, "ram", 3) != 0 && strncmp(d->name, "zram", 4) != 0;
}

struct burst {
	double bytes, idle_s, start_s, dt;
	char disk[32];
	bool rotational;
};

/* The disk that wrote most between snapshots a and b. */
static bool largest_write(const struct gd_snapshot *a, const struct gd_snapshot *b, struct burst *out,
			  bool *disks_known)
{
	bool any = false;

	GD_VEC_EACH(b->disks, const struct gd_disk, d) {
		const struct gd_disk *p;
		uint64_t dw;

		if (!disk_counts(d))
			continue;
		p = GD_FIND_PREV(a, disks, struct gd_disk, name, d->name);
		if (!p || !gd_counter_delta(p->sectors_written, d->sectors_written, &dw))
			continue;
		*disks_known = true;
		if (!any || (double)dw * 512.0 > out->bytes) {
			out->bytes = (double)dw * 512.0;
			gd_strlcpy(out->disk, d->name, sizeof out->disk);
			out->rotational = d->rotational.ok && d->rotational.v == 1;
			any = true;
		}
	}
	return any;
}

enum gd_verdict gd_rule_io_checkpoint_stall(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_window *w = rc->w;
	struct burst best = { 0 }, cur;
	size_t n = w->n, bursts = 0, stretches = 0;
	bool gpus_known = false, disks_known = false;
	struct gd_finding *f;
	char sz[32], rate[64];

	if (n < 3)
		return gd_rule_unknown(rc, _("needs a series of three or more snapshots (watch, record, serve, or "
					     "check --from a recording); got %zu"), n);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		if (!all_idle(w->snaps[i], rc->th, &gpus_known)) {
			i++;
			continue;
		}
		while (j + 1 < n && all_idle(w->snaps[j + 1], rc->th, &gpus_known))
			j++;
		memset(&cur, 0, sizeof cur);
		cur.idle_s = gd_ep_span(w, i, j);
		if (cur.idle_s >= TH(rc, IO_CHECKPOINT_IDLE_S)) {
			size_t lo = i ? i - 1 : i;

			stretches++;

			if (largest_write(w->snaps[lo], w->snaps[j], &cur, &disks_known) &&
			    cur.bytes >= TH(rc, IO_CHECKPOINT_BURST_BYTES)) {
				cur.start_s = w->snaps[i]->host.uptime_s.v;
				cur.dt = w->snaps[j]->host.uptime_s.v - w->snaps[lo]->host.uptime_s.v;
				bursts++;
				if (cur.bytes > best.bytes)
					best = cur;
			}
		}
		i = j + 1;
	}
	if (!gpus_known)
		return gd_rule_unknown(rc, "%s", _("no GPU utilisation in the series (NVML)"));
	if (stretches && !disks_known)
		return gd_rule_unknown(rc, "%s",
				       _("every GPU was idle, but no disk's written sectors are known (diskstats)"));
	if (!bursts)
		return GD_VERDICT_CLEAR;
	snprintf(sz, sizeof sz, "%.1f GB", best.bytes / 1e9);
	if (best.dt > 0 && best.bytes / best.dt >= 1e9)
		snprintf(rate, sizeof rate, "%.1f GB/s", best.bytes / best.dt / 1e9);
	else if (best.dt > 0)
		snprintf(rate, sizeof rate, "%.0f MB/s", best.bytes / best.dt / 1e6);
	else
		/* TRANSLATORS: in "... were written to sdb at %s" */
		snprintf(rate, sizeof rate, "%s", _("an unknown rate"));
	f = gd_finding_add(rc, out, rc->rule->severity, "%s", best.disk);
	/* TRANSLATORS: %1$.1f s idle, %2$.1f s the uptime it began at, %3$s the
	 * bytes (12.0 GB), %4$s the disk, %5$s the rate (1.5 GB/s) */
	if (best.rotational && bursts > 1)
		gd_finding_summary(f, _("Every GPU was idle for %.1f s from uptime %.1f s while %s were written to %s "
					"(rotational) at %s; more such bursts in the series."),
				   best.idle_s, best.start_s, sz, best.disk, rate);
	else if (best.rotational)
		gd_finding_summary(f, _("Every GPU was idle for %.1f s from uptime %.1f s while %s were written to %s "
					"(rotational) at %s."),
				   best.idle_s, best.start_s, sz, best.disk, rate);
	else if (bursts > 1)
		gd_finding_summary(f, _("Every GPU was idle for %.1f s from uptime %.1f s while %s were written to %s "
					"at %s; more such bursts in the series."),
				   best.idle_s, best.start_s, sz, best.disk, rate);
	else
		gd_finding_summary(f, _("Every GPU was idle for %.1f s from uptime %.1f s while %s were written to %s "
					"at %s."),
				   best.idle_s, best.start_s, sz, best.disk, rate);
	gd_finding_ev(f, "written_bytes", best.bytes, "bytes", TH(rc, IO_CHECKPOINT_BURST_BYTES));
	gd_finding_ev(f, "idle_s", best.idle_s, "s", TH(rc, IO_CHECKPOINT_IDLE_S));
	if (best.dt > 0)
		gd_finding_ev(f, "write_mb_per_s", best.bytes / best.dt / 1e6, "MB/s", NAN);
	gd_finding_ev(f, "bursts", (double)bursts, "", NAN);
	if (best.rotational)
		gd_finding_ev_text(f, "rotational", "yes");
	return GD_VERDICT_FIRED;
}
