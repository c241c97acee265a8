#!/usr/bin/env bash
# scripts/gpu-validate.sh - gpudoctor against a real NVIDIA GPU (written for the
# lent H200 of the device machine; any NVIDIA GPU with the driver loaded works).
#
#   BUILD=build scripts/gpu-validate.sh        (or GPUDOCTOR=path/to/gpudoctor)
#
# One short run within 8 minutes on one H100 or H200 (GPU_VALIDATE_BUDGET_S,
# default 470 s: a step that would start past it is not run and counts as a
# failure, the probe's deadline is cut to what is left), printing PASS/FAIL/
# SKIP lines and, at the end, a summary: one line per step with its passes,
# failures and skips and its figure.  Exit status 0 when nothing failed.
# Everything it writes (snapshots, check JSON, nvidia-smi's view, the
# programs it builds, the summary as summary.txt) goes under $OUT when it is
# set, else a temporary directory.
#
# Dry run without a GPU, against the fake NVML and libcuda.so.1 of the tests
# (most GPU checks then fail: the figures are the fakes'; it shows the run
# and its time):
#
#   make all unit; sed 's/^procs = .*/procs =/' tests/scenarios/0001-healthy-8gpu/nvml.ini >/tmp/idle8.ini
#   OUT=/tmp/gv GPUDOCTOR_NVML=$PWD/build/fake_nvml/libnvidia-ml.so.1 GPUDOCTOR_FAKE_NVML=/tmp/idle8.ini \
#     GPUDOCTOR_CUDA=$PWD/build/fake_cuda/libcuda.so.1 \
#     GPUDOCTOR_FAKE_CUDA=$PWD/tests/fake_cuda/scenarios/node8.ini scripts/gpu-validate.sh
#
#   0. (when the CUDA toolkit is installed) the probes' PTX through its ptxas
#      for every architecture it accepts: registers and spills, the figure
#      to compare with bench/ptx/figures.txt;
#   1. a snapshot through the real driver: nvml.status ok, nvml.missing empty,
#      every GPU field gpudoctor reads that an H200 supports present and
#      plausible (name, 10-100 C, power > 0, clocks <= max, PCIe Gen >= 4
#      max, memory used <= total), and the same values as
#      `nvidia-smi --query-gpu` where both report them;
#   2. the evidence without NVML: the PCI bus lists as many NVIDIA GPUs as
#      NVML, /proc/driver/nvidia/version matches NVML's driver version;
#   3. with PyTorch: a CUDA load moves utilisation, SM clock and power; a
#      training loop fed by a CPU-heavy single-process loader makes
#      gpu.idle_while_job_runs and cpu.input_bound fire, a well-fed one
#      does not (SKIP without torch);
#   4. `gpudoctor check` exits 0..2 and its JSON parses;
#   5. `gpudoctor serve` on loopback: /metrics (plain and gzip) carries one
#      gpudoctor_gpus_temp_celsius series per GPU with its uuid and
#      pci_bus_id labels, gpudoctor_up 1, promtool accepts it (when
#      installed); the exporter's resident memory with the real driver
#      loaded is reported;
#   6. where a job's threads spend their time (job_threads[], the perf
#      sampler): a busy loop through the CUDA driver API (cuCtxSynchronize
#      in a loop, built here against the real libcuda.so.1 with dlopen) is
#      attributed to cuda for >= 50% of its main thread's samples, and
#      with PyTorch the starved load's main thread mostly to python and
#      framework (job.host_bound or cpu.input_bound fires); the driver's
#      sub-second utilisation samples (gpu_samples[]) are present; the
#      attribution is printed.
#   6b. sub-second activity (gpu_activity[], gpu.transfer_serialized): a
#      copy loop through the driver API (1 GiB host-to-device copies from
#      pageable memory with pauses, built here) and, with PyTorch, a loop
#      that copies a 2 GiB batch and then computes it: the intervals of GPU 0 over
#      a 3 s window are printed (source gpm on Hopper and newer, else
#      pcie_throughput; SM or util %, RX and TX MB/s), >= 10 of them, the
#      copies seen (RX >= 1000 MB/s in some); with PyTorch the serialised
#      loop's verdict is printed, and an overlapped one (pinned memory,
#      non_blocking copies on a side stream) must not fire it.
#   7. `gpudoctor probe --quick` through the real libcuda.so.1 (about a
#      minute on one GPU; killed at 3 minutes): the PTX modules JIT-compile,
#      every probe reports ok, and achieved against expected is printed per
#      probe, with the compute burns' share of the SKU's datasheet FP32 and
#      BF16 figures (the number the SKU check for compute waits for).
#   8. (when the CUDA toolkit is installed) the probe loading the toolkit's
#      stub libcuda.so: driver.cuda_stub names it.
#
# Status: written in a session that was lent no GPU, so it has not been run
# on real hardware yet; run it where a GPU is lent and report what it prints.
set -u

here=$(cd "$(dirname "$0")/.." && pwd)
G=${GPUDOCTOR:-$here/${BUILD:-build}/gpudoctor}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/gpu-validate.XXXXXX")}
mkdir -p "$OUT"
PY=$(command -v python3 || command -v python || true)
pass=0 fail=0 skip=0
BUDGET_S=${GPU_VALIDATE_BUDGET_S:-470}
t0=$SECONDS
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

