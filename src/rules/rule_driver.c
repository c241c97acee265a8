/*
 * rule_driver.c - GPUs on the bus against the GPUs the driver serves, and the
 * CUDA runtimes jobs bring against the CUDA the driver supports.
 *
 * gpu.missing: a GPU dropped out (掉卡).  Evidence: the NVIDIA display/3D
 * functions in /sys/bus/pci/devices (pci_gpus[], those passed through to a
 * VM via vfio-pci left out) against nvml.device_count, and optionally the
 * count the operator expects (gpu.missing.expected, 0 = off).  Fires when
 * NVML counts fewer GPUs than the bus holds, naming each PCI address NVML
 * does not list, or fewer than expected.  NVML counting none at all is
 * gpu.init_failed's case and is left to it.  Example: 4 H100s on the bus,
 * NVML counts 3: 0000:61:00.0 is missing.
 *
 * gpu.init_failed: the driver is loaded and NVML initialised, but it finds
 * no device while NVIDIA GPUs sit on the bus: the driver's probe of every
 * GPU failed (RmInitAdapter failed, GSP firmware boot, Above-4G decoding
 * off).  Evidence (NVML side, init_failed_from_nvml): nvml.status ok,
 * device_count 0, pci_gpus > 0 and the driver each is bound to (none =
 * the probe failed).  The kernel-log side (RmInitAdapter, probe routine
 * failed) joins at the merge with the kernel-log branch, in its own
 * function.  Example: NVML ok, 0 devices, 8 GPUs on the bus, none bound.
 *
 * driver.not_loaded: NVIDIA GPUs on the bus and no nvidia kernel module:
 * /proc/driver/nvidia/version is absent (driver.loaded = 0) or nvmlInit
 * said DRIVER_NOT_LOADED.  A working NVML proves the opposite and clears
 * it (in a container the proc file can be masked).  GPUs bound to nouveau
 * are named: the remedy then starts with blacklisting it.
 *
 * driver.cuda_too_new: a GPU job maps libcudart.so.X.Y (proc.cuda_runtime)
 * newer than the CUDA the driver supports (nvml.cuda_driver_version, 1000 *
 * major + 10 * minor).  A newer major cannot run at all (critical); a newer
 * minor of the same major runs under CUDA minor-version compatibility but
 * PTX JIT and the newest APIs fail (warning).  A soname-only file
 * (libcudart.so.12, pip wheels) gives the major alone: only a newer major
 * is judged.  Statically linked runtimes map nothing and go unseen.
 * Example: runtime 12.8.57 on a driver for CUDA 12.4: warning; 13.0 on it:
 * critical.  The evidence names the file mapped (cuda_runtime_file).
 *
 * driver.cuda_stub: a program loaded the CUDA toolkit's stub libcuda.so
 * (lib64/stubs/libcuda.so: every call answers CUDA_ERROR_STUB_LIBRARY, 34)
 * instead of the driver's libcuda.so.1, so it sees no GPU ("CUDA not
 * available").  Evidence: a process whose /proc/<pid>/maps holds the stub
 * (proc.cuda_stub), or the probe whose cuInit answered 34
 * (driver.cuda_init_error, with driver.cuda_library the file it loaded).
 * The usual cause is a container started without the NVIDIA runtime's
 * mounts; outside one, LD_LIBRARY_PATH or ld.so.conf naming the stubs
 * directory.  Example: pid 5120 (python) maps
 * /usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so.
 */
#include "rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "rules/rule_gpu_pci.h"

#define TH(rc, name) ((rc)->th->v[GD_TH_##name])
#define CUDA_ERROR_STUB_LIBRARY 34   /* CUresult of every call into the toolkit's stub */

/* "0000:1b:00.0, 0000:43:00.0, ..." of the host's PCI GPUs into buf. */
static void pci_list(const struct gd_snapshot *s, char *buf, size_t sz)
{
	size_t used = 0, n = 0;

	buf[0] = '\0';
	GD_VEC_EACH(s->pci_gpus, const struct gd_pci_gpu, p) {
		if (!gpci_host_gpu(p))
			continue;
		if (n++ == 4) {
			snprintf(buf + used, sz - used, ", ...");
			return;
		}
		used += (size_t)snprintf(buf + used, used < sz ? sz - used : 0, "%s%s", used ? ", " : "", p->pci_bus_id);
		if (used >= sz)
			return;
	}
}

