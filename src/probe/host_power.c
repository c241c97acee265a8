/*
 * host_power.c - what the machine draws at full burn: the GPUs' power (the
 * caller's NVML figure), the host's RAPL energy counters, and the BMC.
 *
 * RAPL.  /sys/class/powercap/intel-rapl:<N> (a package, "package-N") and
 * intel-rapl:<N>:<M> (its subzones: "core", "uncore", "dram") count
 * microjoules in energy_uj, wrapping at max_energy_range_uj; AMD's RAPL
 * driver uses the same names.  Watts = Δenergy / Δt.  A package includes
 * its cores and uncore but not DRAM on server parts, so the host figure is
 * the packages plus the DRAM zones; "psys" (the platform, on some client
 * parts) covers all of them and is used alone when present.  The
 * intel-rapl-mmio zones repeat the package counter through MMIO and are
 * skipped.  energy_uj is readable by root only since Linux 5.10 (the
 * PLATYPUS side channel, CVE-2020-8694): then RAPL is unavailable and says
 * so.
 *
 * BMC.  `ipmitool dcmi power reading` asks the BMC for the whole system's
 * draw at the wall (DCMI Get Power Reading): what the PSUs carry, GPUs,
 * CPUs, fans, drives and NICs together.  Its output (ipmitool's
 * lib/ide_dcmi.c, real samples in tests/probe/host_ipmi/):
 *
 *         Instantaneous power reading:                   215 Watts
 *         Minimum during sampling period:                162 Watts
 *         Maximum during sampling period:                276 Watts
 *         Average power reading over sample period:      176 Watts
 *         IPMI timestamp:                           Wed Feb 15 12:49:51 2017
 *         Sampling period:                          01131466 Seconds.
 *         Power reading state is:                   activated
 *
 * ipmitool 1.8.19 prints the timestamp without its newline on some BMCs
 * ("10/12/23 13:29:17 CEST    Sampling period: ..."), so keys are found
 * anywhere in a line.  OpenBMC answers "deactivated" with a valid figure,
 * and a BMC without a power sensor answers 0 W: a zero reading is no
 * reading.
 *
 * The draw compared with the PSUs is the BMC's instantaneous reading when
 * there is one, else the GPUs plus RAPL (which misses fans, drives, NICs
 * and PSU losses: the headroom it gives is an upper bound), else the GPUs.
 */
#include "probe/host_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/tok.h"
#include "model/snapshot.h"

extern char **environ;

/* ---- RAPL -------------------------------------------------------------- */

static int zone_cmp(const void *a, const void *b)
{
	return strcmp(((const struct gd_probe_rapl_zone *)a)->path, ((const struct gd_probe_rapl_zone *)b)->path);
}

int gd_probe_rapl_sample(const struct gd_probe_host_opts *o, struct gd_probe_rapl_sample *s)
{
	struct gd_root root;
	char why[256];
	DIR *d;
	struct dirent *e;
	int first_err = 0;
	char first_path[96] = "";

	if (!s)
		return -EINVAL;
	memset(s, 0, sizeof *s);
	if (gd__probe_root(o, &root, why, sizeof why) < 0) {
		gd__probe_set(&s->avail, GD_PROBE_UNAVAILABLE, "%s", why);
		return 0;
	}
	d = gd_root_opendir(&root, "sys/class/powercap");
	if (!d) {
		gd__probe_set(&s->avail, GD_PROBE_UNAVAILABLE, "no /sys/class/powercap (no RAPL driver: %s)",
			      strerror(errno));
		gd_root_release(&root);
		return 0;
	}
	s->t = gd__probe_now();
	while ((e = readdir(d)) && s->n < GD_PROBE_MAX_RAPL) {
		struct gd_probe_rapl_zone *z = &s->zone[s->n];
		char rel[160];
		unsigned long long v;
		int rc;

		/* intel-rapl:N[:M] only: not the "intel-rapl" control type,
		 * not intel-rapl-mmio (the same package counter again) */
		if (strncmp(e->d_name, "intel-rapl:", 11) != 0 || strlen(e->d_name) >= sizeof z->path)
			continue;
		memset(z, 0, sizeof *z);
		GD_STRSET(z->path, e->d_name);
		snprintf(rel, sizeof rel, "sys/class/powercap/%s/name", z->path);
		if (gd_root_read_line(&root, rel, z->name, sizeof z->name) < 0)
			continue;
		snprintf(rel, sizeof rel, "sys/class/powercap/%s/energy_uj", z->path);
		rc = gd_root_read_u64(&root, rel, &v);
		if (rc < 0) {
			if (!first_err) {
				first_err = rc;
				snprintf(first_path, sizeof first_path, "%.60s/energy_uj", e->d_name);
			}
			continue;
		}
		z->energy_uj = v;
		snprintf(rel, sizeof rel, "sys/class/powercap/%s/max_energy_range_uj", z->path);
		z->max_energy_uj = gd_root_read_u64(&root, rel, &v) == 0 ? v : 0;
		s->n++;
	}
	closedir(d);
	gd_root_release(&root);
	qsort(s->zone, s->n, sizeof s->zone[0], zone_cmp);
	if (s->n)
		gd__probe_ok(&s->avail);
	else if (first_err == -EACCES || first_err == -EPERM)
		gd__probe_set(&s->avail, GD_PROBE_UNAVAILABLE,
			      "%s: permission denied (energy_uj is readable by root only since Linux 5.10)", first_path);
	else if (first_err)
		gd__probe_set(&s->avail, GD_PROBE_UNAVAILABLE, "%s: %s", first_path, strerror(-first_err));
	else
		gd__probe_set(&s->avail, GD_PROBE_UNAVAILABLE, "no intel-rapl zone under /sys/class/powercap");
	return 0;
}

