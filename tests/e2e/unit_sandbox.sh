#!/bin/bash
# tests/e2e/unit_sandbox.sh - `gpudoctor serve` under deploy/systemd/gpudoctor.service's
# own sandbox, read from the unit file property by property and set up here
# without systemd (tests/e2e/unit_sandbox.py: the user, its capabilities,
# no_new_privs, the read-only and inaccessible paths, the private /tmp, the
# system-call filter, the address families and namespaces), on this machine's
# live /proc and /sys, with the fake NVML naming a real process of root's as
# the GPU job.
#
#   1. inside the sandbox, as the service: /proc/PID/mem of the root-owned job
#      cannot be opened for writing, process_vm_writev(2), ptrace(2) and
#      pidfd_getfd(2) are refused, /etc/shadow reads as nothing, nothing outside /tmp can be
#      written;
#   2. every collector of serve says the same in the sandbox as with the same
#      user and capabilities without it (/metrics, gpudoctor_collector_success):
#      the sandbox costs no evidence, and serve is not killed by the system-call
#      filter at its first perf sample;
#   3. what the capabilities buy: the sources worse without them (the same
#      user, no capabilities) are listed, and include the job's maps
#      (cuda_runtime), its threads' system calls (job_threads), its thread
#      sampler (job_samples) and, where kernel.dmesg_restrict=1, the kernel
#      log (klog).
#
# Printed, not asserted: what the unit's comments say it cannot take away
# (another process's memory and files read through /proc/PID/mem and
# /proc/PID/root with CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH).
#
# Needs root, setpriv, systemd-analyze (the systemd package: its system-call
# group tables; systemd need not run) and python3-seccomp.
# Exit 0 pass, 77 skip (reason on the last line), anything else fails.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib.bash
B=${BUILD:-build}
G=${GPUDOCTOR:-$PWD/$B/gpudoctor}
UNIT=${UNIT:-deploy/systemd/gpudoctor.service}
FAKE=$PWD/$B/fake_nvml/libnvidia-ml.so.1
SB=$PWD/tests/e2e/unit_sandbox.py
[ -x "$G" ] || fail "no binary at $G"
[ -f "$FAKE" ] || fail "$FAKE is not built (make unit)"
[ "$(id -u)" = 0 ] || skip "needs root (it sets up a mount namespace and another user)"
for t in setpriv systemd-analyze curl jq; do
	command -v "$t" >/dev/null || skip "$t not installed (scripts/deps.sh installs util-linux, systemd, curl, jq)"
done
/usr/bin/python3 -c 'import seccomp' 2>/dev/null || skip "python3-seccomp not installed (scripts/deps.sh)"
unshare -m true 2>/dev/null || skip "cannot make a mount namespace here (needs CAP_SYS_ADMIN: a privileged container)"
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1

# The service must reach the binary, the fake NVML and this test's files:
# PrivateTmp hides /tmp and /var/tmp, and the checkout may be private (or
# under /tmp, as tests/mutate.sh's copy is): copies in a directory of
# /var/lib that anyone may traverse
W=$(mktemp -d /var/lib/gd-unit-sandbox.XXXXXX) || fail "mktemp in /var/lib"
chmod 755 "$W"
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	[ -n "${KEEP:-}" ] || rm -rf "$W"
}
trap cleanup EXIT
cp "$G" "$W/gpudoctor" && cp "$FAKE" "$W/libnvidia-ml.so.1" && cp "$SB" "$W/unit_sandbox.py" &&
	cp "$UNIT" "$W/unit.service" || fail "copying into $W"
chmod 755 "$W/gpudoctor" "$W/libnvidia-ml.so.1" && chmod 644 "$W/unit_sandbox.py" "$W/unit.service"
G=$W/gpudoctor FAKE=$W/libnvidia-ml.so.1 SB=$W/unit_sandbox.py UNIT_COPY=$W/unit.service

# the GPU job: root's, with a secret in its environment and its memory
GD_DECOY_SECRET=hunter2-sandbox /usr/bin/python3 -c '
import time
secret = bytearray(b"GD-SANDBOX-MARK-" * 64)
time.sleep(600)' &
JOB=$!
PIDS+=("$JOB")
fake_nvml_ini "$W/nvml.ini" "$JOB" 40
chmod 644 "$W/nvml.ini"
sleep 0.3

