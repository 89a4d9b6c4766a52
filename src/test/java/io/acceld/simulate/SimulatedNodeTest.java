package io.acceld.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.config.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulatedNodeTest {
  @TempDir Path dir;

  private static Map<String, String> env() {
    return Map.of(
        SimulatedNode.NATIVE_PROBES_ENV,
        System.getProperty("acceld.nativeProbes", "target/native-probes"));
  }

  @Test
  void theNodeIsWrittenInTheSimulateDirAndDeletedOnClose() {
    Path sysfs;
    try (SimulatedNode node = SimulatedNode.create(env(), 8, dir, true)) {
      sysfs = (Path) node.settings().get(Settings.SYSFS_ROOT);
      assertThat(sysfs).startsWith(dir).isDirectory();
      assertThat((Path) node.settings().get(Settings.STATE_DIR)).startsWithRaw(dir);
    }
    assertThat(sysfs).doesNotExist();
    assertThat(dir).isEmptyDirectory();
  }

  @Test
  void aSimulateDirThatCannotBeWrittenFallsBackToTheTemporaryDirectory() {
    Path missing = dir.resolve("no/such/dir");
    try (SimulatedNode node = SimulatedNode.create(env(), 8, missing, false)) {
      Path sysfs = (Path) node.settings().get(Settings.SYSFS_ROOT);
      assertThat(sysfs).isDirectory().startsWith(Path.of(System.getProperty("java.io.tmpdir")));
    }
  }

  @Test
  void theNvmlControlFileExistsFromTheStartOwnerOnlySoTheReadmeGlobMatches() throws Exception {
    try (SimulatedNode node = SimulatedNode.create(env(), 8, dir, true)) {
      Path library = Path.of((String) node.settings().get(Settings.NVML_LIBRARY));
      Path control = library.resolveSibling(SimulatedNode.CONTROL_FILE);

      assertThat(control).exists().isEmptyFile();
      assertThat(Files.getPosixFilePermissions(control))
          .containsExactlyInAnyOrder(
              PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
      assertThat(control.toString()).matches(".*/acceld-simulate-[^/]+/nvml/nvml-control");
    }
  }
}
