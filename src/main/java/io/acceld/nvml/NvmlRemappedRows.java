package io.acceld.nvml;

/**
 * Row remapping state (Ampere and later), from {@code nvmlDeviceGetRemappedRows}.
 *
 * @param correctable rows remapped because of correctable errors
 * @param uncorrectable rows remapped because of uncorrectable errors
 * @param pending a remapping waits for a GPU reset to take effect
 * @param failed a remapping failed: the GPU ran out of spare rows
 */
public record NvmlRemappedRows(
    long correctable, long uncorrectable, boolean pending, boolean failed) {}
