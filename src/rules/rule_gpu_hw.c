/*
 * rule_gpu_hw.c - GPU clock, power and mode rules: gpu.thermal_throttle,
 * gpu.power_brake, gpu.hw_slowdown, gpu.power_capped, gpu.clocks_held_low,
 * gpu.persistence_off.  The link rules (PCIe, NVLink) are in rule_gpu_link.c.
 *
 * Mechanism.  A GPU that is too hot, at its power limit, braked by the PSU
 * or pinned by clock settings lowers its SM clock without any error: the
 * job just runs slower, and a synchronous job runs at the pace of its
 * slowest GPU.  NVML says why clocks are held down as a bitmask of clock
 * event reasons (a sample: FACTS.md §2.9) and how long as cumulative
 * violation-time counters (ns), whose rate over the window is the share of
 * time held down.
 *
 * Evidence and thresholds (thresholds.def, all overridable):
 *   gpu.thermal_throttle  thermal violation time >= limited_pct (20%) of the
 *       window, or reason sw_thermal / hw_thermal in any sample, or
 *       temp >= slowdown - slowdown_margin_c (3 °C).  Critical with
 *       hw_thermal (clocks cut by half or more).
 *   gpu.power_brake  reason power_brake (0x80) in any sample: critical.
 *   gpu.hw_slowdown  reason hw_slowdown (0x8) in a sample without hw_thermal
 *       (that is gpu.thermal_throttle) or power_brake (gpu.power_brake).
 *   gpu.power_capped  power violation time >= limited_pct (50%) of the busy
 *       time (window x utilisation) while utilisation >= busy_pct (50%);
 *       without the counter over a window, reason sw_power_cap in the last
 *       sample while busy.  Info at the default limit (the GPU is simply
 *       power-bound), warning when the enforced limit is below the default.
 *   gpu.clocks_held_low  in every sample of the window: utilisation >=
 *       busy_pct (50%), SM clock < clock_pct (70%) of its maximum, and no
 *       thermal or power reason (those have their own rules).
 *   gpu.persistence_off  persistence mode off: info, one finding for all
 *       such GPUs ("gpu0-3").
 *
 * Worked example: gpu2 at 85 °C (slowdown 87 °C), reasons 0x20, thermal
 * violation time +0.9e9 ns in 2.0 s -> "thermal-limited 45% of 2.0 s;
 * clock-event reasons: sw_thermal; 85 °C, slowdown at 87 °C; SM clock 1410
 * MHz = 71% of max 1980 MHz" (warning; limited_pct 45 >= 20, temp 85 >= 84).
 */
#include "rules/rule_gpu.h"

/* ---- gpu.thermal_throttle ---------------------------------------------- */

