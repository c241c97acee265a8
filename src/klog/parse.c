/*
 * parse.c - one kernel-log line: what it says (its time stamps: stamp.c).
 *
 * Prefixes (any of them, then the message; see klog.h for the front-ends):
 *
 *   4,1234,5023456789,-;MSG                       /dev/kmsg (usec since boot)
 *   [ 5023.456789] MSG   [ 5023.456789][ T812] MSG dmesg (seconds since boot)
 *   [Mon Nov 30 01:02:03 2026] MSG                dmesg -T (local time)
 *   Nov 30 01:02:03[.123456] HOST kernel: MSG     journalctl -k short/-precise, syslog
 *   2026-11-30T01:02:03[.123][+0100|+01:00|Z] HOST kernel: MSG   short-iso, rsyslog
 *   <3>[ 5023.456789] MSG                         dmesg -r (the priority is skipped)
 *   2026-11-30T01:02:03,123456+01:00 MSG          dmesg --time-format iso
 *   kern  :warn  : [ 5023.456789] MSG            dmesg -x / --decode
 *   10.0.0.7: kern: warning: [2026-11-30T01:02:03.12Z]: MSG   Talos, forwarded logs
 *   <4>1 2026-11-30T01:02:03.1Z HOST kernel - - - MSG   RFC 5424
 *   Nov 30 01:02:03 kernel: MSG                   journalctl --no-hostname
 *   MSG                                           journalctl -o cat, lines indented
 *
 * and the syslog forms may carry the dmesg stamp after "kernel: " (kern.log
 * with printk times), in which case both times are kept.  Lines from other
 * programs than the kernel (syslog, messages) are not kernel evidence.
 *
 * Messages recognised (FACTS.md §3.6 has the Xid shapes and their eras):
 *
 *   NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.
 *   NVRM: Xid (PCI:0000:3b:00 GPU-I:01 GPU-CI:00): 13, pid=4711, name=python, Graphics ...
 *   NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, ...
 *   NVRM: Xid (PCI:0000:08:00): 31, Ch 0000003b, intr 10000000. MMU Fault: ...
 *   NVRM: Xid (0000:01:00): 13, 0005 00000000 0000502d ...
 *   NVRM: GPU at PCI:0000:5d:00: GPU-6f3e0c4a-0d5e-4c1e-9a2b-3c4d5e6f7a8b
 *   NVRM: GPU 0000:5d:00.0: GPU has fallen off the bus.
 *   NVRM: The NVIDIA GPU 0000:5d:00.0 / (PCI ID: 10de:2330) installed in this system has /
 *         fallen off the bus and is not responding to commands.   (boot, no Xid)
 *   NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x31:0x40:2712)
 *   NVRM: The NVIDIA probe routine failed for 1 device(s).
 *   NVRM: GPU0 _kgspRpcRecvPoll: GSP RPC timeout ... / ... heartbeat timed out
 *   NVRM: ... status NV_ERR_RESET_REQUIRED
 *   NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: (status == NV_OK) ||
 *         (status == NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_client.c:844
 *   nvidia-nvswitch3: SXid (PCI:0000:c5:00.0): 12028, Non-fatal, Link 32 egress ...
 *   nvidia 0000:5d:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)
 *   pci 0000:5d:00.0: 126.016 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x8 link
 *         at 0000:00:01.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)
 *
 * and, about the host rather than the GPU (parse_host.c): OOM kills, hung
 * tasks (with the frames of their call trace in the NVIDIA modules),
 * machine checks and EDAC memory errors.
 */
#include "klog/lineparse.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[GD_KLOG_NEVENT_KINDS] = {
	"", "xid", "sxid", "fallen_off_bus", "init_failed", "gpu_uuid", "aer", "pcie_bandwidth",
	"gsp_timeout", "reset_required", "oom_kill", "hung_task", "mce", "edac",
};

const char *gd_klog_kind_name(enum gd_klog_kind k)
{
	return (unsigned)k < GD_KLOG_NEVENT_KINDS ? kind_names[k] : "";
}

enum gd_klog_kind gd_klog_kind_of(const char *name)
{
	for (int k = 1; k < GD_KLOG_NEVENT_KINDS; k++)
		if (strcmp(kind_names[k], name) == 0)
			return (enum gd_klog_kind)k;
	return GD_KLOG_NONE;
}

