/*
 * nvml_act.c - sub-second activity of the GPUs GPU jobs use, sampled on the
 * NVML thread between calls (see nvml.h): what gpu.transfer_serialized
 * needs to tell copies that run one after the other with the kernels from
 * copies that overlap them.
 *
 * Per GPU, one of two sources, chosen at its first start:
 *
 *   gpm    nvmlGpmQueryDeviceSupport says the GPU has GPM (Hopper and
 *          newer): at every reading a GPM sample (nvmlGpmSampleGet), and
 *          from the previous one to it, in one nvmlGpmMetricsGet, SM_UTIL
 *          (share of SMs busy: SM activity), PCIE_RX_PER_SEC and
 *          PCIE_TX_PER_SEC (MiB/s), SM_OCCUPANCY, ANY_TENSOR_UTIL,
 *          DRAM_BW_UTIL and NVLINK_TOTAL_RX/TX_PER_SEC.  Two samples are
 *          kept per GPU and swapped.
 *   pcie   otherwise, when nvmlDeviceGetPcieThroughput exists: TX and RX
 *          KB/s (each measured by the driver over 20 ms: a point reading,
 *          and a call that takes about that long) and the newest of the
 *          driver's utilisation samples (nvmlDeviceGetSamples, one per
 *          1/6 s to 1 s: the util of a point reading is that coarse).
 *
 * Example (an H100 whose loop copies a batch, then computes it): gpm
 * intervals of 100 ms read SM 0%, RX 9200 MiB/s; SM 0%, RX 9100; SM 96%,
 * RX 3; SM 97%, RX 2; ... copies in half the busy intervals, overlap in
 * none.
 *
 * NOT_SUPPORTED is a capability, not an error (no GPM: pcie; no
 * utilisation samples: util absent); any other failure of a sampling call
 * is kept (the first per GPU) for the next start to report, and a GPM
 * failure moves the GPU to pcie.  The state is the NVML thread's alone:
 * the start and take jobs and the loop between jobs run on it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/i18n.h"
#include "core/xalloc.h"
#include "nvml/nvml_worker.h"

#define UTIL_BUF 64            /* utilisation samples read per call */
#define PCIE_WINDOW_US 20000   /* the driver's throughput window */
#define MIB 1048576.0

struct act_gpu {
	unsigned int idx;
	nvmlDevice_t dev;
	bool listed;               /* in the latest start */
	bool decided;              /* src chosen (once per GPU and handle) */
	enum gd_nvml_act_src src;
	char why[160];
	nvmlGpmSample_t gpm[2];    /* GPM: the previous sample and the next */
	int cur;                   /* which of gpm[] the next reading fills */
	bool have_prev;
	struct timespec t_prev;    /* GPM: when the previous sample was taken */
	unsigned long long util_seen_us; /* pcie: newest utilisation sample seen */
	double util_last;          /* its value, NAN before the first */
	int rc;                    /* the first failure since the last start */
	const char *what;
	struct gd_nvml_act *ring;  /* GD_NVML_ACT_MAX, the newest kept */
	size_t head, n;
};

struct gd__act {
	struct act_gpu *g;
	size_t n, cap;
	size_t listed;
	size_t cursor;             /* the GPU of the next reading */
	struct timespec turn;      /* when the current turn over the GPUs began */
	struct timespec due;       /* when the next reading is due (CLOCK_MONOTONIC) */
	nvmlGpmMetricsGet_t mg;    /* scratch for nvmlGpmMetricsGet (13 KB) */
	nvmlSample_t util[UTIL_BUF];
};

struct gd__act *gd__act_new(void)
{
	return gd_xcalloc(1, sizeof(struct gd__act));
}

void gd__act_free(struct gd__act *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++)
		free(a->g[i].ring);
	free(a->g);
	free(a);
}

void gd__act_release(struct gd__act *a, const struct gd_nvml_api *api)
{
	for (size_t i = 0; a && i < a->n; i++)
		for (int k = 0; k < 2; k++) {
			if (a->g[i].gpm[k] && api->gpm_free)
				api->gpm_free(a->g[i].gpm[k]);
			a->g[i].gpm[k] = NULL;
		}
	if (a)
		a->listed = 0;
}

