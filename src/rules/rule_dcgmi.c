/*
 * rule_dcgmi.c - what NVIDIA DCGM's command line proves (src/offline/dcgmi.c:
 * job_log[] records of kind "dcgmi_*" from a pasted `dcgmi diag` table, a
 * `dcgmi dmon` stream or a `dcgmi health -c` report), added to the
 * catalogued rule of the same cause: the rule's own evaluation runs first,
 * then each dcgmi verdict of its kinds adds a finding on the GPU it names
 * (dcgmi numbers GPUs as NVML does: gpu0), and the rule has fired.
 *
 *   dcgmi diag, a Warning that names its cause:
 *     NVLink link down                       gpu.nvlink_errors, warning
 *     persistence mode disabled              gpu.persistence_off, info
 *   dcgmi diag, a test that failed on a GPU (DCGM's diag is an active probe,
 *   as gpudoctor probe is): the probe rule of the same kind of test
 *     GPU Memory, Memtest, memory            probe.gpu_memory_errors, critical
 *     Memory Bandwidth                       probe.gpu_mem_bandwidth_low, warning
 *     PCIe                                   probe.pcie_bandwidth_low, warning
 *     Targeted Stress/Power, SM Stress, Pulse Test, Diagnostic
 *                                            probe.gpu_compute_slow, warning
 *     Diagnostic whose text says the results differ (a miscompare)
 *                                            probe.gpu_compute_mismatch, critical
 *     Page Retirement/Row Remap              gpu.row_remap_pending, critical
 *     NVML Library, CUDA Main Library, CUDA Toolkit Libraries, Permissions and
 *     OS Blocks: the GPU's libraries or device files cannot be used, so the
 *     GPU evidence is missing (not its hardware at fault)
 *                                            driver.nvml_unavailable, warning
 *   dcgmi dmon's XIDER field                 gpu.xid, the catalogue's severity
 *   dcgmi health -c, an incident (DCGM's message decides; a "Failure" is
 *   critical, a "Warning" the rule's severity):
 *     PCIe replays per minute                gpu.pcie_replays, warning
 *     clocks event due to thermal violation  gpu.thermal_throttle, warning
 *     clocks event due to power violation    gpu.power_capped, warning
 *     double-bit ECC, uncorrectable memory errors, an uncontained error (Xid 95)
 *                                            gpu.ecc_uncorrectable, critical
 *     a pending retired page or row remap    gpu.row_remap_pending, critical
 *     row remapping failed, retired pages at the limit
 *                                            gpu.row_remap_failed, critical
 *     the NVLINK system                      gpu.nvlink_errors, warning
 *
 * Left to the report (no cause of the catalogue): a failed Denylist,
 * Environment Variables or Inforom test, a test gpudoctor does not know, a
 * health incident of the InfoROM, driver, SM or another entity than a GPU.
 * A Pass row or "Overall Health: Healthy" is not proof of health and adds
 * nothing.  Example: "| GPU ID: 0 | Warning | PCIe system: Warning -
 * Detected more than 8 PCIe replays per minute for GPU 0: 13": gpu.pcie_replays
 * on gpu0, warning, with the message and its line.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "klog/xid.h"
#include "rules/rule_job.h"
#include "rules/rules.h"

/* One kind of dcgmi record that a rule reads, and how it is said. */
struct dcgmi_kind {
	const char *kind;
	enum gd_severity sev;
	gd__job_fill_fn fill;
};

/* The last snapshot when it holds dcgmi's verdicts (dcgmi.c), else NULL. */
static const struct gd_snapshot *dcgmi_read(const struct gd_rule_ctx *rc)
{
	const struct gd_snapshot *s = gd_window_last(rc->w);

	if (s)
		GD_VEC_EACH(s->job_log, const struct gd_job_log, r)
			if (strncmp(r->kind, "dcgmi_", 6) == 0)
				return s;
	return NULL;
}

/* ---- what dcgmi says (dcgmi diag, dmon), beside the rule's own evidence ----------- */