ok() { echo "PASS $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
skp() { echo "SKIP $*"; skip=$((skip + 1)); }

# The summary: step NAME opens a step (the counts from here on are its),
# fig TEXT sets its figure.
steps=() sp=() sf=() ss=() sfig=() st=()
step() {
	steps+=("$1") sp+=("$pass") sf+=("$fail") ss+=("$skip") sfig+=("") st+=("$SECONDS")
	echo "---- $1 ($(left) s of the budget left)"
}
fig() { sfig[${#sfig[@]} - 1]="$*"; }
left() { echo $((BUDGET_S - (SECONDS - t0))); }
# need N WHAT: true when N seconds of the budget remain, else a failure
need() {
	[ "$(left)" -ge "$1" ] && return 0
	bad "$2: not run: $(left) s of the ${BUDGET_S} s budget left, it needs $1"
	return 1
}
finish() {
	local n=${#steps[@]} i np nf ns dt
	{
		echo
		echo "summary ($((SECONDS - t0)) s of ${BUDGET_S} s; outputs in $OUT):"
		for ((i = 0; i < n; i++)); do
			if ((i + 1 < n)); then
				np=$((sp[i + 1] - sp[i])) nf=$((sf[i + 1] - sf[i])) ns=$((ss[i + 1] - ss[i])) dt=$((st[i + 1] - st[i]))
			else
				np=$((pass - sp[i])) nf=$((fail - sf[i])) ns=$((skip - ss[i])) dt=$((SECONDS - st[i]))
			fi
			printf '  %-32s %-4s %4ds %3d pass %2d fail %2d skip  %s\n' "${steps[i]}" \
				"$( ((nf)) && echo FAIL || { ((np)) && echo PASS || echo SKIP; })" "$dt" "$np" "$nf" "$ns" "${sfig[i]}"
		done
		echo "$pass passed, $fail failed, $skip skipped in $((SECONDS - t0)) s (outputs in $OUT)"
	} | tee "$OUT/summary.txt"
	[ "$fail" -eq 0 ]
	exit $?
}

[ -x "$G" ] || { bad "setup: $G is not an executable (make all)"; finish; }
[ -n "$PY" ] || { bad "setup: python3 is needed to read the JSON"; finish; }

# ---- 0. the probes' PTX through the toolkit's ptxas -------------------------
step "0 ptxas, every architecture"
if [ -x "$CUDA_HOME/bin/ptxas" ] && [ -r "$here/${BUILD:-build}/gen/base.ptx" ]; then
	if PTXAS=$CUDA_HOME/bin/ptxas "$here/scripts/ptxas-check.sh" "$here/${BUILD:-build}/gen/base.ptx" \
		"$here/${BUILD:-build}/gen/tensor.ptx" >"$OUT/ptxas.txt" 2>"$OUT/ptxas.err"; then
		ok "ptxas accepts the probe kernels for $(sed -n 's/^# architectures: //p' "$OUT/ptxas.txt")"
	else
		bad "ptxas rejects a probe kernel: $(head -c 300 "$OUT/ptxas.err")"
	fi
	fig "$(grep -vc '^#' "$OUT/ptxas.txt") kernel x arch, max $(awk '!/^#/ && $4 > m { m = $4 } END { print m + 0 }' "$OUT/ptxas.txt") registers, $(awk '!/^#/ { s += $6 + $7 } END { print s + 0 }' "$OUT/ptxas.txt") B spilled"
else
	skp "no $CUDA_HOME/bin/ptxas or no $here/${BUILD:-build}/gen/*.ptx (make all)"
fi

# ---- 1. one snapshot through the real driver -----------------------------
step "1-2 snapshot, fields, PCI, smi"
if ! timeout 60 "$G" snapshot >"$OUT/snap.jsonl" 2>"$OUT/snap.err"; then
	bad "snapshot: exit $? ($(head -c 300 "$OUT/snap.err"))"
	finish
fi
ok "snapshot taken ($(wc -c <"$OUT/snap.jsonl") bytes)"
fig "$(wc -c <"$OUT/snap.jsonl") bytes; $("$PY" -c 'import json,sys; s=json.loads(open(sys.argv[1]).readline()); n=s.get("nvml",{}); print("%s GPU(s), driver %s" % (n.get("device_count"), n.get("driver_version")))' "$OUT/snap.jsonl" 2>/dev/null)"
if command -v nvidia-smi >/dev/null 2>&1; then
	timeout 30 nvidia-smi --query-gpu=pci.bus_id,name,temperature.gpu,power.draw,clocks.max.sm,pcie.link.gen.max,pcie.link.width.max,memory.total,driver_version \
		--format=csv,noheader,nounits >"$OUT/smi.csv" 2>"$OUT/smi.err" || : >"$OUT/smi.csv"
else
	: >"$OUT/smi.csv"
fi

# Checks the snapshot in Python; prints PASS/FAIL/SKIP lines like the shell.
"$PY" - "$OUT/snap.jsonl" "$OUT/smi.csv" >"$OUT/fields.txt" 2>&1 <<'PYEOF'
import json, sys
snap = json.loads(open(sys.argv[1]).readline())
def res(kind, msg): print("%s %s" % (kind, msg))
nv = snap.get("nvml", {})
if nv.get("status") != "ok":
    res("FAIL", "nvml.status is %r (%s)" % (nv.get("status"), nv.get("reason")))
    sys.exit(0)
res("PASS", "nvml.status ok: driver %s, CUDA %s, %s GPU(s)" % (nv.get("driver_version"), nv.get("cuda_driver_version"), nv.get("device_count")))
res("PASS" if not nv.get("missing") else "FAIL", "nvml.missing is %r" % (nv.get("missing") or "empty"))
gpus = snap.get("gpus") or []
if not gpus:
    res("FAIL", "no gpus[] in the snapshot"); sys.exit(0)
# fields every H100/H200 (Hopper SXM) answers; fan_pct is absent on passive boards
need = ["name", "uuid", "serial", "pci_bus_id", "minor_number", "persistence_mode", "compute_mode", "mig_mode",
        "temp_c", "temp_slowdown_c", "temp_shutdown_c", "util_gpu_pct", "util_mem_pct", "mem_used_bytes",
        "mem_total_bytes", "power_w", "power_limit_w", "power_default_limit_w", "energy_mj", "sm_clock_mhz",
        "sm_clock_max_mhz", "mem_clock_mhz", "mem_clock_max_mhz", "pstate", "clock_event_reasons",
        "violation_power_ns", "violation_thermal_ns", "pcie_gen", "pcie_gen_max", "pcie_width", "pcie_width_max",
        "pcie_tx_kbps", "pcie_rx_kbps", "pcie_replays", "ecc_mode", "ecc_corrected_volatile",
        "ecc_uncorrected_volatile", "remap_corrected", "remap_uncorrected", "remap_pending", "remap_failure",
        "nvlink_links"]
smi = {}
for line in open(sys.argv[2]):
    f = [x.strip() for x in line.split(",")]
    if len(f) >= 9:
        smi[f[0].lower()[-12:]] = f
for g in gpus:
    tag = "gpu%s (%s)" % (g.get("index"), g.get("pci_bus_id"))
    miss = [k for k in need if g.get(k) in (None, "")]
    res("PASS" if not miss else "FAIL", "%s: fields present%s" % (tag, "" if not miss else " except " + ",".join(miss)))
    checks = [
        ("name is NVIDIA", str(g.get("name", "")).startswith("NVIDIA")),
        ("temperature 10-100 C (%s)" % g.get("temp_c"), g.get("temp_c") is not None and 10 <= g["temp_c"] <= 100),
        ("slowdown > temperature", (g.get("temp_slowdown_c") or 0) > (g.get("temp_c") or 999)),
        ("power > 0 W (%s)" % g.get("power_w"), (g.get("power_w") or 0) > 0),
        ("power <= limit + 5%", (g.get("power_w") or 0) <= 1.05 * (g.get("power_limit_w") or 0)),
        ("SM clock <= max (%s/%s)" % (g.get("sm_clock_mhz"), g.get("sm_clock_max_mhz")),
         0 < (g.get("sm_clock_mhz") or 0) <= (g.get("sm_clock_max_mhz") or 0)),
        ("memory clock <= max", 0 < (g.get("mem_clock_mhz") or 0) <= (g.get("mem_clock_max_mhz") or 0)),
        ("PCIe Gen max >= 4 (%s)" % g.get("pcie_gen_max"), (g.get("pcie_gen_max") or 0) >= 4),
        ("PCIe Gen <= max", 1 <= (g.get("pcie_gen") or 0) <= (g.get("pcie_gen_max") or 0)),
        ("PCIe width max >= 8", (g.get("pcie_width_max") or 0) >= 8),
        ("memory used <= total", 0 <= (g.get("mem_used_bytes") or 0) <= (g.get("mem_total_bytes") or 0)),
        ("utilisation 0-100", 0 <= (g.get("util_gpu_pct") if g.get("util_gpu_pct") is not None else -1) <= 100),
        ("not lost", not g.get("lost")),
    ]
    for what, good in checks:
        res("PASS" if good else "FAIL", "%s: %s" % (tag, what))
    s = smi.get(str(g.get("pci_bus_id", "")).lower()[-12:])
    if not s:
        res("SKIP", "%s: no nvidia-smi row to compare" % tag)
        continue
    try:
        cmp = [("name", s[1] == g.get("name")),
               ("temperature within 3 C", abs(float(s[2]) - g["temp_c"]) <= 3),
               ("max SM clock", int(float(s[4])) == g["sm_clock_max_mhz"]),
               ("PCIe Gen max", int(s[5]) == g["pcie_gen_max"]),
               ("PCIe width max", int(s[6]) == g["pcie_width_max"]),
               ("memory total within 1%", abs(float(s[7]) * 1048576 - g["mem_total_bytes"]) <= 0.01 * g["mem_total_bytes"]),
               ("driver version", s[8] == nv.get("driver_version"))]
    except (ValueError, KeyError, TypeError) as e:
        res("FAIL", "%s: nvidia-smi comparison failed: %s" % (tag, e)); continue
    for what, good in cmp:
        res("PASS" if good else "FAIL", "%s: same %s as nvidia-smi" % (tag, what))
# ---- 2. the evidence without NVML (in the same Python: step 1's)
pci = [p for p in snap.get("pci_gpus") or [] if p.get("driver") not in ("vfio-pci", "pci-stub")]
res("PASS" if len(pci) == len(gpus) else "FAIL", "PCI bus lists %d NVIDIA GPU(s), NVML %d" % (len(pci), len(gpus)))
for p in pci:
    res("PASS" if (p.get("link_gen_max") or 0) >= 4 and p.get("driver") == "nvidia" else "FAIL",
        "pci %s: driver %s, max Gen%s x%s, path %s" % (p.get("pci_bus_id"), p.get("driver"), p.get("link_gen_max"),
                                                   p.get("link_width_max"), p.get("pci_path")))
drv = snap.get("driver") or {}
res("PASS" if drv.get("loaded") == 1 and drv.get("version") == nv.get("driver_version") else "FAIL",
    "/proc/driver/nvidia/version: %s module %s (NVML %s)" % (drv.get("flavor"), drv.get("version"), nv.get("driver_version")))
PYEOF
cat "$OUT/fields.txt"
pass=$((pass + $(grep -c '^PASS' "$OUT/fields.txt"))) fail=$((fail + $(grep -c '^FAIL' "$OUT/fields.txt")))
skip=$((skip + $(grep -c '^SKIP' "$OUT/fields.txt")))

# ---- 3. loads (PyTorch) ---------------------------------------------------
step "3 loads (PyTorch)"
# $1: fed or starved; runs ~40 s of training-like steps on GPU 0.
load() {
	"$PY" - "$1" <<'PYEOF'
import sys, time, torch, torch.utils.data as tud
mode = sys.argv[1]
class Slow(tud.Dataset):            # a CPU-heavy loader: pure-Python work per sample
    def __len__(self): return 10**6
    def __getitem__(self, i):
        x = 0
        for k in range(60000 if mode == "starved" else 0):
            x += k * k % 7
        return torch.randn(3, 64, 64)
dev = torch.device("cuda:0")
net = torch.nn.Sequential(torch.nn.Conv2d(3, 64, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                          torch.nn.Linear(64 * 62 * 62, 10)).to(dev)
opt = torch.optim.SGD(net.parameters(), lr=0.01)
if mode == "starved":                 # single-process loader: the main thread decodes
    it = iter(tud.DataLoader(Slow(), batch_size=64, num_workers=0))
    nxt = lambda: next(it)
else:                                 # fed: batches already on the GPU, big matmuls
    a = torch.randn(8192, 8192, device=dev)
end = time.time() + 40
while time.time() < end:
    if mode == "starved":
        x = nxt().to(dev)
        loss = net(x).sum()
        opt.zero_grad(); loss.backward(); opt.step()
    else:
        for _ in range(20):
            a = (a @ a).clamp_(-1, 1)
        torch.cuda.synchronize()
PYEOF
}

check_json() { # $1 name; checks exit 0..2 and parsable JSON; prints the ids
	"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(sorted({f["id"] for f in d["findings"]})))' "$OUT/$1.json" 2>/dev/null
}

if ! "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
	skp "CUDA loads: no PyTorch with CUDA here"
else
	for mode in fed starved; do
		need 60 "the $mode load" || continue
		load "$mode" >"$OUT/load-$mode.log" 2>&1 &
		lp=$!
		sleep 15   # CUDA start-up and the first steps
		timeout 60 "$G" snapshot --window 5s >"$OUT/load-$mode.jsonl" 2>"$OUT/load-$mode.err"
		timeout 30 "$G" check --from "$OUT/load-$mode.jsonl" --json >"$OUT/check-$mode.json" 2>>"$OUT/load-$mode.err"
		rc=$?
		kill "$lp" 2>/dev/null
		wait "$lp" 2>/dev/null
		ids=$(check_json "check-$mode")
		if [ "$rc" -gt 2 ] || ! "$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$OUT/check-$mode.json" 2>/dev/null; then
			bad "check over the $mode load: exit $rc or JSON does not parse"
			continue
		fi
		echo "     $mode load findings: ${ids:-none}"
		"$PY" - "$OUT/load-$mode.jsonl" "$mode" <<'PYEOF' | tee -a "$OUT/loads.txt"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
mode = sys.argv[2]
g0 = [s["gpus"][0] for s in lines if s.get("gpus")]
if not g0:
    print("FAIL %s load: no GPU in the snapshots" % mode); sys.exit(0)
g = g0[-1]
if mode == "fed":
    print(("PASS" if (g.get("util_gpu_pct") or 0) >= 80 else "FAIL") + " fed load moves utilisation (%s%%)" % g.get("util_gpu_pct"))
    print(("PASS" if (g.get("power_w") or 0) >= 150 else "FAIL") + " fed load moves power (%s W)" % g.get("power_w"))
    print(("PASS" if (g.get("sm_clock_mhz") or 0) >= 0.5 * (g.get("sm_clock_max_mhz") or 1) else "FAIL")
          + " fed load raises the SM clock (%s of %s MHz)" % (g.get("sm_clock_mhz"), g.get("sm_clock_max_mhz")))
    print(("PASS" if (g.get("pcie_gen") or 0) >= 4 else "FAIL") + " busy GPU links at Gen%s" % g.get("pcie_gen"))
    procs = [p for p in lines[-1].get("procs", []) if p.get("cuda_runtime")]
    print(("PASS" if procs else "SKIP") + " the load's CUDA runtime is seen: %s" % ([p["cuda_runtime"] for p in procs][:1] or "statically linked"))
PYEOF
		case $mode in
		fed)
			case " $ids " in
			*" gpu.idle_while_job_runs "* | *" cpu.input_bound "*) bad "well-fed load flagged as idle/input-bound ($ids)" ;;
			*) ok "well-fed load: no gpu.idle_while_job_runs, no cpu.input_bound" ;;
			esac ;;
		starved)
			case " $ids " in *" gpu.idle_while_job_runs "*) ok "starved load: gpu.idle_while_job_runs fired" ;;
			*) bad "starved load: gpu.idle_while_job_runs did not fire ($ids)" ;; esac
			case " $ids " in *" cpu.input_bound "*) ok "starved load: cpu.input_bound fired" ;;
			*) bad "starved load: cpu.input_bound did not fire ($ids)" ;; esac ;;
		esac
	done
	[ -f "$OUT/loads.txt" ] && {
		pass=$((pass + $(grep -c '^PASS' "$OUT/loads.txt")))
		fail=$((fail + $(grep -c '^FAIL' "$OUT/loads.txt")))
		skip=$((skip + $(grep -c '^SKIP' "$OUT/loads.txt")))
	}
