#!/bin/bash
# tests/fake_cuda/mkfixtures.sh - writes the probe fixtures of tests/offline
# (04NN-probe-*/probe.jsonl): gpudoctor probe -o on the fake 8-GPU node with
# one fault each, keeping the first snapshot and the last (the one with the
# probe[] rows), so check --from reaches the probe's verdict offline.  Not
# run by the tests; rerun after a change to the probe's output, then
# UPDATE=1 tests/offline/run.sh 04* and review the diff.
set -eu
cd "$(dirname "$0")/../.."
source tests/probe/lib.sh
mk() { # NAME: runs probe with the faults set up before it
	local d=tests/offline/$1
	mkdir -p "$d"
	rm -f "$T/run.jsonl"
	probe -o "$T/run.jsonl" "${@:2}"
	{ head -n 1 "$T/run.jsonl"; tail -n 1 "$T/run.jsonl"; } >"$d/probe.jsonl"
	echo "$d: exit $rc"
}
setup; mk 0400-probe-healthy-8gpu
setup; cuda_set gpu3 slow 1.4; mk 0401-probe-compute-slow
setup; cuda_set gpu5 d2h_flip 1; mk 0402-probe-d2h-bit-flips
setup; cuda_set gpu6 hang gd_burn_fp32; mk 0403-probe-hung-kernel --duration 5s --deadline 1s
setup; cuda_set gpu2 h2d_gbps 13; cuda_set gpu2 d2h_gbps 13; mk 0404-probe-quarter-link
setup; cuda_set gpu7 p2p_gbps 120; mk 0405-probe-slow-peer --only p2p
setup; cuda_set gpu1 mem_gbps 1700; mk 0406-probe-slow-memory --only memory
