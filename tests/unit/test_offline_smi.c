/*
 * test_offline_smi.c - the nvidia-smi parsers of src/offline: -q text (R470
 * and R550 layouts, MIG, lost GPU), -q -x XML, --query-gpu CSV, the table,
 * with malformed input (garbled values, binary bytes, cut-short files,
 * headerless CSV, empty input), and the libxml2 loader when the library is
 * missing or is not libxml2.
 */
#include "testutil.h"

#include <errno.h>

#include "offline/offline.h"
#include "offline/xml_dl.h"

static struct gd_gpu *gpu_at(struct gd_snapshot *s, size_t i)
{
	assert_true(i < s->gpus.n);
	return GD_VEC_AT(s->gpus, struct gd_gpu, i);
}

/* R550 layout: nested HW Thermal, GPU Power Readings, SRAM/DRAM ECC, MIG
 * devices whose FB usage must not leak into the GPU's. */
static const char q550[] =
	"==============NVSMI LOG==============\n"
	"Timestamp                                 : Mon Jun  3 10:15:42 2024\n"
	"Driver Version                            : 550.54.15\n"
	"CUDA Version                              : 12.4\n"
	"\n"
	"Attached GPUs                             : 1\n"
	"GPU 00000000:3B:00.0\n"
	"    Product Name                          : NVIDIA H100 80GB HBM3\n"
	"    Persistence Mode                      : Disabled\n"
	"    MIG Mode\n"
	"        Current                           : Enabled\n"
	"    MIG Devices\n"
	"        MIG Device\n"
	"            FB Memory Usage\n"
	"                Used                      : 11 MiB\n"
	"    GPU UUID                              : GPU-3f7a0c1e-2b4d-4c5e-8f9a-0b1c2d3e4f50\n"
	"    PCI\n"
	"        Bus Id                            : 00000000:3B:00.0\n"
	"        GPU Link Info\n"
	"            PCIe Generation\n"
	"                Max                       : 5\n"
	"                Current                   : 1\n"
	"            Link Width\n"
	"                Max                       : 16x\n"
	"                Current                   : 8x\n"
	"        Replays Since Reset               : 7\n"
	"    Fan Speed                             : N/A\n"
	"    Performance State                     : P2\n"
	"    Clocks Event Reasons\n"
	"        Idle                              : Not Active\n"
	"        SW Power Cap                      : Active\n"
	"        HW Slowdown                       : Active\n"
	"            HW Thermal Slowdown           : Not Active\n"
	"            HW Power Brake Slowdown       : Active\n"
	"    FB Memory Usage\n"
	"        Total                             : 81559 MiB\n"
	"        Used                              : 40000 MiB\n"
	"    Compute Mode                          : Exclusive_Process\n"
	"    Utilization\n"
	"        Gpu                               : N/A\n"
	"    ECC Errors\n"
	"        Volatile\n"
	"            SRAM Correctable              : 1\n"
	"            SRAM Uncorrectable Parity     : 0\n"
	"            SRAM Uncorrectable SEC-DED    : 2\n"
	"            DRAM Correctable              : 10\n"
	"            DRAM Uncorrectable            : 3\n"
	"    Temperature\n"
	"        GPU Current Temp                  : 34 C\n"
	"        GPU Slowdown Temp                 : [Unknown Error]\n"
	"    GPU Power Readings\n"
	"        Average Power Draw                : 612.50 W\n"
	"        Instantaneous Power Draw          : 640.00 W\n"
	"        Current Power Limit               : 700.00 W\n"
	"    Processes\n"
	"        GPU instance ID                   : 1\n"
	"        Process ID                        : 4711\n"
	"            Type                          : C\n"
	"            Used GPU Memory               : 39000 MiB\n"
	"        Process ID                        : 900\n"
	"            Type                          : G\n"
	"            Used GPU Memory               : 10 MiB\n";

static void test_q_r550(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_gpu *g;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_q, q550, &s, &err), 0);
	assert_string_equal(s.nvml.status, "ok");
	assert_string_equal(s.nvml.driver_version, "550.54.15");
	assert_int_equal(s.nvml.cuda_driver_version.v, 12040);
	assert_int_equal(s.gpus.n, 1);
	g = gpu_at(&s, 0);
	assert_string_equal(g->pci_bus_id, "0000:3b:00.0");
	assert_string_equal(g->name, "NVIDIA H100 80GB HBM3");
	assert_true(g->persistence_mode.ok && g->persistence_mode.v == 0);
	assert_int_equal(g->mig_mode.v, 1);
	assert_int_equal(g->pcie_gen.v, 1);
	assert_int_equal(g->pcie_gen_max.v, 5);
	assert_int_equal(g->pcie_width.v, 8);
	assert_int_equal(g->pcie_replays.v, 7);
	assert_false(g->fan_pct.ok);
	assert_int_equal(g->pstate.v, 2);
	assert_int_equal(g->clock_event_reasons.v, 0x4 | 0x8 | 0x80);
	assert_int_equal(g->mem_used_bytes.v, 40000ull << 20); /* not the MIG device's 11 MiB */
	assert_int_equal(g->compute_mode.v, 3);
	assert_false(g->util_gpu_pct.ok);
	assert_int_equal(g->ecc_corrected_volatile.v, 11);
	assert_int_equal(g->ecc_uncorrected_volatile.v, 5);
	assert_true(g->temp_c.ok && g->temp_c.v == 34);
	assert_false(g->temp_slowdown_c.ok);
	assert_int_equal(s.nvml_errors.n, 1); /* the [Unknown Error] */
	assert_string_equal(GD_VEC_AT(s.nvml_errors, struct gd_nvml_error, 0)->field, "temp_slowdown_c");
	assert_true(g->power_w.v == 612.5);   /* the average, not the instant */
	assert_true(g->power_limit_w.v == 700.0);
	/* both processes, the graphics one marked as such (as NVML's two lists
	 * give them live), and the list known to be read */
	assert_int_equal(s.gpu_procs.n, 2);
	assert_int_equal(GD_VEC_AT(s.gpu_procs, struct gd_gpu_proc, 0)->used_mem_bytes.v, 39000ull << 20);
	assert_int_equal(GD_VEC_AT(s.gpu_procs, struct gd_gpu_proc, 0)->graphics.v, 0);
	assert_int_equal(GD_VEC_AT(s.gpu_procs, struct gd_gpu_proc, 1)->pid.v, 900);
	assert_true(GD_VEC_AT(s.gpu_procs, struct gd_gpu_proc, 1)->graphics.ok);
	assert_int_equal(GD_VEC_AT(s.gpu_procs, struct gd_gpu_proc, 1)->graphics.v, 1);
	assert_int_equal(GD_VEC_AT(s.gpu_procs, struct gd_gpu_proc, 1)->used_mem_bytes.v, 10ull << 20);
	assert_true(g->nvml_procs.ok);
	assert_int_equal(g->nvml_procs.v, 2);
	gd_snapshot_release(&s);
}

