/*
 * test_collect_gpu_host.c - GPU evidence without NVML: NVIDIA functions and
 * NICs on the PCI bus (sys_bus_pci.c), the kernel module's version
 * (nvidia_procfs.c), the CUDA runtimes GPU jobs map (proc_pid_maps.c),
 * Cpus_allowed_list in status, CPU lists, and GPU-job membership through
 * NVML's process list (jobs.c).
 */
#include "fixture.h"

#include <errno.h>

#include "collect/gpu_host.h"
#include "core/cpulist.h"
#include "model/jobs.h"

/* ---- link speed, AER, PCIe path ---------------------------------------- */

static int speed(const char *text, double *gts, uint64_t *gen)
{
	return gd_pci_speed_parse((struct gd_slice){ text, strlen(text) }, gts, gen);
}

static void test_pci_speed(void **state)
{
	double gts = -1;
	uint64_t gen = 99;

	(void)state;
	assert_int_equal(speed("32.0 GT/s PCIe\n", &gts, &gen), 0);
	NEAR(gts, 32.0, 1e-9);
	assert_int_equal(gen, 5);
	assert_int_equal(speed("16.0 GT/s PCIe", &gts, &gen), 0);
	assert_int_equal(gen, 4);
	/* kernels <= 5.6: no "PCIe", integers */
	assert_int_equal(speed("8 GT/s", &gts, &gen), 0);
	assert_int_equal(gen, 3);
	assert_int_equal(speed("2.5 GT/s", &gts, &gen), 0);
	assert_int_equal(gen, 1);
	assert_int_equal(speed("5 GT/s", &gts, &gen), 0);
	assert_int_equal(gen, 2);
	assert_int_equal(speed("64.0 GT/s PCIe", &gts, &gen), 0);
	assert_int_equal(gen, 6);
	gen = 77;
	assert_int_equal(speed("Unknown", &gts, &gen), 1);
	assert_int_equal(speed("Unknown speed", &gts, &gen), 1);
	assert_int_equal(gen, 77);   /* untouched */
	assert_int_equal(speed("7 GT/s", &gts, &gen), -EINVAL);
	assert_int_equal(speed("16.0 Gb/s", &gts, &gen), -EINVAL);
	assert_int_equal(speed("fast", &gts, &gen), -EINVAL);
	assert_int_equal(speed("", &gts, &gen), -EINVAL);
	assert_int_equal(speed("-8 GT/s", &gts, &gen), -EINVAL);
	assert_int_equal(speed("1e400 GT/s", &gts, &gen), -EINVAL);
}

static void test_pci_link_speed_parser(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_pci_gpu *g;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_pci_link_speed, "16.0 GT/s PCIe\n", &s, &err), 0);
	g = GD_VEC_AT(s.pci_gpus, struct gd_pci_gpu, 0);
	assert_true(g->link_gen.ok);
	assert_int_equal(g->link_gen.v, 4);
	NEAR(g->link_speed_gts.v, 16.0, 1e-9);
	assert_true(parse_lit(gd_parse_pci_link_speed, "sixteen GT/s", &s, &err) < 0);
	assert_contains(err.msg, "not a link speed");
	assert_true(gd_parse_pci_link_speed("8 GT/s\0x", 8, &s, &err) < 0);
	assert_contains(err.msg, "binary");
	gd_snapshot_release(&s);
}

/* Kernel 6.x labels, and the older ones with spaces in them. */
static const char AER_COR_NEW[] = "RxErr 0\nBadTLP 2\nBadDLLP 1\nRollover 0\nTimeout 0\nNonFatalErr 0\n"
				  "CorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 3\n";
static const char AER_COR_OLD[] = "Receiver Error 4\nBad TLP 0\nBad DLLP 0\nRELAY_NUM Rollover 0\n"
				  "Replay Timer Timeout 1\nAdvisory Non-Fatal 0\nTOTAL_ERR_COR 5\n";
static const char AER_FATAL[] = "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 0\nCmpltAbrt 0\n"
				"UnxCmplt 0\nRxOF 0\nMalfTLP 0\nECRC 0\nUnsupReq 0\nACSViol 0\nUncorrIntErr 0\n"
				"BlockedTLP 0\nAtomicOpBlocked 0\nTLPBlockedErr 0\nPoisonTLPBlocked 0\nTOTAL_ERR_FATAL 0\n";

