#!/bin/bash
# tests/exporter/soak.sh - `gpudoctor serve` for a long run (issue 16 §6):
# SOAK_SECONDS of scrapes, process churn, a GPU lost and back, a hung NVML
# call and /proc files that vanish mid-read; RSS and descriptors must stay
# flat, no scrape may fail, and SIGTERM must end both servers with exit 0
# and no sanitizer report (the exporter suite also runs under ASan+UBSan in
# make check).  In CI (tests/run.sh) it runs 60 s (40 s under ASan: descriptors and leaks at exit, not RSS; a 1 KiB-per-cycle leak, +556 KiB in a 75 s run, is by that rate about 340 KiB between the quarters a 60 s run compares, over the 256 KiB margin (estimated, not run));
# `make soak` runs an hour (SOAK_SECONDS=3600 by default there).  tests/exporter/soak.py drives
# the run and judges it; its comment says what each loop does and why the
# margins are what they are.
#
# Two servers, because a hung NVML call ends NVML for the rest of a
# server's life (src/nvml/nvml.h: no further call is made) and the GPU that
# is lost and back needs NVML for the whole run:
#   A  the host's /proc (--root /), interval 0.1 s, two fake-NVML GPUs:
#      gpu0 and gpu1 list the churned processes (procs_file), gpu1 is lost
#      for 2 s of every 5 (load_file + load.lost).  Run in a PID namespace
#      of its own when unshare(1) may make one (root, as CI is), so that the
#      processes A sees are the test's, not whatever else the host runs (a
#      build next door would move A's RSS); elsewhere on the host's /proc,
#      and A's RSS is then reported but not judged (B's still is).
#   B  a writable copy of the exporter fixture (--root), interval 0.1 s,
#      --nvml-timeout 1s (under the 2.1 s after which a result is stale,
#      so /healthz stays 200 through the hang); /proc/<pid> directories
#      come and go every 20 ms; gpu1's nvmlDeviceGetPowerUsage hangs for
#      good from half-way through the warm-up (load_file + load.hang).
#
# Not marked exclusive: nothing here measures time; RSS and descriptors do
# not depend on how busy the machine is.
#
# Measured on a 2-CPU VM (a fuzz run beside it), the 75 s run: about 740
# cycles each, 150 scrapes each, none failed; A RSS 12.9/12.9 MiB (first
# and last quarter), fds 17/17; B 13.7/13.7 MiB, 10/10; gpu1 lost and back
# 15 times; the hang seen 9 s in.  Against builds that leak on purpose (one
# open() or one 1 KiB malloc per collection cycle in serve.c's loop, not
# committed): the descriptor leak fails both (A 238 -> 673 fds), the 1 KiB
# leak both (A +556 KiB, B +272 KiB; in one 90 s run B's stayed hidden, at
# +100 KiB, in free memory its allocator already held: RSS shows a leak
# once that is used up, which the hour of make soak is long enough for).
set -u
# (GD_SOAK_NS: once only; SOAK_HOST_PROC=1 stays on the host's /proc)
if [ -z "${GD_SOAK_NS:-}" ] && [ -z "${SOAK_HOST_PROC:-}" ] && [ "$(id -u)" = 0 ] &&
	unshare --pid --fork --mount-proc --kill-child true 2>/dev/null; then
	GD_SOAK_NS=1 exec unshare --pid --fork --mount-proc --kill-child "$0" "$@"
fi
own_ns=""
[ $$ = 1 ] && own_ns=1
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/fleet_lib.bash"
FAKE=$(dirname "$G")/fake_nvml/libnvidia-ml.so.1
[ -f "$FAKE" ] || die "$FAKE is not built (make unit)"
need python3
opts=()
asan=""
grep -qa __asan_init "$G" && { asan=1; opts+=(--asan); }
# CI runs this twice (make test, then make check under ASan): 60 s + 40 s,
# under a minute and a half in all (the CI run's 25 minutes); the ASan run judges descriptors and leaks at
# exit, not RSS, and needs no long measured span for that
SECS=${SOAK_SECONDS:-$([ -n "$asan" ] && echo 40 || echo 60)}
[[ $SECS =~ ^[0-9]+$ ]] && [ "$SECS" -ge 40 ] || die "SOAK_SECONDS=$SECS: a whole number of seconds, at least 40"
[ -n "$own_ns" ] || opts+=(--a-rss-unjudged)
# SOAK_SAMPLES=FILE keeps every RSS and descriptor sample (TSV)
[ -n "${SOAK_SAMPLES:-}" ] && opts+=(--samples "$SOAK_SAMPLES")

