/*
 * snapshot.c - field tables built from the X-macro lists in snapshot.h, and
 * the snapshot's lifecycle.
 */
#include "model/snapshot.h"

#include <errno.h>
#include <string.h>

#define GD_FT_OF_U64 GD_FT_U64
#define GD_FT_OF_F64 GD_FT_F64
#define GD_FT_OF_S16 GD_FT_STR
#define GD_FT_OF_S32 GD_FT_STR
#define GD_FT_OF_S64 GD_FT_STR
#define GD_FT_OF_S256 GD_FT_STR
#define GD_FK_OF_GAUGE GD_FK_GAUGE
#define GD_FK_OF_COUNTER GD_FK_COUNTER
#define GD_FK_OF_LABEL GD_FK_LABEL

#define GD_ROW(type, fname, unit, kind, help) \
	{ #fname, GD_FT_OF_##type, offsetof(GD_REC, fname), sizeof(((GD_REC *)0)->fname), unit, GD_FK_OF_##kind, help },

#define GD_TABLE(var, stype, LIST) \
	static const struct gd_field var[] = { LIST(GD_ROW) };

#define GD_REC struct gd_host
GD_TABLE(host_fields, struct gd_host, GD_HOST_FIELDS)
#undef GD_REC
#define GD_REC struct gd_cpu
GD_TABLE(cpu_fields, struct gd_cpu, GD_CPU_FIELDS)
#undef GD_REC
#define GD_REC struct gd_cpus
GD_TABLE(cpus_fields, struct gd_cpus, GD_CPUS_FIELDS)
#undef GD_REC
#define GD_REC struct gd_psi
GD_TABLE(psi_fields, struct gd_psi, GD_PSI_FIELDS)
#undef GD_REC
#define GD_REC struct gd_mem
GD_TABLE(mem_fields, struct gd_mem, GD_MEM_FIELDS)
#undef GD_REC
#define GD_REC struct gd_tcp
GD_TABLE(tcp_fields, struct gd_tcp, GD_TCP_FIELDS)
#undef GD_REC
#define GD_REC struct gd_disk
GD_TABLE(disk_fields, struct gd_disk, GD_DISK_FIELDS)
#undef GD_REC
#define GD_REC struct gd_mount
GD_TABLE(mount_fields, struct gd_mount, GD_MOUNT_FIELDS)
#undef GD_REC
#define GD_REC struct gd_netif
GD_TABLE(netif_fields, struct gd_netif, GD_NETIF_FIELDS)
#undef GD_REC
#define GD_REC struct gd_nic_irq
GD_TABLE(nic_irq_fields, struct gd_nic_irq, GD_NIC_IRQ_FIELDS)
#undef GD_REC
#define GD_REC struct gd_ib_port
GD_TABLE(ib_port_fields, struct gd_ib_port, GD_IB_PORT_FIELDS)
#undef GD_REC
#define GD_REC struct gd_sensor
GD_TABLE(sensor_fields, struct gd_sensor, GD_SENSOR_FIELDS)
#undef GD_REC
#define GD_REC struct gd_shm
GD_TABLE(shm_fields, struct gd_shm, GD_SHM_FIELDS)
#undef GD_REC
#define GD_REC struct gd_cgroup
GD_TABLE(cgroup_fields, struct gd_cgroup, GD_CGROUP_FIELDS)
#undef GD_REC
#define GD_REC struct gd_proc
GD_TABLE(proc_fields, struct gd_proc, GD_PROC_FIELDS)
#undef GD_REC
#define GD_REC struct gd_thread
GD_TABLE(thread_fields, struct gd_thread, GD_THREAD_FIELDS)
#undef GD_REC
#define GD_REC struct gd_job_thread
GD_TABLE(job_thread_fields, struct gd_job_thread, GD_JOB_THREAD_FIELDS)
#undef GD_REC
#define GD_REC struct gd_job_socket
GD_TABLE(job_socket_fields, struct gd_job_socket, GD_JOB_SOCKET_FIELDS)
#undef GD_REC
#define GD_REC struct gd_job_rank
GD_TABLE(job_rank_fields, struct gd_job_rank, GD_JOB_RANK_FIELDS)
#undef GD_REC
#define GD_REC struct gd_klog_event
GD_TABLE(klog_fields, struct gd_klog_event, GD_KLOG_FIELDS)
#undef GD_REC
#define GD_REC struct gd_klog_info
GD_TABLE(klog_info_fields, struct gd_klog_info, GD_KLOG_INFO_FIELDS)
#undef GD_REC
#define GD_REC struct gd_edac
GD_TABLE(edac_fields, struct gd_edac, GD_EDAC_FIELDS)
#undef GD_REC
#define GD_REC struct gd_source
GD_TABLE(source_fields, struct gd_source, GD_SOURCE_FIELDS)
#undef GD_REC
#define GD_REC struct gd_nvml_info
GD_TABLE(nvml_fields, struct gd_nvml_info, GD_NVML_FIELDS)
#undef GD_REC
#define GD_REC struct gd_gpu
GD_TABLE(gpu_fields, struct gd_gpu, GD_GPU_FIELDS)
#undef GD_REC
#define GD_REC struct gd_gpu_proc
GD_TABLE(gpu_proc_fields, struct gd_gpu_proc, GD_GPU_PROC_FIELDS)
#undef GD_REC
#define GD_REC struct gd_gpu_sample
GD_TABLE(gpu_sample_fields, struct gd_gpu_sample, GD_GPU_SAMPLE_FIELDS)
#undef GD_REC
#define GD_REC struct gd_gpu_activity
GD_TABLE(gpu_activity_fields, struct gd_gpu_activity, GD_GPU_ACTIVITY_FIELDS)
#undef GD_REC
#define GD_REC struct gd_nvml_error
GD_TABLE(nvml_error_fields, struct gd_nvml_error, GD_NVML_ERROR_FIELDS)
#undef GD_REC
#define GD_REC struct gd_pci_gpu
GD_TABLE(pci_gpu_fields, struct gd_pci_gpu, GD_PCI_GPU_FIELDS)
#undef GD_REC
#define GD_REC struct gd_pci_nic
GD_TABLE(pci_nic_fields, struct gd_pci_nic, GD_PCI_NIC_FIELDS)
#undef GD_REC
#define GD_REC struct gd_pci_bridge
GD_TABLE(pci_bridge_fields, struct gd_pci_bridge, GD_PCI_BRIDGE_FIELDS)
#undef GD_REC
#define GD_REC struct gd_pci_iommu
GD_TABLE(pci_iommu_fields, struct gd_pci_iommu, GD_PCI_IOMMU_FIELDS)
#undef GD_REC
#define GD_REC struct gd_pci_topo
GD_TABLE(pci_topo_fields, struct gd_pci_topo, GD_PCI_TOPO_FIELDS)
#undef GD_REC
#define GD_REC struct gd_driver
GD_TABLE(driver_fields, struct gd_driver, GD_DRIVER_FIELDS)
#undef GD_REC
#define GD_REC struct gd_fabric
GD_TABLE(fabric_fields, struct gd_fabric, GD_FABRIC_FIELDS)
#undef GD_REC
#define GD_REC struct gd_job_log
GD_TABLE(job_log_fields, struct gd_job_log, GD_JOB_LOG_FIELDS)
#undef GD_REC
#define GD_REC struct gd_probe_row
GD_TABLE(probe_fields, struct gd_probe_row, GD_PROBE_FIELDS)
#undef GD_REC

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define ONE(key, type, member, table) \
	{ key, sizeof(type), table, N(table), offsetof(struct gd_snapshot, member), false }
#define MANY(key, type, member, table) \
	{ key, sizeof(type), table, N(table), offsetof(struct gd_snapshot, member), true }

const struct gd_record_desc gd_sections[] = {
	ONE("host", struct gd_host, host, host_fields),
	ONE("cpu", struct gd_cpu, cpu, cpu_fields),
	ONE("psi", struct gd_psi, psi, psi_fields),
	ONE("mem", struct gd_mem, mem, mem_fields),
	ONE("tcp", struct gd_tcp, tcp, tcp_fields),
	MANY("cpus", struct gd_cpus, cpus, cpus_fields),
	MANY("disks", struct gd_disk, disks, disk_fields),
	MANY("mounts", struct gd_mount, mounts, mount_fields),
	MANY("netifs", struct gd_netif, netifs, netif_fields),
	MANY("nic_irqs", struct gd_nic_irq, nic_irqs, nic_irq_fields),
	MANY("ib_ports", struct gd_ib_port, ib_ports, ib_port_fields),
	MANY("sensors", struct gd_sensor, sensors, sensor_fields),
	MANY("shm", struct gd_shm, shm, shm_fields),
	MANY("cgroups", struct gd_cgroup, cgroups, cgroup_fields),
	MANY("procs", struct gd_proc, procs, proc_fields),
	MANY("threads", struct gd_thread, threads, thread_fields),
	MANY("job_threads", struct gd_job_thread, job_threads, job_thread_fields),
	MANY("job_sockets", struct gd_job_socket, job_sockets, job_socket_fields),
	MANY("job_ranks", struct gd_job_rank, job_ranks, job_rank_fields),
	ONE("klog_info", struct gd_klog_info, klog_info, klog_info_fields),
	MANY("klog", struct gd_klog_event, klog, klog_fields),
	MANY("edac", struct gd_edac, edac, edac_fields),
	MANY("sources", struct gd_source, sources, source_fields),
	ONE("nvml", struct gd_nvml_info, nvml, nvml_fields),
	MANY("gpus", struct gd_gpu, gpus, gpu_fields),
	MANY("gpu_procs", struct gd_gpu_proc, gpu_procs, gpu_proc_fields),
	MANY("gpu_samples", struct gd_gpu_sample, gpu_samples, gpu_sample_fields),
	MANY("gpu_activity", struct gd_gpu_activity, gpu_activity, gpu_activity_fields),
	MANY("nvml_errors", struct gd_nvml_error, nvml_errors, nvml_error_fields),
	MANY("pci_gpus", struct gd_pci_gpu, pci_gpus, pci_gpu_fields),
	MANY("pci_nics", struct gd_pci_nic, pci_nics, pci_nic_fields),
	MANY("pci_bridges", struct gd_pci_bridge, pci_bridges, pci_bridge_fields),
	MANY("pci_iommu", struct gd_pci_iommu, pci_iommu, pci_iommu_fields),
	MANY("pci_topo", struct gd_pci_topo, pci_topo, pci_topo_fields),
	ONE("driver", struct gd_driver, driver, driver_fields),
	ONE("fabric", struct gd_fabric, fabric, fabric_fields),
	MANY("job_log", struct gd_job_log, job_log, job_log_fields),
	MANY("probe", struct gd_probe_row, probe, probe_fields),
};
const size_t gd_nsections = N(gd_sections);

const struct gd_record_desc *gd_section_find(const char *name)
{
	for (size_t i = 0; i < gd_nsections; i++)
		if (strcmp(gd_sections[i].name, name) == 0)
			return &gd_sections[i];
	return NULL;
}

const struct gd_field *gd_field_find(const struct gd_record_desc *d, const char *name)
{
	for (size_t i = 0; i < d->nfields; i++)
		if (strcmp(d->fields[i].name, name) == 0)
			return &d->fields[i];
	return NULL;
}

void gd_snapshot_init(struct gd_snapshot *s)
{
	memset(s, 0, sizeof *s);
}

void gd_snapshot_release(struct gd_snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < gd_nsections; i++)
		if (gd_sections[i].is_array)
			gd_vec_release((struct gd_vec *)(void *)((char *)s + gd_sections[i].offset));
}

