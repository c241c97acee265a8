#!/usr/bin/env python3
"""bench/xid/gen.py PATH SIZE [FORMAT] - a kernel log shaped like a busy
8-GPU node's, SIZE bytes, for bench/xid/run.sh.

FORMAT is kern.log (default: rsyslog's kern.log, "Nov 30 01:02:03 HOST
kernel: [ 5023.456789] MSG", the form a log of this size is kept in) or
dmesg ("[ 5023.456789] MSG").

About one line in ten is an NVRM: line that is not an Xid (driver load and
version-mismatch messages, nvAssert/nvCheck spam, nvswitch probing, board
serials, "GPU at PCI" UUID lines, a bus flush that timed out); the rest is
mlx5, InfiniBand, audit, docker/veth, EXT4, overlayfs, NFS, systemd and
perf noise, written from templates with varying fields.  One line in about
10,000 is an Xid, over eight codes and eight GPUs (one Xid 79 near the
end), plus one storm: 400 Xid 13 lines inside one second on one GPU.  A
few AER reports from a GPU (with their detail lines) are in it too.

Writes PATH.ref (JSON): the lines, the Xid lines, the Xid count per "bus
code" (bus as gpudoctor prints it, dddd:bb:dd.f) and the count of every
event kind gpudoctor's counts{} reports.
"""
import json, random, sys

path, size = sys.argv[1], int(sys.argv[2])
fmt = sys.argv[3] if len(sys.argv) > 3 else "kern.log"
rnd = random.Random(16)
BUSES = [0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb]
NICS = ["0000:1a:00.0", "0000:1a:00.1", "0000:3c:00.0", "0000:4d:00.0", "0000:9c:00.0", "0000:bc:00.0"]
UUIDS = ["GPU-%08x-%04x-%04x-%04x-%012x" % (rnd.getrandbits(32), rnd.getrandbits(16), rnd.getrandbits(16),
                                             rnd.getrandbits(16), rnd.getrandbits(48)) for _ in BUSES]
COMMS = ["python3", "pt_main_thread", "torchrun", "python", "nccl-test", "deepspeed"]

def h(n):
    return "%0*x" % (n, rnd.getrandbits(4 * n))

def veth():
    return "veth" + h(7)

# non-Xid NVRM lines (the decoys), weighted
def nvrm_decoys():
    b = rnd.choice(BUSES)
    return rnd.choice([
        "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  550.127.05  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Oct  8 00:25:20 UTC 2024",
        "NVRM: Persistence mode is deprecated and will be removed in a future release. Please use nvidia-persistenced instead.",
        "NVRM: API mismatch: the client has the version 550.90.07, but" + "\nNVRM: this kernel module has the version 550.127.05.  Please" + "\nNVRM: make sure that this kernel module and all NVIDIA driver" + "\nNVRM: components have the same version.",
        "NVRM: nvAssertOkFailedNoLog: Assertion failed: Requested object not found [NV_ERR_OBJECT_NOT_FOUND] (0x00000057) returned from pRmApi->Control(pRmApi, RES_GET_CLIENT_HANDLE(pKernelChannel), RES_GET_HANDLE(pKernelChannel), NV906F_CTRL_CMD_RESET_CHANNEL, &params, sizeof params) @ kernel_channel.c:%d" % rnd.randint(1000, 4000),
        "NVRM: nvCheckOkFailedNoLog: Check failed: Call not supported [NV_ERR_NOT_SUPPORTED] (0x00000056) returned from pSubdevice->pGpu->pKernelGsp->pRpc @ subdevice_ctrl_gpu_kernel.c:%d" % rnd.randint(1000, 4000),
        "NVRM: GPU%d nvAssertFailedNoLog: Assertion failed: 0 @ g_kern_bus_nvoc.h:2443" % rnd.randint(0, 7),
        "NVRM: nvidia-nvswitch%d: Probing device 0000:%02x:00.0, Vendor Id = 0x10de, Device Id = 0x22a3, Class = 0x68000" % (rnd.randint(0, 3), rnd.choice([0xc5, 0xc6, 0xc7, 0xc8])),
        "NVRM: GPU Board Serial Number: 16523%08d" % rnd.randint(0, 99999999),
        "NVRM: kbusFlushSingle_GM107: Bus flush timed out",
        "NVRM: rpcRmApiControl_GSP: NVRM_RPC_DONE: control 0x%08x result 0x56" % rnd.getrandbits(32),
        "NVRM: GPU 0000:%02x:00.0: GPU-%02x: Enabling confidential compute" % (b, rnd.randint(0, 7)),
        "NVRM: osInitNvMapping: *** Cannot attach gpu",
        "NVRM: krcWatchdogCallbackVblankRecovery: Channel %d: vblank recovery" % rnd.randint(0, 99),
    ])

