#!/bin/bash
# bench/run.sh - CPU time per collection cycle and peak RSS of gpudoctor,
# side by side with the floor (reading the same files), in one run, on two
# roots: this machine's / and a synthetic busy GPU node of 1,000 processes
# and 10,000 threads (bench/mkroot_procs.py).
#
#   BUILD=build bench/run.sh [CYCLES]        (`make bench`; CYCLES default 1000)
#   BENCH_ROOT2=DIR                          reuse a root made by mkroot_procs.py
#                                            (default: made in a temporary
#                                            directory and removed at the end;
#                                            "none": only /)
#
# Builds bench/bench_collect.c against $BUILD/libgd.a with the Makefile's own
# flags, then measures, each over CYCLES cycles:
#
#   gd_collect_all         every collector, in one process, one collector
#                          context for all cycles (as watch, record, serve)
#   gpudoctor snapshot     the real binary, one process per sample (start-up
#                          included: the peak RSS is the binary's own)
#   read(2) of the cycle's files
#                          the files, directories and links one cycle of a
#                          fresh context reads (traced with strace, listed by
#                          bench/floor_list.py), opened, read to the end and
#                          closed, listed, readlinked by absolute path with
#                          nothing parsed: the floor the cycle is held to
#   read(2) floor          the /proc files below read in one process
#   cat floor              a shell loop running cat on them (process start
#                          dominates: the cost of a shell-script collector)
#   ... + /proc/*/stat     the same plus every process's stat file
#
# See bench/README.md.
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

# floor_rows ROOT LABEL: the floor of the files one cycle on ROOT reads
# (needs strace); sets $floor_line.
floor_line=""
floor_rows() {
	local log list
	floor_line=""
	if ! command -v strace >/dev/null 2>&1; then
		printf '%-34s %s\n' "floor: read(2) of the cycle's files" "(not measured: strace is not installed)"
		return
	fi
	log=$(mktemp) list=$(mktemp)
	if ! strace -f -y -qq -e trace=openat,readlinkat,getdents64 -o "$log" "$bin" once "$1" >/dev/null ||
		! python3 bench/floor_list.py "$log" "$1" >"$list"; then
		echo "bench: tracing a cycle on $1 failed" >&2
		rm -f "$log" "$list"
		exit 1
	fi
	floor_line=$(run readlist "$CYCLES" "$list")
	row "floor: read(2) of the cycle's files" 1 "$(head -n 1 <<<"$floor_line")"
	echo "  ($(awk '$1 == "F" { f++ } $1 == "D" { d++ } $1 == "L" { l++ }
		END { printf "%d files read, %d directories listed, %d links read", f, d, l }' "$list"))"
	rm -f "$log" "$list"
}

# ratio LABEL COLLECT_LINE FLOOR_LINE
ratio() {
	[ -n "$3" ] || return 0
	awk -v label="$1" -v a="$2" -v b="$3" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		for (i in x) { split(x[i], kv, "="); ca[kv[1]] = kv[2] }
		for (i in y) { split(y[i], kv, "="); cb[kv[1]] = kv[2] }
		printf "  %s: cycle / floor of the same files = %.2fx (target <= 2)\n", label,
		       ca["cpu_ms_per_cycle"] / cb["cpu_ms_per_cycle"]
	}'
}

per_collector() {
	echo "gd_collect_all per collector (wall ms per cycle, largest first):"
	grep '^source ' <<<"$1" | sed 's/[a-z_]*=//g' | sort -k3 -rn |
		awk '$3 >= 0.0005 { printf "  %-18s %8.3f\n", $2, $3 }'
}

nprocs=$(ls -d /proc/[0-9]* | wc -l)
echo "gpudoctor bench: $CYCLES cycles, $(nproc) CPUs, kernel $(uname -r)"
echo "(CPU = user + system from getrusage; RSS = ru_maxrss of the measured process(es))"
echo
echo "root /: this machine, $nprocs processes, $(ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l) threads"
printf '%-34s %12s %12s %10s\n' "what" "ms CPU/cycle" "ms wall" "peak RSS KiB"
collect=$(run collect "$CYCLES")
row "gd_collect_all (in process)" 1 "$(head -n 1 <<<"$collect")"
row "gpudoctor snapshot (per process)" 1 "$(run exec "$EXEC_RUNS" "$BUILD/gpudoctor" snapshot)"
floor_rows /
floor1=$floor_line
row "floor: read(2) in process" 1 "$(run read "$CYCLES" "${files[@]}")"
row "floor: read(2) + /proc/*/stat" 1 "$(run read "$CYCLES" "${files[@]}" '/proc/[0-9]*/stat')"
row "floor: cat loop" "$CYCLES" "$(run exec 1 sh -c "$loop")"
row "floor: cat loop + /proc/*/stat" "$CYCLES" "$(run exec 1 sh -c "$loop_pid")"
ratio "root /" "$(head -n 1 <<<"$collect")" "$floor1"
echo
per_collector "$collect"

root2=${BENCH_ROOT2:-}
[ "$root2" = none ] && exit 0
made=""
if [ -z "$root2" ]; then
	made=$(mktemp -d "${TMPDIR:-/tmp}/gd-bench-root.XXXXXX") || exit 1
	trap 'rm -rf "$made"' EXIT INT TERM
	root2=$made/root
	python3 bench/mkroot_procs.py "$root2" >/dev/null || { echo "bench: mkroot_procs.py failed" >&2; exit 1; }
fi
# The synthetic node is read without NVML (the floor cannot read NVML): its
# GPU jobs are found from their /dev/nvidia<N> descriptors, as on a host
# whose NVML does not answer.  Every other source must read it whole.
export GPUDOCTOR_NVML=/nonexistent/libnvidia-ml.so.1
if command -v jq >/dev/null 2>&1; then
	bad=$("$BUILD/gpudoctor" snapshot --root "$root2" |
		jq -r '.sources[] | select(.status != "ok" and (.name | test("^(nvml|job_samples|job_sockets)$") | not)) |
			"\(.name)=\(.status) (\(.reason))"')
	[ -z "$bad" ] || { echo "bench: the synthetic root is not read whole: $bad" >&2; exit 1; }
fi
n2=$(ls -d "$root2"/proc/[0-9]* | wc -l)
t2=$(ls -d "$root2"/proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l)
echo
echo "root $root2: synthetic busy node (bench/mkroot_procs.py), $n2 processes, $t2 threads in task/"
printf '%-34s %12s %12s %10s\n' "what" "ms CPU/cycle" "ms wall" "peak RSS KiB"
collect2=$(run collect "$CYCLES" "$root2")
row "gd_collect_all (in process)" 1 "$(head -n 1 <<<"$collect2")"
row "gpudoctor snapshot (per process)" 1 "$(run exec "$EXEC_RUNS" "$BUILD/gpudoctor" snapshot --root "$root2")"
floor_rows "$root2"
floor2=$floor_line
row "floor: read(2) + proc/*/stat" 1 "$(run read "$CYCLES" "$root2/proc/[0-9]*/stat")"
ratio "synthetic root" "$(head -n 1 <<<"$collect2")" "$floor2"
echo
per_collector "$collect2"
