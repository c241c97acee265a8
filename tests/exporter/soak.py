#!/usr/bin/env python3
"""soak.py - the driver of tests/exporter/soak.sh (read its comment first).

usage: soak.py --duration S --tmp DIR --a HOST:PORT:PID --b HOST:PORT:PID
               --root-b DIR --procs-a0 F --procs-a1 F --procs-b F
               --lost F --hang F [--promtool PATH] [--asan] [--a-rss-unjudged]
               [--samples FILE]

Two `gpudoctor serve` instances run while this script, for S seconds:
  - scrapes /metrics of both every 0.5 s over one kept-alive connection
    each (as Prometheus does; gzip asked for on every other scrape), and
    /healthz and, every 5th turn, /findings on new connections; every
    answer must be 200, every exposition must parse (the strict parser
    below; promtool check metrics too, on one scrape in 20 per instance and
    on the first and last);
  - A (the host's /proc, in the test's own PID namespace when soak.sh could
    make one): real processes started and killed all the time (sleep with
    a socket and a file open, one in five a Python process with 4 threads),
    SIGKILL or SIGTERM, reaped a turn later (a zombie meanwhile); the fake
    NVML lists half of them as gpu0's compute processes (procs_file, one
    dead pid kept a turn after its death) and every third as gpu1's;
    gpu1 is lost for 2 s and back for 3 s, over and over (load_file with
    load.lost = 1);
  - B (a writable copy of the exporter fixture as --root): a loop creates
    and removes /proc/<pid> directories (stat, status, cmdline, io, cgroup,
    fd/ with /dev/nvidia0 or /dev/nvidia1 links, task/), deletes single
    files of live ones, rewrites a stat file in two writes (a torn read),
    and renames whole directories away, every 20 ms; gpu1's
    nvmlDeviceGetPowerUsage hangs for good from half-way through the
    warm-up (load_file with load.hang);
  - samples each serve's VmRSS and open descriptors every 0.5 s.

At the end it judges (after the warm-up: the first 20% of the run, at
least 15 s) that RSS and descriptors stayed flat: the median of the last
quarter of the samples may exceed the first quarter's by at most
RSS_MARGIN_KB and FD_MARGIN (see below for why those numbers), and checks
what the metrics showed: gpu1 of A lost and back each time (no stale
reading while lost, gpu0 unaffected throughout), the churned processes
seen; B's NVML "stuck" naming GPU 1, gpu.monitor_stuck on gpu1, gpu1's
readings gone from then on, and its /healthz still 200.

Prints "FAIL: ..." lines and one summary line; exit 0 when nothing failed.
"""
import argparse
import gzip
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

# ---- the margins ---------------------------------------------------------
# Both serves collect every 0.1 s (about 9.8 cycles a second here), so the
# 75 s CI run has about 590 cycles after its 15 s warm-up, and the middles
# of its first and last quarters are 45 s, about 440 cycles, apart.  The
# medians of those quarters are compared:
#   FD_MARGIN 8: a leak of one descriptor per cycle adds about 440 there,
#   one per 40 cycles still 11.  Honest variation is a scrape's socket, an
#   accepted connection not yet closed, the perf events of GPU jobs whose
#   number changes with the churn: a few descriptors up and down around a
#   constant median (measured: medians equal, maxima 4 above).
#   RSS_MARGIN_KB 256: a leak of 1 KiB per cycle adds about 440 KiB there,
#   640 bytes per cycle 275 KiB; the one-hour run (quarter middles 2,160 s,
#   about 21,000 cycles, apart) catches 16 bytes per cycle.  Honest
#   variation comes from the allocator (freed memory glibc keeps, a new
#   high-water mark when the churn makes the process count peak): measured
#   on a 2-CPU VM the medians of the quarters stay within about 60 KiB, the
#   largest single step seen was about 100 KiB (the runs are in the commit
#   that added this test).
# Under AddressSanitizer RSS is not judged (its quarantine holds freed
# memory on purpose, up to 256 MiB); LeakSanitizer judges leaks at exit.
FD_MARGIN = 8
RSS_MARGIN_KB = 256