enum gd_verdict gd_rule_gpu_thermal_throttle(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	const double lim = rc->th->v[GD_TH_GPU_THERMAL_LIMITED_PCT], margin = rc->th->v[GD_TH_GPU_THERMAL_MARGIN_C];
	size_t judged = 0, fired = 0;
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		bool have_pct, have_r, have_t, by_pct, by_r, by_t;
		char rtext[96], parts[3][96] = { "", "", "" };
		double rate, pct = 0;
		uint64_t mask, d;
		struct gd_finding *f;

		if (!gpu_live(g))
			continue;
		have_pct = gpu_counter_rate(rc->w, g, offsetof(struct gd_gpu, violation_thermal_ns), &rate, &d);
		if (have_pct)
			pct = fmin(100.0, rate / 1e9 * 100.0);
		have_r = gpu_reasons_union(rc->w, g, &mask);
		have_t = g->temp_c.ok && g->temp_slowdown_c.ok;
		if (!have_pct && !have_r && !have_t)
			continue;
		judged++;
		by_pct = have_pct && pct >= lim;
		by_r = have_r && (mask & (GPU_R_SW_THERMAL | GPU_R_HW_THERMAL));
		by_t = have_t && g->temp_c.v >= g->temp_slowdown_c.v - margin;
		if (!by_pct && !by_r && !by_t)
			continue;
		fired++;
		gpu_reasons_text(have_r ? mask : 0, rtext, sizeof rtext);
		f = gd_finding_add(rc, out, by_r && (mask & GPU_R_HW_THERMAL) ? GD_SEV_CRITICAL : rc->rule->severity,
				   "%s", gpu_name(g).s);
		/* the summary's clauses, each present when its evidence is */
		if (have_pct)
			/* TRANSLATORS: the first clause of "gpu2 is held down by heat: <this>clock-event reasons: ..." */
			snprintf(parts[0], sizeof parts[0], _("thermal-limited %.0f%% of the window; "), pct);
		if (have_t)
			/* TRANSLATORS: a clause after the clock-event reasons: temperature, slowdown temperature */
			snprintf(parts[1], sizeof parts[1], _("; %.0f °C, slowdown at %.0f °C"), g->temp_c.v,
				 g->temp_slowdown_c.v);
		if (g->sm_clock_mhz.ok && g->sm_clock_max_mhz.ok && g->sm_clock_max_mhz.v)
			/* TRANSLATORS: the last clause: SM clock <MHz> = <percent> of max <MHz> */
			snprintf(parts[2], sizeof parts[2], _("; SM clock %llu MHz = %.0f%% of max %llu MHz"),
				 (unsigned long long)g->sm_clock_mhz.v,
				 100.0 * (double)g->sm_clock_mhz.v / (double)g->sm_clock_max_mhz.v,
				 (unsigned long long)g->sm_clock_max_mhz.v);
		/* TRANSLATORS: gpu2 (0000:52:00.0) is held down by heat (过热降频): <thermal-limited clause><reasons
		 * such as sw_thermal,hw_thermal (NVML's names)><temperature clause><SM clock clause> */
		gd_finding_summary(f, _("%s is held down by heat: %sclock-event reasons: %s%s%s."), gpu_name(g).s,
				   parts[0], rtext, parts[1], parts[2]);
		if (have_pct)
			gd_finding_ev(f, "thermal_limited_pct", pct, "%", lim);
		if (have_t) {
			gd_finding_ev(f, "temp_c", g->temp_c.v, "celsius", g->temp_slowdown_c.v - margin);
			gd_finding_ev(f, "temp_slowdown_c", g->temp_slowdown_c.v, "celsius", NAN);
		}
		if (have_r)
			gd_finding_ev_text(f, "clock_event_reasons", rtext);
		if (g->sm_clock_mhz.ok)
			gd_finding_ev(f, "sm_clock_mhz", (double)g->sm_clock_mhz.v, "MHz", NAN);
		if (g->sm_clock_max_mhz.ok)
			gd_finding_ev(f, "sm_clock_max_mhz", (double)g->sm_clock_max_mhz.v, "MHz", NAN);
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (!judged)
		return gpu_field_unknown(rc, b, "temp_c", _("temperature, clock-event reasons or thermal violation time"));
	return GD_VERDICT_CLEAR;
}

/* ---- gpu.power_brake, gpu.hw_slowdown ---------------------------------- */

/* Fires for each GPU with a sample whose reasons have all of want and none
 * of unless; the reasons of that sample are its evidence. */
