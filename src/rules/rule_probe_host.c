/*
 * rule_probe_host.c - the host probes' rules: probe.storage_slow,
 * probe.small_files_slow, probe.host_mem_bandwidth_low, probe.power_headroom.
 *
 * They judge the results of src/probe/host_*.c (struct gd_probe_*_result),
 * not a window of snapshots: a probe is a measurement under load that no
 * passive sample gives.  So they are rows of their own table
 * (gd_probe_host_rules[], which gd_rule_find also searches) and run by
 * gd_probe_host_judge(), not by gd_engine_run().  Pure: no I/O.
 *
 * probe.storage_slow  the data directory's storage reads below the class
 *     it is: NVMe (by name), SSD (rotational 0), HDD (rotational 1), network
 *     (nfs, ceph, lustre, FUSE ...).  Each class has a floor for sequential
 *     MB/s and a ceiling for the mean 4 KiB QD1 latency (thresholds.def,
 *     from PROBES.md 5.1: NVMe 0.5-7 GB/s and 20-100 us; SATA SSD ~500 MB/s
 *     and ~0.1 ms; HDD 120-250 MB/s and 4-12 ms; network 0.3-3 ms).  An
 *     unclassified device is held to the network bounds (the lowest);
 *     memory (tmpfs) is never slow.  Worked example: /data on nfs4 reading
 *     85 MB/s (floor 100) with 4.1 ms per 4 KiB read (ceiling 3 ms), 2.0 TB
 *     in the data set -> "an epoch reads for 6.5 h"; stage it to local NVMe.
 *
 * probe.small_files_slow  opening and reading small files one after another
 *     goes slower than min_files_s (1,000/s; a local NVMe does 10,000+),
 *     when the data set holds at least min_small_files of them; or opening
 *     every file of the data set once takes more than epoch_open_pct (10%)
 *     of an epoch: the configured epoch_s, else the time the data set's
 *     bytes take at the sequential rate (so per-file cost is compared with
 *     streaming the same bytes).  Worked example: 1.2 M JPEGs at 650 files/s
 *     -> 31 min of opens per epoch against 4 min of streaming: pack them.
 *
 * probe.host_mem_bandwidth_low  a NUMA node's STREAM triad is below min_pct
 *     (60%) of its expected figure: the configured expected_gb_s (the
 *     node's channels x MT/s x 8 B), else the best node of this host (nodes
 *     of one host normally have the same DIMMs).  One node and nothing
 *     configured: unknown.
 *
 * probe.power_headroom  the draw at full burn (BMC, else GPUs + RAPL, else
 *     GPUs) leaves less than min_headroom_pct (20%) of psu_capacity_w.
 *     Critical when the draw exceeds the capacity.  No capacity configured:
 *     unknown, since a PSU's rating is not readable from the OS.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "model/snapshot.h"
#include "probe/host.h"
#include "rules/rule.h"

const struct gd_rule gd_probe_host_rules[] = {
	{ "probe.storage_slow", GD_SEV_WARNING, N_("The data set's storage reads below its class (sequential MB/s or 4 KiB latency, page cache bypassed)."),
	  N_("The data set sits on slow storage: copy it to local NVMe before training (local NVMe > Ceph > other network storage)."),
	  false, NULL },
	{ "probe.small_files_slow", GD_SEV_WARNING, N_("Opening and reading the data set's small files one by one is slow."),
	  N_("Pack the data set into large files (WebDataset tar shards, LMDB, TFRecord, HDF5) and read them sequentially."),
	  false, NULL },
	{ "probe.host_mem_bandwidth_low", GD_SEV_WARNING, N_("A NUMA node's STREAM triad bandwidth is well below what it should reach."),
	  N_("Host memory is slow: check the DIMM population per channel (every channel filled, same size and speed) and the BIOS memory settings (speed, interleaving, NUMA per socket)."),
	  false, NULL },
	{ "probe.power_headroom", GD_SEV_WARNING, N_("At full burn the machine draws close to its PSU capacity."),
	  N_("The PSUs are near their limit at full load: add PSU capacity (or restore redundancy), or lower the GPUs' power limits (nvidia-smi -pl)."),
	  false, NULL },
};
const size_t gd_probe_host_nrules = sizeof gd_probe_host_rules / sizeof gd_probe_host_rules[0];

enum { R_STORAGE, R_SMALL, R_MEM, R_POWER };

/* _() of a text the probe wrote (draw_from: "GPUs only", "BMC (...)"),
 * which stays English in its result and its JSON: "" stays "", since
 * dgettext("") is the catalogue's header. */