/* Runs the rule's own evaluation, then adds dcgmi's verdicts of its kinds. */
static enum gd_verdict with_dcgmi(struct gd_rule_ctx *rc, struct gd_findings *out, gd_rule_fn own,
				  const struct dcgmi_kind *k, size_t n)
{
	enum gd_verdict v = own(rc, out);
	const struct gd_snapshot *s = dcgmi_read(rc);
	size_t found = 0;

	for (size_t i = 0; s && i < n; i++)
		found += gd__job_per_subject(rc, out, s, k[i].kind, k[i].sev, true, k[i].fill);
	if (found) {
		rc->why[0] = '\0';
		return GD_VERDICT_FIRED;
	}
	return v;
}

static void fill_dcgmi_nvlink(struct gd_rule_ctx *rc, struct gd_finding *f, const struct gd_job_log *r)
{
	(void)rc;
	if (r->what[0])
		gd_finding_summary(f, _("dcgmi diag (%s test) found NVLink links down on %s: \"%.160s\" (%s:%llu)."),
				   r->what, f->subject, r->text, r->file, (unsigned long long)r->line.v);
	else
		gd_finding_summary(f, _("dcgmi diag (a test) found NVLink links down on %s: \"%.160s\" (%s:%llu)."),
				   f->subject, r->text, r->file, (unsigned long long)r->line.v);
	gd_finding_remedy(f, _("%s Check the links with nvidia-smi nvlink -s and nvidia-smi topo -m."),
			  tr(rc->rule->remedy));
}


static void fill_dcgmi_persistence(struct gd_rule_ctx *rc, struct gd_finding *f, const struct gd_job_log *r)
{
	gd_finding_summary(f, _("dcgmi diag says persistence mode is disabled on %s (%s:%llu)."), f->subject, r->file,
			   (unsigned long long)r->line.v);
	gd_finding_remedy(f, "%s", tr(rc->rule->remedy));
}


/* dcgmi dmon's XIDER field: the last Xid the GPU raised (no time, no count). */
static void fill_dcgmi_xid(struct gd_rule_ctx *rc, struct gd_finding *f, const struct gd_job_log *r)
{
	const struct gd_xid_info *x = gd_xid_lookup(r->value.v);

	(void)rc;
	if (x)
		f->severity = x->sev;
	gd_finding_summary(f, _("dcgmi dmon reports Xid %llu as the last Xid of %s (%s: %s; %s:%llu); dmon gives no time "
				"and no count: read the kernel log for both."),
			   (unsigned long long)r->value.v, f->subject, x ? x->mnemonic : _("not in gpudoctor's catalogue"),
			   x ? tr(x->meaning) : _("see NVIDIA's Xid table"), r->file, (unsigned long long)r->line.v);
	gd_finding_remedy(f, "%s", x ? tr(x->action) : tr(rc->rule->remedy));
	gd_finding_ev(f, "code", (double)r->value.v, "", NAN);
}



/* A dcgmi diag test that failed on a GPU: evidence for the probe rule of the
 * same kind of test (DCGM's diag is an active probe, as gpudoctor probe is). */
static void fill_dcgmi_fail(struct gd_rule_ctx *rc, struct gd_finding *f, const struct gd_job_log *r)
{
	gd_finding_summary(f, _("dcgmi diag's %s test failed on %s: \"%.160s\" (%s:%llu)."), r->what[0] ? r->what : "",
			   f->subject, r->text, r->file, (unsigned long long)r->line.v);
	gd_finding_remedy(f, "%s", tr(rc->rule->remedy));
	gd_finding_ev_text(f, "dcgmi_test", r->what);
}

/* A deployment test that found the GPU's libraries or device files unusable. */
static void fill_dcgmi_software(struct gd_rule_ctx *rc, struct gd_finding *f, const struct gd_job_log *r)
{
	gd_finding_summary(f, _("dcgmi diag's %s test failed on %s: \"%.160s\" (%s:%llu); DCGM could not use the GPU's "
				"libraries or device files, so its other tests say nothing of the hardware."),
			   r->what[0] ? r->what : "", f->subject, r->text, r->file, (unsigned long long)r->line.v);
	gd_finding_remedy(f, _("Fix what the test names (the driver's libraries, their version, the device files' "
			       "permissions); in a container, run it with the NVIDIA container runtime; then rerun "
			       "dcgmi diag."));
	gd_finding_ev_text(f, "dcgmi_test", r->what);
}

