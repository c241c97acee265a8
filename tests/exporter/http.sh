#!/bin/bash
# gd-test: exclusive (it measures time, load or throughput: tests/run.sh runs it alone)
# tests/exporter/http.sh - bad requests get errors while the server keeps
# serving others: wrong methods (405), unknown paths (404), huge headers
# (4xx), garbage (400), HTTP/2 (505), no Host or a body (400), keep-alive
# and pipelined requests answered in order, gzip when asked, a slow client
# that trickles a request and then goes quiet (cut off), the per-address
# limit itself (32 idle connections from 127.0.0.1 held, the 33rd answered
# in place of the one idle longest while the other 31 and 127.0.0.2 are
# answered, and the 34th in place of the next), 1,000 concurrent
# connections from one address while a scrape from another loopback
# address (127.0.0.2) still succeeds, and a table full of idle connections
# giving up the longest idle's place (tests/exporter/lockout.sh: slow
# ones, and the request head's time-out).  Then
# SIGTERM and SIGINT stop the server cleanly (exit 0) within seconds.
set -u
. "$(dirname "$0")/lib.bash"
ulimit -n 4096 2>/dev/null || ulimit -n "$(ulimit -Hn)"

for bad in 127.0.0.1:99999 127.0.0.1:x 127.0.0.1 "" 999.1.1.1:1; do
	timeout 5 "$G" serve --listen "$bad" 2>/dev/null
	[ $? -eq 3 ] || die "serve --listen '$bad' did not fail with exit 3"
done
start_serve a --root "$FIX/healthy" --interval 0.5s
U=http://$ADDR_a
HOST=${ADDR_a%:*} PORT=${ADDR_a##*:}
code() { curl -s -o /dev/null -m 5 -w '%{http_code}' "$@"; }
scrape_ok() { # a normal scrape from 127.0.0.2 succeeds in under 2 s
	curl -sf -m 2 --interface 127.0.0.2 "$U/metrics" | grep -q '^gpudoctor_up 1$'
}

[ "$(code "$U/metrics")" = 200 ] || die "GET /metrics"
[ "$(code "$U/healthz")" = 200 ] || die "GET /healthz"
[ "$(code "$U/findings")" = 200 ] || die "GET /findings"
[ "$(code -I "$U/metrics")" = 200 ] || die "HEAD /metrics"
curl -s -m 5 -D - -o /dev/null "$U/metrics" | grep -qi '^content-type: text/plain; version=0.0.4' || die "content type"
for m in POST PUT DELETE PATCH OPTIONS; do
	[ "$(code -X $m "$U/metrics")" = 405 ] || die "$m /metrics is not 405"
done
curl -s -m 5 -D - -o /dev/null -X POST -d x=1 "$U/metrics" | grep -qi '^allow: GET, HEAD' || die "405 without Allow"
for p in /metric /metrics/x /../etc/passwd /index.html "/findings?x=1&y=%00"; do
	c=$(code "$U$p")
	case $p in /findings*) [ "$c" = 200 ] || die "GET $p: $c" ;; *) [ "$c" = 404 ] || die "GET $p is $c, not 404" ;; esac
done
big=$(head -c 40000 /dev/zero | tr '\0' a)
c=$(code -H "X-Big: $big" "$U/metrics")
case $c in 4??) ;; *) die "40 kB header got $c, not 4xx" ;; esac
c=$(code "$U/metrics?$big")
case $c in 4??) ;; *) die "40 kB URL got $c, not 4xx" ;; esac
r=$(printf 'NOT HTTP AT ALL\r\n\r\n' | timeout 5 nc -q 2 "$HOST" "$PORT" | head -n 1)
case $r in "HTTP/1."*" 400"*) ;; *) die "garbage request got: $r" ;; esac
r=$(printf 'GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n' | timeout 5 nc -q 2 "$HOST" "$PORT" | head -n 1)
case $r in "HTTP/1.1 505"*) ;; *) die "HTTP/2.0 request line got: $r" ;; esac
r=$(printf 'GET /metrics HTTP/1.1\r\n\r\n' | timeout 5 nc -q 2 "$HOST" "$PORT" | head -n 1)
case $r in "HTTP/1.1 400"*) ;; *) die "HTTP/1.1 without Host got: $r" ;; esac
r=$(printf 'GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody' | timeout 5 nc -q 2 "$HOST" "$PORT" | head -n 1)
case $r in "HTTP/1.1 400"*) ;; *) die "GET with a body got: $r" ;; esac
# keep-alive: three requests over one connection; two pipelined in one
# write, then HTTP/1.0, which closes after its reply
n=$(curl -s -m 5 -o /dev/null -o /dev/null -o /dev/null -w '%{num_connects}\n' "$U/healthz" "$U/metrics" "$U/findings" | awk '{ s += $1 } END { print s }')
[ "$n" = 1 ] || die "three requests on a keep-alive connection took $n connections"
r=$(printf 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nHEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n' |
	timeout 5 nc -q 2 "$HOST" "$PORT" | grep -c '^HTTP/1.1 200')
