#!/bin/bash
# tests/timeline/html_render.sh - the HTML report of four fixed recordings
# (gen_recording.py: 8 GPUs with one straggler, a periodic checkpoint stall,
# a GPU that falls off mid-run, a day at 20 s crossing midnight), opened in
# Debian's chromium (headless) at 1280x800 and 1920x1080.  Each page renders
# with no console message; html_check.py checks the SVG of the DOM chromium
# built (every GPU in each metric chart, episode marks in the right GPU's
# group, 1-2-5 value ticks, whole time ticks, what stands out per scenario)
# and png_check.py the screenshots (the highlighted GPU's colour, the heat
# strips, the lost stretch); unticking gpu3's legend box hides its line.
# The day's page stays under 4 MB.  Screenshots
# and pages are kept in $BUILD/artifacts/html/ for a person to look at, with
# each page's SHA-256 once every check passed; given GD_HTML_CHECKED (such a
# directory: make check passes the plain build's), pages identical to the
# ones checked there are not rendered again.
. "$(dirname "$0")/lib.sh"
need jq python3
command -v chromium >/dev/null 2>&1 || skip "chromium is missing (apt-get install chromium; scripts/deps.sh)"
art=$(dirname "$GPUDOCTOR")/artifacts/html
mkdir -p "$art" || die "mkdir $art"
work=$(mktemp -d "${TMPDIR:-/tmp}/gd-htmlr.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
# The template: one snapshot of the fixture host with the fake NVML's 8 H100s.
tree=$work/root
cp -a "$repo/tests/scenarios/base/t0" "$tree" || die "copy base/t0"
while IFS= read -r d; do [ -n "$d" ] && mkdir -p "$tree/$d"; done <"$repo/tests/scenarios/emptydirs"
GPUDOCTOR_NVML=$FAKE_NVML GPUDOCTOR_FAKE_NVML=$repo/tests/scenarios/0001-healthy-8gpu/nvml.ini \
	"$GPUDOCTOR" snapshot --root "$tree" >"$work/snap.json" 2>"$work/err" || die "snapshot: $(head -c 300 "$work/err")"
# at a fixed time (2026-12-01 14:38 UTC), so that a page is the same from run to run
jq -c '.host.wall_time_s = 1796133480' "$work/snap.json" >"$work/tpl.json" || die "the template's time"
export TZ=UTC
chrome() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --hide-scrollbars \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$work/profile" "$@"
}
# GD_HTML_CHECKED (the sanitizer pass of make check): the artifacts of a run
# of this test that passed whole; a page byte-identical to the one checked
# there is not rendered again (chromium is not what the sanitizers test).
rm -f "$art"/*.checked
same=0
for s in straggler checkpoint falloff day; do
	python3 "$repo/tests/timeline/gen_recording.py" "$work/tpl.json" "$s" "$work/$s.jsonl" || die "$s: generating failed"
	(cd "$work" && "$GPUDOCTOR" report "$s.jsonl" -o "$art/$s.html" 2>"$work/rep.err") ||
		die "$s: report failed: $(cat "$work/rep.err")"
	size=$(stat -c %s "$art/$s.html")
	[ "$size" -le 4000000 ] || die "$s: the page is $size bytes (more than 4 MB)"
	grep -qE '<script|<link |src="http|url\(http' "$art/$s.html" && die "$s: the page loads or runs something"
	sum=$(sha256sum "$art/$s.html" | cut -d' ' -f1)
	if [ -n "${GD_HTML_CHECKED:-}" ] && [ "$GD_HTML_CHECKED" != "$art" ] &&
	   [ "$(cat "$GD_HTML_CHECKED/$s.checked" 2>/dev/null)" = "$sum" ]; then
		echo "ok: $s: $size bytes, byte for byte the page checked in chromium in $GD_HTML_CHECKED"
		same=$((same + 1))
		continue
	fi
	# one chromium run dumps the DOM and takes the 1280x800 screenshot
	rm -f "$art/$s-1280x800.png" "$art/$s-1920x1080.png"
	chrome --enable-logging=stderr --v=0 --window-size=1280,800 --screenshot="$art/$s-1280x800.png" \
		--dump-dom "file://$art/$s.html" >"$work/$s.dom" 2>"$work/$s.chromium.err" ||
		die "$s: chromium failed: $(grep -v dbus "$work/$s.chromium.err" | tail -3)"
	grep -q ':CONSOLE' "$work/$s.chromium.err" && die "$s: console messages: $(grep ':CONSOLE' "$work/$s.chromium.err" | head -3)"
	python3 "$repo/tests/timeline/html_check.py" "$work/$s.dom" "$s" || die "$s: the SVG is not as expected"
	chrome --window-size=1920,1080 --screenshot="$art/$s-1920x1080.png" "file://$art/$s.html" 2>/dev/null
	for sz in 1280x800 1920x1080; do
		[ -s "$art/$s-$sz.png" ] || die "$s: no screenshot at $sz"
		python3 "$repo/tests/timeline/png_check.py" "$art/$s-$sz.png" "$s" >"$work/png.out" ||
			die "$s at $sz: $(grep FAIL "$work/png.out")"
	done
	echo "ok: $s: $size bytes, SVG and screenshots as expected"
done
if [ "$same" -eq 4 ]; then
	echo "ok: four recordings, the pages checked in chromium in $GD_HTML_CHECKED"
	exit 0
fi
# Printed (the print stylesheet): a PDF of the straggler's page, kept beside
# the screenshots; chromium must produce one.
rm -f "$art/straggler.pdf"
chrome --no-pdf-header-footer --print-to-pdf="$art/straggler.pdf" "file://$art/straggler.html" 2>/dev/null
[ "$(head -c 5 "$art/straggler.pdf" 2>/dev/null)" = "%PDF-" ] || die "chromium printed no PDF of the report"
# The legend hides a GPU with CSS alone: gpu3's box unticked, its line is gone.
sed 's/id="tog3" checked>/id="tog3">/' "$art/straggler.html" >"$art/straggler-gpu3-hidden.html"
cmp -s "$art/straggler.html" "$art/straggler-gpu3-hidden.html" && die "no legend checkbox for gpu3"
chrome --window-size=1280,800 --screenshot="$art/straggler-gpu3-hidden-1280x800.png" \
	"file://$art/straggler-gpu3-hidden.html" 2>/dev/null
python3 "$repo/tests/timeline/png_check.py" "$art/straggler-gpu3-hidden-1280x800.png" hidden >"$work/png.out" ||
	die "the legend does not hide gpu3: $(grep FAIL "$work/png.out")"
# every check passed: what a later run may compare its pages with
for s in straggler checkpoint falloff day; do
	sha256sum "$art/$s.html" | cut -d' ' -f1 >"$art/$s.checked"
done
echo "ok: four recordings rendered, checked in chromium at 1280x800 and 1920x1080; screenshots in $art"
