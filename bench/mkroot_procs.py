#!/usr/bin/env python3
"""
mkroot_procs.py - a synthetic root of a busy GPU node: 1,000 processes and
10,000 threads, for bench/run.sh's second root (issue 16, "the cycle").

    python3 bench/mkroot_procs.py DIR [NPROCS [NTHREADS]]

Writes under DIR (which must not exist or be empty) the healthy training host
of tests/scenarios (base/t0: its /proc files, /sys, /dev/kmsg, cgroups, made
by the same code, tests/scenarios/mkfixtures.py) with its process table
replaced by a busy node's, shaped like what `ps -eLf` shows on a 64-CPU
8-GPU Kubernetes node:

  - kernel threads (about 43%): per CPU cpuhp, migration, ksoftirqd,
    idle_inject and kworkers, plus rcu, kswapd, jbd2, irq/NN-nvidia and
    irq/NN-mlx5_comp threads, nvidia-modeset and UVM queues; no fds, no
    cmdline, cgroup "/", as the kernel shows them;
  - two GPU jobs: the fixture's pod (python train.py, pid 4242, holding
    /dev/nvidia0..3, now 96 threads, with its four DataLoader workers) and a
    second pod (cgroup /kubepods/pod2/job) running torchrun with four ranks
    on /dev/nvidia4..7, each rank ~100 threads (NCCL, autograd, pin_memory,
    CUDA event handler) and ~150 fds (sockets, shm segments, nvidia
    devices), each with eight DataLoader workers of 8 OpenMP threads;
  - systemd and its services (journald, udevd, logind, networkd, resolved,
    dbus, rsyslogd, cron, chronyd, polkitd, multipathd, irqbalance, snapd),
    sshd with sessions, bash, tmux, vim, htop, watch nvidia-smi;
    nvidia-persistenced, nv-hostengine (DCGM), dcgm-exporter,
    node_exporter, kubelet, containerd, dockerd, fluent-bit;
  - about 100 other pods (containerd-shim, pause, nginx with workers, python
    services, a Ray head with idle workers), none holding a GPU.

Every process has stat, status, io, cgroup, cmdline, comm, mountinfo,
mounts, ns/{mnt,net}, fd/ (symlinks, as the kernel shows them) and
task/<tid>/{stat,comm,schedstat,syscall,wchan} for each of its threads, so
the tree holds what a real /proc holds for these processes: the collectors
read the parts they read (task files only for GPU jobs, maps only for GPU
jobs) and every source is "ok" on it (bench/run.sh checks).  nvml.ini is a
fake-NVML description of the 8 GPUs with the ranks as their compute
processes (tests/fake_nvml), for runs that want the GPU side too.
"""
import importlib.util
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SCEN = os.path.join(REPO, "tests", "scenarios")


