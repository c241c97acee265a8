#!/usr/bin/env python3
"""lockout.py - try to lock Prometheus out of `gpudoctor serve`'s HTTP front
(the driver of tests/exporter/lockout.sh; read its comment first).

usage: lockout.py attack HOST:PORT [--scrapes N] [--interval S] [--rate R]
       lockout.py own-address HOST:PORT
       lockout.py head-deadline HOST:PORT

attack: 256 connections from 127.0.0.2-9 (32 each: the per-address limit,
  and together the whole table) each keep half a request pending: each
  sends "G" at once, then, one connection after another at R requests/s in
  all (default 29: every connection's turn comes every 8.8 s, inside the
  10 s head time-out), the rest of a GET /healthz and the first byte of the
  next one.  A connection the server closes is opened again at once (an
  attacker does), and sends its "G".  Meanwhile a scraper on 127.0.0.10
  scrapes /metrics N times (default 30), S seconds apart (default 0.1), each
  on a new connection, as Prometheus does when its interval is longer than
  the server's idle time-out; it must get every one (200 and gpudoctor_up
  1).  Prints the figures; exit 0 when every scrape was served.

own-address: 32 kept-alive connections from 127.0.0.1, each answered once
  and then idle, then a scrape from 127.0.0.1 on a new connection: it must
  be served, the first of the 32 (idle longest) must have been closed in
  its place and the last must still be answered.

head-deadline: a request head must arrive within the time-out counted from
  its first byte, whatever was answered before it on the connection.
  Connection P (127.0.0.2, a 4 KiB receive buffer) sends 400 pipelined GET
  /metrics (12 MB of replies: more than any socket buffer holds, so the
  server writes them for as long as P does not read) followed by the first
  byte of a 401st, and reads nothing for 7 s; at 3.5 s connection R
  (127.0.0.3) sends one byte of a request and nothing more.  Then P reads
  the 400 replies.  P's pending head began at 0 s, R's at 3.5 s: the
  server must close P while R is still open (a server that starts P's time
  at its last reply, 7 s or later, closes R first).  Only the order is
  judged.

Every socket has a time-out, so nothing waits forever.
"""
import argparse
import selectors
import socket
import sys
import threading
import time

IO_TIMEOUT = 10.0
HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: lockout\r\n\r\n"


def addr_of(s):
    host, _, port = s.rpartition(":")
    return host, int(port)


