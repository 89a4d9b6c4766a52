package io.acceld.testing;

import io.acceld.util.GuardedBy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * No process a test starts outlives it. Registered for every test (JUnit's extension
 * auto-detection, {@code junit-platform.properties}); each test, and each class for what its
 * {@code @BeforeAll} starts, is watched from before its first callback to after its last.
 *
 * <p>A process belongs to the test if it was not running when the test began and it is, or was seen
 * to be, a descendant of this JVM, or it shares a process group or session with one that was. The
 * second half matters: a task's wrapper leads its own group ({@code setsid}), and a child whose
 * parent is killed first is re-parented to init and is no longer anyone's descendant, but it keeps
 * its group and session. So the process table is sampled while the test runs, and the groups and
 * sessions of the test's descendants are remembered.
 *
 * <p>After the test, what is still alive gets {@link #GRACE} (scaled by {@link Waits}) to exit, for
 * a close that signalled it a moment ago; then it is killed and the test fails naming each process
 * and its command line.
 */
public final class ProcessLeakExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
  static final Duration GRACE = Duration.ofSeconds(2);
  private static final Duration SAMPLE_EVERY = Duration.ofMillis(200);
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(ProcessLeakExtension.class);

  private static final long SELF = ProcessHandle.current().pid();

  @Override
  public void beforeAll(ExtensionContext context) {
    start(context);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    finish(context, "the class " + context.getDisplayName());
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    start(context);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    finish(context, context.getDisplayName());
  }

  private static void start(ExtensionContext context) {
    Sampler sampler =
        context
            .getRoot()
            .getStore(NAMESPACE)
            .getOrComputeIfAbsent(Sampler.class, k -> new Sampler(), Sampler.class);
    Watch watch = new Watch(ProcessTable.read());
    context.getStore(NAMESPACE).put(Watch.class, watch);
    sampler.add(watch);
  }

  private static void finish(ExtensionContext context, String what) {
    Watch watch = context.getStore(NAMESPACE).remove(Watch.class, Watch.class);
    if (watch == null) {
      return;
    }
    context.getRoot().getStore(NAMESPACE).get(Sampler.class, Sampler.class).remove(watch);
    watch.sample(ProcessTable.read());
    List<ProcessTable.Key> left = new ArrayList<>();
    long deadline = System.nanoTime() + Waits.scaled(GRACE).toNanos();
    while (true) {
      ProcessTable now = ProcessTable.read();
      left = watch.survivors(now);
      if (left.isEmpty() || System.nanoTime() - deadline > 0) {
        break;
      }
      watch.sample(now);
      ProcessTable.awaitAnyExit(
          left.stream().map(ProcessTable.Key::pid).toList(),
          Duration.ofNanos(Math.min(SAMPLE_EVERY.toNanos(), deadline - System.nanoTime())));
    }
    if (left.isEmpty()) {
      return;
    }
    List<String> described = new ArrayList<>();
    for (ProcessTable.Key key : left) {
      described.add(ProcessTable.describe(key.pid()));
    }
    for (ProcessTable.Key key : left) {
      ProcessHandle.of(key.pid()).ifPresent(ProcessHandle::destroyForcibly);
    }
    throw new AssertionError(
        what
            + " left "
            + left.size()
            + " process(es) running "
            + Waits.scaled(GRACE).toSeconds()
            + " s after it ended (now killed): "
            + String.join(", ", described));
  }

  /** What one test (or class) started, as far as the samples saw. */
  static final class Watch {
    private final Set<ProcessTable.Key> before = new HashSet<>();
    private final long ownGroup;
    private final long ownSession;

    @GuardedBy("this")
    private final Set<ProcessTable.Key> seen = new HashSet<>();

    @GuardedBy("this")
    private final Set<Long> groups = new HashSet<>();

    @GuardedBy("this")
    private final Set<Long> sessions = new HashSet<>();

    Watch(ProcessTable start) {
      start.all().forEach(e -> before.add(e.key()));
      ProcessTable.Entry self =
          start.get(SELF).orElseThrow(() -> new IllegalStateException("this JVM is not in /proc"));
      ownGroup = self.pgrp();
      ownSession = self.session();
    }

    /** Remembers the test's descendants now, with their groups and sessions. */
    synchronized void sample(ProcessTable now) {
      for (long pid : now.descendantsOf(SELF)) {
        now.get(pid)
            .filter(e -> !before.contains(e.key()))
            .ifPresent(
                e -> {
                  seen.add(e.key());
                  // The JVM's own group and session hold Maven and the shell that ran it.
                  if (e.pgrp() != ownGroup) {
                    groups.add(e.pgrp());
                  }
                  if (e.session() != ownSession) {
                    sessions.add(e.session());
                  }
                });
      }
    }

    /** The test's processes still alive in {@code now}. */
    synchronized List<ProcessTable.Key> survivors(ProcessTable now) {
      Set<Long> descendants = now.descendantsOf(SELF);
      return now.all().stream()
          .filter(ProcessTable.Entry::alive)
          .filter(e -> !before.contains(e.key()))
          .filter(
              e ->
                  descendants.contains(e.pid())
                      || seen.contains(e.key())
                      || groups.contains(e.pgrp())
                      || sessions.contains(e.session()))
          .map(ProcessTable.Entry::key)
          .sorted(Comparator.comparingLong(ProcessTable.Key::pid))
          .toList();
    }
  }

  /** One named daemon thread that samples every running watch. */
  static final class Sampler implements ExtensionContext.Store.CloseableResource {
    private final ScheduledExecutorService thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "test-process-sampler");
              t.setDaemon(true);
              return t;
            });

    @GuardedBy("this")
    private final List<Watch> watches = new ArrayList<>();

    @GuardedBy("this")
    private ScheduledFuture<?> task;

    synchronized void add(Watch watch) {
      watches.add(watch);
      if (task == null) {
        task =
            thread.scheduleWithFixedDelay(
                this::sampleAll, 0, SAMPLE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
      }
    }

    synchronized void remove(Watch watch) {
      watches.remove(watch);
      if (watches.isEmpty() && task != null) {
        task.cancel(false);
        task = null;
      }
    }

    private void sampleAll() {
      List<Watch> now;
      synchronized (this) {
        now = List.copyOf(watches);
      }
      if (now.isEmpty()) {
        return;
      }
      ProcessTable table;
      try {
        table = ProcessTable.read();
      } catch (RuntimeException e) {
        return; // the next sample tries again
      }
      now.forEach(w -> w.sample(table));
    }

    @Override
    public void close() {
      thread.shutdownNow();
    }
  }
}
