/*
 * rule_mem.c - the host memory rules: pressure, swapping, a small or full
 * /dev/shm, and a cgroup near its memory limit.
 *
 * Data loaders keep decoded batches, prefetch queues and worker copies of
 * the data set in host memory; when it runs out, the kernel reclaims page
 * cache, swaps, or kills.  Each rule names one stage of that.  Thresholds
 * come from thresholds.def (rc->th), never from this file.
 *
 * mem.pressure: MemAvailable (the kernel's estimate of what can be had
 * without swapping, /proc/meminfo since 3.14; before 3.14 the collector
 * estimates it the same way and the evidence says so) below 5% of MemTotal, or PSI
 * memory some avg10 >= 10% (tasks stalled on reclaim a tenth of the time).
 * One snapshot is enough.  Example: 2.0 GiB of 62.8 GiB available = 3.2%.
 *
 * mem.swapping: (pswpin + pswpout) / dt from /proc/vmstat >= 100 pages/s.
 * A trickle of swap-out is harmless; a hundred 4 KiB pages a second in
 * both directions means the working set does not fit.  Example: 600 in
 * and 100 out over 2.0 s = 350 pages/s.
 *
 * mem.shm_small: PyTorch loader workers hand batches to the trainer through
 * /dev/shm; Docker gives a container 64 MiB, which crashes or stalls them
 * ("bus error", "unable to write to file </torch_...>").  Evidence: the
 * size and use of /dev/shm as seen from each GPU job's mount namespace (and
 * gpudoctor's own).  Fires at size < 1 GiB or use >= 90%.  A namespace
 * without a /dev/shm mount writes to the parent filesystem: nothing to
 * report.  Example: 64 MiB, 60 MiB used = 94%.
 *
 * mem.cgroup_near_limit: memory.current >= 90% of memory.max means the
 * group reclaims its own page cache and is one allocation from the cgroup
 * OOM killer; a rise of memory.events oom_kill in the window means it fired
 * (critical).  Example: 7.6 of 8.0 GiB = 95%; oom_kill 3 -> 4.
 */
#include "rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"

#include "rules/rule_util.h"

/* "64 MiB", "1.5 GiB": binary units, one decimal unless whole. */
static const char *fmt_bytes(char *buf, size_t sz, double bytes)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB" };
	size_t u = 0;

	/* 1023.97 MiB prints as 1.0 GiB, not 1024.0 MiB. */
	while (bytes >= 1023.95 && u + 1 < sizeof units / sizeof units[0]) {
		bytes /= 1024;
		u++;
	}
	if (bytes == floor(bytes))
		snprintf(buf, sz, "%.0f %s", bytes, units[u]);
	else
		snprintf(buf, sz, "%.1f %s", bytes, units[u]);
	return buf;
}

/* ---- mem.pressure ------------------------------------------------------- */