/* R470: Clocks Throttle Reasons flat, Power Readings, V100 Single/Double Bit Totals. */
static void test_q_r470_v100(void **state)
{
	const char *t = "Driver Version                            : 470.182.03\n"
			"Attached GPUs                             : 1\n"
			"GPU 00000000:07:00.0\n"
			"    Clocks Throttle Reasons\n"
			"        HW Slowdown                       : Active\n"
			"        HW Thermal Slowdown               : Active\n"
			"    ECC Errors\n"
			"        Volatile\n"
			"            Single Bit\n"
			"                Device Memory             : 4\n"
			"                Total                     : 4\n"
			"            Double Bit\n"
			"                Device Memory             : 1\n"
			"                Total                     : 1\n"
			"    Retired Pages\n"
			"        Single Bit ECC                    : 2\n"
			"        Pending Page Blacklist            : Yes\n"
			"    Power Readings\n"
			"        Power Draw                        : 41.00 W\n"
			"        Power Limit                       : 250.00 W\n"
			"        Enforced Power Limit              : 300.00 W\n"
			"    Processes                             : None\n";
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_gpu *g;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_q, t, &s, &err), 0);
	g = gpu_at(&s, 0);
	assert_int_equal(g->clock_event_reasons.v, 0x8 | 0x40);
	assert_int_equal(g->ecc_corrected_volatile.v, 4);
	assert_int_equal(g->ecc_uncorrected_volatile.v, 1);
	assert_int_equal(g->retired_pages_sbe.v, 2);
	assert_int_equal(g->retired_pages_pending.v, 1);
	assert_true(g->power_limit_w.v == 300.0); /* enforced wins */
	gd_snapshot_release(&s);
}

static void test_q_malformed(void **state)
{
	const char *bad = "Attached GPUs : 2\n"
			  "GPU 00000000:07:00.0\n"
			  "    FB Memory Usage\n"
			  "        Total                             : 12x3 MiB\n"
			  "        Used                              : 18446744073709551616 MiB\n"
			  "    Temperature\n"
			  "        GPU Current Temp                  : 34 F\n"
			  "    Processes                             : None\n";
	const char *cut = "Attached GPUs : 3\nGPU 00000000:07:00.0\n    Product Name : X\n    Processes : None\n";
	const char *bin = "GPU 00000000:07:00.0\n    Product\0 Name : X\n";
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_q, bad, &s, &err), 1);
	assert_non_null(strstr(err.msg, "line 4"));
	assert_false(gpu_at(&s, 0)->mem_total_bytes.ok);
	assert_false(gpu_at(&s, 0)->mem_used_bytes.ok);
	assert_false(gpu_at(&s, 0)->temp_c.ok);
	gd_snapshot_clear(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_q, cut, &s, &err), 1);
	/* the section is whole: nvidia-smi -i 0 (Attached GPUs counts them all) */
	assert_non_null(strstr(err.msg, "1 of 3 GPUs (Attached GPUs) in the output"));
	gd_snapshot_clear(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_q, "Attached GPUs : 3\nGPU 00000000:07:00.0\n    Product Name : X\n", &s, &err), 1);
	assert_non_null(strstr(err.msg, "1 of 3 GPU sections"));
	assert_non_null(strstr(err.msg, "cut short"));
	gd_snapshot_clear(&s);
	gd_err_clear(&err);
	assert_int_equal(gd_parse_nvsmi_q(bin, 44, &s, &err), 1);
	assert_non_null(strstr(err.msg, "binary"));
	gd_snapshot_clear(&s);
	assert_true(parse_lit(gd_parse_nvsmi_q, "", &s, &err) < 0);
	assert_true(err.msg[0]);
	gd_snapshot_clear(&s);
	assert_true(parse_lit(gd_parse_nvsmi_q, "hello\nworld\n", &s, &err) < 0);
	gd_snapshot_release(&s);
}

/* `nvidia-smi -q -d MEMORY,PERFORMANCE` of R580 (shape of a real paste,
 * values changed): a "vGPU Driver Capability" header section, sections
 * without Product Name or Processes, "Clocks Event Reasons Counters". */