SCRAPE_EVERY = 0.5
SAMPLE_EVERY = 0.5
CHURN_EVERY = 0.2
CHURN_LIVE = 10
VANISH_EVERY = 0.02
VANISH_LIVE = 24
LOST_S, BACK_S = 2.0, 3.0

# ---- the exposition parser ----------------------------------------------
NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"
LVAL = r'"(?:[^"\\\n]|\\[\\"n])*"'
VALUE = r"(?:[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]Inf|NaN)"
SAMPLE_RE = re.compile(rf"^({NAME})(?:\{{((?:{LABEL}={LVAL})(?:,{LABEL}={LVAL})*)?\}})? ({VALUE})(?: -?[0-9]+)?$")
PAIR_RE = re.compile(rf"({LABEL})=({LVAL})")
TYPE_RE = re.compile(rf"^# TYPE ({NAME}) (counter|gauge|histogram|summary|untyped)$")
HELP_RE = re.compile(rf"^# HELP ({NAME})(?: .*)?$")


def unescape(v):
    return v[1:-1].replace("\\n", "\n").replace('\\"', '"').replace("\\\\", "\\")


def parse(text):
    """Parses an exposition: (series, errors); series maps (name, labels
    as a sorted tuple) to the value.  An error is any line that is not a
    HELP, TYPE or sample line, a second TYPE for a name, a TYPE after its
    samples, a family split in two groups, a series twice, no final
    newline."""
    series, errors, types = {}, [], {}
    seen_family, current = set(), None
    if not text.endswith("\n"):
        errors.append("no newline at the end")
    for n, line in enumerate(text.split("\n")[:-1], 1):
        if line.startswith("#"):
            m = TYPE_RE.match(line)
            if m:
                if m.group(1) in types or m.group(1) in seen_family:
                    errors.append(f"line {n}: TYPE again or after samples: {line[:120]}")
                types[m.group(1)] = m.group(2)
            elif not HELP_RE.match(line) and line.startswith(("# HELP", "# TYPE")):
                errors.append(f"line {n}: bad comment: {line[:120]}")
            continue
        m = SAMPLE_RE.match(line)
        if not m:
            errors.append(f"line {n}: not a sample: {line[:120]}")
            continue
        name = m.group(1)
        family = name
        for suffix in ("_bucket", "_sum", "_count"):
            base = name[: -len(suffix)]
            if name.endswith(suffix) and types.get(base) in ("histogram", "summary"):
                family = base
        if family != current:
            if family in seen_family:
                errors.append(f"line {n}: {family} in two groups")
            seen_family.add(family)
            current = family
        labels = tuple(sorted((k, unescape(v)) for k, v in PAIR_RE.findall(m.group(2) or "")))
        if len(set(k for k, _ in labels)) != len(labels):
            errors.append(f"line {n}: a label twice: {line[:120]}")
        if (name, labels) in series:
            errors.append(f"line {n}: series twice: {line[:120]}")
        series[(name, labels)] = float(m.group(3))
    return series, errors


def find(series, name, **want):
    """The series of name whose labels include want: [(labels dict, value)]."""
    out = []
    for (n, labels), v in series.items():
        if n != name:
            continue
        d = dict(labels)
        if all(d.get(k) == str(x) for k, x in want.items()):
            out.append((d, v))
    return out


# ---- the run -------------------------------------------------------------
class Serve:
    def __init__(self, name, spec):
        host, port, pid = spec.rsplit(":", 2)
        self.name, self.host, self.port, self.pid = name, host, int(port), int(pid)
        self.conn = None
        self.scrapes = self.healthz = self.findings = self.failed = 0
        self.samples = []   # (t, rss_kb, fds)
        self.records = []   # (t, facts dict) per scrape
        self.first_body = self.last_body = None


