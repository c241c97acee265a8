#!/bin/bash
# gd-test: exclusive (it measures time, load or throughput: tests/run.sh runs it alone)
# tests/probe/gpu_safety.sh - what the probe will not do, and how it stops:
# a busy GPU (a compute process NVML lists) is skipped unless --force; a
# MIG-enabled GPU is skipped; a kernel that never finishes gets its GPU
# reported hung at the deadline, the child killed and the report printed;
# SIGINT stops the probe and prints what was measured.
source "$(dirname "$0")/lib.sh"

setup
nvml_set 1 procs 4242:73014444032
nvml_set 7 mig_mode 1
probe --json --only compute_fp32
expect_rc 0
jq -e '.unavailable[] | select(.evidence == "probe:gpu1" and (.reason | test("busy: 1 compute process \\(pid 4242\\)")))' "$T/out" >/dev/null &&
	ok "busy gpu1 skipped with the reason" || { bad "gpu1 not reported skipped"; jq '.unavailable' "$T/out"; }
jq -e '.unavailable[] | select(.evidence == "probe:gpu7" and (.reason | test("MIG is enabled")))' "$T/out" >/dev/null &&
	ok "MIG gpu7 skipped with the reason" || bad "gpu7 not reported skipped"
jq -e '[.probe[].gpu] | unique == [0,2,3,4,5,6]' "$T/out" >/dev/null && ok "the other six probed" || bad "probed $(jq -c '[.probe[].gpu] | unique' "$T/out")"
probe --json --only compute_fp32 --force
jq -e '[.probe[].gpu] | unique == [0,1,2,3,4,5,6]' "$T/out" >/dev/null && ok "--force probes the busy GPU, never the MIG one" ||
	bad "--force probed $(jq -c '[.probe[].gpu] | unique' "$T/out")"
probe --gpus 1
expect_rc 3
# the host probes still run (issue 28 item 8); the GPU part is not run, and why
grep -q 'the GPU probes do not run' "$T/err" && grep -q 'gpu1: busy' "$T/err" && ok "only a busy GPU: exit 3 with why" || { bad "busy only"; show; }
probe --gpus 1 --only compute_fp32
expect_rc 3
grep -q 'no GPU to probe' "$T/err" && grep -q 'gpu1: busy' "$T/err" && ok "only a busy GPU, GPU probes only: exit 3 with why" ||
	{ bad "busy only, GPU probes only"; show; }

# gpu6's burn kernel never finishes: deadline 1 s past the burn's length
# (--duration 5s: 2 s burns, so the burn's own allowance is 4 s)
setup
cuda_set gpu6 hang gd_burn_fp32
start=$(date +%s)
probe --json --duration 5s --deadline 1s
took=$(($(date +%s) - start))
expect_rc 2
fired probe.gpu_hung '^gpu6 '
n=$(jq '[.findings[] | select(.id == "probe.gpu_hung")] | length' "$T/out")
[ "$n" = 1 ] && ok "gpu6 alone is hung" || bad "$n hung findings"
jq -e '.probe[] | select(.gpu == 0 and .probe == "compute_fp32" and .status == "ok")' "$T/out" >/dev/null &&
	ok "what the others measured is reported" || bad "gpu0's burn result is missing"
jq -e '.probe[] | select(.gpu == 0 and .probe == "h2d" and .status == "not_run" and (.reason | test("compute_fp32 did not finish")))' "$T/out" >/dev/null &&
	ok "later probes not run, with the reason" || bad "gpu0 h2d: $(jq -c '.probe[] | select(.gpu == 0 and .probe == "h2d")' "$T/out")"
pgrep -f "$T/cuda.ini" >/dev/null && bad "a probe process is left" || ok "no probe process left"
echo "   (hang scenario took ${took}s)"

# SIGINT: a slow fake (1 GPU-second = 0.5 s) interrupted during the burn
setup
sed -i 's/^time_scale = .*/time_scale = 0.5/' "$T/cuda.ini"
(
	GPUDOCTOR_FAKE_NVML=$T/nvml.ini GPUDOCTOR_FAKE_CUDA=$T/cuda.ini exec "$G" probe --json --root "$T/root" \
		--nvml "$FAKE_NVML" --cuda "$FAKE_CUDA" --gpus 0-1 --interval 50ms >"$T/out" 2>"$T/err"
) &
pid=$!
sleep 2
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -le 3 ] && ok "interrupted probe exits $rc" || bad "interrupted probe exits $rc"
jq -e '.interrupted == true' "$T/out" >/dev/null && ok "the report says interrupted" || { bad "no interrupted report"; show; }
jq -e '.probe[] | select(.probe == "compute_fp32" and .status == "ok")' "$T/out" >/dev/null &&
	ok "the burn measured before the stop is reported" || bad "nothing measured reported"
grep -q 'stopping the probe' "$T/err" && ok "stop announced" || bad "no stop message"
finish
