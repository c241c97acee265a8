#!/bin/bash
# gd-test: exclusive (it measures time, load or throughput: tests/run.sh runs it alone)
# tests/timeline/watch.sh - `gpudoctor watch` driven in tmux at 80x24 and
# 200x50: the GPUs of a fake-NVML scenario whose values change every sample
# (stall.ini: both GPUs idle for samples 3-6, gpu1 slowed for 10-12), a
# finding forced on any host (--set mem.pressure.available_pct=100: every
# host has less than 100% of its memory available), and the two episodes;
# q quits.  Then the plain mode: one line per interval when stdout is a pipe,
# and on the terminal when libncursesw.so.6 cannot be loaded (an empty file
# of that name first in LD_LIBRARY_PATH), with one line on stderr saying why.
. "$(dirname "$0")/lib.sh"
need tmux jq
work=$(mktemp -d "${TMPDIR:-/tmp}/gd-watch.XXXXXX") || exit 1
sock=gd-watch-$$
trap 'for s in 80 200 nolib; do tmux -L "$sock-$s" kill-server 2>/dev/null; done; rm -rf "$work"' EXIT
env_cmd="env TERM=xterm-256color GPUDOCTOR_NVML=$FAKE_NVML GPUDOCTOR_FAKE_NVML=$repo/tests/timeline/stall.ini"

check_screen() { # COLS ROWS
	local cols=$1 rows=$2 pane="$work/pane-$1x$2.txt" i sock=$sock-$1
	tmux -L "$sock" new-session -d -s w -x "$cols" -y "$rows" \
		"$env_cmd $GPUDOCTOR watch --interval 200ms --set mem.pressure.available_pct=100; echo EXITED \$?; sleep 30" ||
		die "tmux new-session failed"
	# 14 samples of the scenario at 200 ms, plus start-up.
	for i in $(seq 1 50); do
		sleep 0.2
		tmux -L "$sock" capture-pane -p -t w >"$pane"
		grep -q 'EPISODES (2)' "$pane" && grep -q 'gpu1 slowed' "$pane" && break
	done
	for want in 'gpudoctor watch' 'UTIL SM MHz' '^0  ' '^1  ' 'FINDINGS (' 'mem.pressure' 'EPISODES (2)' \
		'gpu0-1 idle' 'gpu1 slowed' 'q quit'; do
		grep -q -- "$want" "$pane" || die "${cols}x${rows}: \"$want\" not on the screen:"$'\n'"$(cat "$pane")"
	done
	[ "$(wc -l <"$pane")" -le "$rows" ] || die "${cols}x${rows}: more lines than rows"
	awk -v c="$cols" 'length($0) > c { bad = 1 } END { exit bad }' "$pane" || die "${cols}x${rows}: a line is wider than the pane"
	if [ "$cols" -ge 120 ]; then
		grep -q 'NVIDIA H100 80GB' "$pane" || die "${cols}x${rows}: no GPU name on a wide screen"
		grep -q -- '-> ' "$pane" || die "${cols}x${rows}: no remedy line"
	fi
	# A resize redraws to the new size.
	tmux -L "$sock" resize-window -t w -x 100 -y 30 2>/dev/null
	sleep 0.6
	tmux -L "$sock" capture-pane -p -t w >"$pane.resized"
	grep -q 'EPISODES (2)' "$pane.resized" || die "after a resize to 100x30 the screen lost the episodes"
	tmux -L "$sock" send-keys -t w q
	for i in $(seq 1 25); do
		sleep 0.2
		tmux -L "$sock" capture-pane -p -t w >"$pane.end"
		grep -q 'EXITED 0' "$pane.end" && break
	done
	grep -q 'EXITED 0' "$pane.end" || die "${cols}x${rows}: q did not end watch with status 0"
	tmux -L "$sock" kill-server
}

check_screen 80 24
check_screen 200 50

# A terminal without a loadable libncursesw: plain lines, and why.
mkdir "$work/nolib" && : >"$work/nolib/libncursesw.so.6"
tmux -L "$sock-nolib" new-session -d -s w -x 200 -y 30 \
	"LD_LIBRARY_PATH=$work/nolib $env_cmd $GPUDOCTOR watch --interval 100ms --duration 1s; echo EXITED \$?; sleep 30" ||
	die "tmux new-session failed"
for i in $(seq 1 25); do
	sleep 0.2
	tmux -L "$sock-nolib" capture-pane -p -t w >"$work/nolib.txt"
	grep -q 'EXITED' "$work/nolib.txt" && break
done
grep -q 'EXITED 0' "$work/nolib.txt" || die "watch without libncursesw did not end with 0:"$'\n'"$(cat "$work/nolib.txt")"
grep -q '^gpudoctor: watch: libncursesw.so.6 cannot be loaded: .*: plain lines instead of the full screen' "$work/nolib.txt" ||
	die "no line saying why watch fell back to plain lines:"$'\n'"$(cat "$work/nolib.txt")"
[ "$(grep -c '^up [0-9.]* | gpu0 ' "$work/nolib.txt")" -ge 5 ] ||
	die "watch without libncursesw printed no plain lines:"$'\n'"$(cat "$work/nolib.txt")"
tmux -L "$sock-nolib" kill-server

# Not a terminal: one plain line per interval.
$env_cmd "$GPUDOCTOR" watch --interval 100ms --duration 1s </dev/null >"$work/plain.txt" 2>"$work/plain.err" ||
	die "watch to a pipe failed: $(cat "$work/plain.err")"
n=$(wc -l <"$work/plain.txt")
[ "$n" -ge 9 ] && [ "$n" -le 12 ] || die "watch --duration 1s --interval 100ms printed $n lines"
grep -q '^up [0-9.]* | gpu0 [0-9]*% 1980MHz .* | gpu1 ' "$work/plain.txt" || die "plain line: $(head -1 "$work/plain.txt")"
grep -q 'episodes: 1' "$work/plain.txt" || die "plain lines never counted the first episode"
grep -q $'\033' "$work/plain.txt" && die "escape sequences in the plain output"
echo "ok: watch at 80x24 and 200x50 shows GPUs, findings and episodes; resizes; q quits; plain lines to a pipe" \
	"and on a terminal without libncursesw"
