#!/bin/bash
# tests/exporter/slurm.sh - deploy/slurm/gpudoctor-slurm (HealthCheckProgram,
# prolog, epilog) and deploy/slurm/nhc/gpudoctor.nhc against a running
# `gpudoctor serve` and a recording stand-in for scontrol
# (tests/exporter/fake_scontrol), case by case; slurm_real.sh runs the
# helper under a real slurmctld and slurmd.
#   faulty node (gpu0 lost)       health: drains with "gpu.lost gpu0 [gpudoctor]"
#                                 (the rule id in the 20 characters sinfo -R shows),
#                                 once; prolog: exit 1; epilog: exit 0
#   drained by an admin, faulty   left alone: no update
#   drained by us, healthy        health: RESUME; prolog: never resumes
#   drained by an admin, healthy  left alone
#   serve not answering           nothing changes
#   port squatted by nobody        (serve down; an unprivileged user serves a
#   with a healthy /findings       real `serve`'s healthy answer, saved, on the port)
#                                 the helper does not resume our drain, nor
#                                 drain, and says why (the squatter's uid);
#                                 check --npd --serve-user answers unknown;
#                                 NHC's check fails on it
#   NHC: check_gpudoctor fails with the finding on the faulty node, passes
#   on the healthy one, and does not fail when serve is not answering
set -u
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/fleet_lib.bash"
FAKE=$(dirname "$G")/fake_nvml/libnvidia-ml.so.1
[ -f "$FAKE" ] || die "$FAKE is not built (make unit)"
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
{ fleet_head; fleet_gpu 0 GPU-s0 00000000:1B:00.0 lost_after=40; } >"$TMP/faulty.ini"
{ fleet_head; fleet_gpu 0 GPU-s1 00000000:1B:00.0; } >"$TMP/healthy.ini"
GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$TMP/faulty.ini start_serve faulty --root "$FIX/healthy" --interval 0.2s
GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$TMP/healthy.ini start_serve healthy --root "$FIX/healthy" --interval 0.2s
sleep 1
H=deploy/slurm/gpudoctor-slurm
export GPUDOCTOR=$G SCONTROL=$PWD/tests/exporter/fake_scontrol SLURMD_NODENAME=gpu-a17
export FAKE_SCONTROL_STATE=$TMP/node FAKE_SCONTROL_LOG=$TMP/calls

# slurm MODE SERVE INITIAL-STATE|REASON|USER WANT-RC: runs the helper once
slurm() {
	local rc
	printf '%s\n' "$3" >"$FAKE_SCONTROL_STATE"
	: >"$FAKE_SCONTROL_LOG"
	GPUDOCTOR_SERVE=http://$2 sh "$H" "$1" 2>"$TMP/h.err"
	rc=$?
	[ "$rc" = "$4" ] || die "$1 on $2 from '$3': exit $rc, want $4: $(cat "$TMP/h.err")"
}
updates() { grep -c '^update' "$FAKE_SCONTROL_LOG"; }
now() { cat "$FAKE_SCONTROL_STATE"; }

slurm health "$ADDR_faulty" 'IDLE||' 1
grep -qxF 'update NodeName=gpu-a17 State=DRAIN Reason=gpu.lost gpu0 [gpudoctor]' "$FAKE_SCONTROL_LOG" ||
	die "health did not drain with the rule id first: $(cat "$FAKE_SCONTROL_LOG")"
r=$(now | cut -d'|' -f2)
[ "${r:0:20}" = "gpu.lost gpu0 [gpudo" ] || die "sinfo -R would show '${r:0:20}'"
# again: already drained by us with that reason: no second update
printf '%s\n' "$(now)" >"$TMP/keep"
: >"$FAKE_SCONTROL_LOG"
GPUDOCTOR_SERVE=http://$ADDR_faulty sh "$H" health 2>/dev/null
[ "$(updates)" = 0 ] || die "drained twice: $(cat "$FAKE_SCONTROL_LOG")"
slurm prolog "$ADDR_faulty" 'IDLE||' 1
[ "$(updates)" = 1 ] || die "prolog did not drain"
slurm epilog "$ADDR_faulty" 'IDLE||' 0
[ "$(updates)" = 1 ] || die "epilog did not drain"
slurm health "$ADDR_faulty" 'IDLE+DRAIN|maintenance until Tuesday|alice' 1
[ "$(updates)" = 0 ] || die "re-drained over an admin's drain: $(cat "$FAKE_SCONTROL_LOG")"
slurm health "$ADDR_faulty" 'IDLE+DRAIN|NHC: check_fs_mount: /scratch not mounted|root' 1
[ "$(updates)" = 0 ] || die "re-drained over NHC's drain"

