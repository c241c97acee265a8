#!/bin/bash
# tests/exporter/lockout.sh - nobody who can connect locks Prometheus out of
# serve (issue 31, item 1); lockout.py does the work and says how:
#   - 32 idle kept-alive connections from 127.0.0.1 (the default bind,
#     shared by every local user), then a scrape from 127.0.0.1 itself: it
#     is served, in place of 127.0.0.1's connection idle longest;
#   - 256 connections from 127.0.0.2-9 (the whole table) each keeping half
#     a request pending, the first byte of the next one pipelined behind
#     each request, at 29 requests/s in all, and an attacker that opens a
#     closed connection again at once: a scraper on 127.0.0.10 gets every
#     one of 30 scrapes;
#   - (on a second server, meanwhile) a request head's time counts from its
#     first byte, not from the reply before it: the first byte of a request
#     pipelined behind 400 replies that the client reads only after 7 s is
#     closed before the head of another connection begun 3.5 s after it.
# Only outcomes and their order are judged, no durations.
set -u
. "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || skip "python3 is not installed"
L=$(dirname "$0")/lockout.py

start_serve a --root "$FIX/healthy" --interval 0.5s
start_serve b --root "$FIX/healthy" --interval 0.5s
python3 "$L" head-deadline "$ADDR_b" >"$TMP/deadline.txt" 2>&1 &
deadline=$!
PIDS+=("$deadline")
python3 "$L" own-address "$ADDR_a" || die "a scrape from 127.0.0.1 with 32 idle connections from it"
python3 "$L" attack "$ADDR_a" --scrapes 30 --interval 0.1 || die "a scraper locked out by slow connections"
wait $deadline
rc=$?
cat "$TMP/deadline.txt"
[ $rc -eq 0 ] || die "a request head outlived its time-out behind the replies before it"
for n in a b; do
	p=PID_$n
	kill -TERM "${!p}"
	wait "${!p}"
	rc=$?
	[ $rc -eq 0 ] || die "serve $n exited $rc: $(tail -n 20 "$TMP/$n.log")"
	grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$TMP/$n.log" && die "sanitizer report"
done
echo "lockout: scrapers from 127.0.0.1 and 127.0.0.10 served, request heads timed from their first byte"
