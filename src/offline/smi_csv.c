/*
 * smi_csv.c - `nvidia-smi --query-gpu=FIELDS --format=csv[,noheader][,nounits]`
 * (and --query-compute-apps) into gpus[] and gpu_procs[].
 *
 *     index, name, pci.bus_id, utilization.gpu [%], memory.used [MiB], temperature.gpu
 *     0, NVIDIA A100-SXM4-80GB, 00000000:07:00.0, 98 %, 40000 MiB, 71
 *     1, NVIDIA A100-SXM4-80GB, 00000000:0F:00.0, [N/A], 812 MiB, 33
 *
 * The header names the columns ("name [unit]"); values carry the unit unless
 * nounits was given.  Without a header the columns are only known from the
 * command line, so a paste whose first line is the command
 * ("$ nvidia-smi --query-gpu=index,name,... --format=csv,noheader") is read
 * with those names; headerless CSV without it is rejected with that advice.
 * [N/A] and [Not Supported] leave the field absent.  Fields of nvidia-smi
 * that no rule reads are known and not stored; a column of any other name
 * (a newer driver's field, a typo) is ignored with a note: the part reads
 * as partial, naming the first header that has such columns.  Clock-event
 * reasons come as the hex mask (clocks_event_reasons.active,
 * clocks_throttle_reasons.active) or one Active/Not Active column per
 * reason.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "offline/offline.h"
#include "offline/ofl.h"
#include "offline/split.h"

#define MAX_COLS 64

enum ctype {
	C_U64, C_F64, C_BOOL, C_STR, C_BUS, C_PSTATE, C_REASON_BIT, C_CMODE,
	C_RECOVERY,   /* gpu_recovery_action: None, Reset, Reboot, Drain P2P, Drain and Reset */
	C_RESET,      /* reset_status.reset_required */
	C_DRAIN,      /* reset_status.drain_and_reset_recommended */
	C_IGNORE,     /* a field nvidia-smi prints that no rule reads: known, not stored */
};

struct col {
	const char *names;   /* '|'-separated query names */
	enum ctype type;
	size_t off;          /* in struct gd_gpu */
	size_t size;
	const char *unit;
	uint64_t scale;
	uint64_t bit;        /* C_REASON_BIT */
};

#define G(f) offsetof(struct gd_gpu, f), sizeof(((struct gd_gpu *)0)->f)