fi

# ---- 4. check on the live host -----------------------------------------------
step "4 check --json"
timeout 60 "$G" check --json >"$OUT/check.json" 2>"$OUT/check.err"
rc=$?
if [ "$rc" -le 2 ] && "$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$OUT/check.json" 2>/dev/null; then
	ok "gpudoctor check: exit $rc, JSON parses; findings: $(check_json check)"
	fig "exit $rc, findings: $(check_json check | head -c 120)"
else
	bad "gpudoctor check: exit $rc or JSON does not parse ($(head -c 300 "$OUT/check.err"))"
fi

# ---- 5. the exporter with the real driver ----------------------------------------
step "5 serve /metrics"
if command -v curl >/dev/null; then
	"$G" serve --listen 127.0.0.1:0 --interval 1s 2>"$OUT/serve.log" &
	spid=$!
	addr=""
	for _ in $(seq 50); do
		addr=$(grep -o '127\.0\.0\.1:[0-9]*' "$OUT/serve.log" | head -n 1) && [ -n "$addr" ] && break
		sleep 0.1
	done
	sleep 3
	if [ -n "$addr" ] && curl -sf -m 5 "http://$addr/metrics" >"$OUT/metrics.prom"; then
		ngpu=$(grep -c '^gpudoctor_gpus_temp_celsius{' "$OUT/metrics.prom")
		nuuid=$(grep '^gpudoctor_gpus_temp_celsius{' "$OUT/metrics.prom" | grep -c 'uuid="GPU-.*pci_bus_id="')
		grep -q '^gpudoctor_up 1$' "$OUT/metrics.prom" && ok "serve: gpudoctor_up 1" || bad "serve: gpudoctor_up is not 1"
		[ "$ngpu" -ge 1 ] && [ "$ngpu" = "$nuuid" ] && ok "serve: $ngpu GPU temperature series, each with uuid and pci_bus_id" ||
			bad "serve: $ngpu GPU temperature series, $nuuid with uuid and pci_bus_id"
		if curl -sf -m 5 -H 'Accept-Encoding: gzip' "http://$addr/metrics" | gzip -dc >"$OUT/metrics.gz.prom" 2>/dev/null &&
		   grep -q '^gpudoctor_gpus_temp_celsius{' "$OUT/metrics.gz.prom"; then
			ok "serve: gzip /metrics decodes ($(wc -c <"$OUT/metrics.prom") bytes plain)"
		else
			bad "serve: gzip /metrics does not decode"
		fi
		if command -v promtool >/dev/null; then
			promtool check metrics <"$OUT/metrics.prom" >"$OUT/promtool.txt" 2>&1 && ok "serve: promtool check metrics" ||
				bad "serve: promtool check metrics: $(head -c 300 "$OUT/promtool.txt")"
		else
			skp "serve: promtool not installed"
		fi
		ok "serve: resident memory with the driver loaded: $(awk '/^VmRSS/ {print $2, $3}' "/proc/$spid/status")"
		fig "$ngpu GPU series, RSS $(awk '/^VmRSS/ {print $2, $3}' "/proc/$spid/status")"
	else
		bad "serve did not answer: $(head -c 300 "$OUT/serve.log")"
	fi
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
else
	skp "serve: curl not installed"
