/*
 * snapshot.h - one sample of all the evidence gpudoctor reads: plain data.
 *
 * A snapshot is filled by collectors (src/collect/), read by rules
 * (src/rules/) through a window of several snapshots, and rendered by outputs.
 * It serialises to one JSON line and loads back losslessly (snapshot_json.c).
 *
 * Every record type is declared once, as an X-macro list of its fields:
 *
 *     X(TYPE, name, unit, KIND, help)
 *
 * TYPE is U64 or F64 (a presence-carrying struct gd_u64 / gd_f64) or S16,
 * S32, S64, S256 (a char array of that size; "" means absent).  KIND is
 * GAUGE, COUNTER (monotonic since boot; rules use deltas) or LABEL (an
 * identity such as a device name).  The same list declares the C struct and
 * builds the field table (struct gd_record_desc) that drives JSON save/load
 * and, later, Prometheus and text columns: no output hand-lists fields.
 *
 * Units are in field names (_bytes, _ticks, _us, _mbps, _c for °C).  Counters
 * from /proc/stat are in USER_HZ ticks; host.clk_tck says how many a second.
 *
 * The snapshot owns every array in it; gd_snapshot_release frees them.
 */
#ifndef GD_MODEL_SNAPSHOT_H
#define GD_MODEL_SNAPSHOT_H

#include <stddef.h>

#include "model/value.h"
#include "model/vec.h"

/* The highest "version" read.  1: a snapshot in full; 2: a recording's line
 * that writes some records as references to the line before (snapshot_delta.h). */
#define GD_SNAPSHOT_VERSION 2

/* ---- host: identity and clock (/proc/uptime, uname, sysconf) ---------- */
#define GD_HOST_FIELDS(X) \
	X(S64, hostname, "", LABEL, "host name") \
	X(S64, kernel, "", LABEL, "kernel release") \
	X(F64, uptime_s, "seconds", GAUGE, "seconds since boot (/proc/uptime): the snapshot's timestamp") \
	X(F64, wall_time_s, "seconds", GAUGE, "wall-clock time of the sample, seconds since the epoch") \
	X(U64, clk_tck, "hz", GAUGE, "USER_HZ: ticks per second of /proc/stat counters") \
	X(U64, page_size_bytes, "bytes", GAUGE, "memory page size") \
	X(U64, self_pid, "", LABEL, "pid of the gpudoctor process that took the snapshot") \
	X(S16, cgroup_mode, "", LABEL, "cgroup hierarchy: v1, v2 or hybrid")

/* ---- cpu: /proc/stat totals, /proc/loadavg, topology ------------------ */
#define GD_CPU_FIELDS(X) \
	X(U64, user_ticks, "ticks", COUNTER, "all CPUs: user time (includes guest)") \
	X(U64, nice_ticks, "ticks", COUNTER, "all CPUs: niced user time") \
	X(U64, system_ticks, "ticks", COUNTER, "all CPUs: system time") \
	X(U64, idle_ticks, "ticks", COUNTER, "all CPUs: idle time") \
	X(U64, iowait_ticks, "ticks", COUNTER, "all CPUs: idle waiting for I/O") \
	X(U64, irq_ticks, "ticks", COUNTER, "all CPUs: hard interrupt time") \
	X(U64, softirq_ticks, "ticks", COUNTER, "all CPUs: soft interrupt time") \
	X(U64, steal_ticks, "ticks", COUNTER, "all CPUs: time stolen by the hypervisor") \
	X(U64, ctxt, "", COUNTER, "context switches since boot") \
	X(U64, procs_running, "", GAUGE, "runnable tasks") \
	X(U64, procs_blocked, "", GAUGE, "tasks blocked on I/O") \
	X(F64, load1, "", GAUGE, "1-minute load average") \
	X(F64, load5, "", GAUGE, "5-minute load average") \
	X(F64, load15, "", GAUGE, "15-minute load average") \
	X(U64, threads_total, "", GAUGE, "scheduling entities (loadavg)") \
	X(U64, cpus_online, "", GAUGE, "online logical CPUs") \
	X(U64, cores, "", GAUGE, "physical cores") \
	X(U64, sockets, "", GAUGE, "CPU packages") \
	X(U64, numa_nodes, "", GAUGE, "NUMA nodes") \
	X(S64, model, "", LABEL, "CPU model name")

/* ---- cpus[]: per logical CPU (/proc/stat cpuN, cpufreq, thermal_throttle) */
#define GD_CPUS_FIELDS(X) \
	X(U64, cpu, "", LABEL, "logical CPU number") \
	X(U64, user_ticks, "ticks", COUNTER, "user time") \
	X(U64, nice_ticks, "ticks", COUNTER, "niced user time") \
	X(U64, system_ticks, "ticks", COUNTER, "system time") \
	X(U64, idle_ticks, "ticks", COUNTER, "idle time") \
	X(U64, iowait_ticks, "ticks", COUNTER, "iowait time") \
	X(U64, irq_ticks, "ticks", COUNTER, "hard interrupt time") \
	X(U64, softirq_ticks, "ticks", COUNTER, "soft interrupt time") \
	X(U64, steal_ticks, "ticks", COUNTER, "stolen time") \
	X(U64, package, "", LABEL, "physical package (socket) id") \
	X(U64, numa_node, "", LABEL, "NUMA node") \
	X(S32, governor, "", LABEL, "cpufreq scaling governor") \
	X(S32, freq_driver, "", LABEL, "cpufreq scaling driver") \
	X(U64, cur_khz, "khz", GAUGE, "current frequency") \
	X(U64, max_khz, "khz", GAUGE, "maximum frequency (cpuinfo_max_freq)") \
	X(U64, core_throttle_count, "", COUNTER, "thermal throttle events of the core") \
	X(U64, package_throttle_count, "", COUNTER, "thermal throttle events of the package")

/* ---- psi: /proc/pressure/{cpu,memory,io} ----------------------------- */
#define GD_PSI_FIELDS(X) \
	X(F64, cpu_some_avg10, "pct", GAUGE, "share of time some tasks waited for CPU, 10 s average") \
	X(F64, cpu_some_avg60, "pct", GAUGE, "the same, 60 s average") \
	X(U64, cpu_some_total_us, "us", COUNTER, "total CPU stall time (some)") \
	X(F64, memory_some_avg10, "pct", GAUGE, "share of time some tasks waited for memory, 10 s average") \
	X(F64, memory_full_avg10, "pct", GAUGE, "share of time all tasks waited for memory, 10 s average") \
	X(U64, memory_some_total_us, "us", COUNTER, "total memory stall time (some)") \
	X(U64, memory_full_total_us, "us", COUNTER, "total memory stall time (full)") \
	X(F64, io_some_avg10, "pct", GAUGE, "share of time some tasks waited for I/O, 10 s average") \
	X(F64, io_full_avg10, "pct", GAUGE, "share of time all tasks waited for I/O, 10 s average") \
	X(U64, io_some_total_us, "us", COUNTER, "total I/O stall time (some)") \
	X(U64, io_full_total_us, "us", COUNTER, "total I/O stall time (full)")

/* ---- mem: /proc/meminfo and /proc/vmstat ----------------------------- */
#define GD_MEM_FIELDS(X) \
	X(U64, total_bytes, "bytes", GAUGE, "MemTotal") \
	X(U64, free_bytes, "bytes", GAUGE, "MemFree") \
	X(U64, available_bytes, "bytes", GAUGE, "MemAvailable") \
	X(U64, available_estimated, "", GAUGE, "1: no MemAvailable (kernel before 3.14), available_bytes estimated as the kernel's si_mem_available does") \
	X(U64, file_lru_bytes, "bytes", GAUGE, "Active(file) + Inactive(file): the page cache the estimate counts") \
	X(U64, slab_reclaimable_bytes, "bytes", GAUGE, "SReclaimable") \
	X(U64, low_watermark_bytes, "bytes", GAUGE, "the zones' low watermarks (/proc/zoneinfo) the estimate kept back; absent: not read, taken as 0") \
	X(U64, buffers_bytes, "bytes", GAUGE, "Buffers") \
	X(U64, cached_bytes, "bytes", GAUGE, "Cached") \
	X(U64, shmem_bytes, "bytes", GAUGE, "Shmem (tmpfs, /dev/shm)") \
	X(U64, dirty_bytes, "bytes", GAUGE, "Dirty") \
	X(U64, writeback_bytes, "bytes", GAUGE, "Writeback") \
	X(U64, swap_total_bytes, "bytes", GAUGE, "SwapTotal") \
	X(U64, swap_free_bytes, "bytes", GAUGE, "SwapFree") \
	X(U64, hardware_corrupted_bytes, "bytes", GAUGE, "HardwareCorrupted") \
	X(U64, pswpin, "pages", COUNTER, "pages swapped in") \
	X(U64, pswpout, "pages", COUNTER, "pages swapped out") \
	X(U64, pgmajfault, "", COUNTER, "major page faults") \
	X(U64, oom_kill, "", COUNTER, "OOM kills since boot") \
	X(U64, allocstall, "", COUNTER, "direct-reclaim stalls (all zones)")

