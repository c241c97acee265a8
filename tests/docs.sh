#!/bin/bash
# tests/docs.sh - the documentation says what the binary does:
# docs/evidence.md is `gpudoctor fields`; every command has --help and a
# place in the man page; every rule has a section in docs/rules.md and a row
# in the catalogue (../shared/design/CAUSES.md) when it is beside us.
set -u
cd "$(dirname "$0")/.."
G=${GPUDOCTOR:-build/gpudoctor}
bad=0
if ! diff -u docs/evidence.md <("$G" fields) >/dev/null; then
	echo "docs/evidence.md is stale: run  build/gpudoctor fields > docs/evidence.md"
	bad=1
fi
for c in check snapshot watch record report serve xid fleet probe rules fields config; do
	"$G" "$c" --help | grep -q "Usage: gpudoctor $c" || { echo "$c --help prints no usage"; bad=1; }
	grep -q "^\.B $c\$\|^\.B $c " docs/gpudoctor.1 || grep -q "^\.B $c" docs/gpudoctor.1 ||
		{ echo "docs/gpudoctor.1 does not describe $c"; bad=1; }
done
"$G" help nosuch >/dev/null 2>&1 && { echo "help for an unknown command succeeded"; bad=1; }
# The rule ids, from `gpudoctor rules`; their count must be the registry's,
# by two independent counts: the rows of src/rules/registry.c, and the M of
# the "checked: N of M rules" line of a check (the engine's gd_nrules).
ids=$("$G" rules | awk '/^[a-z]+\.[a-z0-9_]+ +(info|warning|critical) /{print $1}' | sort -u)
n_ids=$(echo "$ids" | grep -c .)
n_src=$(grep -cP '^\t\{ "[a-z]+\.[a-z0-9_]+", GD_SEV_[A-Z]+,' src/rules/registry.c)
n_check=$("$G" check --root tests/exporter/fixtures/healthy --window 100ms --no-color \
	--nvml /nonexistent/libnvidia-ml.so.1 2>/dev/null |
	sed -n 's/^checked: [0-9]* of \([0-9]*\) rules .*/\1/p')
if [ "$n_ids" -le 50 ] || [ "$n_ids" != "$n_src" ] || [ "$n_ids" != "${n_check:-none}" ]; then
	echo "rule counts disagree or are too few: $n_ids ids in gpudoctor rules, $n_src rows in src/rules/registry.c," \
		"${n_check:-no} in the checked: line of gpudoctor check (want the same, over 50)"
	bad=1
fi
for id in $ids; do
	grep -q "^## $id\$" docs/rules.md || { echo "docs/rules.md has no section for $id"; bad=1; }
	if [ -f ../shared/design/CAUSES.md ]; then
		grep -q "^| $id |" ../shared/design/CAUSES.md || { echo "$id is not in CAUSES.md"; bad=1; }
	fi
done
exit $bad
