#!/bin/bash
# gd-test: exclusive (it measures time, load or throughput: tests/run.sh runs it alone)
# tests/exporter/stale.sh - a collector that hangs makes the exporter withdraw
# its numbers, and it recovers when the collector does.
#
# The fixture's GPU job gets a named pipe for /proc/4242/status: the process
# collector's open() blocks until a writer comes, as a read of a hung mount
# or a wedged driver would.  Within the deadline (3 x 0.5 s, at least
# 0.5 s + 2 s) /healthz must say 503, /findings 503, and /metrics keep only
# the exporter's own metrics with gpudoctor_up 0; once the pipe is fed, the
# evidence returns.
set -u
. "$(dirname "$0")/lib.bash"
need mkfifo coreutils

cp -a "$FIX/healthy" "$TMP/tree"
start_serve a --root "$TMP/tree" --interval 0.5s
U=http://$ADDR_a
curl -sf -m 2 "$U/metrics" | grep -q '^gpudoctor_mem_total_bytes ' || die "no evidence while healthy"
st=$(cat "$TMP/tree/proc/4242/status")
rm "$TMP/tree/proc/4242/status"
mkfifo "$TMP/tree/proc/4242/status"
stale=""
for i in $(seq 80); do
	if [ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$U/healthz")" = 503 ]; then
		stale=1
		break
	fi
	sleep 0.1
done
if [ -z "$stale" ]; then
	# Not a skip: this is exactly what broken staleness detection looks like.
	# (Should the process collector ever stop blocking on a FIFO, e.g. open
	# with O_NONBLOCK, this test must hang it another way, not pass.)
	printf '%s\n' "$st" >"$TMP/tree/proc/4242/status" &
	die "/healthz never said 503 within 8 s of the process collector hanging on a FIFO: staleness detection is broken (or the collector no longer blocks on a FIFO, and this test must hang it another way)"
fi
curl -s -m 2 "$U/healthz" | grep -q '^stale: the last sample is' || die "/healthz does not say why"
[ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$U/findings")" = 503 ] || die "/findings still served when stale"
# the node page shows the withdrawn state /healthz reports, not old findings
[ "$(curl -s -o "$TMP/page" -m 2 -w '%{http_code}' "$U/")" = 503 ] || die "the page at / still served when stale"
grep -q 'stale: the last sample is' "$TMP/page" && ! grep -q 'data-exit=' "$TMP/page" ||
	die "the page at / does not show the withdrawn state: $(head -c 300 "$TMP/page")"
m=$(curl -sf -m 2 "$U/metrics") || die "/metrics must still answer when stale"
grep -q '^gpudoctor_up 0$' <<<"$m" || die "gpudoctor_up is not 0 when stale"
mz=$(curl -sf -m 2 --compressed "$U/metrics") || die "gzip /metrics must still answer when stale"
[ "$(grep -Ev '^(gpudoctor_sample_age_seconds|process_cpu_seconds_total) ' <<<"$mz")" = \
  "$(grep -Ev '^(gpudoctor_sample_age_seconds|process_cpu_seconds_total) ' <<<"$m")" ] ||
	die "gzip /metrics differs from plain when stale: $mz"
grep -q '^process_cpu_seconds_total ' <<<"$m" || die "the exporter's own metrics are gone"
grep -q '^gpudoctor_\(mem\|cpu\|finding\|procs\)' <<<"$m" && die "stale evidence is still served: $(grep '^gpudoctor_mem' <<<"$m" | head -n 2)"
command -v promtool >/dev/null && { promtool check metrics <<<"$m" || die "promtool rejects the stale output"; }
# release the collector: it reads the pipe and carries on
printf '%s\n' "$st" >"$TMP/tree/proc/4242/status"
rm "$TMP/tree/proc/4242/status"
printf '%s\n' "$st" >"$TMP/tree/proc/4242/status"
for i in $(seq 50); do
	[ "$(curl -s -m 2 "$U/healthz")" = ok ] && break
	sleep 0.1
done
[ "$(curl -s -m 2 "$U/healthz")" = ok ] || die "did not recover after the collector did"
curl -sf -m 2 "$U/metrics" | grep -q '^gpudoctor_mem_total_bytes ' || die "evidence not back after recovery"
echo "withdrawn while the collector hung, back after it recovered"