/* ---- tcp: /proc/net/snmp Tcp: and /proc/net/netstat TcpExt: ----------- */
#define GD_TCP_FIELDS(X) \
	X(U64, active_opens, "", COUNTER, "TCP ActiveOpens") \
	X(U64, passive_opens, "", COUNTER, "TCP PassiveOpens") \
	X(U64, curr_estab, "", GAUGE, "TCP CurrEstab") \
	X(U64, in_segs, "", COUNTER, "TCP InSegs") \
	X(U64, out_segs, "", COUNTER, "TCP OutSegs") \
	X(U64, retrans_segs, "", COUNTER, "TCP RetransSegs") \
	X(U64, in_errs, "", COUNTER, "TCP InErrs") \
	X(U64, out_rsts, "", COUNTER, "TCP OutRsts") \
	X(U64, timeouts, "", COUNTER, "TcpExt TCPTimeouts (RTO fired)")

/* ---- disks[]: /proc/diskstats, /sys/block/<dev>/queue/rotational ------ */
#define GD_DISK_FIELDS(X) \
	X(S32, name, "", LABEL, "block device name") \
	X(U64, whole, "", LABEL, "1 for a whole disk (listed in /sys/block), 0 for a partition") \
	X(U64, rotational, "", GAUGE, "1 for a spinning disk") \
	X(U64, reads, "", COUNTER, "reads completed") \
	X(U64, reads_merged, "", COUNTER, "reads merged") \
	X(U64, sectors_read, "sectors", COUNTER, "512-byte sectors read") \
	X(U64, read_ms, "ms", COUNTER, "time spent reading") \
	X(U64, writes, "", COUNTER, "writes completed") \
	X(U64, writes_merged, "", COUNTER, "writes merged") \
	X(U64, sectors_written, "sectors", COUNTER, "512-byte sectors written") \
	X(U64, write_ms, "ms", COUNTER, "time spent writing") \
	X(U64, in_flight, "", GAUGE, "I/Os in flight") \
	X(U64, io_ms, "ms", COUNTER, "time with I/O in flight (io_ticks)") \
	X(U64, weighted_io_ms, "ms", COUNTER, "weighted time doing I/O (queue depth integral)")

/* ---- mounts[]: /proc/self/mounts ------------------------------------- */
#define GD_MOUNT_FIELDS(X) \
	X(S256, device, "", LABEL, "mount source") \
	X(S256, mountpoint, "", LABEL, "mount point") \
	X(S32, fstype, "", LABEL, "filesystem type") \
	X(U64, size_bytes, "bytes", GAUGE, "tmpfs size= option, when given")

/* ---- netifs[]: /proc/net/dev, /sys/class/net/<if>/ -------------------- */
#define GD_NETIF_FIELDS(X) \
	X(S32, name, "", LABEL, "interface name") \
	X(U64, rx_bytes, "bytes", COUNTER, "received bytes") \
	X(U64, rx_packets, "", COUNTER, "received packets") \
	X(U64, rx_errs, "", COUNTER, "receive errors") \
	X(U64, rx_drop, "", COUNTER, "received packets dropped") \
	X(U64, rx_fifo, "", COUNTER, "receive FIFO/overrun errors") \
	X(U64, rx_frame, "", COUNTER, "receive framing errors") \
	X(U64, tx_bytes, "bytes", COUNTER, "sent bytes") \
	X(U64, tx_packets, "", COUNTER, "sent packets") \
	X(U64, tx_errs, "", COUNTER, "transmit errors") \
	X(U64, tx_drop, "", COUNTER, "sent packets dropped") \
	X(U64, tx_fifo, "", COUNTER, "transmit FIFO errors") \
	X(U64, tx_colls, "", COUNTER, "collisions") \
	X(U64, tx_carrier, "", COUNTER, "carrier errors") \
	X(S16, operstate, "", LABEL, "RFC 2863 operational state") \
	X(U64, admin_up, "", GAUGE, "1 when the interface is administratively up (IFF_UP)") \
	X(U64, physical, "", LABEL, "1 when backed by a device (not virtual)") \
	X(U64, speed_mbps, "mbps", GAUGE, "negotiated link speed") \
	X(U64, max_speed_mbps, "mbps", GAUGE, "fastest speed the link supports (ethtool)") \
	X(U64, arp_type, "", LABEL, "ARP hardware type (1 ethernet, 32 infiniband)")

/* ---- nic_irqs[]: /proc/interrupts lines of NIC queues, one per CPU ---- */
#define GD_NIC_IRQ_FIELDS(X) \
	X(S16, irq, "", LABEL, "IRQ number") \
	X(S64, name, "", LABEL, "IRQ action name (queue)") \
	X(S32, netif, "", LABEL, "interface the IRQ belongs to") \
	X(U64, cpu, "", LABEL, "CPU the count is for") \
	X(U64, count, "", COUNTER, "interrupts served by that CPU")

/* ---- ib_ports[]: /sys/class/infiniband/<dev>/ports/<n>/ --------------- */
#define GD_IB_PORT_FIELDS(X) \
	X(S32, device, "", LABEL, "RDMA device") \
	X(U64, port, "", LABEL, "port number") \
	X(S16, link_layer, "", LABEL, "InfiniBand or Ethernet (RoCE)") \
	X(U64, state, "", GAUGE, "port state code (4 = ACTIVE)") \
	X(S16, state_name, "", LABEL, "port state name") \
	X(U64, phys_state, "", GAUGE, "physical state code (5 = LinkUp)") \
	X(S32, phys_state_name, "", LABEL, "physical state name") \
	X(F64, rate_gbps, "gbps", GAUGE, "link rate") \
	X(U64, symbol_error, "", COUNTER, "symbol errors") \
	X(U64, port_rcv_errors, "", COUNTER, "receive errors") \
	X(U64, link_error_recovery, "", COUNTER, "link retrains that succeeded") \
	X(U64, link_downed, "", COUNTER, "link retrains that failed") \
	X(U64, port_xmit_discards, "", COUNTER, "packets discarded on transmit") \
	X(U64, local_link_integrity_errors, "", COUNTER, "local link integrity errors") \
	X(U64, excessive_buffer_overrun_errors, "", COUNTER, "buffer overruns") \
	X(U64, port_xmit_wait, "", COUNTER, "ticks waiting for credit") \
	X(U64, port_xmit_data_bytes, "bytes", COUNTER, "transmitted bytes (4 x port_xmit_data)") \
	X(U64, port_rcv_data_bytes, "bytes", COUNTER, "received bytes (4 x port_rcv_data)")

/* ---- sensors[]: thermal zones and hwmon temperatures ------------------ */
#define GD_SENSOR_FIELDS(X) \
	X(S16, source, "", LABEL, "thermal or hwmon") \
	X(S32, chip, "", LABEL, "zone type or hwmon chip name") \
	X(S64, label, "", LABEL, "sensor label (e.g. Package id 0, Inlet Temp)") \
	X(F64, temp_c, "celsius", GAUGE, "temperature") \
	X(F64, max_c, "celsius", GAUGE, "high threshold") \
	X(F64, crit_c, "celsius", GAUGE, "critical threshold")

/* ---- shm[]: /dev/shm as seen from a mount namespace ------------------- */
#define GD_SHM_FIELDS(X) \
	X(U64, pid, "", LABEL, "process whose mount namespace this is") \
	X(S32, mntns, "", LABEL, "mount namespace (mnt:[inode])") \
	X(U64, gpu_job, "", LABEL, "1 when pid is a GPU job, 0 for gpudoctor's own namespace") \
	X(U64, mounted, "", GAUGE, "1 when /dev/shm is a mount point there") \
	X(S32, fstype, "", LABEL, "filesystem type of /dev/shm") \
	X(U64, size_bytes, "bytes", GAUGE, "capacity") \
	X(U64, used_bytes, "bytes", GAUGE, "space in use")

/* ---- cgroups[]: the groups of GPU jobs and of gpudoctor itself -------- */
#define GD_CGROUP_FIELDS(X) \
	X(S256, path, "", LABEL, "cgroup path (v2, or the v1 cpu controller's)") \
	X(S256, memory_path, "", LABEL, "v1 memory controller path (v2: same as path)") \
	X(S16, version, "", LABEL, "v1 or v2") \
	X(U64, pid, "", LABEL, "a process in the group") \
	X(U64, self, "", LABEL, "1 when this is gpudoctor's own group") \
	X(U64, cpu_quota_us, "us", GAUGE, "CPU quota per period (absent: unlimited)") \
	X(U64, cpu_period_us, "us", GAUGE, "CPU quota period") \
	X(U64, nr_periods, "", COUNTER, "enforcement periods elapsed") \
	X(U64, nr_throttled, "", COUNTER, "periods in which the group was throttled") \
	X(U64, throttled_us, "us", COUNTER, "time throttled") \
	X(U64, mem_current_bytes, "bytes", GAUGE, "memory charged to the group") \
	X(U64, mem_max_bytes, "bytes", GAUGE, "hard memory limit (absent: unlimited)") \
	X(U64, mem_high_bytes, "bytes", GAUGE, "memory.high throttling limit (absent: unlimited)") \
	X(U64, mem_events_high, "", COUNTER, "times over memory.high") \
	X(U64, mem_events_max, "", COUNTER, "times at memory.max (v1: failcnt)") \
	X(U64, mem_events_oom, "", COUNTER, "times the group ran out of memory") \
	X(U64, mem_events_oom_kill, "", COUNTER, "processes OOM-killed in the group")

