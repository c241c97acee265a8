/*
 * nvml_abi.h - our own declarations of the part of NVML gpudoctor calls.
 *
 * There is no nvml.h in the build: NVML is loaded at run time (nvml.c), so
 * the binary builds and runs without NVIDIA software.  This header mirrors
 * the "NVML VERSION 13.3.29" header (CUDA 13.3), checked against the older
 * copies back to the 11.0 era, as summarised in FACTS.md section 1-2: the
 * return codes with NVIDIA's numbers, the opaque handle, the structs we pass
 * (with their versioned variants and version constants computed the way
 * nvml.h computes them), the enum values we use, and prototypes of every
 * function we resolve.  The prototypes are never linked against: nvml.c takes
 * their types (__typeof__) for its function pointers, and the fake library
 * under tests/fake_nvml/ defines them, so the compiler checks that both agree.
 * Sizes assume x86-64 / aarch64 LP64 (unsigned long = 8, enums = 4).
 *
 * One copy only: nothing else in the tree declares NVML types.
 */
#ifndef GD_NVML_ABI_H
#define GD_NVML_ABI_H

#include <stddef.h>

/* ---- return codes (nvmlReturn_t, 4 bytes) ----------------------------- */
typedef enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NO_PERMISSION = 4,
	NVML_ERROR_ALREADY_INITIALIZED = 5,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_INSUFFICIENT_POWER = 8,
	NVML_ERROR_DRIVER_NOT_LOADED = 9,
	NVML_ERROR_TIMEOUT = 10,
	NVML_ERROR_IRQ_ISSUE = 11,
	NVML_ERROR_LIBRARY_NOT_FOUND = 12,
	NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	NVML_ERROR_CORRUPTED_INFOROM = 14,
	NVML_ERROR_GPU_IS_LOST = 15,
	NVML_ERROR_RESET_REQUIRED = 16,
	NVML_ERROR_OPERATING_SYSTEM = 17,
	NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
	NVML_ERROR_IN_USE = 19,
	NVML_ERROR_MEMORY = 20,
	NVML_ERROR_NO_DATA = 21,
	NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
	NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
	NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
	NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
	NVML_ERROR_DEPRECATED = 26,
	NVML_ERROR_NOT_READY = 27,
	NVML_ERROR_GPU_NOT_FOUND = 28,
	NVML_ERROR_INVALID_STATE = 29,
	NVML_ERROR_RESET_TYPE_NOT_SUPPORTED = 30,
	NVML_ERROR_UNKNOWN = 999,
} nvmlReturn_t;

/* ---- handles ------------------------------------------------------------ */
typedef struct nvmlDevice_st *nvmlDevice_t;

/* ---- enums ------------------------------------------------------------- */
typedef enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 } nvmlEnableState_t;

typedef enum {
	NVML_COMPUTEMODE_DEFAULT = 0,
	NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1,
	NVML_COMPUTEMODE_PROHIBITED = 2,
	NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3,
} nvmlComputeMode_t;

typedef enum { NVML_TEMPERATURE_GPU = 0 } nvmlTemperatureSensors_t;

typedef enum {
	NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
	NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
	NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
	NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3,
} nvmlTemperatureThresholds_t;

typedef enum {
	NVML_CLOCK_GRAPHICS = 0,
	NVML_CLOCK_SM = 1,
	NVML_CLOCK_MEM = 2,
	NVML_CLOCK_VIDEO = 3,
} nvmlClockType_t;

/* NVML_PSTATE_0 = 0 (fastest) ... NVML_PSTATE_15 = 15, NVML_PSTATE_UNKNOWN = 32. */
typedef enum { NVML_PSTATE_0 = 0, NVML_PSTATE_15 = 15, NVML_PSTATE_UNKNOWN = 32 } nvmlPstates_t;

typedef enum {
	NVML_PERF_POLICY_POWER = 0,
	NVML_PERF_POLICY_THERMAL = 1,
	NVML_PERF_POLICY_SYNC_BOOST = 2,
	NVML_PERF_POLICY_BOARD_LIMIT = 3,
	NVML_PERF_POLICY_LOW_UTILIZATION = 4,
	NVML_PERF_POLICY_RELIABILITY = 5,
} nvmlPerfPolicyType_t;

