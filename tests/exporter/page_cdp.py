#!/usr/bin/env python3
"""tests/exporter/page_cdp.py - drives one headless chromium over the
DevTools protocol (a WebSocket, spoken here with the standard library) to
check serve's node page (page_browser.sh).

    page_cdp.py DEVTOOLS_WS_URL BASE_URL ARTIFACT_DIR HOT_GPU

For each language (en, zh_CN) at 1280x800 and 390x844: loads BASE_URL/
(?lang=zh_CN), checks that the verdict names gpuHOT, that in the
utilisation chart gpuHOT's line is in colour and a healthy GPU's grey, that
nothing logs an error (a blocked script or fetch would), that the page does
not overflow the width, and takes a screenshot; then waits for the page's
script to fetch and swap it (in English) and checks that its data time
advanced.  With
script disabled: the findings are there, and the <noscript> refresh reloads
the page with newer data.  Waits are bounded, never judged.
"""
import base64
import json
import os
import socket
import struct
import sys
import time
import urllib.parse


class CDP:
    def __init__(self, url):
        u = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {u.path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
                          .encode())
        head = b""
        while b"\r\n\r\n" not in head:
            c = self.sock.recv(1)
            if not c:
                raise SystemExit("FAIL: DevTools closed the WebSocket handshake")
            head += c
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise SystemExit("FAIL: DevTools refused the WebSocket: %r" % head[:200])
        self.next_id = 0
        self.events = []
        self.session = None

    def _recv_exact(self, n):
        b = b""
        while len(b) < n:
            c = self.sock.recv(n - len(b))
            if not c:
                raise SystemExit("FAIL: chromium closed the DevTools connection")
            b += c
        return b

    def _recv_msg(self):
        data = b""
        while True:
            h = self._recv_exact(2)
            fin, op, n = h[0] & 0x80, h[0] & 0x0F, h[1] & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._recv_exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._recv_exact(8))[0]
            payload = self._recv_exact(n)
            if op == 0x8:
                raise SystemExit("FAIL: chromium closed the DevTools connection")
            if op in (0x9, 0xA):
                continue
            data += payload
            if fin:
                return json.loads(data)

    def _send(self, obj):
        p = json.dumps(obj).encode()
        mask = os.urandom(4)
        n = len(p)
        hdr = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else
                               bytes([0x80 | 126]) + struct.pack(">H", n) if n < 65536 else
                               bytes([0x80 | 127]) + struct.pack(">Q", n))
        self.sock.sendall(hdr + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(p)))

    def call(self, method, params=None, browser=False):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session and not browser:
            msg["sessionId"] = self.session
        self._send(msg)
        while True:
            m = self._recv_msg()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise SystemExit(f"FAIL: {method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, name, limit_s=30):
        end = time.monotonic() + limit_s
        while time.monotonic() < end:
            for i, e in enumerate(self.events):
                if e["method"] == name:
                    del self.events[i]
                    return e
            self.sock.settimeout(max(0.1, end - time.monotonic()))
            try:
                self.events.append(self._recv_msg())
            except socket.timeout:
                break
            finally:
                self.sock.settimeout(60)
        raise SystemExit(f"FAIL: no {name} within {limit_s} s")

    def js(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            raise SystemExit(f"FAIL: {expr}: {r['exceptionDetails']}")
        return r["result"].get("value")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    ws, base, art, hot = sys.argv[1], sys.argv[2].rstrip("/"), sys.argv[3], sys.argv[4]
    b = CDP(ws)
    t = b.call("Target.createTarget", {"url": "about:blank"}, browser=True)["targetId"]
    b.session = b.call("Target.attachToTarget", {"targetId": t, "flatten": True}, browser=True)["sessionId"]
    for d in ("Page", "Runtime", "Log"):
        b.call(d + ".enable")

    def load(url, w, h):
        b.call("Emulation.setDeviceMetricsOverride", {"width": w, "height": h, "deviceScaleFactor": 1,
                                                      "mobile": w < 600})
        b.events = [e for e in b.events if e["method"] != "Page.loadEventFired"]
        b.call("Page.navigate", {"url": url})
        b.wait_event("Page.loadEventFired")
        # the first request of a language may get the "drawing" page, which reloads in a second
        for _ in range(100):
            if b.js("!!document.querySelector('p.verdict[data-exit]')"):
                return
            time.sleep(0.1)
        fail(f"{url}: no verdict: {b.js('document.body.innerText')[:300]}")

    def shot(name):
        data = b.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(os.path.join(art, name + ".png"), "wb") as f:
            f.write(base64.b64decode(data))

    def errors():
        bad = [e["params"]["entry"] for e in b.events
               if e["method"] == "Log.entryAdded" and e["params"]["entry"]["level"] == "error"]
        bad += [e["params"] for e in b.events if e["method"] == "Runtime.exceptionThrown"]
        return bad

    def data_time():
        return b.js("(function(){var e=document.querySelector('main .data');return e?+e.dataset.time:0})()")

    for lang, q in (("en", "/"), ("zh_CN", "/?lang=zh_CN")):
        for w, h in ((1280, 800), (390, 844)):
            load(base + q, w, h)
            tag = f"{lang} {w}x{h}"
            v = b.js("document.querySelector('p.verdict').innerText + ' ' + "
                     "document.querySelector('ul.top').innerText")
            if f"gpu{hot}" not in v:
                fail(f"{tag}: the verdict does not name gpu{hot}: {v[:300]}")
            want_lang = "zh-CN" if lang == "zh_CN" else "en"
            if b.js("document.documentElement.lang") != want_lang:
                fail(f"{tag}: html lang is {b.js('document.documentElement.lang')}")
            if lang == "zh_CN" and not any("\u4e00" <= ch <= "\u9fff" for ch in v):
                fail(f"{tag}: no Chinese in the verdict: {v[:200]}")
            strokes = b.js("(function(){var r={};document.querySelectorAll('svg.chart[data-chart=\"util\"] g.gpu')"
                           ".forEach(function(g){var p=g.querySelector('path.series');"
                           "if(p)r[g.dataset.gpu]=[g.getAttribute('class'),getComputedStyle(p).stroke]});"
                           "return r})()")
            if str(hot) not in strokes:
                fail(f"{tag}: no line of gpu{hot} in the utilisation chart: {strokes}")
            grey = "rgb(163, 169, 176)"
            if "hl" not in strokes[str(hot)][0].split() or strokes[str(hot)][1] == grey:
                fail(f"{tag}: gpu{hot}'s line is not the coloured one: {strokes}")
            if not any(c[1] == grey for g, c in strokes.items() if g != str(hot)):
                fail(f"{tag}: no healthy GPU's line is grey: {strokes}")
            sw = b.js("document.documentElement.scrollWidth")
            if sw > w + 2:
                fail(f"{tag}: the page is {sw} px wide in a {w} px window")
            rows = b.js("document.querySelectorAll('#findings tr[data-rule]').length")
            if not rows:
                fail(f"{tag}: no findings table")
            shot(f"page-{lang}-{w}x{h}")
            print(f"ok: {tag}: gpu{hot} in the verdict and in colour, {rows} findings, {sw} px wide")
        if lang != "en":
            continue
        # the script fetches the page again and swaps it: newer data, the same window
        t0 = data_time()
        for _ in range(150):
            time.sleep(0.1)
            if data_time() > t0 and b.js("+document.body.dataset.swaps || 0") >= 1:
                break
        else:
            fail(f"{lang}: the page's data time did not advance ({t0}) by its script")
        print(f"ok: {lang}: the script swapped the page in, data time {t0:.1f} -> {data_time():.1f}")

    # script off: the findings are there and the meta refresh reloads it
    b.call("Emulation.setScriptExecutionDisabled", {"value": True})
    load(base + "/", 1280, 800)
    if b.js("+document.body.dataset.swaps || 0"):
        fail("script off: the page's script ran")
    rows = b.js("document.querySelectorAll('#findings tr[data-rule]').length")
    v = b.js("document.querySelector('p.verdict').innerText + ' ' + document.querySelector('ul.top').innerText")
    if not rows or f"gpu{hot}" not in v:
        fail(f"script off: findings {rows}, verdict {v[:200]}")
    shot("page-noscript-1280x800")
    t0 = data_time()
    b.events = [e for e in b.events if e["method"] != "Page.loadEventFired"]
    b.wait_event("Page.loadEventFired")
    for _ in range(50):
        if data_time() > t0:
            break
        time.sleep(0.1)
    else:
        fail(f"script off: the meta refresh brought no newer data ({t0})")
    print(f"ok: script off: {rows} findings, gpu{hot} in the verdict; reloaded, data time {t0:.1f} -> {data_time():.1f}")
    bad = errors()
    if bad:
        fail(f"errors logged: {bad[:3]}")


main()
