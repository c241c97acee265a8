#!/bin/bash
# tests/nvidia/symbols.sh - every name the NVML and CUDA loaders look up
# (src/nvml/nvml.c's sym_table, src/probe/cuda.c's syms), looked up in
# NVIDIA's own libnvidia-ml.so.1 and libcuda.so.1 of driver 535.261.03
# (dlopen RTLD_LAZY, dlsym): every required row has a name there; the names
# 535 lacks are exactly the ones listed below (a misspelled name shows up as
# a new absence); and the loaders, opened on the same files, take the
# fallback each row promises: the first name the library has, the missing
# optional function reported as missing, an alternative not reported.
# Without the kernel module, nvmlInit_v2 answers NVML_ERROR_DRIVER_NOT_LOADED
# and cuInit CUDA_ERROR_NO_DEVICE: the reasons the loaders give are checked.
# docs/nvidia-symbols.md is the table of these names by driver branch.
set -u
. "$(dirname "$0")/lib.sh"
drv=$BUILD/tests/nvidia_real
[ -x "$drv" ] || { echo "FAIL: $drv is not built (make unit)"; exit 1; }
# their own leaks (a failed nvmlInit keeps what it allocated) are not ours
export LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$repo/tests/nvidia/lsan.supp
out=$(nv_run "$drv" syms "$NV_NVML" "$NV_CUDA" 2>&1)
rc=$?
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ $rc -eq 0 ] || bad "tests/nvidia/real syms exited $rc"
grep '^FAIL' <<<"$out" && fail=1

# The names of our tables that 535.261.03 does not export, and why each
# may be absent (docs/nvidia-symbols.md):
#   nvmlDeviceGetTemperatureV   12.8 header (R570): falls back to nvmlDeviceGetTemperature
#   nvmlDeviceGetGpuFabricInfoV R550: falls back to nvmlDeviceGetGpuFabricInfo (issue 27)
#   nvmlDeviceGetNumaNodeId     newer than 535: optional, reported missing; numa_node from sysfs
#   cuEventElapsedTime_v2       CUDA 12.8: the plain cuEventElapsedTime is tried first
want_absent="cuda cuEventElapsedTime_v2
nvml nvmlDeviceGetGpuFabricInfoV
nvml nvmlDeviceGetNumaNodeId
nvml nvmlDeviceGetTemperatureV"
got_absent=$(awk '$3 == "absent" { print $1, $2 }' <<<"$out" | LC_ALL=C sort)
[ "$got_absent" = "$want_absent" ] || bad "names absent from 535.261.03: got
$got_absent
want
$want_absent"
n_nvml=$(grep -c '^nvml [^ ]* present' <<<"$out")
n_cuda=$(grep -c '^cuda [^ ]* present' <<<"$out")
[ "$n_nvml" -ge 60 ] && [ "$n_cuda" -ge 39 ] || bad "too few names looked up ($n_nvml NVML, $n_cuda CUDA)"

# the loaders on the real files
grep -qx 'nvml-loader state=absent init_rc=9 (DRIVER_NOT_LOADED)' <<<"$out" || bad "NVML loader state: $(grep '^nvml-loader state' <<<"$out")"
# the optional function 535 lacks is reported; the alternative (Temperature) is not
grep -qx 'nvml-loader missing=nvmlDeviceGetNumaNodeId' <<<"$out" || bad "NVML missing: $(grep '^nvml-loader missing' <<<"$out")"
grep -qF 'nvml-loader reason=nvmlInit: Driver Not Loaded (NVML_ERROR_DRIVER_NOT_LOADED, 9): the nvidia kernel module is not loaded' <<<"$out" ||
	bad "NVML reason: $(grep '^nvml-loader reason' <<<"$out")"
grep -qF 'cuda-loader reason=cuInit: CUDA_ERROR_NO_DEVICE (100): the driver sees no CUDA GPU' <<<"$out" ||
	bad "CUDA reason: $(grep '^cuda-loader reason' <<<"$out")"
grep -qF '/proc/driver/nvidia/version is absent: the nvidia kernel module is not loaded' <<<"$out" ||
	bad "CUDA reason does not say the module is not loaded: $(grep '^cuda-loader reason' <<<"$out")"
# the table in docs/ names every one of them
for name in $(awk '$1 == "nvml" || $1 == "cuda" { print $2 }' <<<"$out"); do
	grep -qF "| \`$name\` |" "$repo/docs/nvidia-symbols.md" || bad "docs/nvidia-symbols.md lacks $name"
done
echo "$n_nvml NVML and $n_cuda CUDA names present in 535.261.03; absent: $(tr '\n' ' ' <<<"$got_absent")"
grep '^nvml-loader\|^cuda-loader' <<<"$out"
[ $fail -eq 0 ] && echo PASS
exit $fail
