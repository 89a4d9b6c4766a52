package io.acceld.mesos.executor;

import com.google.protobuf.ByteString;
import io.acceld.allocation.RuntimeSpec;
import io.acceld.mesos.containment.DeviceNode;
import io.acceld.mesos.containment.Fence;
import io.acceld.mesos.containment.Limits;
import io.acceld.mesos.http.EventStream;
import io.acceld.proto.mesos.v1.AgentInfo;
import io.acceld.proto.mesos.v1.ContainerID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.KillPolicy;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.executor.Event;
import io.acceld.util.ClientText;
import io.acceld.util.GuardedBy;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One custom executor ({@code ExecutorInfo.command}) of a framework: its process, its subscription
 * and the tasks it runs. It is spawned with the executor environment (§2.4), must SUBSCRIBE within
 * the registration timeout, then gets SUBSCRIBED and its queued tasks as LAUNCH or LAUNCH_GROUP,
 * later KILL, MESSAGE, ACKNOWLEDGED, SHUTDOWN and HEARTBEAT. The executor reports its tasks'
 * statuses itself; the agent speaks for them (SOURCE_AGENT) only when the executor cannot: it never
 * subscribed, it died, or it was shut down.
 */
final class ExecutorProcess {
  private static final Logger log = LoggerFactory.getLogger(ExecutorProcess.class);

  enum State {
    LAUNCHING,
    REGISTERING,
    SUBSCRIBED,
    TERMINATING,
    TERMINATED
  }

  /** Why the agent destroyed the executor, which decides what its tasks are told. */
  private enum Ending {
    EXITED,
    REGISTRATION_TIMEOUT,
    SHUTDOWN,
    /** Its container's limits could not follow its tasks (Mesos destroys it too, slave.cpp). */
    UPDATE_FAILED
  }

  private final ContainerServices services;
  private final FrameworkInfo framework;
  private final AgentInfo agent;
  private final ExecutorInfo info;
  private final String containerId;
  private final Optional<ExecutorToken> token;
  private final Consumer<ExecutorProcess> onEnd;

  @GuardedBy("this")
  private State state = State.LAUNCHING;

  /** Whether it ever subscribed: a TERMINATING executor that did may still report its tasks. */
  @GuardedBy("this")
  private boolean subscribedOnce;

  @GuardedBy("this")
  private Ending ending = Ending.EXITED;

  @GuardedBy("this")
  private EventStream stream;

  /** Its tasks: queued, delivered, reported on. */
  @GuardedBy("this")
  private final ExecutorTasks tasks = new ExecutorTasks();

  @GuardedBy("this")
  private ProcessTree tree;

  /** Made with {@link #tree}: how the executor's processes are killed. */
  @GuardedBy("this")
  private ProcessKiller killer;

  @GuardedBy("this")
  private Sandbox sandbox;

  @GuardedBy("this")
  private Fence fence;

  /** The resources {@link #fence}'s limits last followed: its executor's and its tasks'. */
  @GuardedBy("this")
  private Limits requested;

  /**
   * The device nodes each task was given, by task id: what the fence allows is theirs together. A
   * task missing here (one of an older agent's record, which kept none) holds devices nobody knows,
   * so while it lives the fence only ever widens.
   */
  @GuardedBy("this")
  private final Map<String, List<DeviceNode>> taskDevices = new HashMap<>();

  /** Why the limits could not follow, for the tasks' status when {@link Ending#UPDATE_FAILED}. */
  @GuardedBy("this")
  private String updateFailure = "";

  @GuardedBy("this")
  private ScheduledFuture<?> registrationTimer;

  @GuardedBy("this")
  private ScheduledFuture<?> heartbeat;

  @GuardedBy("this")
  private ScheduledFuture<?> destroyTimer;

  ExecutorProcess(
      ContainerServices services,
      FrameworkInfo framework,
      AgentInfo agent,
      ExecutorInfo info,
      String containerId,
      Optional<ExecutorToken> token,
      Consumer<ExecutorProcess> onEnd) {
    this.services = services;
    this.token = token;
    this.framework = framework;
    this.agent = agent;
    this.info = info.toBuilder().setFrameworkId(framework.getId()).build();
    this.containerId = containerId;
    this.onEnd = onEnd;
  }

  ExecutorInfo info() {
    return info;
  }

  /** Whether the executor API token digested as {@code presented} is this executor's. */
  boolean holdsToken(byte[] presented) {
    return token.isPresent() && token.get().matches(presented);
  }

