package io.acceld.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.Command;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What an operator installs, made once for the tests that need it: the release artefacts that
 * {@code deploy/release/build.sh} makes (the tree from {@code deploy/image/build-runtime.sh}, the
 * script the Dockerfile runs too: jlinked runtime, jar, launcher, AppCDS trainer), and that
 * release's tarball installed by its own {@code install.sh} with no JDK on the {@code PATH}, which
 * makes the AppCDS archive in place. Both live under {@code target/release-it} and are reused while
 * the jar, the deploy scripts and the JDK are unchanged: jlink and the training run take a minute.
 */
final class RuntimeImage {
  static final Path SCRIPT = Path.of("deploy/image/build-runtime.sh");
  static final Path RELEASE_BUILD = Path.of("deploy/release/build.sh");
  private static final Path WORK = Path.of("target/release-it").toAbsolutePath();
  private static final Path FINGERPRINT = WORK.resolve("fingerprint");
  private static final Path LOCK = WORK.resolveSibling("release-it.lock");
  private static final List<Path> INPUTS =
      List.of(
          Path.of("deploy/release"),
          Path.of("deploy/image"),
          Path.of("deploy/bin"),
          Path.of("deploy/systemd"),
          Path.of("deploy/grafana"),
          Path.of("deploy/gpu-check.sh"),
          Path.of("deploy/gpu-check-compare.py"));

  /** On an idle machine; {@link Command} scales it. */
  static final Duration BUILD_TIME = Duration.ofMinutes(4);

  /** A failed build or install, given again to every later test instead of a rebuild each. */
  private static AssertionError failed;

  /** Built (or found current) in this JVM: the inputs do not change while the tests run. */
  private static boolean current;

  private RuntimeImage() {}

  static Path jar() {
    return Path.of(System.getProperty("acceld.jar", "target/acceld.jar"));
  }

  static Path nativeProbes() {
    return Path.of(System.getProperty("acceld.nativeProbes", "target/native-probes"));
  }

  /** The directory holding the tarball, the .deb and {@code sha256sums}. */
  static Path release() {
    refresh();
    return WORK.resolve("release");
  }

  /** The root the tarball was installed into ({@code opt/acceld}, {@code etc}, {@code usr}). */
  static Path installRoot() {
    refresh();
    return WORK.resolve("root");
  }

  /** The installed tree ({@code bin/acceld}, {@code lib/acceld.jar}, {@code jre/}). */
  static Path prefix() {
    return installRoot().resolve("opt/acceld");
  }

  /** The environment install.sh ran in: no JDK reachable, every path under {@code root}. */
  static Map<String, String> installEnvironment(Path root) {
    Map<String, String> env = noJdk();
    env.put("PREFIX", root.resolve("opt/acceld").toString());
    env.put("UNIT_DIR", root.resolve("etc/systemd/system").toString());
    env.put("ENV_FILE", root.resolve("etc/default/acceld").toString());
    env.put("CONFIG_DIR", root.resolve("etc/acceld").toString());
    env.put("BIN_DIR", root.resolve("usr/local/bin").toString());
    env.put(
        "COMPLETION_DIR", root.resolve("usr/local/share/bash-completion/completions").toString());
    env.put("ACCELD_TRAINING_PORT", Integer.toString(freePort()));
    return env;
  }

  /** Runs the release build from {@link #jar()} into {@code out} under {@code umask}. */
  static void buildRelease(String umask, Path out) {
    Command.run(
            Path.of("."),
            Map.of("JAVA_HOME", System.getProperty("java.home")),
            List.of(
                "sh",
                "-c",
                "umask " + umask + " && exec bash \"$0\" \"$@\"",
                RELEASE_BUILD.toString(),
                jar().toString(),
                out.toString()),
            BUILD_TIME)
        .ok();
  }

  /** {@code env} with {@code flags} for the launcher to add to the JVM's. */
  static Map<String, String> withJvmFlags(Map<String, String> env, String flags) {
    Map<String, String> with = new java.util.HashMap<>(env);
    with.put("ACCELD_JVM_EXTRA_FLAGS", flags);
    return with;
  }

  /** The release's tree, extracted from its tarball into {@code into}. */
  static Path extract(Path into) {
    return extract(tarball(), into);
  }

