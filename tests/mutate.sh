#!/bin/bash
# tests/mutate.sh - the suite fails when the code breaks.
#
#   tests/mutate.sh            every mutation below
#   tests/mutate.sh ID...      the named ones
#
# Each mutation is a deliberate breakage: a one-line sed on one file (or a
# change to the test tree itself), then the command that must now FAIL.  It
# runs in a copy of the working tree beside a link to ../shared, built into
# its own build directory, one mutation at a time, each reverted before the
# next.  A mutation whose sed no longer matches its file is itself a failure
# (the code moved: update the table), and so is a command that still passes.
# Not part of `make test` (it rebuilds once per mutation); CI runs it after.
# MUTATE_TREE=HEAD mutates the last commit instead of the working tree.
# MUTATE_SHARD=K/N runs only every Nth mutation from the Kth (0-based), so
# that N copies can run side by side (.ci/run runs two).
# Ends with "N passed, N failed": a pass is a mutation the tests caught.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gd-mutate.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
src=$work/main
mkdir -p "$src"
# the tracked and the new (not ignored) files, as they are in the tree now,
# or (MUTATE_TREE=HEAD) the last commit only
if [ "${MUTATE_TREE:-worktree}" = HEAD ]; then
	(cd "$repo" && git archive HEAD | tar -xf - -C "$src") || { echo "cannot copy HEAD"; exit 1; }
else
	(cd "$repo" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf - | tar -xf - -C "$src") || { echo "cannot copy the tree"; exit 1; }
fi
mkdir -p "$work/pristine" && (cd "$src" && tar -cf - .) | tar -xf - -C "$work/pristine"
[ -d "$repo/../shared" ] && ln -s "$(cd "$repo/../shared" && pwd)" "$work/shared"
export BUILD=build-mut
cd "$src" || exit 1
echo "building the unmutated copy in $src/$BUILD ..."
make -s -j"$(nproc)" BUILD=$BUILD all unit >"$work/build.log" 2>&1 || { tail -n 30 "$work/build.log"; echo "the unmutated tree does not build"; exit 1; }
export GPUDOCTOR=$src/$BUILD/gpudoctor

