/*
 * xid.c - the Xid catalogue (FACTS.md §3.2, from NVIDIA's Xid catalogue and
 * the older cause columns) and the summary with its context rules (xid.h).
 *
 * Severity before context: what the operator must do.  IGNORE buckets are
 * info; RESTART_APP and "watch it" are warnings; RESET_GPU, RESTART_BM and
 * memory errors that take the GPU out are critical.  Worked example: Xid 13
 * three times on 0000:38:00.0 in a minute is a warning (restart the app,
 * debug it); twelve times in 40 s is a storm, still a warning, noted; Xid 45
 * one second after Xid 13 on the same GPU is secondary (info).
 */
#include "klog/xid.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "klog/klog.h"

#define I GD_SEV_INFO
#define W GD_SEV_WARNING
#define C GD_SEV_CRITICAL

static const struct gd_xid_info catalogue[] = {
	{ 8, "ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT", N_("GPU stopped processing (channel timed out)"), "DRV/APP", W, "RESTART_APP",
	  N_("Restart the job; if it recurs on this GPU, reset it and check thermals and PCIe errors.") },
	{ 11, "ROBUST_CHANNEL_INVALID_PUSH_BUFFER", N_("Invalid push buffer"), "APP", W, "RESTART_APP", N_("Restart the application.") },
	{ 13, "ROBUST_CHANNEL_GR_EXCEPTION", N_("Graphics/SM engine exception (out-of-bounds access, illegal instruction)"), "APP", W, "RESTART_APP",
	  N_("Restart the app and debug it (compute-sanitizer); the same GPC/TPC again with known-good code: run DCGM diagnostics.") },
	{ 25, "ROBUST_CHANNEL_INVALID_PUSH_BUFFER", N_("Invalid push buffer"), "APP", W, "RESTART_APP", N_("Restart the application.") },
	{ 31, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT", N_("GPU memory page fault (MMU fault, illegal address)"), "APP", W, "RESTART_APP",
	  N_("Restart the app and debug it; faults on this GPU across different apps: run DCGM diagnostics.") },
	{ 32, "ROBUST_CHANNEL_PBDMA_ERROR", N_("Corrupted push-buffer stream seen over PCIe"), "BUS", W, "RESTART_APP",
	  N_("Restart the app, then inspect PCIe replay/AER counters, link width and speed, seating and risers.") },
	{ 37, "DRIVER_FIRMWARE_ERROR", N_("Driver firmware error"), "DRV", I, "IGNORE", N_("Note it; update the driver if it repeats.") },
	{ 38, "ROBUST_CHANNEL_FECS_ERR_WATCHDOG_TIMEOUT", N_("Driver firmware error (FECS watchdog)"), "DRV", I, "IGNORE",
	  N_("Note it; if it repeats, update the driver and report it.") },
	{ 43, "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR", N_("The application hit a software fault; the GPU stays healthy"), "APP", I, "IGNORE",
	  N_("No GPU action; look at the application.") },
	{ 44, "ROBUST_CHANNEL_GR_FAULT_DURING_CTXSW", N_("Graphics engine fault during a context switch"), "DRV", I, "IGNORE", N_("Note it; report it if it recurs.") },
	{ 45, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL", N_("The driver tore down the app's channels (kill, Ctrl-C, reset, or another error)"), "APP", I, "WORKFLOW_XID_45",
	  N_("Alone it is normally a user or system action (a killed job); with other Xids, follow those; repeating alone on an NVSwitch system: restart Fabric Manager.") },
	{ 46, "ROBUST_CHANNEL_GPU_TIMEOUT_ERROR", N_("GPU stopped processing"), "DRV/HW", C, "RESET_GPU", N_("Reset the GPU (nvidia-smi -r).") },
	{ 48, "ROBUST_CHANNEL_GPU_ECC_DBE", N_("Double-bit (uncorrectable) ECC error"), "MEM", C, "WORKFLOW_XID_48",
	  N_("Reset the GPU (drain first if Xid 63/64 come with it); if it repeats, run field diagnostics and RMA.") },
	{ 54, "SILENT_RUNNING_PWR_REDUCED_CLOCKING", N_("Auxiliary power not connected to the board"), "PWR", W, "CHECK_MECHANICALS",
	  N_("Check the power cables and seating.") },
	{ 56, "DISPLAY_CHANNEL_EXCEPTION", N_("Display engine error"), "DRV/HW", W, "RESET_GPU", N_("Pre-Ampere display error: reset the GPU if it repeats.") },
	{ 57, "FB_LINK_TRAINING_FAILURE_ERROR", N_("Error programming the video-memory interface"), "HW/MEM", C, "RESET_GPU", N_("Reset or reboot; recurring: RMA.") },
	{ 58, "FB_MEMORY_ERROR", N_("Unstable video-memory interface (EDC)"), "HW/MEM", C, "RESET_GPU", N_("Check cooling and memory clocks, reset; recurring: RMA.") },
	{ 61, "PMU_BREAKPOINT", N_("Internal micro-controller breakpoint"), "DRV", W, "CONTACT_SUPPORT", N_("Update the driver and VBIOS if frequent.") },
	{ 62, "PMU_HALT_ERROR", N_("Internal micro-controller halt"), "DRV/HW", C, "RESET_GPU", N_("Reset the GPU and check its temperatures; recurring: vendor/RMA.") },
	{ 63, "INFOROM_DRAM_RETIREMENT_EVENT", N_("ECC page retirement or row remapping recorded"), "MEM", W, "IGNORE",
	  N_("A row remap is pending until the GPU is reset: schedule a reset; track counts against the RMA policy.") },
	{ 64, "INFOROM_DRAM_RETIREMENT_FAILURE", N_("Page retirement or row remapping could not be recorded"), "MEM", C, "RESET_GPU",
	  N_("Reset the GPU; if the remap-failure flag is set, drain it and RMA.") },
	{ 68, "ROBUST_CHANNEL_NVDEC0_ERROR", N_("Video decoder (NVDEC0) exception"), "APP/HW", W, "RESTART_APP", N_("Restart the application.") },
	{ 69, "ROBUST_CHANNEL_GR_CLASS_ERROR", N_("Graphics engine class error"), "APP/DRV", W, "RESTART_APP", N_("Restart the app; investigate app or driver if it recurs.") },
	{ 74, "NVLINK_ERROR", N_("NVLink error on a link to another GPU or NVSwitch"), "NVL", C, "WORKFLOW_NVLINK_ERR",
	  N_("Reset the GPU or reboot the node to clear it; check the peer GPU too; recurring after a reset: vendor.") },
	{ 79, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS", N_("The GPU has fallen off the bus: the driver cannot reach it over PCIe"), "BUS/PWR/HW/THERM", C, "RESTART_BM",
	  N_("Drain and reboot the node (a GPU reset rarely works); check power, cooling, seating and risers; repeats: RMA.") },
	{ 80, "CORRUPTED_DATA_SENT_TO_GPU", N_("Corrupted data sent to the GPU"), "BUS/APP", W, "RESTART_APP", N_("Restart the app; check PCIe errors if it repeats.") },
	{ 92, "EXCESSIVE_SBE_INTERRUPTS", N_("High single-bit (corrected) ECC error rate"), "MEM", W, "IGNORE", N_("Monitor it; run field diagnostics; RMA per policy if sustained.") },
	{ 93, "INFOROM_ERASE_LIMIT_EXCEEDED", N_("InfoROM erase-limit violation"), "HW", I, "IGNORE", N_("Note it.") },
	{ 94, "ROBUST_CHANNEL_CONTAINED_ERROR", N_("Contained memory error: only the app that touched it is affected"), "MEM", W, "RESTART_APP",
	  N_("Restart the affected app; reset the GPU when convenient (it activates the row remap).") },
	{ 95, "ROBUST_CHANNEL_UNCONTAINED_ERROR", N_("Uncontained memory error: several apps affected"), "MEM", C, "RESET_GPU",
	  N_("Drain all work on the GPU (all MIG instances) and reset it; recurring: RMA.") },
	{ 109, "ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR", N_("Context-switch time-out"), "DRV/HW/APP", C, "RESET_GPU", N_("Reset the GPU; check what else was logged (thermal, PCIe).") },
	{ 110, "SEC_FAULT_ERROR", N_("Security fault"), "HW", C, "RESET_GPU", N_("Undo recent hardware changes and cold-reset the system; persists: vendor.") },
	{ 119, "GSP_RPC_TIMEOUT", N_("The GPU System Processor did not answer an RPC in time"), "GSP", C, "RESET_GPU",
	  N_("Reset the GPU, power-cycle if it persists; consider a driver update; recurring: RMA.") },
	{ 120, "GSP_ERROR", N_("Error in code running on the GPU System Processor"), "GSP", C, "RESET_GPU",
	  N_("Reset the GPU, power-cycle if it persists; consider a driver update; recurring: RMA.") },
	{ 121, "C2C_ERROR", N_("Corrected errors on the C2C link to the Grace CPU"), "NVL", I, "IGNORE", N_("No impact: reset the GPU at a maintenance window to retrain the link.") },
	{ 122, "SPI_PMU_RPC_READ_FAIL", N_("SPI PMU RPC read failure"), "HW/DRV", W, "RESET_GPU", N_("Report it and reset the GPU.") },
	{ 123, "SPI_PMU_RPC_WRITE_FAIL", N_("SPI PMU RPC write failure"), "HW/DRV", W, "RESET_GPU", N_("Report it and reset the GPU.") },
	{ 136, "NVLINK_ALI_TRAINING_FAILURE", N_("NVLink link-training failure"), "NVL", C, "RESET_GPU", N_("Reset the GPU; check NVLink cabling/seating.") },
	{ 137, "NVLINK_PRIV_ERROR", N_("NVLink privilege error (illegal peer access)"), "APP", W, "RESTART_APP", N_("Usually an application bug: restart and debug it.") },
	{ 140, "UNRECOVERABLE_ECC_ERROR_ESCAPE", N_("Uncorrectable memory errors escaped row-remap handling"), "MEM", C, "RESET_GPU", N_("Reset the GPU; persists: vendor.") },
	{ 143, "GPU_INIT_ERROR", N_("GPU initialisation error"), "HW/DRV", C, "RESET_GPU", N_("Reset the GPU; persists: vendor.") },
	{ 144, "NVLINK_SAW_ERROR", N_("NVLink5 SAW unit error"), "NVL", W, "WORKFLOW_NVLINK5_ERR", N_("Decode the words with NVIDIA's Xid 144-150 sheet; link fatal: drain and reset.") },
	{ 145, "NVLINK_RLW_ERROR", N_("NVLink5 RLW unit error"), "NVL", W, "WORKFLOW_NVLINK5_ERR", N_("Decode the words with NVIDIA's Xid 144-150 sheet; link fatal: drain and reset.") },
	{ 146, "NVLINK_TLW_ERROR", N_("NVLink5 TLW unit error"), "NVL", W, "WORKFLOW_NVLINK5_ERR", N_("Decode the words with NVIDIA's Xid 144-150 sheet; link fatal: drain and reset.") },
	{ 147, "NVLINK_TREX_ERROR", N_("NVLink5 TREX unit error"), "NVL", W, "WORKFLOW_NVLINK5_ERR", N_("Decode the words with NVIDIA's Xid 144-150 sheet; link fatal: drain and reset.") },
	{ 148, "NVLINK_NVLPW_CTRL_ERROR", N_("NVLink5 NVLPW control error"), "NVL", W, "WORKFLOW_NVLINK5_ERR", N_("Decode the words with NVIDIA's Xid 144-150 sheet; link fatal: drain and reset.") },
	{ 149, "NVLINK_NETIR_ERROR", N_("NVLink5 NETIR link event (link down, BER)"), "NVL", W, "WORKFLOW_NVLINK5_ERR", N_("Decode it; link fatal: reset the GPU; BER events: check cables and transceivers.") },
	{ 150, "NVLINK_MSE_ERROR", N_("NVLink5 MSE firmware error"), "NVL", W, "WORKFLOW_NVLINK5_ERR", N_("Reset the GPU per the decode sheet.") },
	{ 154, "GPU_RECOVERY_ACTION_CHANGED", N_("The recovery action the driver requires changed"), "info", W, "XID_154", N_("Do exactly what it names.") },
	{ 155, "NVLINK_SW_DEFINED_ERROR", N_("NVLink software-defined error (intentional link down)"), "NVL", W, "RESET_GPU", N_("Reset the GPU.") },
	{ 156, "RESOURCE_RETIREMENT_EVENT", N_("Resource retirement event"), "MEM", C, "RESET_GPU", N_("Reset the GPU.") },
	{ 157, "RESOURCE_RETIREMENT_FAILURE", N_("Resource retirement failure (no spares left)"), "MEM", W, "IGNORE", N_("Plan an RMA: no spare resources are left.") },
	{ 158, "GPU_FATAL_TIMEOUT", N_("GPU fatal time-out"), "DRV/HW", C, "RESET_GPU", N_("Reset the GPU.") },
	{ 167, "PCIE_FATAL_TIMEOUT", N_("PCIe fatal time-out"), "BUS", C, "RESET_GPU", N_("Reset the GPU; check PCIe errors, seating and risers.") },
	{ 171, "UNCORRECTABLE_DRAM_ERROR", N_("Uncorrectable DRAM error (detail of Xid 48)"), "MEM", C, "RESET_GPU", N_("Follow Xid 48.") },
	{ 172, "UNCORRECTABLE_SRAM_ERROR", N_("Uncorrectable SRAM error (detail of Xid 48)"), "MEM", C, "RESET_GPU", N_("Follow Xid 48; check the SRAM threshold flag.") },
};

