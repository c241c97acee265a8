/*
 * parse_host.c - the kernel-log messages about the host rather than the GPU
 * driver or PCIe: OOM kills, hung tasks, machine checks and EDAC memory
 * errors.  parse.c strips the line's prefixes, finds the message's marker
 * and hands it here (gd__klog_* in lineparse.h); the shapes read:
 *
 *   Out of memory: Killed process 4711 (python) total-vm:123456kB, anon-rss:65432kB, ...
 *   oom-kill:constraint=CONSTRAINT_MEMCG,...,task_memcg=/x,task=python,pid=4711,uid=0
 *   INFO: task python:4711 blocked for more than 120 seconds.
 *   and the frames of its call trace that lie in an NVIDIA module, in the
 *   three shapes kernels print them (FACTS.md §7.3):
 *     os_acquire_rwlock_read+0x35/0x50 [nvidia]                  (4.x and later)
 *     ? _nv052958rm+0x2cc/0x360 [nvidia]                          (unreliable frame)
 *     [<ffffffffa09c376e>] uvm_gpu_retain_by_uuid+0x1e/0x40 [nvidia_uvm]   (older)
 *   mce: [Hardware Error]: CPU 3: Machine Check: 0 Bank 7: cc00008000010090
 *   EDAC MC0: 1 CE memory read error on CPU_SrcID#0_MC#0_Chan#1_DIMM#0 (channel:1 slot:0 ... socket:0 ...)
 */
#include "klog/lineparse.h"

#include <ctype.h>
#include <string.h>

/* "Killed process 4711 (python) total-vm:123456kB, anon-rss:65432kB, ..." */
enum gd_klog_kind gd__klog_oom(struct gd_kcur c, const char *k, struct gd_klog_event *ev)
{
	struct gd_kcur t = { k + 15, c.e };
	const char *lp, *rp;
	uint64_t v;

	gd_kc_text(ev, c.p, c.e);
	if (!gd_kc_num(&t, 10, &v))
		return GD_KLOG_NONE;
	gd_u64_set(&ev->pid, v);
	gd_kc_skip_sp(&t);
	lp = t.p < t.e && *t.p == '(' ? t.p : NULL;
	rp = lp ? gd_kc_find(lp, c.e, ") ") : NULL;
	if (!rp && lp && c.e > lp && c.e[-1] == ')')
		rp = c.e - 1;
	if (rp)
		gd_kc_copy(ev->process, sizeof ev->process, lp + 1, rp);
	if (gd_kc_keyed_u64(c.p, c.e, "anon-rss:", &ev->anon_rss_bytes))
		ev->anon_rss_bytes.v *= 1024;
	if (gd_kc_keyed_u64(c.p, c.e, "total-vm:", &ev->total_vm_bytes))
		ev->total_vm_bytes.v *= 1024;
	if (gd_kc_find(c.p, k, "Memory cgroup"))
		GD_STRSET(ev->detail, "memory cgroup limit");
	return GD_KLOG_OOM_KILL;
}

/* "oom-kill:constraint=CONSTRAINT_MEMCG,...,task_memcg=/x,task=python,pid=4711,uid=0" */
enum gd_klog_kind gd__klog_oom_ctx(struct gd_kcur c, struct gd_klog_event *ev)
{
	const char *k = gd_kc_find(c.p, c.e, "constraint="), *comma;

	if (!k)
		return GD_KLOG_NONE;
	k += 11;
	comma = memchr(k, ',', (size_t)(c.e - k));
	gd_kc_copy(ev->detail, sizeof ev->detail, k, comma ? comma : c.e);
	if ((k = gd_kc_find(c.p, c.e, ",pid=")))
		gd_kc_keyed_u64(k, c.e, ",pid=", &ev->pid);
	if ((k = gd_kc_find(c.p, c.e, "task_memcg="))) {
		size_t n = strlen(ev->detail);

		k += 11;
		comma = memchr(k, ',', (size_t)(c.e - k));
		if (n + 2 < sizeof ev->detail) {
			memcpy(ev->detail + n, " ", 2);
			gd_kc_copy(ev->detail + n + 1, sizeof ev->detail - n - 1, k, comma ? comma : c.e);
		}
	}
	return GD_KLOG_CTX_OOM;
}

