/*
 * joblog.c - the training job's own log: what PyTorch, the CUDA runtime,
 * NCCL and the DataLoader print when they fail, read line by line into
 * job_log[] records (one per message; NCCL's INFO lines once per host and
 * what they say).  A line no pattern knows is noise: a log of loss lines
 * with one traceback in it is read for that traceback.
 *
 *   CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total
 *     capacity; 14.56 GiB already allocated; 3.44 MiB free; ...)      cuda_oom
 *   ... Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB
 *     of which 1.50 GiB is free. ... Of the allocated memory 75.12 GiB is
 *     allocated by PyTorch, ...  ("capacty" in some releases)          cuda_oom
 *   CUDA error: out of memory                                          cuda_oom
 *   uncorrectable ECC error encountered                       ecc_uncorrectable
 *   Unexpected bus error encountered in worker. This might be caused by
 *     insufficient shared memory (shm); ... out of shared memory  shm_exhausted
 *   CUDA driver version is insufficient for CUDA runtime version;
 *     The NVIDIA driver on your system is too old (found version 11040)
 *                                                               cuda_too_new
 *   all CUDA-capable devices are busy or unavailable            devices_busy
 *   No CUDA GPUs are available; no CUDA-capable device is detected  no_gpus
 *   Error 802: system not yet initialized; CUDA_ERROR_SYSTEM_NOT_READY;
 *     cudaErrorSystemNotReady (the NVSwitch fabric is not up)    cuda_not_ready
 *   an illegal memory access was encountered; device-side assert triggered;
 *     misaligned address; a kernel's "x.cu:N: ... Assertion `c` failed." app_fault
 *   [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5,
 *     OpType=ALLREDUCE, ... Timeout(ms)=600000) ran for 600013 milliseconds
 *                                                         collective_timeout
 *   To avoid data inconsistency, we are taking the entire process down;
 *     terminate called after throwing                              job_died
 *   DataLoader worker (pid 4024) is killed by signal: Killed.;
 *     DataLoader worker (pid(s) 3216) exited unexpectedly      loader_killed
 *   host:pid:tid [0] NCCL INFO Using network Socket / IB / IBext_v8  nccl_net
 *   ... NCCL INFO Channel 00/0 : 1[0] -> 2[0] [send] via NET/Socket/0
 *                                                              nccl_channel
 *   ... NCCL INFO NCCL_IB_DISABLE set by environment to 1.  nccl_ib_disable
 *   ... NCCL INFO NET/IB : No device found.                      nccl_no_ib
 *   ... NCCL INFO comm 0x.. rank 2 nRanks 3 nNodes 3 ...          nccl_comm
 *   ... NCCL WARN NET/IB : Got completion from peer 10.1.3.201<33057> with
 *     status=12 opcode=0 len=0 vendor err 129 (Send) ... [hca mlx5_0]
 *     ("... peer node48<37948> with error 12, opcode 2, ..." before 2.19)
 *                                   nccl_ib_wc: peer, wc_status, what Send/Recv
 *   ... NCCL WARN NET/IB : [mlx5_0:1 ]Got async event : port error
 *                                           nccl_ib_async: hca, what the event
 *   torchrun's "failed (exitcode: -9) local_rank: 0 (pid: 1322)", its summary's
 *     "exitcode  : -9 (pid: 14750)" and "Signal 9 (SIGKILL) received by PID
 *     14750"                              exit_signal: value the signal, pid
 *   any other NCCL line: its host, once                           nccl_host
 *   an NCCL line of a known rank: that rank's host, once          rank_host
 *   a training loop's progress ("loss=0.69", "'loss': 2.31"): read, not kept
 *
 *   [PG 1 Rank 3] Timeout at NCCL work: 41, last enqueued NCCL work: 42, last
 *     completed NCCL work: 40. ("... detected by watchdog at work: 41, last
 *     enqueued ...", "failure detected by watchdog at work sequence id: 41
 *     PG status: last enqueued work: 42, last completed work: 40", "Received
 *     a dump signal due to a collective timeout from rank 5 ... Last enqueued
 *     NCCL work: 42, last completed NCCL work: 40")          collective_progress
 *
 * The rank comes from a launcher's prefix at the line's start (rank_from
 * "prefix": torchrun's "[rank3]:", Lightning's "[rank: 3]", Open MPI's
 * --tag-output "[1,3]<stderr>:", srun --label's "3: "; torchrun's wins over
 * srun's, which then numbers the node's task), else from the line itself
 * ("line": "[Rank 3]", "[PG 0 Rank 3]" of the watchdog, NCCL's "rank N
 * nranks"); the loader adds the file's name ("file": rank3.log).  The host
 * comes from NCCL's "host:pid:tid [dev] NCCL" prefix or a launcher's
 * "[host:3]:".  Watchdog numbers: -1 is PyTorch's "none ever" (kept);
 * NumelIn 18446744073709551615 is its -1 too (left absent); a number past
 * 2^53 (or a negative other than -1) is not a count PyTorch prints: it is
 * left out, and the part is partial with the line named.  Lines are numbered in the buffer (1 =
 * its first); the loader names the file and moves them to the file's lines.
 * A pure function of the buffer: NUL bytes and '\r' are bytes of a line,
 * a line of any length is read (its excerpt is cut).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "offline/offline.h"
#include "offline/ofl.h"

/* Records past this are counted in the error, not kept: a log of a
 * thousand ranks timing out says it a thousand times. */
