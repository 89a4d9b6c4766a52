package io.acceld.mesos.executor;

import com.google.protobuf.ByteString;
import io.acceld.ledger.Holder;
import io.acceld.mesos.containment.Containment;
import io.acceld.mesos.containment.DeviceNode;
import io.acceld.mesos.containment.Fence;
import io.acceld.mesos.containment.Recovery;
import io.acceld.mesos.http.ExecutorEndpoint;
import io.acceld.mesos.http.ExecutorTokens;
import io.acceld.mesos.http.Reply;
import io.acceld.mesos.tasks.Launch;
import io.acceld.mesos.tasks.LaunchedTask;
import io.acceld.mesos.tasks.StatusSink;
import io.acceld.mesos.tasks.TaskBook;
import io.acceld.mesos.tasks.TaskLauncher;
import io.acceld.proto.mesos.v1.AgentInfo;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.KillPolicy;
import io.acceld.proto.mesos.v1.Label;
import io.acceld.proto.mesos.v1.Labels;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskInfo;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.proto.mesos.v1.executor.Call;
import io.acceld.util.AtomicFiles;
import io.acceld.util.ClientText;
import io.acceld.util.GuardedBy;
import io.acceld.util.NamedThreads;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This agent's containers: command tasks under the built-in command executor ({@link
 * CommandTaskRunner}), custom executors ({@link ExecutorProcess}) and the executor API they
 * subscribe to ({@link ExecutorSessions}), checkpointed so that {@link #recover()} finds them again
 * after the agent was restarted or killed.
 *
 * <p>Layout under the directory it is given (the bridge's, {@code <state-dir>/mesos}): {@code
 * containers/<id>.json} (the records) and {@code sandboxes/<id>/} (each container's working
 * directory, stdout and stderr), both owner-only.
 *
 * <p>{@link #close()} stops the agent's side only: the processes keep running, as tasks do when a
 * Mesos agent restarts, and the next {@link #recover()} re-attaches to them.
 */
public final class Containers
    implements TaskLauncher, ExecutorEndpoint, ExecutorTokens, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Containers.class);
  static final String RECORDS = "containers";
  static final String SANDBOXES = "sandboxes";

  private final ContainerServices services;
  private final ScheduledThreadPoolExecutor work;
  private final ExecutorSessions sessions;
  private final Signals signals;
  private final Object lock = new Object();

  @GuardedBy("lock")
  private final Map<TaskKey, CommandTaskRunner> commandTasks = new HashMap<>();

  @GuardedBy("lock")
  private final Map<ExecutorKey, ExecutorProcess> executors = new HashMap<>();

  @GuardedBy("lock")
  private boolean recovered;

  private Containers(
      ContainerServices services,
      ScheduledThreadPoolExecutor work,
      Signals signals,
      StatusSink sink) {
    this.services = services;
    this.work = work;
    this.signals = signals;
    this.sessions = new ExecutorSessions(new Directory(), sink);
  }

  /**
   * Opens the containers kept under {@code dir}; {@link #recover()} must run before it serves.
   *
   * @throws IOException if the directories cannot be created
   */
  public static Containers open(Path dir, ContainerSettings settings, StatusSink sink, Clock clock)
      throws IOException {
    AtomicFiles.createDirectories(dir, AtomicFiles.DIRECTORY_OWNER_ONLY);
    Path sandboxes =
        AtomicFiles.createDirectories(dir.resolve(SANDBOXES), AtomicFiles.DIRECTORY_OWNER_ONLY);
    if (settings.containment().switchUser()) {
      searchableByTasks(dir, sandboxes);
    }
    ContainerRecords records = new ContainerRecords(dir.resolve(RECORDS));
    ScheduledThreadPoolExecutor work =
        new ScheduledThreadPoolExecutor(2, new NamedThreads("mesos-containers"));
    work.setRemoveOnCancelPolicy(true);
    Signals signals = Signals.load();
    CommandLine commandLine = new CommandLine(settings.setsid(), settings.shell());
    ExecutorEnvironment environment =
        new ExecutorEnvironment(
            settings.agentAddress(),
            System.getenv(),
            settings.recoveryTimeout(),
            settings.subscriptionBackoffMax());
    ContainerServices services =
        new ContainerServices(
            sink,
            new Statuses(clock),
            work,
            records,
            new ProcessStarter(sandboxes, commandLine, new Spawner(commandLine, signals)),
            new ProcessWatch(work),
            environment,
            new ContainerFences(Containment.create(settings.containment())),
            new ContainmentCounters(),
            settings);
    return new Containers(services, work, signals, sink);
  }

  /**
   * A task that runs as its own user must reach its sandbox by path ({@code MESOS_SANDBOX}): the
   * directories above it, the state directory included, become search-only for others ({@code
   * 0711}), as Mesos's work directory is traversable. Nobody else can list them, every file in them
   * stays owner-only, and the sandboxes are named by ids the agent made up.
   */
  private static void searchableByTasks(Path dir, Path sandboxes) throws IOException {
    Set<java.nio.file.attribute.PosixFilePermission> searchOnly =
        java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x");
    for (Path p : new Path[] {dir.getParent(), dir, sandboxes}) {
      if (p != null) {
        java.nio.file.Files.setPosixFilePermissions(p, searchOnly);
      }
    }
  }

  /**
   * Finds the containers of the previous run: live processes (same pid, same start time) are
   * re-attached and their exits reported as usual; dead ones are reported now, from the exit status
   * their wrapper recorded when there is one, else TASK_FAILED with REASON_AGENT_RESTARTED. Until
   * it returns, the executor API answers 503.
   *
   * @return every task the records name, running or just reported
   */
  public Set<Holder.MesosTask> recover() throws IOException {
    Set<Holder.MesosTask> known = new LinkedHashSet<>();
    Set<String> live = new HashSet<>();
    for (ContainerRecord record : services.records().readAll()) {
      for (TaskInfo t : record.tasks()) {
        known.add(TaskKey.of(record.framework().getId(), t.getTaskId()).holder());
      }
      Optional<ProcessTree> alive = ProcessTree.attach(record.pid(), record.startTime(), signals);
      Sandbox sandbox = new Sandbox(record.sandbox());
      Fence fence = services.fences().reattach(record);
      if (alive.isPresent()) {
        live.add(record.containerId());
      }
      if (record.executor().isPresent()) {
        recoverExecutor(record, alive, sandbox, fence);
      } else {
        recoverCommandTask(record, alive, sandbox, fence);
      }
    }
    // the cgroups of every container that ended meanwhile go, what is left in them killed
    Recovery cgroups = services.fences().recover(live);
    if (!cgroups.removed().isEmpty() || !cgroups.failed().isEmpty()) {
      log.info(
          "Removed the cgroups of {} ended container(s); could not remove {}",
          cgroups.removed().size(),
          cgroups.failed());
    }
    synchronized (lock) {
      recovered = true;
    }
    log.info("Recovered {} Mesos task(s) from the containers' checkpoint", known.size());
    return known;
  }

  private void recoverCommandTask(
      ContainerRecord record, Optional<ProcessTree> alive, Sandbox sandbox, Fence fence)
      throws IOException {
    if (record.tasks().size() != 1) {
      log.warn(
          "Command container {} names {} tasks; skipped",
          record.containerId(),
          record.tasks().size());
      services.records().delete(record.containerId());
      return;
    }
    TaskInfo task = record.tasks().get(0);
    TaskKey key = TaskKey.of(record.framework().getId(), task.getTaskId());
    CommandTaskRunner runner =
        new CommandTaskRunner(
            services,
            record.framework(),
            record.agent(),
            task,
            record.containerId(),
            c -> forget(key, c));
    if (alive.isPresent()) {
      synchronized (lock) {
        commandTasks.put(key, runner);
      }
      runner.attach(alive.get(), sandbox, fence);
      return;
    }
    ProcessWatch.Exit ended = ProcessWatch.whileAgentWasDown(sandbox, fence);
    Optional<String> memoryLimit = ended.memoryLimit();
    ExitDescription exit = ended.describe();
    TaskStatus.Builder status =
        services
            .statuses()
            .status(
                task.getTaskId(),
                TaskState.TASK_FAILED,
                runner.executorId(),
                record.agent().getId(),
                TaskStatus.Source.SOURCE_EXECUTOR,
                record.containerId(),
                record.pid());
    if (memoryLimit.isPresent()) {
      status
          .setSource(TaskStatus.Source.SOURCE_AGENT)
          .setReason(TaskStatus.Reason.REASON_CONTAINER_LIMITATION_MEMORY)
          .setMessage(memoryLimit.get() + " while the agent was down");
    } else if (exit.status().isPresent()) {
      status
          .setState(exit.succeeded() ? TaskState.TASK_FINISHED : TaskState.TASK_FAILED)
          .setMessage(exit.message(Optional.empty()) + " while the agent was down");
    } else {
      status
          .setReason(TaskStatus.Reason.REASON_AGENT_RESTARTED)
          .setMessage(
              "The task's process was gone after the agent restarted, without an exit status");
    }
    services.report(record.framework().getId(), status.build());
    services.records().delete(record.containerId());
    sandbox.forgetExitStatus();
  }

  private void recoverExecutor(
      ContainerRecord record, Optional<ProcessTree> alive, Sandbox sandbox, Fence fence)
      throws IOException {
    ExecutorInfo info = record.executor().orElseThrow();
    ExecutorKey key = ExecutorKey.of(record.framework().getId(), info.getExecutorId());
    if (alive.isPresent()) {
      ExecutorProcess executor =
          new ExecutorProcess(
              services,
              record.framework(),
              record.agent(),
              info,
              record.containerId(),
              record.token(),
              c -> forget(key, c));
      synchronized (lock) {
        executors.put(key, executor);
      }
      executor.attach(
          alive.get(), sandbox, fence, record.tasks(), record.reported(), record.taskDevices());
      return;
    }
    for (TaskInfo t : record.tasks()) {
      services.report(
          record.framework().getId(),
          services
              .statuses()
              .status(
                  t.getTaskId(),
                  TaskState.TASK_FAILED,
                  info.getExecutorId(),
                  record.agent().getId(),
                  TaskStatus.Source.SOURCE_AGENT,
                  record.containerId(),
                  record.pid())
              .setReason(TaskStatus.Reason.REASON_AGENT_RESTARTED)
              .setMessage("The task's executor was gone after the agent restarted")
              .build());
    }
    services.records().delete(record.containerId());
    sandbox.forgetExitStatus();
  }

  @Override
  public void launch(Launch launch) {
    FrameworkInfo framework = launch.framework();
    if (launch.executor().isEmpty()) {
      for (LaunchedTask t : launch.tasks()) {
        launchCommandTask(framework, launch.agent(), t);
      }
      return;
    }
    ExecutorInfo info = launch.executor().get();
    ExecutorKey key = ExecutorKey.of(framework.getId(), info.getExecutorId());
    List<TaskInfo> tasks = launch.tasks().stream().map(Containers::namingItsDevices).toList();
    ExecutorProcess executor;
    boolean fresh = false;
    synchronized (lock) {
      executor = executors.get(key);
      if (executor == null) {
        executor =
            new ExecutorProcess(
                services,
                framework,
                launch.agent(),
                info,
                newContainerId(),
                Optional.of(ExecutorToken.generate()),
                c -> forget(key, c));
        executors.put(key, executor);
        fresh = true;
      }
    }
    // each task's own nodes, so the fence can follow them into and out of a running executor
    Map<String, List<DeviceNode>> nodes = new HashMap<>();
    for (LaunchedTask t : launch.tasks()) {
      nodes.put(
          t.task().getTaskId().getValue(), services.fences().deviceNodes(List.of(t.runtime())));
    }
    if (!executor.enqueue(tasks, launch.group(), nodes)) {
      for (TaskInfo t : tasks) {
        TaskStatus.Builder refused =
            services
                .statuses()
                .status(
                    t.getTaskId(),
                    TaskState.TASK_FAILED,
                    info.getExecutorId(),
                    launch.agent().getId(),
                    TaskStatus.Source.SOURCE_AGENT,
                    "",
                    0)
                .clearContainerStatus() // it never had a container
                .setReason(TaskStatus.Reason.REASON_EXECUTOR_TERMINATED)
                .setMessage("Its executor is shutting down and takes no more tasks");
        services.report(framework.getId(), refused.build());
      }
      return;
    }
    if (fresh) {
      ExecutorProcess started = executor;
      var devices = launch.tasks().stream().map(LaunchedTask::runtime).toList();
      work.execute(() -> started.start(devices));
    }
  }

  private void launchCommandTask(FrameworkInfo framework, AgentInfo agent, LaunchedTask launched) {
    TaskKey key = TaskKey.of(framework.getId(), launched.task().getTaskId());
    CommandTaskRunner runner =
        new CommandTaskRunner(
            services, framework, agent, launched.task(), newContainerId(), c -> forget(key, c));
    synchronized (lock) {
      if (commandTasks.containsKey(key)) {
        log.warn(
            "Task {} of framework {} is already running; the second launch is ignored",
            ClientText.quote(key.task()),
            ClientText.quote(key.framework()));
        return;
      }
      commandTasks.put(key, runner);
    }
    work.execute(() -> runner.start(launched.runtime()));
  }

  @Override
  public void kill(FrameworkID framework, TaskID task, Optional<KillPolicy> policy) {
    TaskKey key = TaskKey.of(framework, task);
    CommandTaskRunner runner;
    List<ExecutorProcess> holding = new ArrayList<>();
    synchronized (lock) {
      runner = commandTasks.get(key);
      if (runner == null) {
        for (var e : executors.entrySet()) {
          if (e.getKey().framework().equals(framework.getValue())
              && e.getValue().hasTask(task.getValue())) {
            holding.add(e.getValue());
          }
        }
      }
    }
    if (runner != null) {
      runner.kill(policy);
    }
    holding.forEach(e -> e.kill(task, policy));
  }

  @Override
  public void shutdownExecutor(FrameworkID framework, ExecutorID executor) {
    ExecutorProcess process;
    CommandTaskRunner command;
    synchronized (lock) {
      process = executors.get(ExecutorKey.of(framework, executor));
      // A command task's executor is the built-in one, named after the task.
      command = commandTasks.get(new TaskKey(framework.getValue(), executor.getValue()));
    }
    if (process != null) {
      process.shutdown();
    }
    if (command != null) {
      command.kill(Optional.empty());
    }
  }

  @Override
  public void shutdownFramework(FrameworkID framework) {
    List<ExecutorProcess> processes = new ArrayList<>();
    List<CommandTaskRunner> commands = new ArrayList<>();
    synchronized (lock) {
      executors.forEach(
          (k, v) -> {
            if (k.framework().equals(framework.getValue())) {
              processes.add(v);
            }
          });
      commandTasks.forEach(
          (k, v) -> {
            if (k.framework().equals(framework.getValue())) {
              commands.add(v);
            }
          });
    }
    processes.forEach(ExecutorProcess::shutdown);
    commands.forEach(c -> c.kill(Optional.empty()));
  }

  @Override
  public boolean message(FrameworkID framework, ExecutorID executor, ByteString data) {
    ExecutorProcess process;
    synchronized (lock) {
      process = executors.get(ExecutorKey.of(framework, executor));
    }
    return process != null && process.message(data);
  }

  /** Custom executors only: the built-in command executor is no executor a framework can reuse. */
  @Override
  public List<ExecutorID> executorsOf(FrameworkID framework) {
    List<ExecutorID> ids = new ArrayList<>();
    synchronized (lock) {
      executors.forEach(
          (k, v) -> {
            if (k.framework().equals(framework.getValue())
                && v.state() != ExecutorProcess.State.TERMINATED) {
              ids.add(v.info().getExecutorId());
            }
          });
    }
    return ids;
  }

  @Override
  public boolean recovering() {
    return sessions.recovering();
  }

  /** Each running container's containment, for {@code /state}. */
  public List<io.acceld.mesos.containment.FenceDescription> fences() {
    List<Optional<Fence>> fences = new ArrayList<>();
    List<CommandTaskRunner> commands;
    List<ExecutorProcess> executing;
    synchronized (lock) {
      commands = List.copyOf(commandTasks.values());
      executing = List.copyOf(executors.values());
    }
    commands.forEach(c -> fences.add(c.fence()));
    executing.forEach(e -> fences.add(e.fence()));
    return fences.stream().flatMap(Optional::stream).map(Fence::describe).toList();
  }

  /** The containment of the container {@code task} runs in, if it runs here fenced. */
  public Optional<io.acceld.mesos.containment.FenceDescription> fenceOf(
      io.acceld.ledger.Holder.MesosTask task) {
    CommandTaskRunner command;
    List<ExecutorProcess> executing;
    synchronized (lock) {
      command = commandTasks.get(new TaskKey(task.frameworkId(), task.taskId()));
      executing =
          executors.entrySet().stream()
              .filter(e -> e.getKey().framework().equals(task.frameworkId()))
              .map(java.util.Map.Entry::getValue)
              .toList();
    }
    if (command != null) {
      return command.fence().map(Fence::describe);
    }
    return executing.stream()
        .filter(e -> e.hasTask(task.taskId()))
        .findFirst()
        .flatMap(ExecutorProcess::fence)
        .map(Fence::describe);
  }

  /** The running tasks (a custom executor's each count), for the series by isolation. */
  public int runningTasks() {
    List<ExecutorProcess> executing;
    int commands;
    synchronized (lock) {
      executing = List.copyOf(executors.values());
      commands = commandTasks.size();
    }
    return commands + executing.stream().mapToInt(ExecutorProcess::taskCount).sum();
  }

  /** How tasks are contained here: {@code --mesos-isolation}'s value, {@code none} when off. */
  public String isolation() {
    return io.acceld.config.MesosIsolation.format(services.settings().containment().isolation());
  }

  /** Tasks ended by their container's memory limit since the start. */
  public long tasksEndedByMemoryLimit() {
    return services.counters().memoryLimited();
  }

  /** Whether the containers' threads (launches, exits, kill escalations) still run. */
  public boolean alive() {
    return !work.isShutdown();
  }

  /**
   * The executor holding {@code token}: every live executor's is compared, none skipped once one
   * matched, so the answer's timing does not depend on which executor (if any) holds it.
   */
  @Override
  public Optional<ExecutorTokens.Identity> executorOf(String token) {
    byte[] presented = ExecutorToken.digest(token);
    ExecutorKey match = null;
    synchronized (lock) {
      for (var e : executors.entrySet()) {
        if (e.getValue().holdsToken(presented) && match == null) {
          match = e.getKey();
        }
      }
    }
    return match == null
        ? Optional.empty()
        : Optional.of(new ExecutorTokens.Identity(match.framework(), match.executor()));
  }

  @Override
  public Reply subscribe(Call call) {
    return sessions.subscribe(call);
  }

  @Override
  public Reply handle(Call call) {
    return sessions.handle(call);
  }

  /**
   * Stops the agent's threads and leaves every process running (the next {@link #recover()} finds
   * them). Open executor streams end as the HTTP server closes.
   */
  @Override
  public void close() {
    List<ExecutorProcess> executing;
    List<CommandTaskRunner> commands;
    synchronized (lock) {
      executing = List.copyOf(executors.values());
      commands = List.copyOf(commandTasks.values());
    }
    // Kills already acknowledged finish now; their timers go with the work queue below.
    executing.forEach(ExecutorProcess::finishShutdownOnStop);
    commands.forEach(CommandTaskRunner::finishKillOnStop);
    work.shutdownNow();
    try {
      work.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void forget(TaskKey key, CommandTaskRunner ended) {
    synchronized (lock) {
      commandTasks.remove(key, ended);
    }
  }

  private void forget(ExecutorKey key, ExecutorProcess ended) {
    synchronized (lock) {
      executors.remove(key, ended);
    }
  }

  /**
   * The task as its executor gets it in LAUNCH: labelled {@code acceld.io/devices} with the devices
   * it was given. An executor's own environment names only the devices of the launch that spawned
   * it, so one that runs several tasks learns each task's devices from this label.
   */
  static TaskInfo namingItsDevices(LaunchedTask launched) {
    TaskInfo task = launched.task();
    Labels.Builder labels = Labels.newBuilder();
    for (Label l : task.getLabels().getLabelsList()) {
      if (!l.getKey().equals(TaskBook.DEVICES_LABEL)) {
        labels.addLabels(l);
      }
    }
    labels.addLabels(
        Label.newBuilder()
            .setKey(TaskBook.DEVICES_LABEL)
            .setValue(String.join(",", launched.deviceIds())));
    return task.toBuilder().setLabels(labels).build();
  }

  private static String newContainerId() {
    return UUID.randomUUID().toString();
  }

  /** The table, as the executor API sees it. */
  private final class Directory implements ExecutorSessions.Directory {
    @Override
    public boolean recovering() {
      synchronized (lock) {
        return !recovered;
      }
    }

    @Override
    public boolean knowsFramework(String frameworkId) {
      synchronized (lock) {
        Set<String> frameworks = new HashSet<>();
        executors.keySet().forEach(k -> frameworks.add(k.framework()));
        commandTasks.keySet().forEach(k -> frameworks.add(k.framework()));
        return frameworks.contains(frameworkId);
      }
    }

    @Override
    public Optional<ExecutorProcess> executor(ExecutorKey key) {
      synchronized (lock) {
        return Optional.ofNullable(executors.get(key));
      }
    }
  }
}
