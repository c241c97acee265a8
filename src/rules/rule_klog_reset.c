/*
 * rule_klog_reset.c - gpu.reset_required from the kernel log: the GPU is
 * unusable until it is reset (or the node rebooted).
 *
 * Evidence, each critical:
 *   - the latest Xid 154 of a GPU names a recovery action other than None
 *     ("GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset
 *     Required)"): one finding per GPU, with the action;
 *   - GSP heartbeat/RPC time-outs without an Xid, a GSP-CrashCat report;
 *   - a driver call answered NV_ERR_RESET_REQUIRED;
 *   - the resource-free assertions of the driver's resource server,
 *       NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: (status == NV_OK)
 *             || (status == NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_client.c:844
 *     (then rs_server.c:259 and :1375 for the same object): freeing the
 *     GPU's objects failed with a status that is neither success nor "the
 *     GPU is in a full-chip reset", which happens when the GPU no longer
 *     answers the driver (real: open-gpu-kernel-modules#1045, after a
 *     GSP-CrashCat report; ninfer#12, after RPCs failed with 0x0f,
 *     NV_ERR_GPU_IS_LOST).  A process exit repeats the three lines for each
 *     of its objects, so the lines of one GPU are one finding with their
 *     count, first and last time.  A line names the GPU by the driver's
 *     number ("GPU0", klog rm_gpu) or bus id, or not at all: unnamed lines
 *     belong to the GPU the others name when there is exactly one.
 *     Example: 6 assertion lines at 16:31:50, two of them "GPU0": one
 *     finding on GPU0, assert_lines=6.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "klog/klog.h"
#include "rules/rule_klog.h"
#include "rules/rules.h"

/* An assertion line that names NV_ERR_GPU_IN_FULLCHIP_RESET (parse.c). */
static bool fullchip(const struct gd_klog_event *ev)
{
	return is(ev, GD_KLOG_RESET_REQUIRED) && strcmp(ev->detail, "NV_ERR_GPU_IN_FULLCHIP_RESET") == 0;
}

#define FC_GPUS 16

struct fc_gpu {
	char name[40];                          /* the subject: "GPU0", "GPU 0000:3b:00.0", "" unnamed */
	unsigned n;
	const struct gd_klog_event *first, *last;
};

static void fc_name(const struct gd_klog_event *ev, char *buf, size_t sz)
{
	if (ev->pci_bus_id[0])
		snprintf(buf, sz, "GPU %s", ev->pci_bus_id);
	else if (ev->rm_gpu.ok)
		snprintf(buf, sz, "GPU%llu", (unsigned long long)ev->rm_gpu.v);
	else
		buf[0] = '\0';
}

static void fc_count(struct fc_gpu *g, const struct gd_klog_event *ev)
{
	if (!g->n++)
		g->first = ev;
	g->last = ev;
}

/* One finding per GPU the assertions name; true when there was one. */
static bool fullchip_findings(struct gd_rule_ctx *rc, const struct gd_snapshot *s, struct gd_findings *out)
{
	struct fc_gpu gpus[FC_GPUS + 1];           /* [FC_GPUS]: the lines that name none */
	struct fc_gpu *none = &gpus[FC_GPUS];
	size_t ng = 0;
	char t1[48], t2[48];

	memset(gpus, 0, sizeof gpus);
	GD_VEC_EACH(s->klog, const struct gd_klog_event, ev) {
		char name[40];
		size_t i;

		if (!fullchip(ev))
			continue;
		fc_name(ev, name, sizeof name);
		if (!name[0]) {
			fc_count(none, ev);
			continue;
		}
		for (i = 0; i < ng && strcmp(gpus[i].name, name) != 0; i++)
			;
		if (i == ng) {
			if (ng == FC_GPUS) {
				fc_count(none, ev);
				continue;
			}
			snprintf(gpus[ng++].name, sizeof gpus[0].name, "%s", name);
		}
		fc_count(&gpus[i], ev);
	}
	if (none->n && ng == 1) {
		/* the unnamed lines are the one named GPU's */
		if (none->first < gpus[0].first)
			gpus[0].first = none->first;
		if (none->last > gpus[0].last)
			gpus[0].last = none->last;
		gpus[0].n += none->n;
		none->n = 0;
	}
	if (none->n) {
		gpus[ng] = *none;
		snprintf(gpus[ng++].name, sizeof gpus[0].name, "%s", "GPU (not named in the log)");
	}
	for (size_t i = 0; i < ng; i++) {
		struct gd_finding *f = gd_finding_add(rc, out, GD_SEV_CRITICAL, "%s", gpus[i].name);

		/* TRANSLATORS: <GPU0 or "GPU 0000:3b:00.0">; NV_OK and NV_ERR_GPU_IN_FULLCHIP_RESET are the driver's status names, keep them */
		gd_finding_summary(f, P_("The driver could not free the objects of %s: its assertion that the status is NV_OK or "
					 "NV_ERR_GPU_IN_FULLCHIP_RESET failed %u time (first %s, last %s), so the GPU no longer "
					 "answers the driver.",
					 "The driver could not free the objects of %s: its assertion that the status is NV_OK or "
					 "NV_ERR_GPU_IN_FULLCHIP_RESET failed %u times (first %s, last %s), so the GPU no longer "
					 "answers the driver.",
					 gpus[i].n),
				   gpus[i].name, gpus[i].n, when(t1, sizeof t1, gpus[i].first), when(t2, sizeof t2, gpus[i].last));
		gd_finding_remedy(f, "%s",
				  _("Drain the GPU and reset it (nvidia-smi -r), or reboot the node if the reset fails; the "
				    "kernel-log lines before these assertions (Xid, GSP time-out, fallen off the bus) say what "
				    "broke it."));
		gd_finding_ev(f, "assert_lines", gpus[i].n, "", NAN);
	}
	return ng > 0;
}

