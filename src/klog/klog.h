/*
 * klog.h - kernel-log evidence: the line parser, the streaming scanner and
 * the Xid catalogue with its context rules.
 *
 * The same kernel message reaches several front-ends, each with its own
 * prefix (FACTS.md §3.6, §4.14):
 *
 *   /dev/kmsg             4,1234,5023456789,-;NVRM: Xid (PCI:0000:5d:00): 79, ...
 *   dmesg                 [ 5023.456789] NVRM: Xid (PCI:0000:5d:00): 79, ...
 *   dmesg -T              [Mon Nov 30 01:02:03 2026] NVRM: Xid ...
 *   journalctl -k         Nov 30 01:02:03 gpu-a17 kernel: NVRM: Xid ...
 *     -o short-precise    Nov 30 01:02:03.123456 gpu-a17 kernel: NVRM: Xid ...
 *     -o short-iso        2026-11-30T01:02:03+0100 gpu-a17 kernel: NVRM: Xid ...
 *   kern.log, syslog,     Nov 30 01:02:03 gpu-a17 kernel: [ 5023.456789] NVRM: Xid ...
 *   messages              2026-11-30T01:02:03.123456+01:00 gpu-a17 kernel: NVRM: Xid ...
 *
 * gd_klog_parse_line strips any of these (keeping the boot-relative and
 * the wall-clock time when the line has them) and recognises the message.
 * It is pure: no I/O, no state; lines that belong together (the three-line
 * boot-time "fallen off the bus", an OOM report, AER detail lines) are
 * joined by the scanner's gd_klog_feed.
 */
#ifndef GD_KLOG_KLOG_H
#define GD_KLOG_KLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "model/snapshot.h"

enum gd_klog_kind {
	GD_KLOG_NONE = 0,
	/* events (stored in snapshot.klog[], named by gd_klog_kind_name) */
	GD_KLOG_XID,
	GD_KLOG_SXID,
	GD_KLOG_FALLEN_OFF_BUS,
	GD_KLOG_INIT_FAILED,
	GD_KLOG_GPU_UUID,
	GD_KLOG_AER,
	GD_KLOG_PCIE_BANDWIDTH,
	GD_KLOG_GSP_TIMEOUT,
	GD_KLOG_RESET_REQUIRED,
	GD_KLOG_OOM_KILL,
	GD_KLOG_HUNG_TASK,
	GD_KLOG_MCE,
	GD_KLOG_EDAC,
	GD_KLOG_NEVENT_KINDS,
	/* context lines, folded into a neighbour by gd_klog_feed */
	GD_KLOG_CTX_PROBE_GPU = 100,  /* NVRM: The NVIDIA GPU dddd:bb:dd.f */
	GD_KLOG_CTX_FALLEN_OFF,       /* NVRM: fallen off the bus and is not responding ... (bus from above) */
	GD_KLOG_CTX_OOM,              /* oom-kill:constraint=...,task_memcg=...,pid=N */
	GD_KLOG_CTX_AER_DEVICE,       /* AER:   device [10de:2330] error status/mask=... */
	GD_KLOG_CTX_AER_BIT,          /* AER:    [ 0] RxErr  (First) */
	GD_KLOG_CTX_MCE_SOCKET,       /* mce: [Hardware Error]: PROCESSOR 0:50654 ... SOCKET 0 ... */
	GD_KLOG_CTX_TRACE_NV,         /*  os_acquire_mutex+0x1c/0x30 [nvidia]: a call-trace frame in an NVIDIA module */
};

const char *gd_klog_kind_name(enum gd_klog_kind k);
/* The kind of a snapshot record's kind string; GD_KLOG_NONE if unknown. */
enum gd_klog_kind gd_klog_kind_of(const char *name);

/*
 * Parses one line (without its '\n'; a trailing '\r' is ignored) into *ev,
 * which it zeroes first.  Returns the kind, GD_KLOG_NONE for a line that
 * holds nothing gpudoctor uses.  A wall clock without a year (syslog's
 * "Nov 30 01:02:03") is left absent here; gd_klog_parse_line_ex computes it
 * for the year 2000 and sets *no_year, so that the scanner can put in the
 * right year.
 */
enum gd_klog_kind gd_klog_parse_line(const char *line, size_t n, struct gd_klog_event *ev);
enum gd_klog_kind gd_klog_parse_line_ex(const char *line, size_t n, struct gd_klog_event *ev, bool *no_year);

