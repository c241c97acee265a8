#!/usr/bin/env python3
"""tests/timeline/html_check.py - checks on the DOM chromium built from a
report (its --dump-dom output), for the scenarios of gen_recording.py and
lib.sh's series.

Usage: html_check.py DOM.html SCENARIO

Common to every scenario: every GPU appears in each metric chart (a
<g class="gpu" data-gpu=N> with a drawn series); every episode mark lies in
the group of a GPU the episode hit (its data-gpu is that group's GPU, and the
episodes table lists it); the value ticks of every chart step by 1, 2 or 5
times a power of ten and are multiples of the step; the time ticks step by
one of the whole steps of html_axis.h and are evenly spaced; a clock label
reads HH:MM or HH:MM:SS on a multiple of the step.  Then what each scenario
must show (see gen_recording.py).  Prints one line per failure; exit 1 on
any.
"""
import math
import re
import sys
from html.parser import HTMLParser

TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400]


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.kids, self.text = tag, dict(attrs), parent, [], ""

    def cls(self):
        return self.attrs.get("class", "").split()

    def walk(self):
        yield self
        for k in self.kids:
            yield from k.walk()

    def up(self, pred):
        n = self.parent
        while n is not None and not pred(n):
            n = n.parent
        return n

    def alltext(self):
        return self.text + "".join(k.alltext() for k in self.kids)


VOID = {"meta", "input", "br", "link", "img", "hr", "path", "line", "rect", "circle"}


