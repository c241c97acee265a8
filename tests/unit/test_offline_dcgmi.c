/*
 * test_offline_dcgmi.c - dcgmi's outputs as pasted (src/offline/dcgmi.c)
 * and what the rules make of them (src/rules/rule_dcgmi.c): the boxed
 * `dcgmi health -c` report in its two layouts, DCGM 4's test names, the
 * deployment tests, and the rows that must leave nothing.
 */
#include "testutil.h"

#include <math.h>

#include "offline/offline.h"

/* The older layout, as DCGM's user guide shows it (Feature Overview,
 * "Background Health Checks"), with a memory failure added on a third GPU
 * and a switch's incident (its entity is no GPU). */
static const char health_old[] =
	"    $ dcgmi health -g 1 -c\n"
	"    Health Monitor Report\n"
	"    +----------------------------------------------------------------------------+\n"
	"    | Group 1          | Overall Health: Failure                                 |\n"
	"    +==================+=========================================================+\n"
	"    | GPU ID: 0        | Warning                                                 |\n"
	"    |                  | PCIe system: Warning - Detected more than 8 PCIe        |\n"
	"    |                  | replays per minute for GPU 0: 13                        |\n"
	"    +------------------+---------------------------------------------------------+\n"
	"    | GPU ID: 1        | Warning                                                 |\n"
	"    |                  | InfoROM system: Warning - A corrupt InfoROM has been    |\n"
	"    |                  | detected in GPU 1.                                      |\n"
	"    +------------------+---------------------------------------------------------+\n"
	"    | GPU ID: 2        | Failure                                                 |\n"
	"    |                  | Memory system: Failure - Detected 2 volatile            |\n"
	"    |                  | double-bit ECC error(s) in GPU 2.                       |\n"
	"    +------------------+---------------------------------------------------------+\n"
	"    | Switch ID: 0     | Warning                                                 |\n"
	"    |                  | NVSwitch Fatal system: Warning - Detected fatal errors  |\n"
	"    |                  | on NvSwitch 0 link 3                                    |\n"
	"    +------------------+---------------------------------------------------------+\n";

/* DCGM 3/4's tree (dcgmi/Health.cpp), a real L4's power warning and two
 * more incidents on another GPU (one system, then another). */
static const char health_tree[] =
	"$ dcgmi health -c\n"
	"+---------------------------+----------------------------------------------------------+\n"
	"| Health Monitor Report                                                                |\n"
	"+===========================+==========================================================+\n"
	"| Overall Health            | Failure                                                  |\n"
	"| GPU                       |                                                          |\n"
	"| -> 0                      | Warning                                                  |\n"
	"|    -> Errors              |                                                          |\n"
	"|       -> Power system     | Warning                                                  |\n"
	"|                           | Detected clocks event due to power violation in GPU 0.   |\n"
	"|                           | Monitor the power conditions. This GPU can still         |\n"
	"|                           | perform workload.                                        |\n"
	"| -> 3                      | Failure                                                  |\n"
	"|    -> Errors              |                                                          |\n"
	"|       -> Memory system    | Failure                                                  |\n"
	"|                           | GPU 3 had memory errors and row remappings are pending   |\n"
	"|       -> NVLINK system    | Warning                                                  |\n"
	"|                           | GPU 3's NvLink link 5 is currently down                  |\n"
	"+---------------------------+----------------------------------------------------------+\n";

