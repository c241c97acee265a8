#!/bin/bash
# tests/i18n/scenarios_zh.sh - scenarios rendered in Chinese equal their
# expected reports (tests/i18n/expected/<scenario>.zh_CN.txt), and the same
# scenarios in English are the same whatever says English: no LANG, LANG=C,
# and LANGUAGE=en under LANG=zh_CN.UTF-8 give byte-identical reports (the
# English reports themselves are the scenario suite's golden files).
#
#   tests/i18n/scenarios_zh.sh            compare
#   UPDATE=1 tests/i18n/scenarios_zh.sh   rewrite the expected reports (never
#                                         under the suite runner or CI): review
#                                         the diff
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
GPUDOCTOR=${GPUDOCTOR:-$repo/${BUILD:-build}/gpudoctor}
export GPUDOCTOR
# the README's sample host (many findings), a healthy node,
# a thermal GPU, a lost GPU, a straggler, an input-bound job, a small /dev/shm
SCENARIOS="0100-readme-sample 0000-healthy 1101-gpu.thermal_throttle 1108-gpu.lost 1208-gpu.straggler 1209-cpu.input_bound 1008-mem.shm_small"
update=${UPDATE:-0}
if [ "$update" = 1 ] && { [ -n "${GD_SUITE_RUN:-}" ] || [ "${CI:-false}" = true ]; }; then
	echo "UPDATE=1 is refused in a test run: run tests/i18n/scenarios_zh.sh by hand and review the diff"
	exit 1
fi
for s in $SCENARIOS; do
	[ -d "$repo/tests/scenarios/$s" ] || { echo "scenario $s is gone: update SCENARIOS"; exit 1; }
done
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s in $SCENARIOS; do
	exp=$here/expected/$s.zh_CN.txt
	LANG=zh_CN.UTF-8 "$repo/tests/scenarios/run.sh" --text "$s" >"$tmp/zh" 2>"$tmp/err" ||
		{ echo "FAIL $s: the zh_CN report did not render"; cat "$tmp/err"; fail=1; continue; }
	LANG=C "$repo/tests/scenarios/run.sh" --text "$s" >"$tmp/c" 2>/dev/null
	env -u LANG -u LC_ALL -u LC_MESSAGES -u LANGUAGE "$repo/tests/scenarios/run.sh" --text "$s" >"$tmp/none" 2>/dev/null
	LANG=zh_CN.UTF-8 LANGUAGE=en "$repo/tests/scenarios/run.sh" --text "$s" >"$tmp/en" 2>/dev/null
	if ! cmp -s "$tmp/c" "$tmp/none"; then
		echo "FAIL $s: LANG=C changes the English report"
		diff "$tmp/none" "$tmp/c" | head -n 20
		fail=1
	fi
	if ! cmp -s "$tmp/en" "$tmp/none"; then
		echo "FAIL $s: LANGUAGE=en under LANG=zh_CN.UTF-8 is not the English report"
		diff "$tmp/none" "$tmp/en" | head -n 20
		fail=1
	fi
	if ! grep -qP '[\x{4e00}-\x{9fff}]' "$tmp/zh"; then
		echo "FAIL $s: the zh_CN report has no Chinese"
		fail=1
	fi
	if [ "$update" = 1 ]; then
		cp "$tmp/zh" "$exp"
		continue
	fi
	if [ ! -e "$exp" ]; then
		echo "FAIL $s: no expected report $exp (UPDATE=1 tests/i18n/scenarios_zh.sh, then review it)"
		fail=1
	elif ! diff -u "$exp" "$tmp/zh" >"$tmp/diff"; then
		echo "FAIL $s: the zh_CN report differs from $exp"
		head -n 40 "$tmp/diff"
		fail=1
	else
		echo "ok   $s ($(wc -l <"$exp") lines)"
	fi
done
[ "$update" = 1 ] && (cd "$repo" && git status --short tests/i18n/expected)
exit $fail
