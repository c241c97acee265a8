#!/bin/bash
# gd-test: exclusive (it measures time, load or throughput: tests/run.sh runs it alone)
# tests/probe/host_mem_power.sh - the host memory and power probes on this
# machine, for real, through the test driver.
#
#   STREAM   one node per /sys/devices/system/node/node<N> with CPUs, one
#            pinned thread per CPU of it.  No Debian tool measures STREAM
#            triad per node to compare with (bench/probe_host runs
#            stress-ng --stream beside it), so this checks what can be
#            checked honestly here: every node ran, with as many threads as
#            it has CPUs, the best repetition at least the mean, and
#            probe.host_mem_bandwidth_low fires with expected_gb_s set 1000x
#            above the measured figure and stays silent 1000x below (a shared VM:
#            its figure moves 2x from one run to the next).
#   power    the real ipmitool (scripts/deps.sh installs it) asked for the
#            BMC's reading: this VM has no BMC device, so the BMC part is
#            unavailable with ipmitool's own message (on a server it reads
#            the BMC); RAPL is read where /sys/class/powercap has it.  The
#            GPUs' figure (here given: 400 W) is then the draw, and
#            probe.power_headroom fires against a 440 W PSU (9% headroom)
#            and stays silent against 4000 W.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
D=$BUILD/tests/probe_host_driver
command -v jq >/dev/null || { echo "jq is not installed (scripts/deps.sh installs it)"; exit 77; }
command -v ipmitool >/dev/null || { echo "ipmitool is not installed (scripts/deps.sh installs it)"; exit 77; }
[ -x "$D" ] || { echo "$D is missing: run make unit"; exit 1; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }

out=$("$D" --mem --stream-elems $((4 << 20)) --stream-reps 5) || bad "probe_host_driver --mem failed"
jq -e '.results.host_mem.avail.state == "ok"' <<<"$out" >/dev/null || bad "no node measured: $(jq -c .results.host_mem <<<"$out")"
for n in /sys/devices/system/node/node[0-9]*; do
	[ -d "$n" ] || continue
	id=${n##*node}
	list=$(cat "$n/cpulist")
	[ -n "$list" ] || continue
	cpus=$(awk -v l="$list" 'BEGIN { n = split(l, r, ","); c = 0
		for (i = 1; i <= n; i++) { if (split(r[i], ab, "-") == 2) c += ab[2] - ab[1] + 1; else c++ } print c }')
	jq -e --argjson id "$id" --argjson c "$cpus" '.results.host_mem.nodes[] | select(.node == $id) |
		.avail.state == "ok" and .threads == $c and .cpus == $c and .triad_gb_s > 0 and
		.triad_gb_s >= .triad_avg_gb_s' <<<"$out" >/dev/null ||
		bad "node$id ($cpus CPUs): $(jq -c --argjson id "$id" '.results.host_mem.nodes[] | select(.node == $id)' <<<"$out")"
done
best=$(jq '[.results.host_mem.nodes[] | select(.avail.state == "ok") | .triad_gb_s] | max' <<<"$out")
echo "STREAM triad: $(jq -c '[.results.host_mem.nodes[] | {node, threads, triad_gb_s, triad_avg_gb_s}]' <<<"$out")"
hi=$("$D" --mem --stream-elems $((4 << 20)) --stream-reps 5 \
	--set probe.host_mem_bandwidth_low.expected_gb_s="$(awk -v b="$best" 'BEGIN { print b * 1000 }')")
jq -e '[.findings[].id] | index("probe.host_mem_bandwidth_low") != null' <<<"$hi" >/dev/null ||
	bad "probe.host_mem_bandwidth_low did not fire against 1000x the measured figure: $(jq -c .findings <<<"$hi")"
jq -e '.findings[] | select(.id == "probe.host_mem_bandwidth_low") | .remedy | test("DIMM")' <<<"$hi" >/dev/null ||
	bad "the remedy does not name the DIMMs"
lo=$("$D" --mem --stream-elems $((4 << 20)) --stream-reps 5 \
	--set probe.host_mem_bandwidth_low.expected_gb_s="$(awk -v b="$best" 'BEGIN { print b / 1000 }')")
jq -e '[.findings[].id] | index("probe.host_mem_bandwidth_low") == null' <<<"$lo" >/dev/null ||
	bad "probe.host_mem_bandwidth_low was not silent against a thousandth of the measured figure"

pw=$("$D" --power --gpu-w 400 --budget 0.5 --set probe.power_headroom.psu_capacity_w=440) || bad "probe_host_driver --power failed"
echo "power: $(jq -c '.results.power | {draw_w, draw_from, bmc: .bmc.avail, rapl: .rapl.avail}' <<<"$pw")"
if jq -e '.results.power.bmc.avail.state == "ok"' <<<"$pw" >/dev/null; then
	jq -e '.results.power.bmc.inst_w > 0 and (.results.power.draw_from | test("BMC"))' <<<"$pw" >/dev/null || bad "a BMC reading that is not the draw"
else
	jq -e '.results.power.bmc.avail.why | test("ipmitool dcmi power reading exited [0-9]+: .+")' <<<"$pw" >/dev/null ||
		bad "the BMC's failure does not carry ipmitool's message: $(jq -c .results.power.bmc <<<"$pw")"
	jq -e '.results.power.draw_w >= 400 and (.results.power.draw_from | test("GPUs"))' <<<"$pw" >/dev/null ||
		bad "without a BMC the draw is not the GPUs' (+ RAPL): $(jq -c .results.power <<<"$pw")"
	jq -e '[.findings[].id] | index("probe.power_headroom") != null' <<<"$pw" >/dev/null ||
		bad "probe.power_headroom did not fire at 400 W of 440 W"
	pw=$("$D" --power --gpu-w 400 --budget 0.5 --set probe.power_headroom.psu_capacity_w=4000)
	jq -e '[.findings[].id] | index("probe.power_headroom") == null' <<<"$pw" >/dev/null ||
		bad "probe.power_headroom fired with 90% headroom"
fi
pw=$("$D" --power --gpu-w 400 --budget 0.5)
jq -e '.unknown[] | select(.id == "probe.power_headroom") | .reason | test("psu_capacity_w")' <<<"$pw" >/dev/null ||
	bad "without a PSU capacity the rule does not say what to configure"

[ $fail -eq 0 ] && echo "host_mem_power: every node measured; the rules fire and stay silent"
exit $fail