static void ts_add_ms(struct timespec *t, long ms)
{
	t->tv_nsec += ms * 1000000L;
	while (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

static bool ts_before(const struct timespec *x, const struct timespec *y)
{
	return x->tv_sec < y->tv_sec || (x->tv_sec == y->tv_sec && x->tv_nsec < y->tv_nsec);
}

static unsigned long long wall_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (unsigned long long)t.tv_sec * 1000000ull + (unsigned long long)t.tv_nsec / 1000;
}

bool gd__act_due(const struct gd__act *a, struct timespec *due)
{
	if (!a || !a->listed)
		return false;
	*due = a->due;
	return true;
}

/* Names the sampling call about to be made (NULL: none), for a deadline
 * that a caller misses behind it. */
static void bg_enter(struct worker *w, const char *what, unsigned int gpu)
{
	pthread_mutex_lock(&w->mu);
	w->bg_what = what;
	w->bg_gpu = (int)gpu;
	pthread_mutex_unlock(&w->mu);
}

static void note_error(struct act_gpu *g, const char *what, nvmlReturn_t rc)
{
	if (g->rc == NVML_SUCCESS) {
		g->rc = rc;
		g->what = what;
	}
}

static void push(struct act_gpu *g, const struct gd_nvml_act *r)
{
	if (!g->ring)
		g->ring = gd_xcalloc(GD_NVML_ACT_MAX, sizeof *g->ring);
	g->ring[(g->head + g->n) % GD_NVML_ACT_MAX] = *r;
	if (g->n < GD_NVML_ACT_MAX)
		g->n++;
	else
		g->head = (g->head + 1) % GD_NVML_ACT_MAX;
}

/* The metrics every reading asks for, in one nvmlGpmMetricsGet; one that
 * the GPU or driver does not compute answers its own error (NAN here). */
enum { M_SM, M_PCIE_RX, M_PCIE_TX, M_OCC, M_TENSOR, M_DRAM, M_NVLINK_RX, M_NVLINK_TX, NMETRICS };
static const unsigned int metric_ids[NMETRICS] = {
	[M_SM] = NVML_GPM_METRIC_SM_UTIL,
	[M_PCIE_RX] = NVML_GPM_METRIC_PCIE_RX_PER_SEC,
	[M_PCIE_TX] = NVML_GPM_METRIC_PCIE_TX_PER_SEC,
	[M_OCC] = NVML_GPM_METRIC_SM_OCCUPANCY,
	[M_TENSOR] = NVML_GPM_METRIC_ANY_TENSOR_UTIL,
	[M_DRAM] = NVML_GPM_METRIC_DRAM_BW_UTIL,
	[M_NVLINK_RX] = NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC,
	[M_NVLINK_TX] = NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC,
};

static double mib_s(const nvmlGpmMetric_t *m)
{
	return m->nvmlReturn == NVML_SUCCESS && isfinite(m->value) && m->value >= 0 ? m->value * MIB : NAN;
}

static double pct(const nvmlGpmMetric_t *m)
{
	return m->nvmlReturn == NVML_SUCCESS && m->value >= 0 && m->value <= 100 ? m->value : NAN;
}

static void read_gpm(struct worker *w, struct gd__act *a, struct act_gpu *g)
{
	const struct gd_nvml_api *api = &w->api;
	struct gd_nvml_act r;
	struct timespec now;
	nvmlReturn_t rc;

	bg_enter(w, "nvmlGpmSampleGet", g->idx);
	rc = api->gpm_get(g->dev, g->gpm[g->cur]);
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (rc != NVML_SUCCESS) {
		note_error(g, "nvmlGpmSampleGet", rc);
		g->src = api->pcie_throughput ? GD_NVML_ACT_PCIE : GD_NVML_ACT_NONE;
		return;
	}
	if (g->have_prev) {
		nvmlGpmMetricsGet_t *mg = &a->mg;

		mg->version = NVML_GPM_METRICS_GET_VERSION;
		mg->numMetrics = NMETRICS;
		mg->sample1 = g->gpm[!g->cur];
		mg->sample2 = g->gpm[g->cur];
		memset(mg->metrics, 0, NMETRICS * sizeof mg->metrics[0]);
		for (unsigned int k = 0; k < NMETRICS; k++)
			mg->metrics[k].metricId = metric_ids[k];
		bg_enter(w, "nvmlGpmMetricsGet", g->idx);
		rc = api->gpm_metrics(mg);
		if (rc == NVML_SUCCESS) {
			memset(&r, 0, sizeof r);
			r.gpu = g->idx;
			r.src = GD_NVML_ACT_GPM;
			r.t_us = wall_us();
			r.dt_us = (unsigned long long)((now.tv_sec - g->t_prev.tv_sec) * 1000000LL +
						       (now.tv_nsec - g->t_prev.tv_nsec) / 1000);
			r.sm_pct = pct(&mg->metrics[M_SM]);
			r.util_pct = NAN;
			r.rx_bytes_s = mib_s(&mg->metrics[M_PCIE_RX]);
			r.tx_bytes_s = mib_s(&mg->metrics[M_PCIE_TX]);
			r.occupancy_pct = pct(&mg->metrics[M_OCC]);
			r.tensor_pct = pct(&mg->metrics[M_TENSOR]);
			r.dram_pct = pct(&mg->metrics[M_DRAM]);
			r.nvlink_rx_bytes_s = mib_s(&mg->metrics[M_NVLINK_RX]);
			r.nvlink_tx_bytes_s = mib_s(&mg->metrics[M_NVLINK_TX]);
			push(g, &r);
		} else {
			note_error(g, "nvmlGpmMetricsGet", rc);
		}
	}
	g->cur = !g->cur;
	g->have_prev = true;
	g->t_prev = now;
}

/* The newest utilisation sample since the last one seen (NOT_FOUND: none
 * new, the value stands). */
static void read_util(struct worker *w, struct gd__act *a, struct act_gpu *g)
{
	const struct gd_nvml_api *api = &w->api;
	nvmlValueType_t vt = NVML_VALUE_TYPE_UNSIGNED_INT;
	unsigned int count = UTIL_BUF;
	unsigned long long since = g->util_seen_us;
	nvmlReturn_t rc;

	if (!api->samples)
		return;
	if (!since)
		since = wall_us() - 2000000ull;   /* not the whole buffer: the last 2 s */
	bg_enter(w, "nvmlDeviceGetSamples", g->idx);
	rc = api->samples(g->dev, NVML_GPU_UTILIZATION_SAMPLES, since, &vt, &count, a->util);
	if (rc == NVML_ERROR_NOT_FOUND || rc == NVML_ERROR_NOT_SUPPORTED)
		return;
	if (rc != NVML_SUCCESS) {
		if (rc != NVML_ERROR_INSUFFICIENT_SIZE)
			note_error(g, "nvmlDeviceGetSamples", rc);
		g->util_seen_us = wall_us();   /* a full buffer: start again from now */
		return;
	}
	for (unsigned int i = 0; i < count && i < UTIL_BUF; i++) {
		const nvmlSample_t *s = &a->util[i];
		double v;

		if (s->timeStamp <= g->util_seen_us)
			continue;
		if (vt == NVML_VALUE_TYPE_UNSIGNED_INT)
			v = s->sampleValue.uiVal;
		else if (vt == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG)
			v = (double)s->sampleValue.ullVal;
		else if (vt == NVML_VALUE_TYPE_DOUBLE)
			v = s->sampleValue.dVal;
		else
			continue;
		if (!(v >= 0 && v <= 100))
			continue;
		g->util_seen_us = s->timeStamp;
		g->util_last = v;
	}
}

static void read_pcie(struct worker *w, struct gd__act *a, struct act_gpu *g)
{
	const struct gd_nvml_api *api = &w->api;
	unsigned int tx = 0, rx = 0;
	struct gd_nvml_act r;
	nvmlReturn_t rt, rr;

	bg_enter(w, "nvmlDeviceGetPcieThroughput", g->idx);
	rt = api->pcie_throughput(g->dev, NVML_PCIE_UTIL_TX_BYTES, &tx);
	rr = api->pcie_throughput(g->dev, NVML_PCIE_UTIL_RX_BYTES, &rx);
	read_util(w, a, g);
	if (rt != NVML_SUCCESS && rr != NVML_SUCCESS) {
		if (rt != NVML_ERROR_NOT_SUPPORTED)
			note_error(g, "nvmlDeviceGetPcieThroughput", rt);
		return;
	}
	memset(&r, 0, sizeof r);
	r.gpu = g->idx;
	r.src = GD_NVML_ACT_PCIE;
	r.t_us = wall_us();
	r.dt_us = PCIE_WINDOW_US;
	r.sm_pct = NAN;
	r.util_pct = g->util_last;
	r.tx_bytes_s = rt == NVML_SUCCESS ? tx * 1000.0 : NAN;
	r.rx_bytes_s = rr == NVML_SUCCESS ? rx * 1000.0 : NAN;
	r.occupancy_pct = r.tensor_pct = r.dram_pct = NAN;
	r.nvlink_rx_bytes_s = r.nvlink_tx_bytes_s = NAN;
	push(g, &r);
}

void gd__act_step(struct worker *w)
{
	struct gd__act *a = w->act;
	struct act_gpu *g = NULL;
	struct timespec now;

	if (a->cursor == 0)
		clock_gettime(CLOCK_MONOTONIC, &a->turn);
	while (a->cursor < a->n && !a->g[a->cursor].listed)
		a->cursor++;
	if (a->cursor < a->n) {
		g = &a->g[a->cursor++];
		if (g->src == GD_NVML_ACT_GPM)
			read_gpm(w, a, g);
		else if (g->src == GD_NVML_ACT_PCIE)
			read_pcie(w, a, g);
		bg_enter(w, NULL, 0);
	}
	while (a->cursor < a->n && !a->g[a->cursor].listed)
		a->cursor++;
	if (a->cursor < a->n)
		return;   /* the rest of this turn: at once */
	/* the next turn a period after this one began, so that two readings
	 * of a GPU are a period apart or more (GPM needs 100 ms) */
	a->cursor = 0;
	a->due = a->turn;
	ts_add_ms(&a->due, GD_NVML_ACT_PERIOD_MS);
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (ts_before(&a->due, &now))
		a->due = now;   /* the readings took longer than a period */
}

/* ---- the jobs: start and take (run on the NVML thread) -------------------- */

static struct act_gpu *gpu_of(struct gd__act *a, unsigned int idx)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->g[i].idx == idx)
			return &a->g[i];
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 8;
		a->g = gd_xreallocarray(a->g, a->cap, sizeof *a->g);
	}
	memset(&a->g[a->n], 0, sizeof a->g[a->n]);
	a->g[a->n].idx = idx;
	a->g[a->n].util_last = NAN;
	return &a->g[a->n++];
}

