#!/bin/bash
# tests/fuzz/run.sh [SECONDS] - builds the libFuzzer harness fuzz_parsers
# (clang, ASan + UBSan + libFuzzer) and fuzzes every parser for SECONDS
# (default 5; `make fuzz` gives 60).  Exits 0 when nothing crashed, 1 on a
# crash, a leak or a sanitizer report (the target, the input as hex and the
# stack are printed), 77 when clang or libFuzzer's runtime is missing.
#
# All of src/ except main.c is compiled with the fuzzer flags into
# $FUZZ_BUILD (default build-fuzz) through the Makefile's own rules.  The
# seeds in tests/fuzz/corpus/ start each run; inputs the fuzzer finds
# interesting go to $FUZZ_BUILD/corpus/ and are kept for the next run.  If
# the seeds were made for another list of parsers (tests/fuzz/corpus/INDEX
# differs from the fuzzer's list), they are remade from this machine's files
# into $FUZZ_BUILD/seeds/ and a note says to run make_corpus.sh.
#
# An hour's corpus is kept in tests/fuzz/hour-corpus.tar.gz (below); refresh
# it after a long run with libFuzzer's -merge=1 into a fresh directory, its
# INDEX beside the inputs (tests/fuzz/README or the comment there).
#
# Reproduce a crash: $FUZZ_BUILD/fuzz_parsers $FUZZ_BUILD/artifacts/crash-…
set -u
cd "$(dirname "$0")/../.." || exit 1
secs=${1:-5}
B=${FUZZ_BUILD:-build-fuzz}
CLANG=${CLANG:-clang}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

command -v "$CLANG" >/dev/null || { echo "clang not found: cannot build the fuzzer"; exit 77; }
mkdir -p "$B"
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$B/probe.c"
"$CLANG" -fsanitize=fuzzer,address,undefined "$B/probe.c" -o "$B/probe" 2>"$B/probe.log" ||
	{ cat "$B/probe.log"; echo "libFuzzer runtime missing (clang -fsanitize=fuzzer does not link)"; exit 77; }
rm -f "$B/probe" "$B/probe.c" "$B/probe.log"

# The library, with the Makefile's rules and warnings (not -Werror: clang
# warns about things gcc does not, and that is not this test's business).
make --no-print-directory -s -j"$(nproc)" BUILD="$B" CC="$CLANG" CPPFLAGS=-Wno-error \
	CFLAGS="-O1 -g -fsanitize=fuzzer-no-link $SAN" LDFLAGS="$SAN" "$B/libgd.a" ||
	{ echo "fuzz: building $B/libgd.a failed"; exit 1; }
"$CLANG" -std=gnu11 -D_GNU_SOURCE -Isrc -Wall -Wextra -O1 -g -fsanitize=fuzzer $SAN \
	tests/fuzz/fuzz_parsers.c "$B/libgd.a" $(make -s --no-print-directory print-libs) -o "$B/fuzz_parsers" ||
	{ echo "fuzz: building the harness failed"; exit 1; }

list=$(GD_FUZZ_LIST=1 "$B/fuzz_parsers") || { echo "fuzz: $B/fuzz_parsers could not list its targets"; exit 1; }
seeds=tests/fuzz/corpus
if [ "$list" != "$(cat "$seeds/INDEX" 2>/dev/null)" ]; then
	echo "fuzz: note: tests/fuzz/corpus was made for another list of parsers; run" \
	     "tests/fuzz/make_corpus.sh $B/fuzz_parsers to refresh it (using fresh seeds now)"
	tests/fuzz/make_corpus.sh "$B/fuzz_parsers" "$B/seeds" >/dev/null || exit 1
	seeds=$B/seeds
fi
# Inputs found under another target list would hit other parsers: drop them.
if [ "$list" != "$(cat "$B/corpus.INDEX" 2>/dev/null)" ]; then
	rm -rf "$B/corpus"
	printf '%s\n' "$list" >"$B/corpus.INDEX"