slurm health "$ADDR_healthy" 'IDLE+DRAIN|gpu.lost gpu0 [gpudoctor]|root' 0
grep -qxF 'update NodeName=gpu-a17 State=RESUME' "$FAKE_SCONTROL_LOG" || die "our drain was not resumed: $(cat "$FAKE_SCONTROL_LOG")"
[ "$(now)" = 'IDLE||' ] || die "state after resume: $(now)"
slurm prolog "$ADDR_healthy" 'IDLE+DRAIN|gpu.lost gpu0 [gpudoctor]|root' 0
[ "$(updates)" = 0 ] || die "a prolog resumed"
slurm health "$ADDR_healthy" 'IDLE+DRAIN|maintenance until Tuesday|alice' 0
[ "$(updates)" = 0 ] || die "resumed an admin's drain"
slurm health "$ADDR_healthy" 'IDLE+DRAIN|gpu.lost gpu0 [gpudoctor] or not|alice' 0
[ "$(updates)" = 0 ] || die "resumed a drain whose reason only contains our mark"
slurm health "$ADDR_healthy" 'IDLE||' 0
[ "$(updates)" = 0 ] || die "an update on a healthy idle node"
# serve not answering: unknown, nothing changes
slurm health 127.0.0.1:1 'IDLE+DRAIN|gpu.lost gpu0 [gpudoctor]|root' 0
[ "$(updates)" = 0 ] || die "resumed on an unknown verdict"
slurm prolog 127.0.0.1:1 'IDLE||' 0
[ "$(updates)" = 0 ] || die "drained on an unknown verdict"
sh "$H" nosuch 2>/dev/null && die "an unknown mode succeeded"

# serve is down and user nobody holds the port, answering with a genuine
# serve's healthy /findings, saved (a forgery needs no skill), from a plain
# HTTP server (python3, in a directory anyone can read: the checkout may not
# be).  Root's serve above is trusted, nobody's is not.
need setpriv util-linux
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 not installed (scripts/deps.sh installs python3)"
mkdir -p "$TMP/squat"
curl -sf -m 5 "http://$ADDR_healthy/findings" >"$TMP/squat/findings" || die "no /findings from the healthy serve"
chmod -R a+rX "$TMP"
setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 -u -m http.server 0 --bind 127.0.0.1 \
	--directory "$TMP/squat" >"$TMP/squat.log" 2>&1 &
PIDS+=($!)
PID_squat=$!
ADDR_squat=""
for _ in $(seq 100); do
	p=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$TMP/squat.log" | head -n 1)
	[ -n "$p" ] && ADDR_squat=127.0.0.1:$p && break
	sleep 0.1
done
[ -n "$ADDR_squat" ] || die "the squatter did not start: $(cat "$TMP/squat.log")"
[ "$(stat -c %u "/proc/$PID_squat")" = 65534 ] || die "the squatter does not run as nobody"
out=$("$G" check --npd gpu-unhealthy --serve "http://$ADDR_squat" --serve-user gpudoctor)
rc=$?
[ "$rc" = 2 ] && grep -q "^unknown: untrusted: uid 65534 holds ${ADDR_squat%:*}:${ADDR_squat##*:}, not root or gpudoctor" <<<"$out" ||
	die "check --npd believed a squatter (exit $rc): $out"
"$G" check --npd gpu-unhealthy --serve "http://$ADDR_squat" >/dev/null ||
	die "without --serve-user the squatter's answer should be read (it is a real serve's)"
"$G" check --npd gpu-unhealthy --serve "http://$ADDR_squat" --serve-user nobody >/dev/null ||
	die "--serve-user nobody should trust nobody's server"
"$G" check --npd gpu-unhealthy --serve "http://$ADDR_healthy" --serve-user gpudoctor >/dev/null ||
	die "root's serve was not trusted"
slurm health "$ADDR_squat" 'IDLE+DRAIN|gpu.lost gpu0 [gpudoctor]|root' 0
[ "$(updates)" = 0 ] || die "resumed a node on a squatter's answer: $(cat "$FAKE_SCONTROL_LOG")"
slurm epilog "$ADDR_squat" 'IDLE+DRAIN|gpu.lost gpu0 [gpudoctor]|root' 0
[ "$(updates)" = 0 ] || die "the epilog resumed a node on a squatter's answer"
grep -q "verdict unknown, nothing changed: unknown: untrusted: uid 65534 holds" "$TMP/h.err" ||
	die "the helper did not say why it changed nothing: $(cat "$TMP/h.err")"

# NHC's conventions: a check is a bash function that calls die on failure
nhc() {
	bash -c '
		die() { echo "DIE $1 $2"; return 1; }
		log() { echo "LOG $*"; }
		. deploy/slurm/nhc/gpudoctor.nhc
		check_gpudoctor "$@"; echo "RC $?"' nhc "$@"
}
out=$(nhc -s "http://$ADDR_faulty")
grep -q '^DIE 1 gpu\.lost gpu0: ' <<<"$out" && grep -q '^RC 1$' <<<"$out" || die "NHC check on the faulty node: $out"
out=$(nhc -s "http://$ADDR_healthy" -c gpu-unhealthy -c gpu-degraded -c node-unhealthy)
[ "$out" = "RC 0" ] || die "NHC check on the healthy node: $out"
out=$(nhc -s http://127.0.0.1:1)
grep -q '^LOG check_gpudoctor:  gpu-unhealthy: unknown: ' <<<"$out" && grep -q '^RC 0$' <<<"$out" ||
	die "NHC check with serve down: $out"
out=$(nhc -s "http://$ADDR_squat")
grep -q '^DIE 1 unknown: untrusted: uid 65534 holds ' <<<"$out" && grep -q '^RC 1$' <<<"$out" ||
	die "NHC check passed on a squatter's answer: $out"
out=$(nhc -x)
grep -q '^DIE 1 check_gpudoctor:  Invalid option:  -x' <<<"$out" || die "NHC bad option: $out"
need shellcheck
shellcheck -s sh "$H" >"$TMP/sc" 2>&1 || die "shellcheck $H: $(cat "$TMP/sc")"
echo "ok: drains with the rule id first, resumes only its own drains, prolog/epilog exits, never on a squatter's answer, NHC check"