enum gd_verdict gd_rule_mem_pressure(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	const struct gd_mem *m = &b->mem;
	double th_avail = TH(rc, MEM_PRESSURE_AVAILABLE_PCT), th_psi = TH(rc, MEM_PRESSURE_PSI_PCT);
	double avail = NAN, psi = NAN, full = NAN;
	bool low, stalled;
	struct gd_finding *f;
	char sum[512] = "", x[32], y[32];

	if (m->available_bytes.ok && m->total_bytes.ok && m->total_bytes.v > 0)
		avail = 100.0 * (double)m->available_bytes.v / (double)m->total_bytes.v;
	if (b->psi.memory_some_avg10.ok)
		psi = b->psi.memory_some_avg10.v;
	if (b->psi.memory_full_avg10.ok)
		full = b->psi.memory_full_avg10.v;
	low = avail < th_avail;
	stalled = psi >= th_psi;
	if (isnan(avail) && !stalled)
		return gd_rule_unknown(rc, "%s",
				       isnan(psi) ? _("no MemTotal and MemAvailable in /proc/meminfo and no PSI memory")
						  : _("no MemTotal and MemAvailable in /proc/meminfo (PSI memory alone is "
						      "below its threshold)"));
	if (!low && !stalled)
		return GD_VERDICT_CLEAR;

	f = gd_finding_add(rc, out, rc->rule->severity, "host");
	if (!isnan(avail)) {
		fmt_bytes(x, sizeof x, (double)m->available_bytes.v);
		fmt_bytes(y, sizeof y, (double)m->total_bytes.v);
		if (low)
			/* TRANSLATORS: %1$.1f%% available, %2$s of %3$s (2.0 GiB of 62.8 GiB), %4$g%% the threshold */
			cat(sum, sizeof sum, _("Only %.1f%% of memory is available (%s of %s; threshold %g%%)"), avail,
			    x, y, th_avail);
		else
			/* TRANSLATORS: %1$.1f%% available, %2$s of %3$s (2.0 GiB of 62.8 GiB) */
			cat(sum, sizeof sum, _("%.1f%% of memory is available (%s of %s)"), avail, x, y);
	}
	if (!isnan(psi) && sum[0])
		/* TRANSLATORS: a clause added to the sentence before it */
		cat(sum, sizeof sum, _("; PSI memory some %.0f%%"), psi);
	else if (!isnan(psi))
		cat(sum, sizeof sum, _("Tasks waited for memory %.0f%% of the last 10 s (PSI memory some)"), psi);
	if (stalled)
		/* TRANSLATORS: follows the number it is the threshold of */
		cat(sum, sizeof sum, _(" (threshold %g%%)"), th_psi);
	if (!isnan(full) && full > 0)
		/* TRANSLATORS: follows PSI memory some: PSI memory full avg10 */
		cat(sum, sizeof sum, _(", full %.0f%%"), full);
	if (!isnan(avail) && m->available_estimated.ok && m->available_estimated.v)
		/* TRANSLATORS: ends the summary: how the available memory was estimated */
		cat(sum, sizeof sum, "%s",
		    m->low_watermark_bytes.ok
			    ? _(" (estimated: this kernel has no MemAvailable; MemFree, page cache and reclaimable slab "
				"less the low watermarks)")
			    : _(" (estimated: this kernel has no MemAvailable; MemFree, page cache and reclaimable slab, "
				"low watermarks unread and taken as 0)"));
	/* TRANSLATORS: a finding's summary, %s the sentence made of the
	 * messages above it: add the full stop */
	gd_finding_summary(f, _("%s."), sum);
	gd_finding_ev(f, "available_pct", avail, "%", th_avail);
	if (m->available_bytes.ok)
		gd_finding_ev(f, "available_bytes", (double)m->available_bytes.v, "bytes", NAN);
	if (m->available_estimated.ok && m->available_estimated.v) {
		gd_finding_ev_text(f, "available_source",
				   m->low_watermark_bytes.ok ? "si_mem_available estimate (no MemAvailable); low watermarks from /proc/zoneinfo"
							     : "si_mem_available estimate (no MemAvailable); low watermarks assumed 0 (no /proc/zoneinfo)");
		if (m->low_watermark_bytes.ok)
			gd_finding_ev(f, "low_watermark_bytes", (double)m->low_watermark_bytes.v, "bytes", NAN);
	}
	if (!isnan(psi))
		gd_finding_ev(f, "psi_memory_some_pct", psi, "%", th_psi);
	if (!isnan(full))
		gd_finding_ev(f, "psi_memory_full_pct", full, "%", NAN);
	return GD_VERDICT_FIRED;
}

/* ---- mem.swapping ------------------------------------------------------- */