fi

# ---- 6. where the job's threads spend their time ---------------------------------
step "6 thread attribution"
# main_shares FILE PID: the main thread's sample shares over a snapshot --window pair
main_shares() {
	"$PY" - "$1" "$2" <<'PYEOF2'
import json, sys
snaps = [json.loads(l) for l in open(sys.argv[1])]
pid = int(sys.argv[2])
cats = ["cuda", "nccl", "python", "framework", "kernel", "other"]
t = [next((t for t in s.get("job_threads", []) if t["pid"] == pid and t["tid"] == pid), None) for s in snaps[:2]]
if not t[0] or not t[1] or not t[1].get("sampled"):
    print("none"); sys.exit(0)
d = {c: (t[1].get("samples_" + c) or 0) - (t[0].get("samples_" + c) or 0) for c in cats}
n = sum(d.values())
print("samples=%d " % n + " ".join("%s=%.0f%%" % (c, 100.0 * d[c] / n) for c in cats if n and d[c]))
print("gpu_samples=%d" % len(snaps[-1].get("gpu_samples", [])))
PYEOF2
}
cat >"$OUT/cuda_spin.c" <<'CEOF'
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
typedef int (*fn0)(unsigned), (*fn_dev)(int *, int), (*fn_ctx)(void **, unsigned, int), (*fn_sync)(void);
int main(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	fn0 init; fn_dev dev; fn_ctx ctx; fn_sync sync;
	int d; void *c; time_t end = time(NULL) + 20;
	if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
	*(void **)&init = dlsym(h, "cuInit"); *(void **)&dev = dlsym(h, "cuDeviceGet");
	*(void **)&ctx = dlsym(h, "cuCtxCreate_v2"); *(void **)&sync = dlsym(h, "cuCtxSynchronize");
	if (!init || !dev || !ctx || !sync || init(0) || dev(&d, 0) || ctx(&c, 0, d)) { fprintf(stderr, "CUDA init failed\n"); return 1; }
	while (time(NULL) < end)
		sync();
	return 0;
}
CEOF
# snap_under NAME: builds $OUT/NAME.c, runs it, takes a 3 s snapshot pair of
# the host under it into $OUT/NAME.jsonl and stops it; its pid in loadpid.
# Fails when it cannot be built (the compiler's words in $OUT/NAME.err).
snap_under() {
	command -v cc >/dev/null && cc -O1 -o "$OUT/$1" "$OUT/$1.c" -ldl 2>"$OUT/$1.err" || return 1
	"$OUT/$1" 2>>"$OUT/$1.err" &
	loadpid=$!
	sleep 5
	timeout 60 "$G" snapshot --window 3s >"$OUT/$1.jsonl" 2>>"$OUT/$1.err"
	kill "$loadpid" 2>/dev/null
	wait "$loadpid" 2>/dev/null
	return 0
}
if need 30 "driver-API loop" && snap_under cuda_spin; then
	shares=$(main_shares "$OUT/cuda_spin.jsonl" "$loadpid")
	fig "driver-API loop: $(head -n 1 <<<"$shares")"
	echo "     CUDA driver busy loop, main thread: $shares"
	cuda=$(sed -n 's/.*cuda=\([0-9]*\)%.*/\1/p' <<<"$shares" | head -n 1)
	[ "${cuda:-0}" -ge 50 ] && ok "driver-API loop attributed to cuda (${cuda}%)" ||
		bad "driver-API loop: ${cuda:-0}% of its samples in cuda ($shares; $(head -c 200 "$OUT/cuda_spin.err"))"
	grep -q 'gpu_samples=[1-9]' <<<"$shares" && ok "the driver's sub-second utilisation samples are read" ||
		skp "no gpu_samples from this driver ($shares)"
