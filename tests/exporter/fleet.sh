#!/bin/bash
# tests/exporter/fleet.sh - `gpudoctor fleet` against a real Prometheus that
# scrapes four `gpudoctor serve` on 127.0.0.2-5, each on its own copy of
# the healthy fixture tree and its own fake-NVML scenario, with faults that
# come and go during the run (serve cycles every 0.5 s; a fake-NVML list
# gives one value per cycle):
#
#   a (127.0.0.2)  both GPUs idle (1 %) in cycles 20-27 while the job holds
#                  them, with no finding on the node: a stall with no cause;
#                  gpu1 runs at 1800 of 1980 MHz throughout (a slow GPU no
#                  rule flags: 91 % of max)
#   b (127.0.0.3)  gpu1 hot (86 C, slowdown 87 C) in cycles 6-15 and 24-29:
#                  gpu.thermal_throttle begins twice
#   c (127.0.0.4)  gpu0 falls off the bus (NVML: GPU_IS_LOST) after its
#                  600th call, about cycle 13, and stays lost: gpu.lost
#   d (127.0.0.5)  gpu0 in hardware slowdown (clock-event reason 0x8) in
#                  cycles 4-7: gpu.hw_slowdown, critical, once; then stops
#                  answering (SIGSTOP) at 12 s and stays stopped: its
#                  counters are read by the full form (a node gone before
#                  the end), and its old critical finding is no drain
#
# What the script implies, and `gpudoctor fleet --json` must say exactly:
#   causes    gpu.thermal_throttle GPU 2 onsets 1 GPU 1 node; gpu.lost GPU
#             1 onset 1 GPU 1 node; gpu.hw_slowdown GPU 1 onset 1 GPU 1 node;
#             no cause found 2 onsets 2 GPUs 1 node;
#             no other row; shares summing to 1
#   outliers  a gpu1 SM clock (1800 vs 1980 MHz); b gpu1 temperature; a gpu0
#             and a gpu1 utilisation (their idle cycles) — no other
#   drain     c gpu.lost gpu0, with the catalogue's remedy — no other
#   repeat    b gpu1 (2 onsets of gpu.thermal_throttle) — no other
#   blind     d: not scraped for some seconds, down now — no other
# GPU-hours are checked against the time the faults lasted, not for a
# figure: the cycles' spacing is the machine's.
set -u
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/fleet_lib.bash"
FAKE=$(dirname "$G")/fake_nvml/libnvidia-ml.so.1
[ -f "$FAKE" ] || die "$FAKE is not built (make unit)"
need prometheus
need promtool prometheus
need jq
export no_proxy=127.0.0.1,127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5 NO_PROXY=127.0.0.1
U1=GPU-f1ee0000-0000-4000-8000-00000000000
idle="util_gpu_pct=$(rep 20 96),$(rep 8 1),96"
fleet_pair "${U1}1" "$idle" -- "$idle" sm_clock_mhz=1800 >"$TMP/a.ini"
fleet_pair "${U1}2" -- "temp_c=$(rep 6 61),$(rep 10 86),$(rep 8 61),$(rep 6 86),61" >"$TMP/b.ini"
fleet_pair "${U1}3" lost_after=600 -- >"$TMP/c.ini"
fleet_pair "${U1}4" "clock_event_reasons=$(rep 4 0x0),$(rep 4 0x8),0x0" -- >"$TMP/d.ini"

# start_at NAME IP: serve on IP:0 with its own root and scenario
start_at() {
	cp -a "$FIX/healthy" "$TMP/root-$1"
	SERVE_IP=$2 GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$TMP/$1.ini \
		start_serve "$1" --root "$TMP/root-$1" --interval 0.5s
}
# a stopped process does not act on SIGTERM: continue it before cleanup
trap 'kill -CONT "${PID_d:-0}" 2>/dev/null; cleanup' EXIT
T0=$(date +%s)
for n in a b c d; do
	case $n in a) ip=127.0.0.2 ;; b) ip=127.0.0.3 ;; c) ip=127.0.0.4 ;; d) ip=127.0.0.5 ;; esac
	start_at $n $ip
done

cat >"$TMP/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: gpudoctor
    static_configs:
      - targets: ['$ADDR_a', '$ADDR_b', '$ADDR_c', '$ADDR_d']
        labels: {cluster: test}
  - job_name: other
    static_configs:
      - targets: ['127.0.0.1:1']
YML
promtool check config "$TMP/prometheus.yml" >/dev/null || die "bad Prometheus config"
start_prometheus "$TMP/prometheus.yml" --query.lookback-delta=5s