typedef enum { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 } nvmlPcieUtilCounter_t;

typedef enum { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 } nvmlMemoryErrorType_t;

typedef enum { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 } nvmlEccCounterType_t;

typedef enum {
	NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0,
	NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1,
} nvmlPageRetirementCause_t;

typedef enum {
	NVML_NVLINK_ERROR_DL_REPLAY = 0,
	NVML_NVLINK_ERROR_DL_RECOVERY = 1,
	NVML_NVLINK_ERROR_DL_CRC_FLIT = 2,
	NVML_NVLINK_ERROR_DL_CRC_DATA = 3,
	NVML_NVLINK_ERROR_DL_ECC_DATA = 4,
	NVML_NVLINK_ERROR_COUNT = 5,
} nvmlNvLinkErrorCounter_t;

typedef enum {
	NVML_VALUE_TYPE_DOUBLE = 0,
	NVML_VALUE_TYPE_UNSIGNED_INT = 1,
	NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
	NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
	NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
	NVML_VALUE_TYPE_SIGNED_INT = 5,
	NVML_VALUE_TYPE_UNSIGNED_SHORT = 6,
} nvmlValueType_t;

/* NVML_NVLINK_MAX_LINKS: 12 (headers to 11.7), 18 (11.8-13.2), 36 (13.3). */
#define NVML_NVLINK_MAX_LINKS 36
/*
 * Field ids (nvmlDeviceGetFieldValues), with the header that first has each:
 * NVIDIA's nvml.h ("NVML API version 13", CUDA 13.3, as NVIDIA/go-nvml's
 * gen/nvml/nvml.h carries it, commit 8b8585b), checked against that
 * repository's copies of the 11.0 to 13.2 headers.  Ids never change
 * ("Each ID is only used once and is guaranteed never to change").
 * Only the ids whose value is the value of a call gpudoctor makes anyway
 * (collect/nvml_gpu_fields.c says which), so a batch can replace the call.
 */
#define NVML_FI_DEV_ECC_CURRENT 1              /* hdr 11.0: nvmlDeviceGetEccMode's current */
#define NVML_FI_DEV_ECC_SBE_VOL_TOTAL 3        /* 11.0: ...TotalEccErrors(CORRECTED, VOLATILE) */
#define NVML_FI_DEV_ECC_DBE_VOL_TOTAL 4        /* 11.0: (UNCORRECTED, VOLATILE) */
#define NVML_FI_DEV_ECC_SBE_AGG_TOTAL 5        /* 11.0: (CORRECTED, AGGREGATE) */
#define NVML_FI_DEV_ECC_DBE_AGG_TOTAL 6        /* 11.0: (UNCORRECTED, AGGREGATE) */
#define NVML_FI_DEV_RETIRED_SBE 29             /* 11.0: pages retired for single-bit errors */
#define NVML_FI_DEV_RETIRED_DBE 30             /* 11.0: ... for double-bit errors */
#define NVML_FI_DEV_RETIRED_PENDING 31         /* 11.0: 1 when pages wait for retirement */
/* Per-link NVLink error counters, link x (0..11) in the id (two ranges:
 * L0-L5 and L6-L11); the 12.9 and later headers add "Link ID needs to be
 * specified in the scopeId field", so gpudoctor sets scopeId = x too, which
 * both readings agree on.  The headers' comments say "Lane", but the ids are
 * per link (six links on Pascal and Volta, twelve from the 11.0 header on). */
#define NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L0 32 /* 11.0: L0-L5 32-37 */
#define NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L6 96 /* 11.0: L6-L11 96-101 */
#define NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L0 39 /* 11.0: 39-44 */
#define NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L6 102 /* 11.0: 102-107 */
#define NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L0 46 /* 11.0: 46-51 */
#define NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L6 108 /* 11.0: 108-113 */
#define NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L0 53 /* 11.0: 53-58 */
#define NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L6 114 /* 11.0: 114-119 */
#define GD_NVML_FI_LX_LINKS 12  /* ours, not nvml.h: the links the Lx ids cover */
/* (148-159, ..._NVLINK_ECC_DATA_ERROR_COUNT_Lx, are not used: their scopeId
 * is a lane, "Lane ID needs to be specified in the scopeId field", so none
 * is a link's count as nvmlDeviceGetNvLinkErrorCounter gives it.) */
