#!/usr/bin/env python3
# mknvml.py - how base/nvml.ini (the fake NVML's answers for the healthy
# host) and the nvml.ini / t0.nvml.ini / t1.nvml.ini of the 11NN-gpu.* and
# driver.* scenarios were generated: each scenario is base/nvml.ini with a
# few keys of a few sections changed.  Not run by run.sh; rerun it after a
# change here, then UPDATE=1 run.sh and review the expected.txt diffs.
import os, re

root = os.path.dirname(os.path.abspath(__file__))


def write_base():
    buses = ["1B", "43", "52", "61"]
    temps = [61, 59, 62, 60]
    power = [552.3, 548.9, 556.1, 545.7]
    util = [96, 95, 97, 94]
    out = [BASE_HEADER]
    for i in range(4):
        out.append(BASE_GPU.format(i=i, bus=buses[i], uuid="GPU-3f2a9c1e-7b4d-4e8a-9c2f-1a6b5d8e0f0%d" % (i + 1),
                                   serial=1654922012345 + i, temp=temps[i], util=util[i], power=power[i]))
    open(os.path.join(root, "base/nvml.ini"), "w").write("".join(out))


BASE_HEADER = """; The healthy training host of base/t0 and base/t1: four H100 SXM GPUs, all
; busy with pid 4242 (python train.py), as nvidia-smi -q reports such a host
; mid-epoch (in gpudoctor's units).  Clocks at max, no clock event reasons,
; ~60 C (slowdown 87), ~550 of 700 W at the default limit, PCIe Gen5 x16,
; ECC on and clean, no remaps, NVLink up, every error counter 0.
; Inherited by every scenario without its own nvml.ini; counters do not move
; between the two snapshots (nothing here needs them to), so energy_mj is
; left out (NOT_SUPPORTED) rather than shown frozen at 550 W.
[nvml]
driver_version = 550.54.15
nvml_version = 12.550.54.15
cuda_driver_version = 12040
"""
BASE_GPU = """
[gpu{i}]
name = NVIDIA H100 80GB HBM3
uuid = {uuid}
serial = {serial}
pci_bus_id = 00000000:{bus}:00.0
minor_number = {i}
numa_node = NOT_SUPPORTED
persistence_mode = 1
compute_mode = 0
mig_mode = 0
temp_c = {temp}
temp_slowdown_c = 87
temp_shutdown_c = 92
fan_pct = NOT_SUPPORTED
util_gpu_pct = {util}
util_mem_pct = 58
mem_total_bytes = 85520809984
mem_used_bytes = 73551314944
power_w = {power}
power_limit_w = 700
power_default_limit_w = 700
sm_clock_mhz = 1980
sm_clock_max_mhz = 1980
mem_clock_mhz = 2619
mem_clock_max_mhz = 2619
app_sm_clock_mhz = 1980
pstate = 0
clock_event_reasons = 0x0
violation_power_ns = 0
violation_thermal_ns = 0
violation_sync_boost_ns = 0
violation_board_limit_ns = 0
violation_reliability_ns = 0
pcie_gen = 5
pcie_gen_max = 5
pcie_width = 16
pcie_width_max = 16
pcie_tx_kbps = 1850000
pcie_rx_kbps = 2400000
pcie_replays = 0
ecc_mode = 1
ecc_corrected_volatile = 0
ecc_uncorrected_volatile = 0
ecc_corrected_aggregate = 0
ecc_uncorrected_aggregate = 0
retired_pages_sbe = 0
retired_pages_dbe = 0
retired_pages_pending = 0
remap_corrected = 0
remap_uncorrected = 0
remap_pending = 0
remap_failure = 0
recovery_action = 0
nvlink_links = 18
nvlink_up_links = 18
nvlink_errors = 0
procs = 4242:73014444032
proc_util = 4242:{util}:58
"""

write_base()
base = open(os.path.join(root, "base/nvml.ini")).read()
body = base[base.index("[nvml]"):]

def parse(text):
    secs, order, cur = {}, [], None
    for line in text.splitlines():
        m = re.match(r"^\[(.+)\]$", line)
        if m:
            cur = m.group(1); secs[cur] = []; order.append(cur); continue
        if cur and "=" in line and not line.startswith(";"):
            k, v = [x.strip() for x in line.split("=", 1)]
            secs[cur].append([k, v])
    return secs, order

def render(comment, secs, order):
    out = ["; " + l if l else ";" for l in comment.strip().splitlines()]
    for s in order:
        out.append("")
        out.append("[%s]" % s)
        for k, v in secs[s]:
            if v is not None:
                out.append("%s = %s" % (k, v))
    return "\n".join(out) + "\n"

def make(over):
    secs, order = parse(body)
    for sec, kv in over.items():
        for k, v in kv.items():
            for row in secs[sec]:
                if row[0] == k:
                    row[1] = v; break
            else:
                secs[sec].append([k, v])
    return secs, order

