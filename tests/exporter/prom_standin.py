#!/usr/bin/env python3
"""tests/exporter/prom_standin.py PORTFILE LOG [CERT KEY] - a stand-in for the
Prometheus query API on 127.0.0.1 (an ephemeral port, written to PORTFILE),
for the error paths of `gpudoctor fleet` (tests/exporter/fleet_errors.sh).
The first path element picks the behaviour; every request is logged to LOG
as one JSON line (method, path, headers, form).  With CERT and KEY it
speaks HTTPS (for --ca-file and --insecure).

  /ok/...        success, empty vectors          /warn/...   success with warnings[] and infos[]
  /e400/...      400 bad_data                     /e422/...   422 execution
  /e503/...      503 timeout                      /big/...    three series (for --limit 2)
  /bearer/...    401 text unless Bearer secret    /basic/...  401 unless basic u:pw
  /tenant/...    401 unless X-Scope-OrgID: team   /slow/...   its first answer after 30 s
  /proxy502/...  502 with an HTML body            /broken/... 200 with a truncated JSON
  /getonly/...   405 to a POST, success to a GET with the query in the URL
  /esc/...       success: label values and a warning holding terminal escapes (secrets_escapes.sh)
  /escerr/...    422 with an error string holding terminal escapes
  /bomb-obj/...  60 MB of {} objects as data.result   /bomb-arr/... 60 MB of [] arrays as data.result
  /bomb-warn/... 60 MB of {} objects as warnings[]    /bomb-labels/... one series of 60 MB of labels
  /bomb-fit/...  as many {} in warnings[] as --limit 20000 lets through (430,981: 1.3 MB)
                 (bombs answer the first query, "nodes now"; /bomb-obj.10/: 10 MB, not 60)
  /toolong/...   65 MiB of spaces (more than fleet reads of one answer)
  /badnum/...    numbers no server should send: GPU counts -20, NaN, 1e308 and 8 (one good node),
                 onsets and active seconds 1e308, -5, +Inf, NaN and 3, a node count of -1
"""
import base64
import json
import ssl
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = sys.argv[2]
LOCK = threading.Lock()
SLOW_SEEN = []


def vector(n):
    return [{"metric": {"rule": "gpu.lost", "instance": "n%d:9835" % i, "gpu": "0"},
             "value": [1764590000.5, "1"]} for i in range(n)]


BOMBS = {}