static void test_health_reports(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_job_log *r;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_dcgmi, health_old, &s, &err), 0);
	assert_non_null(r = jl_kind(&s, "dcgmi_health_pcie", 0));
	assert_int_equal(r->gpu.v, 0);
	assert_int_equal(r->value.v, 1);                /* Warning */
	assert_string_equal(r->what, "PCIe system");
	assert_string_equal(r->text, "Detected more than 8 PCIe replays per minute for GPU 0: 13"); /* wrapped lines joined */
	assert_int_equal(r->line.v, 7);
	assert_non_null(r = jl_kind(&s, "dcgmi_health", 0)); /* a corrupt InfoROM: no cause of the catalogue */
	assert_int_equal(r->gpu.v, 1);
	assert_non_null(r = jl_kind(&s, "dcgmi_health_ecc", 0));
	assert_int_equal(r->gpu.v, 2);
	assert_int_equal(r->value.v, 2);                /* Failure */
	assert_non_null(r = jl_kind(&s, "dcgmi_health", 1)); /* the switch's */
	assert_false(r->gpu.ok);
	assert_null(jl_kind(&s, "dcgmi_health", 2));
	/* a health report's "Failure" is no failed diag test */
	GD_VEC_EACH(s.job_log, const struct gd_job_log, o)
		assert_null(strstr(o->kind, "dcgmi_fail"));
	gd_snapshot_clear(&s);

	assert_int_equal(parse_lit(gd_parse_dcgmi, health_tree, &s, &err), 0);
	assert_non_null(r = jl_kind(&s, "dcgmi_health_power", 0));
	assert_int_equal(r->gpu.v, 0);
	assert_string_equal(r->text, "Detected clocks event due to power violation in GPU 0. Monitor the power "
				     "conditions. This GPU can still perform workload.");
	assert_int_equal(r->line.v, 10);
	assert_non_null(r = jl_kind(&s, "dcgmi_health_remap_pending", 0));
	assert_int_equal(r->gpu.v, 3);
	assert_int_equal(r->value.v, 2);
	assert_non_null(r = jl_kind(&s, "dcgmi_health_nvlink", 0));
	assert_int_equal(r->gpu.v, 3);
	assert_string_equal(r->what, "NVLINK system");
	assert_int_equal(s.job_log.n, 3);
	gd_snapshot_clear(&s);

	/* healthy: nothing, and no error (the report was read) */
	assert_int_equal(parse_lit(gd_parse_dcgmi,
				   "+---------------------------+----------------------------+\n"
				   "| Health Monitor Report                                  |\n"
				   "+===========================+============================+\n"
				   "| Overall Health            | Healthy                    |\n"
				   "+---------------------------+----------------------------+\n",
				   &s, &err),
			 0);
	assert_int_equal(s.job_log.n, 0);
	gd_snapshot_clear(&s);

	/* cut short inside an incident's message: what was read is kept */
	assert_int_equal(parse_lit(gd_parse_dcgmi,
				   "Health Monitor Report\n"
				   "| GPU ID: 4        | Warning                              |\n"
				   "|                  | Thermal system: Warning - Detected   |\n"
				   "|                  | clocks event due to thermal violat",
				   &s, &err),
			 0);
	assert_non_null(r = jl_kind(&s, "dcgmi_health", 0)); /* the cut word does not name the cause */
	assert_int_equal(r->gpu.v, 4);
	gd_snapshot_release(&s);
}

/* nv-hostengine's log line of an incident (real: NVIDIA/DCGM#270, in
 * backticks): the GPU its message names; lines that only look like one. */
static void test_hostengine_line(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_job_log *r;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_dcgmi,
				   "This is dcgm error message:\n"
				   "`ERROR [1514002:1514004] [[Health]] Detected a WARNING in health system Thermal: 'Detected "
				   "clocks event due to thermal violation in GPU 2. Verify that the cooling on this machine "
				   "is functional.`\n"
				   "ERROR [1:2] [[Health]] Detected a FAILURE in health system Memory: 'Detected 1 volatile "
				   "double-bit ECC error(s) in GPU 5.'\n"
				   /* no system's colon; the marker after the words: neither is read */
				   "ERROR [1:2] [[Health]] Detected a WARNING in health system PCIe\n"
				   "x in health system y: 'z' [[Health]] Detected a \n",
				   &s, &err),
			 0);
	assert_int_equal(s.job_log.n, 2);
	assert_non_null(r = jl_kind(&s, "dcgmi_health_thermal", 0));
	assert_int_equal(r->gpu.v, 2);
	assert_int_equal(r->value.v, 1);
	assert_string_equal(r->what, "Thermal");
	assert_int_equal(r->line.v, 2);
	assert_non_null(strstr(r->text, "is functional."));
	assert_null(strchr(r->text, '`'));
	assert_non_null(r = jl_kind(&s, "dcgmi_health_ecc", 0));
	assert_int_equal(r->gpu.v, 5);
	assert_int_equal(r->value.v, 2);
	gd_snapshot_release(&s);
}

/* DCGM 4 names its tests in lower case ("memory", "targeted_stress");
 * the deployment tests that find the libraries unusable are "software". */
