#!/bin/bash
# tests/nvidia/real_cli.sh - check, snapshot, serve and probe with NVIDIA's
# own libnvidia-ml.so.1 and libcuda.so.1 (535.261.03) on a machine without
# the kernel module, loaded the way the tests load the fakes (--nvml,
# --cuda; GPUDOCTOR_NVML for snapshot): the exact reason is reported
# (NVML_ERROR_DRIVER_NOT_LOADED, 9; CUDA_ERROR_NO_DEVICE, 100, with the
# module named), the exit codes and the JSON hold, and under the ASan build
# nothing of ours leaks (the libraries' own allocations are suppressed:
# lsan.supp).  The host is the healthy fixture tree (8 H100s on its PCI
# bus), so a driver that does not answer is driver.not_loaded.
set -u
. "$(dirname "$0")/lib.sh"
G=${GPUDOCTOR:-$BUILD/gpudoctor}
FAKE_NVML=$BUILD/fake_nvml/libnvidia-ml.so.1
for f in "$G" "$FAKE_NVML"; do [ -e "$f" ] || { echo "FAIL: $f is not built (make all unit)"; exit 1; }; done
for t in jq curl; do command -v $t >/dev/null 2>&1 || nv_need "$t is not installed"; done
export LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$repo/tests/nvidia/lsan.supp
export NO_COLOR=1
FIX=$repo/tests/exporter/fixtures/healthy
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gd-nvcli.XXXXXX") || exit 1
spid=""
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }
NVML_REASON='nvmlInit: Driver Not Loaded (NVML_ERROR_DRIVER_NOT_LOADED, 9): the nvidia kernel module is not loaded'

# check
nv_run "$G" check --json --window 100ms --root "$FIX" --nvml "$NV_NVML" >"$tmp/check.json" 2>"$tmp/check.err"
rc=$?
if [ $rc -eq 2 ] && jq -e --arg r "$NVML_REASON" '.exit == 2 and
	([.findings[] | select(.id == "driver.not_loaded" and .severity == "critical")] | length == 1) and
	([.unavailable[] | select(.evidence == "nvml" and .status == "absent" and .reason == $r)] | length == 1)' \
	"$tmp/check.json" >/dev/null; then
	ok "check: exit 2, driver.not_loaded, nvml absent with NVIDIA's reason"
else
	bad "check: exit $rc; $(jq -c '[.exit, [.findings[].id], [.unavailable[] | select(.evidence == "nvml")]]' "$tmp/check.json" 2>&1) $(head -c 300 "$tmp/check.err")"
fi

# snapshot
GPUDOCTOR_NVML=$NV_NVML nv_run "$G" snapshot --root "$FIX" >"$tmp/snap.json" 2>"$tmp/snap.err"
rc=$?
if [ $rc -eq 0 ] && jq -e --arg r "$NVML_REASON" --arg lib "$NV_NVML" '.nvml.status == "absent" and
	.nvml.init_error == "DRIVER_NOT_LOADED" and .nvml.reason == $r and .nvml.library == $lib and
	.nvml.missing == "nvmlDeviceGetNumaNodeId" and .nvml.device_count == null' "$tmp/snap.json" >/dev/null; then
	ok "snapshot: exit 0, nvml absent, DRIVER_NOT_LOADED, missing nvmlDeviceGetNumaNodeId"
else
	bad "snapshot: exit $rc; $(jq -c .nvml "$tmp/snap.json" 2>&1) $(head -c 300 "$tmp/snap.err")"
fi

# serve: /findings and /metrics from the same evidence, then SIGTERM
"${NV_RUN[@]}" "$G" serve --listen 127.0.0.1:0 --interval 100ms --window 200ms --root "$FIX" --nvml "$NV_NVML" \
	2>"$tmp/serve.err" &
