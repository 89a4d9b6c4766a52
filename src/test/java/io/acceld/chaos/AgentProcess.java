package io.acceld.chaos;

import io.acceld.testing.Waits;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The shipped jar as a real child process ({@code acceld run}), as an operator runs it, with its
 * metrics address fixed across restarts so that {@code /devices} is always asked at one place.
 * {@link #killNine} is SIGKILL: no shutdown hook, no final checkpoint write.
 */
final class AgentProcess implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

  private final Process process;
  private final Path log;
  private final int metricsPort;

  private AgentProcess(Process process, Path log, int metricsPort) {
    this.process = process;
    this.log = log;
    this.metricsPort = metricsPort;
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /**
   * Starts {@code acceld run} with {@code flags} (keys without dashes; an empty value is a switch)
   * and its metrics on {@code metricsPort}, logging to {@code log}. The JVM flags are the shipped
   * launcher's start-up ones (C1 only, SerialGC), so a restart costs what it costs on a node.
   */
  static AgentProcess start(Map<String, String> flags, int metricsPort, Path log)
      throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Djava.io.tmpdir=" + Files.createDirectories(log.resolveSibling("tmp")),
                "-jar",
                System.getProperty("acceld.jar", "target/acceld.jar"),
                "run"));
    flags.forEach(
        (k, v) -> {
          command.add("--" + k);
          if (!v.isEmpty()) { // an empty value: a switch such as --simulate
            command.add(v);
          }
        });
    command.add("--metrics-address");
    command.add("127.0.0.1:" + metricsPort);
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new AgentProcess(p, log, metricsPort);
  }

  /** SIGKILL, and waits for the process to be gone. */
  void killNine() throws InterruptedException {
    process.destroyForcibly();
    if (!Waits.exited(process, Duration.ofSeconds(10))) {
      throw new AssertionError("the agent survived SIGKILL for 10 s");
    }
  }

  boolean alive() {
    return process.isAlive();
  }

  /** The ledger as the operator sees it, or empty while the agent does not answer. */
  Optional<Map<String, Holding>> devices() {
    return get("/devices")
        .filter(r -> r.statusCode() == 200)
        .flatMap(
            r -> {
              try {
                return Optional.of(Holding.parse(r.body()));
              } catch (IOException e) {
                throw new AssertionError("/devices is not the device JSON: " + r.body(), e);
              }
            });
  }

  /** {@code GET path} on the metrics address, or empty while nothing answers. */
  Optional<HttpResponse<String>> get(String path) {
    try {
      return Optional.of(
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + path))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString()));
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** The agent's output so far, for failure messages. */
  String log() {
    try {
      String all = Files.readString(log, StandardCharsets.UTF_8);
      return all.length() > 4000 ? "..." + all.substring(all.length() - 4000) : all;
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      killNine();
    }
  }
}
