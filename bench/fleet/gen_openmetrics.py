#!/usr/bin/env python3
"""bench/fleet/gen_openmetrics.py NODES DAYS STEP_S END_UNIX > fleet.om

A synthetic fleet's history in OpenMetrics text, for `promtool tsdb
create-blocks-from openmetrics`: NODES nodes of 8 GPUs each, every series
gpudoctor fleet reads, one sample every STEP_S seconds for DAYS days up to
END_UNIX.  Per node: up, gpudoctor_up, gpudoctor_build_info,
gpudoctor_collection_cycles_total; per GPU the six gpudoctor_gpus_* series
the outliers read and gpudoctor_gpus_lost, the two uncaused-stall counters;
per node 10 finding counter pairs (5 rules x 2 GPUs, onsets rising now and
then).  About 100 series a node, as docs/fleet.md assumes."""
import sys

nodes, days, step, end = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
start = end - int(days * 86400)
ts = range(start, end + 1, step)
out = sys.stdout
w = out.write
RULES = ["gpu.thermal_throttle", "gpu.pcie_replays", "gpu.ecc_correctable_rate", "gpu.power_capped", "gpu.xid"]

def series(name, labels, fn, kind=None):
    lab = ",".join('%s="%s"' % kv for kv in labels)
    head = "%s{%s}" % (name, lab)
    for i, t in enumerate(ts):
        w("%s %s %d\n" % (head, fn(i), t))

for n in range(nodes):
    inst = ("instance", "node%04d:9835" % n)
    job = ("job", "gpudoctor")
    base = [job, inst]
    series("up", base, lambda i: 1)
    series("gpudoctor_up", base, lambda i: 1)
    series("gpudoctor_build_info", base + [("version", "0.1.0")], lambda i: 1)
    series("gpudoctor_collection_cycles_total", base, lambda i: i * step)
    for g in range(8):
        gl = base + [("gpu", str(g)), ("model", "NVIDIA H100 80GB HBM3"), ("uuid", "GPU-%04d-%d" % (n, g))]
        slow = (n * 8 + g) % 97 == 5
        series("gpudoctor_gpus_sm_clock_hertz", gl, lambda i: 1500000000 if slow else 1980000000 - (g % 3) * 5000000)
        series("gpudoctor_gpus_temp_celsius", gl, lambda i: 60 + g % 4)
        series("gpudoctor_gpus_power_watts", gl, lambda i: 550 + g * 3)
        series("gpudoctor_gpus_util_gpu_ratio", gl, lambda i: 0.95 if i % 10 else 0.02)
        series("gpudoctor_gpus_pcie_width", gl, lambda i: 16)
        series("gpudoctor_gpus_nvml_procs", gl, lambda i: 1)
        series("gpudoctor_gpus_lost", gl, lambda i: 0)
        series("gpudoctor_gpu_stall_uncaused_episodes_total", base + [("gpu", str(g))], lambda i: i // 500)
        series("gpudoctor_gpu_stall_uncaused_seconds_total", base + [("gpu", str(g))], lambda i: (i // 500) * 30)
    for r in RULES:
        for g in range(2):
            fl = base + [("rule", r), ("severity", "warning"), ("subject", "gpu%d" % g), ("gpu", str(g)),
                         ("uuid", "GPU-%04d-%d" % (n, g)), ("model", "NVIDIA H100 80GB HBM3")]
            series("gpudoctor_finding_onsets_total", fl, lambda i: 1 + i // 2000)
            series("gpudoctor_finding_active_seconds_total", fl, lambda i: (1 + i // 2000) * 120)
w("# EOF\n")
