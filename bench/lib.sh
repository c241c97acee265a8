# bench/lib.sh - what every comparison in bench/ states with its figures
# (sourced by the scripts; issue 29).  A ratio of two timings is a claim
# about the code only when nothing else took the CPUs while they ran, so:
#
#   bench_load_start            at the start: reads the load average and the
#                               CPU count, prints them, and marks the run
#                               busy when load1 is above the CPU count
#   bench_ratio LABEL NUM_WALL NUM_CPU DEN_WALL DEN_CPU [cpu-bound|io]
#                               prints "LABEL: R x (wall a/b, CPU c/d)" where
#                               R is NUM_WALL / DEN_WALL, or refuses it
#                               ("not stated: ...") when the run was marked
#                               busy, or when the commands are CPU-bound
#                               (the default) and either's wall time is
#                               more than 1.5 x its CPU time: it waited for
#                               a CPU
#   bench_cpu_ratio LABEL NUM_CPU DEN_CPU [DEN_WALL]
#                               the same for a ratio of CPU times (per
#                               cycle): refused when busy, or when DEN_WALL
#                               is given and is over 1.5 x DEN_CPU
#
#   bench_serve ROOT [SETUP [PROBE]]
#                               $BUILD/gpudoctor serve on ROOT at --interval 1s,
#                               SERVE_S seconds measured after a 12 s warm-up
#                               (past GD_PROC_YOUNG, 10 cycles of every process
#                               read whole); prints "cycles=N cpu_ms_per_cycle=X
#                               wall_ms_per_cycle=Y peak_rss_kib=Z" (CPU:
#                               utime+stime of /proc/<pid>/stat), then what
#                               PROBE, a command given serve's pid while it
#                               still runs, prints.  SETUP: shell code run in
#                               serve's own process before its exec (a cgroup
#                               to join, a ulimit)
#
# BENCH_IGNORE_LOAD=1 skips the load test (a machine whose load average
# counts tasks blocked on I/O that take no CPU); the line then says so.
# Times are in any one unit, the same for all four numbers.

BENCH_BUSY=""

bench_load_start() {
	local l1 l5 l15 rest ncpu
	read -r l1 l5 l15 rest </proc/loadavg
	ncpu=$(nproc)
	echo "load average at start: $l1 $l5 $l15 on $ncpu CPUs"
	if [ "${BENCH_IGNORE_LOAD:-0}" = 1 ]; then
		echo "  (BENCH_IGNORE_LOAD=1: the load is not checked; ratios below are stated anyway)"
		return 0
	fi
	if awk -v l="$l1" -v n="$ncpu" 'BEGIN { exit !(l > n) }'; then
		BENCH_BUSY="the machine was busy (load average $l1 above its $ncpu CPUs at the start)"
		echo "  BUSY: no ratio will be stated; re-run on an idle machine"
	fi
}

# bench_refuse DEN_WALL DEN_CPU KIND: prints the reason to refuse, if any.
bench_refuse() {
	if [ -n "$BENCH_BUSY" ]; then
		echo "$BENCH_BUSY"
		return
	fi
	[ "${3:-cpu-bound}" = cpu-bound ] || return 0
	[ -n "$1" ] && [ -n "$2" ] || return 0
	awk -v w="$1" -v c="$2" 'BEGIN { if (w > 1.5 * c && w > 0) printf "a command waited for a CPU (wall %g, CPU %g)\n", w, c }'
}

bench_ratio() {
	local label=$1 nw=$2 nc=$3 dw=$4 dc=$5 why
	why=$(bench_refuse "$dw" "$dc" "${6:-cpu-bound}")
	[ -n "$why" ] || why=$(bench_refuse "$nw" "$nc" "${6:-cpu-bound}")
	if [ -n "$why" ]; then
		printf '%s: not stated: %s (wall %s/%s, CPU %s/%s)\n' "$label" "$why" "$nw" "$dw" "$nc" "$dc"
		return 0
	fi
	awk -v l="$label" -v nw="$nw" -v nc="$nc" -v dw="$dw" -v dc="$dc" 'BEGIN {
		printf "%s: %.2fx (wall %s/%s, CPU %s/%s)\n", l, nw / (dw > 0 ? dw : 1e-9), nw, dw, nc, dc }'
}

bench_cpu_ratio() {
	local label=$1 nc=$2 dc=$3 dw=${4:-} why
	why=$(bench_refuse "$dw" "$dc" cpu-bound)
	if [ -n "$why" ]; then
		printf '%s: not stated: %s (CPU %s/%s)\n' "$label" "$why" "$nc" "$dc"
		return 0
	fi
	awk -v l="$label" -v nc="$nc" -v dc="$dc" -v dw="$dw" 'BEGIN {
		printf "%s: %.2fx (CPU %s/%s%s)\n", l, nc / (dc > 0 ? dc : 1e-9), nc, dc, dw != "" ? ", baseline wall " dw : "" }'
}

bench_serve() {
	local root=$1 setup=${2:-} probe=${3:-} log pid hz c0 c1 n0 n1 rss extra=""
	log=$(mktemp)
	hz=$(getconf CLK_TCK)
	(
		eval "$setup"
		exec "$BUILD/gpudoctor" serve --root "$root" --listen 127.0.0.1:0 --interval 1s 2>"$log"
	) &
	pid=$!
	for _ in $(seq 100); do grep -q '127\.0\.0\.1:[0-9]' "$log" && break; sleep 0.1; done
	sleep 12
	c0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat") n0=$(date +%s.%N)
	sleep "$SERVE_S"
	c1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat") n1=$(date +%s.%N)
	rss=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$pid/status")
	[ -z "$probe" ] || extra=" $($probe "$pid")"
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rm -f "$log"
	awk -v c=$((c1 - c0)) -v hz="$hz" -v w0="$n0" -v w1="$n1" -v rss="$rss" -v x="$extra" 'BEGIN {
		n = int(w1 - w0 + 0.5); if (n < 1) n = 1
		printf "cycles=%d cpu_ms_per_cycle=%.3f wall_ms_per_cycle=%.3f peak_rss_kib=%d%s\n", n, c * 1000 / hz / n, (w1 - w0) * 1000 / n, rss, x }'
}