#define JOBLOG_MAX 4096

static const char *find(struct gd_slice l, const char *lit)
{
	return memmem(l.p, l.n, lit, strlen(lit));
}

static const char *end_of(struct gd_slice l)
{
	return l.p + l.n;
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The unsigned number at p (digits only), or false. */
static bool num_at(const char *p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *q = p;

	while (q < end && digit(*q) && q - p < 19)
		v = v * 10 + (uint64_t)(*q++ - '0');
	if (q == p)
		return false;
	*out = v;
	return true;
}

/* The number after lit in l, blanks skipped, or false. */
static bool num_after(struct gd_slice l, const char *lit, uint64_t *out)
{
	const char *p = find(l, lit);

	if (!p)
		return false;
	p += strlen(lit);
	while (p < end_of(l) && *p == ' ')
		p++;
	return num_at(p, end_of(l), out);
}

/* "2.00 GiB", "415.88 MiB", "0 bytes", "12 KiB" at p -> bytes. */
static bool size_at(const char *p, const char *end, uint64_t *out)
{
	static const struct { const char *u; double f; } units[] = {
		{ "GiB", 1073741824.0 }, { "MiB", 1048576.0 }, { "KiB", 1024.0 }, { "TiB", 1099511627776.0 },
		{ "bytes", 1.0 }, { "B", 1.0 },
	};
	double v = 0, scale = 1;
	bool any = false, dot = false;

	while (p < end && (digit(*p) || (*p == '.' && !dot))) {
		if (*p == '.') {
			dot = true;
		} else if (dot) {
			scale /= 10;
			v += (*p - '0') * scale;
		} else {
			v = v * 10 + (*p - '0');
		}
		any = any || digit(*p);
		p++;
		if (v > 1e15)
			return false;
	}
	if (!any)
		return false;
	while (p < end && *p == ' ')
		p++;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		size_t n = strlen(units[i].u);

		if ((size_t)(end - p) >= n && memcmp(p, units[i].u, n) == 0) {
			*out = (uint64_t)(v * units[i].f + 0.5);
			return true;
		}
	}
	return false;
}

/* The size just after lit ("total capacity of 79.15 GiB"). */
static bool size_after(struct gd_slice l, const char *lit, uint64_t *out)
{
	const char *p = find(l, lit);

	return p && size_at(p + strlen(lit), end_of(l), out);
}

/* The size just before lit ("15.78 GiB total capacity"): the unit word and
 * the number in front of it. */
static bool size_before(struct gd_slice l, const char *lit, uint64_t *out)
{
	const char *k = find(l, lit), *p;

	if (!k)
		return false;
	p = k;
	while (p > l.p && p[-1] == ' ')
		p--;
	while (p > l.p && ((p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= 'a' && p[-1] <= 'z')))
		p--;
	while (p > l.p && p[-1] == ' ')
		p--;
	while (p > l.p && (digit(p[-1]) || p[-1] == '.'))
		p--;
	return size_at(p, k, out);
}

/* The rank a launcher's prefix gives at the line's start: srun --label's
 * "3: " and Open MPI's "[1,3]<stderr>:" (blanks before them allowed), then
 * anywhere torchrun's "[rank3]:" or Lightning's "[rank: 3]" (behind a pid
 * or a Ray actor's "(Worker pid=..)"); torchrun's wins over srun's. */
static bool prefix_rank(struct gd_slice l, uint64_t *rank)
{
	const char *p = l.p, *e = end_of(l), *q;
	bool got = false;

	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	/* srun --label: digits, ':' and a blank */
	for (q = p; q < e && digit(*q) && q - p < 8; q++)
		;
	if (q > p && q + 1 < e && q[0] == ':' && q[1] == ' ' && num_at(p, q, rank))
		got = true;
	/* Open MPI --tag-output: "[jobid,rank]<stdout>:" */
	if (!got && p < e && *p == '[') {
		const char *c = memchr(p, ',', (size_t)(e - p) < 24 ? (size_t)(e - p) : 24);

		if (c && c > p + 1 && num_at(p + 1, c, rank)) {
			for (q = c + 1; q < e && digit(*q); q++)
				;
			if (q > c + 1 && (size_t)(e - q) >= 3 && memcmp(q, "]<", 2) == 0 && num_at(c + 1, q, rank))
				got = true;
		}
	}
	if ((q = find(l, "[rank")) && q + 5 < e && digit(q[5])) {
		const char *d = q + 5;

		while (d < e && digit(*d))
			d++;
		if (d < e && d[0] == ']' && num_at(q + 5, d, rank))
			return true;
	}
	if ((q = find(l, "[rank: ")) && num_at(q + 7, e, rank))
		return true;
	return got;
}