/* ---- fields ------------------------------------------------------------- */

/* "dddd:bb:dd" with an optional ".f": normalised, lower case, ".0" added. */
static bool bus_id(struct gd_kcur *c, char *out, size_t outsz)
{
	const char *p = c->p;
	char b[16];
	size_t n = 0;

	if (c->e - p < 10)
		return false;
	for (int i = 0; i < 10; i++) {
		bool colon = i == 4 || i == 7;

		if (colon ? p[i] != ':' : !gd_kc_is_hex(p[i]))
			return false;
		b[n++] = (char)tolower((unsigned char)p[i]);
	}
	p += 10;
	b[n++] = '.';
	if (p + 1 < c->e && *p == '.' && isdigit((unsigned char)p[1])) {
		b[n++] = p[1];
		p += 2;
	} else {
		b[n++] = '0';
	}
	b[n] = '\0';
	gd_strlcpy(out, b, outsz);
	c->p = p;
	return true;
}

/* NVRM: Xid (PCI:dddd:bb:dd[ GPU-I:NN][ GPU-CI:NN]): N[, pid=P][, name=NAME], MSG */
static enum gd_klog_kind xid(struct gd_kcur c, struct gd_klog_event *ev, bool sxid)
{
	const char *rp;
	uint64_t code, v;

	gd_kc_eat(&c, "PCI:");
	if (!bus_id(&c, ev->pci_bus_id, sizeof ev->pci_bus_id))
		return GD_KLOG_NONE;
	rp = memchr(c.p, ')', (size_t)(c.e - c.p));
	if (!rp)
		return GD_KLOG_NONE;
	{
		const char *gi = gd_kc_find(c.p, rp, "GPU-I:"), *ci = gd_kc_find(c.p, rp, "GPU-CI:");
		struct gd_kcur t;

		if (gi) {
			t.p = gi + 6, t.e = rp;
			if (gd_kc_num(&t, 4, &v))
				gd_u64_set(&ev->gpu_instance, v);
		}
		if (ci) {
			t.p = ci + 7, t.e = rp;
			if (gd_kc_num(&t, 4, &v))
				gd_u64_set(&ev->compute_instance, v);
		}
	}
	c.p = rp + 1;
	if (!gd_kc_eat(&c, ":"))
		return GD_KLOG_NONE;
	gd_kc_skip_sp(&c);
	if (!gd_kc_num(&c, 6, &code) || (c.p < c.e && *c.p != ',' && *c.p != ' '))
		return GD_KLOG_NONE;
	gd_u64_set(&ev->code, code);
	gd_kc_eat(&c, ",");
	gd_kc_skip_sp(&c);
	if (sxid) {
		if (gd_kc_at(&c, "Data {") || gd_kc_at(&c, "Severity "))
			return GD_KLOG_NONE;   /* detail lines of the SXid above */
		if (gd_kc_eat(&c, "Fatal"))
			GD_STRSET(ev->severity, "fatal");
		else if (gd_kc_eat(&c, "Non-fatal") || gd_kc_eat(&c, "Non-Fatal"))
			GD_STRSET(ev->severity, "non-fatal");
		gd_kc_eat(&c, ",");
		gd_kc_skip_sp(&c);
		gd_kc_text(ev, c.p, c.e);
		return GD_KLOG_SXID;
	}
	if (gd_kc_eat(&c, "pid=")) {
		const char *comma = gd_kc_find(c.p, c.e, ", ");
		struct gd_kcur t = { c.p, comma ? comma : c.e };

		if (gd_kc_num(&t, 10, &v) && t.p == t.e)
			gd_u64_set(&ev->pid, v);
		c.p = comma ? comma + 2 : c.e;
	}
	if (gd_kc_eat(&c, "name=")) {
		const char *comma = gd_kc_find(c.p, c.e, ", ");
		const char *end = comma ? comma : c.e;

		if (!(end - c.p == 9 && memcmp(c.p, "<unknown>", 9) == 0))
			gd_kc_copy(ev->process, sizeof ev->process, c.p, end);
		c.p = comma ? comma + 2 : c.e;
	}
	gd_kc_text(ev, c.p, c.e);
	if (code == 154) {
		/* "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)" */
		const char *to = gd_kc_find(c.p, c.e, " to 0x");

		if (to) {
			struct gd_kcur t = { to + 6, c.e };
			const char *lp, *rpn;

			if (gd_kc_num(&t, 2, &v))
				gd_u64_set(&ev->action_code, v);
			lp = memchr(t.p, '(', (size_t)(t.e - t.p));
			rpn = lp ? memchr(lp, ')', (size_t)(t.e - lp)) : NULL;
			if (rpn)
				gd_kc_copy(ev->detail, sizeof ev->detail, lp + 1, rpn);
		}
	}
	return GD_KLOG_XID;
}

