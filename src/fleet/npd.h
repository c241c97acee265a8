/*
 * npd.h - `gpudoctor check --npd CONDITION`: a custom plugin of Kubernetes'
 * node-problem-detector (NPD).  NPD runs the plugin every invoke_interval,
 * reads its exit status (0 OK, 1 problem, 2 or anything else unknown) and
 * at most max_output_length (80) bytes of its trimmed stdout as the
 * condition's message (pkg/custompluginmonitor/plugin/plugin.go).
 *
 * The plugin reads the verdict of the node's running `gpudoctor serve`
 * (GET /findings, the JSON of check --json) instead of diagnosing afresh,
 * so it answers in milliseconds, far inside NPD's 5 s default timeout.
 *
 * Conditions, named for what an operator acts on (deploy/kubernetes/npd/):
 *   gpu-unhealthy   a critical finding about a GPU or its memory: drain
 *   gpu-degraded    a warning about a GPU or its memory: the job is slower
 *   node-unhealthy  a critical finding about the host, network, storage or
 *                   the driver
 * The message leads with the rule id and the subject, worst finding first:
 *   "gpu.lost gpu3: GPU 0000:5d:00.0 fell off the bus at 03:12 (Xid 79)..."
 * cut to 80 bytes on a UTF-8 character boundary.
 */
#ifndef GD_FLEET_NPD_H
#define GD_FLEET_NPD_H

#include <jansson.h>
#include <stddef.h>

#define GD_NPD_MAX 80

enum gd_npd_condition { GD_NPD_GPU_UNHEALTHY, GD_NPD_GPU_DEGRADED, GD_NPD_NODE_UNHEALTHY };

/* The condition named s ("gpu-unhealthy" ...), or -1. */
int gd_npd_condition(const char *s);
/* Copies at most max bytes of in to out (out has max + 1), newlines and
 * tabs made spaces, never ending inside a UTF-8 sequence; returns its length. */
size_t gd_npd_cut(const char *in, char *out, size_t max);
/* From a /findings document: 0 (no finding for the condition), 1 (one,
 * the worst, in line), 2 (the document is not one: line says why). */
int gd_npd_judge(const json_t *doc, enum gd_npd_condition c, char line[GD_NPD_MAX + 1]);

#endif
