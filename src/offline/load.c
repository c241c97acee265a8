/*
 * load.c - `check --from FILE...`: reads each file (gzip undone, UTF-16
 * decoded), splits a paste or a bug report into its outputs, reads each
 * with its parser and hands what it said to merge.c, which merges what
 * one host said into one snapshot per instant.
 *
 * Each file and kind gets one sources[] row, "offline:<kind>", whose status
 * says whether its parts read whole (ok), in part (partial: the reason
 * names the first bad line, counted in the file) or not at all (failed).
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "collect/collectors.h"
#include "collect/klog.h"
#include "core/i18n.h"
#include "core/xalloc.h"
#include "klog/fmlog.h"
#include "offline/merge.h"
#include "offline/offline.h"
#include "offline/ofl.h"
#include "offline/split.h"

/* Decompressed inputs larger than this are read only as kernel logs
 * (streamed by src/klog). */
#define OFL_MAX_INPUT (512u << 20)

/* ---- one part ------------------------------------------------------------------ */

struct kstat {
	size_t parts, ok, partial, failed;
	char reason[256];
};

struct load {
	struct gd_ofl *o;
	struct gd_series *jsonl;
	const char *name;
	struct kstat k[GD_OFL_NKINDS];
	struct gd_err first;   /* the first partial or failed part, for the caller */
	bool bug_report;
	size_t known;          /* parts of a known kind */
	uint64_t older;        /* kernel-log events left out, older than the look-back */
};

/* "line N: ..." in a part's message -> the file's line, prefixed by the file.
 * The Chinese messages say "第 N 行" where the English ones say "line N". */
static void file_msg(char *dst, size_t n, const char *name, size_t line0, const char *msg)
{
	static const char zh_line[] = "\xe7\xac\xac "; /* "第 " */
	const char *l = strstr(msg, "line "), *z = strstr(msg, zh_line);
	size_t skip = 5;
	unsigned long long k;
	size_t used;

	if (z && (!l || z < l)) {
		l = z;
		skip = sizeof zh_line - 1;
	}
	if (l && sscanf(l + skip, "%llu", &k) == 1) {
		const char *rest = l + skip;

		while (*rest >= '0' && *rest <= '9')
			rest++;
		snprintf(dst, n, "%s: %.*s%llu%s", name, (int)(l + skip - msg), msg, k + line0 - 1, rest);
		return;
	}
	snprintf(dst, n, "%s: ", name);
	used = strlen(dst);
	snprintf(dst + used, n - used, _("%s (from line %zu)"), msg, line0);
}

/* A paste's kernel log judged over the look-back before its last line (24 h:
 * what the live check reads) leaves its older events out; the reader is told
 * how many (all the file's kernel-log parts together), and how to read them
 * (real: a `dmesg -T | grep NVRM` whose Xid 31 and 43 lay days before its
 * last line, akash-network/support#244). */
static void older_note(struct gd_series *jsonl, const char *name, uint64_t older, double lookback_s)
{
	size_t n;

	if (!jsonl || !older)
		return;
	n = strlen(jsonl->note);
	snprintf(jsonl->note + n, sizeof jsonl->note - n,
		 /* TRANSLATORS: "<; ><file>: <n> ... (<hours> h before ...)"; --lookback 720h is the option, keep it */
		 P_("%s%s: %llu kernel-log event older than the look-back (%.4g h before the log's last line) left out; "
		    "--lookback 720h reads it",
		    "%s%s: %llu kernel-log events older than the look-back (%.4g h before the log's last line) left out; "
		    "--lookback 720h reads them",
		    older),
		 n ? "; " : "", name, (unsigned long long)older, (lookback_s > 0 ? lookback_s : 86400) / 3600);
}

