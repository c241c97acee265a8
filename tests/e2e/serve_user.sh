#!/bin/bash
# tests/e2e/serve_user.sh - `gpudoctor serve --user` as the DaemonSet runs it
# (deploy/kubernetes/daemonset.yaml): started as uid 0 with only the
# capabilities the pod adds, no_new_privs, on this machine's live /proc with
# the fake NVML naming a real process of root's as the GPU job.
#
#   1. serve becomes the user (uid and gid 65534, no groups) and holds exactly
#      CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH and CAP_SYSLOG (the bounding set's
#      CAP_SETUID and CAP_SETGID gone), nothing inheritable or ambient, not
#      dumpable, with its own no_new_privs and seccomp filter;
#   2. a process with exactly those credentials cannot open /proc/PID/mem of
#      the root job for writing, where one with the pod's (uid 0, the same
#      capabilities) can and does: the change is what protects it;
#   3. every collector of serve says the same as it does as uid 0 with the
#      same capabilities (/metrics, gpudoctor_collector_success): leaving uid
#      0 costs no evidence.
# Printed, not asserted: what CAP_DAC_READ_SEARCH still reads (/etc/shadow).
#
# Needs root, setpriv (util-linux), curl.  Exit 0 pass, 77 skip, else fail.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib.bash
B=${BUILD:-build}
G=${GPUDOCTOR:-$PWD/$B/gpudoctor}
FAKE=$PWD/$B/fake_nvml/libnvidia-ml.so.1
[ -x "$G" ] || fail "no binary at $G"
[ -f "$FAKE" ] || fail "$FAKE is not built (make unit)"
[ "$(id -u)" = 0 ] || skip "needs root (it starts serve as uid 0 and another user)"
for t in setpriv curl; do
	command -v "$t" >/dev/null || skip "$t not installed (scripts/deps.sh installs util-linux, curl)"
done
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
W=$(mktemp -d) || fail mktemp
chmod 755 "$W"
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	[ -n "${KEEP:-}" ] || rm -rf "$W"
}
trap cleanup EXIT

# the GPU job: root's, with a mark in its memory
/usr/bin/python3 -c '
import time
mark = bytearray(b"GD-USER-MARK-" * 64)
time.sleep(600)' &
JOB=$!
PIDS+=("$JOB")
fake_nvml_ini "$W/nvml.ini" "$JOB" 40
chmod 644 "$W/nvml.ini"
sleep 0.3
# the pod's capabilities and arguments, as deploy/kubernetes/daemonset.yaml gives them
DS=deploy/kubernetes/daemonset.yaml
caps=$(sed -n 's/^ *add: \[\(.*\)\]$/\1/p' "$DS" | tr -d '" ' | tr 'A-Z' 'a-z')
[ "$caps" = sys_ptrace,dac_read_search,syslog,setuid,setgid ] || fail "$DS adds the capabilities '$caps' (this test knows another set)"
grep -q '"--user", "65534"' "$DS" || fail "$DS does not run serve --user 65534"
POD_CAPS=+sys_ptrace,+dac_read_search,+syslog
# as the pod starts it: uid 0, these capabilities (and CAP_SETUID/SETGID
# for --user), no_new_privs
as_pod() { setpriv --no-new-privs --inh-caps=-all --bounding-set=-all,$POD_CAPS,+setuid,+setgid -- "$@"; }

start() { # NAME ARGS...: serve in the background, its address in $W/NAME.addr
	local name=$1 addr="" n
	shift
	(GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$W/nvml.ini exec setpriv --no-new-privs --inh-caps=-all \
		--bounding-set=-all,$POD_CAPS,+setuid,+setgid -- "$G" serve --listen 127.0.0.1:0 --interval 0.2s "$@" \
		2>"$W/$name.log") &
	PIDS+=($!)
	printf -v "PID_$name" %s "$!"
	for _ in $(seq 200); do
		addr=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$W/$name.log" | head -n 1)
		[ -n "$addr" ] && break
		kill -0 "$!" 2>/dev/null || break
		sleep 0.1
	done
	[ -n "$addr" ] || fail "serve ($name) did not start: $(cat "$W/$name.log")"
	for _ in $(seq 300); do
		n=$(curl -s -m 5 "$addr/metrics" | sed -n 's/^gpudoctor_collection_cycles_total \([0-9]*\)$/\1/p')
		[ "${n:-0}" -ge 2 ] && break
		sleep 0.1
	done
	[ "${n:-0}" -ge 2 ] || fail "serve ($name) made no two cycles: $(tail -n 5 "$W/$name.log")"
	curl -s -m 5 "$addr/metrics" | sed -n 's/^gpudoctor_collector_success{collector="\([^"]*\)"} \([01]\)$/\1 \2/p' |
		sort >"$W/$name.metrics"
	[ -s "$W/$name.metrics" ] || fail "serve ($name): no gpudoctor_collector_success in /metrics"
}
field() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" | tr -s ' \t' ' '; }

