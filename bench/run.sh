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
#                                            "none": only /); a copy of it is made
#                                            an NVSwitch board (mkroot_nvswitch.py)
#
# Builds bench/bench_collect.c against $BUILD/libgd.a with the Makefile's own
# flags, then measures, each over CYCLES cycles:
#
#   gd_collect_all         every collector, in one process, one collector
#                          context for all cycles, every file read every
#                          cycle (what check's two snapshots read)
#   ... tiered (serve)     the same with the tiered process walk of serve,
#                          watch and record (stat of every process each
#                          cycle, io when it ran, a GPU job's threads'
#                          syscall and wchan when they ran, maps and the
#                          rest on the slow round); median
#                          of the cycles' CPU times next to the mean
#   ... the root moving    the tiered cycle on a copy of the synthetic root
#                          that moves between cycles (not timed) as a busy
#                          node does: BENCH_LIVE=T,P (default 0.25,0.05), a
#                          job thread ran with probability T (its stat,
#                          syscall and wchan read again), every GPU job
#                          process and a share P of the others used CPU
#                          (their io read); the static root is the best case
#                          for the tiered walk's gates
#   gpudoctor serve        the real exporter on the root at --interval 1s
#                          for BENCH_SERVE_S seconds (default 20): CPU per
#                          cycle (utime+stime of /proc/<pid>/stat over the
#                          run / cycles) and peak RSS (VmHWM); targets on
#                          the synthetic root: <= 5 ms CPU per cycle,
#                          <= 8 MiB RSS, within 3x of the stat floor
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
# A third root of 5,000 processes (BENCH_ROOT3=DIR to reuse one, "none" to
# skip) shows how the tiered cycle grows with the process count.
# Ratios are stated only on a machine that was idle (bench/lib.sh): the
# load average at the start is printed, and a ratio is refused when it was
# above the CPU count or when the floor's wall time was far above its CPU.
#
# See bench/README.md.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
CYCLES=${1:-${BENCH_CYCLES:-1000}}
EXEC_RUNS=${BENCH_EXEC_RUNS:-50}
bin=$BUILD/bench/bench_collect
SERVE_S=${BENCH_SERVE_S:-20}
# shellcheck source=bench/lib.sh
. bench/lib.sh

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

# field NAME LINE: the value of NAME=... in a bench_collect line.
field() { tr ' ' '\n' <<<"$2" | awk -F= -v k="$1" '$1 == k { print $2; exit }'; }

# ratio LABEL COLLECT_LINE FLOOR_LINE: CPU per cycle of the one over the
# other, refused on a busy machine (bench/lib.sh).
ratio() {
	[ -n "$3" ] || return 0
	printf '  '
	bench_cpu_ratio "$1" "$(field cpu_ms_per_cycle "$2")" "$(field cpu_ms_per_cycle "$3")" \
		"$(field wall_ms_per_cycle "$3")"
}

# targets LABEL SERVE_LINE TIERED_LINE STAT_FLOOR_LINE: issue 29's targets.
targets() {
	local cpu rss
	cpu=$(field cpu_ms_per_cycle "$2") rss=$(field peak_rss_kib "$2")
	awk -v c="$cpu" -v r="$rss" 'BEGIN {
		printf "  serve at 1 s: %.2f ms CPU per cycle (target <= 5: %s), peak RSS %.1f MiB (target <= 8: %s)\n",
			c, c <= 5 ? "met" : "NOT met", r / 1024, r <= 8192 ? "met" : "NOT met" }'
	printf '  '
	bench_cpu_ratio "$1: tiered cycle (median) / every process's stat alone (target <= 3)" \
		"$(field cpu_ms_median "$3")" "$(field cpu_ms_per_cycle "$4")" "$(field wall_ms_per_cycle "$4")"
}

per_collector() {
	echo "gd_collect_all per collector (wall ms per cycle, largest first):"
	grep '^source ' <<<"$1" | sed 's/[a-z_]*=//g' | sort -k3 -rn |
		awk '$3 >= 0.0005 { printf "  %-18s %8.3f\n", $2, $3 }'
}

nprocs=$(ls -d /proc/[0-9]* 2>/dev/null | wc -l)
echo "gpudoctor bench: $CYCLES cycles, $(nproc) CPUs, kernel $(uname -r)"
echo "(CPU = user + system from getrusage; RSS = ru_maxrss of the measured process(es))"
bench_load_start
echo
echo "root /: this machine, $nprocs processes, $(ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l) threads"
printf '%-34s %12s %12s %10s\n' "what" "ms CPU/cycle" "ms wall" "peak RSS KiB"
collect=$(run collect "$CYCLES")
row "gd_collect_all (in process)" 1 "$(head -n 1 <<<"$collect")"
tiered1=$(run serve "$CYCLES")
row "gd_collect_all, tiered (serve)" 1 "$(head -n 1 <<<"$tiered1")"
echo "  (tiered: median $(field cpu_ms_median "$(sed -n 2p <<<"$tiered1")") ms CPU per cycle)"
row "gpudoctor snapshot (per process)" 1 "$(run exec "$EXEC_RUNS" "$BUILD/gpudoctor" snapshot)"
floor_rows /
floor1=$floor_line
row "floor: read(2) in process" 1 "$(run read "$CYCLES" "${files[@]}")"
row "floor: read(2) + /proc/*/stat" 1 "$(run read "$CYCLES" "${files[@]}" '/proc/[0-9]*/stat')"
row "floor: cat loop" "$CYCLES" "$(run exec 1 sh -c "$loop")"
row "floor: cat loop + /proc/*/stat" "$CYCLES" "$(run exec 1 sh -c "$loop_pid")"
ratio "root /: cycle / floor of the same files (target <= 2)" "$(head -n 1 <<<"$collect")" "$floor1"
ratio "root /: tiered cycle / every-file cycle" "$(head -n 1 <<<"$tiered1")" "$(head -n 1 <<<"$collect")"
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
# live_run ROOT: the tiered cycle on a copy of ROOT that moves between
# cycles as a busy node does (bench_collect's BENCH_LIVE, default 0.25,0.05:
# a quarter of the GPU jobs' threads ran, every GPU job process and one in
# twenty of the others used CPU); the copy is removed after.
live_run() {
	local tmp out
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/gd-bench-live.XXXXXX") || return 1
	cp -a "$1" "$tmp/root" && out=$(BENCH_LIVE=${BENCH_LIVE:-0.25,0.05} "$bin" serve "$CYCLES" "$tmp/root")
	rm -rf "$tmp"
	printf '%s\n' "$out"
}