/* Violation time in ns, as nvmlDeviceGetViolationStatus's violationTime. */
#define NVML_FI_DEV_PERF_POLICY_POWER 74       /* 11.0 */
#define NVML_FI_DEV_PERF_POLICY_THERMAL 75
#define NVML_FI_DEV_PERF_POLICY_SYNC_BOOST 76
#define NVML_FI_DEV_PERF_POLICY_BOARD_LIMIT 77
#define NVML_FI_DEV_PERF_POLICY_RELIABILITY 79
#define NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION 83 /* 11.0: mJ since the driver loaded */
#define NVML_FI_DEV_PCIE_REPLAY_COUNTER 94     /* 11.0 */
#define NVML_FI_DEV_REMAPPED_COR 142           /* 11.0: nvmlDeviceGetRemappedRows' four */
#define NVML_FI_DEV_REMAPPED_UNC 143
#define NVML_FI_DEV_REMAPPED_PENDING 144
#define NVML_FI_DEV_REMAPPED_FAILURE 145
/* The link in scopeId ("Link ID needs to be specified in the scopeId
 * field"); unsupported on Blackwell and later, as nvmlDeviceGetNvLink-
 * ErrorCounter is.  163 (..._ERROR_DL_CRC) is not used: the header does not
 * say which of the two CRC counters (flit, data) it is. */
#define NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY 161   /* 11.8 */
#define NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY 162 /* 11.8 */
#define NVML_FI_DEV_NVLINK_GET_STATE 165         /* 11.8: 0 inactive, 1 active, 2 sleep */
#define NVML_FI_DEV_GET_GPU_RECOVERY_ACTION 230  /* 12.8 */
/* usedGpuMemory when the driver cannot tell. */
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)

/* Buffer sizes (bytes, NUL included). */
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_SERIAL_BUFFER_SIZE 30
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32

/* ---- structs -------------------------------------------------------------- */
/* NVML_STRUCT_VERSION as nvml.h defines it: the size in the low bits, the
 * version in the top byte. */
#define NVML_STRUCT_VERSION(data, ver) (unsigned int)(sizeof(nvml##data##_v##ver##_t) | ((ver) << 24U))

typedef struct {
	unsigned long long total, free, used; /* bytes; v1: used includes reserved */
} nvmlMemory_t;

typedef struct {
	unsigned int version; /* nvmlMemory_v2 */
	unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
#define nvmlMemory_v2 NVML_STRUCT_VERSION(Memory, 2)

typedef struct {
	unsigned int version; /* nvmlTemperature_v1 */
	nvmlTemperatureSensors_t sensorType;
	int temperature; /* degrees C */
} nvmlTemperature_v1_t;
typedef nvmlTemperature_v1_t nvmlTemperature_t;
#define nvmlTemperature_v1 NVML_STRUCT_VERSION(Temperature, 1)

typedef struct {
	unsigned int gpu, memory; /* percent of the last sample period */
} nvmlUtilization_t;

typedef struct {
	char busIdLegacy[16];        /* %04X:%02X:%02X.0 */
	unsigned int domain, bus, device;
	unsigned int pciDeviceId;    /* (device id << 16) | vendor id */
	unsigned int pciSubSystemId;
	char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE]; /* %08X:%02X:%02X.0 */
} nvmlPciInfo_t;

typedef struct {
	unsigned long long referenceTime; /* CPU timestamp, us */
	unsigned long long violationTime; /* cumulative, ns */
} nvmlViolationTime_t;

/* nvmlDeviceGetComputeRunningProcesses (v1 symbol). */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory; /* bytes, or NVML_VALUE_NOT_AVAILABLE */
} nvmlProcessInfo_v1_t;

/* The _v2 and _v3 symbols; there is no separate v3 struct. */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId, computeInstanceId; /* 0xFFFFFFFF without MIG */
} nvmlProcessInfo_v2_t;
typedef nvmlProcessInfo_v2_t nvmlProcessInfo_t;

