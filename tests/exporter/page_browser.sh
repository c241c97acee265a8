#!/bin/bash
# tests/exporter/page_browser.sh - serve's node page (GET /, issue 30) in a
# real browser: serve over the fake NVML with a hot GPU (gpu2, its SM clock
# at 1410 of 1980 MHz, 85 C) and a lost one (gpu3), loaded in one headless
# chromium (page_cdp.py drives it over the DevTools protocol) at 1280x800
# and 390x844, in English and Chinese: the hot GPU is named in the verdict
# and its chart line is the coloured one, the page's script swaps in newer
# data, and with script disabled the findings are there and the meta
# refresh reloads it.  Screenshots in $BUILD/artifacts/page/.  Then the
# page's HTTP side: its security fields, ?lang= refused when unknown and
# never echoed, and --no-page answering 404 for / while /metrics stays.
set -u
. "$(dirname "$0")/lib.bash"
need python3
command -v chromium >/dev/null 2>&1 || skip "chromium is missing (apt-get install chromium; scripts/deps.sh)"
FAKE=$(dirname "$G")/fake_nvml/libnvidia-ml.so.1
[ -f "$FAKE" ] || die "$FAKE is not built (make unit)"
art=$(dirname "$G")/artifacts/page
mkdir -p "$art" || die "mkdir $art"
rm -f "$art"/*.png
# the hot GPU of the thermal scenario, and gpu3 lost
sed '/^\[gpu3\]/a lost = 1' tests/scenarios/1101-gpu.thermal_throttle/t1.nvml.ini >"$TMP/nvml.ini"
export GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$TMP/nvml.ini
# the fixture host, its uptime moving on as a real one's does
cp -a "$FIX/healthy" "$TMP/tree"
(
	t=1000
	while [ -d "$TMP/tree/proc" ]; do
		echo "$t.00 8000.00" >"$TMP/tree/proc/uptime.new" && mv "$TMP/tree/proc/uptime.new" "$TMP/tree/proc/uptime"
		t=$((t + 1))
		sleep 0.5
	done
) &
PIDS+=($!)
start_serve p --root "$TMP/tree" --interval 0.5s
U=http://$ADDR_p

# the HTTP side first: one response, its fields, nothing of the request echoed
curl -s -m 5 -o /dev/null "$U/"   # asks for the page: the collector draws it
for i in $(seq 50); do
	curl -s -m 5 -D "$TMP/h" -o "$TMP/page.html" "$U/" || die "GET / failed"
	grep -q 'data-exit=' "$TMP/page.html" && break
	sleep 0.1
done
grep -q 'data-exit=' "$TMP/page.html" || die "GET / never gave the page: $(head -c 300 "$TMP/page.html")"
grep -qi '^content-type: text/html; charset=utf-8' "$TMP/h" || die "no HTML content type: $(cat "$TMP/h")"
grep -qi "^content-security-policy: default-src 'none';" "$TMP/h" || die "no Content-Security-Policy"
grep -qE '<script src|<link |src="http|url\(http|<iframe' "$TMP/page.html" && die "the page loads something from outside"
grep -q 'href="/metrics"' "$TMP/page.html" && grep -q 'href="/findings"' "$TMP/page.html" ||
	die "the page does not link /metrics and /findings"
code=$(curl -s -m 5 -o "$TMP/bad" -w '%{http_code}' "$U/?lang=%3Cscript%3Ex")
[ "$code" = 400 ] || die "an unknown ?lang= answered $code"
grep -q '<script' "$TMP/bad" && die "the unknown ?lang= is echoed: $(cat "$TMP/bad")"
[ "$(curl -s -m 5 -H 'Accept-Encoding: gzip' "$U/" | gzip -dc | grep -c 'data-exit=')" = 1 ] ||
	die "the gzip-encoded page does not decode to the page"
echo "ok: GET / is one HTML response under a Content-Security-Policy; a bad ?lang= is refused, not echoed"

curl -s -m 5 -o /dev/null "$U/?lang=zh_CN"
for i in $(seq 50); do
	curl -s -m 5 -D "$TMP/hz" -o "$TMP/page-zh.html" "$U/?lang=zh_CN"
	grep -q 'data-exit=' "$TMP/page-zh.html" && break
	sleep 0.1
done
grep -qi '^content-language: zh-CN' "$TMP/hz" && grep -q '<html lang="zh-CN">' "$TMP/page-zh.html" ||
	die "/?lang=zh_CN is not the Chinese page"

# --no-page: / is not served, /metrics is
start_serve n --root "$FIX/healthy" --interval 0.5s --no-page
[ "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://$ADDR_n/")" = 404 ] || die "--no-page still serves /"
curl -sf -m 5 "http://$ADDR_n/metrics" | grep -q '^gpudoctor_up 1' || die "--no-page: /metrics is not served"
echo "ok: --no-page: / is 404, /metrics served"

# The sanitizer pass of make check (GD_HTML_CHECKED, the plain build's
# artifacts) drew and served both pages above; the browser is not what it
# tests, and the plain pass ran it.
if [ -n "${GD_HTML_CHECKED:-}" ] && [ "$(dirname "$GD_HTML_CHECKED")" != "$(dirname "$art")" ]; then
	echo "ok: the page drawn and served under this build; checked in chromium by the plain pass"
	exit 0
fi

# one browser for every check
prof=$TMP/chromium
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --hide-scrollbars \
	--disable-background-networking --disable-component-update --disable-sync --remote-debugging-port=0 \
	--user-data-dir="$prof" about:blank 2>"$TMP/chromium.err" &
PIDS+=($!)
for i in $(seq 200); do
	# two lines: the port, and the browser's path (no newline after it)
	[ -n "$(sed -n 2p "$prof/DevToolsActivePort" 2>/dev/null)" ] && break
	sleep 0.1
done
[ -s "$prof/DevToolsActivePort" ] || die "chromium did not start: $(grep -v dbus "$TMP/chromium.err" | tail -3)"
ws="ws://127.0.0.1:$(sed -n 1p "$prof/DevToolsActivePort")$(sed -n 2p "$prof/DevToolsActivePort")"
timeout 120 python3 tests/exporter/page_cdp.py "$ws" "$U" "$art" 2 || die "the page in chromium"
for f in page-en-1280x800 page-en-390x844 page-zh_CN-1280x800 page-zh_CN-390x844 page-noscript-1280x800; do
	[ "$(head -c 4 "$art/$f.png" | od -An -c | tr -d ' ')" = '211PNG' ] || die "no screenshot $f.png"
done
echo "ok: the page in chromium at 1280x800 and 390x844, en and zh_CN, script on and off; screenshots in $art"
