#!/bin/sh
# scripts/build-deps-check.sh CC [CFLAGS...] - can CC compile gpudoctor here?
# Prints nothing when it can; otherwise one line naming the Debian packages
# that are missing and `make deps` (the Makefile stops with that line, before
# the compiler gets to say "jansson.h: No such file").  The check compiles
# the headers the build includes, so it holds wherever they come from.
# Header and package pairs: what a plain `make` (not the tests) needs.
PAIRS="jansson.h:libjansson-dev cjson/cJSON.h:libcjson-dev ini.h:libinih-dev zlib.h:zlib1g-dev libxml/parser.h:libxml2-dev curses.h:libncurses-dev"
cc=${1:-cc}
[ $# -gt 0 ] && shift
# CC may be "ccache gcc" or "gcc -m64": its first word must be a program
# shellcheck disable=SC2086
set -- $cc "$@"
if ! command -v "$1" >/dev/null 2>&1; then
	echo "gpudoctor: no C compiler ($1): run  make deps  (as root) or  apt-get install gcc make pkg-config"
	exit 0
fi
all=""
for p in $PAIRS; do all="$all#include <${p%%:*}>
"; done
missing=""
printf '%s' "$all" | "$@" -E -x c - -o /dev/null 2>/dev/null && { command -v msgfmt >/dev/null 2>&1 || echo "gpudoctor: missing build packages: gettext; run  make deps  (as root) or  apt-get install gettext"; exit 0; }
for p in $PAIRS; do
	printf '#include <%s>\n' "${p%%:*}" | "$@" -E -x c - -o /dev/null 2>/dev/null || missing="$missing ${p#*:}"
done
# the message catalogues are compiled by gettext's msgfmt
command -v msgfmt >/dev/null 2>&1 || missing="$missing gettext"
# the headers are there one by one, but not together: let the compiler say why
[ -n "$missing" ] || exit 0
echo "gpudoctor: missing build packages:$missing; run  make deps  (as root) or  apt-get install$missing"
