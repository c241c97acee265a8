/*
 * subject.h - what a finding's subject names, for outputs that group or
 * colour by GPU (the text report's "gpu0-7" groups, the HTML report's GPUs
 * that stand out, watch's rows).
 */
#ifndef GD_OUTPUT_SUBJECT_H
#define GD_OUTPUT_SUBJECT_H

/* The NVML index of a subject that names one GPU, "gpu3" or
 * "gpu3 (0000:ab:00.0)", else -1 (also for an index of 64 or more). */
int gd_subject_gpu(const char *subject);

#endif