static bool zone_counts(const struct gd_probe_rapl_zone *z, bool psys)
{
	if (psys)
		return strcmp(z->name, "psys") == 0;
	return strncmp(z->name, "package", 7) == 0 || strcmp(z->name, "dram") == 0;
}

double gd_probe_rapl_watts(const struct gd_probe_rapl_sample *a, const struct gd_probe_rapl_sample *b, char *zones,
			   size_t zsz, char *why, size_t wsz)
{
	double dt, joules = 0;
	bool psys = false;
	size_t used = 0, counted = 0;

	if (zsz)
		zones[0] = '\0';
	if (wsz)
		why[0] = '\0';
	if (a->avail.state != GD_PROBE_OK || b->avail.state != GD_PROBE_OK) {
		snprintf(why, wsz, "%s", a->avail.state != GD_PROBE_OK ? a->avail.why : b->avail.why);
		return NAN;
	}
	dt = b->t - a->t;
	if (!(dt > 0)) {
		snprintf(why, wsz, "the two RAPL samples are not apart in time");
		return NAN;
	}
	for (size_t i = 0; i < b->n; i++)
		psys = psys || strcmp(b->zone[i].name, "psys") == 0;
	for (size_t i = 0; i < b->n; i++) {
		const struct gd_probe_rapl_zone *zb = &b->zone[i], *za = NULL;
		uint64_t d;

		if (!zone_counts(zb, psys))
			continue;
		for (size_t j = 0; j < a->n; j++)
			if (strcmp(a->zone[j].path, zb->path) == 0)
				za = &a->zone[j];
		if (!za) {
			snprintf(why, wsz, "RAPL zone %s appeared between the samples", zb->path);
			return NAN;
		}
		if (zb->energy_uj >= za->energy_uj)
			d = zb->energy_uj - za->energy_uj;
		else if (zb->max_energy_uj > za->energy_uj)
			d = zb->max_energy_uj - za->energy_uj + zb->energy_uj;  /* wrapped once */
		else {
			snprintf(why, wsz, "RAPL zone %s went backwards without a wrap range", zb->path);
			return NAN;
		}
		joules += (double)d * 1e-6;
		counted++;
		if (zsz > used)
			used += (size_t)snprintf(zones + used, zsz - used, "%s%s", used ? "+" : "", zb->name);
	}
	if (!counted) {
		snprintf(why, wsz, "no package, dram or psys RAPL zone");
		return NAN;
	}
	return joules / dt;
}

/* ---- ipmitool dcmi power reading --------------------------------------- */

struct ipmi_key {
	const char *key;
	size_t off;       /* offsetof the double in struct gd_ipmi_power */
	const char *unit; /* required unit word */
};

static const struct ipmi_key ipmi_keys[] = {
	{ "Instantaneous power reading:", offsetof(struct gd_ipmi_power, inst_w), "Watts" },
	{ "Minimum during sampling period:", offsetof(struct gd_ipmi_power, min_w), "Watts" },
	{ "Maximum during sampling period:", offsetof(struct gd_ipmi_power, max_w), "Watts" },
	{ "Average power reading over sample period:", offsetof(struct gd_ipmi_power, avg_w), "Watts" },
	{ "Sampling period:", offsetof(struct gd_ipmi_power, period_s), "Seconds" },
};

/* Finds lit in s; returns the rest of s after it, or an empty slice with
 * p NULL. */
static struct gd_slice after(struct gd_slice s, const char *lit)
{
	size_t n = strlen(lit);

	for (size_t i = 0; i + n <= s.n; i++)
		if (memcmp(s.p + i, lit, n) == 0)
			return (struct gd_slice){ s.p + i + n, s.n - i - n };
	return (struct gd_slice){ NULL, 0 };
}

