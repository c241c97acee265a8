#!/usr/bin/env python3
"""chaos.py - stress the `gpudoctor serve` HTTP front with a random mix of
well-formed, pipelined, trickled, malformed, abandoned and slow-read requests
from many concurrent workers, checking every response it does read.

usage: chaos.py HOST:PORT [--duration S] [--workers N] [--seed N]

The server must listen on 127.0.0.1 (the workers connect from 127.0.0.2-9
and the monitor from 127.0.0.10, to stay under the per-address limit).
Defaults: 20 s, 24 workers, seed 1 (each worker's choices are seeded; the
interleaving is not).  Check the server's stderr for sanitizer reports and
its exit status on SIGTERM separately.

Exit status: 0 when no protocol violation was seen, 1 otherwise (and 2 on
usage errors).  Network errors that the scenario itself provokes (a reset
after we reset, a close after a refused request) are counted, not failures.
"""
import argparse
import gzip
import json
import random
import re
import socket
import struct
import sys
import threading
import time

PATHS = ["/metrics", "/findings", "/healthz", "/"]
STATUS_RE = re.compile(rb"^HTTP/1\.1 (\d{3}) [^\r\n]*$")
IO_TIMEOUT = 15.0


class Violation(Exception):
    """The server broke the protocol (or the test's expectations)."""


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}
        self.violations = {}
        self.examples = {}

    def ok(self, kind, n=1):
        with self.lock:
            self.counts[kind] = self.counts.get(kind, 0) + n

    def bad(self, kind, detail):
        with self.lock:
            self.violations[kind] = self.violations.get(kind, 0) + 1
            self.examples.setdefault(kind, detail[:300])


class Client:
    """A connection with a receive buffer, for reading pipelined replies."""

    def __init__(self, addr, src, rcvbuf=None):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.s.bind((src, 0))
        self.s.settimeout(IO_TIMEOUT)
        self.s.connect(addr)
        self.buf = b""
        self.eof = False

    def send(self, data):
        self.s.sendall(data)

    def fill(self):
        d = self.s.recv(65536)
        if not d:
            self.eof = True
            return False
        self.buf += d
        return True

    def read_until_eof(self):
        """True when the server closed (FIN, or a reset after it was done)."""
        try:
            while self.fill():
                pass
            return True
        except ConnectionResetError:
            return True

    def response(self, head_only):
        """One response: (status, headers, body).  Raises Violation."""
        while b"\r\n\r\n" not in self.buf:
            if len(self.buf) > 4096:
                raise Violation("response head over 4 KiB")
            if not self.fill():
                raise Violation("EOF inside/before a response head (%d bytes)" % len(self.buf))
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.split(b"\r\n")
        m = STATUS_RE.match(lines[0])
        if not m:
            raise Violation("bad status line %r" % lines[0][:80])
        hdrs = {}
        for ln in lines[1:]:
            if b":" not in ln:
                raise Violation("bad header line %r" % ln[:80])
            k, v = ln.split(b":", 1)
            k = k.strip().lower().decode()
            if k in hdrs:
                raise Violation("duplicate header %s" % k)
            hdrs[k] = v.strip().decode("latin-1")
        if "content-length" not in hdrs or not hdrs["content-length"].isdigit():
            raise Violation("no/odd Content-Length")
        n = int(hdrs["content-length"])
        if not head_only:
            while len(self.buf) < n:
                if not self.fill():
                    raise Violation("EOF after %d of %d body bytes" % (len(self.buf), n))
            body, self.buf = self.buf[:n], self.buf[n:]
        else:
            body = b""
        return int(m.group(1)), hdrs, body

    def close(self, reset=False):
        if reset:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.s.close()


def request(method, path, gz=False, close=False, extra=b""):
    r = b"%s %s HTTP/1.1\r\nHost: chaos\r\nUser-Agent: chaos\r\n" % (method.encode(), path.encode())
    if gz:
        r += b"Accept-Encoding: gzip\r\n"
    if close:
        r += b"Connection: close\r\n"
    return r + extra + b"\r\n"