/* ---- procs[]: /proc/<pid>/{stat,status,io,cgroup,cmdline,fd,ns} ------- */
#define GD_PROC_FIELDS(X) \
	X(U64, pid, "", LABEL, "process id") \
	X(U64, ppid, "", LABEL, "parent process id") \
	X(S32, comm, "", LABEL, "command name") \
	X(S256, cmdline, "", LABEL, "command line, arguments joined by spaces (truncated)") \
	X(S16, state, "", LABEL, "scheduler state letter") \
	X(U64, kthread, "", LABEL, "1 for a kernel thread") \
	X(U64, uid, "", LABEL, "real user id") \
	X(U64, starttime_ticks, "ticks", LABEL, "start time after boot (identity with pid)") \
	X(U64, utime_ticks, "ticks", COUNTER, "user CPU time") \
	X(U64, stime_ticks, "ticks", COUNTER, "system CPU time") \
	X(U64, num_threads, "", GAUGE, "threads") \
	X(U64, rss_bytes, "bytes", GAUGE, "resident memory") \
	X(U64, rchar_bytes, "bytes", COUNTER, "bytes read through syscalls (any file, cache hits too)") \
	X(U64, wchar_bytes, "bytes", COUNTER, "bytes written through syscalls") \
	X(U64, read_bytes, "bytes", COUNTER, "bytes fetched from storage") \
	X(U64, write_bytes, "bytes", COUNTER, "bytes sent to storage") \
	X(U64, nvidia_fds, "", GAUGE, "open file descriptors on /dev/nvidia<N>: a GPU job when > 0") \
	X(S64, nvidia_devs, "", LABEL, "minor numbers of the /dev/nvidia<N> it holds, comma-separated") \
	X(U64, netfs_fds, "", GAUGE, "open files on a network or FUSE filesystem") \
	X(S256, netfs_mount, "", LABEL, "mount point of the first such file") \
	X(S256, cgroup, "", LABEL, "cgroup path (v2 line, else the v1 cpu controller's)") \
	X(S32, mntns, "", LABEL, "mount namespace") \
	X(S32, netns, "", LABEL, "network namespace") \
	X(S256, cpus_allowed, "", LABEL, "Cpus_allowed_list of /proc/<pid>/status, e.g. 0-31,64-95 (absent when longer than this field)") \
	X(S16, cuda_runtime, "", LABEL, "version of the libcudart it maps, from the file name (12.4.127; 12 for a soname-only file); GPU jobs only") \
	X(S256, cuda_runtime_file, "", LABEL, "the libcudart file whose version cuda_runtime is, as /proc/<pid>/maps names it") \
	X(S256, cuda_stub, "", LABEL, "the CUDA toolkit's stub libcuda.so it maps (a stubs/ directory, or a file named plain libcuda.so), instead of the driver's; GPU jobs and processes in a container's mount namespace") \
	X(S32, wchan, "", LABEL, "kernel function it sleeps in (/proc/<pid>/wchan); read for processes in D state only") \
	X(S256, kstack, "", LABEL, "its kernel stack (/proc/<pid>/stack, root only), innermost first, frames joined by \" < \" with their module; D state only") \
	X(F64, detail_uptime_s, "seconds", GAUGE, "uptime at which its fd, status, cgroup, namespace and command-line fields were read, when before this snapshot: serve, watch and record read them on a slower round (absent: read now)")

/* ---- threads[]: per-thread CPU of GPU jobs and their descendants ------ */
#define GD_THREAD_FIELDS(X) \
	X(U64, pid, "", LABEL, "process id") \
	X(U64, tid, "", LABEL, "thread id") \
	X(S32, comm, "", LABEL, "thread name") \
	X(S16, state, "", LABEL, "scheduler state letter") \
	X(U64, utime_ticks, "ticks", COUNTER, "user CPU time") \
	X(U64, stime_ticks, "ticks", COUNTER, "system CPU time")

/* ---- job_threads[]: where a GPU job's threads spend the window --------
 * (collect/job_threads.c: schedstat, syscall, wchan of the threads in
 * threads[]; collect/job_samples.c: perf_event_open task-clock samples,
 * each attributed to the mapping its instruction pointer falls in).  The
 * samples_* counters count from when sampling of the thread began (they
 * are 0 in the first snapshot that has them): rules use deltas. */
#define GD_JOB_THREAD_FIELDS(X) \
	X(U64, pid, "", LABEL, "process id (a GPU job or one of its descendants)") \
	X(U64, tid, "", LABEL, "thread id") \
	X(S32, comm, "", LABEL, "thread name") \
	X(S16, role, "", LABEL, "main (first thread of a GPU job), loader (a descendant process that holds no GPU: a DataLoader worker), pin_memory, nccl, autograd or other: from the tid and the thread name") \
	X(S16, state, "", LABEL, "scheduler state letter (R running or runnable, S sleeping, D uninterruptible, usually I/O)") \
	X(U64, run_ns, "ns", COUNTER, "time on a CPU (schedstat field 1)") \
	X(U64, wait_ns, "ns", COUNTER, "time runnable but waiting for a CPU (schedstat run_delay)") \
	X(U64, timeslices, "", COUNTER, "times it was scheduled on a CPU (schedstat field 3)") \
	X(S16, syscall, "", LABEL, "system call it is blocked in (futex, read, epoll_wait, ...; nr<N> for others; running when on a CPU); absent: not readable") \
	X(S32, wchan, "", LABEL, "kernel function it sleeps in (wchan); absent when running or hidden") \
	X(U64, sampled, "", LABEL, "1 when perf samples it (the samples_* counters), 0 when it could not be sampled; absent: not a thread that is sampled (only main and NCCL threads are)") \
	X(U64, samples_cuda, "", COUNTER, "on-CPU samples in the CUDA driver or runtime libraries (libcuda, libcudart, libcublas, libcudnn, libnvrtc, ...)") \
	X(U64, samples_nccl, "", COUNTER, "on-CPU samples in NCCL (libnccl)") \
	X(U64, samples_python, "", COUNTER, "on-CPU samples in the interpreter (libpython*, the python binary)") \
	X(U64, samples_framework, "", COUNTER, "on-CPU samples in framework CPU libraries (libtorch*, libc10, libgomp, BLAS, numpy, Python extension modules)") \
	X(U64, samples_kernel, "", COUNTER, "on-CPU samples in the kernel (system calls, page faults)") \
	X(U64, samples_other, "", COUNTER, "on-CPU samples anywhere else (libc, JIT code, unmapped)") \
	X(U64, samples_lost, "", COUNTER, "samples the kernel dropped (ring buffer full)") \
	X(U64, cpu_clock_ns, "ns", COUNTER, "task-clock the sampling counter counted")

/* ---- job_sockets[]: TCP connections of GPU jobs (collect/job_sockets.c:
 * NETLINK_SOCK_DIAG, struct tcp_info) ------------------------------------ */
#define GD_JOB_SOCKET_FIELDS(X) \
	X(U64, pid, "", LABEL, "the GPU job process (or descendant) holding the socket") \
	X(U64, inode, "", LABEL, "socket inode (socket:[N] in /proc/<pid>/fd)") \
	X(U64, state, "", GAUGE, "TCP state (1 established, 2 syn-sent, 8 close-wait, ...)") \
	X(S64, local, "", LABEL, "local address:port") \
	X(S64, peer, "", LABEL, "far address:port") \
	X(U64, rtt_us, "us", GAUGE, "smoothed round-trip time (tcpi_rtt)") \
	X(U64, rttvar_us, "us", GAUGE, "its variation (tcpi_rttvar)") \
	X(U64, min_rtt_us, "us", GAUGE, "smallest round-trip time seen (tcpi_min_rtt)") \
	X(U64, retrans, "", COUNTER, "segments retransmitted over the connection's life (tcpi_total_retrans)") \
	X(U64, bytes_acked, "bytes", COUNTER, "bytes sent and acknowledged (tcpi_bytes_acked)") \
	X(U64, bytes_received, "bytes", COUNTER, "bytes received (tcpi_bytes_received)") \
	X(S32, netns, "", LABEL, "network namespace the socket is in (net:[N], the job's: a container's may not be gpudoctor's)")

/* ---- job_ranks[]: who each GPU job process is in its distributed job --
 * (collect/job_rank.c: a fixed list of keys of /proc/<pid>/environ, never
 * any other variable; the pod's hostname and service-account namespace
 * through /proc/<pid>/root).  One record per process NVML lists on a GPU
 * (not its DataLoader workers, which inherit the environment).  Rank keys
 * in order of precedence: RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK,
 * PMI_RANK (the size and local keys of the same launcher follow).  A key
 * given twice counts once, the first, as getenv and Python's os.environ
 * take it.  Absent in recordings made before it (older gpudoctor). */