typedef struct {
	unsigned int pid;
	unsigned long long timeStamp; /* CPU time, us */
	unsigned int smUtil, memUtil, encUtil, decUtil; /* percent */
} nvmlProcessUtilizationSample_t;

typedef union {
	double dVal;
	int siVal;
	unsigned int uiVal;
	unsigned long ulVal;
	unsigned long long ullVal;
	signed long long sllVal;
	unsigned short usVal;
} nvmlValue_t;

typedef struct {
	unsigned int fieldId;
	unsigned int scopeId;    /* per-link NVLink fields: the link */
	long long timestamp;
	long long latencyUsec;
	nvmlValueType_t valueType;
	nvmlReturn_t nvmlReturn; /* per-field status: check it */
	nvmlValue_t value;
} nvmlFieldValue_t;

/* nvmlDeviceGetSamples (FACTS.md 2.14): the driver's sample buffers. */
typedef enum {
	NVML_TOTAL_POWER_SAMPLES = 0,
	NVML_GPU_UTILIZATION_SAMPLES = 1,
	NVML_MEMORY_UTILIZATION_SAMPLES = 2,
	NVML_PROCESSOR_CLK_SAMPLES = 5,
	NVML_MEMORY_CLK_SAMPLES = 6
} nvmlSamplingType_t;

typedef struct {
	unsigned long long timeStamp; /* CPU time, microseconds since 1970 */
	nvmlValue_t sampleValue;
} nvmlSample_t;

/* GPM, GPU performance monitoring (Hopper and newer; in the 11.8 header, R520): the
 * counters of one moment in an opaque sample, and metrics computed from two
 * samples taken at least 100 ms apart ("due to the internal sample refresh
 * rate", nvml.h).  The sample is a pointer to a driver-owned struct.  The
 * headers grew NVML_GPM_METRIC_MAX from 98 (11.8-12.8) to 210 (12.9-13.1)
 * and 333 (13.2, 13.3) without changing NVML_GPM_METRICS_GET_VERSION (1), so the
 * library reads numMetrics entries of whatever array it is given: ours is
 * the largest, never overrun by an older library. */
typedef struct nvmlGpmSample_st *nvmlGpmSample_t;

typedef enum {
	NVML_GPM_METRIC_GRAPHICS_UTIL = 1,   /* % of time any context was active */
	NVML_GPM_METRIC_SM_UTIL = 2,         /* % of SMs busy (SM activity) */
	NVML_GPM_METRIC_SM_OCCUPANCY = 3,    /* % of warps active vs the maximum */
	NVML_GPM_METRIC_ANY_TENSOR_UTIL = 5, /* % of time the SMs did any tensor operation */
	NVML_GPM_METRIC_DRAM_BW_UTIL = 10,   /* % of DRAM bandwidth used vs the maximum */
	NVML_GPM_METRIC_PCIE_TX_PER_SEC = 20, /* MiB/s from this GPU */
	NVML_GPM_METRIC_PCIE_RX_PER_SEC = 21, /* MiB/s to this GPU */
	NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC = 60, /* MiB/s read over all NVLinks */
	NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC = 61, /* MiB/s written over all NVLinks */
} nvmlGpmMetricId_t;
#define NVML_GPM_METRIC_MAX 333

typedef struct {
	unsigned int metricId;   /* in */
	nvmlReturn_t nvmlReturn; /* out: this metric's status; value valid only on NVML_SUCCESS */
	double value;            /* out */
	struct {
		char *shortName;
		char *longName;
		char *unit;
	} metricInfo;            /* out: may be NULL */
} nvmlGpmMetric_t;

typedef struct {
	unsigned int version;    /* NVML_GPM_METRICS_GET_VERSION */
	unsigned int numMetrics; /* entries of metrics[] to compute */
	nvmlGpmSample_t sample1, sample2;
	nvmlGpmMetric_t metrics[NVML_GPM_METRIC_MAX];
} nvmlGpmMetricsGet_t;
#define NVML_GPM_METRICS_GET_VERSION 1

typedef struct {
	unsigned int version;           /* NVML_GPM_SUPPORT_VERSION */
	unsigned int isSupportedDevice; /* out */
} nvmlGpmSupport_t;
#define NVML_GPM_SUPPORT_VERSION 1