  synchronized State state() {
    return state;
  }

  /** Its fence, once made. */
  synchronized Optional<Fence> fence() {
    return Optional.ofNullable(fence);
  }

  synchronized int taskCount() {
    return tasks.all().size();
  }

  synchronized boolean hasTask(String taskId) {
    return tasks.has(taskId);
  }

  synchronized List<String> taskIds() {
    return tasks.ids();
  }

  /**
   * Queues tasks for the executor (delivered at once if it is subscribed).
   *
   * @param devices the device nodes of each of {@code launched}, by task id, which its container's
   *     fence allows before the executor hears of the task
   * @return false if the executor is going away and takes no more tasks
   */
  boolean enqueue(List<TaskInfo> launched, boolean group, Map<String, List<DeviceNode>> devices) {
    List<Event> events = ExecutorTasks.launchEvents(launched, group);
    boolean resized;
    synchronized (this) {
      if (state == State.TERMINATING || state == State.TERMINATED) {
        return false;
      }
      tasks.add(launched);
      devices.forEach((task, nodes) -> taskDevices.put(task, List.copyOf(nodes)));
      // as the Mesos agent does, the container grows before the executor hears of the task
      resized = resize();
      if (!resized) {
        tasks.queue(events); // never delivered: the executor is destroyed, the tasks lost
      } else if (state == State.SUBSCRIBED && stream != null && stream.isOpen()) {
        events.forEach(stream::send);
      } else {
        tasks.queue(events);
      }
    }
    if (!resized) {
      destroy();
      return true;
    }
    checkpoint();
    return true;
  }

  /**
   * Makes the container's limits and device fence follow its executor's and tasks' resources, as
   * the Mesos agent updates a running executor's container when a task is launched into it or ends
   * there (see {@link Fence#update} and {@link Fence#updateDevices} for what that writes): a task's
   * GPUs are allowed before it is delivered and denied again once no remaining task holds them.
   * With the monitor held, so that what is written is for the tasks as they are now, and a task is
   * delivered only once it is.
   *
   * @return false when the cgroup could not be written: the state is then TERMINATING and the
   *     caller must {@link #destroy()} the executor, whose tasks are lost, as Mesos destroys a
   *     container whose update failed
   */
  @GuardedBy("this")
  private boolean resize() {
    if (fence == null || state == State.TERMINATING || state == State.TERMINATED) {
      return true; // not made yet (start() follows the tasks there) or going away anyway
    }
    Limits wanted = ContainerFences.resized(Optional.of(info), tasks.all(), requested);
    try {
      if (!wanted.equals(requested)) {
        fence.update(wanted);
        requested = wanted;
      }
      List<DeviceNode> denial = denial();
      if (!sameDevices(denial, fence.denied())) {
        fence.updateDevices(denial);
      }
      return true;
    } catch (IOException | RuntimeException e) {
      log.error(
          "Failed to update the resources of container {} of executor {}, destroying it: {}",
          containerId,
          ClientText.quote(info.getExecutorId().getValue()),
          e.toString());
      state = State.TERMINATING;
      ending = Ending.UPDATE_FAILED;
      updateFailure = String.valueOf(e.getMessage());
      if (registrationTimer != null) {
        registrationTimer.cancel(false);
      }
      return false;
    }
  }

  /**
   * What the fence is to deny for the tasks as they are now: every accelerator but theirs. While a
   * task whose devices are unknown lives, only what is denied already stays denied.
   */
  @GuardedBy("this")
  private List<DeviceNode> denial() throws IOException {
    Set<String> live = new HashSet<>(tasks.ids());
    taskDevices.keySet().retainAll(live); // ended tasks' devices are released
    List<DeviceNode> allowed = new ArrayList<>();
    taskDevices.values().forEach(allowed::addAll);
    List<DeviceNode> wanted = services.fences().denial(allowed);
    if (!taskDevices.keySet().containsAll(live)) {
      List<DeviceNode> now = fence.denied();
      wanted = wanted.stream().filter(n -> now.stream().anyMatch(n::sameDevice)).toList();
    }
    return wanted;
  }

  private static boolean sameDevices(List<DeviceNode> a, List<DeviceNode> b) {
    return numbers(a).equals(numbers(b));
  }

  private static Set<String> numbers(List<DeviceNode> nodes) {
    Set<String> numbers = new HashSet<>();
    nodes.forEach(n -> numbers.add(n.number()));
    return numbers;
  }