static enum gd_verdict reason_rule(struct gd_rule_ctx *rc, struct gd_findings *out, uint64_t want, uint64_t unless,
				   const char *what)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	size_t judged = 0, fired = 0;
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		const struct gd_gpu *hit = NULL;
		size_t samples = 0, hits = 0;
		struct gd_finding *f;
		char rtext[96];

		if (!gpu_live(g))
			continue;
		for (size_t i = 0; i < rc->w->n; i++) {
			const struct gd_gpu *x = gpu_match(rc->w->snaps[i], g);

			if (!x || !x->clock_event_reasons.ok)
				continue;
			samples++;
			if ((x->clock_event_reasons.v & want) == want && !(x->clock_event_reasons.v & unless)) {
				hits++;
				hit = x;
			}
		}
		if (!samples)
			continue;
		judged++;
		if (!hit)
			continue;
		fired++;
		gpu_reasons_text(hit->clock_event_reasons.v, rtext, sizeof rtext);
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", gpu_name(g).s);
		if (hit->power_w.ok && hit->power_limit_w.ok)
			/* TRANSLATORS: gpu0: <what cuts its clocks> in <hits> of <samples> samples ... */
			gd_finding_summary(f, _("%s: %s in %zu of %zu samples (clock-event reasons: %s); drawing %.0f W "
						"against its enforced limit."),
					   gpu_name(g).s, what, hits, samples, rtext, hit->power_w.v);
		else if (hit->power_w.ok)
			gd_finding_summary(f, _("%s: %s in %zu of %zu samples (clock-event reasons: %s); drawing %.0f W."),
					   gpu_name(g).s, what, hits, samples, rtext, hit->power_w.v);
		else
			/* TRANSLATORS: the power draw is not known here; the English
			 * ends in a stray "0" (kept: the English output may not change
			 * with this work); leave it out of the translation */
			gd_finding_summary(f, _("%s: %s in %zu of %zu samples (clock-event reasons: %s)0."), gpu_name(g).s,
					   what, hits, samples, rtext);
		gd_finding_ev_text(f, "clock_event_reasons", rtext);
		gd_finding_ev(f, "samples_hit", (double)hits, "samples", NAN);
		if (hit->power_w.ok)
			gd_finding_ev(f, "power_w", hit->power_w.v, "W", NAN);
		if (hit->power_limit_w.ok)
			gd_finding_ev(f, "power_limit_w", hit->power_limit_w.v, "W", NAN);
		if (hit->sm_clock_mhz.ok)
			gd_finding_ev(f, "sm_clock_mhz", (double)hit->sm_clock_mhz.v, "MHz", NAN);
		if (hit->temp_c.ok)
			gd_finding_ev(f, "temp_c", hit->temp_c.v, "celsius", NAN);
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (!judged)
		return gpu_field_unknown(rc, b, "clock_event_reasons", _("clock-event reasons"));
	return GD_VERDICT_CLEAR;
}

enum gd_verdict gd_rule_gpu_power_brake(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	return reason_rule(rc, out, GPU_R_POWER_BRAKE, 0, _("the external power-brake signal cuts its clocks"));
}

enum gd_verdict gd_rule_gpu_hw_slowdown(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	return reason_rule(rc, out, GPU_R_HW_SLOWDOWN, GPU_R_HW_THERMAL | GPU_R_POWER_BRAKE,
			   _("hardware slowdown (not thermal, not the power brake) cuts its clocks by half or more"));
}

/* ---- gpu.power_capped -------------------------------------------------- */

/* An output that shows reason sw_power_cap but no utilisation (a fragment
 * of nvidia-smi -q, "-d PERFORMANCE"): the board was at its power limit
 * when it was sampled; whether that cost a busy GPU speed is not known, so
 * info (warning when the limit was lowered below the default). */