fi
# libFuzzer never deletes superseded inputs: start afresh past 10,000.
[ -d "$B/corpus" ] && [ "$(find "$B/corpus" -type f | wc -l)" -gt 10000 ] && rm -rf "$B/corpus"
mkdir -p "$B/corpus" "$B/artifacts"
# Runs of a minute or more (make fuzz) start from the corpus an hour of
# fuzzing kept (tests/fuzz/hour-corpus.tar.gz, its own INDEX inside): each
# input's first byte is remapped from that list's target to this one's by
# name, inputs of targets that are gone are left out.  The smoke run of the
# suite (5 s) keeps to the seeds: replaying 5,800 inputs would be most of it.
kept=tests/fuzz/hour-corpus.tar.gz
if [ "$secs" -ge 60 ] && [ -f "$kept" ] && [ -z "$(ls -A "$B/corpus")" ]; then
	rm -rf "$B/kept" && mkdir -p "$B/kept" && tar -xzf "$kept" -C "$B/kept" &&
		python3 - "$B/kept/corpus" "$B/corpus" "$list" <<'PY' || echo "fuzz: note: the kept corpus could not be used"
import os, sys
src, dst, new = sys.argv[1], sys.argv[2], sys.argv[3]
def names(text):
    return [l.split(" ", 1)[1] for l in text.splitlines() if " " in l]
old = names(open(os.path.join(src, "INDEX")).read())
pos = {n: i for i, n in enumerate(names(new))}
kept = 0
for f in sorted(os.listdir(src)):
    if f == "INDEX":
        continue
    data = open(os.path.join(src, f), "rb").read()
    if not data or old[data[0] % len(old)] not in pos:
        continue
    open(os.path.join(dst, f), "wb").write(bytes([pos[old[data[0] % len(old)]]]) + data[1:])
    kept += 1
print("fuzz: %d inputs from the kept corpus (%s)" % (kept, sys.argv[1]))
PY
	rm -rf "$B/kept"
fi
rm -f "$B"/artifacts/crash-* "$B"/artifacts/leak-* "$B"/artifacts/timeout-* "$B"/artifacts/oom-*

# The other harnesses (tests/fuzz/fuzz_*.c but fuzz_parsers.c, each with its
# own header comment): built the same way and run a fifth of the time each
# (2 s at least), from their seeds in tests/fuzz/seeds-<name>/ if any.
for h in tests/fuzz/fuzz_*.c; do
	n=$(basename "$h" .c)
	[ "$n" = fuzz_parsers ] && continue
	"$CLANG" -std=gnu11 -D_GNU_SOURCE -Isrc -Wall -Wextra -O1 -g -fsanitize=fuzzer $SAN \
		"$h" "$B/libgd.a" $(make -s --no-print-directory print-libs) -o "$B/$n" ||
		{ echo "fuzz: building $n failed"; exit 1; }
	mkdir -p "$B/corpus-$n"
	hs=tests/fuzz/seeds-$n
	[ -d "$hs" ] || hs=
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$B/$n" -max_total_time=$(( secs / 5 > 2 ? secs / 5 : 2 )) -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-artifact_prefix="$B/artifacts/$n-" "$B/corpus-$n" $hs >"$B/$n.log" 2>&1
	hrc=$?
	if [ $hrc -ne 0 ] || grep -q 'ERROR: \|runtime error:' "$B/$n.log"; then
		echo "fuzz: $n FAILED (exit $hrc); log in $B/$n.log"
		grep -n -A40 -m1 'ERROR: \|runtime error:\|deadly signal' "$B/$n.log" | head -n 45
		exit 1
	fi
	echo "fuzz: $n: $(grep -E '^Done [0-9]+ runs' "$B/$n.log" | tail -n 1), no crash"
done

ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$B/fuzz_parsers" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	-artifact_prefix="$B/artifacts/" "$B/corpus" "$seeds" >"$B/fuzz.log" 2>&1
rc=$?
if [ $rc -eq 0 ] && ! grep -q 'ERROR: \|runtime error:' "$B/fuzz.log"; then
	echo "fuzz: $(grep -E '^Done [0-9]+ runs' "$B/fuzz.log" | tail -n 1) over $(wc -l <<<"$list") targets, no crash"
	exit 0
fi
echo "fuzz: FAILED (exit $rc); log in $B/fuzz.log"
for a in "$B"/artifacts/*; do
	[ -f "$a" ] || continue
	idx=$(head -c 1 "$a" | od -An -tu1 | tr -d ' ')
	n=$(wc -l <<<"$list")
	echo "input $a: target $(sed -n "$(( ${idx:-0} % n + 1 ))p" <<<"$list")"
	echo "hex (first 512 bytes): $(head -c 512 "$a" | od -An -tx1 | tr -d ' \n')"
done
grep -n -A40 -m1 'ERROR: \|runtime error:' "$B/fuzz.log" | head -n 45
exit 1
