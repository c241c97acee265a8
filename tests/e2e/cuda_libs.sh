#!/bin/bash
# tests/e2e/cuda_libs.sh - NVIDIA's own CUDA libraries (the CUDA toolkit
# under /usr/local/cuda) mapped by real processes on this machine, read back
# from their /proc/<pid>/maps:
#   - a python that loaded the toolkit's stub libcuda.so, in a private mount
#     namespace (unshare -m: a container's, as the NVIDIA runtime's missing
#     mounts leave it): driver.cuda_stub names it and the stub's file; a
#     second one there, mapping only the toolkit's libcudart.so.13 (no GPU
#     job), is named by no rule;
#   - a python that loaded the toolkit's libcudart.so.13 and that the fake
#     NVML lists as a compute process, on a driver of the 535 branch (CUDA
#     12.2): a critical driver.cuda_too_new naming the file it mapped; the
#     same process under a driver for CUDA 13.0 is the healthy baseline.
# One `check --window 200ms --json` per driver.  Needs root (unshare -m),
# python3 and jq; the libraries' paths: CUDA_STUB, CUDART.
#
# Exit 0 pass, 77 skip (reason on the last line), anything else fails.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
FAKE_NVML=$repo/$BUILD/fake_nvml/libnvidia-ml.so.1
STUB=${CUDA_STUB:-/usr/local/cuda/lib64/stubs/libcuda.so}
CUDART=${CUDART:-/usr/local/cuda/lib64/libcudart.so.13}

[ -n "${GPUDOCTOR:-}" ] && [ -x "$GPUDOCTOR" ] || fail "GPUDOCTOR (${GPUDOCTOR:-unset}) is not an executable"
[ -e "$FAKE_NVML" ] || fail "$FAKE_NVML is not built (make unit)"
command -v jq >/dev/null || skip "jq is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
[ -r "$STUB" ] && [ -r "$CUDART" ] || skip "no CUDA toolkit here ($STUB, $CUDART): set CUDA_STUB and CUDART"
[ "$(id -u)" = 0 ] || skip "needs root (unshare -m)"
unshare -m --propagation private true 2>/dev/null || skip "unshare -m is not permitted here"
tmp=$(mktemp -d /tmp/gd-e2e-cudalibs.XXXXXX) || fail "mktemp"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"' EXIT

# hold NAME LIB [unshare]: a python3 that dlopens LIB and sleeps; its pid in
# $held once LIB is mapped
hold() {
	local pre=()
	[ "${3:-}" = unshare ] && pre=(unshare -m --propagation private)
	"${pre[@]}" python3 -c 'import ctypes, sys, time
ctypes.CDLL(sys.argv[1])
open(sys.argv[2], "w").write("loaded\n")
time.sleep(120)' "$2" "$tmp/$1.ready" &
	held=$!
	pids+=("$held")
	for _ in $(seq 100); do
		[ -s "$tmp/$1.ready" ] && return 0
		sleep 0.05
	done
	fail "$1: python3 did not load $2"
}
hold stub "$STUB" unshare
stub_pid=$held
hold clean "$CUDART" unshare
clean_pid=$held
hold job "$CUDART"
job_pid=$held
grep -qF "$(readlink -f "$STUB")" "/proc/$stub_pid/maps" || fail "the stub's python maps no $(readlink -f "$STUB")"

# nvml CUDA DRIVER: one GPU whose compute process is the job
nvml() {
	printf '[nvml]\ndriver_version = %s\nnvml_version = 12.%s\ncuda_driver_version = %s\n\n' "$2" "$2" "$1"
	printf '[gpu0]\nname = NVIDIA H100 80GB HBM3\nuuid = GPU-3f2a9c1e-7b4d-4e8a-9c2f-1a6b5d8e0f01\n'
	printf 'pci_bus_id = 00000000:1B:00.0\nprocs = %s:1073741824\n' "$job_pid"
}
check() { # OUT: check with $tmp/nvml.ini
	GPUDOCTOR_FAKE_NVML=$tmp/nvml.ini "$GPUDOCTOR" check --nvml "$FAKE_NVML" --window 200ms --json >"$1" 2>"$tmp/err"
	local rc=$?
	[ $rc -le 2 ] || { cat "$tmp/err"; fail "check exited $rc"; }
}
finding() { # OUT ID PID: the finding of ID about PID, one JSON line
	jq -c --arg id "$2" --arg s "pid $3 (" '.findings[] | select(.id == $id and (.subject | startswith($s)))' "$1"
}

nvml 12020 535.261.03 >"$tmp/nvml.ini"
check "$tmp/535.json"
f=$(finding "$tmp/535.json" driver.cuda_stub "$stub_pid")
[ -n "$f" ] || { jq -c '.findings[] | {id, subject}' "$tmp/535.json"; fail "no driver.cuda_stub for pid $stub_pid"; }
jq -e --arg f "$(readlink -f "$STUB")" '.severity == "critical" and
	([.evidence[] | select(.name == "cuda_stub") | .text] == [$f]) and
	(.summary | contains("this is the CUDA toolkit'"'"'s stub library, not the driver'"'"'s: the container lacks the NVIDIA runtime mounts"))' \
	<<<"$f" >/dev/null || fail "driver.cuda_stub: $f"
echo "ok: driver.cuda_stub: $(jq -r .summary <<<"$f")"
[ -z "$(finding "$tmp/535.json" driver.cuda_stub "$clean_pid")$(finding "$tmp/535.json" driver.cuda_stub "$job_pid")" ] ||
	fail "driver.cuda_stub names a process without the stub"
[ -z "$(finding "$tmp/535.json" driver.cuda_too_new "$clean_pid")" ] || fail "cuda_too_new for a process that is no GPU job"
f=$(finding "$tmp/535.json" driver.cuda_too_new "$job_pid")
[ -n "$f" ] || { jq -c '.findings[] | {id, subject}' "$tmp/535.json"; fail "no driver.cuda_too_new for pid $job_pid"; }
jq -e --arg f "$(readlink -f "$CUDART")" '.severity == "critical" and
	([.evidence[] | select(.name == "cuda_runtime_file") | .text] == [$f]) and
	([.evidence[] | select(.name == "cuda_runtime_version") | .threshold] == [12020])' <<<"$f" >/dev/null ||
	fail "driver.cuda_too_new: $f"
echo "ok: driver.cuda_too_new: $(jq -r .summary <<<"$f") ($(readlink -f "$CUDART"))"

# the healthy baseline: the same job under a driver for CUDA 13.0
nvml 13000 580.82.07 >"$tmp/nvml.ini"
check "$tmp/580.json"
[ -z "$(finding "$tmp/580.json" driver.cuda_too_new "$job_pid")" ] || fail "driver.cuda_too_new under a CUDA 13.0 driver"
echo "ok: silent under a driver for CUDA 13.0"
echo "all checks passed"
