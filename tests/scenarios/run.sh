#!/usr/bin/env bash
# tests/scenarios/run.sh - end-to-end scenarios: fixture trees of /proc and /sys
# through the real binary.
#
#   tests/scenarios/run.sh [SCENARIO...]     run all (or the named) scenarios
#   UPDATE=1 tests/scenarios/run.sh          rewrite expected.txt (review the diff!)
#   BUILD=build-asan tests/scenarios/run.sh  use $BUILD/gpudoctor (or set GPUDOCTOR)
#
# Layout: base/t0 and base/t1 are a complete healthy GPU training host at two
# instants 2 s apart.  Each NNNN-<rule id>/ holds only what differs: t0/ and t1/
# overlays copied over a copy of base/t0 and base/t1, an optional `args` file
# (extra flags for check, e.g. --set cpu.saturated.busy_pct=95) and
# expected.txt, one line per finding:
#
#     <severity> <rule id> <subject> <evidence name=value ...>
#
# For each scenario the runner takes one snapshot of each tree, runs
# `check --from` over the pair and checks:
#   - every collector reported "ok" in both snapshots (the fixture is read whole;
#     a scenario that breaks a source on purpose names it, as an extended
#     regex such as ^nvml$, in an optional file allow_sources);
#   - the rendered findings equal expected.txt;
#   - 1xxx-<id>: rule <id> fired (its dir name says which rule it is for);
#   - 0000-healthy (and 000N-healthy-*, e.g. the 8-GPU baseline): no finding
#     of severity warning or critical;
#   - check's exit status matches the worst severity (0 none/info, 1 warning,
#     2 critical) and the JSON's "exit".
# Overlays name files by their real path: sys/class/net/eth0, sys/block/sda
# and the like are symlinks (as in sysfs), so a change to eth0's operstate
# goes in t1/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0/net/eth0/operstate
# (cp cannot merge a directory into a symlink).
# git keeps no empty directories: `emptydirs` lists those the trees need
# (e.g. a kernel thread's empty fd/), created in every copy.
# mkfixtures.py is how base/ and the overlays were generated (not run here).
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
GPUDOCTOR=${GPUDOCTOR:-$repo/${BUILD:-build}/gpudoctor}
case $GPUDOCTOR in /*) ;; *) GPUDOCTOR=$repo/$GPUDOCTOR ;; esac
# The fixture trees describe a host without NVML evidence: never let a real
# driver on the test machine (a GPU host) mix its GPUs into them.
# A scenario that has an nvml.ini (or inherits base/nvml.ini) gets the fake
# NVML library answering from it; the others get none, and their snapshots
# say NVML is absent, which is then the one source allowed not to be "ok".
FAKE_NVML=$(dirname "$GPUDOCTOR")/fake_nvml/libnvidia-ml.so.1
TIMEOUT=${SCENARIO_TIMEOUT:-60}

if [ ! -x "$GPUDOCTOR" ]; then
	echo "FAIL setup: $GPUDOCTOR is not an executable (build it: make BUILD=${BUILD:-build} all)"
	echo "0 passed, 1 failed"
	exit 1
fi
for tool in jq diff timeout; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "FAIL setup: $tool is missing"
		echo "0 passed, 1 failed"
		exit 1
	fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/gd-scenarios.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM

render='.findings[] | "\(.severity) \(.id) \(.subject) " + ([.evidence[] | select(.value != null) | "\(.name)=\(.value)"] | join(" ")) | sub(" +$"; "")'
worst='[.findings[].severity] | if any(. == "critical") then 2 elif any(. == "warning") then 1 else 0 end'

# make_tree SCENARIO_DIR T DEST: base/T with the scenario's T overlay on top.
make_tree() {
	cp -a "$here/base/$2" "$3" || return 1
	if [ -d "$1/$2" ]; then
		cp -a "$1/$2/." "$3/" || return 1
	fi
	if [ -f "$here/emptydirs" ]; then
		while IFS= read -r d; do
			[ -n "$d" ] && mkdir -p "$3/$d"
		done <"$here/emptydirs"
	fi
	return 0
}

# run_one DIR: prints "ok NAME" or "FAIL NAME: ..." with details; returns 0/1.
run_one() {
	local dir=$1 name rule tmp problems="" rc want jrc bad t nvml_ini skip_src args=()
	name=$(basename "$dir")
	rule=${name#[0-9][0-9][0-9][0-9]-}
	tmp=$work/$name
	mkdir -p "$tmp"
	if [ -f "$dir/args" ]; then
		# shellcheck disable=SC2207
		args=($(cat "$dir/args"))
	fi
	for t in t0 t1; do
		if ! make_tree "$dir" "$t" "$tmp/$t" 2>"$tmp/cp.err"; then
			echo "FAIL $name: cannot build tree $t: $(head -c 500 "$tmp/cp.err")"
			return 1
		fi
		nvml_ini=""
		for f in "$dir/$t.nvml.ini" "$dir/nvml.ini" "$here/base/$t.nvml.ini" "$here/base/nvml.ini"; do
			[ -f "$f" ] && { nvml_ini=$f; break; }
		done
		if [ -n "$nvml_ini" ]; then
			export GPUDOCTOR_NVML=$FAKE_NVML GPUDOCTOR_FAKE_NVML=$nvml_ini
			skip_src='^$'
		else
			export GPUDOCTOR_NVML=/nonexistent/libnvidia-ml.so.1
			unset GPUDOCTOR_FAKE_NVML
			skip_src='^nvml$'
		fi
		if [ -f "$dir/allow_sources" ]; then
			skip_src="$skip_src|$(cat "$dir/allow_sources")"
		fi
		timeout "$TIMEOUT" "$GPUDOCTOR" snapshot --root "$tmp/$t" >"$tmp/$t.jsonl" 2>"$tmp/$t.err"
		rc=$?
		if [ "$rc" -ne 0 ]; then
			echo "FAIL $name: snapshot of $t failed (rc $rc): $(head -c 500 "$tmp/$t.err")"
			return 1
		fi
		if ! jq -e . "$tmp/$t.jsonl" >/dev/null 2>&1; then
			echo "FAIL $name: snapshot of $t is not JSON: $(head -c 300 "$tmp/$t.jsonl")"
			return 1
		fi
		bad=$(jq -r --arg skip "$skip_src" '.sources[]? | select(.status != "ok" and (.name | test($skip) | not)) | "\(.name)=\(.status) (\(.reason))"' "$tmp/$t.jsonl")
		if [ -n "$bad" ]; then
			problems+="  $t: sources not ok: $(echo "$bad" | tr '\n' ';')"$'\n'
		fi
		cat "$tmp/$t.jsonl" >>"$tmp/s.jsonl"
	done

	timeout "$TIMEOUT" "$GPUDOCTOR" check --from "$tmp/s.jsonl" --json "${args[@]}" >"$tmp/out.json" 2>"$tmp/check.err"
	rc=$?
	if [ "$rc" -gt 2 ] || ! jq -e '.findings' "$tmp/out.json" >/dev/null 2>&1; then
		echo "FAIL $name: check failed (rc $rc): $(head -c 500 "$tmp/check.err") $(head -c 300 "$tmp/out.json")"
		return 1
	fi
	jq -r "$render" "$tmp/out.json" | LC_ALL=C sort >"$tmp/got.txt"

	want=$(jq -r "$worst" "$tmp/out.json")
	if [ "$rc" != "$want" ]; then
		problems+="  exit status $rc, but the worst severity means $want"$'\n'
	fi
	jrc=$(jq -r '.exit // empty' "$tmp/out.json")
	if [ -n "$jrc" ] && [ "$jrc" != "$rc" ]; then
		problems+="  JSON exit $jrc differs from the exit status $rc"$'\n'
	fi
	if [[ $name == 000[0-9]-healthy* ]]; then
		if grep -qE '^(warning|critical) ' "$tmp/got.txt"; then
			problems+="  the healthy host has warnings or critical findings"$'\n'
		fi
	elif ! awk -v id="$rule" '$2 == id { found = 1 } END { exit !found }' "$tmp/got.txt"; then
		problems+="  rule $rule did not fire"$'\n'
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
		if [ -s "$tmp/check.err" ]; then
			echo "  check stderr: $(head -c 500 "$tmp/check.err")"
		fi
		return 1
	fi
	echo "ok $name"
	return 0
}

if [ $# -gt 0 ]; then
	dirs=()
	for a in "$@"; do dirs+=("$here/$(basename "$a")"); done
else
	dirs=("$here"/[0-9][0-9][0-9][0-9]-*/)
fi

pass=0
fail=0
for d in "${dirs[@]}"; do
	d=${d%/}
	if [ ! -d "$d" ]; then
		echo "FAIL $(basename "$d"): no such scenario"
		fail=$((fail + 1))
		continue
	fi
	if run_one "$d"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
