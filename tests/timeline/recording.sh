#!/bin/bash
# tests/timeline/recording.sh - the recording file (src/model/recording.c)
# through the binary: `record` writes gzip by default and plain JSON lines
# for a name ending in .jsonl; zcat reads the gzip one and `report` both;
# appending adds a gzip member; a recording killed with SIGKILL, or cut
# mid-line, or whose gzip data ends early, loads with a note and loses at
# most its last snapshot; --max-size rotates to FILE.1 and both load.
# Exit 0 pass, 77 skip, anything else fails.
. "$(dirname "$0")/lib.sh"
need jq zcat
T=$(mktemp -d "${TMPDIR:-/tmp}/gd-rec.XXXXXX") || die "mktemp"
trap 'rm -rf "$T"' EXIT
ROOT=$repo/tests/scenarios/base/t0
rec() { "$GPUDOCTOR" record --root "$ROOT" --nvml "$FAKE_NVML" --interval 0.05s "$@" 2>"$T/rec.err"; }
lines() { "$GPUDOCTOR" report --text "$1" 2>"$T/rep.err" | sed -n 's/.* \([0-9][0-9]*\) samples over.*/\1/p'; }

# gzip by default; plain for .jsonl
rec -o "$T/a.rec" --duration 0.5s || die "record a.rec: $(cat "$T/rec.err")"
[ "$(head -c 2 "$T/a.rec" | od -An -tx1 | tr -d ' ')" = 1f8b ] || die "a.rec is not gzip"
grep -q "(gzip)" "$T/rec.err" || die "record does not say gzip: $(cat "$T/rec.err")"
n=$(zcat "$T/a.rec" | wc -l)
[ "$n" -ge 5 ] || die "zcat a.rec: $n lines"
zcat "$T/a.rec" | head -n 1 | jq -e .mem.total_bytes >/dev/null || die "zcat a.rec: not snapshot lines"
[ "$(lines "$T/a.rec")" = "$n" ] || die "report a.rec: $(lines "$T/a.rec") samples, zcat has $n"
rec -o "$T/b.jsonl" --duration 0.3s || die "record b.jsonl"
head -n 1 "$T/b.jsonl" | jq -e .mem >/dev/null || die "b.jsonl is not plain JSON lines"
# appending to a gzip recording: a second member, read as one
rec -o "$T/a.rec" --duration 0.3s || die "record a.rec again"
m=$(zcat "$T/a.rec" | wc -l)
[ "$m" -gt "$n" ] || die "appending: $m lines after $n"
[ "$(lines "$T/a.rec")" = "$m" ] || die "report of two members: $(lines "$T/a.rec") of $m"

# SIGKILL mid-run: what was flushed loads; at most the last snapshot is lost
"$GPUDOCTOR" record --root "$ROOT" --nvml "$FAKE_NVML" --interval 0.1s --duration 60s -o "$T/k.rec" 2>/dev/null &
pid=$!
sleep 1.5
kill -9 "$pid" 2>/dev/null
{ wait "$pid"; } 2>/dev/null
k=$(lines "$T/k.rec")
[ -n "$k" ] && [ "$k" -ge 5 ] || die "report of a killed recording: '$k' samples ($(cat "$T/rep.err"))"

# cut mid-line (plain) and gzip data that ends early: a note, the rest loads
full=$(wc -l <"$T/b.jsonl")
head -c $(($(stat -c %s "$T/b.jsonl") - 100)) "$T/b.jsonl" >"$T/cut.jsonl"
c=$(lines "$T/cut.jsonl")
[ "$c" = $((full - 1)) ] || die "cut.jsonl: $c samples, want $((full - 1))"
grep -q "the last line is cut" "$T/rep.err" || die "no note for the cut line: $(cat "$T/rep.err")"
head -c $(($(stat -c %s "$T/a.rec") * 2 / 3)) "$T/a.rec" >"$T/cut.gz"
c=$(lines "$T/cut.gz")
[ -n "$c" ] && [ "$c" -ge 1 ] || die "cut.gz does not load: $(cat "$T/rep.err")"
grep -q "gzip data ends early" "$T/rep.err" || die "no note for the cut gzip data: $(cat "$T/rep.err")"
# check --from reads the gzip recording too
"$GPUDOCTOR" check --from "$T/a.rec" --json >"$T/check.json" 2>"$T/check.err"
[ $? -le 2 ] || die "check --from a.rec: $(cat "$T/check.err")"

# rotation: at 64 KiB the file becomes FILE.1 and a new one starts
rec -o "$T/r.jsonl" --duration 1s --max-size 64k || die "record --max-size: $(cat "$T/rec.err")"
[ -f "$T/r.jsonl.1" ] || die "no r.jsonl.1 after --max-size 64k ($(ls -la "$T"))"
grep -q "rotated" "$T/rec.err" || die "record does not say it rotated: $(cat "$T/rec.err")"
[ "$(stat -c %s "$T/r.jsonl.1")" -lt $((64 * 1024 + 200000)) ] || die "r.jsonl.1 is $(stat -c %s "$T/r.jsonl.1") bytes"
"$GPUDOCTOR" report --text "$T/r.jsonl.1" "$T/r.jsonl" >/dev/null 2>"$T/rep.err" || die "report FILE.1 FILE: $(cat "$T/rep.err")"
"$GPUDOCTOR" record -o "$T/x" --max-size 12 2>"$T/rec.err" && die "--max-size 12 was accepted"
grep -q "max-size" "$T/rec.err" || die "no clear error for --max-size 12: $(cat "$T/rec.err")"
echo "ok: gzip and plain recordings, append, kill -9, cut line, cut gzip, rotation"