  /** {@link #resize()} from outside the monitor: after a task ended or was dropped. */
  private void resizeOrDestroy() {
    boolean resized;
    synchronized (this) {
      resized = resize();
    }
    if (!resized) {
      destroy();
    } else {
      checkpoint(); // the record keeps the denial now in force, for /state after a restart
    }
  }

  /** Spawns the process; on the containers' threads. */
  void start(List<RuntimeSpec> devices) {
    Fence made;
    try {
      List<TaskInfo> launched;
      synchronized (this) {
        launched = tasks.all();
      }
      made =
          services
              .fences()
              .create(
                  containerId, framework, Optional.of(info), info.getCommand(), launched, devices);
    } catch (IOException | IllegalArgumentException e) {
      failAll(
          TaskState.TASK_FAILED,
          TaskStatus.Reason.REASON_CONTAINER_LAUNCH_FAILED,
          "Failed to contain the executor: " + e.getMessage());
      return;
    }
    ProcessStarter.Started started;
    try {
      if (!info.hasCommand()) {
        throw new IllegalArgumentException("the ExecutorInfo has no 'command'");
      }
      ExecutorToken secret = token.orElseThrow(); // a freshly launched executor always has one
      started =
          services
              .starter()
              .start(
                  containerId,
                  info.getCommand(),
                  box ->
                      services
                          .environment()
                          .forExecutor(
                              framework, agent, info, devices, shutdownGrace(), box, secret),
                  made);
    } catch (IOException | IllegalArgumentException e) {
      ProcessKiller.remove(made);
      failAll(
          TaskState.TASK_FAILED,
          TaskStatus.Reason.REASON_CONTAINER_LAUNCH_FAILED,
          "Failed to launch the executor: " + e.getMessage());
      return;
    }
    boolean gone;
    boolean resized = true;
    synchronized (this) {
      gone = state != State.LAUNCHING; // shut down while it was being started
      if (!gone) {
        tree = started.tree();
        killer = services.killer(tree, made);
        sandbox = started.sandbox();
        fence = made;
        requested = made.limits();
        state = State.REGISTERING; // from now on it may subscribe, however fast it is
        // tasks launched into it while its fence was being made count too
        resized = resize();
      }
    }
    if (gone || !checkpoint()) {
      // Killed before it could be recorded: the agent could not find it after a restart.
      started.abandon();
      ProcessKiller.remove(made);
      if (gone) {
        return;
      }
    } else {
      try {
        started.release(); // recorded: only now may the executor run
      } catch (IOException e) {
        log.warn(
            "Executor {} ended before it could start: {}",
            ClientText.quote(info.getExecutorId().getValue()),
            e.toString());
      }
    }
    awaitSubscription(started.tree(), started.sandbox());
    if (!resized) {
      destroy();
    }
  }

  /** Re-attaches to a surviving executor after a restart: it has to SUBSCRIBE again. */
  void attach(
      ProcessTree process,
      Sandbox box,
      Fence reattached,
      List<TaskInfo> known,
      Set<String> reported,
      Map<String, List<DeviceNode>> devices) {
    synchronized (this) {
      taskDevices.putAll(devices);
      tree = process;
      killer = services.killer(process, reattached);
      sandbox = box;
      fence = reattached;
      requested = reattached.limits();
      state = State.REGISTERING;
      tasks.restore(known, reported);
    }
    log.info(
        "Re-attached to executor {} (pid {})",
        ClientText.quote(info.getExecutorId().getValue()),
        process.pid());
    awaitSubscription(process, box);
  }

  private void awaitSubscription(ProcessTree process, Sandbox box) {
    Duration timeout = services.settings().registrationTimeout();
    Fence f;
    synchronized (this) {
      f = fence;
      if (state == State.LAUNCHING) {
        state = State.REGISTERING;
      }
      registrationTimer =
          services
              .work()
              .schedule(this::registrationTimedOut, timeout.toNanos(), TimeUnit.NANOSECONDS);
    }
    services.watch().watch(process, box, f, ending -> exited(ending.memoryLimit()));
  }

  /** Whether a SUBSCRIBE may be accepted now: the executor is neither launching nor leaving. */
  synchronized Optional<String> refusesSubscription() {
    return switch (state) {
      case REGISTERING, SUBSCRIBED -> Optional.empty();
      case LAUNCHING -> Optional.of("Executor is not yet launched");
      case TERMINATING, TERMINATED -> Optional.of("Executor is terminating");
    };
  }