# start_level LEVEL: serve under the sandbox LEVEL, in the background
start_level() {
	GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$W/nvml.ini /usr/bin/python3 "$SB" --level "$1" "$UNIT_COPY" -- \
		"$G" serve --listen 127.0.0.1:0 --interval 0.2s 2>"$W/$1.log" &
	PIDS+=($!)
	printf -v "PID_$1" %s "$!"
}

# metrics_of LEVEL: its collectors' success after its second cycle into
# $W/LEVEL.metrics ("name 0|1") and its unavailable sources into
# $W/LEVEL.unavailable ("name status"); stops it
metrics_of() {
	local level=$1 log=$W/$1.log addr="" n pid
	pid=PID_$1
	pid=${!pid}
	for _ in $(seq 200); do
		addr=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$log" | head -n 1)
		[ -n "$addr" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	[ -n "$addr" ] || fail "serve ($level) did not start: $(cat "$log")"
	for _ in $(seq 300); do
		n=$(curl -s -m 5 "$addr/metrics" | sed -n 's/^gpudoctor_collection_cycles_total \([0-9]*\)$/\1/p')
		[ "${n:-0}" -ge 2 ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	[ "${n:-0}" -ge 2 ] || fail "serve ($level) made no two cycles (killed by the system-call filter?): $(tail -n 5 "$log")"
	curl -s -m 5 "$addr/metrics" | sed -n 's/^gpudoctor_collector_success{collector="\([^"]*\)"} \([01]\)$/\1 \2/p' |
		sort >"$W/$level.metrics"
	[ -s "$W/$level.metrics" ] || fail "serve ($level): no gpudoctor_collector_success in /metrics"
	curl -s -m 5 "$addr/findings" | jq -r '.unavailable[]? | "\(.evidence) \(.status)"' | sort >"$W/$level.unavailable"
	# serve's own confinement (src/serve/confine.c), whatever the sandbox around it
	grep -q '^NoNewPrivs:[[:space:]]*1$' "/proc/$pid/status" && grep -q '^Seccomp:[[:space:]]*2$' "/proc/$pid/status" ||
		fail "serve ($level) did not confine itself: $(grep -E '^(NoNewPrivs|Seccomp):' "/proc/$pid/status")"
	kill "$pid"
	wait "$pid" 2>/dev/null
}

# 1. what the service can do inside its sandbox
addr=$(awk '$2 ~ /^rw/ && $6 == "" {split($1, a, "-"); print a[1]; exit}' "/proc/$JOB/maps")
[ -n "$addr" ] || fail "no writable anonymous mapping of the job"
cat >"$W/attack.py" <<'PY'
# each attempt in a child of its own: one killed by the system-call filter
# (SIGSYS) is refused, and the others still run
import ctypes, os, sys
job, addr = int(sys.argv[1]), int(sys.argv[2], 16)
libc = ctypes.CDLL(None, use_errno=True)
def err():
    return os.strerror(ctypes.get_errno())
def mem_write():
    fd = os.open(f"/proc/{job}/mem", os.O_WRONLY)
    os.lseek(fd, addr, 0)
    os.write(fd, b"X")
    return "DONE"
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
def vm_write():
    buf = ctypes.create_string_buffer(b"X")
    local, remote = iovec(ctypes.addressof(buf), 1), iovec(addr, 1)
    n = libc.process_vm_writev(job, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    return "DONE" if n == 1 else f"refused ({err()})"
def ptrace():
    return "DONE" if libc.ptrace(16, job, None, None) == 0 else f"refused ({err()})"  # PTRACE_ATTACH
def getfd():
    pfd = libc.syscall(434, job, 0)  # pidfd_open, then pidfd_getfd of the job's stdin
    if pfd < 0:
        return f"refused ({err()})"
    return "DONE" if libc.syscall(438, pfd, 0, 0) >= 0 else f"refused ({err()})"
def size(p):
    with open(p, "rb") as f:
        return f"{len(f.read())} bytes"
def environ():
    with open(f"/proc/{job}/environ", "rb") as f:
        return "read" if b"hunter2-sandbox" in f.read() else "not read"
def write(p):
    with open(p, "w") as f:
        f.write("x")
    return "DONE"
tries = [("mem-write", mem_write), ("process_vm_writev", vm_write), ("ptrace", ptrace), ("pidfd_getfd", getfd),
         ("shadow", lambda: size("/etc/shadow")),
         ("shadow-via-proc-root", lambda: size(f"/proc/{job}/root/etc/shadow")), ("environ-secret", environ)]
tries += [(f"write {p}", lambda p=p: write(p)) for p in ("/gd-sandbox-probe", "/etc/gd-sandbox-probe", f"/proc/{job}/comm")]
for name, f in tries:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            out = f()
        except OSError as e:
            out = f"refused ({e.strerror})"
        os.write(w, out.encode())
        os._exit(0)
    os.close(w)
    out = os.read(r, 4096).decode()
    os.close(r)
    _, st = os.waitpid(pid, 0)
    if os.WIFSIGNALED(st):
        out = f"refused (killed by signal {os.WTERMSIG(st)})"
    print(f"{name}: {out}", flush=True)
PY
/usr/bin/python3 "$SB" "$UNIT_COPY" -- /usr/bin/python3 "$W/attack.py" "$JOB" "$addr" >"$W/attack.out" 2>&1
echo "in the sandbox, as the service:"
sed 's/^/  /' "$W/attack.out"
grep -q DONE "$W/attack.out" && fail "the sandbox let the service write where it must not: $(grep DONE "$W/attack.out")"
for k in mem-write process_vm_writev ptrace pidfd_getfd "write /gd-sandbox-probe"; do
	grep -q "^$k: refused" "$W/attack.out" || fail "no refusal for $k: $(cat "$W/attack.out")"
done
real=$(wc -c </etc/shadow)
grep -qE '^shadow: (refused .*|0 bytes)$' "$W/attack.out" ||
	fail "the service reads /etc/shadow ($real bytes there): $(grep '^shadow:' "$W/attack.out")"
rm -f /gd-sandbox-probe /etc/gd-sandbox-probe

# 2. the sandbox costs no evidence; 3. what the capabilities buy
for l in user full nocaps; do start_level "$l"; done
for l in user full nocaps; do metrics_of "$l"; done
# serve's own confinement (no_new_privs, seccomp) works inside the unit's
if grep -q '^gpudoctor: serve: ' "$W/full.log"; then
	fail "serve could not confine itself in the unit's sandbox: $(grep '^gpudoctor: serve: ' "$W/full.log")"
fi
if ! cmp -s "$W/user.metrics" "$W/full.metrics" || ! cmp -s "$W/user.unavailable" "$W/full.unavailable"; then
	echo "collector       user+caps  sandbox"
	join -a1 -a2 -e - -o 0,1.2,2.2 "$W/user.metrics" "$W/full.metrics" | awk '$2 != $3'
	diff "$W/user.unavailable" "$W/full.unavailable"
	fail "a collector fails in the unit's sandbox that works with the same user and capabilities"
fi
ok=$(awk '$2 == 1' "$W/full.metrics" | wc -l)
# what the capabilities buy: a source ok (or partial) with them, worse without
bought=$(join -a1 -e ok -o 0,1.2,2.2 <(awk '{print $1, $2 ? "ok" : "failed"}' "$W/user.metrics") "$W/nocaps.unavailable" |
	join -a1 -e ok -o 0,1.2,1.3,2.2 - "$W/user.unavailable" | awk '$3 != "ok" && $3 != "absent" && $3 != $4 {print $1 " (" $3 " without)"}' |
	tr '\n' ' ')
echo "sandbox: $ok of $(wc -l <"$W/full.metrics") collectors ok or absent, every source as with the same user and capabilities"
echo "what the capabilities buy (worse without them): ${bought:-none}"
for c in cuda_runtime job_samples job_threads; do
	case " $bought" in *" $c ("*) ;; *) fail "$c does not need the capabilities? (bought: $bought)" ;; esac
done
if [ "$(cat /proc/sys/kernel/dmesg_restrict 2>/dev/null)" = 1 ] && [ -r /dev/kmsg ]; then
	case " $bought" in *" klog ("*) ;; *) fail "klog did not need CAP_SYSLOG with dmesg_restrict=1 (bought: $bought)" ;; esac
fi
echo "ok: serve under $UNIT's sandbox: no memory writes, no ptrace, no /etc/shadow, every collector as with its capabilities alone"