const struct gd_xid_info *gd_xid_lookup(uint64_t code)
{
	for (size_t i = 0; i < sizeof catalogue / sizeof catalogue[0]; i++)
		if (catalogue[i].code == code)
			return &catalogue[i];
	return NULL;
}

/* Domain, bus and device of a PCI address in any of the spellings the log
 * and NVML use: "0000:5d:00" (Xid lines), "0000:5d:00.0", "00000000:5D:00.0". */
static bool pci_bdf(const char *id, unsigned long *dom, unsigned *bus, unsigned *dev)
{
	unsigned long d;
	unsigned b, v;
	int n = 0;

	if (!id || sscanf(id, "%lx:%x:%x%n", &d, &b, &v, &n) != 3 || n == 0)
		return false;
	*dom = d;
	*bus = b;
	*dev = v;
	return true;
}

enum gd_remap_state gd_xid_row_remap_state(const struct gd_snapshot *s, const char *bus_id)
{
	unsigned long dom, gdom;
	unsigned bus, dev, gbus, gdev;

	if (!s || !pci_bdf(bus_id, &dom, &bus, &dev))
		return GD_REMAP_UNKNOWN;
	GD_VEC_EACH(s->gpus, const struct gd_gpu, g) {
		if (!pci_bdf(g->pci_bus_id, &gdom, &gbus, &gdev) || gdom != dom || gbus != bus || gdev != dev)
			continue;
		if (g->remap_failure.ok && g->remap_failure.v)
			return GD_REMAP_FAILED;
		if (g->remap_pending.ok && g->remap_pending.v)
			return GD_REMAP_PENDING;
		if (g->remap_failure.ok || g->remap_pending.ok)
			return GD_REMAP_NONE;
		return GD_REMAP_UNKNOWN;
	}
	return GD_REMAP_UNKNOWN;
}

