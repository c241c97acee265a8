/*
 * smi_q.c - `nvidia-smi -q` text (drivers 450 and newer) into gpus[].
 *
 * The report is an indented tree of "Key : Value" lines, four spaces a
 * level, one "GPU <bus id>" section per GPU (sample, R550, abridged):
 *
 *     ==============NVSMI LOG==============
 *     Timestamp                                 : Mon Jun  3 10:15:42 2024
 *     Driver Version                            : 550.54.15
 *     CUDA Version                              : 12.4
 *     Attached GPUs                             : 8
 *     GPU 00000000:18:00.0
 *         Product Name                          : NVIDIA H100 80GB HBM3
 *         Persistence Mode                      : Enabled
 *         MIG Mode
 *             Current                           : Disabled
 *         PCI
 *             GPU Link Info
 *                 PCIe Generation
 *                     Max                       : 5
 *                     Current                   : 5
 *         Clocks Event Reasons                  (R535+; "Clocks Throttle Reasons" before)
 *             SW Power Cap                      : Active
 *             HW Slowdown                       : Not Active
 *                 HW Thermal Slowdown           : Not Active   (nested from R530; a sibling before)
 *         FB Memory Usage
 *             Total                             : 81559 MiB
 *         ECC Errors
 *             Volatile
 *                 DRAM Uncorrectable            : 0    (R470 V100: Single Bit / Double Bit / Total)
 *         Temperature
 *             GPU Current Temp                  : 34 C
 *         GPU Power Readings                    ("Power Readings" before R535)
 *             Power Draw                        : 72.39 W    ("Average Power Draw" from R560)
 *         Processes
 *             Process ID                        : 12345
 *                 Used GPU Memory               : 39000 MiB
 *
 * Keys are matched by their place in the tree (depth-correct, whatever the
 * indent width), so a MIG device's "FB Memory Usage" under "MIG Devices"
 * never overwrites its GPU's.  "N/A" and "[Not Supported]" leave a field
 * absent; "[Unknown Error]" and "ERR!" leave it absent with an nvml_errors
 * row; a value that is not a number of the expected unit is a malformed
 * line (partial result, the line named).  The clock-event reasons become the
 * NVML bitmask (FACTS.md §2.9); ECC counts are summed over SRAM and DRAM.
 * A lost GPU ("Unable to determine the device handle for GPU 0000:3B:00.0:
 * GPU is lost", or ": Unknown Error", the same GPU unreachable) becomes a
 * gpus[] record with lost = 1.
 *
 * Fragments, as tickets hold them: a section or several without the header
 * and without their "GPU 00000000:xx:00.0" line (`nvidia-smi -q | grep -A8
 * 'Clocks Throttle'`, the ECC block alone, a chunk cut out of the middle)
 * are an unnamed GPU (no index, no bus id: the rules call it "gpu?"),
 * never dropped.  A section whose parents were cut off ("Link Width" under
 * "PCI/GPU Link Info", "Volatile" under "ECC Errors") gets them back from
 * its name; sections pasted flush left are taken as the GPU's own.  A
 * value may carry a human's note after it ("Pending : Yes  <=== here").
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "offline/offline.h"
#include "offline/ofl.h"

#define MAX_DEPTH 8

struct qstate {
	struct gd_snapshot *s;
	struct gd_tok_tally t;
	size_t gpu;          /* index of the current GPU in s->gpus, or SIZE_MAX */
	size_t ngpus;        /* GPU sections seen */
	size_t sections;     /* "GPU ..." lines, garbled ones too: the next index */
	uint64_t reasons;
	bool reasons_seen, ended;
	bool procs;          /* the latest GPU section reached its Processes */
	bool full;           /* ... and has a Product Name: the whole report, not -d SECTION */
	bool header_sec;     /* inside a header section (vGPU Driver Capability, R550+) */
	bool skip_proc;      /* the current process has no readable pid: its lines are not another's */
	bool unnamed;        /* the current GPU is a fragment's, without a GPU line */
	int power_prio, limit_prio;
	uint64_t ecc[4];     /* corrected/uncorrected volatile, then aggregate */
	bool ecc_seen[4];
	uint64_t unc_mem[2][2]; /* uncorrected [volatile, aggregate][SRAM, DRAM] */
	bool unc_mem_seen[2][2];
	int sram_over;       /* "SRAM Threshold Exceeded": -1 not seen, 0 No, 1 Yes */
	bool reset_required, drain;
	bool reset_seen;
	size_t depth;
	size_t indent[MAX_DEPTH];
	struct gd_slice name[MAX_DEPTH];
};