enum gd_verdict gd_rule_mem_swapping(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	double th = TH(rc, MEM_SWAPPING_PAGES_PER_S), dt, in, outr, total;
	struct gd_finding *f;

	if (!gd_window_dt(rc->w, &dt) || !gd_counter_rate(a->mem.pswpin, b->mem.pswpin, dt, &in) ||
	    !gd_counter_rate(a->mem.pswpout, b->mem.pswpout, dt, &outr))
		return gd_rule_unknown(rc, "%s", _("no pswpin/pswpout counters (/proc/vmstat) in both snapshots"));
	total = in + outr;
	if (total < th)
		return GD_VERDICT_CLEAR;

	f = gd_finding_add(rc, out, rc->rule->severity, "host");
	if (b->host.page_size_bytes.ok)
		/* TRANSLATORS: %1$.0f pages/s in all, %2$.0f in, %3$.0f out, %4$g the
		 * threshold, %5$.1f MB/s, %6$.1f s the window */
		gd_finding_summary(f, _("The host swaps %.0f pages/s (%.0f in, %.0f out; threshold %g pages/s), %.1f MB/s "
					"over %.1f s."),
				   total, in, outr, th, total * (double)b->host.page_size_bytes.v / 1e6, dt);
	else
		/* TRANSLATORS: %1$.0f pages/s in all, %2$.0f in, %3$.0f out, %4$g the
		 * threshold, %5$.1f s the window */
		gd_finding_summary(f, _("The host swaps %.0f pages/s (%.0f in, %.0f out; threshold %g pages/s) over %.1f s."),
				   total, in, outr, th, dt);
	gd_finding_ev(f, "swap_in_pages_per_s", in, "pages/s", NAN);
	gd_finding_ev(f, "swap_out_pages_per_s", outr, "pages/s", NAN);
	gd_finding_ev(f, "swap_pages_per_s", total, "pages/s", th);
	return GD_VERDICT_FIRED;
}

/* ---- mem.shm_small ------------------------------------------------------ */

/* True when an earlier record of the same mount namespace was judged. */
static bool shm_seen(const struct gd_snapshot *b, const struct gd_shm *s)
{
	if (!s->mntns[0])
		return false;
	GD_VEC_EACH(b->shm, const struct gd_shm, e) {
		if (e == s)
			return false;
		if (strcmp(e->mntns, s->mntns) == 0 && e->mounted.ok && e->size_bytes.ok)
			return true;
	}
	return false;
}

static void shm_finding(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_snapshot *b,
			const struct gd_shm *s, double used_pct)
{
	double th_min = TH(rc, MEM_SHM_MIN_BYTES), th_used = TH(rc, MEM_SHM_USED_PCT);
	bool job = s->gpu_job.ok && s->gpu_job.v == 1 && s->pid.ok;
	bool small = (double)s->size_bytes.v < th_min, full = used_pct >= th_used;
	const struct gd_proc *p = job ? gd_snapshot_proc(b, s->pid.v) : NULL;
	char who[64] = "", size[32], min[32], used[32], job_name[96];
	struct gd_finding *f;
	char sum[512] = "";

	if (job)
		snprintf(who, sizeof who, "pid %llu%s%s", (unsigned long long)s->pid.v, p && p->comm[0] ? ", " : "",
			 p ? p->comm : "");
	if (job)
		f = gd_finding_add(rc, out, rc->rule->severity, "/dev/shm (%s)", who);
	else
		f = gd_finding_add(rc, out, rc->rule->severity, "/dev/shm");
	fmt_bytes(size, sizeof size, (double)s->size_bytes.v);
	fmt_bytes(min, sizeof min, th_min);
	if (job) {
		/* the job by its names, never translated: "pid 4711 (python)" */
		if (p && p->comm[0])
			snprintf(job_name, sizeof job_name, "pid %llu (%s)", (unsigned long long)s->pid.v, p->comm);
		else
			snprintf(job_name, sizeof job_name, "pid %llu", (unsigned long long)s->pid.v);
		/* TRANSLATORS: %1$s the job (pid 4711 (python)), %2$s the size of its /dev/shm (64 MiB) */
		cat(sum, sizeof sum, _("/dev/shm in the mount namespace of GPU job %s is %s"), job_name, size);
	} else {
		/* TRANSLATORS: %s the size of /dev/shm (64 MiB) */
		cat(sum, sizeof sum, _("/dev/shm is %s"), size);
	}
	if (small)
		/* TRANSLATORS: follows the size it is the threshold of */
		cat(sum, sizeof sum, _(" (threshold %s)"), min);
	if (!isnan(used_pct) && full)
		/* TRANSLATORS: follows "/dev/shm is 64 MiB": %1$.0f%% used, %2$s used (60 MiB), %3$g%% the threshold */
		cat(sum, sizeof sum, _(" and %.0f%% used (%s; threshold %g%%)"), used_pct,
		    fmt_bytes(used, sizeof used, (double)s->used_bytes.v), th_used);
	else if (!isnan(used_pct))
		/* TRANSLATORS: follows "/dev/shm is 64 MiB": %1$.0f%% used, %2$s used (60 MiB) */
		cat(sum, sizeof sum, _(" and %.0f%% used (%s)"), used_pct,
		    fmt_bytes(used, sizeof used, (double)s->used_bytes.v));
	/* TRANSLATORS: ends the summary on /dev/shm */
	cat(sum, sizeof sum, "%s", _(": DataLoader workers pass batches through it"));
	gd_finding_summary(f, _("%s."), sum);
	if (job && small)
		gd_finding_remedy(f,
				  _("Run the job's container with a larger --shm-size (it has %s; e.g. --shm-size=16g), "
				    "or in Kubernetes mount a memory-backed emptyDir (medium: Memory) on /dev/shm."),
				  size);
	else if (job)
		gd_finding_remedy(f,
				  _("Remove stale files left in /dev/shm by crashed workers (ls -la /dev/shm in the "
				    "container), or run the container with a larger --shm-size than its %s."),
				  size);
	else
		gd_finding_remedy(f,
				  _("Enlarge /dev/shm (it has %s): mount -o remount,size=16G /dev/shm on the host, or "
				    "--shm-size if gpudoctor and the job run in a container; remove stale files left "
				    "by crashed workers."),
				  size);
	gd_finding_ev(f, "size_bytes", (double)s->size_bytes.v, "bytes", th_min);
	gd_finding_ev(f, "used_pct", used_pct, "%", th_used);
	if (s->used_bytes.ok)
		gd_finding_ev(f, "used_bytes", (double)s->used_bytes.v, "bytes", NAN);
}