static void power_cap_moment(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_gpu *g)
{
	bool lowered = g->power_limit_w.ok && g->power_default_limit_w.ok &&
		       g->power_limit_w.v < g->power_default_limit_w.v - 0.5;
	struct gd_finding *f = gd_finding_add(rc, out, lowered ? GD_SEV_WARNING : GD_SEV_INFO, "%s", gpu_name(g).s);
	char rtext[96];

	gpu_reasons_text(g->clock_event_reasons.v, rtext, sizeof rtext);
	if (lowered) {
		gd_finding_summary(f, _("%s was held at its power limit when it was sampled (reason sw_power_cap), and its "
					"enforced limit %.0f W is below the default %.0f W; the output has no utilisation, "
					"so how much it cost a busy GPU is not known."),
				   gpu_name(g).s, g->power_limit_w.v, g->power_default_limit_w.v);
		gd_finding_remedy(f, _("Restore the default power limit: nvidia-smi -i %llu -pl %.0f (and find what lowered "
				       "it: a job prolog, DCGM policy, or an out-of-band BMC cap)."),
				  (unsigned long long)(g->index.ok ? g->index.v : 0), g->power_default_limit_w.v);
	} else {
		gd_finding_summary(f, _("%s was held at its power limit when it was sampled (reason sw_power_cap); the "
					"output has no utilisation, so whether the GPU was busy and lost speed to the limit "
					"is not known."),
				   gpu_name(g).s);
		gd_finding_remedy(f, "%s",
				  _("Capture nvidia-smi -q -d POWER,PERFORMANCE,UTILIZATION while the job runs (or "
				    "gpudoctor record): a busy GPU that keeps sw_power_cap is power-bound; if its limit is "
				    "below the default, restore it (nvidia-smi -pl)."));
	}
	gd_finding_ev_text(f, "clock_event_reasons", rtext);
	if (g->power_w.ok)
		gd_finding_ev(f, "power_w", g->power_w.v, "W", NAN);
	if (g->power_limit_w.ok)
		gd_finding_ev(f, "power_limit_w", g->power_limit_w.v, "W",
			      g->power_default_limit_w.ok ? g->power_default_limit_w.v : NAN);
}

enum gd_verdict gd_rule_gpu_power_capped(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	const double lim = rc->th->v[GD_TH_GPU_POWER_LIMITED_PCT], busy = rc->th->v[GD_TH_GPU_POWER_BUSY_PCT];
	size_t judged = 0, fired = 0;
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		bool have_pct, capped, lowered;
		double util, rate, pct = 0;
		char rtext[96], what[128];
		struct gd_finding *f;
		uint64_t d;

		if (!gpu_live(g))
			continue;
		if (!GPU_MEAN(rc->w, g, util_gpu_pct, &util)) {
			if (g->clock_event_reasons.ok && (g->clock_event_reasons.v & GPU_R_SW_POWER_CAP)) {
				power_cap_moment(rc, out, g);
				judged++;
				fired++;
			}
			continue;
		}
		have_pct = gpu_counter_rate(rc->w, g, offsetof(struct gd_gpu, violation_power_ns), &rate, &d);
		if (!have_pct && !g->clock_event_reasons.ok)
			continue;
		judged++;
		if (util < busy)
			continue;
		if (have_pct)
			pct = fmin(100.0, rate / 1e9 * 100.0 / (util / 100.0));
		capped = have_pct ? pct >= lim : (g->clock_event_reasons.v & GPU_R_SW_POWER_CAP) != 0;
		if (!capped)
			continue;
		fired++;
		lowered = g->power_limit_w.ok && g->power_default_limit_w.ok &&
			  g->power_limit_w.v < g->power_default_limit_w.v - 0.5;
		gpu_reasons_text(g->clock_event_reasons.ok ? g->clock_event_reasons.v : 0, rtext, sizeof rtext);
		f = gd_finding_add(rc, out, lowered ? GD_SEV_WARNING : GD_SEV_INFO, "%s", gpu_name(g).s);
		if (have_pct)
			/* TRANSLATORS: what holds the GPU, said in "gpu0 is <this> at 97% utilisation" */
			snprintf(what, sizeof what, _("power-limited %.0f%% of its busy time"), pct);
		else
			snprintf(what, sizeof what, "%s", _("held at its power limit (reason sw_power_cap)"));
		if (lowered) {
			gd_finding_summary(f, _("%s is %s at %.0f%% utilisation; its enforced limit %.0f W is below the "
						"default %.0f W."), gpu_name(g).s, what, util, g->power_limit_w.v,
					   g->power_default_limit_w.v);
			gd_finding_remedy(f, _("Restore the default power limit: nvidia-smi -i %llu -pl %.0f (and find what "
					       "lowered it: a job prolog, DCGM policy, or an out-of-band BMC cap)."),
					  (unsigned long long)(g->index.ok ? g->index.v : 0), g->power_default_limit_w.v);
		} else if (g->power_limit_w.ok) {
			gd_finding_summary(f, _("%s is %s at %.0f%% utilisation, limit %.0f W: a power-bound workload at "
						"the default limit."), gpu_name(g).s, what, util, g->power_limit_w.v);
		} else {
			/* TRANSLATORS: the power limit is not known here; the English
			 * has a stray "0" after "utilisation" (kept: the English output
			 * may not change with this work); leave it out of the translation */
			gd_finding_summary(f, _("%s is %s at %.0f%% utilisation0: a power-bound workload at the default "
						"limit."), gpu_name(g).s, what, util);
		}
		if (have_pct)
			gd_finding_ev(f, "power_limited_pct", pct, "%", lim);
		gd_finding_ev(f, "util_gpu_pct", util, "%", busy);
		if (g->power_w.ok)
			gd_finding_ev(f, "power_w", g->power_w.v, "W", NAN);
		if (g->power_limit_w.ok)
			gd_finding_ev(f, "power_limit_w", g->power_limit_w.v, "W",
				      g->power_default_limit_w.ok ? g->power_default_limit_w.v : NAN);
		if (g->power_default_limit_w.ok)
			gd_finding_ev(f, "power_default_limit_w", g->power_default_limit_w.v, "W", NAN);
		if (g->clock_event_reasons.ok)
			gd_finding_ev_text(f, "clock_event_reasons", rtext);
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (!judged)
		return gpu_field_unknown(rc, b, "util_gpu_pct", _("utilisation with power violation time or reasons"));
	return GD_VERDICT_CLEAR;
}

