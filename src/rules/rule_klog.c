/*
 * rule_klog.c - the rules that read the kernel log (snapshot klog[], from
 * /dev/kmsg or a log file) and the EDAC counters.
 *
 * The driver reports GPU faults only there: Xid lines (NVML never reports
 * 62, 79, 119, 120), "fallen off the bus", RmInitAdapter failures, the
 * recovery action of Xid 154.  The kernel adds AER reports of the PCIe link,
 * the boot-time bandwidth line of a GPU in a slow slot, OOM kills, and
 * machine-check/EDAC memory errors.  The collector keeps the events of the
 * look-back (24 h; boot-time lines always); each rule counts its kind.
 * Without the log (klog source denied or absent) the rules say "not
 * evaluated" with the reason and the fix, never "clear".
 *
 * gpu.xid: the Xid summary of src/klog/xid.c, one finding per GPU and code
 *   (an NVSwitch's SXid lines are gpu.nvswitch_errors', rule_fabric.c):
 *   count, first, last, processes, class, bucket, action; context (storm,
 *   secondary Xid 45, after Xid 79, 154's action) sets the severity.
 *   Example: Xid 13 x3 on 0000:5d:00.0 from python (4711): warning.
 * gpu.lost: an Xid 79 or "GPU has fallen off the bus" (also the boot form
 *   without an Xid): critical.
 * gpu.init_failed: RmInitAdapter failed / probe routine failed: critical.
 * gpu.reset_required: rule_klog_reset.c.
 * gpu.pcie_link_degraded: the boot line "X Gb/s available PCIe bandwidth,
 *   limited by ... link at B (capable of Y Gb/s ...)" on a GPU.  Example:
 *   126.016 of 252.048 Gb/s = 50%: warning.
 * gpu.pcie_replays: AER corrected errors reported by a GPU (min_events, 1,
 *   in the look-back): warning; uncorrected on a GPU: critical.
 * mem.oom_kill: any OOM kill in the look-back: critical, per process (five).
 * host.memory_errors: UE any (EDAC line, uncorrected machine check, or the
 *   EDAC ue_count rising in the window) critical; CE above ce_per_hour (10)
 *   over the log's span, or ce_count over the uptime: warning.  Example: 36
 *   CE lines in 2.0 h = 18/h on CPU_SrcID#0_MC#0_Chan#1_DIMM#0.
 */
#include "rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/i18n.h"
#include "klog/klog.h"
#include "klog/xid.h"

#include "rules/rule_klog.h"

#define TH(rc, name) ((rc)->th->v[GD_TH_##name])

/* True when bus is a GPU: the event says so, or an Xid or GPU-at-PCI line names it. */
static bool gpu_bus(const struct gd_snapshot *s, const struct gd_klog_event *ev)
{
	if (ev->is_gpu.ok)
		return ev->is_gpu.v == 1;
	GD_VEC_EACH(s->klog, const struct gd_klog_event, o)
		if ((is(o, GD_KLOG_XID) || is(o, GD_KLOG_GPU_UUID)) && strcmp(o->pci_bus_id, ev->pci_bus_id) == 0)
			return true;
	return false;
}

/* ---- gpu.xid ------------------------------------------------------------ */