static const struct col cols[] = {
	{ "index", C_U64, G(index), NULL, 1, 0 },
	{ "name|gpu_name", C_STR, G(name), NULL, 0, 0 },
	{ "uuid|gpu_uuid", C_STR, G(uuid), NULL, 0, 0 },
	{ "serial|gpu_serial", C_STR, G(serial), NULL, 0, 0 },
	{ "pci.bus_id|gpu_bus_id", C_BUS, G(pci_bus_id), NULL, 0, 0 },
	{ "persistence_mode", C_BOOL, G(persistence_mode), NULL, 0, 0 },
	{ "compute_mode", C_CMODE, G(compute_mode), NULL, 0, 0 },
	{ "mig.mode.current", C_BOOL, G(mig_mode), NULL, 0, 0 },
	{ "temperature.gpu", C_F64, G(temp_c), "C", 1, 0 },
	{ "fan.speed", C_U64, G(fan_pct), "%", 1, 0 },
	{ "utilization.gpu", C_U64, G(util_gpu_pct), "%", 1, 0 },
	{ "utilization.memory", C_U64, G(util_mem_pct), "%", 1, 0 },
	{ "memory.total", C_U64, G(mem_total_bytes), "MiB", 1048576, 0 },
	{ "memory.used", C_U64, G(mem_used_bytes), "MiB", 1048576, 0 },
	{ "power.draw|power.draw.average|power.draw.instant", C_F64, G(power_w), "W", 1, 0 },
	{ "power.limit|enforced.power.limit", C_F64, G(power_limit_w), "W", 1, 0 },
	{ "power.default_limit", C_F64, G(power_default_limit_w), "W", 1, 0 },
	{ "clocks.sm|clocks.current.sm|clocks.gr|clocks.current.graphics", C_U64, G(sm_clock_mhz), "MHz", 1, 0 },
	{ "clocks.max.sm|clocks.max.gr|clocks.max.graphics", C_U64, G(sm_clock_max_mhz), "MHz", 1, 0 },
	{ "clocks.mem|clocks.current.memory", C_U64, G(mem_clock_mhz), "MHz", 1, 0 },
	{ "clocks.max.mem|clocks.max.memory", C_U64, G(mem_clock_max_mhz), "MHz", 1, 0 },
	{ "clocks.applications.graphics|clocks.applications.gr", C_U64, G(app_sm_clock_mhz), "MHz", 1, 0 },
	{ "pstate", C_PSTATE, G(pstate), NULL, 0, 0 },
	{ "clocks_event_reasons.active|clocks_throttle_reasons.active", C_U64, G(clock_event_reasons), NULL, 1, 0 },
	{ "pcie.link.gen.current|pcie.link.gen.gpucurrent", C_U64, G(pcie_gen), NULL, 1, 0 },
	{ "pcie.link.gen.max|pcie.link.gen.gpumax", C_U64, G(pcie_gen_max), NULL, 1, 0 },
	{ "pcie.link.width.current", C_U64, G(pcie_width), NULL, 1, 0 },
	{ "pcie.link.width.max", C_U64, G(pcie_width_max), NULL, 1, 0 },
	{ "ecc.mode.current", C_BOOL, G(ecc_mode), NULL, 0, 0 },
	{ "ecc.errors.corrected.volatile.total", C_U64, G(ecc_corrected_volatile), NULL, 1, 0 },
	{ "ecc.errors.uncorrected.volatile.total", C_U64, G(ecc_uncorrected_volatile), NULL, 1, 0 },
	{ "ecc.errors.corrected.aggregate.total", C_U64, G(ecc_corrected_aggregate), NULL, 1, 0 },
	{ "ecc.errors.uncorrected.aggregate.total", C_U64, G(ecc_uncorrected_aggregate), NULL, 1, 0 },
	{ "ecc.errors.uncorrected.volatile.sram", C_U64, G(ecc_uncorrected_volatile_sram), NULL, 1, 0 },
	{ "ecc.errors.uncorrected.volatile.dram|ecc.errors.uncorrected.volatile.device_memory", C_U64,
	  G(ecc_uncorrected_volatile_dram), NULL, 1, 0 },
	{ "ecc.errors.uncorrected.aggregate.sram", C_U64, G(ecc_uncorrected_aggregate_sram), NULL, 1, 0 },
	{ "ecc.errors.uncorrected.aggregate.dram|ecc.errors.uncorrected.aggregate.device_memory", C_U64,
	  G(ecc_uncorrected_aggregate_dram), NULL, 1, 0 },
	{ "gpu_recovery_action", C_RECOVERY, G(recovery_action), NULL, 0, 0 },
	{ "reset_status.reset_required", C_RESET, G(recovery_action), NULL, 0, 0 },
	{ "reset_status.drain_and_reset_recommended", C_DRAIN, G(recovery_action), NULL, 0, 0 },
	{ "retired_pages.single_bit_ecc.count|retired_pages.sbe", C_U64, G(retired_pages_sbe), NULL, 1, 0 },
	{ "retired_pages.double_bit.count|retired_pages.dbe", C_U64, G(retired_pages_dbe), NULL, 1, 0 },
	{ "retired_pages.pending", C_BOOL, G(retired_pages_pending), NULL, 0, 0 },
	{ "remapped_rows.correctable", C_U64, G(remap_corrected), NULL, 1, 0 },
	{ "remapped_rows.uncorrectable", C_U64, G(remap_uncorrected), NULL, 1, 0 },
	{ "remapped_rows.pending", C_BOOL, G(remap_pending), NULL, 0, 0 },
	{ "remapped_rows.failure", C_BOOL, G(remap_failure), NULL, 0, 0 },
	{ "clocks_event_reasons.gpu_idle|clocks_throttle_reasons.gpu_idle", C_REASON_BIT, G(clock_event_reasons), NULL, 0, 0x1 },
	{ "clocks_event_reasons.applications_clocks_setting|clocks_throttle_reasons.applications_clocks_setting", C_REASON_BIT, G(clock_event_reasons), NULL, 0, 0x2 },
	{ "clocks_event_reasons.sw_power_cap|clocks_throttle_reasons.sw_power_cap", C_REASON_BIT, G(clock_event_reasons), NULL, 0, 0x4 },
	{ "clocks_event_reasons.hw_slowdown|clocks_throttle_reasons.hw_slowdown", C_REASON_BIT, G(clock_event_reasons), NULL, 0, 0x8 },
	{ "clocks_event_reasons.sync_boost|clocks_throttle_reasons.sync_boost", C_REASON_BIT, G(clock_event_reasons), NULL, 0, 0x10 },
	{ "clocks_event_reasons.sw_thermal_slowdown|clocks_throttle_reasons.sw_thermal_slowdown", C_REASON_BIT, G(clock_event_reasons), NULL, 0, 0x20 },
	{ "clocks_event_reasons.hw_thermal_slowdown|clocks_throttle_reasons.hw_thermal_slowdown", C_REASON_BIT, G(clock_event_reasons), NULL, 0, 0x40 },
	{ "clocks_event_reasons.hw_power_brake_slowdown|clocks_throttle_reasons.hw_power_brake_slowdown", C_REASON_BIT, G(clock_event_reasons), NULL, 0, 0x80 },
	/* Fields of nvidia-smi --help-query-gpu that no rule reads: known, so a
	 * header of them is nvidia-smi's, and not stored.  A name ending in
	 * ".*" stands for its whole family and for the family's own name
	 * ("ecc.errors", which --query-gpu takes for all of them), looked up
	 * after the exact names.  tests/nvidia/smi.sh checks every name of
	 * NVIDIA's 535 binary against this table (clocks_event_reason.* is
	 * NVIDIA's own singular spelling there). */
	{ "timestamp|driver_version|count|vbios_version|compute_cap|display_mode|display_active|"
	  "addressing_mode|memory.free|memory.reserved|clocks_event_reasons.supported|"
	  "clocks_throttle_reasons.supported|ecc.mode.pending|mig.mode.pending|power.management|"
	  "temperature.memory|temperature.gpu.tlimit|power.min_limit|power.max_limit|clocks.video|"
	  "clocks.max.video|utilization.encoder|utilization.decoder|utilization.jpeg|utilization.ofa|"
	  "inforom.*|gom.*|accounting.*|driver_model.*|pci.*|pcie.*|encoder.stats.*|fbc.stats.*|"
	  "clocks.default_applications.*|clocks.applications.*|clocks.max.*|clocks.*|clocks_event_reasons.*|"
	  "clocks_throttle_reasons.*|clocks_event_reasons_counters.*|ecc.errors.*|retired_pages.*|"
	  "remapped_rows.*|fabric.*|gpu_operation_mode.*|reset_status.*|protected_memory.*|platform.*|"
	  "temperature.*|power.*|enforced.*|memory.*|utilization.*|mig.*|fan.*|ecc.mode.*|gsp.mode.*|"
	  "clocks_event_reason.*|vgpu_driver_capability.*|vgpu_device_capability.*",
	  C_IGNORE, 0, 0, NULL, 0, 0 },
};

