#!/bin/bash
# scripts/deb.sh OUTDIR COMMIT - `make deb`: dpkg-buildpackage -b -us -uc on a
# copy of this tree, the results (.deb, .buildinfo, .changes) in OUTDIR.
#
# dpkg-buildpackage writes into the parent of the source directory, so it
# runs in OUTDIR/src/gpudoctor: the tracked and new (not ignored) files as
# they are now, or, without git, every file but the build trees and .git.
# The copy has no .git, so COMMIT (what the Makefile computed here) is
# passed on to its build as GD_COMMIT.  SOURCE_DATE_EPOCH is the date of
# debian/changelog (dpkg-buildpackage sets it), which makes two builds of
# one tree byte-identical (tests/package/run.sh checks it).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/deb.sh OUTDIR [COMMIT]}
commit=${2:-}
command -v dpkg-buildpackage >/dev/null ||
	{ echo "make deb: dpkg-buildpackage is missing: run  make deps  (as root)" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/src"
mkdir -p "$out/src/gpudoctor"
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$PWD" ]; then
	git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf - | tar -xf - -C "$out/src/gpudoctor"
else
	tar --exclude='./build*' --exclude=./.git --exclude=./debian/.debhelper -cf - . | tar -xf - -C "$out/src/gpudoctor"
fi
(cd "$out/src/gpudoctor" && GD_COMMIT=$commit dpkg-buildpackage -b -us -uc -Jauto)
rm -f "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes
mv "$out"/src/*.deb "$out"/src/*.buildinfo "$out"/src/*.changes "$out"/
rm -rf "$out/src"
ls -l "$out"/*.deb
