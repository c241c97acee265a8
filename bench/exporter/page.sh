#!/bin/bash
# bench/exporter/page.sh - what the node page (serve GET /) costs, measured
# side by side so that a busy machine weighs on every variant alike: four
# `gpudoctor serve --interval 1s` at once, each scraped once a second for
# DURATION seconds (default 60): BASE (another build, e.g. the main
# branch's; left out when unset), this build with the page never opened,
# with --no-page, and with the page opened every 2 s (Accept-Encoding: gzip,
# as a browser left open).  Prints CPU ms per cycle and VmRSS/VmHWM at the
# end, and the load average.
#
#   BASE=/path/to/old/gpudoctor bench/exporter/page.sh [DURATION]
set -u
cd "$(dirname "$0")/../.."
G=${GPUDOCTOR:-$PWD/${BUILD:-build}/gpudoctor}
D=${1:-60}
TMP=$(mktemp -d /tmp/gd-bench-page.XXXXXX)
declare -A P A T0
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
HZ=$(getconf CLK_TCK)
start() { "$2" serve --listen 127.0.0.1:0 --interval 1s "${@:3}" 2>"$TMP/$1.log" & P[$1]=$! PIDS+=($!); }
names=()
[ -n "${BASE:-}" ] && { start base "$BASE"; names+=(base); }
start never "$G"
start no-page "$G" --no-page
start page-2s "$G"
names+=(never no-page page-2s)
for k in "${names[@]}"; do
	for i in $(seq 50); do
		A[$k]=$(grep -o '127\.0\.0\.1:[0-9]*' "$TMP/$k.log" | head -n 1) && [ -n "${A[$k]}" ] && break
		sleep 0.1
	done
	[ -n "${A[$k]}" ] || { echo "$k did not start: $(cat "$TMP/$k.log")"; exit 1; }
done
while :; do curl -s -m 5 -H 'Accept-Encoding: gzip' -o /dev/null "http://${A[page-2s]}/"; sleep 2; done &
PIDS+=($!)
sleep 3
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for k in "${names[@]}"; do T0[$k]=$(ticks "${P[$k]}"); done
for i in $(seq "$D"); do
	for k in "${names[@]}"; do curl -s -m 5 -o /dev/null "http://${A[$k]}/metrics"; done
	sleep 1
done
printf '%s\n' "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $D s, one scrape a second each"
printf '%-10s %16s %12s %12s\n' "" "CPU ms / second" "VmRSS KiB" "VmHWM KiB"
for k in "${names[@]}"; do
	awk -v k="$k" -v t=$(($(ticks "${P[$k]}") - T0[$k])) -v hz="$HZ" -v d="$D" \
		-v r="$(awk '/^VmRSS/{print $2}' "/proc/${P[$k]}/status")" -v h="$(awk '/^VmHWM/{print $2}' "/proc/${P[$k]}/status")" \
		'BEGIN {printf "%-10s %16.1f %12s %12s\n", k, t / hz / d * 1000, r, h}'
done