# synthetic ROOT LABEL [live]: the rows of one synthetic root (live: and of
# the same root moving, live_run).
synthetic() {
	local r=$1 n t c tc sv sf lc=
	n=$(ls -d "$r"/proc/[0-9]* | wc -l)
	t=$(find "$r"/proc -mindepth 3 -maxdepth 3 -path '*/task/*' 2>/dev/null | wc -l)
	echo
	echo "root $r: $2 (bench/mkroot_procs.py), $n processes, $t threads in task/"
	printf '%-34s %12s %12s %10s\n' "what" "ms CPU/cycle" "ms wall" "peak RSS KiB"
	c=$(run collect "$CYCLES" "$r")
	row "gd_collect_all (in process)" 1 "$(head -n 1 <<<"$c")"
	tc=$(run serve "$CYCLES" "$r")
	row "gd_collect_all, tiered (serve)" 1 "$(head -n 1 <<<"$tc")"
	echo "  (tiered: median $(field cpu_ms_median "$(sed -n 2p <<<"$tc")") ms CPU per cycle)"
	if [ "${3:-}" = live ]; then
		lc=$(live_run "$r")
		row "  ... the root moving (BENCH_LIVE)" 1 "$(head -n 1 <<<"$lc")"
		echo "  (moving: median $(field cpu_ms_median "$(grep '^cpu_ms_median=' <<<"$lc")") ms CPU per cycle;" \
			"$(grep '^live:' <<<"$lc" | sed 's/^live: //'))"
	fi
	sv=$(bench_serve "$r")
	row "gpudoctor serve --interval 1s" 1 "$sv"
	row "gpudoctor snapshot (per process)" 1 "$(run exec "$EXEC_RUNS" "$BUILD/gpudoctor" snapshot --root "$r")"
	floor_rows "$r"
	sf=$(run read "$CYCLES" "$r/proc/[0-9]*/stat")
	row "floor: read(2) of proc/*/stat alone" 1 "$sf"
	ratio "$2: cycle / floor of the same files (target <= 2)" "$(head -n 1 <<<"$c")" "$floor_line"
	ratio "$2: tiered cycle / every-file cycle" "$(head -n 1 <<<"$tc")" "$(head -n 1 <<<"$c")"
	targets "$2" "$sv" "$(sed -n 2p <<<"$tc")" "$sf"
	if [ -n "$lc" ]; then
		printf '  '
		bench_cpu_ratio "$2: tiered cycle, root moving (median) / every process's stat alone" \
			"$(field cpu_ms_median "$(grep '^cpu_ms_median=' <<<"$lc")")" "$(field cpu_ms_per_cycle "$sf")" \
			"$(field wall_ms_per_cycle "$sf")"
	fi
	echo
	per_collector "$tc"
}
synthetic "$root2" "synthetic busy node" live

# The same node as an HGX board: four NVSwitches, nv-fabricmanager and its
# log of 1.3 MB (bench/mkroot_nvswitch.py), on a copy: the fabric
# collector's cost where there is a fabric to read.
nvs=$(mktemp -d "${TMPDIR:-/tmp}/gd-bench-nvs.XXXXXX") || exit 1
if cp -a "$root2" "$nvs/root" && python3 bench/mkroot_nvswitch.py "$nvs/root" >/dev/null; then
	echo
	echo "root $root2 with 4 NVSwitches, nv-fabricmanager and its 1.3 MB log (bench/mkroot_nvswitch.py)"
	printf '%-34s %12s %12s %10s\n' "what" "ms CPU/cycle" "ms wall" "peak RSS KiB"
	tn=$(run serve "$CYCLES" "$nvs/root")
	row "gd_collect_all, tiered (serve)" 1 "$(head -n 1 <<<"$tn")"
	echo "  (tiered: median $(field cpu_ms_median "$(sed -n 2p <<<"$tn")") ms CPU per cycle;" \
		"fabric $(grep '^source name=fabric ' <<<"$tn" | sed 's/.*=//') ms wall per cycle)"
fi
rm -rf "$nvs"

root3=${BENCH_ROOT3:-}
[ "$root3" = none ] && exit 0
if [ -z "$root3" ]; then
	[ -n "$made" ] || { made=$(mktemp -d "${TMPDIR:-/tmp}/gd-bench-root.XXXXXX") && trap 'rm -rf "$made"' EXIT INT TERM; } || exit 1
	root3=$made/root5k
	python3 bench/mkroot_procs.py "$root3" 5000 50000 >/dev/null || { echo "bench: mkroot_procs.py 5000 failed" >&2; exit 1; }
fi
synthetic "$root3" "synthetic node of 5,000 processes"
