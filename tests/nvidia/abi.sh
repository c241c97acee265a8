#!/bin/bash
# tests/nvidia/abi.sh - our NVML and CUDA declarations against NVIDIA's
# headers (issue 28): src/nvml/nvml_abi.h against nvml.h (CUDA 11.8, from
# Debian's libnvidia-ml-dev) and src/probe/cuda_abi.h against the toolkit's
# cuda.h.  abi_gen.py derives the list from OUR header (every typedef's
# size, every struct and union member's offset and size, every enum value
# and macro), so a member cannot be left out of the comparison; abi_side.c
# evaluates it once with each header, in separate translation units, and
# abi_compare.c names every difference.  A deliberate mutation of our header
# (a member's type changed, a field id off by one) must fail it, so the
# comparison cannot pass vacuously.
set -u
. "$(dirname "$0")/lib.sh"
CUDA_H=${CUDA_HOME:-/usr/local/cuda}/include/cuda.h
for t in clang cc python3; do
	command -v $t >/dev/null 2>&1 || nv_need "$t is not installed"
done
[ -r "$CUDA_H" ] || nv_need "$CUDA_H (the CUDA toolkit's header) is not there"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gd-nvabi.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$repo" || exit 1
CFLAGS_ABI="-std=gnu11 -D_GNU_SOURCE -Wall -Werror"
fail=0

# The differences we mean, each with its reason (abi_compare.c fails when
# one of them is not there any more).
nvml_expected=(
	# ours is the 13.3 header's 36 (NVML_NVLINK_MAX_LINKS: 12 to 11.7, 18 in
	# 11.8-13.2): a loop bound, never passed to the library
	"NVML_NVLINK_MAX_LINKS value"
	# ours is the largest header's 333: the library reads numMetrics entries of
	# whatever array it is given (nvml_abi.h), so the struct only grows at its end
	"NVML_GPM_METRIC_MAX value" "nvmlGpmMetricsGet_t size" "nvmlGpmMetricsGet_t.metrics size"
)
# Members of ours that the 11.8 header does not have yet (added to the
# union by later headers; its size stays 8, compared above).
nvml_missing_expected="nvmlValue_t.siVal nvmlValue_t.usVal"

# index KIND HEADER: the names NVIDIA's header has, kept beside the
# unpacked packages (the header does not change; rebuilt when it does)
index() {
	local idx=$NV_DIR/abi-$1.json
	if [ ! -s "$idx" ] || [ "$2" -nt "$idx" ] || [ tests/nvidia/abi_gen.py -nt "$idx" ]; then
		clang -Xclang -ast-dump=json -fsyntax-only -x c -std=gnu11 "$2" >"$tmp/theirs.json" &&
			cc -dM -E -x c "$2" >"$tmp/theirs.macros" &&
			python3 tests/nvidia/abi_gen.py index "$tmp/theirs.json" "$tmp/theirs.macros" >"$idx.tmp" &&
			mv "$idx.tmp" "$idx" || { echo "FAIL: cannot index $2"; exit 1; }
		rm -f "$tmp/theirs.json"
	fi
	echo "$idx"
}

# compare KIND OUR_HEADER(include name) THEIR_HEADER INCDIR [expected...]
compare() {
	local kind=$1 ours=$2 theirs=$3 inc=$4 d=$tmp/$1
	shift 4
	mkdir -p "$d"
	clang -Xclang -ast-dump=json -fsyntax-only -x c -std=gnu11 -Isrc "src/$ours" >"$d/ours.json" || return 1
	python3 tests/nvidia/abi_gen.py gen "$kind" "$d/ours.json" "src/$ours" "$(index "$kind" "$theirs")" "$d" || return 1
	# shellcheck disable=SC2086
	cc $CFLAGS_ABI -I"$inc" -Isrc -I"$d" -DABI_OURS "-DABI_HEADER=\"$ours\"" -c tests/nvidia/abi_side.c -o "$d/ours.o" &&
		cc $CFLAGS_ABI -I"$d" "-DABI_HEADER=\"$theirs\"" -c tests/nvidia/abi_side.c -o "$d/theirs.o" &&
		cc $CFLAGS_ABI -I"$d" tests/nvidia/abi_compare.c "$d/ours.o" "$d/theirs.o" -o "$d/compare" || return 1
	"$d/compare" "$@"
}

echo "== nvml_abi.h against nvml.h of libnvidia-ml-dev ($(sed -n 's/^#define NVML_API_VERSION_STR *//p' "$NV_NVML_H"))"
compare nvml nvml/nvml_abi.h "$NV_NVML_H" src "${nvml_expected[@]}" || fail=1
sed 's/^/  in ours, not in this header (newer): /' "$tmp/nvml/absent.txt"
got=$(sed 's/:.*//' "$tmp/nvml/missing_members.txt" | tr '\n' ' ' | sed 's/ $//')
if [ "$got" != "$nvml_missing_expected" ]; then
	echo "FAIL members of ours that NVIDIA's structs lack: '$got' (expected '$nvml_missing_expected')"
	cat "$tmp/nvml/missing_members.txt"
	fail=1
fi

echo "== cuda_abi.h against $CUDA_H ($(sed -n 's/^#define CUDA_VERSION //p' "$CUDA_H"))"
compare cuda probe/cuda_abi.h "$CUDA_H" src || fail=1
sed 's/^/  in ours, not in this header: /' "$tmp/cuda/absent.txt"
if [ -s "$tmp/cuda/absent.txt" ] || [ -s "$tmp/cuda/missing_members.txt" ]; then
	echo "FAIL cuda_abi.h names what cuda.h does not have (every one of them should be there):"
	cat "$tmp/cuda/absent.txt" "$tmp/cuda/missing_members.txt"
	fail=1
fi

# The comparison must be able to fail: our header with a member's type
# changed and a field id off by one, compiled against the same list.
echo "== mutation check: a moved member and a wrong field id must be named"
mkdir -p "$tmp/mut/nvml"
sed -e 's/^\tunsigned int scopeId; /\tunsigned long long scopeId; /' \
	-e 's/^#define NVML_FI_DEV_REMAPPED_COR 142 /#define NVML_FI_DEV_REMAPPED_COR 141 /' \
	src/nvml/nvml_abi.h | sed '/_Static_assert/d' >"$tmp/mut/nvml/nvml_abi.h"
d=$tmp/nvml
# shellcheck disable=SC2086
cc $CFLAGS_ABI -I"$tmp/mut" -I"$d" -DABI_OURS '-DABI_HEADER="nvml/nvml_abi.h"' -c tests/nvidia/abi_side.c -o "$d/mut.o" &&
	cc $CFLAGS_ABI -I"$d" tests/nvidia/abi_compare.c "$d/mut.o" "$d/theirs.o" -o "$d/compare-mut" || fail=1
out=$("$d/compare-mut" "${nvml_expected[@]}")
rc=$?
for want in "FAIL nvmlFieldValue_t.scopeId offset" "FAIL NVML_FI_DEV_REMAPPED_COR value"; do
	if [ $rc -eq 0 ] || ! grep -qF "$want" <<<"$out"; then
		echo "FAIL the mutated header was not caught: no '$want' (exit $rc)"
		printf '%s\n' "$out" | head -n 20
		fail=1
	fi
done
[ $fail -eq 0 ] && echo "mutation caught: $(grep -c '^FAIL' <<<"$out") differences named"
[ $fail -eq 0 ] && echo "PASS"
exit $fail