  /**
   * SUBSCRIBE: the previous stream (if any) is closed; the stream gets SUBSCRIBED, then the queued
   * tasks; tasks delivered earlier that the executor does not list in {@code unacknowledged_tasks}
   * and never sent an update for are lost (§2.2).
   */
  void subscribed(Set<String> unacknowledgedTasks, EventStream opened) {
    EventStream previous;
    List<TaskInfo> lost;
    boolean idle;
    synchronized (this) {
      if (state != State.REGISTERING && state != State.SUBSCRIBED) {
        opened.close();
        return;
      }
      previous = stream;
      stream = opened;
      state = State.SUBSCRIBED;
      subscribedOnce = true;
      if (registrationTimer != null) {
        registrationTimer.cancel(false);
        registrationTimer = null;
      }
      lost = tasks.removeLost(unacknowledgedTasks);
      opened.send(
          Event.newBuilder()
              .setType(Event.Type.SUBSCRIBED)
              .setSubscribed(
                  Event.Subscribed.newBuilder()
                      .setExecutorInfo(info)
                      .setFrameworkInfo(framework)
                      .setAgentInfo(agent)
                      .setContainerId(ContainerID.newBuilder().setValue(containerId)))
              .build());
      tasks.drainQueue().forEach(opened::send);
      idle = !tasks.everHadTask();
      if (heartbeat != null) {
        heartbeat.cancel(false);
      }
      long interval = services.settings().executorHeartbeat().toNanos();
      heartbeat =
          services
              .work()
              .scheduleAtFixedRate(
                  () ->
                      sendIfOpen(opened, Event.newBuilder().setType(Event.Type.HEARTBEAT).build()),
                  interval,
                  interval,
                  TimeUnit.NANOSECONDS);
    }
    opened.onClose(() -> streamClosed(opened));
    if (previous != null && previous != opened) {
      previous.close();
    }
    TaskState lostState =
        hasCapability(FrameworkInfo.Capability.Type.PARTITION_AWARE)
            ? TaskState.TASK_DROPPED
            : TaskState.TASK_LOST;
    for (TaskInfo t : lost) {
      report(
          agentStatus(t.getTaskId(), lostState)
              .setReason(TaskStatus.Reason.REASON_AGENT_RESTARTED)
              .setMessage("The executor re-subscribed without this task: it was never started"));
    }
    if (!lost.isEmpty()) {
      resizeOrDestroy();
    }
    if (idle) {
      // An executor that was never given a task has nothing to do here (slave.cpp L5401-5411).
      shutdown();
    }
  }

  private synchronized void streamClosed(EventStream closed) {
    if (stream == closed) {
      stream = null;
      if (heartbeat != null) {
        heartbeat.cancel(false);
        heartbeat = null;
      }
    }
  }

  /**
   * Whether it may send UPDATE and MESSAGE calls: once subscribed, and still while it shuts down,
   * since the TASK_KILLED updates that SHUTDOWN asks for come then. Mesos refuses (403) only an
   * executor that is still registering.
   */
  synchronized boolean acceptsCalls() {
    return state == State.SUBSCRIBED || (state == State.TERMINATING && subscribedOnce);
  }

  /**
   * The executor sent an update for {@code task} (already validated and recorded by the sink). The
   * record is rewritten when that changes what a restart must know: the task is no longer staging,
   * or it ended.
   */
  void updated(TaskStatus status) {
    boolean changed;
    synchronized (this) {
      changed = tasks.updated(status);
    }
    if (changed) {
      checkpoint();
    }
    if (changed && Statuses.isTerminal(status.getState())) {
      resizeOrDestroy(); // the ended task's resources leave its container, as in Mesos
    }
  }

  /** ACKNOWLEDGED for an update the sink has checkpointed; dropped if the executor is away. */
  synchronized void acknowledge(TaskID task, ByteString uuid) {
    if (stream != null) {
      stream.send(
          Event.newBuilder()
              .setType(Event.Type.ACKNOWLEDGED)
              .setAcknowledged(Event.Acknowledged.newBuilder().setTaskId(task).setUuid(uuid))
              .build());
    }
  }

  /** A scheduler's MESSAGE; false if the executor is not subscribed. */
  synchronized boolean message(ByteString data) {
    if (state != State.SUBSCRIBED || stream == null || !stream.isOpen()) {
      return false;
    }
    return stream.send(
        Event.newBuilder()
            .setType(Event.Type.MESSAGE)
            .setMessage(Event.Message.newBuilder().setData(data))
            .build());
  }

