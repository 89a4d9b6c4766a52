package io.acceld.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.acceld.testing.Waits;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code systemd-analyze verify} on the shipped unit, as installed (ExecStart must exist), alone
 * and with the Mesos drop-in beside it as {@code install.sh --mesos} puts it.
 */
class SystemdUnitIT {
  private static final Path UNIT = Path.of("deploy/systemd/acceld.service");
  private static final Path MESOS_DROP_IN = Path.of("deploy/systemd/acceld-mesos.conf");
  private static Path analyze;

  @TempDir Path dir;

  private record Result(int exitCode, String output) {}

  @BeforeAll
  static void findSystemdAnalyze() {
    Optional<Path> found = locate();
    if (found.isEmpty()) {
      if (System.getenv("CI") != null) {
        fail("systemd-analyze is not installed; CI must install it (Debian package 'systemd')");
      }
      assumeTrue(false, "systemd-analyze is not installed; install Debian's 'systemd' package");
    }
    analyze = found.get();
  }

  /** The unit with ExecStart pointing at this checkout's launcher, as install.sh rewrites it. */
  private Path installed(String unit) throws Exception {
    String launcher = Path.of("deploy/bin/acceld").toAbsolutePath().toString();
    Path file = dir.resolve("acceld.service");
    Files.writeString(file, unit.replace("/opt/acceld/bin/acceld", launcher));
    return file;
  }

  /** {@code drop-in} as {@code acceld.service.d/mesos.conf} beside {@code unit}. */
  private static void withDropIn(Path unit, String dropIn) throws Exception {
    Path dir = Files.createDirectories(unit.resolveSibling("acceld.service.d"));
    Files.writeString(dir.resolve("mesos.conf"), dropIn);
  }

  private static Result verify(Path unit) throws Exception {
    Process p =
        new ProcessBuilder(analyze.toString(), "verify", unit.toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!Waits.exited(p, Duration.ofSeconds(60))) {
      p.destroyForcibly();
      fail("systemd-analyze did not finish within 60 s");
    }
    // Only what it says about our unit: the host's own units are not ours to judge.
    String ours =
        String.join("\n", output.lines().filter(l -> l.contains("acceld.service")).toList());
    return new Result(p.exitValue(), ours);
  }

  @Test
  void theUnitVerifiesWithoutAWord() throws Exception {
    Result result = verify(installed(Files.readString(UNIT)));

    assertThat(result.output()).isEmpty();
    assertThat(result.exitCode()).isZero();
  }

  @Test
  void verifyWouldCatchAMistypedHardeningKey() throws Exception {
    String broken =
        Files.readString(UNIT)
            .replace("ReadWritePaths=-/var/run/cdi", "ReadWritePath=-/var/run/cdi");

    assertThat(verify(installed(broken)).output()).contains("Unknown key 'ReadWritePath'");
  }

  @Test
  void theUnitWithTheMesosDropInVerifiesWithoutAWord() throws Exception {
    Path unit = installed(Files.readString(UNIT));
    withDropIn(unit, Files.readString(MESOS_DROP_IN));

    Result result = verify(unit);

    assertThat(result.output()).isEmpty();
    assertThat(result.exitCode()).isZero();
  }

  /** The check above means something: verify reads the drop-in beside the unit. */
  @Test
  void verifyWouldCatchAMistypedKeyInTheDropIn() throws Exception {
    Path unit = installed(Files.readString(UNIT));
    withDropIn(
        unit, Files.readString(MESOS_DROP_IN).replace("KillMode=process", "KilMode=process"));

    assertThat(verify(unit).output())
        .contains("acceld.service.d/mesos.conf")
        .contains("Unknown key 'KilMode'");
  }

  @Test
  void theUnitRestartsAlwaysAndMayWriteOnlyWhatTheAgentWrites() throws Exception {
    List<String> lines = Files.readAllLines(UNIT);
    assertThat(lines)
        .contains(
            "Restart=always",
            "Type=notify",
            "NotifyAccess=main",
            "ProtectSystem=strict",
            "ProtectHome=yes",
            "PrivateTmp=yes",
            "NoNewPrivileges=yes",
            "StateDirectory=acceld",
            "EnvironmentFile=-/etc/default/acceld");
    assertThat(lines.stream().filter(l -> l.startsWith("ReadWritePaths=")))
        .containsExactlyInAnyOrder(
            "ReadWritePaths=-/var/lib/kubelet/device-plugins",
            "ReadWritePaths=-/var/lib/kubelet/plugins_registry",
            "ReadWritePaths=-/var/run/cdi",
            "ReadWritePaths=-/etc/kubernetes/node-feature-discovery/features.d");
    assertThat(lines)
        .anyMatch(l -> l.startsWith("After=") && l.contains("nvidia-persistenced.service"));
  }

  private static Optional<Path> locate() {
    String path = System.getenv().getOrDefault("PATH", "");
    return Stream.concat(
            Stream.of(Path.of("/usr/bin/systemd-analyze")),
            Stream.of(path.split(File.pathSeparator))
                .filter(p -> !p.isEmpty())
                .map(p -> Path.of(p, "systemd-analyze")))
        .filter(Files::isExecutable)
        .findFirst();
  }
}