/* NVSwitch fabric registration (12.2+ headers: nvmlGpuFabricInfo_t; 12.4+:
 * the versioned _v2 with a version word first and a health mask last).
 * state is an unsigned char in both; status is valid once state is
 * COMPLETED.  The 13.x headers' _v3 adds a health summary byte after the
 * mask: gpudoctor asks for _v2, which those drivers still take. */
#define NVML_GPU_FABRIC_UUID_LEN 16
#define NVML_GPU_FABRIC_STATE_NOT_SUPPORTED 0
#define NVML_GPU_FABRIC_STATE_NOT_STARTED 1
#define NVML_GPU_FABRIC_STATE_IN_PROGRESS 2
#define NVML_GPU_FABRIC_STATE_COMPLETED 3
typedef unsigned char nvmlGpuFabricState_t;

typedef struct {
	unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
	nvmlReturn_t status;
	unsigned int cliqueId;
	nvmlGpuFabricState_t state;
} nvmlGpuFabricInfo_t;

typedef struct {
	unsigned int version;    /* nvmlGpuFabricInfo_v2 */
	unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
	nvmlReturn_t status;
	unsigned int cliqueId;
	nvmlGpuFabricState_t state;
	unsigned int healthMask;
} nvmlGpuFabricInfo_v2_t;
typedef nvmlGpuFabricInfo_v2_t nvmlGpuFabricInfoV_t;
#define nvmlGpuFabricInfo_v2 NVML_STRUCT_VERSION(GpuFabricInfo, 2)

_Static_assert(sizeof(nvmlGpuFabricInfo_t) == 28, "nvmlGpuFabricInfo_t: 28 bytes (12.2 header)");
_Static_assert(offsetof(nvmlGpuFabricInfo_t, state) == 24, "nvmlGpuFabricInfo_t.state at 24");
_Static_assert(sizeof(nvmlGpuFabricInfo_v2_t) == 36, "nvmlGpuFabricInfo_v2_t: 36 bytes (12.4 header)");
_Static_assert(offsetof(nvmlGpuFabricInfo_v2_t, status) == 20, "nvmlGpuFabricInfo_v2_t.status at 20");
_Static_assert(offsetof(nvmlGpuFabricInfo_v2_t, healthMask) == 32, "nvmlGpuFabricInfo_v2_t.healthMask at 32");
_Static_assert(nvmlGpuFabricInfo_v2 == 0x02000024, "nvmlGpuFabricInfo_v2 as nvml.h computes it");

