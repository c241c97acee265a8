/*
 * test_rules_driver.c - gpu.missing, gpu.init_failed, driver.not_loaded,
 * driver.cuda_too_new and driver.cuda_stub on snapshots built in C: each fires with its evidence,
 * clears on healthy values, says unknown without evidence, and turns at its
 * thresholds.
 */
#include "testutil.h"

/* ---- builders ------------------------------------------------------------ */

static void nvml_ok(struct gd_snapshot *s, uint64_t count)
{
	GD_STRSET(s->nvml.status, "ok");
	GD_STRSET(s->nvml.driver_version, "550.54.15");
	gd_u64_set(&s->nvml.cuda_driver_version, 12040);
	gd_u64_set(&s->nvml.device_count, count);
}

static void nvml_absent(struct gd_snapshot *s)
{
	GD_STRSET(s->nvml.status, "absent");
	GD_STRSET(s->nvml.reason, "libnvidia-ml.so.1: cannot open shared object file");
}

static void add_source(struct gd_snapshot *s, const char *name, const char *status)
{
	struct gd_source *src = GD_PUSH(s, sources, struct gd_source);

	GD_STRSET(src->name, name);
	GD_STRSET(src->status, status);
}

static void add_pci_gpu(struct gd_snapshot *s, const char *bdf, const char *driver)
{
	struct gd_pci_gpu *p = GD_PUSH(s, pci_gpus, struct gd_pci_gpu);

	GD_STRSET(p->pci_bus_id, bdf);
	GD_STRSET(p->driver, driver);
	gd_u64_set(&p->pci_class, 0x030200);
}

static void add_gpu(struct gd_snapshot *s, uint64_t index, const char *bdf)
{
	struct gd_gpu *g = GD_PUSH(s, gpus, struct gd_gpu);

	gd_u64_set(&g->index, index);
	GD_STRSET(g->pci_bus_id, bdf);
	GD_STRSET(g->name, "NVIDIA H100 80GB HBM3");
}

/* Four GPUs on the bus; NVML lists the first n (upper-case bus ids, as
 * NVML prints them). */
static void host4(struct gd_snapshot *s, size_t n)
{
	static const char *const bdf[] = { "0000:1b:00.0", "0000:43:00.0", "0000:52:00.0", "0000:61:00.0" };
	static const char *const up[] = { "0000:1B:00.0", "0000:43:00.0", "0000:52:00.0", "0000:61:00.0" };

	add_source(s, "pci", "ok");
	for (size_t i = 0; i < 4; i++)
		add_pci_gpu(s, bdf[i], "nvidia");
	nvml_ok(s, n);
	for (size_t i = 0; i < n; i++)
		add_gpu(s, i, up[i]);
}

static enum gd_verdict run1(const char *id, struct fx *x, const struct gd_thresholds *th)
{
	return run_rule2(id, &x->b, NULL, th, &x->out);
}

/* ---- gpu.missing ------------------------------------------------------------ */

static void test_missing_fires(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	host4(&x->b, 3);
	assert_int_equal(run1("gpu.missing", x, NULL), GD_VERDICT_FIRED);
	assert_int_equal(x->out.items.n, 1);
	f = FINDING(x->out, 0);
	assert_int_equal(f->severity, GD_SEV_CRITICAL);
	assert_string_equal(f->subject, "gpu at 0000:61:00.0");
	NEAR(ev_get(f, "nvml_gpus")->value.v, 3, 0);
	NEAR(ev_get(f, "nvml_gpus")->threshold.v, 4, 0);
	NEAR(ev_get(f, "pci_gpus")->value.v, 4, 0);
	assert_contains(f->summary, "NVML counts 3 GPUs, the bus 4");
}

static void test_missing_clear_and_passthrough(void **state)
{
	struct fx *x = *state;

	host4(&x->b, 4);
	assert_int_equal(run1("gpu.missing", x, NULL), GD_VERDICT_CLEAR);
	/* a fifth GPU handed to a VM is not expected in NVML */
	add_pci_gpu(&x->b, "0000:9a:00.0", "vfio-pci");
	assert_int_equal(run1("gpu.missing", x, NULL), GD_VERDICT_CLEAR);
	assert_int_equal(x->out.items.n, 0);
}