static void test_pci_aer(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_pci_gpu *g;
	uint64_t v = 42;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_pci_aer_correctable, AER_COR_NEW, &s, &err), 0);
	assert_int_equal(parse_lit(gd_parse_pci_aer_fatal, AER_FATAL, &s, &err), 0);
	assert_int_equal(parse_lit(gd_parse_pci_aer_nonfatal, "TOTAL_ERR_NONFATAL 7\n", &s, &err), 0);
	g = GD_VEC_AT(s.pci_gpus, struct gd_pci_gpu, 0);
	assert_int_equal(s.pci_gpus.n, 1);
	assert_int_equal(g->aer_correctable.v, 3);
	assert_true(g->aer_fatal.ok);
	assert_int_equal(g->aer_fatal.v, 0);
	assert_int_equal(g->aer_nonfatal.v, 7);
	gd_snapshot_release(&s);

	gd_err_clear(&err);
	assert_int_equal(gd_pci_aer_total(AER_COR_OLD, strlen(AER_COR_OLD), "TOTAL_ERR_COR", &v, &err), 0);
	assert_int_equal(v, 5);
	/* the wrong file for the key, a truncated file, junk, overflow, NULs */
	assert_int_equal(gd_pci_aer_total(AER_FATAL, strlen(AER_FATAL), "TOTAL_ERR_COR", &v, &err), -ENODATA);
	assert_contains(err.msg, "no TOTAL_ERR_COR");
	assert_int_equal(gd_pci_aer_total("RxErr 0\nBadTLP", 14, "TOTAL_ERR_COR", &v, &err), -ENODATA);
	assert_int_equal(gd_pci_aer_total("TOTAL_ERR_COR x\n", 16, "TOTAL_ERR_COR", &v, &err), -EINVAL);
	assert_contains(err.msg, "line 1");
	assert_int_equal(gd_pci_aer_total("TOTAL_ERR_COR 18446744073709551616\n", 35, "TOTAL_ERR_COR", &v, &err),
			 -EINVAL);
	assert_int_equal(gd_pci_aer_total("TOTAL_ERR_COR 1 2\n", 18, "TOTAL_ERR_COR", &v, &err), -EINVAL);
	assert_int_equal(gd_pci_aer_total("TOTAL_ERR_COR 1\0\n", 17, "TOTAL_ERR_COR", &v, &err), -EINVAL);
	assert_int_equal(gd_pci_aer_total("", 0, "TOTAL_ERR_COR", &v, &err), -ENODATA);
	assert_int_equal(v, 5);   /* never clobbered by a failure */
}

static void test_pci_path(void **state)
{
	char out[256];

	(void)state;
	assert_true(gd_pci_path_of("../../../devices/pci0000:38/0000:38:03.0/0000:40:00.0/0000:41:00.0/0000:43:00.0",
				   out, sizeof out));
	assert_string_equal(out, "pci0000:38/0000:38:03.0/0000:40:00.0/0000:41:00.0");
	/* a VM: the GPU right under the host bridge */
	assert_true(gd_pci_path_of("../../../devices/pci0000:00/0000:00:05.0", out, sizeof out));
	assert_string_equal(out, "pci0000:00");
	/* Hyper-V's virtual PCI bus */
	assert_true(gd_pci_path_of("../../../devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/VMBUS:00/"
				   "2e0e94c6-1f70-4b35-9c3a-1b9dbc4bbf64/pci1f70:00/1f70:00:00.0", out, sizeof out));
	assert_contains(out, "pci1f70:00");
	assert_false(gd_pci_path_of("somewhere/else", out, sizeof out));
	assert_string_equal(out, "");
	assert_false(gd_pci_path_of("../devices/pci0000:00/0000:00:01.0/0000:01:00.0", out, 8));
}

/* ---- the pci collector over a fixture tree ----------------------------- */

static void put_fn(struct tree *t, const char *path, const char *bdf, const char *vendor, const char *cls)
{
	char rel[256], target[256];

	snprintf(rel, sizeof rel, "sys/devices/%s/%s/vendor", path, bdf);
	tree_put(t, rel, vendor);
	snprintf(rel, sizeof rel, "sys/devices/%s/%s/class", path, bdf);
	tree_put(t, rel, cls);
	snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s", bdf);
	snprintf(target, sizeof target, "../../../devices/%s/%s", path, bdf);
	tree_link(t, target, rel);
}

static void put_attr(struct tree *t, const char *path, const char *bdf, const char *file, const char *text)
{
	char rel[256];

	snprintf(rel, sizeof rel, "sys/devices/%s/%s/%s", path, bdf, file);
	tree_put(t, rel, text);
}

#define GPU0_PATH "pci0000:38/0000:38:03.0/0000:40:00.0/0000:41:00.0"

