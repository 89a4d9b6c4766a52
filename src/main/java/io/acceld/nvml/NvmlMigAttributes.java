package io.acceld.nvml;

/**
 * A MIG device's {@code nvmlDeviceAttributes_t}: its share of the GPU.
 *
 * @param memoryMiB the instance's memory, in MiB (the header's "memorySizeMB")
 */
public record NvmlMigAttributes(
    int multiprocessors,
    int copyEngines,
    int decoders,
    int encoders,
    int jpegs,
    int ofas,
    int gpuInstanceSlices,
    int computeInstanceSlices,
    long memoryMiB) {}
