#!/bin/bash
# tests/probe/gpu_faults.sh - faults the fake driver and the fake NVML
# produce while gpudoctor probe runs, each on one GPU of the 8-GPU node:
# one GPU's kernels 1.4x slower; device-to-host copies that flip a bit; PCIe
# copies at a quarter of the link; a device-memory cell that reads back
# wrong; ECC errors rising and an Xid logged during the burn; a slow peer.
source "$(dirname "$0")/lib.sh"

# 1.4x slower kernels on gpu3: 71% of its siblings' median < 85%
setup
cuda_set gpu3 slow 1.4
probe --json
expect_rc 1
fired probe.gpu_compute_slow '^gpu3 \(0000:61:00.0\) compute_fp32$'
n=$(jq '[.findings[] | select(.id == "probe.gpu_compute_slow")] | length' "$T/out")
[ "$n" = 2 ] && ok "fp32 and bf16 burns, gpu3 only" || bad "$n compute_slow findings, want 2 (gpu3 fp32, bf16)"
pct=$(jq '[.findings[] | select(.id == "probe.gpu_compute_slow") | .evidence[] | select(.name == "pct_of_siblings") | .value][0] | round' "$T/out")
[ "$pct" = 71 ] && ok "gpu3 at 71% of siblings" || bad "gpu3 at $pct% of siblings, want 71"
silent probe.gpu_compute_mismatch
silent probe.pcie_bandwidth_low

# gpu5's device-to-host copies flip a bit: the copies and the burn read back wrong
setup
cuda_set gpu5 d2h_flip 1
probe --json
expect_rc 2
fired probe.gpu_memory_errors '^gpu5 '
fired probe.gpu_compute_mismatch '^gpu5 '
jq -e '[.findings[] | select(.subject | test("^gpu5") | not) | select(.severity == "critical")] | length == 0' "$T/out" >/dev/null &&
	ok "the other GPUs are clean" || bad "a critical finding on another GPU"

# gpu2's copies run at a quarter of its Gen5 x16 link
setup
cuda_set gpu2 h2d_gbps 13
cuda_set gpu2 d2h_gbps 13
probe --json
expect_rc 1
fired probe.pcie_bandwidth_low '^gpu2 \(0000:52:00.0\) h2d$'
jq -e '[.findings[] | select(.id == "probe.pcie_bandwidth_low" and (.subject | test("^gpu2") | not))] | length == 0' "$T/out" >/dev/null &&
	ok "only gpu2's link" || bad "pcie_bandwidth_low on another GPU"
jq -e '.findings[] | select(.id == "probe.pcie_bandwidth_low") | .summary | test("26% of the 49.1 GB/s the link Gen5 x16 carries")' "$T/out" >/dev/null &&
	ok "judged against the trained link" || bad "summary: $(jq -r '[.findings[] | select(.id == "probe.pcie_bandwidth_low") | .summary][0]' "$T/out")"

# gpu6's memory keeps 3 wrong words in every large pattern
setup
cuda_set gpu6 bad_words 3
probe --json --only mem_pattern
expect_rc 2
fired probe.gpu_memory_errors '^gpu6 '

# ECC errors and an Xid during the burn on gpu4: the fake NVML's counter
# rises after the first samples, the fake driver logs Xid 48 to the kernel
# log (dev/kmsg under --root) at the first burn launch
setup
nvml_set 4 ecc_uncorrected_volatile 0,0,0,0,2
cuda_set gpu4 xid_file "$T/root/dev/kmsg"
# (inih reads lines of up to 200 bytes: the record is kept short)
cuda_set gpu4 xid_line "3,2001,1500000000,-;NVRM: Xid (PCI:0000:9d:00): 48, pid=77, name=gpudoctor, An uncorrectable double bit error"
probe --json
expect_rc 2
fired probe.gpu_memory_errors '^gpu4 '
fired gpu.ecc_uncorrectable '^gpu4'
fired gpu.xid 'gpu4|9d:00'
jq -e '.findings[] | select(.id == "probe.gpu_memory_errors") | .evidence[] | select(.name == "ecc_uncorrected_during_probe" and .value == 2)' "$T/out" >/dev/null &&
	ok "2 uncorrectable errors during the probe" || bad "no ecc_uncorrected_during_probe=2"

# gpu3's link trains at x8 under load (x16 idle): the existing rule judges
# the series sampled during the probe
setup
nvml_set 3 pcie_width 16,8
probe --json --only pcie
fired gpu.pcie_link_degraded '^gpu3'
jq -e '.probe[] | select(.gpu == 3 and .probe == "h2d") | .expected_from == "link Gen5 x8"' "$T/out" >/dev/null &&
	ok "gpu3's copies judged against the x8 it trained at" || bad "gpu3 h2d: $(jq -c '.probe[] | select(.gpu == 3 and .probe == "h2d")' "$T/out")"

# gpu1's device memory at 65% of its siblings'
setup
cuda_set gpu1 mem_gbps 1700
probe --json --only memory
expect_rc 1
fired probe.gpu_mem_bandwidth_low '^gpu1 \(0000:43:00.0\) mem_bandwidth$'

# one slow peer path: gpu7's copies to its peers at a third of the others
setup
cuda_set gpu7 p2p_gbps 120
probe --json --only p2p
expect_rc 1
fired probe.p2p_bandwidth_low '^gpu7 -> gpu0$'
n=$(jq '[.findings[] | select(.id == "probe.p2p_bandwidth_low")] | length' "$T/out")
[ "$n" = 7 ] && ok "gpu7's 7 pairs" || bad "$n p2p findings, want 7"
finish
