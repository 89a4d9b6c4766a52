package io.acceld.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.config.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SimulatedNodeTest {
  @Test
  void theNvmlControlFileExistsFromTheStartOwnerOnlySoTheReadmeGlobMatches() throws Exception {
    Map<String, String> env =
        Map.of(
            SimulatedNode.NATIVE_PROBES_ENV,
            System.getProperty("acceld.nativeProbes", "target/native-probes"));
    try (SimulatedNode node = SimulatedNode.create(env, 8, true)) {
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
