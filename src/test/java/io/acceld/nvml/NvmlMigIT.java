package io.acceld.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.simulate.NvmlScenario;
import io.acceld.simulate.NvmlScenario.Mig;
import io.acceld.testing.LogCapture;
import io.acceld.testing.NvmlDouble;
import io.acceld.testing.NvmlScenarios;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The MIG calls through the production binding against the double's MIG model. */
class NvmlMigIT {
  static final long H100 = NvmlScenarios.H100_MEMORY;

  @TempDir Path dir;

  static NvmlScenario scenario(NvmlScenario.Gpu gpu0) {
    return NvmlScenario.empty()
        .driver(NvmlScenarios.DRIVER)
        .gpu(gpu0)
        .gpu(NvmlScenarios.h100(1).mig(Mig.UNSUPPORTED));
  }

  @Test
  void migDevicesAreEnumeratedWithTheirIdsMemoryAndTheProfileTheirIndexNames() {
    NvmlScenario.Gpu gpu =
        NvmlScenarios.h100(0)
            .memoryBytes(81559L << 20)
            .mig(Mig.ENABLED)
            .migDevices(List.of("3g.40gb", "1g.10gb+me", "1c.3g.40gb@13"));
    try (Nvml nvml = NvmlDouble.create(dir, scenario(gpu)).open()) {
      NvmlGpu probed = new NvmlProbe(nvml).probe().gpus().get(0);

      assertThat(probed.migEnabled()).hasValue(true);
      assertThat(probed.migPending()).hasValue(true);
      assertThat(probed.migDevices())
          .extracting(NvmlMigDevice::profile)
          .containsExactly("3g.40gb", "1g.10gb+me", "1c.3g.40gb");
      assertThat(probed.migDevices()).allMatch(NvmlMigDevice::profileNamed);
      assertThat(probed.migDevices())
          .extracting(NvmlMigDevice::gpuInstanceId)
          .containsExactly(7, 8, 13);
      assertThat(probed.migDevices().get(0).memoryBytes()).isEqualTo(40192L << 20);
      assertThat(probed.migDevices())
          .allMatch(d -> d.uuid().startsWith("MIG-") && d.uuid().length() == 40);
      // A GPU without MIG has none, and says so as NOT_SUPPORTED, not as an error.
      assertThat(new NvmlProbe(nvml).probe().gpus().get(1).migEnabled()).isEmpty();
    }
  }

  @Test
  void indicesGoSparseAfterARelayoutAndMigHandlesRefuseParentOnlyCalls() {
    NvmlScenario.Gpu gpu =
        NvmlScenarios.h100(0).mig(Mig.ENABLED).migDevices(List.of("1g.10gb", "1g.10gb"));
    NvmlDouble dbl = NvmlDouble.create(dir, scenario(gpu));
    try (Nvml nvml = dbl.open()) {
      NvmlDevice parent = nvml.deviceByIndex(0);
      List<NvmlMigHandle> handles = nvml.migDevices(parent);
      assertThat(handles).extracting(NvmlMigHandle::migIndex).containsExactly(0, 1);
      // A parent-only call on a MIG handle: INVALID_ARGUMENT, as drivers answer.
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> nvml.pciInfo(handles.get(0).device()))
          .isInstanceOf(NvmlException.class);
      assertThat(nvml.migAttributes(parent)).isEmpty(); // NOT_SUPPORTED on a parent
    }
  }

  @Test
  void withoutTheMonitorCapabilityProfilesAreNamedFromSlicesAndMemoryWithOneError() {
    NvmlScenario.Gpu gpu =
        NvmlScenarios.h100(0)
            .memoryBytes(81559L << 20)
            .mig(Mig.ENABLED)
            .migMonitor(false)
            .migDevices(List.of("1g.10gb+me", "2g.20gb"));
    try (LogCapture log = LogCapture.of(NvmlProbe.class);
        Nvml nvml = NvmlDouble.create(dir, scenario(gpu)).open()) {
      NvmlProbe probe = new NvmlProbe(nvml);
      NvmlGpu probed = probe.probe().gpus().get(0);
      probe.probe();

      // No +me without the profile's index; the parent's memory is NO_PERMISSION as well.
      assertThat(probed.migDevices())
          .extracting(NvmlMigDevice::profile)
          .containsExactly("1g.10gb", "2g.20gb");
      assertThat(probed.migDevices()).noneMatch(NvmlMigDevice::profileNamed);
      assertThat(log.warnings().stream().filter(w -> w.contains("MIG monitor capability")))
          .hasSize(1)
          .allMatch(w -> w.contains("NVIDIA_MIG_MONITOR_DEVICES=all"));
    }
  }

  @Test
  void aPendingModeIsReportedBesideTheCurrentOne() {
    NvmlScenario.Gpu gpu = NvmlScenarios.h100(0).mig(Mig.DISABLED).migPending(true);
    try (Nvml nvml = NvmlDouble.create(dir, scenario(gpu)).open()) {
      NvmlGpu probed = new NvmlProbe(nvml).probe().gpus().get(0);
      assertThat(probed.migEnabled()).hasValue(false);
      assertThat(probed.migPending()).hasValue(true);
      assertThat(probed.migDevices()).isEmpty();
    }
  }

  @Test
  void anOldDriverWithoutTheV2AttributesStillListsItsMigDevices() {
    NvmlScenario.Gpu gpu =
        NvmlScenarios.h100(0)
            .memoryBytes(81559L << 20)
            .mig(Mig.ENABLED)
            .migDevices(List.of("2g.20gb"));
    try (Nvml nvml = NvmlDouble.createOldDriver(dir, scenario(gpu)).open()) {
      List<NvmlGpu> gpus = new NvmlProbe(nvml).probe().gpus();
      // The old driver has no MIG mode call at all: its GPUs are whole.
      assertThat(gpus.get(0).migEnabled()).isEmpty();
      assertThat(gpus.get(0).migDevices()).isEmpty();
    }
  }
}
