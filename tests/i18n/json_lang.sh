#!/bin/bash
# tests/i18n/json_lang.sh - JSON does not change with the user's locale:
# under LANG=zh_CN.UTF-8, check --json is the English document byte for byte;
# with --lang zh_CN the summaries, remedies and reasons are Chinese while the
# keys, rule ids, severities, subjects, evidence names and units, and the exit
# status are those of the English document.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
g=${GPUDOCTOR:-$repo/${BUILD:-build}/gpudoctor}
command -v jq >/dev/null || { echo "jq missing (make deps)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a power-braking H100's nvidia-smi -q: several findings with remedies
in=$repo/tests/offline/0006-h100-r570-power-brake
[ -d "$in" ] || { echo "fixture $in is gone"; exit 1; }
from=()
for f in "$in"/*; do [ "$(basename "$f")" = expected.txt ] || from+=(--from "$f"); done
rc_en=0 rc_loc=0 rc_zh=0
LANG=C "$g" check --json "${from[@]}" >"$tmp/en.json" || rc_en=$?
LANG=zh_CN.UTF-8 "$g" check --json "${from[@]}" >"$tmp/loc.json" || rc_loc=$?
LANG=C "$g" --lang zh_CN check --json "${from[@]}" >"$tmp/zh.json" || rc_zh=$?
[ "$rc_en" = "$rc_loc" ] && [ "$rc_en" = "$rc_zh" ] || { echo "exit statuses differ: $rc_en $rc_loc $rc_zh"; exit 1; }
[ "$rc_en" -le 2 ] || { echo "check failed (exit $rc_en)"; exit 1; }
cmp -s "$tmp/en.json" "$tmp/loc.json" || { echo "--json under LANG=zh_CN.UTF-8 is not the English document"; diff "$tmp/en.json" "$tmp/loc.json" | head; exit 1; }
n=$(jq '.findings | length' "$tmp/en.json")
[ "$n" -ge 1 ] || { echo "the fixture has no findings: pick another"; exit 1; }
# the skeleton: everything but the human text
skel='del(.. | .summary?, .remedy?, .reason?)'
diff <(jq -S "$skel" "$tmp/en.json") <(jq -S "$skel" "$tmp/zh.json") >"$tmp/d" ||
	{ echo "--lang zh_CN changed more than the human text:"; head -n 30 "$tmp/d"; exit 1; }
# the human text is Chinese: every finding's summary and remedy
jq -r '.findings[] | .summary, .remedy' "$tmp/zh.json" >"$tmp/text"
lines=$(wc -l <"$tmp/text")
cjk=$(grep -cP '[\x{4e00}-\x{9fff}]' "$tmp/text" || true)
[ "$cjk" = "$lines" ] || { echo "only $cjk of $lines summaries and remedies are Chinese:"; grep -vP '[\x{4e00}-\x{9fff}]' "$tmp/text" | head; exit 1; }
echo "ok: $n findings, English keys and ids, $cjk Chinese summaries and remedies"
