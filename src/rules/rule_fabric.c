/*
 * rule_fabric.c - the NVSwitch fabric of HGX boards (CAUSES.md, FACTS.md §7.1).
 *
 * gpu.fabric_not_ready (critical): the fabric Fabric Manager programs is not
 *   up, and every CUDA program fails (error 802, "system not yet
 *   initialized") while nvidia-smi shows the GPUs.  Any of:
 *     - NVML: a GPU's fabric state is not started or in progress, or
 *       completed with an error status (one finding for those GPUs); a GPU
 *       that answers NOT_SUPPORTED (state 0, or the call) has no fabric;
 *     - the host: NVSwitches on the board and no nv-fabricmanager process
 *       (collect/fabric.c says how it looked; where it could not tell,
 *       nothing is said);
 *     - Fabric Manager's log: errors inside the look-back (klog/fmlog.c);
 *     - the job's log: CUDA error 802 (one finding per rank or host).
 *   Clear when any of these was read and none fired (a board without
 *   NVSwitches, GPUs without a fabric); not evaluated when none was read.
 *   Example: 8 GPUs in state "in progress", 6 NVSwitches, no nv-fabricmanager.
 *
 * gpu.nvswitch_errors: the kernel's SXid lines ("nvidia-nvswitchN: SXid
 *   (PCI:...): CODE, Fatal|Non-fatal, Link L ..."), one finding per switch
 *   and code (eight at most, the rest counted): critical when any line of it
 *   says Fatal, else warning; the links named, first and last time.  The
 *   driver's "Severity"/"Data" detail lines are not events (klog/parse.c).
 *   Example: SXid 20034 (Fatal, LTSSM Fault Up) x2 on 0000:05:00.0, links 62, 63.
 */
#include "rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "klog/klog.h"
#include "nvml/nvml.h"
#include "rules/rule_job.h"
#include "rules/rule_klog.h"

#define MAX_SWITCH_FINDINGS 8

/* ---- gpu.fabric_not_ready ------------------------------------------------------ */

static const char *state_name(uint64_t st)
{
	switch (st) {
	case 1:
		return _("not started");
	case 2:
		return _("in progress");
	case 3:
		return _("completed");
	default:
		return _("unknown");
	}
}

static bool gpu_not_ready(const struct gd_gpu *g)
{
	if (!g->fabric_state.ok || g->fabric_state.v == 0)
		return false;
	return g->fabric_state.v != 3 || (g->fabric_status.ok && g->fabric_status.v != 0);
}

/* One finding for every GPU whose fabric is not ready.  Returns whether any
 * GPU answered the fabric call. */
static bool nvml_part(struct gd_rule_ctx *rc, const struct gd_snapshot *s, struct gd_findings *out, enum gd_verdict *v)
{
	const struct gd_gpu *first = NULL;
	char list[128] = "";
	unsigned n = 0;
	bool read = false;
	struct gd_finding *f;

	GD_VEC_EACH(s->gpus, const struct gd_gpu, g) {
		read = read || g->fabric_state.ok;
		if (!gpu_not_ready(g))
			continue;
		if (!first)
			first = g;
		n++;
		if (strlen(list) < sizeof list - 8)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%llu", list[0] ? "," : "",
				 (unsigned long long)g->index.v);
	}
	if (!n)
		return read;
	if (n == 1)
		f = gd_finding_add(rc, out, GD_SEV_CRITICAL, "gpu%llu (%s)", (unsigned long long)first->index.v,
				   first->pci_bus_id);
	else
		f = gd_finding_add(rc, out, GD_SEV_CRITICAL, "gpus %s", list);
	if (first->fabric_state.v == 3)
		/* TRANSLATORS: <n> GPU(s) (NVML index <list>) ... with status <NVML error name> (<number>) */
		gd_finding_summary(f, P_("%u GPU (%s) registered with the NVSwitch fabric with an error: status %s (%llu); CUDA programs on it fail.",
					 "%u GPUs (%s) registered with the NVSwitch fabric with an error: the first's status %s (%llu); CUDA programs on them fail.",
					 n),
				   n, list, gd_nvml_error_name((int)first->fabric_status.v),
				   (unsigned long long)first->fabric_status.v);
	else
		/* TRANSLATORS: <n> GPU(s) (NVML index <list>): ... registration is "<not started, in progress>" */
		gd_finding_summary(f, P_("%u GPU (%s) has not joined the NVSwitch fabric: NVML's fabric registration is \"%s\"; until it completes, CUDA programs fail with error 802 (system not yet initialized) while nvidia-smi shows the GPU.",
					 "%u GPUs (%s) have not joined the NVSwitch fabric: NVML's fabric registration is \"%s\"; until it completes, CUDA programs fail with error 802 (system not yet initialized) while nvidia-smi shows the GPUs.",
					 n),
				   n, list, state_name(first->fabric_state.v));
	gd_finding_ev(f, "gpus", n, "", NAN);
	gd_finding_ev(f, "fabric_state", (double)first->fabric_state.v, "", NAN);
	if (first->fabric_status.ok)
		gd_finding_ev(f, "fabric_status", (double)first->fabric_status.v, "", 0);
	*v = GD_VERDICT_FIRED;
	return true;
}

