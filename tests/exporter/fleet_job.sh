#!/bin/bash
# tests/exporter/fleet_job.sh - `gpudoctor fleet --prometheus URL --job ID`
# against a real Prometheus serving ten minutes of five jobs' series at 15 s
# (job_openmetrics.py, backfilled with promtool tsdb create-blocks-from
# openmetrics), each 4 nodes x 2 ranks, the culprit being rank 5 (node 2,
# local rank 1):
#   slowjob   rank 5 computes (2% in NCCL) while the others wait 60%; its
#             node has gpu.thermal_throttle, node 0 has cpu.saturated
#   okjob     every rank computes: no verdict, exit 0
#   stuckjob  rank 5 stopped (T) from the middle on, the others wait 70%;
#             node 3 never reported: 2 of 8 ranks unseen
#   netjob    every rank waits: no rank stands out, net.rdma_unused cited
#   perjob    rank 5 slow 30 s every 150 s: named with its period
# and an id that matches nothing, which lists the ids seen.  The verdict
# must be exactly that, the queries six (one pass, not one per rank).
set -u
. "$(dirname "$0")/lib.bash"
need prometheus
need promtool prometheus
need jq
need python3
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
end=$(( ($(date +%s) - 3 * 3600) / 3600 * 3600 ))
python3 tests/exporter/job_openmetrics.py "$end" 600 15 slowjob:slow:4:2:0 okjob:healthy:4:2:4 \
	stuckjob:stuck:4:2:8:3 netjob:collective:4:2:12 perjob:periodic:4:2:16 >"$TMP/job.om" || die "generator failed"
promtool tsdb create-blocks-from openmetrics "$TMP/job.om" "$TMP/tsdb" >"$TMP/import.log" 2>&1 ||
	die "backfill failed: $(tail -n 3 "$TMP/import.log")"
printf 'global: {scrape_interval: 1h}\n' >"$TMP/p.yml"
start_prometheus "$TMP/p.yml" --storage.tsdb.retention.time=10y

fj() { # fj JOB [ARGS...]: fleet --job JOB --json into $TMP/JOB.json; sets rc
	local j=$1
	shift
	"$G" fleet --prometheus "$P" --at "$end" --job "$j" --json "$@" >"$TMP/$j.json" 2>"$TMP/$j.err"
	rc=$?
	J=$TMP/$j.json
}
jqe() { jq -e "$1" "$J" >/dev/null || die "$2: $(jq -c "${3:-.verdict}" "$J")"; }

fj slowjob --stats
[ $rc = 1 ] || die "slowjob: exit $rc, want 1: $(cat "$TMP/slowjob.err")"
jqe '.verdict.kind == "slow_rank" and .verdict.rule == "job.slow_rank" and .verdict.severity == "warning"' "slowjob verdict"
jqe '[.verdict.culprits[] | .subject] == ["node0002:9835/rank 5"]' "slowjob culprit"
jqe '.verdict.others_wait > 0.59 and .verdict.others_wait < 0.61' "slowjob: the others' waiting"
jqe '[.verdict.causes[] | .rule] == ["gpu.thermal_throttle"]' "slowjob: only its node's finding is the cause"
jqe '.ranks_seen == 8 and .nodes == 4 and .verdict.missing == 0' "slowjob ranks" '.'
jqe '.cost.queries == 6 and .cost.samples > 0' "slowjob: not one pass of six queries" '.cost'
jqe '[.ranks[] | select(.rank == 5) | .status] == ["SLOW: 41 of 41 steps"]' "slowjob table" '.ranks'

fj okjob --match job=gpudoctor
[ $rc = 0 ] || die "okjob: exit $rc, want 0: $(cat "$TMP/okjob.err")"
jqe '.verdict.kind == "healthy" and .verdict.culprits == [] and .verdict.rule == null' "healthy job not silent"

fj stuckjob
[ $rc = 2 ] || die "stuckjob: exit $rc, want 2"
jqe '.verdict.kind == "rank_stuck" and .verdict.rule == "job.rank_stuck" and .verdict.severity == "critical"' "stuckjob verdict"
jqe '[.verdict.culprits[] | [.subject, .stuck]] == [["node0010:9835/rank 5", "stopped (T)"]]' "stuckjob culprit"
jqe '.verdict.missing == 2 and .verdict.missing_ranks == "6-7" and .verdict.missing_node_ranks == "3" and .verdict.depends_on_unseen' \
	"stuckjob: the unseen ranks"

fj netjob
[ $rc = 1 ] || die "netjob: exit $rc, want 1"
jqe '.verdict.kind == "no_rank_stands_out" and .verdict.culprits == [] and [.verdict.causes[] | .rule] == ["net.rdma_unused"]' \
	"netjob: no rank stands out"

fj perjob
jqe '.verdict.kind == "slow_rank" and [.verdict.culprits[] | [.rank, .episodes, .period_s, .episode_s]] == [[5, 4, 150, 30]]' \
	"perjob: the period"

fj nosuch
[ $rc = 3 ] || die "nosuch: exit $rc, want 3"
jqe '.job_ids_seen | sort == ["netjob","okjob","perjob","slowjob","stuckjob"]' "the ids seen" '.'
fj slowjob --match cluster=elsewhere
[ $rc = 3 ] || die "--match of nothing: exit $rc, want 3: $(cat "$TMP/slowjob.err")"
jqe '.job_ids_seen == [] and .ranks_seen == 0' "--match of nothing" '.'

# text and HTML: the verdict line first; Chinese
"$G" fleet --prometheus "$P" --at "$end" --job slowjob --html "$TMP/j.html" >"$TMP/j.txt"
head -n 1 "$TMP/j.txt" | grep -q '^job.slow_rank warning: rank 5 on node0002:9835 holds the job back' ||
	die "text: $(head -n 3 "$TMP/j.txt")"
grep -q '<p class=v>job.slow_rank warning' "$TMP/j.html" || die "HTML has no verdict"
[ "$(stat -c %a "$TMP/j.html")" = 600 ] || die "the new HTML file is mode $(stat -c %a "$TMP/j.html"), want 600"
# a link planted where the HTML goes is refused, not followed
ln -s "$TMP/victim" "$TMP/link.html"
"$G" fleet --prometheus "$P" --at "$end" --job slowjob --html "$TMP/link.html" >/dev/null 2>"$TMP/link.err" &&
	die "--html through a symbolic link succeeded"
[ ! -e "$TMP/victim" ] || die "--html wrote through a symbolic link"
"$G" fleet --lang zh_CN --prometheus "$P" --at "$end" --job stuckjob >"$TMP/zh.txt"
grep -q '卡住' "$TMP/zh.txt" || die "zh_CN: $(head -n 2 "$TMP/zh.txt")"
"$G" fleet --prometheus "$P" --at "$end" --job nosuch >/dev/null 2>"$TMP/nosuch.err"
grep -q 'job ids seen: netjob okjob perjob slowjob stuckjob' "$TMP/nosuch.err" || die "no-match message: $(cat "$TMP/nosuch.err")"
echo "ok: slow, healthy, stuck with unseen ranks, no rank stands out, periodic, unknown ids"