void gd_snapshot_clear(struct gd_snapshot *s)
{
	gd_snapshot_release(s);
	gd_snapshot_init(s);
}

const struct gd_proc *gd_snapshot_proc(const struct gd_snapshot *s, uint64_t pid)
{
	const struct gd_proc *procs = s->procs.items;
	size_t lo = 0, hi = s->procs.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v = procs[mid].pid.ok ? procs[mid].pid.v : 0;

		if (v == pid && procs[mid].pid.ok)
			return &procs[mid];
		if (v < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return gd_vec_find_u64(&s->procs, sizeof *procs, offsetof(struct gd_proc, pid), pid);
}

void gd_strlcpy(char *dst, const char *src, size_t dstsz)
{
	size_t n = strlen(src);

	if (n >= dstsz) {
		/* cut before a character, not inside one (a Chinese reason is
		 * three bytes a character) */
		n = dstsz - 1;
		while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

const char *gd_src_status_name(enum gd_src_status st)
{
	static const char *const names[] = { "ok", "absent", "denied", "partial", "failed" };

	return (unsigned)st < N(names) ? names[st] : "failed";
}

enum gd_src_status gd_src_status_of_errno(int neg_errno)
{
	switch (-neg_errno) {
	case 0:
		return GD_SRC_OK;
	case ENOENT:
	case ENOTDIR:
	case EOPNOTSUPP:
	case ENODEV:
	case ENXIO:
		return GD_SRC_ABSENT;
	case EACCES:
	case EPERM:
		return GD_SRC_DENIED;
	default:
		return GD_SRC_FAILED;
	}
}
