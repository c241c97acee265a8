#!/bin/bash
# bench/xid/run.sh - `gpudoctor xid` side by side with what people use
# instead, on a generated kernel log shaped like a busy 8-GPU node's
# (bench/xid/gen.py: kern.log lines, about one in ten an NVRM: line that is
# not an Xid, mlx5/audit/docker/EXT4/systemd noise, one Xid line in about
# 10,000 over eight codes, a storm of 400 in one second, a few AER reports),
# SIZE bytes (default 1 GiB) in /tmp, deleted afterwards; then the same on a
# gzip copy of it.
#
#   SIZE=1073741824 RUNS=3 FORMAT=kern.log|dmesg bench/xid/run.sh
#
# GPUDOCTOR_BEFORE=/path/to/an/older/gpudoctor adds its rows (checked the
# same way) for a before/after in the same run.
#
# Each command runs once to warm the page cache, then RUNS times; the table
# gives the fastest wall time, its CPU time (user + system, all threads and
# children) and the peak RSS (the largest process of a pipeline).  A time
# means nothing if the command failed or counted wrong: every run's exit
# status and answer are checked against what the generator wrote (the lines,
# the Xid lines, per GPU and code, and every event kind gpudoctor counts);
# any mismatch stops the script with a FAIL line and exit 1.  Targets
# (issue 16): gpudoctor xid at least 3x faster than grep -c, within 1.3x of
# cat, peak RSS under 32 MiB; on the gzip copy, against zcat | grep -c.
# Each ratio is of wall times with both CPU times beside it, and is refused
# (bench/lib.sh) when the load average at the start was above the CPU count
# or when the baseline's wall time was far above its CPU time (it waited
# for a CPU, as grep at 3.47 s wall for 0.88 s CPU did in an earlier run).
set -eu
cd "$(dirname "$0")/../.."
G=${GPUDOCTOR:-${BUILD:-build}/gpudoctor}
SIZE=${SIZE:-1073741824}
RUNS=${RUNS:-3}
FORMAT=${FORMAT:-kern.log}
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")
F=$(mktemp /tmp/gd-xid-bench.XXXXXX.log)
trap 'rm -f "$F" "$F.gz" "$F.out" "$F.time" "$F.ref"' EXIT
[ -x "$G" ] || { echo "build first: make all" >&2; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time, Debian package time)" >&2; exit 1; }

# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_load_start
python3 bench/xid/gen.py "$F" "$SIZE" "$FORMAT"
fail() { echo "FAIL: $*" >&2; exit 1; }
ref() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$F.ref" "$1"; }
bytes=$(stat -c %s "$F")
lines=$(wc -l <"$F")
nxid=$(ref xid)
[ "$lines" -eq "$(ref lines)" ] || fail "the file has $lines lines, the generator wrote $(ref lines)"
[ "$nxid" -gt 0 ] || fail "the generator wrote no Xid line"
[ "$(grep -c 'NVRM: Xid' "$F")" -eq "$nxid" ] || fail "grep -c finds $(grep -c 'NVRM: Xid' "$F") Xid lines, the generator wrote $nxid"
ndecoy=$(grep 'NVRM: ' "$F" | grep -vc 'NVRM: Xid' || true)
echo "locale: ${LC_ALL:-${LANG:-C}} (grep is slower under UTF-8 locales); $(nproc) CPUs; $(uname -r)"
echo "file: $FORMAT, $bytes bytes, $lines lines, $nxid Xid lines (grep -c agrees), $ndecoy other NVRM: lines"

# check_KEY RC: the run's exit status and its output ($F.out) are right.
check_cat() {
	[ "$1" -eq 0 ] || fail "cat exited $1"
}
check_grep() {
	[ "$1" -eq 0 ] || fail "grep -c exited $1"
	[ "$(cat "$F.out")" = "$nxid" ] || fail "grep -c printed '$(head -c 80 "$F.out")', want $nxid"
}
check_grepe() {
	[ "$1" -eq 0 ] || fail "the grep -E | sort | uniq -c pipeline exited $1"
	python3 - "$F.out" "$F.ref" <<'PY' || fail "grep -E | uniq -c counts differ from the generator's"
import json, re, sys
got = {}
for line in open(sys.argv[1]):
    m = re.fullmatch(r" *(\d+) Xid \(PCI:([0-9a-f:]+)\): (\d+)\n", line)
    if not m:
        sys.exit("unexpected line %r" % line)
    got["%s.0 %s" % (m.group(2), m.group(3))] = int(m.group(1))
want = json.load(open(sys.argv[2]))["by"]
if got != want:
    sys.exit("got %s, want %s" % (got, want))
PY
}
check_gd() {
	python3 - "$F.out" "$F.ref" "$1" <<'PY' || fail "gpudoctor xid --json: wrong exit status or counts"
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except ValueError as e:
    sys.exit("output is not one JSON document (%s)" % e)
ref, rc = json.load(open(sys.argv[2])), int(sys.argv[3])
if rc != doc.get("exit") or rc not in (0, 1, 2):
    sys.exit("exited %d, its JSON says exit %s" % (rc, doc.get("exit")))
if rc != 2:
    sys.exit("exited %d: the log has Xid 79 (critical), want 2" % rc)
if doc["lines"] != ref["lines"]:
    sys.exit("read %d lines, the file has %d" % (doc["lines"], ref["lines"]))
for k, v in doc["counts"].items():
    if v != ref["counts"].get(k, 0):
        sys.exit("counts.%s %d, the file has %d" % (k, v, ref["counts"].get(k, 0)))
got = {}
for s in doc["summary"]:
    if s["kind"] == "xid":
        k = "%s %d" % (s["pci_bus_id"], s["code"])
        got[k] = got.get(k, 0) + s["count"]
if got != ref["by"]:
    sys.exit("summary counts %s, want %s" % (got, ref["by"]))
if len(doc["events"]) + doc["events_not_listed"] != sum(doc["counts"].values()):
    sys.exit("events[] %d + events_not_listed %d != %d events" % (len(doc["events"]), doc["events_not_listed"],
                                                                   sum(doc["counts"].values())))
PY
}
check_zcat() {
	[ "$1" -eq 0 ] || fail "zcat exited $1"
}
check_zgrep() {
	[ "$1" -eq 0 ] || fail "zcat | grep -c exited $1"
	[ "$(cat "$F.out")" = "$nxid" ] || fail "zcat | grep -c printed '$(head -c 80 "$F.out")', want $nxid"
}