/* A kernel log in memory, through the streaming reader of src/klog. */
static int parse_klog(struct load *L, const char *buf, size_t len, struct gd_snapshot *t, struct gd_err *err)
{
	int fd = memfd_create("gpudoctor-klog", MFD_CLOEXEC), rc;
	size_t off = 0;

	if (fd < 0)
		return gd_err_set(err, -errno, "memfd_create: %s", strerror(errno));
	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w <= 0) {
			close(fd);
			return gd_err_set(err, -EIO, _("cannot buffer the kernel log"));
		}
		off += (size_t)w;
	}
	lseek(fd, 0, SEEK_SET);
	rc = gd_klog_snapshot_from_fd(t, fd, L->name, L->o->lookback_s, err);
	close(fd);
	if (t->klog_info.older.ok)
		L->older += t->klog_info.older.v;
	/* the reader's "klog" row stays: the kernel-log rules look for it */
	return rc;
}

/* "uname: Linux gpu-a17 5.15.0-91-generic #101 ..." of a bug report. */
static int parse_bug_header(const char *buf, size_t len, struct gd_snapshot *t, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice l, f[4];

	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &l)) {
		l = gd_tok_trim(ofl_chomp(l));
		if (gd_tok_prefix(l, "uname:") && gd_tok_split(l, f, 4) == 4) {
			gd_tok_copy(t->host.hostname, sizeof t->host.hostname, f[2]);
			gd_tok_copy(t->host.kernel, sizeof t->host.kernel, f[3]);
		}
	}
	(void)err;
	return 0;
}

static int parse_kind(struct load *L, enum gd_ofl_kind kind, const char *buf, size_t len, struct gd_snapshot *t,
		      struct gd_err *err)
{
	switch (kind) {
	case GD_OFL_SMI_Q:
		return gd_parse_nvsmi_q(buf, len, t, err);
	case GD_OFL_SMI_XML:
		return gd_parse_nvsmi_xml(buf, len, t, err);
	case GD_OFL_SMI_CSV:
		return gd_parse_nvsmi_csv(buf, len, t, err);
	case GD_OFL_SMI_TABLE:
		return gd_parse_nvsmi_table(buf, len, t, err);
	case GD_OFL_LSPCI:
		return gd_parse_lspci(buf, len, t, err);
	case GD_OFL_KLOG:
		return parse_klog(L, buf, len, t, err);
	case GD_OFL_DRIVER:
		return gd_parse_proc_driver_nvidia_version(buf, len, t, err);
	case GD_OFL_BUG_REPORT:
		return parse_bug_header(buf, len, t, err);
	case GD_OFL_JOBLOG:
		return gd_parse_joblog(buf, len, t, err);
	case GD_OFL_DCGMI:
		return gd_parse_dcgmi(buf, len, t, err);
	case GD_OFL_DF:
		return gd_parse_df(buf, len, t, err);
	case GD_OFL_IBSTAT:
		return gd_parse_ibstat(buf, len, t, err);
	case GD_OFL_NVLINK:
		return gd_parse_nvlink(buf, len, t, err);
	case GD_OFL_FMLOG:
		return gd_parse_fmlog(buf, len, t, err);
	case GD_OFL_TOPO:
		return gd_parse_nvsmi_topo(buf, len, t, err);
	default:
		return gd_err_set(err, -EINVAL, _("not a format gpudoctor reads"));
	}
}

