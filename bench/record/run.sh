#!/bin/bash
# bench/record/run.sh [N] - bytes per snapshot on disk of `gpudoctor record`,
# gzip (the default) against plain JSON lines (a .jsonl name), N snapshots
# (default 60) at 0.1 s: of this machine, and of the 8-GPU fixture host
# (tests/scenarios/base/t0 with the fake NVML's 0001-healthy-8gpu: eight
# H100s).  Each recording is checked: N lines (zcat for the gzip one) and,
# for the fixture, eight GPUs a line.  The issue's target: under 10 KB.
set -eu
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
G=${GPUDOCTOR:-$B/gpudoctor}
FAKE=$(dirname "$G")/fake_nvml/libnvidia-ml.so.1
N=${1:-60}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
[ -x "$G" ] && [ -f "$FAKE" ] || { echo "build first: make all unit" >&2; exit 1; }
dur=$(python3 -c "print($N * 0.1 - 0.05)")s
one() { # NAME FILE ARGS...: record, check, print bytes per snapshot
	local name=$1 f=$2 n
	shift 2
	"$G" record --interval 0.1s --duration "$dur" -o "$T/$f" "$@" 2>"$T/err" || { cat "$T/err"; exit 1; }
	n=$(zcat -f "$T/$f" | wc -l)
	[ "$n" -eq "$N" ] || { echo "FAIL: $name: $n snapshots, asked for $N" >&2; exit 1; }
	printf '%-44s %8d bytes  %9.0f bytes/snapshot\n' "$name" "$(stat -c %s "$T/$f")" \
		"$(python3 -c "print($(stat -c %s "$T/$f") / $N)")"
}
echo "record, $N snapshots at 0.1 s"
one "this machine, gzip (run.rec)" run.rec
one "this machine, plain (run.jsonl)" run.jsonl
export GPUDOCTOR_FAKE_NVML=tests/scenarios/0001-healthy-8gpu/nvml.ini
one "8-GPU fixture host, gzip" fx.rec --root tests/scenarios/base/t0 --nvml "$FAKE"
one "8-GPU fixture host, plain" fx.jsonl --root tests/scenarios/base/t0 --nvml "$FAKE"
[ "$(head -n 1 "$T/fx.jsonl" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["gpus"]))')" = 8 ] ||
	{ echo "FAIL: the fixture recording does not hold 8 GPUs" >&2; exit 1; }
echo "processes on this machine: $(ls -d /proc/[0-9]* | wc -l)"
