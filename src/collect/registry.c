/*
 * registry.c - every collector and every parser, as rows: order matters
 * (processes need mounts for network-filesystem files; threads, dev_shm and
 * cgroups need the process list to find GPU jobs).
 */
#include "collect/collectors.h"
#include "offline/offline.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

const struct gd_collector gd_collectors[] = {
	{ "nvml", "libnvidia-ml.so.1 (NVML)", gd_collect_nvml },
	{ "gpu_activity", "NVML GPM metrics or PCIe throughput of GPUs in use, every 100 ms between snapshots", gd_collect_gpu_activity },
	{ "pci", "/sys/bus/pci/devices/* (NVIDIA GPUs, NICs)", gd_collect_pci },
	{ "pci_acs", "/sys/bus/pci/devices/*/config of the bridges above GPUs and NICs (ACS), their iommu_group", gd_collect_pci_acs },
	{ "nvidia_driver", "/proc/driver/nvidia/version", gd_collect_nvidia_driver },
	{ "host", "/proc/uptime, /proc/sys/kernel/{hostname,osrelease}", gd_collect_host },
	{ "proc_stat", "/proc/stat", gd_collect_proc_stat },
	{ "proc_loadavg", "/proc/loadavg", gd_collect_proc_loadavg },
	{ "cpu_topology", "/sys/devices/system/cpu, /sys/devices/system/node, /proc/cpuinfo", gd_collect_cpu_topology },
	{ "cpufreq", "/sys/devices/system/cpu/cpu*/{cpufreq,thermal_throttle}", gd_collect_cpufreq },
	{ "proc_pressure", "/proc/pressure/{cpu,memory,io}", gd_collect_proc_pressure },
	{ "proc_meminfo", "/proc/meminfo", gd_collect_proc_meminfo },
	{ "proc_vmstat", "/proc/vmstat", gd_collect_proc_vmstat },
	{ "proc_diskstats", "/proc/diskstats, /sys/block/*/queue/rotational", gd_collect_proc_diskstats },
	{ "proc_mounts", "/proc/self/mounts", gd_collect_proc_mounts },
	{ "proc_net_dev", "/proc/net/dev, /sys/class/net/*", gd_collect_proc_net_dev },
	{ "proc_net_snmp", "/proc/net/snmp, /proc/net/netstat", gd_collect_proc_net_snmp },
	{ "proc_interrupts", "/proc/interrupts", gd_collect_proc_interrupts },
	{ "infiniband", "/sys/class/infiniband/*/ports/*", gd_collect_infiniband },
	{ "thermal", "/sys/class/thermal, /sys/class/hwmon", gd_collect_thermal },
	{ "processes", "/proc/<pid>/{stat,status,io,cgroup,cmdline,fd,ns}", gd_collect_processes },
	{ "cuda_runtime", "/proc/<pid>/maps of GPU jobs (libcudart)", gd_collect_cuda_runtime },
	{ "threads", "/proc/<pid>/task/<tid>/stat of GPU jobs", gd_collect_threads },
	{ "job_threads", "/proc/<pid>/task/<tid>/{schedstat,syscall,wchan} of GPU jobs", gd_collect_job_threads },
	{ "job_samples", "perf_event_open task-clock samples of GPU jobs' threads, /proc/<pid>/maps", gd_collect_job_samples },
	{ "job_sockets", "NETLINK_SOCK_DIAG TCP sockets (tcp_info) held by GPU jobs, /proc/<pid>/fd", gd_collect_job_sockets },
	{ "job_ranks", "/proc/<pid>/environ of GPU job processes (a fixed list of keys), /proc/<pid>/root/etc/hostname and the service-account namespace", gd_collect_job_ranks },
	{ "dev_shm", "/dev/shm of each GPU job's mount namespace", gd_collect_dev_shm },
	{ "cgroups", "cgroup v1/v2 cpu and memory files of GPU jobs", gd_collect_cgroups },
	{ "klog", "/dev/kmsg (Xid, AER, OOM, MCE/EDAC lines inside the look-back)", gd_collect_klog },
	{ "edac", "/sys/devices/system/edac/mc/mc*/{ce,ue}_count", gd_collect_edac },
};
const size_t gd_ncollectors = N(gd_collectors);

const struct gd_parser gd_parsers[] = {
	{ "proc/uptime", gd_parse_proc_uptime },
	{ "proc/stat", gd_parse_proc_stat },
	{ "proc/loadavg", gd_parse_proc_loadavg },
	{ "proc/cpuinfo", gd_parse_proc_cpuinfo },
	{ "proc/pressure/cpu", gd_parse_proc_pressure_cpu },
	{ "proc/pressure/memory", gd_parse_proc_pressure_memory },
	{ "proc/pressure/io", gd_parse_proc_pressure_io },
	{ "proc/meminfo", gd_parse_proc_meminfo },
	{ "proc/vmstat", gd_parse_proc_vmstat },
	{ "proc/diskstats", gd_parse_proc_diskstats },
	{ "proc/mounts", gd_parse_proc_mounts },
	{ "proc/net/dev", gd_parse_proc_net_dev },
	{ "proc/net/snmp", gd_parse_proc_net_snmp },
	{ "proc/net/netstat", gd_parse_proc_net_netstat },
	{ "proc/interrupts", gd_parse_proc_interrupts },
	{ "proc/<pid>/stat", gd_parse_proc_pid_stat },
	{ "proc/<pid>/status", gd_parse_proc_pid_status },
	{ "proc/<pid>/io", gd_parse_proc_pid_io },
	{ "proc/<pid>/cgroup", gd_parse_proc_pid_cgroup },
	{ "proc/<pid>/mountinfo", gd_parse_proc_pid_mountinfo },
	{ "cgroup cpu.stat", gd_parse_cgroup_cpu_stat },
	{ "cgroup memory.events", gd_parse_cgroup_memory_events },
	{ "sys/bus/pci/devices/*/aer_dev_correctable", gd_parse_pci_aer_correctable },
	{ "sys/bus/pci/devices/*/aer_dev_nonfatal", gd_parse_pci_aer_nonfatal },
	{ "sys/bus/pci/devices/*/aer_dev_fatal", gd_parse_pci_aer_fatal },
	{ "sys/bus/pci/devices/*/current_link_speed", gd_parse_pci_link_speed },
	{ "proc/driver/nvidia/version", gd_parse_proc_driver_nvidia_version },
	{ "proc/<pid>/maps", gd_parse_proc_pid_maps },
	{ "kernel log", gd_parse_klog },
	{ "offline nvidia-smi -q", gd_parse_nvsmi_q },
	{ "offline nvidia-smi -q -x", gd_parse_nvsmi_xml },
	{ "offline nvidia-smi csv", gd_parse_nvsmi_csv },
	{ "offline nvidia-smi table", gd_parse_nvsmi_table },
	{ "offline lspci", gd_parse_lspci },
	{ "offline paste", gd_parse_offline_paste },
	{ "offline job log", gd_parse_joblog },
	{ "offline dcgmi", gd_parse_dcgmi },
	{ "proc/<pid>/task/<tid>/schedstat", gd_parse_proc_pid_task_schedstat },
	{ "proc/<pid>/task/<tid>/syscall", gd_parse_proc_pid_task_syscall },
	{ "netlink inet_diag", gd_parse_netlink_inet_diag },
};
const size_t gd_nparsers = N(gd_parsers);