def check(req, resp):
    """Checks one response against its request (method, path, gz)."""
    method, path, gz = req
    path = path.split("?", 1)[0]
    code, h, body = resp
    head = method == "HEAD"
    if method not in ("GET", "HEAD"):
        if code != 405 or h.get("allow") != "GET, HEAD":
            raise Violation("%s %s: %d, allow %r" % (method, path, code, h.get("allow")))
        return
    if path not in PATHS:
        if code != 404:
            raise Violation("%s %s: %d, not 404" % (method, path, code))
        return
    if "date" not in h or not h["date"].endswith(" GMT"):
        raise Violation("no Date")
    if path == "/metrics":
        if code != 200 or not h.get("content-type", "").startswith("text/plain; version=0.0.4"):
            raise Violation("/metrics: %d %r" % (code, h.get("content-type")))
        if h.get("vary") != "Accept-Encoding":
            raise Violation("/metrics without Vary")
        if gz != (h.get("content-encoding") == "gzip"):
            raise Violation("/metrics gzip asked %s, got %r" % (gz, h.get("content-encoding")))
        if not head:
            text = body
            if gz:
                try:
                    text = gzip.decompress(body)
                except Exception as e:  # noqa: BLE001
                    raise Violation("gzip body does not decode: %s" % e)
            if not text.startswith(b"# HELP gpudoctor_up") or b"\ngpudoctor_up " not in text:
                raise Violation("/metrics body %r" % text[:60])
    elif path == "/findings":
        if code not in (200, 503) or h.get("content-type") != "application/json":
            raise Violation("/findings: %d %r" % (code, h.get("content-type")))
        if not head:
            try:
                json.loads(body)
            except ValueError as e:
                raise Violation("/findings body not JSON: %s" % e)
    elif path == "/":
        # the node page, the page being drawn, or (503) the withdrawn state
        if code not in (200, 503) or h.get("content-type") != "text/html; charset=utf-8":
            raise Violation("/: %d %r" % (code, h.get("content-type")))
        if not head and not gz and not body.startswith(b"<!DOCTYPE html>"):
            raise Violation("/ body %r" % body[:60])
    else:
        if code not in (200, 503):
            raise Violation("/healthz: %d" % code)
        if not head and code == 200 and body != b"ok\n":
            raise Violation("/healthz body %r" % body[:40])
    if head and body:
        raise Violation("HEAD with a body")


