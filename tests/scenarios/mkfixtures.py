#!/usr/bin/env python3
"""
mkfixtures.py - writes the scenario fixture trees from one model of a host.

The trees under base/ and each NNNN-name/t0, t1 are the test data; this script
is how they were made, kept so that a change to the healthy host (a new file a
collector reads, a new process) reaches every scenario consistently.  run.sh
never runs it.  Usage, from the repository root:

    python3 tests/scenarios/mkfixtures.py        # rewrite base/ and overlays

It writes base/t0 and base/t1 in full (a healthy 8-CPU GPU training host at
uptime 1000.00 s and 1002.00 s) and, for each scenario, only the files whose
content differs from base at the same instant.  It never touches args or
expected.txt.

The host: gpu-node-017, one socket with 4 cores x 2 threads, 503 GiB of RAM,
an NVMe data disk and a SATA HDD archive, a 100 GbE port (eth0, ice) and a
400 Gb/s InfiniBand HCA (mlx5_0, ib0).  A Kubernetes pod (cgroup
/kubepods/pod1/job) runs `python train.py` (pid 4242) holding /dev/nvidia0..3,
with four DataLoader workers; gpudoctor itself is pid 7777 in an ssh session
(proc/self -> 7777).  Healthy rates over the 2 s window: CPUs 40% busy, the
NVMe disk 15% busy with 128 KiB reads, eth0 at 20% of its speed, TCP
retransmits 0.01%, no errors, no throttling, inlet air 22 C.
"""
import copy
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HZ = 100
WIN = 2.0
NCPU = 8
UP0 = 1000.0
BTIME = 1735689600
KB = 1024
GIB = 1 << 30


class Link:
    def __init__(self, target):
        self.target = target

    def __eq__(self, o):
        return isinstance(o, Link) and o.target == self.target


# ---------------------------------------------------------------- the model
def base_model():
    m = {}
    # per-CPU tick deltas over the window (idle is the remainder of 200)
    m["cpu_delta"] = [dict(user=66 + (i % 3) - 1, nice=0, system=10, iowait=2, irq=1, softirq=3, steal=0)
                      for i in range(NCPU)]
    m["procs_running"] = 5
    m["procs_blocked"] = 0
    m["loadavg"] = (3.21, 3.05, 2.98)
    m["psi"] = dict(cpu=2.10, memory=0.00, memory_full=0.00, io=0.45, io_full=0.12)
    m["mem"] = dict(MemTotal=527952412, MemFree=180233480, MemAvailable=402118756, Buffers=812340,
                    Cached=215004112, Shmem=24117248, SwapTotal=8388604, SwapFree=8388604,
                    Dirty=2048, Writeback=0)
    m["vm_delta"] = dict(pswpin=0, pswpout=0, pgmajfault=4, oom_kill=0, allocstall_normal=0,
                         allocstall_movable=0, pgfault=180000, pgpgin=102400, pgpgout=2048)
    # disks: cumulative at t0 and deltas over the window
    m["disks"] = {
        "nvme0n1": dict(maj=259, min=0, rot=0,
                        d=dict(reads=800, rmerged=10, rsect=800 * 256, rms=120, writes=60, wmerged=5,
                               wsect=60 * 64, wms=12, inflight=2, io_ms=300, wio_ms=150)),
        "sda": dict(maj=8, min=0, rot=1,
                    d=dict(reads=0, rmerged=0, rsect=0, rms=0, writes=4, wmerged=1, wsect=64,
                           wms=30, inflight=0, io_ms=20, wio_ms=30)),
    }
    # network interfaces: deltas over the window
    m["netifs"] = {
        "lo": dict(rx_bytes=2400000, rx_packets=4000, tx_bytes=2400000, tx_packets=4000),
        "eth0": dict(rx_bytes=5000000000, rx_packets=561798, tx_bytes=500000000, tx_packets=357142),
        "ib0": dict(rx_bytes=10400000, rx_packets=2600, tx_bytes=9800000, tx_packets=2500),
    }
    m["netif_err_delta"] = {}   # name -> {rx_errs: n, ...}
    m["netif_sys"] = {
        "eth0": dict(operstate="up", flags="0x1003", speed="100000", carrier="1", type="1", mtu="9000"),
        "ib0": dict(operstate="up", flags="0x1003", speed="400000", carrier="1", type="32", mtu="4092"),
        "lo": dict(operstate="unknown", flags="0x9", speed=None, carrier="1", type="772", mtu="65536"),
    }
    m["freeze_netif"] = []      # interfaces whose counters do not move
    m["tcp_delta"] = dict(ActiveOpens=4, PassiveOpens=2, InSegs=560000, OutSegs=360000, RetransSegs=36,
                          InErrs=0, OutRsts=3)
    m["tcpext_delta"] = dict(TCPTimeouts=0, TCPLostRetransmit=0, TCPFastRetrans=30, TCPSlowStartRetrans=0)
    # eth0 queue IRQs: per-queue interrupts in the window, and which CPU serves each
    m["eth0_irq_per_queue"] = 20000
    m["eth0_irq_cpu"] = list(range(NCPU))  # queue i -> cpu
    m["ib"] = dict(state="4: ACTIVE", phys_state="5: LinkUp", rate="400 Gb/sec (4X NDR)",
                   err0={}, err_delta={}, data_words=7500000000, frozen=False)
    m["throttle_delta"] = dict(core=0, package=0)
    m["temps"] = dict(package=58000, cores=[55000, 57000, 56000, 54000], inlet=22000, exhaust=38000)
    m["cpufreq"] = dict(governor="performance", driver="intel_pstate", cur=3400000, max=3800000, min=800000)
    m["cg_job"] = dict(cpu_max="600000 100000", periods=20, throttled=0, throttled_us=0,
                       mem_current=96 * GIB + 123456789, mem_max=str(256 * GIB), mem_high="max",
                       ev_delta=dict(high=0, max=0, oom=0, oom_kill=0))
    m["job_shm"] = "16777216k"
    m["nfs"] = False
    # processes: t0 cumulative ticks derive from start time; deltas over the window
    m["procs"] = base_procs()
    # the GPUs on the PCI bus (the bus ids of base/nvml.ini), each behind a
    # PCIe switch; gpu0 shares eth0's host bridge, gpu1-3 mlx5_0's
    m["pci_gpus"] = [
        dict(bdf="0000:1b:00.0", path="pci0000:16/0000:16:03.0/0000:19:00.0/0000:1a:00.0", numa=0),
        dict(bdf="0000:43:00.0", path="pci0000:38/0000:38:03.0/0000:40:00.0/0000:41:00.0", numa=0),
        dict(bdf="0000:52:00.0", path="pci0000:38/0000:38:04.0/0000:50:00.0/0000:51:00.0", numa=0),
        dict(bdf="0000:61:00.0", path="pci0000:38/0000:38:05.0/0000:5f:00.0/0000:60:00.0", numa=0),
    ]
    for g in m["pci_gpus"]:
        g.update(speed="32.0 GT/s PCIe", width=16, aer_cor=0, driver="nvidia")
    m["nic_numa"] = dict(eth0=0, ib0=0)
    m["numa"] = {0: list(range(NCPU))}
    m["driver"] = ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"
                   "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n")
    m["cudart"] = "/opt/conda/lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12"
    return m


def proc(pid, ppid, comm, cmdline, start, cg, ns="host", du=0, ds=0, kthread=False, uid=0, state="S",
         rss_kb=0, drchar=0, dread=0, dwchar=0, dwrite=0, fds=None, threads=None, nspid=None):
    return dict(pid=pid, ppid=ppid, comm=comm, cmdline=cmdline, start=start, cg=cg, ns=ns, du=du, ds=ds,
                kthread=kthread, uid=uid, state=state, rss_kb=rss_kb, drchar=drchar, dread=dread,
                dwchar=dwchar, dwrite=dwrite, fds=fds or {}, threads=threads, nspid=nspid)


JOB_CG = "/kubepods/pod1/job"
SELF_CG = "/user.slice/user-0.slice/session-3.scope"
TRAIN = "python train.py --config configs/resnet50.yaml --batch-size 256 --workers 4"


