/*
 * proc_diskstats.c - block device I/O counters: /proc/diskstats, plus
 * /sys/block/<dev> (whole disk or partition) and
 * /sys/block/<dev>/queue/rotational.
 *
 * One line per device, major, minor, name, then the counters:
 *
 *      254       0 vda 48973 6834 2601418 10405 3674 5746 408752 1485 0 6184 12090 4030 63 123896 181 558 16
 *      259       1 nvme0n1p1 1187 0 71562 240 2 0 2 0 0 272 240 0 0 0 0
 *        7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 *
 * 14 fields since Linux 2.6.25 (the file appeared in 2.6.0), 18 with the
 * discard columns (4.18), 20 with the flush columns (5.5); we keep the first
 * 14, which mean the same on every kernel, and accept longer lines so a
 * future kernel's new columns do not break the parse.  Sectors are always
 * 512 bytes.  Lines with fewer than 14 fields or a malformed number are
 * skipped and named in err (partial).
 *
 * Idle loop and ram devices (loopN, ramN with every counter 0) are dropped to
 * keep snapshots small: a machine with snap packages has dozens of them.
 * Nothing else is filtered here; the rules choose which devices matter.
 *
 * See Documentation/admin-guide/iostats.rst and FACTS.md §4.6.
 */
#include "collect/collectors.h"
#include "core/tok.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"

#define DISK_MIN_FIELDS 14
#define DISK_MAX_FIELDS 32

/* True for "loop<digits>" and "ram<digits>". */
static bool is_loop_or_ram(struct gd_slice name)
{
	size_t skip;

	if (gd_tok_prefix(name, "loop"))
		skip = 4;
	else if (gd_tok_prefix(name, "ram"))
		skip = 3;
	else
		return false;
	if (name.n == skip)
		return false;
	for (size_t i = skip; i < name.n; i++)
		if (!isdigit((unsigned char)name.p[i]))
			return false;
	return true;
}

int gd_parse_proc_diskstats(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line, f[DISK_MAX_FIELDS];
	struct gd_tok_tally tally = { 0 };

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("binary data, not a diskstats table"));
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		uint64_t v[DISK_MAX_FIELDS];
		size_t n = gd_tok_split(line, f, DISK_MAX_FIELDS);
		const char *bad = NULL;
		bool all_zero = true;
		struct gd_disk *d;

		if (n == 0)
			continue;
		if (n < DISK_MIN_FIELDS)
			bad = _("fewer than 14 fields");
		for (size_t i = 0; !bad && i < n; i++) {
			if (i == 2)
				continue;
			if (!gd_tok_u64(f[i], &v[i]))
				bad = _("malformed number");
			else if (i >= 3 && v[i] != 0)
				all_zero = false;
		}
		if (!bad && (f[2].n == 0 || f[2].n >= sizeof(((struct gd_disk *)0)->name)))
			bad = _("device name too long");
		if (bad) {
			gd_tok_tally_skip(&tally, it.lineno, bad);
			continue;
		}
		tally.parsed++;
		if (all_zero && is_loop_or_ram(f[2]))
			continue;
		d = GD_PUSH(s, disks, struct gd_disk);
		gd_tok_copy(d->name, sizeof d->name, f[2]);
		gd_u64_set(&d->reads, v[3]);
		gd_u64_set(&d->reads_merged, v[4]);
		gd_u64_set(&d->sectors_read, v[5]);
		gd_u64_set(&d->read_ms, v[6]);
		gd_u64_set(&d->writes, v[7]);
		gd_u64_set(&d->writes_merged, v[8]);
		gd_u64_set(&d->sectors_written, v[9]);
		gd_u64_set(&d->write_ms, v[10]);
		gd_u64_set(&d->in_flight, v[11]);
		gd_u64_set(&d->io_ms, v[12]);
		gd_u64_set(&d->weighted_io_ms, v[13]);
	}
	return gd_tok_tally_result(&tally, _("no block devices listed"), err);
}

/* The sysfs name of a block device: '/' in a diskstats name ("cciss/c0d0")
 * is '!' under /sys/block. */
static void sysfs_name(char *out, size_t outsz, const char *name)
{
	gd_strlcpy(out, name, outsz);
	for (char *p = out; *p; p++)
		if (*p == '/')
			*p = '!';
}

enum gd_src_status gd_collect_proc_diskstats(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	size_t first = s->disks.n;
	enum gd_src_status st = gd_collect_file(ctx, "proc/diskstats", gd_parse_proc_diskstats, s, err);
	bool have_sys_block = gd_root_exists(ctx->root, "sys/block");

	if (st != GD_SRC_OK && st != GD_SRC_PARTIAL)
		return st;
	for (size_t i = first; have_sys_block && i < s->disks.n; i++) {
		struct gd_disk *d = GD_VEC_AT(s->disks, struct gd_disk, i);
		char name[sizeof d->name], path[128];
		unsigned long long rot;

		sysfs_name(name, sizeof name, d->name);
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "sys/block/%s", name);
		gd_u64_set(&d->whole, gd_root_exists(ctx->root, path) ? 1 : 0);
		snprintf(path, sizeof path, "sys/block/%s/queue/rotational", name);
		if (gd_root_read_u64(ctx->root, path, &rot) == 0 && rot <= 1)
			gd_u64_set(&d->rotational, rot);
	}
	return st;
}
