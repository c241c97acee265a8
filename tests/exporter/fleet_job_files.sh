#!/bin/bash
# tests/exporter/fleet_job_files.sh - `gpudoctor fleet --job ID FILE...`
# over the recordings of four nodes (job_recordings.py: 4 nodes x 2 ranks,
# a snapshot every 5 s for 2 minutes, node 0's file gzip as record writes
# it): a slow rank (rank 5 computes while the others wait), a stuck one
# (rank 5 stopped from the middle on), a healthy job (silent, exit 0), a
# rank number claimed on two nodes (a conflict, no verdict, rank 7 unseen),
# and an id that matches nothing (the ids seen listed, exit 3).
set -u
. "$(dirname "$0")/lib.bash"
need jq
need python3
run() { # run SCENARIO [EXTRA] -- FLEET ARGS: recordings, then fleet --job --json into $J; sets rc
	local sc=$1 ex=$2
	shift 3
	rm -rf "$TMP/r"
	mkdir -p "$TMP/r"
	python3 tests/exporter/job_recordings.py "$TMP/r" torchelastic:run1 4 2 120 5 "$sc" "$ex" || die "generator"
	gzip "$TMP/r/node0.jsonl"
	J=$TMP/$sc$ex.json
	"$G" fleet --range 2m --step 10s --json "$@" "$TMP"/r/node0.jsonl.gz "$TMP"/r/node{1,2,3}.jsonl >"$J" 2>"$TMP/err"
	rc=$?
}
jqe() { jq -e --argjson rc "$rc" "$1" "$J" >/dev/null || die "$2 (exit $rc): $(jq -c "${3:-.verdict}" "$J") $(cat "$TMP/err")"; }

run slow "" -- --job torchelastic:run1
jqe '$rc == 1' "slow: exit" '.'
jqe '.verdict.rule == "job.slow_rank" and [.verdict.culprits[] | .subject] == ["rec-node2/rank 5"]' "slow: culprit"
jqe '.verdict.others_wait > 0.55 and .ranks_seen == 8 and .nodes == 4 and .cost.queries == 0' "slow: proof and counts" '.'
jqe '[.ranks[] | select(.rank == 5) | .sm] | .[0] > 0.9' "slow: SM activity from utilisation" '.ranks'
run stuck "" -- --job torchelastic:run1
jqe '.verdict.rule == "job.rank_stuck" and [.verdict.culprits[] | [.subject, .stuck]] == [["rec-node2/rank 5", "stopped (T)"]]' \
	"stuck: culprit"
jqe '$rc == 2' "stuck: exit" '.'
run healthy "" -- --job torchelastic:run1
jqe '$rc == 0 and .verdict.kind == "healthy" and .verdict.culprits == []' "healthy: not silent"
run healthy conflict -- --job torchelastic:run1
jqe '.verdict.kind == "conflict" and .verdict.culprits == [] and [.verdict.conflicts[] | .rank] == [5]' "conflict"
jqe '.verdict.missing == 1 and .verdict.missing_ranks == "7"' "conflict: rank 7 unseen"
run healthy other -- --job nosuch
jqe '$rc == 3 and .job_ids_seen == ["other-job", "torchelastic:run1"]' "unknown id" '.'
"$G" fleet --job torchelastic:run1 "$TMP"/r/node*.jsonl* >"$TMP/t.txt"
head -n 1 "$TMP/t.txt" | grep -q '^no rank holds the job back: 8 ranks on 4 nodes' || die "text: $(head -n 2 "$TMP/t.txt")"
echo "ok"
