/*
 * registry.c - every rule, as a row.  Ids are a contract (JSON, Prometheus
 * labels, alert rules, tests): they are CAUSES.md's and are never renamed.
 * Remedies are the default text; a rule may make it more specific.
 */
#include "rules/rules.h"

#include <string.h>

#define W true   /* needs a window of two or more snapshots */
#define S false  /* can judge a single snapshot */

const struct gd_rule gd_rules[] = {
	{ "cpu.saturated", GD_SEV_WARNING, "The CPUs are saturated: they cannot feed the GPUs.",
	  "Cut CPU work per sample (decode and augment on the GPU, e.g. NVIDIA DALI), or move the job to a host with more cores.",
	  W, gd_rule_cpu_saturated },
	{ "cpu.background_hogs", GD_SEV_WARNING, "Processes outside every GPU job take CPU or I/O.",
	  "Stop or reschedule these background tasks while jobs run (package updates, indexers, backups, cloud sync).",
	  W, gd_rule_cpu_background_hogs },
	{ "cpu.governor_powersave", GD_SEV_INFO, "The CPU frequency governor saves power at the cost of speed.",
	  "Set the performance governor: cpupower frequency-set -g performance (or tuned-adm profile throughput-performance).",
	  S, gd_rule_cpu_governor_powersave },
	{ "cpu.cgroup_throttled", GD_SEV_WARNING, "The job's cgroup CPU quota throttles it.",
	  "Raise the container's CPU limit (docker --cpus, Kubernetes resources.limits.cpu) or lower its thread count to fit.",
	  W, gd_rule_cpu_cgroup_throttled },
	{ "cpu.irq_imbalance", GD_SEV_WARNING, "A NIC's interrupts pile up on one CPU.",
	  "Spread the NIC's queues over CPUs: run irqbalance, raise the RSS queue count (ethtool -L), set IRQ affinity.",
	  W, gd_rule_cpu_irq_imbalance },
	{ "mem.pressure", GD_SEV_WARNING, "Host memory is nearly exhausted.",
	  "Use fewer DataLoader workers or a smaller prefetch, cache less in workers, or add RAM.",
	  S, gd_rule_mem_pressure },
	{ "mem.swapping", GD_SEV_WARNING, "The host swaps pages in and out.",
	  "Stop the swapping: add RAM, cut per-worker caches, or disable swap on training nodes.",
	  W, gd_rule_mem_swapping },
	{ "mem.shm_small", GD_SEV_WARNING, "/dev/shm is too small or nearly full for loader workers.",
	  "PyTorch loader workers pass batches through /dev/shm: run the container with a larger --shm-size (e.g. --shm-size=16g, or a memory-backed emptyDir on /dev/shm in Kubernetes).",
	  S, gd_rule_mem_shm_small },
	{ "mem.cgroup_near_limit", GD_SEV_WARNING, "The job's cgroup is near its memory limit.",
	  "Raise the container's memory limit or cut the job's memory use (fewer workers, smaller prefetch).",
	  S, gd_rule_mem_cgroup_near_limit },
	{ "io.saturated", GD_SEV_WARNING, "A disk is saturated.",
	  "The disk is the bottleneck: see the more specific storage findings; spread data over more devices or cache it in RAM.",
	  W, gd_rule_io_saturated },
	{ "io.small_reads", GD_SEV_WARNING, "Many small reads: a data set of many small files.",
	  "Pack the data set into large files (WebDataset tar shards, LMDB, TFRecord, HDF5) and read them sequentially.",
	  W, gd_rule_io_small_reads },
	{ "io.rotational", GD_SEV_WARNING, "A busy disk is rotational (HDD).",
	  "Move hot data and checkpoints to local NVMe SSD.",
	  W, gd_rule_io_rotational },
	{ "io.network_fs", GD_SEV_WARNING, "A GPU job reads from a network or FUSE filesystem.",
	  "Stage the data set to local SSD before training (local SSD > Ceph > other network storage).",
	  W, gd_rule_io_network_fs },
	{ "io.checkpoint_stall", GD_SEV_WARNING, "Every GPU waits while a burst of writes goes to disk (a synchronous checkpoint).",
	  "Write checkpoints asynchronously (e.g. torch.distributed.checkpoint async_save, a background thread) or to faster local NVMe storage, and checkpoint less often.",
	  W, gd_rule_io_checkpoint_stall },
	{ "net.errors", GD_SEV_WARNING, "An interface counts errors or drops.",
	  "Check cables, optics and the switch port; for drops, raise the ring buffers (ethtool -G).",
	  W, gd_rule_net_errors },
	{ "net.retransmits", GD_SEV_WARNING, "TCP retransmits segments: the network loses packets.",
	  "Check the path for loss and congestion (cables, switch ports, MTU mismatches); see net.errors for the interface.",
	  W, gd_rule_net_retransmits },
	{ "net.saturated", GD_SEV_WARNING, "A network link runs at its capacity.",
	  "The link is full: add bandwidth (faster or bonded links, RDMA), compress gradients, or cut traffic.",
	  W, gd_rule_net_saturated },
	{ "net.link_degraded", GD_SEV_WARNING, "A network link runs below the speed it supports, or is down.",
	  "Renegotiate the link: check the cable, the switch port and auto-negotiation (ethtool IFACE).",
	  S, gd_rule_net_link_degraded },
	{ "net.rdma_down", GD_SEV_WARNING, "An RDMA port is down, degraded or counting errors.",
	  "Fix RDMA (ibstat, the cable and the switch port): without it the job falls back to TCP or stops.",
	  S, gd_rule_net_rdma_down },
	{ "host.cpu_thermal_throttle", GD_SEV_WARNING, "The CPUs throttle because they overheat.",
	  "Check the host's cooling: fans, heat sinks, air flow and the room temperature.",
	  W, gd_rule_host_cpu_thermal_throttle },
	{ "host.inlet_temp", GD_SEV_WARNING, "The inlet air is outside the recommended range.",
	  "Fix the room's cooling (cold-aisle containment, blanking panels) to keep inlet air at 16-25 °C.",
	  S, gd_rule_host_inlet_temp },
};
const size_t gd_nrules = sizeof(gd_rules) / sizeof(gd_rules[0]);