# cycles: the scenario's lists run out after cycle 30; d stops at 12 s
cycles() { curl -sf -m 2 "http://$1/metrics" | sed -n 's/^gpudoctor_collection_cycles_total //p'; }
while [ $(($(date +%s) - T0)) -lt 12 ]; do sleep 0.2; done
kill -STOP "$PID_d"
for i in $(seq 300); do
	c=$(cycles "$ADDR_a")
	[ "${c:-0}" -ge 40 ] && [ "$(cycles "$ADDR_b")" -ge 40 ] && [ "$(cycles "$ADDR_c")" -ge 40 ] && break
	sleep 0.2
done
[ "${c:-0}" -ge 40 ] || die "serve a did not run 40 cycles in 60 s"
sleep 3  # two more scrapes of every counter's last value
T1=$(date +%s)
elapsed=$((T1 - T0))

"$G" fleet --prometheus "$P/" --range 2m --step 1s --match cluster=test --stats --json >"$TMP/fleet.json" 2>"$TMP/fleet.err" ||
	die "gpudoctor fleet failed: $(cat "$TMP/fleet.err")"
"$G" fleet --prometheus "$P" --range 2m --step 1s --match cluster=test --html "$TMP/fleet.html" >"$TMP/fleet.txt" ||
	die "gpudoctor fleet (text) failed"
J=$TMP/fleet.json
A=(--arg a "$ADDR_a" --arg b "$ADDR_b" --arg c "$ADDR_c" --arg d "$ADDR_d" --argjson e "$elapsed")
jqe() { jq -e "${A[@]}" "$1" "$J" >/dev/null || die "$2: $(jq -c "${3:-.}" "$J")"; }
jqe '.nodes == 4 and .gpus == 8' "not 4 nodes with 8 GPUs" '{nodes, gpus}'
jqe '[.causes[] | [.category, .rule, .onsets, .gpus, .nodes]] | (.[:-1] | sort) + .[-1:] ==
	[["GPU","gpu.hw_slowdown",1,1,1], ["GPU","gpu.lost",1,1,1], ["GPU","gpu.thermal_throttle",2,1,1],
	 ["none","(no cause found)",2,2,1]]' \
	"the cause table is not what the faults imply" '[.causes[] | [.category, .rule, .onsets, .gpus, .nodes, .gpu_hours]]'
jqe '.causes | all(.gpu_hours > 0 and .gpu_hours * 3600 <= 2 * $e)' \
	"GPU-hours out of what the faults lasted (${elapsed} s)" '.causes'
jqe '([.causes[].share] | add) > 0.999 and ([.causes[].share] | add) < 1.001' "shares do not sum to 1" '.causes'
jqe '.share_denominator | test("sum of the rows")' "no denominator stated"
jqe '[.outliers[] | [.node, .gpu, .metric]] | sort ==
	([[$a,"1","SM clock under load"], [$b,"1","temperature under load"],
	 [$a,"0","utilisation while a job holds it"], [$a,"1","utilisation while a job holds it"]] | sort)' \
	"the outliers are not the slow, hot and idle GPUs" '.outliers'
jqe '.outliers[] | select(.metric == "SM clock under load") | .value == 1800 and .median == 1980 and .unit == "MHz" and .siblings >= 6' \
	"the slow GPU's clock deviation" '.outliers'
jqe '[.drain[] | [.node, .rule, .subject]] == [[$c, "gpu.lost", "gpu0"]]' "drain list" '.drain'
jqe '.drain[0].remedy | test("^Drain the node")' "drain without the remedy" '.drain'
jqe '[.repeat_offenders[] | [.node, .gpu, .onsets, .rules]] == [[$b, "1", 2, "gpu.thermal_throttle"]]' \
	"repeat offenders" '.repeat_offenders'
jqe '[.could_not_see[] | .node] == [$d] and .could_not_see[0].down_now and .could_not_see[0].not_scraped_s >= 3' \
	"could not see: not only d, or not down" '.could_not_see'
jqe '.warnings == []' "warnings from a healthy Prometheus" '.warnings'
jqe '.cost.queries > 10' "query count" '.cost'
grep -q '^Causes (share: of [0-9.]* GPU-hours, the sum of the rows' "$TMP/fleet.txt" || die "text output: $(cat "$TMP/fleet.txt")"
grep -q '(no cause found)' "$TMP/fleet.txt" || die "text output lacks the no-cause row"
grep -q '<h2>Drain now</h2>' "$TMP/fleet.html" || die "HTML output"
jqe '.cost.samples > 0 and (.cost.per_query | length) == .cost.queries' "no samples counted with --stats" '.cost'
[ -n "${FLEET_EXAMPLE:-}" ] && cp "$TMP/fleet.txt" "$FLEET_EXAMPLE" && cp "$J" "$FLEET_EXAMPLE.json"
echo "ok: $(jq -c '[.causes[] | [.rule, .onsets, .gpus, .nodes]]' "$J"); $(jq -c .cost "$J")"
