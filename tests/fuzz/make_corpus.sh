#!/bin/bash
# tests/fuzz/make_corpus.sh FUZZER [OUTDIR] - (re)builds the seed corpus of
# fuzz_parsers from this machine's own files.
#
# The fuzzer picks its target by the first input byte, so each seed is one
# byte (the target's index) followed by a real sample.  The index comes from
# the fuzzer itself (GD_FUZZ_LIST=1 prints "index name" per target), never
# from a hand-kept table, so adding a parser cannot shift the seeds silently.
# OUTDIR (default tests/fuzz/corpus) gets, per target, the whole file and a
# copy cut in the middle of a line, plus INDEX: the list the seeds were made
# for (run.sh compares it with the fuzzer's).  A file this machine lacks
# (memory.events on a cgroup v1 host) gets a short sample in its documented
# format instead.  GPUDOCTOR, when set (and jq installed), supplies real
# snapshot lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
fuzzer=${1:?usage: make_corpus.sh FUZZER [OUTDIR]}
out=${2:-tests/fuzz/corpus}
cap=65536

list=$(GD_FUZZ_LIST=1 "$fuzzer" 2>/dev/null) || { echo "make_corpus: $fuzzer -list failed" >&2; exit 1; }
[ -n "$list" ] || { echo "make_corpus: $fuzzer listed no targets" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out"/[0-9][0-9]-*
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# seed INDEX NAME VARIANT FILE: writes the index byte, then FILE (capped).
seed() {
	local f
	f=$(printf '%s/%02d-%s-%s' "$out" "$1" "$(printf '%s' "$2" | tr -c 'A-Za-z0-9.\n' '_')" "$3")
	{ printf "\\$(printf '%03o' "$1")"; head -c "$cap" "$4"; } >"$f"
}

# seeds_of INDEX NAME FILE...: the whole of each file and a truncated copy.
seeds_of() {
	local idx=$1 name=$2 n=0 f len
	shift 2
	for f in "$@"; do
		[ -r "$f" ] || continue
		cat "$f" >"$tmp/s" 2>/dev/null || continue
		[ -s "$tmp/s" ] || continue
		n=$((n + 1))
		seed "$idx" "$name" "real$n" "$tmp/s"
		len=$(wc -c <"$tmp/s")
		head -c $((len / 2 + 1)) "$tmp/s" >"$tmp/t"
		seed "$idx" "$name" "cut$n" "$tmp/t"
	done
	[ $n -gt 0 ]
}

while read -r idx name; do
	case $name in
	proc/\<pid\>/environ)
		# Never this machine's own environments (they hold secrets):
		# launchers' keys as torchrun, srun and mpirun set them, with a
		# program's rewritten argv area and junk after them.
		printf 'PATH=/usr/bin\0RANK=3\0LOCAL_RANK=3\0WORLD_SIZE=16\0LOCAL_WORLD_SIZE=8\0GROUP_RANK=0\0MASTER_ADDR=node-01\0MASTER_PORT=29500\0TORCHELASTIC_RUN_ID=abc\0NCCL_IB_HCA=mlx5_0:1\0HOSTNAME=trainer-0\0' >"$tmp/p1"
		printf 'SLURM_JOB_ID=812345\0SLURM_STEP_ID=0\0SLURM_PROCID=37\0SLURM_LOCALID=5\0SLURM_NODEID=4\0SLURM_NTASKS=64\0OMPI_COMM_WORLD_RANK=1\0PMI_RANK=2\0PMI_SIZE=4\0RANK=x\0RANK=4\0python train.py   \0=\0\377' >"$tmp/p2"
		seeds_of "$idx" "$name" "$tmp/p1" "$tmp/p2" ;;
	proc/\<pid\>/task/\<tid\>/*)
		# this script's shell (blocked in wait4 while cat runs) and the
		# cat itself (running): a thread's file is its process's here
		rest=${name##*/}
		cat "/proc/$$/task/$$/$rest" >"$tmp/p1" 2>/dev/null
		cat "/proc/self/$rest" >"$tmp/p2" 2>/dev/null
		seeds_of "$idx" "$name" "$tmp/p1" "$tmp/p2" ;;
	proc/\<pid\>/*)
		rest=${name#proc/<pid>/}
		# This script's shell and the cat that reads its own file: two
		# real processes (cgroup paths made neutral, they name this host's
		# scheduler).
		cat "/proc/$$/$rest" >"$tmp/p1" 2>/dev/null
		cat "/proc/self/$rest" >"$tmp/p2" 2>/dev/null
		if [ "$rest" = cgroup ]; then
			sed -i -E 's#:/[^:]+$#:/user.slice/job.scope#' "$tmp/p1" "$tmp/p2"
		fi
		seeds_of "$idx" "$name" "$tmp/p1" "$tmp/p2" ;;
	proc/*)
		seeds_of "$idx" "$name" "/$name" ;;
	cgroup\ *)
		file=${name#cgroup }
		mapfile -t found < <(find /sys/fs/cgroup -maxdepth 3 -name "$file" 2>/dev/null | head -n 2)
		seeds_of "$idx" "$name" "${found[@]}" || {
			case $file in
			memory.events) printf 'low 0\nhigh 12\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n' ;;
			cpu.stat) printf 'usage_usec 35475517\nuser_usec 17793285\nsystem_usec 17682232\nnr_periods 120\nnr_throttled 7\nthrottled_usec 81234\n' ;;
			*) printf '%s 1\n' "$file" ;;
			esac >"$tmp/s"
			seed "$idx" "$name" "doc" "$tmp/s"
		} ;;
	snapshot.jsonl)
		# Two real snapshots a moment apart, every array cut to its first
		# two records: complete lines, small enough to mutate quickly.
		# The processes kept are the last two (this script's own); command
		# lines and cgroup paths are made neutral.
		if [ -n "${GPUDOCTOR:-}" ] && [ -x "$GPUDOCTOR" ] && command -v jq >/dev/null &&
		   { "$GPUDOCTOR" snapshot; "$GPUDOCTOR" snapshot; } 2>/dev/null |
		   jq -c '.procs |= .[-2:]
		          | with_entries(if (.value | type) == "array" then .value |= .[:2] else . end)
		          | .procs |= map(.cmdline = .comm | .cgroup = "/user.slice/job.scope")
		          | .cgroups |= map(.path = "/user.slice/job.scope" | .memory_path = .path)' \
		   >"$tmp/snap" 2>/dev/null && [ -s "$tmp/snap" ]; then
			seeds_of "$idx" "$name" "$tmp/snap"
		fi
		printf '{"version":1,"host":{"hostname":"h","uptime_s":12.5,"clk_tck":100},"cpus":[{"cpu":0,"user_ticks":5}],"sources":[]}\n\n{"version":1,"host":{"uptime_s":13.5}}\n' >"$tmp/m"
		seed "$idx" "$name" "min" "$tmp/m"
		# a recording's lines that write unchanged processes and threads as
		# their pid or tid (snapshot_delta.h): one whole, two after it
		printf '%s\n' '{"version":1,"host":{"uptime_s":1.0},"procs":[{"pid":4,"comm":"a"},{"pid":5,"comm":"b","utime_ticks":3}],"threads":[{"pid":4,"tid":4}]}' \
			'{"version":2,"after":1.0,"host":{"uptime_s":2.0},"procs":[4,{"pid":5,"comm":"b","utime_ticks":9}],"threads":[4]}' \
			'{"version":2,"after":2.0,"host":{"uptime_s":3.0},"procs":[5,4],"threads":[4],"job_threads":[{"tid":4},4]}' >"$tmp/m"
		seed "$idx" "$name" "delta" "$tmp/m" ;;
	sys/bus/pci/devices/\*/aer_dev_correctable|sys/bus/pci/devices/\*/aer_dev_nonfatal|sys/bus/pci/devices/\*/aer_dev_fatal)
		# Older and newer labels (FACTS.md 4.12); the count is the last token.
		printf 'Undefined 0\nData Link Protocol 0\nSurprise Down Error 0\nPoisoned TLP 1\nCompletion Timeout 2\nTOTAL_ERR_NONFATAL 3\n' >"$tmp/s"
		seed "$idx" "$name" "old" "$tmp/s"
		printf 'Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 0\nTOTAL_ERR_FATAL 0\n' >"$tmp/s"
		seed "$idx" "$name" "new" "$tmp/s" ;;
	sys/bus/pci/devices/\*/current_link_speed)
		# Current kernels, the pre-5.7 spelling, and a device without PCIe.
		printf '16.0 GT/s PCIe\n' >"$tmp/s"; seed "$idx" "$name" "new" "$tmp/s"
		printf '8 GT/s\n' >"$tmp/s"; seed "$idx" "$name" "old" "$tmp/s"
		printf 'Unknown\n' >"$tmp/s"; seed "$idx" "$name" "unknown" "$tmp/s" ;;
	kernel\ log)
		# One line of each front-end: dmesg, dmesg -T, journalctl -k, /dev/kmsg.
		{
			printf '[ 1234.567890] NVRM: Xid (PCI:0000:5d:00): 79, pid=4242, name=python, GPU has fallen off the bus.\n'
			printf '[Mon Nov 30 03:12:40 2026] NVRM: Xid (PCI:0000:3b:00): 63, pid=1234, name=python, Row Remapper: New row marked for remapping, reset gpu to activate.\n'
			printf 'Nov 30 03:12:41 gpu-a17 kernel: pcieport 0000:3a:00.0: AER: Corrected error received: 0000:3b:00.0\n'
			printf '4,1234,5023456789,-;NVRM: Xid (PCI:0000:5d:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)\n'
			printf '[ 99.1] Out of memory: Killed process 4242 (python) total-vm:123456kB, anon-rss:654321kB, file-rss:0kB\n'
			# issue 11: dmesg -x, dmesg iso, RFC 5424, forwarded (Talos), --no-hostname indented
			printf 'kern  :warn  : [ 1843.308145] NVRM: GPU at 0000:01:00.0 has fallen off the bus.\n'
			printf '2026-04-22T21:30:51,526447+00:00 NVRM: Xid (PCI:0000:5d:00): 79, GPU has fallen off the bus.\n'
			printf '<4>1 2026-04-22T21:30:51.526Z gpu-a17 kernel - - - NVRM: GPU0 GSP task watchdog timeout\n'
			printf '10.0.0.7: kern: warning: [2026-04-22T21:30:51.52643656Z]: NVRM: _issueRpcAndWait: rpcRecvPoll timedout\n'
			printf '     Mar 21 21:42:01 kernel: NVRM: GPU0 _kgspRpcRecvPoll: GSP RM heartbeat timed out\n'
			# journalctl short-precise, the resource-free assertions (ninfer#12)
			printf 'Aug 10 22:40:59.880779 anthill kernel: NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: (status == NV_OK) || (status == NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_client.c:844\n'
		} >"$tmp/s"
		seed "$idx" "$name" "fronts" "$tmp/s"
		# issue 27: a hung-task report whose call trace runs through the NVIDIA modules, both frame shapes
		{
			printf '[ 7510.129324] INFO: task gdscheck:509579 blocked for more than 120 seconds.\n'
			printf '[ 7510.131227] Call Trace:\n[ 7510.131238]  __schedule+0x24e/0x590\n'
			printf '[ 7510.131288]  os_acquire_rwlock_read+0x35/0x50 [nvidia]\n'
			printf '[ 7510.133677]  ? _nv052958rm+0x2cc/0x360 [nvidia]\n'
			printf '[  721.028422]  [<ffffffffa09c376e>] uvm_gpu_retain_by_uuid+0x1e/0x40 [nvidia_uvm]\n'
		} >"$tmp/s"
		seed "$idx" "$name" "hung-nvidia" "$tmp/s" ;;
	offline\ *)
		# the offline fixtures (tests/offline), by the kind each target reads
		case $name in
		*"topo -m") set -- tests/offline/real/topo-m/*.txt ;;
		*"-q -x") set -- tests/offline/0016-*/q.xml ;;
		*"-q") set -- tests/offline/0002-*/smi.txt tests/offline/0011-*/q.txt tests/offline/0202-*/*.txt ;;
		*csv) set -- tests/offline/0017-*/q.csv tests/offline/0018-*/paste.txt ;;
		*table) set -- tests/offline/0014-*/nvidia-smi.txt tests/offline/0020-*/nvidia-smi.out ;;
		*lspci) set -- tests/offline/0008-*/lspci.txt tests/offline/0206-*/*.txt tests/offline/0208-*/*.txt \
			tests/offline/0511-*/*.txt tests/offline/0514-*/*.txt ;;
		*"job log") set -- tests/offline/0100-*/sglang-1693.log tests/offline/0105-*/gdr-net-16.log \
			tests/offline/0111-*/nccl-tests-373.log tests/offline/0103-*/pytorch-16417.log ;;
		*dcgmi) set -- tests/offline/0225-*/*.txt tests/offline/0227-*/*.txt tests/offline/0234-*/*.txt \
			tests/offline/real/dcgmi-health/health-c-boxed-*.txt tests/offline/real/dcgmi-health/health-c-tree-*.txt \
			tests/offline/real/dcgmi-health/hostengine-log-*.txt ;;
		*df) set -- tests/offline/0480-*/*.txt tests/offline/0481-*/*.txt ;;
		*ibstat) set -- tests/offline/0470-*/*.txt tests/offline/0473-*/*.txt ;;
		*nvlink) set -- tests/offline/0474-*/*.txt tests/offline/0475-*/*.txt ;;
		*) set -- tests/offline/0019-*/ticket.txt tests/offline/0028-*/stdin ;;
		esac
		# fixtures are large: their first 16 KiB mutate faster
		for f in "$@"; do head -c 16384 "$f" >"$tmp/o.$(basename "$f")"; done
		seeds_of "$idx" "$name" $(for f in "$@"; do echo "$tmp/o.$(basename "$f")"; done) ;;
	netlink\ inet_diag)
		# a real sock_diag dump reply of this machine's IPv4 TCP sockets, with
		# tcp_info (python3's AF_NETLINK socket asks the kernel)
		python3 - >"$tmp/s" 2>/dev/null <<'NLEOF' || : >"$tmp/s"
