/*
 * cuda.h - the CUDA driver API loaded at run time (dlopen "libcuda.so.1").
 *
 * gd_cuda_open() loads an explicit path (--cuda PATH or GPUDOCTOR_CUDA) or
 * the driver's soname libcuda.so.1 (never libcuda.so: that is often the
 * toolkit's stub, whose calls answer STUB_LIBRARY), resolves one symbol
 * table (cuda.c: each row lists candidate names, first found wins) and
 * calls cuInit(0).  It is only ever called in the probe's child process:
 * CUDA state does not survive fork(), and a call that hangs there is ended
 * by the parent killing the child.
 */
#ifndef GD_PROBE_CUDA_H
#define GD_PROBE_CUDA_H

#include <stdbool.h>

#include "probe/cuda_abi.h"

#define GD_CUDA_SONAME "libcuda.so.1"

#define GD_CUDA_FN(name) __typeof__(name) *
struct gd_cuda_api {
	GD_CUDA_FN(cuInit) init;
	GD_CUDA_FN(cuDriverGetVersion) driver_version;
	GD_CUDA_FN(cuDeviceGetCount) device_count;
	GD_CUDA_FN(cuDeviceGet) device_get;
	GD_CUDA_FN(cuDeviceGetName) device_name;
	GD_CUDA_FN(cuDeviceGetAttribute) attribute;
	GD_CUDA_FN(cuDeviceGetPCIBusId) pci_bus_id;
	GD_CUDA_FN(cuDeviceTotalMem_v2) total_mem;
	GD_CUDA_FN(cuDevicePrimaryCtxRetain) ctx_retain;
	GD_CUDA_FN(cuDevicePrimaryCtxRelease_v2) ctx_release;
	GD_CUDA_FN(cuDevicePrimaryCtxSetFlags_v2) ctx_set_flags;
	GD_CUDA_FN(cuCtxSetCurrent) ctx_set_current;
	GD_CUDA_FN(cuCtxSynchronize) ctx_sync;
	GD_CUDA_FN(cuMemGetInfo_v2) mem_info;
	GD_CUDA_FN(cuMemAlloc_v2) mem_alloc;
	GD_CUDA_FN(cuMemFree_v2) mem_free;
	GD_CUDA_FN(cuMemHostAlloc) host_alloc;
	GD_CUDA_FN(cuMemFreeHost) host_free;
	GD_CUDA_FN(cuMemcpyHtoDAsync_v2) h2d;
	GD_CUDA_FN(cuMemcpyDtoHAsync_v2) d2h;
	GD_CUDA_FN(cuMemcpyDtoDAsync_v2) d2d;
	GD_CUDA_FN(cuMemcpyPeerAsync) peer_copy;
	GD_CUDA_FN(cuMemsetD32Async) memset32;
	GD_CUDA_FN(cuDeviceCanAccessPeer) can_peer;
	GD_CUDA_FN(cuCtxEnablePeerAccess) enable_peer;
	GD_CUDA_FN(cuStreamCreate) stream_create;
	GD_CUDA_FN(cuStreamSynchronize) stream_sync;
	GD_CUDA_FN(cuStreamQuery) stream_query;
	GD_CUDA_FN(cuStreamDestroy_v2) stream_destroy;
	GD_CUDA_FN(cuEventCreate) event_create;
	GD_CUDA_FN(cuEventRecord) event_record;
	GD_CUDA_FN(cuEventQuery) event_query;
	GD_CUDA_FN(cuEventSynchronize) event_sync;
	GD_CUDA_FN(cuEventElapsedTime) event_elapsed;
	GD_CUDA_FN(cuEventDestroy_v2) event_destroy;
	GD_CUDA_FN(cuModuleLoadDataEx) module_load;
	GD_CUDA_FN(cuModuleGetFunction) module_function;
	GD_CUDA_FN(cuModuleUnload) module_unload;
	GD_CUDA_FN(cuLaunchKernel) launch;
	GD_CUDA_FN(cuGetErrorName) error_name;
};

struct gd_cuda {
	void *lib;
	struct gd_cuda_api api;
	int driver_version;       /* 1000*major + 10*minor; 0 unknown */
	char library[256];        /* what was loaded (its file, links resolved), or looked for */
	int init_error;           /* cuInit's CUresult when it failed; 0 */
	char reason[512];         /* why it could not be used ("" when it can) */
};

/* Loads and initialises the driver.  0 on success; -1 with cu->reason set
 * (no library, a symbol missing, cuInit failing with its error name: the
 * toolkit's stub, answering CUDA_ERROR_STUB_LIBRARY, is named as such). */
int gd_cuda_open(struct gd_cuda *cu, const char *path);
void gd_cuda_close(struct gd_cuda *cu);

/* The names row i of the loader's table tries, in order, NULL-terminated
 * (every row is required), and the offset of its pointer in struct
 * gd_cuda_api; NULL past the end.  For tests/nvidia/. */
const char *const *gd_cuda_sym_names(size_t i, size_t *off);

/* "CUDA_ERROR_NO_DEVICE (100)" into buf; works without a loaded driver. */
const char *gd_cuda_strerror(const struct gd_cuda *cu, CUresult rc, char *buf, size_t size);

#endif
