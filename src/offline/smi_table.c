/*
 * smi_table.c - the plain `nvidia-smi` table (the boxed summary people paste
 * most) and its one-line failures, into gpus[] and gpu_procs[].
 *
 * R535 and newer (R470 and older have narrower columns, no "Perf" gap, and
 * two rows a GPU before MIG appeared in R450):
 *
 *   +-----------------------------------------------------------------------------------------+
 *   | NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |
 *   |-----------------------------------------+------------------------+----------------------+
 *   | GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
 *   | Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
 *   |                                         |                        |               MIG M. |
 *   |=========================================+========================+======================|
 *   |   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |                    0 |
 *   | N/A   34C    P0             72W /  700W |       4MiB /  81559MiB |      0%      Default |
 *   |                                         |                        |             Disabled |
 *   +-----------------------------------------+------------------------+----------------------+
 *   | Processes:                                                                              |
 *   |  GPU   GI   CI        PID   Type   Process name                              GPU Memory |
 *   |=========================================================================================|
 *   |    0   N/A  N/A     12345      C   python                                      39000MiB |
 *
 * A cell that reads "ERR!" is absent with an nvml_errors row (nvidia-smi
 * could not read it); a long name is cut with "..." by nvidia-smi itself.
 * The one-line failures:
 *
 *   No devices were found                          -> NVML ok, 0 devices
 *   Unable to determine the device handle for GPU 0000:3B:00.0: GPU is lost.  ...
 *   Unable to determine the device handle for GPU0000:07:00.0: Unknown Error
 *                                                  -> that GPU, lost = 1 (Unknown
 *                                                     Error: with an nvml_errors row)
 *   NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. ...
 *                                                  -> NVML failed, DRIVER_NOT_LOADED
 *   Failed to initialize NVML: Driver/library version mismatch
 *                                                  -> NVML failed, LIB_RM_VERSION_MISMATCH
 *   Failed to initialize NVML: Unknown Error       -> NVML failed, UNKNOWN
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "offline/offline.h"
#include "offline/ofl.h"
#include "offline/split.h"

#define MAX_CELLS 4

enum section { SEC_NONE, SEC_GPUS, SEC_MIG, SEC_PROCS };

struct tstate {
	struct gd_snapshot *s;
	struct gd_tok_tally t;
	enum section sec;
	bool data;        /* past the ==== line of the section */
	int row;          /* row of the current GPU's block (0, 1, 2) */
	struct gd_gpu *g;
	size_t ln;
};

/* Splits "| a | b | c |" into its cells; returns the count. */
static size_t cells(struct gd_slice line, struct gd_slice *c, size_t max)
{
	size_t n = 0, start;

	if (!line.n || line.p[0] != '|')
		return 0;
	start = 1;
	for (size_t i = 1; i < line.n; i++) {
		if (line.p[i] != '|')
			continue;
		if (n < max)
			c[n] = (struct gd_slice){ line.p + start, i - start };
		n++;
		start = i + 1;
	}
	return n;
}

static void note(struct tstate *q, enum ofl_v r, const char *field, struct gd_slice v)
{
	if (r == OFL_BAD)
		gd_tok_tally_skip(&q->t, q->ln, _("a cell that is not a value of its column"));
	else if (r == OFL_ERRVAL)
		ofl_note_errval(q->s, q->g && q->g->index.ok ? q->g->index.v : UINT64_MAX, field, "nvidia-smi", q->ln,
				(struct gd_slice){ field, strlen(field) }, v);
}

/* "72W /  700W", "ERR! / ERR!", "N/A /  N/A": the two halves around the
 * last slash with a blank beside it (the slash of "N/A" is none: a memory
 * cell that reads only "N/A", as on a MIG-enabled H200, has no halves). */
static bool halves(struct gd_slice c, struct gd_slice *a, struct gd_slice *b)
{
	for (size_t i = c.n; i-- > 0;)
		if (c.p[i] == '/' && ((i > 0 && c.p[i - 1] == ' ') || (i + 1 < c.n && c.p[i + 1] == ' '))) {
			*a = gd_tok_trim((struct gd_slice){ c.p, i });
			*b = gd_tok_trim((struct gd_slice){ c.p + i + 1, c.n - i - 1 });
			return true;
		}
	return false;
}

