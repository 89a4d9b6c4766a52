package io.acceld.mesos.executor;

import io.acceld.allocation.RuntimeSpec;
import io.acceld.allocation.RuntimeSpecs;
import io.acceld.config.HostPort;
import io.acceld.proto.mesos.v1.AgentInfo;
import io.acceld.proto.mesos.v1.Environment;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.TaskInfo;
import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The environment of a container's process, as Mesos's agent gives it (reference §2.4, {@code
 * slave.cpp executorEnvironment()}), in three layers, later ones winning:
 *
 * <ol>
 *   <li>a small base ({@code PATH} and the like from the agent's own environment): the agent's
 *       whole environment is not passed on, because it carries the agent's configuration and
 *       credentials, which are no task's business;
 *   <li>the {@code MESOS_*} variables, then the command's own {@code Environment};
 *   <li>the devices: {@code NVIDIA_VISIBLE_DEVICES} from the task's {@link RuntimeSpec} and {@code
 *       CUDA_VISIBLE_DEVICES} with the same value (GPU UUIDs, which CUDA accepts; indices would be
 *       wrong, since the task runs on the host where CUDA numbers every GPU). Last, so no client's
 *       environment can widen a task's GPUs. A task without GPUs gets {@code
 *       NVIDIA_VISIBLE_DEVICES=void} (the NVIDIA runtime's "no GPU") and an empty {@code
 *       CUDA_VISIBLE_DEVICES} (CUDA then sees none): left unset, both would mean "all of them".
 * </ol>
 */
final class ExecutorEnvironment {
  static final String NVIDIA_VISIBLE_DEVICES = RuntimeSpecs.NVIDIA_VISIBLE_DEVICES;
  static final String CUDA_VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES";
  static final String NO_NVIDIA_DEVICES = "void";
  static final String AUTHENTICATION_TOKEN = "MESOS_EXECUTOR_AUTHENTICATION_TOKEN";

  /** The variables of the agent's own environment a process is given, when set. */
  static final List<String> INHERITED = List.of("PATH", "LANG", "LC_ALL", "TZ", "TMPDIR");

  private final HostPort agentAddress;
  private final Map<String, String> base;
  private final Duration recoveryTimeout;
  private final Duration subscriptionBackoffMax;

  /**
   * @param agentAddress where executors reach the agent's HTTP API
   * @param agentEnvironment the agent's own environment, of which only {@link #INHERITED} is used
   */
  ExecutorEnvironment(
      HostPort agentAddress,
      Map<String, String> agentEnvironment,
      Duration recoveryTimeout,
      Duration subscriptionBackoffMax) {
    this.agentAddress = agentAddress;
    Map<String, String> inherited = new LinkedHashMap<>();
    for (String name : INHERITED) {
      String value = agentEnvironment.get(name);
      if (value != null) {
        inherited.put(name, value);
      }
    }
    this.base = Map.copyOf(inherited);
    this.recoveryTimeout = recoveryTimeout;
    this.subscriptionBackoffMax = subscriptionBackoffMax;
  }

  /** A command task's: run by the built-in command executor, whose executor ID is the task's. */
  Map<String, String> forCommandTask(
      FrameworkInfo framework,
      AgentInfo agent,
      TaskInfo task,
      RuntimeSpec devices,
      Sandbox sandbox) {
    Map<String, String> env = new LinkedHashMap<>(base);
    env.putAll(agentVariables(framework, agent, task.getTaskId().getValue(), sandbox));
    env.put("MESOS_TASK_ID", task.getTaskId().getValue());
    env.putAll(variables(task.getCommand().getEnvironment()));
    env.putAll(deviceVariables(List.of(devices)));
    return env;
  }