/* A launcher's "[host:3]:" at the line's start (accelerate, pdsh): the host. */
static bool prefix_host(struct gd_slice l, char *host, size_t hostsz)
{
	const char *p = l.p, *e = end_of(l), *c = NULL, *q;

	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= e || *p != '[')
		return false;
	for (q = p + 1; q < e && q - p < 64 && *q != ']' && *q != ' '; q++)
		if (*q == ':')
			c = q;
	if (!c || c == p + 1 || q + 1 >= e || q[0] != ']' || q[1] != ':' || c + 1 == q)
		return false;
	for (const char *d = c + 1; d < q; d++)
		if (!digit(*d))
			return false;
	gd_tok_copy(host, hostsz, (struct gd_slice){ p + 1, (size_t)(c - p - 1) });
	return true;
}

/* The rank a line names: a launcher's prefix ("prefix"), else the watchdog's
 * "[Rank 3]", "[PG 1 Rank 3]" or NCCL's "rank 3 nranks 16" ("line"). */
static const char *rank_of(struct gd_slice l, uint64_t *rank)
{
	const char *p;

	if (prefix_rank(l, rank))
		return "prefix";
	if ((p = find(l, " Rank ")) && num_at(p + 6, end_of(l), rank))
		return "line";
	if ((p = find(l, "[Rank ")) && num_at(p + 6, end_of(l), rank))
		return "line";
	if ((p = find(l, " rank ")) && num_at(p + 6, end_of(l), rank) && (find(l, " nranks ") || find(l, " nRanks ")))
		return "line";
	return NULL;
}

/* NCCL's prefix "host:pid:tid [dev] NCCL ": host, pid and dev. */
static bool nccl_prefix(struct gd_slice l, const char *nccl, char *host, size_t hostsz, uint64_t *pid, uint64_t *dev)
{
	const char *close = nccl, *open, *tok_end, *tok;
	const char *c1 = NULL, *c2 = NULL;

	while (close > l.p && close[-1] == ' ')
		close--;
	if (close == l.p || close[-1] != ']')
		return false;
	close--;
	open = close;
	while (open > l.p && open[-1] != '[' && close - open < 8)
		open--;
	if (open == l.p || open[-1] != '[' || !num_at(open, close, dev))
		return false;
	tok_end = open - 1;
	while (tok_end > l.p && tok_end[-1] == ' ')
		tok_end--;
	tok = tok_end;
	while (tok > l.p && tok[-1] != ' ' && tok[-1] != ']' && tok_end - tok < 128)
		tok--;
	/* Open MPI's --tag-output before it: "[1,12]<stdout>:host:815:864" */
	if (tok < tok_end && *tok == '<') {
		const char *g = memchr(tok, '>', (size_t)(tok_end - tok));

		if (g && g + 1 < tok_end && g[1] == ':')
			tok = g + 2;
	}
	for (const char *p = tok; p < tok_end; p++)
		if (*p == ':') {
			c1 = c2;
			c2 = p;
		}
	if (!c1 || c1 == tok || !num_at(c1 + 1, c2, pid))
		return false;
	gd_tok_copy(host, hostsz, (struct gd_slice){ tok, (size_t)(c1 - tok) });
	return true;
}

/* The excerpt of a line: the whole of it when short, else from the message
 * on; control bytes as blanks, cut at a UTF-8 character. */
static void excerpt(char *dst, size_t dstsz, struct gd_slice l, const char *at)
{
	struct gd_slice t = gd_tok_trim(l);
	size_t n, i;

	if (t.n > 160 && at && at >= t.p && at < t.p + t.n)
		t = (struct gd_slice){ at, (size_t)(t.p + t.n - at) };
	n = t.n < dstsz - 1 ? t.n : dstsz - 1;
	while (n && n < t.n && ((unsigned char)t.p[n] & 0xc0) == 0x80)
		n--;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t.p[i];

		dst[i] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
	}
	dst[i] = '\0';
}

struct jl {
	struct gd_snapshot *s;
	size_t kept, dropped;
	size_t bad, bad_line;   /* watchdog numbers out of range, the first line */
};

static struct gd_job_log *rec(struct jl *j, const char *kind, struct gd_slice l, size_t lineno, const char *at)
{
	struct gd_job_log *r;
	uint64_t rank;
	const char *from;

	if (j->kept >= JOBLOG_MAX) {
		j->dropped++;
		return NULL;
	}
	j->kept++;
	r = GD_PUSH(j->s, job_log, struct gd_job_log);
	memset(r, 0, sizeof *r);
	GD_STRSET(r->kind, kind);
	gd_u64_set(&r->line, lineno);
	if ((from = rank_of(l, &rank))) {
		gd_u64_set(&r->rank, rank);
		GD_STRSET(r->rank_from, from);
	}
	prefix_host(l, r->host, sizeof r->host);
	excerpt(r->text, sizeof r->text, l, at);
	return r;
}

/* The NCCL record of this kind, host and what already there (INFO lines
 * repeat per rank and channel: one record says it). */