/* "   215 Watts" -> 215; the unit word must follow (a trailing '.' is
 * ipmitool's for Seconds). */
static bool number_with_unit(struct gd_slice v, const char *unit, double *out)
{
	struct gd_slice f[3];
	size_t n = gd_tok_split(v, f, 3);
	uint64_t u;

	if (n < 2 || !gd_tok_u64(f[0], &u))
		return false;
	if (f[1].n && f[1].p[f[1].n - 1] == '.')
		f[1].n--;
	if (!gd_tok_eq(f[1], unit))
		return false;
	*out = (double)u;
	return true;
}

int gd_ipmi_dcmi_parse(const char *buf, size_t len, struct gd_ipmi_power *p, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice line;

	p->inst_w = p->min_w = p->max_w = p->avg_w = p->period_s = NAN;
	p->active = p->has_state = false;
	if (gd_tok_is_binary(buf, len))
		return gd_err_set(err, -EINVAL, "binary data, not ipmitool dcmi power reading output");
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		struct gd_slice v;

		for (size_t k = 0; k < sizeof ipmi_keys / sizeof ipmi_keys[0]; k++) {
			double *dst = (double *)((char *)p + ipmi_keys[k].off);
			struct gd_slice rest;

			v = after(line, ipmi_keys[k].key);
			if (!v.p)
				continue;
			/* "Minimum during sampling period:" does not hold
			 * "Sampling period:" (case), so one key per field */
			rest = gd_tok_trim(v);
			if (!number_with_unit(rest, ipmi_keys[k].unit, dst)) {
				char shown[80];

				gd_tok_copy(shown, sizeof shown, gd_tok_trim(line));
				return gd_err_set(err, -EINVAL, "line %zu: \"%s\": expected a whole number of %s",
						  it.lineno, shown, ipmi_keys[k].unit);
			}
		}
		v = after(line, "Power reading state is:");
		if (v.p) {
			v = gd_tok_trim(v);
			p->has_state = v.n > 0;
			p->active = gd_tok_eq(v, "activated");
		}
	}
	if (isnan(p->inst_w))
		return gd_err_set(err, -ENODATA,
				  "no \"Instantaneous power reading:\" line: not ipmitool dcmi power reading output");
	return 0;
}

/* Runs argv[0] (PATH searched) with stdout and stderr captured into out and
 * errs (NUL-terminated, truncated to their sizes), killing it after
 * timeout_s.  Returns the exit status (>= 0), -ENOENT when it is not
 * installed, -ETIMEDOUT, or another -errno. */