  /** A custom executor's: the full table of §2.4, its command's environment, its tasks' devices. */
  Map<String, String> forExecutor(
      FrameworkInfo framework,
      AgentInfo agent,
      ExecutorInfo executor,
      List<RuntimeSpec> devices,
      Duration shutdownGrace,
      Sandbox sandbox,
      ExecutorToken token) {
    Map<String, String> env = new LinkedHashMap<>(base);
    env.putAll(agentVariables(framework, agent, executor.getExecutorId().getValue(), sandbox));
    // Mesos sets it only with executor authentication on; it is given always, so an executor
    // works whether or not --mesos-auth is set (without it the server ignores the header).
    env.put(AUTHENTICATION_TOKEN, token.value());
    // Always "1": this agent checkpoints every container and re-attaches survivors after a restart
    // whatever FrameworkInfo.checkpoint says, so executors should wait for it and re-subscribe.
    env.put("MESOS_CHECKPOINT", "1");
    env.put("MESOS_HTTP_COMMAND_EXECUTOR", "0");
    env.put("MESOS_EXECUTOR_SHUTDOWN_GRACE_PERIOD", stoutDuration(shutdownGrace));
    env.put("MESOS_RECOVERY_TIMEOUT", stoutDuration(recoveryTimeout));
    env.put("MESOS_SUBSCRIPTION_BACKOFF_MAX", stoutDuration(subscriptionBackoffMax));
    env.putAll(variables(executor.getCommand().getEnvironment()));
    env.put(AUTHENTICATION_TOKEN, token.value()); // its own, whatever the command's says
    env.putAll(deviceVariables(devices));
    return env;
  }

  private Map<String, String> agentVariables(
      FrameworkInfo framework, AgentInfo agent, String executorId, Sandbox sandbox) {
    Map<String, String> env = new LinkedHashMap<>();
    String address = agentAddress.toString();
    env.put("MESOS_FRAMEWORK_ID", framework.getId().getValue());
    env.put("MESOS_EXECUTOR_ID", executorId);
    env.put("MESOS_DIRECTORY", sandbox.dir().toString());
    env.put("MESOS_SANDBOX", sandbox.dir().toString());
    env.put("MESOS_AGENT_ENDPOINT", address);
    env.put("MESOS_SLAVE_PID", "slave(1)@" + address);
    env.put("MESOS_SLAVE_ID", agent.getId().getValue());
    return env;
  }

  /** The command's {@code Environment}; SECRET variables are not supported and are left out. */
  private static Map<String, String> variables(Environment environment) {
    Map<String, String> env = new LinkedHashMap<>();
    for (Environment.Variable v : environment.getVariablesList()) {
      if (v.getType() != Environment.Variable.Type.SECRET && !v.getName().isEmpty()) {
        env.put(v.getName(), v.getValue());
      }
    }
    return env;
  }

  /** Every device variable of the specs (several for an executor running several tasks). */
  static Map<String, String> deviceVariables(List<RuntimeSpec> specs) {
    Map<String, String> env = new LinkedHashMap<>();
    Set<String> nvidia = new LinkedHashSet<>();
    for (RuntimeSpec spec : specs) {
      spec.env()
          .forEach(
              (name, value) -> {
                if (name.equals(NVIDIA_VISIBLE_DEVICES)) {
                  for (String id : value.split(",")) {
                    if (!id.isBlank() && !id.equals(NO_NVIDIA_DEVICES)) {
                      nvidia.add(id.trim());
                    }
                  }
                } else {
                  env.put(name, value);
                }
              });
    }
    String visible = String.join(",", nvidia);
    env.put(NVIDIA_VISIBLE_DEVICES, nvidia.isEmpty() ? NO_NVIDIA_DEVICES : visible);
    env.put(CUDA_VISIBLE_DEVICES, visible);
    return env;
  }

  /**
   * A duration as stout prints it ({@code 5secs}, {@code 15mins}, {@code 1.5mins}, {@code 500ms}):
   * the largest unit in which it is at least one, which client libraries parse.
   */
  static String stoutDuration(Duration d) {
    long nanos = d.toNanos();
    long[] units = {
      7L * 24 * 3600 * 1_000_000_000L,
      24L * 3600 * 1_000_000_000L,
      3600L * 1_000_000_000L,
      60L * 1_000_000_000L,
      1_000_000_000L,
      1_000_000L,
      1_000L,
      1L
    };
    String[] names = {"weeks", "days", "hrs", "mins", "secs", "ms", "us", "ns"};
    for (int i = 0; i < units.length; i++) {
      if (Math.abs(nanos) >= units[i] || i == units.length - 1) {
        BigDecimal value =
            BigDecimal.valueOf(nanos)
                .divide(BigDecimal.valueOf(units[i]), new MathContext(9))
                .stripTrailingZeros();
        return value.toPlainString() + names[i];
      }
    }
    throw new AssertionError("unreachable");
  }
}
