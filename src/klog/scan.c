/*
 * scan.c - the kernel log as a stream: find the rare lines fast, parse only
 * them, and join the multi-line forms.  Its input back-ends (plain and gzip
 * files, pipes, /dev/kmsg) are in input.c.
 *
 * Speed.  A month of kernel log on a busy fleet node is gigabytes, and one
 * line in ten thousand is worth parsing.  cat's floor is read()'s copy out
 * of the page cache (about 10 GB/s), which input.c avoids for regular files
 * by mapping them.  The scanner looks for two-byte anchors of its markers with
 * a nibble-table filter (Hyperscan's "Teddy", AVX2, 32 bytes a step; a
 * scalar fallback where AVX2 is missing): each anchor pair lands in one of
 * eight buckets, a byte pair survives when both bytes' nibbles agree on a
 * bucket, and only survivors are compared with the markers in full.  The
 * line around a marker is parsed; the rest is never touched again.
 *
 *   marker             anchor   what it finds
 *   "NVRM: "           RM       every driver line: Xid, GPU at PCI, fallen off, RmInitAdapter, GSP
 *   "Xid ("            Xi       Xid and SXid
 *   "AER:"             AE       AER reports and their detail lines
 *   "PCIe Bus Error"   Ie       AER on kernels that print no "AER:"
 *   "PCIe bandwidth"   Ie       the boot-time link-speed line
 *   "Killed process"   Ki       OOM kills (global and cgroup)
 *   "oom-kill:"        m-       the OOM report's constraint line
 *   "INFO: task"       O:       hung tasks
 *   "[nvidia"          [n       call-trace frames in the NVIDIA modules (a hung task's)
 *   "EDAC "            DA       memory-controller errors
 *   "[Hardware Error]" [H       machine checks
 *   "Machine", "Uncorrected"  Ma, Un     machine checks
 *   "Fatal machine check"     Fa         the panic line
 *
 * The scanner itself holds no buffer: lines are parsed where they lie.
 *
 * Decoys.  On a busy node about one line in ten is a driver line that is
 * no event (module loads, version mismatches, nvAssert/nvCheck spam, board
 * serials, nvswitch probing), and parsing each (its prefixes, its time
 * stamp, a dozen searches) would cost more than reading the file.  So an
 * "NVRM: " line is parsed only when what follows the marker opens an
 * event ("Xid (", "GPU at ", "The NVIDIA GPU ") or the line holds one of
 * the words without which parse.c finds nothing in a driver line
 * (needs[] below, found with the same filter over the line); otherwise
 * the scan goes on after the marker, so that any other marker on the line
 * still has its line parsed.  parse.c's message() and nvrm() are what
 * needs[] must cover: a line that needs[] rejects parses to nothing.
 */
#include "klog/lineparse.h"

#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

struct marker {
	const char *lit;
	unsigned char len, anchor, bucket;
};

static const struct marker markers[] = {
	{ "NVRM: ", 6, 2, 0 },
	{ "Xid (", 5, 0, 1 },
	{ "AER:", 4, 0, 2 },
	{ "PCIe Bus Error", 14, 2, 2 },
	{ "PCIe bandwidth", 14, 2, 2 },
	{ "Killed process", 14, 0, 1 },
	{ "INFO: task", 10, 3, 3 },
	{ "[nvidia", 7, 0, 3 },
	{ "EDAC ", 5, 1, 4 },
	{ "Fatal machine check", 19, 0, 4 },
	{ "Machine", 7, 0, 5 },
	{ "Uncorrected", 11, 0, 6 },
	{ "oom-kill:", 9, 2, 7 },
	{ "[Hardware Error]", 16, 0, 7 },
};
#define NMARKERS (sizeof markers / sizeof markers[0])
#define M_NVRM 0   /* markers[M_NVRM] is "NVRM: " */

/* What an "NVRM: " line must hold, besides another marker, for parse.c to
 * find an event in it (nvrm(): fallen off the bus, RmInitAdapter failed,
 * the probe routine, NV_ERR_RESET_REQUIRED, NV_ERR_GPU_IN_FULLCHIP_RESET, GSP-CrashCat and the time-out
 * words; message(): "mce: " and "achine check"/"achine Check" for a
 * driver marker past its first 48 bytes). */