/* How the host's PCI GPUs are bound: "nvidia" when all are, else
 * "none: 2, nouveau: 1"-style counts of the exceptions. */
static void bound_text(const struct gd_snapshot *s, char *buf, size_t sz, size_t *nouveau, size_t *unbound)
{
	*nouveau = *unbound = 0;
	GD_VEC_EACH(s->pci_gpus, const struct gd_pci_gpu, p) {
		if (!gpci_host_gpu(p))
			continue;
		if (!p->driver[0])
			(*unbound)++;
		else if (strcmp(p->driver, "nouveau") == 0)
			(*nouveau)++;
	}
	if (!*nouveau && !*unbound)
		snprintf(buf, sz, "nvidia");
	else
		snprintf(buf, sz, "no driver: %zu, nouveau: %zu", *unbound, *nouveau);
}

static size_t nvml_count(const struct gd_snapshot *s)
{
	return s->nvml.device_count.ok ? (size_t)s->nvml.device_count.v : s->gpus.n;
}

static const char *nvml_why(const struct gd_snapshot *s)
{
	return s->nvml.reason[0] ? s->nvml.reason : s->nvml.status[0] ? s->nvml.status : _("NVML not collected");
}

/* ---- gpu.missing ---------------------------------------------------------- */

enum gd_verdict gd_rule_gpu_missing(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	double expected = TH(rc, GPU_MISSING_EXPECTED);
	size_t count, host, named = 0;
	bool pci;
	struct gd_finding *f;

	if (!b)
		return gd_rule_unknown(rc, _("no snapshot"));
	if (strcmp(b->nvml.status, "ok") != 0)
		return gd_rule_unknown(rc, _("no GPU evidence: %s"), nvml_why(b));
	pci = gpci_seen(b);
	if (!pci && !(expected > 0))
		/* TRANSLATORS: %s is the pci collector's status word (denied, absent) */
		return gd_rule_unknown(rc, _("no PCI evidence (/sys/bus/pci/devices not read: %s) and no expected count "
					     "(set gpu.missing.expected)"),
				       gpci_source(b, "pci")[0] ? gpci_source(b, "pci") : _("not collected"));
	count = nvml_count(b);
	host = gpci_host_gpus(b);
	if (pci && count == 0 && host > 0)
		return GD_VERDICT_CLEAR;   /* none at all: gpu.init_failed */
	if (pci && count < host) {
		GD_VEC_EACH(b->pci_gpus, const struct gd_pci_gpu, p) {
			if (!gpci_host_gpu(p) || gpci_nvml_gpu(b, p->pci_bus_id))
				continue;
			f = gd_finding_add(rc, out, rc->rule->severity, "gpu at %s", p->pci_bus_id);
			/* TRANSLATORS: (driver <nvidia, vfio-pci, or "none">) */
			gd_finding_summary(f, _("The NVIDIA GPU at %s sits on the PCI bus (driver %s) but NVML does not list "
						"it: NVML counts %zu GPUs, the bus %zu."), p->pci_bus_id,
					   p->driver[0] ? p->driver : _("none"), count, host);
			gd_finding_ev(f, "nvml_gpus", (double)count, "", (double)host);
			gd_finding_ev(f, "pci_gpus", (double)host, "", NAN);
			gd_finding_ev_text(f, "pci_bus_id", p->pci_bus_id);
			named++;
		}
		if (!named) {
			f = gd_finding_add(rc, out, rc->rule->severity, "host");
			gd_finding_summary(f, _("NVML counts %zu GPUs but %zu NVIDIA GPUs sit on the PCI bus."), count, host);
			gd_finding_ev(f, "nvml_gpus", (double)count, "", (double)host);
			gd_finding_ev(f, "pci_gpus", (double)host, "", NAN);
			named++;
		}
	}
	if (expected > 0 && (double)count < expected && !named) {
		f = gd_finding_add(rc, out, rc->rule->severity, "host");
		if (pci && (double)host < expected)
			gd_finding_summary(f, _("NVML counts %zu GPUs and the PCI bus shows %zu, but this host should have "
						"%.0f (gpu.missing.expected): a GPU is gone from the bus itself."), count, host,
					   expected);
		else
			gd_finding_summary(f, _("NVML counts %zu GPUs, but this host should have %.0f (gpu.missing.expected)."),
					   count, expected);
		gd_finding_ev(f, "nvml_gpus", (double)count, "", expected);
		if (pci)
			gd_finding_ev(f, "pci_gpus", (double)host, "", NAN);
		named++;
	}
	return named ? GD_VERDICT_FIRED : GD_VERDICT_CLEAR;
}