/* "INFO: task python:4711 blocked for more than 120 seconds." */
enum gd_klog_kind gd__klog_hung(struct gd_kcur c, const char *b, struct gd_klog_event *ev)
{
	const char *colon = NULL, *name = c.p;
	struct gd_kcur t;
	uint64_t v;

	gd_kc_text(ev, c.p, c.e);
	for (const char *q = name; q < b; q++)
		if (*q == ':')
			colon = q;
	if (!colon)
		return GD_KLOG_NONE;
	t.p = colon + 1;
	t.e = b;
	if (!gd_kc_num(&t, 10, &v))
		return GD_KLOG_NONE;
	gd_u64_set(&ev->pid, v);
	gd_kc_copy(ev->process, sizeof ev->process, name, colon);
	t.p = b + 23;
	t.e = c.e;
	if (gd_kc_num(&t, 10, &v))
		gd_f64_set(&ev->duration_s, (double)v);
	return GD_KLOG_HUNG_TASK;
}

/* " [<hex>] ? sym+0x1c/0x30 [nvidia_uvm]": the frame "sym [nvidia_uvm]" in
 * ev->trace ("?" frames are the unwinder's guesses: kept, marked "?").
 * Anything else on the line (a word that is no symbol, no offset, a module
 * that is not NVIDIA's) and it is no frame. */
enum gd_klog_kind gd__klog_frame_nv(struct gd_kcur c, struct gd_klog_event *ev)
{
	const char *sym, *plus, *lb;
	bool guess = false;
	size_t n = 0;

	gd_kc_skip_sp(&c);
	if (gd_kc_eat(&c, "[<")) {
		while (c.p < c.e && gd_kc_is_hex(*c.p))
			c.p++;
		if (!gd_kc_eat(&c, ">]"))
			return GD_KLOG_NONE;
		gd_kc_skip_sp(&c);
	}
	if (gd_kc_eat(&c, "? "))
		guess = true;
	sym = c.p;
	while (c.p < c.e && (isalnum((unsigned char)*c.p) || *c.p == '_' || *c.p == '.'))
		c.p++;
	plus = c.p;
	if (plus == sym || plus - sym > 96 || !gd_kc_eat(&c, "+0x"))
		return GD_KLOG_NONE;
	while (c.p < c.e && (gd_kc_is_hex(*c.p) || *c.p == '/' || *c.p == 'x'))
		c.p++;
	lb = c.p;
	if (!gd_kc_eat(&c, " [nvidia"))
		return GD_KLOG_NONE;
	while (c.p < c.e && (isalnum((unsigned char)*c.p) || *c.p == '_'))
		c.p++;
	if (c.p + 1 != c.e || *c.p != ']')
		return GD_KLOG_NONE;
	if (guess)
		ev->trace[n++] = '?';
	gd_kc_copy(ev->trace + n, sizeof ev->trace - n, sym, plus);
	n = strlen(ev->trace);
	gd_kc_copy(ev->trace + n, sizeof ev->trace - n, lb, c.e);
	gd_kc_text(ev, sym, c.e);
	return GD_KLOG_CTX_TRACE_NV;
}

enum gd_klog_kind gd__klog_mce(struct gd_kcur c, struct gd_klog_event *ev)
{
	const char *m;