def noise():
    nic = rnd.choice(NICS)
    return rnd.choice([
        "mlx5_core %s: mlx5_cmd_out_err:838:(pid %d): QUERY_VPORT_COUNTER(0x770) op_mod(0x0) failed, status bad parameter(0x3), syndrome (0x%06x), err(-22)" % (nic, rnd.randint(100, 99999), rnd.getrandbits(24)),
        "mlx5_core %s ibp%ds0: Link up" % (nic, rnd.randint(20, 200)),
        "mlx5_core %s: mlx5e_ethtool_get_link_ksettings:%d: Unrecognized link mode" % (nic, rnd.randint(100, 999)),
        "mlx5_core %s: poll_health:801:(pid 0): device's health compromised - reached miss count" % nic,
        "infiniband mlx5_%d: mlx5_ib_query_port:%d:(pid %d): query port failed" % (rnd.randint(0, 7), rnd.randint(100, 999), rnd.randint(100, 99999)),
        "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"cri-containerd.apparmor.d\" name=\"/proc/sys/kernel/random/boot_id\" pid=%d comm=\"node\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0" % (1732932123 + rnd.randint(0, 10 ** 6), rnd.randint(0, 999), rnd.randint(1, 10 ** 6), rnd.randint(100, 999999)),
        "audit: type=1334 audit(%d.%03d:%d): prog-id=%d op=LOAD" % (1732932123 + rnd.randint(0, 10 ** 6), rnd.randint(0, 999), rnd.randint(1, 10 ** 6), rnd.randint(1, 9999)),
        "audit: type=1325 audit(%d.%03d:%d): table=filter family=2 entries=%d op=xt_replace pid=%d subj=unconfined comm=\"iptables-restor\"" % (1732932123 + rnd.randint(0, 10 ** 6), rnd.randint(0, 999), rnd.randint(1, 10 ** 6), rnd.randint(10, 999), rnd.randint(100, 999999)),
        "docker0: port %d(%s) entered blocking state" % (rnd.randint(1, 40), veth()),
        "docker0: port %d(%s) entered disabled state" % (rnd.randint(1, 40), veth()),
        "docker0: port %d(%s) entered forwarding state" % (rnd.randint(1, 40), veth()),
        "device %s entered promiscuous mode" % veth(),
        "eth0: renamed from %s" % veth(),
        "IPv6: ADDRCONF(NETDEV_CHANGE): %s: link becomes ready" % veth(),
        "cni0: port %d(%s) entered forwarding state" % (rnd.randint(1, 60), veth()),
        "EXT4-fs (nvme%dn1p1): mounted filesystem %s-%s-%s r/w with ordered data mode. Quota mode: none." % (rnd.randint(0, 7), h(8), h(4), h(4)),
        "EXT4-fs (loop%d): unmounting filesystem." % rnd.randint(0, 63),
        "EXT4-fs (nvme%dn1p1): warning: mounting fs with errors, running e2fsck is recommended" % rnd.randint(0, 7),
        "overlayfs: upperdir is in-use as upperdir/workdir of another mount, accessing files from both mounts will result in undefined behavior.",
        "nfs: server 10.%d.%d.%d not responding, still trying" % (rnd.randint(0, 255), rnd.randint(0, 255), rnd.randint(1, 254)),
        "nfs: server 10.%d.%d.%d OK" % (rnd.randint(0, 255), rnd.randint(0, 255), rnd.randint(1, 254)),
        "systemd[1]: run-containerd-runc-k8s.io-%s-runc.%s.mount: Deactivated successfully." % (h(64), h(6)),
        "systemd[1]: Started cri-containerd-%s.scope - libcontainer container %s." % (h(64), h(64)),
        "systemd[1]: session-%d.scope: Deactivated successfully." % rnd.randint(1, 9999),
        "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (rnd.randint(2500, 9999), 2500, rnd.randint(20000, 79750)),
        "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  550.127.05  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Oct  8 00:05:13 UTC 2024",
        "nvidia-uvm: Loaded the UVM driver, major device number %d." % rnd.randint(200, 510),
        "TCP: request_sock_TCP: Possible SYN flooding on port %d. Sending cookies.  Check SNMP counters." % rnd.randint(1024, 65535),
        "kauditd_printk_skb: %d callbacks suppressed" % rnd.randint(1, 99),
        "loop%d: detected capacity change from 0 to %d" % (rnd.randint(0, 63), rnd.randint(8, 9999999)),
        "usb 1-1.%d: new high-speed USB device number %d using xhci_hcd" % (rnd.randint(1, 4), rnd.randint(2, 127)),
    ])

