package io.acceld.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.acceld.testing.Command;
import io.acceld.testing.Waits;
import io.acceld.testing.kubelet.KubeletDouble;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release's .deb as an operator's {@code dpkg} installs it, into a throwaway root, and as
 * lintian reads it. A class of its own, not part of {@link ReleaseIT}: in another test JVM it runs
 * beside the tarball's tests once the one release build ({@link RuntimeImage}) is there, where in
 * one class they ran one after the other, the longest stretch of the suite on a loaded machine.
 */
class DebPackageIT {
  @TempDir Path dir;

  @Test
  void theDebInstallsIntoAThrowawayRootRunsAndRemovesAndPurgesCleanly() throws Exception {
    assumeThat(ProcessHandle.current().info().user())
        .as("dpkg --root installs as root (CI runs as root)")
        .hasValue("root");
    Path root = dir.resolve("root");
    for (String d : List.of("info", "updates", "triggers")) {
      Files.createDirectories(root.resolve("var/lib/dpkg").resolve(d));
    }
    Files.writeString(root.resolve("var/lib/dpkg/status"), "");
    Files.writeString(root.resolve("var/lib/dpkg/available"), "");
    Map<String, String> env = RuntimeImage.noJdk();
    env.put("ACCELD_TRAINING_PORT", Integer.toString(RuntimeImage.freePort()));

    dpkg(root, env, "--install", RuntimeImage.deb().toString());

    Path prefix = root.resolve("opt/acceld");
    assertThat(prefix.resolve("bin/acceld")).isExecutable();
    assertThat(root.resolve("lib/systemd/system/acceld.service")).isRegularFile();
    // The Mesos drop-in is shipped inactive: in the tree, not where systemd reads drop-ins.
    assertThat(prefix.resolve("share/systemd/acceld-mesos.conf"))
        .hasSameTextualContentAs(Path.of("deploy/systemd/acceld-mesos.conf"));
    assertThat(root.resolve("lib/systemd/system/acceld.service.d")).doesNotExist();
    assertThat(root.resolve("etc/systemd/system/acceld.service.d")).doesNotExist();
    assertThat(Files.readSymbolicLink(root.resolve("usr/bin/acceld")))
        .isEqualTo(Path.of("/opt/acceld/bin/acceld"));
    // Enabled, not started: what `systemctl enable` makes for WantedBy=multi-user.target.
    Path wants = root.resolve("etc/systemd/system/multi-user.target.wants/acceld.service");
    assertThat(Files.readSymbolicLink(wants))
        .isEqualTo(Path.of("/lib/systemd/system/acceld.service"));
    assertThat(
            Command.run(
                    dir,
                    env,
                    List.of(
                        "dpkg-query",
                        "--admindir=" + root.resolve("var/lib/dpkg"),
                        "--showformat=${Conffiles}",
                        "--show",
                        "acceld"))
                .ok())
        .contains("/etc/default/acceld")
        .contains("/etc/acceld/config.yaml");
    // postinst made both archives, for where the package put the tree.
    assertThat(prefix.resolve("jre/lib/acceld.jsa")).isNotEmptyFile();
    assertThat(prefix.resolve("jre/lib/server/classes.jsa")).isNotEmptyFile();
    startsAndRegisters(prefix, RuntimeImage.withJvmFlags(env, "-Xshare:on"));

    // remove: the package's files and what postinst made go; the conffiles and the state stay.
    Files.writeString(root.resolve("etc/default/acceld"), "ACCELD_ARGS=--log-level debug\n");
    Path state = Files.createDirectories(root.resolve("var/lib/acceld"));
    Files.writeString(state.resolve("ledger.json"), "{}");
    dpkg(root, env, "--remove", "acceld");
    assertThat(prefix).doesNotExist();
    assertThat(wants).doesNotExist();
    assertThat(root.resolve("usr/bin/acceld")).doesNotExist();
    assertThat(Files.readString(root.resolve("etc/default/acceld")))
        .isEqualTo("ACCELD_ARGS=--log-level debug\n");
    assertThat(state.resolve("ledger.json")).exists();

    // purge: all of it.
    dpkg(root, env, "--purge", "acceld");
    assertThat(root.resolve("etc/default/acceld")).doesNotExist();
    assertThat(root.resolve("etc/acceld")).doesNotExist();
    assertThat(state).doesNotExist();
  }

  @Test
  void lintianFindsNothingUnexplained() {
    assumeThat(onPath("lintian")).as("lintian is installed (.ci/run installs it)").isTrue();
    Command.Result lint =
        Command.run(
            dir,
            Map.of(),
            List.of(
                "lintian",
                "--fail-on",
                "error,warning",
                "--no-tag-display-limit",
                RuntimeImage.deb().toString()),
            Duration.ofMinutes(2));
    assertThat(lint.exitCode()).as(lint.output()).isZero();
  }

  private void dpkg(Path root, Map<String, String> env, String... action) {
    List<String> command =
        new ArrayList<>(
            List.of(
                "dpkg",
                "--root=" + root,
                "--force-script-chrootless",
                "--force-depends",
                "--log=" + dir.resolve("dpkg.log")));
    command.addAll(List.of(action));
    Command.Result result = Command.run(dir, env, command, RuntimeImage.BUILD_TIME);
    assertThat(result.exitCode()).as("%s:%n%s", command, result.output()).isZero();
  }

  /** The agent from {@code prefix} on the simulated node registers with a kubelet and stops. */
  private void startsAndRegisters(Path prefix, Map<String, String> env) throws Exception {
    try (KubeletDouble kubelet = KubeletDouble.start(dir.resolve("kubelet/device-plugins"))) {
      ProcessBuilder builder =
          new ProcessBuilder(
                  prefix.resolve("bin/acceld").toString(),
                  "run",
                  "--simulate",
                  "--device-plugin-dir",
                  kubelet.deviceDir().toString(),
                  "--metrics-address",
                  "127.0.0.1:0")
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("agent.log").toFile());
      builder.environment().putAll(env);
      builder
          .environment()
          .put("ACCELD_NATIVE_PROBES", RuntimeImage.nativeProbes().toAbsolutePath().toString());
      Process agent = builder.start();
      try {
        kubelet.awaitRegistered("nvidia.com/gpu", Duration.ofSeconds(60));
        assertThat(Path.of("/proc", Long.toString(agent.pid()), "exe").toRealPath())
            .isEqualTo(prefix.resolve("jre/bin/java").toRealPath());
        agent.destroy();
        assertThat(Waits.exited(agent, Duration.ofSeconds(10))).as("stopped on SIGTERM").isTrue();
        assertThat(agent.exitValue()).as(Files.readString(dir.resolve("agent.log"))).isZero();
      } finally {
        agent.destroyForcibly();
      }
    }
  }

  private static boolean onPath(String program) {
    return Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
        .anyMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, program)));
  }
}