static const struct marker needs[] = {
	{ "fallen off the bus", 18, 8, 0 },
	{ "Adapter failed", 14, 1, 1 },
	{ "adapter failed", 14, 1, 1 },
	{ "probe routine failed", 20, 0, 2 },
	{ "NV_ERR_RESET_REQUIRED", 21, 14, 3 },
	{ "FULLCHIP_RESET", 14, 3, 3 },
	{ "GSP-CrashCat", 12, 2, 3 },
	{ "timeout", 7, 1, 4 },
	{ "timed out", 9, 1, 4 },
	{ "timedout", 8, 1, 4 },
	{ "Timeout", 7, 0, 5 },
	{ "TIMEOUT", 7, 0, 5 },
	{ "mce: ", 5, 0, 6 },
	{ "achine ", 7, 2, 7 },
};
#define NNEEDS (sizeof needs / sizeof needs[0])

/* The nibble tables: for byte 0 and byte 1 of an anchor, low and high
 * nibble, which buckets accept it.  Built from markers[] and needs[] on
 * each call (cheap, and no mutable static). */
struct tables {
	unsigned char lo0[16], hi0[16], lo1[16], hi1[16];
};

struct filters {
	struct tables mark, need;
};

static void tables_build(struct tables *t, const struct marker *set, size_t n)
{
	memset(t, 0, sizeof *t);
	for (size_t i = 0; i < n; i++) {
		unsigned char a = (unsigned char)set[i].lit[set[i].anchor];
		unsigned char b = (unsigned char)set[i].lit[set[i].anchor + 1];
		unsigned char bit = (unsigned char)(1u << set[i].bucket);

		t->lo0[a & 15] |= bit;
		t->hi0[a >> 4] |= bit;
		t->lo1[b & 15] |= bit;
		t->hi1[b >> 4] |= bit;
	}
}

/* ---- the feed: lines in, events out ------------------------------------ */

void gd_klog_feed_init(struct gd_klog_feed *f, gd_klog_event_fn emit, void *arg, double now_wall)
{
	time_t now;
	struct tm tm;

	memset(f, 0, sizeof *f);
	f->emit = emit;
	f->arg = arg;
	if (now_wall <= 0)
		now_wall = (double)time(NULL);
	f->now_wall = now_wall;
	now = (time_t)now_wall;
	localtime_r(&now, &tm);
	f->year_base = tm.tm_year + 1900;
}

static void emit_pending(struct gd_klog_feed *f)
{
	if (f->pend_kind != GD_KLOG_NONE)
		f->emit(f->arg, f->pend_kind, &f->pend);
	f->pend_kind = GD_KLOG_NONE;
}

void gd_klog_feed_flush(struct gd_klog_feed *f)
{
	emit_pending(f);
}

/* Puts the year into a syslog time computed for 2000: this year, or the
 * last one when that would lie more than two days ahead of now. */
static void fix_year(struct gd_klog_feed *f, struct gd_klog_event *ev)
{
	time_t t = (time_t)ev->wall_time_s.v;
	double frac = ev->wall_time_s.v - (double)t, w;
	struct tm tm;

	localtime_r(&t, &tm);
	tm.tm_year = f->year_base - 1900;
	w = gd__klog_mktime(&tm, &f->tc);
	if (w > f->now_wall + 2 * 86400) {
		tm.tm_year--;
		w = gd__klog_mktime(&tm, &f->tc);
	}
	ev->wall_time_s.v = w + frac;
}

static void append_detail(struct gd_klog_event *ev, const char *s)
{
	size_t n = strlen(ev->detail);

	if (n + strlen(s) + 3 >= sizeof ev->detail)
		return;
	if (n) {
		memcpy(ev->detail + n, "; ", 3);
		n += 2;
	}
	gd_strlcpy(ev->detail + n, s, sizeof ev->detail - n);
}