enum gd_verdict gd_rule_gpu_xid(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	enum gd_verdict v = GD_VERDICT_CLEAR;
	const struct gd_snapshot *s = klog_or_unknown(rc, &v);
	struct gd_xid_summary sum;
	char a[48], b[48], tail[400];

	if (!s)
		return v;
	gd_xid_summary_init(&sum);
	sum.storm_count = (unsigned)TH(rc, GPU_XID_STORM_COUNT);
	sum.storm_window_s = TH(rc, GPU_XID_STORM_WINDOW_S);
	GD_VEC_EACH(s->klog, const struct gd_klog_event, ev)
		gd_xid_summary_add(&sum, ev);
	gd_xid_summary_finish(&sum, s);
	GD_VEC_EACH(sum.entries, const struct gd_xid_entry, e) {
		struct gd_klog_event fe, le;
		struct gd_finding *f;
		bool sx = strcmp(e->kind, "sxid") == 0;

		if (sx)
			continue;   /* an NVSwitch's: gpu.nvswitch_errors (rule_fabric.c) */
		memset(&fe, 0, sizeof fe);
		memset(&le, 0, sizeof le);
		fe.wall_time_s = e->first_wall;
		fe.boot_s = e->first_boot;
		le.wall_time_s = e->last_wall;
		le.boot_s = e->last_boot;
		f = gd_finding_add(rc, out, e->sev, "GPU %s %s %llu", e->bus[0] ? e->bus : "?", sx ? "SXid" : "Xid",
				   (unsigned long long)e->code);
		/* the processes and notes (src/klog/xid.c's, joined with "; ") at the end */
		tail[0] = '\0';
		if (e->procs[0])
			/* TRANSLATORS: a clause at the end of the Xid summary: "; processes python (4711), ..." */
			snprintf(tail, sizeof tail, _("; processes %s"), e->procs);
		if (e->notes[0])
			snprintf(tail + strlen(tail), sizeof tail - strlen(tail), "; %s", e->notes);
		if (e->info)
			/* TRANSLATORS: <Xid or SXid> <code> on <PCI address> (<what the code means>): <n> times, first <when>,
			 * last <when><the processes and notes, each starting "; "> */
			gd_finding_summary(f, P_("%s %llu on %s (%s): %llu time, first %s, last %s%s.",
						 "%s %llu on %s (%s): %llu times, first %s, last %s%s.", e->count),
					   sx ? "SXid" : "Xid", (unsigned long long)e->code, e->bus[0] ? e->bus : _("an unnamed GPU"),
					   _(e->info->meaning), (unsigned long long)e->count, when(a, sizeof a, &fe),
					   when(b, sizeof b, &le), tail);
		else
			gd_finding_summary(f, P_("%s %llu on %s: %llu time, first %s, last %s%s.",
						 "%s %llu on %s: %llu times, first %s, last %s%s.", e->count),
					   sx ? "SXid" : "Xid", (unsigned long long)e->code, e->bus[0] ? e->bus : _("an unnamed GPU"),
					   (unsigned long long)e->count, when(a, sizeof a, &fe), when(b, sizeof b, &le), tail);
		/* the catalogue's action, translated where src/klog/xid.c marks its table (N_()) */
		gd_finding_remedy(f, "%s", _(e->action));
		gd_finding_ev(f, "count", (double)e->count, "", NAN);
		gd_finding_ev(f, "code", (double)e->code, "", NAN);
		if (e->storm_max > 1)
			gd_finding_ev(f, "storm_max", (double)e->storm_max, "events", (double)sum.storm_count);
		gd_finding_ev_text(f, "class", e->info ? e->info->cls : sx ? "NVSwitch" : "unknown");
		if (e->info)
			gd_finding_ev_text(f, "bucket", e->info->bucket);
		if (e->uuid[0])
			gd_finding_ev_text(f, "uuid", e->uuid);
		if (e->procs[0])
			gd_finding_ev_text(f, "processes", e->procs);
		v = GD_VERDICT_FIRED;
	}
	gd_xid_summary_release(&sum);
	return v;
}

/* ---- gpu.lost ----------------------------------------------------------- */

