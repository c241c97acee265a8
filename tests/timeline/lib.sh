# tests/timeline/lib.sh - sourced by the timeline tests (not a test itself).
#
# make_series OUT.jsonl: a recorded series of 40 snapshots, one second apart,
# of the healthy fixture host (tests/scenarios/base/t0) with two H100s from
# the fake NVML.  Each instant t gets its own NVML scenario (t.ini, from
# series.ini.in) and its own /proc/uptime (5000 + t) and /proc/diskstats, and
# `gpudoctor snapshot --root` takes it.  The job stalls four times, every
# 10 s: at t = 5-8, 15-18, 25-28 and 35-38 both GPUs read 0-2% while sda
# (rotational) writes 3 GB (a synchronous checkpoint), so the expected
# episodes are exactly: start 5005, 5015, 5025, 5035, each 4.0 s, gpu0-1,
# idle, cause io.checkpoint_stall, periodic every 10 s.  At t = 11 one
# sample dips (not an episode); at t = 21-22 only gpu1 is slowed (SM clock
# 1100 of 1980 MHz) while the disk is quiet: a fifth episode, "slowed", whose
# cause is gpu.straggler (its clock is far below its sibling's).  All five do not repeat, the four checkpoint stalls do: periodic
# every 10 s, period_cause io.checkpoint_stall.
set -u
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GPUDOCTOR=${GPUDOCTOR:-$repo/${BUILD:-build}/gpudoctor}
case $GPUDOCTOR in /*) ;; *) GPUDOCTOR=$repo/$GPUDOCTOR ;; esac
FAKE_NVML=$(dirname "$GPUDOCTOR")/fake_nvml/libnvidia-ml.so.1

skip() { echo "$*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }

need() {
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || skip "$t is missing (scripts/deps.sh installs it)"
	done
	[ -x "$GPUDOCTOR" ] || die "$GPUDOCTOR is not built"
	[ -f "$FAKE_NVML" ] || die "$FAKE_NVML is not built (make unit)"
}

# stall T: 1 when instant T is inside a checkpoint stall.
stall() { case $1 in 5|6|7|8|15|16|17|18|25|26|27|28|35|36|37|38) echo 1 ;; *) echo 0 ;; esac; }

make_series() {
	local out=$1 work tree t u0 u1 sm1 written=26390080
	work=$(mktemp -d "${TMPDIR:-/tmp}/gd-series.XXXXXX") || die "mktemp"
	tree=$work/root
	cp -a "$repo/tests/scenarios/base/t0" "$tree" || die "copy base/t0"
	while IFS= read -r d; do [ -n "$d" ] && mkdir -p "$tree/$d"; done <"$repo/tests/scenarios/emptydirs"
	# The base host has four GPUs on its PCI bus; this series has two from
	# NVML: leave the bus out, so that gpu.missing does not become the
	# cause of every episode.
	for d in "$tree"/sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor" 2>/dev/null)" = 0x10de ] && rm -f "$d"
	done
	: >"$out"
	for t in $(seq 0 39); do
		if [ "$(stall "$t")" = 1 ]; then
			u0=$((t % 3)) u1=$(((t + 1) % 3))
			written=$((written + 1464844))   # 750 MB a second: 3 GB a stall
		elif [ "$t" = 11 ]; then
			u0=1 u1=96
		else
			u0=$((95 + t % 4)) u1=$((94 + t % 5))
			written=$((written + 200))
		fi
		sm1=1980
		case $t in 21|22) sm1=1100 ;; esac
		sed -e "s/@UTIL0@/$u0/; s/@UTIL1@/$u1/; s/@SM1@/$sm1/" "$repo/tests/timeline/series.ini.in" >"$work/$t.ini"
		printf '%d.00 %d.00\n' $((5000 + t)) $((9000 + 2 * t)) >"$tree/proc/uptime"
		awk -v w="$written" '$3 == "sda" || $3 == "sda1" { $10 = w } { print }' \
			"$repo/tests/scenarios/base/t0/proc/diskstats" >"$tree/proc/diskstats"
		GPUDOCTOR_NVML=$FAKE_NVML GPUDOCTOR_FAKE_NVML=$work/$t.ini \
			"$GPUDOCTOR" snapshot --root "$tree" >>"$out" 2>"$work/err" ||
			die "snapshot at t=$t: $(head -c 300 "$work/err")"
	done
	rm -rf "$work"
}
