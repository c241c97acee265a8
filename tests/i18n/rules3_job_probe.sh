#!/bin/bash
# tests/i18n/rules3_job_probe.sh - what the job's own log, the job's threads
# and sockets, dcgmi and the probes prove, in Chinese (src/rules/rule_job*.c,
# rule_probe*.c; their catalogue po/parts/rules3.po), and in English exactly
# as before the messages were marked.
#
# Inputs: fixtures of tests/offline/ (job logs, recordings, probe -o files)
# and a few written here for the branches no fixture reaches (a loader worker
# that exited or crashed, a bare OOM, a driver too old with its version, NCCL
# over sockets on two nodes, NCCL lines that do not tell, dcgmi diag and
# dmon).  For each:
#   - LANG=C: the finding blocks and "not evaluated" lines of these rules are
#     byte for byte the ones below (taken from the build before the marks);
#     --lang en prints the same report as LANG=C;
#   - --json under LANG=zh_CN.UTF-8 keeps the English summaries (scripts do
#     not change with the user's locale);
#   - --lang zh_CN prints the Chinese sentence named below, in valid UTF-8,
#     and the JSON's rule ids, subjects and evidence of these rules are the
#     English ones.
# Then gpudoctor probe on the fake node of tests/probe/lib.sh with every host
# threshold set out of reach: the four host rules and the report lines of
# rule_probe_host.c, in Chinese and (by pattern: the figures are measured) in
# English.
set -u
# whole lines: the Chinese text report wraps at 80 columns, unless $COLUMNS says
export COLUMNS=100000
cd "$(dirname "$0")/../.." || exit 1
repo=$PWD
G=${GPUDOCTOR:-${BUILD:-build}/gpudoctor}
case $G in /*) ;; *) G=$repo/$G ;; esac
[ -x "$G" ] || { echo "$G is missing: run make all"; exit 1; }
for t in jq iconv; do
	command -v "$t" >/dev/null || { echo "$t is not installed (scripts/deps.sh installs it)"; exit 77; }
done
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# the part, while it is one (the lead folds it into po/zh_CN.po)
if [ -e po/parts/rules3.po ] && command -v msgfmt >/dev/null; then
	st=$(msgfmt --check --statistics -o /dev/null po/parts/rules3.po 2>&1) || bad "msgfmt --check: $st"
	case $st in *untranslated* | *fuzzy*) bad "po/parts/rules3.po: $st" ;; esac
fi

# ---- inputs -------------------------------------------------------------------
cat >"$work/diag.txt" <<'EOF'
+---------------------------+------------------------------------------------+
| Diagnostic                | Result                                         |
+===========================+================================================+
|-----  Metadata  ----------+------------------------------------------------|
| Driver Version Detected   | 550.54.15                                      |
+-----  Hardware  ----------+------------------------------------------------+
| GPU Memory                | Pass - GPU: 1                                  |
|                           | Fail - GPU: 0                                  |
| Warning                   | GPU 0 Unable to create CUDA context: 'CUDA-cap |
|                           | able device(s) is/are busy or unavailable'.    |
+-----  Integration  -------+------------------------------------------------+
| PCIe                      | Fail - GPU: 3                                  |
| Warning                   | GPU 3GPU 3's NvLink link 0 is currently down R |
|                           | un a field diagnostic on the GPU.              |
| Diagnostic                | Fail - GPU: 2                                  |
| Warning                   | GPU 2 miscompare in the GEMM results           |
+---------------------------+------------------------------------------------+
EOF
cat >"$work/dmon.txt" <<'EOF'
#Entity    TMPTR        POWER        XIDER
ID
GPU 0      34           61.5         0
GPU 1      N/A          70.2         79
GPU 2      40           70.0         9999
GPU 0      35           62.0         0
EOF
printf '%s\n' 'Traceback (most recent call last):' \
	'RuntimeError: DataLoader worker (pid(s) 4242) exited unexpectedly' >"$work/loader-exit.log"
printf '%s\n' 'RuntimeError: DataLoader worker (pid 4243) is killed by signal: Segmentation fault.' >"$work/loader-segv.log"
printf '%s\n' 'RuntimeError: CUDA error: out of memory' >"$work/oom-bare.log"
printf '%s\n' 'RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver' \
	>"$work/too-old.log"
printf '%s\n' 'node-a:100:100 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.' \
	'node-a:100:100 [0] NCCL INFO Using network Socket' \
	'node-a:100:100 [0] NCCL INFO comm 0x55 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0 - Init COMPLETE' \
	>"$work/nccl-2nodes.log"
printf '%s\n' 'node-a:100:100 [0] NCCL INFO Using network Socket' >"$work/nccl-unsure.log"

INPUTS="0100 0101 0102 0106 0107 0113 0300 0301 0303 0401 0402 0403 0404 0405 diag.txt dmon.txt loader-exit.log
loader-segv.log oom-bare.log too-old.log nccl-2nodes.log nccl-unsure.log"

# run INPUT ARGS...: gpudoctor ARGS check --from INPUT's files (a fixture of
# tests/offline/ by number, from the repository; else a file written above,
# from $work), stdout and stderr; runj INPUT JQ ARGS...: JQ over its JSON
# report (check --json, stdout only; $ids is IDS), or "bad JSON"
from_of() {
	local f
	FROM=()
	DIR=$repo
	case $1 in
	[0-9][0-9][0-9][0-9])
		for f in tests/offline/"$1"-*/*; do
			case $f in */expected.txt) ;; *) FROM+=(--from "$f") ;; esac
		done ;;
	*) FROM=(--from "$1") DIR=$work ;;
	esac
}
run() {
	from_of "$1"
	shift
	(cd "$DIR" && "$G" "$@" check "${FROM[@]}" 2>&1)
}
runj() {
	local q=$2 out
	from_of "$1"
	shift 2
	out=$(cd "$DIR" && "$G" "$@" check "${FROM[@]}" --json 2>/dev/null)
	jq -ce --arg ids "$IDS" "$q" <<<"$out" 2>/dev/null || echo "bad JSON"
}

