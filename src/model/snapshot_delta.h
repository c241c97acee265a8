/*
 * snapshot_delta.h - recording lines that point at the line before them.
 *
 * Between two snapshots a second apart most records of procs[], threads[],
 * job_threads[] and job_ranks[] do not change: a sleeping process has the same CPU
 * ticks, memory and command line.  On a 65-process VM 61 of 65 process
 * records were the same, and they were 28 of a line's 40 KB.  So `record`
 * writes such a record as its key alone, a JSON integer in place of the
 * object (the pid in procs[] and job_ranks[], the tid in threads[] and
 * job_threads[]),
 * meaning "this record, exactly as in the line before".  A line holding
 * one has "version": 2 and "after": the time (host.wall_time_s, else
 * uptime_s) of the line it was written after; a line without is version 1,
 * as before, and older gpudoctor reads it.  The first line of a file, the first after a
 * rotation or a restart and every full_every-th line are written in full.
 *
 * The reader puts back the record of the line before with that key (the
 * first one with it), so the snapshot it gives is the one that was
 * recorded, byte for byte when written again.  A record is written as a
 * reference only when every field would be written the same (the
 * comparison is on what the JSON would say, not on the bytes of the
 * struct), and only when the key is set and unique in the line before.
 * A line whose line before is not there (a piece cut from a recording, a
 * line taken out: "after" is not the time of the line before it) cannot be
 * put back; the reader leaves it out, and the lines after it up to the
 * next whole one, and says so.
 */
#ifndef GD_MODEL_SNAPSHOT_DELTA_H
#define GD_MODEL_SNAPSHOT_DELTA_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "model/snapshot.h"

/* procs, threads, job_threads, job_ranks */
#define GD_DELTA_NSEC 4

/* The slot of section d among the keyed ones, or -1. */
int gd_delta_slot(const struct gd_record_desc *d);
/* The name of slot's key field ("pid", "tid"), and that field of rec. */
const char *gd_delta_key_name(int slot);
const struct gd_u64 *gd_delta_key(int slot, const void *rec);

/* The references one line makes: in slot's array, element index stands for
 * the record with key in the line before. */
struct gd_delta_ref {
	size_t index;
	uint64_t key;
};

struct gd_delta_refs {
	struct gd_vec sec[GD_DELTA_NSEC];  /* struct gd_delta_ref */
	size_t n;                          /* over all slots */
	struct gd_f64 after;               /* the line's "after" */
};

void gd_delta_refs_init(struct gd_delta_refs *r);
void gd_delta_refs_release(struct gd_delta_refs *r);
/* Element index of slot's array in s was written as key: pushes a record
 * with only its key set (a placeholder) and notes it. */
void gd_delta_ref_push(struct gd_delta_refs *r, struct gd_snapshot *s, int slot, uint64_t key);

/* What a line leaves for the next: copies of its keyed sections, with an
 * index by key. */
struct gd_delta_base {
	bool have;                         /* a line was read (written) */
	struct gd_f64 at;                  /* its time: host.wall_time_s, else uptime_s */
	struct gd_vec sec[GD_DELTA_NSEC];  /* the records */
	struct gd_vec idx[GD_DELTA_NSEC];  /* (key, position), sorted */
};

void gd_delta_base_init(struct gd_delta_base *b);
void gd_delta_base_release(struct gd_delta_base *b);
/* Forgets the line before: the next line must be whole. */
void gd_delta_base_forget(struct gd_delta_base *b);
/* s becomes the line before. */
void gd_delta_base_set(struct gd_delta_base *b, const struct gd_snapshot *s);
/* The record of slot with key in the line before; NULL when there is none,
 * or (unique) when more than one has the key. */
const void *gd_delta_base_find(const struct gd_delta_base *b, int slot, uint64_t key, bool unique);

/* Puts back each reference of r in s from b (s's placeholders become the
 * records); 0, or -EINVAL with err naming the first that b does not have
 * (where: the file and line that begin the message, or NULL). */
int gd_delta_resolve(const struct gd_delta_base *b, const struct gd_delta_refs *r, struct gd_snapshot *s,
		     const char *where, struct gd_err *err);

/* The next line read: its references put back (when it made any), then s
 * becomes the line before; when they cannot be, b is forgotten (the lines
 * after it are not put back from a line before it) and err says why. */
int gd_delta_apply(struct gd_delta_base *b, const struct gd_delta_refs *r, struct gd_snapshot *s, const char *where,
		   struct gd_err *err);

/* Would the two records of d be written as the same JSON? */
bool gd_delta_same_written(const struct gd_record_desc *d, const void *a, const void *b);

#endif
