package io.acceld.simulate;

/**
 * One NVIDIA GPU of a fixture node, as both its sysfs entry and the NVML double describe it.
 *
 * @param index NVML index
 * @param uuid GPU UUID
 * @param name model name NVML reports
 * @param pciAddress sysfs-form PCI address
 * @param pciDeviceId PCI device ID
 * @param minor minor number of {@code /dev/nvidia<minor>}
 * @param memoryBytes total memory
 * @param numaNode NUMA node
 * @param cpus CPUs local to the GPU, kernel list form
 */
public record SimulatedGpu(
    int index,
    String uuid,
    String name,
    String pciAddress,
    int pciDeviceId,
    int minor,
    long memoryBytes,
    int numaNode,
    String cpus) {}
