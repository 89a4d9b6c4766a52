/*
 * Minimal NVML declarations for acceld's NVML test double.
 *
 * Written by hand from the tables in /work/shared/reference/nvml-and-pci.md (sections 3.1-3.5);
 * this is NOT NVIDIA's nvml.h (which we must not vendor). Only what the double implements is
 * declared. The layouts must match the real ABI because the production JNA binding is tested
 * against this double: static_asserts below pin every size/offset from the reference.
 */
#ifndef ACCELD_NVML_TYPES_H
#define ACCELD_NVML_TYPES_H

#include <stddef.h>

/* ---- return codes (nvmlReturn_t is a C enum: 32-bit int) ---- */
typedef int nvmlReturn_t;
#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_ERROR_ALREADY_INITIALIZED 5
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_INSUFFICIENT_POWER 8
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_TIMEOUT 10
#define NVML_ERROR_IRQ_ISSUE 11
#define NVML_ERROR_LIBRARY_NOT_FOUND 12
#define NVML_ERROR_FUNCTION_NOT_FOUND 13
#define NVML_ERROR_CORRUPTED_INFOROM 14
#define NVML_ERROR_GPU_IS_LOST 15
#define NVML_ERROR_RESET_REQUIRED 16
#define NVML_ERROR_OPERATING_SYSTEM 17
#define NVML_ERROR_LIB_RM_VERSION_MISMATCH 18
#define NVML_ERROR_IN_USE 19
#define NVML_ERROR_MEMORY 20
#define NVML_ERROR_NO_DATA 21
#define NVML_ERROR_VGPU_ECC_NOT_SUPPORTED 22
#define NVML_ERROR_INSUFFICIENT_RESOURCES 23
#define NVML_ERROR_FREQ_NOT_SUPPORTED 24
#define NVML_ERROR_ARGUMENT_VERSION_MISMATCH 25
#define NVML_ERROR_DEPRECATED 26
#define NVML_ERROR_NOT_READY 27
#define NVML_ERROR_GPU_NOT_FOUND 28
#define NVML_ERROR_INVALID_STATE 29
#define NVML_ERROR_RESET_TYPE_NOT_SUPPORTED 30
#define NVML_ERROR_UNKNOWN 999

/* ---- opaque handles (8-byte pointers; the double defines the structs) ---- */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlEventSet_st *nvmlEventSet_t;

/* ---- enums (all 32-bit) ---- */
typedef int nvmlEnableState_t;
#define NVML_FEATURE_DISABLED 0
#define NVML_FEATURE_ENABLED 1

typedef int nvmlGpuTopologyLevel_t;
#define NVML_TOPOLOGY_INTERNAL 0
#define NVML_TOPOLOGY_SINGLE 10
#define NVML_TOPOLOGY_MULTIPLE 20
#define NVML_TOPOLOGY_HOSTBRIDGE 30
#define NVML_TOPOLOGY_NODE 40
#define NVML_TOPOLOGY_SYSTEM 50

typedef int nvmlTemperatureSensors_t;
#define NVML_TEMPERATURE_GPU 0

typedef int nvmlMemoryErrorType_t;
#define NVML_MEMORY_ERROR_TYPE_CORRECTED 0
#define NVML_MEMORY_ERROR_TYPE_UNCORRECTED 1

typedef int nvmlEccCounterType_t;
#define NVML_VOLATILE_ECC 0
#define NVML_AGGREGATE_ECC 1

typedef int nvmlClockType_t;
#define NVML_CLOCK_GRAPHICS 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_CLOCK_VIDEO 3

#define NVML_DEVICE_MIG_DISABLE 0
#define NVML_DEVICE_MIG_ENABLE 1

/* ---- event type bits (unsigned long long mask) ---- */
#define nvmlEventTypeSingleBitEccError 0x0001ULL
#define nvmlEventTypeDoubleBitEccError 0x0002ULL
#define nvmlEventTypePState 0x0004ULL
#define nvmlEventTypeXidCriticalError 0x0008ULL
#define nvmlEventTypeClock 0x0010ULL
#define nvmlEventTypePowerSourceChange 0x0080ULL
#define nvmlEventMigConfigChange 0x0100ULL
#define nvmlEventTypeAll 0xff9fULL