enum gd_verdict gd_rule_gpu_lost_klog(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	enum gd_verdict v = GD_VERDICT_CLEAR;
	const struct gd_snapshot *s = klog_or_unknown(rc, &v);
	char t[48];

	if (!s)
		return v;
	GD_VEC_EACH(s->klog, const struct gd_klog_event, ev) {
		bool xid79 = is(ev, GD_KLOG_XID) && ev->code.ok && ev->code.v == 79;
		bool seen = false;
		struct gd_finding *f;
		unsigned n = 0;

		if (!xid79 && !is(ev, GD_KLOG_FALLEN_OFF_BUS))
			continue;
		/* one finding per GPU: the first line that names it */
		GD_VEC_EACH(s->klog, const struct gd_klog_event, o) {
			if (o == ev)
				break;
			if ((is(o, GD_KLOG_FALLEN_OFF_BUS) || (is(o, GD_KLOG_XID) && o->code.ok && o->code.v == 79)) &&
			    strcmp(o->pci_bus_id, ev->pci_bus_id) == 0)
				seen = true;
		}
		if (seen)
			continue;
		GD_VEC_EACH(s->klog, const struct gd_klog_event, o)
			if (is(o, GD_KLOG_XID) && strcmp(o->pci_bus_id, ev->pci_bus_id) == 0 && o->code.ok &&
			    o->code.v != 79 && (o->wall_time_s.ok ? o->wall_time_s.v >= ev->wall_time_s.v
								    : o->boot_s.v >= ev->boot_s.v))
				n++;
		f = gd_finding_add(rc, out, GD_SEV_CRITICAL, "GPU %s", ev->pci_bus_id[0] ? ev->pci_bus_id : "?");
		if (n)
			/* TRANSLATORS: GPU <PCI address> fell off the bus (掉卡) <when> (<Xid 79, or the line below>) */
			gd_finding_summary(f, P_("GPU %s fell off the bus %s (%s); %u later Xid line on it are consequences.",
						 "GPU %s fell off the bus %s (%s); %u later Xid lines on it are consequences.",
						 n),
					   ev->pci_bus_id[0] ? ev->pci_bus_id : _("(bus id not logged)"), when(t, sizeof t, ev),
					   xid79 ? "Xid 79" : _("the driver's \"fallen off the bus\" line, no Xid"), n);
		else
			gd_finding_summary(f, _("GPU %s fell off the bus %s (%s)."),
					   ev->pci_bus_id[0] ? ev->pci_bus_id : _("(bus id not logged)"), when(t, sizeof t, ev),
					   xid79 ? "Xid 79" : _("the driver's \"fallen off the bus\" line, no Xid"));
		gd_finding_ev_text(f, "evidence", xid79 ? "Xid 79" : "fallen off the bus");
		gd_finding_ev(f, "later_xids", n, "", NAN);
		v = GD_VERDICT_FIRED;
	}
	return v;
}

/* ---- gpu.init_failed ---------------------------------------------------- */

enum gd_verdict gd_rule_gpu_init_failed_klog(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	enum gd_verdict v = GD_VERDICT_CLEAR;
	const struct gd_snapshot *s = klog_or_unknown(rc, &v);
	const struct gd_klog_event *last = NULL;
	unsigned n = 0;
	char t[48];

	if (!s)
		return v;
	GD_VEC_EACH(s->klog, const struct gd_klog_event, ev)
		if (is(ev, GD_KLOG_INIT_FAILED)) {
			n++;
			if (!last || (ev->pci_bus_id[0] && !last->pci_bus_id[0]))
				last = ev;
		}
	if (!n)
		return v;
	{
		struct gd_finding *f = gd_finding_add(rc, out, GD_SEV_CRITICAL, "GPU %s",
						      last->pci_bus_id[0] ? last->pci_bus_id : "(bus id not logged)");

		/* TRANSLATORS: (<n> lines, <when the last was logged>): "<the kernel-log line>" */
		gd_finding_summary(f, P_("The driver could not initialise a GPU (%u line, %s): \"%.120s\".",
					 "The driver could not initialise a GPU (%u lines, %s): \"%.120s\".", n),
				   n, when(t, sizeof t, last), last->text);
		gd_finding_ev(f, "lines", n, "", NAN);
		gd_finding_ev_text(f, "line", last->text);
	}
	return GD_VERDICT_FIRED;
}

/* ---- gpu.pcie_link_degraded (the boot-time bandwidth line) --------------- */

enum gd_verdict gd_rule_gpu_pcie_link_degraded_klog(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	enum gd_verdict v = GD_VERDICT_CLEAR;
	const struct gd_snapshot *s = klog_or_unknown(rc, &v);

	if (!s)
		return v;
	GD_VEC_EACH(s->klog, const struct gd_klog_event, ev) {
		struct gd_finding *f;
		double pct;

		if (!is(ev, GD_KLOG_PCIE_BANDWIDTH) || !ev->limit_at[0] || !ev->bandwidth_gbps.ok ||
		    !ev->capable_gbps.ok || ev->bandwidth_gbps.v >= ev->capable_gbps.v || !gpu_bus(s, ev))
			continue;
		pct = 100.0 * ev->bandwidth_gbps.v / ev->capable_gbps.v;
		f = gd_finding_add(rc, out, GD_SEV_WARNING, "GPU %s", ev->pci_bus_id);
		/* TRANSLATORS: ... limited by the link at <PCI address of the slowest link, from the kernel's line> */
		gd_finding_summary(f, _("GPU %s has %.1f of %.1f Gb/s of PCIe bandwidth (%.0f%%), limited by the link at %s."),
				   ev->pci_bus_id, ev->bandwidth_gbps.v, ev->capable_gbps.v, pct, ev->limit_at);
		gd_finding_ev(f, "available_gbps", ev->bandwidth_gbps.v, "Gb/s", NAN);
		gd_finding_ev(f, "capable_gbps", ev->capable_gbps.v, "Gb/s", NAN);
		gd_finding_ev(f, "bandwidth_pct", pct, "%", 100);
		gd_finding_ev_text(f, "limited_at", ev->limit_at);
		v = GD_VERDICT_FIRED;
	}
	return v;
}

