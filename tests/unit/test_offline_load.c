/*
 * test_offline_load.c - src/offline's detection by content, the paste
 * splitter, lspci, encodings (UTF-16 with a BOM, Latin-1 bytes), merging of
 * several outputs into one snapshot, and the engine's single-sample reason.
 */
#include "testutil.h"

#include "offline/offline.h"

#include <stdlib.h>
#include <unistd.h>

static void test_detect(void **state)
{
	static const struct {
		const char *text;
		enum gd_ofl_kind kind;
	} cases[] = {
		{ "{\"version\":1,\"host\":{}}\n", GD_OFL_JSONL },
		{ "<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n", GD_OFL_SMI_XML },
		{ "\n==============NVSMI LOG==============\n", GD_OFL_SMI_Q },
		{ "| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |\n", GD_OFL_SMI_TABLE },
		{ "No devices were found\n", GD_OFL_SMI_TABLE },
		{ "index, name, utilization.gpu [%]\n0, A100, 3 %\n", GD_OFL_SMI_CSV },
		{ "[ 5023.456789] NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n",
		  GD_OFL_KLOG },
		{ "Nov 30 01:02:03 gpu-a17 kernel: EXT4-fs (dm-0): mounted\n", GD_OFL_KLOG },
		{ "3b:00.0 3D controller: NVIDIA Corporation GA100 (rev a1)\n\tLnkSta:\tSpeed 16GT/s (ok), Width x16 (ok)\n",
		  GD_OFL_LSPCI },
		{ "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15\n", GD_OFL_DRIVER },
		{ "Start of NVIDIA bug report log file.  Please include this file\n", GD_OFL_BUG_REPORT },
		{ "The job was slow.\nNo idea.\n", GD_OFL_UNKNOWN },
		{ "", GD_OFL_UNKNOWN },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		assert_int_equal(gd_ofl_detect(cases[i].text, strlen(cases[i].text)), cases[i].kind);
}

static void test_lspci(void **state)
{
	const char *t = "0000:3b:00.0 3D controller [0302]: NVIDIA Corporation GA100 [A100 SXM4 80GB] [10de:20b2] (rev a1)\n"
			"\tNUMA node: 1\n"
			"\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM not supported\n"
			"\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x8 (downgraded)\n"
			"\tKernel driver in use: nvidia\n"
			"3b:00.1 Audio device: NVIDIA Corporation Device (rev a1)\n"
			"\t\tLnkSta:\tSpeed 2.5GT/s, Width x8\n"
			"5e:00.0 3D controller: NVIDIA Corporation Device\n"
			"\t\tLnkSta:\tSpeed fast, Width wide\n";
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_pci_gpu *p;

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_lspci, t, &s, &err), 1); /* the last LnkSta */
	assert_non_null(strstr(err.msg, "line 9"));
	assert_int_equal(s.pci_gpus.n, 2);
	p = GD_VEC_AT(s.pci_gpus, struct gd_pci_gpu, 0);
	assert_string_equal(p->pci_bus_id, "0000:3b:00.0");
	assert_int_equal(p->device_id.v, 0x20b2);
	assert_int_equal(p->pci_class.v, 0x030200);
	assert_int_equal(p->link_gen.v, 1);
	assert_int_equal(p->link_gen_max.v, 4);
	assert_int_equal(p->link_width.v, 8);
	assert_int_equal(p->link_width_max.v, 16);
	assert_int_equal(p->numa_node.v, 1);
	assert_string_equal(p->driver, "nvidia");
	gd_snapshot_clear(&s);
	assert_true(parse_lit(gd_parse_lspci, "nothing here\n", &s, &err) < 0);
	gd_snapshot_release(&s);
}

static const char paste[] =
	"Hello, node 7 hangs.\n"
	"user@node7:~$ nvidia-smi --query-gpu=index,pci.bus_id,utilization.gpu,memory.used,memory.total --format=csv,noheader\n"
	"0, 00000000:3B:00.0, 97 %, 81000 MiB, 81559 MiB\n"
	"\n"
	"# the kernel log\n"
	"root@node7:~# dmesg | grep -i xid\n"
	"[ 5023.456789] NVRM: Xid (PCI:0000:3b:00): 48, pid=12, name=python, An uncorrectable double bit error\n"
	"[...]\n"
	"[ 5024.000000] NVRM: Xid (PCI:0000:3b:00): 63, pid=12, name=python, Row Remapper\n"
	"[root@node7 ~]# lspci -vv -d 10de:\n"
	"3b:00.0 3D controller: NVIDIA Corporation Device 2330\n"
	"\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16\n"
	"\t\tLnkSta:\tSpeed 32GT/s (ok), Width x16 (ok)\n";

