/*
 * rules.h - the eval functions of the rules the registry lists.  One file per
 * family under src/rules/ (rule_cpu.c, rule_mem.c, rule_io.c, rule_net.c,
 * rule_host.c), or per group of a large family (rule_cpu_percpu.c,
 * rule_gpu_link.c); each opens with the mechanism it detects and why its
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
GD_RULE_FN(gpu_thermal_throttle)
GD_RULE_FN(gpu_power_brake)
GD_RULE_FN(gpu_hw_slowdown)
GD_RULE_FN(gpu_power_capped)
GD_RULE_FN(gpu_clocks_held_low)
GD_RULE_FN(gpu_pcie_link_degraded)
GD_RULE_FN(gpu_pcie_replays)
GD_RULE_FN(gpu_lost)
GD_RULE_FN(gpu_monitor_stuck)
GD_RULE_FN(gpu_reset_required)
GD_RULE_FN(gpu_ecc_uncorrectable)
GD_RULE_FN(gpu_ecc_correctable_rate)
GD_RULE_FN(gpu_row_remap_pending)
GD_RULE_FN(gpu_row_remap_failed)
GD_RULE_FN(gpu_memory_full)
GD_RULE_FN(gpu_memory_oversubscribed)
GD_RULE_FN(gpu_nvlink_errors)
GD_RULE_FN(gpu_persistence_off)
GD_RULE_FN(driver_version_mismatch)
GD_RULE_FN(driver_nvml_unavailable)

GD_RULE_FN(gpu_missing)
GD_RULE_FN(gpu_init_failed)
GD_RULE_FN(driver_not_loaded)
GD_RULE_FN(driver_cuda_too_new)
GD_RULE_FN(driver_cuda_stub)
GD_RULE_FN(gpu_shared_by_processes)
GD_RULE_FN(gpu_saturated)
GD_RULE_FN(gpu_idle_while_job_runs)
GD_RULE_FN(gpu_straggler)
GD_RULE_FN(probe_gpu_compute_slow)
GD_RULE_FN(probe_gpu_compute_mismatch)
GD_RULE_FN(probe_gpu_hung)
GD_RULE_FN(probe_gpu_memory_errors)
GD_RULE_FN(probe_gpu_mem_bandwidth_low)
GD_RULE_FN(probe_pcie_bandwidth_low)
GD_RULE_FN(probe_p2p_bandwidth_low)
GD_RULE_FN(cpu_input_bound)
GD_RULE_FN(cpu_too_many_workers)
GD_RULE_FN(cpu_numa_far_from_gpu)
GD_RULE_FN(net_gpu_nic_far)
GD_RULE_FN(gpu_p2p_acs_redirect)   /* rule_gpu_p2p.c */
GD_RULE_FN(gpu_xid)
GD_RULE_FN(mem_oom_kill)
GD_RULE_FN(host_memory_errors)
GD_RULE_FN(host_hung_tasks)
GD_RULE_FN(gpu_fabric_not_ready)   /* rule_fabric.c */
GD_RULE_FN(gpu_nvswitch_errors)    /* rule_fabric.c */

/* What the job's own log proves (rule_job.c): the new causes, and the
 * catalogued rules run with the log's messages added to their verdict. */
GD_RULE_FN(job_host_bound)          /* rule_job_threads.c */
GD_RULE_FN(job_waiting_for_peers)   /* rule_job_threads.c */
GD_RULE_FN(gpu_transfer_serialized) /* rule_gpu_transfer.c */
GD_RULE_FN(net_remote_data_latency) /* rule_job_net.c */
GD_RULE_FN(job_app_fault)
GD_RULE_FN(job_collective_timeout)
GD_RULE_FN(job_rank_stuck)          /* rule_job_ranks.c */
GD_RULE_FN(job_collective_mismatch) /* rule_job_ranks.c */
GD_RULE_FN(job_loader_worker_killed)
GD_RULE_FN(net_rdma_unused)
GD_RULE_FN(job_net_rdma_down)       /* rule_job_rdma.c */
GD_RULE_FN(job_mem_oom_kill)        /* rule_job_exit.c */
GD_RULE_FN(job_gpu_ecc_uncorrectable)
GD_RULE_FN(job_gpu_memory_full)
GD_RULE_FN(job_mem_shm_small)
GD_RULE_FN(job_driver_cuda_too_new)
GD_RULE_FN(job_gpu_shared_by_processes)
GD_RULE_FN(job_driver_nvml_unavailable)
GD_RULE_FN(job_gpu_nvlink_errors)
GD_RULE_FN(job_gpu_persistence_off)
GD_RULE_FN(job_gpu_xid)
GD_RULE_FN(job_probe_gpu_memory_errors)
GD_RULE_FN(job_probe_gpu_mem_bandwidth_low)
GD_RULE_FN(job_probe_pcie_bandwidth_low)
GD_RULE_FN(job_probe_gpu_compute_slow)
GD_RULE_FN(job_probe_gpu_compute_mismatch)
GD_RULE_FN(job_gpu_row_remap_pending)
/* ... and what dcgmi's output proves (rule_dcgmi.c) */
GD_RULE_FN(job_gpu_row_remap_failed)
GD_RULE_FN(job_gpu_pcie_replays)
GD_RULE_FN(job_gpu_thermal_throttle)
GD_RULE_FN(job_gpu_power_capped)

/* The rules whose evidence comes from two sources run both halves and
 * combine them (rule_parts.c): the NVML/sysfs half and the kernel-log half. */
#define GD_RULE_PART_FNS(name) \
	enum gd_verdict gd_rule_##name##_nvml(struct gd_rule_ctx *rc, struct gd_findings *out); \
	enum gd_verdict gd_rule_##name##_klog(struct gd_rule_ctx *rc, struct gd_findings *out);

GD_RULE_PART_FNS(gpu_lost)
GD_RULE_PART_FNS(gpu_init_failed)
GD_RULE_PART_FNS(gpu_reset_required)
GD_RULE_PART_FNS(gpu_pcie_link_degraded)
GD_RULE_PART_FNS(gpu_pcie_replays)

/* Runs part a then part b: fired when either fired, clear when either could
 * judge, unknown (both reasons) only when neither could. */
enum gd_verdict gd_rule_parts(struct gd_rule_ctx *rc, struct gd_findings *out, gd_rule_fn a, gd_rule_fn b);

#endif