def connect(addr, src, rcvbuf=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.bind((src, 0))
    s.settimeout(IO_TIMEOUT)
    s.connect(addr)
    return s


def read_reply(s, buf=b""):
    """One reply from s (after buf): (status, body, rest), or None at EOF or
    a reset before it was whole."""
    try:
        while b"\r\n\r\n" not in buf:
            d = s.recv(65536)
            if not d:
                return None
            buf += d
        head, _, rest = buf.partition(b"\r\n\r\n")
        n = 0
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                n = int(v)
        while len(rest) < n:
            d = s.recv(65536)
            if not d:
                return None
            rest += d
        return int(head.split()[1]), rest[:n], rest[n:]
    except (ConnectionError, socket.timeout):
        return None


def ask(s):
    """GET /healthz on s: the reply, or None when s was closed."""
    try:
        s.sendall(HEALTHZ)
    except OSError:
        return None
    return read_reply(s)


def scrape(addr, src):
    """A scrape of /metrics on a new connection: "ok" or why not."""
    try:
        s = connect(addr, src)
    except OSError as e:
        return "connect: %s" % e
    try:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: lockout\r\nConnection: close\r\n\r\n")
        r = read_reply(s)
    except OSError as e:
        return "send: %s" % e
    finally:
        s.close()
    if r is None:
        return "closed without a reply"
    if r[0] != 200 or b"\ngpudoctor_up 1\n" not in r[1]:
        return "status %d" % r[0]
    return "ok"


class Attacker(threading.Thread):
    """256 connections keeping half a request pending (see attack above)."""

    def __init__(self, addr, rate):
        super().__init__(daemon=True)
        self.addr, self.rate = addr, rate
        self.srcs = ["127.0.0.%d" % a for a in range(2, 10) for _ in range(32)]
        self.conns = [None] * len(self.srcs)
        self.sel = selectors.DefaultSelector()
        self.ready = threading.Event()
        self.stopping = threading.Event()
        self.sent = self.replies = self.closed = self.errors = 0

    def open(self, i):
        try:
            s = connect(self.addr, self.srcs[i])
            s.sendall(b"G")
            s.setblocking(False)
        except OSError:
            self.errors += 1
            self.conns[i] = None
            return
        self.conns[i] = s
        self.sel.register(s, selectors.EVENT_READ, i)

    def lost(self, i):
        # the server closed it (or reset it): open it again at once
        self.closed += 1
        self.sel.unregister(self.conns[i])
        self.conns[i].close()
        self.open(i)

    def run(self):
        for i in range(len(self.conns)):
            self.open(i)
        self.ready.set()
        turn, due = 0, time.monotonic()
        while not self.stopping.is_set():
            for key, _ in self.sel.select(max(0.0, due - time.monotonic())):
                i = key.data
                try:
                    d = self.conns[i].recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    d = b""
                if d:
                    self.replies += d.count(b"HTTP/1.1 ")
                else:
                    self.lost(i)
            if time.monotonic() < due:
                continue
            due += 1.0 / self.rate
            i = turn % len(self.conns)
            turn += 1
            if self.conns[i] is None:
                self.open(i)
                continue
            try:
                self.conns[i].send(HEALTHZ[1:] + b"G")
                self.sent += 1
            except OSError:
                self.lost(i)
        for s in self.conns:
            if s is not None:
                s.close()


def attack(a):
    addr = addr_of(a.addr)
    att = Attacker(addr, a.rate)
    att.start()
    att.ready.wait(60)
    held = sum(s is not None for s in att.conns)
    served, fails = 0, {}
    t0 = time.monotonic()
    for _ in range(a.scrapes):
        r = scrape(addr, "127.0.0.10")
        if r == "ok":
            served += 1
        else:
            fails[r] = fails.get(r, 0) + 1
        time.sleep(a.interval)
    took = time.monotonic() - t0
    att.stopping.set()
    att.join(30)
    print("attack: %d connections from 127.0.0.2-9 opened, each keeping half a request pending; "
          "%d requests completed at %.0f/s, %d replies, %d connections closed by the server and opened again"
          % (held, att.sent, a.rate, att.replies, att.closed))
    print("scrapes from 127.0.0.10: %d of %d served in %.1f s%s" % (
        served, a.scrapes, took,
        "" if not fails else "; failed: " + ", ".join("%s x%d" % kv for kv in fails.items())))
    return 0 if served == a.scrapes and held == len(att.conns) else 1


def own_address(a):
    addr = addr_of(a.addr)
    held = []
    try:
        for i in range(32):
            s = connect(addr, "127.0.0.1")
            held.append(s)
            r = ask(s)
            if r is None or r[0] != 200:
                print("FAIL: kept-alive connection %d of 32 from 127.0.0.1 got %r" % (i + 1, r))
                return 1
        r = scrape(addr, "127.0.0.1")
        print("32 idle kept-alive connections from 127.0.0.1; a scrape from 127.0.0.1: %s" % r)
        if r != "ok":
            print("FAIL: the scrape from 127.0.0.1 was not served")
            return 1
        first, last = ask(held[0]), ask(held[-1])
        print("the first of the 32 (idle longest): %s; the last: %s" % (
            "closed" if first is None else "answered %d" % first[0],
            "closed" if last is None else "answered %d" % last[0]))
        if first is not None or last is None or last[0] != 200:
            print("FAIL: the scrape did not take the place of 127.0.0.1's connection idle longest")
            return 1
        return 0
    except OSError as e:
        print("FAIL: %s" % e)
        return 1
    finally:
        for s in held:
            s.close()


def closed_at(socks, t0, until):
    """For each socket, seconds after t0 at which the server closed it (EOF
    or a reset), or None if it was still open when the first of them was
    closed (or at until)."""
    sel = selectors.DefaultSelector()
    when = [None] * len(socks)
    for i, s in enumerate(socks):
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, i)
    while when == [None] * len(socks) and time.monotonic() < until:
        for key, _ in sel.select(until - time.monotonic()):
            try:
                if key.fileobj.recv(65536) != b"":
                    continue
            except BlockingIOError:
                continue
            except ConnectionError:
                pass
            when[key.data] = time.monotonic() - t0
            sel.unregister(key.fileobj)
    return when


def head_deadline(a):
    addr = addr_of(a.addr)
    n = 400
    p = connect(addr, "127.0.0.2", rcvbuf=4096)
    t0 = time.monotonic()
    p.sendall(b"GET /metrics HTTP/1.1\r\nHost: lockout\r\n\r\n" * n + b"G")
    time.sleep(3.5)
    r = connect(addr, "127.0.0.3")
    r.sendall(b"G")
    time.sleep(3.5)
    buf, got = b"", 0
    while got < n:
        rep = read_reply(p, buf)
        if rep is None or rep[0] != 200:
            print("FAIL: pipelined reply %d of %d: %r" % (got + 1, n, rep and rep[0]))
            return 1
        buf = rep[2]
        got += 1
    done = time.monotonic() - t0
    # P's end must come first: wait for it (R stays open at least as long)
    tp, tr = closed_at([p, r], t0, time.monotonic() + 30)
    p.close()
    r.close()
    fmt = lambda t: "still open" if t is None else "closed at %.1f s" % t
    print("P: 400 pipelined replies read by %.1f s, its 401st head (begun at 0 s) %s; "
          "R (head begun at 3.5 s) %s" % (done, fmt(tp), fmt(tr)))
    if tp is None or tr is not None:
        print("FAIL: the head pipelined behind 400 replies outlived one begun 3.5 s later")
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=["attack", "own-address", "head-deadline"])
    ap.add_argument("addr")
    ap.add_argument("--scrapes", type=int, default=30)
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("--rate", type=float, default=29.0)
    a = ap.parse_args()
    return {"attack": attack, "own-address": own_address, "head-deadline": head_deadline}[a.what](a)


if __name__ == "__main__":
    sys.exit(main())
