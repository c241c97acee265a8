#!/usr/bin/env python3
"""tests/timeline/gen_recording.py - recordings for the HTML report's tests.

Usage: gen_recording.py TEMPLATE.json SCENARIO OUT.jsonl [STEP_S [HOURS]]

(STEP_S and HOURS change the day's sampling and length, for bench/report.)

TEMPLATE is one snapshot that `gpudoctor snapshot` took of the fixture host
(tests/scenarios/base/t0) with the fake NVML's eight H100s of one job
(tests/scenarios/0001-healthy-8gpu/nvml.ini).  Each sample of the series is
that snapshot with its clock, CPU and disk counters, PSI and GPU readings set
for the instant; the per-CPU lists, threads and other slow-changing sections
are left out so that a day of samples stays small.  Scenarios (the expected
result of each is what the test checks):

  straggler   10 min at 1 s; gpu3 runs at 1410 of 1980 MHz, 86-88 C against
              a slowdown at 87 C, clock reason sw_thermal, the whole time;
              the seven others at 1980 MHz and 96-98%.
  checkpoint  10 min at 1 s; every 60 s from t = 30 all eight GPUs idle
              (0-2%) for 8 s while sda writes 750 MB/s (a synchronous
              checkpoint): ten episodes, io.checkpoint_stall, periodic.
  falloff     5 min at 1 s; gpu5 answers GPU_IS_LOST from t = 150 on
              (fell off the bus); the others keep running.
  day         24 h at 20 s from 20:00 local time (2026-12-01, TZ=UTC; the axis crosses
              midnight); every 30 min all GPUs idle for 40 s with a
              checkpoint write; gpu2 slowed (1100 MHz) from 02:00 to 03:00;
              one single sample at 0% on gpu6 at 08:00:00 (a stall a
              downsampled chart must still show).
"""
import copy
import json
import sys

DROP = ("cpus", "threads", "sensors", "nic_irqs", "mounts", "cgroups", "shm", "ib_ports", "edac", "klog",
        "pci_gpus", "pci_nics", "sources", "nvml_errors", "job_log")


