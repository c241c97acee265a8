#!/bin/bash
# tests/e2e/job_threads.sh - where a GPU job's threads spend their time, on
# real processes of this machine, each listed by the fake NVML as the
# compute process of gpu0 (tests/e2e/job/: job_load.c and spin_lib.c,
# built here):
#
#   1. a Python process spinning in the interpreter, gpu0 at 10%:
#      job.host_bound names its pid, its main thread mostly "python", and
#      gpu.idle_while_job_runs names job.host_bound as the cause and gives
#      the 400 ms stall of the fake driver's sub-second samples;
#   2. a process spinning inside a library named like the CUDA driver
#      (cuda/libcuda.so.1), gpu0 at 95%: the healthy pattern (the main
#      thread waits in the CUDA library while the GPU is busy): no
#      job.* finding, and the snapshot's samples are mostly "cuda";
#   3. a process spinning inside a library named like NCCL
#      (nccl/libnccl.so.2), gpu0 at 5%: job.waiting_for_peers; then gpu0 at
#      100% utilisation but 10% SM activity (GPM, as a NCCL kernel that
#      waits leaves it): job.waiting_for_peers says both figures; at 90% SM
#      activity the GPU works and nothing waits;
#   4. a process whose main thread sleeps on a futex while two worker
#      processes burn CPU, gpu0 at 8%: cpu.input_bound, naming the futex
#      the main thread waits in;
#   5. (as root, with setpriv) case 1 again with gpudoctor running as
#      nobody: perf may not sample another user's threads, so job_samples
#      is denied with the fix (CAP_PERFMON) and job.host_bound says it
#      cannot judge, with that reason, instead of guessing.
#
# The machine is shared and small: the CPU thresholds the rules use are
# lowered with --set (what is tested is the attribution, not this host's
# speed), and the host-wide causes that a busy CI host raises by itself
# (cpu.saturated, io.saturated) are set out of reach where a rule needs
# "no local cause".  Every process ends by itself after 12 s.
#
# Needs root or kernel.perf_event_paranoid <= 1 for the perf sampler; a
# denied sampler is checked to say so (job.host_bound unknown with the
# reason) and the attribution cases are skipped.
#
# Exit 0 pass, 77 skip (reason on the last line), anything else fails.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"

here=$(cd "$(dirname "$0")" && pwd)
[ -n "${GPUDOCTOR:-}" ] && [ -x "$GPUDOCTOR" ] || fail "GPUDOCTOR (${GPUDOCTOR:-unset}) is not an executable"
FAKE_NVML=$(dirname "$GPUDOCTOR")/fake_nvml/libnvidia-ml.so.1
[ -f "$FAKE_NVML" ] || fail "$FAKE_NVML is not built (make unit)"
command -v jq >/dev/null || skip "jq is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
# the interpreter itself, not a wrapper (a pyenv shim forks before it execs)
py=$(python3 -c 'import sys; print(sys.executable)') && [ -x "$py" ] || fail "cannot find python3's executable"
CC=${CC:-cc}
command -v "$CC" >/dev/null || skip "no C compiler ($CC)"

