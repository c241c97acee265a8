/*
 * cuda_abi.h - our own declarations of the CUDA driver API calls the probes
 * make, written from ../shared/reference/PROBES.md §1 (cuda.h 12.6, LP64
 * Linux).  No CUDA header is needed to build: libcuda.so.1 is dlopen()ed by
 * cuda.c, and the fake driver of the tests (tests/fake_cuda/) defines these
 * same prototypes, so the compiler checks that the two agree.
 *
 * The names are the exported symbols, with their version suffix: cuda.h
 * #defines cuMemAlloc to cuMemAlloc_v2, and the unsuffixed export is the
 * legacy ABI with 32-bit sizes (cuMemAlloc(unsigned int *, unsigned int)).
 * dlsym'ing the plain name and calling it with a 64-bit size is an ABI bug.
 */
#ifndef GD_PROBE_CUDA_ABI_H
#define GD_PROBE_CUDA_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;             /* an enum in cuda.h: 4 bytes */
typedef int CUdevice;             /* an ordinal-like handle */
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef int CUjit_option;
typedef int CUdevice_attribute;

_Static_assert(sizeof(CUdeviceptr) == 8, "CUdeviceptr is 64-bit on LP64");

/* CUresult values (cuda.h 12.6) that the probes name. */
enum {
	GD_CU_SUCCESS = 0,
	GD_CU_ERROR_INVALID_VALUE = 1,
	GD_CU_ERROR_OUT_OF_MEMORY = 2,
	GD_CU_ERROR_NOT_INITIALIZED = 3,
	GD_CU_ERROR_STUB_LIBRARY = 34,
	GD_CU_ERROR_DEVICE_UNAVAILABLE = 46,
	GD_CU_ERROR_NO_DEVICE = 100,
	GD_CU_ERROR_INVALID_DEVICE = 101,
	GD_CU_ERROR_INVALID_IMAGE = 200,
	GD_CU_ERROR_INVALID_CONTEXT = 201,
	GD_CU_ERROR_NO_BINARY_FOR_GPU = 209,
	GD_CU_ERROR_ECC_UNCORRECTABLE = 214,
	GD_CU_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
	GD_CU_ERROR_INVALID_PTX = 218,
	GD_CU_ERROR_UNSUPPORTED_PTX_VERSION = 222,
	GD_CU_ERROR_NOT_FOUND = 500,
	GD_CU_ERROR_NOT_READY = 600,
	GD_CU_ERROR_ILLEGAL_ADDRESS = 700,
	GD_CU_ERROR_LAUNCH_TIMEOUT = 702,
	GD_CU_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
	GD_CU_ERROR_LAUNCH_FAILED = 719,
	GD_CU_ERROR_SYSTEM_NOT_READY = 802,
	GD_CU_ERROR_UNKNOWN = 999,
};

/* Device attributes (cuda.h 12.6 lines 702-813). */
enum {
	GD_CU_ATTR_CLOCK_RATE = 13,             /* kHz */
	GD_CU_ATTR_MULTIPROCESSOR_COUNT = 16,
	GD_CU_ATTR_COMPUTE_MODE = 20,
	GD_CU_ATTR_MEMORY_CLOCK_RATE = 36,      /* kHz */
	GD_CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37,/* bits */
	GD_CU_ATTR_CC_MAJOR = 75,
	GD_CU_ATTR_CC_MINOR = 76,
};

/* JIT options: integers go by value in the void * slot; the log size slot
 * is in (capacity with the NUL) and out (bytes written). */
enum {
	GD_CU_JIT_INFO_LOG_BUFFER = 3,
	GD_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
	GD_CU_JIT_ERROR_LOG_BUFFER = 5,
	GD_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

#define GD_CU_CTX_SCHED_BLOCKING_SYNC 0x04
#define GD_CU_STREAM_NON_BLOCKING 0x1
#define GD_CU_EVENT_DEFAULT 0x0
#define GD_CU_MEMHOSTALLOC_PORTABLE 0x01

/* ---- the calls (symbol names as exported; PROBES.md §1.2) ---------------- */
CUresult cuInit(unsigned int flags);
CUresult cuDriverGetVersion(int *version);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGet(CUdevice *dev, int ordinal);
CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev);
CUresult cuDeviceGetPCIBusId(char *bus_id, int len, CUdevice dev);
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev);
CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);
CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuCtxSynchronize(void);
CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned int flags);
CUresult cuMemFreeHost(void *p);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes, CUstream stream);
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes, CUstream stream);
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream);
CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, size_t bytes,
			   CUstream stream);
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t n, CUstream stream);
CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer);
CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags);
CUresult cuStreamCreate(CUstream *stream, unsigned int flags);
CUresult cuStreamSynchronize(CUstream stream);
CUresult cuStreamQuery(CUstream stream);
CUresult cuStreamDestroy_v2(CUstream stream);
CUresult cuEventCreate(CUevent *event, unsigned int flags);
CUresult cuEventRecord(CUevent event, CUstream stream);
CUresult cuEventQuery(CUevent event);
CUresult cuEventSynchronize(CUevent event);
CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end);
CUresult cuEventDestroy_v2(CUevent event);
CUresult cuModuleLoadDataEx(CUmodule *mod, const void *image, unsigned int nopts, CUjit_option *opts, void **vals);
CUresult cuModuleGetFunction(CUfunction *fn, CUmodule mod, const char *name);
CUresult cuModuleUnload(CUmodule mod);
CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
			unsigned int by, unsigned int bz, unsigned int shared_bytes, CUstream stream, void **params,
			void **extra);
CUresult cuGetErrorName(CUresult error, const char **str);
CUresult cuGetErrorString(CUresult error, const char **str);

#endif