# 1. what serve holds after --user
start user --user 65534
start root
P=$PID_user
want=$(printf '%016x' $(((1 << 2) | (1 << 19) | (1 << 34))))
echo "serve --user 65534: Uid $(field "$P" Uid), Gid $(field "$P" Gid), Groups '$(field "$P" Groups)'," \
	"CapEff $(field "$P" CapEff), CapPrm $(field "$P" CapPrm), CapBnd $(field "$P" CapBnd)"
[ "$(field "$P" Uid)" = "65534 65534 65534 65534" ] || fail "serve --user 65534 runs as uid $(field "$P" Uid)"
[ "$(field "$P" Gid)" = "65534 65534 65534 65534" ] || fail "serve --user 65534 runs as gid $(field "$P" Gid)"
[ -z "$(field "$P" Groups)" ] || fail "serve --user kept supplementary groups: $(field "$P" Groups)"
for c in CapEff CapPrm; do
	[ "$(field "$P" $c)" = "$want" ] || fail "serve --user: $c $(field "$P" $c), want $want (ptrace, dac_read_search, syslog)"
done
for c in CapInh CapAmb; do
	[ "$(field "$P" $c)" = 0000000000000000 ] || fail "serve --user: $c $(field "$P" $c)"
done
[ "$(field "$P" NoNewPrivs)" = 1 ] && [ "$(field "$P" Seccomp)" = 2 ] || fail "serve --user did not confine itself"
# not dumpable: its /proc files are root's, not the user's
[ "$(stat -c %u "/proc/$P/mem")" = 0 ] || fail "serve --user is dumpable (its /proc/PID/mem is uid $(stat -c %u "/proc/$P/mem")'s)"
[ "$(field "$PID_root" Uid)" = "0 0 0 0" ] || fail "serve without --user left uid 0"

# 2. /proc/JOB/mem for writing, with serve's credentials and with the pod's
addr=$(awk '$2 ~ /^rw/ && $6 == "" {split($1, a, "-"); print a[1]; exit}' "/proc/$JOB/maps")
[ -n "$addr" ] || fail "no writable anonymous mapping of the job"
cat >"$W/mem.py" <<'PY'
import os, sys
def status(k):
    for l in open("/proc/self/status"):
        if l.startswith(k + ":"):
            return " ".join(l.split()[1:])
print("as uid", status("Uid"), "CapEff", status("CapEff"), end=": ")
try:
    fd = os.open(f"/proc/{sys.argv[1]}/mem", os.O_WRONLY)
    os.lseek(fd, int(sys.argv[2], 16), 0)
    os.write(fd, b"X")
    print("mem-write DONE")
except OSError as e:
    print(f"mem-write refused ({e.strerror})")
try:
    print("shadow:", len(open("/etc/shadow", "rb").read()), "bytes")
except OSError as e:
    print(f"shadow: refused ({e.strerror})")
PY
as_pod /usr/bin/python3 "$W/mem.py" "$JOB" "$addr" >"$W/pod.out" 2>&1
as_pod setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps=$POD_CAPS --ambient-caps=$POD_CAPS \
	--bounding-set=-all,$POD_CAPS -- /usr/bin/python3 "$W/mem.py" "$JOB" "$addr" >"$W/user.out" 2>&1
sed 's/^/  /' "$W/pod.out" "$W/user.out"
grep -q "CapEff $want: " "$W/user.out" || fail "the attacking process does not hold serve's capabilities: $(cat "$W/user.out")"
grep -q "mem-write DONE" "$W/pod.out" ||
	fail "uid 0 with the pod's capabilities could not write the job's memory (what does this test show?): $(cat "$W/pod.out")"
grep -q "mem-write refused" "$W/user.out" || fail "serve's credentials write a root process's memory: $(cat "$W/user.out")"

# 3. the same evidence as uid 0 with the same capabilities
if ! cmp -s "$W/root.metrics" "$W/user.metrics"; then
	echo "collector       uid0  --user"
	join -a1 -a2 -e - -o 0,1.2,2.2 "$W/root.metrics" "$W/user.metrics" | awk '$2 != $3'
	fail "a collector fails after --user that works as uid 0 with the same capabilities"
fi
ok=$(awk '$2 == 1' "$W/user.metrics" | wc -l)
# the evidence the capabilities are there for: the root job's maps and threads
for c in cuda_runtime job_threads klog; do
	grep -q "^$c 1$" "$W/user.metrics" || fail "$c failed after --user: $(grep "^$c " "$W/user.metrics")"
done
# what it refuses, before binding anything
for bad in "nosuchuser-gd|no such user" "0|that is root" "65534:x|no such user"; do
	out=$("$G" serve --user "${bad%%|*}" --listen 127.0.0.1:0 2>&1) && fail "serve --user ${bad%%|*} started"
	case $out in *"${bad#*|}"*) ;; *) fail "serve --user ${bad%%|*}: $out" ;; esac
done
out=$(setpriv --bounding-set=-setuid -- "$G" serve --user 65534 --listen 127.0.0.1:0 2>&1) &&
	fail "serve --user started without CAP_SETUID"
case $out in *"CAP_SETUID"*) ;; *) fail "serve --user without CAP_SETUID: $out" ;; esac
echo "ok: serve --user 65534: no memory writes into root's processes, $ok of $(wc -l <"$W/user.metrics") collectors ok as with uid 0"
