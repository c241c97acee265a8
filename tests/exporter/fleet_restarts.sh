#!/bin/bash
# tests/exporter/fleet_restarts.sh - `gpudoctor fleet` against a real
# Prometheus when many exporters restarted inside the range (a fleet-wide
# upgrade): their counters are read by the full form, whose selector names
# them in a regex (instance=~"a|b|...") while it is short and reads every
# node once it is not.  The selector was formatted into a fixed buffer and
# cut (Prometheus: "parse error: missing closing )") from 66 to 91
# restarted nodes of 38-byte names (44 bytes quoted); 92 and more switched
# to the other form.  Clusters of 1, 65, 66, 91, 92 and 2,000 restarted
# nodes, each with one node that did not restart, are backfilled with
# `promtool tsdb create-blocks-from openmetrics` (17 samples a series, a
# sample every 4 minutes over 64 minutes; a few seconds in all), and
# `fleet --range 1h --match cluster=cN` must count every node of each:
# N + 1 nodes, and the rule every node's onset counter rose for on all of
# them (a cut query is an error, exit 3; a query cut to a valid one would
# miss nodes); from 92 on, the full form reads every node.
set -u
. "$(dirname "$0")/lib.bash"
need prometheus
need promtool prometheus
need jq
need python3
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
SIZES="1 65 66 91 92 2000"
# the end of the data: three hours back, so that the blocks are not in
# the head's time (as bench/fleet/run.sh does)
end=$((($(date +%s) - 3 * 3600) / 60 * 60))
python3 - "$end" $SIZES >"$TMP/fleet.om" <<'PY' || die "the OpenMetrics generator failed"
import sys
end = int(sys.argv[1])
ts = [end - 64 * 60 + 4 * 60 * i for i in range(17)]   # 64 min back to the end, every 4 min
mid = end - 30 * 60                                      # restarts at half the range
w = sys.stdout.write
k = 0
for n in map(int, sys.argv[2:]):
    for i in range(n + 1):
        # 38 bytes, 3 dots: 44 bytes as a quoted regex literal, 45 with its '|'
        inst = "gpu-node-%05d.rack07.dc1.example:9835" % k
        k += 1
        restarted = i < n
        lab = 'cluster="c%d",instance="%s",job="gpudoctor"' % (n, inst)
        for t in ts:
            w('gpudoctor_build_info{%s,version="0.1.0"} 1 %d\n' % (lab, t))
        for j, t in enumerate(ts):
            # restarted: the cycle counter and the finding counters begin again at mid
            v = j + 100 if not restarted or t < mid else (t - mid) // 240
            w('gpudoctor_collection_cycles_total{%s} %d %d\n' % (lab, v, t))
        for j, t in enumerate(ts):
            if restarted:
                v = (5 if t < end - 40 * 60 else 6) if t < mid else (0 if t < mid + 600 else 1)
            else:
                v = 5 if t < end - 40 * 60 else 6
            w('gpudoctor_finding_onsets_total{%s,gpu="0",rule="gpu.xid",severity="critical",subject="gpu0"} %d %d\n'
              % (lab, v, t))
w("# EOF\n")
PY
promtool tsdb create-blocks-from openmetrics "$TMP/fleet.om" "$TMP/tsdb" >"$TMP/import.log" 2>&1 ||
	die "promtool could not backfill: $(tail -n 5 "$TMP/import.log")"
rm -f "$TMP/fleet.om"
printf 'global: {scrape_interval: 1h}\n' >"$TMP/p.yml"
start_prometheus "$TMP/p.yml" --storage.tsdb.retention.time=10y
for n in $SIZES; do
	"$G" fleet --prometheus "$P" --at "$end" --range 1h --match "cluster=c$n" --json >"$TMP/$n.json" 2>"$TMP/$n.err" ||
		die "$n restarted nodes: exit $?: $(head -c 600 "$TMP/$n.err")"
	jq -e --argjson n "$n" '.nodes == $n + 1' "$TMP/$n.json" >/dev/null ||
		die "$n restarted nodes: want $((n + 1)) nodes, got $(jq .nodes "$TMP/$n.json")"
	jq -e --argjson n "$n" '.causes | map(select(.rule == "gpu.xid")) | length == 1 and .[0].nodes == $n + 1
		and .[0].onsets >= $n + 1' "$TMP/$n.json" >/dev/null ||
		die "$n restarted nodes: the gpu.xid row is not on $((n + 1)) nodes: $(jq -c '.causes' "$TMP/$n.json")"
	# the restarted nodes' queries: named in a regex up to 91, else every node
	q=$(jq -r '.cost.per_query | map(.query) | join(";")' "$TMP/$n.json")
	case $q in *"(nodes gone or restarted)"*) ;; *) die "$n restarted nodes: no full-form query: $q" ;; esac
	if [ "$n" -ge 92 ]; then
		case $q in *"causes: onsets;"*) die "$n restarted nodes: the fast form ran (want the full form for all): $q" ;; esac
	fi
done
echo "ok: fleet counts every node with $SIZES exporters restarted in the range"