/* ---- gpu.pcie_replays (AER on a GPU) ------------------------------------ */

enum gd_verdict gd_rule_gpu_pcie_replays_klog(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	enum gd_verdict v = GD_VERDICT_CLEAR;
	const struct gd_snapshot *s = klog_or_unknown(rc, &v);
	double min = TH(rc, GPU_PCIE_REPLAYS_MIN_EVENTS);
	char t[48];

	if (!s)
		return v;
	GD_VEC_EACH(s->klog, const struct gd_klog_event, ev) {
		unsigned ce = 0, ue = 0;
		bool seen = false;
		const struct gd_klog_event *last = ev;
		struct gd_finding *f;

		if (!is(ev, GD_KLOG_AER) || !gpu_bus(s, ev))
			continue;
		GD_VEC_EACH(s->klog, const struct gd_klog_event, o) {
			if (!is(o, GD_KLOG_AER) || strcmp(o->pci_bus_id, ev->pci_bus_id) != 0)
				continue;
			if (o < ev)
				seen = true;
			if (strcmp(o->severity, "corrected") == 0)
				ce++;
			else
				ue++;
			last = o;
		}
		if (seen || (ce < min && !ue))
			continue;
		f = gd_finding_add(rc, out, ue ? GD_SEV_CRITICAL : GD_SEV_WARNING, "GPU %s", ev->pci_bus_id);
		if (last->detail[0])
			/* TRANSLATORS: (last <when>: <the kernel's severity word: corrected, uncorrected
			 * (non-fatal), fatal>, <the error's name from the kernel's line>) */
			gd_finding_summary(f, P_("The PCIe link of GPU %s reported %u corrected and %u uncorrected AER error "
						 "(last %s: %s, %s).",
						 "The PCIe link of GPU %s reported %u corrected and %u uncorrected AER errors "
						 "(last %s: %s, %s).", ce + ue),
					   ev->pci_bus_id, ce, ue, when(t, sizeof t, last), last->severity, last->detail);
		else
			gd_finding_summary(f, P_("The PCIe link of GPU %s reported %u corrected and %u uncorrected AER error "
						 "(last %s: %s).",
						 "The PCIe link of GPU %s reported %u corrected and %u uncorrected AER errors "
						 "(last %s: %s).", ce + ue),
					   ev->pci_bus_id, ce, ue, when(t, sizeof t, last), last->severity);
		gd_finding_ev(f, "aer_corrected", ce, "", min);
		gd_finding_ev(f, "aer_uncorrected", ue, "", NAN);
		if (s->klog_info.span_s.ok && s->klog_info.span_s.v > 0)
			gd_finding_ev(f, "aer_per_hour", (ce + ue) * 3600.0 / s->klog_info.span_s.v, "/h", NAN);
		v = GD_VERDICT_FIRED;
	}
	return v;
}

/* ---- mem.oom_kill ------------------------------------------------------- */

