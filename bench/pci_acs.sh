#!/bin/bash
# bench/pci_acs.sh - what reading the ACS registers of the bridges above the
# GPUs costs, on this machine's own config space.  A sysfs config file is
# not a file in memory: every dword read from it is a config-space access
# (MMIO on bare metal, a trap to the hypervisor in a VM), and the kernel
# serves only the first 64 bytes to a reader without CAP_SYS_ADMIN, so this
# needs root and a PCI function whose config file is 4,096 bytes.
#
# It builds a root shaped like an 8-GPU node (two root ports, a PCIe switch
# under each with four downstream ports, a GPU under each: 12 bridges)
# whose bridges' config files are links to that function's real config
# file, and times, side by side in one run:
#   - gpudoctor's whole collection cycle on that root (bench_collect collect;
#     pci_acs is nearly all of it there), with pci_acs's own share;
#   - cat of the 12 config files, the floor of reading them whole (what
#     `lspci -vvv`, the tool users reach for, does for each function).
#
#   BUILD=build bench/pci_acs.sh [CYCLES]
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=bench/lib.sh
. bench/lib.sh
BUILD=${BUILD:-build}
CYCLES=${1:-20}
bin=$BUILD/bench/bench_collect
[ -x "$bin" ] || { echo "bench/pci_acs.sh: $bin not built (make unit)" >&2; exit 1; }
if [ "$(id -u)" != 0 ]; then
	echo "bench/pci_acs.sh: not root: the kernel serves 64 bytes of config space, nothing to measure"
	exit 0
fi
src=""
for d in /sys/bus/pci/devices/*; do
	[ "$(stat -c %s "$d/config" 2>/dev/null)" = 4096 ] && { src=$d/config; break; }
done
if [ -z "$src" ]; then
	echo "bench/pci_acs.sh: no PCI function here has 4,096 bytes of config space; nothing to measure"
	exit 0
fi
bench_load_start
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
r=$tmp/root
bridges=()
mkdir -p "$r/sys/bus/pci/devices"
for rp in 1 2; do
	rpath=pci0000:00/0000:00:0$rp.0
	up=0000:${rp}0:00.0
	bridges+=("$rpath" "$rpath/$up")
	for dn in 0 1 2 3; do
		down=0000:${rp}1:0$dn.0 gpu=0000:${rp}$((dn + 2)):00.0
		dir=$rpath/$up/$down/$gpu
		bridges+=("$rpath/$up/$down")
		mkdir -p "$r/sys/devices/$dir"
		echo 0x10de >"$r/sys/devices/$dir/vendor"
		echo 0x030200 >"$r/sys/devices/$dir/class"
		ln -s "../../../devices/$dir" "$r/sys/bus/pci/devices/$gpu"
	done
done
for b in "${bridges[@]}"; do
	ln -s "$src" "$r/sys/devices/$b/config"
	ln -sfn "../../../devices/$b" "$r/sys/bus/pci/devices/${b##*/}"
done
echo "config space of $src (od at 0x100: $(od -A n -t x4 -j 256 -N 4 "$src" | tr -d ' ')), linked as ${#bridges[@]} bridges' config"

out=$("$bin" collect "$CYCLES" "$r")
cyc_cpu=$(sed -n 's/.*cpu_ms_per_cycle=\([0-9.]*\).*/\1/p' <<<"$out" | head -n 1)
cyc_wall=$(sed -n 's/.*wall_ms_per_cycle=\([0-9.]*\).*/\1/p' <<<"$out" | head -n 1)
acs=$(awk '$2 == "name=pci_acs" { sub("wall_ms_per_cycle=", "", $3); print $3 }' <<<"$out")
files=()
for b in "${bridges[@]}"; do files+=("$r/sys/devices/$b/config"); done
read -r cat_wall cat_cpu < <(python3 - "$CYCLES" "${files[@]}" <<'EOF'
import os, resource, sys, time
n = int(sys.argv[1]); files = sys.argv[2:]
def cpu():
    a = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime
t0, c0 = time.perf_counter(), cpu()
for _ in range(n):
    pid = os.fork()
    if pid == 0:
        os.dup2(os.open("/dev/null", os.O_WRONLY), 1)
        os.execvp("cat", ["cat"] + files)
    os.waitpid(pid, 0)
print("%.3f %.3f" % ((time.perf_counter() - t0) * 1000 / n, (cpu() - c0) * 1000 / n))
EOF
)
printf '%-44s %12s %12s\n' what "ms CPU/cycle" "ms wall"
printf '%-44s %12s %12s\n' "gpudoctor cycle (bench_collect collect)" "$cyc_cpu" "$cyc_wall"
printf '%-44s %12s %12s\n' "  of which pci_acs (wall)" "" "$acs"
printf '%-44s %12s %12s\n' "cat of the ${#bridges[@]} config files" "$cat_cpu" "$cat_wall"
printf '  '
bench_ratio "gpudoctor cycle / cat of the config files" "$cyc_wall" "$cyc_cpu" "$cat_wall" "$cat_cpu"
