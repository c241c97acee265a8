#!/bin/bash
# scripts/ptxas-check.sh [PTX ...] - the probes' PTX modules through NVIDIA's
# own assembler, for every GPU architecture it accepts.
#
#   PTXAS=/usr/local/cuda/bin/ptxas scripts/ptxas-check.sh build/gen/base.ptx build/gen/tensor.ptx
#
# The architectures are asked of ptxas itself (the plain sm_NN names its
# --help lists: CUDA 13.0 gives sm_75 to sm_121; it refuses sm_70 and older,
# so Volta and Pascal are covered by the driver's JIT only).  A module is
# assembled for every one at or above its own .target (the tensor module's
# sm_80 is not assembled for sm_75: the probe never loads it there, see
# gd_ptx_loadable).  Prints one line per kernel and architecture:
#
#   kernel module arch registers stack_bytes spill_store_bytes spill_load_bytes
#
# after '#' lines naming the assembler and the modules' headers.  Exit 0
# when ptxas accepted every module for every architecture, 1 when it
# rejected one (its message on standard error), 2 when it cannot be run.
# ARCHS="sm_80 sm_90" limits the run to those (each must be one ptxas lists).
set -u
PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
[ -x "$PTXAS" ] || { echo "ptxas-check: no $PTXAS (the CUDA toolkit's assembler; set PTXAS)" >&2; exit 2; }
[ $# -ge 1 ] || { echo "usage: scripts/ptxas-check.sh PTX..." >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptxas-check.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

archs=$("$PTXAS" --help 2>/dev/null | grep -o "'sm_[0-9]*'" | tr -d "'" | sort -u -t_ -k2n)
[ -n "$archs" ] || { echo "ptxas-check: $PTXAS --help lists no sm_NN architecture" >&2; exit 2; }
if [ -n "${ARCHS:-}" ]; then   # a subset, each one ptxas must list
	for a in $ARCHS; do
		grep -qx "$a" <<<"$archs" || { echo "ptxas-check: $PTXAS does not accept $a (it lists: $(echo $archs))" >&2; exit 2; }
	done
	archs=$ARCHS
fi
echo "# $("$PTXAS" --version | grep -i release)"
echo "# architectures: $(echo $archs)"

jobs=()
for f in "$@"; do
	[ -r "$f" ] || { echo "ptxas-check: cannot read $f" >&2; exit 2; }
	mod=$(basename "$f" .ptx)
	tgt=$(sed -n 's/^[[:space:]]*\.target[[:space:]]*sm_\([0-9]*\).*/\1/p' "$f" | head -n 1)
	ver=$(sed -n 's/^[[:space:]]*\.version[[:space:]]*\([0-9.]*\).*/\1/p' "$f" | head -n 1)
	[ -n "$tgt" ] || { echo "ptxas-check: $f has no .target sm_NN" >&2; exit 1; }
	echo "# $mod: .version $ver .target sm_$tgt"
	for a in $archs; do
		[ "${a#sm_}" -ge "$tgt" ] && jobs+=("$a $mod $f")
	done
done

# one ptxas per (architecture, module), JOBS at a time; -v gives the figures
export PTXAS tmp
printf '%s\n' "${jobs[@]}" | xargs -P "$JOBS" -L 1 sh -c '"$PTXAS" -arch="$1" -v -o /dev/null "$3" >"$tmp/$2.$1.log" 2>&1 ||
	echo "$1" >"$tmp/$2.$1.rejected"' sh
rc=0
for j in "${jobs[@]}"; do
	set -- $j
	log="$tmp/$2.$1.log"
	if [ -e "$tmp/$2.$1.rejected" ] || [ ! -s "$log" ]; then
		echo "ptxas-check: ptxas rejects $3 for $1:" >&2
		sed 's/^/  /' "$log" >&2 2>/dev/null
		rc=1
		continue
	fi
	# ptxas info : Compiling entry function 'NAME' for 'sm_90'
	#     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
	# ptxas info : Used 18 registers, used 0 barriers
	awk -v mod="$2" -v arch="$1" '
		/Compiling entry function/ { split($0, q, "\047"); k = q[2] }
		/bytes stack frame/ { st = $1; ss = $5; sl = $9 }
		/Used [0-9]+ registers/ { for (i = 1; i <= NF; i++) if ($i == "Used") r = $(i + 1)
			printf "%-16s %-7s %-7s %3d %5d %5d %5d\n", k, mod, arch, r, st, ss, sl }' "$log" >>"$tmp/figures"
done
echo "# kernel         module  arch    regs stack spill_st spill_ld (bytes)"
[ -e "$tmp/figures" ] && sort -b -k1,1 -k2,2 -k3.4,3n "$tmp/figures"
exit $rc
