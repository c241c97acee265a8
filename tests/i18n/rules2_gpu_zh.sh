#!/bin/bash
# tests/i18n/rules2_gpu_zh.sh - the GPU, driver and kernel-log rules speak
# Chinese (issue 15): on offline fixtures of tests/offline/, `check --json
# --lang zh_CN` gives each rule's summary in Chinese with the seeds' word for
# it (过热降频, 掉卡, 行重映射 ...), the reasons of rules not evaluated too,
# while everything that is not a message stays as in English: the rule ids,
# severities, subjects (label values), evidence (names, values, units, text),
# the list of rules not evaluated and the exit status.  No summary is cut
# inside a character (no U+FFFD), and the English summaries hold no CJK.
set -u
# whole lines: the Chinese text report wraps at 80 columns, unless $COLUMNS says
export COLUMNS=100000
cd "$(dirname "$0")/../.."
GPUDOCTOR=${GPUDOCTOR:-${BUILD:-build}/gpudoctor}
case $GPUDOCTOR in /*) ;; *) GPUDOCTOR=$PWD/$GPUDOCTOR ;; esac
command -v jq >/dev/null || { echo "jq missing (make deps)"; exit 77; }
[ -x "$GPUDOCTOR" ] || { echo "$GPUDOCTOR is not built (make all)"; exit 77; }
[ -e "$(dirname "$GPUDOCTOR")/locale/zh_CN/LC_MESSAGES/gpudoctor.mo" ] ||
	{ echo "no compiled catalogue beside $GPUDOCTOR (make all builds it)"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0

# run FIXTURE LANG OUT: check --json of the fixture's inputs, as tests/offline/run.sh gives them
run() {
	local args=() f
	for f in tests/offline/"$1"/*; do
		case $(basename "$f") in expected.txt | args | stdin) ;; *) args+=(--from "$f") ;; esac
	done
	GPUDOCTOR_NVML=/nonexistent NO_COLOR=1 timeout 60 "$GPUDOCTOR" check --json --lang "$2" "${args[@]}" \
		>"$3" 2>/dev/null
	[ $? -le 2 ] && jq -e .findings "$3" >/dev/null 2>&1
}

# what may not change with the language
same='{exit, f: [.findings[] | {id, severity, subject, evidence}], ne: [.not_evaluated[] | .rule],
       un: [.unavailable[]? | del(.reason)]}'

# fixture  rule  a word its Chinese summary says
while read -r fx rule word; do
	[ -n "$fx" ] || continue
	n=$((n + 1))
	if ! run "$fx" en "$tmp/en.json" || ! run "$fx" zh_CN "$tmp/zh.json"; then
		echo "FAIL $fx: check failed"; fail=1; continue
	fi
	if ! diff <(jq -S "$same" "$tmp/en.json") <(jq -S "$same" "$tmp/zh.json") >"$tmp/diff"; then
		echo "FAIL $fx: ids, subjects, evidence or exit differ between en and zh_CN:"; head -20 "$tmp/diff"
		fail=1
	fi
	zh=$(jq -r --arg r "$rule" '[.findings[] | select(.id == $r) | .summary] | join("\n")' "$tmp/zh.json")
	en=$(jq -r --arg r "$rule" '[.findings[] | select(.id == $r) | .summary] | join("\n")' "$tmp/en.json")
	if [ -z "$zh" ]; then
		echo "FAIL $fx: $rule did not fire"; fail=1; continue
	fi
	case $zh in *"$word"*) ;; *) echo "FAIL $fx: the zh_CN summary of $rule lacks \"$word\": $zh"; fail=1 ;; esac
	case $zh in *$'\xef\xbf\xbd'*) echo "FAIL $fx: a summary of $rule is cut inside a character: $zh"; fail=1 ;; esac
	if jq -e --arg r "$rule" 'any(.findings[] | select(.id == $r) | .summary; test("[\u4e00-\u9fff]"))' \
		"$tmp/en.json" >/dev/null; then
		echo "FAIL $fx: the English summary of $rule holds Chinese: $en"; fail=1
	fi
	[ "$zh" != "$en" ] || { echo "FAIL $fx: the summary of $rule is not translated: $zh"; fail=1; }
done <<'EOF'
0002-h100-r550-sw-thermal gpu.thermal_throttle 过热降频
0006-h100-r570-power-brake gpu.power_brake 功率制动
0007-l40s-r550-x8-under-load gpu.pcie_link_degraded PCIe 链路
0206-real-lspci-rtx8000-width-downgraded gpu.pcie_link_degraded 降宽
0009-a100-r550-remap-pending gpu.row_remap_pending 行重映射
0012-a100-r535-ecc-uncorrectable gpu.ecc_uncorrectable 不可纠正的 ECC 错误
0013-h100-r550-memory-full gpu.memory_full 显存
0020-gpu-lost-table gpu.lost 掉卡
0209-real-klog-fallen-off-multiline gpu.lost 掉卡
0214-real-klog-talos-xid154 gpu.xid 出现在
0211-real-klog-syslog-rminitadapter gpu.init_failed 无法初始化
0021-driver-not-loaded driver.not_loaded 内核模块未加载
0219-real-nvml-mismatch-library-version driver.version_mismatch 拒绝启动
0300-recorded-job-host-bound gpu.idle_while_job_runs 平均利用率
EOF

# a reason: what nvidia-smi -q lacks, in Chinese, the output's name as given
n=$((n + 1))
if run 0002-h100-r550-sw-thermal zh_CN "$tmp/zh.json"; then
	why=$(jq -r '.not_evaluated[] | select(.rule == "gpu.nvlink_errors") | .reason' "$tmp/zh.json")
	[ "$why" = "nvidia-smi -q 的输出中缺少：NVLink 状态或错误计数" ] ||
		{ echo "FAIL 0002: the zh_CN reason of gpu.nvlink_errors is \"$why\""; fail=1; }
else
	echo "FAIL 0002: check failed"; fail=1
fi
[ "$fail" = 0 ] && echo "ok: $n checks of the GPU, driver and kernel-log rules in zh_CN"
exit "$fail"