static const char *tr(const char *s)
{
	return s[0] ? _(s) : s;
}

/* ---- bounds shared by the rules and the report lines ------------------- */

struct storage_bounds {
	double seq_mb_s, lat_us;
	const char *cls;        /* "NVMe", "SSD", ... (marked N_: _(cls) where a person reads it) */
	const char *seq_key, *lat_key;
	bool judged;            /* false: memory, never slow */
};

static struct storage_bounds storage_bounds(const struct gd_probe_storage_result *s, const struct gd_thresholds *th)
{
	struct storage_bounds b = { NAN, NAN, "", "", "", true };

	switch (s->media) {
	case GD_PROBE_MEDIA_NVME:
		b = (struct storage_bounds){ th->v[GD_TH_PROBE_STORAGE_NVME_SEQ_MB_S], th->v[GD_TH_PROBE_STORAGE_NVME_LAT_US],
					     "NVMe", "nvme_seq_mb_s", "nvme_lat_us", true };
		break;
	case GD_PROBE_MEDIA_SSD:
		b = (struct storage_bounds){ th->v[GD_TH_PROBE_STORAGE_SSD_SEQ_MB_S], th->v[GD_TH_PROBE_STORAGE_SSD_LAT_US],
					     "SSD", "ssd_seq_mb_s", "ssd_lat_us", true };
		break;
	case GD_PROBE_MEDIA_HDD:
		b = (struct storage_bounds){ th->v[GD_TH_PROBE_STORAGE_HDD_SEQ_MB_S], th->v[GD_TH_PROBE_STORAGE_HDD_LAT_US],
					     N_("rotational disk"), "hdd_seq_mb_s", "hdd_lat_us", true };
		break;
	case GD_PROBE_MEDIA_MEMORY:
		b = (struct storage_bounds){ NAN, NAN, N_("memory (tmpfs)"), "", "", false };
		break;
	case GD_PROBE_MEDIA_NETWORK:
		b = (struct storage_bounds){ th->v[GD_TH_PROBE_STORAGE_NET_SEQ_MB_S], th->v[GD_TH_PROBE_STORAGE_NET_LAT_US],
					     N_("network storage"), "net_seq_mb_s", "net_lat_us", true };
		break;
	default:
		b = (struct storage_bounds){ th->v[GD_TH_PROBE_STORAGE_NET_SEQ_MB_S], th->v[GD_TH_PROBE_STORAGE_NET_LAT_US],
					     N_("unclassified storage (network bounds)"), "net_seq_mb_s", "net_lat_us", true };
		break;
	}
	return b;
}

/* The epoch small_files_slow compares opening with: configured, else the
 * read time of the data set; NAN when neither. */
static double epoch_of(const struct gd_probe_storage_result *s, const struct gd_thresholds *th, const char **from)
{
	if (th->v[GD_TH_PROBE_SMALL_FILES_EPOCH_S] > 0) {
		*from = _("configured epoch");
		return th->v[GD_TH_PROBE_SMALL_FILES_EPOCH_S];
	}
	*from = _("time to stream the data set once");
	return s->epoch_read_s;
}

/* The reference figure of a node: configured, or the best measured node
 * (NAN with from "" when neither: one node).  from is in the reader's
 * language when say, else in English (an evidence text). */
static double mem_reference(const struct gd_probe_mem_result *m, const struct gd_thresholds *th, char *from,
			    size_t fsz, bool say)
{
	double best = NAN;
	int best_node = 0;
	size_t ok = 0;

	if (th->v[GD_TH_PROBE_HOST_MEM_EXPECTED_GB_S] > 0) {
		snprintf(from, fsz, say ? _("configured %.1f GB/s") : "configured %.1f GB/s",
			 th->v[GD_TH_PROBE_HOST_MEM_EXPECTED_GB_S]);
		return th->v[GD_TH_PROBE_HOST_MEM_EXPECTED_GB_S];
	}
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct gd_probe_mem_node *n = &m->nodes[i];

		if (n->avail.state != GD_PROBE_OK)
			continue;
		ok++;
		if (isnan(best) || n->triad_gb_s > best) {
			best = n->triad_gb_s;
			best_node = n->node;
		}
	}
	if (ok < 2) {
		from[0] = '\0';
		return NAN;
	}
	snprintf(from, fsz, say ? _("best node node%d, %.1f GB/s") : "best node node%d, %.1f GB/s", best_node, best);
	return best;
}

