#!/bin/bash
# tests/exporter/fleet_alerts.sh - deploy/prometheus/fleet_alerts.yml is
# valid and its unit tests (tests/exporter/fleet_alerts_test.yml, written by
# hand) pass: repeat-offender GPUs and nodes from the onset counters, a GPU
# slow for its model for hours; and every series it reads is one serve
# exports (names checked against a live /metrics of a fake-NVML GPU).
set -u
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/fleet_lib.bash"
need promtool prometheus
A=deploy/prometheus/fleet_alerts.yml
promtool check rules "$A" >/dev/null || die "promtool check rules $A: $(promtool check rules "$A" 2>&1)"
promtool test rules tests/exporter/fleet_alerts_test.yml || die "promtool test rules tests/exporter/fleet_alerts_test.yml"
FAKE=$(dirname "$G")/fake_nvml/libnvidia-ml.so.1
{ fleet_head; fleet_gpu 0 GPU-x0 00000000:1B:00.0 temp_c=86; } >"$TMP/x.ini"
GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$TMP/x.ini start_serve s --root "$FIX/healthy" --interval 0.2s
sleep 0.5
curl -sf -m 2 "http://$ADDR_s/metrics" >"$TMP/m" || die "/metrics failed"
for name in $(grep -oE 'gpudoctor_[a-z_]+' "$A" | sort -u); do
	grep -q "^$name{" "$TMP/m" || die "$A reads $name, which serve does not export"
done
echo "ok: $(grep -c 'alert:' "$A") fleet alerts, $(grep -c 'record:' "$A") recording rules"