static struct gd_gpu *cur(struct qstate *q)
{
	return q->gpu == SIZE_MAX ? NULL : GD_VEC_AT(q->s->gpus, struct gd_gpu, q->gpu);
}

/* Stores what was gathered over the GPU's section. */
static void end_gpu(struct qstate *q)
{
	struct gd_gpu *g = cur(q);
	struct gd_u64 *ecc[4];

	if (!g)
		return;
	ecc[0] = &g->ecc_corrected_volatile;
	ecc[1] = &g->ecc_uncorrected_volatile;
	ecc[2] = &g->ecc_corrected_aggregate;
	ecc[3] = &g->ecc_uncorrected_aggregate;
	if (q->reasons_seen)
		gd_u64_set(&g->clock_event_reasons, q->reasons);
	for (int i = 0; i < 4; i++)
		if (q->ecc_seen[i])
			gd_u64_set(ecc[i], q->ecc[i]);
	{
		struct gd_u64 *mem[2][2] = { { &g->ecc_uncorrected_volatile_sram, &g->ecc_uncorrected_volatile_dram },
					     { &g->ecc_uncorrected_aggregate_sram, &g->ecc_uncorrected_aggregate_dram } };

		for (int w = 0; w < 2; w++)
			for (int m = 0; m < 2; m++)
				if (q->unc_mem_seen[w][m])
					gd_u64_set(mem[w][m], q->unc_mem[w][m]);
	}
	if (q->sram_over >= 0)
		gd_u64_set(&g->ecc_sram_threshold_exceeded, (uint64_t)q->sram_over);
	memset(q->unc_mem, 0, sizeof q->unc_mem);
	memset(q->unc_mem_seen, 0, sizeof q->unc_mem_seen);
	q->sram_over = -1;
	if (q->reset_seen && !g->recovery_action.ok)
		gd_u64_set(&g->recovery_action, q->drain ? 4 : q->reset_required ? 1 : 0);
	q->gpu = SIZE_MAX;
	q->reasons = 0;
	q->reasons_seen = q->reset_seen = q->reset_required = q->drain = false;
	q->power_prio = q->limit_prio = 0;
	memset(q->ecc, 0, sizeof q->ecc);
	memset(q->ecc_seen, 0, sizeof q->ecc_seen);
}

/* bus NULL: a fragment's GPU, without index or bus id. */
static void begin_gpu(struct qstate *q, const char *bus)
{
	struct gd_gpu *g;

	end_gpu(q);
	g = bus ? ofl_gpu_find(q->s, NULL, bus) : NULL;
	if (!g) {
		g = GD_PUSH(q->s, gpus, struct gd_gpu);
		if (bus) {
			gd_u64_set(&g->index, q->sections);
			GD_STRSET(g->pci_bus_id, bus);
		}
	}
	if (bus)
		q->sections++;
	q->unnamed = !bus;
	q->gpu = (size_t)(g - (struct gd_gpu *)q->s->gpus.items);
	q->ngpus++;
	q->ended = false;
	q->procs = false;
	q->full = false;
}

/* Splits "Key   : Value" at the first colon that has a blank on either side
 * (so "GPU 00000000:3B:00.0" is a key without value). */
static bool split_kv(struct gd_slice line, struct gd_slice *k, struct gd_slice *v)
{
	for (size_t i = 0; i < line.n; i++) {
		if (line.p[i] != ':')
			continue;
		if ((i && (line.p[i - 1] == ' ' || line.p[i - 1] == '\t')) || i + 1 == line.n || line.p[i + 1] == ' ' ||
		    line.p[i + 1] == '\t') {
			*k = gd_tok_trim((struct gd_slice){ line.p, i });
			*v = gd_tok_trim((struct gd_slice){ line.p + i + 1, line.n - i - 1 });
			return true;
		}
	}
	*k = gd_tok_trim(line);
	v->p = line.p + line.n;
	v->n = 0;
	return false;
}