import socket, struct, sys
s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 4)   # NETLINK_SOCK_DIAG
req = struct.pack("=BBBBI", socket.AF_INET, socket.IPPROTO_TCP, 1 << 1, 0, 0xfff & ~(1 << 10)) + b"\0" * 48
s.sendto(struct.pack("=IHHII", 16 + len(req), 20, 0x301, 1, 0) + req, (0, 0))
sys.stdout.buffer.write(s.recv(65536))
NLEOF
		[ -s "$tmp/s" ] && seeds_of "$idx" "$name" "$tmp/s" ;;
	thresholds.ini)
		printf '; gpudoctor thresholds\n[cpu.saturated]\nbusy_pct = 85\npsi_some_pct=40\n\n[mem.shm_small]\nmin_bytes = 1073741824 ; 1 GiB\n[net.retransmits]\n# comment\nretrans_pct = 0.5\nmin_out_segs = 200\n' >"$tmp/s"
		seed "$idx" "$name" "ini" "$tmp/s" ;;
	ptx\ module)
		# the probes' own modules as the build made them, and a JIT log
		for f in "${BUILD:-build}"/gen/base.ptx "${BUILD:-build}"/gen/tensor.ptx; do
			[ -r "$f" ] && seed "$idx" "$name" "$(basename "$f" .ptx)" "$f"
		done
		printf '//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.4\n.target sm_90a\n.address_size 64\n\n.visible .entry k()\n{\n\tret;\n}\n' >"$tmp/s"
		seed "$idx" "$name" "sm90a" "$tmp/s"
		printf "ptxas application ptx input, line 9; error   : Unknown symbol 'x'\nptxas fatal   : Ptx assembly aborted due to errors\n" >"$tmp/s"
		seed "$idx" "$name" "jitlog" "$tmp/s" ;;
	probe\ sku\ table)
		# the built-in table (even length: read as a SKU file) and a
		# configuration with thresholds and [probe.sku] sections (odd: as one)
		cp data/probe-sku.ini "$tmp/s"
		[ $(($(wc -c <"$tmp/s") % 2)) -eq 0 ] || printf '\n' >>"$tmp/s"
		seed "$idx" "$name" "builtin" "$tmp/s"
		printf '[cpu.saturated]\nbusy_pct = 85\n\n[probe.sku "NVIDIA H100 80GB HBM3"]\ncompute_fp32_reached = 0.62\nreached_source = probe --quick on 8 H100s,\n  node a17\n[probe.sku "NVIDIA B200"]\npcie_gen = 6\npcie_width = 16\nsource = x\n' >"$tmp/s"
		[ $(($(wc -c <"$tmp/s") % 2)) -eq 1 ] || printf '\n' >>"$tmp/s"
		seed "$idx" "$name" "config" "$tmp/s" ;;
	http\ request)
		# what Prometheus, curl and a browser send; HTTP/1.0; two pipelined
		printf 'GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9835\r\nUser-Agent: Prometheus/2.42.0\r\nAccept: text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\nAccept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n' >"$tmp/s"
		seed "$idx" "$name" "prometheus" "$tmp/s"
		printf 'HEAD /findings?x=1 HTTP/1.1\r\nHost: localhost:9835\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\nGET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n' >"$tmp/s"
		seed "$idx" "$name" "pipelined" "$tmp/s"
		printf 'POST http://node7:9835/metrics HTTP/1.1\nHost: node7\nContent-Length: 3\nConnection: close\n\nx=1' >"$tmp/s"
		seed "$idx" "$name" "post" "$tmp/s" ;;
	prometheus\ answer)
		# answers Prometheus wrote (tests/exporter/fixtures/prom-answers/MANIFEST)
		seeds_of "$idx" "$name" tests/exporter/fixtures/prom-answers/*.json ;;
	ipmitool\ dcmi\ power\ reading)
		# the real outputs of tests/probe/host_ipmi (sources in its MANIFEST)
		seeds_of "$idx" "$name" tests/probe/host_ipmi/lovoo-ipmi_exporter-18.txt \
			tests/probe/host_ipmi/ateodorescu-home-assistant-addons-38-joined.txt \
			tests/probe/host_ipmi/openbmc-phosphor-host-ipmid-167-zero.txt ;;
	pci\ config\ space)
		# real config spaces of bridges (pciutils' test dumps, tests/unit/data/pci-config)
		seeds_of "$idx" "$name" tests/unit/data/pci-config/*.bin ;;
	command\ line\ redaction)
		# made-up secrets in the shapes redact.c knows (never this machine's
		# own command lines): flags with values, key=value, URLs with users
		printf 'python\0train.py\0--api-key\0sk-FAKE0123456789\0--wandb-key=abcd\0--data\0s3://u:p@bucket/x\0' >"$tmp/r1"
		printf 'Atorchrun --nproc 8 train.py --token hf_FAKE --password=hunter2 AWS_SECRET_ACCESS_KEY=x https://user:pw@host/ ' >"$tmp/r2"
		seeds_of "$idx" "$name" "$tmp/r1" "$tmp/r2" ;;
	proc/\<pid\>/stack)
		# a new kernel's (addresses hidden) and an old one's, with module frames (issue 27)
		printf '[<0>] __schedule+0x2d2/0x870\n[<0>] os_acquire_mutex+0x1c/0x30 [nvidia]\n[<0>] nvidia_ioctl+0x1c4/0x820 [nvidia]\n' >"$tmp/s"
		seed "$idx" "$name" "new" "$tmp/s"
		printf '[<ffffffffc33d41c2>] uvm_spin_loop+0xb2/0xe0 [nvidia_uvm]\n[<ffffffffc3418ab3>] wait_for_entry_with_spin+0x63/0x170 [nvidia_uvm]\n[<ffffffffffffffff>] 0xffffffffffffffff\n' >"$tmp/s"
		seed "$idx" "$name" "old" "$tmp/s" ;;
	fabricmanager.log)
		# real Fabric Manager logs and journal lines (tests/offline/real/MANIFEST.md)
		seeds_of "$idx" "$name" tests/offline/real/fabric/fabricmanager-*.log \
			tests/offline/real/fabric/journal-fm-version-mismatch.txt ;;
	*)
		echo "make_corpus: no sample known for target $idx ($name)" >&2 ;;
	esac
done <<<"$list"
printf '%s\n' "$list" >"$out/INDEX"
echo "make_corpus: $(find "$out" -name '[0-9][0-9]-*' | wc -l) seeds for $(wc -l <<<"$list") targets in $out"
