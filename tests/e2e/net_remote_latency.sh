#!/bin/bash
# tests/e2e/net_remote_latency.sh - a GPU job whose data path is far away,
# for real: two network namespaces made by this test (gdLA<pid>, gdLB<pid>),
# a veth pair between them with 10.232.X.1/30 and .2/30 inside them only,
# and on A's end a tbf qdisc with a deep queue on a slow rate (4 mbit/s,
# 256 KiB: up to half a second of queueing; this kernel has no netem).
# A "job" in A (nc, listed by the fake NVML as gpu0's compute process)
# streams to a server in B; `check --window 2s --json` must report
# net.remote_data_latency for it, naming the server (10.232.X.2:PORT) and an
# RTT of 10 ms or more from the kernel's tcp_info (sock_diag): run inside A,
# and run in this host's namespace (as for a job in a container: gpudoctor
# enters A to ask its socket table, and the socket record names A's
# namespace).  As nobody outside A (no CAP_SYS_ADMIN to enter it), with the
# job nobody's too, job_sockets says why the socket is unseen and the rule
# does not guess.  The same transfer without the tbf must not fire.
#
# Only the two namespaces are touched: deleting them (trap) removes the
# veth, the addresses and the qdisc with them.
#
# Exit 0 pass, 77 skip (reason on the last line), anything else fails.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"