def bomb(mode):
    """A body (built once) that costs a parser that builds a tree far more
    than its size: /bomb-KIND.MB/ (MB: its size, default 60)."""
    with LOCK:
        if mode not in BOMBS:
            kind, _, mb = mode.partition(".")
            size = int(mb or 60) * 1000 * 1000
            n = size // 3
            env = '{"status":"success","data":{"resultType":"vector","result":%s}%s}'
            if kind == "bomb-obj":
                b = env % ("[" + "{}," * (n - 1) + "{}]", "")
            elif kind == "bomb-arr":
                b = env % ("[" + "[]," * (n - 1) + "[]]", "")
            elif kind == "bomb-warn":
                b = env % ("[]", ',"warnings":[' + "{}," * (n - 1) + "{}]")
            elif kind == "bomb-labels":
                labels = ",".join('"l%d":""' % i for i in range(size // 12))
                b = env % ('[{"metric":{%s},"value":[1764590000.5,"1"]}]' % labels, "")
            else:  # bomb-fit: the most {} objects (240 bytes each to fleet's estimate) --limit 20000 lets through
                k = (20000 * 5120 + (1 << 20)) // 240 - 100
                b = env % ("[]", ',"warnings":[' + "{}," * (k - 1) + "{}]")
            BOMBS[mode] = b.encode()
        return BOMBS[mode]


class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def send(self, code, body, ctype="application/json"):
        b = body.encode() if isinstance(body, str) else body
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)

    def do_GET(self):
        # /getonly/: the query in the URL, as after a POST refused with 405
        if self.path.startswith("/getonly/") and "?" in self.path:
            form = urllib.parse.parse_qs(self.path.split("?", 1)[1])
            with LOCK, open(LOG, "a") as f:
                f.write(json.dumps({"method": "GET", "path": self.path.split("?")[0], "headers": dict(self.headers),
                                    "form": form}) + "\n")
            return self.send(200, json.dumps({"status": "success", "data": {"resultType": "vector", "result": []}}))
        self.send(405, json.dumps({"status": "error", "errorType": "bad_data", "error": "GET not here"}))

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        form = urllib.parse.parse_qs(self.rfile.read(n).decode())
        with LOCK, open(LOG, "a") as f:
            f.write(json.dumps({"method": "POST", "path": self.path, "headers": dict(self.headers),
                                "form": form}) + "\n")
        mode = self.path.split("/")[1]
        if mode == "getonly":
            return self.send(405, "Method Not Allowed\n", "text/plain")
        ok = json.dumps({"status": "success", "data": {"resultType": "vector", "result": []}})
        if mode == "ok":
            return self.send(200, ok)
        if mode == "warn":
            return self.send(200, json.dumps({"status": "success", "data": {"resultType": "vector", "result": []},
                                              "warnings": ["store 10.0.0.7:10901 unavailable: partial response"],
                                              "infos": ["PromQL info: metric might not be a counter"]}))
        if mode in ("e400", "e422", "e503"):
            code = int(mode[1:])
            et = {400: "bad_data", 422: "execution", 503: "timeout"}[code]
            msg = {400: "invalid parameter \"query\": 1:2: parse error: unexpected",
                   422: "query processing would load too many samples into memory in query execution",
                   503: "query timed out in expression evaluation"}[code]
            return self.send(code, json.dumps({"status": "error", "errorType": et, "error": msg}))
        if mode == "big":
            return self.send(200, json.dumps({"status": "success", "data": {"resultType": "vector",
                                                                            "result": vector(3)}}))
        if mode == "bearer":
            if self.headers.get("Authorization") != "Bearer s3cret-token":
                return self.send(401, "Unauthorized\n", "text/plain")
            return self.send(200, ok)
        if mode == "basic":
            want = "Basic " + base64.b64encode(b"alice:pa55word").decode()
            if self.headers.get("Authorization") != want:
                return self.send(401, "Unauthorized\n", "text/plain")
            return self.send(200, ok)
        if mode == "tenant":
            if self.headers.get("X-Scope-OrgID") != "team":
                return self.send(401, "no org id\n", "text/plain")
            return self.send(200, ok)
        if mode == "slow":
            # only the first request hangs: a client without a deadline
            # then gets its answers (and succeeds) after 30 s, not 30 s a query
            with LOCK:
                first = not SLOW_SEEN
                SLOW_SEEN.append(1)
            if first:
                time.sleep(30)
            return self.send(200, ok)
        if mode == "toolong":
            # 65 MiB of spaces: more than fleet reads of one answer (64 MiB)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(65 << 20))
            self.end_headers()
            try:
                for _ in range(65):
                    self.wfile.write(b" " * (1 << 20))
            except OSError:
                pass
            return
        if mode.startswith("bomb-"):
            # the first query's answer; the others' empty
            first = form.get("query", [""])[0].startswith("count(gpudoctor_build_info")
            return self.send(200, bomb(mode) if first else ok)
        if mode == "badnum":
            q = form.get("query", [""])[0]

            def vec(vals, **lab):
                return json.dumps({"status": "success", "data": {"resultType": "vector", "result": [
                    {"metric": dict(lab, instance="n%d:9835" % i, job="gpudoctor"), "value": [1764590000.5, v]}
                    for i, v in enumerate(vals)]}})
            if q.startswith("count(gpudoctor_build_info"):
                return self.send(200, vec(["-1"]))
            if "gpudoctor_gpus_lost" in q:
                return self.send(200, vec(["-20", "NaN", "1e308", "8"]))
            if "gpudoctor_finding_onsets_total" in q or "gpudoctor_finding_active_seconds_total" in q:
                return self.send(200, vec(["1e308", "-5", "+Inf", "NaN", "3"], rule="gpu.xid", gpu="0"))
            return self.send(200, ok)
        if mode == "proxy502":
            return self.send(502, "<html><body><h1>502 Bad Gateway</h1></body></html>\n", "text/html")
        if mode == "broken":
            return self.send(200, '{"status":"success","data":{"resultType":"vector","result":[')
        if mode in ("esc", "escerr"):
            bad = "\x1b[2J\x1b]0;pwned\x07\x9b"
            if mode == "escerr":
                return self.send(422, json.dumps({"status": "error", "errorType": "execution" + bad, "error": bad}))
            res = [{"metric": {"rule": "gpu.lost" + bad, "instance": "n1" + bad + ":9835", "gpu": "0" + bad,
                               "node": "n1" + bad, "model": "H100" + bad, "subject": bad, "remedy": bad},
                    "value": [1764590000.5, "1"]}]
            return self.send(200, json.dumps({"status": "success", "data": {"resultType": "vector", "result": res},
                                              "warnings": ["partial" + bad]}))
        return self.send(404, "404 page not found\n", "text/plain")


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
if len(sys.argv) > 4:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[3], sys.argv[4])
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
with open(sys.argv[1], "w") as f:
    f.write(str(srv.server_address[1]))
srv.serve_forever()
