#!/bin/bash
# tests/exporter/finding_counters.sh - the roll-up counters of serve (issue
# 14, item 1).  A fake-NVML GPU is hot (86 C, slowdown at 87 C: the
# rule gpu.thermal_throttle) in cycles 4-6 and 10-11 of its series and cool
# otherwise; a second GPU stays cool.  After the series has run:
#   gpudoctor_finding_onsets_total{rule="gpu.thermal_throttle",...} is 2
#   exactly, with the GPU's gpu, uuid and model labels; its active seconds
#   are at least three intervals' worth (2 + 1 cycle-to-cycle steps) and at
#   most the time the test ran; the cool GPU has no series; promtool
#   accepts the exposition.  The counters still stand after the finding
#   ended (a counter does not vanish).
set -u
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/fleet_lib.bash"
FAKE=$(dirname "$G")/fake_nvml/libnvidia-ml.so.1
[ -f "$FAKE" ] || die "$FAKE is not built (make unit)"
need promtool prometheus
{
	fleet_head
	fleet_gpu 0 GPU-5f1c4b2e-0000-4c1b-9e7f-2a6d8c0b1e30 00000000:1B:00.0
	fleet_gpu 1 GPU-5f1c4b2e-0001-4c1b-9e7f-2a6d8c0b1e31 00000000:43:00.0 \
		temp_c="$(rep 4 61),$(rep 3 86),$(rep 3 61),86,86,61"
} >"$TMP/hot.ini"
export GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$TMP/hot.ini
t0=$(date +%s.%N)
start_serve s --root "$FIX/healthy" --interval 0.2s
U=http://$ADDR_s
for i in $(seq 150); do
	m=$(curl -sf -m 2 "$U/metrics") || die "/metrics failed"
	c=$(sed -n 's/^gpudoctor_collection_cycles_total //p' <<<"$m")
	[ "${c:-0}" -ge 16 ] && break
	sleep 0.2
done
[ "${c:-0}" -ge 16 ] || die "serve did not run 16 cycles in 30 s"
t1=$(date +%s.%N)
grep -q '^gpudoctor_finding{' <<<"$m" && die "a finding is still active after the series: $(grep '^gpudoctor_finding{' <<<"$m")"
lbl='rule="gpu.thermal_throttle",severity="warning",subject="gpu1",gpu="1",uuid="GPU-5f1c4b2e-0001-4c1b-9e7f-2a6d8c0b1e31",model="NVIDIA H100 80GB HBM3"'
grep -qxF "gpudoctor_finding_onsets_total{$lbl} 2" <<<"$m" ||
	die "onsets of the hot GPU are not 2: $(grep finding_onsets <<<"$m")"
act=$(grep -F "gpudoctor_finding_active_seconds_total{$lbl} " <<<"$m" | awk '{ print $NF }')
[ -n "$act" ] || die "no active seconds series: $(grep finding_active <<<"$m")"
awk -v a="$act" -v lo=0.54 -v t0="$t0" -v t1="$t1" 'BEGIN { exit !(a >= lo && a <= t1 - t0) }' ||
	die "active seconds $act not within [0.54, $t1 - $t0]"
[ "$(grep -c '^gpudoctor_finding_onsets_total{' <<<"$m")" = 1 ] || die "a series for the cool GPU: $(grep finding_onsets <<<"$m")"
grep -q '^# TYPE gpudoctor_finding_onsets_total counter$' <<<"$m" || die "no counter TYPE line for onsets"
grep -q '^# TYPE gpudoctor_finding_active_seconds_total counter$' <<<"$m" || die "no counter TYPE line for active seconds"
grep -qx 'gpudoctor_finding_series_dropped_total 0' <<<"$m" || die "dropped counter missing or not 0"
promtool check metrics <<<"$m" >"$TMP/lint" 2>&1 || die "promtool: $(cat "$TMP/lint")"
echo "ok: 2 onsets, $act s active on gpu1"