else
	skp "driver-API loop: cannot build ($(head -c 200 "$OUT/cuda_spin.err"))"
fi
if "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null && need 40 "thread attribution under PyTorch"; then
	load starved >"$OUT/load-threads.log" 2>&1 &
	lp=$!
	sleep 15
	timeout 60 "$G" snapshot --window 3s >"$OUT/threads-torch.jsonl" 2>>"$OUT/load-threads.log"
	timeout 60 "$G" check --window 3s --json >"$OUT/check-threads.json" 2>>"$OUT/load-threads.log"
	tp=$(pgrep -P "$lp" | head -n 1)   # the python under the function's subshell
	shares=$(main_shares "$OUT/threads-torch.jsonl" "${tp:-$lp}")
	kill "$lp" 2>/dev/null
	wait "$lp" 2>/dev/null
	echo "     starved PyTorch load, main thread: $shares"
	ids=$(check_json check-threads)
	case " $ids " in *" job.host_bound "* | *" cpu.input_bound "*) ok "starved load: job.host_bound or cpu.input_bound ($ids)" ;;
	*) bad "starved load: neither job.host_bound nor cpu.input_bound ($ids)" ;; esac
else
	skp "thread attribution under PyTorch: no PyTorch with CUDA here"
fi

# ---- 6b. sub-second activity: copies and compute ------------------------------
step "6b sub-second activity"
# activity FILE: GPU 0's intervals of the last snapshot of FILE, one line each
activity() {
	"$PY" - "$1" <<'PYEOF3'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])][-1]