void gd_xid_summary_init(struct gd_xid_summary *sum)
{
	memset(sum, 0, sizeof *sum);
	sum->storm_count = 10;
	sum->storm_window_s = 60;
	sum->follow_s = 5;
}

void gd_xid_summary_release(struct gd_xid_summary *sum)
{
	gd_vec_release(&sum->entries);
	gd_vec_release(&sum->gpus);
}

/* The event's place on one clock: wall time when known, else boot time. */
static double when(const struct gd_klog_event *ev)
{
	if (ev->wall_time_s.ok)
		return ev->wall_time_s.v;
	return ev->boot_s.ok ? ev->boot_s.v : NAN;
}

static struct gd_xid_gpu *gpu_of(struct gd_xid_summary *sum, const char *bus)
{
	struct gd_xid_gpu *g;

	GD_VEC_EACH(sum->gpus, struct gd_xid_gpu, it)
		if (strcmp(it->bus, bus) == 0)
			return it;
	g = (struct gd_xid_gpu *)gd_vec_push(&sum->gpus, sizeof(struct gd_xid_gpu));
	GD_STRSET(g->bus, bus);
	return g;
}

static struct gd_xid_entry *entry_of(struct gd_xid_summary *sum, const char *kind, const char *bus, uint64_t code)
{
	struct gd_xid_entry *e;