static bool has_timeout(const char *p, const char *e)
{
	return gd_kc_find(p, e, "timeout") || gd_kc_find(p, e, "Timeout") || gd_kc_find(p, e, "timed out") ||
	       gd_kc_find(p, e, "timedout") || gd_kc_find(p, e, "TIMEOUT");
}

static enum gd_klog_kind nvrm(struct gd_kcur c, struct gd_klog_event *ev)
{
	struct gd_kcur t;

	gd_kc_text(ev, c.p, c.e);
	if (gd_kc_eat(&c, "Xid (")) {
		ev->text[0] = '\0';
		return xid(c, ev, false);
	}
	if (gd_kc_eat(&c, "GPU at PCI:") || gd_kc_eat(&c, "GPU at ")) {
		const char *u;

		if (!bus_id(&c, ev->pci_bus_id, sizeof ev->pci_bus_id))
			return GD_KLOG_NONE;
		/* older drivers: "GPU at 0000:01:00.0 has fallen off the bus." */
		if (gd_kc_find(c.p, c.e, "fallen off the bus")) {
			gd_u64_set(&ev->is_gpu, 1);
			return GD_KLOG_FALLEN_OFF_BUS;
		}
		if (!(u = gd_kc_find(c.p, c.e, "GPU-")))
			return GD_KLOG_NONE;
		t.p = u;
		while (t.p < c.e && (isalnum((unsigned char)*t.p) || *t.p == '-'))
			t.p++;
		gd_kc_copy(ev->uuid, sizeof ev->uuid, u, t.p);
		gd_u64_set(&ev->is_gpu, 1);
		return GD_KLOG_GPU_UUID;
	}
	if (gd_kc_eat(&c, "The NVIDIA GPU ")) {
		if (!bus_id(&c, ev->pci_bus_id, sizeof ev->pci_bus_id))
			return GD_KLOG_NONE;
		return GD_KLOG_CTX_PROBE_GPU;
	}
	t = c;
	if (gd_kc_eat(&t, "GPU ") && bus_id(&t, ev->pci_bus_id, sizeof ev->pci_bus_id))
		gd_u64_set(&ev->is_gpu, 1);
	t = c;
	/* "GPU0 nvAssertFailedNoLog: ...": the driver's own number of the GPU */
	if (gd_kc_eat(&t, "GPU") && t.p < t.e && isdigit((unsigned char)*t.p)) {
		uint64_t n;

		if (gd_kc_num(&t, 3, &n) && t.p < t.e && (*t.p == ' ' || *t.p == ':'))
			gd_u64_set(&ev->rm_gpu, n);
	}
	if (gd_kc_find(c.p, c.e, "GPU has fallen off the bus"))
		return GD_KLOG_FALLEN_OFF_BUS;
	if (gd_kc_find(c.p, c.e, "fallen off the bus and is not responding"))
		return GD_KLOG_CTX_FALLEN_OFF;
	if (gd_kc_find(c.p, c.e, "RmInitAdapter failed") || gd_kc_find(c.p, c.e, "rm_init_adapter failed") ||
	    gd_kc_find(c.p, c.e, "probe routine failed"))
		return GD_KLOG_INIT_FAILED;
	if (gd_kc_find(c.p, c.e, "NV_ERR_RESET_REQUIRED"))
		return GD_KLOG_RESET_REQUIRED;
	/* "nvAssertFailedNoLog: Assertion failed: (status == NV_OK) || (status ==
	 * NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_client.c:844": freeing the GPU's
	 * objects failed with another status (the GPU no longer answers the
	 * driver: after a GSP crash, an Xid 154, a GPU lost).  The same event
	 * repeats the line for every object; the rule counts them as one. */
	if (gd_kc_find(c.p, c.e, "NV_ERR_GPU_IN_FULLCHIP_RESET")) {
		GD_STRSET(ev->detail, "NV_ERR_GPU_IN_FULLCHIP_RESET");
		return GD_KLOG_RESET_REQUIRED;
	}
	/* GSP firmware crashed: "GSP-CrashCat Report" (libos's "GSP task watchdog
	 * timeout" inside the report has no NVRM: marker; the scanner never sees
	 * it, and the report's first line says it already) */
	if (gd_kc_find(c.p, c.e, "GSP-CrashCat Report"))
		return GD_KLOG_GSP_TIMEOUT;
	if (!gd_kc_find(c.p, c.e, "_kgspLogXid") && has_timeout(c.p, c.e) &&
	    (gd_kc_find(c.p, c.e, "GSP") || gd_kc_find(c.p, c.e, "RPC") || gd_kc_find(c.p, c.e, "Rpc") ||
	     gd_kc_find(c.p, c.e, "eartbeat")))
		return GD_KLOG_GSP_TIMEOUT;
	return GD_KLOG_NONE;
}

