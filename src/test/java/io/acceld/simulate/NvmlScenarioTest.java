package io.acceld.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.simulate.NvmlScenario.Gpu;
import io.acceld.simulate.NvmlScenario.Mig;
import io.acceld.util.AtomicFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NvmlScenarioTest {
  @TempDir Path dir;

  @Test
  void rendersTheDoublesFileFormat() {
    Gpu h100 =
        Gpu.of("GPU-0b3f", "0000:18:00.0")
            .name("NVIDIA H100 80GB HBM3")
            .pciDeviceId(0x233010de)
            .minor(0)
            .memoryBytes(85899345920L)
            .numaNode(0)
            .cpus("0-31,64-95")
            .mig(Mig.DISABLED)
            .computeCapability("9.0");
    h100 =
        NvmlFaults.supportedEvents(h100, 0x0b)
            .temperatureCelsius(41)
            .powerMilliwatts(312000)
            .utilization(37, 12)
            .memoryUsedBytes(1073741824L);
    h100 = NvmlFaults.lost(NvmlFaults.ecc(h100, true), false);
    NvmlScenario scenario =
        NvmlScenario.empty()
            .driver("550.54.15")
            .cuda(12040)
            .gpu(h100)
            .gpu(Gpu.of("GPU-5c1e", "00000000:2A:00.0").mig(Mig.UNSUPPORTED))
            .topology(0, 1, 10)
            .nvlink(0, 1, 4);

    assertThat(scenario.render())
        .isEqualTo(
            """
            # NVML test double scenario (io.acceld.simulate)
            driver 550.54.15
            cuda 12040
            gpu uuid=GPU-0b3f bus=0000:18:00.0 name="NVIDIA H100 80GB HBM3" pciid=0x233010de \
            minor=0 memory=85899345920 numa=0 cpus=0-31,64-95 mig=0 cc=9.0 events=0xb temp=41 \
            power=312000 util=37/12 memused=1073741824 ecc=1 lost=0
            gpu uuid=GPU-5c1e bus=00000000:2A:00.0 mig=unsupported
            topo 0 1 10
            nvlink 0 1 4
            """);
  }

  @Test
  void initErrorIsRendered() {
    assertThat(NvmlFaults.initError(NvmlScenario.empty(), 9).render()).contains("\ninit-error 9\n");
    assertThatThrownBy(() -> NvmlFaults.initError(NvmlScenario.empty(), -1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void isImmutable() {
    NvmlScenario base = NvmlScenario.empty().driver("1.0");
    Gpu gpu = Gpu.of("GPU-a", "0000:01:00.0");

    NvmlScenario derived = base.gpu(gpu.name("changed"));

    assertThat(base.gpus()).isEmpty();
    assertThat(derived.gpus()).singleElement().isNotEqualTo(gpu);
    assertThat(gpu.toString()).isEqualTo("gpu uuid=GPU-a bus=0000:01:00.0");
  }

  @Test
  void rejectsValuesTheFormatCannotCarry() {
    Gpu gpu = Gpu.of("GPU-a", "0000:01:00.0");
    assertThatThrownBy(() -> gpu.name("say \"hi\"")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> gpu.name("two\nlines")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Gpu.of("GPU a", "0000:01:00.0"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Gpu.of("GPU-a", "1:2:3")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> gpu.cpus("0-3,x")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> gpu.utilization(101, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> NvmlScenario.empty().nvlink(0, 0, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> NvmlScenario.empty().driver("5 50"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void pairsMustNameAddedGpus() {
    NvmlScenario scenario =
        NvmlScenario.empty().gpu(Gpu.of("GPU-a", "0000:01:00.0")).nvlink(0, 1, 2);
    assertThatThrownBy(scenario::render)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("nvlink 0 1");
  }

  @Test
  void commentMarksAndBlanksAreQuoted() {
    Gpu gpu = Gpu.of("GPU-a", "0000:01:00.0").name("#1 GPU");
    assertThat(gpu.toString()).endsWith("name=\"#1 GPU\"");
    assertThat(Gpu.of("GPU-a", "0000:01:00.0").name("").toString()).endsWith("name=\"\"");
  }

  @Test
  void writeToReplacesTheScenarioFile() throws Exception {
    NvmlScenario.empty().driver("1.0").writeTo(dir);
    Path file = NvmlScenario.empty().driver("2.0").writeTo(dir.resolve("sub"));

    assertThat(file).isEqualTo(dir.resolve("sub").resolve(NvmlScenario.FILE_NAME));
    assertThat(Files.readString(file)).contains("driver 2.0");
    NvmlScenario.empty().driver("3.0").writeTo(dir.resolve("sub"));
    assertThat(Files.readString(file)).contains("driver 3.0").doesNotContain("2.0");
    try (var files = Files.list(dir.resolve("sub"))) {
      assertThat(files).containsExactly(file); // no temp files left behind
    }
    assertThat(Files.getPosixFilePermissions(file)).isEqualTo(AtomicFiles.OWNER_ONLY);
  }
}