# A: the host's /proc; the churned processes on both GPUs, gpu1 lost at times
: >"$TMP/procs-a0"
: >"$TMP/procs-a1"
: >"$TMP/lost"
{
	fleet_head
	fleet_gpu 0 GPU-50a50a50-0000-4c1b-9e7f-2a6d8c0b1e30 00000000:1B:00.0 procs_file="$TMP/procs-a0" proc_util=
	fleet_gpu 1 GPU-50a50a50-0001-4c1b-9e7f-2a6d8c0b1e31 00000000:43:00.0 procs_file="$TMP/procs-a1" proc_util= \
		load_file="$TMP/lost" load.lost=1
} >"$TMP/a.ini"
# B: a fixture root that changes under it; gpu1 hangs at a moment soak.py picks
cp -a "$FIX/healthy" "$TMP/root"
: >"$TMP/procs-b"
: >"$TMP/hang"
{
	fleet_head
	fleet_gpu 0 GPU-50a50a50-0100-4c1b-9e7f-2a6d8c0b1e30 00000000:1B:00.0 procs_file="$TMP/procs-b"
	fleet_gpu 1 GPU-50a50a50-0101-4c1b-9e7f-2a6d8c0b1e31 00000000:43:00.0 \
		load_file="$TMP/hang" load.hang=nvmlDeviceGetPowerUsage
} >"$TMP/b.ini"

export GPUDOCTOR_NVML=$FAKE
GPUDOCTOR_FAKE_NVML=$TMP/a.ini start_serve a --root / --interval 0.1s
GPUDOCTOR_FAKE_NVML=$TMP/b.ini start_serve b --root "$TMP/root" --interval 0.1s --nvml-timeout 1s

promtool=$(command -v promtool || true)
python3 "$(dirname "$0")/soak.py" --duration "$SECS" --tmp "$TMP" --a "$ADDR_a:$PID_a" --b "$ADDR_b:$PID_b" \
	--root-b "$TMP/root" --procs-a0 "$TMP/procs-a0" --procs-a1 "$TMP/procs-a1" --procs-b "$TMP/procs-b" \
	--lost "$TMP/lost" --hang "$TMP/hang" --promtool "$promtool" "${opts[@]}" >"$TMP/soak.txt" 2>&1
soak_rc=$?
cat "$TMP/soak.txt"

# SIGTERM: both must end with 0 within 30 s (a bound on a hang, not a
# measurement: B's NVML thread is still blocked inside the fake driver)
kill -TERM "$PID_a" "$PID_b"
for i in $(seq 300); do
	kill -0 "$PID_a" 2>/dev/null || kill -0 "$PID_b" 2>/dev/null || break
	sleep 0.1
done
for n in a b; do
	pid_var=PID_$n
	kill -0 "${!pid_var}" 2>/dev/null && die "serve $n still runs 30 s after SIGTERM: $(tail -n 5 "$TMP/$n.log")"
	wait "${!pid_var}"
	rc=$?
	[ $rc -eq 0 ] || die "serve $n exited $rc on SIGTERM: $(tail -n 20 "$TMP/$n.log")"
	grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$TMP/$n.log" && die "sanitizer report from serve $n"
done
[ $soak_rc -eq 0 ] || die "the soak failed (above)"
echo "ok: both servers stopped on SIGTERM with exit 0${asan:+, no sanitizer report}${own_ns:+ (own PID namespace)}"