/* ---- constants ---- */
#define NVML_INIT_FLAG_NO_GPUS 1
#define NVML_INIT_FLAG_NO_ATTACH 2
#define NVML_NVLINK_MAX_LINKS 36
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE 80
#define NVML_VALUE_NOT_AVAILABLE_UINT 0xFFFFFFFFu

/* ---- MIG (mig-and-labels reference section 1) ---- */
typedef struct nvmlGpuInstance_st *nvmlGpuInstance_t;

/* GPU-instance profile *indices* (not the driver's profile IDs). */
#define NVML_GPU_INSTANCE_PROFILE_1_SLICE 0
#define NVML_GPU_INSTANCE_PROFILE_2_SLICE 1
#define NVML_GPU_INSTANCE_PROFILE_3_SLICE 2
#define NVML_GPU_INSTANCE_PROFILE_4_SLICE 3
#define NVML_GPU_INSTANCE_PROFILE_7_SLICE 4
#define NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1 7
#define NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2 9
#define NVML_GPU_INSTANCE_PROFILE_COUNT 18

typedef struct {
  unsigned int start;
  unsigned int size;
} nvmlGpuInstancePlacement_t;

typedef struct {
  unsigned int id; /* the driver's profile ID */
  unsigned int isP2pSupported;
  unsigned int sliceCount;
  unsigned int instanceCount;
  unsigned int multiprocessorCount;
  unsigned int copyEngineCount;
  unsigned int decoderCount;
  unsigned int encoderCount;
  unsigned int jpegCount;
  unsigned int ofaCount;
  unsigned long long memorySizeMB;
} nvmlGpuInstanceProfileInfo_t;

typedef struct {
  nvmlDevice_t device;
  unsigned int id;
  unsigned int profileId;
  nvmlGpuInstancePlacement_t placement;
} nvmlGpuInstanceInfo_t;

/* The _v2 ABI (nvmlDeviceGetAttributes_v2); the unversioned symbol has only the first six. */
typedef struct {
  unsigned int multiprocessorCount;
  unsigned int sharedCopyEngineCount;
  unsigned int sharedDecoderCount;
  unsigned int sharedEncoderCount;
  unsigned int sharedJpegCount;
  unsigned int sharedOfaCount;
  unsigned int gpuInstanceSliceCount;
  unsigned int computeInstanceSliceCount;
  unsigned long long memorySizeMB;
} nvmlDeviceAttributes_t;

_Static_assert(sizeof(nvmlGpuInstanceProfileInfo_t) == 48, "nvmlGpuInstanceProfileInfo_t size");
_Static_assert(__builtin_offsetof(nvmlGpuInstanceProfileInfo_t, memorySizeMB) == 40, "memorySizeMB");
_Static_assert(sizeof(nvmlGpuInstanceInfo_t) == 24, "nvmlGpuInstanceInfo_t size");
_Static_assert(sizeof(nvmlDeviceAttributes_t) == 40, "nvmlDeviceAttributes_t size");
_Static_assert(__builtin_offsetof(nvmlDeviceAttributes_t, memorySizeMB) == 32, "attributes memory");

/* ---- structs (x86-64 layouts from reference section 3.3) ---- */
typedef struct {
  char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE]; /* "%04X:%02X:%02X.0" */
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId; /* (deviceId << 16) | vendorId */
  unsigned int pciSubSystemId;
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE]; /* "%08X:%02X:%02X.0" */
} nvmlPciInfo_t;