static bool seen(const struct gd_snapshot *s, const char *kind, const char *host, const char *what)
{
	GD_VEC_EACH(s->job_log, const struct gd_job_log, r)
		if (strcmp(r->kind, kind) == 0 && strcmp(r->host, host) == 0 && strcmp(r->what, what) == 0)
			return true;
	return false;
}

static void oom_numbers(struct gd_job_log *r, struct gd_slice l)
{
	uint64_t v;

	if (size_after(l, "Tried to allocate ", &v))
		gd_u64_set(&r->tried_bytes, v);
	if (num_after(l, "(GPU ", &v) || num_after(l, ". GPU ", &v) || num_after(l, "GPU ", &v))
		gd_u64_set(&r->gpu, v);
	if (size_before(l, " total capacity;", &v) || size_after(l, "total capacity of ", &v) ||
	    size_after(l, "total capacty of ", &v))
		gd_u64_set(&r->total_bytes, v);
	if (size_before(l, " free;", &v) || size_after(l, " of which ", &v))
		gd_u64_set(&r->free_bytes, v);
	if (size_before(l, " already allocated", &v) || size_after(l, "Of the allocated memory ", &v))
		gd_u64_set(&r->allocated_bytes, v);
}

/* The word at p up to a blank, '<', ',' or the line's end, at most max bytes. */
static struct gd_slice word_at(const char *p, const char *end, size_t max)
{
	const char *e = p;

	while (e < end && *e != ' ' && *e != '<' && *e != ',' && *e != '\r' && (size_t)(e - p) < max)
		e++;
	return (struct gd_slice){ p, (size_t)(e - p) };
}

/* NCCL's InfiniBand transport: a work completion in error (the peer, the
 * ibv_wc_status, Send or Recv, the HCA when the line names it), or an
 * asynchronous event of the device ("mlx5_0:1 Got async event : port
 * error"; older NCCL names no device). */
static void ib_line(struct jl *j, struct gd_slice l, size_t lineno, const char *p, const char *host, uint64_t pid,
		    uint64_t dev)
{
	const char *e = end_of(l), *q;
	struct gd_job_log *r;
	uint64_t v;

	if (*p == 'G' && p[4] == 'c') { /* Got completion from peer */
		if (!(r = rec(j, "nccl_ib_wc", l, lineno, find(l, "NET/IB") ? find(l, "NET/IB") : p)))
			return;
		gd_tok_copy(r->peer, sizeof r->peer, word_at(p + 25, e, 63));
		if (num_after(l, "with status=", &v) || num_after(l, "with error ", &v))
			gd_u64_set(&r->wc_status, v);
		if (find(l, "(Send)"))
			GD_STRSET(r->what, "Send");
		else if (find(l, "(Recv)"))
			GD_STRSET(r->what, "Recv");
		if ((q = find(l, " hca ")))
			gd_tok_copy(r->hca, sizeof r->hca, word_at(q + 5, e, 31));
	} else {
		const char *ev = p + 18, *x = ev;

		if (!(r = rec(j, "nccl_ib_async", l, lineno, find(l, "NET/IB") ? find(l, "NET/IB") : p)))
			return;
		while (x < e && *x != '\r')
			x++;
		gd_tok_copy(r->what, sizeof r->what, gd_tok_trim((struct gd_slice){ ev, (size_t)(x - ev) }));
		/* "NET/IB : mlx5_0:1 Got async event": the word before "Got" */
		for (q = p; q > l.p && q[-1] == ' '; q--)
			;
		x = q;
		while (q > l.p && q[-1] != ' ' && x - q < 31)
			q--;
		if (x > q && memchr(q, ':', (size_t)(x - q)) && !(x - q == 1) && q[0] != ':')
			gd_tok_copy(r->hca, sizeof r->hca, (struct gd_slice){ q, (size_t)(x - q) });
	}
	if (host) {
		GD_STRSET(r->host, host);
		gd_u64_set(&r->pid, pid);
		gd_u64_set(&r->gpu, dev);
	}
}

/* torchrun's (elastic's) report of a worker that died of a signal: "failed
 * (exitcode: -9) local_rank: 0 (pid: 1322)", "exitcode  : -9 (pid: 14750)",
 * "Signal 9 (SIGKILL) received by PID 14750"; one record per pid and signal. */
static bool exit_line(struct jl *j, struct gd_slice l, size_t lineno)
{
	const char *p, *at;
	uint64_t sig = 0, pid = 0;
	bool has_pid;
	struct gd_job_log *r;

	if ((p = find(l, "exitcode: -")) || (p = find(l, "exitcode  : -"))) {
		at = p;
		p = memchr(p, '-', (size_t)(end_of(l) - p));
		if (!p || !num_at(p + 1, end_of(l), &sig))
			return false;
		has_pid = num_after(l, "(pid: ", &pid);
	} else if ((p = find(l, "Signal ")) && find(l, ") received by PID ")) {
		at = p;
		if (!num_at(p + 7, end_of(l), &sig))
			return false;
		has_pid = num_after(l, "received by PID ", &pid);
	} else {
		return false;
	}
	if (!sig || sig > 64)
		return false;
	GD_VEC_EACH(j->s->job_log, const struct gd_job_log, o)
		if (strcmp(o->kind, "exit_signal") == 0 && o->value.v == sig && o->pid.ok == has_pid &&
		    (!has_pid || o->pid.v == pid))
			return true;
	if ((r = rec(j, "exit_signal", l, lineno, at))) {
		gd_u64_set(&r->value, sig);
		if (has_pid)
			gd_u64_set(&r->pid, pid);
	}
	return true;
}

