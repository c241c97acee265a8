#!/usr/bin/env python3
"""tests/timeline/png_check.py - checks on a screenshot chromium took of a
report: decodes the PNG (8-bit RGB or RGBA, non-interlaced, as chromium
writes them) with zlib alone and looks for colours where the report draws
them.

Usage: png_check.py SHOT.png SCENARIO

  straggler   the highlighted GPU's colour (#d55e00) draws a line across at
              least 40% of the width (its utilisation); its heat strip row
              (about 71%: #83badd/#65a8d4) and the others' (#dbe9f6) show
  checkpoint  no highlight colour draws a long line (no GPU stands out);
              the dark end of the heat scale (idle) shows in the strips
  falloff     the lost GPU's strip: black across at least 30% of the width;
              its highlight colour shows
  day         the highlight colour (#d55e00) and the dark heat of the
              slowed hour show
  hidden      the straggler's page with gpu3's legend box unticked: its
              colour no longer draws a line (the legend hides it, CSS only)
Prints what it measured; exit 1 when a check fails.
"""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and not interlace, "unsupported PNG %d/%d" % (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    lo7 = int.from_bytes(b"\x7f" * stride, "big")
    hi1 = int.from_bytes(b"\x80" * stride, "big")
    for y in range(h):
        f = raw[y * (stride + 1)]
        cur = raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
        if f == 0:
            line = bytearray(cur)
        elif f == 2:
            # bytewise (cur + prev) mod 256 on whole rows at once (SWAR)
            a, b = int.from_bytes(cur, "big"), int.from_bytes(prev, "big")
            line = bytearray((((a & lo7) + (b & lo7)) ^ ((a ^ b) & hi1)).to_bytes(stride, "big"))
        else:
            line = bytearray(cur)
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                if f == 1:
                    line[i] = (line[i] + a) & 255
                elif f == 3:
                    line[i] = (line[i] + ((a + b) >> 1)) & 255
                elif f == 4:
                    c = prev[i - bpp] if i >= bpp else 0
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def hexrgb(s):
    return tuple(int(s[i:i + 2], 16) for i in (1, 3, 5))


def near(px, col, tol=24):
    return abs(px[0] - col[0]) <= tol and abs(px[1] - col[1]) <= tol and abs(px[2] - col[2]) <= tol


def measure(img, sets):
    """For each name: (colours, tolerance per channel): the pixels of any of
    them and the longest horizontal run of them, in one pass."""
    w, h, bpp, rows = img
    want = {}
    for name, (cols, tol) in sets.items():
        for c in cols:
            r, g, b = hexrgb(c)
            for dr in range(-tol, tol + 1, 2):
                for dg in range(-tol, tol + 1, 2):
                    for db in range(-tol, tol + 1, 2):
                        want.setdefault(((r + dr) >> 1, (g + dg) >> 1, (b + db) >> 1), set()).add(name)
    res = {name: [0, 0] for name in sets}
    for row in rows:
        run = dict.fromkeys(sets, 0)
        for px in zip(row[0::bpp], row[1::bpp], row[2::bpp]):
            names = want.get((px[0] >> 1, px[1] >> 1, px[2] >> 1))
            if not names:
                if any(run.values()):
                    run = dict.fromkeys(sets, 0)
                continue
            for name in sets:
                if names and name in names:
                    res[name][0] += 1
                    run[name] += 1
                    if run[name] > res[name][1]:
                        res[name][1] = run[name]
                else:
                    run[name] = 0
    return res


def main():
    path, scen = sys.argv[1], sys.argv[2]
    img = decode(path)
    w = img[0]
    bad = []
    hl = ["#d55e00"]
    palette = ["#d55e00", "#0072b2", "#cc79a7", "#009e73", "#56b4e9"]
    dark = ["#08306b", "#08468b", "#0d5aa6"]

    def check(cond, msg):
        print(("ok   " if cond else "FAIL ") + msg)
        if not cond:
            bad.append(msg)

    sets = {
        "straggler": {"hl": (hl, 16), "mid": (["#83badd", "#65a8d4"], 8), "busy": (["#dbe9f6"], 6)},
        "checkpoint": {"pal": (palette, 16), "dark": (dark, 12)},
        "falloff": {"black": (["#000000"], 8), "hl": (hl, 16)},
        "day": {"hl": (hl, 16), "dark": (dark, 12)},
        "hidden": {"hl": (hl, 16)},
    }.get(scen)
    if sets is None:
        check(False, "unknown scenario " + scen)
        sys.exit(1)
    m = measure(img, sets)
    if scen == "straggler":
        check(m["hl"][1] >= 0.4 * w, "highlight colour: %d px, longest line %d of %d px" % (m["hl"][0], m["hl"][1], w))
        check(m["mid"][1] >= 0.5 * w, "gpu3's heat row (~71%%): longest run %d px" % m["mid"][1])
        check(m["busy"][1] >= 0.5 * w, "the busy GPUs' heat rows: longest run %d px" % m["busy"][1])
    elif scen == "checkpoint":
        check(m["pal"][1] < 0.2 * w, "no GPU highlighted: longest line of a highlight colour %d px" % m["pal"][1])
        check(m["dark"][0] >= 200, "idle (dark) heat in the strips: %d px" % m["dark"][0])
    elif scen == "falloff":
        check(m["black"][1] >= 0.3 * w, "gpu5's lost stretch: longest black run %d px" % m["black"][1])
        check(m["hl"][0] >= 100, "the lost GPU's highlight colour: %d px" % m["hl"][0])
    elif scen == "hidden":
        check(m["hl"][1] < 0.1 * w, "gpu3 hidden: longest line of its colour %d px" % m["hl"][1])
    elif scen == "day":
        check(m["hl"][0] >= 100, "gpu2's highlight colour: %d px" % m["hl"][0])
        check(m["dark"][0] >= 100, "the slowed hour's dark heat: %d px" % m["dark"][0])
    sys.exit(1 if bad else 0)


main()
