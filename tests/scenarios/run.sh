#!/usr/bin/env bash
# tests/scenarios/run.sh - end-to-end scenarios: fixture trees of /proc and /sys
# through the real binary.
#
#   tests/scenarios/run.sh [SCENARIO...]     run all (or the named) scenarios
#   tests/scenarios/run.sh --text SCENARIO   print the text report of SCENARIO as a
#                                            user sees it: NO_COLOR
#                                            `gpudoctor check --from node.jsonl`
#   UPDATE=1 tests/scenarios/run.sh          rewrite expected.txt from the code under
#                                            test and print `git diff --stat`: review it
#   BUILD=build-asan tests/scenarios/run.sh  use $BUILD/gpudoctor (or set GPUDOCTOR)
#
# UPDATE is a separate, explicit command, never part of a test run: it is
# refused under CI (CI set, other than false/0) and from the suite runner
# (tests/run.sh exports GD_SUITE_RUN=1), so a golden file cannot regenerate
# itself and pass.
#
# Layout: base/t0 and base/t1 are a complete healthy GPU training host at two
# instants 2 s apart.  Each NNNN-<rule id>/ holds only what differs: t0/ and t1/
# overlays copied over a copy of base/t0 and base/t1, an optional `args` file
# (extra flags for check, e.g. --set cpu.saturated.busy_pct=95) and
# expected.txt, one line per finding:
#
#     <severity> <rule id> <subject> <evidence name=value ...>
#
# A series scenario (rules that need three or more snapshots, e.g.
# io.checkpoint_stall) adds t2/, t3/ ... overlays (and tN.nvml.ini): tN for
# N >= 2 is base/t1 with the scenario's tN overlay on top (each snapshot is a
# base tree plus its own overlay; nothing carries over from one overlay to the
# next), and its NVML is tN.nvml.ini, else nvml.ini, else base/nvml.ini.  The
# series runs from t0 to the last tN with no gap; each tN overlay must set
# proc/uptime, as uptime must rise from one snapshot to the next.
# 0100-readme-sample is README's sample host (the block between its sample
# markers, checked by tests/readme_sample.sh): 1008-mem.shm_small's /dev/shm
# overlays and 1101-gpu.thermal_throttle's hot gpu2, as symlinks to them.
#
# For each scenario the runner takes one snapshot of each tree, runs
# `check --from` over the series and checks:
#   - every collector reported "ok" in both snapshots (the fixture is read whole;
#     a scenario that breaks a source on purpose names it, as an extended
#     regex such as ^nvml$, in an optional file allow_sources);
#   - the rendered findings equal expected.txt;
#   - 1xxx-<id>: rule <id> fired (its dir name says which rule it is for);
#   - 0000-healthy (and 00NN-healthy-*, e.g. the 8-GPU baseline, the series
#     of 0002): no finding of severity warning or critical;
#   - the snapshots' uptimes rise in order;
#   - the findings are the same under the tiered process walk of serve,
#     watch and record (tiered_same below);
#   - check's exit status matches the worst severity (0 none/info, 1 warning,
#     2 critical) and the JSON's "exit";
#   - who each GPU job process is (job_ranks[]) equals expected_ranks.txt,
#     where the scenario has one, and no fixture's decoy secret
#     (gd-decoy-secret..., in environments) reaches a snapshot or the report.
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

text_mode=false
if [ "${1:-}" = --text ]; then
	if [ $# -ne 2 ]; then
		echo "usage: $0 --text SCENARIO" >&2
		exit 2
	fi
	text_mode=true
	shift
fi
in_ci=false
case ${CI:-} in "" | false | 0) ;; *) in_ci=true ;; esac
if [ "${UPDATE:-0}" = 1 ] && ! $text_mode; then
	if $in_ci || [ -n "${GD_SUITE_RUN:-}" ]; then
		echo "FAIL setup: UPDATE=1 is refused $($in_ci && echo "under CI (CI=$CI)" || echo "in a test run (GD_SUITE_RUN is set)"):" \
			"a test must never rewrite its own expected output." >&2
		echo "Rewrite the golden files by hand, outside the test run: UPDATE=1 tests/scenarios/run.sh" \
			"(or make golden), then review the diff." >&2
		echo "0 passed, 1 failed"
		exit 1
	fi
fi

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
ranks='.job_ranks[] | "\(.pid) \(.status) job=\(.job // "") rank=\(.rank // "")/\(.world_size // "") local=\(.local_rank // "")/\(.local_world_size // "") node=\(.node_rank // "") gpus=\(.gpus // "") launcher=\(.launcher // "") pod=\(.namespace // "")/\(.pod // "")" + (if .reason then " reason=\(.reason)" else "" end)'
worst='[.findings[].severity] | if any(. == "critical") then 2 elif any(. == "warning") then 1 else 0 end'