enum gd_verdict gd_rule_mem_shm_small(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	double th_min = TH(rc, MEM_SHM_MIN_BYTES), th_used = TH(rc, MEM_SHM_USED_PCT);
	size_t njudged = 0, nfired = 0;

	if (b->shm.n == 0)
		return gd_rule_unknown(rc, "%s", _("no /dev/shm record (statvfs of /dev/shm) in the last snapshot"));
	GD_VEC_EACH(b->shm, const struct gd_shm, s) {
		double used_pct = NAN;

		if (!s->mounted.ok)
			continue;
		if (s->mounted.v == 0) {
			njudged++;  /* no mount: files land on the parent fs */
			continue;
		}
		if (!s->size_bytes.ok)
			continue;
		njudged++;
		if (shm_seen(b, s))
			continue;
		if (s->used_bytes.ok && s->size_bytes.v > 0)
			used_pct = 100.0 * (double)s->used_bytes.v / (double)s->size_bytes.v;
		if ((double)s->size_bytes.v >= th_min && !(used_pct >= th_used))
			continue;
		shm_finding(rc, out, b, s, used_pct);
		nfired++;
	}
	if (nfired)
		return GD_VERDICT_FIRED;
	if (njudged == 0)
		return gd_rule_unknown(rc, "%s", _("no /dev/shm record says whether it is mounted and how large it is"));
	return GD_VERDICT_CLEAR;
}

/* ---- mem.cgroup_near_limit ---------------------------------------------- */

