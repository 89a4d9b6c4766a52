package io.acceld.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.acceld.testing.Command;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/gpu-check.sh's comparison ({@code gpu-check-compare.py}, run by python3 as on a GPU host)
 * on the files the script leaves: what acceld said (devices --json, /metrics) against nvidia-smi's
 * CSV and XML. Identities must be equal, live readings within a tolerance, and every difference is
 * a MISMATCH line naming the GPU and the field, with exit 1.
 */
class GpuCheckCompareTest {
  private static final Path SCRIPT = Path.of("deploy/gpu-check-compare.py");
  private static final String UUID_A = "GPU-11111111-2222-3333-4444-555555555555";
  private static final String UUID_B = "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";

  @TempDir Path work;

  @BeforeEach
  void agentAndDriverAgree() throws IOException {
    Files.writeString(work.resolve("version.txt"), "acceld 0.1.0\n");
    Files.writeString(
        work.resolve("devices.json"),
        "["
            + device(UUID_A, "0000:17:00.0", 85520809984L)
            + ","
            + device(UUID_B, "0000:3b:00.0", 85520809984L)
            + ",{\"resource\":\"amd.com/gpu\",\"id\":\"0000:c1:00.0\"}]");
    Files.writeString(
        work.resolve("smi.csv"),
        UUID_A
            + ", NVIDIA H100 80GB HBM3, 00000000:17:00.0, 81559, 550.54.15, 34, 1980, 2619, 71.20, 0\n"
            + UUID_B
            + ", NVIDIA H100 80GB HBM3, 00000000:3B:00.0, 81559, 550.54.15, 36, 345, 2619, [N/A], 3\n");
    Files.writeString(
        work.resolve("smi.xml"),
        "<nvidia_smi_log><driver_version>550.54.15</driver_version>"
            + "<cuda_version>12.4</cuda_version></nvidia_smi_log>");
    Files.writeString(work.resolve("metrics.txt"), metrics(35, 68.9));
  }

  private static String device(String uuid, String address, long memory) {
    return "{\"resource\":\"nvidia.com/gpu\",\"id\":\""
        + uuid
        + "\",\"uuid\":\""
        + uuid
        + "\",\"pciAddress\":\""
        + address
        + "\",\"memoryBytes\":"
        + memory
        + ",\"driverVersion\":\"550.54.15\"}";
  }

  private static String metrics(int temperatureA, double powerA) {
    StringBuilder text = new StringBuilder("# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n");
    for (String uuid : List.of(UUID_A, UUID_B)) {
      String labels = "{gpu=\"0\",UUID=\"" + uuid + "\",modelName=\"NVIDIA H100 80GB HBM3\"}";
      boolean a = uuid.equals(UUID_A);
      text.append("DCGM_FI_DEV_GPU_TEMP").append(labels).append(' ');
      text.append(a ? temperatureA : 36).append('\n');
      text.append("DCGM_FI_DEV_SM_CLOCK").append(labels).append(a ? " 1965\n" : " 345\n");
      text.append("DCGM_FI_DEV_MEM_CLOCK").append(labels).append(" 2619\n");
      text.append("DCGM_FI_DEV_POWER_USAGE").append(labels).append(' ');
      text.append(a ? powerA : 70.0).append('\n');
      text.append("DCGM_FI_DEV_GPU_UTIL").append(labels).append(a ? " 0\n" : " 5\n");
    }
    // A GPU-instance series of the same GPU is not the GPU's own reading.
    text.append("DCGM_FI_DEV_GPU_TEMP{UUID=\"" + UUID_A + "\",GPU_I_ID=\"1\"} 99\n");
    return text.toString();
  }

  private Command.Result compare(String ready, String probeExit, String runExit) {
    return Command.run(
        Path.of("."),
        Map.of(
            "WORK", work.toString(),
            "READY", ready,
            "PROBE_EXIT", probeExit,
            "RUN_EXIT", runExit,
            "DOCTOR_EXIT", "0"),
        List.of("python3", SCRIPT.toString()));
  }

  @Test
  void agreementIsZeroMismatchesAndExit0() {
    Command.Result result = compare("true", "0", "0");
    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output())
        .contains("nvidia-smi: 2 GPU(s), driver 550.54.15, CUDA 12.4")
        .contains("MATCH    " + UUID_B + " pci bus id")
        .contains("MATCH    " + UUID_A + " memory MiB: acceld 81559")
        .contains("SKIPPED  " + UUID_B + " power W: nvidia-smi says '[N/A]'")
        .contains("0 mismatch(es)")
        .doesNotContain("MISMATCH");
  }

  @Test
  void eachDifferenceIsAMismatchNamingTheGpuAndTheField() throws IOException {
    Files.writeString(
        work.resolve("devices.json"),
        "["
            + device(UUID_A, "0000:18:00.0", 85520809984L - (1L << 20))
            + ","
            + device(UUID_B, "0000:3b:00.0", 85520809984L)
            + "]");
    Files.writeString(work.resolve("metrics.txt"), metrics(45, 30.0));

    Command.Result result = compare("true", "0", "0");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.output())
        .contains("MISMATCH " + UUID_A + " pci bus id: acceld '0000:18:00.0'")
        .contains("MISMATCH " + UUID_A + " memory MiB: acceld 81558 nvidia-smi '81559'")
        .contains("MISMATCH " + UUID_A + " temperature C: acceld 45.0 nvidia-smi 34.0")
        .contains("MISMATCH " + UUID_A + " power W")
        .contains("4 mismatch(es)");
  }

  @Test
  void aGpuOnlyOneSideSeesAndAnAgentThatDidNotServeAreMismatches() throws IOException {
    Files.writeString(
        work.resolve("devices.json"), "[" + device(UUID_A, "0000:17:00.0", 85520809984L) + "]");
    Files.writeString(work.resolve("run.log"), "acceld: NVML failed to load\n");

    Command.Result result = compare("false", "-1", "1");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.output())
        .contains("MISMATCH the agent did not serve")
        .contains("acceld: NVML failed to load")
        .contains("MISMATCH " + UUID_B + " present: acceld False nvidia-smi True");
  }
}
