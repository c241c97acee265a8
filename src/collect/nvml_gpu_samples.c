/*
 * nvml_gpu_samples.c - the nvml collector's sub-second evidence: the
 * driver's buffer of GPU utilisation samples (nvmlDeviceGetSamples with
 * NVML_GPU_UTILIZATION_SAMPLES, FACTS.md 2.14), one sample every 1/6 s to
 * 1 s depending on the product, so that a 200 ms stall inside a 1 s
 * snapshot interval is seen, where nvmlDeviceGetUtilizationRates averages
 * it away.  Asked for the samples newer than GD_GPU_SAMPLES_LOOKBACK_S
 * before now (the driver's clock is the CPU's wall clock, in µs): first
 * with no buffer for the count, then with one.  NOT_FOUND is "no sample
 * since then" (an idle driver), NOT_SUPPORTED leaves the GPU without
 * samples; other errors are nvml_errors rows.  The newest
 * GD_GPU_SAMPLES_MAX are kept.
 */
#include <stdlib.h>
#include <time.h>

#include "collect/nvml_gpu.h"
#include "core/xalloc.h"

static nvmlReturn_t t_samples(const struct gd_nvml_api *a, struct gd_nvml_io *io)
{
	nvmlValueType_t vt = NVML_VALUE_TYPE_UNSIGNED_INT;
	nvmlReturn_t rc = a->samples(io->dev, (nvmlSamplingType_t)io->arg[0], io->ull, &vt, &io->count, io->buf);

	io->u[0] = (unsigned int)vt;
	return rc;
}

/* The sample's value as a whole number, by its type. */

void gd_gpu_collect_samples(struct gd_gpu_run *r, const struct gd_nvml_api *a)
{
	struct gd_nvml_io io = gd_nv_args(NVML_GPU_UTILIZATION_SAMPLES, 0);
	struct timespec now;
	unsigned int cap;
	int rc;

	if (!a->samples || r->lost || gd_nvml_state(r->nv) == GD_NVML_STUCK)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	io.ull = ((unsigned long long)now.tv_sec - GD_GPU_SAMPLES_LOOKBACK_S) * 1000000ull +
		 (unsigned long long)now.tv_nsec / 1000;
	io.dev = r->dev;
	rc = gd_nvml_call(r->nv, "nvmlDeviceGetSamples", (int)r->idx, t_samples, &io);
	if (rc == NVML_ERROR_NOT_FOUND || (rc == NVML_SUCCESS && io.count == 0))
		return;   /* no sample since then */
	if (!gd_nv_check(r, "gpu_samples", "nvmlDeviceGetSamples", rc))
		return;
	cap = io.count + 8;   /* samples arrive while we ask */
	io.buf = gd_xcalloc(cap, sizeof(nvmlSample_t));
	io.count = cap;
	io.dev = r->dev;
	rc = gd_nvml_call(r->nv, "nvmlDeviceGetSamples", (int)r->idx, t_samples, &io);
	if (rc != NVML_ERROR_NOT_FOUND && gd_nv_check(r, "gpu_samples", "nvmlDeviceGetSamples", rc) && io.buf) {
		const nvmlSample_t *smp = io.buf;
		unsigned int n = io.count < cap ? io.count : cap;
		unsigned int from = n > GD_GPU_SAMPLES_MAX ? n - GD_GPU_SAMPLES_MAX : 0;

		for (unsigned int i = from; i < n; i++) {
			struct gd_gpu_sample *g;
			uint64_t v;

			if (!gd_nv_value_u64(io.u[0], &smp[i].sampleValue, &v) || v > 100)
				continue;
			g = GD_PUSH(r->s, gpu_samples, struct gd_gpu_sample);
			gd_u64_set(&g->gpu, r->idx);
			gd_u64_set(&g->t_us, smp[i].timeStamp);
			gd_u64_set(&g->util_pct, v);
		}
	}
	free(io.buf);
}
