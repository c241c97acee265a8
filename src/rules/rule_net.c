/* PLACEHOLDER: to be implemented. */
#include "rules/rules.h"

enum gd_verdict gd_rule_net_errors(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

enum gd_verdict gd_rule_net_retransmits(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

enum gd_verdict gd_rule_net_saturated(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

enum gd_verdict gd_rule_net_link_degraded(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

enum gd_verdict gd_rule_net_rdma_down(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	(void)out;
	return gd_rule_unknown(rc, "not implemented");
}