# id ~ file ~ sed expression (one line; must change the file) ~ command that
# must fail ~ an extended regex its output must match (so that it fails for
# the reason the mutation is about, not for another).  File "-": the
# expression is a command run after the build (a change to the build tree or
# the environment).
MUTATIONS=$(cat <<'EOF'
stale-always-fresh~src/serve/serve.c~s/return p \&\& age_s <= srv->deadline_s;/return p != NULL;/~tests/exporter/stale.sh~staleness detection is broken
per-address-limit-raised~src/serve/http.c~s/^#define PER_IP_LIMIT 32$/#define PER_IP_LIMIT 100000/~tests/exporter/http.sh~was not closed for the 33rd
per-address-limit-unit~src/serve/http.c~s/^#define PER_IP_LIMIT 32$/#define PER_IP_LIMIT 100000/~GD_SUITES=unit tests/run.sh~FAIL  unit/test_http_conn
eviction-newest~src/serve/http.c~s/t->slot\[i\].since_s < t->slot\[j\].since_s/t->slot[i].since_s > t->slot[j].since_s/~tests/exporter/http.sh~idle longest.? was not closed|table full of idle connections
spent-heads-not-first~src/serve/http.c~s/return now - s->since_s > GD_HTTP_SLOW_S ? 0 : 1;/return 1;/~build-mut/tests/test_http_conn~FAILED.*test_spent_first
head-time-from-reply~src/serve/http.c~s/c->head_s = c->in_len ? c->rx_s : 0;/c->head_s = c->in_len ? slot_of(h, c)->active_s : 0;/~tests/exporter/lockout.sh~outlived its time-out
cpu-threshold-inverted~src/rules/rule_cpu.c~s/hot_busy = have_busy \&\& busy >= th_busy;/hot_busy = have_busy \&\& busy < th_busy;/~tests/scenarios/run.sh 0000-healthy 1001-cpu.saturated~the healthy host has warnings
smi-q-temp-skipped~src/offline/smi_q.c~s/ofl_ieq(k, "GPU Current Temp")/ofl_ieq(k, "GPU Current Temp (skipped)")/~tests/offline/run.sh~-warning gpu.thermal_throttle
gpm-sm-ignored~src/rules/gpu_busy.c~s/o->idle = (o->util_ok \&\& o->util < th_util) || (o->gpm \&\& o->sm < th_sm);/o->idle = o->util_ok \&\& o->util < th_util;/~build-mut/tests/test_gpu_transfer~FAILED.*test_thin_kernel
fast-path-leading-zero~src/model/snapshot_fast.c~s/^	if (\*p == '0')$/	if (0)/~build-mut/tests/test_snapshot_fast~FAILED.*test_declines
delta-after-unchecked~src/model/snapshot_delta.c~s/^	if (b->have \&\& r->after.ok \&\& .*/	if (0)/~build-mut/tests/test_snapshot_delta~FAILED.*test_pieces
delta-strings-ignored~src/model/snapshot_delta.c~s/if (strncmp(p, q, f->size) != 0)/if (0)/~build-mut/tests/test_snapshot_delta~FAILED.*test_round_trip
rec-cut-not-closed~src/model/recording.c~s/(good.ok \&\& pwrite(fd, tail, sizeof tail, at) != (ssize_t)sizeof tail)/0/~build-mut/tests/test_recording~FAILED.*test_cut_gzip
unit-test-build-removed~Makefile~s/^TEST_BIN := .*/TEST_BIN :=/~GD_SUITES=unit tests/run.sh~the build did not make it
unit-test-binary-deleted~-~rm -f build-mut/tests/test_core~GD_SUITES=unit tests/run.sh~test_core does not exist
unknown-suite~-~true~GD_SUITES="unit nosuch" tests/run.sh~unknown suite 'nosuch'
update-under-runner~-~true~UPDATE=1 GD_SUITES=scenarios tests/run.sh~UPDATE=1 is refused
update-under-ci~-~true~CI=true UPDATE=1 tests/offline/run.sh~UPDATE is refused
update-scenarios-under-ci~-~true~CI=true UPDATE=1 tests/scenarios/run.sh 0000-healthy~refuse|refused
skip-under-ci~-~true~CI=true PATH=$NOCHROMIUM GD_SUITES=timeline tests/run.sh~skipped under CI=true
probe-storage-cached~src/probe/host_storage.c~s/fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC | O_NOATIME);/fd = open(path, O_RDONLY | O_CLOEXEC | O_NOATIME);/~tests/probe/host_storage.sh~outside 1/3..3
probe-storage-floor-inverted~src/rules/rule_probe_host.c~s/seq_low = seq_ok \&\& s->seq_mb_s < b.seq_mb_s;/seq_low = seq_ok \&\& s->seq_mb_s > b.seq_mb_s;/~build-mut/tests/test_probe_host~FAILED.*test_storage_slow_rule
probe-ipmi-state-ignored~src/probe/host_power.c~s/p->active = gd_tok_eq(v, "activated");/p->active = true;/~build-mut/tests/test_probe_host~FAILED.*test_ipmi_real_samples
alerts-info-rule-alerted~deploy/prometheus/gen_alerts.py~s/in ("warning", "critical")/in ("warning", "critical", "info")/~sh -c '$GPUDOCTOR rules | deploy/prometheus/gen_alerts.py - >/dev/null && tests/exporter/alerts.sh'~alert for info rule
alerts-yml-wrong-rule~deploy/prometheus/alerts.yml~s/rule=\\"cpu.cgroup_throttled\\"/rule=\\"cpu.governor_powersave\\"/~tests/exporter/alerts.sh~alerts.yml does not match the rules
config-number-rounded~src/output/out_config.c~s/if (strtod(buf, NULL) == v)/if (prec == 6)/~build-mut/tests/test_out_config~FAILED.*test_uncommented_loads_to_defaults
completion-drops-from~scripts/completion/gpudoctor~s/--json --from --lookback/--json --lookback/~tests/install/completion.sh~gpudoctor help check lists --from
install-drops-yml~mk/install.mk~s/filter-out systemd\/% %.py,/filter-out systemd\/% %.py %.yml,/~tests/install/destdir.sh~installed files differ
alerts-for-duration~deploy/prometheus/gen_alerts.py~s/else "2m"/else "3m"/~sh -c '$GPUDOCTOR rules | deploy/prometheus/gen_alerts.py - >/dev/null && tests/exporter/alerts.sh'~FAILED|promtool test rules
klog-reads-past-the-cut~src/klog/lineparse.h~s/return (size_t)(c->e - c->p) >= n \&\& memcmp(c->p, lit, n) == 0;/return memcmp(c->p, lit, n) == 0;/~build-mut/tests/test_klog~FAILED.*test_truncated_everywhere
docs-rule-count~src/cli/cli.c~s/for (size_t i = 0; i < gd_nrules; i++) {/for (size_t i = 1; i < gd_nrules; i++) {/~tests/docs.sh~rule counts disagree
xid-count-capped~src/klog/xid.c~s/^\te->count++;/\te->count += e->count < 3;/~SIZE=20000000 bench/xid/run.sh~wrong exit status or counts
checkpoint-burst-inverted~src/rules/rule_checkpoint.c~s/cur.bytes >= TH(rc, IO_CHECKPOINT_BURST_BYTES)/cur.bytes < TH(rc, IO_CHECKPOINT_BURST_BYTES)/~tests/scenarios/run.sh 0002-healthy-series 1023-io.checkpoint_stall~rule io.checkpoint_stall did not fire
memory-errors-at-threshold~src/rules/rule_klog.c~s/ce_rate > th)/ce_rate >= th)/~tests/scenarios/run.sh 0003-healthy-klog 1022-host.memory_errors~FAIL 0003-healthy-klog
oom-kill-ignored~src/rules/rule_klog.c~s/if (!is(ev, GD_KLOG_OOM_KILL) || shown++ >= 5)/if (is(ev, GD_KLOG_OOM_KILL) || shown++ >= 5)/~tests/scenarios/run.sh 1021-mem.oom_kill~rule mem.oom_kill did not fire
xid-not-summarised~src/rules/rule_klog.c~s/gd_xid_summary_add(\&sum, ev);/(void)ev;/~tests/scenarios/run.sh 1121-gpu.xid~FAIL 1121-gpu.xid
joblog-trigger-missing~src/offline/joblog.c~s/"DataLoader worker", " NCCL ",/"DataLoader worker",/~build-mut/tests/test_joblog~gd_joblog_messages says none
smi-q-none-unknown~src/offline/util.c~s/^\t\tgd_u64_set(\&g->nvml_procs, 0);$/\t\t(void)g;/~build-mut/tests/test_offline_smi~FAILED.*test_q_processes
html-marks-whole-episodes~src/output/html_chart.c~s/if (!c->t->th) {/if (c->t) {/~tests/timeline/html_render.sh~marked for an episode of another GPU's
html-ticks-not-125~src/output/html_axis.c~s/return 2 \* p;/return 2.5 * p;/~build-mut/tests/test_html_axis~FAILED.*value_ticks
zh-message-untranslated~po/zh_CN.po~0,/^msgstr "[^"]/s/^msgstr ".*"$/msgstr ""/~tests/i18n/catalogue.sh~without a translation
zh-width-one-column~src/core/i18n.c~s/\t\tw += cols_of(decode(p, \&len));/\t\tw += 1 + 0 * cols_of(decode(p, \&len));/~build-mut/tests/test_core~FAILED.*test_utf8_width_fit_cut
watch-odd-gpu-unmarked~src/tui/view.c~s/\*odd = st != GD_EP_NONE \&\& ngpu > 1 \&\& 2 \* nstalled < ngpu;/*odd = false;/~build-mut/tests/test_view~FAILED.*odd_gpu_marked
golden-scenario-drift~tests/scenarios/1001-cpu.saturated/expected.txt~s/busy_pct=[0-9.]*/busy_pct=1/~tests/scenarios/run.sh 1001-cpu.saturated~findings differ from expected.txt
klog-decoy-filter-drops-timeout~src/klog/scan.c~s/^\t{ "timeout", 7, 1, 4 },$//~build-mut/tests/test_klog_scan~the scanner skips a line the parser recognises
klog-parallel-drops-overflow~src/klog/input.c~s/^\tif (w->sc.stop)$/\tif (0 \&\& w->sc.stop)/~build-mut/tests/test_klog_scan~FAILED.*test_parallel_same_as_sequential
ofl-contains-one-case~src/offline/util.c~s/b = lo == up ? NULL :/b = lo != up ? NULL :/~build-mut/tests/test_offline_contains~FAILED.*test_contains_as_strncasecmp
ib-no-pma-malformed~src/collect/sys_infiniband.c~s/strncmp(text, "N\/A", 3) == 0)/strncmp(text, "N\/A", 3) == 99)/~build-mut/tests/test_collect_node_exporter~FAILED.*test_ib_no_pma_is_absent
meminfo-not-estimated~src/collect/proc_meminfo.c~s/\t\tgd_u64_set(\&s->mem.available_estimated, 1);/\t\t(void)0;/~build-mut/tests/test_collect_node_exporter~FAILED.*test_meminfo_without_memavailable
recording-cut-line-fails~src/model/snapshot_json.c~s/\&\& r->count) {/\&\& r->count \&\& 0) {/~tests/timeline/recording.sh~cut.jsonl
recording-not-gzip~src/model/recording.c~s/return !(n >= 6 \&\& strcmp(path + n - 6, ".jsonl") == 0);/return n == 0 \&\& 0;/~tests/timeline/recording.sh~is not gzip
held-replaced-not-reopened~src/collect/proc_pid.c~s/st.st_nlink == 0))/st.st_nlink == 999))/~build-mut/tests/test_collect_proc~FAILED.*test_tiered_held_files
held-other-tree-kept~src/collect/proc_pid.c~s/if (pst.st_dev != c->proc_dev || pst.st_ino != c->proc_ino || pst.st_ino == 0) {/if (pst.st_ino == 0) {/~build-mut/tests/test_collect_proc~FAILED.*test_tiered_held_other_tree
nvml-fixed-answers-asked-again~src/collect/nvml_devices.c~s/\tif (fixed \&\& gd_nvml_cached(r->nv/\tif (0 \&\& fixed \&\& gd_nvml_cached(r->nv/~build-mut/tests/test_nvml_cache~FAILED.*test_fixed_answers_asked_once
golden-offline-drift~tests/offline/0002-h100-r550-sw-thermal/expected.txt~s/temp_c=85/temp_c=84/~tests/offline/run.sh 0002-h100-r550-sw-thermal~findings differ from expected.txt
nccl-samples-not-nccl~src/collect/job_threads.c~s/return GD_SO_NCCL;/return GD_SO_OTHER;/~build-mut/tests/test_job_threads~FAILED.*test_categories
host-bound-inverted~src/rules/rule_job_threads.c~s/return outside >= TH(rc, JOB_HOST_OUTSIDE_PCT);/return outside < TH(rc, JOB_HOST_OUTSIDE_PCT);/~tests/e2e/job_threads.sh~job.host_bound did not fire
remote-rtt-inverted~src/rules/rule_job_net.c~s|loopback(js->peer) \|\| (double)js->rtt_us.v / 1e3 < th|loopback(js->peer) \|\| (double)js->rtt_us.v / 1e3 >= th|~tests/e2e/net_remote_latency.sh~no net.remote_data_latency naming pid
finding-onset-every-cycle~src/serve/finding_counters.c~s/	x->active = true;/	x->active = false;/~tests/exporter/finding_counters.sh~onsets of the hot GPU are not 2
fleet-no-timeout~src/cli/cli_fleet.c~s/p.http_opts.timeout_s = fmin(2 \* o.timeout_s, o.timeout_s + 5);/p.http_opts.timeout_s = 0;/~tests/exporter/fleet_errors.sh~slow: exit 0, want 3
fleet-node-repeats-its-gpu~src/fleet/fleet.c~s/\&\& most >= x->onsets)/\&\& most > x->onsets)/~tests/exporter/fleet.sh~repeat offenders
npd-cut-inside-utf8~src/fleet/npd.c~s/if (in\[n\] \&\& ((unsigned char)in\[n\] \& 0xc0) == 0x80) {/if (0) {/~build-mut/tests/test_fleet_npd~FAILED.*test_cut
fleet-alert-threshold~deploy/prometheus/fleet_alerts.yml~s/expr: gpudoctor:gpu_hw_onsets:7d >= 3/expr: gpudoctor:gpu_hw_onsets:7d >= 4/~tests/exporter/fleet_alerts.sh~FAILED
probe-siblings-inverted~src/rules/rule_probe.c~s/if (r->achieved.v < med \* pct \/ 100) {/if (r->achieved.v > med * pct \/ 100) {/~tests/probe/gpu_faults.sh~probe.gpu_compute_slow did not fire
probe-hung-not-marked~src/cli/cli_probe.c~s/r->status = i == hung_gpu ? GD_PR_HUNG : GD_PR_NOT_RUN;/r->status = GD_PR_NOT_RUN;/~tests/probe/gpu_safety.sh~probe.gpu_hung did not fire
probe-copies-unverified~src/probe/gpu.c~s/r->errors = words_differ(host, back, bytes \/ 4);/r->errors = 0;/~tests/probe/gpu_faults.sh~probe.gpu_memory_errors did not fire for \^gpu5
npd-trusts-squatter~src/cli/cli_npd.c~s/if (uid == 0 || (t->known \&\& uid == t->uid))/if (uid < 0x7fffffffu)/~tests/exporter/slurm.sh~check --npd believed a squatter
unit-allows-vm-writev~deploy/systemd/gpudoctor.service~s/ process_vm_readv process_vm_writev$//~tests/e2e/unit_sandbox.sh~process_vm_writev: DONE
nvml-symbol-misspelled~src/nvml/nvml.c~s/REQ(count, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount")/REQ(count, "nvmlDeviceGetCoutn_v2", "nvmlDeviceGetCount")/~GD_NVIDIA_DIR=$repo/build/nvidia/535 tests/nvidia/symbols.sh~names absent from 535.261.03
cuda-symbol-misspelled~src/probe/cuda.c~s/ROW(stream_query, "cuStreamQuery")/ROW(stream_query, "cuStreamQeury")/~GD_NVIDIA_DIR=$repo/build/nvidia/535 tests/nvidia/symbols.sh~FAIL cuda row cuStreamQeury
nvml-field-id-wrong~src/nvml/nvml_abi.h~s/^#define NVML_FI_DEV_PCIE_REPLAY_COUNTER 94 /#define NVML_FI_DEV_PCIE_REPLAY_COUNTER 95 /~GD_NVIDIA_DIR=$repo/build/nvidia/535 tests/nvidia/abi.sh~FAIL NVML_FI_DEV_PCIE_REPLAY_COUNTER value
nvml-member-moved~src/nvml/nvml_abi.h~s/^\tunsigned int domain, bus, device;$/\tunsigned int bus, domain, device;/~GD_NVIDIA_DIR=$repo/build/nvidia/535 tests/nvidia/abi.sh~FAIL nvmlPciInfo_t.domain offset
cuda-value-wrong~src/probe/cuda_abi.h~s/GD_CU_ERROR_LAUNCH_FAILED = 719/GD_CU_ERROR_LAUNCH_FAILED = 718/~GD_NVIDIA_DIR=$repo/build/nvidia/535 tests/nvidia/abi.sh~FAIL GD_CU_ERROR_LAUNCH_FAILED value
csv-name-misspelled~src/offline/smi_csv.c~s/"ecc.errors.uncorrected.volatile.total"/"ecc.errors.uncorrected.volatile.totl"/~GD_NVIDIA_DIR=$repo/build/nvidia/535 tests/nvidia/smi.sh~absent ecc.errors.uncorrected.volatile.totl
smi-failure-alone-ignored~src/rules/rule_driver.c~s/if (!gpci_seen(b) \&\& strcmp(b->nvml.init_error, "DRIVER_NOT_LOADED") == 0) {/if (0) {/~GD_NVIDIA_DIR=$repo/build/nvidia/535 tests/nvidia/smi.sh~check --from the captured message
EOF
)

# A PATH without chromium (for skip-under-ci): every other command stays.
NOCHROMIUM=$work/nochromium
mkdir -p "$NOCHROMIUM"
IFS=: read -r -a pdirs <<<"$PATH"
for d in "${pdirs[@]}"; do
	for f in "$d"/*; do
		b=$(basename "$f")
		case $b in chromium | chromium-browser | google-chrome*) continue ;; esac
		[ -x "$f" ] && [ ! -e "$NOCHROMIUM/$b" ] && ln -s "$f" "$NOCHROMIUM/$b"
	done
done 2>/dev/null
export NOCHROMIUM

want=("$@")
pass=0 fail=0 rows=()
FAKES="$BUILD/fake_nvml/libnvidia-ml.so.1 $BUILD/fake_nvml_old/libnvidia-ml.so.1 $BUILD/fake_cuda/libcuda.so.1"
shard=${MUTATE_SHARD:-0/1}
shard_k=${shard%/*} shard_n=${shard#*/} nth=-1
case "$shard_k/$shard_n" in
[0-9]*/[1-9]*) [ "$shard_k" -lt "$shard_n" ] || { echo "MUTATE_SHARD=$shard: K must be below N"; exit 2; } ;;
*) echo "MUTATE_SHARD=$shard: expected K/N, e.g. 0/2"; exit 2 ;;
esac
while IFS='~' read -r id file expr cmd expect; do
	[ -n "$id" ] || continue
	if [ ${#want[@]} -gt 0 ] && [[ " ${want[*]} " != *" $id "* ]]; then
		continue
	fi
	nth=$((nth + 1))
	[ $((nth % shard_n)) -eq "$shard_k" ] || continue
	echo "== $id"
	if [ "$file" != - ]; then
		cp -p "$file" "$work/orig" || { echo "FAIL  $id: no file $file"; fail=$((fail + 1)); rows+=("$id|no file"); continue; }
		sed -i -e "$expr" "$file"
		if cmp -s "$file" "$work/orig"; then
			echo "FAIL  $id: the sed no longer matches $file: update the table"
			fail=$((fail + 1))
			rows+=("$id|stale mutation")
			continue
		fi
		# a build without the unit tests: what is left of an earlier build must go too
		[ "$file" = Makefile ] && rm -rf "$BUILD/tests"
	fi
	# Build what the command runs (the mutant, or the tree as restored after
	# the last mutation): one unit test for a command that is one, the unit
	# tests for the runs of the unit suite (and of tests/probe, whose scripts
	# run a driver built with them).
	targets="all $FAKES"
	if [[ $cmd == "$BUILD/tests/"* ]]; then
		# one unit test binary: only it (relinking all of them was most of the run)
		targets="all $FAKES ${cmd%% *}"
	elif [[ $cmd == *GD_SUITES=unit* || $cmd == *"$BUILD/tests/"* || $cmd == *tests/probe/* || $cmd == *tests/nvidia/* ]]; then
		targets="all unit"
	fi
	# shellcheck disable=SC2086
	make -s -j"$(nproc)" BUILD=$BUILD $targets >"$work/mbuild.log" 2>&1 ||
		echo "      (the build fails: $(grep -m 3 -E 'error|Error' "$work/mbuild.log" | tr '\n' ' '))"
	if [ "$file" = - ]; then
		# a change to the build or the environment, not to a source file
		eval "$expr" || { echo "FAIL  $id: cannot apply: $expr"; fail=$((fail + 1)); rows+=("$id|not applied"); continue; }
	fi
	out=$(eval "timeout --kill-after=10 900 env $cmd" 2>&1)
	rc=$?
	if [ $rc -eq 126 ] || [ $rc -eq 127 ]; then
		# the command did not run at all: that proves nothing about the mutant
		fail=$((fail + 1))
		rows+=("$id|command did not run (exit $rc)")
		echo "FAIL  $id: the command did not run (exit $rc): $cmd"
		printf '%s\n' "$out" | tail -n 3 | sed 's/^/      /'
	elif [ $rc -ne 0 ] && ! grep -qE -e "$expect" <<<"$out"; then
		fail=$((fail + 1))
		rows+=("$id|failed, but not for this reason (exit $rc)")
		echo "FAIL  $id: $cmd fails (exit $rc), but its output does not say /$expect/:"
		printf '%s\n' "$out" | tail -n 8 | sed 's/^/      /'
	elif [ $rc -ne 0 ]; then
		pass=$((pass + 1))
		rows+=("$id|caught (exit $rc)")
		echo "PASS  $id: caught: $cmd exits $rc"
		printf '%s\n' "$out" | grep -E 'FAIL|differ|refused|unknown|skipped under|expected' | head -n 4 | sed 's/^/      /'
	else
		fail=$((fail + 1))
		rows+=("$id|NOT caught")
		echo "FAIL  $id: not caught: $cmd still passes"
		printf '%s\n' "$out" | tail -n 5 | sed 's/^/      /'
	fi
	# the mutated file, and anything the command rewrote (alerts.yml from
	# gen_alerts.py), back to the pristine copy
	diff -rq --exclude="$BUILD" "$work/pristine" "$src" 2>/dev/null | while read -r line; do
		case $line in
		"Files "*" differ")
			f=${line#Files "$work/pristine/"}
			f=${f%% and *}
			cp -p "$work/pristine/$f" "$src/$f" && touch "$src/$f" ;;
		"Only in $src"*)
			d=${line#Only in }
			rm -rf "${d%%: *}/${d#*: }" ;;
		"Only in $work/pristine"*)
			d=${line#Only in "$work/pristine"}
			d=${d#/}
			cp -a "$work/pristine/${d%%: *}/${d#*: }" "$src/${d%%: *}/" ;;
		esac
	done
done <<<"$MUTATIONS"

echo
echo "mutation | result"
for r in "${rows[@]}"; do echo "${r%%|*} | ${r#*|}"; done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