static void pci_tree(struct tree *t)
{
	tree_init(t, "pci");
	/* an H100 bound to nvidia, with link and AER attributes */
	put_fn(t, GPU0_PATH, "0000:43:00.0", "0x10de\n", "0x030200\n");
	put_attr(t, GPU0_PATH, "0000:43:00.0", "device", "0x2330\n");
	put_attr(t, GPU0_PATH, "0000:43:00.0", "numa_node", "1\n");
	put_attr(t, GPU0_PATH, "0000:43:00.0", "local_cpulist", "56-111,168-223\n");
	put_attr(t, GPU0_PATH, "0000:43:00.0", "current_link_speed", "32.0 GT/s PCIe\n");
	put_attr(t, GPU0_PATH, "0000:43:00.0", "max_link_speed", "32.0 GT/s PCIe\n");
	put_attr(t, GPU0_PATH, "0000:43:00.0", "current_link_width", "8\n");
	put_attr(t, GPU0_PATH, "0000:43:00.0", "max_link_width", "16\n");
	put_attr(t, GPU0_PATH, "0000:43:00.0", "aer_dev_correctable", AER_COR_NEW);
	put_attr(t, GPU0_PATH, "0000:43:00.0", "aer_dev_fatal", AER_FATAL);
	put_attr(t, GPU0_PATH, "0000:43:00.0", "aer_dev_nonfatal", "TOTAL_ERR_NONFATAL 0\n");
	tree_link(t, "../../../../../../bus/pci/drivers/nvidia", "sys/devices/" GPU0_PATH "/0000:43:00.0/driver");
	/* a GPU passed through to a VM: no link attributes, no AER, numa -1 */
	put_fn(t, "pci0000:00/0000:00:02.0", "0000:01:00.0", "0x10de\n", "0x030000\n");
	put_attr(t, "pci0000:00/0000:00:02.0", "0000:01:00.0", "numa_node", "-1\n");
	put_attr(t, "pci0000:00/0000:00:02.0", "0000:01:00.0", "current_link_speed", "Unknown\n");
	tree_link(t, "../../../../bus/pci/drivers/vfio-pci", "sys/devices/pci0000:00/0000:00:02.0/0000:01:00.0/driver");
	/* its HDMI audio function and an NVSwitch: NVIDIA, not GPUs */
	put_fn(t, "pci0000:00/0000:00:02.0", "0000:01:00.1", "0x10de\n", "0x040300\n");
	put_fn(t, "pci0000:00/0000:00:03.0", "0000:05:00.0", "0x10de\n", "0x068000\n");
	/* a bridge, an InfiniBand HCA and an Ethernet port */
	put_fn(t, "pci0000:38", "0000:38:03.0", "0x8086\n", "0x060400\n");
	put_fn(t, "pci0000:38/0000:38:02.0", "0000:3b:00.0", "0x15b3\n", "0x020700\n");
	put_attr(t, "pci0000:38/0000:38:02.0", "0000:3b:00.0", "numa_node", "1\n");
	put_attr(t, "pci0000:38/0000:38:02.0", "0000:3b:00.0", "net/ib0/mtu", "4092\n");
	put_attr(t, "pci0000:38/0000:38:02.0", "0000:3b:00.0", "infiniband/mlx5_0/fw_ver", "28.39.1002\n");
	put_fn(t, "pci0000:16/0000:16:02.0", "0000:17:00.0", "0x8086\n", "0x020000\n");
	put_attr(t, "pci0000:16/0000:16:02.0", "0000:17:00.0", "numa_node", "0\n");
	put_attr(t, "pci0000:16/0000:16:02.0", "0000:17:00.0", "net/eth0/mtu", "9000\n");
}

