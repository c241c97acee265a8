#!/bin/bash
# tests/install/sanitizer_flags.sh - a sanitizer build with plain flags
# (make CFLAGS='-O1 -g -fsanitize=address,undefined', no
# -fno-sanitize-recover) compiles: GCC 12 stopped on "null format string"
# (-Werror=format-overflow) for fprintf(f, _("...")) in the files below, a
# false positive of UBSan's recoverable nonnull check (the Makefile's
# SAN_WARN).  Only those objects are built (a few seconds), into a tree of
# its own; the plain build keeps the warning on (checked with make -n).
. "$(dirname "$0")/lib.sh"
objs=()
for f in src/fleet/fleet_out.c src/output/out_html.c src/output/html_chart.c src/output/out_text.c; do
	objs+=("$TMP/b/obj/${f%.c}.o")
done
make --no-print-directory BUILD="$TMP/b" CFLAGS='-O1 -g -fsanitize=address,undefined' "${objs[@]}" \
	>"$TMP/out" 2>&1 || die "the sanitizer build with plain flags stops: $(grep -m 3 error "$TMP/out")"
for o in "${objs[@]}"; do
	[ -s "$o" ] || die "$o was not built"
done
make --no-print-directory -n BUILD="$TMP/p" "$TMP/p/obj/src/fleet/fleet_out.o" | grep -q -- '-Wno-format-overflow' &&
	die "the plain build turns -Wformat-overflow off"
echo "ok: ${#objs[@]} objects built with CFLAGS='-O1 -g -fsanitize=address,undefined'"
