/*
 * test_rules_host.c - host.cpu_thermal_throttle and host.inlet_temp on
 * snapshots built in C: fires, clear, unknown, threshold edges, counters
 * going backwards, overrides.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static struct gd_cpus *cpu(struct gd_snapshot *s, uint64_t n, uint64_t pkg, int64_t core_cnt, int64_t pkg_cnt)
{
	struct gd_cpus *c = GD_PUSH(s, cpus, struct gd_cpus);

	gd_u64_set(&c->cpu, n);
	gd_u64_set(&c->package, pkg);
	if (core_cnt >= 0)
		gd_u64_set(&c->core_throttle_count, (uint64_t)core_cnt);
	if (pkg_cnt >= 0)
		gd_u64_set(&c->package_throttle_count, (uint64_t)pkg_cnt);
	return c;
}

static struct gd_sensor *sensor(struct gd_snapshot *s, const char *source, const char *chip, const char *label,
				double temp, double crit)
{
	struct gd_sensor *t = GD_PUSH(s, sensors, struct gd_sensor);

	GD_STRSET(t->source, source);
	GD_STRSET(t->chip, chip);
	GD_STRSET(t->label, label);
	if (!isnan(temp))
		gd_f64_set(&t->temp_c, temp);
	if (!isnan(crit))
		gd_f64_set(&t->crit_c, crit);
	return t;
}

/* Two packages of two CPUs; counters as the kernel repeats them: the
 * package count on every CPU of the package. */
static void four_cpus(struct gd_snapshot *s, const uint64_t core[4], uint64_t pkg0, uint64_t pkg1)
{
	cpu(s, 0, 0, (int64_t)core[0], (int64_t)pkg0);
	cpu(s, 1, 0, (int64_t)core[1], (int64_t)pkg0);
	cpu(s, 2, 1, (int64_t)core[2], (int64_t)pkg1);
	cpu(s, 3, 1, (int64_t)core[3], (int64_t)pkg1);
}

/* ---- host.cpu_thermal_throttle ----------------------------------------- */

