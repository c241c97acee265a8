#!/bin/bash
# tests/exporter/fleet_errors.sh - the error paths of `gpudoctor fleet
# --prometheus URL` against a stand-in for the query API
# (prom_standin.py, loopback only): Prometheus down, 400/422/503 with the
# server's errorType and error quoted, warnings/infos in a 200 (listed under
# "could not see", exit 0), an answer over --limit, a bad or missing token,
# basic auth, a tenant header, a non-JSON 502 from a proxy, a truncated
# JSON, a server slower than --timeout, one that refuses POST (405: the
# query is sent again as a GET), and https with an untrusted,
# trusted (--ca-file) and ignored (--insecure) certificate.  Each must end with exit 3 and
# a message that names the cause, never a crash or a table.  Numbers out of
# range (negative, NaN, 1e308 GPUs) are left out with a warning.  The requests
# are POST forms with query, time, timeout and limit.
set -u
. "$(dirname "$0")/lib.bash"
need python3
need jq
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
python3 tests/exporter/prom_standin.py "$TMP/port" "$TMP/req.log" &
PIDS+=($!)
for i in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
[ -s "$TMP/port" ] || die "the stand-in did not start"
S=http://127.0.0.1:$(cat "$TMP/port")
printf 's3cret-token\n' >"$TMP/token"
printf 'wrong\n' >"$TMP/badtoken"
printf 'pa55word\n' >"$TMP/pw"

# run NAME WANT-RC REGEX ARGS...: the exit status and a line of output
run() {
	local name=$1 want=$2 re=$3 rc
	shift 3
	"$G" fleet --range 1h "$@" >"$TMP/$name.out" 2>&1
	rc=$?
	[ "$rc" = "$want" ] || die "$name: exit $rc, want $want: $(head -c 600 "$TMP/$name.out")"
	grep -Eq "$re" "$TMP/$name.out" || die "$name: output lacks /$re/: $(head -c 600 "$TMP/$name.out")"
}
# a port nothing listens on: Prometheus down
down=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
run down 3 "query nodes now: http://127.0.0.1:$down/api/v1/query: .*(onnect|refused)" --prometheus "http://127.0.0.1:$down"
run ok 0 '^Causes ' --prometheus "$S/ok"
run e400 3 'HTTP 400, bad_data: invalid parameter' --prometheus "$S/e400"
run e422 3 'HTTP 422, execution: query processing would load too many samples' --prometheus "$S/e422"
run e503 3 'HTTP 503, timeout: query timed out' --prometheus "$S/e503"
run warn 0 'warning \(query nodes\): store 10.0.0.7:10901 unavailable' --prometheus "$S/warn"
grep -q 'PromQL info: metric might not be a counter' "$TMP/warn.out" || die "infos not listed: $(cat "$TMP/warn.out")"
"$G" fleet --prometheus "$S/warn" --json >"$TMP/warn.json" || die "--json with warnings failed"
jq -e '.warnings | length > 10 and (map(.warning) | index("store 10.0.0.7:10901 unavailable: partial response") != null)' \
	"$TMP/warn.json" >/dev/null || die "warnings not in the JSON: $(jq -c .warnings "$TMP/warn.json")"
run big 3 '3 series, more than the limit of 2' --prometheus "$S/big" --limit 2
run big-ok 0 '^Causes ' --prometheus "$S/big" --limit 3
run bearer-none 3 'HTTP 401 \(authentication refused' --prometheus "$S/bearer"
run bearer-bad 3 'HTTP 401 \(authentication refused' --prometheus "$S/bearer" --bearer-token-file "$TMP/badtoken"
run bearer 0 '^Causes ' --prometheus "$S/bearer" --bearer-token-file "$TMP/token"
run basic 0 '^Causes ' --prometheus "$S/basic" --basic-auth alice --password-file "$TMP/pw"
run basic-bad 3 'HTTP 401' --prometheus "$S/basic" --basic-auth alice --password-file "$TMP/badtoken"
run tenant 0 '^Causes ' --prometheus "$S/tenant" --header 'X-Scope-OrgID: team'
run tenant-none 3 'HTTP 401.*no org id' --prometheus "$S/tenant"
run proxy502 3 'HTTP 502: <html><body><h1>502 Bad Gateway' --prometheus "$S/proxy502"
run broken 3 'not a JSON object \(line 1, column' --prometheus "$S/broken"
run slow 3 'no answer within 2 s \(--timeout\)' --prometheus "$S/slow" --timeout 1s
run getonly 0 '^Causes ' --prometheus "$S/getonly"
jq -se 'map(select((.path | startswith("/getonly/")) and .method == "GET")) | length > 10 and all(.form.query | length == 1)' \
	"$TMP/req.log" >/dev/null || die "no GET after a 405 to the POST: $(grep getonly "$TMP/req.log" | head -n 1)"
