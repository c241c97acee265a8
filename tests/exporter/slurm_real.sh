#!/bin/bash
# gd-test: exclusive (daemons on their own clocks: tests/run.sh runs it alone)
# tests/exporter/slurm_real.sh - deploy/slurm/gpudoctor-slurm under a real
# single-node Slurm: Debian's slurmctld and slurmd with munge, started here
# on loopback with everything in a temporary directory, as HealthCheckProgram
# (every 2 s) and Prolog.
#   serve says gpu0 is lost      slurmd's health check drains the node with
#                                "gpu.lost gpu0 [gpudoctor]" (sinfo -R shows
#                                "gpu.lost gpu0 [gpudo")
#   an admin drains it instead   the health check leaves it drained, with the
#                                admin's reason, however often it runs
#   serve says healthy           our drain is resumed: the node is idle, and
#                                a job runs (srun; the prolog exits 0)
#   serve says lost, a job comes the prolog drains the node and fails, so
#                                the job does not run there
# The recording stand-in (slurm.sh) covers the cases one by one; this one is
# the real thing end to end.
set -u
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/fleet_lib.bash"
FAKE=$(dirname "$G")/fake_nvml/libnvidia-ml.so.1
[ -f "$FAKE" ] || die "$FAKE is not built (make unit)"
for t in slurmctld slurmd scontrol sinfo srun munged munge; do need "$t" "slurmctld slurmd slurm-client munge"; done
[ "$(id -u)" = 0 ] || skip "slurmd runs jobs as their users and must be root here (CI runs as root)"
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1

{ fleet_head; fleet_gpu 0 GPU-s0 00000000:1B:00.0 lost_after=1; } >"$TMP/faulty.ini"
{ fleet_head; fleet_gpu 0 GPU-s1 00000000:1B:00.0; } >"$TMP/healthy.ini"
GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$TMP/faulty.ini start_serve faulty --root "$FIX/healthy" --interval 0.2s
GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$TMP/healthy.ini start_serve healthy --root "$FIX/healthy" --interval 0.2s

S=$TMP/slurm
mkdir -p "$S/munge" "$S/state" "$S/spool"
# step WHAT: where the test is, for the watchdog below.  The runner's limit
# kills it silently (one CI run under ASan hit it with nothing printed), so
# at 150 s the watchdog prints the step and the daemons' last lines first.
step() { echo "$*" >"$S/step"; }
step "starting munged"
(
	sleep 150
	echo "slurm_real: still at '$(cat "$S/step" 2>/dev/null)' after 150 s; helper calls: $(wc -l <"$S/calls" 2>/dev/null)" >&2
	tail -n 8 "$S/d.log" "$S/ctld.log" "$S/munge/log" >&2 2>/dev/null
	ps -o pid,stat,etime,wchan:20,args --ppid $$ >&2 2>/dev/null
) &
WATCHDOG=$!
chmod 700 "$S/munge"
head -c 1024 /dev/urandom >"$S/munge/key"
chmod 600 "$S/munge/key"
munged -f --key-file="$S/munge/key" --socket="$S/munge/sock" --pid-file="$S/munge/pid" \
	--log-file="$S/munge/log" --seed-file="$S/munge/seed" || die "munged did not start: $(tail -n 5 "$S/munge/log")"
PIDS+=("$(cat "$S/munge/pid")")

# which serve the node's helpers ask: the test switches it
echo "$ADDR_faulty" >"$S/serve"
for mode in health prolog; do
	cat >"$S/$mode" <<-WRAP
	#!/bin/sh
	echo "\$(date +%s) $mode" >>"$S/calls"
	GPUDOCTOR=$G SCONTROL=$(command -v scontrol) SLURM_CONF=$S/slurm.conf \\
	GPUDOCTOR_SERVE=http://\$(cat "$S/serve") exec sh $PWD/deploy/slurm/gpudoctor-slurm $mode
	WRAP
	chmod 755 "$S/$mode"
