#!/bin/bash
# tests/e2e/json_always.sh - every command that takes --json prints exactly
# one JSON document on stdout, also when it cannot run (exit 3), with the
# exit status in it (src/cli/json_guard.c).  The commands are taken from the
# binary: each whose `gpudoctor help CMD` lists a --json option (check,
# report, xid, fleet, probe today), and the default command; each is run
# with --json and, in turn, an unknown option, a missing input file, a root
# that does not exist, and (fleet) a Prometheus that does not answer.  A
# healthy baseline: check --json on a fixture root, exit 0..2, its own
# report (findings[]), not the error document.
#
# Exit 0 pass, 77 skip (reason on the last line), anything else fails.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
G=${GPUDOCTOR:-$repo/${BUILD:-build}/gpudoctor}
[ -x "$G" ] || fail "$G is not an executable"
command -v jq >/dev/null || skip "jq is not installed"
tmp=$(mktemp -d /tmp/gd-e2e-json.XXXXXX) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
fails=0

cmds=$("$G" help 2>/dev/null | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
json_cmds=""
for c in $cmds; do
	"$G" help "$c" 2>/dev/null | grep -qE -- '^ +(-j, )?--json ' && json_cmds="$json_cmds $c"
done
[[ " $json_cmds " == *" check "* && " $json_cmds " == *" report "* ]] || fail "commands with --json found: '$json_cmds'"
echo "commands with --json:$json_cmds"

# one_doc NAME ARGS...: exit 3 and one document with exit 3 and an error
one_doc() {
	local name=$1 rc
	shift
	NO_COLOR=1 timeout 60 "$G" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != 3 ]; then
		echo "FAIL: $name ($*): exit $rc, want 3"; fails=$((fails + 1)); return
	fi
	if jq -e -s 'length == 1 and .[0].exit == 3 and (.[0].error // (.[0].unavailable | length > 0) | tostring | length > 0)' \
		"$tmp/out" >/dev/null 2>&1; then
		echo "ok: $name: one document, exit 3: $(jq -r '.error // .unavailable[0].reason' "$tmp/out")"
	else
		echo "FAIL: $name ($*): stdout is not one JSON document with exit 3:"; head -c 400 "$tmp/out"; echo
		fails=$((fails + 1))
	fi
}

for c in $json_cmds; do
	one_doc "$c unknown option" "$c" --json --no-such-option
	case $c in
	check) one_doc "check --from missing" check --json --from "$tmp/missing.jsonl"
	       one_doc "check --root missing" check --json --root "$tmp/missing" ;;
	report) one_doc "report missing" report --json "$tmp/missing.jsonl" ;;
	xid) one_doc "xid missing" xid --json "$tmp/missing.log" ;;
	fleet) one_doc "fleet missing" fleet --json "$tmp/missing.jsonl"
	       one_doc "fleet no Prometheus" fleet --json --prometheus http://127.0.0.1:9/ ;;
	probe) one_doc "probe --root missing" probe --json --root "$tmp/missing" ;;
	*) one_doc "$c --root missing" "$c" --json --root "$tmp/missing" ;;
	esac
done
one_doc "default command" --json --no-such-option

# the healthy baseline: a report of its own, not the error document
NO_COLOR=1 "$G" check --json --root "$repo/tests/exporter/fixtures/healthy" --nvml "$tmp/none.so" --window 100ms \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -le 3 ] && jq -e -s --argjson rc "$rc" 'length == 1 and .[0].exit == $rc and (.[0].findings | type == "array") and (.[0] | has("error") | not)' \
	"$tmp/out" >/dev/null; then
	echo "ok: check on a fixture: its own report (exit $rc)"
else
	echo "FAIL: check on a fixture (exit $rc)"; head -c 400 "$tmp/out"; fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] || fail "$fails case(s)"
echo "all checks passed"
