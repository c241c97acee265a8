/*
 * sys_thermal.c - host temperatures: /sys/class/thermal/thermal_zone<N>/
 * (ACPI and platform thermal zones, Linux 2.6.24) and
 * /sys/class/hwmon/hwmon<N>/ (hardware monitoring chips, 2.6.14).
 *
 * Every value is one integer in millidegrees Celsius:
 *
 *     thermal_zone0/type               x86_pkg_temp
 *     thermal_zone0/temp               45000
 *     thermal_zone0/trip_point_1_type  critical
 *     thermal_zone0/trip_point_1_temp  105000
 *     hwmon1/name                      coretemp
 *     hwmon1/temp1_label               Package id 0
 *     hwmon1/temp1_input               47000
 *     hwmon1/temp1_max                 84000
 *     hwmon1/temp1_crit                100000
 *
 * A zone gives source "thermal", chip and label = its type, temp_c and
 * crit_c from its trip point of type "critical".  A hwmon chip gives one
 * sensor per temp<i>_input: source "hwmon", chip = name (device/name on
 * kernels before 3.x kept it there), label = temp<i>_label or "temp<i>",
 * max_c and crit_c.  hwmon<N> numbers change across boots; chip and label
 * identify a sensor.  A value that cannot be read (some zones answer EIO or
 * ENODATA while their device sleeps) or parsed is left absent and the
 * collector says partial.  Virtual machines usually have neither class: that
 * is absent, not an error.  See FACTS.md §4.19.
 */
#include "collect/collectors.h"
#include "core/tok.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect/dirlist.h"
#include "core/i18n.h"

#define MAX_TRIPS 64

struct scan {
	const struct gd_root *root;
	struct gd_snapshot *s;
	size_t nbad;
	char bad[GD_ERR_MSG_MAX];   /* the first problem */
};

static void note_bad(struct scan *sc, const char *path, int rc)
{
	if (!sc->nbad++)
		snprintf(sc->bad, sizeof sc->bad, "/%s: %s", path,
			 rc == -EINVAL || rc == -ERANGE ? _("malformed value") : strerror(-rc));
}

/* Reads a millidegree file into *out.  Missing is silent (absent); any
 * other failure (EIO, ENODATA, a malformed value) is noted. */
static void read_mdeg(struct scan *sc, const char *path, struct gd_f64 *out)
{
	long long v;
	int rc = gd_root_read_i64(sc->root, path, &v);

	if (rc == 0)
		gd_f64_set(out, (double)v / 1000.0);
	else if (rc != -ENOENT)
		note_bad(sc, path, rc);
}

static void scan_zone(struct scan *sc, const char *zone)
{
	char path[320], type[64];
	struct gd_sensor *t;

	snprintf(path, sizeof path, "sys/class/thermal/%s/type", zone);
	if (gd_root_read_line(sc->root, path, type, sizeof type) < 0)
		gd_strlcpy(type, zone, sizeof type);
	t = GD_PUSH(sc->s, sensors, struct gd_sensor);
	GD_STRSET(t->source, "thermal");
	GD_STRSET(t->chip, type);
	GD_STRSET(t->label, type);
	snprintf(path, sizeof path, "sys/class/thermal/%s/temp", zone);
	read_mdeg(sc, path, &t->temp_c);
	for (int k = 0; k < MAX_TRIPS; k++) {
		char ttype[32];

		snprintf(path, sizeof path, "sys/class/thermal/%s/trip_point_%d_type", zone, k);
		if (gd_root_read_line(sc->root, path, ttype, sizeof ttype) < 0)
			break;
		if (strcmp(ttype, "critical") != 0)
			continue;
		snprintf(path, sizeof path, "sys/class/thermal/%s/trip_point_%d_temp", zone, k);
		read_mdeg(sc, path, &t->crit_c);
		break;
	}
}

/* The index i of a "temp<i>_input" name, or -1. */
static long temp_index(const char *name)
{
	const char *p = name + 4;
	long i = 0;

	if (strncmp(name, "temp", 4) != 0 || *p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9' && i < 100000; p++)
		i = i * 10 + (*p - '0');
	return strcmp(p, "_input") == 0 ? i : -1;
}

static void scan_hwmon(struct scan *sc, const char *chip)
{
	struct gd_dirlist files;
	char path[320], name[64];

	snprintf(path, sizeof path, "sys/class/hwmon/%s/name", chip);
	if (gd_root_read_line(sc->root, path, name, sizeof name) < 0) {
		snprintf(path, sizeof path, "sys/class/hwmon/%s/device/name", chip);
		if (gd_root_read_line(sc->root, path, name, sizeof name) < 0)
			gd_strlcpy(name, chip, sizeof name);
	}
	snprintf(path, sizeof path, "sys/class/hwmon/%s", chip);
	if (gd_dirlist_read(sc->root, path, &files) < 0)
		return;
	for (size_t i = 0; i < files.n; i++) {
		long idx = temp_index(files.names[i]);
		struct gd_sensor *t;
		char label[64];

		if (idx < 0)
			continue;
		t = GD_PUSH(sc->s, sensors, struct gd_sensor);
		GD_STRSET(t->source, "hwmon");
		GD_STRSET(t->chip, name);
		snprintf(path, sizeof path, "sys/class/hwmon/%s/temp%ld_label", chip, idx);
		if (gd_root_read_line(sc->root, path, label, sizeof label) == 0 && label[0])
			GD_STRSET(t->label, label);
		else
			snprintf(t->label, sizeof t->label, "temp%ld", idx);
		snprintf(path, sizeof path, "sys/class/hwmon/%s/temp%ld_input", chip, idx);
		read_mdeg(sc, path, &t->temp_c);
		snprintf(path, sizeof path, "sys/class/hwmon/%s/temp%ld_max", chip, idx);
		read_mdeg(sc, path, &t->max_c);
		snprintf(path, sizeof path, "sys/class/hwmon/%s/temp%ld_crit", chip, idx);
		read_mdeg(sc, path, &t->crit_c);
	}
	gd_dirlist_release(&files);
}

enum gd_src_status gd_collect_thermal(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct scan sc = { ctx->root, s, 0, "" };
	struct gd_dirlist zones, chips;
	size_t first = s->sensors.n;
	int zrc = gd_dirlist_read(ctx->root, "sys/class/thermal", &zones);
	int hrc = gd_dirlist_read(ctx->root, "sys/class/hwmon", &chips);

	for (size_t i = 0; i < zones.n; i++)
		if (strncmp(zones.names[i], "thermal_zone", 12) == 0)
			scan_zone(&sc, zones.names[i]);
	for (size_t i = 0; i < chips.n; i++)
		scan_hwmon(&sc, chips.names[i]);
	gd_dirlist_release(&zones);
	gd_dirlist_release(&chips);
	if (s->sensors.n == first) {
		if ((zrc < 0 && zrc != -ENOENT) || (hrc < 0 && hrc != -ENOENT)) {
			int rc = zrc < 0 && zrc != -ENOENT ? zrc : hrc;

			gd_err_set(err, rc, "/sys/class/%s: %s", rc == zrc ? "thermal" : "hwmon", strerror(-rc));
			return gd_src_status_of_errno(rc);
		}
		gd_err_set(err, -ENOENT, _("no thermal zones or hwmon sensors (virtual machine?)"));
		return GD_SRC_ABSENT;
	}
	if (sc.nbad) {
		gd_err_set(err, -EINVAL, _("%s (%zu value(s) unreadable)"), sc.bad, sc.nbad);
		return GD_SRC_PARTIAL;
	}
	return GD_SRC_OK;
}