static bool at(const struct qstate *q, size_t d, const char *a)
{
	return q->depth == d && ofl_ieq(q->name[0], a);
}

static bool at2(const struct qstate *q, size_t d, const char *a, const char *b)
{
	return q->depth == d && ofl_ieq(q->name[0], a) && ofl_ieq(q->name[1], b);
}

/* Notes the outcome of one value: a malformed one is a skipped line. */
static void outcome(struct qstate *q, enum ofl_v r, const char *field, size_t lineno, struct gd_slice k,
		    struct gd_slice v)
{
	struct gd_gpu *g = cur(q);

	if (r == OFL_BAD)
		gd_tok_tally_skip(&q->t, lineno, _("a value that is not a number of the expected unit"));
	else if (r == OFL_ERRVAL)
		ofl_note_errval(q->s, g && g->index.ok ? g->index.v : UINT64_MAX, field, "nvidia-smi -q", lineno, k, v);
}

#define U64(fld, unit, scale) outcome(q, ofl_u64(v, unit, scale, &g->fld), #fld, ln, k, v)
#define F64(fld, unit, scale) outcome(q, ofl_f64(v, unit, scale, &g->fld), #fld, ln, k, v)
#define BOOL(fld) outcome(q, ofl_bool(v, &g->fld), #fld, ln, k, v)
#define STR(fld) outcome(q, ofl_str(v, g->fld, sizeof g->fld), #fld, ln, k, v)

static const struct {
	const char *name;
	uint64_t bit;
} reasons[] = {
	{ "Idle", 0x1 }, { "Applications Clocks Setting", 0x2 }, { "SW Power Cap", 0x4 }, { "HW Slowdown", 0x8 },
	{ "Sync Boost", 0x10 }, { "SW Thermal Slowdown", 0x20 }, { "HW Thermal Slowdown", 0x40 },
	{ "HW Power Brake Slowdown", 0x80 }, { "Display Clock Setting", 0x100 },
};

static void reason(struct qstate *q, struct gd_slice k, struct gd_slice v, size_t ln)
{
	struct gd_u64 on = { 0, false };
	enum ofl_v r;

	for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++) {
		if (!ofl_ieq(k, reasons[i].name))
			continue;
		r = ofl_bool(v, &on);
		outcome(q, r, "clock_event_reasons", ln, k, v);
		if (r == OFL_SET) {
			q->reasons_seen = true;
			if (on.v)
				q->reasons |= reasons[i].bit;
		}
		return;
	}
}

/* An ECC count under "ECC Errors/Volatile" or ".../Aggregate". */
static void ecc(struct qstate *q, struct gd_slice k, struct gd_slice v, size_t ln, bool old_total)
{
	size_t base = ofl_ieq(q->name[1], "Volatile") ? 0 : ofl_ieq(q->name[1], "Aggregate") ? 2 : 9;
	struct gd_u64 x = { 0, false };
	size_t i;
	enum ofl_v r;

	if (base == 9)
		return;
	if (!old_total && ofl_contains(k, "Threshold Exceeded")) {
		struct gd_u64 y = { 0, false };

		if (ofl_bool(v, &y) == OFL_SET)
			q->sram_over = (int)y.v;
		return;
	}
	if (old_total)
		i = base + (ofl_ieq(q->name[2], "Double Bit") ? 1 : 0);
	else if (ofl_contains(k, "Uncorrectable"))
		i = base + 1;
	else if (ofl_contains(k, "Correctable"))
		i = base;
	else
		return;
	r = ofl_u64(v, NULL, 1, &x);
	outcome(q, r, i & 1 ? "ecc_uncorrected_volatile" : "ecc_corrected_volatile", ln, k, v);
	if (r == OFL_SET) {
		q->ecc[i] += x.v;
		q->ecc_seen[i] = true;
		/* "SRAM Uncorrectable Parity", "DRAM Uncorrectable": which memory */
		if ((i & 1) && (gd_tok_prefix(k, "SRAM") || gd_tok_prefix(k, "DRAM"))) {
			int m = k.p[0] == 'D';

			q->unc_mem[i / 2][m] += x.v;
			q->unc_mem_seen[i / 2][m] = true;
		}
	}
}

