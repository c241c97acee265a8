#!/bin/bash
# tests/probe/ptxas.sh - the probes' PTX modules ($BUILD/gen/*.ptx, the very
# text built into the binary) through NVIDIA's own assembler, the CUDA
# toolkit's ptxas, for every architecture it accepts (scripts/ptxas-check.sh):
# a rejection fails.  The registers and spills per kernel are printed, and
# compared with bench/ptx/figures.txt (a difference is printed, not failed:
# a changed kernel changes them; bench/ptx/run.sh writes the file anew).
# Two deliberate mistakes must be rejected, or the check proves nothing:
# the tensor module with `.target sm_75` (its bf16 mma needs sm_80), and
# with `.version 6.4` (that mma is PTX ISA 7.0: an instruction of a newer
# ISA than the module declares).
# The same modules with the same ptxas give the same answer: a second build
# tree (the sanitizer pass) whose PTX is identical to one already assembled
# by this ptxas reuses that result ($BUILD/ptxas/, keyed by the checksums).
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
export PTXAS
check=$repo/scripts/ptxas-check.sh
mods=("$repo/$BUILD/gen/base.ptx" "$repo/$BUILD/gen/tensor.ptx")
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

if [ ! -x "$PTXAS" ]; then
	echo "SKIP: no $PTXAS: the CUDA toolkit's assembler (set PTXAS=path/to/ptxas)"
	exit 77
fi
for m in "${mods[@]}"; do
	[ -r "$m" ] || { echo "FAIL: $m is not built (make all)"; exit 1; }
done
T=$(mktemp -d /tmp/gd-ptxas.XXXXXX)
trap 'rm -rf "$T"' EXIT

key=$(cat "${mods[@]}" "$check" | sha256sum | cut -c1-16)-$("$PTXAS" --version | sha256sum | cut -c1-8)
cached=""
for d in "$repo/$BUILD/ptxas" "$repo/build/ptxas"; do
	[ -s "$d/$key" ] && { cached=$d/$key; break; }
done
if [ -n "$cached" ]; then
	echo "the same PTX was accepted by this ptxas for every architecture before ($cached):"
	cp "$cached" "$T/figures"
	ok "ptxas accepts every module for every architecture it lists (result of $cached)"
else
	rc=0
	"$check" "${mods[@]}" >"$T/figures" 2>"$T/err" || rc=$?
	if [ "$rc" = 0 ]; then
		ok "ptxas accepts every module for every architecture it lists"
		mkdir -p "$repo/$BUILD/ptxas" && cp "$T/figures" "$repo/$BUILD/ptxas/$key"
	else
		bad "scripts/ptxas-check.sh exit $rc"
		cat "$T/err"
	fi
	# the deliberate mistakes, on one architecture each
	sed 's/^\.target sm_80/.target sm_75/' "${mods[1]}" >"$T/tensor.ptx"
	if ARCHS=sm_75 "$check" "$T/tensor.ptx" >/dev/null 2>"$T/m1"; then
		bad "the bf16 mma under .target sm_75 was accepted"
	else
		ok "a wrong .target is rejected: $(grep -m1 -i 'error' "$T/m1" | sed 's/^ *//')"
	fi
	sed 's/^\.version 7\.0/.version 6.4/' "${mods[1]}" >"$T/tensor.ptx"
	if ARCHS=sm_80 "$check" "$T/tensor.ptx" >/dev/null 2>"$T/m2"; then
		bad "the bf16 mma (PTX ISA 7.0) under .version 6.4 was accepted"
	else
		ok "an instruction of a newer ISA is rejected: $(grep -m1 -i 'error' "$T/m2" | sed 's/^ *//')"
	fi
	grep -q '^\.target sm_80' "${mods[1]}" && grep -q '^\.version 7\.0' "${mods[1]}" ||
		bad "tensor.ptx no longer says .version 7.0 / .target sm_80: update the mistakes above"
fi
cat "$T/figures"
archs=$(sed -n 's/^# architectures: //p' "$T/figures")
case " $archs " in *" sm_75 "*" sm_90 "*) ok "Turing (sm_75) to Hopper (sm_90) and on: $archs" ;;
*) bad "the architectures ptxas lists lack sm_75 or sm_90: $archs" ;; esac
# every kernel of every module has a line per architecture at or above its target
for k in gd_burn_fp32 gd_copy gd_fill_addr gd_check_addr gd_check_const gd_burn_bf16; do
	grep -q "^$k " "$T/figures" || bad "no figures for kernel $k"
done
if ! diff <(grep -v '^#' "$repo/bench/ptx/figures.txt") <(grep -v '^#' "$T/figures") >"$T/diff"; then
	echo "note: registers or spills differ from bench/ptx/figures.txt (bench/ptx/run.sh rewrites it):"
	cat "$T/diff"
fi
[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all checks passed"
