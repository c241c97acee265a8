#!/bin/bash
# tests/exporter/alerts.sh - deploy/prometheus/alerts.yml is valid, its unit
# tests pass (promtool test rules), and every warning or critical rule has an
# alert: the rules gpudoctor implements, and the catalogue's when beside us.
set -u
. "$(dirname "$0")/lib.bash"
need promtool prometheus
A=deploy/prometheus/alerts.yml
promtool check rules "$A" || die "promtool check rules $A"
(cd deploy/prometheus && promtool test rules alerts_test.yml) || die "promtool test rules"
bad=0
ids=$("$G" rules | awk '/^[a-z]+\.[a-z_]+ +(warning|critical)/{print $1}')
[ -f ../shared/design/CAUSES.md ] &&
	ids="$ids $(awk -F'|' '$2 ~ /^ [a-z]+\.[a-z0-9_]+ $/ && $5 ~ /warning|critical|by code/ {gsub(/ /,"",$2); print $2}' ../shared/design/CAUSES.md)"
n=0
for id in $ids; do
	n=$((n + 1))
	grep -qF "gpudoctor_finding{rule=\\\"$id\\\"} == 1" "$A" || { echo "no alert for $id"; bad=1; }
done
[ "$n" -ge 15 ] || die "only $n rule ids found to check"
# no alert for an info rule of gpudoctor (they are not worth a page)
for id in $("$G" rules | awk '/^[a-z]+\.[a-z_]+ +info/{print $1}'); do
	grep -qF "rule=\\\"$id\\\"" "$A" && { echo "alert for info rule $id"; bad=1; }
done
[ $bad -eq 0 ] || die "alerts.yml does not match the rules: rerun deploy/prometheus/gen_alerts.py"
echo "alerts.yml: $(grep -c 'alert:' "$A") alerts, $n rule ids checked"