/* Reads one part (line0: its first line in the file) and merges it. */
static void read_part(struct load *L, enum gd_ofl_kind kind, const char *buf, size_t len, size_t line0)
{
	struct gd_snapshot t;
	struct gd_err err;
	struct kstat *k = &L->k[kind];
	int rc;

	gd_snapshot_init(&t);
	gd_err_clear(&err);
	rc = parse_kind(L, kind, buf, len, &t, &err);
	k->parts++;
	if (rc < 0) {
		k->failed++;
	} else if (rc > 0) {
		k->partial++;
	} else {
		k->ok++;
	}
	if (rc != 0 && err.msg[0]) {
		char msg[GD_ERR_MSG_MAX];

		file_msg(msg, sizeof msg, L->name, line0, err.msg);
		if (!k->reason[0] || (rc > 0 && !k->partial))
			GD_STRSET(k->reason, msg + strlen(L->name) + 2);
		if (!L->first.msg[0] && !(L->bug_report && rc < 0))
			gd_err_set(&L->first, rc < 0 ? -EINVAL : 1, "%s", msg);
	}
	/* the job log's lines: the file's, and named by it; a rank its lines do
	 * not name, its name's (rank3.log) */
	{
		uint64_t frank = 0;
		bool fr = kind == GD_OFL_JOBLOG && gd_joblog_rank_of_name(L->name, &frank);

		GD_VEC_EACH(t.job_log, struct gd_job_log, r) {
			if (!r->file[0])
				GD_STRSET(r->file, L->name);
			if (r->line.ok)
				r->line.v += line0 - 1;
			if (fr && !r->rank.ok) {
				gd_u64_set(&r->rank, frank);
				GD_STRSET(r->rank_from, "file");
			}
		}
	}
	if (kind == GD_OFL_FMLOG && !t.fabric.fm_log[0])
		GD_STRSET(t.fabric.fm_log, L->name);
	if (rc >= 0)
		ofl_merge_part(L->o, kind, &t);
	gd_snapshot_release(&t);
}

/* ---- splitting ------------------------------------------------------------------- */

struct part {
	size_t off, end;         /* bytes of the part in the buffer */
	size_t line0;            /* its first line */
	struct gd_slice cmd;     /* the prompt's command before it, if any */
	bool cont;               /* it follows an elision */
	enum gd_ofl_kind kind;
};

/* Copies a part, blanking the lines that are not output (elisions, rules,
 * comments inside it); for CSV the command line goes first, as its header. */
static char *part_text(const char *buf, const struct part *p, size_t *len, size_t *line0)
{
	size_t n = p->end - p->off, pre = p->kind == GD_OFL_SMI_CSV && p->cmd.n ? p->cmd.n + 1 : 0;
	char *t = gd_xmalloc(n + pre + 1);
	struct gd_lines it;
	struct gd_slice l, cmd;

	if (pre) {
		memcpy(t, p->cmd.p, p->cmd.n);
		t[p->cmd.n] = '\n';
	}
	memcpy(t + pre, buf + p->off, n);
	t[n + pre] = '\0';
	gd_lines_init(&it, t + pre, n);
	while (gd_tok_line(&it, &l)) {
		if (ofl_line_class(l, &cmd) != OFL_LINE_TEXT) {
			memset((char *)l.p, ' ', l.n);
		} else if (p->kind == GD_OFL_KLOG) {
			/* a kernel log quoted in markdown ("> [ 3793.42] NVRM: ..."):
			 * the quote marks become blanks */
			char *c = (char *)l.p, *e = c + l.n;

			while (c < e && (*c == ' ' || *c == '\t'))
				c++;
			while (c < e && *c == '>') {
				*c++ = ' ';
				while (c < e && *c == ' ')
					c++;
			}
		}
	}
	*len = n + pre;
	*line0 = p->line0 - (pre ? 1 : 0);
	return t;
}