enum gd_verdict gd_rule_mem_cgroup_near_limit(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	double th = TH(rc, MEM_CGROUP_USED_PCT);
	size_t njudged = 0, nfired = 0;

	GD_VEC_EACH(b->cgroups, const struct gd_cgroup, c) {
		const struct gd_cgroup *prev = NULL;
		const char *path = c->memory_path[0] ? c->memory_path : c->path;
		double used_pct = NAN, kills = NAN;
		uint64_t d;
		bool near, killed;
		struct gd_finding *f;
		char sum[512] = "", cur[32], max[32], own[48] = "";

		if (rc->w->n >= 2 && c->path[0])
			prev = GD_FIND_PREV(a, cgroups, struct gd_cgroup, path, c->path);
		if (prev && gd_counter_delta(prev->mem_events_oom_kill, c->mem_events_oom_kill, &d))
			kills = (double)d;
		if (c->mem_current_bytes.ok && c->mem_max_bytes.ok && c->mem_max_bytes.v > 0)
			used_pct = 100.0 * (double)c->mem_current_bytes.v / (double)c->mem_max_bytes.v;
		if (c->mem_current_bytes.ok || !isnan(kills))
			njudged++;
		near = used_pct >= th;
		killed = kills > 0;
		if (!near && !killed)
			continue;

		f = gd_finding_add(rc, out, killed ? GD_SEV_CRITICAL : rc->rule->severity, "%s", path);
		if (c->self.ok && c->self.v == 1)
			/* TRANSLATORS: follows a cgroup's path: the cgroup gpudoctor runs in */
			snprintf(own, sizeof own, "%s", _(" (gpudoctor's own)"));
		else if (c->pid.ok)
			snprintf(own, sizeof own, " (pid %llu)", (unsigned long long)c->pid.v);
		if (!isnan(used_pct)) {
			fmt_bytes(cur, sizeof cur, (double)c->mem_current_bytes.v);
			fmt_bytes(max, sizeof max, (double)c->mem_max_bytes.v);
			if (near)
				/* TRANSLATORS: %1$s the cgroup's path, %2$s "" or " (gpudoctor's own)" or
				 * " (pid 4711)", %3$s of %4$s (7.6 GiB of 8.0 GiB), %5$.0f%%, %6$g%% the threshold */
				cat(sum, sizeof sum, _("The cgroup %s%s uses %s of its %s limit (%.0f%%, threshold %g%%)"),
				    path, own, cur, max, used_pct, th);
			else
				/* TRANSLATORS: %1$s the cgroup's path, %2$s "" or " (gpudoctor's own)" or
				 * " (pid 4711)", %3$s of %4$s (7.6 GiB of 8.0 GiB), %5$.0f%% */
				cat(sum, sizeof sum, _("The cgroup %s%s uses %s of its %s limit (%.0f%%)"), path, own, cur,
				    max, used_pct);
			if (killed)
				/* TRANSLATORS: a clause added to the sentence before it */
				cat(sum, sizeof sum,
				    P_("; the OOM killer killed %.0f process in it during the window",
				       "; the OOM killer killed %.0f processes in it during the window",
				       (unsigned long)kills),
				    kills);
		} else if (killed) {
			/* TRANSLATORS: %1$s the cgroup's path, %2$s "" or " (gpudoctor's own)" or " (pid 4711)" */
			cat(sum, sizeof sum,
			    P_("The cgroup %s%s: the OOM killer killed %.0f process in it during the window",
			       "The cgroup %s%s: the OOM killer killed %.0f processes in it during the window",
			       (unsigned long)kills),
			    path, own, kills);
		}
		if (!killed && c->mem_events_oom_kill.ok && c->mem_events_oom_kill.v > 0)
			/* TRANSLATORS: a clause added to the sentence before it */
			cat(sum, sizeof sum, _("; it has had %llu OOM kills before the window"),
			    (unsigned long long)c->mem_events_oom_kill.v);
		gd_finding_summary(f, _("%s."), sum);
		if (!isnan(used_pct))
			gd_finding_remedy(f,
					  _("Raise the container's memory limit above %s (docker --memory, "
					    "Kubernetes resources.limits.memory) or cut the job's memory use "
					    "(fewer DataLoader workers, smaller prefetch); page cache and /dev/shm "
					    "count against it too."),
					  max);
		gd_finding_ev(f, "used_pct", used_pct, "%", th);
		if (c->mem_current_bytes.ok)
			gd_finding_ev(f, "current_bytes", (double)c->mem_current_bytes.v, "bytes", NAN);
		if (c->mem_max_bytes.ok)
			gd_finding_ev(f, "max_bytes", (double)c->mem_max_bytes.v, "bytes", NAN);
		if (!isnan(kills))
			gd_finding_ev(f, "oom_kills", kills, "", NAN);
		if (c->mem_events_oom_kill.ok)
			gd_finding_ev(f, "oom_kills_total", (double)c->mem_events_oom_kill.v, "", NAN);
		nfired++;
	}
	if (nfired)
		return GD_VERDICT_FIRED;
	if (njudged == 0)
		return gd_rule_unknown(rc, "%s", _("no cgroup record has memory.current or memory.events oom_kill"));
	return GD_VERDICT_CLEAR;
}
