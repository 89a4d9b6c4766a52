package io.acceld.mesos.tasks;

import com.google.protobuf.ByteString;
import io.acceld.ledger.DeviceLedger;
import io.acceld.ledger.Holder;
import io.acceld.ledger.Lease;
import io.acceld.proto.mesos.v1.ExecutorID;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import io.acceld.proto.mesos.v1.FrameworkID;
import io.acceld.proto.mesos.v1.FrameworkInfo;
import io.acceld.proto.mesos.v1.Label;
import io.acceld.proto.mesos.v1.Labels;
import io.acceld.proto.mesos.v1.TaskID;
import io.acceld.proto.mesos.v1.TaskState;
import io.acceld.proto.mesos.v1.TaskStatus;
import io.acceld.util.AtomicFiles;
import io.acceld.util.Backoff;
import io.acceld.util.ClientText;
import io.acceld.util.GuardedBy;
import io.acceld.util.NamedThreads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's task table and its status update manager: every task the master launched on this
 * node, the devices it holds, its latest state, and its reliable stream of status updates.
 *
 * <p>Each task's stream is FIFO with only its head outstanding, as Mesos's task status update
 * manager does: the head is sent, then resent with backoff (the configured retry, doubling up to
 * {@link #MAX_RETRY}) until the scheduler acknowledges its uuid; only then is the next one sent.
 * Every change is durable in the task journal ({@link TaskCheckpoint}) before the call that made it
 * returns and before the update it adds is sent, so an executor told ACKNOWLEDGED, or a scheduler
 * whose ACKNOWLEDGE was answered, never has it undone by a crash. A change is appended with the
 * lock held, so each task's changes keep their order, and awaited without it, so changes of many
 * tasks and frameworks share one force of the journal instead of queueing for one each.
 *
 * <p>A terminal status releases the task's lease in the ledger at once; the row stays until the
 * scheduler has acknowledged every update (then it moves to a bounded in-memory list of completed
 * tasks, for {@code /state} and reconciliation).
 *
 * <p>Never calls the {@link StatusForwarder} or the ledger's listeners with its lock held.
 */
public final class TaskBook implements StatusSink, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TaskBook.class);

  /** Mesos's STATUS_UPDATE_RETRY_INTERVAL_MAX. */
  public static final Duration MAX_RETRY = Duration.ofMinutes(10);

  /** The label every forwarded status carries: the task's devices, comma-separated. */
  public static final String DEVICES_LABEL = "acceld.io/devices";

  /** How many completed tasks stay visible after their last update was acknowledged. */
  static final int COMPLETED_KEPT = 1000;

  private final DeviceLedger ledger;
  private final Clock clock;
  private final Duration firstRetry;
  private final TaskCheckpoint checkpoint;
  private final ScheduledExecutorService sender =
      Executors.newSingleThreadScheduledExecutor(new NamedThreads("acceld-mesos-status"));
  private final Object lock = new Object();
  private final AtomicLong resends = new AtomicLong();

  @GuardedBy("lock")
  private final Map<Holder.MesosTask, TaskEntry> entries = new LinkedHashMap<>();

  @GuardedBy("lock")
  private final Deque<TaskView> completed = new ArrayDeque<>();

  private volatile StatusForwarder forwarder = StatusForwarder.NONE;

  private TaskBook(
      DeviceLedger ledger, Clock clock, Duration firstRetry, TaskCheckpoint checkpoint) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (firstRetry.isNegative() || firstRetry.isZero()) {
      throw new IllegalArgumentException("the status update retry must be positive: " + firstRetry);
    }
    this.firstRetry = firstRetry.compareTo(MAX_RETRY) > 0 ? MAX_RETRY : firstRetry;
    this.checkpoint = checkpoint;
  }

  /**
   * Opens the book kept under {@code dir} (created 0700 if missing) and restores every task and
   * every unacknowledged update from it. Restored heads are sent once a forwarder is attached (and
   * again when their framework subscribes).
   *
   * @param statusRetry the first resend interval of an unacknowledged update (Mesos: 10 s)
   */
  public static TaskBook open(Path dir, DeviceLedger ledger, Clock clock, Duration statusRetry)
      throws IOException {
    return open(dir, ledger, clock, statusRetry, TaskJournal.ForceHook.NONE);
  }

  /** As {@link #open(Path, DeviceLedger, Clock, Duration)}, with a hook on the journal's forces. */
  static TaskBook open(
      Path dir, DeviceLedger ledger, Clock clock, Duration statusRetry, TaskJournal.ForceHook hook)
      throws IOException {
    Path tasksDir =
        AtomicFiles.createDirectories(dir.resolve("tasks"), AtomicFiles.DIRECTORY_OWNER_ONLY);
    TaskCheckpoint checkpoint =
        TaskCheckpoint.open(tasksDir, clock, hook, TaskJournal.COMPACT_BYTES);
    TaskBook book;
    try {
      book = new TaskBook(ledger, clock, statusRetry, checkpoint);
    } catch (RuntimeException e) {
      checkpoint.close();
      throw e;
    }
    book.restore();
    return book;
  }

  private void restore() {
    synchronized (lock) {
      for (TaskCheckpoint.Row row : checkpoint.restored()) {
        TaskEntry e =
            new TaskEntry(
                row.framework(),
                row.task(),
                row.executor(),
                row.executorInfo(),
                row.deviceIds(),
                row.latest(),
                backoff());
        e.pending.addAll(row.pending());
        entries.put(e.holder(), e);
      }
      log.info("Restored {} Mesos task(s) from the task book", entries.size());
    }
  }

  /**
   * Sends updates through {@code next} from now on; the master attaches itself when it is built.
   *
   * <p>A restored head is not sent here but when its framework subscribes again ({@link
   * #resendUnacknowledged}). The master is built before any framework can subscribe, so a send now
   * reaches nobody, and one that the sender thread got to late, after a subscription that resends
   * the head itself, put the same update up twice.
   */
  public void attach(StatusForwarder next) {
    forwarder = Objects.requireNonNull(next, "forwarder");
  }

  /**
   * Adds a task the master has leased devices for, in TASK_STAGING, before the executor side sees
   * it. Returns once it is checkpointed.
   *
   * @param executor the executor it will run under (the task's ID for a command task)
   * @param executorInfo the custom executor, for a task that has one (its own, or its group's)
   */
  public void record(
      FrameworkInfo framework,
      LaunchedTask launched,
      ExecutorID executor,
      Optional<ExecutorInfo> executorInfo)
      throws IOException {
    recordAll(framework, List.of(new NewTask(launched, executor, executorInfo)));
  }

  /**
   * A task to record: what {@link #record} takes for one.
   *
   * @param executor the executor it will run under (the task's ID for a command task)
   * @param executorInfo the custom executor, for a task that has one (its own, or its group's)
   */
  public record NewTask(
      LaunchedTask launched, ExecutorID executor, Optional<ExecutorInfo> executorInfo) {}

  /**
   * Records the tasks of one operation, as {@link #record} does one, all or none: their rows share
   * one force of the journal, and when it fails none of them is recorded.
   */
  public void recordAll(FrameworkInfo framework, List<NewTask> tasks) throws IOException {
    List<TaskEntry> added = new ArrayList<>(tasks.size());
    for (NewTask t : tasks) {
      TaskStatus staging =
          TaskStatus.newBuilder()
              .setTaskId(t.launched().task().getTaskId())
              .setState(TaskState.TASK_STAGING)
              .setAgentId(t.launched().task().getAgentId())
              .setExecutorId(t.executor())
              .setTimestamp(now())
              .build();
      added.add(
          new TaskEntry(
              framework,
              t.launched().task(),
              t.executor(),
              t.executorInfo(),
              t.launched().deviceIds(),
              staging,
              backoff()));
    }
    long seq = 0;
    try {
      synchronized (lock) {
        for (TaskEntry e : added) {
          seq = checkpoint.write(e);
        }
      }
      checkpoint.await(seq);
    } catch (IOException ex) {
      synchronized (lock) {
        // Not recorded: a later force or compaction must not make the rows durable after all.
        for (TaskEntry e : added) {
          TaskEntry before = entries.get(e.holder());
          try {
            if (before == null) {
              checkpoint.delete(e);
            } else {
              checkpoint.write(before);
            }
          } catch (IOException again) {
            ex.addSuppressed(again);
          }
        }
      }
      throw ex;
    }
    synchronized (lock) {
      // Visible (to /state, reconciliation, updates) only once durable.
      added.forEach(e -> entries.put(e.holder(), e));
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>A status for a task the book does not know (its framework was torn down and the row is gone,
   * or it was never launched here) is logged and dropped.
   *
   * @throws UncheckedIOException when the checkpoint cannot be written: the caller must then not
   *     acknowledge the update to its executor, which will send it again
   */
  @Override
  public void update(FrameworkID framework, TaskStatus status) {
    Holder.MesosTask key =
        new Holder.MesosTask(framework.getValue(), status.getTaskId().getValue());
    boolean sendHead = false;
    boolean retiring;
    boolean terminal;
    TaskEntry e;
    long seq;
    synchronized (lock) {
      e = entries.get(key);
      if (e == null) {
        log.warn(
            "Dropped {} for task {} of framework {}, which this node does not know",
            status.getState(),
            ClientText.quote(key.taskId()),
            ClientText.quote(key.frameworkId()));
        return;
      }
      if (e.isTerminal()) {
        // Mesos's status update manager also refuses to move a task out of a terminal state.
        log.warn(
            "Dropped {} for task {}: it already ended {}",
            status.getState(),
            ClientText.quote(key.name()),
            e.latest.getState());
        return;
      }
      TaskStatus stamped = stamp(e, status);
      e.latest = stamped;
      if (!e.orphaned) {
        e.pending.add(stamped);
        sendHead = e.pending.size() == 1;
      }
      terminal = e.isTerminal();
      retiring = e.orphaned && terminal;
      try {
        seq = retiring ? checkpoint.delete(e) : checkpoint.write(e);
      } catch (IOException ex) {
        throw notDurable("the status of task", key, ex);
      }
      if (sendHead) {
        e.headSeq = seq;
      }
    }
    try {
      checkpoint.await(seq);
    } catch (IOException ex) {
      // The status stays in memory, as the executor may send it again; it is not sent up (nor the
      // lease released) by this call, since it is not durable.
      throw notDurable("the status of task", key, ex);
    }
    if (retiring) {
      synchronized (lock) {
        if (entries.get(key) == e) {
          forget(key, e);
        }
      }
    }
    if (terminal) {
      ledger.release(key);
      forwarder.released(key);
    }
    if (sendHead) {
      sendNow(key);
    }
  }

  /**
   * The status as it goes up: this agent, the executor, the devices and a time always filled in.
   */
  private TaskStatus stamp(TaskEntry e, TaskStatus status) {
    TaskStatus.Builder b = status.toBuilder();
    if (!b.hasUuid() || b.getUuid().isEmpty()) {
      b.setUuid(randomUuid());
    }
    b.setAgentId(e.task.getAgentId());
    if (!b.hasExecutorId()) {
      b.setExecutorId(e.executor);
    }
    if (!b.hasTimestamp()) {
      b.setTimestamp(now());
    }
    Labels.Builder labels = Labels.newBuilder();
    for (Label l : status.getLabels().getLabelsList()) {
      if (!l.getKey().equals(DEVICES_LABEL)) {
        labels.addLabels(l);
      }
    }
    labels.addLabels(
        Label.newBuilder().setKey(DEVICES_LABEL).setValue(String.join(",", e.deviceIds)));
    return b.setLabels(labels).build();
  }

  /**
   * The scheduler's ACKNOWLEDGE of {@code uuid}: when it is the task's head, the head is dropped
   * (checkpointed before this returns) and the next update is sent.
   *
   * @return false when no such update is outstanding (an old or duplicate acknowledgement, or one
   *     of an update the master made up): Mesos ignores those too
   */
  public boolean acknowledge(FrameworkID framework, TaskID task, ByteString uuid) {
    Holder.MesosTask key = new Holder.MesosTask(framework.getValue(), task.getValue());
    TaskEntry e;
    TaskStatus acknowledged;
    long headBefore;
    boolean retiring;
    // Whether this acknowledgement makes a queued update the head, and so must send it. An update
    // that arrives after it finds the stream empty and sends itself: sending the head again here
    // as well would put it up twice.
    boolean nextQueued;
    long seq;
    synchronized (lock) {
      e = entries.get(key);
      if (e == null || e.pending.isEmpty() || !e.pending.peekFirst().getUuid().equals(uuid)) {
        return false;
      }
      acknowledged = e.pending.removeFirst();
      nextQueued = !e.pending.isEmpty();
      e.cancelRetry();
      e.backoff.reset();
      headBefore = e.headSeq;
      retiring = e.pending.isEmpty() && e.isTerminal();
      try {
        seq = retiring ? checkpoint.delete(e) : checkpoint.write(e);
      } catch (IOException ex) {
        e.pending.addFirst(acknowledged);
        throw notDurable("the acknowledgement of task", key, ex);
      }
      // The next head was recorded before this record: sendable once this one is durable.
      e.headSeq = seq;
    }
    UncheckedIOException lost = null;
    try {
      checkpoint.await(seq);
    } catch (IOException ex) {
      synchronized (lock) {
        // The acknowledgement is lost: the update it acknowledged (not the latest, which may be
        // queued behind it) is the head again, durable as it was, and is resent to be
        // acknowledged again. The row is appended again so that no later force or compaction
        // makes the lost acknowledgement durable after all.
        if (entries.get(key) == e && !e.orphaned) {
          e.pending.addFirst(acknowledged);
          e.headSeq = headBefore;
          try {
            checkpoint.write(e);
          } catch (IOException again) {
            ex.addSuppressed(again);
          }
        }
      }
      lost = notDurable("the acknowledgement of task", key, ex);
    }
    boolean send;
    synchronized (lock) {
      if (lost == null && retiring && entries.get(key) == e) {
        forget(key, e);
      }
      // A lost acknowledgement made the acknowledged update the head again: it goes up again.
      send = lost != null ? !e.pending.isEmpty() : nextQueued;
    }
    if (send) {
      sendNow(key);
    }
    if (lost != null) {
      throw lost;
    }
    return true;
  }

  /** A framework (re)subscribed: send each of its tasks' outstanding head now. */
  public void resendUnacknowledged(FrameworkID framework) {
    List<Holder.MesosTask> heads = new ArrayList<>();
    synchronized (lock) {
      entries.forEach(
          (k, e) -> {
            if (k.frameworkId().equals(framework.getValue()) && !e.pending.isEmpty()) {
              e.cancelRetry();
              e.backoff.reset();
              heads.add(k);
            }
          });
    }
    heads.forEach(k -> sendNow(k));
  }

  /**
   * The framework was torn down: its unacknowledged updates are dropped, rows of ended tasks go,
   * and rows of running tasks stay (holding their devices) until the executor side reports them
   * ended.
   */
  public void removeFramework(FrameworkID framework) {
    long last = 0;
    synchronized (lock) {
      for (Map.Entry<Holder.MesosTask, TaskEntry> en : new ArrayList<>(entries.entrySet())) {
        if (!en.getKey().frameworkId().equals(framework.getValue())) {
          continue;
        }
        TaskEntry e = en.getValue();
        e.orphaned = true;
        e.pending.clear();
        e.cancelRetry();
        try {
          if (e.isTerminal()) {
            last = checkpoint.delete(e);
            forget(en.getKey(), e);
          } else {
            last = checkpoint.write(e);
          }
        } catch (IOException ex) {
          log.error(
              "Could not checkpoint the teardown of task {}",
              ClientText.quote(en.getKey().name()),
              ex);
        }
      }
    }
    if (last > 0) {
      try {
        checkpoint.await(last);
      } catch (IOException ex) {
        log.error(
            "Could not checkpoint the teardown of framework {}",
            ClientText.quote(framework.getValue()),
            ex);
      }
    }
  }

  /**
   * After the executor side recovered: every task it does not know is reported gone (its process
   * did not survive the restart), and every Mesos lease in the ledger that no live task of the book
   * explains is released, so a crash between leasing and checkpointing frees its devices.
   *
   * <p>Frameworks that are PARTITION_AWARE get TASK_GONE, the others TASK_LOST: the task is known
   * not to run any more, which is what TASK_GONE says, but Mesos sends the partition-aware states
   * only to frameworks that asked for them, and TASK_LOST is what the others understand.
   */
  public void afterRecovery(Set<Holder.MesosTask> knownToContainers) {
    List<TaskView> lost = new ArrayList<>();
    synchronized (lock) {
      for (Map.Entry<Holder.MesosTask, TaskEntry> en : entries.entrySet()) {
        if (!en.getValue().isTerminal() && !knownToContainers.contains(en.getKey())) {
          lost.add(en.getValue().view());
        }
      }
    }
    for (TaskView t : lost) {
      boolean partitionAware =
          t.framework().getCapabilitiesList().stream()
              .anyMatch(c -> c.getType() == FrameworkInfo.Capability.Type.PARTITION_AWARE);
      log.warn("Task {} did not survive the agent's restart", ClientText.quote(t.holder().name()));
      update(
          t.framework().getId(),
          TaskStatus.newBuilder()
              .setTaskId(t.task().getTaskId())
              .setState(partitionAware ? TaskState.TASK_GONE : TaskState.TASK_LOST)
              .setSource(TaskStatus.Source.SOURCE_AGENT)
              .setReason(TaskStatus.Reason.REASON_AGENT_RESTARTED)
              .setMessage("The agent restarted and the task's process did not survive")
              .build());
    }
    Set<Holder.MesosTask> stale = new LinkedHashSet<>();
    synchronized (lock) {
      for (Lease l : ledger.current().leases()) {
        if (l.holder() instanceof Holder.MesosTask m) {
          TaskEntry e = entries.get(m);
          // A task the containers run keeps its devices even if its row was lost.
          if ((e == null || e.isTerminal()) && !knownToContainers.contains(m)) {
            stale.add(m);
          }
        }
      }
    }
    for (Holder.MesosTask m : stale) {
      log.info("Released the devices of {}, which is not running", m.describe());
      ledger.release(m);
    }
  }

  @Override
  public void messageFromExecutor(FrameworkID framework, ExecutorID executor, ByteString data) {
    forwarder.message(framework, executor, data);
  }

  /** A task the book has, running or recently completed. */
  public Optional<TaskView> task(FrameworkID framework, TaskID task) {
    Holder.MesosTask key = new Holder.MesosTask(framework.getValue(), task.getValue());
    synchronized (lock) {
      TaskEntry e = entries.get(key);
      if (e != null) {
        return Optional.of(e.view());
      }
      for (TaskView done : completed) {
        if (done.holder().equals(key)) {
          return Optional.of(done);
        }
      }
      return Optional.empty();
    }
  }

  /** Every task with a row: running, or ended with updates not yet acknowledged. */
  public List<TaskView> tasks() {
    synchronized (lock) {
      return entries.values().stream().map(TaskEntry::view).toList();
    }
  }

  /** Tasks that ended and whose every update was acknowledged, newest last. */
  public List<TaskView> completed() {
    synchronized (lock) {
      return List.copyOf(completed);
    }
  }

  /** Moves a row whose deletion was appended to the completed tasks. */
  @GuardedBy("lock")
  private void forget(Holder.MesosTask key, TaskEntry e) {
    entries.remove(key);
    e.cancelRetry();
    completed.addLast(e.view());
    while (completed.size() > COMPLETED_KEPT) {
      completed.removeFirst();
    }
  }

  /**
   * Sends the head of {@code key}'s stream on the sender thread and schedules its resend, unless a
   * delivery is queued already: that one sends whatever the head is when it runs.
   */
  private void sendNow(Holder.MesosTask key) {
    synchronized (lock) {
      TaskEntry e = entries.get(key);
      if (e == null || e.deliveryQueued) {
        return;
      }
      e.deliveryQueued = true;
    }
    try {
      sender.execute(() -> deliverHead(key, true));
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  /** A retry: counted, since a rising count means a scheduler is not acknowledging. */
  private void resendHead(Holder.MesosTask key) {
    synchronized (lock) {
      TaskEntry e = entries.get(key);
      if (e == null || e.pending.isEmpty()) {
        return;
      }
    }
    resends.incrementAndGet();
    deliverHead(key, false);
  }

  /**
   * Why the task checkpoint cannot be written, when its last write failed: tasks then cannot be
   * launched or their statuses acknowledged until it can.
   */
  public Optional<String> checkpointProblem() {
    return checkpoint
        .failing()
        .map(
            f ->
                "the Mesos task checkpoint cannot be written since "
                    + f.since()
                    + " ("
                    + f.problem()
                    + "); task launches and status updates are refused until it can");
  }

  /** Whether the thread that sends and resends status updates still runs. */
  public boolean alive() {
    return !sender.isShutdown();
  }

  /** Status updates resent because they were not acknowledged in time, since this start. */
  public long statusUpdateRetries() {
    return resends.get();
  }

  /**
   * @param queued whether this is the delivery {@link #sendNow} queued (not a retry): it takes the
   *     head as it is now, so a send asked for from here on needs a delivery of its own
   */
  private void deliverHead(Holder.MesosTask key, boolean queued) {
    TaskStatus head;
    FrameworkID framework;
    synchronized (lock) {
      TaskEntry e = entries.get(key);
      if (e != null && queued) {
        e.deliveryQueued = false;
      }
      if (e == null || e.pending.isEmpty()) {
        return;
      }
      head = e.pending.peekFirst();
      framework = e.framework.getId();
      e.cancelRetry();
      Duration wait = e.backoff.next();
      try {
        e.retry = sender.schedule(() -> resendHead(key), wait.toNanos(), TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException closed) {
        return;
      }
      if (!checkpoint.durable(e.headSeq)) {
        // Not on disk yet: whoever appended it sends it once it is (or the retry, if that write
        // failed and a later one carried it).
        return;
      }
    }
    try {
      forwarder.forward(framework, head);
    } catch (RuntimeException ex) {
      log.error("Forwarding the status of {} failed", key.name(), ex);
    }
  }

  private Backoff backoff() {
    return new Backoff(firstRetry, MAX_RETRY);
  }

  /**
   * A change of {@code key}'s row that did not reach the disk. The task's name is a scheduler's
   * text, quoted and escaped, since the message ends up in logs and HTTP answers.
   */
  private static UncheckedIOException notDurable(
      String what, Holder.MesosTask key, IOException cause) {
    return new UncheckedIOException(
        "could not checkpoint " + what + " " + ClientText.quote(key.name()), cause);
  }

  private double now() {
    return clock.millis() / 1000.0;
  }

  static ByteString randomUuid() {
    UUID u = UUID.randomUUID();
    ByteBuffer b = ByteBuffer.allocate(16);
    b.putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
    return ByteString.copyFrom(b.array());
  }

  /** Stops resending; the rows stay on disk for the next start. */
  @Override
  public void close() {
    sender.shutdownNow();
    checkpoint.close();
  }
}