static void test_collect_pci(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_pci_gpu *g, *vm;
	const struct gd_pci_nic *ib, *eth;

	(void)state;
	pci_tree(&t);
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_pci, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.pci_gpus.n, 2);
	vm = GD_VEC_AT(s.pci_gpus, struct gd_pci_gpu, 0);   /* sorted: 0000:01 first */
	g = GD_VEC_AT(s.pci_gpus, struct gd_pci_gpu, 1);
	assert_string_equal(g->pci_bus_id, "0000:43:00.0");
	assert_int_equal(g->device_id.v, 0x2330);
	assert_int_equal(g->pci_class.v, 0x030200);
	assert_string_equal(g->driver, "nvidia");
	assert_int_equal(g->numa_node.v, 1);
	assert_string_equal(g->local_cpus, "56-111,168-223");
	assert_int_equal(g->link_gen.v, 5);
	assert_int_equal(g->link_gen_max.v, 5);
	NEAR(g->link_speed_max_gts.v, 32.0, 1e-9);
	assert_int_equal(g->link_width.v, 8);
	assert_int_equal(g->link_width_max.v, 16);
	assert_int_equal(g->aer_correctable.v, 3);
	assert_int_equal(g->aer_fatal.v, 0);
	assert_true(g->aer_nonfatal.ok);
	assert_string_equal(g->pci_path, GPU0_PATH);
	assert_string_equal(vm->pci_bus_id, "0000:01:00.0");
	assert_string_equal(vm->driver, "vfio-pci");
	assert_false(vm->numa_node.ok);
	assert_false(vm->link_gen.ok);
	assert_false(vm->link_width.ok);
	assert_false(vm->aer_correctable.ok);
	assert_false(vm->device_id.ok);
	assert_string_equal(vm->pci_path, "pci0000:00/0000:00:02.0");

	assert_int_equal(s.pci_nics.n, 2);
	eth = GD_FIND_PREV(&s, pci_nics, struct gd_pci_nic, pci_bus_id, "0000:17:00.0");
	ib = GD_FIND_PREV(&s, pci_nics, struct gd_pci_nic, pci_bus_id, "0000:3b:00.0");
	assert_non_null(eth);
	assert_non_null(ib);
	assert_string_equal(eth->netif, "eth0");
	assert_string_equal(eth->rdma_device, "");
	assert_int_equal(eth->numa_node.v, 0);
	assert_string_equal(ib->netif, "ib0");
	assert_string_equal(ib->rdma_device, "mlx5_0");
	assert_int_equal(ib->pci_class.v, 0x020700);
	assert_string_equal(ib->pci_path, "pci0000:38/0000:38:02.0");
	gd_snapshot_release(&s);

	/* a malformed attribute: partial, named, the rest kept */
	put_attr(&t, GPU0_PATH, "0000:43:00.0", "aer_dev_correctable", "TOTAL_ERR_COR lots\n");
	put_attr(&t, GPU0_PATH, "0000:43:00.0", "current_link_speed", "warp 9\n");
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_pci, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_contains(err.msg, "0000:43:00.0");
	assert_contains(err.msg, "2 malformed");
	g = GD_VEC_AT(s.pci_gpus, struct gd_pci_gpu, 1);
	assert_false(g->aer_correctable.ok);
	assert_false(g->link_gen.ok);
	assert_int_equal(g->link_gen_max.v, 5);
	gd_snapshot_release(&s);
	tree_release(&t);

	/* no PCI bus in sysfs at all: absent */
	tree_init(&t, "pci");
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_pci, &t.ctx, &s, &err), GD_SRC_ABSENT);
	assert_contains(err.msg, "no PCI bus");
	assert_int_equal(s.pci_gpus.n, 0);
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* ---- /proc/driver/nvidia/version --------------------------------------- */

static const char VER_PROP[] = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n"
			       "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n";
static const char VER_OPEN[] = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.158.01  Release Build  "
			       "(dvs-builder@U16-I3-B03-4-3)  Tue Jun 10 22:45:34 UTC 2025\n"
			       "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)\n";
static const char VER_ARM[] = "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  550.54.15  Release Build  "
			      "(dvs-builder@U16-T02-35-3)  Tue Mar  5 22:11:37 UTC 2024\n";

static void test_nvidia_version(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	char v[32], fl[16];

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_driver_nvidia_version, VER_PROP, &s, &err), 0);
	assert_string_equal(s.driver.version, "535.104.05");
	assert_string_equal(s.driver.flavor, "proprietary");
	assert_int_equal(s.driver.loaded.v, 1);
	assert_int_equal(parse_lit(gd_parse_proc_driver_nvidia_version, VER_OPEN, &s, &err), 0);
	assert_string_equal(s.driver.version, "570.158.01");
	assert_string_equal(s.driver.flavor, "open");
	gd_snapshot_release(&s);

	gd_err_clear(&err);
	assert_int_equal(gd_nvidia_version_parse(VER_ARM, strlen(VER_ARM), v, sizeof v, fl, sizeof fl, &err), 0);
	assert_string_equal(v, "550.54.15");
	assert_string_equal(fl, "open");
	assert_int_equal(gd_nvidia_version_parse("", 0, v, sizeof v, fl, sizeof fl, &err), -EINVAL);
	assert_contains(err.msg, "NVRM version");
	assert_int_equal(gd_nvidia_version_parse("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n", 47, v, sizeof v, fl,
						 sizeof fl, &err), -EINVAL);
	assert_contains(err.msg, "no version");
	assert_string_equal(v, "");
	assert_int_equal(gd_nvidia_version_parse("NVRM version: something else 1.2\n", 34, v, sizeof v, fl, sizeof fl,
						 &err), -EINVAL);
	assert_int_equal(gd_nvidia_version_parse("NVRM version: NVIDIA UNIX x86_64 Kernel Module  5.3x.1\n", 55, v,
						 sizeof v, fl, sizeof fl, &err), -EINVAL);
	assert_int_equal(gd_nvidia_version_parse("NVRM\0version", 12, v, sizeof v, fl, sizeof fl, &err), -EINVAL);
	assert_contains(err.msg, "binary");
}

