/*
 * html_report.h - the parts of the HTML report (out_html.c) shared by its
 * files: what is known of each GPU over the recording (gathered once, in one
 * pass over the snapshots, into min/max envelopes), which GPUs stand out and
 * why, and the drawing of charts (html_chart.c).  Internal to src/output.
 *
 * The page, top to bottom: the verdict line as `check` prints it and the
 * main findings; a heat strip per GPU over the whole recording (how busy at
 * full clock, episodes marked beneath), each row linking to the GPU's
 * details; one chart per metric with every GPU in it (healthy GPUs grey and
 * thin, the GPUs that stand out in colour and labelled), with a legend that
 * hides and shows GPUs (checkboxes and CSS, no script); the host's charts on
 * the same time axis with the episodes its findings explain shaded; detail
 * charts of the GPUs that stand out; the GPU table; episodes; findings.
 *
 * The SVG the tests read: <svg class="chart" data-chart="util"> holds one
 * <g class="gpu" data-gpu="N"> per GPU with <path class="series"
 * data-series="gpuN.util_gpu_pct" data-n="SAMPLES" data-pts="POINTS"> and
 * that GPU's part of each episode that hit it (its own stalled samples) as
 * <rect class="episode" data-gpu="N" data-cause="...">; axis ticks are <text class="ylab" data-v="500"> and
 * <text class="xlab" data-t="UPTIME">.  Detail charts are data-chart="gpuN",
 * host charts data-chart="host".
 */
#ifndef GD_OUTPUT_HTML_REPORT_H
#define GD_OUTPUT_HTML_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "output/html_axis.h"
#include "output/html_env.h"
#include "output/timeline.h"

/* Per GPU series, in gd_env order. */
enum html_gs { GS_UTIL, GS_SMPCT, GS_SMMHZ, GS_TEMP, GS_POWER, GS_MEM, GS_PCIE, GS_WORK, GS_LOST, GS_STALL, GS_N };
/* Host series, after every GPU's. */
enum html_hs { HS_CPU, HS_IOWAIT, HS_PSI_CPU, HS_PSI_IO, HS_PSI_MEM, HS_DISK_R, HS_DISK_W, HS_NET_RX, HS_NET_TX,
	       HS_MEM, HS_N };

/* SVG geometry: every chart shares the x mapping, so times line up. */
#define HW 1200.0   /* width */
#define HML 120.0   /* margin left (labels) */
#define HMR 56.0    /* margin right (end labels) */
#define HBINS 1024  /* bins per series: about one per unit of plot width */

struct html_gpu {
	unsigned idx;
	char name[64];
	char pci[32];
	double smmax, slow, limit, mem_total_gib;   /* last known, NAN when never */
	bool hl;                 /* stands out: in colour, labelled, details drawn */
	const char *color;
	char why[256];           /* what makes it stand out */
	int worst;               /* worst severity of its findings, 0 none */
	size_t nfindings, neps;
	double stalled_s;
	bool lost, seen_yet;
	double lost_at;          /* uptime of the first sample it was lost or missing in */
};

struct html_ctx {
	FILE *out;
	const struct gd_timeline *t;
	struct gd_env env;
	struct gd_time_axis ta;
	size_t ngpu;
	struct html_gpu gpu[64];
	uint64_t seen;           /* NVML indices present */
	size_t nhl;
	double dt;               /* typical sample interval */
	bool live;               /* serve's page: the last minutes, not a recording */
};

/* Fills everything but out from the timeline; false when out of memory. */
bool gd_html_gather(struct html_ctx *c, const struct gd_timeline *t);
void gd_html_ctx_release(struct html_ctx *c);

static inline size_t html_gs(const struct html_ctx *c, size_t k, enum html_gs m)
{
	(void)c;
	return k * GS_N + m;
}

static inline size_t html_hs(const struct html_ctx *c, enum html_hs m)
{
	return c->ngpu * GS_N + m;
}

/* What an episode's GPUs did ("idle", "slowed", "idle+slowed"), in the
 * language in effect (out_html.c). */
const char *gd_html_kind(unsigned kinds);

/* The charts (html_chart.c). */
void gd_html_strip(struct html_ctx *c);
void gd_html_metric_charts(struct html_ctx *c);
void gd_html_host_charts(struct html_ctx *c);
void gd_html_gpu_details(struct html_ctx *c, size_t k);

#endif
