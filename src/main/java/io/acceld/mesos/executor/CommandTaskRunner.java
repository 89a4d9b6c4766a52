package io.acceld.mesos.executor;

import io.acceld.allocation.RuntimeSpec;
import io.acceld.mesos.containment.Fence;
import io.acceld.proto.mesos.v1.AgentInfo;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.KillPolicy;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.util.ClientText;
import io.acceld.util.GuardedBy;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One command task under the built-in command executor (whose executor ID is the task's, as in
 * Mesos): TASK_STARTING, its process in its own sandbox, checkpointed, TASK_RUNNING, then exactly
 * one terminal status. A kill is SIGTERM to the task's whole tree, then SIGKILL after the grace
 * period; when the task ends by itself, whatever it left behind is killed too, so no child of it
 * outlives it.
 */
final class CommandTaskRunner {
  private static final Logger log = LoggerFactory.getLogger(CommandTaskRunner.class);

  private final ContainerServices services;
  private final FrameworkInfo framework;
  private final AgentInfo agent;
  private final TaskInfo task;
  private final String containerId;
  private final Consumer<CommandTaskRunner> onEnd;

  @GuardedBy("this")
  private boolean running; // TASK_RUNNING reported; a kill may signal the process

  @GuardedBy("this")
  private boolean ended;

  @GuardedBy("this")
  private Optional<Duration> killGrace = Optional.empty(); // present once a kill was asked for

  @GuardedBy("this")
  private ProcessTree tree;

  /** Made with {@link #tree}: SIGTERM, the SIGKILL after the grace, and the kill on exit. */
  @GuardedBy("this")
  private ProcessKiller killer;

  @GuardedBy("this")
  private Sandbox sandbox;

  @GuardedBy("this")
  private Fence fence;

  /**
   * @param onEnd called once, after the terminal status is recorded (the container is forgotten)
   */
  CommandTaskRunner(
      ContainerServices services,
      FrameworkInfo framework,
      AgentInfo agent,
      TaskInfo task,
      String containerId,
      Consumer<CommandTaskRunner> onEnd) {
    this.services = services;
    this.framework = framework;
    this.agent = agent;
    this.task = task;
    this.containerId = containerId;
    this.onEnd = onEnd;
  }

  /** Its fence, once made. */
  synchronized Optional<Fence> fence() {
    return Optional.ofNullable(fence);
  }

  TaskInfo task() {
    return task;
  }

  /** Starts the task; on the containers' threads, since it starts a process and waits for disk. */
  void start(RuntimeSpec devices) {
    report(status(TaskState.TASK_STARTING));
    synchronized (this) {
      if (killGrace.isPresent()) {
        ended = true;
      }
    }
    if (isEnded()) {
      end(status(TaskState.TASK_KILLED).setMessage("Killed before it was started"));
      return;
    }
    Fence fence;
    try {
      fence =
          services
              .fences()
              .create(
                  containerId,
                  framework,
                  Optional.empty(),
                  task.getCommand(),
                  List.of(task),
                  List.of(devices));
    } catch (IOException | IllegalArgumentException e) {
      failToLaunch("Failed to contain the task: " + e.getMessage());
      return;
    }
    ProcessStarter.Started started;
    try {
      started =
          services
              .starter()
              .start(
                  containerId,
                  task.getCommand(),
                  box ->
                      services.environment().forCommandTask(framework, agent, task, devices, box),
                  fence);
    } catch (IOException | IllegalArgumentException e) {
      ProcessKiller.remove(fence);
      failToLaunch("Failed to launch the command: " + e.getMessage());
      return;
    }
    synchronized (this) {
      tree = started.tree();
      killer = services.killer(tree, fence);
      sandbox = started.sandbox();
      this.fence = fence;
    }
    try {
      services.records().write(record(started.tree(), started.sandbox(), fence));
    } catch (IOException e) {
      // Without a record the agent could not find the task after a restart: do not run it.
      started.abandon();
      ProcessKiller.remove(fence);
      failToLaunch("Failed to checkpoint the task's container: " + e.getMessage());
      return;
    }
    try {
      started.release(); // recorded: only now may the command run
    } catch (IOException e) {
      // the wrapper died before its go: observe() reports how it ended
      log.warn(
          "Task {} ended before it could start: {}",
          ClientText.quote(task.getTaskId().getValue()),
          e.toString());
    }
    report(status(TaskState.TASK_RUNNING));
    observe();
  }

  /** Re-attaches to the process of {@code record} after a restart; TASK_RUNNING was reported. */
  void attach(ProcessTree process, Sandbox box, Fence reattached) {
    synchronized (this) {
      tree = process;
      killer = services.killer(process, reattached);
      sandbox = box;
      fence = reattached;
    }
    log.info(
        "Re-attached to task {} (pid {})",
        ClientText.quote(task.getTaskId().getValue()),
        process.pid());
    observe();
  }

