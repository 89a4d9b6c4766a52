package io.acceld.doctor;

import io.acceld.config.AgentConfig;
import io.acceld.doctor.Bounded.Outcome;
import io.acceld.inventory.Device;
import io.acceld.inventory.Inventory;
import io.acceld.nvml.NvmlLoad;
import java.util.List;
import java.util.Optional;

/**
 * What doctor learned about the node before judging it, each piece gathered within the limit by
 * {@link Examiner}: NVML (loaded or why not, the driver's versions), each GPU's health by NVML
 * index, the node's accelerators as the agent's own discovery sees them, and a running agent's
 * answers. The checks judge from these, so no check repeats a call that may hang.
 *
 * @param config the settings, as {@code acceld run} would resolve them
 * @param limit how long each piece may take
 * @param nvml loading NVML
 * @param versions the driver, CUDA and NVML versions; empty without NVML
 * @param gpus one reading per NVML index; empty without NVML
 * @param gpuCount how many GPUs NVML counts; empty without NVML
 * @param inventory discovery's view (sysfs, with NVML's where NVML answered)
 * @param agent a running agent's answers, with {@code --agent}
 */
record Examination(
    AgentConfig config,
    java.time.Duration limit,
    Outcome<NvmlLoad> nvml,
    Optional<Outcome<Versions>> versions,
    Optional<Outcome<Integer>> gpuCount,
    List<Outcome<GpuReading>> gpus,
    Outcome<Inventory> inventory,
    Optional<AgentAnswers> agent) {

  /** What the driver reports about itself; a version it cannot tell is empty. */
  record Versions(Optional<String> driver, Optional<String> cuda, Optional<String> nvml) {}

  Examination {
    gpus = List.copyOf(gpus);
  }

  /** The devices discovery found, or none when discovery did not finish. */
  List<Device> devices() {
    return inventory instanceof Outcome.Done<Inventory> done ? done.value().devices() : List.of();
  }

  boolean nvmlLoaded() {
    return nvml instanceof Outcome.Done<NvmlLoad> done && done.value() instanceof NvmlLoad.Loaded;
  }
}
