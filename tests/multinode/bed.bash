# tests/multinode/bed.bash - the multi-node test bed (issue 26), sourced by
# tests/e2e/multinode.sh and bench/multinode.sh (not a test itself).
#
# N "nodes", each a network namespace gdbed<ID>n<K> joined by a veth pair
# (gdbed<ID>v<K> on the bridge gdbed<ID>br in the root namespace, eth0 in the
# node) at 10.213.<SUB>.<K+1>/24; in each node one rank of a job
# (build/multinode/rank: steps of CPU work standing in for the GPU, a ring
# all-reduce over TCP inside build/multinode/nccl/libnccl.so.2, busy-polling)
# and its own `gpudoctor serve` with the fake NVML: one H100 whose compute
# process is the node's rank (procs_file) and whose utilisation follows the
# rank's work (load_file: 97% while the rank computes, 3% otherwise).  One
# real Prometheus in the root namespace scrapes every node's serve.
#
# The user defines fail() and skip() and sets GPUDOCTOR; bed_up N sets
# BED_ID, BED_DIR, BED_SUB and P (Prometheus' URL); bed_down undoes
# everything (namespaces, bridge, cgroups, processes): call it from a trap.
BED_BUILD=$(dirname "$GPUDOCTOR")
BED_PIDS=()
BED_RANKS=()
BED_N=0
BED_CG=""

bed_addr() { echo "10.213.$BED_SUB.$(($1 + 1))"; }
bed_ns() { echo "gdbed${BED_ID}n$1"; }

bed_need() {
	[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, cgroups, tc)"
	local t
	for t in ip tc prometheus curl jq; do
		command -v "$t" >/dev/null || skip "$t is not installed"
	done
	[ -x "$BED_BUILD/multinode/rank" ] || fail "$BED_BUILD/multinode/rank is not built (make unit)"
	[ -f "$BED_BUILD/fake_nvml/libnvidia-ml.so.1" ] || fail "the fake NVML is not built (make unit)"
}

# bed_nvml_ini K [HEAT]: node K's fake-NVML scenario (HEAT: gpu0's temp_c,
# sm_clock_mhz, clock_event_reasons and violation_thermal_ns instead of a
# cool GPU's).
bed_nvml_ini() {
	local k=$1 d=$BED_DIR/n$1
	cat >"$d/nvml.ini" <<INI
[nvml]
driver_version = 550.54.15
cuda_driver_version = 12040
[gpu0]
name = NVIDIA H100 80GB HBM3
uuid = GPU-3f2a9c1e-7b4d-4e8a-9c2f-00000000$(printf %04d "$k")
pci_bus_id = 00000000:1B:00.0
util_gpu_pct = 3
util_mem_pct = 2
mem_total_bytes = 85520809984
mem_used_bytes = 2147483648
temp_slowdown_c = 87
temp_shutdown_c = 92
sm_clock_max_mhz = 1980
${2:-temp_c = 45
sm_clock_mhz = 1980
clock_event_reasons = 0
violation_thermal_ns = 0}
procs_file = $d/procs
load_file = $d/busy
load.util_gpu_pct = 97
load.util_mem_pct = 40
INI
}

# bed_serve K: (re)starts node K's serve inside its namespace.
bed_serve() {
	local k=$1 ns
	ns=$(bed_ns "$k")
	[ -n "${BED_SERVE[$k]:-}" ] && { kill "${BED_SERVE[$k]}" 2>/dev/null; wait "${BED_SERVE[$k]}" 2>/dev/null; }
	bed_run ip netns exec "$ns" env GPUDOCTOR_NVML="$BED_BUILD/fake_nvml/libnvidia-ml.so.1" \
		GPUDOCTOR_FAKE_NVML="$BED_DIR/n$k/nvml.ini" "$GPUDOCTOR" serve --listen "$(bed_addr "$k"):9835" \
		--interval "${BED_INTERVAL:-2s}" --window "${BED_WINDOW:-6s}" 2>"$BED_DIR/n$k/serve.log" &
	BED_SERVE[k]=$!
	BED_PIDS+=($!)
}

