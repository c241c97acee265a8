#!/usr/bin/env bash
# tests/readme_sample.sh - README.md's sample output is what the binary prints.
#
# The fenced block between `<!-- sample:begin ...-->` and `<!-- sample:end -->`
# in README.md is a command line, `$ gpudoctor check --from node.jsonl`, and
# its output.  The host it describes (a container with 64 MiB /dev/shm and one
# hot GPU) is the scenario tests/scenarios/0100-readme-sample; this test takes
# that scenario's snapshots as node.jsonl, runs the NO_COLOR text report
# (tests/scenarios/run.sh --text) and compares it with the block line by line.
# Exit 0: they match; 1: they differ (the diff is printed), the block or the
# report could not be had, or the snapshots were not clean (run.sh's stderr).
#
#   tests/readme_sample.sh                 with build/gpudoctor
#   BUILD=build-asan tests/readme_sample.sh  (or GPUDOCTOR=...)
#
# When the report changes on purpose, paste the new output into the block
# (tests/scenarios/run.sh --text 0100-readme-sample) and review it.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
readme=$repo/README.md
scenario=0100-readme-sample
want_cmd='$ gpudoctor check --from node.jsonl'

work=$(mktemp -d "${TMPDIR:-/tmp}/gd-readme.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM

# the lines between the markers, without the fence lines
if ! awk '
	/^<!-- sample:begin/ { inside = 1; begins++; next }
	/^<!-- sample:end -->/ { if (inside) ends++; inside = 0; next }
	inside && /^```/ { fences++; next }
	inside { print }
	END { exit !(begins == 1 && ends == 1 && fences == 2) }
' "$readme" >"$work/block.txt"; then
	echo "FAIL readme_sample: README.md needs exactly one sample:begin/sample:end pair around one fenced block"
	exit 1
fi
if [ "$(head -n 1 "$work/block.txt")" != "$want_cmd" ]; then
	echo "FAIL readme_sample: the block's first line is '$(head -n 1 "$work/block.txt")', not '$want_cmd'"
	exit 1
fi
tail -n +2 "$work/block.txt" >"$work/want.txt"

if ! "$repo/tests/scenarios/run.sh" --text "$scenario" >"$work/got.txt" 2>"$work/err.txt"; then
	echo "FAIL readme_sample: no report for $scenario: $(head -c 500 "$work/err.txt")"
	exit 1
fi
if [ -s "$work/err.txt" ]; then
	# run.sh's soft problems: a collector not ok, uptimes that do not rise
	echo "FAIL readme_sample: the snapshots of $scenario are not clean:"
	sed 's/^/  /' "$work/err.txt"
	exit 1
fi
if [ ! -s "$work/got.txt" ]; then
	echo "FAIL readme_sample: the report of $scenario is empty"
	exit 1
fi

if ! diff -u --label "README.md (sample block)" --label "gpudoctor check --from node.jsonl ($scenario)" \
	"$work/want.txt" "$work/got.txt"; then
	echo "FAIL readme_sample: README.md's sample output differs from what the binary prints (diff above)"
	exit 1
fi
echo "ok readme_sample ($(wc -l <"$work/got.txt") lines match $scenario)"
exit 0