/* "DRIVER dddd:bb:dd.f: " at the start of a message. */
static bool device_prefix(struct gd_kcur *c, struct gd_klog_event *ev)
{
	const char *sp = memchr(c->p, ' ', (size_t)(c->e - c->p) < 40 ? (size_t)(c->e - c->p) : 40);
	struct gd_kcur t;

	if (!sp || sp == c->p)
		return false;
	t.p = sp + 1;
	t.e = c->e;
	if (!bus_id(&t, ev->pci_bus_id, sizeof ev->pci_bus_id) || !gd_kc_eat(&t, ":"))
		return false;
	gd_kc_copy(ev->process, sizeof ev->process, c->p, sp);
	if (strcmp(ev->process, "nvidia") == 0)
		gd_u64_set(&ev->is_gpu, 1);
	gd_kc_skip_sp(&t);
	*c = t;
	return true;
}

static enum gd_klog_kind aer(struct gd_kcur c, struct gd_klog_event *ev)
{
	const char *m = gd_kc_find(c.p, c.e, "PCIe Bus Error: ");
	const char *sev, *typ;

	gd_kc_text(ev, c.p, c.e);
	if (!m) {
		const char *d = gd_kc_find(c.p, c.e, "device [");

		if (d && gd_kc_find(c.p, c.e, "error status/mask")) {
			if (c.e - d >= 13 && memcmp(d + 8, "10de:", 5) == 0)
				gd_u64_set(&ev->is_gpu, 1);
			return GD_KLOG_CTX_AER_DEVICE;
		}
		if ((d = gd_kc_find(c.p, c.e, "AER:")) && (d = memchr(d, '[', (size_t)(c.e - d))) &&
		    (d = memchr(d, ']', (size_t)(c.e - d)))) {
			struct gd_kcur t = { d + 1, c.e };
			const char *w;

			gd_kc_skip_sp(&t);
			w = t.p;
			while (t.p < t.e && *t.p != ' ')
				t.p++;
			gd_kc_copy(ev->detail, sizeof ev->detail, w, t.p);
			return ev->detail[0] ? GD_KLOG_CTX_AER_BIT : GD_KLOG_NONE;
		}
		return GD_KLOG_NONE;
	}
	sev = gd_kc_find(m, c.e, "severity=");
	if (!sev)
		return GD_KLOG_NONE;
	sev += 9;
	if (c.e - sev >= 7 && memcmp(sev, "Correct", 7) == 0)
		GD_STRSET(ev->severity, "corrected");
	else if (gd_kc_find(sev, c.e, "Non-Fatal"))
		GD_STRSET(ev->severity, "nonfatal");
	else if (gd_kc_find(sev, c.e, "Fatal"))
		GD_STRSET(ev->severity, "fatal");
	else
		return GD_KLOG_NONE;
	typ = gd_kc_find(sev, c.e, "type=");
	if (typ) {
		const char *comma = memchr(typ, ',', (size_t)(c.e - typ));
		const char *ap = comma ? memchr(comma, '(', (size_t)(c.e - comma)) : NULL;
		const char *rp = ap ? memchr(ap, ')', (size_t)(c.e - ap)) : NULL;
		char a[32] = "", b[40] = "";

		gd_kc_copy(b, sizeof b, typ + 5, comma ? comma : c.e);
		if (rp)
			gd_kc_copy(a, sizeof a, ap + 1, rp);
		GD_STRSET(ev->detail, b);
		if (a[0]) {
			size_t n = strlen(ev->detail);

			if (n + 3 < sizeof ev->detail) {
				memcpy(ev->detail + n, ", ", 3);
				gd_strlcpy(ev->detail + n + 2, a, sizeof ev->detail - n - 2);
			}
		}
	}
	return GD_KLOG_AER;
}