static void test_diag_v4_and_deployment(void **state)
{
	const char *diag =
		"+---------------------------+------------------------------------------------+\n"
		"| Diagnostic                | Result                                         |\n"
		"+===========================+================================================+\n"
		"|-----  Deployment  --------+------------------------------------------------|\n"
		"| CUDA Main Library         | Fail - All                                     |\n"
		"| Warning                   | GPU 1 Cannot open library libcuda.so.1: 'libc  |\n"
		"|                           | uda.so.1: cannot open shared object file'      |\n"
		"| Denylist                  | Fail - All                                     |\n"
		"+-----  Hardware  ----------+------------------------------------------------+\n"
		"| memory                    | Fail                                           |\n"
		"|                           | GPU0: Fail                                     |\n"
		"|                           | GPU1: Pass                                     |\n"
		"| targeted_stress           | Fail                                           |\n"
		"|                           | GPU0: Pass                                     |\n"
		"|                           | GPU1: Fail                                     |\n"
		"| Warning                   | GPU 0 a note on the GPU that passed            |\n"
		"+---------------------------+------------------------------------------------+\n";
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_job_log *r;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_dcgmi, diag, &s, &err), 0);
	assert_non_null(r = jl_kind(&s, "dcgmi_fail_software", 0));
	assert_int_equal(r->gpu.v, 1);
	assert_string_equal(r->what, "CUDA Main Library");
	assert_non_null(r = jl_kind(&s, "dcgmi_fail", 0)); /* Denylist: no cause of the catalogue */
	assert_string_equal(r->what, "Denylist");
	assert_non_null(r = jl_kind(&s, "dcgmi_fail_memory", 0));
	assert_int_equal(r->gpu.v, 0);
	assert_null(jl_kind(&s, "dcgmi_fail_memory", 1));
	assert_non_null(r = jl_kind(&s, "dcgmi_fail_compute", 0));
	assert_int_equal(r->gpu.v, 1);
	assert_null(jl_kind(&s, "dcgmi_fail_compute", 1)); /* GPU 0 passed: its Warning is no failure */
	gd_snapshot_release(&s);
}

static const struct gd_finding *fnd(const struct gd_findings *out, size_t i)
{
	assert_true(out->items.n > i);
	return GD_VEC_AT(out->items, struct gd_finding, i);
}

/* The rules: each incident on the rule of its cause, on the GPU it names,
 * a Failure critical; the uncatalogued incidents on none. */
static void test_health_rules(void **state)
{
	static const struct {
		const char *id, *subject;
		enum gd_severity sev;
	} want[] = {
		{ "gpu.pcie_replays", "gpu0", GD_SEV_WARNING },
		{ "gpu.ecc_uncorrectable", "gpu2", GD_SEV_CRITICAL },
	};
	static const char *const silent[] = { "gpu.thermal_throttle", "gpu.power_capped", "gpu.row_remap_failed",
					      "gpu.nvlink_errors", "probe.gpu_memory_errors" };
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_findings out;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_dcgmi, health_old, &s, &err), 0);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		gd_findings_init(&out);
		assert_int_equal(run_rule2(want[i].id, &s, NULL, NULL, &out), GD_VERDICT_FIRED);
		assert_int_equal(out.items.n, 1);
		assert_string_equal(fnd(&out, 0)->subject, want[i].subject);
		assert_int_equal(fnd(&out, 0)->severity, want[i].sev);
		assert_non_null(strstr(fnd(&out, 0)->summary, "dcgmi health"));
		gd_findings_release(&out);
	}
	for (size_t i = 0; i < sizeof silent / sizeof silent[0]; i++) {
		gd_findings_init(&out);
		assert_int_not_equal(run_rule2(silent[i], &s, NULL, NULL, &out), GD_VERDICT_FIRED);
		assert_int_equal(out.items.n, 0);
		gd_findings_release(&out);
	}
	gd_snapshot_clear(&s);

	assert_int_equal(parse_lit(gd_parse_dcgmi, health_tree, &s, &err), 0);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("gpu.power_capped", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_string_equal(fnd(&out, 0)->subject, "gpu0");
	assert_int_equal(fnd(&out, 0)->severity, GD_SEV_WARNING);
	gd_findings_release(&out);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("gpu.row_remap_pending", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_string_equal(fnd(&out, 0)->subject, "gpu3");
	assert_int_equal(fnd(&out, 0)->severity, GD_SEV_CRITICAL);
	gd_findings_release(&out);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("gpu.nvlink_errors", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_string_equal(fnd(&out, 0)->subject, "gpu3");
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

/* A deployment test that found the libraries unusable: driver.nvml_unavailable. */
static void test_software_rule(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_findings out;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_dcgmi,
				   "| Diagnostic                | Result                                         |\n"
				   "|-----  Deployment  --------+------------------------------------------------|\n"
				   "| NVML Library              | Fail - All                                     |\n"
				   "| Warning                   | GPU 0 Cannot get pointer to nvmlInit_v2 from l |\n"
				   "|                           | ibnvidia-ml.so                                 |\n",
				   &s, &err),
			 0);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("driver.nvml_unavailable", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_string_equal(fnd(&out, 0)->subject, "gpu0");
	assert_int_equal(fnd(&out, 0)->severity, GD_SEV_WARNING);
	assert_non_null(strstr(fnd(&out, 0)->summary, "NVML Library"));
	assert_non_null(strstr(fnd(&out, 0)->summary, "libnvidia-ml.so"));
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_health_reports),
		cmocka_unit_test(test_hostengine_line),
		cmocka_unit_test(test_diag_v4_and_deployment),
		cmocka_unit_test(test_health_rules),
		cmocka_unit_test(test_software_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