class Soak:
    def __init__(self, args):
        self.args = args
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.fails = []
        self.t0 = time.monotonic()
        self.warmup = max(15.0, 0.2 * args.duration)
        self.a = Serve("A", args.a)
        self.b = Serve("B", args.b)
        self.promtool_runs = 0
        self.lost_toggles = self.back_toggles = 0
        self.hang_at = None
        self.churn_started = self.churn_killed = 0
        self.dirs_made = self.dirs_removed = self.files_cut = self.torn = 0
        self.rng = random.Random(16)

    def fail(self, msg):
        with self.lock:
            if len(self.fails) < 50:
                self.fails.append(msg)
        # the first failures tell; the run goes on to the end

    def now(self):
        return time.monotonic() - self.t0

    # ---- scraping ----
    def get(self, s, path, keep, gz=False):
        """GET path; (status, body text).  keep: on s's kept-alive connection."""
        conn = s.conn if keep else None
        if conn is None:
            conn = http.client.HTTPConnection(s.host, s.port, timeout=15)
            if keep:
                s.conn = conn
        headers = {"Accept-Encoding": "gzip"} if gz else {}
        try:
            conn.request("GET", path, headers=headers)
            r = conn.getresponse()
            body = r.read()
            if r.getheader("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            if r.will_close or not keep:
                conn.close()
                if keep:
                    s.conn = None
            return r.status, body.decode("utf-8")
        except (OSError, http.client.HTTPException, UnicodeDecodeError, EOFError) as e:
            conn.close()
            if keep:
                s.conn = None
            return None, f"{type(e).__name__}: {e}"

    def scrape(self, s, turn):
        t = self.now()
        status, text = self.get(s, "/metrics", keep=True, gz=turn % 2 == 0)
        s.scrapes += 1
        if status != 200:
            s.failed += 1
            self.fail(f"{s.name} /metrics at {t:.1f} s: {status} {text[:200]}")
            return
        series, errors = parse(text)
        if errors:
            s.failed += 1
            self.fail(f"{s.name} /metrics at {t:.1f} s does not parse: {'; '.join(errors[:3])}")
        if s.first_body is None:
            s.first_body = text
            self.promtool(s, text)
        elif turn % 20 == 0:
            self.promtool(s, text)
        s.last_body = text
        s.records.append((t, self.facts(s, series)))
        status, text = self.get(s, "/healthz", keep=False)
        s.healthz += 1
        if status != 200 or text.strip() != "ok":
            s.failed += 1
            self.fail(f"{s.name} /healthz at {t:.1f} s: {status} {text[:200]}")
        if turn % 5 == 0:
            status, text = self.get(s, "/findings", keep=False)
            s.findings += 1
            try:
                if status != 200:
                    raise ValueError(f"status {status}")
                json.loads(text)["findings"]
            except (ValueError, KeyError, TypeError) as e:
                s.failed += 1
                self.fail(f"{s.name} /findings at {t:.1f} s: {e}: {text[:200]}")

    def promtool(self, s, text):
        if not self.args.promtool:
            return
        p = subprocess.run([self.args.promtool, "check", "metrics"], input=text.encode(), capture_output=True)
        self.promtool_runs += 1
        if p.returncode != 0:
            self.fail(f"{s.name}: promtool check metrics: {(p.stdout + p.stderr).decode()[:300]}")

    def facts(self, s, series):
        def one(name, **want):
            f = find(series, name, **want)
            return f[0][1] if f else None

        f = {"cycles": one("gpudoctor_collection_cycles_total"), "up": one("gpudoctor_up"),
             "cpu": one("process_cpu_seconds_total")}
        f["lost0"] = one("gpudoctor_gpus_lost", gpu=0)
        f["lost1"] = one("gpudoctor_gpus_lost", gpu=1)
        f["power0"] = one("gpudoctor_gpus_power_watts", gpu=0) is not None
        f["power1"] = one("gpudoctor_gpus_power_watts", gpu=1) is not None
        f["gpus"] = len(find(series, "gpudoctor_gpus_lost"))
        f["gpu_pids"] = {d["pid"] for d, _ in find(series, "gpudoctor_gpu_procs_used_mem_bytes")}
        f["nvidia_fd_pids"] = {d["pid"] for d, v in find(series, "gpudoctor_procs_nvidia_fds") if v > 0}
        f["lost_finding"] = bool(find(series, "gpudoctor_finding", rule="gpu.lost", subject="gpu1"))
        f["stuck_finding"] = bool(find(series, "gpudoctor_finding", rule="gpu.monitor_stuck", subject="gpu1"))
        info = find(series, "gpudoctor_nvml_info")
        f["nvml_status"] = info[0][0].get("status") if info else None
        f["stuck_call"] = info[0][0].get("stuck_call", "") if info else ""
        return f

    def scraper(self):
        turn = 0
        while not self.stop.is_set():
            start = time.monotonic()
            for s in (self.a, self.b):
                self.scrape(s, turn)
            turn += 1
            self.stop.wait(max(0.0, SCRAPE_EVERY - (time.monotonic() - start)))

    # ---- sampling ----
    def sampler(self):
        out = open(self.args.samples, "w", buffering=1) if self.args.samples else None
        while not self.stop.is_set():
            for s in (self.a, self.b):
                try:
                    with open(f"/proc/{s.pid}/status") as f:
                        rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
                    fds = len(os.listdir(f"/proc/{s.pid}/fd"))
                except (OSError, StopIteration) as e:
                    self.fail(f"{s.name} (pid {s.pid}) cannot be sampled at {self.now():.1f} s: {e}")
                    continue
                s.samples.append((self.now(), rss, fds))
                if out:   # as it goes: a long run can be watched
                    out.write(f"{s.name}\t{s.samples[-1][0]:.2f}\t{rss}\t{fds}\n")
            self.stop.wait(SAMPLE_EVERY)
        if out:
            out.close()

    # ---- A: real processes, gpu1 lost and back ----
    def churn(self):
        a = self.args
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        held = open(os.path.join(a.tmp, "held-by-churn"), "w")
        code = "import threading, time\nfor _ in range(4):\n threading.Thread(target=time.sleep, args=(60,), " \
               "daemon=True).start()\ntime.sleep(60)\n"
        live, dying, n = [], [], 0
        last_dead = None
        while not self.stop.is_set():
            for p in dying:   # killed a turn ago: reaped now (a zombie meanwhile)
                p.wait()
            dying = []
            if n % 5 == 4:
                argv = [sys.executable, "-c", code]
            else:
                argv = ["sleep", "60"]
            live.append(subprocess.Popen(argv, pass_fds=(sock.fileno(), held.fileno()), stdin=subprocess.DEVNULL))
            n += 1
            self.churn_started += 1
            while len(live) > CHURN_LIVE:
                p = live.pop(self.rng.randrange(3))
                p.send_signal(signal.SIGKILL if self.churn_killed % 2 else signal.SIGTERM)
                self.churn_killed += 1
                dying.append(p)
                last_dead = p.pid
            gpu0 = [p.pid for i, p in enumerate(live) if i % 2 == 0] + ([last_dead] if last_dead else [])
            gpu1 = [p.pid for i, p in enumerate(live) if i % 3 == 0]
            put(a.procs_a0, " ".join(f"{pid}:1073741824" for pid in gpu0))
            put(a.procs_a1, " ".join(f"{pid}:2147483648" for pid in gpu1))
            self.stop.wait(CHURN_EVERY)
        for p in live:
            p.kill()
        for p in live + dying:
            p.wait()
        sock.close()
        held.close()

    def lost_and_back(self):
        while not self.stop.is_set():
            if self.stop.wait(BACK_S):
                break
            put(self.args.lost, "1\n")
            self.lost_toggles += 1
            self.stop.wait(LOST_S)
            put(self.args.lost, "")
            self.back_toggles += 1

    # ---- B: /proc/<pid> that come and go, a hung call ----
    def vanish(self):
        proc = os.path.join(self.args.root_b, "proc")
        graveyard = os.path.join(self.args.tmp, "removed")
        os.makedirs(graveyard, exist_ok=True)
        live, gone, pid, ticks = [], [], 20000, 0
        while not self.stop.is_set():
            ticks += 1
            op = self.rng.random()
            if len(live) < VANISH_LIVE and (op < 0.4 or len(live) < VANISH_LIVE // 3):
                pid = 20000 + (pid - 19999) % 10000
                if os.path.exists(os.path.join(proc, str(pid))):
                    continue
                make_proc(proc, pid, ticks)
                live.append(pid)
                self.dirs_made += 1
            elif op < 0.6 and live:
                victim = live.pop(self.rng.randrange(len(live)))
                d = os.path.join(proc, str(victim))
                if self.rng.random() < 0.5:
                    shutil.rmtree(d)   # file by file: a reader sees it half gone
                else:
                    away = os.path.join(graveyard, f"{victim}.{ticks}")
                    os.rename(d, away)   # all at once
                    shutil.rmtree(away)
                gone = (gone + [victim])[-4:]
                self.dirs_removed += 1
            elif op < 0.8 and live:
                d = os.path.join(proc, str(self.rng.choice(live)))
                name = self.rng.choice(["stat", "status", "io", "cmdline", "fd/3", "task"])
                path = os.path.join(d, name)
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path, ignore_errors=True)
                elif os.path.lexists(path):
                    os.unlink(path)
                self.files_cut += 1
            elif live:
                victim = self.rng.choice(live)
                path = os.path.join(proc, str(victim), "stat")
                line = stat_line(victim, ticks)
                with open(path, "w") as f:   # truncated, then in two writes
                    f.write(line[:17])
                    f.flush()
                    os.sched_yield()
                    f.write(line[17:])
                self.torn += 1
            listed = [p for p in live if p % 2 == 0] + gone[-1:]
            put(self.args.procs_b, " ".join(f"{p}:1073741824" for p in listed))
            self.stop.wait(VANISH_EVERY)

    def hang(self):
        # half-way through the warm-up, once B has shown gpu1's readings
        if self.stop.wait(self.warmup / 2):
            return
        if not any(f["power1"] for _, f in self.b.records):
            self.fail("B never showed gpu1's power before the hang")
        self.hang_at = self.now()
        put(self.args.hang, "1\n")

    # ---- the verdict ----
    def flat(self, s):
        """(rss first, rss last, fds first, fds last) medians of the first and
        last quarters after the warm-up; judged against the margins."""
        kept = [x for x in s.samples if x[0] >= self.warmup]
        q = len(kept) // 4
        if q < 5:
            self.fail(f"{s.name}: only {len(kept)} samples after the warm-up (run longer)")
            return None
        rss0 = statistics.median(x[1] for x in kept[:q])
        rss1 = statistics.median(x[1] for x in kept[-q:])
        fd0 = statistics.median(x[2] for x in kept[:q])
        fd1 = statistics.median(x[2] for x in kept[-q:])
        if fd1 - fd0 > FD_MARGIN:
            self.fail(f"{s.name}: open descriptors grew from {fd0:g} to {fd1:g} (margin {FD_MARGIN}): a leak")
        judged = not self.args.asan and not (s is self.a and self.args.a_rss_unjudged)
        if judged and rss1 - rss0 > RSS_MARGIN_KB:
            self.fail(f"{s.name}: RSS grew from {rss0:g} to {rss1:g} KiB (margin {RSS_MARGIN_KB} KiB): a leak")
        return rss0, rss1, fd0, fd1, max(x[1] for x in kept), max(x[2] for x in kept)

    def judge_a(self):
        recs = [f for _, f in self.a.records]
        lost = back = 0
        prev = None
        for t, f in self.a.records:
            if f["lost0"] != 0 or not f["power0"]:
                self.fail(f"A at {t:.1f} s: gpu0 not read (lost {f['lost0']}, power {f['power0']})")
            if f["lost1"] is None:
                self.fail(f"A at {t:.1f} s: no gpudoctor_gpus_lost for gpu1")
                continue
            # lost: its later fields are absent; power may have been read in
            # the cycle the GPU fell off in (before the call that said so),
            # never in a later one
            if f["lost1"] == 1 and f["power1"] and prev == 1:
                self.fail(f"A at {t:.1f} s: gpu1 lost since the scrape before but its power still reported")
            if f["lost1"] == 0 and not f["power1"]:
                self.fail(f"A at {t:.1f} s: gpu1 back but no power reading")
            if prev is not None and f["lost1"] != prev:
                if f["lost1"] == 1:
                    lost += 1
                else:
                    back += 1
            prev = f["lost1"]
        # every lost period lasts 4 scrapes: each is seen; the last may be in flight
        if lost < max(1, self.lost_toggles - 1) or back < max(1, self.back_toggles - 1):
            self.fail(f"A: gpu1 lost {self.lost_toggles} and back {self.back_toggles} times, "
                      f"the metrics showed {lost} and {back}")
        if not any(f["lost_finding"] for f in recs):
            self.fail("A: gpu.lost never reported for gpu1")
        pids = set().union(*(f["gpu_pids"] for f in recs)) if recs else set()
        if len(pids) < min(10, self.churn_started // 4):
            self.fail(f"A: only {len(pids)} distinct NVML-listed processes seen of {self.churn_started} started")
        return lost, back, len(pids)

    def judge_b(self):
        stuck_t, call = None, ""
        for t, f in self.b.records:
            if f["nvml_status"] == "stuck" and stuck_t is None:
                stuck_t, call = t, f["stuck_call"]
            if stuck_t is not None and f["power1"]:
                self.fail(f"B at {t:.1f} s: gpu1's power reported after the hang")
        if self.hang_at is None:
            self.fail("B: the hang was never set off")
        elif stuck_t is None:
            self.fail("B: NVML never reported stuck after the hang")
        elif "GPU 1" not in call or "nvmlDeviceGetPowerUsage" not in call:
            self.fail(f"B: the stuck call is \"{call}\", not gpu1's nvmlDeviceGetPowerUsage")
        if not any(f["stuck_finding"] for _, f in self.b.records):
            self.fail("B: gpu.monitor_stuck never reported for gpu1")
        after = [f for t, f in self.b.records if stuck_t is not None and t >= stuck_t]
        if after and not after[-1]["nvml_status"] == "stuck":
            self.fail("B: NVML status left stuck")
        pids = set().union(*(f["nvidia_fd_pids"] for _, f in self.b.records)) if self.b.records else set()
        if len(pids) < min(10, self.dirs_made // 4):
            self.fail(f"B: only {len(pids)} distinct processes holding /dev/nvidia seen of {self.dirs_made} made")
        # what serve does with the other GPU once a call hung (today: no
        # further NVML call, so no GPU is listed): told, not judged
        gpus_after = max((f["gpus"] for f in after), default=0)
        return stuck_t, call, len(pids), gpus_after

    def run(self):
        workers = [threading.Thread(target=fn, name=fn.__name__, daemon=True)
                   for fn in (self.scraper, self.sampler, self.churn, self.lost_and_back, self.vanish, self.hang)]
        for w in workers:
            w.start()
        self.stop.wait(self.args.duration)
        self.stop.set()
        for w in workers:
            w.join(60)
            if w.is_alive():
                self.fail(f"the {w.name} loop did not stop")
        put(self.args.lost, "")
        for s in (self.a, self.b):
            if s.last_body is not None:
                self.promtool(s, s.last_body)
        fa, fb = self.flat(self.a), self.flat(self.b)
        lost, back, a_pids = self.judge_a()
        stuck_t, call, b_pids, gpus_after = self.judge_b()
        for msg in self.fails:
            print(f"FAIL: {msg}")
        cyc = lambda s: next((f["cycles"] for _, f in reversed(s.records) if f["cycles"] is not None), 0)
        cpu = lambda s: next((f["cpu"] for _, f in reversed(s.records) if f["cpu"] is not None), 0)
        mib = lambda kb: f"{kb / 1024:.1f}"
        fig = lambda f: (f"RSS {mib(f[0])}/{mib(f[1])} MiB (max {mib(f[4])}), fds {f[2]:g}/{f[3]:g} (max {f[5]})"
                         if f else "no figures")
        fails = self.a.failed + self.b.failed
        print(f"soak: {self.args.duration:g} s (warm-up {self.warmup:g} s); "
              f"scrapes A {self.a.scrapes} B {self.b.scrapes} (+ {self.a.healthz + self.b.healthz} healthz, "
              f"{self.a.findings + self.b.findings} findings; {fails} failed; "
              f"promtool {self.promtool_runs or 'not installed'}); cycles A {cyc(self.a):g} B {cyc(self.b):g} (CPU {cpu(self.a):.1f} s, {cpu(self.b):.1f} s); "
              f"churn {self.churn_started} processes started, {self.churn_killed} killed, {a_pids} seen by NVML; "
              f"/proc dirs {self.dirs_made} made, {self.dirs_removed} removed, {self.files_cut} files cut, "
              f"{self.torn} torn stats, {b_pids} GPU holders seen; "
              f"A {fig(fa)}{' (RSS not judged: the host its /proc shows)' if self.args.a_rss_unjudged else ''}; "
              f"B {fig(fb)}{' (RSS not judged: ASan)' if self.args.asan else ''}; "
              f"gpu1 lost/back {lost}/{back} of {self.lost_toggles}/{self.back_toggles}; "
              f"hung call {'seen at %.1f s: %s' % (stuck_t, call) if stuck_t is not None else 'NOT seen'}, "
              f"B lists {gpus_after} GPUs after it")
        return 1 if self.fails else 0


def put(path, text):
    """Replaces path's content at once (a reader sees the old or the new)."""
    tmp = f"{path}.{threading.get_ident()}.tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, path)


def stat_line(pid, ticks):
    return (f"{pid} (soak job {pid % 7}) S 1 {pid} {pid} 0 -1 4194304 98 0 0 0 {5000 + ticks} {700 + ticks // 2} "
            f"0 0 20 0 2 0 {15273 + pid} 3133440 40700 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 "
            "0 0 0 0 0 0 0 0 0 0 0\n")


def make_proc(proc, pid, ticks):
    """A GPU job's /proc/<pid>, file by file (a reader may see it half made)."""
    d = os.path.join(proc, str(pid))
    os.mkdir(d)
    files = {
        "stat": stat_line(pid, ticks),
        "status": f"Name:\tsoak job {pid % 7}\nState:\tS (sleeping)\nTgid:\t{pid}\nPid:\t{pid}\nPPid:\t1\n"
                  "Uid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\nThreads:\t2\n"
                  "VmRSS:\t  162800 kB\nCpus_allowed_list:\t0-1\n",
        "cmdline": f"python\0train.py\0--rank\0{pid % 8}\0",
        "comm": f"soak job {pid % 7}\n",
        "io": "rchar: 6976000\nwchar: 1000\nsyscr: 10\nsyscw: 0\nread_bytes: 4096000\nwrite_bytes: 0\n"
              "cancelled_write_bytes: 0\n",
        "cgroup": f"0::/soak/job{pid % 3}\n",
    }
    for name, text in files.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    os.mkdir(os.path.join(d, "fd"))
    for fd, target in (("0", "/dev/null"), ("3", f"/dev/nvidia{pid % 2}"), ("4", "/dev/nvidiactl"),
                       ("5", f"socket:[{30000 + pid}]")):
        os.symlink(target, os.path.join(d, "fd", fd))
    for tid in (pid, pid + 1):
        os.makedirs(os.path.join(d, "task", str(tid)))
        with open(os.path.join(d, "task", str(tid), "stat"), "w") as f:
            f.write(stat_line(tid, ticks))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", type=float, required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--root-b", required=True)
    ap.add_argument("--procs-a0", required=True)
    ap.add_argument("--procs-a1", required=True)
    ap.add_argument("--procs-b", required=True)
    ap.add_argument("--lost", required=True)
    ap.add_argument("--hang", required=True)
    ap.add_argument("--promtool", default="")
    ap.add_argument("--asan", action="store_true")
    ap.add_argument("--a-rss-unjudged", action="store_true")
    ap.add_argument("--samples", default="", help="write every sample here (TSV: serve, s, RSS KiB, fds)")
    return Soak(ap.parse_args()).run()


if __name__ == "__main__":
    sys.exit(main())