static void test_paste(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	bool csv = false, klog = false, lspci = false;
	char desc[128];

	(void)state;
	gd_snapshot_init(&s);
	assert_int_equal(parse_lit(gd_parse_offline_paste, paste, &s, &err), 0);
	assert_int_equal(s.gpus.n, 1);
	assert_int_equal(GD_VEC_AT(s.gpus, struct gd_gpu, 0)->util_gpu_pct.v, 97);
	assert_int_equal(s.klog.n, 2); /* both sides of the elision */
	assert_int_equal(s.pci_gpus.n, 1);
	GD_VEC_EACH(s.sources, struct gd_source, src) {
		csv |= strcmp(src->name, "offline:nvidia-smi-csv") == 0 && strcmp(src->status, "ok") == 0;
		klog |= strcmp(src->name, "offline:kernel-log") == 0 && strcmp(src->status, "ok") == 0;
		lspci |= strcmp(src->name, "offline:lspci") == 0 && strcmp(src->status, "ok") == 0;
	}
	assert_true(csv && klog && lspci);
	assert_true(gd_ofl_describe(&s, desc, sizeof desc));
	assert_non_null(strstr(desc, "kernel log"));
	gd_snapshot_release(&s);
}

static void test_encodings(void **state)
{
	const char *q = "Attached GPUs : 1\r\nGPU 00000000:07:00.0\r\n    Product Name : NVIDIA A100\r\n"
			"    Temperature\r\n        GPU Current Temp : 91 C\r\n    Processes : None\r\n";
	char u16[512], latin[256];
	size_t n = 2;
	struct gd_ofl o;
	struct gd_series ser, js;
	struct gd_err err;

	(void)state;
	u16[0] = (char)0xff;
	u16[1] = (char)0xfe;
	for (const char *p = q; *p; p++) {
		u16[n++] = *p;
		u16[n++] = 0;
	}
	gd_ofl_init(&o, 0);
	gd_series_init(&ser);
	gd_series_init(&js);
	gd_err_clear(&err);
	assert_int_equal(gd_ofl_load_buf(&o, &js, u16, n, "u16.txt", &err), 0);
	/* UTF-16 without a BOM: refused, with the fix */
	assert_true(gd_ofl_load_buf(&o, &js, u16 + 2, n - 2, "nobom.txt", &err) < 0);
	assert_non_null(strstr(err.msg, "nobom.txt"));
	assert_non_null(strstr(err.msg, "UTF-16"));
	/* Latin-1 bytes in a process name do not stop the rest */
	snprintf(latin, sizeof latin, "Attached GPUs : 1\nGPU 00000000:0F:00.0\n    Product Name : Caf\xe9 GPU\n"
		 "    Processes : None\n");
	gd_err_clear(&err);
	assert_int_equal(gd_ofl_load_buf(&o, &js, latin, strlen(latin), "latin1.txt", &err), 0);
	gd_ofl_finish(&o, &ser);
	assert_int_equal(js.n, 0);
	assert_int_equal(ser.n, 2); /* two -q outputs: two instants */
	assert_true(GD_VEC_AT(ser.items[0].gpus, struct gd_gpu, 0)->temp_c.v == 91);
	assert_string_equal(GD_VEC_AT(ser.items[1].gpus, struct gd_gpu, 0)->name, "Caf\xe9 GPU");
	gd_series_release(&ser);
	gd_series_release(&js);
	gd_ofl_release(&o);
}

/* A window rule over one offline sample says why it has no rates. */
static void test_single_sample_reason(void **state)
{
	struct gd_snapshot s;
	struct gd_err err;
	struct gd_findings f;
	const struct gd_snapshot *snaps[1] = { &s };
	struct gd_window w = { snaps, 1 };
	struct gd_thresholds th;
	const char *q = "Attached GPUs : 1\nGPU 00000000:07:00.0\n    Processes : None\n";
	struct gd_ofl o;
	struct gd_series ser, js;
	bool seen = false;

	(void)state;
	gd_ofl_init(&o, 0);
	gd_series_init(&ser);
	gd_series_init(&js);
	gd_err_clear(&err);
	assert_int_equal(gd_ofl_load_buf(&o, &js, q, strlen(q), "q.txt", &err), 0);
	gd_ofl_finish(&o, &ser);
	assert_int_equal(ser.n, 1);
	s = ser.items[0];
	gd_thresholds_init(&th);
	gd_findings_init(&f);
	gd_engine_run(&w, &th, &f);
	GD_VEC_EACH(f.unknown, struct gd_unknown, u)
		if (strcmp(u->id, "gpu.ecc_correctable_rate") == 0) {
			assert_string_equal(u->reason, "one sample from nvidia-smi -q: no rates");
			seen = true;
		}
	assert_true(seen);
	gd_findings_release(&f);
	gd_series_release(&ser);
	gd_series_release(&js);
	gd_ofl_release(&o);
}

