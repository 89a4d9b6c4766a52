package io.acceld.doctor;

import io.acceld.config.AgentConfig;
import io.acceld.config.Settings;
import io.acceld.discovery.DeviceClassifier;
import io.acceld.discovery.InventoryScanner;
import io.acceld.discovery.NvidiaSource;
import io.acceld.doctor.Bounded.Outcome;
import io.acceld.inventory.Inventory;
import io.acceld.nvml.Nvml;
import io.acceld.nvml.NvmlLoad;
import io.acceld.nvml.NvmlLoader;
import io.acceld.nvml.NvmlNodeInfo;
import io.acceld.nvml.NvmlProbe;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;

/**
 * Gathers an {@link Examination}: loads NVML as the agent does, reads each GPU, runs the agent's
 * own discovery over the configured roots and asks a running agent, each piece bounded. Holds the
 * NVML session until {@link #close()}.
 */
final class Examiner implements AutoCloseable {
  private final Duration limit;
  private Optional<Nvml> nvml = Optional.empty();

  Examiner(Duration limit) {
    this.limit = limit;
  }

  Examination examine(AgentConfig config, Optional<URI> agent) {
    Outcome<NvmlLoad> load =
        Bounded.call("nvml", limit, () -> NvmlLoader.attempt(config.get(Settings.NVML_LIBRARY)));
    if (load instanceof Outcome.Done<NvmlLoad> done
        && done.value() instanceof NvmlLoad.Loaded loaded) {
      nvml = Optional.of(loaded.nvml());
    }
    Optional<Outcome<Examination.Versions>> versions =
        nvml.map(n -> Bounded.call("nvml-versions", limit, () -> versions(n)));
    Optional<Outcome<Integer>> count =
        nvml.map(n -> Bounded.call("nvml-count", limit, n::deviceCount));
    List<Outcome<GpuReading>> gpus = new ArrayList<>();
    if (nvml.isPresent()
        && count.get() instanceof Outcome.Done<Integer> counted
        && counted.value() > 0) {
      Nvml n = nvml.get();
      List<Callable<GpuReading>> reads = new ArrayList<>();
      for (int i = 0; i < counted.value(); i++) {
        int index = i;
        reads.add(() -> GpuReading.read(n, index));
      }
      gpus.addAll(Bounded.all("gpu", limit, reads));
    }
    // NVML's view for discovery, bounded on its own: when a wedged GPU stops the probe, discovery
    // still runs on sysfs, as the agent does without NVML (the GPU readings name the wedged one).
    Optional<NvmlNodeInfo> probed = Optional.empty();
    if (nvml.isPresent()
        && Bounded.call("nvml-probe", limit, new NvmlProbe(nvml.get())::probe)
            instanceof Outcome.Done<NvmlNodeInfo> done) {
      probed = Optional.of(done.value());
    }
    Optional<NvmlNodeInfo> info = probed;
    Outcome<Inventory> inventory = Bounded.call("discovery", limit, () -> scan(config, info));
    Optional<AgentAnswers> answers =
        agent.map(
            url ->
                AgentAnswers.ask(
                    url,
                    config.get(Settings.METRICS_AUTH),
                    config.get(Settings.METRICS_TLS_CERT),
                    limit));
    return new Examination(config, limit, load, versions, count, gpus, inventory, answers);
  }

  private static Examination.Versions versions(Nvml n) {
    Optional<String> driver = Optional.ofNullable(n.driverVersion());
    OptionalInt cuda = n.cudaDriverVersion();
    Optional<String> library = Optional.ofNullable(n.nvmlVersion());
    return new Examination.Versions(
        driver,
        cuda.isPresent() ? Optional.of(NvmlProbe.cudaVersion(cuda.getAsInt())) : Optional.empty(),
        library);
  }

  /** The agent's discovery over the configured roots, with NVML's view when there is one. */
  private static Inventory scan(AgentConfig config, Optional<NvmlNodeInfo> info) {
    NvidiaSource source = info.isPresent() ? addresses -> info : NvidiaSource.NONE;
    return new InventoryScanner(
            config.get(Settings.SYSFS_ROOT),
            config.get(Settings.DEV_ROOT),
            config.get(Settings.PROC_ROOT),
            new DeviceClassifier(config.rules()),
            source,
            config.get(Settings.MIG_STRATEGY))
        .scan();
  }

  /** Shuts NVML down, waiting at most the limit: a wedged driver may not let go. */
  @Override
  public void close() {
    nvml.ifPresent(n -> Bounded.call("nvml-shutdown", limit, () -> shutdown(n)));
  }

  private static Boolean shutdown(Nvml n) {
    n.close();
    return true;
  }
}
