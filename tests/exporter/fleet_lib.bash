# tests/exporter/fleet_lib.bash - fake-NVML scenarios for the fleet tests
# (sourced after lib.bash).  fleet_gpu IDX UUID BUS [KEY=VALUE...] prints one
# healthy busy H100 section of a fake-NVML scenario (tests/fake_nvml/
# fake_nvml.c: a comma list gives one value per call, i.e. per serve cycle,
# the last one then stays); KEY=VALUE pairs replace or add keys.  The job is
# pid 4242 of the healthy fixture tree.
fleet_gpu() {
	local idx=$1 uuid=$2 bus=$3 kv k
	shift 3
	declare -A v=(
		[name]="NVIDIA H100 80GB HBM3" [uuid]=$uuid [pci_bus_id]=$bus [minor_number]=$idx
		[persistence_mode]=1 [compute_mode]=0 [mig_mode]=0 [temp_c]=61 [temp_slowdown_c]=87
		[temp_shutdown_c]=92 [util_gpu_pct]=96 [util_mem_pct]=58 [mem_total_bytes]=85520809984
		[mem_used_bytes]=53551314944 [power_w]=552.3 [power_limit_w]=700 [power_default_limit_w]=700
		[sm_clock_mhz]=1980 [sm_clock_max_mhz]=1980 [mem_clock_mhz]=2619 [mem_clock_max_mhz]=2619
		[app_sm_clock_mhz]=1980 [pstate]=0 [clock_event_reasons]=0x0 [pcie_gen]=5 [pcie_gen_max]=5
		[pcie_width]=16 [pcie_width_max]=16 [pcie_replays]=0 [ecc_mode]=1 [ecc_corrected_volatile]=0
		[ecc_uncorrected_volatile]=0 [retired_pages_pending]=0 [remap_pending]=0 [remap_failure]=0
		[recovery_action]=0 [procs]=4242:53014444032 [proc_util]=4242:96:58
	)
	for kv in "$@"; do
		v[${kv%%=*}]=${kv#*=}
	done
	echo "[gpu$idx]"
	for k in "${!v[@]}"; do
		echo "$k = ${v[$k]}"
	done | sort
}

fleet_head() {
	printf '[nvml]\ndriver_version = 550.54.15\nnvml_version = 12.550.54.15\ncuda_driver_version = 12040\n'
}

# rep N VALUE: VALUE N times, comma-separated (a run of a fake-NVML list)
rep() {
	local i out=""
	for ((i = 0; i < $1; i++)); do
		out+="${out:+,}$2"
	done
	printf %s "$out"
}

# fleet_pair UUID-PREFIX [gpu0 KEY=VALUE...] -- [gpu1 KEY=VALUE...]: a
# scenario of two GPUs, UUIDs UUID-PREFIX0 and UUID-PREFIX1
fleet_pair() {
	local p=$1 a=() b=() side=0 x
	shift
	for x in "$@"; do
		[ "$x" = -- ] && { side=1; continue; }
		if [ $side = 0 ]; then a+=("$x"); else b+=("$x"); fi
	done
	fleet_head
	fleet_gpu 0 "${p}0" 00000000:1B:00.0 "${a[@]}"
	fleet_gpu 1 "${p}1" 00000000:43:00.0 "${b[@]}"
}
