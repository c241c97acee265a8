/*
 * dcgmi.c - what NVIDIA DCGM's command line prints, as people paste it:
 *
 *   dcgmi diag -r 1|2|3|4     the boxed result table
 *       | Diagnostic                | Result                            |
 *       |-----  Metadata  ----------+-----------------------------------|
 *       | Driver Version Detected   | 550.54.15                         |
 *       +-----  Hardware  ----------+-----------------------------------+
 *       | GPU Memory                | Pass - GPU: 1                     |
 *       |                           | Fail - GPU: 0                     |
 *       | Warning                   | GPU 0 Error using CUDA API cuCtxC |
 *       |                           | reate ...                         |
 *       | PCIe                      | Fail - All                        |
 *     (DCGM 4 prints "GPU0: Pass" rows under a test; 3.0 has no Metadata;
 *     dcgmi wraps a Warning's text at the cell's width, mid-word)
 *   dcgmi dmon -e 150,155,230  "#Entity  TMPTR  POWER  XIDER" (or "# Entity"),
 *     an "ID" line, then "GPU 0  34  61.2  0" rows, one per GPU and sample
 *     ("GPU-I 21" rows are MIG instances, "N/A" a field not sampled yet)
 *   dcgmi health -c [-j]      the boxed "Health Monitor Report": the overall
 *     health, then each entity's incidents; DCGM 1.x/2.x (the user guide):
 *       | GPU ID: 0        | Warning                                 |
 *       |                  | PCIe system: Warning - Detected more    |
 *       |                  | than 8 PCIe replays per minute for GPU  |
 *     DCGM 3 and 4 (dcgmi/Health.cpp, a tree):
 *       | GPU                       |                             |
 *       | -> 0                      | Warning                     |
 *       |    -> Errors              |                             |
 *       |       -> Power system     | Warning                     |
 *       |                           | Detected clocks event due   |
 *     (the message wrapped at word ends; several incidents of one system
 *     joined with ", ").
 *
 * Into the snapshot: the GPUs dmon samples (temperature, power, clocks,
 * utilisation, memory), and one job_log[] row per verdict that says
 * something (a test that failed on a GPU and its Warning text; an NVLink
 * link down; persistence mode off; dmon's last Xid; a health incident),
 * kind "dcgmi_*" with its line, which the rules read as they read the job's
 * own log.  A Pass row, or "Overall Health: Healthy", is not proof of health
 * and leaves nothing; a test that failed because the GPU was busy ("busy or
 * unavailable") is the busy GPU, not its hardware.  Test names are matched
 * without case: DCGM 4 prints "memory", "targeted_stress", "software".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/i18n.h"
#include "offline/offline.h"
#include "offline/ofl.h"
#include "offline/split.h"

#define MAX_COLS 48
#define MAX_GPUS 64

struct dstate {
	struct gd_snapshot *s;
	struct gd_tok_tally t;
	/* diag */
	char test[32];            /* the test whose rows these are */
	bool test_failed_all;     /* "Fail - All", or DCGM 4's bare "Fail" of the test's row */
	bool per_gpu;             /* ... and "GPU0: Fail" rows followed: they say which */
	bool explained_all;       /* ... and a Warning named the GPU it failed on */
	bool busy;                /* a GPU was busy: "Fail - All" after it is that, not hardware */
	bool busy_gpu[MAX_GPUS];  /* ... which: its later failures are the busy GPU's too */
	bool failed[MAX_GPUS];    /* its per-GPU results */
	bool any_failed;
	char detail[1024];        /* a Warning's text, its wrapped lines joined */
	size_t detail_line;
	bool in_detail;
	bool prev_full;           /* the last detail piece filled the cell */
	size_t known;             /* lines recognised */
	/* dmon */
	char cols[MAX_COLS][8];
	size_t ncols;
	/* health: the report being read, the entity and the incident */
	bool in_health;
	bool entity_gpu;          /* the entity is a GPU (not a switch, a CPU) */
	int entity;               /* its id, -1 before one */
	bool incident;            /* an incident's message is being read */
	char system[32];          /* its system: "PCIe system", "Driver" */
	int level;                /* 1 Warning, 2 Failure */
	char msg[512];
	size_t msg_line;
};

