#!/bin/bash
# tests/install/build_deps.sh - a plain `make` on a machine without a build
# package stops before compiling anything, with one line that names the
# Debian packages and `make deps` (not the compiler's "jansson.h: No such
# file").  Headers are hidden for real: a directory searched first holds a
# jansson.h (and then an ini.h and a zlib.h) that fails to compile, as the
# missing header does.
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/hide"
try() { # the make of a fresh build tree, with the headers in hide/ broken
	make --no-print-directory BUILD="$TMP/b" CC="${CC:-cc} -I$TMP/hide" "$@" >"$TMP/out" 2>"$TMP/err"
}
echo '#error hidden by tests/install/build_deps.sh' >"$TMP/hide/jansson.h"
try && die "make succeeded without jansson.h"
[ "$(wc -l <"$TMP/err")" = 1 ] || die "want one line on stderr, got: $(cat "$TMP/err")"
grep -q 'missing build packages: libjansson-dev; run  make deps ' "$TMP/err" || die "the line: $(cat "$TMP/err")"
[ ! -e "$TMP/b/obj" ] || die "make compiled something before stopping"
[ ! -s "$TMP/out" ] || die "make printed on stdout: $(cat "$TMP/out")"
cp "$TMP/hide/jansson.h" "$TMP/hide/ini.h" && cp "$TMP/hide/jansson.h" "$TMP/hide/zlib.h"
try install DESTDIR="$TMP/root" && die "make install succeeded without the headers"
grep -q 'missing build packages: libjansson-dev libinih-dev zlib1g-dev; run  make deps .*apt-get install libjansson-dev libinih-dev zlib1g-dev' \
	"$TMP/err" || die "three missing: $(cat "$TMP/err")"
line=$(cat "$TMP/err")
# what installs them first is not stopped by the check
try -n deps >/dev/null || die "make -n deps was stopped: $(cat "$TMP/err")"
echo "ok: $line"
