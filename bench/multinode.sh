#!/bin/bash
# bench/multinode.sh - localisation of a multi-node job's culprit on the test
# bed of tests/multinode/bed.bash (issue 26, item 4): N ranks on N network
# namespaces, a gpudoctor serve per node, one Prometheus scraping them every
# SCRAPE; each trial starts a fresh job (its own torchelastic run id), lets
# it run WARM seconds, injects one fault on a node chosen at random (the
# kinds in turn: none, cpu_quota, loader, gpu_throttle, tbf, stop, kill) and
# asks `gpudoctor fleet --prometheus URL --job ID` every POLL seconds:
#   - a fault trial scores right when the first verdict that names culprits
#     names exactly that node's rank; the time from the fault's onset to that
#     verdict is its time to verdict (none within LIMIT seconds: wrong);
#   - a healthy trial (none) is watched for LIMIT seconds: any culprit named
#     is a false culprit.
# Not a timed test: it takes minutes.  Root, network namespaces, prometheus.
#
#   bench/multinode.sh [TRIALS]     (default 35; N=8 SCRAPE=5s WARM=20 LIMIT=60
#                                    KINDS="none cpu_quota ..." STEP_MS=30)
# Results: one line per trial, then the summary (also in $OUT if set).
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
cd "$(dirname "$0")/.." || exit 1
GPUDOCTOR=${GPUDOCTOR:-$PWD/${BUILD:-build}/gpudoctor}
case $GPUDOCTOR in /*) ;; *) GPUDOCTOR=$PWD/$GPUDOCTOR ;; esac
# shellcheck source=tests/multinode/bed.bash
. tests/multinode/bed.bash
trap bed_down EXIT
trap 'exit 1' TERM INT

TRIALS=${1:-35}
N=${N:-8}
BED_SCRAPE=${SCRAPE:-5s}
BED_STEP=${BED_STEP:-$BED_SCRAPE}
WARM=${WARM:-20}
LIMIT=${LIMIT:-60}
POLL=${POLL:-2}
STEP_MS=${STEP_MS:-30}
read -r -a KINDS <<<"${KINDS:-none cpu_quota loader gpu_throttle tbf stop kill}"
bed_need
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /)
bed_up "$N"
now() { date +%s.%N; }

right=0 faults=0 healthy=0 false_culprits=0 times=()
declare -A by_kind_right=() by_kind_n=() by_kind_times=()
for t in $(seq 1 "$TRIALS"); do
	kind=${KINDS[$(( (t - 1) % ${#KINDS[@]} ))]}
	node=$((RANDOM % N))
	run="gdbed$BED_ID-t$t"
	bed_job "$run" "$STEP_MS" $((WARM + LIMIT + 60))
	# warm-up: every rank seen by the verdict, then WARM seconds in all
	start=$(now)
	for i in $(seq $((WARM / POLL + 1))); do
		sleep "$POLL"
		[ "$(bed_verdict "$run" | jq -r '.ranks_seen // 0')" = "$N" ] && break
	done
	rest=$(echo "$WARM - ($(now) - $start)" | bc)
	[ "${rest:0:1}" = - ] || sleep "$rest"
	onset=$(now)
	bed_fault "$kind" "$node" || fail "cannot inject $kind on node $node"
	want="$(bed_addr "$node"):9835/rank $node"
	got="" took="" verdict=""
	while :; do
		sleep "$POLL"
		el=$(echo "$(now) - $onset" | bc)
		v=$(bed_verdict "$run")
		culprits=$(jq -c '[.verdict.culprits[]?.subject]' <<<"$v" 2>/dev/null)
		verdict=$(jq -r '.verdict.kind // "none"' <<<"$v" 2>/dev/null)
		if [ -n "$culprits" ] && [ "$culprits" != "[]" ]; then
			got=$culprits
			took=$el
			[ "$kind" != none ] && break
		fi
		[ "$(echo "$el >= $LIMIT" | bc)" = 1 ] && break
	done
	by_kind_n[$kind]=$(( ${by_kind_n[$kind]:-0} + 1 ))
	if [ "$kind" = none ]; then
		healthy=$((healthy + 1))
		if [ -n "$got" ]; then
			false_culprits=$((false_culprits + 1))
			res="FALSE CULPRIT $got"
		else
			by_kind_right[$kind]=$(( ${by_kind_right[$kind]:-0} + 1 ))
			res="silent ($verdict)"
		fi
	else
		faults=$((faults + 1))
		if [ "$got" = "[\"$want\"]" ]; then
			right=$((right + 1))
			by_kind_right[$kind]=$(( ${by_kind_right[$kind]:-0} + 1 ))
			times+=("$took")
			by_kind_times[$kind]+=" $(printf '%.1f' "$took")"
			res="right in ${took%.*}.$(echo "$took" | cut -d. -f2 | cut -c1) s ($verdict)"
		else
			res="WRONG: got ${got:-nothing} ($verdict), want $want"
		fi
	fi
	printf 'trial %2d  %-12s node %d  %s  (load %s)\n' "$t" "$kind" "$node" "$res" "$(cut -d' ' -f1 /proc/loadavg)"
	bed_job_stop
	if [ "$kind" = gpu_throttle ]; then
		bed_nvml_ini "$node"
		bed_serve "$node"
	fi
done

summary() {
	local sorted med max k
	local -A shown=()
	echo "bed: $N ranks on $N network namespaces, scrape $BED_SCRAPE, fleet --step $BED_STEP --range ${BED_RANGE:-20s}, $TRIALS trials ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /) at the end, $LOAD0 at the start)"
	for k in "${KINDS[@]}"; do
		[ -n "${shown[$k]:-}" ] && continue
		shown[$k]=1
		printf '  %-12s %d of %d right\n' "$k" "${by_kind_right[$k]:-0}" "${by_kind_n[$k]:-0}"
	done
	if [ ${#times[@]} -gt 0 ]; then
		for k in "${KINDS[@]}"; do
			[ -n "${by_kind_times[$k]:-}" ] && [ -n "${shown[$k]:-}" ] || continue
			shown[$k]=
			printf '  %-12s time to verdict: %s s\n' "$k" "${by_kind_times[$k]# }"
		done
	fi
	if [ "$faults" -gt 0 ]; then
		printf 'localisation accuracy: %d of %d fault trials (%.1f%%)\n' "$right" "$faults" "$(echo "100 * $right / $faults" | bc -l)"
	fi
	printf 'false culprits on healthy trials: %d of %d\n' "$false_culprits" "$healthy"
	if [ ${#times[@]} -gt 0 ]; then
		sorted=$(printf '%s\n' "${times[@]}" | sort -n)
		med=$(echo "$sorted" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
		max=$(echo "$sorted" | tail -n 1)
		printf 'time from fault onset to verdict: median %.1f s, max %.1f s (polled every %s s)\n' "$med" "$max" "$POLL"
	fi
}
summary | tee ${OUT:+"$OUT"}