static struct gd_job_log *rec(struct dstate *d, const char *kind, size_t line, const char *text)
{
	struct gd_job_log *r = GD_PUSH(d->s, job_log, struct gd_job_log);

	memset(r, 0, sizeof *r);
	GD_STRSET(r->kind, kind);
	gd_u64_set(&r->line, line);
	snprintf(r->text, sizeof r->text, "%s", text);
	for (char *c = r->text; *c; c++)
		if ((unsigned char)*c >= 0x80 || *c < ' ')
			*c = '?';
	return r;
}

static struct gd_gpu *gpu_of(struct gd_snapshot *s, uint64_t index)
{
	struct gd_gpu *g;

	GD_VEC_EACH(s->gpus, struct gd_gpu, o)
		if (o->index.ok && o->index.v == index)
			return o;
	g = GD_PUSH(s, gpus, struct gd_gpu);
	gd_u64_set(&g->index, index);
	return g;
}

/* ---- diag ---------------------------------------------------------------------- */

/* "| name | value |" -> the two cells (a missing closing bar is tolerated). */
static bool cells(struct gd_slice l, struct gd_slice *name, struct gd_slice *value, size_t *width)
{
	const char *b1, *b2;

	if (!l.n || (l.p[0] != '|' && l.p[0] != '+'))
		return false;
	b1 = memchr(l.p + 1, '|', l.n - 1);
	if (!b1)
		b1 = memchr(l.p + 1, '+', l.n - 1);
	if (!b1)
		return false;
	*name = gd_tok_trim((struct gd_slice){ l.p + 1, (size_t)(b1 - l.p - 1) });
	b2 = l.p + l.n;
	if (b2 > b1 + 1 && (b2[-1] == '|' || b2[-1] == '+'))
		b2--;
	*width = (size_t)(b2 - b1 - 1);
	*value = (struct gd_slice){ b1 + 1, *width };
	/* the one blank after the bar; trailing padding */
	if (value->n && value->p[0] == ' ')
		value->p++, value->n--;
	while (value->n && (value->p[value->n - 1] == ' ' || value->p[value->n - 1] == '\r'))
		value->n--;
	return true;
}

/* "-----  Hardware  ------": a section line; its name in *sec. */
static bool section(struct gd_slice name, struct gd_slice *sec)
{
	if (!gd_tok_prefix(name, "---"))
		return false;
	*sec = name;
	while (sec->n && sec->p[0] == '-')
		sec->p++, sec->n--;
	while (sec->n && sec->p[sec->n - 1] == '-')
		sec->n--;
	*sec = gd_tok_trim(*sec);
	return true;
}

/* What a Warning's text names, for the rules: a kind, or NULL. */
static const char *cause_of(const char *t)
{
	if (strstr(t, "NvLink link") && strstr(t, "down"))
		return "dcgmi_nvlink_down";
	if (strstr(t, "busy or unavailable"))
		return "dcgmi_busy";
	if (strstr(t, "Persistence mode") && strstr(t, "disabled"))
		return "dcgmi_persistence_off";
	return NULL;
}

/* The kind of a failed test's record, from the test's name (and, for the
 * GEMM "Diagnostic", whether its text says the results differ).  The
 * deployment tests that find the GPU's libraries or device files unusable
 * are "software": the GPU's other evidence is missing, not its hardware at
 * fault; the rest of them name a cause of their own. */
