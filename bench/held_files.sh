#!/bin/bash
# bench/held_files.sh - what holding the per-cycle files open costs and
# saves (src/collect/proc_pid.c, "held files"): `gpudoctor serve
# --interval 1s` on one root, side by side in one run,
#   held   as it runs: each process's stat and each GPU-job thread's
#          schedstat opened once and read again with pread;
#   none   the same binary under a limit of 1,024 open files (`ulimit -n
#          1024`, as systemd's LimitNOFILE=1024 would set it), under which
#          it holds none and opens, reads and closes every file each cycle.
# For each: CPU ms per cycle (utime + stime of /proc/<pid>/stat over
# SERVE_S seconds after a 12 s warm-up), the files it holds, its peak RSS,
# and, as root with a memory cgroup to run it in, the kernel memory charged
# to it (cgroup v1 memory.kmem.usage_in_bytes, v2 memory.stat "kernel"):
# procfs keeps a page for every file read through a descriptor that stays
# open, and that memory is the price of the CPU saved.
#
# Two roots by default: the 1,000-process root of mkroot_procs.py (files on
# a disk: a held file there costs the kernel its struct file, no page), and
# this machine's own /proc with SLEEPERS (1,000) sleeping processes started
# for the run (procfs: each held file keeps its page).
#
#   BUILD=build bench/held_files.sh [ROOT...]
#   SERVE_S (default 20): seconds measured per run
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=bench/lib.sh
. bench/lib.sh
BUILD=${BUILD:-build}
SERVE_S=${SERVE_S:-20}
bin=$BUILD/gpudoctor
[ -x "$bin" ] || { echo "bench/held_files.sh: $bin not built (make all)" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
cg=""
cleanup() {
	stop_sleepers
	[ -n "$cg" ] && rmdir "$cg" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
roots=("$@")
if [ ${#roots[@]} = 0 ]; then
	python3 bench/mkroot_procs.py "$tmp/root" 1000 >/dev/null || exit 1
	roots=("$tmp/root" /)
fi
sleepers=()
stop_sleepers() {
	[ ${#sleepers[@]} = 0 ] || kill "${sleepers[@]}" 2>/dev/null
	sleepers=()
}

# The memory cgroup each run starts in, and how its kernel memory is read.
kmem_how=""
if [ "$(id -u)" != 0 ]; then
	kmem_why="not root: no cgroup to run it in"
elif [ -f /sys/fs/cgroup/memory/memory.kmem.usage_in_bytes ]; then
	cg=/sys/fs/cgroup/memory/gd-bench-held-$$ kmem_how=v1
elif grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	cg=/sys/fs/cgroup/gd-bench-held-$$ kmem_how=v2
else
	kmem_why="no memory cgroup with kernel accounting here"
fi
if [ -n "$cg" ] && ! mkdir "$cg" 2>/dev/null; then
	kmem_why="cannot make the cgroup $cg" cg="" kmem_how=""
fi

kmem() {
	case $kmem_how in
	v1) cat "$cg/memory.kmem.usage_in_bytes" ;;
	v2) awk '$1 == "kernel" { print $2 }' "$cg/memory.stat" ;;
	esac
}

# probe PID: the files serve holds, and the kernel memory of its cgroup.
probe() {
	local km
	km=$(kmem)
	printf 'held=%d kmem_kib=%s\n' "$(find "/proc/$1/fd" -lname '*/stat' -o -lname '*/schedstat' 2>/dev/null | wc -l)" \
		"$([ -n "$km" ] && echo $((km / 1024)) || echo -)"
}

# run MODE: one serve in the cgroup (none: under a limit of 1,024 files).
run() {
	# shellcheck disable=SC2016 # expanded in serve's own process (bench_serve)
	local setup='[ -n "$cg" ] && echo "$BASHPID" >"$cg/cgroup.procs";'
	[ "$1" = none ] && setup+=' ulimit -n 1024'
	bench_serve "$root" "$setup" probe
}

bench_load_start
[ -n "$kmem_how" ] || echo "kernel memory: unavailable ($kmem_why)"
for root in "${roots[@]}"; do
	if [ "$root" = / ]; then
		for _ in $(seq "${SLEEPERS:-1000}"); do
			sleep 100000 &
			sleepers+=($!)
		done
	fi
	echo "root: $root ($(find "${root%/}/proc" -mindepth 1 -maxdepth 1 -name '[0-9]*' | wc -l) processes), $SERVE_S s per run"
	printf '  %-6s %14s %12s %10s %16s\n' mode "CPU ms/cycle" "files held" "peak RSS" "kernel memory"
	for mode in held none held none; do
		line=$(run "$mode")
		cpu_ms=$(sed -n 's/.*cpu_ms_per_cycle=\([^ ]*\).*/\1/p' <<<"$line")
		held=$(sed -n 's/.*held=\([^ ]*\).*/\1/p' <<<"$line")
		rss=$(sed -n 's/.*peak_rss_kib=\([^ ]*\).*/\1/p' <<<"$line")
		km=$(sed -n 's/.*kmem_kib=\([^ ]*\).*/\1/p' <<<"$line")
		printf '  %-6s %14s %12s %7s MiB %16s\n' "$mode" "$cpu_ms" "$held" \
			"$(awk -v r="$rss" 'BEGIN { printf "%.1f", r / 1024 }')" \
			"$(awk -v k="$km" 'BEGIN { if (k == "-") print "-"; else printf "%.1f MiB", k / 1024 }')"
	done
	stop_sleepers
done
