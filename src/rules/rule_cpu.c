/* PLACEHOLDER: to be implemented. */
#include "rules/rules.h"

enum gd_verdict gd_rule_cpu_saturated(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

enum gd_verdict gd_rule_cpu_background_hogs(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

enum gd_verdict gd_rule_cpu_governor_powersave(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

enum gd_verdict gd_rule_cpu_cgroup_throttled(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

enum gd_verdict gd_rule_cpu_irq_imbalance(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

