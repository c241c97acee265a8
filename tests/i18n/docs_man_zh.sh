#!/bin/bash
# tests/i18n/docs_man_zh.sh - the Chinese man page, docs/gpudoctor.zh_CN.1:
# groff and man render it without one warning (as man does, through preconv:
# the page is UTF-8, which troff alone reads as Latin-1), it is Chinese, and
# it documents every option the English page documents (the sets of --option
# tokens); an option only the Chinese page has must be one the binary knows.
set -u
cd "$(dirname "$0")/../.." || exit 1
G=${GPUDOCTOR:-${BUILD:-build}/gpudoctor}
EN=docs/gpudoctor.1
ZH=docs/gpudoctor.zh_CN.1
for t in groff preconv man; do
	command -v $t >/dev/null || { echo "SKIP: $t missing (apt-get install groff-base man-db)"; exit 77; }
done
[ -x "$G" ] || { echo "FAIL: no binary at $G (make all first)"; exit 1; }
[ -f "$ZH" ] || { echo "FAIL: no $ZH"; exit 1; }
bad=0
fail() { echo "FAIL: $*"; bad=1; }

# no warning from groff (-ww: all of them) nor from man at 80 columns
w=$(groff -k -man -Tutf8 -ww -z "$ZH" 2>&1)
[ -z "$w" ] || fail "groff -k -man -Tutf8 -ww -z $ZH warns:"$'\n'"$w"
out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$ZH" 2>"${TMPDIR:-/tmp}/gd-man-zh.$$")
w=$(cat "${TMPDIR:-/tmp}/gd-man-zh.$$"); rm -f "${TMPDIR:-/tmp}/gd-man-zh.$$"
[ -z "$w" ] || fail "man --warnings -l $ZH warns:"$'\n'"$w"

# Chinese: its sections and plenty of CJK characters in what man prints
for s in 名称 概述 描述 命令 选项 退出状态 环境变量 文件 示例; do
	grep -qx "$s" <<<"$out" || fail "the rendered page has no section $s"
done
n=$(grep -oP '\p{Han}' <<<"$out" | wc -l)
[ "$n" -ge 3000 ] || fail "only $n CJK characters in the rendered page"
# no line wider than 80 columns (a CJK character takes two)
wide=$(python3 -c '
import sys, unicodedata
for l in sys.stdin.read().split("\n"):
    if sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in l) > 80:
        print(l)' <<<"$out")
[ -z "$wide" ] || fail "lines wider than 80 columns:"$'\n'"$wide"

# the options: every --option of the English page is in the Chinese one
opts() { sed 's/\\-/-/g' "$1" | grep -oE -- '--[a-z][a-z0-9]*(-[a-z0-9]+)*' | sort -u; }
missing=$(comm -23 <(opts "$EN") <(opts "$ZH"))
[ -z "$missing" ] || fail "options of $EN that $ZH does not document: $(tr "\n" " " <<<"$missing")"
# and one that only the Chinese page names is an option of the binary (in a
# --help, or not refused as unknown), not a typo
helps=$(for c in "" check snapshot watch record report serve rules fields config xid fleet probe; do
	"$G" $c --help 2>&1; done)
for o in $(comm -13 <(opts "$EN") <(opts "$ZH")); do
	grep -qF -- "$o" <<<"$helps" && continue
	e=$(LC_ALL=C LANG=C LANGUAGE='' timeout 20 "$G" "$o" help 2>&1 </dev/null)
	case $e in *"unknown option"*) fail "$ZH documents $o, which gpudoctor does not know: $e" ;; esac
done
[ $bad -eq 0 ] || exit 1
echo "ok: $ZH renders without warnings, $n CJK characters, $(opts "$EN" | wc -l) options of $EN documented"
