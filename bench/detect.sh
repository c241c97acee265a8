#!/bin/bash
# bench/detect.sh - how long `gpudoctor serve` takes to show a fault (issue
# 29): from the moment it happens until /findings and /metrics say so, at
# --interval 1s and 5s (INTERVALS), REPS times each (default 3; median and
# worst printed).
#
#   BUILD=build bench/detect.sh            (needs curl, jq; make unit for the fake NVML)
#
# Two faults, on a copy of tests/scenarios/base/t0 (a healthy 4-GPU
# training host) served with --root and the fake NVML (tests/fake_nvml):
#   xid:  an "NVRM: Xid (PCI:0000:1b:00): 79, ... GPU has fallen off the bus"
#         record appended to the root's dev/kmsg (a regular file here; the
#         live /dev/kmsg only with BENCH_REAL_KMSG=1, which writes the line
#         into this host's kernel log: other tools on the host will see a
#         fake Xid 79) until /findings lists gpu.xid or gpu.lost and
#         /metrics has a gpudoctor_finding line for it;
#   lost: gpu0 answers NVML_ERROR_GPU_IS_LOST (the fake's load_file made
#         non-empty) until gpu.lost is in /findings and /metrics.
# The root's proc/uptime is rewritten every 0.1 s so that its snapshots
# advance as a host's do.  Times are wall seconds measured with curl polls
# every 50 ms; the CPU the server spent over the run is printed beside them.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=bench/lib.sh
. bench/lib.sh
BUILD=${BUILD:-build}
G=${GPUDOCTOR:-$PWD/$BUILD/gpudoctor}
FAKE=$(dirname "$G")/fake_nvml/libnvidia-ml.so.1
REPS=${REPS:-3}
INTERVALS=${INTERVALS:-"1s 5s"}
[ -x "$G" ] && [ -f "$FAKE" ] || { echo "bench: build first (make all unit)" >&2; exit 1; }
for c in curl jq; do command -v $c >/dev/null || { echo "bench: $c is missing" >&2; exit 1; }; done
T=$(mktemp -d /tmp/gd-detect.XXXXXX) || exit 1
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT INT TERM

R=$T/root
cp -a tests/scenarios/base/t0 "$R" || exit 1
while IFS= read -r d; do [ -n "$d" ] && mkdir -p "$R/$d"; done <tests/scenarios/emptydirs
KMSG=$R/dev/kmsg
if [ "${BENCH_REAL_KMSG:-0}" = 1 ]; then
	R=/ KMSG=/dev/kmsg
	echo "BENCH_REAL_KMSG=1: writing a fake Xid 79 into this host's kernel log"
fi
# gpu0 is lost while $T/lose is not empty
awk -v f="$T/lose" '{ print } /^\[gpu0\]/ { print "load_file = " f; print "load.lost = 1" }' \
	tests/scenarios/base/nvml.ini >"$T/nvml.ini"
: >"$T/lose"
export GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$T/nvml.ini
up0=$(awk '{ print $1 }' "$R/proc/uptime") t00=$(date +%s.%N)
if [ "$R" != / ]; then
	( while :; do
		awk -v u="$up0" -v a="$t00" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f 4386.56\n", u + b - a }' >"$T/up.tmp" &&
			mv "$T/up.tmp" "$R/proc/uptime"
		sleep 0.1
	done ) &
	PIDS+=($!)
fi

bench_load_start
now() { date +%s.%N; }
# seen ADDR RULE: /findings lists RULE and /metrics has a finding line for it
seen() {
	curl -sf -m 2 "http://$1/findings" | jq -e --arg r "$2" '[.findings[]? | select(.id == $r)] | length > 0' >/dev/null &&
		curl -sf -m 2 "http://$1/metrics" | grep -q "rule=\"$2\""
}
# wait_for ADDR RULE...: seconds until one of the rules is seen (60 s at most)
wait_for() {
	local a=$1 t0 r
	shift
	t0=$(now)
	while awk -v a="$t0" -v b="$(now)" 'BEGIN { exit !(b - a < 60) }'; do
		for r in "$@"; do
			seen "$a" "$r" && { awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f\n", b - a }'; return 0; }
		done
		sleep 0.05
	done
	echo timeout
}
stats() { sort -g | awk '{ v[NR] = $1 } END { printf "median %s s, worst %s s (%d runs)", v[int((NR + 1) / 2)], v[NR], NR }'; }

seq=2000
[ "$R" != / ] && cp "$KMSG" "$T/kmsg.orig"
cpu=0 wall=0
# one_run INTERVAL FAULT: a fresh server (what it saw stays in its window),
# healthy first, then FAULT (xid or lost); prints the seconds until served.
one_run() {
	local iv=$1 addr="" pid c0 c1 w0 w1 i us r
	[ "$R" != / ] && cp "$T/kmsg.orig" "$KMSG"
	: >"$T/lose"
	"$G" serve --root "$R" --listen 127.0.0.1:0 --interval "$iv" 2>"$T/serve.log" &
	pid=$!
	for i in $(seq 100); do addr=$(grep -o '127\.0\.0\.1:[0-9]*' "$T/serve.log" | head -n 1) && [ -n "$addr" ] && break; sleep 0.1; done
	[ -n "$addr" ] || { cat "$T/serve.log" >&2; echo "bench: serve did not start" >&2; kill "$pid"; return 1; }
	until curl -sf -m 2 "http://$addr/findings" | jq -e '.findings' >/dev/null 2>&1; do sleep 0.2; done
	sleep "${iv%s}"   # its window filled
	if seen "$addr" gpu.xid || seen "$addr" gpu.lost; then echo "bench: not healthy at the start" >&2; kill "$pid"; return 1; fi
	c0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat") w0=$(now)
	if [ "$2" = xid ]; then
		us=$(awk '{ printf "%d", $1 * 1e6 }' "$R/proc/uptime")
		seq=$((seq + 1))
		printf '3,%d,%s,-;NVRM: Xid (PCI:0000:1b:00): 79, pid=4242, name=python, GPU has fallen off the bus.\n' \
			"$seq" "$us" >>"$KMSG"
		r=$(wait_for "$addr" gpu.xid gpu.lost)
	else
		echo 1 >"$T/lose"
		r=$(wait_for "$addr" gpu.lost)
	fi
	c1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat") w1=$(now)
	kill "$pid"
	wait "$pid" 2>/dev/null
	echo "$r $((c1 - c0)) $(awk -v a="$w0" -v b="$w1" 'BEGIN { print b - a }')"
}
for iv in $INTERVALS; do
	xs=() ls=() cpu=0 wall=0
	for ((k = 0; k < REPS; k++)); do
		for f in xid lost; do
			read -r r c w < <(one_run "$iv" "$f") || exit 1
			[ -n "${r:-}" ] || exit 1
			if [ "$f" = xid ]; then xs+=("$r"); else ls+=("$r"); fi
			cpu=$((cpu + c)) wall=$(awk -v a="$wall" -v b="$w" 'BEGIN { print a + b }')
		done
	done
	echo "serve --interval $iv:"
	echo "  Xid 79 line -> /findings and /metrics: $(printf '%s\n' "${xs[@]}" | stats)"
	echo "  GPU lost (NVML) -> gpu.lost served:    $(printf '%s\n' "${ls[@]}" | stats)"
	awk -v c="$cpu" -v hz="$(getconf CLK_TCK)" -v w="$wall" \
		'BEGIN { printf "  server CPU while it waited: %.3f s in %.1f s wall\n", c / hz, w }'
done
[ "$R" != / ] || echo "(the fake Xid 79 stays in this host's kernel log)"
