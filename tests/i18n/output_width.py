#!/usr/bin/env python3
"""tests/i18n/output_width.py - checks on Chinese text as a terminal shows it
(the output_*.sh tests): display width with unicodedata.east_asian_width
(W and F take two columns, combining marks none), as a terminal counts.

  output_width.py report FILE   a text report (check, report --text): valid
                                UTF-8, every line at most 80 columns, Chinese
                                (CJK characters, 严重/警告/提示 and no
                                English severity word), each finding row's
                                rule id at column 10 and subject at column 41
  output_width.py watch FILE COLS
                                a tmux capture of watch: every line at most
                                COLS columns, Chinese; the GPU table's cells
                                start in the columns of its headings, and the
                                CPU and memory bars in the same column

Prints what it found; exit 1 when a check fails.
"""
import re
import sys
import unicodedata

SEVERITIES = ("严重", "警告", "提示")
fails = []


def width(s):
    w = 0
    for ch in s:
        if unicodedata.combining(ch) or ch in "\u200b\u200c\u200d\ufe0f":
            continue
        w += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return w


def col_of(line, idx):
    """Display column of the character at index idx of line."""
    return width(line[:idx])


def cjk(s):
    return sum(1 for ch in s if "\u4e00" <= ch <= "\u9fff")


def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg)


def read(path):
    raw = open(path, "rb").read()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        fail("%s: not valid UTF-8 at byte %d: %r" % (path, e.start, raw[max(0, e.start - 20):e.start + 20]))
        return raw.decode("utf-8", "replace")


def lines_within(path, cols, min_cjk):
    """The lines of path, each checked to be at most cols wide; the text must
    hold at least min_cjk Chinese characters."""
    text = read(path)
    lines = [l.rstrip() for l in text.split("\n")]
    for n, l in enumerate(lines, 1):
        if width(l) > cols:
            fail("line %d is %d columns wide (at most %d): %s" % (n, width(l), cols, l))
    if cjk(text) < min_cjk:
        fail("only %d Chinese characters: not Chinese" % cjk(text))
    return text, lines


def finding_rows(lines):
    """The lines that start with a Chinese severity padded to its column."""
    return [l for l in lines if re.match(r"^(%s) {2,}\S" % "|".join(SEVERITIES), l)]


def in_columns(rows, pattern, what):
    """(row, match) of each row that matches pattern; a failure for each that
    does not, and for no rows at all."""
    if not rows:
        fail("no %s" % what)
    for r in rows:
        m = re.match(pattern, r)
        if m:
            yield r, m
        else:
            fail("%s not in columns: %s" % (what, r))


def report(path):
    text, lines = lines_within(path, 80, 40)
    if re.search(r"^(CRITICAL|WARNING|INFO) ", text, re.M):
        fail("an English severity word heads a finding")
    rows = finding_rows(lines)
    for l, m in in_columns(rows, r"^(\S+)( +)(\S+)( +)(.*)$", "finding row (严重, 警告 or 提示)"):
        if col_of(l, m.start(3)) != 10:
            fail("rule id at column %d, not 10: %s" % (col_of(l, m.start(3)), l))
        if len(m.group(3)) <= 30 and col_of(l, m.start(5)) != 41:
            fail("subject at column %d, not 41: %s" % (col_of(l, m.start(5)), l))
    # the verdict line closes the report, in Chinese
    last = [l for l in lines if l.strip()][-1]
    if not re.search(r"严重 \d+，警告 \d+，提示 \d+（退出码 \d）", last):
        fail("the last line is not the Chinese verdict: %s" % last)
    print("%s: %d lines, at most %d columns, %d Chinese characters, %d finding rows aligned" %
          (path, len(lines), max(width(l) for l in lines), cjk(text), len(rows)))


def cell_starts(line):
    """Display columns where a cell (a run of non-spaces after a space) starts."""
    return [col_of(line, m.start()) for m in re.finditer(r"(?<= )\S|^\S", line)]


def watch(path, cols):
    text, lines = lines_within(path, cols, 10)
    head = next((l for l in lines if l.startswith("GPU ") and "SM MHz" in l), None)
    if head is None:
        fail("no GPU table heading on the screen")
        return
    if "利用率" not in head or "状态" not in head:
        fail("the GPU table's heading is not Chinese: %s" % head)
    # a row's cells start where a heading's cell starts (left aligned), but
    # the utilisation, right aligned, ends where its heading ends
    starts = cell_starts(head)
    hu = re.search(r"利用率|UTIL", head)
    rows = [l for l in lines if re.match(r"^\d+ +\S", l) and "%" in l]
    for r, m in in_columns(rows, r"^(\d+) +(\d+%|-) +(\S+) +(\S+) +(\S+) +(\S+) +(\S+)", "GPU row"):
        if col_of(r, m.end(2)) != col_of(head, hu.end()):
            fail("utilisation ends at column %d, its heading at %d:\n%s\n%s" %
                 (col_of(r, m.end(2)), col_of(head, hu.end()), head, r))
        for g in range(3, 8):
            c = col_of(r, m.start(g))
            if c not in starts:
                fail("cell %r starts at column %d, where no heading starts (%s):\n%s\n%s" %
                     (m.group(g), c, starts, head, r))
    cpu = next((l for l in lines if l.startswith("CPU ")), None)
    mem = next((l for l in lines if l.startswith("内存 ")), None)
    if not cpu or not mem:
        fail("no CPU or 内存 line")
    elif col_of(cpu, cpu.index("[")) != col_of(mem, mem.index("[")):
        fail("the CPU and memory bars start in different columns:\n%s\n%s" % (cpu, mem))
    if not any(l.startswith("发现的问题") for l in lines):
        fail("no 发现的问题 heading")
    for l in finding_rows(lines):
        if col_of(l, len(re.match(r"^\S+ +", l).group(0))) != 9:
            fail("a finding's rule id is not at column 9: %s" % l)
    print("%s: %d lines within %d columns, %d Chinese characters, %d GPU rows aligned under %s" %
          (path, len(lines), cols, cjk(text), len(rows), head))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "report":
        report(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "watch":
        watch(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)
    sys.exit(1 if fails else 0)
