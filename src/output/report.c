/*
 * report.c - what the text and JSON outputs share: the exit code, value
 * formatting, and the account of what was checked and what was not.
 */
#include "output/output.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output/report_util.h"

int gd_report_exit_code(const struct gd_findings *f)
{
	int worst = gd_findings_worst(f);

	if (worst >= GD_SEV_CRITICAL)
		return 2;
	return worst >= GD_SEV_WARNING ? 1 : 0;
}

const char *gd_fmt_value(char *buf, size_t size, double v, const char *unit)
{
	static const char *const iec[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };

	if (!unit)
		unit = "";
	if (strcmp(unit, "bytes") == 0) {
		size_t i = 0;

		while (fabs(v) >= 1024 && i + 1 < sizeof iec / sizeof iec[0]) {
			v /= 1024;
			i++;
		}
		snprintf(buf, size, i ? "%.1f %s" : "%.0f %s", v, iec[i]);
	} else if (strcmp(unit, "%") == 0) {
		snprintf(buf, size, fabs(v) < 1 && v != 0 ? "%.2f%%" : "%.1f%%", v);
	} else if (strcmp(unit, "celsius") == 0) {
		snprintf(buf, size, "%.1f °C", v);
	} else {
		int prec = v == floor(v) && fabs(v) < 1e15 ? 0 : fabs(v) < 10 ? 2 : 1;

		snprintf(buf, size, "%.*f%s%s", prec, v, unit[0] ? " " : "", unit);
	}
	return buf;
}

void gd_report_counts(const struct gd_snapshot *s, struct gd_report_counts *c)
{
	memset(c, 0, sizeof *c);
	c->cpus = s->cpu.cpus_online.ok ? s->cpu.cpus_online.v : s->cpus.n;
	GD_VEC_EACH(s->disks, const struct gd_disk, d)
		if (d->whole.ok && d->whole.v)
			c->disks++;
	GD_VEC_EACH(s->netifs, const struct gd_netif, n)
		if (strcmp(n->name, "lo") != 0)
			c->netifs++;
	c->ib_ports = s->ib_ports.n;
	c->procs = s->procs.n;
	GD_VEC_EACH(s->procs, const struct gd_proc, p)
		if (p->nvidia_fds.ok && p->nvidia_fds.v > 0)
			c->gpu_jobs++;
	c->cgroups = s->cgroups.n;
}