/* Row 1: "  0  NVIDIA H100 80GB HBM3   On  | 00000000:18:00.0 Off | 0 |". */
static void row1(struct tstate *q, struct gd_slice *c, size_t n)
{
	struct gd_slice f[16], b[4];
	size_t nf = gd_tok_split(c[0], f, 16), nb;
	struct gd_u64 idx = { 0, false };
	char bus[32] = "";

	nb = n > 1 ? gd_tok_split(c[1], b, 4) : 0;
	if (nf < 2 || ofl_u64(f[0], NULL, 1, &idx) != OFL_SET || !nb || !ofl_bus_id(b[0], bus, sizeof bus)) {
		gd_tok_tally_skip(&q->t, q->ln, _("a GPU row without its index and bus id"));
		q->g = NULL;
		return;
	}
	q->g = ofl_gpu_find(q->s, NULL, bus);
	if (!q->g)
		q->g = GD_PUSH(q->s, gpus, struct gd_gpu);
	q->g->index = idx;
	GD_STRSET(q->g->pci_bus_id, bus);
	q->row = 1;
	/* name: the tokens between the index and the persistence word */
	if (nf >= 3) {
		struct gd_slice last = f[nf - 1];
		size_t end = nf - 1;

		if (ofl_bool(last, &q->g->persistence_mode) == OFL_BAD)
			end = nf;
		else if (ofl_errval(last))
			note(q, OFL_ERRVAL, "persistence_mode", last);
		if (end > 1) {
			struct gd_slice name = { f[1].p, (size_t)(f[end - 1].p + f[end - 1].n - f[1].p) };

			if (!q->g->name[0])
				gd_tok_copy(q->g->name, sizeof q->g->name, name);
		}
	}
	if (n > 2) {
		struct gd_slice e = gd_tok_trim(c[2]);

		/* "On" with MIG enabled: the counts are per MIG device, in that table */
		if (ofl_ieq(e, "Off")) /* ECC disabled: no count */
			gd_u64_set(&q->g->ecc_mode, 0);
		else if (!ofl_ieq(e, "On"))
			note(q, ofl_u64(e, NULL, 1, &q->g->ecc_uncorrected_volatile), "ecc_uncorrected_volatile", e);
	}
}

/* Row 2: "N/A 34C P0 72W / 700W | 4MiB / 81559MiB | 0% Default |". */
static void row2(struct tstate *q, struct gd_slice *c, size_t n)
{
	struct gd_gpu *g = q->g;
	struct gd_slice a, b, f[8];
	size_t nf;

	q->row = 2;
	if (halves(c[0], &a, &b)) {
		/* a: fan temp perf power; b: the cap */
		nf = gd_tok_split(a, f, 8);
		if (nf >= 1)
			note(q, ofl_u64(f[0], "%", 1, &g->fan_pct), "fan_pct", f[0]);
		if (nf >= 2)
			note(q, ofl_f64(f[1], "C", 1, &g->temp_c), "temp_c", f[1]);
		if (nf >= 3) {
			uint64_t x;

			if (f[2].n >= 2 && f[2].p[0] == 'P' && gd_tok_u64((struct gd_slice){ f[2].p + 1, f[2].n - 1 }, &x) &&
			    x <= 15)
				gd_u64_set(&g->pstate, x);
			else if (ofl_errval(f[2]))
				note(q, OFL_ERRVAL, "pstate", f[2]);
		}
		if (nf >= 4)
			note(q, ofl_f64(f[nf - 1], "W", 1, &g->power_w), "power_w", f[nf - 1]);
		note(q, ofl_f64(b, "W", 1, &g->power_limit_w), "power_limit_w", b);
	} else {
		gd_tok_tally_skip(&q->t, q->ln, _("the fan/temperature/power cell has no \"draw / cap\""));
	}
	if (n > 1 && halves(c[1], &a, &b)) {
		note(q, ofl_u64(a, "MiB", 1048576, &g->mem_used_bytes), "mem_used_bytes", a);
		note(q, ofl_u64(b, "MiB", 1048576, &g->mem_total_bytes), "mem_total_bytes", b);
	} else if (n > 1 && !ofl_placeholder(gd_tok_trim(c[1]))) {
		note(q, OFL_BAD, "mem_used_bytes", c[1]);
	}
	if (n > 2) {
		static const char *const modes[] = { "Default", "E. Thread", "Prohibited", "E. Process" };

		nf = gd_tok_split(c[2], f, 8);
		if (nf >= 1)
			note(q, ofl_u64(f[0], "%", 1, &g->util_gpu_pct), "util_gpu_pct", f[0]);
		if (nf >= 2) {
			struct gd_slice m = { f[1].p, (size_t)(f[nf - 1].p + f[nf - 1].n - f[1].p) };

			for (uint64_t i = 0; i < 4; i++)
				if (ofl_ieq(m, modes[i]))
					gd_u64_set(&g->compute_mode, i);
			if (ofl_errval(m))
				note(q, OFL_ERRVAL, "compute_mode", m);
		}
	}
}

/* "|    0   N/A  N/A     12345      C   python     39000MiB |" (R450+),
 * "|    0      12345      C   python     39000MiB |" (before). */
