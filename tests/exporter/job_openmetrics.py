#!/usr/bin/env python3
"""tests/exporter/job_openmetrics.py END SECONDS STEP JOB:SCENARIO:NODES:RANKS[:FIRST_NODE[:SKIP]]...

The series a multi-node job leaves in Prometheus when every node runs
`gpudoctor serve` (as Prometheus stores them: the exporter's job label
renamed exported_job, empty labels dropped), in OpenMetrics text for
`promtool tsdb create-blocks-from openmetrics`: one sample every STEP
seconds for SECONDS seconds up to END (Unix s).  Each JOB runs on NODES
nodes (instances nodeNNNN:9835 from FIRST_NODE on) of RANKS ranks; node
SKIP (an index, optional) never reports (a node unseen).  Per rank:
gpudoctor_job_rank_info, gpudoctor_job_rank_nccl_wait_ratio,
gpudoctor_job_main_thread_cpu_ratio, gpudoctor_job_main_thread_state (R S
D T Z); per GPU gpudoctor_gpu_activity_sm_active_ratio and
gpudoctor_gpus_lost; per node up and gpudoctor_finding while active.

SCENARIO, the culprit being the job's node 2 (its local rank 1):
  healthy     every rank computes (waits 3-8% in NCCL)
  slow        the culprit waits 2% and computes, the others wait 60%; its
              node has gpu.thermal_throttle on gpu1; node 0 has
              cpu.saturated (a finding of a node that holds nobody back)
  periodic    as slow, but only 30 s of every 150 s
  stuck       from half the range on, the culprit's main thread is stopped
              (T, no samples, 0 CPU, GPU idle), the others wait 70%; its
              node has host.hung_tasks
  collective  every rank waits 55-65%; node 1 has net.rdma_unused
Families are written one after the other, each once, as OpenMetrics wants.
Used by tests/exporter/fleet_job.sh and bench/fleet/job.sh."""
import sys

end, seconds, step = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
ts = list(range(end - seconds, end + 1, step))
mid = ts[len(ts) // 2]
out = sys.stdout
w = out.write
jobs = []
for spec in sys.argv[4:]:
    p = spec.split(":")
    jobs.append(dict(id=p[0], scen=p[1], nodes=int(p[2]), ranks=int(p[3]),
                     first=int(p[4]) if len(p) > 4 else 0, skip=int(p[5]) if len(p) > 5 else -1))


def ranks():
    """(job, node index in job, instance, local rank, global rank, pid)"""
    for j in jobs:
        for n in range(j["nodes"]):
            if n == j["skip"]:
                continue
            inst = "node%04d:9835" % (j["first"] + n)
            for lr in range(j["ranks"]):
                yield j, n, inst, lr, n * j["ranks"] + lr, 10000 + (j["first"] + n) * 100 + lr


def culprit(j, n, lr):
    return n == 2 and lr == 1


def slow_at(j, t):
    if j["scen"] == "slow":
        return True
    if j["scen"] == "periodic":
        return (t - ts[0]) % 150 < 30
    return False


def wait(j, n, lr, i, t):
    """the NCCL wait share, or None (no samples)"""
    s = j["scen"]
    c = culprit(j, n, lr)
    if s == "stuck" and t >= mid:
        return None if c else 0.7
    if s == "collective":
        return 0.55 + 0.05 * ((n + lr + i) % 3)
    if slow_at(j, t):
        return 0.02 if c else 0.6
    return 0.03 + 0.01 * ((n * 7 + lr * 3 + i) % 6)


def state(j, n, lr, t):
    return "T" if j["scen"] == "stuck" and culprit(j, n, lr) and t >= mid else "R"


def family(name, help_):
    w("# HELP %s %s\n# TYPE %s gauge\n" % (name, help_, name))


def line(name, labels, v, t):
    w("%s{%s} %s %d\n" % (name, ",".join('%s="%s"' % kv for kv in labels), v, t))


family("up", "scraped")
for j in jobs:
    for n in range(j["nodes"]):
        if n == j["skip"]:
            continue
        for t in ts:
            line("up", [("job", "gpudoctor"), ("instance", "node%04d:9835" % (j["first"] + n))], 1, t)
family("gpudoctor_job_rank_info", "who a rank is")
for j, n, inst, lr, rank, pid in ranks():
    lab = [("job", "gpudoctor"), ("instance", inst), ("exported_job", j["id"]), ("rank", rank), ("local_rank", lr),
           ("world_size", j["nodes"] * j["ranks"]), ("node_rank", n), ("gpu", lr), ("pid", pid)]
    for t in ts:
        line("gpudoctor_job_rank_info", lab, 1, t)
family("gpudoctor_job_rank_nccl_wait_ratio", "NCCL share")
for j, n, inst, lr, rank, pid in ranks():
    for i, t in enumerate(ts):
        v = wait(j, n, lr, i, t)
        if v is not None:
            line("gpudoctor_job_rank_nccl_wait_ratio", [("job", "gpudoctor"), ("instance", inst), ("pid", pid)], v, t)
family("gpudoctor_job_main_thread_cpu_ratio", "CPU")
for j, n, inst, lr, rank, pid in ranks():
    for t in ts:
        v = 0 if state(j, n, lr, t) == "T" else 1.0
        line("gpudoctor_job_main_thread_cpu_ratio", [("job", "gpudoctor"), ("instance", inst), ("pid", pid),
                                                     ("comm", "python")], v, t)
family("gpudoctor_job_main_thread_state", "state")
for j, n, inst, lr, rank, pid in ranks():
    for st in "RSDTZ":
        for t in ts:
            line("gpudoctor_job_main_thread_state", [("job", "gpudoctor"), ("instance", inst), ("pid", pid),
                                                     ("state", st)], int(state(j, n, lr, t) == st), t)
family("gpudoctor_gpu_activity_sm_active_ratio", "SM activity")
for j, n, inst, lr, rank, pid in ranks():
    for i, t in enumerate(ts):
        wt = wait(j, n, lr, i, t)
        v = 0 if wt is None else round(0.95 - wt, 3)
        line("gpudoctor_gpu_activity_sm_active_ratio", [("job", "gpudoctor"), ("instance", inst), ("gpu", lr)], v, t)
family("gpudoctor_gpus_lost", "lost")
for j, n, inst, lr, rank, pid in ranks():
    for t in ts:
        line("gpudoctor_gpus_lost", [("job", "gpudoctor"), ("instance", inst), ("gpu", lr)], 0, t)
family("gpudoctor_finding", "active findings")
for j in jobs:
    s = j["scen"]
    found = {"slow": [(2, "gpu.thermal_throttle", "gpu1"), (0, "cpu.saturated", "host")],
             "periodic": [(2, "gpu.thermal_throttle", "gpu1")],
             "stuck": [(2, "host.hung_tasks", "host")],
             "collective": [(1, "net.rdma_unused", "job")]}.get(s, [])
    for n, rule, subject in found:
        if n == j["skip"]:
            continue
        for t in ts:
            line("gpudoctor_finding", [("job", "gpudoctor"), ("instance", "node%04d:9835" % (j["first"] + n)),
                                       ("rule", rule), ("severity", "warning"), ("subject", subject)], 1, t)
w("# EOF\n")