class P(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("root", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.kids.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.kids.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.text += data


fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg)


def is125(step):
    if step <= 0:
        return False
    m = step / 10 ** math.floor(math.log10(step) + 1e-9)
    return any(abs(m - x) < 1e-6 for x in (1, 2, 5, 10))


def path_ys(d):
    """The y of every point of an SVG path of M/L x y and V y commands."""
    ys = []
    for cmd, a, b in re.findall(r"([MLV])([-\d.]+)(?: ([-\d.]+))?", d):
        ys.append(float(a) if cmd == "V" else float(b))
    return ys


def main():
    dom, scen = sys.argv[1], sys.argv[2]
    p = P()
    p.feed(open(dom, encoding="utf-8").read())
    nodes = list(p.root.walk())
    charts = [n for n in nodes if n.tag == "svg" and "chart" in n.cls()]
    gpus = sorted({int(n.attrs["data-gpu"]) for n in nodes if n.tag == "g" and "striprow" in n.cls()})
    metric = [c for c in charts if c.up(lambda n: n.attrs.get("id") == "metrics")]
    metric_ids = [c.attrs["data-chart"] for c in metric]
    # episodes table: start -> GPUs
    ep_rows = [n for n in nodes if n.tag == "tr" and "data-cause" in n.attrs and n.up(
        lambda x: x.attrs.get("id") == "episodes")]

    def mask_of(s):
        out = set()
        for part in s.replace("gpu", "").split(","):
            if "-" in part:
                a, b = part.split("-")
                out |= set(range(int(a), int(b) + 1))
            elif part.strip():
                out.add(int(part))
        return out

    ep_gpus = [mask_of(r.kids[2].alltext()) for r in ep_rows if len(r.kids) > 2]
    all_ep_gpus = set().union(*ep_gpus) if ep_gpus else set()

    # -- every GPU in each metric chart
    for c in metric:
        have = {int(g.attrs["data-gpu"]) for g in c.walk() if g.tag == "g" and "gpu" in g.cls()}
        if have != set(gpus):
            fail("chart %s has GPUs %s, the recording %s" % (c.attrs["data-chart"], sorted(have), gpus))
        for g in c.walk():
            if g.tag == "g" and "gpu" in g.cls():
                paths = [x for x in g.walk() if x.tag == "path" and "series" in x.cls()]
                if not paths or int(paths[0].attrs.get("data-n", 0)) == 0:
                    fail("chart %s: gpu%s has no drawn series" % (c.attrs["data-chart"], g.attrs["data-gpu"]))
    # -- episode marks belong to their GPU's group, and only to GPUs episodes hit
    nmarks = 0
    for r in nodes:
        if r.tag != "rect" or "episode" not in r.cls() or "data-gpu" not in r.attrs:
            continue
        nmarks += 1
        grp = r.up(lambda n: n.tag == "g" and "data-gpu" in n.attrs)
        if grp is None or grp.attrs["data-gpu"] != r.attrs["data-gpu"]:
            fail("an episode mark of gpu%s lies outside gpu%s's group" % (r.attrs["data-gpu"], r.attrs["data-gpu"]))
        if int(r.attrs["data-gpu"]) not in all_ep_gpus:
            fail("an episode mark on gpu%s, which no episode hit" % r.attrs["data-gpu"])
    # -- ticks
    for c in charts:
        ys = [float(t.attrs["data-v"]) for t in c.walk() if t.tag == "text" and "ylab" in t.cls()]
        if c.attrs["data-chart"] != "strip" and len(ys) < 2:
            fail("chart %s has %d value ticks" % (c.attrs["data-chart"], len(ys)))
        if len(ys) >= 2:
            step = ys[1] - ys[0]
            if not is125(step):
                fail("chart %s: value step %g is not 1, 2 or 5 x 10^k" % (c.attrs["data-chart"], step))
            for v in ys:
                if abs(v / step - round(v / step)) > 1e-6:
                    fail("chart %s: tick %g is not a multiple of %g" % (c.attrs["data-chart"], v, step))
            for a, b in zip(ys, ys[1:]):
                if abs((b - a) - step) > 1e-6 * step:
                    fail("chart %s: uneven value ticks %s" % (c.attrs["data-chart"], ys))
                    break
        xs = [(float(t.attrs["data-t"]), t.alltext()) for t in c.walk() if t.tag == "text" and "xlab" in t.cls()]
        if len(xs) < 2:
            fail("chart %s has %d time ticks" % (c.attrs["data-chart"], len(xs)))
            continue
        step = xs[1][0] - xs[0][0]
        if not any(abs(step - s) < 1e-3 for s in TIME_STEPS):
            fail("chart %s: time step %g s is not a whole step" % (c.attrs["data-chart"], step))
        for (a, _), (b, _) in zip(xs, xs[1:]):
            if abs(b - a - step) > 1e-3:
                fail("chart %s: uneven time ticks" % c.attrs["data-chart"])
                break
        for _, lab in xs:
            m = re.fullmatch(r"(\d\d):(\d\d)(?::(\d\d))?", lab)
            if m:
                secs = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3) or 0)
                if secs % int(step) and int(step) < 86400:
                    fail("chart %s: clock label %s is not on a multiple of %g s" % (c.attrs["data-chart"], lab, step))
            elif not re.fullmatch(r"\d+ (s|min|h)", lab):
                fail("chart %s: time label %r" % (c.attrs["data-chart"], lab))
    hl = sorted(int(g.attrs["data-gpu"]) for g in nodes if g.tag == "g" and "striprow" in g.cls() and "hl" in g.cls())
    host_shades = [r for r in nodes if r.tag == "rect" and r.attrs.get("data-host") == "1"]
    text = p.root.alltext()

    def expect(cond, msg):
        if not cond:
            fail(msg)

    expect("util" in metric_ids and "smclock" in metric_ids and "temp" in metric_ids and "power" in metric_ids,
           "metric charts: %s" % metric_ids)
    verdict = [n for n in nodes if "verdict" in n.cls()]
    expect(verdict and re.fullmatch(r"\d+ critical, \d+ warnings?, \d+ info  \(exit \d\)", verdict[0].alltext()),
           "no verdict line as check prints it")
    if scen == "straggler":
        expect(gpus == list(range(8)), "GPUs %s" % gpus)
        expect(hl == [3], "highlighted %s, want [3]" % hl)
        expect(any(g.attrs.get("id") == "gpu3" for g in nodes if g.tag == "section" and "gpu-detail" in g.cls()),
               "no detail section for gpu3")
        expect(not host_shades, "host charts shaded though no host finding explains an episode")
        expect("gpu.straggler" in text and "gpu.thermal_throttle" in text, "findings not named")
        expect(len(metric_ids) == 6, "metric charts %s" % metric_ids)
    elif scen == "checkpoint":
        expect(hl == [], "highlighted %s: a stall of every GPU marks none" % hl)
        expect(len(ep_rows) == 10, "%d episodes, want 10" % len(ep_rows))
        util = [c for c in metric if c.attrs["data-chart"] == "util"][0]
        for g in gpus:
            n = sum(1 for r in util.walk() if r.tag == "rect" and r.attrs.get("data-gpu") == str(g)
                    and r.attrs.get("data-cause") == "io.checkpoint_stall")
            expect(n == 10, "util chart: gpu%d has %d checkpoint marks, want 10" % (g, n))
        expect(len(host_shades) == 50, "%d host shadings, want 10 x 5 charts" % len(host_shades))
        expect(all(r.attrs["data-cause"] == "io.checkpoint_stall" for r in host_shades), "host shading cause")
        expect(any(n.attrs.get("data-period") == "60.0" for n in nodes), "no period of 60 s")
    elif scen == "falloff":
        expect(hl == [5], "highlighted %s, want [5]" % hl)
        row = [g for g in nodes if g.tag == "g" and "striprow" in g.cls() and g.attrs["data-gpu"] == "5"][0]
        expect(any(r.tag == "rect" and "lost" in r.cls() for r in row.walk()), "gpu5's strip shows no lost stretch")
        for c in metric:
            g5 = [g for g in c.walk() if g.tag == "g" and g.attrs.get("data-gpu") == "5"][0]
            expect(any(x.tag == "line" and "lostmark" in x.cls() for x in g5.walk()),
                   "chart %s: no lost mark in gpu5's group" % c.attrs["data-chart"])
            s5 = [x for x in g5.walk() if x.tag == "path"][0]
            expect(int(s5.attrs["data-n"]) == 150, "chart %s: gpu5 drawn with %s samples, want the 150 before it was "
                   "lost" % (c.attrs["data-chart"], s5.attrs["data-n"]))
    elif scen == "day":
        expect(hl == [2], "highlighted %s, want [2] (slowed for an hour)" % hl)
        expect(any("xdate" in n.cls() for n in nodes), "the axis crosses midnight but shows no date")
        expect(any(n.alltext().strip() == "Dec 1" for n in nodes if "xdate" in n.cls()), "no 'Dec 1' on the axis")
        util = [c for c in metric if c.attrs["data-chart"] == "util"][0]
        zero = [float(t.attrs["y"]) - 4 for t in util.walk() if t.tag == "text" and t.attrs.get("data-v") == "0"][0]
        g6 = [g for g in util.walk() if g.tag == "g" and g.attrs.get("data-gpu") == "6"][0]
        path = [x for x in g6.walk() if x.tag == "path"][0]
        expect(int(path.attrs["data-n"]) == 4320, "gpu6 drawn from %s samples" % path.attrs["data-n"])
        expect(int(path.attrs["data-pts"]) <= 2 * 1024, "gpu6's path has %s points for 1024 bins" %
               path.attrs["data-pts"])
        # the one-sample dip to 0% at 08:00 reaches the bottom
        expect(max(path_ys(path.attrs["d"])) >= zero - 1.5, "gpu6's one-sample stall does not reach 0%")
        expect(len(ep_rows) >= 47, "%d episodes" % len(ep_rows))
        # gpu2's slowed hour holds a checkpoint of every GPU, so one episode
        # of gpu0-7 lasts the hour; gpu0 is marked only for its own 40 s
        px_10min = (1200 - 120 - 56) * 600 / 86390
        g0 = [g for g in util.walk() if g.tag == "g" and g.attrs.get("data-gpu") == "0"][0]
        widest = max([float(r.attrs["width"]) for r in g0.walk() if r.tag == "rect" and "episode" in r.cls()] or [0])
        expect(0 < widest <= px_10min, "gpu0's widest stall mark is %.1f units (10 min = %.1f): marked for an episode "
               "of another GPU's" % (widest, px_10min))
    elif scen == "series":
        expect(gpus == [0, 1], "GPUs %s" % gpus)
        expect(hl == [1], "highlighted %s, want [1] (slowed alone)" % hl)
        util = [c for c in metric if c.attrs["data-chart"] == "util"][0]
        for g in (0, 1):
            n = sum(1 for r in util.walk() if r.tag == "rect" and r.attrs.get("data-gpu") == str(g)
                    and r.attrs.get("data-cause") == "io.checkpoint_stall")
            expect(n == 4, "gpu%d: %d checkpoint marks in the util chart, want 4" % (g, n))
        slowed = [r for r in util.walk() if r.tag == "rect" and "episode" in r.cls() and
                  r.attrs.get("data-cause") != "io.checkpoint_stall"]
        expect(slowed and all(r.attrs["data-gpu"] == "1" for r in slowed), "the slowed episode is not gpu1's alone")
        expect(len(host_shades) == 20, "%d host shadings, want 4 x 5" % len(host_shades))
    else:
        fail("unknown scenario " + scen)
    print("%s: %d charts, %d GPUs, %d episode marks, highlighted %s, %d failure(s)" %
          (scen, len(charts), len(gpus), nmarks, hl, len(fails)))
    sys.exit(1 if fails else 0)


main()
