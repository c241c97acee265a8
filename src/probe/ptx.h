/*
 * ptx.h - the probes' PTX modules and what a driver must be to load them.
 *
 * The texts are generated at build time (src/probe/kernels/: base.cl by
 * clang, tensor.ll by llc) into build/gen/ptx_kernels.c.  Before a module is
 * handed to the driver's JIT its header is read here: the PTX ISA version
 * says which CUDA (and so which driver) is the oldest that accepts it, the
 * target the oldest GPU (PROBES.md §2.1, PTX ISA "Release History").
 * Deciding that before the call turns "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"
 * into "the driver (CUDA 10.0) is older than this module (PTX 6.4 needs
 * CUDA 10.1, r418)", and keeps a too-new target off a GPU it would fail on.
 */
#ifndef GD_PROBE_PTX_H
#define GD_PROBE_PTX_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

extern const char gd_ptx_base[];    /* NUL-terminated PTX text */
extern const char gd_ptx_tensor[];

struct gd_ptx_header {
	int isa_major, isa_minor;       /* .version 6.4 */
	int sm;                         /* .target sm_52 -> 52 */
	bool arch_specific;             /* sm_90a and the like: runs on that GPU only */
	int address_size;               /* .address_size 64 (32 when absent) */
};

/* Reads the directives before the first entry: .version first (after
 * comments and blank lines), then .target, then optionally .address_size.
 * 0, or negative with err saying what is wrong and on which line. */
int gd_ptx_header_parse(const char *text, size_t len, struct gd_ptx_header *h, struct gd_err *err);

/* The oldest CUDA version (1000*major + 10*minor) whose JIT accepts PTX ISA
 * major.minor, or 0 when this table does not know the ISA (newer than it). */
int gd_ptx_min_cuda(int isa_major, int isa_minor);

/* Whether a module with header h can load on a GPU of compute capability
 * cc (major*10+minor) under a driver of CUDA version driver; when not, why
 * (one sentence) into why. */
bool gd_ptx_loadable(const struct gd_ptx_header *h, int driver, int cc, char *why, size_t size);

/* Makes a JIT log fit for one line of a report: it reads at most cap bytes
 * of log (the driver may leave it unterminated, or report a length beyond
 * what it wrote), replaces control and non-ASCII bytes by spaces, folds
 * runs of white space, trims it, and writes at most size-1 bytes and a NUL
 * to out.  Returns the length written. */
size_t gd_ptx_log_clean(const char *log, size_t cap, size_t reported, char *out, size_t size);

#endif