static void nccl_line(struct jl *j, struct gd_slice l, size_t lineno, const char *nccl)
{
	char host[64] = "";
	uint64_t pid = 0, dev = 0, v;
	bool pre = nccl_prefix(l, nccl, host, sizeof host, &pid, &dev);
	struct gd_job_log *r = NULL;
	const char *p;
	char what[32] = "";

	/* a WARN line names NCCL's source between the prefix and "NCCL":
	 * "host:pid:tid [4] ib_plugin.c:1615 NCCL WARN ..." */
	if (!pre) {
		const char *t = nccl;

		while (t > l.p && t[-1] == ' ')
			t--;
		while (t > l.p && t[-1] != ' ' && t[-1] != ']' && nccl - t < 96)
			t--;
		if (t < nccl && memchr(t, ':', (size_t)(nccl - t)) && memchr(t, '.', (size_t)(nccl - t)))
			pre = nccl_prefix(l, t, host, sizeof host, &pid, &dev);
	}
	/* which host a rank is on, once per rank and host ("3: node-b07:5102:5102
	 * [1] NCCL INFO ..."): the verdict across ranks names it */
	if (pre && rank_of(l, &v)) {
		struct gd_job_log *h;

		snprintf(what, sizeof what, "%llu", (unsigned long long)v);
		if (!seen(j->s, "rank_host", host, what) && (h = rec(j, "rank_host", l, lineno, nccl))) {
			GD_STRSET(h->what, what);
			GD_STRSET(h->host, host);
			gd_u64_set(&h->pid, pid);
			gd_u64_set(&h->gpu, dev);
		}
		what[0] = '\0';
	}
	if ((p = find(l, "Got completion from peer ")) || (p = find(l, "Got async event : "))) {
		ib_line(j, l, lineno, p, pre ? host : NULL, pid, dev);
		return;
	}
	if ((p = find(l, "Using network "))) {
		const char *q = p + 14, *e = q;

		while (e < end_of(l) && *e != ' ' && *e != '\r' && e - q < 31)
			e++;
		gd_tok_copy(what, sizeof what, (struct gd_slice){ q, (size_t)(e - q) });
		if (what[0] && !seen(j->s, "nccl_net", host, what))
			r = rec(j, "nccl_net", l, lineno, p);
	} else if ((p = find(l, " via NET/"))) {
		const char *q = p + 9, *e = q;

		while (e < end_of(l) && *e != '/' && *e != ' ' && *e != '\r' && e - q < 31)
			e++;
		gd_tok_copy(what, sizeof what, (struct gd_slice){ q, (size_t)(e - q) });
		if (what[0] && !seen(j->s, "nccl_channel", host, what))
			r = rec(j, "nccl_channel", l, lineno, p);
	} else if ((p = find(l, "NCCL_IB_DISABLE set by environment to "))) {
		if (!seen(j->s, "nccl_ib_disable", host, "") && (r = rec(j, "nccl_ib_disable", l, lineno, p)) &&
		    num_after(l, "NCCL_IB_DISABLE set by environment to ", &v))
			gd_u64_set(&r->value, v);
	} else if ((p = find(l, "NET/IB : No device found"))) {
		if (!seen(j->s, "nccl_no_ib", host, ""))
			r = rec(j, "nccl_no_ib", l, lineno, p);
	} else if ((p = find(l, " nNodes ")) || ((p = find(l, " nranks ")) && find(l, "Init COMPLETE"))) {
		uint64_t nr = 0, nn = 0;
		bool has_nr = num_after(l, " nRanks ", &nr) || num_after(l, " nranks ", &nr);
		bool has_nn = num_after(l, " nNodes ", &nn);

		snprintf(what, sizeof what, "%llu/%llu", (unsigned long long)nr, (unsigned long long)nn);
		if (!seen(j->s, "nccl_comm", host, what) && (r = rec(j, "nccl_comm", l, lineno, NULL))) {
			if (has_nr)
				gd_u64_set(&r->nranks, nr);
			if (has_nn)
				gd_u64_set(&r->nnodes, nn);
		}
	} else if (pre && !seen(j->s, "nccl_host", host, "")) {
		r = rec(j, "nccl_host", l, lineno, nccl);
	}
	if (!r)
		return;
	GD_STRSET(r->what, what);
	if (pre) {
		GD_STRSET(r->host, host);
		gd_u64_set(&r->pid, pid);
		gd_u64_set(&r->gpu, dev);
	}
}

/* A training loop's progress line ("loss=0.69", "'loss': 2.31", "loss: 0.5"):
 * a job's log, though no message to keep. */