class Worker(threading.Thread):
    def __init__(self, wid, addr, deadline, seed, stats):
        super().__init__(daemon=True)
        self.rng = random.Random(seed * 1000 + wid)
        self.addr, self.deadline, self.stats = addr, deadline, stats
        self.src = "127.0.0.%d" % (2 + wid % 8)  # spread over the per-address limit

    def rand_req(self, methods=("GET", "GET", "GET", "HEAD")):
        rng = self.rng
        m = rng.choice(methods)
        if rng.random() < 0.05:
            m = rng.choice(["POST", "DELETE", "OPTIONS"])
        p = rng.choice(PATHS) if rng.random() < 0.93 else rng.choice(["/nope", "/metrics/x", "/x/.."])
        if rng.random() < 0.1:
            p += "?x=%d" % rng.randrange(1000)
        return m, p, rng.random() < 0.5

    def conn(self, **kw):
        return Client(self.addr, self.src, **kw)

    # -- scenarios: each returns nothing; Violation propagates ----------------
    def s_keepalive(self):
        c = self.conn()
        n = self.rng.randint(1, 8)
        last_close = self.rng.random() < 0.3
        for i in range(n):
            m, p, gz = q = self.rand_req()
            close = last_close and i == n - 1
            c.send(request(m, p, gz, close))
            check(q, c.response(m == "HEAD"))
        if last_close:
            c.read_until_eof()
            if c.buf:
                raise Violation("bytes after a Connection: close reply")
        c.close()
        self.stats.ok("keepalive-requests", n)

    def s_pipeline(self):
        c = self.conn()
        n = self.rng.randint(1, 20)
        reqs = [self.rand_req() for _ in range(n)]
        c.send(b"".join(request(m, p, gz) for m, p, gz in reqs))
        for q in reqs:
            check(q, c.response(q[0] == "HEAD"))
        c.close()
        self.stats.ok("pipelined-requests", n)

    def s_trickle(self):
        c = self.conn()
        q = self.rand_req()
        data = request(*q)
        i = 0
        while i < len(data):
            k = self.rng.randint(1, 7)
            c.send(data[i:i + k])
            i += k
            time.sleep(self.rng.random() * 0.01)
        check(q, c.response(q[0] == "HEAD"))
        c.close()
        self.stats.ok("trickled")

    def expect_refusal(self, c, codes, what):
        """A 4xx/5xx reply, then the connection closed."""
        try:
            code, h, _ = c.response(False)
        except (ConnectionResetError, BrokenPipeError) as e:
            raise Violation("%s: reset before a reply (%s)" % (what, e))
        if code not in codes:
            raise Violation("%s: got %d, want %s" % (what, code, codes))
        if h.get("connection") != "close":
            raise Violation("%s: %d without Connection: close" % (what, code))
        c.read_until_eof()

    def s_garbage(self):
        c = self.conn()
        rng = self.rng
        data = bytes(rng.randrange(256) for _ in range(rng.randint(1, 3000)))
        if rng.random() < 0.5:  # make it look a bit like a request
            data = b"GET /metrics HTTP/1.1\r\n" + data + b"\r\n\r\n"
        try:
            c.send(data)
            c.s.shutdown(socket.SHUT_WR)
            c.read_until_eof()
        except (ConnectionResetError, BrokenPipeError):
            pass
        if c.buf:
            m = STATUS_RE.match(c.buf.split(b"\r\n", 1)[0])
            if not m or not (400 <= int(m.group(1)) < 600 or int(m.group(1)) == 200):
                raise Violation("garbage got %r" % c.buf[:60])
        c.close()
        self.stats.ok("garbage")

    def s_overlong(self):
        c = self.conn()
        rng = self.rng
        if rng.random() < 0.5:
            data = request("GET", "/metrics", extra=b"X-Big: " + b"a" * rng.randint(17000, 40000) + b"\r\n")
            codes = (431,)
        else:
            data = b"GET /metrics?" + b"b" * rng.randint(17000, 40000) + b" HTTP/1.1\r\nHost: x\r\n\r\n"
            codes = (414,)
        try:
            c.send(data)
        except (ConnectionResetError, BrokenPipeError):
            pass  # the server may have answered and closed before all was sent
        self.expect_refusal(c, codes, "overlong")
        c.close()
        self.stats.ok("overlong")

    def s_body(self):
        c = self.conn()
        n = self.rng.randint(1, 200)
        c.send(request(self.rng.choice(["GET", "HEAD"]), "/metrics",
                       extra=b"Content-Length: %d\r\n" % n) + b"x" * n)
        self.expect_refusal(c, (400,), "GET with a body")
        c.close()
        self.stats.ok("get-with-body")

    def s_abort_request(self):
        c = self.conn()
        data = request(*self.rand_req())
        c.send(data[:self.rng.randint(0, len(data) - 1)])
        time.sleep(self.rng.random() * 0.05)
        c.close(reset=self.rng.random() < 0.5)
        self.stats.ok("abort-mid-request")

    def s_abort_response(self):
        c = self.conn(rcvbuf=4096)
        n = self.rng.randint(1, 6)
        c.send(request("GET", "/metrics") * n)
        want = self.rng.randint(1, 20000)
        got = 0
        while got < want:
            d = c.s.recv(min(4096, want - got))
            if not d:
                raise Violation("EOF after %d bytes of a /metrics reply" % got)
            got += len(d)
        c.close(reset=self.rng.random() < 0.5)
        self.stats.ok("abort-mid-response")

    def s_halfclose(self):
        c = self.conn()
        n = self.rng.randint(1, 5)
        reqs = [self.rand_req() for _ in range(n)]
        c.send(b"".join(request(*q) for q in reqs))
        c.s.shutdown(socket.SHUT_WR)
        for q in reqs:
            check(q, c.response(q[0] == "HEAD"))
        c.read_until_eof()
        if not c.eof or c.buf:
            raise Violation("half-closed connection: no EOF after the replies, or extra bytes")
        c.close()
        self.stats.ok("half-close-requests", n)

    def s_slowreader(self):
        c = self.conn(rcvbuf=4096)
        n = self.rng.randint(2, 10)
        reqs = [("GET", "/metrics", self.rng.random() < 0.3) for _ in range(n)]
        c.send(b"".join(request(*q) for q in reqs))
        time.sleep(0.5 + self.rng.random() * 3.0)  # well under the 10 s time-out
        for q in reqs:
            check(q, c.response(False))
        c.close()
        self.stats.ok("slow-reader-requests", n)

    SCENARIOS = [
        (s_keepalive, 20), (s_pipeline, 15), (s_trickle, 8), (s_garbage, 8), (s_overlong, 5),
        (s_body, 5), (s_abort_request, 8), (s_abort_response, 8), (s_halfclose, 8), (s_slowreader, 3),
    ]

    def run(self):
        fns = [f for f, _ in self.SCENARIOS]
        weights = [w for _, w in self.SCENARIOS]
        while time.monotonic() < self.deadline:
            f = self.rng.choices(fns, weights)[0]
            name = f.__name__[2:]
            try:
                f(self)
            except Violation as e:
                self.stats.bad(name + ": " + re.sub(r"[0-9]+", "N", str(e))[:60], str(e))
            except socket.timeout:
                self.stats.bad(name + ": timeout", "no progress in %.0f s" % IO_TIMEOUT)
            except (ConnectionResetError, BrokenPipeError, ConnectionRefusedError) as e:
                self.stats.bad(name + ": " + type(e).__name__, str(e))
            except OSError as e:
                self.stats.bad(name + ": OSError", str(e))


