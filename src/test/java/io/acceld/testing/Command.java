package io.acceld.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs a real program (git, bash, a build script) to completion and returns its exit code and its
 * merged output, for tests that check what a script or tool does rather than what its text says.
 */
public final class Command {
  /** On an idle machine; scaled by {@link Waits} (jlink and a training run take most of it). */
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  /** What a finished program left: its exit code and everything it wrote (stdout then stderr). */
  public record Result(int exitCode, String output) {
    /** The output, or an AssertionError carrying it when the program failed. */
    public String ok() {
      if (exitCode != 0) {
        throw new AssertionError("exit " + exitCode + ":\n" + output);
      }
      return output;
    }
  }

  private Command() {}

  public static Result run(Path dir, Map<String, String> env, List<String> command) {
    return run(dir, env, command, TIMEOUT);
  }

  /** As above, for a program that takes longer than a minute on an idle machine. */
  public static Result run(
      Path dir, Map<String, String> env, List<String> command, Duration idleTimeout) {
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
    builder.redirectErrorStream(true);
    builder.environment().putAll(env);
    try {
      Process process = builder.start();
      process.getOutputStream().close();
      CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> readAll(process));
      Duration timeout = Waits.scaled(idleTimeout);
      if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
        // The program's children too (a script's jlink, say), which outlive it otherwise.
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        throw new AssertionError(command + " did not finish within " + timeout);
      }
      return new Result(process.exitValue(), output.get(10, TimeUnit.SECONDS));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new AssertionError(command + " failed to run", e);
    }
  }

  public static Result run(Path dir, String... command) {
    return run(dir, Map.of(), List.of(command));
  }

  private static String readAll(Process process) {
    try {
      return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