# bed_up N: the namespaces, bridge, serves and Prometheus.
bed_up() {
	local k ns i port try
	BED_N=$1
	BED_ID=$(( $$ % 900 + 100 ))
	BED_SUB=$(( $$ % 250 + 1 ))
	BED_DIR=$(mktemp -d "/tmp/gdbed$BED_ID.XXXXXX") || fail "mktemp"
	declare -g -a BED_SERVE=()
	bed_cg_init
	ip link add "gdbed${BED_ID}br" type bridge 2>"$BED_DIR/err" || skip "cannot create a bridge: $(cat "$BED_DIR/err")"
	ip addr add "10.213.$BED_SUB.254/24" dev "gdbed${BED_ID}br" && ip link set "gdbed${BED_ID}br" up ||
		fail "configuring the bridge"
	for k in $(seq 0 $((BED_N - 1))); do
		ns=$(bed_ns "$k")
		mkdir -p "$BED_DIR/n$k"
		ip netns add "$ns" || skip "cannot create a network namespace"
		ip link add "gdbed${BED_ID}v$k" type veth peer name eth0 netns "$ns" 2>"$BED_DIR/err" ||
			skip "cannot create a veth pair: $(cat "$BED_DIR/err")"
		ip link set "gdbed${BED_ID}v$k" master "gdbed${BED_ID}br" && ip link set "gdbed${BED_ID}v$k" up &&
			ip -n "$ns" link set lo up && ip -n "$ns" addr add "$(bed_addr "$k")/24" dev eth0 &&
			ip -n "$ns" link set eth0 up || fail "configuring node $k"
		bed_nvml_ini "$k"
		bed_serve "$k"
	done
	{
		printf 'global: {scrape_interval: %s, scrape_timeout: %s}\nscrape_configs:\n- job_name: gpudoctor\n  static_configs:\n  - targets: [' \
			"${BED_SCRAPE:-5s}" "${BED_SCRAPE_TIMEOUT:-$(s=${BED_SCRAPE:-5s}; s=${s%s}; echo $((s > 1 ? s - 1 : 1))s)}"
		for k in $(seq 0 $((BED_N - 1))); do printf '%s"%s:9835"' "$([ "$k" = 0 ] || echo ,)" "$(bed_addr "$k")"; done
		printf ']\n'
	} >"$BED_DIR/prometheus.yml"
	P=""
	for try in 1 2 3; do
		port=$((20000 + RANDOM % 40000 + try))
		ss -Hltn "sport = :$port" | grep -q . && continue
		bed_run prometheus --config.file="$BED_DIR/prometheus.yml" --storage.tsdb.path="$BED_DIR/tsdb" \
			--web.listen-address="127.0.0.1:$port" --log.level=warn 2>"$BED_DIR/prometheus.log" &
		BED_PIDS+=($!)
		for i in $(seq 100); do
			curl -sf -m 1 "http://127.0.0.1:$port/-/ready" >/dev/null && { P="http://127.0.0.1:$port"; break; }
			kill -0 $! 2>/dev/null || break
			sleep 0.2
		done
		[ -n "$P" ] && break
	done
	[ -n "$P" ] || fail "Prometheus did not start: $(tail -n 5 "$BED_DIR/prometheus.log")"
}

# bed_job RUN STEP_MS SECONDS: starts a job of BED_N ranks, rank K in node K,
# with a launcher's environment (torchrun's keys); its id is torchelastic:RUN.
bed_job() {
	local run=$1 k next
	BED_RANKS=()
	for k in $(seq 0 $((BED_N - 1))); do
		rm -f "$BED_DIR/n$k/slow" "$BED_DIR/n$k/loader" "$BED_DIR/n$k/procs"
		next=$(bed_addr $(( (k + 1) % BED_N ))):29600
		bed_run ip netns exec "$(bed_ns "$k")" env -i PATH=/usr/bin:/bin RANK="$k" WORLD_SIZE="$BED_N" LOCAL_RANK=0 \
			LOCAL_WORLD_SIZE=1 GROUP_RANK="$k" ROLE_RANK="$k" MASTER_ADDR="$(bed_addr 0)" MASTER_PORT=29500 \
			TORCHELASTIC_RUN_ID="$run" TORCHELASTIC_RESTART_COUNT=0 NCCL_SOCKET_IFNAME=eth0 GDBED_NCCL_TIMEOUT="$3" \
			"$BED_BUILD/multinode/rank" "$next" 29600 "$BED_DIR/n$k" "$2" "$3" 2>>"$BED_DIR/n$k/rank.log" &
		BED_RANKS[$k]=$!
		BED_PIDS+=($!)
	done
}

# bed_job_stop: ends the job's ranks (stopped ones too) and undoes the faults.
bed_job_stop() {
	local k p
	for p in "${BED_RANKS[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	for p in "${BED_RANKS[@]}"; do
		wait "$p" 2>/dev/null
	done
	BED_RANKS=()
	for k in $(seq 0 $((BED_N - 1))); do
		tc -n "$(bed_ns "$k")" qdisc del dev eth0 root 2>/dev/null
		rm -f "$BED_DIR/n$k/slow" "$BED_DIR/n$k/loader"
	done
	bed_cg_clear
}

