#!/bin/sh
# scripts/po.sh - the message catalogues (GNU gettext; issue 15).
#
#   scripts/po.sh pot               extracts every message of src/ (and of
#                                   deploy/prometheus/gen_alerts.py) into
#                                   po/gpudoctor.pot and merges it into
#                                   po/zh_CN.po (make pot; review the diff)
#   scripts/po.sh part NAME FILE... extracts the messages of FILEs into
#                                   po/parts/NAME.po, keeping the translations
#                                   it has (work in progress on one area; the
#                                   parts are folded into po/zh_CN.po)
#   scripts/po.sh fold              folds the parts into po/zh_CN.po (the
#                                   first translation of a message wins,
#                                   po/zh_CN.po's own first), keeps only the
#                                   messages the sources have, and removes them
#   scripts/po.sh mo OUT            compiles po/zh_CN.po (and any parts) into
#                                   OUT, msgfmt --check
#   scripts/po.sh check             fails, listing them, when a message of
#                                   src/ has no translation or a fuzzy one
set -eu
cd "$(dirname "$0")/.."
XGETTEXT="xgettext --language=C --from-code=UTF-8 --keyword=_ --keyword=N_ --keyword=P_:1,2
  --flag=_:1:pass-c-format --flag=N_:1:pass-c-format --flag=P_:1:pass-c-format --flag=P_:2:pass-c-format
  --flag=gd_cli_fail:1:c-format --flag=gd_finding_summary:2:c-format --flag=gd_finding_remedy:2:c-format
  --flag=gd_finding_add:4:c-format --flag=gd_rule_unknown:2:c-format --flag=gd_err_set:3:c-format
  --add-comments=TRANSLATORS: --package-name=gpudoctor --msgid-bugs-address=maintainers@users.noreply.a-seed-d2b29cb5.example --sort-by-file --no-wrap"
sources() { find src -name '*.c' -o -name '*.h' -o -name '*.def' | LC_ALL=C sort; }
# the generator of the Chinese alert rules translates its own texts (N_());
# scripts/ev_labels.py lists the labels of the evidence names (context
# "evidence"), which the text report looks up at run time
PY_SOURCES="deploy/prometheus/gen_alerts.py"
# extract OUT: every message of the sources, C and Python, into one .pot
extract() {
	# shellcheck disable=SC2046
	$XGETTEXT -o "$1" $(sources)
	xgettext --language=Python --from-code=UTF-8 -k -kN_ --no-wrap --sort-by-file \
		--package-name=gpudoctor -o "$1.py" $PY_SOURCES
	sed -i 's/charset=CHARSET/charset=UTF-8/' "$1" "$1.py"
	# shellcheck disable=SC2046
	python3 scripts/ev_labels.py $(sources) >"$1.ev"
	msgcat --use-first --no-wrap -o "$1" "$1" "$1.py" "$1.ev"
	rm -f "$1.py" "$1.ev"
	sed -i 's/charset=CHARSET/charset=UTF-8/' "$1"
}
catalogue() { # the whole catalogue on stdout: po/zh_CN.po, then the parts
	set -- po/zh_CN.po
	for p in po/parts/*.po; do [ -e "$p" ] && set -- "$@" "$p"; done
	if [ $# -eq 1 ]; then cat "$1"; else msgcat --use-first --no-wrap "$@"; fi
}
case ${1:-} in
pot)
	extract po/gpudoctor.pot
	msgmerge --quiet --update --backup=off --no-fuzzy-matching --no-wrap po/zh_CN.po po/gpudoctor.pot ;;
part)
	[ $# -ge 3 ] || { echo "usage: scripts/po.sh part NAME FILE..." >&2; exit 2; }
	name=$2; shift 2
	mkdir -p po/parts
	tmp=$(mktemp)
	$XGETTEXT -o "$tmp" "$@"
	sed -i 's/charset=CHARSET/charset=UTF-8/' "$tmp"
	if [ -e "po/parts/$name.po" ]; then
		msgmerge --quiet --update --backup=off --no-fuzzy-matching --no-wrap "po/parts/$name.po" "$tmp"
	else
		msginit --no-translator --no-wrap --locale=zh_CN.UTF-8 -i "$tmp" -o - 2>/dev/null |
			sed 's/charset=[A-Za-z0-9-]*/charset=UTF-8/; s/^"Plural-Forms: .*/"Plural-Forms: nplurals=1; plural=0;\\n"/; /^msgstr\[[1-9]\]/d' >"po/parts/$name.po"
	fi
	rm -f "$tmp"
	msgfmt --check --statistics -o /dev/null "po/parts/$name.po" ;;
fold)
	pot=$(mktemp) all=$(mktemp)
	trap 'rm -f "$pot" "$all"' EXIT
	extract "$pot"
	catalogue >"$all"
	msgmerge --quiet --no-fuzzy-matching --no-wrap "$all" "$pot" -o - |
		msgattrib --no-obsolete --no-wrap -o po/zh_CN.po -
	# the header is po/zh_CN.po's (msgcat writes every part's into it)
	msgfmt --check --statistics -o /dev/null po/zh_CN.po
	rm -f po/parts/*.po ;;
mo)
	[ $# -eq 2 ] || { echo "usage: scripts/po.sh mo OUT" >&2; exit 2; }
	mkdir -p "$(dirname "$2")"
	catalogue | msgfmt --check -o "$2" - ;;
check)
	pot=$(mktemp) all=$(mktemp)
	trap 'rm -f "$pot" "$all"' EXIT
	extract "$pot"
	catalogue >"$all"
	# what the sources say, with the catalogue's translations: nothing may
	# be left untranslated or fuzzy (obsolete entries do no harm)
	msgmerge --quiet --no-fuzzy-matching --no-wrap "$all" "$pot" -o "$all.merged"
	stats=$(msgfmt --check --statistics -o /dev/null "$all.merged" 2>&1)
	echo "$stats"
	missing=$(msgattrib --untranslated --no-obsolete --no-wrap "$all.merged" | grep -c '^msgid ' || true)
	fuzzy=$(msgattrib --only-fuzzy --no-obsolete --no-wrap "$all.merged" | grep -c '^msgid ' || true)
	if [ "$missing" -gt 0 ] || [ "$fuzzy" -gt 0 ]; then
		msgattrib --untranslated --no-obsolete --no-wrap "$all.merged" | grep -A1 '^#:' | head -n 60 >&2
		rm -f "$all.merged"
		echo "po: $missing message(s) without a translation, $fuzzy fuzzy (the header counts as one)" >&2
		exit 1
	fi
	rm -f "$all.merged" ;;
*)
	sed -n '2,16p' "$0" >&2
	exit 2 ;;
esac
