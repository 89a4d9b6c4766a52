package io.acceld.inventory;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * One advertisable accelerator, as discovered. Immutable: a change of health or of any attribute
 * produces a new value, which is what lets {@link InventoryDiff} compare snapshots with equals.
 *
 * <p>Health is not stored beside its reasons: a device is Unhealthy exactly when it carries a
 * {@link HealthProblem}, so the two can never disagree.
 *
 * @param id stable ID: the GPU UUID for NVIDIA with NVML, the PCI address otherwise
 * @param resource the extended resource name, such as {@code nvidia.com/gpu}
 * @param vendorId PCI vendor ID
 * @param deviceId PCI device ID
 * @param model human-readable model name
 * @param pciAddress normalised PCI address ({@code 0000:3b:00.0})
 * @param numaNode NUMA node, -1 when unknown
 * @param driver kernel driver bound to the device, empty when unbound
 * @param deviceNodes device nodes relative to the device root ({@code nvidia0}, {@code
 *     dri/renderD128}); the agent checked that each exists
 * @param problems why the device is unhealthy, headline first; empty when healthy
 * @param nvidia NVML details, for NVIDIA GPUs when NVML is available
 * @param amd what amdgpu's sysfs says, for AMD GPUs
 */
public record Device(
    String id,
    String resource,
    int vendorId,
    int deviceId,
    String model,
    String pciAddress,
    int numaNode,
    Optional<String> driver,
    List<String> deviceNodes,
    List<HealthProblem> problems,
    Optional<NvidiaDetails> nvidia,
    Optional<AmdDetails> amd) {

  /** The kubelet's limit on a device ID. */
  public static final int MAX_ID_LENGTH = 63;

  public Device {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(resource, "resource");
    if (id.isEmpty() || id.length() > MAX_ID_LENGTH || id.contains(",")) {
      throw new IllegalArgumentException(
          "device ID '" + id + "' must be 1-63 characters without commas");
    }
    deviceNodes = List.copyOf(deviceNodes);
    problems = List.copyOf(problems);
    Objects.requireNonNull(amd, "amd");
  }

  /** A device no AMD details describe: every vendor's but AMD's, and AMD's in tests. */
  public Device(
      String id,
      String resource,
      int vendorId,
      int deviceId,
      String model,
      String pciAddress,
      int numaNode,
      Optional<String> driver,
      List<String> deviceNodes,
      List<HealthProblem> problems,
      Optional<NvidiaDetails> nvidia) {
    this(
        id,
        resource,
        vendorId,
        deviceId,
        model,
        pciAddress,
        numaNode,
        driver,
        deviceNodes,
        problems,
        nvidia,
        Optional.empty());
  }

  /**
   * A device described only by a health and a sentence, as hand-made devices in tests and
   * benchmarks are: Healthy has no problems; Unhealthy has one of kind {@link
   * HealthProblem.Kind#OTHER}, or {@link HealthProblem.Kind#UNKNOWN} without a sentence. Code that
   * knows what is wrong builds {@link HealthProblem}s instead.
   */
  public Device(
      String id,
      String resource,
      int vendorId,
      int deviceId,
      String model,
      String pciAddress,
      int numaNode,
      Optional<String> driver,
      List<String> deviceNodes,
      Health health,
      Optional<String> healthReason,
      Optional<NvidiaDetails> nvidia) {
    this(
        id,
        resource,
        vendorId,
        deviceId,
        model,
        pciAddress,
        numaNode,
        driver,
        deviceNodes,
        unclassified(health, healthReason),
        nvidia);
  }

  /** Healthy exactly when nothing is wrong. */
  public Health health() {
    return problems.isEmpty() ? Health.HEALTHY : Health.UNHEALTHY;
  }

  public boolean isHealthy() {
    return problems.isEmpty();
  }

  /**
   * Why the device is unhealthy, for people: each problem {@linkplain HealthProblem#describe()
   * described}, joined with {@code "; "}. Empty when healthy (or when no problem says anything).
   */
  public Optional<String> healthReason() {
    String joined =
        problems.stream()
            .map(HealthProblem::describe)
            .filter(s -> !s.isBlank())
            .collect(Collectors.joining("; "));
    return joined.isEmpty() ? Optional.empty() : Optional.of(joined);
  }

  /** This device with other problems; none makes it healthy. */
  public Device withProblems(List<HealthProblem> newProblems) {
    return new Device(
        id,
        resource,
        vendorId,
        deviceId,
        model,
        pciAddress,
        numaNode,
        driver,
        deviceNodes,
        newProblems,
        nvidia,
        amd);
  }

  /**
   * This device with another health, given as a sentence with no kind (see the constructor that
   * takes a {@link Health}); a healthy device carries no reason.
   */
  public Device withHealth(Health newHealth, Optional<String> reason) {
    return withProblems(unclassified(newHealth, reason));
  }

  /** The vendor ID as written in sysfs and in our JSON: {@code 0x10de}. */
  public String vendorHex() {
    return String.format("0x%04x", vendorId);
  }

  private static List<HealthProblem> unclassified(Health health, Optional<String> reason) {
    Objects.requireNonNull(health, "health");
    if (health == Health.HEALTHY) {
      return List.of();
    }
    return List.of(
        reason
            .filter(r -> !r.isBlank())
            .map(r -> HealthProblem.of(HealthProblem.Kind.OTHER, r))
            .orElse(HealthProblem.of(HealthProblem.Kind.UNKNOWN, "")));
  }
}
