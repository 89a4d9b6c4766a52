package io.acceld.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Every process on the machine at one instant, as {@code /proc/PID/stat} shows it: what {@link
 * ProcessHandle} cannot tell, namely a process's group and session, which a task keeps when its
 * parent dies and it is re-parented to init, and whether it is a zombie.
 */
public final class ProcessTable {
  /** A process's identity: a pid with its start, so a reused pid is another process. */
  public record Key(long pid, long startTicks) {}

  /** One line of {@code /proc/PID/stat}, the fields tests need. */
  public record Entry(long pid, char state, long ppid, long pgrp, long session, long startTicks) {
    public Key key() {
      return new Key(pid, startTicks);
    }

    /** Running or sleeping; a zombie has exited and only waits for its parent to reap it. */
    public boolean alive() {
      return state != 'Z' && state != 'X' && state != 'x';
    }
  }

  private static final Path PROC = Path.of("/proc");
  private static final int MAX_COMMAND_CHARS = 200;

  private final Map<Long, Entry> byPid;

  private ProcessTable(Map<Long, Entry> byPid) {
    this.byPid = byPid;
  }

  /** The table now. Processes that exit while it is read are simply not in it. */
  public static ProcessTable read() {
    Map<Long, Entry> entries = new HashMap<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC, "[0-9]*")) {
      for (Path dir : dirs) {
        parse(dir).ifPresent(e -> entries.put(e.pid(), e));
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot list " + PROC + ": " + e, e);
    }
    return new ProcessTable(entries);
  }

  private static Optional<Entry> parse(Path dir) {
    String stat;
    try {
      stat = Files.readString(dir.resolve("stat"), StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // exited meanwhile
    }
    // "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime
    // stime cutime cstime priority nice threads itrealvalue starttime ...": comm may hold spaces
    // and parentheses, so the fields are counted from the last ')'.
    int close = stat.lastIndexOf(')');
    if (close < 0) {
      return Optional.empty();
    }
    String[] f = stat.substring(close + 2).trim().split(" ");
    if (f.length < 20) {
      return Optional.empty();
    }
    long pid = Long.parseLong(stat.substring(0, stat.indexOf(' ')));
    return Optional.of(
        new Entry(
            pid,
            f[0].charAt(0),
            Long.parseLong(f[1]),
            Long.parseLong(f[2]),
            Long.parseLong(f[3]),
            Long.parseLong(f[19])));
  }

  public Collection<Entry> all() {
    return byPid.values();
  }

  public Optional<Entry> get(long pid) {
    return Optional.ofNullable(byPid.get(pid));
  }

  /** Whether {@code key}'s process is in the table and has not exited. */
  public boolean isAlive(Key key) {
    Entry e = byPid.get(key.pid());
    return e != null && e.startTicks() == key.startTicks() && e.alive();
  }

  /** The live members of process group {@code pgrp}. */
  public List<Entry> group(long pgrp) {
    return byPid.values().stream().filter(e -> e.pgrp() == pgrp && e.alive()).toList();
  }

  /** Every process below {@code pid}, following parent links in this table. */
  public Set<Long> descendantsOf(long pid) {
    Map<Long, List<Long>> children = new HashMap<>();
    for (Entry e : byPid.values()) {
      children.computeIfAbsent(e.ppid(), k -> new ArrayList<>()).add(e.pid());
    }
    Set<Long> found = new HashSet<>();
    List<Long> todo = new ArrayList<>(children.getOrDefault(pid, List.of()));
    while (!todo.isEmpty()) {
      long next = todo.remove(todo.size() - 1);
      if (found.add(next)) {
        todo.addAll(children.getOrDefault(next, List.of()));
      }
    }
    return found;
  }

  /** {@code pid} and its ancestors up to init. */
  public Set<Long> ancestryOf(long pid) {
    Set<Long> chain = new HashSet<>();
    Entry e = byPid.get(pid);
    while (e != null && chain.add(e.pid())) {
      e = byPid.get(e.ppid());
    }
    return chain;
  }

  /** A process's command line for a failure message, bounded; its name if the line is gone. */
  public static String describe(long pid) {
    String command;
    try {
      byte[] raw = Files.readAllBytes(PROC.resolve(Long.toString(pid)).resolve("cmdline"));
      command = new String(raw, StandardCharsets.UTF_8).replace('\0', ' ').strip();
    } catch (IOException | RuntimeException e) {
      command = "";
    }
    if (command.length() > MAX_COMMAND_CHARS) {
      command = command.substring(0, MAX_COMMAND_CHARS) + "...";
    }
    return "pid " + pid + " (" + (command.isEmpty() ? "?" : command) + ")";
  }

  /**
   * Waits until one of {@code pids} exits, for at most {@code atMost} (ProcessHandle's exit notice
   * works for processes that are not this JVM's children too); at once if one is gone already. The
   * caller then reads the table again, since a dying process may leave children.
   */
  public static void awaitAnyExit(Collection<Long> pids, Duration atMost) {
    CompletableFuture<?>[] exits =
        pids.stream()
            .map(ProcessHandle::of)
            .flatMap(Optional::stream)
            .map(ProcessHandle::onExit)
            .toArray(CompletableFuture<?>[]::new);
    if (exits.length < pids.size()) {
      return;
    }
    try {
      CompletableFuture.anyOf(exits).get(Math.max(0, atMost.toNanos()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // still running: the caller decides whether to wait again
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for processes to exit", e);
    }
  }
}