# numbers no server should send (negative, NaN, 1e308 GPUs and onsets):
# left out with a warning each, never cast ("18446744073709551596 GPUs")
# nor summed into an infinite total that --json drops
run badnum 0 'warning \(query GPUs per node\): 3 values out of range' --prometheus "$S/badnum"
grep -q ': 0 nodes, 8 GPUs$' "$TMP/badnum.out" || die "badnum: the GPUs: $(head -n 1 "$TMP/badnum.out")"
grep -q 'warning (query causes: onsets): 4 values out of range' "$TMP/badnum.out" || die "badnum: $(cat "$TMP/badnum.out")"
"$G" fleet --range 1h --prometheus "$S/badnum" --json >"$TMP/badnum.json" || die "badnum --json failed"
jq -e '.gpus == 8 and .total_onsets == 3 and (.total_gpu_hours | type == "number") and .total_gpu_hours < 1
	and (.causes | map(select(.rule == "gpu.xid")) | .[0].onsets == 3 and .[0].nodes == 1)' "$TMP/badnum.json" >/dev/null ||
	die "badnum --json: $(jq -c '[.gpus, .total_onsets, .total_gpu_hours, .causes]' "$TMP/badnum.json")"
run nopw 3 'needs --password-file' --prometheus "$S/ok" --basic-auth alice
run badmatch 3 'expected LABEL=VALUE' --prometheus "$S/ok" --match '=x'
run badurl 3 'expected an http:// or https:// URL' --prometheus "ftp://x"
run norange 3 'range' --prometheus "$S/ok" --range 0s
# https: a self-signed certificate for 127.0.0.1, trusted with --ca-file or
# ignored with --insecure, refused otherwise
need openssl
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
	-keyout "$TMP/key.pem" -out "$TMP/cert.pem" >/dev/null 2>&1 || die "openssl req failed"
python3 tests/exporter/prom_standin.py "$TMP/tport" "$TMP/treq.log" "$TMP/cert.pem" "$TMP/key.pem" &
PIDS+=($!)
for i in $(seq 100); do [ -s "$TMP/tport" ] && break; sleep 0.1; done
[ -s "$TMP/tport" ] || die "the TLS stand-in did not start"
T=https://127.0.0.1:$(cat "$TMP/tport")
run tls-untrusted 3 'query nodes now: https://127.0.0.1:[0-9]+/ok/api/v1/query: .*(certificate|SSL)' --prometheus "$T/ok"
run tls-ca 0 '^Causes ' --prometheus "$T/ok" --ca-file "$TMP/cert.pem"
run tls-insecure 0 '^Causes ' --prometheus "$T/ok" --insecure
# the requests: POST forms with the bounds; the token never in the URL
jq -se 'map(select(.path | startswith("/ok/"))) | length > 10 and
	all(.method == "POST" and (.form.query | length) == 1 and .form.timeout == ["60s"] and .form.limit == ["20001"]
	and (.form.time[0] | tonumber) > 1e9)' "$TMP/req.log" >/dev/null ||
	die "the requests lack POST, query, time, timeout or limit: $(head -n 1 "$TMP/req.log")"
jq -se 'map(select(.path | startswith("/bearer/")) | .path) | all(contains("s3cret") | not)' "$TMP/req.log" >/dev/null ||
	die "the token went into a URL"
grep -q 'match.*cluster' "$TMP/req.log" && die "a --match that was not given"
"$G" fleet --prometheus "$S/ok" --match cluster=a --match 'job=~"gpu.*' >/dev/null || die "--match run failed"
tail -n 1 "$TMP/req.log" | jq -e '.form.query[0] | test("cluster=\"a\",job=~\"\\\\\"gpu\\.\\*\"")' >/dev/null ||
	die "--match not escaped into the selectors: $(tail -n 1 "$TMP/req.log" | jq -r '.form.query[0]')"
echo "ok: down, 400, 422, 503, warnings, limit, auth, tenant, 502, broken JSON, timeout and TLS give clear errors"
