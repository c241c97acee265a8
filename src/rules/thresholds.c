#include "rules/thresholds.h"

#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"

/* the help texts are N_() marks (core/i18n.h): translated where printed */
const struct gd_th_desc gd_th_table[GD_TH_COUNT] = {
#define GD_TH(e, r, k, d, u, h) [GD_TH_##e] = { r, k, u, h, d },
#include "rules/thresholds.def"
#undef GD_TH
};

void gd_thresholds_init(struct gd_thresholds *t)
{
	for (size_t i = 0; i < GD_TH_COUNT; i++)
		t->v[i] = gd_th_table[i].def;
}

static int set_one(struct gd_thresholds *t, const char *rule, const char *key, const char *value,
		   const char *where, struct gd_err *err)
{
	bool rule_known = false;
	char *end;
	double v;

	for (size_t i = 0; i < GD_TH_COUNT; i++) {
		if (strcmp(gd_th_table[i].rule, rule) != 0)
			continue;
		rule_known = true;
		if (strcmp(gd_th_table[i].key, key) != 0)
			continue;
		errno = 0;
		v = strtod(value, &end);
		while (*end == ' ' || *end == '\t')
			end++;
		if (errno || end == value || *end || !isfinite(v) || v < 0)
			/* TRANSLATORS: %1$s is where (--set, or FILE: [section]),
			 * %2$s.%3$s the rule and key, %4$s the value */
			return gd_err_set(err, -EINVAL, _("%s%s.%s: \"%s\" is not a non-negative number"), where,
					  rule, key, value);
		t->v[i] = v;
		return 0;
	}
	if (!rule_known)
		/* TRANSLATORS: %1$s is where (--set, or FILE: [section]) */
		return gd_err_set(err, -EINVAL,
				  _("%sunknown rule \"%s\" (gpudoctor rules lists the rules and their keys)"), where,
				  rule);
	/* TRANSLATORS: %1$s is where (--set, or FILE: [section]), %2$s the key, %3$s the rule */
	return gd_err_set(err, -EINVAL, _("%sunknown key \"%s\" for rule %s (gpudoctor rules lists them)"),
			  where, key, rule);
}

int gd_thresholds_set(struct gd_thresholds *t, const char *name, const char *value, struct gd_err *err)
{
	const char *dot = strrchr(name, '.');
	char rule[64];

	if (!dot || dot == name || (size_t)(dot - name) >= sizeof rule || !dot[1])
		return gd_err_set(err, -EINVAL, _("--set %s: expected rule.key=value, e.g. cpu.saturated.busy_pct=95"),
				  name);
	memcpy(rule, name, (size_t)(dot - name));
	rule[dot - name] = '\0';
	return set_one(t, rule, dot + 1, value, "--set ", err);
}

struct ini_state {
	struct gd_thresholds *t;
	const char *path;
	struct gd_err *err;
	int rc;
};

/* Debian's inih is built without INI_HANDLER_LINENO, so semantic errors name
 * the section and key rather than the line. */
static int on_ini(void *user, const char *section, const char *name, const char *value)
{
	struct ini_state *st = user;
	char where[512];

	if (st->rc < 0)
		return 0;
	/* [probe.sku "NAME"] (a bare [probe.sku] too, strchr finding the NUL):
	 * the probe's SKU table reads and judges those (probe/sku.h) */
	if (strncmp(section, "probe.sku", 9) == 0 && strchr(" \t\"", section[9]))
		return 1;
	snprintf(where, sizeof where, "%s: [%s] ", st->path, section);
	if (!section[0]) {
		gd_err_set(st->err, -EINVAL, _("%skey \"%s\" outside a [rule] section"), where, name);
		st->rc = -EINVAL;
		return 0;
	}
	st->rc = set_one(st->t, section, name, value, where, st->err);
	return st->rc == 0;
}

int gd_thresholds_load(struct gd_thresholds *t, const char *path, bool missing_ok, struct gd_err *err)
{
	struct ini_state st = { t, path, err, 0 };
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		if (missing_ok && errno == ENOENT)
			return 0;
		return gd_err_set(err, -errno, "%s: %s", path, strerror(errno));
	}
	rc = ini_parse_file(f, on_ini, &st);
	fclose(f);
	if (st.rc < 0)
		return st.rc;
	if (rc != 0)
		return gd_err_set(err, -EINVAL, _("%s:%d: malformed line (expected [rule] or key = value)"), path, rc);
	return 0;
}
