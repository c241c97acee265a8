/*
 * rule_gpu_health.c - a GPU or its driver is broken: gpu.lost,
 * gpu.monitor_stuck, gpu.reset_required, driver.version_mismatch,
 * driver.nvml_unavailable.
 *
 * Mechanism.  A GPU that falls off the bus (Xid 79, 掉卡) answers every
 * NVML call with GPU_IS_LOST; a wedged driver makes NVML calls hang (the
 * collector gives each call a deadline and records the one that missed it);
 * drivers of the R570 era name the recovery a GPU needs (NVML field 230:
 * GPU reset, node reboot, drain P2P, drain and reset).  After a driver
 * upgrade without a reboot the old kernel module stays loaded and nvmlInit
 * fails with LIB_RM_VERSION_MISMATCH; without the NVIDIA container runtime
 * (or with a broken library) NVML cannot start although GPUs are there.
 *
 * Evidence (no thresholds: any occurrence counts):
 *   gpu.lost            gpus[].lost = 1 in any snapshot of the window (the
 *                       kernel-log side, Xid 79, comes with issue 4).
 *   gpu.monitor_stuck   nvml.status "stuck" in any snapshot; the call that
 *                       did not return (nvml.stuck_call) names the GPU.
 *   gpu.reset_required  gpus[].recovery_action != 0 (NVML side).
 *   driver.version_mismatch  nvml.init_error LIB_RM_VERSION_MISMATCH, or the
 *                       kernel module's version (/proc/driver/nvidia/version)
 *                       differing from the one NVML reports.
 *   driver.nvml_unavailable  NVML loaded but failed or was denied at init or
 *                       enumeration; or no NVML library while NVIDIA GPUs
 *                       bound to the nvidia driver sit on the PCI bus.  Not
 *                       for DRIVER_NOT_LOADED (driver.not_loaded) or the
 *                       version mismatch (driver.version_mismatch).
 *
 * Worked example: nvml.status "stuck", stuck_call "nvmlDeviceGetPowerUsage
 * (GPU 0)", timeout 5 s -> critical gpu.monitor_stuck on gpu0: "NVML call
 * nvmlDeviceGetPowerUsage did not return within 5 s: the driver is wedged;
 * the GPUs after it were not read and their values are withdrawn."
 */
#include "rules/rule_gpu.h"
#include "rules/rule_gpu_pci.h"

/* What one side of a shared rule found; the kernel-log side (issue 4) adds
 * its own and the rule merges them. */
struct side {
	size_t judged, fired;
};

/* ---- gpu.lost ---------------------------------------------------------- */

static bool seen_before(const struct gd_window *w, size_t upto, const struct gd_gpu *g)
{
	for (size_t i = upto + 1; i < w->n; i++) {
		const struct gd_gpu *x = gpu_match(w->snaps[i], g);

		if (x && x->lost.ok && x->lost.v)
			return true;
	}
	return false;
}

/* NVML side: GPUs answering GPU_IS_LOST, newest snapshot first. */
static void lost_from_nvml(struct gd_rule_ctx *rc, struct gd_findings *out, struct side *sd)
{
	for (size_t i = rc->w->n; i-- > 0;) {
		const struct gd_snapshot *s = rc->w->snaps[i];

		GD_VEC_EACH(s->gpus, const struct gd_gpu, g) {
			struct gd_finding *f;

			sd->judged++;
			if (!g->lost.ok || !g->lost.v || seen_before(rc->w, i, g))
				continue;
			sd->fired++;
			f = gd_finding_add(rc, out, rc->rule->severity, "%s", gpu_name(g).s);
			if (i + 1 < rc->w->n)
				/* TRANSLATORS: gpu0 (0000:3b:00.0)<" (" model ")" or nothing> fell off the bus (掉卡) */
				gd_finding_summary(f, _("%s%s%s%s fell off the bus: NVML answers GPU_IS_LOST (in an earlier "
							"snapshot of the window)."),
						   gpu_name(g).s, g->name[0] ? " (" : "", g->name, g->name[0] ? ")" : "");
			else
				gd_finding_summary(f, _("%s%s%s%s fell off the bus: NVML answers GPU_IS_LOST."), gpu_name(g).s,
						   g->name[0] ? " (" : "", g->name, g->name[0] ? ")" : "");
			gd_finding_ev(f, "lost", 1, "", NAN);
			if (g->uuid[0])
				gd_finding_ev_text(f, "uuid", g->uuid);
		}
	}
}

