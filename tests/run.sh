#!/bin/bash
# tests/run.sh - runs every suite, each test in its own process with a
# time-out, and ends with one summary line: "N passed, N failed, N skipped".
#
#   tests/run.sh                      every suite
#   GD_SUITES="unit offline" tests/run.sh
#   BUILD=build-asan tests/run.sh     the binaries of another build tree
#
# Suites: unit (cmocka binaries, one per tests/unit/test_*.c, and the xid
# command line), docs (the docs and the README's sample match the binary),
# scenarios (fixture trees through the real binary), offline (nvidia-smi,
# kernel-log, lspci, job-log and bug-report evidence through check --from),
# timeline (watch in tmux, record, report in headless chromium, episodes
# from a fake-NVML series), e2e (real faults on this machine), exporter
# (gpudoctor serve: promtool, a real Prometheus, bad requests), i18n (the
# Chinese catalogue is complete, zh_CN renders, LANG=C changes nothing), probe (every
# tests/probe/*.sh: gpudoctor probe against a fake libcuda.so.1 and the fake
# NVML, the host probes against dd and fio), nvidia (NVIDIA's own 535
# libraries, nvidia-smi and headers against our loaders, declarations and
# readers: scripts/nvidia-debs.sh fetches them), install (make install DESTDIR,
# the build-dependency line, --version, the bash completion), fuzz (a short
# run of each fuzz harness).  The Debian package is tested by
# tests/package/run.sh (make package-test: root, apt-get).
#
# The list of tests is derived from the sources, not from what happens to be
# built: a unit test whose source exists but whose binary does not is a
# failure, a binary without a source (a deleted test) is not run, a test
# script that is not executable is a failure, and an unknown suite name is an
# error.  The runner prints how many tests it expects and fails when the
# count it ran differs.  The scenario and offline runners must report one
# pass per fixture directory.
#
# A test exits 0 to pass, 77 to skip (a missing prerequisite, checked before
# the code is exercised; it prints why and what to install), anything else
# fails.  Under CI (CI=true) a skip is a failure: `make deps` installs every
# prerequisite and CI runs as root, so nothing there has a reason to skip.
# UPDATE (rewriting golden files) is refused here: that is `make golden`,
# a separate command whose result is a diff for review.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD GPUDOCTOR="$PWD/$BUILD/gpudoctor"
# the suites' own runners refuse UPDATE when they see this
export GD_SUITE_RUN=1
# English messages whatever the caller's locale (the golden files are
# English; tests/i18n sets the language it tests)
unset LANGUAGE LC_ALL LC_MESSAGES COLUMNS
export LANG=C.UTF-8
ALL_SUITES="unit docs scenarios offline timeline e2e exporter probe i18n install fuzz nvidia"
SUITES=${GD_SUITES:-$ALL_SUITES}
in_ci=false
[ "${CI:-}" = true ] && in_ci=true

if [ -n "${UPDATE:-}" ]; then
	echo "tests/run.sh: UPDATE=${UPDATE} is refused: the test run never rewrites its expected output." >&2
	echo "To regenerate golden files for review, run: make golden (then review git diff)" >&2
	exit 2
fi
for suite in $SUITES; do
	case " $ALL_SUITES " in
	*" $suite "*) ;;
	*)
		echo "tests/run.sh: unknown suite '$suite' (known: $ALL_SUITES)" >&2
		exit 2 ;;
	esac
done

