#!/bin/bash
# bench/nvml/run.sh - NVML calls per collection cycle for 8 GPUs, counted
# by the fake NVML (tests/fake_nvml, GPUDOCTOR_FAKE_NVML_TRACE=calls) under
# `gpudoctor record` of the 8-GPU healthy scenario (tests/scenarios/
# 0001-healthy-8gpu: eight H100s, one job).  Two runs of K1 and K2 cycles;
# (calls2 - calls1) / (K2 - K1) is the cost of one cycle, without the
# one-off calls of start-up and shutdown (init, versions, device count).
# Prints the per-cycle count of each function and the total; checks that
# both recordings hold the cycles asked for and eight GPUs each.
#
#   BUILD=build bench/nvml/run.sh [K1 K2]        (make unit builds the fake)
#   FAKE=build/fake_nvml_old/libnvidia-ml.so.1 bench/nvml/run.sh 5 20
#                     the same through the old-driver fake (the fallbacks)
set -eu
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
G=${GPUDOCTOR:-$B/gpudoctor}
FAKE=${FAKE:-$(dirname "$G")/fake_nvml/libnvidia-ml.so.1}
S=tests/scenarios/0001-healthy-8gpu
K1=${1:-10}
K2=${2:-40}
[ -x "$G" ] && [ -f "$FAKE" ] || { echo "build first: make all unit" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
run() { # K: record K cycles, leave the call counts in $T/K.calls
	GPUDOCTOR_FAKE_NVML=$S/nvml.ini GPUDOCTOR_FAKE_NVML_TRACE=calls "$G" record --root tests/scenarios/base/t0 \
		--nvml "$FAKE" --interval 0.05s --duration "$(python3 -c "print($1 * 0.05 - 0.01)")s" -o "$T/$1.jsonl" \
		2>"$T/$1.err" || { cat "$T/$1.err"; exit 1; }
	n=$(wc -l <"$T/$1.jsonl")
	[ "$n" -eq "$1" ] || { echo "FAIL: $n snapshots recorded, asked for $1" >&2; exit 1; }
	[ "$(head -n 1 "$T/$1.jsonl" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["gpus"]))')" = 8 ] ||
		{ echo "FAIL: the recording does not hold 8 GPUs" >&2; exit 1; }
	sed -n 's/^fake_nvml: calls //p' "$T/$1.err" | sort >"$T/$1.calls"
}
run "$K1"
run "$K2"
python3 - "$T/$K1.calls" "$T/$K2.calls" "$K1" "$K2" <<'PY'
import sys
def load(p):
    return {l.split()[0]: int(l.split()[1]) for l in open(p)}
a, b, k1, k2 = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
per = {f: (b.get(f, 0) - a.get(f, 0)) / (k2 - k1) for f in set(a) | set(b)}
once = {f: a.get(f, 0) - per[f] * k1 for f in per}
print("NVML calls per cycle, 8 GPUs (%d and %d cycles)" % (k1, k2))
for f in sorted(per, key=lambda f: (-per[f], f)):
    if per[f]:
        print("  %-48s %6.1f" % (f, per[f]))
print("  %-48s %6.1f" % ("total per cycle", sum(per.values())))
print("  %-48s %6.1f" % ("per GPU per cycle", sum(per.values()) / 8))
print("  %-48s %6.0f" % ("once per run (start-up, shutdown)", sum(once.values())))
PY
