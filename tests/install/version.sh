#!/bin/bash
# tests/install/version.sh - gpudoctor --version says what it is: the
# version the package and the man page carry, the commit it was built from
# (and "unknown" for a tree without .git, built here from a copy), and for
# each optional library where the dynamic loader finds it now, as ldconfig
# says independently, or that it is not found.
. "$(dirname "$0")/lib.sh"
out=$("$G" --version) || die "--version failed"
[ "$("$G" version)" = "$out" ] || die "gpudoctor version and --version differ"
v=$(sed -n 's/^gpudoctor \([0-9][0-9.]*\)$/\1/p' <<<"$out" | head -n 1)
[ -n "$v" ] || die "no 'gpudoctor VERSION' first line: $out"
deb=$(sed -n '1s/^gpudoctor (\([^)-]*\).*/\1/p' debian/changelog)
[ "$v" = "$deb" ] || die "--version says $v, debian/changelog $deb"
grep -q "^\.TH GPUDOCTOR 1 .*\"gpudoctor $v\"" docs/gpudoctor.1 || die "docs/gpudoctor.1 is not for $v"

# the commit: HEAD's (the tree may have changed since, so only the hash)
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$PWD" ] && [ -z "${GD_COMMIT+set}" ]; then
	head=$(git rev-parse --short=12 HEAD)
	grep -q "^commit: $head\(-dirty\)\? (built from git)$" <<<"$out" ||
		die "the commit line is not HEAD ($head): $(grep '^commit' <<<"$out") (rebuild: make all)"
fi

# each library: what ldconfig's cache resolves its soname to, or not found
lib_line() { awk -v n="$1" '$1 == n' <<<"$2"; }
for l in "libcuda libcuda.so.1" "libxml2 libxml2.so.2" "ncursesw libncursesw.so.6" "libcurl libcurl.so.4"; do
	set -- $l
	line=$(lib_line "$1" "$out")
	[ -n "$line" ] || die "no line for $1: $out"
	p=$(ldconfig -p | awk -v s="$2" '$1 == s && /x86-64|x32|AArch64|64bit/ {print $NF; exit}')
	[ -z "$p" ] && p=$(ldconfig -p | awk -v s="$2" '$1 == s {print $NF; exit}')
	if [ -n "$p" ]; then
		want="$1 $2 $(readlink -f "$p")"
		[ "$(awk '{print $1, $2, $3}' <<<"$line")" = "$want" ] || die "$1: want '$want', got '$line'"
	else
		grep -q "^ *$1 *$2 *not found (" <<<"$line" || die "$1 is not installed, but: $line"
	fi
done
# NVML as the collectors load it: GPUDOCTOR_NVML, --nvml, else not found here
fake=$PWD/$BUILD/fake_nvml/libnvidia-ml.so.1
[ -e "$fake" ] || die "no fake NVML at $fake (make unit)"
line=$(GPUDOCTOR_NVML=$fake "$G" --version | awk '$1 == "NVML"')
[ "$line" = "  NVML      $fake $fake" ] || die "GPUDOCTOR_NVML=$fake: $line"
line=$("$G" --nvml "$fake" --version | awk '$1 == "NVML"')
[ "$line" = "  NVML      $fake $fake" ] || die "--nvml $fake: $line"
line=$(GPUDOCTOR_NVML=$TMP/none.so "$G" --version | awk '$1 == "NVML"')
grep -q "not found ($TMP/none.so: cannot open" <<<"$line" || die "a missing NVML: $line"

# a tree without .git (a tarball): a copy of this one, with this build's
# objects, so that only version.o is rebuilt
mkdir -p "$TMP/src"
if [ -d .git ] || [ -f .git ]; then
	git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
		[ -e "$f" ] && printf '%s\0' "$f"; done | tar --null -T - -cf - | tar -xf - -C "$TMP/src"
else
	tar --exclude='./build*' -cf - . | tar -xf - -C "$TMP/src"
fi
mkdir -p "$TMP/src/build" && cp -a "$BUILD/obj" "$BUILD/libgd.a" "$TMP/src/build/"
(cd "$TMP/src" && env -u GD_COMMIT make -s BUILD=build build/gpudoctor >"$TMP/make.log" 2>&1) ||
	die "building the copy without .git: $(tail -n 20 "$TMP/make.log")"
grep -qx '#define GD_COMMIT ""' "$TMP/src/build/gen/commit.h" || die "commit.h without git: $(cat "$TMP/src/build/gen/commit.h")"
got=$("$TMP/src/build/gpudoctor" --version | sed -n 2p)
[ "$got" = "commit: unknown (built from a tree without .git, e.g. a release tarball)" ] || die "without .git: $got"
echo "ok: $(head -n 2 <<<"$out" | tr '\n' ' ')"
