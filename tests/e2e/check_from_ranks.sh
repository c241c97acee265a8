#!/bin/bash
# tests/e2e/check_from_ranks.sh - one --from takes the ranks' logs after it:
#
#  1. `check --from rank0.log rank1.log rank2.log rank3.log --json` (the
#     fixture tests/offline/0122-ranks-stuck-per-rank-files) names rank 2 in
#     job.rank_stuck, citing file:line of each of the four, and exits 2; the
#     same with options between the files, and mixed with a second --from;
#  2. a file without --from before it is still an error (exit 3), and more
#     than 64 files say so.
#
# Exit 0 pass, 77 skip (reason on the last line), anything else fails.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }

[ -n "${GPUDOCTOR:-}" ] && [ -x "$GPUDOCTOR" ] || fail "GPUDOCTOR (${GPUDOCTOR:-unset}) is not an executable"
command -v jq >/dev/null || skip "jq is not installed"
src=$(cd "$(dirname "$0")/../offline/0122-ranks-stuck-per-rank-files" && pwd) || fail "no fixture 0122"
tmp=$(mktemp -d /tmp/gd-e2e-ranks.XXXXXX) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
cp "$src"/rank*.log "$tmp"/
cd "$tmp" || fail "cd"
export GPUDOCTOR_NVML=/nonexistent

verdict() {
	local out rc
	out=$("$GPUDOCTOR" check "$@" 2>"$tmp/err")
	rc=$?
	[ "$rc" = 2 ] || fail "check $*: exit $rc, want 2 ($(cat "$tmp/err"))"
	jq -e '[.findings[] | select(.id == "job.rank_stuck")] | length == 1 and .[0].subject == "rank 2"
		and (.[0].summary | test("rank0.log:3") and test("rank1.log:3") and test("rank2.log:2") and test("rank3.log:3"))' \
		<<<"$out" >/dev/null || fail "check $*: no job.rank_stuck naming rank 2 with the four files' lines: $out"
}
verdict --json --from rank0.log rank1.log rank2.log rank3.log
verdict --from rank0.log rank1.log --json rank2.log rank3.log
verdict --from rank0.log rank1.log --from rank2.log rank3.log --json

"$GPUDOCTOR" check --json rank0.log >/dev/null 2>"$tmp/err"
[ $? = 3 ] || fail "a file without --from was accepted"
grep -q 'unexpected argument "rank0.log"' "$tmp/err" || fail "no message for a file without --from: $(cat "$tmp/err")"
files=()
for i in $(seq 0 64); do files+=(rank0.log); done
"$GPUDOCTOR" check --json --from "${files[@]}" >/dev/null 2>"$tmp/err"
[ $? = 3 ] || fail "65 files were accepted"
grep -q 'at most 64 files' "$tmp/err" || fail "no message for 65 files: $(cat "$tmp/err")"
echo "ok: one --from takes the ranks' logs after it; job.rank_stuck names rank 2 with each file's line"