[ -n "${GPUDOCTOR:-}" ] && [ -x "$GPUDOCTOR" ] || fail "GPUDOCTOR (${GPUDOCTOR:-unset}) is not an executable"
FAKE_NVML=$(dirname "$GPUDOCTOR")/fake_nvml/libnvidia-ml.so.1
case $FAKE_NVML in /*) ;; *) FAKE_NVML=$PWD/$FAKE_NVML ;; esac
case $GPUDOCTOR in /*) ;; *) GPUDOCTOR=$PWD/$GPUDOCTOR ;; esac
[ -f "$FAKE_NVML" ] || fail "$FAKE_NVML is not built (make unit)"
command -v jq >/dev/null || skip "jq is not installed"
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
command -v ip >/dev/null || skip "ip (iproute2) is not installed"
command -v tc >/dev/null || skip "tc (iproute2) is not installed"
ip netns list >/dev/null 2>&1 || skip "ip netns is not supported here"
command -v nc >/dev/null || skip "nc (netcat) is not installed"

A=gdLA$$ B=gdLB$$ VA=gdla$$ VB=gdlb$$
X=$(( ($$ + RANDOM) % 250 + 1 ))
ADDR_A=10.232.$X.1 ADDR_B=10.232.$X.2 PORT=5002
tmp=$(mktemp -d /tmp/gd-e2e-rtt.XXXXXX) || fail "mktemp"
jobs_pids=()
cleanup() {
	for p in "${jobs_pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${jobs_pids[@]}"; do wait "$p" 2>/dev/null; done
	netns_del "$A" "$B"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' TERM INT

netns_pair "$A" "$B" "$VA" "$VB" "$ADDR_A" "$ADDR_B"

# measure NAME [outside [nobody]]: streams A -> B (at most 20 s) while check
# runs inside A (or outside it, in this host's namespace; as nobody, the job
# nobody's too), the streaming nc being the GPU job.
measure() {
	local out=$tmp/$1.json rc lpid spid job where=${2:-inside} as=${3:-root}
	local run=(ip netns exec "$A") user=()
	[ "$where" = outside ] && run=()
	[ "$as" = nobody ] && user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	sleep 1   # the queue the previous transfer left in the tbf drains (256 KiB at 4 mbit/s: 0.5 s)
	ip netns exec "$B" nc -l -p $PORT >/dev/null 2>&1 &
	lpid=$!
	jobs_pids+=("$lpid")
	for _ in $(seq 50); do
		ip netns exec "$B" ss -Hltn "sport = :$PORT" 2>/dev/null | grep -q . && break
		sleep 0.1
	done
	ip netns exec "$A" "${user[@]}" nc -q1 "$ADDR_B" $PORT </dev/zero >/dev/null 2>&1 &
	spid=$!
	jobs_pids+=("$spid")
	sleep 1
	kill -0 "$spid" 2>/dev/null || fail "the TCP transfer from $A to $B did not start"
	job=$spid   # ip netns exec and setpriv exec nc: the same pid
	fake_nvml_ini "$tmp/nvml.ini" "$job" 90
	chmod 644 "$tmp/nvml.ini"
	local bin=$GPUDOCTOR lib=$FAKE_NVML
	[ "$as" = nobody ] && { nobody_binaries "$tmp"; bin=$NOBODY_GPUDOCTOR; lib=$NOBODY_FAKE_NVML; }
	# timeout only guards against a hang (so the trap gets to delete the
	# namespaces), it does not judge gpudoctor's speed.
	"${run[@]}" "${user[@]}" env GPUDOCTOR_NVML="$lib" GPUDOCTOR_FAKE_NVML="$tmp/nvml.ini" \
		timeout 40 "$bin" check --window 2s --json >"$out" 2>"$tmp/err"
	rc=$?
	kill "$spid" "$lpid" 2>/dev/null
	wait "$spid" "$lpid" 2>/dev/null
	[ $rc -le 2 ] || { cat "$tmp/err"; fail "check exited $rc"; }
	jq -e '.findings | type == "array"' "$out" >/dev/null 2>&1 || fail "check output is not a report"
	jq -c '.findings[] | select(.id == "net.remote_data_latency") | {id, subject, summary}' "$out"
	echo "$job" >"$tmp/$1.pid"
}

tc -n "$A" qdisc add dev "$VA" root tbf rate 4mbit burst 16kb limit 256kb 2>"$tmp/err" ||
	skip "no tbf qdisc here: $(cat "$tmp/err")"
echo "tbf on $VA: 4 mbit/s, 256 KiB queue"
measure far
job=$(cat "$tmp/far.pid")
jq -e --arg p "$job" --arg peer "$ADDR_B:$PORT" '.findings[] | select(.id == "net.remote_data_latency") |
	(.subject | startswith("pid " + $p + " ")) and
	([.evidence[] | select(.name == "peer") | .text] == [$peer]) and
	([.evidence[] | select(.name == "rtt_ms") | .value >= 10] == [true])' "$tmp/far.json" >/dev/null ||
	fail "no net.remote_data_latency naming pid $job and $ADDR_B:$PORT at >= 10 ms: $(jq -c '[.findings[].id], .not_evaluated' "$tmp/far.json" | head -c 600)"

# the same job seen from this host's namespace: gpudoctor enters A
measure outside outside
job=$(cat "$tmp/outside.pid")
jq -e --arg p "$job" --arg peer "$ADDR_B:$PORT" '.findings[] | select(.id == "net.remote_data_latency") |
	(.subject | startswith("pid " + $p + " ")) and
	([.evidence[] | select(.name == "peer") | .text] == [$peer])' "$tmp/outside.json" >/dev/null ||
	fail "from outside A: no net.remote_data_latency naming $ADDR_B:$PORT: $(jq -c '[.findings[].id], .unavailable' "$tmp/outside.json" | head -c 600)"
# the snapshot of the same: the socket record names A's namespace, not ours
measure_snapshot() {
	ip netns exec "$B" nc -l -p $PORT >/dev/null 2>&1 &
	jobs_pids+=($!)
	sleep 0.5
	ip netns exec "$A" nc -q1 "$ADDR_B" $PORT </dev/zero >/dev/null 2>&1 &
	jobs_pids+=($!)
	sleep 1
	fake_nvml_ini "$tmp/nvml.ini" "$!" 90
	GPUDOCTOR_NVML="$FAKE_NVML" GPUDOCTOR_FAKE_NVML="$tmp/nvml.ini" timeout 40 "$GPUDOCTOR" snapshot >"$tmp/snap.json"
	kill "${jobs_pids[@]}" 2>/dev/null
}
measure_snapshot
jq -e --arg ns "$(ip netns exec "$A" readlink /proc/self/ns/net)" --arg own "$(readlink /proc/self/ns/net)" \
	'[.job_sockets[].netns] | length > 0 and all(. == $ns) and all(. != $own)' "$tmp/snap.json" >/dev/null ||
	fail "the job's socket records do not name its namespace: $(jq -c '[.job_sockets[] | {peer, netns}]' "$tmp/snap.json")"

# as nobody outside A: A cannot be entered; said, not guessed
if command -v setpriv >/dev/null; then
	measure denied outside nobody
	jq -e '.unavailable[] | select(.evidence == "job_sockets") | .status == "denied" and
		(.reason | test("network namespace net:\\[[0-9]+\\].*CAP_SYS_ADMIN"))' "$tmp/denied.json" >/dev/null ||
		fail "as nobody: job_sockets does not say why the socket in A is unseen: $(jq -c '.unavailable' "$tmp/denied.json" | head -c 600)"
	jq -e '[.findings[].id] | index("net.remote_data_latency") == null' "$tmp/denied.json" >/dev/null ||
		fail "net.remote_data_latency fired without seeing the socket"
fi

tc -n "$A" qdisc del dev "$VA" root || fail "removing the tbf"
echo "no tbf"
measure near
jq -e '[.findings[].id] | index("net.remote_data_latency") == null' "$tmp/near.json" >/dev/null ||
	fail "the peer is next door, yet net.remote_data_latency fired"
exit 0
