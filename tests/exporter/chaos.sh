#!/bin/bash
# gd-test: exclusive (it measures time, load or throughput: tests/run.sh runs it alone)
# tests/exporter/chaos.sh - the HTTP front under 20 s of chaos.py: 24
# workers from 127.0.0.2-9 sending well-formed, pipelined, trickled,
# malformed, abandoned (half of them with a reset) and slow-read requests,
# each response checked (status, Content-Length against the bytes, gzip that
# decodes, pipelined replies in order), while a monitor from 127.0.0.10
# scrapes /healthz.  Then the server must answer, stop on SIGTERM with exit
# 0, and have printed no sanitizer report (this suite also runs under ASan
# and UBSan in make check).
set -u
. "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || { echo "python3 is not installed"; exit 77; }

start_serve c --root "$FIX/healthy" --interval 0.5s
python3 "$(dirname "$0")/chaos.py" "$ADDR_c" --duration 20 --workers 24 --seed 1 >"$TMP/chaos.txt" 2>&1 ||
	die "protocol violations: $(grep FAIL "$TMP/chaos.txt" | head -n 5)"
kill -TERM "$PID_c"
wait "$PID_c"
rc=$?
[ $rc -eq 0 ] || die "serve exited $rc after the chaos: $(tail -n 20 "$TMP/c.log")"
grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$TMP/c.log" && die "sanitizer report"
echo "chaos: $(grep -c '^ok' "$TMP/chaos.txt") kinds of exchange, no violation: $(awk '/^ok/ {n += $3} END {print n}' "$TMP/chaos.txt") exchanges"