const char *gd_nvsmi_csv_names(size_t i)
{
	return i < sizeof cols / sizeof cols[0] ? cols[i].names : NULL;
}

/* A header's column name without its unit: "memory.used [MiB]" -> "memory.used". */
static struct gd_slice bare_name(struct gd_slice name)
{
	for (size_t i = 0; i < name.n; i++)
		if (name.p[i] == ' ' || name.p[i] == '[') {
			name.n = i;
			break;
		}
	return gd_tok_trim(name);
}

/* Finds the column description of a query name ("memory.used [MiB]"). */
static const struct col *col_find(struct gd_slice name, bool families)
{
	name = bare_name(name);
	for (int family = 0; family < (families ? 2 : 1); family++)
		for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
			const char *p = cols[i].names;

			while (*p) {
				const char *e = strchr(p, '|');
				size_t n = e ? (size_t)(e - p) : strlen(p);
				bool fam = n > 2 && p[n - 1] == '*';

				if (!family && !fam && n == name.n && strncmp(p, name.p, n) == 0)
					return &cols[i];
				if (family && fam && name.n > n - 1 && strncmp(p, name.p, n - 1) == 0)
					return &cols[i];
				/* the family's own name: "ecc.errors" for "ecc.errors.*" */
				if (family && fam && name.n == n - 2 && strncmp(p, name.p, n - 2) == 0)
					return &cols[i];
				p += n + (e ? 1 : 0);
			}
		}
	return NULL;
}

