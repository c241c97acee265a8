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
# and pages are kept in $BUILD/artifacts/html/ for a person to look at.
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
	"$GPUDOCTOR" snapshot --root "$tree" >"$work/tpl.json" 2>"$work/err" || die "snapshot: $(head -c 300 "$work/err")"
export TZ=UTC
chrome() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --hide-scrollbars \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$work/profile" "$@"
}
for s in straggler checkpoint falloff day; do
	python3 "$repo/tests/timeline/gen_recording.py" "$work/tpl.json" "$s" "$work/$s.jsonl" || die "$s: generating failed"
	"$GPUDOCTOR" report "$work/$s.jsonl" -o "$art/$s.html" 2>"$work/rep.err" || die "$s: report failed: $(cat "$work/rep.err")"
	size=$(stat -c %s "$art/$s.html")
	[ "$size" -le 4000000 ] || die "$s: the page is $size bytes (more than 4 MB)"
	grep -qE '<script|<link |src="http|url\(http' "$art/$s.html" && die "$s: the page loads or runs something"
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
echo "ok: four recordings rendered, checked in chromium at 1280x800 and 1920x1080; screenshots in $art"
