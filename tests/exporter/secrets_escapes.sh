#!/bin/bash
# tests/exporter/secrets_escapes.sh - issue 31, items 6 and 8, on real
# processes of this machine:
#   - a CPU-heavy process with --db-password=hunter2 --token=ghp_SECRET123
#     in its argv: neither secret appears in snapshot, check (text and
#     JSON), the recording, report --text, serve's /findings and /metrics;
#     the command line is there, redacted (--db-password=***);
#   - a GPU job (listed by the fake NVML) that names itself with escape
#     sequences (ESC[2J clears the screen, ESC]0;...BEL sets the title):
#     check's text and report --text hold no ESC byte (the name shows as
#     "?[2J?]0;pwn?"), while check --json keeps the exact name (\u001b);
#   - fleet's text against a Prometheus stand-in whose labels, warnings and
#     error strings hold escapes: no ESC byte either;
#   - output files: a new one is created 0600; a symbolic link planted at
#     the output name is refused (snapshot, record, report -o, fleet
#     --html) and the file it points to is left as it was.
# Loopback only; the two busy loops end by themselves after 99 s.
source "$(dirname "$0")/lib.bash"
need jq
need python3
FAKE=$(dirname "$G")/fake_nvml/libnvidia-ml.so.1
[ -f "$FAKE" ] || die "no fake NVML at $FAKE (make unit first)"
source tests/e2e/lib.bash   # fake_nvml_ini
ESC=$'\e'
SECRETS='hunter2|ghp_SECRET123'

# the secret-holding hog (not a GPU job: cpu.background_hogs names it with its command line)
bash -c 'while [ $SECONDS -lt 99 ];do :;done' gd-hog --db-password=hunter2 --token=ghp_SECRET123 &
HOG=$!
PIDS+=($HOG)
# the GPU job with an escape-sequence name ($0 into its own comm)
bash -c 'echo -n $0>/proc/$$/comm;while [ $SECONDS -lt 99 ];do :;done' "$ESC[2J$ESC]0;pwn"$'\a' &
JOB=$!
PIDS+=($JOB)
for i in $(seq 50); do
	grep -q "$ESC" "/proc/$JOB/comm" 2>/dev/null && break
	sleep 0.1
done
grep -q "$ESC" "/proc/$JOB/comm" || die "the job could not rename itself: $(cat -v "/proc/$JOB/comm")"
fake_nvml_ini "$TMP/nvml.ini" "$JOB" 3
export GPUDOCTOR_NVML=$FAKE GPUDOCTOR_FAKE_NVML=$TMP/nvml.ini

# leaks PATTERN-NAME FILE...: fails when a secret is in any of the files
leaks() {
	local what=$1
	shift
	if grep -aEq "$SECRETS" "$@"; then
		die "$what holds a secret: $(grep -aEo ".{0,40}($SECRETS)" "$@" | head -n 3)"
	fi
}

# 1. snapshot: every process's command line, the hog's redacted
"$G" snapshot -o "$TMP/snap.jsonl" 2>"$TMP/err" || die "snapshot failed: $(cat "$TMP/err")"
leaks snapshot "$TMP/snap.jsonl"
jq -e --argjson p "$HOG" '.procs[] | select(.pid == $p) | .cmdline | test("gd-hog --db-password=\\*\\*\\* --token=\\*\\*\\*")' \
	"$TMP/snap.jsonl" >/dev/null || die "the hog's command line is not there redacted: $(jq -c --argjson p "$HOG" '.procs[] | select(.pid == $p)' "$TMP/snap.jsonl")"
[ "$(stat -c %a "$TMP/snap.jsonl")" = 600 ] || die "a new snapshot file has mode $(stat -c %a "$TMP/snap.jsonl"), want 600"

# 2. check, text and JSON
"$G" check --window 1s >"$TMP/check.txt" 2>"$TMP/err"
[ $? -le 2 ] || die "check failed: $(cat "$TMP/err")"
"$G" check --window 1s --json >"$TMP/check.json" 2>"$TMP/err"
[ $? -le 2 ] || die "check --json failed: $(cat "$TMP/err")"
leaks check "$TMP/check.txt" "$TMP/check.json"
grep -q "pid $JOB (" "$TMP/check.txt" || die "check names no finding of the job $JOB: $(head -c 800 "$TMP/check.txt")"
! grep -q "$ESC" "$TMP/check.txt" || die "check's text holds an ESC byte: $(grep -a "$ESC" "$TMP/check.txt" | cat -v | head -n 3)"
grep -qF "pid $JOB (?[2J?]0;pwn?)" "$TMP/check.txt" || die "the job's name is not shown printable: $(grep -a "pid $JOB" "$TMP/check.txt" | head -n 2)"
jq -e --arg n "pid $JOB ($ESC[2J$ESC]0;pwn"$'\a)' '[.findings[].summary] | any(contains($n))' "$TMP/check.json" >/dev/null ||
	die "check --json does not keep the job's exact name"