static void power(struct qstate *q, struct gd_slice k, struct gd_slice v, size_t ln)
{
	struct gd_gpu *g = cur(q);
	static const char *const draw[] = { "Instantaneous Power Draw", "Power Draw", "Average Power Draw" };
	static const char *const lim[] = { "Power Limit", "Current Power Limit", "Enforced Power Limit" };

	for (int i = 0; i < 3; i++) {
		if (ofl_ieq(k, draw[i]) && i + 1 > q->power_prio) {
			g->power_w.ok = false;
			F64(power_w, "W", 1);
			if (g->power_w.ok)
				q->power_prio = i + 1;
		}
		if (ofl_ieq(k, lim[i]) && i + 1 > q->limit_prio) {
			g->power_limit_w.ok = false;
			F64(power_limit_w, "W", 1);
			if (g->power_limit_w.ok)
				q->limit_prio = i + 1;
		}
	}
	if (ofl_ieq(k, "Default Power Limit"))
		F64(power_default_limit_w, "W", 1);
}

static void compute_mode(struct qstate *q, struct gd_slice k, struct gd_slice v, size_t ln)
{
	static const char *const modes[] = { "Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process" };
	struct gd_gpu *g = cur(q);

	for (uint64_t i = 0; i < 4; i++)
		if (ofl_ieq(gd_tok_trim(v), modes[i])) {
			gd_u64_set(&g->compute_mode, i);
			return;
		}
	if (ofl_errval(v))
		outcome(q, OFL_ERRVAL, "compute_mode", ln, k, v);
	else if (!ofl_placeholder(v))
		outcome(q, OFL_BAD, "compute_mode", ln, k, v);
}

static void pstate(struct qstate *q, struct gd_slice k, struct gd_slice v, size_t ln)
{
	struct gd_gpu *g = cur(q);
	struct gd_slice t = gd_tok_trim(v);
	uint64_t x;

	if (t.n >= 2 && (t.p[0] == 'P' || t.p[0] == 'p') && gd_tok_u64((struct gd_slice){ t.p + 1, t.n - 1 }, &x) &&
	    x <= 15)
		gd_u64_set(&g->pstate, x);
	else if (ofl_errval(v))
		outcome(q, OFL_ERRVAL, "pstate", ln, k, v);
	else if (!ofl_placeholder(v))
		outcome(q, OFL_BAD, "pstate", ln, k, v);
}

static void recovery(struct qstate *q, struct gd_slice k, struct gd_slice v, size_t ln)
{
	static const char *const acts[] = { "None", "Reset", "Reboot", "Drain P2P", "Drain and Reset" };
	struct gd_gpu *g = cur(q);

	for (uint64_t i = 0; i < 5; i++)
		if (ofl_ieq(gd_tok_trim(v), acts[i]) || (i == 1 && ofl_ieq(gd_tok_trim(v), "GPU Reset"))) {
			gd_u64_set(&g->recovery_action, i);
			return;
		}
	if (ofl_errval(v))
		outcome(q, OFL_ERRVAL, "recovery_action", ln, k, v);
}

/* Sections a fragment may start with, below the parents they always have. */
static const struct {
	const char *sec;
	const char *parent[2];
	size_t n;
} orphans[] = {
	{ "GPU Link Info", { "PCI", NULL }, 1 },       { "PCIe Generation", { "PCI", "GPU Link Info" }, 2 },
	{ "Link Width", { "PCI", "GPU Link Info" }, 2 }, { "Volatile", { "ECC Errors", NULL }, 1 },
	{ "Aggregate", { "ECC Errors", NULL }, 1 },
};

/* The sections and keys of a GPU section (at its first level), for a
 * fragment pasted flush left. */