def main():
    tpl_path, scen, out_path = sys.argv[1:4]
    with open(tpl_path) as f:
        tpl = json.load(f)
    for k in DROP:
        if k in tpl and isinstance(tpl[k], list):
            tpl[k] = []
    # only the job's processes: the GPU job (pid 4242) and its parents
    if "procs" in tpl:
        keep = {4242}
        by_pid = {p.get("pid"): p for p in tpl["procs"]}
        p = by_pid.get(4242)
        while p and p.get("ppid") in by_pid and p.get("ppid") not in keep:
            keep.add(p["ppid"])
            p = by_pid[p["ppid"]]
        tpl["procs"] = [p for p in tpl["procs"] if p.get("pid") in keep]
    step, n = {"straggler": (1, 600), "checkpoint": (1, 600), "falloff": (1, 300),
               "day": (20, 4320)}[scen]
    if scen == "day" and len(sys.argv) > 4:
        step = int(sys.argv[4])
        n = int(float(sys.argv[5] if len(sys.argv) > 5 else 24) * 3600 / step)
    up0 = 100000.0
    # 2026-12-01 20:00:00 UTC; the test sets TZ=UTC
    wall0 = 1796155200.0 if scen == "day" else float(int(tpl["host"].get("wall_time_s", 1796133480)))
    cpu = dict(tpl.get("cpu", {}))
    disks = tpl.get("disks", [])
    written = 26390080
    gpus0 = tpl["gpus"]
    if scen == "day":
        # what a report reads, as a slim recording keeps it: a day at 20 s stays ~40 MB
        keep = ("index", "name", "uuid", "pci_bus_id", "minor_number", "lost", "temp_c", "temp_slowdown_c",
                "util_gpu_pct", "mem_used_bytes", "mem_total_bytes", "power_w", "power_limit_w", "sm_clock_mhz",
                "sm_clock_max_mhz", "clock_event_reasons", "pcie_gen", "pcie_gen_max", "pcie_width",
                "pcie_width_max", "pcie_tx_kbps", "pcie_rx_kbps", "nvml_procs")
        gpus0 = [{k: g[k] for k in keep if k in g} for g in gpus0]
        disks = [d for d in disks if d.get("name") in ("sda", "nvme0n1")]
        tpl["netifs"] = [x for x in tpl.get("netifs", []) if x.get("name") != "lo"][:1]
    out = open(out_path, "w")
    for i in range(n):
        t = i * step
        s = copy.copy(tpl)
        s["host"] = dict(tpl["host"], uptime_s=up0 + t, wall_time_s=wall0 + t)
        idle = [False] * 8
        slow = [None] * 8
        lost = [False] * 8
        ckpt = False
        if scen == "checkpoint" and t >= 30 and (t - 30) % 60 < 8:
            ckpt = True
        if scen == "day":
            if t >= 600 and (t - 600) % 1800 < 40:
                ckpt = True
            if 6 * 3600 <= t < 7 * 3600:
                slow[2] = 1100
            if 12 * 3600 <= t < 12 * 3600 + step:
                idle[6] = True
        if ckpt:
            idle = [True] * 8
            written += 1464844 * step
        else:
            written += 200 * step
        if scen == "falloff" and t >= 150:
            lost[5] = True
        # CPU: 30% busy, 10% iowait during a checkpoint
        hz = 100 * 16 * step
        cpu["user_ticks"] = cpu.get("user_ticks", 0) + int(hz * 0.30)
        cpu["iowait_ticks"] = cpu.get("iowait_ticks", 0) + int(hz * (0.10 if ckpt else 0.01))
        cpu["idle_ticks"] = cpu.get("idle_ticks", 0) + int(hz * (0.60 if ckpt else 0.69))
        s["cpu"] = dict(cpu)
        s["psi"] = dict(tpl.get("psi", {}), io_some_avg10=35.0 if ckpt else 0.5, cpu_some_avg10=2.0,
                        memory_some_avg10=0.0)
        s["disks"] = [dict(d, sectors_written=written) if d.get("name") in ("sda", "sda1") else d for d in disks]
        gl = []
        for g in gpus0:
            k = g["index"]
            if lost[k]:
                gl.append({"index": k, "name": g.get("name"), "uuid": g.get("uuid"),
                           "pci_bus_id": g.get("pci_bus_id"), "minor_number": g.get("minor_number"), "lost": 1})
                continue
            g = dict(g)
            g["util_gpu_pct"] = (i + k) % 3 if idle[k] else 96 + (i + k) % 3
            g["power_w"] = 120.0 + (i % 5) if idle[k] else 640.0 + ((i * 7 + k) % 20)
            g["temp_c"] = 50.0 + (i % 3) if idle[k] else 62.0 + ((i + k) % 4)
            g["sm_clock_mhz"] = 1980
            g["clock_event_reasons"] = 1 if idle[k] else 0
            g["pcie_tx_kbps"] = 2000 if idle[k] else 9000000 + ((i * 13 + k * 7) % 11) * 100000
            g["pcie_rx_kbps"] = 1000 if idle[k] else 4000000 + ((i * 5 + k) % 7) * 100000
            if scen == "straggler" and k == 3:
                g["sm_clock_mhz"] = 1410
                g["temp_c"] = 86.0 + (i % 3)
                g["clock_event_reasons"] = 0x20
                g["power_w"] = 560.0 + (i % 9)
            if slow[k]:
                g["sm_clock_mhz"] = slow[k]
                g["clock_event_reasons"] = 0x20
                g["temp_c"] = 86.0
            gl.append(g)
        s["gpus"] = gl
        s["gpu_procs"] = [p for p in tpl.get("gpu_procs", []) if not lost[p["gpu"]]]
        out.write(json.dumps(s, separators=(",", ":")) + "\n")
    out.close()


if __name__ == "__main__":
    main()
