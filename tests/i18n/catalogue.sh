#!/bin/bash
# tests/i18n/catalogue.sh - the Chinese catalogue is complete and well formed:
# every message the sources mark has a translation that is not fuzzy, and
# msgfmt --check accepts it (format strings keep their conversions).  A new
# English message without a translation fails here, so the catalogue cannot
# rot.
set -eu
cd "$(dirname "$0")/../.."
command -v msgfmt >/dev/null || { echo "msgfmt missing: apt-get install gettext (make deps)"; exit 77; }
out=$(scripts/po.sh check 2>&1) || { echo "$out"; exit 1; }
echo "$out"
# a catalogue with no messages would pass the above: the sources must mark
# some (the lower bound only guards against the marks being lost)
n=$(echo "$out" | grep -o '^[0-9]* translated' | grep -o '^[0-9]*')
[ "${n:-0}" -ge 2 ] || { echo "only ${n:-0} messages in the catalogue"; exit 1; }
# the compiled catalogue in the build tree is the catalogue of the sources
mo=${BUILD:-build}/locale/zh_CN/LC_MESSAGES/gpudoctor.mo
[ -e "$mo" ] || { echo "$mo was not built (make all builds it)"; exit 1; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
scripts/po.sh mo "$tmp"
cmp -s "$tmp" "$mo" || { echo "$mo is not compiled from po/ as it is now (make all)"; exit 1; }
# the runtime sees it: --lang zh_CN answers in Chinese, --lang en in English
zh=$("${GPUDOCTOR:-build/gpudoctor}" --lang zh_CN check --lang 2>&1 || true)
en=$("${GPUDOCTOR:-build/gpudoctor}" --lang en check --lang 2>&1 || true)
case $zh in *需要*) ;; *) echo "--lang zh_CN did not answer in Chinese: $zh"; exit 1 ;; esac
case $en in *"needs a language"*) ;; *) echo "--lang en did not answer in English: $en"; exit 1 ;; esac
