/*
 * test_pci_acs.c - gpu.p2p_acs_redirect and its evidence: the ACS
 * capability found in real config-space bytes (tests/unit/data/pci-config:
 * pciutils' test dumps of a Haswell-E root port with ACS redirect on, a
 * Sunrise Point root port with ACS off, a Thunderbolt bridge without ACS),
 * malformed capability lists, lspci -vvv's ACSCap/ACSCtl and bus ranges,
 * nvidia-smi topo -m, and the rule over hand-built snapshots.
 */
#include "fixture.h"

#include <errno.h>

#include "collect/collectors.h"
#include "collect/pci_acs.h"
#include "offline/offline.h"
#include "output/output.h"
#include "rules/window.h"

#define CFG(name) GD_SRCDIR "/tests/unit/data/pci-config/" name

static size_t load(const char *path, uint8_t *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

static int find(const uint8_t *cfg, size_t len, uint16_t *cap, uint16_t *ctl, struct gd_err *e)
{
	gd_err_clear(e);
	return gd_pci_acs_find(cfg, len, cap, ctl, e);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void test_acs_real_bytes(void **state)
{
	static uint8_t cfg[4096];
	uint16_t cap = 0, ctl = 0;
	struct gd_err e;
	size_t n;

	(void)state;
	n = load(CFG("haswell-rp-acs-redirect.bin"), cfg, sizeof cfg);
	assert_int_equal(n, 4096);
	assert_int_equal(find(cfg, n, &cap, &ctl, &e), 1);
	assert_int_equal(cap, 0x1f);   /* lspci: ACSCap SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ */
	assert_int_equal(ctl, 0x1f);
	assert_true((ctl & GD_ACS_REDIRECT) == GD_ACS_REDIRECT);
	/* an unprivileged read: 64 bytes */
	assert_int_equal(find(cfg, 64, &cap, &ctl, &e), -ENODATA);
	assert_non_null(strstr(e.msg, "64 bytes"));
	/* a conventional function: 256 */
	assert_int_equal(find(cfg, 256, &cap, &ctl, &e), -ENODATA);

	n = load(CFG("sunrise-rp-acs-off.bin"), cfg, sizeof cfg);
	assert_int_equal(find(cfg, n, &cap, &ctl, &e), 1);
	assert_int_equal(cap, 0x0f);
	assert_int_equal(ctl, 0);

	n = load(CFG("jhl6240-bridge-no-acs.bin"), cfg, sizeof cfg);
	assert_int_equal(find(cfg, n, &cap, &ctl, &e), 0);
}

static void test_acs_malformed(void **state)
{
	static uint8_t cfg[4096];
	uint16_t cap, ctl;
	struct gd_err e;

	(void)state;
	memset(cfg, 0, sizeof cfg);
	assert_int_equal(find(cfg, sizeof cfg, &cap, &ctl, &e), 0);   /* no extended capabilities */
	memset(cfg + 0x100, 0xff, 4);
	assert_int_equal(find(cfg, sizeof cfg, &cap, &ctl, &e), 0);   /* all ones: none either */
	/* a capability whose next points to itself */
	put32(cfg + 0x100, 0x1u << 16 | 0x100u << 20 | 0x0001);
	assert_int_equal(find(cfg, sizeof cfg, &cap, &ctl, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "loops"));
	/* a next offset that is not aligned */
	put32(cfg + 0x100, 0x1u << 16 | 0x142u << 20 | 0x0001);
	assert_int_equal(find(cfg, sizeof cfg, &cap, &ctl, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "0x142"));
	/* a next offset below 0x100 */
	put32(cfg + 0x100, 0x1u << 16 | 0x040u << 20 | 0x0001);
	assert_int_equal(find(cfg, sizeof cfg, &cap, &ctl, &e), -EINVAL);
	/* past what was read */
	put32(cfg + 0x100, 0x1u << 16 | 0x200u << 20 | 0x0001);
	assert_int_equal(find(cfg, 0x180, &cap, &ctl, &e), -EINVAL);
	/* ACS cut off after its header */
	put32(cfg + 0x100, 0x1u << 16 | 0x000d);
	assert_int_equal(find(cfg, 0x106, &cap, &ctl, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "cut off"));
	assert_int_equal(find(cfg, 0x108, &cap, &ctl, &e), 1);
}

/* The collector reads a bridge's config space a dword at a time along the
 * capability list instead of whole: on every config file here, real and
 * malformed, it must record what gd_pci_acs_find says of the whole file. */
static void collect_one_bridge(const uint8_t *cfg, size_t len, struct gd_snapshot *s)
{
	struct tree t;
	struct gd_err err;

	tree_init(&t, "acs");
	tree_putn(&t, "sys/devices/pci0000:40/0000:40:00.0/config", (const char *)cfg, len);
	tree_put(&t, "sys/devices/pci0000:40/0000:40:00.0/0000:41:00.0/vendor", "0x10de\n");
	tree_put(&t, "sys/devices/pci0000:40/0000:40:00.0/0000:41:00.0/class", "0x030200\n");
	tree_mkdirs(&t, "sys/bus/pci/devices/x", false);
	tree_link(&t, "../../../devices/pci0000:40/0000:40:00.0", "sys/bus/pci/devices/0000:40:00.0");
	tree_link(&t, "../../../devices/pci0000:40/0000:40:00.0/0000:41:00.0", "sys/bus/pci/devices/0000:41:00.0");
	gd_snapshot_init(s);
	run(gd_collect_pci, &t.ctx, s, &err);   /* first, as gd_collect_all runs them: the GPUs */
	assert_int_equal(s->pci_gpus.n, 1);
	run(gd_collect_pci_acs, &t.ctx, s, &err);
	tree_release(&t);
}

static void check_chain_read(const uint8_t *cfg, size_t len)
{
	struct gd_snapshot s;
	const struct gd_pci_bridge *b;
	uint16_t cap = 0, ctl = 0;
	struct gd_err e;
	int rc = find(cfg, len, &cap, &ctl, &e);

	collect_one_bridge(cfg, len, &s);
	assert_int_equal(s.pci_bridges.n, 1);
	b = GD_VEC_AT(s.pci_bridges, struct gd_pci_bridge, 0);
	assert_string_equal(b->pci_bus_id, "0000:40:00.0");
	assert_true(b->config_bytes.ok);
	assert_int_equal(b->config_bytes.v, len);
	assert_int_equal(b->acs_cap.ok, rc == 1);
	assert_int_equal(b->acs_ctl.ok, rc == 1);
	if (rc == 1) {
		assert_int_equal(b->acs_cap.v, cap);
		assert_int_equal(b->acs_ctl.v, ctl);
	}
	if (rc == -EINVAL) {
		char want[sizeof b->reason];

		GD_STRSET(want, e.msg);   /* as the field keeps it */
		assert_string_equal(b->reason, want);
	} else {
		assert_string_equal(b->reason, "");
	}
	gd_snapshot_release(&s);
}

static void test_acs_collector_reads_chain(void **state)
{
	static const char *const real[] = { "haswell-rp-acs-redirect.bin", "sunrise-rp-acs-off.bin",
					    "jhl6240-bridge-no-acs.bin" };
	static uint8_t cfg[4096];
	char path[512];

	(void)state;
	for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
		size_t n;

		snprintf(path, sizeof path, CFG("%s"), real[i]);
		n = load(path, cfg, sizeof cfg);
		check_chain_read(cfg, n);     /* as root */
		check_chain_read(cfg, 64);    /* as anyone else */
		check_chain_read(cfg, 256);   /* a conventional function */
	}
	memset(cfg, 0, sizeof cfg);
	check_chain_read(cfg, sizeof cfg);   /* no extended capabilities */
	check_chain_read(cfg, 0);
	memset(cfg + 0x100, 0xff, 4);
	check_chain_read(cfg, sizeof cfg);
	put32(cfg + 0x100, 0x1u << 16 | 0x100u << 20 | 0x0001);   /* loops */
	check_chain_read(cfg, sizeof cfg);
	put32(cfg + 0x100, 0x1u << 16 | 0x142u << 20 | 0x0001);   /* not aligned */
	check_chain_read(cfg, sizeof cfg);
	put32(cfg + 0x100, 0x1u << 16 | 0x040u << 20 | 0x0001);   /* below 0x100 */
	check_chain_read(cfg, sizeof cfg);
	put32(cfg + 0x100, 0x1u << 16 | 0x200u << 20 | 0x0001);   /* past the file */
	check_chain_read(cfg, 0x180);
	put32(cfg + 0x200, 0x1u << 16 | 0x000d);                  /* ACS second, then cut off */
	put32(cfg + 0x204, 0x001d005f);
	check_chain_read(cfg, sizeof cfg);
	check_chain_read(cfg, 0x206);
	check_chain_read(cfg, 0x208);
}

static void test_acs_bits_text(void **state)
{
	char t[96];

	(void)state;
	gd_acs_bits_text(GD_ACS_REDIRECT, t, sizeof t);
	assert_string_equal(t, "ReqRedir+ CmpltRedir+");
	gd_acs_bits_text(0x1f, t, sizeof t);
	assert_string_equal(t, "SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+");
	gd_acs_bits_text(0, t, sizeof t);
	assert_string_equal(t, "");
	gd_acs_bits_text(0x7f, t, 12);   /* cut at a word, always terminated */
	assert_string_equal(t, "SrcValid+");
}

/* ---- lspci -vvv ------------------------------------------------------------ */

/* Bridges in the shape pciutils prints them, a switch with two GPUs below. */
static const char switch_paste[] =
	"0000:00:03.0 PCI bridge: Intel Corporation Sky Lake-E PCI Express Root Port A (rev 04) (prog-if 00 [Normal decode])\n"
	"\tBus: primary=00, secondary=02, subordinate=05, sec-latency=0\n"
	"\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n"
	"\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-\n"
	"0000:02:00.0 PCI bridge: PLX Technology, Inc. PEX 8747 48-Lane, 5-Port PCI Express Gen 3 (8.0 GT/s) Switch (rev ca)\n"
	"\tBus: primary=02, secondary=03, subordinate=05, sec-latency=0\n"
	"0000:03:08.0 PCI bridge: PLX Technology, Inc. PEX 8747 48-Lane, 5-Port PCI Express Gen 3 (8.0 GT/s) Switch (rev ca)\n"
	"\tBus: primary=03, secondary=04, subordinate=04, sec-latency=0\n"
	"\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n"
	"0000:03:10.0 PCI bridge: PLX Technology, Inc. PEX 8747 48-Lane, 5-Port PCI Express Gen 3 (8.0 GT/s) Switch (rev ca)\n"
	"\tBus: primary=03, secondary=05, subordinate=05, sec-latency=0\n"
	"\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-\n"
	"0000:04:00.0 3D controller: NVIDIA Corporation GV100GL [Tesla V100 PCIe 32GB] (rev a1)\n"
	"\tKernel driver in use: nvidia\n"
	"0000:05:00.0 3D controller: NVIDIA Corporation GV100GL [Tesla V100 PCIe 32GB] (rev a1)\n"
	"\tKernel driver in use: nvidia\n";

static void test_lspci_bridges_and_paths(void **state)
{
	struct gd_snapshot s;
	struct gd_err e;
	const struct gd_pci_bridge *b;
	struct gd_findings out;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_lspci, switch_paste, &s, &e), 0);
	assert_int_equal(s.pci_bridges.n, 4);
	b = GD_VEC_AT(s.pci_bridges, struct gd_pci_bridge, 2);
	assert_string_equal(b->pci_bus_id, "0000:03:08.0");
	assert_string_equal(b->source, "lspci");
	assert_int_equal(b->secondary_bus.v, 4);
	assert_int_equal(b->acs_ctl.v, 0x1d);
	assert_false(GD_VEC_AT(s.pci_bridges, struct gd_pci_bridge, 1)->acs_ctl.ok);   /* no ACS lines */
	assert_int_equal(GD_VEC_AT(s.pci_bridges, struct gd_pci_bridge, 0)->acs_cap.v, 0x1f);
	assert_int_equal(s.pci_gpus.n, 2);
	assert_string_equal(GD_VEC_AT(s.pci_gpus, struct gd_pci_gpu, 0)->pci_path,
			    "pci0000:00/0000:00:03.0/0000:02:00.0/0000:03:08.0");
	assert_string_equal(GD_VEC_AT(s.pci_gpus, struct gd_pci_gpu, 1)->pci_path,
			    "pci0000:00/0000:00:03.0/0000:02:00.0/0000:03:10.0");
	/* the rule: the lspci output is not root's (no config_bytes), yet its
	 * control line is what is in force: 03:08.0 stands between them */
	gd_findings_init(&out);
	gd_u64_set(&GD_VEC_AT(s.pci_bridges, struct gd_pci_bridge, 2)->config_bytes, 4096);
	for (size_t i = 0; i < s.pci_bridges.n; i++)
		gd_u64_set(&GD_VEC_AT(s.pci_bridges, struct gd_pci_bridge, i)->config_bytes, 4096);
	assert_int_equal(run_rule2("gpu.p2p_acs_redirect", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_int_equal(out.items.n, 1);
	assert_string_equal(FINDING(out, 0)->subject, "bridge 0000:03:08.0");
	assert_non_null(strstr(FINDING(out, 0)->summary, "ReqRedir+ CmpltRedir+"));
	assert_non_null(strstr(FINDING(out, 0)->remedy, "setpci -s 0000:03:08.0 ECAP_ACS+6.w=0000"));
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

static void test_lspci_acs_malformed(void **state)
{
	struct gd_snapshot s;
	struct gd_err e;

	(void)state;
	gd_snapshot_init(&s);
	/* a word that is not Name+ / Name-: the line is skipped and named */
	assert_int_equal(parse_lit(gd_parse_lspci,
				   "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+\n"
				   "\t\tACSCtl:\tSrcValid? garbage\n", &s, &e), 1);
	assert_non_null(strstr(e.msg, "line 2"));
	assert_non_null(strstr(e.msg, "ACSCtl"));
	assert_int_equal(s.pci_bridges.n, 1);
	assert_string_equal(GD_VEC_AT(s.pci_bridges, struct gd_pci_bridge, 0)->pci_bus_id, "");
	gd_snapshot_release(&s);
	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_lspci, "ACSCtl: nothing here\n", &s, &e) < 0);
	assert_non_null(strstr(e.msg, "ACSCtl"));
	gd_snapshot_release(&s);
}

