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
 *   "EDAC "            ED       memory-controller errors
 *   "[Hardware Error]" [H       machine checks
 *   "Machine", "Uncorrected"  Ma, Un     machine checks
 *   "Fatal machine check"     Fa         the panic line
 *
 * The scanner itself holds no buffer: lines are parsed where they lie.
 */
#include "klog/klog.h"

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
	{ "Xid (", 5, 0, 0 },
	{ "AER:", 4, 0, 1 },
	{ "PCIe Bus Error", 14, 2, 2 },
	{ "PCIe bandwidth", 14, 2, 2 },
	{ "Killed process", 14, 0, 3 },
	{ "INFO: task", 10, 3, 4 },
	{ "EDAC ", 5, 0, 5 },
	{ "Fatal machine check", 19, 0, 5 },
	{ "Machine", 7, 0, 6 },
	{ "Uncorrected", 11, 0, 6 },
	{ "oom-kill:", 9, 2, 7 },
	{ "[Hardware Error]", 16, 0, 7 },
};
#define NMARKERS (sizeof markers / sizeof markers[0])

/* The nibble tables: for byte 0 and byte 1 of an anchor, low and high
 * nibble, which buckets accept it.  Built from markers[] on each call
 * (cheap, and no mutable static). */
struct tables {
	unsigned char lo0[16], hi0[16], lo1[16], hi1[16];
};

static void tables_build(struct tables *t)
{
	memset(t, 0, sizeof *t);
	for (size_t i = 0; i < NMARKERS; i++) {
		unsigned char a = (unsigned char)markers[i].lit[markers[i].anchor];
		unsigned char b = (unsigned char)markers[i].lit[markers[i].anchor + 1];
		unsigned char bit = (unsigned char)(1u << markers[i].bucket);

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
	tm.tm_isdst = -1;
	w = (double)mktime(&tm);
	if (w > f->now_wall + 2 * 86400) {
		tm.tm_year--;
		tm.tm_isdst = -1;
		w = (double)mktime(&tm);
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

void gd_klog_feed_line(struct gd_klog_feed *f, const char *line, size_t n)
{
	struct gd_klog_event ev;
	bool no_year;
	enum gd_klog_kind k;

	f->marked++;
	k = gd_klog_parse_line_ex(line, n, &ev, &no_year);
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

/* Is there a marker whose anchor starts at p (bucket bits b)? */
static bool verify(const char *buf, const char *p, const char *end, unsigned b)
{
	for (size_t i = 0; i < NMARKERS; i++) {
		const struct marker *m = &markers[i];
		const char *s = p - m->anchor;

		if (!(b & (1u << m->bucket)) || s < buf || s + m->len > end)
			continue;
		if (memcmp(s, m->lit, m->len) == 0)
			return true;
	}
	return false;
}

/* Parses the line around p and returns where the next line starts. */
static const char *take_line(struct gd_klog_feed *f, const char *buf, const char *p, const char *end)
{
	const char *s = p, *e = memchr(p, '\n', (size_t)(end - p));

	while (s > buf && s[-1] != '\n')
		s--;
	if (!e)
		e = end;
	gd_klog_feed_line(f, s, (size_t)(e - s));
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
static void feed_scalar(struct gd_klog_feed *f, const struct tables *t, const char *base, const char *from,
			const char *end)
{
	const unsigned char *u = (const unsigned char *)from;
	const char *p = from;
	size_t len = (size_t)(end - from), i = 0;

	while (i + 1 < len) {
		unsigned b = t->lo0[u[i] & 15] & t->hi0[u[i] >> 4] & t->lo1[u[i + 1] & 15] & t->hi1[u[i + 1] >> 4];

		if (b && verify(base, from + i, end, b)) {
			const char *next = take_line(f, base, from + i, end);

			f->lines += count_nl_scalar(p, next);
			p = next;
			i = (size_t)(next - from);
			continue;
		}
		i++;
	}
	f->lines += count_nl_scalar(p, end);
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

__attribute__((target("avx2"))) static void feed_avx2(struct gd_klog_feed *f, const struct tables *t,
						       const char *buf, size_t len)
{
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
				if (verify(buf, buf + i + j, end, bits[j])) {
					const char *next = take_line(f, buf, buf + i + j, end);

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
	f->lines += lines + lane_sum(acc);
	if (i < len)
		feed_scalar(f, t, buf, buf + i, end);
}
#endif

void gd_klog_feed_buf(struct gd_klog_feed *f, const char *buf, size_t len)
{
	struct tables t;

	tables_build(&t);
#if defined(__x86_64__)
	if (__builtin_cpu_supports("avx2")) {
		feed_avx2(f, &t, buf, len);
		return;
	}
#endif
	feed_scalar(f, &t, buf, buf, buf + len);
}
