/*
 * collectors.h - the collect and parse functions of every collector, as the
 * registry (registry.c) lists them.  One file per source under src/collect/.
 */
#ifndef GD_COLLECT_COLLECTORS_H
#define GD_COLLECT_COLLECTORS_H

#include "collect/collect.h"

#define GD_COLLECTOR_FN(name) \
	enum gd_src_status gd_collect_##name(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, \
					     struct gd_err *err);
#define GD_PARSER_FN(name) int gd_parse_##name(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err);

GD_COLLECTOR_FN(nvml)            /* nvml_devices.c: NVML (libnvidia-ml.so.1) */
GD_COLLECTOR_FN(gpu_activity)    /* nvml_gpu_activity.c: sub-second SM activity and PCIe bytes */
GD_COLLECTOR_FN(host)            /* proc_uptime.c: /proc/uptime, hostname, osrelease */
GD_COLLECTOR_FN(proc_stat)       /* proc_stat.c */
GD_COLLECTOR_FN(proc_loadavg)    /* proc_loadavg.c */
GD_COLLECTOR_FN(cpu_topology)    /* sys_cpu.c: /sys/devices/system/cpu, /proc/cpuinfo */
GD_COLLECTOR_FN(cpufreq)         /* sys_cpufreq.c: cpufreq and thermal_throttle */
GD_COLLECTOR_FN(proc_pressure)   /* proc_pressure.c */
GD_COLLECTOR_FN(proc_meminfo)    /* proc_meminfo.c */
GD_COLLECTOR_FN(proc_vmstat)     /* proc_vmstat.c */
GD_COLLECTOR_FN(proc_diskstats)  /* proc_diskstats.c (+ /sys/block) */
GD_COLLECTOR_FN(proc_mounts)     /* proc_mounts.c */
GD_COLLECTOR_FN(proc_net_dev)    /* proc_net_dev.c (+ /sys/class/net) */
GD_COLLECTOR_FN(proc_net_snmp)   /* proc_net_snmp.c (+ /proc/net/netstat) */
GD_COLLECTOR_FN(proc_interrupts) /* proc_interrupts.c */
GD_COLLECTOR_FN(infiniband)      /* sys_infiniband.c */
GD_COLLECTOR_FN(thermal)         /* sys_thermal.c: thermal zones and hwmon */
GD_COLLECTOR_FN(processes)       /* proc_pid.c */
GD_COLLECTOR_FN(threads)         /* proc_pid_task.c */
GD_COLLECTOR_FN(job_threads)     /* job_threads.c: schedstat, syscall, wchan of GPU jobs' threads */
GD_COLLECTOR_FN(job_samples)     /* job_samples.c: perf task-clock samples of GPU jobs' threads */
GD_COLLECTOR_FN(job_sockets)     /* job_sockets.c: TCP connections of GPU jobs (sock_diag) */
GD_COLLECTOR_FN(job_ranks)       /* job_rank.c: who each GPU job process is (a fixed list of environ keys) */
GD_COLLECTOR_FN(dev_shm)         /* dev_shm.c */
GD_COLLECTOR_FN(cgroups)         /* cgroup.c */
GD_COLLECTOR_FN(pci)             /* sys_bus_pci.c: NVIDIA GPUs and NICs on the PCI bus */
GD_COLLECTOR_FN(pci_acs)         /* sys_bus_pci_acs.c: ACS of the bridges above them, IOMMU groups */
GD_COLLECTOR_FN(nvidia_driver)   /* nvidia_procfs.c: /proc/driver/nvidia/version */
GD_COLLECTOR_FN(cuda_runtime)    /* proc_pid_maps.c: libcudart mapped by GPU jobs */
GD_COLLECTOR_FN(klog)            /* klog.c: /dev/kmsg */
GD_COLLECTOR_FN(edac)            /* klog.c: /sys/devices/system/edac/mc */
GD_COLLECTOR_FN(fabric)          /* fabric.c: NVSwitches, nv-fabricmanager, its log */

GD_PARSER_FN(proc_uptime)
GD_PARSER_FN(proc_stat)
GD_PARSER_FN(proc_loadavg)
GD_PARSER_FN(proc_cpuinfo)
GD_PARSER_FN(proc_pressure_cpu)
GD_PARSER_FN(proc_pressure_memory)
GD_PARSER_FN(proc_pressure_io)
GD_PARSER_FN(proc_meminfo)
GD_PARSER_FN(proc_zoneinfo)      /* the zones' low watermarks into mem.low_watermark_bytes (proc_meminfo.c) */
GD_PARSER_FN(proc_vmstat)
GD_PARSER_FN(proc_diskstats)
GD_PARSER_FN(proc_mounts)
GD_PARSER_FN(proc_net_dev)
GD_PARSER_FN(proc_net_snmp)
GD_PARSER_FN(proc_net_netstat)
GD_PARSER_FN(proc_interrupts)
GD_PARSER_FN(proc_pid_stat)
GD_PARSER_FN(proc_pid_status)
GD_PARSER_FN(proc_pid_io)
GD_PARSER_FN(proc_pid_cgroup)
GD_PARSER_FN(proc_pid_mountinfo)
GD_PARSER_FN(cgroup_cpu_stat)
GD_PARSER_FN(cgroup_memory_events)
GD_PARSER_FN(pci_aer_correctable)
GD_PARSER_FN(pci_aer_nonfatal)
GD_PARSER_FN(pci_aer_fatal)
GD_PARSER_FN(pci_link_speed)
GD_PARSER_FN(proc_driver_nvidia_version)
GD_PARSER_FN(proc_pid_maps)
GD_PARSER_FN(klog)               /* kernel-log lines, any front-end (gd_klog_parse_line) */
GD_PARSER_FN(proc_pid_task_schedstat) /* job_threads.c */
GD_PARSER_FN(proc_pid_task_syscall)   /* job_threads.c */
GD_PARSER_FN(netlink_inet_diag)       /* job_sockets.c: a sock_diag dump reply */

#endif
