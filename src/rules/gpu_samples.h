/*
 * gpu_samples.h - a GPU's sub-second utilisation samples over a window
 * (gpu_samples[], the driver's buffer: nvmlDeviceGetSamples): each
 * timestamp once, however many snapshots carried it.  Pure: no I/O.
 */
#ifndef GD_RULES_GPU_SAMPLES_H
#define GD_RULES_GPU_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules/window.h"

struct gd_gpu_samples_sum {
	size_t n;              /* samples inside the window */
	double mean, min;      /* utilisation, % */
	double period_ms;      /* median gap between samples */
	double stall_ms;       /* longest run of samples below the threshold, x period_ms */
};

/* Summarises the samples of GPU gpu (NVML index) whose timestamps fall
 * after the window's first snapshot and up to its last (host.wall_time_s),
 * a stall being samples below below_pct.  False when fewer than two
 * samples fall inside. */
bool gd_gpu_samples_window(const struct gd_window *w, uint64_t gpu, double below_pct, struct gd_gpu_samples_sum *out);

#endif