static void test_missing_expected(void **state)
{
	struct fx *x = *state;
	struct gd_thresholds th;
	struct gd_err err;
	const struct gd_finding *f;

	gd_thresholds_init(&th);
	host4(&x->b, 4);
	/* 0 = off: the default */
	assert_int_equal(run1("gpu.missing", x, &th), GD_VERDICT_CLEAR);
	assert_int_equal(gd_thresholds_set(&th, "gpu.missing.expected", "4", &err), 0);
	assert_int_equal(run1("gpu.missing", x, &th), GD_VERDICT_CLEAR);   /* the edge: 4 of 4 */
	assert_int_equal(gd_thresholds_set(&th, "gpu.missing.expected", "8", &err), 0);
	assert_int_equal(run1("gpu.missing", x, &th), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_string_equal(f->subject, "host");
	NEAR(ev_get(f, "nvml_gpus")->threshold.v, 8, 0);
	assert_contains(f->summary, "gone from the bus itself");
}

static void test_missing_unknown(void **state)
{
	struct fx *x = *state;

	nvml_absent(&x->b);
	assert_int_equal(run1("gpu.missing", x, NULL), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&x->out), "no GPU evidence: libnvidia-ml.so.1");
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	/* NVML fine, but no PCI evidence and no expected count */
	nvml_ok(&x->b, 4);
	add_source(&x->b, "pci", "absent");
	assert_int_equal(run1("gpu.missing", x, NULL), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&x->out), "gpu.missing.expected");
}

/* ---- gpu.init_failed --------------------------------------------------------- */

static void test_init_failed(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	host4(&x->b, 0);
	GD_VEC_AT(x->b.pci_gpus, struct gd_pci_gpu, 0)->driver[0] = '\0';
	assert_int_equal(run1("gpu.init_failed", x, NULL), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_int_equal(f->severity, GD_SEV_CRITICAL);
	NEAR(ev_get(f, "nvml_gpus")->value.v, 0, 0);
	NEAR(ev_get(f, "pci_gpus")->value.v, 4, 0);
	assert_string_equal(ev_get(f, "bound_driver")->text, "no driver: 1, nouveau: 0");
	assert_contains(f->summary, "0000:1b:00.0");
	assert_contains(f->remedy, "Above 4G");
	/* gpu.missing leaves the none-at-all case to it */
	assert_int_equal(run1("gpu.missing", x, NULL), GD_VERDICT_CLEAR);
}

static void test_init_failed_clear_unknown(void **state)
{
	struct fx *x = *state;

	host4(&x->b, 4);
	assert_int_equal(run1("gpu.init_failed", x, NULL), GD_VERDICT_CLEAR);
	gd_snapshot_clear(&x->b);
	nvml_ok(&x->b, 0);
	add_source(&x->b, "pci", "ok");   /* no NVIDIA GPU on the bus */
	assert_int_equal(run1("gpu.init_failed", x, NULL), GD_VERDICT_CLEAR);
	gd_snapshot_clear(&x->b);
	GD_STRSET(x->b.nvml.status, "failed");
	GD_STRSET(x->b.nvml.reason, "nvmlInit: Unknown Error");
	assert_int_equal(run1("gpu.init_failed", x, NULL), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&x->out), "nvmlInit: Unknown Error");
}

/* ---- driver.not_loaded ---------------------------------------------------------- */

