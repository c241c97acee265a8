/*
 * hostcmd.c - host commands people paste next to nvidia-smi: `df` (its
 * /dev/shm row: mem.shm_small), and `ibstat` or `ibv_devinfo` (the RDMA
 * ports' state, physical state and rate: net.rdma_down).
 *
 *   Filesystem      Size  Used Avail Use% Mounted on          df -h (-T adds Type)
 *   shm              64M     0   64M   0% /dev/shm
 *   Filesystem     1K-blocks    Used Available Use% Mounted on    df (-k, -m: 1M-blocks)
 *
 * A row is read from its right end: the mount point, Use%, Avail, Used,
 * Size; a file-system name too long for its column sits alone on the line
 * above.  Sizes are df -h's (1024-based: 64M is 64 MiB, "0" is none) or
 * the header's block size.  Only the /dev/shm row makes a record (shm[]:
 * mounted, size, used): it is what PyTorch's loader workers fill.
 *
 *   CA 'mlx5_0'                          ibstat
 *           Port 1:
 *                   State: Active
 *                   Physical state: LinkUp
 *                   Rate: 200
 *                   Link layer: InfiniBand
 *   hca_id: mlx5_12                      ibv_devinfo (-v adds phys_state)
 *                   port:   1
 *                           state:                  PORT_DOWN (1)
 *                           phys_state:             DISABLED (3)
 *                           link_layer:             Ethernet
 *
 * Each port becomes an ib_ports[] record as sysfs would give it: the state
 * code and name (4 ACTIVE), the physical state (5 LinkUp), the rate in
 * Gb/s.  A state word neither table knows leaves the field absent and makes
 * the output partial, naming the line.
 */
#include <errno.h>
#include <string.h>

#include "core/i18n.h"
#include "offline/offline.h"
#include "offline/ofl.h"
#include "offline/split.h"

/* ---- df ------------------------------------------------------------------- */

#define DF_MAX_FIELDS 12

/* A df header: "Filesystem" first, "Mounted on" last. */
static bool df_header(struct gd_slice t)
{
	return gd_tok_prefix(t, "Filesystem") && ofl_contains(t, "Mounted on") &&
	       (ofl_contains(t, "Size") || ofl_contains(t, "blocks"));
}

/* A df row: at least five fields, the last an absolute path, the one
 * before it a percentage ("0%") or "-". */
static bool df_row(struct gd_slice t, struct gd_slice *f, size_t *nf)
{
	size_t n = gd_tok_split(t, f, DF_MAX_FIELDS);
	struct gd_slice pct;

	*nf = n;
	if (n < 5 || n >= DF_MAX_FIELDS || f[n - 1].p[0] != '/')
		return false;
	pct = f[n - 2];
	return (pct.n >= 2 && pct.p[pct.n - 1] == '%' && pct.p[0] >= '0' && pct.p[0] <= '9') ||
	       (pct.n == 1 && pct.p[0] == '-');
}

bool ofl_df_line(struct gd_slice l)
{
	struct gd_slice t = gd_tok_trim(ofl_chomp(l)), f[DF_MAX_FIELDS];
	size_t n;

	return df_header(t) || df_row(t, f, &n);
}

/* "64M", "1.0G", "0", "12K", "2.5T", "512" (bytes) -> bytes; block counts
 * when unit is not 0. */
static bool df_size(struct gd_slice v, uint64_t block, uint64_t *out)
{
	static const char units[] = "KMGTPE";
	double x = 0, scale = 1, mult = 1;
	bool dot = false, any = false;
	size_t i = 0;

	for (; i < v.n && ((v.p[i] >= '0' && v.p[i] <= '9') || (v.p[i] == '.' && !dot)); i++) {
		if (v.p[i] == '.') {
			dot = true;
			continue;
		}
		any = true;
		if (dot) {
			scale /= 10;
			x += (v.p[i] - '0') * scale;
		} else {
			x = x * 10 + (v.p[i] - '0');
		}
		if (x > 1e15)
			return false;
	}
	if (!any)
		return false;
	if (block) {
		if (i != v.n || dot)
			return false;
		mult = (double)block;
	} else if (i < v.n) {
		const char *u = memchr(units, v.p[i] >= 'a' ? v.p[i] - 32 : v.p[i], sizeof units - 1);

		if (!u || i + 1 != v.n)
			return false;
		for (const char *k = units; k <= u; k++)
			mult *= 1024;
	}
	*out = (uint64_t)(x * mult + 0.5);
	return true;
}