/* "X Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x8 link at BUS (capable of Y Gb/s with ...)" */
static enum gd_klog_kind bandwidth(struct gd_kcur c, const char *m, struct gd_klog_event *ev)
{
	struct gd_kcur t = c;
	const char *lim, *cap;
	double v;

	gd_kc_text(ev, c.p, c.e);
	if (!gd_kc_fnum(&t, &v) || !gd_kc_eat(&t, " Gb/s"))
		return GD_KLOG_NONE;
	gd_f64_set(&ev->bandwidth_gbps, v);
	if ((lim = gd_kc_find(m, c.e, " link at "))) {
		struct gd_kcur l = { lim + 9, c.e };

		bus_id(&l, ev->limit_at, sizeof ev->limit_at);
	}
	if ((cap = gd_kc_find(m, c.e, "(capable of "))) {
		struct gd_kcur k = { cap + 12, c.e };

		if (gd_kc_fnum(&k, &v))
			gd_f64_set(&ev->capable_gbps, v);
	}
	return GD_KLOG_PCIE_BANDWIDTH;
}

/* What the message says, once the prefixes are gone. */
static enum gd_klog_kind message(struct gd_kcur c, struct gd_klog_event *ev)
{
	const char *m;
	struct gd_kcur d;

	if ((m = gd_kc_find(c.p, c.e, "NVRM: ")) && m - c.p < 48) {
		c.p = m + 6;
		return nvrm(c, ev);
	}
	if ((m = gd_kc_find(c.p, c.e, "SXid (")) && m - c.p < 48) {
		struct gd_kcur t = { m + 6, c.e };

		gd_kc_copy(ev->process, sizeof ev->process, c.p, m > c.p + 1 ? m - 2 : m);
		return xid(t, ev, true);
	}
	if ((m = gd_kc_find(c.p, c.e, "Killed process ")))
		return gd__klog_oom(c, m, ev);
	if ((m = gd_kc_find(c.p, c.e, "oom-kill:constraint=")))
		return gd__klog_oom_ctx(c, ev);
	if (gd_kc_at(&c, "INFO: task ") && (m = gd_kc_find(c.p, c.e, " blocked for more than "))) {
		c.p += 11;
		return gd__klog_hung(c, m, ev);
	}
	if ((m = gd_kc_find(c.p, c.e, "EDAC ")) && m - c.p < 8)
		return gd__klog_edac(c, m, ev);
	if (gd_kc_find(c.p, c.e, "[Hardware Error]") || gd_kc_at(&c, "mce: ") || gd_kc_find(c.p, c.e, "achine check") ||
	    gd_kc_find(c.p, c.e, "achine Check"))
		return gd__klog_mce(c, ev);
	if (c.e > c.p && c.e[-1] == ']' && (m = gd_kc_find(c.p, c.e, " [nvidia")))
		return gd__klog_frame_nv(c, ev);
	d = c;
	if (device_prefix(&d, ev)) {
		if (gd_kc_find(d.p, d.e, "PCIe Bus Error: ") || gd_kc_at(&d, "AER:"))
			return aer(d, ev);
		if ((m = gd_kc_find(d.p, d.e, " available PCIe bandwidth")))
			return bandwidth(d, m, ev);
	}
	return GD_KLOG_NONE;
}