static const char *fail_kind(const char *test, const char *text)
{
	static const struct { const char *test, *kind; } tests[] = {
		{ "GPU Memory", "dcgmi_fail_memory" },       { "Memory", "dcgmi_fail_memory" },
		{ "Memtest", "dcgmi_fail_memory" },          { "Memory Bandwidth", "dcgmi_fail_mem_bandwidth" },
		{ "memory_bandwidth", "dcgmi_fail_mem_bandwidth" }, { "PCIe", "dcgmi_fail_pcie" },
		{ "Targeted Stress", "dcgmi_fail_compute" }, { "targeted_stress", "dcgmi_fail_compute" },
		{ "Targeted Power", "dcgmi_fail_compute" },  { "targeted_power", "dcgmi_fail_compute" },
		{ "SM Stress", "dcgmi_fail_compute" },       { "sm_stress", "dcgmi_fail_compute" },
		{ "Pulse Test", "dcgmi_fail_compute" },      { "pulse_test", "dcgmi_fail_compute" },
		{ "Page Retirement/Row Remap", "dcgmi_fail_row_remap" },
		{ "NVML Library", "dcgmi_fail_software" },   { "CUDA Main Library", "dcgmi_fail_software" },
		{ "CUDA Toolkit Libraries", "dcgmi_fail_software" }, { "Permissions and OS Blocks", "dcgmi_fail_software" },
		{ "Persistence Mode", "dcgmi_persistence_off" },
	};

	if (strcasecmp(test, "Diagnostic") == 0)
		return text && (strstr(text, "miscompare") || strstr(text, "mismatch") || strstr(text, "differ"))
			       ? "dcgmi_fail_mismatch"
			       : "dcgmi_fail_compute";
	for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
		if (strcasecmp(test, tests[i].test) == 0)
			return tests[i].kind;
	return "dcgmi_fail"; /* Denylist, Environment Variables, Inforom, a test gpudoctor does not know */
}

/* The GPU a text names first ("GPU 0 ...", "GPU0: ..."), or -1. */
static int gpu_named(const char *t)
{
	const char *p = strstr(t, "GPU");

	while (p) {
		const char *q = p + 3;
		int n = 0, digits = 0;

		while (*q == ' ' || *q == ':')
			q++;
		while (*q >= '0' && *q <= '9' && digits < 3)
			n = n * 10 + (*q++ - '0'), digits++;
		if (digits && n < MAX_GPUS)
			return n;
		p = strstr(p + 3, "GPU");
	}
	return -1;
}

static void end_detail(struct dstate *d)
{
	const char *kind;
	int g;

	if (!d->in_detail)
		return;
	d->in_detail = false;
	kind = cause_of(d->detail);
	g = gpu_named(d->detail);
	if (g >= 0 && d->test_failed_all)
		d->explained_all = true; /* "Fail - All", and this text names the GPU */
	if (kind && strcmp(kind, "dcgmi_busy") == 0) {
		d->busy = true;
		if (g >= 0)
			d->busy_gpu[g] = true;
	}
	if (kind) {
		struct gd_job_log *r = rec(d, kind, d->detail_line, d->detail);

		GD_STRSET(r->what, d->test);
		if (g >= 0)
			gd_u64_set(&r->gpu, (uint64_t)g);
	}
	/* a failed test's Warning: the failure on that GPU, and why (unless the
	 * Warning names a cause the rules report on its own: an NVLink down) */
	if (g >= 0 && (d->failed[g] || (d->test_failed_all && !d->per_gpu)) && !d->busy_gpu[g] && !kind) {
		struct gd_job_log *r = rec(d, fail_kind(d->test, d->detail), d->detail_line, d->detail);

		GD_STRSET(r->what, d->test);
		gd_u64_set(&r->gpu, (uint64_t)g);
		d->failed[g] = false;
		d->explained_all |= d->test_failed_all;
	}
}