/* Chooses g's source once: GPM when the GPU says it has it and two
 * samples can be allocated, else PCIe throughput, else none (why). */
static void decide(const struct gd_nvml_api *api, struct act_gpu *g)
{
	struct worker *w = gd__worker_of(api);
	nvmlGpmSupport_t sup;
	nvmlReturn_t rc;
	unsigned int rx = 0;
	const char *no_gpm;

	g->decided = true;
	g->src = GD_NVML_ACT_NONE;
	bg_enter(w, "nvmlDeviceGetHandleByIndex", g->idx);
	rc = api->handle(g->idx, &g->dev);
	if (rc != NVML_SUCCESS) {
		snprintf(g->why, sizeof g->why, "nvmlDeviceGetHandleByIndex: NVML_ERROR_%s", gd_nvml_error_name(rc));
		g->decided = false;   /* asked again at the next start */
		return;
	}
	no_gpm = _("no GPM in this driver (NVML before 12.0)");
	if (api->gpm_support && api->gpm_alloc && api->gpm_free && api->gpm_get && api->gpm_metrics) {
		memset(&sup, 0, sizeof sup);
		sup.version = NVML_GPM_SUPPORT_VERSION;
		bg_enter(w, "nvmlGpmQueryDeviceSupport", g->idx);
		rc = api->gpm_support(g->dev, &sup);
		if (rc == NVML_SUCCESS && sup.isSupportedDevice) {
			bg_enter(w, "nvmlGpmSampleAlloc", g->idx);
			if (api->gpm_alloc(&g->gpm[0]) == NVML_SUCCESS && api->gpm_alloc(&g->gpm[1]) == NVML_SUCCESS) {
				g->src = GD_NVML_ACT_GPM;
				return;
			}
			no_gpm = _("GPM samples could not be allocated");
		} else if (rc == NVML_SUCCESS || rc == NVML_ERROR_NOT_SUPPORTED) {
			no_gpm = _("no GPM on this GPU (Hopper and newer have it)");
		} else {
			no_gpm = _("nvmlGpmQueryDeviceSupport failed");
		}
		for (int k = 0; k < 2; k++) {
			if (g->gpm[k])
				api->gpm_free(g->gpm[k]);
			g->gpm[k] = NULL;
		}
	}
	if (!api->pcie_throughput) {
		snprintf(g->why, sizeof g->why, _("%s, and no nvmlDeviceGetPcieThroughput in this driver"), no_gpm);
		return;
	}
	bg_enter(w, "nvmlDeviceGetPcieThroughput", g->idx);
	rc = api->pcie_throughput(g->dev, NVML_PCIE_UTIL_RX_BYTES, &rx);
	if (rc == NVML_SUCCESS) {
		g->src = GD_NVML_ACT_PCIE;
		return;
	}
	snprintf(g->why, sizeof g->why, _("%s, and nvmlDeviceGetPcieThroughput: NVML_ERROR_%s"), no_gpm,
		 gd_nvml_error_name(rc));
}

