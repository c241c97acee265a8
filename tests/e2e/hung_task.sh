#!/bin/bash
# tests/e2e/hung_task.sh - host.hung_tasks on a real process in D state.
#
# The parent of a vfork() child sleeps in the kernel, uninterruptibly
# (TASK_KILLABLE, shown as D in /proc/<pid>/stat), until the child execs or
# exits: here the child sleeps 5 s, so the parent is a process in D for
# 5 s that holds no GPU.  Two checks over one 3 s window run beside it:
#
#   1. host.hung_tasks.d_seconds=2: the parent is in D in both samples,
#      3 s apart: the rule names its pid, the function it sleeps in (wchan)
#      and, as root, its kernel stack (the vfork path), and does not call
#      it the NVIDIA driver;
#   2. the default d_seconds (60): the same process, in D for a moment,
#      stays silent.
#
# Exit 0 pass, 77 skip (reason on the last line), anything else fails.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }

[ -n "${GPUDOCTOR:-}" ] && [ -x "$GPUDOCTOR" ] || fail "GPUDOCTOR (${GPUDOCTOR:-unset}) is not an executable"
command -v jq >/dev/null || skip "jq is not installed"
CC=${CC:-cc}
command -v "$CC" >/dev/null || skip "no C compiler ($CC)"

tmp=$(mktemp -d /tmp/gd-e2e-hung.XXXXXX) || fail "mktemp"
holder=
cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	[ -n "$holder" ] && wait "$holder" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' TERM INT

cat >"$tmp/vfork_hold.c" <<'C'
#include <stdlib.h>
#include <unistd.h>
/* vfork_hold SECONDS: the parent waits in the kernel (D) while the child sleeps. */
int main(int argc, char **argv)
{
	unsigned s = argc > 1 ? (unsigned)atoi(argv[1]) : 5;
	pid_t p = vfork();

	if (p == 0) {
		sleep(s);
		_exit(0);
	}
	return p < 0;
}
C
"$CC" -O1 -o "$tmp/vfork_hold" "$tmp/vfork_hold.c" || fail "cannot build vfork_hold"

"$tmp/vfork_hold" 5 &
holder=$!
state=
for _ in 1 2 3 4 5 6 7 8 9 10; do
	state=$(sed 's/.*) \([A-Za-z]\) .*/\1/' "/proc/$holder/stat" 2>/dev/null)
	[ "$state" = D ] && break
	sleep 0.1
done
[ "$state" = D ] || skip "the parent of a vfork child is not in D state on this kernel ($(uname -r): state ${state:-none})"

"$GPUDOCTOR" check --window 3s --set host.hung_tasks.d_seconds=2 --json >"$tmp/low.json" 2>"$tmp/low.err" &
low=$!
"$GPUDOCTOR" check --window 3s --json >"$tmp/default.json" 2>"$tmp/default.err" &
def=$!
wait "$low"
[ $? -le 2 ] || { cat "$tmp/low.err"; fail "check (d_seconds=2) failed"; }
wait "$def"
[ $? -le 2 ] || { cat "$tmp/default.err"; fail "check (default) failed"; }

mine() { jq -c --arg s "pid $holder (vfork_hold)" '[.findings[] | select(.id == "host.hung_tasks" and .subject == $s)]' "$1"; }

f=$(mine "$tmp/low.json")
[ "$(jq length <<<"$f")" = 1 ] || { jq -c '.findings[] | {id, subject}' "$tmp/low.json"; fail "1: no host.hung_tasks finding for pid $holder"; }
echo "1: $(jq -r '.[0].summary' <<<"$f")"
d=$(jq '.[0].evidence[] | select(.name == "d_state_s") | .value' <<<"$f")
awk -v d="$d" 'BEGIN { exit !(d >= 2 && d < 60) }' || fail "1: d_state_s is $d, want the window's 2..60 s"
[ "$(jq -r '.[0].evidence[] | select(.name == "wchan") | .text' <<<"$f")" != "" ] || fail "1: no wchan"
if [ "$(id -u)" = 0 ]; then
	jq -e '.[0].evidence[] | select(.name == "kernel_stack") | .text | test("vfork|kernel_clone|do_fork")' <<<"$f" >/dev/null ||
		fail "1: the kernel stack does not show the vfork path: $(jq -c '.[0].evidence' <<<"$f")"
fi
jq -e '.[0].summary | test("NVIDIA") | not' <<<"$f" >/dev/null || fail "1: a process that holds no GPU is called the NVIDIA driver"

[ "$(jq length <<<"$(mine "$tmp/default.json")")" = 0 ] || fail "2: a process in D for 3 s fired under the default 60 s"
echo "2: silent under the default d_seconds (60)"
echo "ok"