/* "Pass", "Fail - All", "Fail - GPU: 0", "GPU0: Fail", "Skip - All". */
static void result(struct dstate *d, struct gd_slice v, size_t ln)
{
	char buf[64];
	int g;

	gd_tok_copy(buf, sizeof buf, v);
	if (!strstr(buf, "Fail"))
		return;
	d->any_failed = true;
	g = gpu_named(buf);
	if (g >= 0) {
		d->failed[g] = true;
		d->per_gpu = true;
	} else {
		d->test_failed_all = true;
	}
	(void)ln;
}

/* The failures of the test that ends: those no Warning explained. */
static void end_test(struct dstate *d, size_t ln)
{
	end_detail(d);
	for (int g = 0; g < MAX_GPUS; g++)
		if (d->failed[g] && !d->busy_gpu[g]) {
			char t[96];
			struct gd_job_log *r;

			snprintf(t, sizeof t, "%s: Fail - GPU: %d", d->test, g);
			r = rec(d, fail_kind(d->test, NULL), ln, t);
			GD_STRSET(r->what, d->test);
			gd_u64_set(&r->gpu, (uint64_t)g);
		}
	/* "Fail - All" that no Warning tied to a GPU */
	if (d->test_failed_all && d->test[0] && !d->explained_all && !d->busy && !d->per_gpu) {
		char t[96];
		struct gd_job_log *r;

		snprintf(t, sizeof t, "%s: Fail - All", d->test);
		r = rec(d, fail_kind(d->test, NULL), ln, t);
		GD_STRSET(r->what, d->test);
	}
	memset(d->failed, 0, sizeof d->failed);
	d->test_failed_all = d->explained_all = d->per_gpu = false;
	d->test[0] = '\0';
}

static bool diag_line(struct dstate *d, struct gd_slice l, size_t ln)
{
	struct gd_slice name, v, sec;
	size_t width;

	if (!cells(l, &name, &v, &width))
		return false;
	if (section(name, &sec) || (l.p[0] == '+' && !name.n)) {
		end_test(d, ln);
		return true;
	}
	if (ofl_ieq(name, "Diagnostic") && ofl_ieq(v, "Result"))
		return true;
	if (!name.n) {
		/* a continuation: of a Warning's text, or a test's per-GPU result */
		if (d->in_detail) {
			size_t n = strlen(d->detail);

			snprintf(d->detail + n, sizeof d->detail - n, "%s%.*s", d->prev_full ? "" : " ", OFL_SL(v));
			d->prev_full = v.n + 2 >= width;
		} else {
			result(d, v, ln);
		}
		return true;
	}
	if (ofl_ieq(name, "Warning") || ofl_ieq(name, "Info")) {
		end_detail(d);
		d->in_detail = true;
		d->detail_line = ln;
		gd_tok_copy(d->detail, sizeof d->detail, v);
		d->prev_full = v.n + 2 >= width;
		return true;
	}
	end_test(d, ln);
	if (ofl_ieq(name, "Driver Version Detected")) {
		gd_tok_copy(d->s->nvml.driver_version, sizeof d->s->nvml.driver_version, v);
		return true;
	}
	if (ofl_ieq(name, "DCGM Version") || ofl_ieq(name, "GPU Device IDs Detected"))
		return true;
	gd_tok_copy(d->test, sizeof d->test, name);
	result(d, v, ln);
	return true;
}

/* ---- dmon ---------------------------------------------------------------------- */

static const struct {
	const char *name;
	size_t off;
	int f64;
	uint64_t scale;
} dmon_cols[] = {
	{ "TMPTR", offsetof(struct gd_gpu, temp_c), 1, 1 },
	{ "POWER", offsetof(struct gd_gpu, power_w), 1, 1 },
	{ "PMLMT", offsetof(struct gd_gpu, power_limit_w), 1, 1 },
	{ "SMCLK", offsetof(struct gd_gpu, sm_clock_mhz), 0, 1 },
	{ "MMCLK", offsetof(struct gd_gpu, mem_clock_mhz), 0, 1 },
	{ "GPUTL", offsetof(struct gd_gpu, util_gpu_pct), 0, 1 },
	{ "MCUTL", offsetof(struct gd_gpu, util_mem_pct), 0, 1 },
	{ "FBUSD", offsetof(struct gd_gpu, mem_used_bytes), 0, 1048576 },
	{ "FBTTL", offsetof(struct gd_gpu, mem_total_bytes), 0, 1048576 },
};

