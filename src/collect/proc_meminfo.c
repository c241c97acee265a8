/*
 * proc_meminfo.c - memory totals: /proc/meminfo (every kernel).
 *
 *     MemTotal:       24684096 kB
 *     MemFree:        24184872 kB
 *     MemAvailable:   24368672 kB
 *     Buffers:            5168 kB
 *     ...
 *     HugePages_Total:       0
 *
 * "Key: value kB" lines; kB means KiB, so values are multiplied by 1024.
 * Lines are found by key name (new keys appear in the middle over kernel
 * versions).  MemAvailable appeared in 3.14, Shmem in 2.6.32,
 * HardwareCorrupted in 2.6.32: on older kernels they stay absent.  Keys we do
 * not keep are only checked for the "Key: value" shape.
 *
 * Without MemAvailable, available_bytes is estimated as 3.14's
 * si_mem_available computed it (mm/page_alloc.c; fs/proc/meminfo.c then):
 *
 *     MemFree - low + pagecache - min(pagecache / 2, low)
 *                   + SReclaimable - min(SReclaimable / 2, low)
 *
 * with pagecache = Active(file) + Inactive(file) and low the sum of every
 * zone's low watermark, read from /proc/zoneinfo ("        low      23461",
 * pages, one per zone); mem.available_estimated says so, and
 * mem.low_watermark_bytes is absent when zoneinfo could not be read (then
 * low is taken as 0 and the estimate is at most that much high).  The
 * parser alone (no zoneinfo) estimates with low 0.
 */
#include "collect/collectors.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "core/i18n.h"
#include "core/tok.h"

#define FILE_LRU SIZE_MAX

static const struct {
	const char *key;
	size_t off;   /* offset of the struct gd_u64 in struct gd_mem */
} keys[] = {
	{ "MemTotal", offsetof(struct gd_mem, total_bytes) },
	{ "MemFree", offsetof(struct gd_mem, free_bytes) },
	{ "MemAvailable", offsetof(struct gd_mem, available_bytes) },
	{ "Buffers", offsetof(struct gd_mem, buffers_bytes) },
	{ "Cached", offsetof(struct gd_mem, cached_bytes) },
	{ "Shmem", offsetof(struct gd_mem, shmem_bytes) },
	{ "Dirty", offsetof(struct gd_mem, dirty_bytes) },
	{ "Writeback", offsetof(struct gd_mem, writeback_bytes) },
	{ "SwapTotal", offsetof(struct gd_mem, swap_total_bytes) },
	{ "SwapFree", offsetof(struct gd_mem, swap_free_bytes) },
	{ "HardwareCorrupted", offsetof(struct gd_mem, hardware_corrupted_bytes) },
	{ "SReclaimable", offsetof(struct gd_mem, slab_reclaimable_bytes) },
	{ "Active(file)", FILE_LRU },     /* summed into file_lru_bytes */
	{ "Inactive(file)", FILE_LRU },
};

/* available_bytes from the other fields when MemAvailable is missing (see
 * above); low_watermark_bytes absent counts as 0. */
static void estimate_available(struct gd_mem *m)
{
	double low, avail, pc, sr;

	if (!m->available_estimated.ok || !m->free_bytes.ok || !m->file_lru_bytes.ok || !m->slab_reclaimable_bytes.ok)
		return;
	low = m->low_watermark_bytes.ok ? (double)m->low_watermark_bytes.v : 0;
	pc = (double)m->file_lru_bytes.v;
	sr = (double)m->slab_reclaimable_bytes.v;
	avail = (double)m->free_bytes.v - low + pc - fmin(pc / 2, low) + sr - fmin(sr / 2, low);
	gd_u64_set(&m->available_bytes, avail > 0 ? (uint64_t)avail : 0);
}

