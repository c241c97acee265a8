#!/bin/bash
# bench/run.sh - CPU time per collection cycle and peak RSS of gpudoctor,
# side by side with the floor (reading the same /proc files), in one run.
#
#   BUILD=build bench/run.sh [CYCLES]        (`make bench`; CYCLES default 1000)
#
# Builds bench/bench_collect.c against $BUILD/libgd.a with the Makefile's own
# flags, then measures, each over CYCLES cycles:
#
#   gd_collect_all         every collector on root "/", in one process
#   gpudoctor snapshot     the real binary, one process per sample (start-up
#                          included: the peak RSS is the binary's own)
#   read(2) floor          the /proc files below read in one process
#   cat floor              a shell loop running cat on them (process start
#                          dominates: the cost of a shell-script collector)
#   ... + /proc/*/stat     the same plus every process's stat file
#
# The floor reads fewer files than gpudoctor (no /sys, no per-process
# status, io, cgroup, fd): it says what the bare reading costs, not what a
# complete collection should.  See bench/README.md.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
CYCLES=${1:-${BENCH_CYCLES:-1000}}
EXEC_RUNS=${BENCH_EXEC_RUNS:-50}
bin=$BUILD/bench/bench_collect

make --no-print-directory -s BUILD="$BUILD" all || { echo "bench: build failed" >&2; exit 1; }
flags=$(printf 'print-flags:\n\t@echo $(CPPFLAGS_ALL) $(CFLAGS) $(LDFLAGS)\n' |
	make --no-print-directory -s -f Makefile -f - BUILD="$BUILD" print-flags) || exit 1
libs=$(make --no-print-directory -s print-libs)
cc=${CC:-cc}
mkdir -p "$BUILD/bench"
# shellcheck disable=SC2086
$cc $flags -o "$bin" bench/bench_collect.c "$BUILD/libgd.a" $libs || { echo "bench: bench_collect failed to build" >&2; exit 1; }

files=(/proc/stat /proc/meminfo /proc/vmstat /proc/diskstats /proc/net/dev /proc/net/snmp /proc/loadavg)
for f in /proc/pressure/*; do [ -r "$f" ] && files+=("$f"); done
files+=(/proc/interrupts /proc/mounts)
loop='i=0; while [ $i -lt '"$CYCLES"' ]; do cat '"${files[*]}"' >/dev/null 2>&1; i=$((i + 1)); done'
loop_pid='i=0; while [ $i -lt '"$CYCLES"' ]; do cat '"${files[*]}"' /proc/[0-9]*/stat >/dev/null 2>&1; i=$((i + 1)); done'

# row NAME DIVISOR LINE: one table row from a bench_collect line.
row() {
	awk -v name="$1" -v div="$2" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%-34s %12.3f %12.3f %10d\n", name, v["cpu_ms_per_cycle"] / div,
		       v["wall_ms_per_cycle"] / div, v["peak_rss_kib"]
	}' <<<"$3"
}
run() { # bench_collect arguments...
	local out
	out=$("$bin" "$@") || { echo "bench: bench_collect $1 failed" >&2; exit 1; }
	printf '%s\n' "$out"
}

nprocs=$(ls -d /proc/[0-9]* | wc -l)
echo "gpudoctor bench: $CYCLES cycles, $(nproc) CPUs, $nprocs processes, kernel $(uname -r)"
echo "(CPU = user + system from getrusage; RSS = ru_maxrss of the measured process(es))"
echo
printf '%-34s %12s %12s %10s\n' "what" "ms CPU/cycle" "ms wall" "peak RSS KiB"
collect=$(run collect "$CYCLES")
row "gd_collect_all (in process)" 1 "$(head -n 1 <<<"$collect")"
row "gpudoctor snapshot (per process)" 1 "$(run exec "$EXEC_RUNS" "$BUILD/gpudoctor" snapshot)"
row "floor: read(2) in process" 1 "$(run read "$CYCLES" "${files[@]}")"
row "floor: read(2) + /proc/*/stat" 1 "$(run read "$CYCLES" "${files[@]}" '/proc/[0-9]*/stat')"
row "floor: cat loop" "$CYCLES" "$(run exec 1 sh -c "$loop")"
row "floor: cat loop + /proc/*/stat" "$CYCLES" "$(run exec 1 sh -c "$loop_pid")"

echo
echo "gd_collect_all per collector (wall ms per cycle, largest first):"
grep '^source ' <<<"$collect" | sed 's/[a-z_]*=//g' | sort -k3 -rn |
	awk '{ printf "  %-18s %8.3f\n", $2, $3 }'