static bool dmon_header(struct dstate *d, struct gd_slice l)
{
	struct gd_slice f[MAX_COLS + 2];
	size_t n, i = 1;

	if (gd_tok_prefix(l, "# Entity"))
		i = 2;
	else if (!gd_tok_prefix(l, "#Entity"))
		return false;
	n = gd_tok_split(l, f, MAX_COLS + 2);
	d->ncols = 0;
	for (; i < n && d->ncols < MAX_COLS; i++)
		gd_tok_copy(d->cols[d->ncols++], sizeof d->cols[0], f[i]);
	return true;
}

static bool dmon_row(struct dstate *d, struct gd_slice l, size_t ln)
{
	struct gd_slice f[MAX_COLS + 2];
	size_t n = gd_tok_split(l, f, MAX_COLS + 2);
	struct gd_u64 idx;
	struct gd_gpu *g;

	if (n < 2 || !ofl_ieq(f[0], "GPU"))
		return ofl_ieq(f[0], "GPU-I") || ofl_ieq(f[0], "GPU-CI") || ofl_ieq(f[0], "Switch") ||
		       ofl_ieq(f[0], "Link") || ofl_ieq(f[0], "CPU");
	if (ofl_u64(f[1], NULL, 1, &idx) != OFL_SET || idx.v >= MAX_GPUS) {
		gd_tok_tally_skip(&d->t, ln, _("a dmon row without a GPU number"));
		return true;
	}
	g = gpu_of(d->s, idx.v);
	for (size_t i = 2; i < n && i - 2 < d->ncols; i++) {
		const char *c = d->cols[i - 2];
		struct gd_slice v = f[i];

		if (ofl_placeholder(v))
			continue;
		if (strcmp(c, "XIDER") == 0) {
			struct gd_u64 x;

			if (ofl_u64(v, NULL, 1, &x) == OFL_SET && x.v) {
				char t[96];
				struct gd_job_log *r;

				snprintf(t, sizeof t, "dcgmi dmon: GPU %llu XIDER (last Xid) %llu", (unsigned long long)idx.v,
					 (unsigned long long)x.v);
				r = rec(d, "dcgmi_xid", ln, t);
				gd_u64_set(&r->gpu, idx.v);
				gd_u64_set(&r->value, x.v);
			}
			continue;
		}
		for (size_t k = 0; k < sizeof dmon_cols / sizeof dmon_cols[0]; k++) {
			char *base = (char *)g + dmon_cols[k].off;
			enum ofl_v r;

			if (strcmp(c, dmon_cols[k].name) != 0)
				continue;
			r = dmon_cols[k].f64 ? ofl_f64(v, NULL, 1, (struct gd_f64 *)(void *)base)
					     : ofl_u64(v, NULL, dmon_cols[k].scale, (struct gd_u64 *)(void *)base);
			if (r == OFL_BAD && !dmon_cols[k].f64) {
				struct gd_f64 x = { 0, false };

				/* "61.234" in an integer column: rounded */
				if (ofl_f64(v, NULL, 1, &x) == OFL_SET && x.v >= 0)
					gd_u64_set((struct gd_u64 *)(void *)base,
						   (uint64_t)(x.v * (double)dmon_cols[k].scale + 0.5));
				else
					gd_tok_tally_skip(&d->t, ln, _("a dmon value that is not a number"));
			}
		}
	}
	d->t.parsed++;
	return true;
}

/* ---- health -------------------------------------------------------------------- */

