#!/bin/bash
# bench/fleet/run.sh [NODES DAYS STEP_S]... - what `gpudoctor fleet` costs
# a Prometheus: a synthetic fleet's history (gen_openmetrics.py: NODES nodes
# x 8 GPUs, one sample every STEP_S for DAYS days) is backfilled with
# `promtool tsdb create-blocks-from openmetrics`, a Prometheus serves it,
# and `gpudoctor fleet --stats --json` runs at its end over the whole range;
# prints, per query group, the samples Prometheus read (its own stats=all
# count), the answer's bytes and the time, for each size given (default: 10
# and 30 nodes, 1 day at 60 s).  docs/fleet.md extrapolates from these.
set -u
cd "$(dirname "$0")/../.." || exit 1
G=${GPUDOCTOR:-$PWD/${BUILD:-build}/gpudoctor}
[ $# -ge 3 ] || set -- 10 1 60 30 1 60
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gd-fleet-bench.XXXXXX")
PP=""
trap '[ -n "$PP" ] && kill "$PP" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
end=$(( ($(date +%s) - 3 * 3600) / 3600 * 3600 ))
printf '%-6s %-5s %-6s %-10s %-44s %12s %8s %9s\n' nodes days step range query-group samples bytes seconds
while [ $# -ge 3 ]; do
	n=$1 d=$2 st=$3
	shift 3
	rm -rf "$TMP/data" "$TMP/fleet.om"
	python3 bench/fleet/gen_openmetrics.py "$n" "$d" "$st" "$end" >"$TMP/fleet.om" || exit 1
	promtool tsdb create-blocks-from openmetrics "$TMP/fleet.om" "$TMP/data" >"$TMP/import.log" 2>&1 ||
		{ tail -n 5 "$TMP/import.log"; exit 1; }
	rm -f "$TMP/fleet.om"
	port=$((20000 + RANDOM % 40000))
	printf 'global: {scrape_interval: 1h}\n' >"$TMP/p.yml"
	prometheus --config.file="$TMP/p.yml" --storage.tsdb.path="$TMP/data" --storage.tsdb.retention.time=10y \
		--web.listen-address="127.0.0.1:$port" --log.level=error 2>"$TMP/prom.log" &
	PP=$!
	for i in $(seq 150); do curl -sf -m 1 "http://127.0.0.1:$port/-/ready" >/dev/null && break; sleep 0.2; done
	for range in "${d}d" "$(awk -v d="$d" 'BEGIN { print d * 12 }')h"; do
		no_proxy=127.0.0.1 "$G" fleet --prometheus "http://127.0.0.1:$port" --at "$end" --range "$range" --stats --json \
			--timeout 120s >"$TMP/f.json" 2>"$TMP/f.err" || { cat "$TMP/f.err"; exit 1; }
		jq -r --arg n "$n" --arg d "$d" --arg st "$st" --arg r "$range" '
			.cost.per_query | group_by(.query | sub(" \\(.*"; "") | sub("^outliers [^:]*:"; "outliers:"))
			| map({q: (.[0].query | sub(" \\(.*"; "") | sub("^outliers [^:]*:"; "outliers (5 metrics):")),
			       s: (map(.samples) | add), b: (map(.bytes) | add), t: (map(.seconds) | add)})
			| .[] | "\($n)\t\($d)\t\($st)\t\($r)\t\(.q)\t\(.s)\t\(.b)\t\(.t)"' "$TMP/f.json" |
			awk -F'\t' '{ printf "%-6s %-5s %-6s %-10s %-44s %12d %8d %9.3f\n", $1, $2, $3, $4, $5, $6, $7, $8 }'
		jq -r --arg n "$n" --arg r "$range" '"\($n)     total  \($r)  \(.cost.queries) queries: \(.cost.samples) samples, \(.cost.bytes) bytes, \(.cost.seconds) s; \(.nodes) nodes, \(.gpus) GPUs, \(.outliers | length) outliers"' "$TMP/f.json"
	done
	kill "$PP"
	wait "$PP" 2>/dev/null
	PP=""
done