def base_procs():
    p = {}
    p[1] = proc(1, 0, "systemd", "/sbin/init splash", 1, "/init.scope", rss_kb=13312,
                fds={0: "/dev/null", 1: "/dev/null", 2: "/dev/null", 3: "/dev/kmsg",
                     4: "anon_inode:[eventpoll]", 5: "anon_inode:[signalfd]", 6: "socket:[12001]"})
    p[2] = proc(2, 0, "kthreadd", "", 1, "/", kthread=True)
    p[215] = proc(215, 2, "kworker/3:1H-kblockd", "", 52, "/", kthread=True, state="I", ds=1)
    p[1500] = proc(1500, 1, "sshd", "sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups", 1210,
                   "/system.slice/ssh.service", rss_kb=9216,
                   fds={0: "/dev/null", 1: "socket:[21877]", 2: "socket:[21877]", 3: "socket:[22001]"})
    p[1800] = proc(1800, 1, "tmux: server", "tmux new -s monitor", 15000,
                   "/user.slice/user-1000.slice/session-2.scope", uid=1000, rss_kb=4608,
                   fds={0: "/dev/null", 1: "/dev/null", 2: "/dev/null", 3: "socket:[30112]"})
    p[4100] = proc(4100, 1, "containerd-shim", "/usr/bin/containerd-shim-runc-v2 -namespace k8s.io -id "
                   "3f2a9c0d1e7b -address /run/containerd/containerd.sock", 19950,
                   "/system.slice/containerd.service", du=1, rss_kb=14336,
                   fds={0: "/dev/null", 1: "/dev/null", 2: "/dev/null", 3: "socket:[40121]"})
    p[4200] = proc(4200, 4100, "bash", "/bin/bash /workspace/train.sh", 20010, JOB_CG, ns="job", rss_kb=3584,
                   nspid=1, fds={0: "/dev/null", 1: "pipe:[41002]", 2: "pipe:[41002]"})
    gpu_fds = {0: "/dev/null", 1: "pipe:[41002]", 2: "pipe:[41002]", 3: "/dev/nvidiactl",
               4: "/dev/nvidia-uvm", 5: "/dev/nvidia0", 6: "/dev/nvidia1", 7: "/dev/nvidia2",
               8: "/dev/nvidia3", 9: "anon_inode:[eventfd]", 10: "socket:[41533]",
               11: "/data/imagenet/train.lmdb/data.mdb", 12: "/dev/nvidia0", 13: "/dev/nvidia1",
               14: "/dev/nvidia2", 15: "/dev/nvidia3", 16: "anon_inode:[eventpoll]"}
    p[4242] = proc(4242, 4200, "python", TRAIN, 20150, JOB_CG, ns="job", du=96, ds=24, state="R",
                   rss_kb=18874368, drchar=100000000, dread=2000000, dwchar=400000, dwrite=0,
                   fds=gpu_fds, nspid=17,
                   threads=[(4242, "python", 0.55), (4243, "cuda-EvtHandlr", 0.05),
                            (4244, "pt_autograd_0", 0.15), (4245, "pt_autograd_1", 0.15),
                            (4246, "python", 0.10)])
    for i in range(4):
        pid = 4301 + i
        p[pid] = proc(pid, 4242, "pt_data_worker", TRAIN, 20400 + i, JOB_CG, ns="job", du=85, ds=15,
                      state="R" if i % 2 == 0 else "S", rss_kb=3145728, drchar=12500000, dread=12500000,
                      nspid=30 + i, threads=[(pid, "pt_data_worker", 1.0)],
                      fds={0: "/dev/null", 1: "pipe:[41002]", 2: "pipe:[41002]",
                           3: "/data/imagenet/train.lmdb/data.mdb",
                           4: "/dev/shm/torch_%d_2981739274_%d (deleted)" % (pid, i),
                           5: "socket:[4160%d]" % i})
    p[6100] = proc(6100, 1500, "bash", "-bash", 95000, SELF_CG, rss_kb=5120,
                   fds={0: "/dev/pts/0", 1: "/dev/pts/0", 2: "/dev/pts/0", 255: "/dev/pts/0"})
    p[7777] = proc(7777, 6100, "gpudoctor", "gpudoctor check", 99800, SELF_CG, du=1, state="R", rss_kb=6144,
                   fds={0: "/dev/pts/0", 1: "/dev/pts/0", 2: "/dev/pts/0"})
    return p


# ---------------------------------------------------------------- rendering
def cpu_ticks(m, t):
    """Per-CPU cumulative ticks at instant t (0 or 1)."""
    out = []
    for i in range(NCPU):
        c0 = dict(user=38000 + 37 * i, nice=120, system=5200 + 11 * i, idle=55000 - 48 * i, iowait=900,
                  irq=300, softirq=480, steal=0)
        d = dict(m["cpu_delta"][i])
        d["idle"] = int(HZ * WIN) - sum(d.values())
        assert d["idle"] >= 0, d
        out.append({k: c0[k] + t * d[k] for k in c0})
    return out


KEYS = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]


def r_stat(m, t):
    cpus = cpu_ticks(m, t)
    tot = {k: sum(c[k] for c in cpus) for k in KEYS}
    line = lambda name, c: name + " " + " ".join(str(c[k]) for k in KEYS) + " 0 0"
    out = [line("cpu ", tot)] + [line("cpu%d" % i, c) for i, c in enumerate(cpus)]
    intr = 98765432 + t * 512000
    out.append("intr %d 45 9 0 0 0 0 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0" % intr)
    out.append("ctxt %d" % (412345678 + t * 190000))
    out.append("btime %d" % BTIME)
    out.append("processes %d" % (61234 + t * 12))
    out.append("procs_running %d" % m["procs_running"])
    out.append("procs_blocked %d" % m["procs_blocked"])
    sirq = 55443322 + t * 300000
    out.append("softirq %d 12 21000000 350000 17000000 900000 0 120000 9000000 0 7073310" % sirq)
    return "\n".join(out) + "\n"