  /**
   * Kills a task: one not yet delivered is dropped here (with its whole group, which runs or dies
   * as one) and reported TASK_KILLED; a delivered one is the executor's to kill (KILL event).
   */
  void kill(TaskID task, Optional<KillPolicy> policy) {
    List<TaskInfo> dropped;
    synchronized (this) {
      String id = task.getValue();
      if (!tasks.has(id)) {
        return;
      }
      dropped = tasks.dropUndelivered(id);
      if (dropped.isEmpty()) {
        if (stream == null) {
          log.info(
              "Cannot forward KILL of task {}: its executor is not connected",
              ClientText.quote(id));
          return;
        }
        Event.Kill.Builder kill = Event.Kill.newBuilder().setTaskId(task);
        policy.ifPresent(kill::setKillPolicy);
        stream.send(Event.newBuilder().setType(Event.Type.KILL).setKill(kill).build());
        return;
      }
    }
    for (TaskInfo t : dropped) {
      report(
          agentStatus(t.getTaskId(), TaskState.TASK_KILLED)
              .setReason(TaskStatus.Reason.REASON_TASK_KILLED_DURING_LAUNCH)
              .setMessage("Killed before it was delivered to its executor"));
    }
    resizeOrDestroy();
  }

  /** SHUTDOWN, then destruction after the executor's grace period (at once if not connected). */
  void shutdown() {
    boolean now;
    synchronized (this) {
      if (state == State.TERMINATING || state == State.TERMINATED) {
        return;
      }
      boolean connected = state == State.SUBSCRIBED && stream != null && stream.isOpen();
      state = State.TERMINATING;
      ending = Ending.SHUTDOWN;
      if (registrationTimer != null) {
        registrationTimer.cancel(false);
      }
      now = !connected || tree == null;
      if (connected) {
        stream.send(Event.newBuilder().setType(Event.Type.SHUTDOWN).build());
        destroyTimer =
            services
                .work()
                .schedule(this::destroy, shutdownGrace().toNanos(), TimeUnit.NANOSECONDS);
      }
    }
    if (now) {
      destroy();
    }
  }

  /**
   * On the agent's orderly stop: an executor already told to shut down (a SHUTDOWN or TEARDOWN the
   * agent answered 202 to) is killed now, instead of running on because its grace timer went with
   * the agent's work queue. Executors not asked to end are left alone: they outlive a restart.
   */
  void finishShutdownOnStop() {
    boolean pending;
    synchronized (this) {
      pending = state == State.TERMINATING && destroyTimer != null && !destroyTimer.isDone();
    }
    if (pending) {
      destroy();
    }
  }

  private void registrationTimedOut() {
    synchronized (this) {
      if (state != State.REGISTERING) {
        return;
      }
      state = State.TERMINATING;
      ending = Ending.REGISTRATION_TIMEOUT;
    }
    log.warn(
        "Executor {} did not subscribe within {}; destroying it",
        ClientText.quote(info.getExecutorId().getValue()),
        services.settings().registrationTimeout());
    destroy();
  }

  /** SIGKILL to the executor's tree; its exit then reports what is left of its tasks. */
  private void destroy() {
    ProcessKiller k;
    synchronized (this) {
      k = killer;
    }
    if (k != null) {
      k.kill();
    } else {
      exited(Optional.empty());
    }
  }

  /**
   * @param memoryLimit the message when the kernel OOM-killed a process of the executor's container
   *     at its limit: its tasks then fail with REASON_CONTAINER_LIMITATION_MEMORY
   */
  private void exited(Optional<String> memoryLimit) {
    Sandbox box;
    List<TaskInfo> orphaned;
    Ending why;
    EventStream open;
    ProcessKiller k;
    synchronized (this) {
      if (state == State.TERMINATED) {
        return;
      }
      state = State.TERMINATED;
      why = ending;
      for (ScheduledFuture<?> timer :
          new ScheduledFuture<?>[] {registrationTimer, heartbeat, destroyTimer}) {
        if (timer != null) {
          timer.cancel(false);
        }
      }
      orphaned = tasks.clear();
      open = stream;
      stream = null;
      k = killer;
      box = sandbox;
    }
    if (k != null) {
      k.destroy(); // whatever the executor left behind, and its cgroup
    }
    if (open != null) {
      open.close();
    }
    if (memoryLimit.isPresent() && why != Ending.SHUTDOWN) {
      services.counters().memoryLimitHit(orphaned.size());
    }
    for (TaskInfo t : orphaned) {
      report(
          memoryLimit.isPresent() && why != Ending.SHUTDOWN
              ? agentStatus(t.getTaskId(), TaskState.TASK_FAILED)
                  .setReason(TaskStatus.Reason.REASON_CONTAINER_LIMITATION_MEMORY)
                  .setMessage(memoryLimit.get())
              : orphanStatus(t.getTaskId(), why));
    }
    try {
      services.records().delete(containerId);
    } catch (IOException e) {
      log.warn("Could not remove the record of container {}: {}", containerId, e.toString());
    }
    if (box != null) {
      box.forgetExitStatus();
    }
    onEnd.accept(this);
  }

