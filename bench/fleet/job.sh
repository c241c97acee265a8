#!/bin/bash
# bench/fleet/job.sh [NODES RANKS SECONDS STEP_S] - what `gpudoctor fleet
# --job ID` costs at scale: a job of NODES nodes x RANKS ranks (default
# 512 x 8 = 4,096 ranks) whose series (tests/exporter/job_openmetrics.py,
# scenario slow: rank 17 on node 2 computes while the others wait) cover
# SECONDS (default 3600) at one sample every STEP_S (default 15) s, is
# backfilled into a real Prometheus with `promtool tsdb create-blocks-from
# openmetrics`; then `gpudoctor fleet --job --stats --json` runs at its end
# over --range 10m and 1h.  Prints the backfill's size and time, and per
# run: the verdict, the queries with the samples Prometheus read (its own
# stats=all count), bytes and seconds, and the client's wall time, CPU time
# (user + system) and peak RSS (GNU time).  Not a test: minutes and GBs of
# disk.  docs/fleet.md and bench/README.md hold the figures.
set -u
cd "$(dirname "$0")/../.." || exit 1
G=${GPUDOCTOR:-$PWD/${BUILD:-build}/gpudoctor}
NODES=${1:-512} RANKS=${2:-8} SECONDS_=${3:-3600} STEP=${4:-15}
command -v promtool >/dev/null && command -v prometheus >/dev/null || { echo "needs promtool and prometheus"; exit 1; }
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)"; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gd-job-bench.XXXXXX")
PP=""
trap '[ -n "$PP" ] && kill "$PP" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
end=$(( ($(date +%s) - 3 * 3600) / 3600 * 3600 ))
t0=$(date +%s.%N)
python3 tests/exporter/job_openmetrics.py "$end" "$SECONDS_" "$STEP" "bigjob:slow:$NODES:$RANKS:0" >"$TMP/job.om" || exit 1
t1=$(date +%s.%N)
lines=$(wc -l <"$TMP/job.om")
bytes=$(stat -c %s "$TMP/job.om")
promtool tsdb create-blocks-from openmetrics "$TMP/job.om" "$TMP/data" >"$TMP/import.log" 2>&1 ||
	{ tail -n 5 "$TMP/import.log"; exit 1; }
t2=$(date +%s.%N)
rm -f "$TMP/job.om"
series=$(awk 'NF >= 8 && $1 ~ /^01/ { s += $5 } END { print s }' "$TMP/import.log")
printf 'job: %d nodes x %d ranks, %d s at %d s: %d samples (%d bytes of OpenMetrics, generated in %.0f s), backfilled in %.0f s\n' \
	"$NODES" "$RANKS" "$SECONDS_" "$STEP" "$((lines - 1))" "$bytes" "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)"
port=$((20000 + RANDOM % 40000))
printf 'global: {scrape_interval: 1h}\n' >"$TMP/p.yml"
prometheus --config.file="$TMP/p.yml" --storage.tsdb.path="$TMP/data" --storage.tsdb.retention.time=10y \
	--web.listen-address="127.0.0.1:$port" --log.level=error 2>"$TMP/prom.log" &
PP=$!
for i in $(seq 300); do curl -sf -m 1 "http://127.0.0.1:$port/-/ready" >/dev/null && break; sleep 0.2; done
for range in 10m 1h; do
	no_proxy=127.0.0.1 /usr/bin/time -f '%e %U %S %M' -o "$TMP/time" "$G" fleet --prometheus "http://127.0.0.1:$port" \
		--at "$end" --job bigjob --range "$range" --stats --json --timeout 120s --limit 100000 >"$TMP/f.json" 2>"$TMP/f.err"
	rc=$?
	[ $rc -le 2 ] || { cat "$TMP/f.err"; exit 1; }
	read -r wall user sys rss < <(tail -n 1 "$TMP/time")
	echo
	echo "--range $range (exit $rc): $(jq -r '.verdict.text' "$TMP/f.json")"
	jq -r '"  \(.ranks_seen) ranks on \(.nodes) nodes, \(.steps) steps of \(.step_s) s"' "$TMP/f.json"
	printf '  %-10s %12s %10s %9s %8s\n' query samples bytes seconds series
	jq -r '.cost.per_query[] | "\(.query)\t\(.samples)\t\(.bytes)\t\(.seconds)\t\(.series)"' "$TMP/f.json" |
		awk -F'\t' '{ printf "  %-10s %12d %10d %9.3f %8d\n", $1, $2, $3, $4, $5 }'
	jq -r '"  total: \(.cost.queries) queries, \(.cost.samples) samples, \(.cost.bytes) bytes, \(.cost.seconds) s in queries"' "$TMP/f.json"
	printf '  client: %s s wall, %.2f s CPU (user %s + system %s), peak RSS %d MiB\n' "$wall" \
		"$(echo "$user + $sys" | bc)" "$user" "$sys" "$((rss / 1024))"
done