/* Is the frame ev part of the hung-task report r?  The kernel prints the
 * report at once: a frame stamped more than 5 s after it belongs to a later
 * trace (a warning's), whose frames must not be charged to the task.
 * Lines without stamps (journalctl -o cat) are taken as they come. */
static bool same_report(const struct gd_klog_event *r, const struct gd_klog_event *ev)
{
	if (r->boot_s.ok && ev->boot_s.ok)
		return ev->boot_s.v >= r->boot_s.v && ev->boot_s.v - r->boot_s.v <= 5;
	if (r->wall_time_s.ok && ev->wall_time_s.ok)
		return ev->wall_time_s.v >= r->wall_time_s.v && ev->wall_time_s.v - r->wall_time_s.v <= 5;
	return true;
}

/* Appends a frame to the report's trace, " < " between; a frame that does
 * not fit whole is left out (the trace ends with "..." then). */
static void append_frame(struct gd_klog_event *r, const char *frame)
{
	size_t n = strlen(r->trace), m = strlen(frame);

	if (n >= 3 && strcmp(r->trace + n - 3, "...") == 0)
		return;
	if (n + (n ? 3 : 0) + m + 4 >= sizeof r->trace) {
		gd_strlcpy(r->trace + n, n ? " < ..." : "...", sizeof r->trace - n);
		return;
	}
	if (n) {
		memcpy(r->trace + n, " < ", 4);
		n += 3;
	}
	gd_strlcpy(r->trace + n, frame, sizeof r->trace - n);
}

void gd_klog_feed_line(struct gd_klog_feed *f, const char *line, size_t n)
{
	struct gd_klog_event ev;
	bool no_year;
	enum gd_klog_kind k;

	f->marked++;
	k = gd__klog_parse_line_tc(line, n, &ev, &no_year, &f->tc);
	if (k == GD_KLOG_NONE)
		return;
	if (no_year)
		fix_year(f, &ev);
	switch (k) {
	case GD_KLOG_CTX_PROBE_GPU:
		GD_STRSET(f->probe_bus, ev.pci_bus_id);
		f->probe_boot_s = ev.boot_s;
		f->probe_wall_s = ev.wall_time_s;
		return;
	case GD_KLOG_CTX_FALLEN_OFF:
		/* the third line of the boot-time form: an event of its own */
		GD_STRSET(ev.pci_bus_id, f->probe_bus);
		if (!ev.boot_s.ok && !ev.wall_time_s.ok) {
			/* dmesg indents the continuation lines without a stamp */
			ev.boot_s = f->probe_boot_s;
			ev.wall_time_s = f->probe_wall_s;
		}
		gd_u64_set(&ev.is_gpu, 1);
		GD_STRSET(ev.kind, gd_klog_kind_name(GD_KLOG_FALLEN_OFF_BUS));
		f->probe_bus[0] = '\0';
		k = GD_KLOG_FALLEN_OFF_BUS;
		emit_pending(f);
		f->pend = ev;
		f->pend_kind = k;
		f->fell_off = true;
		return;
	case GD_KLOG_INIT_FAILED:
		/* "The NVIDIA probe routine failed for 1 device(s)." right after the
		 * boot-time fallen-off form is that event's end, not a second fault */
		if (f->fell_off && !ev.pci_bus_id[0] && strstr(ev.text, "probe routine failed")) {
			f->fell_off = false;
			return;
		}
		break;
	case GD_KLOG_CTX_OOM:
		GD_STRSET(f->oom_detail, ev.detail);
		f->oom_pid = ev.pid.ok ? ev.pid.v : 0;
		return;
	case GD_KLOG_CTX_AER_DEVICE:
	case GD_KLOG_CTX_AER_BIT:
		if (f->pend_kind == GD_KLOG_AER && strcmp(f->pend.pci_bus_id, ev.pci_bus_id) == 0) {
			if (ev.is_gpu.ok)
				gd_u64_set(&f->pend.is_gpu, 1);
			if (k == GD_KLOG_CTX_AER_BIT)
				append_detail(&f->pend, ev.detail);
		}
		return;
	case GD_KLOG_CTX_TRACE_NV:
		if (f->pend_kind == GD_KLOG_HUNG_TASK && same_report(&f->pend, &ev))
			append_frame(&f->pend, ev.trace);
		return;
	case GD_KLOG_CTX_MCE_SOCKET:
		if (f->pend_kind == GD_KLOG_MCE && !f->pend.socket.ok)
			f->pend.socket = ev.socket;
		return;
	case GD_KLOG_OOM_KILL:
		if (f->oom_detail[0] && (!f->oom_pid || (ev.pid.ok && ev.pid.v == f->oom_pid)))
			GD_STRSET(ev.detail, f->oom_detail);   /* constraint and cgroup: more than "memory cgroup" */
		f->oom_detail[0] = '\0';
		break;
	default:
		break;
	}
	f->fell_off = false;
	emit_pending(f);
	f->pend = ev;
	f->pend_kind = k;
}

