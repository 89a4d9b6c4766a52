package io.acceld.mesos.executor;

import io.acceld.allocation.RuntimeSpec;
import io.acceld.config.HostPort;
import io.acceld.mesos.containment.Containment;
import io.acceld.mesos.containment.ContainmentSettings;
import io.acceld.mesos.containment.Fence;
import io.acceld.mesos.containment.Limits;
import io.acceld.mesos.tasks.Launch;
import io.acceld.mesos.tasks.LaunchedTask;
import io.acceld.proto.mesos.v1.AgentID;
import io.acceld.proto.mesos.v1.AgentInfo;
import io.acceld.proto.mesos.v1.CommandInfo;
import io.acceld.proto.mesos.v1.DurationInfo;
import io.acceld.proto.mesos.v1.Environment;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.KillPolicy;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.testing.CgroupLeftovers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Protos and launches as the scheduler side hands them over, and where their files end up. */
final class MesosFixtures {
  /**
   * No cgroup, no user switch: for the tests of starting, watching and killing a bare process. The
   * containers' own tests run with the secure defaults.
   */
  static final ContainmentSettings UNCONTAINED =
      new ContainmentSettings(
          Set.of(),
          false,
          true,
          Path.of("/sys/fs/cgroup"),
          Path.of("/dev"),
          ContainmentSettings.DEFAULT_SETPRIV,
          CgroupLeftovers.PARENT);

  /**
   * Mesos's defaults for everything but the registration timeout, and the secure containment
   * defaults under this test JVM's own cgroup parent.
   */
  static ContainerSettings settings(Duration registrationTimeout) {
    ContainmentSettings d = ContainmentSettings.defaults();
    return ContainerSettings.defaults(AGENT_ADDRESS, registrationTimeout)
        .withContainment(
            new ContainmentSettings(
                d.isolation(),
                d.switchUser(),
                d.allowRootTasks(),
                d.cgroupRoot(),
                d.devRoot(),
                d.setpriv(),
                CgroupLeftovers.PARENT));
  }

  /** The fence of a container that has none (see {@link #UNCONTAINED}). */
  static Fence unfenced(String containerId) {
    try {
      return Containment.create(UNCONTAINED)
          .create(containerId, new Limits(64L << 20, 1, false), List.of(), Optional.empty());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static final HostPort AGENT_ADDRESS = new HostPort("127.0.0.1", 5051);
  static final FrameworkID FRAMEWORK = FrameworkID.newBuilder().setValue("fw-1").build();
  static final FrameworkInfo FRAMEWORK_INFO =
      FrameworkInfo.newBuilder().setUser("nobody").setName("test").setId(FRAMEWORK).build();
  static final AgentInfo AGENT =
      AgentInfo.newBuilder()
          .setHostname("node-1")
          .setId(AgentID.newBuilder().setValue("agent-1"))
          .build();
  static final RuntimeSpec NO_DEVICES = new RuntimeSpec(Map.of(), List.of(), List.of(), List.of());

  private MesosFixtures() {}

  static RuntimeSpec gpus(String... uuids) {
    return new RuntimeSpec(
        Map.of("NVIDIA_VISIBLE_DEVICES", String.join(",", uuids)), List.of(), List.of(), List.of());
  }

  static CommandInfo shell(String script) {
    return CommandInfo.newBuilder().setShell(true).setValue(script).build();
  }

  static CommandInfo exec(String program, String... argv) {
    return CommandInfo.newBuilder()
        .setShell(false)
        .setValue(program)
        .addAllArguments(Arrays.asList(argv))
        .build();
  }

  static CommandInfo withEnv(CommandInfo command, String name, String value) {
    return command.toBuilder()
        .setEnvironment(
            Environment.newBuilder()
                .addVariables(Environment.Variable.newBuilder().setName(name).setValue(value)))
        .build();
  }

  static TaskInfo task(String id, CommandInfo command) {
    return TaskInfo.newBuilder()
        .setName(id)
        .setTaskId(TaskID.newBuilder().setValue(id))
        .setAgentId(AGENT.getId())
        .setCommand(command)
        .build();
  }

  static TaskInfo executorTask(String id) {
    return TaskInfo.newBuilder()
        .setName(id)
        .setTaskId(TaskID.newBuilder().setValue(id))
        .setAgentId(AGENT.getId())
        .build();
  }

  static KillPolicy grace(Duration grace) {
    return KillPolicy.newBuilder()
        .setGracePeriod(DurationInfo.newBuilder().setNanoseconds(grace.toNanos()))
        .build();
  }

  static Launch commandLaunch(TaskInfo task, RuntimeSpec devices) {
    return new Launch(
        FRAMEWORK_INFO,
        AGENT,
        Optional.empty(),
        List.of(new LaunchedTask(task, List.of(), devices)),
        false);
  }

  static ExecutorInfo executor(String id, CommandInfo command) {
    return ExecutorInfo.newBuilder()
        .setExecutorId(ExecutorID.newBuilder().setValue(id))
        .setType(ExecutorInfo.Type.CUSTOM)
        .setCommand(command)
        .build();
  }

  static Launch executorLaunch(ExecutorInfo executor, RuntimeSpec devices, TaskInfo... tasks) {
    return new Launch(
        FRAMEWORK_INFO,
        AGENT,
        Optional.of(executor),
        Arrays.stream(tasks).map(t -> new LaunchedTask(t, List.of(), devices)).toList(),
        false);
  }

  /** The sandbox of the container a status came from. */
  static Path sandboxOf(Path dir, io.acceld.proto.mesos.v1.TaskStatus status) {
    return dir.resolve(Containers.SANDBOXES)
        .resolve(status.getContainerStatus().getContainerId().getValue());
  }

  static Map<String, String> parseEnv(Path file) throws java.io.IOException {
    Map<String, String> env = new java.util.HashMap<>();
    for (String line : Files.readAllLines(file)) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return env;
  }
}