/* ---- gpu.clocks_held_low ----------------------------------------------- */

enum gd_verdict gd_rule_gpu_clocks_held_low(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	const double low = rc->th->v[GD_TH_GPU_CLOCKS_LOW_PCT], busy = rc->th->v[GD_TH_GPU_CLOCKS_BUSY_PCT];
	size_t judged = 0, fired = 0;
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		size_t samples = 0, held = 0;
		char rtext[96], app[96] = "";
		double pct = 0, min_util = 100;
		struct gd_finding *f;
		uint64_t mask = 0;

		if (!gpu_live(g))
			continue;
		for (size_t i = 0; i < rc->w->n; i++) {
			const struct gd_gpu *x = gpu_match(rc->w->snaps[i], g);
			double p;

			if (!x || !x->sm_clock_mhz.ok || !x->sm_clock_max_mhz.ok || !x->sm_clock_max_mhz.v ||
			    !x->util_gpu_pct.ok || !x->clock_event_reasons.ok)
				continue;
			samples++;
			p = 100.0 * (double)x->sm_clock_mhz.v / (double)x->sm_clock_max_mhz.v;
			if ((double)x->util_gpu_pct.v >= busy && p < low && !(x->clock_event_reasons.v & GPU_R_THERMAL_POWER))
				held++;
			pct = p; /* the last sample's */
			mask |= x->clock_event_reasons.v;
			min_util = fmin(min_util, (double)x->util_gpu_pct.v);
		}
		if (!samples)
			continue;
		judged++;
		if (held < samples)
			continue;
		fired++;
		gpu_reasons_text(mask, rtext, sizeof rtext);
		if (g->app_sm_clock_mhz.ok && (double)g->app_sm_clock_mhz.v < low / 100.0 * (double)g->sm_clock_max_mhz.v)
			/* TRANSLATORS: a clause at the end of the summary below */
			snprintf(app, sizeof app, _("; application clocks set to %llu MHz"),
				 (unsigned long long)g->app_sm_clock_mhz.v);
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", gpu_name(g).s);
		gd_finding_summary(f, _("%s runs its SM clock at %llu MHz = %.0f%% of max %llu MHz while %.0f%%+ busy, "
					"with no thermal or power reason (clock-event reasons: %s)%s."), gpu_name(g).s,
				   (unsigned long long)g->sm_clock_mhz.v, pct, (unsigned long long)g->sm_clock_max_mhz.v,
				   min_util, rtext, app);
		gd_finding_remedy(f, _("Reset application and locked clocks: nvidia-smi -i %llu -rac; nvidia-smi -i %llu "
				       "-rgc; nvidia-smi -i %llu -rmc (then find what sets them: a job prolog, DCGM, a "
				       "benchmark script)."), (unsigned long long)g->index.v, (unsigned long long)g->index.v,
				  (unsigned long long)g->index.v);
		gd_finding_ev(f, "sm_clock_pct", pct, "%", low);
		gd_finding_ev(f, "sm_clock_mhz", (double)g->sm_clock_mhz.v, "MHz", NAN);
		gd_finding_ev(f, "sm_clock_max_mhz", (double)g->sm_clock_max_mhz.v, "MHz", NAN);
		gd_finding_ev(f, "util_gpu_pct", min_util, "%", busy);
		if (g->app_sm_clock_mhz.ok)
			gd_finding_ev(f, "app_sm_clock_mhz", (double)g->app_sm_clock_mhz.v, "MHz", NAN);
		gd_finding_ev_text(f, "clock_event_reasons", rtext);
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (!judged)
		return gpu_field_unknown(rc, b, "sm_clock_mhz", _("SM clocks with utilisation and clock-event reasons"));
	return GD_VERDICT_CLEAR;
}

