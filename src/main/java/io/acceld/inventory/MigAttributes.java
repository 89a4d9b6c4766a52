package io.acceld.inventory;

/**
 * A MIG device's share of its GPU, as NVML's device attributes give it: what the {@code
 * nvidia.com/mig-<profile>.*} node labels of NVIDIA's GPU Feature Discovery describe.
 *
 * @param multiprocessors SMs of the compute instance
 * @param copyEngines copy engines shared within the GPU instance
 * @param decoders video decoders shared within the GPU instance
 * @param encoders video encoders shared within the GPU instance
 * @param jpegs JPEG engines shared within the GPU instance
 * @param ofas optical-flow accelerators shared within the GPU instance
 * @param gpuInstanceSlices memory/compute slices of its GPU instance
 * @param computeInstanceSlices compute slices of its compute instance
 * @param memoryMiB the instance's memory in MiB, as NVML's {@code memorySizeMB} says
 */
public record MigAttributes(
    int multiprocessors,
    int copyEngines,
    int decoders,
    int encoders,
    int jpegs,
    int ofas,
    int gpuInstanceSlices,
    int computeInstanceSlices,
    long memoryMiB) {}
