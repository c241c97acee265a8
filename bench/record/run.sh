#!/bin/bash
# bench/record/run.sh [N [INTERVAL]] - bytes per snapshot on disk of
# `gpudoctor record`, N snapshots (default 30) at INTERVAL (default 1s, as
# record's own default): gzip (the default) and plain JSON lines (a .jsonl
# name), each with processes and threads unchanged since the line before
# written as their pid or tid (the default, a whole line every 60) and with
# every line whole (--full-every 1, what record wrote before).  The four
# recorders of a host run at once, so they see the same processes.  Hosts:
# this machine; this machine with 1,000 more processes that sleep (and 20
# that burn a little CPU each second), as a node full of DataLoader
# workers and daemons is; and the 8-GPU fixture host (tests/scenarios/base/t0
# with the fake NVML's 0001-healthy-8gpu: eight H100s, a tree that does not
# change, so the best case).  Each recording is checked: N lines (zcat -f),
# and `report --json` reads N samples of it.  The issue's target: under 10 KB a snapshot on disk.
set -eu
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
G=${GPUDOCTOR:-$B/gpudoctor}
FAKE=$(dirname "$G")/fake_nvml/libnvidia-ml.so.1
N=${1:-30}
IV=${2:-1s}
T=$(mktemp -d)
kids=()
trap 'kill "${kids[@]}" 2>/dev/null; rm -rf "$T"' EXIT
[ -x "$G" ] && [ -f "$FAKE" ] || { echo "build first: make all unit" >&2; exit 1; }
ivs=$(python3 -c "import re,sys; m=re.fullmatch(r'([0-9.]+)(ms|s)', '$IV'); print(float(m[1]) / (1000 if m[2] == 'ms' else 1))")
dur=$(python3 -c "print($N * $ivs - $ivs / 2)")s
host() { # NAME ARGS...: four recorders at once, then a row each
	local name=$1 f n s
	shift
	local pids=()
	for f in ref.rec ref.jsonl whole.rec whole.jsonl; do
		local extra=()
		case $f in whole.*) extra=(--full-every 1) ;; esac
		"$G" record --interval "$IV" --duration "$dur" -o "$T/$f" "$@" "${extra[@]}" 2>"$T/$f.err" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || { cat "$T"/*.err; exit 1; }; done
	for f in ref.rec whole.rec ref.jsonl whole.jsonl; do
		n=$(zcat -f "$T/$f" | wc -l)
		[ "$n" -eq "$N" ] || { echo "FAIL: $name $f: $n snapshots, asked for $N" >&2; exit 1; }
		s=$("$G" report "$T/$f" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"])')
		[ "$s" -eq "$N" ] || { echo "FAIL: $name $f: report read $s samples of $N" >&2; exit 1; }
		printf '%-40s %-12s %10d bytes %9.0f bytes/snapshot\n' "$name" "$f" "$(stat -c %s "$T/$f")" \
			"$(python3 -c "print($(stat -c %s "$T/$f") / $N)")"
	done
	rm -f "$T"/*.rec "$T"/*.jsonl
}
echo "record, $N snapshots at $IV; ref = unchanged processes as their pids (default), whole = --full-every 1"
host "this machine ($(ls -d /proc/[0-9]* | wc -l) processes)"
for i in $(seq 1000); do sleep 600 & kids+=($!); done
for i in $(seq 20); do (while :; do timeout 0.05 sh -c 'while :; do :; done'; sleep 1; done) & kids+=($!); done
host "this machine + 1000 sleeping, 20 busy"
kill "${kids[@]}" 2>/dev/null
wait 2>/dev/null
kids=()
export GPUDOCTOR_FAKE_NVML=tests/scenarios/0001-healthy-8gpu/nvml.ini
host "8-GPU fixture host (static tree)" --root tests/scenarios/base/t0 --nvml "$FAKE"
