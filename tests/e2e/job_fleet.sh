#!/bin/bash
# tests/e2e/job_fleet.sh - `gpudoctor fleet --job` on real processes of
# this machine: a two-rank job (torchrun's environment, run id e2e-fleet-PID)
# whose rank 0 spins inside a library named like NCCL (nccl/libnccl.so.2:
# it waits for its peer, as NCCL polls) on gpu0 while rank 1 spins in the
# Python interpreter (it computes) on gpu1, both listed by the fake NVML:
#   1. serve's /metrics has each rank's NCCL share
#      (gpudoctor_job_rank_nccl_wait_ratio: rank 0 high, rank 1 low) and
#      main thread state, next to gpudoctor_job_rank_info;
#   2. `record` on this machine, then `fleet --job ID FILE` names rank 1 as
#      job.slow_rank (the one rank that does not wait), exit 1.
# Needs the perf sampler (root or kernel.perf_event_paranoid <= 1): a
# denied sampler is a skip with the reason.  Processes end by themselves.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
. "$(dirname "$0")/lib.bash"

need_fake_nvml
command -v curl >/dev/null || skip "curl is not installed"
command -v jq >/dev/null || skip "jq is not installed"
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ] || skip "python3 is not installed"
CC=${CC:-cc}
command -v "$CC" >/dev/null || skip "no C compiler ($CC)"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/gd-e2e-jobfleet.XXXXXX) || fail "mktemp"
pids=()
cleanup() {
	[ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
	[ ${#pids[@]} -gt 0 ] && wait "${pids[@]}" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' TERM INT
mkdir -p "$tmp/nccl"
"$CC" -O1 -o "$tmp/job_load" "$here/job/job_load.c" -ldl || fail "cannot build job_load"
"$CC" -O1 -shared -fPIC -o "$tmp/nccl/libnccl.so.2" "$here/job/spin_lib.c" || fail "cannot build libnccl.so.2"

job="e2e-fleet-$$"
rank_env() { echo PATH=/usr/bin:/bin RANK="$1" LOCAL_RANK="$1" WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 GROUP_RANK=0 \
	MASTER_ADDR=127.0.0.1 MASTER_PORT=29511 TORCHELASTIC_RUN_ID="$job"; }
# shellcheck disable=SC2046
env -i $(rank_env 0) "$tmp/job_load" spin "$tmp/nccl/libnccl.so.2" 20 &
r0=$!
# shellcheck disable=SC2046
env -i $(rank_env 1) "$py" -c 'import time
t = time.time()
while time.time() - t < 20: pass' &
r1=$!
pids+=("$r0" "$r1")
{
	printf '[nvml]\ndriver_version = 550.54.15\ncuda_driver_version = 12040\n'
	for g in 0 1; do
		p=$([ $g = 0 ] && echo "$r0" || echo "$r1")
		printf '[gpu%d]\nname = NVIDIA H100 80GB HBM3\nuuid = GPU-3f2a9c1e-7b4d-4e8a-9c2f-1a6b5d8e0f0%d\n' $g $g
		printf 'pci_bus_id = 00000000:%d0:00.0\nutil_gpu_pct = %d\nmem_total_bytes = 85520809984\n' $((g + 1)) $((g ? 95 : 5))
		printf 'mem_used_bytes = 2147483648\nprocs = %d:1073741824\n' "$p"
	done
} >"$tmp/nvml.ini"
export GPUDOCTOR_NVML=$FAKE_NVML GPUDOCTOR_FAKE_NVML=$tmp/nvml.ini
sleep 0.5

# 1. serve's per-rank series
"$GPUDOCTOR" serve --listen 127.0.0.1:0 --interval 1s 2>"$tmp/serve.log" &
pids+=($!)
addr=""
for _ in $(seq 100); do
	addr=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/serve.log" | head -n 1)
	[ -n "$addr" ] && break
	sleep 0.1
done
[ -n "$addr" ] || fail "serve did not start: $(cat "$tmp/serve.log")"
for _ in $(seq 50); do
	curl -sf -m 2 "$addr/metrics" >"$tmp/m.prom" 2>/dev/null &&
		grep -q "^gpudoctor_job_rank_nccl_wait_ratio{pid=\"$r1\"}" "$tmp/m.prom" && break
	sleep 0.3
done
if ! grep -q '^gpudoctor_job_rank_nccl_wait_ratio' "$tmp/m.prom"; then
	reason=$(grep -o 'gpudoctor_collector_success{collector="job_samples"} 0' "$tmp/m.prom")
	[ -n "$reason" ] && skip "the perf sampler is not permitted here"
	fail "/metrics has no gpudoctor_job_rank_nccl_wait_ratio: $(grep -c . "$tmp/m.prom") lines"
fi
w0=$(sed -n "s/^gpudoctor_job_rank_nccl_wait_ratio{pid=\"$r0\"} //p" "$tmp/m.prom")
w1=$(sed -n "s/^gpudoctor_job_rank_nccl_wait_ratio{pid=\"$r1\"} //p" "$tmp/m.prom")
awk -v a="${w0:-0}" -v b="${w1:-1}" 'BEGIN { exit !(a >= 0.5 && b < 0.2) }' ||
	fail "NCCL shares: rank 0 $w0 (want >= 0.5), rank 1 $w1 (want < 0.2)"
grep -q "^gpudoctor_job_main_thread_state{pid=\"$r1\",state=\"R\"} 1" "$tmp/m.prom" ||
	fail "rank 1's main thread is not R: $(grep "main_thread_state{pid=\"$r1\"" "$tmp/m.prom")"
grep -q "^gpudoctor_job_rank_info{job=\"torchelastic:$job\",rank=\"1\".*pid=\"$r1\"} 1" "$tmp/m.prom" ||
	fail "no gpudoctor_job_rank_info of rank 1"
kill "${pids[-1]}" 2>/dev/null
wait "${pids[-1]}" 2>/dev/null
unset 'pids[-1]'
echo "ok serve: NCCL share rank 0 $w0, rank 1 $w1; states and rank info"

# 2. a recording of this node, judged
"$GPUDOCTOR" record -o "$tmp/node.rec" --interval 1s --duration 4s 2>"$tmp/rec.err" ||
	fail "record failed: $(head -c 300 "$tmp/rec.err")"
"$GPUDOCTOR" fleet --job "torchelastic:$job" --range 3s --step 1s --json "$tmp/node.rec" >"$tmp/f.json" 2>"$tmp/f.err"
rc=$?
jq -e --argjson rc "$rc" --argjson p "$r1" '$rc == 1 and .verdict.rule == "job.slow_rank" and
	[.verdict.culprits[] | [.rank, .pid]] == [[1, $p]] and .verdict.others_wait >= 0.5' "$tmp/f.json" >/dev/null ||
	fail "fleet --job (exit $rc): $(jq -c '.verdict' "$tmp/f.json") $(cat "$tmp/f.err")"
echo "ok fleet --job over the recording: $(jq -r .verdict.text "$tmp/f.json")"