rows = [r for r in s.get("gpu_activity", []) if r.get("gpu") == 0]
src = sorted({r["source"] for r in rows})
print("intervals=%d sources=%s max_rx_mb_s=%.0f" % (len(rows), ",".join(src) or "none",
      max([(r.get("pcie_rx_bytes_s") or 0) / 1e6 for r in rows] or [0])))
t0 = rows[0]["t_us"] if rows else 0
for r in rows[:30]:
    busy = r.get("sm_active_pct") if r["source"] == "gpm" else r.get("util_pct")
    gpm = "  occ %s tensor %s dram %s nvlink %s MB/s" % tuple(
        "-" if r.get(k) is None else "%.0f" % (r[k] / (1e6 if k.startswith("nvlink") else 1))
        for k in ("sm_occupancy_pct", "tensor_active_pct", "dram_bw_pct", "nvlink_rx_bytes_s")) \
        if r["source"] == "gpm" else ""
    print("       +%5d ms %-15s %4s ms  busy %5s%%  rx %8.0f MB/s  tx %8.0f MB/s%s" % (
        (r["t_us"] - t0) / 1000, r["source"], (r.get("interval_us") or 0) // 1000,
        "-" if busy is None else "%.0f" % busy, (r.get("pcie_rx_bytes_s") or 0) / 1e6,
        (r.get("pcie_tx_bytes_s") or 0) / 1e6, gpm))
src_row = next((x for x in s.get("sources", []) if x["name"] == "gpu_activity"), {})
print("       gpu_activity source: %s %s" % (src_row.get("status"), src_row.get("reason") or ""))
PYEOF3
}
cat >"$OUT/cuda_copy.c" <<'CEOF'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
typedef int (*fn0)(unsigned), (*fn_dev)(int *, int), (*fn_ctx)(void **, unsigned, int),
	(*fn_alloc)(unsigned long long *, size_t), (*fn_htod)(unsigned long long, const void *, size_t), (*fn_sync)(void);
