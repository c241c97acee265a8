/*
 * rule_parts.c - rules whose evidence comes from two sources.
 *
 * gpu.lost, gpu.init_failed, gpu.reset_required, gpu.pcie_link_degraded and
 * gpu.pcie_replays are each seen by NVML and sysfs (a GPU_IS_LOST answer, a
 * recovery action, a link below its maximum while busy, a replay counter)
 * and by the kernel log (Xid 79, RmInitAdapter failed, Xid 154, the boot
 * line "limited by … link", AER reports).  Each half is its own function,
 * tested on its own; the rule runs both.  Either half firing fires the rule;
 * either half able to judge makes it clear; only when neither has its
 * evidence is the rule not evaluated, with both reasons.
 */
#include "rules/rules.h"

#include <stdio.h>
#include <string.h>

#include "core/i18n.h"

enum gd_verdict gd_rule_parts(struct gd_rule_ctx *rc, struct gd_findings *out, gd_rule_fn a, gd_rule_fn b)
{
	char why_a[sizeof rc->why], why_b[sizeof rc->why];
	enum gd_verdict va, vb;

	rc->why[0] = '\0';
	va = a(rc, out);
	memcpy(why_a, rc->why, sizeof why_a);
	rc->why[0] = '\0';
	vb = b(rc, out);
	memcpy(why_b, rc->why, sizeof why_b);
	if (va == GD_VERDICT_FIRED || vb == GD_VERDICT_FIRED)
		return GD_VERDICT_FIRED;
	if (va == GD_VERDICT_CLEAR || vb == GD_VERDICT_CLEAR)
		return GD_VERDICT_CLEAR;
	/* TRANSLATORS: joins the two halves' reasons (NVML or sysfs; the kernel log) */
	return gd_rule_unknown(rc, _("%s; %s"), why_a, why_b);
}

#define GD_TWO_PART_RULE(name) \
	enum gd_verdict gd_rule_##name(struct gd_rule_ctx *rc, struct gd_findings *out) \
	{ \
		return gd_rule_parts(rc, out, gd_rule_##name##_nvml, gd_rule_##name##_klog); \
	}

GD_TWO_PART_RULE(gpu_lost)
GD_TWO_PART_RULE(gpu_init_failed)
GD_TWO_PART_RULE(gpu_reset_required)
GD_TWO_PART_RULE(gpu_pcie_link_degraded)
GD_TWO_PART_RULE(gpu_pcie_replays)