static void test_throttle_fires(void **state)
{
	struct fx *f = *state;
	const uint64_t c0[4] = { 5, 5, 0, 0 }, c1[4] = { 235, 15, 0, 0 };
	const struct gd_finding *g;

	four_cpus(&f->a, c0, 40, 3);
	four_cpus(&f->b, c1, 52, 3);
	sensor(&f->b, "hwmon", "coretemp", "Package id 0", 98, 100);
	sensor(&f->b, "hwmon", "coretemp", "Core 0", 99, 100); /* not a package sensor */
	assert_int_equal(run_rule2("host.cpu_thermal_throttle", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 1);
	g = FINDING(f->out, 0);
	assert_string_equal(g->subject, "host");
	NEAR(ev_get(g, "cpus_throttled")->value.v, 2, 0);
	NEAR(ev_get(g, "core_events_max")->value.v, 230, 0);
	NEAR(ev_get(g, "package_events")->value.v, 12, 0);
	NEAR(ev_get(g, "package_temp_c")->value.v, 98, 0);
	NEAR(ev_get(g, "package_temp_c")->threshold.v, 100, 0);
	assert_string_equal(ev_get(g, "package_sensor")->text, "Package id 0");
	assert_non_null(strstr(g->summary, "2 of 4 CPUs"));
	assert_non_null(strstr(g->summary, "Package id 0 at 98 °C"));
}

static void test_throttle_cool_package_not_shown(void **state)
{
	struct fx *f = *state;
	const uint64_t c0[4] = { 0, 0, 0, 0 }, c1[4] = { 0, 0, 0, 0 };

	/* Only package throttling on package 1; k10temp Tctl 90 of 100. */
	four_cpus(&f->a, c0, 0, 7);
	four_cpus(&f->b, c1, 0, 9);
	sensor(&f->b, "hwmon", "k10temp", "Tctl", 90, 100);
	assert_int_equal(run_rule2("host.cpu_thermal_throttle", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	NEAR(ev_get(FINDING(f->out, 0), "package_events")->value.v, 2, 0);
	NEAR(ev_get(FINDING(f->out, 0), "cpus_throttled")->value.v, 2, 0);
	assert_int_equal(FINDING(f->out, 0)->nev, 3);
}

static void test_throttle_clear(void **state)
{
	struct fx *f = *state;
	const uint64_t c[4] = { 5, 5, 1, 1 };

	four_cpus(&f->a, c, 40, 3);
	four_cpus(&f->b, c, 40, 3);
	sensor(&f->b, "thermal", "x86_pkg_temp", "", 99, 100);
	assert_int_equal(run_rule2("host.cpu_thermal_throttle", &f->a, &f->b, NULL, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
}

static void test_throttle_unknown(void **state)
{
	struct fx *f = *state;

	/* AMD: no thermal_throttle directory, counters absent. */
	cpu(&f->a, 0, 0, -1, -1);
	cpu(&f->b, 0, 0, -1, -1);
	assert_int_equal(run_rule2("host.cpu_thermal_throttle", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(unknown_reason(&f->out), "thermal_throttle"));
}

static void test_throttle_edge(void **state)
{
	struct fx *f = *state;
	struct gd_cpus *c;
	struct gd_findings o;

	cpu(&f->a, 0, 0, 10, 10);
	c = cpu(&f->b, 0, 0, 11, 10); /* one event is a rise */
	assert_int_equal(run_rule2("host.cpu_thermal_throttle", &f->a, &f->b, NULL, &f->out), GD_VERDICT_FIRED);
	NEAR(ev_get(FINDING(f->out, 0), "core_events_max")->value.v, 1, 0);
	c->core_throttle_count.v = 10;
	gd_findings_init(&o);
	assert_int_equal(run_rule2("host.cpu_thermal_throttle", &f->a, &f->b, NULL, &o), GD_VERDICT_CLEAR);
	gd_findings_release(&o);
}

static void test_throttle_backwards(void **state)
{
	struct fx *f = *state;

	cpu(&f->a, 0, 0, 500, 500);
	cpu(&f->b, 0, 0, 3, 3);
	assert_int_equal(run_rule2("host.cpu_thermal_throttle", &f->a, &f->b, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_int_equal(f->out.items.n, 0);
}

static void test_throttle_single_snapshot(void **state)
{
	struct fx *f = *state;

	cpu(&f->a, 0, 0, 500, 500);
	assert_int_equal(run_rule2("host.cpu_thermal_throttle", &f->a, NULL, NULL, &f->out), GD_VERDICT_UNKNOWN);
}

static void test_throttle_override(void **state)
{
	struct fx *f = *state;
	struct gd_thresholds th;
	struct gd_err err;
	const struct gd_finding *g;

	gd_thresholds_init(&th);
	assert_int_equal(gd_thresholds_set(&th, "host.cpu_thermal_throttle.near_crit_c", "15", &err), 0);
	cpu(&f->a, 0, 0, 0, 0);
	cpu(&f->b, 0, 0, 4, 0);
	sensor(&f->b, "hwmon", "k10temp", "Tctl", 90, 100);
	assert_int_equal(run_rule2("host.cpu_thermal_throttle", &f->a, &f->b, &th, &f->out), GD_VERDICT_FIRED);
	g = FINDING(f->out, 0);
	NEAR(ev_get(g, "package_temp_c")->value.v, 90, 0);
	assert_string_equal(ev_get(g, "package_sensor")->text, "Tctl");
}

/* ---- host.inlet_temp --------------------------------------------------- */

static void test_inlet_fires_hot(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;

	sensor(&f->a, "hwmon", "coretemp", "Package id 0", 60, 100);
	sensor(&f->a, "hwmon", "ipmi_temp", "Inlet Temp", 29, NAN);
	assert_int_equal(run_rule2("host.inlet_temp", &f->a, NULL, NULL, &f->out), GD_VERDICT_FIRED);
	assert_int_equal(f->out.items.n, 1);
	g = FINDING(f->out, 0);
	assert_string_equal(g->subject, "Inlet Temp");
	NEAR(ev_get(g, "temp_c")->value.v, 29, 0);
	NEAR(ev_get(g, "temp_c")->threshold.v, 25, 0);
	assert_string_equal(ev_get(g, "chip")->text, "ipmi_temp");
	assert_non_null(strstr(g->summary, "above the recommended 16-25 °C"));
}

static void test_inlet_fires_cold(void **state)
{
	struct fx *f = *state;
	const struct gd_finding *g;

	/* Case-insensitive, matched on the chip name as well. */
	sensor(&f->a, "hwmon", "SYS_AMBIENT", "", 14, NAN);
	assert_int_equal(run_rule2("host.inlet_temp", &f->a, NULL, NULL, &f->out), GD_VERDICT_FIRED);
	g = FINDING(f->out, 0);
	assert_string_equal(g->subject, "SYS_AMBIENT");
	NEAR(ev_get(g, "temp_c")->threshold.v, 16, 0);
	assert_non_null(strstr(g->summary, "below"));
}

static void test_inlet_clear(void **state)
{
	struct fx *f = *state;

	sensor(&f->a, "hwmon", "nct6798", "Intake Air", 22, NAN);
	sensor(&f->a, "thermal", "acpitz", "", 45, 95);
	assert_int_equal(run_rule2("host.inlet_temp", &f->a, NULL, NULL, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
}

static void test_inlet_unknown(void **state)
{
	struct fx *f = *state;

	sensor(&f->a, "hwmon", "coretemp", "Package id 0", 60, 100);
	sensor(&f->a, "hwmon", "ipmi_temp", "Inlet Temp", NAN, NAN); /* no reading */
	assert_int_equal(run_rule2("host.inlet_temp", &f->a, NULL, NULL, &f->out), GD_VERDICT_UNKNOWN);
	assert_string_equal(unknown_reason(&f->out),
			    "no inlet/ambient sensor (check the BMC: ipmitool sdr type temperature)");
}

static void test_inlet_edges(void **state)
{
	struct fx *f = *state;
	struct gd_sensor *t = sensor(&f->a, "hwmon", "ipmi_temp", "Room Temp", 25.0, NAN);
	struct gd_findings o;

	/* The bounds are inside the recommended range. */
	assert_int_equal(run_rule2("host.inlet_temp", &f->a, NULL, NULL, &f->out), GD_VERDICT_CLEAR);
	t->temp_c.v = 16.0;
	assert_int_equal(run_rule2("host.inlet_temp", &f->a, NULL, NULL, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(f->out.items.n, 0);
	t->temp_c.v = 25.1;
	gd_findings_init(&o);
	assert_int_equal(run_rule2("host.inlet_temp", &f->a, NULL, NULL, &o), GD_VERDICT_FIRED);
	gd_findings_release(&o);
	t->temp_c.v = 15.9;
	gd_findings_init(&o);
	assert_int_equal(run_rule2("host.inlet_temp", &f->a, NULL, NULL, &o), GD_VERDICT_FIRED);
	gd_findings_release(&o);
}

static void test_inlet_override(void **state)
{
	struct fx *f = *state;
	struct gd_thresholds th;
	struct gd_err err;

	gd_thresholds_init(&th);
	assert_int_equal(gd_thresholds_set(&th, "host.inlet_temp.max_c", "30", &err), 0);
	sensor(&f->a, "hwmon", "ipmi_temp", "Inlet Temp", 29, NAN);
	assert_int_equal(run_rule2("host.inlet_temp", &f->a, NULL, &th, &f->out), GD_VERDICT_CLEAR);
	assert_int_equal(gd_thresholds_set(&th, "host.inlet_temp.min_c", "18", &err), 0);
	GD_VEC_AT(f->a.sensors, struct gd_sensor, 0)->temp_c.v = 17;
	assert_int_equal(run_rule2("host.inlet_temp", &f->a, NULL, &th, &f->out), GD_VERDICT_FIRED);
	NEAR(ev_get(FINDING(f->out, 0), "temp_c")->threshold.v, 18, 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_throttle_fires),
		T(test_throttle_cool_package_not_shown),
		T(test_throttle_clear),
		T(test_throttle_unknown),
		T(test_throttle_edge),
		T(test_throttle_backwards),
		T(test_throttle_single_snapshot),
		T(test_throttle_override),
		T(test_inlet_fires_hot),
		T(test_inlet_fires_cold),
		T(test_inlet_clear),
		T(test_inlet_unknown),
		T(test_inlet_edges),
		T(test_inlet_override),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