/* ---- gpu.persistence_off ----------------------------------------------- */

/* "gpu0-3,5" for NVML indexes in ascending order. */
static void gpu_list(const uint64_t *idx, size_t n, char *buf, size_t sz)
{
	size_t used = (size_t)snprintf(buf, sz, "gpu");

	for (size_t i = 0; i < n && used < sz; i++) {
		size_t j = i;

		while (j + 1 < n && idx[j + 1] == idx[j] + 1)
			j++;
		used += (size_t)snprintf(buf + used, sz - used, "%s%llu", i ? "," : "", (unsigned long long)idx[i]);
		if (j > i && used < sz)
			used += (size_t)snprintf(buf + used, sz - used, "-%llu", (unsigned long long)idx[j]);
		i = j;
	}
}

enum gd_verdict gd_rule_gpu_persistence_off(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	size_t judged = 0, off = 0;
	uint64_t idx[64];
	char list[96];
	struct gd_finding *f;
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	/* gpus[] is in NVML index order (the collector appends by index). */
	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		if (!gpu_live(g) || !g->persistence_mode.ok)
			continue;
		judged++;
		if (g->persistence_mode.v == 0 && g->index.ok && off < sizeof idx / sizeof idx[0])
			idx[off++] = g->index.v;
	}
	if (!judged)
		return gpu_field_unknown(rc, b, "persistence_mode", _("persistence mode"));
	if (!off)
		return GD_VERDICT_CLEAR;
	gpu_list(idx, off, list, sizeof list);
	f = gd_finding_add(rc, out, rc->rule->severity, "%s", list);
	gd_finding_summary(f, _("Persistence mode is off on %zu of %zu GPUs (%s): the driver tears each GPU down when "
				"its last client exits, and the next CUDA start pays seconds of initialisation."), off, judged,
			   list);
	gd_finding_ev(f, "gpus_off", (double)off, "gpus", NAN);
	gd_finding_ev(f, "gpus", (double)judged, "gpus", NAN);
	gd_finding_ev_text(f, "gpu_list", list);
	return GD_VERDICT_FIRED;
}
