/*
 * sys_cpufreq.c - CPU frequency scaling and thermal throttling, per CPU.
 *
 *   /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor        "performance"
 *   /sys/devices/system/cpu/cpu0/cpufreq/scaling_driver          "intel_pstate"
 *   /sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq        "2600000"  (kHz)
 *   /sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq        "3500000"  (kHz)
 *   /sys/devices/system/cpu/cpu0/thermal_throttle/core_throttle_count      "0"
 *   /sys/devices/system/cpu/cpu0/thermal_throttle/package_throttle_count   "0"
 *
 * cpufreq (2.6.x) exists only with a scaling driver loaded, so most virtual
 * machines have none; thermal_throttle is x86 with the therm_throt code
 * (2.6.26+).  The cpuN/cpufreq directory is a link to the policy's directory
 * (cpufreq/policyN) since 4.3; reading through it works on every version.
 * The collector runs every sample, so for each CPU in cpus[] one fstatat
 * decides whether each directory is there before any file is read.
 * Some drivers print "<unknown>" for scaling_cur_freq: that value stays
 * absent and the source is PARTIAL.
 */
#include "collect/collectors.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "core/tok.h"

#define CPU_DIR "sys/devices/system/cpu"
#define NO_CPUFREQ _("no cpufreq in /sys/devices/system/cpu (virtual machine or driver not loaded)")

struct fq_state {
	size_t problems;
	char why[GD_ERR_MSG_MAX];
};

static void __attribute__((format(printf, 2, 3))) problem(struct fq_state *st, const char *fmt, ...)
{
	va_list ap;

	if (st->problems++)
		return;
	va_start(ap, fmt);
	vsnprintf(st->why, sizeof st->why, fmt, ap);
	va_end(ap);
}

static void read_str(const struct gd_root *root, const char *rel, char *dst, size_t dstsz, struct fq_state *st)
{
	int rc = gd_root_read_line(root, rel, dst, dstsz);

	if (rc < 0) {
		dst[0] = '\0';
		problem(st, "/%s: %s", rel, strerror(-rc));
	} else if (!dst[0]) {
		problem(st, _("/%s is empty"), rel);
	}
}

static void read_num(const struct gd_root *root, const char *rel, struct gd_u64 *dst, struct fq_state *st)
{
	char line[64];
	uint64_t v;
	int rc = gd_root_read_line(root, rel, line, sizeof line);
	struct gd_slice s = { line, 0 };

	if (rc < 0) {
		problem(st, "/%s: %s", rel, strerror(-rc));
		return;
	}
	s.n = strlen(line);
	if (!gd_tok_u64(gd_tok_trim(s), &v)) {
		problem(st, _("/%s is \"%.40s\", not a number"), rel, line);
		return;
	}
	gd_u64_set(dst, v);
}

enum gd_src_status gd_collect_cpufreq(const struct gd_collect_ctx *ctx, struct gd_snapshot *s, struct gd_err *err)
{
	struct fq_state st = { 0, "" };
	size_t nfreq = 0, nthrot = 0;
	char dir[96], rel[160];

	if (!s->cpus.n) {
		gd_err_set(err, -ENOENT, _("no CPU list (from /proc/stat) to look up cpufreq for"));
		return GD_SRC_ABSENT;
	}
	GD_VEC_EACH(s->cpus, struct gd_cpus, c) {
		unsigned long long n = (unsigned long long)c->cpu.v;

		snprintf(dir, sizeof dir, CPU_DIR "/cpu%llu/cpufreq", n);
		if (gd_root_exists(ctx->root, dir)) {
			nfreq++;
			snprintf(rel, sizeof rel, "%s/scaling_governor", dir);
			read_str(ctx->root, rel, c->governor, sizeof c->governor, &st);
			snprintf(rel, sizeof rel, "%s/scaling_driver", dir);
			read_str(ctx->root, rel, c->freq_driver, sizeof c->freq_driver, &st);
			snprintf(rel, sizeof rel, "%s/scaling_cur_freq", dir);
			read_num(ctx->root, rel, &c->cur_khz, &st);
			snprintf(rel, sizeof rel, "%s/cpuinfo_max_freq", dir);
			read_num(ctx->root, rel, &c->max_khz, &st);
		}
		snprintf(dir, sizeof dir, CPU_DIR "/cpu%llu/thermal_throttle", n);
		if (gd_root_exists(ctx->root, dir)) {
			nthrot++;
			snprintf(rel, sizeof rel, "%s/core_throttle_count", dir);
			read_num(ctx->root, rel, &c->core_throttle_count, &st);
			snprintf(rel, sizeof rel, "%s/package_throttle_count", dir);
			read_num(ctx->root, rel, &c->package_throttle_count, &st);
		}
	}
	if (!nfreq && !nthrot) {
		gd_err_set(err, -ENOENT, NO_CPUFREQ);
		return GD_SRC_ABSENT;
	}
	if (!nfreq) {
		gd_err_set(err, -ENOENT, "%s%s%s",
			   _("no cpufreq in /sys/devices/system/cpu (virtual machine or driver not loaded) "
			       "(thermal_throttle read)"),
			   st.problems ? "; " : "", st.why);
		return GD_SRC_PARTIAL;
	}
	if (st.problems > 1) {
		gd_err_set(err, -EINVAL, _("%s (and %zu more problems)"), st.why, st.problems - 1);
		return GD_SRC_PARTIAL;
	}
	if (st.problems) {
		gd_err_set(err, -EINVAL, "%s", st.why);
		return GD_SRC_PARTIAL;
	}
	if (nfreq < s->cpus.n) {
		gd_err_set(err, -ENOENT, _("cpufreq present for %zu of %zu CPUs"), nfreq, s->cpus.n);
		return GD_SRC_PARTIAL;
	}
	return GD_SRC_OK;
}
