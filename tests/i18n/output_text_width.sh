#!/bin/bash
# tests/i18n/output_text_width.sh - the text reports in Chinese, laid out by
# display width: `check` of the README's sample host (the fixture
# tests/scenarios/0100-readme-sample: three findings and a long account)
# under LANG=zh_CN.UTF-8, and `report --text` of a recorded series
# (tests/timeline/lib.sh: episodes, a periodic cause) with --lang zh_CN.
# output_width.py checks each: valid UTF-8, every line at most 80 display
# columns (a Chinese character takes two), the finding rows' columns at the
# same display columns as in English, Chinese text (严重/警告/提示, the
# verdict).  Under LANG=C the same report has no Chinese in it.
. "$(dirname "$0")/../timeline/lib.sh"
need jq python3
export GPUDOCTOR
work=$(mktemp -d "${TMPDIR:-/tmp}/gd-i18n-text.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
check_width() { python3 "$repo/tests/i18n/output_width.py" report "$1" || die "$2:"$'\n'"$(cat "$1")"; }

LANG=zh_CN.UTF-8 "$repo/tests/scenarios/run.sh" --text 0100-readme-sample >"$work/check.txt" 2>"$work/err" ||
	die "check of 0100-readme-sample in zh_CN: $(head -c 500 "$work/err")"
check_width "$work/check.txt" "check under LANG=zh_CN.UTF-8"
grep -q '^已检查：' "$work/check.txt" || die "no 已检查 account line"
grep -q '^未评估（' "$work/check.txt" || die "no 未评估 block"

LANG=C "$repo/tests/scenarios/run.sh" --text 0100-readme-sample >"$work/check-C.txt" 2>"$work/err" ||
	die "check of 0100-readme-sample under LANG=C: $(head -c 500 "$work/err")"
LC_ALL=C grep -q $'[\xe4-\xe9]' "$work/check-C.txt" && die "Chinese under LANG=C:"$'\n'"$(cat "$work/check-C.txt")"
grep -q '^WARNING   mem.shm_small                  /dev/shm' "$work/check-C.txt" ||
	die "the English report lost its columns:"$'\n'"$(head -5 "$work/check-C.txt")"

make_series "$work/series.jsonl"
LANG=C NO_COLOR=1 "$GPUDOCTOR" --lang zh_CN report --text "$work/series.jsonl" >"$work/report.txt" 2>"$work/err" ||
	die "report --text --lang zh_CN: $(head -c 500 "$work/err")"
check_width "$work/report.txt" "report --text --lang zh_CN"
grep -q '^gpudoctor 报告 · 主机 ' "$work/report.txt" || die "report --text does not open in Chinese: $(head -1 "$work/report.txt")"
grep -q '^卡顿时段：' "$work/report.txt" || die "no 卡顿时段 line in report --text"
echo "ok: check (LANG=zh_CN.UTF-8) and report --text (--lang zh_CN) in Chinese, within 80 display columns," \
	"columns aligned by display width; English under LANG=C"