# The bed's cgroup (cgroup v2 with the cpu controller, else v1's cpu
# hierarchy of a hybrid host): BED_CG/bed holds every process of the bed,
# BED_CG/fault the rank whose CPU quota is cut (cpu.max, or cfs_quota_us).
# BED_CG weighs as four sessions (cpu.weight 400 / cpu.shares 4096): on a
# host with autogroups, a bed of 8 ranks and 8 serves in one session would
# get one session's share of the CPUs.  Without a cpu controller: none
# (BED_CG empty) and no cpu_quota fault.
bed_cg_init() {
	BED_CG=""
	if grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control || echo +cpu >/sys/fs/cgroup/cgroup.subtree_control || return 0
		mkdir -p "/sys/fs/cgroup/gdbed$BED_ID" || return 0
		BED_CG=/sys/fs/cgroup/gdbed$BED_ID
		echo 400 >"$BED_CG/cpu.weight"
		echo +cpu >"$BED_CG/cgroup.subtree_control"
		BED_CGV=2
	elif [ -d /sys/fs/cgroup/cpu ] && mkdir -p "/sys/fs/cgroup/cpu/gdbed$BED_ID"; then
		BED_CG=/sys/fs/cgroup/cpu/gdbed$BED_ID
		echo 4096 >"$BED_CG/cpu.shares"
		BED_CGV=1
	else
		return 0
	fi
	mkdir -p "$BED_CG/bed" "$BED_CG/fault"
}

# bed_run CMD... &: CMD inside the bed's cgroup, always in the background
# (it execs: $! is CMD's pid).
bed_run() {
	if [ -n "$BED_CG" ]; then
		exec sh -c 'echo $$ >"$0" && exec "$@"' "$BED_CG/bed/cgroup.procs" "$@"
	else
		exec "$@"
	fi
}

# bed_cg_quota PID PERCENT: PID's CPU cut to PERCENT of one CPU.
bed_cg_quota() {
	[ -n "$BED_CG" ] || return 1
	if [ "$BED_CGV" = 2 ]; then
		echo "$(($2 * 1000)) 100000" >"$BED_CG/fault/cpu.max" || return 1
	else
		echo 100000 >"$BED_CG/fault/cpu.cfs_period_us" && echo "$(($2 * 1000))" >"$BED_CG/fault/cpu.cfs_quota_us" || return 1
	fi
	echo "$1" >"$BED_CG/fault/cgroup.procs"
}

# bed_cg_clear: the fault cgroup emptied (its processes killed).
bed_cg_clear() {
	local p
	[ -n "$BED_CG" ] || return 0
	for p in $(cat "$BED_CG/fault/cgroup.procs" 2>/dev/null); do
		kill -9 "$p" 2>/dev/null
	done
}

bed_cg_del() {
	local p d i
	[ -n "$BED_CG" ] && [ -d "$BED_CG" ] || return 0
	for d in fault bed; do
		for p in $(cat "$BED_CG/$d/cgroup.procs" 2>/dev/null); do
			kill -9 "$p" 2>/dev/null
		done
	done
	for i in $(seq 50); do
		rmdir "$BED_CG/fault" "$BED_CG/bed" 2>/dev/null
		rmdir "$BED_CG" 2>/dev/null && break
		sleep 0.1
	done
	BED_CG=""
}

# bed_fault KIND K: injects KIND on node K (its rank); none: nothing.
bed_fault() {
	local kind=$1 k=$2 pid=${BED_RANKS[$2]} d=$BED_DIR/n$2
	case $kind in
	none) ;;
	cpu_quota) bed_cg_quota "$pid" 2 || return 1 ;;
	loader) echo 25 >"$d/loader" ;;
	gpu_throttle)
		# the GPU hot and clocked down (its violation time growing 0.45 s per
		# call, as serve reads it once a second), the rank's work 3x slower
		local v="violation_thermal_ns = 0" i
		for i in $(seq 1 900); do
			[ $((i % 8)) = 0 ] && v+=$'\n '
			v+=",$((i * 450000000))"
		done
		bed_nvml_ini "$k" "$(printf 'temp_c = 86\nsm_clock_mhz = 1110\nclock_event_reasons = 0x20\n%s' "$v")"
		bed_serve "$k"
		echo 8 >"$d/slow" ;;
	tbf) tc -n "$(bed_ns "$k")" qdisc add dev eth0 root tbf rate 4mbit burst 32kbit latency 400ms || return 1 ;;
	stop) kill -STOP "$pid" ;;
	kill) kill -9 "$pid" ;;
	*) return 1 ;;
	esac
}

# bed_verdict RUN: fleet --job over the last minute, as JSON, on stdout.
bed_verdict() {
	"$GPUDOCTOR" fleet --prometheus "$P" --job "torchelastic:$1" --range "${BED_RANGE:-20s}" \
		${BED_STEP:+--step "$BED_STEP"} --json 2>"$BED_DIR/fleet.err"
}

bed_down() {
	local p k
	trap '' TERM INT   # a second signal must not cut the cleanup short
	for p in "${BED_PIDS[@]}"; do
		kill -CONT "$p" 2>/dev/null
		kill "$p" 2>/dev/null
	done
	for p in "${BED_PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	bed_cg_del
	for k in $(seq 0 $((BED_N - 1))); do
		ip netns pids "$(bed_ns "$k")" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$(bed_ns "$k")" 2>/dev/null
	done
	[ -n "${BED_ID:-}" ] && ip link del "gdbed${BED_ID}br" 2>/dev/null
	[ -n "${BED_DIR:-}" ] && [ -z "${KEEP:-}" ] && rm -rf "$BED_DIR"
	return 0
}