/* The first of set's strings whose anchor starts at p (bucket bits b),
 * inside [buf, end); -1 when none. */
static int verify_in(const struct marker *set, size_t n, const char *buf, const char *p, const char *end, unsigned b)
{
	for (size_t i = 0; i < n; i++) {
		const struct marker *m = &set[i];
		const char *s = p - m->anchor;

		if (!(b & (1u << m->bucket)) || s < buf || s + m->len > end)
			continue;
		if (memcmp(s, m->lit, m->len) == 0)
			return (int)i;
	}
	return -1;
}

static int verify(const char *buf, const char *p, const char *end, unsigned b)
{
	return verify_in(markers, NMARKERS, buf, p, end, b);
}

static inline unsigned bucket_bits(const struct tables *t, const unsigned char *u)
{
	return t->lo0[u[0] & 15] & t->hi0[u[0] >> 4] & t->lo1[u[1] & 15] & t->hi1[u[1] >> 4];
}

/* Is one of needs[] inside [s, e), its anchor at from or later?  The
 * scalar filter. */
static bool needs_scalar(const struct tables *t, const char *s, const char *from, const char *e)
{
	for (const char *p = from; p + 1 < e; p++) {
		unsigned b = bucket_bits(t, (const unsigned char *)p);

		if (b && verify_in(needs, NNEEDS, s, p, e, b) >= 0)
			return true;
	}
	return false;
}

static bool at(const char *p, const char *end, const char *lit, size_t n)
{
	return (size_t)(end - p) >= n && memcmp(p, lit, n) == 0;
}

/* The line [s, e) holds "NVRM: " at m: can parse.c find an event in it?
 * (See "Decoys" above.)  any(t, s, e) looks for needs[]. */
static bool nvrm_worth(const char *m, const char *s, const char *e, bool (*any)(const struct tables *, const char *,
										 const char *, const char *),
		       const struct tables *need, const char *lim)
{
	const char *a = m + 6;

	if (at(a, e, "Xid (", 5) || at(a, e, "GPU at ", 7) || at(a, e, "The NVIDIA GPU ", 15))
		return true;
	return any(need, s, e, lim);
}

/* Bounds of the line around p in [buf, end). */
static const char *line_start(const char *buf, const char *p)
{
	const char *nl = p > buf ? memrchr(buf, '\n', (size_t)(p - buf)) : NULL;

	return nl ? nl + 1 : buf;
}

static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

static bool needs_scalar_lim(const struct tables *t, const char *s, const char *e, const char *lim)
{
	(void)lim;
	return needs_scalar(t, s, s, e);
}

/* Where the lines the filter picks go: parsed now (f), or kept for the
 * caller to parse in order later (s: input.c's parallel scan). */
struct sink {
	struct gd_klog_feed *f;
	struct gd__klog_scan *s;
	uint64_t *lines;
};

/* Parses (or keeps) the line around p and returns where the next line
 * starts; NULL when the sink is full (s->stop is then the line's start). */
static const char *take_line(struct sink *k, const char *buf, const char *p, const char *end)
{
	const char *s = p, *e = memchr(p, '\n', (size_t)(end - p));

	while (s > buf && s[-1] != '\n')
		s--;
	if (!e)
		e = end;
	if (k->f) {
		gd_klog_feed_line(k->f, s, (size_t)(e - s));
	} else if (k->s->n < k->s->cap) {
		k->s->c[k->s->n].p = s;
		k->s->c[k->s->n].n = (size_t)(e - s);
		k->s->n++;
	} else {
		k->s->stop = s;
		return NULL;
	}
	return e < end ? e + 1 : end;
}