enum gd_verdict gd_rule_gpu_lost_nvml(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	struct side nv = { 0, 0 };
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	lost_from_nvml(rc, out, &nv);
	return nv.fired ? GD_VERDICT_FIRED : GD_VERDICT_CLEAR;
}

/* ---- gpu.monitor_stuck ------------------------------------------------- */

/* The GPU a stuck call names ("nvmlDeviceGetPowerUsage (GPU 3)"), or -1. */
static long stuck_gpu(const char *call)
{
	const char *p = strstr(call, "(GPU ");
	unsigned long n = 0;
	size_t digits = 0;

	if (!p)
		return -1;
	for (p += 5; *p >= '0' && *p <= '9' && digits < 6; p++, digits++)
		n = n * 10 + (unsigned long)(*p - '0');
	return digits && *p == ')' ? (long)n : -1; /* NVML counts GPUs in the tens */
}

enum gd_verdict gd_rule_gpu_monitor_stuck(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *s = NULL;
	size_t judged = 0, stuck = 0;
	const struct gd_gpu *g = NULL;
	struct gd_finding *f;
	char subject[80];
	long idx;

	for (size_t i = 0; i < rc->w->n; i++) {
		const struct gd_snapshot *x = rc->w->snaps[i];

		if (strcmp(x->nvml.status, "stuck") == 0) {
			s = x;
			stuck++;
		}
		judged += strcmp(x->nvml.status, "ok") == 0 || strcmp(x->nvml.status, "stuck") == 0;
	}
	if (!s) {
		const struct gd_snapshot *b = gd_window_last(rc->w);

		if (judged)
			return GD_VERDICT_CLEAR;
		return gd_rule_unknown(rc, _("no GPU evidence: %s"), b && b->nvml.reason[0] ? b->nvml.reason
									   : _("NVML not collected"));
	}
	idx = stuck_gpu(s->nvml.stuck_call);
	if (idx >= 0)
		g = GD_FIND_PREV_U64(s, gpus, struct gd_gpu, index, (uint64_t)idx);
	if (g)
		snprintf(subject, sizeof subject, "%s", gpu_name(g).s);
	else if (idx >= 0)
		snprintf(subject, sizeof subject, "gpu%ld", idx);
	else
		snprintf(subject, sizeof subject, "nvml");
	f = gd_finding_add(rc, out, rc->rule->severity, "%s", subject);
	if (stuck > 1)
		gd_finding_summary(f, _("NVML call %s did not return within %g s (in several snapshots): the driver is "
					"wedged; the GPUs after it were not read and their values are withdrawn, not "
					"repeated."),
				   s->nvml.stuck_call[0] ? s->nvml.stuck_call : _("(unnamed)"),
				   s->nvml.timeout_s.ok ? s->nvml.timeout_s.v : 0.0);
	else
		gd_finding_summary(f, _("NVML call %s did not return within %g s: the driver is wedged; the GPUs after it "
					"were not read and their values are withdrawn, not repeated."),
				   s->nvml.stuck_call[0] ? s->nvml.stuck_call : _("(unnamed)"),
				   s->nvml.timeout_s.ok ? s->nvml.timeout_s.v : 0.0);
	gd_finding_ev_text(f, "stuck_call", s->nvml.stuck_call[0] ? s->nvml.stuck_call : "(unnamed)");
	if (s->nvml.timeout_s.ok)
		gd_finding_ev(f, "timeout_s", s->nvml.timeout_s.v, "s", NAN);
	gd_finding_ev(f, "stuck_snapshots", (double)stuck, "snapshots", NAN);
	return GD_VERDICT_FIRED;
}

/* ---- gpu.reset_required ------------------------------------------------ */

/* The action's name: evidence text as it is, translated (_()) where a
 * summary says it. */
static const char *action_name(uint64_t a)
{
	/* TRANSLATORS: NVML's GPU recovery actions (field 230), said in
	 * "gpu0 needs a <action> before it can be used again" */
	static const char *const names[] = { N_("none"), N_("GPU reset"), N_("node reboot"), N_("drain P2P"),
					     N_("drain and reset"), N_("recover IMEX domain") };

	return a < sizeof names / sizeof names[0] ? names[a] : N_("unknown action");
}