static const struct col *col_of(struct gd_slice name)
{
	return col_find(name, true);
}

/* A known name that only nvidia-smi prints (not "timestamp", "count" or
 * "name" alone, which any CSV may have). */
static bool col_strong(struct gd_slice name, const struct col *c)
{
	if (!c)
		return false;
	if (c->type != C_IGNORE)
		return true;
	/* a family's own name ("inforom") is nvidia-smi's too */
	return memchr(name.p, '.', name.n) || memchr(name.p, '_', name.n) || !col_find(name, false);
}

/* Splits a CSV line at commas (nvidia-smi never quotes). */
static size_t split_csv(struct gd_slice line, struct gd_slice *f, size_t max)
{
	size_t n = 0, start = 0;

	for (size_t i = 0; i <= line.n; i++) {
		if (i < line.n && line.p[i] != ',')
			continue;
		if (n < max)
			f[n] = gd_tok_trim((struct gd_slice){ line.p + start, i - start });
		n++;
		start = i + 1;
	}
	return n;
}

/* "--query-gpu=a,b,c" in a command line: the column names. */
static size_t names_from_command(struct gd_slice line, struct gd_slice *names, size_t max, bool *apps)
{
	static const char *const keys[] = { "--query-gpu=", "--query-compute-apps=" };

	for (size_t k = 0; k < 2; k++) {
		size_t kl = strlen(keys[k]);

		for (size_t i = 0; i + kl <= line.n; i++) {
			size_t j;

			if (strncmp(line.p + i, keys[k], kl) != 0)
				continue;
			i += kl;
			if (i < line.n && (line.p[i] == '"' || line.p[i] == '\''))
				i++;
			for (j = i; j < line.n && line.p[j] != ' ' && line.p[j] != '"' && line.p[j] != '\''; j++)
				;
			*apps = k == 1;
			return split_csv((struct gd_slice){ line.p + i, j - i }, names, max);
		}
	}
	/* a command cut at the front by the poster ("gpu=memory.total,... --format=csv"):
	 * the word before --format=, after its '=' */
	if (memmem(line.p, line.n, "--format=csv", 12)) {
		const char *fmt = memmem(line.p, line.n, "--format=csv", 12), *w = fmt, *eq;

		while (w > line.p && w[-1] == ' ')
			w--;
		fmt = w;
		while (w > line.p && w[-1] != ' ')
			w--;
		eq = memchr(w, '=', (size_t)(fmt - w));
		if (eq && memchr(eq, ',', (size_t)(fmt - eq))) {
			*apps = false;
			return split_csv((struct gd_slice){ eq + 1, (size_t)(fmt - eq - 1) }, names, max);
		}
	}
	return 0;
}

/* What a row says beyond struct gd_gpu's fields, settled after the row. */
struct rowx {
	struct gd_u64 reset, drain; /* reset_status.* */
};

