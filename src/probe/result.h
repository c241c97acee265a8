/*
 * result.h - the child's results (struct gd_probe_shm) as probe[] rows, and
 * the findings of a probe run tagged with the probe that provoked them.
 */
#ifndef GD_PROBE_RESULT_H
#define GD_PROBE_RESULT_H

#include "model/snapshot.h"
#include "probe/probe.h"
#include "rules/rule.h"

/* Appends one row per GPU and probe asked for (and per peer pair that ran)
 * to s->probe; nvml_index[i] is the NVML index of shm->gpu[i].  Returns the
 * rows added.  The caller adds what NVML saw (link, temperature, clocks) and
 * the SKU figures. */
size_t gd_probe_rows(const struct gd_probe_shm *shm, const int *nvml_index, double finished_s,
		     struct gd_snapshot *s);

/* The enum gd_pk of a probe name ("h2d"), or GD_PK_NONE. */
int gd_pk_by_name(const char *name);

/* ---- the probe phase of each sample, and of each finding ------------------
 *
 * Every rule runs over the series sampled while the probe loads the GPUs; a
 * finding of the rules that judge what load brings out (heat, power,
 * clocks, the PCIe and NVLink links, ECC, Xid: load_rules[] in result.c)
 * says which probe was running when its evidence was taken: evidence
 * "during_probe" = the phase's label (never translated: probe names and
 * GPU indices).  The rules stay as they are, pure: the engine runs again
 * over each phase's own samples (as the episodes' causes are found,
 * rules/episodes.h), and a finding that such a window gives too gets the
 * first such phase; one that only a phase's window gives (a GPU that is hot
 * under the burn and cool again by the end) is added with its phase.  A
 * finding that the samples before the probe already give was not provoked
 * by it and gets no tag.  The job rules are left as the whole series
 * judges them: the probe's own load would fool them in a phase's window.
 * Outside gpudoctor probe nothing changes.
 */

#define GD_PROBE_PHASE_MAX 96     /* fits an evidence text */

/* What the child is doing now, as during_probe says it: the probe that runs
 * on every GPU ("compute_fp32"), on some ("h2d gpu3"), several at once
 * ("compute_bf16 gpu0-6, mem_bandwidth gpu7"), the peer copies ("p2p"), the
 * set-up before the first probe ("setup"); "" when nothing runs (before the
 * start, between two probes, after the end).  nvml_index as for
 * gd_probe_rows. */
void gd_probe_phase_label(const struct gd_probe_shm *shm, const int *nvml_index, char *buf, size_t size);

/* Tags f, the findings of the engine over w (the probe's series), with the
 * phase that provoked each, and adds those only a phase's samples give;
 * phase[i] is the label of w->snaps[i].  Findings stay most severe first. */
void gd_probe_tag_phases(const struct gd_window *w, const char *const *phase, const struct gd_thresholds *th,
			 struct gd_findings *f);

#endif