enum gd_verdict gd_rule_mem_oom_kill(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	enum gd_verdict v = GD_VERDICT_CLEAR;
	const struct gd_snapshot *s = klog_or_unknown(rc, &v);
	unsigned n = 0, shown = 0;
	char t[48];

	if (!s)
		return v;
	GD_VEC_EACH(s->klog, const struct gd_klog_event, ev)
		n += is(ev, GD_KLOG_OOM_KILL);
	GD_VEC_EACH(s->klog, const struct gd_klog_event, ev) {
		struct gd_finding *f;

		if (!is(ev, GD_KLOG_OOM_KILL) || shown++ >= 5)
			continue;
		f = gd_finding_add(rc, out, GD_SEV_CRITICAL, "pid %llu (%s)", (unsigned long long)ev->pid.v,
				   ev->process[0] ? ev->process : "?");
		if (ev->anon_rss_bytes.ok) {
			double gib = (double)ev->anon_rss_bytes.v / 1073741824.0;
			bool more = n > 1 && shown == 1;

			if (ev->detail[0] && more)
				/* TRANSLATORS: The OOM killer killed pid <pid> (<command>) <when>, <GiB> GiB resident
				 * (<the kernel's constraint, e.g. CONSTRAINT_MEMCG>) */
				gd_finding_summary(f, _("The OOM killer killed pid %llu (%s) %s, %.1f GiB resident (%s); more "
							"kills follow."),
						   (unsigned long long)ev->pid.v, ev->process, when(t, sizeof t, ev), gib,
						   ev->detail);
			else if (ev->detail[0])
				gd_finding_summary(f, _("The OOM killer killed pid %llu (%s) %s, %.1f GiB resident (%s)."),
						   (unsigned long long)ev->pid.v, ev->process, when(t, sizeof t, ev), gib,
						   ev->detail);
			else if (more)
				gd_finding_summary(f, _("The OOM killer killed pid %llu (%s) %s, %.1f GiB resident; more "
							"kills follow."),
						   (unsigned long long)ev->pid.v, ev->process, when(t, sizeof t, ev), gib);
			else
				gd_finding_summary(f, _("The OOM killer killed pid %llu (%s) %s, %.1f GiB resident."),
						   (unsigned long long)ev->pid.v, ev->process, when(t, sizeof t, ev), gib);
		} else {
			gd_finding_summary(f, _("The OOM killer killed pid %llu (%s) %s."), (unsigned long long)ev->pid.v,
					   ev->process, when(t, sizeof t, ev));
		}
		if (ev->anon_rss_bytes.ok)
			gd_finding_ev(f, "anon_rss_bytes", (double)ev->anon_rss_bytes.v, "bytes", NAN);
		gd_finding_ev(f, "oom_kills", n, "", NAN);
		if (ev->detail[0])
			gd_finding_ev_text(f, "constraint", ev->detail);
		v = GD_VERDICT_FIRED;
	}
	return v;
}

/* ---- host.memory_errors ------------------------------------------------- */

