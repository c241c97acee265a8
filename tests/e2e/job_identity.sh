#!/bin/bash
# tests/e2e/job_identity.sh - who a GPU job process is in its distributed
# job (job_ranks[], issue 26), read from a real process of this machine:
# a shell started with torchrun's keys (RANK=3 WORLD_SIZE=16 ...) and a
# decoy secret beside them, listed by the fake NVML as the compute process
# of gpu0, with a child (a DataLoader worker: the same environment, not
# listed) under it.
#
#   1. check --json: one job_ranks record, the shell's, with its rank,
#      sizes, job id and GPU;
#   2. record: the recording's lines carry it (and a second line refers to
#      the first: "version": 2), and check --from the recording says it,
#      in JSON and in its text ("job rank 3/16 ...");
#   3. serve: /metrics has gpudoctor_job_rank_info with the labels and the
#      pid, and gpudoctor_job_rank_identity_success 1;
#   4. (as root, with setpriv) gpudoctor as nobody: denied, with the
#      reason, and gpudoctor_job_rank_identity_success 0; as nobody with
#      CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH (serve's unit's): read; with
#      either alone: denied (the kernel asks for both);
#
# and the decoy secret appears in none of the outputs (snapshot, text,
# JSON, recording, metrics).  The processes end by themselves after 60 s.
#
# Exit 0 pass, 77 skip (reason on the last line), anything else fails.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"

need_fake_nvml
command -v curl >/dev/null || skip "curl is not installed"