int main(void)
{
	const size_t n = 1ul << 30;
	void *h = dlopen("libcuda.so.1", RTLD_NOW), *c;
	fn0 init; fn_dev dev; fn_ctx ctx; fn_alloc alloc; fn_htod htod; fn_sync sync;
	unsigned long long d;
	int g;
	char *host = malloc(n);
	time_t end = time(NULL) + 20;
	struct timespec pause = { 0, 200000000L };
	if (!h || !host) { fprintf(stderr, "no libcuda.so.1 or no memory\n"); return 1; }
	memset(host, 1, n);
	*(void **)&init = dlsym(h, "cuInit"); *(void **)&dev = dlsym(h, "cuDeviceGet");
	*(void **)&ctx = dlsym(h, "cuCtxCreate_v2"); *(void **)&alloc = dlsym(h, "cuMemAlloc_v2");
	*(void **)&htod = dlsym(h, "cuMemcpyHtoD_v2"); *(void **)&sync = dlsym(h, "cuCtxSynchronize");
	if (!init || !dev || !ctx || !alloc || !htod || !sync || init(0) || dev(&g, 0) || ctx(&c, 0, g) || alloc(&d, n)) {
		fprintf(stderr, "CUDA init failed\n");
		return 1;
	}
	while (time(NULL) < end) {   /* a copy, then nothing: the copies stand out */
		htod(d, host, n);
		sync();
		nanosleep(&pause, NULL);
	}
	return 0;
}
CEOF
if need 30 "copy loop" && snap_under cuda_copy; then
	act=$(activity "$OUT/cuda_copy.jsonl")
	fig "$(head -n 1 <<<"$act")"
	echo "     driver-API copy loop, GPU 0's sub-second activity:"
	sed 's/^/     /' <<<"$act"
	n=$(sed -n 's/^intervals=\([0-9]*\).*/\1/p' <<<"$act")
	rx=$(sed -n 's/.*max_rx_mb_s=\([0-9]*\).*/\1/p' <<<"$act")
	[ "${n:-0}" -ge 10 ] && ok "sub-second activity: $n intervals over 3 s ($(sed -n 's/.*sources=\([^ ]*\).*/\1/p' <<<"$act"))" ||
		bad "sub-second activity: ${n:-0} intervals over 3 s ($(head -c 200 "$OUT/cuda_copy.err"))"
	[ "${rx:-0}" -ge 1000 ] && ok "the copies are seen: up to $rx MB/s host to device" ||
		bad "the copies are not seen: at most ${rx:-0} MB/s host to device"
else
	skp "copy loop: cannot build ($(head -c 200 "$OUT/cuda_copy.err"))"
fi
if "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
	for mode in serial overlapped; do
		need 40 "PyTorch $mode copies" || continue
		"$PY" - "$mode" >"$OUT/xfer-$mode.log" 2>&1 <<'PYEOF' &
import sys, time, torch
mode = sys.argv[1]
dev = torch.device("cuda:0")
w = torch.randn(8192, 8192, device=dev)
if mode == "serial":                  # pageable memory, synchronous copies, then compute
    host = [torch.randn(512, 1024, 1024) for _ in range(2)]   # 2 GiB each
else:                                 # pinned, non_blocking on a side stream, prefetched
    host = [torch.randn(512, 1024, 1024).pin_memory() for _ in range(2)]
    side = torch.cuda.Stream()
end = time.time() + 25
i = 0
nxt = None
while time.time() < end:
    if mode == "serial":
        x = host[i % 2].to(dev)
    else:
        with torch.cuda.stream(side):
            nxt = host[(i + 1) % 2].to(dev, non_blocking=True)
        x = w
    for _ in range(10):               # ~0.2 s of kernels, about as long as the copy
        w = (w @ w).clamp_(-1, 1)
    torch.cuda.synchronize()
    i += 1
PYEOF
		lp=$!
		sleep 8
		timeout 60 "$G" check --window 3s --json >"$OUT/check-xfer-$mode.json" 2>"$OUT/xfer-$mode.err"
		timeout 60 "$G" snapshot --window 3s >"$OUT/activity-$mode.jsonl" 2>>"$OUT/xfer-$mode.err"
		kill "$lp" 2>/dev/null
		wait "$lp" 2>/dev/null
		echo "     PyTorch $mode copies, GPU 0's sub-second activity:"
		activity "$OUT/activity-$mode.jsonl" | sed 's/^/     /'
		ids=$(check_json "check-xfer-$mode")
		"$PY" -c 'import json,sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["id"] == "gpu.transfer_serialized": print("     " + f["summary"])
for u in json.load(open(sys.argv[1])).get("not_evaluated", []):
    if "gpu.transfer_serialized" in json.dumps(u): print("     not evaluated: " + json.dumps(u))' "$OUT/check-xfer-$mode.json" 2>/dev/null
		case "$mode: $ids " in
		"serial:"*" gpu.transfer_serialized "*) ok "serialised copies: gpu.transfer_serialized fired" ;;
		serial:*) bad "serialised copies: gpu.transfer_serialized did not fire ($ids)" ;;
		"overlapped:"*" gpu.transfer_serialized "*) bad "overlapped copies flagged gpu.transfer_serialized" ;;
		*) ok "overlapped copies: no gpu.transfer_serialized" ;;
		esac
	done
