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
 * [N/A] and [Not Supported] leave the field absent; unknown columns are
 * ignored.  Clock-event reasons come as the hex mask
 * (clocks_event_reasons.active, clocks_throttle_reasons.active) or one
 * Active/Not Active column per reason.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "offline/offline.h"
#include "offline/ofl.h"
#include "offline/split.h"

#define MAX_COLS 64

enum ctype { C_U64, C_F64, C_BOOL, C_STR, C_BUS, C_PSTATE, C_REASON_BIT, C_CMODE };

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
	{ "serial", C_STR, G(serial), NULL, 0, 0 },
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
	{ "power.draw|power.draw.average", C_F64, G(power_w), "W", 1, 0 },
	{ "power.limit|enforced.power.limit", C_F64, G(power_limit_w), "W", 1, 0 },
	{ "power.default_limit", C_F64, G(power_default_limit_w), "W", 1, 0 },
	{ "clocks.sm|clocks.current.sm", C_U64, G(sm_clock_mhz), "MHz", 1, 0 },
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
};

/* Finds the column description of a query name ("memory.used [MiB]"). */
static const struct col *col_of(struct gd_slice name)
{
	for (size_t i = 0; i < name.n; i++)
		if (name.p[i] == ' ' || name.p[i] == '[') {
			name.n = i;
			break;
		}
	name = gd_tok_trim(name);
	for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
		const char *p = cols[i].names;

		while (*p) {
			const char *e = strchr(p, '|');
			size_t n = e ? (size_t)(e - p) : strlen(p);

			if (n == name.n && strncmp(p, name.p, n) == 0)
				return &cols[i];
			p += n + (e ? 1 : 0);
		}
	}
	return NULL;
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
	return 0;
}

static void set_col(struct gd_snapshot *s, struct gd_gpu *g, const struct col *c, struct gd_slice v, size_t ln,
		    struct gd_tok_tally *t, struct gd_slice key)
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
		uint64_t x;

		if (v.n >= 2 && v.p[0] == 'P' && gd_tok_u64((struct gd_slice){ v.p + 1, v.n - 1 }, &x) && x <= 15)
			gd_u64_set((struct gd_u64 *)(void *)base, x);
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
	case C_REASON_BIT:
		r = ofl_bool(v, &b);
		if (r == OFL_SET) {
			g->clock_event_reasons.v |= b.v ? c->bit : 0;
			g->clock_event_reasons.ok = true;
		}
		break;
	}
	if (r == OFL_BAD)
		gd_tok_tally_skip(t, ln, "a value that does not fit its column");
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
		gd_tok_tally_skip(t, ln, "a compute-apps row without a pid");
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

/* True when the fields are a header: some name gpudoctor knows, or "pid". */
static bool is_header(const struct gd_slice *f, size_t n, bool *apps)
{
	size_t known = 0;

	*apps = false;
	for (size_t i = 0; i < n; i++) {
		struct gd_slice k = f[i];

		for (size_t j = 0; j < k.n; j++)
			if (k.p[j] == ' ' || k.p[j] == '[')
				k.n = j;
		known += col_of(f[i]) != NULL;
		if (ofl_ieq(k, "pid"))
			*apps = true;
	}
	return known || *apps;
}

int gd_parse_nvsmi_csv(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_slice names[MAX_COLS], f[MAX_COLS], line;
	const struct col *map[MAX_COLS];
	struct gd_tok_tally t = { 0, 0, 0, NULL };
	struct gd_lines it;
	size_t ncols = 0;
	bool apps = false, from_cmd = false, data = false;
	int rc;

	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		size_t n;
		bool a2;
		struct gd_gpu *g, tmp;

		line = gd_tok_trim(ofl_chomp(line));
		if (!line.n)
			continue;
		if (gd_tok_is_binary(line.p, line.n)) {
			gd_tok_tally_skip(&t, it.lineno, "binary bytes");
			continue;
		}
		if (!ncols && (ncols = names_from_command(line, names, MAX_COLS, &apps)) > 0) {
			ncols = ncols > MAX_COLS ? MAX_COLS : ncols;
			from_cmd = true;
			continue;
		}
		n = split_csv(line, f, MAX_COLS);
		n = n > MAX_COLS ? MAX_COLS : n;
		if ((!ncols || (from_cmd && !data)) && is_header(f, n, &a2)) {
			memcpy(names, f, n * sizeof *f);
			ncols = n;
			apps = a2;
			from_cmd = false;
			continue;
		}
		if (!ncols)
			return gd_err_set(err, -EINVAL, "line %zu: CSV without a header naming its columns (paste the "
					  "header, or the nvidia-smi --query-gpu=... command line before the values)",
					  it.lineno);
		if (!data) {
			size_t known = 0;

			for (size_t i = 0; i < ncols; i++)
				known += (map[i] = col_of(names[i])) != NULL;
			if (!known && !apps)
				return gd_err_set(err, -EINVAL, "line %zu: none of the CSV columns is one gpudoctor reads",
						  it.lineno);
			data = true;
		}
		if (n != ncols) {
			gd_tok_tally_skip(&t, it.lineno, "a row with another number of fields than the header");
			continue;
		}
		if (apps) {
			app_row(s, names, f, n, it.lineno, &t);
			continue;
		}
		/* read the row into a scratch record, then add it unless the GPU is known */
		memset(&tmp, 0, sizeof tmp);
		for (size_t i = 0; i < n; i++)
			if (map[i])
				set_col(s, &tmp, map[i], f[i], it.lineno, &t, names[i]);
		g = ofl_gpu_find(s, tmp.uuid, tmp.pci_bus_id);
		if (!g) {
			g = GD_PUSH(s, gpus, struct gd_gpu);
			*g = tmp;
			if (!g->index.ok)
				gd_u64_set(&g->index, s->gpus.n - 1);
		}
		t.parsed++;
	}
	if (!ncols)
		return gd_err_set(err, -ENODATA, "empty: nvidia-smi csv");
	if (!apps) {
		ofl_nvml_ok(s, "nvidia-smi --query-gpu");
		gd_u64_set(&s->nvml.device_count, s->gpus.n);
	}
	rc = gd_tok_tally_result(&t, "nvidia-smi csv", err);
	if (rc == -ENODATA) {
		gd_err_clear(err);
		rc = 0;
	}
	return rc;
}

bool ofl_csv_header(struct gd_slice line)
{
	struct gd_slice f[MAX_COLS];
	size_t n = split_csv(line, f, MAX_COLS);
	bool apps;

	return is_header(f, n > MAX_COLS ? MAX_COLS : n, &apps);
}