static bool health_line(struct gd_slice l)
{
	return ofl_contains(l, "Overall Health") || ofl_contains(l, "Health Monitor Report") ||
	       ofl_contains(l, "Health monitor systems set successfully");
}

/* What an incident's message names, for the rules (DCGM's messages,
 * dcgmlib/dcgm_errors.h): a kind, or "dcgmi_health" for a cause outside
 * gpudoctor's catalogue (a corrupt InfoROM, the driver, the SM). */
static const char *incident_kind(const struct dstate *d)
{
	static const struct { const char *says, *kind; } says[] = {
		{ "PCIe replay", "dcgmi_health_pcie" },            /* "more than 8 PCIe replays per minute" */
		{ "row remapping failed", "dcgmi_health_remap_failed" },
		{ "row remap limit", "dcgmi_health_remap_failed" },
		{ "retired pages have been detected", "dcgmi_health_remap_failed" },
		{ "pending retired page", "dcgmi_health_remap_pending" },
		{ "row remappings are pending", "dcgmi_health_remap_pending" },
		{ "Pending page retirements", "dcgmi_health_remap_pending" },
		{ "double-bit ECC", "dcgmi_health_ecc" },
		{ "uncorrectable memory errors", "dcgmi_health_ecc" },
		{ "uncontained error", "dcgmi_health_ecc" },
		{ "due to thermal violation", "dcgmi_health_thermal" },
		{ "thermal violations totaling", "dcgmi_health_thermal" },
		{ "due to power violation", "dcgmi_health_power" },
	};

	if (!d->entity_gpu || d->entity < 0)
		return "dcgmi_health";
	for (size_t i = 0; i < sizeof says / sizeof says[0]; i++)
		if (strstr(d->msg, says[i].says))
			return says[i].kind;
	if (strncasecmp(d->system, "NVLINK", 6) == 0)
		return "dcgmi_health_nvlink";
	return "dcgmi_health";
}

static void end_incident(struct dstate *d)
{
	struct gd_job_log *r;

	if (!d->incident)
		return;
	d->incident = false;
	if (d->level < 1)
		return; /* "Healthy" */
	r = rec(d, incident_kind(d), d->msg_line, d->msg[0] ? d->msg : d->system);
	GD_STRSET(r->what, d->system);
	gd_u64_set(&r->value, (uint64_t)d->level);
	if (d->entity_gpu && d->entity >= 0)
		gd_u64_set(&r->gpu, (uint64_t)d->entity);
}

/* "Warning", "Failure" (DCGM's words) as 1, 2; "Healthy" 0; else -1. */
static int level_of(struct gd_slice v)
{
	if (gd_tok_prefix(v, "Warning"))
		return 1;
	if (gd_tok_prefix(v, "Fail"))
		return 2;
	if (gd_tok_prefix(v, "Healthy"))
		return 0;
	return -1;
}

static void start_incident(struct dstate *d, struct gd_slice system, int level, struct gd_slice msg, size_t ln)
{
	end_incident(d);
	d->incident = true;
	gd_tok_copy(d->system, sizeof d->system, system);
	d->level = level;
	gd_tok_copy(d->msg, sizeof d->msg, msg);
	d->msg_line = ln;
}

/* "PCIe system: Warning - Detected more than ..." (the older layout's first
 * line of an incident): true, with its parts. */
static bool incident_head(struct gd_slice v, struct gd_slice *system, int *level, struct gd_slice *msg)
{
	const char *colon = memchr(v.p, ':', v.n), *dash;
	struct gd_slice rest;

	if (!colon)
		return false;
	*system = gd_tok_trim((struct gd_slice){ v.p, (size_t)(colon - v.p) });
	rest = gd_tok_trim((struct gd_slice){ colon + 1, (size_t)(v.p + v.n - colon - 1) });
	if (!system->n || (*level = level_of(rest)) < 0 ||
	    !(ofl_contains(*system, "system") || ofl_ieq(*system, "Driver")))
		return false;
	dash = memchr(rest.p, '-', rest.n);
	*msg = dash ? gd_tok_trim((struct gd_slice){ dash + 1, (size_t)(rest.p + rest.n - dash - 1) })
		    : (struct gd_slice){ rest.p + rest.n, 0 };
	return true;
}