/* NVSwitches without Fabric Manager; Fabric Manager's log.  Returns whether
 * either was read. */
static bool host_part(struct gd_rule_ctx *rc, const struct gd_snapshot *s, struct gd_findings *out, enum gd_verdict *v)
{
	const struct gd_fabric *fb = &s->fabric;
	bool read = false;
	struct gd_finding *f;

	if (fb->nvswitches.ok && (fb->nvswitches.v == 0 || fb->fm_running.ok))
		read = true;
	if (fb->nvswitches.ok && fb->nvswitches.v > 0 && fb->fm_running.ok && fb->fm_running.v == 0) {
		f = gd_finding_add(rc, out, GD_SEV_CRITICAL, "nv-fabricmanager");
		/* TRANSLATORS: <n> NVSwitch(es) ...; (<how gpudoctor looked, English>) */
		gd_finding_summary(f, P_("This board has %llu NVSwitch and Fabric Manager is not running (%s): the NVSwitch fabric is not set up, and every CUDA program fails with error 802 while nvidia-smi looks healthy.",
					 "This board has %llu NVSwitches and Fabric Manager is not running (%s): the NVSwitch fabric is not set up, and every CUDA program fails with error 802 while nvidia-smi looks healthy.",
					 fb->nvswitches.v),
				   (unsigned long long)fb->nvswitches.v, fb->fm_evidence);
		gd_finding_ev(f, "nvswitches", (double)fb->nvswitches.v, "", NAN);
		gd_finding_ev(f, "fm_running", 0, "", NAN);
		*v = GD_VERDICT_FIRED;
	}
	if (fb->fm_log_errors.ok) {
		read = true;
		if (fb->fm_log_errors.v > 0) {
			const char *file = fb->fm_log[0] ? fb->fm_log : "fabricmanager.log";

			f = gd_finding_add(rc, out, GD_SEV_CRITICAL, "%s", file);
			/* TRANSLATORS: Fabric Manager's log (<file>) reports <n> error(s) (<m> fatal); the latest (<its time>): <its text> */
			gd_finding_summary(f, P_("Fabric Manager's log (%s) reports %llu error (%llu fatal); the latest (%s): %s",
						 "Fabric Manager's log (%s) reports %llu errors (%llu fatal); the latest (%s): %s",
						 fb->fm_log_errors.v),
					   file, (unsigned long long)fb->fm_log_errors.v,
					   (unsigned long long)(fb->fm_log_fatal.ok ? fb->fm_log_fatal.v : 0),
					   fb->fm_log_last_time[0] ? fb->fm_log_last_time : _("no time stamp"), fb->fm_log_last);
			gd_finding_ev(f, "fm_log_errors", (double)fb->fm_log_errors.v, "", 0);
			if (fb->fm_log_fatal.ok)
				gd_finding_ev(f, "fm_log_fatal", (double)fb->fm_log_fatal.v, "", NAN);
			gd_finding_ev_text(f, "latest", fb->fm_log_last);
			*v = GD_VERDICT_FIRED;
		}
	}
	return read;
}

static void fill_not_ready(struct gd_rule_ctx *rc, struct gd_finding *f, const struct gd_job_log *r)
{
	(void)rc;
	gd_finding_summary(f, _("The job's CUDA initialisation failed with error 802, \"system not yet initialized\" (%s:%llu): on an NVSwitch board the fabric is not set up (Fabric Manager is not running, or failed)."),
			   r->file, (unsigned long long)r->line.v);
}

enum gd_verdict gd_rule_gpu_fabric_not_ready(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *s = gd_window_last(rc->w), *js;
	enum gd_verdict v = GD_VERDICT_CLEAR;
	bool read = nvml_part(rc, s, out, &v);

	read = host_part(rc, s, out, &v) || read;
	if ((js = gd__job_log_read(rc))) {
		read = true;
		if (gd__job_per_subject(rc, out, js, "cuda_not_ready", GD_SEV_CRITICAL, false, fill_not_ready))
			v = GD_VERDICT_FIRED;
	}
	if (v == GD_VERDICT_FIRED || read)
		return v;
	if (strstr(s->nvml.missing, "nvmlDeviceGetGpuFabricInfo"))
		return gd_rule_unknown(rc, _("this driver's NVML has no nvmlDeviceGetGpuFabricInfo, and neither the NVSwitches nor Fabric Manager's log were read"));
	if (s->fabric.nvswitches.ok)
		/* TRANSLATORS: <n> NVSwitches ... (<why, English>) */
		return gd_rule_unknown(rc, _("%llu NVSwitches, but whether Fabric Manager runs is not known (%s)"),
				       (unsigned long long)s->fabric.nvswitches.v,
				       s->fabric.fm_reason[0] ? s->fabric.fm_reason : _("no reason given"));
	return gd_rule_unknown(rc, _("no GPU fabric state, NVSwitch count, Fabric Manager log or job log in this snapshot"));
}

