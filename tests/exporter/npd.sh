#!/bin/bash
# tests/exporter/npd.sh - `gpudoctor check --npd CONDITION` against a running
# `gpudoctor serve`, checked against node-problem-detector's plugin protocol
# (FLEET.md §3.3): exit 0 OK, 1 problem, 2 unknown; one line on stdout of at
# most 80 bytes (max_output_length), valid UTF-8, leading with the rule id
# and subject of the worst finding of the condition.
#   faulty node: gpu0 lost (critical), gpu1 hot (warning) -> gpu-unhealthy 1
#     "gpu.lost gpu0...", gpu-degraded 1 "gpu.thermal_throttle gpu1 ...",
#     node-unhealthy 0
#   healthy node -> 0 for all three; no serve -> 2; a bad condition -> 2
# deploy/kubernetes/npd/gpudoctor-monitor.json is checked against NPD's
# config rules (plugin custom, each permanent rule's condition declared, rule
# timeouts within the global one, the args a condition this binary knows).
set -u
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/fleet_lib.bash"
need jq
need python3
FAKE=$(dirname "$G")/fake_nvml/libnvidia-ml.so.1
[ -f "$FAKE" ] || die "$FAKE is not built (make unit)"
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
{
	fleet_head
	fleet_gpu 0 GPU-a0 00000000:1B:00.0 lost_after=40
	fleet_gpu 1 GPU-a1 00000000:43:00.0 temp_c=86
} >"$TMP/faulty.ini"
{ fleet_head; fleet_gpu 0 GPU-b0 00000000:1B:00.0; } >"$TMP/healthy.ini"
GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$TMP/faulty.ini start_serve faulty --root "$FIX/healthy" --interval 0.2s
GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$TMP/healthy.ini start_serve healthy --root "$FIX/healthy" --interval 0.2s
sleep 1  # a few cycles: gpu0 is lost by then

# npd WANT-RC REGEX ARGS...: the protocol, then the message
npd() {
	local want=$1 re=$2 out rc lines
	shift 2
	out=$("$G" check --npd "$@" 2>"$TMP/npd.err")
	rc=$?
	lines=$(printf '%s\n' "$out" | wc -l)
	[ "$rc" = "$want" ] || die "check --npd $*: exit $rc, want $want: $out $(cat "$TMP/npd.err")"
	[ "$lines" = 1 ] || die "check --npd $*: $lines lines: $out"
	[ "$(printf %s "$out" | wc -c)" -le 80 ] || die "check --npd $*: more than 80 bytes: $out"
	printf %s "$out" | python3 -c 'import sys; sys.stdin.buffer.read().decode("utf-8")' ||
		die "check --npd $*: not UTF-8: $out"
	[[ $out =~ $re ]] || die "check --npd $*: /$re/ does not match: $out"
}
npd 1 '^gpu\.lost gpu0: ' gpu-unhealthy --serve "http://$ADDR_faulty"
npd 1 '^gpu\.thermal_throttle gpu1 ' gpu-degraded --serve "http://$ADDR_faulty/"
npd 0 '^ok: ' node-unhealthy --serve "http://$ADDR_faulty"
for c in gpu-unhealthy gpu-degraded node-unhealthy; do
	npd 0 '^ok: no ' "$c" --serve "http://$ADDR_healthy"
done
kill "$PID_healthy"; wait "$PID_healthy" 2>/dev/null
npd 2 '^unknown: gpudoctor serve not answering' gpu-unhealthy --serve "http://$ADDR_healthy" --timeout 1s
npd 2 '^unknown: --npd takes' nosuch
"$G" check --npd gpu-unhealthy --help | grep -q 'Usage: gpudoctor check --npd' || die "no --help"

M=deploy/kubernetes/npd/gpudoctor-monitor.json
jq -e '.plugin == "custom" and .pluginConfig.max_output_length == 80' "$M" >/dev/null || die "$M: plugin or max_output_length"
jq -e '([.conditions[].type]) as $c | all(.rules[]; .type == "permanent" and (.condition as $x | $c | index($x) != null))' \
	"$M" >/dev/null || die "$M: a permanent rule's condition is not declared"
jq -e '(.pluginConfig.timeout | rtrimstr("s") | tonumber) as $g | all(.rules[]; (.timeout | rtrimstr("s") | tonumber) <= $g)' \
	"$M" >/dev/null || die "$M: a rule timeout above the global one"
for c in $(jq -r '.rules[].args[2]' "$M"); do
	"$G" check --npd "$c" --serve http://127.0.0.1:1 --timeout 1s | grep -q '^unknown: gpudoctor serve' ||
		die "$M: the condition $c is not one gpudoctor knows"
done
grep -q 'gpudoctor-monitor.json' deploy/kubernetes/npd/daemonset.yaml || die "the DaemonSet does not load the monitor config"
echo "ok: NPD protocol (0/1/2, one line <= 80 bytes, UTF-8) for gpu-unhealthy, gpu-degraded, node-unhealthy"