static bool gpu_key(struct gd_slice k)
{
	static const char *const keys[] = {
		"ECC Errors", "Retired Pages", "Remapped Rows", "Clocks Event Reasons", "Clocks Throttle Reasons",
		"Temperature", "Power Readings", "GPU Power Readings", "PCI", "GPU Link Info", "Clocks", "Max Clocks",
		"FB Memory Usage", "Utilization", "ECC Mode", "GPU Reset Status", "Applications Clocks",
		"Product Name", "Performance State", "Persistence Mode", "GPU Recovery Action", "Fan Speed",
	};

	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (ofl_ieq(k, keys[i]))
			return true;
	return false;
}

/* A fragment's section whose parents were cut off: puts them back on the
 * stack, at nvidia-smi's four blanks a level where the indent allows. */
static void adopt(struct qstate *q, struct gd_slice k, size_t ind)
{
	for (size_t i = 0; i < sizeof orphans / sizeof orphans[0]; i++) {
		size_t n = orphans[i].n;

		if (!ofl_ieq(k, orphans[i].sec))
			continue;
		if (q->depth >= 1 && ofl_ieq(q->name[q->depth - 1], orphans[i].parent[n - 1]))
			return;
		for (size_t j = 0; j < n; j++) {
			size_t up = n - j;

			q->name[j] = (struct gd_slice){ orphans[i].parent[j], strlen(orphans[i].parent[j]) };
			q->indent[j] = ind >= 4 * up ? ind - 4 * up : ind >= up ? ind - up : 0;
		}
		q->depth = n;
		return;
	}
}

/* One "Key : Value" (or section) line inside a GPU section; name[] holds its
 * ancestors below the GPU, depth their count. */
