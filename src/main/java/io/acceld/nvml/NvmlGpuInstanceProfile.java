package io.acceld.nvml;

/**
 * One GPU-instance profile a GPU offers ({@code nvmlGpuInstanceProfileInfo_t}).
 *
 * @param index the profile's index in nvml.h ({@code NVML_GPU_INSTANCE_PROFILE_*}), which names it
 * @param id the driver's profile ID ({@code nvidia-smi mig -lgip}); not the index
 */
public record NvmlGpuInstanceProfile(
    int index, int id, int slices, int instances, int multiprocessors, long memoryMiB) {}
