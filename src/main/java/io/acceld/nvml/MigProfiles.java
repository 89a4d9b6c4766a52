package io.acceld.nvml;

import java.util.Optional;

/**
 * MIG profile strings as NVIDIA's device plugin writes them (go-nvlib's profile {@code String}), so
 * that resource names, labels and existing pod specs match: {@code <G>g.<GB>gb} when the compute
 * instance uses the whole GPU instance, else {@code <C>c.<G>g.<GB>gb}, then the profile's suffix
 * ({@code +me}, {@code +me.all}, {@code +gfx}, {@code -me}). G comes from the GPU-instance
 * profile's index, not its slice count; GB is the instance's share of the card in eighths, times
 * the card's GiB rounded up (mig-and-labels reference §3).
 */
public final class MigProfiles {
  private MigProfiles() {}

  /** What a GPU-instance profile index says: its slices and the suffix of its name. */
  public record Shape(int slices, String suffix) {}

  /** The shape of GPU-instance profile index {@code index} (nvml.h's order); empty if unknown. */
  public static Optional<Shape> shapeOf(int index) {
    return Optional.ofNullable(
        switch (index) {
          case 0 -> new Shape(1, "");
          case 1 -> new Shape(2, "");
          case 2 -> new Shape(3, "");
          case 3 -> new Shape(4, "");
          case 4 -> new Shape(7, "");
          case 5 -> new Shape(8, "");
          case 6 -> new Shape(6, "");
          case 7 -> new Shape(1, "+me"); // 1_SLICE_REV1
          case 8 -> new Shape(2, "+me"); // 2_SLICE_REV1
          case 9 -> new Shape(1, ""); // 1_SLICE_REV2: double memory
          case 10 -> new Shape(1, "+gfx");
          case 11 -> new Shape(2, "+gfx");
          case 12 -> new Shape(4, "+gfx");
          case 13 -> new Shape(1, "-me");
          case 14 -> new Shape(2, "-me");
          case 15 -> new Shape(1, "+me.all");
          case 16 -> new Shape(2, "+me.all");
          case 17 -> new Shape(3, "+gfx");
          default -> null;
        });
  }

  /**
   * The profile string.
   *
   * @param parentMemoryBytes the whole card's memory; when unknown (a MIG-enabled parent without
   *     the monitor capability answers NO_PERMISSION) GB is the instance's GiB rounded up
   */
  public static String name(
      int computeSlices, int gpuSlices, long memoryMiB, long parentMemoryBytes, String suffix) {
    String gb = gigabytes(memoryMiB, parentMemoryBytes) + "gb";
    String shape =
        computeSlices == gpuSlices || computeSlices <= 0
            ? gpuSlices + "g." + gb
            : computeSlices + "c." + gpuSlices + "g." + gb;
    return shape + suffix;
  }

  /** The GB of a profile name, in integers so that exact eighths stay exact. */
  static long gigabytes(long memoryMiB, long parentMemoryBytes) {
    if (parentMemoryBytes <= 0) {
      return (memoryMiB + 1023) / 1024;
    }
    long eighths = ((memoryMiB << 23) + parentMemoryBytes - 1) / parentMemoryBytes;
    long cardGiB = (parentMemoryBytes + (1L << 30) - 1) >> 30;
    return (eighths * cardGiB + 4) / 8;
  }

  /**
   * The kubelet resource of a profile under the {@code mixed} strategy: {@code <domain>/mig-} and
   * the profile with every {@code +} written as {@code .}, which a resource name cannot hold.
   */
  public static String resourceName(String domain, String profile) {
    return domain + "/mig-" + profile.replace('+', '.');
  }
}
