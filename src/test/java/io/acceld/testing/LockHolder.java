package io.acceld.testing;

import io.acceld.util.PidLock;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A process of its own holding a {@link PidLock}, as an agent holds its state directory: started by
 * {@link #start}, it takes the lock, says {@code locked} and keeps it until its stdin closes or it
 * is killed. POSIX locks belong to processes, so a lock another process must see held has to be
 * held by another process.
 */
public final class LockHolder implements AutoCloseable {
  private final Process process;

  private LockHolder(Process process) {
    this.process = process;
  }

  public static void main(String[] args) throws IOException {
    try (PidLock lock = PidLock.acquire(Path.of(args[0]))) {
      System.out.println("locked");
      System.out.flush();
      while (System.in.read() >= 0) {
        // hold until stdin closes
      }
    }
  }

  /** Starts a JVM holding {@code file}'s lock, and returns once it holds it. */
  public static LockHolder start(Path file) throws IOException {
    Process p =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:TieredStopAtLevel=1",
                    "-XX:+UseSerialGC",
                    "-cp",
                    System.getProperty("java.class.path"),
                    LockHolder.class.getName(),
                    file.toString()))
            .redirectErrorStream(true)
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine(); // blocks until it holds the lock, or ends
    if (!"locked".equals(line)) {
      p.destroyForcibly();
      throw new IOException("the lock holder did not take " + file + ": " + line);
    }
    return new LockHolder(p);
  }

  public long pid() {
    return process.pid();
  }

  @Override
  public void close() throws Exception {
    process.destroyForcibly();
    if (!Waits.exited(process, Duration.ofSeconds(10))) {
      throw new AssertionError("the lock holder survived SIGKILL");
    }
  }
}
