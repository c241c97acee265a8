#!/bin/bash
# tests/timeline/episodes.sh - a series from the fake NVML (one scenario per
# instant, lib.sh) gives exactly the expected episodes, causes and period,
# through `report --json` and `report --text`; and `record` writes one
# flushed line per interval and stops on SIGTERM.
. "$(dirname "$0")/lib.sh"
need jq
work=$(mktemp -d "${TMPDIR:-/tmp}/gd-episodes.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
make_series "$work/s.jsonl"
"$GPUDOCTOR" report "$work/s.jsonl" --json >"$work/r.json" || die "report --json failed"
got=$(jq -c '[.episodes[] | [.start_uptime_s, .duration_s, .gpus, .kind, .cause, .open]]' "$work/r.json")
want='[[5005,4,[0,1],"idle","io.checkpoint_stall",false],[5015,4,[0,1],"idle","io.checkpoint_stall",false],[5021,2,[1],"slowed","gpu.straggler",false],[5025,4,[0,1],"idle","io.checkpoint_stall",false],[5035,4,[0,1],"idle","io.checkpoint_stall",false]]'
[ "$got" = "$want" ] || die "episodes: got $got, want $want"
got=$(jq -c '[.periodic, .period_s, .period_cause]' "$work/r.json")
[ "$got" = '[true,10,"io.checkpoint_stall"]' ] || die "period: got $got"
got=$(jq -c '[.gpus[] | [.index, .episodes, .stalled_s]]' "$work/r.json")
[ "$got" = '[[0,4,16],[1,5,18]]' ] || die "per-GPU counters: got $got"
got=$(jq -r '[.diagnosis.findings[] | "\(.id) \(.subject)"] | join(";")' "$work/r.json")
[ "$got" = "io.checkpoint_stall sda" ] || die "findings over the whole series: got $got"
"$GPUDOCTOR" report "$work/s.jsonl" --text >"$work/r.txt" || die "report --text failed"
grep -q '^episodes: 5, io.checkpoint_stall every 10.0 s' "$work/r.txt" || die "text: no period line: $(head -5 "$work/r.txt")"
[ "$(grep -c ' +4.0 s gpu0-1 idle - io.checkpoint_stall: Every GPU was idle for 4.0 s' "$work/r.txt")" = 4 ] ||
	die "text: not four checkpoint episodes"
# Two snapshots: the series rule is not evaluated, and no episode spans them.
head -n 2 "$work/s.jsonl" >"$work/two.jsonl"
"$GPUDOCTOR" check --from "$work/two.jsonl" --json >"$work/c.json"
jq -e '.not_evaluated[] | select(.rule == "io.checkpoint_stall" and (.reason | test("three or more")))' \
	"$work/c.json" >/dev/null || die "check over two snapshots evaluated io.checkpoint_stall"

# record: one line per interval, every line a snapshot, a clean stop on SIGTERM.
GPUDOCTOR_NVML=$FAKE_NVML GPUDOCTOR_FAKE_NVML=$repo/tests/timeline/stall.ini \
	"$GPUDOCTOR" record -o "$work/rec.jsonl" --interval 100ms --duration 1s 2>"$work/rec.err" || die "record failed"
[ "$(wc -l <"$work/rec.jsonl")" = 11 ] || die "record --duration 1s --interval 100ms wrote $(wc -l <"$work/rec.jsonl") lines, not 11"
jq -e -s 'length == 11 and all(.[]; .gpus | length == 2)' "$work/rec.jsonl" >/dev/null || die "recorded lines are not snapshots with 2 GPUs"
GPUDOCTOR_NVML=$FAKE_NVML GPUDOCTOR_FAKE_NVML=$repo/tests/timeline/stall.ini \
	"$GPUDOCTOR" record -o "$work/sig.jsonl" --interval 100ms --duration 0 2>"$work/sig.err" &
pid=$!
sleep 0.8
kill -TERM $pid
wait $pid || die "record exited $? on SIGTERM"
grep -q "stopped by a signal" "$work/sig.err" || die "record did not say it stopped: $(cat "$work/sig.err")"
n=$(wc -l <"$work/sig.jsonl")
[ "$n" -ge 3 ] && jq -e -s 'length > 2' "$work/sig.jsonl" >/dev/null || die "record before SIGTERM: $n lines"
"$GPUDOCTOR" record --interval 1s 2>/dev/null && die "record without -o succeeded"
echo "ok: 5 exact episodes, period 10 s, per-GPU counters, record stops on SIGTERM"
