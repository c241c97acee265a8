#!/bin/bash
# tests/i18n/output_html_zh.sh - the HTML report in Chinese, rendered: a
# recorded series (tests/timeline/lib.sh) through `report --lang zh_CN`
# must say <html lang="zh-CN"> and hold Chinese text; headless chromium
# screenshots it twice at 1280x800, with the system's fonts (Debian's
# fonts-noto-cjk) and with a fontconfig that knows only DejaVu (no CJK
# font: every Chinese character becomes a box).  The two must differ: with
# the font the page shows glyphs, not tofu.  The English page, rendered the
# same two ways, must not differ as much (its text needs no CJK font), so the
# difference is the Chinese text's.  Screenshots in $BUILD/artifacts/i18n/.
# Skips (77) when chromium or a CJK font is missing.
. "$(dirname "$0")/../timeline/lib.sh"
need python3 fc-list
command -v chromium >/dev/null 2>&1 || skip "chromium is missing (apt-get install chromium; scripts/deps.sh)"
fc-list :lang=zh-cn family | grep -qi 'CJK' || skip "no CJK font (apt-get install fonts-noto-cjk)"
dejavu=$(fc-list -f '%{file}\n' 'DejaVu Sans' | head -1)
[ -n "$dejavu" ] || skip "no DejaVu font for the render without CJK (apt-get install fonts-dejavu-core)"
art=$(dirname "$GPUDOCTOR")/artifacts/i18n
mkdir -p "$art" || die "mkdir $art"
work=$(mktemp -d "${TMPDIR:-/tmp}/gd-i18n-html.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
export TZ=UTC
chrome() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --hide-scrollbars \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$work/profile-$1" --window-size=1280,800 --screenshot="$2" "file://$3" 2>"$work/chromium.err" ||
		die "chromium failed on $3: $(grep -v dbus "$work/chromium.err" | tail -3)"
	[ -s "$2" ] || die "no screenshot $2"
}
# a fontconfig with the system's rules (sans-serif is DejaVu Sans) but only
# DejaVu's directory: no font has a Chinese glyph
cat >"$work/fonts.conf" <<CONF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>$(dirname "$dejavu")</dir><cachedir>$work/fc-cache</cachedir>
<include ignore_missing="yes">/etc/fonts/conf.d</include></fontconfig>
CONF
FONTCONFIG_FILE=$work/fonts.conf fc-list :lang=zh-cn family | grep -q . && die "the font-less fontconfig still has a CJK font"

make_series "$work/series.jsonl"
LANG=C "$GPUDOCTOR" --lang zh_CN report "$work/series.jsonl" -o "$art/zh.html" 2>"$work/err" || die "report --lang zh_CN: $(cat "$work/err")"
LANG=C "$GPUDOCTOR" report "$work/series.jsonl" -o "$art/en.html" 2>"$work/err" || die "report: $(cat "$work/err")"
grep -q '<html lang="zh-CN">' "$art/zh.html" || die "the Chinese page does not say lang=\"zh-CN\""
grep -q '<html lang="en">' "$art/en.html" || die "the English page does not say lang=\"en\""
grep -q '严重 0，警告 1，提示 0（退出码 1）' "$art/zh.html" || die "no Chinese verdict in the page"
LC_ALL=C grep -q $'[\xe4-\xe9]' "$art/en.html" && die "Chinese in the English page"
for l in zh en; do
	chrome "$l-fonts" "$art/$l-fonts.png" "$art/$l.html"
	FONTCONFIG_FILE=$work/fonts.conf chrome "$l-nocjk" "$art/$l-nocjk.png" "$art/$l.html"
done
python3 - "$repo/tests/timeline" "$art" <<'PY' || die "the screenshots do not tell glyphs from tofu (see $art)"
import ast
import sys

# the PNG decoder of the timeline tests (png_check.py runs its checks when
# imported: only its imports and decode() are taken)
src = sys.argv[1] + "/png_check.py"
tree = ast.parse(open(src).read())
tree.body = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)) or
             (isinstance(n, ast.FunctionDef) and n.name == "decode")]
ns = {}
exec(compile(tree, src, "exec"), ns)
decode = ns["decode"]

def differ(a, b):
    wa, ha, bpp, ra = decode(a)
    wb, hb, bppb, rb = decode(b)
    assert (wa, ha) == (wb, hb), "sizes differ"
    n = 0
    for y in range(ha):
        x, z = ra[y], rb[y]
        if x != z:
            n += sum(1 for i in range(0, len(x), bpp) if x[i:i + 3] != z[i:i + 3])
    return n

art = sys.argv[2]
zh = differ(art + "/zh-fonts.png", art + "/zh-nocjk.png")
en = differ(art + "/en-fonts.png", art + "/en-nocjk.png")
print("pixels that differ without the CJK font: Chinese page %d, English page %d" % (zh, en))
ok = zh >= 2000 and zh > 10 * en
sys.exit(0 if ok else 1)
PY
echo "ok: the Chinese HTML report (lang=zh-CN) renders its glyphs with fonts-noto-cjk, tofu without; screenshots in $art"
