#!/bin/bash
# tests/probe/gpu_healthy.sh - gpudoctor probe on a healthy fake 8-GPU node
# (fake NVML + fake libcuda.so.1, same PCI addresses): every probe runs on
# every GPU and nothing fires; -o writes JSON lines that check --from reads
# back to the same verdict; one GPU alone has no siblings and says so.
source "$(dirname "$0")/lib.sh"
setup

probe --json -o "$T/run.jsonl"
expect_rc 0
n=$(jq '[.probe[] | select(.status == "ok")] | length' "$T/out")
# 8 GPUs x 8 probes + 8 x 7 peer pairs
[ "$n" = 120 ] && ok "120 probe rows ok" || { bad "$n probe rows ok, want 120"; jq -c '.probe[] | select(.status != "ok")' "$T/out" | head; }
for id in probe.gpu_compute_slow probe.gpu_compute_mismatch probe.gpu_hung probe.gpu_memory_errors \
	probe.gpu_mem_bandwidth_low probe.pcie_bandwidth_low probe.p2p_bandwidth_low; do
	silent "$id"
done
jq -e '[.findings[] | select(.severity != "info")] | length == 0' "$T/out" >/dev/null &&
	ok "no warning or critical finding" || bad "a warning or critical finding on the healthy node"
# the expected figure of a copy is the trained link's, from NVML under load
from=$(jq -r '.probe[] | select(.gpu == 0 and .probe == "h2d") | .expected_from' "$T/out")
[ "$from" = "link Gen5 x16" ] && ok "h2d judged against the link" || bad "h2d expected from '$from'"
from=$(jq -r '.probe[] | select(.gpu == 0 and .probe == "compute_fp32") | .expected_from' "$T/out")
[ "$from" = "median of 7 siblings" ] && ok "compute judged against siblings" || bad "compute expected from '$from'"

# -o: the sampled series, the last line with the results, for check --from
lines=$(wc -l <"$T/run.jsonl")
[ "$lines" -ge 3 ] && ok "-o holds $lines snapshots" || bad "-o holds $lines lines"
tail -n 1 "$T/run.jsonl" | jq -e '.probe | length == 120' >/dev/null && ok "-o ends with the results" ||
	bad "the last -o line has no probe rows"
GPUDOCTOR_NVML=/nonexistent "$G" check --json --from "$T/run.jsonl" >"$T/check.json" 2>"$T/check.err"
crc=$?
[ "$crc" = 0 ] && ok "check --from the -o file exits 0" || { bad "check --from exits $crc"; cat "$T/check.err"; }
jq -e '[.not_evaluated[]? | select(.rule | startswith("probe."))] | length <= 1' "$T/check.json" >/dev/null &&
	ok "check --from evaluates the probe rules" || bad "check --from leaves probe rules unevaluated"

GPUDOCTOR_NVML=/nonexistent "$G" report "$T/run.jsonl" --text >"$T/report.txt" 2>&1 &&
	grep -q '^gpu7 NVIDIA H100 80GB HBM3: utilisation' "$T/report.txt" && ok "report reads the -o file" ||
	{ bad "report on the -o file"; head "$T/report.txt"; }

# text: a table per GPU, then the findings; no progress line when piped
probe
expect_rc 0
grep -q '^  gpu3 0000:61:00.0 NVIDIA H100 80GB HBM3$' "$T/out" && ok "text table per GPU" || { bad "no gpu3 heading"; show; }
grep -q 'h2d  *52.0 GB/s  *expected 49.1 (link Gen5 x16)  *ok' "$T/out" && ok "h2d line" || bad "no h2d line"
grep -q $'\r' "$T/err" && bad "a progress line went to a pipe" || ok "no progress line on a pipe"

# on a terminal: the progress line (probe, GPUs, time left) on stderr
GPUDOCTOR_FAKE_NVML=$T/nvml.ini GPUDOCTOR_FAKE_CUDA=$T/cuda.ini NO_COLOR=1 script -qec \
	"'$G' probe --root '$T/root' --nvml '$FAKE_NVML' --cuda '$FAKE_CUDA' --interval 50ms --gpus 0-1" /dev/null >"$T/tty.txt" 2>&1
grep -qaE $'\r\033\\[Kprobe: [a-z0-9_]+ on [0-9]+ GPUs?, about [0-9]+ s left' "$T/tty.txt" && ok "progress line on a terminal" ||
	{ bad "no progress line on a terminal"; head -c 600 "$T/tty.txt" | od -c | head; }

# one GPU: no siblings to judge compute by, and no peers
probe --json --gpus 0
expect_rc 0
jq -e '[.probe[] | select(.probe == "p2p")] | length == 0' "$T/out" >/dev/null && ok "no p2p with one GPU" || bad "p2p rows with one GPU"
jq -e '.not_evaluated[] | select(.rule == "probe.gpu_compute_slow") | .reason | test("siblings only")' "$T/out" >/dev/null &&
	ok "one GPU: compute is judged against siblings only, and it says so" || { bad "no 'siblings only' reason"; jq '.not_evaluated' "$T/out"; }

# --only / --skip
probe --json --only pcie --gpus 0-1
jq -e '[.probe[].probe] | unique == ["d2h","d2h_all","h2d","h2d_all"]' "$T/out" >/dev/null && ok "--only pcie" || { bad "--only pcie ran $(jq -c '[.probe[].probe] | unique' "$T/out")"; }
probe --json --skip compute,p2p,mem_pattern --gpus 0-1
jq -e '[.probe[].probe] | unique == ["d2h","d2h_all","h2d","h2d_all","mem_bandwidth"]' "$T/out" >/dev/null && ok "--skip" || bad "--skip ran $(jq -c '[.probe[].probe] | unique' "$T/out")"
probe --only nosuch
expect_rc 3
grep -q 'unknown probe "nosuch"' "$T/err" && ok "unknown probe named" || bad "no error for an unknown probe"
finish