/* ---- nvidia-smi topo -m ------------------------------------------------------ */

static const char topo_nic[] =
	"\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
	"GPU0\t X \tPIX\tSYS\t0-31\t0\t\tN/A\n"
	"GPU1\tPIX\t X \tSYS\t0-31\t0\t\tN/A\n"
	"NIC0\tSYS\tSYS\t X \t\t\t\t\n"
	"\n"
	"NIC Legend:\n"
	"\n"
	"  NIC0: mlx5_0\n";

static const struct gd_pci_topo *cell(const struct gd_snapshot *s, const char *a, const char *b)
{
	GD_VEC_EACH(s->pci_topo, const struct gd_pci_topo, c)
		if (strcmp(c->a, a) == 0 && strcmp(c->b, b) == 0)
			return c;
	return NULL;
}

static void test_topo(void **state)
{
	struct gd_snapshot s;
	struct gd_err e;
	struct gd_findings out;
	const struct gd_pci_topo *c;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(gd_ofl_detect(topo_nic, strlen(topo_nic)), GD_OFL_TOPO);
	assert_int_equal(parse_lit(gd_parse_nvsmi_topo, topo_nic, &s, &e), 0);
	assert_int_equal(s.pci_topo.n, 4);   /* GPU rows only, X left out */
	c = cell(&s, "GPU1", "NIC0");
	assert_non_null(c);
	assert_string_equal(c->link, "SYS");
	assert_string_equal(c->b_device, "mlx5_0");
	assert_int_equal(c->a_numa_node.v, 0);
	assert_string_equal(cell(&s, "GPU0", "GPU1")->link, "PIX");
	/* both GPUs reach the NIC only across the sockets */
	gd_findings_init(&out);
	assert_int_equal(run_rule2("net.gpu_nic_far", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_int_equal(out.items.n, 2);
	assert_string_equal(FINDING(out, 0)->subject, "gpu0");
	assert_non_null(strstr(FINDING(out, 0)->summary, "mlx5_0"));
	gd_findings_release(&out);
	/* the ACS rule cannot judge a PIX pair without the bridges */
	gd_findings_init(&out);
	assert_int_equal(run_rule2("gpu.p2p_acs_redirect", &s, NULL, NULL, &out), GD_VERDICT_UNKNOWN);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

static void test_topo_malformed(void **state)
{
	struct gd_snapshot s;
	struct gd_err e;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_topo,
				   "        GPU0    GPU1    CPU Affinity\n"
				   "GPU0     X      NV12    0-15\n"
				   "GPU1    NV12     X      0-15\n"
				   "GPU2    FAST     X      0-15\n", &s, &e), 1);
	assert_non_null(strstr(e.msg, "line 4"));
	assert_int_equal(s.pci_topo.n, 2);
	assert_string_equal(GD_VEC_AT(s.pci_topo, struct gd_pci_topo, 0)->link, "NV12");
	gd_snapshot_release(&s);
	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_nvsmi_topo, "GPU0 is fine\n", &s, &e) < 0);
	assert_non_null(strstr(e.msg, "not nvidia-smi topo -m"));
	gd_snapshot_release(&s);
	gd_snapshot_init(&s);
	/* a row shorter than the header */
	assert_true(parse_lit(gd_parse_nvsmi_topo, "\tGPU0\tGPU1\tGPU2\nGPU0\t X \tPIX\n", &s, &e) < 0);
	assert_non_null(strstr(e.msg, "fewer cells"));
	gd_snapshot_release(&s);
}