static void human_s(double s, char *out, size_t osz)
{
	if (!isfinite(s))
		snprintf(out, osz, "?");
	else if (s >= 3600)
		snprintf(out, osz, "%.1f h", s / 3600);
	else if (s >= 60)
		snprintf(out, osz, "%.1f min", s / 60);
	else
		snprintf(out, osz, "%.1f s", s);
}

/* ---- the rules --------------------------------------------------------- */

static enum gd_verdict storage_slow(struct gd_rule_ctx *rc, const struct gd_probe_storage_result *s,
				    struct gd_findings *out)
{
	struct storage_bounds b;
	bool seq_ok, rnd_ok, seq_low, lat_high;
	struct gd_finding *f;
	char epoch[32], parts[256];

	if (!s)
		return gd_rule_unknown(rc, "%s", _("not run: no --data DIR"));
	if (s->avail.state != GD_PROBE_OK)
		return gd_rule_unknown(rc, _("storage probe %s: %s"), gd_probe_state_name(s->avail.state), s->avail.why);
	seq_ok = s->seq.state == GD_PROBE_OK;
	rnd_ok = s->rnd.state == GD_PROBE_OK;
	if (!seq_ok && !rnd_ok)
		return gd_rule_unknown(rc, _("no storage figure: sequential %s"), s->seq.why);
	b = storage_bounds(s, rc->th);
	if (!b.judged)
		return GD_VERDICT_CLEAR;
	seq_low = seq_ok && s->seq_mb_s < b.seq_mb_s;
	lat_high = rnd_ok && s->rnd_lat_us > b.lat_us;
	if (!seq_low && !lat_high)
		return GD_VERDICT_CLEAR;
	f = gd_finding_add(rc, out, GD_SEV_WARNING, "%s", s->dir);
	human_s(s->epoch_read_s, epoch, sizeof epoch);
	parts[0] = '\0';
	if (seq_low && lat_high)
		snprintf(parts, sizeof parts, _("reads %.0f MB/s sequentially (floor %.0f) and takes %.0f us per 4 KiB read (ceiling %.0f)"),
			 s->seq_mb_s, b.seq_mb_s, s->rnd_lat_us, b.lat_us);
	else if (seq_low)
		snprintf(parts, sizeof parts, _("reads %.0f MB/s sequentially (floor %.0f)"), s->seq_mb_s, b.seq_mb_s);
	else
		snprintf(parts, sizeof parts, _("takes %.0f us per 4 KiB random read (ceiling %.0f)"), s->rnd_lat_us,
			 b.lat_us);
	if (isfinite(s->epoch_read_s))
		gd_finding_summary(f, _("%.200s on %s (%s, %s) %s, bypassing the page cache: one pass over the data set "
					"reads for %s."),
				   s->dir, s->fstype, _(b.cls), s->media_why, parts, epoch);
	else
		gd_finding_summary(f, _("%.200s on %s (%s, %s) %s, bypassing the page cache."), s->dir, s->fstype,
				   _(b.cls), s->media_why, parts);
	if (s->media == GD_PROBE_MEDIA_NVME || s->media == GD_PROBE_MEDIA_SSD)
		gd_finding_remedy(f, _("This %s reads below its class: check its PCIe link (lspci -vv: LnkSta), its temperature "
				       "and wear (nvme smart-log / smartctl -a), and how full it is; meanwhile copy the data set to a "
				       "healthy local NVMe."), _(b.cls));
	gd_finding_ev_text(f, "media", gd_probe_media_name(s->media));
	gd_finding_ev_text(f, "fstype", s->fstype);
	if (seq_ok)
		gd_finding_ev(f, "seq_read_mb_s", s->seq_mb_s, "MB/s", b.seq_mb_s);
	if (rnd_ok)
		gd_finding_ev(f, "rand_4k_lat_us", s->rnd_lat_us, "us", b.lat_us);
	gd_finding_ev_text(f, "cache_bypass", gd_probe_cache_name(seq_ok ? s->seq_cache : s->rnd_cache));
	gd_finding_ev(f, "dataset_bytes", (double)s->bytes, "bytes", NAN);
	if (isfinite(s->epoch_read_s))
		gd_finding_ev(f, "epoch_read_s", s->epoch_read_s, "seconds", NAN);
	return GD_VERDICT_FIRED;
}