done
port() { local p; while :; do p=$((20000 + RANDOM % 40000)); ss -Hltn "sport = :$p" | grep -q . || { echo "$p"; return; }; done; }
node=$(hostname -s)
cat >"$S/slurm.conf" <<EOF2
ClusterName=gdtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$(port)
SlurmdPort=$(port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$S/munge/sock
CredType=cred/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/ctld.pid
SlurmdPidFile=$S/d.pid
SlurmctldLogFile=$S/ctld.log
SlurmdLogFile=$S/d.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/linear
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
HealthCheckProgram=$S/health
HealthCheckInterval=2
HealthCheckNodeState=ANY
Prolog=$S/prolog
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=100 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF2
export SLURM_CONF=$S/slurm.conf
stop_slurm() {
	local f
	pkill -P "$WATCHDOG" 2>/dev/null; kill "$WATCHDOG" 2>/dev/null; wait "$WATCHDOG" 2>/dev/null
	for f in "$S/d.pid" "$S/ctld.pid"; do [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
	sleep 0.5
	cleanup
}
trap stop_slurm EXIT
step "starting slurmctld"
timeout 30 slurmctld -i || die "slurmctld did not start: $(tail -n 20 "$S/ctld.log")"
step "starting slurmd"
timeout 30 slurmd || die "slurmd did not start: $(tail -n 20 "$S/d.log")"

state() { scontrol show node "$node" 2>/dev/null | sed -n 's/.*State=\([^ ]*\).*/\1/p' | head -n 1; }
reason() { sinfo -h -R -n "$node" -o '%E' 2>/dev/null | head -n 1; }
logs() { echo "--- helper calls: $(wc -l <"$S/calls" 2>/dev/null)"; tail -n 5 "$S/d.log" "$S/ctld.log"; }
# until SECONDS CMD...: polls CMD every 0.5 s
until_true() {
	local i n=$(($1 * 2))
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.5
	done
	return 1
}
drained_by_us() { [ "$(reason)" = "gpu.lost gpu0 [gpudoctor]" ]; }
is_idle() { case $(state) in IDLE) return 0 ;; esac; return 1; }

# 1. the health check drains the node for the lost GPU
step "1: the health check drains"
until_true 30 drained_by_us || die "the node was not drained by the health check: state $(state), reason '$(reason)'; $(logs)"
short=$(sinfo -h -R -n "$node" -o '%20E' | sed 's/ *$//')
[ "$short" = "gpu.lost gpu0 [gpudo" ] || die "sinfo -R shows '$short'"

# 2. an admin's drain is left alone while the GPU stays lost
step "2: an admin's drain"
scontrol update NodeName="$node" State=RESUME
scontrol update NodeName="$node" State=DRAIN Reason="maintenance until Tuesday"
n0=$(wc -l <"$S/calls")
until_true 20 eval '[ "$(wc -l <"$S/calls")" -ge $((n0 + 3)) ]' || die "the health check stopped running; $(logs)"
[ "$(reason)" = "maintenance until Tuesday" ] || die "the admin's drain was replaced: '$(reason)'"

# 3. healthy again: our drain is resumed, the admin's is not
step "3: healthy again"
echo "$ADDR_healthy" >"$S/serve"
n0=$(wc -l <"$S/calls")
until_true 20 eval '[ "$(wc -l <"$S/calls")" -ge $((n0 + 3)) ]' || die "the health check stopped running; $(logs)"
[ "$(reason)" = "maintenance until Tuesday" ] || die "an admin's drain was resumed: state $(state)"
scontrol update NodeName="$node" State=DRAIN Reason="gpu.lost gpu0 [gpudoctor]"
until_true 30 is_idle || die "our drain was not resumed: state $(state), reason '$(reason)'; $(logs)"
timeout 60 srun -N1 -w "$node" true || die "a job did not run on the healthy node; $(logs)"
grep -q ' prolog$' "$S/calls" || die "the prolog never ran"

# 4. lost again with a job at the door: the prolog drains and the job does
# not run here (Slurm requeues it and holds it)
step "4: the prolog"
# The periodic health check is stopped first, and the GPU turns faulty only
# once no check has run for 3 s: a check already under way (or one slurmd
# runs as it takes the new configuration) still sees a healthy GPU, and
# cannot drain the node before the job comes to the door.
sed -i 's/^HealthCheckInterval=.*/HealthCheckInterval=0/' "$S/slurm.conf"
scontrol reconfigure
calls_still() { local a; a=$(wc -l <"$S/calls"); sleep 3; [ "$(wc -l <"$S/calls")" = "$a" ]; }
# at most 8 tries of 3 s, well inside the 150 s watchdog
quiet=false
for _ in 1 2 3 4 5 6 7 8; do calls_still && { quiet=true; break; }; done
$quiet || die "the health check still runs after HealthCheckInterval=0; $(logs)"
until_true 10 is_idle || die "the node is not idle before the prolog test: $(state) '$(reason)'"
echo "$ADDR_faulty" >"$S/serve"
timeout 60 srun -N1 -w "$node" --immediate=20 sh -c "echo ran >$S/ran" >/dev/null 2>&1
until_true 20 drained_by_us || die "the prolog did not drain: state $(state), reason '$(reason)'; $(logs)"
[ ! -e "$S/ran" ] || die "the job ran on a node with a lost GPU"
[ "$(tail -n 1 "$S/calls" | cut -d" " -f2)" = prolog ] || die "not the prolog drained the node: $(tail -n 3 "$S/calls")"
echo "ok: a real slurmd's health check drains with 'gpu.lost gpu0 [gpudo' in sinfo -R, leaves an admin's drain, resumes its own; the prolog stops a job"