/* NVML side: the recovery action (field 230). */
static void reset_from_nvml(struct gd_rule_ctx *rc, struct gd_findings *out, struct side *sd)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);

	GD_VEC_EACH(b->gpus, const struct gd_gpu, g) {
		unsigned long long idx = g->index.ok ? (unsigned long long)g->index.v : 0;
		struct gd_finding *f;
		uint64_t a;

		if (!gpu_live(g) || !g->recovery_action.ok)
			continue;
		sd->judged++;
		a = g->recovery_action.v;
		if (a == 0)
			continue;
		sd->fired++;
		f = gd_finding_add(rc, out, rc->rule->severity, "%s", gpu_name(g).s);
		gd_finding_summary(f, _("%s needs a %s before it can be used again (NVML recovery action %llu)."),
				   gpu_name(g).s, _(action_name(a)), (unsigned long long)a);
		switch (a) {
		case 1:
			gd_finding_remedy(f, _("Drain the GPU's jobs and reset it: nvidia-smi -r -i %llu."), idx);
			break;
		case 2:
			gd_finding_remedy(f, _("Drain the node and reboot it: a GPU reset is not enough."));
			break;
		case 3:
			gd_finding_remedy(f, _("Drain peer-to-peer traffic: stop the jobs that use this GPU's NVLink peers, "
					    "then check nvidia-smi -q -i %llu again."), idx);
			break;
		case 4:
			gd_finding_remedy(f, _("Drain every job on the GPU and its peers, then reset it: nvidia-smi -r -i "
					    "%llu."), idx);
			break;
		default:
			break;
		}
		gd_finding_ev(f, "recovery_action", (double)a, "", 0);
		gd_finding_ev_text(f, "action", action_name(a));
	}
}

enum gd_verdict gd_rule_gpu_reset_required_nvml(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	struct side nv = { 0, 0 };
	enum gd_verdict v;

	if (gpu_none(rc, b, &v))
		return v;
	reset_from_nvml(rc, out, &nv);
	if (nv.fired)
		return GD_VERDICT_FIRED;
	if (!nv.judged)
		return gpu_field_unknown(rc, b, "recovery_action",
					 _("GPU recovery action (NVML field 230, drivers of the 12.8 era and newer)"));
	return GD_VERDICT_CLEAR;
}

/* ---- driver.version_mismatch ------------------------------------------- */

/* True when NVML's version ("12.550.54.15") does not end in the kernel
 * module's ("550.54.15"); false when either is missing. */
static bool versions_differ(const struct gd_snapshot *s)
{
	size_t ln, lk;

	if (!s->nvml.nvml_version[0] || !s->driver.version[0])
		return false;
	ln = strlen(s->nvml.nvml_version);
	lk = strlen(s->driver.version);
	return ln < lk || strcmp(s->nvml.nvml_version + ln - lk, s->driver.version) != 0 ||
	       (ln > lk && s->nvml.nvml_version[ln - lk - 1] != '.');
}

enum gd_verdict gd_rule_driver_version_mismatch(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	bool init_mismatch, differ;
	struct gd_finding *f;

	if (!b)
		return gd_rule_unknown(rc, _("no snapshot"));
	init_mismatch = strcmp(b->nvml.init_error, "LIB_RM_VERSION_MISMATCH") == 0;
	differ = versions_differ(b);
	if (!init_mismatch && !differ) {
		if (strcmp(b->nvml.status, "ok") == 0 ||
		    (strcmp(b->nvml.status, "stuck") == 0 && b->nvml.driver_version[0]))
			return GD_VERDICT_CLEAR; /* nvmlInit got past its version check */
		return gd_rule_unknown(rc, _("NVML did not start, so its version check did not run: %s"),
				       b->nvml.reason[0] ? b->nvml.reason : _("NVML not collected"));
	}
	f = gd_finding_add(rc, out, rc->rule->severity, "driver");
	if (init_mismatch && b->driver.version[0])
		/* TRANSLATORS: NVML (<library file>) ... kernel module (version <550.54.15>) */
		gd_finding_summary(f, _("NVML (%s) refuses to start: it does not match the loaded nvidia kernel module "
					"(version %s)."),
				   b->nvml.library[0] ? b->nvml.library : "libnvidia-ml.so.1", b->driver.version);
	else if (init_mismatch)
		gd_finding_summary(f, _("NVML (%s) refuses to start: it does not match the loaded nvidia kernel module."),
				   b->nvml.library[0] ? b->nvml.library : "libnvidia-ml.so.1");
	else
		gd_finding_summary(f, _("The nvidia kernel module is version %s but NVML is %s."), b->driver.version,
				   b->nvml.nvml_version);
	if (b->nvml.init_error[0])
		gd_finding_ev_text(f, "init_error", b->nvml.init_error);
	if (b->driver.version[0])
		gd_finding_ev_text(f, "kernel_module_version", b->driver.version);
	if (b->nvml.nvml_version[0])
		gd_finding_ev_text(f, "nvml_version", b->nvml.nvml_version);
	if (b->nvml.library[0])
		gd_finding_ev_text(f, "library", b->nvml.library);
	return GD_VERDICT_FIRED;
}

