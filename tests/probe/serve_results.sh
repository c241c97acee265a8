#!/bin/bash
# tests/probe/serve_results.sh - serve --probe-results exports the last
# probe's results from its -o file: gpudoctor_probe_*{gpu,probe,...} with
# the time the probe ended and the probe.* findings, lint-clean for
# promtool; a changed file is picked up, a missing one is an unavailable
# source, never a crash.
source "$(dirname "$0")/lib.sh"
setup
command -v promtool >/dev/null || { echo "FAIL: promtool missing (scripts/deps.sh installs prometheus)"; exit 1; }
cuda_set gpu2 h2d_gbps 13
probe -o "$T/probe.jsonl" --gpus 0-3 --only pcie
expect_rc 1
GPUDOCTOR_NVML=/nonexistent "$G" serve --root "$T/root" --listen 127.0.0.1:0 --interval 200ms \
	--probe-results "$T/probe.jsonl" 2>"$T/serve.err" &
sp=$!
trap 'kill $sp 2>/dev/null; rm -rf "$T"' EXIT
port=
for _ in $(seq 50); do
	port=$(sed -n 's|.*serving http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$T/serve.err")
	[ -n "$port" ] && curl -sf "127.0.0.1:$port/metrics" >"$T/m" 2>/dev/null && grep -q gpudoctor_probe_achieved "$T/m" && break
	sleep 0.2
done
[ -n "$port" ] || { bad "serve did not start"; cat "$T/serve.err"; finish; }
grep -q '^gpudoctor_probe_achieved{gpu="2",probe="h2d",unit="GB/s",status="ok"} 12\.9' "$T/m" &&
	ok "gpu2's h2d figure exported" || { bad "no gpu2 h2d sample"; grep gpudoctor_probe_achieved "$T/m" | head; }
grep -q '^gpudoctor_probe_finished_seconds{gpu="0",probe="h2d"' "$T/m" && ok "with the time it was taken" || bad "no finished_seconds"
grep -q '^gpudoctor_finding{rule="probe.pcie_bandwidth_low",severity="warning",subject="gpu2 (0000:52:00.0) h2d"} 1' "$T/m" &&
	ok "the probe finding is exported" || { bad "no probe finding"; grep gpudoctor_finding "$T/m"; }
promtool check metrics <"$T/m" >"$T/lint" 2>&1 && ok "promtool check metrics" || { bad "promtool"; cat "$T/lint"; }
# a new probe run replaces the figures
cp "$repo/tests/fake_cuda/scenarios/node8.ini" "$T/cuda.ini"
probe -o "$T/new.jsonl" --gpus 0-3 --only pcie
mv "$T/new.jsonl" "$T/probe.jsonl"
for _ in $(seq 50); do
	curl -sf "127.0.0.1:$port/metrics" >"$T/m2" && ! grep -q 'rule="probe.pcie_bandwidth_low"' "$T/m2" && break
	sleep 0.2
done
grep -q '^gpudoctor_probe_achieved{gpu="2",probe="h2d",unit="GB/s",status="ok"} 5[12]\.' "$T/m2" &&
	ok "a changed file is read again" || { bad "the new results were not picked up"; grep 'gpu="2",probe="h2d"' "$T/m2"; }
rm -f "$T/probe.jsonl"
sleep 0.6
curl -sf "127.0.0.1:$port/metrics" >"$T/m3"
grep -q '^gpudoctor_collector_success{collector="probe_results"} 0' "$T/m3" && ! grep -q gpudoctor_probe_achieved "$T/m3" &&
	ok "a missing file: the source fails, no stale figures" || { bad "missing file"; grep probe "$T/m3" | head; }
kill -0 $sp 2>/dev/null && ok "serve still running" || bad "serve died"
finish
