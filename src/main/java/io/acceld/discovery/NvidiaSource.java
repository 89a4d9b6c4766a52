package io.acceld.discovery;

import io.acceld.nvml.NvmlGpu;
import io.acceld.nvml.NvmlNodeInfo;
import io.acceld.nvml.NvmlProbe;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Where discovery gets NVML's view of the node's NVIDIA GPUs. */
@FunctionalInterface
public interface NvidiaSource {
  /** No NVML: NVIDIA GPUs are known by PCI address. */
  NvidiaSource NONE = addresses -> Optional.empty();

  /**
   * NVML's view, for a scan that found NVIDIA GPUs at {@code nvidiaAddresses}.
   *
   * @return empty when NVML is unavailable or the probe failed
   */
  Optional<NvmlNodeInfo> info(Set<String> nvidiaAddresses);

  /** Probes NVML on every scan: right for a one-shot listing. */
  static NvidiaSource fresh(NvmlProbe probe) {
    return addresses -> Probing.safely(probe);
  }

  /**
   * Probes NVML again only when the set of NVIDIA PCI addresses changes. What a probe reads (names,
   * UUIDs, memory, topology, NVLinks) does not change while the GPUs stay, and a full probe costs
   * hundreds of NVML calls, so a long-running agent rescans sysfs freely and leaves NVML alone.
   * Whether a GPU is lost is live state: after the first scan it is the health monitor's to report,
   * so cached results carry {@code lost=false}. MIG layouts change under a running agent (a
   * re-partition): each scan reads the MIG devices of MIG-capable GPUs again, a few calls each.
   */
  static NvidiaSource cached(NvmlProbe probe) {
    return new NvidiaSource() {
      private Set<String> probedFor;
      private Optional<NvmlNodeInfo> cached = Optional.empty();

      @Override
      public synchronized Optional<NvmlNodeInfo> info(Set<String> nvidiaAddresses) {
        if (nvidiaAddresses.equals(probedFor)) {
          cached = cached.map(probe::refreshMig);
          return cached;
        }
        Optional<NvmlNodeInfo> fresh = Probing.safely(probe);
        probedFor = Set.copyOf(nvidiaAddresses);
        cached = fresh.map(Probing::withoutLost);
        return fresh;
      }
    };
  }

  /** Shared by both sources. */
  final class Probing {
    private static final Logger log = LoggerFactory.getLogger(NvidiaSource.class);

    private Probing() {}

    static Optional<NvmlNodeInfo> safely(NvmlProbe probe) {
      try {
        return Optional.ofNullable(probe.probe());
      } catch (RuntimeException e) {
        log.warn("NVML probe failed, using PCI data only: {}", e.toString());
        return Optional.empty();
      }
    }

    static NvmlNodeInfo withoutLost(NvmlNodeInfo info) {
      return new NvmlNodeInfo(
          info.driverVersion(),
          info.cudaVersion(),
          info.gpus().stream()
              .map(
                  g ->
                      new NvmlGpu(
                          g.index(),
                          g.uuid(),
                          g.name(),
                          g.minor(),
                          g.pciAddress(),
                          g.memoryBytes(),
                          g.cpuAffinity(),
                          g.migEnabled(),
                          g.computeCapability(),
                          false,
                          g.migPending(),
                          g.migDevices()))
              .toList(),
          info.links());
    }
  }
}
