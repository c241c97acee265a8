#!/bin/bash
# tests/probe/gpu_absent.sh - the probe where the GPU part cannot run:
#   - the CUDA toolkit's stub libcuda.so (real, /usr/local/cuda; it answers
#     CUDA_ERROR_STUB_LIBRARY, 34) loaded as the driver: the reason names it,
#     driver.cuda_stub fires critical naming the file, exit 2; the fake
#     driver is the healthy baseline (silent);
#   - no NVML at all, --data DIR: the storage probe still runs on DIR, the
#     GPU part is reported not run with the reason (unavailable[]
#     probe:gpus), and --json prints one document although the exit is 3;
#   - no libcuda (NVML fine), --data DIR: the same, the reason being the
#     missing library.
source "$(dirname "$0")/lib.sh"
STUB=${CUDA_STUB:-/usr/local/cuda/lib64/stubs/libcuda.so}

# one document on stdout, its exit equal to the process's
one_doc() {
	if jq -e --argjson rc "$rc" -s 'length == 1 and .[0].exit == $rc' "$T/out" >/dev/null 2>&1; then
		ok "$1: one JSON document, exit $rc"
	else
		bad "$1: not one JSON document with exit $rc"
		show
	fi
}

if [ -r "$STUB" ]; then
	setup
	probe --json --only compute_fp32 --gpus 0 --cuda "$STUB"
	expect_rc 2
	one_doc "stub"
	grep -q "CUDA_ERROR_STUB_LIBRARY (34): $(readlink -f "$STUB") is the CUDA toolkit's stub library, not the driver's: the container lacks the NVIDIA runtime mounts" "$T/err" &&
		ok "the stub named in the reason" || { bad "the stub not named"; show; }
	fired driver.cuda_stub '^probe$'
	jq -e --arg f "$(readlink -f "$STUB")" '.findings[] | select(.id == "driver.cuda_stub") |
		.severity == "critical" and ([.evidence[] | select(.name == "cuda_library") | .text] == [$f]) and
		([.evidence[] | select(.name == "cuda_init_error") | .value] == [34])' "$T/out" >/dev/null &&
		ok "driver.cuda_stub: critical, cuda_library and cuda_init_error 34" || bad "driver.cuda_stub evidence"
	probe --json --only compute_fp32 --gpus 0
	expect_rc 0
	silent driver.cuda_stub
else
	echo "SKIP: no CUDA toolkit stub at $STUB (set CUDA_STUB)"
	exit 77
fi

setup
mkdir -p "$T/data"

for i in 1 2 3 4 5 6 7 8; do printf 'sample %d\n' "$i" >"$T/data/s$i.txt"; done
probe --json --nvml /nonexistent/libnvidia-ml.so.1 --data "$T/data"
expect_rc 3
one_doc "no NVML"
jq -e '.unavailable[] | select(.evidence == "probe:gpus" and (.reason | test("^not run: NVML lists no GPU \\(/nonexistent/libnvidia-ml.so.1")))' \
	"$T/out" >/dev/null && ok "no NVML: the GPU part not run, with the reason" || { bad "no probe:gpus not run"; show; }
jq -e '[.host.lines[] | select(.probe == "storage.small_files" and .status == "ok")] | length == 1' "$T/out" >/dev/null &&
	ok "no NVML: the storage probe (small files) ran on --data" || { bad "no storage result"; jq -c '.host' "$T/out"; }
grep -q 'the GPU probes do not run; the host probes do' "$T/err" && ok "no NVML: said on stderr" || bad "no stderr note"

probe --json --cuda /nonexistent/libcuda.so.1 --data "$T/data" --gpus 0
expect_rc 3
one_doc "no libcuda"
jq -e '.unavailable[] | select(.evidence == "probe:cuda" and (.reason | test("cannot load the CUDA driver /nonexistent/libcuda.so.1")))' \
	"$T/out" >/dev/null && ok "no libcuda: the reason" || bad "no libcuda: no probe:cuda reason"
jq -e '[.probe[] | select(.status == "not_run")] | length > 0' "$T/out" >/dev/null && ok "no libcuda: GPU rows not_run" ||
	bad "no libcuda: no not_run rows"
jq -e '[.host.lines[] | select(.probe == "storage.small_files" and .status == "ok")] | length == 1' "$T/out" >/dev/null &&
	ok "no libcuda: the storage probe ran" || { bad "no libcuda: no storage result"; jq -c '.host' "$T/out"; }
finish
