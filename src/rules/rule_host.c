/*
 * rule_host.c - host rules: host.cpu_thermal_throttle, host.inlet_temp.
 *
 * Mechanism.  A CPU that reaches its thermal limit (PROCHOT) drops its clock;
 * the loader workers and the launch thread slow down with it and the GPUs
 * wait.  Intel CPUs count these events per core and per package in
 * /sys/devices/system/cpu/cpuN/thermal_throttle/{core,package}_throttle_count
 * (the package count is repeated on every CPU of the package, the core count
 * on both hyperthreads of a core).  The air that enters the chassis decides
 * how much every fan can cool: ASHRAE recommends 18-27 °C, GPU vendors and
 * the seed documents 16-25 °C; BMC and some hwmon chips expose an inlet or
 * ambient sensor.
 *
 * Evidence and thresholds (thresholds.def, all overridable):
 *   host.cpu_thermal_throttle  any rise of a throttle counter over the window
 *                   (a healthy, cooled CPU never throttles for heat); a
 *                   package sensor (coretemp "Package id N", k10temp "Tctl",
 *                   zone x86_pkg_temp) within near_crit_c (5 °C) of its
 *                   critical point is shown as evidence.
 *   host.inlet_temp a sensor whose label or chip says inlet, ambient, intake
 *                   or room outside [min_c, max_c] (16-25 °C, bounds allowed).
 *
 * Worked example: between two snapshots 2.0 s apart cpu0-cpu13 saw their
 * core_throttle_count rise by up to 230 and package 0's count by 12, while
 * "Package id 0" read 98 °C with crit 100 °C -> "14 of 64 CPUs throttled for
 * heat over 2.0 s: 12 package events, at most 230 core events on one
 * CPU; Package id 0 at 98 °C, critical at 100 °C."
 */
#include "rules/rules.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"

/* ---- host.cpu_thermal_throttle ----------------------------------------- */

static bool is_package_sensor(const struct gd_sensor *s)
{
	return (strcmp(s->chip, "coretemp") == 0 && strncmp(s->label, "Package id", 10) == 0) ||
	       (strcmp(s->chip, "k10temp") == 0 && strcmp(s->label, "Tctl") == 0) ||
	       strcmp(s->chip, "x86_pkg_temp") == 0;
}

/* The package sensor closest to its critical point, when within margin. */
static const struct gd_sensor *hot_package(const struct gd_snapshot *s, double margin)
{
	const struct gd_sensor *best = NULL;

	GD_VEC_EACH(s->sensors, const struct gd_sensor, t) {
		if (!is_package_sensor(t) || !t->temp_c.ok || !t->crit_c.ok || t->crit_c.v - t->temp_c.v > margin)
			continue;
		if (!best || t->crit_c.v - t->temp_c.v < best->crit_c.v - best->temp_c.v)
			best = t;
	}
	return best;
}

/* Throttle deltas of one CPU against its match in first; false without. */
static bool cpu_throttle(const struct gd_snapshot *first, const struct gd_cpus *c, uint64_t *dcore, uint64_t *dpkg,
			 bool *pkg_ok)
{
	const struct gd_cpus *p;
	bool core_ok;

	if (!c->cpu.ok)
		return false;
	p = GD_FIND_PREV_U64(first, cpus, struct gd_cpus, cpu, c->cpu.v);
	if (!p)
		return false;
	core_ok = gd_counter_delta(p->core_throttle_count, c->core_throttle_count, dcore);
	*pkg_ok = gd_counter_delta(p->package_throttle_count, c->package_throttle_count, dpkg);
	if (!core_ok)
		*dcore = 0;
	if (!*pkg_ok)
		*dpkg = 0;
	return core_ok || *pkg_ok;
}

/* Sum over packages of the largest package delta seen on one of its CPUs
 * (the count is per package, repeated on each of its CPUs).  CPUs with no
 * package id count as one package together. */
static uint64_t package_events(const struct gd_snapshot *first, const struct gd_snapshot *last)
{
	const struct gd_cpus *cpus = last->cpus.items;
	uint64_t total = 0;

	for (size_t i = 0; i < last->cpus.n; i++) {
		uint64_t most = 0, dc, dp;
		bool seen = false, pkg_ok;

		for (size_t j = 0; j < i && !seen; j++)
			seen = cpus[j].package.ok == cpus[i].package.ok && cpus[j].package.v == cpus[i].package.v;
		if (seen)
			continue;
		for (size_t j = i; j < last->cpus.n; j++) {
			if (cpus[j].package.ok != cpus[i].package.ok || cpus[j].package.v != cpus[i].package.v)
				continue;
			if (cpu_throttle(first, &cpus[j], &dc, &dp, &pkg_ok) && pkg_ok && dp > most)
				most = dp;
		}
		total += most;
	}
	return total;
}

