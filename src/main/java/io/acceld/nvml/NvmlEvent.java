package io.acceld.nvml;

import java.util.Objects;
import java.util.Optional;

/**
 * One event from {@link Nvml#waitForEvent}.
 *
 * @param device the GPU the event is about
 * @param deviceUuid that GPU's UUID, resolved when the event was received; empty if NVML could not
 *     say (e.g. the GPU was lost meanwhile)
 * @param eventType a single {@link NvmlEventType} bit
 * @param eventData the XID for {@link NvmlEventType#XID_CRITICAL_ERROR}, else 0
 * @param gpuInstanceId MIG GPU instance, -1 when the event concerns the whole GPU
 * @param computeInstanceId MIG compute instance, -1 when the event concerns the whole GPU
 */
public record NvmlEvent(
    NvmlDevice device,
    Optional<String> deviceUuid,
    long eventType,
    long eventData,
    int gpuInstanceId,
    int computeInstanceId) {

  public NvmlEvent {
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(deviceUuid, "deviceUuid");
  }

  public boolean isXid() {
    return (eventType & NvmlEventType.XID_CRITICAL_ERROR) != 0;
  }

  /** Not attributable to one MIG instance, so every slice of the GPU is affected. */
  public boolean wholeGpu() {
    return gpuInstanceId == -1 || computeInstanceId == -1;
  }
}
