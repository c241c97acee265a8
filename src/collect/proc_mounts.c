/*
 * proc_mounts.c - the mount table of gpudoctor's mount namespace:
 * /proc/self/mounts (Linux 2.4.19), falling back to /proc/mounts (a symlink
 * to self/mounts since 2.6.25, a file before).
 *
 * fstab format, six fields; blanks, tabs, newlines and backslashes inside a
 * field are written as octal escapes (\040 \011 \012 \134):
 *
 *      /dev/vda / ext4 rw,relatime,discard 0 0
 *      tmpfs /dev/shm tmpfs rw,relatime,size=24684096k 0 0
 *      /dev/sdb1 /mnt/my\040data xfs rw,noatime 0 0
 *
 * size_bytes comes from a size= option (tmpfs, devtmpfs, hugetlbfs): the
 * kernel prints "size=<n>k", users may have mounted with a plain byte count
 * or a k/m/g/t suffix (memparse).  A percentage ("size=50%") is relative to
 * MemTotal, which this parser does not see, so it is left absent; so is a
 * malformed size (the line is still kept, and named in err: partial).
 * Lines with fewer than four fields are skipped (partial).
 */
#include "collect/collectors.h"
#include "core/tok.h"

#include <errno.h>
#include <string.h>

#include "core/i18n.h"

#define MOUNT_FIELDS 6

/* Copies field s into dst decoding \ooo octal escapes. */
static void copy_unescaped(char *dst, size_t dstsz, struct gd_slice s)
{
	size_t o = 0;

	for (size_t i = 0; i < s.n && o + 1 < dstsz; i++) {
		char c = s.p[i];

		if (c == '\\' && i + 3 < s.n) {
			const char *e = s.p + i + 1;

			if (e[0] >= '0' && e[0] <= '3' && e[1] >= '0' && e[1] <= '7' && e[2] >= '0' && e[2] <= '7') {
				c = (char)((e[0] - '0') * 64 + (e[1] - '0') * 8 + (e[2] - '0'));
				i += 3;
			}
		}
		dst[o++] = c;
	}
	dst[o] = '\0';
}

/* Parses a size= value: 1 set, 0 unresolvable (a percentage), -1 malformed. */
static int parse_size(struct gd_slice v, uint64_t *out)
{
	unsigned shift = 0;
	uint64_t n;

	if (v.n && v.p[v.n - 1] == '%')
		return 0;
	if (v.n) {
		switch (v.p[v.n - 1]) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		case 't': case 'T': shift = 40; break;
		default: break;
		}
	}
	if (shift)
		v.n--;
	if (!gd_tok_u64(v, &n) || (shift && n > (UINT64_MAX >> shift)))
		return -1;
	*out = n << shift;
	return 1;
}

/* Finds size= among comma-separated options: the same return as parse_size,
 * or 0 when there is none. */
static int option_size(struct gd_slice opts, uint64_t *out)
{
	size_t i = 0;

	while (i <= opts.n) {
		size_t start = i;
		struct gd_slice o;

		while (i < opts.n && opts.p[i] != ',')
			i++;
		o.p = opts.p + start;
		o.n = i - start;
		if (gd_tok_prefix(o, "size=")) {
			o.p += 5;
			o.n -= 5;
			return parse_size(o, out);
		}
		i++;
	}
	return 0;
}

int gd_parse_proc_mounts(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line, f[MOUNT_FIELDS];
	size_t skipped = 0, first_bad = 0, kept = 0;
	const char *why = "";

	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("binary data, not a mount table"));
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		size_t n = gd_tok_split(line, f, MOUNT_FIELDS);
		struct gd_mount *m;
		uint64_t size;
		int rc;

		if (n == 0)
			continue;
		if (n < 4) {
			if (!skipped++) {
				first_bad = it.lineno;
				why = _("fewer than 4 fields");
			}
			continue;
		}
		m = GD_PUSH(s, mounts, struct gd_mount);
		kept++;
		copy_unescaped(m->device, sizeof m->device, f[0]);
		copy_unescaped(m->mountpoint, sizeof m->mountpoint, f[1]);
		copy_unescaped(m->fstype, sizeof m->fstype, f[2]);
		rc = option_size(f[3], &size);
		if (rc > 0) {
			gd_u64_set(&m->size_bytes, size);
		} else if (rc < 0 && !skipped++) {
			first_bad = it.lineno;
			why = _("malformed size= option");
		}
	}
	if (!skipped && !kept)
		return gd_err_set(err, -ENODATA, _("empty: no mounts listed"));
	if (skipped && !kept)
		return gd_err_set(err, -EINVAL, _("line %zu: %s (no usable line)"), first_bad, why);
	if (skipped) {
		gd_err_set(err, -EINVAL, _("line %zu: %s; %zu line(s) not fully parsed"), first_bad, why, skipped);
		return 1;
	}
	return 0;
}

enum gd_src_status gd_collect_proc_mounts(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	enum gd_src_status st = gd_collect_file(ctx, "proc/self/mounts", gd_parse_proc_mounts, s, err);

	if (st != GD_SRC_ABSENT)
		return st;
	gd_err_clear(err);
	return gd_collect_file(ctx, "proc/mounts", gd_parse_proc_mounts, s, err);
}