static void gpu_line(struct qstate *q, struct gd_slice k, struct gd_slice v, bool has_v, size_t ln)
{
	struct gd_gpu *g = cur(q);
	struct gd_u64 x = { 0, false };

	for (size_t i = 0; i < q->depth; i++)
		if (ofl_ieq(q->name[i], "MIG Devices"))
			return;
	if (!(q->depth == 0 && (ofl_ieq(k, "Product Name") || ofl_ieq(k, "Serial Number"))))
		v = ofl_note_cut(v);
	if (q->depth == 0) {
		if (ofl_ieq(k, "Product Name")) {
			STR(name);
			q->full = true;
		}
		else if (ofl_ieq(k, "GPU UUID"))
			STR(uuid);
		else if (ofl_ieq(k, "Serial Number"))
			STR(serial);
		else if (ofl_ieq(k, "Minor Number"))
			U64(minor_number, NULL, 1);
		else if (ofl_ieq(k, "Persistence Mode"))
			BOOL(persistence_mode);
		else if (ofl_ieq(k, "Compute Mode"))
			compute_mode(q, k, v, ln);
		else if (ofl_ieq(k, "Performance State"))
			pstate(q, k, v, ln);
		else if (ofl_ieq(k, "Fan Speed"))
			U64(fan_pct, "%", 1);
		else if (ofl_ieq(k, "GPU Recovery Action"))
			recovery(q, k, v, ln);
		else if (ofl_ieq(k, "Processes") && has_v && !ofl_placeholder(v) && ofl_errval(v))
			outcome(q, OFL_ERRVAL, "gpu_procs", ln, k, v);
		else if (ofl_ieq(k, "Processes") && (!has_v || ofl_ieq(gd_tok_trim(v), "None")))
			ofl_procs_listed(g); /* the list was read: its rows count up below */
		return;
	}
	if (at(q, 1, "MIG Mode") && ofl_ieq(k, "Current"))
		BOOL(mig_mode);
	else if (at(q, 1, "ECC Mode") && ofl_ieq(k, "Current"))
		BOOL(ecc_mode);
	else if (at(q, 1, "PCI")) {
		if (ofl_ieq(k, "Bus Id")) {
			char bus[32];

			if (ofl_bus_id(v, bus, sizeof bus))
				GD_STRSET(g->pci_bus_id, bus);
			else if (!ofl_placeholder(v))
				outcome(q, OFL_BAD, "pci_bus_id", ln, k, v);
		} else if (ofl_ieq(k, "Replays Since Reset") || ofl_ieq(k, "Replay Counter")) {
			U64(pcie_replays, NULL, 1);
		} else if (ofl_ieq(k, "Tx Throughput")) {
			U64(pcie_tx_kbps, "KB/s", 1);
		} else if (ofl_ieq(k, "Rx Throughput")) {
			U64(pcie_rx_kbps, "KB/s", 1);
		}
	} else if (q->depth == 3 && ofl_ieq(q->name[0], "PCI") && ofl_ieq(q->name[1], "GPU Link Info")) {
		bool gen = ofl_ieq(q->name[2], "PCIe Generation"), width = ofl_ieq(q->name[2], "Link Width");

		if (gen && ofl_ieq(k, "Max"))
			U64(pcie_gen_max, NULL, 1);
		else if (gen && ofl_ieq(k, "Current"))
			U64(pcie_gen, NULL, 1);
		else if (width && ofl_ieq(k, "Max"))
			U64(pcie_width_max, "x", 1);
		else if (width && ofl_ieq(k, "Current"))
			U64(pcie_width, "x", 1);
	} else if (at(q, 1, "FB Memory Usage")) {
		if (ofl_ieq(k, "Total"))
			U64(mem_total_bytes, "MiB", 1048576);
		else if (ofl_ieq(k, "Used"))
			U64(mem_used_bytes, "MiB", 1048576);
	} else if (at(q, 1, "Utilization")) {
		if (ofl_ieq(k, "Gpu") || ofl_ieq(k, "GPU"))
			U64(util_gpu_pct, "%", 1);
		else if (ofl_ieq(k, "Memory"))
			U64(util_mem_pct, "%", 1);
	} else if (at(q, 1, "Retired Pages")) {
		if (ofl_ieq(k, "Single Bit ECC"))
			U64(retired_pages_sbe, NULL, 1);
		else if (ofl_ieq(k, "Double Bit ECC"))
			U64(retired_pages_dbe, NULL, 1);
		else if (ofl_ieq(k, "Pending Page Blacklist") || ofl_ieq(k, "Pending"))
			BOOL(retired_pages_pending);
	} else if (at(q, 1, "Remapped Rows")) {
		if (ofl_ieq(k, "Correctable Error"))
			U64(remap_corrected, NULL, 1);
		else if (ofl_ieq(k, "Uncorrectable Error"))
			U64(remap_uncorrected, NULL, 1);
		else if (ofl_ieq(k, "Pending"))
			BOOL(remap_pending);
		else if (ofl_ieq(k, "Remapping Failure Occurred"))
			BOOL(remap_failure);
	} else if (at(q, 1, "Temperature")) {
		if (ofl_ieq(k, "GPU Current Temp"))
			F64(temp_c, "C", 1);
		else if (ofl_ieq(k, "GPU Slowdown Temp"))
			F64(temp_slowdown_c, "C", 1);
		else if (ofl_ieq(k, "GPU Shutdown Temp"))
			F64(temp_shutdown_c, "C", 1);
	} else if (at(q, 1, "Power Readings") || at(q, 1, "GPU Power Readings")) {
		power(q, k, v, ln);
	} else if (at(q, 1, "Clocks")) {
		if (ofl_ieq(k, "SM"))
			U64(sm_clock_mhz, "MHz", 1);
		else if (ofl_ieq(k, "Memory"))
			U64(mem_clock_mhz, "MHz", 1);
	} else if (at(q, 1, "Max Clocks")) {
		if (ofl_ieq(k, "SM"))
			U64(sm_clock_max_mhz, "MHz", 1);
		else if (ofl_ieq(k, "Memory"))
			U64(mem_clock_max_mhz, "MHz", 1);
	} else if (at(q, 1, "Applications Clocks") && ofl_ieq(k, "Graphics")) {
		U64(app_sm_clock_mhz, "MHz", 1);
	} else if (at(q, 1, "GPU Reset Status")) {
		if (ofl_bool(v, &x) == OFL_SET) {
			q->reset_seen = true;
			if (ofl_ieq(k, "Reset Required"))
				q->reset_required = x.v;
			else if (ofl_ieq(k, "Drain and Reset Recommended"))
				q->drain = x.v;
		}
	} else if ((q->depth == 1 || q->depth == 2) &&
		   (ofl_ieq(q->name[0], "Clocks Throttle Reasons") || ofl_ieq(q->name[0], "Clocks Event Reasons"))) {
		reason(q, k, v, ln);
	} else if (q->depth == 2 && ofl_ieq(q->name[0], "ECC Errors")) {
		ecc(q, k, v, ln, false);
	} else if (q->depth == 3 && ofl_ieq(q->name[0], "ECC Errors") && ofl_ieq(k, "Total")) {
		ecc(q, k, v, ln, true);
	} else if (at(q, 1, "Processes") && ofl_ieq(k, "Process ID")) {
		if (ofl_u64(v, NULL, 1, &x) != OFL_SET) {
			outcome(q, ofl_placeholder(v) ? OFL_ABSENT : OFL_BAD, "gpu_procs", ln, k, v);
			q->skip_proc = true;
			return;
		}
		if (g->index.ok)
			ofl_gpu_proc(q->s, g->index.v, x.v, false);
		q->skip_proc = !g->index.ok;
	} else if (at2(q, 2, "Processes", "Process ID") && q->s->gpu_procs.n && !q->skip_proc) {
		struct gd_gpu_proc *p = GD_VEC_AT(q->s->gpu_procs, struct gd_gpu_proc, q->s->gpu_procs.n - 1);

		if (ofl_ieq(k, "Used GPU Memory"))
			outcome(q, ofl_u64(v, "MiB", 1048576, &p->used_mem_bytes), "gpu_procs", ln, k, v);
		else if (ofl_ieq(k, "Type") && ofl_ieq(gd_tok_trim(v), "G"))
			gd_u64_set(&p->graphics, 1); /* graphics only ("C+G" computes too) */
	}
	(void)has_v;
}