typedef struct {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

typedef struct {
  unsigned int version; /* must be nvmlMemory_v2 */
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used; /* includes reserved */
} nvmlMemory_v2_t;
#define nvmlMemory_v2 0x02000028u /* (2 << 24) | sizeof(nvmlMemory_v2_t) */

typedef struct {
  unsigned int gpu;
  unsigned int memory;
} nvmlUtilization_t;

/* Field values (nvmlDeviceGetFieldValues). IDs are nvml.h's NVML_FI_* numbers. */
#define NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL 38
#define NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL 45
#define NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL 52
#define NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL 59
#define NVML_FI_DEV_MEMORY_TEMP 82

typedef int nvmlValueType_t;
#define NVML_VALUE_TYPE_DOUBLE 0
#define NVML_VALUE_TYPE_UNSIGNED_INT 1
#define NVML_VALUE_TYPE_UNSIGNED_LONG 2
#define NVML_VALUE_TYPE_UNSIGNED_LONG_LONG 3
#define NVML_VALUE_TYPE_SIGNED_LONG_LONG 4
#define NVML_VALUE_TYPE_SIGNED_INT 5

typedef union {
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
} nvmlValue_t;

typedef struct {
  unsigned int fieldId;
  unsigned int scopeId; /* "unused" in older headers; 0 = the whole device */
  long long timestamp;  /* CPU time in microseconds since 1970 */
  long long latencyUsec;
  nvmlValueType_t valueType;
  nvmlReturn_t nvmlReturn; /* per field: the call succeeds when any field could be asked for */
  nvmlValue_t value;
} nvmlFieldValue_t;

/* The Java binding (NvmlLibrary.FieldValue) relies on this layout. */
_Static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t is 40 bytes on x86-64");
_Static_assert(__builtin_offsetof(nvmlFieldValue_t, valueType) == 24, "valueType at 24");
_Static_assert(__builtin_offsetof(nvmlFieldValue_t, value) == 32, "value at 32");

typedef struct {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlEventData_t;

/* Pin the ABI: a mismatch here would make the JNA tests pass against a wrong layout. */
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t size");
_Static_assert(offsetof(nvmlPciInfo_t, domain) == 16, "nvmlPciInfo_t.domain");
_Static_assert(offsetof(nvmlPciInfo_t, busId) == 36, "nvmlPciInfo_t.busId");
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t size");
_Static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t size");
_Static_assert(offsetof(nvmlMemory_v2_t, total) == 8, "nvmlMemory_v2_t.total");
_Static_assert(nvmlMemory_v2 == ((2u << 24) | sizeof(nvmlMemory_v2_t)), "nvmlMemory_v2");
_Static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t size");
_Static_assert(sizeof(nvmlEventData_t) == 32, "nvmlEventData_t size");
_Static_assert(offsetof(nvmlEventData_t, gpuInstanceId) == 24, "nvmlEventData_t.gpuInstanceId");

/* ---- the NVML entry points the double exports (versioned names, as the agent binds them) ---- */
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlInitWithFlags(unsigned int flags);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t result);
nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length);
nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length);
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion);
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length);
nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber);
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory);
nvmlReturn_t nvmlDeviceGetCpuAffinity(nvmlDevice_t device, unsigned int cpuSetSize,
                                      unsigned long *cpuSet);
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode,
                                  unsigned int *pendingMode);
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor);
nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1, nvmlDevice_t device2,
                                                 nvmlGpuTopologyLevel_t *pathInfo);
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
                                      nvmlEnableState_t *isActive);
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
                                                 nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType,
                                      unsigned int *temp);
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power);
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization);
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                         nvmlEccCounterType_t counterType,
                                         unsigned long long *eccCounts);
nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device,
                                                    nvmlEnableState_t *isPending);
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock);
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy);
nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value);
nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows,
                                       unsigned int *uncRows, unsigned int *isPending,
                                       unsigned int *failureOccurred);
nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device, unsigned int *utilization,
                                             unsigned int *samplingPeriodUs);
nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device, unsigned int *utilization,
                                             unsigned int *samplingPeriodUs);
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount,
                                      nvmlFieldValue_t *values);
nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set);
nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes);
nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes,
                                      nvmlEventSet_t set);
nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data,
                                 unsigned int timeoutms);
nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set);
nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count);
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
                                                 nvmlDevice_t *migDevice);
nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice);
nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice,
                                                          nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id);
nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id);
nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes);
nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile,
                                                 nvmlGpuInstanceProfileInfo_t *info);
nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned int id,
                                          nvmlGpuInstance_t *gpuInstance);
nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gpuInstance, nvmlGpuInstanceInfo_t *info);

#endif /* ACCELD_NVML_TYPES_H */