static bool progress_line(struct gd_slice l)
{
	const char *p = l.p, *e = end_of(l);

	while ((p = memmem(p, (size_t)(e - p), "loss", 4))) {
		const char *q = p + 4;

		while (q < e && ((*q >= 'a' && *q <= 'z') || *q == '_' || *q == '/') && q - p < 16)
			q++;
		if (q < e && (*q == '\'' || *q == '"'))
			q++;
		if (q < e && (*q == '=' || *q == ':')) {
			q++;
			while (q < e && *q == ' ')
				q++;
			if (q < e && digit(*q))
				return true;
		}
		p += 4;
	}
	return false;
}

/* ---- the watchdog's counts ------------------------------------------------ */

/* A count of the watchdog's at p: digits, or "-1" (PyTorch's "none ever").
 * 0: read; -1: no number there; -2: out of range (past 2^53, or another
 * negative): not a count PyTorch prints. */
static int count_at(const char *p, const char *end, double *out)
{
	bool neg = p < end && *p == '-';
	uint64_t v = 0;
	const char *q;
	bool over = false;

	if (neg)
		p++;
	for (q = p; q < end && digit(*q); q++) {
		if (v > (UINT64_MAX - 9) / 10)
			over = true;
		else
			v = v * 10 + (uint64_t)(*q - '0');
	}
	if (q == p)
		return -1;
	if (over || (neg && v != 1) || (!neg && v > (1ull << 53)))
		return -2;
	*out = neg ? -1.0 : (double)v;
	return 0;
}

static int count_after(struct gd_slice l, const char *lit, double *out)
{
	const char *p = find(l, lit);

	if (!p)
		return -1;
	p += strlen(lit);
	while (p < end_of(l) && *p == ' ')
		p++;
	return count_at(p, end_of(l), out);
}

/* An unsigned 64-bit number after lit: 0 read, -1 none, -2 past 2^64 - 1. */
static int u64_after(struct gd_slice l, const char *lit, uint64_t *out)
{
	const char *p = find(l, lit), *q;
	uint64_t v = 0;

	if (!p)
		return -1;
	p += strlen(lit);
	for (q = p; q < end_of(l) && digit(*q); q++) {
		if (v > (UINT64_MAX - (uint64_t)(*q - '0')) / 10)
			return -2;
		v = v * 10 + (uint64_t)(*q - '0');
	}
	if (q == p)
		return -1;
	*out = v;
	return 0;
}

static void note_bad(struct jl *j, size_t lineno)
{
	if (!j->bad++)
		j->bad_line = lineno;
}

/* "[PG 1 Rank 3]", "[PG ID 0 PG GUID 0(default_pg) Rank 3]": the group. */
static void pg_of(struct gd_slice l, char *dst, size_t dstsz)
{
	const char *p = find(l, "[PG "), *q;

	if (!p)
		return;
	for (q = p + 1; q < end_of(l) && *q != ']' && q - p < 96; q++)
		if ((size_t)(end_of(l) - q) >= 6 && memcmp(q, " Rank ", 6) == 0)
			break;
	if (q < end_of(l) && *q == ' ')
		gd_tok_copy(dst, dstsz, (struct gd_slice){ p + 1, (size_t)(q - p - 1) });
}

/* A watchdog line with the last enqueued and completed works of its rank. */
static bool progress_line_of(struct jl *j, struct gd_slice l, size_t lineno)
{
	static const char *const enq[] = { "ast enqueued NCCL work:", "ast enqueued work:" };
	static const char *const done[] = { "ast completed NCCL work:", "ast completed work:" };
	static const char *const at[] = { "Timeout at NCCL work:", "detected by watchdog at work:",
					  "at work sequence id:" };
	struct gd_job_log *r;
	double e = 0, c = 0, n = 0;
	int re = -1, rc = -1, rn = -1;
	const char *p;
	uint64_t v;

	for (size_t i = 0; i < 2 && re == -1; i++)
		re = count_after(l, enq[i], &e);
	for (size_t i = 0; i < 2 && rc == -1; i++)
		rc = count_after(l, done[i], &c);
	for (size_t i = 0; i < 3 && rn == -1; i++)
		rn = count_after(l, at[i], &n);
	/* a line cut after "Timeout at NCCL work: 5, last enqueued NCCL work: "
	 * is the message still, with no counts */
	if (re == -1 && rc == -1 && (rn == -1 || !find(l, "ast enqueued")))
		return false;
	if (re == -2 || rc == -2 || rn == -2)
		note_bad(j, lineno);
	if (!(r = rec(j, "collective_progress", l, lineno, find(l, "[PG ") ? find(l, "[PG ") : l.p)))
		return true;
	if (re == 0)
		gd_f64_set(&r->last_enqueued, e);
	if (rc == 0)
		gd_f64_set(&r->last_completed, c);
	if (rn == 0 && n >= 0)
		gd_u64_set(&r->seq, (uint64_t)n);
	pg_of(l, r->pg, sizeof r->pg);
	if ((p = find(l, "collective timeout from"))) {
		struct gd_slice t = { p + 23, (size_t)(end_of(l) - p - 23) };

		if (find(t, "this local rank") == t.p + strspn(t.p, " ") && r->rank.ok)
			gd_u64_set(&r->peer_rank, r->rank.v);
		else if (num_after(t, "rank ", &v))
			gd_u64_set(&r->peer_rank, v);
	}
	return true;
}