/* Lines at the top level: the header, a GPU section, a lost GPU. */
static void top_line(struct qstate *q, struct gd_slice line, struct gd_slice k, struct gd_slice v, bool has_v,
		     size_t ln)
{
	struct gd_u64 x = { 0, false };
	char bus[32];

	q->header_sec = false;
	if (has_v && ofl_ieq(k, "Driver Version")) {
		ofl_str(v, q->s->nvml.driver_version, sizeof q->s->nvml.driver_version);
	} else if (has_v && ofl_ieq(k, "CUDA Version")) {
		double ver;

		if (gd_tok_f64(gd_tok_trim(v), &ver) && ver > 0 && ver < 100)
			gd_u64_set(&q->s->nvml.cuda_driver_version, ofl_cuda_version(ver));
	} else if (has_v && ofl_ieq(k, "Attached GPUs")) {
		if (ofl_u64(v, NULL, 1, &x) == OFL_SET)
			q->s->nvml.device_count = x;
		else
			gd_tok_tally_skip(&q->t, ln, _("Attached GPUs is not a number"));
	} else if (has_v && (ofl_ieq(k, "Timestamp") || ofl_ieq(k, "NVML Version"))) {
		if (ofl_ieq(k, "NVML Version"))
			ofl_str(v, q->s->nvml.nvml_version, sizeof q->s->nvml.nvml_version);
	} else if (!has_v && k.n > 4 && strncmp(k.p, "GPU ", 4) == 0 &&
		   ofl_bus_id((struct gd_slice){ k.p + 4, k.n - 4 }, bus, sizeof bus)) {
		begin_gpu(q, bus);
	} else if (gd_tok_prefix(line, "=") || line.n == 0 || has_v) {
		/* the banner; other header keys (Timestamp, Attached Units, ...) */
	} else if (!q->ngpus && ofl_ieq(k, "vGPU Driver Capability")) {
		q->header_sec = true; /* "Heterogenous Multi-vGPU : Supported" below it */
	} else {
		end_gpu(q);
		if (gd_tok_prefix(line, "GPU "))
			q->sections++; /* a garbled section header still takes its index */
		gd_tok_tally_skip(&q->t, ln, _("not a line of nvidia-smi -q (a GPU section header was expected)"));
	}
}