# The rules of these files: their own and those whose evaluation
# rule_job.c extends with the job log's and dcgmi's evidence.
IDS='^(job\.|probe\.|net\.rdma_unused$|net\.remote_data_latency$|gpu\.ecc_uncorrectable$|gpu\.memory_full$|mem\.shm_small$|driver\.cuda_too_new$|gpu\.shared_by_processes$|driver\.nvml_unavailable$|gpu\.nvlink_errors$|gpu\.persistence_off$|gpu\.xid$|gpu\.row_remap_pending$)'

# the text report's blocks of those rules, and the not-evaluated lines that
# start with a rule of these files
mine() {
	awk -v ids="$IDS" '
		/^(CRITICAL|WARNING|INFO) / { on = ($2 ~ ids) }
		/^$/ { on = 0 }
		on { print; next }
		/^  [a-z]/ { s = substr($0, 3); if (s ~ /^(job\.|probe\.|net\.rdma_unused|net\.remote_data_latency)/) print }'
}

# ---- English, as before ---------------------------------------------------------
got=$(for in in $INPUTS; do echo "=== $in"; LANG=C LC_ALL=C run "$in" | mine; done)
want=$(cat <<'EOF'
=== 0100
CRITICAL  job.collective_timeout         ranks 1, 4
          The NCCL watchdog timed out _ALLGATHER_BASE (SeqNum 9141) after 600 s (timeout 600 s), and the job was taken down: a rank stopped calling collectives or a link failed.
          messages 2 · seq 9141 · timeout 600 s · ran 600.1 s
          tests/offline/0100-joblog-collective-timeout/sglang-1693.log:1: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9141, OpType=_ALLGATHER_BASE, Num
          tests/offline/0100-joblog-collective-timeout/sglang-1693.log:5: [rank4]:[E1016 03:31:38.929246900 ProcessGroupNCCL.cpp:627] [Rank 4] To avoid data inconsistenc
          → One rank stopped or a link failed: look at the ranks' hosts for gpu.* and net.* findings (gpudoctor check there); raise the timeout only after that.
WARNING   job.collective_timeout         ranks 1, 0, 2
          The NCCL watchdog timed out ALLREDUCE (SeqNum 808) after 600 s (timeout 600 s): a rank stopped calling collectives or a link failed.
          messages 3 · seq 808 · timeout 600 s · ran 600.0 s
          tests/offline/0100-joblog-collective-timeout/basicsr-737.log:1: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=98
          → One rank stopped or a link failed: look at the ranks' hosts for gpu.* and net.* findings (gpudoctor check there); raise the timeout only after that.
WARNING   job.collective_timeout         ranks 0, 4
          The NCCL watchdog timed out ALLREDUCE (SeqNum 1580) after 600 s (timeout 600 s): a rank stopped calling collectives or a link failed. The 2 ranks of the logs all reached it: none stands out; the collective itself hangs (the network, a GPU: see net.* and gpu.* on their hosts), or a rank whose log is not here.
          messages 2 · seq 1580 · timeout 600 s · ran 600.1 s · ranks reached 2
          tests/offline/0100-joblog-collective-timeout/llamafactory-7396.log:1: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=4
          → One rank stopped or a link failed: look at the ranks' hosts for gpu.* and net.* findings (gpudoctor check there); raise the timeout only after that.
  net.rdma_unused (no NCCL_DEBUG=INFO lines in the job's log (rerun the job with NCCL_DEBUG=INFO))
  probe.gpu_compute_slow, probe.gpu_compute_mismatch, probe.gpu_hung, probe.gpu_memory_errors, probe.gpu_mem_bandwidth_low, probe.pcie_bandwidth_low, probe.p2p_bandwidth_low (no probe results in the input: run gpudoctor probe)
=== 0101
WARNING   job.app_fault                  the job
          The job's own code faulted on the GPU: an illegal memory access (tests/offline/0101-joblog-illegal-memory-access/adetailer-346.log:1). This is an application or framework bug, not a hardware fault.
          messages 3 · fault illegal_address
          tests/offline/0101-joblog-illegal-memory-access/adetailer-346.log:1: RuntimeError: CUDA error: an illegal memory access was encountered
          → An application or framework bug, not hardware: rerun with CUDA_LAUNCH_BLOCKING=1 and under compute-sanitizer; suspect the GPU only if it recurs on one GPU across different programs.
  net.rdma_unused (no NCCL_DEBUG=INFO lines in the job's log (rerun the job with NCCL_DEBUG=INFO))
  probe.gpu_compute_slow, probe.gpu_compute_mismatch, probe.gpu_hung, probe.gpu_memory_errors, probe.gpu_mem_bandwidth_low, probe.pcie_bandwidth_low, probe.p2p_bandwidth_low (no probe results in the input: run gpudoctor probe)
=== 0102
WARNING   gpu.memory_full                cuda:0
          The job ran out of device memory: it tried to allocate 2.26 GiB with 3.03 GiB of 6.00 GiB free (49% in use); PyTorch had 781.59 MiB allocated.
          messages 1 · used 49.5% (threshold 95.0%) · tried 2.3 GiB · total 6.0 GiB · free 3.0 GiB · allocated 781.6 MiB
          tests/offline/0102-joblog-oom-old-form/pytorch-59778.log:1: CUDA out of memory. Tried to allocate 2.26 GiB (GPU 0; 6.00 GiB total capacity; 781.59 MiB alre
          → Reduce the batch size, enable activation checkpointing, or move to a larger GPU: beyond the edge the job fails or pages over PCIe. PyTorch holds only 781.59 MiB of the 6.00 GiB in use: another process shares this GPU, or the allocator's cache is fragmented (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True).
  net.rdma_unused (no NCCL_DEBUG=INFO lines in the job's log (rerun the job with NCCL_DEBUG=INFO))
  probe.gpu_compute_slow, probe.gpu_compute_mismatch, probe.gpu_hung, probe.gpu_memory_errors, probe.gpu_mem_bandwidth_low, probe.pcie_bandwidth_low, probe.p2p_bandwidth_low (no probe results in the input: run gpudoctor probe)
=== 0106
WARNING   job.loader_worker_killed       the job
          A DataLoader worker was killed by signal Killed (tests/offline/0106-joblog-loader-killed/dcpdn-12.log:6), with no shared-memory message: SIGKILL is what the OOM killer sends: host memory ran out.
          messages 3 · worker pid 19597 · signal Killed
          tests/offline/0106-joblog-loader-killed/dcpdn-12.log:6: RuntimeError: DataLoader worker (pid 19597) is killed by signal: Killed.
          → The loader ran out of host memory or crashed: use fewer workers or a smaller prefetch_factor, and see the mem.* findings of its host.
  net.rdma_unused (no NCCL_DEBUG=INFO lines in the job's log (rerun the job with NCCL_DEBUG=INFO))
  probe.gpu_compute_slow, probe.gpu_compute_mismatch, probe.gpu_hung, probe.gpu_memory_errors, probe.gpu_mem_bandwidth_low, probe.pcie_bandwidth_low, probe.p2p_bandwidth_low (no probe results in the input: run gpudoctor probe)
=== 0107
CRITICAL  gpu.ecc_uncorrectable          the job
          The job's CUDA calls failed with "uncorrectable ECC error encountered" (tests/offline/0107-joblog-ecc-uncorrectable/accelerate-1192.log:1): the GPU's memory returned data it could not correct.
          messages 3
          tests/offline/0107-joblog-ecc-uncorrectable/accelerate-1192.log:1: RuntimeError: CUDA error: uncorrectable ECC error encountered
          → Drain the GPU's jobs and reset it; replace it if uncorrectable errors recur. Find which GPU it was (nvidia-smi -q -d ECC on the job's host: the volatile uncorrectable count).
  net.rdma_unused (no NCCL_DEBUG=INFO lines in the job's log (rerun the job with NCCL_DEBUG=INFO))
  probe.gpu_compute_slow, probe.gpu_compute_mismatch, probe.gpu_hung, probe.gpu_memory_errors, probe.gpu_mem_bandwidth_low, probe.pcie_bandwidth_low, probe.p2p_bandwidth_low (no probe results in the input: run gpudoctor probe)
=== 0113
WARNING   net.rdma_unused                gpu01, gpu02
          The multi-node job's NCCL traffic goes over TCP sockets (NCCL chose the socket network): gradients cross the network without RDMA.
          hosts 2 · transport Socket
          tests/offline/0113-nccl-socket-two-nodes/nccl-676.log:7: gpu01:124172:124172 [0] NCCL INFO Using network Socket
          → Gradients go over TCP: give the job RDMA (InfiniBand/RoCE, or the cloud's RDMA fabric), check the NCCL_IB_* and NCCL_SOCKET_IFNAME settings and the container's access to /dev/infiniband.
  probe.gpu_compute_slow, probe.gpu_compute_mismatch, probe.gpu_hung, probe.gpu_memory_errors, probe.gpu_mem_bandwidth_low, probe.pcie_bandwidth_low, probe.p2p_bandwidth_low (no probe results in the input: run gpudoctor probe)
=== 0300
WARNING   job.host_bound                 pid 31893 (python3)
          The main thread of pid 31893 (python3) wants 100% of a core (threshold 80%: 16% on a CPU, 85% waiting for one), 100% of its samples outside the CUDA and NCCL libraries (100% python), while gpu0 (0000:1b:00.0) averages 9% utilisation: the host loop cannot launch GPU work fast enough.
          main core 100 % of a core (threshold 80 % of a core) · outside cuda 100 % of samples (threshold 60 % of samples) · python 100 % of samples · cuda 0 % of samples · samples 18 (threshold 10) · gpu util 9.0% (threshold 40.0%) · main thread 100% python
          → The host loop cannot launch work fast enough: larger batches, fewer host syncs (.item(), prints), CUDA graphs or torch.compile; move preprocessing into loader workers.
  job.app_fault, job.collective_timeout, job.rank_stuck, job.collective_mismatch, job.loader_worker_killed, net.rdma_unused (no log of the job in the input: give it with check --from train.log)
  probe.gpu_compute_slow, probe.gpu_compute_mismatch, probe.gpu_hung, probe.gpu_memory_errors, probe.gpu_mem_bandwidth_low, probe.pcie_bandwidth_low, probe.p2p_bandwidth_low (no probe results in the input: run gpudoctor probe)
=== 0301
WARNING   job.waiting_for_peers          pid 19197 (jl)
          94% of the samples of pid 19197 (jl)'s main and NCCL threads are in NCCL (threshold 50%) while gpu0 (0000:1b:00.0) averages 4% utilisation and no local cause is found: this node waits in a collective for another rank.
          nccl 94.3 % of samples (threshold 50 % of samples) · samples 35 (threshold 10) · gpu util 4.0% (threshold 40.0%)
          → This node waits for another: find the straggler or the slow link (gpudoctor check on the peers: gpu.*, net.* findings).
  job.app_fault, job.collective_timeout, job.rank_stuck, job.collective_mismatch, job.loader_worker_killed, net.rdma_unused (no log of the job in the input: give it with check --from train.log)
  probe.gpu_compute_slow, probe.gpu_compute_mismatch, probe.gpu_hung, probe.gpu_memory_errors, probe.gpu_mem_bandwidth_low, probe.pcie_bandwidth_low, probe.p2p_bandwidth_low (no probe results in the input: run gpudoctor probe)
=== 0303
WARNING   net.remote_data_latency        pid 29542 (nc)
          pid 29542 (nc) of a GPU job moves data over 1 TCP connection with a round-trip time of 10 ms or more; the farthest, to 10.233.7.2:5003, at 386.5 ms (lowest seen 0.06 ms): every request waits on the distance.
          rtt ms 386.5 ms (threshold 10 ms) · min rtt ms 0.06 ms · connections 1 · peer 10.233.7.2:5003 · local 10.233.7.1:49170
          → The data or service is far away: move the data next to the GPUs (same LAN, same city), cache it locally, or read ahead with more requests in flight.
  job.app_fault, job.collective_timeout, job.rank_stuck, job.collective_mismatch, job.loader_worker_killed, net.rdma_unused (no log of the job in the input: give it with check --from train.log)
  probe.gpu_compute_slow, probe.gpu_compute_mismatch, probe.gpu_hung, probe.gpu_memory_errors, probe.gpu_mem_bandwidth_low, probe.pcie_bandwidth_low, probe.p2p_bandwidth_low (no probe results in the input: run gpudoctor probe)
=== 0401
WARNING   probe.gpu_compute_slow         gpu3 (2 GPUs)
          compute_fp32 reached 36429 GFLOP/s, 71% of the median of its 7 same-model siblings (51000 GFLOP/s).
          achieved 36428.6 GFLOP/s (threshold 43350.0 GFLOP/s) · siblings median 51000.0 GFLOP/s · pct of siblings 71.4% (threshold 85.0%) · temp end of burn 60.0 °C · sm clock end of burn 1980 MHz · power 545.7 W
          achieved: gpu3 36428.6 GFLOP/s · gpu3 285714.3 GFLOP/s
          → The GPU underperforms under load: see the thermal, power and clock findings raised during the probe; fix or exclude the GPU.
WARNING   probe.gpu_mem_bandwidth_low    gpu3 (0000:61:00.0) mem_bandwidth
          mem_bandwidth reached 1857 GB/s, 71% of the median of its 7 same-model siblings (2600 GB/s).
          achieved 1857.1 GB/s (threshold 2210.0 GB/s) · siblings median 2600.0 GB/s · pct of siblings 71.4% (threshold 85.0%)
          → Memory runs slow: check the memory clock, the ECC state and the thermal findings of the probe.
  job.app_fault, job.collective_timeout, job.rank_stuck, job.collective_mismatch, job.loader_worker_killed, net.rdma_unused (no log of the job in the input: give it with check --from train.log)
=== 0402
CRITICAL  probe.gpu_compute_mismatch     gpu5 (0000:c3:00.0) compute_bf16
          The compute_bf16 burn's results differ from those of 7 same-model GPUs given the same inputs.
          results differing 0 (threshold 0) · results compared 4063232 · digest vs siblings cb7cef2573837245
          → The GPU computes wrong answers (silent data corruption): drain it and run the vendor's field diagnostics (dcgmi diag -r 3).
CRITICAL  probe.gpu_memory_errors        gpu5 (4 GPUs)
          h2d copies came back altered: 1 of 262144 words differ from what was written (the link or the GPU's memory corrupts data).
          words wrong 1 (threshold 0) · words checked 262144
          words wrong: gpu5 1 · gpu5 1 · gpu5 1 · gpu5 1
          → Device memory (or the path to it) is failing: drain the GPU, reset it, replace it if it recurs.
  job.app_fault, job.collective_timeout, job.rank_stuck, job.collective_mismatch, job.loader_worker_killed, net.rdma_unused (no log of the job in the input: give it with check --from train.log)
=== 0403
CRITICAL  probe.gpu_hung                 gpu6 (0000:d1:00.0) compute_fp32
          The compute_fp32 probe did not finish within its deadline; the probe's process was killed.
          probe compute_fp32 · reason compute_fp32 did not finish within its deadline: the probe process was killed
          → The GPU or its driver hangs under load: drain the node, look for Xid and gpu.* findings, reset the GPU or reboot.
  job.app_fault, job.collective_timeout, job.rank_stuck, job.collective_mismatch, job.loader_worker_killed, net.rdma_unused (no log of the job in the input: give it with check --from train.log)
  probe.gpu_mem_bandwidth_low (no mem_bandwidth figure in the probe results (not run, or failed))
  probe.pcie_bandwidth_low (no host<->device copy figure in the probe results)
  probe.p2p_bandwidth_low (no peer copy in the probe results (one GPU, or no pair can reach another))
=== 0404
WARNING   probe.pcie_bandwidth_low       gpu2 (4 GPUs)
          h2d copies ran at 13.0 GB/s, 26% of the 49.1 GB/s the link Gen5 x16 carries.
          achieved 13.0 GB/s (threshold 34.4 GB/s) · link expected 49.1 GB/s · siblings median 52.0 GB/s · link gen 5 · link width 16 lanes
          achieved: gpu2 13.0 GB/s · gpu2 13.0 GB/s · gpu2 13.0 GB/s · gpu2 13.0 GB/s
          → The link trained but carries little: reseat the card, check the riser, retimer and slot, and the BIOS PCIe settings.
  job.app_fault, job.collective_timeout, job.rank_stuck, job.collective_mismatch, job.loader_worker_killed, net.rdma_unused (no log of the job in the input: give it with check --from train.log)
=== 0405
WARNING   probe.p2p_bandwidth_low        gpu7 (7 GPUs)
          Peer copies ran at 120.0 GB/s, 32% of the median of the node's 55 other pairs (370.0 GB/s).
          achieved 120.0 GB/s (threshold 259.0 GB/s) · pairs median 370.0 GB/s
          achieved: gpu7 120.0 GB/s · gpu7 120.0 GB/s · gpu7 120.0 GB/s · gpu7 120.0 GB/s · gpu7 120.0 GB/s · gpu7 120.0 GB/s · gpu7 120.0 GB/s
          → A peer path is slow: check NVLink state and errors (nvidia-smi nvlink -s -e), or the PCIe switch path (nvidia-smi topo -m).
  job.app_fault, job.collective_timeout, job.rank_stuck, job.collective_mismatch, job.loader_worker_killed, net.rdma_unused (no log of the job in the input: give it with check --from train.log)
  probe.gpu_compute_slow (no compute_fp32 figure in the probe results (not run, or failed))
  probe.gpu_compute_mismatch (no compute burn in the probe results)
  probe.gpu_memory_errors (no memory pattern test or copy in the probe results)
  probe.gpu_mem_bandwidth_low (no mem_bandwidth figure in the probe results (not run, or failed))
  probe.pcie_bandwidth_low (no host<->device copy figure in the probe results)
=== diag.txt
CRITICAL  probe.gpu_compute_mismatch     gpu2
          dcgmi diag's Diagnostic test failed on gpu2: "GPU 2 miscompare in the GEMM results" (diag.txt:16).
          messages 1 · dcgmi test Diagnostic
          diag.txt:16: GPU 2 miscompare in the GEMM results
          → The GPU computes wrong answers (silent data corruption): drain it and run the vendor's field diagnostics (dcgmi diag -r 3).
WARNING   gpu.nvlink_errors              gpu3
          dcgmi diag (PCIe test) found NVLink links down on gpu3: "GPU 3GPU 3's NvLink link 0 is currently down Run a field diagnostic on the GPU." (diag.txt:13).
          messages 1
          diag.txt:13: GPU 3GPU 3's NvLink link 0 is currently down Run a field diagnostic on the GPU.
          → Reseat or check the NVLink bridge or baseboard, and schedule maintenance (nvidia-smi nvlink -s; nvidia-smi nvlink -e). Check the links with nvidia-smi nvlink -s and nvidia-smi topo -m.
WARNING   gpu.shared_by_processes        the job
          The job could not get a GPU: "all CUDA-capable devices are busy or unavailable" (diag.txt:10): another process holds it in an exclusive compute mode, or the GPU is unusable.
          messages 1
          diag.txt:10: |                           | able device(s) is/are busy or unavailable'.    |
          → See which processes hold the GPUs (nvidia-smi) and their compute mode (nvidia-smi -q -d COMPUTE); give each job its own GPUs, or set the DEFAULT mode (nvidia-smi -i N -c 0); if no process holds the GPU, look for gpu.* findings and reset it.
WARNING   probe.pcie_bandwidth_low       gpu3
          dcgmi diag's PCIe test failed on gpu3: "PCIe: Fail - GPU: 3" (diag.txt:15).
          messages 1 · dcgmi test PCIe
          diag.txt:15: PCIe: Fail - GPU: 3
          → The link trained but carries little: reseat the card, check the riser, retimer and slot, and the BIOS PCIe settings.
  net.rdma_unused (no NCCL_DEBUG=INFO lines in the job's log (rerun the job with NCCL_DEBUG=INFO))
  probe.gpu_compute_slow, probe.gpu_hung, probe.gpu_memory_errors, probe.gpu_mem_bandwidth_low, probe.p2p_bandwidth_low (no probe results in the input: run gpudoctor probe)
=== dmon.txt
CRITICAL  gpu.xid                        gpu1
          dcgmi dmon reports Xid 79 as the last Xid of gpu1 (ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS: The GPU has fallen off the bus: the driver cannot reach it over PCIe; dmon.txt:4); dmon gives no time and no count: read the kernel log for both.
          messages 1 · code 79
          dmon.txt:4: dcgmi dmon: GPU 1 XIDER (last Xid) 79
          → Drain and reboot the node (a GPU reset rarely works); check power, cooling, seating and risers; repeats: RMA.
WARNING   gpu.xid                        gpu2
          dcgmi dmon reports Xid 9999 as the last Xid of gpu2 (not in gpudoctor's catalogue: see NVIDIA's Xid table; dmon.txt:5); dmon gives no time and no count: read the kernel log for both.
          messages 1 · code 9999
          dmon.txt:5: dcgmi dmon: GPU 2 XIDER (last Xid) 9999
          → Follow the action of each Xid (see gpudoctor xid for the whole log).
  job.app_fault, job.collective_timeout, job.rank_stuck, job.collective_mismatch, job.loader_worker_killed, net.rdma_unused (no log of the job in the input: give it with check --from train.log)
  probe.gpu_compute_slow, probe.gpu_compute_mismatch, probe.gpu_hung, probe.gpu_memory_errors, probe.gpu_mem_bandwidth_low, probe.pcie_bandwidth_low, probe.p2p_bandwidth_low (no probe results in the input: run gpudoctor probe)
=== loader-exit.log
WARNING   job.loader_worker_killed       the job
          A DataLoader worker exited unexpectedly (loader-exit.log:2), with no shared-memory message: it ran out of host memory or crashed.
          messages 1 · worker pid 4242 · signal exited unexpectedly
          loader-exit.log:2: RuntimeError: DataLoader worker (pid(s) 4242) exited unexpectedly
          → The loader ran out of host memory or crashed: use fewer workers or a smaller prefetch_factor, and see the mem.* findings of its host.
  net.rdma_unused (no NCCL_DEBUG=INFO lines in the job's log (rerun the job with NCCL_DEBUG=INFO))
  probe.gpu_compute_slow, probe.gpu_compute_mismatch, probe.gpu_hung, probe.gpu_memory_errors, probe.gpu_mem_bandwidth_low, probe.pcie_bandwidth_low, probe.p2p_bandwidth_low (no probe results in the input: run gpudoctor probe)
=== loader-segv.log
WARNING   job.loader_worker_killed       the job
          A DataLoader worker was killed by signal Segmentation fault (loader-segv.log:1), with no shared-memory message: it crashed.
          messages 1 · worker pid 4243 · signal Segmentation fault
          loader-segv.log:1: RuntimeError: DataLoader worker (pid 4243) is killed by signal: Segmentation fault.
          → The loader ran out of host memory or crashed: use fewer workers or a smaller prefetch_factor, and see the mem.* findings of its host.
  net.rdma_unused (no NCCL_DEBUG=INFO lines in the job's log (rerun the job with NCCL_DEBUG=INFO))
  probe.gpu_compute_slow, probe.gpu_compute_mismatch, probe.gpu_hung, probe.gpu_memory_errors, probe.gpu_mem_bandwidth_low, probe.pcie_bandwidth_low, probe.p2p_bandwidth_low (no probe results in the input: run gpudoctor probe)
=== oom-bare.log
WARNING   gpu.memory_full                the job
          The job ran out of device memory (CUDA error: out of memory).
          messages 1 · used n/a
          oom-bare.log:1: RuntimeError: CUDA error: out of memory
          → Reduce the batch size, enable activation checkpointing, or move to a larger GPU: beyond the edge the job fails or pages over PCIe.
  net.rdma_unused (no NCCL_DEBUG=INFO lines in the job's log (rerun the job with NCCL_DEBUG=INFO))
  probe.gpu_compute_slow, probe.gpu_compute_mismatch, probe.gpu_hung, probe.gpu_memory_errors, probe.gpu_mem_bandwidth_low, probe.pcie_bandwidth_low, probe.p2p_bandwidth_low (no probe results in the input: run gpudoctor probe)
=== too-old.log
CRITICAL  driver.cuda_too_new            the job
          The job's CUDA runtime is newer than the driver supports: the driver found is for CUDA 11.4 (too-old.log:1).
          messages 1 · driver cuda version 11040
          too-old.log:1: RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update 
          → Upgrade the driver (nvidia-smi shows the CUDA version it supports), or use a build of the framework for a CUDA the driver supports (e.g. the cu121 PyTorch wheels), or the CUDA forward-compatibility package on data-center GPUs.
  net.rdma_unused (no NCCL_DEBUG=INFO lines in the job's log (rerun the job with NCCL_DEBUG=INFO))
  probe.gpu_compute_slow, probe.gpu_compute_mismatch, probe.gpu_hung, probe.gpu_memory_errors, probe.gpu_mem_bandwidth_low, probe.pcie_bandwidth_low, probe.p2p_bandwidth_low (no probe results in the input: run gpudoctor probe)
=== nccl-2nodes.log
WARNING   net.rdma_unused                node-a
          The multi-node job's NCCL traffic goes over TCP sockets (NCCL_IB_DISABLE=1, several nodes): gradients cross the network without RDMA.
          nodes 2 · hosts 1 · transport Socket
          nccl-2nodes.log:1: node-a:100:100 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.
          nccl-2nodes.log:2: node-a:100:100 [0] NCCL INFO Using network Socket
          → Gradients go over TCP: give the job RDMA (InfiniBand/RoCE, or the cloud's RDMA fabric), check the NCCL_IB_* and NCCL_SOCKET_IFNAME settings and the container's access to /dev/infiniband.
  probe.gpu_compute_slow, probe.gpu_compute_mismatch, probe.gpu_hung, probe.gpu_memory_errors, probe.gpu_mem_bandwidth_low, probe.pcie_bandwidth_low, probe.p2p_bandwidth_low (no probe results in the input: run gpudoctor probe)
=== nccl-unsure.log
  net.rdma_unused (NCCL's lines do not show whether the job spans nodes (no nNodes, no channel via NET/, one host))
  probe.gpu_compute_slow, probe.gpu_compute_mismatch, probe.gpu_hung, probe.gpu_memory_errors, probe.gpu_mem_bandwidth_low, probe.pcie_bandwidth_low, probe.p2p_bandwidth_low (no probe results in the input: run gpudoctor probe)
EOF
)
if [ "$got" != "$want" ]; then
	bad "the English of these rules changed:"
	diff <(echo "$want") <(echo "$got") | head -40
fi
for in in $INPUTS; do
	c=$(LANG=C LC_ALL=C run "$in")
	en=$(LANG=zh_CN.UTF-8 run "$in" --lang en)
	[ "$c" = "$en" ] || bad "$in: --lang en differs from LANG=C"
	q='[.findings[] | {id, subject, summary, remedy}]'
	js=$(LANG=C LC_ALL=C runj "$in" "$q")
	zjs=$(LANG=zh_CN.UTF-8 runj "$in" "$q")
	[ "$js" != "bad JSON" ] || bad "$in: check --json did not print a report"
	[ "$js" = "$zjs" ] || bad "$in: --json under LANG=zh_CN.UTF-8 is not the English one: $zjs"
done

# ---- Chinese ------------------------------------------------------------------------
# INPUT|a sentence (or part of one) of the zh_CN report
zh_want() {
	cat <<'EOF'
0100|NCCL watchdog 判定 _ALLGATHER_BASE（SeqNum 9141）在 600 s 后超时（超时阈值 600 s），作业因此被终止：某个 rank 不再调用集合通信，或某条链路故障。
0100|NCCL watchdog 判定 ALLREDUCE（SeqNum 808）在 600 s 后超时（超时阈值 600 s）：某个 rank 不再调用集合通信，或某条链路故障。
0100|（作业日志中没有 NCCL_DEBUG=INFO 的输出（设置 NCCL_DEBUG=INFO 后重跑作业））
0101|作业自身的代码在 GPU 上出错：非法内存访问（tests/offline/0101-joblog-illegal-memory-access/adetailer-346.log:1）。这是应用或框架的 bug，不是硬件故障。
0101|（输入中没有探测结果：请运行 gpudoctor probe）
0102|作业显存溢出（OOM）：尝试分配 2.26 GiB，空闲 3.03 GiB / 共 6.00 GiB（已用 49%）；PyTorch 已分配 781.59 MiB。
0102|已用显存中 PyTorch 只占 781.59 MiB（总量 6.00 GiB）：另有进程共用这块 GPU，或分配器缓存碎片化
0106|DataLoader 工作进程被信号 Killed 杀死（tests/offline/0106-joblog-loader-killed/dcpdn-12.log:6），日志中没有共享内存相关的报错：SIGKILL 是 OOM killer 发出的信号，主机内存已耗尽。
0107|找出是哪块 GPU：在作业所在主机上运行 nvidia-smi -q -d ECC，看 volatile uncorrectable 计数。
0113|多节点作业的 NCCL 流量走 TCP socket（NCCL 选择了 Socket 网络）：梯度不经 RDMA 在网络上传输。
0300|pid 31893 (python3) 的主线程要占单核的 100%（阈值 80%：在 CPU 上运行 16%，等待 CPU 85%），100% 的样本在 CUDA 和 NCCL 库之外（100% python），而 gpu0 (0000:1b:00.0) 平均利用率 9%：主机端循环发射 GPU 任务的速度跟不上。
0300|job.host_bound（主线程占单核的 100%：100% python）
0300|（输入中没有作业日志：用 check --from train.log 提供）
0301|pid 19197 (jl) 主线程和 NCCL 线程的样本有 94% 在 NCCL 中（阈值 50%），而 gpu0 (0000:1b:00.0) 平均利用率 4%，且找不到本机原因：该节点在集合通信中等待其他 rank。
0303|GPU 作业的 pid 29542 (nc) 经 1 条往返时延不低于 10 ms 的 TCP 连接传输数据；最远的一条连到 10.233.7.2:5003，RTT 386.5 ms（最低 0.06 ms）：每个请求都要等网络延迟。
0401|compute_fp32 达到 36429 GFLOP/s，为中位数的 71%（7 块同型号 GPU 的中位数为 51000 GFLOP/s）。
0402|h2d 拷贝回来的数据被改动：262144 个字中有 1 个与写入的不同（链路或 GPU 显存损坏了数据）。
0402|相同输入下，compute_bf16 压力测试的结果与 7 块同型号 GPU 的结果不同。
0403|compute_fp32 探测未在限定时间内完成；探测进程已被终止。
0403|（探测结果中没有主机<->设备拷贝的数据）
0403|（探测结果中没有 mem_bandwidth 的数据（未运行或失败））
0404|h2d 拷贝速率为 13.0 GB/s，是期望值的 26%（49.1 GB/s，依据：链路 Gen5 x16）。
0405|GPU 间拷贝速率为 120.0 GB/s，是中位数的 32%（本节点其他 55 对的中位数为 370.0 GB/s）。
diag.txt|dcgmi diag（PCIe 测试）发现 gpu3 上有 NVLink 链路断开："GPU 3GPU 3's NvLink link 0 is currently down Run a field diagnostic on the GPU."（diag.txt:13）。
diag.txt|用 nvidia-smi nvlink -s 和 nvidia-smi topo -m 检查链路。
diag.txt|dcgmi diag 的 Diagnostic 测试在 gpu2 上失败："GPU 2 miscompare in the GEMM results"（diag.txt:16）。
diag.txt|作业拿不到 GPU："all CUDA-capable devices are busy or unavailable"（diag.txt:10）：另有进程以独占计算模式占用了它，或该 GPU 不可用。
dmon.txt|dcgmi dmon 报告 Xid 9999 是 gpu2 最近一次的 Xid（不在 gpudoctor 的目录中：请查 NVIDIA 的 Xid 表；dmon.txt:5）；dmon 不提供时间和次数：两者请查内核日志。
loader-exit.log|DataLoader 工作进程意外退出（loader-exit.log:2），日志中没有共享内存相关的报错：它耗尽了主机内存或已崩溃。
loader-segv.log|DataLoader 工作进程被信号 Segmentation fault 杀死（loader-segv.log:1），日志中没有共享内存相关的报错：它崩溃了。
oom-bare.log|作业显存溢出（CUDA error: out of memory）。
too-old.log|作业的 CUDA 运行时版本高于驱动支持的版本：当前驱动只支持到 CUDA 11.4（too-old.log:1）。
nccl-2nodes.log|多节点作业的 NCCL 流量走 TCP socket（NCCL_IB_DISABLE=1，多个节点）：梯度不经 RDMA 在网络上传输。
nccl-unsure.log|（从 NCCL 的日志看不出作业是否跨节点（没有 nNodes，没有经 NET/ 的 channel，只有一台主机））
EOF
}
while IFS='|' read -r in s; do
	out=$(run "$in" --lang zh_CN)
	grep -qF -- "$s" <<<"$out" || bad "$in: --lang zh_CN does not say: $s"
done < <(zh_want)
for in in $INPUTS; do
	run "$in" --lang zh_CN | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1 || bad "$in: --lang zh_CN is not valid UTF-8"
	# shellcheck disable=SC2016 # $ids is jq's
	q='[.findings[] | select(.id | test($ids)) | {id, subject, evidence}]'
	en=$(LANG=C LC_ALL=C runj "$in" "$q")
	zh=$(runj "$in" "$q" --lang zh_CN)
	[ "$en" != "bad JSON" ] || bad "$in: check --json did not print a report"
	[ "$en" = "$zh" ] || bad "$in: ids, subjects or evidence change with the language: $zh"
done

# ---- the host probes (fake node) ----------------------------------------------------
mine_g=$G
# shellcheck source=tests/probe/lib.sh
source tests/probe/lib.sh # its setup, probe and a bad() of its own
G=$mine_g
bad() { echo "FAIL: $*"; fail=1; }
setup
trap 'rm -rf "$work" "$T"' EXIT
mkdir -p "$T/data/small"
for i in $(seq 1 1200); do head -c 4096 /dev/urandom >"$T/data/small/$i.jpg"; done
head -c 16777216 /dev/urandom >"$T/data/shard-0000.tar"
sed -i "s/^time_scale = .*/time_scale = 0.1/" "$T/cuda.ini"
export HOST_SKIP= # lib.sh's probe runs STREAM (host_mem) only so
only=compute_fp32,power,storage,host_mem
reach=(--gpus 0-1 --only "$only" --data "$T/data"
	--set probe.power_headroom.psu_capacity_w=1000 --set probe.host_mem_bandwidth_low.expected_gb_s=100000
	--set probe.small_files_slow.min_files_s=100000000 --set probe.small_files_slow.epoch_open_pct=0.001)
for c in nvme ssd hdd net; do reach+=(--set "probe.storage_slow.${c}_seq_mb_s=1000000"); done
probe --lang zh_CN "${reach[@]}"
zh=$(cat "$T/out")
iconv -f UTF-8 -t UTF-8 "$T/out" >/dev/null 2>&1 || bad "probe --lang zh_CN: not valid UTF-8"
for s in '满载压力测试时整机功耗 ' '电源容量 1000 W：功率冗余 ' '，绕过页缓存测得：顺序读 ' '（下限 1000000）' \
	' 个文件以 ' '每个 epoch 仅打开文件就要 ' '上的 STREAM triad（' '（参考：配置值 100000.0 GB/s；阈值 60%）。' \
	' 下限（probe.storage_slow.' '（电源容量 1000 W，配置值），' 'probe.small_files_slow.min_files_s；全部打开为'; do
	grep -qF -- "$s" <<<"$zh" || bad "probe --lang zh_CN does not say: $s"
done
LANG=C LC_ALL=C probe "${reach[@]}"
en=$(cat "$T/out")
for re in \
	'^          At full burn the machine draws [0-9]+ W \(.+\) of 1000 W PSU capacity: -?[0-9]+% headroom \(threshold 20%\)\.$' \
	'^          /.+ on [^ ]+ \(.+\) reads [0-9]+ MB/s sequentially \(floor 1000000\)( and takes [0-9]+ us per 4 KiB read \(ceiling [0-9]+\))?, bypassing the page cache(: one pass over the data set reads for [0-9.]+ (s|min|h))?\.$' \
	'^          /.+: [0-9]+ files opened and read at [0-9]+ files/s \([0-9.]+ MB/s\): [0-9.]+ (s|min|h) per epoch just for the files, [0-9]+% of the (configured epoch|time to stream the data set once) \([0-9.]+ (s|min|h); threshold 0%\)\.$' \
	'^          STREAM triad on (the host0|node[0-9]+) \([0-9]+ threads\) reached [0-9.]+ GB/s, [0-9]+% of configured 100000\.0 GB/s \(threshold 60%\)\.$' \
	'expected >= 1000000\.0 \(.+ floor \(probe\.storage_slow\.[a-z]+_seq_mb_s\)\)' \
	'expected <= 800\.0 \(80% of PSU capacity 1000 W \(config\), .+\)' \
	'\(probe\.small_files_slow\.min_files_s; opening all: [0-9]+% of the (configured epoch|time to stream the data set once)\)' \
	'\(60% of configured 100000\.0 GB/s\)'; do
	grep -qE -- "$re" <<<"$en" || bad "probe (English) has no line matching: $re"
done

[ $fail -eq 0 ] && echo "rules3: the job's and the probes' findings in Chinese, the English unchanged"
exit $fail
