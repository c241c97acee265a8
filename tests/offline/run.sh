#!/usr/bin/env bash
# tests/offline/run.sh - offline evidence (nvidia-smi -q/-x/CSV/table, kernel
# logs, lspci, pastes, bug reports) through `gpudoctor check --from`.
#
#   tests/offline/run.sh [FIXTURE...]     run all (or the named) fixtures
#   UPDATE=1 tests/offline/run.sh         rewrite expected.txt (review the diff!)
#   BUILD=build-asan tests/offline/run.sh use $BUILD/gpudoctor (or set GPUDOCTOR)
#
# Each NNNN-<name>/ holds input files (any names: the kind comes from the
# content) and expected.txt: one line per finding,
#
#     <severity> <rule id> <subject> <evidence name=value ...>
#
# then "exit N" and, for each line gpudoctor wrote to stderr, "stderr: ..."
# (file paths made relative).  Every input file is passed with --from in
# name order; a file named "stdin" is piped to `--from -` instead.  The runner
# also checks that the text report runs, that it ends with what to capture
# (the "to diagnose further" line) unless the inputs are snapshot recordings
# (*.jsonl: what that line asks for), and
# that the exit status matches the worst severity and the JSON's "exit".
# The numbered fixtures 0001-0029 are synthetic: mkfixtures.py wrote them
# (not run here); 04NN-probe-* are gpudoctor probe -o files of the fake
# 8-GPU node (tests/fake_cuda/mkfixtures.sh wrote them).  Real samples, written by people outside this project,
# are listed with their sources in MANIFEST.md.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
GPUDOCTOR=${GPUDOCTOR:-$repo/${BUILD:-build}/gpudoctor}
case $GPUDOCTOR in /*) ;; *) GPUDOCTOR=$repo/$GPUDOCTOR ;; esac
TIMEOUT=${OFFLINE_TIMEOUT:-60}
# UPDATE rewrites expected.txt from the code under test: only as its own,
# explicit command (make golden), never inside the test run or CI.
if [ "${UPDATE:-0}" != 0 ] && { [ -n "${GD_SUITE_RUN:-}" ] || [ "${CI:-}" = true ]; }; then
	echo "FAIL setup: UPDATE is refused under tests/run.sh and CI (run make golden, then review git diff)"
	echo "0 passed, 1 failed"
	exit 1
fi

if [ ! -x "$GPUDOCTOR" ]; then
	echo "FAIL setup: $GPUDOCTOR is not an executable (build it: make BUILD=${BUILD:-build} all)"
	echo "0 passed, 1 failed"
	exit 1
fi
for tool in jq diff timeout; do
	command -v "$tool" >/dev/null 2>&1 || { echo "FAIL setup: $tool is missing"; echo "0 passed, 1 failed"; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/gd-offline.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM

render='.findings[] | "\(.severity) \(.id) \(.subject) " + ([.evidence[] | select(.value != null) | "\(.name)=\(.value)"] | join(" ")) | sub(" +$"; "")'
worst='[.findings[].severity] | if any(. == "critical") then 2 elif any(. == "warning") then 1 else 0 end'

run_one() {
	local dir=$1 name tmp rc want jrc problems="" args=() stdin=/dev/null f trc recording=true
	name=$(basename "$dir")
	tmp=$work/$name
	mkdir -p "$tmp"
	for f in "$dir"/*; do
		case $(basename "$f") in
		expected.txt | args) ;;
		stdin) stdin=$f; args+=(--from -); recording=false ;;
		*.jsonl) args+=(--from "$name/$(basename "$f")") ;;
		*) args+=(--from "$name/$(basename "$f")"); recording=false ;;
		esac
	done
	# NO_COLOR and no NVML: nothing of this machine may leak into the result
	(cd "$here" && GPUDOCTOR_NVML=/nonexistent timeout "$TIMEOUT" "$GPUDOCTOR" check --json "${args[@]}" \
		<"$stdin" >"$tmp/out.json" 2>"$tmp/err.txt")
	rc=$?
	{
		if [ "$rc" -le 2 ] && jq -e '.findings' "$tmp/out.json" >/dev/null 2>&1; then
			jq -r "$render" "$tmp/out.json" | LC_ALL=C sort
		fi
		echo "exit $rc"
		sed 's/^/stderr: /' "$tmp/err.txt"
	} >"$tmp/got.txt"
	if [ "$rc" -gt 3 ]; then
		problems+="  exit status $rc (a crash?)"$'\n'
	elif [ "$rc" -le 2 ]; then
		want=$(jq -r "$worst" "$tmp/out.json")
		[ "$rc" = "$want" ] || problems+="  exit status $rc, but the worst severity means $want"$'\n'
		jrc=$(jq -r '.exit // empty' "$tmp/out.json")
		[ -z "$jrc" ] || [ "$jrc" = "$rc" ] || problems+="  JSON exit $jrc differs from the exit status $rc"$'\n'
		(cd "$here" && NO_COLOR=1 GPUDOCTOR_NVML=/nonexistent timeout "$TIMEOUT" "$GPUDOCTOR" check "${args[@]}" \
			<"$stdin" >"$tmp/out.txt" 2>/dev/null)
		trc=$?
		[ "$trc" = "$rc" ] || problems+="  the text report exits $trc, the JSON one $rc"$'\n'
		# a recording (snapshot JSONL only, e.g. a probe's -o) is what it would ask for
		$recording || grep -q '^to diagnose further, capture: gpudoctor snapshot --window 2s -o node.jsonl' "$tmp/out.txt" ||
			problems+="  the text report does not say what to capture"$'\n'
	fi
	if [ "${UPDATE:-0}" = 1 ]; then
		if [ ! -f "$dir/expected.txt" ] || ! cmp -s "$tmp/got.txt" "$dir/expected.txt"; then
			diff -u --label "$name/expected.txt (old)" --label "$name/expected.txt (new)" \
				"$dir/expected.txt" "$tmp/got.txt" 2>/dev/null | sed 's/^/    /'
			cp "$tmp/got.txt" "$dir/expected.txt"
			echo "  updated $name/expected.txt"
		fi
	elif [ ! -f "$dir/expected.txt" ]; then
		problems+="  no expected.txt (run with UPDATE=1 and review it)"$'\n'
	elif ! cmp -s "$tmp/got.txt" "$dir/expected.txt"; then
		problems+="  findings differ from expected.txt:"$'\n'
		problems+=$(diff -u --label expected --label got "$dir/expected.txt" "$tmp/got.txt" | sed 's/^/    /')
		problems+=$'\n'
	fi
	if [ -n "$problems" ]; then
		echo "FAIL $name"
		printf '%s' "$problems"
		return 1
	fi
	echo "ok $name"
}

if [ $# -gt 0 ]; then
	dirs=()
	for a in "$@"; do dirs+=("$here/$(basename "$a")"); done
else
	dirs=("$here"/[0-9][0-9][0-9][0-9]-*/)
fi
pass=0 fail=0
for d in "${dirs[@]}"; do
	d=${d%/}
	if [ ! -d "$d" ]; then
		echo "FAIL $(basename "$d"): no such fixture"
		fail=$((fail + 1))
	elif run_one "$d"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
if [ "${UPDATE:-0}" = 1 ]; then
	echo "expected.txt files rewritten from the code under test: review before committing:"
	git -C "$repo" diff --stat -- tests/offline
fi
[ "$fail" -eq 0 ]
