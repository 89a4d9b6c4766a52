package io.acceld.testing;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Kills what a test started, for an {@code @AfterEach} that closes an executor or agent which, by
 * design, leaves its tasks running. Killing the descendants listed at one instant is not enough: a
 * task's wrapper leads its own process group and may be forking its command at that instant, and a
 * child whose parent dies first is re-parented to init, no longer a descendant. So every group a
 * descendant leads (not this JVM's own) is killed whole, and the table is read again until neither
 * a descendant nor a member of those groups is left.
 */
public final class ProcessCleanup {
  private static final Duration LIMIT = Duration.ofSeconds(10);
  private static final long SELF = ProcessHandle.current().pid();
  private static final int SIGKILL = 9;

  private interface LibC extends Library {
    int kill(int pid, int sig);
  }

  private ProcessCleanup() {}

  /** Kills every descendant of this JVM and every process group one of them led, and waits. */
  public static void killEverythingStarted() {
    LibC libc = Native.load("c", LibC.class);
    ProcessTable.Entry self =
        ProcessTable.read()
            .get(SELF)
            .orElseThrow(() -> new IllegalStateException("this JVM is not in /proc"));
    Set<Long> groups = new HashSet<>();
    long deadline = System.nanoTime() + Waits.scaled(LIMIT).toNanos();
    while (true) {
      ProcessTable table = ProcessTable.read();
      List<ProcessTable.Entry> descendants =
          table.descendantsOf(SELF).stream()
              .map(table::get)
              .flatMap(Optional::stream)
              .filter(ProcessTable.Entry::alive)
              .toList();
      for (ProcessTable.Entry e : descendants) {
        if (e.pgrp() > 1 && e.pgrp() != self.pgrp() && e.pgrp() != self.session()) {
          groups.add(e.pgrp());
        }
      }
      List<ProcessTable.Entry> left =
          Stream.concat(descendants.stream(), groups.stream().flatMap(g -> table.group(g).stream()))
              .distinct()
              .toList();
      if (left.isEmpty()) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(
            "processes the test started are still alive "
                + Waits.scaled(LIMIT).toSeconds()
                + " s after SIGKILL: "
                + left.stream().map(e -> ProcessTable.describe(e.pid())).toList());
      }
      for (long group : groups) {
        libc.kill(-(int) group, SIGKILL);
      }
      for (ProcessTable.Entry e : left) {
        ProcessHandle.of(e.pid()).ifPresent(ProcessHandle::destroyForcibly);
      }
      ProcessTable.awaitAnyExit(
          left.stream().map(ProcessTable.Entry::pid).toList(), Duration.ofMillis(200));
    }
  }
}