/* ---- gpu.nvswitch_errors ------------------------------------------------------- */

struct sw_code {
	const struct gd_klog_event *first, *last;
	uint64_t n, fatal, nonfatal;
	char links[96];
};

/* Adds the "Link N" of the line's text to the list (once). */
static void add_link(struct sw_code *c, const char *text)
{
	const char *p = strstr(text, "Link ");
	char num[12], *end;
	unsigned long l;
	size_t k;

	if (!p)
		return;
	l = strtoul(p + 5, &end, 10);
	if (end == p + 5 || l > 9999)
		return;
	snprintf(num, sizeof num, "%lu", l);
	for (const char *q = c->links; (q = strstr(q, num)); q += strlen(num)) {
		k = strlen(num);
		if ((q == c->links || q[-1] == ',') && (q[k] == ',' || q[k] == '\0'))
			return;
	}
	if (strlen(c->links) + strlen(num) + 2 < sizeof c->links)
		snprintf(c->links + strlen(c->links), sizeof c->links - strlen(c->links), "%s%s", c->links[0] ? "," : "",
			 num);
}

enum gd_verdict gd_rule_gpu_nvswitch_errors(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	enum gd_verdict v = GD_VERDICT_CLEAR;
	const struct gd_snapshot *s = klog_or_unknown(rc, &v);
	struct sw_code c[MAX_SWITCH_FINDINGS];
	size_t nc = 0, more = 0;
	char a[48], b[48];

	if (!s)
		return v;
	memset(c, 0, sizeof c);
	GD_VEC_EACH(s->klog, const struct gd_klog_event, ev) {
		size_t i;

		if (!is(ev, GD_KLOG_SXID) || !ev->code.ok)
			continue;
		for (i = 0; i < nc; i++)
			if (c[i].first->code.v == ev->code.v && strcmp(c[i].first->pci_bus_id, ev->pci_bus_id) == 0)
				break;
		if (i == nc) {
			if (nc == MAX_SWITCH_FINDINGS) {
				more++;
				continue;
			}
			c[nc++].first = ev;
		}
		c[i].last = ev;
		c[i].n++;
		if (strcmp(ev->severity, "fatal") == 0)
			c[i].fatal++;
		else if (strcmp(ev->severity, "non-fatal") == 0)
			c[i].nonfatal++;
		add_link(&c[i], ev->text);
	}
	for (size_t i = 0; i < nc; i++) {
		const struct gd_klog_event *e = c[i].first;
		const char *sw = e->process[0] ? e->process : "nvidia-nvswitch";
		struct gd_finding *f = gd_finding_add(rc, out, c[i].fatal ? GD_SEV_CRITICAL : GD_SEV_WARNING,
						      "NVSwitch %s SXid %llu", e->pci_bus_id[0] ? e->pci_bus_id : "?",
						      (unsigned long long)e->code.v);
		const char *what = c[i].fatal ? _("fatal") : c[i].nonfatal ? _("non-fatal") : _("severity not stated");

		/* TRANSLATORS: <switch name> (<PCI address>) logged SXid <code> (<fatal, non-fatal>: <the line's text>)
		 * <n> time(s), first <when>, last <when>; links <list> */
		gd_finding_summary(f, P_("%s (%s) logged SXid %llu (%s: %s) %llu time, first %s, last %s; links %s.",
					 "%s (%s) logged SXid %llu (%s: %s) %llu times, first %s, last %s; links %s.",
					 c[i].n),
				   sw, e->pci_bus_id[0] ? e->pci_bus_id : "?", (unsigned long long)e->code.v, what,
				   e->text[0] ? e->text : "-", (unsigned long long)c[i].n, when(a, sizeof a, e),
				   when(b, sizeof b, c[i].last), c[i].links[0] ? c[i].links : _("not named"));
		if (!c[i].fatal)
			gd_finding_remedy(f, "%s", _("A non-fatal NVSwitch error: the fabric stays up; if it repeats on the same links, reseat or check the NVLink trays and cables and plan a maintenance window."));
		gd_finding_ev(f, "count", (double)c[i].n, "", NAN);
		gd_finding_ev(f, "fatal", (double)c[i].fatal, "", 0);
		gd_finding_ev(f, "code", (double)e->code.v, "", NAN);
		if (c[i].links[0])
			gd_finding_ev_text(f, "links", c[i].links);
		if (i == 0 && more)
			gd_finding_ev(f, "other_switch_codes", (double)more, "", NAN);
		v = GD_VERDICT_FIRED;
	}
	return v;
}
