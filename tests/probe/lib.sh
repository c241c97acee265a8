# tests/probe/lib.sh - sourced by the probe tests: a fake 8-GPU node.
#
#   setup                  a work dir $T with a root tree ($T/root, with a
#                          dev/kmsg the fake driver can append an Xid to),
#                          $T/nvml.ini (the fake NVML: the 8 idle H100s of
#                          tests/scenarios/0001-healthy-8gpu, no process on
#                          them) and $T/cuda.ini (tests/fake_cuda/scenarios/
#                          node8.ini: the same GPUs, same PCI addresses)
#   nvml_set GPU KEY VAL   change one key of [gpuN] in $T/nvml.ini
#   cuda_set SEC KEY VAL   add KEY = VAL to [SEC] of $T/cuda.ini (later wins)
#   probe ARGS...          runs gpudoctor probe on them; stdout to $T/out,
#                          stderr to $T/err; sets $rc.  STREAM (host_mem)
#                          is skipped unless HOST_SKIP is set otherwise: it
#                          runs for real and the GPU tests need it not
#                          (tests/probe/gpu_host.sh runs it)
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
G=${GPUDOCTOR:-$repo/$BUILD/gpudoctor}
FAKE_NVML=$repo/$BUILD/fake_nvml/libnvidia-ml.so.1
FAKE_CUDA=$repo/$BUILD/fake_cuda/libcuda.so.1
fails=0
HOST_SKIP=${HOST_SKIP---skip host_mem}

setup() {
	for f in "$G" "$FAKE_NVML" "$FAKE_CUDA"; do
		[ -e "$f" ] || { echo "FAIL: $f is not built (make unit)"; exit 1; }
	done
	T=$(mktemp -d /tmp/gd-probe.XXXXXX)
	trap 'rm -rf "$T"' EXIT
	cp -r "$repo/tests/exporter/fixtures/healthy" "$T/root"
	mkdir -p "$T/root/dev"
	: >"$T/root/dev/kmsg"
	sed -e 's/^procs = .*/procs =/' -e 's/^util_gpu_pct = .*/util_gpu_pct = 0,100/' \
		"$repo/tests/scenarios/0001-healthy-8gpu/nvml.ini" >"$T/nvml.ini"
	cp "$repo/tests/fake_cuda/scenarios/node8.ini" "$T/cuda.ini"
}

nvml_set() {
	awk -v sec="[gpu$1]" -v key="$2" -v val="$3" '
		/^\[/ { insec = ($0 == sec) }
		insec && $1 == key && !done { print key " = " val; done = 1; next }
		{ print }
		END { if (!done) { print sec; print key " = " val } }' "$T/nvml.ini" >"$T/nvml.tmp" &&
		mv "$T/nvml.tmp" "$T/nvml.ini"
}

cuda_set() {
	printf '[%s]\n%s = %s\n' "$1" "$2" "$3" >>"$T/cuda.ini"
}

probe() {
	rc=0
	GPUDOCTOR_FAKE_NVML=$T/nvml.ini GPUDOCTOR_FAKE_CUDA=$T/cuda.ini NO_COLOR=1 \
		"$G" probe --root "$T/root" --nvml "$FAKE_NVML" --cuda "$FAKE_CUDA" --interval 50ms $HOST_SKIP "$@" \
		>"$T/out" 2>"$T/err" || rc=$?
}

ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
show() { echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"; }

# expect_rc N: the last probe's exit status was N
expect_rc() {
	if [ "$rc" = "$1" ]; then ok "exit $1"; else bad "exit $rc, want $1"; show; fi
}

# fired ID SUBJECT-REGEX: the JSON report ($T/out) has that finding
fired() {
	if jq -e --arg id "$1" --arg s "$2" '[.findings[] | select(.id == $id and (.subject | test($s)))] | length > 0' \
		"$T/out" >/dev/null; then
		ok "$1 fired for $2"
	else
		bad "$1 did not fire for $2"
		jq -c '.findings[] | {id, subject, summary}' "$T/out" 2>/dev/null || show
	fi
}

# silent ID: no finding of that id
silent() {
	if jq -e --arg id "$1" '[.findings[] | select(.id == $id)] | length == 0' "$T/out" >/dev/null; then
		ok "$1 silent"
	else
		bad "$1 fired"
		jq -c --arg id "$1" '.findings[] | select(.id == $id) | {subject, summary}' "$T/out"
	fi
}

finish() {
	if [ "$fails" -gt 0 ]; then
		echo "$fails check(s) failed"
		exit 1
	fi
	echo "all checks passed"
}