	gd_kc_text(ev, c.p, c.e);
	if ((m = gd_kc_find(c.p, c.e, "PROCESSOR ")) && gd_kc_keyed_u64(m, c.e, "SOCKET ", &ev->socket))
		return GD_KLOG_CTX_MCE_SOCKET;
	if ((m = gd_kc_find(c.p, c.e, "Machine Check: ")) || (m = gd_kc_find(c.p, c.e, "Machine Check Exception: "))) {
		/* "CPU 3: Machine Check: 0 Bank 7: cc00008000010090": bit 61 of the status = uncorrected;
		 * all 16 digits or no verdict (a cut status loses its high bits) */
		const char *bank = gd_kc_find(m, c.e, " Bank ");
		const char *st = bank ? gd_kc_find(bank + 6, c.e, ": ") : NULL;

		GD_STRSET(ev->severity, "unknown");
		if (st) {
			uint64_t status = 0;
			int digits = 0;

			for (const char *q = st + 2; q < c.e && gd_kc_is_hex(*q) && q < st + 18; q++, digits++)
				status = status << 4 | (uint64_t)(isdigit((unsigned char)*q) ? *q - '0'
											: (tolower((unsigned char)*q) - 'a' + 10));

			if (digits == 16)
				GD_STRSET(ev->severity, (status >> 61) & 1 ? "uncorrected" : "corrected");
		}
		return GD_KLOG_MCE;
	}
	if (gd_kc_find(c.p, c.e, "Machine check events logged")) {
		GD_STRSET(ev->severity, "logged");
		return GD_KLOG_MCE;
	}
	if (gd_kc_find(c.p, c.e, "Uncorrected hardware memory error") || gd_kc_find(c.p, c.e, "Fatal machine check") ||
	    gd_kc_find(c.p, c.e, "Fatal Machine check") || gd_kc_find(c.p, c.e, "Uncorrected error")) {
		GD_STRSET(ev->severity, "uncorrected");
		return GD_KLOG_MCE;
	}
	if (gd_kc_find(c.p, c.e, "Corrected error")) {
		GD_STRSET(ev->severity, "corrected");
		return GD_KLOG_MCE;
	}
	return GD_KLOG_NONE;
}

/* "EDAC [drv ]MC0: 1 CE memory read error on LABEL (channel:1 slot:0 ... socket:0 ...)" */
enum gd_klog_kind gd__klog_edac(struct gd_kcur c, const char *e, struct gd_klog_event *ev)
{
	const char *mc = gd_kc_find(e, c.e, "MC");
	struct gd_kcur t;
	uint64_t v;
	const char *on, *lp;

	gd_kc_text(ev, c.p, c.e);
	if (!mc || mc - e > 24 || (size_t)(c.e - mc) < 3)
		return GD_KLOG_NONE;
	t.p = mc + 2;
	t.e = c.e;
	if (!gd_kc_num(&t, 4, &v) || !gd_kc_eat(&t, ":"))
		return GD_KLOG_NONE;
	gd_u64_set(&ev->mc, v);
	gd_kc_skip_sp(&t);
	if (!gd_kc_num(&t, 19, &v) || !gd_kc_eat(&t, " "))
		return GD_KLOG_NONE;
	gd_u64_set(&ev->count, v);
	if (gd_kc_eat(&t, "CE"))
		GD_STRSET(ev->severity, "CE");
	else if (gd_kc_eat(&t, "UE"))
		GD_STRSET(ev->severity, "UE");
	else
		return GD_KLOG_NONE;
	if ((on = gd_kc_find(t.p, c.e, " on "))) {
		lp = gd_kc_find(on + 4, c.e, " (");
		gd_kc_copy(ev->dimm, sizeof ev->dimm, on + 4, lp ? lp : c.e);
	}
	if (!gd_kc_keyed_u64(t.p, c.e, "socket:", &ev->socket))
		gd_kc_keyed_u64(t.p, c.e, "SrcID#", &ev->socket);
	if (!gd_kc_keyed_u64(t.p, c.e, "channel:", &ev->channel))
		gd_kc_keyed_u64(t.p, c.e, "Chan#", &ev->channel);
	return GD_KLOG_EDAC;
}