static void read_parts(struct load *L, const char *buf, size_t len)
{
	struct gd_lines it;
	struct gd_slice l, cmd = { buf, 0 }, pending = { buf, 0 };
	struct part *parts = NULL;
	size_t np = 0, cap = 0, big = SIZE_MAX;
	bool cont = false, open = false;

	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &l)) {
		enum ofl_line c = ofl_line_class(l, &cmd);
		size_t next = (size_t)(it.p - buf);

		if (c == OFL_LINE_TEXT) {
			if (!open && gd_tok_trim(ofl_chomp(l)).n) {
				if (np == cap) {
					cap = cap ? cap * 2 : 16;
					parts = gd_xreallocarray(parts, cap, sizeof *parts);
				}
				parts[np] = (struct part){ (size_t)(l.p - buf), next, it.lineno, pending, cont, GD_OFL_UNKNOWN };
				np++;
				open = true;
			} else if (open) {
				parts[np - 1].end = next;
			}
		} else {
			open = false;
			if (c == OFL_LINE_PROMPT) {
				pending = cmd;
				cont = false;
			} else if (c == OFL_LINE_ELISION) {
				cont = true;
			} else {
				pending = (struct gd_slice){ buf, 0 };
				cont = false;
			}
		}
	}
	/* kinds; a part after an elision continues the one before it */
	for (size_t i = 0; i < np; i++) {
		struct part *p = &parts[i];

		p->kind = gd_ofl_detect(buf + p->off, p->end - p->off);
		if (p->kind == GD_OFL_UNKNOWN && p->cmd.n)
			p->kind = ofl_cmd_kind(p->cmd);
		if (p->kind == GD_OFL_BUG_REPORT && L->bug_report && i)
			p->kind = GD_OFL_UNKNOWN;
		if (i && p->cont && parts[i - 1].kind != GD_OFL_UNKNOWN &&
		    (p->kind == GD_OFL_UNKNOWN || p->kind == parts[i - 1].kind)) {
			parts[i - 1].end = p->end;
			memmove(p, p + 1, (np - i - 1) * sizeof *p);
			np--;
			i--;
		}
	}
	/* a bug report holds the kernel log several times (dmesg, journal,
	 * kern.log): the largest is read */
	if (L->bug_report)
		for (size_t i = 0; i < np; i++)
			if (parts[i].kind == GD_OFL_KLOG &&
			    (big == SIZE_MAX || parts[i].end - parts[i].off > parts[big].end - parts[big].off))
				big = i;
	for (size_t i = 0; i < np; i++) {
		size_t plen, line0;
		char *t;

		if (parts[i].kind == GD_OFL_UNKNOWN || parts[i].kind == GD_OFL_JSONL ||
		    (parts[i].kind == GD_OFL_KLOG && big != SIZE_MAX && i != big))
			continue;
		L->known++;
		t = part_text(buf, &parts[i], &plen, &line0);
		read_part(L, parts[i].kind, t, plen, line0);
		/* a job's messages are read wherever they stand: a traceback
		 * pasted among kernel-log lines is both */
		if (parts[i].kind != GD_OFL_JOBLOG && parts[i].kind != GD_OFL_SMI_XML && gd_joblog_messages(t, plen))
			read_part(L, GD_OFL_JOBLOG, t, plen, line0);
		/* and kernel-log lines wherever they stand: a job's traceback
		 * with the kernel's lines after it in one block is both */
		else if (parts[i].kind == GD_OFL_JOBLOG && ofl_klog_events(t, plen))
			read_part(L, GD_OFL_KLOG, t, plen, line0);
		free(t);
	}
	free(parts);
}

/* ---- encodings ------------------------------------------------------------------ */

