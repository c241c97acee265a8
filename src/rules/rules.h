/*
 * rules.h - the eval functions of the rules the registry lists.  One file per
 * family under src/rules/ (rule_cpu.c, rule_mem.c, rule_io.c, rule_net.c,
 * rule_host.c); each opens with the mechanism it detects and why its
 * thresholds are what they are.
 */
#ifndef GD_RULES_RULES_H
#define GD_RULES_RULES_H

#include "rules/rule.h"

#define GD_RULE_FN(name) enum gd_verdict gd_rule_##name(struct gd_rule_ctx *rc, struct gd_findings *out);

GD_RULE_FN(cpu_saturated)
GD_RULE_FN(cpu_background_hogs)
GD_RULE_FN(cpu_governor_powersave)
GD_RULE_FN(cpu_cgroup_throttled)
GD_RULE_FN(cpu_irq_imbalance)
GD_RULE_FN(mem_pressure)
GD_RULE_FN(mem_swapping)
GD_RULE_FN(mem_shm_small)
GD_RULE_FN(mem_cgroup_near_limit)
GD_RULE_FN(io_saturated)
GD_RULE_FN(io_small_reads)
GD_RULE_FN(io_rotational)
GD_RULE_FN(io_network_fs)
GD_RULE_FN(io_checkpoint_stall)
GD_RULE_FN(net_errors)
GD_RULE_FN(net_retransmits)
GD_RULE_FN(net_saturated)
GD_RULE_FN(net_link_degraded)
GD_RULE_FN(net_rdma_down)
GD_RULE_FN(host_cpu_thermal_throttle)
GD_RULE_FN(host_inlet_temp)

#endif