static void set_col(struct gd_snapshot *s, struct gd_gpu *g, struct rowx *x, const struct col *c, struct gd_slice v,
		    size_t ln, struct gd_tok_tally *t, struct gd_slice key)
{
	char *base = (char *)g + c->off;
	struct gd_u64 b = { 0, false };
	enum ofl_v r = OFL_SET;

	switch (c->type) {
	case C_U64:
		r = ofl_u64(v, c->unit, c->scale, (struct gd_u64 *)(void *)base);
		break;
	case C_F64:
		r = ofl_f64(v, c->unit, (double)c->scale, (struct gd_f64 *)(void *)base);
		break;
	case C_BOOL:
		r = ofl_bool(v, (struct gd_u64 *)(void *)base);
		break;
	case C_STR:
		r = ofl_str(v, base, c->size);
		break;
	case C_BUS:
		if (!ofl_bus_id(v, base, c->size))
			r = ofl_placeholder(v) ? OFL_ABSENT : OFL_BAD;
		break;
	case C_PSTATE: {
		uint64_t ps;

		if (v.n >= 2 && v.p[0] == 'P' && gd_tok_u64((struct gd_slice){ v.p + 1, v.n - 1 }, &ps) && ps <= 15)
			gd_u64_set((struct gd_u64 *)(void *)base, ps);
		else
			r = ofl_errval(v) ? OFL_ERRVAL : ofl_placeholder(v) ? OFL_ABSENT : OFL_BAD;
		break;
	}
	case C_CMODE: {
		static const char *const modes[] = { "Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process" };

		r = ofl_errval(v) ? OFL_ERRVAL : ofl_placeholder(v) ? OFL_ABSENT : OFL_BAD;
		for (uint64_t i = 0; i < 4; i++)
			if (ofl_ieq(v, modes[i])) {
				gd_u64_set(&g->compute_mode, i);
				r = OFL_SET;
			}
		break;
	}
	case C_RECOVERY: {
		static const char *const acts[] = { "None", "Reset", "Reboot", "Drain P2P", "Drain and Reset" };
		uint64_t x2;

		r = ofl_errval(v) ? OFL_ERRVAL : ofl_placeholder(v) ? OFL_ABSENT : OFL_BAD;
		for (uint64_t i = 0; i < 5; i++)
			if (ofl_ieq(v, acts[i]) || (i == 1 && ofl_ieq(v, "GPU Reset")) ||
			    (i == 2 && ofl_ieq(v, "Node Reboot")))
				r = OFL_SET, gd_u64_set(&g->recovery_action, i);
		if (r != OFL_SET && gd_tok_u64(v, &x2) && x2 <= 7)
			r = OFL_SET, gd_u64_set(&g->recovery_action, x2);
		break;
	}
	case C_RESET:
		r = ofl_bool(v, &x->reset);
		break;
	case C_DRAIN:
		r = ofl_bool(v, &x->drain);
		break;
	case C_IGNORE:
		break;
	case C_REASON_BIT:
		r = ofl_bool(v, &b);
		if (r == OFL_SET) {
			g->clock_event_reasons.v |= b.v ? c->bit : 0;
			g->clock_event_reasons.ok = true;
		}
		break;
	}
	if (r == OFL_BAD)
		gd_tok_tally_skip(t, ln, _("a value that does not fit its column"));
	else if (r == OFL_ERRVAL)
		ofl_note_errval(s, g->index.ok ? g->index.v : UINT64_MAX, "csv", "nvidia-smi csv", ln, key, v);
}

static void app_row(struct gd_snapshot *s, struct gd_slice *names, struct gd_slice *f, size_t n, size_t ln,
		    struct gd_tok_tally *t)
{
	struct gd_gpu_proc p;
	char bus[32] = "", uuid[64] = "";
	struct gd_gpu *g;

	memset(&p, 0, sizeof p);
	for (size_t i = 0; i < n; i++) {
		struct gd_slice k = names[i];

		for (size_t j = 0; j < k.n; j++)
			if (k.p[j] == ' ' || k.p[j] == '[')
				k.n = j;
		if (ofl_ieq(k, "pid"))
			ofl_u64(f[i], NULL, 1, &p.pid);
		else if (ofl_ieq(k, "used_memory") || ofl_ieq(k, "used_gpu_memory"))
			ofl_u64(f[i], "MiB", 1048576, &p.used_mem_bytes);
		else if (ofl_ieq(k, "gpu_bus_id"))
			ofl_bus_id(f[i], bus, sizeof bus);
		else if (ofl_ieq(k, "gpu_uuid"))
			ofl_str(f[i], uuid, sizeof uuid);
	}
	if (!p.pid.ok) {
		gd_tok_tally_skip(t, ln, _("a compute-apps row without a pid"));
		return;
	}
	g = ofl_gpu_find(s, uuid, bus);
	if (!g) {
		g = GD_PUSH(s, gpus, struct gd_gpu);
		gd_u64_set(&g->index, s->gpus.n - 1);
		GD_STRSET(g->pci_bus_id, bus);
		GD_STRSET(g->uuid, uuid);
	}
	p.gpu = g->index;
	*GD_PUSH(s, gpu_procs, struct gd_gpu_proc) = p;
	t->parsed++;
}