	GD_VEC_EACH(sum->entries, struct gd_xid_entry, it)
		if (it->code == code && strcmp(it->bus, bus) == 0 && strcmp(it->kind, kind) == 0)
			return it;
	e = (struct gd_xid_entry *)gd_vec_push(&sum->entries, sizeof(struct gd_xid_entry));
	GD_STRSET(e->kind, kind);
	GD_STRSET(e->bus, bus);
	e->code = code;
	e->info = strcmp(kind, "xid") == 0 ? gd_xid_lookup(code) : NULL;
	return e;
}

static void add_proc(struct gd_xid_entry *e, const struct gd_klog_event *ev)
{
	char one[64];
	size_t n = strlen(e->procs);

	if (!ev->process[0] && !ev->pid.ok)
		return;
	if (ev->pid.ok)
		snprintf(one, sizeof one, "%s%s(%llu)%s", ev->process, ev->process[0] ? " " : "",
			 (unsigned long long)ev->pid.v, "");
	else
		snprintf(one, sizeof one, "%s", ev->process);
	if (strstr(e->procs, one))
		return;
	if (e->nprocs >= 4 || n + strlen(one) + 3 >= sizeof e->procs) {
		if (n + 5 < sizeof e->procs && !strstr(e->procs, ", ..."))
			memcpy(e->procs + n, ", ...", 6);
		return;
	}
	snprintf(e->procs + n, sizeof e->procs - n, "%s%s", n ? ", " : "", one);
	e->nprocs++;
}

