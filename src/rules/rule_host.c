/* PLACEHOLDER: to be implemented. */
#include "rules/rules.h"

enum gd_verdict gd_rule_host_cpu_thermal_throttle(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

enum gd_verdict gd_rule_host_inlet_temp(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