/* ---- gpu.init_failed ------------------------------------------------------- */

/* The NVML/sysfs side: NVML is up and lists no device while the bus holds
 * NVIDIA GPUs.  Returns FIRED, CLEAR or UNKNOWN (reason recorded). */
static enum gd_verdict init_failed_from_nvml(struct gd_rule_ctx *rc, const struct gd_snapshot *b,
					     struct gd_findings *out)
{
	size_t host, nouveau, unbound;
	char list[160], bound[64];
	struct gd_finding *f;

	if (strcmp(b->nvml.status, "ok") != 0)
		return gd_rule_unknown(rc, _("no GPU evidence: %s"), nvml_why(b));
	if (!gpci_seen(b))
		return gd_rule_unknown(rc, _("no PCI evidence (/sys/bus/pci/devices not read)"));
	host = gpci_host_gpus(b);
	if (nvml_count(b) > 0 || host == 0)
		return GD_VERDICT_CLEAR;
	pci_list(b, list, sizeof list);
	bound_text(b, bound, sizeof bound, &nouveau, &unbound);
	f = gd_finding_add(rc, out, rc->rule->severity, "host");
	if (unbound == host)
		/* TRANSLATORS: (%s) lists the GPUs' PCI addresses */
		gd_finding_summary(f, _("NVML is up but finds no GPU while %zu NVIDIA GPUs sit on the PCI bus (%s); none is "
					"bound to the nvidia driver: its probe failed."), host, list);
	else if (nouveau)
		gd_finding_summary(f, _("NVML is up but finds no GPU while %zu NVIDIA GPUs sit on the PCI bus (%s); some "
					"are bound to nouveau."), host, list);
	else
		gd_finding_summary(f, _("NVML is up but finds no GPU while %zu NVIDIA GPUs sit on the PCI bus (%s)."), host,
				   list);
	gd_finding_ev(f, "nvml_gpus", 0, "", (double)host);
	gd_finding_ev(f, "pci_gpus", (double)host, "", NAN);
	gd_finding_ev_text(f, "bound_driver", bound);
	/* TRANSLATORS: ... and that driver <550.54.15, or "the installed"> supports this GPU */
	gd_finding_remedy(f, _("The driver could not bring the GPUs up: look for \"RmInitAdapter failed\" or \"probe "
			       "routine failed\" in dmesg; check BIOS settings (Above 4G decoding, Resizable BAR), the "
			       "auxiliary power cables, seating, and that driver %s supports this GPU."),
			  b->nvml.driver_version[0] ? b->nvml.driver_version : _("the installed"));
	return GD_VERDICT_FIRED;
}

enum gd_verdict gd_rule_gpu_init_failed_nvml(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);

	if (!b)
		return gd_rule_unknown(rc, _("no snapshot"));
	return init_failed_from_nvml(rc, b, out);
}

/* ---- driver.not_loaded ------------------------------------------------------ */

