/*
 * cuda.c - the CUDA driver loader: dlopen, one symbol table, cuInit.
 *
 * Each row names the member it fills and candidate symbols in the order
 * tried.  cuEventElapsedTime comes before its _v2 (CUDA 12.8+): a JetPack 6
 * driver exports only the plain name (PROBES.md §1.2), and both have the
 * same signature.  Every row is required: a driver too old to export one
 * (cuMemcpyPeerAsync, cuDevicePrimaryCtxRelease_v2 need CUDA 4.0 / 11.0) is
 * reported by name rather than half-used.
 */
#include "probe/cuda.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct sym {
	size_t offset;
	const char *names[3];
};

#define ROW(member, ...) { offsetof(struct gd_cuda_api, member), { __VA_ARGS__, NULL } }

static const struct sym syms[] = {
	ROW(init, "cuInit"),
	ROW(driver_version, "cuDriverGetVersion"),
	ROW(device_count, "cuDeviceGetCount"),
	ROW(device_get, "cuDeviceGet"),
	ROW(device_name, "cuDeviceGetName"),
	ROW(attribute, "cuDeviceGetAttribute"),
	ROW(pci_bus_id, "cuDeviceGetPCIBusId"),
	ROW(total_mem, "cuDeviceTotalMem_v2"),
	ROW(ctx_retain, "cuDevicePrimaryCtxRetain"),
	ROW(ctx_release, "cuDevicePrimaryCtxRelease_v2"),
	ROW(ctx_set_flags, "cuDevicePrimaryCtxSetFlags_v2"),
	ROW(ctx_set_current, "cuCtxSetCurrent"),
	ROW(ctx_sync, "cuCtxSynchronize"),
	ROW(mem_info, "cuMemGetInfo_v2"),
	ROW(mem_alloc, "cuMemAlloc_v2"),
	ROW(mem_free, "cuMemFree_v2"),
	ROW(host_alloc, "cuMemHostAlloc"),
	ROW(host_free, "cuMemFreeHost"),
	ROW(h2d, "cuMemcpyHtoDAsync_v2"),
	ROW(d2h, "cuMemcpyDtoHAsync_v2"),
	ROW(d2d, "cuMemcpyDtoDAsync_v2"),
	ROW(peer_copy, "cuMemcpyPeerAsync"),
	ROW(memset32, "cuMemsetD32Async"),
	ROW(can_peer, "cuDeviceCanAccessPeer"),
	ROW(enable_peer, "cuCtxEnablePeerAccess"),
	ROW(stream_create, "cuStreamCreate"),
	ROW(stream_sync, "cuStreamSynchronize"),
	ROW(stream_query, "cuStreamQuery"),
	ROW(stream_destroy, "cuStreamDestroy_v2"),
	ROW(event_create, "cuEventCreate"),
	ROW(event_record, "cuEventRecord"),
	ROW(event_query, "cuEventQuery"),
	ROW(event_sync, "cuEventSynchronize"),
	ROW(event_elapsed, "cuEventElapsedTime", "cuEventElapsedTime_v2"),
	ROW(event_destroy, "cuEventDestroy_v2"),
	ROW(module_load, "cuModuleLoadDataEx"),
	ROW(module_function, "cuModuleGetFunction"),
	ROW(module_unload, "cuModuleUnload"),
	ROW(launch, "cuLaunchKernel"),
	ROW(error_name, "cuGetErrorName"),
};

/* Names of the codes a probe meets, for messages when the driver's own
 * cuGetErrorName is not there (or does not know the code). */
