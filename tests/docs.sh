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
for c in check snapshot watch record report serve xid rules fields; do
	"$G" "$c" --help | grep -q "Usage: gpudoctor $c" || { echo "$c --help prints no usage"; bad=1; }
	grep -q "^\.B $c\$\|^\.B $c " docs/gpudoctor.1 || grep -q "^\.B $c" docs/gpudoctor.1 ||
		{ echo "docs/gpudoctor.1 does not describe $c"; bad=1; }
done
"$G" help nosuch >/dev/null 2>&1 && { echo "help for an unknown command succeeded"; bad=1; }
for id in $("$G" rules | awk '/^[a-z]+\.[a-z_]+ /{print $1}'); do
	grep -q "^## $id\$" docs/rules.md || { echo "docs/rules.md has no section for $id"; bad=1; }
	if [ -f ../shared/design/CAUSES.md ]; then
		grep -q "^| $id |" ../shared/design/CAUSES.md || { echo "$id is not in CAUSES.md"; bad=1; }
	fi
done
exit $bad
