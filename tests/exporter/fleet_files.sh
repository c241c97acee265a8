#!/bin/bash
# tests/exporter/fleet_files.sh - `gpudoctor fleet FILE...` on snapshot files
# recorded by `gpudoctor record` from four fake-NVML nodes (each its own
# copy of the healthy fixture tree, hostname set in it), the faults of
# fleet.sh in record's samples (0.2 s apart):
#   a  gpu1 at 1800 of 1980 MHz throughout (an outlier no rule flags)
#   b  gpu1 hot (86 C) in samples 5-9 and 15-17: gpu.thermal_throttle twice
#   c  gpu0 lost from about sample 10 on: gpu.lost, still active at the end
#   d  healthy, and a line that is not a snapshot in its file
# The tables must be: causes gpu.lost 1/1/1 and gpu.thermal_throttle 2/1/1
# (+ the no-cause row); outlier a gpu1 SM clock; drain c gpu.lost; repeat b
# gpu1; a warning naming d's bad line.  Node a's file is gzip, as record
# writes by default, with unchanged processes as references; a cut copy of
# it is read up to the cut, with a warning.  And a file that holds no snapshot
# is an error (exit 3) that names it.
set -u
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/fleet_lib.bash"
need jq
FAKE=$(dirname "$G")/fake_nvml/libnvidia-ml.so.1
[ -f "$FAKE" ] || die "$FAKE is not built (make unit)"
fleet_pair GPU-a- -- sm_clock_mhz=1800 >"$TMP/a.ini"
fleet_pair GPU-b- -- "temp_c=$(rep 5 61),$(rep 5 86),$(rep 5 61),$(rep 3 86),61" >"$TMP/b.ini"
fleet_pair GPU-c- lost_after=450 -- >"$TMP/c.ini"
fleet_pair GPU-d- -- >"$TMP/d.ini"
# the four recordings at once (each is bounded by its --duration)
rec=()
for n in a b c d; do
	cp -a "$FIX/healthy" "$TMP/root-$n"
	mkdir -p "$TMP/root-$n/proc/sys/kernel"
	echo "node-$n" >"$TMP/root-$n/proc/sys/kernel/hostname"
	GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$TMP/$n.ini "$G" record --root "$TMP/root-$n" --interval 0.2s \
		--duration 5s -o "$TMP/$n.$([ $n = a ] && echo rec || echo jsonl)" 2>"$TMP/$n.log" &
	rec+=($!)
done
i=0
for n in a b c d; do
	wait "${rec[$i]}" || die "record $n failed: $(cat "$TMP/$n.log")"
	i=$((i + 1))
done
echo '{"not": "a snapshot"' >>"$TMP/d.jsonl"
# node a as record writes by default: gzip, processes as references to the line before
[ "$(head -c 2 "$TMP/a.rec" | od -An -tx1 | tr -d ' ')" = 1f8b ] || die "a.rec is not gzip"
zcat "$TMP/a.rec" | grep -q '^{"version":2,"after":' || die "a.rec has no line with references"
"$G" fleet "$TMP"/a.rec "$TMP"/{b,c,d}.jsonl --json >"$TMP/f.json" 2>"$TMP/f.err" || die "fleet FILE... failed: $(cat "$TMP/f.err")"
J=$TMP/f.json
jqe() { jq -e "$1" "$J" >/dev/null || die "$2: $(jq -c "${3:-.}" "$J")"; }
jqe '.nodes == 4 and .gpus == 8' "nodes and GPUs" '{nodes, gpus}'
jqe '[.causes[] | select(.rule != "(no cause found)") | [.category, .rule, .onsets, .gpus, .nodes]] | sort ==
	[["GPU","gpu.lost",1,1,1], ["GPU","gpu.thermal_throttle",2,1,1]]' "cause table" '.causes'
jqe '.causes[-1].rule == "(no cause found)"' "no no-cause row last" '.causes'
jqe '[.outliers[] | [.node, .gpu, .metric]] | any(. == ["node-a","1","SM clock under load"])' "the slow GPU" '.outliers'
jqe '[.drain[] | [.node, .rule]] == [["node-c","gpu.lost"]]' "drain" '.drain'
jqe '[.repeat_offenders[] | [.node, .gpu, .onsets]] == [["node-b","1",2]]' "repeat offenders" '.repeat_offenders'
jqe '.warnings | length == 1 and (.[0].warning | test("1 lines are not snapshots, first line [0-9]+"))' "bad line" '.warnings'
# a gzip recording cut by kill -9: read up to the cut, with a warning
head -c -40 "$TMP/a.rec" >"$TMP/cut.rec"
"$G" fleet "$TMP/cut.rec" --json >"$TMP/cut.json" 2>"$TMP/cut.err" || die "fleet of a cut recording failed: $(cat "$TMP/cut.err")"
jq -e '.nodes == 1 and any(.warnings[]; .warning | test("gzip data ends early"))' "$TMP/cut.json" >/dev/null ||
	die "cut recording: $(jq -c '{nodes, warnings}' "$TMP/cut.json")"
printf 'garbage\n' >"$TMP/bad.jsonl"
"$G" fleet "$TMP/a.rec" "$TMP/bad.jsonl" >"$TMP/bad.out" 2>&1 && die "a file without snapshots passed"
grep -q "bad.jsonl: no snapshot in it (line 1" "$TMP/bad.out" || die "the error does not name the file: $(cat "$TMP/bad.out")"
"$G" fleet "$TMP/a.rec" --prometheus http://127.0.0.1:1 >/dev/null 2>&1 && die "files and --prometheus together passed"
echo "ok: $(jq -c '[.causes[] | [.rule, .onsets, .gpus, .nodes]]' "$J")"