enum gd_verdict gd_rule_host_cpu_thermal_throttle(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *b = gd_window_last(rc->w);
	const double margin = rc->th->v[GD_TH_HOST_THROTTLE_NEAR_CRIT_C];
	uint64_t core_max = 0, pkg_total;
	size_t judged = 0, affected = 0;
	const struct gd_sensor *hot;
	struct gd_finding *f;
	char temp[192] = "";
	double dt;

	if (!gd_window_dt(rc->w, &dt))
		return gd_rule_unknown(rc, "%s", _("needs two snapshots some time apart (uptime)"));
	GD_VEC_EACH(b->cpus, const struct gd_cpus, c) {
		uint64_t dc, dp;
		bool pkg_ok;

		if (!cpu_throttle(a, c, &dc, &dp, &pkg_ok))
			continue;
		judged++;
		if (dc || dp)
			affected++;
		if (dc > core_max)
			core_max = dc;
	}
	if (judged == 0)
		return gd_rule_unknown(rc, "%s", _("no CPU thermal throttle counters in both snapshots "
						 "(/sys/devices/system/cpu/cpu*/thermal_throttle/: Intel CPUs only)"));
	if (affected == 0)
		return GD_VERDICT_CLEAR;
	pkg_total = package_events(a, b);
	hot = hot_package(b, margin);
	f = gd_finding_add(rc, out, rc->rule->severity, "host");
	if (hot)
		/* TRANSLATORS: a clause added to the summary below: %1$s the sensor
		 * (Package id 0), its temperature, its critical temperature */
		snprintf(temp, sizeof temp, _("; %s at %.0f °C, critical at %.0f °C"),
			 hot->label[0] ? hot->label : hot->chip, hot->temp_c.v, hot->crit_c.v);
	/* TRANSLATORS: %1$zu of %2$zu CPUs, %3$.1f s the window, %4$llu package
	 * events, %5$llu the most core events of one CPU, %6$s "" or the clause
	 * on the hottest package sensor */
	gd_finding_summary(f, _("%zu of %zu CPUs throttled for heat over %.1f s: %llu package events, at most %llu core "
				"events on one CPU%s."), affected, judged, dt, (unsigned long long)pkg_total,
			   (unsigned long long)core_max, temp);
	gd_finding_ev(f, "cpus_throttled", (double)affected, "cpus", NAN);
	gd_finding_ev(f, "core_events_max", (double)core_max, "events", NAN);
	gd_finding_ev(f, "package_events", (double)pkg_total, "events", NAN);
	if (hot) {
		gd_finding_ev(f, "package_temp_c", hot->temp_c.v, "celsius", hot->crit_c.v);
		gd_finding_ev_text(f, "package_sensor", hot->label[0] ? hot->label : hot->chip);
	}
	return GD_VERDICT_FIRED;
}

/* ---- host.inlet_temp --------------------------------------------------- */

static bool is_inlet_sensor(const struct gd_sensor *s)
{
	static const char *const words[] = { "inlet", "ambient", "intake", "room" };

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcasestr(s->label, words[i]) || strcasestr(s->chip, words[i]))
			return true;
	return false;
}

enum gd_verdict gd_rule_host_inlet_temp(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	const double lo = rc->th->v[GD_TH_HOST_INLET_MIN_C], hi = rc->th->v[GD_TH_HOST_INLET_MAX_C];
	size_t judged = 0, fired = 0;

	if (!b)
		return gd_rule_unknown(rc, "%s", _("no snapshot"));
	GD_VEC_EACH(b->sensors, const struct gd_sensor, s) {
		const char *name = s->label[0] ? s->label : s->chip;
		struct gd_finding *f;
		char who[160];
		bool hot;

		if (!is_inlet_sensor(s) || !s->temp_c.ok)
			continue;
		judged++;
		if (s->temp_c.v >= lo && s->temp_c.v <= hi)
			continue;
		hot = s->temp_c.v > hi;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", name);
		/* the sensor by its names, never translated: "Inlet Temp (ipmi)" */
		if (name == s->chip)
			snprintf(who, sizeof who, "%s", name);
		else
			snprintf(who, sizeof who, "%s (%s)", name, s->chip);
		if (hot)
			/* TRANSLATORS: %1$s the sensor, %2$.1f its reading, %3$g-%4$g the range */
			gd_finding_summary(f, _("%s reads %.1f °C, above the recommended %g-%g °C."), who, s->temp_c.v,
					   lo, hi);
		else
			/* TRANSLATORS: %1$s the sensor, %2$.1f its reading, %3$g-%4$g the range */
			gd_finding_summary(f, _("%s reads %.1f °C, below the recommended %g-%g °C."), who, s->temp_c.v,
					   lo, hi);
		gd_finding_ev(f, "temp_c", s->temp_c.v, "celsius", hot ? hi : lo);
		gd_finding_ev_text(f, "chip", s->chip);
		if (!hot)
			gd_finding_remedy(f, "%s",
					  _("The inlet air is colder than recommended: raise the cooling set point and "
					    "check for condensation risk."));
		fired++;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (judged == 0)
		return gd_rule_unknown(rc, "%s",
				       _("no inlet/ambient sensor (check the BMC: ipmitool sdr type temperature)"));
	return GD_VERDICT_CLEAR;
}