XID = {
    13: "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address",
    31: "Ch 0000%04x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
    43: "Ch 0000%04x",
    45: "Ch 0000%04x",
    48: "DBE (double bit error) ECC Error",
    63: "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate.",
    94: "Contained: SM (0x1). RST: No, D-RST: No",
    79: "GPU has fallen off the bus.",
}

def xid_line(bus, code):
    if code == 79:
        return "NVRM: Xid (PCI:0000:%02x:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." % bus
    t = XID[code]
    n = t.count("%")
    args = tuple(rnd.randint(0, 9) if code == 13 else rnd.getrandbits(16) for _ in range(n))
    if code == 31:
        args = (rnd.getrandbits(16), rnd.randint(0, 9), rnd.getrandbits(8), rnd.getrandbits(32))
    if code == 63:
        args = (rnd.getrandbits(40),)
    return "NVRM: Xid (PCI:0000:%02x:00): %d, pid=%d, name=%s, %s" % (bus, code, rnd.randint(1000, 4000000),
                                                                    rnd.choice(COMMS), t % args)

# pools of rendered messages: generating each line afresh would take minutes
decoys = [nvrm_decoys() for _ in range(20000)]
noises = [noise() for _ in range(30000)]
MON = ["Nov", "Dec"]
HOST = "gpu-node-017"
counts = {"xid": 0, "gpu_uuid": 0, "aer": 0}
by, total, n, t = {}, 0, 0, 5023.0
storm_at = size // 3
lost_at = size * 9 // 10
storm_done = lost_done = False
wall = 0  # seconds since Nov 30 00:00 (the log spans about a week)
buf = []

stamp_cache = [-1, ""]

def prefix(ts, w):
    if fmt == "dmesg":
        return "[%12.6f] " % ts
    if int(w) != stamp_cache[0]:
        stamp_cache[0], stamp_cache[1] = int(w), syslog_stamp(int(w))
    return stamp_cache[1] + "[%12.6f] " % ts

def syslog_stamp(w):
    d, s = divmod(w, 86400)
    day = 30 + d
    mon = MON[0] if day <= 30 else MON[1]
    day = day if day <= 30 else day - 30
    return "%s %2d %02d:%02d:%02d %s kernel: " % (mon, day, s // 3600, s // 60 % 60, s % 60, HOST)

def emit(msg):
    global n, total
    p = prefix(t, wall)
    for part in msg.split("\n"):
        buf.append(p + part)
        n += 1

def add_xid(bus, code):
    counts["xid"] += 1
    k = "0000:%02x:00.0 %d" % (bus, code)
    by[k] = by.get(k, 0) + 1
    emit(xid_line(bus, code))

lost_bus = BUSES[3]
codes = [13, 31, 43, 45, 48, 63, 94]
with open(path, "w") as f:
    r = rnd.random
    while total < size:
        t += 0.0497
        wall = t - 5023.0
        x = r()
        if x < 0.0001:
            bus = rnd.choice(BUSES)
            code = rnd.choice(codes)
            if lost_done and bus == lost_bus:
                bus = BUSES[0]
            add_xid(bus, code)
        elif x < 0.1001:
            d = decoys[int(r() * len(decoys))]
            if r() < 0.05:
                i = rnd.randrange(len(BUSES))
                counts["gpu_uuid"] += 1
                d = "NVRM: GPU at PCI:0000:%02x:00: %s" % (BUSES[i], UUIDS[i])
            emit(d)
        elif x < 0.10011:
            bus = rnd.choice(BUSES)
            counts["aer"] += 1
            emit("nvidia 0000:%02x:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)\n"
                 "nvidia 0000:%02x:00.0: AER:   device [10de:2330] error status/mask=00000001/0000e000\n"
                 "nvidia 0000:%02x:00.0: AER:    [ 0] RxErr                  (First)" % (bus, bus, bus))
        else:
            emit(noises[int(r() * len(noises))])
        if not storm_done and total >= storm_at:
            storm_done = True
            for i in range(400):
                t += 0.002
                add_xid(BUSES[1], 13)
        if not lost_done and total >= lost_at:
            lost_done = True
            add_xid(lost_bus, 79)
        if len(buf) >= 8192:
            s = "\n".join(buf) + "\n"
            f.write(s)
            total += len(s)
            buf = []
    if buf:
        s = "\n".join(buf) + "\n"
        f.write(s)
        total += len(s)
with open(path + ".ref", "w") as f:
    json.dump({"lines": n, "bytes": total, "xid": counts["xid"], "by": by, "counts": counts}, f)
