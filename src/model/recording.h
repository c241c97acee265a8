/*
 * recording.h - the file `gpudoctor record` writes and `report` / `check
 * --from` read: snapshots as JSON lines, gzip-compressed unless the name
 * ends in ".jsonl" (zlib; each snapshot is flushed with Z_SYNC_FLUSH, so a
 * recording cut by power loss or kill -9 loses at most the snapshot being
 * written, and zcat reads what is there).  Appending to an existing gzip
 * recording adds a gzip member (zcat and the reader take members in a row).
 *
 * Rotation: with max_bytes (bytes on disk) or max_age_s set, the file is
 * renamed to FILE.1 (replacing an older FILE.1) when it grows past either,
 * and a new FILE started: a run of any length keeps at most about twice
 * max_bytes on disk.  report FILE.1 FILE reads both, in time order.
 *
 * Appending to a recording whose last snapshot was cut (kill -9, power
 * loss) first takes that snapshot off, so what follows is read
 * (cut_bytes says how much; recording.c).
 *
 * Lines: every full_every-th line (and the first of each file) has every
 * process and thread in full; the others write one unchanged since the
 * line before as its pid or tid (snapshot_delta.h).
 */
#ifndef GD_MODEL_RECORDING_H
#define GD_MODEL_RECORDING_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/err.h"
#include "model/snapshot.h"
#include "model/snapshot_delta.h"

struct gd_rec {
	char path[4096];
	bool gz;
	FILE *f;              /* snapshots are written here (through zlib when gz) */
	void *z;              /* gzFile when gz */
	double max_bytes;     /* 0: no size limit */
	double max_age_s;     /* 0: no age limit */
	double opened;        /* when the current file was started (the caller's clock) */
	unsigned rotations;
	unsigned full_every;  /* 1: every line in full */
	unsigned long lines;  /* written to the current file */
	size_t refs;          /* records written as references, over all files */
	long long cut_bytes;  /* opening: bytes of a cut snapshot taken off the end */
	struct gd_delta_base prev;  /* the line before */
};

/* record's default full_every: one whole line a minute at 1 s */
#define GD_REC_FULL_EVERY 60

/* "500M", "2G", "64k", "1000000" (bytes; k/M/G/T are powers of 1024). */
int gd_rec_parse_size(const char *text, double *bytes, struct gd_err *err);
/* Does a recording named path get gzip? (Not when it ends in ".jsonl".) */
bool gd_rec_name_is_gzip(const char *path);
/* Opens (appends to) path; now is the caller's clock, for max_age_s;
 * full_every 0 means GD_REC_FULL_EVERY. */
int gd_rec_open(struct gd_rec *r, const char *path, double max_bytes, double max_age_s, unsigned full_every,
		double now, struct gd_err *err);
/* Writes one snapshot line, flushes it to the file, rotates when due. */
int gd_rec_write(struct gd_rec *r, const struct gd_snapshot *s, double now, struct gd_err *err);
int gd_rec_close(struct gd_rec *r, struct gd_err *err);

/*
 * Opens a recording for reading, plain or gzip (by its first bytes, not
 * its name).  *cut (may be NULL; it must outlive the stream) is set when
 * the gzip data ends early (GD_REC_ENDS_EARLY) or is damaged
 * (GD_REC_DAMAGED): what came before is delivered, then the end of the
 * stream.  *gz (may be NULL): whether it is gzip.  fclose() releases
 * everything.
 */
#define GD_REC_ENDS_EARLY 1
#define GD_REC_DAMAGED 2
FILE *gd_rec_fopen_read(const char *path, int *cut, bool *gz, struct gd_err *err);

/*
 * The longest line a reader of snapshots takes (report, fleet FILE,
 * timeline): 64 MiB.  A 1,000-process node with 10,000 threads (bench/
 * mkroot_procs.py, 784 threads of GPU jobs listed) writes an 871 KB line,
 * 527 bytes a process; 64 MiB holds 120,000 such processes, or 8,000 with
 * every text field at its longest and escaped (about 8 KB each).  A longer
 * line is no snapshot: one gzip file of 1.9 MB held a 2 GB line, which
 * getline(3) took whole.
 */
#define GD_LINE_MAX ((size_t)64 << 20)
#define GD_LINE_MAX_MIB 64
/* getline(3) up to max bytes: the line's length (its '\n' included, the
 * line NUL-terminated in *line), -1 at the end of f or on a read error
 * (ferror), or -2 when the line is longer than max (what was read of it
 * is in *line; the rest is not read). */
ssize_t gd_getline_max(char **line, size_t *cap, FILE *f, size_t max);

#endif