_Static_assert(sizeof(nvmlSample_t) == 16, "nvmlSample_t: 16 bytes");
_Static_assert(sizeof(nvmlGpmMetric_t) == 40, "nvmlGpmMetric_t: 40 bytes (11.8-13.3 headers)");
_Static_assert(offsetof(nvmlGpmMetric_t, value) == 8, "nvmlGpmMetric_t.value at 8");
_Static_assert(offsetof(nvmlGpmMetricsGet_t, sample1) == 8, "nvmlGpmMetricsGet_t.sample1 at 8");
_Static_assert(offsetof(nvmlGpmMetricsGet_t, metrics) == 24, "nvmlGpmMetricsGet_t.metrics at 24");
_Static_assert(sizeof(nvmlGpmSupport_t) == 8, "nvmlGpmSupport_t: 8 bytes");
_Static_assert(sizeof(nvmlReturn_t) == 4, "nvmlReturn_t is a 4-byte enum");
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t: 24 bytes (13.3 header)");
_Static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t: 40 bytes (13.3 header)");
_Static_assert(offsetof(nvmlMemory_v2_t, used) == 32, "nvmlMemory_v2_t.used at 32");
_Static_assert(nvmlMemory_v2 == 0x02000028, "nvmlMemory_v2 as nvml.h computes it");
_Static_assert(sizeof(nvmlTemperature_v1_t) == 12, "nvmlTemperature_v1_t: 12 bytes (12.8+ header)");
_Static_assert(nvmlTemperature_v1 == 0x0100000C, "nvmlTemperature_v1 as nvml.h computes it");
_Static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t: 8 bytes");
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t: 68 bytes (13.3 header)");
_Static_assert(offsetof(nvmlPciInfo_t, busId) == 36, "nvmlPciInfo_t.busId at 36");
_Static_assert(sizeof(nvmlViolationTime_t) == 16, "nvmlViolationTime_t: 16 bytes");
_Static_assert(sizeof(nvmlProcessInfo_v1_t) == 16, "nvmlProcessInfo_v1_t: 16 bytes (11.0 header)");
_Static_assert(sizeof(nvmlProcessInfo_v2_t) == 24, "nvmlProcessInfo_v2_t: 24 bytes (11.1+ header)");
_Static_assert(offsetof(nvmlProcessInfo_v2_t, gpuInstanceId) == 16, "gpuInstanceId at 16");
_Static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32, "nvmlProcessUtilizationSample_t: 32 bytes");
_Static_assert(offsetof(nvmlProcessUtilizationSample_t, smUtil) == 16, "smUtil at 16");
_Static_assert(sizeof(nvmlValue_t) == 8, "nvmlValue_t: 8 bytes");
_Static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t: 40 bytes");
_Static_assert(offsetof(nvmlFieldValue_t, scopeId) == 4, "nvmlFieldValue_t.scopeId at 4");
_Static_assert(offsetof(nvmlFieldValue_t, valueType) == 24, "nvmlFieldValue_t.valueType at 24");
_Static_assert(offsetof(nvmlFieldValue_t, nvmlReturn) == 28, "nvmlFieldValue_t.nvmlReturn at 28");
_Static_assert(offsetof(nvmlFieldValue_t, value) == 32, "nvmlFieldValue_t.value at 32");

/* ---- functions (never linked: see the comment at the top) ---------------- */
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlInit(void);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t result);

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length);
nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length);
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion);
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion);

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount);
nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device);

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length);
nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length);
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber);
nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node);

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t *mode);
nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode);
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode);

nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_t *temperature);
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType, unsigned int *temp);
nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device, nvmlTemperatureThresholds_t thresholdType,
					       unsigned int *temp);
nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *speed);

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization);
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power);
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit);
nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device, unsigned int *defaultLimit);
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy);

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock);
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock);
nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t device, nvmlClockType_t clockType, unsigned int *clockMHz);
nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t *pState);
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *clocksEventReasons);
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *clocksThrottleReasons);
nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t device, nvmlPerfPolicyType_t perfPolicyType,
					  nvmlViolationTime_t *violTime);

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int *currLinkGen);
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGen);
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *currLinkWidth);
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int *maxLinkWidth);
nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, nvmlPcieUtilCounter_t counter, unsigned int *value);
nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value);

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current, nvmlEnableState_t *pending);
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
					 nvmlEccCounterType_t counterType, unsigned long long *eccCounts);
nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause, unsigned int *pageCount,
				       unsigned long long *addresses);
nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, nvmlEnableState_t *isPending);
nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows, unsigned int *uncRows,
				       unsigned int *isPending, unsigned int *failureOccurred);
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values);

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t *isActive);
nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link, nvmlNvLinkErrorCounter_t counter,
					     unsigned long long *counterValue);

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
						     nvmlProcessInfo_t *infos);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
						     nvmlProcessInfo_t *infos);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
						  nvmlProcessInfo_v1_t *infos);
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
						      nvmlProcessInfo_t *infos);
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
						      nvmlProcessInfo_t *infos);
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
						   nvmlProcessInfo_v1_t *infos);
nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t *utilization,
					     unsigned int *processSamplesCount, unsigned long long lastSeenTimeStamp);
nvmlReturn_t nvmlDeviceGetSamples(nvmlDevice_t device, nvmlSamplingType_t type, unsigned long long lastSeenTimeStamp,
				  nvmlValueType_t *sampleValType, unsigned int *sampleCount, nvmlSample_t *samples);

nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfoV_t *gpuFabricInfo);
nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t *gpuFabricInfo);

nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t *gpmSupport);
nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *gpmSample);
nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t gpmSample);
nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t gpmSample);
nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *metricsGet);

#endif
