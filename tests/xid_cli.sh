#!/bin/bash
# tests/xid_cli.sh - `gpudoctor xid` and `check --from` a kernel log through
# the binary, on the fixture logs in tests/klog/ (every front-end), a gzip
# copy made here, a truncated one, standard input and an empty file.
# Exit 0 pass, 77 skip (no jq or gzip), anything else fails.
set -u
cd "$(dirname "$0")/.."
G=${GPUDOCTOR:-${BUILD:-build}/gpudoctor}
K=tests/klog
command -v jq >/dev/null || { echo "skip: jq is not installed"; exit 77; }
command -v gzip >/dev/null || { echo "skip: gzip is not installed"; exit 77; }
[ -x "$G" ] || { echo "no binary at $G"; exit 1; }
T=$(mktemp -d /tmp/gd-xid-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
export TZ=UTC
bad=0
check() { # description, then a command that must succeed
	local what=$1
	shift
	if ! "$@"; then
		echo "FAIL: $what"
		bad=1
	fi
}

# Every front-end gives the same summary: 13 x1 and 45 x1 on 5d, 79 on 3b.
for f in dmesg-T.log journal-short.log journal-precise.log journal-iso.log kern.log kmsg.txt; do
	out=$("$G" xid --json "$K/$f")
	rc=$?
	check "$f: exit 2 (Xid 79 is critical), got $rc" [ "$rc" -eq 2 ]
	got=$(jq -r '[.summary[] | "\(.pci_bus_id)/\(.code)/\(.count)/\(.severity)"] | join(" ")' <<<"$out")
	check "$f: summary was: $got" [ "$got" = "0000:3b:00.0/79/1/critical 0000:5d:00.0/13/1/warning 0000:5d:00.0/45/1/info" ]
	uuid=$(jq -r '.summary[] | select(.code == 13) | .uuid' <<<"$out")
	check "$f: uuid $uuid" [ "$uuid" = "GPU-6f3e0c4a-0d5e-4c1e-9a2b-3c4d5e6f7a8b" ]
done
# wall-clock forms carry the time of the line
first=$(jq -r '.summary[] | select(.code == 79) | .first' <<<"$("$G" xid --json $K/journal-iso.log)")
check "journal-iso first: $first" [ "$first" = "2026-11-30T01:00:00+0000" ]
first=$(jq '.summary[] | select(.code == 79) | .first_boot_s == 3600' <<<"$("$G" xid --json $K/kern.log)")
check "kern.log keeps boot seconds" [ "$first" = "true" ]
# the syslog line of another program is not counted
n=$(jq '[.events[] | select(.kind == "xid")] | length' <<<"$("$G" xid --json $K/kern.log)")
check "kern.log xid events: $n" [ "$n" -eq 3 ]

# dmesg: events carry parsed fields, unknown codes are kept
out=$("$G" xid --json $K/dmesg.log)
check "unknown Xid 999 kept" [ "$(jq '[.summary[] | select(.code == 999 and .class == "unknown")] | length' <<<"$out")" -eq 1 ]
check "MIG instance parsed" [ "$(jq '[.events[] | select(.gpu_instance == 1)] | length' <<<"$out")" -eq 1 ]
check "OOM event" [ "$(jq -r '.events[] | select(.kind == "oom_kill") | .process' <<<"$out")" = "python" ]
check "154 action" [ "$(jq -r '.summary[] | select(.code == 154) | .severity' <<<"$out")" = "critical" ]
"$G" xid $K/dmesg.log >"$T/text"
grep -q "GPU 0000:5d:00.0 (GPU-6f3e0c4a" "$T/text" || { echo "FAIL: text output"; bad=1; }

# gzip (detected by content, not name), standard input, truncated gzip, empty file
gzip -c $K/dmesg.log >"$T/kern.1"
check "gzip by content" [ "$("$G" xid --json "$T/kern.1" | jq '.summary | length')" -eq 7 ]
check "standard input" [ "$(gzip -c $K/dmesg.log | "$G" xid --json - | jq '.summary | length')" -eq 7 ]
head -c 1000 "$T/kern.1" >"$T/cut.gz"
"$G" xid "$T/cut.gz" >"$T/cut.out" 2>"$T/cut.err"
grep -q "ends early" "$T/cut.err" || { echo "FAIL: truncated gzip message: $(cat "$T/cut.err")"; bad=1; }
: >"$T/empty.log"
"$G" xid "$T/empty.log" >"$T/empty.out"
rc=$?
check "empty file exits 0, got $rc" [ "$rc" -eq 0 ]
grep -q "No Xid" "$T/empty.out" || { echo "FAIL: empty file output"; bad=1; }
"$G" xid /nonexistent/kern.log 2>"$T/err"
rc=$?
check "missing file exits 3, got $rc" [ "$rc" -eq 3 ]
# --since: a time after every line leaves nothing (boot-only lines are kept and said so)
check "--since" [ "$("$G" xid --json --since 2026-11-30T02:00 $K/journal-iso.log | jq '.summary | length')" -eq 0 ]
"$G" xid --since yesterday $K/dmesg.log 2>"$T/err"
check "bad --since exits 3" [ $? -eq 3 ]
check "xid --help" "$G" xid --help >/dev/null

# check --from a kernel log: the rules judge it
out=$("$G" check --json --from $K/dmesg.log)
rc=$?
check "check --from dmesg exits 2, got $rc" [ "$rc" -eq 2 ]
for id in gpu.xid gpu.lost gpu.reset_required gpu.pcie_link_degraded gpu.pcie_replays mem.oom_kill; do
	check "check --from fires $id" [ "$(jq --arg id "$id" '[.findings[] | select(.id == $id)] | length' <<<"$out")" -ge 1 ]
done
check "check --from of gzip on stdin" [ "$(gzip -c $K/dmesg.log | "$G" check --json --from - | jq '[.findings[] | select(.id == "gpu.lost")] | length')" -eq 1 ]

exit $bad
