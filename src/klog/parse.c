/*
 * parse.c - one kernel-log line: its time stamps and what it says.
 *
 * Prefixes (any of them, then the message; see klog.h for the front-ends):
 *
 *   4,1234,5023456789,-;MSG                       /dev/kmsg (usec since boot)
 *   [ 5023.456789] MSG   [ 5023.456789][ T812] MSG dmesg (seconds since boot)
 *   [Mon Nov 30 01:02:03 2026] MSG                dmesg -T (local time)
 *   Nov 30 01:02:03[.123456] HOST kernel: MSG     journalctl -k short/-precise, syslog
 *   2026-11-30T01:02:03[.123][+0100|+01:00|Z] HOST kernel: MSG   short-iso, rsyslog
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
 *   nvidia-nvswitch3: SXid (PCI:0000:c5:00.0): 12028, Non-fatal, Link 32 egress ...
 *   nvidia 0000:5d:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)
 *   pci 0000:5d:00.0: 126.016 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x8 link
 *         at 0000:00:01.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)
 *   Out of memory: Killed process 4711 (python) total-vm:123456kB, anon-rss:65432kB, ...
 *   INFO: task python:4711 blocked for more than 120 seconds.
 *   mce: [Hardware Error]: CPU 3: Machine Check: 0 Bank 7: cc00008000010090
 *   EDAC MC0: 1 CE memory read error on CPU_SrcID#0_MC#0_Chan#1_DIMM#0 (channel:1 slot:0 ... socket:0 ...)
 */
#include "klog/klog.h"

#include "core/duration.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* ---- a cursor over the line --------------------------------------------- */

struct cur {
	const char *p, *e;
};

static bool at(const struct cur *c, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(c->e - c->p) >= n && memcmp(c->p, lit, n) == 0;
}

static bool eat(struct cur *c, const char *lit)
{
	if (!at(c, lit))
		return false;
	c->p += strlen(lit);
	return true;
}

static void skip_sp(struct cur *c)
{
	while (c->p < c->e && *c->p == ' ')
		c->p++;
}

static const char *find(const char *p, const char *e, const char *lit)
{
	return p < e ? memmem(p, (size_t)(e - p), lit, strlen(lit)) : NULL;
}

/* Reads up to max decimal digits; false when there is none or it overflows. */
static bool num(struct cur *c, size_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	while (c->p + i < c->e && i < max && isdigit((unsigned char)c->p[i])) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(c->p[i] - '0');
		i++;
	}
	if (!i)
		return false;
	c->p += i;
	*out = v;
	return true;
}

/* "123.456" (digits, optional fraction) as a double. */
static bool fnum(struct cur *c, double *out)
{
	uint64_t ip, fp;
	const char *f;
	double d = 1;

	if (!num(c, 12, &ip))
		return false;
	*out = (double)ip;
	if (c->p < c->e && *c->p == '.') {
		c->p++;
		f = c->p;
		if (!num(c, 9, &fp))
			return false;
		for (const char *q = f; q < c->p; q++)
			d *= 10;
		*out += (double)fp / d;
		while (c->p < c->e && isdigit((unsigned char)*c->p))
			c->p++;
	}
	return true;
}

