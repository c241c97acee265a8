#!/bin/bash
# tests/e2e/cpu_hog.sh - a real CPU hog: one busy shell loop per CPU, then
# `check --window 2s --json` must report cpu.saturated or
# cpu.background_hogs; when it reports background hogs, one of them must be
# one of our loops (its pid in the subject).  The loops die in the trap.
#
# Exit 0 pass, 77 skip (reason on the last line), anything else fails.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }

[ -n "${GPUDOCTOR:-}" ] && [ -x "$GPUDOCTOR" ] || fail "GPUDOCTOR (${GPUDOCTOR:-unset}) is not an executable"
command -v jq >/dev/null || skip "jq is not installed"
tmp=$(mktemp -d /tmp/gd-e2e-hog.XXXXXX) || fail "mktemp"
hogs=()
cleanup() {
	[ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2>/dev/null
	[ ${#hogs[@]} -gt 0 ] && wait "${hogs[@]}" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' TERM INT

n=$(nproc)
for _ in $(seq "$n"); do
	# A busy loop that forks nothing and ends by itself after 50 s, even if
	# the trap never runs.
	bash -c 'while [ $SECONDS -lt 50 ]; do :; done' &
	hogs+=($!)
done
pids=("${hogs[@]}")
sleep 0.5
echo "hogs: ${pids[*]} on $n CPUs"

"$GPUDOCTOR" check --window 2s --json >"$tmp/out.json" 2>"$tmp/err"
rc=$?
[ $rc -le 2 ] || { cat "$tmp/err"; fail "check exited $rc"; }
jq -e . "$tmp/out.json" >/dev/null 2>&1 || fail "check output is not JSON"
jq -c '.findings[] | {id, subject}' "$tmp/out.json"
jq -e '[.findings[].id] | index("cpu.saturated") or index("cpu.background_hogs")' "$tmp/out.json" >/dev/null ||
	fail "neither cpu.saturated nor cpu.background_hogs with $n busy loops on $n CPUs"
if jq -e '[.findings[].id] | index("cpu.background_hogs")' "$tmp/out.json" >/dev/null; then
	re="\\b($(IFS='|'; echo "${pids[*]}"))\\b"
	jq -r '.findings[] | select(.id == "cpu.background_hogs") | .subject' "$tmp/out.json" | grep -qE "$re" ||
		fail "cpu.background_hogs names none of the hog pids (${pids[*]})"
fi
exit 0
