#!/bin/bash
# tests/i18n/collect_reasons_zh.sh - what the collectors, the offline readers
# and the Xid catalogue say, in Chinese under --lang zh_CN and in English
# under --lang en: malformed pastes (`check --from`) name the file and the
# line of the file in both languages (the same line), a collector root with
# missing and malformed files (`check --root`) gives the reasons in Chinese,
# the exit status does not depend on the language, and `gpudoctor xid` on a
# real kernel log gives the Xid advice in Chinese (its --json stays English
# unless --lang asks).  Exit 0 pass, 77 skip, anything else fails.
set -u
# whole lines: the Chinese text report wraps at 80 columns, unless $COLUMNS says
export COLUMNS=100000
cd "$(dirname "$0")/../.."
G=${GPUDOCTOR:-${BUILD:-build}/gpudoctor}
[ -x "$G" ] || { echo "no binary at $G (make all)"; exit 1; }
mo=$(dirname "$G")/locale/zh_CN/LC_MESSAGES/gpudoctor.mo
[ -e "$mo" ] || { echo "skip: $mo was not built (msgfmt missing: apt-get install gettext)"; exit 77; }
command -v jq >/dev/null || { echo "skip: jq is not installed"; exit 77; }
T=$(mktemp -d /tmp/gd-i18n-collect.XXXXXX)
trap 'rm -rf "$T"' EXIT
export TZ=UTC GPUDOCTOR_NVML=/nonexistent/libnvidia-ml.so.1 NO_COLOR=1
unset GPUDOCTOR_FAKE_NVML
bad=0
fail() { echo "FAIL: $*"; bad=1; }
has() { # what, text, needle
	case $2 in *"$3"*) ;; *) fail "$1: no \"$3\" in: $2" ;; esac
}
lacks() { # what, text, needle
	case $2 in *"$3"*) fail "$1: \"$3\" in: $2" ;; esac
}

# run LANG-ARG NAME ARGS...: stdout and stderr in $T/NAME.LANG, status in $T/NAME.LANG.rc
run() {
	local lang=$1 name=$2
	shift 2
	timeout 60 "$G" --lang "$lang" "$@" >"$T/$name.$lang" 2>&1
	echo $? >"$T/$name.$lang.rc"
}
same_exit() { # name
	local zh en
	zh=$(cat "$T/$1.zh_CN.rc") en=$(cat "$T/$1.en.rc")
	[ "$zh" = "$en" ] || fail "$1: exit $zh in Chinese, $en in English"
}

# ---- check --from: malformed pastes ------------------------------------------
# a truncated nvidia-smi -q after a prompt and another command's output: the
# message counts the lines of the file (line 557 of the part is line 560)
{
	printf '$ uptime\n 10:00:01 up 3 days,  2 users,  load average: 0.10, 0.20, 0.30\n$ nvidia-smi -q\n'
	cat tests/offline/0024-truncated/q.txt
} >"$T/cut-smi.txt"
cp tests/offline/0025-unknown-format/notes.txt "$T/notes.txt"
cp tests/offline/0022-ten-gpus-one-garbled/q.txt "$T/garbled.txt"
for lang in zh_CN en; do
	run "$lang" cut "check" --from "$T/cut-smi.txt"
	run "$lang" unknown "check" --from "$T/notes.txt"
	run "$lang" garbled "check" --from "$T/garbled.txt"
	run "$lang" missing "check" --from "$T/no-such-file.txt"
done
for n in cut unknown garbled missing; do
	same_exit "$n"
done
zh=$(cat "$T/cut.zh_CN") en=$(cat "$T/cut.en")
has "cut, zh_CN" "$zh" "$T/cut-smi.txt: 第 560 行：最后一个 GPU 段在 Processes 之前就结束了"
has "cut, zh_CN" "$zh" "输出被截断"
lacks "cut, zh_CN" "$zh" "the output is cut short"
has "cut, en" "$en" "$T/cut-smi.txt: line 560: the last GPU section ends before its Processes: the output is cut short"
lacks "cut, en" "$en" "第 560 行"
zh=$(cat "$T/unknown.zh_CN") en=$(cat "$T/unknown.en")
has "unknown, zh_CN" "$zh" "$T/notes.txt: 第 1 行：不是 gpudoctor 能读取的格式（应为快照 JSON 行"
has "unknown, en" "$en" "$T/notes.txt: line 1: not a format gpudoctor reads (expected snapshot JSON lines"
zh=$(cat "$T/garbled.zh_CN") en=$(cat "$T/garbled.en")
has "garbled, zh_CN" "$zh" "$T/garbled.txt: 第 1221 行：不是 nvidia-smi -q 的行（此处应为 GPU 段的标题）；跳过了 2 行"
has "garbled, en" "$en" "$T/garbled.txt: line 1221: not a line of nvidia-smi -q (a GPU section header was expected); 2 line(s) skipped"
# the missing file: named in both (the reason itself is the C library's)
has "missing, zh_CN" "$(cat "$T/missing.zh_CN")" "$T/no-such-file.txt: "
has "missing, en" "$(cat "$T/missing.en")" "$T/no-such-file.txt: No such file or directory"
[ "$(cat "$T/missing.en.rc")" -ne 0 ] || fail "missing: exit 0 for a file that does not exist"