# when the hog was busy enough to be named (it usually is), its command line is there, redacted
if jq -e --arg p "pid $HOG " '.findings[] | select(.subject | startswith($p))' "$TMP/check.json" >/dev/null; then
	jq -e --arg p "pid $HOG " '.findings[] | select(.subject | startswith($p)) | .summary | contains("--db-password=***")' \
		"$TMP/check.json" >/dev/null || die "the hog's finding lacks its redacted command line"
	hog_named=1
fi

# 3. serve: /findings and /metrics
start_serve s --interval 0.5s
# until the job's finding is there, and the hog's too when it comes within 5 s
for i in $(seq 50); do
	curl -s -m 2 "http://$ADDR_s/findings" >"$TMP/findings.json"
	grep -q "pid $JOB" "$TMP/findings.json" && grep -q "pid $HOG " "$TMP/findings.json" && break
	sleep 0.1
done
curl -s -m 5 "http://$ADDR_s/metrics" >"$TMP/metrics.txt" || die "no /metrics"
leaks /findings "$TMP/findings.json"
leaks /metrics "$TMP/metrics.txt"
grep -q "pid $JOB" "$TMP/findings.json" || die "/findings names no finding of the job: $(head -c 600 "$TMP/findings.json")"
grep -q "pid $HOG .*--db-password=\*\*\*" "$TMP/findings.json" && hog_served=1

# 4. record, then report --text (a recording holds every process's command line)
"$G" record -o "$TMP/rec.jsonl" --interval 0.5s --duration 1.5s 2>"$TMP/err" || die "record failed: $(cat "$TMP/err")"
leaks recording "$TMP/rec.jsonl"
[ "$(stat -c %a "$TMP/rec.jsonl")" = 600 ] || die "a new recording has mode $(stat -c %a "$TMP/rec.jsonl"), want 600"
grep -q 'gd-hog --db-password=\*\*\*' "$TMP/rec.jsonl" || die "the recording lacks the hog's redacted command line"
"$G" report "$TMP/rec.jsonl" --text >"$TMP/report.txt" 2>"$TMP/err"
[ $? -le 2 ] || die "report --text failed: $(cat "$TMP/err")"
leaks "report --text" "$TMP/report.txt"
grep -q "pid $JOB (" "$TMP/report.txt" || die "report --text names no finding of the job: $(head -c 800 "$TMP/report.txt")"
! grep -q "$ESC" "$TMP/report.txt" || die "report --text holds an ESC byte: $(grep -a "$ESC" "$TMP/report.txt" | cat -v | head -n 3)"

# 5. a symbolic link at the output name is refused, its target untouched
echo keep >"$TMP/target"
ln -s "$TMP/target" "$TMP/link"
for cmd in "snapshot -o $TMP/link" "record -o $TMP/link --interval 0.5s --duration 1s" \
	   "report $TMP/rec.jsonl -o $TMP/link"; do
	# shellcheck disable=SC2086
	"$G" $cmd >/dev/null 2>"$TMP/err" && die "$cmd wrote through a symbolic link"
	grep -q "symbolic link" "$TMP/err" || die "$cmd: no word of the link: $(cat "$TMP/err")"
	[ "$(cat "$TMP/target")" = keep ] || die "$cmd changed the link's target"
done
[ -L "$TMP/link" ] || die "the link was replaced"

# 6. fleet's text against a Prometheus stand-in with escapes in labels, warnings and errors
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
python3 tests/exporter/prom_standin.py "$TMP/port" "$TMP/req.log" &
PIDS+=($!)
for i in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
[ -s "$TMP/port" ] || die "the stand-in did not start"
S=http://127.0.0.1:$(cat "$TMP/port")
"$G" fleet --range 1h --prometheus "$S/esc" --html "$TMP/link" >"$TMP/fleet.txt" 2>&1
grep -q "symbolic link" "$TMP/fleet.txt" || die "fleet --html wrote through a symbolic link: $(tail -n 2 "$TMP/fleet.txt")"
[ "$(cat "$TMP/target")" = keep ] || die "fleet --html changed the link's target"
"$G" fleet --range 1h --prometheus "$S/esc" >"$TMP/fleet.txt" 2>&1 || die "fleet failed: $(tail -n 3 "$TMP/fleet.txt")"
grep -qF 'gpu.lost?[2J?]0;pwned??' "$TMP/fleet.txt" || die "fleet does not show the rule label printable: $(head -c 600 "$TMP/fleet.txt")"
"$G" fleet --range 1h --prometheus "$S/escerr" >>"$TMP/fleet.txt" 2>&1 && die "fleet took a 422"
grep -qF 'HTTP 422, execution?[2J' "$TMP/fleet.txt" || die "fleet's error line: $(tail -n 1 "$TMP/fleet.txt")"
! grep -q "$ESC" "$TMP/fleet.txt" || die "fleet's text holds an ESC byte: $(grep -a "$ESC" "$TMP/fleet.txt" | cat -v | head -n 3)"

echo "ok: no secret in snapshot, check, /findings, /metrics, the recording, report${hog_named:+ (check named the hog, redacted)}${hog_served:+ (/findings too)};" \
     "no ESC byte in check, report --text, fleet; links refused, new files 0600"
