#!/bin/bash
# tests/i18n/rules1_messages.sh - the rule engine's messages in Chinese, in
# context: the registry's titles and remedies (N_() in src/rules/registry.c,
# translated as gd_finding_add copies them), the host rules' summaries, the
# "not evaluated" reasons, the threshold errors, the episode lines; the
# threshold descriptions of src/rules/thresholds.def are extracted; and
# --json stays English under a Chinese locale unless --lang asks.
set -u
# whole lines: the Chinese text report wraps at 80 columns, unless $COLUMNS says
export COLUMNS=100000
cd "$(dirname "$0")/../.."
repo=$PWD
GPUDOCTOR=${GPUDOCTOR:-$repo/${BUILD:-build}/gpudoctor}
case $GPUDOCTOR in /*) ;; *) GPUDOCTOR=$repo/$GPUDOCTOR ;; esac
for t in xgettext jq; do
	command -v "$t" >/dev/null || { echo "$t missing: apt-get install gettext jq (make deps)"; exit 77; }
done
[ -x "$GPUDOCTOR" ] || { echo "FAIL: $GPUDOCTOR is not built (make all)"; exit 1; }
mo=$(dirname "$GPUDOCTOR")/locale/zh_CN/LC_MESSAGES/gpudoctor.mo
[ -e "$mo" ] || { echo "FAIL: $mo was not built (make all)"; exit 1; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }
has() { # has WHAT TEXT PATTERN: TEXT contains the fixed string PATTERN
	case $2 in *"$3"*) ;; *) bad "$1: no \"$3\" in: $(printf '%s' "$2" | head -c 1500)" ;; esac
}
work=$(mktemp -d "${TMPDIR:-/tmp}/gd-i18n-rules1.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# 1. Extraction: every row of the registry gives a title and a remedy, every
# threshold of thresholds.def its description (xgettext reads .def as C).
rows=$(grep -cP '^\t\{ "[a-z]+\.[a-z0-9_]+", GD_SEV_[A-Z]+, N_\("' src/rules/registry.c)
all=$(grep -cP '^\t\{ "[a-z]+\.[a-z0-9_]+", GD_SEV_[A-Z]+,' src/rules/registry.c)
[ "$rows" = "$all" ] && [ "$rows" -ge 60 ] || bad "registry: $rows of $all rows mark their title with N_()"
n=$(xgettext --language=C --keyword=N_ --from-code=UTF-8 --no-wrap -o - src/rules/registry.c | grep -c '^msgid "..*"')
[ "$n" = $((2 * all)) ] || bad "registry: xgettext finds $n titles and remedies, want $((2 * all))"
ths=$(grep -c '^GD_TH(' src/rules/thresholds.def)
marked=$(grep -c '^GD_TH(.*, N_("[^"]*"))$' src/rules/thresholds.def)
[ "$marked" = "$ths" ] || bad "thresholds.def: $marked of $ths descriptions are marked N_()"
distinct=$(grep -oP '^GD_TH\(.*, N_\("\K[^"]*(?="\)\)$)' src/rules/thresholds.def | sort -u | wc -l)
n=$(xgettext --language=C --keyword=N_ --from-code=UTF-8 --no-wrap -o - src/rules/thresholds.def | grep -c '^msgid "..*"')
[ "$n" = "$distinct" ] && [ "$n" -ge 50 ] || bad "thresholds.def: xgettext finds $n descriptions, the file has $distinct"

# 2. A host rule in context: the summary built in rule_cpu.c and the
# registry's remedy, in Chinese; the English report is the same as ever.
zh=$(LANG=zh_CN.UTF-8 tests/scenarios/run.sh --text 1001-cpu.saturated 2>&1)
has "cpu.saturated zh summary" "$zh" "全部 8 个 CPU 在 2.0 s 内忙碌 97%（阈值 90%）；PSI cpu some 56%；每个 CPU 的负载为 2.2。"
has "cpu.saturated zh remedy" "$zh" "减少每个样本的 CPU 计算量"
has "io.checkpoint_stall zh reason" "$zh" "io.checkpoint_stall（需要由三个或更多快照组成的序列"
en=$(LANG=C tests/scenarios/run.sh --text 1001-cpu.saturated 2>&1)
has "cpu.saturated en summary" "$en" "All 8 CPUs are 97% busy over 2.0 s (threshold 90%); PSI cpu some 56%; load 2.2 per CPU."
has "cpu.saturated en remedy" "$en" "Cut CPU work per sample (decode and augment on the GPU, e.g. NVIDIA DALI)"
zh=$(LANG=zh_CN.UTF-8 tests/scenarios/run.sh --text 1009-mem.cgroup_near_limit 2>&1)
has "mem.cgroup_near_limit zh" "$zh" "cgroup /kubepods/pod1/job (pid 4242) 已用 245.5 GiB，上限 256 GiB（96%，阈值 90%）。"
zh=$(LANG=zh_CN.UTF-8 tests/scenarios/run.sh --text 1013-io.network_fs 2>&1)
has "io.network_fs zh (plural)" "$zh" "GPU 作业 pid 4242 (python) 在 nfs4 /mnt/datasets 上打开着 2 个文件"

# 3. --json keeps English under a Chinese locale, and speaks Chinese when
# asked; subjects and rule ids never change.
paste=tests/offline/0002-h100-r550-sw-thermal/smi.txt
j=$(LANG=zh_CN.UTF-8 "$GPUDOCTOR" check --from "$paste" --json 2>/dev/null)
r=$(printf '%s' "$j" | jq -r '.not_evaluated[] | select(.rule == "cpu.saturated") | .reason')
has "--json under zh_CN stays English" "$r" "one sample from nvidia-smi -q: no rates"
j=$("$GPUDOCTOR" --lang zh_CN check --from "$paste" --json 2>/dev/null)
r=$(printf '%s' "$j" | jq -r '.not_evaluated[] | select(.rule == "cpu.saturated") | .reason')
has "--json --lang zh_CN" "$r" "只有一个来自 nvidia-smi -q 的样本：无法计算速率"
r=$(printf '%s' "$j" | jq -r '.findings[] | select(.id == "gpu.thermal_throttle") | "\(.subject) \(.remedy)"')
has "--json --lang zh_CN remedy, English subject" "$r" "gpu0 (0000:07:00.0) 检查 GPU 散热"

# 4. Threshold errors (src/rules/thresholds.c) in Chinese, English by default.
e=$("$GPUDOCTOR" --lang zh_CN check --from "$paste" --set foo=1 2>&1)
has "--set error zh" "$e" "--set foo：格式应为 rule.key=value，例如 cpu.saturated.busy_pct=95"
e=$("$GPUDOCTOR" --lang zh_CN check --from "$paste" --set cpu.saturated.nokey=1 2>&1)
has "--set unknown key zh" "$e" "--set 规则 cpu.saturated 没有键 \"nokey\""
e=$(LANG=C "$GPUDOCTOR" check --from "$paste" --set cpu.saturated.nokey=1 2>&1)
has "--set unknown key en" "$e" "--set unknown key \"nokey\" for rule cpu.saturated (gpudoctor rules lists them)"

# 5. Episode lines (src/rules/episodes.c) of a recorded series: the kind in
# Chinese in the text, the JSON's kind the same enum value as ever.
if [ -f "$(dirname "$GPUDOCTOR")/fake_nvml/libnvidia-ml.so.1" ]; then
	# shellcheck source=../timeline/lib.sh
	. tests/timeline/lib.sh
	make_series "$work/s.jsonl"
	t=$("$GPUDOCTOR" --lang zh_CN report "$work/s.jsonl" --text 2>&1)
	has "episode line zh" "$t" " +4.0 s gpu0-1 空闲 - io.checkpoint_stall: 从 uptime 5005.0 s 起所有 GPU 空闲了 4.0 s，同时有 3.0 GB 以 750 MB/s 写入 sda（机械盘）。"
	has "episode line zh (slowed)" "$t" " +2.0 s gpu1 降频 - gpu.straggler: "
	k=$("$GPUDOCTOR" --lang zh_CN report "$work/s.jsonl" --json 2>/dev/null | jq -c '[.episodes[].kind] | unique')
	[ "$k" = '["idle","slowed"]' ] || bad "episode kinds in JSON changed with the language: $k"
else
	echo "note: the fake NVML is not built (make unit): episode lines not checked"
fi

[ "$fail" = 0 ] || exit 1
echo "ok: registry and thresholds.def extracted; rule summaries, remedies, reasons, threshold errors and episode lines in Chinese; English and JSON unchanged"
