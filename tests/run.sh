#!/bin/bash
# tests/run.sh - runs every suite, each test in its own process with a
# time-out, and ends with one summary line: "N passed, N failed, N skipped".
#
# Suites (GD_SUITES, default all): unit (cmocka binaries), docs (the docs
# match the binary), scenarios (fixture
# trees through the real binary), offline (captured nvidia-smi, kernel-log,
# lspci and bug-report evidence through check --from), timeline (watch in
# tmux, record, report in headless chromium, episodes from a fake-NVML
# series), e2e (real faults on this machine), exporter (gpudoctor serve:
# promtool, a real Prometheus, bad requests), fuzz (a short run of each fuzz
# harness).  A test exits 0 to pass, 77 to skip
# (it prints why), anything else fails.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD GPUDOCTOR="$PWD/$BUILD/gpudoctor"
SUITES=${GD_SUITES:-unit docs scenarios offline timeline e2e exporter fuzz}
pass=0 fail=0 skip=0 failed=()

run_one() { # name timeout command...
	local name=$1 t=$2 rc out
	shift 2
	out=$(timeout --kill-after=10 "$t" "$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
		echo "PASS  $name"
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1))
		echo "SKIP  $name: $(printf '%s\n' "$out" | tail -n 1)"
	else
		fail=$((fail + 1))
		failed+=("$name")
		[ $rc -eq 124 ] && out="$out"$'\n'"(timed out after ${t}s)"
		echo "FAIL  $name (exit $rc)"
		printf '%s\n' "$out" | tail -n 60 | sed 's/^/      /'
	fi
}

for suite in $SUITES; do
	echo "== $suite"
	case $suite in
	unit)
		for t in "$BUILD"/tests/test_*; do
			[ -x "$t" ] && run_one "unit/$(basename "$t")" 300 "$t"
		done
		run_one unit/xid_cli 120 tests/xid_cli.sh ;;
	docs)
		run_one docs 60 tests/docs.sh ;;
	scenarios)
		run_one scenarios 600 tests/scenarios/run.sh ;;
	timeline)
		for t in tests/timeline/*.sh; do
			[ -x "$t" ] && run_one "timeline/$(basename "$t" .sh)" 300 "$t"
		done ;;
	offline)
		run_one offline 300 tests/offline/run.sh ;;
	e2e)
		for t in tests/e2e/*.sh; do
			[ -x "$t" ] && run_one "e2e/$(basename "$t" .sh)" 300 "$t"
		done ;;
	exporter)
		for t in tests/exporter/*.sh; do
			[ -x "$t" ] && run_one "exporter/$(basename "$t" .sh)" 180 "$t"
		done ;;
	fuzz)
		[ -x tests/fuzz/run.sh ] && run_one fuzz 600 tests/fuzz/run.sh "${FUZZ_SECONDS:-5}" ;;
	esac
done

[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
