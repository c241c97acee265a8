/*
 * ofl.h - what the offline parsers (src/offline/) share: reading a value of
 * nvidia-smi's output ("34 C", "81920 MiB", "N/A", "[Not Supported]",
 * "ERR!"), PCI addresses in nvidia-smi's spelling, finding a GPU record,
 * and noting a value nvidia-smi could not read as an nvml_errors row.
 * Internal to src/offline/.
 */
#ifndef GD_OFFLINE_OFL_H
#define GD_OFFLINE_OFL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/tok.h"
#include "model/snapshot.h"

/* How one value fared. */
enum ofl_v {
	OFL_SET,     /* parsed and stored */
	OFL_ABSENT,  /* N/A, [Not Supported], empty: nothing to store, no error */
	OFL_ERRVAL,  /* nvidia-smi could not read it (ERR!, [Unknown Error], ...) */
	OFL_BAD,     /* not a value of this kind: a malformed line */
};

/* N/A, [N/A], Not Supported, [Not Supported], Not Available, "" (and
 * "None"): the value does not exist on this GPU or driver. */
bool ofl_placeholder(struct gd_slice v);
/* ERR!, [Unknown Error], [GPU requires reset], [Insufficient Permissions],
 * [GPU is lost]: nvidia-smi tried and failed. */
bool ofl_errval(struct gd_slice v);

/* A number with an optional unit: "81920 MiB", "81920MiB", "61.52 W",
 * "98 %", "16x", "1234 KB/s".  unit is the one accepted unit (matched
 * without case; NULL: none allowed); the number is multiplied by scale. */
enum ofl_v ofl_u64(struct gd_slice v, const char *unit, uint64_t scale, struct gd_u64 *out);
enum ofl_v ofl_f64(struct gd_slice v, const char *unit, double scale, struct gd_f64 *out);
/* Enabled/Disabled, On/Off, Yes/No, Active/Not Active -> 1/0. */
enum ofl_v ofl_bool(struct gd_slice v, struct gd_u64 *out);
/* A string label (name, uuid, serial). */
enum ofl_v ofl_str(struct gd_slice v, char *dst, size_t dstsz);

/* "00000000:3B:00.0", "0000:3b:00.0" or "3b:00.0" -> "0000:3b:00.0" (the
 * sysfs spelling gpudoctor keys GPUs by); false when it is not one. */
bool ofl_bus_id(struct gd_slice v, char *dst, size_t dstsz);
/* The first PCI address in text (as ofl_bus_id), false if none. */
bool ofl_find_bus_id(struct gd_slice text, char *dst, size_t dstsz);

/* The GPU with that UUID or bus id, else NULL. */
struct gd_gpu *ofl_gpu_find(struct gd_snapshot *s, const char *uuid, const char *bus);

/* Records in s->nvml_errors that nvidia-smi could not read field of gpu
 * (index; UINT64_MAX: not GPU-specific): "<what> line N: <key>: <value>". */
void ofl_note_errval(struct gd_snapshot *s, uint64_t gpu, const char *field, const char *what, size_t lineno,
		     struct gd_slice key, struct gd_slice v);

/* nvidia-smi's "Unable to determine the device handle for GPU <bus>: <why>"
 * (or "... GPU is lost") about g: lost for "GPU is lost" and "Unknown
 * Error"; for every other why, an nvml_errors row naming the line (what:
 * the output, e.g. "nvidia-smi -q"). */
void ofl_device_handle(struct gd_snapshot *s, struct gd_gpu *g, struct gd_slice line, const char *what, size_t lineno);

/* A process the output lists on GPU gpu (its index), as NVML's compute or
 * graphics list would: a gpu_procs[] row, counted in that GPU's
 * nvml_procs (the list was read).  ofl_procs_listed marks a GPU's list read
 * before its rows, or when it is empty ("Processes : None"). */
struct gd_gpu_proc *ofl_gpu_proc(struct gd_snapshot *s, uint64_t gpu, uint64_t pid, bool graphics);
void ofl_procs_listed(struct gd_gpu *g);

/* Marks the snapshot's NVML view as coming from nvidia-smi output that
 * worked (status ok), unless a parser already said otherwise. */
void ofl_nvml_ok(struct gd_snapshot *s, const char *what);

/* "12.4" -> 12040, NVML's 1000 * major + 10 * minor. */
uint64_t ofl_cuda_version(double v);

/* Strips a trailing '\r' (files saved on Windows). */
struct gd_slice ofl_chomp(struct gd_slice s);
/* "Yes  <===", "0   # after the crash", "71  (!!)": the value without a
 * note a human put after it (blanks, then a mark no value of nvidia-smi has
 * after a blank: < # ! * ( an arrow, or -- == //). */
struct gd_slice ofl_note_cut(struct gd_slice v);
/* Case-insensitive search of lit in s. */
bool ofl_contains(struct gd_slice s, const char *lit);
/* Case-insensitive equality and prefix. */
bool ofl_ieq(struct gd_slice s, const char *lit);

/* A "1/0" word for a bool slice used in messages. */
#define OFL_SL(s) (int)(s).n, (s).p

#endif
