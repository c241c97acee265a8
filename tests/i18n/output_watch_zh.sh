#!/bin/bash
# tests/i18n/output_watch_zh.sh - `gpudoctor watch` in Chinese, in tmux at
# 80x24: once under LANG=zh_CN.UTF-8, once under LANG=C with --lang zh_CN
# (ncurses must still get a UTF-8 LC_CTYPE, and the messages stay Chinese
# after the screen starts).  The fake NVML scenario and the forced finding
# are those of tests/timeline/watch.sh.  output_width.py checks the capture:
# every line within 80 display columns, Chinese headings, the GPU rows'
# cells under their headings by display width, the CPU and memory bars in
# one column, the findings' rule ids in one column.
. "$(dirname "$0")/../timeline/lib.sh"
need tmux python3
work=$(mktemp -d "${TMPDIR:-/tmp}/gd-i18n-watch.XXXXXX") || exit 1
sock=gd-i18n-watch-$$
trap 'for s in env lang; do tmux -L "$sock-$s" kill-server 2>/dev/null; done; rm -rf "$work"' EXIT
env_cmd="env TERM=xterm-256color GPUDOCTOR_NVML=$FAKE_NVML GPUDOCTOR_FAKE_NVML=$repo/tests/timeline/stall.ini"

await() { # SOCKET FILE PATTERN TRIES: captures the pane into FILE every 0.2 s until PATTERN shows
	local i
	for ((i = 0; i < $4; i++)); do
		sleep 0.2
		tmux -L "$1" capture-pane -p -t w >"$2"
		grep -q -- "$3" "$2" && return 0
	done
	return 1
}

screen() { # NAME LANG ARGS...: runs watch, leaves the capture in $work/NAME.txt
	local name=$1 lang=$2 pane="$work/$1.txt" s="$sock-$1"
	shift 2
	tmux -u -L "$s" new-session -d -s w -x 80 -y 24 \
		"$env_cmd LANG=$lang LC_ALL= $GPUDOCTOR $* watch --interval 200ms --set mem.pressure.available_pct=100; echo EXITED \$?; sleep 30" ||
		die "tmux new-session failed"
	# both episodes of stall.ini: 14 samples at 200 ms, plus start-up
	await "$s" "$pane" '卡顿时段（2）' 50 || die "$name: the screen never showed 卡顿时段（2）:"$'\n'"$(cat "$pane")"
	python3 "$repo/tests/i18n/output_width.py" watch "$pane" 80 || die "$name:"$'\n'"$(cat "$pane")"
	for want in '^gpudoctor watch | 主机 ' '^GPU 利用率 SM MHz' '^发现的问题（' '^q 退出 | '; do
		grep -q -- "$want" "$pane" || die "$name: \"$want\" not on the screen:"$'\n'"$(cat "$pane")"
	done
	tmux -L "$s" send-keys -t w q
	await "$s" "$pane.end" 'EXITED 0' 25 || die "$name: q did not end watch with status 0"
	tmux -L "$s" kill-server
}

screen env zh_CN.UTF-8
screen lang C --lang zh_CN
echo "ok: watch at 80x24 in Chinese (LANG=zh_CN.UTF-8, and --lang zh_CN under LANG=C): columns aligned by display width"
