package io.acceld.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.ledger.LeaseCheckpoint;
import io.acceld.testing.Eventually;
import io.acceld.testing.Waits;
import io.acceld.testing.kubelet.KubeletDouble;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent started with the loosest umask there is, {@code 000}, as a careless unit or shell might
 * start it: what it creates is still not readable or writable by other users (sockets, locks and
 * state owner-only), and only what others must read (the CDI directory and specs) is readable.
 */
class FileModesIT {
  @TempDir Path dir;

  static String mode(Path p) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  @Test
  void underAnOpenUmaskSocketsLocksAndStateAreOwnerOnly() throws Exception {
    Path state = dir.resolve("state");
    Path cdi = dir.resolve("cdi");
    try (KubeletDouble kubelet = KubeletDouble.start(dir.resolve("kubelet/device-plugins"))) {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      String jar = System.getProperty("acceld.jar", "target/acceld.jar");
      String command =
          String.join(
              " ",
              List.of(
                  "umask 000;",
                  "exec",
                  java,
                  "-jar",
                  jar,
                  "run",
                  "--simulate",
                  "--cdi",
                  "--cdi-dir",
                  cdi.toString(),
                  "--state-dir",
                  state.toString(),
                  "--device-plugin-dir",
                  kubelet.deviceDir().toString(),
                  "--metrics-address",
                  "127.0.0.1:0"));
      Process agent =
          new ProcessBuilder("sh", "-c", command)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("agent.log").toFile())
              .start();
      try {
        kubelet.awaitRegistered("nvidia.com/gpu", Duration.ofSeconds(30));
        Path socket = kubelet.deviceDir().resolve("acceld-nvidia.com_gpu.sock");
        String gpu =
            kubelet
                .awaitDevices("nvidia.com/gpu", l -> l.size() == 8, Duration.ofSeconds(10))
                .get(0)
                .id();
        kubelet.allocateOne("nvidia.com/gpu", List.of(gpu));
        Path checkpoint = state.resolve(LeaseCheckpoint.FILE_NAME);
        Eventually.await("the checkpoint", () -> Files.exists(checkpoint));

        assertThat(mode(socket)).as("plugin socket").isEqualTo("rw-------");
        assertThat(mode(Path.of(socket + ".lock"))).as("lock file").isEqualTo("rw-------");
        assertThat(mode(state)).as("state dir").isEqualTo("rwx------");
        assertThat(mode(checkpoint)).as("checkpoint").isEqualTo("rw-------");
        assertThat(mode(cdi)).as("CDI dir, read by the container runtime").isEqualTo("rwxr-xr-x");
        try (var specs = Files.list(cdi)) {
          for (Path spec : specs.toList()) {
            assertThat(mode(spec)).as("CDI spec %s", spec).isEqualTo("rw-r--r--");
          }
        }
      } finally {
        agent.destroy();
        Waits.exited(agent, Duration.ofSeconds(10));
      }
    }
  }
}