/* ---- the rule over sysfs-shaped evidence --------------------------------------- */

static void two_gpus(struct gd_snapshot *s, uint64_t ctl, uint64_t bytes)
{
	static const char *const paths[2] = { "pci0000:38/0000:38:03.0/0000:40:00.0/0000:41:00.0",
					       "pci0000:38/0000:38:03.0/0000:40:00.0/0000:41:04.0" };
	static const char *const bridges[4] = { "0000:38:03.0", "0000:40:00.0", "0000:41:00.0", "0000:41:04.0" };

	gd_snapshot_init(s);
	for (int i = 0; i < 2; i++) {
		struct gd_pci_gpu *g = GD_PUSH(s, pci_gpus, struct gd_pci_gpu);

		snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "0000:4%d:00.0", 2 + i);
		GD_STRSET(g->pci_path, paths[i]);
		GD_STRSET(g->driver, "nvidia");
	}
	for (int i = 0; i < 4; i++) {
		struct gd_pci_bridge *b = GD_PUSH(s, pci_bridges, struct gd_pci_bridge);

		GD_STRSET(b->pci_bus_id, bridges[i]);
		GD_STRSET(b->source, "sysfs");
		gd_u64_set(&b->config_bytes, bytes);
		if (bytes >= 0x104) {
			gd_u64_set(&b->acs_cap, 0x5f);
			/* the root port and the upstream port are not on the path */
			gd_u64_set(&b->acs_ctl, i >= 2 ? ctl : 0x1d);
		}
	}
}