static void test_collect_nvidia_driver(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	tree_init(&t, "nvdrv");
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_nvidia_driver, &t.ctx, &s, &err), GD_SRC_ABSENT);
	assert_true(s.driver.loaded.ok);
	assert_int_equal(s.driver.loaded.v, 0);
	assert_contains(err.msg, "not loaded");
	gd_snapshot_release(&s);
	tree_put(&t, "proc/driver/nvidia/version", VER_OPEN);
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_nvidia_driver, &t.ctx, &s, &err), GD_SRC_OK);
	assert_int_equal(s.driver.loaded.v, 1);
	assert_string_equal(s.driver.version, "570.158.01");
	gd_snapshot_release(&s);
	tree_put(&t, "proc/driver/nvidia/version", "garbage\n");
	gd_snapshot_init(&s);
	assert_int_equal(run(gd_collect_nvidia_driver, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_int_equal(s.driver.loaded.v, 1);
	assert_string_equal(s.driver.version, "");
	assert_contains(err.msg, "/proc/driver/nvidia/version");
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* ---- CUDA runtimes in /proc/<pid>/maps ---------------------------------- */

static bool cudart(const char *path, char *ver)
{
	return gd_cudart_version((struct gd_slice){ path, strlen(path) }, ver, 16);
}

static void test_cudart_version(void **state)
{
	char v[16];

	(void)state;
	assert_true(cudart("/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127", v));
	assert_string_equal(v, "12.4.127");
	assert_true(cudart("/opt/conda/lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12", v));
	assert_string_equal(v, "12");
	assert_true(cudart("/usr/lib/python3/dist-packages/torch/lib/libcudart-9335f6a2.so.11.0", v));
	assert_string_equal(v, "11.0");
	assert_true(cudart("/usr/local/cuda/lib64/libcudart.so.12.8.57 (deleted)", v));
	assert_string_equal(v, "12.8.57");
	assert_true(cudart("libcudart.so.13.0.48", v));
	assert_string_equal(v, "13.0.48");
	assert_false(cudart("/usr/local/cuda/lib64/libcudart.so", v));
	assert_false(cudart("/usr/local/cuda/lib64/libcudart_static.a", v));
	assert_false(cudart("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", v));
	assert_false(cudart("/usr/local/cuda/lib64/libcudartx.so.12", v));
	assert_false(cudart("/x/libcudart.so.12..4", v));
	assert_false(cudart("/x/libcudart.so.12.", v));
	assert_false(cudart("/x/libcudart.so.12.4.127.999999999999999999", v));
	assert_false(cudart("/x/libcudart.so.12a", v));
	assert_false(cudart("", v));

	assert_true(gd_version_cmp("12.10", "12.4") > 0);
	assert_true(gd_version_cmp("12.4.127", "12.4") > 0);
	assert_true(gd_version_cmp("12", "12.0") == 0);
	assert_true(gd_version_cmp("11.8", "12") < 0);
}

static const char MAPS[] =
	"55d4c8a00000-55d4c8a01000 r--p 00000000 103:02 2753190                   /usr/bin/python3.11\n"
	"7f1b1c000000-7f1b1c021000 rw-p 00000000 00:00 0 \n"
	"7f2c4a000000-7f2c4a0c8000 r--p 00000000 103:02 1835123                   "
	"/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127\n"
	"7f2c4a0c8000-7f2c4a100000 r-xp 000c8000 103:02 1835123                   "
	"/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127\n"
	"7f2d00000000-7f2d00010000 r--p 00000000 00:31 88                         "
	"/usr/lib/python3/dist-packages/torch/lib/libcudart-9335f6a2.so.11.0\n"
	"7f3a00000000-7f3a00001000 r--p 00000000 103:02 99                        /data/my file with spaces.bin\n"
	"7ffd2c5e4000-7ffd2c606000 rw-p 00000000 00:00 0                          [stack]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";

static void test_maps_parser(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_proc *p;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_pid_maps, MAPS, &s, &err), 0);
	p = GD_VEC_AT(s.procs, struct gd_proc, 0);
	assert_string_equal(p->cuda_runtime, "12.4.127");   /* the newest of two */
	assert_string_equal(p->cuda_runtime_file, "/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127");
	assert_string_equal(p->cuda_stub, "");
	gd_snapshot_release(&s);

	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_pid_maps, "", &s, &err), 0);
	assert_string_equal(GD_VEC_AT(s.procs, struct gd_proc, 0)->cuda_runtime, "");
	/* a truncated line among good ones: partial, named */
	assert_int_equal(parse_lit(gd_parse_proc_pid_maps,
				   "7f2c4a000000-7f2c4a0c8000 r--p 00000000 103:02 1 /x/libcudart.so.12.1.105\n7f2c4a0c8000\n",
				   &s, &err), 1);
	assert_contains(err.msg, "line 2");
	assert_string_equal(GD_VEC_AT(s.procs, struct gd_proc, 0)->cuda_runtime, "12.1.105");
	assert_true(parse_lit(gd_parse_proc_pid_maps, "garbage\nmore garbage here and there\n", &s, &err) < 0);
	assert_true(gd_parse_proc_pid_maps("7f-8f r--p 0 0:0 0 /a\0b\n", 24, &s, &err) < 0);
	assert_contains(err.msg, "binary");
	gd_snapshot_release(&s);
}