int gd_parse_df(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice l, f[DF_MAX_FIELDS];
	uint64_t block = 0;
	size_t rows = 0, bad = 0, bad_line = 0, n;
	bool header = false, type = false;

	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &l)) {
		struct gd_slice t = gd_tok_trim(ofl_chomp(l));
		uint64_t size = 0, used = 0;
		struct gd_shm *m;

		if (df_header(t)) {
			header = true;
			type = ofl_contains(t, " Type ");
			block = ofl_contains(t, "1K-blocks") ? 1024 : ofl_contains(t, "1M-blocks") ? 1048576
				: ofl_contains(t, "512-blocks")	? 512
									: 0;
			continue;
		}
		if (!df_row(t, f, &n))
			continue;
		rows++;
		if (!gd_tok_eq(f[n - 1], "/dev/shm"))
			continue;
		if (!df_size(f[n - 5], block, &size) || !df_size(f[n - 4], block, &used)) {
			if (!bad++)
				bad_line = it.lineno;
			continue;
		}
		m = GD_PUSH(s, shm, struct gd_shm);
		gd_u64_set(&m->mounted, 1);
		gd_u64_set(&m->size_bytes, size);
		gd_u64_set(&m->used_bytes, used);
		if (type && n >= 7)
			gd_tok_copy(m->fstype, sizeof m->fstype, f[n - 6]);
	}
	if (!rows && !header)
		return gd_err_set(err, -ENODATA, _("no line of df output (Filesystem ... Mounted on, or a row ending "
						   "in a mount point) in it"));
	if (bad)
		return gd_err_set(err, 1, _("line %zu: the /dev/shm row's size is not a df size (64M, 1.0G, or blocks)"),
				  bad_line);
	return 0;
}

/* ---- ibstat, ibv_devinfo ------------------------------------------------- */

/* Port states (IBTA PortInfo PortState) as sysfs names them; ibstat's and
 * ibv_devinfo's words for each. */
static const struct {
	unsigned code;
	const char *sysfs, *ibstat, *verbs;
} port_states[] = {
	{ 1, "DOWN", "Down", "PORT_DOWN" },
	{ 2, "INIT", "Initializing", "PORT_INIT" },
	{ 3, "ARMED", "Armed", "PORT_ARMED" },
	{ 4, "ACTIVE", "Active", "PORT_ACTIVE" },
	{ 5, "ACTIVE_DEFER", "ActiveDefer", "PORT_ACTIVE_DEFER" },
};

/* Physical states (PortPhysicalState). */
static const struct {
	unsigned code;
	const char *sysfs, *ibstat, *verbs;
} phys_states[] = {
	{ 1, "Sleep", "Sleep", "SLEEP" },
	{ 2, "Polling", "Polling", "POLLING" },
	{ 3, "Disabled", "Disabled", "DISABLED" },
	{ 4, "PortConfigurationTraining", "PortConfigurationTraining", "PORT_CONFIGURATION_TRAINING" },
	{ 5, "LinkUp", "LinkUp", "LINK_UP" },
	{ 6, "LinkErrorRecovery", "LinkErrorRecovery", "LINK_ERROR_RECOVERY" },
	{ 7, "PhyTest", "PhyTest", "PHY_TEST" },
};

/* The state of v ("Active", "PORT_DOWN (1)"): code and sysfs name. */
static bool state_of(struct gd_slice v, bool phys, struct gd_u64 *code, char *name, size_t namesz)
{
	struct gd_slice w = v;
	size_t n = phys ? sizeof phys_states / sizeof phys_states[0] : sizeof port_states / sizeof port_states[0];

	for (size_t i = 0; i < w.n; i++)
		if (w.p[i] == ' ' || w.p[i] == '(') {
			w.n = i;
			break;
		}
	for (size_t i = 0; i < n; i++) {
		const char *a = phys ? phys_states[i].ibstat : port_states[i].ibstat;
		const char *b = phys ? phys_states[i].verbs : port_states[i].verbs;
		const char *c = phys ? phys_states[i].sysfs : port_states[i].sysfs;

		if (ofl_ieq(w, a) || ofl_ieq(w, b) || ofl_ieq(w, c)) {
			gd_u64_set(code, phys ? phys_states[i].code : port_states[i].code);
			gd_strlcpy(name, c, namesz);
			return true;
		}
	}
	return false;
}

