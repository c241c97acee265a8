#!/usr/bin/env python3
"""gen_alerts.py - writes alerts.yml from the rules gpudoctor implements, and
alerts.zh_CN.yml: the same alerts with their annotations in Chinese.

    build/gpudoctor rules | deploy/prometheus/gen_alerts.py - [CAUSES.md]
    deploy/prometheus/gen_alerts.py RULES.txt [CAUSES.md]   (default ../shared/design/CAUSES.md)

The first argument is the output of `gpudoctor rules` (a file, or - for
stdin): it says which rule ids the binary implements and their severities.
One alert per implemented rule whose severity there is warning or critical
(the catalogue may list ids not implemented yet: they get no alert, and info
rules get none either): it fires while gpudoctor_finding{rule="<id>"} is 1.
The catalogue (CAUSES.md) supplies the texts and the `for` (30s when its
severity column starts with critical, else 2m); an implemented id missing
from the catalogue is an error.  The
alert keeps the series' labels (instance, rule, severity, subject): the
severity is the finding's own, which may differ from the catalogue's default
(mem.cgroup_near_limit is critical on an OOM kill).  Annotations: summary,
description (the evidence and threshold columns) and runbook (the remedy
column).  Rerun it when the rules or the catalogue change;
tests/exporter/alerts.sh checks that every implemented warning or critical
rule has an alert, no info rule has one, and no alert names an id the binary
lacks; its unit tests, tests/exporter/alerts_test.yml, are written by hand
from the catalogue, not by this script, so that they check it.

    deploy/prometheus/gen_alerts.py --lang zh_CN [-o FILE] build/gpudoctor

writes alerts.zh_CN.yml (or FILE): the alerts of alerts.yml as they are
(names, expressions, for, labels, order: rerun this after the English file),
with their annotations in the language.  The translations come from the
binary and its message catalogue (po/, built into locale/ beside it, or
$GPUDOCTOR_LOCALEDIR), never from this file: the rule's title as
`GPUDOCTOR --lang zh_CN rules` prints it, its default remedy
(src/rules/registry.c) and the texts of this script marked N_() below,
translated by that catalogue through gettext.  Those texts are in
po/zh_CN.po with the C sources' (scripts/po.sh extracts this script's N_()
texts too); after changing one, run `make pot` and fill in the new msgstr.
A title of the binary that differs from the catalogue's translation of the
registry's title is an error (the binary and its catalogue disagree).  tests/i18n/docs_alerts_zh.sh checks the result:
promtool, the same alerts as alerts.yml, Chinese annotations, and that this
script regenerates it byte for byte.
"""
import gettext
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
USAGE = ("usage: gpudoctor rules | gen_alerts.py - [CAUSES.md]\n"
         "       gen_alerts.py --lang zh_CN [-o FILE] GPUDOCTOR")


def implemented(path):
    """{id: severity} of every rule in `gpudoctor rules` output."""
    f = sys.stdin if path == "-" else open(path, encoding="utf-8")
    out = {}
    for line in f:
        m = re.match(r"([a-z]+\.[a-z0-9_]+) +(info|warning|critical) ", line)
        if m:
            out[m.group(1)] = m.group(2)
    if len(out) < 15:
        sys.exit("gen_alerts.py: only %d rules in %s: not the output of gpudoctor rules" % (len(out), path))
    return out


