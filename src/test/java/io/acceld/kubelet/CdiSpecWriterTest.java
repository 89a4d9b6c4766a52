package io.acceld.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.ValidationMessage;
import io.acceld.inventory.Device;
import io.acceld.inventory.Health;
import io.acceld.testing.CdiSchemas;
import io.acceld.testing.TestDevices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdiSpecWriterTest {
  @TempDir Path cdiDir;
  private final ObjectMapper json = new ObjectMapper();

  static JsonSchema cdiSchema() {
    return CdiSchemas.schema();
  }

  @Test
  void specsValidateAgainstTheCdiSchema() throws Exception {
    CdiSpecWriter writer = new CdiSpecWriter(cdiDir, Path.of("/dev"));
    writer.write("nvidia.com/gpu", List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 1)));
    writer.write("amd.com/gpu", List.of(TestDevices.amd(1, 0)));

    JsonSchema schema = cdiSchema();
    for (String resource : List.of("nvidia.com/gpu", "amd.com/gpu")) {
      JsonNode spec = json.readTree(writer.specFile(resource).toFile());
      Set<ValidationMessage> errors = schema.validate(spec);
      assertThat(errors).as(resource).isEmpty();
      assertThat(spec.get("cdiVersion").asText()).isEqualTo("0.6.0");
      assertThat(spec.get("kind").asText()).isEqualTo(resource);
    }
  }

  @Test
  void theSchemaCheckCatchesABrokenSpec() throws Exception {
    JsonNode broken = json.readTree("{\"cdiVersion\":\"0.6.0\",\"devices\":[{\"name\":\"x\"}]}");
    assertThat(cdiSchema().validate(broken)).isNotEmpty();
  }

  @Test
  void sharedNodesGoToTheSpecAndEachGpuKeepsItsOwn() throws Exception {
    CdiSpecWriter writer = new CdiSpecWriter(cdiDir, Path.of("/run/nvidia/driver/dev"));
    List<Device> gpus = List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 1));
    writer.write("nvidia.com/gpu", gpus);

    JsonNode spec = json.readTree(writer.specFile("nvidia.com/gpu").toFile());
    JsonNode first = spec.get("devices").get(0);
    assertThat(first.get("name").asText()).isEqualTo(TestDevices.uuid(0));
    JsonNode own = first.get("containerEdits").get("deviceNodes");
    assertThat(own).hasSize(1);
    assertThat(own.get(0).get("path").asText()).isEqualTo("/dev/nvidia0");
    assertThat(own.get(0).get("hostPath").asText()).isEqualTo("/run/nvidia/driver/dev/nvidia0");
    assertThat(spec.get("containerEdits").get("deviceNodes")).hasSize(4);
  }

  @Test
  void rewritingReplacesTheFileAndLeavesNoTemporaries() throws Exception {
    CdiSpecWriter writer = new CdiSpecWriter(cdiDir, Path.of("/dev"));
    writer.write("nvidia.com/gpu", List.of(TestDevices.nvidia(0, 0), TestDevices.nvidia(1, 1)));
    writer.write("nvidia.com/gpu", List.of(TestDevices.nvidia(0, 0)));

    JsonNode spec = json.readTree(writer.specFile("nvidia.com/gpu").toFile());
    assertThat(spec.get("devices")).hasSize(1);
    try (Stream<Path> files = Files.list(cdiDir)) {
      assertThat(files).containsExactly(writer.specFile("nvidia.com/gpu"));
    }
    writer.remove("nvidia.com/gpu");
    assertThat(writer.specFile("nvidia.com/gpu")).doesNotExist();
  }

  @Test
  void aHealthFlipRendersTheSameSpec() {
    CdiSpecWriter writer = new CdiSpecWriter(cdiDir, Path.of("/dev"));
    Device gpu = TestDevices.nvidia(1, 1);
    Device sick = gpu.withHealth(Health.UNHEALTHY, Optional.of("XID 79"));
    assertThat(sick).isNotEqualTo(gpu); // Device equality includes health

    assertThat(writer.render("nvidia.com/gpu", List.of(TestDevices.nvidia(0, 0), sick)))
        .isEqualTo(writer.render("nvidia.com/gpu", List.of(TestDevices.nvidia(0, 0), gpu)));
  }

  @Test
  void specsAndTheirDirectoryAreWorldReadableWhateverTheUmask() throws Exception {
    Path dir = cdiDir.resolve("run/cdi");
    CdiSpecWriter writer = new CdiSpecWriter(dir, Path.of("/dev"));
    writer.write("nvidia.com/gpu", List.of(TestDevices.nvidia(0, 0)));

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
        .isEqualTo("rwxr-xr-x");
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(writer.specFile("nvidia.com/gpu"))))
        .isEqualTo("rw-r--r--");
  }
}