static int run_capture(char *const argv[], double timeout_s, char *out, size_t osz, char *errs, size_t esz)
{
	posix_spawn_file_actions_t fa;
	int po[2], pe[2], rc, status;
	pid_t pid;
	size_t no = 0, ne = 0;
	double deadline = gd__probe_now() + timeout_s;
	bool timed_out = false;

	out[0] = errs[0] = '\0';
	if (pipe2(po, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(pe, O_CLOEXEC) < 0) {
		rc = -errno;
		close(po[0]);
		close(po[1]);
		return rc;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	if (rc != 0) {
		close(po[0]);
		close(pe[0]);
		return -rc;
	}
	for (int open_fds = 2; open_fds > 0;) {
		struct pollfd fds[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
		double left = deadline - gd__probe_now();
		int n;

		if (left <= 0) {
			timed_out = true;
			kill(pid, SIGKILL);
			break;
		}
		n = poll(fds, 2, (int)(left * 1000) + 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		for (int i = 0; i < 2; i++) {
			char tmp[4096];
			ssize_t got;

			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = read(fds[i].fd, tmp, sizeof tmp);
			if (got <= 0) {
				if (i == 0)
					po[0] = -1;
				else
					pe[0] = -1;
				close(fds[i].fd);
				open_fds--;
				continue;
			}
			if (i == 0 && no + 1 < osz) {
				size_t k = (size_t)got < osz - 1 - no ? (size_t)got : osz - 1 - no;

				memcpy(out + no, tmp, k);
				no += k;
				out[no] = '\0';
			} else if (i == 1 && ne + 1 < esz) {
				size_t k = (size_t)got < esz - 1 - ne ? (size_t)got : esz - 1 - ne;

				memcpy(errs + ne, tmp, k);
				ne += k;
				errs[ne] = '\0';
			}
		}
	}
	if (po[0] >= 0)
		close(po[0]);
	if (pe[0] >= 0)
		close(pe[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (timed_out)
		return -ETIMEDOUT;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* The first line of s, trimmed, for a reason. */
static void first_line(const char *s, char *dst, size_t dsz)
{
	size_t n = strcspn(s, "\n");

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\r'))
		n--;
	snprintf(dst, dsz, "%.*s", (int)(n < 200 ? n : 200), s);
}

static void bmc_probe(const struct gd_probe_host_opts *o, struct gd_probe_power_result *r)
{
	char *argv[] = { (char *)(o->ipmitool ? o->ipmitool : "ipmitool"), (char *)"dcmi", (char *)"power",
			 (char *)"reading", NULL };
	char out[8192], errs[1024], line[256];
	struct gd_err err;
	int rc;

	if (o->ipmitool && !o->ipmitool[0]) {
		gd__probe_set(&r->bmc, GD_PROBE_NOT_RUN, "ipmitool not asked for");
		return;
	}
	rc = run_capture(argv, o->ipmitool_timeout_s, out, sizeof out, errs, sizeof errs);
	if (rc == -ENOENT) {
		gd__probe_set(&r->bmc, GD_PROBE_UNAVAILABLE, "%s is not installed (apt-get install ipmitool)", argv[0]);
		return;
	}
	if (rc == -ETIMEDOUT) {
		gd__probe_set(&r->bmc, GD_PROBE_FAILED, "%s dcmi power reading did not answer within %.0f s", argv[0],
			      o->ipmitool_timeout_s);
		return;
	}
	if (rc < 0) {
		gd__probe_set(&r->bmc, GD_PROBE_FAILED, "%s: %s", argv[0], strerror(-rc));
		return;
	}
	if (rc != 0) {
		first_line(errs[0] ? errs : out, line, sizeof line);
		gd__probe_set(&r->bmc, GD_PROBE_UNAVAILABLE, "%s dcmi power reading exited %d: %s", argv[0], rc,
			      line[0] ? line : "no message");
		return;
	}
	gd_err_clear(&err);
	if (gd_ipmi_dcmi_parse(out, strlen(out), &r->ipmi, &err) < 0) {
		gd__probe_set(&r->bmc, GD_PROBE_FAILED, "%s dcmi power reading: %s", argv[0], err.msg);
		return;
	}
	if (!(r->ipmi.inst_w > 0)) {
		gd__probe_set(&r->bmc, GD_PROBE_UNAVAILABLE, "the BMC reports 0 W (no power sensor behind DCMI%s)",
			      r->ipmi.has_state && !r->ipmi.active ? ", reading state deactivated" : "");
		return;
	}
	gd__probe_ok(&r->bmc);
}

int gd_probe_power(const struct gd_probe_host_opts *opts, const struct gd_probe_power_in *in,
		   struct gd_probe_power_result *r)
{
	struct gd_probe_host_opts o;
	struct gd_probe_rapl_sample start, end;
	const struct gd_probe_rapl_sample *a;

	if (!in || !r)
		return -EINVAL;
	gd__probe_opts(opts, &o);
	memset(r, 0, sizeof *r);
	r->gpu_w = in->gpu_w;
	r->ngpus = in->ngpus;
	r->host_rapl_w = r->rapl_interval_s = r->draw_w = NAN;
	r->ipmi.inst_w = r->ipmi.min_w = r->ipmi.max_w = r->ipmi.avg_w = r->ipmi.period_s = NAN;

	a = in->rapl_start;
	if (!a) {
		struct timespec ts = { (time_t)o.budget_s, (long)((o.budget_s - (double)(time_t)o.budget_s) * 1e9) };

		gd_probe_rapl_sample(&o, &start);
		a = &start;
		if (start.avail.state == GD_PROBE_OK)
			while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
				;
	}
	gd_probe_rapl_sample(&o, &end);
	{
		char why[256];

		r->host_rapl_w = gd_probe_rapl_watts(a, &end, r->rapl_zones, sizeof r->rapl_zones, why, sizeof why);
		if (isnan(r->host_rapl_w))
			gd__probe_set(&r->rapl, GD_PROBE_UNAVAILABLE, "%s", why);
		else {
			r->rapl_interval_s = end.t - a->t;
			gd__probe_ok(&r->rapl);
		}
	}
	bmc_probe(&o, r);

	if (r->bmc.state == GD_PROBE_OK) {
		r->draw_w = r->ipmi.inst_w;
		GD_STRSET(r->draw_from, "BMC (ipmitool dcmi power reading)");
	} else if (isfinite(r->gpu_w) && r->rapl.state == GD_PROBE_OK) {
		r->draw_w = r->gpu_w + r->host_rapl_w;
		GD_STRSET(r->draw_from, "GPUs + RAPL");
	} else if (isfinite(r->gpu_w)) {
		r->draw_w = r->gpu_w;
		GD_STRSET(r->draw_from, "GPUs only");
	}
	if (isfinite(r->draw_w))
		gd__probe_ok(&r->avail);
	else
		gd__probe_set(&r->avail, GD_PROBE_UNAVAILABLE, "no power figure: no GPU power given, BMC: %.100s",
			      r->bmc.why);
	return 0;
}
