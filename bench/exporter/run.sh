#!/bin/bash
# bench/exporter/run.sh - gpudoctor serve against prometheus-node-exporter on
# this machine, in one run, on loopback.
#
#   bench/exporter/run.sh [STEADY_SCRAPES] [BURST_SCRAPES]   (default 30 1000)
#
# node_exporter is restricted to the collectors that read what gpudoctor
# reads: cpu, stat, loadavg, pressure, meminfo, vmstat, diskstats, netdev,
# netclass, netstat, interrupts, cpufreq, thermal_zone, hwmon, infiniband,
# filesystem, processes (every /proc/<pid>, as gpudoctor's process scan) and
# uname.  Two phases:
#   steady: one scrape of each per second for STEADY_SCRAPES seconds, with
#           gpudoctor sampling every 1 s on its own (so its figure includes a
#           whole collection cycle and the rules per scrape);
#   burst:  BURST_SCRAPES back-to-back scrapes over one keep-alive connection
#           (curl): latency p50/p99 and scrapes per second; then again with
#           Accept-Encoding: gzip, as Prometheus scrapes (both compress).
# CPU is utime+stime of /proc/<pid>/stat over the phase; RSS is VmRSS (and
# the peak, VmHWM) of /proc/<pid>/status at the end.
# PAGE_EVERY=2 (seconds): a browser's worth of GET / (the node page, with
# Accept-Encoding: gzip, as a browser fetches it) every 2 s through both
# phases, as a page left open does; unset, the page is never opened.
set -u
cd "$(dirname "$0")/../.."
G=${GPUDOCTOR:-$PWD/${BUILD:-build}/gpudoctor}
NE=$(command -v prometheus-node-exporter || command -v node_exporter) ||
	{ echo "prometheus-node-exporter is not installed (scripts/deps.sh)"; exit 77; }
STEADY=${1:-30} BURST=${2:-1000}
TMP=$(mktemp -d /tmp/gd-bench.XXXXXX)
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
HZ=$(getconf CLK_TCK)
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_load_start   # the figures below mean little when this says BUSY

"$G" serve --listen 127.0.0.1:0 --interval 1s 2>"$TMP/gd.log" &
PIDS+=($!) GD=$!
for i in $(seq 50); do
	GA=$(grep -o '127\.0\.0\.1:[0-9]*' "$TMP/gd.log" | head -n 1) && [ -n "$GA" ] && break
	sleep 0.1
done
for try in 1 2 3; do
	port=$((20000 + RANDOM % 40000))
	ss -Hltn "sport = :$port" | grep -q . && continue
	"$NE" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
		--collector.cpu --collector.stat --collector.loadavg --collector.pressure --collector.meminfo \
		--collector.vmstat --collector.diskstats --collector.netdev --collector.netclass --collector.netstat \
		--collector.interrupts --collector.cpufreq --collector.thermal_zone --collector.hwmon \
		--collector.infiniband --collector.filesystem --collector.processes --collector.uname \
		--log.level=warn 2>"$TMP/ne.log" &
	PIDS+=($!) NE_PID=$!
	for i in $(seq 50); do
		curl -sf -m 1 -o /dev/null "http://127.0.0.1:$port/metrics" && { NA=127.0.0.1:$port; break; }
		sleep 0.1
	done
	[ -n "${NA:-}" ] && break