#define GD_JOB_RANK_FIELDS(X) \
	X(U64, pid, "", LABEL, "the GPU job process (host pid namespace)") \
	X(S16, status, "", LABEL, "ok, no_rank (none of the rank keys set), denied (environ not readable: reason), other_pidns (the pid NVML lists is another process here: gpudoctor sees another pid namespace), gone (exited before it was read), failed (another read error)") \
	X(S256, reason, "", LABEL, "why, when not ok; with ok or no_rank, what was left out (a rank key that is not a number, an environment cut at 4 MiB)") \
	X(S256, job, "", LABEL, "job id, the first of slurm:<SLURM_JOB_ID>.<SLURM_STEP_ID>, torchelastic:<TORCHELASTIC_RUN_ID> (not torchrun's default none), master:<MASTER_ADDR>:<MASTER_PORT>, k8s:<namespace>/<pod>") \
	X(S16, launcher, "", LABEL, "whose keys gave the rank: torchelastic, kubeflow, deepspeed, env (RANK from another launcher), slurm, openmpi, pmi") \
	X(U64, rank, "", LABEL, "global rank (RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK)") \
	X(U64, local_rank, "", LABEL, "rank on its node (LOCAL_RANK, SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID)") \
	X(U64, world_size, "", LABEL, "ranks in the job (WORLD_SIZE, SLURM_NTASKS, OMPI_COMM_WORLD_SIZE, PMI_SIZE)") \
	X(U64, local_world_size, "", LABEL, "ranks on its node (LOCAL_WORLD_SIZE, PET_NPROC_PER_NODE)") \
	X(U64, node_rank, "", LABEL, "index of its node (GROUP_RANK, NODE_RANK, PET_NODE_RANK, SLURM_NODEID, OMPI_COMM_WORLD_NODE_RANK)") \
	X(S256, master_addr, "", LABEL, "MASTER_ADDR") \
	X(S16, master_port, "", LABEL, "MASTER_PORT") \
	X(S64, run_id, "", LABEL, "TORCHELASTIC_RUN_ID (torchrun --rdzv-id)") \
	X(S32, slurm_job_id, "", LABEL, "SLURM_JOB_ID") \
	X(S16, slurm_step_id, "", LABEL, "SLURM_STEP_ID") \
	X(U64, slurm_procid, "", LABEL, "SLURM_PROCID") \
	X(U64, slurm_nodeid, "", LABEL, "SLURM_NODEID") \
	X(S64, pod, "", LABEL, "Kubernetes pod name: the process's /etc/hostname (or HOSTNAME) when it runs in a pod") \
	X(S64, namespace, "", LABEL, "Kubernetes namespace (the service-account mount's namespace file)") \
	X(S64, pod_uid, "", LABEL, "Kubernetes pod UID, from the cgroup path (kubepods...pod<uid>)") \
	X(S64, gpus, "", LABEL, "NVML indices of the GPUs NVML lists the process on, e.g. 0 or 0,1") \
	X(S64, nccl_socket_ifname, "", LABEL, "NCCL_SOCKET_IFNAME") \
	X(S256, nccl_ib_hca, "", LABEL, "NCCL_IB_HCA") \
	X(S16, nccl_ib_disable, "", LABEL, "NCCL_IB_DISABLE") \
	X(S16, nccl_p2p_disable, "", LABEL, "NCCL_P2P_DISABLE") \
	X(S32, nccl_net, "", LABEL, "NCCL_NET")

/* ---- klog[]: kernel-log events (src/klog/, collect/klog.c) ------------ */
#define GD_KLOG_FIELDS(X) \
	X(S16, kind, "", LABEL, "xid, sxid, fallen_off_bus, init_failed, gpu_uuid, aer, pcie_bandwidth, gsp_timeout, reset_required, oom_kill, hung_task, mce, edac") \
	X(U64, code, "", LABEL, "Xid or SXid number") \
	X(S32, pci_bus_id, "", LABEL, "device the line names, dddd:bb:dd.f (Xid lines carry no function: .0)") \
	X(S64, uuid, "", LABEL, "GPU UUID (from the driver's GPU at PCI line)") \
	X(U64, gpu_instance, "", LABEL, "MIG GPU instance (GPU-I)") \
	X(U64, compute_instance, "", LABEL, "MIG compute instance (GPU-CI)") \
	X(F64, boot_s, "seconds", GAUGE, "time of the line, seconds since boot ([12345.678901], /dev/kmsg)") \
	X(F64, wall_time_s, "seconds", GAUGE, "time of the line, seconds since the epoch (dmesg -T, journal, syslog)") \
	X(U64, pid, "", LABEL, "process the line names") \
	X(S32, process, "", LABEL, "its name (for AER and bandwidth lines: the driver)") \
	X(S32, severity, "", LABEL, "what the line says: corrected, nonfatal, fatal (AER); CE, UE (EDAC); fatal, non-fatal (SXid)") \
	X(S64, detail, "", LABEL, "AER type and agent; OOM constraint and cgroup; Xid 154 action name; NV_ERR_GPU_IN_FULLCHIP_RESET (reset_required)") \
	X(U64, action_code, "", LABEL, "Xid 154: recovery action now required (0 none, 1 GPU reset, 2 node reboot, 3 drain P2P, 4 drain and reset)") \
	X(U64, count, "", GAUGE, "errors the line reports (EDAC)") \
	X(F64, duration_s, "seconds", GAUGE, "hung task: blocked for; GSP: time-out") \
	X(F64, bandwidth_gbps, "gbps", GAUGE, "PCIe bandwidth available to the device") \
	X(F64, capable_gbps, "gbps", GAUGE, "PCIe bandwidth the device is capable of") \
	X(S32, limit_at, "", LABEL, "the link that limits it") \
	X(U64, is_gpu, "", LABEL, "1 when the device is known to be an NVIDIA GPU") \
	X(U64, rm_gpu, "", LABEL, "the driver's own number of the GPU, N in \"NVRM: GPU<N> ...\" (its order, not always nvidia-smi's)") \
	X(U64, mc, "", LABEL, "EDAC memory controller") \
	X(U64, socket, "", LABEL, "CPU socket") \
	X(U64, channel, "", LABEL, "memory channel") \
	X(S64, dimm, "", LABEL, "DIMM label or location") \
	X(U64, anon_rss_bytes, "bytes", GAUGE, "OOM: anonymous memory of the killed process") \
	X(U64, total_vm_bytes, "bytes", GAUGE, "OOM: virtual size of the killed process") \
	X(S256, text, "", LABEL, "the message (truncated)") \
	X(S256, trace, "", LABEL, "hung task: the frames of its call trace in the NVIDIA modules ([nvidia], [nvidia_uvm], ...), innermost first, joined by \" < \"")

/* ---- klog_info: how the kernel log was read --------------------------- */
#define GD_KLOG_INFO_FIELDS(X) \
	X(S256, source, "", LABEL, "what was read (/dev/kmsg or files)") \
	X(F64, lookback_s, "seconds", GAUGE, "events older than this before the sample were left out") \
	X(F64, span_s, "seconds", GAUGE, "time the events read cover, up to the sample (for rates)") \
	X(U64, lines, "", COUNTER, "lines or records read") \
	X(U64, events, "", GAUGE, "events recognised inside the look-back") \
	X(U64, dropped, "", GAUGE, "events left out of klog[] past its cap (counted, not kept)") \
	X(U64, older, "", GAUGE, "a file's events left out for being older than the look-back before its last line")

/* ---- edac[]: /sys/devices/system/edac/mc/mc<N>/ ----------------------- */
#define GD_EDAC_FIELDS(X) \
	X(S16, mc, "", LABEL, "memory controller (mc0)") \
	X(S64, name, "", LABEL, "mc_name (e.g. Skylake Socket#0 IMC#0)") \
	X(U64, ce_count, "", COUNTER, "corrected errors") \
	X(U64, ue_count, "", COUNTER, "uncorrected errors")

/* ---- sources[]: how each collector fared ------------------------------ */
#define GD_SOURCE_FIELDS(X) \
	X(S32, name, "", LABEL, "collector name") \
	X(S256, path, "", LABEL, "what it reads") \
	X(S16, status, "", LABEL, "ok, absent, denied, partial or failed") \
	X(S256, reason, "", LABEL, "why, when not ok") \
	X(F64, duration_s, "seconds", GAUGE, "time the collector took")

/* ---- nvml: the NVML library and driver (src/nvml, collect/nvml_devices.c) */
#define GD_NVML_FIELDS(X) \
	X(S256, library, "", LABEL, "NVML library loaded, or the name looked for") \
	X(S16, status, "", LABEL, "ok, absent, denied, failed, or stuck (a call did not return in time)") \
	X(S256, reason, "", LABEL, "why, when not ok") \
	X(S32, init_error, "", LABEL, "NVML error of a failed nvmlInit: DRIVER_NOT_LOADED, LIB_RM_VERSION_MISMATCH, ...") \
	X(S256, stuck_call, "", LABEL, "the NVML call that did not return within timeout_s (and its GPU)") \
	X(F64, timeout_s, "seconds", GAUGE, "deadline of each NVML call (--nvml-timeout)") \
	X(S32, driver_version, "", LABEL, "NVIDIA driver version, e.g. 550.54.15") \
	X(U64, cuda_driver_version, "", LABEL, "newest CUDA the driver supports, 1000*major + 10*minor (12040 = 12.4)") \
	X(S32, nvml_version, "", LABEL, "NVML library version") \
	X(U64, device_count, "", GAUGE, "GPUs NVML counts, including ones it cannot open") \
	X(S256, missing, "", LABEL, "optional NVML functions this driver lacks: their fields are not supported by this driver")