static bool stub(const char *path)
{
	return gd_cuda_stub_file((struct gd_slice){ path, strlen(path) });
}

static void test_cuda_stub_file(void **state)
{
	(void)state;
	assert_true(stub("/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so"));
	assert_true(stub("/usr/local/cuda/lib64/stubs/libcuda.so (deleted)"));
	assert_true(stub("/opt/conda/lib/stubs/libcuda.so.1"));   /* a link to the stub named .so.1, resolved */
	assert_true(stub("/usr/lib/x86_64-linux-gnu/libcuda.so"));  /* the stub copied in: plain name */
	assert_true(stub("libcuda.so"));
	assert_false(stub("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"));   /* the driver's */
	assert_false(stub("/usr/local/cuda/compat/libcuda.so.535.261.03"));
	assert_false(stub("/usr/local/cuda/lib64/stubs/libcudart.so"));
	assert_false(stub("/usr/local/cuda/lib64/stubs/libcuda.sox"));
	assert_false(stub("/x/notstubs/libcuda.so.1"));
	assert_false(stub("/usr/lib/x86_64-linux-gnu/libcudadebugger.so.1"));
	assert_false(stub(""));
}

static void add_job_proc(struct gd_snapshot *s, uint64_t pid, uint64_t ppid, uint64_t nvidia_fds)
{
	struct gd_proc *p = GD_PUSH(s, procs, struct gd_proc);

	gd_u64_set(&p->pid, pid);
	gd_u64_set(&p->ppid, ppid);
	gd_u64_set(&p->nvidia_fds, nvidia_fds);
}

