package io.acceld.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What the kernel says about one process: resident memory and threads from {@code
 * /proc/PID/status}, CPU time from {@code /proc/PID/stat}. The agent is measured from outside, as
 * an operator's {@code top} would see it, not by the JVM's own idea of its memory.
 */
final class ProcFacts {
  private final long clockTicksPerSecond;

  ProcFacts(long clockTicksPerSecond) {
    this.clockTicksPerSecond = clockTicksPerSecond;
  }

  /** {@code getconf CLK_TCK}: the unit of utime and stime (100 on every common Linux). */
  static ProcFacts forThisMachine() {
    try {
      Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      return new ProcFacts(p.waitFor() == 0 ? Long.parseLong(out) : 100);
    } catch (IOException | NumberFormatException e) {
      return new ProcFacts(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new ProcFacts(100);
    }
  }

  /** VmRSS in bytes. */
  long rssBytes(long pid) {
    return statusField(pid, "VmRSS:") * 1024;
  }

  long threads(long pid) {
    return statusField(pid, "Threads:");
  }

  /** utime + stime, in seconds. */
  double cpuSeconds(long pid) {
    String stat = read(Path.of("/proc", Long.toString(pid), "stat"));
    // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // fields 14 and 15
    return (double) ticks / clockTicksPerSecond;
  }

  /** A thread's (or same-named threads') time on a CPU and how many times it was scheduled. */
  record ThreadCpu(String name, long nanos, long runs) {
    ThreadCpu plus(ThreadCpu other) {
      return new ThreadCpu(name, nanos + other.nanos, runs + other.runs);
    }

    ThreadCpu minus(ThreadCpu other) {
      return new ThreadCpu(name, nanos - other.nanos, runs - other.runs);
    }
  }

  /**
   * Time on a CPU by thread id, from {@code /proc/PID/task/TID/schedstat} (the scheduler's own
   * nanoseconds and run count, where {@code stat}'s ticks are 10 ms apiece): where an idle window's
   * CPU went, and how often each thread woke for it.
   */
  Map<Long, ThreadCpu> cpuByThread(long pid) {
    Map<Long, ThreadCpu> cpu = new TreeMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        try {
          String name = read(task.resolve("comm")).trim();
          String[] sched = read(task.resolve("schedstat")).trim().split(" ");
          cpu.put(
              Long.parseLong(task.getFileName().toString()),
              new ThreadCpu(name, Long.parseLong(sched[0]), Long.parseLong(sched[2])));
        } catch (UncheckedIOException e) {
          // the thread ended between the listing and the read
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return cpu;
  }

  /**
   * What each thread name used between {@code before} and {@code after} as "name ms/runs", busiest
   * first, threads that did not run left out. Differences are taken per thread id, then summed by
   * name (pools, the compiler's threads): the JVM starts and ends compiler threads as it needs
   * them, so a name-level difference could go negative. A thread that ended inside the window is
   * missing here, though the process total counts it.
   */
  static String busiest(Map<Long, ThreadCpu> before, Map<Long, ThreadCpu> after) {
    Map<String, ThreadCpu> byName = new TreeMap<>();
    after.forEach(
        (tid, now) -> {
          ThreadCpu then = before.get(tid);
          ThreadCpu used =
              then != null && then.name().equals(now.name())
                  ? now.minus(then)
                  : now; // new in the window (or a reused id): all of its time is the window's
          byName.merge(now.name(), used, ThreadCpu::plus);
        });
    return byName.values().stream()
        .filter(t -> t.runs() > 0)
        .sorted(Comparator.comparingLong(ThreadCpu::nanos).reversed())
        .map(t -> String.format(Locale.ROOT, "%s %.1f/%d", t.name(), t.nanos() / 1e6, t.runs()))
        .collect(Collectors.joining(", "));
  }

  /**
   * The java process at or below {@code pid}: the launcher and {@code env} exec java, so it is
   * normally {@code pid} itself, but a wrapper that forks (sh -c without exec) leaves it a child.
   */
  static Optional<Long> javaProcess(long pid) {
    Deque<Long> todo = new ArrayDeque<>();
    todo.add(pid);
    while (!todo.isEmpty()) {
      long p = todo.poll();
      Path proc = Path.of("/proc", Long.toString(p));
      try {
        if (read(proc.resolve("comm")).trim().equals("java")) {
          return Optional.of(p);
        }
        for (String child : read(proc.resolve("task/" + p + "/children")).trim().split("\\s+")) {
          if (!child.isEmpty()) {
            todo.add(Long.parseLong(child));
          }
        }
      } catch (UncheckedIOException e) {
        // gone meanwhile: not the one
      }
    }
    return Optional.empty();
  }

  private long statusField(long pid, String name) {
    for (String line : read(Path.of("/proc", Long.toString(pid), "status")).split("\n")) {
      if (line.startsWith(name)) {
        return Long.parseLong(line.substring(name.length()).trim().split("\\s+")[0]);
      }
    }
    throw new IllegalStateException("no " + name + " in /proc/" + pid + "/status");
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