static void test_rule(void **state)
{
	struct gd_snapshot s;
	struct gd_findings out;

	(void)state;
	/* redirect on the switch's downstream ports: one finding each */
	two_gpus(&s, GD_ACS_SV | GD_ACS_RR | GD_ACS_CR, 4096);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("gpu.p2p_acs_redirect", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_int_equal(out.items.n, 2);
	assert_string_equal(FINDING(out, 0)->subject, "bridge 0000:41:00.0");
	assert_int_equal((int)ev_get(FINDING(out, 0), "peer_pairs")->value.v, 1);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
	/* only source validation: healthy, though the ports above redirect
	 * (the pair meets below them) */
	two_gpus(&s, GD_ACS_SV, 4096);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("gpu.p2p_acs_redirect", &s, NULL, NULL, &out), GD_VERDICT_CLEAR);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
	/* not root: 64 bytes, unavailable with that reason */
	two_gpus(&s, 0, 64);
	gd_findings_init(&out);
	assert_int_equal(run_rule2("gpu.p2p_acs_redirect", &s, NULL, NULL, &out), GD_VERDICT_UNKNOWN);
	assert_non_null(strstr(GD_VEC_AT(out.unknown, struct gd_unknown, 0)->reason, "64 bytes (not as root)"));
	gd_findings_release(&out);
	gd_snapshot_release(&s);
	/* a GPU passed through to a VM is not judged: no pair left */
	two_gpus(&s, GD_ACS_RR | GD_ACS_CR, 4096);
	GD_STRSET(GD_VEC_AT(s.pci_gpus, struct gd_pci_gpu, 1)->driver, "vfio-pci");
	gd_findings_init(&out);
	assert_int_equal(run_rule2("gpu.p2p_acs_redirect", &s, NULL, NULL, &out), GD_VERDICT_CLEAR);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
	/* IOMMU: identity is passthrough, DMA-FQ translates */
	two_gpus(&s, 0, 4096);
	for (int i = 0; i < 2; i++) {
		struct gd_pci_iommu *m = GD_PUSH(&s, pci_iommu, struct gd_pci_iommu);

		GD_STRSET(m->pci_bus_id, GD_VEC_AT(s.pci_gpus, struct gd_pci_gpu, i)->pci_bus_id);
		gd_u64_set(&m->group, 30 + (uint64_t)i);
		GD_STRSET(m->type, "identity");
	}
	gd_findings_init(&out);
	assert_int_equal(run_rule2("gpu.p2p_acs_redirect", &s, NULL, NULL, &out), GD_VERDICT_CLEAR);
	gd_findings_release(&out);
	GD_STRSET(GD_VEC_AT(s.pci_iommu, struct gd_pci_iommu, 1)->type, "DMA-FQ");
	gd_findings_init(&out);
	assert_int_equal(run_rule2("gpu.p2p_acs_redirect", &s, NULL, NULL, &out), GD_VERDICT_FIRED);
	assert_string_equal(FINDING(out, 0)->subject, "iommu");
	assert_int_equal((int)ev_get(FINDING(out, 0), "translated_gpus")->value.v, 1);
	gd_findings_release(&out);
	gd_snapshot_release(&s);
}

