/*
 * cli_probe_host.h - the host half of `gpudoctor probe` as the command runs
 * it (src/probe/host.h measures, src/rules/rule_probe_host.c judges):
 * storage under --data DIR and STREAM after the GPU work (so neither
 * disturbs the other's figures), the power draw sampled during the burn.
 */
#ifndef GD_CLI_CLI_PROBE_HOST_H
#define GD_CLI_CLI_PROBE_HOST_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "probe/host.h"

/* --only/--skip bits of the host probes, beside the GPU probes' bits. */
#define GD_PROBE_WANT_STORAGE (1u << 20)
#define GD_PROBE_WANT_HOST_MEM (1u << 21)
#define GD_PROBE_WANT_POWER (1u << 22)
#define GD_PROBE_WANT_HOST (GD_PROBE_WANT_STORAGE | GD_PROBE_WANT_HOST_MEM | GD_PROBE_WANT_POWER)

struct gd_cli_host {
	struct gd_probe_host_opts opts;
	const char *data;                      /* --data DIR, or NULL */
	unsigned want;                         /* GD_PROBE_WANT_* */
	struct gd_probe_storage_result *storage;  /* NULL until run */
	struct gd_probe_mem_result *mem;
	struct gd_probe_power_result *power;
	struct gd_probe_rapl_sample rapl0;     /* at the start of the burn */
	bool rapl0_taken;
};

void gd_cli_host_init(struct gd_cli_host *h, const char *root, const char *data, unsigned want);
void gd_cli_host_release(struct gd_cli_host *h);
/* The burn started: RAPL's first sample. */
void gd_cli_host_burn_start(struct gd_cli_host *h);
/* The burn is ending (or ended): the draw, with the GPUs' watts summed
 * (NAN: unknown).  Once. */
void gd_cli_host_burn_end(struct gd_cli_host *h, double gpu_w, unsigned ngpus);
/* Storage and STREAM, after the GPU work.  progress: a terminal to tell. */
void gd_cli_host_run(struct gd_cli_host *h, FILE *progress);
bool gd_cli_host_ran(const struct gd_cli_host *h);
/* The four host rules' findings and unknowns, appended to out. */
void gd_cli_host_judge(const struct gd_cli_host *h, const struct gd_thresholds *th, struct gd_findings *out);
/* "host probes:" lines of the text report. */
void gd_cli_host_print(const struct gd_cli_host *h, const struct gd_thresholds *th, FILE *out);
/* s, then spaces to cols display columns (printf's "%-Ns" for text that
 * may be Chinese: a CJK character takes two columns; ASCII as printf). */
void gd_cli_pad(FILE *out, const char *s, size_t cols);
/* A probe row's or host line's status ("ok", "low", "hung", "not_run"...)
 * as the text report shows it, in the language in use; JSON keeps the word. */
const char *gd_cli_probe_status(const char *status);
/* {"results": gd_probe_host_json, "lines": [...]} (a new reference). */
json_t *gd_cli_host_json(const struct gd_cli_host *h, const struct gd_thresholds *th);

#endif
