package io.acceld.mesos.executor;

import io.acceld.config.HostPort;
import io.acceld.mesos.containment.ContainmentSettings;
import java.time.Duration;
import java.util.Objects;

/**
 * How the agent runs containers. {@link #defaults} has Mesos's own values; tests shorten the
 * timers.
 *
 * @param agentAddress where executors reach this agent ({@code MESOS_AGENT_ENDPOINT}, {@code
 *     MESOS_SLAVE_PID})
 * @param registrationTimeout how long a custom executor has to SUBSCRIBE before it is destroyed
 * @param executorHeartbeat the interval of HEARTBEAT events on executor streams (Mesos: 30 min)
 * @param defaultKillGrace SIGTERM to SIGKILL for a task without a kill policy (Mesos's command
 *     executor: 3 s)
 * @param executorShutdownGrace SHUTDOWN to destruction for an executor that sets none (5 s)
 * @param recoveryTimeout how long a checkpointing executor retries after losing the agent
 * @param subscriptionBackoffMax its longest wait between re-subscriptions
 * @param setsid the util-linux {@code setsid} program
 * @param shell a POSIX shell
 * @param containment how each container is fenced: its cgroup, devices, limits and user
 */
public record ContainerSettings(
    HostPort agentAddress,
    Duration registrationTimeout,
    Duration executorHeartbeat,
    Duration defaultKillGrace,
    Duration executorShutdownGrace,
    Duration recoveryTimeout,
    Duration subscriptionBackoffMax,
    String setsid,
    String shell,
    ContainmentSettings containment) {
  public static final Duration DEFAULT_EXECUTOR_HEARTBEAT = Duration.ofMinutes(30);
  public static final Duration DEFAULT_KILL_GRACE = Duration.ofSeconds(3);
  public static final Duration DEFAULT_EXECUTOR_SHUTDOWN_GRACE = Duration.ofSeconds(5);
  public static final Duration DEFAULT_RECOVERY_TIMEOUT = Duration.ofMinutes(15);
  public static final Duration DEFAULT_SUBSCRIPTION_BACKOFF_MAX = Duration.ofSeconds(2);

  public ContainerSettings {
    Objects.requireNonNull(agentAddress, "agentAddress");
    for (Duration d :
        new Duration[] {
          registrationTimeout,
          executorHeartbeat,
          defaultKillGrace,
          executorShutdownGrace,
          recoveryTimeout,
          subscriptionBackoffMax
        }) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("container timers must be positive, got " + d);
      }
    }
    Objects.requireNonNull(setsid, "setsid");
    Objects.requireNonNull(shell, "shell");
    Objects.requireNonNull(containment, "containment");
  }

  public static ContainerSettings defaults(HostPort agentAddress, Duration registrationTimeout) {
    return new ContainerSettings(
        agentAddress,
        registrationTimeout,
        DEFAULT_EXECUTOR_HEARTBEAT,
        DEFAULT_KILL_GRACE,
        DEFAULT_EXECUTOR_SHUTDOWN_GRACE,
        DEFAULT_RECOVERY_TIMEOUT,
        DEFAULT_SUBSCRIPTION_BACKOFF_MAX,
        "setsid",
        "/bin/sh",
        ContainmentSettings.defaults());
  }

  public ContainerSettings withExecutorHeartbeat(Duration interval) {
    return new ContainerSettings(
        agentAddress,
        registrationTimeout,
        interval,
        defaultKillGrace,
        executorShutdownGrace,
        recoveryTimeout,
        subscriptionBackoffMax,
        setsid,
        shell,
        containment);
  }

  public ContainerSettings withExecutorShutdownGrace(Duration grace) {
    return new ContainerSettings(
        agentAddress,
        registrationTimeout,
        executorHeartbeat,
        defaultKillGrace,
        grace,
        recoveryTimeout,
        subscriptionBackoffMax,
        setsid,
        shell,
        containment);
  }

  public ContainerSettings withContainment(ContainmentSettings fencing) {
    return new ContainerSettings(
        agentAddress,
        registrationTimeout,
        executorHeartbeat,
        defaultKillGrace,
        executorShutdownGrace,
        recoveryTimeout,
        subscriptionBackoffMax,
        setsid,
        shell,
        fencing);
  }
}
