# tests/e2e/lib.bash - sourced by the end-to-end tests (not a test itself;
# tests/run.sh skips it).  Each user defines fail() and skip() first.

# netns_pair A B VA VB ADDR_A ADDR_B: two network namespaces joined by a
# veth pair (VA in A, VB in B, created directly in them) with ADDR_A/30 and
# ADDR_B/30, every link up.  Skips when this host cannot make them (errors
# go to the caller's $tmp/err).
netns_pair() {
	ip netns add "$1" || skip "cannot create a network namespace"
	ip netns add "$2" || fail "ip netns add $2"
	ip link add "$3" netns "$1" type veth peer name "$4" netns "$2" 2>"$tmp/err" ||
		{ cat "$tmp/err"; skip "cannot create a veth pair between namespaces (no veth support?)"; }
	ip -n "$1" link set lo up && ip -n "$2" link set lo up &&
	ip -n "$1" addr add "$5/30" dev "$3" && ip -n "$2" addr add "$6/30" dev "$4" &&
	ip -n "$1" link set "$3" up && ip -n "$2" link set "$4" up || fail "configuring the veth pair"
}

# netns_del A B: kills what runs in them and deletes them (the veth, the
# addresses, qdiscs and rules go with them).
netns_del() {
	local ns
	for ns in "$@"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
}

# fake_nvml_ini FILE PID UTIL [SAMPLES [GPM_SM]]: a fake-NVML scenario with one
# H100 (gpu0) at UTIL% whose compute process is PID, and optionally the
# driver's sub-second utilisation samples (age_ms:pct ...; "" for none) and
# GPM with SM activity GPM_SM% (4% occupancy, no tensor work).
fake_nvml_ini() {
	cat >"$1" <<INI
[nvml]
driver_version = 550.54.15
cuda_driver_version = 12040
[gpu0]
name = NVIDIA H100 80GB HBM3
uuid = GPU-3f2a9c1e-7b4d-4e8a-9c2f-1a6b5d8e0f01
pci_bus_id = 00000000:1B:00.0
util_gpu_pct = $3
util_mem_pct = 5
mem_total_bytes = 85520809984
mem_used_bytes = 2147483648
procs = $2:1073741824
${4:+util_samples = $4}
${5:+gpm = 1}
${5:+gpm_sm_pct = $5}
${5:+gpm_sm_occupancy_pct = 4}
${5:+gpm_tensor_pct = 0}
INI
}

# need_fake_nvml: GPUDOCTOR must be an executable and the fake NVML built
# beside it (make unit); sets FAKE_NVML (absolute); skips without jq.
need_fake_nvml() {
	[ -n "${GPUDOCTOR:-}" ] && [ -x "$GPUDOCTOR" ] || fail "GPUDOCTOR (${GPUDOCTOR:-unset}) is not an executable"
	case $GPUDOCTOR in /*) ;; *) GPUDOCTOR=$PWD/$GPUDOCTOR ;; esac
	FAKE_NVML=$(dirname "$GPUDOCTOR")/fake_nvml/libnvidia-ml.so.1
	[ -f "$FAKE_NVML" ] || fail "$FAKE_NVML is not built (make unit)"
	command -v jq >/dev/null || skip "jq is not installed"
}