tmp=$(mktemp -d /tmp/gd-e2e-job.XXXXXX) || fail "mktemp"
loads=()
cleanup() {
	[ ${#loads[@]} -gt 0 ] && kill "${loads[@]}" 2>/dev/null
	[ ${#loads[@]} -gt 0 ] && wait "${loads[@]}" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' TERM INT

mkdir -p "$tmp/cuda" "$tmp/nccl"
"$CC" -O1 -o "$tmp/job_load" "$here/job/job_load.c" -ldl || fail "cannot build job_load"
"$CC" -O1 -shared -fPIC -o "$tmp/cuda/libcuda.so.1" "$here/job/spin_lib.c" || fail "cannot build libcuda.so.1"
"$CC" -O1 -shared -fPIC -o "$tmp/nccl/libnccl.so.2" "$here/job/spin_lib.c" || fail "cannot build libnccl.so.2"

# nvml PID UTIL [SAMPLES]: the fake NVML's answer, pid on gpu0 at UTIL%,
# with the driver's sub-second utilisation samples (age_ms:pct ...).
nvml() { fake_nvml_ini "$tmp/nvml.ini" "$@"; }

# check NAME ARGS...: check --window 2s --json with the fake NVML into $tmp/NAME.json
check() {
	local name=$1
	shift
	GPUDOCTOR_NVML=$FAKE_NVML GPUDOCTOR_FAKE_NVML=$tmp/nvml.ini \
		"$GPUDOCTOR" check --window 2s --json "$@" >"$tmp/$name.json" 2>"$tmp/$name.err"
	[ $? -le 2 ] || { cat "$tmp/$name.err"; fail "$name: check failed"; }
	jq -c '.findings[] | select(.id | test("^(job|cpu.input|gpu.idle)")) | {id, subject, summary}' "$tmp/$name.json"
}

has() { jq -e --arg id "$2" '[.findings[].id] | index($id)' "$tmp/$1.json" >/dev/null; }

start() {
	"$@" &
	loads+=($!)
	pid=$!
	sleep 0.5
}

lower="--set job.host_bound.main_core_pct=5 --set job.host_bound.min_samples=3 --set cpu.input_bound.worker_core_pct=5 \
--set cpu.input_bound.thread_core_pct=101"
calm="--set cpu.saturated.busy_pct=101 --set cpu.saturated.psi_some_pct=101 --set io.saturated.busy_pct=101 \
--set io.saturated.psi_some_pct=101"

# 1. the interpreter
start "$py" -c 'import time
t = time.time()
while time.time() - t < 12: pass'
# a 400 ms stall (two samples at 0%, 200 ms apart) in the last second
nvml "$pid" 10 "1000:30 800:30 600:0 400:0 200:30 0:30"
# shellcheck disable=SC2086
check python $lower
status=$(jq -r '.unavailable[]? | select(.evidence == "job_samples") | "\(.status): \(.reason)"' "$tmp/python.json")
if [ -n "$status" ] && ! has python job.host_bound; then
	echo "job_samples $status"
	jq -e '.not_evaluated[] | select(.rule == "job.host_bound") | .reason | test("job_samples (denied|absent)")' \
		"$tmp/python.json" >/dev/null || fail "the sampler is unavailable but job.host_bound does not say so"
	skip "the perf sampler is not permitted here ($status)"
fi
has python job.host_bound || fail "job.host_bound did not fire for a Python process spinning in the interpreter"
jq -e --arg p "$pid" '.findings[] | select(.id == "job.host_bound") | .subject | test("pid " + $p + " ")' \
	"$tmp/python.json" >/dev/null || fail "job.host_bound does not name pid $pid"
jq -e '.findings[] | select(.id == "job.host_bound") | .evidence[] | select(.name == "main_thread") | .text |
	test("^[0-9]+% python")' "$tmp/python.json" >/dev/null ||
	fail "the main thread's largest share is not python"
jq -e '.findings[] | select(.id == "gpu.idle_while_job_runs") | .summary | test("job.host_bound")' \
	"$tmp/python.json" >/dev/null || fail "gpu.idle_while_job_runs does not name job.host_bound"
jq -e '.findings[] | select(.id == "gpu.idle_while_job_runs") | .evidence[] | select(.name == "stall_ms") |
	.value >= 300' "$tmp/python.json" >/dev/null ||
	fail "gpu.idle_while_job_runs does not give the sub-second samples' 400 ms stall"
kill "$pid" 2>/dev/null

# 2. the healthy pattern: spinning in libcuda, the GPU busy
start "$tmp/job_load" spin "$tmp/cuda/libcuda.so.1" 12
nvml "$pid" 95
# shellcheck disable=SC2086
check cuda $lower $calm
for id in job.host_bound job.waiting_for_peers cpu.input_bound gpu.idle_while_job_runs; do
	has cuda "$id" && fail "$id fired for a main thread waiting in libcuda on a busy GPU"
done
GPUDOCTOR_NVML=$FAKE_NVML GPUDOCTOR_FAKE_NVML=$tmp/nvml.ini "$GPUDOCTOR" snapshot --window 2s >"$tmp/cuda.jsonl" ||
	fail "snapshot --window failed"
jq -s -e --arg p "$pid" '[.[] | .job_threads[] | select(.pid == ($p | tonumber) and .role == "main")] |
	(.[1].samples_cuda - .[0].samples_cuda) as $c |
	([.[1] | .samples_cuda, .samples_nccl, .samples_python, .samples_framework, .samples_kernel, .samples_other] | add) -
	([.[0] | .samples_cuda, .samples_nccl, .samples_python, .samples_framework, .samples_kernel, .samples_other] | add) |
	. > 0 and $c / . >= 0.8' "$tmp/cuda.jsonl" >/dev/null ||
	fail "fewer than 80% of the samples of a thread spinning in libcuda.so.1 are attributed to cuda"
kill "$pid" 2>/dev/null

# 3. spinning in NCCL while the GPU idles
start "$tmp/job_load" spin "$tmp/nccl/libnccl.so.2" 12
nvml "$pid" 5
# shellcheck disable=SC2086
check nccl $lower $calm
has nccl job.waiting_for_peers || fail "job.waiting_for_peers did not fire for a main thread spinning in libnccl.so.2"
has nccl job.host_bound && fail "job.host_bound fired for a main thread in NCCL"
nvml "$pid" 100 "" 10
# shellcheck disable=SC2086
check nccl_thin $lower $calm
jq -e '.findings[] | select(.id == "job.waiting_for_peers") | (.summary | test("averages 100% utilisation but only 10% SM activity")) and
	([.evidence[] | select(.name == "sm_active_pct") | .value] == [10])' "$tmp/nccl_thin.json" >/dev/null ||
	fail "job.waiting_for_peers does not see a GPU at 100% utilisation and 10% SM activity idle (GPM)"
nvml "$pid" 100 "" 90
# shellcheck disable=SC2086
check nccl_busy $lower $calm
for id in job.waiting_for_peers gpu.idle_while_job_runs; do
	has nccl_busy "$id" && fail "$id fired for a GPU at 90% SM activity"
done
kill "$pid" 2>/dev/null

# 4. the main thread on a futex, two workers busy
start "$tmp/job_load" futex 12 2
nvml "$pid" 8
# shellcheck disable=SC2086
check futex $lower
has futex cpu.input_bound || fail "cpu.input_bound did not fire for a main thread on a futex and two busy workers"
jq -e '.findings[] | select(.id == "cpu.input_bound") | .evidence[] | select(.name == "main_waits_in") |
	.text | test("^futex")' "$tmp/futex.json" >/dev/null || fail "cpu.input_bound does not say the main thread waits in futex"
has futex job.host_bound && fail "job.host_bound fired for a sleeping main thread"
kill "$pid" 2>/dev/null

# 5. without permission: gpudoctor as nobody, the job root's
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	start "$py" -c 'import time
t = time.time()
while time.time() - t < 12: pass'
	nvml "$pid" 10
	nobody_binaries "$tmp"
	chmod 644 "$tmp/nvml.ini"
	# shellcheck disable=SC2086
	setpriv --reuid=65534 --regid=65534 --clear-groups env GPUDOCTOR_NVML="$NOBODY_FAKE_NVML" \
		GPUDOCTOR_FAKE_NVML="$tmp/nvml.ini" "$NOBODY_GPUDOCTOR" check --window 2s --json $lower \
		>"$tmp/denied.json" 2>"$tmp/denied.err"
	[ $? -le 2 ] || { cat "$tmp/denied.err"; fail "check as nobody failed"; }
	jq -e '.unavailable[] | select(.evidence == "job_samples") | .status == "denied" and
		(.reason | test("CAP_PERFMON"))' "$tmp/denied.json" >/dev/null ||
		fail "job_samples is not denied with the fix when gpudoctor may not sample the job"
	jq -e '.not_evaluated[] | select(.rule == "job.host_bound") | .reason | test("job_samples denied")' \
		"$tmp/denied.json" >/dev/null || fail "job.host_bound does not say the samples were denied"
	has denied job.host_bound && fail "job.host_bound fired without samples"
fi
exit 0