static void test_q_display_filtered(void **state)
{
	const char *perf = "\n==============NVSMI LOG==============\n\n"
			   "Timestamp                                 : Tue Feb  3 09:41:27 2026\n"
			   "Driver Version                            : 580.105.06\n"
			   "CUDA Version                              : Not Found\n"
			   "vGPU Driver Capability\n"
			   "        Heterogenous Multi-vGPU           : Supported\n\n"
			   "Attached GPUs                             : 2\n"
			   "GPU 00000000:61:00.0\n"
			   "    Performance State                     : P0\n"
			   "    Clocks Event Reasons\n"
			   "        Idle                              : Not Active\n"
			   "        SW Power Cap                      : Active\n"
			   "        HW Slowdown                       : Not Active\n"
			   "            HW Thermal Slowdown           : Not Active\n"
			   "    Clocks Event Reasons Counters\n"
			   "        SW Power Capping                  : 8120334 us\n"
			   "        HW Thermal Slowdown               : 0 us\n"
			   "    FB Memory Usage\n"
			   "        Total                             : 97887 MiB\n"
			   "        Reserved                          : 634 MiB\n"
			   "        Used                              : 40112 MiB\n\n"
			   "GPU 00000000:62:00.0\n"
			   "    Performance State                     : P8\n"
			   "    Clocks Event Reasons\n"
			   "        Idle                              : Active\n"
			   "    FB Memory Usage\n"
			   "        Total                             : 97887 MiB\n"
			   "        Used                              : 0 MiB\n\n";
	const char *remap = "GPU 00000000:9C:00.0\n"
			    "    Remapped Rows\n"
			    "        Correctable Error                              : 0\n"
			    "        Uncorrectable Error                            : 2\n"
			    "        Pending                                        : Yes\n"
			    "        Remapping Failure Occurred                     : No\n"
			    "        Bank Remap Availability Histogram\n"
			    "            Max                                        : 2558 bank(s)\n"
			    "            Partial                                    : 2 bank(s)\n";
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_q, perf, &s, &err), 0);
	assert_int_equal(s.gpus.n, 2);
	assert_int_equal(gpu_at(&s, 0)->clock_event_reasons.v, 0x4);   /* SW power cap only */
	assert_int_equal(gpu_at(&s, 0)->pstate.v, 0);
	assert_int_equal(gpu_at(&s, 0)->mem_used_bytes.v, 40112ull * 1048576);
	assert_int_equal(gpu_at(&s, 1)->clock_event_reasons.v, 0x1);   /* idle */
	gd_snapshot_clear(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_q, remap, &s, &err), 0);
	assert_int_equal(s.gpus.n, 1);
	assert_string_equal(gpu_at(&s, 0)->pci_bus_id, "0000:9c:00.0");
	assert_int_equal(gpu_at(&s, 0)->remap_uncorrected.v, 2);
	assert_int_equal(gpu_at(&s, 0)->remap_pending.v, 1);
	assert_int_equal(gpu_at(&s, 0)->remap_failure.v, 0);
	gd_snapshot_clear(&s);
	/* a header section after the first GPU is not one */
	assert_int_equal(parse_lit(gd_parse_nvsmi_q, "GPU 00000000:9C:00.0\n    Product Name : X\n    Processes : None\n"
					   "vGPU Driver Capability\n    Heterogenous Multi-vGPU : Supported\n", &s, &err), 1);
	gd_snapshot_clear(&s);
}

static void test_q_lost(void **state)
{
	const char *t = "Attached GPUs : 2\n"
			"Unable to determine the device handle for GPU 0000:3B:00.0: GPU is lost.  Reboot the system\n"
			"GPU 00000000:5E:00.0\n    Product Name : X\n    Processes : None\n";
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_q, t, &s, &err), 0);
	assert_int_equal(s.gpus.n, 2);
	assert_string_equal(gpu_at(&s, 0)->pci_bus_id, "0000:3b:00.0");
	assert_int_equal(gpu_at(&s, 0)->lost.v, 1);
	assert_false(gpu_at(&s, 1)->lost.ok);
	gd_snapshot_release(&s);
}

/* Which processes a GPU has: "Processes : None" is a list read and empty
 * (idle by choice, not unknown); a process whose pid cannot be read lends
 * its lines to nobody; a GPU without a Processes section has no list. */
static void test_q_processes(void **state)
{
	const char *t = "Attached GPUs : 3\n"
			"GPU 00000000:07:00.0\n"
			"    Product Name : X\n"
			"    Processes : None\n"
			"GPU 00000000:08:00.0\n"
			"    Product Name : X\n"
			"    Processes\n"
			"        Process ID : 77\n"
			"            Type : C\n"
			"            Used GPU Memory : 100 MiB\n"
			"        Process ID : N/A\n"
			"            Type : C\n"
			"            Used GPU Memory : 9999 MiB\n"
			"GPU 00000000:09:00.0\n"
			"    Product Name : X\n";
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	(void)parse_lit(gd_parse_nvsmi_q, t, &s, &err);
	assert_int_equal(s.gpus.n, 3);
	assert_true(gpu_at(&s, 0)->nvml_procs.ok);
	assert_int_equal(gpu_at(&s, 0)->nvml_procs.v, 0);
	assert_int_equal(gpu_at(&s, 1)->nvml_procs.v, 1);
	assert_false(gpu_at(&s, 2)->nvml_procs.ok);
	assert_int_equal(s.gpu_procs.n, 1);
	assert_int_equal(GD_VEC_AT(s.gpu_procs, struct gd_gpu_proc, 0)->pid.v, 77);
	assert_int_equal(GD_VEC_AT(s.gpu_procs, struct gd_gpu_proc, 0)->used_mem_bytes.v, 100ull << 20);
	gd_snapshot_release(&s);
}

/* A fragment without the header or its GPU line, as a ticket holds it
 * (tests/offline/real/smi-q-fragment/link-throttle-fb-no-gpu-line.txt,
 * shortened): its parents cut off ("Link Width" without "PCI/GPU Link
 * Info"), an unnamed GPU (no index, no bus id), never dropped. */
static void test_q_fragment_orphans(void **state)
{
	const char *t = "                Current             : 1\n"
			"            Link Width\n"
			"                Max                 : 16x\n"
			"                Current             : 4x\n"
			"        Bridge Chip\n"
			"            Type                    : N/A\n"
			"        Replays Since Reset         : 3\n"
			"    Performance State               : P8\n"
			"    Clocks Throttle Reasons\n"
			"        Idle                        : Not Active\n"
			"        HW Slowdown                 : Active\n"
			"            HW Thermal Slowdown     : N/A\n"
			"            HW Power Brake Slowdown : Active\n"
			"    FB Memory Usage\n"
			"        Total                       : 4046 MiB\n";
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_gpu *g;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_q, t, &s, &err), 0);
	assert_int_equal(s.gpus.n, 1);
	g = gpu_at(&s, 0);
	assert_false(g->index.ok);
	assert_string_equal(g->pci_bus_id, "");
	assert_int_equal(g->pcie_width_max.v, 16);
	assert_int_equal(g->pcie_width.v, 4);
	assert_false(g->pcie_gen.ok); /* "Current : 1" has no parent to say which */
	assert_int_equal(g->pcie_replays.v, 3); /* under PCI again after Bridge Chip */
	assert_int_equal(g->pstate.v, 8);
	assert_int_equal(g->clock_event_reasons.v, 0x8 | 0x80);
	assert_int_equal(g->mem_total_bytes.v, 4046ull << 20);
	gd_snapshot_release(&s);
}

