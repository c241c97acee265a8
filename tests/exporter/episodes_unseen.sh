#!/bin/bash
# tests/exporter/episodes_unseen.sh - serve exports the stall episodes of a
# GPU used by a process NVML does not list (an unseen user: nobody listed,
# memory beyond gpu.idle_while_job_runs.unseen_mem_bytes in use), as the
# episodes themselves count it (episodes.h): tests/timeline/stall.ini with
# gpu1's process list emptied (70 GB still in use) must still give a
# gpudoctor_gpu_stall_episodes_total{gpu="1"} that rises.  The wait for
# samples is bounded (30 s) but nothing here judges gpudoctor's speed.
set -u
. "$(dirname "$0")/lib.bash"
FAKE=$(dirname "$G")/fake_nvml/libnvidia-ml.so.1
[ -f "$FAKE" ] || die "$FAKE is not built (make unit)"
sed '/^procs = 4242:1073741824$/d' tests/timeline/stall.ini >"$TMP/unseen.ini"
[ "$(grep -c '^procs = ' "$TMP/unseen.ini")" = 1 ] || die "stall.ini changed: gpu1's procs line not found"
export GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$TMP/unseen.ini
start_serve s --interval 200ms
U=http://$ADDR_s
ep=0
for i in $(seq 150); do
	m=$(curl -sf -m 2 "$U/metrics") || die "/metrics failed"
	ep=$(sed -n 's/^gpudoctor_gpu_stall_episodes_total{gpu="1"} //p' <<<"$m")
	e0=$(sed -n 's/^gpudoctor_gpu_stall_episodes_total{gpu="0"} //p' <<<"$m")
	[ -n "$e0" ] && [ "$e0" -ge 1 ] && break
	sleep 0.2
done
[ -n "${e0:-}" ] && [ "$e0" -ge 1 ] || die "no stall episode on gpu0 (listed) counted in 30 s: $(grep gpu_st <<<"$m")"
[ -n "$ep" ] && [ "$ep" -ge 1 ] || die "gpu1 (unseen user) stalled with gpu0 but its episodes are not exported: $(grep gpu_st <<<"$m")"
echo "ok: $ep episodes on gpu1 (unseen user)"