/* ---- driver.nvml_unavailable ------------------------------------------- */

/* NVIDIA GPUs on the PCI bus bound to the nvidia driver (records without
 * a bus id are lspci fragments, not GPUs); *seen says whether the PCI
 * evidence was read at all. */
static size_t pci_nvidia_gpus(const struct gd_snapshot *s, bool *seen)
{
	size_t n = 0;

	*seen = false;
	GD_VEC_EACH(s->sources, const struct gd_source, src) {
		if (strstr(src->name, "pci") && strcmp(src->status, "ok") == 0)
			*seen = true;
	}
	GD_VEC_EACH(s->pci_gpus, const struct gd_pci_gpu, p) {
		if (!gpci_is_gpu(p))
			continue;
		*seen = true;
		n += strcmp(p->driver, "nvidia") == 0;
	}
	return n;
}

enum gd_verdict gd_rule_driver_nvml_unavailable(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	const char *st;
	size_t gpus;
	bool seen, broken;
	struct gd_finding *f;

	if (!b)
		return gd_rule_unknown(rc, _("no snapshot"));
	st = b->nvml.status;
	if (!st[0])
		return gd_rule_unknown(rc, _("NVML not collected"));
	if (strcmp(st, "ok") == 0 || strcmp(st, "stuck") == 0)
		return GD_VERDICT_CLEAR; /* stuck is gpu.monitor_stuck */
	if (strcmp(b->nvml.init_error, "LIB_RM_VERSION_MISMATCH") == 0 ||
	    strcmp(b->nvml.init_error, "DRIVER_NOT_LOADED") == 0)
		return GD_VERDICT_CLEAR; /* driver.version_mismatch, driver.not_loaded */
	gpus = pci_nvidia_gpus(b, &seen);
	/* failed or denied: the library is there, and it found the driver. */
	broken = strcmp(st, "failed") == 0 || strcmp(st, "denied") == 0;
	if (!broken && b->driver.loaded.ok && b->driver.loaded.v == 0)
		return GD_VERDICT_CLEAR; /* no library and no module: driver.not_loaded */
	if (!broken && !gpus) {
		if (seen)
			return GD_VERDICT_CLEAR; /* no NVIDIA GPU driven by nvidia: nothing to monitor */
		return gd_rule_unknown(rc, _("no NVML (%s) and no PCI evidence of NVIDIA GPUs"), b->nvml.reason);
	}
	f = gd_finding_add(rc, out, rc->rule->severity, "nvml");
	if (gpus)
		/* TRANSLATORS: %s after "NVML is" is NVML's status word (failed,
		 * denied, absent), then the collector's reason */
		gd_finding_summary(f, _("%zu NVIDIA GPUs sit on the PCI bus with the nvidia driver, but NVML is %s: %s."),
				   gpus, st, b->nvml.reason[0] ? b->nvml.reason : _("no reason given"));
	else
		gd_finding_summary(f, _("NVML is installed but %s: %s."), st,
				   b->nvml.reason[0] ? b->nvml.reason : _("no reason given"));
	if (strcmp(st, "denied") == 0)
		gd_finding_remedy(f, _("Give gpudoctor access to /dev/nvidiactl and /dev/nvidia* (run it as root, in the "
				       "video group, or in a container started with the NVIDIA runtime: --gpus all)."));
	gd_finding_ev_text(f, "nvml_status", st);
	if (b->nvml.init_error[0])
		gd_finding_ev_text(f, "init_error", b->nvml.init_error);
	if (gpus)
		gd_finding_ev(f, "pci_gpus", (double)gpus, "gpus", NAN);
	gd_finding_ev_text(f, "library", b->nvml.library[0] ? b->nvml.library : "libnvidia-ml.so.1");
	return GD_VERDICT_FIRED;
}