/* UTF-16 with a byte-order mark -> UTF-8 (a new buffer); NULL if not UTF-16. */
static char *from_utf16(const unsigned char *b, size_t len, size_t *out)
{
	bool le;
	char *u;
	size_t o = 0;

	if (len < 2 || !((b[0] == 0xff && b[1] == 0xfe) || (b[0] == 0xfe && b[1] == 0xff)))
		return NULL;
	le = b[0] == 0xff;
	u = gd_xmalloc(len / 2 * 3 + 4);
	for (size_t i = 2; i + 1 < len; i += 2) {
		unsigned c = le ? (unsigned)(b[i] | b[i + 1] << 8) : (unsigned)(b[i] << 8 | b[i + 1]);

		if (c >= 0xd800 && c < 0xdc00 && i + 3 < len) {
			unsigned d = le ? (unsigned)(b[i + 2] | b[i + 3] << 8) : (unsigned)(b[i + 2] << 8 | b[i + 3]);

			if (d >= 0xdc00 && d < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
				i += 2;
			}
		}
		if (c == 0)
			c = ' ';
		if (c < 0x80) {
			u[o++] = (char)c;
		} else if (c < 0x800) {
			u[o++] = (char)(0xc0 | c >> 6);
			u[o++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			u[o++] = (char)(0xe0 | c >> 12);
			u[o++] = (char)(0x80 | (c >> 6 & 0x3f));
			u[o++] = (char)(0x80 | (c & 0x3f));
		} else {
			u[o++] = (char)(0xf0 | c >> 18);
			u[o++] = (char)(0x80 | (c >> 12 & 0x3f));
			u[o++] = (char)(0x80 | (c >> 6 & 0x3f));
			u[o++] = (char)(0x80 | (c & 0x3f));
		}
	}
	u[o] = '\0';
	*out = o;
	return u;
}

int gd_ofl_load_buf(struct gd_ofl *o, struct gd_series *jsonl, const char *buf, size_t len, const char *name,
		    struct gd_err *err)
{
	struct load L;
	size_t ulen = 0;
	char *u = from_utf16((const unsigned char *)buf, len, &ulen);
	enum gd_ofl_kind whole;
	size_t zeros = 0;
	int rc = 0;

	memset(&L, 0, sizeof L);
	L.o = o;
	L.jsonl = jsonl;
	L.name = name;
	if (u) {
		buf = u;
		len = ulen;
	} else if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
		buf += 3;
		len -= 3;
	}
	for (size_t i = 0; i < len && i < 4096; i++)
		zeros += buf[i] == '\0';
	if (zeros * 8 > (len < 4096 ? len : 4096) && zeros) {
		free(u);
		return gd_err_set(err, -EINVAL, _("%s: line 1: binary data, or UTF-16 without a byte-order mark (convert it: "
				    "iconv -f UTF-16LE -t UTF-8)"), name);
	}
	whole = gd_ofl_detect(buf, len);
	if (whole == GD_OFL_JSONL) {
		FILE *f = len ? fmemopen((void *)buf, len, "r") : NULL;

		rc = f ? gd_series_load_stream(jsonl, f, name, err) : gd_err_set(err, -ENODATA, "%s: empty", name);
		if (f)
			fclose(f);
		free(u);
		return rc;
	}
	L.bug_report = whole == GD_OFL_BUG_REPORT;
	read_parts(&L, buf, len);
	older_note(jsonl, name, L.older, o->lookback_s);
	for (int k = 1; k < GD_OFL_NKINDS; k++) {
		struct kstat *s = &L.k[k];
		struct gd_source *src;

		if (!s->parts)
			continue;
		src = GD_PUSH(&o->shared, sources, struct gd_source);
		snprintf(src->name, sizeof src->name, "offline:%s", gd_ofl_kind_name((enum gd_ofl_kind)k));
		if (s->parts > 1)
			snprintf(src->path, sizeof src->path, _("%.200s (%zu parts)"), name, s->parts);
		else
			GD_STRSET(src->path, name);
		/* a bug report holds outputs that are not the GPU report (nvidia-smi
		 * -q --unit): a part that failed next to one that was read is quiet */
		GD_STRSET(src->status, s->failed == s->parts ? "failed"
				       : (s->partial || (s->failed && !L.bug_report)) ? "partial" : "ok");
		if (strcmp(src->status, "ok") != 0)
			GD_STRSET(src->reason, s->reason);
	}
	if (!L.known) {
		struct gd_source *src = GD_PUSH(&o->shared, sources, struct gd_source);

		GD_STRSET(src->name, "offline:unknown");
		GD_STRSET(src->path, name);
		GD_STRSET(src->status, "failed");
		GD_STRSET(src->reason, _("not a format gpudoctor reads"));
		rc = gd_err_set(err, len ? -EINVAL : -ENODATA,
				_("%s: %s (expected snapshot JSON lines, nvidia-smi -q, -q -x, --query-gpu CSV or table "
				  "output, a kernel log, lspci -vv, nvidia-bug-report.log, a job's log or dcgmi output)"),
				name, len ? _("line 1: not a format gpudoctor reads") : _("empty"));
	} else if (L.first.msg[0]) {
		bool none = true;

		for (int k = 1; k < GD_OFL_NKINDS; k++)
			none = none && L.k[k].ok + L.k[k].partial == 0;
		rc = gd_err_set(err, none ? -EINVAL : 1, "%s", L.first.msg);
	}
	free(u);
	return rc;
}