def rows(path):
    """(id, evidence, threshold, sev, remedy) of every catalogue row."""
    out = []
    for line in open(path, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and re.fullmatch(r"[a-z]+\.[a-z0-9_]+", cells[0]):
            out.append((cells[0], cells[1], cells[2], cells[3], cells[4]))
    return out


def plain(s):
    """Markdown to plain text: no emphasis, no backticks, no template braces."""
    s = s.replace("**", "").replace("`", "")
    return s.replace("{{", "{ {").replace("}}", "} }")


def N_(s):
    """Marks a text for translation (xgettext -kN_); translated where it is written."""
    return s


def q(s):
    return json.dumps(s, ensure_ascii=False)


def alert_name(rule_id):
    return "Gpudoctor" + "".join(p.capitalize() for p in re.split(r"[._]", rule_id))


def for_of(sev):
    return "30s" if sev.startswith("critical") else "2m"


def annotations(rule_id, evidence, threshold, remedy):
    return {
        "summary": "gpudoctor finding %s ({{ $labels.severity }}) on {{ $labels.instance }}: {{ $labels.subject }}"
                   % rule_id,
        "description": "%s. Evidence: %s. Fires at: %s. The numbers: curl http://{{ $labels.instance }}/findings"
                       % (rule_id, plain(evidence), plain(threshold)),
        "runbook": plain(remedy),
    }


EXPORTER = [
    ("GpudoctorDown", 'up{job="gpudoctor"} == 0', "5m", "warning",
     {"summary": N_("gpudoctor on {{ $labels.instance }} does not answer scrapes"),
      "description": N_("Prometheus cannot scrape gpudoctor serve on {{ $labels.instance }}: no evidence and no "
                        "findings from this node."),
      "runbook": N_("Check the service (systemctl status gpudoctor, or the DaemonSet pod), the port and the network "
                    "path from Prometheus.")}),
    ("GpudoctorStale", "gpudoctor_up == 0", "1m", "critical",
     {"summary": N_("gpudoctor on {{ $labels.instance }} serves no fresh evidence"),
      "description": N_("gpudoctor answers but its collection cycle has not finished within its deadline, so it "
                        "withdrew every value: a collector is stuck (a hung driver or mount)."),
      "runbook": N_("Look at /healthz and the collector durations; a stuck GPU driver often means a GPU fell off "
                    "the bus: drain the node, then reset or reboot.")}),
    ("GpudoctorCollectorFailing", "gpudoctor_collector_success == 0", "15m", "info",
     {"summary": N_("gpudoctor collector {{ $labels.collector }} fails on {{ $labels.instance }}"),
      "description": N_("The collector {{ $labels.collector }} was denied, partial or failed for 15 minutes: the "
                        "rules that need its evidence are not evaluated."),
      "runbook": N_("curl http://{{ $labels.instance }}/findings and read unavailable[] for the reason (often a "
                    "missing capability or mount in the deployment).")}),
]


def english(rules_path, causes):
    impl = implemented(rules_path)
    cat = rows(causes)
    missing = sorted(set(impl) - {r[0] for r in cat})
    if missing:
        sys.exit("gen_alerts.py: implemented rules missing from %s: %s" % (causes, " ".join(missing)))
    rs = [r for r in cat if impl.get(r[0]) in ("warning", "critical")]
    seen = set()
    out = ["# Generated by deploy/prometheus/gen_alerts.py from gpudoctor rules and CAUSES.md: edit the generator, not this file.",
           "# One alert per warning or critical rule that gpudoctor implements (gpudoctor rules), host and GPU.",
           "# Each fires while gpudoctor_finding{rule=...} is 1 and keeps its labels: instance, rule,",
           "# severity (the finding's own) and subject.",
           "groups:",
           "  - name: gpudoctor-exporter",
           "    rules:"]
    for name, expr, fr, sev, ann in EXPORTER:
        out += ["      - alert: " + name, "        expr: " + q(expr), "        for: " + fr,
                "        labels:", "          severity: " + sev, "        annotations:"]
        out += ["          %s: %s" % (k, q(v)) for k, v in ann.items()]
    out += ["  - name: gpudoctor-findings", "    rules:"]
    for rid, ev, th, sev, rem in rs:
        if rid in seen:
            continue
        seen.add(rid)
        out += ["      - alert: " + alert_name(rid),
                "        expr: " + q('gpudoctor_finding{rule="%s"} == 1' % rid),
                "        for: " + for_of(sev),
                "        annotations:"]
        out += ["          %s: %s" % (k, q(v)) for k, v in annotations(rid, ev, th, rem).items()]
    with open(os.path.join(HERE, "alerts.yml"), "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


# ---- alerts.<lang>.yml: alerts.yml's alerts, the annotations translated ----
# The texts of the finding alerts in another language (the English file takes
# its own from CAUSES.md, which has no translation): the rule's title, where to
# read the numbers, and the rule's default remedy as the runbook.
SUMMARY = N_("{{ $labels.subject }} on {{ $labels.instance }} ({{ $labels.severity }}): %(title)s")
DESCRIPTION = N_("Rule %(rule)s: %(title)s The numbers and the thresholds they crossed: "
                 "curl http://{{ $labels.instance }}/findings, or run gpudoctor check on the node.")
LANGS = {"zh_CN": "zh_CN", "zh_CN.UTF-8": "zh_CN", "zh_CN.utf8": "zh_CN", "zh-CN": "zh_CN", "zh": "zh_CN"}
C_STR = r'"(?:[^"\\\n]|\\.)*"'
ID = r"[a-z]+\.[a-z0-9_]+"


def c_text(lits):
    """The text of adjacent C string literals."""
    esc = {"n": "\n", "t": "\t"}
    return "".join(re.sub(r"\\(.)", lambda m: esc.get(m.group(1), m.group(1)), lit[1:-1])
                   for lit in re.findall(C_STR, lits))


def registry(path):
    """{id: (title, remedy)} of every row of src/rules/registry.c, the English
    texts the catalogue translates (marked N_() or not)."""
    src = open(path, encoding="utf-8").read()
    # comments out, strings kept
    src = re.sub(C_STR + r"|/\*.*?\*/|//[^\n]*", lambda m: m.group(0) if m.group(0)[0] == '"' else " ", src,
                 flags=re.S)
    text = r"((?:N_\s*\(\s*)?(?:%s\s*)+\)?)" % C_STR
    row = re.compile(r'\{\s*"(%s)"\s*,\s*GD_SEV_[A-Z]+\s*,\s*%s\s*,\s*%s\s*,' % (ID, text, text))
    out = {m.group(1): (c_text(m.group(2)), c_text(m.group(3))) for m in row.finditer(src)}
    rows_there = len(re.findall(r'\{\s*"%s"\s*,\s*GD_SEV_' % ID, src))
    if len(out) != rows_there or len(out) < 15:
        sys.exit("gen_alerts.py: read %d of the %d rows of %s: its form changed (see registry())"
                 % (len(out), rows_there, path))
    return out


def run(cmd):
    try:
        return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, encoding="utf-8").stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit("gen_alerts.py: %s: %s" % (" ".join(cmd), e))


def catalogue(gpudoctor, lang):
    """The message catalogue the binary reads ($GPUDOCTOR_LOCALEDIR, else
    locale/ beside it), as gettext translations."""
    d = os.environ.get("GPUDOCTOR_LOCALEDIR") or os.path.join(os.path.dirname(os.path.realpath(gpudoctor)), "locale")
    try:
        return gettext.translation("gpudoctor", d, languages=[lang])
    except OSError:
        sys.exit("gen_alerts.py: no %s catalogue of gpudoctor under %s (make all builds it beside the binary)"
                 % (lang, d))


def braces(s):
    """A text put into a Prometheus template: no template braces of its own."""
    return s.replace("{{", "{ {").replace("}}", "} }")


def translated(lang, out_path, gpudoctor):
    tr = catalogue(gpudoctor, lang).gettext
    reg = registry(os.path.join(HERE, "../../src/rules/registry.c"))
    # the titles as the binary prints them in the language
    titles = {}
    for line in run([gpudoctor, "--lang", lang, "rules"]).splitlines():
        m = re.match(r"(%s) +\S+ +(.+)$" % ID, line)
        if m and m.group(1) in reg:
            titles[m.group(1)] = m.group(2).strip()
    lost = sorted(set(reg) - set(titles))
    if lost:
        sys.exit("gen_alerts.py: %s --lang %s rules lists no title for %s" % (gpudoctor, lang, " ".join(lost)))
    differ = ["%s: %r, the catalogue says %r" % (i, titles[i], tr(reg[i][0])) for i in sorted(reg)
              if titles[i] != tr(reg[i][0])]
    if differ:
        sys.exit("gen_alerts.py: the titles of `%s --lang %s rules` are not its catalogue's translations of "
                 "src/rules/registry.c:\n  %s" % (gpudoctor, lang, "\n  ".join(differ)))
    exporter = {name: ann for name, _expr, _for, _sev, ann in EXPORTER}
    src = os.path.join(HERE, "alerts.yml")
    out = ["# Generated by deploy/prometheus/gen_alerts.py --lang %s from alerts.yml, gpudoctor --lang %s rules" % (lang, lang),
           "# and the message catalogue (po/): edit the generator or po/, not this file.",
           "# The alerts of alerts.yml (names, expressions, for, labels), their annotations in %s." % lang]
    alert = ann = None
    for n, line in enumerate(open(src, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if line.startswith("#"):
            continue
        m = re.match(r"      - alert: (\S+)$", line)
        if m:
            alert, ann = m.group(1), None
            if alert in exporter:
                ann = {k: tr(v) for k, v in exporter[alert].items()}
        m = re.match(r"        expr: (.+)$", line)
        if m and alert not in exporter:
            r = re.fullmatch(r'gpudoctor_finding\{rule="(%s)"\} == 1' % ID, json.loads(m.group(1)))
            if not r or r.group(1) not in reg:
                sys.exit("%s:%d: %s: neither an exporter alert nor a rule of src/rules/registry.c" % (src, n, alert))
            rid = r.group(1)
            title = braces(titles[rid])
            ann = {"summary": tr(SUMMARY) % {"title": title},
                   "description": tr(DESCRIPTION) % {"rule": rid, "title": title},
                   "runbook": braces(tr(reg[rid][1]))}
        m = re.match(r"          (summary|description|runbook): ", line)
        if m:
            if ann is None:
                sys.exit("%s:%d: annotations before the expression of %s" % (src, n, alert))
            line = "          %s: %s" % (m.group(1), q(ann.pop(m.group(1))))
        out.append(line)
    with open(out_path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def main(argv):
    if argv[:1] == ["--lang"]:
        if len(argv) == 3 and argv[1] in LANGS:
            argv = argv[:2] + ["-o", os.path.join(HERE, "alerts.%s.yml" % LANGS[argv[1]]), argv[2]]
        if len(argv) != 5 or argv[1] not in LANGS or argv[2] != "-o":
            sys.exit(USAGE + "\n(languages: %s)" % ", ".join(sorted(set(LANGS.values()))))
        translated(LANGS[argv[1]], argv[3], argv[4])
    elif len(argv) in (1, 2) and not argv[0].startswith("--"):
        english(argv[0], argv[1] if len(argv) > 1 else os.path.join(HERE, "../../../shared/design/CAUSES.md"))
    else:
        sys.exit(USAGE)


main(sys.argv[1:])