static size_t count_nl_scalar(const char *p, const char *e)
{
	size_t n = 0;

	while (p < e && (p = memchr(p, '\n', (size_t)(e - p)))) {
		n++;
		p++;
	}
	return n;
}

/* The scalar filter: the same buckets, a byte at a time, over
 * [from, end); lines may start as early as base. */
static void feed_scalar(struct sink *k, const struct filters *t, const char *base, const char *from,
			const char *end)
{
	const unsigned char *u = (const unsigned char *)from;
	const char *p = from;
	size_t len = (size_t)(end - from), i = 0;
	int mi;

	while (i + 1 < len) {
		unsigned b = bucket_bits(&t->mark, u + i);

		if (b && (mi = verify(base, from + i, end, b)) >= 0 &&
		    (mi != M_NVRM || nvrm_worth(from + i - markers[M_NVRM].anchor, line_start(base, from + i),
						 line_end(from + i, end), needs_scalar_lim, &t->need, end))) {
			const char *next = take_line(k, base, from + i, end);

			if (!next) {
				*k->lines += count_nl_scalar(p, k->s->stop);
				return;
			}
			*k->lines += count_nl_scalar(p, next);
			p = next;
			i = (size_t)(next - from);
			continue;
		}
		i++;
	}
	*k->lines += count_nl_scalar(p, end);
}

#if defined(__x86_64__)
/* Bucket bits of the byte pairs starting in buf[i..i+32). */
__attribute__((target("avx2"))) static inline __m256i pairs32(const char *p, __m256i lo0, __m256i hi0, __m256i lo1,
							      __m256i hi1, __m256i nib, __m256i *v0out)
{
	__m256i v0 = _mm256_loadu_si256((const __m256i *)p);
	__m256i v1 = _mm256_loadu_si256((const __m256i *)(p + 1));
	__m256i m0 = _mm256_and_si256(_mm256_shuffle_epi8(lo0, _mm256_and_si256(v0, nib)),
				      _mm256_shuffle_epi8(hi0, _mm256_and_si256(_mm256_srli_epi16(v0, 4), nib)));
	__m256i m1 = _mm256_and_si256(_mm256_shuffle_epi8(lo1, _mm256_and_si256(v1, nib)),
				      _mm256_shuffle_epi8(hi1, _mm256_and_si256(_mm256_srli_epi16(v1, 4), nib)));

	*v0out = v0;
	return _mm256_and_si256(m0, m1);
}

/* Newlines counted in byte lanes (each lane takes at most 255 blocks),
 * summed with psadbw. */
__attribute__((target("avx2"))) static inline size_t lane_sum(__m256i acc)
{
	__m256i s = _mm256_sad_epu8(acc, _mm256_setzero_si256());

	return (size_t)(_mm256_extract_epi64(s, 0) + _mm256_extract_epi64(s, 1) + _mm256_extract_epi64(s, 2) +
			_mm256_extract_epi64(s, 3));
}

/* Is one of needs[] inside [s, e)?  32 bytes a step while the loads stay
 * below lim, then the scalar filter. */
__attribute__((target("avx2"))) static bool needs_avx2(const struct tables *t, const char *s, const char *e,
							const char *lim)
{
	const __m256i lo0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t->lo0));
	const __m256i hi0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t->hi0));
	const __m256i lo1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t->lo1));
	const __m256i hi1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t->hi1));
	const __m256i nib = _mm256_set1_epi8(0x0f), zero = _mm256_setzero_si256();
	const char *p = s;

	for (; p + 1 < e && p + 33 <= lim; p += 32) {
		__m256i v0, m = pairs32(p, lo0, hi0, lo1, hi1, nib, &v0);
		uint32_t cand = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(m, zero));
		unsigned char bits[32];

		if (e - p - 1 < 32)
			cand &= (1u << (e - p - 1)) - 1;
		if (!cand)
			continue;
		_mm256_storeu_si256((__m256i *)bits, m);
		while (cand) {
			unsigned j = (unsigned)__builtin_ctz(cand);

			cand &= cand - 1;
			if (verify_in(needs, NNEEDS, s, p + j, e, bits[j]) >= 0)
				return true;
		}
	}
	return needs_scalar(t, s, p, e);
}