/* ---- files ---------------------------------------------------------------------- */

int gd_ofl_load_file(struct gd_ofl *o, struct gd_series *jsonl, const char *path, struct gd_err *err)
{
	bool in = strcmp(path, "-") == 0;
	const char *name = in ? "standard input" : path;
	int fd = in ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC), zfd;
	size_t len = 0, cap = 65536;
	char *buf;
	gzFile z;
	struct stat st;
	int rc = 0, n, zerr;

	if (fd < 0)
		return gd_err_set(err, -errno, "%s: %s", name, strerror(errno));
	/* open(2) takes a directory; its read(2) fails with EISDIR, which
	 * would otherwise be reported as an empty file */
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return gd_err_set(err, -EISDIR, _("%s: is a directory (give the files in it)"), name);
	}
	zfd = dup(fd);
	z = zfd >= 0 ? gzdopen(zfd, "rb") : NULL;
	if (!z) {
		if (zfd >= 0)
			close(zfd);
		close(fd);
		return gd_err_set(err, -ENOMEM, _("%s: cannot open for reading"), name);
	}
	buf = gd_xmalloc(cap + 1);
	while ((n = gzread(z, buf + len, (unsigned)(cap - len))) > 0) {
		len += (size_t)n;
		if (len == cap) {
			if (cap >= OFL_MAX_INPUT)
				break;
			cap *= 2;
			buf = gd_xreallocarray(buf, cap + 1, 1);
		}
	}
	if (n < 0) {
		const char *m = gzerror(z, &zerr);

		rc = len ? 1 : -EIO;
		gd_err_set(err, rc < 0 ? -EIO : 1, _("%s: %s after %zu bytes (the rest is not read)"), name,
			   zerr == Z_ERRNO ? strerror(errno) : m, len);
	}
	gzclose(z);
	buf[len] = '\0';
	if (len >= OFL_MAX_INPUT && gd_ofl_detect(buf, 65536) == GD_OFL_KLOG && !in) {
		/* too large to hold: stream it as the kernel log it is */
		struct gd_snapshot t;

		gd_snapshot_init(&t);
		lseek(fd, 0, SEEK_SET);
		rc = gd_klog_snapshot_from_fd(&t, fd, name, o->lookback_s, err);
		older_note(jsonl, name, t.klog_info.older.ok ? t.klog_info.older.v : 0, o->lookback_s);
		if (rc >= 0) {
			ofl_merge_snapshot(&o->shared, &t);
			o->any = true;
		}
		gd_snapshot_release(&t);
	} else if (len >= OFL_MAX_INPUT) {
		rc = gd_err_set(err, -EFBIG, _("%s: larger than %u MiB and not a kernel log"), name, OFL_MAX_INPUT >> 20);
	} else {
		struct gd_err e2;
		int r2;

		gd_err_clear(&e2);
		r2 = gd_ofl_load_buf(o, jsonl, buf, len, name, &e2);
		if (r2 != 0 || rc == 0) {
			if (r2 != 0 || !err->msg[0])
				*err = e2;
			rc = r2 < 0 ? r2 : (r2 || rc) ? 1 : 0;
		}
	}
	free(buf);
	close(fd);
	return rc;
}

int gd_parse_offline_paste(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_ofl o;
	struct gd_series ser;
	int rc;

	gd_ofl_init(&o, 0);
	gd_series_init(&ser);
	rc = gd_ofl_load_buf(&o, &ser, buf, len, "paste", err);
	gd_ofl_finish(&o, &ser);
	for (size_t i = 0; i < ser.n; i++)
		ofl_merge_snapshot(s, &ser.items[i]);
	if (rc < 0 && ser.n)
		rc = 1;
	gd_series_release(&ser);
	gd_ofl_release(&o);
	return rc;
}
