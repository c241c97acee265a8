#!/bin/bash
# tests/e2e/shm_small.sh - a real small /dev/shm: in a private mount
# namespace (unshare -m), a 64 MiB tmpfs on /dev/shm, then
# `check --window 1s --json` there must report mem.shm_small with /dev/shm
# in the subject and size_bytes = 67108864 in the evidence.  The same with a
# 2 GiB tmpfs must not report it.  The mount lives and dies with the
# namespace: nothing outside it changes, so there is nothing to clean up but
# the temporary directory.
#
# Exit 0 pass, 77 skip (reason on the last line), anything else fails.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }

[ -n "${GPUDOCTOR:-}" ] && [ -x "$GPUDOCTOR" ] || fail "GPUDOCTOR (${GPUDOCTOR:-unset}) is not an executable"
command -v jq >/dev/null || skip "jq is not installed"
[ "$(id -u)" = 0 ] || skip "needs root (mount in a new mount namespace)"
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
unshare -m --propagation private true 2>/dev/null || skip "unshare -m is not permitted here"
tmp=$(mktemp -d /tmp/gd-e2e-shm.XXXXXX) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT

# run_with SIZE OUT: check inside a namespace whose /dev/shm is a SIZE tmpfs.
run_with() {
	local size=$1 out=$2 rc
	SIZE=$size unshare -m --propagation private sh -c \
		'mount -t tmpfs -o size="$SIZE" tmpfs /dev/shm && exec "$GPUDOCTOR" check --window 1s --json' \
		>"$out" 2>"$tmp/err"
	rc=$?
	[ $rc -le 2 ] || { cat "$tmp/err"; fail "size=$size: check exited $rc"; }
	jq -e '.findings | type == "array"' "$out" >/dev/null 2>&1 || fail "size=$size: output is not a report"
	jq -c '.findings[] | select(.id == "mem.shm_small")' "$out"
}

run_with 64m "$tmp/small.json"
jq -e '[.findings[] | select(.id == "mem.shm_small" and (.subject | contains("/dev/shm")))] | length > 0' \
	"$tmp/small.json" >/dev/null || fail "64 MiB /dev/shm: no mem.shm_small finding naming /dev/shm"
jq -e '[.findings[] | select(.id == "mem.shm_small" and (.subject | contains("/dev/shm")))
	| .evidence[] | select(.name == "size_bytes") | .value] | any(. == 67108864)' \
	"$tmp/small.json" >/dev/null || fail "64 MiB /dev/shm: the finding has no evidence size_bytes = 67108864"

run_with 2g "$tmp/big.json"
jq -e '[.findings[] | select(.id == "mem.shm_small")] | length == 0' "$tmp/big.json" >/dev/null ||
	fail "2 GiB /dev/shm: mem.shm_small fired anyway"
exit 0