/* io->buf: struct gd_nvml_act_gpu[io->count], gpu set; the rest filled.
 * Its NVML calls are named as sampling calls too, so that one that hangs
 * is the one a missed deadline names. */
static nvmlReturn_t t_start(const struct gd_nvml_api *api, struct gd_nvml_io *io)
{
	struct worker *w = gd__worker_of(api);
	struct gd__act *a = w->act;
	struct gd_nvml_act_gpu *in = io->buf;
	bool was = a->listed > 0;

	for (size_t i = 0; i < a->n; i++)
		a->g[i].listed = false;
	a->listed = 0;
	for (unsigned int i = 0; in && i < io->count; i++) {
		struct act_gpu *g = gpu_of(a, in[i].gpu);

		if (!g->decided)
			decide(api, g);
		if (g->decided && g->src != GD_NVML_ACT_NONE && !g->listed) {
			g->listed = true;
			a->listed++;
		}
		in[i].src = g->src;
		in[i].rc = g->rc;
		snprintf(in[i].what, sizeof in[i].what, "%s", g->what ? g->what : "");
		snprintf(in[i].why, sizeof in[i].why, "%s", g->why);
		g->rc = NVML_SUCCESS;
		g->what = NULL;
	}
	a->cursor = 0;
	if (!was) {   /* sampling on: the first turn a period from now; else it goes on */
		clock_gettime(CLOCK_MONOTONIC, &a->due);
		ts_add_ms(&a->due, GD_NVML_ACT_PERIOD_MS);
	}
	bg_enter(w, NULL, 0);
	w->act_resume = a->listed > 0;
	return NVML_SUCCESS;
}