# measure KEY NAME CMD: the fastest of RUNS runs (after a warm-up), its CPU
# seconds and the peak RSS.  Output goes to a file, not /dev/null: GNU grep
# stops at the first match when its output is /dev/null.  Every run is
# checked by check_KEY (exit status with pipefail, and the answer).
measure() {
	local key=$1 name=$2 cmd=$3 rc=0 best="" cpu="" rss=0 i t
	bash -o pipefail -c "$cmd" >"$F.out" 2>/dev/null || rc=$?   # warm-up: the file in the page cache
	"check_$key" "$rc"
	for ((i = 0; i < RUNS; i++)); do
		rc=0
		/usr/bin/time -f '%e %U %S %M' -o "$F.time" bash -o pipefail -c "$cmd" >"$F.out" 2>/dev/null || rc=$?
		"check_$key" "$rc"
		read -r t u s m < <(tail -n 1 "$F.time")
		if [ -z "$best" ] || python3 -c "import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))" "$t" "$best"; then
			best=$t
			cpu=$(python3 -c "print('%.2f' % (float('$u') + float('$s')))")
		fi
		[ "$m" -gt "$rss" ] && rss=$m
	done
	printf '%-58s %7.2f s %6.2f GB/s %6s s CPU %8s KiB\n' "$name" "$best" \
		"$(python3 -c "print('%.2f' % ($bytes / max($best, 0.005) / 1e9))")" "$cpu" "$rss"
	eval "T_$key=$best"
	eval "C_$key=$cpu"
	eval "M_$key=$rss"
}

echo
echo "plain file (best of $RUNS, warm page cache)          wall        rate       CPU   peak RSS"
measure cat "cat FILE > /dev/null" "cat '$F' > /dev/null"
measure grep "grep -c 'NVRM: Xid' FILE" "grep -c 'NVRM: Xid' '$F'"
measure grepe "grep -E -o 'Xid \\(PCI:[^)]*\\): [0-9]+' FILE | sort | uniq -c" "grep -E -o 'Xid \\(PCI:[^)]*\\): [0-9]+' '$F' | sort | uniq -c"
measure gd "gpudoctor xid --json FILE" "'$G' xid --json '$F'"
T_gdp=$T_gd
C_gdp=$C_gd
M_gdp=$M_gd
if [ -n "${GPUDOCTOR_BEFORE:-}" ]; then
	measure gd "gpudoctor xid --json FILE (before: \$GPUDOCTOR_BEFORE)" "'$GPUDOCTOR_BEFORE' xid --json '$F'"
fi

gzip -c "$F" >"$F.gz"
echo
echo "gzip copy: $(stat -c %s "$F.gz") bytes (gzip -6); rates are of the uncompressed bytes"
measure zcat "zcat FILE.gz > /dev/null" "zcat '$F.gz' > /dev/null"
measure zgrep "zcat FILE.gz | grep -c 'NVRM: Xid'" "zcat '$F.gz' | grep -c 'NVRM: Xid'"
measure gd "gpudoctor xid --json FILE.gz" "'$G' xid --json '$F.gz'"
T_gdz=$T_gd
C_gdz=$C_gd
M_gdz=$M_gd
if [ -n "${GPUDOCTOR_BEFORE:-}" ]; then
	measure gd "gpudoctor xid --json FILE.gz (before)" "'$GPUDOCTOR_BEFORE' xid --json '$F.gz'"
fi

echo
{
	bench_ratio "grep -c / gpudoctor xid (how many times faster; target >= 3)" "$T_grep" "$C_grep" "$T_gdp" "$C_gdp"
	bench_ratio "gpudoctor xid / cat (target <= 1.3)" "$T_gdp" "$C_gdp" "$T_cat" "$C_cat"
	echo "gpudoctor xid peak RSS: $((M_gdp / 1024)) MiB (target < 32)"
	bench_ratio "zcat | grep -c / gpudoctor xid FILE.gz (how many times faster)" "$T_zgrep" "$C_zgrep" "$T_gdz" "$C_gdz"
	bench_ratio "gpudoctor xid FILE.gz / zcat" "$T_gdz" "$C_gdz" "$T_zcat" "$C_zcat"
	echo "gpudoctor xid FILE.gz peak RSS: $((M_gdz / 1024)) MiB"
} | sed 's/^/  /'
