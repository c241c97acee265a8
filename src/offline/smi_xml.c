/*
 * smi_xml.c - `nvidia-smi -q -x` XML (nvsmi_device_v10 to v12 DTDs, drivers
 * 450 and newer) into gpus[] and gpu_procs[], with libxml2 (loaded with
 * dlopen on each parse, xml_dl.h: gpudoctor does not link it).
 *
 *     <nvidia_smi_log>
 *       <driver_version>550.54.15</driver_version>
 *       <cuda_version>12.4</cuda_version>
 *       <attached_gpus>8</attached_gpus>
 *       <gpu id="00000000:18:00.0">
 *         <product_name>NVIDIA H100 80GB HBM3</product_name>
 *         <pci><pci_gpu_link_info><pcie_gen><max_link_gen>5</max_link_gen> ...
 *         <clocks_event_reasons>       (clocks_throttle_reasons before R535)
 *           <clocks_event_reason_sw_power_cap>Active</clocks_event_reason_sw_power_cap>
 *         <fb_memory_usage><total>81559 MiB</total><used>4 MiB</used> ...
 *         <temperature><gpu_temp>34 C</gpu_temp><gpu_temp_slow_threshold>87 C</gpu_temp_slow_threshold>
 *         <gpu_power_readings><power_draw>72.39 W</power_draw>   (power_readings before R535)
 *         <processes><process_info><pid>12345</pid><type>C</type><used_memory>39000 MiB</used_memory>
 *
 * The values are the words of -q text ("N/A", "[Not Supported]", units), so
 * they go through the same readers (util.c).  The document is read with
 * libxml2's recovery mode, without network or DTD loading: a file cut short
 * still gives the GPUs before the cut, and the error names its line.
 * Without libxml2.so.2 the parse fails with a sentence naming the package.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "offline/offline.h"
#include "offline/ofl.h"
#include "offline/xml_dl.h"

/* The first element child of n named name; a '/'-separated path walks down. */
static xmlNode *find(xmlNode *n, const char *path)
{
	char part[64];

	while (n && *path) {
		const char *e = strchr(path, '/');
		size_t len = e ? (size_t)(e - path) : strlen(path);
		xmlNode *c;

		if (len >= sizeof part)
			return NULL;
		memcpy(part, path, len);
		part[len] = '\0';
		for (c = n->children; c; c = c->next)
			if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, part) == 0)
				break;
		n = c;
		path += len + (e ? 1 : 0);
	}
	return n;
}

struct xstate {
	const struct gd_xml_api *xml;
	struct gd_snapshot *s;
	struct gd_gpu *g;
	char text[256];
	size_t bad;
	char first_bad[96];
};

/* The text of the element at path below n, trimmed, in x->text; false if
 * there is no such element. */
static bool text(struct xstate *x, xmlNode *n, const char *path, struct gd_slice *v)
{
	xmlNode *e = find(n, path);
	xmlChar *c;

	if (!e)
		return false;
	c = x->xml->content(e);
	if (!c)
		return false;
	GD_STRSET(x->text, (const char *)c);
	gd_xml_free(x->xml, c);
	*v = gd_tok_trim((struct gd_slice){ x->text, strlen(x->text) });
	return true;
}

static void note(struct xstate *x, enum ofl_v r, const char *path, const char *field, struct gd_slice v)
{
	if (r == OFL_BAD) {
		if (!x->bad++)
			snprintf(x->first_bad, sizeof x->first_bad, "<%s>", path);
	} else if (r == OFL_ERRVAL) {
		ofl_note_errval(x->s, x->g && x->g->index.ok ? x->g->index.v : UINT64_MAX, field, "nvidia-smi -q -x", 0,
				(struct gd_slice){ path, strlen(path) }, v);
	}
}

