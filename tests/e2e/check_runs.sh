#!/bin/bash
# tests/e2e/check_runs.sh - gpudoctor on this very machine, no fault injected:
#
#  1. `check --json` exits 0..2, prints JSON with .findings (array),
#     .unavailable (array of {evidence, source, reason}) and .exit equal to
#     the exit status, which matches the worst severity found;
#  2. `snapshot` prints exactly one JSON line with a numeric .host.uptime_s;
#  3. two snapshots a second apart, as a JSONL file, go through
#     `check --from FILE --json` the same way;
#  4. a malformed file names FILE:LINE:COLUMN on stderr: with nothing
#     readable (a truncated object) `check --from` exits 3; with a line of
#     garbage after a good one, the good snapshot is still diagnosed and the
#     report lists the file as partial in unavailable[];
#  5. --window 0, a --root without proc/ and --from a directory exit 3
#     with a message naming the problem; a root without /dev/kmsg does not
#     claim a kernel log was checked.
#
# Exit 0 pass, 77 skip (reason on the last line), anything else fails.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }

[ -n "${GPUDOCTOR:-}" ] && [ -x "$GPUDOCTOR" ] || fail "GPUDOCTOR (${GPUDOCTOR:-unset}) is not an executable"
command -v jq >/dev/null || skip "jq is not installed"
tmp=$(mktemp -d /tmp/gd-e2e-check.XXXXXX) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT

# check_report FILE RC WHAT: the shape of a `check --json` report.
check_report() {
	local f=$1 rc=$2 what=$3
	jq -e . "$f" >/dev/null 2>&1 || { head -c 2000 "$f"; fail "$what: output is not JSON"; }
	[ "$(jq -s length "$f")" = 1 ] || fail "$what: expected one JSON document"
	jq -e '.findings | type == "array"' "$f" >/dev/null || fail "$what: .findings is not an array"
	jq -e '.unavailable | type == "array"' "$f" >/dev/null || fail "$what: .unavailable is not an array"
	jq -e '.unavailable | all(.[]; (.evidence | type == "string") and (.source | type == "string")
	       and (.reason | type == "string" and length > 0))' "$f" >/dev/null ||
		{ jq -c '.unavailable' "$f"; fail "$what: an .unavailable entry lacks evidence, source or reason"; }
	jq -e --argjson rc "$rc" '.exit == $rc' "$f" >/dev/null ||
		fail "$what: .exit is $(jq -c .exit "$f"), the exit status was $rc"
	jq -e '.findings | all(.[]; (.id | type == "string") and (.subject | type == "string")
	       and (.severity == "info" or .severity == "warning" or .severity == "critical")
	       and (.evidence | type == "array"))' "$f" >/dev/null ||
		{ jq -c '.findings' "$f"; fail "$what: a finding lacks id, subject, a known severity or evidence"; }
	# 0 healthy (info at most), 1 warnings, 2 critical.
	local want
	want=$(jq '[.findings[].severity] | if index("critical") then 2 elif index("warning") then 1 else 0 end' "$f")
	[ "$want" = "$rc" ] || { jq -c '[.findings[] | {id, severity}]' "$f"; fail "$what: exit $rc but findings say $want"; }
}

# 1. check on the machine itself.
"$GPUDOCTOR" check --json >"$tmp/check.json" 2>"$tmp/check.err"
rc=$?
[ $rc -le 2 ] || { cat "$tmp/check.err"; fail "check --json exited $rc"; }
check_report "$tmp/check.json" $rc "check --json"
echo "check --json: exit $rc, $(jq '.findings | length' "$tmp/check.json") findings," \
     "$(jq '.unavailable | length' "$tmp/check.json") unavailable"

# 2. one snapshot, one line.
"$GPUDOCTOR" snapshot >"$tmp/one.jsonl" 2>"$tmp/snap.err" || { cat "$tmp/snap.err"; fail "snapshot exited $?"; }
[ "$(wc -l <"$tmp/one.jsonl")" = 1 ] || fail "snapshot printed $(wc -l <"$tmp/one.jsonl") lines, expected 1"
[ "$(jq -s length "$tmp/one.jsonl" 2>/dev/null)" = 1 ] || fail "snapshot output is not one JSON value"
jq -e '.host.uptime_s | type == "number"' "$tmp/one.jsonl" >/dev/null ||
	fail "snapshot .host.uptime_s is $(jq -c .host.uptime_s "$tmp/one.jsonl"), not a number"

# 3. a recorded pair, diagnosed offline.
{ "$GPUDOCTOR" snapshot && sleep 1 && "$GPUDOCTOR" snapshot; } >"$tmp/s.jsonl" 2>"$tmp/snap.err" ||
	{ cat "$tmp/snap.err"; fail "snapshot pair failed"; }