/* "<3>" (dmesg -r, lines echoed into /dev/kmsg): the syslog priority, skipped. */
static void syslog_priority(struct gd_kcur *c)
{
	struct gd_kcur t = *c;
	uint64_t pri;

	if (gd_kc_eat(&t, "<") && gd_kc_num(&t, 3, &pri) && gd_kc_eat(&t, ">") && pri < 192)
		*c = t;
}

/* A word of letters (and digits) at c, then blanks, then ':', then blanks;
 * true (c past it) when w holds the word. */
static bool padded_field(struct gd_kcur *c, const char *const *w, size_t nw)
{
	struct gd_kcur t = *c;
	const char *a = t.p;
	bool ok = false;

	while (t.p < t.e && isalnum((unsigned char)*t.p))
		t.p++;
	for (size_t i = 0; i < nw; i++)
		ok = ok || ((size_t)(t.p - a) == strlen(w[i]) && memcmp(a, w[i], (size_t)(t.p - a)) == 0);
	if (!ok)
		return false;
	gd_kc_skip_sp(&t);
	if (!gd_kc_eat(&t, ":"))
		return false;
	gd_kc_skip_sp(&t);
	*c = t;
	return true;
}

/* "[2026-04-22T21:30:51.52643656Z]: " of a forwarded line: the wall time. */
static bool bracket_iso(struct gd_kcur *c, struct gd_klog_event *ev, struct gd_klog_tcache *tc)
{
	const char *close = c->p < c->e && *c->p == '[' ? memchr(c->p, ']', (size_t)(c->e - c->p)) : NULL;
	char buf[48];
	struct gd_kcur t;
	size_t n;

	if (!close || (n = (size_t)(close - c->p - 1)) + 2 > sizeof buf)
		return false;
	memcpy(buf, c->p + 1, n);
	buf[n] = ' ';
	t = (struct gd_kcur){ buf, buf + n + 1 };
	if (!gd__klog_iso_stamp(&t, ev, tc))
		return false;
	c->p = close + 1;
	gd_kc_eat(c, ":");
	gd_kc_skip_sp(c);
	return true;
}

/* Front-ends that put their own fields before the stamps:
 *   kern  :warn  : [  123.456] MSG                  dmesg -x / --decode
 *   192.168.11.119: kern: warning: [2026-04-22T21:30:51.526Z]: MSG
 *                                                   Talos, and logs forwarded so
 *   1 2026-04-22T21:30:51.526Z host kernel - - - MSG   RFC 5424 (its <PRI> skipped)
 * true when one was taken off (c is then past it); false for a line of
 * another program (RFC 5424 with an APP-NAME other than kernel). */
static bool front_end(struct gd_kcur *c, struct gd_klog_event *ev, bool *other, struct gd_klog_tcache *tc)
{
	static const char *const fac[] = { "kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news",
					   "uucp", "cron", "authpriv", "ftp", "local0", "local1", "local2",
					   "local3", "local4", "local5", "local6", "local7" };
	static const char *const lvl[] = { "emerg", "alert", "crit", "err", "warn", "warning", "notice", "info",
					   "debug" };
	struct gd_kcur t = *c;
	const char *m;

	*other = false;
	if (padded_field(&t, fac, sizeof fac / sizeof fac[0]) && padded_field(&t, lvl, sizeof lvl / sizeof lvl[0])) {
		*c = t;
		return true;
	}
	t = *c;
	if ((m = gd_kc_find(t.p, t.e < t.p + 80 ? t.e : t.p + 80, ": kern: ")) && !memchr(t.p, ' ', (size_t)(m - t.p))) {
		t.p = m + 8;
		if (padded_field(&t, lvl, sizeof lvl / sizeof lvl[0]))
			bracket_iso(&t, ev, tc);
		*c = t;
		return true;
	}
	t = *c;
	if (gd_kc_eat(&t, "1 ") && gd__klog_iso_stamp(&t, ev, tc)) {
		const char *f[5];

		for (int i = 0; i < 4; i++) { /* HOSTNAME APP-NAME PROCID MSGID */
			f[i] = t.p;
			while (t.p < t.e && *t.p != ' ')
				t.p++;
			f[i + 1] = t.p;
			gd_kc_skip_sp(&t);
		}
		if (!(f[2] - f[1] - 1 == 6 && memcmp(f[1], "kernel", 6) == 0)) {
			*other = true;
			return false;
		}
		if (gd_kc_eat(&t, "- ") || (t.p < t.e && *t.p == '[' && (m = gd_kc_find(t.p, t.e, "] ")) && (t.p = m + 2)))
			gd_kc_skip_sp(&t);
		*c = t;
		return true;
	}
	return false;
}