def r_cpuinfo():
    blocks = []
    for i in range(NCPU):
        core = i % 4
        blocks.append("""processor\t: {i}
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 143
model name\t: Intel(R) Xeon(R) Gold 6434
stepping\t: 8
microcode\t: 0x2b000590
cpu MHz\t\t: 3400.000
cache size\t: 23040 KB
physical id\t: 0
siblings\t: 8
core id\t\t: {core}
cpu cores\t: 4
apicid\t\t: {apic}
initial apicid\t: {apic}
fpu\t\t: yes
fpu_exception\t: yes
cpuid level\t: 31
wp\t\t: yes
flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf tsc_known_freq pni pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid dca sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch cpuid_fault epb cat_l3 cat_l2 cdp_l3 intel_ppin cdp_l2 ssbd mba ibrs ibpb stibp ibrs_enhanced tpr_shadow flexpriority ept vpid ept_ad fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid cqm rdt_a avx512f avx512dq rdseed adx smap avx512ifma clflushopt clwb intel_pt avx512cd sha_ni avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local split_lock_detect avx_vnni avx512_bf16 wbnoinvd dtherm ida arat pln pts hfi vnmi avx512vbmi umip pku ospke waitpkg avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni avx512_bitalg tme avx512_vpopcntdq la57 rdpid bus_lock_detect cldemote movdiri movdir64b enqcmd fsrm md_clear serialize tsxldtrk pconfig arch_lbr ibt amx_bf16 avx512_fp16 amx_tile amx_int8 flush_l1d arch_capabilities
bugs\t\t: spectre_v1 spectre_v2 spec_store_bypass swapgs eibrs_pbrsb bhi
bogomips\t: 7200.00
clflush size\t: 64
cache_alignment\t: 64
address sizes\t: 46 bits physical, 57 bits virtual
power management:
""".format(i=i, core=core, apic=core * 2 + i // 4))
    return "\n".join(blocks) + "\n"


def r_psi(m, t):
    def tot(base, pct):
        return base + int(t * WIN * 1e6 * pct / 100)
    p = m["psi"]
    cpu = ("some avg10={0:.2f} avg60={1:.2f} avg300={2:.2f} total={3}\n"
           "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n").format(
        p["cpu"], p["cpu"] * 0.9, p["cpu"] * 0.8, tot(18734221, p["cpu"]))
    mem = ("some avg10={0:.2f} avg60={1:.2f} avg300={2:.2f} total={3}\n"
           "full avg10={4:.2f} avg60={5:.2f} avg300={6:.2f} total={7}\n").format(
        p["memory"], p["memory"] * 0.9, p["memory"] * 0.8, tot(1123456, p["memory"]),
        p["memory_full"], p["memory_full"] * 0.9, p["memory_full"] * 0.8, tot(402311, p["memory_full"]))
    io = ("some avg10={0:.2f} avg60={1:.2f} avg300={2:.2f} total={3}\n"
          "full avg10={4:.2f} avg60={5:.2f} avg300={6:.2f} total={7}\n").format(
        p["io"], p["io"] * 0.9, p["io"] * 0.8, tot(5234567, p["io"]),
        p["io_full"], p["io_full"] * 0.9, p["io_full"] * 0.8, tot(2100456, p["io_full"]))
    return cpu, mem, io


MEMINFO_ORDER = """MemTotal MemFree MemAvailable Buffers Cached SwapCached Active Inactive Active(anon)
Inactive(anon) Active(file) Inactive(file) Unevictable Mlocked SwapTotal SwapFree Zswap Zswapped Dirty
Writeback AnonPages Mapped Shmem KReclaimable Slab SReclaimable SUnreclaim KernelStack PageTables
SecPageTables NFS_Unstable Bounce WritebackTmp CommitLimit Committed_AS VmallocTotal VmallocUsed
VmallocChunk Percpu HardwareCorrupted AnonHugePages ShmemHugePages ShmemPmdMapped FileHugePages
FilePmdMapped Unaccepted HugePages_Total HugePages_Free HugePages_Rsvd HugePages_Surp Hugepagesize Hugetlb
DirectMap4k DirectMap2M DirectMap1G""".split()


def r_meminfo(m, t):
    v = dict(m["mem"])
    total, avail = v["MemTotal"], v["MemAvailable"]
    used = total - v["MemFree"] - v["Buffers"] - v["Cached"]
    drift = 2048 * t   # a little movement between samples
    vals = dict(SwapCached=0, Active=used // 2 + v["Cached"] // 2, Inactive=used // 2 + v["Cached"] // 2,
                Unevictable=17592, Mlocked=16612, Zswap=0, Zswapped=0, AnonPages=used - 4 * GIB // KB,
                Mapped=3145728, KReclaimable=6291456, Slab=9437184, SReclaimable=6291456, SUnreclaim=3145728,
                KernelStack=49152, PageTables=262144, SecPageTables=0, NFS_Unstable=0, Bounce=0,
                WritebackTmp=0, CommitLimit=total // 2 + v["SwapTotal"], Committed_AS=used + 8 * GIB // KB,
                VmallocTotal=34359738367, VmallocUsed=412312, VmallocChunk=0, Percpu=98304,
                HardwareCorrupted=0, AnonHugePages=2097152, ShmemHugePages=0, ShmemPmdMapped=0,
                FileHugePages=0, FilePmdMapped=0, Unaccepted=0, HugePages_Total=0, HugePages_Free=0,
                HugePages_Rsvd=0, HugePages_Surp=0, Hugepagesize=2048, Hugetlb=0, DirectMap4k=1431552,
                DirectMap2M=39778304, DirectMap1G=497025024)
    vals["Active(anon)"] = used // 2
    vals["Inactive(anon)"] = used // 2 - 4 * GIB // KB
    vals["Active(file)"] = v["Cached"] // 2
    vals["Inactive(file)"] = v["Cached"] // 2
    vals.update(v)
    vals["MemFree"] -= drift
    vals["MemAvailable"] = avail - drift - t * m.get("avail_drop_kb", 0)
    out = []
    for k in MEMINFO_ORDER:
        n = vals[k]
        if k.startswith("HugePages_"):
            out.append("%-15s %8d" % (k + ":", n))
        else:
            out.append("%-15s %8d kB" % (k + ":", n))
    return "\n".join(out) + "\n"


VM_BASE = dict(pswpin=1204, pswpout=3310, pgmajfault=88123, oom_kill=0, allocstall_normal=0,
               allocstall_movable=0, pgfault=912345678, pgpgin=2123456789, pgpgout=412345678)


def r_vmstat(m, t):
    out = []
    with open(os.path.join(HERE, "templates", "vmstat")) as f:
        for line in f:
            k, v = line.split()
            if k in VM_BASE:
                v = str(VM_BASE[k] + t * m["vm_delta"][k])
            out.append("%s %s" % (k, v))
    return "\n".join(out) + "\n"


DISK0 = dict(nvme0n1=dict(reads=48123456, rmerged=120345, rsect=12319604736, rms=7218518, writes=3123456,
                          wmerged=412345, wsect=412345678, wms=1123456, inflight=0, io_ms=1502345,
                          wio_ms=8341974),
             sda=dict(reads=812345, rmerged=1234, rsect=1663682560, rms=6123456, writes=412345, wmerged=51234,
                      wsect=26390080, wms=3123456, inflight=0, io_ms=812345, wio_ms=9246912))


def r_diskstats(m, t):
    rows = []
    for name in ("nvme0n1", "sda"):
        d = m["disks"][name]
        c = {k: DISK0[name][k] + t * d["d"][k] for k in DISK0[name]}
        # series scenarios: extra I/O in the step that ends at sample s (t >= s)
        for s, extra in m.get("disk_bursts", {}).get(name, {}).items():
            if t >= s:
                for k, v in extra.items():
                    c[k] += v
        c["inflight"] = d["d"]["inflight"]
        rows.append((d["maj"], d["min"], name, c, True))
        # partitions: nvme0n1p1 (EFI, idle) and nvme0n1p2 (everything); sda1 (everything)
        parts = [("nvme0n1p1", 1, None), ("nvme0n1p2", 2, c)] if name == "nvme0n1" else [("sda1", 1, c)]
        for pname, pmin, pc in parts:
            if pc is None:
                pc = dict(reads=412, rmerged=0, rsect=12544, rms=80, writes=2, wmerged=0, wsect=2,
                          wms=0, inflight=0, io_ms=96, wio_ms=80)
            rows.append((d["maj"], d["min"] + pmin, pname, pc, False))
    out = []
    for maj, mn, name, c, whole in rows:
        f = [c["reads"], c["rmerged"], c["rsect"], c["rms"], c["writes"], c["wmerged"], c["wsect"], c["wms"],
             c["inflight"], c["io_ms"], c["wio_ms"], 0, 0, 0, 0]
        if whole:
            f += [123456 + t * 2, 4567 + t * 1]
        else:
            f += [0, 0]
        out.append("%4d %7d %s %s" % (maj, mn, name, " ".join(str(x) for x in f)))
    return "\n".join(out) + "\n"


NET0 = dict(lo=dict(rx_bytes=987654321, rx_packets=2345678, tx_bytes=987654321, tx_packets=2345678),
            eth0=dict(rx_bytes=2512345678901, rx_packets=283456789, tx_bytes=251234567890, tx_packets=179456123),
            ib0=dict(rx_bytes=5123456789, rx_packets=1282345, tx_bytes=4923456789, tx_packets=1232345))
NETCOLS = ["rx_bytes", "rx_packets", "rx_errs", "rx_drop", "rx_fifo", "rx_frame", "rx_compressed",
           "rx_multicast", "tx_bytes", "tx_packets", "tx_errs", "tx_drop", "tx_fifo", "tx_colls",
           "tx_carrier", "tx_compressed"]


def r_netdev(m, t):
    out = ["Inter-|   Receive                                                |  Transmit",
           " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed"]
    for name in ("lo", "eth0", "ib0"):
        tt = 0 if name in m["freeze_netif"] else t
        c = {k: 0 for k in NETCOLS}
        c.update(NET0[name])
        if name == "eth0":
            c["rx_multicast"] = 120345
            c["rx_drop"] = 12   # long ago
        for k, v in m["netifs"][name].items():
            c[k] += tt * v
        for k, v in m["netif_err_delta"].get(name, {}).items():
            c[k] += tt * v
        vals = [c[k] for k in NETCOLS]
        out.append("%6s: %s" % (name, " ".join("%d" % v for v in vals)))
    return "\n".join(out) + "\n"


TCP_BASE = dict(RtoAlgorithm=1, RtoMin=200, RtoMax=120000, MaxConn=-1, ActiveOpens=123456, PassiveOpens=45678,
                AttemptFails=123, EstabResets=456, CurrEstab=87, InSegs=912345678, OutSegs=734567890,
                RetransSegs=73456, InErrs=0, OutRsts=12345, InCsumErrors=0)


def r_snmp(m, t):
    with open(os.path.join(HERE, "templates", "snmp")) as f:
        lines = f.read().splitlines()
    out = []
    for i in range(0, len(lines), 2):
        hdr, val = lines[i], lines[i + 1]
        if hdr.startswith("Tcp:"):
            keys = hdr.split()[1:]
            vals = []
            for k in keys:
                v = TCP_BASE[k] + t * m["tcp_delta"].get(k, 0)
                vals.append(str(v))
            val = "Tcp: " + " ".join(vals)
        out += [hdr, val]
    return "\n".join(out) + "\n"


TCPEXT_BASE = dict(TCPTimeouts=812, TCPLostRetransmit=45, TCPFastRetrans=61234, TCPSlowStartRetrans=12)


def r_netstat(m, t):
    with open(os.path.join(HERE, "templates", "netstat")) as f:
        lines = f.read().splitlines()
    out = []
    for i in range(0, len(lines), 2):
        hdr, val = lines[i], lines[i + 1]
        if hdr.startswith("TcpExt:"):
            keys = hdr.split()[1:]
            vs = val.split()[1:]
            for j, k in enumerate(keys):
                if k in TCPEXT_BASE:
                    vs[j] = str(TCPEXT_BASE[k] + t * m["tcpext_delta"][k])
            val = "TcpExt: " + " ".join(vs)
        out += [hdr, val]
    return "\n".join(out) + "\n"


def r_interrupts(m, t):
    hdr = "       " + "".join("%11s" % ("CPU%d" % i) for i in range(NCPU))
    out = [hdr]

    def row(irq, counts, chip, hw, name):
        out.append("%4s: %s  %-24s %-11s %s" % (irq, "".join("%10d " % c for c in counts), chip, hw, name))

    row(0, [44] + [0] * 7, "IR-IO-APIC", "2-edge", "timer")
    row(8, [0, 0, 0, 0, 0, 0, 0, 0], "IR-IO-APIC", "8-edge", "rtc0")
    row(9, [0, 4, 0, 0, 0, 0, 0, 0], "IR-IO-APIC", "9-fasteoi", "acpi")
    nv = "IR-PCI-MSIX-0000:01:00.0"
    row(120, [231] + [0] * 7, nv, "0-edge", "nvme0q0")
    for q in range(NCPU):
        c = [0] * NCPU
        c[q] = 6012345 + 1000 * q + t * 110
        row(121 + q, c, nv, "%d-edge" % (q + 1), "nvme0q%d" % (q + 1))
    ice = "IR-PCI-MSIX-0000:17:00.0"
    row(139, [0, 0, 0, 0, 0, 0, 12, 0], ice, "0-edge", "ice-0000:17:00.0:misc")
    for q in range(NCPU):
        c = [0] * NCPU
        c[m["eth0_irq_cpu"][q]] = 9812345 + 2000 * q + t * m["eth0_irq_per_queue"]
        row(140 + q, c, ice, "%d-edge" % (q + 1), "ice-eth0-TxRx-%d" % q)
    mlx = "IR-PCI-MSIX-0000:3b:00.0"
    row(160, [0, 0, 0, 0, 0, 0, 0, 31], mlx, "0-edge", "mlx5_async0@pci:0000:3b:00.0")
    for q in range(NCPU):
        c = [0] * NCPU
        c[q] = 412345 + 100 * q + (0 if m["ib"]["frozen"] else t * 800)
        row(161 + q, c, mlx, "%d-edge" % (q + 1), "mlx5_comp%d@pci:0000:3b:00.0" % q)
    sys_rows = [("NMI", 812, "Non-maskable interrupts"), ("LOC", 4123456, "Local timer interrupts"),
                ("SPU", 0, "Spurious interrupts"), ("PMI", 812, "Performance monitoring interrupts"),
                ("IWI", 23456, "IRQ work interrupts"), ("RTR", 0, "APIC ICR read retries"),
                ("RES", 812345, "Rescheduling interrupts"), ("CAL", 412345, "Function call interrupts"),
                ("TLB", 123456, "TLB shootdowns"), ("TRM", 0, "Thermal event interrupts"),
                ("THR", 0, "Threshold APIC interrupts"), ("DFR", 0, "Deferred Error APIC interrupts"),
                ("MCE", 0, "Machine check exceptions"), ("MCP", 12, "Machine check polls")]
    for name, base, desc in sys_rows:
        step = 2000 if name in ("LOC",) else (300 if name in ("RES", "CAL") else 0)
        trm = m["throttle_delta"]["core"] if name == "TRM" else 0
        counts = [base + 17 * i + t * (step + trm) for i in range(NCPU)] if base or trm else [0] * NCPU
        out.append("%4s: %s  %s" % (name, "".join("%10d " % c for c in counts), desc))
    out.append(" ERR:          0")
    out.append(" MIS:          0")
    for name, desc in (("PIN", "Posted-interrupt notification event"), ("NPI", "Nested posted-interrupt event"),
                       ("PIW", "Posted-interrupt wakeup event")):
        out.append("%4s: %s  %s" % (name, "".join("%10d " % 0 for _ in range(NCPU)), desc))
    return "\n".join(out) + "\n"


# mount tables --------------------------------------------------------------
NFS_OPTS = ("rw,relatime,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,timeo=600,"
            "retrans=2,sec=sys,clientaddr=10.20.0.17,local_lock=none,addr=10.20.0.5")


def host_mounts(m):
    """(id, parent, majmin, root, mountpoint, mntopts, optional, fstype, source, superopts)"""
    rows = [
        (24, 1, "259:2", "/", "/", "rw,relatime", "shared:1", "ext4", "/dev/nvme0n1p2", "rw,errors=remount-ro"),
        (25, 24, "0:22", "/", "/sys", "rw,nosuid,nodev,noexec,relatime", "shared:7", "sysfs", "sysfs", "rw"),
        (26, 24, "0:23", "/", "/proc", "rw,nosuid,nodev,noexec,relatime", "shared:13", "proc", "proc", "rw"),
        (27, 24, "0:5", "/", "/dev", "rw,nosuid,relatime", "shared:2", "devtmpfs", "udev",
         "rw,size=263958900k,nr_inodes=65989725,mode=755,inode64"),
        (28, 27, "0:24", "/", "/dev/pts", "rw,nosuid,noexec,relatime", "shared:3", "devpts", "devpts",
         "rw,gid=5,mode=620,ptmxmode=000"),
        (29, 27, "0:25", "/", "/dev/shm", "rw,nosuid,nodev", "shared:4", "tmpfs", "tmpfs",
         "rw,size=16777216k,inode64"),
        (30, 24, "0:26", "/", "/run", "rw,nosuid,nodev,noexec,relatime", "shared:5", "tmpfs", "tmpfs",
         "rw,size=52795244k,mode=755,inode64"),
        (31, 25, "0:27", "/", "/sys/fs/cgroup", "rw,nosuid,nodev,noexec,relatime", "shared:9", "cgroup2",
         "cgroup2", "rw,nsdelegate,memory_recursiveprot"),
        (32, 25, "0:28", "/", "/sys/fs/pstore", "rw,nosuid,nodev,noexec,relatime", "shared:10", "pstore",
         "pstore", "rw"),
        (40, 24, "259:1", "/", "/boot/efi", "rw,relatime", "shared:30", "vfat", "/dev/nvme0n1p1",
         "rw,fmask=0077,dmask=0077,codepage=437,iocharset=iso8859-1,shortname=mixed,errors=remount-ro"),
        (41, 24, "8:1", "/", "/archive", "rw,relatime", "shared:31", "xfs", "/dev/sda1",
         "rw,attr2,inode64,logbufs=8,logbsize=32k,noquota"),
        (300, 30, "0:48", "/", "/run/user/0", "rw,nosuid,nodev,relatime", "shared:300", "tmpfs", "tmpfs",
         "rw,size=52795240k,nr_inodes=13198810,mode=700,inode64"),
    ]
    if m["nfs"]:
        rows.append((612, 24, "0:58", "/", "/mnt/datasets", "rw,relatime", "shared:340", "nfs4",
                     "10.20.0.5:/export/datasets", NFS_OPTS[3:]))
    return rows


def job_mounts(m):
    rows = [
        (1500, 1400, "0:310", "/", "/", "rw,relatime", "master:1", "overlay", "overlay",
         "rw,lowerdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/412/fs,"
         "upperdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/413/fs,"
         "workdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/413/work"),
        (1501, 1500, "0:312", "/", "/proc", "rw,nosuid,nodev,noexec,relatime", "", "proc", "proc", "rw"),
        (1502, 1500, "0:313", "/", "/dev", "rw,nosuid", "", "tmpfs", "tmpfs", "rw,size=65536k,mode=755,inode64"),
        (1503, 1502, "0:314", "/", "/dev/pts", "rw,nosuid,noexec,relatime", "", "devpts", "devpts",
         "rw,gid=5,mode=620,ptmxmode=666"),
        (1504, 1502, "0:300", "/", "/dev/shm", "rw,nosuid,nodev,noexec,relatime", "", "tmpfs", "shm",
         "rw,size=%s,inode64" % m["job_shm"]),
        (1505, 1500, "0:315", "/", "/sys", "ro,nosuid,nodev,noexec,relatime", "", "sysfs", "sysfs", "ro"),
        (1506, 1505, "0:27", JOB_CG, "/sys/fs/cgroup", "ro,nosuid,nodev,noexec,relatime", "", "cgroup2",
         "cgroup", "rw,nsdelegate,memory_recursiveprot"),
        (1507, 1500, "259:2", "/raid/datasets", "/data", "ro,relatime", "", "ext4", "/dev/nvme0n1p2",
         "rw,errors=remount-ro"),
        (1508, 1500, "259:2", "/var/lib/kubelet/pods/pod1/etc-hosts", "/etc/hosts", "rw,relatime", "", "ext4",
         "/dev/nvme0n1p2", "rw,errors=remount-ro"),
    ]
    if m["nfs"]:
        rows.append((1509, 1500, "0:58", "/", "/mnt/datasets", "ro,relatime", "master:340", "nfs4",
                     "10.20.0.5:/export/datasets", NFS_OPTS[3:]))
    return rows


def r_mountinfo(rows):
    out = []
    for mid, par, mm, root, mp, opts, opt, fst, src, sup in rows:
        out.append("%d %d %s %s %s %s %s- %s %s %s" % (mid, par, mm, root, mp, opts, (opt + " ") if opt else "",
                                                       fst, src, sup))
    return "\n".join(out) + "\n"


def r_mounts(rows):
    out = []
    for mid, par, mm, root, mp, opts, opt, fst, src, sup in rows:
        o = opts.split(",")[0] + "," + ",".join(x for x in (opts.split(",")[1:] + sup.split(",")[1:]))
        out.append("%s %s %s %s 0 0" % (src, mp, fst, o.rstrip(",")))
    return "\n".join(out) + "\n"


# processes -----------------------------------------------------------------
def proc_files(m, p, t, files):
    pid = p["pid"]
    base = "proc/%d" % pid
    age = int(UP0 * HZ) - p["start"]
    # cumulative CPU at t0: a share of its age, plus deltas
    ut0 = (age * p["du"]) // int(HZ * WIN) if p["du"] else age // 5000
    st0 = (age * p["ds"]) // int(HZ * WIN) if p["ds"] else age // 9000
    ut, st = ut0 + t * p["du"], st0 + t * p["ds"]
    nthreads = len(p["threads"]) if p["threads"] else (24 if p["comm"] == "rclone" else 1)
    flags = 69238880 if p["kthread"] else 4194560
    rss_pages = p["rss_kb"] // 4
    vsize = 0 if p["kthread"] else (p["rss_kb"] * 1024 * 3 + 112345088)
    pgrp = pid if p["ppid"] in (0, 1, 2, 1500, 4100) else p["ppid"]
    fields = [p["state"], p["ppid"], pgrp, pgrp, 34816 if p["comm"] == "bash" and pid == 6100 else 0, -1, flags,
              812345 + t * 100, 0, 123, 0, ut, st, 0, 0, 20, 0, nthreads, 0, p["start"], vsize, rss_pages,
              18446744073709551615, 94712345678 if vsize else 0, 94712399999 if vsize else 0,
              140723456789 if vsize else 0, 0, 0, 0, 0, 16781312 if not p["kthread"] else 2147483647, 17410 if
              not p["kthread"] else 0, 1, 0, 0, 17, pid % NCPU, 0, 0, 0, 0, 0]
    fields += [0] * 7 if not vsize else [94712400000, 94712410000, 94712500000, 140723456800, 140723456900,
                                         140723456900, 140723457000]
    fields.append(0)
    files[base + "/stat"] = "%d (%s) %s\n" % (pid, p["comm"], " ".join(str(x) for x in fields))
    state_name = dict(R="R (running)", S="S (sleeping)", I="I (idle)", D="D (disk sleep)")[p["state"]]
    nspid = ("%d\t%d" % (pid, p["nspid"])) if p["nspid"] else str(pid)
    status = ["Name:\t%s" % p["comm"], "Umask:\t0022", "State:\t%s" % state_name, "Tgid:\t%d" % pid, "Ngid:\t0",
              "Pid:\t%d" % pid, "PPid:\t%d" % p["ppid"], "TracerPid:\t0",
              "Uid:\t{0}\t{0}\t{0}\t{0}".format(p["uid"]), "Gid:\t{0}\t{0}\t{0}\t{0}".format(p["uid"]),
              "FDSize:\t%d" % (64 if not p["fds"] else 256), "Groups:\t", "NStgid:\t%s" % nspid,
              "NSpid:\t%s" % nspid, "NSpgid:\t%s" % nspid, "NSsid:\t%s" % nspid,
              "Kthread:\t%d" % (1 if p["kthread"] else 0)]
    if not p["kthread"]:
        status += ["VmPeak:\t%8d kB" % (vsize // 1024 + 4096), "VmSize:\t%8d kB" % (vsize // 1024),
                   "VmLck:\t       0 kB", "VmPin:\t       0 kB", "VmHWM:\t%8d kB" % (p["rss_kb"] + 1024),
                   "VmRSS:\t%8d kB" % p["rss_kb"], "RssAnon:\t%8d kB" % (p["rss_kb"] * 3 // 4),
                   "RssFile:\t%8d kB" % (p["rss_kb"] // 4), "RssShmem:\t       0 kB",
                   "VmData:\t%8d kB" % (p["rss_kb"]), "VmStk:\t     132 kB", "VmExe:\t     920 kB",
                   "VmLib:\t    8812 kB", "VmPTE:\t     412 kB", "VmSwap:\t       0 kB",
                   "HugetlbPages:\t       0 kB", "CoreDumping:\t0", "THP_enabled:\t1",
                   "untag_mask:\t0xffffffffffffffff"]
    status += ["Threads:\t%d" % nthreads, "SigQ:\t0/2062543", "SigPnd:\t0000000000000000",
               "ShdPnd:\t0000000000000000", "SigBlk:\t0000000000000000",
               "SigIgn:\t%s" % ("ffffffffffffffff" if p["kthread"] else "0000000001001000"),
               "SigCgt:\t%s" % ("0000000000000000" if p["kthread"] else "0000000180014a02"),
               "CapInh:\t0000000000000000", "CapPrm:\t000001ffffffffff", "CapEff:\t000001ffffffffff",
               "CapBnd:\t000001ffffffffff", "CapAmb:\t0000000000000000", "NoNewPrivs:\t0", "Seccomp:\t0",
               "Seccomp_filters:\t0", "Speculation_Store_Bypass:\tthread vulnerable",
               "SpeculationIndirectBranch:\tconditional enabled", "Cpus_allowed:\t%s" % p.get("cpus_mask", "ff"),
               "Cpus_allowed_list:\t%s" % p.get("cpus", "0-7"),
               "Mems_allowed:\t00000000,00000001", "Mems_allowed_list:\t0",
               "voluntary_ctxt_switches:\t%d" % (91234 + t * 40), "nonvoluntary_ctxt_switches:\t%d" % (812 + t)]
    files[base + "/status"] = "\n".join(status) + "\n"
    age_s = age / HZ
    rchar = int(age_s * p["drchar"] / WIN) + 812345 + t * p["drchar"]
    rb = int(age_s * p["dread"] / WIN) + t * p["dread"]
    wchar = int(age_s * p["dwchar"] / WIN) + 4096 + t * p["dwchar"]
    wb = int(age_s * p["dwrite"] / WIN) + t * p["dwrite"]
    files[base + "/io"] = ("rchar: %d\nwchar: %d\nsyscr: %d\nsyscw: %d\nread_bytes: %d\nwrite_bytes: %d\n"
                           "cancelled_write_bytes: 0\n") % (rchar, wchar, rchar // 65536 + 12, wchar // 4096 + 3,
                                                            rb, wb)
    files[base + "/cgroup"] = "0::%s\n" % p["cg"]
    files[base + "/cmdline"] = p["cmdline"].replace(" ", "\0") + ("\0" if p["cmdline"] else "")
    rows = job_mounts(m) if p["ns"] == "job" else host_mounts(m)
    files[base + "/mountinfo"] = r_mountinfo(rows)
    files[base + "/mounts"] = r_mounts(rows)
    if p["ns"] == "job":
        files[base + "/ns/mnt"] = Link("mnt:[4026532512]")
        files[base + "/ns/net"] = Link("net:[4026532515]")
    else:
        files[base + "/ns/mnt"] = Link("mnt:[4026531841]")
        files[base + "/ns/net"] = Link("net:[4026531840]")
    files[base + "/comm"] = p["comm"] + "\n"
    if p.get("maps"):
        files[base + "/maps"] = p["maps"]
    elif any(str(v).startswith("/dev/nvidia") and str(v)[11:12].isdigit() for v in p["fds"].values()):
        files[base + "/maps"] = r_maps(m)
    for fd, target in sorted(p["fds"].items()):
        files[base + "/fd/%d" % fd] = Link(target)
    if not p["fds"]:
        files[base + "/fd/"] = "EMPTYDIR"
    if p["threads"]:
        for tid, tcomm, share in p["threads"]:
            tu0, ts0 = int(ut0 * share), int(st0 * share)
            tu, ts = tu0 + t * round(p["du"] * share), ts0 + t * round(p["ds"] * share)
            tf = list(fields)
            tf[11], tf[12] = tu, ts
            tstate = p["state"] if tid == pid else "S"
            tf[0] = tstate
            files[base + "/task/%d/stat" % tid] = "%d (%s) %s\n" % (tid, tcomm, " ".join(str(x) for x in tf))
            files[base + "/task/%d/comm" % tid] = tcomm + "\n"


def r_maps(m):
    lib = m["cudart"]
    return ("55d4c8a00000-55d4c8a01000 r--p 00000000 103:02 2753190                   /opt/conda/bin/python3.11\n"
            "55d4c8c00000-55d4c9021000 rw-p 00000000 00:00 0                          [heap]\n"
            "7f1b1c000000-7f1b1c021000 rw-p 00000000 00:00 0 \n"
            "7f2c4a000000-7f2c4a0c8000 r--p 00000000 103:02 1835123                   %s\n"
            "7f2c4a0c8000-7f2c4a100000 r-xp 000c8000 103:02 1835123                   %s\n"
            "7f2c4b000000-7f2c4b400000 r-xp 00000000 103:02 1835901                   "
            "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15\n"
            "7ffd2c5e4000-7ffd2c606000 rw-p 00000000 00:00 0                          [stack]\n"
            "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n") % (lib, lib)


def pci_files(m, f):
    gen = {"2.5 GT/s PCIe": 1, "8.0 GT/s PCIe": 3, "16.0 GT/s PCIe": 4, "32.0 GT/s PCIe": 5}
    for g in m["pci_gpus"]:
        d = "sys/devices/%s/%s" % (g["path"], g["bdf"])
        f["sys/bus/pci/devices/" + g["bdf"]] = Link("../../../devices/%s/%s" % (g["path"], g["bdf"]))
        f[d + "/vendor"] = "0x10de\n"
        f[d + "/device"] = "0x2330\n"
        f[d + "/class"] = "0x030200\n"
        f[d + "/numa_node"] = "%d\n" % g["numa"]
        f[d + "/local_cpulist"] = ",".join("%d-%d" % (c[0], c[-1]) for c in [m["numa"][g["numa"]]]) + "\n"
        f[d + "/current_link_speed"] = g["speed"] + "\n"
        f[d + "/max_link_speed"] = "32.0 GT/s PCIe\n"
        f[d + "/current_link_width"] = "%d\n" % g["width"]
        f[d + "/max_link_width"] = "16\n"
        f[d + "/aer_dev_correctable"] = ("RxErr 0\nBadTLP %d\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\n"
                                         "CorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR %d\n") % (g["aer_cor"], g["aer_cor"])
        f[d + "/aer_dev_nonfatal"] = "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 0\nTOTAL_ERR_NONFATAL 0\n"
        f[d + "/aer_dev_fatal"] = "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 0\nTOTAL_ERR_FATAL 0\n"
        if g["driver"]:
            depth = d.count("/") - 1
            f[d + "/driver"] = Link("../" * depth + "bus/pci/drivers/" + g["driver"])
        # the bridges above it: a root port and a switch's ports
        parts = g["path"].split("/")
        for i in range(1, len(parts)):
            bd = "sys/devices/" + "/".join(parts[:i + 1])
            f[bd + "/vendor"] = "0x8086\n" if i == 1 else "0x1000\n"
            f[bd + "/class"] = "0x060400\n"
            f["sys/bus/pci/devices/" + parts[i]] = Link("../../../devices/" + "/".join(parts[:i + 1]))
    for name, bdf in (("eth0", "0000:17:00.0"), ("ib0", "0000:3b:00.0")):
        path = dict(eth0="pci0000:16/0000:16:02.0", ib0="pci0000:38/0000:38:02.0")[name]
        f["sys/bus/pci/devices/" + bdf] = Link("../../../devices/%s/%s" % (path, bdf))
        f["sys/devices/%s/%s/numa_node" % (path, bdf)] = "%d\n" % m["nic_numa"][name]
        root_port = path.split("/")[1]
        f["sys/devices/%s/vendor" % path] = "0x8086\n"
        f["sys/devices/%s/class" % path] = "0x060400\n"
        f["sys/bus/pci/devices/" + root_port] = Link("../../../devices/" + path)


# sysfs ---------------------------------------------------------------------
def sys_files(m, t, f):
    # cpus, topology, cpufreq, thermal_throttle, NUMA
    cf = m["cpufreq"]
    f["sys/devices/system/cpu/online"] = "0-7\n"
    f["sys/devices/system/cpu/possible"] = "0-7\n"
    f["sys/devices/system/cpu/present"] = "0-7\n"
    f["sys/devices/system/cpu/offline"] = "\n"
    f["sys/devices/system/cpu/kernel_max"] = "8191\n"
    for i in range(NCPU):
        c = "sys/devices/system/cpu/cpu%d" % i
        core = i % 4
        sib = "%d,%d" % (core, core + 4)
        sibmask = "%02x" % ((1 << core) | (1 << (core + 4)))
        if i != 0:
            f[c + "/online"] = "1\n"
        topo = dict(physical_package_id="0", die_id="0", cluster_id=str(core * 8), core_id=str(core),
                    core_cpus_list=sib, core_cpus=sibmask, thread_siblings_list=sib, thread_siblings=sibmask,
                    core_siblings_list="0-7", core_siblings="ff", package_cpus_list="0-7", package_cpus="ff",
                    die_cpus_list="0-7", die_cpus="ff", cluster_cpus_list=sib, cluster_cpus=sibmask)
        for k, v in topo.items():
            f[c + "/topology/" + k] = v + "\n"
        pol = "sys/devices/system/cpu/cpufreq/policy%d" % i
        f[c + "/cpufreq"] = Link("../cpufreq/policy%d" % i)
        nd = [k for k, v in m["numa"].items() if i in v][0]
        f[c + "/node%d" % nd] = Link("../../node/node%d" % nd)
        fr = dict(scaling_governor=cf["governor"], scaling_driver=cf["driver"],
                  scaling_cur_freq=str(cf["cur"] + 1000 * i), scaling_min_freq=str(cf["min"]),
                  scaling_max_freq=str(cf["max"]), cpuinfo_min_freq=str(cf["min"]),
                  cpuinfo_max_freq=str(cf["max"]), cpuinfo_transition_latency="0", affected_cpus=str(i),
                  related_cpus=str(i), scaling_available_governors="performance powersave",
                  energy_performance_preference="performance" if cf["governor"] == "performance"
                  else "balance_power")
        for k, v in fr.items():
            f[pol + "/" + k] = v + "\n"
        td = m["throttle_delta"]
        f[c + "/thermal_throttle/core_throttle_count"] = "%d\n" % (3 + t * td["core"])
        f[c + "/thermal_throttle/core_throttle_max_time_ms"] = "%d\n" % (12 + (30 if td["core"] else 0))
        f[c + "/thermal_throttle/core_throttle_total_time_ms"] = "%d\n" % (41 + t * td["core"] * 25)
        f[c + "/thermal_throttle/package_throttle_count"] = "%d\n" % (5 + t * td["package"])
        f[c + "/thermal_throttle/package_throttle_max_time_ms"] = "%d\n" % (15 + (40 if td["package"] else 0))
        f[c + "/thermal_throttle/package_throttle_total_time_ms"] = "%d\n" % (60 + t * td["package"] * 25)
    n = "sys/devices/system/node"
    nodes = sorted(m["numa"])
    span = "0" if len(nodes) == 1 else "0-%d" % nodes[-1]
    f[n + "/online"] = span + "\n"
    f[n + "/possible"] = span + "\n"
    f[n + "/has_cpu"] = span + "\n"
    for nd in nodes:
        cpus = m["numa"][nd]
        f[n + "/node%d/cpulist" % nd] = "%d-%d\n" % (cpus[0], cpus[-1])
        f[n + "/node%d/cpumap" % nd] = "%02x\n" % sum(1 << c for c in cpus)
        f[n + "/node%d/distance" % nd] = " ".join("10" if o == nd else "21" for o in nodes) + "\n"
        for i in cpus:
            f[n + "/node%d/cpu%d" % (nd, i)] = Link("../../cpu/cpu%d" % i)

    # block devices
    nv = "sys/devices/pci0000:00/0000:00:1d.0/0000:01:00.0/nvme/nvme0/nvme0n1"
    sd = "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda"
    f["sys/block/nvme0n1"] = Link("../" + nv[4:])
    f["sys/block/sda"] = Link("../" + sd[4:])
    for path, name, parts in ((nv, "nvme0n1", ["nvme0n1p1", "nvme0n1p2"]), (sd, "sda", ["sda1"])):
        d = m["disks"][name]
        f[path + "/queue/rotational"] = "%d\n" % d["rot"]
        f[path + "/queue/logical_block_size"] = "512\n"
        f[path + "/queue/scheduler"] = "[none] mq-deadline\n" if name == "nvme0n1" else "none [mq-deadline]\n"
        f[path + "/queue/nr_requests"] = "1023\n" if name == "nvme0n1" else "64\n"
        f[path + "/size"] = "7501476528\n" if name == "nvme0n1" else "31251759104\n"
        f[path + "/dev"] = "%d:%d\n" % (d["maj"], d["min"])
        for j, pn in enumerate(parts):
            f[path + "/" + pn + "/partition"] = "%d\n" % (j + 1)
            f[path + "/" + pn + "/dev"] = "%d:%d\n" % (d["maj"], d["min"] + j + 1)

    # network interfaces
    devs = dict(eth0="sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0",
                ib0="sys/devices/pci0000:38/0000:38:02.0/0000:3b:00.0")
    for name in ("eth0", "ib0", "lo"):
        s = m["netif_sys"][name]
        d = (devs[name] + "/net/" + name) if name in devs else "sys/devices/virtual/net/lo"
        f["sys/class/net/" + name] = Link("../../" + d[4:])
        for k in ("operstate", "flags", "speed", "carrier", "type", "mtu"):
            if s.get(k) is not None:
                f[d + "/" + k] = s[k] + "\n"
        if name in devs:
            f[d + "/device"] = Link("../../../" + devs[name].rsplit("/", 1)[1])
            f[d + "/duplex"] = "full\n" if s["operstate"] == "up" else "unknown\n"
        f[d + "/carrier_changes"] = "2\n" if s["operstate"] == "up" else "5\n"
        f[d + "/addr_len"] = "20\n" if name == "ib0" else "6\n"
        f[d + "/ifindex"] = dict(lo="1\n", eth0="2\n", ib0="3\n")[name]
    f[devs["eth0"] + "/vendor"] = "0x8086\n"
    f[devs["eth0"] + "/device"] = "0x1592\n"
    f[devs["eth0"] + "/class"] = "0x020000\n"
    f[devs["eth0"] + "/numa_node"] = "0\n"
    f[devs["ib0"] + "/vendor"] = "0x15b3\n"
    f[devs["ib0"] + "/device"] = "0x1021\n"
    f[devs["ib0"] + "/class"] = "0x020700\n"
    f[devs["ib0"] + "/numa_node"] = "0\n"

    # infiniband
    ib = m["ib"]
    ibd = devs["ib0"] + "/infiniband/mlx5_0"
    f["sys/class/infiniband/mlx5_0"] = Link("../../" + ibd[4:])
    f[ibd + "/fw_ver"] = "28.39.1002\n"
    f[ibd + "/node_type"] = "1: CA\n"
    f[ibd + "/hca_type"] = "MT4129\n"
    f[ibd + "/device"] = Link("../../../0000:3b:00.0")
    port = ibd + "/ports/1"
    f[port + "/state"] = ib["state"] + "\n"
    f[port + "/phys_state"] = ib["phys_state"] + "\n"
    f[port + "/rate"] = ib["rate"] + "\n"
    f[port + "/link_layer"] = "InfiniBand\n"
    f[port + "/lid"] = "0x1f\n"
    f[port + "/sm_lid"] = "0x1\n"
    tt = 0 if ib["frozen"] else t
    cnt = dict(symbol_error=0, port_rcv_errors=0, port_rcv_remote_physical_errors=0,
               port_rcv_switch_relay_errors=0, link_error_recovery=0, link_downed=0,
               local_link_integrity_errors=0, excessive_buffer_overrun_errors=0, port_xmit_discards=0,
               port_xmit_constraint_errors=0, port_rcv_constraint_errors=0, VL15_dropped=0,
               port_xmit_wait=123456789 + tt * 3000,
               port_xmit_data=912345678901 + tt * ib["data_words"], port_rcv_data=901234567890 + tt * ib["data_words"],
               port_xmit_packets=4123456789 + tt * (ib["data_words"] // 1024),
               port_rcv_packets=4012345678 + tt * (ib["data_words"] // 1024),
               unicast_xmit_packets=4123456000 + tt * (ib["data_words"] // 1024),
               unicast_rcv_packets=4012345000 + tt * (ib["data_words"] // 1024),
               multicast_xmit_packets=789, multicast_rcv_packets=1789)
    for k, v in ib["err0"].items():
        cnt[k] += v
    for k, v in ib["err_delta"].items():
        cnt[k] += t * v
    for k, v in cnt.items():
        f[port + "/counters/" + k] = "%d\n" % v

    # hwmon and thermal
    tm = m["temps"]
    h0 = "sys/devices/platform/coretemp.0/hwmon/hwmon0"
    f["sys/class/hwmon/hwmon0"] = Link("../../" + h0[4:])
    f[h0 + "/name"] = "coretemp\n"
    f[h0 + "/temp1_label"] = "Package id 0\n"
    f[h0 + "/temp1_input"] = "%d\n" % (tm["package"] + 1000 * t)
    f[h0 + "/temp1_max"] = "80000\n"
    f[h0 + "/temp1_crit"] = "100000\n"
    f[h0 + "/temp1_crit_alarm"] = "0\n"
    for j, ct in enumerate(tm["cores"]):
        f[h0 + "/temp%d_label" % (j + 2)] = "Core %d\n" % j
        f[h0 + "/temp%d_input" % (j + 2)] = "%d\n" % (ct + 1000 * t)
        f[h0 + "/temp%d_max" % (j + 2)] = "80000\n"
        f[h0 + "/temp%d_crit" % (j + 2)] = "100000\n"
        f[h0 + "/temp%d_crit_alarm" % (j + 2)] = "0\n"
    h1 = "sys/devices/platform/bmc-sensors/hwmon/hwmon1"
    f["sys/class/hwmon/hwmon1"] = Link("../../" + h1[4:])
    f[h1 + "/name"] = "bmc\n"
    f[h1 + "/temp1_label"] = "Inlet Temp\n"
    f[h1 + "/temp1_input"] = "%d\n" % tm["inlet"]
    f[h1 + "/temp2_label"] = "Exhaust Temp\n"
    f[h1 + "/temp2_input"] = "%d\n" % tm["exhaust"]
    tz = "sys/devices/virtual/thermal/thermal_zone0"
    f["sys/class/thermal/thermal_zone0"] = Link("../../" + tz[4:])
    f[tz + "/type"] = "x86_pkg_temp\n"
    f[tz + "/temp"] = "%d\n" % (tm["package"] + 1000 * t)
    f[tz + "/mode"] = "enabled\n"
    f[tz + "/trip_point_0_temp"] = "0\n"
    f[tz + "/trip_point_0_type"] = "passive\n"

    # cgroup v2
    cg = "sys/fs/cgroup"
    f[cg + "/cgroup.controllers"] = "cpuset cpu io memory hugetlb pids rdma misc\n"
    f[cg + "/cgroup.subtree_control"] = "cpuset cpu io memory pids\n"
    j = m["cg_job"]
    jd = cg + JOB_CG
    job_ticks = sum(p["du"] + p["ds"] for p in m["procs"].values() if p["cg"] == JOB_CG)
    usage0 = 812345678901
    f[jd + "/cgroup.procs"] = "".join("%d\n" % p for p in sorted(m["procs"]) if m["procs"][p]["cg"] == JOB_CG)
    f[jd + "/cpu.max"] = j["cpu_max"] + "\n"
    f[jd + "/cpu.weight"] = "100\n"
    usage = usage0 + t * job_ticks * 10000
    f[jd + "/cpu.stat"] = ("usage_usec {0}\nuser_usec {1}\nsystem_usec {2}\ncore_sched.force_idle_usec 0\n"
                           "nr_periods {3}\nnr_throttled {4}\nthrottled_usec {5}\nnr_bursts 0\nburst_usec 0\n").format(
        usage, usage * 4 // 5, usage - usage * 4 // 5, 8123 + t * j["periods"], 12 + t * j["throttled"],
        345678 + t * j["throttled_us"])
    f[jd + "/memory.current"] = "%d\n" % (j["mem_current"] + t * 4096 * 37)
    f[jd + "/memory.max"] = j["mem_max"] + "\n"
    f[jd + "/memory.high"] = j["mem_high"] + "\n"
    f[jd + "/memory.min"] = "0\n"
    f[jd + "/memory.low"] = "0\n"
    ev = j["ev_delta"]
    f[jd + "/memory.events"] = "low 0\nhigh {0}\nmax {1}\noom {2}\noom_kill {3}\noom_group_kill 0\n".format(
        0 + t * ev["high"], 0 + t * ev["max"], 0 + t * ev["oom"], 0 + t * ev["oom_kill"])
    f[jd + "/memory.swap.current"] = "0\n"
    f[jd + "/memory.swap.max"] = "max\n"
    f[jd + "/pids.current"] = "%d\n" % (sum(len(p["threads"] or [1]) for p in m["procs"].values()
                                            if p["cg"] == JOB_CG))
    f[jd + "/pids.max"] = "max\n"
    sd = cg + SELF_CG
    f[sd + "/cgroup.procs"] = "6100\n7777\n"
    f[sd + "/cpu.max"] = "max 100000\n"
    f[sd + "/cpu.weight"] = "100\n"
    f[sd + "/cpu.stat"] = ("usage_usec %d\nuser_usec %d\nsystem_usec %d\ncore_sched.force_idle_usec 0\n"
                           "nr_periods 0\nnr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n") % (
        1234567 + t * 10000, 1000000 + t * 8000, 234567 + t * 2000)
    f[sd + "/memory.current"] = "%d\n" % (54525952 + t * 4096)
    f[sd + "/memory.max"] = "max\n"
    f[sd + "/memory.high"] = "max\n"
    f[sd + "/memory.events"] = "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n"
    f[sd + "/pids.current"] = "2\n"
    f[sd + "/pids.max"] = "max\n"


def render(m, t):
    f = {}
    up = UP0 + t * WIN
    cpus = cpu_ticks(m, t)
    idle_s = sum(c["idle"] for c in cpus) / HZ
    f["proc/uptime"] = "%.2f %.2f\n" % (up, idle_s)
    f["proc/stat"] = r_stat(m, t)
    la = m["loadavg"]
    nthreads = 1043
    f["proc/loadavg"] = "%.2f %.2f %.2f %d/%d %d\n" % (la[0], la[1], la[2], m["procs_running"], nthreads,
                                                      61234 + t * 12)
    f["proc/cpuinfo"] = r_cpuinfo()
    cpu, mem, io = r_psi(m, t)
    f["proc/pressure/cpu"], f["proc/pressure/memory"], f["proc/pressure/io"] = cpu, mem, io
    f["proc/meminfo"] = r_meminfo(m, t)
    f["proc/vmstat"] = r_vmstat(m, t)
    f["proc/diskstats"] = r_diskstats(m, t)
    f["proc/net/dev"] = r_netdev(m, t)
    f["proc/net/snmp"] = r_snmp(m, t)
    f["proc/net/netstat"] = r_netstat(m, t)
    f["proc/interrupts"] = r_interrupts(m, t)
    f["proc/sys/kernel/hostname"] = "gpu-node-017\n"
    f["proc/sys/kernel/osrelease"] = "6.8.0-45-generic\n"
    f["proc/self"] = Link("7777")
    f["proc/mounts"] = Link("self/mounts")
    for p in m["procs"].values():
        proc_files(m, p, t, f)
    if m["driver"] is not None:
        f["proc/driver/nvidia/version"] = m["driver"]
    sys_files(m, t, f)
    pci_files(m, f)
    # A quiet kernel log (a saved /dev/kmsg) and an EDAC controller with no
    # errors: the kernel-log collectors read them like the live files.
    f["dev/kmsg"] = ("6,1000,5000000,-;Linux version 6.1.0-18-amd64\n"
                     "6,1001,5100000,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15\n")
    f["sys/devices/system/edac/mc/mc0/ce_count"] = "0\n"
    f["sys/devices/system/edac/mc/mc0/ue_count"] = "0\n"
    return f


# ---------------------------------------------------------------- scenarios
def s_cpu_saturated(m):
    m["cpu_delta"] = [dict(user=170 + (i % 2), nice=0, system=16, iowait=0, irq=2, softirq=6, steal=0)
                      for i in range(NCPU)]
    m["procs_running"] = 19
    m["loadavg"] = (17.85, 15.20, 12.41)
    m["psi"]["cpu"] = 56.34
    m["procs"][4242].update(du=170, ds=30)
    for pid in range(4301, 4305):
        m["procs"][pid].update(du=180, ds=14, state="R")
    m["eth0_irq_per_queue"] = 20000


def s_background_hogs(m):
    # rclone (a checkpoint backup to S3) burns 1.5 cores outside the job
    for i in range(NCPU):
        m["cpu_delta"][i]["user"] += 31
        m["cpu_delta"][i]["system"] += 6
    m["procs"][2718] = proc(2718, 1, "rclone", "/usr/bin/rclone sync /archive/checkpoints s3:ckpt-backup "
                            "--transfers 16", 61000, "/system.slice/ckpt-backup.service", du=250, ds=50,
                            state="R", rss_kb=1572864, drchar=160000000, dread=150000000,
                            fds={0: "/dev/null", 1: "/var/log/ckpt-backup.log", 2: "/var/log/ckpt-backup.log",
                                 3: "/archive/checkpoints/step_120000.pt", 4: "socket:[51234]"})
    m["loadavg"] = (4.71, 4.12, 3.40)


def s_governor_powersave(m):
    m["cpufreq"].update(governor="powersave", cur=1200000)


def s_cgroup_throttled(m):
    m["cg_job"].update(cpu_max="300000 100000", periods=20, throttled=6, throttled_us=412000)


def s_irq_imbalance(m):
    m["eth0_irq_cpu"] = [3] * NCPU
    for i in range(NCPU):
        m["cpu_delta"][i]["softirq"] = 1
    m["cpu_delta"][3] = dict(user=40, nice=0, system=8, iowait=0, irq=22, softirq=98, steal=0)


def s_mem_pressure(m):
    mem = m["mem"]
    mem.update(MemFree=4123456, MemAvailable=15838572, Cached=14123456, Buffers=51200, Dirty=412345)
    m["psi"].update(memory=18.42, memory_full=6.10)
    m["vm_delta"].update(pgmajfault=2400, allocstall_normal=310, allocstall_movable=120)


def s_mem_swapping(m):
    m["mem"].update(SwapFree=2123456, MemAvailable=41234567, MemFree=9123456)
    m["vm_delta"].update(pswpin=412, pswpout=907, pgmajfault=500)
    m["psi"].update(memory=4.20, memory_full=1.10)


def s_mem_shm_small(m):
    m["job_shm"] = "65536k"


def s_mem_cgroup_near_limit(m):
    m["cg_job"].update(mem_current=int(245.5 * GIB), mem_max=str(256 * GIB),
                       ev_delta=dict(high=0, max=3, oom=0, oom_kill=0))


def s_io_saturated(m):
    m["disks"]["nvme0n1"]["d"] = dict(reads=24000, rmerged=120, rsect=24000 * 256, rms=96000, writes=800,
                                      wmerged=40, wsect=800 * 256, wms=4000, inflight=64, io_ms=1990,
                                      wio_ms=100000)
    m["psi"].update(io=38.50, io_full=21.30)
    for i in range(NCPU):
        m["cpu_delta"][i]["iowait"] = 30
        m["cpu_delta"][i]["user"] -= 10
    m["procs_blocked"] = 9


def s_io_small_reads(m):
    m["disks"]["nvme0n1"]["d"] = dict(reads=14000, rmerged=0, rsect=14000 * 32, rms=3500, writes=60, wmerged=5,
                                      wsect=60 * 64, wms=12, inflight=6, io_ms=1300, wio_ms=3600)
    for pid in range(4301, 4305):
        m["procs"][pid].update(dread=14000 * 16384 // 4)


def s_io_rotational(m):
    m["disks"]["sda"]["d"] = dict(reads=300, rmerged=20, rsect=300 * 2048, rms=2600, writes=30, wmerged=4,
                                  wsect=30 * 256, wms=300, inflight=3, io_ms=1500, wio_ms=2900)


def s_io_network_fs(m):
    m["nfs"] = True
    p = m["procs"][4242]
    p["fds"].update({17: "/mnt/datasets/imagenet/train-000123.tar", 18: "/mnt/datasets/imagenet/train-000124.tar"})
    p["drchar"] = 400000000
    for pid in range(4301, 4305):
        m["procs"][pid]["fds"][3] = "/mnt/datasets/imagenet/train-%06d.tar" % (200 + pid - 4301)
        m["procs"][pid]["dread"] = 0
    m["netifs"]["eth0"].update(rx_bytes=5400000000, rx_packets=606741)


def s_net_errors(m):
    m["netif_err_delta"]["eth0"] = dict(rx_errs=412, rx_drop=905, rx_fifo=0, rx_frame=37)


def s_net_retransmits(m):
    m["tcp_delta"].update(RetransSegs=11880)
    m["tcpext_delta"].update(TCPTimeouts=85, TCPLostRetransmit=310, TCPFastRetrans=9800, TCPSlowStartRetrans=140)


def s_net_saturated(m):
    m["netifs"]["eth0"].update(rx_bytes=24000000000, rx_packets=2696629)
    m["eth0_irq_per_queue"] = 60000


def s_net_link_degraded(m):
    m["netif_sys"]["eth0"].update(operstate="down", speed="-1", carrier="0")
    m["freeze_netif"] = ["eth0"]
    m["eth0_irq_per_queue"] = 0
    m["tcp_delta"].update(InSegs=4000, OutSegs=3000, RetransSegs=0)


def s_net_rdma_down(m):
    m["ib"].update(state="1: DOWN", phys_state="2: Polling", frozen=True, err0=dict(link_downed=1,
                                                                                  link_error_recovery=3))
    m["netif_sys"]["ib0"].update(operstate="down", carrier="0", speed="-1")
    m["freeze_netif"] = ["ib0"]


def s_host_cpu_thermal_throttle(m):
    m["throttle_delta"] = dict(core=35, package=41)
    m["temps"].update(package=97000, cores=[96000, 97000, 95000, 96000])


def s_host_inlet_temp(m):
    m["temps"].update(inlet=31000, exhaust=47000, package=66000, cores=[63000, 65000, 64000, 62000])


# GPU jobs against the host (rule_driver.c, rule_gpu_job.c, rule_gpu_topo.c).
# Their nvml.ini files (the NVML side) are written by hand from base/nvml.ini.
def s_gpu_missing(m):
    pass   # nvml.ini lists three of the four GPUs on the bus


def s_gpu_init_failed(m):
    pass   # nvml.ini: NVML starts and counts no GPU


def s_driver_not_loaded(m):
    pass   # nvml.ini: nvmlInit answers DRIVER_NOT_LOADED


def s_driver_cuda_too_new(m):
    m["cudart"] = "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13.0.48"


def s_driver_cuda_stub(m):
    # a second pod's python found the CUDA toolkit's stub libcuda.so (its
    # container was started without the NVIDIA runtime): no GPU, no
    # /dev/nvidia*, NVML does not list it; its maps show the stub
    stub = "/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so"
    m["procs"][5120] = proc(5120, 4100, "python", "python serve.py --port 8000", 20500, "/kubepods/pod2/app",
                            ns="job", du=2, ds=1, rss_kb=1048576, nspid=1,
                            fds={0: "/dev/null", 1: "pipe:[52001]", 2: "pipe:[52001]"})
    m["procs"][5120]["maps"] = (
        "55d4c8a00000-55d4c8a01000 r--p 00000000 103:02 2753190                   /usr/bin/python3.11\n"
        "7f2c4a000000-7f2c4a0c8000 r--p 00000000 103:02 1835123                   "
        "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13\n"
        "7f2c4b000000-7f2c4b010000 r-xp 00000000 103:02 1835901                   %s\n"
        "7ffd2c5e4000-7ffd2c606000 rw-p 00000000 00:00 0                          [stack]\n") % stub


def s_input_bound(m):
    # four loader workers each pegged at ~99% of a core feed GPUs at ~20% (nvml.ini)
    for pid in range(4301, 4305):
        m["procs"][pid].update(du=180, ds=18, state="R")


def s_too_many_workers(m):
    s_cpu_saturated(m)
    for i in range(8):
        pid = 4305 + i
        m["procs"][pid] = proc(pid, 4242, "pt_data_worker", TRAIN, 20410 + i, JOB_CG, ns="job", du=40, ds=6,
                               state="R", rss_kb=3145728, nspid=34 + i, threads=[(pid, "pt_data_worker", 1.0)],
                               fds={0: "/dev/null", 1: "pipe:[41002]", 2: "pipe:[41002]"})
    m["avail_drop_kb"] = 8 * GIB // KB   # 8 GiB of 503 GiB gone in 2 s


def two_nodes(m):
    m["numa"] = {0: [0, 1, 2, 3], 1: [4, 5, 6, 7]}
    m["pci_gpus"][0]["numa"] = 1   # gpu0 sits under pci0000:16, node 1's host bridge
    m["nic_numa"]["eth0"] = 1
    # base's cpuN/node0 and node0/cpuN links of cpu4-7 stay behind: the
    # collector places CPUs by node<N>/cpulist first, so they are not read
    m["stale"] = ["sys/devices/system/cpu/cpu%d/node0" % i for i in range(4, 8)] + \
        ["sys/devices/system/node/node0/cpu%d" % i for i in range(4, 8)]


def s_numa_far(m):
    two_nodes(m)
    m["procs"][4242].update(cpus="0-3", cpus_mask="0f")


def s_gpu_nic_far(m):
    two_nodes(m)


# Series (a scenario with t2/, t3/ ...; run.sh snapshots them in order):
# sample t is at uptime 1000 + 2 t; the disk bursts land in the step that
# ends at the sample named.  GPU utilisation of each sample is its
# tN.nvml.ini (mknvml.py).
def burst(gb, steps):
    """gb decimal GB in 1 MiB-average writes, spread over steps (2 s each), the disk busy 1980 of 2000 ms."""
    wsect = int(gb * 1e9 / 512 / steps)
    return dict(writes=wsect // 2048 * 2, wsect=wsect, wms=wsect // 2048 * 2 * 3, io_ms=1680, wio_ms=60000)


def s_healthy_series(m):
    # an asynchronous checkpoint: 4 GB written between t1 and t2 while the
    # GPUs stay busy (base NVML at t2), then ordinary writes only; t3's GPUs
    # dip idle for one sample (an evaluation step) with no burst behind it
    m["disk_bursts"] = {"nvme0n1": {2: burst(4, 1)}}


def s_checkpoint_stall(m):
    # a synchronous checkpoint: 6 GB to nvme0n1 between t1 and t3 while
    # every GPU is idle at t2 and t3 (t2.nvml.ini, t3.nvml.ini)
    b = burst(6, 2)
    m["disk_bursts"] = {"nvme0n1": {2: b, 3: dict(b)}}


SERIES = [
    ("0002-healthy-series", s_healthy_series, 5),
    ("1023-io.checkpoint_stall", s_checkpoint_stall, 5),
]

SCENARIOS = [
    ("0000-healthy", None),
    ("1001-cpu.saturated", s_cpu_saturated),
    ("1002-cpu.background_hogs", s_background_hogs),
    ("1003-cpu.governor_powersave", s_governor_powersave),
    ("1004-cpu.cgroup_throttled", s_cgroup_throttled),
    ("1005-cpu.irq_imbalance", s_irq_imbalance),
    ("1006-mem.pressure", s_mem_pressure),
    ("1007-mem.swapping", s_mem_swapping),
    ("1008-mem.shm_small", s_mem_shm_small),
    ("1009-mem.cgroup_near_limit", s_mem_cgroup_near_limit),
    ("1010-io.saturated", s_io_saturated),
    ("1011-io.small_reads", s_io_small_reads),
    ("1012-io.rotational", s_io_rotational),
    ("1013-io.network_fs", s_io_network_fs),
    ("1014-net.errors", s_net_errors),
    ("1015-net.retransmits", s_net_retransmits),
    ("1016-net.saturated", s_net_saturated),
    ("1017-net.link_degraded", s_net_link_degraded),
    ("1018-net.rdma_down", s_net_rdma_down),
    ("1019-host.cpu_thermal_throttle", s_host_cpu_thermal_throttle),
    ("1020-host.inlet_temp", s_host_inlet_temp),
    ("1201-gpu.missing", s_gpu_missing),
    ("1202-gpu.init_failed", s_gpu_init_failed),
    ("1203-driver.not_loaded", s_driver_not_loaded),
    ("1204-driver.cuda_too_new", s_driver_cuda_too_new),
    ("1205-gpu.shared_by_processes", None),
    ("1206-gpu.saturated", None),
    ("1207-gpu.idle_while_job_runs", None),
    ("1208-gpu.straggler", None),
    ("1209-cpu.input_bound", s_input_bound),
    ("1210-cpu.too_many_workers", s_too_many_workers),
    ("1211-cpu.numa_far_from_gpu", s_numa_far),
    ("1212-net.gpu_nic_far", s_gpu_nic_far),
    ("1214-driver.cuda_stub", s_driver_cuda_stub),
]


def write_tree(dst, files, only=None):
    for rel, v in sorted(files.items()):
        if only is not None and rel not in only:
            continue
        if v == "EMPTYDIR":
            continue   # git keeps no empty directories; run.sh recreates them (emptydirs)
        path = os.path.join(dst, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(v, Link):
            if os.path.lexists(path):
                os.remove(path)
            os.symlink(v.target, path)
        else:
            with open(path, "w") as fh:
                fh.write(v)


def main():
    base = base_model()
    trees = [render(base, 0), render(base, 1)]
    for t in (0, 1):
        d = os.path.join(HERE, "base", "t%d" % t)
        if os.path.isdir(d):
            shutil.rmtree(d)
        write_tree(d, trees[t])
    empt = sorted(set(k[:-1] for tr in trees for k, v in tr.items() if v == "EMPTYDIR"))
    with open(os.path.join(HERE, "emptydirs"), "w") as fh:
        fh.write("".join(e + "\n" for e in empt))
    for name, fn in SCENARIOS:
        sd = os.path.join(HERE, name)
        os.makedirs(sd, exist_ok=True)
        for t in (0, 1):
            d = os.path.join(sd, "t%d" % t)
            if os.path.isdir(d):
                shutil.rmtree(d)
        if fn is None:
            continue
        m = copy.deepcopy(base)
        fn(m)
        for t in (0, 1):
            tr = render(m, t)
            # overlays cannot delete: files a scenario drops stay in its tree
            # from base, harmless only where the model says so (m["stale"])
            missing = {k for k in set(trees[t]) - set(tr) if not k.startswith(tuple(m.get("stale", ())))}
            assert not missing, (name, sorted(missing)[:5])
            diff = {k for k, v in tr.items() if trees[t].get(k) != v}
            write_tree(os.path.join(sd, "t%d" % t), tr, only=diff)
    for name, fn, n in SERIES:
        sd = os.path.join(HERE, name)
        m = copy.deepcopy(base)
        fn(m)
        for t in range(n):
            d = os.path.join(sd, "t%d" % t)
            if os.path.isdir(d):
                shutil.rmtree(d)
            # t0 is base/t0 plus its overlay, every later sample base/t1 plus its own
            ref = trees[min(t, 1)]
            tr = render(m, t)
            write_tree(d, tr, only={k for k, v in tr.items() if ref.get(k) != v})


if __name__ == "__main__":
    sys.exit(main())