spid=$!
addr=""
for _ in $(seq 100); do
	addr=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/serve.err" | head -n 1 | sed 's|http://||')
	[ -n "$addr" ] && [ "$(curl -s -m 2 "http://$addr/healthz")" = ok ] && break
	sleep 0.1
done
if [ -z "$addr" ]; then
	bad "serve did not start: $(head -c 300 "$tmp/serve.err")"
else
	curl -s -m 5 "http://$addr/findings" >"$tmp/findings.json"
	curl -s -m 5 "http://$addr/metrics" >"$tmp/metrics.txt"
	jq -e --arg r "$NVML_REASON" '.exit == 2 and ([.findings[] | select(.id == "driver.not_loaded")] | length == 1) and
		([.unavailable[] | select(.evidence == "nvml" and .reason == $r)] | length == 1)' "$tmp/findings.json" >/dev/null &&
		ok "serve /findings: driver.not_loaded, NVIDIA's reason" || bad "serve /findings: $(head -c 400 "$tmp/findings.json")"
	grep -q '^gpudoctor_up 1' "$tmp/metrics.txt" && grep -q 'gpudoctor_finding{.*driver.not_loaded' "$tmp/metrics.txt" &&
		ok "serve /metrics: up, driver.not_loaded" || bad "serve /metrics: $(grep -c . "$tmp/metrics.txt") lines, no up 1 or no finding"
	kill -TERM "$spid"
	wait "$spid"
	rc=$?
	spid=""
	[ $rc -eq 0 ] && ok "serve: exit 0 on SIGTERM" || bad "serve exited $rc on SIGTERM: $(tail -n 5 "$tmp/serve.err")"
fi

# probe with both real libraries: NVML lists no GPU, and says why; the
# host probes asked for still run (issue 28 item 8), the exit status is
# the findings' (driver.not_loaded: 2)
nv_run "$G" probe --json --root "$FIX" --nvml "$NV_NVML" --cuda "$NV_CUDA" --skip host_mem >"$tmp/probe.json" 2>"$tmp/probe.err"
rc=$?
if [ $rc -eq 2 ] && grep -qF "the GPU probes do not run" "$tmp/probe.err" &&
	jq -e --arg r "not run: NVML lists no GPU ($NVML_REASON)" \
		'[.unavailable[] | select(.evidence == "probe:gpus" and .reason == $r)] | length == 1' "$tmp/probe.json" >/dev/null; then
	ok "probe (real NVML): exit 2, the GPU part not run with NVIDIA's reason"
else
	bad "probe (real NVML): exit $rc: $(head -c 300 "$tmp/probe.err")"
fi
# probe with the fake 8-GPU NVML and the real libcuda: cuInit's answer,
# and the module named
sed -e 's/^procs = .*/procs =/' "$repo/tests/scenarios/0001-healthy-8gpu/nvml.ini" >"$tmp/nvml.ini"
GPUDOCTOR_FAKE_NVML=$tmp/nvml.ini nv_run "$G" probe --json --root "$FIX" --nvml "$FAKE_NVML" --cuda "$NV_CUDA" \
	--interval 50ms --skip host_mem >"$tmp/probe2.json" 2>"$tmp/probe2.err"
rc=$?
CU='cuInit: CUDA_ERROR_NO_DEVICE (100): the driver sees no CUDA GPU; /proc/driver/nvidia/version is absent: the nvidia kernel module is not loaded'
if [ $rc -eq 3 ] && grep -qF "$CU" "$tmp/probe2.err" &&
	jq -e --arg r "$CU" '.exit == 3 and ([.unavailable[] | select(.evidence == "probe:cuda" and (.reason | contains($r)))] | length == 1)' \
		"$tmp/probe2.json" >/dev/null; then
	ok "probe (real libcuda): exit 3, CUDA_ERROR_NO_DEVICE and the missing module, in unavailable[]"
else
	bad "probe (real libcuda): exit $rc: $(head -c 300 "$tmp/probe2.err") $(jq -c '[.exit, [.unavailable[] | select(.evidence == "probe:cuda")]]' "$tmp/probe2.json" 2>&1)"
fi
[ $fail -eq 0 ] && echo PASS
exit $fail