/* ---- gpus[]: one per NVML device index (collect/nvml_devices.c) -------- */
#define GD_GPU_FIELDS(X) \
	X(U64, index, "", LABEL, "NVML device index (not the CUDA order; key by pci_bus_id or uuid)") \
	X(S64, name, "", LABEL, "product name") \
	X(S64, uuid, "", LABEL, "GPU UUID (GPU-...)") \
	X(S32, serial, "", LABEL, "board serial number") \
	X(S32, pci_bus_id, "", LABEL, "PCI address, lower case dddd:bb:dd.f as in sysfs") \
	X(U64, minor_number, "", LABEL, "N of /dev/nvidiaN") \
	X(U64, numa_node, "", LABEL, "NUMA node of the GPU's own memory (only where the GPU is a NUMA node)") \
	X(U64, lost, "", GAUGE, "1 when NVML answered GPU_IS_LOST (fell off the bus); its later fields are absent") \
	X(U64, persistence_mode, "", GAUGE, "1 when persistence mode is on") \
	X(U64, compute_mode, "", GAUGE, "0 default, 1 exclusive thread, 2 prohibited, 3 exclusive process") \
	X(U64, mig_mode, "", GAUGE, "1 when MIG is enabled (current mode)") \
	X(F64, temp_c, "celsius", GAUGE, "GPU die temperature") \
	X(F64, temp_slowdown_c, "celsius", GAUGE, "temperature at which hardware slowdown begins") \
	X(F64, temp_shutdown_c, "celsius", GAUGE, "temperature at which the GPU shuts down") \
	X(U64, fan_pct, "pct", GAUGE, "intended fan speed (absent on passively cooled boards)") \
	X(U64, util_gpu_pct, "pct", GAUGE, "share of the last sample period in which a kernel ran") \
	X(U64, util_mem_pct, "pct", GAUGE, "share of the last sample period in which device memory was read or written") \
	X(U64, mem_used_bytes, "bytes", GAUGE, "device memory in use") \
	X(U64, mem_total_bytes, "bytes", GAUGE, "device memory (less ECC overhead)") \
	X(F64, power_w, "watts", GAUGE, "power draw (1 s average on Ampere and newer except GA100)") \
	X(F64, power_limit_w, "watts", GAUGE, "power limit the driver enforces") \
	X(F64, power_default_limit_w, "watts", GAUGE, "default power limit") \
	X(U64, energy_mj, "mj", COUNTER, "energy since the driver loaded (millijoules)") \
	X(U64, sm_clock_mhz, "mhz", GAUGE, "current SM clock") \
	X(U64, sm_clock_max_mhz, "mhz", GAUGE, "maximum SM clock") \
	X(U64, mem_clock_mhz, "mhz", GAUGE, "current memory clock") \
	X(U64, mem_clock_max_mhz, "mhz", GAUGE, "maximum memory clock") \
	X(U64, app_sm_clock_mhz, "mhz", GAUGE, "application SM clock target") \
	X(U64, pstate, "", GAUGE, "performance state, 0 (fastest) to 15; 32 unknown") \
	X(U64, clock_event_reasons, "", GAUGE, "bitmask of why clocks are held down (0x1 idle, 0x4 power cap, 0x8 hw slowdown, 0x20 sw thermal, 0x40 hw thermal, 0x80 power brake)") \
	X(U64, violation_power_ns, "ns", COUNTER, "time held below the requested clocks by the power limit") \
	X(U64, violation_thermal_ns, "ns", COUNTER, "time held below the requested clocks by temperature") \
	X(U64, violation_sync_boost_ns, "ns", COUNTER, "time held down by sync boost") \
	X(U64, violation_board_limit_ns, "ns", COUNTER, "time held down by the board limit") \
	X(U64, violation_reliability_ns, "ns", COUNTER, "time held down by reliability limits") \
	X(U64, pcie_gen, "", GAUGE, "current PCIe generation (drops when idle, on purpose)") \
	X(U64, pcie_gen_max, "", GAUGE, "maximum PCIe generation of this GPU in this slot") \
	X(U64, pcie_width, "lanes", GAUGE, "current PCIe link width") \
	X(U64, pcie_width_max, "lanes", GAUGE, "maximum PCIe link width of this GPU in this slot") \
	X(U64, pcie_tx_kbps, "kilobytes/s", GAUGE, "PCIe transmit throughput in KB/s (20 ms sample)") \
	X(U64, pcie_rx_kbps, "kilobytes/s", GAUGE, "PCIe receive throughput in KB/s (20 ms sample)") \
	X(U64, pcie_replays, "", COUNTER, "PCIe link-level replays (retransmissions)") \
	X(U64, ecc_mode, "", GAUGE, "1 when ECC is on (current mode)") \
	X(U64, ecc_corrected_volatile, "", COUNTER, "corrected ECC errors since the driver loaded") \
	X(U64, ecc_uncorrected_volatile, "", COUNTER, "uncorrected ECC errors since the driver loaded") \
	X(U64, ecc_corrected_aggregate, "", COUNTER, "corrected ECC errors over the board's life") \
	X(U64, ecc_uncorrected_aggregate, "", COUNTER, "uncorrected ECC errors over the board's life") \
	X(U64, ecc_uncorrected_volatile_sram, "", COUNTER, "of ecc_uncorrected_volatile, those in on-chip SRAM (drivers that split SRAM and DRAM)") \
	X(U64, ecc_uncorrected_volatile_dram, "", COUNTER, "of ecc_uncorrected_volatile, those in device memory (DRAM/HBM)") \
	X(U64, ecc_uncorrected_aggregate_sram, "", COUNTER, "of ecc_uncorrected_aggregate, those in on-chip SRAM") \
	X(U64, ecc_uncorrected_aggregate_dram, "", COUNTER, "of ecc_uncorrected_aggregate, those in device memory (DRAM/HBM)") \
	X(U64, ecc_sram_threshold_exceeded, "", GAUGE, "1 when the driver says the GPU's SRAM uncorrectable errors crossed NVIDIA's threshold") \
	X(U64, retired_pages_sbe, "pages", GAUGE, "pages retired for multiple single-bit errors") \
	X(U64, retired_pages_dbe, "pages", GAUGE, "pages retired for a double-bit error") \
	X(U64, retired_pages_pending, "", GAUGE, "1 when retired pages wait for a reboot") \
	X(U64, remap_corrected, "rows", GAUGE, "rows remapped for correctable errors") \
	X(U64, remap_uncorrected, "rows", GAUGE, "rows remapped for uncorrectable errors") \
	X(U64, remap_pending, "", GAUGE, "1 when a remap waits for a GPU reset") \
	X(U64, remap_failure, "", GAUGE, "1 when a remap ever failed") \
	X(U64, recovery_action, "", GAUGE, "NVML field 230: 0 none, 1 GPU reset, 2 node reboot, 3 drain P2P, 4 drain and reset") \
	X(U64, nvlink_links, "", GAUGE, "NVLink links that answered") \
	X(U64, nvlink_up_links, "", GAUGE, "NVLink links active") \
	X(U64, nvlink_errors, "", COUNTER, "NVLink replay, recovery, CRC and ECC errors, all links") \
	X(U64, nvml_procs, "", GAUGE, "processes NVML lists on the GPU (compute and graphics, gpu_procs[]); absent: the list could not be read, so which processes use the GPU is not known") \
	GD_GPU_FABRIC_FIELDS(X)

/* gpus[]: the GPU's registration with the NVSwitch fabric (nvmlDeviceGetGpuFabricInfoV, else
 * nvmlDeviceGetGpuFabricInfo; collect/nvml_gpu_health.c).  Absent: the driver lacks both calls,
 * or the GPU answered NOT_SUPPORTED. */
#define GD_GPU_FABRIC_FIELDS(X) \
	X(U64, fabric_state, "", GAUGE, "NVSwitch fabric registration: 0 not supported (no fabric), 1 not started, 2 in progress, 3 completed") \
	X(U64, fabric_status, "", GAUGE, "the fabric's NVML return code once completed (0 success; else the error that left the GPU out)") \
	X(U64, fabric_health_mask, "", GAUGE, "the fabric health mask of nvmlGpuFabricInfo_v2 (0: nothing degraded)")

/* ---- gpu_procs[]: processes NVML lists on a GPU, one per GPU and pid ---- */
#define GD_GPU_PROC_FIELDS(X) \
	X(U64, gpu, "", LABEL, "NVML index of the GPU") \
	X(U64, pid, "", LABEL, "process id (host PID namespace)") \
	X(U64, graphics, "", GAUGE, "1 when NVML lists it only as a graphics process, 0 when as a compute (CUDA) process") \
	X(U64, used_mem_bytes, "bytes", GAUGE, "device memory the process uses") \
	X(U64, sm_util_pct, "pct", GAUGE, "its share of SM time in the driver's latest sample") \
	X(U64, mem_util_pct, "pct", GAUGE, "its share of memory-controller time in the latest sample")

