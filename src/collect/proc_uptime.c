/* PLACEHOLDER: to be implemented. */
#include "collect/collectors.h"

#include <errno.h>

enum gd_src_status gd_collect_host(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	(void)ctx;
	(void)s;
	gd_err_set(err, -ENOSYS, "not implemented");
	return GD_SRC_ABSENT;
}

int gd_parse_proc_uptime(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	(void)buf;
	(void)len;
	(void)s;
	return gd_err_set(err, -ENOSYS, "not implemented");
}