/* An entity: "GPU ID: 0" (older layout) or "-> 0" under "GPU" (the tree). */
static void start_entity(struct dstate *d, bool gpu, struct gd_slice id)
{
	struct gd_u64 n;

	end_incident(d);
	d->entity_gpu = gpu;
	d->entity = ofl_u64(id, NULL, 1, &n) == OFL_SET && n.v < MAX_GPUS ? (int)n.v : -1;
}

/* nv-hostengine's log line of an incident (modules/health/DcgmHealthWatch.cpp):
 *   ERROR [1514002:1514004] [[Health]] Detected a WARNING in health system
 *   Thermal: 'Detected clocks event due to thermal violation in GPU 2. ...'
 * The GPU is the one the message names.  True when l is one. */
static bool hostengine_line(struct dstate *d, struct gd_slice l, size_t ln)
{
	static const char head[] = "[[Health]] Detected a ", in_sys[] = " in health system ";
	const char *h = memmem(l.p, l.n, head, sizeof head - 1), *e = l.p + l.n, *a, *sys, *colon, *q;
	struct gd_slice level, msg;

	if (!h)
		return false;
	level.p = h + sizeof head - 1;
	if (!(a = memmem(level.p, (size_t)(e - level.p), in_sys, sizeof in_sys - 1)))
		return false;
	level.n = (size_t)(a - level.p);
	sys = a + sizeof in_sys - 1;
	if (!(colon = memchr(sys, ':', (size_t)(e - sys))))
		return false;
	q = memchr(colon, '\'', (size_t)(e - colon));
	msg = q ? (struct gd_slice){ q + 1, (size_t)(e - q - 1) } : (struct gd_slice){ colon + 1, (size_t)(e - colon - 1) };
	/* the closing quote, and what a paste put after it (a backtick) */
	while (msg.n && (msg.p[msg.n - 1] == '\'' || msg.p[msg.n - 1] == '`' || msg.p[msg.n - 1] == ' '))
		msg.n--;
	start_incident(d, (struct gd_slice){ sys, (size_t)(colon - sys) },
		       ofl_ieq(level, "WARNING") ? 1 : ofl_ieq(level, "FAILURE") ? 2 : 0, gd_tok_trim(msg), ln);
	d->entity_gpu = true;
	d->entity = gpu_named(d->msg);
	end_incident(d);
	return true;
}

/* One row of the health report's box; true when it belongs to it. */
static bool health_row(struct dstate *d, struct gd_slice l, size_t ln)
{
	struct gd_slice name, v, sec, system, msg;
	size_t width;
	int level;

	if (!cells(l, &name, &v, &width))
		return false;
	if (section(name, &sec) || l.p[0] == '+' || (name.n && name.p[0] == '='))
		return end_incident(d), true;
	if (ofl_contains(name, "Health Monitor Report") || ofl_ieq(name, "Overall Health") ||
	    gd_tok_prefix(v, "Overall Health"))
		return true;
	if (gd_tok_prefix(name, "GPU ID:") || gd_tok_prefix(name, "Switch ID:")) {
		const char *c = memchr(name.p, ':', name.n);

		start_entity(d, name.p[0] == 'G', gd_tok_trim((struct gd_slice){ c + 1, (size_t)(name.p + name.n - c - 1) }));
		return true;
	}
	if (gd_tok_prefix(name, "->")) {
		struct gd_slice t = gd_tok_trim((struct gd_slice){ name.p + 2, name.n - 2 });

		if (t.n && t.p[0] >= '0' && t.p[0] <= '9')
			start_entity(d, d->entity_gpu, t);
		else if (!ofl_ieq(t, "Errors"))
			start_incident(d, t, level_of(v), (struct gd_slice){ v.p + v.n, 0 }, ln);
		return true;
	}
	if (name.n) {
		/* a group of entities: "GPU", "Switch", "CPU", "ConnectX" */
		end_incident(d);
		d->entity_gpu = ofl_ieq(name, "GPU");
		d->entity = -1;
		return true;
	}
	if (incident_head(v, &system, &level, &msg)) {
		start_incident(d, system, level, msg, ln);
	} else if (d->incident && v.n) {
		size_t n = strlen(d->msg);

		snprintf(d->msg + n, sizeof d->msg - n, "%s%.*s", n ? " " : "", OFL_SL(v));
		if (!n)
			d->msg_line = ln;
	}
	return true;
}