static int month_of(const char *p)
{
	static const char m[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

	for (int i = 0; i < 12; i++)
		if (memcmp(m + 3 * i, p, 3) == 0)
			return i;
	return -1;
}

/* HH:MM:SS[.frac] */
static bool hms(struct cur *c, struct tm *tm, double *frac)
{
	uint64_t h, m, s;
	struct cur t = *c;

	if (!num(&t, 2, &h) || !eat(&t, ":") || !num(&t, 2, &m) || !eat(&t, ":") || !num(&t, 2, &s) || h > 23 ||
	    m > 59 || s > 60)
		return false;
	tm->tm_hour = (int)h;
	tm->tm_min = (int)m;
	tm->tm_sec = (int)s;
	*frac = 0;
	if (t.p < t.e && *t.p == '.') {
		double d = 0.1;

		t.p++;
		if (t.p >= t.e || !isdigit((unsigned char)*t.p))
			return false;
		while (t.p < t.e && isdigit((unsigned char)*t.p)) {
			*frac += (*t.p - '0') * d;
			d /= 10;
			t.p++;
		}
	}
	*c = t;
	return true;
}

static double local_time(struct tm *tm)
{
	time_t t;

	tm->tm_isdst = -1;
	t = mktime(tm);
	return t == (time_t)-1 ? -1 : (double)t;
}

/* "[ 5023.456789]" and an optional caller id "[ T812]" after it. */
static bool boot_stamp(struct cur *c, struct gd_klog_event *ev)
{
	struct cur t = *c;
	double s;

	if (!eat(&t, "["))
		return false;
	skip_sp(&t);
	if (!fnum(&t, &s) || !eat(&t, "]"))
		return false;
	gd_f64_set(&ev->boot_s, s);
	if (at(&t, "[")) {
		const char *rb = memchr(t.p, ']', (size_t)(t.e - t.p) < 16 ? (size_t)(t.e - t.p) : 16);

		if (rb)
			t.p = rb + 1;
	}
	skip_sp(&t);
	*c = t;
	return true;
}

/* "4,1234,5023456789,-[,caller=T1];" */
static bool kmsg_prefix(struct cur *c, struct gd_klog_event *ev)
{
	struct cur t = *c;
	uint64_t pri, seq, usec;
	const char *semi;

	if (!num(&t, 4, &pri) || !eat(&t, ",") || !num(&t, 20, &seq) || !eat(&t, ",") || !num(&t, 20, &usec) ||
	    !eat(&t, ","))
		return false;
	semi = memchr(t.p, ';', (size_t)(t.e - t.p) < 64 ? (size_t)(t.e - t.p) : 64);
	if (!semi)
		return false;
	gd_f64_set(&ev->boot_s, (double)usec / 1e6);
	c->p = semi + 1;
	return true;
}

/* "[Mon Nov 30 01:02:03 2026]" (dmesg -T). */
static bool ctime_stamp(struct cur *c, struct gd_klog_event *ev)
{
	struct cur t = *c;
	struct tm tm;
	uint64_t d, y;
	double frac, w;
	int mon;

	memset(&tm, 0, sizeof tm);
	if (!eat(&t, "[") || t.e - t.p < 24 || t.p[3] != ' ' || (mon = month_of(t.p + 4)) < 0)
		return false;
	t.p += 8;
	skip_sp(&t);
	if (!num(&t, 2, &d) || !eat(&t, " ") || !hms(&t, &tm, &frac) || !eat(&t, " ") || !num(&t, 4, &y) ||
	    !eat(&t, "]"))
		return false;
	tm.tm_year = (int)y - 1900;
	tm.tm_mon = mon;
	tm.tm_mday = (int)d;
	if ((w = local_time(&tm)) < 0)
		return false;
	gd_f64_set(&ev->wall_time_s, w + frac);
	skip_sp(&t);
	*c = t;
	return true;
}

/* "2026-11-30T01:02:03[.frac][Z|+0100|+01:00]" then a space. */
static bool iso_stamp(struct cur *c, struct gd_klog_event *ev)
{
	struct cur t = *c;
	struct tm tm;
	uint64_t y, mo, d;
	double frac, w;

	memset(&tm, 0, sizeof tm);
	if (!num(&t, 4, &y) || !eat(&t, "-") || !num(&t, 2, &mo) || !eat(&t, "-") || !num(&t, 2, &d) ||
	    (!eat(&t, "T") && !eat(&t, " ")) || !hms(&t, &tm, &frac) || mo < 1 || mo > 12 || d < 1 || d > 31)
		return false;
	tm.tm_year = (int)y - 1900;
	tm.tm_mon = (int)mo - 1;
	tm.tm_mday = (int)d;
	if (eat(&t, "Z")) {
		w = (double)timegm(&tm);
	} else if (t.p < t.e && (*t.p == '+' || *t.p == '-')) {
		int sign = *t.p == '-' ? -1 : 1;
		uint64_t oh, om;

		t.p++;
		if (!num(&t, 2, &oh))
			return false;
		eat(&t, ":");
		if (!num(&t, 2, &om))
			return false;
		w = (double)timegm(&tm) - sign * (double)(oh * 3600 + om * 60);
	} else {
		if ((w = local_time(&tm)) < 0)
			return false;
	}
	if (!eat(&t, " "))
		return false;
	gd_f64_set(&ev->wall_time_s, w + frac);
	*c = t;
	return true;
}

/* "Nov 30 01:02:03[.frac] " (no year: computed for 2000). */
static bool syslog_stamp(struct cur *c, struct gd_klog_event *ev, bool *no_year)
{
	struct cur t = *c;
	struct tm tm;
	uint64_t d;
	double frac, w;
	int mon;

	memset(&tm, 0, sizeof tm);
	if (t.e - t.p < 15 || t.p[3] != ' ' || (mon = month_of(t.p)) < 0)
		return false;
	t.p += 4;
	skip_sp(&t);
	if (!num(&t, 2, &d) || !eat(&t, " ") || !hms(&t, &tm, &frac) || !eat(&t, " "))
		return false;
	tm.tm_year = 100;
	tm.tm_mon = mon;
	tm.tm_mday = (int)d;
	if (no_year && (w = local_time(&tm)) >= 0) {
		gd_f64_set(&ev->wall_time_s, w + frac);
		*no_year = true;
	}
	*c = t;
	return true;
}

/* After a syslog stamp: "HOST kernel: ".  False for another program. */
static bool kernel_tag(struct cur *c)
{
	const char *sp = memchr(c->p, ' ', (size_t)(c->e - c->p));
	struct cur t;

	if (!sp)
		return false;
	t.p = sp + 1;
	t.e = c->e;
	if (!eat(&t, "kernel:"))
		return false;
	skip_sp(&t);
	*c = t;
	return true;
}

/* ---- fields ------------------------------------------------------------- */

static bool is_hex(char ch)
{
	return isxdigit((unsigned char)ch) != 0;
}

/* "dddd:bb:dd" with an optional ".f": normalised, lower case, ".0" added. */
static bool bus_id(struct cur *c, char *out, size_t outsz)
{
	const char *p = c->p;
	char b[16];
	size_t n = 0;

	if (c->e - p < 10)
		return false;
	for (int i = 0; i < 10; i++) {
		bool colon = i == 4 || i == 7;

		if (colon ? p[i] != ':' : !is_hex(p[i]))
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

static void text(struct gd_klog_event *ev, const char *p, const char *e)
{
	size_t n = (size_t)(e - p);

	if (n >= sizeof ev->text)
		n = sizeof ev->text - 1;
	memcpy(ev->text, p, n);
	ev->text[n] = '\0';
}

static void copy(char *dst, size_t sz, const char *p, const char *e)
{
	size_t n = p < e ? (size_t)(e - p) : 0;

	if (n >= sz)
		n = sz - 1;
	memcpy(dst, p, n);
	dst[n] = '\0';
}

/* Value after "key" (e.g. "socket:") as a number. */
static bool keyed_u64(const char *p, const char *e, const char *key, struct gd_u64 *out)
{
	const char *k = find(p, e, key);
	struct cur c;
	uint64_t v;

	if (!k)
		return false;
	c.p = k + strlen(key);
	c.e = e;
	if (!num(&c, 19, &v))
		return false;
	gd_u64_set(out, v);
	return true;
}

/* NVRM: Xid (PCI:dddd:bb:dd[ GPU-I:NN][ GPU-CI:NN]): N[, pid=P][, name=NAME], MSG */
static enum gd_klog_kind xid(struct cur c, struct gd_klog_event *ev, bool sxid)
{
	const char *rp;
	uint64_t code, v;

	eat(&c, "PCI:");
	if (!bus_id(&c, ev->pci_bus_id, sizeof ev->pci_bus_id))
		return GD_KLOG_NONE;
	rp = memchr(c.p, ')', (size_t)(c.e - c.p));
	if (!rp)
		return GD_KLOG_NONE;
	{
		const char *gi = find(c.p, rp, "GPU-I:"), *ci = find(c.p, rp, "GPU-CI:");
		struct cur t;

		if (gi) {
			t.p = gi + 6, t.e = rp;
			if (num(&t, 4, &v))
				gd_u64_set(&ev->gpu_instance, v);
		}
		if (ci) {
			t.p = ci + 7, t.e = rp;
			if (num(&t, 4, &v))
				gd_u64_set(&ev->compute_instance, v);
		}
	}
	c.p = rp + 1;
	if (!eat(&c, ":"))
		return GD_KLOG_NONE;
	skip_sp(&c);
	if (!num(&c, 6, &code) || (c.p < c.e && *c.p != ',' && *c.p != ' '))
		return GD_KLOG_NONE;
	gd_u64_set(&ev->code, code);
	eat(&c, ",");
	skip_sp(&c);
	if (sxid) {
		if (at(&c, "Data {") || at(&c, "Severity "))
			return GD_KLOG_NONE;   /* detail lines of the SXid above */
		if (eat(&c, "Fatal"))
			GD_STRSET(ev->severity, "fatal");
		else if (eat(&c, "Non-fatal") || eat(&c, "Non-Fatal"))
			GD_STRSET(ev->severity, "non-fatal");
		eat(&c, ",");
		skip_sp(&c);
		text(ev, c.p, c.e);
		return GD_KLOG_SXID;
	}
	if (eat(&c, "pid=")) {
		const char *comma = find(c.p, c.e, ", ");
		struct cur t = { c.p, comma ? comma : c.e };

		if (num(&t, 10, &v) && t.p == t.e)
			gd_u64_set(&ev->pid, v);
		c.p = comma ? comma + 2 : c.e;
	}
	if (eat(&c, "name=")) {
		const char *comma = find(c.p, c.e, ", ");
		const char *end = comma ? comma : c.e;

		if (!(end - c.p == 9 && memcmp(c.p, "<unknown>", 9) == 0))
			copy(ev->process, sizeof ev->process, c.p, end);
		c.p = comma ? comma + 2 : c.e;
	}
	text(ev, c.p, c.e);
	if (code == 154) {
		/* "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)" */
		const char *to = find(c.p, c.e, " to 0x");

		if (to) {
			struct cur t = { to + 6, c.e };
			const char *lp, *rpn;

			if (num(&t, 2, &v))
				gd_u64_set(&ev->action_code, v);
			lp = memchr(t.p, '(', (size_t)(t.e - t.p));
			rpn = lp ? memchr(lp, ')', (size_t)(t.e - lp)) : NULL;
			if (rpn)
				copy(ev->detail, sizeof ev->detail, lp + 1, rpn);
		}
	}
	return GD_KLOG_XID;
}

static bool has_timeout(const char *p, const char *e)
{
	return find(p, e, "timeout") || find(p, e, "Timeout") || find(p, e, "timed out") || find(p, e, "TIMEOUT");
}

static enum gd_klog_kind nvrm(struct cur c, struct gd_klog_event *ev)
{
	struct cur t;

	text(ev, c.p, c.e);
	if (eat(&c, "Xid (")) {
		ev->text[0] = '\0';
		return xid(c, ev, false);
	}
	if (eat(&c, "GPU at PCI:")) {
		const char *u;

		if (!bus_id(&c, ev->pci_bus_id, sizeof ev->pci_bus_id) || !(u = find(c.p, c.e, "GPU-")))
			return GD_KLOG_NONE;
		t.p = u;
		while (t.p < c.e && (isalnum((unsigned char)*t.p) || *t.p == '-'))
			t.p++;
		copy(ev->uuid, sizeof ev->uuid, u, t.p);
		gd_u64_set(&ev->is_gpu, 1);
		return GD_KLOG_GPU_UUID;
	}
	if (eat(&c, "The NVIDIA GPU ")) {
		if (!bus_id(&c, ev->pci_bus_id, sizeof ev->pci_bus_id))
			return GD_KLOG_NONE;
		return GD_KLOG_CTX_PROBE_GPU;
	}
	t = c;
	if (eat(&t, "GPU ") && bus_id(&t, ev->pci_bus_id, sizeof ev->pci_bus_id))
		gd_u64_set(&ev->is_gpu, 1);
	if (find(c.p, c.e, "GPU has fallen off the bus"))
		return GD_KLOG_FALLEN_OFF_BUS;
	if (find(c.p, c.e, "fallen off the bus and is not responding"))
		return GD_KLOG_CTX_FALLEN_OFF;
	if (find(c.p, c.e, "RmInitAdapter failed") || find(c.p, c.e, "rm_init_adapter failed") ||
	    find(c.p, c.e, "probe routine failed"))
		return GD_KLOG_INIT_FAILED;
	if (find(c.p, c.e, "NV_ERR_RESET_REQUIRED"))
		return GD_KLOG_RESET_REQUIRED;
	if (!find(c.p, c.e, "_kgspLogXid") && has_timeout(c.p, c.e) &&
	    (find(c.p, c.e, "GSP") || find(c.p, c.e, "RPC") || find(c.p, c.e, "Rpc") ||
	     find(c.p, c.e, "eartbeat")))
		return GD_KLOG_GSP_TIMEOUT;
	return GD_KLOG_NONE;
}

/* "DRIVER dddd:bb:dd.f: " at the start of a message. */
static bool device_prefix(struct cur *c, struct gd_klog_event *ev)
{
	const char *sp = memchr(c->p, ' ', (size_t)(c->e - c->p) < 40 ? (size_t)(c->e - c->p) : 40);
	struct cur t;

	if (!sp || sp == c->p)
		return false;
	t.p = sp + 1;
	t.e = c->e;
	if (!bus_id(&t, ev->pci_bus_id, sizeof ev->pci_bus_id) || !eat(&t, ":"))
		return false;
	copy(ev->process, sizeof ev->process, c->p, sp);
	if (strcmp(ev->process, "nvidia") == 0)
		gd_u64_set(&ev->is_gpu, 1);
	skip_sp(&t);
	*c = t;
	return true;
}

static enum gd_klog_kind aer(struct cur c, struct gd_klog_event *ev)
{
	const char *m = find(c.p, c.e, "PCIe Bus Error: ");
	const char *sev, *typ;

	text(ev, c.p, c.e);
	if (!m) {
		const char *d = find(c.p, c.e, "device [");

		if (d && find(c.p, c.e, "error status/mask")) {
			if (c.e - d >= 13 && memcmp(d + 8, "10de:", 5) == 0)
				gd_u64_set(&ev->is_gpu, 1);
			return GD_KLOG_CTX_AER_DEVICE;
		}
		if ((d = find(c.p, c.e, "AER:")) && (d = memchr(d, '[', (size_t)(c.e - d))) &&
		    (d = memchr(d, ']', (size_t)(c.e - d)))) {
			struct cur t = { d + 1, c.e };
			const char *w;

			skip_sp(&t);
			w = t.p;
			while (t.p < t.e && *t.p != ' ')
				t.p++;
			copy(ev->detail, sizeof ev->detail, w, t.p);
			return ev->detail[0] ? GD_KLOG_CTX_AER_BIT : GD_KLOG_NONE;
		}
		return GD_KLOG_NONE;
	}
	sev = find(m, c.e, "severity=");
	if (!sev)
		return GD_KLOG_NONE;
	sev += 9;
	if (c.e - sev >= 7 && memcmp(sev, "Correct", 7) == 0)
		GD_STRSET(ev->severity, "corrected");
	else if (find(sev, c.e, "Non-Fatal"))
		GD_STRSET(ev->severity, "nonfatal");
	else if (find(sev, c.e, "Fatal"))
		GD_STRSET(ev->severity, "fatal");
	else
		return GD_KLOG_NONE;
	typ = find(sev, c.e, "type=");
	if (typ) {
		const char *comma = memchr(typ, ',', (size_t)(c.e - typ));
		const char *ap = comma ? memchr(comma, '(', (size_t)(c.e - comma)) : NULL;
		const char *rp = ap ? memchr(ap, ')', (size_t)(c.e - ap)) : NULL;
		char a[32] = "", b[40] = "";

		copy(b, sizeof b, typ + 5, comma ? comma : c.e);
		if (rp)
			copy(a, sizeof a, ap + 1, rp);
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
static enum gd_klog_kind bandwidth(struct cur c, const char *m, struct gd_klog_event *ev)
{
	struct cur t = c;
	const char *lim, *cap;
	double v;

	text(ev, c.p, c.e);
	if (!fnum(&t, &v) || !eat(&t, " Gb/s"))
		return GD_KLOG_NONE;
	gd_f64_set(&ev->bandwidth_gbps, v);
	if ((lim = find(m, c.e, " link at "))) {
		struct cur l = { lim + 9, c.e };

		bus_id(&l, ev->limit_at, sizeof ev->limit_at);
	}
	if ((cap = find(m, c.e, "(capable of "))) {
		struct cur k = { cap + 12, c.e };

		if (fnum(&k, &v))
			gd_f64_set(&ev->capable_gbps, v);
	}
	return GD_KLOG_PCIE_BANDWIDTH;
}

/* "Killed process 4711 (python) total-vm:123456kB, anon-rss:65432kB, ..." */
static enum gd_klog_kind oom(struct cur c, const char *k, struct gd_klog_event *ev)
{
	struct cur t = { k + 15, c.e };
	const char *lp, *rp;
	uint64_t v;

	text(ev, c.p, c.e);
	if (!num(&t, 10, &v))
		return GD_KLOG_NONE;
	gd_u64_set(&ev->pid, v);
	skip_sp(&t);
	lp = t.p < t.e && *t.p == '(' ? t.p : NULL;
	rp = lp ? find(lp, c.e, ") ") : NULL;
	if (!rp && lp && c.e > lp && c.e[-1] == ')')
		rp = c.e - 1;
	if (rp)
		copy(ev->process, sizeof ev->process, lp + 1, rp);
	if (keyed_u64(c.p, c.e, "anon-rss:", &ev->anon_rss_bytes))
		ev->anon_rss_bytes.v *= 1024;
	if (keyed_u64(c.p, c.e, "total-vm:", &ev->total_vm_bytes))
		ev->total_vm_bytes.v *= 1024;
	if (find(c.p, k, "Memory cgroup"))
		GD_STRSET(ev->detail, "memory cgroup limit");
	return GD_KLOG_OOM_KILL;
}

/* "oom-kill:constraint=CONSTRAINT_MEMCG,...,task_memcg=/x,task=python,pid=4711,uid=0" */
static enum gd_klog_kind oom_ctx(struct cur c, struct gd_klog_event *ev)
{
	const char *k = find(c.p, c.e, "constraint="), *comma;

	if (!k)
		return GD_KLOG_NONE;
	k += 11;
	comma = memchr(k, ',', (size_t)(c.e - k));
	copy(ev->detail, sizeof ev->detail, k, comma ? comma : c.e);
	if ((k = find(c.p, c.e, ",pid=")))
		keyed_u64(k, c.e, ",pid=", &ev->pid);
	if ((k = find(c.p, c.e, "task_memcg="))) {
		size_t n = strlen(ev->detail);

		k += 11;
		comma = memchr(k, ',', (size_t)(c.e - k));
		if (n + 2 < sizeof ev->detail) {
			memcpy(ev->detail + n, " ", 2);
			copy(ev->detail + n + 1, sizeof ev->detail - n - 1, k, comma ? comma : c.e);
		}
	}
	return GD_KLOG_CTX_OOM;
}

/* "INFO: task python:4711 blocked for more than 120 seconds." */
static enum gd_klog_kind hung(struct cur c, const char *b, struct gd_klog_event *ev)
{
	const char *colon = NULL, *name = c.p;
	struct cur t;
	uint64_t v;

	text(ev, c.p, c.e);
	for (const char *q = name; q < b; q++)
		if (*q == ':')
			colon = q;
	if (!colon)
		return GD_KLOG_NONE;
	t.p = colon + 1;
	t.e = b;
	if (!num(&t, 10, &v))
		return GD_KLOG_NONE;
	gd_u64_set(&ev->pid, v);
	copy(ev->process, sizeof ev->process, name, colon);
	t.p = b + 23;
	t.e = c.e;
	if (num(&t, 10, &v))
		gd_f64_set(&ev->duration_s, (double)v);
	return GD_KLOG_HUNG_TASK;
}

static enum gd_klog_kind mce(struct cur c, struct gd_klog_event *ev)
{
	const char *m;

	text(ev, c.p, c.e);
	if ((m = find(c.p, c.e, "PROCESSOR ")) && keyed_u64(m, c.e, "SOCKET ", &ev->socket))
		return GD_KLOG_CTX_MCE_SOCKET;
	if ((m = find(c.p, c.e, "Machine Check: ")) || (m = find(c.p, c.e, "Machine Check Exception: "))) {
		/* "CPU 3: Machine Check: 0 Bank 7: cc00008000010090": bit 61 of the status = uncorrected */
		const char *bank = find(m, c.e, " Bank ");
		const char *st = bank ? find(bank + 6, c.e, ": ") : NULL;

		GD_STRSET(ev->severity, "unknown");
		if (st) {
			uint64_t status = 0;

			for (const char *q = st + 2; q < c.e && is_hex(*q) && q < st + 18; q++)
				status = status << 4 | (uint64_t)(isdigit((unsigned char)*q) ? *q - '0'
											: (tolower((unsigned char)*q) - 'a' + 10));

			GD_STRSET(ev->severity, (status >> 61) & 1 ? "uncorrected" : "corrected");
		}
		return GD_KLOG_MCE;
	}
	if (find(c.p, c.e, "Machine check events logged")) {
		GD_STRSET(ev->severity, "logged");
		return GD_KLOG_MCE;
	}
	if (find(c.p, c.e, "Uncorrected hardware memory error") || find(c.p, c.e, "Fatal machine check") ||
	    find(c.p, c.e, "Fatal Machine check") || find(c.p, c.e, "Uncorrected error")) {
		GD_STRSET(ev->severity, "uncorrected");
		return GD_KLOG_MCE;
	}
	if (find(c.p, c.e, "Corrected error")) {
		GD_STRSET(ev->severity, "corrected");
		return GD_KLOG_MCE;
	}
	return GD_KLOG_NONE;
}

/* "EDAC [drv ]MC0: 1 CE memory read error on LABEL (channel:1 slot:0 ... socket:0 ...)" */
static enum gd_klog_kind edac(struct cur c, const char *e, struct gd_klog_event *ev)
{
	const char *mc = find(e, c.e, "MC");
	struct cur t;
	uint64_t v;
	const char *on, *lp;

	text(ev, c.p, c.e);
	if (!mc || mc - e > 24 || (size_t)(c.e - mc) < 3)
		return GD_KLOG_NONE;
	t.p = mc + 2;
	t.e = c.e;
	if (!num(&t, 4, &v) || !eat(&t, ":"))
		return GD_KLOG_NONE;
	gd_u64_set(&ev->mc, v);
	skip_sp(&t);
	if (!num(&t, 19, &v) || !eat(&t, " "))
		return GD_KLOG_NONE;
	gd_u64_set(&ev->count, v);
	if (eat(&t, "CE"))
		GD_STRSET(ev->severity, "CE");
	else if (eat(&t, "UE"))
		GD_STRSET(ev->severity, "UE");
	else
		return GD_KLOG_NONE;
	if ((on = find(t.p, c.e, " on "))) {
		lp = find(on + 4, c.e, " (");
		copy(ev->dimm, sizeof ev->dimm, on + 4, lp ? lp : c.e);
	}
	if (!keyed_u64(t.p, c.e, "socket:", &ev->socket))
		keyed_u64(t.p, c.e, "SrcID#", &ev->socket);
	if (!keyed_u64(t.p, c.e, "channel:", &ev->channel))
		keyed_u64(t.p, c.e, "Chan#", &ev->channel);
	return GD_KLOG_EDAC;
}

/* What the message says, once the prefixes are gone. */
static enum gd_klog_kind message(struct cur c, struct gd_klog_event *ev)
{
	const char *m;
	struct cur d;

	if ((m = find(c.p, c.e, "NVRM: ")) && m - c.p < 48) {
		c.p = m + 6;
		return nvrm(c, ev);
	}
	if ((m = find(c.p, c.e, "SXid (")) && m - c.p < 48) {
		struct cur t = { m + 6, c.e };

		copy(ev->process, sizeof ev->process, c.p, m > c.p + 1 ? m - 2 : m);
		return xid(t, ev, true);
	}
	if ((m = find(c.p, c.e, "Killed process ")))
		return oom(c, m, ev);
	if ((m = find(c.p, c.e, "oom-kill:constraint=")))
		return oom_ctx(c, ev);
	if (at(&c, "INFO: task ") && (m = find(c.p, c.e, " blocked for more than "))) {
		c.p += 11;
		return hung(c, m, ev);
	}
	if ((m = find(c.p, c.e, "EDAC ")) && m - c.p < 8)
		return edac(c, m, ev);
	if (find(c.p, c.e, "[Hardware Error]") || at(&c, "mce: ") || find(c.p, c.e, "achine check") ||
	    find(c.p, c.e, "achine Check"))
		return mce(c, ev);
	d = c;
	if (device_prefix(&d, ev)) {
		if (find(d.p, d.e, "PCIe Bus Error: ") || at(&d, "AER:"))
			return aer(d, ev);
		if ((m = find(d.p, d.e, " available PCIe bandwidth")))
			return bandwidth(d, m, ev);
	}
	return GD_KLOG_NONE;
}

enum gd_klog_kind gd_klog_parse_line_ex(const char *line, size_t n, struct gd_klog_event *ev, bool *no_year)
{
	struct cur c = { line, line + n };
	enum gd_klog_kind k;

	memset(ev, 0, sizeof *ev);
	if (no_year)
		*no_year = false;
	while (c.e > c.p && (c.e[-1] == '\r' || c.e[-1] == '\n'))
		c.e--;
	if (c.p < c.e && isdigit((unsigned char)*c.p)) {
		if (!kmsg_prefix(&c, ev) && iso_stamp(&c, ev)) {
			if (!kernel_tag(&c))
				return GD_KLOG_NONE;
			boot_stamp(&c, ev);
		}
	} else if (c.p < c.e && *c.p == '[') {
		if (!boot_stamp(&c, ev))
			ctime_stamp(&c, ev);
	} else if (syslog_stamp(&c, ev, no_year)) {
		if (!kernel_tag(&c)) {
			ev->wall_time_s.ok = false;
			if (no_year)
				*no_year = false;
			return GD_KLOG_NONE;
		}
		boot_stamp(&c, ev);
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

int gd_klog_parse_since(const char *text, double now_wall, double *since, struct gd_err *err)
{
	struct cur c = { text, text + strlen(text) };
	struct tm tm;
	uint64_t y, mo, d, h = 0, mi = 0, s = 0;
	double w;
	struct gd_err derr;

	gd_err_clear(&derr);
	if (gd_duration_parse(text, &w, &derr) == 0) {
		*since = now_wall - w;
		return 0;
	}
	memset(&tm, 0, sizeof tm);
	if (!num(&c, 4, &y) || !eat(&c, "-") || !num(&c, 2, &mo) || !eat(&c, "-") || !num(&c, 2, &d) || mo < 1 ||
	    mo > 12 || d < 1 || d > 31 || y < 1970)
		goto bad;
	if (eat(&c, "T") || eat(&c, " ")) {
		if (!num(&c, 2, &h) || !eat(&c, ":") || !num(&c, 2, &mi) || h > 23 || mi > 59)
			goto bad;
		if (eat(&c, ":") && (!num(&c, 2, &s) || s > 60))
			goto bad;
	}
	if (c.p != c.e)
		goto bad;
	tm.tm_year = (int)y - 1900;
	tm.tm_mon = (int)mo - 1;
	tm.tm_mday = (int)d;
	tm.tm_hour = (int)h;
	tm.tm_min = (int)mi;
	tm.tm_sec = (int)s;
	if ((w = local_time(&tm)) < 0)
		goto bad;
	*since = w;
	return 0;
bad:
	return gd_err_set(err, -EINVAL,
			  "\"%s\" is neither a time (2026-11-30T01:00, local time) nor a duration (24h, 90m)", text);
}