static void test_not_loaded(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	add_source(&x->b, "pci", "ok");
	add_pci_gpu(&x->b, "0000:1b:00.0", "");
	add_pci_gpu(&x->b, "0000:43:00.0", "");
	nvml_absent(&x->b);
	gd_u64_set(&x->b.driver.loaded, 0);
	assert_int_equal(run1("driver.not_loaded", x, NULL), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_int_equal(f->severity, GD_SEV_CRITICAL);
	assert_string_equal(f->subject, "driver");
	NEAR(ev_get(f, "pci_gpus")->value.v, 2, 0);
	assert_contains(f->summary, "no /proc/driver/nvidia/version");
	assert_contains(f->remedy, "modprobe nvidia");
	/* nouveau holds one: the remedy starts with blacklisting it */
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	GD_STRSET(GD_VEC_AT(x->b.pci_gpus, struct gd_pci_gpu, 1)->driver, "nouveau");
	assert_int_equal(run1("driver.not_loaded", x, NULL), GD_VERDICT_FIRED);
	assert_contains(FINDING(x->out, 0)->remedy, "blacklist");
}

static void test_not_loaded_from_nvml(void **state)
{
	struct fx *x = *state;

	add_source(&x->b, "pci", "ok");
	add_pci_gpu(&x->b, "0000:1b:00.0", "");
	GD_STRSET(x->b.nvml.status, "absent");
	GD_STRSET(x->b.nvml.init_error, "DRIVER_NOT_LOADED");
	/* the version file was not read at all (denied) */
	assert_int_equal(run1("driver.not_loaded", x, NULL), GD_VERDICT_FIRED);
	assert_string_equal(ev_get(FINDING(x->out, 0), "init_error")->text, "DRIVER_NOT_LOADED");
}

static void test_not_loaded_clear_unknown(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	/* the proc file masked in a container, but NVML works: loaded */
	host4(&x->b, 4);
	gd_u64_set(&x->b.driver.loaded, 0);
	assert_int_equal(run1("driver.not_loaded", x, NULL), GD_VERDICT_CLEAR);
	/* GPUs passed through to VMs only: nothing to load */
	gd_snapshot_clear(&x->b);
	add_source(&x->b, "pci", "ok");
	add_pci_gpu(&x->b, "0000:1b:00.0", "vfio-pci");
	nvml_absent(&x->b);
	gd_u64_set(&x->b.driver.loaded, 0);
	assert_int_equal(run1("driver.not_loaded", x, NULL), GD_VERDICT_CLEAR);
	/* no PCI evidence */
	gd_snapshot_clear(&x->b);
	nvml_absent(&x->b);
	assert_int_equal(run1("driver.not_loaded", x, NULL), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&x->out), "no PCI evidence");
	/* no PCI evidence, but the driver's own word (nvidia-smi's "couldn't
	 * communicate with the NVIDIA driver" pasted alone): fires */
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	GD_STRSET(x->b.nvml.init_error, "DRIVER_NOT_LOADED");
	GD_STRSET(x->b.nvml.reason, "nvidia-smi: couldn't communicate with the NVIDIA driver");
	assert_int_equal(run1("driver.not_loaded", x, NULL), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_int_equal(f->severity, GD_SEV_CRITICAL);
	assert_contains(f->summary, "kernel module is not loaded (nvidia-smi: couldn't communicate");
	assert_contains(f->summary, "not known");
	assert_contains(f->remedy, "modprobe nvidia");
	gd_snapshot_clear(&x->b);
	nvml_absent(&x->b);
	/* GPUs there, NVML absent for another reason, version file unread */
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	add_source(&x->b, "pci", "ok");
	add_pci_gpu(&x->b, "0000:1b:00.0", "nvidia");
	add_source(&x->b, "nvidia_driver", "denied");
	assert_int_equal(run1("driver.not_loaded", x, NULL), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&x->out), "denied");
}

/* ---- lspci fragments without a device header ------------------------------------- */

/* A record without a bus id is "a PCIe device" of an lspci fragment
 * (LnkCap/LnkSta lines alone): no GPU the rules that count GPUs count. */
static void add_fragment(struct gd_snapshot *s, const char *driver)
{
	struct gd_pci_gpu *p = GD_PUSH(s, pci_gpus, struct gd_pci_gpu);

	GD_STRSET(p->driver, driver);
	gd_u64_set(&p->link_width, 1);
	gd_u64_set(&p->link_width_max, 16);
}

static void test_fragment_not_counted(void **state)
{
	struct fx *x = *state;

	/* the fragment alone, no driver, no NVML */
	add_fragment(&x->b, "");
	nvml_absent(&x->b);
	gd_u64_set(&x->b.driver.loaded, 0);
	assert_int_not_equal(run1("driver.not_loaded", x, NULL), GD_VERDICT_FIRED);
	assert_int_not_equal(run1("gpu.missing", x, NULL), GD_VERDICT_FIRED);
	/* with "Kernel driver in use: nvidia" in it, NVML absent */
	gd_snapshot_clear(&x->b);
	add_fragment(&x->b, "nvidia");
	nvml_absent(&x->b);
	assert_int_not_equal(run1("driver.nvml_unavailable", x, NULL), GD_VERDICT_FIRED);
	/* NVML up and counting none: no GPU on the bus that it failed to bring up */
	gd_snapshot_clear(&x->b);
	add_fragment(&x->b, "");
	nvml_ok(&x->b, 0);
	assert_int_not_equal(run1("gpu.init_failed", x, NULL), GD_VERDICT_FIRED);
	assert_int_not_equal(run1("gpu.missing", x, NULL), GD_VERDICT_FIRED);
	/* beside a GPU NVML lists: the bus holds one GPU, not two */
	gd_snapshot_clear(&x->b);
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	add_source(&x->b, "pci", "ok");
	add_pci_gpu(&x->b, "0000:1b:00.0", "nvidia");
	add_fragment(&x->b, "nvidia");
	nvml_ok(&x->b, 1);
	add_gpu(&x->b, 0, "0000:1B:00.0");
	assert_int_equal(run1("gpu.missing", x, NULL), GD_VERDICT_CLEAR);
	assert_int_equal(x->out.items.n, 0);
}

