# shellcheck shell=bash
# tests/nvidia/lib.sh - sourced by the tests of NVIDIA's own user space
# (issue 28).  Unpacks it with scripts/nvidia-debs.sh (a no-op once done)
# and sets NV_ROOT, NV_NVML, NV_CUDA, NV_SMI, NV_NVML_H.  When Debian's
# non-free component cannot be reached the test skips (exit 77) outside CI
# and fails under CI=true: nothing there has a reason to go without it.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$repo/$BUILD ;; esac
nv_need() { # what: skip outside CI, fail under it
	if [ "${CI:-}" = true ]; then
		echo "FAIL: $1 (under CI=true this is a failure: make deps provides it)"
		exit 1
	fi
	echo "skip: $1"
	exit 77
}
NV_DIR=${GD_NVIDIA_DIR:-$repo/build/nvidia/535}
if ! out=$("$repo/scripts/nvidia-debs.sh" "$NV_DIR" 2>&1); then
	printf '%s\n' "$out"
	nv_need "NVIDIA's 535 user space could not be fetched (scripts/nvidia-debs.sh)"
fi
NV_ROOT=$NV_DIR/root
NV_NVML=$NV_ROOT/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.1
NV_CUDA=$NV_ROOT/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.1
NV_SMI=$NV_ROOT/usr/lib/nvidia/current/nvidia-smi
NV_NVML_H=$NV_ROOT/usr/include/nvml.h
for f in "$NV_NVML" "$NV_CUDA" "$NV_SMI" "$NV_NVML_H"; do
	[ -e "$f" ] || { echo "FAIL: $f missing from the unpacked packages"; exit 1; }
done
# A driver on this machine would change every answer these tests expect.
if [ -e /proc/driver/nvidia/version ]; then
	nv_need "an NVIDIA kernel module is loaded here: these tests expect a machine without one"
fi
# nv_run CMD...: runs CMD without CAP_MKNOD.  NVIDIA's libnvidia-ml.so.1,
# run as root without the kernel module, creates /dev/nvidiactl (mknod,
# character 195:255) before it reports NVML_ERROR_DRIVER_NOT_LOADED: a test
# must not leave that node behind on the machine.
# NV_RUN: the same as a command prefix, for a command started in the
# background (setpriv execs it: $! is its pid).
NV_RUN=()
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null 2>&1 || nv_need "setpriv (util-linux) is not installed"
	NV_RUN=(setpriv --bounding-set=-mknod --)
fi
nv_run() { "${NV_RUN[@]}" "$@"; }