static void test_collect_cuda_runtime(void **state)
{
	struct tree t;
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_gpu_proc *gp;

	(void)state;
	tree_init(&t, "maps");
	tree_put(&t, "proc/4242/maps", MAPS);
	tree_put(&t, "proc/4301/maps", MAPS);   /* a loader worker: not read */
	tree_put(&t, "proc/5000/maps",
		 "7f00-7f10 r--p 00000000 00:31 5517 /venv/nvidia/cuda_runtime/lib/libcudart.so.12\n");
	gd_snapshot_init(&s);
	add_job_proc(&s, 4242, 1, 4);
	add_job_proc(&s, 4301, 4242, 0);
	add_job_proc(&s, 5000, 1, 0);   /* fds unreadable, but NVML lists it */
	add_job_proc(&s, 6000, 1, 2);   /* exited: no maps */
	gp = GD_PUSH(&s, gpu_procs, struct gd_gpu_proc);
	gd_u64_set(&gp->gpu, 1);
	gd_u64_set(&gp->pid, 5000);
	assert_int_equal(run(gd_collect_cuda_runtime, &t.ctx, &s, &err), GD_SRC_OK);
	assert_string_equal(GD_VEC_AT(s.procs, struct gd_proc, 0)->cuda_runtime, "12.4.127");
	assert_string_equal(GD_VEC_AT(s.procs, struct gd_proc, 1)->cuda_runtime, "");
	assert_string_equal(GD_VEC_AT(s.procs, struct gd_proc, 2)->cuda_runtime, "12");
	assert_string_equal(GD_VEC_AT(s.procs, struct gd_proc, 3)->cuda_runtime, "");
	gd_snapshot_release(&s);

	/* the toolkit's stub: read in a container's mount namespace too, and
	 * for the stub alone there (its libcudart is not a GPU job's) */
	tree_put(&t, "proc/7000/maps",
		 "7f00-7f10 r-xp 00000000 00:31 9 /usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so\n"
		 "7f20-7f30 r-xp 00000000 00:31 8 /usr/local/cuda/lib64/libcudart.so.13\n");
	tree_put(&t, "proc/7001/maps", "7f00-7f10 r-xp 00000000 00:31 9 /usr/local/cuda/lib64/stubs/libcuda.so\n");
	tree_put(&t, "proc/4242/maps",
		 "7f00-7f10 r-xp 00000000 00:31 9 /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15\n");
	gd_snapshot_init(&s);
	add_job_proc(&s, 1, 0, 0);
	GD_STRSET(GD_VEC_AT(s.procs, struct gd_proc, 0)->mntns, "mnt:[4026531841]");
	add_job_proc(&s, 7000, 1, 0);   /* in a container, no GPU: the stub gave it none */
	GD_STRSET(GD_VEC_AT(s.procs, struct gd_proc, 1)->mntns, "mnt:[4026532512]");
	add_job_proc(&s, 7001, 1, 0);   /* on the host, no GPU: not read */
	GD_STRSET(GD_VEC_AT(s.procs, struct gd_proc, 2)->mntns, "mnt:[4026531841]");
	add_job_proc(&s, 4242, 1, 4);   /* a GPU job with the driver's libcuda */
	GD_STRSET(GD_VEC_AT(s.procs, struct gd_proc, 3)->mntns, "mnt:[4026531841]");
	assert_int_equal(run(gd_collect_cuda_runtime, &t.ctx, &s, &err), GD_SRC_OK);
	assert_string_equal(GD_VEC_AT(s.procs, struct gd_proc, 1)->cuda_stub,
			    "/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so");
	assert_string_equal(GD_VEC_AT(s.procs, struct gd_proc, 1)->cuda_runtime, "");
	assert_string_equal(GD_VEC_AT(s.procs, struct gd_proc, 2)->cuda_stub, "");
	assert_string_equal(GD_VEC_AT(s.procs, struct gd_proc, 3)->cuda_stub, "");
	gd_snapshot_release(&s);

	/* a malformed maps file: partial, naming the pid */
	tree_put(&t, "proc/4242/maps", "not a maps line\n");
	gd_snapshot_init(&s);
	add_job_proc(&s, 4242, 1, 4);
	assert_int_equal(run(gd_collect_cuda_runtime, &t.ctx, &s, &err), GD_SRC_PARTIAL);
	assert_contains(err.msg, "/proc/4242/maps");
	gd_snapshot_release(&s);
	tree_release(&t);
}

/* ---- Cpus_allowed_list and CPU lists ------------------------------------ */

static const char STATUS[] = "Name:\tpython\nUmask:\t0022\nState:\tR (running)\nTgid:\t4242\nPid:\t4242\nPPid:\t4200\n"
			     "Uid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\nThreads:\t5\n"
			     "Cpus_allowed:\tff00\nCpus_allowed_list:\t8-15\nMems_allowed_list:\t1\n"
			     "voluntary_ctxt_switches:\t91234\n";

static void test_status_cpus_allowed(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_proc *p;
	char big[600];
	size_t n;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_pid_status, STATUS, &s, &err), 0);
	p = GD_VEC_AT(s.procs, struct gd_proc, 0);
	assert_int_equal(p->uid.v, 1000);
	assert_string_equal(p->cpus_allowed, "8-15");
	gd_snapshot_release(&s);

	/* a kernel before 2.6.26: no list, uid still read */
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_pid_status, "Name:\tx\nUid:\t0\t0\t0\t0\nCpus_allowed:\tff\n", &s, &err),
			 0);
	assert_string_equal(GD_VEC_AT(s.procs, struct gd_proc, 0)->cpus_allowed, "");
	gd_snapshot_release(&s);

	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_proc_pid_status, "Uid:\t0\t0\t0\t0\nCpus_allowed_list:\t0-x\n", &s, &err) < 0);
	assert_contains(err.msg, "Cpus_allowed_list");
	gd_snapshot_release(&s);

	/* a list too long for the field: absent, not cut */
	n = (size_t)snprintf(big, sizeof big, "Uid:\t0\t0\t0\t0\nCpus_allowed_list:\t");
	for (int c = 0; n + 8 < sizeof big; c += 2)
		n += (size_t)snprintf(big + n, sizeof big - n, "%d,", c);
	n += (size_t)snprintf(big + n, sizeof big - n, "999\n");
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_proc_pid_status, big, &s, &err), 0);
	assert_string_equal(GD_VEC_AT(s.procs, struct gd_proc, 0)->cpus_allowed, "");
	gd_snapshot_release(&s);
}

