#!/usr/bin/env python3
# mkjobmap.py - how the scenarios of "which GPU a job uses" (issue 12) were
# generated: a CUDA process opens every /dev/nvidia<N> it sees and its loader
# workers inherit them, so only NVML's process lists say which GPU a process
# uses.  Each scenario is base/nvml.ini (or 0001-healthy-8gpu's eight GPUs)
# with the process lists and a few keys changed, plus, for the ranks, t0/ and
# t1/ overlays with the rank processes.  Not run by run.sh; rerun it after a
# change here, then UPDATE=1 run.sh and review the expected.txt diffs.
import configparser, os, shutil

root = os.path.dirname(os.path.abspath(__file__))

# An idle GPU, as NVML reports one nobody uses (cf. 1106's gpu3): no process,
# the driver's ~0.5 GiB reservation, clocks and link down on purpose.
IDLE = {"util_gpu_pct": "0", "util_mem_pct": "0", "sm_clock_mhz": "345", "clock_event_reasons": "0x1",
        "power_w": "71.3", "pstate": "8", "temp_c": "38", "mem_used_bytes": "524288000", "pcie_gen": "1",
        "pcie_tx_kbps": "0", "pcie_rx_kbps": "0", "procs": None, "proc_util": None}


def nvml(name, comment, src, over):
    """src's [nvml] and [gpuN] sections with over's keys set (None: removed)."""
    ini = configparser.ConfigParser(interpolation=None, comment_prefixes=(";",))
    ini.optionxform = str
    ini.read(os.path.join(root, src))
    for sec, kv in over.items():
        for k, v in kv.items():
            if v is None:
                ini.remove_option(sec, k)
            else:
                ini.set(sec, k, v)
    out = ["; " + l if l else ";" for l in comment.strip().splitlines()]
    for s in ini.sections():
        out += ["", "[%s]" % s] + ["%s = %s" % kv for kv in ini.items(s)]
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "nvml.ini"), "w").write("\n".join(out) + "\n")


def rank_overlay(name, pids, ngpu):
    """pids[0] is base's 4242 (given /dev/nvidia4..7 too); the others are
    copies of it (its main thread only), children of the launcher 4200,
    each holding every /dev/nvidia0..ngpu-1."""
    for t in ("t0", "t1"):
        base = os.path.join(root, "base", t, "proc", "4242")
        dst = os.path.join(root, name, t, "proc")
        if os.path.isdir(dst):
            shutil.rmtree(dst)
        os.makedirs(os.path.join(dst, "4242", "fd"))
        for n in range(4, ngpu):
            os.symlink("/dev/nvidia%d" % n, os.path.join(dst, "4242", "fd", str(13 + n)))
        for pid in pids[1:]:
            p = os.path.join(dst, str(pid))
            os.makedirs(os.path.join(p, "fd"))
            os.makedirs(os.path.join(p, "task", str(pid)))
            os.makedirs(os.path.join(p, "ns"))
            for f in ("cgroup", "cmdline", "comm", "io", "maps", "mountinfo", "mounts"):
                shutil.copy(os.path.join(base, f), os.path.join(p, f))
            for f in ("stat", "status"):
                s = open(os.path.join(base, f)).read().replace("4242", str(pid))
                s = s.replace("\t17\n", "\t%d\n" % (17 + pid - pids[0]))
                open(os.path.join(p, f), "w").write(s)
            for f in ("comm", "stat"):
                s = open(os.path.join(base, "task", "4242", f)).read().replace("4242", str(pid))
                open(os.path.join(p, "task", str(pid), f), "w").write(s)
            for ns in ("mnt", "net"):
                os.symlink(os.readlink(os.path.join(base, "ns", ns)), os.path.join(p, "ns", ns))
            fds = ["/dev/null", "pipe:[41002]", "pipe:[41002]", "/dev/nvidiactl", "/dev/nvidia-uvm"]
            fds += ["/dev/nvidia%d" % n for n in range(ngpu)]
            for i, target in enumerate(fds):
                os.symlink(target, os.path.join(p, "fd", str(i)))


EIGHT = "0001-healthy-8gpu/nvml.ini"
RANKS = [4242] + [4250 + i for i in range(1, 8)]

nvml("0004-healthy-ranks-hold-all-nodes", """Eight ranks of one job (pid 4242 and 4251-4257, children of the launcher
4200): each opened all eight /dev/nvidia0-7 (CUDA does, and its workers inherit
them), NVML lists each on its own GPU only.  Healthy: silent.""", EIGHT,
     {"gpu%d" % i: {"procs": "%d:73014444032" % RANKS[i], "proc_util": "%d:9%d:58" % (RANKS[i], 4 + i % 4)}
      for i in range(8)})
rank_overlay("0004-healthy-ranks-hold-all-nodes", RANKS, 8)