/* Sections alone: flush left or indented, a prompt before them, the ECC
 * block of newer drivers (SRAM/DRAM rows, "Volatile" without "ECC Errors"
 * above it), a human's note after a value. */
static void test_q_fragment_sections(void **state)
{
	const char *flush = "ECC Errors\n"
			    "    Volatile\n"
			    "        SRAM Correctable              : 0\n"
			    "        SRAM Uncorrectable Parity     : 0\n"
			    "        SRAM Uncorrectable SEC-DED    : 1\n"
			    "        DRAM Correctable              : 4\n"
			    "        DRAM Uncorrectable            : 2\n"
			    "    Aggregate\n"
			    "        SRAM Uncorrectable SEC-DED    : 6\n"
			    "        DRAM Uncorrectable            : 2\n"
			    "        SRAM Threshold Exceeded       : No\n"
			    "Remapped Rows\n"
			    "    Correctable Error                 : 0\n"
			    "    Uncorrectable Error               : 1\n"
			    "    Pending                           : Yes  <=== this one\n"
			    "    Remapping Failure Occurred        : No # ok\n";
	const char *orphan = "        Aggregate\n"
			     "            DRAM Uncorrectable            : 7\n"
			     "    Retired Pages\n"
			     "        Pending Page Blacklist        : Yes (!!)\n";
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_gpu *g;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_q, flush, &s, &err), 0);
	assert_int_equal(s.gpus.n, 1);
	g = gpu_at(&s, 0);
	assert_false(g->index.ok);
	assert_int_equal(g->ecc_uncorrected_volatile.v, 3);
	assert_int_equal(g->ecc_corrected_volatile.v, 4);
	assert_int_equal(g->ecc_uncorrected_aggregate.v, 8);
	assert_int_equal(g->remap_uncorrected.v, 1);
	assert_true(g->remap_pending.ok && g->remap_pending.v == 1);
	assert_true(g->remap_failure.ok && g->remap_failure.v == 0);
	gd_snapshot_release(&s);

	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_q, orphan, &s, &err), 0);
	g = gpu_at(&s, 0);
	assert_int_equal(g->ecc_uncorrected_aggregate.v, 7);
	assert_false(g->ecc_uncorrected_volatile.ok);
	assert_true(g->retired_pages_pending.ok && g->retired_pages_pending.v == 1);
	gd_snapshot_release(&s);
}

/* A fragment next to a whole GPU section: the section keeps its index and
 * bus id; an indented line after the section is still outside it. */
static void test_q_fragment_then_gpu(void **state)
{
	const char *t = "    Temperature\n"
			"        GPU Current Temp            : 81 C\n"
			"GPU 00000000:5E:00.0\n"
			"    Product Name                    : X\n"
			"    Processes                       : None\n";
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_q, t, &s, &err), 0);
	assert_int_equal(s.gpus.n, 2);
	assert_false(gpu_at(&s, 0)->index.ok);
	assert_true(gpu_at(&s, 0)->temp_c.v == 81);
	assert_int_equal(gpu_at(&s, 1)->index.v, 0);
	assert_string_equal(gpu_at(&s, 1)->pci_bus_id, "0000:5e:00.0");
	gd_snapshot_release(&s);
}

/* "Unable to determine the device handle ...: Unknown Error": that GPU is
 * unreachable, lost (real: tests/offline/real/smi-failure/). */
static void test_table_handle_unknown_error(void **state)
{
	const char *t = "Unable to determine the device handle for GPU0000:07:00.0: Unknown Error\n";
	const char *perm = "Unable to determine the device handle for GPU 0000:07:00.0: Insufficient Permissions\n";
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_nvsmi_table, t, &s, &err) >= 0);
	assert_int_equal(s.gpus.n, 1);
	assert_string_equal(gpu_at(&s, 0)->pci_bus_id, "0000:07:00.0");
	assert_true(gpu_at(&s, 0)->lost.ok && gpu_at(&s, 0)->lost.v == 1);
	assert_int_equal(s.nvml_errors.n, 1);
	gd_snapshot_release(&s);
	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_nvsmi_table, perm, &s, &err) >= 0);
	assert_false(gpu_at(&s, 0)->lost.ok && gpu_at(&s, 0)->lost.v);
	gd_snapshot_release(&s);
}

/* lspci -vv fragments: link lines without the device header ("a PCIe
 * device": one record, no bus id), `lspci -vv | grep -i gt` keeping a
 * header, old lspci without "(ok)"/"(downgraded)", LnkSta in prose, and
 * LnkCap2's speed list when LnkCap is missing. */
