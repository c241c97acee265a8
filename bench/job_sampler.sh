#!/bin/bash
# bench/job_sampler.sh - what sampling a GPU job's threads costs the job:
# the work rate (loop iterations per CPU-second of its own thread, so the
# machine's other load does not count) of a spinning process, RUNS times
# alone and RUNS times while `gpudoctor record --interval 1s` samples it
# (the fake NVML lists it as gpu0's compute process, so job_threads and the
# perf sampler cover it every cycle).  Needs root or perf_event_paranoid <= 1.
#
#   BUILD=build bench/job_sampler.sh [RUNS] [SECONDS]
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_load_start   # the figures below mean little when this says BUSY
BUILD=${BUILD:-build}
RUNS=${1:-5}
SECS=${2:-3}
G=$PWD/$BUILD/gpudoctor
FAKE=$PWD/$BUILD/fake_nvml/libnvidia-ml.so.1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/job_rate" bench/job/job_rate.c || exit 1
. tests/e2e/lib.bash

rate() { # with|without
	"$tmp/job_rate" "$SECS" >"$tmp/rate" &
	local p=$! r=""
	if [ "$1" = with ]; then
		fake_nvml_ini "$tmp/nvml.ini" "$p" 90
		GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$tmp/nvml.ini "$G" record --full-every 1 --interval 1s --duration 60s \
			-o "$tmp/rec.jsonl" >/dev/null 2>&1 &
		r=$!
	fi
	wait "$p"
	[ -n "$r" ] && { kill "$r"; wait "$r" 2>/dev/null; }
	cat "$tmp/rate"
}
printf '%-8s %s\n' run "iterations per CPU-second: alone / sampled"
for i in $(seq "$RUNS"); do
	printf '%-8s %s / %s\n' "$i" "$(rate without)" "$(rate with)"
done
[ -s "$tmp/rec.jsonl" ] && echo "samples of the job's main thread in the last recording: $(jq -s '[.[-1].job_threads[]? |
	select(.role == "main") | .samples_other + .samples_cuda + .samples_python + .samples_kernel] | add' "$tmp/rec.jsonl")"
