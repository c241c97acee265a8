#!/bin/bash
# tests/nvidia/smi.sh - nvidia-smi as NVIDIA ships it (535.261.03, Debian's
# nvidia-smi package) against gpudoctor's readers of its output:
#  - every --query-gpu name the CSV reader knows (src/offline/smi_csv.c) is
#    in the binary's string table, spelled the same, but for the names of
#    newer branches listed below;
#  - every field name of the binary (its --help-query-gpu needs a driver,
#    the names are in its strings) makes a CSV header the reader reads or
#    ignores, never refuses: each alone, and all of them in one header
#    through check --from;
#  - the binary's own failure without the kernel module, captured here
#    (exit 9), is tests/offline/0295-real-smi-535-no-driver/nvidia-smi.txt
#    byte for byte, and check --from reads it as driver.not_loaded.
set -u
. "$(dirname "$0")/lib.sh"
drv=$BUILD/tests/nvidia_real
G=${GPUDOCTOR:-$BUILD/gpudoctor}
for f in "$drv" "$G"; do [ -x "$f" ] || { echo "FAIL: $f is not built (make all unit)"; exit 1; }; done
command -v strings >/dev/null 2>&1 || nv_need "strings (binutils) is not installed"
command -v jq >/dev/null 2>&1 || nv_need "jq is not installed"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gd-nvsmi.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# 1. our names in the binary.  Absent from 535, and why:
#   clocks.max.video     a newer branch's alias (of clocks.max.media)
#   gpu_recovery_action  R570 and later (NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, 12.8 header)
want="absent clocks.max.video
absent gpu_recovery_action"
got=$("$drv" smi-names "$NV_SMI" | LC_ALL=C sort)
[ "$got" = "$want" ] || bad "CSV reader names not in nvidia-smi 535.261.03's strings:
$got
(want:
$want)"

# 2. the binary's field names: the block of its string table from gpu_name
# to protected_memory (535.261.03's layout), names only
strings -n 3 "$NV_SMI" | sed -n '/^gpu_name$/,/^protected_memory$/p' | grep -E '^[a-z][A-Za-z0-9_.]*$' >"$tmp/names"
n=$(wc -l <"$tmp/names")
[ "$n" -ge 150 ] || bad "only $n field names found in $NV_SMI (its string table changed?)"
grep -qx 'ecc.errors.uncorrected.volatile.total' "$tmp/names" && grep -qx 'clocks_event_reasons.hw_slowdown' "$tmp/names" ||
	bad "the field-name block of $NV_SMI lacks names it must have"
out=$("$drv" smi-csv "$tmp/names") || bad "a real field name refused as a CSV header:
$(grep '^refused' <<<"$out")"
# all of them in one header, one row of [N/A], through check --from
{ paste -sd, "$tmp/names" | sed 's/,/, /g'; sed 's/.*/[N\/A]/' "$tmp/names" | paste -sd, | sed 's/,/, /g'; } >"$tmp/all.csv"
GPUDOCTOR_NVML=/nonexistent "$G" check --json --from "$tmp/all.csv" >"$tmp/all.json" 2>"$tmp/all.err"
rc=$?
{ [ $rc -le 2 ] && jq -e '.findings' "$tmp/all.json" >/dev/null; } || bad "a CSV of all $n names: exit $rc: $(head -c 300 "$tmp/all.err")"
# every one of them is a name the reader knows: none ignored with the note
# that a column of an unknown name gets
! grep -q 'does not know' "$tmp/all.err" || bad "a real field name is unknown to the CSV reader: $(grep -m1 'does not know' "$tmp/all.err")"
echo "$n field names of nvidia-smi 535.261.03 read or ignored, none refused"

# 3. the failure without a driver, as the binary prints it
LD_LIBRARY_PATH=$(dirname "$NV_NVML") nv_run "$NV_SMI" >"$tmp/nodriver.txt" 2>&1
rc=$?
[ $rc -eq 9 ] || bad "nvidia-smi without the kernel module exited $rc, not 9"
fx=$repo/tests/offline/0295-real-smi-535-no-driver/nvidia-smi.txt
cmp -s "$tmp/nodriver.txt" "$fx" || bad "nvidia-smi's message differs from $fx:
$(diff "$fx" "$tmp/nodriver.txt" | head -n 6)"
GPUDOCTOR_NVML=/nonexistent "$G" check --json --from "$tmp/nodriver.txt" >"$tmp/nd.json" 2>/dev/null
rc=$?
[ $rc -eq 2 ] && jq -e '.exit == 2 and ([.findings[] | select(.id == "driver.not_loaded" and .severity == "critical")] | length == 1)' \
	"$tmp/nd.json" >/dev/null || bad "check --from the captured message: exit $rc, findings $(jq -c '[.findings[].id]' "$tmp/nd.json" 2>&1)"
echo "nvidia-smi without a driver (exit 9): $(head -c 60 "$tmp/nodriver.txt")... read by check --from as driver.not_loaded (exit $rc)"
[ $fail -eq 0 ] && echo PASS
exit $fail
