#!/bin/bash
# bench/probe_host/run.sh - the host probes of `gpudoctor probe` side by side
# with what operators run instead, on the same files, in one run:
#
#   BUILD=build bench/probe_host/run.sh [SMALL_FILES] [LARGE_MIB]
#       (defaults 20000 files of 4 KiB, two files of 256 MiB, written into
#        $BUILD/bench-probe-host and removed at the end)
#
#   storage  the probe's sequential, 4 KiB random and small-file figures
#            (probe_host_driver, the API `probe --data` calls), each beside
#            dd iflag=direct / fio with the same block size, queue depth
#            and cache bypass;
#   memory   the probe's STREAM triad per node beside stress-ng --stream
#            (when installed: it is not needed by the tests);
#
# and, for every row, the figure, the wall time, the CPU time (user +
# system) and the peak RSS from GNU time.  Figures depend on the disk, its
# cache and the neighbours: read them on the machine you care about.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
NSMALL=${1:-20000}
LARGE_MIB=${2:-256}
D=$BUILD/tests/probe_host_driver
make --no-print-directory -s BUILD="$BUILD" "$D" || { echo "bench: build failed" >&2; exit 1; }
for t in fio dd jq /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "bench: $t is not installed" >&2; exit 1; }
done
work=$BUILD/bench-probe-host
rm -rf "$work"
mkdir -p "$work/large" "$work/small"
trap 'rm -rf "$work"' EXIT
head -c $((LARGE_MIB << 20)) /dev/urandom >"$work/large/a.bin"
head -c $((LARGE_MIB << 20)) /dev/urandom >"$work/large/b.bin"
(cd "$work/small" && head -c $((NSMALL * 4096)) /dev/urandom | split -b 4096 -a 6 -d - s)
sync

row() { # NAME FIGURE UNIT TIMEFILE
	local w c r
	read -r w c r <"$4"
	printf '%-44s %12.1f %-8s %8.2f %8.2f %9s\n' "$1" "$2" "$3" "$w" "$c" "$r"
}
timed() { # TIMEFILE CMD...: runs CMD under GNU time, stdout kept
	local tf=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$tf.raw" "$@"
	awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$tf.raw" >"$tf"
}
fio_json() { sed -n '/^{/,$p'; }
t=$work/t

printf '%-44s %12s %-8s %8s %8s %9s\n' what figure unit "wall s" "CPU s" "RSS KiB"
out=$(timed "$t" "$D" --data "$work/large" --large-min $((32 << 20)) --seq-max $((2 * LARGE_MIB << 20)) \
	--budget 600 --rand-reads 1 --small-sample 1)
row "probe: sequential 1 MiB, O_DIRECT" "$(jq .results.storage.seq_read.mb_s <<<"$out")" MB/s "$t"
out=$(timed "$t" sh -c "for f in $work/large/a.bin $work/large/b.bin; do dd if=\$f of=/dev/null bs=1M iflag=direct 2>&1 | tail -n 1; done")
mb=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) bytes.* copied, \([0-9.]*\) s.*/\1 \2/p' |
	awk '{ b += $1; s += $2 } END { printf "%.1f", b / s / 1e6 }')
row "dd bs=1M iflag=direct (both files)" "$mb" MB/s "$t"
out=$(timed "$t" fio --output-format=json --name=seq --filename="$work/large/a.bin:$work/large/b.bin" --rw=read \
	--bs=1M --direct=1 --ioengine=psync 2>/dev/null | fio_json)
row "fio rw=read bs=1M direct=1 psync" "$(jq '.jobs[0].read.bw_bytes / 1e6' <<<"$out")" MB/s "$t"

out=$(timed "$t" "$D" --data "$work/large" --large-min $((32 << 20)) --seq-max 1 --budget 600 --rand-reads 5000 \
	--small-sample 1)
row "probe: 4 KiB random, QD1, mean latency" "$(jq .results.storage.rand_4k.lat_us <<<"$out")" us "$t"
rf=$(jq -r .results.storage.rand_4k.file <<<"$out")
out=$(timed "$t" fio --output-format=json --name=rnd --filename="$rf" --rw=randread --bs=4k --direct=1 \
	--ioengine=psync --number_ios=5000 --randrepeat=0 2>/dev/null | fio_json)
row "fio rw=randread bs=4k direct=1 QD1" "$(jq '.jobs[0].read.lat_ns.mean / 1000' <<<"$out")" us "$t"

out=$(timed "$t" "$D" --data "$work/small" --small-sample "$NSMALL" --budget 600)
row "probe: small files opened+read+closed" "$(jq .results.storage.small_files_read.files_s <<<"$out")" files/s "$t"
out=$(timed "$t" fio --output-format=json --name=small --opendir="$work/small" --rw=read --bs=4k --direct=1 \
	--ioengine=psync --openfiles=1 --file_service_type=sequential 2>/dev/null | fio_json)
row "fio opendir= bs=4k direct=1 openfiles=1" "$(jq '.jobs[0].read.bw_bytes / 4096' <<<"$out")" files/s "$t"

out=$(timed "$t" "$D" --mem)
for n in $(jq -r '.results.host_mem.nodes[] | select(.avail.state == "ok") | .node' <<<"$out"); do
	row "probe: STREAM triad node$n (best of 10)" \
		"$(jq --argjson n "$n" '.results.host_mem.nodes[] | select(.node == $n) | .triad_gb_s' <<<"$out")" GB/s "$t"
done
if command -v stress-ng >/dev/null; then
	out=$(timed "$t" stress-ng --stream "$(nproc)" --stream-ops 20 --metrics-brief 2>&1)
	rate=$(printf '%s\n' "$out" | sed -n 's/.*memory rate: \([0-9.]*\) MB read.*/\1/p' | head -n 1)
	row "stress-ng --stream $(nproc) (read rate)" "$(awk -v r="${rate:-0}" 'BEGIN { print r / 1000 }')" GB/s "$t"
else
	echo "(stress-ng is not installed: no STREAM reference row)"
fi