static enum gd_verdict small_files_slow(struct gd_rule_ctx *rc, const struct gd_probe_storage_result *s,
					struct gd_findings *out)
{
	const struct gd_thresholds *th = rc->th;
	const char *from;
	double epoch, pct = NAN;
	bool rate_low, epoch_high;
	struct gd_finding *f;
	char open_s[32], ep[32];

	if (!s)
		return gd_rule_unknown(rc, "%s", _("not run: no --data DIR"));
	if (s->avail.state != GD_PROBE_OK)
		return gd_rule_unknown(rc, _("storage probe %s: %s"), gd_probe_state_name(s->avail.state), s->avail.why);
	if (s->small.state != GD_PROBE_OK)
		return gd_rule_unknown(rc, _("small files %s: %s"), gd_probe_state_name(s->small.state), s->small.why);
	epoch = epoch_of(s, th, &from);
	if (isfinite(epoch) && epoch > 0 && isfinite(s->epoch_open_s))
		pct = s->epoch_open_s / epoch * 100;
	rate_low = (double)s->small_files >= th->v[GD_TH_PROBE_SMALL_FILES_MIN_COUNT] &&
		   s->small_files_s < th->v[GD_TH_PROBE_SMALL_FILES_MIN_S];
	epoch_high = isfinite(pct) && pct > th->v[GD_TH_PROBE_SMALL_FILES_EPOCH_PCT];
	if (!rate_low && !epoch_high)
		return GD_VERDICT_CLEAR;
	f = gd_finding_add(rc, out, GD_SEV_WARNING, "%s", s->dir);
	human_s(s->epoch_open_s, open_s, sizeof open_s);
	human_s(epoch, ep, sizeof ep);
	if (epoch_high)
		gd_finding_summary(f, _("%.200s: %llu files opened and read at %.0f files/s (%.1f MB/s): %s per epoch just for "
					"the files, %.0f%% of the %s (%s; threshold %.0f%%)."),
				   s->dir, (unsigned long long)s->files, s->small_files_s, s->small_mb_s, open_s, pct, from,
				   ep, th->v[GD_TH_PROBE_SMALL_FILES_EPOCH_PCT]);
	else
		gd_finding_summary(f, _("%.200s: %llu small files, opened and read at %.0f files/s (threshold %.0f files/s, "
					"%.1f MB/s): %s per epoch just for the files."),
				   s->dir, (unsigned long long)s->small_files, s->small_files_s,
				   th->v[GD_TH_PROBE_SMALL_FILES_MIN_S], s->small_mb_s, open_s);
	gd_finding_ev(f, "files_per_s", s->small_files_s, "files/s", th->v[GD_TH_PROBE_SMALL_FILES_MIN_S]);
	gd_finding_ev(f, "small_mb_s", s->small_mb_s, "MB/s", NAN);
	gd_finding_ev(f, "files", (double)s->files, "files", NAN);
	gd_finding_ev(f, "small_files", (double)s->small_files, "files", th->v[GD_TH_PROBE_SMALL_FILES_MIN_COUNT]);
	if (isfinite(pct))
		gd_finding_ev(f, "epoch_open_pct", pct, "% of an epoch", th->v[GD_TH_PROBE_SMALL_FILES_EPOCH_PCT]);
	gd_finding_ev_text(f, "cache_bypass", gd_probe_cache_name(s->small_cache));
	return GD_VERDICT_FIRED;
}

static enum gd_verdict mem_low(struct gd_rule_ctx *rc, const struct gd_probe_mem_result *m, struct gd_findings *out)
{
	double ref, min_pct = rc->th->v[GD_TH_PROBE_HOST_MEM_MIN_PCT];
	char from[96], from_en[96];
	bool fired = false;

