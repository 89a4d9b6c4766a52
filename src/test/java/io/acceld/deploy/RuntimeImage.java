package io.acceld.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.Waits;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;

/**
 * The installable tree that {@code deploy/image/build-runtime.sh} makes (jlinked runtime, jar,
 * launcher, AppCDS archive), built once under {@code target/runtime-image} and reused while the jar
 * and the scripts are unchanged: jlink and the training run take half a minute.
 */
final class RuntimeImage {
  static final Path SCRIPT = Path.of("deploy/image/build-runtime.sh");
  static final Path LAUNCHER = Path.of("deploy/bin/acceld");
  private static final Path PREFIX = Path.of("target/runtime-image");
  private static final Path FINGERPRINT = Path.of("target/runtime-image.fingerprint");

  private RuntimeImage() {}

  static Path jar() {
    return Path.of(System.getProperty("acceld.jar", "target/acceld.jar"));
  }

  static Path nativeProbes() {
    return Path.of(System.getProperty("acceld.nativeProbes", "target/native-probes"));
  }

  /** The tree's root ({@code bin/acceld}, {@code lib/acceld.jar}, {@code jre/}), built if stale. */
  static synchronized Path prefix() throws Exception {
    String fingerprint = fingerprint();
    if (Files.isExecutable(PREFIX.resolve("bin/acceld"))
        && Files.isRegularFile(FINGERPRINT)
        && Files.readString(FINGERPRINT).equals(fingerprint)) {
      return PREFIX.toAbsolutePath();
    }
    Files.deleteIfExists(FINGERPRINT);
    Path log = Path.of("target/runtime-image.log");
    ProcessBuilder build =
        new ProcessBuilder("bash", SCRIPT.toString(), jar().toString(), PREFIX.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    build.environment().put("ACCELD_NATIVE_PROBES", nativeProbes().toAbsolutePath().toString());
    build.environment().put("ACCELD_TRAINING_PORT", Integer.toString(freePort()));
    build.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Process process = build.start();
    if (!Waits.exited(process, Duration.ofMinutes(5))) {
      process.destroyForcibly();
      throw new AssertionError("build-runtime.sh did not finish in 5 minutes; see " + log);
    }
    assertThat(process.exitValue()).as("build-runtime.sh: %s", Files.readString(log)).isZero();
    Files.writeString(FINGERPRINT, fingerprint);
    return PREFIX.toAbsolutePath();
  }

  private static String fingerprint() throws IOException {
    Path jar = jar();
    return String.join(
        "\n",
        List.of(
            Long.toString(Files.size(jar)),
            Files.getLastModifiedTime(jar).toString(),
            sha256(SCRIPT),
            sha256(LAUNCHER),
            System.getProperty("java.home")));
  }

  private static String sha256(Path file) throws IOException {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  static String read(Path file) throws IOException {
    return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
  }
}