/* A pasted kernel log is judged over the look-back before its last line;
 * the events older than it are counted and the reader told (a note), and a
 * longer look-back keeps them (shape of akash-network/support#244). */
static void test_klog_older_than_lookback(void **state)
{
	const char *log = "[Wed Jul 31 23:14:18 2024] NVRM: Xid (PCI:0000:00:05): 43, pid=1045242, name=pt_main_thread, Ch 00000008\n"
			  "[Mon Aug  5 03:54:13 2024] NVRM: Xid (PCI:0000:00:07): 31, pid=2512125, name=python3.10, Ch 00000008\n"
			  "[Fri Aug  9 13:32:56 2024] NVRM: Xid (PCI:0000:00:08): 94, pid='<unknown>', name=<unknown>, Contained\n";
	struct gd_ofl o;
	struct gd_series ser, js;
	struct gd_err err;

	(void)state;
	for (int pass = 0; pass < 2; pass++) {
		gd_ofl_init(&o, pass ? 30 * 86400.0 : 0);
		gd_series_init(&ser);
		gd_series_init(&js);
		gd_err_clear(&err);
		assert_int_equal(gd_ofl_load_buf(&o, &js, log, strlen(log), "dmesg.txt", &err), 0);
		gd_ofl_finish(&o, &ser);
		assert_int_equal(ser.n, 1);
		assert_int_equal(ser.items[0].klog.n, pass ? 3 : 1);
		if (pass) {
			assert_string_equal(js.note, "");
		} else {
			assert_int_equal(ser.items[0].klog_info.older.v, 2);
			assert_non_null(strstr(js.note, "dmesg.txt: 2 kernel-log events older than the look-back (24 h"));
			assert_non_null(strstr(js.note, "--lookback"));
		}
		gd_series_release(&ser);
		gd_series_release(&js);
		gd_ofl_release(&o);
	}
	/* a paste with the log twice, a CSV between (two kernel-log parts): one note for the file */
	{
		char ticket[2048];

		snprintf(ticket, sizeof ticket,
			 "%s$ nvidia-smi --query-gpu=index,temperature.gpu --format=csv\nindex, temperature.gpu\n0, 40\n"
			 "$ dmesg -T\n%s",
			 log, log);
		gd_ofl_init(&o, 0);
		gd_series_init(&ser);
		gd_series_init(&js);
		gd_err_clear(&err);
		assert_true(gd_ofl_load_buf(&o, &js, ticket, strlen(ticket), "ticket.txt", &err) >= 0);
		assert_non_null(strstr(js.note, "ticket.txt: 4 kernel-log events older"));
		assert_null(strstr(strstr(js.note, "ticket.txt: ") + 1, "ticket.txt: "));
		gd_ofl_finish(&o, &ser);
		gd_series_release(&ser);
		gd_series_release(&js);
		gd_ofl_release(&o);
	}
}

/* A directory given to --from is named as one, not read as an empty file. */
static void test_directory(void **state)
{
	struct gd_err err;
	struct gd_ofl o;
	struct gd_series js;
	char dir[] = "/tmp/gd-test-ofl-dir.XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(dir));
	gd_ofl_init(&o, 0);
	gd_series_init(&js);
	gd_err_clear(&err);
	assert_true(gd_ofl_load_file(&o, &js, dir, &err) < 0);
	assert_non_null(strstr(err.msg, "is a directory"));
	assert_int_equal(js.n, 0);
	gd_series_release(&js);
	gd_ofl_release(&o);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect),    cmocka_unit_test(test_lspci),
		cmocka_unit_test(test_paste),     cmocka_unit_test(test_encodings),
		cmocka_unit_test(test_single_sample_reason),
		cmocka_unit_test(test_klog_older_than_lookback), cmocka_unit_test(test_directory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