int gd_parse_nvsmi_q(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct qstate q;
	struct gd_lines it;
	struct gd_slice line;
	size_t last_line = 0;
	int rc;

	memset(&q, 0, sizeof q);
	q.s = s;
	q.gpu = SIZE_MAX;
	q.sram_over = -1;
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		struct gd_slice k, v, t;
		size_t ind = 0, i = 0;
		bool has_v, frag;
		char bus[32];

		line = ofl_chomp(line);
		last_line = it.lineno;
		if (gd_tok_is_binary(line.p, line.n)) {
			gd_tok_tally_skip(&q.t, it.lineno, _("binary bytes"));
			continue;
		}
		for (; i < line.n && (line.p[i] == ' ' || line.p[i] == '\t'); i++)
			ind += line.p[i] == '\t' ? 4 : 1;
		t = (struct gd_slice){ line.p + i, line.n - i };
		if (t.n == 0)
			continue;
		if (ofl_contains(t, "GPU is lost") || ofl_contains(t, "Unable to determine the device handle")) {
			if (ofl_find_bus_id(t, bus, sizeof bus)) {
				struct gd_gpu *g;

				begin_gpu(&q, bus);
				g = cur(&q);
				ofl_device_handle(s, g, t, "nvidia-smi -q", it.lineno);
				end_gpu(&q);
				q.procs = true;
			}
			continue;
		}
		has_v = split_kv(t, &k, &v);
		/* a fragment: GPU lines before any GPU section, or flush left */
		frag = (q.gpu == SIZE_MAX && !q.ngpus && !q.header_sec && (ind || gpu_key(k))) ||
		       (ind == 0 && q.unnamed && q.gpu != SIZE_MAX && gpu_key(k));
		if (frag && q.gpu == SIZE_MAX) {
			begin_gpu(&q, NULL);
			q.depth = 0;
		}
		if (ind == 0 && !frag) {
			q.depth = 0;
			top_line(&q, t, k, v, has_v, it.lineno);
			continue;
		}
		if (q.gpu == SIZE_MAX) {
			if (q.header_sec)
				continue;
			if (!q.ended)
				gd_tok_tally_skip(&q.t, it.lineno, _("indented line outside a GPU section"));
			q.ended = true;
			continue;
		}
		while (q.depth && q.indent[q.depth - 1] >= ind)
			q.depth--;
		if (q.unnamed && !has_v)
			adopt(&q, k, ind);
		gpu_line(&q, k, v, has_v, it.lineno);
		if (q.depth == 0 && ofl_ieq(k, "Processes"))
			q.procs = true;
		if (q.depth < MAX_DEPTH) {
			q.indent[q.depth] = ind;
			q.name[q.depth] = k;
			q.depth++;
		}
		q.t.parsed++;
	}
	end_gpu(&q);
	if (!q.ngpus && !s->nvml.device_count.ok)
		return gd_err_set(err, -ENODATA, _("no \"Attached GPUs\" line and no GPU section: not the GPU report of "
				    "nvidia-smi -q"));
	ofl_nvml_ok(s, "nvidia-smi -q");
	if (!s->nvml.device_count.ok)
		gd_u64_set(&s->nvml.device_count, s->gpus.n);
	rc = gd_tok_tally_result(&q.t, "nvidia-smi -q", err);
	if (rc < 0 && q.ngpus)
		rc = 1;
	if (rc == 0 && s->nvml.device_count.v > q.ngpus && (q.procs || !q.full))
		rc = gd_err_set(err, 1, _("%zu of %llu GPUs (Attached GPUs) in the output: the others were left out "
				  "(nvidia-smi -i) or not pasted"), q.ngpus, (unsigned long long)s->nvml.device_count.v);
	else if (rc == 0 && s->nvml.device_count.v > q.ngpus)
		rc = gd_err_set(err, 1, _("line %zu: %zu of %llu GPU sections (Attached GPUs): the output is cut short or a "
				  "section is garbled"), last_line, q.ngpus, (unsigned long long)s->nvml.device_count.v);
	else if (rc == 0 && q.ngpus && q.full && !q.procs)
		rc = gd_err_set(err, 1, _("line %zu: the last GPU section ends before its Processes: the output is cut short"),
				last_line);
	return rc;
}
