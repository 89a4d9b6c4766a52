package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.simulate.NvmlScenario;
import io.acceld.testing.NvmlDouble;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The functions the agent calls, which of them older drivers lack, and what a loaded library
 * exports of them, through the production loader on the three builds of the NVML double.
 */
class NvmlSymbolsTest {
  @TempDir Path dir;

  private static List<String> optional() {
    return NvmlSymbols.used().stream()
        .filter(s -> NvmlSymbols.optionalFeature(s).isPresent())
        .toList();
  }

  @Test
  void theListIsTheBindingsFunctionsAndEveryCapabilityIsOptional() {
    assertThat(NvmlSymbols.used())
        .hasSize(NvmlLibrary.class.getDeclaredMethods().length)
        .contains("nvmlInit_v2", "nvmlErrorString", "nvmlDeviceGetMigMode")
        .isSorted();
    for (NvmlCapability c : NvmlCapability.values()) {
      assertThat(NvmlSymbols.optionalFeature(c.symbol())).as(c.symbol()).isPresent();
    }
    assertThat(NvmlSymbols.optionalFeature("nvmlInit_v2")).isEmpty();
  }

  @Test
  void aCurrentDriverExportsEverythingAndSaysWhichFileLoaded() {
    NvmlDouble current = NvmlDouble.create(dir.resolve("current"), NvmlScenario.empty());
    try (Nvml nvml = current.open()) {
      assertThat(nvml.missingSymbols()).isEmpty();
      assertThat(nvml.libraryFile()).contains(current.libraryPath());
    }
  }

  @Test
  void theOldDriverLacksExactlyTheOptionalFunctions() {
    NvmlDouble old = NvmlDouble.createOldDriver(dir.resolve("old"), NvmlScenario.empty());
    try (Nvml nvml = old.open()) {
      assertThat(nvml.missingSymbols()).containsExactlyElementsOf(new TreeSet<>(optional()));
      assertThat(nvml.capabilities()).isEmpty();
    }
  }

  @Test
  void theSparseBuildLacksFunctionsEveryDriverHas() {
    NvmlDouble sparse = NvmlDouble.createSparse(dir.resolve("sparse"), NvmlScenario.empty());
    try (Nvml nvml = sparse.open()) {
      assertThat(nvml.missingSymbols())
          .containsExactly(
              "nvmlDeviceGetCpuAffinity",
              "nvmlDeviceGetPowerUsage",
              "nvmlDeviceGetRetiredPagesPendingStatus",
              "nvmlDeviceGetTopologyCommonAncestor",
              "nvmlEventSetCreate");
    }
  }

  @Test
  void aMappingLineGivesItsFileOnlyForAnAddressInside() {
    String line = "7f0000001000-7f0000002000 r-xp 00001000 08:01 42   /usr/lib/libnvidia-ml.so.1";
    assertThat(MappedFiles.fileOf(line, 0x7f0000001800L))
        .contains(Path.of("/usr/lib/libnvidia-ml.so.1"));
    assertThat(MappedFiles.fileOf(line, 0x7f0000002000L)).isEmpty();
    assertThat(
            MappedFiles.fileOf("7f0000001000-7f0000002000 rw-p 00000000 00:00 0", 0x7f0000001800L))
        .isEmpty();
  }
}