/* One line: true when it was a message of a job's log. */
static bool one_line(struct jl *j, struct gd_slice l, size_t lineno)
{
	struct gd_job_log *r;
	const char *p;
	uint64_t v;

	if ((p = find(l, "CUDA out of memory")) || (p = find(l, "CUDA error: out of memory"))) {
		if ((r = rec(j, "cuda_oom", l, lineno, p)))
			oom_numbers(r, l);
		return true;
	}
	if ((p = find(l, "uncorrectable ECC error encountered"))) {
		rec(j, "ecc_uncorrectable", l, lineno, p);
		return true;
	}
	if ((p = find(l, "insufficient shared memory")) || (p = find(l, "out of shared memory")) ||
	    ((p = find(l, "unable to write to file </torch_")) && find(l, "No space left on device"))) {
		if ((r = rec(j, "shm_exhausted", l, lineno, p)) && num_after(l, "worker (pid ", &v))
			gd_u64_set(&r->pid, v);
		return true;
	}
	if ((p = find(l, "driver version is insufficient for CUDA runtime version")) ||
	    (p = find(l, "NVIDIA driver on your system is too old"))) {
		if ((r = rec(j, "cuda_too_new", l, lineno, p)) && num_after(l, "(found version ", &v))
			gd_u64_set(&r->value, v);
		return true;
	}
	if ((p = find(l, "busy or unavailable"))) {
		rec(j, "devices_busy", l, lineno, p);
		return true;
	}
	/* CUDA error 802: the NVSwitch fabric is not set up (Fabric Manager) */
	if ((p = find(l, "system not yet initialized")) || (p = find(l, "CUDA_ERROR_SYSTEM_NOT_READY")) ||
	    (p = find(l, "cudaErrorSystemNotReady"))) {
		if ((r = rec(j, "cuda_not_ready", l, lineno, p)))
			gd_u64_set(&r->value, 802);
		return true;
	}
	if ((p = find(l, "No CUDA GPUs are available")) || (p = find(l, "no CUDA-capable device is detected"))) {
		rec(j, "no_gpus", l, lineno, p);
		return true;
	}
	{
		static const struct { const char *lit, *what; } faults[] = {
			{ "an illegal memory access was encountered", "illegal_address" },
			{ "device-side assert triggered", "device_assert" },
			{ "misaligned address", "misaligned_address" },
		};

		for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
			if ((p = find(l, faults[i].lit))) {
				if ((r = rec(j, "app_fault", l, lineno, p)))
					GD_STRSET(r->what, faults[i].what);
				return true;
			}
		/* the assertion a CUDA kernel printed, before (or without) the
		 * "device-side assert triggered" error: "Indexing.cu:1146: ...
		 * Assertion `srcIndex < srcSelectDimSize` failed." */
		if ((p = find(l, "Assertion `")) && find(l, "` failed") && find(l, ".cu:")) {
			if ((r = rec(j, "app_fault", l, lineno, p)))
				GD_STRSET(r->what, "device_assert");
			return true;
		}
	}
	if (progress_line_of(j, l, lineno))
		return true;
	if ((p = find(l, "Watchdog caught collective operation timeout"))) {
		const char *op = find(l, "OpType=");

		if ((r = rec(j, "collective_timeout", l, lineno, p))) {
			if (op) {
				const char *e = op + 7;

				while (e < end_of(l) && *e != ',' && *e != ')' && e - op < 38)
					e++;
				gd_tok_copy(r->what, sizeof r->what, (struct gd_slice){ op + 7, (size_t)(e - op - 7) });
			}
			int rs = u64_after(l, "SeqNum=", &v), ri, ro;
			uint64_t in = 0, o = 0;

			if (rs == 0 && v <= (1ull << 53))
				gd_u64_set(&r->seq, v);
			ri = u64_after(l, "NumelIn=", &in);
			ro = u64_after(l, "NumelOut=", &o);
			/* PyTorch prints a coalesced work's -1 as 2^64 - 1 */
			if (ri == 0 && in != UINT64_MAX)
				gd_u64_set(&r->numel_in, in);
			if (ro == 0 && o != UINT64_MAX)
				gd_u64_set(&r->numel_out, o);
			if ((rs == 0 && v > (1ull << 53)) || rs == -2 || ri == -2 || ro == -2)
				note_bad(j, lineno);
			pg_of(l, r->pg, sizeof r->pg);
			if (num_after(l, "Timeout(ms)=", &v))
				gd_f64_set(&r->timeout_s, (double)v / 1000);
			if (num_after(l, ") ran for ", &v))
				gd_f64_set(&r->ran_s, (double)v / 1000);
		}
		return true;
	}
	if ((p = find(l, "we are taking the entire process down")) || (p = find(l, "terminate called after throwing"))) {
		rec(j, "job_died", l, lineno, p);
		return true;
	}
	if ((p = find(l, "DataLoader worker (pid")) && (find(l, "killed by signal") || find(l, "exited unexpectedly"))) {
		const char *sig = find(l, "killed by signal: ");

		if ((r = rec(j, "loader_killed", l, lineno, p))) {
			if (num_after(l, "DataLoader worker (pid ", &v) || num_after(l, "DataLoader worker (pid(s) ", &v))
				gd_u64_set(&r->pid, v);
			if (sig) {
				const char *q = sig + 18, *e = q;

				while (e < end_of(l) && *e != '.' && *e != '\r' && e - q < 31)
					e++;
				gd_tok_copy(r->what, sizeof r->what, (struct gd_slice){ q, (size_t)(e - q) });
			} else {
				GD_STRSET(r->what, "exited unexpectedly");
			}
		}
		return true;
	}
	if ((p = find(l, " NCCL INFO ")) || (p = find(l, " NCCL WARN "))) {
		nccl_line(j, l, lineno, p + 1);
		return true;
	}
	/* the transport's line quoted without NCCL's prefix (a ticket's title) */
	if ((p = find(l, "NET/IB")) && ((p = find(l, "Got completion from peer ")) || (p = find(l, "Got async event : ")))) {
		ib_line(j, l, lineno, p, NULL, 0, 0);
		return true;
	}
	if (exit_line(j, l, lineno))
		return true;
	return progress_line(l);
}

