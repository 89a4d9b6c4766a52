package io.acceld.nvml;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;

/**
 * JNA interface mapping of the NVML functions acceld uses. Only {@link NvmlLoader} loads it and
 * only {@link Nvml} calls it; everything else goes through {@link Nvml}'s typed methods.
 *
 * <p>Versioned symbol names on purpose: nvml.h {@code #define}s {@code nvmlInit} to {@code
 * nvmlInit_v2} etc., but JNA binds raw symbols, and the unsuffixed names are the old v1 ABI.
 *
 * <p>Type mapping: handles are {@link Pointer} (out-params {@link PointerByReference}); scalar
 * out-params are one-element {@code int[]} / {@code long[]}, which JNA copies through a native
 * temporary it frees on return, where an {@code IntByReference} is a {@code Memory} with a cleaner
 * for every call: at a telemetry sample a second, those cleaners filled the old generation with
 * tens of thousands of dead references between full GCs (15 MiB of heap at 64 GPUs); {@code
 * unsigned int} is {@code int}; {@code unsigned long long} is {@code long}; {@code unsigned long*}
 * CPU masks are {@code long[]} ({@link CpuMask} says why that holds for any C long size on a
 * little-endian machine); the structs are {@code long[]}/{@code int[]}/{@code byte[]} laid out and
 * decoded by {@link NvmlWords}, as JNA then only copies the array in and out; char buffers are
 * {@code byte[]}; {@code const char*} inputs are {@link String}. Every function returns an {@code
 * nvmlReturn_t} except {@link #nvmlErrorString}.
 *
 * <p>Functions marked "optional" are missing from older drivers: JNA resolves symbols on first
 * call, so {@link Nvml} checks {@link NvmlCapability} before calling them.
 */
public interface NvmlLibrary extends Library {

  int nvmlInit_v2();

  int nvmlInitWithFlags(int flags);

  int nvmlShutdown();

  /** Static string owned by the library. */
  String nvmlErrorString(int result);

  int nvmlSystemGetDriverVersion(byte[] version, int length);

  int nvmlSystemGetNVMLVersion(byte[] version, int length);

  int nvmlSystemGetCudaDriverVersion(int[] cudaDriverVersion);

  /** Optional. */
  @OptionalSymbol("the CUDA version from libcuda")
  int nvmlSystemGetCudaDriverVersion_v2(int[] cudaDriverVersion);

  int nvmlDeviceGetCount_v2(int[] deviceCount);

  int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

  int nvmlDeviceGetHandleByPciBusId_v2(String pciBusId, PointerByReference device);

  int nvmlDeviceGetHandleByUUID(String uuid, PointerByReference device);

  int nvmlDeviceGetIndex(Pointer device, int[] index);

  int nvmlDeviceGetUUID(Pointer device, byte[] uuid, int length);

  int nvmlDeviceGetName(Pointer device, byte[] name, int length);

  int nvmlDeviceGetMinorNumber(Pointer device, int[] minorNumber);

  /** {@code nvmlPciInfo_t} as {@link NvmlWords#PCI_INFO_BYTES} bytes. */
  int nvmlDeviceGetPciInfo_v3(Pointer device, byte[] pci);

  /** {@code nvmlMemory_t} as {@link NvmlWords#MEMORY_WORDS} words. */
  int nvmlDeviceGetMemoryInfo(Pointer device, long[] memory);

  /**
   * Optional. {@code nvmlMemory_v2_t} as {@link NvmlWords#MEMORY_V2_WORDS} words, its version set
   * ({@link NvmlWords#memoryV2Request}).
   */
  @OptionalSymbol("reserved memory in the memory readings")
  int nvmlDeviceGetMemoryInfo_v2(Pointer device, long[] memory);

  int nvmlDeviceGetCpuAffinity(Pointer device, int cpuSetSize, long[] cpuSet);

  /** Optional. */
  @OptionalSymbol("MIG")
  int nvmlDeviceGetMigMode(Pointer device, int[] currentMode, int[] pendingMode);

  /** Optional. */
  @OptionalSymbol("compute capability")
  int nvmlDeviceGetCudaComputeCapability(Pointer device, int[] major, int[] minor);

  int nvmlDeviceGetTopologyCommonAncestor(Pointer device1, Pointer device2, int[] pathInfo);

  /** Optional. */
  @OptionalSymbol("NVLink topology")
  int nvmlDeviceGetNvLinkState(Pointer device, int link, int[] isActive);

  /** Optional. */
  @OptionalSymbol("NVLink topology")
  int nvmlDeviceGetNvLinkRemotePciInfo_v2(Pointer device, int link, byte[] pci);

  int nvmlDeviceGetTemperature(Pointer device, int sensorType, int[] temp);

  int nvmlDeviceGetPowerUsage(Pointer device, int[] milliwatts);

  /** {@code nvmlUtilization_t} as two ints: gpu, memory. */
  int nvmlDeviceGetUtilizationRates(Pointer device, int[] utilization);

