#!/bin/bash
# tests/coverage.sh - every rule the binary has is fired by a test of the
# real binary: a scenario tests/scenarios/1NNN-<id>/ (the scenario runner
# checks that <id> fires there), or an offline fixture whose expected.txt
# names it.  The healthy baselines (tests/scenarios/000N-healthy*) are checked
# to stay silent by the scenario runner itself; here: that they exist.
# Prints the rules without a firing test and fails when there is one.
set -u
cd "$(dirname "$0")/.."
G=${GPUDOCTOR:-${BUILD:-build}/gpudoctor}
[ -x "$G" ] || { echo "FAIL: no binary at $G"; exit 1; }
ids=$("$G" rules | awk '/^[a-z]+\.[a-z0-9_]+ +(info|warning|critical|by)/{print $1}')
n=$(wc -w <<<"$ids")
[ "$n" -ge 50 ] || { echo "FAIL: only $n rule ids parsed from gpudoctor rules"; exit 1; }
missing=()
for id in $ids; do
	compgen -G "tests/scenarios/1[0-9][0-9][0-9]-$id" >/dev/null && continue
	cat tests/offline/[0-9][0-9][0-9][0-9]-*/expected.txt 2>/dev/null |
		awk -v id="$id" '$2 == id { f = 1 } END { exit !f }' && continue
	missing+=("$id")
done
compgen -G "tests/scenarios/000[0-9]-healthy*" >/dev/null || { echo "FAIL: no healthy baseline scenario"; exit 1; }
if [ ${#missing[@]} -gt 0 ]; then
	echo "FAIL: ${#missing[@]} of $n rules have no scenario or offline fixture that fires them: ${missing[*]}"
	exit 1
fi
echo "all $n rules are fired by a scenario or an offline fixture"