/* ---- driver.cuda_too_new ----------------------------------------------------------- */

static struct gd_proc *add_cuda_proc(struct gd_snapshot *s, uint64_t pid, const char *rt)
{
	struct gd_proc *p = GD_PUSH(s, procs, struct gd_proc);

	gd_u64_set(&p->pid, pid);
	GD_STRSET(p->comm, "python");
	gd_u64_set(&p->nvidia_fds, 4);
	GD_STRSET(p->cuda_runtime, rt);
	return p;
}

static void test_cuda_too_new_major(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	nvml_ok(&x->b, 4);
	add_cuda_proc(&x->b, 4242, "13.0.48");
	add_cuda_proc(&x->b, 4243, "13.0.48");
	assert_int_equal(run1("driver.cuda_too_new", x, NULL), GD_VERDICT_FIRED);
	assert_int_equal(x->out.items.n, 1);   /* one per runtime version */
	f = FINDING(x->out, 0);
	assert_int_equal(f->severity, GD_SEV_CRITICAL);
	assert_string_equal(f->subject, "pid 4242 (python)");
	NEAR(ev_get(f, "cuda_runtime_version")->value.v, 13000, 0);
	NEAR(ev_get(f, "cuda_runtime_version")->threshold.v, 12040, 0);
	NEAR(ev_get(f, "processes")->value.v, 2, 0);
	assert_string_equal(ev_get(f, "cuda_runtime")->text, "13.0.48");
	assert_contains(f->summary, "up to 12.4");
}

/* The toolkit's libcudart.so.13 (soname-only: major 13) on a 535 driver
 * (CUDA 12.2): critical, naming the file mapped. */