def scenario(name, comment, over=None, t0=None, t1=None):
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    for f in ("nvml.ini", "t0.nvml.ini", "t1.nvml.ini"):
        p = os.path.join(d, f)
        if os.path.exists(p):
            os.remove(p)
    if t0 is None:
        secs, order = make(over or {})
        open(os.path.join(d, "nvml.ini"), "w").write(render(comment, secs, order))
    else:
        for t, o in (("t0", t0), ("t1", t1)):
            merged = {}
            for src in (over or {}, o):
                for s, kv in src.items():
                    merged.setdefault(s, {}).update(kv)
            secs, order = make(merged)
            open(os.path.join(d, t + ".nvml.ini"), "w").write(
                render(comment + "\n(%s: the %s snapshot.)" % (t, "first" if t == "t0" else "second, 2 s later"), secs, order))

H = "The healthy host of base/nvml.ini, except: "

scenario("1101-gpu.thermal_throttle", H + """gpu2 runs hot (85 C, slowdown at 87 C):
clock-event reason sw_thermal, the SM clock down to 1410 MHz, and its thermal
violation time grows 0.9 s in the 2 s window (45%).""",
    {"gpu2": {"temp_c": "85", "clock_event_reasons": "0x20", "sm_clock_mhz": "1410", "power_w": "512.4"}},
    {"gpu2": {"violation_thermal_ns": "412000000000"}},
    {"gpu2": {"violation_thermal_ns": "412900000000"}})

scenario("1102-gpu.power_brake", H + """the PSU asserts the power brake on gpu1:
clock-event reasons hw_slowdown + power_brake (0x88), SM clock 990 MHz, power
draw down to 265 W.""",
    {"gpu1": {"clock_event_reasons": "0x88", "sm_clock_mhz": "990", "power_w": "265.2"}})

scenario("1103-gpu.hw_slowdown", H + """gpu3 reports hardware slowdown (0x8) at a
normal temperature and without the power brake: SM clock 945 MHz.""",
    {"gpu3": {"clock_event_reasons": "0x8", "sm_clock_mhz": "945", "power_w": "301.7"}})

scenario("1104-gpu.power_capped", H + """gpu0's power limit was lowered to 450 W
(default 700 W): it draws 449 W with reason sw_power_cap, SM clock 1575 MHz,
and its power violation time grows 1.7 s in the 2 s window at 95% utilisation.""",
    {"gpu0": {"power_limit_w": "450", "power_w": "449.1", "clock_event_reasons": "0x4", "sm_clock_mhz": "1575",
              "util_gpu_pct": "95"}},
    {"gpu0": {"violation_power_ns": "73000000000"}},
    {"gpu0": {"violation_power_ns": "74700000000"}})

scenario("1105-gpu.clocks_held_low", H + """someone set application clocks on gpu1
(nvidia-smi -ac 2619,1095): 96% busy at 1095 MHz of 1980 MHz, reason
app_clocks only.""",
    {"gpu1": {"sm_clock_mhz": "1095", "app_sm_clock_mhz": "1095", "clock_event_reasons": "0x2", "power_w": "402.5"}})

scenario("1106-gpu.pcie_link_degraded", H + """gpu2 trained its link to Gen3 x8
(of Gen5 x16) and runs busy on it; gpu3 is idle at Gen1 x16, as idle GPUs
are on purpose, and must not be flagged.""",
    {"gpu2": {"pcie_gen": "3", "pcie_width": "8"},
     "gpu3": {"pcie_gen": "1", "util_gpu_pct": "0", "util_mem_pct": "0", "sm_clock_mhz": "345",
              "clock_event_reasons": "0x1", "power_w": "71.3", "pstate": "8", "temp_c": "38",
              "mem_used_bytes": "524288000", "pcie_tx_kbps": "0", "pcie_rx_kbps": "0", "procs": None,
              "proc_util": None}})

scenario("1107-gpu.pcie_replays", H + """gpu1's PCIe link replays: the counter goes
from 120 to 168 in the 2 s window (1440 per minute).""",
    None, {"gpu1": {"pcie_replays": "120"}}, {"gpu1": {"pcie_replays": "168"}})

scenario("1108-gpu.lost", H + """gpu3 fell off the bus: every NVML call for it
answers GPU_IS_LOST.""",
    {"gpu3": {"lost": "1"}})

scenario("1109-gpu.monitor_stuck", H + """nvmlDeviceGetPowerUsage never returns on
gpu1 (a wedged driver): the collector gives up after its deadline, gpu0's
values stay, gpu1's power and everything after it are withdrawn.""",
    {"gpu1": {"hang": "nvmlDeviceGetPowerUsage"}})

