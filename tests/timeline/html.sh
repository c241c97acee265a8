#!/bin/bash
# tests/timeline/html.sh - the HTML report of lib.sh's series, opened in
# Debian's chromium (headless): it renders with no console message (script
# errors, SVG attribute errors), each metric chart holds both GPUs' series
# with one point per sample, html_check.py finds the four checkpoint episodes
# marked on both GPUs and the slowed one on gpu1 alone (the GPU that stands
# out), shaded on the host charts only where a host finding explains them;
# the findings table names io.checkpoint_stall, and hostile strings from a
# snapshot (host name, GPU name) come out as text, never as markup.
. "$(dirname "$0")/lib.sh"
need jq python3
command -v chromium >/dev/null 2>&1 || skip "chromium is missing (apt-get install chromium; scripts/deps.sh)"
work=$(mktemp -d "${TMPDIR:-/tmp}/gd-html.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
make_series "$work/s.jsonl"
# Hostile strings, as a process or a board could carry them.
jq -c '.host.hostname = "<b id=\"evil\">node</b>&amp;" | .gpus[0].name = "<script>document.title=\"pwned\"</script>H100"' \
	"$work/s.jsonl" >"$work/h.jsonl"
"$GPUDOCTOR" report "$work/h.jsonl" -o "$work/r.html" 2>"$work/rep.err" || die "report failed: $(cat "$work/rep.err")"
grep -qE 'https?://[^"]*\.(js|css)|<link |<script|src="http' "$work/r.html" && die "the report loads something from outside"
timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$work/profile" --enable-logging=stderr --v=0 \
	--dump-dom "file://$work/r.html" >"$work/dom.html" 2>"$work/chromium.err"
rc=$?
[ $rc -eq 0 ] || die "chromium exited $rc: $(grep -v dbus "$work/chromium.err" | tail -5)"
[ -s "$work/dom.html" ] || die "chromium dumped no DOM"
if grep -q ':CONSOLE' "$work/chromium.err"; then
	die "console messages: $(grep ':CONSOLE' "$work/chromium.err" | head -5)"
fi
for s in gpu0.util_gpu_pct gpu0.sm_clock_pct gpu0.temp_c gpu0.power_w gpu1.util_gpu_pct gpu1.sm_clock_pct \
	gpu1.temp_c gpu1.power_w gpu1.sm_clock_mhz; do
	grep -q "data-series=\"$s\"[^>]*data-n=\"40\"" "$work/dom.html" || die "series $s with 40 points not in the DOM"
done
# The fixture's CPU counters stand still (no busy share: no points); its
# disk and network counters give rates between each pair of samples.
grep -q 'data-series="host:cpu_busy_pct"' "$work/dom.html" || die "no host CPU series"
for s in host:disk_read_mb_per_s host:disk_write_mb_per_s host:net_rx_mb_per_s host:net_tx_mb_per_s; do
	grep -q "data-series=\"$s\"[^>]*data-n=\"39\"" "$work/dom.html" || die "series $s with 39 points not in the DOM"
done
python3 "$repo/tests/timeline/html_check.py" "$work/dom.html" series || die "the SVG is not as expected"
grep -q 'class="eplabel"[^>]*>gpu0-1 io.checkpoint_stall<' "$work/dom.html" || die "episodes carry no cause label"
grep -q '<tr data-rule="io.checkpoint_stall">' "$work/dom.html" || die "findings table lacks io.checkpoint_stall"
grep -q 'class="periodic" data-period="10.0"' "$work/dom.html" || die "no period of 10 s"
grep -q '<title>gpudoctor report: &lt;b id="evil"&gt;node&lt;/b&gt;&amp;amp;</title>' "$work/dom.html" ||
	die "the host name is not escaped in the title: $(grep -o '<title>[^<]*' "$work/dom.html" | head -1)"
grep -q '<b id="evil">' "$work/dom.html" && die "an element from a snapshot string got into the DOM"
grep -q '<script' "$work/dom.html" && die "a script element got into the DOM"
grep -q 'pwned' "$work/dom.html" && ! grep -q '&lt;script&gt;document.title' "$work/dom.html" && die "GPU name not escaped"
echo "ok: chromium rendered the report with no console message; every series, episodes on the GPUs they hit, escaped strings"
