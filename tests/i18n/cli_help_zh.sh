#!/bin/bash
# tests/i18n/cli_help_zh.sh - the command line speaks Chinese: for every
# command `gpudoctor help` lists, its --help under --lang zh_CN is Chinese,
# names the same options (--foo) as the English one, and has no line wider
# than 80 terminal columns (a CJK character takes two: python3's
# unicodedata.east_asian_width); LANG=zh_CN.UTF-8 says the same as
# --lang zh_CN, and `help CMD` the same as `CMD --help`.  An error (an
# unknown option) is Chinese under --lang zh_CN, English under --lang en and
# LANG=C; and LANG=C changes nothing: its output is byte for byte the output
# with no locale variable at all.
set -u
cd "$(dirname "$0")/../.."
G=${GPUDOCTOR:-${BUILD:-build}/gpudoctor}
[ -x "$G" ] || { echo "no binary at $G (make all)"; exit 1; }
command -v python3 >/dev/null || { echo "python3 missing: it measures the display width"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
bad=0
fail() { echo "FAIL: $*"; bad=1; }

# run ENV... -- ARGS...: the binary with no locale variable but those given
run() {
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env -u LC_ALL -u LC_MESSAGES -u LANG -u LANGUAGE -u LC_CTYPE "${envs[@]}" "$G" "$@" 2>&1
}
opts() { grep -o -- '--[a-z][a-z-]*' | LC_ALL=C sort -u; }
has_cjk() { grep -qP '[\x{4e00}-\x{9fff}]'; }
too_wide() { # prints the lines of stdin wider than 80 columns
	python3 -c '
import sys, unicodedata
for n, line in enumerate(sys.stdin.read().split("\n"), 1):
    w = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
    if w > 80:
        print("line %d, %d columns: %s" % (n, w, line))'
}

cmds=$(run -- help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z]*\).*/\1/p')
[ "$(echo "$cmds" | wc -w)" -ge 10 ] || { echo "gpudoctor help lists too few commands: $cmds"; exit 1; }
n=0
for c in $cmds npd; do
	# the text a command answers --help with; help's is the main text, and
	# version has none: its output is what it says
	case $c in
	help) args=(help) ;;
	version) args=(version) ;;
	npd) args=(check --npd gpu-unhealthy --help) ;;
	*) args=("$c" --help) ;;
	esac
	en=$(run -- --lang en "${args[@]}")
	zh=$(run -- --lang zh_CN "${args[@]}")
	none=$(run -- "${args[@]}")
	[ "$(run LANG=C -- "${args[@]}")" = "$none" ] || fail "${args[*]}: LANG=C differs from no locale at all"
	[ "$en" = "$none" ] || fail "${args[*]}: --lang en differs from no locale at all"
	[ "$(run LANG=zh_CN.UTF-8 -- "${args[@]}")" = "$zh" ] || fail "${args[*]}: LANG=zh_CN.UTF-8 differs from --lang zh_CN"
	has_cjk <<<"$zh" || fail "${args[*]} under --lang zh_CN is not Chinese: $(head -n 2 <<<"$zh")"
	! has_cjk <<<"$en" || fail "${args[*]} under --lang en has Chinese in it"
	if [ "$(opts <<<"$zh")" != "$(opts <<<"$en")" ]; then
		fail "${args[*]}: the Chinese text names other options than the English one:" \
			"$(diff <(opts <<<"$en") <(opts <<<"$zh") | grep '^[<>]' | tr '\n' ' ')"
	fi
	# (version's lines carry the dynamic loader's messages and paths)
	wide=$([ "$c" = version ] || too_wide <<<"$zh")
	[ -z "$wide" ] || fail "${args[*]} under --lang zh_CN is wider than 80 columns: $wide"
	case $c in
	help | version | npd) ;;
	*)
		[ "$(run -- --lang zh_CN help "$c")" = "$zh" ] || fail "zh_CN: gpudoctor help $c is not $c --help"
		# an unknown option: Chinese, English, and LANG=C as no locale
		ezh=$(run -- --lang zh_CN "$c" --no-such-option)
		een=$(run -- --lang en "$c" --no-such-option)
		ec=$(run LANG=C -- "$c" --no-such-option)
		enone=$(run -- "$c" --no-such-option)
		has_cjk <<<"$ezh" || fail "$c --no-such-option under --lang zh_CN is not Chinese: $ezh"
		grep -q 'no-such-option' <<<"$ezh" || fail "$c --no-such-option under --lang zh_CN does not name it: $ezh"
		for e in "$een" "$ec"; do
			grep -qi 'unknown option\|unrecognized option' <<<"$e" && ! has_cjk <<<"$e" ||
				fail "$c --no-such-option is not English under --lang en or LANG=C: $e"
		done
		[ "$ec" = "$enone" ] || fail "$c --no-such-option: LANG=C differs from no locale at all"
		;;
	esac
	n=$((n + 1))
done
# an error the option parser of every command shares, in the npd mode too
e=$(run -- --lang zh_CN check --npd gpu-unhealthy --no-such-option)
has_cjk <<<"$e" || fail "check --npd --no-such-option under --lang zh_CN is not Chinese: $e"
[ $bad = 0 ] && echo "ok: $n help texts in Chinese, within 80 columns, with the English options; errors in both languages"
exit $bad