enum gd_verdict gd_rule_host_memory_errors(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *a = gd_window_first(rc->w), *s = gd_window_last(rc->w);
	bool have_log = klog_usable(klog_source(s, "klog")), have_edac = s->edac.n > 0;
	double th = TH(rc, HOST_MEMERR_CE_PER_HOUR), ce_rate = NAN, hours;
	uint64_t ce_lines = 0, ue_lines = 0, ce_total = 0, ue_total = 0, ue_delta = 0;
	const struct gd_klog_event *where = NULL, *ue_ev = NULL;
	struct gd_finding *f;

	if (!have_log && !have_edac)
		return gd_rule_unknown(rc, _("neither the kernel log nor EDAC counters (/sys/devices/system/edac/mc) "
					     "could be read"));
	if (have_log)
		GD_VEC_EACH(s->klog, const struct gd_klog_event, ev) {
			bool edac = is(ev, GD_KLOG_EDAC), mce = is(ev, GD_KLOG_MCE);
			uint64_t c = ev->count.ok ? ev->count.v : 1;

			if (edac && strcmp(ev->severity, "UE") == 0) {
				ue_lines += c;
				ue_ev = ev;
			} else if (mce && strcmp(ev->severity, "uncorrected") == 0) {
				ue_lines++;
				ue_ev = ue_ev ? ue_ev : ev;
			} else if (edac || (mce && strcmp(ev->severity, "corrected") == 0)) {
				ce_lines += c;
				if (edac && ev->dimm[0])
					where = ev;
			}
		}
	GD_VEC_EACH(s->edac, const struct gd_edac, e) {
		const struct gd_edac *p = a != s ? GD_FIND_PREV(a, edac, struct gd_edac, mc, e->mc) : NULL;
		uint64_t d;

		if (e->ce_count.ok)
			ce_total += e->ce_count.v;
		if (e->ue_count.ok)
			ue_total += e->ue_count.v;
		if (p && gd_counter_delta(p->ue_count, e->ue_count, &d))
			ue_delta += d;
	}
	if (have_log && s->klog_info.span_s.ok && s->klog_info.span_s.v > 0) {
		hours = s->klog_info.span_s.v / 3600;
		ce_rate = (double)ce_lines / fmax(hours, 1.0);
	}
	if (have_edac && s->host.uptime_s.ok && s->host.uptime_s.v > 0) {
		double r = (double)ce_total / fmax(s->host.uptime_s.v / 3600, 1.0);

		if (isnan(ce_rate) || r > ce_rate)
			ce_rate = r;
	}
	if (ue_lines || ue_delta) {
		f = gd_finding_add(rc, out, GD_SEV_CRITICAL, "%s",
				   ue_ev && ue_ev->dimm[0] ? ue_ev->dimm : ue_ev && ue_ev->mc.ok ? "memory controller" : "host memory");
		if (ue_ev)
			/* TRANSLATORS: <n> in the kernel log: <the last such line>, <n> new in the EDAC counters */
			gd_finding_summary(f, _("Uncorrected host memory errors: %llu in the kernel log: %s, %llu new in the "
						"EDAC counters."),
					   (unsigned long long)ue_lines, ue_ev->text, (unsigned long long)ue_delta);
		else
			gd_finding_summary(f, _("Uncorrected host memory errors: %llu in the kernel log, %llu new in the EDAC "
						"counters."),
					   (unsigned long long)ue_lines, (unsigned long long)ue_delta);
		gd_finding_ev(f, "ue_lines", (double)ue_lines, "", 0);
		gd_finding_ev(f, "ue_new", (double)ue_delta, "", 0);
		if (ue_ev && ue_ev->socket.ok)
			gd_finding_ev(f, "socket", (double)ue_ev->socket.v, "", NAN);
		if (ue_ev && ue_ev->channel.ok)
			gd_finding_ev(f, "channel", (double)ue_ev->channel.v, "", NAN);
		return GD_VERDICT_FIRED;
	}
	if (!isnan(ce_rate) && ce_rate > th) {
		f = gd_finding_add(rc, out, GD_SEV_WARNING, "%s", where ? where->dimm : "host memory");
		if (where)
			/* TRANSLATORS: ...; DIMM <the EDAC label, e.g. CPU_SrcID#0_MC#0_Chan#1_DIMM#0> */
			gd_finding_summary(f, _("Corrected host memory errors at %.1f per hour (threshold %g): %llu in the "
						"kernel log, %llu in the EDAC counters since boot; DIMM %s."),
					   ce_rate, th, (unsigned long long)ce_lines, (unsigned long long)ce_total,
					   where->dimm);
		else
			gd_finding_summary(f, _("Corrected host memory errors at %.1f per hour (threshold %g): %llu in the "
						"kernel log, %llu in the EDAC counters since boot."),
					   ce_rate, th, (unsigned long long)ce_lines, (unsigned long long)ce_total);
		gd_finding_ev(f, "ce_per_hour", ce_rate, "/h", th);
		gd_finding_ev(f, "ce_lines", (double)ce_lines, "", NAN);
		gd_finding_ev(f, "ce_count", (double)ce_total, "", NAN);
		if (where && where->socket.ok)
			gd_finding_ev(f, "socket", (double)where->socket.v, "", NAN);
		if (where && where->channel.ok)
			gd_finding_ev(f, "channel", (double)where->channel.v, "", NAN);
		return GD_VERDICT_FIRED;
	}
	if (ue_total) {
		f = gd_finding_add(rc, out, GD_SEV_WARNING, "host memory");
		gd_finding_summary(f, P_("The EDAC counters hold %llu uncorrected memory error since boot (none new).",
					 "The EDAC counters hold %llu uncorrected memory errors since boot (none new).",
					 (unsigned long)ue_total),
				   (unsigned long long)ue_total);
		gd_finding_ev(f, "ue_count", (double)ue_total, "", NAN);
		return GD_VERDICT_FIRED;
	}
	return GD_VERDICT_CLEAR;
}
