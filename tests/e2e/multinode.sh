#!/bin/bash
# tests/e2e/multinode.sh - the multi-node bed in short (issue 26, item 4;
# the long run is bench/multinode.sh): a job of 8 ranks on 8 network
# namespaces (tests/multinode/bed.bash: real processes, a ring all-reduce
# over TCP inside a test-built libnccl.so.2, a gpudoctor serve per node with
# the fake NVML following each rank's work, one Prometheus scraping them):
#   1. running healthy: every rank is seen and `fleet --job` names no
#      culprit;
#   2. one rank, on a node chosen at random, stopped with SIGSTOP (a hang):
#      fleet --job says job.rank_stuck naming that node's rank, the stopped
#      rank's node shows its main thread stopped (T), and the healthy nodes'
#      /metrics show job.waiting_for_peers (each rank waits in NCCL; the
#      host's CPUs are saturated by the bed itself, which is no local cause
#      as the job's threads in NCCL are not the ones starved).
# Scrapes every second.  Needs root (namespaces, a bridge, cgroups) and
# prometheus; waits are bounded (a hang fails, no timing is asserted).
#
# Exit 0 pass, 77 skip (reason on the last line), anything else fails.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
[ -n "${GPUDOCTOR:-}" ] && [ -x "$GPUDOCTOR" ] || fail "GPUDOCTOR (${GPUDOCTOR:-unset}) is not an executable"
# shellcheck source=tests/multinode/bed.bash
. "$(dirname "$0")/../multinode/bed.bash"
trap bed_down EXIT
trap 'exit 1' TERM INT
bed_need
export no_proxy=127.0.0.1,10.213.0.0/16 NO_PROXY=127.0.0.1,10.213.0.0/16

N=8
BED_SCRAPE=1s BED_STEP=1s BED_RANGE=12s BED_INTERVAL=1s BED_WINDOW=3s
bed_up "$N"
run="gdbed$BED_ID-e2e"
bed_job "$run" 5 120

# wait_for WHAT JQ [LIMIT]: polls fleet --job until JQ holds (at most LIMIT s)
wait_for() {
	local i
	for i in $(seq "${3:-60}"); do
		bed_verdict "$run" >"$BED_DIR/v.json"
		jq -e "$2" "$BED_DIR/v.json" >/dev/null 2>&1 && return 0
		sleep 1
	done
	fail "$1: $(jq -c '.verdict // .' "$BED_DIR/v.json" 2>/dev/null | head -c 600) $(head -c 300 "$BED_DIR/fleet.err")"
}

# 1. healthy: every rank seen for a whole range, no culprit
wait_for "not every rank seen" ".ranks_seen == $N"
sleep 12
bed_verdict "$run" >"$BED_DIR/v.json"
jq -e ".ranks_seen == $N and .verdict.culprits == [] and .verdict.missing == 0" "$BED_DIR/v.json" >/dev/null ||
	fail "a healthy job has a culprit: $(jq -c .verdict "$BED_DIR/v.json")"

# 2. a hang on one node
node=$((RANDOM % N))
bed_fault stop "$node" || fail "cannot stop rank $node"
want="$(bed_addr "$node"):9835/rank $node"
wait_for "the stopped rank $node is not named" \
	".verdict.rule == \"job.rank_stuck\" and [.verdict.culprits[].subject] == [\"$want\"]"
jq -e '.verdict.culprits[0].stuck == "stopped (T)"' "$BED_DIR/v.json" >/dev/null ||
	fail "the culprit is not said to be stopped: $(jq -c '.verdict.culprits' "$BED_DIR/v.json")"
curl -s -m 5 "http://$(bed_addr "$node"):9835/metrics" | grep -q '^gpudoctor_job_main_thread_state{.*state="T"} 1' ||
	fail "node $node's /metrics does not show its rank's main thread stopped"
# every healthy node waits (asked again while one is between windows)
best=0
for _ in $(seq 20); do
	waiting=0 others=""
	for k in $(seq 0 $((N - 1))); do
		[ "$k" = "$node" ] && continue
		m=$(curl -s -m 5 "http://$(bed_addr "$k"):9835/metrics")
		if grep -q '^gpudoctor_finding{rule="job.waiting_for_peers"[^}]*} 1' <<<"$m"; then
			waiting=$((waiting + 1))
		else
			others+=" node $k: $(grep -o '^gpudoctor_finding{rule="[^"]*' <<<"$m" | cut -d'"' -f2 | sort -u | tr '\n' ' ')"
		fi
	done
	[ "$waiting" -gt "$best" ] && best=$waiting
	[ "$waiting" -ge $((N - 1)) ] && break
	sleep 1
done
[ "$best" -ge $((N - 1)) ] || fail "job.waiting_for_peers on at most $best of $((N - 1)) healthy nodes; the last time, the others had:$others"
waiting=$best
echo "rank $node stopped: named by fleet --job; job.waiting_for_peers on $waiting of $((N - 1)) healthy nodes"
exit 0