done
[ -n "${GA:-}" ] && [ -n "${NA:-}" ] || { echo "could not start both exporters"; cat "$TMP"/*.log; exit 1; }
if [ -n "${PAGE_EVERY:-}" ]; then
	while :; do
		curl -s -m 5 -H 'Accept-Encoding: gzip' -o /dev/null "http://$GA/"
		sleep "$PAGE_EVERY"
	done &
	PIDS+=($!)
fi
sleep 3  # gpudoctor fills its window

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
kb() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/status"; }

# steady: one scrape each per second
g0=$(ticks $GD) n0=$(ticks $NE_PID) t0=$(date +%s.%N)
for i in $(seq "$STEADY"); do
	curl -sf -m 5 -o /dev/null "http://$GA/metrics" || echo "gpudoctor scrape $i failed"
	curl -sf -m 5 -o /dev/null "http://$NA/metrics" || echo "node_exporter scrape $i failed"
	sleep 1
done
g1=$(ticks $GD) n1=$(ticks $NE_PID) t1=$(date +%s.%N)

# burst: back-to-back over one connection
burst() { # addr pid [curl options] -> "cpu_ticks wall_s p50_ms p99_ms"
	local a=$1 pid=$2 c0 c1 w0 w1 urls=()
	shift 2
	for i in $(seq "$BURST"); do urls+=(-o /dev/null "http://$a/metrics"); done
	c0=$(ticks "$pid") w0=$(date +%s.%N)
	curl -s "$@" -w '%{time_total}\n' "${urls[@]}" >"$TMP/lat"
	c1=$(ticks "$pid") w1=$(date +%s.%N)
	sort -g "$TMP/lat" | awk -v c=$((c1 - c0)) -v w="$(awk -v a="$w0" -v b="$w1" 'BEGIN { printf "%.3f", b - a }')" '{v[NR]=$1}
		END {printf "%d %s %.3f %.3f\n", c, w, v[int(NR*0.5)]*1000, v[int(NR*0.99)]*1000}'
}
read -r gb gw gp50 gp99 <<<"$(burst "$GA" $GD)"
read -r nb nw np50 np99 <<<"$(burst "$NA" $NE_PID)"
# the same with Accept-Encoding: gzip, as Prometheus scrapes
read -r gzb gzw gzp50 gzp99 <<<"$(burst "$GA" $GD -H 'Accept-Encoding: gzip')"
read -r nzb nzw nzp50 nzp99 <<<"$(burst "$NA" $NE_PID -H 'Accept-Encoding: gzip')"

gsz=$(curl -s "http://$GA/metrics" | wc -c) nsz=$(curl -s "http://$NA/metrics" | wc -c)
gzsz=$(curl -s -H 'Accept-Encoding: gzip' "http://$GA/metrics" | wc -c)
nzsz=$(curl -s -H 'Accept-Encoding: gzip' "http://$NA/metrics" | wc -c)
gser=$(curl -s "http://$GA/metrics" | grep -vc '^#') nser=$(curl -s "http://$NA/metrics" | grep -vc '^#')
printf '%s\n' "machine: $(nproc) CPUs, $(uname -r), $(ls /proc | grep -c '^[0-9]') processes; USER_HZ $HZ; load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "${PAGE_EVERY:-}" ]; then echo "node page: opened every $PAGE_EVERY s"; else echo "node page: never opened"; fi
printf '%-34s %14s %14s\n' "" "gpudoctor" "node_exporter"
awk -v hz=$HZ -v n="$STEADY" -v g=$((g1 - g0)) -v e=$((n1 - n0)) \
	'BEGIN {printf "%-34s %14.2f %14.2f\n", "steady: CPU ms per scrape (1/s)", g/hz/n*1000, e/hz/n*1000}'
awk -v hz=$HZ -v n="$BURST" -v g="$gb" -v e="$nb" \
	'BEGIN {printf "%-34s %14.3f %14.3f\n", "burst: CPU ms per scrape", g/hz/n*1000, e/hz/n*1000}'
printf '%-34s %14s %14s\n' "burst: latency p50 ms" "$gp50" "$np50"
printf '%-34s %14s %14s\n' "burst: latency p99 ms" "$gp99" "$np99"
awk -v n="$BURST" -v g="$gw" -v e="$nw" 'BEGIN {printf "%-34s %14.0f %14.0f\n", "burst: scrapes per second", n/g, n/e}'
awk -v hz=$HZ -v n="$BURST" -v g="$gzb" -v e="$nzb" \
	'BEGIN {printf "%-34s %14.3f %14.3f\n", "burst gzip: CPU ms per scrape", g/hz/n*1000, e/hz/n*1000}'
printf '%-34s %14s %14s\n' "burst gzip: latency p50 ms" "$gzp50" "$nzp50"
printf '%-34s %14s %14s\n' "burst gzip: latency p99 ms" "$gzp99" "$nzp99"
printf '%-34s %14s %14s\n' "RSS KiB (now)" "$(kb $GD VmRSS)" "$(kb $NE_PID VmRSS)"
printf '%-34s %14s %14s\n' "RSS KiB (peak)" "$(kb $GD VmHWM)" "$(kb $NE_PID VmHWM)"
printf '%-34s %14s %14s\n' "bytes per scrape" "$gsz" "$nsz"
printf '%-34s %14s %14s\n' "bytes per scrape, gzip" "$gzsz" "$nzsz"
printf '%-34s %14s %14s\n' "samples per scrape" "$gser" "$nser"