static void test_lspci_fragments(void **state)
{
	const char *marks = "\t\tLnkSta:\tSpeed 5GT/s (downgraded), Width x1 (downgraded)\n"
			    "\t\tLnkSta2: Current De-emphasis Level: -3.5dB, EqualizationComplete-\n";
	const char *grep = "01:00.0 VGA compatible controller: NVIDIA Corporation TU102GL [Quadro RTX 8000] (rev a1)\n"
			   "\t\tLnkCap:\tPort #0, Speed 8GT/s, Width x16, ASPM L0s L1, Exit Latency L0s <512ns\n"
			   "\t\tLnkSta:\tSpeed 8GT/s, Width x8, TrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-\n"
			   "\t\tLnkCap2: Supported Link Speeds: 2.5-8GT/s, Crosslink- Retimer- 2Retimers- DRS-\n";
	const char *prose = "the bit that matters LnkSta:\tSpeed 2.5GT/s (downgraded), Width x16 (ok)\n"
			    "\t\tLnkCap2: Supported Link Speeds: 2.5-16GT/s, Crosslink- Retimer+ 2Retimers+ DRS-\n";
	const char *none = "the link was fine yesterday\n";
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_pci_gpu *p;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_lspci, marks, &s, &err), 0);
	assert_int_equal(s.pci_gpus.n, 1);
	p = GD_VEC_AT(s.pci_gpus, struct gd_pci_gpu, 0);
	assert_string_equal(p->pci_bus_id, "");
	assert_int_equal(p->link_width.v, 1);
	assert_false(p->link_width_max.ok);
	assert_true(p->link_downgraded.ok && p->link_downgraded.v == 3);
	gd_snapshot_release(&s);

	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_lspci, grep, &s, &err), 0);
	assert_int_equal(s.pci_gpus.n, 1);
	p = GD_VEC_AT(s.pci_gpus, struct gd_pci_gpu, 0);
	assert_string_equal(p->pci_bus_id, "0000:01:00.0");
	assert_int_equal(p->link_width.v, 8);
	assert_int_equal(p->link_width_max.v, 16);
	assert_false(p->link_downgraded.ok); /* old lspci prints no marks */
	gd_snapshot_release(&s);

	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_lspci, prose, &s, &err), 0);
	assert_int_equal(s.pci_gpus.n, 1);
	p = GD_VEC_AT(s.pci_gpus, struct gd_pci_gpu, 0);
	assert_true(p->link_speed_gts.v == 2.5);
	assert_true(p->link_speed_max_gts.ok && p->link_speed_max_gts.v == 16);
	assert_int_equal(p->link_gen_max.v, 4);
	assert_int_equal(p->link_downgraded.v, 1);
	gd_snapshot_release(&s);

	gd_snapshot_init(&s);
	assert_true(parse_lit(gd_parse_lspci, none, &s, &err) < 0);
	assert_int_equal(s.pci_gpus.n, 0);
	gd_snapshot_release(&s);
}

static void test_xml(void **state)
{
	const char *x = "<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n"
			"<nvidia_smi_log><driver_version>535.161.08</driver_version><attached_gpus>2</attached_gpus>\n"
			"<gpu id=\"00000000:18:00.0\"><product_name>NVIDIA H100</product_name>\n"
			"<clocks_event_reasons><clocks_event_reason_sw_thermal_slowdown>Active</clocks_event_reason_sw_thermal_slowdown>"
			"<clocks_event_reason_gpu_idle>Not Active</clocks_event_reason_gpu_idle></clocks_event_reasons>\n"
			"<fb_memory_usage><total>81559 MiB</total><used>[N/A]</used></fb_memory_usage>\n"
			"<remapped_rows><remapped_row_pending>Yes</remapped_row_pending></remapped_rows>\n"
			"<temperature><gpu_temp>85 C</gpu_temp><gpu_temp_slow_threshold>87 C</gpu_temp_slow_threshold></temperature>\n"
			"<processes><process_info><pid>12</pid><type>C</type><used_memory>100 MiB</used_memory></process_info>"
			"<process_info><pid>13</pid><type>G</type><used_memory>4 MiB</used_memory></process_info></processes>\n"
			"</gpu>\n<gpu id=\"00000000:2A:00.0\"><product_name>NVIDIA H100</product_name>\n";
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_gpu *g;

	(void)state;
	gd_snapshot_init(&s);
	/* cut short inside the second GPU: the first is whole, the error names a line */
	assert_int_equal(parse_lit(gd_parse_nvsmi_xml, x, &s, &err), 1);
	assert_non_null(strstr(err.msg, "line "));
	g = gpu_at(&s, 0);
	assert_string_equal(g->pci_bus_id, "0000:18:00.0");
	assert_int_equal(g->clock_event_reasons.v, 0x20);
	assert_true(g->mem_total_bytes.ok && !g->mem_used_bytes.ok);
	assert_int_equal(g->remap_pending.v, 1);
	assert_true(g->temp_slowdown_c.v == 87);
	assert_int_equal(s.gpu_procs.n, 2); /* the graphics one marked, as NVML's lists give it */
	assert_int_equal(GD_VEC_AT(s.gpu_procs, struct gd_gpu_proc, 1)->graphics.v, 1);
	assert_true(g->nvml_procs.ok && g->nvml_procs.v == 2);
	gd_snapshot_clear(&s);
	assert_true(parse_lit(gd_parse_nvsmi_xml, "<html><body>no</body></html>", &s, &err) < 0);
	assert_true(parse_lit(gd_parse_nvsmi_xml, "\x01\x02<<<", &s, &err) < 0);
	assert_true(err.msg[0]);
	gd_snapshot_release(&s);
}

/* libxml2 is dlopen()ed: a missing library is a sentence naming the
 * package, a library without the functions names the first one lacking. */
static void test_xml_loader(void **state)
{
	struct gd_xml_api api;
	struct gd_err err;
	xmlChar *c;

	(void)state;
	gd_err_clear(&err);
	assert_int_equal(gd_xml_open(&api, "libgd-no-such-library.so.2", &err), -ENOENT);
	assert_string_equal(err.msg, "libgd-no-such-library.so.2 is not installed: cannot read nvidia-smi -q -x "
				     "output (apt-get install libxml2)");
	assert_null(api.dl);
	gd_err_clear(&err);
	assert_int_equal(gd_xml_open(&api, "libc.so.6", &err), -ELIBBAD);
	assert_string_equal(err.msg, "libc.so.6 has no xmlNewParserCtxt: cannot read nvidia-smi -q -x output");
	assert_null(api.dl);
	/* The real one, twice (RTLD_NODELETE: the second open is a reference). */
	for (int i = 0; i < 2; i++) {
		xmlParserCtxtPtr ctxt;
		xmlDocPtr doc;

		gd_err_clear(&err);
		assert_int_equal(gd_xml_open(&api, GD_XML_SONAME, &err), 0);
		assert_non_null(api.free_var);
		ctxt = api.new_ctxt();
		assert_non_null(ctxt);
		doc = api.read_memory(ctxt, "<a>x&amp;y</a>", 14, "t.xml", NULL, XML_PARSE_NONET);
		assert_non_null(doc);
		c = api.content(api.root(doc));
		assert_string_equal((const char *)c, "x&y");
		gd_xml_free(&api, c);
		api.free_doc(doc);
		api.free_ctxt(ctxt);
		gd_xml_close(&api);
		assert_null(api.dl);
	}
}