[ "$(wc -l <"$tmp/s.jsonl")" = 2 ] || fail "two snapshots gave $(wc -l <"$tmp/s.jsonl") lines"
"$GPUDOCTOR" check --from "$tmp/s.jsonl" --json >"$tmp/from.json" 2>"$tmp/from.err"
rc=$?
[ $rc -le 2 ] || { cat "$tmp/from.err"; fail "check --from exited $rc"; }
check_report "$tmp/from.json" $rc "check --from"
jq -e '.window_s | type == "number" and . > 0.5 and . < 10' "$tmp/from.json" >/dev/null ||
	fail "check --from: .window_s is $(jq -c .window_s "$tmp/from.json"), expected about 1 s"

# 4. malformed input: exit 3, FILE:LINE:COLUMN on stderr.
# expect_bad FILE LINE WHAT
expect_bad() {
	local f=$1 line=$2 what=$3 want=$4 rc
	"$GPUDOCTOR" check --from "$f" --json >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	if [ "$want" = 3 ]; then
		[ $rc -eq 3 ] || { cat "$tmp/bad.err"; fail "$what: check --from exited $rc, expected 3"; }
	else
		[ $rc -le 2 ] || { cat "$tmp/bad.err"; fail "$what: check --from exited $rc; the good line should be diagnosed"; }
		jq -e --arg f "$f" '.snapshots == 1 and any(.unavailable[]; .evidence == "input" and .source == $f and .status == "partial")' \
			"$tmp/bad.out" >/dev/null || fail "$what: the report does not list $f as partial: $(head -c 400 "$tmp/bad.out")"
	fi
	grep -qE "$(printf '%s' "$f" | sed 's/[.[\*^$]/\\&/g'):$line:[1-9][0-9]*" "$tmp/bad.err" ||
		{ cat "$tmp/bad.err"; fail "$what: stderr does not name $f:$line:COLUMN"; }
	echo "$what: $(head -n 1 "$tmp/bad.err")"
}
printf '{"version":1,"host":{}' >"$tmp/truncated.jsonl"
expect_bad "$tmp/truncated.jsonl" 1 "truncated object" 3
{ head -n 1 "$tmp/s.jsonl"; printf 'this is not JSON \001\002 at all\n'; } >"$tmp/garbage.jsonl"
expect_bad "$tmp/garbage.jsonl" 2 "garbage line" partial

# 5. odd invocations: exit 3 with a message that names the problem, or a
#    report that claims only what was read.
# expect_fail WHAT PATTERN ARGS...: exit 3 and PATTERN on stderr.
expect_fail() {
	local what=$1 pat=$2 rc
	shift 2
	"$GPUDOCTOR" "$@" >"$tmp/odd.out" 2>"$tmp/odd.err"
	rc=$?
	[ $rc -eq 3 ] || { cat "$tmp/odd.err"; fail "$what: exited $rc, expected 3"; }
	grep -q -- "$pat" "$tmp/odd.err" || { cat "$tmp/odd.err"; fail "$what: stderr lacks \"$pat\""; }
	echo "$what: $(head -n 1 "$tmp/odd.err")"
}
mkdir -p "$tmp/emptyroot" "$tmp/uproot/proc" "$tmp/adir"
expect_fail "check --window 0" "at least 100ms" check --window 0
expect_fail "check --root (empty dir)" "no proc/" check --root "$tmp/emptyroot" --window 100ms
expect_fail "check --from (a directory)" "is a directory" check --from "$tmp/adir"
# a root with only proc/uptime: no kernel log was read, so none is claimed
echo "12345.67 23456.78" >"$tmp/uproot/proc/uptime"
"$GPUDOCTOR" check --no-color --root "$tmp/uproot" --window 100ms >"$tmp/odd.out" 2>"$tmp/odd.err"
rc=$?
[ $rc -le 2 ] || { cat "$tmp/odd.err"; fail "check --root (proc/uptime only) exited $rc"; }
grep '^checked:' "$tmp/odd.out" | grep -q 'kernel log' &&
	{ cat "$tmp/odd.out"; fail "check --root (proc/uptime only): claims a kernel log it could not read"; }
# the unavailable account: one line, or a header and one indented line per source
sed -n '/^unavailable/,/^[^ ]/p' "$tmp/odd.out" | grep -Eq '^(unavailable .*: |  )klog \(absent' ||
	{ cat "$tmp/odd.out"; fail "check --root (proc/uptime only): klog not listed as unavailable"; }
echo "check --root (proc/uptime only): exit $rc, no kernel log claimed"
exit 0