static void proc_row(struct tstate *q, struct gd_slice line)
{
	struct gd_slice c[2], f[32];
	size_t nf, ti = 0;
	struct gd_u64 gpu = { 0, false }, pid = { 0, false };
	struct gd_gpu_proc *p;

	if (cells(line, c, 2) < 1)
		return;
	if (ofl_contains(c[0], "No running processes"))
		return;
	nf = gd_tok_split(c[0], f, 32);
	for (size_t i = 1; i < nf; i++)
		if (ofl_ieq(f[i], "C") || ofl_ieq(f[i], "G") || ofl_ieq(f[i], "C+G") || ofl_ieq(f[i], "M") ||
		    ofl_ieq(f[i], "M+C")) {
			ti = i;
			break;
		}
	if (nf < 4 || !ti || ofl_u64(f[0], NULL, 1, &gpu) != OFL_SET || ofl_u64(f[ti - 1], NULL, 1, &pid) != OFL_SET) {
		gd_tok_tally_skip(&q->t, q->ln, _("a process row without GPU, PID and type"));
		return;
	}
	p = ofl_gpu_proc(q->s, gpu.v, pid.v, ofl_ieq(f[ti], "G"));
	note(q, ofl_u64(f[nf - 1], "MiB", 1048576, &p->used_mem_bytes), "gpu_procs", f[nf - 1]);
}

bool ofl_table_gpu_row(struct gd_slice line)
{
	const char *bar, *bar2;
	struct gd_slice c1, c2;
	char bus[32];
	size_t i;

	if (line.n < 20 || line.p[0] != '|' || !(bar = memchr(line.p + 1, '|', line.n - 1)))
		return false;
	c1 = gd_tok_trim((struct gd_slice){ line.p + 1, (size_t)(bar - line.p - 1) });
	for (i = 0; i < c1.n && c1.p[i] >= '0' && c1.p[i] <= '9'; i++)
		;
	if (!i || i == c1.n || c1.p[i] != ' ')
		return false;
	bar2 = memchr(bar + 1, '|', (size_t)(line.p + line.n - bar - 1));
	if (!bar2)
		return false;
	c2 = gd_tok_trim((struct gd_slice){ bar + 1, (size_t)(bar2 - bar - 1) });
	return ofl_find_bus_id(c2, bus, sizeof bus);
}

/* The one-line failures; true when the line was one. */
static bool failure(struct tstate *q, struct gd_slice line)
{
	struct gd_snapshot *s = q->s;
	char bus[32];

	if (ofl_contains(line, "No devices were found")) {
		GD_STRSET(s->nvml.status, "ok");
		gd_u64_set(&s->nvml.device_count, 0);
		return true;
	}
	if (ofl_contains(line, "Unable to determine the device handle") ||
	    (ofl_contains(line, "GPU is lost") && ofl_find_bus_id(line, bus, sizeof bus))) {
		struct gd_gpu *g;

		if (!ofl_find_bus_id(line, bus, sizeof bus)) {
			/* a bus id that is none ("000:BA:80.0", typed by hand): still a
			 * GPU nvidia-smi cannot reach, an unnamed one (gpu?) */
			if (!ofl_contains(line, "Unknown Error") && !ofl_contains(line, "GPU is lost"))
				return true;
			g = GD_PUSH(s, gpus, struct gd_gpu);
		} else if (!(g = ofl_gpu_find(s, NULL, bus))) {
			g = GD_PUSH(s, gpus, struct gd_gpu);
			gd_u64_set(&g->index, s->gpus.n - 1);
			GD_STRSET(g->pci_bus_id, bus);
		}
		ofl_device_handle(s, g, line, "nvidia-smi", q->ln);
		if (!s->nvml.status[0])
			GD_STRSET(s->nvml.status, "ok");
		return true;
	}
	/* also "couldn‘t" (a curly quote from a web page) and the message split over two lines */
	if (ofl_contains(line, "communicate with the NVIDIA driver") ||
	    (ofl_contains(line, "NVIDIA-SMI has failed because it couldn"))) {
		GD_STRSET(s->nvml.status, "failed");
		GD_STRSET(s->nvml.init_error, "DRIVER_NOT_LOADED");
		GD_STRSET(s->nvml.reason, "nvidia-smi: couldn't communicate with the NVIDIA driver");
		return true;
	}
	if (ofl_contains(line, "Failed to initialize NVML") || ofl_contains(line, "Unknown Error")) {
		struct gd_slice r = gd_tok_trim(line);

		GD_STRSET(s->nvml.status, "failed");
		if (ofl_contains(line, "version mismatch"))
			GD_STRSET(s->nvml.init_error, "LIB_RM_VERSION_MISMATCH");
		else if (ofl_contains(line, "Unknown Error"))
			GD_STRSET(s->nvml.init_error, "UNKNOWN");
		snprintf(s->nvml.reason, sizeof s->nvml.reason, "nvidia-smi: %.*s", (int)(r.n > 200 ? 200 : r.n), r.p);
		return true;
	}
	return false;
}