/* /metrics: the ACS registers per bridge, labelled by address and source only. */
static void test_prom(void **state)
{
	struct gd_snapshot s;
	const struct gd_snapshot *snaps[1] = { &s };
	struct gd_window w = { snaps, 1 };
	struct gd_findings none;
	struct gd_report r = { &w, &none, false, "test", 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	(void)state;
	two_gpus(&s, GD_ACS_RR | GD_ACS_CR, 4096);
	GD_STRSET(GD_VEC_AT(s.pci_bridges, struct gd_pci_bridge, 0)->reason, "a reason");
	gd_findings_init(&none);
	m = open_memstream(&buf, &len);
	assert_non_null(m);
	gd_out_prom(m, &r);
	assert_int_equal(fclose(m), 0);
	if (!strstr(buf, "gpudoctor_pci_bridges_acs_ctl{pci_bus_id=\"0000:41:00.0\",source=\"sysfs\"} 12"))
		fail_msg("no acs_ctl of 0000:41:00.0 in:\n%s", buf);
	assert_null(strstr(buf, "a reason"));
	assert_null(strstr(buf, "pci_topo"));
	free(buf);
	gd_findings_release(&none);
	gd_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_acs_real_bytes),
		cmocka_unit_test(test_acs_malformed),
		cmocka_unit_test(test_acs_collector_reads_chain),
		cmocka_unit_test(test_acs_bits_text),
		cmocka_unit_test(test_lspci_bridges_and_paths),
		cmocka_unit_test(test_lspci_acs_malformed),
		cmocka_unit_test(test_topo),
		cmocka_unit_test(test_topo_malformed),
		cmocka_unit_test(test_rule),
		cmocka_unit_test(test_prom),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