	if (!m)
		return gd_rule_unknown(rc, "%s", _("not run"));
	if (m->avail.state != GD_PROBE_OK)
		return gd_rule_unknown(rc, _("host memory probe %s: %s"), gd_probe_state_name(m->avail.state), m->avail.why);
	ref = mem_reference(m, rc->th, from, sizeof from, true);
	mem_reference(m, rc->th, from_en, sizeof from_en, false);
	if (isnan(ref))
		return gd_rule_unknown(rc, "%s", _("one NUMA node measured and no probe.host_mem_bandwidth_low.expected_gb_s "
						   "configured: nothing to compare with"));
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct gd_probe_mem_node *n = &m->nodes[i];
		struct gd_finding *f;
		double pct;

		if (n->avail.state != GD_PROBE_OK)
			continue;
		pct = n->triad_gb_s / ref * 100;
		if (pct >= min_pct)
			continue;
		fired = true;
		if (n->node < 0)
			f = gd_finding_add(rc, out, GD_SEV_WARNING, "host");
		else
			f = gd_finding_add(rc, out, GD_SEV_WARNING, "node%d", n->node);
		if (n->node < 0)
			gd_finding_summary(f, _("STREAM triad on the host0 (%u threads) reached %.1f GB/s, %.0f%% of %s "
						"(threshold %.0f%%)."),
					   n->threads, n->triad_gb_s, pct, from, min_pct);
		else
			gd_finding_summary(f, _("STREAM triad on node%d (%u threads) reached %.1f GB/s, %.0f%% of %s "
						"(threshold %.0f%%)."),
					   n->node, n->threads, n->triad_gb_s, pct, from, min_pct);
		gd_finding_ev(f, "triad_gb_s", n->triad_gb_s, "GB/s", ref * min_pct / 100);
		gd_finding_ev(f, "expected_gb_s", ref, "GB/s", NAN);
		gd_finding_ev(f, "pct_of_expected", pct, "%", min_pct);
		gd_finding_ev_text(f, "expected_from", from_en);
	}
	return fired ? GD_VERDICT_FIRED : GD_VERDICT_CLEAR;
}

static enum gd_verdict power_headroom(struct gd_rule_ctx *rc, const struct gd_probe_power_result *p,
				      struct gd_findings *out)
{
	double cap = rc->th->v[GD_TH_PROBE_POWER_PSU_CAPACITY_W], min = rc->th->v[GD_TH_PROBE_POWER_MIN_HEADROOM_PCT];
	double headroom;
	struct gd_finding *f;

	if (!p)
		return gd_rule_unknown(rc, "%s", _("not run"));
	if (p->avail.state != GD_PROBE_OK)
		return gd_rule_unknown(rc, _("power probe %s: %s"), gd_probe_state_name(p->avail.state), p->avail.why);
	if (!(cap > 0))
		return gd_rule_unknown(rc, _("no PSU capacity configured (set probe.power_headroom.psu_capacity_w; "
					     "the draw was %.0f W from %s)"), p->draw_w, tr(p->draw_from));
	headroom = (cap - p->draw_w) / cap * 100;
	if (headroom >= min)
		return GD_VERDICT_CLEAR;
	f = gd_finding_add(rc, out, headroom < 0 ? GD_SEV_CRITICAL : GD_SEV_WARNING, "host");
	if (strcmp(p->draw_from, "GPUs only") == 0)
		gd_finding_summary(f, _("At full burn the machine draws %.0f W (%s, the host not counted) of %.0f W PSU "
					"capacity: %.0f%% headroom (threshold %.0f%%)."),
				   p->draw_w, tr(p->draw_from), cap, headroom, min);
	else
		gd_finding_summary(f, _("At full burn the machine draws %.0f W (%s) of %.0f W PSU capacity: %.0f%% headroom "
					"(threshold %.0f%%)."),
				   p->draw_w, tr(p->draw_from), cap, headroom, min);
	gd_finding_ev(f, "draw_w", p->draw_w, "W", cap * (1 - min / 100));
	gd_finding_ev(f, "psu_capacity_w", cap, "W", NAN);
	gd_finding_ev(f, "headroom_pct", headroom, "%", min);
	if (isfinite(p->gpu_w))
		gd_finding_ev(f, "gpu_w", p->gpu_w, "W", NAN);
	if (p->rapl.state == GD_PROBE_OK)
		gd_finding_ev(f, "host_rapl_w", p->host_rapl_w, "W", NAN);
	gd_finding_ev_text(f, "draw_from", p->draw_from);
	return GD_VERDICT_FIRED;
}