int gd_parse_dcgmi(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct dstate d;
	struct gd_lines it;
	struct gd_slice l;
	int rc;

	memset(&d, 0, sizeof d);
	d.s = s;
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &l)) {
		l = ofl_chomp(l);
		if (gd_tok_is_binary(l.p, l.n)) {
			gd_tok_tally_skip(&d.t, it.lineno, _("binary bytes"));
			continue;
		}
		l = gd_tok_trim(l);
		if (!l.n)
			continue;
		if (hostengine_line(&d, l, it.lineno)) {
			d.known++;
			continue;
		}
		if (ofl_contains(l, "Health Monitor Report")) {
			end_test(&d, it.lineno);
			end_incident(&d);
			d.in_health = true;
			d.entity_gpu = true;
			d.entity = -1;
		}
		if (d.in_health && !gd_tok_prefix(l, "| Diagnostic ")) {
			if (health_row(&d, l, it.lineno) || health_line(l)) {
				d.known++;
				continue;
			}
			end_incident(&d);
			d.in_health = false;
		}
		if (diag_line(&d, l, it.lineno) || dmon_header(&d, l)) {
			d.known++;
			continue;
		}
		if (d.ncols && (ofl_ieq(l, "ID") || ofl_ieq(l, "Id"))) {
			d.known++;
			continue;
		}
		if (d.ncols && dmon_row(&d, l, it.lineno)) {
			d.known++;
			continue;
		}
		if (health_line(l))
			d.known++;
	}
	end_test(&d, it.lineno);
	end_incident(&d);
	if (!d.known)
		return gd_err_set(err, -EINVAL, _("no dcgmi diag table, dmon header or health report in it"));
	if (s->gpus.n) {
		ofl_nvml_ok(s, "dcgmi dmon");
		gd_u64_set(&s->nvml.device_count, s->gpus.n);
	}
	rc = gd_tok_tally_result(&d.t, "dcgmi", err);
	if (rc == -ENODATA) {
		gd_err_clear(err);
		rc = 0;
	}
	return rc;
}

bool ofl_dcgmi_line(struct gd_slice l)
{
	struct gd_slice name, v, sec;
	size_t width;

	l = gd_tok_trim(l);
	if (gd_tok_prefix(l, "#Entity") || gd_tok_prefix(l, "# Entity") || ofl_contains(l, "Successfully ran diagnostic") ||
	    ofl_contains(l, "Health Monitor Report") || ofl_contains(l, "Health monitor systems set") ||
	    (ofl_contains(l, "[[Health]] Detected a ") && ofl_contains(l, " in health system ")))
		return true;
	if (!cells(l, &name, &v, &width))
		return false;
	if (section(name, &sec))
		return sec.n > 0;
	return (ofl_ieq(name, "Diagnostic") && ofl_ieq(v, "Result")) || gd_tok_prefix(v, "Pass - ") ||
	       gd_tok_prefix(v, "Fail - ") || gd_tok_prefix(v, "Skip - ") || ofl_ieq(name, "DCGM Version");
}
