#!/bin/bash
# tests/probe/gpu_host.sh - the host probes inside gpudoctor probe: --data
# DIR gives storage lines (this machine's own storage, measured for real:
# the figures vary, the shape does not), STREAM runs per NUMA node, and the
# power draw at full burn (the fake GPUs' NVML watts; no BMC here) is judged
# against a configured PSU capacity.  The host probes alone need no GPU.
source "$(dirname "$0")/lib.sh"
setup
mkdir -p "$T/data/small"
for i in $(seq 1 300); do head -c 4096 /dev/urandom >"$T/data/small/$i.jpg"; done
head -c 16777216 /dev/urandom >"$T/data/shard-0000.tar"

HOST_SKIP=
probe --json --only storage,host_mem --data "$T/data"
[ "$rc" -le 1 ] && ok "host probes alone exit $rc" || { bad "exit $rc"; show; }
for p in storage.seq_read storage.rand_4k storage.small_files host_mem.triad; do
	st=$(jq -r --arg p "$p" '[.host.lines[] | select(.probe == $p) | .status][0]' "$T/out")
	[ "$st" = ok ] && ok "$p measured" || bad "$p: $st $(jq -c --arg p "$p" '.host.lines[] | select(.probe == $p)' "$T/out")"
done
jq -e '.host.results.storage.files == 301' "$T/out" >/dev/null && ok "301 files walked" || bad "files: $(jq '.host.results.storage.files' "$T/out")"
jq -e '.probe | length == 0' "$T/out" >/dev/null && ok "no GPU probe asked, none run" || bad "GPU rows with --only storage,host_mem"

# the draw at full burn: 2 fake GPUs at 552 + 549 W against 1200 W of PSU
# (a slower fake: 1 s of burn, so the samples see it)
sed -i "s/^time_scale = .*/time_scale = 0.1/" "$T/cuda.ini"
HOST_SKIP="--skip host_mem"
probe --json --gpus 0-1 --only compute_fp32,power --set probe.power_headroom.psu_capacity_w=1200
expect_rc 1
fired probe.power_headroom '.'
jq -e '.host.lines[] | select(.probe == "power.draw") | .achieved > 1100' "$T/out" >/dev/null &&
	ok "the GPUs' draw at the end of the burn" || bad "power.draw: $(jq -c '.host.lines[]' "$T/out")"
probe --gpus 0-1 --only compute_fp32,power --set probe.power_headroom.psu_capacity_w=3000
expect_rc 0
grep -q '^host probes:$' "$T/out" && grep -q '^  power.draw  ' "$T/out" && ok "text: host probes section" || { bad "no host section"; show; }
finish