/* ---- gpu_samples[]: the driver's sub-second utilisation samples -------
 * (nvmlDeviceGetSamples, GPU_UTILIZATION_SAMPLES: one every 1/6 s to 1 s
 * by product), those of the last GD_GPU_SAMPLES_LOOKBACK_S seconds before
 * the snapshot, the newest GD_GPU_SAMPLES_MAX per GPU: consecutive
 * snapshots overlap, rules take each timestamp once. */
#define GD_GPU_SAMPLES_LOOKBACK_S 5
#define GD_GPU_SAMPLES_MAX 64
#define GD_GPU_SAMPLE_FIELDS(X) \
	X(U64, gpu, "", LABEL, "NVML index of the GPU") \
	X(U64, t_us, "us", LABEL, "the driver's timestamp of the sample, microseconds since the epoch") \
	X(U64, util_pct, "pct", GAUGE, "share of the sample period in which a kernel ran")

/* ---- gpu_activity[]: sub-second activity of the GPUs GPU jobs use -----
 * What copy/compute overlap needs (gpu.transfer_serialized), per interval:
 * SM activity (GPM) or utilisation, and PCIe bytes.  Sampled on the NVML
 * thread every 100 ms between snapshots (src/nvml/nvml_act.c), plus the
 * snapshot's own reading (gpus[]'s util and PCIe throughput); each
 * interval is in the one snapshot that followed it. */
#define GD_GPU_ACTIVITY_FIELDS(X) \
	X(U64, gpu, "", LABEL, "NVML index of the GPU") \
	X(U64, t_us, "us", LABEL, "end of the interval, microseconds since the epoch (CPU clock)") \
	X(U64, interval_us, "us", GAUGE, "its length: between two GPM samples, or the 20 ms of the driver's PCIe throughput counter") \
	X(S16, source, "", LABEL, "gpm (GPM metrics between two samples), or pcie_throughput (nvmlDeviceGetPcieThroughput and the newest utilisation sample)") \
	X(F64, sm_active_pct, "pct", GAUGE, "gpm: share of the SMs busy over the interval (NVML_GPM_METRIC_SM_UTIL)") \
	X(F64, util_pct, "pct", GAUGE, "pcie_throughput: share of time a kernel ran, the driver's newest utilisation sample") \
	X(F64, pcie_rx_bytes_s, "bytes/s", GAUGE, "PCIe bytes the GPU received per second (host to device copies)") \
	X(F64, pcie_tx_bytes_s, "bytes/s", GAUGE, "PCIe bytes the GPU sent per second (device to host copies)") \
	X(F64, sm_occupancy_pct, "pct", GAUGE, "gpm: warps resident on the SMs against the maximum (NVML_GPM_METRIC_SM_OCCUPANCY)") \
	X(F64, tensor_active_pct, "pct", GAUGE, "gpm: share of time the SMs ran any tensor-core operation (NVML_GPM_METRIC_ANY_TENSOR_UTIL)") \
	X(F64, dram_bw_pct, "pct", GAUGE, "gpm: device-memory bandwidth used against the maximum (NVML_GPM_METRIC_DRAM_BW_UTIL)") \
	X(F64, nvlink_rx_bytes_s, "bytes/s", GAUGE, "gpm: NVLink bytes the GPU read per second, all links (NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC)") \
	X(F64, nvlink_tx_bytes_s, "bytes/s", GAUGE, "gpm: NVLink bytes the GPU wrote per second, all links (NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC)")

/* ---- nvml_errors[]: GPU evidence denied or failed, field by field ------ */
#define GD_NVML_ERROR_FIELDS(X) \
	X(U64, gpu, "", LABEL, "NVML index of the GPU (absent: not GPU-specific)") \
	X(S32, field, "", LABEL, "the gpus[] field that is missing") \
	X(S16, status, "", LABEL, "denied or failed") \
	X(U64, code, "", LABEL, "NVML return code") \
	X(S256, reason, "", LABEL, "the NVML call and its error")

/* ---- pci_gpus[]: NVIDIA display/3D functions in /sys/bus/pci/devices --- */
#define GD_PCI_GPU_FIELDS(X) \
	X(S32, pci_bus_id, "", LABEL, "PCI address dddd:bb:dd.f, as sysfs names it") \
	X(U64, device_id, "", LABEL, "PCI device id (0x2330 = H100 SXM5)") \
	X(U64, pci_class, "", LABEL, "PCI class (0x030000 VGA, 0x030200 3D controller)") \
	X(S32, driver, "", LABEL, "kernel driver bound to it (nvidia, nouveau, vfio-pci); absent: none") \
	X(U64, numa_node, "", LABEL, "NUMA node of the slot (absent: the kernel says -1)") \
	X(S256, local_cpus, "", LABEL, "local_cpulist: the CPUs near the slot") \
	X(F64, link_speed_gts, "gt/s", GAUGE, "current link speed (drops when the GPU idles)") \
	X(F64, link_speed_max_gts, "gt/s", GAUGE, "fastest link speed of the device") \
	X(U64, link_gen, "", GAUGE, "current PCIe generation, from the speed") \
	X(U64, link_gen_max, "", GAUGE, "PCIe generation of the fastest speed") \
	X(U64, link_width, "lanes", GAUGE, "current link width") \
	X(U64, link_width_max, "lanes", GAUGE, "widest link of the device") \
	X(U64, link_downgraded, "", GAUGE, "lspci's (downgraded) marks on LnkSta: 1 speed, 2 width, 3 both, 0 none; absent: no marks printed (pciutils before 3.6, sysfs)") \
	X(U64, aer_correctable, "", COUNTER, "AER correctable errors the device saw (TOTAL_ERR_COR)") \
	X(U64, aer_nonfatal, "", COUNTER, "AER non-fatal uncorrectable errors (TOTAL_ERR_NONFATAL)") \
	X(U64, aer_fatal, "", COUNTER, "AER fatal errors (TOTAL_ERR_FATAL)") \
	X(S256, pci_path, "", LABEL, "the bridges above it from the host bridge down: pci0000:38/0000:38:03.0/0000:40:00.0")

/* ---- pci_nics[]: network functions (class 0x02) and their PCIe path --- */
#define GD_PCI_NIC_FIELDS(X) \
	X(S32, pci_bus_id, "", LABEL, "PCI address dddd:bb:dd.f") \
	X(U64, pci_class, "", LABEL, "PCI class (0x020000 Ethernet, 0x020700 InfiniBand)") \
	X(S32, netif, "", LABEL, "its network interface (net/), absent if none") \
	X(S32, rdma_device, "", LABEL, "its RDMA device (infiniband/), absent if none") \
	X(U64, numa_node, "", LABEL, "NUMA node of the slot (absent: -1)") \
	X(S256, pci_path, "", LABEL, "the bridges above it from the host bridge down")

/* ---- P2P paths (sys_bus_pci_acs.c, lspci, nvidia-smi topo -m): ACS, IOMMU --- */
/* pci_bridges[]: the bridges above GPUs and NICs, and their ACS registers
 * (FACTS.md 7.2: extended capability 0x000D, control at +6). */
#define GD_PCI_BRIDGE_FIELDS(X) \
	X(S32, pci_bus_id, "", LABEL, "PCI address dddd:bb:dd.f of the bridge (a root port or a switch port); absent: an ACSCtl line pasted without its device") \
	X(S16, source, "", LABEL, "sysfs (its config file) or lspci (lspci -vvv's ACSCap/ACSCtl lines)") \
	X(U64, config_bytes, "bytes", GAUGE, "bytes of its config space read (64: an unprivileged read, 256: no extended space, 4096: all); absent: not read") \
	X(U64, acs_cap, "", GAUGE, "ACS capability register: the controls it has (bit 2 ReqRedir, 3 CmpltRedir); absent: no ACS capability, or not read") \
	X(U64, acs_ctl, "", GAUGE, "ACS control register: the controls in force (bit 0 SrcValid, 1 TransBlk, 2 ReqRedir, 3 CmpltRedir, 4 UpstreamFwd, 5 EgressCtrl, 6 DirectTrans)") \
	X(U64, secondary_bus, "", LABEL, "lspci: the first bus behind it (Bus: secondary=)") \
	X(U64, subordinate_bus, "", LABEL, "lspci: the last bus behind it (Bus: subordinate=)") \
	X(S64, reason, "", LABEL, "why its config space was not read (an error)")

/* pci_iommu[]: the IOMMU group of each GPU and NIC and its domain type. */
#define GD_PCI_IOMMU_FIELDS(X) \
	X(S32, pci_bus_id, "", LABEL, "PCI address of the GPU or NIC") \
	X(U64, group, "", LABEL, "its IOMMU group (iommu_group link); absent: no IOMMU for it") \
	X(S16, type, "", LABEL, "the group's domain type: identity (passthrough), DMA or DMA-FQ (translated), blocked; absent: the kernel has no type file")

/* pci_topo[]: nvidia-smi topo -m, one cell of the matrix (a row GPU, a column device). */
#define GD_PCI_TOPO_FIELDS(X) \
	X(S32, a, "", LABEL, "the row: GPU0") \
	X(S32, b, "", LABEL, "the column: GPU1, NIC0, mlx5_0") \
	X(S32, b_device, "", LABEL, "the column's device when it is a NIC (the NIC Legend's mlx5_0); else absent") \
	X(S16, link, "", LABEL, "X, NV# (NVLink), PIX, PXB, PHB, NODE, SYS (SOC on old drivers)") \
	X(U64, a_numa_node, "", LABEL, "the row's NUMA Affinity column (absent: N/A or not printed)")