#define XU64(path, fld, unit, scale) \
	do { \
		if (text(x, gn, path, &v)) \
			note(x, ofl_u64(v, unit, scale, &g->fld), path, #fld, v); \
	} while (0)
#define XF64(path, fld, unit) \
	do { \
		if (text(x, gn, path, &v)) \
			note(x, ofl_f64(v, unit, 1, &g->fld), path, #fld, v); \
	} while (0)
#define XBOOL(path, fld) \
	do { \
		if (text(x, gn, path, &v)) \
			note(x, ofl_bool(v, &g->fld), path, #fld, v); \
	} while (0)
#define XSTR(path, fld) \
	do { \
		if (text(x, gn, path, &v)) \
			note(x, ofl_str(v, g->fld, sizeof g->fld), path, #fld, v); \
	} while (0)

static const char *const reason_names[] = { "gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown",
					    "sync_boost", "sw_thermal_slowdown", "hw_thermal_slowdown",
					    "hw_power_brake_slowdown", "display_clocks_setting" };

static void reasons(struct xstate *x, xmlNode *gn, struct gd_gpu *g)
{
	static const char *const sect[] = { "clocks_event_reasons", "clocks_throttle_reasons" };
	static const char *const pre[] = { "clocks_event_reason_", "clocks_throttle_reason_" };
	struct gd_slice v;

	for (int k = 0; k < 2; k++) {
		xmlNode *r = find(gn, sect[k]);

		if (!r)
			continue;
		for (size_t i = 0; i < sizeof reason_names / sizeof reason_names[0]; i++) {
			char path[96];
			struct gd_u64 on = { 0, false };
			enum ofl_v res;

			snprintf(path, sizeof path, "%s%s", pre[k], reason_names[i]);
			if (!text(x, r, path, &v))
				continue;
			res = ofl_bool(v, &on);
			note(x, res, path, "clock_event_reasons", v);
			if (res == OFL_SET) {
				g->clock_event_reasons.ok = true;
				g->clock_event_reasons.v |= on.v << i;
			}
		}
	}
}

/* ECC: the sum over SRAM and DRAM counters (or V100's single_bit/total). */
static void ecc(struct xstate *x, xmlNode *gn, struct gd_gpu *g)
{
	static const char *const which[] = { "volatile", "aggregate" };
	struct gd_u64 *dst[2][2] = { { &g->ecc_corrected_volatile, &g->ecc_uncorrected_volatile },
				     { &g->ecc_corrected_aggregate, &g->ecc_uncorrected_aggregate } };
	struct gd_u64 *mem[2][2] = { { &g->ecc_uncorrected_volatile_sram, &g->ecc_uncorrected_volatile_dram },
				     { &g->ecc_uncorrected_aggregate_sram, &g->ecc_uncorrected_aggregate_dram } };
	xmlNode *e = find(gn, "ecc_errors");

	for (int w = 0; e && w < 2; w++) {
		xmlNode *vn = find(e, which[w]);
		struct gd_slice v;

		if (!vn)
			continue;
		for (xmlNode *c = vn->children; c; c = c->next) {
			const char *name = (const char *)c->name;
			struct gd_u64 n = { 0, false };
			int unc;

			if (c->type != XML_ELEMENT_NODE)
				continue;
			if (strcmp(name, "single_bit") == 0 || strcmp(name, "double_bit") == 0) {
				unc = name[0] == 'd';
				if (!text(x, c, "total", &v))
					continue;
			} else if (strcmp(name, "sram_threshold_exceeded") == 0) {
				struct gd_u64 y = { 0, false };

				if (text(x, vn, name, &v) && ofl_bool(v, &y) == OFL_SET)
					gd_u64_set(&g->ecc_sram_threshold_exceeded, y.v);
				continue;
			} else if (strstr(name, "uncorrectable")) {
				unc = 1;
				if (!text(x, vn, name, &v))
					continue;
			} else if (strstr(name, "correctable")) {
				unc = 0;
				if (!text(x, vn, name, &v))
					continue;
			} else {
				continue;
			}
			if (ofl_u64(v, NULL, 1, &n) == OFL_SET) {
				dst[w][unc]->v += n.v;
				dst[w][unc]->ok = true;
				/* sram_uncorrectable(_parity, _secded), dram_uncorrectable: which memory */
				if (unc && (strncmp(name, "sram_", 5) == 0 || strncmp(name, "dram_", 5) == 0)) {
					struct gd_u64 *m = name[0] == 's' ? mem[w][0] : mem[w][1];

					m->v += n.v;
					m->ok = true;
				}
			}
		}
	}
}

static void gpu(struct xstate *x, xmlNode *gn, size_t index)
{
	struct gd_slice v;
	struct gd_gpu *g;
	char bus[32] = "";
	xmlChar *id = x->xml->get_prop(gn, (const xmlChar *)"id");

	if (id) {
		ofl_bus_id((struct gd_slice){ (const char *)id, strlen((const char *)id) }, bus, sizeof bus);
		gd_xml_free(x->xml, id);
	}
	if (!bus[0] && text(x, gn, "pci/pci_bus_id", &v))
		ofl_bus_id(v, bus, sizeof bus);
	g = ofl_gpu_find(x->s, NULL, bus);
	if (!g) {
		g = GD_PUSH(x->s, gpus, struct gd_gpu);
		gd_u64_set(&g->index, index);
		GD_STRSET(g->pci_bus_id, bus);
	}
	x->g = g;
	XSTR("product_name", name);
	XSTR("uuid", uuid);
	XSTR("serial", serial);
	XU64("minor_number", minor_number, NULL, 1);
	XBOOL("persistence_mode", persistence_mode);
	XBOOL("mig_mode/current_mig", mig_mode);
	if (text(x, gn, "compute_mode", &v)) {
		static const char *const modes[] = { "Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process" };

		for (uint64_t i = 0; i < 4; i++)
			if (ofl_ieq(v, modes[i]))
				gd_u64_set(&g->compute_mode, i);
	}
	XU64("fan_speed", fan_pct, "%", 1);
	if (text(x, gn, "performance_state", &v) && v.n >= 2 && v.p[0] == 'P') {
		uint64_t p;

		if (gd_tok_u64((struct gd_slice){ v.p + 1, v.n - 1 }, &p) && p <= 15)
			gd_u64_set(&g->pstate, p);
	}
	XU64("pci/pci_gpu_link_info/pcie_gen/max_link_gen", pcie_gen_max, NULL, 1);
	XU64("pci/pci_gpu_link_info/pcie_gen/current_link_gen", pcie_gen, NULL, 1);
	XU64("pci/pci_gpu_link_info/link_widths/max_link_width", pcie_width_max, "x", 1);
	XU64("pci/pci_gpu_link_info/link_widths/current_link_width", pcie_width, "x", 1);
	XU64("pci/replay_counter", pcie_replays, NULL, 1);
	XU64("pci/tx_util", pcie_tx_kbps, "KB/s", 1);
	XU64("pci/rx_util", pcie_rx_kbps, "KB/s", 1);
	reasons(x, gn, g);
	XU64("fb_memory_usage/total", mem_total_bytes, "MiB", 1048576);
	XU64("fb_memory_usage/used", mem_used_bytes, "MiB", 1048576);
	XU64("utilization/gpu_util", util_gpu_pct, "%", 1);
	XU64("utilization/memory_util", util_mem_pct, "%", 1);
	XBOOL("ecc_mode/current_ecc", ecc_mode);
	ecc(x, gn, g);
	XU64("retired_pages/multiple_single_bit_retirement/retired_count", retired_pages_sbe, NULL, 1);
	XU64("retired_pages/double_bit_retirement/retired_count", retired_pages_dbe, NULL, 1);
	XBOOL("retired_pages/pending_blacklist", retired_pages_pending);
	XBOOL("retired_pages/pending_retirement", retired_pages_pending);
	XU64("remapped_rows/remapped_row_corr", remap_corrected, NULL, 1);
	XU64("remapped_rows/remapped_row_unc", remap_uncorrected, NULL, 1);
	XBOOL("remapped_rows/remapped_row_pending", remap_pending);
	XBOOL("remapped_rows/remapped_row_failure", remap_failure);
	XF64("temperature/gpu_temp", temp_c, "C");
	XF64("temperature/gpu_temp_slow_threshold", temp_slowdown_c, "C");
	XF64("temperature/gpu_temp_max_threshold", temp_shutdown_c, "C");
	for (int k = 0; k < 2; k++) {
		const char *pr = k ? "power_readings" : "gpu_power_readings";
		static const char *const draw[] = { "average_power_draw", "power_draw", "instant_power_draw" };
		static const char *const lim[] = { "enforced_power_limit", "current_power_limit", "power_limit" };
		char path[96];

		for (int i = 0; i < 3 && !g->power_w.ok; i++) {
			snprintf(path, sizeof path, "%s/%s", pr, draw[i]);
			XF64(path, power_w, "W");
		}
		for (int i = 0; i < 3 && !g->power_limit_w.ok; i++) {
			snprintf(path, sizeof path, "%s/%s", pr, lim[i]);
			XF64(path, power_limit_w, "W");
		}
		snprintf(path, sizeof path, "%s/default_power_limit", pr);
		if (!g->power_default_limit_w.ok)
			XF64(path, power_default_limit_w, "W");
	}
	XU64("clocks/sm_clock", sm_clock_mhz, "MHz", 1);
	XU64("clocks/mem_clock", mem_clock_mhz, "MHz", 1);
	XU64("max_clocks/sm_clock", sm_clock_max_mhz, "MHz", 1);
	XU64("max_clocks/mem_clock", mem_clock_max_mhz, "MHz", 1);
	XU64("applications_clocks/graphics_clock", app_sm_clock_mhz, "MHz", 1);
	if (text(x, gn, "gpu_reset_status/reset_required", &v)) {
		struct gd_u64 r = { 0, false }, d = { 0, false };
		struct gd_slice dv;

		ofl_bool(v, &r);
		if (text(x, gn, "gpu_reset_status/drain_and_reset_recommended", &dv))
			ofl_bool(dv, &d);
		if (r.ok)
			gd_u64_set(&g->recovery_action, d.ok && d.v ? 4 : r.v ? 1 : 0);
	}
	if (find(gn, "processes") && g->index.ok)
		ofl_procs_listed(g);
	for (xmlNode *p = find(gn, "processes") ? find(gn, "processes")->children : NULL; p; p = p->next) {
		struct gd_u64 pid;
		struct gd_gpu_proc *proc;

		if (p->type != XML_ELEMENT_NODE || strcmp((const char *)p->name, "process_info") != 0)
			continue;
		if (!g->index.ok || !text(x, p, "pid", &v) || ofl_u64(v, NULL, 1, &pid) != OFL_SET)
			continue;
		proc = ofl_gpu_proc(x->s, g->index.v, pid.v, text(x, p, "type", &v) && ofl_ieq(v, "G"));
		if (text(x, p, "used_memory", &v))
			ofl_u64(v, "MiB", 1048576, &proc->used_mem_bytes);
	}
}

int gd_parse_nvsmi_xml(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct gd_xml_api xml;
	xmlParserCtxtPtr ctxt;
	xmlDocPtr doc;
	xmlNode *root;
	struct xstate x;
	struct gd_slice v;
	const xmlError *xe;
	size_t n = 0;
	int rc = 0;

	if (len > INT_MAX)
		return gd_err_set(err, -EFBIG, _("XML larger than 2 GiB"));
	if ((rc = gd_xml_open(&xml, GD_XML_SONAME, err)) < 0)
		return rc;
	ctxt = xml.new_ctxt();
	if (!ctxt) {
		gd_xml_close(&xml);
		return gd_err_set(err, -ENOMEM, _("out of memory for the XML parser"));
	}
	doc = xml.read_memory(ctxt, buf, (int)len, "nvidia-smi.xml", NULL,
			      XML_PARSE_RECOVER | XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	xe = xml.last_error(ctxt);
	root = doc ? xml.root(doc) : NULL;
	if (!root || strcmp((const char *)root->name, "nvidia_smi_log") != 0) {
		if (xe && xe->code)
			rc = gd_err_set(err, -EINVAL, _("line %d: %s (no <nvidia_smi_log> document)"), xe->line,
					xe->message ? xe->message : _("malformed XML"));
		else
			rc = gd_err_set(err, -EINVAL, _("no <nvidia_smi_log> root element: not nvidia-smi -q -x output"));
		goto out;
	}
	memset(&x, 0, sizeof x);
	x.xml = &xml;
	x.s = s;
	if (text(&x, root, "driver_version", &v))
		ofl_str(v, s->nvml.driver_version, sizeof s->nvml.driver_version);
	if (text(&x, root, "cuda_version", &v)) {
		double ver;

		if (gd_tok_f64(v, &ver) && ver > 0 && ver < 100)
			gd_u64_set(&s->nvml.cuda_driver_version, ofl_cuda_version(ver));
	}
	if (text(&x, root, "attached_gpus", &v))
		ofl_u64(v, NULL, 1, &s->nvml.device_count);
	for (xmlNode *c = root->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, "gpu") == 0)
			gpu(&x, c, n++);
	ofl_nvml_ok(s, "nvidia-smi -q -x");
	if (!s->nvml.device_count.ok)
		gd_u64_set(&s->nvml.device_count, s->gpus.n);
	if (xe && xe->code && xe->level >= XML_ERR_ERROR) {
		size_t l = xe->message ? strlen(xe->message) : 0;

		rc = gd_err_set(err, 1, _("line %d: %.*s (the XML is cut short or malformed; %zu GPU section(s) read)"),
				xe->line, (int)(l && xe->message[l - 1] == '\n' ? l - 1 : l),
				xe->message ? xe->message : _("malformed XML"), n);
	} else if (x.bad) {
		rc = gd_err_set(err, 1, _("%s: a value that is not a number of the expected unit; %zu value(s) skipped"),
				x.first_bad, x.bad);
	} else if (s->nvml.device_count.v > n) {
		/* the document is whole (an XML cut short is an error above) */
		rc = gd_err_set(err, 1, _("%zu of %llu GPUs (attached_gpus) in the output: the others were left out "
				  "(nvidia-smi -i) or not pasted"), n,
				(unsigned long long)s->nvml.device_count.v);
	}
out:
	if (doc)
		xml.free_doc(doc);
	xml.free_ctxt(ctxt);
	gd_xml_close(&xml);
	return rc;
}