scenario("1110-gpu.reset_required", H + """the driver asks for a GPU reset of gpu0
(recovery action 1, NVML field 230).""",
    {"gpu0": {"recovery_action": "1"}})

scenario("1111-gpu.ecc_uncorrectable", H + """gpu2 counted 2 uncorrectable ECC
errors since the driver loaded.""",
    {"gpu2": {"ecc_uncorrected_volatile": "2", "ecc_uncorrected_aggregate": "2",
              "ecc_corrected_volatile": "14", "ecc_corrected_aggregate": "41"}})

scenario("1112-gpu.ecc_correctable_rate", H + """gpu1's corrected ECC count rises
from 1200 to 1260 in the 2 s window (108000 per hour).""",
    None,
    {"gpu1": {"ecc_corrected_volatile": "1200", "ecc_corrected_aggregate": "5310"}},
    {"gpu1": {"ecc_corrected_volatile": "1260", "ecc_corrected_aggregate": "5370"}})

scenario("1113-gpu.row_remap_pending", H + """gpu3 remapped a row for an
uncorrectable error and waits for a reset to apply it.""",
    {"gpu3": {"remap_uncorrected": "1", "remap_pending": "1", "ecc_uncorrected_aggregate": "1"}})

scenario("1114-gpu.row_remap_failed", H + """gpu0 ran out of spare rows: the remap
failure flag is set.""",
    {"gpu0": {"remap_uncorrected": "8", "remap_corrected": "2", "remap_failure": "1",
              "ecc_uncorrected_aggregate": "9"}})

scenario("1115-gpu.memory_full", H + """pid 4242 fills gpu1's memory: 83.9 of
85.5 GB in use (98%).""",
    {"gpu1": {"mem_used_bytes": "83886080000", "procs": "4242:83349209088"}})

scenario("1116-gpu.memory_oversubscribed", H + """gpu2 is 98% full and pages over
PCIe (unified memory): RX 14.0 + TX 8.0 GB/s over its Gen5 x16 link while
only 18% busy.  gpu.memory_full fires too.""",
    {"gpu2": {"mem_used_bytes": "84000000000", "procs": "4242:83463192576", "pcie_rx_kbps": "13671875",
              "pcie_tx_kbps": "7812500", "util_gpu_pct": "18", "util_mem_pct": "9", "power_w": "212.8",
              "proc_util": "4242:18:9"}})

scenario("1117-gpu.nvlink_errors", H + """gpu1 has one NVLink link down (17 of 18
up) and its error counters rise by 2400 in the 2 s window.""",
    {"gpu1": {"nvlink_up_links": "17"}},
    {"gpu1": {"nvlink_errors": "310"}}, {"gpu1": {"nvlink_errors": "2710"}})

scenario("1118-gpu.persistence_off", H + """persistence mode is off on every GPU
(no nvidia-persistenced): one info finding for gpu0-3.""",
    {g: {"persistence_mode": "0"} for g in ("gpu0", "gpu1", "gpu2", "gpu3")})

# Replace [nvml] with an init failure: keep the GPUs, init never gets there.
scenario("1119-driver.version_mismatch", H + """the driver was upgraded but the old
kernel module is still loaded: nvmlInit answers LIB_RM_VERSION_MISMATCH.""",
    {"nvml": {"init": "LIB_RM_VERSION_MISMATCH"}})

scenario("1120-driver.nvml_unavailable", H + """gpudoctor runs without access to
/dev/nvidiactl (a container started without the NVIDIA runtime's devices):
nvmlInit answers NO_PERMISSION.""",
    {"nvml": {"init": "NO_PERMISSION"}})

def series(name, comment, steps):
    """tN.nvml.ini for the samples of a series scenario named in steps
    ({"t3": overrides}); the others take base/nvml.ini (run.sh)."""
    d = os.path.join(root, name)
    for t, o in sorted(steps.items()):
        secs, order = make(o)
        open(os.path.join(d, t + ".nvml.ini"), "w").write(
            render(comment + "\n(%s: sample %s of the series, uptime %d s.)" % (t, t[1:], 1000 + 2 * int(t[1:])),
                   secs, order))

IDLE = {g: {"util_gpu_pct": "0", "util_mem_pct": "0", "power_w": "96.4", "proc_util": "4242:0:0"}
        for g in ("gpu0", "gpu1", "gpu2", "gpu3")}

series("0002-healthy-series", H + """every GPU is idle in one sample (t3:
an evaluation step between epochs, the job keeps its contexts) while the disks
see only ordinary writes; the 4 GB checkpoint at t2 is written while the GPUs
stay busy (asynchronous).""", {"t3": IDLE})

series("1023-io.checkpoint_stall", H + """every GPU is idle at t2 and t3 (the
job keeps its contexts) while 6 GB go to nvme0n1: a synchronous checkpoint.""",
       {"t2": IDLE, "t3": IDLE})