/* "| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |" */
static void banner(struct tstate *q, struct gd_slice line)
{
	struct gd_slice f[16];
	size_t n = gd_tok_split(line, f, 16);

	for (size_t i = 0; i + 1 < n; i++) {
		if (ofl_ieq(f[i], "Version:") && i && ofl_ieq(f[i - 1], "Driver"))
			gd_tok_copy(q->s->nvml.driver_version, sizeof q->s->nvml.driver_version, f[i + 1]);
		if (ofl_ieq(f[i], "Version:") && i && ofl_ieq(f[i - 1], "CUDA")) {
			double v;

			if (gd_tok_f64(f[i + 1], &v) && v > 0 && v < 100)
				gd_u64_set(&q->s->nvml.cuda_driver_version, ofl_cuda_version(v));
		}
	}
}

int gd_parse_nvsmi_table(const char *buf, size_t len, struct gd_snapshot *s, struct gd_err *err)
{
	struct tstate q;
	struct gd_lines it;
	struct gd_slice line, c[MAX_CELLS];
	bool table = false, failed_line = false;
	int rc;

	memset(&q, 0, sizeof q);
	q.s = s;
	gd_lines_init(&it, buf, len);
	while (gd_tok_line(&it, &line)) {
		size_t n;

		q.ln = it.lineno;
		line = gd_tok_trim(ofl_chomp(line));
		if (!line.n)
			continue;
		if (gd_tok_is_binary(line.p, line.n)) {
			gd_tok_tally_skip(&q.t, q.ln, _("binary bytes"));
			continue;
		}
		if (line.p[0] != '|' && line.p[0] != '+') {
			if (failure(&q, line))
				failed_line = true;
			continue;
		}
		if (line.p[0] == '+') { /* a rule between blocks */
			q.g = NULL;
			q.row = 0;
			continue;
		}
		if (ofl_contains(line, "NVIDIA-SMI") && ofl_contains(line, "Driver Version")) {
			banner(&q, line);
			table = true;
			continue;
		}
		if (ofl_contains(line, "Persistence-M") || ofl_contains(line, "Bus-Id")) {
			q.sec = SEC_GPUS;
			q.data = false;
			continue;
		}
		if (ofl_contains(line, "MIG devices")) {
			q.sec = SEC_MIG;
			q.data = false;
			continue;
		}
		if (ofl_contains(line, "Processes:")) {
			q.sec = SEC_PROCS;
			q.data = false;
			GD_VEC_EACH(s->gpus, struct gd_gpu, g)
				ofl_procs_listed(g); /* its rows, or "No running processes found" */
			continue;
		}
		if (line.n > 2 && (line.p[1] == '=' || line.p[2] == '=')) {
			q.data = true;
			q.g = NULL;
			q.row = 0;
			continue;
		}
		if (line.n > 2 && line.p[1] == '-') { /* |----+----| inside a block */
			q.g = NULL;
			q.row = 0;
			continue;
		}
		/* an excerpt without the banner and the column header ("[...]" above
		 * it): a GPU block's first row names its bus id in the second cell */
		if (!q.data && !q.sec && ofl_table_gpu_row(line)) {
			q.sec = SEC_GPUS;
			q.data = true;
			table = true;
		}
		if (!q.data)
			continue;
		q.t.parsed++;
		if (q.sec == SEC_PROCS) {
			proc_row(&q, line);
			continue;
		}
		if (q.sec != SEC_GPUS)
			continue;
		n = cells(line, c, MAX_CELLS);
		if (n < 3) {
			gd_tok_tally_skip(&q.t, q.ln, _("a GPU row with fewer than three cells"));
			continue;
		}
		if (q.row == 0)
			row1(&q, c, n);
		else if (q.row == 1 && q.g)
			row2(&q, c, n);
		else if (q.row == 2 && q.g) {
			struct gd_slice m = gd_tok_trim(c[2]);

			note(&q, ofl_bool(m, &q.g->mig_mode), "mig_mode", m);
			q.row = 3;
		}
	}
	if (!table && !failed_line)
		return gd_err_set(err, -EINVAL, _("no nvidia-smi banner and no nvidia-smi failure line: not nvidia-smi output"));
	if (table)
		ofl_nvml_ok(s, "nvidia-smi");
	if (table && !s->nvml.device_count.ok)
		gd_u64_set(&s->nvml.device_count, s->gpus.n);
	rc = gd_tok_tally_result(&q.t, "nvidia-smi table", err);
	if (rc == -ENODATA) {
		gd_err_clear(err);
		rc = 0;
	}
	if (rc < 0 && (s->gpus.n || failed_line))
		rc = 1;
	return rc;
}