int gd_parse_joblog(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct jl j = { s, 0, 0, 0, 0 };
	struct gd_lines it;
	struct gd_slice l;
	size_t known = 0;

	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &l))
		known += one_line(&j, l, it.lineno);
	if (!known)
		return gd_err_set(err, -ENODATA, _("no line of a job's log (PyTorch, CUDA, NCCL or DataLoader message) in it"));
	if (j.dropped)
		return gd_err_set(err, 1, _("line %zu: %zu more messages past %d not kept"), it.lineno, j.dropped,
				  JOBLOG_MAX);
	if (j.bad)
		return gd_err_set(err, 1,
				  _("line %zu: a watchdog number out of range (past 2^53, or a negative other than -1) "
				    "left out (%zu in all)"),
				  j.bad_line, j.bad);
	return 0;
}

/* Literals of which every message that makes a record holds one (see
 * one_line): a text with none of them holds no message.  Looked for over
 * the whole buffer at memmem's speed, before reading it line by line: a
 * kernel log of millions of lines, read for a traceback pasted into it,
 * usually holds none, and is then spared some twenty look-ups per line.
 * test_joblog checks on every fixture that this never misses a message. */
static const char *const triggers[] = {
	"CUDA", "ECC error", "shared memory", "</torch_", "NVIDIA driver", "busy or unavailable",
	"illegal memory access", "device-side assert", "misaligned address", "Watchdog caught", "Assertion `",
	"taking the entire process down", "terminate called", "DataLoader worker", " NCCL ",
	"ast enqueued", "ast completed", "NET/IB", "exitcode", ") received by PID ", "not yet initialized",
	"SystemNotReady",
};

bool gd_joblog_messages(const char *buf, size_t len)
{
	struct gd_snapshot t;
	struct jl j = { &t, 0, 0, 0, 0 };
	struct gd_lines it;
	struct gd_slice l;
	size_t i;

	for (i = 0; i < sizeof triggers / sizeof triggers[0]; i++)
		if (memmem(buf, len, triggers[i], strlen(triggers[i])))
			break;
	if (i == sizeof triggers / sizeof triggers[0])
		return false;
	gd_snapshot_init(&t);
	gd_lines_init(&it, buf, len);
	while (!j.kept && gd_tok_line(&it, &l))
		one_line(&j, l, it.lineno);
	gd_snapshot_release(&t);
	return j.kept > 0;
}

bool gd_joblog_any(const char *buf, size_t len)
{
	struct gd_snapshot t;
	struct jl j = { &t, 0, 0, 0, 0 };
	struct gd_lines it;
	struct gd_slice l;
	bool any = false;

	gd_snapshot_init(&t);
	gd_lines_init(&it, buf, len);
	while (!any && gd_tok_line(&it, &l))
		any = one_line(&j, l, it.lineno);
	gd_snapshot_release(&t);
	return any;
}

bool gd_joblog_rank_of_name(const char *name, uint64_t *rank)
{
	const char *base = strrchr(name, '/'), *p;

	base = base ? base + 1 : name;
	for (p = base; (p = strcasestr(p, "rank")); p += 4) {
		const char *d = p + 4, *q;
		uint64_t v = 0;

		if (*d == '-' || *d == '_' || *d == '.')
			d++;
		for (q = d; digit(*q) && q - d < 10; q++)
			v = v * 10 + (uint64_t)(*q - '0');
		if (q > d && !digit(*q) && v <= UINT32_MAX) {
			*rank = v;
			return true;
		}
	}
	return false;
}
