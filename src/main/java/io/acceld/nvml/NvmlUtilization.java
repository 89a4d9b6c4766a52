package io.acceld.nvml;

/** Percent of time over the last sample period that kernels ran / memory was read or written. */
public record NvmlUtilization(int gpuPercent, int memoryPercent) {}