int gd_nvml_act_start(struct gd_nvml *nv, struct gd_nvml_act_gpu *gpus, size_t n)
{
	struct gd_nvml_io io;
	int rc;

	memset(&io, 0, sizeof io);
	if (n) {
		io.buf = gd_xcalloc(n, sizeof *gpus);
		for (size_t i = 0; i < n; i++)
			((struct gd_nvml_act_gpu *)io.buf)[i].gpu = gpus[i].gpu;
	}
	io.count = (unsigned int)n;
	rc = gd_nvml_call(nv, "sub-second sampling start", -1, t_start, &io);
	if (rc == NVML_SUCCESS && io.buf)
		memcpy(gpus, io.buf, n * sizeof *gpus);
	free(io.buf);
	return rc;
}

/* Out: io->buf a new array of io->count intervals (NULL when none). */
static nvmlReturn_t t_take(const struct gd_nvml_api *api, struct gd_nvml_io *io)
{
	struct gd__act *a = gd__worker_of(api)->act;
	struct gd_nvml_act *out;
	size_t total = 0, k = 0;

	for (size_t i = 0; i < a->n; i++)
		total += a->g[i].n;
	io->buf = NULL;
	io->count = 0;
	if (!total)
		return NVML_SUCCESS;
	out = gd_xcalloc(total, sizeof *out);
	for (size_t i = 0; i < a->n; i++) {
		struct act_gpu *g = &a->g[i];

		for (size_t j = 0; j < g->n; j++)
			out[k++] = g->ring[(g->head + j) % GD_NVML_ACT_MAX];
		g->head = g->n = 0;
	}
	io->buf = out;
	io->count = (unsigned int)total;
	return NVML_SUCCESS;
}

int gd_nvml_act_take(struct gd_nvml *nv, struct gd_nvml_act **out, size_t *n)
{
	struct gd_nvml_io io;
	int rc;

	memset(&io, 0, sizeof io);
	*out = NULL;
	*n = 0;
	rc = gd_nvml_call(nv, "sub-second sampling take", -1, t_take, &io);
	if (rc == NVML_SUCCESS) {
		*out = io.buf;
		*n = io.count;
	} else {
		free(io.buf);
	}
	return rc;
}
