/* PLACEHOLDER: to be implemented. */
#include "rules/rules.h"

enum gd_verdict gd_rule_io_saturated(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

enum gd_verdict gd_rule_io_small_reads(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

enum gd_verdict gd_rule_io_rotational(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

enum gd_verdict gd_rule_io_network_fs(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