  private static Path extract(Path tarball, Path into) {
    try {
      Files.createDirectories(into);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Command.run(into, "tar", "-xzf", tarball.toString()).ok();
    String name = tarball.getFileName().toString();
    return into.resolve(name.substring(0, name.indexOf("-linux-")));
  }

  static Path tarball() {
    return only(release(), "acceld-*-linux-*.tar.gz");
  }

  static Path deb() {
    return only(release(), "acceld_*_*.deb");
  }

  private static synchronized void refresh() {
    if (failed != null) {
      throw new AssertionError("the release build or install failed earlier in this run", failed);
    }
    if (current) {
      return;
    }
    // Test JVMs run in parallel forks: one builds while another waits here, then finds it current.
    try (FileChannel lock =
        FileChannel.open(LOCK, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      lock.lock(); // released when the channel closes
      build();
      current = true;
    } catch (IOException e) {
      failed = new AssertionError("cannot lock " + LOCK, e);
      throw failed;
    } catch (AssertionError | RuntimeException e) {
      failed = e instanceof AssertionError a ? a : new AssertionError(e);
      throw e;
    }
  }

  private static void build() {
    try {
      String fingerprint = fingerprint();
      if (Files.isRegularFile(FINGERPRINT) && Files.readString(FINGERPRINT).equals(fingerprint)) {
        return;
      }
      if (Files.isRegularFile(FINGERPRINT)) {
        System.err.println(
            "RuntimeImage: rebuilding, the inputs changed:\n"
                + Files.readString(FINGERPRINT)
                + "\n---\n"
                + fingerprint);
      }
      Command.run(WORK.getParent(), "rm", "-rf", WORK.toString()).ok();
      Files.createDirectories(WORK);
      // Under an owner-only umask, as a test JVM that ran the agent has: the artefacts' modes
      // must not depend on it (ReproducibleReleaseIT's build runs under the usual 022).
      buildRelease("077", WORK.resolve("release"));
      Path tree =
          extract(
              only(WORK.resolve("release"), "acceld-*-linux-*.tar.gz"), WORK.resolve("extracted"));
      Command.Result install =
          Command.run(
              WORK,
              installEnvironment(WORK.resolve("root")),
              List.of(
                  "sh",
                  "-c",
                  "umask 077 && exec \"$0\" --no-start",
                  tree.resolve("install.sh").toString()),
              BUILD_TIME);
      assertThat(install.exitCode()).as("install.sh: %s", install.output()).isZero();
      Files.writeString(WORK.resolve("install.log"), install.output());
      Files.writeString(FINGERPRINT, fingerprint);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A {@code PATH} holding every program of this machine's except a JDK's, as on a host with no
   * Java: a directory of links to each program that does not resolve into a JVM directory.
   */
  static Map<String, String> noJdk() {
    Path bin = WORK.resolve("no-jdk-bin");
    try {
      if (!Files.isDirectory(bin)) {
        Files.createDirectories(bin);
        for (String d :
            List.of(
                "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")) {
          if (!Files.isDirectory(Path.of(d))) {
            continue;
          }
          try (Stream<Path> programs = Files.list(Path.of(d))) {
            for (Path program : programs.toList()) {
              Path link = bin.resolve(program.getFileName().toString());
              if (Files.exists(link, LinkOption.NOFOLLOW_LINKS)
                  || !Files.isExecutable(program)
                  || program.toRealPath().toString().contains("/jvm/")) {
                continue;
              }
              Files.createSymbolicLink(link, program);
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, String> env = new HashMap<>();
    env.put("PATH", bin.toString());
    env.put("JAVA_HOME", WORK.resolve("no-jdk").toString());
    return env;
  }

  private static Path only(Path dir, String glob) {
    List<Path> found = new ArrayList<>();
    try (var stream = Files.newDirectoryStream(dir, glob)) {
      stream.forEach(found::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(found).as("%s in %s", glob, dir).hasSize(1);
    return found.get(0);
  }

  private static String fingerprint() throws IOException {
    Path jar = jar();
    List<String> parts = new ArrayList<>();
    parts.add(Long.toString(Files.size(jar)));
    parts.add(Files.getLastModifiedTime(jar).toString());
    parts.add(System.getProperty("java.home"));
    for (Path input : INPUTS) {
      try (Stream<Path> files = Files.walk(input)) {
        for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
          parts.add(file + " " + sha256(file));
        }
      }
    }
    return String.join("\n", parts);
  }

  private static String sha256(Path file) throws IOException {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String read(Path file) throws IOException {
    return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
  }
}
