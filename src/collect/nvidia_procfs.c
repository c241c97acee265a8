/*
 * nvidia_procfs.c - the NVIDIA kernel module, from /proc/driver/nvidia/version
 * (nvidia.ko; the file exists exactly while the module is loaded).
 *
 *   proprietary:  NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023
 *   open:         NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.158.01  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Jun 10 22:45:34 UTC 2025
 *   line 2:       GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)
 *
 * The version is the first token after "Module" (skipping "for <arch>")
 * that starts with a digit and holds a dot (FACTS.md §4.13).  The file's
 * absence is itself the evidence driver.not_loaded needs, so it is recorded
 * as driver.loaded = 0 (and the source as absent), distinct from a file
 * that could not be read (loaded absent).
 */
#include "collect/collectors.h"
#include "collect/gpu_host.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"

#define VERSION_FILE "proc/driver/nvidia/version"

int gd_nvidia_version_parse(const char *buf, size_t len, char *version, size_t versz, char *flavor, size_t flsz,
			    struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line, f[32];
	size_t n, i;
	bool open_module = false;

	version[0] = flavor[0] = '\0';
	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, _("holds binary data (a NUL byte)"));
	gd_lines_init(&it, buf, len);
	if (!gd_tok_line(&it, &line) || !gd_tok_prefix(line, "NVRM version:"))
		return gd_err_set(err, -EINVAL, _("line 1 does not start with \"NVRM version:\""));
	n = gd_tok_split(line, f, 32);
	for (i = 0; i < n && !gd_tok_eq(f[i], "Module"); i++)
		if (gd_tok_eq(f[i], "Open"))
			open_module = true;
	if (i == n)
		return gd_err_set(err, -EINVAL, _("line 1: no \"Kernel Module\""));
	for (i++; i < n; i++) {
		if (gd_tok_eq(f[i], "for")) {
			i++;   /* "for x86_64" */
			continue;
		}
		if (f[i].n > 0 && f[i].p[0] >= '0' && f[i].p[0] <= '9' && memchr(f[i].p, '.', f[i].n))
			break;
	}
	if (i >= n)
		return gd_err_set(err, -EINVAL, _("line 1: no version number after \"Kernel Module\""));
	for (size_t k = 0; k < f[i].n; k++)
		if (!((f[i].p[k] >= '0' && f[i].p[k] <= '9') || f[i].p[k] == '.'))
			return gd_err_set(err, -EINVAL, _("line 1: version \"%.*s\" is not dotted numbers"),
					  (int)(f[i].n > 32 ? 32 : f[i].n), f[i].p);
	gd_tok_copy(version, versz, f[i]);
	gd_strlcpy(flavor, open_module ? "open" : "proprietary", flsz);
	return 0;
}

int gd_parse_proc_driver_nvidia_version(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	int rc = gd_nvidia_version_parse(buf, len, s->driver.version, sizeof s->driver.version, s->driver.flavor,
					 sizeof s->driver.flavor, err);

	/* The file exists, so the module is loaded, whatever its text. */
	gd_u64_set(&s->driver.loaded, 1);
	return rc;
}

enum gd_src_status gd_collect_nvidia_driver(const struct gd_collect_ctx *ctx, struct gd_snapshot *s,
					    struct gd_err *err)
{
	char *buf = NULL;
	size_t len;
	int rc = gd_root_read(ctx->root, VERSION_FILE, &buf, &len, 1u << 16);

	if (rc == -ENOENT) {
		gd_u64_set(&s->driver.loaded, 0);
		gd_err_set(err, rc, _("/%s: no such file (the nvidia kernel module is not loaded)"), VERSION_FILE);
		return GD_SRC_ABSENT;
	}
	if (rc < 0) {
		gd_err_set(err, rc, "/" VERSION_FILE ": %s", strerror(-rc));
		return gd_src_status_of_errno(rc);
	}
	rc = gd_parse_proc_driver_nvidia_version(buf, len, s, err);
	free(buf);
	if (rc < 0) {
		char msg[GD_ERR_MSG_MAX];

		gd_strlcpy(msg, err->msg, sizeof msg);
		gd_err_set(err, rc, "/" VERSION_FILE ": %s", msg);
		return GD_SRC_PARTIAL;   /* loaded = 1 stands; the version does not */
	}
	return GD_SRC_OK;
}