bool ofl_ibstat_line(struct gd_slice l)
{
	struct gd_slice t = gd_tok_trim(ofl_chomp(l));

	return (gd_tok_prefix(t, "CA '") && t.p[t.n - 1] == '\'') || gd_tok_prefix(t, "hca_id:") ||
	       gd_tok_prefix(t, "Physical state:") || gd_tok_prefix(t, "phys_state:") ||
	       (gd_tok_prefix(t, "state:") && ofl_contains(t, "PORT_"));
}

int gd_parse_ibstat(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice l, k, v;
	char dev[32] = "";
	struct gd_ib_port *p = NULL;
	size_t ports = 0, bad = 0, bad_line = 0;
	uint64_t n;

	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &l)) {
		struct gd_slice t = gd_tok_trim(ofl_chomp(l));

		if (gd_tok_prefix(t, "CA '") && t.n > 5 && t.p[t.n - 1] == '\'') {
			gd_tok_copy(dev, sizeof dev, (struct gd_slice){ t.p + 4, t.n - 5 });
			p = NULL;
			continue;
		}
		if (!gd_tok_kv(t, ':', &k, &v))
			continue;
		k = gd_tok_trim(k);
		v = gd_tok_trim(v);
		if (gd_tok_eq(k, "hca_id")) {
			gd_tok_copy(dev, sizeof dev, v);
			p = NULL;
			continue;
		}
		/* ibstat's "Port 1:" (the value empty), ibv_devinfo's "port:   1" */
		if ((gd_tok_prefix(k, "Port ") && !v.n && gd_tok_u64(gd_tok_trim((struct gd_slice){ k.p + 5, k.n - 5 }), &n)) ||
		    (gd_tok_eq(k, "port") && gd_tok_u64(v, &n))) {
			if (!dev[0])
				continue;
			p = GD_PUSH(s, ib_ports, struct gd_ib_port);
			GD_STRSET(p->device, dev);
			gd_u64_set(&p->port, n);
			ports++;
			continue;
		}
		if (!p)
			continue;
		if (gd_tok_eq(k, "State") || gd_tok_eq(k, "state")) {
			if (!state_of(v, false, &p->state, p->state_name, sizeof p->state_name) && !bad++)
				bad_line = it.lineno;
		} else if (gd_tok_eq(k, "Physical state") || gd_tok_eq(k, "phys_state")) {
			if (!state_of(v, true, &p->phys_state, p->phys_state_name, sizeof p->phys_state_name) && !bad++)
				bad_line = it.lineno;
		} else if (gd_tok_eq(k, "Rate")) {
			double r;

			if (gd_tok_f64(v, &r) && r >= 0)
				gd_f64_set(&p->rate_gbps, r);
			else if (!bad++)
				bad_line = it.lineno;
		} else if (gd_tok_eq(k, "Link layer") || gd_tok_eq(k, "link_layer")) {
			gd_tok_copy(p->link_layer, sizeof p->link_layer, v);
		}
	}
	if (!ports)
		return gd_err_set(err, -ENODATA, _("no RDMA port (ibstat's CA '...' and Port N:, or ibv_devinfo's hca_id: "
						   "and port:) in it"));
	if (bad)
		return gd_err_set(err, 1, _("line %zu: a port state, physical state or rate ibstat and ibv_devinfo do "
					    "not print (%zu in all)"),
				  bad_line, bad);
	return 0;
}

/* ---- nvidia-smi nvlink -s, -e ------------------------------------------- */

/*
 *   GPU 3: Tesla V100-SXM2-32GB (UUID: GPU-...)      nvidia-smi nvlink -s
 *            Link 0: 25.781 GB/s
 *            Link 3: <inactive>
 *   GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-...)     nvidia-smi nvlink -e
 *            Link 0: Replay Errors: 0
 *            Link 0: Recovery Errors: 0
 *            Link 0: CRC Errors: 0                  (or CRC Flit / CRC Data Errors)
 *
 * A GPU's record (gpus[]: index, name, UUID) gets nvlink_links and
 * nvlink_up_links from -s, and nvlink_errors, the sum of its links'
 * counters since they were last reset, from -e.
 */

/* "GPU 3: Tesla V100-SXM2-32GB (UUID: GPU-...)" -> the GPU's record. */
static struct gd_gpu *nvlink_gpu(struct gd_snapshot *s, struct gd_slice t)
{
	struct gd_slice rest, name;
	const char *colon = memchr(t.p, ':', t.n), *uu;
	uint64_t idx;
	struct gd_gpu *g;
	char uuid[sizeof g->uuid] = "";