static void test_csv(void **state)
{
	const char *hdr = "index, pci.bus_id, utilization.gpu [%], memory.used [MiB], clocks_throttle_reasons.active, "
			  "clocks_throttle_reasons.hw_slowdown\n"
			  "0, 00000000:07:00.0, 98 %, 81000 MiB, 0x0000000000000004, Active\n"
			  "1, 00000000:0F:00.0, [N/A], 12 MiB, [Not Supported], Not Active\n"
			  "2, 00000000:47:00.0, 5 %\n";
	const char *cmd = "$ nvidia-smi --query-gpu=index,temperature.gpu --format=csv,noheader,nounits\n0, 71\n1, 33\n";
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_csv, hdr, &s, &err), 1); /* the short row */
	assert_non_null(strstr(err.msg, "line 4"));
	assert_int_equal(s.gpus.n, 2);
	assert_int_equal(gpu_at(&s, 0)->util_gpu_pct.v, 98);
	assert_int_equal(gpu_at(&s, 0)->clock_event_reasons.v, 0x4 | 0x8);
	assert_false(gpu_at(&s, 1)->util_gpu_pct.ok);
	assert_int_equal(gpu_at(&s, 1)->clock_event_reasons.v, 0);
	gd_snapshot_clear(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_csv, cmd, &s, &err), 0);
	assert_int_equal(s.gpus.n, 2);
	assert_true(gpu_at(&s, 1)->temp_c.v == 33);
	gd_snapshot_clear(&s);
	assert_true(parse_lit(gd_parse_nvsmi_csv, "0, 71\n1, 33\n", &s, &err) < 0);
	assert_non_null(strstr(err.msg, "header"));
	gd_snapshot_clear(&s);
	/* columns of no nvidia-smi field gpudoctor knows (a newer driver's, a
	 * typo): the rest is read, the part is partial and the note names them;
	 * a known field no rule reads (gom.current) is no such column */
	assert_int_equal(parse_lit(gd_parse_nvsmi_csv,
				   "index, temperature.gpu, gom.current, gpu.frobnicate, pwr.draw [W]\n0, 71, [N/A], 3, 120 W\n",
				   &s, &err), 1);
	assert_string_equal(err.msg, "line 1: 2 columns gpudoctor does not know were ignored: gpu.frobnicate, pwr.draw");
	assert_int_equal(s.gpus.n, 1);
	assert_true(gpu_at(&s, 0)->temp_c.v == 71);
	assert_false(gpu_at(&s, 0)->power_w.ok);
	gd_snapshot_clear(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_csv, "index, gpu.frobnicate\n0, 3\n", &s, &err), 1);
	assert_string_equal(err.msg, "line 1: a column gpudoctor does not know was ignored: gpu.frobnicate");
	gd_snapshot_release(&s);
}

/* Rows above their header, prose with commas, time(1)'s lines, a note after
 * the last value, a one-column query, the recovery action and reset status,
 * ECC counts split by memory. */
static void test_csv_as_pasted(void **state)
{
	const char *below = "rows first, then the header (sorry):\n"
			    "0, 00000000:07:00.0, 99 %, 8\n"
			    "1, 00000000:0F:00.0, 98 %, 16     <-- fine\n"
			    "the header, from a second run:\n"
			    "index, pci.bus_id, utilization.gpu [%], pcie.link.width.current\n"
			    "real\t0m0,031s\nuser\t0m0,002s\nsys\t0m0,012s\n";
	const char *one = "clocks_throttle_reasons.supported\n0x00000000000001FF\n";
	const char *rec = "index, gpu_recovery_action, reset_status.reset_required, "
			  "reset_status.drain_and_reset_recommended, ecc.errors.uncorrected.aggregate.sram, "
			  "ecc.errors.uncorrected.aggregate.dram\n"
			  "0, None, No, No, 0, 0\n"
			  "1, GPU Reset, Yes, No, 6, 1\n"
			  "2, [N/A], Yes, Yes, [N/A], [N/A]\n";
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_csv, below, &s, &err), 0); /* nothing skipped: prose is noise */
	assert_int_equal(s.gpus.n, 2);
	assert_int_equal(gpu_at(&s, 0)->pcie_width.v, 8);
	assert_int_equal(gpu_at(&s, 1)->pcie_width.v, 16); /* the note after it cut off */
	assert_int_equal(gpu_at(&s, 1)->util_gpu_pct.v, 98);
	gd_snapshot_clear(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_csv, one, &s, &err), 0);
	assert_int_equal(s.gpus.n, 1); /* read: a known field, nothing to judge */
	gd_snapshot_clear(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_csv, rec, &s, &err), 0);
	assert_int_equal(s.gpus.n, 3);
	assert_int_equal(gpu_at(&s, 0)->recovery_action.v, 0);
	assert_true(gpu_at(&s, 0)->recovery_action.ok);
	assert_int_equal(gpu_at(&s, 1)->recovery_action.v, 1);
	assert_int_equal(gpu_at(&s, 2)->recovery_action.v, 4); /* from reset_status: drain and reset */
	assert_int_equal(gpu_at(&s, 1)->ecc_uncorrected_aggregate_sram.v, 6);
	assert_int_equal(gpu_at(&s, 1)->ecc_uncorrected_aggregate.v, 7); /* the sum, no total column */
	assert_false(gpu_at(&s, 2)->ecc_uncorrected_aggregate.ok);
	gd_snapshot_clear(&s);
	/* a CSV of some other tool's fields: not nvidia-smi's */
	assert_true(parse_lit(gd_parse_nvsmi_csv, "timestamp, loss, lr\n1, 2.3, 0.1\n", &s, &err) < 0);
	gd_snapshot_release(&s);
}