/* True when the fields are a header: some name only nvidia-smi prints, or
 * "pid" (--query-compute-apps). */
static bool is_header(const struct gd_slice *f, size_t n, bool *apps)
{
	size_t known = 0;

	*apps = false;
	for (size_t i = 0; i < n; i++) {
		struct gd_slice k = f[i];

		for (size_t j = 0; j < k.n; j++)
			if (k.p[j] == ' ' || k.p[j] == '[')
				k.n = j;
		known += col_strong(k, col_of(f[i]));
		if (ofl_ieq(k, "pid"))
			*apps = true;
	}
	return known || *apps;
}

/* The lines time(1) prints after the output ("real\t0m0,022s"): noise. */
static bool time_line(struct gd_slice l)
{
	static const char *const w[] = { "real", "user", "sys" };

	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(w[i]);

		if (l.n > n + 2 && strncmp(l.p, w[i], n) == 0 && (l.p[n] == ' ' || l.p[n] == '\t') &&
		    l.p[l.n - 1] == 's' && memchr(l.p + n, 'm', l.n - n))
			return true;
	}
	return false;
}

/* A line with commas that looks like a row, not prose between rows: most
 * of its fields are short values ("99 %", "NVIDIA A100-SXM4-80GB"), not
 * words of a sentence. */
static bool row_like(const struct gd_slice *f, size_t n)
{
	size_t values = 0;

	for (size_t i = 0; i < n; i++) {
		size_t blanks = 0;

		for (size_t j = 0; j < f[i].n; j++)
			blanks += f[i].p[j] == ' ';
		values += f[i].n <= 48 && blanks <= 2;
	}
	return n >= 2 && values * 2 > n;
}

/* The columns a part's rows have. */
struct header {
	struct gd_slice names[MAX_COLS];
	const struct col *map[MAX_COLS];
	size_t n;
	bool apps;
	bool loop; /* the command repeats the query (-l, --loop, -lms, --loop-ms) */
};

static void header_set(struct header *h, const struct gd_slice *names, size_t n, bool apps)
{
	h->n = n > MAX_COLS ? MAX_COLS : n;
	memcpy(h->names, names, h->n * sizeof *names);
	for (size_t i = 0; i < h->n; i++)
		h->map[i] = col_of(h->names[i]);
	h->apps = apps;
	h->loop = false;
}

/* A header line (the CSV's own, or the --query-gpu=... command line): its
 * columns in h, true; anything else false. */
static bool header_line(struct gd_slice line, struct header *h)
{
	struct gd_slice f[MAX_COLS];
	size_t n;
	bool apps = false;

	if ((n = names_from_command(line, f, MAX_COLS, &apps)) > 0) {
		header_set(h, f, n, apps);
		h->loop = memmem(line.p, line.n, "--loop", 6) || memmem(line.p, line.n, " -l ", 4) ||
			  memmem(line.p, line.n, " -lms", 5) || (line.n > 3 && memcmp(line.p + line.n - 3, " -l", 3) == 0);
		return true;
	}
	/* one column: only a whole line that is one exact name ("clocks_throttle_reasons.supported") */
	if (!memchr(line.p, ',', line.n)) {
		struct gd_slice k = line;

		for (size_t j = 0; j < k.n; j++)
			if (k.p[j] == ' ' || k.p[j] == '[')
				k.n = j;
		if (!(k.n == line.n || (line.p[line.n - 1] == ']' && k.p[k.n] == ' ')) || !col_find(k, true) ||
		    !col_strong(k, col_find(k, true)))
			return false;
	}
	n = split_csv(line, f, MAX_COLS);
	if (!is_header(f, n > MAX_COLS ? MAX_COLS : n, &apps))
		return false;
	header_set(h, f, n, apps);
	return true;
}

/* The columns of h that are no nvidia-smi field gpudoctor knows, into
 * names ("a, b, ..."; cut at its size), their count into *n and the header's
 * line into *line when there is one. */
