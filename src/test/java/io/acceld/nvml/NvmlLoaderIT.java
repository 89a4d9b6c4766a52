package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.simulate.NvmlFaults;
import io.acceld.simulate.NvmlScenario;
import io.acceld.testing.LogCapture;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.NvmlScenarios;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading and initialising NVML: the agent must keep running whenever NVML is not usable. */
class NvmlLoaderIT {
  @TempDir Path dir;

  @Test
  void missingLibraryYieldsEmptyWithOneWarning() {
    Path missing = dir.resolve("nowhere/libnvidia-ml.so.1");
    try (LogCapture log = LogCapture.of(NvmlLoader.class)) {
      assertThat(NvmlLoader.load(missing.toString())).isEmpty();
      assertThat(log.warnings()).singleElement().asString().contains(missing.toString());
    }
  }

  @Test
  void noneDisablesNvmlSilently() {
    try (LogCapture log = LogCapture.of(NvmlLoader.class)) {
      assertThat(NvmlLoader.load("none")).isEmpty();
      assertThat(log.warnings()).isEmpty();
    }
  }

  @Test
  void fileThatIsNotALibraryYieldsEmpty() throws Exception {
    Path bogus = Files.writeString(dir.resolve("libnvidia-ml.so.1"), "not an ELF file");
    try (LogCapture log = LogCapture.of(NvmlLoader.class)) {
      assertThat(NvmlLoader.load(bogus.toString())).isEmpty();
      assertThat(log.warnings()).singleElement().asString().contains(bogus.toString());
    }
  }

  @Test
  void driverNotLoadedAtInitYieldsEmptyAndNamesTheError() {
    NvmlDouble nvml = NvmlDouble.create(dir, NvmlFaults.initError(NvmlScenarios.h100s(2), 9));
    try (LogCapture log = LogCapture.of(NvmlLoader.class)) {
      assertThat(nvml.load()).isEmpty();
      assertThat(log.warnings())
          .singleElement()
          .asString()
          .contains(nvml.libraryPath().toString(), "NVML_ERROR_DRIVER_NOT_LOADED (9)");
    }
  }

  @Test
  void driverUpgradedWithoutRebootYieldsEmpty() {
    NvmlDouble nvml = NvmlDouble.create(dir, NvmlFaults.initError(NvmlScenarios.h100s(1), 18));
    try (LogCapture log = LogCapture.of(NvmlLoader.class)) {
      assertThat(nvml.load()).isEmpty();
      assertThat(log.warnings())
          .singleElement()
          .asString()
          .contains("NVML_ERROR_LIB_RM_VERSION_MISMATCH (18)", "reboot");
    }
  }

  @Test
  void currentDriverLoadsWithEveryOptionalFeature() {
    NvmlDouble nvml = NvmlDouble.create(dir, NvmlScenarios.h100s(2));
    try (Nvml loaded = nvml.open()) {
      assertThat(loaded.capabilities()).isEqualTo(EnumSet.allOf(NvmlCapability.class));
      assertThat(loaded.source()).isEqualTo(nvml.libraryPath().toString());
      assertThat(loaded.driverVersion()).isEqualTo(NvmlScenarios.DRIVER);
      assertThat(loaded.nvmlVersion()).isEqualTo("13." + NvmlScenarios.DRIVER);
      assertThat(loaded.deviceCount()).isEqualTo(2);
    }
  }

  @Test
  void closeShutsDownOnceAndLaterCallsFail() {
    NvmlDouble nvml = NvmlDouble.create(dir, NvmlScenarios.h100s(1));
    Nvml loaded = nvml.open();
    NvmlEventSet set = loaded.createEventSet();
    loaded.close();
    loaded.close();
    set.close(); // after shutdown: nothing left to free, and no exception
    assertThat(loaded.callStats().calls("nvmlShutdown")).isEqualTo(1);
    assertThatThrownBy(loaded::deviceCount)
        .isInstanceOfSatisfying(
            NvmlException.class,
            e -> assertThat(e.returnCode()).isEqualTo(NvmlReturn.ERROR_UNINITIALIZED));
  }

  @Test
  void scenarioIsReadAgainAfterAFullShutdown() {
    NvmlDouble nvml = NvmlDouble.create(dir, NvmlScenarios.h100s(2));
    try (Nvml first = nvml.open()) {
      assertThat(first.deviceCount()).isEqualTo(2);
    }
    nvml.writeScenario(NvmlScenarios.h100s(5).driver("560.1.2"));
    try (Nvml second = nvml.open()) {
      assertThat(second.deviceCount()).isEqualTo(5);
      assertThat(second.driverVersion()).isEqualTo("560.1.2");
    }
  }

  @Test
  void missingScenarioMeansNoGpus() throws Exception {
    NvmlDouble nvml = NvmlDouble.create(dir, NvmlScenario.empty());
    Files.delete(dir.resolve(NvmlScenario.FILE_NAME));
    try (Nvml loaded = nvml.open()) {
      NvmlNodeInfo info = new NvmlProbe(loaded).probe();
      assertThat(info.gpus()).isEmpty();
      assertThat(info.links()).isEmpty();
      assertThat(info.driverVersion()).isEqualTo("0.0");
      assertThat(info.cudaVersion()).isNull();
    }
  }
}