else
	skp "copy/compute overlap under PyTorch: no PyTorch with CUDA here"
fi

# ---- 7. the probe through the real CUDA driver ------------------------------
step "7 probe --quick"
# Runs after the exporter so a GPU left busy by a stuck probe cannot spoil
# steps 1-5.  --json for the figures; the text report is kept in $OUT.
plimit=$(($(left) - 25))   # the stub step and the summary after it
[ "$plimit" -gt 180 ] && plimit=180
if ! command -v timeout >/dev/null; then
	skp "probe: timeout(1) not installed"
elif need 60 "probe --quick"; then
	timeout -k 10 "$plimit" "$G" probe --quick --json -o "$OUT/probe.jsonl" >"$OUT/probe.json" 2>"$OUT/probe.err"
	prc=$?
	fig "exit $prc; $("$PY" -c 'import json,sys
d = json.load(open(sys.argv[1])); r = d.get("probe", [])
ok = [x for x in r if x["status"] == "ok"]
best = {}
for x in ok:
    if x["probe"] in ("compute_fp32", "compute_bf16", "mem_bandwidth", "h2d"):
        best[x["probe"]] = max(best.get(x["probe"], 0), x.get("achieved") or 0)
print("%d/%d rows ok; %s" % (len(ok), len(r), ", ".join("%s %.0f" % kv for kv in sorted(best.items()))))' "$OUT/probe.json" 2>/dev/null)"
	if [ "$prc" -ge 124 ]; then
		bad "probe --quick did not finish within $plimit s (exit $prc): $(tail -c 300 "$OUT/probe.err")"
	elif [ "$prc" -eq 3 ]; then
		bad "probe could not run: $(tail -c 400 "$OUT/probe.err")"
	elif "$PY" - "$OUT/probe.json" "$OUT/probe.jsonl" <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc.get("probe", [])
# datasheet figures (PROBES.md 4.2): FP32 non-tensor and BF16 dense, GFLOP/s
spec = {"H200": (67000, 989000), "H100 80GB HBM3": (67000, 989000), "H100 PCIe": (51000, 756000),
        "A100": (19500, 312000), "L40S": (91600, 362000)}
bad = 0
for r in rows:
    if r["probe"] == "p2p":
        continue
    exp = r.get("expected")
    line = "  gpu%s %-14s %-8s achieved %s %s" % (r.get("gpu"), r["probe"], r["status"],
        "%.1f" % r["achieved"] if r.get("achieved") is not None else "-", r["unit"])
    if exp is not None:
        line += "  expected %.1f (%s, %.0f%%)" % (exp, r.get("expected_from"), 100 * (r.get("achieved") or 0) / exp)
    if r.get("errors"):
        line += "  %d wrong" % r["errors"]
    if r.get("reason"):
        line += "  (%s)" % r["reason"]
    print(line)
    if r["status"] not in ("ok", "skipped"):
        bad += 1
for f in doc.get("findings", []):
    if f["id"].startswith("probe."):
        print("  finding: %s %s %s" % (f["severity"], f["id"], f["subject"]))
try:
    last = [l for l in open(sys.argv[2]) if '"probe":[{' in l][-1]
    names = {g["index"]: g["name"] for g in json.loads(last).get("gpus", [])}
except (OSError, IndexError, ValueError):
    names = {}
print("  datasheet share of the burns (what the SKU check of probe.gpu_compute_slow waits for):")
for r in rows:
    if not r["probe"].startswith("compute") or not r.get("achieved"):
        continue
    name = names.get(r.get("gpu"), "")
    sk = [v for k, v in spec.items() if k in name]
    if sk:
        ref = sk[0][0] if r["probe"] == "compute_fp32" else sk[0][1]
        print("    gpu%s %s %s: %.0f of %.0f GFLOP/s = %.0f%%" % (r["gpu"], name, r["probe"], r["achieved"], ref,
                                                                100 * r["achieved"] / ref))
    else:
        print("    gpu%s %s %s: %.0f GFLOP/s (no datasheet figure here)" % (r["gpu"], name, r["probe"], r["achieved"]))
sys.exit(1 if bad or not rows else 0)
PYEOF
	then
		ok "probe --quick (exit $prc): every probe ran; figures above, report in $OUT/probe.json"
	else
		bad "probe --quick (exit $prc): a probe failed or nothing was measured (see above, $OUT/probe.err)"
	fi
fi

# ---- 8. the toolkit's stub libcuda.so, named -----------------------------------
step "8 the toolkit's stub libcuda"
if [ -r "$CUDA_HOME/lib64/stubs/libcuda.so" ] && need 15 "the stub"; then
	timeout 60 "$G" probe --json --only compute_fp32 --gpus 0 --cuda "$CUDA_HOME/lib64/stubs/libcuda.so" \
		>"$OUT/stub.json" 2>"$OUT/stub.err"
	srow=$("$PY" -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["id"] == "driver.cuda_stub"]
print(f[0]["summary"] if f else "")' "$OUT/stub.json" 2>/dev/null)
	[ -n "$srow" ] && ok "driver.cuda_stub: $srow" || bad "driver.cuda_stub did not fire for $CUDA_HOME/lib64/stubs/libcuda.so ($(head -c 200 "$OUT/stub.err"))"
	fig "${srow:0:70}"
else
	skp "no $CUDA_HOME/lib64/stubs/libcuda.so (the CUDA toolkit)"
fi
finish