  /**
   * Kills the task: SIGTERM to its tree, SIGKILL after {@code policy}'s grace period (else the
   * task's own kill policy, else the default), then TASK_KILLED. Repeated kills do not restart the
   * grace period, as in Mesos, but a shorter one is honoured.
   */
  void kill(Optional<KillPolicy> policy) {
    Duration grace =
        policy
            .or(() -> task.hasKillPolicy() ? Optional.of(task.getKillPolicy()) : Optional.empty())
            .filter(KillPolicy::hasGracePeriod)
            .map(p -> Duration.ofNanos(Math.max(0, p.getGracePeriod().getNanoseconds())))
            .orElse(services.settings().defaultKillGrace());
    synchronized (this) {
      if (ended) {
        return;
      }
      if (killGrace.isPresent() && killGrace.get().compareTo(grace) <= 0) {
        return;
      }
      killGrace = Optional.of(grace);
      if (running) {
        signal();
      }
    }
  }

  private void observe() {
    boolean killNow;
    ProcessTree process;
    Sandbox box;
    Fence f;
    synchronized (this) {
      running = true;
      killNow = killGrace.isPresent();
      process = tree;
      box = sandbox;
      f = fence;
    }
    if (killNow) {
      synchronized (this) {
        signal();
      }
    }
    services.watch().watch(process, box, f, this::exited);
  }

  @GuardedBy("this")
  private void signal() {
    // No TASK_KILLING: it would be reported from the caller's thread and could overtake or trail
    // the terminal status; frameworks treat it as optional.
    killer.terminate(killGrace.orElseThrow());
  }

  /**
   * On the agent's orderly stop: a task already being killed (SIGTERM sent, SIGKILL scheduled after
   * its grace) is killed now, instead of running on because the escalation went with the agent's
   * work queue. Tasks not asked to end are left alone: they outlive a restart.
   */
  void finishKillOnStop() {
    ProcessKiller k;
    synchronized (this) {
      if (ended || killer == null || !killer.escalating()) {
        return;
      }
      k = killer;
    }
    k.kill();
  }

  private void exited(ProcessWatch.Exit ending) {
    ProcessKiller k;
    boolean killed;
    synchronized (this) {
      if (ended) {
        return;
      }
      ended = true;
      k = killer;
      k.cancelEscalation();
      killed = killGrace.isPresent();
    }
    // read before the cgroup goes: only it knows whether the kernel's OOM killer ended the task
    Optional<String> memoryLimit = ending.memoryLimit();
    k.destroy(); // anything the task left running dies with it, and its cgroup goes
    ExitDescription exit = ending.describe();
    if (memoryLimit.isPresent() && !killed) {
      services.counters().memoryLimitHit(1);
      end(
          status(TaskState.TASK_FAILED)
              .setSource(TaskStatus.Source.SOURCE_AGENT)
              .setReason(TaskStatus.Reason.REASON_CONTAINER_LIMITATION_MEMORY)
              .setMessage(memoryLimit.get()));
      return;
    }
    String message = exit.message(ending.leaderExit());
    TaskState state =
        killed
            ? TaskState.TASK_KILLED
            : exit.succeeded() ? TaskState.TASK_FINISHED : TaskState.TASK_FAILED;
    end(status(state).setMessage(message));
  }

  private void failToLaunch(String message) {
    synchronized (this) {
      ended = true;
    }
    end(
        status(TaskState.TASK_FAILED)
            .setReason(TaskStatus.Reason.REASON_CONTAINER_LAUNCH_FAILED)
            .setMessage(message));
  }

  private void end(TaskStatus.Builder terminal) {
    report(terminal);
    Sandbox box;
    synchronized (this) {
      box = sandbox;
    }
    if (box != null) {
      box.forgetExitStatus();
    }
    try {
      services.records().delete(containerId);
    } catch (IOException e) {
      log.warn("Could not remove the record of container {}: {}", containerId, e.toString());
    }
    onEnd.accept(this);
  }

  private synchronized boolean isEnded() {
    return ended;
  }

  private ContainerRecord record(ProcessTree process, Sandbox box, Fence made) {
    return new ContainerRecord(
        containerId,
        framework,
        agent,
        Optional.empty(),
        List.of(task),
        java.util.Set.of(),
        process.pid(),
        process.startTime(),
        box.dir(),
        Optional.empty(),
        Optional.of(made.denied()),
        java.util.Map.of()); // one task, its devices never change
  }

  private TaskStatus.Builder status(TaskState state) {
    long pid;
    synchronized (this) {
      pid = tree == null ? 0 : tree.pid();
    }
    return services
        .statuses()
        .status(
            task.getTaskId(),
            state,
            executorId(),
            agent.getId(),
            TaskStatus.Source.SOURCE_EXECUTOR,
            containerId,
            pid);
  }

  ExecutorID executorId() {
    return ExecutorID.newBuilder().setValue(task.getTaskId().getValue()).build();
  }

  private void report(TaskStatus.Builder status) {
    services.report(framework.getId(), status.build());
  }
}