/* ---- driver: the NVIDIA kernel module (/proc/driver/nvidia/version) ---- */
#define GD_DRIVER_FIELDS(X) \
	X(U64, loaded, "", GAUGE, "1 when /proc/driver/nvidia/version exists, 0 when it does not (absent: not read)") \
	X(S32, version, "", LABEL, "kernel module version, e.g. 550.54.15") \
	X(S16, flavor, "", LABEL, "open or proprietary kernel module") \
	X(S256, cuda_library, "", LABEL, "probe: the libcuda file the probe loaded (--cuda, GPUDOCTOR_CUDA or libcuda.so.1, links resolved)") \
	X(U64, cuda_init_error, "", GAUGE, "probe: the CUresult cuInit answered when it failed (34: the toolkit's stub library)")

/* ---- fabric: the NVSwitch fabric and Fabric Manager (collect/fabric.c, --from fabricmanager.log) */
#define GD_FABRIC_FIELDS(X) \
	X(U64, nvswitches, "", GAUGE, "NVSwitch PCI functions (vendor 0x10de, class 0x0680) in /sys/bus/pci/devices, else entries of /proc/driver/nvidia-nvswitch/devices; absent: neither readable") \
	X(U64, fm_running, "", GAUGE, "1 when an nv-fabricmanager process runs, 0 when none does; absent: gpudoctor cannot tell (fm_reason)") \
	X(S256, fm_evidence, "", LABEL, "how fm_running was seen: the process (pid), its pid file, a systemd unit state") \
	X(S256, fm_reason, "", LABEL, "why fm_running is absent") \
	X(S256, fm_log, "", LABEL, "Fabric Manager log read (/var/log/fabricmanager.log, or a --from file)") \
	X(U64, fm_log_lines, "", GAUGE, "lines of the Fabric Manager log read") \
	X(U64, fm_log_errors, "", GAUGE, "ERROR and CRITICAL lines of the Fabric Manager log inside the look-back (NVSwitch non-fatal error reports and NV_WARN_NOTHING_TO_DO not counted)") \
	X(U64, fm_log_fatal, "", GAUGE, "of fm_log_errors, lines that report a fatal error") \
	X(U64, fm_log_nonfatal, "", GAUGE, "\"detected NVSwitch non-fatal error\" lines inside the look-back") \
	X(S256, fm_log_last, "", LABEL, "the latest error line (its text after the level)") \
	X(S32, fm_log_last_time, "", LABEL, "its time stamp as the log writes it (local time: Feb 27 2025 15:10:02)")

/* ---- job_log[]: messages of the job's own log (src/offline/joblog.c) --- */
#define GD_JOB_LOG_FIELDS(X) \
	X(S32, kind, "", LABEL, "cuda_oom, ecc_uncorrectable, shm_exhausted, cuda_too_new, devices_busy, no_gpus, cuda_not_ready, app_fault, collective_timeout, collective_progress, job_died, loader_killed, nccl_net, nccl_channel, nccl_ib_disable, nccl_no_ib, nccl_comm, nccl_host, rank_host, nccl_ib_wc, nccl_ib_async, exit_signal; dcgmi_* (what dcgmi diag, dmon, health say: src/offline/dcgmi.c)") \
	X(S256, file, "", LABEL, "the file the line is in") \
	X(U64, line, "", LABEL, "its line number in that file (1 = the first)") \
	X(S64, host, "", LABEL, "host name the line names (NCCL's host:pid:tid prefix)") \
	X(U64, rank, "", LABEL, "global rank the line names ([rank3]:, [Rank 3], NCCL's rank N)") \
	X(U64, gpu, "", LABEL, "CUDA device index the line names (GPU 0 of an out-of-memory message, NCCL's [dev])") \
	X(U64, pid, "", LABEL, "process the line names (a DataLoader worker, NCCL's pid)") \
	X(S32, what, "", LABEL, "app_fault: illegal_address, device_assert, misaligned_address; collective: the op; loader: the signal; nccl_net, nccl_channel: the transport; dcgmi: the test or the health system") \
	X(U64, seq, "", LABEL, "collective: its sequence number (SeqNum); collective_progress: the work the watchdog timed out at") \
	X(F64, timeout_s, "seconds", GAUGE, "collective: the time-out it was given") \
	X(F64, ran_s, "seconds", GAUGE, "collective: how long it ran before it timed out") \
	X(U64, nranks, "", GAUGE, "NCCL communicator: ranks") \
	X(U64, nnodes, "", GAUGE, "NCCL communicator: nodes (NCCL 2.19 and later)") \
	X(U64, value, "", GAUGE, "nccl_ib_disable: the value set; cuda_too_new: the driver's CUDA version found (11040 = 11.4); cuda_not_ready: the CUDA error (802); dcgmi_xid: the Xid; dcgmi_health*: DCGM's verdict (1 Warning, 2 Failure)") \
	X(U64, tried_bytes, "bytes", GAUGE, "out of memory: the allocation that failed") \
	X(U64, total_bytes, "bytes", GAUGE, "out of memory: the GPU's total capacity") \
	X(U64, free_bytes, "bytes", GAUGE, "out of memory: free device memory") \
	X(U64, allocated_bytes, "bytes", GAUGE, "out of memory: memory allocated by PyTorch") \
	X(S256, text, "", LABEL, "the line (from the message when it is long; non-ASCII bytes as ?)") \
	GD_JOB_LOG_RANK_FIELDS(X) \
	GD_JOB_LOG_IB_FIELDS(X)

/* job_log[]: NCCL's InfiniBand errors (kinds nccl_ib_wc, nccl_ib_async; joblog.c) */
#define GD_JOB_LOG_IB_FIELDS(X) \
	X(S64, peer, "", LABEL, "nccl_ib_wc: the peer's address (without its port)") \
	X(S32, hca, "", LABEL, "nccl_ib_wc, nccl_ib_async: the RDMA device and port the line names (mlx5_0:1)") \
	X(U64, wc_status, "", LABEL, "nccl_ib_wc: the ibv_wc_status of the completion (12 retry exceeded, 5 flushed, ...)")

/* job_log[]: one rank's progress in its collectives, for the verdict across
 * ranks (kind collective_progress, and collective_timeout's numbers; joblog.c) */
#define GD_JOB_LOG_RANK_FIELDS(X) \
	X(S16, rank_from, "", LABEL, "where the rank came from: prefix (a launcher's: [rank3]:, srun's 3: , mpirun's [1,3]<stderr>:), line ([Rank 3], [PG 0 Rank 3]), file (its name: rank3.log); absent: no rank") \
	X(S64, pg, "", LABEL, "process group the watchdog line names (PG 1, PG ID 0 PG GUID 0(default_pg))") \
	X(F64, last_enqueued, "", GAUGE, "collective_progress: the rank's last enqueued NCCL work (-1: none ever)") \
	X(F64, last_completed, "", GAUGE, "collective_progress: its last completed NCCL work (-1: none ever)") \
	X(U64, numel_in, "", GAUGE, "collective_timeout: NumelIn (absent when PyTorch prints -1 as 18446744073709551615)") \
	X(U64, numel_out, "", GAUGE, "collective_timeout: NumelOut") \
	X(U64, peer_rank, "", LABEL, "collective_progress: the rank whose time-out sent the dump signal")

/* ---- probe[]: results of gpudoctor probe (src/probe, cli/cli_probe.c) -- */
#define GD_PROBE_FIELDS(X) \
	X(U64, gpu, "", LABEL, "NVML index of the GPU probed (absent: a host probe)") \
	X(S32, pci_bus_id, "", LABEL, "its PCI address, dddd:bb:dd.f") \
	X(S32, probe, "", LABEL, "compute_fp32, compute_bf16, mem_bandwidth, mem_pattern, h2d, d2h, h2d_all, d2h_all, p2p") \
	X(U64, peer, "", LABEL, "p2p: NVML index of the GPU copied to") \
	X(S16, unit, "", LABEL, "unit of achieved and sku_expected: GB/s (10^9 bytes copied per second) or GFLOP/s") \
	X(S16, status, "", LABEL, "ok, failed, hung (killed at its deadline), skipped, not_run") \
	X(F64, achieved, "", GAUGE, "the figure measured") \
	X(F64, sku_expected, "", GAUGE, "what this GPU model reaches, from the probe SKU table (PCIe from the link; compute and memory bandwidth only where the table gives the share our kernels reach)") \
	X(U64, errors, "", GAUGE, "words or results that came back wrong") \
	X(U64, checked, "", GAUGE, "words or results compared") \
	X(S32, digest, "", LABEL, "compute: hash of the first result (identical inputs on every GPU)") \
	X(U64, link_gen, "", GAUGE, "PCIe generation while the probe ran (the highest NVML sample)") \
	X(U64, link_width, "lanes", GAUGE, "PCIe width while the probe ran (the highest NVML sample)") \
	X(F64, temp_c, "celsius", GAUGE, "compute: GPU temperature at the end of the burn") \
	X(U64, sm_clock_mhz, "mhz", GAUGE, "compute: SM clock at the end of the burn") \
	X(F64, power_w, "watts", GAUGE, "compute: power drawn at the end of the burn") \
	X(F64, seconds, "seconds", GAUGE, "GPU time the figure was measured over") \
	X(F64, finished_s, "seconds", GAUGE, "wall-clock time the probe run ended, seconds since the epoch") \
	X(S256, reason, "", LABEL, "why failed, hung or skipped")

