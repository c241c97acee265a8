#!/bin/bash
# tests/probe/gpu_phases.sh - findings "with the probe that provoked them":
# the rules of load (heat, links, ECC, Xid) name the probe phase that was
# running when their evidence was taken (evidence during_probe), in the
# JSON and the text report; findings that were there before the probe, and
# findings outside a probe run, name none.  And the SKU table: a
# [probe.sku "NAME"] section of the configuration file gives a lone GPU a
# figure to be judged by once our share of the datasheet is known; a
# malformed one stops the probe naming file and line.
source "$(dirname "$0")/lib.sh"

# during_probe ID SUBJECT-REGEX: the during_probe text of that finding ("" if none)
during_probe() {
	jq -r --arg id "$1" --arg s "$2" '[.findings[] | select(.id == $id and (.subject | test($s)))][0]
		| [.evidence[]? | select(.name == "during_probe") | .text][0] // ""' "$T/out"
}

# expect_tag ID SUBJECT-REGEX TAG-REGEX
expect_tag() {
	local tag
	tag=$(during_probe "$1" "$2")
	if [[ $tag =~ $3 ]]; then ok "$1 $2 during_probe \"$tag\""; else bad "$1 $2 during_probe \"$tag\", want /$3/"; fi
}

# gpu2 runs hot under the burn only: the fake driver marks its load file
# while a burn runs on it, the fake NVML reads 89 °C (slowdown at 87) while
# that file is not empty.  The series' last sample is cool again: only the
# burn's own samples show it.  time_scale 0.05: a 10 s burn takes 0.5 s, so
# the 50 ms sampler sees it.
setup
printf '[cuda]\ntime_scale = 0.05\n' >>"$T/cuda.ini"
: >"$T/gpu2.load"
cuda_set gpu2 load_file "$T/gpu2.load"
nvml_set 2 load_file "$T/gpu2.load"
nvml_set 2 load.temp_c 89
probe --json -o "$T/run.jsonl"
expect_rc 1
fired gpu.thermal_throttle '^gpu2 '
expect_tag gpu.thermal_throttle '^gpu2 ' '^compute_(fp32|bf16)( gpu[0-9,-]+)?$'
n=$(jq '[.findings[] | select(.id == "gpu.thermal_throttle")] | length' "$T/out")
[ "$n" = 1 ] && ok "gpu2 alone runs hot" || bad "$n thermal findings, want 1 (gpu2)"
jq -e '.findings[] | select(.id == "gpu.thermal_throttle") | .evidence[] | select(.name == "temp_c" and .value == 89)' \
	"$T/out" >/dev/null && ok "89 °C under the burn" || bad "no temp 89 evidence"
# outside a probe run nothing is tagged: check --from the -o file
GPUDOCTOR_NVML=/nonexistent "$G" check --json --from "$T/run.jsonl" >"$T/check.json" 2>"$T/check.err"
jq -e '[.findings[].evidence[]? | select(.name == "during_probe")] | length == 0' "$T/check.json" >/dev/null &&
	ok "check --from: no during_probe" || bad "check --from tags a finding"
# the text report says it under the finding
probe
grep -qE '^          .*during probe compute_(fp32|bf16)( gpu[0-9,-]+)?$' "$T/out" && ok "text: during probe compute_..." ||
	{ bad "no 'during probe' in the text report"; show; }

# an Xid logged at the first burn launch, ECC errors rising, a link at x8
# under load: each with the phase it appeared in; gpu5 hot before the
# probe started: not provoked by it
setup
printf '[cuda]\ntime_scale = 0.05\n' >>"$T/cuda.ini"
cuda_set gpu4 xid_file "$T/root/dev/kmsg"
cuda_set gpu4 xid_line "3,2001,1500000000,-;NVRM: Xid (PCI:0000:9d:00): 48, pid=77, name=gpudoctor, An uncorrectable double bit error"
nvml_set 4 ecc_uncorrected_volatile 0,0,0,0,2
nvml_set 3 pcie_width 16,8
nvml_set 5 temp_c 89
probe --json
expect_rc 2
expect_tag gpu.xid '9d:00' '^compute_fp32( |$)'
expect_tag gpu.ecc_uncorrectable '^gpu4' '^[a-z0-9_]+( gpu[0-9,-]+)?(, [a-z0-9_]+( gpu[0-9,-]+)?)*$'
expect_tag gpu.pcie_link_degraded '^gpu3' '^[a-z0-9_]+'
expect_tag gpu.thermal_throttle '^gpu5' '^$'
# a probe's own finding names its probe in the subject, not a phase
expect_tag probe.gpu_memory_errors '^gpu4' '^$'

# plain check on the same fake GPUs: no phase
GPUDOCTOR_FAKE_NVML=$T/nvml.ini "$G" check --json --root "$T/root" --nvml "$FAKE_NVML" >"$T/out" 2>"$T/err"
jq -e '[.findings[].evidence[]? | select(.name == "during_probe")] | length == 0' "$T/out" >/dev/null &&
	ok "check: no during_probe" || bad "check tags a finding"

# the SKU table from the configuration: a lone GPU's compute judged by it
# once the share is given: 67 TFLOP/s x 0.95 = 63650 GFLOP/s, and the
# fake's 51000 GFLOP/s is 80% of it (below 85%: slow)
setup
cat >"$T/gd.conf" <<'EOF'
[probe.gpu_compute_slow]
sibling_pct = 85

[probe.sku "NVIDIA H100 80GB HBM3"]
compute_fp32_reached = 0.95
reached_source = a test: the share the fake's 51000 GFLOP/s is judged by
EOF
probe --json --gpus 0 --only compute_fp32 --config "$T/gd.conf"
expect_rc 1
fired probe.gpu_compute_slow '^gpu0 .* compute_fp32$'
jq -e '.probe[] | select(.probe == "compute_fp32") | .expected_from == "SKU table" and (.expected | round) == 63650' \
	"$T/out" >/dev/null && ok "expected 63650 from the SKU table" ||
	bad "compute_fp32 row: $(jq -c '.probe[] | select(.probe == "compute_fp32")' "$T/out")"
# without the share, the built-in table leaves it to siblings
probe --json --gpus 0 --only compute_fp32
jq -e '.probe[] | select(.probe == "compute_fp32") | .expected == null' "$T/out" >/dev/null &&
	ok "no share: no SKU figure for compute" || bad "compute has an expected figure without a share"
# a malformed section: the probe does not start, and says where
printf '[probe.sku "NVIDIA H100 80GB HBM3"]\npcie_gen = 9\nsource = x\n' >"$T/bad.conf"
probe --json --gpus 0 --config "$T/bad.conf"
expect_rc 3
grep -qF "$T/bad.conf:2: pcie_gen = 9: expected a whole number from 1 to 6" "$T/err" && ok "file:line of the bad figure" ||
	{ bad "no file:line error"; show; }
# check reads the same file: the SKU sections are the probe's, not unknown rules
GPUDOCTOR_FAKE_NVML=$T/nvml.ini "$G" check --json --root "$T/root" --nvml "$FAKE_NVML" --config "$T/gd.conf" \
	>/dev/null 2>"$T/err"
crc=$?
[ "$crc" -le 2 ] && ok "check accepts [probe.sku] sections (exit $crc)" || { bad "check exits $crc"; cat "$T/err"; }
finish