tmp=$(mktemp -d /tmp/gd-e2e-jobid.XXXXXX) || fail "mktemp"
chmod 755 "$tmp"
pids=()
cleanup() {
	[ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
	[ ${#pids[@]} -gt 0 ] && wait "${pids[@]}" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' TERM INT

decoy="gd-e2e-decoy-$RANDOM$RANDOM"
run_id="e2e-$$"
# the rank: a shell whose child (its worker) inherits the environment
env -i PATH=/usr/bin:/bin HOME=/nonexistent RANK=3 LOCAL_RANK=3 WORLD_SIZE=16 LOCAL_WORLD_SIZE=8 \
	GROUP_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 TORCHELASTIC_RUN_ID="$run_id" \
	NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1 SECRET_TOKEN="$decoy" \
	sh -c 'sleep 60 & wait' &
rank=$!
pids+=("$rank")
fake_nvml_ini "$tmp/nvml.ini" "$rank" 60
chmod 644 "$tmp/nvml.ini"
export GPUDOCTOR_NVML=$FAKE_NVML GPUDOCTOR_FAKE_NVML=$tmp/nvml.ini
# the worker has started once the shell has a child
for _ in $(seq 50); do
	pgrep -P "$rank" >/dev/null && break
	sleep 0.1
done
pgrep -P "$rank" >/dev/null || fail "the rank's worker did not start"

no_decoy() { # FILE...: the decoy is in none of them
	if grep -l -a -- "$decoy" "$@"; then
		fail "the decoy secret is in the file(s) above"
	fi
}

# ---- 1. check --------------------------------------------------------------
"$GPUDOCTOR" check --window 1s --json >"$tmp/check.json" 2>"$tmp/check.err"
[ $? -le 2 ] || fail "check --json failed: $(head -c 300 "$tmp/check.err")"
jq -e --argjson pid "$rank" --arg job "torchelastic:$run_id" '
	(.job_ranks | length) == 1 and
	(.job_ranks[0] | .pid == $pid and .status == "ok" and .rank == 3 and .local_rank == 3 and
	 .world_size == 16 and .local_world_size == 8 and .node_rank == 0 and .job == $job and
	 .launcher == "torchelastic" and .gpus == "0" and .master_addr == "127.0.0.1" and
	 .master_port == "29500" and .nccl_socket_ifname == "lo" and .nccl_ib_disable == "1")' \
	"$tmp/check.json" >/dev/null || fail "check --json: job_ranks is not the rank's: $(jq -c .job_ranks "$tmp/check.json")"
no_decoy "$tmp/check.json"
echo "ok check --json: rank 3/16 of torchelastic:$run_id on gpu0, pid $rank (its worker is no rank)"

# ---- 2. record -------------------------------------------------------------
"$GPUDOCTOR" record -o "$tmp/rec.jsonl" --interval 0.5s --duration 1.2s 2>"$tmp/rec.err" ||
	fail "record failed: $(head -c 300 "$tmp/rec.err")"
[ "$(wc -l <"$tmp/rec.jsonl")" -ge 2 ] || fail "record wrote fewer than two lines"
jq -e --argjson pid "$rank" 'select(.job_ranks[0] | type == "object") | .job_ranks[0].rank == 3 and .job_ranks[0].pid == $pid' \
	"$tmp/rec.jsonl" | head -n 1 | grep -q true || fail "the recording's first line has no rank 3"
# unchanged since the line before: written as its pid
jq -e --argjson pid "$rank" 'select(.version == 2) | .job_ranks == [$pid]' "$tmp/rec.jsonl" | grep -q true ||
	fail "no later line of the recording refers to the rank by its pid: $(tail -n 1 "$tmp/rec.jsonl" | jq -c .job_ranks)"
"$GPUDOCTOR" check --from "$tmp/rec.jsonl" --json >"$tmp/from.json" 2>/dev/null
jq -e '.job_ranks[0].rank == 3 and .job_ranks[0].world_size == 16' "$tmp/from.json" >/dev/null ||
	fail "check --from the recording lost the rank: $(jq -c .job_ranks "$tmp/from.json")"
NO_COLOR=1 "$GPUDOCTOR" check --from "$tmp/rec.jsonl" >"$tmp/from.txt" 2>&1
grep -qxF "job rank 3/16 (local 3, node 0) · torchelastic:$run_id · gpu0 · pid $rank" "$tmp/from.txt" ||
	fail "check's text has no line for the rank: $(grep -n '^job' "$tmp/from.txt")"
no_decoy "$tmp/rec.jsonl" "$tmp/from.json" "$tmp/from.txt"
echo "ok record: every line carries the rank (later ones by its pid), check --from reads it (text and JSON)"

# ---- 3. serve --------------------------------------------------------------
metrics() { # NAME [serve's user and capabilities as setpriv arguments]: /metrics into $tmp/NAME.prom
	local name=$1 addr="" i
	shift
	"$@" "$GPUDOCTOR" serve --listen 127.0.0.1:0 --interval 1s 2>"$tmp/$name.log" &
	pids+=($!)
	for i in $(seq 100); do
		addr=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/$name.log" | head -n 1)
		[ -n "$addr" ] && break
		sleep 0.1
	done
	[ -n "$addr" ] || fail "serve ($name) did not start: $(cat "$tmp/$name.log")"
	for i in $(seq 100); do
		curl -sf -m 2 "$addr/metrics" >"$tmp/$name.prom" 2>/dev/null && grep -q '^gpudoctor_job_rank_identity_success' "$tmp/$name.prom" && break
		sleep 0.2
	done
	kill "${pids[-1]}" 2>/dev/null
	wait "${pids[-1]}" 2>/dev/null
	# the pid must be serve's own (setpriv execs it): none may outlive the test
	curl -s -m 2 "$addr/healthz" >/dev/null 2>&1 && fail "serve ($name) still answers after it was killed"
	unset 'pids[-1]'
	grep -q '^gpudoctor_job_rank_identity_success' "$tmp/$name.prom" ||
		fail "serve ($name): /metrics has no gpudoctor_job_rank_identity_success: $(tail -n 3 "$tmp/$name.log")"
}
metrics root
want="gpudoctor_job_rank_info{job=\"torchelastic:$run_id\",rank=\"3\",local_rank=\"3\",world_size=\"16\",node_rank=\"0\",gpu=\"0\",pod=\"\",namespace=\"\",pid=\"$rank\"} 1"
grep -qxF "$want" "$tmp/root.prom" || fail "/metrics lacks $want: $(grep job_rank "$tmp/root.prom")"
grep -qxF "gpudoctor_job_rank_identity_success{pid=\"$rank\",status=\"ok\"} 1" "$tmp/root.prom" ||
	fail "/metrics: the identity is not a success: $(grep job_rank "$tmp/root.prom")"
no_decoy "$tmp/root.prom"
echo "ok serve: $want"

# ---- 4. permissions ----------------------------------------------------------
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skip "not root, or no setpriv: gpudoctor as another user is not tried"
fi
as_nobody() { setpriv --reuid nobody --regid nogroup --clear-groups "$@"; }
caps() { echo --inh-caps "$1" --ambient-caps "$1"; }
for c in none +sys_ptrace +dac_read_search +sys_ptrace,+dac_read_search; do
	# shellcheck disable=SC2046
	if [ "$c" = none ]; then
		as_nobody "$GPUDOCTOR" snapshot >"$tmp/nobody.json" 2>/dev/null
	else
		as_nobody $(caps "$c") "$GPUDOCTOR" snapshot >"$tmp/nobody.json" 2>/dev/null
	fi || fail "snapshot as nobody ($c) failed"
	got=$(jq -r '.job_ranks[0].status' "$tmp/nobody.json")
	want=denied
	[ "$c" = +sys_ptrace,+dac_read_search ] && want=ok
	[ "$got" = "$want" ] || fail "as nobody with capabilities $c: $got, want $want ($(jq -c '.job_ranks[0]' "$tmp/nobody.json"))"
	[ "$c" = none ] && { jq -r '.job_ranks[0].reason' "$tmp/nobody.json" | grep -q 'CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH' ||
		fail "the denied record does not say what would grant it"; }
	no_decoy "$tmp/nobody.json"
done
# setpriv itself, not the as_nobody function: a function in the background
# runs in a subshell, and killing that subshell left serve running
metrics nobody setpriv --reuid nobody --regid nogroup --clear-groups
grep -qxF "gpudoctor_job_rank_identity_success{pid=\"$rank\",status=\"denied\"} 0" "$tmp/nobody.prom" ||
	fail "/metrics as nobody: $(grep job_rank "$tmp/nobody.prom")"
grep -q '^gpudoctor_job_rank_info' "$tmp/nobody.prom" && fail "/metrics as nobody has a rank it could not read"
no_decoy "$tmp/nobody.prom"
echo "ok permissions: denied as nobody (and with CAP_SYS_PTRACE or CAP_DAC_READ_SEARCH alone), read with both"
