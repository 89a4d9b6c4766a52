package io.acceld.telemetry;

import io.acceld.inventory.MigDetails;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One GPU's readings from one sample, in NVML's units. A reading the GPU or driver does not support
 * (or that failed) is empty, and its series is simply left out.
 *
 * @param deviceId the inventory ID, which pod-resources reports as the device ID
 * @param uuid the GPU UUID
 * @param index NVML's index ({@code gpu} label, and {@code device="nvidia<index>"})
 * @param pciBusId NVML form: 8-digit domain, upper case ({@code 00000000:3B:00.0})
 * @param modelName e.g. {@code NVIDIA H100 80GB HBM3}
 * @param framebufferUsedBytes allocated memory, without the driver's reservation (as DCGM counts
 *     it: used + reserved + free = total)
 * @param extended the rest of dcgm-exporter's default set
 */
public record GpuTelemetry(
    String deviceId,
    String uuid,
    int index,
    String pciBusId,
    String modelName,
    OptionalInt temperatureCelsius,
    OptionalLong powerMilliwatts,
    OptionalInt gpuUtilizationPercent,
    OptionalInt memoryUtilizationPercent,
    OptionalLong framebufferUsedBytes,
    OptionalLong framebufferFreeBytes,
    ExtendedReadings extended,
    Optional<MigDetails> mig) {

  /** A whole GPU's readings. */
  public GpuTelemetry(
      String deviceId,
      String uuid,
      int index,
      String pciBusId,
      String modelName,
      OptionalInt temperatureCelsius,
      OptionalLong powerMilliwatts,
      OptionalInt gpuUtilizationPercent,
      OptionalInt memoryUtilizationPercent,
      OptionalLong framebufferUsedBytes,
      OptionalLong framebufferFreeBytes,
      ExtendedReadings extended) {
    this(
        deviceId,
        uuid,
        index,
        pciBusId,
        modelName,
        temperatureCelsius,
        powerMilliwatts,
        gpuUtilizationPercent,
        memoryUtilizationPercent,
        framebufferUsedBytes,
        framebufferFreeBytes,
        extended,
        Optional.empty());
  }

  public GpuTelemetry {
    Objects.requireNonNull(deviceId, "deviceId");
    Objects.requireNonNull(mig, "mig");
    Objects.requireNonNull(uuid, "uuid");
    Objects.requireNonNull(pciBusId, "pciBusId");
    Objects.requireNonNull(modelName, "modelName");
    Objects.requireNonNull(temperatureCelsius, "temperatureCelsius");
    Objects.requireNonNull(powerMilliwatts, "powerMilliwatts");
    Objects.requireNonNull(gpuUtilizationPercent, "gpuUtilizationPercent");
    Objects.requireNonNull(memoryUtilizationPercent, "memoryUtilizationPercent");
    Objects.requireNonNull(framebufferUsedBytes, "framebufferUsedBytes");
    Objects.requireNonNull(framebufferFreeBytes, "framebufferFreeBytes");
    Objects.requireNonNull(extended, "extended");
  }
}
