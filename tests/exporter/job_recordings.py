#!/usr/bin/env python3
"""tests/exporter/job_recordings.py DIR JOB NODES RANKS SECONDS INTERVAL SCENARIO [EXTRA]

Writes DIR/nodeK.jsonl, one recording per node as `gpudoctor record` writes
them (snapshot JSON lines, only the sections fleet --job reads: host,
job_ranks, job_threads, gpus), of a job JOB of NODES x RANKS ranks, one
snapshot every INTERVAL seconds for SECONDS seconds ending at a fixed
time.  Each rank's main thread is sampled (perf counters by category,
cumulative) and runs on a core; its GPU is its local rank.  SCENARIO:
  healthy  every rank computes: 5% of its samples in NCCL
  slow     rank 5 (node 2, local rank 1) computes (2% in NCCL) while the
           others wait (60%)
  stuck    from half the range on rank 5 is stopped (state T, no new
           samples, no CPU) while the others wait (70%)
EXTRA "conflict": node 3 claims rank 5 too (a second job sharing the id).
EXTRA "other": a second job id "other-job" on node 0 (listed when JOB
does not match)."""
import json
import os
import sys

d, job, nodes, ranks, seconds, interval, scen = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), \
    float(sys.argv[5]), float(sys.argv[6]), sys.argv[7]
extra = sys.argv[8] if len(sys.argv) > 8 else ""
END = 1796600000.0
n_snap = int(seconds / interval) + 1
SAMPLES = 100  # perf samples per rank per second


def wait(n, lr, t, i):
    c = n == 2 and lr == 1
    if scen == "slow":
        return 0.02 if c else 0.6
    if scen == "stuck" and i >= n_snap // 2:
        return None if c else 0.7
    return 0.05


for n in range(nodes):
    acc = {}
    with open(os.path.join(d, "node%d.jsonl" % n), "w") as f:
        for i in range(n_snap):
            t = END - seconds + i * interval
            jr, jt, gpus = [], [], []
            for lr in range(ranks):
                pid = 1000 + lr
                rank = n * ranks + lr
                if extra == "conflict" and n == 3 and lr == 1:
                    rank = 5
                jr.append({"pid": pid, "status": "ok", "job": job, "launcher": "torchelastic", "rank": rank,
                           "local_rank": lr, "world_size": nodes * ranks, "local_world_size": ranks, "node_rank": n,
                           "gpus": str(lr)})
                a = acc.setdefault(pid, {"run": 0, "nccl": 0, "py": 0})
                wt = wait(n, lr, t, i)
                stopped = wt is None
                if not stopped and i > 0:
                    a["run"] += int(interval * 1e9)
                    a["nccl"] += int(SAMPLES * interval * wt)
                    a["py"] += int(SAMPLES * interval * (1 - wt))
                jt.append({"pid": pid, "tid": pid, "comm": "python", "role": "main", "state": "T" if stopped else "R",
                           "run_ns": a["run"], "sampled": 1, "samples_cuda": 0, "samples_nccl": a["nccl"],
                           "samples_python": a["py"], "samples_framework": 0, "samples_kernel": 0,
                           "samples_other": 0, "samples_lost": 0})
                gpus.append({"index": lr, "util_gpu_pct": 0 if stopped else int(95 - 90 * wt), "lost": 0})
            if extra == "other" and n == 0:
                jr.append({"pid": 2000, "status": "ok", "job": "other-job", "rank": 0, "world_size": 1})
            snap = {"version": 1, "host": {"hostname": "rec-node%d" % n, "uptime_s": 5000 + t - END,
                                           "wall_time_s": t},
                    "job_ranks": jr, "job_threads": jt, "gpus": gpus}
            f.write(json.dumps(snap) + "\n")
