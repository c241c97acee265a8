#!/usr/bin/env python3
"""scripts/ev_labels.py SRC... - the labels of the evidence names the sources
use, as a .pot on stdout (msgctxt "evidence"), for scripts/po.sh.

The text report prints an evidence name as a label: the unit suffix dropped
(it is printed with the value) and underscores made spaces, "thermal_limited_pct"
-> "thermal limited" (src/output/out_text.c, pretty_name: keep SUFFIXES the
same).  The label is looked up in context "evidence", so the catalogue needs
one entry per label; the names are the string literals passed to
gd_finding_ev() and gd_finding_ev_text()."""
import re
import sys

SUFFIXES = ["_mb_per_s", "_per_s", "_per_min", "_per_hour", "_pct", "_bytes",
            "_mbps", "_gbps", "_mhz", "_kib", "_ns", "_c", "_s"]
CALL = re.compile(r'gd_finding_ev(?:_text)?\s*\(\s*[^,()]+,\s*"([a-z0-9_]+)"')


def label(name):
    for suf in SUFFIXES:
        if len(name) > len(suf) and name.endswith(suf):
            name = name[:-len(suf)]
            break
    return name.replace("_", " ")


where = {}
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            for m in CALL.finditer(line):
                where.setdefault(label(m.group(1)), []).append("%s:%d" % (path, no))
print('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n')
for lab in sorted(where):
    print("#. TRANSLATORS: the label of an evidence name in the text report")
    print("#: " + " ".join(where[lab][:4]))
    print('msgctxt "evidence"\nmsgid "%s"\nmsgstr ""\n' % lab)