enum gd_verdict gd_rule_driver_not_loaded(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	size_t host, nouveau, unbound;
	bool file_absent, init_says;
	char list[160], bound[64];
	struct gd_finding *f;

	if (!b)
		return gd_rule_unknown(rc, _("no snapshot"));
	if (!gpci_seen(b) && strcmp(b->nvml.init_error, "DRIVER_NOT_LOADED") == 0) {
		/* nvidia-smi's "couldn't communicate with the NVIDIA driver" pasted
		 * alone (NVIDIA's 535 binary prints it, exit 9, without the module):
		 * the driver's own word, though no PCI evidence names the GPUs */
		f = gd_finding_add(rc, out, rc->rule->severity, "driver");
		/* TRANSLATORS: %s is what said so ("nvidia-smi: couldn't communicate with the NVIDIA driver") */
		gd_finding_summary(f, _("The nvidia kernel module is not loaded (%s); which NVIDIA GPUs sit on the PCI "
					"bus is not known (no lspci -vv or /sys/bus/pci evidence)."),
				   b->nvml.reason[0] ? b->nvml.reason : "nvmlInit: DRIVER_NOT_LOADED");
		gd_finding_ev_text(f, "init_error", b->nvml.init_error);
		gd_finding_remedy(f, _("Load the driver (modprobe nvidia) and read dmesg if it fails; if it is not "
				       "installed, install the NVIDIA driver matching this kernel (DKMS must have built it "
				       "for the running kernel)."));
		return GD_VERDICT_FIRED;
	}
	if (!gpci_seen(b))
		return gd_rule_unknown(rc, _("no PCI evidence (/sys/bus/pci/devices not read)"));
	host = gpci_host_gpus(b);
	if (host == 0 || strcmp(b->nvml.status, "ok") == 0)
		return GD_VERDICT_CLEAR;   /* no GPU to drive, or the driver answers */
	file_absent = b->driver.loaded.ok && b->driver.loaded.v == 0;
	init_says = strcmp(b->nvml.init_error, "DRIVER_NOT_LOADED") == 0;
	if (!file_absent && !init_says) {
		if (b->driver.loaded.ok)
			return GD_VERDICT_CLEAR;
		/* TRANSLATORS: %s is the collector's status word (denied, absent) */
		return gd_rule_unknown(rc, _("/proc/driver/nvidia/version not read (%s) and NVML says nothing about the "
					     "driver"),
				       gpci_source(b, "nvidia_driver")[0] ? gpci_source(b, "nvidia_driver")
									  : _("not collected"));
	}
	pci_list(b, list, sizeof list);
	bound_text(b, bound, sizeof bound, &nouveau, &unbound);
	f = gd_finding_add(rc, out, rc->rule->severity, "driver");
	if (nouveau)
		/* TRANSLATORS: <n> NVIDIA GPUs sit on the PCI bus (<PCI addresses>) ... not loaded (<what says so>) */
		gd_finding_summary(f, P_("%zu NVIDIA GPU sits on the PCI bus (%s) but the nvidia kernel module is not "
					 "loaded (%s); nouveau has them.",
					 "%zu NVIDIA GPUs sit on the PCI bus (%s) but the nvidia kernel module is not "
					 "loaded (%s); nouveau has them.", host),
				   host, list, file_absent ? _("no /proc/driver/nvidia/version") : "nvmlInit: DRIVER_NOT_LOADED");
	else
		gd_finding_summary(f, P_("%zu NVIDIA GPU sits on the PCI bus (%s) but the nvidia kernel module is not "
					 "loaded (%s).",
					 "%zu NVIDIA GPUs sit on the PCI bus (%s) but the nvidia kernel module is not "
					 "loaded (%s).", host),
				   host, list, file_absent ? _("no /proc/driver/nvidia/version") : "nvmlInit: DRIVER_NOT_LOADED");
	gd_finding_ev(f, "pci_gpus", (double)host, "", NAN);
	gd_finding_ev_text(f, "bound_driver", bound);
	if (b->nvml.init_error[0])
		gd_finding_ev_text(f, "init_error", b->nvml.init_error);
	if (nouveau)
		gd_finding_remedy(f, _("nouveau holds the GPUs: blacklist it (echo 'blacklist nouveau' > "
				       "/etc/modprobe.d/blacklist-nouveau.conf; update-initramfs -u), reboot, then load "
				       "nvidia (modprobe nvidia) and check dmesg."));
	else if (b->host.kernel[0])
		/* TRANSLATORS: DKMS must have built it for <kernel release: 6.8.0-45-generic> */
		gd_finding_remedy(f, _("Load the driver (modprobe nvidia) and read dmesg if it fails; if it is not "
				       "installed, install the NVIDIA driver matching this kernel (DKMS must have built it "
				       "for %s)."),
				  b->host.kernel);
	else
		gd_finding_remedy(f, _("Load the driver (modprobe nvidia) and read dmesg if it fails; if it is not "
				       "installed, install the NVIDIA driver matching this kernel (DKMS must have built it "
				       "for the running kernel)."));
	return GD_VERDICT_FIRED;
}