[ "$r" = 2 ] || die "two pipelined requests got $r replies"
r=$(printf 'GET /healthz HTTP/1.0\r\n\r\n' | timeout 5 nc "$HOST" "$PORT" | tr -d '\r')
grep -q '^Connection: close$' <<<"$r" && grep -q '^Date: .* GMT$' <<<"$r" && grep -qx ok <<<"$r" ||
	die "HTTP/1.0 reply: $r"
r=$(printf 'GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n' | timeout 5 nc -q 1 "$HOST" "$PORT" | tr -d '\r')
grep -q '^Connection: keep-alive$' <<<"$r" || die "HTTP/1.0 keep-alive reply without Connection: keep-alive: $r"
# gzip, as Prometheus asks: the body decodes to what a plain scrape gets
# (but for the per-scrape lines of the exporter's own metrics)
own='^(gpudoctor_(up|sample_age_seconds|collection_cycles_total|collection_duration_seconds)|process_)'
cycle() { grep -m1 '^gpudoctor_collection_cycles_total' "$1"; }
# the two scrapes must come from one collection cycle (every 0.5 s here):
# a pair that straddles a cycle is fetched again
same=false
for try in 1 2 3 4 5; do
	hdr=$(curl -s -m 5 -D - -o "$TMP/m.gz" -H 'Accept-Encoding: gzip' "$U/metrics" | tr -d '\r')
	grep -qi '^content-encoding: gzip$' <<<"$hdr" || die "no gzip for Accept-Encoding: gzip: $hdr"
	grep -qi '^vary: accept-encoding$' <<<"$hdr" || die "no Vary on /metrics"
	gzip -dc "$TMP/m.gz" >"$TMP/m.txt" || die "the gzip body does not decode"
	curl -s -m 5 "$U/metrics" >"$TMP/m.plain"
	[ -n "$(cycle "$TMP/m.txt")" ] || die "no gpudoctor_collection_cycles_total in /metrics"
	[ "$(cycle "$TMP/m.txt")" = "$(cycle "$TMP/m.plain")" ] || continue
	same=true
	break
done
$same || die "five pairs of scrapes each straddled a collection cycle"
diff <(grep -Ev "$own" "$TMP/m.txt") <(grep -Ev "$own" "$TMP/m.plain") >/dev/null ||
	die "gzip and plain /metrics differ beyond the per-scrape lines"
[ "$(stat -c %s "$TMP/m.gz")" -lt $(($(stat -c %s "$TMP/m.plain") / 3)) ] || die "gzip body is not small"
grep -q '^gpudoctor_up 1$' "$TMP/m.txt" || die "no gpudoctor_up in the gzip body"
curl -s -m 5 -D - -o /dev/null -H 'Accept-Encoding: gzip;q=0, br' "$U/metrics" | grep -qi '^content-encoding' &&
	die "gzip sent although refused"
scrape_ok || die "scrape after the bad requests"

# the per-address limit: 32 idle connections from 127.0.0.1 are held; the
# 33rd is answered, and the first of the 32 (idle longest) has been closed
# in its place, while each of the other 31 and a connection from 127.0.0.2
# are answered; then the 33rd is the one idle longest, and a 34th takes its
# place.  Every wait is bounded by the sockets' 10 s time-out; every socket
# is closed before the end.
python3 - "$HOST" "$PORT" <<'PY' || die "the per-address limit of 32 connections"
import re, socket, sys
host, port = sys.argv[1], int(sys.argv[2])
opened = []

def conn(src):
    s = socket.socket()
    opened.append(s)
    s.settimeout(10)
    s.bind((src, 0))
    s.connect((host, port))
    return s

def ask(s):
    # GET /healthz, kept alive: "200 ok", or None when closed without a reply
    try:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        buf = b""
        while b"\r\n\r\n" not in buf:
            d = s.recv(4096)
            if not d:
                return None
            buf += d
        head, _, body = buf.partition(b"\r\n\r\n")
        n = int(re.search(rb"(?im)^content-length: *([0-9]+)", head).group(1))
        while len(body) < n:
            d = s.recv(4096)
            if not d:
                return None
            body += d
        return "%s %s" % (head.split()[1].decode(), body.decode().strip())
    except ConnectionError:
        return None

def bye(s):
    # half-close, then wait for the server to close its side: it frees the
    # connection's place before it closes
    s.shutdown(socket.SHUT_WR)
    while s.recv(4096):
        pass
    s.close()

def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)