static void test_cpulist(void **state)
{
	uint8_t bits[4];
	const char *l = "0-3,8,10-11";

	(void)state;
	assert_int_equal(gd_cpulist_parse((struct gd_slice){ l, strlen(l) }, bits, sizeof bits), 7);
	assert_true(gd_cpulist_has(bits, sizeof bits, 0));
	assert_true(gd_cpulist_has(bits, sizeof bits, 3));
	assert_false(gd_cpulist_has(bits, sizeof bits, 4));
	assert_true(gd_cpulist_has(bits, sizeof bits, 8));
	assert_false(gd_cpulist_has(bits, sizeof bits, 9));
	assert_true(gd_cpulist_has(bits, sizeof bits, 11));
	assert_false(gd_cpulist_has(bits, sizeof bits, 40));   /* beyond the bitmap */
	assert_int_equal(gd_cpulist_parse((struct gd_slice){ "", 0 }, bits, sizeof bits), 0);
	assert_int_equal(gd_cpulist_parse((struct gd_slice){ "0-63", 4 }, bits, sizeof bits), 64);
	assert_true(gd_cpulist_valid((struct gd_slice){ " 5 ", 3 }));
	assert_false(gd_cpulist_valid((struct gd_slice){ "3-1", 3 }));
	assert_false(gd_cpulist_valid((struct gd_slice){ "1,,2", 4 }));
	assert_false(gd_cpulist_valid((struct gd_slice){ "1-", 2 }));
	assert_false(gd_cpulist_valid((struct gd_slice){ "0-99999", 7 }));
	assert_false(gd_cpulist_valid((struct gd_slice){ "18446744073709551616", 20 }));
}

/* ---- GPU jobs: /dev/nvidia fds or NVML's process list -------------------- */

static void test_gpu_job_from_nvml(void **state)
{
	struct gd_snapshot s;
	struct gd_gpu_proc *gp;
	unsigned char marks[4];

	(void)state;
	gd_snapshot_init(&s);
	add_job_proc(&s, 100, 1, 0);    /* NVML lists it (fds unreadable) */
	add_job_proc(&s, 101, 100, 0);  /* its loader worker */
	add_job_proc(&s, 200, 1, 0);    /* unrelated */
	add_job_proc(&s, 300, 1, 3);    /* holds /dev/nvidia* */
	assert_false(gd_proc_is_gpu_job(&s, GD_VEC_AT(s.procs, struct gd_proc, 0)));
	assert_true(gd_proc_is_gpu_job(NULL, GD_VEC_AT(s.procs, struct gd_proc, 3)));
	assert_false(gd_proc_is_gpu_job(NULL, GD_VEC_AT(s.procs, struct gd_proc, 0)));
	gp = GD_PUSH(&s, gpu_procs, struct gd_gpu_proc);
	gd_u64_set(&gp->gpu, 0);
	gd_u64_set(&gp->pid, 100);
	assert_true(gd_proc_is_gpu_job(&s, GD_VEC_AT(s.procs, struct gd_proc, 0)));
	assert_false(gd_proc_is_gpu_job(&s, GD_VEC_AT(s.procs, struct gd_proc, 1)));
	assert_true(gd_snapshot_in_gpu_job(&s, GD_VEC_AT(s.procs, struct gd_proc, 1)));
	assert_false(gd_snapshot_in_gpu_job(&s, GD_VEC_AT(s.procs, struct gd_proc, 2)));
	assert_int_equal(gd_snapshot_gpu_job_marks(&s, marks), 2);
	assert_int_equal(marks[0], 1);
	assert_int_equal(marks[1], 1);
	assert_int_equal(marks[2], 0);
	assert_int_equal(marks[3], 1);
	/* a gpu_procs row without a pid matches nothing */
	gp = GD_PUSH(&s, gpu_procs, struct gd_gpu_proc);
	gd_u64_set(&gp->gpu, 1);
	assert_false(gd_proc_is_gpu_job(&s, GD_VEC_AT(s.procs, struct gd_proc, 2)));
	gd_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pci_speed),
		cmocka_unit_test(test_pci_link_speed_parser),
		cmocka_unit_test(test_pci_aer),
		cmocka_unit_test(test_pci_path),
		cmocka_unit_test(test_collect_pci),
		cmocka_unit_test(test_nvidia_version),
		cmocka_unit_test(test_collect_nvidia_driver),
		cmocka_unit_test(test_cudart_version),
		cmocka_unit_test(test_maps_parser),
		cmocka_unit_test(test_cuda_stub_file),
		cmocka_unit_test(test_collect_cuda_runtime),
		cmocka_unit_test(test_status_cpus_allowed),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_gpu_job_from_nvml),
	};

	return cmocka_run_group_tests(tests, NULL, tree_sweep);
}