/* ---- declare the structs --------------------------------------------- */
#define GD_MEMBER_U64(n) struct gd_u64 n;
#define GD_MEMBER_F64(n) struct gd_f64 n;
#define GD_MEMBER_S16(n) char n[16];
#define GD_MEMBER_S32(n) char n[32];
#define GD_MEMBER_S64(n) char n[64];
#define GD_MEMBER_S256(n) char n[256];
#define GD_DECLARE(type, name, unit, kind, help) GD_MEMBER_##type(name)

struct gd_host { GD_HOST_FIELDS(GD_DECLARE) };
struct gd_cpu { GD_CPU_FIELDS(GD_DECLARE) };
struct gd_cpus { GD_CPUS_FIELDS(GD_DECLARE) };
struct gd_psi { GD_PSI_FIELDS(GD_DECLARE) };
struct gd_mem { GD_MEM_FIELDS(GD_DECLARE) };
struct gd_tcp { GD_TCP_FIELDS(GD_DECLARE) };
struct gd_disk { GD_DISK_FIELDS(GD_DECLARE) };
struct gd_mount { GD_MOUNT_FIELDS(GD_DECLARE) };
struct gd_netif { GD_NETIF_FIELDS(GD_DECLARE) };
struct gd_nic_irq { GD_NIC_IRQ_FIELDS(GD_DECLARE) };
struct gd_ib_port { GD_IB_PORT_FIELDS(GD_DECLARE) };
struct gd_sensor { GD_SENSOR_FIELDS(GD_DECLARE) };
struct gd_shm { GD_SHM_FIELDS(GD_DECLARE) };
struct gd_cgroup { GD_CGROUP_FIELDS(GD_DECLARE) };
struct gd_proc { GD_PROC_FIELDS(GD_DECLARE) };
struct gd_thread { GD_THREAD_FIELDS(GD_DECLARE) };
struct gd_job_thread { GD_JOB_THREAD_FIELDS(GD_DECLARE) };
struct gd_job_socket { GD_JOB_SOCKET_FIELDS(GD_DECLARE) };
struct gd_job_rank { GD_JOB_RANK_FIELDS(GD_DECLARE) };
struct gd_klog_event { GD_KLOG_FIELDS(GD_DECLARE) };
struct gd_klog_info { GD_KLOG_INFO_FIELDS(GD_DECLARE) };
struct gd_edac { GD_EDAC_FIELDS(GD_DECLARE) };
struct gd_source { GD_SOURCE_FIELDS(GD_DECLARE) };
struct gd_nvml_info { GD_NVML_FIELDS(GD_DECLARE) };
struct gd_gpu { GD_GPU_FIELDS(GD_DECLARE) };
struct gd_gpu_proc { GD_GPU_PROC_FIELDS(GD_DECLARE) };
struct gd_gpu_sample { GD_GPU_SAMPLE_FIELDS(GD_DECLARE) };
struct gd_gpu_activity { GD_GPU_ACTIVITY_FIELDS(GD_DECLARE) };
struct gd_nvml_error { GD_NVML_ERROR_FIELDS(GD_DECLARE) };
struct gd_pci_gpu { GD_PCI_GPU_FIELDS(GD_DECLARE) };
struct gd_pci_nic { GD_PCI_NIC_FIELDS(GD_DECLARE) };
struct gd_pci_bridge { GD_PCI_BRIDGE_FIELDS(GD_DECLARE) };
struct gd_pci_iommu { GD_PCI_IOMMU_FIELDS(GD_DECLARE) };
struct gd_pci_topo { GD_PCI_TOPO_FIELDS(GD_DECLARE) };
struct gd_driver { GD_DRIVER_FIELDS(GD_DECLARE) };
struct gd_fabric { GD_FABRIC_FIELDS(GD_DECLARE) };
struct gd_job_log { GD_JOB_LOG_FIELDS(GD_DECLARE) };
struct gd_probe_row { GD_PROBE_FIELDS(GD_DECLARE) };

struct gd_snapshot {
	struct gd_host host;
	struct gd_cpu cpu;
	struct gd_psi psi;
	struct gd_mem mem;
	struct gd_tcp tcp;
	struct gd_klog_info klog_info;
	struct gd_vec cpus;      /* struct gd_cpus */
	struct gd_vec disks;     /* struct gd_disk */
	struct gd_vec mounts;    /* struct gd_mount */
	struct gd_vec netifs;    /* struct gd_netif */
	struct gd_vec nic_irqs;  /* struct gd_nic_irq */
	struct gd_vec ib_ports;  /* struct gd_ib_port */
	struct gd_vec sensors;   /* struct gd_sensor */
	struct gd_vec shm;       /* struct gd_shm */
	struct gd_vec cgroups;   /* struct gd_cgroup */
	struct gd_vec procs;     /* struct gd_proc */
	struct gd_vec threads;   /* struct gd_thread */
	struct gd_vec job_threads; /* struct gd_job_thread */
	struct gd_vec job_sockets; /* struct gd_job_socket */
	struct gd_vec job_ranks; /* struct gd_job_rank */
	struct gd_vec klog;      /* struct gd_klog_event */
	struct gd_vec edac;      /* struct gd_edac */
	struct gd_vec sources;   /* struct gd_source */
	struct gd_nvml_info nvml;
	struct gd_vec gpus;      /* struct gd_gpu */
	struct gd_vec gpu_procs; /* struct gd_gpu_proc */
	struct gd_vec gpu_samples; /* struct gd_gpu_sample */
	struct gd_vec gpu_activity; /* struct gd_gpu_activity */
	struct gd_vec nvml_errors; /* struct gd_nvml_error */
	struct gd_vec pci_gpus;  /* struct gd_pci_gpu */
	struct gd_vec pci_nics;  /* struct gd_pci_nic */
	struct gd_vec pci_bridges; /* struct gd_pci_bridge */
	struct gd_vec pci_iommu; /* struct gd_pci_iommu */
	struct gd_vec pci_topo;  /* struct gd_pci_topo */
	struct gd_driver driver;
	struct gd_fabric fabric;
	struct gd_vec job_log;   /* struct gd_job_log */
	struct gd_vec probe;     /* struct gd_probe_row */
};

/* ---- field tables ------------------------------------------------------ */
enum gd_ftype { GD_FT_U64, GD_FT_F64, GD_FT_STR };
enum gd_fkind { GD_FK_GAUGE, GD_FK_COUNTER, GD_FK_LABEL };

struct gd_field {
	const char *name;
	enum gd_ftype type;
	size_t offset;
	size_t size;        /* bytes of the member (the array size for strings) */
	const char *unit;
	enum gd_fkind kind;
	const char *help;
};

struct gd_record_desc {
	const char *name;           /* JSON key of the section */
	size_t size;                /* sizeof the record struct */
	const struct gd_field *fields;
	size_t nfields;
	size_t offset;              /* offset of the member in struct gd_snapshot */
	bool is_array;              /* a struct gd_vec of records, or one record */
};

/* The sections of a snapshot in serialisation order. */
extern const struct gd_record_desc gd_sections[];
extern const size_t gd_nsections;

const struct gd_record_desc *gd_section_find(const char *name);
const struct gd_field *gd_field_find(const struct gd_record_desc *d, const char *name);

/* ---- lifecycle --------------------------------------------------------- */
void gd_snapshot_init(struct gd_snapshot *s);
void gd_snapshot_release(struct gd_snapshot *s);
void gd_snapshot_clear(struct gd_snapshot *s);

/* ---- lookups ----------------------------------------------------------- */
/* The process with that pid in s->procs, or NULL.  The collector writes
 * procs in ascending pid order, so this is a binary search; a snapshot in
 * another order (one a test built, a recording from an older version) is
 * searched in full when the binary search misses, so the answer never
 * depends on the order, only the cost does. */
const struct gd_proc *gd_snapshot_proc(const struct gd_snapshot *s, uint64_t pid);

/* Copies a char array safely (always NUL-terminated, truncating). */
#define GD_STRSET(dst, src) gd_strlcpy((dst), (src), sizeof(dst))
void gd_strlcpy(char *dst, const char *src, size_t dstsz);

/* Typed pushes that keep call sites short. */
#define GD_PUSH(snap, vecname, type) ((type *)gd_vec_push(&(snap)->vecname, sizeof(type)))

/* Status words of a source, as stored in gd_source.status. */
enum gd_src_status { GD_SRC_OK, GD_SRC_ABSENT, GD_SRC_DENIED, GD_SRC_PARTIAL, GD_SRC_FAILED };
const char *gd_src_status_name(enum gd_src_status st);
/* Maps a -errno from a read to absent/denied/failed. */
enum gd_src_status gd_src_status_of_errno(int neg_errno);

#endif
