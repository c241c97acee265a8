#!/bin/bash
# bench/fleet/files.sh [SNAPSHOT.jsonl] - the memory of `gpudoctor fleet
# FILE...`: peak RSS (GNU time's "Maximum resident set size") and time for
# 10, 100 and 1,000 node files of 50 snapshots each, and for 100 files of
# 500, made from one recorded file (each copy with its own hostname).
# The file mode keeps 3 snapshots of the file being read and one entry per
# (rule, node, GPU) and one average per GPU and metric across files, so the
# peak should stay flat with the snapshots per file and grow little with
# the files.  Without an argument a file is recorded from the healthy
# fixture tree and a fake-NVML GPU pair (make unit first).
set -u
cd "$(dirname "$0")/../.." || exit 1
G=${GPUDOCTOR:-$PWD/${BUILD:-build}/gpudoctor}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gd-fleet-files.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
src=${1:-}
if [ -z "$src" ]; then
	printf '[gpu0]\nname = NVIDIA H100 80GB HBM3\nuuid = GPU-x0\nutil_gpu_pct = 96\nsm_clock_mhz = 1980\ntemp_c = 61\nprocs = 4242:1000\n[gpu1]\nname = NVIDIA H100 80GB HBM3\nuuid = GPU-x1\nutil_gpu_pct = 96\nsm_clock_mhz = 1980\ntemp_c = 86\nprocs = 4242:1000\n' >"$TMP/x.ini"
	GPUDOCTOR_NVML=$(dirname "$G")/fake_nvml/libnvidia-ml.so.1 GPUDOCTOR_FAKE_NVML=$TMP/x.ini \
		"$G" record --root tests/exporter/fixtures/healthy --interval 0.1s --duration 5s -o "$TMP/src.jsonl" 2>/dev/null
	src=$TMP/src.jsonl
fi
head -n 50 "$src" >"$TMP/50"
for i in $(seq 10); do cat "$TMP/50"; done >"$TMP/500"
printf '%-8s %-10s %12s %10s %8s\n' files snapshots bytes maxrss_kb seconds
for spec in "10 50" "100 50" "1000 50" "100 500"; do
	set -- $spec
	rm -rf "$TMP/f" && mkdir "$TMP/f"
	for i in $(seq "$1"); do
		sed "s/\"hostname\":\"[^\"]*\"/\"hostname\":\"node$i\"/" "$TMP/$2" >"$TMP/f/n$i.jsonl"
	done
	bytes=$(cat "$TMP"/f/*.jsonl | wc -c)
	/usr/bin/time -f '%M %e' -o "$TMP/t" "$G" fleet "$TMP"/f/*.jsonl --json >/dev/null || exit 1
	read -r rss secs <"$TMP/t"
	printf '%-8s %-10s %12s %10s %8s\n' "$1" "$(( $1 * $2 ))" "$bytes" "$rss" "$secs"
done