static void unknown_note(const struct header *h, size_t lineno, char *names, size_t sz, size_t *line, size_t *n)
{
	size_t len = 0;

	*n = 0;
	for (size_t i = 0; i < h->n; i++) {
		struct gd_slice k = bare_name(h->names[i]);
		int w;

		if (h->map[i])
			continue;
		if (!k.n)
			continue;
		(*n)++;
		if (len + 1 >= sz)
			continue;
		w = snprintf(names + len, sz - len, "%s%.*s", len ? ", " : "", (int)(k.n > 48 ? 48 : k.n), k.p);
		len = w < 0 ? len : len + (size_t)w >= sz ? sz - 1 : len + (size_t)w;
	}
	if (*n)
		*line = lineno;
}

/* The next line worth reading, trimmed; false at the end. */
static bool next_line(struct gd_lines *it, struct gd_slice *line)
{
	while (gd_tok_line(it, line)) {
		*line = gd_tok_trim(ofl_chomp(*line));
		/* `row` (markdown inline code) and **row** (bold) as posted */
		while (line->n >= 2 && line->p[0] == '`' && line->p[line->n - 1] == '`')
			*line = gd_tok_trim((struct gd_slice){ line->p + 1, line->n - 2 });
		if (line->n >= 4 && line->p[0] == '*' && line->p[1] == '*' && line->p[line->n - 1] == '*' &&
		    line->p[line->n - 2] == '*')
			*line = gd_tok_trim((struct gd_slice){ line->p + 2, line->n - 4 });
		if (line->n)
			return true;
	}
	return false;
}

static void gpu_row(struct gd_snapshot *s, const struct header *h, struct gd_slice *f, size_t n, size_t ln,
		    struct gd_tok_tally *t)
{
	struct gd_gpu *g, tmp;
	struct rowx x;

	/* read the row into a scratch record, then add it unless the GPU is known */
	memset(&tmp, 0, sizeof tmp);
	memset(&x, 0, sizeof x);
	for (size_t i = 0; i < n; i++)
		if (h->map[i])
			set_col(s, &tmp, &x, h->map[i], f[i], ln, t, h->names[i]);
	if ((x.reset.ok || x.drain.ok) && !tmp.recovery_action.ok)
		gd_u64_set(&tmp.recovery_action, x.drain.ok && x.drain.v ? 4 : x.reset.ok && x.reset.v ? 1 : 0);
	/* only the SRAM and DRAM counts: their sum is the total */
	if (!tmp.ecc_uncorrected_volatile.ok && (tmp.ecc_uncorrected_volatile_sram.ok || tmp.ecc_uncorrected_volatile_dram.ok))
		gd_u64_set(&tmp.ecc_uncorrected_volatile,
			   tmp.ecc_uncorrected_volatile_sram.v + tmp.ecc_uncorrected_volatile_dram.v);
	if (!tmp.ecc_uncorrected_aggregate.ok &&
	    (tmp.ecc_uncorrected_aggregate_sram.ok || tmp.ecc_uncorrected_aggregate_dram.ok))
		gd_u64_set(&tmp.ecc_uncorrected_aggregate,
			   tmp.ecc_uncorrected_aggregate_sram.v + tmp.ecc_uncorrected_aggregate_dram.v);
	g = ofl_gpu_find(s, tmp.uuid, tmp.pci_bus_id);
	/* a query repeated (-l, --loop) prints the same GPUs again: the same
	 * index, or no identifier at all, is the same GPU, its latest row kept */
	if (!g && !tmp.uuid[0] && !tmp.pci_bus_id[0]) {
		GD_VEC_EACH(s->gpus, struct gd_gpu, o)
			if ((tmp.index.ok && o->index.ok && o->index.v == tmp.index.v) || (!tmp.index.ok && h->loop))
				g = o;
	}
	if (g && (tmp.index.ok || h->loop) && !tmp.uuid[0] && !tmp.pci_bus_id[0]) {
		if (!tmp.index.ok)
			tmp.index = g->index;
		*g = tmp;
	} else if (!g) {
		g = GD_PUSH(s, gpus, struct gd_gpu);
		*g = tmp;
		if (!g->index.ok)
			gd_u64_set(&g->index, s->gpus.n - 1);
	}
	t->parsed++;
}