  private TaskStatus.Builder orphanStatus(TaskID task, Ending why) {
    String failure;
    synchronized (this) {
      failure = updateFailure;
    }
    return switch (why) {
      case UPDATE_FAILED ->
          agentStatus(
                  task,
                  hasCapability(FrameworkInfo.Capability.Type.PARTITION_AWARE)
                      ? TaskState.TASK_GONE
                      : TaskState.TASK_LOST)
              .setReason(TaskStatus.Reason.REASON_CONTAINER_UPDATE_FAILED)
              .setMessage("Failed to update resources for container: " + failure);
      case REGISTRATION_TIMEOUT ->
          agentStatus(task, TaskState.TASK_FAILED)
              .setReason(TaskStatus.Reason.REASON_EXECUTOR_REGISTRATION_TIMEOUT)
              .setMessage(
                  "Executor did not register within "
                      + ExecutorEnvironment.stoutDuration(
                          services.settings().registrationTimeout()));
      case SHUTDOWN ->
          agentStatus(task, TaskState.TASK_KILLED)
              .setReason(TaskStatus.Reason.REASON_EXECUTOR_TERMINATED)
              .setMessage("Executor was shut down");
      case EXITED ->
          agentStatus(task, TaskState.TASK_FAILED)
              .setReason(TaskStatus.Reason.REASON_EXECUTOR_TERMINATED)
              .setMessage("Executor terminated");
    };
  }

  private void failAll(TaskState state, TaskStatus.Reason reason, String message) {
    List<TaskInfo> all;
    synchronized (this) {
      this.state = State.TERMINATED;
      all = tasks.clear();
    }
    for (TaskInfo t : all) {
      report(agentStatus(t.getTaskId(), state).setReason(reason).setMessage(message));
    }
    onEnd.accept(this);
  }

  /** Writes the record once the process is known; false if it could not be written. */
  private boolean checkpoint() {
    ContainerRecord record;
    synchronized (this) {
      if (tree == null || state == State.TERMINATED) {
        return true;
      }
      record =
          new ContainerRecord(
              containerId,
              framework,
              agent,
              Optional.of(info),
              tasks.all(),
              tasks.reported(),
              tree.pid(),
              tree.startTime(),
              sandbox.dir(),
              token,
              Optional.of(fence.denied()),
              Map.copyOf(taskDevices));
    }
    try {
      services.records().write(record);
      return true;
    } catch (IOException e) {
      log.error("Could not checkpoint executor container {}: {}", containerId, e.toString());
      return false;
    }
  }

  private Duration shutdownGrace() {
    return info.hasShutdownGracePeriod()
        ? Duration.ofNanos(Math.max(0, info.getShutdownGracePeriod().getNanoseconds()))
        : services.settings().executorShutdownGrace();
  }

  private static void sendIfOpen(EventStream s, Event event) {
    if (s.isOpen()) {
      s.send(event);
    }
  }

  private boolean hasCapability(FrameworkInfo.Capability.Type type) {
    return framework.getCapabilitiesList().stream().anyMatch(c -> c.getType() == type);
  }

  private TaskStatus.Builder agentStatus(TaskID task, TaskState state) {
    long pid;
    synchronized (this) {
      pid = tree == null ? 0 : tree.pid();
    }
    return services
        .statuses()
        .status(
            task,
            state,
            info.getExecutorId(),
            agent.getId(),
            TaskStatus.Source.SOURCE_AGENT,
            containerId,
            pid);
  }

  private void report(TaskStatus.Builder status) {
    services.report(framework.getId(), status.build());
  }
}