/* An incident of dcgmi health -c: its system, DCGM's verdict, the message. */
static void fill_dcgmi_health(struct gd_rule_ctx *rc, struct gd_finding *f, const struct gd_job_log *r)
{
	if (r->value.ok && r->value.v >= 2)
		f->severity = GD_SEV_CRITICAL;
	/* TRANSLATORS: dcgmi health (<DCGM's system name, e.g. "PCIe system">: <Warning|Failure>) on gpu0: "<DCGM's message>" */
	gd_finding_summary(f, _("dcgmi health (%s: %s) on %s: \"%.200s\" (%s:%llu)."), r->what,
			   r->value.ok && r->value.v >= 2 ? "Failure" : "Warning", f->subject, r->text, r->file,
			   (unsigned long long)r->line.v);
	gd_finding_remedy(f, "%s", tr(rc->rule->remedy));
	gd_finding_ev_text(f, "dcgmi_system", r->what);
}

#define DCGMI_RULE(id, own, ...)                                                                  \
	enum gd_verdict gd_rule_job_##id(struct gd_rule_ctx *rc, struct gd_findings *out)         \
	{                                                                                         \
		static const struct dcgmi_kind k[] = { __VA_ARGS__ };                             \
		return with_dcgmi(rc, out, own, k, sizeof k / sizeof k[0]);                       \
	}

#define FAIL(kind, sev) { kind, sev, fill_dcgmi_fail }
#define HEALTH(kind, sev) { kind, sev, fill_dcgmi_health }
#define W GD_SEV_WARNING
#define C GD_SEV_CRITICAL

DCGMI_RULE(gpu_nvlink_errors, gd_rule_gpu_nvlink_errors, { "dcgmi_nvlink_down", W, fill_dcgmi_nvlink },
	   HEALTH("dcgmi_health_nvlink", W))
DCGMI_RULE(gpu_persistence_off, gd_rule_gpu_persistence_off, { "dcgmi_persistence_off", GD_SEV_INFO, fill_dcgmi_persistence })
DCGMI_RULE(gpu_xid, gd_rule_gpu_xid, { "dcgmi_xid", W, fill_dcgmi_xid })
DCGMI_RULE(probe_gpu_memory_errors, gd_rule_probe_gpu_memory_errors, FAIL("dcgmi_fail_memory", C))
DCGMI_RULE(probe_gpu_mem_bandwidth_low, gd_rule_probe_gpu_mem_bandwidth_low, FAIL("dcgmi_fail_mem_bandwidth", W))
DCGMI_RULE(probe_pcie_bandwidth_low, gd_rule_probe_pcie_bandwidth_low, FAIL("dcgmi_fail_pcie", W))
DCGMI_RULE(probe_gpu_compute_slow, gd_rule_probe_gpu_compute_slow, FAIL("dcgmi_fail_compute", W))
DCGMI_RULE(probe_gpu_compute_mismatch, gd_rule_probe_gpu_compute_mismatch, FAIL("dcgmi_fail_mismatch", C))
DCGMI_RULE(gpu_row_remap_pending, gd_rule_gpu_row_remap_pending, FAIL("dcgmi_fail_row_remap", C),
	   HEALTH("dcgmi_health_remap_pending", C))
DCGMI_RULE(gpu_row_remap_failed, gd_rule_gpu_row_remap_failed, HEALTH("dcgmi_health_remap_failed", C))
DCGMI_RULE(gpu_ecc_uncorrectable, gd_rule_joblog_gpu_ecc_uncorrectable, HEALTH("dcgmi_health_ecc", C))
DCGMI_RULE(gpu_pcie_replays, gd_rule_gpu_pcie_replays, HEALTH("dcgmi_health_pcie", W))
DCGMI_RULE(gpu_thermal_throttle, gd_rule_gpu_thermal_throttle, HEALTH("dcgmi_health_thermal", W))
DCGMI_RULE(gpu_power_capped, gd_rule_gpu_power_capped, HEALTH("dcgmi_health_power", W))
DCGMI_RULE(driver_nvml_unavailable, gd_rule_joblog_driver_nvml_unavailable,
	   { "dcgmi_fail_software", W, fill_dcgmi_software })