static const struct { int code; const char *name; } names[] = {
	{ 0, "CUDA_SUCCESS" }, { 1, "CUDA_ERROR_INVALID_VALUE" }, { 2, "CUDA_ERROR_OUT_OF_MEMORY" },
	{ 3, "CUDA_ERROR_NOT_INITIALIZED" }, { 34, "CUDA_ERROR_STUB_LIBRARY" },
	{ 46, "CUDA_ERROR_DEVICE_UNAVAILABLE" }, { 100, "CUDA_ERROR_NO_DEVICE" },
	{ 101, "CUDA_ERROR_INVALID_DEVICE" }, { 200, "CUDA_ERROR_INVALID_IMAGE" },
	{ 201, "CUDA_ERROR_INVALID_CONTEXT" }, { 209, "CUDA_ERROR_NO_BINARY_FOR_GPU" },
	{ 214, "CUDA_ERROR_ECC_UNCORRECTABLE" }, { 217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED" },
	{ 218, "CUDA_ERROR_INVALID_PTX" }, { 221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND" },
	{ 222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION" }, { 223, "CUDA_ERROR_JIT_COMPILATION_DISABLED" },
	{ 500, "CUDA_ERROR_NOT_FOUND" }, { 600, "CUDA_ERROR_NOT_READY" }, { 700, "CUDA_ERROR_ILLEGAL_ADDRESS" },
	{ 701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" }, { 702, "CUDA_ERROR_LAUNCH_TIMEOUT" },
	{ 704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED" }, { 719, "CUDA_ERROR_LAUNCH_FAILED" },
	{ 802, "CUDA_ERROR_SYSTEM_NOT_READY" }, { 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" },
	{ 804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE" }, { 999, "CUDA_ERROR_UNKNOWN" },
};

const char *gd_cuda_strerror(const struct gd_cuda *cu, CUresult rc, char *buf, size_t size)
{
	const char *s = NULL;

	if (cu && cu->api.error_name && cu->api.error_name(rc, &s) != GD_CU_SUCCESS)
		s = NULL;
	for (size_t i = 0; !s && i < sizeof names / sizeof names[0]; i++)
		if (names[i].code == rc)
			s = names[i].name;
	snprintf(buf, size, "%s (%d)", s ? s : "CUDA error", rc);
	return buf;
}

/* cu->library becomes the file the dynamic linker loaded: the soname
 * found through the search path, links resolved (libcuda.so.1 ->
 * libcuda.so.550.54.15; a stub reached through a link shows as the stub). */
static void loaded_file(struct gd_cuda *cu)
{
	struct link_map *lm = NULL;
	char real[PATH_MAX];

	/* the stub and the driver live in short paths: a longer one is cut */

	if (dlinfo(cu->lib, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_name || !lm->l_name[0])
		return;
	if (!realpath(lm->l_name, real))
		snprintf(real, sizeof real, "%s", lm->l_name);
	snprintf(cu->library, sizeof cu->library, "%.255s", real);
}

int gd_cuda_open(struct gd_cuda *cu, const char *path)
{
	const char *name = path && path[0] ? path : GD_CUDA_SONAME;
	char missing[384] = "", eb[96];
	CUresult rc;

	memset(cu, 0, sizeof *cu);
	snprintf(cu->library, sizeof cu->library, "%s", name);
	cu->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!cu->lib) {
		const char *e = dlerror();

		snprintf(cu->reason, sizeof cu->reason, "cannot load the CUDA driver %s: %s", name,
			 e ? e : "dlopen failed");
		return -1;
	}
	loaded_file(cu);
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		void *fn = NULL;

		for (size_t j = 0; !fn && syms[i].names[j]; j++)
			fn = dlsym(cu->lib, syms[i].names[j]);
		if (!fn)
			snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%s",
				 missing[0] ? ", " : "", syms[i].names[0]);
		memcpy((char *)&cu->api + syms[i].offset, &fn, sizeof fn);
	}
	if (missing[0]) {
		snprintf(cu->reason, sizeof cu->reason, "%s lacks %s: the driver is too old for the probes", name,
			 missing);
		return -1;
	}
	if ((rc = cu->api.init(0)) != GD_CU_SUCCESS) {
		cu->init_error = rc;
		if (rc == GD_CU_ERROR_STUB_LIBRARY) {
			snprintf(cu->reason, sizeof cu->reason,
				 "cuInit: %s: %s is the CUDA toolkit's stub library, not the driver's: the container "
				 "lacks the NVIDIA runtime mounts",
				 gd_cuda_strerror(cu, rc, eb, sizeof eb), cu->library);
			return -1;
		}
		snprintf(cu->reason, sizeof cu->reason, "cuInit: %s%s", gd_cuda_strerror(cu, rc, eb, sizeof eb),
			 rc == GD_CU_ERROR_NO_DEVICE ? ": the driver sees no CUDA GPU"
			 : rc == GD_CU_ERROR_SYSTEM_NOT_READY ? ": a required driver daemon (fabric manager?) is not running"
							     : "");
		/* NVIDIA's libcuda answers NO_DEVICE, not NOT_INITIALIZED, when the
		 * kernel module is not loaded (seen with 535.261.03): say which */
		if (rc == GD_CU_ERROR_NO_DEVICE && access("/proc/driver/nvidia/version", F_OK) != 0)
			snprintf(cu->reason + strlen(cu->reason), sizeof cu->reason - strlen(cu->reason),
				 "; /proc/driver/nvidia/version is absent: the nvidia kernel module is not loaded");
		return -1;
	}
	if (cu->api.driver_version(&cu->driver_version) != GD_CU_SUCCESS)
		cu->driver_version = 0;
	return 0;
}

void gd_cuda_close(struct gd_cuda *cu)
{
	if (cu && cu->lib)
		dlclose(cu->lib);
	if (cu)
		cu->lib = NULL;
}

const char *const *gd_cuda_sym_names(size_t i, size_t *off)
{
	if (i >= sizeof syms / sizeof syms[0])
		return NULL;
	*off = syms[i].offset;
	return syms[i].names;
}
