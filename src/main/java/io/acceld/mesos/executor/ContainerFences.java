package io.acceld.mesos.executor;

import io.acceld.allocation.RuntimeSpec;
import io.acceld.mesos.containment.Containment;
import io.acceld.mesos.containment.DeviceNode;
import io.acceld.mesos.containment.Fence;
import io.acceld.mesos.containment.Limits;
import io.acceld.mesos.containment.Recovery;
import io.acceld.mesos.containment.UserIdentity;
import io.acceld.proto.mesos.v1.CommandInfo;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Label;
import io.acceld.proto.mesos.v1.Resource;
import io.acceld.proto.mesos.v1.TaskInfo;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes each container's {@link Fence} from what it was launched with: its limits from the {@code
 * mem} and {@code cpus} of its tasks (and its executor), its devices from the accelerators the
 * tasks were given, its user from {@code CommandInfo.user} or {@code FrameworkInfo.user}. The
 * cgroups themselves are {@link Containment}'s business.
 */
final class ContainerFences {
  private static final Logger log = LoggerFactory.getLogger(ContainerFences.class);

  /**
   * Mesos's smallest cpus for a command executor: shares for a container that declares none, so it
   * is not starved to the kernel's minimum of 2 shares.
   */
  static final double DEFAULT_CPUS = 0.1;

  private static final Path DEV = Path.of("/dev");

  private final Containment containment;
  private final Path devRoot;

  ContainerFences(Containment containment) {
    this.containment = containment;
    this.devRoot = containment.settings().devRoot();
  }

  /**
   * A new container's fence, its cgroups made and written; before its process is spawned.
   *
   * @param executor a custom executor, whose resources count too; empty for a command task
   * @param command the command the container runs, whose {@code user} wins over the framework's
   * @throws IllegalArgumentException when the task's user is unknown or root is not allowed, naming
   *     the user or the setting
   * @throws IOException when the cgroups cannot be made
   */
  Fence create(
      String containerId,
      FrameworkInfo framework,
      Optional<ExecutorInfo> executor,
      CommandInfo command,
      List<TaskInfo> tasks,
      List<RuntimeSpec> devices)
      throws IOException {
    Optional<UserIdentity> user = user(framework, command);
    return containment.create(containerId, limits(executor, tasks), deviceNodes(devices), user);
  }

  /**
   * A handle on a surviving container's fence after a restart, for its kill, removal and later
   * updates: its limits re-computed from its tasks for {@code /state}, but for the memory limit,
   * which {@link Containment#reattach} reads back from the cgroup; its denied devices from the
   * record.
   */
  Fence reattach(ContainerRecord record) throws IOException {
    Optional<UserIdentity> user;
    CommandInfo command =
        record.executor().map(ExecutorInfo::getCommand).orElseGet(() -> commandOf(record));
    try {
      user = user(record.framework(), command);
    } catch (IllegalArgumentException e) {
      user = Optional.empty(); // only for /state: the process already runs as whoever it ran as
    }
    return containment.reattach(
        record.containerId(), limits(record.executor(), record.tasks()), record.denied(), user);
  }

  private static CommandInfo commandOf(ContainerRecord record) {
    return record.tasks().isEmpty()
        ? CommandInfo.getDefaultInstance()
        : record.tasks().get(0).getCommand();
  }

  /** What a fence allowing {@code allowed} denies, for a running container's device update. */
  List<DeviceNode> denial(List<DeviceNode> allowed) throws IOException {
    return containment.denial(allowed);
  }

  /** After a restart: removes the cgroups of every container not in {@code live}. */
  Recovery recover(Set<String> live) throws IOException {
    return containment.recover(live);
  }

  private Optional<UserIdentity> user(FrameworkInfo framework, CommandInfo command) {
    return containment.taskUser(
        command.hasUser() ? Optional.of(command.getUser()) : Optional.empty(), framework.getUser());
  }

  /**
   * The container's {@code mem} and {@code cpus}, its executor's included. A container that
   * declares no {@code mem} is limited to the node's memory: it asked for none, so there is no
   * figure to hold it to, and only its devices and cpu are fenced.
   */
  static Limits limits(Optional<ExecutorInfo> executor, List<TaskInfo> tasks) {
    return limits(executor, tasks, nodeMemory());
  }

  /**
   * What a running container's limits become when its tasks change: {@link #limits}, except that a
   * container whose executor and tasks now declare no {@code mem} keeps its memory figure: there is
   * nothing declared to follow, and the node's memory would lift its hard limit for good.
   */
  static Limits resized(Optional<ExecutorInfo> executor, List<TaskInfo> tasks, Limits current) {
    return limits(executor, tasks, current.memoryBytes());
  }

  private static Limits limits(
      Optional<ExecutorInfo> executor, List<TaskInfo> tasks, long undeclaredMemory) {
    List<Resource> resources = new ArrayList<>();
    executor.ifPresent(e -> resources.addAll(e.getResourcesList()));
    tasks.forEach(t -> resources.addAll(t.getResourcesList()));
    double mem = scalar(resources, "mem");
    double cpus = scalar(resources, "cpus");
    long bytes = mem > 0 ? (long) Math.ceil(mem * (1 << 20)) : undeclaredMemory;
    boolean quota =
        tasks.stream()
            .flatMap(t -> t.getLabels().getLabelsList().stream())
            .anyMatch(l -> l.getKey().equals(Limits.CPU_QUOTA_LABEL) && "true".equals(valueOf(l)));
    return new Limits(
        Math.max(Limits.MIN_MEMORY_BYTES, bytes), cpus > 0 ? cpus : DEFAULT_CPUS, quota);
  }

  private static String valueOf(Label label) {
    return label.hasValue() ? label.getValue() : "";
  }

  private static double scalar(List<Resource> resources, String name) {
    return resources.stream()
        .filter(r -> r.getName().equals(name) && r.hasScalar())
        .mapToDouble(r -> r.getScalar().getValue())
        .sum();
  }

  private static long nodeMemory() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getTotalMemorySize();
  }

  /**
   * The device nodes of the accelerators the container's tasks were given, found under {@code
   * --dev-root} by the path the task sees ({@code /dev/nvidia0} is {@code <dev-root>/nvidia0}). A
   * node that is not a character device there is left out, and so stays denied: the fence allows by
   * device number only.
   */
  List<DeviceNode> deviceNodes(List<RuntimeSpec> devices) {
    List<DeviceNode> nodes = new ArrayList<>();
    for (RuntimeSpec spec : devices) {
      for (RuntimeSpec.DeviceNode node : spec.deviceNodes()) {
        Path seen = Path.of(node.containerPath());
        Path onHost = seen.startsWith(DEV) ? devRoot.resolve(DEV.relativize(seen)) : seen;
        try {
          nodes.add(DeviceNode.of(onHost));
        } catch (IOException | RuntimeException e) {
          log.warn(
              "Device node {} of a Mesos task is not a character device ({}); the task's fence"
                  + " does not allow it",
              onHost,
              e.getMessage());
        }
      }
    }
    return nodes;
  }
}