def healthz(addr, src="127.0.0.10"):
    c = Client(addr, src)
    c.send(request("GET", "/healthz"))
    r = c.response(False)
    c.close()
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("addr")
    ap.add_argument("--duration", type=float, default=20)
    ap.add_argument("--workers", type=int, default=24)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    host, _, port = a.addr.rpartition(":")
    addr = (host, int(port))
    stats = Stats()
    deadline = time.monotonic() + a.duration
    ws = [Worker(i, addr, deadline, a.seed, stats) for i in range(a.workers)]
    for w in ws:
        w.start()
    worst = 0.0
    while time.monotonic() < deadline:  # a scrape from another address is answered
        t = time.monotonic()
        try:
            code, _, _ = healthz(addr)
            if code not in (200, 503):
                stats.bad("monitor: healthz %d" % code, "")
        except (Violation, OSError) as e:
            stats.bad("monitor: " + type(e).__name__, str(e))
        worst = max(worst, time.monotonic() - t)
        time.sleep(0.5)
    for w in ws:
        w.join(IO_TIMEOUT + 5)
    alive = sum(w.is_alive() for w in ws)
    if alive:
        stats.bad("workers still running", "%d" % alive)
    # No bound on how long the monitor's scrapes took: the machine is shared and
    # noisy; a scrape that gets no answer within IO_TIMEOUT is a violation above.
    for i in range(10):  # the server still answers, and is healthy again
        try:
            code = healthz(addr)[0]
        except (Violation, OSError) as e:
            code = str(e)
        if code == 200:
            break
        time.sleep(0.5)
    else:
        stats.bad("final healthz", "got %s" % code)
    for k in sorted(stats.counts):
        print("ok   %-24s %d" % (k, stats.counts[k]))
    print("monitor: slowest /healthz %.3f s" % worst)
    for k in sorted(stats.violations):
        print("FAIL %s: %d (e.g. %s)" % (k, stats.violations[k], stats.examples[k]))
    return 1 if stats.violations else 0


if __name__ == "__main__":
    sys.exit(main())
