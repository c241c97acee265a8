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
 */
#include "collect/collectors.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "core/tok.h"

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
};

int gd_parse_proc_meminfo(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line, key, val, f[3];
	size_t bad = 0, used = 0;
	char msg[GD_ERR_MSG_MAX];

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, "binary data, not the text of /proc/meminfo");
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		size_t n, i;
		uint64_t v;

		if (gd_tok_trim(line).n == 0)
			continue;
		if (!gd_tok_kv(line, ':', &key, &val) || key.n == 0 || (n = gd_tok_split(val, f, 3)) == 0 || n > 2) {
			if (!bad++)
				gd_err_set(err, -EINVAL, "line %zu: \"%.*s\" is not \"Key: value [kB]\"", it.lineno,
					   (int)(line.n > 80 ? 80 : line.n), line.p);
			continue;
		}
		for (i = 0; i < sizeof keys / sizeof keys[0] && !gd_tok_eq(key, keys[i].key); i++)
			;
		if (i == sizeof keys / sizeof keys[0])
			continue;
		if (n != 2 || !gd_tok_eq(f[1], "kB") || !gd_tok_u64(f[0], &v) || v > UINT64_MAX / 1024) {
			if (!bad++)
				gd_err_set(err, -EINVAL, "line %zu: %s is \"%.*s\", not a number of kB", it.lineno,
					   keys[i].key, (int)(val.n > 80 ? 80 : val.n), val.p);
			continue;
		}
		gd_u64_set((struct gd_u64 *)(void *)((char *)&s->mem + keys[i].off), v * 1024);
		used++;
	}
	if (!used) {
		if (bad)
			return err->code;
		return gd_err_set(err, -ENODATA, "none of MemTotal, MemFree, ... found");
	}
	if (!s->mem.total_bytes.ok && !bad++)
		gd_err_set(err, -EINVAL, "no MemTotal line");
	if (bad > 1) {
		snprintf(msg, sizeof msg, "%s", err->msg);
		gd_err_set(err, -EINVAL, "%s (and %zu more problems)", msg, bad - 1);
	}
	return bad ? 1 : 0;
}

enum gd_src_status gd_collect_proc_meminfo(const struct gd_collect_ctx *ctx, struct gd_snapshot *s,
					   struct gd_err *err)
{
	return gd_collect_file(ctx, "proc/meminfo", gd_parse_proc_meminfo, s, err);
}