# make_tree SCENARIO_DIR T DEST: base/T with the scenario's T overlay on top.
# The base's files are hard links when the filesystem allows (gpudoctor only
# reads a --root; copying the thousand files of a base was most of a
# scenario's time), and the overlay replaces a linked file by a new one
# (--remove-destination), never writing through the link into base/.
make_tree() {
	cp -al "$here/base/$(base_of "$2")" "$3" 2>/dev/null ||
		{ rm -rf "$3"; cp -a "$here/base/$(base_of "$2")" "$3"; } || return 1
	if [ -d "$1/$2" ]; then
		cp -a --remove-destination "$1/$2/." "$3/" || return 1
	fi
	if [ -f "$here/emptydirs" ]; then
		while IFS= read -r d; do
			[ -n "$d" ] && mkdir -p "$3/$d"
		done <"$here/emptydirs"
	fi
	return 0
}

# base_of T: the base tree of step T (t0 -> t0, t1 and later -> t1).
base_of() {
	if [ "$1" = t0 ]; then echo t0; else echo t1; fi
}

# snap_series DIR TMP: builds the scenario's trees t0, t1 (and t2 ... for a
# series), snapshots each in order into TMP/s.jsonl; appends soft problems to
# the caller's $problems; prints FAIL and returns 1 when it cannot go on.
snap_series() {
	local dir=$1 tmp=$2 name t n f nvml_ini skip_src rc bad up prev_up="" steps=(t0 t1)
	name=$(basename "$dir")
	n=2
	while [ -d "$dir/t$n" ] || [ -f "$dir/t$n.nvml.ini" ]; do
		steps+=("t$n")
		n=$((n + 1))
	done
	for f in "$dir"/t[0-9]*; do
		[ -e "$f" ] || continue
		t=$(basename "$f")
		t=${t%.nvml.ini}
		case " ${steps[*]} " in
		*" $t "*) ;;
		*)
			echo "FAIL $name: $(basename "$f") is not part of the series ${steps[*]} (a gap before it?)"
			return 1 ;;
		esac
	done
	: >"$tmp/s.jsonl"
	for t in "${steps[@]}"; do
		if ! make_tree "$dir" "$t" "$tmp/$t" 2>"$tmp/cp.err"; then
			echo "FAIL $name: cannot build tree $t: $(head -c 500 "$tmp/cp.err")"
			return 1
		fi
		nvml_ini=""
		for f in "$dir/$t.nvml.ini" "$dir/nvml.ini" "$here/base/$(base_of "$t").nvml.ini" "$here/base/nvml.ini"; do
			[ -f "$f" ] && { nvml_ini=$f; break; }
		done
		if [ -n "$nvml_ini" ]; then
			export GPUDOCTOR_NVML=$FAKE_NVML GPUDOCTOR_FAKE_NVML=$nvml_ini
			skip_src='^(job_samples|job_sockets)$'
		else
			export GPUDOCTOR_NVML=/nonexistent/libnvidia-ml.so.1
			unset GPUDOCTOR_FAKE_NVML
			skip_src='^(nvml|job_samples|job_sockets)$'
		fi
		# job_samples (perf sampling of the job's threads) and job_sockets
		# (sock_diag) need the live host: a fixture tree's snapshot says
		# they are absent, with why.
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
		up=$(jq -r '.host.uptime_s // empty' "$tmp/$t.jsonl")
		if [ -n "$prev_up" ] && { [ -z "$up" ] || ! awk -v a="$prev_up" -v b="$up" 'BEGIN { exit !(b > a) }'; }; then
			problems+="  $t: uptime ${up:-absent} does not rise from $prev_up (a tN overlay must set proc/uptime)"$'\n'
		fi
		prev_up=$up
		cat "$tmp/$t.jsonl" >>"$tmp/s.jsonl"
	done
	return 0
}


# tiered_same TMP: the findings do not change under the tiered process walk
# of serve, watch and record (issue 29).  bench_collect tiered-diff reads
# the scenario's trees in order with one tiered cache, after 25 cycles of t0
# (no process young, most from the slow round), and says "same" when every
# process table equals the one read whole but for detail_uptime_s (the rules
# cannot judge otherwise); else the tables go into the snapshots and check
# must render the same findings.  Appends to $problems; returns 1 then.
# GD_TIERED_DEBUG=1 prints what the comparison said for each scenario.
TIERED=$(dirname "$GPUDOCTOR")/bench/bench_collect
tiered_same() {
	local tmp=$1 trees=() t out
	[ -x "$TIERED" ] || { problems+="  no $TIERED to compare the tiered walk (make unit builds it)"; return 1; }
	for t in "$tmp"/t[0-9]*; do [ -d "$t" ] && trees+=("$t"); done
	mapfile -t trees < <(printf '%s\n' "${trees[@]}" | sort -V)
	out=$("$TIERED" tiered-diff 25 "${trees[@]}" 2>&1) ||
		{ problems+="  bench_collect tiered-diff failed: ${out:0:300}"; return 1; }
	[ -n "${GD_TIERED_DEBUG:-}" ] && echo "tiered: ${out:0:80}" >&2
	[[ $out == "same ${#trees[@]}" ]] && return 0
	printf '%s\n' "$out" | jq -c '.procs' >"$tmp/tiered_procs.jsonl" &&
		jq -c --slurpfile p "$tmp/tiered_procs.jsonl" '.procs = $p[input_line_number - 1]' "$tmp/s.jsonl" >"$tmp/st.jsonl" &&
		timeout "$TIMEOUT" "$GPUDOCTOR" check --from "$tmp/st.jsonl" --json "${args[@]}" 2>/dev/null |
		jq -r "$render" | LC_ALL=C sort >"$tmp/got_tiered.txt"
	cmp -s "$tmp/got.txt" "$tmp/got_tiered.txt" && return 0
	problems+="  findings differ under the tiered process walk (serve, watch, record):"$'\n'
	problems+=$(diff -u --label whole --label tiered "$tmp/got.txt" "$tmp/got_tiered.txt" | sed 's/^/    /')
	return 1
}

