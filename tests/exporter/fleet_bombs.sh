#!/bin/bash
# tests/exporter/fleet_bombs.sh - `gpudoctor fleet` against answers built to
# cost a parser far more memory than their size (prom_standin.py's
# /bomb-*/, 10 MB each): data.result of {} objects or of [] arrays, a
# warnings[] of {} objects, one series of a million labels.  jansson's
# tree of a 10 MB body of {} took about 800 MB (a 60 MB one, 4.8 GB)
# before the series limit was checked; the shape is now counted before the
# tree is built, so each must end in exit 3 with a message that names the
# limit, at a peak RSS of a few times the body (bound here: 100 MB; three
# times each bound under a sanitizer build).  The
# most an answer under --limit 20000 may cost (bomb-fit) is parsed, at a
# peak under 256 MB; and an answer over the 64 MiB fleet reads says so,
# naming --match (not an option that does not exist).
set -u
. "$(dirname "$0")/lib.bash"
need python3
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
python3 tests/exporter/prom_standin.py "$TMP/port" "$TMP/req.log" &
PIDS+=($!)
for i in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
[ -s "$TMP/port" ] || die "the stand-in did not start"
S=http://127.0.0.1:$(cat "$TMP/port")
# a sanitizer build keeps shadow memory and freed blocks (quarantine): its
# bounds are three times as high
x=1
grep -qa __asan_init "$G" && x=3
# peak NAME WANT-RC REGEX MAX-KIB ARGS...: runs fleet, checks its exit
# status, a line of its output and its peak RSS (getrusage of the child)
peak() {
	local name=$1 want=$2 re=$3 max=$4 out
	shift 4
	out=$(python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:], stdout=open(sys.argv[1], "w"), stderr=subprocess.STDOUT)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$TMP/$name.out" "$G" fleet --range 1h "$@") ||
		die "$name: the wrapper failed"
	set -- $out
	[ "$1" = "$want" ] || die "$name: exit $1, want $want: $(head -c 600 "$TMP/$name.out")"
	grep -Eq "$re" "$TMP/$name.out" || die "$name: output lacks /$re/: $(head -c 600 "$TMP/$name.out")"
	[ "$2" -le $((max * x)) ] || die "$name: peak RSS $2 KiB, more than $((max * x)) KiB"
	echo "$name: exit $want, peak RSS $2 KiB"
}
lim='more than the limit of 20000: narrow the fleet with --match'
peak obj 3 "query nodes now: 3333333 series, $lim" 102400 --prometheus "$S/bomb-obj.10"
peak arr 3 "query nodes now: 3333333 series, $lim" 102400 --prometheus "$S/bomb-arr.10"
peak warn 3 'query nodes now: the answer would take [0-9]+ MiB to parse, more than 20000 series .*--match' 102400 \
	--prometheus "$S/bomb-warn.10"
peak labels 3 'query nodes now: the answer would take [0-9]+ MiB to parse' 102400 --prometheus "$S/bomb-labels.10"
peak limit 3 'query nodes now: 3333333 series, more than the limit of 5' 102400 --prometheus "$S/bomb-obj.10" --limit 5
peak fit 0 '^Causes ' 262144 --prometheus "$S/bomb-fit"
peak toolong 3 'query nodes now: .* longer than 67108864 bytes, the most gpudoctor reads of one: narrow the fleet with --match$' \
	102400 --prometheus "$S/toolong"
echo "ok: answers built to cost memory end in exit 3 with the limit named, within their RSS bounds"