static void test_q_ecc_sram_dram(void **state)
{
	const char *q = "GPU 00000000:18:00.0\n"
			"    ECC Errors\n"
			"        Volatile\n"
			"            SRAM Correctable                  : 0\n"
			"            SRAM Uncorrectable Parity         : 1\n"
			"            SRAM Uncorrectable SEC-DED        : 0\n"
			"            DRAM Correctable                  : 12\n"
			"            DRAM Uncorrectable                : 2\n"
			"        Aggregate\n"
			"            SRAM Correctable                  : 0\n"
			"            SRAM Uncorrectable Parity         : 3\n"
			"            SRAM Uncorrectable SEC-DED        : 2\n"
			"            DRAM Correctable                  : 40\n"
			"            DRAM Uncorrectable                : 1\n"
			"            SRAM Threshold Exceeded           : Yes\n"
			"        Aggregate Uncorrectable SRAM Sources\n"
			"            SRAM L2                           : 5\n";
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_gpu *g;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_q, q, &s, &err), 0);
	assert_int_equal(s.gpus.n, 1);
	g = gpu_at(&s, 0);
	assert_int_equal(g->ecc_uncorrected_volatile.v, 3);
	assert_int_equal(g->ecc_uncorrected_volatile_sram.v, 1);
	assert_int_equal(g->ecc_uncorrected_volatile_dram.v, 2);
	assert_int_equal(g->ecc_uncorrected_aggregate.v, 6); /* the Sources section is not counted twice */
	assert_int_equal(g->ecc_uncorrected_aggregate_sram.v, 5);
	assert_int_equal(g->ecc_uncorrected_aggregate_dram.v, 1);
	assert_int_equal(g->ecc_corrected_volatile.v, 12);
	assert_true(g->ecc_sram_threshold_exceeded.ok && g->ecc_sram_threshold_exceeded.v == 1);
	gd_snapshot_release(&s);
}

/* dcgmi diag (a Warning wrapped mid-word, per-GPU results, a busy GPU),
 * dmon (N/A, MIG instance rows, XIDER), and text that is neither. */
static void test_dcgmi(void **state)
{
	const char *diag =
		"+---------------------------+------------------------------------------------+\n"
		"| Diagnostic                | Result                                         |\n"
		"+===========================+================================================+\n"
		"|-----  Metadata  ----------+------------------------------------------------|\n"
		"| Driver Version Detected   | 550.54.15                                      |\n"
		"+-----  Hardware  ----------+------------------------------------------------+\n"
		"| GPU Memory                | Pass - GPU: 1                                  |\n"
		"|                           | Fail - GPU: 0                                  |\n"
		"| Warning                   | GPU 0 Unable to create CUDA context: 'CUDA-cap |\n"
		"|                           | able device(s) is/are busy or unavailable'.    |\n"
		"+-----  Integration  -------+------------------------------------------------+\n"
		"| PCIe                      | Fail - GPU: 3                                  |\n"
		"| Warning                   | GPU 3GPU 3's NvLink link 0 is currently down R |\n"
		"|                           | un a field diagnostic on the GPU.              |\n"
		"| Diagnostic                | Fail - GPU: 2                                  |\n"
		"| Warning                   | GPU 2 miscompare in the GEMM results           |\n"
		"+---------------------------+------------------------------------------------+\n";
	const char *dmon = "#Entity    TMPTR        POWER        XIDER\n"
			   "ID\n"
			   "GPU 0      34           61.5         0\n"
			   "GPU 1      N/A          70.2         79\n"
			   "GPU-I 21   0.000        0.000        0\n"
			   "GPU 0      35           62.0         0\n";
	struct gd_snapshot s;
	struct gd_err err;
	const struct gd_job_log *r;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_dcgmi, diag, &s, &err), 0);
	assert_string_equal(s.nvml.driver_version, "550.54.15");
	assert_non_null(r = jl_kind(&s, "dcgmi_busy", 0)); /* GPU 0 failed because it was busy: no hardware fail */
	assert_int_equal(r->gpu.v, 0);
	assert_non_null(r = jl_kind(&s, "dcgmi_nvlink_down", 0));
	assert_int_equal(r->gpu.v, 3);
	assert_non_null(strstr(r->text, "Run a field diagnostic")); /* the wrapped word joined again */
	assert_string_equal(r->what, "PCIe");
	assert_non_null(r = jl_kind(&s, "dcgmi_fail_pcie", 0));
	assert_int_equal(r->gpu.v, 3);
	assert_non_null(r = jl_kind(&s, "dcgmi_fail_mismatch", 0)); /* the GEMM results differ */
	assert_int_equal(r->gpu.v, 2);
	assert_string_equal(r->what, "Diagnostic");
	assert_non_null(strstr(r->text, "miscompare"));
	assert_null(jl_kind(&s, "dcgmi_fail_memory", 0)); /* not GPU 0: busy */
	assert_null(jl_kind(&s, "dcgmi_fail_pcie", 1));
	gd_snapshot_clear(&s);
	assert_int_equal(parse_lit(gd_parse_dcgmi, dmon, &s, &err), 0);
	assert_int_equal(s.gpus.n, 2); /* the MIG instance is not a GPU */
	assert_true(gpu_at(&s, 0)->temp_c.v == 35); /* the latest sample */
	assert_false(gpu_at(&s, 1)->temp_c.ok);     /* N/A */
	assert_true(gpu_at(&s, 1)->power_w.v > 70.1);
	assert_non_null(r = jl_kind(&s, "dcgmi_xid", 0));
	assert_int_equal(r->value.v, 79);
	assert_int_equal(r->gpu.v, 1);
	assert_null(jl_kind(&s, "dcgmi_xid", 1));
	gd_snapshot_clear(&s);
	assert_true(parse_lit(gd_parse_dcgmi, "hello\nworld\n", &s, &err) < 0);
	assert_non_null(strstr(err.msg, "dcgmi"));
	gd_snapshot_release(&s);
}

/* A vGPU with MIG (shape of a real R470 GRID paste, values changed): power
 * "N/A /  N/A", ECC "On"; an H200 with MIG (R570): memory only "N/A". */