static void account(struct gd_findings *out, const struct gd_rule_ctx *rc, enum gd_verdict v)
{
	if (v == GD_VERDICT_UNKNOWN) {
		struct gd_unknown *u = gd_vec_push(&out->unknown, sizeof *u);

		u->id = rc->rule->id;
		gd_strlcpy(u->reason, rc->why[0] ? rc->why : _("evidence unavailable"), sizeof u->reason);
	} else {
		out->evaluated++;
	}
}

void gd_probe_host_judge(const struct gd_probe_host_results *r, const struct gd_thresholds *th,
			 struct gd_findings *out)
{
	static const struct gd_probe_host_results none;
	struct gd_rule_ctx rc;

	if (!r)
		r = &none;
	for (size_t i = 0; i < gd_probe_host_nrules; i++) {
		enum gd_verdict v;

		rc = (struct gd_rule_ctx){ .w = NULL, .th = th, .rule = &gd_probe_host_rules[i], .why = "" };
		switch (i) {
		case R_STORAGE:
			v = storage_slow(&rc, r->storage, out);
			break;
		case R_SMALL:
			v = small_files_slow(&rc, r->storage, out);
			break;
		case R_MEM:
			v = mem_low(&rc, r->mem, out);
			break;
		default:
			v = power_headroom(&rc, r->power, out);
			break;
		}
		account(out, &rc, v);
	}
}

/* ---- report lines ------------------------------------------------------ */

/* The next line, or *scratch when lines is full (counted, not kept). */
static struct gd_probe_host_line *line_add(struct gd_probe_host_line *lines, size_t max, size_t *n,
					   struct gd_probe_host_line *scratch, const char *probe, const char *rule,
					   const struct gd_probe_avail *a)
{
	struct gd_probe_host_line *l = *n < max ? &lines[*n] : scratch;

	(*n)++;
	memset(l, 0, sizeof *l);
	l->probe = probe;
	l->rule = rule;
	l->avail = *a;
	l->achieved = l->expected = NAN;
	l->unit = "";
	l->higher_is_better = true;
	l->ok = true;
	return l;
}

/* Sets a line's expected_from, cut where it must be at a character
 * boundary (a translation can be longer than the English). */
static void set_from(struct gd_probe_host_line *l, const char *s)
{
	size_t n = strlen(s);

	if (n >= sizeof l->expected_from)
		for (n = sizeof l->expected_from - 1; n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80; n--)
			;
	memcpy(l->expected_from, s, n);
	l->expected_from[n] = '\0';
}

size_t gd_probe_host_lines(const struct gd_probe_host_results *r, const struct gd_thresholds *th,
			   struct gd_probe_host_line *lines, size_t max)
{
	size_t n = 0;
	struct gd_probe_host_line *l, scratch;
	char tmp[512];