# ---- check --root: collectors' reasons ---------------------------------------
# no /proc/driver/nvidia/version, no PSI, a /proc/loadavg that is not numbers
mkdir -p "$T/root/proc"
printf 'x 0.2 0.3 1/100 42\n' >"$T/root/proc/loadavg"
for lang in zh_CN en; do
	run "$lang" root check --window 100ms --root "$T/root"
done
same_exit root
zh=$(cat "$T/root.zh_CN") en=$(cat "$T/root.en")
has "root, zh_CN" "$zh" "proc_loadavg（失败：/proc/loadavg: 第 1 行：平均负载 \"x\" 不是数字）"
has "root, zh_CN" "$zh" "/proc/driver/nvidia/version: 文件不存在（未加载 nvidia 内核模块）"
has "root, zh_CN" "$zh" "此内核未启用 PSI（需要 CONFIG_PSI 和 psi=1）"
has "root, zh_CN" "$zh" "$GPUDOCTOR_NVML: 文件不存在（由 --nvml 或 GPUDOCTOR_NVML 指定）"
has "root, en" "$en" "proc_loadavg (failed: /proc/loadavg: line 1: load average \"x\" is not a number)"
has "root, en" "$en" "/proc/driver/nvidia/version: no such file (the nvidia kernel module is not loaded)"
has "root, en" "$en" "PSI not enabled in this kernel (needs CONFIG_PSI and psi=1)"
# snapshot writes the recording's reasons in English whatever the locale
LANG=zh_CN.UTF-8 LC_ALL=zh_CN.UTF-8 timeout 60 "$G" snapshot --root "$T/root" >"$T/snap.jsonl" 2>/dev/null
r=$(jq -r '.sources[] | select(.name == "proc_loadavg") | .reason' "$T/snap.jsonl")
[ "$r" = '/proc/loadavg: line 1: load average "x" is not a number' ] ||
	fail "snapshot under LANG=zh_CN.UTF-8: the reason is not English: $r"

# ---- xid: the catalogue's advice ---------------------------------------------
for lang in zh_CN en; do
	run "$lang" xid xid tests/klog/kern.log
done
same_exit xid
[ "$(cat "$T/xid.en.rc")" -eq 2 ] || fail "xid: exit $(cat "$T/xid.en.rc"), not 2 (Xid 79 is critical)"
zh=$(cat "$T/xid.zh_CN") en=$(cat "$T/xid.en")
has "xid, zh_CN" "$zh" "→ 将节点下线 (drain) 并重启（重置 GPU 很少奏效）"
has "xid, zh_CN" "$zh" "→ 重启应用并调试（compute-sanitizer）"
has "xid, zh_CN" "$zh" "次生"
has "xid, zh_CN" "$zh" "Xid  79"
lacks "xid, zh_CN" "$zh" "→ Drain and reboot the node"
has "xid, en" "$en" "→ Drain and reboot the node (a GPU reset rarely works)"
has "xid, en" "$en" "note: secondary"
# --json stays English unless --lang asks for Chinese
a=$(LANG=zh_CN.UTF-8 LC_ALL=zh_CN.UTF-8 "$G" xid --json tests/klog/kern.log | jq -r '.. | objects | select(.code? == 79) | .action' | head -n 1)
case $a in "Drain and reboot the node"*) ;; *) fail "xid --json under LANG=zh_CN.UTF-8: the action is not English: $a" ;; esac
a=$("$G" --lang zh_CN xid --json tests/klog/kern.log | jq -r '.. | objects | select(.code? == 79) | .action' | head -n 1)
case $a in "将节点下线"*) ;; *) fail "xid --json --lang zh_CN: the action is not Chinese: $a" ;; esac

[ "$bad" = 0 ] && echo "ok: reasons, offline errors and Xid advice in zh_CN and en"
exit "$bad"
