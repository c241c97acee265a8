#!/bin/bash
# tests/probe/gpu_cannot_run.sh - when the probe cannot run, it says why and
# exits 3, with the report still printed: no CUDA driver, no device, the
# JIT refusing the module (its log cleaned into the reason), a driver older
# than the module's PTX (refused before the JIT is asked), a driver too old
# for the tensor module only (that probe skipped, the rest run).
source "$(dirname "$0")/lib.sh"

setup
probe --json --cuda /nonexistent/libcuda.so.1
expect_rc 3
grep -q 'cannot load the CUDA driver /nonexistent/libcuda.so.1' "$T/err" && ok "no driver: named" || { bad "no driver message"; show; }
jq -e '.unavailable[] | select(.evidence == "probe:cuda" and (.reason | test("cannot load")))' "$T/out" >/dev/null &&
	ok "no driver: in unavailable[]" || bad "no probe:cuda in unavailable[]"

setup
sed -i 's/^init = SUCCESS/init = 100/' "$T/cuda.ini"
probe --json
expect_rc 3
grep -q 'cuInit: CUDA_ERROR_NO_DEVICE (100): the driver sees no CUDA GPU' "$T/err" && ok "no device" || { bad "no device message"; show; }

setup
sed -i 's/^time_scale = .*/jit = fail/' "$T/cuda.ini"
probe --json
expect_rc 3
r=$(jq -r '.probe[] | select(.gpu == 0 and .probe == "compute_fp32") | .reason' "$T/out")
case $r in
*"CUDA_ERROR_INVALID_PTX (218): ptxas fatal : Unresolved extern function 'gd_fake_missing' trailing") ok "JIT failure with its log" ;;
*) bad "JIT failure reason: $r" ;;
esac
jq -e '[.probe[] | select(.status == "failed")] | length == 64' "$T/out" >/dev/null && ok "every GPU probe failed" ||
	bad "$(jq '[.probe[] | select(.status == "failed")] | length' "$T/out") failed rows, want 64"

setup
sed -i 's/^driver_version = .*/driver_version = 10000/' "$T/cuda.ini"
probe --json --gpus 0
expect_rc 3
r=$(jq -r '.probe[] | select(.probe == "compute_fp32") | .reason' "$T/out")
case $r in
*"the driver supports CUDA 10.0, older than this module's PTX 6.4 (needs CUDA 10.1)") ok "old driver refused before the JIT" ;;
*) bad "old driver reason: $r" ;;
esac

# CUDA 10.2 on an sm_80 GPU: the basic module loads, the tensor one (PTX 7.0) does not
setup
sed -i 's/^driver_version = .*/driver_version = 10020/' "$T/cuda.ini"
cuda_set gpu0 cc 80
probe --json --gpus 0 --only compute
expect_rc 0
st=$(jq -r '.probe[] | select(.probe == "compute_bf16") | .status + ": " + .reason' "$T/out")
case $st in
"skipped: no tensor module: the driver supports CUDA 10.2, older than this module's PTX 7.0 (needs CUDA 11.0)") ok "tensor module skipped on CUDA 10.2" ;;
*) bad "compute_bf16: $st" ;;
esac
jq -e '.probe[] | select(.probe == "compute_fp32" and .status == "ok")' "$T/out" >/dev/null && ok "fp32 burn ran" || bad "fp32 did not run"

# NVML lists gpu7, CUDA does not (CUDA_VISIBLE_DEVICES, a container): its
# probes fail with the reason, the others run
setup
awk '/^\[gpu7\]/ { skip = 1 } /^\[gpu[0-6]\]/ { skip = 0 } !skip' "$T/cuda.ini" >"$T/c" && mv "$T/c" "$T/cuda.ini"
probe --json --only compute_fp32
r=$(jq -r '.probe[] | select(.gpu == 7) | .status + ": " + .reason' "$T/out")
[ "$r" = "failed: CUDA lists no device at 0000:df:00.0 (CUDA_VISIBLE_DEVICES or a container may hide it)" ] &&
	ok "a GPU CUDA does not list: failed with the reason" || bad "gpu7: $r"
jq -e '[.probe[] | select(.status == "ok")] | length == 7' "$T/out" >/dev/null && ok "the other seven ran" || bad "others"

# a Volta (sm_70): no tensor module (bf16 mma needs sm_80)
setup
cuda_set gpu0 cc 70
probe --json --gpus 0 --only compute_bf16
st=$(jq -r '.probe[] | select(.probe == "compute_bf16") | .reason' "$T/out")
case $st in *"compute capability 7.0) cannot run a module for sm_80") ok "sm_70: tensor module not loaded" ;; *) bad "sm_70: $st" ;; esac
finish