static void test_table_mig_na(void **state)
{
	const char *grid =
		"| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
		"| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
		"|===============================+======================+======================|\n"
		"|   0  GRID A100X-4-20C     On  | 00000000:00:09.0 Off |                   On |\n"
		"| N/A   N/A    P0    N/A /  N/A |   2114MiB / 20470MiB |     N/A      Default |\n"
		"|                               |                      |              Enabled |\n"
		"+-------------------------------+----------------------+----------------------+\n";
	const char *h200 =
		"| NVIDIA-SMI 570.86.15              Driver Version: 570.86.15      CUDA Version: 12.8     |\n"
		"| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
		"|=========================================+========================+======================|\n"
		"|   0  NVIDIA H200                    Off |   00000000:9A:00.0 Off |                   On |\n"
		"| N/A   33C    P0             79W /  700W |                  N/A   |     N/A      Default |\n"
		"|                                         |                        |              Enabled |\n"
		"+-----------------------------------------+------------------------+----------------------+\n";
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_table, grid, &s, &err), 0);
	assert_int_equal(s.gpus.n, 1);
	assert_false(gpu_at(&s, 0)->power_w.ok);
	assert_false(gpu_at(&s, 0)->power_limit_w.ok);
	assert_false(gpu_at(&s, 0)->ecc_uncorrected_volatile.ok);
	assert_int_equal(gpu_at(&s, 0)->mem_used_bytes.v, 2114ull * 1048576);
	assert_int_equal(gpu_at(&s, 0)->mig_mode.v, 1);
	gd_snapshot_clear(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_table, h200, &s, &err), 0);
	assert_false(gpu_at(&s, 0)->mem_used_bytes.ok);
	assert_false(gpu_at(&s, 0)->mem_total_bytes.ok);
	assert_true(gpu_at(&s, 0)->power_w.ok && gpu_at(&s, 0)->power_w.v == 79);
	assert_true(gpu_at(&s, 0)->temp_c.ok && gpu_at(&s, 0)->temp_c.v == 33);
	gd_snapshot_clear(&s);
}

static void test_table(void **state)
{
	const char *t =
		"| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
		"|-------------------------------+----------------------+----------------------+\n"
		"| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
		"| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
		"|===============================+======================+======================|\n"
		"|   0  Tesla V100-SXM2...  On   | 00000000:3B:00.0 Off |                    2 |\n"
		"| N/A   34C    P0    41W / 300W |      0MiB / 16160MiB |      7%      Default |\n"
		"+-------------------------------+----------------------+----------------------+\n"
		"|   1  Tesla V100-SXM2...  On   | 00000000:5E:00.0 Off |                 ERR! |\n"
		"|ERR!  ERR!  ERR!    ERR! / ERR!|      4MiB / 16160MiB |    ERR!      Default |\n"
		"+-------------------------------+----------------------+----------------------+\n"
		"| Processes:                                                                  |\n"
		"|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |\n"
		"|=============================================================================|\n"
		"|    0   N/A  N/A      4711      C   python                          1000MiB |\n"
		"|    1      900      G   /usr/lib/xorg/Xorg                             4MiB |\n";
	struct gd_snapshot s;
	struct gd_err err;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_table, t, &s, &err), 0);
	assert_string_equal(s.nvml.driver_version, "470.82.01");
	assert_int_equal(s.gpus.n, 2);
	assert_int_equal(gpu_at(&s, 0)->ecc_uncorrected_volatile.v, 2);
	assert_true(gpu_at(&s, 0)->temp_c.v == 34 && gpu_at(&s, 0)->power_limit_w.v == 300);
	assert_false(gpu_at(&s, 0)->fan_pct.ok);
	assert_int_equal(gpu_at(&s, 0)->util_gpu_pct.v, 7);
	assert_false(gpu_at(&s, 1)->temp_c.ok);
	assert_int_equal(gpu_at(&s, 1)->mem_used_bytes.v, 4ull << 20);
	assert_true(s.nvml_errors.n >= 5); /* every ERR! cell is noted */
	/* both rows, Xorg marked graphics; each GPU's list read, one row each */
	assert_int_equal(s.gpu_procs.n, 2);
	assert_int_equal(GD_VEC_AT(s.gpu_procs, struct gd_gpu_proc, 0)->graphics.v, 0);
	assert_int_equal(GD_VEC_AT(s.gpu_procs, struct gd_gpu_proc, 1)->pid.v, 900);
	assert_int_equal(GD_VEC_AT(s.gpu_procs, struct gd_gpu_proc, 1)->graphics.v, 1);
	assert_true(gpu_at(&s, 0)->nvml_procs.ok && gpu_at(&s, 0)->nvml_procs.v == 1);
	assert_true(gpu_at(&s, 1)->nvml_procs.ok && gpu_at(&s, 1)->nvml_procs.v == 1);
	gd_snapshot_clear(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_table, "No devices were found\n", &s, &err), 0);
	assert_string_equal(s.nvml.status, "ok");
	assert_true(s.nvml.device_count.ok && s.nvml.device_count.v == 0);
	gd_snapshot_clear(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_table, "NVIDIA-SMI has failed because it couldn't communicate with "
					  "the NVIDIA driver. Make sure ...\n", &s, &err), 0);
	assert_string_equal(s.nvml.init_error, "DRIVER_NOT_LOADED");
	gd_snapshot_clear(&s);
	assert_int_equal(parse_lit(gd_parse_nvsmi_table, "Failed to initialize NVML: Unknown Error\n", &s, &err), 0);
	assert_string_equal(s.nvml.status, "failed");
	gd_snapshot_clear(&s);
	assert_true(parse_lit(gd_parse_nvsmi_table, "| just | a | box |\n", &s, &err) < 0);
	gd_snapshot_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_q_r550),  cmocka_unit_test(test_q_processes), cmocka_unit_test(test_q_r470_v100), cmocka_unit_test(test_q_malformed),
		cmocka_unit_test(test_q_lost),  cmocka_unit_test(test_xml),         cmocka_unit_test(test_csv),
		cmocka_unit_test(test_table),   cmocka_unit_test(test_xml_loader), cmocka_unit_test(test_q_display_filtered),
		cmocka_unit_test(test_table_mig_na), cmocka_unit_test(test_q_fragment_orphans),
		cmocka_unit_test(test_q_fragment_sections), cmocka_unit_test(test_q_fragment_then_gpu),
		cmocka_unit_test(test_table_handle_unknown_error), cmocka_unit_test(test_lspci_fragments),
		cmocka_unit_test(test_csv_as_pasted), cmocka_unit_test(test_q_ecc_sram_dram), cmocka_unit_test(test_dcgmi),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