# run_one DIR: prints "ok NAME" or "FAIL NAME: ..." with details; returns 0/1.
run_one() {
	local dir=$1 name rule tmp problems="" rc want jrc args=()
	name=$(basename "$dir")
	rule=${name#[0-9][0-9][0-9][0-9]-}
	tmp=$work/$name
	mkdir -p "$tmp"
	if [ -f "$dir/args" ]; then
		# shellcheck disable=SC2207
		args=($(cat "$dir/args"))
	fi
	snap_series "$dir" "$tmp" || return 1

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
	if [[ $name == 00[0-9][0-9]-healthy* ]]; then
		if grep -qE '^(warning|critical) ' "$tmp/got.txt"; then
			problems+="  the healthy host has warnings or critical findings"$'\n'
		fi
	elif [[ $name == 1[0-9][0-9][0-9]-* ]] && ! awk -v id="$rule" '$2 == id { found = 1 } END { exit !found }' "$tmp/got.txt"; then
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

	# Who each rank is (job_ranks[], issue 26): expected_ranks.txt, one line
	# per GPU job process, where a scenario has one (UPDATE writes it when
	# some process has a rank or an unread identity); and the decoy secret
	# the fixtures' environments hold never leaves them.
	jq -r "$ranks" "$tmp/out.json" >"$tmp/ranks.txt"
	if [ "${UPDATE:-0}" = 1 ] && { [ -f "$dir/expected_ranks.txt" ] || grep -qv ' no_rank ' "$tmp/ranks.txt"; }; then
		cmp -s "$tmp/ranks.txt" "$dir/expected_ranks.txt" 2>/dev/null ||
			{ cp "$tmp/ranks.txt" "$dir/expected_ranks.txt"; echo "  updated $name/expected_ranks.txt"; }
	elif [ -f "$dir/expected_ranks.txt" ] && ! cmp -s "$tmp/ranks.txt" "$dir/expected_ranks.txt"; then
		problems+="  job ranks differ from expected_ranks.txt:"$'\n'
		problems+=$(diff -u --label expected --label got "$dir/expected_ranks.txt" "$tmp/ranks.txt" | sed 's/^/    /')
		problems+=$'\n'
	fi
	if grep -q 'gd-decoy-secret' "$tmp/s.jsonl" "$tmp/out.json"; then
		problems+="  a decoy secret of the fixtures' environments is in the snapshot or the report"$'\n'
	fi
	tiered_same "$tmp" || problems+=$'\n'

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

# --text NAME: the scenario's snapshots as node.jsonl, and the report a user
# gets from `NO_COLOR=1 gpudoctor check --from node.jsonl`, on stdout.
# Exit 0 when check printed a report (its exit 0, 1 or 2), 1 otherwise.
if $text_mode; then
	d=$here/$(basename "$1")
	if [ ! -d "$d" ]; then
		echo "$0: no such scenario: $1" >&2
		exit 1
	fi
	tmp=$work/text
	mkdir -p "$tmp"
	problems=""
	# not in $(...): snap_series appends to $problems in this shell
	snap_series "$d" "$tmp" >&2 || exit 1
	if [ -n "$problems" ]; then
		printf '%s' "$problems" >&2
	fi
	mv "$tmp/s.jsonl" "$tmp/node.jsonl"
	args=()
	if [ -f "$d/args" ]; then
		# shellcheck disable=SC2207
		args=($(cat "$d/args"))
	fi
	(cd "$tmp" && GPUDOCTOR_NVML=/nonexistent/libnvidia-ml.so.1 NO_COLOR=1 \
		timeout "$TIMEOUT" "$GPUDOCTOR" check --from node.jsonl "${args[@]}")
	rc=$?
	[ "$rc" -le 2 ] && exit 0
	echo "$0: check --from node.jsonl of $(basename "$d") failed (rc $rc)" >&2
	exit 1
fi

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
if [ "${UPDATE:-0}" = 1 ]; then
	echo "UPDATE=1 rewrote the expected.txt files above from the code under test; review the diff before committing:"
	git -C "$repo" diff --stat -- tests/scenarios
	git -C "$repo" status --short -- 'tests/scenarios/*/expected.txt' | grep '^??' || true
fi
[ "$fail" -eq 0 ]