__attribute__((target("avx2"))) static void feed_avx2(struct sink *k, const struct filters *ft, const char *buf,
						       size_t len)
{
	const struct tables *t = &ft->mark;
	const __m256i lo0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t->lo0));
	const __m256i hi0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t->hi0));
	const __m256i lo1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t->lo1));
	const __m256i hi1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t->hi1));
	const __m256i nib = _mm256_set1_epi8(0x0f), nl = _mm256_set1_epi8('\n'), zero = _mm256_setzero_si256();
	const char *end = buf + len;
	size_t i = 0, lines = 0;
	__m256i acc = zero;
	unsigned in_acc = 0;

	/* i + 65 <= len keeps every load inside the buffer */
	while (i + 65 <= len) {
		__m256i a0, b0;
		__m256i ma = pairs32(buf + i, lo0, hi0, lo1, hi1, nib, &a0);
		__m256i mb = pairs32(buf + i + 32, lo0, hi0, lo1, hi1, nib, &b0);

		if (__builtin_expect(!_mm256_testz_si256(_mm256_or_si256(ma, mb), _mm256_or_si256(ma, mb)), 0)) {
			unsigned char bits[64];
			uint64_t cand;

			_mm256_storeu_si256((__m256i *)bits, ma);
			_mm256_storeu_si256((__m256i *)(bits + 32), mb);
			cand = (uint64_t)(unsigned)~_mm256_movemask_epi8(_mm256_cmpeq_epi8(ma, zero)) |
			       (uint64_t)(unsigned)~_mm256_movemask_epi8(_mm256_cmpeq_epi8(mb, zero)) << 32;
			while (cand) {
				unsigned j = (unsigned)__builtin_ctzll(cand);

				cand &= cand - 1;
				int mi = verify(buf, buf + i + j, end, bits[j]);

				if (mi >= 0 && (mi != M_NVRM ||
						nvrm_worth(buf + i + j - markers[M_NVRM].anchor, line_start(buf, buf + i + j),
							   line_end(buf + i + j, end), needs_avx2, &ft->need, end))) {
					const char *next = take_line(k, buf, buf + i + j, end);

					if (!next) {
						*k->lines += lines + lane_sum(acc) + count_nl_scalar(buf + i, k->s->stop);
						return;
					}
					lines += lane_sum(acc) + count_nl_scalar(buf + i, next);
					acc = zero;
					in_acc = 0;
					i = (size_t)(next - buf);
					goto next_block;
				}
			}
		}
		acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(a0, nl));
		acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(b0, nl));
		i += 64;
		if (++in_acc == 127) {
			lines += lane_sum(acc);
			acc = zero;
			in_acc = 0;
		}
next_block:;
	}
	*k->lines += lines + lane_sum(acc);
	if (i < len)
		feed_scalar(k, ft, buf, buf + i, end);
}
#endif

static void scan(struct sink *k, const char *buf, size_t len)
{
	struct filters t;

	tables_build(&t.mark, markers, NMARKERS);
	tables_build(&t.need, needs, NNEEDS);
#if defined(__x86_64__)
	if (__builtin_cpu_supports("avx2")) {
		feed_avx2(k, &t, buf, len);
		return;
	}
#endif
	feed_scalar(k, &t, buf, buf, buf + len);
}

void gd_klog_feed_buf(struct gd_klog_feed *f, const char *buf, size_t len)
{
	struct sink k = { f, NULL, &f->lines };

	scan(&k, buf, len);
}

void gd__klog_scan_buf(struct gd__klog_scan *s, const char *buf, size_t len)
{
	struct sink k = { NULL, s, &s->lines };

	s->stop = NULL;
	scan(&k, buf, len);
}