/*
 * Two passes.  The first finds the first header (the CSV's header line or
 * the command line that names the columns): rows pasted above it have its
 * columns too.  The second reads every row with the columns of the header
 * above it (or the first one); a later header switches the columns (a
 * --query-compute-apps after a --query-gpu).  Prose between rows, time(1)'s
 * lines and a human's note after the last value are noise.
 */
int gd_parse_nvsmi_csv(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_slice f[MAX_COLS], line;
	struct gd_tok_tally t = { 0, 0, 0, NULL };
	struct gd_lines it;
	struct header h;
	bool any_gpu_cols = false, known;
	char unknown[200] = "";
	size_t unknown_line = 0, nunknown = 0;
	int rc;

	memset(&h, 0, sizeof h);
	gd_lines_init(&it, buf, len);
	while (next_line(&it, &line) && !h.n)
		if (!gd_tok_is_binary(line.p, line.n))
			header_line(line, &h);
	if (!h.n) {
		gd_lines_init(&it, buf, len);
		while (next_line(&it, &line) && gd_tok_is_binary(line.p, line.n))
			;
		return gd_err_set(err, -EINVAL, _("line %zu: CSV without a header naming its columns (paste the "
				    "header, or the nvidia-smi --query-gpu=... command line before the values)"),
				  it.lineno);
	}
	gd_lines_init(&it, buf, len);
	while (next_line(&it, &line)) {
		struct header h2;
		size_t n;

		if (gd_tok_is_binary(line.p, line.n)) {
			gd_tok_tally_skip(&t, it.lineno, _("binary bytes"));
			continue;
		}
		if (header_line(line, &h2)) {
			h = h2;
			if (!h.apps && !unknown_line)
				unknown_note(&h, it.lineno, unknown, sizeof unknown, &unknown_line, &nunknown);
			continue;
		}
		if (time_line(line) || (h.n > 1 && !memchr(line.p, ',', line.n)))
			continue;
		n = split_csv(line, f, MAX_COLS);
		n = n > MAX_COLS ? MAX_COLS : n;
		/* "1, Reset   <= GPU is unusable, reset required": a note with commas in it */
		if (n > h.n) {
			struct gd_slice cut = ofl_note_cut(line);
			struct gd_slice f2[MAX_COLS];
			size_t n2 = cut.n < line.n ? split_csv(cut, f2, MAX_COLS) : 0;

			if (n2 == h.n) {
				memcpy(f, f2, n2 * sizeof *f2);
				n = n2;
			}
		}
		if (n != h.n) {
			if (row_like(f, n))
				gd_tok_tally_skip(&t, it.lineno, _("a row with another number of fields than the header"));
			continue;
		}
		f[n - 1] = ofl_note_cut(f[n - 1]);
		known = h.apps;
		for (size_t i = 0; i < h.n; i++)
			known |= h.map[i] != NULL;
		if (!known)
			return gd_err_set(err, -EINVAL, _("line %zu: none of the CSV columns is one gpudoctor reads"),
					  it.lineno);
		if (h.apps) {
			app_row(s, h.names, f, n, it.lineno, &t);
			continue;
		}
		any_gpu_cols = true;
		gpu_row(s, &h, f, n, it.lineno, &t);
	}
	if (any_gpu_cols || !h.apps) {
		ofl_nvml_ok(s, "nvidia-smi --query-gpu");
		gd_u64_set(&s->nvml.device_count, s->gpus.n);
	}
	rc = gd_tok_tally_result(&t, "nvidia-smi csv", err);
	if (rc == -ENODATA) {
		gd_err_clear(err);
		rc = 0;
	}
	if (rc == 0 && nunknown && any_gpu_cols)
		rc = nunknown == 1
			     ? gd_err_set(err, 1, _("line %zu: a column gpudoctor does not know was ignored: %s"),
					  unknown_line, unknown)
			     : gd_err_set(err, 1, _("line %zu: %zu columns gpudoctor does not know were ignored: %s"),
					  unknown_line, nunknown, unknown);
	return rc;
}

bool ofl_csv_header(struct gd_slice line)
{
	struct header h;

	return header_line(line, &h);
}