# The plan: one "suite<TAB>name<TAB>timeout<TAB>command" line per test.
plan=()
# GD_LEAVE_OUT="suite/name ...": tests the caller leaves out of this run
# (make check: a load test the sanitizers' CPU cost invalidates), named in
# the output; a name that matches no test is an error
left_out=()
add() {
	case " ${GD_LEAVE_OUT:-} " in
	*" $2 "*) left_out+=("$2"); return ;;
	esac
	plan+=("$1"$'\t'"$2"$'\t'"$3"$'\t'"$4")
}
scripts_of() { # suite dir: every *.sh in it but the sourced helpers
	local t
	for t in "$2"/*.sh; do
		[ -e "$t" ] || continue
		case $(basename "$t") in lib.sh | lib.bash) continue ;; esac
		add "$1" "$1/$(basename "$t" .sh)" "$3" "$t"
	done
}
ndirs() { # fixture directories of a golden-file runner
	local d n=0
	for d in "$1"/[0-9][0-9][0-9][0-9]-*/; do
		[ -d "$d" ] && n=$((n + 1))
	done
	echo "$n"
}
for suite in $SUITES; do
	case $suite in
	unit)
		for src in tests/unit/test_*.c; do
			[ -e "$src" ] || continue
			add unit "unit/$(basename "$src" .c)" 300 "$BUILD/tests/$(basename "$src" .c)"
		done
		add unit unit/xid_cli 120 tests/xid_cli.sh ;;
	docs)
		add docs docs 60 tests/docs.sh
		add docs docs/readme_sample 120 tests/readme_sample.sh
		add docs docs/coverage 60 tests/coverage.sh ;;
	scenarios)
		add scenarios scenarios 900 tests/scenarios/run.sh ;;
	offline)
		add offline offline 300 tests/offline/run.sh ;;
	timeline) scripts_of timeline tests/timeline 300 ;;
	e2e) scripts_of e2e tests/e2e 300 ;;
	exporter) scripts_of exporter tests/exporter 180 ;;
	probe) scripts_of probe tests/probe 300 ;;
	nvidia) scripts_of nvidia tests/nvidia 120 ;;
	install) scripts_of install tests/install 120 ;;
	i18n) scripts_of i18n tests/i18n 300 ;;
	fuzz)
		add fuzz fuzz 600 "tests/fuzz/run.sh ${FUZZ_SECONDS:-5}" ;;
	esac
done
# Floors: a suite that finds fewer tests than this has lost its sources.
declare -A floor=([unit]=20 [timeline]=3 [e2e]=3 [exporter]=5 [probe]=4 [nvidia]=3 [install]=4 [i18n]=3)
declare -A found=()
for p in "${plan[@]}"; do
	s=${p%%$'\t'*}
	found[$s]=$((${found[$s]:-0} + 1))
done
for t in ${GD_LEAVE_OUT:-}; do
	case " ${left_out[*]} " in
	*" $t "*) ;;
	*)
		echo "tests/run.sh: GD_LEAVE_OUT names $t, which is no test of suites: $SUITES" >&2
		exit 2 ;;
	esac