static void stamp(struct gd_xid_entry *e, const struct gd_klog_event *ev)
{
	if (e->count == 0) {
		e->first_boot = ev->boot_s;
		e->first_wall = ev->wall_time_s;
	}
	e->last_boot = ev->boot_s;
	e->last_wall = ev->wall_time_s;
	e->count++;
}

void gd_xid_summary_add(struct gd_xid_summary *sum, const struct gd_klog_event *ev)
{
	enum gd_klog_kind k = gd_klog_kind_of(ev->kind);
	double t = when(ev);
	struct gd_xid_gpu *g;
	struct gd_xid_entry *e;

	if ((unsigned)k < 16)
		sum->other[k]++;
	switch (k) {
	case GD_KLOG_GPU_UUID:
		if (ev->pci_bus_id[0] && ev->uuid[0])
			GD_STRSET(gpu_of(sum, ev->pci_bus_id)->uuid, ev->uuid);
		return;
	case GD_KLOG_OOM_KILL:
		sum->last_kill_t = t;
		sum->have_kill = true;
		return;
	case GD_KLOG_FALLEN_OFF_BUS:
		if (!ev->pci_bus_id[0])
			return;
		g = gpu_of(sum, ev->pci_bus_id);
		if (!g->lost) {
			g->lost = true;
			g->lost_boot = ev->boot_s;
			g->lost_wall = ev->wall_time_s;
		}
		return;
	case GD_KLOG_SXID:
		e = entry_of(sum, "sxid", ev->pci_bus_id, ev->code.v);
		stamp(e, ev);
		if (strcmp(ev->severity, "fatal") == 0)
			e->fatal++;
		return;
	case GD_KLOG_XID:
		break;
	default:
		return;
	}
	if (!ev->code.ok)
		return;
	g = gpu_of(sum, ev->pci_bus_id);
	e = entry_of(sum, "xid", ev->pci_bus_id, ev->code.v);
	stamp(e, ev);
	add_proc(e, ev);
	if (g->lost && ev->code.v != 79)
		e->after_lost++;
	if (ev->code.v == 45) {
		bool after_xid = g->have_last && g->last_code != 45 && (isnan(t) || isnan(g->last_t) || t - g->last_t <= sum->follow_s);
		bool after_kill = sum->have_kill && !isnan(t) && t - sum->last_kill_t >= 0 && t - sum->last_kill_t <= sum->follow_s;

		if (after_xid || after_kill)
			e->secondary++;
	}
	if (ev->code.v == 154 && ev->action_code.ok) {
		e->action_code = ev->action_code;
		GD_STRSET(e->action_name, ev->detail);
	}
	if (ev->code.v == 79 && !g->lost) {
		g->lost = true;
		g->lost_boot = ev->boot_s;
		g->lost_wall = ev->wall_time_s;
	}
	if (!isnan(t)) {
		/* storms: the ring keeps the last storm_count times */
		size_t n = sum->storm_count < GD_XID_STORM_RING ? sum->storm_count : GD_XID_STORM_RING;
		size_t in = 0;

		e->ring[e->ring_n % GD_XID_STORM_RING] = t;
		e->ring_n++;
		for (size_t i = 0; i < n && i < e->ring_n; i++)
			if (t - e->ring[(e->ring_n - 1 - i) % GD_XID_STORM_RING] <= sum->storm_window_s)
				in++;
		if (in > e->storm_max)
			e->storm_max = in;
	}
	if (ev->code.v != 45) {
		g->last_code = ev->code.v;
		g->last_t = t;
		g->have_last = true;
	}
}