def load_fixtures():
    spec = importlib.util.spec_from_file_location("mkfixtures", os.path.join(SCEN, "mkfixtures.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


mf = load_fixtures()
proc = mf.proc
JOB_CG = mf.JOB_CG
JOB2_CG = "/kubepods/pod2/job"
NCPU_NODE = 64   # kernel threads per CPU are modelled on a 64-CPU node


class Pids:
    def __init__(self, start):
        self.next = start

    def take(self, n=1):
        p = self.next
        self.next += n
        return p


def threads_of(pid, comm, n, names=None):
    """n threads: the main one (tid = pid) and n - 1 more."""
    out = [(pid, comm, 1.0)]
    for i in range(1, n):
        name = names[(i - 1) % len(names)] if names else comm
        out.append((pid + i, name, 0.0))
    return out


def sockets(base, n):
    return ["socket:[%d]" % (base + i) for i in range(n)]


def fds_of(targets):
    return {i: t for i, t in enumerate(targets)}


def std_fds(kind="null"):
    if kind == "pts":
        return ["/dev/pts/1"] * 3
    if kind == "pipe":
        return ["/dev/null", "pipe:[51002]", "pipe:[51002]"]
    return ["/dev/null"] * 3


def kernel_threads(pids, n):
    names = []
    for c in range(NCPU_NODE):
        names += ["cpuhp/%d" % c, "idle_inject/%d" % c, "migration/%d" % c, "ksoftirqd/%d" % c,
                  "kworker/%d:0H-events_highpri" % c, "kworker/%d:1-events" % c]
    names += ["rcu_gp", "rcu_par_gp", "slub_flushwq", "netns", "mm_percpu_wq", "rcu_tasks_kthread",
              "rcu_tasks_rude_kthread", "rcu_tasks_trace_kthread", "rcu_preempt", "kdevtmpfs", "inet_frag_wq",
              "kauditd", "khungtaskd", "oom_reaper", "writeback", "kcompactd0", "kcompactd1", "ksmd",
              "khugepaged", "kintegrityd", "kblockd", "blkcg_punt_bio", "kswapd0", "kswapd1", "ecryptfs-kthrea",
              "kthrotld", "acpi_thermal_pm", "nvme-wq", "nvme-reset-wq", "nvme-delete-wq", "jbd2/nvme0n1p2-8",
              "ext4-rsv-conver", "xfsalloc", "xfs_mru_cache", "nvidia-modeset/kthread_q",
              "nvidia-modeset/deferred_kthread_q", "UVM global queue", "UVM deferred release queue",
              "UVM Tools Event Queue", "nv_queue", "nvidia"]
    names += ["irq/%d-nvidia" % (200 + g) for g in range(8)]
    names += ["irq/%d-mlx5_comp%d@pci:0000:17:00.0" % (300 + q, q) for q in range(16)]
    out = {}
    i = 0
    while len(out) < n:
        name = names[i % len(names)] if i < len(names) else "kworker/u%d:%d-events_unbound" % (i % 130, i)
        pid = pids.take()
        state = "I" if name.startswith("kworker") or name.endswith("wq") else "S"
        out[pid] = proc(pid, 2, name[:15] if not name.startswith("kworker") else name, "", 3 + i, "/",
                        kthread=True, state=state)
        i += 1
    return out


def gpu_rank_fds(rank, gpus, sock0):
    t = std_fds("pipe") + ["/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"]
    t += ["/dev/nvidia%d" % g for g in gpus] * 3
    t += ["anon_inode:[eventfd]"] * 12 + ["anon_inode:[eventpoll]"] * 2
    t += sockets(sock0, 64)
    t += ["/dev/shm/nccl-%06d (deleted)" % (rank * 100 + i) for i in range(24)]
    t += ["/dev/shm/torch_%d_%d_%d (deleted)" % (5300 + rank, 3000 + rank, i) for i in range(16)]
    t += ["/data/imagenet/train-%06d.tar" % (rank * 8 + i) for i in range(8)]
    t += ["/workspace/logs/rank%d.log" % rank, "/workspace/ckpt/latest.pt",
          "/usr/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so"]
    return fds_of(t)


def gpu_jobs(m, pids):
    """Pod 1 (the fixture's 4242, more threads) and pod 2 (torchrun + 4 ranks)."""
    p = m["procs"]
    rank_names = ["cuda-EvtHandlr", "pt_autograd_0", "pt_autograd_1", "pt_autograd_2", "pt_autograd_3",
                  "pt_nccl_watchdg", "pt_nccl_heartbt", "pt_data_pin", "python", "python", "python",
                  "nccl-proxy", "nccl-net", "cuda00001400006", "python"]
    j = p[4242]
    j["threads"] = [(tid, comm, share) for tid, comm, share in
                    [(4242, "python", 0.55)] + [(t, rank_names[(t - 9000) % len(rank_names)], 0.0045)
                                                for t in range(9000, 9095)]]
    for i in range(4):
        w = p[4301 + i]
        w["threads"] = [(4301 + i, "pt_data_worker", 0.9)] + [(9100 + i * 8 + k, "pt_data_worker", 0.0125)
                                                               for k in range(7)]
    shim = pids.take(20)
    p[shim] = proc(shim, 1, "containerd-shim", "/usr/bin/containerd-shim-runc-v2 -namespace k8s.io -id "
                   "8c1d2e3f4a5b -address /run/containerd/containerd.sock", 19960, "/system.slice/containerd.service",
                   rss_kb=14336, fds=fds_of(std_fds() + sockets(52000, 6)),
                   threads=threads_of(shim, "containerd-shim", 12))
    sh = pids.take()
    p[sh] = proc(sh, shim, "bash", "/bin/bash /workspace/train2.sh", 20020, JOB2_CG, ns="job", rss_kb=3584,
                 nspid=1, fds=fds_of(std_fds("pipe")))
    tr = pids.take(20)
    p[tr] = proc(tr, sh, "torchrun", "/usr/bin/python3 /usr/local/bin/torchrun --nproc-per-node 4 "
                 "--rdzv-backend c10d --rdzv-endpoint 10.20.0.11:29400 finetune.py --model llama-13b",
                 20030, JOB2_CG, ns="job", du=1, rss_kb=524288, nspid=2,
                 fds=fds_of(std_fds("pipe") + sockets(52100, 10)), threads=threads_of(tr, "torchrun", 12))
    ranks = []
    for r in range(4):
        pid = pids.take(120)
        ranks.append(pid)
        p[pid] = proc(pid, tr, "python", "/usr/bin/python3 -u finetune.py --model llama-13b --local-rank %d" % r,
                      20040 + r, JOB2_CG, ns="job", du=95, ds=20, state="R", rss_kb=25165824, drchar=5000000,
                      dread=1000000, nspid=10 + r, fds=gpu_rank_fds(r, [4 + r], 53000 + r * 100),
                      threads=[(pid, "python", 0.6)] + [(pid + k, rank_names[k % len(rank_names)], 0.004)
                                                        for k in range(1, 100)])
        for w in range(8):
            wp = pids.take(10)
            p[wp] = proc(wp, pid, "pt_data_worker", "/usr/bin/python3 -u finetune.py --model llama-13b "
                         "--local-rank %d" % r, 20100 + r * 8 + w, JOB2_CG, ns="job", du=60, ds=10,
                         state="R" if w % 3 == 0 else "S", rss_kb=2097152, drchar=6000000, dread=6000000,
                         nspid=40 + r * 8 + w,
                         fds=fds_of(std_fds("pipe") + ["/data/imagenet/train-%06d.tar" % (r * 64 + w)] +
                                    ["/dev/shm/torch_%d_%d_%d (deleted)" % (wp, 4000 + r, k) for k in range(6)] +
                                    sockets(54000 + r * 100 + w * 10, 4)),
                         threads=[(wp, "pt_data_worker", 0.9)] + [(wp + k, "pt_data_worker", 0.0125)
                                                                  for k in range(1, 8)])
    return ranks


def service(p, pids, comm, cmdline, cg, nthreads, nfds, start, uid=0, rss_kb=20480, sock0=60000, extra=()):
    pid = pids.take(max(nthreads, 1))
    fd = std_fds() + list(extra) + sockets(sock0 + pid, max(nfds - 3 - len(extra), 0))
    p[pid] = proc(pid, 1, comm, cmdline, start, cg, uid=uid, rss_kb=rss_kb, fds=fds_of(fd[:max(nfds, 3)]),
                  threads=threads_of(pid, comm, nthreads) if nthreads > 1 else None)
    return pid


def system_services(p, pids):
    S = "/system.slice/"
    rows = [
        ("systemd-journal", "/lib/systemd/systemd-journald", S + "systemd-journald.service", 1, 40,
         ["/var/log/journal/1f2e/system.journal"]),
        ("systemd-udevd", "/lib/systemd/systemd-udevd", S + "systemd-udevd.service", 1, 12, []),
        ("systemd-network", "/lib/systemd/systemd-networkd", S + "systemd-networkd.service", 1, 18, []),
        ("systemd-resolve", "/lib/systemd/systemd-resolved", S + "systemd-resolved.service", 1, 16, []),
        ("systemd-timesyn", "/lib/systemd/systemd-timesyncd", S + "systemd-timesyncd.service", 2, 10, []),
        ("systemd-logind", "/lib/systemd/systemd-logind", S + "systemd-logind.service", 1, 24, []),
        ("dbus-daemon", "@dbus-daemon --system --address=systemd: --nofork --nopidfile --systemd-activation "
         "--syslog-only", S + "dbus.service", 1, 30, []),
        ("rsyslogd", "/usr/sbin/rsyslogd -n -iNONE", S + "rsyslog.service", 4, 12,
         ["/var/log/syslog", "/var/log/kern.log", "/var/log/auth.log", "/dev/kmsg"]),
        ("cron", "/usr/sbin/cron -f -P", S + "cron.service", 1, 5, []),
        ("chronyd", "/usr/sbin/chronyd -F 1", S + "chrony.service", 1, 8, []),
        ("polkitd", "/usr/libexec/polkitd --no-debug", S + "polkit.service", 3, 12, []),
        ("multipathd", "/sbin/multipathd -d -s", S + "multipathd.service", 7, 14, []),
        ("irqbalance", "/usr/sbin/irqbalance --foreground", S + "irqbalance.service", 2, 6, []),
        ("snapd", "/usr/lib/snapd/snapd", S + "snapd.service", 22, 20, []),
        ("atd", "/usr/sbin/atd -f", S + "atd.service", 1, 4, []),
        ("rpcbind", "/sbin/rpcbind -f -w", S + "rpcbind.service", 1, 8, []),
        ("agetty", "/sbin/agetty -o -p -- \\u --noclear tty1 linux", S + "getty@tty1.service", 1, 3, []),
        ("unattended-upgr", "/usr/bin/python3 /usr/share/unattended-upgrades/unattended-upgrade-shutdown "
         "--wait-for-signal", S + "unattended-upgrades.service", 2, 5, []),
        ("nvidia-persiste", "/usr/bin/nvidia-persistenced --user nvidia-persistenced --no-persistence-mode",
         S + "nvidia-persistenced.service", 1, 12, ["/dev/nvidiactl"]),
        ("nv-hostengine", "/usr/bin/nv-hostengine -n --service-account nvidia-dcgm", S + "nvidia-dcgm.service",
         42, 60, ["/dev/nvidiactl", "/dev/nvidia-modeset"]),
        ("node_exporter", "/usr/bin/prometheus-node-exporter --collector.textfile.directory=/var/lib/node",
         S + "prometheus-node-exporter.service", 20, 14, []),
        ("kubelet", "/usr/bin/kubelet --bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf "
         "--kubeconfig=/etc/kubernetes/kubelet.conf --config=/var/lib/kubelet/config.yaml "
         "--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock", S + "kubelet.service", 96, 140,
         ["/var/log/pods/kubelet.log"]),
        ("containerd", "/usr/bin/containerd", S + "containerd.service", 74, 220, []),
        ("dockerd", "/usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock", S + "docker.service",
         62, 160, []),
        ("fluent-bit", "/opt/fluent-bit/bin/fluent-bit -c /etc/fluent-bit/fluent-bit.conf", S + "fluent-bit.service",
         12, 80, ["/var/log/containers/a.log", "/var/log/containers/b.log"]),
    ]
    for i, (comm, cmd, cg, nth, nfd, extra) in enumerate(rows):
        service(p, pids, comm, cmd, cg, nth, nfd, 300 + i * 10, extra=extra)
    # sshd sessions with shells and tools
    for s in range(6):
        uid = 1000 + s
        priv = pids.take()
        p[priv] = proc(priv, 1500, "sshd", "sshd: user%d [priv]" % s, 50000 + s * 1000,
                       "/user.slice/user-%d.slice/session-%d.scope" % (uid, 10 + s), rss_kb=11264,
                       fds=fds_of(std_fds() + sockets(70000 + s * 10, 5)))
        sess = pids.take()
        p[sess] = proc(sess, priv, "sshd", "sshd: user%d@pts/%d" % (s, s + 1), 50001 + s * 1000,
                       "/user.slice/user-%d.slice/session-%d.scope" % (uid, 10 + s), uid=uid, rss_kb=7168,
                       fds=fds_of(std_fds() + sockets(70100 + s * 10, 4) + ["/dev/ptmx"]))
        sh = pids.take()
        p[sh] = proc(sh, sess, "bash", "-bash", 50002 + s * 1000,
                     "/user.slice/user-%d.slice/session-%d.scope" % (uid, 10 + s), uid=uid, rss_kb=5120,
                     fds={0: "/dev/pts/%d" % (s + 1), 1: "/dev/pts/%d" % (s + 1), 2: "/dev/pts/%d" % (s + 1),
                          255: "/dev/pts/%d" % (s + 1)})
        tool = ["htop", "vim", "watch", "tail", "python3", "less"][s]
        cmd = {"htop": "htop", "vim": "vim train.py", "watch": "watch -n 1 nvidia-smi",
               "tail": "tail -f /workspace/logs/rank0.log", "python3": "python3", "less": "less README.md"}[tool]
        t = pids.take()
        p[t] = proc(t, sh, tool, cmd, 50100 + s * 1000, "/user.slice/user-%d.slice/session-%d.scope" % (uid, 10 + s),
                    uid=uid, rss_kb=8192, fds=fds_of(["/dev/pts/%d" % (s + 1)] * 3))


def pods(p, pids, n):
    """n CPU-only pods: shim, pause and the pod's processes."""
    apps = [
        ("nginx", "nginx: master process /usr/sbin/nginx -g daemon off;", 1, 12, 4, "nginx: worker process"),
        ("python3", "python3 -m gunicorn app:server --workers 4 --bind 0.0.0.0:8080", 2, 10, 4,
         "python3 -m gunicorn app:server --workers 4 --bind 0.0.0.0:8080"),
        ("coredns", "/coredns -conf /etc/coredns/Corefile", 18, 20, 0, None),
        ("kube-proxy", "/usr/local/bin/kube-proxy --config=/var/lib/kube-proxy/config.conf", 14, 16, 0, None),
        ("calico-node", "calico-node -felix", 24, 30, 0, None),
        ("dcgm-exporter", "/usr/bin/dcgm-exporter -f /etc/dcgm-exporter/dcp-metrics-included.csv", 26, 18, 0, None),
        ("otelcol", "/otelcol --config=/conf/otel-collector-config.yaml", 22, 24, 0, None),
        ("redis-server", "redis-server *:6379", 5, 40, 0, None),
    ]
    for i in range(n):
        cg = "/kubepods/besteffort/pod%04d" % i
        shim = pids.take(12)
        p[shim] = proc(shim, 1, "containerd-shim", "/usr/bin/containerd-shim-runc-v2 -namespace k8s.io -id "
                       "%012x -address /run/containerd/containerd.sock" % (0xa1b2c3000000 + i), 18000 + i * 10,
                       "/system.slice/containerd.service", rss_kb=12288, fds=fds_of(std_fds() + sockets(80000 + i * 20, 6)),
                       threads=threads_of(shim, "containerd-shim", 11))
        pause = pids.take()
        p[pause] = proc(pause, shim, "pause", "/pause", 18001 + i * 10, cg + "/pause", ns="job", rss_kb=512,
                        fds=fds_of(std_fds()))
        comm, cmd, nth, nfd, nwork, wcmd = apps[i % len(apps)]
        app = pids.take(max(nth, 1))
        p[app] = proc(app, shim, comm, cmd, 18002 + i * 10, cg + "/app", ns="job", rss_kb=65536, du=1,
                      fds=fds_of(std_fds() + sockets(81000 + i * 50, nfd - 3)),
                      threads=threads_of(app, comm, nth) if nth > 1 else None)
        for w in range(nwork):
            wp = pids.take()
            p[wp] = proc(wp, app, comm if comm != "python3" else "gunicorn", wcmd, 18003 + i * 10 + w,
                         cg + "/app", ns="job", rss_kb=32768, fds=fds_of(std_fds() + sockets(82000 + i * 50 + w * 5, 4)))


def ray(p, pids, nworkers):
    cg = "/kubepods/burstable/podray"
    head = pids.take(64)
    p[head] = proc(head, 1, "raylet", "/usr/local/lib/python3.10/site-packages/ray/core/src/ray/raylet/raylet "
                   "--node_manager_port=0 --object_store_memory=20000000000", 25000, cg, ns="job", rss_kb=262144,
                   fds=fds_of(std_fds() + sockets(90000, 60)), threads=threads_of(head, "raylet", 60))
    gcs = pids.take(48)
    p[gcs] = proc(gcs, 1, "gcs_server", "/usr/local/lib/python3.10/site-packages/ray/core/src/ray/gcs/gcs_server "
                  "--gcs_server_port=6379", 25001, cg, ns="job", rss_kb=131072, fds=fds_of(std_fds() + sockets(91000, 40)),
                  threads=threads_of(gcs, "gcs_server", 42))
    for w in range(nworkers):
        wp = pids.take(40)
        p[wp] = proc(wp, head, "ray::IDLE", "ray::IDLE", 25010 + w, cg, ns="job", rss_kb=98304,
                     fds=fds_of(std_fds() + sockets(92000 + w * 20, 12)), threads=threads_of(wp, "ray::IDLE", 34))


def adjust(p, nprocs, nthreads, pids):
    """Kernel threads fill the process count; the user processes' thread
    lists (largest first) absorb the difference to the thread count."""
    nuser = len(p)
    nk = nprocs - nuser
    if nk < 0:
        sys.exit("mkroot_procs: %d user processes already exceed %d" % (nuser, nprocs))
    p.update(kernel_threads(pids, nk))
    for q in p.values():   # /proc/<pid>/task/<pid> exists for every process
        if not q["threads"]:
            q["threads"] = [(q["pid"], q["comm"], 1.0)]
    total = sum(len(q["threads"]) if q["threads"] else 1 for q in p.values())
    diff = nthreads - total
    # the services that grow or shrink: not the GPU jobs (fixed shape)
    flex = [q for q in p.values() if q["threads"] and q["cg"] not in (JOB_CG, JOB2_CG) and len(q["threads"]) >= 11]
    if not flex and diff:
        sys.exit("mkroot_procs: no multi-threaded service to absorb %d threads" % diff)
    i = 0
    while diff:
        q = flex[i % len(flex)]
        th = q["threads"]
        if diff > 0:
            tid = pids.take()
            th.append((tid, th[0][1], 0.0))
            diff -= 1
        elif len(th) > 2:
            th.pop()
            diff += 1
        i += 1
        if i > 10 * (abs(diff) + len(flex)) + 100000:
            sys.exit("mkroot_procs: cannot reach %d threads" % nthreads)


def task_extras(files, p):
    """schedstat, syscall and wchan of every thread (job_threads reads them
    for GPU jobs' threads; a real /proc has them for all)."""
    rnd = random.Random(p["pid"])
    for tid, _comm, _share in p["threads"] or [(p["pid"], p["comm"], 1.0)]:
        base = "proc/%d/task/%d" % (p["pid"], tid)
        if base + "/stat" not in files:
            continue
        files[base + "/schedstat"] = "%d %d %d\n" % (rnd.randrange(10 ** 9, 10 ** 12), rnd.randrange(10 ** 6, 10 ** 9),
                                                     rnd.randrange(1000, 10 ** 6))
        files[base + "/syscall"] = "202 0x7f%010x 0x80 0x0 0x0 0x0 0x0 0x7ffd2c5e4a10 0x7f2c4a0c8123\n" % rnd.randrange(
            1 << 36)
        files[base + "/wchan"] = "futex_wait_queue"


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        # an option is never the directory: "--help" made a tree named so
        sys.exit("usage: mkroot_procs.py DIR [NPROCS [NTHREADS]]")
    dst = sys.argv[1]
    nprocs = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    nthreads = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    if os.path.exists(dst) and os.listdir(dst):
        sys.exit("mkroot_procs: %s is not empty" % dst)
    m = mf.base_model()
    pids = Pids(10000)
    p = m["procs"]
    ranks = gpu_jobs(m, pids)
    system_services(p, pids)
    pods(p, pids, 100)
    ray(p, pids, 48)
    adjust(p, nprocs, nthreads, pids)
    files = mf.render(m, 0)
    # the second pod's cgroup: the first pod's files under its path
    jd, jd2 = "sys/fs/cgroup" + JOB_CG, "sys/fs/cgroup" + JOB2_CG
    for k in [k for k in files if k.startswith(jd + "/")]:
        files[jd2 + k[len(jd):]] = files[k]
    files[jd2 + "/cgroup.procs"] = "".join("%d\n" % q for q in sorted(p) if p[q]["cg"] == JOB2_CG)
    for q in p.values():
        task_extras(files, q)
    os.makedirs(dst, exist_ok=True)
    mf.write_tree(dst, files)
    for k, v in files.items():
        if v == "EMPTYDIR":
            os.makedirs(os.path.join(dst, k), exist_ok=True)
    # fake NVML: the 8-GPU healthy host, GPUs 4-7 held by the second pod's ranks
    with open(os.path.join(SCEN, "0001-healthy-8gpu", "nvml.ini")) as fh:
        ini = fh.read()
    parts = re.split(r"(?m)^(?=\[gpu\d+\])", ini)
    for i, part in enumerate(parts):
        g = re.match(r"\[gpu(\d+)\]", part)
        if g and int(g.group(1)) >= 4:
            pid = ranks[int(g.group(1)) - 4]
            part = re.sub(r"(?m)^procs = 4242:", "procs = %d:" % pid, part)
            part = re.sub(r"(?m)^proc_util = 4242:", "proc_util = %d:" % pid, part)
            parts[i] = part
    with open(os.path.join(dst, "nvml.ini"), "w") as fh:
        fh.write("".join(parts))
    nth = sum(len(q["threads"]) if q["threads"] else 1 for q in p.values())
    nk = sum(1 for q in p.values() if q["kthread"])
    nfd = sum(len(q["fds"]) for q in p.values())
    print("mkroot_procs: %s: %d processes (%d kernel threads), %d threads, %d fds, %d files" %
          (dst, len(p), nk, nth, nfd, len(files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