  int nvmlDeviceGetTotalEccErrors(Pointer device, int errorType, int counterType, long[] eccCounts);

  int nvmlDeviceGetRetiredPagesPendingStatus(Pointer device, int[] isPending);

  /** {@code (nvmlDevice_t, nvmlClockType_t, unsigned int *clock)}: MHz. */
  int nvmlDeviceGetClockInfo(Pointer device, int type, int[] clock);

  /** {@code (nvmlDevice_t, unsigned long long *energy)}: mJ since the driver was loaded. */
  int nvmlDeviceGetTotalEnergyConsumption(Pointer device, long[] energy);

  /** {@code (nvmlDevice_t, unsigned int *value)}. */
  int nvmlDeviceGetPcieReplayCounter(Pointer device, int[] value);

  /** {@code (nvmlDevice_t, unsigned int *utilization, unsigned int *samplingPeriodUs)}. */
  int nvmlDeviceGetEncoderUtilization(Pointer device, int[] utilization, int[] samplingPeriodUs);

  /** {@code (nvmlDevice_t, unsigned int *utilization, unsigned int *samplingPeriodUs)}. */
  int nvmlDeviceGetDecoderUtilization(Pointer device, int[] utilization, int[] samplingPeriodUs);

  /**
   * Optional. {@code (nvmlDevice_t, unsigned int *corrRows, unsigned int *uncRows, unsigned int
   * *isPending, unsigned int *failureOccurred)}.
   */
  @OptionalSymbol("row-remapping health")
  int nvmlDeviceGetRemappedRows(
      Pointer device, int[] corrRows, int[] uncRows, int[] isPending, int[] failureOccurred);

  /**
   * {@code (nvmlDevice_t, int valuesCount, nvmlFieldValue_t *values)}; {@code values} holds {@link
   * NvmlWords#FIELD_VALUE_WORDS} words per entry, each entry's {@code fieldId} set ({@link
   * NvmlWords#fieldValuesRequest}). Each entry has its own return code.
   */
  int nvmlDeviceGetFieldValues(Pointer device, int valuesCount, long[] values);

  int nvmlEventSetCreate(PointerByReference set);

  int nvmlDeviceGetSupportedEventTypes(Pointer device, long[] eventTypes);

  int nvmlDeviceRegisterEvents(Pointer device, long eventTypes, Pointer set);

  /**
   * {@code data} is {@code nvmlEventData_t} (32 bytes) as four 64-bit words, decoded by {@link
   * NvmlWords#event}.
   */
  int nvmlEventSetWait_v2(Pointer set, long[] data, int timeoutMs);

  int nvmlEventSetFree(Pointer set);

  // MIG (optional: 11.0+, Ampere and newer). A MIG device's handle is an nvmlDevice_t too.

  /** Optional. 0 when MIG is off or unsupported. */
  @OptionalSymbol("MIG")
  int nvmlDeviceGetMaxMigDeviceCount(Pointer device, int[] count);

  /** Optional. NOT_FOUND (or INVALID_ARGUMENT) for an index with no MIG device: they go sparse. */
  @OptionalSymbol("MIG")
  int nvmlDeviceGetMigDeviceHandleByIndex(Pointer device, int index, PointerByReference migDevice);

  /** Optional. */
  @OptionalSymbol("MIG")
  int nvmlDeviceGetGpuInstanceId(Pointer migDevice, int[] id);

  /** Optional. */
  @OptionalSymbol("MIG")
  int nvmlDeviceGetComputeInstanceId(Pointer migDevice, int[] id);

  /**
   * Optional (11.1+). {@code nvmlDeviceAttributes_t} (its v2 ABI, 40 bytes) as {@link
   * NvmlWords#ATTRIBUTES_WORDS} words; MIG handles only. The unversioned symbol is the 24-byte v1.
   */
  @OptionalSymbol("MIG device attributes")
  int nvmlDeviceGetAttributes_v2(Pointer migDevice, long[] attributes);

  /**
   * Optional. {@code nvmlGpuInstanceProfileInfo_t} (v1, 48 bytes) as {@link
   * NvmlWords#GPU_INSTANCE_PROFILE_WORDS} words, for a profile <em>index</em>; INVALID_ARGUMENT
   * past the last index, NOT_SUPPORTED for one this GPU lacks.
   */
  @OptionalSymbol("MIG profile names")
  int nvmlDeviceGetGpuInstanceProfileInfo(Pointer device, int profile, long[] info);

  /** Optional. Privileged: NO_PERMISSION without the MIG monitor capability. */
  @OptionalSymbol("MIG profile names")
  int nvmlDeviceGetGpuInstanceById(Pointer device, int id, PointerByReference gpuInstance);

  /**
   * Optional. {@code nvmlGpuInstanceInfo_t} (24 bytes) as {@link NvmlWords#GPU_INSTANCE_INFO_WORDS}
   * words.
   */
  @OptionalSymbol("MIG profile names")
  int nvmlGpuInstanceGetInfo(Pointer gpuInstance, long[] info);
}