one = {"gpu%d" % i: dict(IDLE) for i in range(1, 8)}
nvml("0005-healthy-one-gpu-of-eight", """A notebook on an 8-GPU node: pid 4242 holds /dev/nvidia0-7 open but NVML
lists it on gpu0 only, 96% busy; gpu1-7 are idle, nobody's, as NVML reports
unused GPUs.  Silent: an unused GPU is idle by choice.""", EIGHT, one)
rank_overlay("0005-healthy-one-gpu-of-eight", [4242], 8)

nvml("0006-healthy-idle-spare", """The base host's job uses gpu0-2 (NVML lists pid 4242 there); gpu3 is a spare:
nobody listed, idle, though pid 4242 holds /dev/nvidia3 open.  Silent.""",
     "base/nvml.ini", {"gpu3": dict(IDLE)})

host_pids = {"gpu%d" % i: {"procs": "%d:73014444032" % (3810771 + i), "proc_util": "%d:9%d:58" % (3810771 + i, 4 + i)}
             for i in range(4)}
host_pids["gpu2"].update({"util_gpu_pct": "0", "util_mem_pct": "0", "proc_util": "3810773:0:0", "power_w": "118.4"})
nvml("1301-gpu.idle_while_job_runs", """gpudoctor in a container: NVML lists host pids 3810771-3810774 on gpu0-3,
none of them in this pid namespace (the tree's pid 4242 is another
process).  The GPUs are in use; gpu2, used by 3810773, is at 0%: it fires,
naming the pid NVML gave.""", "base/nvml.ini", host_pids)

nvml("1302-gpu.idle_while_job_runs", """NVML lists nobody on gpu3, yet 30 GiB of its memory is in use (a process
gpudoctor cannot see: another container, or a list the driver withholds) and
it is 3% busy: not idle by choice, it fires.""", "base/nvml.ini",
     {"gpu3": {"procs": None, "proc_util": None, "mem_used_bytes": "32212254720", "util_gpu_pct": "3",
               "util_mem_pct": "1", "power_w": "121.9"}})


# Who each rank is (issue 26): the environments launchers give, with
# secrets beside them (a decoy run.sh checks never leaves the tree), read
# only for their fixed list of keys (src/collect/job_rank.h).
DECOY = "gd-decoy-secret-5b1e09"


def environ(path, pairs):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "wb").write(b"".join(("%s=%s" % kv).encode() + b"\0" for kv in pairs))


def put(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").write(text)


# base: a job on this node alone (no rank keys) in a container
for t in ("t0", "t1"):
    environ(os.path.join(root, "base", t, "proc", "4242", "environ"), [
        ("PATH", "/opt/conda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
        ("HOSTNAME", "train-7d9f8-x2k4q"), ("NVIDIA_VISIBLE_DEVICES", "0,1,2,3"),
        ("WANDB_API_KEY", DECOY), ("PYTHONUNBUFFERED", "1"), ("HOME", "/root")])

# 0004: torchrun's eight workers on node 1 of a 2-node job, in a Kubeflow
# PyTorchJob's worker pod (its hostname, its service-account namespace)
for t in ("t0", "t1"):
    for i, pid in enumerate(RANKS):
        d = os.path.join(root, "0004-healthy-ranks-hold-all-nodes", t, "proc", str(pid))
        environ(os.path.join(d, "environ"), [
            ("PATH", "/opt/conda/bin:/usr/bin:/bin"), ("HOSTNAME", "resnet-ddp-worker-0"),
            ("AWS_SECRET_ACCESS_KEY", DECOY), ("PET_NNODES", "2"), ("PET_NPROC_PER_NODE", "8"),
            ("PET_NODE_RANK", "1"), ("LOCAL_RANK", str(i)), ("RANK", str(8 + i)), ("GROUP_RANK", "1"),
            ("ROLE_RANK", str(8 + i)), ("LOCAL_WORLD_SIZE", "8"), ("WORLD_SIZE", "16"),
            ("MASTER_ADDR", "resnet-ddp-master-0"), ("MASTER_PORT", "23456"),
            ("TORCHELASTIC_RUN_ID", "resnet-ddp"), ("TORCHELASTIC_RESTART_COUNT", "0"),
            ("NCCL_SOCKET_IFNAME", "eth0"), ("NCCL_IB_HCA", "mlx5_0"), ("HF_TOKEN", DECOY)])
        put(os.path.join(d, "root", "etc", "hostname"), "resnet-ddp-worker-0\n")
        sa = os.path.join(d, "root", "var", "run", "secrets", "kubernetes.io", "serviceaccount")
        put(os.path.join(sa, "namespace"), "ml-team")
        put(os.path.join(sa, "token"), DECOY)   # beside it, never read