/* After an ISO stamp without "host kernel:": dmesg --time-format iso
 * ("2026-04-22T21:30:51,526447+00:00 NVRM: ..."), unless the words after it
 * are a host and another program's tag ("gpu-a17 sshd[812]: ..."). */
static bool other_program(struct gd_kcur c)
{
	const char *sp = memchr(c.p, ' ', (size_t)(c.e - c.p));
	const char *w2 = sp ? sp + 1 : NULL, *e2;

	if (!w2)
		return false;
	e2 = memchr(w2, ' ', (size_t)(c.e - w2));
	e2 = e2 ? e2 : c.e;
	return e2 > w2 && (e2[-1] == ':' || memchr(w2, '[', (size_t)(e2 - w2)));
}

enum gd_klog_kind gd_klog_parse_line_ex(const char *line, size_t n, struct gd_klog_event *ev, bool *no_year)
{
	return gd__klog_parse_line_tc(line, n, ev, no_year, NULL);
}

enum gd_klog_kind gd__klog_parse_line_tc(const char *line, size_t n, struct gd_klog_event *ev, bool *no_year,
					 struct gd_klog_tcache *tc)
{
	bool other;
	struct gd_kcur c = { line, line + n };
	enum gd_klog_kind k;

	memset(ev, 0, sizeof *ev);
	if (no_year)
		*no_year = false;
	while (c.e > c.p && (c.e[-1] == '\r' || c.e[-1] == '\n'))
		c.e--;
	/* journalctl lines pasted indented; dmesg's continuation lines */
	while (c.p < c.e && (*c.p == ' ' || *c.p == '\t'))
		c.p++;
	syslog_priority(&c);
	if (front_end(&c, ev, &other, tc)) {
		if (!ev->wall_time_s.ok && c.p < c.e && *c.p == '[' && !gd__klog_boot_stamp(&c, ev))
			gd__klog_ctime_stamp(&c, ev, tc);
	} else if (other) {
		ev->wall_time_s.ok = false;
		return GD_KLOG_NONE;
	} else if (c.p < c.e && isdigit((unsigned char)*c.p)) {
		if (!gd__klog_kmsg_prefix(&c, ev) && gd__klog_iso_stamp(&c, ev, tc)) {
			if (!gd__klog_kernel_tag(&c) && other_program(c)) {
				ev->wall_time_s.ok = false;
				return GD_KLOG_NONE;
			}
			gd__klog_boot_stamp(&c, ev);
		}
	} else if (c.p < c.e && *c.p == '[') {
		if (!gd__klog_boot_stamp(&c, ev))
			gd__klog_ctime_stamp(&c, ev, tc);
	} else if (gd__klog_syslog_stamp(&c, ev, no_year, tc)) {
		if (!gd__klog_kernel_tag(&c)) {
			ev->wall_time_s.ok = false;
			if (no_year)
				*no_year = false;
			return GD_KLOG_NONE;
		}
		gd__klog_boot_stamp(&c, ev);
	}
	k = message(c, ev);
	if (k == GD_KLOG_NONE) {
		memset(ev, 0, sizeof *ev);
		if (no_year)
			*no_year = false;
	} else if ((unsigned)k < GD_KLOG_NEVENT_KINDS) {
		GD_STRSET(ev->kind, kind_names[k]);
	}
	return k;
}

enum gd_klog_kind gd_klog_parse_line(const char *line, size_t n, struct gd_klog_event *ev)
{
	bool no_year;
	enum gd_klog_kind k = gd_klog_parse_line_ex(line, n, ev, &no_year);

	if (no_year)
		ev->wall_time_s.ok = false;
	return k;
}
