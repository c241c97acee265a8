/*
 * probe_results.h - `serve --probe-results FILE`: the last gpudoctor probe's
 * results (its -o file) put into every snapshot the exporter takes, so that
 * /metrics carries gpudoctor_probe_*{gpu,probe,...} with the time the probe
 * ended (gpudoctor_probe_finished_seconds) and the probe.* rules' findings.
 * The file is read again only when its size or modification time changed.
 */
#ifndef GD_SERVE_PROBE_RESULTS_H
#define GD_SERVE_PROBE_RESULTS_H

#include <stdbool.h>

#include "model/snapshot.h"

struct gd_probe_results {
	const char *path;
	long long mtime_ns, size;   /* of the file as last read; -1: never */
	struct gd_snapshot last;    /* its last snapshot with probe[] rows */
	bool have;
	char why[300];              /* why there are none ("" when there are) */
};

void gd_probe_results_init(struct gd_probe_results *pr, const char *path);
void gd_probe_results_release(struct gd_probe_results *pr);
/* Re-reads the file if it changed, then appends its probe[] rows and a
 * source "probe_results" (ok, absent or failed, with why) to s. */
void gd_probe_results_apply(struct gd_probe_results *pr, struct gd_snapshot *s);

#endif