static void note(struct gd_xid_entry *e, const char *s)
{
	size_t n = strlen(e->notes);

	snprintf(e->notes + n, sizeof e->notes - n, "%s%s", n ? "; " : "", s);
}

static enum gd_severity at_least(enum gd_severity a, enum gd_severity b)
{
	return a > b ? a : b;
}

void gd_xid_summary_finish(struct gd_xid_summary *sum, const struct gd_snapshot *snap)
{
	char buf[160];

	/* a GPU that fell off the bus with no Xid 79 line gets an entry of its
	 * own in the Xid table (gpudoctor xid, snap NULL); the rules say it once,
	 * as gpu.lost, not again as a made-up Xid 79 */
	GD_VEC_EACH(sum->gpus, struct gd_xid_gpu, g) {
		struct gd_xid_entry *e;
		bool have79 = false;

		if (snap)
			break;

		GD_VEC_EACH(sum->entries, struct gd_xid_entry, it)
			if (it->code == 79 && strcmp(it->bus, g->bus) == 0 && strcmp(it->kind, "xid") == 0)
				have79 = true;
		if (!g->lost || have79)
			continue;
		e = entry_of(sum, "xid", g->bus, 79);
		e->pseudo = true;
		e->count = 1;
		e->first_boot = e->last_boot = g->lost_boot;
		e->first_wall = e->last_wall = g->lost_wall;
	}
	GD_VEC_EACH(sum->entries, struct gd_xid_entry, e) {
		const struct gd_xid_info *x = e->info;
		struct gd_xid_gpu *g = NULL;

		GD_VEC_EACH(sum->gpus, struct gd_xid_gpu, it)
			if (strcmp(it->bus, e->bus) == 0)
				g = it;
		if (g && g->uuid[0])
			GD_STRSET(e->uuid, g->uuid);
		e->notes[0] = '\0';
		if (strcmp(e->kind, "sxid") == 0) {
			e->sev = e->fatal ? GD_SEV_CRITICAL : GD_SEV_WARNING;
			GD_STRSET(e->action, e->fatal ? _("A fatal NVSwitch error: drain the node, reset the NVSwitch "
							  "fabric (reboot) and check the trays and cables")
						      : _("A non-fatal NVSwitch error: watch it; if it repeats, check the "
							  "NVLink trays and cables"));
			continue;
		}
		if (!x) {
			e->sev = GD_SEV_WARNING;
			GD_STRSET(e->action, _("Not in gpudoctor's catalogue: look the code up in NVIDIA's Xid catalogue "
					       "(docs.nvidia.com/deploy/xid-errors)."));
			note(e, _("unknown code"));
		} else {
			e->sev = x->sev;
			GD_STRSET(e->action, _(x->action));
		}
		if (e->pseudo)
			note(e, _("the driver said the GPU fell off the bus without an Xid 79 line (boot-time form)"));
		if (e->code == 45) {
			if (e->secondary == e->count) {
				e->sev = GD_SEV_INFO;
				GD_STRSET(e->action, _("Follows another Xid or an OOM kill on this GPU: follow those; "
						       "nothing to do for this one."));
				note(e, _("secondary"));
			} else if (e->secondary) {
				snprintf(buf, sizeof buf, _("%llu of %llu follow another Xid or a kill"),
					 (unsigned long long)e->secondary, (unsigned long long)e->count);
				note(e, buf);
			}
		}
		if (e->storm_max >= sum->storm_count) {
			snprintf(buf, sizeof buf, _("storm: %llu within %.0f s"), (unsigned long long)e->storm_max,
				 sum->storm_window_s);
			note(e, buf);
			e->sev = at_least(e->sev, GD_SEV_WARNING);
		}
		if (e->code == 48 || e->code == 63 || e->code == 64 || e->code == 94 || e->code == 95) {
			switch (gd_xid_row_remap_state(snap, e->bus)) {
			case GD_REMAP_PENDING:
				note(e, _("row remap pending: reset the GPU to activate it"));
				break;
			case GD_REMAP_FAILED:
				note(e, _("row remapping failed: drain the GPU and RMA it"));
				e->sev = GD_SEV_CRITICAL;
				break;
			case GD_REMAP_NONE:
				break;
			case GD_REMAP_UNKNOWN:
				note(e, _("row-remap state unknown without NVML: see nvidia-smi -q -d ROW_REMAPPER"));
				break;
			}
		}
		if (e->code == 154) {
			static const enum gd_severity by_action[] = { GD_SEV_INFO, GD_SEV_CRITICAL, GD_SEV_CRITICAL,
								      GD_SEV_WARNING, GD_SEV_CRITICAL };

			if (e->action_code.ok && e->action_code.v < 5) {
				e->sev = by_action[e->action_code.v];
				if (e->action_code.v == 0)
					GD_STRSET(e->action, _("The driver requires no recovery action any more."));
				else
					snprintf(e->action, sizeof e->action,
						 _("The driver requires: %s (action %llu). Drain the GPU and do it."),
						 e->action_name[0] ? e->action_name : "?",
						 (unsigned long long)e->action_code.v);
			} else {
				note(e, _("recovery action not readable from the line"));
			}
		}
		if (e->code != 79 && e->code != 154 && e->after_lost == e->count && e->count) {
			e->sev = GD_SEV_INFO;
			note(e, _("after the GPU fell off the bus (Xid 79): a consequence, not a cause"));
		} else if (e->code != 79 && e->code != 154 && e->after_lost) {
			snprintf(buf, sizeof buf, _("%llu after the GPU fell off the bus"), (unsigned long long)e->after_lost);
			note(e, buf);
		}
	}
}

int gd_xid_summary_worst(const struct gd_xid_summary *sum)
{
	int w = 0;

	GD_VEC_EACH(sum->entries, const struct gd_xid_entry, e)
		if ((int)e->sev > w)
			w = (int)e->sev;
	return w;
}
