#!/bin/bash
# bench/report/run.sh - what `gpudoctor report` costs on long recordings of
# an 8-GPU node, and how big its HTML page is.
#
#   BUILD=build bench/report/run.sh [HOURS...]     (default: 1 4, at 1 s)
#   OLD=/path/to/older/gpudoctor bench/report/run.sh 1   (a row for it too)
#
# Each recording is tests/timeline/gen_recording.py's "day" scenario (8 H100s,
# every 30 min a checkpoint stall of every GPU, gpu2 slowed for an hour when
# the span holds it, one single-sample stall of gpu6 at 12 h) at 1 s for
# HOURS.  Per row: samples, the recording's size, the report's wall time and
# peak RSS (GNU time), and the page's size.  The page is drawn from 1024-bin
# envelopes, so its size stays about the same whatever the length; report
# streams the recording (a ring of 600 snapshots, a few bytes per sample for
# the episodes, bounded envelopes), so its RSS stays about the same too and
# its time grows with the snapshots parsed.  24 h at 1 s is 86,400 snapshots
# (`bench/report/run.sh 24`; with OLD= an older binary holds all of them).
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
GPUDOCTOR=${GPUDOCTOR:-$repo/$BUILD/gpudoctor}
FAKE_NVML=$(dirname "$GPUDOCTOR")/fake_nvml/libnvidia-ml.so.1
[ -x "$GPUDOCTOR" ] && [ -f "$FAKE_NVML" ] || { echo "build first: make all unit"; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "GNU time is missing (apt-get install time)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/gd-bench-report.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
tree=$work/root
cp -a "$repo/tests/scenarios/base/t0" "$tree"
while IFS= read -r d; do [ -n "$d" ] && mkdir -p "$tree/$d"; done <"$repo/tests/scenarios/emptydirs"
GPUDOCTOR_NVML=$FAKE_NVML GPUDOCTOR_FAKE_NVML=$repo/tests/scenarios/0001-healthy-8gpu/nvml.ini \
	"$GPUDOCTOR" snapshot --root "$tree" >"$work/tpl.json" || exit 1
export TZ=UTC
printf '%-10s %-8s %9s %12s %10s %12s %10s\n' binary hours samples "jsonl MB" "wall s" "peak RSS MB" "page KB"
for h in ${@:-1 4}; do
	python3 "$repo/tests/timeline/gen_recording.py" "$work/tpl.json" day "$work/r.jsonl" 1 "$h" || exit 1
	n=$(wc -l <"$work/r.jsonl")
	mb=$(( $(stat -c %s "$work/r.jsonl") / 1000000 ))
	for bin in "$GPUDOCTOR" ${OLD:+"$OLD"}; do
		/usr/bin/time -f '%e %M' -o "$work/time" "$bin" report "$work/r.jsonl" -o "$work/r.html" 2>/dev/null ||
			{ echo "report failed"; exit 1; }
		read -r wall rss <"$work/time"
		printf '%-10s %-8s %9s %12s %10s %12s %10s\n' "$([ "$bin" = "$GPUDOCTOR" ] && echo this || echo old)" "$h" \
			"$n" "$mb" "$wall" $((rss / 1024)) $(( $(stat -c %s "$work/r.html") / 1000 ))
	done
done
