package io.acceld.nvml;

/**
 * Frame-buffer memory in bytes.
 *
 * @param reservedBytes memory reserved by the driver, -1 when unknown (drivers without {@code
 *     nvmlDeviceGetMemoryInfo_v2})
 * @param usedBytes includes {@code reservedBytes} when that is known
 */
public record NvmlMemoryInfo(long totalBytes, long reservedBytes, long freeBytes, long usedBytes) {}