/* The finding of n lines of one kind: on the first line's GPU, else `unnamed`. */
static struct gd_finding *lines_finding(struct gd_rule_ctx *rc, struct gd_findings *out, const struct gd_klog_event *first,
					const char *unnamed, const char *ev_name, unsigned n)
{
	struct gd_finding *f = gd_finding_add(rc, out, GD_SEV_CRITICAL, "GPU %s",
					      first->pci_bus_id[0] ? first->pci_bus_id : unnamed);

	gd_finding_ev(f, ev_name, n, "", NAN);
	return f;
}

enum gd_verdict gd_rule_gpu_reset_required_klog(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	enum gd_verdict v = GD_VERDICT_CLEAR;
	const struct gd_snapshot *s = klog_or_unknown(rc, &v);
	unsigned gsp = 0, nverr = 0;
	const struct gd_klog_event *g1 = NULL, *n1 = NULL;
	char t[48];

	if (!s)
		return v;
	/* the latest Xid 154 of each GPU */
	GD_VEC_EACH(s->klog, const struct gd_klog_event, ev) {
		const struct gd_klog_event *latest = ev;
		struct gd_finding *f;
		bool first = true;

		if (!is(ev, GD_KLOG_XID) || !ev->code.ok || ev->code.v != 154 || !ev->action_code.ok)
			continue;
		GD_VEC_EACH(s->klog, const struct gd_klog_event, o) {
			if (!is(o, GD_KLOG_XID) || !o->code.ok || o->code.v != 154 || !o->action_code.ok ||
			    strcmp(o->pci_bus_id, ev->pci_bus_id) != 0)
				continue;
			if (o < ev)
				first = false;
			latest = o;
		}
		if (!first || latest->action_code.v == 0)
			continue;
		f = gd_finding_add(rc, out, GD_SEV_CRITICAL, "GPU %s", latest->pci_bus_id);
		/* TRANSLATORS: Xid 154 on <PCI address> <when>: the driver requires "<the driver's words>" */
		gd_finding_summary(f, _("Xid 154 on %s %s: the driver requires \"%s\" (recovery action %llu)."),
				   latest->pci_bus_id, when(t, sizeof t, latest),
				   latest->detail[0] ? latest->detail : "?", (unsigned long long)latest->action_code.v);
		/* TRANSLATORS: the actions, said in "Drain the GPU and do what the driver names: <action>." */
		gd_finding_remedy(f, _("Drain the GPU and do what the driver names: %s."),
				  latest->action_code.v == 2 ? _("reboot the node")
				  : latest->action_code.v == 3 ? _("drain peer-to-peer traffic")
				  : latest->action_code.v == 4 ? _("drain the work, then reset the GPU (nvidia-smi -r)")
							       : _("reset the GPU (nvidia-smi -r)"));
		gd_finding_ev(f, "recovery_action", (double)latest->action_code.v, "", NAN);
		gd_finding_ev_text(f, "action", latest->detail);
		v = GD_VERDICT_FIRED;
	}
	GD_VEC_EACH(s->klog, const struct gd_klog_event, ev) {
		if (is(ev, GD_KLOG_GSP_TIMEOUT) && !gsp++)
			g1 = ev;
		if (is(ev, GD_KLOG_RESET_REQUIRED) && !fullchip(ev) && !nverr++)
			n1 = ev;
	}
	if (gsp) {
		struct gd_finding *f = lines_finding(rc, out, g1, "(GSP)", "gsp_timeouts", gsp);

		gd_finding_summary(f, P_("The GPU System Processor timed out %u time (first %s): \"%.120s\".",
					 "The GPU System Processor timed out %u times (first %s): \"%.120s\".", gsp),
				   gsp, when(t, sizeof t, g1), g1->text);
		v = GD_VERDICT_FIRED;
	}
	if (nverr) {
		struct gd_finding *f = lines_finding(rc, out, n1, "(bus id not logged)", "reset_required_lines", nverr);

		gd_finding_summary(f, P_("The driver answered NV_ERR_RESET_REQUIRED %u time (first %s).",
					 "The driver answered NV_ERR_RESET_REQUIRED %u times (first %s).", nverr),
				   nverr, when(t, sizeof t, n1));
		v = GD_VERDICT_FIRED;
	}
	if (fullchip_findings(rc, s, out))
		v = GD_VERDICT_FIRED;
	return v;
}