int gd_parse_proc_meminfo(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line, key, val, f[3];
	size_t bad = 0, used = 0, nfile = 0;
	char msg[GD_ERR_MSG_MAX];

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("binary data, not the text of /proc/meminfo"));
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		size_t n, i;
		uint64_t v;

		if (gd_tok_trim(line).n == 0)
			continue;
		if (!gd_tok_kv(line, ':', &key, &val) || key.n == 0 || (n = gd_tok_split(val, f, 3)) == 0 || n > 2) {
			if (!bad++)
				gd_err_set(err, -EINVAL, _("line %zu: \"%.*s\" is not \"Key: value [kB]\""), it.lineno,
					   (int)(line.n > 80 ? 80 : line.n), line.p);
			continue;
		}
		for (i = 0; i < sizeof keys / sizeof keys[0] && !gd_tok_eq(key, keys[i].key); i++)
			;
		if (i == sizeof keys / sizeof keys[0])
			continue;
		if (n != 2 || !gd_tok_eq(f[1], "kB") || !gd_tok_u64(f[0], &v) || v > UINT64_MAX / 1024) {
			if (!bad++)
				gd_err_set(err, -EINVAL, _("line %zu: %s is \"%.*s\", not a number of kB"), it.lineno,
					   keys[i].key, (int)(val.n > 80 ? 80 : val.n), val.p);
			continue;
		}
		if (keys[i].off != FILE_LRU) {
			gd_u64_set((struct gd_u64 *)(void *)((char *)&s->mem + keys[i].off), v * 1024);
		} else {
			uint64_t had = s->mem.file_lru_bytes.ok ? s->mem.file_lru_bytes.v : 0;

			gd_u64_set(&s->mem.file_lru_bytes, had + v * 1024);
			nfile++;
		}
		used++;
	}
	if (nfile != 2)
		s->mem.file_lru_bytes.ok = false;
	if (!s->mem.available_bytes.ok && s->mem.free_bytes.ok && s->mem.file_lru_bytes.ok &&
	    s->mem.slab_reclaimable_bytes.ok) {
		gd_u64_set(&s->mem.available_estimated, 1);
		estimate_available(&s->mem);
	}
	if (!used) {
		if (bad)
			return err->code;
		return gd_err_set(err, -ENODATA, _("none of MemTotal, MemFree, ... found"));
	}
	if (!s->mem.total_bytes.ok && !bad++)
		gd_err_set(err, -EINVAL, _("no MemTotal line"));
	if (bad > 1) {
		snprintf(msg, sizeof msg, "%s", err->msg);
		gd_err_set(err, -EINVAL, _("%s (and %zu more problems)"), msg, bad - 1);
	}
	return bad ? 1 : 0;
}

/*
 * /proc/zoneinfo: every zone's "low" line (pages) summed, times the page
 * size, into mem.low_watermark_bytes.  A zone block is
 *
 *     Node 0, zone   Normal
 *       pages free     4539739
 *             min      15809
 *             low      23461
 *             high     31113
 *
 * Lines of other shapes are skipped (the per-cpu pagesets, counters); a
 * "low" line whose value is not a number is malformed; no zone at all is
 * an error.
 */
int gd_parse_proc_zoneinfo(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line, f[3];
	uint64_t pages = 0, v, page = s->host.page_size_bytes.ok && s->host.page_size_bytes.v
					     ? s->host.page_size_bytes.v
					     : (uint64_t)sysconf(_SC_PAGESIZE);
	size_t zones = 0, lows = 0;

	if (page == 0 || page > (1u << 30))
		page = 4096;
	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("binary data, not the text of /proc/zoneinfo"));
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		size_t n = gd_tok_split(line, f, 3);

		if (n >= 2 && gd_tok_eq(f[0], "Node"))
			zones++;
		if (n != 2 || !gd_tok_eq(f[0], "low"))
			continue;
		if (!gd_tok_u64(f[1], &v) || v > UINT64_MAX / page - pages)
			return gd_err_set(err, -EINVAL, _("line %zu: \"%.*s\" is not \"low N\" (pages)"), it.lineno,
					  (int)(line.n > 80 ? 80 : line.n), line.p);
		pages += v;
		lows++;
	}
	if (!zones || !lows)
		return gd_err_set(err, -ENODATA, _("no zone with a low watermark"));
	gd_u64_set(&s->mem.low_watermark_bytes, pages * page);
	return 0;
}

enum gd_src_status gd_collect_proc_meminfo(const struct gd_collect_ctx *ctx, struct gd_snapshot *s,
					   struct gd_err *err)
{
	enum gd_src_status st = gd_collect_file(ctx, "proc/meminfo", gd_parse_proc_meminfo, s, err);
	struct gd_err zerr;

	if (!s->mem.available_estimated.ok)
		return st;
	/* no MemAvailable: keep back the low watermarks, as the kernel does */
	gd_err_clear(&zerr);
	if (gd_collect_file(ctx, "proc/zoneinfo", gd_parse_proc_zoneinfo, s, &zerr) == GD_SRC_OK)
		estimate_available(&s->mem);
	return st;
}
