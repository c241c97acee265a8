#!/bin/bash
# tests/exporter/alerts.sh - deploy/prometheus/alerts.yml is valid, its unit
# tests pass (promtool test rules), and its finding alerts match the rules the
# binary implements (`gpudoctor rules`): every warning or critical rule has
# exactly one alert, no info rule has one, and no alert names a rule id the
# binary lacks (the catalogue may list ids not implemented yet).
set -u
. "$(dirname "$0")/lib.bash"
need promtool prometheus
A=deploy/prometheus/alerts.yml
promtool check rules "$A" || die "promtool check rules $A"
# the alerts unit tests are written by hand (not by gen_alerts.py): they check it
promtool test rules tests/exporter/alerts_test.yml || die "promtool test rules tests/exporter/alerts_test.yml"
"$G" rules >"$TMP/rules" || die "gpudoctor rules failed"
ID='[a-z]+\.[a-z0-9_]+'
all=$(awk -v re="^$ID +(info|warning|critical) " '$0 ~ re {print $1}' "$TMP/rules")
paged=$(awk -v re="^$ID +(warning|critical) " '$0 ~ re {print $1}' "$TMP/rules")
info=$(awk -v re="^$ID +info " '$0 ~ re {print $1}' "$TMP/rules")
n=$(echo "$paged" | grep -c .)
[ "$(echo "$all" | grep -c .)" -gt 50 ] || die "only $(echo "$all" | grep -c .) rules in gpudoctor rules"
[ "$n" -ge 40 ] || die "only $n warning or critical rules in gpudoctor rules"
bad=0
for id in $paged; do
	c=$(grep -cF "gpudoctor_finding{rule=\\\"$id\\\"} == 1" "$A")
	[ "$c" -eq 1 ] || { echo "$c alerts for $id (want 1)"; bad=1; }
done
# no alert for an info rule of gpudoctor (they are not worth a page)
for id in $info; do
	grep -qF "rule=\\\"$id\\\"" "$A" && { echo "alert for info rule $id"; bad=1; }
done
# every rule id an alert names is one the binary implements
named=$(grep -oE "rule=\\\\\"$ID\\\\\"" "$A" | sed -E 's/rule=\\"(.*)\\"/\1/' | sort -u)
[ -n "$named" ] || die "no rule ids found in the alerts of $A"
for id in $named; do
	echo "$all" | grep -qxF "$id" || { echo "alert for $id, which gpudoctor does not implement"; bad=1; }
done
[ $bad -eq 0 ] || die "alerts.yml does not match the rules: gpudoctor rules | deploy/prometheus/gen_alerts.py -"
echo "alerts.yml: $(grep -c 'alert:' "$A") alerts, $n warning/critical and $(echo "$info" | grep -c .) info rules checked"
