#!/bin/bash
# bench/paste/run.sh [LINES] - how long `gpudoctor check --from` takes on a
# big mixed ticket paste, side by side with what a person would run instead
# (grep for the usual suspects) and with cat of the same file.
#
#   BUILD=build bench/paste/run.sh            (LINES default 50,000)
#
# The paste is made of real third-party samples (tests/offline/real/ and the
# job-log fixtures tests/offline/01NN-*, sources in their MANIFEST.md files):
# job logs (NCCL INFO, watchdog time-outs, OOM tracebacks, DataLoader
# errors), kernel-log lines, nvidia-smi -q fragments, lspci lines and
# nvidia-smi failures, in rounds with the prose and prompts of a ticket
# between them, repeated up to LINES lines.  Every run's exit status and
# output are checked (check must exit 1 or 2 and name the rules the samples
# prove; grep must count the lines the generator counted): a crash or a
# wrong answer fails the bench instead of reading as a fast time.
# Reports wall seconds (median of RUNS, default 5) and peak RSS.
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
G=$PWD/$BUILD/gpudoctor
LINES=${1:-50000}
RUNS=${RUNS:-5}
[ -x "$G" ] || { echo "bench: no binary at $G (make all)"; exit 1; }
command -v jq >/dev/null || { echo "bench: jq is missing"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/gd-paste.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
F=$T/ticket.txt

samples=()
for f in tests/offline/real/job-log/*.txt tests/offline/real/kernel-log/*.txt tests/offline/real/smi-q-fragment/*.txt \
	tests/offline/real/lspci/*.txt tests/offline/real/smi-failure/*.txt tests/offline/01[0-9][0-9]-*/*.log; do
	[ -f "$f" ] && samples+=("$f")
done
[ ${#samples[@]} -ge 10 ] || { echo "bench: only ${#samples[@]} samples found"; exit 1; }
n=0 round=0
: >"$F"
while [ "$n" -lt "$LINES" ]; do
	round=$((round + 1))
	for f in "${samples[@]}"; do
		printf '\nHi team, round %d on node %d: here is %s from the failing run.\n$ cat %s\n' \
			"$round" "$((round % 64))" "$(basename "$f")" "$(basename "$f")" >>"$F"
		cat "$f" >>"$F"
		n=$(wc -l <"$F")
		[ "$n" -ge "$LINES" ] && break
	done
done
head -n "$LINES" "$F" >"$T/t" && mv "$T/t" "$F"
lines=$(wc -l <"$F")
bytes=$(wc -c <"$F")
want_nvrm=$(grep -c 'NVRM' "$F")

# median of RUNS wall times, peak RSS of the last run; each run checked
measure() { # name check-function command...
	local name=$1 chk=$2 i t0 t1 times=() rss
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	$chk $? || { echo "FAIL: $name: $(head -c 300 "$T/err")"; exit 1; }
	for i in $(seq "$RUNS"); do
		t0=$(date +%s.%N)
		/usr/bin/time -f %M -o "$T/rss" "$@" >"$T/out" 2>"$T/err"
		local rc=$?
		t1=$(date +%s.%N)
		$chk $rc || { echo "FAIL: $name (run $i, exit $rc): $(head -c 300 "$T/err")"; exit 1; }
		times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')")
	done
	rss=$(tail -n 1 "$T/rss")
	printf '%-44s %8.3f s   %8d KiB\n' "$name" "$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p")" "$rss"
}
chk_check() {
	[ "$1" = 1 ] || [ "$1" = 2 ] || return 1
	jq -e '[.findings[].id] | (index("job.collective_timeout") != null) and (index("gpu.memory_full") != null) and (index("gpu.lost") != null)' "$T/out" >/dev/null
}
chk_text() { [ "$1" = 1 ] || [ "$1" = 2 ]; }
chk_grep() { [ "$1" = 0 ] && [ "$(cat "$T/out")" = "$want_nvrm" ]; }
chk_cat() { [ "$1" = 0 ] && [ "$(wc -c <"$T/out")" = "$bytes" ]; }

echo "paste: $lines lines, $bytes bytes, ${#samples[@]} real samples in $round rounds; $RUNS runs each (median wall, peak RSS)"
measure "gpudoctor check --from ticket.txt --json" chk_check "$G" check --json --nvml /nonexistent --from "$F"
measure "gpudoctor check --from ticket.txt (text)" chk_text "$G" check --no-color --nvml /nonexistent --from "$F"
measure "grep -c NVRM ticket.txt" chk_grep grep -c NVRM "$F"
measure "cat ticket.txt" chk_cat cat "$F"
echo "findings: $("$G" check --json --nvml /nonexistent --from "$F" | jq -r '[.findings[] | .id] | group_by(.) | map("\(.[0])×\(length)") | join(", ")')"
