#!/bin/bash
# tests/timeline/line_cap.sh - the readers of snapshot lines (report,
# fleet FILE, fleet --job FILE) take lines up to 64 MiB (GD_LINE_MAX, src/model/recording.h:
# a 1,000-process node writes 871 KB) and say so past it, at a peak RSS of
# about the cap: a gzip file of 0.9 MB holding one 200 MiB line (zeros
# through gzip, made here) was read whole by getline(3) before the parser
# refused it (a 2 GB line took 4 GB).  A plain file of a line just under
# the cap followed by a snapshot is read on to the snapshot.
. "$(dirname "$0")/lib.sh"
need gzip jq python3
work=$(mktemp -d "${TMPDIR:-/tmp}/gd-linecap.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
# a sanitizer build keeps shadow memory and freed blocks: bounds x 3
x=1
grep -qa __asan_init "$GPUDOCTOR" && x=3
head -c $((200 << 20)) /dev/zero | gzip -1 >"$work/bomb.jsonl.gz" || die "gzip failed"
# peak NAME WANT-RC MAX-KIB ARGS...: gpudoctor ARGS, its exit status and peak RSS
peak() {
	local name=$1 want=$2 max=$3 out
	shift 3
	out=$(python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=open(sys.argv[1], "w"))
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$work/$name.err" "$GPUDOCTOR" "$@") ||
		die "$name: the wrapper failed"
	set -- $out
	[ "$1" = "$want" ] || die "$name: exit $1, want $want: $(head -c 400 "$work/$name.err")"
	[ "$2" -le $((max * x)) ] || die "$name: peak RSS $2 KiB, more than $((max * x)) KiB"
	echo "$name: exit $1, peak RSS $2 KiB"
}
msg='bomb.jsonl.gz:1: a line longer than 64 MiB, more than any snapshot takes: not a gpudoctor recording'
peak report 3 163840 report "$work/bomb.jsonl.gz" --json
grep -qF "$msg" "$work/report.err" || die "report: $(head -c 400 "$work/report.err")"
peak fleet 3 163840 fleet "$work/bomb.jsonl.gz"
grep -qF "$msg" "$work/fleet.err" || die "fleet: $(head -c 400 "$work/fleet.err")"
peak fleet_job 3 163840 fleet --job any "$work/bomb.jsonl.gz"
grep -qF "$msg" "$work/fleet_job.err" || die "fleet --job: $(head -c 400 "$work/fleet_job.err")"
# under the cap: a blank line of 60 MiB, then a snapshot, is one snapshot
{
	head -c $((60 << 20)) /dev/zero | tr '\0' ' '
	echo
	"$GPUDOCTOR" snapshot --root "$repo/tests/scenarios/base/t0" 2>/dev/null
} >"$work/long.jsonl"
"$GPUDOCTOR" report "$work/long.jsonl" --json >"$work/long.json" 2>"$work/long.err" ||
	die "a 60 MiB line: report failed: $(head -c 400 "$work/long.err")"
jq -e '.samples == 1' "$work/long.json" >/dev/null || die "a 60 MiB line: $(jq -c '.samples' "$work/long.json")"
echo "ok: a line over 64 MiB is refused with the cap named; one under it is read"