	if (r && r->storage) {
		const struct gd_probe_storage_result *s = r->storage;
		struct storage_bounds b = storage_bounds(s, th);
		const char *from;
		double epoch = epoch_of(s, th, &from);

		l = line_add(lines, max, &n, &scratch, "storage.seq_read", "probe.storage_slow",
			     s->avail.state == GD_PROBE_OK ? &s->seq : &s->avail);
		snprintf(l->subject, sizeof l->subject, "%.63s", s->dir);
		l->unit = "MB/s";
		if (l->avail.state == GD_PROBE_OK) {
			l->achieved = s->seq_mb_s;
			if (b.judged) {
				l->expected = b.seq_mb_s;
				snprintf(tmp, sizeof tmp, _("%s floor (probe.storage_slow.%s)"), _(b.cls), b.seq_key);
				set_from(l, tmp);
				l->ok = l->achieved >= l->expected;
			}
		}
		l = line_add(lines, max, &n, &scratch, "storage.rand_4k", "probe.storage_slow",
			     s->avail.state == GD_PROBE_OK ? &s->rnd : &s->avail);
		snprintf(l->subject, sizeof l->subject, "%.63s", s->dir);
		l->unit = "us";
		l->higher_is_better = false;
		if (l->avail.state == GD_PROBE_OK) {
			l->achieved = s->rnd_lat_us;
			if (b.judged) {
				l->expected = b.lat_us;
				snprintf(tmp, sizeof tmp, _("%s ceiling (probe.storage_slow.%s)"), _(b.cls), b.lat_key);
				set_from(l, tmp);
				l->ok = l->achieved <= l->expected;
			}
		}
		l = line_add(lines, max, &n, &scratch, "storage.small_files", "probe.small_files_slow",
			     s->avail.state == GD_PROBE_OK ? &s->small : &s->avail);
		snprintf(l->subject, sizeof l->subject, "%.63s", s->dir);
		l->unit = "files/s";
		if (l->avail.state == GD_PROBE_OK) {
			l->achieved = s->small_files_s;
			l->expected = th->v[GD_TH_PROBE_SMALL_FILES_MIN_S];
			snprintf(tmp, sizeof tmp, _("probe.small_files_slow.min_files_s; opening all: %.0f%% of the %s"),
				 isfinite(epoch) && epoch > 0 ? s->epoch_open_s / epoch * 100 : NAN, from);
			set_from(l, tmp);
			l->ok = !((double)s->small_files >= th->v[GD_TH_PROBE_SMALL_FILES_MIN_COUNT] &&
				  l->achieved < l->expected) &&
				!(isfinite(epoch) && epoch > 0 && isfinite(s->epoch_open_s) &&
				  s->epoch_open_s / epoch * 100 > th->v[GD_TH_PROBE_SMALL_FILES_EPOCH_PCT]);
		}
	}
	if (r && r->mem) {
		char from[96];
		double ref = mem_reference(r->mem, th, from, sizeof from, true), min_pct = th->v[GD_TH_PROBE_HOST_MEM_MIN_PCT];

		if (r->mem->avail.state != GD_PROBE_OK && !r->mem->nnodes) {
			l = line_add(lines, max, &n, &scratch, "host_mem.triad", "probe.host_mem_bandwidth_low", &r->mem->avail);
			snprintf(l->subject, sizeof l->subject, "host");
			l->unit = "GB/s";
		}
		for (size_t i = 0; i < r->mem->nnodes; i++) {
			const struct gd_probe_mem_node *nd = &r->mem->nodes[i];

			l = line_add(lines, max, &n, &scratch, "host_mem.triad", "probe.host_mem_bandwidth_low", &nd->avail);
			if (nd->node < 0)
				snprintf(l->subject, sizeof l->subject, "host");
			else
				snprintf(l->subject, sizeof l->subject, "node%d", nd->node);
			l->unit = "GB/s";
			if (nd->avail.state != GD_PROBE_OK)
				continue;
			l->achieved = nd->triad_gb_s;
			if (isfinite(ref)) {
				l->expected = ref * min_pct / 100;
				snprintf(tmp, sizeof tmp, _("%.0f%% of %s"), min_pct, from);
				set_from(l, tmp);
				l->ok = l->achieved >= l->expected;
			}
		}
	}
	if (r && r->power) {
		const struct gd_probe_power_result *p = r->power;
		double cap = th->v[GD_TH_PROBE_POWER_PSU_CAPACITY_W], min = th->v[GD_TH_PROBE_POWER_MIN_HEADROOM_PCT];

		l = line_add(lines, max, &n, &scratch, "power.draw", "probe.power_headroom", &p->avail);
		snprintf(l->subject, sizeof l->subject, "host");
		l->unit = "W";
		l->higher_is_better = false;
		if (p->avail.state == GD_PROBE_OK) {
			l->achieved = p->draw_w;
			if (cap > 0) {
				l->expected = cap * (1 - min / 100);
				snprintf(tmp, sizeof tmp, _("%.0f%% of PSU capacity %.0f W (config), %s"), 100 - min, cap,
					 tr(p->draw_from));
				set_from(l, tmp);
				l->ok = l->achieved <= l->expected;
			} else {
				snprintf(tmp, sizeof tmp, _("no PSU capacity configured; %s"), tr(p->draw_from));
				set_from(l, tmp);
			}
		}
	}
	return n;
}
