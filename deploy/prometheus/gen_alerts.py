#!/usr/bin/env python3
"""gen_alerts.py - writes alerts.yml from the rules gpudoctor implements.

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
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) not in (2, 3):
    sys.exit("usage: gpudoctor rules | gen_alerts.py - [CAUSES.md]")
RULES = sys.argv[1]
CAUSES = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "../../../shared/design/CAUSES.md")


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
     {"summary": "gpudoctor on {{ $labels.instance }} does not answer scrapes",
      "description": "Prometheus cannot scrape gpudoctor serve on {{ $labels.instance }}: no evidence and no "
                     "findings from this node.",
      "runbook": "Check the service (systemctl status gpudoctor, or the DaemonSet pod), the port and the network "
                 "path from Prometheus."}),
    ("GpudoctorStale", "gpudoctor_up == 0", "1m", "critical",
     {"summary": "gpudoctor on {{ $labels.instance }} serves no fresh evidence",
      "description": "gpudoctor answers but its collection cycle has not finished within its deadline, so it "
                     "withdrew every value: a collector is stuck (a hung driver or mount).",
      "runbook": "Look at /healthz and the collector durations; a stuck GPU driver often means a GPU fell off "
                 "the bus: drain the node, then reset or reboot."}),
    ("GpudoctorCollectorFailing", "gpudoctor_collector_success == 0", "15m", "info",
     {"summary": "gpudoctor collector {{ $labels.collector }} fails on {{ $labels.instance }}",
      "description": "The collector {{ $labels.collector }} was denied, partial or failed for 15 minutes: the "
                     "rules that need its evidence are not evaluated.",
      "runbook": "curl http://{{ $labels.instance }}/findings and read unavailable[] for the reason (often a "
                 "missing capability or mount in the deployment)."}),
]


def main():
    impl = implemented(RULES)
    cat = rows(CAUSES)
    missing = sorted(set(impl) - {r[0] for r in cat})
    if missing:
        sys.exit("gen_alerts.py: implemented rules missing from %s: %s" % (CAUSES, " ".join(missing)))
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


main()
