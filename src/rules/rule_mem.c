/* PLACEHOLDER: to be implemented. */
#include "rules/rules.h"

enum gd_verdict gd_rule_mem_pressure(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

enum gd_verdict gd_rule_mem_swapping(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

enum gd_verdict gd_rule_mem_shm_small(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

enum gd_verdict gd_rule_mem_cgroup_near_limit(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