	if (!gd_tok_prefix(t, "GPU ") || !colon || !gd_tok_u64(gd_tok_trim((struct gd_slice){ t.p + 4, (size_t)(colon - t.p - 4) }), &idx))
		return NULL;
	rest = gd_tok_trim((struct gd_slice){ colon + 1, (size_t)(t.p + t.n - colon - 1) });
	name = rest;
	if ((uu = memmem(rest.p, rest.n, "(UUID: ", 7))) {
		const char *e = memchr(uu, ')', (size_t)(rest.p + rest.n - uu));

		name = gd_tok_trim((struct gd_slice){ rest.p, (size_t)(uu - rest.p) });
		if (e)
			gd_tok_copy(uuid, sizeof uuid, gd_tok_trim((struct gd_slice){ uu + 7, (size_t)(e - uu - 7) }));
	}
	GD_VEC_EACH(s->gpus, struct gd_gpu, o)
		if (o->index.ok && o->index.v == idx)
			return o;
	g = GD_PUSH(s, gpus, struct gd_gpu);
	gd_u64_set(&g->index, idx);
	gd_tok_copy(g->name, sizeof g->name, name);
	GD_STRSET(g->uuid, uuid);
	return g;
}

bool ofl_nvlink_line(struct gd_slice l)
{
	struct gd_slice t = gd_tok_trim(ofl_chomp(l));
	const char *c;

	if (!gd_tok_prefix(t, "Link ") || !(c = memchr(t.p, ':', t.n)))
		return false;
	return memmem(c, (size_t)(t.p + t.n - c), "GB/s", 4) || memmem(c, (size_t)(t.p + t.n - c), "<inactive>", 10) ||
	       memmem(c, (size_t)(t.p + t.n - c), " Errors: ", 9);
}

int gd_parse_nvlink(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_lines it;
	struct gd_slice l;
	struct gd_gpu *g = NULL;
	size_t links = 0, bad = 0, bad_line = 0;
	uint64_t last_link = UINT64_MAX;

	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &l)) {
		struct gd_slice t = gd_tok_trim(ofl_chomp(l)), num, v;
		const char *c;
		struct gd_gpu *ng;
		uint64_t link, n;

		if ((ng = nvlink_gpu(s, t))) {
			g = ng;
			last_link = UINT64_MAX;
			continue;
		}
		if (!g || !ofl_nvlink_line(t))
			continue;
		c = memchr(t.p, ':', t.n);
		num = gd_tok_trim((struct gd_slice){ t.p + 5, (size_t)(c - t.p - 5) });
		v = gd_tok_trim((struct gd_slice){ c + 1, (size_t)(t.p + t.n - c - 1) });
		if (!gd_tok_u64(num, &link)) {
			if (!bad++)
				bad_line = it.lineno;
			continue;
		}
		links++;
		if (memmem(v.p, v.n, " Errors: ", 9) || gd_tok_prefix(v, "Errors: ")) {
			const char *e = memmem(v.p, v.n, "Errors: ", 8);
			struct gd_slice cnt = gd_tok_trim((struct gd_slice){ e + 8, (size_t)(v.p + v.n - e - 8) });

			if (!gd_tok_u64(cnt, &n)) {
				if (!ofl_placeholder(cnt) && !bad++)
					bad_line = it.lineno;
				continue;
			}
			gd_u64_set(&g->nvlink_errors, (g->nvlink_errors.ok ? g->nvlink_errors.v : 0) + n);
			continue;
		}
		/* -s: one line per link */
		if (link == last_link)
			continue;
		last_link = link;
		gd_u64_set(&g->nvlink_links, (g->nvlink_links.ok ? g->nvlink_links.v : 0) + 1);
		if (!g->nvlink_up_links.ok)
			gd_u64_set(&g->nvlink_up_links, 0);
		if (!memmem(v.p, v.n, "<inactive>", 10))
			g->nvlink_up_links.v++;
	}
	if (!links)
		return gd_err_set(err, -ENODATA, _("no NVLink line of nvidia-smi nvlink -s or -e (GPU N: ..., then Link N: "
						   "...) in it"));
	if (bad)
		return gd_err_set(err, 1, _("line %zu: an NVLink line whose link number or error count is not a number "
					    "(%zu in all)"),
				  bad_line, bad);
	return 0;
}