try:
    held = [conn("127.0.0.1") for _ in range(32)]
    s33 = conn("127.0.0.1")
    r = ask(s33)
    if r != "200 ok":
        fail("the 33rd connection from 127.0.0.1 got %r, not 200 ok" % r)
    r = ask(held[0])
    if r is not None:
        fail("the first of the 32 (idle longest) was not closed for the 33rd: %r" % r)
    for i, s in enumerate(held[1:]):
        r = ask(s)
        if r != "200 ok":
            fail("held connection %d of 32 from 127.0.0.1 got %r, not 200 ok" % (i + 2, r))
    r = ask(conn("127.0.0.2"))
    if r != "200 ok":
        fail("127.0.0.2 with 32 connections from 127.0.0.1 held got %r" % r)
    r = ask(conn("127.0.0.1"))
    if r != "200 ok":
        fail("the 34th connection from 127.0.0.1 got %r" % r)
    if ask(s33) is not None or ask(held[-1]) != "200 ok":
        fail("the 34th did not take the place of the one idle longest (the 33rd)")
    print("per-address limit: 32 connections from 127.0.0.1 held, the 33rd and 34th served in place of the idle longest, 127.0.0.2 served")
finally:
    for s in opened:
        try:
            bye(s)
        except OSError:
            s.close()
PY
scrape_ok || die "scrape after the per-address limit"

# a slow client: trickles half a request for 3 s, then goes quiet (the
# flood below, from its address, takes its place: a head arriving for over
# 1 s gives its place up first; else the head time-out closes it)
exec {slow}<>"/dev/tcp/$HOST/$PORT" || die "connect"
( for c in G E T ' ' / m e t r i c s ' ' H T T P / 1 . 1; do printf %s "$c"; sleep 0.15; done ) >&$slow
t0=$SECONDS
scrape_ok || die "scrape while a slow client holds a connection"

# 1,000 concurrent connections from 127.0.0.1, held open
fds=()
deadline=$((SECONDS + 60))
for i in $(seq 1000); do
	exec {fd}<>"/dev/tcp/$HOST/$PORT" 2>/dev/null && fds+=("$fd")
	[ $SECONDS -lt $deadline ] || die "opening 1,000 connections took more than 60 s"
	[ $((i % 250)) -eq 0 ] && { scrape_ok || die "scrape failed with $i connections open"; }
done
echo "1,000 connects attempted, ${#fds[@]} succeeded at the TCP level"
scrape_ok || die "scrape during the flood"
for fd in "${fds[@]}"; do exec {fd}>&-; done
scrape_ok || die "scrape after the flood"

# idle connections from eight addresses fill the table (8 x 32 = 256): a
# scrape from a ninth still gets in, taking the place of the longest idle:
# the first one opened has been closed by the server (the close came before
# the reply to 127.0.0.10), the last one opened is still open
python3 - "$HOST" "$PORT" <<'PY' || die "a scrape from 127.0.0.10 with the table full of idle connections failed"
import socket, subprocess, sys
host, port = sys.argv[1], int(sys.argv[2])
held = []
for a in range(2, 10):
    for _ in range(32):
        s = socket.socket()
        s.settimeout(10)
        s.bind(("127.0.0.%d" % a, 0))
        s.connect((host, port))
        held.append(s)
r = subprocess.run(["curl", "-sf", "-m", "10", "--interface", "127.0.0.10",
                    "http://%s:%d/healthz" % (host, port)], capture_output=True, text=True)
print("table full of %d idle connections: /healthz from 127.0.0.10 -> %r" % (len(held), r.stdout.strip()))

def closed(s):
    # True when the server has closed s (EOF or reset waiting), False if open
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except ConnectionError:
        return True

first, last = closed(held[0]), closed(held[-1])
print("the longest idle (127.0.0.2, first opened) closed: %s; the newest (127.0.0.9) closed: %s" % (first, last))
for s in held:
    s.close()
sys.exit(0 if r.stdout.strip() == "ok" and first and not last else 1)
PY
scrape_ok || die "scrape after the idle connections"

# the quiet slow client has been cut off (in place of a newcomer, or by the
# 10 s head time-out)
if read -r -t 20 -u $slow line; then :; fi
waited=$((SECONDS - t0))
[ $waited -lt 20 ] || die "the quiet client was not disconnected within 20 s"
exec {slow}>&-
scrape_ok || die "scrape after the slow client"
echo "quiet client dropped after ~${waited}s"

# clean stops
for sig in TERM INT; do
	start_serve s$sig --root "$FIX/healthy"
	p=PID_s$sig
	kill -$sig "${!p}"
	t0=$SECONDS
	wait "${!p}"
	rc=$?
	[ $rc -eq 0 ] || die "SIG$sig: exit $rc"
	[ $((SECONDS - t0)) -le 6 ] || die "SIG$sig: took $((SECONDS - t0)) s to stop"
	grep -q 'stopping' "$TMP/s$sig.log" || die "SIG$sig: no stop message"
done
echo "bad requests refused, the server kept serving, SIGTERM and SIGINT stop it"
