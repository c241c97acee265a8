#!/bin/bash
# tests/install/completion.sh - the bash completion (scripts/completion/
# gpudoctor) completes what the binary has: the commands of `gpudoctor help`,
# for each command the options its help lists (and only options it accepts),
# rule.key= for --set from `gpudoctor rules`, file names for --from and
# report, command names after help.  Driven through bash-completion itself
# (_init_completion), as an interactive shell would.
. "$(dirname "$0")/lib.sh"
BC=/usr/share/bash-completion/bash_completion
[ -r $BC ] || skip "bash-completion is not installed (scripts/deps.sh installs bash-completion)"
mkdir -p "$TMP/bin" "$TMP/files"
ln -s "$G" "$TMP/bin/gpudoctor"
touch "$TMP/files/node.jsonl" "$TMP/files/dmesg.txt"

# comp LINE: prints the completions of LINE (completing its last word; a
# LINE ending in a space completes an empty word), one per line, sorted
comp() {
	PATH="$TMP/bin:$PATH" bash --norc --noprofile -c '
		. '"$BC"' 2>/dev/null; . scripts/completion/gpudoctor
		line=$1
		read -r -a COMP_WORDS <<<"$line"
		[ "${line: -1}" = " " ] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) COMP_LINE=$line COMP_POINT=${#line}
		cd "$2" && _gpudoctor gpudoctor "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}"' _ "$1" "${2:-$PWD}" | grep . | sort -u
}
# the long options in the option table of a help text (lines that start
# with an option), not those named in its prose
help_opts() { "$G" help $1 | grep -E '^ +(-[a-zA-Z], )?--' | grep -o -- '--[a-z][a-z-]*' | sort -u; }

want=$("$G" help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z]*\).*/\1/p' | sort -u)
got=$(comp "gpudoctor ")
[ "$want" = "$got" ] || die "commands: gpudoctor help lists $(echo $want), the completion gives $(echo $got)"
[ "$(comp "gpudoctor se")" = serve ] || die "gpudoctor se<TAB> gave '$(comp "gpudoctor se")'"
[ "$(comp "gpudoctor help wa")" = watch ] || die "help wa<TAB>"

global=$(help_opts "")
for c in check snapshot watch record report serve probe rules fields config xid; do
	got=$(comp "gpudoctor $c --")
	missing=$(comm -23 <(help_opts $c) <(echo "$got"))
	[ -z "$missing" ] || die "$c: gpudoctor help $c lists $(echo $missing), the completion does not"
	# each one offered is documented, and accepted by the command
	for o in $got; do
		if [ "$c" != xid ]; then
			echo "$global"$'\n'"$(help_opts $c)" | grep -qx -- "$o" || die "$c: the completion offers $o, which no help lists"
		fi
		# X: the value of an option that takes one, else an argument that
		# getopt puts last; --help then stops before the command runs
		err=$(cd "$TMP/files" && timeout 10 "$G" $c $o X --help 2>&1 >/dev/null)
		case $err in *"does not apply"* | *"unknown option"*) die "$c: the completion offers $o: $err" ;; esac
	done
done
[ -n "$(comp "gpudoctor xid --")" ] || die "xid offers no options"
# no command yet: check (the default) and --version
got=$(comp "gpudoctor --")
[ -z "$(comm -23 <(help_opts check) <(echo "$got"))" ] && grep -qx -- --version <<<"$got" ||
	die "gpudoctor --<TAB> does not offer check's options and --version: $got"

# --set: every RULE.KEY= of gpudoctor rules, filtered by the word
want=$("$G" rules | sed -n 's/^ *--set \([^=]*=\).*/\1/p' | sort -u)
[ "$(comp "gpudoctor check --set ")" = "$want" ] || die "--set does not complete every rule.key of gpudoctor rules"
got=$(comp "gpudoctor check --set mem.shm")
[ "$got" = "mem.shm_small.min_bytes="$'\n'"mem.shm_small.used_pct=" ] || die "--set mem.shm<TAB> gave: $got"
# files
got=$(comp "gpudoctor check --from " "$TMP/files")
[ "$got" = "dmesg.txt"$'\n'"node.jsonl" ] || die "--from <TAB> gave: $got"
[ "$(comp "gpudoctor report no" "$TMP/files")" = node.jsonl ] || die "report no<TAB>"
[ "$(comp "gpudoctor check --window 50")" = "500ms" ] || die "--window 50<TAB>"
echo "ok: commands, options of $(echo check snapshot watch record report serve probe rules fields config xid | wc -w) commands, --set ($(echo "$want" | wc -l) keys), files"
