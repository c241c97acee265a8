#!/bin/bash
# tests/exporter/episodes.sh - serve counts stall episodes per GPU as the
# samples come (issue 7, item 4): a fake-NVML GPU whose utilisation drops
# to 0-3% for four samples of its first fourteen, under a job that holds it,
# gives gpudoctor_gpu_stall_episodes_total and _stalled_seconds_total that
# rise, and the exposition still passes promtool.  The wait for samples is
# bounded (30 s) but nothing here judges gpudoctor's speed.
set -u
. "$(dirname "$0")/lib.bash"
FAKE=$(dirname "$G")/fake_nvml/libnvidia-ml.so.1
[ -f "$FAKE" ] || die "$FAKE is not built (make unit)"
export GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$PWD/tests/timeline/stall.ini
start_serve s --interval 200ms
U=http://$ADDR_s
ep=0
for i in $(seq 150); do
	m=$(curl -sf -m 2 "$U/metrics") || die "/metrics failed"
	ep=$(sed -n 's/^gpudoctor_gpu_stall_episodes_total{gpu="0"} //p' <<<"$m")
	[ -n "$ep" ] && [ "$ep" -ge 1 ] && break
	sleep 0.2
done
[ -n "$ep" ] && [ "$ep" -ge 1 ] || die "no stall episode on gpu0 counted in 30 s: $(grep gpu_st <<<"$m")"
s=$(sed -n 's/^gpudoctor_gpu_stalled_seconds_total{gpu="0"} //p' <<<"$m")
awk -v s="$s" 'BEGIN { exit !(s > 0) }' || die "stalled seconds did not rise: $s"
grep -q '^# TYPE gpudoctor_gpu_stall_episodes_total counter$' <<<"$m" || die "no counter TYPE line"
grep -q '^gpudoctor_gpus_util_gpu_ratio{gpu="0",model=' <<<"$m" || die "GPU metrics lack the gpu and model labels"
if command -v promtool >/dev/null; then
	promtool check metrics <<<"$m" >"$TMP/lint" 2>&1 || die "promtool: $(cat "$TMP/lint")"
fi
echo "ok: $ep episodes, ${s} s stalled on gpu0"