done
expected=${#plan[@]}
echo "tests/run.sh: $expected tests expected in suites: $SUITES$($in_ci && echo ' (CI: a skip counts as a failure)')"
[ ${#left_out[@]} -eq 0 ] || echo "tests/run.sh: left out by the caller (GD_LEAVE_OUT): ${left_out[*]}"

pass=0 fail=0 skip=0 ran=0 failed=()
record_fail() { # name message
	fail=$((fail + 1))
	failed+=("$1")
	echo "FAIL  $1"
	printf '%s\n' "$2" | tail -n 60 | sed 's/^/      /'
}

for s in $SUITES; do
	if [ -n "${floor[$s]:-}" ] && [ "${found[$s]:-0}" -lt "${floor[$s]}" ]; then
		record_fail "$s" "only ${found[$s]:-0} tests found for suite $s (at least ${floor[$s]} expected): sources missing?"
		expected=$((expected + 1))
		ran=$((ran + 1))
	fi
done

# A binary in the build tree's tests/ without a source is a deleted test:
# say so, never run it.
if [[ " $SUITES " == *" unit "* ]]; then
	for b in "$BUILD"/tests/test_*; do
		[ -e "$b" ] || continue
		[ -e "tests/unit/$(basename "$b").c" ] ||
			echo "note: $b has no source in tests/unit/ (a deleted test): not run"
	done
fi

# check_count NAME OUTPUT DIRS: the golden-file runners end with
# "N passed, N failed"; N passed must be the number of fixture directories.
check_count() {
	local line p
	line=$(printf '%s\n' "$2" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	p=${line%% passed*}
	[ -n "$line" ] && [ "$p" = "$3" ] && return 0
	echo "$1 reported '${line:-no summary}' but has $3 fixture directories"
	return 1
}

# Two tests run side by side (GD_TEST_JOBS, default: the CPUs, at most 2);
# a test whose script says "# gd-test: exclusive" in its first lines (it
# measures time, load or throughput: a real fault, a tmux screen, a disk
# speed) runs alone.  Results print in plan order, each with its time.
slots=${GD_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$slots" -gt 2 ] && slots=2
[ "$slots" -lt 1 ] && slots=1
res=$(mktemp -d "${TMPDIR:-/tmp}/gd-run.XXXXXX") || exit 1
trap 'kill $(jobs -p) 2>/dev/null; wait; rm -rf "$res"' EXIT
trap 'exit 130' INT TERM
# Whole suites run alone too: e2e (real faults: load, namespaces, a network
# delay), install (make in the build tree), fuzz (a build of its own).
exclusive_test() { # suite cmd: must it run alone?
	local f=${2%% *}
	[ "$slots" -gt 1 ] || return 0
	case $1 in e2e | install | fuzz) return 0 ;; esac
	[ -f "$f" ] && head -n 20 "$f" 2>/dev/null | grep -aq '^# gd-test: exclusive'
}
# start I SUITE NAME T CMD: runs one test in the background; its output,
# status and time land in $res/I.*
start() {
	local i=$1 t=$4 cmd=$5
	(
		t0=${EPOCHREALTIME/./}
		# shellcheck disable=SC2086
		timeout --kill-after=10 "$t" $cmd >"$res/$i.out" 2>&1
		rc=$?
		echo $(((${EPOCHREALTIME/./} - t0) / 1000)) >"$res/$i.ms"
		echo "$rc" >"$res/$i.rc.tmp" && mv "$res/$i.rc.tmp" "$res/$i.rc"
	) &
}
# report I: the verdict of test I, once it has finished
cur=""
report() {
	local i=$1 suite name t cmd out rc ms took msg
	IFS=$'\t' read -r suite name t cmd <<<"${plan[$i]}"
	if [ "$suite" != "$cur" ]; then
		echo "== $suite"
		cur=$suite
	fi
	ran=$((ran + 1))
	if [ -e "$res/$i.pre" ]; then
		record_fail "$name" "$(cat "$res/$i.pre")"
		return
	fi
	out=$(cat "$res/$i.out")
	rc=$(cat "$res/$i.rc")
	ms=$(cat "$res/$i.ms")
	took="$((ms / 1000)).$((ms % 1000 / 100)) s"
	if [ "$rc" -eq 0 ] && [ "$name" = scenarios ]; then
		msg=$(check_count scenarios "$out" "$(ndirs tests/scenarios)") || rc=1 out="$out"$'\n'"$msg"
	elif [ "$rc" -eq 0 ] && [ "$name" = offline ]; then
		msg=$(check_count offline "$out" "$(ndirs tests/offline)") || rc=1 out="$out"$'\n'"$msg"
	fi
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
		echo "PASS  $name ($took)"
	elif [ "$rc" -eq 77 ] && ! $in_ci; then
		skip=$((skip + 1))
		echo "SKIP  $name: $(printf '%s\n' "$out" | tail -n 1)"
	elif [ "$rc" -eq 77 ]; then
		record_fail "$name" "$out"$'\n'"(skipped under CI=true: every prerequisite is installed by make deps, so a skip here hides a test)"
	else
		[ "$rc" -eq 124 ] && out="$out"$'\n'"(timed out after ${t}s)"
		record_fail "$name (exit $rc, $took)" "$out"
	fi
}
next=0 started=()
running_count() {
	local c=0 k
	for k in "${started[@]}"; do [ -e "$res/$k.rc" ] || c=$((c + 1)); done
	echo "$c"
}
# flush: reports every finished test in plan order, as far as it can
flush() {
	while [ "$next" -lt "${#plan[@]}" ] && { [ -e "$res/$next.rc" ] || [ -e "$res/$next.pre" ]; }; do
		report "$next"
		next=$((next + 1))
	done
}
# drain N: waits until at most N tests run
drain() {
	while [ "$(running_count)" -gt "$1" ]; do
		wait -n 2>/dev/null || sleep 0.2
	done
	flush
}
for i in "${!plan[@]}"; do
	IFS=$'\t' read -r suite name t cmd <<<"${plan[$i]}"
	bin=${cmd%% *}
	if [ ! -e "$bin" ]; then
		echo "$bin does not exist$([ "$suite" = unit ] && echo " (its source is there: the build did not make it; run make unit)")" >"$res/$i.pre"
		continue
	fi
	if [ ! -x "$bin" ]; then
		echo "$bin is not executable (chmod +x it: a test that is not run is not a pass)" >"$res/$i.pre"
		continue
	fi
	if exclusive_test "$suite" "$cmd"; then
		drain 0
		start "$i" "$suite" "$name" "$t" "$cmd"
		started+=("$i")
		drain 0
	else
		drain $((slots - 1))
		start "$i" "$suite" "$name" "$t" "$cmd"
		started+=("$i")
	fi
	flush
done
drain 0
flush

if [ $((pass + fail + skip)) -ne "$expected" ] || [ "$ran" -ne "$expected" ]; then
	record_fail runner "ran $ran of $expected expected tests ($pass passed, $fail failed, $skip skipped)"
fi
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "expected $expected tests: $pass passed, $fail failed, $skip skipped"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