/* ---- streaming: lines in, events out ------------------------------------ */

/*
 * mktime() of local times, kept by the hour: glibc's mktime() stats
 * /etc/localtime on every call when TZ is unset, a system call per line
 * for syslog stamps.  A time is the hour's start plus minutes and seconds,
 * for hours whose last second is 3599 s after their first (an hour in
 * which the zone changes is always asked of mktime).  Two entries: a yearless syslog stamp
 * is first computed for 2000, then for its real year.
 */
struct gd_klog_tcache {
	struct {
		int year, mon, mday, hour;
		long long base;
		bool ok;
	} e[2];
	unsigned next;
};

typedef void (*gd_klog_event_fn)(void *arg, enum gd_klog_kind kind, const struct gd_klog_event *ev);

/* The scanner's state between lines: what the multi-line forms need. */
struct gd_klog_feed {
	gd_klog_event_fn emit;
	void *arg;
	double now_wall;          /* for the year of syslog lines; 0: the current time */
	uint64_t lines;           /* lines fed */
	uint64_t marked;          /* lines that held a marker (parsed) */
	uint64_t long_lines;      /* lines cut at GD_KLOG_MAX_LINE */
	/* pending event: held back one line so that context lines can fold in */
	struct gd_klog_event pend;
	enum gd_klog_kind pend_kind;
	char probe_bus[32];       /* from "The NVIDIA GPU dddd:bb:dd.f" */
	struct gd_f64 probe_boot_s, probe_wall_s; /* its stamps: dmesg's continuation lines have none */
	bool fell_off;            /* the latest event was the boot-time "fallen off the bus" form */
	char oom_detail[64];      /* from "oom-kill:constraint=..." */
	uint64_t oom_pid;
	int year_base;            /* year added to syslog lines without one */
	int last_mon;             /* month of the previous yearless line, to spot a new year */
	struct gd_klog_tcache tc; /* local times by the hour */
};

void gd_klog_feed_init(struct gd_klog_feed *f, gd_klog_event_fn emit, void *arg, double now_wall);
/* Feeds one complete line.  Cheap for lines without a marker. */
void gd_klog_feed_line(struct gd_klog_feed *f, const char *line, size_t n);
/* Feeds a buffer of whole lines (a last line without '\n' counts as one):
 * finds the rare markers with a vectorised search and parses only their
 * lines. */
void gd_klog_feed_buf(struct gd_klog_feed *f, const char *buf, size_t len);
/* Emits what is still pending; call at the end of input. */
void gd_klog_feed_flush(struct gd_klog_feed *f);

/* Lines longer than this are cut: the rest up to the next '\n' is skipped. */
#define GD_KLOG_MAX_LINE (1u << 20)

/*
 * Reads a kernel log from fd to its end: plain text, or gzip (zlib,
 * detected by the magic bytes 1f 8b, concatenated members too).  Memory
 * stays at two buffers whatever the size.  name is used in messages.
 * Returns 0, 1 when it read part of the input (a gzip file that ends early,
 * a read error after some data: err says where; the events read are kept)
 * or negative when nothing could be read.
 */
int gd_klog_read_fd(struct gd_klog_feed *f, int fd, const char *name, struct gd_err *err);

/*
 * Reads the kernel ring buffer from an open /dev/kmsg descriptor (opened
 * O_RDONLY|O_NONBLOCK) from its oldest record until EAGAIN.  EPIPE (records
 * overwritten while reading) is counted and reading goes on.  Returns 0 or
 * -errno with err set (-EACCES/-EPERM: the caller explains the fix).
 */
int gd_klog_read_kmsg(struct gd_klog_feed *f, int fd, struct gd_err *err);

/* Text that says how to get permission to read the kernel log: a literal
 * (it is concatenated), marked for the catalogue; a person reads
 * _(GD_KLOG_DENIED_HINT). */
#ifndef gettext_noop
#define gettext_noop(s) s
#endif
#define GD_KLOG_DENIED_HINT \
	gettext_noop("run as root, grant CAP_SYSLOG (setcap cap_syslog+ep), or allow all users with sysctl kernel.dmesg_restrict=0")

/* Parses "2026-11-30T01:00[:SS]" / "2026-11-30 01:00" (local time) or a
 * duration ("24h", "90m") before now into seconds since the epoch. */
int gd_klog_parse_since(const char *text, double now_wall, double *since, struct gd_err *err);

#endif