static void test_cuda_too_new_names_file(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;
	struct gd_proc *p;

	nvml_ok(&x->b, 4);
	GD_STRSET(x->b.nvml.driver_version, "535.261.03");
	gd_u64_set(&x->b.nvml.cuda_driver_version, 12020);
	p = add_cuda_proc(&x->b, 4242, "13");
	GD_STRSET(p->cuda_runtime_file, "/usr/local/cuda-13.0/lib/libcudart.so.13");
	assert_int_equal(run1("driver.cuda_too_new", x, NULL), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_int_equal(f->severity, GD_SEV_CRITICAL);
	assert_string_equal(ev_get(f, "cuda_runtime_file")->text, "/usr/local/cuda-13.0/lib/libcudart.so.13");
	assert_contains(f->summary, "535.261.03 supports CUDA up to 12.2");
}

/* ---- driver.cuda_stub ----------------------------------------------------------- */

static void test_cuda_stub_process(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;
	struct gd_proc *p = GD_PUSH(&x->b, procs, struct gd_proc);

	gd_u64_set(&p->pid, 5120);
	GD_STRSET(p->comm, "python");
	GD_STRSET(p->mntns, "mnt:[4026532512]");
	GD_STRSET(p->cuda_stub, "/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so");
	add_source(&x->b, "cuda_runtime", "ok");
	assert_int_equal(run1("driver.cuda_stub", x, NULL), GD_VERDICT_FIRED);
	assert_int_equal(x->out.items.n, 1);
	f = FINDING(x->out, 0);
	assert_int_equal(f->severity, GD_SEV_CRITICAL);
	assert_string_equal(f->subject, "pid 5120 (python)");
	assert_contains(f->summary, "stubs/libcuda.so: this is the CUDA toolkit's stub library, not the driver's: the "
				    "container lacks the NVIDIA runtime mounts");
	assert_string_equal(ev_get(f, "cuda_stub")->text, "/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so");
	/* the healthy baseline: the same process without the stub */
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	p->cuda_stub[0] = '\0';
	assert_int_equal(run1("driver.cuda_stub", x, NULL), GD_VERDICT_CLEAR);
	assert_int_equal(x->out.items.n, 0);
}

static void test_cuda_stub_probe(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	GD_STRSET(x->b.driver.cuda_library, "/usr/local/cuda-13.0/lib/stubs/libcuda.so");
	gd_u64_set(&x->b.driver.cuda_init_error, 34);
	assert_int_equal(run1("driver.cuda_stub", x, NULL), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_string_equal(f->subject, "probe");
	assert_contains(f->summary, "the probe loaded /usr/local/cuda-13.0/lib/stubs/libcuda.so: this is the CUDA "
				    "toolkit's stub library");
	NEAR(ev_get(f, "cuda_init_error")->value.v, 34, 0);
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	/* another cuInit error (no device) is not the stub; a driver that
	 * initialised is clear; nothing read at all is unknown */
	gd_u64_set(&x->b.driver.cuda_init_error, 100);
	assert_int_equal(run1("driver.cuda_stub", x, NULL), GD_VERDICT_CLEAR);
	gd_snapshot_clear(&x->b);
	GD_STRSET(x->b.driver.cuda_library, "/usr/lib/x86_64-linux-gnu/libcuda.so.535.261.03");
	assert_int_equal(run1("driver.cuda_stub", x, NULL), GD_VERDICT_CLEAR);
	gd_snapshot_clear(&x->b);
	add_source(&x->b, "cuda_runtime", "denied");
	assert_int_equal(run1("driver.cuda_stub", x, NULL), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&x->out), "denied");
}

static void test_cuda_too_new_minor_and_edges(void **state)
{
	struct fx *x = *state;
	const struct gd_finding *f;

	nvml_ok(&x->b, 4);
	add_cuda_proc(&x->b, 4242, "12.8.57");
	assert_int_equal(run1("driver.cuda_too_new", x, NULL), GD_VERDICT_FIRED);
	f = FINDING(x->out, 0);
	assert_int_equal(f->severity, GD_SEV_WARNING);
	assert_contains(f->summary, "minor-version compatibility");
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	/* the edge: the same version the driver supports, an older one, a
	 * soname-only major */
	GD_STRSET(GD_VEC_AT(x->b.procs, struct gd_proc, 0)->cuda_runtime, "12.4.131");
	add_cuda_proc(&x->b, 5000, "11.8.89");
	add_cuda_proc(&x->b, 5001, "12");
	assert_int_equal(run1("driver.cuda_too_new", x, NULL), GD_VERDICT_CLEAR);
}

static void test_cuda_too_new_unknown(void **state)
{
	struct fx *x = *state;

	nvml_absent(&x->b);
	add_cuda_proc(&x->b, 4242, "13.0.48");
	assert_int_equal(run1("driver.cuda_too_new", x, NULL), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&x->out), "no GPU evidence");
	gd_findings_release(&x->out);
	gd_findings_init(&x->out);
	/* NVML fine, no runtime seen: clear when maps were read, else unknown */
	gd_snapshot_clear(&x->b);
	nvml_ok(&x->b, 4);
	add_source(&x->b, "cuda_runtime", "denied");
	assert_int_equal(run1("driver.cuda_too_new", x, NULL), GD_VERDICT_UNKNOWN);
	assert_contains(unknown_reason(&x->out), "denied");
	gd_snapshot_clear(&x->b);
	nvml_ok(&x->b, 4);
	add_source(&x->b, "cuda_runtime", "ok");
	assert_int_equal(run1("driver.cuda_too_new", x, NULL), GD_VERDICT_CLEAR);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_missing_fires),
		T(test_missing_clear_and_passthrough),
		T(test_missing_expected),
		T(test_missing_unknown),
		T(test_init_failed),
		T(test_init_failed_clear_unknown),
		T(test_not_loaded),
		T(test_not_loaded_from_nvml),
		T(test_not_loaded_clear_unknown),
		T(test_fragment_not_counted),
		T(test_cuda_too_new_major),
		T(test_cuda_too_new_minor_and_edges),
		T(test_cuda_too_new_unknown),
		T(test_cuda_too_new_names_file),
		T(test_cuda_stub_process),
		T(test_cuda_stub_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