/* ---- driver.cuda_too_new ------------------------------------------------------ */

/* "12.4.127" → major 12, minor 4 (minor -1 when the name has none). */
static bool runtime_version(const char *v, long *major, long *minor)
{
	char *end;

	*major = strtol(v, &end, 10);
	if (end == v || *major < 0)
		return false;
	*minor = -1;
	if (*end == '.') {
		const char *m = end + 1;

		*minor = strtol(m, &end, 10);
		if (end == m)
			*minor = -1;
	}
	return true;
}

enum gd_verdict gd_rule_driver_cuda_too_new(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	long dmaj, dmin;
	size_t mapped = 0, fired = 0;
	const char *st;

	if (!b)
		return gd_rule_unknown(rc, _("no snapshot"));
	if (!b->nvml.cuda_driver_version.ok)
		return gd_rule_unknown(rc, _("no GPU evidence: %s"),
				       strcmp(b->nvml.status, "ok") == 0 ? _("NVML gave no CUDA driver version")
									 : nvml_why(b));
	dmaj = (long)(b->nvml.cuda_driver_version.v / 1000);
	dmin = (long)(b->nvml.cuda_driver_version.v % 1000 / 10);
	for (size_t i = 0; i < b->procs.n; i++) {
		const struct gd_proc *p = GD_VEC_AT(b->procs, struct gd_proc, i);
		long maj, min;
		bool major_newer, minor_newer;
		const char *drv;
		size_t same = 0;
		struct gd_finding *f;

		if (!p->cuda_runtime[0] || !runtime_version(p->cuda_runtime, &maj, &min))
			continue;
		mapped++;
		major_newer = maj > dmaj;
		minor_newer = maj == dmaj && min >= 0 && min > dmin;
		if (!major_newer && !minor_newer)
			continue;
		/* One finding per runtime version: the first process names it. */
		for (size_t k = 0; k < i; k++)
			if (strcmp(GD_VEC_AT(b->procs, struct gd_proc, k)->cuda_runtime, p->cuda_runtime) == 0)
				goto next;
		for (size_t k = i + 1; k < b->procs.n; k++)
			same += strcmp(GD_VEC_AT(b->procs, struct gd_proc, k)->cuda_runtime, p->cuda_runtime) == 0;
		f = gd_finding_add(rc, out, major_newer ? GD_SEV_CRITICAL : GD_SEV_WARNING, "pid %llu (%s)",
				   (unsigned long long)p->pid.v, p->comm);
		drv = b->nvml.driver_version[0] ? b->nvml.driver_version : _("(unknown)");
		if (major_newer && same)
			/* TRANSLATORS: pid <pid> (<command>) maps CUDA runtime <12.8.57>, but driver <550.54.15> supports
			 * CUDA up to <12.4> */
			gd_finding_summary(f, _("pid %llu (%s) and others maps CUDA runtime %s, but driver %s supports CUDA "
						"up to %ld.%ld: a newer major version cannot run."),
					   (unsigned long long)p->pid.v, p->comm, p->cuda_runtime, drv, dmaj, dmin);
		else if (major_newer)
			gd_finding_summary(f, _("pid %llu (%s) maps CUDA runtime %s, but driver %s supports CUDA up to "
						"%ld.%ld: a newer major version cannot run."),
					   (unsigned long long)p->pid.v, p->comm, p->cuda_runtime, drv, dmaj, dmin);
		else if (same)
			/* TRANSLATORS: ... newer than the CUDA <12.4> driver <550.54.15> supports */
			gd_finding_summary(f, _("pid %llu (%s) and others maps CUDA runtime %s, newer than the CUDA %ld.%ld "
						"driver %s supports: it runs only under minor-version compatibility (no PTX "
						"JIT, newest APIs fail)."),
					   (unsigned long long)p->pid.v, p->comm, p->cuda_runtime, dmaj, dmin, drv);
		else
			gd_finding_summary(f, _("pid %llu (%s) maps CUDA runtime %s, newer than the CUDA %ld.%ld driver %s "
						"supports: it runs only under minor-version compatibility (no PTX JIT, newest "
						"APIs fail)."),
					   (unsigned long long)p->pid.v, p->comm, p->cuda_runtime, dmaj, dmin, drv);
		gd_finding_ev(f, "cuda_runtime_version", (double)(maj * 1000 + (min > 0 ? min : 0) * 10), "",
			      (double)b->nvml.cuda_driver_version.v);
		gd_finding_ev_text(f, "cuda_runtime", p->cuda_runtime);
		if (p->cuda_runtime_file[0])
			gd_finding_ev_text(f, "cuda_runtime_file", p->cuda_runtime_file);
		gd_finding_ev(f, "processes", (double)(same + 1), "", NAN);
		if (b->nvml.driver_version[0])
			gd_finding_ev_text(f, "driver_version", b->nvml.driver_version);
		fired++;
next:;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (mapped)
		return GD_VERDICT_CLEAR;
	st = gpci_source(b, "cuda_runtime");
	if (strcmp(st, "ok") == 0 || strcmp(st, "partial") == 0)
		return GD_VERDICT_CLEAR;   /* no job maps a shared libcudart */
	/* TRANSLATORS: %s is the collector's status word (denied, absent) */
	return gd_rule_unknown(rc, _("the CUDA runtimes of GPU jobs were not read (/proc/<pid>/maps: %s)"),
			       st[0] ? st : _("not collected"));
}

/* ---- driver.cuda_stub ---------------------------------------------------------- */

enum gd_verdict gd_rule_driver_cuda_stub(struct gd_rule_ctx *rc, struct gd_findings *out)
{
	const struct gd_snapshot *b = gd_window_last(rc->w);
	size_t fired = 0;
	const char *st;

	if (!b)
		return gd_rule_unknown(rc, _("no snapshot"));
	if (b->driver.cuda_init_error.ok && b->driver.cuda_init_error.v == CUDA_ERROR_STUB_LIBRARY) {
		const char *lib = b->driver.cuda_library[0] ? b->driver.cuda_library : "libcuda.so.1";
		struct gd_finding *f = gd_finding_add(rc, out, rc->rule->severity, "probe");

		/* TRANSLATORS: %s is the library file the probe loaded */
		gd_finding_summary(f, _("the probe loaded %s: this is the CUDA toolkit's stub library, not the driver's: the "
					"container lacks the NVIDIA runtime mounts"),
				   lib);
		gd_finding_ev(f, "cuda_init_error", (double)b->driver.cuda_init_error.v, "", NAN);
		gd_finding_ev_text(f, "cuda_library", lib);
		fired++;
	}
	GD_VEC_EACH(b->procs, const struct gd_proc, p) {
		struct gd_finding *f;

		if (!p->cuda_stub[0])
			continue;
		f = gd_finding_add(rc, out, rc->rule->severity, "pid %llu (%s)", (unsigned long long)p->pid.v, p->comm);
		/* TRANSLATORS: pid <pid> (<command>) maps <file> */
		gd_finding_summary(f, _("pid %llu (%s) maps %s: this is the CUDA toolkit's stub library, not the driver's: "
					"the container lacks the NVIDIA runtime mounts"),
				   (unsigned long long)p->pid.v, p->comm, p->cuda_stub);
		gd_finding_ev_text(f, "cuda_stub", p->cuda_stub);
		if (p->mntns[0])
			gd_finding_ev_text(f, "mntns", p->mntns);
		fired++;
	}
	if (fired)
		return GD_VERDICT_FIRED;
	if (b->driver.cuda_init_error.ok || b->driver.cuda_library[0])
		return GD_VERDICT_CLEAR;   /* the probe loaded a driver that is not the stub */
	st = gpci_source(b, "cuda_runtime");
	if (strcmp(st, "ok") == 0 || strcmp(st, "partial") == 0)
		return GD_VERDICT_CLEAR;
	/* TRANSLATORS: %s is the collector's status word (denied, absent) */
	return gd_rule_unknown(rc, _("the libraries processes map were not read (/proc/<pid>/maps: %s)"),
			       st[0] ? st : _("not collected"));
}
